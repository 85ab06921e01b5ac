/* memcpy, memmove, memset and memcmp for the node, a word at a time where both pointers allow
 * (memmove's overlapping case, rare here, a byte at a time).
 * picolibc's size-optimised rv32 build moves one byte per loop turn (six instructions a byte),
 * and the DTLS stack, the X.509 parser and the drivers move kilobytes per handshake: these are
 * linked instead (an object file wins over the libc archive's member). Same contracts as the C
 * standard's; memcmp is not constant time (secrets are compared with se_ct_equal). The
 * attribute keeps GCC from turning the loops back into calls to these very functions. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

typedef uint32_t __attribute__((may_alias)) word;

static int aligned2(const void *a, const void *b)
{
    return (((uintptr_t)a | (uintptr_t)b) & 3u) == 0;
}

/* Equal modulo 4: a few single bytes bring both to a word boundary at once. */
static int coaligned(const void *a, const void *b)
{
    return (((uintptr_t)a ^ (uintptr_t)b) & 3u) == 0;
}

/* memcpy: front to back, a word stored per loop turn. When dst and src agree modulo 4, after up
 * to three single bytes, a word loaded per word stored; otherwise dst is aligned first and each
 * word stored is put together from the two aligned source words it straddles (little-endian: the
 * low bytes from the lower word). Those loads stay inside aligned words that hold source bytes,
 * so they read nothing a byte-wise copy could not reach. */
NO_LIBCALL void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    if (n >= 8) {
        for (; (uintptr_t)d & 3u; n--)
            *d++ = *s++;
        if (coaligned(d, s)) {
            for (; n >= 16; n -= 16, d += 16, s += 16) {
                word a = ((const word *)s)[0], b = ((const word *)s)[1];
                word c = ((const word *)s)[2], e = ((const word *)s)[3];
                ((word *)d)[0] = a;
                ((word *)d)[1] = b;
                ((word *)d)[2] = c;
                ((word *)d)[3] = e;
            }
            for (; n >= 4; n -= 4, d += 4, s += 4)
                *(word *)d = *(const word *)s;
        } else {
            const unsigned lo_shift = 8u * ((uintptr_t)s & 3u), hi_shift = 32u - lo_shift;
            const word *w = (const word *)(s - ((uintptr_t)s & 3u));
            word lo = *w++;
            for (; n >= 4; n -= 4, d += 4, s += 4) {
                word hi = *w++;
                *(word *)d = lo >> lo_shift | hi << hi_shift;
                lo = hi;
            }
        }
    }
    while (n--)
        *d++ = *s++;
    return dst;
}

/* Regions apart (the usual case here: the DTLS stack moves overlapping bytes only when a message
 * is reassembled within the buffer it arrived in) go to memcpy; overlapping ones a byte at a time,
 * front to back when dst is below src, back to front when above. */
NO_LIBCALL void *memmove(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    const uintptr_t a = (uintptr_t)dst, b = (uintptr_t)src;
    if (a + n <= b || b + n <= a)
        return memcpy(dst, src, n);
    if (a < b) {
        while (n--)
            *d++ = *s++;
    } else {
        while (n--)
            d[n] = s[n];
    }
    return dst;
}

NO_LIBCALL void *memset(void *dst, int c, size_t n)
{
    uint8_t *d = dst;
    for (; n > 0 && ((uintptr_t)d & 3u); n--)
        *d++ = (uint8_t)c;
    word w = 0x01010101u * (uint8_t)c;
    for (; n >= 16; n -= 16, d += 16) {
        ((word *)d)[0] = w;
        ((word *)d)[1] = w;
        ((word *)d)[2] = w;
        ((word *)d)[3] = w;
    }
    for (; n >= 4; n -= 4, d += 4)
        *(word *)d = w;
    while (n--)
        *d++ = (uint8_t)c;
    return dst;
}

NO_LIBCALL int memcmp(const void *a, const void *b, size_t n)
{
    const uint8_t *p = a, *q = b;
    if (aligned2(p, q))
        for (; n >= 4 && *(const word *)p == *(const word *)q; n -= 4, p += 4, q += 4)
            ;
    for (; n > 0; n--, p++, q++)
        if (*p != *q)
            return *p - *q;
    return 0;
}
