// OpenSSL's libcrypto (Debian's libssl-dev), for the room layer's SHA-256 of driver keys.
// The one call lives here so no C pointer reaches Swift code.
#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>

/// Writes SHA-256 of `length` bytes at `message` to `digest` (32 bytes); 1 on success, 0 if
/// libcrypto failed.
static inline int scrollcast_sha256(const uint8_t *message, size_t length, uint8_t digest[32]) {
    unsigned int written = 0;
    static const uint8_t empty = 0;
    return EVP_Digest(message != NULL ? message : &empty, length, digest, &written, EVP_sha256(), NULL) == 1
        && written == 32;
}
