/* AES modes of operation: ECB, CBC, CTR, OFB (SP 800-38A) and raw CBC-MAC. */
#include <string.h>

#include "aes_internal.h"
#include "se/ct.h"

#define BLK SE_AES_BLOCK_BYTES

static void xor_bytes(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)(a[i] ^ b[i]);
}

/* Branch-free big-endian increment of the last n bytes. */
static void ctr_inc(uint8_t ctr[BLK], size_t n)
{
    uint32_t carry = 1;

    for (size_t i = BLK; i > BLK - n; i--) {
        carry += ctr[i - 1];
        ctr[i - 1] = (uint8_t)carry;
        carry >>= 8;
    }
}

se_status se_aes_ecb_encrypt(const se_aes_ctx *ctx, const uint8_t *in, size_t len, uint8_t *out)
{
    if (len % BLK != 0)
        return SE_ERR_BAD_LENGTH;
    se_aes_encrypt_blocks(ctx, in, out, len / BLK);
    return SE_OK;
}

se_status se_aes_ecb_decrypt(const se_aes_ctx *ctx, const uint8_t *in, size_t len, uint8_t *out)
{
    if (len % BLK != 0)
        return SE_ERR_BAD_LENGTH;
    se_aes_decrypt_blocks(ctx, in, out, len / BLK);
    return SE_OK;
}

se_status se_aes_cbc_encrypt(const se_aes_ctx *ctx, uint8_t iv[BLK], const uint8_t *in,
                             size_t len, uint8_t *out)
{
    if (len % BLK != 0)
        return SE_ERR_BAD_LENGTH;
    for (; len > 0; len -= BLK, in += BLK, out += BLK) {
        xor_bytes(iv, iv, in, BLK);
        se_aes_encrypt_block(ctx, iv, iv);
        memcpy(out, iv, BLK);
    }
    return SE_OK;
}

/* Two blocks per AES call; the ciphertext is saved first so out == in works. */
se_status se_aes_cbc_decrypt(const se_aes_ctx *ctx, uint8_t iv[BLK], const uint8_t *in,
                             size_t len, uint8_t *out)
{
    uint8_t c[2 * BLK], p[2 * BLK];

    if (len % BLK != 0)
        return SE_ERR_BAD_LENGTH;
    while (len > 0) {
        size_t n = len >= 2 * BLK ? 2 * BLK : BLK;
        memcpy(c, in, n);
        se_aes_decrypt_blocks(ctx, c, p, n / BLK);
        xor_bytes(out, p, iv, BLK);
        if (n > BLK)
            xor_bytes(out + BLK, p + BLK, c, BLK);
        memcpy(iv, c + n - BLK, BLK);
        in += n;
        out += n;
        len -= n;
    }
    se_ct_wipe(p, sizeof p);
    return SE_OK;
}

void se_aes_ctr_xor(const se_aes_ctx *ctx, uint8_t ctr[BLK], size_t inc_bytes, const uint8_t *in,
                    size_t len, uint8_t *out)
{
    uint8_t ks[2 * BLK];

    while (len > 0) {
        size_t n = len >= 2 * BLK ? 2 * BLK : len;
        memcpy(ks, ctr, BLK);
        ctr_inc(ctr, inc_bytes);
        memcpy(ks + BLK, ctr, BLK);
        if (n > BLK)
            ctr_inc(ctr, inc_bytes);
        se_aes_encrypt_blocks(ctx, ks, ks, n > BLK ? 2 : 1);
        xor_bytes(out, in, ks, n);
        in += n;
        out += n;
        len -= n;
    }
    se_ct_wipe(ks, sizeof ks);
}

void se_aes_ctr_crypt(const se_aes_ctx *ctx, uint8_t ctr[BLK], const uint8_t *in, size_t len,
                      uint8_t *out)
{
    se_aes_ctr_xor(ctx, ctr, BLK, in, len, out);
}

void se_aes_ofb_crypt(const se_aes_ctx *ctx, uint8_t iv[BLK], const uint8_t *in, size_t len,
                      uint8_t *out)
{
    while (len > 0) {
        size_t n = len >= BLK ? BLK : len;
        se_aes_encrypt_block(ctx, iv, iv);
        xor_bytes(out, in, iv, n);
        in += n;
        out += n;
        len -= n;
    }
}

se_status se_aes_cbc_mac(const se_aes_ctx *ctx, const uint8_t *data, size_t len, uint8_t *tag,
                         size_t tag_len)
{
    uint8_t x[BLK] = {0};

    if (len == 0 || len % BLK != 0 || tag_len < 4 || tag_len > BLK)
        return SE_ERR_BAD_LENGTH;
    for (; len > 0; len -= BLK, data += BLK) {
        xor_bytes(x, x, data, BLK);
        se_aes_encrypt_block(ctx, x, x);
    }
    memcpy(tag, x, tag_len);
    se_ct_wipe(x, sizeof x);
    return SE_OK;
}

se_status se_aead_key_raw(se_aead_key *k, se_aead_mode mode, const uint8_t *key, size_t key_len)
{
    k->slot = 0;
    if (key_len < 16 || key_len > 32 || key_len % 8 != 0) /* 16, 24 or 32 */
        return SE_ERR_BAD_LENGTH;
    k->mode = (uint8_t)mode;
    k->key_len = (uint8_t)key_len;
    memcpy(k->u.raw, key, key_len);
    return SE_OK;
}

void se_aead_key_wipe(se_aead_key *k)
{
    se_ct_wipe(k, sizeof *k);
}

void se_aead_key_raw_wipe(se_aead_key *k)
{
    se_ct_wipe(k, offsetof(se_aead_key, u) + sizeof k->u.raw);
}
