/* What every backend shares (se/backend.h): one AEAD message under a key used once, and a DTLS/TLS
 * record made of AEAD messages. */
#include <string.h>

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

/* v as n big-endian bytes at p; the byte after them. */
static uint8_t *put_be(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
    return p + n;
}

/* The nonce (salt || the body's explicit part) and the AAD of a record whose plaintext is len bytes. */
static void record_nonce_aad(const se_record *r, const uint8_t *body, size_t len, uint8_t nonce[12], uint8_t ad[13])
{
    memcpy(nonce, r->salt, 4);
    memcpy(nonce + 4, body, SE_RECORD_EXPLICIT);
    put_be(put_be(put_be(put_be(ad, r->seq_num, 8), r->type, 1), r->version, 2), len, 2);
}

static int record_tag_ok(const se_record *r)
{
    return r->tag_len == 8 || r->tag_len == 16;
}

se_status se_backend_record_seal(const se_backend *be, const se_aead_key *k, const se_record *r, const uint8_t *pt,
                                 size_t len, uint8_t *rec)
{
    uint8_t nonce[12], ad[13], *p;

    if (len > SE_RECORD_MAX_PLAINTEXT || !record_tag_ok(r))
        return SE_ERR_BAD_LENGTH;
    /* the header: type, version, DTLS's seq_num, the body's length; then the explicit nonce */
    p = put_be(put_be(rec, r->type, 1), r->version, 2);
    if (r->dtls)
        p = put_be(p, r->seq_num, 8);
    p = put_be(p, SE_RECORD_EXPLICIT + len + r->tag_len, 2);
    put_be(p, r->seq_num, SE_RECORD_EXPLICIT);
    record_nonce_aad(r, p, len, nonce, ad);
    p += SE_RECORD_EXPLICIT;
    return be->aead_seal(k, nonce, 12, ad, 13, pt, len, p, p + len, r->tag_len);
}

se_status se_backend_record_open(const se_backend *be, const se_aead_key *k, const se_record *r, uint8_t *body,
                                 size_t n)
{
    uint8_t nonce[12], ad[13];
    size_t len = n - SE_RECORD_EXPLICIT - r->tag_len; /* (checked below) */

    if (!record_tag_ok(r) || n < SE_RECORD_EXPLICIT + r->tag_len || len > SE_RECORD_MAX_PLAINTEXT)
        return SE_ERR_BAD_LENGTH;
    record_nonce_aad(r, body, len, nonce, ad);
    body += SE_RECORD_EXPLICIT;
    return be->aead_open(k, nonce, 12, ad, 13, body, len, body + len, r->tag_len, body);
}
