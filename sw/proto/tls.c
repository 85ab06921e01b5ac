/* DTLS/TLS connections: set-up, the client's start, accessors and names (se/tls.h). */
#include "tls_internal.h"

static int known_suite(uint16_t s)
{
    return s == SE_TLS_ECDHE_ECDSA_AES_128_CCM_8 || s == SE_TLS_ECDHE_ECDSA_AES_128_GCM_SHA256 ||
           tls_is_cbc(s);
}

se_status se_tls_init(se_tls *t, const se_tls_config *cfg, const se_tls_io *io)
{
    int dtls;
    size_t mtu;

    if (t == NULL || cfg == NULL || io == NULL || io->send == NULL || cfg->crypto == NULL ||
        cfg->rng == NULL || cfg->p256 == NULL)
        return SE_ERR_BAD_INPUT;
    if ((TLS_CLIENT_ONLY && cfg->role == SE_TLS_SERVER) || (TLS_DTLS_ONLY && cfg->transport != SE_TLS_DATAGRAM))
        return SE_ERR_NOT_SUPPORTED;
    dtls = cfg->transport == SE_TLS_DATAGRAM;
    mtu = cfg->mtu ? cfg->mtu : 1200;
    if (dtls && (mtu > SE_TLS_MAX_MTU || mtu < 128 || io->now_ms == NULL))
        return SE_ERR_BAD_INPUT;
    if (cfg->suites != NULL && (cfg->n_suites == 0 || cfg->n_suites > 16))
        return SE_ERR_BAD_INPUT;
    for (size_t i = 0; cfg->suites != NULL && i < cfg->n_suites; i++)
        if (!known_suite(cfg->suites[i])) /* CBC in a build without it: a known suite left out */
            return cfg->suites[i] == SE_TLS_ECDHE_ECDSA_AES_128_CBC_SHA256 ? SE_ERR_NOT_SUPPORTED : SE_ERR_BAD_INPUT;
    if ((cfg->chain_n > 0 && (cfg->chain == NULL || cfg->chain_len == NULL || cfg->key == NULL)) ||
        (cfg->role == SE_TLS_SERVER && cfg->chain_n == 0) ||
        (cfg->n_anchors > 0 && (cfg->anchors == NULL || cfg->anchor_len == NULL)))
        return SE_ERR_BAD_INPUT;
#ifndef SE_TLS_NO_CID
    if (cfg->cid && (!dtls || cfg->crypto->aead_seal == NULL || cfg->crypto->aead_open == NULL))
        return SE_ERR_NOT_SUPPORTED; /* tls12_cid records need the AEAD entry points (tls_cid.c) */
#endif
    memset(t, 0, sizeof *t);
    t->cfg = cfg;
    t->io = io;
    t->dtls = (uint8_t)dtls;
    t->mtu = (uint16_t)(dtls ? mtu : SE_TLS_MAX_MTU);
    t->state = SE_TLS_HANDSHAKING;
    t->hs = cfg->role == SE_TLS_SERVER ? HS_S_CH : HS_C_START;
    t->peer_alert = t->sent_alert = -1;
    se_sha256_init_on(&t->transcript, cfg->crypto->sha);
    return SE_OK;
}

se_status se_tls_start(se_tls *t)
{
    se_status st;

    if (t->cfg->role != SE_TLS_CLIENT || t->hs != HS_C_START || t->state != SE_TLS_HANDSHAKING)
        return SE_ERR_TLS_STATE;
    se_tls_phase(t, "hello");
    t->hs = HS_C_SH;
    st = se_hmac_drbg_generate(t->cfg->rng, t->client_random, 32, NULL, 0);
    if (st == SE_OK)
        st = se_tls_send_client_hello(t);
    return st == SE_OK ? SE_OK : se_tls_fail(t, st, SE_TLS_ALERT_INTERNAL_ERROR);
}

se_tls_state se_tls_get_state(const se_tls *t) { return (se_tls_state)t->state; }
se_status se_tls_error(const se_tls *t) { return t->state == SE_TLS_FAILED ? t->err : SE_OK; }
int se_tls_peer_alert(const se_tls *t) { return t->peer_alert; }
int se_tls_sent_alert(const se_tls *t) { return t->sent_alert; }
uint16_t se_tls_suite(const se_tls *t) { return t->suite; }
int se_tls_used_cache(const se_tls *t) { return t->used_cache; }
const se_tls_stats *se_tls_get_stats(const se_tls *t) { return &t->stats; }
#ifndef SE_TLS_NO_SERVER
uint64_t se_tls_record_number(const se_tls *t) { return t->rec_in; }
#endif

int se_tls_peer_key(const se_tls *t, uint8_t pub[65])
{
    if (!(t->flags & F_PEER_AUTH))
        return 0;
    memcpy(pub, t->peer_key, 65);
    return 1;
}

size_t se_tls_peer_name(const se_tls *t, char *buf, size_t cap)
{
    size_t n = strlen(t->peer_cn);

    if (cap == 0)
        return 0;
    if (!(t->flags & F_PEER_AUTH))
        n = 0;
    n = n < cap - 1 ? n : cap - 1;
    memcpy(buf, t->peer_cn, n);
    buf[n] = 0;
    return n;
}

/* ---- names ------------------------------------------------------------------------------ */
static const struct {
    uint16_t id;
    const char *shortname, *name;
} suite_names[] = {
    {SE_TLS_ECDHE_ECDSA_AES_128_CCM_8, "ccm8", "TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8"},
    {SE_TLS_ECDHE_ECDSA_AES_128_GCM_SHA256, "gcm", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"},
    {SE_TLS_ECDHE_ECDSA_AES_128_CBC_SHA256, "cbc", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256"},
};

uint16_t se_tls_suite_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof suite_names / sizeof suite_names[0]; i++)
        if (strcmp(name, suite_names[i].shortname) == 0 || strcmp(name, suite_names[i].name) == 0)
            return suite_names[i].id;
    return 0;
}

const char *se_tls_suite_name(uint16_t suite)
{
    for (size_t i = 0; i < sizeof suite_names / sizeof suite_names[0]; i++)
        if (suite_names[i].id == suite)
            return suite_names[i].name;
    return "unknown";
}

const char *se_tls_alert_name(int alert)
{
    static const struct {
        uint8_t id;
        const char *name;
    } names[] = {
        {0, "close_notify"}, {10, "unexpected_message"}, {20, "bad_record_mac"},
        {22, "record_overflow"}, {40, "handshake_failure"}, {42, "bad_certificate"},
        {43, "unsupported_certificate"}, {44, "certificate_revoked"}, {45, "certificate_expired"},
        {46, "certificate_unknown"}, {47, "illegal_parameter"}, {48, "unknown_ca"},
        {49, "access_denied"}, {50, "decode_error"}, {51, "decrypt_error"},
        {70, "protocol_version"}, {71, "insufficient_security"}, {80, "internal_error"},
        {86, "inappropriate_fallback"}, {90, "user_canceled"}, {100, "no_renegotiation"},
        {110, "unsupported_extension"}, {116, "certificate_required"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].id == alert)
            return names[i].name;
    return "unknown";
}
