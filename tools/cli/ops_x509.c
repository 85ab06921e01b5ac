/* CLI ops for X.509 (sw/proto/x509.c): x509_parse and x509_verify, on the current backend (both on the
 * engine's protocol controller where the backend has one: rtl; x509_verify with ctrl_only true runs the
 * controller's CHAIN_CHECK and nothing else: not_supported without a controller, too_large when the
 * chain does not fit its window). */
#include <string.h>

#include "cli.h"
#include "se/x509.h"

#define CERT_MAX 8192 /* bytes per certificate */

static uint8_t chain_buf[SE_X509_MAX_CHAIN + 1][CERT_MAX];
static uint8_t anchor_buf[8][CERT_MAX];

/* One hex string (a JSON string, e.g. an array element) into buf. */
static se_status hex_value(json_t *v, const char *field, uint8_t *buf, size_t *len)
{
    json_t *tmp = json_object();
    json_object_set(tmp, field, v);
    se_status st = cli_hex(tmp, field, buf, CERT_MAX, len);
    json_decref(tmp);
    return st;
}

/* `field`: an array of hex DER certificates, or one hex string; at most max (more: cert_chain). */
static se_status get_certs(const json_t *req, const char *field, uint8_t (*buf)[CERT_MAX],
                           size_t max, const uint8_t **certs, size_t *lens, size_t *n)
{
    json_t *v = json_object_get(req, field);
    se_status st = SE_OK;
    if (json_is_string(v)) {
        *n = 1;
        st = hex_value(v, field, buf[0], &lens[0]);
    } else if (json_is_array(v)) {
        *n = json_array_size(v);
        if (*n > max)
            return cli_fail(field, SE_ERR_CERT_CHAIN);
        for (size_t i = 0; i < *n && st == SE_OK; i++)
            st = hex_value(json_array_get(v, i), field, buf[i], &lens[i]);
    } else {
        return cli_fail(field, SE_ERR_BAD_INPUT);
    }
    for (size_t i = 0; i < *n; i++)
        certs[i] = buf[i];
    return st;
}

/* P-256 computing on the CLI's backend. */
static se_status p256(se_ec_curve *c)
{
    se_status st = se_ec_curve_builtin(c, SE_CURVE_SECP256R1);
    return st == SE_OK ? cli_be->ops->ec_curve(c) : st;
}

static se_status op_x509_verify(const json_t *req, json_t *resp)
{
    const uint8_t *chain[SE_X509_MAX_CHAIN + 1], *anchors[8];
    size_t chain_len[SE_X509_MAX_CHAIN + 1], anchor_len[8], n, n_anchors;
    unsigned long now;
    const char *name;
    uint8_t pub[65];
    se_ec_curve c;
    se_status st = get_certs(req, "chain", chain_buf, SE_X509_MAX_CHAIN + 1, chain, chain_len, &n);
    if (st == SE_OK)
        st = get_certs(req, "anchors", anchor_buf, 8, anchors, anchor_len, &n_anchors);
    if (st == SE_OK)
        st = cli_uint(req, "now", &now);
    if (st == SE_OK)
        st = cli_str_opt(req, "name", &name, NULL);
    if (st == SE_OK)
        st = p256(&c);
    if (st != SE_OK)
        return st;
    if (json_is_true(json_object_get(req, "ctrl_only"))) /* the controller's CHAIN_CHECK, no other way */
        st = cli_be->ops->ctrl == NULL ? SE_ERR_NOT_SUPPORTED
                                       : cli_be->ops->ctrl->chain_check(&c, chain, chain_len, n, anchors, anchor_len,
                                                                        n_anchors, (int64_t)now, name, pub);
    else
        st = se_x509_verify_chain(cli_be->ops, &c, chain, chain_len, n, anchors, anchor_len, n_anchors,
                                  (int64_t)now, name, pub);
    if (st == SE_OK) {
        cli_put_bool(resp, "ok", 1);
        cli_put_hex(resp, "pub", pub, sizeof pub);
    }
    return st;
}

static void put_int(json_t *resp, const char *field, json_int_t v)
{
    json_object_set_new(resp, field, json_integer(v));
}

static se_status op_x509_parse(const json_t *req, json_t *resp)
{
    static uint8_t der[CERT_MAX];
    char text[256];
    size_t len;
    se_x509 x;
    se_status st = cli_hex(req, "cert", der, sizeof der, &len);
    if (st == SE_OK)
        st = se_x509_parse_on(cli_be->ops, &x, der, len);
    if (st != SE_OK)
        return st;
    if (x.cn != NULL) {
        size_t n = x.cn_len < sizeof text - 1 ? x.cn_len : sizeof text - 1;
        memcpy(text, x.cn, n);
        text[n] = '\0';
        cli_put_str(resp, "cn", text);
    }
    put_int(resp, "not_before", (json_int_t)x.not_before);
    put_int(resp, "not_after", (json_int_t)x.not_after);
    cli_put_bool(resp, "is_ca", x.is_ca);
    put_int(resp, "path_len", x.path_len);
    if (x.key_usage != ~0u) /* absent extension: no field */
        put_int(resp, "key_usage", (json_int_t)x.key_usage);
    cli_put_hex(resp, "pub", x.pub, sizeof x.pub);
    cli_put_hex(resp, "sig", x.sig, sizeof x.sig);
    cli_put_hex(resp, "subject", x.subject, x.subject_len);
    cli_put_hex(resp, "issuer", x.issuer, x.issuer_len);
    if (x.san != NULL)
        cli_put_hex(resp, "san", x.san, x.san_len);
    cli_put_hex(resp, "tbs", x.tbs, x.tbs_len);
    return SE_OK;
}

const cli_op cli_ops_x509[] = {
    {"x509_verify", op_x509_verify, "chain anchors now [name] [ctrl_only] -> ok pub"},
    {"x509_parse", op_x509_parse, "cert -> cn not_before not_after is_ca path_len [key_usage] pub sig ..."},
    {NULL, NULL, NULL},
};
