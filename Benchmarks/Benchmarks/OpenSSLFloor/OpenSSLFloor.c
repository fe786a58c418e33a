// The benchmark floor (see include/OpenSSLFloor.h). SHA1_* are deprecated in
// OpenSSL 3 in favour of EVP, whose context copies allocate; the low-level
// calls are the cheapest way to reach the same compression function.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "OpenSSLFloor.h"
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

struct otp_floor {
    SHA_CTX inner;
    SHA_CTX outer;
};

otp_floor *otp_floor_new(const uint8_t *key, size_t length) {
    if (length > 64) return NULL;
    otp_floor *floor = malloc(sizeof(otp_floor));
    if (!floor) return NULL;
    uint8_t inner[64], outer[64];
    memset(inner, 0x36, sizeof inner);
    memset(outer, 0x5c, sizeof outer);
    for (size_t index = 0; index < length; index++) {
        inner[index] ^= key[index];
        outer[index] ^= key[index];
    }
    SHA1_Init(&floor->inner);
    SHA1_Update(&floor->inner, inner, sizeof inner);
    SHA1_Init(&floor->outer);
    SHA1_Update(&floor->outer, outer, sizeof outer);
    return floor;
}

void otp_floor_free(otp_floor *floor) { free(floor); }

uint32_t otp_floor_truncated(const otp_floor *floor, uint64_t counter) {
    uint8_t message[8];
    for (int index = 7; index >= 0; index--) {
        message[index] = (uint8_t)(counter & 0xff);
        counter >>= 8;
    }
    uint8_t digest[SHA_DIGEST_LENGTH];
    SHA_CTX context = floor->inner;
    SHA1_Update(&context, message, sizeof message);
    SHA1_Final(digest, &context);
    context = floor->outer;
    SHA1_Update(&context, digest, sizeof digest);
    SHA1_Final(digest, &context);
    int offset = digest[SHA_DIGEST_LENGTH - 1] & 0x0f;
    return ((uint32_t)(digest[offset] & 0x7f) << 24) | ((uint32_t)digest[offset + 1] << 16) | ((uint32_t)digest[offset + 2] << 8)
        | (uint32_t)digest[offset + 3];
}

struct rs256_floor {
    EVP_PKEY *key;
};

rs256_floor *rs256_floor_new(const uint8_t *spki, size_t length) {
    const unsigned char *cursor = spki;
    EVP_PKEY *key = d2i_PUBKEY(NULL, &cursor, (long)length);
    if (!key) return NULL;
    rs256_floor *floor = malloc(sizeof(rs256_floor));
    if (!floor) {
        EVP_PKEY_free(key);
        return NULL;
    }
    floor->key = key;
    return floor;
}

void rs256_floor_free(rs256_floor *floor) {
    if (!floor) return;
    EVP_PKEY_free(floor->key);
    free(floor);
}

int rs256_floor_verify(const rs256_floor *floor, const uint8_t *input, size_t input_length,
                       const uint8_t *signature, size_t signature_length) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (!context) return 0;
    int valid = EVP_DigestVerifyInit(context, NULL, EVP_sha256(), NULL, floor->key) == 1
        && EVP_DigestVerify(context, signature, signature_length, input, input_length) == 1;
    EVP_MD_CTX_free(context);
    return valid;
}
