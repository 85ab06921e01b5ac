/* AES-CCM (SP 800-38C / RFC 3610): CBC-MAC over B0, AAD and payload, CTR encryption. */
#include <string.h>

#include "aes_internal.h"
#include "se/ct.h"

#define BLK SE_AES_BLOCK_BYTES

/* CBC-MAC chaining value and how many bytes of the current block it has absorbed. */
typedef struct {
    uint8_t x[BLK];
    size_t fill;
} mac_state;

static void mac_absorb(const se_aes_ctx *ctx, mac_state *m, const uint8_t *d, size_t n)
{
    while (n--) {
        m->x[m->fill++] ^= *d++;
        if (m->fill == BLK) {
            se_aes_encrypt_block(ctx, m->x, m->x);
            m->fill = 0;
        }
    }
}

static void mac_pad(const se_aes_ctx *ctx, mac_state *m)
{
    if (m->fill != 0) {
        se_aes_encrypt_block(ctx, m->x, m->x);
        m->fill = 0;
    }
}

static void ctr_inc(uint8_t ctr[BLK])
{
    uint32_t carry = 1;

    for (size_t i = BLK; i > 0; i--) {
        carry += ctr[i - 1];
        ctr[i - 1] = (uint8_t)carry;
        carry >>= 8;
    }
}

static se_status check_lengths(size_t nonce_len, size_t len, size_t tag_len)
{
    size_t q = 15 - nonce_len;

    if (nonce_len < 7 || nonce_len > 13 || tag_len < 4 || tag_len > BLK || tag_len % 2 != 0)
        return SE_ERR_BAD_LENGTH;
    /* The payload length must fit in the q-byte field of B0. */
    if (q < 8 && ((uint64_t)len >> (8 * q)) != 0)
        return SE_ERR_BAD_LENGTH;
    return SE_OK;
}

/* Encrypts or decrypts in into out and leaves the full unmasked-then-masked tag in t.
 * Each payload step runs the CBC-MAC block and the next counter block in one
 * two-lane AES call, which is what keeps CCM near the cost of CTR alone. */
static void ccm_core(const se_aes_ctx *ctx, const uint8_t *nonce, size_t nonce_len,
                     const uint8_t *aad, size_t aad_len, const uint8_t *in, size_t len,
                     uint8_t *out, size_t tag_len, int decrypt, uint8_t t[BLK])
{
    size_t q = 15 - nonce_len;
    uint8_t io[2 * BLK], ks[BLK], s0[BLK], pb[BLK], ctr[BLK];
    mac_state m;

    /* B0 in lane A, A0 (the tag's counter block) in lane B. */
    memset(io, 0, sizeof io);
    io[0] = (uint8_t)((aad_len > 0 ? 0x40u : 0u) | (unsigned)(((tag_len - 2) / 2) << 3) |
                      (unsigned)(q - 1));
    memcpy(io + 1, nonce, nonce_len);
    for (size_t i = 0; i < q; i++)
        io[BLK - 1 - i] = (uint8_t)((uint64_t)len >> (8 * i));
    io[BLK] = (uint8_t)(q - 1);
    memcpy(io + BLK + 1, nonce, nonce_len);
    memcpy(ctr, io + BLK, BLK);
    se_aes_encrypt_blocks(ctx, io, io, 2);
    memcpy(m.x, io, BLK);
    memcpy(s0, io + BLK, BLK);
    m.fill = 0;

    if (aad_len > 0) {
        uint8_t hdr[10];
        size_t hl;
        uint64_t a = (uint64_t)aad_len;
        if (a < 0xFF00u) {
            hdr[0] = (uint8_t)(a >> 8);
            hdr[1] = (uint8_t)a;
            hl = 2;
        } else if (a <= 0xFFFFFFFFu) {
            hdr[0] = 0xFF;
            hdr[1] = 0xFE;
            for (unsigned i = 0; i < 4; i++)
                hdr[2 + i] = (uint8_t)(a >> (24 - 8 * i));
            hl = 6;
        } else {
            hdr[0] = 0xFF;
            hdr[1] = 0xFF;
            for (unsigned i = 0; i < 8; i++)
                hdr[2 + i] = (uint8_t)(a >> (56 - 8 * i));
            hl = 10;
        }
        mac_absorb(ctx, &m, hdr, hl);
        mac_absorb(ctx, &m, aad, aad_len);
        mac_pad(ctx, &m);
    }

    if (len > 0) {
        ctr_inc(ctr);
        se_aes_encrypt_block(ctx, ctr, ks);
    }
    while (len > 0) {
        size_t n = len >= BLK ? BLK : len;
        /* The MAC covers the plaintext: the input when encrypting, the output when decrypting. */
        memset(pb, 0, BLK);
        memcpy(pb, in, n);
        for (size_t i = 0; i < n; i++)
            out[i] = (uint8_t)(in[i] ^ ks[i]);
        if (decrypt)
            memcpy(pb, out, n);
        ctr_inc(ctr);
        for (size_t i = 0; i < BLK; i++)
            io[i] = (uint8_t)(m.x[i] ^ pb[i]);
        memcpy(io + BLK, ctr, BLK);
        se_aes_encrypt_blocks(ctx, io, io, 2);
        memcpy(m.x, io, BLK);
        memcpy(ks, io + BLK, BLK);
        in += n;
        out += n;
        len -= n;
    }
    for (size_t i = 0; i < BLK; i++)
        t[i] = (uint8_t)(m.x[i] ^ s0[i]);
    se_ct_wipe(io, sizeof io);
    se_ct_wipe(ks, sizeof ks);
    se_ct_wipe(pb, sizeof pb);
    se_ct_wipe(&m, sizeof m);
}

se_status se_aes_ccm_encrypt(const se_aes_ctx *ctx, const uint8_t *nonce, size_t nonce_len,
                             const uint8_t *aad, size_t aad_len, const uint8_t *pt, size_t len,
                             uint8_t *ct, uint8_t *tag, size_t tag_len)
{
    uint8_t t[BLK];
    se_status st = check_lengths(nonce_len, len, tag_len);

    if (st != SE_OK)
        return st;
    ccm_core(ctx, nonce, nonce_len, aad, aad_len, pt, len, ct, tag_len, 0, t);
    memcpy(tag, t, tag_len);
    se_ct_wipe(t, sizeof t);
    return SE_OK;
}

se_status se_aes_ccm_decrypt(const se_aes_ctx *ctx, const uint8_t *nonce, size_t nonce_len,
                             const uint8_t *aad, size_t aad_len, const uint8_t *ct, size_t len,
                             const uint8_t *tag, size_t tag_len, uint8_t *pt)
{
    uint8_t t[BLK];
    se_status st = check_lengths(nonce_len, len, tag_len);
    int ok;

    if (st != SE_OK)
        return st;
    ccm_core(ctx, nonce, nonce_len, aad, aad_len, ct, len, pt, tag_len, 1, t);
    ok = se_ct_equal(t, tag, tag_len);
    se_ct_wipe(t, sizeof t);
    SE_CT_DECLASSIFY(&ok, sizeof ok); /* the verdict is public: the caller learns it */
    if (!ok) {
        se_ct_wipe(pt, len);
        return SE_ERR_BAD_TAG;
    }
    return SE_OK;
}
