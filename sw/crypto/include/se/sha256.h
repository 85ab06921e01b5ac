/* SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104 / FIPS 198-1). */
#ifndef SE_SHA256_H
#define SE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "se/status.h"

#define SE_SHA256_BLOCK_BYTES 64
#define SE_SHA256_DIGEST_BYTES 32

typedef struct {
    uint32_t h[8];
    uint64_t total_bytes;
    uint8_t buf[SE_SHA256_BLOCK_BYTES];
    size_t buf_len;
} se_sha256_ctx;

void se_sha256_init(se_sha256_ctx *ctx);
void se_sha256_update(se_sha256_ctx *ctx, const uint8_t *data, size_t len);
void se_sha256_final(se_sha256_ctx *ctx, uint8_t digest[SE_SHA256_DIGEST_BYTES]);
void se_sha256(const uint8_t *data, size_t len, uint8_t digest[SE_SHA256_DIGEST_BYTES]);

/* One compression of a 64-byte block into state h (exposed for benchmarks and
 * for the hardware driver's software fallback). */
void se_sha256_compress(uint32_t h[8], const uint8_t block[SE_SHA256_BLOCK_BYTES]);

/* Where the contexts above (and so HMAC, the TLS transcript, and HMAC-DRBG and RFC 6979 when
 * no HMAC hook is set or a message exceeds SE_HMAC_CAT_BYTES) compress their blocks: software
 * by default; firmware with the engine installs the SHA IP's driver (se_drv_sha256_compress).
 * fn must leave h unchanged when it fails, the block is then compressed in software. NULL
 * restores software. Process-wide: set it once at start-up.
 *
 * Built with SE_SHA256_NO_SOFTWARE (firmware whose SHA-256 is the engine's alone: the node's
 * rv32imc build, RV_CFLAGS_rv32imc), the contexts link no software compression: a block the hook
 * cannot compress (no hook, or an engine fault) ends in se_fatal(SE_ERR_BACKEND), never in a
 * wrong hash that would reach a MAC, the DRBG or a signature's nonce. */
typedef se_status (*se_sha256_compress_fn)(uint32_t h[8], const uint8_t block[SE_SHA256_BLOCK_BYTES]);
void se_sha256_set_compress(se_sha256_compress_fn fn);

/* A failure the library cannot recover from (SE_SHA256_NO_SOFTWARE builds only). The platform
 * provides it, and it must not return: the node's (sw/node/node.c) reports it and stops. */
_Noreturn void se_fatal(se_status st);

typedef struct {
    se_sha256_ctx inner;
    se_sha256_ctx outer;
} se_hmac_sha256_ctx;

/* Any key length: keys longer than 64 bytes are hashed first. */
void se_hmac_sha256_init(se_hmac_sha256_ctx *ctx, const uint8_t *key, size_t key_len);
void se_hmac_sha256_update(se_hmac_sha256_ctx *ctx, const uint8_t *data, size_t len);
void se_hmac_sha256_final(se_hmac_sha256_ctx *ctx, uint8_t mac[SE_SHA256_DIGEST_BYTES]);
void se_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                    uint8_t mac[SE_SHA256_DIGEST_BYTES]);
/* The HMAC of the concatenation of n parts (len 0 parts may be NULL): one se_hmac_sha256 when
 * they fit SE_HMAC_CAT_BYTES, else the context calls above. For HMAC-DRBG and RFC 6979, whose
 * messages are V || a byte || a few values. */
#define SE_HMAC_CAT_BYTES 160
void se_hmac_sha256_cat(const uint8_t *key, size_t key_len, const uint8_t *const part[],
                        const size_t part_len[], size_t n, uint8_t mac[SE_SHA256_DIGEST_BYTES]);

/* Where se_hmac_sha256 (and so se_hmac_sha256_cat) runs, like se_sha256_set_compress: software
 * by default; firmware with the engine installs the SHA IP's keyed mode (se_drv_hmac_sha256),
 * one command sequence per HMAC instead of four compressions and their copies. When fn fails
 * the MAC is made in software. NULL restores software. Set it once at start-up. */
typedef se_status (*se_hmac_sha256_fn)(const uint8_t *key, size_t key_len, const uint8_t *msg,
                                       size_t len, uint8_t mac[SE_SHA256_DIGEST_BYTES]);
void se_hmac_sha256_set_oneshot(se_hmac_sha256_fn fn);

#endif
