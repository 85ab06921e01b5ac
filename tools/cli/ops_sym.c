/* CLI ops for AES: block modes (aes), cbc_mac, AEAD (aead_encrypt/aead_decrypt, gcm or ccm) and DTLS/TLS
 * AEAD records (record_seal/record_open), on the chosen backend. */
#include <string.h>

#include "cli.h"
#include "se/ct.h"

static uint8_t in[CLI_MAX_BYTES];
static uint8_t out[CLI_MAX_BYTES];
static uint8_t aad[CLI_MAX_BYTES];

/* Reads "key": 16, 24 or 32 bytes, else bad_length on that field. */
static se_status read_key(const json_t *req, uint8_t key[32], size_t *len)
{
    se_status st = cli_hex(req, "key", key, 32, len);

    if (st == SE_OK && *len != 16 && *len != 24 && *len != 32)
        st = cli_fail("key", SE_ERR_BAD_LENGTH);
    return st;
}

static se_status op_aes(const json_t *req, json_t *resp)
{
    static const char *const modes[] = {"ecb", "cbc", "ctr", "ofb"};
    const char *mode, *dir;
    int m = -1;
    uint8_t key[32], iv[64] = {0};
    size_t key_len, iv_len = 0, len;
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
    if ((st = read_key(req, key, &key_len)) != SE_OK)
        goto done;
    if (m != SE_AES_MODE_ECB) {
        if ((st = cli_hex(req, "iv", iv, sizeof iv, &iv_len)) != SE_OK)
            goto done;
        if (iv_len != 16) {
            st = cli_fail("iv", SE_ERR_BAD_LENGTH);
            goto done;
        }
    }
    if ((st = cli_hex(req, "data", in, sizeof in, &len)) == SE_OK &&
        (st = cli_be->ops->aes_crypt((se_aes_mode)m, strcmp(dir, "dec") == 0, key, key_len, iv, in, len,
                                out)) == SE_OK)
        cli_put_hex(resp, "out", out, len);
done:
    se_ct_wipe(key, sizeof key);
    return st;
}

static se_status op_cbc_mac(const json_t *req, json_t *resp)
{
    uint8_t key[32], mac[16];
    unsigned long tag_len;
    size_t key_len, len;
    se_status st;

    if ((st = cli_uint_opt(req, "tag_len", &tag_len, 16)) != SE_OK)
        return st;
    if ((st = read_key(req, key, &key_len)) == SE_OK &&
        (st = cli_hex(req, "data", in, sizeof in, &len)) == SE_OK &&
        (st = cli_be->ops->cbc_mac(key, key_len, in, len, mac, tag_len <= 16 ? (size_t)tag_len : 17)) == SE_OK)
        cli_put_hex(resp, "mac", mac, (size_t)tag_len);
    se_ct_wipe(key, sizeof key);
    return st;
}

/* Shared by both directions: mode, key, nonce, aad and the input field. */
static se_status aead_args(const json_t *req, const char *in_field, se_aead_mode *mode,
                           uint8_t key[32], size_t *key_len, uint8_t *nonce, size_t nonce_cap,
                           size_t *nonce_len, size_t *aad_len, size_t *len)
{
    const char *m;
    se_status st;

    if ((st = cli_str(req, "mode", &m)) != SE_OK)
        return st;
    if (strcmp(m, "gcm") == 0)
        *mode = SE_AEAD_GCM;
    else if (strcmp(m, "ccm") == 0)
        *mode = SE_AEAD_CCM;
    else
        return cli_fail("mode", SE_ERR_BAD_INPUT);
    if ((st = cli_hex(req, "nonce", nonce, nonce_cap, nonce_len)) != SE_OK ||
        (st = cli_hex_opt(req, "aad", aad, sizeof aad, aad_len, NULL)) != SE_OK ||
        (st = cli_hex(req, in_field, in, sizeof in, len)) != SE_OK)
        return st;
    return read_key(req, key, key_len);
}

static se_status op_aead_encrypt(const json_t *req, json_t *resp)
{
    uint8_t key[32], nonce[1024], tag[16];
    size_t key_len, nonce_len, aad_len, len;
    unsigned long tag_len;
    se_aead_mode mode;
    se_status st;

    if ((st = cli_uint_opt(req, "tag_len", &tag_len, 16)) != SE_OK)
        return st;
    if (tag_len > 16)
        tag_len = 17; /* rejected by the backend as bad_length */
    st = aead_args(req, "pt", &mode, key, &key_len, nonce, sizeof nonce, &nonce_len, &aad_len, &len);
    if (st == SE_OK &&
        (st = se_backend_aead_encrypt(cli_be->ops, mode, key, key_len, nonce, nonce_len, aad, aad_len, in, len,
                                      out, tag, (size_t)tag_len)) == SE_OK) {
        cli_put_hex(resp, "ct", out, len);
        cli_put_hex(resp, "tag", tag, (size_t)tag_len);
    }
    se_ct_wipe(key, sizeof key);
    return st;
}

static se_status op_aead_decrypt(const json_t *req, json_t *resp)
{
    uint8_t key[32], nonce[1024], tag[64];
    size_t key_len, nonce_len, aad_len, len, tag_len;
    se_aead_mode mode;
    se_status st;

    if ((st = cli_hex(req, "tag", tag, sizeof tag, &tag_len)) != SE_OK)
        return st;
    st = aead_args(req, "ct", &mode, key, &key_len, nonce, sizeof nonce, &nonce_len, &aad_len, &len);
    if (st == SE_OK &&
        (st = se_backend_aead_decrypt(cli_be->ops, mode, key, key_len, nonce, nonce_len, aad, aad_len, in, len,
                                      tag, tag_len, out)) == SE_OK)
        cli_put_hex(resp, "pt", out, len);
    se_ct_wipe(key, sizeof key);
    return st;
}

/* A record's fields (se/aes.h's se_record) and its keyed context: mode, key, salt (4 bytes), seq_num,
 * type, version, dtls (1 or 0), tag_len (8 or 16). */
static se_status record_args(const json_t *req, se_aead_key *k, se_record *r)
{
    unsigned long seq_hi, seq_lo, type, version, dtls, tag_len;
    uint8_t key[32];
    size_t key_len, salt_len;
    se_aead_mode mode;
    const char *m;
    se_status st;

    if ((st = cli_str(req, "mode", &m)) != SE_OK)
        return st;
    if (strcmp(m, "gcm") == 0)
        mode = SE_AEAD_GCM;
    else if (strcmp(m, "ccm") == 0)
        mode = SE_AEAD_CCM;
    else
        return cli_fail("mode", SE_ERR_BAD_INPUT);
    if ((st = cli_uint(req, "seq_hi", &seq_hi)) != SE_OK || (st = cli_uint(req, "seq_lo", &seq_lo)) != SE_OK ||
        (st = cli_uint(req, "type", &type)) != SE_OK || (st = cli_uint(req, "version", &version)) != SE_OK ||
        (st = cli_uint_opt(req, "dtls", &dtls, 1)) != SE_OK || (st = cli_uint_opt(req, "tag_len", &tag_len, 16)) != SE_OK)
        return st;
    if (seq_hi > 0xffffffffu || seq_lo > 0xffffffffu)
        return cli_fail(seq_hi > 0xffffffffu ? "seq_hi" : "seq_lo", SE_ERR_BAD_INPUT);
    if (type > 0xff || version > 0xffff || dtls > 1)
        return cli_fail(type > 0xff ? "type" : version > 0xffff ? "version" : "dtls", SE_ERR_BAD_INPUT);
    r->seq_num = (uint64_t)seq_hi << 32 | seq_lo;
    r->type = (uint8_t)type;
    r->version = (uint16_t)version;
    r->dtls = (uint8_t)dtls;
    r->tag_len = (uint8_t)(tag_len <= 16 ? tag_len : 0); /* (other lengths: bad_length) */
    if ((st = cli_hex(req, "salt", r->salt, sizeof r->salt, &salt_len)) != SE_OK)
        return st;
    if (salt_len != 4)
        return cli_fail("salt", SE_ERR_BAD_LENGTH);
    if ((st = read_key(req, key, &key_len)) == SE_OK)
        st = cli_be->ops->aead_key(k, mode, key, key_len);
    se_ct_wipe(key, sizeof key);
    return st;
}

/* record_seal (pt -> record) and record_open (body -> pt). */
static se_status record_op(const json_t *req, json_t *resp, int open)
{
    se_aead_key k;
    se_record r;
    size_t n;
    se_status st = cli_hex(req, open ? "body" : "pt", in, sizeof in, &n);

    if (st != SE_OK || (st = record_args(req, &k, &r)) != SE_OK)
        return st;
    st = open ? cli_be->ops->record_open(&k, &r, in, n) : cli_be->ops->record_seal(&k, &r, in, n, out);
    if (st == SE_OK && open)
        cli_put_hex(resp, "pt", in + SE_RECORD_EXPLICIT, n - SE_RECORD_EXPLICIT - r.tag_len);
    else if (st == SE_OK)
        cli_put_hex(resp, "record", out, (r.dtls ? 13u : 5u) + SE_RECORD_EXPLICIT + n + r.tag_len);
    cli_be->ops->aead_wipe(&k);
    return st;
}

static se_status op_record_seal(const json_t *req, json_t *resp)
{
    return record_op(req, resp, 0);
}

static se_status op_record_open(const json_t *req, json_t *resp)
{
    return record_op(req, resp, 1);
}

const cli_op cli_ops_sym[] = {
    {"aes", op_aes, "mode=ecb|cbc|ctr|ofb dir=enc|dec key iv(not ecb) data -> out"},
    {"cbc_mac", op_cbc_mac, "key data [tag_len=16] -> mac"},
    {"aead_encrypt", op_aead_encrypt, "mode=gcm|ccm key nonce [aad] pt [tag_len=16] -> ct tag"},
    {"aead_decrypt", op_aead_decrypt, "mode=gcm|ccm key nonce [aad] ct tag -> pt | bad_tag"},
    {"record_seal", op_record_seal,
     "mode=gcm|ccm key salt seq_hi seq_lo type version [dtls=1] [tag_len=16] pt -> record (header and body)"},
    {"record_open", op_record_open,
     "mode=gcm|ccm key salt seq_hi seq_lo type version [dtls=1] [tag_len=16] body -> pt | bad_tag"},
    {NULL, NULL, NULL},
};
