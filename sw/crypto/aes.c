/* AES block cipher (FIPS 197), bitsliced and table-free so it runs in constant time. */
#include <string.h>

#include "se/aes.h"
#include "se/ct.h"

/* State layout: q[j] holds bit j of every state byte. Two blocks travel side by
 * side: block A in bits 0..15, block B in bits 16..31. Within a 16-bit lane the
 * byte in row r, column c sits at bit 4r + c, so ShiftRows rotates nibbles and
 * MixColumns rotates whole nibbles (rows) within a lane. */

static uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Block byte 4c + r (column c, row r) -> bit 4r + c + shift of every plane. */
static void lane_in(uint32_t q[8], const uint8_t *blk, unsigned shift)
{
    for (unsigned c = 0; c < 4; c++) {
        uint32_t w = load_le32(blk + 4 * c);
        for (unsigned j = 0; j < 8; j++) {
            uint32_t t = (w >> j) & 0x01010101u;
            t = (t | (t >> 4)) & 0x00110011u;
            t = (t | (t >> 8)) & 0x00001111u;
            q[j] |= t << (c + shift);
        }
    }
}

static void lane_out(const uint32_t q[8], uint8_t *blk, unsigned shift)
{
    for (unsigned c = 0; c < 4; c++) {
        uint32_t w = 0;
        for (unsigned j = 0; j < 8; j++) {
            uint32_t t = (q[j] >> (c + shift)) & 0x00001111u;
            t = (t | (t << 8)) & 0x00110011u;
            t = (t | (t << 4)) & 0x01010101u;
            w |= t << j;
        }
        store_le32(blk + 4 * c, w);
    }
}

/* GF(2^8) arithmetic on bit-planes, modulo x^8 + x^4 + x^3 + x + 1. */
static void gf_reduce(uint32_t c[15], uint32_t r[8])
{
    for (unsigned k = 14; k >= 8; k--) {
        c[k - 4] ^= c[k];
        c[k - 5] ^= c[k];
        c[k - 7] ^= c[k];
        c[k - 8] ^= c[k];
    }
    memcpy(r, c, 8 * sizeof c[0]);
}

static void gf_mul(uint32_t r[8], const uint32_t a[8], const uint32_t b[8])
{
    uint32_t c[15] = {0};

    for (unsigned i = 0; i < 8; i++)
        for (unsigned j = 0; j < 8; j++)
            c[i + j] ^= a[i] & b[j];
    gf_reduce(c, r);
}

/* r <- r^(2^times). Squaring is linear in GF(2^8): a^2 = sum a_i x^(2i), with
 * x^8 = 0x1b, x^10 = 0x6c, x^12 = 0xab and x^14 = 0x9a folded in. */
static void gf_sqr(uint32_t r[8], unsigned times)
{
    uint32_t t[8];

    while (times--) {
        memcpy(t, r, sizeof t);
        r[0] = t[0] ^ t[4] ^ t[6];
        r[1] = t[4] ^ t[6] ^ t[7];
        r[2] = t[1] ^ t[5];
        r[3] = t[4] ^ t[5] ^ t[6] ^ t[7];
        r[4] = t[2] ^ t[4] ^ t[7];
        r[5] = t[5] ^ t[6];
        r[6] = t[3] ^ t[5];
        r[7] = t[6] ^ t[7];
    }
}

/* q <- q^254 = q^-1 (0 stays 0): x^2, x^3, x^12, x^15, x^240, x^252, x^254. */
static void gf_inv(uint32_t q[8])
{
    uint32_t x2[8], x3[8], x12[8], t[8];

    memcpy(x2, q, sizeof x2);
    gf_sqr(x2, 1);
    gf_mul(x3, x2, q);
    memcpy(x12, x3, sizeof x12);
    gf_sqr(x12, 2);
    gf_mul(t, x12, x3);
    gf_sqr(t, 4);
    gf_mul(q, t, x12);
    memcpy(t, q, sizeof t);
    gf_mul(q, t, x2);
}

static void sub_bytes(uint32_t q[8])
{
    uint32_t b[8];

    gf_inv(q);
    memcpy(b, q, sizeof b);
    for (unsigned i = 0; i < 8; i++)
        q[i] = b[i] ^ b[(i + 4) & 7] ^ b[(i + 5) & 7] ^ b[(i + 6) & 7] ^ b[(i + 7) & 7];
    /* + 0x63 */
    q[0] = ~q[0];
    q[1] = ~q[1];
    q[5] = ~q[5];
    q[6] = ~q[6];
}

static void inv_sub_bytes(uint32_t q[8])
{
    uint32_t s[8];

    memcpy(s, q, sizeof s);
    for (unsigned i = 0; i < 8; i++)
        q[i] = s[(i + 2) & 7] ^ s[(i + 5) & 7] ^ s[(i + 7) & 7];
    /* + 0x05 */
    q[0] = ~q[0];
    q[2] = ~q[2];
    gf_inv(q);
}

/* Row r of each lane (nibble r) rotates left by r columns. */
static void shift_rows(uint32_t q[8])
{
    for (unsigned j = 0; j < 8; j++) {
        uint32_t x = q[j];
        q[j] = (x & 0x000F000Fu) | ((x >> 1) & 0x00700070u) | ((x << 3) & 0x00800080u) |
               ((x >> 2) & 0x03000300u) | ((x << 2) & 0x0C000C00u) | ((x >> 3) & 0x10001000u) |
               ((x << 1) & 0xE000E000u);
    }
}

static void inv_shift_rows(uint32_t q[8])
{
    for (unsigned j = 0; j < 8; j++) {
        uint32_t x = q[j];
        q[j] = (x & 0x000F000Fu) | ((x << 1) & 0x00E000E0u) | ((x >> 3) & 0x00100010u) |
               ((x >> 2) & 0x03000300u) | ((x << 2) & 0x0C000C00u) | ((x >> 1) & 0x70007000u) |
               ((x << 3) & 0x80008000u);
    }
}

/* Row r takes row r+1 (rot1) or r+2 (rot2) of the same column. */
static uint32_t rot1(uint32_t x)
{
    return ((x >> 4) & 0x0FFF0FFFu) | ((x << 12) & 0xF000F000u);
}

static uint32_t rot2(uint32_t x)
{
    return ((x >> 8) & 0x00FF00FFu) | ((x << 8) & 0xFF00FF00u);
}

/* Multiplication by x on bit-planes. */
static void xtime(uint32_t r[8], const uint32_t t[8])
{
    uint32_t hi = t[7];

    r[7] = t[6];
    r[6] = t[5];
    r[5] = t[4];
    r[4] = t[3] ^ hi;
    r[3] = t[2] ^ hi;
    r[2] = t[1];
    r[1] = t[0] ^ hi;
    r[0] = hi;
}

/* out[r] = 2 a[r] + 3 a[r+1] + a[r+2] + a[r+3] = 2 t + a[r+1] + rot2(t), t = a[r] + a[r+1]. */
static void mix_columns(uint32_t q[8])
{
    uint32_t t[8], t2[8];

    for (unsigned j = 0; j < 8; j++)
        t[j] = q[j] ^ rot1(q[j]);
    xtime(t2, t);
    for (unsigned j = 0; j < 8; j++)
        q[j] = t2[j] ^ rot1(q[j]) ^ rot2(t[j]);
}

/* InvMixColumns = MixColumns after a[r] += 4 (a[r] + a[r+2]). */
static void inv_mix_columns(uint32_t q[8])
{
    uint32_t u[8], v[8];

    for (unsigned j = 0; j < 8; j++)
        u[j] = q[j] ^ rot2(q[j]);
    xtime(v, u);
    xtime(u, v);
    for (unsigned j = 0; j < 8; j++)
        q[j] ^= u[j];
    mix_columns(q);
}

static void add_round_key(uint32_t q[8], const uint32_t *rk)
{
    for (unsigned j = 0; j < 8; j++)
        q[j] ^= rk[j];
}

static void encrypt2(const se_aes_ctx *ctx, const uint8_t *a, const uint8_t *b, uint8_t *oa,
                     uint8_t *ob)
{
    uint32_t q[8] = {0};
    const uint32_t *rk = ctx->rk;

    lane_in(q, a, 0);
    lane_in(q, b, 16);
    add_round_key(q, rk);
    for (uint32_t r = 1; r < ctx->nr; r++) {
        sub_bytes(q);
        shift_rows(q);
        mix_columns(q);
        add_round_key(q, rk + 8 * r);
    }
    sub_bytes(q);
    shift_rows(q);
    add_round_key(q, rk + 8 * ctx->nr);
    lane_out(q, oa, 0);
    lane_out(q, ob, 16);
}

static void decrypt2(const se_aes_ctx *ctx, const uint8_t *a, const uint8_t *b, uint8_t *oa,
                     uint8_t *ob)
{
    uint32_t q[8] = {0};
    const uint32_t *rk = ctx->rk;

    lane_in(q, a, 0);
    lane_in(q, b, 16);
    add_round_key(q, rk + 8 * ctx->nr);
    for (uint32_t r = ctx->nr - 1; r > 0; r--) {
        inv_shift_rows(q);
        inv_sub_bytes(q);
        add_round_key(q, rk + 8 * r);
        inv_mix_columns(q);
    }
    inv_shift_rows(q);
    inv_sub_bytes(q);
    add_round_key(q, rk);
    lane_out(q, oa, 0);
    lane_out(q, ob, 16);
}

/* S-box on the four bytes of w[0..3] (key schedule). */
static void sub_word(uint8_t w[4])
{
    uint8_t blk[16] = {0};
    uint32_t q[8] = {0};

    memcpy(blk, w, 4);
    lane_in(q, blk, 0);
    sub_bytes(q);
    lane_out(q, blk, 0);
    memcpy(w, blk, 4);
    se_ct_wipe(blk, sizeof blk);
}

se_status se_aes_init(se_aes_ctx *ctx, const uint8_t *key, size_t key_len)
{
    uint8_t w[(SE_AES_MAX_ROUNDS + 1) * 16];
    uint8_t t[4];
    size_t nk = key_len / 4;
    uint8_t rcon = 1;

    if (key_len != 16 && key_len != 24 && key_len != 32)
        return SE_ERR_BAD_LENGTH;
    ctx->nr = (uint32_t)nk + 6;
    memcpy(w, key, key_len);
    for (size_t i = nk; i < 4 * ((size_t)ctx->nr + 1); i++) {
        memcpy(t, w + 4 * (i - 1), 4);
        if (i % nk == 0) {
            uint8_t t0 = t[0];
            t[0] = t[1];
            t[1] = t[2];
            t[2] = t[3];
            t[3] = t0;
            sub_word(t);
            t[0] ^= rcon;
            rcon = (uint8_t)((rcon << 1) ^ ((rcon >> 7) * 0x1b));
        } else if (nk > 6 && i % nk == 4) {
            sub_word(t);
        }
        for (unsigned k = 0; k < 4; k++)
            w[4 * i + k] = (uint8_t)(w[4 * (i - nk) + k] ^ t[k]);
    }
    /* Round keys are stored as planes, the same key in both lanes. */
    memset(ctx->rk, 0, sizeof ctx->rk);
    for (uint32_t r = 0; r <= ctx->nr; r++) {
        lane_in(ctx->rk + 8 * r, w + 16 * r, 0);
        lane_in(ctx->rk + 8 * r, w + 16 * r, 16);
    }
    se_ct_wipe(w, sizeof w);
    se_ct_wipe(t, sizeof t);
    return SE_OK;
}

void se_aes_wipe(se_aes_ctx *ctx)
{
    se_ct_wipe(ctx, sizeof *ctx);
}

void se_aes_encrypt_block(const se_aes_ctx *ctx, const uint8_t in[SE_AES_BLOCK_BYTES],
                          uint8_t out[SE_AES_BLOCK_BYTES])
{
    uint8_t spare[SE_AES_BLOCK_BYTES];

    encrypt2(ctx, in, in, out, spare);
}

void se_aes_decrypt_block(const se_aes_ctx *ctx, const uint8_t in[SE_AES_BLOCK_BYTES],
                          uint8_t out[SE_AES_BLOCK_BYTES])
{
    uint8_t spare[SE_AES_BLOCK_BYTES];

    decrypt2(ctx, in, in, out, spare);
}

void se_aes_encrypt_blocks(const se_aes_ctx *ctx, const uint8_t *in, uint8_t *out, size_t nblocks)
{
    for (; nblocks >= 2; nblocks -= 2, in += 32, out += 32)
        encrypt2(ctx, in, in + 16, out, out + 16);
    if (nblocks)
        se_aes_encrypt_block(ctx, in, out);
}

void se_aes_decrypt_blocks(const se_aes_ctx *ctx, const uint8_t *in, uint8_t *out, size_t nblocks)
{
    for (; nblocks >= 2; nblocks -= 2, in += 32, out += 32)
        decrypt2(ctx, in, in + 16, out, out + 16);
    if (nblocks)
        se_aes_decrypt_block(ctx, in, out);
}
