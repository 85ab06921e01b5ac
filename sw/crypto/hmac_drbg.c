/* HMAC_DRBG over HMAC-SHA256 (NIST SP 800-90A Rev. 1, 10.1.2), no prediction resistance. */
#include <string.h>

#include "se/ct.h"
#include "se/drbg.h"

#define DRBG_MAGIC 0x48445247u /* "HDRG" */
#define OUTLEN SE_SHA256_DIGEST_BYTES

/* HMAC_DRBG_Update with provided_data = a || b || c (any may be empty). */
static void update(se_hmac_drbg_ctx *ctx, const uint8_t *a, size_t a_len, const uint8_t *b,
                   size_t b_len, const uint8_t *c, size_t c_len)
{
    int empty = a_len + b_len + c_len == 0;

    for (uint8_t round = 0; round < 2; round++) {
        const uint8_t *part[5] = {ctx->v, &round, a, b, c};
        const size_t len[5] = {OUTLEN, 1, a_len, b_len, c_len};
        se_hmac_sha256_cat(ctx->eng, ctx->k, OUTLEN, part, len, 5, ctx->k);
        se_hmac_sha256_on(ctx->eng, ctx->k, OUTLEN, ctx->v, OUTLEN, ctx->v);
        if (empty)
            break;
    }
}

static int too_long(size_t len)
{
#if SIZE_MAX > 0xFFFFFFFFu
    return (uint64_t)len > SE_HMAC_DRBG_MAX_INPUT_BYTES;
#else
    (void)len; /* a 32-bit size_t cannot exceed 2^32 bytes */
    return 0;
#endif
}

static int seeded(const se_hmac_drbg_ctx *ctx)
{
    return ctx->instantiated == DRBG_MAGIC;
}

se_status se_hmac_drbg_instantiate_on(se_hmac_drbg_ctx *ctx, const se_sha256_engine *eng,
                                      const uint8_t *entropy, size_t entropy_len, const uint8_t *nonce,
                                      size_t nonce_len, const uint8_t *pers, size_t pers_len)
{
    if (entropy_len < SE_HMAC_DRBG_MIN_ENTROPY_BYTES || too_long(entropy_len) ||
        too_long(nonce_len) || too_long(pers_len))
        return SE_ERR_BAD_LENGTH;
    ctx->eng = eng;
    memset(ctx->k, 0x00, OUTLEN);
    memset(ctx->v, 0x01, OUTLEN);
    update(ctx, entropy, entropy_len, nonce, nonce_len, pers, pers_len);
    ctx->reseed_counter = 1;
    ctx->reseed_interval = SE_HMAC_DRBG_RESEED_INTERVAL;
    ctx->instantiated = DRBG_MAGIC;
    return SE_OK;
}

se_status se_hmac_drbg_instantiate(se_hmac_drbg_ctx *ctx, const uint8_t *entropy,
                                   size_t entropy_len, const uint8_t *nonce, size_t nonce_len,
                                   const uint8_t *pers, size_t pers_len)
{
    return se_hmac_drbg_instantiate_on(ctx, NULL, entropy, entropy_len, nonce, nonce_len, pers, pers_len);
}

se_status se_hmac_drbg_reseed(se_hmac_drbg_ctx *ctx, const uint8_t *entropy, size_t entropy_len,
                              const uint8_t *add, size_t add_len)
{
    if (!seeded(ctx))
        return SE_ERR_DRBG_NOT_SEEDED;
    if (entropy_len < SE_HMAC_DRBG_MIN_ENTROPY_BYTES || too_long(entropy_len) || too_long(add_len))
        return SE_ERR_BAD_LENGTH;
    update(ctx, entropy, entropy_len, add, add_len, NULL, 0);
    ctx->reseed_counter = 1;
    return SE_OK;
}

se_status se_hmac_drbg_generate(se_hmac_drbg_ctx *ctx, uint8_t *out, size_t out_len,
                                const uint8_t *add, size_t add_len)
{
    if (!seeded(ctx))
        return SE_ERR_DRBG_NOT_SEEDED;
    if (out_len > SE_HMAC_DRBG_MAX_REQUEST_BYTES || too_long(add_len))
        return SE_ERR_BAD_LENGTH;
    if (ctx->reseed_counter > ctx->reseed_interval)
        return SE_ERR_DRBG_RESEED;
    if (add_len > 0)
        update(ctx, add, add_len, NULL, 0, NULL, 0);
    while (out_len > 0) {
        size_t n = out_len < OUTLEN ? out_len : OUTLEN;
        se_hmac_sha256_on(ctx->eng, ctx->k, OUTLEN, ctx->v, OUTLEN, ctx->v);
        memcpy(out, ctx->v, n);
        out += n;
        out_len -= n;
    }
    update(ctx, add, add_len, NULL, 0, NULL, 0);
    ctx->reseed_counter++;
    return SE_OK;
}

se_status se_hmac_drbg_set_reseed_interval(se_hmac_drbg_ctx *ctx, uint32_t interval)
{
    if (!seeded(ctx))
        return SE_ERR_DRBG_NOT_SEEDED;
    if (interval < 1 || interval > SE_HMAC_DRBG_RESEED_INTERVAL)
        return SE_ERR_BAD_INPUT;
    ctx->reseed_interval = interval;
    return SE_OK;
}

void se_hmac_drbg_uninstantiate(se_hmac_drbg_ctx *ctx)
{
    se_ct_wipe(ctx, sizeof *ctx);
}
