/* The crypto API with a backend chosen by the caller: one table of entry points shaped like the
 * engine drivers' (se/drv.h), with two implementations. `se_backend_sw` runs the crypto library
 * (sw/crypto); `se_backend_hw` runs the engine drivers (sw/drivers) on the hardware engine. The
 * CLI picks one at run time (--backend), the node's firmware at build time (SE_FW_HW). Semantics
 * and status codes are those of se/drv.h on both. */
#ifndef SE_BACKEND_H
#define SE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "se/drv.h"
#include "se/ec.h"
#include "se/status.h"

typedef struct {
    const char *name;         /* "sw" or "hw" */
    se_status (*probe)(void); /* NULL, or checks that the backend can run (the engine answers) */
    se_status (*sha256)(const uint8_t *msg, size_t len, uint8_t digest[32]);
    se_status (*hmac_sha256)(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t len,
                             uint8_t mac[32]);
    se_status (*aes_crypt)(se_drv_aes_mode mode, int decrypt, const uint8_t *key, size_t key_len,
                           const uint8_t iv[16], const uint8_t *in, size_t len, uint8_t *out);
    se_status (*cbc_mac)(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                         uint8_t *mac, size_t mac_len);
    se_status (*aead_encrypt)(se_drv_aead_mode mode, const uint8_t *key, size_t key_len,
                              const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                              size_t aad_len, const uint8_t *pt, size_t len, uint8_t *ct,
                              uint8_t *tag, size_t tag_len);
    se_status (*aead_decrypt)(se_drv_aead_mode mode, const uint8_t *key, size_t key_len,
                              const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                              size_t aad_len, const uint8_t *ct, size_t len, const uint8_t *tag,
                              size_t tag_len, uint8_t *pt);
    /* Makes curve c compute on this backend (sw: the library as it is; hw: the engine's pk or
     * gf2m IP). ECDH, ECDSA and key ops then run over c->ops. */
    se_status (*ec_curve)(se_ec_curve *c);
    se_status (*x25519)(uint8_t out[32], const uint8_t k[32], const uint8_t u[32]);
    /* r = a op b mod m (a^-1 for inversion), a and b already below m, all m_len bytes. */
    se_status (*mod)(se_drv_mod_op op, const uint8_t *m, size_t m_len, const uint8_t *a,
                     const uint8_t *b, uint8_t *r);
} se_backend;

extern const se_backend se_backend_sw; /* backend_sw.c */
extern const se_backend se_backend_hw; /* backend_hw.c */
/* The same less what the DTLS/TLS stack (se/tls.h) never calls: cbc_mac, ec_curve, x25519 and mod
 * are NULL, and the hw probe asks the AES, SHA and pk IPs only. Firmware that needs no more (the
 * sensor node) links no more; its curves come from se_ec_curve_builtin or se_ec_curve_engine. */
extern const se_backend se_backend_sw_tls;
extern const se_backend se_backend_hw_tls;

#endif
