/* DTLS 1.2 server front end (RFC 6347): many peers on one datagram socket, sans-I/O.
 *
 * What every DTLS server needs in front of its connections: the stateless cookie exchange
 * (4.2.1, HelloVerifyRequest), a table of peer slots keyed by the peer's address, the sorting of
 * each datagram (ClientHello without or with a valid cookie, a datagram for a peer's connection,
 * junk), a new handshake from a known address replacing its old connection (4.2.8), idle
 * timeouts, the retransmission timers of every connection, and counters for all of it.
 *
 * Sans-I/O and allocation-free like se/tls.h: the caller owns the socket and the clock (io.send,
 * io.now_ms), names each peer with opaque bytes (e.g. its sockaddr, at most SE_DTLS_MAX_ADDR),
 * and provides the slot array (one se_dtls_peer per connection it will hold at once, each an
 * se_tls). It feeds every received datagram to se_dtls_server_input and runs
 * se_dtls_server_timer when it says so:
 *
 *   se_dtls_peer peers[N];                       static, or allocated once by the caller
 *   se_dtls_server srv;
 *   se_dtls_server_config sc = {.tls = &cfg, .cookie_key = key32, .idle_ms = 300000};
 *   se_dtls_server_io io = {.send = send_to, .now_ms = now_ms, .event = on_event, .on_data = on_data, .ctx = ctx};
 *   se_dtls_server_init(&srv, &sc, &io, peers, N);
 *   for (;;) {
 *       wait for a datagram or se_dtls_server_timer(&srv) milliseconds;
 *       se_dtls_server_input(&srv, addr, addr_len, dgram, len, &why);
 *   }
 *   se_dtls_server_shutdown(&srv); se_dtls_server_wipe(&srv);
 *
 * The policy (the same for `se server` and `se collector`, docs/collector.md):
 * - An address without a slot gets a HelloVerifyRequest for a ClientHello without a valid cookie
 *   and no state; a ClientHello with a valid cookie takes a free slot (se_tls_init, then
 *   se_tls_input of that datagram), or is dropped as peers_full when every slot is in use. A live
 *   connection is never evicted for a new peer.
 * - A datagram from an address with a slot goes to that connection, except an epoch-0
 *   ClientHello with another client random than the one that started an established connection:
 *   the peer restarted on the same address. It is cookie-checked like a new peer's, and with a
 *   valid cookie it replaces the old connection.
 * - A slot is freed when its connection closes (close_notify), fails, or makes no progress for
 *   idle_ms: progress is a new handshake message of the peer while it handshakes (not a repeated
 *   one), an authenticated record once established, so a peer that only repeats itself cannot
 *   hold a slot. The freed slot's keys are wiped.
 * - Callbacks run synchronously inside se_dtls_server_input / _timer (and the connection's own
 *   calls, e.g. se_tls_write from on_data); a callback must not call se_dtls_server_input or
 *   se_dtls_server_timer. */
#ifndef SE_DTLS_SERVER_H
#define SE_DTLS_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "se/tls.h"

/* ---- sizes ------------------------------------------------------------------------------- */
#ifndef SE_DTLS_MAX_ADDR /* bytes naming a peer (a struct sockaddr_in6 takes 28) */
#define SE_DTLS_MAX_ADDR 32
#endif
/* The longest datagram a DTLS record can fill (2^14 + 2048 bytes of body, 13 of header): longer
 * ones are dropped as oversized. Read datagrams into a buffer of at least this + 1 bytes (or
 * pass the real length of a truncated one) so that they are seen as such. */
#define SE_DTLS_MAX_DATAGRAM (16384 + 2048 + 13)
#define SE_DTLS_COOKIE_LEN 16 /* the cookies we send: HMAC-SHA256, truncated */

/* ---- what became of a datagram (se_dtls_server_input) -----------------------------------
 * From SE_DTLS_PEERS_FULL on, the datagram served nothing (dropped). */
typedef enum {
    SE_DTLS_PEER = 0,     /* for a peer with a slot: fed to its connection */
    SE_DTLS_NEW_PEER,     /* a ClientHello with a valid cookie: a connection started in a free slot
                           * (replacing the address's old one, if it had one) */
    SE_DTLS_HELLO_VERIFY, /* a ClientHello without a cookie: a HelloVerifyRequest was sent */
    SE_DTLS_BAD_COOKIE,   /* a ClientHello with a wrong cookie: a HelloVerifyRequest was sent */
    SE_DTLS_PEERS_FULL,   /* a ClientHello with a valid cookie, but every slot in use: dropped */
    SE_DTLS_MALFORMED,    /* from an address without a slot, no usable ClientHello: dropped
                           * (*why: the cookie check's verdict) */
    SE_DTLS_UNKNOWN_PEER, /* a DTLS record past the handshake (epoch > 0, alert, CCS, application
                           * data) from an address without a slot: dropped */
    SE_DTLS_OVERSIZED,    /* longer than SE_DTLS_MAX_DATAGRAM: dropped */
    SE_DTLS_START_FAILED, /* a valid ClientHello, but se_tls_init refused the config (*why) */
} se_dtls_kind;

/* "peer", "new_peer", "hello_verify", "bad_cookie", "peers_full", "malformed", "unknown_peer",
 * "oversized", "start_failed"; "unknown". */
const char *se_dtls_kind_name(se_dtls_kind kind);

/* ---- what happens to a slot (se_dtls_server_io.event) ------------------------------------ */
typedef enum {
    SE_DTLS_OPEN = 0,  /* a cookie-checked ClientHello takes this slot; se_tls_init comes next, so
                        * the caller may refresh the connection config (its clock, cfg.now) and
                        * reseed its DRBG here */
    SE_DTLS_CONNECTED, /* the handshake completed (before the first on_data of the connection) */
    /* The last event of a slot; the slot is wiped and freed when the callback returns: */
    SE_DTLS_CLOSED,    /* the peer's close_notify ended an established connection */
    SE_DTLS_FAILED,    /* a fatal error (se_tls_error, se_tls_sent_alert, se_tls_peer_alert);
                        * se_dtls_peer_established says whether in the handshake or after it */
    SE_DTLS_IDLE,      /* no progress for idle_ms */
    SE_DTLS_REPLACED,  /* a new handshake from the same address takes over */
    /* Not a last event: */
    SE_DTLS_MOVED,     /* the connection's peer now sends from another address (its newest record
                        * came from there, found by its connection ID, RFC 9146 6); replies go
                        * there from now on (se_dtls_peer_addr) */
} se_dtls_event;

/* ---- counters ---------------------------------------------------------------------------- */
#define SE_DTLS_SERVER_COUNTERS(X)                                                            \
    X(datagrams_in)         /* datagrams given to se_dtls_server_input */                     \
    X(hello_verify_sent)    /* HelloVerifyRequests sent (ClientHellos without a valid cookie) */ \
    X(connections)          /* handshakes completed */                                         \
    X(closed)               /* connections the peer ended with close_notify */                \
    X(handshake_failed)     /* handshakes that failed (SE_DTLS_FAILED before CONNECTED) */     \
    X(connection_failed)    /* established connections that hit a fatal error */              \
    X(idle_timeouts)        /* slots freed after idle_ms without progress */                  \
    X(replaced)             /* established connections replaced by a new handshake */         \
    X(moved)                /* connections whose peer moved to another address (SE_DTLS_MOVED) */ \
    X(peers_full)           /* SE_DTLS_PEERS_FULL */                                          \
    X(dropped_malformed)    /* SE_DTLS_MALFORMED */                                           \
    X(dropped_unknown_peer) /* SE_DTLS_UNKNOWN_PEER */                                        \
    X(dropped_bad_cookie)   /* SE_DTLS_BAD_COOKIE (also counted in hello_verify_sent) */      \
    X(dropped_oversized)    /* SE_DTLS_OVERSIZED */                                           \
    X(dropped_bad_mac)      /* records failing their tag in a connection (se_tls_stats, summed) */ \
    X(dropped_replay)       /* replayed records (se_tls_stats) */                             \
    X(dropped_bad_record)   /* malformed or wrong-epoch records in a connection
                             * (se_tls_stats.dropped_malformed) */                           \
    X(retransmits)          /* flights resent (se_tls_stats) */                               \
    X(send_errors)          /* datagrams io.send refused (taken as lost on the way) */

typedef struct {
#define SE_DTLS_X_(name) uint64_t name;
    SE_DTLS_SERVER_COUNTERS(SE_DTLS_X_)
#undef SE_DTLS_X_
} se_dtls_server_stats;

/* ---- set-up ------------------------------------------------------------------------------ */
typedef struct se_dtls_server se_dtls_server;
typedef struct se_dtls_peer se_dtls_peer;

/* The caller's side, all called synchronously. */
typedef struct {
    /* Sends one datagram to the peer named by peer/peer_len (bytes given to
     * se_dtls_server_input); returns 0, or nonzero if the network refused it (counted in
     * send_errors and taken as lost: the connection goes on, DTLS retransmits). */
    int (*send)(void *ctx, const uint8_t *peer, size_t peer_len, const uint8_t *buf, size_t len);
    /* Monotonic milliseconds: the connections' retransmission timers and the idle timers. */
    uint32_t (*now_ms)(void *ctx);
    /* A slot's events (may be NULL). */
    void (*event)(void *ctx, se_dtls_peer *p, se_dtls_event ev);
    /* Decrypted application data of a connection, one record at a time (may be NULL). */
    void (*on_data)(void *ctx, se_dtls_peer *p, const uint8_t *buf, size_t len);
    /* The connections' phase boundaries (se_tls_io.phase; may be NULL). */
    void (*phase)(void *ctx, se_dtls_peer *p, const char *name);
    void *ctx;
#ifndef SE_TLS_NO_KEYLOG
    /* Every connection's se_tls_io.keylog (may be NULL; debugging only): its master secret. */
    void (*keylog)(void *ctx, const uint8_t client_random[32], const uint8_t master[48]);
#endif
} se_dtls_server_io;

typedef struct {
    /* Every connection's configuration: role SE_TLS_SERVER, transport SE_TLS_DATAGRAM, and its
     * crypto backend also computes the cookies. Must outlive the server; the caller may change it
     * between connections (in SE_DTLS_OPEN). */
    const se_tls_config *tls;
    const uint8_t *cookie_key; /* 32 secret bytes (from the DRBG at start-up); copied */
    uint32_t idle_ms;          /* frees a slot without progress that long; 0: never */
} se_dtls_server_config;

/* SE_ERR_BAD_INPUT without peers, a key, the callbacks send and now_ms, or with a config that is
 * not a DTLS server's. cfg's key is copied; io and peers must outlive the server. */
se_status se_dtls_server_init(se_dtls_server *s, const se_dtls_server_config *cfg,
                              const se_dtls_server_io *io, se_dtls_peer *peers, size_t n_peers);

/* ---- running it -------------------------------------------------------------------------- */
/* One datagram that arrived from peer (1..SE_DTLS_MAX_ADDR bytes; equal peers must have equal
 * bytes). Returns what became of it; *why (may be NULL) is the status behind
 * SE_DTLS_MALFORMED and SE_DTLS_START_FAILED, SE_OK otherwise. A peer of another length is
 * dropped as malformed (SE_ERR_BAD_INPUT). */
se_dtls_kind se_dtls_server_input(se_dtls_server *s, const uint8_t *peer, size_t peer_len,
                                  const uint8_t *dgram, size_t len, se_status *why);
/* Runs what is due: idle timeouts, then each connection's retransmission timer. Returns the
 * milliseconds until it is due again, UINT32_MAX when no slot is in use. */
uint32_t se_dtls_server_timer(se_dtls_server *s);
/* The counters, with the se_tls_stats of live and freed connections added in. */
void se_dtls_server_get_stats(const se_dtls_server *s, se_dtls_server_stats *out);
size_t se_dtls_server_live(const se_dtls_server *s); /* slots in use */
/* Sends close_notify on every established connection (at exit); the slots stay in use. */
void se_dtls_server_shutdown(se_dtls_server *s);
/* Wipes every slot (keys included) and the cookie key; the server is unusable afterwards. */
void se_dtls_server_wipe(se_dtls_server *s);

/* ---- a slot, in callbacks ---------------------------------------------------------------- */
se_tls *se_dtls_peer_tls(se_dtls_peer *p);                          /* its connection */
const uint8_t *se_dtls_peer_addr(const se_dtls_peer *p, size_t *len); /* its peer's bytes */
size_t se_dtls_peer_index(const se_dtls_peer *p); /* its place in the caller's array */
int se_dtls_peer_established(const se_dtls_peer *p); /* CONNECTED has been reported */

/* ---- the stateless cookie check alone (RFC 6347 4.2.1) ------------------------------------
 * What se_dtls_server_input does for an address without a slot. Checks a datagram that arrived
 * from `peer` (any bytes naming the client's address) at a server that has no connection for it:
 *   SE_OK                   a ClientHello (epoch 0) with a valid cookie: start a connection and
 *                           feed it this datagram;
 *   SE_ERR_TLS_UNEXPECTED   a ClientHello without a valid cookie: *hvr_len bytes of
 *                           HelloVerifyRequest datagram were written to hvr, send them back;
 *   other errors            anything else (drop it; *hvr_len = 0).
 * The cookie is HMAC-SHA256 under cookie_key (32 bytes) of the peer's bytes, the client random,
 * the session id and a hash of the suites, SE_DTLS_COOKIE_LEN bytes of it. A fragmented
 * ClientHello is refused (SE_ERR_TLS_DECODE). */
se_status se_dtls_cookie_check(const se_backend *be, const uint8_t cookie_key[32],
                               const uint8_t *peer, size_t peer_len, const uint8_t *dgram,
                               size_t len, uint8_t *hvr, size_t hvr_cap, size_t *hvr_len);

/* ---- layout, public only so callers can allocate it; fields are private ------------------- */
struct se_dtls_peer {
    se_dtls_server *srv;
    se_tls_io io;                /* the connection's, pointing back at this slot */
    size_t index;
    uint32_t last_ms;            /* the peer's last progress */
    uint8_t used, established;
    uint8_t addr_len;
    uint8_t addr[SE_DTLS_MAX_ADDR];
    uint8_t hello_random[32];    /* of the ClientHello that started the connection */
    se_tls tls;
};

struct se_dtls_server {
    const se_tls_config *tls;
    const se_dtls_server_io *io;
    se_dtls_peer *peers;
    size_t n_peers;
    uint32_t idle_ms;
    uint8_t cookie_key[32];
    se_dtls_server_stats n;      /* freed connections' se_tls_stats included, live ones not */
};

#endif
