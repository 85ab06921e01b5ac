/* Elliptic-curve cryptography: curves, keys, ECDH and ECDSA over prime-field short-Weierstrass
 * curves up to 256 bits (built in or given at run time) and the binary curves sect233r1/k1;
 * X25519 is in se/x25519.h. One API serves both kinds of curve: ECDSA, ECDH and keys are
 * written once over the group operations each kind supplies (se_ec_ops). */
#ifndef SE_EC_H
#define SE_EC_H

#include <stddef.h>
#include <stdint.h>

#include "se/bn.h"
#include "se/drbg.h"
#include "se/status.h"

typedef enum {
    SE_CURVE_SECP160R1 = 1,
    SE_CURVE_SECP192R1,
    SE_CURVE_SECP224R1,
    SE_CURVE_SECP256R1,
    SE_CURVE_SECP256K1,
    SE_CURVE_SECT233R1,
    SE_CURVE_SECT233K1,
} se_curve_id;

typedef struct se_ec_curve se_ec_curve;

/* The group operations of one kind of curve. Points cross this boundary encoded (04 || x || y
 * or x || y, coordinates field_bytes each); scalars are se_bn values below n. */
typedef struct {
    /* Decodes and validates a public point: length, coordinate range, on the curve, not
     * infinity, and in the subgroup of order n where the cofactor is not 1. */
    se_status (*validate)(const se_ec_curve *c, const uint8_t *pub, size_t len);
    /* out = 04 || x || y of k * P (P = NULL: the generator), constant time in k, for k < n and
     * a valid P; SE_ERR_INFINITY if the result is the point at infinity. */
    se_status (*mul)(const se_ec_curve *c, const se_bn *k, const uint8_t *pub, size_t len,
                     uint8_t *out);
    /* x = the x-coordinate, as an integer, of u1 * G + u2 * Q for a valid Q (public inputs,
     * verification only); SE_ERR_INFINITY if the sum is the point at infinity. NULL where verify
     * does not need it (an engine that verifies whole). */
    se_status (*mul2_x)(const se_ec_curve *c, const se_bn *u1, const se_bn *u2,
                        const uint8_t *pub, size_t len, se_bn *x);
    /* ECDSA's arithmetic (the library's generic code over mul and mul2_x for its own curves; an
     * engine does it whole). sign: r || s for private d and nonce k in [1, n-1] and
     * e = bits2int(hash) mod n, SE_ERR_BAD_SIGNATURE if r or s is 0. verify: validates Q as
     * validate does (its errors), then SE_OK or SE_ERR_BAD_SIGNATURE for r and s in [1, n-1] and
     * e as above: the one validation of a verification, so an engine validates and uploads Q
     * once. */
    se_status (*sign)(const se_ec_curve *c, const se_bn *d, const se_bn *e, const se_bn *k,
                      uint8_t *sig);
    se_status (*verify)(const se_ec_curve *c, const uint8_t *pub, size_t len, const se_bn *e,
                        const se_bn *r, const se_bn *s);
    /* Optional, for an engine that computes while the CPU works (NULL: mul, at once): mul's
     * k * P started in the background, its out collected later (out NULL: discarded); one at
     * a time. */
    se_status (*mul_start)(const se_ec_curve *c, const se_bn *k, const uint8_t *pub, size_t len);
    se_status (*mul_collect)(const se_ec_curve *c, uint8_t *out);
    /* Optional, likewise for sign: started in the background, r || s collected later. */
    se_status (*sign_start)(const se_ec_curve *c, const se_bn *d, const se_bn *e, const se_bn *k);
    se_status (*sign_collect)(const se_ec_curve *c, uint8_t *sig);
    /* Optional, for an engine with a precompute cache (NULL: nothing to do): a valid public key
     * whose signatures will be verified again; its table is made in the background, and later
     * verify calls with it are faster. Shares the background slot of mul_start/sign_start. */
    se_status (*remember)(const se_ec_curve *c, const uint8_t *pub, size_t len);
    /* Where ECDSA's RFC 6979 nonces hash (se/sha256.h): the engine's SHA IP beside its pk IP, or
     * NULL (software). */
    const se_sha256_engine *sha;
} se_ec_ops;

/* The library's parts for an engine's ops table (sw/drivers/pk_drv.c, gf2m_drv.c): ECDSA's arithmetic over a
 * curve's mul and mul2_x (se_ec_ops.sign and .verify of the library's own curves), and the
 * library's operations of each kind of curve. */
se_status se_ec_sign_generic(const se_ec_curve *c, const se_bn *d, const se_bn *e, const se_bn *k,
                             uint8_t *sig);
se_status se_ec_verify_generic(const se_ec_curve *c, const uint8_t *pub, size_t pub_len, const se_bn *e,
                               const se_bn *r, const se_bn *s);
extern const se_ec_ops se_ec_prime_ops;  /* ecp.c */
extern const se_ec_ops se_ec_binary_ops; /* ec2m.c */

/* A built-in prime curve's standard parameters (SEC 2 / FIPS 186-4), big-endian: p, a, b, gx
 * and gy are p_len bytes long, n is n_len bytes long. (The values come first: word-aligned, they
 * compare and copy a word at a time.) */
typedef struct {
    uint8_t p[SE_BN_MAX_BYTES], a[SE_BN_MAX_BYTES], b[SE_BN_MAX_BYTES];
    uint8_t gx[SE_BN_MAX_BYTES], gy[SE_BN_MAX_BYTES], n[SE_BN_MAX_BYTES];
    const char *name;
    uint8_t p_len, n_len;
} se_ec_params;

/* A curve with base point G of prime order n and cofactor h. Prime curves: y^2 = x^3 + ax + b
 * over GF(p), a, b, gx, gy in the Montgomery domain mod p. Binary curves (GF(2^233),
 * y^2 + xy = x^3 + ax^2 + b): a, b, gx, gy hold field elements as bit strings in the low
 * 8 limbs and p is unused. a, b, gx, gy serve the library's own operations: a curve made for
 * the engine alone (se_ec_curve_engine, se/ec_hw.h) leaves them 0. params: a built-in prime
 * curve's standard parameters, NULL for the others. Initialised once; read-only afterwards. */
struct se_ec_curve {
    const se_ec_ops *ops;
    se_mod n;
    se_mod p;
    se_bn a, b, gx, gy;
    unsigned field_bytes;
    uint32_t h;
    const char *name;
    const se_ec_params *params;
};

/* Sizes of the encodings: coordinates are field_bytes long, scalars order_bytes long. */
#define SE_EC_FIELD_BYTES(c) ((c)->field_bytes)
#define SE_EC_ORDER_BYTES(c) ((c)->n.bytes)
#define SE_EC_MAX_BYTES 33 /* secp160r1's order is 161 bits: scalars may be one byte longer than p */

se_status se_ec_curve_builtin(se_ec_curve *c, se_curve_id id);
/* The standard parameters of built-in prime curve id (shared with the engine's curves); NULL for
 * the binary curves and unknown ids. */
const se_ec_params *se_ec_builtin_params(se_curve_id id);
/* The same, one object per curve (a firmware that names one links only that one). */
extern const se_ec_params se_ec_secp160r1, se_ec_secp192r1, se_ec_secp224r1, se_ec_secp256r1,
    se_ec_secp256k1;
/* Looks a curve up by name: secp160r1, secp192r1 (P-192, prime192v1), secp224r1 (P-224),
 * secp256r1 (P-256, prime256v1), secp256k1, sect233r1 (B-233), sect233k1 (K-233).
 * SE_ERR_UNKNOWN_CURVE otherwise. */
se_status se_ec_curve_by_name(se_ec_curve *c, const char *name);
/* A curve given at run time (big-endian parameters). Checks p odd and < 2^256, n odd and
 * at least half as wide as p, a, b, G < p, G on the curve, 4a^3 + 27b^2 != 0, and
 * (n - 1) G = -G (the order of G divides n); SE_ERR_BAD_PARAMS otherwise. n is trusted to be
 * prime (ECDSA inverts modulo n by Fermat). */
se_status se_ec_curve_init(se_ec_curve *c, const uint8_t *p, size_t p_len, const uint8_t *a,
                           size_t a_len, const uint8_t *b, size_t b_len, const uint8_t *gx,
                           size_t gx_len, const uint8_t *gy, size_t gy_len, const uint8_t *n,
                           size_t n_len, uint32_t h);

/* Public keys are SEC 1 uncompressed 04 || x || y (or the raw x || y); validation rejects
 * other lengths, coordinates outside the field, points off the curve, the point at infinity
 * and, on the binary curves (cofactor 2 and 4), points outside the order-n subgroup
 * (SE_ERR_INVALID_POINT). ECDH is plain (no cofactor multiplication), as OpenSSL's default. Private keys are order_bytes big-endian in [1, n-1]
 * (SE_ERR_INVALID_SCALAR otherwise). */
se_status se_ec_validate_public(const se_ec_curve *c, const uint8_t *pub, size_t pub_len);
/* The encoding alone: 04 || x || y or x || y -> a pointer to x (y follows, field_bytes each);
 * NULL for any other length or leading byte. No range or curve check. */
const uint8_t *se_ec_point_xy(const se_ec_curve *c, const uint8_t *pub, size_t pub_len);
/* pub receives 1 + 2 * field_bytes bytes. */
se_status se_ec_public_from_private(const se_ec_curve *c, const uint8_t *priv, size_t priv_len,
                                    uint8_t *pub);
/* Private key by rejection sampling from the DRBG, then its public key. */
se_status se_ec_keygen(const se_ec_curve *c, se_hmac_drbg_ctx *rng, uint8_t *priv, uint8_t *pub);
/* The same in two halves, so an engine can make the public key while the CPU does other work
 * (a TLS client: from ServerHello to ServerHelloDone): begin draws priv and, where the curve's
 * ops offer it, starts priv * G; end (after a successful begin) returns the public key. Other
 * operations on the curve may run in between, but not another begin before this end. */
se_status se_ec_keygen_begin(const se_ec_curve *c, se_hmac_drbg_ctx *rng, uint8_t *priv);
se_status se_ec_keygen_end(const se_ec_curve *c, const uint8_t *priv, uint8_t *pub);
/* shared receives field_bytes bytes: the x-coordinate of priv * Q (SE_ERR_INFINITY if O). */
se_status se_ecdh(const se_ec_curve *c, const uint8_t *priv, size_t priv_len, const uint8_t *pub,
                  size_t pub_len, uint8_t *shared);
/* The same in two halves, like se_ec_keygen_begin/end: begin checks Q and priv and, where the
 * ops offer it, starts priv * Q; end (same arguments, after a successful begin) returns the
 * shared secret. One begun operation (keygen or ECDH) at a time. */
se_status se_ecdh_begin(const se_ec_curve *c, const uint8_t *priv, size_t priv_len, const uint8_t *pub,
                        size_t pub_len);
se_status se_ecdh_end(const se_ec_curve *c, const uint8_t *priv, size_t priv_len, const uint8_t *pub,
                      size_t pub_len, uint8_t *shared);
/* Ends whatever begun operation is pending on c without its result (after a failure between a
 * begin and its end): the engine's copy of the operands and the result are wiped. No-op in
 * software and when nothing is pending. */
void se_ec_cancel(const se_ec_curve *c);

/* Scalar multiplication priv * Q for any valid point, constant time in the scalar; the result
 * as 04 || x || y. Exposed for protocols built on the curve (ECMQV, Schnorr). */
se_status se_ec_mul(const se_ec_curve *c, const uint8_t *k, size_t k_len, const uint8_t *pub,
                    size_t pub_len, uint8_t *out);

/* ECDSA (SEC 1 4.1, FIPS 186-4). hash may have any length; it is truncated to the bit length
 * of n. Signatures are r || s, each order_bytes long. */
typedef enum {
    SE_ECDSA_NONCE_RFC6979 = 0, /* deterministic k (RFC 6979, HMAC-SHA256) */
    SE_ECDSA_NONCE_DRBG,        /* k from the caller's DRBG, mixed with key and hash as in RFC 6979 3.6 */
} se_ecdsa_nonce;

se_status se_ecdsa_sign_hash(const se_ec_curve *c, const uint8_t *priv, size_t priv_len,
                             const uint8_t *hash, size_t hash_len, se_ecdsa_nonce nonce,
                             se_hmac_drbg_ctx *rng, uint8_t *sig);
/* The same in two halves (as se_ecdh_begin/end): where the ops offer it, begin draws the nonce
 * and starts the signature (else it does nothing); end, with the same arguments after a
 * successful begin, returns it. The begun operations share one background slot: one at a time. */
se_status se_ecdsa_sign_hash_begin(const se_ec_curve *c, const uint8_t *priv, size_t priv_len,
                                   const uint8_t *hash, size_t hash_len, se_ecdsa_nonce nonce,
                                   se_hmac_drbg_ctx *rng);
se_status se_ecdsa_sign_hash_end(const se_ec_curve *c, const uint8_t *priv, size_t priv_len,
                                 const uint8_t *hash, size_t hash_len, se_ecdsa_nonce nonce,
                                 se_hmac_drbg_ctx *rng, uint8_t *sig);
/* A public key whose signatures will be verified again (a TLS server's, in cached-certificate
 * mode). Validates it (SE_ERR_INVALID_POINT); on the engine, its comb table is then made in the
 * background (the pk cache's entry 1, one key at a time) and later verifications with this key
 * take a joint comb over G's and its table. Nothing more in software. Not between a begin and
 * its end (it shares their background slot). */
se_status se_ecdsa_remember_key(const se_ec_curve *c, const uint8_t *pub, size_t pub_len);
/* TEST ONLY: signs with the caller's k (CAVP SigGen known answers). Never use a fixed k. */
se_status se_ecdsa_sign_hash_with_k(const se_ec_curve *c, const uint8_t *priv, size_t priv_len,
                                    const uint8_t *hash, size_t hash_len, const uint8_t *k,
                                    size_t k_len, uint8_t *sig);
/* SE_OK if valid; SE_ERR_BAD_SIGNATURE (a signature of the wrong length or r, s outside
 * [1, n-1], checked before the key, or a mismatch), SE_ERR_INVALID_POINT. */
se_status se_ecdsa_verify_hash(const se_ec_curve *c, const uint8_t *pub, size_t pub_len,
                               const uint8_t *hash, size_t hash_len, const uint8_t *sig,
                               size_t sig_len);

/* ECDSA's arithmetic on values already decoded: e = bits2int(hash) mod n, d and k in [1, n-1],
 * r and s in [1, n-1]; verify validates pub. Through the curve's sign/verify operations. Results and errors as the functions above; exposed
 * for a backend that forwards whole ECDSA operations (the CLI's --backend soc and the node's op
 * server). */
se_status se_ecdsa_sign_values(const se_ec_curve *c, const se_bn *d, const se_bn *e, const se_bn *k,
                               uint8_t *sig);
se_status se_ecdsa_verify_values(const se_ec_curve *c, const uint8_t *pub, size_t pub_len,
                                 const se_bn *e, const se_bn *r, const se_bn *s);

/* Strict DER (SEQUENCE of two positive minimal INTEGERs) <-> r || s. der needs at most
 * 2 * order_bytes + 9 bytes. Parsing rejects trailing bytes, long-form lengths where short
 * form fits, negative or non-minimal integers and values wider than order_bytes
 * (SE_ERR_BAD_ENCODING). */
se_status se_ecdsa_sig_to_der(const se_ec_curve *c, const uint8_t *sig, uint8_t *der,
                              size_t *der_len);
se_status se_ecdsa_sig_from_der(const se_ec_curve *c, const uint8_t *der, size_t der_len,
                                uint8_t *sig);

#endif
