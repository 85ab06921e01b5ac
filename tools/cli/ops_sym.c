/* CLI ops for AES: block modes (aes), cbc_mac, AEAD (aead_encrypt/aead_decrypt, gcm or ccm). */
#include <string.h>

#include "cli.h"
#include "se/aes.h"
#include "se/ct.h"

static uint8_t in[CLI_MAX_BYTES];
static uint8_t out[CLI_MAX_BYTES];
static uint8_t aad[CLI_MAX_BYTES];

/* Reads "key" and expands it; wrong length -> bad_length. */
static se_status read_key(const json_t *req, se_aes_ctx *ctx)
{
    uint8_t key[32];
    size_t len;
    se_status st = cli_hex(req, "key", key, sizeof key, &len);

    if (st == SE_OK && (st = se_aes_init(ctx, key, len)) != SE_OK)
        cli_fail("key", st);
    se_ct_wipe(key, sizeof key);
    return st;
}

static se_status op_aes(const json_t *req, json_t *resp)
{
    static const char *const modes[] = {"ecb", "cbc", "ctr", "ofb"};
    const char *mode, *dir;
    int m = -1, dec;
    uint8_t iv[SE_AES_BLOCK_BYTES];
    size_t iv_len = 0, len;
    se_aes_ctx ctx;
    se_status st;

    if ((st = cli_str(req, "mode", &mode)) != SE_OK || (st = cli_str(req, "dir", &dir)) != SE_OK)
        return st;
    for (int i = 0; i < 4; i++)
        if (strcmp(mode, modes[i]) == 0)
            m = i;
    if (m < 0)
        return cli_fail("mode", SE_ERR_BAD_INPUT);
    if (strcmp(dir, "enc") != 0 && strcmp(dir, "dec") != 0)
        return cli_fail("dir", SE_ERR_BAD_INPUT);
    dec = strcmp(dir, "dec") == 0;
    if ((st = read_key(req, &ctx)) != SE_OK)
        return st;
    if (m != 0) {
        uint8_t ivbuf[64];
        if ((st = cli_hex(req, "iv", ivbuf, sizeof ivbuf, &iv_len)) != SE_OK)
            goto done;
        if (iv_len != SE_AES_BLOCK_BYTES) {
            st = cli_fail("iv", SE_ERR_BAD_LENGTH);
            goto done;
        }
        memcpy(iv, ivbuf, sizeof iv);
    }
    if ((st = cli_hex(req, "data", in, sizeof in, &len)) != SE_OK)
        goto done;
    switch (m) {
    case 0:
        st = dec ? se_aes_ecb_decrypt(&ctx, in, len, out) : se_aes_ecb_encrypt(&ctx, in, len, out);
        break;
    case 1:
        st = dec ? se_aes_cbc_decrypt(&ctx, iv, in, len, out)
                 : se_aes_cbc_encrypt(&ctx, iv, in, len, out);
        break;
    case 2:
        se_aes_ctr_crypt(&ctx, iv, in, len, out);
        break;
    default:
        se_aes_ofb_crypt(&ctx, iv, in, len, out);
        break;
    }
    if (st == SE_OK)
        cli_put_hex(resp, "out", out, len);
done:
    se_aes_wipe(&ctx);
    return st;
}

static se_status op_cbc_mac(const json_t *req, json_t *resp)
{
    uint8_t mac[SE_AES_BLOCK_BYTES];
    unsigned long tag_len;
    size_t len;
    se_aes_ctx ctx;
    se_status st;

    if ((st = cli_uint_opt(req, "tag_len", &tag_len, 16)) != SE_OK)
        return st;
    if ((st = read_key(req, &ctx)) != SE_OK)
        return st;
    if ((st = cli_hex(req, "data", in, sizeof in, &len)) == SE_OK &&
        (st = se_aes_cbc_mac(&ctx, in, len, mac, tag_len <= 16 ? (size_t)tag_len : 17)) == SE_OK)
        cli_put_hex(resp, "mac", mac, (size_t)tag_len);
    se_aes_wipe(&ctx);
    return st;
}

/* 0 = gcm, 1 = ccm, -1 = unknown. */
static int aead_mode(const char *mode)
{
    if (strcmp(mode, "gcm") == 0)
        return 0;
    if (strcmp(mode, "ccm") == 0)
        return 1;
    return -1;
}

/* Shared by both directions: the mode, key, nonce, aad and the input field. */
static se_status aead_args(const json_t *req, const char *in_field, int *mode, se_aes_gcm_ctx *ctx,
                           uint8_t *nonce, size_t nonce_cap, size_t *nonce_len, size_t *aad_len,
                           size_t *len)
{
    const char *m;
    se_status st;

    if ((st = cli_str(req, "mode", &m)) != SE_OK)
        return st;
    if ((*mode = aead_mode(m)) < 0)
        return cli_fail("mode", SE_ERR_BAD_INPUT);
    if ((st = cli_hex(req, "nonce", nonce, nonce_cap, nonce_len)) != SE_OK ||
        (st = cli_hex_opt(req, "aad", aad, sizeof aad, aad_len, NULL)) != SE_OK ||
        (st = cli_hex(req, in_field, in, sizeof in, len)) != SE_OK)
        return st;
    if (*mode == 0) {
        uint8_t key[32];
        size_t key_len;
        if ((st = cli_hex(req, "key", key, sizeof key, &key_len)) == SE_OK &&
            (st = se_aes_gcm_init(ctx, key, key_len)) != SE_OK)
            cli_fail("key", st);
        se_ct_wipe(key, sizeof key);
        return st;
    }
    return read_key(req, &ctx->aes);
}

static se_status op_aead_encrypt(const json_t *req, json_t *resp)
{
    uint8_t nonce[1024], tag[SE_AES_BLOCK_BYTES];
    size_t nonce_len, aad_len, len;
    unsigned long tag_len;
    int mode;
    se_aes_gcm_ctx ctx;
    se_status st;

    if ((st = cli_uint_opt(req, "tag_len", &tag_len, 16)) != SE_OK)
        return st;
    if (tag_len > SE_AES_BLOCK_BYTES)
        tag_len = SE_AES_BLOCK_BYTES + 1; /* rejected below as bad_length */
    st = aead_args(req, "pt", &mode, &ctx, nonce, sizeof nonce, &nonce_len, &aad_len, &len);
    if (st == SE_OK)
        st = mode == 0 ? se_aes_gcm_encrypt(&ctx, nonce, nonce_len, aad, aad_len, in, len, out, tag,
                                            (size_t)tag_len)
                       : se_aes_ccm_encrypt(&ctx.aes, nonce, nonce_len, aad, aad_len, in, len, out,
                                            tag, (size_t)tag_len);
    if (st == SE_OK) {
        cli_put_hex(resp, "ct", out, len);
        cli_put_hex(resp, "tag", tag, (size_t)tag_len);
    }
    se_aes_gcm_wipe(&ctx);
    return st;
}

static se_status op_aead_decrypt(const json_t *req, json_t *resp)
{
    uint8_t nonce[1024], tag[64];
    size_t nonce_len, aad_len, len, tag_len;
    int mode;
    se_aes_gcm_ctx ctx;
    se_status st;

    if ((st = cli_hex(req, "tag", tag, sizeof tag, &tag_len)) != SE_OK)
        return st;
    st = aead_args(req, "ct", &mode, &ctx, nonce, sizeof nonce, &nonce_len, &aad_len, &len);
    if (st == SE_OK)
        st = mode == 0 ? se_aes_gcm_decrypt(&ctx, nonce, nonce_len, aad, aad_len, in, len, tag,
                                            tag_len, out)
                       : se_aes_ccm_decrypt(&ctx.aes, nonce, nonce_len, aad, aad_len, in, len, tag,
                                            tag_len, out);
    if (st == SE_OK)
        cli_put_hex(resp, "pt", out, len);
    se_aes_gcm_wipe(&ctx);
    return st;
}

const cli_op cli_ops_sym[] = {
    {"aes", op_aes, "mode=ecb|cbc|ctr|ofb dir=enc|dec key iv(not ecb) data -> out"},
    {"cbc_mac", op_cbc_mac, "key data [tag_len=16] -> mac"},
    {"aead_encrypt", op_aead_encrypt, "mode=gcm|ccm key nonce [aad] pt [tag_len=16] -> ct tag"},
    {"aead_decrypt", op_aead_decrypt, "mode=gcm|ccm key nonce [aad] ct tag -> pt | bad_tag"},
    {NULL, NULL, NULL},
};
