// OpenSSL's libcrypto (Debian's libssl-dev), already linked through libwebsockets: only its
// one-shot SHA-256.
#include <openssl/sha.h>
