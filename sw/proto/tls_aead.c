/* Record protection of the AEAD suites (RFC 5246 6.2.3.3): AES-128-CCM_8 (RFC 6655, 7251) and
 * AES-128-GCM (RFC 5288), over the crypto API's keyed AEAD context, set up once per epoch. The
 * nonce is the 4-byte implicit salt || the 8-byte explicit part, which is the record's seq_num. */
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

/* Seals src (len bytes) or opens the len bytes after the explicit nonce in place, into the bytes
 * after the explicit nonce, the tag after them (noinline: one body for both directions, which LTO
 * would copy into each). */
__attribute__((noinline)) static se_status aead_crypt(const se_tls *t, const se_tls_rec *r, uint8_t type, uint64_t sn,
                                                      const uint8_t *src, uint8_t *body, size_t len, int open)
{
    const se_backend *be = t->cfg->crypto;
    uint8_t ph[13], nonce[12], *p = body + 8;
    size_t tl = r->cls->overhead - 8u;

    if (!open)
        put_be(body, sn, 8); /* the explicit nonce */
    se_tls_pseudo_header(t, ph, sn, type, len);
    memcpy(nonce, r->iv, 4);
    memcpy(nonce + 4, body, 8);
    return open ? be->aead_open(&r->k.aead, nonce, 12, ph, 13, p, len, p + len, tl, p)
                : be->aead_seal(&r->k.aead, nonce, 12, ph, 13, src, len, p, p + len, tl);
}

static se_status aead_seal(se_tls *t, const se_tls_rec *r, uint8_t type, uint64_t sn, const uint8_t *src,
                           uint8_t *body, size_t len, size_t *n)
{
    *n = len + r->cls->overhead;
    return aead_crypt(t, r, type, sn, src, body, len, 0);
}

static se_status aead_open(const se_tls *t, const se_tls_rec *r, uint8_t type, uint64_t sn, uint8_t *body,
                           size_t n, size_t *pt_len)
{
    if (n < r->cls->overhead)
        return SE_ERR_BAD_TAG;
    *pt_len = n - r->cls->overhead;
    return aead_crypt(t, r, type, sn, NULL, body, *pt_len, 1) == SE_OK ? SE_OK : SE_ERR_BAD_TAG;
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
