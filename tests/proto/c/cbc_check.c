/* The constant-time CBC record check (sw/proto/tls_cbc.c), line by line from stdin, for
 * tests/proto/test_tls_cbc.py, which holds the answers against the `cryptography` package:
 *     hmac <key> <hdr> <p> <plen>  ->  <HMAC-SHA256(key, hdr || plen || p[0, plen)), hex>
 *     check <key> <hdr> <p>        ->  "1 <plen>" (padding and MAC good) or "0"
 * (key 32 bytes, hdr 11 bytes, p the decrypted record body after the IV, all hex). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tls_internal.h"

static uint8_t p[20000];
static char line[2 * sizeof p + 512];

/* Hex word at *s into out (at most cap bytes); the byte count, or -1. */
static long unhex(char **s, uint8_t *out, size_t cap)
{
    char *w = strtok_r(NULL, " \n", s);
    size_t n;

    if (w == NULL || strlen(w) % 2 != 0 || (n = strlen(w) / 2) > cap)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(w + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (uint8_t)v;
    }
    return (long)n;
}

int main(void)
{
    while (fgets(line, sizeof line, stdin) != NULL) {
        char *s = NULL, *op = strtok_r(line, " \n", &s), *w;
        uint8_t key[32], hdr[11], mac[32];
        long n;

        if (op == NULL || unhex(&s, key, sizeof key) != 32 || unhex(&s, hdr, sizeof hdr) != 11 ||
            (n = unhex(&s, p, sizeof p)) < 0) {
            fprintf(stderr, "bad line\n");
            return 2;
        }
        if (strcmp(op, "hmac") == 0 && (w = strtok_r(NULL, " \n", &s)) != NULL) {
            se_tls_cbc_hmac(key, hdr, p, (size_t)n, (uint32_t)strtoul(w, NULL, 10), mac);
            for (unsigned i = 0; i < sizeof mac; i++)
                printf("%02x", mac[i]);
            printf("\n");
        } else if (strcmp(op, "check") == 0) {
            size_t plen;
            if (se_tls_cbc_check(key, hdr, p, (size_t)n, &plen))
                printf("1 %zu\n", plen);
            else
                printf("0\n");
        } else {
            fprintf(stderr, "bad op %s\n", op);
            return 2;
        }
    }
    return 0;
}
