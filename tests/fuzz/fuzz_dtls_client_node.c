/* libFuzzer: the node's DTLS client (sw/apps/sensor's protocol build: NODE_TLS_FLAGS, records of
 * 1 KiB, handshake messages of 2 KiB, 1200-byte datagrams, no server, no stream, no CBC) fed
 * arbitrary server datagrams after se_tls_start; the deployed build, with the smallest buffers.
 * Input as fuzz_dtls_client.c; its seeds are fuzz_dtls_client's (variants 1 and 2 send the same
 * ClientHello in both builds, so they replay to ESTABLISHED). */
#if !defined(SE_TLS_NO_SERVER) || !defined(SE_TLS_NO_STREAM) || !defined(SE_TLS_NO_CBC)
#error "build with the node's flags (NODE_TLS_FLAGS, Makefile)"
#endif

/* The harness itself is fuzz_dtls_client's, built with these flags. */
#include "fuzz_dtls_client.c"
