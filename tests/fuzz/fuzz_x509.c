/* libFuzzer: X.509 parsing and chain verification (se/x509.h).
 * Input: a flags byte (bit 0: the last certificate is also the only trust anchor, instead of the
 * fixed CA fz_ca; bit 1: the leaf must be named "fuzz.example"), then up to SE_X509_MAX_CHAIN + 1
 * certificates as chunks (fuzz_util.h), leaf first. Each is parsed (and name-checked), then the
 * whole list goes through se_x509_verify_chain. Every chunk is copied to a buffer of its exact
 * size, so the sanitizer sees a read past it. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_pki.h"
#include "fuzz_util.h"
#include "se/backend.h"
#include "se/x509.h"

#define MAX_CERTS (SE_X509_MAX_CHAIN + 1)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static se_ec_curve p256;
    static int ready;
    if (!ready) {
        if (se_ec_curve_builtin(&p256, SE_CURVE_SECP256R1) != SE_OK)
            abort();
        ready = 1;
    }
    if (size < 1)
        return 0;
    uint8_t flags = data[0];
    fz_reader r = {data + 1, size - 1};
    uint8_t *copy[MAX_CERTS];
    const uint8_t *chain[MAX_CERTS];
    size_t len[MAX_CERTS], n = 0;
    const uint8_t *b;
    size_t blen;
    while (n < MAX_CERTS && fz_chunk(&r, &b, &blen)) {
        copy[n] = malloc(blen ? blen : 1);
        if (copy[n] == NULL)
            abort();
        memcpy(copy[n], b, blen);
        chain[n] = copy[n];
        len[n++] = blen;
    }
    const char *name = flags & 2 ? "fuzz.example" : NULL;
    for (size_t i = 0; i < n; i++) {
        se_x509 cert;
        if (se_x509_parse(&cert, chain[i], len[i]) == SE_OK) {
            (void)se_x509_check_name(&cert, "fuzz.example");
            (void)se_x509_check_name(&cert, "");
            if (cert.cn != NULL && cert.cn_len > 0 && cert.cn_len < 64) {
                char cn[64];
                memcpy(cn, cert.cn, cert.cn_len);
                cn[cert.cn_len] = '\0';
                (void)se_x509_check_name(&cert, cn);
            }
        }
    }
    if (n > 0) {
        const uint8_t *anchor[1] = {fz_ca};
        size_t anchor_len[1] = {sizeof fz_ca};
        size_t chain_n = n;
        if (flags & 1) {
            anchor[0] = chain[n - 1];
            anchor_len[0] = len[n - 1];
            if (chain_n > 1)
                chain_n--;
        }
        uint8_t pub[65];
        (void)se_x509_verify_chain(&se_backend_sw, &p256, chain, len, chain_n, anchor, anchor_len,
                                   1, FZ_NOW, name, pub);
    }
    for (size_t i = 0; i < n; i++)
        free(copy[i]);
    return 0;
}
