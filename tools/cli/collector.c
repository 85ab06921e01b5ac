/* se collector: a DTLS 1.2 server that takes readings from many nodes at once and stores each
 * application record in SQLite (docs/collector.md).
 *
 * One UDP socket and one poll() loop. Each peer address that completes the stateless cookie
 * exchange (se_dtls_cookie_check) gets one of --max-peers connection slots, allocated once at
 * start-up; the slot is freed when the connection closes (close_notify), fails, or makes no
 * progress for --idle-timeout seconds. Nodes must authenticate with a client certificate chaining to
 * --ca; a node's identity is its certificate's subject commonName. Every application record is
 * one row of `readings`, committed on arrival; connection events go to `events`. Hostile or
 * broken datagrams are dropped and counted by kind; the counters are printed on exit (SIGINT,
 * SIGTERM, --exit-after-records) and written as JSON to --stats. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "se/ct.h"
#include "se/sha256.h"
#include "se/tls.h"
#include "tls_host.h"

/* Largest datagram taken in; longer ones (no DTLS record is: 2^14 + 2048 plus its header) are
 * dropped as oversized. */
#define MAX_DGRAM (16384 + 2048 + 13)
/* Where a ClientHello datagram's client random starts: record header 13, handshake header 12,
 * client_version 2. */
#define HELLO_RANDOM_AT (13 + 12 + 2)

/* Drop lines on stderr per second at most (a flood is counted, not printed). */
#define DROP_LINES_PER_SEC 10

/* ---- counters: one list, printed on exit and written to --stats --------------------------- */
#define COUNTERS(X)                                                                          \
    X(datagrams_in)          /* datagrams received */                                        \
    X(hello_verify_sent)     /* HelloVerifyRequests sent (ClientHello without a valid cookie) */ \
    X(connections)           /* handshakes completed */                                      \
    X(records_stored)        /* application records stored as readings */                    \
    X(closed)                /* connections ended by the node's close_notify */             \
    X(handshake_failed)      /* handshakes that failed (bad or missing certificate, ...) */   \
    X(connection_failed)     /* established connections that hit a fatal error */            \
    X(idle_timeouts)         /* handshakes or connections freed after --idle-timeout */       \
    X(replaced)              /* established connections replaced by a new handshake */       \
    X(peers_full)            /* new peers refused: every slot in use */                      \
    X(dropped_malformed)     /* datagrams from unknown peers that are no ClientHello */       \
    X(dropped_unknown_peer)  /* records past the handshake (epoch > 0, ...) from unknown peers */ \
    X(dropped_bad_cookie)    /* ClientHellos carrying a wrong cookie (answered with a new one) */ \
    X(dropped_oversized)     /* datagrams longer than any DTLS record */                     \
    X(dropped_bad_mac)       /* records failing their tag (se_tls_stats, all connections) */ \
    X(dropped_replay)        /* replayed records (se_tls_stats) */                            \
    X(dropped_bad_record)    /* malformed records or wrong epoch inside a connection (se_tls_stats) */ \
    X(retransmits)           /* flights resent (se_tls_stats) */                             \
    X(db_errors)             /* readings or events SQLite refused */                         \
    X(send_errors)           /* datagrams the socket refused (treated as lost) */

typedef struct {
#define X(name) unsigned long name;
    COUNTERS(X)
#undef X
} counters;

/* ---- one connection slot per peer ------------------------------------------------------- */
typedef struct collector collector;

typedef struct {
    collector *c;
    int used;
    int established;              /* "connected" was noted */
    struct sockaddr_storage addr; /* the peer's address (the slot's key) */
    socklen_t addr_len;
    char peer[64];                /* the address as text, "127.0.0.1:5000" */
    char node[65];                /* the client certificate's subject CN */
    char key_hex[65];             /* hex SHA-256 of the node's public key (04||x||y) */
    uint8_t hello_random[32];     /* client random of the ClientHello that started it */
    uint32_t last_ms;             /* the peer's last progress (progress()) */
    unsigned long records;
    se_tls_io io;
    se_tls tls;
} slot;

struct collector {
    int sock;
    sqlite3 *db;
    sqlite3_stmt *ins_reading, *ins_event;
    se_tls_config cfg;
    tls_host_identity id;         /* server chain, key, trust anchors for the nodes */
    se_ec_curve p256;
    se_hmac_drbg_ctx rng;
    uint8_t cookie_key[32];
    slot *slots;
    size_t n_slots;
    uint32_t idle_ms;
    unsigned long exit_after;     /* 0: run until a signal */
    counters n;
    se_tls_stats gone;            /* se_tls_stats of freed slots, summed */
    uint32_t drop_sec, drop_lines;
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* ---- small helpers ---------------------------------------------------------------------- */

/* UTC wall-clock time, ISO-8601 with milliseconds: 2025-01-31T12:00:00.123Z */
static void utc_now(char out[32])
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%03ldZ", ts.tv_nsec / 1000000L);
}

/* The bytes naming a peer for the cookie and the slot table: family, port, address (the rest
 * of a sockaddr, such as sin_zero, is not guaranteed to be clean). Returns their length. */
static size_t addr_key(const struct sockaddr_storage *a, uint8_t out[19])
{
    out[0] = (uint8_t)a->ss_family;
    if (a->ss_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)a;
        memcpy(out + 1, &v4->sin_port, 2);
        memcpy(out + 3, &v4->sin_addr, 4);
        return 7;
    }
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)a;
    memcpy(out + 1, &v6->sin6_port, 2);
    memcpy(out + 3, &v6->sin6_addr, 16);
    return 19;
}

static int same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    uint8_t ka[19], kb[19];
    size_t la = addr_key(a, ka), lb = addr_key(b, kb);
    return la == lb && memcmp(ka, kb, la) == 0;
}

/* Makes a certificate name safe to print and store: printable ASCII only, in place. */
static void clean_name(char *s)
{
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7e)
            *s = '?';
}

/* ---- SQLite ----------------------------------------------------------------------------- */

/* The schema (docs/collector.md); existing tables and rows are kept. */
static const char schema[] =
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=FULL;"
    "CREATE TABLE IF NOT EXISTS readings("
    " id INTEGER PRIMARY KEY,"
    " node TEXT NOT NULL,"        /* client certificate subject CN */
    " received_at TEXT NOT NULL," /* UTC ISO-8601 with ms */
    " payload BLOB NOT NULL,"     /* one application record, as sent */
    " peer TEXT,"                 /* address:port it came from */
    " key_sha256 TEXT);"          /* hex SHA-256 of the node's public key 04||x||y */
    "CREATE INDEX IF NOT EXISTS readings_node ON readings(node, received_at);"
    "CREATE TABLE IF NOT EXISTS events("
    " id INTEGER PRIMARY KEY,"
    " at TEXT NOT NULL,"
    " peer TEXT,"
    " kind TEXT NOT NULL,"        /* connected, closed, handshake_failed, ... */
    " detail TEXT);";

static int db_open(collector *c, const char *path)
{
    char *err = NULL;
    if (sqlite3_open(path, &c->db) != SQLITE_OK) {
        fprintf(stderr, "collector: cannot open %s: %s\n", path, sqlite3_errmsg(c->db));
        return -1;
    }
    sqlite3_busy_timeout(c->db, 5000);
    if (sqlite3_exec(c->db, schema, NULL, NULL, &err) != SQLITE_OK ||
        sqlite3_prepare_v2(c->db,
                           "INSERT INTO readings(node, received_at, payload, peer, key_sha256) "
                           "VALUES(?, ?, ?, ?, ?)", -1, &c->ins_reading, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(c->db, "INSERT INTO events(at, peer, kind, detail) VALUES(?, ?, ?, ?)",
                           -1, &c->ins_event, NULL) != SQLITE_OK) {
        fprintf(stderr, "collector: %s: %s\n", path, err ? err : sqlite3_errmsg(c->db));
        sqlite3_free(err);
        return -1;
    }
    return 0;
}

static void db_close(collector *c)
{
    sqlite3_finalize(c->ins_reading);
    sqlite3_finalize(c->ins_event);
    sqlite3_close(c->db);
}

/* Runs a bound INSERT (autocommit: the row is committed when this returns). */
static int db_step(collector *c, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) {
        c->n.db_errors++;
        fprintf(stderr, "collector: database: %s\n", sqlite3_errmsg(c->db));
        return -1;
    }
    return 0;
}

static void db_event(collector *c, const char *peer, const char *kind, const char *detail)
{
    char at[32];
    utc_now(at);
    sqlite3_bind_text(c->ins_event, 1, at, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(c->ins_event, 2, peer, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(c->ins_event, 3, kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(c->ins_event, 4, detail, -1, SQLITE_TRANSIENT);
    db_step(c, c->ins_event);
}

/* ---- logging ---------------------------------------------------------------------------- */

/* A dropped datagram: counted always, printed at most DROP_LINES_PER_SEC times a second. */
static void dropped(collector *c, unsigned long *counter, const char *peer, const char *why)
{
    uint32_t sec = (uint32_t)time(NULL);
    (*counter)++;
    if (sec != c->drop_sec) {
        c->drop_sec = sec;
        c->drop_lines = 0;
    }
    if (c->drop_lines++ < DROP_LINES_PER_SEC)
        fprintf(stderr, "collector: %s dropped: %s\n", peer, why);
}

/* ---- slots ------------------------------------------------------------------------------ */

static int send_dgram(void *ctx, const uint8_t *buf, size_t len)
{
    slot *s = ctx;
    if (sendto(s->c->sock, buf, len, 0, (const struct sockaddr *)&s->addr, s->addr_len) < 0)
        s->c->n.send_errors++; /* UDP: as good as lost on the way; the peer retransmits */
    return 0;
}

static void note_established(slot *s);

/* One application record: one row. */
static void on_record(void *ctx, const uint8_t *buf, size_t len)
{
    slot *s = ctx;
    collector *c = s->c;
    char at[32];

    note_established(s);
    utc_now(at);
    sqlite3_bind_text(c->ins_reading, 1, s->node, -1, SQLITE_STATIC);
    sqlite3_bind_text(c->ins_reading, 2, at, -1, SQLITE_STATIC);
    /* a zero-length blob must still be a blob (NULL would break NOT NULL) */
    sqlite3_bind_blob(c->ins_reading, 3, len ? (const void *)buf : "", (int)len, SQLITE_STATIC);
    sqlite3_bind_text(c->ins_reading, 4, s->peer, -1, SQLITE_STATIC);
    sqlite3_bind_text(c->ins_reading, 5, s->key_hex, -1, SQLITE_STATIC);
    if (db_step(c, c->ins_reading) == 0) {
        s->records++;
        c->n.records_stored++;
    }
}

/* The handshake just completed: take the node's identity and say so. */
static void note_established(slot *s)
{
    uint8_t pub[65], digest[32];
    char detail[160];

    if (s->established)
        return;
    s->established = 1;
    s->c->n.connections++;
    s->key_hex[0] = '\0';
    if (se_tls_peer_key(&s->tls, pub)) {
        se_sha256(pub, sizeof pub, digest);
        for (size_t i = 0; i < sizeof digest; i++)
            snprintf(s->key_hex + 2 * i, 3, "%02x", digest[i]);
    }
    if (se_tls_peer_name(&s->tls, s->node, sizeof s->node) == 0) /* no CN: the key names it */
        snprintf(s->node, sizeof s->node, "key:%.16s", s->key_hex);
    clean_name(s->node);
    snprintf(detail, sizeof detail, "%s %s", s->node, se_tls_suite_name(se_tls_suite(&s->tls)));
    fprintf(stderr, "collector: %s %s connected (%s)\n", s->node, s->peer,
            se_tls_suite_name(se_tls_suite(&s->tls)));
    db_event(s->c, s->peer, "connected", detail);
}

/* Frees a slot: its counters join the totals, its keys are wiped. */
static void slot_free(slot *s)
{
    collector *c = s->c;
    const se_tls_stats *st = se_tls_get_stats(&s->tls);
    c->gone.dropped_bad_mac += st->dropped_bad_mac;
    c->gone.dropped_replay += st->dropped_replay;
    c->gone.dropped_malformed += st->dropped_malformed;
    c->gone.retransmits += st->retransmits;
    se_ct_wipe(&s->tls, sizeof s->tls);
    s->used = 0;
    s->established = 0;
}

/* A connection that failed: why, counted as a handshake or a connection failure. */
static void slot_failed(slot *s, se_status st)
{
    collector *c = s->c;
    char detail[160];
    int sent = se_tls_sent_alert(&s->tls), got = se_tls_peer_alert(&s->tls);

    if (got >= 0)
        snprintf(detail, sizeof detail, "%s (peer alert %s)", se_status_name(st),
                 se_tls_alert_name(got));
    else if (sent >= 0)
        snprintf(detail, sizeof detail, "%s (sent alert %s)", se_status_name(st),
                 se_tls_alert_name(sent));
    else
        snprintf(detail, sizeof detail, "%s", se_status_name(st));
    if (s->established) {
        c->n.connection_failed++;
        fprintf(stderr, "collector: %s %s failed: %s, %lu records\n", s->node, s->peer, detail,
                s->records);
        db_event(c, s->peer, "connection_failed", detail);
    } else {
        c->n.handshake_failed++;
        fprintf(stderr, "collector: %s dropped: handshake failed: %s\n", s->peer, detail);
        db_event(c, s->peer, "handshake_failed", detail);
    }
    slot_free(s);
}

/* After a call into the connection: note what changed, free the slot if it ended. */
static void slot_check(slot *s, se_status st)
{
    se_tls_state state = se_tls_get_state(&s->tls);
    char detail[32];

    if (state == SE_TLS_ESTABLISHED || (state == SE_TLS_CLOSED && se_tls_suite(&s->tls) != 0))
        note_established(s);
    if (state == SE_TLS_FAILED) {
        slot_failed(s, se_tls_error(&s->tls) != SE_OK ? se_tls_error(&s->tls) : st);
    } else if (state == SE_TLS_CLOSED) {
        s->c->n.closed++;
        fprintf(stderr, "collector: %s %s closed, %lu records\n", s->node, s->peer, s->records);
        snprintf(detail, sizeof detail, "%lu records", s->records);
        db_event(s->c, s->peer, "closed", detail);
        slot_free(s);
    }
}

/* Mixes fresh OS entropy into the DRBG (it also keeps the reseed counter far from its limit). */
static void reseed(collector *c)
{
    uint8_t e[32];
    if (cli_os_random(e, sizeof e) == SE_OK)
        se_hmac_drbg_reseed(&c->rng, e, sizeof e, NULL, 0);
    se_ct_wipe(e, sizeof e);
}

/* What shows a peer moving on, and so resets its idle timer: a new handshake message while it
 * handshakes (a repeated ClientHello is not one), an authenticated record once established. A
 * peer that only repeats itself cannot keep its slot past --idle-timeout. */
static uint32_t progress(const slot *s)
{
    const se_tls_stats *st = se_tls_get_stats(&s->tls);
    return st->hs_messages_in + (s->established ? st->records_in : 0);
}

/* A new connection in slot s for the peer at addr, fed its first (cookie-checked) ClientHello. */
static void slot_start(collector *c, slot *s, const struct sockaddr_storage *addr,
                       socklen_t addr_len, const char *peer, const uint8_t *dgram, size_t len)
{
    memset(s, 0, offsetof(slot, tls));
    s->c = c;
    s->used = 1;
    s->addr = *addr;
    s->addr_len = addr_len;
    snprintf(s->peer, sizeof s->peer, "%s", peer);
    snprintf(s->node, sizeof s->node, "?");
    if (len >= HELLO_RANDOM_AT + 32)
        memcpy(s->hello_random, dgram + HELLO_RANDOM_AT, 32);
    s->last_ms = tls_host_now_ms(NULL);
    s->io = (se_tls_io){.send = send_dgram, .now_ms = tls_host_now_ms, .on_data = on_record, .ctx = s};
    c->cfg.now = tls_host_unix_time(); /* certificates are checked against today's clock */
    reseed(c);                         /* fresh OS entropy for each handshake's keys */
    se_status st = se_tls_init(&s->tls, &c->cfg, &s->io);
    if (st != SE_OK) {
        fprintf(stderr, "collector: cannot start a connection: %s\n", se_status_name(st));
        s->used = 0;
        return;
    }
    slot_check(s, se_tls_input(&s->tls, dgram, len));
}

/* ---- datagrams -------------------------------------------------------------------------- */

/* Is this datagram (DTLS) a ClientHello's first record, epoch 0? */
static int is_client_hello(const uint8_t *d, size_t len)
{
    return len >= 13 + 12 && d[0] == 22 && d[1] == 0xfe && d[3] == 0 && d[4] == 0 && d[13] == 1;
}

/* Does it look like a DTLS record at all (content type 20..23, version 0xFE..)? */
static int is_dtls_record(const uint8_t *d, size_t len)
{
    return len >= 13 && d[0] >= 20 && d[0] <= 23 && d[1] == 0xfe;
}

/* The cookie length a ClientHello (first fragment) carries, -1 when it cannot be read:
 * record header 13, handshake header 12, client_version 2, random 32, session_id, cookie. */
static int hello_cookie_len(const uint8_t *d, size_t len)
{
    size_t at = HELLO_RANDOM_AT + 32;
    if (len <= at || d[19] || d[20] || d[21]) /* fragment_offset must be 0 */
        return -1;
    at += 1 + (size_t)d[at];
    return at < len ? d[at] : -1;
}

/* A datagram from an address with no connection: only a ClientHello can start one. */
static void from_new_peer(collector *c, const struct sockaddr_storage *addr, socklen_t addr_len,
                          const char *peer, const uint8_t *d, size_t len, slot *reuse)
{
    uint8_t key[19], hvr[256];
    size_t key_len = addr_key(addr, key), hvr_len = 0;
    se_status st = se_dtls_cookie_check(cli_be->ops, c->cookie_key, key, key_len, d, len, hvr,
                                        sizeof hvr, &hvr_len);

    if (st == SE_ERR_TLS_UNEXPECTED && hvr_len > 0) { /* no valid cookie yet: send one */
        if (hello_cookie_len(d, len) > 0)
            dropped(c, &c->n.dropped_bad_cookie, peer, "bad cookie");
        c->n.hello_verify_sent++;
        if (sendto(c->sock, hvr, hvr_len, 0, (const struct sockaddr *)addr, addr_len) < 0)
            c->n.send_errors++;
        return;
    }
    if (st != SE_OK) {
        if (is_dtls_record(d, len) && !is_client_hello(d, len))
            dropped(c, &c->n.dropped_unknown_peer, peer, "record for an unknown peer");
        else
            dropped(c, &c->n.dropped_malformed, peer, se_status_name(st));
        return;
    }
    if (reuse != NULL) { /* the same address starts over: the old connection gives way */
        c->n.replaced++;
        fprintf(stderr, "collector: %s %s replaced by a new handshake, %lu records\n", reuse->node,
                reuse->peer, reuse->records);
        db_event(c, reuse->peer, "replaced", reuse->node);
        slot_free(reuse);
    }
    for (size_t i = 0; i < c->n_slots; i++)
        if (!c->slots[i].used) {
            slot_start(c, &c->slots[i], addr, addr_len, peer, d, len);
            return;
        }
    dropped(c, &c->n.peers_full, peer, "no free slot (peers_full)");
}

static void on_datagram(collector *c, const struct sockaddr_storage *addr, socklen_t addr_len,
                        const uint8_t *d, size_t len)
{
    char peer[64];
    slot *s = NULL;

    c->n.datagrams_in++;
    tls_host_addr_str(addr, addr_len, peer, sizeof peer);
    if (len > MAX_DGRAM) {
        dropped(c, &c->n.dropped_oversized, peer, "oversized datagram");
        return;
    }
    for (size_t i = 0; i < c->n_slots && s == NULL; i++)
        if (c->slots[i].used && same_addr(&c->slots[i].addr, addr))
            s = &c->slots[i];
    if (s == NULL) {
        from_new_peer(c, addr, addr_len, peer, d, len, NULL);
        return;
    }
    /* A fresh ClientHello (not a late copy of the one that started this connection) on an
     * established connection: the node restarted on the same port (RFC 6347 4.2.8). It
     * replaces the old connection once it proves its address with a valid cookie. */
    if (s->established && is_client_hello(d, len) && len >= HELLO_RANDOM_AT + 32 &&
        memcmp(d + HELLO_RANDOM_AT, s->hello_random, 32) != 0) {
        from_new_peer(c, addr, addr_len, peer, d, len, s);
        return;
    }
    uint32_t before = progress(s);
    slot_check(s, se_tls_input(&s->tls, d, len));
    if (s->used && progress(s) != before)
        s->last_ms = tls_host_now_ms(NULL);
}

/* Runs due retransmission timers and idle timeouts; returns the ms until the next one. */
static int run_timers(collector *c)
{
    uint32_t now = tls_host_now_ms(NULL), next = 60000;

    for (size_t i = 0; i < c->n_slots; i++) {
        slot *s = &c->slots[i];
        if (!s->used)
            continue;
        uint32_t idle = now - s->last_ms;
        if (idle >= c->idle_ms) {
            c->n.idle_timeouts++;
            fprintf(stderr, "collector: %s %s idle timeout, %lu records\n", s->node, s->peer,
                    s->records);
            db_event(c, s->peer, "idle_timeout", s->established ? s->node : "handshake");
            slot_free(s);
            continue;
        }
        if (c->idle_ms - idle < next)
            next = c->idle_ms - idle;
        if (se_tls_timeout_ms(&s->tls) == 0) {
            slot_check(s, se_tls_timer(&s->tls));
            if (!s->used)
                continue;
        }
        uint32_t t = se_tls_timeout_ms(&s->tls);
        if (t < next)
            next = t;
    }
    return (int)next;
}

/* ---- the summary ------------------------------------------------------------------------ */

/* The counters with the se_tls_stats of live and freed connections added in. */
static counters totals(const collector *c)
{
    counters n = c->n;
    se_tls_stats sum = c->gone;
    for (size_t i = 0; i < c->n_slots; i++)
        if (c->slots[i].used) {
            const se_tls_stats *st = se_tls_get_stats(&c->slots[i].tls);
            sum.dropped_bad_mac += st->dropped_bad_mac;
            sum.dropped_replay += st->dropped_replay;
            sum.dropped_malformed += st->dropped_malformed;
            sum.retransmits += st->retransmits;
        }
    n.dropped_bad_mac = sum.dropped_bad_mac;
    n.dropped_replay = sum.dropped_replay;
    n.dropped_bad_record = sum.dropped_malformed;
    n.retransmits = sum.retransmits;
    return n;
}

static int write_summary(const collector *c, const char *stats_path)
{
    counters n = totals(c);
    json_t *obj = json_object();
    size_t live = 0;

    for (size_t i = 0; i < c->n_slots; i++)
        live += c->slots[i].used != 0;
#define X(name)                                                       \
    printf("%s: %lu\n", #name, n.name);                               \
    json_object_set_new(obj, #name, json_integer((json_int_t)n.name));
    COUNTERS(X)
#undef X
    printf("live_peers: %zu\n", live);
    json_object_set_new(obj, "live_peers", json_integer((json_int_t)live));
    fflush(stdout);
    int rc = 0;
    if (stats_path != NULL && json_dump_file(obj, stats_path, JSON_INDENT(2) | JSON_SORT_KEYS)) {
        fprintf(stderr, "collector: cannot write %s\n", stats_path);
        rc = -1;
    }
    json_decref(obj);
    return rc;
}

/* ---- main ------------------------------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr,
            "usage: se collector --listen [HOST:]PORT --db FILE --cert server.pem --key server.key\n"
            "         --ca ca.pem [--max-peers N] [--idle-timeout SEC] [--exit-after-records N]\n"
            "         [--stats FILE] [common options]\n"
            "  --max-peers N           connection slots (default 16)\n"
            "  --idle-timeout SEC      free a handshake or connection without progress that long (default 300)\n"
            "  --exit-after-records N  stop after storing N readings\n"
            "  --stats FILE            write the counters there as JSON on exit\n"
            "common options (DTLS only: --tls and --timeout do not apply):\n%s",
            tls_host_opts_help);
}

/* A decimal number in [lo, hi], or -1 after saying what is wrong. */
static long number(const char *flag, const char *v, long lo, long hi)
{
    char *end;
    errno = 0;
    long x = v ? strtol(v, &end, 10) : 0;
    if (v == NULL || errno || *v == '\0' || *end != '\0' || x < lo || x > hi) {
        fprintf(stderr, "se collector: %s wants a number in %ld..%ld\n", flag, lo, hi);
        return -1;
    }
    return x;
}

int cli_collector_main(int argc, char **argv)
{
    static collector c; /* zeroed; lives as long as the program */
    const char *listen = NULL, *db = NULL, *stats = NULL;
    long max_peers = 16, idle = 300, exit_after = 0;
    tls_host_opts o;
    char bound[80] = "?";
    int rc = 1;

    tls_host_opts_init(&o);
    for (int i = 1; i < argc;) {
        const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long *num = NULL, lo = 1, hi = 0;
        int common = tls_host_opt(&o, argc, argv, &i);
        if (common < 0)
            return 2;
        if (common > 0)
            continue;
        if (strcmp(f, "--help") == 0 || strcmp(f, "-h") == 0) {
            usage();
            return 0;
        }
        if (strcmp(f, "--listen") == 0 || strcmp(f, "--db") == 0 || strcmp(f, "--stats") == 0) {
            if (v == NULL) {
                fprintf(stderr, "se collector: %s needs a value\n", f);
                return 2;
            }
            *(f[2] == 'l' ? &listen : f[2] == 'd' ? &db : &stats) = v;
            i += 2;
            continue;
        }
        if (strcmp(f, "--max-peers") == 0) num = &max_peers, hi = 4096;
        else if (strcmp(f, "--idle-timeout") == 0) num = &idle, hi = 86400;
        else if (strcmp(f, "--exit-after-records") == 0) num = &exit_after, hi = 1L << 30;
        else {
            fprintf(stderr, "se collector: unknown option '%s'\n", f);
            usage();
            return 2;
        }
        if ((*num = number(f, v, lo, hi)) < 0)
            return 2;
        i += 2;
    }
    if (!listen || !db || !o.cert || !o.key || !o.ca || o.tls) {
        fprintf(stderr, "se collector: --listen, --db, --cert, --key and --ca are required "
                        "(and it speaks DTLS only)\n");
        usage();
        return 2;
    }

    /* The server's identity, trust anchors for the nodes, P-256 on the chosen backend, the DRBG
     * and the cookie secret. */
    if (tls_host_identity_load(&c.id, o.cert, o.key, o.ca) != 0 || c.id.n_anchors == 0)
        return 1;
    if (tls_host_curve(&c.p256) != SE_OK || tls_host_rng(&c.rng) != SE_OK ||
        se_hmac_drbg_generate(&c.rng, c.cookie_key, sizeof c.cookie_key, NULL, 0) != SE_OK) {
        fprintf(stderr, "se collector: cannot set up the curve or the DRBG\n");
        return 1;
    }
    tls_host_config(&c.cfg, &o, &c.id, SE_TLS_SERVER, &c.p256, &c.rng);
    c.cfg.client_auth = SE_TLS_CLIENT_CERT_REQUIRED;

    c.slots = calloc((size_t)max_peers, sizeof *c.slots); /* every slot, once */
    if (c.slots == NULL) {
        fprintf(stderr, "se collector: out of memory for %ld peers\n", max_peers);
        return 1;
    }
    c.n_slots = (size_t)max_peers;
    c.idle_ms = (uint32_t)idle * 1000u;
    c.exit_after = (unsigned long)exit_after;
    c.sock = -1;
    if (db_open(&c, db) != 0 || (c.sock = tls_host_udp_bind(listen)) < 0)
        goto out;
    struct sockaddr_storage me;
    socklen_t me_len = sizeof me;
    if (getsockname(c.sock, (struct sockaddr *)&me, &me_len) == 0)
        tls_host_addr_str(&me, me_len, bound, sizeof bound);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: poll() returns EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    fprintf(stderr, "collector: listening on %s (max %zu peers)\n", bound, c.n_slots);
    db_event(&c, bound, "start", NULL);

    static uint8_t buf[MAX_DGRAM + 1];
    while (!stop_requested && (c.exit_after == 0 || c.n.records_stored < c.exit_after)) {
        struct pollfd p = {.fd = c.sock, .events = POLLIN};
        int wait = run_timers(&c);
        if (poll(&p, 1, wait) < 0 && errno != EINTR) {
            perror("se collector: poll");
            break;
        }
        /* Drain what is queued (bounded, so timers still run under a flood). */
        for (int k = 0; k < 256 && (p.revents & POLLIN); k++) {
            struct sockaddr_storage from;
            socklen_t from_len = sizeof from;
            ssize_t n = recvfrom(c.sock, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC,
                                 (struct sockaddr *)&from, &from_len);
            if (n < 0)
                break;
            on_datagram(&c, &from, from_len, buf, (size_t)n);
            if (c.exit_after && c.n.records_stored >= c.exit_after)
                break;
        }
    }
    /* Shutting down: live nodes hear close_notify. */
    for (size_t i = 0; i < c.n_slots; i++)
        if (c.slots[i].used && se_tls_get_state(&c.slots[i].tls) == SE_TLS_ESTABLISHED)
            se_tls_close(&c.slots[i].tls);
    fprintf(stderr, "collector: stopping (%s)\n", stop_requested ? "signal" : "record limit");
    db_event(&c, bound, "stop", NULL);
    rc = write_summary(&c, stats) == 0 ? 0 : 1;
out:
    if (c.sock >= 0)
        close(c.sock);
    if (c.db != NULL)
        db_close(&c);
    for (size_t i = 0; i < c.n_slots; i++)
        se_ct_wipe(&c.slots[i].tls, sizeof c.slots[i].tls);
    free(c.slots);
    se_ct_wipe(c.cookie_key, sizeof c.cookie_key);
    se_ct_wipe(c.id.key, sizeof c.id.key);
    se_hmac_drbg_uninstantiate(&c.rng);
    return rc;
}
