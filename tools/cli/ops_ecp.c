/* CLI ops for elliptic curves (keys, ECDH, ECDSA) and the modular-arithmetic layer. */
#include <string.h>

#include "cli.h"
#include "se/ec.h"
#include "se/sha256.h"
#include "se/x25519.h"

static uint8_t msg[CLI_MAX_BYTES];

/* "curve": a name, or an object {"p","a","b","gx","gy","n","h"} of hex parameters. */
static se_status get_curve(const json_t *req, se_ec_curve *c)
{
    const json_t *v = json_object_get(req, "curve");
    se_status st;
    if (!json_is_object(v)) {
        const char *name;
        st = cli_str(req, "curve", &name);
        if (st == SE_OK)
            st = cli_fail("curve", se_ec_curve_by_name(c, name));
        return st == SE_OK ? cli_be->ops->ec_curve(c) : st;
    }
    static const char *const names[6] = {"p", "a", "b", "gx", "gy", "n"};
    uint8_t f[6][SE_BN_MAX_BYTES + 1];
    size_t len[6];
    unsigned long h;
    for (unsigned i = 0; i < 6; i++) {
        st = cli_hex(v, names[i], f[i], sizeof f[i], &len[i]);
        if (st != SE_OK)
            return cli_fail("curve", st == SE_ERR_BAD_LENGTH ? SE_ERR_BAD_PARAMS : st);
    }
    st = cli_uint_opt(v, "h", &h, 1);
    if (st == SE_OK)
        st = cli_fail("curve", se_ec_curve_init(c, f[0], len[0], f[1], len[1], f[2], len[2], f[3],
                                                len[3], f[4], len[4], f[5], len[5], (uint32_t)h));
    return st == SE_OK ? cli_be->ops->ec_curve(c) : st;
}

/* The signed value: "hash" as given, or SHA-256 of "msg". Exactly one must be present. */
static se_status get_hash(const json_t *req, uint8_t *hash, size_t cap, size_t *len)
{
    int has_msg = json_object_get(req, "msg") != NULL, has_hash = json_object_get(req, "hash") != NULL;
    if (has_msg == has_hash) /* neither or both */
        return cli_fail("msg", SE_ERR_BAD_INPUT);
    if (has_hash)
        return cli_hex(req, "hash", hash, cap, len);
    size_t mlen;
    se_status st = cli_hex(req, "msg", msg, sizeof msg, &mlen);
    if (st == SE_OK) {
        se_sha256(msg, mlen, hash);
        *len = SE_SHA256_DIGEST_BYTES;
    }
    return st;
}

/* A DRBG seeded from "entropy" if given, else from the OS. */
static se_status get_rng(const json_t *req, se_hmac_drbg_ctx *rng)
{
    uint8_t seed[256];
    size_t len;
    int present;
    se_status st = cli_hex_opt(req, "entropy", seed, sizeof seed, &len, &present);
    if (st != SE_OK)
        return st;
    if (!present) {
        len = 48;
        st = cli_os_random(seed, len);
        if (st != SE_OK)
            return st;
    }
    return cli_fail("entropy", se_hmac_drbg_instantiate(rng, seed, len, NULL, 0,
                                                        (const uint8_t *)"se-cli", 6));
}

static void put_pub(json_t *resp, const se_ec_curve *c, const uint8_t *pub)
{
    size_t fb = SE_EC_FIELD_BYTES(c);
    cli_put_hex(resp, "pub", pub, 1 + 2 * fb);
    cli_put_hex(resp, "x", pub + 1, fb);
    cli_put_hex(resp, "y", pub + 1 + fb, fb);
}

#define PUB_MAX (1 + 2 * SE_BN_MAX_BYTES)

static se_status op_ec_pubkey(const json_t *req, json_t *resp)
{
    se_ec_curve c;
    uint8_t key[SE_EC_MAX_BYTES], pub[PUB_MAX];
    size_t key_len;
    se_status st = get_curve(req, &c);
    if (st == SE_OK)
        st = cli_hex(req, "key", key, sizeof key, &key_len);
    if (st == SE_OK)
        st = se_ec_public_from_private(&c, key, key_len, pub);
    if (st == SE_OK)
        put_pub(resp, &c, pub);
    return st;
}

static se_status op_ec_keygen(const json_t *req, json_t *resp)
{
    se_ec_curve c;
    se_hmac_drbg_ctx rng;
    uint8_t key[SE_EC_MAX_BYTES], pub[PUB_MAX];
    se_status st = get_curve(req, &c);
    if (st == SE_OK)
        st = get_rng(req, &rng);
    if (st == SE_OK)
        st = se_ec_keygen(&c, &rng, key, pub);
    if (st == SE_OK) {
        cli_put_hex(resp, "key", key, SE_EC_ORDER_BYTES(&c));
        put_pub(resp, &c, pub);
    }
    se_hmac_drbg_uninstantiate(&rng);
    return st;
}

static se_status op_ec_validate(const json_t *req, json_t *resp)
{
    se_ec_curve c;
    uint8_t pub[PUB_MAX + 1];
    size_t len;
    se_status st = get_curve(req, &c);
    if (st == SE_OK)
        st = cli_hex(req, "pub", pub, sizeof pub, &len);
    if (st == SE_OK)
        st = se_ec_validate_public(&c, pub, len);
    if (st == SE_OK)
        cli_put_bool(resp, "valid", 1);
    return st;
}

static se_status op_ecdh(const json_t *req, json_t *resp)
{
    se_ec_curve c;
    uint8_t key[SE_EC_MAX_BYTES], pub[PUB_MAX + 1], z[SE_BN_MAX_BYTES];
    size_t key_len, pub_len;
    se_status st = get_curve(req, &c);
    if (st == SE_OK)
        st = cli_hex(req, "key", key, sizeof key, &key_len);
    if (st == SE_OK)
        st = cli_hex(req, "pub", pub, sizeof pub, &pub_len);
    if (st == SE_OK)
        st = se_ecdh(&c, key, key_len, pub, pub_len, z);
    if (st == SE_OK)
        cli_put_hex(resp, "shared", z, SE_EC_FIELD_BYTES(&c));
    return st;
}

static se_status op_ecdsa_sign(const json_t *req, json_t *resp)
{
    se_ec_curve c;
    se_hmac_drbg_ctx rng;
    uint8_t key[SE_EC_MAX_BYTES], hash[CLI_MAX_BYTES > 1024 ? 1024 : CLI_MAX_BYTES];
    uint8_t k[SE_EC_MAX_BYTES], sig[2 * SE_EC_MAX_BYTES], der[2 * SE_EC_MAX_BYTES + 9];
    size_t key_len, hash_len, k_len, der_len;
    const char *nonce;
    se_status st = get_curve(req, &c);
    if (st == SE_OK)
        st = cli_hex(req, "key", key, sizeof key, &key_len);
    if (st == SE_OK)
        st = get_hash(req, hash, sizeof hash, &hash_len);
    if (st == SE_OK)
        st = cli_str_opt(req, "nonce", &nonce, "rfc6979");
    if (st != SE_OK)
        return st;
    if (strcmp(nonce, "rfc6979") == 0) {
        st = se_ecdsa_sign_hash(&c, key, key_len, hash, hash_len, SE_ECDSA_NONCE_RFC6979, NULL, sig);
    } else if (strcmp(nonce, "drbg") == 0) {
        st = get_rng(req, &rng);
        if (st == SE_OK)
            st = se_ecdsa_sign_hash(&c, key, key_len, hash, hash_len, SE_ECDSA_NONCE_DRBG, &rng, sig);
        se_hmac_drbg_uninstantiate(&rng);
    } else if (strcmp(nonce, "k") == 0) {
        st = cli_hex(req, "k", k, sizeof k, &k_len);
        if (st == SE_OK)
            st = se_ecdsa_sign_hash_with_k(&c, key, key_len, hash, hash_len, k, k_len, sig);
    } else {
        st = SE_ERR_BAD_INPUT;
    }
    if (st == SE_OK)
        st = se_ecdsa_sig_to_der(&c, sig, der, &der_len);
    if (st == SE_OK) {
        size_t nb = SE_EC_ORDER_BYTES(&c);
        cli_put_hex(resp, "r", sig, nb);
        cli_put_hex(resp, "s", sig + nb, nb);
        cli_put_hex(resp, "der", der, der_len);
    }
    return st;
}

static se_status op_ecdsa_verify(const json_t *req, json_t *resp)
{
    se_ec_curve c;
    uint8_t pub[PUB_MAX + 1], hash[1024], sig[2 * SE_EC_MAX_BYTES], der[256];
    size_t pub_len, hash_len, r_len, s_len, der_len;
    se_status st = get_curve(req, &c);
    if (st == SE_OK)
        st = cli_hex(req, "pub", pub, sizeof pub, &pub_len);
    if (st == SE_OK)
        st = get_hash(req, hash, sizeof hash, &hash_len);
    if (st != SE_OK)
        return st;
    size_t nb = SE_EC_ORDER_BYTES(&c);
    if (json_object_get(req, "der")) {
        st = cli_hex(req, "der", der, sizeof der, &der_len);
        if (st == SE_OK)
            st = se_ecdsa_sig_from_der(&c, der, der_len, sig);
    } else {
        /* r and s as integers of at most order_bytes (leading zeros may be omitted) */
        uint8_t r[2 * SE_EC_MAX_BYTES], s[2 * SE_EC_MAX_BYTES];
        st = cli_hex(req, "r", r, sizeof r, &r_len);
        if (st == SE_OK)
            st = cli_hex(req, "s", s, sizeof s, &s_len);
        if (st == SE_OK && (r_len > nb || s_len > nb))
            st = SE_ERR_BAD_SIGNATURE;
        if (st == SE_OK) {
            memset(sig, 0, 2 * nb);
            memcpy(sig + nb - r_len, r, r_len);
            memcpy(sig + 2 * nb - s_len, s, s_len);
        }
    }
    if (st == SE_OK) {
        st = se_ecdsa_verify_hash(&c, pub, pub_len, hash, hash_len, sig, 2 * nb);
        /* r or s out of range is found before the key: a bad key still gets its own error */
        se_status kst = st == SE_ERR_BAD_SIGNATURE ? se_ec_validate_public(&c, pub, pub_len) : SE_OK;
        st = kst != SE_OK ? kst : st;
    }
    if (st == SE_OK)
        cli_put_bool(resp, "valid", 1);
    return st;
}

/* ---- modular arithmetic -------------------------------------------------------------------- */
static se_status mod_op(const json_t *req, json_t *resp, se_mod_op kind)
{
    /* one spare byte: a 257-bit modulus is a parameter error, not a length error */
    uint8_t mb[SE_BN_MAX_BYTES + 1], ab[SE_BN_MAX_BYTES], bb[SE_BN_MAX_BYTES], out[SE_BN_MAX_BYTES];
    size_t ml, al, bl = 0;
    se_mod m;
    se_bn a, b;
    se_status st = cli_hex(req, "m", mb, sizeof mb, &ml);
    if (st == SE_OK)
        st = cli_hex(req, "a", ab, sizeof ab, &al);
    if (st == SE_OK && kind != SE_MOD_INV)
        st = cli_hex(req, "b", bb, sizeof bb, &bl);
    if (st == SE_OK)
        st = se_mod_init(&m, mb, ml);
    if (st != SE_OK)
        return st;
    se_bn_from_bytes(&a, ab, al);
    se_bn_from_bytes(&b, bb, bl);
    /* operands of any size up to 256 bits are reduced first, here on the host */
    se_mod_reduce(&m, &a, &a);
    se_mod_reduce(&m, &b, &b);
    se_bn_to_bytes(ab, m.bytes, &a);
    se_bn_to_bytes(bb, m.bytes, &b);
    se_bn_to_bytes(mb, m.bytes, &m.m);
    st = cli_be->ops->mod(kind, mb, m.bytes, ab, bb, out);
    if (st == SE_OK)
        cli_put_hex(resp, "r", out, m.bytes);
    return st;
}

static se_status op_mod_mul(const json_t *req, json_t *resp) { return mod_op(req, resp, SE_MOD_MUL); }
static se_status op_mod_add(const json_t *req, json_t *resp) { return mod_op(req, resp, SE_MOD_ADD); }
static se_status op_mod_sub(const json_t *req, json_t *resp) { return mod_op(req, resp, SE_MOD_SUB); }
static se_status op_mod_inv(const json_t *req, json_t *resp) { return mod_op(req, resp, SE_MOD_INV); }

static se_status op_x25519(const json_t *req, json_t *resp)
{
    uint8_t k[SE_X25519_BYTES], u[SE_X25519_BYTES], out[SE_X25519_BYTES];
    size_t k_len, u_len;
    int has_u;
    se_status st = cli_hex(req, "scalar", k, sizeof k, &k_len);
    if (st == SE_OK)
        st = cli_hex_opt(req, "u", u, sizeof u, &u_len, &has_u);
    if (st == SE_OK && k_len != SE_X25519_BYTES)
        st = cli_fail("scalar", SE_ERR_BAD_LENGTH);
    if (st == SE_OK && has_u && u_len != SE_X25519_BYTES)
        st = cli_fail("u", SE_ERR_BAD_LENGTH);
    if (st == SE_OK && !has_u) { /* the base point u = 9 */
        memset(u, 0, sizeof u);
        u[0] = 9;
    }
    if (st == SE_OK)
        st = cli_be->ops->x25519(out, k, u);
    if (st == SE_OK)
        cli_put_hex(resp, "out", out, sizeof out);
    return st;
}

const cli_op cli_ops_ecp[] = {
    {"x25519", op_x25519, "scalar [u (default: the base point 9)] -> out"},
    {"ec_pubkey", op_ec_pubkey, "curve key -> pub x y"},
    {"ec_keygen", op_ec_keygen, "curve [entropy] -> key pub x y"},
    {"ec_validate", op_ec_validate, "curve pub -> valid | invalid_point"},
    {"ecdh", op_ecdh, "curve key pub -> shared"},
    {"ecdsa_sign", op_ecdsa_sign, "curve key msg|hash [nonce(rfc6979|drbg|k) entropy k] -> r s der"},
    {"ecdsa_verify", op_ecdsa_verify, "curve pub msg|hash r s|der -> valid | bad_signature"},
    {"mod_mul", op_mod_mul, "m a b -> r = a*b mod m"},
    {"mod_add", op_mod_add, "m a b -> r = a+b mod m"},
    {"mod_sub", op_mod_sub, "m a b -> r = a-b mod m"},
    {"mod_inv", op_mod_inv, "m a -> r = a^-1 mod m | not_invertible"},
    {NULL, NULL, NULL},
};
