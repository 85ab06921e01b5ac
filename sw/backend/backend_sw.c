/* se_backend_sw: the crypto library (sw/crypto) behind the driver-shaped entry points of
 * se/backend.h. Touches no hardware. */
#include <string.h>

#include "se/aes.h"
#include "se/backend.h"
#include "se/ct.h"
#include "se/sha256.h"
#include "se/x25519.h"

static se_status sw_sha256(const uint8_t *msg, size_t len, uint8_t digest[32])
{
    se_sha256(msg, len, digest);
    return SE_OK;
}

static se_status sw_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t len,
                                uint8_t mac[32])
{
    se_hmac_sha256(key, key_len, msg, len, mac);
    return SE_OK;
}

static se_status sw_aes_crypt(se_aes_mode mode, int decrypt, const uint8_t *key, size_t key_len,
                              const uint8_t iv[16], const uint8_t *in, size_t len, uint8_t *out)
{
    uint8_t chain[SE_AES_BLOCK_BYTES] = {0};
    se_aes_ctx ctx;
    se_status st = se_aes_init(&ctx, key, key_len);

    if (st != SE_OK)
        return st;
    if (mode != SE_AES_MODE_ECB)
        memcpy(chain, iv, sizeof chain);
    switch (mode) {
    case SE_AES_MODE_ECB:
        st = decrypt ? se_aes_ecb_decrypt(&ctx, in, len, out) : se_aes_ecb_encrypt(&ctx, in, len, out);
        break;
    case SE_AES_MODE_CBC:
        st = decrypt ? se_aes_cbc_decrypt(&ctx, chain, in, len, out)
                     : se_aes_cbc_encrypt(&ctx, chain, in, len, out);
        break;
    case SE_AES_MODE_CTR:
        se_aes_ctr_crypt(&ctx, chain, in, len, out);
        break;
    default:
        se_aes_ofb_crypt(&ctx, chain, in, len, out);
        break;
    }
    se_aes_wipe(&ctx);
    return st;
}

static se_status sw_cbc_mac(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                            uint8_t *mac, size_t mac_len)
{
    se_aes_ctx ctx;
    se_status st = se_aes_init(&ctx, key, key_len);

    if (st == SE_OK)
        st = se_aes_cbc_mac(&ctx, data, len, mac, mac_len);
    se_aes_wipe(&ctx);
    return st;
}

#ifndef SE_AEAD_NO_SOFTWARE
/* The keyed context: GCM needs its hash subkey too, CCM only the expanded key (sw.aes). */
static se_status sw_aead_key(se_aead_key *k, se_aead_mode mode, const uint8_t *key, size_t key_len)
{
    k->slot = 0;
    k->mode = (uint8_t)mode;
    k->key_len = (uint8_t)key_len;
    return mode == SE_AEAD_GCM ? se_aes_gcm_init(&k->u.sw, key, key_len) : se_aes_init(&k->u.sw.aes, key, key_len);
}

static se_status sw_aead_seal(const se_aead_key *k, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                              size_t aad_len, const uint8_t *pt, size_t len, uint8_t *ct, uint8_t *tag,
                              size_t tag_len)
{
    return k->mode == SE_AEAD_GCM
               ? se_aes_gcm_encrypt(&k->u.sw, nonce, nonce_len, aad, aad_len, pt, len, ct, tag, tag_len)
               : se_aes_ccm_encrypt(&k->u.sw.aes, nonce, nonce_len, aad, aad_len, pt, len, ct, tag, tag_len);
}

static se_status sw_aead_open(const se_aead_key *k, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                              size_t aad_len, const uint8_t *ct, size_t len, const uint8_t *tag, size_t tag_len,
                              uint8_t *pt)
{
    return k->mode == SE_AEAD_GCM
               ? se_aes_gcm_decrypt(&k->u.sw, nonce, nonce_len, aad, aad_len, ct, len, tag, tag_len, pt)
               : se_aes_ccm_decrypt(&k->u.sw.aes, nonce, nonce_len, aad, aad_len, ct, len, tag, tag_len, pt);
}

#else
/* Built for the engine's AEAD alone (se/backend.h): the context has no room for a key schedule. */
static se_status sw_aead_key(se_aead_key *k, se_aead_mode mode, const uint8_t *key, size_t key_len)
{
    (void)k, (void)mode, (void)key, (void)key_len;
    return SE_ERR_NOT_SUPPORTED;
}

static se_status sw_aead_seal(const se_aead_key *k, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                              size_t aad_len, const uint8_t *pt, size_t len, uint8_t *ct, uint8_t *tag,
                              size_t tag_len)
{
    (void)k, (void)nonce, (void)nonce_len, (void)aad, (void)aad_len, (void)pt, (void)len, (void)ct, (void)tag;
    (void)tag_len;
    return SE_ERR_NOT_SUPPORTED;
}

static se_status sw_aead_open(const se_aead_key *k, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                              size_t aad_len, const uint8_t *ct, size_t len, const uint8_t *tag, size_t tag_len,
                              uint8_t *pt)
{
    (void)k, (void)nonce, (void)nonce_len, (void)aad, (void)aad_len, (void)ct, (void)len, (void)tag, (void)tag_len;
    (void)pt;
    return SE_ERR_NOT_SUPPORTED;
}
#endif

/* Records are made of the AEAD messages above (se_backend_record_seal/open). */
static se_status sw_record_seal(const se_aead_key *k, const se_record *r, const uint8_t *pt, size_t len, uint8_t *rec)
{
    return se_backend_record_seal(&se_backend_sw_tls, k, r, pt, len, rec);
}

static se_status sw_record_open(const se_aead_key *k, const se_record *r, uint8_t *body, size_t n)
{
    return se_backend_record_open(&se_backend_sw_tls, k, r, body, n);
}

/* Curves keep the library's own operations. */
static se_status sw_ec_curve(se_ec_curve *c)
{
    (void)c;
    return SE_OK;
}

static se_status sw_mod(se_mod_op op, const uint8_t *mb, size_t m_len, const uint8_t *ab,
                        const uint8_t *bb, uint8_t *out)
{
    se_mod m;
    se_bn a, b, r, am;
    se_status st = se_mod_init(&m, mb, m_len);
    if (st != SE_OK)
        return st;
    se_bn_from_bytes(&a, ab, m_len);
    se_bn_from_bytes(&b, bb, m_len);
    switch (op) {
    case SE_MOD_MUL:
        se_mod_to_mont(&m, &am, &a);
        se_mod_mul(&m, &r, &am, &b);
        break;
    case SE_MOD_ADD:
        se_mod_add(&m, &r, &a, &b);
        break;
    case SE_MOD_SUB:
        se_mod_sub(&m, &r, &a, &b);
        break;
    default:
        st = se_mod_inv(&m, &r, &a);
        break;
    }
    if (st == SE_OK)
        se_bn_to_bytes(out, m_len, &r);
    return st;
}

const se_backend se_backend_sw = {
    .name = "sw",
    .sha256 = sw_sha256,
    .hmac_sha256 = sw_hmac_sha256,
    .aes_crypt = sw_aes_crypt,
    .cbc_mac = sw_cbc_mac,
    .aead_key = sw_aead_key,
    .aead_wipe = se_aead_key_wipe,
    .aead_seal = sw_aead_seal,
    .aead_open = sw_aead_open,
    .record_seal = sw_record_seal,
    .record_open = sw_record_open,
    .ec_curve = sw_ec_curve,
    .x25519 = se_x25519,
    .mod = sw_mod,
};

const se_backend se_backend_sw_tls = {
    .name = "sw",
    .sha256 = sw_sha256,
    .hmac_sha256 = sw_hmac_sha256,
    .aead_key = sw_aead_key,
    .aead_wipe = se_aead_key_wipe,
    .aead_seal = sw_aead_seal,
    .aead_open = sw_aead_open,
    .record_seal = sw_record_seal,
    .record_open = sw_record_open,
};
