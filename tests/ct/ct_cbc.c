/* ctgrind harness: the CBC-SHA256 record check (sw/proto/tls_cbc.c, built into this harness,
 * Lucky Thirteen) must not branch or index on the decrypted record (plaintext, MAC, padding) or
 * the MAC key, all marked secret: records that differ only in padding length and in MAC and
 * padding validity, at record lengths around the SHA-256 block boundaries and the 32 + 256 byte
 * window. Only the verdict, and an accepted record's length, come out public (declassified by
 * se_tls_cbc_check). Each verdict is also checked against what the record was built to be. */
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "se/sha256.h"
#include "tls_internal.h"

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))

static uint8_t key[32], hdr[11], body[1024];

/* A good record of clen bytes with pad + 1 bytes of padding (pad + 33 <= clen). */
static size_t build(size_t clen, unsigned pad, unsigned seed)
{
    size_t plen = clen - 32 - pad - 1;
    uint8_t m[13 + sizeof body];

    for (size_t i = 0; i < plen; i++)
        body[i] = (uint8_t)(i * 31u + seed);
    memcpy(m, hdr, 11);
    m[11] = (uint8_t)(plen >> 8);
    m[12] = (uint8_t)plen;
    memcpy(m + 13, body, plen);
    se_hmac_sha256(key, sizeof key, m, 13 + plen, body + plen);
    memset(body + plen + 32, (int)pad, pad + 1);
    return plen;
}

/* Runs the check with everything secret; 0 when the verdict is the expected one. */
static int run(size_t clen, int want, size_t want_len)
{
    size_t plen;
    int ok;

    SECRET(key, sizeof key);
    SECRET(body, clen);
    ok = se_tls_cbc_check(key, hdr, body, clen, &plen);
    VALGRIND_MAKE_MEM_DEFINED(key, sizeof key); /* (the next record is built in the clear) */
    VALGRIND_MAKE_MEM_DEFINED(body, clen);
    return ok != want || (ok && plen != want_len);
}

int main(void)
{
    static const size_t clens[] = {48, 64, 80, 128, 288, 304, 320, 400, 1024};
    static const unsigned pads[] = {0, 1, 15, 16, 31, 63, 64, 127, 200, 254, 255};
    int bad = 0;

    for (unsigned i = 0; i < sizeof key; i++)
        key[i] = (uint8_t)(i * 7u + 1u);
    for (unsigned i = 0; i < sizeof hdr; i++)
        hdr[i] = (uint8_t)(i + 0x40u);
    for (size_t c = 0; c < sizeof clens / sizeof clens[0]; c++) {
        size_t clen = clens[c];
        unsigned runs = 0, goods = 0;
        for (size_t q = 0; q < sizeof pads / sizeof pads[0]; q++) {
            unsigned pad = pads[q];
            size_t plen;
            if (pad + 33u > clen)
                continue;
            /* good */
            plen = build(clen, pad, pad);
            bad |= run(clen, 1, plen);
            /* a MAC byte flipped */
            plen = build(clen, pad, pad);
            body[plen + 7] ^= 0x10;
            bad |= run(clen, 0, 0);
            /* a padding byte wrong */
            if (pad > 0) {
                plen = build(clen, pad, pad);
                body[clen - 2] ^= 0x01;
                bad |= run(clen, 0, 0);
            }
            /* padding_length one off (the MAC moves) */
            build(clen, pad, pad);
            body[clen - 1] = (uint8_t)(pad == 255 ? 254 : pad + 1);
            bad |= run(clen, 0, 0);
            runs += pad > 0 ? 4u : 3u;
            goods++;
        }
        if (clen - 32 < 256) { /* padding_length too long for the record */
            build(clen, 0, 0);
            body[clen - 1] = (uint8_t)(clen - 32);
            bad |= run(clen, 0, 0);
            runs++;
        }
        printf("cbc clen=%zu: %u records (%u good), verdicts %s\n", clen, runs, goods,
               bad ? "WRONG" : "as built");
    }
    return bad;
}
