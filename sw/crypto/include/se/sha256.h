/* SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104 / FIPS 198-1). */
#ifndef SE_SHA256_H
#define SE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "se/status.h"

#define SE_SHA256_BLOCK_BYTES 64
#define SE_SHA256_DIGEST_BYTES 32

/* A SHA-256 engine beside the software: where a context compresses its blocks and where a whole
 * HMAC runs. A backend offers one (se/backend.h's `sha`: the engine's SHA IP for se_backend_hw,
 * NULL for the library), and a caller passes it when a context starts; NULL is software.
 * compress: one compression of block into h, leaving h unchanged unless SE_OK. hmac: a whole
 * HMAC-SHA256, or NULL to run HMAC over compress. blocks: n whole blocks into h in one go (the
 * engine's DMA), h unchanged unless SE_OK, or NULL: compress, a block at a time. When a call
 * fails, the work is redone block by block by compress, then in software.
 *
 * Built with SE_SHA256_NO_SOFTWARE (firmware whose SHA-256 is the engine's alone: the node's
 * rv32imc build, RV_CFLAGS_rv32imc), the library links no software compression: a block that no
 * engine compresses (a NULL engine, or an engine fault) ends in se_fatal(SE_ERR_BACKEND), never
 * in a wrong hash that would reach a MAC, the DRBG or a signature's nonce. */
typedef struct {
    se_status (*compress)(uint32_t h[8], const uint8_t block[SE_SHA256_BLOCK_BYTES]);
    se_status (*hmac)(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t len,
                      uint8_t mac[SE_SHA256_DIGEST_BYTES]);
    se_status (*blocks)(uint32_t h[8], const uint8_t *data, size_t n);
} se_sha256_engine;

typedef struct {
    uint32_t h[8];
    uint64_t total_bytes;
    uint8_t buf[SE_SHA256_BLOCK_BYTES];
    size_t buf_len;
    const se_sha256_engine *eng; /* NULL: software */
} se_sha256_ctx;

/* se_sha256_init is se_sha256_init_on(ctx, NULL); so for the HMAC calls below. */
void se_sha256_init(se_sha256_ctx *ctx);
void se_sha256_init_on(se_sha256_ctx *ctx, const se_sha256_engine *eng);
void se_sha256_update(se_sha256_ctx *ctx, const uint8_t *data, size_t len);
void se_sha256_final(se_sha256_ctx *ctx, uint8_t digest[SE_SHA256_DIGEST_BYTES]);
void se_sha256(const uint8_t *data, size_t len, uint8_t digest[SE_SHA256_DIGEST_BYTES]);

/* One compression of a 64-byte block into state h (exposed for benchmarks and
 * for the hardware driver's software fallback). */
void se_sha256_compress(uint32_t h[8], const uint8_t block[SE_SHA256_BLOCK_BYTES]);

/* A failure the library cannot recover from (SE_SHA256_NO_SOFTWARE builds only). The platform
 * provides it, and it must not return: the node's (sw/node/node.c) reports it and stops. */
_Noreturn void se_fatal(se_status st);

typedef struct {
    se_sha256_ctx inner;
    se_sha256_ctx outer;
} se_hmac_sha256_ctx;

/* Any key length: keys longer than 64 bytes are hashed first. */
void se_hmac_sha256_init(se_hmac_sha256_ctx *ctx, const uint8_t *key, size_t key_len);
void se_hmac_sha256_init_on(se_hmac_sha256_ctx *ctx, const se_sha256_engine *eng, const uint8_t *key,
                            size_t key_len);
void se_hmac_sha256_update(se_hmac_sha256_ctx *ctx, const uint8_t *data, size_t len);
void se_hmac_sha256_final(se_hmac_sha256_ctx *ctx, uint8_t mac[SE_SHA256_DIGEST_BYTES]);
void se_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                    uint8_t mac[SE_SHA256_DIGEST_BYTES]);
/* On eng: its whole-HMAC call when it has one (one command sequence per HMAC on the engine, not
 * four compressions and their copies), else its compressions. */
void se_hmac_sha256_on(const se_sha256_engine *eng, const uint8_t *key, size_t key_len,
                       const uint8_t *data, size_t len, uint8_t mac[SE_SHA256_DIGEST_BYTES]);
/* The HMAC of the concatenation of n parts (len 0 parts may be NULL), on eng: one
 * se_hmac_sha256_on when they fit SE_HMAC_CAT_BYTES, else the context calls above. For HMAC-DRBG and RFC 6979, whose
 * messages are V || a byte || a few values. */
#define SE_HMAC_CAT_BYTES 160
void se_hmac_sha256_cat(const se_sha256_engine *eng, const uint8_t *key, size_t key_len,
                        const uint8_t *const part[], const size_t part_len[], size_t n,
                        uint8_t mac[SE_SHA256_DIGEST_BYTES]);

#endif
