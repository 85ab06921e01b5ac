/* Small helpers for the node programs that talk to the host a line at a time over the UART
 * (sw/apps/schnorr, sw/apps/ecmqv): header-only, so firmware that does not include it carries
 * none of it. */
#ifndef NODE_APP_H
#define NODE_APP_H

#include <stdio.h>
#include <string.h>

#include "node/node.h"
#include "se/backend.h"
#include "se/ct.h"
#include "se/drbg.h"
#include "se/ec.h"

/* n bytes as 2n lower-case hex digits on the UART. */
static inline void app_hex(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", b[i]);
}

static inline int app_nibble(char ch)
{
    return ch >= '0' && ch <= '9'   ? ch - '0'
           : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
           : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                    : -1;
}

/* n bytes from the 2n hex digits at s: 0, or -1 if they are not all there. */
static inline int app_unhex(const char *s, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int hi = app_nibble(s[2 * i]), lo = hi < 0 ? -1 : app_nibble(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

/* One line from the UART into buf without its newline (a longer line is cut at cap - 1 bytes):
 * its length, or -1 at the end of the input. */
static inline int app_read_line(char *buf, size_t cap)
{
    size_t n = 0;
    int ch;
    while ((ch = getchar()) != EOF && ch != '\n')
        if (n + 1 < cap)
            buf[n++] = (char)ch;
    buf[n] = 0;
    return ch == EOF && n == 0 ? -1 : (int)n;
}

/* An HMAC-DRBG on eng (a backend's `sha`), seeded with 32 bytes of entropy and a 16-byte nonce
 * from the TRNG; the seed is wiped. The simulator's TRNG model repeats with its --seed: every boot
 * of a simulated node draws the same keys, which real hardware must never do. */
static inline se_status app_rng(se_hmac_drbg_ctx *rng, const se_sha256_engine *eng)
{
    uint8_t seed[48];
    for (size_t i = 0; i < sizeof seed; i += 4) {
        uint32_t w = node_trng32();
        memcpy(seed + i, &w, 4);
    }
    se_status st = se_hmac_drbg_instantiate_on(rng, eng, seed, 32, seed + 32, 16, NULL, 0);
    se_ct_wipe(seed, sizeof seed);
    return st;
}

/* The start of a P-256 program: rng seeded (app_rng on be's SHA-256 engine), P-256 on be
 * (node_p256), a key pair (priv, pub: 65 bytes) drawn, and the line
 * {"op":"identity","<key>":hex,"status":...} printed. */
static inline se_status app_p256_identity(const se_backend *be, se_hmac_drbg_ctx *rng, se_ec_curve *c, uint8_t priv[32],
                                          uint8_t pub[65], const char *key)
{
    se_status st = app_rng(rng, be->sha);
    if (st == SE_OK)
        st = node_p256(c);
    if (st == SE_OK)
        st = se_ec_keygen(c, rng, priv, pub);
    printf("{\"op\":\"identity\",\"%s\":\"", key);
    if (st == SE_OK)
        app_hex(pub, 65);
    printf("\",\"status\":\"%s\"}\n", se_status_name(st));
    return st;
}

#endif
