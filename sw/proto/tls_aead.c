/* Record protection of the AEAD suites (RFC 5246 6.2.3.3): AES-128-CCM_8 (RFC 6655, 7251) and
 * AES-128-GCM (RFC 5288), over the crypto API's keyed AEAD context, set up once per epoch, and its
 * record_seal/record_open (se/backend.h). The nonce is the 4-byte implicit salt || the 8-byte
 * explicit part, which is the record's seq_num. */
#include "tls_internal.h"

/* The key block: client key, server key, client salt, server salt. */
static se_status aead_init(const se_tls *t, se_tls_rec *client, se_tls_rec *server, const uint8_t *kb)
{
    const se_backend *be = t->cfg->crypto;
    se_aead_mode mode = (se_aead_mode)client->cls->aead_mode;
    memcpy(client->iv, kb + 32, 4);
    memcpy(server->iv, kb + 36, 4);
    se_status st = be->aead_key(&client->k.aead, mode, kb, 16);
    return st == SE_OK ? be->aead_key(&server->k.aead, mode, kb + 16, 16) : st;
}

/* The record's fields as the crypto API takes them. */
static void record_of(const se_tls *t, const se_tls_rec *r, uint8_t type, uint64_t sn, se_record *x)
{
    tls_record_fields(t, type, sn, x);
    x->tag_len = (uint8_t)(r->cls->overhead - 8u);
    memcpy(x->salt, r->iv, 4);
}

/* The backend writes the whole record, header included (on the engine: one DMA SEAL). */
static se_status aead_seal(se_tls *t, const se_tls_rec *r, uint8_t type, uint64_t sn, const uint8_t *src,
                           uint8_t *rec, size_t len, size_t *n)
{
    se_record x;

    record_of(t, r, type, sn, &x);
    *n = len + r->cls->overhead;
    return t->cfg->crypto->record_seal(&r->k.aead, &x, src, len, rec);
}

static se_status aead_open(const se_tls *t, const se_tls_rec *r, uint8_t type, uint64_t sn, uint8_t *body,
                           size_t n, size_t *pt_len)
{
    se_record x;

    if (n < r->cls->overhead)
        return SE_ERR_BAD_TAG;
    record_of(t, r, type, sn, &x);
    *pt_len = n - r->cls->overhead;
    return t->cfg->crypto->record_open(&r->k.aead, &x, body, n) == SE_OK ? SE_OK : SE_ERR_BAD_TAG;
}

/* The backend ends the keyed context: the engine wipes the key slot that held it. */
static void aead_end(const se_tls *t, se_tls_rec *r)
{
    t->cfg->crypto->aead_wipe(&r->k.aead);
}

const se_tls_rec_class se_tls_rec_ccm8 = {
    .iv_len = 4, .explicit_len = 8, .overhead = 8 + 8, .aead_mode = SE_AEAD_CCM,
    .init = aead_init, .seal = aead_seal, .open = aead_open, .end = aead_end,
};

const se_tls_rec_class se_tls_rec_gcm = {
    .iv_len = 4, .explicit_len = 8, .overhead = 8 + 16, .aead_mode = SE_AEAD_GCM,
    .init = aead_init, .seal = aead_seal, .open = aead_open, .end = aead_end,
};
