/* Fixed-size big integers and modular arithmetic for odd moduli up to 256 bits. */
#ifndef SE_BN_H
#define SE_BN_H

#include <stddef.h>
#include <stdint.h>

#include "se/status.h"

/* 32-bit limbs (the node is rv32), least significant first. One spare limb lets values of
 * a 256-bit modulus context hold sums before reduction and 257-bit scalars (k + n). */
#define SE_BN_LIMBS 9
#define SE_BN_MAX_BITS 256
#define SE_BN_MAX_BYTES 32

typedef struct {
    uint32_t v[SE_BN_LIMBS];
} se_bn;

/* A modulus with its Montgomery constants. Operations on it take time that depends on the
 * modulus width (nlimbs) only, never on operand values. */
typedef struct {
    se_bn m;
    se_bn rr;       /* R^2 mod m, R = 2^(32 * nlimbs) */
    se_bn one;      /* R mod m: 1 in the Montgomery domain */
    uint32_t m0inv; /* -m^-1 mod 2^32 */
    unsigned nlimbs;
    unsigned bits;
    unsigned bytes;
} se_mod;

/* The modular operations by name, for the crypto API of se/backend.h and the engine drivers. */
typedef enum { SE_MOD_MUL = 0, SE_MOD_ADD, SE_MOD_SUB, SE_MOD_INV } se_mod_op;

/* m odd, 3 <= m < 2^256, given big-endian (leading zero bytes allowed); else SE_ERR_BAD_PARAMS.
 * se_mod_init makes the whole modulus; se_mod_set only m and its size (rr, one and m0inv zero),
 * enough for se_mod_add, se_mod_sub and se_mod_reduce but not for the Montgomery operations
 * (se_mod_mul, se_mod_to_mont, se_mod_from_mont, se_mod_exp_mont, se_mod_inv): for a curve
 * whose arithmetic is all on the engine (se_ec_curve_engine), which needs no R^2 mod m. */
se_status se_mod_init(se_mod *mod, const uint8_t *m, size_t len);
se_status se_mod_set(se_mod *mod, const uint8_t *m, size_t len);

/* Big-endian bytes <-> bn. from_bytes: SE_ERR_BAD_LENGTH if the value needs more than
 * SE_BN_MAX_BYTES bytes (leading zeros are accepted). to_bytes writes exactly len bytes. */
se_status se_bn_from_bytes(se_bn *r, const uint8_t *in, size_t len);
void se_bn_to_bytes(uint8_t *out, size_t len, const se_bn *a);

/* Constant-time comparisons over all limbs. */
uint32_t se_bn_is_zero(const se_bn *a);               /* 1 or 0 */
uint32_t se_bn_eq(const se_bn *a, const se_bn *b);    /* 1 or 0 */
uint32_t se_bn_lt(const se_bn *a, const se_bn *b);    /* 1 if a < b */
void se_bn_cmov(se_bn *r, const se_bn *a, uint32_t bit); /* r = a if bit */
void se_bn_cswap(se_bn *a, se_bn *b, uint32_t bit);
uint32_t se_bn_bit(const se_bn *a, unsigned i);         /* bit i (i public) */
uint32_t se_bn_add(se_bn *r, const se_bn *a, const se_bn *b); /* carry out */
uint32_t se_bn_sub(se_bn *r, const se_bn *a, const se_bn *b); /* borrow out */

/* Modular arithmetic, inputs reduced (< m). Montgomery-domain values are a*R mod m. */
void se_mod_add(const se_mod *mod, se_bn *r, const se_bn *a, const se_bn *b);
void se_mod_sub(const se_mod *mod, se_bn *r, const se_bn *a, const se_bn *b);
void se_mod_mul(const se_mod *mod, se_bn *r, const se_bn *a, const se_bn *b); /* a*b/R mod m */
void se_mod_to_mont(const se_mod *mod, se_bn *r, const se_bn *a);
void se_mod_from_mont(const se_mod *mod, se_bn *r, const se_bn *a);
/* r = a mod m for any a < 2^(32*SE_BN_LIMBS) (e.g. a hash value or a coordinate mod n). */
void se_mod_reduce(const se_mod *mod, se_bn *r, const se_bn *a);
/* r = a^e (Montgomery domain in and out); e public. */
void se_mod_exp_mont(const se_mod *mod, se_bn *r, const se_bn *a, const se_bn *e);
/* r = a^-1 mod m (plain domain), constant time for any odd m; SE_ERR_NOT_INVERTIBLE when
 * gcd(a, m) != 1 (r is then 0). */
se_status se_mod_inv(const se_mod *mod, se_bn *r, const se_bn *a);

#endif
