/* AES-GCM (SP 800-38D) with a constant-time, table-free GHASH. */
#include <stdint.h>
#include <string.h>

#include "aes_internal.h"
#include "se/ct.h"

#define BLK SE_AES_BLOCK_BYTES

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* y <- y * h in GF(2^128), SP 800-38D Algorithm 1. Every bit of y selects
 * through a mask and the reduction is masked too, so nothing branches on data. */
static void gf128_mul(uint32_t y[4], const uint32_t h[4])
{
    uint32_t z[4] = {0}, v[4];

    memcpy(v, h, sizeof v);
    for (unsigned i = 0; i < 128; i++) {
        uint32_t m = (uint32_t)0 - ((y[i >> 5] >> (31 - (i & 31))) & 1u);
        uint32_t r = (uint32_t)0 - (v[3] & 1u);
        z[0] ^= v[0] & m;
        z[1] ^= v[1] & m;
        z[2] ^= v[2] & m;
        z[3] ^= v[3] & m;
        v[3] = (v[3] >> 1) | (v[2] << 31);
        v[2] = (v[2] >> 1) | (v[1] << 31);
        v[1] = (v[1] >> 1) | (v[0] << 31);
        v[0] = (v[0] >> 1) ^ (r & 0xE1000000u);
    }
    memcpy(y, z, sizeof z);
}

/* Absorbs data, zero-padded to a whole number of blocks. */
static void ghash(uint32_t y[4], const uint32_t h[4], const uint8_t *data, size_t len)
{
    uint8_t blk[BLK];

    while (len > 0) {
        size_t n = len >= BLK ? BLK : len;
        memset(blk, 0, BLK);
        memcpy(blk, data, n);
        for (unsigned k = 0; k < 4; k++)
            y[k] ^= load_be32(blk + 4 * k);
        gf128_mul(y, h);
        data += n;
        len -= n;
    }
    se_ct_wipe(blk, sizeof blk);
}

/* The final block [len(A)]_64 || [len(C)]_64, lengths in bits. */
static void ghash_lengths(uint32_t y[4], const uint32_t h[4], uint64_t a_bytes, uint64_t c_bytes)
{
    y[0] ^= (uint32_t)(a_bytes >> 29);
    y[1] ^= (uint32_t)(a_bytes << 3);
    y[2] ^= (uint32_t)(c_bytes >> 29);
    y[3] ^= (uint32_t)(c_bytes << 3);
    gf128_mul(y, h);
}

se_status se_aes_gcm_init(se_aes_gcm_ctx *ctx, const uint8_t *key, size_t key_len)
{
    uint8_t blk[BLK] = {0};
    se_status st = se_aes_init(&ctx->aes, key, key_len);

    if (st != SE_OK)
        return st;
    se_aes_encrypt_block(&ctx->aes, blk, blk);
    for (unsigned k = 0; k < 4; k++)
        ctx->h[k] = load_be32(blk + 4 * k);
    se_ct_wipe(blk, sizeof blk);
    return SE_OK;
}

void se_aes_gcm_wipe(se_aes_gcm_ctx *ctx)
{
    se_ct_wipe(ctx, sizeof *ctx);
}

static se_status check_lengths(size_t iv_len, size_t len, size_t tag_len)
{
    if (iv_len == 0 || tag_len < 4 || tag_len > BLK)
        return SE_ERR_BAD_LENGTH;
#if SIZE_MAX > 0xFFFFFFFFu
    /* P is limited to 2^39 - 256 bits, which only a 64-bit size_t can exceed. */
    if ((uint64_t)len > ((uint64_t)1 << 36) - 32)
        return SE_ERR_BAD_LENGTH;
#else
    (void)len;
#endif
    return SE_OK;
}

static void derive_j0(const se_aes_gcm_ctx *ctx, const uint8_t *iv, size_t iv_len, uint8_t j0[BLK])
{
    if (iv_len == 12) {
        memcpy(j0, iv, 12);
        store_be32(j0 + 12, 1);
    } else {
        uint32_t y[4] = {0};
        ghash(y, ctx->h, iv, iv_len);
        ghash_lengths(y, ctx->h, 0, (uint64_t)iv_len);
        for (unsigned k = 0; k < 4; k++)
            store_be32(j0 + 4 * k, y[k]);
    }
}

/* Tag = E(J0) xor GHASH(A, C), computed in full; callers truncate. */
static void compute_tag(const se_aes_gcm_ctx *ctx, const uint8_t j0[BLK], const uint8_t *aad,
                        size_t aad_len, const uint8_t *c, size_t len, uint8_t t[BLK])
{
    uint32_t y[4] = {0};

    ghash(y, ctx->h, aad, aad_len);
    ghash(y, ctx->h, c, len);
    ghash_lengths(y, ctx->h, (uint64_t)aad_len, (uint64_t)len);
    se_aes_encrypt_block(&ctx->aes, j0, t);
    for (unsigned k = 0; k < 4; k++) {
        uint32_t w = load_be32(t + 4 * k) ^ y[k];
        store_be32(t + 4 * k, w);
    }
}

se_status se_aes_gcm_encrypt(const se_aes_gcm_ctx *ctx, const uint8_t *iv, size_t iv_len,
                             const uint8_t *aad, size_t aad_len, const uint8_t *pt, size_t len,
                             uint8_t *ct, uint8_t *tag, size_t tag_len)
{
    uint8_t j0[BLK], cb[BLK], t[BLK];
    se_status st = check_lengths(iv_len, len, tag_len);

    if (st != SE_OK)
        return st;
    derive_j0(ctx, iv, iv_len, j0);
    memcpy(cb, j0, BLK);
    store_be32(cb + 12, load_be32(cb + 12) + 1u);
    se_aes_ctr_xor(&ctx->aes, cb, 4, pt, len, ct);
    compute_tag(ctx, j0, aad, aad_len, ct, len, t);
    memcpy(tag, t, tag_len);
    se_ct_wipe(t, sizeof t);
    return SE_OK;
}

se_status se_aes_gcm_decrypt(const se_aes_gcm_ctx *ctx, const uint8_t *iv, size_t iv_len,
                             const uint8_t *aad, size_t aad_len, const uint8_t *ct, size_t len,
                             const uint8_t *tag, size_t tag_len, uint8_t *pt)
{
    uint8_t j0[BLK], cb[BLK], t[BLK];
    se_status st = check_lengths(iv_len, len, tag_len);
    int ok;

    if (st != SE_OK)
        return st;
    derive_j0(ctx, iv, iv_len, j0);
    compute_tag(ctx, j0, aad, aad_len, ct, len, t);
    ok = se_ct_equal(t, tag, tag_len);
    se_ct_wipe(t, sizeof t);
    SE_CT_DECLASSIFY(&ok, sizeof ok); /* the verdict is public: the caller learns it */
    if (!ok) {
        se_ct_wipe(pt, len);
        return SE_ERR_BAD_TAG;
    }
    memcpy(cb, j0, BLK);
    store_be32(cb + 12, load_be32(cb + 12) + 1u);
    se_aes_ctr_xor(&ctx->aes, cb, 4, ct, len, pt);
    return SE_OK;
}
