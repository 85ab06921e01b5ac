/* Binary-field curves sect233r1 (B-233) and sect233k1 (K-233) over GF(2^233) with
 * f(x) = x^233 + x^74 + 1: field arithmetic, the Lopez-Dahab Montgomery ladder (x-only,
 * projective) with y-recovery, and the group operations of se_ec_ops. Everything a secret
 * touches runs a fixed sequence of word operations. */
#include <string.h>

#include "ec_internal.h"
#include "se/ct.h"

#define W 8 /* 32-bit words per element; 233 bits used */
#define FIELD_BYTES 30

typedef struct {
    uint32_t w[W]; /* w[0] holds x^0..x^31 */
} gf;

static void gf_from_bn(gf *r, const se_bn *a)
{
    memcpy(r->w, a->v, sizeof r->w);
}

static void gf_to_bn(se_bn *r, const gf *a)
{
    memset(r, 0, sizeof *r);
    memcpy(r->v, a->w, sizeof a->w);
}

static void gf_add(gf *r, const gf *a, const gf *b)
{
    for (unsigned i = 0; i < W; i++)
        r->w[i] = a->w[i] ^ b->w[i];
}

static uint32_t gf_is_zero(const gf *a)
{
    uint32_t acc = 0;
    for (unsigned i = 0; i < W; i++)
        acc |= a->w[i];
    return 1u & ~se_ct_mask_nz32(acc);
}

static uint32_t gf_eq(const gf *a, const gf *b)
{
    gf t;
    gf_add(&t, a, b);
    return gf_is_zero(&t);
}

static void gf_cmov(gf *r, const gf *a, uint32_t bit)
{
    uint32_t m = (uint32_t)0 - bit;
    for (unsigned i = 0; i < W; i++)
        r->w[i] ^= m & (r->w[i] ^ a->w[i]);
}

static void gf_cswap(gf *a, gf *b, uint32_t bit)
{
    uint32_t m = (uint32_t)0 - bit;
    for (unsigned i = 0; i < W; i++) {
        uint32_t t = m & (a->w[i] ^ b->w[i]);
        a->w[i] ^= t;
        b->w[i] ^= t;
    }
}

/* Reduces a 16-word product modulo x^233 + x^74 + 1: each word above bit 232 folds back as
 * x^k = x^(k-233) + x^(k-159), highest words first so folded bits are folded again. */
static void gf_reduce(gf *r, uint32_t c[2 * W])
{
    for (unsigned i = 2 * W - 1; i >= W; i--) {
        uint32_t t = c[i];
        c[i - 8] ^= t << 23; /* 32i - 233 = 32(i-8) + 23 */
        c[i - 7] ^= t >> 9;
        c[i - 5] ^= t << 1; /* 32i - 159 = 32(i-5) + 1 */
        c[i - 4] ^= t >> 31;
    }
    uint32_t t = c[7] >> 9; /* bits 233..255 */
    c[0] ^= t;
    c[2] ^= t << 10; /* 74 = 64 + 10 */
    c[3] ^= t >> 22;
    c[7] &= 0x1ffu;
    memcpy(r->w, c, sizeof r->w);
}

/* Carry-less 32 x 32 -> 64 product, one masked shift-and-xor per bit of b. */
static uint64_t clmul32(uint32_t a, uint32_t b)
{
    uint64_t r = 0, aa = a;
    for (unsigned i = 0; i < 32; i++)
        r ^= (aa << i) & ((uint64_t)0 - ((b >> i) & 1u));
    return r;
}

static void gf_mul(gf *r, const gf *a, const gf *b)
{
    uint32_t c[2 * W] = {0};
    for (unsigned i = 0; i < W; i++)
        for (unsigned j = 0; j < W; j++) {
            uint64_t p = clmul32(a->w[i], b->w[j]);
            c[i + j] ^= (uint32_t)p;
            c[i + j + 1] ^= (uint32_t)(p >> 32);
        }
    gf_reduce(r, c);
}

/* Squaring is linear in GF(2^m): spread each bit i to bit 2i, then reduce. */
static uint64_t spread32(uint32_t x)
{
    uint64_t v = x;
    v = (v | (v << 16)) & UINT64_C(0x0000ffff0000ffff);
    v = (v | (v << 8)) & UINT64_C(0x00ff00ff00ff00ff);
    v = (v | (v << 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    v = (v | (v << 2)) & UINT64_C(0x3333333333333333);
    v = (v | (v << 1)) & UINT64_C(0x5555555555555555);
    return v;
}

static void gf_sqr(gf *r, const gf *a)
{
    uint32_t c[2 * W];
    for (unsigned i = 0; i < W; i++) {
        uint64_t s = spread32(a->w[i]);
        c[2 * i] = (uint32_t)s;
        c[2 * i + 1] = (uint32_t)(s >> 32);
    }
    gf_reduce(r, c);
}

static void gf_sqr_n(gf *r, const gf *a, unsigned n)
{
    *r = *a;
    for (unsigned i = 0; i < n; i++)
        gf_sqr(r, r);
}

/* a^-1 = a^(2^233 - 2) by Itoh-Tsujii: b_k = a^(2^k - 1), b_(i+j) = b_i^(2^j) * b_j, along the
 * chain 1, 2, 3, 6, 7, 14, 28, 29, 58, 116, 232; then one squaring. 0 maps to 0. */
static void gf_inv(gf *r, const gf *a)
{
    gf b1 = *a, b2, b3, b6, b7, b14, b28, b29, b58, b116, b232, t;
    gf_sqr_n(&t, &b1, 1);
    gf_mul(&b2, &t, &b1);
    gf_sqr_n(&t, &b2, 1);
    gf_mul(&b3, &t, &b1);
    gf_sqr_n(&t, &b3, 3);
    gf_mul(&b6, &t, &b3);
    gf_sqr_n(&t, &b6, 1);
    gf_mul(&b7, &t, &b1);
    gf_sqr_n(&t, &b7, 7);
    gf_mul(&b14, &t, &b7);
    gf_sqr_n(&t, &b14, 14);
    gf_mul(&b28, &t, &b14);
    gf_sqr_n(&t, &b28, 1);
    gf_mul(&b29, &t, &b1);
    gf_sqr_n(&t, &b29, 29);
    gf_mul(&b58, &t, &b29);
    gf_sqr_n(&t, &b58, 58);
    gf_mul(&b116, &t, &b58);
    gf_sqr_n(&t, &b116, 116);
    gf_mul(&b232, &t, &b116);
    gf_sqr(r, &b232);
}

/* 30 big-endian bytes -> element; 0 if a bit at or above x^233 is set. */
static uint32_t gf_from_bytes(gf *r, const uint8_t *in)
{
    se_bn t;
    se_bn_from_bytes(&t, in, FIELD_BYTES);
    gf_from_bn(r, &t);
    return (uint32_t)((r->w[7] >> 9) == 0);
}

static void gf_to_bytes(uint8_t *out, const gf *a)
{
    se_bn t;
    gf_to_bn(&t, a);
    se_bn_to_bytes(out, FIELD_BYTES, &t);
}

/* ---- points ---------------------------------------------------------------------------------- */

typedef struct {
    gf x, y;
} apoint; /* affine */

typedef struct {
    gf a, b;
} curve2m;

static void curve_of(const se_ec_curve *c, curve2m *k)
{
    gf_from_bn(&k->a, &c->a);
    gf_from_bn(&k->b, &c->b);
}

/* y^2 + xy == x^3 + a x^2 + b */
static uint32_t on_curve(const curve2m *k, const apoint *p)
{
    gf l, r, t;
    gf_sqr(&l, &p->y);
    gf_mul(&t, &p->x, &p->y);
    gf_add(&l, &l, &t);
    gf_sqr(&t, &p->x);
    gf_add(&r, &p->x, &k->a);
    gf_mul(&r, &r, &t);
    gf_add(&r, &r, &k->b);
    return gf_eq(&l, &r);
}

/* Lopez-Dahab ladder: returns (X1:Z1) = kP and (X2:Z2) = (k+1)P for k < n. The scalar is
 * lengthened to k + n or k + 2n with exactly bits(n) + 1 bits, so every k takes the same
 * bits(n) steps; the point at infinity (Z = 0) needs no special case in these formulas. */
static void ladder(const se_ec_curve *c, const curve2m *k2, const se_bn *k, const gf *x, gf *x1,
                   gf *z1, gf *x2, gf *z2)
{
    const unsigned L = c->n.bits;
    se_bn k1, kk;
    gf a, b, t;

    se_bn_add(&k1, k, &c->n.m);
    se_bn_add(&kk, &k1, &c->n.m);
    se_bn_cmov(&k1, &kk, 1u ^ se_bn_bit(&k1, L));
    *x1 = *x;
    memset(z1, 0, sizeof *z1);
    z1->w[0] = 1;
    gf_sqr(z2, x);       /* 2P: Z = x^2, X = x^4 + b */
    gf_sqr(x2, z2);
    gf_add(x2, x2, &k2->b);
    for (unsigned i = L; i-- > 0;) {
        uint32_t bit = se_bn_bit(&k1, i);
        gf_cswap(x1, x2, bit);
        gf_cswap(z1, z2, bit);
        /* (X2:Z2) = (X1:Z1) + (X2:Z2): Z = (X1 Z2 + X2 Z1)^2, X = x Z + (X1 Z2)(X2 Z1) */
        gf_mul(&a, x1, z2);
        gf_mul(&b, x2, z1);
        gf_add(&t, &a, &b);
        gf_sqr(z2, &t);
        gf_mul(&t, &a, &b);
        gf_mul(x2, x, z2);
        gf_add(x2, x2, &t);
        /* (X1:Z1) = 2 (X1:Z1): X = X^4 + b Z^4, Z = X^2 Z^2 */
        gf_sqr(&a, x1);
        gf_sqr(&b, z1);
        gf_mul(z1, &a, &b);
        gf_sqr(&a, &a);
        gf_sqr(&b, &b);
        gf_mul(&b, &b, &k2->b);
        gf_add(x1, &a, &b);
        gf_cswap(x1, x2, bit);
        gf_cswap(z1, z2, bit);
    }
    se_ct_wipe(&k1, sizeof k1);
    se_ct_wipe(&kk, sizeof kk);
}

/* kP in affine coordinates from the ladder's output (Lopez-Dahab y-recovery); returns 1 if
 * kP is the point at infinity. One inversion, selects instead of branches. */
static uint32_t mul_affine(const se_ec_curve *c, const curve2m *k2, const se_bn *k,
                           const apoint *p, apoint *r)
{
    gf x1, z1, x2, z2, t1, t2, t3, inv, xr, yr;
    ladder(c, k2, k, &p->x, &x1, &z1, &x2, &z2);
    uint32_t inf = gf_is_zero(&z1);
    uint32_t neg = gf_is_zero(&z2); /* (k+1)P = O: kP = -P */
    /* inv = 1 / (x Z1 Z2) */
    gf_mul(&t1, &z1, &z2);
    gf_mul(&t3, &t1, &p->x);
    gf_inv(&inv, &t3);
    /* x_k = X1 / Z1 = X1 x Z2 inv */
    gf_mul(&t2, &x1, &z2);
    gf_mul(&t2, &t2, &p->x);
    gf_mul(&xr, &t2, &inv);
    /* y_k = (x + x_k) [(X1 + x Z1)(X2 + x Z2) + (x^2 + y) Z1 Z2] inv + y */
    gf_mul(&t2, &p->x, &z1);
    gf_add(&t2, &t2, &x1);
    gf_mul(&t3, &p->x, &z2);
    gf_add(&t3, &t3, &x2);
    gf_mul(&t2, &t2, &t3);
    gf_sqr(&t3, &p->x);
    gf_add(&t3, &t3, &p->y);
    gf_mul(&t3, &t3, &t1);
    gf_add(&t2, &t2, &t3);
    gf_add(&t3, &p->x, &xr);
    gf_mul(&t2, &t2, &t3);
    gf_mul(&t2, &t2, &inv);
    gf_add(&yr, &t2, &p->y);
    /* -P = (x, x + y) */
    gf_add(&t1, &p->x, &p->y);
    gf_cmov(&xr, &p->x, neg);
    gf_cmov(&yr, &t1, neg);
    r->x = xr;
    r->y = yr;
    return inf;
}

static void generator(const se_ec_curve *c, apoint *g)
{
    gf_from_bn(&g->x, &c->gx);
    gf_from_bn(&g->y, &c->gy);
}

/* Decodes 04 || x || y or x || y with coordinates below 2^233 and on the curve. x = 0 is
 * refused too: the only such point, (0, sqrt(b)), has order 2, and the ladder's formulas
 * divide by x. */
static se_status decode(const se_ec_curve *c, const curve2m *k2, apoint *p, const uint8_t *pub,
                        size_t len)
{
    if ((pub = se_ec_point_xy(c, pub, len)) == NULL)
        return SE_ERR_INVALID_POINT;
    if (!gf_from_bytes(&p->x, pub) || !gf_from_bytes(&p->y, pub + FIELD_BYTES) ||
        gf_is_zero(&p->x) || !on_curve(k2, p))
        return SE_ERR_INVALID_POINT;
    return SE_OK;
}

static void encode(uint8_t *out, const apoint *p)
{
    out[0] = 0x04;
    gf_to_bytes(out + 1, &p->x);
    gf_to_bytes(out + 1 + FIELD_BYTES, &p->y);
}

/* A valid public point lies in the subgroup of order n: (n - 1) Q = -Q. (Q = O cannot be
 * encoded; a point of small order such as (0, sqrt(b)) fails here.) */
static se_status binary_validate(const se_ec_curve *c, const uint8_t *pub, size_t len)
{
    curve2m k2;
    apoint q, r;
    se_bn nm1, one;
    curve_of(c, &k2);
    se_status st = decode(c, &k2, &q, pub, len);
    if (st != SE_OK)
        return st;
    memset(&one, 0, sizeof one);
    one.v[0] = 1;
    se_bn_sub(&nm1, &c->n.m, &one);
    gf negy;
    gf_add(&negy, &q.x, &q.y);
    if (mul_affine(c, &k2, &nm1, &q, &r) || !gf_eq(&r.x, &q.x) || !gf_eq(&r.y, &negy))
        return SE_ERR_INVALID_POINT;
    return SE_OK;
}

static se_status binary_mul(const se_ec_curve *c, const se_bn *k, const uint8_t *pub, size_t len,
                            uint8_t *out)
{
    curve2m k2;
    apoint p, r;
    curve_of(c, &k2);
    if (pub == NULL) {
        generator(c, &p);
    } else {
        se_status st = decode(c, &k2, &p, pub, len);
        if (st != SE_OK)
            return st;
    }
    uint32_t inf = mul_affine(c, &k2, k, &p, &r);
    SE_CT_DECLASSIFY(&inf, sizeof inf);
    if (inf)
        return SE_ERR_INFINITY;
    encode(out, &r);
    return SE_OK;
}

/* x of P + Q in affine coordinates, for public points (branches allowed); 1 if infinity. */
static uint32_t add_x_public(const curve2m *k2, const apoint *p, uint32_t p_inf, const apoint *q,
                             uint32_t q_inf, gf *x)
{
    gf lam, t, d;
    if (p_inf || q_inf) {
        *x = p_inf ? q->x : p->x;
        return p_inf & q_inf;
    }
    if (gf_eq(&p->x, &q->x)) {
        gf_add(&t, &p->y, &q->y);
        if (!gf_is_zero(&t)) /* Q = -P (y2 = x + y1), or both of order 2 */
            return 1;
        if (gf_is_zero(&p->x))
            return 1;
        /* doubling: lambda = x + y / x, x3 = lambda^2 + lambda + a */
        gf_inv(&t, &p->x);
        gf_mul(&t, &t, &p->y);
        gf_add(&lam, &t, &p->x);
    } else {
        /* lambda = (y1 + y2) / (x1 + x2), x3 = lambda^2 + lambda + x1 + x2 + a */
        gf_add(&d, &p->x, &q->x);
        gf_inv(&t, &d);
        gf_add(&lam, &p->y, &q->y);
        gf_mul(&lam, &lam, &t);
    }
    gf_sqr(&t, &lam);
    gf_add(&t, &t, &lam);
    gf_add(&t, &t, &k2->a);
    if (!gf_eq(&p->x, &q->x)) {
        gf_add(&t, &t, &p->x);
        gf_add(&t, &t, &q->x);
    }
    *x = t;
    return 0;
}

static se_status binary_mul2_x(const se_ec_curve *c, const se_bn *u1, const se_bn *u2,
                               const uint8_t *pub, size_t len, se_bn *x)
{
    curve2m k2;
    apoint q, g, a, b;
    gf xs;
    curve_of(c, &k2);
    se_status st = decode(c, &k2, &q, pub, len);
    if (st != SE_OK)
        return st;
    generator(c, &g);
    uint32_t a_inf = mul_affine(c, &k2, u1, &g, &a);
    uint32_t b_inf = mul_affine(c, &k2, u2, &q, &b);
    if (add_x_public(&k2, &a, a_inf, &b, b_inf, &xs))
        return SE_ERR_INFINITY;
    gf_to_bn(x, &xs);
    return SE_OK;
}

const se_ec_ops se_ec_binary_ops = {
    .validate = binary_validate,
    .mul = binary_mul,
    .mul2_x = binary_mul2_x,
    .sign = se_ec_sign_generic,
    .verify = se_ec_verify_generic,
};

/* ---- the two curves (SEC 2 / FIPS 186-4), big-endian ------------------------------------------ */

static const uint8_t b233_b[FIELD_BYTES] = {
    0x00, 0x66, 0x64, 0x7e, 0xde, 0x6c, 0x33, 0x2c, 0x7f, 0x8c, 0x09, 0x23, 0xbb, 0x58, 0x21,
    0x3b, 0x33, 0x3b, 0x20, 0xe9, 0xce, 0x42, 0x81, 0xfe, 0x11, 0x5f, 0x7d, 0x8f, 0x90, 0xad};
static const uint8_t b233_gx[FIELD_BYTES] = {
    0x00, 0xfa, 0xc9, 0xdf, 0xcb, 0xac, 0x83, 0x13, 0xbb, 0x21, 0x39, 0xf1, 0xbb, 0x75, 0x5f,
    0xef, 0x65, 0xbc, 0x39, 0x1f, 0x8b, 0x36, 0xf8, 0xf8, 0xeb, 0x73, 0x71, 0xfd, 0x55, 0x8b};
static const uint8_t b233_gy[FIELD_BYTES] = {
    0x01, 0x00, 0x6a, 0x08, 0xa4, 0x19, 0x03, 0x35, 0x06, 0x78, 0xe5, 0x85, 0x28, 0xbe, 0xbf,
    0x8a, 0x0b, 0xef, 0xf8, 0x67, 0xa7, 0xca, 0x36, 0x71, 0x6f, 0x7e, 0x01, 0xf8, 0x10, 0x52};
static const uint8_t b233_n[FIELD_BYTES] = {
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x13, 0xe9, 0x74, 0xe7, 0x2f, 0x8a, 0x69, 0x22, 0x03, 0x1d, 0x26, 0x03, 0xcf, 0xe0, 0xd7};
static const uint8_t k233_gx[FIELD_BYTES] = {
    0x01, 0x72, 0x32, 0xba, 0x85, 0x3a, 0x7e, 0x73, 0x1a, 0xf1, 0x29, 0xf2, 0x2f, 0xf4, 0x14,
    0x95, 0x63, 0xa4, 0x19, 0xc2, 0x6b, 0xf5, 0x0a, 0x4c, 0x9d, 0x6e, 0xef, 0xad, 0x61, 0x26};
static const uint8_t k233_gy[FIELD_BYTES] = {
    0x01, 0xdb, 0x53, 0x7d, 0xec, 0xe8, 0x19, 0xb7, 0xf7, 0x0f, 0x55, 0x5a, 0x67, 0xc4, 0x27,
    0xa8, 0xcd, 0x9b, 0xf1, 0x8a, 0xeb, 0x9b, 0x56, 0xe0, 0xc1, 0x10, 0x56, 0xfa, 0xe6, 0xa3};
static const uint8_t k233_n[29] = {
    0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06,
    0x9d, 0x5b, 0xb9, 0x15, 0xbc, 0xd4, 0x6e, 0xfb, 0x1a, 0xd5, 0xf1, 0x73, 0xab, 0xdf};

se_status se_ec2m_curve_init(se_ec_curve *c, int koblitz)
{
    static const uint8_t one[1] = {1};
    memset(c, 0, sizeof *c);
    c->ops = &se_ec_binary_ops;
    c->field_bytes = FIELD_BYTES;
    c->h = koblitz ? 4 : 2;
    se_bn_from_bytes(&c->a, one, koblitz ? 0 : 1); /* a = 0 (K-233) or 1 (B-233) */
    se_bn_from_bytes(&c->b, koblitz ? one : b233_b, koblitz ? 1 : FIELD_BYTES);
    se_bn_from_bytes(&c->gx, koblitz ? k233_gx : b233_gx, FIELD_BYTES);
    se_bn_from_bytes(&c->gy, koblitz ? k233_gy : b233_gy, FIELD_BYTES);
    return koblitz ? se_mod_init(&c->n, k233_n, sizeof k233_n)
                   : se_mod_init(&c->n, b233_n, sizeof b233_n);
}
