/* The node benchmark (make bench, where "node"): each operation of the SW vs SW+HW comparison runs
 * once between two simulator markers named after it, so the run report (sim/node --report) gives
 * its cycles, the CPU's asleep cycles and the engine's busy cycles. The same source is built for
 * every configuration (sw / sw+hw, rv32i / rv32im); the backend is fixed at build time.
 *
 * The sw configurations run the symmetric operations and one scalar multiplication (P-256) unless
 * built as nodebench-full (NODEBENCH_FULL): software ECC on PicoRV32 is hours of simulation.
 *
 * Inputs come from an HMAC-DRBG seeded by the trng model with the simulator's fixed --seed, so a
 * run is repeatable. One JSON line per operation reports its status (0 = ok), which tools/bench.py
 * checks: a figure of a failed operation is not a figure. */
#include <stdio.h>
#include <string.h>

#include "node/node.h"
#include "se/backend.h"
#include "se/drbg.h"
#include "se/ec.h"

#ifndef NODEBENCH_FULL
#define NODEBENCH_FULL 0
#endif

static se_hmac_drbg_ctx rng;
static uint8_t buf_in[1024], buf_out[1024 + 16];

static void report(const char *op, se_status st)
{
    printf("{\"op\":\"%s\",\"status\":%d}\n", op, (int)st);
}

/* A random scalar in [1, n-1] and its public point (not measured). */
static se_status keypair(const se_ec_curve *c, uint8_t *priv, uint8_t *pub)
{
    return se_ec_keygen(c, &rng, priv, pub);
}

/* ECDSA and ECDH on P-256 (seed 003's keygen / sign / verify). */
static void p256(const se_backend *be)
{
    se_ec_curve c;
    uint8_t d[32], q[65], d2[32], q2[65], hash[32], sig[64], z[32];
    se_status st = se_ec_curve_builtin(&c, SE_CURVE_SECP256R1);
    if (st == SE_OK)
        st = be->ec_curve(&c);
    se_hmac_drbg_generate(&rng, hash, sizeof hash, NULL, 0);
    if (st == SE_OK)
        st = keypair(&c, d2, q2);

    node_marker("ecdsa_keygen");
    se_status kst = st == SE_OK ? se_ec_keygen(&c, &rng, d, q) : st;
    node_marker(NULL);
    report("ecdsa_keygen", kst);

    node_marker("ecdsa_sign");
    st = kst == SE_OK ? se_ecdsa_sign_hash(&c, d, 32, hash, 32, SE_ECDSA_NONCE_RFC6979, NULL, sig) : kst;
    node_marker(NULL);
    report("ecdsa_sign", st);

    node_marker("ecdsa_verify");
    st = st == SE_OK ? se_ecdsa_verify_hash(&c, q, sizeof q, hash, 32, sig, sizeof sig) : st;
    node_marker(NULL);
    report("ecdsa_verify", st);

    node_marker("ecdh");
    st = kst == SE_OK ? se_ecdh(&c, d, 32, q2, sizeof q2, z) : kst;
    node_marker(NULL);
    report("ecdh", st);
}

/* Variable-base scalar multiplication k * P per curve size (seed 001, Fig. 5), B-233 included. */
static void ecsm(const se_backend *be, se_curve_id id, const char *phase)
{
    se_ec_curve c;
    uint8_t k[SE_EC_MAX_BYTES], d[SE_EC_MAX_BYTES], p[1 + 2 * 32], out[1 + 2 * 32];
    se_status st = se_ec_curve_builtin(&c, id);
    if (st == SE_OK)
        st = be->ec_curve(&c);
    if (st == SE_OK)
        st = keypair(&c, d, p);
    if (st == SE_OK)
        st = keypair(&c, k, out); /* k: a valid private scalar */
    size_t plen = 1 + 2 * (size_t)SE_EC_FIELD_BYTES(&c);

    node_marker(phase);
    if (st == SE_OK)
        st = se_ec_mul(&c, k, SE_EC_ORDER_BYTES(&c), p, plen, out);
    node_marker(NULL);
    report(phase, st);
}

static void x25519(const se_backend *be)
{
    uint8_t k[32], u[32] = {9}, out[32];
    se_hmac_drbg_generate(&rng, k, sizeof k, NULL, 0);
    node_marker("x25519");
    se_status st = be->x25519(out, k, u);
    node_marker(NULL);
    report("x25519", st);
}

/* AES-128 over 1 KiB in each mode (the AEADs with a 13-byte header, as a DTLS record has). */
static void aes(const se_backend *be)
{
    uint8_t key[16], iv[16], aad[13], tag[16];
    se_hmac_drbg_generate(&rng, key, sizeof key, NULL, 0);
    se_hmac_drbg_generate(&rng, iv, sizeof iv, NULL, 0);
    se_hmac_drbg_generate(&rng, aad, sizeof aad, NULL, 0);
    uint32_t x = node_trng32() | 1u; /* bulk data: a cheap xorshift, not the (slow in software) DRBG */
    for (size_t i = 0; i < sizeof buf_in; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf_in[i] = (uint8_t)x;
    }
    static const struct {
        const char *phase;
        se_aes_mode mode;
    } modes[] = {{"aes128_ecb_1k", SE_AES_MODE_ECB}, {"aes128_cbc_1k", SE_AES_MODE_CBC}, {"aes128_ctr_1k", SE_AES_MODE_CTR}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        node_marker(modes[i].phase);
        se_status st = be->aes_crypt(modes[i].mode, 0, key, 16, iv, buf_in, sizeof buf_in, buf_out);
        node_marker(NULL);
        report(modes[i].phase, st);
    }
    node_marker("aes128_gcm_1k");
    se_status st = se_backend_aead_encrypt(be, SE_AEAD_GCM, key, 16, iv, 12, aad, sizeof aad, buf_in,
                                           sizeof buf_in, buf_out, tag, 16);
    node_marker(NULL);
    report("aes128_gcm_1k", st);
    node_marker("aes128_ccm_1k");
    st = se_backend_aead_encrypt(be, SE_AEAD_CCM, key, 16, iv, 12, aad, sizeof aad, buf_in, sizeof buf_in,
                                 buf_out, tag, 8);
    node_marker(NULL);
    report("aes128_ccm_1k", st);
}

static void sha(const se_backend *be)
{
    uint8_t digest[32];
    node_marker("sha256_1k");
    se_status st = be->sha256(buf_in, sizeof buf_in, digest);
    node_marker(NULL);
    report("sha256_1k", st);
}

int main(void)
{
    const se_backend *be = SE_FW_BACKEND;
    uint8_t seed[48];
    for (size_t i = 0; i < sizeof seed; i += 4) {
        uint32_t w = node_trng32();
        memcpy(seed + i, &w, 4);
    }
    se_status st = se_hmac_drbg_instantiate_on(&rng, be->sha, seed, 32, seed + 32, 16, NULL, 0);
    if (st == SE_OK && be->probe)
        st = be->probe();
    report("setup", st);
    if (st != SE_OK)
        return 1;

    aes(be);
    sha(be);
    ecsm(be, SE_CURVE_SECP256R1, "ecsm_secp256r1");
    /* In software every one of these is 0.1 to 0.5 G cycles (minutes to an hour of simulation):
     * the sw configs run them in nodebench-full (make bench with SE_NODE_FULL=1). */
    if (SE_FW_HW || NODEBENCH_FULL) {
        x25519(be);
        ecsm(be, SE_CURVE_SECT233R1, "ecsm_b233");
        ecsm(be, SE_CURVE_SECP160R1, "ecsm_secp160r1");
        ecsm(be, SE_CURVE_SECP192R1, "ecsm_secp192r1");
        ecsm(be, SE_CURVE_SECP224R1, "ecsm_secp224r1");
        p256(be);
    }
    printf("{\"stack_peak\":%lu}\n", (unsigned long)node_stack_peak());
    return 0;
}
