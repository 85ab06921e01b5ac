/* libFuzzer: the node's DTLS client (sw/apps/sensor's protocol build: NODE_TLS_FLAGS, records of
 * 1 KiB, handshake messages of 2 KiB, 1200-byte datagrams, no server, no stream, no CBC) fed
 * arbitrary server datagrams after se_tls_start; the deployed build, with the smallest buffers.
 * Input as fuzz_dtls_client.c; its seeds are fuzz_dtls_client's (variants 1 and 2 send the same
 * ClientHello in both builds, so they replay to ESTABLISHED). */
#include "fuzz_tls.h"

#if !defined(SE_TLS_NO_SERVER) || !defined(SE_TLS_NO_STREAM) || !defined(SE_TLS_NO_CBC)
#error "build with the node's flags (NODE_TLS_FLAGS, Makefile)"
#endif

static se_tls tls;
static fz_end end;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || fz_setup(&end, SE_TLS_CLIENT, SE_TLS_DATAGRAM, data[0], fz_discard) != SE_OK ||
        se_tls_init(&tls, &end.cfg, &end.io) != SE_OK || se_tls_start(&tls) != SE_OK)
        return 0;
    fz_feed(&end, &tls, data + 1, size - 1);
    return 0;
}
