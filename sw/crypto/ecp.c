/* Prime-field elliptic curves: parameters, point validation, constant-time scalar
 * multiplication (Montgomery ladder in Jacobian coordinates), keys and ECDH. */
#include <string.h>

#include "ec_internal.h"
#include "se/ct.h"

/* ---- built-in curves (SEC 2 / FIPS 186-4), big-endian hex ---------------------------------- */
typedef struct {
    const char *name, *alias1, *alias2;
    const char *p, *a, *b, *gx, *gy, *n;
} curve_hex;

static const curve_hex builtin[] = {
    [SE_CURVE_SECP160R1] = {"secp160r1", NULL, NULL, "ffffffffffffffffffffffffffffffff7fffffff",
                            "ffffffffffffffffffffffffffffffff7ffffffc",
                            "1c97befc54bd7a8b65acf89f81d4d4adc565fa45",
                            "4a96b5688ef573284664698968c38bb913cbfc82",
                            "23a628553168947d59dcc912042351377ac5fb32",
                            "0100000000000000000001f4c8f927aed3ca752257"},
    [SE_CURVE_SECP192R1] = {"secp192r1", "P-192", "prime192v1",
                            "fffffffffffffffffffffffffffffffeffffffffffffffff",
                            "fffffffffffffffffffffffffffffffefffffffffffffffc",
                            "64210519e59c80e70fa7e9ab72243049feb8deecc146b9b1",
                            "188da80eb03090f67cbf20eb43a18800f4ff0afd82ff1012",
                            "07192b95ffc8da78631011ed6b24cdd573f977a11e794811",
                            "ffffffffffffffffffffffff99def836146bc9b1b4d22831"},
    [SE_CURVE_SECP224R1] = {"secp224r1", "P-224", NULL,
                            "ffffffffffffffffffffffffffffffff000000000000000000000001",
                            "fffffffffffffffffffffffffffffffefffffffffffffffffffffffe",
                            "b4050a850c04b3abf54132565044b0b7d7bfd8ba270b39432355ffb4",
                            "b70e0cbd6bb4bf7f321390b94a03c1d356c21122343280d6115c1d21",
                            "bd376388b5f723fb4c22dfe6cd4375a05a07476444d5819985007e34",
                            "ffffffffffffffffffffffffffff16a2e0b8f03e13dd29455c5c2a3d"},
    [SE_CURVE_SECP256R1] = {"secp256r1", "P-256", "prime256v1",
                            "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
                            "ffffffff00000001000000000000000000000000fffffffffffffffffffffffc",
                            "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b",
                            "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
                            "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5",
                            "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"},
    [SE_CURVE_SECP256K1] = {"secp256k1", NULL, NULL,
                            "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f",
                            "00", "07",
                            "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",
                            "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8",
                            "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"},
};

static size_t unhex(uint8_t *out, const char *hex)
{
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++) {
        uint8_t v = 0;
        for (size_t k = 0; k < 2; k++) {
            char ch = hex[2 * i + k];
            v = (uint8_t)(v << 4 | (ch <= '9' ? ch - '0' : ch - 'a' + 10));
        }
        out[i] = v;
    }
    return n;
}

se_status se_ec_curve_builtin(se_ec_curve *c, se_curve_id id)
{
    uint8_t p[33], a[33], b[33], gx[33], gy[33], n[33];
    if ((unsigned)id >= sizeof builtin / sizeof builtin[0] || builtin[id].name == NULL)
        return SE_ERR_UNKNOWN_CURVE;
    const curve_hex *h = &builtin[id];
    size_t pl = unhex(p, h->p), al = unhex(a, h->a), bl = unhex(b, h->b);
    size_t xl = unhex(gx, h->gx), yl = unhex(gy, h->gy), nl = unhex(n, h->n);
    se_status st = se_ec_curve_init(c, p, pl, a, al, b, bl, gx, xl, gy, yl, n, nl, 1);
    c->name = h->name;
    return st;
}

se_status se_ec_curve_by_name(se_ec_curve *c, const char *name)
{
    for (unsigned id = 1; id < sizeof builtin / sizeof builtin[0]; id++) {
        const curve_hex *h = &builtin[id];
        if (strcmp(name, h->name) == 0 || (h->alias1 && strcmp(name, h->alias1) == 0) ||
            (h->alias2 && strcmp(name, h->alias2) == 0))
            return se_ec_curve_builtin(c, (se_curve_id)id);
    }
    return SE_ERR_UNKNOWN_CURVE;
}

/* ---- field helpers (Montgomery domain mod p) ---------------------------------------------- */
#define FMUL(c, r, x, y) se_mod_mul(&(c)->p, (r), (x), (y))
#define FADD(c, r, x, y) se_mod_add(&(c)->p, (r), (x), (y))
#define FSUB(c, r, x, y) se_mod_sub(&(c)->p, (r), (x), (y))

/* y^2 == x^3 + ax + b for affine x, y in the Montgomery domain; 1 or 0. */
static uint32_t on_curve(const se_ec_curve *c, const se_bn *x, const se_bn *y)
{
    se_bn l, r;
    FMUL(c, &l, y, y);
    FMUL(c, &r, x, x);
    FADD(c, &r, &r, &c->a);
    FMUL(c, &r, &r, x);
    FADD(c, &r, &r, &c->b);
    return se_bn_eq(&l, &r);
}

se_status se_ec_curve_init(se_ec_curve *c, const uint8_t *p, size_t p_len, const uint8_t *a,
                           size_t a_len, const uint8_t *b, size_t b_len, const uint8_t *gx,
                           size_t gx_len, const uint8_t *gy, size_t gy_len, const uint8_t *n,
                           size_t n_len, uint32_t h)
{
    se_bn a_, b_, x, y, t, u;
    memset(c, 0, sizeof *c);
    c->name = "custom";
    c->h = h;
    if (se_mod_init(&c->p, p, p_len) != SE_OK || se_mod_init(&c->n, n, n_len) != SE_OK)
        return SE_ERR_BAD_PARAMS;
    /* n must be large enough to make the group useful and fit a scalar buffer */
    if (c->n.bits < c->p.bits / 2 || c->n.bytes > SE_EC_MAX_BYTES || h == 0)
        return SE_ERR_BAD_PARAMS;
    if (se_bn_from_bytes(&a_, a, a_len) || se_bn_from_bytes(&b_, b, b_len) ||
        se_bn_from_bytes(&x, gx, gx_len) || se_bn_from_bytes(&y, gy, gy_len))
        return SE_ERR_BAD_PARAMS;
    if (!se_bn_lt(&a_, &c->p.m) || !se_bn_lt(&b_, &c->p.m) || !se_bn_lt(&x, &c->p.m) ||
        !se_bn_lt(&y, &c->p.m))
        return SE_ERR_BAD_PARAMS;
    se_mod_to_mont(&c->p, &c->a, &a_);
    se_mod_to_mont(&c->p, &c->b, &b_);
    se_mod_to_mont(&c->p, &c->gx, &x);
    se_mod_to_mont(&c->p, &c->gy, &y);
    /* non-singular: 4a^3 + 27b^2 != 0 */
    FMUL(c, &t, &c->a, &c->a);
    FMUL(c, &t, &t, &c->a);
    FADD(c, &t, &t, &t);
    FADD(c, &t, &t, &t);
    FMUL(c, &u, &c->b, &c->b);
    se_bn u27 = u;
    for (unsigned i = 0; i < 26; i++)
        FADD(c, &u27, &u27, &u);
    FADD(c, &t, &t, &u27);
    if (se_bn_is_zero(&t) || !on_curve(c, &c->gx, &c->gy))
        return SE_ERR_BAD_PARAMS;
    return SE_OK;
}

/* ---- points ------------------------------------------------------------------------------- */

/* 2P in Jacobian coordinates for any a (dbl-2007-bl shape); O (Z = 0) doubles to O. */
void ec_double(const se_ec_curve *c, ec_point *r, const ec_point *p)
{
    se_bn xx, yy, yyyy, zz, s, m, t;
    FMUL(c, &xx, &p->x, &p->x);
    FMUL(c, &yy, &p->y, &p->y);
    FMUL(c, &yyyy, &yy, &yy);
    FMUL(c, &zz, &p->z, &p->z);
    /* S = 4 X YY */
    FMUL(c, &s, &p->x, &yy);
    FADD(c, &s, &s, &s);
    FADD(c, &s, &s, &s);
    /* M = 3 XX + a ZZ^2 */
    FMUL(c, &t, &zz, &zz);
    FMUL(c, &m, &t, &c->a);
    FADD(c, &m, &m, &xx);
    FADD(c, &m, &m, &xx);
    FADD(c, &m, &m, &xx);
    /* Z3 = 2 Y Z (before Y is overwritten when r == p) */
    FMUL(c, &t, &p->y, &p->z);
    FADD(c, &r->z, &t, &t);
    /* X3 = M^2 - 2S */
    FMUL(c, &t, &m, &m);
    FSUB(c, &t, &t, &s);
    FSUB(c, &r->x, &t, &s);
    /* Y3 = M (S - X3) - 8 YYYY */
    FSUB(c, &t, &s, &r->x);
    FMUL(c, &t, &m, &t);
    FADD(c, &yyyy, &yyyy, &yyyy);
    FADD(c, &yyyy, &yyyy, &yyyy);
    FADD(c, &yyyy, &yyyy, &yyyy);
    FSUB(c, &r->y, &t, &yyyy);
}

/* P + Q for P != Q (add-2007-bl shape). An input at infinity yields the other input and
 * P = -Q yields Z = 0, both without branches. P == Q (not at infinity) gives a wrong result:
 * callers either exclude it (the ladder) or check it (ec_add_any). */
void ec_add(const se_ec_curve *c, ec_point *r, const ec_point *p, const ec_point *q)
{
    se_bn z1z1, z2z2, u1, u2, s1, s2, h, rr, hh, hhh, v, t;
    ec_point out;
    FMUL(c, &z1z1, &p->z, &p->z);
    FMUL(c, &z2z2, &q->z, &q->z);
    FMUL(c, &u1, &p->x, &z2z2);
    FMUL(c, &u2, &q->x, &z1z1);
    FMUL(c, &s1, &p->y, &q->z);
    FMUL(c, &s1, &s1, &z2z2);
    FMUL(c, &s2, &q->y, &p->z);
    FMUL(c, &s2, &s2, &z1z1);
    FSUB(c, &h, &u2, &u1);
    FSUB(c, &rr, &s2, &s1);
    FMUL(c, &hh, &h, &h);
    FMUL(c, &hhh, &h, &hh);
    FMUL(c, &v, &u1, &hh);
    /* X3 = R^2 - HHH - 2V */
    FMUL(c, &t, &rr, &rr);
    FSUB(c, &t, &t, &hhh);
    FSUB(c, &t, &t, &v);
    FSUB(c, &out.x, &t, &v);
    /* Y3 = R (V - X3) - S1 HHH */
    FSUB(c, &t, &v, &out.x);
    FMUL(c, &t, &rr, &t);
    FMUL(c, &s1, &s1, &hhh);
    FSUB(c, &out.y, &t, &s1);
    /* Z3 = Z1 Z2 H */
    FMUL(c, &t, &p->z, &q->z);
    FMUL(c, &out.z, &t, &h);
    uint32_t p_inf = se_bn_is_zero(&p->z), q_inf = se_bn_is_zero(&q->z);
    ec_point_cmov(&out, q, p_inf);
    ec_point_cmov(&out, p, q_inf & (1u ^ p_inf));
    *r = out;
}

void ec_point_cmov(ec_point *r, const ec_point *a, uint32_t bit)
{
    se_bn_cmov(&r->x, &a->x, bit);
    se_bn_cmov(&r->y, &a->y, bit);
    se_bn_cmov(&r->z, &a->z, bit);
}

static void point_cswap(ec_point *a, ec_point *b, uint32_t bit)
{
    se_bn_cswap(&a->x, &b->x, bit);
    se_bn_cswap(&a->y, &b->y, bit);
    se_bn_cswap(&a->z, &b->z, bit);
}

/* kP for k < n and P a point of order n, constant time: the scalar is lengthened to
 * k + n or k + 2n, whichever has exactly bits(n) + 1 bits, so the ladder always starts
 * from (P, 2P) and runs bits(n) steps whatever k is. */
void ec_mul_ct(const se_ec_curve *c, ec_point *r, const se_bn *k, const ec_point *p)
{
    se_bn k1, k2;
    const unsigned L = c->n.bits;
    se_bn_add(&k1, k, &c->n.m);
    se_bn_add(&k2, &k1, &c->n.m);
    se_bn_cmov(&k1, &k2, 1u ^ se_bn_bit(&k1, L));
    ec_point r0 = *p, r1;
    ec_double(c, &r1, p);
    for (unsigned i = L; i-- > 0;) {
        uint32_t bit = se_bn_bit(&k1, i);
        point_cswap(&r0, &r1, bit);
        ec_add(c, &r1, &r0, &r1);
        ec_double(c, &r0, &r0);
        point_cswap(&r0, &r1, bit);
    }
    *r = r0;
    se_ct_wipe(&k1, sizeof k1);
    se_ct_wipe(&k2, sizeof k2);
}

/* Affine (Montgomery domain) from Jacobian; returns 1 if P is at infinity (x = y = 0 then).
 * Z^-1 by Fermat (p prime, public exponent p - 2): constant time in Z. */
uint32_t ec_to_affine(const se_ec_curve *c, se_bn *x, se_bn *y, const ec_point *p)
{
    se_bn e, two, zi, zi2, zi3;
    memset(&two, 0, sizeof two);
    two.v[0] = 2;
    se_bn_sub(&e, &c->p.m, &two);
    se_mod_exp_mont(&c->p, &zi, &p->z, &e);
    FMUL(c, &zi2, &zi, &zi);
    FMUL(c, &zi3, &zi2, &zi);
    FMUL(c, x, &p->x, &zi2);
    FMUL(c, y, &p->y, &zi3);
    return se_bn_is_zero(&p->z);
}

/* Decodes 04 || x || y or x || y into an affine point (Montgomery domain), validated. */
se_status ec_decode_point(const se_ec_curve *c, ec_point *r, const uint8_t *pub, size_t len)
{
    const size_t fb = c->p.bytes;
    se_bn x, y;
    if (len == 2 * fb + 1 && pub[0] == 0x04)
        pub++;
    else if (len != 2 * fb)
        return SE_ERR_INVALID_POINT;
    se_bn_from_bytes(&x, pub, fb);
    se_bn_from_bytes(&y, pub + fb, fb);
    if (!se_bn_lt(&x, &c->p.m) || !se_bn_lt(&y, &c->p.m))
        return SE_ERR_INVALID_POINT;
    se_mod_to_mont(&c->p, &r->x, &x);
    se_mod_to_mont(&c->p, &r->y, &y);
    r->z = c->p.one;
    /* (0, 0) is how some encoders write infinity; it is never on a curve with b != 0,
     * and on b = 0 curves it has order 2, so the on-curve and range checks reject it. */
    if (!on_curve(c, &r->x, &r->y) || (se_bn_is_zero(&x) & se_bn_is_zero(&y)))
        return SE_ERR_INVALID_POINT;
    return SE_OK;
}

void ec_encode_point(const se_ec_curve *c, uint8_t *out, const se_bn *x_m, const se_bn *y_m)
{
    se_bn x, y;
    se_mod_from_mont(&c->p, &x, x_m);
    se_mod_from_mont(&c->p, &y, y_m);
    out[0] = 0x04;
    se_bn_to_bytes(out + 1, c->p.bytes, &x);
    se_bn_to_bytes(out + 1 + c->p.bytes, c->p.bytes, &y);
}

/* A private scalar: order_bytes long, 1 <= d < n. The range check is a masked comparison;
 * only its verdict (public: the key is rejected) steers control flow. */
se_status ec_decode_scalar(const se_ec_curve *c, se_bn *d, const uint8_t *priv, size_t len)
{
    if (len != c->n.bytes || se_bn_from_bytes(d, priv, len) != SE_OK)
        return SE_ERR_INVALID_SCALAR;
    uint32_t bad = se_bn_is_zero(d) | (1u ^ se_bn_lt(d, &c->n.m));
    SE_CT_DECLASSIFY(&bad, sizeof bad);
    return bad ? SE_ERR_INVALID_SCALAR : SE_OK;
}

void ec_generator(const se_ec_curve *c, ec_point *g)
{
    g->x = c->gx;
    g->y = c->gy;
    g->z = c->p.one;
}

se_status se_ec_validate_public(const se_ec_curve *c, const uint8_t *pub, size_t pub_len)
{
    ec_point q;
    return ec_decode_point(c, &q, pub, pub_len);
}

se_status se_ec_mul(const se_ec_curve *c, const uint8_t *k, size_t k_len, const uint8_t *pub,
                    size_t pub_len, uint8_t *out)
{
    ec_point q, r;
    se_bn d, x, y;
    se_status st = ec_decode_point(c, &q, pub, pub_len);
    if (st == SE_OK)
        st = ec_decode_scalar(c, &d, k, k_len);
    if (st != SE_OK)
        return st;
    ec_mul_ct(c, &r, &d, &q);
    uint32_t inf = ec_to_affine(c, &x, &y, &r);
    SE_CT_DECLASSIFY(&inf, sizeof inf);
    if (inf)
        return SE_ERR_INFINITY;
    ec_encode_point(c, out, &x, &y);
    se_ct_wipe(&d, sizeof d);
    return SE_OK;
}

se_status se_ec_public_from_private(const se_ec_curve *c, const uint8_t *priv, size_t priv_len,
                                    uint8_t *pub)
{
    ec_point g, r;
    se_bn d, x, y;
    se_status st = ec_decode_scalar(c, &d, priv, priv_len);
    if (st != SE_OK)
        return st;
    ec_generator(c, &g);
    ec_mul_ct(c, &r, &d, &g);
    ec_to_affine(c, &x, &y, &r); /* d in [1, n-1]: never infinity */
    ec_encode_point(c, pub, &x, &y);
    se_ct_wipe(&d, sizeof d);
    return SE_OK;
}

se_status se_ec_keygen(const se_ec_curve *c, se_hmac_drbg_ctx *rng, uint8_t *priv, uint8_t *pub)
{
    se_bn d;
    /* Rejection sampling: candidates of bits(n) bits until one lies in [1, n-1]. */
    for (unsigned tries = 0; tries < 64; tries++) {
        se_status st = se_hmac_drbg_generate(rng, priv, c->n.bytes, NULL, 0);
        if (st != SE_OK)
            return st;
        if (c->n.bits % 8)
            priv[0] &= (uint8_t)(0xffu >> (8 - c->n.bits % 8));
        if (ec_decode_scalar(c, &d, priv, c->n.bytes) == SE_OK)
            return se_ec_public_from_private(c, priv, c->n.bytes, pub);
    }
    return SE_ERR_BACKEND; /* 64 rejections in a row: the DRBG is broken */
}

se_status se_ecdh(const se_ec_curve *c, const uint8_t *priv, size_t priv_len, const uint8_t *pub,
                  size_t pub_len, uint8_t *shared)
{
    uint8_t point[1 + 2 * SE_BN_MAX_BYTES];
    se_status st = se_ec_mul(c, priv, priv_len, pub, pub_len, point);
    if (st == SE_OK)
        memcpy(shared, point + 1, c->p.bytes);
    se_ct_wipe(point, sizeof point);
    return st;
}
