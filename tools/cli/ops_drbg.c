/* CLI op for HMAC_DRBG (SP 800-90A) in the NIST CAVP shape: instantiate, reseed, generate twice.
 * Its HMACs run where the backend hashes (se/backend.h's `sha`): the library on sw, the engine's
 * SHA IP on rtl, the node on soc. */
#include "cli.h"
#include "se/ct.h"
#include "se/drbg.h"

static uint8_t entropy[CLI_MAX_BYTES], nonce[CLI_MAX_BYTES], pers[CLI_MAX_BYTES];
static uint8_t reseed_entropy[CLI_MAX_BYTES], reseed_add[CLI_MAX_BYTES];
static uint8_t add1[CLI_MAX_BYTES], add2[CLI_MAX_BYTES];
static uint8_t out[SE_HMAC_DRBG_MAX_REQUEST_BYTES];

/* Returns the second output, as CAVP does. "instantiate": 0 skips instantiation (to see
 * drbg_not_seeded); "reseed_interval" lowers the interval (to see drbg_reseed_required). */
static se_status op_hmac_drbg(const json_t *req, json_t *resp)
{
    size_t e_len, n_len, p_len, re_len, ra_len, a1_len, a2_len;
    int do_reseed, has_ra;
    unsigned long bytes, inst, interval;
    se_hmac_drbg_ctx ctx = {0};
    se_status st;

    if ((st = cli_uint(req, "bytes", &bytes)) != SE_OK ||
        (st = cli_uint_opt(req, "instantiate", &inst, 1)) != SE_OK ||
        (st = cli_uint_opt(req, "reseed_interval", &interval, 0)) != SE_OK ||
        (st = cli_hex_opt(req, "pers", pers, sizeof pers, &p_len, NULL)) != SE_OK ||
        (st = cli_hex_opt(req, "reseed_entropy", reseed_entropy, sizeof reseed_entropy, &re_len,
                          &do_reseed)) != SE_OK ||
        (st = cli_hex_opt(req, "reseed_add", reseed_add, sizeof reseed_add, &ra_len, &has_ra)) !=
            SE_OK ||
        (st = cli_hex_opt(req, "add1", add1, sizeof add1, &a1_len, NULL)) != SE_OK ||
        (st = cli_hex_opt(req, "add2", add2, sizeof add2, &a2_len, NULL)) != SE_OK)
        return st;
    if (inst > 1)
        return cli_fail("instantiate", SE_ERR_BAD_INPUT);
    if (has_ra && !do_reseed)
        return cli_fail("reseed_add", SE_ERR_BAD_INPUT);
    if (interval > SE_HMAC_DRBG_RESEED_INTERVAL)
        return cli_fail("reseed_interval", SE_ERR_BAD_INPUT);
    if (bytes > SE_HMAC_DRBG_MAX_REQUEST_BYTES)
        return cli_fail("bytes", SE_ERR_BAD_LENGTH);
    if (inst) {
        if ((st = cli_hex(req, "entropy", entropy, sizeof entropy, &e_len)) != SE_OK ||
            (st = cli_hex(req, "nonce", nonce, sizeof nonce, &n_len)) != SE_OK)
            return st;
        st = se_hmac_drbg_instantiate_on(&ctx, cli_be->ops->sha, entropy, e_len, nonce, n_len, pers,
                                         p_len);
    }
    if (st == SE_OK && interval != 0)
        st = se_hmac_drbg_set_reseed_interval(&ctx, (uint32_t)interval);
    if (st == SE_OK && do_reseed)
        st = se_hmac_drbg_reseed(&ctx, reseed_entropy, re_len, reseed_add, ra_len);
    if (st == SE_OK)
        st = se_hmac_drbg_generate(&ctx, out, (size_t)bytes, add1, a1_len);
    if (st == SE_OK)
        st = se_hmac_drbg_generate(&ctx, out, (size_t)bytes, add2, a2_len);
    if (st == SE_OK)
        cli_put_hex(resp, "out", out, (size_t)bytes);
    se_hmac_drbg_uninstantiate(&ctx);
    se_ct_wipe(out, sizeof out);
    return st;
}

const cli_op cli_ops_drbg[] = {
    {"hmac_drbg", op_hmac_drbg,
     "entropy nonce [pers] [reseed_entropy [reseed_add]] [add1] [add2] bytes [reseed_interval] "
     "[instantiate=1] -> out (second of two generates)"},
    {NULL, NULL, NULL},
};
