/* The curve-independent half of the EC API: the built-in curves, private scalars, keys and
 * ECDH, all over the group operations of the curve's kind (se_ec_ops). */
#include <string.h>

#include "ec_internal.h"
#include "se/ct.h"

/* ---- built-in prime curves (SEC 2 / FIPS 186-4), big-endian hex ---------------------------- */
typedef struct {
    const char *name, *alias1, *alias2;
    const char *p, *a, *b, *gx, *gy, *n; /* NULL p: a binary curve, built by ec2m.c */
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
    [SE_CURVE_SECT233R1] = {"sect233r1", "B-233", NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    [SE_CURVE_SECT233K1] = {"sect233k1", "K-233", NULL, NULL, NULL, NULL, NULL, NULL, NULL},
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
    if (h->p == NULL) {
        se_status st = ec2m_curve_init(c, id == SE_CURVE_SECT233K1);
        c->name = h->name;
        return st;
    }
    size_t pl = unhex(p, h->p), al = unhex(a, h->a), bl = unhex(b, h->b);
    size_t xl = unhex(gx, h->gx), yl = unhex(gy, h->gy), nl = unhex(n, h->n);
    se_status st = ecp_curve_setup(c, p, pl, a, al, b, bl, gx, xl, gy, yl, n, nl, 1);
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

const uint8_t *se_ec_point_xy(const se_ec_curve *c, const uint8_t *pub, size_t pub_len)
{
    const size_t fb = c->field_bytes;
    if (pub_len == 2 * fb + 1 && pub[0] == 0x04)
        return pub + 1;
    return pub_len == 2 * fb ? pub : NULL;
}

se_status se_ec_validate_public(const se_ec_curve *c, const uint8_t *pub, size_t pub_len)
{
    return c->ops->validate(c, pub, pub_len);
}

se_status se_ec_mul(const se_ec_curve *c, const uint8_t *k, size_t k_len, const uint8_t *pub,
                    size_t pub_len, uint8_t *out)
{
    se_bn d;
    se_status st = c->ops->validate(c, pub, pub_len);
    if (st == SE_OK)
        st = ec_decode_scalar(c, &d, k, k_len);
    if (st == SE_OK)
        st = c->ops->mul(c, &d, pub, pub_len, out);
    se_ct_wipe(&d, sizeof d);
    return st;
}

se_status se_ec_public_from_private(const se_ec_curve *c, const uint8_t *priv, size_t priv_len,
                                    uint8_t *pub)
{
    se_bn d;
    se_status st = ec_decode_scalar(c, &d, priv, priv_len);
    if (st == SE_OK)
        st = c->ops->mul(c, &d, NULL, 0, pub); /* d in [1, n-1]: never infinity */
    se_ct_wipe(&d, sizeof d);
    return st;
}

/* A private key by rejection sampling: candidates of bits(n) bits until one lies in [1, n-1]. */
static se_status draw_private(const se_ec_curve *c, se_hmac_drbg_ctx *rng, uint8_t *priv, se_bn *d)
{
    for (unsigned tries = 0; tries < 64; tries++) {
        se_status st = se_hmac_drbg_generate(rng, priv, c->n.bytes, NULL, 0);
        if (st != SE_OK)
            return st;
        if (c->n.bits % 8)
            priv[0] &= (uint8_t)(0xffu >> (8 - c->n.bits % 8));
        if (ec_decode_scalar(c, d, priv, c->n.bytes) == SE_OK)
            return SE_OK;
    }
    return SE_ERR_BACKEND; /* 64 rejections in a row: the DRBG is broken */
}

se_status se_ec_keygen(const se_ec_curve *c, se_hmac_drbg_ctx *rng, uint8_t *priv, uint8_t *pub)
{
    se_bn d;
    se_status st = draw_private(c, rng, priv, &d);
    if (st == SE_OK)
        st = c->ops->mul(c, &d, NULL, 0, pub); /* d in [1, n-1]: never infinity */
    se_ct_wipe(&d, sizeof d);
    return st;
}

se_status se_ec_keygen_begin(const se_ec_curve *c, se_hmac_drbg_ctx *rng, uint8_t *priv)
{
    se_bn d;
    se_status st = draw_private(c, rng, priv, &d);
    if (st == SE_OK && c->ops->mul_start != NULL)
        st = c->ops->mul_start(c, &d, NULL, 0);
    se_ct_wipe(&d, sizeof d);
    return st;
}

se_status se_ec_keygen_end(const se_ec_curve *c, const uint8_t *priv, uint8_t *pub)
{
    if (c->ops->mul_collect != NULL)
        return c->ops->mul_collect(c, pub);
    return se_ec_public_from_private(c, priv, c->n.bytes, pub);
}

void se_ec_cancel(const se_ec_curve *c)
{
    if (c->ops->mul_collect != NULL)
        (void)c->ops->mul_collect(c, NULL);
}

se_status se_ecdh(const se_ec_curve *c, const uint8_t *priv, size_t priv_len, const uint8_t *pub,
                  size_t pub_len, uint8_t *shared)
{
    uint8_t point[1 + 2 * SE_BN_MAX_BYTES];
    se_status st = se_ec_mul(c, priv, priv_len, pub, pub_len, point);
    if (st == SE_OK)
        memcpy(shared, point + 1, c->field_bytes);
    se_ct_wipe(point, sizeof point);
    return st;
}

se_status se_ecdh_begin(const se_ec_curve *c, const uint8_t *priv, size_t priv_len, const uint8_t *pub,
                        size_t pub_len)
{
    se_bn d;
    se_status st = c->ops->validate(c, pub, pub_len);
    if (st == SE_OK)
        st = ec_decode_scalar(c, &d, priv, priv_len);
    if (st == SE_OK && c->ops->mul_start != NULL)
        st = c->ops->mul_start(c, &d, pub, pub_len);
    se_ct_wipe(&d, sizeof d);
    return st;
}

se_status se_ecdh_end(const se_ec_curve *c, const uint8_t *priv, size_t priv_len, const uint8_t *pub,
                      size_t pub_len, uint8_t *shared)
{
    uint8_t point[1 + 2 * SE_BN_MAX_BYTES];
    se_status st;
    if (c->ops->mul_collect == NULL)
        return se_ecdh(c, priv, priv_len, pub, pub_len, shared);
    if ((st = c->ops->mul_collect(c, point)) == SE_OK)
        memcpy(shared, point + 1, c->field_bytes);
    se_ct_wipe(point, sizeof point);
    return st;
}
