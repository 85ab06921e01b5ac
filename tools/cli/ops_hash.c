/* CLI ops for hashing and MACs: sha256, hmac_sha256. */
#include "cli.h"
#include "se/sha256.h"

static uint8_t msg[CLI_MAX_BYTES];
static uint8_t key[CLI_MAX_BYTES];

static se_status op_sha256(const json_t *req, json_t *resp)
{
    size_t len;
    uint8_t digest[SE_SHA256_DIGEST_BYTES];
    se_status st = cli_hex(req, "msg", msg, sizeof msg, &len);

    if (st != SE_OK)
        return st;
    se_sha256(msg, len, digest);
    cli_put_hex(resp, "digest", digest, sizeof digest);
    return SE_OK;
}

static se_status op_hmac_sha256(const json_t *req, json_t *resp)
{
    size_t key_len, len;
    uint8_t mac[SE_SHA256_DIGEST_BYTES];
    se_status st = cli_hex(req, "key", key, sizeof key, &key_len);

    if (st == SE_OK)
        st = cli_hex(req, "msg", msg, sizeof msg, &len);
    if (st != SE_OK)
        return st;
    se_hmac_sha256(key, key_len, msg, len, mac);
    cli_put_hex(resp, "mac", mac, sizeof mac);
    return SE_OK;
}

const cli_op cli_ops_hash[] = {
    {"sha256", op_sha256, "msg -> digest"},
    {"hmac_sha256", op_hmac_sha256, "key msg -> mac"},
    {NULL, NULL, NULL},
};
