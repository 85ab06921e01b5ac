/* Helpers shared by the AES mode files (not part of the public API). */
#ifndef SE_AES_INTERNAL_H
#define SE_AES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "se/aes.h"

/* CTR keystream XOR. The counter is the last inc_bytes bytes of ctr, big-endian,
 * wrapping modulo 2^(8 inc_bytes): 16 for SP 800-38A CTR, 4 for GCM's inc32.
 * On return ctr holds the next unused counter block. */
void se_aes_ctr_xor(const se_aes_ctx *ctx, uint8_t ctr[SE_AES_BLOCK_BYTES], size_t inc_bytes,
                    const uint8_t *in, size_t len, uint8_t *out);

#endif
