/* X25519 Diffie-Hellman (RFC 7748): 32-byte little-endian scalars and u-coordinates. */
#ifndef SE_X25519_H
#define SE_X25519_H

#include <stdint.h>

#include "se/status.h"

#define SE_X25519_BYTES 32

/* out = X25519(scalar, u): the scalar is clamped and the top bit of u masked as RFC 7748 says.
 * SE_ERR_INFINITY when the result is all zero (u of small order), as RFC 7748 section 6.1
 * asks a protocol to check; out then holds the zeros. */
se_status se_x25519(uint8_t out[SE_X25519_BYTES], const uint8_t scalar[SE_X25519_BYTES],
                    const uint8_t u[SE_X25519_BYTES]);
/* out = X25519(scalar, 9): the public key of a private scalar. */
se_status se_x25519_base(uint8_t out[SE_X25519_BYTES], const uint8_t scalar[SE_X25519_BYTES]);

#endif
