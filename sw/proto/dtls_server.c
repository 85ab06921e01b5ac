/* The DTLS server's front end (se/dtls_server.h): stateless HelloVerifyRequest cookies (RFC 6347
 * 4.2.1), peer slots keyed by address, the sorting of datagrams, restarts on the same address
 * (4.2.8), idle timeouts and the counters. */
#include "se/ct.h"
#include "se/dtls_server.h"
#include "tls_internal.h"

/* Where a ClientHello datagram's client random starts: record header 13, handshake header 12,
 * client_version 2. */
#define HELLO_RANDOM_AT (13 + 12 + 2)
#define HVR_LEN (13 + 12 + 3 + SE_DTLS_COOKIE_LEN)

/* ---- stateless cookies ------------------------------------------------------------------ */

/* se_dtls_cookie_check, also saying how long a cookie the ClientHello carried (*cookie_len, when
 * it could be read): a wrong one is not the same as none. */
static se_status cookie_verdict(const se_backend *be, const uint8_t cookie_key[32],
                                const uint8_t *peer, size_t peer_len, const uint8_t *dgram,
                                size_t len, uint8_t *hvr, size_t hvr_cap, size_t *hvr_len,
                                size_t *cookie_len)
{
    /* cookie = HMAC(key, peer_len || peer || client_random || session_id || SHA-256(suites)) */
    uint8_t in[1 + 128 + 32 + 1 + 32 + 32], mac[32];
    const uint8_t *h, *random, *sid, *cookie;
    size_t rlen, k = 0;
    tls_rd r, v;

    *hvr_len = 0;
    *cookie_len = 0;
    if (len < 13 + 12 || dgram[0] != CT_HANDSHAKE || dgram[1] != 0xFE || be16(dgram + 3) != 0 ||
        peer_len > 128)
        return SE_ERR_TLS_DECODE;
    rlen = be16(dgram + 11);
    h = dgram + 13;
    /* One unfragmented ClientHello at the front of the datagram. */
    if (rlen > len - 13 || rlen < 12 || h[0] != HT_CLIENT_HELLO || be24(h + 6) != 0 ||
        be24(h + 9) != be24(h + 1) || be24(h + 9) > rlen - 12)
        return SE_ERR_TLS_DECODE;
    r.p = h + 12;
    r.n = be24(h + 9);
    r.bad = 0;
    (void)se_rd_u16(&r);
    random = se_rd_bytes(&r, 32);
    v = se_rd_vec(&r, 1);
    sid = v.p;
    if (v.n > 32)
        return SE_ERR_TLS_DECODE;
    in[k++] = (uint8_t)peer_len;
    memcpy(in + k, peer, peer_len);
    k += peer_len;
    if (!r.bad) {
        memcpy(in + k, random, 32);
        in[k + 32] = (uint8_t)v.n;
        memcpy(in + k + 33, sid, v.n);
        k += 33 + v.n;
    }
    v = se_rd_vec(&r, 1);
    cookie = v.p;
    rlen = v.n;
    v = se_rd_vec(&r, 2);
    if (r.bad || rlen > 32 || v.n == 0)
        return SE_ERR_TLS_DECODE;
    *cookie_len = rlen;
    if (be->sha256(v.p, v.n, in + k) != SE_OK || be->hmac_sha256(cookie_key, 32, in, k + 32, mac) != SE_OK)
        return SE_ERR_BACKEND;
    if (rlen == SE_DTLS_COOKIE_LEN && se_ct_equal(mac, cookie, SE_DTLS_COOKIE_LEN))
        return SE_OK;
    /* HelloVerifyRequest: record and message sequence numbers of the ClientHello, version
     * DTLS 1.0 as RFC 6347 4.2.1 recommends. */
    if (hvr_cap < HVR_LEN)
        return SE_ERR_BUFFER_TOO_SMALL;
    memcpy(hvr, dgram, 11);
    hvr[1] = 0xFE;
    hvr[2] = 0xFF;
    put_be(hvr + 11, 12 + 3 + SE_DTLS_COOKIE_LEN, 2);
    hvr[13] = HT_HELLO_VERIFY;
    put_be(hvr + 14, 3 + SE_DTLS_COOKIE_LEN, 3);
    memcpy(hvr + 17, h + 4, 2);
    put_be(hvr + 19, 0, 3);
    put_be(hvr + 22, 3 + SE_DTLS_COOKIE_LEN, 3);
    hvr[25] = 0xFE;
    hvr[26] = 0xFF;
    hvr[27] = SE_DTLS_COOKIE_LEN;
    memcpy(hvr + 28, mac, SE_DTLS_COOKIE_LEN);
    *hvr_len = HVR_LEN;
    return SE_ERR_TLS_UNEXPECTED;
}

se_status se_dtls_cookie_check(const se_backend *be, const uint8_t cookie_key[32],
                               const uint8_t *peer, size_t peer_len, const uint8_t *dgram,
                               size_t len, uint8_t *hvr, size_t hvr_cap, size_t *hvr_len)
{
    size_t cookie_len;
    return cookie_verdict(be, cookie_key, peer, peer_len, dgram, len, hvr, hvr_cap, hvr_len,
                          &cookie_len);
}

/* ---- datagrams by their first bytes ----------------------------------------------------- */

/* The first record is a ClientHello's, epoch 0. */
static int is_client_hello(const uint8_t *d, size_t len)
{
    return len >= 13 + 12 && d[0] == CT_HANDSHAKE && d[1] == 0xFE && be16(d + 3) == 0 &&
           d[13] == HT_CLIENT_HELLO;
}

/* A DTLS record at all (content type 20..23, version 0xFE..). */
static int is_dtls_record(const uint8_t *d, size_t len)
{
    return len >= 13 && d[0] >= CT_CCS && d[0] <= CT_APP && d[1] == 0xFE;
}

/* ---- slots ------------------------------------------------------------------------------ */

static uint32_t now_ms(const se_dtls_server *s)
{
    return s->io->now_ms(s->io->ctx);
}

static void event(se_dtls_peer *p, se_dtls_event ev)
{
    const se_dtls_server_io *io = p->srv->io;
    if (io->event != NULL)
        io->event(io->ctx, p, ev);
}

static void send_to(se_dtls_server *s, const uint8_t *peer, size_t peer_len, const uint8_t *buf,
                    size_t len)
{
    if (s->io->send(s->io->ctx, peer, peer_len, buf, len) != 0)
        s->n.send_errors++; /* UDP: as good as lost on the way; the peer retransmits */
}

/* The connection's se_tls_io, each pointing back at the slot. */
static int peer_send(void *ctx, const uint8_t *buf, size_t len)
{
    se_dtls_peer *p = ctx;
    send_to(p->srv, p->addr, p->addr_len, buf, len);
    return 0;
}

static uint32_t peer_now(void *ctx)
{
    return now_ms(((se_dtls_peer *)ctx)->srv);
}

/* The handshake is over: said once, before the connection's first data. */
static void established(se_dtls_peer *p)
{
    if (p->established)
        return;
    p->established = 1;
    p->srv->n.connections++;
    event(p, SE_DTLS_CONNECTED);
}

static void peer_data(void *ctx, const uint8_t *buf, size_t len)
{
    se_dtls_peer *p = ctx;
    const se_dtls_server_io *io = p->srv->io;
    established(p);
    if (io->on_data != NULL)
        io->on_data(io->ctx, p, buf, len);
}

static void peer_phase(void *ctx, const char *name)
{
    se_dtls_peer *p = ctx;
    p->srv->io->phase(p->srv->io->ctx, p, name);
}

#ifndef SE_TLS_NO_KEYLOG
static void peer_keylog(void *ctx, const uint8_t client_random[32], const uint8_t master[48])
{
    se_dtls_peer *p = ctx;
    p->srv->io->keylog(p->srv->io->ctx, client_random, master);
}
#endif

/* The slot's last event, then it is free: its counters join the totals, its keys are wiped. */
static void release(se_dtls_peer *p, se_dtls_event ev)
{
    se_dtls_server *s = p->srv;
    const se_tls_stats *st = se_tls_get_stats(&p->tls);

    event(p, ev);
    s->n.dropped_bad_mac += st->dropped_bad_mac;
    s->n.dropped_replay += st->dropped_replay;
    s->n.dropped_bad_record += st->dropped_malformed;
    s->n.retransmits += st->retransmits;
    se_ct_wipe(&p->tls, sizeof p->tls);
    p->used = 0;
    p->established = 0;
}

/* After a call into the connection: note what changed, free the slot if it ended. */
static void check(se_dtls_peer *p)
{
    se_tls_state state = se_tls_get_state(&p->tls);

    if (state == SE_TLS_ESTABLISHED || (state == SE_TLS_CLOSED && se_tls_suite(&p->tls) != 0))
        established(p);
    if (state == SE_TLS_FAILED) {
        if (p->established)
            p->srv->n.connection_failed++;
        else
            p->srv->n.handshake_failed++;
        release(p, SE_DTLS_FAILED);
    } else if (state == SE_TLS_CLOSED) {
        p->srv->n.closed++;
        release(p, SE_DTLS_CLOSED);
    }
}

/* What shows a peer moving on, and so resets its idle timer: a new handshake message while it
 * handshakes (a repeated ClientHello is not one), an authenticated record once established. */
static uint32_t progress(const se_dtls_peer *p)
{
    const se_tls_stats *st = se_tls_get_stats(&p->tls);
    return st->hs_messages_in + (p->established ? st->records_in : 0);
}

/* A new connection in slot p, fed its first (cookie-checked) ClientHello. */
static se_dtls_kind start(se_dtls_server *s, se_dtls_peer *p, const uint8_t *peer,
                          size_t peer_len, const uint8_t *d, size_t len, se_status *why)
{
    p->used = 1;
    p->established = 0;
    p->addr_len = (uint8_t)peer_len;
    memcpy(p->addr, peer, peer_len);
    memset(p->hello_random, 0, sizeof p->hello_random);
    if (len >= HELLO_RANDOM_AT + 32)
        memcpy(p->hello_random, d + HELLO_RANDOM_AT, 32);
    p->last_ms = now_ms(s);
    p->io = (se_tls_io){.send = peer_send, .now_ms = peer_now, .on_data = peer_data,
                        .phase = s->io->phase != NULL ? peer_phase : NULL, .ctx = p};
#ifndef SE_TLS_NO_KEYLOG
    p->io.keylog = s->io->keylog != NULL ? peer_keylog : NULL;
#endif
    event(p, SE_DTLS_OPEN);
    *why = se_tls_init(&p->tls, s->tls, &p->io);
    if (*why != SE_OK) {
        p->used = 0;
        return SE_DTLS_START_FAILED;
    }
    (void)se_tls_input(&p->tls, d, len); /* what it did shows in the state */
    check(p);
    return SE_DTLS_NEW_PEER;
}

/* A datagram from an address with no connection (or a restart on one, old != NULL): only a
 * ClientHello can start one. */
static se_dtls_kind new_peer(se_dtls_server *s, const uint8_t *peer, size_t peer_len,
                             const uint8_t *d, size_t len, se_dtls_peer *old, se_status *why)
{
    uint8_t hvr[HVR_LEN];
    size_t hvr_len, cookie_len;
    se_status st = cookie_verdict(s->tls->crypto, s->cookie_key, peer, peer_len, d, len, hvr,
                                  sizeof hvr, &hvr_len, &cookie_len);

    if (st == SE_ERR_TLS_UNEXPECTED && hvr_len > 0) { /* no valid cookie yet: send one */
        s->n.hello_verify_sent++;
        if (cookie_len > 0)
            s->n.dropped_bad_cookie++;
        send_to(s, peer, peer_len, hvr, hvr_len);
        return cookie_len > 0 ? SE_DTLS_BAD_COOKIE : SE_DTLS_HELLO_VERIFY;
    }
    if (st != SE_OK) {
        *why = st;
        if (is_dtls_record(d, len) && !is_client_hello(d, len)) {
            s->n.dropped_unknown_peer++;
            return SE_DTLS_UNKNOWN_PEER;
        }
        s->n.dropped_malformed++;
        return SE_DTLS_MALFORMED;
    }
    if (old != NULL) { /* the same address starts over: the old connection gives way */
        s->n.replaced++;
        release(old, SE_DTLS_REPLACED);
    }
    for (size_t i = 0; i < s->n_peers; i++)
        if (!s->peers[i].used)
            return start(s, &s->peers[i], peer, peer_len, d, len, why);
    s->n.peers_full++;
    return SE_DTLS_PEERS_FULL;
}

#ifndef SE_TLS_NO_CID
/* The established connection whose connection ID (RFC 9146) a tls12_cid record at the front of d
 * carries. Only established ones: during a handshake a peer keeps its address, and a datagram
 * from elsewhere must not reach the connection's epoch-0 state (its replay window, its handshake
 * reassembly), which nothing authenticates. */
static se_dtls_peer *by_cid(se_dtls_server *s, const uint8_t *d, size_t len)
{
    if (len < 13 + SE_TLS_CID_LEN || d[0] != CT_CID || d[1] != 0xFE || be16(d + 3) == 0) /* (never epoch 0) */
        return NULL;
    for (size_t i = 0; i < s->n_peers; i++) {
        size_t n;
        const uint8_t *cid = s->peers[i].used && s->peers[i].established ? se_tls_own_cid(&s->peers[i].tls, &n)
                                                                         : NULL;
        if (cid != NULL && n == SE_TLS_CID_LEN && memcmp(d + 11, cid, n) == 0)
            return &s->peers[i];
    }
    return NULL;
}

/* The newest protected (authenticated) record taken: epoch << 48 | sequence number; 0 before the
 * first. Epoch-0 records raise nothing: nothing authenticates them. */
static uint64_t newest_protected(const se_tls *t)
{
    return t->epoch_in != 0 && t->win_any ? (uint64_t)t->epoch_in << 48 | t->win_top : 0;
}

/* A datagram for connection p from another address. The address becomes the peer's only when a
 * protected record of it authenticates and is newer than any before (RFC 9146 6): a replayed or
 * forged record, or a plaintext one of epoch 0, moves nothing. Whatever the connection sends while
 * it takes this datagram still goes to the old address. */
static se_dtls_kind moved_peer(se_dtls_server *s, se_dtls_peer *p, const uint8_t *peer, size_t peer_len,
                               const uint8_t *d, size_t len)
{
    uint32_t before = progress(p);
    uint64_t top = newest_protected(&p->tls);
    (void)se_tls_input(&p->tls, d, len);
    int newer = newest_protected(&p->tls) > top;
    if (newer && se_tls_get_state(&p->tls) != SE_TLS_FAILED) {
        p->addr_len = (uint8_t)peer_len;
        memset(p->addr, 0, sizeof p->addr);
        memcpy(p->addr, peer, peer_len);
        s->n.moved++;
        event(p, SE_DTLS_MOVED);
    }
    check(p);
    if (p->used && progress(p) != before)
        p->last_ms = now_ms(s);
    return SE_DTLS_PEER;
}
#endif

/* ---- the server ------------------------------------------------------------------------- */

se_status se_dtls_server_init(se_dtls_server *s, const se_dtls_server_config *cfg,
                              const se_dtls_server_io *io, se_dtls_peer *peers, size_t n_peers)
{
    if (s == NULL || cfg == NULL || cfg->tls == NULL || cfg->cookie_key == NULL || io == NULL ||
        io->send == NULL || io->now_ms == NULL || peers == NULL || n_peers == 0 ||
        cfg->tls->role != SE_TLS_SERVER ||
        cfg->tls->transport != SE_TLS_DATAGRAM || cfg->tls->crypto == NULL)
        return SE_ERR_BAD_INPUT;
    memset(s, 0, sizeof *s);
    s->tls = cfg->tls;
    s->io = io;
    s->peers = peers;
    s->n_peers = n_peers;
    s->idle_ms = cfg->idle_ms;
    memcpy(s->cookie_key, cfg->cookie_key, sizeof s->cookie_key);
    for (size_t i = 0; i < n_peers; i++) {
        memset(&peers[i], 0, offsetof(se_dtls_peer, tls));
        peers[i].srv = s;
        peers[i].index = i;
    }
    return SE_OK;
}

se_dtls_kind se_dtls_server_input(se_dtls_server *s, const uint8_t *peer, size_t peer_len,
                                  const uint8_t *d, size_t len, se_status *why)
{
    se_status ignored;
    se_dtls_peer *p = NULL;

    why = why != NULL ? why : &ignored;
    *why = SE_OK;
    s->n.datagrams_in++;
    if (len > SE_DTLS_MAX_DATAGRAM) {
        s->n.dropped_oversized++;
        return SE_DTLS_OVERSIZED;
    }
    if (peer_len == 0 || peer_len > SE_DTLS_MAX_ADDR) {
        *why = SE_ERR_BAD_INPUT;
        s->n.dropped_malformed++;
        return SE_DTLS_MALFORMED;
    }
#ifndef SE_TLS_NO_CID
    /* A tls12_cid record names its connection, whatever address it comes from (a stale slot may
     * still hold the node's new address). */
    if ((p = by_cid(s, d, len)) != NULL &&
        (p->addr_len != peer_len || memcmp(p->addr, peer, peer_len) != 0))
        return moved_peer(s, p, peer, peer_len, d, len);
#endif
    for (size_t i = 0; i < s->n_peers && p == NULL; i++)
        if (s->peers[i].used && s->peers[i].addr_len == peer_len &&
            memcmp(s->peers[i].addr, peer, peer_len) == 0)
            p = &s->peers[i];
    if (p == NULL)
        return new_peer(s, peer, peer_len, d, len, NULL, why);
    /* A fresh ClientHello (not a late copy of the one that started this connection) on an
     * established connection: the peer restarted on the same address (RFC 6347 4.2.8). It
     * replaces the old connection once it proves its address with a valid cookie. */
    if (p->established && is_client_hello(d, len) && len >= HELLO_RANDOM_AT + 32 &&
        memcmp(d + HELLO_RANDOM_AT, p->hello_random, 32) != 0)
        return new_peer(s, peer, peer_len, d, len, p, why);
    uint32_t before = progress(p);
    (void)se_tls_input(&p->tls, d, len); /* what it did shows in the state */
    check(p);
    if (p->used && progress(p) != before)
        p->last_ms = now_ms(s);
    return SE_DTLS_PEER;
}

uint32_t se_dtls_server_timer(se_dtls_server *s)
{
    uint32_t now = now_ms(s), next = UINT32_MAX;

    for (size_t i = 0; i < s->n_peers; i++) {
        se_dtls_peer *p = &s->peers[i];
        if (!p->used)
            continue;
        if (s->idle_ms != 0) {
            uint32_t idle = now - p->last_ms;
            if (idle >= s->idle_ms) {
                s->n.idle_timeouts++;
                release(p, SE_DTLS_IDLE);
                continue;
            }
            if (s->idle_ms - idle < next)
                next = s->idle_ms - idle;
        }
        if (se_tls_timeout_ms(&p->tls) == 0) {
            (void)se_tls_timer(&p->tls);
            check(p);
            if (!p->used)
                continue;
        }
        uint32_t t = se_tls_timeout_ms(&p->tls);
        if (t < next)
            next = t;
    }
    return next;
}

void se_dtls_server_get_stats(const se_dtls_server *s, se_dtls_server_stats *out)
{
    *out = s->n;
    for (size_t i = 0; i < s->n_peers; i++)
        if (s->peers[i].used) {
            const se_tls_stats *st = se_tls_get_stats(&s->peers[i].tls);
            out->dropped_bad_mac += st->dropped_bad_mac;
            out->dropped_replay += st->dropped_replay;
            out->dropped_bad_record += st->dropped_malformed;
            out->retransmits += st->retransmits;
        }
}

size_t se_dtls_server_live(const se_dtls_server *s)
{
    size_t live = 0;
    for (size_t i = 0; i < s->n_peers; i++)
        live += s->peers[i].used != 0;
    return live;
}

void se_dtls_server_shutdown(se_dtls_server *s)
{
    for (size_t i = 0; i < s->n_peers; i++)
        if (s->peers[i].used && se_tls_get_state(&s->peers[i].tls) == SE_TLS_ESTABLISHED)
            (void)se_tls_close(&s->peers[i].tls);
}

void se_dtls_server_wipe(se_dtls_server *s)
{
    for (size_t i = 0; i < s->n_peers; i++) {
        se_ct_wipe(&s->peers[i].tls, sizeof s->peers[i].tls);
        s->peers[i].used = 0;
    }
    se_ct_wipe(s->cookie_key, sizeof s->cookie_key);
}

const char *se_dtls_kind_name(se_dtls_kind kind)
{
    static const char *const names[] = {
        "peer", "new_peer", "hello_verify", "bad_cookie", "peers_full", "malformed",
        "unknown_peer", "oversized", "start_failed",
    };
    return (size_t)kind < sizeof names / sizeof names[0] ? names[kind] : "unknown";
}

/* ---- a slot ----------------------------------------------------------------------------- */

se_tls *se_dtls_peer_tls(se_dtls_peer *p) { return &p->tls; }
size_t se_dtls_peer_index(const se_dtls_peer *p) { return p->index; }
int se_dtls_peer_established(const se_dtls_peer *p) { return p->established; }

const uint8_t *se_dtls_peer_addr(const se_dtls_peer *p, size_t *len)
{
    *len = p->addr_len;
    return p->addr;
}
