/* Constant-time helpers: the one place for select, compare and conditional copy.
 * Nothing here branches on or indexes memory by its (secret) arguments. */
#ifndef SE_CT_H
#define SE_CT_H

#include <stddef.h>
#include <stdint.h>

/* Marks a value derived from secrets as public from here on (a verdict such as "the key is
 * out of range", or an output such as a signature). Under `make ct` the library is built with
 * SE_CTGRIND so valgrind stops tracking it there; otherwise it compiles to nothing. */
#ifdef SE_CTGRIND
#include <valgrind/memcheck.h>
#define SE_CT_DECLASSIFY(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#else
#define SE_CT_DECLASSIFY(p, n) ((void)(p), (void)(n))
#endif

/* All-ones if x != 0, else 0. */
static inline uint32_t se_ct_mask_nz32(uint32_t x)
{
    return (uint32_t)0 - ((x | ((uint32_t)0 - x)) >> 31);
}

/* All-ones if a == b, else 0. */
static inline uint32_t se_ct_eq32(uint32_t a, uint32_t b)
{
    return ~se_ct_mask_nz32(a ^ b);
}

/* a if mask is all-ones, b if mask is 0. */
static inline uint32_t se_ct_select32(uint32_t mask, uint32_t a, uint32_t b)
{
    return b ^ (mask & (a ^ b));
}

/* All-ones if a < b (unsigned), else 0. */
static inline uint32_t se_ct_lt32(uint32_t a, uint32_t b)
{
    return (uint32_t)0 - (uint32_t)(((uint64_t)a - (uint64_t)b) >> 63);
}

/* 1 if the buffers are equal, 0 otherwise; time depends on len only. */
static inline int se_ct_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
    uint32_t diff = 0;
    for (size_t i = 0; i < len; i++)
        diff |= (uint32_t)(a[i] ^ b[i]);
    return (int)(1u & ~(se_ct_mask_nz32(diff)));
}

/* dst = src where mask is all-ones; dst unchanged where mask is 0. */
static inline void se_ct_cmov(uint8_t *dst, const uint8_t *src, size_t len, uint32_t mask)
{
    uint8_t m = (uint8_t)mask;
    for (size_t i = 0; i < len; i++)
        dst[i] ^= (uint8_t)(m & (dst[i] ^ src[i]));
}

/* Overwrite a secret buffer in a way the compiler will not drop: volatile stores, a word at a time
 * when the buffer is word-aligned and a whole number of words (contexts, keys), else bytes. */
typedef uint32_t __attribute__((may_alias)) se_ct_word; /* may overwrite an object of any type */

static inline void se_ct_wipe(void *p, size_t len)
{
    if ((((uintptr_t)p | len) & 3u) == 0) {
        volatile se_ct_word *w = (volatile se_ct_word *)p;
        for (; len > 0; len -= 4)
            *w++ = 0;
        return;
    }
    volatile uint8_t *v = (volatile uint8_t *)p;
    while (len--)
        *v++ = 0;
}

#endif
