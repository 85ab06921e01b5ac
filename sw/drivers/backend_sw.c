/* se_backend_sw: the crypto library (sw/crypto) behind the driver-shaped entry points of
 * se/backend.h. Touches no hardware. */
#include <string.h>

#include "se/aes.h"
#include "se/backend.h"
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

static se_status sw_aes_crypt(se_drv_aes_mode mode, int decrypt, const uint8_t *key, size_t key_len,
                              const uint8_t iv[16], const uint8_t *in, size_t len, uint8_t *out)
{
    uint8_t chain[SE_AES_BLOCK_BYTES] = {0};
    se_aes_ctx ctx;
    se_status st = se_aes_init(&ctx, key, key_len);

    if (st != SE_OK)
        return st;
    if (mode != SE_DRV_ECB)
        memcpy(chain, iv, sizeof chain);
    switch (mode) {
    case SE_DRV_ECB:
        st = decrypt ? se_aes_ecb_decrypt(&ctx, in, len, out) : se_aes_ecb_encrypt(&ctx, in, len, out);
        break;
    case SE_DRV_CBC:
        st = decrypt ? se_aes_cbc_decrypt(&ctx, chain, in, len, out)
                     : se_aes_cbc_encrypt(&ctx, chain, in, len, out);
        break;
    case SE_DRV_CTR:
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

/* GCM needs its hash subkey too; CCM only the expanded key (ctx.aes). */
static se_status sw_aead_init(se_drv_aead_mode mode, se_aes_gcm_ctx *ctx, const uint8_t *key, size_t key_len)
{
    return mode == SE_DRV_GCM ? se_aes_gcm_init(ctx, key, key_len) : se_aes_init(&ctx->aes, key, key_len);
}

static se_status sw_aead_encrypt(se_drv_aead_mode mode, const uint8_t *key, size_t key_len,
                                 const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                                 size_t aad_len, const uint8_t *pt, size_t len, uint8_t *ct,
                                 uint8_t *tag, size_t tag_len)
{
    se_aes_gcm_ctx ctx;
    se_status st = sw_aead_init(mode, &ctx, key, key_len);

    if (st == SE_OK)
        st = mode == SE_DRV_GCM
                 ? se_aes_gcm_encrypt(&ctx, nonce, nonce_len, aad, aad_len, pt, len, ct, tag, tag_len)
                 : se_aes_ccm_encrypt(&ctx.aes, nonce, nonce_len, aad, aad_len, pt, len, ct, tag, tag_len);
    se_aes_gcm_wipe(&ctx);
    return st;
}

static se_status sw_aead_decrypt(se_drv_aead_mode mode, const uint8_t *key, size_t key_len,
                                 const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                                 size_t aad_len, const uint8_t *ct, size_t len, const uint8_t *tag,
                                 size_t tag_len, uint8_t *pt)
{
    se_aes_gcm_ctx ctx;
    se_status st = sw_aead_init(mode, &ctx, key, key_len);

    if (st == SE_OK)
        st = mode == SE_DRV_GCM
                 ? se_aes_gcm_decrypt(&ctx, nonce, nonce_len, aad, aad_len, ct, len, tag, tag_len, pt)
                 : se_aes_ccm_decrypt(&ctx.aes, nonce, nonce_len, aad, aad_len, ct, len, tag, tag_len, pt);
    se_aes_gcm_wipe(&ctx);
    return st;
}

/* Curves keep the library's own operations. */
static se_status sw_ec_curve(se_ec_curve *c)
{
    (void)c;
    return SE_OK;
}

static se_status sw_mod(se_drv_mod_op op, const uint8_t *mb, size_t m_len, const uint8_t *ab,
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
    case SE_DRV_MOD_MUL:
        se_mod_to_mont(&m, &am, &a);
        se_mod_mul(&m, &r, &am, &b);
        break;
    case SE_DRV_MOD_ADD:
        se_mod_add(&m, &r, &a, &b);
        break;
    case SE_DRV_MOD_SUB:
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
    "sw", NULL, sw_sha256, sw_hmac_sha256, sw_aes_crypt, sw_cbc_mac, sw_aead_encrypt, sw_aead_decrypt,
    sw_ec_curve, se_x25519, sw_mod,
};

const se_backend se_backend_sw_tls = {
    "sw", NULL, sw_sha256, sw_hmac_sha256, sw_aes_crypt, NULL, sw_aead_encrypt, sw_aead_decrypt,
    NULL, NULL, NULL,
};
