/* Prime-field curves: parameter checks, point validation, and the group operations of
 * se_ec_ops — constant-time scalar multiplication by a Montgomery ladder in Jacobian
 * coordinates, and u1*G + u2*Q for verification. */
#include <string.h>

#include "ec_internal.h"
#include "se/ct.h"

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

se_status se_ecp_curve_setup(se_ec_curve *c, const uint8_t *p, size_t p_len, const uint8_t *a,
                           size_t a_len, const uint8_t *b, size_t b_len, const uint8_t *gx,
                           size_t gx_len, const uint8_t *gy, size_t gy_len, const uint8_t *n,
                           size_t n_len, uint32_t h)
{
    se_bn a_, b_, x, y, t, u;
    memset(c, 0, sizeof *c);
    c->ops = &se_ec_prime_ops;
    c->name = "custom";
    c->h = h;
    if (se_mod_init(&c->p, p, p_len) != SE_OK || se_mod_init(&c->n, n, n_len) != SE_OK)
        return SE_ERR_BAD_PARAMS;
    /* n must be large enough to make the group useful and fit a scalar buffer */
    if (c->n.bits < c->p.bits / 2 || c->n.bytes > SE_EC_MAX_BYTES || h == 0)
        return SE_ERR_BAD_PARAMS;
    c->field_bytes = c->p.bytes;
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

/* A caller's curve also proves that n is the order of G: (n - 1) G = -G. (The built-in curves
 * skip this ladder; their parameters are the standards'.) */
se_status se_ec_curve_init(se_ec_curve *c, const uint8_t *p, size_t p_len, const uint8_t *a,
                           size_t a_len, const uint8_t *b, size_t b_len, const uint8_t *gx,
                           size_t gx_len, const uint8_t *gy, size_t gy_len, const uint8_t *n,
                           size_t n_len, uint32_t h)
{
    se_ec_point g, r;
    se_bn nm1, one, x, y, neg_y, zero;
    se_status st = se_ecp_curve_setup(c, p, p_len, a, a_len, b, b_len, gx, gx_len, gy, gy_len, n,
                                   n_len, h);
    if (st != SE_OK)
        return st;
    memset(&one, 0, sizeof one);
    memset(&zero, 0, sizeof zero);
    one.v[0] = 1;
    se_bn_sub(&nm1, &c->n.m, &one);
    se_ec_generator(c, &g);
    se_ec_mul_ct(c, &r, &nm1, &g);
    FSUB(c, &neg_y, &zero, &c->gy);
    if (se_ec_to_affine(c, &x, &y, &r) || !se_bn_eq(&x, &c->gx) || !se_bn_eq(&y, &neg_y))
        return SE_ERR_BAD_PARAMS;
    return SE_OK;
}

/* ---- points ------------------------------------------------------------------------------- */

/* 2P in Jacobian coordinates for any a (dbl-2007-bl shape); O (Z = 0) doubles to O. */
void se_ec_double(const se_ec_curve *c, se_ec_point *r, const se_ec_point *p)
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

/* The four terms of a Jacobian addition: U1 = X1 Z2^2, U2 = X2 Z1^2, S1 = Y1 Z2^3, S2 = Y2 Z1^3.
 * P == Q exactly when U1 == U2 and S1 == S2; P == -Q when only U1 == U2. */
typedef struct {
    se_bn u1, u2, s1, s2;
} add_terms;

static void ec_add_terms(const se_ec_curve *c, add_terms *t, const se_ec_point *p, const se_ec_point *q)
{
    se_bn z1z1, z2z2;
    FMUL(c, &z1z1, &p->z, &p->z);
    FMUL(c, &z2z2, &q->z, &q->z);
    FMUL(c, &t->u1, &p->x, &z2z2);
    FMUL(c, &t->u2, &q->x, &z1z1);
    FMUL(c, &t->s1, &p->y, &q->z);
    FMUL(c, &t->s1, &t->s1, &z2z2);
    FMUL(c, &t->s2, &q->y, &p->z);
    FMUL(c, &t->s2, &t->s2, &z1z1);
}

/* The rest of P + Q (add-2007-bl shape) from the terms; P = -Q yields Z = 0. */
static void ec_add_finish(const se_ec_curve *c, se_ec_point *out, const se_ec_point *p, const se_ec_point *q,
                          add_terms *a)
{
    se_bn h, rr, hh, hhh, v, t;
    FSUB(c, &h, &a->u2, &a->u1);
    FSUB(c, &rr, &a->s2, &a->s1);
    FMUL(c, &hh, &h, &h);
    FMUL(c, &hhh, &h, &hh);
    FMUL(c, &v, &a->u1, &hh);
    /* X3 = R^2 - HHH - 2V */
    FMUL(c, &t, &rr, &rr);
    FSUB(c, &t, &t, &hhh);
    FSUB(c, &t, &t, &v);
    FSUB(c, &out->x, &t, &v);
    /* Y3 = R (V - X3) - S1 HHH */
    FSUB(c, &t, &v, &out->x);
    FMUL(c, &t, &rr, &t);
    FMUL(c, &a->s1, &a->s1, &hhh);
    FSUB(c, &out->y, &t, &a->s1);
    /* Z3 = Z1 Z2 H */
    FMUL(c, &t, &p->z, &q->z);
    FMUL(c, &out->z, &t, &h);
}

/* P + Q for P != Q. An input at infinity yields the other input and P = -Q yields Z = 0,
 * both without branches. P == Q (not at infinity) gives a wrong result: the ladder never
 * meets it (its two points differ by P), and add_public checks for it. */
void se_ec_add(const se_ec_curve *c, se_ec_point *r, const se_ec_point *p, const se_ec_point *q)
{
    add_terms a;
    se_ec_point out;
    ec_add_terms(c, &a, p, q);
    ec_add_finish(c, &out, p, q, &a);
    uint32_t p_inf = se_bn_is_zero(&p->z), q_inf = se_bn_is_zero(&q->z);
    se_ec_point_cmov(&out, q, p_inf);
    se_ec_point_cmov(&out, p, q_inf & (1u ^ p_inf));
    *r = out;
}

void se_ec_point_cmov(se_ec_point *r, const se_ec_point *a, uint32_t bit)
{
    se_bn_cmov(&r->x, &a->x, bit);
    se_bn_cmov(&r->y, &a->y, bit);
    se_bn_cmov(&r->z, &a->z, bit);
}

static void point_cswap(se_ec_point *a, se_ec_point *b, uint32_t bit)
{
    se_bn_cswap(&a->x, &b->x, bit);
    se_bn_cswap(&a->y, &b->y, bit);
    se_bn_cswap(&a->z, &b->z, bit);
}

/* kP for k < n and P a point of order n, constant time: the scalar is lengthened to
 * k + n or k + 2n, whichever has exactly bits(n) + 1 bits, so the ladder always starts
 * from (P, 2P) and runs bits(n) steps whatever k is. */
void se_ec_mul_ct(const se_ec_curve *c, se_ec_point *r, const se_bn *k, const se_ec_point *p)
{
    se_bn k1, k2;
    const unsigned L = c->n.bits;
    se_bn_add(&k1, k, &c->n.m);
    se_bn_add(&k2, &k1, &c->n.m);
    se_bn_cmov(&k1, &k2, 1u ^ se_bn_bit(&k1, L));
    se_ec_point r0 = *p, r1;
    se_ec_double(c, &r1, p);
    for (unsigned i = L; i-- > 0;) {
        uint32_t bit = se_bn_bit(&k1, i);
        point_cswap(&r0, &r1, bit);
        se_ec_add(c, &r1, &r0, &r1);
        se_ec_double(c, &r0, &r0);
        point_cswap(&r0, &r1, bit);
    }
    *r = r0;
    se_ct_wipe(&k1, sizeof k1);
    se_ct_wipe(&k2, sizeof k2);
}

/* Affine (Montgomery domain) from Jacobian; returns 1 if P is at infinity (x = y = 0 then).
 * Z^-1 by Fermat (p prime, public exponent p - 2): constant time in Z. */
uint32_t se_ec_to_affine(const se_ec_curve *c, se_bn *x, se_bn *y, const se_ec_point *p)
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
se_status se_ec_decode_point(const se_ec_curve *c, se_ec_point *r, const uint8_t *pub, size_t len)
{
    const size_t fb = c->p.bytes;
    se_bn x, y;
    if ((pub = se_ec_point_xy(c, pub, len)) == NULL)
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

void se_ec_encode_point(const se_ec_curve *c, uint8_t *out, const se_bn *x_m, const se_bn *y_m)
{
    se_bn x, y;
    se_mod_from_mont(&c->p, &x, x_m);
    se_mod_from_mont(&c->p, &y, y_m);
    out[0] = 0x04;
    se_bn_to_bytes(out + 1, c->p.bytes, &x);
    se_bn_to_bytes(out + 1 + c->p.bytes, c->p.bytes, &y);
}


void se_ec_generator(const se_ec_curve *c, se_ec_point *g)
{
    g->x = c->gx;
    g->y = c->gy;
    g->z = c->p.one;
}

/* ---- the group operations ------------------------------------------------------------------ */

static se_status prime_validate(const se_ec_curve *c, const uint8_t *pub, size_t len)
{
    se_ec_point q;
    return se_ec_decode_point(c, &q, pub, len);
}

static se_status prime_mul(const se_ec_curve *c, const se_bn *k, const uint8_t *pub, size_t len,
                           uint8_t *out)
{
    se_ec_point q, r;
    se_bn x, y;
    if (pub == NULL) {
        se_ec_generator(c, &q);
    } else {
        se_status st = se_ec_decode_point(c, &q, pub, len);
        if (st != SE_OK)
            return st;
    }
    se_ec_mul_ct(c, &r, k, &q);
    uint32_t inf = se_ec_to_affine(c, &x, &y, &r);
    SE_CT_DECLASSIFY(&inf, sizeof inf); /* only the verdict: k * P is infinity or not */
    if (inf)
        return SE_ERR_INFINITY;
    se_ec_encode_point(c, out, &x, &y);
    return SE_OK;
}

/* P + Q for public points: handles infinity, P = Q and P = -Q by branching (no secrets). */
static void add_public(const se_ec_curve *c, se_ec_point *r, const se_ec_point *p, const se_ec_point *q)
{
    add_terms a;
    if (se_bn_is_zero(&p->z)) {
        *r = *q;
        return;
    }
    if (se_bn_is_zero(&q->z)) {
        *r = *p;
        return;
    }
    ec_add_terms(c, &a, p, q);
    if (se_bn_eq(&a.u1, &a.u2)) {
        if (se_bn_eq(&a.s1, &a.s2))
            se_ec_double(c, r, p);
        else
            memset(&r->z, 0, sizeof r->z);
        return;
    }
    se_ec_point out; /* r may alias p or q */
    ec_add_finish(c, &out, p, q, &a);
    *r = out;
}

static se_status prime_mul2_x(const se_ec_curve *c, const se_bn *u1, const se_bn *u2,
                              const uint8_t *pub, size_t len, se_bn *x)
{
    se_ec_point q, g, a, b;
    se_bn y;
    se_status st = se_ec_decode_point(c, &q, pub, len);
    if (st != SE_OK)
        return st;
    se_ec_generator(c, &g);
    se_ec_mul_ct(c, &a, u1, &g);
    se_ec_mul_ct(c, &b, u2, &q);
    add_public(c, &a, &a, &b);
    if (se_ec_to_affine(c, x, &y, &a))
        return SE_ERR_INFINITY;
    se_mod_from_mont(&c->p, x, x);
    return SE_OK;
}

const se_ec_ops se_ec_prime_ops = {
    .validate = prime_validate,
    .mul = prime_mul,
    .mul2_x = prime_mul2_x,
    .sign = se_ec_sign_generic,
    .verify = se_ec_verify_generic,
};
