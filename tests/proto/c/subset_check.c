/* The protocol's build-time subsets (se/tls.h): built by tests/proto/test_tls_subsets.py with the
 * node's flags (-DSE_TLS_NO_SERVER -DSE_TLS_NO_STREAM -DSE_TLS_NO_CBC). Prints one line per
 * se_tls_init case ("<case> <status name>") and the ClientHello datagram of a client with the
 * default suite list ("hello <hex>"); the test reads them and parses the ClientHello itself. */
#include <stdio.h>
#include <string.h>

#include "se/backend.h"
#include "se/tls.h"

static uint8_t hello[1500];
static size_t hello_len;

static int on_send(void *ctx, const uint8_t *buf, size_t len)
{
    (void)ctx;
    if (len <= sizeof hello) {
        memcpy(hello, buf, len);
        hello_len = len;
    }
    return 0;
}

static uint32_t now_ms(void *ctx)
{
    (void)ctx;
    return 0;
}

static se_tls tls;

int main(void)
{
    static const uint8_t seed[48] = {1, 2, 3};
    static const uint16_t ccm8[1] = {SE_TLS_ECDHE_ECDSA_AES_128_CCM_8};
    static const uint16_t cbc[1] = {SE_TLS_ECDHE_ECDSA_AES_128_CBC_SHA256};
    static const uint16_t unknown[1] = {0x1234};
    se_hmac_drbg_ctx rng;
    se_ec_curve p256;
    if (se_hmac_drbg_instantiate(&rng, seed, 32, seed + 32, 16, NULL, 0) != SE_OK ||
        se_ec_curve_builtin(&p256, SE_CURVE_SECP256R1) != SE_OK)
        return 1;
    const se_tls_io io = {.send = on_send, .now_ms = now_ms};
    const se_tls_config base = {.transport = SE_TLS_DATAGRAM, .role = SE_TLS_CLIENT,
                                .crypto = &se_backend_sw_tls, .rng = &rng, .p256 = &p256};
    struct {
        const char *name;
        se_tls_config cfg;
    } cases[5] = {{"datagram_ccm8", base}, {"stream", base}, {"server", base}, {"cbc", base},
                  {"unknown_suite", base}};
    cases[0].cfg.suites = ccm8, cases[0].cfg.n_suites = 1;
    cases[1].cfg.transport = SE_TLS_STREAM;
    cases[2].cfg.role = SE_TLS_SERVER;
    cases[3].cfg.suites = cbc, cases[3].cfg.n_suites = 1;
    cases[4].cfg.suites = unknown, cases[4].cfg.n_suites = 1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        printf("%s %s\n", cases[i].name, se_status_name(se_tls_init(&tls, &cases[i].cfg, &io)));
    /* The default suite list, in a ClientHello. */
    se_status st = se_tls_init(&tls, &base, &io);
    if (st == SE_OK)
        st = se_tls_start(&tls);
    printf("start %s\nhello ", se_status_name(st));
    for (size_t i = 0; i < hello_len; i++)
        printf("%02x", hello[i]);
    printf("\n");
    return 0;
}
