/* se_ec_ops on the engine (se/ec_hw.h): the library's curve object supplies the parameters, the
 * drivers (se/drv.h) do the work. */
#include <string.h>

#include "se/ct.h"
#include "se/drv.h"
#include "se/ec_hw.h"

#define FB SE_BN_MAX_BYTES

/* A run-time curve's parameters as big-endian strings (a, b, G leave the Montgomery domain). The
 * last conversion is kept, keyed by the curve's own values (a curve object may be reused for
 * another curve at the same address): many operations on one curve convert it once (each
 * conversion is four Montgomery products in software). */
static struct {
    se_bn p, n, a, b, gx, gy;
    uint8_t v[6][FB];
    int valid;
} runtime;

static void convert(se_drv_ec_params *d, const se_ec_curve *c)
{
    const size_t pl = c->field_bytes, nl = c->n.bytes;
    se_bn t;
    if (!runtime.valid || memcmp(&runtime.p, &c->p.m, sizeof t) != 0 || memcmp(&runtime.n, &c->n.m, sizeof t) != 0 ||
        memcmp(&runtime.a, &c->a, sizeof t) != 0 || memcmp(&runtime.b, &c->b, sizeof t) != 0 ||
        memcmp(&runtime.gx, &c->gx, sizeof t) != 0 || memcmp(&runtime.gy, &c->gy, sizeof t) != 0) {
        const se_bn *mont[4] = {&c->a, &c->b, &c->gx, &c->gy};
        se_bn_to_bytes(runtime.v[0], pl, &c->p.m);
        se_bn_to_bytes(runtime.v[5], nl, &c->n.m);
        for (unsigned i = 0; i < 4; i++) {
            se_mod_from_mont(&c->p, &t, mont[i]);
            se_bn_to_bytes(runtime.v[1 + i], pl, &t);
        }
        runtime.p = c->p.m;
        runtime.n = c->n.m;
        runtime.a = c->a;
        runtime.b = c->b;
        runtime.gx = c->gx;
        runtime.gy = c->gy;
        runtime.valid = 1;
    }
    *d = (se_drv_ec_params){runtime.v[0], runtime.v[1], runtime.v[2], runtime.v[3], runtime.v[4], runtime.v[5], pl, nl};
}

/* A prime curve's ops on the engine, and how its parameters reach the driver: a built-in curve's
 * as they are (builtin below), a run-time curve's converted (convert above). Two tables, so
 * firmware that makes its curves with se_ec_curve_engine (built-in parameters) links no
 * conversion: only se_ec_use_engine takes the run-time table. ops comes first: a curve's c->ops
 * points at its table. */
typedef struct {
    se_ec_ops ops;
    void (*params)(se_drv_ec_params *d, const se_ec_curve *c);
} pk_table;

static void builtin(se_drv_ec_params *d, const se_ec_curve *c)
{
    const se_ec_params *q = c->params;
    *d = (se_drv_ec_params){q->p, q->a, q->b, q->gx, q->gy, q->n, q->p_len, q->n_len};
}

/* The driver's view of c, by its table. */
static const se_drv_ec_params *get_params(const se_ec_curve *c, se_drv_ec_params *d)
{
    ((const pk_table *)(const void *)c->ops)->params(d, c);
    return d;
}

static se_status pk_validate(const se_ec_curve *c, const uint8_t *pub, size_t len)
{
    const uint8_t *xy = se_ec_point_xy(c, pub, len);
    if (xy == NULL)
        return SE_ERR_INVALID_POINT;
    se_drv_ec_params dp;
    const se_drv_ec_params *cp = get_params(c, &dp);
    se_status st = se_drv_pk_validate(cp, xy, xy + c->field_bytes);
    if (st == SE_OK && c->h != 1) { /* cofactor: the point must be in the order-n subgroup */
        uint8_t x[FB], y[FB];
        st = se_drv_pk_mul(cp, cp->n, xy, xy + c->field_bytes, x, y);
        st = st == SE_ERR_INFINITY ? SE_OK : st == SE_OK ? SE_ERR_INVALID_POINT : st;
    }
    return st;
}

/* k * P (P = NULL: G) on the engine: the point into out now, or, for out = NULL, left running
 * in the background (pk_mul_start: se_ec_keygen_begin, se_ecdh_begin; the driver keeps one). */
static se_status pk_mul(const se_ec_curve *c, const se_bn *k, const uint8_t *pub, size_t len,
                        uint8_t *out)
{
    uint8_t kb[FB];
    const size_t fb = c->field_bytes;
    const uint8_t *xy = NULL, *y;
    if (pub != NULL && (xy = se_ec_point_xy(c, pub, len)) == NULL)
        return SE_ERR_INVALID_POINT;
    se_drv_ec_params dp;
    const se_drv_ec_params *cp = get_params(c, &dp);
    y = xy ? xy + fb : NULL;
    se_bn_to_bytes(kb, c->n.bytes, k);
    se_status st;
    if (out == NULL) {
        st = se_drv_pk_mul_start(cp, kb, xy, y);
    } else {
        out[0] = 0x04;
        st = se_drv_pk_mul(cp, kb, xy, y, out + 1, out + 1 + fb);
    }
    se_ct_wipe(kb, sizeof kb);
    return st;
}

static se_status pk_mul_start(const se_ec_curve *c, const se_bn *k, const uint8_t *pub, size_t len)
{
    return pk_mul(c, k, pub, len, NULL);
}

static se_status pk_mul_collect(const se_ec_curve *c, uint8_t *out)
{
    if (out == NULL) /* se_ec_cancel: discard (a pending signature too: one slot) */
        return se_drv_pk_collect(NULL, NULL);
    out[0] = 0x04;
    return se_drv_pk_collect(out + 1, out + 1 + c->field_bytes);
}

/* ECDSA on the engine: r || s into sig now, or, for sig = NULL, left running (pk_sign_start). */
static se_status pk_sign(const se_ec_curve *c, const se_bn *d, const se_bn *e, const se_bn *k,
                         uint8_t *sig)
{
    uint8_t db[FB], kb[FB], eb[FB];
    const size_t nl = c->n.bytes;
    se_drv_ec_params dp;
    const se_drv_ec_params *cp = get_params(c, &dp);
    se_bn_to_bytes(db, nl, d);
    se_bn_to_bytes(kb, nl, k);
    se_bn_to_bytes(eb, nl, e);
    se_status st = sig != NULL ? se_drv_pk_ecdsa_sign(cp, db, kb, eb, sig, sig + nl)
                               : se_drv_pk_ecdsa_sign_start(cp, db, kb, eb);
    se_ct_wipe(db, sizeof db);
    se_ct_wipe(kb, sizeof kb);
    return st;
}

static se_status pk_sign_start(const se_ec_curve *c, const se_bn *d, const se_bn *e, const se_bn *k)
{
    return pk_sign(c, d, e, k, NULL);
}

static se_status pk_sign_collect(const se_ec_curve *c, uint8_t *sig)
{
    return se_drv_pk_collect(sig, sig + c->n.bytes);
}

/* ECDSA_VERIFY validates Q itself (on the curve, coordinates below p): the key goes up once. */
static se_status pk_verify(const se_ec_curve *c, const uint8_t *pub, size_t len, const se_bn *e,
                           const se_bn *r, const se_bn *s)
{
    uint8_t eb[FB], rb[FB], sb[FB];
    const size_t nl = c->n.bytes;
    const uint8_t *xy = se_ec_point_xy(c, pub, len);
    if (xy == NULL)
        return SE_ERR_INVALID_POINT;
    se_drv_ec_params dp;
    const se_drv_ec_params *cp = get_params(c, &dp);
    se_bn_to_bytes(eb, nl, e);
    se_bn_to_bytes(rb, nl, r);
    se_bn_to_bytes(sb, nl, s);
    return se_drv_pk_ecdsa_verify(cp, xy, xy + c->field_bytes, eb, rb, sb);
}

/* A run-time curve may have a cofactor: then Q must also be in the order-n subgroup, which
 * validate checks first (the built-in prime curves have none). */
static se_status pk_verify_cofactor(const se_ec_curve *c, const uint8_t *pub, size_t len, const se_bn *e,
                                    const se_bn *r, const se_bn *s)
{
    se_status st = c->h != 1 ? pk_validate(c, pub, len) : SE_OK;
    return st == SE_OK ? pk_verify(c, pub, len, e, r, s) : st;
}

/* The key's comb table into the engine's cache (validated by the caller: se_ecdsa_remember_key). */
static se_status pk_remember(const se_ec_curve *c, const uint8_t *pub, size_t len)
{
    const uint8_t *xy = se_ec_point_xy(c, pub, len);
    if (xy == NULL)
        return SE_ERR_INVALID_POINT;
    se_drv_ec_params dp;
    return se_drv_pk_remember_key(get_params(c, &dp), xy, xy + c->field_bytes);
}

/* mul2_x is not needed: verify runs whole on the engine. RFC 6979's HMACs run on the SHA IP. */
#define PK_OPS(verify_fn)                                                                               \
    {                                                                                                   \
        .validate = pk_validate, .mul = pk_mul, .sign = pk_sign, .verify = verify_fn,                   \
        .mul_start = pk_mul_start, .mul_collect = pk_mul_collect, .sign_start = pk_sign_start,          \
        .sign_collect = pk_sign_collect, .remember = pk_remember, .sha = &se_drv_sha256_engine,         \
    }
static const pk_table pk_builtin = {PK_OPS(pk_verify), builtin};
static const pk_table pk_runtime = {PK_OPS(pk_verify_cofactor), convert};

/* ---- binary curves: sect233r1 / sect233k1 on the gf2m IP ------------------------------------- */
#define BFE 30u /* bytes of a GF(2^233) element */

static int koblitz(const se_ec_curve *c)
{
    return strcmp(c->name, "sect233k1") == 0;
}

/* k * (x, y) (G when xy is NULL), k an se_bn below 2^233 */
static se_status b_mul_xy(const se_ec_curve *c, const se_bn *k, const uint8_t *xy, uint8_t *out)
{
    uint8_t kb[BFE], gx[BFE], gy[BFE];
    se_bn_to_bytes(kb, BFE, k);
    if (xy == NULL) {
        se_bn_to_bytes(gx, BFE, &c->gx);
        se_bn_to_bytes(gy, BFE, &c->gy);
    }
    out[0] = 0x04;
    se_status st = se_drv_gf2m_mul(koblitz(c), kb, xy ? xy : gx, xy ? xy + BFE : gy, out + 1,
                                   out + 1 + BFE);
    se_ct_wipe(kb, sizeof kb);
    return st;
}

/* On the curve (the engine checks) and in the order-n subgroup: n * P = O. */
static se_status b_validate(const se_ec_curve *c, const uint8_t *pub, size_t len)
{
    uint8_t out[1 + 2 * BFE];
    const uint8_t *xy = se_ec_point_xy(c, pub, len);
    if (xy == NULL)
        return SE_ERR_INVALID_POINT;
    se_status st = b_mul_xy(c, &c->n.m, xy, out);
    return st == SE_ERR_INFINITY ? SE_OK : st == SE_OK ? SE_ERR_INVALID_POINT : st;
}

static se_status b_mul(const se_ec_curve *c, const se_bn *k, const uint8_t *pub, size_t len,
                       uint8_t *out)
{
    const uint8_t *xy = NULL;
    if (pub != NULL && (xy = se_ec_point_xy(c, pub, len)) == NULL)
        return SE_ERR_INVALID_POINT;
    return b_mul_xy(c, k, xy, out);
}

/* Verification's u1 G + u2 Q stays in the library, on its binary curves' operations. */
static se_status b_mul2_x(const se_ec_curve *c, const se_bn *u1, const se_bn *u2, const uint8_t *pub,
                          size_t len, se_bn *x)
{
    return se_ec_binary_ops.mul2_x(c, u1, u2, pub, len, x);
}

/* The gf2m IP does scalar multiplication only: ECDSA's arithmetic is the library's, over it. */
static const se_ec_ops b_ops = {
    .validate = b_validate,
    .mul = b_mul,
    .mul2_x = b_mul2_x,
    .sign = se_ec_sign_generic,
    .verify = se_ec_verify_generic,
    .sha = &se_drv_sha256_engine,
};

se_status se_ec_use_engine(se_ec_curve *c)
{
    if (c->name != NULL && strncmp(c->name, "sect233", 7) == 0) {
        c->ops = &b_ops;
        return SE_OK;
    }
    if (c->field_bytes > FB || c->n.bytes > FB) /* wider than the pk IP (an order above 2^256) */
        return SE_ERR_BAD_PARAMS;                /* the curve keeps its software ops */
    const se_ec_ops *software = c->ops;
    se_drv_ec_params dp;
    c->ops = c->params != NULL ? &pk_builtin.ops : &pk_runtime.ops;
    se_status st = se_drv_pk_load_curve_g(get_params(c, &dp)); /* the engine ready: G's table for keys, signatures, verification */
    if (st != SE_OK) /* a curve the engine refuses keeps its software ops */
        c->ops = software;
    return st;
}

se_status se_ec_curve_engine(se_ec_curve *c, const se_ec_params *q)
{
    memset(c, 0, sizeof *c);
    if (q == NULL)
        return SE_ERR_UNKNOWN_CURVE;
    if (se_mod_set(&c->p, q->p, q->p_len) != SE_OK || se_mod_set(&c->n, q->n, q->n_len) != SE_OK ||
        c->p.bytes != q->p_len || c->n.bytes != q->n_len) /* no leading zero bytes */
        return SE_ERR_BAD_PARAMS;
    c->field_bytes = q->p_len;
    c->h = 1;
    c->name = q->name;
    c->params = q;
    c->ops = &pk_builtin.ops;
    se_drv_ec_params dp;
    return se_drv_pk_load_curve_g(get_params(c, &dp));
}
