/* Known-answer self-test of the crypto API on the node, on the backend fixed at build time
 * (SE_FW_BACKEND: the library for sw-*, the engine for sw+hw-*). Inputs are deterministic (a small
 * LCG per line, never the TRNG), so tests/node/test_selftest.py recomputes every output with the
 * `cryptography` package. One JSON object per line on the UART:
 *   {"op":..., "phase":..., <inputs and outputs as hex>, "status":...}
 * after a {"op":"start",...} line (backend, arch, two TRNG words) and finally
 * {"done": N, "failed": F, "stack_peak": B, "stack_size": S, "cycles": hex}. Each operation runs between two simulator
 * markers named like its "phase", so the simulator's --report gives its cycles; the printing is
 * outside the phases. Exit status 0 when every operation answered as expected.
 *
 * SELFTEST_FULL selects the whole set (1) or leaves out what the software library is too slow
 * for in a cycle-accurate simulation (0): the elliptic-curve lines (ECDSA, ECDH, public keys,
 * X25519; one P-256 multiplication takes ~150 M cycles even on rv32im), the 256-bit-key AEAD lines
 * (~20 M cycles) and the modular inversion (~6 M); a {"op":"skip"} line names them. The default
 * is SE_FW_HW: the engine runs everything in 22-29 M cycles (rv32im-rv32i), the library the
 * reduced set in 36-38 M. selftest-full.elf (sw/node/fw.mk: SELFTEST_FULL=1 everywhere) runs it all. */
#include <stdio.h>
#include <string.h>

#include "node/node.h"
#include "se/ct.h"
#include "se/drbg.h"
#include "se/drv.h"
#include "se/ec.h"
#include "se/ec_hw.h"

#ifndef SELFTEST_FULL
#define SELFTEST_FULL SE_FW_HW
#endif

static const se_backend *be;
static unsigned lines, failed;
static const char *phase;

/* ---- deterministic inputs ---- */

static void fill(uint8_t *b, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u; /* Numerical Recipes' LCG: the top byte is the output */
        b[i] = (uint8_t)(x >> 24);
    }
}

/* ---- phases and JSON lines ---- */

/* name: a string literal (the simulator reads it from ROM). */
static void begin(const char *name)
{
    phase = name;
    node_marker(name);
}

static void end(void)
{
    node_marker(NULL);
}

static void j_str(const char *k, const char *v)
{
    uart_puts(",\"");
    uart_puts(k);
    uart_puts("\":\"");
    uart_puts(v);
    uart_putc('"');
}

static void j_begin(const char *op)
{
    uart_puts("{\"op\":\"");
    uart_puts(op);
    uart_putc('"');
    j_str("phase", phase);
}

static void j_hex(const char *k, const uint8_t *b, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    uart_puts(",\"");
    uart_puts(k);
    uart_puts("\":\"");
    for (size_t i = 0; i < n; i++) {
        uart_putc(digits[b[i] >> 4]);
        uart_putc(digits[b[i] & 15]);
    }
    uart_putc('"');
}

static const char *sname(se_status st)
{
    return st == SE_OK ? "ok" : se_status_name(st);
}

/* "status" of the line's main operation; any answer other than `want` counts as a failure. */
static void j_status(const char *k, se_status st, se_status want)
{
    j_str(k, sname(st));
    if (st != want)
        failed++;
}

static void j_end(void)
{
    uart_puts("}\n");
    lines++;
}

/* A round trip that must give back the input (decryption): "rt_ok" and a failure if not. */
static void j_same(const char *k, const uint8_t *a, const uint8_t *b, size_t n)
{
    int same = memcmp(a, b, n) == 0;
    uart_puts(",\"");
    uart_puts(k);
    uart_puts(same ? "\":true" : "\":false");
    if (!same)
        failed++;
}

/* ---- hashes ---- */

static void t_sha256(const char *name, size_t len)
{
    static uint8_t msg[1000];
    uint8_t d[32];
    fill(msg, len, (uint32_t)len);
    begin(name);
    se_status st = be->sha256(msg, len, d);
    end();
    j_begin("sha256");
    j_hex("msg", msg, len);
    j_hex("digest", d, sizeof d);
    j_status("status", st, SE_OK);
    j_end();
}

static void t_hmac(const char *name, size_t key_len, size_t msg_len)
{
    uint8_t key[80], msg[100], mac[32];
    fill(key, key_len, 100 + (uint32_t)key_len);
    fill(msg, msg_len, 200 + (uint32_t)msg_len);
    begin(name);
    se_status st = be->hmac_sha256(key, key_len, msg, msg_len, mac);
    end();
    j_begin("hmac_sha256");
    j_hex("key", key, key_len);
    j_hex("msg", msg, msg_len);
    j_hex("mac", mac, sizeof mac);
    j_status("status", st, SE_OK);
    j_end();
}

/* ---- AES ---- */

static void t_aes(const char *name, se_aes_mode mode, size_t key_len, size_t len)
{
    static const char *const modes[] = {"ecb", "cbc", "ctr", "ofb"};
    uint8_t key[32], iv[16], pt[64], ct[64], rt[64];
    fill(key, key_len, 300 + (uint32_t)mode * 7 + (uint32_t)key_len);
    fill(iv, sizeof iv, 400 + (uint32_t)mode);
    fill(pt, len, 500 + (uint32_t)len);
    begin(name);
    se_status st = be->aes_crypt(mode, 0, key, key_len, iv, pt, len, ct);
    se_status st2 = be->aes_crypt(mode, 1, key, key_len, iv, ct, len, rt);
    end();
    j_begin("aes");
    j_str("mode", modes[mode]);
    j_hex("key", key, key_len);
    if (mode != SE_AES_MODE_ECB)
        j_hex("iv", iv, sizeof iv);
    j_hex("pt", pt, len);
    j_hex("ct", ct, len);
    j_status("status", st, SE_OK);
    j_status("dec_status", st2, SE_OK);
    j_same("rt_ok", pt, rt, len);
    j_end();
}

static void t_cbc_mac(const char *name)
{
    uint8_t key[16], msg[48], mac[16];
    fill(key, sizeof key, 600);
    fill(msg, sizeof msg, 601);
    begin(name);
    se_status st = be->cbc_mac(key, sizeof key, msg, sizeof msg, mac, sizeof mac);
    end();
    j_begin("cbc_mac");
    j_hex("key", key, sizeof key);
    j_hex("msg", msg, sizeof msg);
    j_hex("mac", mac, sizeof mac);
    j_status("status", st, SE_OK);
    j_end();
}

/* Encrypt, decrypt (must give pt back) and decrypt with one tag bit flipped (must be bad_tag). */
static void t_aead(const char *name, se_aead_mode mode, size_t key_len, size_t nonce_len,
                   size_t aad_len, size_t len, size_t tag_len)
{
    uint8_t key[32], nonce[13], aad[20], pt[64], ct[64], rt[64], junk[64], tag[16];
    uint32_t s = 700 + (uint32_t)mode * 10 + (uint32_t)key_len;
    fill(key, key_len, s);
    fill(nonce, nonce_len, s + 1);
    fill(aad, aad_len, s + 2);
    fill(pt, len, s + 3);
    begin(name);
    se_status st = se_backend_aead_encrypt(be, mode, key, key_len, nonce, nonce_len, aad, aad_len, pt, len, ct,
                                           tag, tag_len);
    se_status st2 = se_backend_aead_decrypt(be, mode, key, key_len, nonce, nonce_len, aad, aad_len, ct, len,
                                            tag, tag_len, rt);
    tag[tag_len - 1] ^= 0x01;
    se_status st3 = se_backend_aead_decrypt(be, mode, key, key_len, nonce, nonce_len, aad, aad_len, ct, len,
                                            tag, tag_len, junk);
    tag[tag_len - 1] ^= 0x01;
    static const se_aead_key zero_key; /* a context's end leaves nothing of the key behind */
    se_aead_key k = zero_key;
    se_status st4 = be->aead_key(&k, mode, key, key_len);
    be->aead_wipe(&k);
    end();
    j_begin("aead");
    j_str("mode", mode == SE_AEAD_GCM ? "gcm" : "ccm");
    j_hex("key", key, key_len);
    j_hex("nonce", nonce, nonce_len);
    j_hex("aad", aad, aad_len);
    j_hex("pt", pt, len);
    j_hex("ct", ct, len);
    j_hex("tag", tag, tag_len);
    j_status("status", st, SE_OK);
    j_status("dec_status", st2, SE_OK);
    j_same("rt_ok", pt, rt, len);
    j_status("tampered_status", st3, SE_ERR_BAD_TAG);
    j_status("key_status", st4, SE_OK);
    j_same("wiped", (const uint8_t *)&k, (const uint8_t *)&zero_key, sizeof k);
    j_end();
}

/* ---- modular arithmetic ---- */

static void t_mod(const char *name, se_mod_op op, const char *kind)
{
    /* P-256's p = 2^256 - 2^224 + 2^192 + 2^96 - 1 (prime: inversion is Fermat's on the engine) */
    static const uint8_t m[32] = {0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
                                  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                  0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
                                  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    uint8_t a[32], b[32], r[32];
    fill(a, sizeof a, 800 + (uint32_t)op);
    fill(b, sizeof b, 810 + (uint32_t)op);
    a[0] &= 0x7f; /* below m */
    b[0] &= 0x7f;
    begin(name);
    se_status st = be->mod(op, m, sizeof m, a, b, r);
    end();
    j_begin("mod");
    j_str("kind", kind);
    j_hex("m", m, sizeof m);
    j_hex("a", a, sizeof a);
    if (op != SE_MOD_INV)
        j_hex("b", b, sizeof b);
    j_hex("r", r, sizeof r);
    j_status("status", st, SE_OK);
    j_end();
}

/* ---- elliptic curves ---- */
#if SELFTEST_FULL

/* A private key below n: the top byte is masked (n's top byte is 0xff for the NIST prime curves,
 * 0x01 for secp160r1 and sect233r1, whose keys get a zero top byte). */
static void make_key(uint8_t *d, size_t n_bytes, uint8_t top_mask, uint32_t seed)
{
    fill(d, n_bytes, seed);
    d[0] &= top_mask;
    d[n_bytes - 1] |= 1; /* never zero */
}

/* The curve on the backend. With the engine, a prime curve is the engine's alone (its standard
 * parameters, no software ops: se_ec_curve_engine, as the sensor makes P-256); sect233r1 takes
 * the gf2m IP through the backend's hook. */
static int t_curve(const char *name, se_ec_curve *c, const char *curve)
{
    begin(name);
    se_status st = se_ec_curve_by_name(c, curve);
    if (st == SE_OK && SE_FW_HW && c->params != NULL)
        st = se_ec_curve_engine(c, c->params);
    else if (st == SE_OK)
        st = be->ec_curve(c);
    end();
    j_begin("ec_curve");
    j_str("curve", curve);
    j_status("status", st, SE_OK);
    j_end();
    return st == SE_OK;
}

static void t_pubkey(const char *name, const se_ec_curve *c, const uint8_t *d, uint8_t *pub)
{
    const size_t nb = SE_EC_ORDER_BYTES(c), fb = SE_EC_FIELD_BYTES(c);
    begin(name);
    se_status st = se_ec_public_from_private(c, d, nb, pub);
    end();
    j_begin("ec_pubkey");
    j_str("curve", c->name);
    j_hex("key", d, nb);
    j_hex("pub", pub, 1 + 2 * fb);
    j_status("status", st, SE_OK);
    j_end();
}

static void t_ecdh(const char *name, const se_ec_curve *c, const uint8_t *d, const uint8_t *pub)
{
    const size_t nb = SE_EC_ORDER_BYTES(c), fb = SE_EC_FIELD_BYTES(c);
    uint8_t z[SE_EC_MAX_BYTES];
    begin(name);
    se_status st = se_ecdh(c, d, nb, pub, 1 + 2 * fb, z);
    end();
    j_begin("ecdh");
    j_str("curve", c->name);
    j_hex("key", d, nb);
    j_hex("pub", pub, 1 + 2 * fb);
    j_hex("shared", z, fb);
    j_status("status", st, SE_OK);
    j_end();
}

/* pub_a = d_a G, then ECDH(d_b, pub_a): one fixed-base and one variable-base multiplication. */
static void t_ec_pair(const char *setup, const char *pk, const char *dh, const char *curve,
                      uint8_t top_mask, uint32_t seed)
{
    se_ec_curve c;
    uint8_t da[SE_EC_MAX_BYTES], db[SE_EC_MAX_BYTES], pub[1 + 2 * SE_EC_MAX_BYTES];
    if (!t_curve(setup, &c, curve))
        return;
    make_key(da, SE_EC_ORDER_BYTES(&c), top_mask, seed);
    make_key(db, SE_EC_ORDER_BYTES(&c), top_mask, seed + 1);
    t_pubkey(pk, &c, da, pub);
    t_ecdh(dh, &c, db, pub);
}

/* The begin/end halves (on the engine the work runs while the CPU goes on), each with another
 * operation in between that must neither disturb it nor be disturbed ("between"): the results
 * are checked like the one-call forms'. */
static void t_split(const se_ec_curve *c, const uint8_t d[32], const uint8_t pub[65],
                    const uint8_t pub2[65], const uint8_t hash[32], const uint8_t sig[64])
{
    uint8_t seed[32], priv[32], kpub[65], z[32], sig2[64], tmp[65];
    se_hmac_drbg_ctx rng;
    fill(seed, sizeof seed, 950);
    se_status st = se_hmac_drbg_instantiate_on(&rng, be->sha, seed, sizeof seed, NULL, 0, NULL, 0), mid = SE_OK;

    begin("ec_keygen_split/secp256r1"); /* a verification in between */
    if (st == SE_OK && (st = se_ec_keygen_begin(c, &rng, priv)) == SE_OK) {
        mid = se_ecdsa_verify_hash(c, pub, 65, hash, 32, sig, 64);
        st = se_ec_keygen_end(c, priv, kpub);
    }
    end();
    j_begin("ec_pubkey");
    j_str("curve", c->name);
    j_hex("key", priv, sizeof priv);
    j_hex("pub", kpub, sizeof kpub);
    j_status("between", mid, SE_OK);
    j_status("status", st, SE_OK);
    j_end();

    begin("ecdh_split/secp256r1"); /* a fixed-base multiplication in between */
    if ((st = se_ecdh_begin(c, d, 32, pub2, 65)) == SE_OK) {
        mid = se_ec_public_from_private(c, priv, sizeof priv, tmp);
        if (mid == SE_OK && memcmp(tmp, kpub, sizeof tmp) != 0)
            mid = SE_ERR_BACKEND;
        st = se_ecdh_end(c, d, 32, pub2, 65, z);
    }
    end();
    j_begin("ecdh");
    j_str("curve", c->name);
    j_hex("key", d, 32);
    j_hex("pub", pub2, 65);
    j_hex("shared", z, sizeof z);
    j_status("between", mid, SE_OK);
    j_status("status", st, SE_OK);
    j_end();

    begin("ecdsa_sign_split/secp256r1"); /* an ECDH in between */
    if ((st = se_ecdsa_sign_hash_begin(c, d, 32, hash, 32, SE_ECDSA_NONCE_RFC6979, NULL)) == SE_OK) {
        mid = se_ecdh(c, priv, sizeof priv, pub2, 65, tmp);
        st = se_ecdsa_sign_hash_end(c, d, 32, hash, 32, SE_ECDSA_NONCE_RFC6979, NULL, sig2);
    }
    end();
    j_begin("ecdsa_sign");
    j_str("curve", c->name);
    j_str("nonce", "rfc6979");
    j_hex("key", d, 32);
    j_hex("hash", hash, 32);
    j_hex("sig", sig2, sizeof sig2);
    j_hex("between_key", priv, sizeof priv); /* the ECDH in between: priv * pub2 */
    j_hex("between_pub", pub2, 65);
    j_hex("between_shared", tmp, 32);
    j_status("between", mid, SE_OK);
    j_status("status", st, SE_OK);
    j_end();
#if SE_FW_HW
    /* A begun ECDH cancelled (a failure in between): nothing is left for the driver's collect,
     * which refuses by name. */
    uint8_t a[32], b[32];
    begin("pk_cancel");
    st = se_ecdh_begin(c, d, 32, pub2, 65);
    se_ec_cancel(c);
    mid = se_drv_pk_collect(a, b);
    end();
    j_begin("pk_collect");
    j_status("begin", st, SE_OK);
    j_status("status", mid, SE_ERR_BAD_INPUT);
    j_end();
#endif
    se_ct_wipe(&rng, sizeof rng);
}

static void t_verify(const char *name, const se_ec_curve *c, const uint8_t pub[65],
                     const uint8_t hash[32], const uint8_t sig[64], se_status want)
{
    begin(name);
    se_status st = se_ecdsa_verify_hash(c, pub, 65, hash, 32, sig, 64);
    end();
    j_begin("ecdsa_verify");
    j_str("curve", c->name);
    j_hex("pub", pub, 65);
    j_hex("hash", hash, 32);
    j_hex("sig", sig, 64);
    j_status("status", st, want);
    j_end();
}

static void t_remember_line(const char *name, const se_ec_curve *c, const uint8_t pub[65], int twice,
                            se_status want)
{
    begin(name);
    se_status st = se_ecdsa_remember_key(c, pub, 65);
    if (st == SE_OK && twice) /* the second call finds the table made (on the engine: waits for it) */
        st = se_ecdsa_remember_key(c, pub, 65);
    end();
    j_begin("ecdsa_remember");
    j_str("curve", c->name);
    j_hex("pub", pub, 65);
    j_status("status", st, want);
    j_end();
}

/* A remembered key (on the engine: its comb table in the pk cache, verification by the joint
 * comb): an invalid key is refused by name; a signature under another key still verifies (the
 * plain path); under the remembered key it verifies, and a wrong one fails (after this). */
static void t_remember(const se_ec_curve *c, const uint8_t pub[65], const uint8_t pub2[65],
                       const uint8_t hash[32], const uint8_t sig[64])
{
    uint8_t bad[65];
    memcpy(bad, pub2, sizeof bad);
    bad[64] ^= 0x01;
    t_remember_line("ecdsa_remember_bad/secp256r1", c, bad, 0, SE_ERR_INVALID_POINT);
    t_remember_line("ecdsa_remember/secp256r1", c, pub2, 0, SE_OK);
    t_verify("ecdsa_verify_other/secp256r1", c, pub, hash, sig, SE_OK);
    t_remember_line("ecdsa_remember_own/secp256r1", c, pub, 1, SE_OK);
    t_verify("ecdsa_verify_remembered/secp256r1", c, pub, hash, sig, SE_OK);
}

static void t_ecdsa_p256(void)
{
    se_ec_curve c;
    uint8_t d[32], d2[32], pub[65], pub2[65], msg[64], hash[32], sig[64];
    if (!t_curve("ec_curve/secp256r1", &c, "secp256r1"))
        return;
    make_key(d, sizeof d, 0x7f, 900);
    t_pubkey("ec_pubkey/secp256r1", &c, d, pub);

    fill(msg, sizeof msg, 901);
    be->sha256(msg, sizeof msg, hash);
    begin("ecdsa_sign/secp256r1");
    se_status st = se_ecdsa_sign_hash(&c, d, sizeof d, hash, sizeof hash, SE_ECDSA_NONCE_RFC6979,
                                      NULL, sig);
    end();
    j_begin("ecdsa_sign");
    j_str("curve", c.name);
    j_str("nonce", "rfc6979");
    j_hex("key", d, sizeof d);
    j_hex("msg", msg, sizeof msg);
    j_hex("hash", hash, sizeof hash);
    j_hex("sig", sig, sizeof sig);
    j_status("status", st, SE_OK);
    j_end();

    t_verify("ecdsa_verify/secp256r1", &c, pub, hash, sig, SE_OK);

    make_key(d2, sizeof d2, 0x7f, 902);
    t_pubkey("ec_pubkey2/secp256r1", &c, d2, pub2);
    t_split(&c, d, pub, pub2, hash, sig);
    t_remember(&c, pub, pub2, hash, sig);

    hash[31] ^= 0x01; /* pub is remembered */
    t_verify("ecdsa_verify_bad/secp256r1", &c, pub, hash, sig, SE_ERR_BAD_SIGNATURE);

    t_ecdh("ecdh/secp256r1", &c, d, pub2);
}

static void t_x25519(void)
{
    uint8_t k1[32], k2[32], u[32] = {9}, p1[32], z[32];
    fill(k1, sizeof k1, 1000);
    fill(k2, sizeof k2, 1001);
    begin("x25519_base");
    se_status st = be->x25519(p1, k1, u);
    end();
    j_begin("x25519");
    j_hex("scalar", k1, sizeof k1);
    j_hex("u", u, sizeof u);
    j_hex("out", p1, sizeof p1);
    j_status("status", st, SE_OK);
    j_end();
    begin("x25519");
    st = be->x25519(z, k2, p1);
    end();
    j_begin("x25519");
    j_hex("scalar", k2, sizeof k2);
    j_hex("u", p1, sizeof p1);
    j_hex("out", z, sizeof z);
    j_status("status", st, SE_OK);
    j_end();
}
#endif /* SELFTEST_FULL */

int main(void)
{
    be = SE_FW_BACKEND;
    /* Two TRNG words and the cycle counter only show that the HAL reads them: no input uses them. */
    uint32_t t0 = node_trng32(), t1 = node_trng32();
    printf("{\"op\":\"start\",\"trng\":\"%08lx%08lx\",\"backend\":\"%s\",\"arch\":\"%s\",\"full\":%s}\n",
           (unsigned long)t0, (unsigned long)t1, be->name,
#if defined(__riscv_mul) && defined(__riscv_compressed)
           "rv32imc",
#elif defined(__riscv_mul)
           "rv32im",
#else
           "rv32i",
#endif
           SELFTEST_FULL ? "true" : "false");
    if (be->probe != NULL) {
        begin("probe");
        se_status st = be->probe();
        end();
        j_begin("probe");
        j_status("status", st, SE_OK);
        j_end();
        if (st != SE_OK)
            return 2;
    }

    t_sha256("sha256/0", 0);
    t_sha256("sha256/3", 3);
    t_sha256("sha256/64", 64);
    t_sha256("sha256/1000", 1000);
    t_hmac("hmac/32", 32, 100);
    t_hmac("hmac/80", 80, 0);

    /* three blocks: the library's two-block path and a single block; CTR ends in a partial block */
    t_aes("aes_ecb/128", SE_AES_MODE_ECB, 16, 48);
    t_aes("aes_ecb/256", SE_AES_MODE_ECB, 32, 48);
    t_aes("aes_cbc/128", SE_AES_MODE_CBC, 16, 48);
    t_aes("aes_cbc/256", SE_AES_MODE_CBC, 32, 48);
    t_aes("aes_ctr/128", SE_AES_MODE_CTR, 16, 45);
    t_aes("aes_ctr/256", SE_AES_MODE_CTR, 32, 45);
    t_cbc_mac("cbc_mac/128");
    t_aead("gcm/128", SE_AEAD_GCM, 16, 12, 20, 60, 16);
    t_aead("ccm/128", SE_AEAD_CCM, 16, 13, 8, 32, 8);
    t_mod("mod_mul/p256", SE_MOD_MUL, "mul");

#if SELFTEST_FULL
    t_aead("gcm/256", SE_AEAD_GCM, 32, 12, 0, 64, 12);
    t_aead("ccm/256", SE_AEAD_CCM, 32, 7, 20, 45, 16);
    t_mod("mod_inv/p256", SE_MOD_INV, "inv");
    t_ecdsa_p256();
    t_ec_pair("ec_curve/secp192r1", "ec_pubkey/secp192r1", "ecdh/secp192r1", "secp192r1", 0x7f, 1100);
    t_ec_pair("ec_curve/secp224r1", "ec_pubkey/secp224r1", "ecdh/secp224r1", "secp224r1", 0x7f, 1200);
    t_ec_pair("ec_curve/secp160r1", "ec_pubkey/secp160r1", "ecdh/secp160r1", "secp160r1", 0x00, 1300);
    t_ec_pair("ec_curve/sect233r1", "ec_pubkey/sect233r1", "ecdh/sect233r1", "sect233r1", 0x00, 1400);
    t_x25519();
#else
    uart_puts("{\"op\":\"skip\",\"what\":[\"gcm/256\",\"ccm/256\",\"mod_inv\",\"ecc\"],"
              "\"why\":\"too slow in software for the simulation budget: selftest-full.elf runs them\"}\n");
#endif

    uint32_t peak = node_stack_peak(); /* a scan of the whole stack area: ~0.4 M cycles */
    uint64_t now = node_cycles();
    printf("{\"done\":%u,\"failed\":%u,\"stack_peak\":%lu,\"stack_size\":%lu,\"cycles\":\"%08lx%08lx\"}\n",
           lines, failed, (unsigned long)peak, (unsigned long)node_stack_size(),
           (unsigned long)(now >> 32), (unsigned long)now);
    return failed ? 1 : 0;
}
