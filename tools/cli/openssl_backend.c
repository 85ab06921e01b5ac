/* --backend openssl: the crypto API's entry points (se/backend.h) on OpenSSL's libcrypto, for host
 * programs (the collector, the load generator, servers) that want speed, and for the test suites
 * as one more independent implementation to cross-check the library against.
 *
 * Hashing, HMAC, AES in every mode and the AEADs go through EVP. The curves go through libcrypto's
 * EC_GROUP and EC_POINT (k * P with its constant-time ladder or P-256's nistz256 code) and ECDSA's
 * sign and verify through ECDSA_do_sign_ex and ECDSA_do_verify: EVP's signing draws its own nonce,
 * and the crypto API's sign takes the caller's (RFC 6979 or DRBG, se/ec.h), so signatures match
 * the other backends byte for byte. Those two live in the EC_KEY API, deprecated in OpenSSL 3 but
 * still built; hence the API level below.
 *
 * The library still runs above these entry points: encodings, RFC 6979 nonces, HMAC-DRBG, the
 * TLS transcript hash and the PRF (se_sha256_ctx has no engine here: .sha is NULL).
 *
 * What libcrypto lacks answers SE_ERR_NOT_SUPPORTED: curves given by their parameters at run time
 * (the built-in ones map to libcrypto's by name), and the modular arithmetic ops (mod). */
#define OPENSSL_API_COMPAT 0x10101000L

#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/obj_mac.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "se/ct.h"
#include "se/x25519.h"

/* ---- hashing ------------------------------------------------------------------------------- */

static se_status ossl_sha256(const uint8_t *msg, size_t len, uint8_t digest[32])
{
    return EVP_Digest(msg, len, digest, NULL, EVP_sha256(), NULL) == 1 ? SE_OK : SE_ERR_BACKEND;
}

static se_status ossl_hmac(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t len, uint8_t mac[32])
{
    static const uint8_t none;
    /* HMAC() takes a NULL key for "reuse the last one": an empty key must still be a pointer. */
    return HMAC(EVP_sha256(), key_len ? key : &none, (int)key_len, msg, len, mac, NULL) ? SE_OK : SE_ERR_BACKEND;
}

/* ---- AES ------------------------------------------------------------------------------------- */

static const EVP_CIPHER *aes_cipher(se_aes_mode mode, size_t key_len)
{
    static const EVP_CIPHER *(*const table[4][3])(void) = {
        {EVP_aes_128_ecb, EVP_aes_192_ecb, EVP_aes_256_ecb},
        {EVP_aes_128_cbc, EVP_aes_192_cbc, EVP_aes_256_cbc},
        {EVP_aes_128_ctr, EVP_aes_192_ctr, EVP_aes_256_ctr},
        {EVP_aes_128_ofb, EVP_aes_192_ofb, EVP_aes_256_ofb},
    };
    return table[mode][key_len / 8 - 2]();
}

/* One EVP pass with no padding: in (len bytes) to out under cipher, key and iv. */
static se_status evp_pass(const EVP_CIPHER *cipher, int enc, const uint8_t *key, const uint8_t *iv,
                          const uint8_t *in, size_t len, uint8_t *out)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0, m = 0;
    int ok = ctx != NULL && EVP_CipherInit_ex(ctx, cipher, NULL, key, iv, enc) == 1 &&
             EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 && (len == 0 || EVP_CipherUpdate(ctx, out, &n, in, (int)len) == 1) &&
             EVP_CipherFinal_ex(ctx, out + n, &m) == 1 && (size_t)(n + m) == len;
    EVP_CIPHER_CTX_free(ctx);
    return ok ? SE_OK : SE_ERR_BACKEND;
}

static se_status ossl_aes_crypt(se_aes_mode mode, int decrypt, const uint8_t *key, size_t key_len,
                                const uint8_t iv[16], const uint8_t *in, size_t len, uint8_t *out)
{
    if (key_len != 16 && key_len != 24 && key_len != 32)
        return SE_ERR_BAD_LENGTH;
    if ((mode == SE_AES_MODE_ECB || mode == SE_AES_MODE_CBC) && len % 16 != 0)
        return SE_ERR_BAD_LENGTH;
    if (len > INT32_MAX)
        return SE_ERR_BAD_LENGTH;
    return evp_pass(aes_cipher(mode, key_len), !decrypt, key, mode == SE_AES_MODE_ECB ? NULL : iv, in, len, out);
}

/* CBC-MAC: the last block of a CBC encryption under a zero IV, cut to mac_len. */
static se_status ossl_cbc_mac(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len, uint8_t *mac,
                              size_t mac_len)
{
    static const uint8_t zero[16];
    uint8_t block[16], x[16] = {0};
    if (key_len != 16 && key_len != 24 && key_len != 32)
        return SE_ERR_BAD_LENGTH;
    if (len == 0 || len % 16 != 0 || mac_len < 4 || mac_len > 16)
        return SE_ERR_BAD_LENGTH;
    se_status st = SE_OK;
    /* Block by block, chained through x, so no buffer as long as the data is needed. */
    for (size_t i = 0; i < len && st == SE_OK; i += 16) {
        for (unsigned j = 0; j < 16; j++)
            block[j] = x[j] ^ data[i + j];
        st = evp_pass(aes_cipher(SE_AES_MODE_ECB, key_len), 1, key, zero, block, 16, x);
    }
    if (st == SE_OK)
        memcpy(mac, x, mac_len);
    se_ct_wipe(x, sizeof x);
    se_ct_wipe(block, sizeof block);
    return st;
}

/* ---- AEAD: the context holds the raw key (se_aead_key_raw); each message sets EVP up ------------ */

static const EVP_CIPHER *aead_cipher(const se_aead_key *k)
{
    static const EVP_CIPHER *(*const table[2][3])(void) = {
        {EVP_aes_128_gcm, EVP_aes_192_gcm, EVP_aes_256_gcm},
        {EVP_aes_128_ccm, EVP_aes_192_ccm, EVP_aes_256_ccm},
    };
    return table[k->mode == SE_AEAD_CCM][k->key_len / 8 - 2]();
}

/* The same length rules as the library (se/aes.h): GCM any non-empty nonce and a tag of 4..16
 * bytes; CCM a nonce of 7..13 bytes, an even tag of 4..16 and a length that fits 15 - nonce bytes. */
static se_status aead_lengths(const se_aead_key *k, size_t nonce_len, size_t aad_len, size_t len, size_t tag_len)
{
    if (k->mode != SE_AEAD_GCM && k->mode != SE_AEAD_CCM)
        return SE_ERR_BAD_INPUT;
    if (tag_len < 4 || tag_len > 16 || len > INT32_MAX || aad_len > INT32_MAX)
        return SE_ERR_BAD_LENGTH;
    if (k->mode == SE_AEAD_GCM) /* libcrypto takes GCM nonces of at most 128 bytes */
        return nonce_len == 0 ? SE_ERR_BAD_LENGTH : nonce_len > 128 ? SE_ERR_NOT_SUPPORTED : SE_OK;
    size_t q = 15 - nonce_len;
    if (nonce_len < 7 || nonce_len > 13 || tag_len % 2 != 0 || (q < 8 && ((uint64_t)len >> (8 * q)) != 0))
        return SE_ERR_BAD_LENGTH;
    return SE_OK;
}

/* Sets ctx up for one message: cipher, nonce length, (CCM) tag length or expected tag, key and
 * nonce, (CCM) the payload length, then the associated data. */
static int aead_start(EVP_CIPHER_CTX *ctx, const se_aead_key *k, int enc, const uint8_t *nonce, size_t nonce_len,
                      const uint8_t *aad, size_t aad_len, size_t len, const uint8_t *tag, size_t tag_len)
{
    int ccm = k->mode == SE_AEAD_CCM, n;
    if (EVP_CipherInit_ex(ctx, aead_cipher(k), NULL, NULL, NULL, enc) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, (int)nonce_len, NULL) != 1)
        return 0;
    if (ccm && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)tag_len, enc ? NULL : (void *)tag) != 1)
        return 0;
    if (EVP_CipherInit_ex(ctx, NULL, NULL, k->u.raw, nonce, enc) != 1)
        return 0;
    if (ccm && EVP_CipherUpdate(ctx, NULL, &n, NULL, (int)len) != 1)
        return 0;
    return aad_len == 0 || EVP_CipherUpdate(ctx, NULL, &n, aad, (int)aad_len) == 1;
}

static se_status ossl_aead_seal(const se_aead_key *k, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                                size_t aad_len, const uint8_t *pt, size_t len, uint8_t *ct, uint8_t *tag,
                                size_t tag_len)
{
    se_status st = aead_lengths(k, nonce_len, aad_len, len, tag_len);
    if (st != SE_OK)
        return st;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0, m = 0;
    /* libcrypto's CCM takes an update with a NULL input as the end of the message: an empty
     * payload still comes with a pointer. */
    static const uint8_t none[1];
    uint8_t sink[1];
    if (len == 0)
        pt = none, ct = sink;
    /* CCM needs its update call even for an empty payload; GCM takes none. */
    int ok = ctx != NULL && aead_start(ctx, k, 1, nonce, nonce_len, aad, aad_len, len, NULL, tag_len) &&
             ((len == 0 && k->mode == SE_AEAD_GCM) || EVP_CipherUpdate(ctx, ct, &n, pt, (int)len) == 1) &&
             EVP_CipherFinal_ex(ctx, ct + n, &m) == 1 &&
             EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)tag_len, tag) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok ? SE_OK : SE_ERR_BACKEND;
}

/* The plaintext goes to a buffer of its own and reaches pt only when the tag verifies: pt is left
 * untouched by a bad tag, as on every backend. */
static se_status ossl_aead_open(const se_aead_key *k, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                                size_t aad_len, const uint8_t *ct, size_t len, const uint8_t *tag, size_t tag_len,
                                uint8_t *pt)
{
    se_status st = aead_lengths(k, nonce_len, aad_len, len, tag_len);
    if (st != SE_OK)
        return st;
    static const uint8_t none[1];
    if (len == 0) /* as in seal: never a NULL input to CCM's update, which would skip the tag check */
        ct = none;
    uint8_t *tmp = malloc(len + 16);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0, m = 0, verified = 0;
    if (tmp != NULL && ctx != NULL && aead_start(ctx, k, 0, nonce, nonce_len, aad, aad_len, len, tag, tag_len)) {
        if (k->mode == SE_AEAD_CCM) /* CCM checks the tag in its one update call */
            verified = EVP_CipherUpdate(ctx, tmp, &n, ct, (int)len) == 1;
        else
            verified = (len == 0 || EVP_CipherUpdate(ctx, tmp, &n, ct, (int)len) == 1) &&
                       EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)tag_len, (void *)tag) == 1 &&
                       EVP_CipherFinal_ex(ctx, tmp + n, &m) == 1;
        st = verified ? SE_OK : SE_ERR_BAD_TAG;
    } else {
        st = SE_ERR_BACKEND;
    }
    if (st == SE_OK)
        memcpy(pt, tmp, len);
    if (tmp != NULL) {
        se_ct_wipe(tmp, len + 16);
        free(tmp);
    }
    EVP_CIPHER_CTX_free(ctx);
    return st;
}

static se_status ossl_record_seal(const se_aead_key *k, const se_record *r, const uint8_t *pt, size_t len,
                                  uint8_t *rec)
{
    return se_backend_record_seal(&cli_openssl_ops, k, r, pt, len, rec);
}

static se_status ossl_record_open(const se_aead_key *k, const se_record *r, uint8_t *body, size_t n)
{
    return se_backend_record_open(&cli_openssl_ops, k, r, body, n);
}

/* ---- X25519 (RFC 7748) ------------------------------------------------------------------------ */

/* libcrypto refuses an all-zero result (u of small order); the library answers SE_ERR_INFINITY
 * with the zeros in out, and so does this. */
static se_status ossl_x25519(uint8_t out[32], const uint8_t k[32], const uint8_t u[32])
{
    EVP_PKEY *priv = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, k, 32);
    EVP_PKEY *peer = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, u, 32);
    EVP_PKEY_CTX *ctx = priv != NULL ? EVP_PKEY_CTX_new(priv, NULL) : NULL;
    size_t len = 32;
    se_status st = SE_ERR_BACKEND;
    if (ctx != NULL && peer != NULL && EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_derive_set_peer(ctx, peer) == 1)
        st = EVP_PKEY_derive(ctx, out, &len) == 1 && len == 32 ? SE_OK : SE_ERR_INFINITY;
    if (st == SE_ERR_INFINITY)
        memset(out, 0, 32);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(peer);
    EVP_PKEY_free(priv);
    return st;
}

static se_status ossl_mod(se_mod_op op, const uint8_t *m, size_t m_len, const uint8_t *a, const uint8_t *b,
                          uint8_t *r)
{
    (void)op, (void)m, (void)m_len, (void)a, (void)b, (void)r;
    return SE_ERR_NOT_SUPPORTED;
}

/* ---- curves ------------------------------------------------------------------------------------ */

/* The built-in curves by name, each with its libcrypto group made on first use and kept. */
static struct {
    const char *name;
    int nid;
    EC_GROUP *group;
} groups[] = {
    {"secp160r1", NID_secp160r1, NULL},        {"secp192r1", NID_X9_62_prime192v1, NULL},
    {"secp224r1", NID_secp224r1, NULL},        {"secp256r1", NID_X9_62_prime256v1, NULL},
    {"secp256k1", NID_secp256k1, NULL},        {"sect233r1", NID_sect233r1, NULL},
    {"sect233k1", NID_sect233k1, NULL},
};

static const EC_GROUP *group_of(const se_ec_curve *c)
{
    if (c->name == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
        if (strcmp(c->name, groups[i].name) == 0) {
            if (groups[i].group == NULL)
                groups[i].group = EC_GROUP_new_by_curve_name(groups[i].nid);
            return groups[i].group;
        }
    return NULL;
}

/* A scalar below n as a libcrypto number flagged for constant-time use. */
static BIGNUM *scalar(const se_ec_curve *c, const se_bn *k)
{
    uint8_t v[SE_EC_MAX_BYTES];
    se_bn_to_bytes(v, c->n.bytes, k);
    BIGNUM *b = BN_secure_new();
    if (b != NULL && BN_bin2bn(v, (int)c->n.bytes, b) == NULL) {
        BN_clear_free(b);
        b = NULL;
    }
    if (b != NULL)
        BN_set_flags(b, BN_FLG_CONSTTIME);
    se_ct_wipe(v, sizeof v);
    return b;
}

/* Decodes 04 || x || y or x || y into a point of g with the library's checks (se/ec.h): both
 * coordinates inside the field, on the curve (libcrypto's set_affine), and in the subgroup of
 * order n where the cofactor is not 1. SE_ERR_INVALID_POINT otherwise. */
static se_status point_of(const se_ec_curve *c, const EC_GROUP *g, const uint8_t *pub, size_t len, EC_POINT *pt,
                          BN_CTX *bn)
{
    const uint8_t *xy = se_ec_point_xy(c, pub, len);
    if (xy == NULL)
        return SE_ERR_INVALID_POINT;
    unsigned fb = c->field_bytes;
    BN_CTX_start(bn);
    BIGNUM *x = BN_CTX_get(bn), *y = BN_CTX_get(bn), *p = BN_CTX_get(bn);
    se_status st = SE_ERR_BACKEND;
    if (p != NULL && BN_bin2bn(xy, (int)fb, x) != NULL && BN_bin2bn(xy + fb, (int)fb, y) != NULL &&
        EC_GROUP_get_curve(g, p, NULL, NULL, bn) == 1) {
        int binary = EC_GROUP_get_field_type(g) == NID_X9_62_characteristic_two_field;
        /* Prime field: below p. Binary field: p is the reduction polynomial, of degree m. */
        int inside = binary ? BN_num_bits(x) < BN_num_bits(p) && BN_num_bits(y) < BN_num_bits(p)
                            : BN_cmp(x, p) < 0 && BN_cmp(y, p) < 0;
        st = SE_ERR_INVALID_POINT;
        if (inside && EC_POINT_set_affine_coordinates(g, pt, x, y, bn) == 1 && !EC_POINT_is_at_infinity(g, pt)) {
            st = SE_OK;
            if (c->h != 1) {
                EC_POINT *t = EC_POINT_new(g);
                st = t != NULL && EC_POINT_mul(g, t, NULL, pt, EC_GROUP_get0_order(g), bn) == 1
                         ? (EC_POINT_is_at_infinity(g, t) ? SE_OK : SE_ERR_INVALID_POINT)
                         : SE_ERR_BACKEND;
                EC_POINT_free(t);
            }
        }
    }
    BN_CTX_end(bn);
    return st;
}

static se_status ossl_validate(const se_ec_curve *c, const uint8_t *pub, size_t len)
{
    const EC_GROUP *g = group_of(c);
    BN_CTX *bn = BN_CTX_new();
    EC_POINT *pt = g != NULL ? EC_POINT_new(g) : NULL;
    se_status st = g == NULL ? SE_ERR_NOT_SUPPORTED : pt == NULL || bn == NULL ? SE_ERR_BACKEND
                                                                              : point_of(c, g, pub, len, pt, bn);
    EC_POINT_free(pt);
    BN_CTX_free(bn);
    return st;
}

/* out = 04 || x || y of k * P (P NULL: the generator); SE_ERR_INFINITY for the point at infinity. */
static se_status ossl_mul(const se_ec_curve *c, const se_bn *k, const uint8_t *pub, size_t len, uint8_t *out)
{
    const EC_GROUP *g = group_of(c);
    if (g == NULL)
        return SE_ERR_NOT_SUPPORTED;
    BN_CTX *bn = BN_CTX_secure_new();
    EC_POINT *p = EC_POINT_new(g), *r = EC_POINT_new(g);
    BIGNUM *d = scalar(c, k);
    se_status st = bn != NULL && p != NULL && r != NULL && d != NULL ? SE_OK : SE_ERR_BACKEND;
    if (st == SE_OK && pub != NULL)
        st = point_of(c, g, pub, len, p, bn);
    if (st == SE_OK) {
        int ok = pub == NULL ? EC_POINT_mul(g, r, d, NULL, NULL, bn) : EC_POINT_mul(g, r, NULL, p, d, bn);
        if (ok != 1)
            st = SE_ERR_BACKEND;
        else if (EC_POINT_is_at_infinity(g, r))
            st = SE_ERR_INFINITY;
        else if (EC_POINT_point2oct(g, r, POINT_CONVERSION_UNCOMPRESSED, out, 1 + 2 * c->field_bytes, bn) !=
                 1 + 2 * c->field_bytes)
            st = SE_ERR_BACKEND;
    }
    BN_clear_free(d);
    EC_POINT_clear_free(r);
    EC_POINT_free(p);
    BN_CTX_free(bn);
    return st;
}

/* e (below n) as the digest libcrypto's ECDSA turns back into e: it keeps the leftmost bits(n)
 * bits of a digest, so e goes in shifted left by the n.bytes * 8 - bits(n) bits it drops. */
static void digest_of(const se_ec_curve *c, const se_bn *e, uint8_t *dgst)
{
    unsigned len = c->n.bytes, shift = 8 * len - c->n.bits;
    se_bn_to_bytes(dgst, len, e);
    for (unsigned i = 0; i < len && shift != 0; i++)
        dgst[i] = (uint8_t)(dgst[i] << shift | (i + 1 < len ? dgst[i + 1] >> (8 - shift) : 0));
}

static EC_KEY *key_on(const EC_GROUP *g)
{
    EC_KEY *key = EC_KEY_new();
    if (key != NULL && EC_KEY_set_group(key, g) != 1) {
        EC_KEY_free(key);
        key = NULL;
    }
    return key;
}

/* r || s for private d, nonce k and e: r = x(k G) mod n and k^-1 = k^(n-2) mod n by libcrypto's
 * constant-time exponentiation; ECDSA_do_sign_ex makes s from them. */
static se_status ossl_sign(const se_ec_curve *c, const se_bn *d, const se_bn *e, const se_bn *k, uint8_t *sig)
{
    const EC_GROUP *g = group_of(c);
    if (g == NULL)
        return SE_ERR_NOT_SUPPORTED;
    uint8_t dgst[SE_EC_MAX_BYTES];
    BN_CTX *bn = BN_CTX_secure_new();
    EC_KEY *key = key_on(g);
    EC_POINT *kg = EC_POINT_new(g);
    BIGNUM *dd = scalar(c, d), *kk = scalar(c, k), *r = BN_new(), *kinv = BN_secure_new(), *n2 = BN_new();
    ECDSA_SIG *out = NULL;
    se_status st = SE_ERR_BACKEND;
    if (bn != NULL && key != NULL && kg != NULL && dd != NULL && kk != NULL && r != NULL && kinv != NULL &&
        n2 != NULL && EC_KEY_set_private_key(key, dd) == 1 && EC_POINT_mul(g, kg, kk, NULL, NULL, bn) == 1 &&
        EC_POINT_get_affine_coordinates(g, kg, r, NULL, bn) == 1 &&
        BN_nnmod(r, r, EC_GROUP_get0_order(g), bn) == 1 && BN_copy(n2, EC_GROUP_get0_order(g)) != NULL &&
        BN_sub_word(n2, 2) == 1 &&
        BN_mod_exp_mont_consttime(kinv, kk, n2, EC_GROUP_get0_order(g), bn, NULL) == 1) {
        digest_of(c, e, dgst);
        /* With k^-1 and r given, libcrypto fails (rather than retry) when r or s is 0. */
        ERR_clear_error();
        out = BN_is_zero(r) ? NULL : ECDSA_do_sign_ex(dgst, (int)c->n.bytes, kinv, r, key);
        const BIGNUM *sr, *ss;
        /* r = 0, or s = 0 (libcrypto's "need new setup values"): a bad nonce; else a failure. */
        unsigned long err = ERR_peek_last_error();
        st = BN_is_zero(r) || ERR_GET_REASON(err) == EC_R_NEED_NEW_SETUP_VALUES ? SE_ERR_BAD_SIGNATURE
                                                                               : SE_ERR_BACKEND;
        if (out != NULL) {
            ECDSA_SIG_get0(out, &sr, &ss);
            st = BN_bn2binpad(sr, sig, (int)c->n.bytes) == (int)c->n.bytes &&
                         BN_bn2binpad(ss, sig + c->n.bytes, (int)c->n.bytes) == (int)c->n.bytes
                     ? SE_OK
                     : SE_ERR_BACKEND;
        }
    }
    ECDSA_SIG_free(out);
    BN_free(n2);
    BN_clear_free(kinv);
    BN_free(r);
    BN_clear_free(kk);
    BN_clear_free(dd);
    EC_POINT_clear_free(kg);
    EC_KEY_free(key);
    BN_CTX_free(bn);
    se_ct_wipe(dgst, sizeof dgst);
    return st;
}

/* Validates Q (validate's errors), then ECDSA_do_verify: SE_OK or SE_ERR_BAD_SIGNATURE. */
static se_status ossl_verify(const se_ec_curve *c, const uint8_t *pub, size_t len, const se_bn *e, const se_bn *r,
                             const se_bn *s)
{
    const EC_GROUP *g = group_of(c);
    if (g == NULL)
        return SE_ERR_NOT_SUPPORTED;
    uint8_t dgst[SE_EC_MAX_BYTES];
    BN_CTX *bn = BN_CTX_new();
    EC_KEY *key = key_on(g);
    EC_POINT *q = EC_POINT_new(g);
    ECDSA_SIG *sig = ECDSA_SIG_new();
    BIGNUM *br = scalar(c, r), *bs = scalar(c, s);
    se_status st = bn != NULL && key != NULL && q != NULL && sig != NULL && br != NULL && bs != NULL
                       ? point_of(c, g, pub, len, q, bn)
                       : SE_ERR_BACKEND;
    if (st == SE_OK && (EC_KEY_set_public_key(key, q) != 1 || ECDSA_SIG_set0(sig, br, bs) != 1))
        st = SE_ERR_BACKEND;
    else if (st == SE_OK)
        br = bs = NULL; /* the signature owns them now */
    if (st == SE_OK) {
        digest_of(c, e, dgst);
        st = ECDSA_do_verify(dgst, (int)c->n.bytes, sig, key) == 1 ? SE_OK : SE_ERR_BAD_SIGNATURE;
    }
    BN_free(bs);
    BN_free(br);
    ECDSA_SIG_free(sig);
    EC_POINT_free(q);
    EC_KEY_free(key);
    BN_CTX_free(bn);
    return st;
}

static const se_ec_ops ossl_ec_ops = {
    .validate = ossl_validate,
    .mul = ossl_mul,
    .sign = ossl_sign,
    .verify = ossl_verify,
};

/* A built-in curve computes on libcrypto; one given by its parameters is refused. */
static se_status ossl_ec_curve(se_ec_curve *c)
{
    if (group_of(c) == NULL)
        return SE_ERR_NOT_SUPPORTED;
    c->ops = &ossl_ec_ops;
    return SE_OK;
}

const se_backend cli_openssl_ops = {
    .name = "openssl",
    .sha256 = ossl_sha256,
    .hmac_sha256 = ossl_hmac,
    .aes_crypt = ossl_aes_crypt,
    .cbc_mac = ossl_cbc_mac,
    .aead_key = se_aead_key_raw,
    .aead_wipe = se_aead_key_raw_wipe,
    .aead_seal = ossl_aead_seal,
    .aead_open = ossl_aead_open,
    .record_seal = ossl_record_seal,
    .record_open = ossl_record_open,
    .ec_curve = ossl_ec_curve,
    .x25519 = ossl_x25519,
    .mod = ossl_mod,
};
