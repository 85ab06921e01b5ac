/* Engine drivers: AES (all modes, AEAD) and SHA-256/HMAC on the hardware engine.
 *
 * One copy of this code serves the CLI's --backend rtl (host, Verilator model) and the node's
 * firmware (issue 5). The entry points are one-shot and mirror the `sw` library's semantics and
 * status codes, so the same vectors run through either. Register layouts come from the generated
 * headers se/hw/<ip>_regs.h (tools/regtool.py from rtl/<ip>/regs.toml). */
#ifndef SE_DRV_H
#define SE_DRV_H

#include <stddef.h>
#include <stdint.h>

#include "se/status.h"

typedef enum { SE_DRV_ECB = 0, SE_DRV_CBC, SE_DRV_CTR, SE_DRV_OFB } se_drv_aes_mode;
typedef enum { SE_DRV_GCM = 0, SE_DRV_CCM } se_drv_aead_mode;

/* SE_OK when the engine answers with the expected NAME and a major VERSION this driver knows,
 * SE_ERR_NOT_SUPPORTED otherwise. */
se_status se_drv_aes_probe(void);
se_status se_drv_sha_probe(void);

/* ECB/CBC need a multiple of 16 bytes; CTR/OFB any length. iv is the CBC/OFB IV or the initial
 * CTR counter block (unused for ECB). */
se_status se_drv_aes_crypt(se_drv_aes_mode mode, int decrypt, const uint8_t *key, size_t key_len,
                           const uint8_t iv[16], const uint8_t *in, size_t len, uint8_t *out);

/* CBC-MAC (zero IV) over a non-empty multiple of 16 bytes, truncated to mac_len 4..16. */
se_status se_drv_aes_cbc_mac(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                             uint8_t *mac, size_t mac_len);

/* GCM (any non-empty IV, tag 4..16) and CCM (nonce 7..13, even tag 4..16). Decryption returns
 * SE_ERR_BAD_TAG without touching `pt` when the tag does not verify: the engine holds the
 * plaintext until its own tag check passes, so a message longer than the engine's plaintext
 * buffer (CAPABILITIES.PTBUF_BLOCKS blocks) is refused with SE_ERR_BAD_LENGTH. */
se_status se_drv_aead_encrypt(se_drv_aead_mode mode, const uint8_t *key, size_t key_len,
                              const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                              size_t aad_len, const uint8_t *pt, size_t len, uint8_t *ct,
                              uint8_t *tag, size_t tag_len);
se_status se_drv_aead_decrypt(se_drv_aead_mode mode, const uint8_t *key, size_t key_len,
                              const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                              size_t aad_len, const uint8_t *ct, size_t len, const uint8_t *tag,
                              size_t tag_len, uint8_t *pt);

se_status se_drv_sha256(const uint8_t *msg, size_t len, uint8_t digest[32]);

/* The key is loaded into the engine (hashed first when longer than 64 bytes, RFC 2104). */
se_status se_drv_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t len,
                             uint8_t mac[32]);

#endif
