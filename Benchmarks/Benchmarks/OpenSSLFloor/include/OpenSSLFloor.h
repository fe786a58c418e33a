#ifndef OPENSSL_FLOOR_H
#define OPENSSL_FLOOR_H
#include <stddef.h>
#include <stdint.h>

/// The floor for one HOTP/TOTP code: OpenSSL's SHA-1 (system libcrypto)
/// from precomputed HMAC inner and outer states, in C, no allocation.
/// Measured beside the Swift implementation in OTPBenchmarks so that the
/// ratio comes from one run. Needs libssl-dev.
typedef struct otp_floor otp_floor;

/// Key schedule for `key` (at most 64 bytes); free with otp_floor_free.
otp_floor *otp_floor_new(const uint8_t *key, size_t length);
void otp_floor_free(otp_floor *floor);

/// RFC 4226 dynamic truncation of HMAC-SHA1(key, counter big-endian).
uint32_t otp_floor_truncated(const otp_floor *floor, uint64_t counter);

/// The floor for one ID token's signature: OpenSSL's RS256 verification
/// (SHA-256 of the signing input, then RSA PKCS#1 v1.5) with a key parsed
/// once, as `openssl speed rsa2048` measures the RSA half. Measured beside
/// verifyIDToken in TokenBenchmarks.
typedef struct rs256_floor rs256_floor;

/// The public key from its DER SubjectPublicKeyInfo; free with rs256_floor_free.
rs256_floor *rs256_floor_new(const uint8_t *spki, size_t length);
void rs256_floor_free(rs256_floor *floor);

/// 1 when `signature` is `floor`'s RS256 signature of `input`, else 0.
int rs256_floor_verify(const rs256_floor *floor, const uint8_t *input, size_t input_length,
                       const uint8_t *signature, size_t signature_length);

#endif
