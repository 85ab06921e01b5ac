/* ctgrind harness: private scalars marked secret for valgrind through public-key derivation,
 * ECDH, ECDSA signing (RFC 6979) on every built-in curve, and X25519. Any branch or memory
 * index that depends on a scalar is reported by memcheck as use of undefined data. */
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "se/ec.h"
#include "se/sha256.h"
#include "se/x25519.h"

static void print_hex(const char *label, const uint8_t *p, size_t n)
{
    VALGRIND_MAKE_MEM_DEFINED(p, n);
    printf("%s ", label);
    for (size_t i = 0; i < n; i++)
        printf("%02x", p[i]);
    printf("\n");
}

static int run_curve(se_curve_id id)
{
    se_ec_curve c;
    uint8_t d[SE_EC_MAX_BYTES], peer_d[SE_EC_MAX_BYTES], pub[1 + 2 * SE_BN_MAX_BYTES];
    uint8_t peer[1 + 2 * SE_BN_MAX_BYTES], z[SE_BN_MAX_BYTES], sig[2 * SE_EC_MAX_BYTES];
    uint8_t hash[SE_SHA256_DIGEST_BYTES];

    if (se_ec_curve_builtin(&c, id) != SE_OK)
        return 1;
    size_t nb = SE_EC_ORDER_BYTES(&c), fb = SE_EC_FIELD_BYTES(&c);
    /* the peer's key is public: derive it before any secret is marked */
    memset(peer_d, 0, sizeof peer_d);
    peer_d[nb - 1] = 7;
    if (se_ec_public_from_private(&c, peer_d, nb, peer) != SE_OK)
        return 1;
    se_sha256((const uint8_t *)"ctgrind", 7, hash);
    /* three different secrets, each in [1, n-1] */
    for (unsigned t = 0; t < 3; t++) {
        for (size_t i = 0; i < nb; i++)
            d[i] = (uint8_t)(0x5a ^ (i * 29u) ^ (t * 101u));
        d[0] = 0; /* below n on every curve */
        d[1] = (uint8_t)(d[1] & 0x3fu) | (uint8_t)(t + 1);
        VALGRIND_MAKE_MEM_UNDEFINED(d, nb);
        if (se_ec_public_from_private(&c, d, nb, pub) != SE_OK ||
            se_ecdh(&c, d, nb, peer, 1 + 2 * fb, z) != SE_OK ||
            se_ecdsa_sign_hash(&c, d, nb, hash, sizeof hash, SE_ECDSA_NONCE_RFC6979, NULL, sig) != SE_OK)
            return 1;
        print_hex(c.name, pub, 1 + 2 * fb);
        print_hex("  ecdh", z, fb);
        print_hex("  sig", sig, 2 * nb);
    }
    return 0;
}

int main(void)
{
    static const se_curve_id ids[] = {SE_CURVE_SECP160R1, SE_CURVE_SECP192R1, SE_CURVE_SECP224R1,
                                      SE_CURVE_SECP256R1, SE_CURVE_SECP256K1, SE_CURVE_SECT233R1,
                                      SE_CURVE_SECT233K1};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (run_curve(ids[i]) != 0) {
            printf("curve %u failed\n", (unsigned)ids[i]);
            return 1;
        }
    uint8_t k[SE_X25519_BYTES], out[SE_X25519_BYTES];
    for (unsigned i = 0; i < sizeof k; i++)
        k[i] = (uint8_t)(i * 37u + 11u);
    VALGRIND_MAKE_MEM_UNDEFINED(k, sizeof k);
    if (se_x25519_base(out, k) != SE_OK)
        return 1;
    print_hex("x25519", out, sizeof out);
    return 0;
}
