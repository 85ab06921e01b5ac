/* libFuzzer: a DTLS (datagram) server (se/tls.h) fed arbitrary datagrams after se_tls_init.
 * Input: a variant byte (fuzz_tls.h: suites, client authentication), then chunks (fuzz_util.h),
 * each one se_tls_input call (each also goes through se_dtls_cookie_check first); an empty chunk
 * runs the retransmission timer. Seeds: recorded handshakes (tls_seeds.c) that replay to
 * ESTABLISHED. */
#include "fuzz_tls.h"

static se_tls tls;
static fz_end end;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || fz_setup(&end, SE_TLS_SERVER, SE_TLS_DATAGRAM, data[0], fz_discard) != SE_OK ||
        se_tls_init(&tls, &end.cfg, &end.io) != SE_OK)
        return 0;
    {
        static const uint8_t key[32] = {0x42}, peer[] = "192.0.2.1:5684";
        static uint8_t hvr[1200];
        fz_reader r = {data + 1, size - 1};
        const uint8_t *b;
        size_t n, hvr_len;
        while (fz_chunk(&r, &b, &n))
            (void)se_dtls_cookie_check(&se_backend_sw, key, peer, sizeof peer - 1, b, n, hvr,
                                       sizeof hvr, &hvr_len);
    }
    fz_feed(&end, &tls, data + 1, size - 1);
    return 0;
}
