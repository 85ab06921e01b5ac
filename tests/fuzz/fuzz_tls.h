/* The TLS/DTLS fuzzers' fixed setup (fuzz_{tls,dtls}_{server,client}.c and the seed recorder
 * tls_seeds.c): one configuration per variant byte, the fixed PKI of fuzz_pki.h, a DRBG seeded
 * the same way on every run and a clock that only moves when the input says so. With everything
 * deterministic, a recorded handshake replays to the end: the fuzzer starts from inputs that reach
 * every state (ESTABLISHED, application data) and mutates from there. */
#ifndef FUZZ_TLS_H
#define FUZZ_TLS_H

#include <stdio.h>
#include <string.h>

#include "fuzz_pki.h"
#include "fuzz_util.h"
#include "se/backend.h"
#include "se/dtls_server.h"
#include "se/tls.h"

#define FZ_SERVER_NAME "fuzz.example"

#ifndef SE_TLS_NO_CBC
static const uint16_t fz_suite_lists[4][3] = {
    {SE_TLS_ECDHE_ECDSA_AES_128_CCM_8, SE_TLS_ECDHE_ECDSA_AES_128_GCM_SHA256, SE_TLS_ECDHE_ECDSA_AES_128_CBC_SHA256},
    {SE_TLS_ECDHE_ECDSA_AES_128_CCM_8},
    {SE_TLS_ECDHE_ECDSA_AES_128_GCM_SHA256},
    {SE_TLS_ECDHE_ECDSA_AES_128_CBC_SHA256},
};
static const size_t fz_suite_n[4] = {3, 1, 1, 1};
#else /* the node's build (fuzz_dtls_client_node): no CBC */
static const uint16_t fz_suite_lists[4][3] = {
    {SE_TLS_ECDHE_ECDSA_AES_128_CCM_8, SE_TLS_ECDHE_ECDSA_AES_128_GCM_SHA256},
    {SE_TLS_ECDHE_ECDSA_AES_128_CCM_8},
    {SE_TLS_ECDHE_ECDSA_AES_128_GCM_SHA256},
    {SE_TLS_ECDHE_ECDSA_AES_128_GCM_SHA256, SE_TLS_ECDHE_ECDSA_AES_128_CCM_8},
};
static const size_t fz_suite_n[4] = {2, 1, 1, 2};
#endif

/* One endpoint: its config, DRBG, clock and I/O. */
typedef struct {
    se_tls_config cfg;
    se_tls_io io;
    se_hmac_drbg_ctx rng;
    uint32_t clock;
    const uint8_t *chain[1];
    size_t chain_len[1];
    const uint8_t *anchors[1];
    size_t anchor_len[1];
    int wrote;
} fz_end;

static se_ec_curve fz_p256;

static uint32_t fz_now_ms(void *ctx)
{
    return ((fz_end *)ctx)->clock;
}

/* Variant byte v: suites (v % 4: default list, CCM_8, GCM, CBC), client authentication
 * ((v / 4) % 3: none, optional, required; the client has a certificate unless (v / 12) % 2), DTLS
 * connection IDs (RFC 9146) when (v / 24) % 2, in a build that has them. */
static inline se_status fz_setup(fz_end *e, se_tls_role role, se_tls_transport tr, uint8_t v,
                                 int (*send)(void *, const uint8_t *, size_t))
{
    static int curve_ready;
    if (!curve_ready) {
        if (se_ec_curve_builtin(&fz_p256, SE_CURVE_SECP256R1) != SE_OK)
            return SE_ERR_BACKEND;
        curve_ready = 1;
    }
    memset(e, 0, sizeof *e);
    uint8_t seed[48];
    memset(seed, role == SE_TLS_SERVER ? 0x5e : 0xc1, sizeof seed);
    seed[0] = v;
    se_status st = se_hmac_drbg_instantiate(&e->rng, seed, 32, seed + 32, 16, NULL, 0);
    if (st != SE_OK)
        return st;
    e->clock = 1000;
    e->io.send = send;
    e->io.now_ms = fz_now_ms;
    e->io.ctx = e;
    e->anchors[0] = fz_ca;
    e->anchor_len[0] = sizeof fz_ca;
    se_tls_config *c = &e->cfg;
    c->transport = tr;
    c->role = role;
    c->crypto = &se_backend_sw;
    c->rng = &e->rng;
    c->p256 = &fz_p256;
    c->suites = fz_suite_lists[v % 4];
    c->n_suites = fz_suite_n[v % 4];
    c->anchors = e->anchors;
    c->anchor_len = e->anchor_len;
    c->n_anchors = 1;
    c->now = FZ_NOW;
    c->mtu = 1200;
#ifndef SE_TLS_NO_CID
    c->cid = (uint8_t)((v / 24) % 2 == 1 && tr == SE_TLS_DATAGRAM);
#endif
    if (role == SE_TLS_SERVER) {
        e->chain[0] = fz_server;
        e->chain_len[0] = sizeof fz_server;
        c->key = fz_server_key;
        c->client_auth = (se_tls_client_auth)((v / 4) % 3);
    } else {
        c->server_name = FZ_SERVER_NAME;
        if ((v / 12) % 2 == 0) {
            e->chain[0] = fz_client;
            e->chain_len[0] = sizeof fz_client;
            c->key = fz_client_key;
        }
    }
    if (c->key != NULL) {
        c->chain = e->chain;
        c->chain_len = e->chain_len;
        c->chain_n = 1;
    }
    return SE_OK;
}

/* After each input: once ESTABLISHED, the endpoint sends one application record (both the
 * harnesses and the recorder do, so recorded peers see the same bytes). */
static inline void fz_after_input(fz_end *e, se_tls *t)
{
    static const uint8_t ping[] = "ping from the fuzzer";
    if (!e->wrote && se_tls_get_state(t) == SE_TLS_ESTABLISHED) {
        e->wrote = 1;
        (void)se_tls_write(t, ping, sizeof ping - 1);
    }
}

/* The connection's accessors. */
static inline void fz_accessors(const se_tls *t)
{
    uint8_t pub[65];
    char cn[SE_TLS_MAX_CN];
    (void)se_tls_peer_key(t, pub);
    (void)se_tls_peer_name(t, cn, sizeof cn);
    (void)se_tls_suite_name(se_tls_suite(t));
    (void)se_tls_alert_name(se_tls_peer_alert(t));
    (void)se_tls_get_stats(t);
}

/* The fuzz input after the variant byte: chunks fed to se_tls_input; an empty chunk advances the
 * clock by 1.5 s and runs se_tls_timer (DTLS retransmission). */
static inline void fz_feed(fz_end *e, se_tls *t, const uint8_t *data, size_t size)
{
    fz_reader r = {data, size};
    const uint8_t *b;
    size_t n;
    while (fz_chunk(&r, &b, &n)) {
        if (n == 0) {
            e->clock += 1500;
            (void)se_tls_timer(t);
        } else {
            (void)se_tls_input(t, b, n);
        }
        fz_after_input(e, t);
        (void)se_tls_timeout_ms(t);
        if (se_tls_get_state(t) >= SE_TLS_CLOSED)
            break;
    }
    fz_accessors(t); /* for whatever state the input left */
#ifdef FZ_DEBUG /* replay check: how far did the input get? */
    fprintf(stderr, "fz: state %d error %s\n", (int)se_tls_get_state(t), se_status_name(se_tls_error(t)));
#endif
    if (se_tls_get_state(t) == SE_TLS_ESTABLISHED)
        (void)se_tls_close(t);
}

/* The DTLS server front end (se/dtls_server.h) as fuzz_dtls_server runs it and tls_seeds records
 * for it: FZ_DTLS_SLOTS slots, FZ_DTLS_IDLE_MS of idle timeout, a fixed cookie key, peers named
 * by the strings fz_dtls_peer gives (a chunk's two top length bits pick one; recorded handshakes
 * carry cookies for them). */
#define FZ_DTLS_SLOTS 2
#define FZ_DTLS_IDLE_MS 6000

static inline const uint8_t *fz_cookie_key(void)
{
    static const uint8_t key[32] = {0x42};
    return key;
}

static inline const char *fz_dtls_peer(unsigned i)
{
    static const char *const peers[4] = {"192.0.2.1:5684", "192.0.2.2:5684", "192.0.2.1:5685",
                                         "[2001:db8::1]:5684"};
    return peers[i & 3];
}

/* The server's side of fz_after_input: a connection that just completed its handshake sends one
 * application record (se_dtls_server_io.event). */
static inline void fz_dtls_event(se_dtls_peer *p, se_dtls_event ev)
{
    static const uint8_t ping[] = "ping from the fuzzer";
    if (ev == SE_DTLS_CONNECTED)
        (void)se_tls_write(se_dtls_peer_tls(p), ping, sizeof ping - 1);
}

static inline int fz_discard(void *ctx, const uint8_t *buf, size_t len)
{
    (void)ctx, (void)buf, (void)len;
    return 0;
}

#endif
