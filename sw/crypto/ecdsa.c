/* ECDSA (SEC 1 section 4.1) for every curve kind, with RFC 6979 deterministic nonces, and
 * strict DER signatures. */
#include <string.h>

#include "ec_internal.h"
#include "se/ct.h"
#include "se/sha256.h"

/* The leftmost qlen bits of a byte string as an integer (SEC 1 / RFC 6979 bits2int). */
static void bits2int(se_bn *r, const uint8_t *h, size_t len, unsigned qlen)
{
    size_t take = (qlen + 7) / 8;
    if (take > len)
        take = len;
    se_bn_from_bytes(r, h, take);
    unsigned extra = (unsigned)(8 * take) > qlen ? (unsigned)(8 * take) - qlen : 0;
    if (extra == 0) /* public: a function of the lengths */
        return;
    for (unsigned i = 0; i + 1 < SE_BN_LIMBS; i++)
        r->v[i] = (r->v[i] >> extra) | (r->v[i + 1] << (32 - extra));
    r->v[SE_BN_LIMBS - 1] >>= extra;
}

/* x -> x mod n for x < 2n (one masked subtraction). */
static void reduce_once(const se_mod *n, se_bn *x)
{
    se_bn t;
    uint32_t borrow = se_bn_sub(&t, x, &n->m);
    se_bn_cmov(x, &t, 1u ^ borrow);
}

/* RFC 6979 section 3.2 with HMAC-SHA256, plus optional extra input (section 3.6). */
static void rfc6979_nonce(const se_ec_curve *c, const se_bn *d, const se_bn *e, const uint8_t *extra,
                          size_t extra_len, se_bn *k)
{
    const size_t rb = c->n.bytes;
    const se_sha256_engine *eng = c->ops->sha;
    uint8_t key[SE_SHA256_DIGEST_BYTES], v[SE_SHA256_DIGEST_BYTES];
    uint8_t x_oct[SE_EC_MAX_BYTES], h_oct[SE_EC_MAX_BYTES], t[2 * SE_SHA256_DIGEST_BYTES];

    se_bn_to_bytes(x_oct, rb, d);
    se_bn_to_bytes(h_oct, rb, e); /* e is bits2int(hash) mod n: bits2octets */
    memset(key, 0x00, sizeof key);
    memset(v, 0x01, sizeof v);
    for (uint8_t round = 0; round < 2; round++) {
        const uint8_t *part[5] = {v, &round, x_oct, h_oct, extra};
        const size_t len[5] = {sizeof v, 1, rb, rb, extra_len};
        se_hmac_sha256_cat(eng, key, sizeof key, part, len, 5, key);
        se_hmac_sha256_on(eng, key, sizeof key, v, sizeof v, v);
    }
    for (;;) {
        /* qlen <= 257 bits: at most two HMAC outputs make T */
        size_t tlen = 0;
        while (8 * tlen < c->n.bits) {
            se_hmac_sha256_on(eng, key, sizeof key, v, sizeof v, v);
            memcpy(t + tlen, v, sizeof v);
            tlen += sizeof v;
        }
        bits2int(k, t, tlen, c->n.bits);
        uint32_t ok = (1u ^ se_bn_is_zero(k)) & se_bn_lt(k, &c->n.m);
        SE_CT_DECLASSIFY(&ok, sizeof ok); /* only whether a candidate was rejected */
        if (ok)
            break;
        uint8_t zero = 0;
        const uint8_t *part[2] = {v, &zero};
        const size_t len[2] = {sizeof v, 1};
        se_hmac_sha256_cat(eng, key, sizeof key, part, len, 2, key);
        se_hmac_sha256_on(eng, key, sizeof key, v, sizeof v, v);
    }
    se_ct_wipe(key, sizeof key);
    se_ct_wipe(v, sizeof v);
    se_ct_wipe(x_oct, sizeof x_oct);
    se_ct_wipe(t, sizeof t);
}

/* The library's se_ec_ops.sign: r = x(kG) mod n, s = k^-1 (e + r d) mod n, all constant time in
 * k and d. Returns SE_ERR_BAD_SIGNATURE in the (negligible) case r = 0 or s = 0. */
se_status se_ec_sign_generic(const se_ec_curve *c, const se_bn *d, const se_bn *e, const se_bn *k,
                          uint8_t *sig)
{
    const se_mod *n = &c->n;
    uint8_t point[1 + 2 * SE_BN_MAX_BYTES];
    se_bn x, r, s, km, kinv, t, u, exp, two;

    se_status st = c->ops->mul(c, k, NULL, 0, point); /* k in [1, n-1]: never infinity */
    if (st != SE_OK)
        return st;
    se_bn_from_bytes(&x, point + 1, c->field_bytes);
    se_mod_reduce(n, &r, &x);
    /* k^-1 by Fermat: n is prime and n - 2 is public */
    memset(&two, 0, sizeof two);
    two.v[0] = 2;
    se_bn_sub(&exp, &n->m, &two);
    se_mod_to_mont(n, &km, k);
    se_mod_exp_mont(n, &kinv, &km, &exp);
    se_mod_to_mont(n, &t, &r);
    se_mod_to_mont(n, &u, d);
    se_mod_mul(n, &t, &t, &u);  /* r d (Montgomery) */
    se_mod_to_mont(n, &u, e);
    se_mod_add(n, &t, &t, &u);  /* e + r d */
    se_mod_mul(n, &s, &kinv, &t); /* k^-1 (e + r d) R */
    se_mod_from_mont(n, &s, &s);
    se_bn_to_bytes(sig, n->bytes, &r);
    se_bn_to_bytes(sig + n->bytes, n->bytes, &s);
    /* the signature is the output: public from here on */
    SE_CT_DECLASSIFY(sig, 2 * n->bytes);
    SE_CT_DECLASSIFY(&r, sizeof r);
    SE_CT_DECLASSIFY(&s, sizeof s);
    se_ct_wipe(&km, sizeof km);
    se_ct_wipe(&kinv, sizeof kinv);
    se_ct_wipe(&u, sizeof u);
    se_ct_wipe(&t, sizeof t);
    if (se_bn_is_zero(&r) || se_bn_is_zero(&s))
        return SE_ERR_BAD_SIGNATURE;
    return SE_OK;
}

se_status se_ecdsa_sign_values(const se_ec_curve *c, const se_bn *d, const se_bn *e, const se_bn *k,
                               uint8_t *sig)
{
    return c->ops->sign(c, d, e, k, sig);
}

static void hash_to_e(const se_ec_curve *c, se_bn *e, const uint8_t *hash, size_t hash_len)
{
    bits2int(e, hash, hash_len, c->n.bits);
    reduce_once(&c->n, e);
}

/* d, e and the nonce k of a signature over hash. */
static se_status sign_inputs(const se_ec_curve *c, const uint8_t *priv, size_t priv_len,
                             const uint8_t *hash, size_t hash_len, se_ecdsa_nonce nonce,
                             se_hmac_drbg_ctx *rng, se_bn *d, se_bn *e, se_bn *k)
{
    uint8_t extra[SE_SHA256_DIGEST_BYTES];
    size_t extra_len = 0;
    se_status st = se_ec_decode_scalar(c, d, priv, priv_len);

    if (st != SE_OK)
        return st;
    if (nonce == SE_ECDSA_NONCE_DRBG) {
        if (rng == NULL)
            return SE_ERR_BAD_INPUT;
        st = se_hmac_drbg_generate(rng, extra, sizeof extra, NULL, 0);
        if (st != SE_OK)
            return st;
        extra_len = sizeof extra;
    } else if (nonce != SE_ECDSA_NONCE_RFC6979) {
        return SE_ERR_BAD_INPUT;
    }
    hash_to_e(c, e, hash, hash_len);
    rfc6979_nonce(c, d, e, extra, extra_len, k);
    se_ct_wipe(extra, sizeof extra);
    return SE_OK;
}

se_status se_ecdsa_sign_hash(const se_ec_curve *c, const uint8_t *priv, size_t priv_len,
                             const uint8_t *hash, size_t hash_len, se_ecdsa_nonce nonce,
                             se_hmac_drbg_ctx *rng, uint8_t *sig)
{
    se_bn d, e, k;
    se_status st = sign_inputs(c, priv, priv_len, hash, hash_len, nonce, rng, &d, &e, &k);
    if (st == SE_OK)
        st = se_ecdsa_sign_values(c, &d, &e, &k, sig);
    se_ct_wipe(&d, sizeof d);
    se_ct_wipe(&k, sizeof k);
    return st;
}

se_status se_ecdsa_sign_hash_begin(const se_ec_curve *c, const uint8_t *priv, size_t priv_len,
                                   const uint8_t *hash, size_t hash_len, se_ecdsa_nonce nonce,
                                   se_hmac_drbg_ctx *rng)
{
    se_bn d, e, k;
    if (c->ops->sign_start == NULL)
        return SE_OK; /* all of it in end */
    se_status st = sign_inputs(c, priv, priv_len, hash, hash_len, nonce, rng, &d, &e, &k);
    if (st == SE_OK)
        st = c->ops->sign_start(c, &d, &e, &k);
    se_ct_wipe(&d, sizeof d);
    se_ct_wipe(&k, sizeof k);
    return st;
}

se_status se_ecdsa_sign_hash_end(const se_ec_curve *c, const uint8_t *priv, size_t priv_len,
                                 const uint8_t *hash, size_t hash_len, se_ecdsa_nonce nonce,
                                 se_hmac_drbg_ctx *rng, uint8_t *sig)
{
    if (c->ops->sign_collect == NULL)
        return se_ecdsa_sign_hash(c, priv, priv_len, hash, hash_len, nonce, rng, sig);
    return c->ops->sign_collect(c, sig);
}

se_status se_ecdsa_sign_hash_with_k(const se_ec_curve *c, const uint8_t *priv, size_t priv_len,
                                    const uint8_t *hash, size_t hash_len, const uint8_t *k_bytes,
                                    size_t k_len, uint8_t *sig)
{
    se_bn d, e, k;
    se_status st = se_ec_decode_scalar(c, &d, priv, priv_len);
    if (st == SE_OK)
        st = se_ec_decode_scalar(c, &k, k_bytes, k_len);
    if (st != SE_OK)
        return st;
    hash_to_e(c, &e, hash, hash_len);
    return se_ecdsa_sign_values(c, &d, &e, &k, sig);
}

se_status se_ecdsa_verify_hash(const se_ec_curve *c, const uint8_t *pub, size_t pub_len,
                               const uint8_t *hash, size_t hash_len, const uint8_t *sig,
                               size_t sig_len)
{
    const se_mod *n = &c->n;
    se_bn r, s, e;

    /* The signature's form first; then verify, which validates the key. */
    if (sig_len != 2 * n->bytes)
        return SE_ERR_BAD_SIGNATURE;
    se_bn_from_bytes(&r, sig, n->bytes);
    se_bn_from_bytes(&s, sig + n->bytes, n->bytes);
    if (se_bn_is_zero(&r) || se_bn_is_zero(&s) || !se_bn_lt(&r, &n->m) || !se_bn_lt(&s, &n->m))
        return SE_ERR_BAD_SIGNATURE;
    hash_to_e(c, &e, hash, hash_len);
    return se_ecdsa_verify_values(c, pub, pub_len, &e, &r, &s);
}

se_status se_ecdsa_remember_key(const se_ec_curve *c, const uint8_t *pub, size_t pub_len)
{
    se_status st = c->ops->validate(c, pub, pub_len);
    if (st == SE_OK && c->ops->remember != NULL)
        st = c->ops->remember(c, pub, pub_len);
    return st;
}

se_status se_ecdsa_verify_values(const se_ec_curve *c, const uint8_t *pub, size_t pub_len,
                                 const se_bn *e, const se_bn *r, const se_bn *s)
{
    return c->ops->verify(c, pub, pub_len, e, r, s);
}

/* The library's se_ec_ops.verify, over the curve's mul2_x. */
se_status se_ec_verify_generic(const se_ec_curve *c, const uint8_t *pub, size_t pub_len, const se_bn *e,
                            const se_bn *r, const se_bn *s)
{
    const se_mod *n = &c->n;
    se_bn w, u1, u2, x, exp, two;
    se_status st = c->ops->validate(c, pub, pub_len);
    if (st != SE_OK)
        return st;

    /* w = s^-1; u1 = e w; u2 = r w (values public: a simple Fermat inverse) */
    memset(&two, 0, sizeof two);
    two.v[0] = 2;
    se_bn_sub(&exp, &n->m, &two);
    se_mod_to_mont(n, &w, s);
    se_mod_exp_mont(n, &w, &w, &exp);
    se_mod_mul(n, &u1, &w, e);  /* (w R)(e)/R = w e, plain */
    se_mod_mul(n, &u2, &w, r);
    st = c->ops->mul2_x(c, &u1, &u2, pub, pub_len, &x);
    if (st != SE_OK)
        return st == SE_ERR_INFINITY ? SE_ERR_BAD_SIGNATURE : st;
    se_mod_reduce(n, &x, &x);
    return se_bn_eq(&x, r) ? SE_OK : SE_ERR_BAD_SIGNATURE;
}

/* ---- DER ---------------------------------------------------------------------------------- */

/* Appends INTEGER v (len bytes, big-endian unsigned) in minimal form. */
static size_t der_int(uint8_t *out, const uint8_t *v, size_t len)
{
    while (len > 1 && v[0] == 0) {
        v++;
        len--;
    }
    size_t pad = v[0] & 0x80u ? 1 : 0;
    out[0] = 0x02;
    out[1] = (uint8_t)(len + pad);
    out[2] = 0;
    memcpy(out + 2 + pad, v, len);
    return 2 + pad + len;
}

se_status se_ecdsa_sig_to_der(const se_ec_curve *c, const uint8_t *sig, uint8_t *der,
                              size_t *der_len)
{
    size_t nb = c->n.bytes;
    size_t a = der_int(der + 2, sig, nb);
    size_t b = der_int(der + 2 + a, sig + nb, nb);
    der[0] = 0x30;
    der[1] = (uint8_t)(a + b);
    *der_len = 2 + a + b;
    return SE_OK;
}

/* Parses one minimal non-negative INTEGER of at most nb value bytes into out (nb bytes). */
static se_status der_get_int(const uint8_t **p, const uint8_t *end, uint8_t *out, size_t nb)
{
    const uint8_t *q = *p;
    if (end - q < 2 || q[0] != 0x02 || q[1] == 0 || q[1] >= 0x80 || end - q - 2 < q[1])
        return SE_ERR_BAD_ENCODING;
    size_t len = q[1];
    const uint8_t *v = q + 2;
    if (v[0] & 0x80u)
        return SE_ERR_BAD_ENCODING; /* negative */
    if (len > 1 && v[0] == 0 && !(v[1] & 0x80u))
        return SE_ERR_BAD_ENCODING; /* non-minimal */
    if (v[0] == 0 && len > 1) {
        v++;
        len--;
    }
    if (len > nb)
        return SE_ERR_BAD_ENCODING;
    memset(out, 0, nb - len);
    memcpy(out + nb - len, v, len);
    *p = q + 2 + q[1];
    return SE_OK;
}

se_status se_ecdsa_sig_from_der(const se_ec_curve *c, const uint8_t *der, size_t der_len,
                                uint8_t *sig)
{
    size_t nb = c->n.bytes;
    if (der_len < 2 || der[0] != 0x30 || der[1] >= 0x80 || (size_t)der[1] + 2 != der_len)
        return SE_ERR_BAD_ENCODING;
    const uint8_t *p = der + 2, *end = der + der_len;
    se_status st = der_get_int(&p, end, sig, nb);
    if (st == SE_OK)
        st = der_get_int(&p, end, sig + nb, nb);
    if (st == SE_OK && p != end)
        st = SE_ERR_BAD_ENCODING;
    return st;
}
