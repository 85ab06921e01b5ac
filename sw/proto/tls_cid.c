/* DTLS 1.2 Connection ID (RFC 9146): the connection_id extension in both hellos, and the
 * tls12_cid record (content type 25) for the AEAD suites.
 *
 * Who has which CID: a client offers an empty CID of its own (the server's records to it carry
 * none); a server names each connection with a random CID of SE_TLS_CID_LEN bytes, which the
 * client's records carry from the first protected epoch on. So records to the server are
 * tls12_cid records and records to the client are ordinary ones (RFC 9146 3: a zero-length CID
 * means none is sent). A tls12_cid record:
 *
 *   header   25 || version || epoch || sequence number (6) || cid || length (2)
 *   body     explicit nonce (8) || AEAD(DTLSInnerPlaintext = content || real type || zeros) || tag
 *   AAD      8 x 0xff || 25 || cid length (1) || 25 || version || epoch || sequence number || cid
 *            || length of DTLSInnerPlaintext (2)                                    (RFC 9146 5)
 *
 * The AEAD runs through the crypto API's aead_seal/aead_open (se_tls_init refuses the option on a
 * backend without them: on the engine, one DMA AEAD message each, not the SEAL/OPEN record commands,
 * which build ordinary headers); the nonce is the suite's, salt || the explicit part. Built out with
 * -DSE_TLS_NO_CID (the node's size build, rv32imc: the Makefile's NODE_TLS_FLAGS_rv32imc). */
#include "tls_internal.h"

#ifndef SE_TLS_NO_CID

/* The header of a tls12_cid record carrying `cid_len` bytes of CID. */
#define CID_HDR(cid_len) (13u + (size_t)(cid_len))

const uint8_t *se_tls_own_cid(const se_tls *t, size_t *len)
{
    *len = t->cid_on ? t->cid_in_len : 0;
    return t->cid_on ? t->cid_in : NULL;
}

size_t se_tls_cid_hello_ext(const se_tls *t, uint8_t *out)
{
    if (!is_dtls(t) || !t->cfg->cid)
        return 0;
    if (t->cfg->role == SE_TLS_SERVER && !t->cid_on)
        return 0;
    size_t n = t->cfg->role == SE_TLS_SERVER ? t->cid_in_len : 0; /* the client's own CID is empty */
    out[0] = 0;
    out[1] = EXT_CID;
    out[2] = 0;
    out[3] = (uint8_t)(1 + n);
    out[4] = (uint8_t)n;
    memcpy(out + 5, t->cid_in, n);
    return 5 + n;
}

/* The peer's CID from the extension_data of its hello: opaque cid<0..2^8-1>, nothing after it. */
static se_status peer_cid(se_tls *t, tls_rd d)
{
    tls_rd cid = se_rd_vec(&d, 1);
    if (d.bad || d.n != 0)
        return se_tls_fail(t, SE_ERR_TLS_DECODE, SE_TLS_ALERT_DECODE_ERROR);
    if (cid.n > SE_TLS_MAX_CID)
        return se_tls_fail(t, SE_ERR_TLS_ILLEGAL_PARAMETER, SE_TLS_ALERT_ILLEGAL_PARAMETER);
    memcpy(t->cid_out, cid.p, cid.n);
    t->cid_out_len = (uint8_t)cid.n;
    t->cid_on = 1; /* (a server's: offered; se_tls_cid_accept decides) */
    return SE_OK;
}

se_status se_tls_cid_server_hello(se_tls *t, tls_rd d)
{
    if (!is_dtls(t) || !t->cfg->cid) /* not offered: unsupported_extension */
        return se_tls_fail(t, SE_ERR_TLS_ILLEGAL_PARAMETER, SE_TLS_ALERT_UNSUPPORTED_EXTENSION);
    return peer_cid(t, d);
}

se_status se_tls_cid_client_hello(se_tls *t, tls_rd d)
{
    return peer_cid(t, d);
}

se_status se_tls_cid_accept(se_tls *t)
{
    if (!t->cid_on)
        return SE_OK;
    if (!is_dtls(t) || !t->cfg->cid || tls_is_cbc(t->suite)) { /* not answered: no CID */
        t->cid_on = 0;
        t->cid_out_len = 0;
        return SE_OK;
    }
    t->cid_in_len = SE_TLS_CID_LEN;
    return se_hmac_drbg_generate(t->cfg->rng, t->cid_in, SE_TLS_CID_LEN, NULL, 0);
}

int se_tls_cid_sending(const se_tls *t, uint16_t epoch)
{
    return epoch != 0 && t->cid_on && t->cid_out_len != 0;
}

size_t se_tls_cid_extra(const se_tls *t, uint16_t epoch)
{
    return se_tls_cid_sending(t, epoch) ? (size_t)t->cid_out_len + 1u : 0; /* the CID, the real type */
}

/* The nonce (salt || the record's explicit part) and the AAD of a tls12_cid record. */
static size_t cid_nonce_aad(const se_tls_rec *r, const uint8_t explicit_part[8], uint64_t sn, const uint8_t *cid,
                            size_t cid_len, size_t inner_len, uint8_t nonce[12], uint8_t *ad)
{
    size_t k = 8;
    memcpy(nonce, r->iv, 4);
    memcpy(nonce + 4, explicit_part, 8);
    memset(ad, 0xff, 8); /* seq_num_placeholder */
    ad[k++] = CT_CID;
    ad[k++] = (uint8_t)cid_len;
    ad[k++] = CT_CID;
    put_be(ad + k, DTLS_VERSION, 2);
    put_be(ad + k + 2, sn, 8); /* epoch || sequence number */
    k += 10;
    memcpy(ad + k, cid, cid_len);
    k += cid_len;
    put_be(ad + k, inner_len, 2);
    return k + 2;
}

se_status se_tls_cid_seal(se_tls *t, uint8_t type, uint64_t sn, uint8_t *rec, size_t len, size_t *n)
{
    const se_tls_rec *r = &t->wr;
    size_t h = CID_HDR(t->cid_out_len), tag = r->cls->overhead - 8u, inner = len + 1;
    uint8_t nonce[12], ad[8 + 3 + 10 + SE_TLS_MAX_CID + 2];
    uint8_t *body = rec + h, *pt = body + 8;

    pt[len] = type; /* DTLSInnerPlaintext: the content (already at pt), its type, no padding */
    rec[0] = CT_CID;
    put_be(rec + 1, DTLS_VERSION, 2);
    put_be(rec + 3, sn, 8);
    memcpy(rec + 11, t->cid_out, t->cid_out_len);
    put_be(rec + h - 2, 8 + inner + tag, 2);
    put_be(body, sn, 8); /* the explicit nonce */
    size_t ad_len = cid_nonce_aad(r, body, sn, t->cid_out, t->cid_out_len, inner, nonce, ad);
    *n = h - 13 + 8 + inner + tag; /* past the 13 bytes se_tls_record counts as the header */
    return t->cfg->crypto->aead_seal(&r->k.aead, nonce, 12, ad, ad_len, pt, inner, pt, pt + inner, tag);
}

int se_tls_cid_expected(const se_tls *t)
{
    return t->cid_on && t->cid_in_len != 0;
}

size_t se_tls_cid_header(const se_tls *t, const uint8_t *d, size_t len)
{
    size_t h = CID_HDR(t->cid_in_len);
    if (!t->cid_on || t->cid_in_len == 0 || len < h || d[0] != CT_CID)
        return 0;
    return h;
}

se_status se_tls_cid_open(se_tls *t, const uint8_t *rec, uint64_t sn, uint8_t *body, size_t n, uint8_t *type,
                          uint8_t **pt, size_t *pt_len)
{
    const se_tls_rec *r = &t->rd;
    size_t tag = r->cls->overhead - 8u;
    uint8_t nonce[12], ad[8 + 3 + 10 + SE_TLS_MAX_CID + 2];

    if (memcmp(rec + 11, t->cid_in, t->cid_in_len) != 0 || n < 8 + 1 + tag)
        return SE_ERR_TLS_DECODE;
    size_t inner = n - 8 - tag;
    size_t ad_len = cid_nonce_aad(r, body, sn, t->cid_in, t->cid_in_len, inner, nonce, ad);
    uint8_t *ct = body + 8;
    if (t->cfg->crypto->aead_open(&r->k.aead, nonce, 12, ad, ad_len, ct, inner, ct + inner, tag, ct) != SE_OK)
        return SE_ERR_BAD_TAG;
    /* The real type: the last non-zero byte of DTLSInnerPlaintext (zeros after it are padding). */
    size_t k = inner;
    while (k > 0 && ct[k - 1] == 0)
        k--;
    if (k == 0)
        return SE_ERR_TLS_DECODE;
    *type = ct[k - 1];
    *pt = ct;
    *pt_len = k - 1;
    return SE_OK;
}

#endif
