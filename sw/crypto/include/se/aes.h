/* AES-128/192/256 (FIPS 197): SP 800-38A modes, CBC-MAC, CCM (SP 800-38C), GCM (SP 800-38D). */
#ifndef SE_AES_H
#define SE_AES_H

#include <stddef.h>
#include <stdint.h>

#include "se/status.h"

/* The software backend is constant time: bitsliced, the S-box is computed as
 * x^254 in GF(2^8) followed by the affine map, GHASH multiplies bit by bit with
 * masks. No branch and no memory index depends on keys or data; only lengths
 * (and the public verification result of an AEAD decrypt) steer control flow.
 *
 * Every function accepts in-place operation (out == in); partial overlap is not
 * supported. No function allocates; all state lives in the caller's structs. */

#define SE_AES_BLOCK_BYTES 16

/* The modes by name, for the crypto API of se/backend.h and the engine drivers (se/drv.h). */
typedef enum { SE_AES_MODE_ECB = 0, SE_AES_MODE_CBC, SE_AES_MODE_CTR, SE_AES_MODE_OFB } se_aes_mode;
/* SE_AEAD_CBC: not an AEAD but the CBC-SHA256 suite's AES key, for the crypto API's
 * cbc_record_seal/open (se/backend.h) alone. */
typedef enum { SE_AEAD_GCM = 0, SE_AEAD_CCM, SE_AEAD_CBC } se_aead_mode;
#define SE_AES_MAX_ROUNDS 14

/* Expanded key: 8 bit-planes per round key, 484 bytes. Wipe with se_aes_wipe(). */
typedef struct {
    uint32_t rk[(SE_AES_MAX_ROUNDS + 1) * 8];
    uint32_t nr; /* 10, 12 or 14 */
} se_aes_ctx;

/* key_len 16, 24 or 32, else SE_ERR_BAD_LENGTH. */
se_status se_aes_init(se_aes_ctx *ctx, const uint8_t *key, size_t key_len);
void se_aes_wipe(se_aes_ctx *ctx);

void se_aes_encrypt_block(const se_aes_ctx *ctx, const uint8_t in[SE_AES_BLOCK_BYTES],
                          uint8_t out[SE_AES_BLOCK_BYTES]);
void se_aes_decrypt_block(const se_aes_ctx *ctx, const uint8_t in[SE_AES_BLOCK_BYTES],
                          uint8_t out[SE_AES_BLOCK_BYTES]);
/* nblocks consecutive blocks; two run side by side, so this is ~2x faster per
 * block than calling the single-block functions. */
void se_aes_encrypt_blocks(const se_aes_ctx *ctx, const uint8_t *in, uint8_t *out, size_t nblocks);
void se_aes_decrypt_blocks(const se_aes_ctx *ctx, const uint8_t *in, uint8_t *out, size_t nblocks);

/* ---- SP 800-38A modes (aes_modes.c) -------------------------------------------------
 * ECB and CBC: len must be a multiple of 16 (0 allowed), else SE_ERR_BAD_LENGTH.
 * CBC, CTR and OFB update iv/ctr so that a following call continues the stream:
 * CBC leaves the last ciphertext block, CTR the next unused counter (the counter is
 * one 128-bit big-endian number that wraps modulo 2^128), OFB the last keystream
 * block. CTR/OFB accept any len; the unused tail of a last partial keystream block
 * is dropped, so only the final call of a stream may have len % 16 != 0. */
se_status se_aes_ecb_encrypt(const se_aes_ctx *ctx, const uint8_t *in, size_t len, uint8_t *out);
se_status se_aes_ecb_decrypt(const se_aes_ctx *ctx, const uint8_t *in, size_t len, uint8_t *out);
se_status se_aes_cbc_encrypt(const se_aes_ctx *ctx, uint8_t iv[SE_AES_BLOCK_BYTES],
                             const uint8_t *in, size_t len, uint8_t *out);
se_status se_aes_cbc_decrypt(const se_aes_ctx *ctx, uint8_t iv[SE_AES_BLOCK_BYTES],
                             const uint8_t *in, size_t len, uint8_t *out);
/* Encryption and decryption are the same operation. */
void se_aes_ctr_crypt(const se_aes_ctx *ctx, uint8_t ctr[SE_AES_BLOCK_BYTES],
                      const uint8_t *in, size_t len, uint8_t *out);
void se_aes_ofb_crypt(const se_aes_ctx *ctx, uint8_t iv[SE_AES_BLOCK_BYTES],
                      const uint8_t *in, size_t len, uint8_t *out);

/* Raw CBC-MAC with a zero IV over len bytes (a positive multiple of 16), tag =
 * first tag_len (4..16) bytes of the last cipher block. Errors: SE_ERR_BAD_LENGTH.
 * Only secure for messages of one fixed length; CCM is the safe way to use it. */
se_status se_aes_cbc_mac(const se_aes_ctx *ctx, const uint8_t *data, size_t len, uint8_t *tag,
                         size_t tag_len);

/* ---- AEAD ---------------------------------------------------------------------------
 * Decryption contract (CCM and GCM alike): the tag is checked with se_ct_equal;
 * on mismatch the function returns SE_ERR_BAD_TAG and the len bytes of pt are all
 * zero (when in place, the ciphertext is destroyed). GCM verifies before it
 * decrypts; CCM must decrypt to verify and wipes. No plaintext is ever released.
 * Argument errors (SE_ERR_BAD_LENGTH) are reported before any output is written. */

/* CCM: nonce_len 7..13, tag_len 4, 6, 8, 10, 12, 14 or 16 (CCM_8 = 8), any aad_len,
 * len < 2^(8q) with q = 15 - nonce_len (e.g. 64 KiB for a 13-byte nonce). */
se_status se_aes_ccm_encrypt(const se_aes_ctx *ctx, const uint8_t *nonce, size_t nonce_len,
                             const uint8_t *aad, size_t aad_len, const uint8_t *pt, size_t len,
                             uint8_t *ct, uint8_t *tag, size_t tag_len);
se_status se_aes_ccm_decrypt(const se_aes_ctx *ctx, const uint8_t *nonce, size_t nonce_len,
                             const uint8_t *aad, size_t aad_len, const uint8_t *ct, size_t len,
                             const uint8_t *tag, size_t tag_len, uint8_t *pt);

/* GCM key: the AES key plus the hash subkey H = E_K(0^128), computed once. */
typedef struct {
    se_aes_ctx aes;
    uint32_t h[4];
} se_aes_gcm_ctx;

/* key_len 16, 24 or 32, else SE_ERR_BAD_LENGTH. */
se_status se_aes_gcm_init(se_aes_gcm_ctx *ctx, const uint8_t *key, size_t key_len);
void se_aes_gcm_wipe(se_aes_gcm_ctx *ctx);

/* GCM: iv_len >= 1 (12 is the fast path; other lengths derive J0 with GHASH),
 * tag_len 4..16, len <= 2^36 - 32 bytes. Errors: SE_ERR_BAD_LENGTH. */
se_status se_aes_gcm_encrypt(const se_aes_gcm_ctx *ctx, const uint8_t *iv, size_t iv_len,
                             const uint8_t *aad, size_t aad_len, const uint8_t *pt, size_t len,
                             uint8_t *ct, uint8_t *tag, size_t tag_len);
se_status se_aes_gcm_decrypt(const se_aes_gcm_ctx *ctx, const uint8_t *iv, size_t iv_len,
                             const uint8_t *aad, size_t aad_len, const uint8_t *ct, size_t len,
                             const uint8_t *tag, size_t tag_len, uint8_t *pt);

/* ---- the keyed AEAD context of the crypto API ----------------------------------------- */
/* A keyed AEAD context, the crypto API's (se/backend.h): a key set up once (a DTLS/TLS epoch's),
 * then any number of messages sealed or opened under it, then ended by the backend's aead_wipe.
 * What it holds is the backend's: the library's expanded key (and GCM's hash key H), or the key
 * itself (se_aead_key_raw) for a backend that takes it with each message, or for the engine, whose
 * key slot holds it (and GCM's H) while the context lives: `slot` names that slot, and the key
 * stays here to load it again should another context have taken it. Firmware whose AEAD is the
 * engine's alone (SE_AEAD_NO_SOFTWARE, the rv32imc node, like SE_SHA256_NO_SOFTWARE) keeps no room
 * for an expanded key. */
typedef struct {
    uint8_t mode;    /* se_aead_mode */
    uint8_t key_len; /* 16, 24 or 32 */
    uint32_t slot;   /* the engine's key slot and this context's claim on it (se/drv.h); 0: none */
    union {
        uint8_t raw[32];
#ifndef SE_AEAD_NO_SOFTWARE
        se_aes_gcm_ctx sw; /* CCM uses its .aes */
#endif
    } u;
} se_aead_key;

/* Sets k up for a backend that takes the key with each message: the key kept as it is.
 * SE_ERR_BAD_LENGTH unless key_len is 16, 24 or 32. */
se_status se_aead_key_raw(se_aead_key *k, se_aead_mode mode, const uint8_t *key, size_t key_len);
/* Ends a context that holds nothing outside itself (the library's, se_aead_key_raw's): zeroes it. */
void se_aead_key_wipe(se_aead_key *k);
/* Ends a context se_aead_key_raw set up: zeroes what it wrote (the fields and u.raw), not the room
 * an expanded key would take, which such a context never uses. */
void se_aead_key_raw_wipe(se_aead_key *k);

/* ---- a DTLS 1.2 / TLS 1.2 AEAD record (RFC 5246 6.2.3.3) ----------------------------------- */
/* What protecting one record takes besides its keyed context and plaintext. The nonce is the
 * implicit salt || the explicit part, which is seq_num (RFC 5288 3, RFC 6655 3); the AAD is
 * seq_num || type || version || the plaintext's length. The record is its header (type, version,
 * for DTLS seq_num, then the body's length), then the body: the explicit part, the ciphertext and
 * the tag. The crypto API's record_seal/record_open (se/backend.h) take it. */
typedef struct {
    uint64_t seq_num; /* DTLS: epoch << 48 | sequence number */
    uint16_t version; /* 0xfefd DTLS 1.2, 0x0303 TLS 1.2 */
    uint8_t type;     /* the content type */
    uint8_t dtls;     /* 1: DTLS's 13-byte header, which carries seq_num; 0: TLS's 5 bytes */
    uint8_t tag_len;  /* 8 (CCM_8) or 16 */
    uint8_t salt[4];
} se_record;
#define SE_RECORD_MAX_PLAINTEXT 16384u /* 2^14 (RFC 5246 6.2.1) */
#define SE_RECORD_EXPLICIT 8u          /* the body's explicit nonce */
/* A MAC-then-encrypt CBC-SHA256 record's body (RFC 5246 6.2.3.2) for len bytes of plaintext: the IV,
 * then plaintext || HMAC-SHA256 || the shortest padding, encrypted. */
#define SE_RECORD_CBC_BODY(len) (16u + (((size_t)(len) + 48u) & ~(size_t)15))

#endif
