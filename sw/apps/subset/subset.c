/* Code-size probe: exactly the primitives a DTLS 1.2 client with
 * TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8 on secp256r1 needs (make bench links it with
 * --gc-sections and subtracts empty.c). Inputs come from volatile storage so nothing folds. */
#include <stdint.h>

#include "se/aes.h"
#include "se/drbg.h"
#include "se/ec.h"
#include "se/sha256.h"

static volatile uint8_t input[64];

int main(void)
{
    uint8_t buf[64], key[32], pub[65], peer[65], z[32], sig[64], hash[32], tag[8], ct[64];
    se_hmac_drbg_ctx rng;
    se_ec_curve c;
    se_aes_ctx aes;
    int st = 0;

    for (unsigned i = 0; i < sizeof buf; i++)
        buf[i] = input[i];
    st |= (int)se_hmac_drbg_instantiate(&rng, buf, 32, buf + 32, 16, 0, 0);
    st |= (int)se_ec_curve_builtin(&c, SE_CURVE_SECP256R1);
    /* ECDHE: ephemeral key, shared secret; ECDSA: sign ours, verify the server's */
    st |= (int)se_ec_keygen(&c, &rng, key, pub);
    for (unsigned i = 0; i < sizeof peer; i++)
        peer[i] = input[i % sizeof input];
    st |= (int)se_ecdh(&c, key, 32, peer, sizeof peer, z);
    se_sha256(buf, sizeof buf, hash);
    st |= (int)se_ecdsa_sign_hash(&c, key, 32, hash, 32, SE_ECDSA_NONCE_RFC6979, 0, sig);
    st |= (int)se_ecdsa_verify_hash(&c, peer, sizeof peer, hash, 32, sig, sizeof sig);
    /* the PRF (HMAC-SHA256) and the record layer (AES-128-CCM_8) */
    se_hmac_sha256(z, 32, buf, sizeof buf, hash);
    st |= (int)se_aes_init(&aes, hash, 16);
    st |= (int)se_aes_ccm_encrypt(&aes, buf, 12, buf, 13, buf, 32, ct, tag, 8);
    st |= (int)se_aes_ccm_decrypt(&aes, buf, 12, buf, 13, ct, 32, tag, 8, buf);
    return st + buf[0];
}
