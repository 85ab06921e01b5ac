/* X25519 (RFC 7748): the Montgomery ladder on Curve25519 over the generic Montgomery
 * arithmetic of se/bn.h, 255 fixed steps with conditional swaps. */
#include <string.h>

#include "se/bn.h"
#include "se/ct.h"
#include "se/x25519.h"

static const uint8_t p25519[32] = {
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xed,
};

/* Little-endian 32 bytes -> bn. */
static void load_le(se_bn *r, const uint8_t in[32])
{
    uint8_t be[32];
    for (unsigned i = 0; i < 32; i++)
        be[i] = in[31 - i];
    se_bn_from_bytes(r, be, 32);
}

se_status se_x25519(uint8_t out[SE_X25519_BYTES], const uint8_t scalar[SE_X25519_BYTES],
                    const uint8_t u[SE_X25519_BYTES])
{
    se_mod m;
    se_bn k, x1, x2, z2, x3, z3, a, aa, b, bb, e, c, d, da, cb, t, a24, exp, two;
    uint8_t ks[32], ub[32], be[32];

    se_mod_init(&m, p25519, sizeof p25519);
    memcpy(ks, scalar, 32);
    ks[0] &= 248;
    ks[31] &= 127;
    ks[31] |= 64;
    load_le(&k, ks);
    memcpy(ub, u, 32);
    ub[31] &= 127;
    load_le(&t, ub);
    se_mod_reduce(&m, &t, &t); /* non-canonical u (>= p) is accepted and reduced, per RFC 7748 */
    se_mod_to_mont(&m, &x1, &t);
    x2 = m.one;
    memset(&z2, 0, sizeof z2);
    x3 = x1;
    z3 = m.one;
    memset(&a24, 0, sizeof a24);
    a24.v[0] = 121665;
    se_mod_to_mont(&m, &a24, &a24);
    uint32_t swap = 0;
    for (unsigned i = 255; i-- > 0;) {
        uint32_t bit = se_bn_bit(&k, i);
        swap ^= bit;
        se_bn_cswap(&x2, &x3, swap);
        se_bn_cswap(&z2, &z3, swap);
        swap = bit;
        se_mod_add(&m, &a, &x2, &z2);
        se_mod_mul(&m, &aa, &a, &a);
        se_mod_sub(&m, &b, &x2, &z2);
        se_mod_mul(&m, &bb, &b, &b);
        se_mod_sub(&m, &e, &aa, &bb);
        se_mod_add(&m, &c, &x3, &z3);
        se_mod_sub(&m, &d, &x3, &z3);
        se_mod_mul(&m, &da, &d, &a);
        se_mod_mul(&m, &cb, &c, &b);
        se_mod_add(&m, &t, &da, &cb);
        se_mod_mul(&m, &x3, &t, &t);
        se_mod_sub(&m, &t, &da, &cb);
        se_mod_mul(&m, &t, &t, &t);
        se_mod_mul(&m, &z3, &x1, &t);
        se_mod_mul(&m, &x2, &aa, &bb);
        se_mod_mul(&m, &t, &a24, &e);
        se_mod_add(&m, &t, &aa, &t);
        se_mod_mul(&m, &z2, &e, &t);
    }
    se_bn_cswap(&x2, &x3, swap);
    se_bn_cswap(&z2, &z3, swap);
    /* x2 / z2 with z2^(p-2) (0 stays 0) */
    memset(&two, 0, sizeof two);
    two.v[0] = 2;
    se_bn_sub(&exp, &m.m, &two);
    se_mod_exp_mont(&m, &t, &z2, &exp);
    se_mod_mul(&m, &t, &x2, &t);
    se_mod_from_mont(&m, &t, &t);
    se_bn_to_bytes(be, 32, &t);
    for (unsigned i = 0; i < 32; i++)
        out[i] = be[31 - i];
    uint32_t zero = se_bn_is_zero(&t);
    se_ct_wipe(&k, sizeof k);
    se_ct_wipe(ks, sizeof ks);
    se_ct_wipe(&x2, sizeof x2);
    se_ct_wipe(&x3, sizeof x3);
    SE_CT_DECLASSIFY(&zero, sizeof zero);
    return zero ? SE_ERR_INFINITY : SE_OK;
}

se_status se_x25519_base(uint8_t out[SE_X25519_BYTES], const uint8_t scalar[SE_X25519_BYTES])
{
    static const uint8_t nine[SE_X25519_BYTES] = {9};
    return se_x25519(out, scalar, nine);
}
