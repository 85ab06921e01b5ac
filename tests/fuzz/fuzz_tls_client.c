/* libFuzzer: a TLS (stream) client (se/tls.h) fed arbitrary server bytes after se_tls_start.
 * Input: a variant byte (fuzz_tls.h: suites, whether the client has a certificate), then chunks
 * (fuzz_util.h), each one se_tls_input call; an empty chunk runs the retransmission timer. Seeds:
 * recorded server flights (tls_seeds.c) that replay to ESTABLISHED. */
#include "fuzz_tls.h"

static se_tls tls;
static fz_end end;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || fz_setup(&end, SE_TLS_CLIENT, SE_TLS_STREAM, data[0], fz_discard) != SE_OK ||
        se_tls_init(&tls, &end.cfg, &end.io) != SE_OK || se_tls_start(&tls) != SE_OK)
        return 0;
    fz_feed(&end, &tls, data + 1, size - 1);
    return 0;
}
