/* What every backend shares (se/backend.h): one AEAD message under a key used once. */
#include "se/backend.h"

se_status se_backend_aead_encrypt(const se_backend *be, se_aead_mode mode, const uint8_t *key, size_t key_len,
                                  const uint8_t *nonce, size_t nonce_len, const uint8_t *aad, size_t aad_len,
                                  const uint8_t *pt, size_t len, uint8_t *ct, uint8_t *tag, size_t tag_len)
{
    se_aead_key k;
    se_status st = be->aead_key(&k, mode, key, key_len);

    if (st == SE_OK)
        st = be->aead_seal(&k, nonce, nonce_len, aad, aad_len, pt, len, ct, tag, tag_len);
    be->aead_wipe(&k);
    return st;
}

se_status se_backend_aead_decrypt(const se_backend *be, se_aead_mode mode, const uint8_t *key, size_t key_len,
                                  const uint8_t *nonce, size_t nonce_len, const uint8_t *aad, size_t aad_len,
                                  const uint8_t *ct, size_t len, const uint8_t *tag, size_t tag_len,
                                  uint8_t *pt)
{
    se_aead_key k;
    se_status st = be->aead_key(&k, mode, key, key_len);

    if (st == SE_OK)
        st = be->aead_open(&k, nonce, nonce_len, aad, aad_len, ct, len, tag, tag_len, pt);
    be->aead_wipe(&k);
    return st;
}
