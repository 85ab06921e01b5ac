/* sw/node/mem.c against the host's C library: every offset (0..7) of source and destination,
 * lengths 0..80 and some longer, memmove over every overlap of one buffer, memcmp's sign at every
 * position of the first difference. Built by tests/node/test_mem.py with mem.c's functions
 * renamed (t_memcpy, ...). Prints "N passed, M failed". */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void *t_memcpy(void *restrict d, const void *restrict s, size_t n);
void *t_memmove(void *d, const void *s, size_t n);
void *t_memset(void *d, int c, size_t n);
int t_memcmp(const void *a, const void *b, size_t n);

static unsigned passed, failed;
static void check(int ok, const char *what, size_t a, size_t b, size_t n)
{
    if (ok) {
        passed++;
    } else if (failed++ < 10) {
        printf("FAIL %s offsets %zu %zu length %zu\n", what, a, b, n);
    }
}

static int sign(int v) { return (v > 0) - (v < 0); }

int main(void)
{
    static uint8_t src[600], want[600], got[600];
    static const size_t lens[] = {0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 80, 255, 513};
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)(i * 37 + 11);
    for (size_t so = 0; so < 8; so++)
        for (size_t dof = 0; dof < 8; dof++)
            for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
                size_t n = lens[k];
                memset(want, 0xa5, sizeof want);
                memset(got, 0xa5, sizeof got);
                memcpy(want + dof, src + so, n);
                check(t_memcpy(got + dof, src + so, n) == got + dof && memcmp(got, want, sizeof got) == 0,
                      "memcpy", so, dof, n);
                memset(want, 0x5a, sizeof want);
                memset(got, 0x5a, sizeof got);
                memset(want + dof, (int)(so * 31), n);
                check(t_memset(got + dof, (int)(so * 31), n) == got + dof && memcmp(got, want, sizeof got) == 0,
                      "memset", so, dof, n);
                /* memmove inside one buffer: source and destination overlap either way */
                memcpy(want, src, sizeof want);
                memcpy(got, src, sizeof got);
                memmove(want + dof + 40, want + so + 40 + (k % 3) * 2, n);
                t_memmove(got + dof + 40, got + so + 40 + (k % 3) * 2, n);
                check(memcmp(got, want, sizeof got) == 0, "memmove up", so, dof, n);
                memcpy(want, src, sizeof want);
                memcpy(got, src, sizeof got);
                memmove(want + so + 40 + (k % 3) * 2, want + dof + 40, n);
                t_memmove(got + so + 40 + (k % 3) * 2, got + dof + 40, n);
                check(memcmp(got, want, sizeof got) == 0, "memmove down", so, dof, n);
                /* memcmp: equal, then a difference at every position, both ways */
                memcpy(got + dof, src + so, n);
                check(t_memcmp(got + dof, src + so, n) == 0, "memcmp equal", so, dof, n);
                for (size_t d = 0; d < n && d < 70; d++) {
                    got[dof + d] ^= 0x80;
                    check(sign(t_memcmp(got + dof, src + so, n)) == sign(memcmp(got + dof, src + so, n)) &&
                              sign(t_memcmp(src + so, got + dof, n)) == sign(memcmp(src + so, got + dof, n)),
                          "memcmp order", so, dof, d);
                    got[dof + d] ^= 0x80;
                }
            }
    printf("%u passed, %u failed\n", passed, failed);
    return failed != 0;
}
