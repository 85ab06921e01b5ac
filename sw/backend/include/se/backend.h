/* The crypto API with a backend chosen by the caller: one table of entry points, with two
 * implementations. `se_backend_sw` runs the crypto library (sw/crypto); `se_backend_hw` runs the
 * engine drivers (sw/drivers, se/drv.h) on the hardware engine. The tables are const: the CLI picks
 * one at run time (--backend), the node's firmware at build time (SE_FW_BACKEND, SE_FW_HW), and
 * nothing is patched while they run. Both give the same results and status codes (se/status.h);
 * the enums are the library's (se/aes.h, se/bn.h). */
#ifndef SE_BACKEND_H
#define SE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "se/aes.h"
#include "se/bn.h"
#include "se/ec.h"
#include "se/sha256.h"
#include "se/status.h"

/* The engine's protocol controller (rtl/ctrl; se/drv.h's se_drv_ctrl_*): its window and its
 * programs, which the stack runs where a backend has one: X509_PARSE (se_x509_parse_on), SIG_CHECK
 * (sig_check: se_x509_check_signature's hash and verification, on P-256 p256) and CHAIN_CHECK
 * (chain_check: the whole of se_x509_verify_chain). */
typedef struct {
    se_status (*write)(uint32_t addr, const uint8_t *p, size_t n);
    se_status (*read)(uint32_t addr, uint8_t *p, size_t n);
    se_status (*run)(unsigned prog, const uint16_t regs[16], unsigned mask, unsigned *result, uint32_t out[16],
                     uint32_t *valid);
    se_status (*sig_check)(const se_ec_curve *p256, const uint8_t *tbs, size_t tbs_len, const uint8_t sig[64],
                           const uint8_t pub[65]);
    se_status (*chain_check)(const se_ec_curve *p256, const uint8_t *const *chain, const size_t *chain_len, size_t n,
                             const uint8_t *const *anchors, const size_t *anchor_len, size_t n_anchors, int64_t now,
                             const char *name, uint8_t leaf_pub[65]);
} se_ctrl_engine;

typedef struct {
    const char *name;         /* "sw" or "hw" */
    se_status (*probe)(void); /* NULL, or checks that the backend can run (the engine answers) */
    se_status (*sha256)(const uint8_t *msg, size_t len, uint8_t digest[32]);
    /* Where SHA-256 contexts, HMAC-DRBG and RFC 6979 hash when started on this backend
     * (se_sha256_init_on, se_hmac_drbg_instantiate_on; the curves of ec_curve carry it): NULL
     * for the library (software), the SHA IP for the engine. */
    const se_sha256_engine *sha;
    se_status (*hmac_sha256)(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t len,
                             uint8_t mac[32]);
    se_status (*aes_crypt)(se_aes_mode mode, int decrypt, const uint8_t *key, size_t key_len,
                           const uint8_t iv[16], const uint8_t *in, size_t len, uint8_t *out);
    se_status (*cbc_mac)(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                         uint8_t *mac, size_t mac_len);
    /* AEAD over a keyed context (se/aes.h's se_aead_key): aead_key sets it up (SE_ERR_BAD_LENGTH
     * for a key length other than 16, 24, 32), then seal and open each take one message: GCM (any
     * non-empty nonce, tag 4..16) and CCM (nonce 7..13, even tag 4..16). open returns
     * SE_ERR_BAD_TAG without touching pt when the tag does not verify. aead_wipe ends the context:
     * the engine wipes the key slot that held it, and the context is zeroed. */
    se_status (*aead_key)(se_aead_key *k, se_aead_mode mode, const uint8_t *key, size_t key_len);
    void (*aead_wipe)(se_aead_key *k);
    se_status (*aead_seal)(const se_aead_key *k, const uint8_t *nonce, size_t nonce_len,
                           const uint8_t *aad, size_t aad_len, const uint8_t *pt, size_t len,
                           uint8_t *ct, uint8_t *tag, size_t tag_len);
    se_status (*aead_open)(const se_aead_key *k, const uint8_t *nonce, size_t nonce_len,
                           const uint8_t *aad, size_t aad_len, const uint8_t *ct, size_t len,
                           const uint8_t *tag, size_t tag_len, uint8_t *pt);
    /* One DTLS/TLS 1.2 AEAD record (se/aes.h's se_record) under a context of aead_key, GCM or CCM.
     * record_seal writes the whole record at rec: the header, the explicit nonce, the ciphertext of
     * the len (<= SE_RECORD_MAX_PLAINTEXT) bytes at pt, which lie apart from the record or already
     * at its body + 8, and the tag; header + 8 + len + tag_len bytes. record_open checks the n-byte
     * body (explicit nonce || ciphertext || tag) and decrypts it in place: the plaintext at body + 8,
     * n - 8 - tag_len bytes; SE_ERR_BAD_TAG, and no plaintext released, when the tag fails.
     * SE_ERR_BAD_LENGTH for lengths out of range. The engine runs each as one DMA command (SEAL,
     * OPEN); the library and the soc backend through aead_seal/aead_open. */
    se_status (*record_seal)(const se_aead_key *k, const se_record *r, const uint8_t *pt, size_t len,
                             uint8_t *rec);
    se_status (*record_open)(const se_aead_key *k, const se_record *r, uint8_t *body, size_t n);
    /* One MAC-then-encrypt CBC-SHA256 record (RFC 5246 6.2.3.2; not RFC 7366's encrypt-then-MAC)
     * under k, a context of aead_key with mode SE_AEAD_CBC (the AES key; such a backend's aead_key
     * keeps it in k->u.raw too, as se_aead_key_raw does, for the stack's encrypt-then-MAC records
     * and its fallback), and mac_key, the 32-byte
     * HMAC key; r's salt and tag_len are not used. cbc_record_seal: the record at rec, whose 16-byte
     * IV the caller has put at its body (rec + 13 for DTLS, + 5 for TLS) and the len
     * (<= SE_RECORD_MAX_PLAINTEXT) bytes of plaintext after it: writes the header, the MAC and the
     * padding after the plaintext, and encrypts in place; the body is SE_RECORD_CBC_BODY(len)
     * bytes. cbc_record_open: body is IV || ciphertext, n bytes (a multiple of 16, 64 to 2^14 + 2048);
     * decrypts it in place and checks padding and MAC in constant time (Lucky Thirteen); the
     * plaintext at body + 16, *len bytes. SE_ERR_BAD_TAG for a bad padding or MAC alike, with no
     * plaintext written. SE_ERR_NOT_SUPPORTED when the engine cannot reach a buffer (nothing done).
     * NULL where the DTLS/TLS stack does this itself (sw/proto/tls_cbc.c): the engine runs each as
     * one DMA command (SEAL_CBC, OPEN_CBC, rtl/dma/README.md). */
    se_status (*cbc_record_seal)(const se_aead_key *k, const uint8_t mac_key[32], const se_record *r, uint8_t *rec,
                                 size_t len);
    se_status (*cbc_record_open)(const se_aead_key *k, const uint8_t mac_key[32], const se_record *r, uint8_t *body,
                                 size_t n, size_t *len);
    /* Makes curve c compute on this backend (sw: the library as it is; hw: the engine's pk or
     * gf2m IP). ECDH, ECDSA and key ops then run over c->ops. */
    se_status (*ec_curve)(se_ec_curve *c);
    se_status (*x25519)(uint8_t out[32], const uint8_t k[32], const uint8_t u[32]);
    /* r = a op b mod m (a^-1 for inversion), a and b already below m, all m_len bytes. */
    se_status (*mod)(se_mod_op op, const uint8_t *m, size_t m_len, const uint8_t *a,
                     const uint8_t *b, uint8_t *r);
    /* The protocol controller: NULL but in hw (the CLI's --backend rtl). */
    const se_ctrl_engine *ctrl;
} se_backend;

extern const se_backend se_backend_sw; /* backend_sw.c */
extern const se_backend se_backend_hw; /* backend_hw.c */
/* The same less what the node's DTLS client (se/tls.h built with SE_TLS_NO_CBC) never calls:
 * aes_crypt (the CBC suite's), cbc_mac, ec_curve, x25519, mod and ctrl are NULL, and so are hw's
 * aead_seal and aead_open where the stack is built without connection IDs (SE_TLS_NO_CID: records
 * are record_seal/open's; a tls12_cid record is made of AEAD messages), and the hw probe asks the DMA and
 * the AES, SHA and pk IPs only. Firmware that needs no more (the sensor node) links no more; its
 * curves come from se_ec_curve_builtin or se_ec_curve_engine. A stack with the CBC suite takes
 * the whole table. */
extern const se_backend se_backend_sw_tls;
extern const se_backend se_backend_hw_tls;

/* record_seal and record_open made of be's aead_seal and aead_open: the backends without a
 * record command of their own (sw, soc), and the engine's when its DMA cannot reach a buffer. */
se_status se_backend_record_seal(const se_backend *be, const se_aead_key *k, const se_record *r, const uint8_t *pt,
                                 size_t len, uint8_t *rec);
se_status se_backend_record_open(const se_backend *be, const se_aead_key *k, const se_record *r, uint8_t *body,
                                 size_t n);

/* One message under a key used once: be's aead_key, then its seal or open, then the context
 * wiped. */
se_status se_backend_aead_encrypt(const se_backend *be, se_aead_mode mode, const uint8_t *key, size_t key_len,
                                  const uint8_t *nonce, size_t nonce_len, const uint8_t *aad, size_t aad_len,
                                  const uint8_t *pt, size_t len, uint8_t *ct, uint8_t *tag, size_t tag_len);
se_status se_backend_aead_decrypt(const se_backend *be, se_aead_mode mode, const uint8_t *key, size_t key_len,
                                  const uint8_t *nonce, size_t nonce_len, const uint8_t *aad, size_t aad_len,
                                  const uint8_t *ct, size_t len, const uint8_t *tag, size_t tag_len,
                                  uint8_t *pt);

#endif
