/* HMAC_DRBG with HMAC-SHA256 (NIST SP 800-90A Rev. 1, section 10.1.2). */
#ifndef SE_DRBG_H
#define SE_DRBG_H

#include <stddef.h>
#include <stdint.h>

#include "se/sha256.h"
#include "se/status.h"

/* Security strength 256 bits, no prediction resistance (reseed explicitly instead),
 * no derivation function (HMAC_DRBG has none). Limits, all in bytes: */
#define SE_HMAC_DRBG_MIN_ENTROPY_BYTES 32 /* entropy input >= security strength */
/* entropy, nonce, pers and additional input: 2^35 bits each */
#define SE_HMAC_DRBG_MAX_INPUT_BYTES UINT64_C(0x100000000)
#define SE_HMAC_DRBG_MAX_REQUEST_BYTES 65536u /* per generate call: 2^19 bits */
/* Generate calls allowed between (re)seeds. SP 800-90A allows up to 2^48; a node
 * that reseeds from its TRNG this often loses little and bounds the damage of a
 * compromised state. Lower it per context with se_hmac_drbg_set_reseed_interval. */
#define SE_HMAC_DRBG_RESEED_INTERVAL 10000u

typedef struct {
    uint8_t k[SE_SHA256_DIGEST_BYTES];
    uint8_t v[SE_SHA256_DIGEST_BYTES];
    uint32_t reseed_counter;  /* generate calls since the last (re)seed, plus one */
    uint32_t reseed_interval;
    uint32_t instantiated;    /* a magic value, so a zeroed context reads "not seeded" */
    const se_sha256_engine *eng; /* where its HMACs run (NULL: software) */
} se_hmac_drbg_ctx;

/* Instantiate: K = 0.., V = 1.., update(entropy || nonce || pers). The nonce may be
 * empty if the entropy input carries the extra security_strength/2 bits itself.
 * Errors: SE_ERR_BAD_LENGTH (entropy shorter than 32 bytes, an input over the max). */
se_status se_hmac_drbg_instantiate(se_hmac_drbg_ctx *ctx, const uint8_t *entropy,
                                   size_t entropy_len, const uint8_t *nonce, size_t nonce_len,
                                   const uint8_t *pers, size_t pers_len);
/* The same, with every HMAC on eng (a backend's `sha`, se/sha256.h); the above is eng = NULL. */
se_status se_hmac_drbg_instantiate_on(se_hmac_drbg_ctx *ctx, const se_sha256_engine *eng,
                                      const uint8_t *entropy, size_t entropy_len, const uint8_t *nonce,
                                      size_t nonce_len, const uint8_t *pers, size_t pers_len);
/* Errors: SE_ERR_DRBG_NOT_SEEDED, SE_ERR_BAD_LENGTH (as for instantiate). */
se_status se_hmac_drbg_reseed(se_hmac_drbg_ctx *ctx, const uint8_t *entropy, size_t entropy_len,
                              const uint8_t *add, size_t add_len);
/* out_len 0..SE_HMAC_DRBG_MAX_REQUEST_BYTES; add may be empty (NULL with length 0).
 * Errors, checked in this order and leaving out untouched: SE_ERR_DRBG_NOT_SEEDED,
 * SE_ERR_BAD_LENGTH, SE_ERR_DRBG_RESEED (reseed interval exhausted: call reseed). */
se_status se_hmac_drbg_generate(se_hmac_drbg_ctx *ctx, uint8_t *out, size_t out_len,
                                const uint8_t *add, size_t add_len);
/* interval 1..SE_HMAC_DRBG_RESEED_INTERVAL generate calls; stricter policies only.
 * Errors: SE_ERR_DRBG_NOT_SEEDED, SE_ERR_BAD_INPUT. */
se_status se_hmac_drbg_set_reseed_interval(se_hmac_drbg_ctx *ctx, uint32_t interval);
/* Wipes the state; the context then reports SE_ERR_DRBG_NOT_SEEDED. */
void se_hmac_drbg_uninstantiate(se_hmac_drbg_ctx *ctx);

#endif
