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

#endif
