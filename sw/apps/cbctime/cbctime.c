/* Cycle counts of the CBC-SHA256 record check (sw/proto/tls_cbc.c, Lucky Thirteen) on the node:
 * records of one length that differ only in padding length and in MAC and padding validity, each
 * checked between two reads of the cycle counter. tests/node/test_cbc_cycles.py wants one count
 * per record length. The node's own TLS build leaves the CBC suite out (NODE_TLS_FLAGS), but
 * tls_cbc.c does not depend on that and is called here directly (sw/proto is on the include path:
 * the Makefile's FW_APP line). The records are made with se_tls_cbc_hmac itself, its results being
 * checked against an independent HMAC on the host (tests/proto/test_tls_cbc.py); here only the
 * verdicts and the cycles matter. One JSON line per record, then {"done":<records>}. */
#include <stdio.h>
#include <string.h>

#include "node/node.h"
#include "tls_internal.h"

static uint8_t key[32], hdr[11], body[400];

/* A good record of clen bytes with pad + 1 bytes of padding (pad + 33 <= clen). */
static size_t build(size_t clen, unsigned pad)
{
    size_t plen = clen - 32 - pad - 1;

    for (size_t i = 0; i < plen; i++)
        body[i] = (uint8_t)(i * 29u + pad);
    se_tls_cbc_hmac(key, hdr, body, clen, (uint32_t)plen, body + plen);
    memset(body + plen + 32, (int)pad, pad + 1);
    return plen;
}

static void measure(size_t clen, unsigned pad, const char *kind)
{
    size_t plen = 0;
    uint64_t t0 = node_cycles();
    int ok = se_tls_cbc_check(key, hdr, body, clen, &plen);
    uint64_t t1 = node_cycles();

    printf("{\"clen\":%lu,\"pad\":%u,\"kind\":\"%s\",\"ok\":%d,\"plen\":%lu,\"cycles\":%lu}\n",
           (unsigned long)clen, pad, kind, ok, (unsigned long)plen, (unsigned long)(uint32_t)(t1 - t0));
}

int main(void)
{
    static const size_t clens[] = {64, 320};
    static const unsigned pads[] = {0, 1, 15, 31, 100, 255};
    unsigned n = 0;

    for (unsigned i = 0; i < sizeof key; i++)
        key[i] = (uint8_t)(i * 7u + 1u);
    for (unsigned i = 0; i < sizeof hdr; i++)
        hdr[i] = (uint8_t)(i + 0x40u);
    for (size_t c = 0; c < sizeof clens / sizeof clens[0]; c++) {
        size_t clen = clens[c];
        for (size_t q = 0; q < sizeof pads / sizeof pads[0]; q++) {
            unsigned pad = pads[q];
            size_t plen;
            if (pad + 33u > clen)
                continue;
            build(clen, pad);
            measure(clen, pad, "good");
            plen = build(clen, pad);
            body[plen + 5] ^= 0x04;
            measure(clen, pad, "bad_mac");
            build(clen, pad);
            body[clen - 1] = (uint8_t)(pad == 255 ? 254 : pad + 1); /* padding_length one off */
            measure(clen, pad, "bad_padding");
            n += 3;
        }
    }
    printf("{\"done\":%u}\n", n);
    return 0;
}
