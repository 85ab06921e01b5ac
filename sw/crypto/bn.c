/* Big integers and Montgomery arithmetic for odd moduli up to 256 bits, constant time in the
 * operand values: loops run over the modulus' limb count, conditions become masks. */
#include <string.h>

#include "se/bn.h"
#include "se/ct.h"

/* Both directions take four bytes a turn where they can: on a CPU without a fast byte path (the
 * node's) a loop turn per byte costs more than the bytes. */
se_status se_bn_from_bytes(se_bn *r, const uint8_t *in, size_t len)
{
    size_t i = 0; /* bytes taken, from the least significant end */
    memset(r, 0, sizeof *r);
    for (; i + 4 <= len && i < SE_BN_MAX_BYTES; i += 4) {
        const uint8_t *q = in + len - 4 - i;
        r->v[i / 4] = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
    }
    for (; i < len; i++) {
        size_t pos = len - 1 - i;
        if (i >= SE_BN_MAX_BYTES) {
            if (in[pos] != 0)
                return SE_ERR_BAD_LENGTH;
            continue;
        }
        r->v[i / 4] |= (uint32_t)in[pos] << (8 * (i % 4));
    }
    return SE_OK;
}

void se_bn_to_bytes(uint8_t *out, size_t len, const se_bn *a)
{
    size_t i = 0; /* bytes written, from the least significant end */
    for (; i + 4 <= len && i < 4 * SE_BN_LIMBS; i += 4) {
        uint8_t *q = out + len - 4 - i;
        uint32_t v = a->v[i / 4];
        q[0] = (uint8_t)(v >> 24);
        q[1] = (uint8_t)(v >> 16);
        q[2] = (uint8_t)(v >> 8);
        q[3] = (uint8_t)v;
    }
    for (; i < len; i++)
        out[len - 1 - i] = (uint8_t)(i < 4 * SE_BN_LIMBS ? a->v[i / 4] >> (8 * (i % 4)) : 0u);
}

uint32_t se_bn_is_zero(const se_bn *a)
{
    uint32_t acc = 0;
    for (unsigned i = 0; i < SE_BN_LIMBS; i++)
        acc |= a->v[i];
    return 1u & ~se_ct_mask_nz32(acc);
}

uint32_t se_bn_eq(const se_bn *a, const se_bn *b)
{
    uint32_t acc = 0;
    for (unsigned i = 0; i < SE_BN_LIMBS; i++)
        acc |= a->v[i] ^ b->v[i];
    return 1u & ~se_ct_mask_nz32(acc);
}

uint32_t se_bn_sub(se_bn *r, const se_bn *a, const se_bn *b)
{
    uint32_t borrow = 0;
    for (unsigned i = 0; i < SE_BN_LIMBS; i++) {
        uint64_t d = (uint64_t)a->v[i] - b->v[i] - borrow;
        r->v[i] = (uint32_t)d;
        borrow = (uint32_t)(d >> 63);
    }
    return borrow;
}

uint32_t se_bn_add(se_bn *r, const se_bn *a, const se_bn *b)
{
    uint32_t carry = 0;
    for (unsigned i = 0; i < SE_BN_LIMBS; i++) {
        uint64_t s = (uint64_t)a->v[i] + b->v[i] + carry;
        r->v[i] = (uint32_t)s;
        carry = (uint32_t)(s >> 32);
    }
    return carry;
}

uint32_t se_bn_lt(const se_bn *a, const se_bn *b)
{
    se_bn t;
    return se_bn_sub(&t, a, b);
}

void se_bn_cmov(se_bn *r, const se_bn *a, uint32_t bit)
{
    uint32_t m = (uint32_t)0 - bit;
    for (unsigned i = 0; i < SE_BN_LIMBS; i++)
        r->v[i] ^= m & (r->v[i] ^ a->v[i]);
}

void se_bn_cswap(se_bn *a, se_bn *b, uint32_t bit)
{
    uint32_t m = (uint32_t)0 - bit;
    for (unsigned i = 0; i < SE_BN_LIMBS; i++) {
        uint32_t t = m & (a->v[i] ^ b->v[i]);
        a->v[i] ^= t;
        b->v[i] ^= t;
    }
}

uint32_t se_bn_bit(const se_bn *a, unsigned i)
{
    return (a->v[i / 32] >> (i % 32)) & 1u;
}

/* r = a + b mod m for a, b < m: add, subtract m, keep whichever is in range. */
void se_mod_add(const se_mod *mod, se_bn *r, const se_bn *a, const se_bn *b)
{
    se_bn s, t;
    uint32_t carry = se_bn_add(&s, a, b);
    uint32_t borrow = se_bn_sub(&t, &s, &mod->m);
    /* s >= m exactly when the subtraction did not borrow (or the addition carried) */
    se_bn_cmov(&s, &t, carry | (1u ^ borrow));
    *r = s;
}

void se_mod_sub(const se_mod *mod, se_bn *r, const se_bn *a, const se_bn *b)
{
    se_bn d, t;
    uint32_t borrow = se_bn_sub(&d, a, b);
    se_bn_add(&t, &d, &mod->m);
    se_bn_cmov(&d, &t, borrow);
    *r = d;
}

/* CIOS Montgomery multiplication over the modulus' limbs, one final masked subtraction. */
void se_mod_mul(const se_mod *mod, se_bn *r, const se_bn *a, const se_bn *b)
{
    uint32_t t[SE_BN_LIMBS + 2] = {0};
    const unsigned n = mod->nlimbs;
    const uint32_t *m = mod->m.v;

    for (unsigned i = 0; i < n; i++) {
        uint64_t c = 0;
        for (unsigned j = 0; j < n; j++) {
            c += (uint64_t)t[j] + (uint64_t)a->v[j] * b->v[i];
            t[j] = (uint32_t)c;
            c >>= 32;
        }
        c += t[n];
        t[n] = (uint32_t)c;
        t[n + 1] = (uint32_t)(c >> 32);
        uint32_t q = t[0] * mod->m0inv;
        c = ((uint64_t)t[0] + (uint64_t)q * m[0]) >> 32;
        for (unsigned j = 1; j < n; j++) {
            c += (uint64_t)t[j] + (uint64_t)q * m[j];
            t[j - 1] = (uint32_t)c;
            c >>= 32;
        }
        c += t[n];
        t[n - 1] = (uint32_t)c;
        t[n] = t[n + 1] + (uint32_t)(c >> 32);
    }
    /* t < 2m: subtract m unless that borrows out of the (n+1)-limb value. */
    se_bn res, sub;
    memset(&res, 0, sizeof res);
    memcpy(res.v, t, (n + 1) * sizeof(uint32_t));
    uint32_t borrow = se_bn_sub(&sub, &res, &mod->m);
    se_bn_cmov(&res, &sub, 1u ^ borrow);
    *r = res;
    se_ct_wipe(t, sizeof t);
}

void se_mod_to_mont(const se_mod *mod, se_bn *r, const se_bn *a)
{
    se_mod_mul(mod, r, a, &mod->rr);
}

void se_mod_from_mont(const se_mod *mod, se_bn *r, const se_bn *a)
{
    se_bn one;
    memset(&one, 0, sizeof one);
    one.v[0] = 1;
    se_mod_mul(mod, r, a, &one);
}

/* Shift-and-subtract reduction over every bit of a: 32 * SE_BN_LIMBS fixed steps. */
void se_mod_reduce(const se_mod *mod, se_bn *r, const se_bn *a)
{
    se_bn acc, t;
    memset(&acc, 0, sizeof acc);
    for (unsigned i = 32 * SE_BN_LIMBS; i-- > 0;) {
        /* acc = 2 * acc + bit, then one masked subtraction keeps acc < m */
        uint32_t carry = se_bn_add(&acc, &acc, &acc);
        acc.v[0] |= se_bn_bit(a, i);
        uint32_t borrow = se_bn_sub(&t, &acc, &mod->m);
        se_bn_cmov(&acc, &t, carry | (1u ^ borrow));
    }
    *r = acc;
}

se_status se_mod_set(se_mod *mod, const uint8_t *m, size_t len)
{
    se_bn three;
    memset(mod, 0, sizeof *mod);
    memset(&three, 0, sizeof three);
    three.v[0] = 3;
    if (se_bn_from_bytes(&mod->m, m, len) != SE_OK || mod->m.v[SE_BN_LIMBS - 1] != 0 ||
        (mod->m.v[0] & 1u) == 0 || se_bn_lt(&mod->m, &three))
        return SE_ERR_BAD_PARAMS;
    /* The modulus is public: its size may steer loops. */
    unsigned bits = 32 * SE_BN_LIMBS;
    while (bits > 0 && !se_bn_bit(&mod->m, bits - 1))
        bits--;
    mod->bits = bits;
    mod->bytes = (bits + 7) / 8;
    mod->nlimbs = (bits + 31) / 32;
    return SE_OK;
}

se_status se_mod_init(se_mod *mod, const uint8_t *m, size_t len)
{
    se_status st = se_mod_set(mod, m, len);
    if (st != SE_OK)
        return st;
    const unsigned bits = mod->bits;
    /* m0inv = -m^-1 mod 2^32 by Newton iteration: x = x * (2 - m*x) doubles the good bits. */
    uint32_t x = 1;
    for (unsigned i = 0; i < 5; i++)
        x *= 2u - mod->m.v[0] * x;
    mod->m0inv = (uint32_t)0 - x;
    /* R mod m (R = 2^(32 nlimbs)): 2^(bits-1), below m (m is odd, not a power of two), doubled up
     * to R. Then R^2 mod m, which is 2^s R for s = 32 nlimbs = o 2^k (o odd): o doublings give
     * 2^o R, and each of k Montgomery squarings takes 2^e R to 2^(2e) R. P-256: 1 + 1 doublings
     * and 8 products, where 2 x 256 doublings were. */
    se_bn r;
    memset(&r, 0, sizeof r);
    r.v[(bits - 1) / 32] = 1u << ((bits - 1) % 32);
    for (unsigned i = bits - 1; i < 32 * mod->nlimbs; i++)
        se_mod_add(mod, &r, &r, &r);
    mod->one = r;
    unsigned odd = 32 * mod->nlimbs, squarings = 0;
    for (; (odd & 1u) == 0; odd >>= 1)
        squarings++;
    for (unsigned i = 0; i < odd; i++)
        se_mod_add(mod, &r, &r, &r);
    for (unsigned i = 0; i < squarings; i++)
        se_mod_mul(mod, &r, &r, &r);
    mod->rr = r;
    return SE_OK;
}

void se_mod_exp_mont(const se_mod *mod, se_bn *r, const se_bn *a, const se_bn *e)
{
    se_bn acc = mod->one, t;
    for (unsigned i = mod->bits; i-- > 0;) {
        se_mod_mul(mod, &acc, &acc, &acc);
        se_mod_mul(mod, &t, &acc, a);
        se_bn_cmov(&acc, &t, se_bn_bit(e, i)); /* e is public, but a select costs nothing here */
    }
    *r = acc;
}

/* Halving modulo odd m: (u + m*odd(u)) / 2, with the carry kept in the top limb. */
static void mod_half(const se_mod *mod, se_bn *u)
{
    se_bn t;
    uint32_t odd = u->v[0] & 1u;
    uint32_t carry = se_bn_add(&t, u, &mod->m);
    se_bn_cmov(u, &t, odd);
    carry &= odd;
    for (unsigned i = 0; i < SE_BN_LIMBS - 1; i++)
        u->v[i] = (u->v[i] >> 1) | (u->v[i + 1] << 31);
    u->v[SE_BN_LIMBS - 1] = (u->v[SE_BN_LIMBS - 1] >> 1) | (carry << 31);
}

/* Binary extended Euclid with a fixed 2*bits iterations and masked steps (after Möller's
 * constant-time variant): invariants a = u*x and b = v*x (mod m); a halves every step, so
 * after 2*bits steps a = 0 and b = gcd(x, m), v = x^-1 when b = 1. */
se_status se_mod_inv(const se_mod *mod, se_bn *r, const se_bn *x)
{
    se_bn a = *x, b = mod->m, u, v, t;
    memset(&u, 0, sizeof u);
    memset(&v, 0, sizeof v);
    u.v[0] = 1;
    for (unsigned i = 0; i < 2 * mod->bits; i++) {
        uint32_t odd = a.v[0] & 1u;
        /* if a is odd: when a < b swap (a, u) with (b, v); then a -= b, u -= v (mod m) */
        uint32_t swap = odd & se_bn_lt(&a, &b);
        se_bn_cswap(&a, &b, swap);
        se_bn_cswap(&u, &v, swap);
        se_bn_sub(&t, &a, &b);
        se_bn_cmov(&a, &t, odd);
        se_mod_sub(mod, &t, &u, &v);
        se_bn_cmov(&u, &t, odd);
        /* a is even now */
        for (unsigned k = 0; k < SE_BN_LIMBS - 1; k++)
            a.v[k] = (a.v[k] >> 1) | (a.v[k + 1] << 31);
        a.v[SE_BN_LIMBS - 1] >>= 1;
        mod_half(mod, &u);
    }
    se_bn one;
    memset(&one, 0, sizeof one);
    one.v[0] = 1;
    uint32_t ok = se_bn_eq(&b, &one);
    memset(r, 0, sizeof *r);
    se_bn_cmov(r, &v, ok);
    se_ct_wipe(&a, sizeof a);
    se_ct_wipe(&u, sizeof u);
    se_ct_wipe(&v, sizeof v);
    return ok ? SE_OK : SE_ERR_NOT_INVERTIBLE;
}
