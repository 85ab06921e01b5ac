/* CLI ops for hashing and MACs: sha256, hmac_sha256. */
#include "cli.h"

static uint8_t msg[CLI_MAX_BYTES];
static uint8_t key[CLI_MAX_BYTES];

static se_status op_sha256(const json_t *req, json_t *resp)
{
    size_t len;
    uint8_t digest[32];
    se_status st = cli_hex(req, "msg", msg, sizeof msg, &len);

    if (st != SE_OK)
        return st;
    if ((st = cli_be->ops->sha256(msg, len, digest)) == SE_OK)
        cli_put_hex(resp, "digest", digest, sizeof digest);
    return st;
}

static se_status op_hmac_sha256(const json_t *req, json_t *resp)
{
    size_t key_len, len;
    uint8_t mac[32];
    se_status st = cli_hex(req, "key", key, sizeof key, &key_len);

    if (st == SE_OK)
        st = cli_hex(req, "msg", msg, sizeof msg, &len);
    if (st != SE_OK)
        return st;
    if ((st = cli_be->ops->hmac_sha256(key, key_len, msg, len, mac)) == SE_OK)
        cli_put_hex(resp, "mac", mac, sizeof mac);
    return st;
}

const cli_op cli_ops_hash[] = {
    {"sha256", op_sha256, "msg -> digest"},
    {"hmac_sha256", op_hmac_sha256, "key msg -> mac"},
    {NULL, NULL, NULL},
};
