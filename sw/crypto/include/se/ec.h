/* Elliptic-curve cryptography: curves, keys, ECDH and ECDSA over prime-field short-Weierstrass
 * curves up to 256 bits (built in or given at run time), and X25519 (se/x25519.h). */
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
} se_curve_id;

/* A curve y^2 = x^3 + ax + b over GF(p) with base point G of prime order n, cofactor h.
 * Initialised once (se_ec_curve_builtin / se_ec_curve_init); read-only afterwards. */
typedef struct {
    se_mod p, n;
    se_bn a, b;      /* Montgomery domain mod p */
    se_bn gx, gy;    /* Montgomery domain mod p */
    uint32_t h;
    const char *name;
} se_ec_curve;

/* Sizes of the encodings: coordinates are field_bytes long, scalars order_bytes long. */
#define SE_EC_FIELD_BYTES(c) ((c)->p.bytes)
#define SE_EC_ORDER_BYTES(c) ((c)->n.bytes)
#define SE_EC_MAX_BYTES 33 /* secp160r1's order is 161 bits: scalars may be one byte longer than p */

se_status se_ec_curve_builtin(se_ec_curve *c, se_curve_id id);
/* Looks a curve up by name: secp160r1, secp192r1 (P-192, prime192v1), secp224r1 (P-224),
 * secp256r1 (P-256, prime256v1), secp256k1. SE_ERR_UNKNOWN_CURVE otherwise. */
se_status se_ec_curve_by_name(se_ec_curve *c, const char *name);
/* A curve given at run time (big-endian parameters). Checks p odd and < 2^256, n odd and
 * prime-looking (odd, > 2^(bits(p)/2)), a, b, G < p, G on the curve, 4a^3 + 27b^2 != 0;
 * SE_ERR_BAD_PARAMS otherwise. n is trusted to be the prime order of G. */
se_status se_ec_curve_init(se_ec_curve *c, const uint8_t *p, size_t p_len, const uint8_t *a,
                           size_t a_len, const uint8_t *b, size_t b_len, const uint8_t *gx,
                           size_t gx_len, const uint8_t *gy, size_t gy_len, const uint8_t *n,
                           size_t n_len, uint32_t h);

/* Public keys are SEC 1 uncompressed 04 || x || y (or the raw x || y); validation rejects
 * other lengths, coordinates >= p, points off the curve and the point at infinity
 * (SE_ERR_INVALID_POINT). Private keys are order_bytes big-endian in [1, n-1]
 * (SE_ERR_INVALID_SCALAR otherwise). */
se_status se_ec_validate_public(const se_ec_curve *c, const uint8_t *pub, size_t pub_len);
/* pub receives 1 + 2 * field_bytes bytes. */
se_status se_ec_public_from_private(const se_ec_curve *c, const uint8_t *priv, size_t priv_len,
                                    uint8_t *pub);
/* Private key by rejection sampling from the DRBG, then its public key. */
se_status se_ec_keygen(const se_ec_curve *c, se_hmac_drbg_ctx *rng, uint8_t *priv, uint8_t *pub);
/* shared receives field_bytes bytes: the x-coordinate of priv * Q (SE_ERR_INFINITY if O). */
se_status se_ecdh(const se_ec_curve *c, const uint8_t *priv, size_t priv_len, const uint8_t *pub,
                  size_t pub_len, uint8_t *shared);

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
/* TEST ONLY: signs with the caller's k (CAVP SigGen known answers). Never use a fixed k. */
se_status se_ecdsa_sign_hash_with_k(const se_ec_curve *c, const uint8_t *priv, size_t priv_len,
                                    const uint8_t *hash, size_t hash_len, const uint8_t *k,
                                    size_t k_len, uint8_t *sig);
/* SE_OK if valid; SE_ERR_BAD_SIGNATURE (r, s outside [1, n-1] or mismatch),
 * SE_ERR_INVALID_POINT. */
se_status se_ecdsa_verify_hash(const se_ec_curve *c, const uint8_t *pub, size_t pub_len,
                               const uint8_t *hash, size_t hash_len, const uint8_t *sig,
                               size_t sig_len);

/* Strict DER (SEQUENCE of two positive minimal INTEGERs) <-> r || s. der needs at most
 * 2 * order_bytes + 9 bytes. Parsing rejects trailing bytes, long-form lengths where short
 * form fits, negative or non-minimal integers and values wider than order_bytes
 * (SE_ERR_BAD_ENCODING). */
se_status se_ecdsa_sig_to_der(const se_ec_curve *c, const uint8_t *sig, uint8_t *der,
                              size_t *der_len);
se_status se_ecdsa_sig_from_der(const se_ec_curve *c, const uint8_t *der, size_t der_len,
                                uint8_t *sig);

#endif
