/* Helpers shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c). */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* The harnesses' framing of several messages in one input: a 2-byte big-endian length, then that
 * many bytes (fewer if the input ends first). */
typedef struct {
    const uint8_t *p;
    size_t left;
} fz_reader;

/* The next chunk into *buf / *len; 0 when the input is used up. */
static inline int fz_chunk(fz_reader *r, const uint8_t **buf, size_t *len)
{
    if (r->left < 2)
        return 0;
    size_t n = (size_t)r->p[0] << 8 | r->p[1];
    r->p += 2;
    r->left -= 2;
    if (n > r->left)
        n = r->left;
    *buf = r->p;
    *len = n;
    r->p += n;
    r->left -= n;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
