/* The handshake (RFC 5246 7.4 with RFC 4492/8422 ECDHE-ECDSA, RFC 7627, RFC 5746), one state
 * machine for both transports and both roles:
 *
 *   client                                   server
 *   ClientHello              -->
 *                            <--   HelloVerifyRequest (DTLS; the client repeats its hello)
 *                            <--   ServerHello, Certificate, ServerKeyExchange,
 *                                  [CertificateRequest], ServerHelloDone
 *   [Certificate], ClientKeyExchange, [CertificateVerify],
 *   ChangeCipherSpec, Finished -->
 *                            <--   ChangeCipherSpec, Finished
 *
 * Each received message is checked against the state (t->hs), parsed with bounds-checked
 * readers, and answered by building the next flight (tls_dtls.c sends it). */
#include "se/ct.h"
#include "tls_internal.h"

static const uint16_t default_suites[3] = {
    SE_TLS_ECDHE_ECDSA_AES_128_CCM_8, SE_TLS_ECDHE_ECDSA_AES_128_GCM_SHA256,
    SE_TLS_ECDHE_ECDSA_AES_128_CBC_SHA256, /* last: left out without CBC */
};

static const uint16_t *suites(const se_tls *t, size_t *n)
{
    *n = t->cfg->suites ? t->cfg->n_suites : 2 + TLS_CBC;
    return t->cfg->suites ? t->cfg->suites : default_suites;
}

static se_status decode_error(se_tls *t)
{
    return se_tls_fail(t, SE_ERR_TLS_DECODE, SE_TLS_ALERT_DECODE_ERROR);
}

/* st != SE_OK fails the connection with `alert`. */
static se_status check(se_tls *t, se_status st, int alert)
{
    return st == SE_OK ? SE_OK : se_tls_fail(t, st, alert);
}

/* Does the vector (items of `size` bytes) contain `item`? */
static int has_item(tls_rd v, uint32_t item, int size)
{
    while (v.n >= (size_t)size)
        if ((size == 1 ? se_rd_u8(&v) : se_rd_u16(&v)) == item)
            return 1;
    return 0;
}

/* An extension's body that is one list (len_bytes length prefix, items of `item`
 * bytes): it must fill the body exactly and hold at least one whole item. bad otherwise. */
static tls_rd ext_list(tls_rd d, int len_bytes, size_t item)
{
    tls_rd v = se_rd_vec(&d, len_bytes);
    v.bad = d.bad || d.n != 0 || v.n == 0 || v.n % item != 0;
    return v;
}

/* ec_point_formats (both hellos): a list that must allow uncompressed (RFC 8422 5.1.2). */
static se_status ext_point_formats(se_tls *t, tls_rd d)
{
    tls_rd v = ext_list(d, 1, 1);
    if (v.bad)
        return decode_error(t);
    return has_item(v, 0, 1) ? SE_OK : se_tls_fail(t, SE_ERR_TLS_ILLEGAL_PARAMETER, SE_TLS_ALERT_ILLEGAL_PARAMETER);
}

/* renegotiation_info (both hellos) on an initial handshake: renegotiated_connection is empty
 * (RFC 5746 3.4, 3.6). */
static se_status ext_renegotiation_info(se_tls *t, tls_rd d)
{
    tls_rd v = se_rd_vec(&d, 1);
    if (d.bad || d.n != 0)
        return decode_error(t);
    return v.n == 0 ? SE_OK : se_tls_fail(t, SE_ERR_TLS_HANDSHAKE, SE_TLS_ALERT_HANDSHAKE_FAILURE);
}

/* ---- certificates and signatures -------------------------------------------------------- */
/* Certificate message with our chain (or an empty list). */
static se_status cert_msg(se_tls *t, int own)
{
    const se_tls_config *c = t->cfg;
    tls_wr w = se_tls_msg_begin(t);
    size_t total = 0, n = own ? c->chain_n : 0;

    for (size_t i = 0; i < n; i++)
        total += 3 + c->chain_len[i];
    se_wr_uint(&w, (uint32_t)total, 3);
    for (size_t i = 0; i < n; i++) {
        se_wr_uint(&w, (uint32_t)c->chain_len[i], 3);
        se_wr_bytes(&w, c->chain[i], c->chain_len[i]);
    }
    return se_tls_msg_end(t, HT_CERTIFICATE, &w);
}

/* A certificate failure's alert (RFC 5246 7.2.2). */
static int cert_alert(se_status st)
{
    switch (st) {
    case SE_ERR_CERT_EXPIRED:
    case SE_ERR_CERT_NOT_YET_VALID:
        return SE_TLS_ALERT_CERTIFICATE_EXPIRED;
    case SE_ERR_CERT_UNKNOWN_CA:
        return SE_TLS_ALERT_UNKNOWN_CA;
    case SE_ERR_CERT_UNSUPPORTED:
        return SE_TLS_ALERT_UNSUPPORTED_CERTIFICATE;
    default:
        return SE_TLS_ALERT_BAD_CERTIFICATE;
    }
}

/* The peer's commonName (cn may be NULL), printable ASCII only. */
static void set_peer_cn(se_tls *t, const uint8_t *cn, size_t len)
{
    size_t k = cn == NULL ? 0 : len < SE_TLS_MAX_CN - 1 ? len : SE_TLS_MAX_CN - 1;
    for (size_t i = 0; i < k; i++)
        t->peer_cn[i] = cn[i] >= 0x20 && cn[i] < 0x7f ? (char)cn[i] : '?';
    t->peer_cn[k] = 0;
}

/* The peer's Certificate message: chain verification (or the client's cache), leaf key and name. */
static se_status peer_certificate(se_tls *t, tls_rd *r)
{
    const se_tls_config *c = t->cfg;
    const uint8_t *certs[SE_X509_MAX_CHAIN + 1];
    size_t lens[SE_X509_MAX_CHAIN + 1], n = 0;
    tls_rd list = se_rd_vec(r, 3);
    uint8_t fp[32];
    se_x509 leaf;
    se_status st;

    if (r->bad || r->n != 0)
        return decode_error(t);
    while (list.n > 0) {
        tls_rd one = se_rd_vec(&list, 3);
        if (list.bad || one.n == 0)
            return decode_error(t);
        if (n == SE_X509_MAX_CHAIN + 1)
            return se_tls_fail(t, SE_ERR_CERT_CHAIN, SE_TLS_ALERT_BAD_CERTIFICATE);
        certs[n] = one.p;
        lens[n++] = one.n;
    }
    if (n == 0) {
        if (!is_server(t))
            return se_tls_fail(t, SE_ERR_TLS_HANDSHAKE, SE_TLS_ALERT_HANDSHAKE_FAILURE);
        if (c->client_auth == SE_TLS_CLIENT_CERT_REQUIRED)
            return se_tls_fail(t, SE_ERR_TLS_CERT_REQUIRED, SE_TLS_ALERT_HANDSHAKE_FAILURE);
        return SE_OK; /* an anonymous client */
    }
    se_tls_phase(t, "cert_verify");
    /* Cached-certificate mode: the same leaf as last time needs no chain verification. */
    t->used_cache = 0;
    if (!is_server(t) && c->cache != NULL) {
        if ((st = c->crypto->sha256(certs[0], lens[0], fp)) != SE_OK)
            return se_tls_fail(t, st, SE_TLS_ALERT_INTERNAL_ERROR);
        const se_tls_cert_cache *cc = c->cache;
        if (cc->valid && se_ct_equal(fp, cc->fingerprint, 32) && memchr(cc->name, 0, SE_TLS_CACHE_NAME) != NULL &&
            (c->server_name == NULL ||
             (c->server_name[0] != 0 && strncmp(c->server_name, cc->name, SE_TLS_CACHE_NAME) == 0))) {
            /* The same leaf, checked for the same name: its chain and signatures checked out
             * before. The clock is checked again on the cached validity period. */
            st = c->now > cc->not_after    ? SE_ERR_CERT_EXPIRED
                 : c->now < cc->not_before ? SE_ERR_CERT_NOT_YET_VALID
                                           : SE_OK;
            if (st != SE_OK)
                return se_tls_fail(t, st, cert_alert(st));
            memcpy(t->peer_key, cc->pub, 65);
            const char *end = memchr(cc->cn, 0, SE_TLS_MAX_CN);
            set_peer_cn(t, (const uint8_t *)cc->cn, end != NULL ? (size_t)(end - cc->cn) : SE_TLS_MAX_CN);
            t->used_cache = 1;
        }
    }
    if (!t->used_cache) {
        st = se_x509_verify_chain(c->crypto, c->p256, certs, lens, n, c->anchors, c->anchor_len,
                                  c->n_anchors, c->now,
                                  is_server(t) ? NULL : c->server_name, t->peer_key);
        if (st != SE_OK)
            return se_tls_fail(t, st, cert_alert(st));
        if ((st = se_x509_parse(&leaf, certs[0], lens[0])) != SE_OK)
            return se_tls_fail(t, st, cert_alert(st));
        set_peer_cn(t, leaf.cn, leaf.cn_len);
        if (!is_server(t) && c->cache != NULL) {
            size_t name_len = c->server_name != NULL ? strlen(c->server_name) : 0;
            se_tls_cert_cache *cc = c->cache;
            memcpy(cc->fingerprint, fp, 32);
            memcpy(cc->pub, t->peer_key, 65);
            memcpy(cc->cn, t->peer_cn, SE_TLS_MAX_CN);
            cc->not_before = leaf.not_before;
            cc->not_after = leaf.not_after;
            cc->valid = name_len < SE_TLS_CACHE_NAME; /* a longer name: never cached */
            if (cc->valid)
                memcpy(cc->name, name_len ? c->server_name : "", name_len + 1);
        }
    }
    t->flags |= F_PEER_AUTH;
    return SE_OK;
}

/* SignatureAndHashAlgorithm and the DER form of sig (r || s) into w. */
static se_status put_sig(se_tls *t, const uint8_t sig[64], tls_wr *w)
{
    uint8_t der[80];
    size_t der_len;
    se_status st = se_ecdsa_sig_to_der(t->cfg->p256, sig, der, &der_len);
    if (st != SE_OK)
        return st;
    se_wr_uint(w, SIG_P256_SHA256, 2);
    se_wr_uint(w, (uint32_t)der_len, 2);
    se_wr_bytes(w, der, der_len);
    return SE_OK;
}

/* An ECC operation begun (on the engine it runs while the CPU goes on) and ended: in between,
 * F_PK_BUSY has se_tls_wipe cancel it if the handshake fails. */
static se_status begun(se_tls *t, se_status st)
{
    if (st == SE_OK)
        t->flags |= F_PK_BUSY;
    return st;
}

static se_status ended(se_tls *t, se_status st)
{
    t->flags &= (uint8_t)~F_PK_BUSY;
    return st;
}

#define SIGN_ARGS(t, hash) (t)->cfg->p256, (t)->cfg->key, 32, hash, 32, SE_ECDSA_NONCE_DRBG, (t)->cfg->rng

#ifndef SE_TLS_NO_SERVER /* the server's ServerKeyExchange; the client's CertificateVerify is split */
static se_status sign(se_tls *t, const uint8_t hash[32], tls_wr *w)
{
    uint8_t sig[64];
    se_status st = se_ecdsa_sign_hash(SIGN_ARGS(t, hash), sig);
    return st == SE_OK ? put_sig(t, sig, w) : st;
}
#endif

/* Reads SignatureAndHashAlgorithm + signature (the rest of the message) and verifies it over
 * hash with the peer's certificate key. */
static se_status verify(se_tls *t, tls_rd *r, const uint8_t hash[32])
{
    uint32_t alg = se_rd_u16(r);
    tls_rd s = se_rd_vec(r, 2);
    uint8_t sig[64];

    if (r->bad || r->n != 0)
        return decode_error(t);
    if (alg != SIG_P256_SHA256)
        return se_tls_fail(t, SE_ERR_TLS_ILLEGAL_PARAMETER, SE_TLS_ALERT_ILLEGAL_PARAMETER);
    if (se_ecdsa_sig_from_der(t->cfg->p256, s.p, s.n, sig) != SE_OK ||
        se_ecdsa_verify_hash(t->cfg->p256, t->peer_key, 65, hash, 32, sig, 64) != SE_OK)
        return se_tls_fail(t, SE_ERR_BAD_SIGNATURE, SE_TLS_ALERT_DECRYPT_ERROR);
    return SE_OK;
}

/* ChangeCipherSpec + Finished at the end of our flight; writes go to epoch 1 from here. */
static se_status finished_msg(se_tls *t)
{
    uint8_t vd[12];
    tls_wr w;
    se_status st = se_tls_flight_ccs(t);

    if (st == SE_OK)
        st = se_tls_finished(t, is_server(t), vd);
    if (st != SE_OK)
        return st;
    if (t->cfg->faults & SE_TLS_FAULT_BAD_FINISHED)
        vd[0] ^= 0x01;
    t->epoch_out = 1;
    w = se_tls_msg_begin(t);
    se_wr_bytes(&w, vd, 12);
    return se_tls_msg_end(t, HT_FINISHED, &w);
}

static void established(se_tls *t)
{
    t->state = SE_TLS_ESTABLISHED;
    t->hs = HS_DONE;
    t->timer_on = 0;
    se_tls_wipe(t, 0); /* the record keys stay; the ephemeral key and master secret are done */
    se_tls_phase(t, "done");
}

/* The peer's Finished (both roles): verify_data over the transcript before it. */
static se_status on_finished(se_tls *t, const uint8_t *body)
{
    uint8_t expect[12];
    se_status st;

    if (t->hs_len != 12)
        return decode_error(t);
    if (is_server(t))
        se_tls_phase(t, "finished");
    if ((st = se_tls_finished(t, !is_server(t), expect)) != SE_OK)
        return se_tls_fail(t, st, SE_TLS_ALERT_INTERNAL_ERROR);
    if (!se_ct_equal(expect, body, 12))
        return se_tls_fail(t, SE_ERR_TLS_BAD_FINISHED, SE_TLS_ALERT_DECRYPT_ERROR);
    se_sha256_update(&t->transcript, body - (is_dtls(t) ? 12 : 4), (is_dtls(t) ? 12 : 4) + 12);
    if (is_server(t)) {
        /* Our CCS + Finished; kept to answer a repeated client flight (DTLS). */
        se_tls_flight_reset(t);
        st = finished_msg(t);
        if (st == SE_OK)
            st = se_tls_flight_send(t, 0);
        if (st != SE_OK)
            return se_tls_fail(t, st, SE_TLS_ALERT_INTERNAL_ERROR);
    }
    established(t);
    return SE_OK;
}

/* ---- client ----------------------------------------------------------------------------- */
/* The end of our ClientHello, after the cipher suites: compression methods and extensions (a
 * server takes its answers from them). */
static const uint8_t ch_tail[] = {
    0x01, 0x00,                                     /* compression_methods: null only */
    0x00, 31,                                       /* extensions: the 31 bytes below */
    0x00, 0x0a, 0x00, 0x04, 0x00, 0x02, 0x00, 0x17, /* supported_groups: secp256r1 */
    0x00, 0x0b, 0x00, 0x02, 0x01, 0x00,             /* ec_point_formats: uncompressed */
    0x00, 0x0d, 0x00, 0x04, 0x00, 0x02, 0x04, 0x03, /* signature_algorithms: ecdsa_secp256r1_sha256 */
    0x00, 0x17, 0x00, 0x00,                         /* extended_master_secret */
    0xff, 0x01, 0x00, 0x01, 0x00,                   /* renegotiation_info: initial handshake */
};
_Static_assert(sizeof ch_tail == 4 + 31, "ch_tail's extensions length");
/* encrypt_then_mac (RFC 7366): offered with the CBC suite, answered for it. */
static const uint8_t etm_ext[4] = {0x00, 0x16, 0x00, 0x00};

/* The client offers encrypt_then_mac when it offers the CBC suite. */
static int etm_offered(const se_tls *t)
{
    size_t n;
    const uint16_t *s = suites(t, &n);
    int cbc = 0;
    for (size_t i = 0; TLS_CBC && i < n; i++)
        cbc |= tls_is_cbc(s[i]);
    return cbc;
}

se_status se_tls_send_client_hello(se_tls *t)
{
    size_t n;
    const uint16_t *s = suites(t, &n);
    tls_wr w;
    se_status st;

    se_tls_flight_reset(t);
    w = se_tls_msg_begin(t);
    se_wr_uint(&w, is_dtls(t) ? DTLS_VERSION : TLS_VERSION, 2);
    se_wr_bytes(&w, t->client_random, 32);
    se_wr_uint(&w, 0, 1); /* no session to resume */
    if (is_dtls(t)) {
        se_wr_uint(&w, t->cookie_len, 1);
        se_wr_bytes(&w, t->cookie, t->cookie_len);
    }
    se_wr_uint(&w, (uint32_t)(2 * n), 2);
    for (size_t i = 0; i < n; i++)
        se_wr_uint(&w, s[i], 2);
    size_t at = w.len;
    se_wr_bytes(&w, ch_tail, sizeof ch_tail);
    if (etm_offered(t)) {
        se_wr_bytes(&w, etm_ext, sizeof etm_ext);
        if (!w.bad)
            w.p[at + 3] += sizeof etm_ext; /* the extensions' length */
    }
    uint8_t cid[5 + SE_TLS_MAX_CID];
    size_t cid_n = se_tls_cid_hello_ext(t, cid); /* connection_id (RFC 9146), when configured */
    if (cid_n != 0) {
        se_wr_bytes(&w, cid, cid_n);
        if (!w.bad)
            w.p[at + 3] = (uint8_t)(w.p[at + 3] + cid_n);
    }
    st = se_tls_msg_end(t, HT_CLIENT_HELLO, &w);
    return st == SE_OK ? se_tls_flight_send(t, 1) : st;
}

static se_status on_hello_verify(se_tls *t, tls_rd *r)
{
    tls_rd c;
    se_status st;

    (void)se_rd_u16(r);
    c = se_rd_vec(r, 1);
    if (r->bad || r->n != 0 || c.n == 0 || c.n > sizeof t->cookie)
        return decode_error(t);
    memcpy(t->cookie, c.p, c.n);
    t->cookie_len = (uint8_t)c.n;
    t->win_any = 0; /* the HelloVerifyRequest came from no connection: a fresh window */
    se_sha256_init_on(&t->transcript, t->cfg->crypto->sha); /* the transcript starts at the second ClientHello */
    st = se_tls_send_client_hello(t);
    return check(t, st, SE_TLS_ALERT_INTERNAL_ERROR);
}

static se_status on_server_hello(se_tls *t, tls_rd *r)
{
    uint32_t ver = se_rd_u16(r), suite, comp;
    const uint8_t *random = se_rd_bytes(r, 32);
    tls_rd sid = se_rd_vec(r, 1), ext = {NULL, 0, 0};
    size_t n;
    const uint16_t *s = suites(t, &n);
    int ems = 0, offered = 0;

    suite = se_rd_u16(r);
    comp = se_rd_u8(r);
    if (r->n > 0)
        ext = se_rd_vec(r, 2);
    if (r->bad || r->n != 0 || sid.n > 32)
        return decode_error(t);
    if (ver != (is_dtls(t) ? DTLS_VERSION : TLS_VERSION))
        return se_tls_fail(t, SE_ERR_TLS_PROTOCOL_VERSION, SE_TLS_ALERT_PROTOCOL_VERSION);
    for (size_t i = 0; i < n; i++)
        offered |= s[i] == suite;
    if (!offered || comp != 0)
        return se_tls_fail(t, SE_ERR_TLS_ILLEGAL_PARAMETER, SE_TLS_ALERT_ILLEGAL_PARAMETER);
    /* Only what we offered may come back (unsupported_extension, RFC 5246 7.4.1.4), each with
     * a length that matches its contents (decode_error). */
    while (ext.n > 0) {
        uint32_t type = se_rd_u16(&ext);
        tls_rd d = se_rd_vec(&ext, 2);
        se_status st = SE_OK;
        if (ext.bad)
            return decode_error(t);
        if (type == 23 || (TLS_CBC && type == 22 && etm_offered(t))) { /* EMS; encrypt_then_mac */
            if (d.n != 0)
                return decode_error(t);
            if (type == 23)
                ems = 1;
            else
                t->etm = (uint8_t)tls_is_cbc((uint16_t)suite); /* (RFC 7366 3: not for AEAD) */
        } else if (type == 0xff01) {
            st = ext_renegotiation_info(t, d);
        } else if (type == 11) {
            st = ext_point_formats(t, d);
        } else if (TLS_CID && type == EXT_CID) {
            st = se_tls_cid_server_hello(t, d);
        } else {
            st = se_tls_fail(t, SE_ERR_TLS_ILLEGAL_PARAMETER, SE_TLS_ALERT_UNSUPPORTED_EXTENSION);
        }
        if (st != SE_OK)
            return st;
    }
    if (!ems)
        return se_tls_fail(t, SE_ERR_TLS_HANDSHAKE, SE_TLS_ALERT_HANDSHAKE_FAILURE);
    if (se_tls_cid_sending(t, 1) && tls_is_cbc((uint16_t)suite)) /* our tls12_cid records are AEAD's */
        return se_tls_fail(t, SE_ERR_TLS_ILLEGAL_PARAMETER, SE_TLS_ALERT_ILLEGAL_PARAMETER);
    memcpy(t->server_random, random, 32);
    t->suite = (uint16_t)suite;
    t->hs = HS_C_CERT;
    /* Our ECDHE key now: on the engine its public half is computed while the CPU parses the
     * server's certificate (se_ec_keygen_end at ServerHelloDone). */
    se_status st = begun(t, se_ec_keygen_begin(t->cfg->p256, t->cfg->rng, t->ecdh_priv));
    return st == SE_OK ? SE_OK : se_tls_fail(t, st, SE_TLS_ALERT_INTERNAL_ERROR);
}

/* ServerKeyExchange: named curve secp256r1, the server's point, its signature over
 * client_random || server_random || params. */
static se_status on_ske(se_tls *t, tls_rd *r)
{
    const uint8_t *params = r->p;
    uint8_t signed_data[64 + 4 + 65], hash[32];
    uint32_t curve_type, curve;
    tls_rd point;
    se_status st;

    se_tls_phase(t, "key_exchange");
    curve_type = se_rd_u8(r);
    curve = se_rd_u16(r);
    point = se_rd_vec(r, 1);
    if (r->bad)
        return decode_error(t);
    if (curve_type != 3 || curve != GROUP_P256 || point.n != 65 ||
        se_ec_validate_public(t->cfg->p256, point.p, 65) != SE_OK)
        return se_tls_fail(t, SE_ERR_TLS_ILLEGAL_PARAMETER, SE_TLS_ALERT_ILLEGAL_PARAMETER);
    memcpy(signed_data, t->client_random, 32);
    memcpy(signed_data + 32, t->server_random, 32);
    memcpy(signed_data + 64, params, 4 + 65);
    if ((st = t->cfg->crypto->sha256(signed_data, sizeof signed_data, hash)) != SE_OK)
        return se_tls_fail(t, st, SE_TLS_ALERT_INTERNAL_ERROR);
    if ((st = verify(t, r, hash)) != SE_OK)
        return st;
    memcpy(t->eph_pub, point.p, 65);
    t->hs = HS_C_SHD;
    return SE_OK;
}

static se_status on_cert_request(se_tls *t, tls_rd *r)
{
    tls_rd types = se_rd_vec(r, 1), algs = se_rd_vec(r, 2);

    (void)se_rd_vec(r, 2); /* certificate_authorities: we have one chain anyway */
    if (r->bad || r->n != 0)
        return decode_error(t);
    t->flags |= F_CERT_REQ;
    if (has_item(types, 64 /* ecdsa_sign */, 1) && has_item(algs, SIG_P256_SHA256, 2) &&
        t->cfg->chain_n > 0 && t->cfg->key != NULL)
        t->flags |= F_OWN_CERT;
    return SE_OK;
}

/* ServerHelloDone: our whole second flight. */
static se_status on_server_hello_done(se_tls *t)
{
    const se_ec_curve *c = t->cfg->p256;
    uint8_t pub[65], pms[32];
    tls_wr w;
    se_status st = SE_OK;

    if (t->hs_len != 0)
        return decode_error(t);
    se_tls_flight_reset(t);
    /* Our key pair (begun at ServerHello); then ECDH, which the engine computes while the CPU
     * writes and hashes Certificate and ClientKeyExchange. */
    if ((st = ended(t, se_ec_keygen_end(c, t->ecdh_priv, pub))) != SE_OK)
        return se_tls_fail(t, st, SE_TLS_ALERT_INTERNAL_ERROR);
    if (begun(t, se_ecdh_begin(c, t->ecdh_priv, 32, t->eph_pub, 65)) != SE_OK)
        return se_tls_fail(t, SE_ERR_TLS_ILLEGAL_PARAMETER, SE_TLS_ALERT_ILLEGAL_PARAMETER);
    if (t->flags & F_CERT_REQ)
        st = cert_msg(t, t->flags & F_OWN_CERT);
    if (st == SE_OK) {
        w = se_tls_msg_begin(t);
        se_wr_uint(&w, 65, 1);
        se_wr_bytes(&w, pub, 65);
        st = se_tls_msg_end(t, HT_CKE, &w);
    }
    if (st == SE_OK) {
        se_tls_transcript_hash(t, t->session_hash); /* through ClientKeyExchange */
        if (ended(t, se_ecdh_end(c, t->ecdh_priv, 32, t->eph_pub, 65, pms)) != SE_OK)
            return se_tls_fail(t, SE_ERR_TLS_ILLEGAL_PARAMETER, SE_TLS_ALERT_ILLEGAL_PARAMETER);
        /* CertificateVerify's signature runs on the engine while the CPU derives the keys. */
        if (t->flags & F_OWN_CERT)
            st = begun(t, se_ecdsa_sign_hash_begin(SIGN_ARGS(t, t->session_hash)));
        if (st == SE_OK)
            st = se_tls_derive_keys(t, pms);
    }
    se_ct_wipe(pms, sizeof pms);
    if (st == SE_OK && (t->flags & F_OWN_CERT)) {
        uint8_t sig[64];
        w = se_tls_msg_begin(t);
        st = ended(t, se_ecdsa_sign_hash_end(SIGN_ARGS(t, t->session_hash), sig));
        if (st == SE_OK)
            st = put_sig(t, sig, &w);
        if (st == SE_OK)
            st = se_tls_msg_end(t, HT_CERT_VERIFY, &w);
    }
    if (st == SE_OK) {
        se_tls_phase(t, "finished");
        st = finished_msg(t);
    }
    if (st == SE_OK)
        st = se_tls_flight_send(t, 1);
    if (st != SE_OK)
        return se_tls_fail(t, st, SE_TLS_ALERT_INTERNAL_ERROR);
    /* The public-key work of this handshake is over: a server key that has just passed full
     * verification into the cache gets its comb table now (on the engine: made in the background
     * while the Finished messages go both ways, for the next handshake's ServerKeyExchange
     * verification). A hint: a failure leaves the plain verification. */
    if (!t->used_cache && t->cfg->cache != NULL && t->cfg->cache->valid)
        (void)se_ecdsa_remember_key(t->cfg->p256, t->cfg->cache->pub, 65);
    t->hs = HS_C_CCS;
    return SE_OK;
}

/* ---- server (left out with -DSE_TLS_NO_SERVER: a client-only node) ---------------------- */
#ifndef SE_TLS_NO_SERVER
static const uint8_t *const ch_ext = ch_tail + 4; /* the ClientHello's extensions */

static se_status server_flight(se_tls *t)
{
    const se_tls_config *c = t->cfg;
    uint8_t params[64 + 4 + 65], hash[32];
    tls_wr w;
    se_status st;

    se_tls_flight_reset(t);
    /* ServerHello: no session id (no resumption), our extensions answering the client's. */
    w = se_tls_msg_begin(t);
    se_wr_uint(&w, is_dtls(t) ? DTLS_VERSION : TLS_VERSION, 2);
    se_wr_bytes(&w, t->server_random, 32);
    se_wr_uint(&w, 0, 1);
    se_wr_uint(&w, t->suite, 2);
    se_wr_uint(&w, 0, 1);
    uint8_t cid[5 + SE_TLS_MAX_CID];
    size_t cid_n = se_tls_cid_hello_ext(t, cid); /* connection_id: our CID, when we took the offer */
    se_wr_uint(&w, 4u + ((t->flags & F_PEER_RI) ? 5u : 0u) + ((t->flags & F_PEER_PF) ? 6u : 0u) +
                    (t->etm ? 4u : 0u) + (uint32_t)cid_n, 2);
    se_wr_bytes(&w, ch_ext + 22, 4); /* extended_master_secret */
    if (t->flags & F_PEER_RI)
        se_wr_bytes(&w, ch_ext + 26, 5);
    if (t->flags & F_PEER_PF)
        se_wr_bytes(&w, ch_ext + 8, 6);
    if (t->etm)
        se_wr_bytes(&w, etm_ext, sizeof etm_ext);
    se_wr_bytes(&w, cid, cid_n);
    st = se_tls_msg_end(t, HT_SERVER_HELLO, &w);
    if (st == SE_OK)
        st = cert_msg(t, 1);
    /* ServerKeyExchange: a fresh ECDHE key, signed with our certificate's key. */
    se_tls_phase(t, "key_exchange");
    memcpy(params, t->client_random, 32);
    memcpy(params + 32, t->server_random, 32);
    params[64] = 3; /* named_curve */
    put_be(params + 65, GROUP_P256, 2);
    params[67] = 65;
    if (st == SE_OK)
        st = se_ec_keygen(c->p256, c->rng, t->ecdh_priv, params + 68);
    if (st == SE_OK)
        st = c->crypto->sha256(params, sizeof params, hash);
    if (st == SE_OK) {
        w = se_tls_msg_begin(t);
        se_wr_bytes(&w, params + 64, 4 + 65);
        st = sign(t, hash, &w);
        if (st == SE_OK)
            st = se_tls_msg_end(t, HT_SKE, &w);
    }
    if (st == SE_OK && c->client_auth != SE_TLS_CLIENT_CERT_NONE) {
        static const uint8_t cr[] = {1, 64, 0, 2, 0x04, 0x03, 0, 0};
        w = se_tls_msg_begin(t);
        se_wr_bytes(&w, cr, sizeof cr);
        st = se_tls_msg_end(t, HT_CERT_REQUEST, &w);
    }
    if (st == SE_OK) {
        w = se_tls_msg_begin(t);
        st = se_tls_msg_end(t, HT_SHD, &w);
    }
    if (st == SE_OK)
        st = se_tls_flight_send(t, 1);
    if (st != SE_OK)
        return se_tls_fail(t, st, SE_TLS_ALERT_INTERNAL_ERROR);
    t->hs = c->client_auth != SE_TLS_CLIENT_CERT_NONE ? HS_S_CERT : HS_S_CKE;
    return SE_OK;
}

/* The ClientHello's extensions we act on, as bits of a set (a repeated one is refused). */
static uint32_t ext_bit(uint32_t type)
{
    switch (type) {
    case 10: return 1u;     /* supported_groups */
    case 11: return 2u;     /* ec_point_formats */
    case 13: return 4u;     /* signature_algorithms */
    case 22: return 8u;     /* encrypt_then_mac */
    case 23: return 16u;    /* extended_master_secret */
    case 0xff01: return 32u; /* renegotiation_info */
    case EXT_CID: return 64u; /* connection_id */
    default: return 0;
    }
}

static se_status on_client_hello(se_tls *t, tls_rd *r)
{
    uint32_t ver = se_rd_u16(r), seen = 0;
    const uint8_t *random = se_rd_bytes(r, 32);
    tls_rd sid = se_rd_vec(r, 1), cookie = {NULL, 0, 0}, cs, comp, ext = {NULL, 0, 0};
    size_t n;
    const uint16_t *s = suites(t, &n);
    int group = 1, sig = 0;
    se_status st;

    se_tls_phase(t, "hello");
    if (is_dtls(t))
        cookie = se_rd_vec(r, 1);
    cs = se_rd_vec(r, 2);
    comp = se_rd_vec(r, 1);
    if (r->n > 0)
        ext = se_rd_vec(r, 2);
    if (r->bad || r->n != 0 || sid.n > 32 || cookie.n > 32 || cs.n == 0 || cs.n % 2 != 0 || comp.n == 0)
        return decode_error(t);
    if (is_dtls(t) ? ver > DTLS_VERSION : ver < TLS_VERSION)
        return se_tls_fail(t, SE_ERR_TLS_PROTOCOL_VERSION, SE_TLS_ALERT_PROTOCOL_VERSION);
    if (!has_item(comp, 0, 1))
        return se_tls_fail(t, SE_ERR_TLS_ILLEGAL_PARAMETER, SE_TLS_ALERT_ILLEGAL_PARAMETER);
    /* Our preference among the client's suites; the renegotiation SCSV counts as the extension. */
    t->suite = 0;
    for (size_t i = n; i-- > 0;)
        if (has_item(cs, s[i], 2))
            t->suite = s[i];
    if (has_item(cs, 0x00FF, 2))
        t->flags |= F_PEER_RI;
    /* Each extension's length must match its contents (decode_error, RFC 5246 7.4.1.4); an
     * extension we act on may appear once (illegal_parameter, as OpenSSL answers). */
    while (ext.n > 0) {
        uint32_t type = se_rd_u16(&ext), bit = ext_bit(type);
        tls_rd d = se_rd_vec(&ext, 2), v;
        if (ext.bad)
            return decode_error(t);
        if (seen & bit)
            return se_tls_fail(t, SE_ERR_TLS_ILLEGAL_PARAMETER, SE_TLS_ALERT_ILLEGAL_PARAMETER);
        seen |= bit;
        if (type == 10 || type == 13) { /* supported_groups, signature_algorithms: 2-byte items */
            v = ext_list(d, 2, 2);
            if (v.bad)
                return decode_error(t);
            if (type == 10)
                group = has_item(v, GROUP_P256, 2);
            else
                sig = has_item(v, SIG_P256_SHA256, 2);
        } else if (type == 11) {
            if ((st = ext_point_formats(t, d)) != SE_OK)
                return st;
            t->flags |= F_PEER_PF;
        } else if (type == 22 || type == 23) { /* encrypt_then_mac, extended_master_secret: empty */
            if (d.n != 0)
                return decode_error(t);
        } else if (type == 0xff01) {
            if ((st = ext_renegotiation_info(t, d)) != SE_OK)
                return st;
            t->flags |= F_PEER_RI;
        } else if (type == EXT_CID) {
            if ((st = se_tls_cid_client_hello(t, d)) != SE_OK)
                return st;
        }
    }
    if (t->suite == 0 || !group || !sig || !(seen & ext_bit(23)))
        return se_tls_fail(t, SE_ERR_TLS_HANDSHAKE, SE_TLS_ALERT_HANDSHAKE_FAILURE);
    /* Encrypt-then-MAC (RFC 7366) when the client asks for it and the suite is CBC. */
    t->etm = (uint8_t)((seen & ext_bit(22)) && tls_is_cbc(t->suite));
    memcpy(t->client_random, random, 32);
    st = se_tls_cid_accept(t); /* a connection ID when asked for, configured and the suite is AEAD */
    if (st == SE_OK)
        st = se_hmac_drbg_generate(t->cfg->rng, t->server_random, 32, NULL, 0);
    if (st != SE_OK)
        return se_tls_fail(t, st, SE_TLS_ALERT_INTERNAL_ERROR);
    return server_flight(t);
}

static se_status on_client_key_exchange(se_tls *t, tls_rd *r)
{
    tls_rd p = se_rd_vec(r, 1);
    uint8_t pms[32];
    se_status st;

    if (r->bad || r->n != 0 || p.n == 0)
        return decode_error(t);
    /* A well-framed point we cannot use (compressed, another length, off the curve):
     * illegal_parameter (RFC 8422 5.7 and 5.10). */
    if (p.n != 65 || se_ecdh(t->cfg->p256, t->ecdh_priv, 32, p.p, 65, pms) != SE_OK)
        return se_tls_fail(t, SE_ERR_TLS_ILLEGAL_PARAMETER, SE_TLS_ALERT_ILLEGAL_PARAMETER);
    se_tls_transcript_hash(t, t->session_hash);
    st = se_tls_derive_keys(t, pms);
    se_ct_wipe(pms, sizeof pms);
    if (st != SE_OK)
        return se_tls_fail(t, st, SE_TLS_ALERT_INTERNAL_ERROR);
    t->hs = (t->flags & F_PEER_AUTH) ? HS_S_CV : HS_S_CCS;
    return SE_OK;
}

#endif

/* ---- dispatch --------------------------------------------------------------------------- */
se_status se_tls_hs_renegotiation(se_tls *t)
{
    se_status st = se_tls_alert(t, 1, SE_TLS_ALERT_NO_RENEGOTIATION);
    return st == SE_OK ? SE_OK : se_tls_fail(t, st, -1);
}

/* After the handshake: a client ignores HelloRequest, a server refuses a renegotiating
 * ClientHello with a no_renegotiation warning; anything else is unexpected_message. */
static se_status post_handshake(se_tls *t, uint8_t type)
{
    if (!is_server(t) && type == HT_HELLO_REQUEST)
        return SE_OK;
    if (is_server(t) && type == HT_CLIENT_HELLO)
        return se_tls_hs_renegotiation(t);
    return se_tls_fail(t, SE_ERR_TLS_UNEXPECTED, SE_TLS_ALERT_UNEXPECTED_MESSAGE);
}

se_status se_tls_hs_message(se_tls *t)
{
    const uint8_t *body = t->buf + SE_TLS_HS_HEADER;
    size_t hl = is_dtls(t) ? 12 : 4;
    tls_rd r = {body, t->hs_len, 0};
    uint8_t type = t->hs_type;
    se_status st;

    t->stats.hs_messages_in++;
    t->warnings = 0; /* the warning cap counts warnings without progress in between */
    if (t->state == SE_TLS_ESTABLISHED)
        return post_handshake(t, type);
    /* HelloVerifyRequest and HelloRequest stay out of the transcript; CertificateVerify and
     * Finished cover what came before them and are hashed by their handlers. */
    if (type != HT_HELLO_VERIFY && type != HT_HELLO_REQUEST && type != HT_CERT_VERIFY &&
        type != HT_FINISHED)
        se_sha256_update(&t->transcript, body - hl, hl + t->hs_len);
    switch (t->hs) {
    case HS_C_SH:
        if (type == HT_HELLO_VERIFY && is_dtls(t))
            return on_hello_verify(t, &r);
        if (type == HT_SERVER_HELLO)
            return on_server_hello(t, &r);
        break;
    case HS_C_CERT:
        if (type == HT_CERTIFICATE) {
            st = peer_certificate(t, &r);
            if (st == SE_OK)
                t->hs = HS_C_SKE;
            return st;
        }
        break;
    case HS_C_SKE:
        if (type == HT_SKE)
            return on_ske(t, &r);
        break;
    case HS_C_SHD:
        if (type == HT_CERT_REQUEST && !(t->flags & F_CERT_REQ))
            return on_cert_request(t, &r);
        if (type == HT_SHD)
            return on_server_hello_done(t);
        break;
#ifndef SE_TLS_NO_SERVER
    case HS_S_CH:
        if (type == HT_CLIENT_HELLO)
            return on_client_hello(t, &r);
        break;
    case HS_S_CERT:
        if (type == HT_CERTIFICATE) {
            st = peer_certificate(t, &r);
            if (st == SE_OK)
                t->hs = HS_S_CKE;
            return st;
        }
        break;
    case HS_S_CKE:
        if (type == HT_CKE)
            return on_client_key_exchange(t, &r);
        break;
    case HS_S_CV:
        if (type == HT_CERT_VERIFY) {
            if ((st = verify(t, &r, t->session_hash)) != SE_OK)
                return st;
            se_sha256_update(&t->transcript, body - hl, hl + t->hs_len);
            t->hs = HS_S_CCS;
            return SE_OK;
        }
        break;
    case HS_S_FIN:
#endif
    case HS_C_FIN:
        if (type == HT_FINISHED)
            return on_finished(t, body);
        break;
    default:
        break;
    }
    if (type == HT_HELLO_REQUEST && !is_server(t))
        return SE_OK; /* ignored during a handshake (RFC 5246 7.4.1.1) */
    return se_tls_fail(t, SE_ERR_TLS_UNEXPECTED, SE_TLS_ALERT_UNEXPECTED_MESSAGE);
}
