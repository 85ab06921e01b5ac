/* se collector: a DTLS 1.2 server that takes readings from many nodes at once and stores each
 * application record in SQLite (docs/collector.md).
 *
 * One UDP socket and one poll() loop in front of se_dtls_server (se/dtls_server.h: the stateless
 * cookie exchange, --max-peers connection slots allocated once at start-up, freed when a
 * connection closes, fails, or makes no progress for --idle-timeout seconds, and the counters of
 * all that); this file keeps the options, the loop, SQLite and the log. Nodes must authenticate
 * with a client certificate chaining to --ca; a node's identity is its certificate's subject
 * commonName. Every application record is one row of `readings`; the rows of the datagrams one
 * wake-up drains from the socket are committed together (group commit), and a reading counts as
 * stored once its commit returns; connection events go to `events`. Hostile or broken datagrams are dropped and counted by kind;
 * the counters are printed on exit (SIGINT, SIGTERM, --exit-after-records) and written as JSON to
 * --stats. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "se/ct.h"
#include "se/dtls_server.h"
#include "se/sha256.h"
#include "store.h"
#include "tls_host.h"

/* Drop lines on stderr per second at most (a flood is counted, not printed). */
#define DROP_LINES_PER_SEC 10
/* The socket's receive queue. */
#define RCVBUF_BYTES (8 << 20)
#define MAX_WORKERS 64

/* ---- counters: one list, printed on exit and written to --stats ---------------------------
 * S: se_dtls_server's (se/dtls_server.h says what each counts), C: the collector's own. */
#define COUNTERS(X)              \
    X(S, datagrams_in)           \
    X(S, hello_verify_sent)      \
    X(S, connections)            \
    X(C, records_stored)         /* application records stored as readings */ \
    X(S, closed)                 \
    X(S, handshake_failed)       \
    X(S, connection_failed)      \
    X(S, idle_timeouts)          \
    X(S, replaced)               \
    X(S, moved)                  \
    X(S, peers_full)             \
    X(S, dropped_malformed)      \
    X(S, dropped_unknown_peer)   \
    X(S, dropped_bad_cookie)     \
    X(S, dropped_oversized)      \
    X(S, dropped_bad_mac)        \
    X(S, dropped_replay)         \
    X(S, dropped_bad_record)     \
    X(S, retransmits)            \
    X(C, db_errors)              /* readings or events SQLite refused */ \
    X(S, send_errors)

/* ---- what the collector keeps per slot (beside se_dtls_server's, same index) --------------- */
typedef struct {
    char peer[64];                /* the address as text, "127.0.0.1:5000" */
    char node[65];                /* the client certificate's subject CN */
    char key_hex[65];             /* hex SHA-256 of the node's public key (04||x||y) */
    char session[17];             /* the connection's random name (hex), part of each reading's key */
    unsigned long records;        /* rows inserted (the log's count) */
} slot;

typedef struct {
    int sock;
    store *db;
    se_tls_config cfg;
    tls_host_identity id;         /* server chain, key, trust anchors for the nodes */
    se_ec_curve p256;
    se_hmac_drbg_ctx rng;
    se_dtls_server srv;
    se_dtls_peer *peers;          /* se_dtls_server's slots */
    slot *slots;                  /* ours, slots[i] beside peers[i] */
    size_t n_slots;
    unsigned long exit_after;     /* 0: run until a signal */
    unsigned long records_stored, db_errors;
    unsigned long pending;        /* readings received in this batch (not yet counted as stored) */
    int in_batch;                 /* rows go to the batch (between batch_begin and batch_commit) */
    store_row *rows;              /* the batch's rows */
    size_t n_rows, cap_rows;
    uint32_t drop_sec, drop_lines;
} collector;

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

/* Makes a certificate name safe to print and store: printable ASCII only, in place. */
static void clean_name(char *s)
{
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7e)
            *s = '?';
}

/* ---- the database (store.h: SQLite or PostgreSQL) ----------------------------------------- */

static int db_open(collector *c, const char *where)
{
    c->db = store_open(where);
    return c->db != NULL ? 0 : -1;
}

static void db_close(collector *c)
{
    store_close(c->db);
    c->db = NULL;
}

/* Group commit: the rows of one drained batch of datagrams are kept in memory and written at
 * its end in one short transaction (so several workers on one database hold its write lock only
 * that long). A reading counts as stored (records_stored, --exit-after-records) only once that
 * COMMIT has returned, so a counted reading survives a crash. When the COMMIT fails, the batch's
 * rows are lost and its readings counted as db_errors. Outside a batch (timers, start, stop) an
 * event is written at once. */

/* A new row of the batch (outside one: of a batch of its own, written by row_done). */
static store_row *row_new(collector *c)
{
    if (c->n_rows == c->cap_rows) {
        size_t cap = c->cap_rows ? 2 * c->cap_rows : 256;
        store_row *r = realloc(c->rows, cap * sizeof *r);
        if (r == NULL)
            return NULL;
        c->rows = r;
        c->cap_rows = cap;
    }
    store_row *r = &c->rows[c->n_rows++];
    memset(r, 0, sizeof *r);
    return r;
}

static void batch_commit(collector *c);

/* A row written: outside a batch (an event of a timer, the start, the stop) at once. */
static void row_done(collector *c)
{
    if (!c->in_batch)
        batch_commit(c);
}

static void batch_begin(collector *c)
{
    c->in_batch = 1;
}

static void batch_commit(collector *c)
{
    unsigned long readings = 0;
    int ok = 1;
    c->in_batch = 0;
    if (c->n_rows == 0)
        return;
    for (size_t i = 0; i < c->n_rows; i++)
        readings += !c->rows[i].event;
    ok = store_write(c->db, c->rows, c->n_rows) == 0;
    if (!ok)
        c->db_errors += readings ? readings : 1;
    else
        c->records_stored += readings;
    c->pending = 0;
    for (size_t i = 0; i < c->n_rows; i++)
        free(c->rows[i].payload);
    c->n_rows = 0;
}

static void db_event(collector *c, const char *peer, const char *kind, const char *detail)
{
    store_row *r = row_new(c);
    if (r == NULL) {
        c->db_errors++;
        return;
    }
    r->event = 1;
    utc_now(r->at);
    snprintf(r->peer, sizeof r->peer, "%s", peer ? peer : "");
    snprintf(r->kind, sizeof r->kind, "%s", kind);
    snprintf(r->detail, sizeof r->detail, "%s", detail ? detail : "");
    row_done(c);
}

/* ---- logging ---------------------------------------------------------------------------- */

/* A dropped datagram (se_dtls_server counted it): printed at most DROP_LINES_PER_SEC times a
 * second. */
static void dropped(collector *c, const uint8_t *peer, size_t peer_len, const char *why)
{
    uint32_t sec = (uint32_t)time(NULL);
    char text[64];

    if (sec != c->drop_sec) {
        c->drop_sec = sec;
        c->drop_lines = 0;
    }
    if (c->drop_lines++ < DROP_LINES_PER_SEC)
        fprintf(stderr, "collector: %s dropped: %s\n",
                tls_host_peer_str(peer, peer_len, text, sizeof text), why);
}

/* ---- se_dtls_server's callbacks --------------------------------------------------------- */

static int send_dgram(void *ctx, const uint8_t *peer, size_t peer_len, const uint8_t *buf, size_t len)
{
    return tls_host_sendto(((collector *)ctx)->sock, peer, peer_len, buf, len);
}

/* One application record: one row of the batch. */
static void on_record(void *ctx, se_dtls_peer *p, const uint8_t *buf, size_t len)
{
    collector *c = ctx;
    slot *s = &c->slots[se_dtls_peer_index(p)];
    store_row *r = row_new(c);
    if (r == NULL || (len > 0 && (r->payload = malloc(len)) == NULL)) {
        if (r != NULL)
            c->n_rows--;
        c->db_errors++;
        return;
    }
    uint64_t number = se_tls_record_number(se_dtls_peer_tls(p));
    utc_now(r->at);
    snprintf(r->node, sizeof r->node, "%s", s->node);
    snprintf(r->peer, sizeof r->peer, "%s", s->peer);
    snprintf(r->key_hex, sizeof r->key_hex, "%s", s->key_hex);
    snprintf(r->session, sizeof r->session, "%s", s->session);
    r->epoch = (uint16_t)(number >> 48);
    r->seq = number & 0xFFFFFFFFFFFFull;
    if (len > 0)
        memcpy(r->payload, buf, len);
    r->len = len;
    s->records++;
    c->pending++;
    row_done(c);
}

/* The handshake just completed: take the node's identity and say so. */
static void note_established(collector *c, slot *s, const se_tls *t)
{
    uint8_t pub[65], digest[32];
    char detail[160];

    s->key_hex[0] = '\0';
    if (se_tls_peer_key(t, pub)) {
        se_sha256(pub, sizeof pub, digest);
        cli_to_hex(s->key_hex, digest, sizeof digest);
    }
    if (se_tls_peer_name(t, s->node, sizeof s->node) == 0) /* no CN: the key names it */
        snprintf(s->node, sizeof s->node, "key:%.16s", s->key_hex);
    clean_name(s->node);
    snprintf(detail, sizeof detail, "%s %s", s->node, se_tls_suite_name(se_tls_suite(t)));
    fprintf(stderr, "collector: %s %s connected (%s)\n", s->node, s->peer,
            se_tls_suite_name(se_tls_suite(t)));
    db_event(c, s->peer, "connected", detail);
}

/* A connection that failed: why, as a handshake or a connection failure. */
static void note_failed(collector *c, slot *s, const se_tls *t, int established)
{
    char detail[160];
    se_status st = se_tls_error(t);
    int sent = se_tls_sent_alert(t), got = se_tls_peer_alert(t);

    if (got >= 0)
        snprintf(detail, sizeof detail, "%s (peer alert %s)", se_status_name(st),
                 se_tls_alert_name(got));
    else if (sent >= 0)
        snprintf(detail, sizeof detail, "%s (sent alert %s)", se_status_name(st),
                 se_tls_alert_name(sent));
    else
        snprintf(detail, sizeof detail, "%s", se_status_name(st));
    if (established) {
        fprintf(stderr, "collector: %s %s failed: %s, %lu records\n", s->node, s->peer, detail,
                s->records);
        db_event(c, s->peer, "connection_failed", detail);
    } else {
        fprintf(stderr, "collector: %s dropped: handshake failed: %s\n", s->peer, detail);
        db_event(c, s->peer, "handshake_failed", detail);
    }
}

static void on_event(void *ctx, se_dtls_peer *p, se_dtls_event ev)
{
    collector *c = ctx;
    slot *s = &c->slots[se_dtls_peer_index(p)];
    const se_tls *t = se_dtls_peer_tls(p);
    const uint8_t *addr;
    size_t addr_len;
    char detail[32];

    switch (ev) {
    case SE_DTLS_OPEN: /* a new connection for a cookie-checked ClientHello */
        memset(s, 0, sizeof *s);
        addr = se_dtls_peer_addr(p, &addr_len);
        tls_host_peer_str(addr, addr_len, s->peer, sizeof s->peer);
        snprintf(s->node, sizeof s->node, "?");
        uint8_t name[8];
        if (se_hmac_drbg_generate(&c->rng, name, sizeof name, NULL, 0) == SE_OK)
            cli_to_hex(s->session, name, sizeof name);
        c->cfg.now = tls_host_unix_time(); /* certificates are checked against today's clock */
        (void)tls_host_reseed(&c->rng);    /* fresh OS entropy for each handshake's keys */
        break;
    case SE_DTLS_CONNECTED:
        note_established(c, s, t);
        break;
    case SE_DTLS_FAILED:
        note_failed(c, s, t, se_dtls_peer_established(p));
        break;
    case SE_DTLS_CLOSED:
        fprintf(stderr, "collector: %s %s closed, %lu records\n", s->node, s->peer, s->records);
        snprintf(detail, sizeof detail, "%lu records", s->records);
        db_event(c, s->peer, "closed", detail);
        break;
    case SE_DTLS_IDLE:
        fprintf(stderr, "collector: %s %s idle timeout, %lu records\n", s->node, s->peer,
                s->records);
        db_event(c, s->peer, "idle_timeout", se_dtls_peer_established(p) ? s->node : "handshake");
        break;
    case SE_DTLS_MOVED: { /* the node's connection ID found it at a new address (NAT rebinding) */
        char was[sizeof s->peer];
        memcpy(was, s->peer, sizeof was);
        addr = se_dtls_peer_addr(p, &addr_len);
        tls_host_peer_str(addr, addr_len, s->peer, sizeof s->peer);
        fprintf(stderr, "collector: %s %s moved to %s\n", s->node, was, s->peer);
        snprintf(detail, sizeof detail, "from %.26s", was);
        db_event(c, s->peer, "moved", detail);
        break;
    }
    case SE_DTLS_REPLACED: /* the same address starts over: the old connection gives way */
        fprintf(stderr, "collector: %s %s replaced by a new handshake, %lu records\n", s->node,
                s->peer, s->records);
        db_event(c, s->peer, "replaced", s->node);
        break;
    }
}

/* ---- datagrams -------------------------------------------------------------------------- */

static void on_datagram(collector *c, struct sockaddr_storage *addr, socklen_t addr_len,
                        const uint8_t *d, size_t len)
{
    /* What the log says of a datagram dropped (or, for a bad cookie, answered with a fresh
     * HelloVerifyRequest all the same); a malformed one: the cookie check's verdict. */
    static const char *const drop_line[] = {
        [SE_DTLS_BAD_COOKIE] = "bad cookie",
        [SE_DTLS_PEERS_FULL] = "no free slot (peers_full)",
        [SE_DTLS_UNKNOWN_PEER] = "record for an unknown peer",
        [SE_DTLS_OVERSIZED] = "oversized datagram",
    };
    const uint8_t *peer = (const uint8_t *)addr;
    size_t peer_len = tls_host_peer(addr, addr_len);
    se_status why;
    se_dtls_kind k = se_dtls_server_input(&c->srv, peer, peer_len, d, len, &why);

    if (k == SE_DTLS_MALFORMED)
        dropped(c, peer, peer_len, se_status_name(why));
    else if (k == SE_DTLS_START_FAILED)
        fprintf(stderr, "collector: cannot start a connection: %s\n", se_status_name(why));
    else if ((size_t)k < sizeof drop_line / sizeof drop_line[0] && drop_line[k] != NULL)
        dropped(c, peer, peer_len, drop_line[k]);
}

/* ---- the summary ------------------------------------------------------------------------ */

/* The counters as a JSON object, in COUNTERS order. */
static json_t *counters(const collector *c)
{
    se_dtls_server_stats n;
    json_t *obj = json_object();

    se_dtls_server_get_stats(&c->srv, &n);
#define S(name) (unsigned long)n.name
#define C(name) c->name
#define X(src, name) json_object_set_new(obj, #name, json_integer((json_int_t)src(name)));
    COUNTERS(X)
#undef X
#undef C
#undef S
    json_object_set_new(obj, "live_peers", json_integer((json_int_t)se_dtls_server_live(&c->srv)));
    return obj;
}

/* Prints the counters ("name: value", one per line) and writes them to stats_path as JSON. */
static int write_summary(json_t *obj, const char *stats_path)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
        printf("%s: %lld\n", key, (long long)json_integer_value(v));
    fflush(stdout);
    if (stats_path != NULL && json_dump_file(obj, stats_path, JSON_INDENT(2) | JSON_SORT_KEYS)) {
        fprintf(stderr, "collector: cannot write %s\n", stats_path);
        return -1;
    }
    return 0;
}

/* ---- serving: one process, or --workers processes on one port ------------------------------ */

/* A large receive queue rides out bursts (a batch's commit, a flood of handshakes): as root past
 * the system's rmem_max (SO_RCVBUFFORCE), else up to it. */
static void big_queue(int sock)
{
    int rcvbuf = RCVBUF_BYTES;
    if (setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf) != 0)
        (void)setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
}

/* The loop on c->sock, until a signal or --exit-after-records; then close_notify to every live
 * node. Returns the counters. */
static json_t *serve(collector *c, const char *bound)
{
    static uint8_t buf[SE_DTLS_MAX_DATAGRAM + 1];
    db_event(c, bound, "start", NULL);
    while (!stop_requested && (c->exit_after == 0 || c->records_stored < c->exit_after)) {
        struct pollfd p = {.fd = c->sock, .events = POLLIN};
        uint32_t next = se_dtls_server_timer(&c->srv); /* due timers run first */
        if (poll(&p, 1, next < 60000 ? (int)next : 60000) < 0 && errno != EINTR) {
            perror("se collector: poll");
            break;
        }
        /* Drain what is queued (bounded, so timers still run under a flood): one batch, one commit. */
        if (!(p.revents & POLLIN))
            continue;
        batch_begin(c);
        for (int k = 0; k < 256; k++) {
            struct sockaddr_storage from;
            socklen_t from_len = sizeof from;
            ssize_t n = recvfrom(c->sock, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC,
                                 (struct sockaddr *)&from, &from_len);
            if (n < 0)
                break;
            on_datagram(c, &from, from_len, buf, (size_t)n);
            if (c->exit_after && c->records_stored + c->pending >= c->exit_after)
                break;
        }
        batch_commit(c);
    }
    se_dtls_server_shutdown(&c->srv); /* live nodes hear close_notify */
    fprintf(stderr, "collector: stopping (%s)\n", stop_requested ? "signal" : "record limit");
    db_event(c, bound, "stop", NULL);
    return counters(c);
}

/* Everything secret wiped, everything open closed. */
static void cleanup(collector *c)
{
    if (c->sock >= 0)
        close(c->sock);
    c->sock = -1;
    db_close(c);
    se_dtls_server_wipe(&c->srv); /* every connection's keys, the cookie secret */
    free(c->peers);
    free(c->slots);
    free(c->rows);
    c->peers = NULL, c->slots = NULL, c->rows = NULL;
    se_ct_wipe(c->id.key, sizeof c->id.key);
    se_hmac_drbg_uninstantiate(&c->rng);
}

/* Writes all of text to fd. */
static int write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        text += n;
        len -= (size_t)n;
    }
    return 0;
}

/* One worker, in the child: its own socket in the port's group (worker 0 keeps the first one),
 * its own database connection and a DRBG reseeded from the OS (a forked DRBG would otherwise
 * repeat its parent's and its siblings' output). Says "ready" on out, serves, then writes its
 * counters there as JSON. Never returns. */
static _Noreturn void worker(collector *c, int w, int first_sock, const char *db, const char *bound, int out)
{
    int rc = 1;
    if (w > 0) {
        close(first_sock);
        c->sock = tls_host_udp_bind_shared(bound);
        if (c->sock >= 0)
            big_queue(c->sock);
    }
    if (c->sock >= 0 && tls_host_reseed(&c->rng) == SE_OK && db_open(c, db) == 0 && write_all(out, "ready\n", 6) == 0) {
        json_t *obj = serve(c, bound);
        char *text = json_dumps(obj, 0);
        rc = text != NULL && write_all(out, text, strlen(text)) == 0 ? 0 : 1;
        free(text);
        json_decref(obj);
    }
    close(out);
    cleanup(c);
    _exit(rc);
}

/* --workers N: N processes share the UDP port through SO_REUSEPORT. The kernel picks a socket by
 * a hash of the datagram's source and destination addresses and ports, so while the set of
 * workers stays the same, a node's datagrams always reach the same worker, the one holding its
 * connection. The workers share the cookie secret (made before the fork), so a cookie one
 * worker issued is valid at every other. This process waits: a signal goes on to every worker,
 * each drains (close_notify to its nodes, its last batch committed) and reports its counters,
 * which are summed here. A worker that dies is logged and counted (workers_lost); its nodes'
 * datagrams then hash to the others, which take them as unknown peers until the nodes start a
 * new handshake. */
static int run_workers(collector *c, const char *db, const char *bound, int n, const char *stats_path)
{
    pid_t pid[MAX_WORKERS];
    int from[MAX_WORKERS], started = 0, lost = 0, rc = 0;
    char ready[6];

    for (; started < n; started++) {
        int p[2];
        if (pipe(p) != 0) {
            perror("se collector: worker");
            rc = 1;
            break;
        }
        if ((pid[started] = fork()) < 0) {
            perror("se collector: worker");
            close(p[0]);
            close(p[1]);
            rc = 1;
            break;
        }
        if (pid[started] == 0) {
            close(p[0]);
            for (int k = 0; k < started; k++)
                close(from[k]);
            worker(c, started, c->sock, db, bound, p[1]);
        }
        close(p[1]);
        from[started] = p[0];
        ssize_t got;
        while ((got = read(p[0], ready, sizeof ready)) < 0 && errno == EINTR)
            ;
        if (got != (ssize_t)sizeof ready) { /* it failed to start */
            rc = 1;
            started++;
            break;
        }
        fprintf(stderr, "collector: worker %d is pid %d\n", started, (int)pid[started]);
    }
    close(c->sock);
    c->sock = -1;
    if (rc == 0)
        fprintf(stderr, "collector: listening on %s (%d workers, max %zu peers each)\n", bound, n, c->n_slots);
    else
        stop_requested = 1;

    int live = started, forwarded = 0;
    while (live > 0) {
        int status;
        if (stop_requested && !forwarded) {
            for (int w = 0; w < started; w++)
                if (pid[w] > 0)
                    kill(pid[w], SIGTERM);
            forwarded = 1;
        }
        pid_t got = waitpid(-1, &status, WNOHANG);
        if (got == 0 || (got < 0 && errno == EINTR)) {
            struct timespec ts = {0, 20 * 1000 * 1000};
            nanosleep(&ts, NULL);
            continue;
        }
        if (got < 0)
            break;
        for (int w = 0; w < started; w++)
            if (pid[w] == got) {
                pid[w] = -1;
                live--;
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                    lost++;
                    if (WIFSIGNALED(status))
                        fprintf(stderr, "collector: worker %d (pid %d) ended by signal %d\n", w, (int)got,
                                WTERMSIG(status));
                    else
                        fprintf(stderr, "collector: worker %d (pid %d) exited with status %d\n", w, (int)got,
                                WEXITSTATUS(status));
                }
            }
    }

    /* The counters: each worker's, summed. */
    json_t *total = json_object();
    for (int w = 0; w < started; w++) {
        json_t *obj = json_loadfd(from[w], JSON_DISABLE_EOF_CHECK, NULL);
        const char *key;
        json_t *v;
        if (obj != NULL)
            fprintf(stderr, "collector: worker %d: %lld connections, %lld readings stored\n", w,
                    (long long)json_integer_value(json_object_get(obj, "connections")),
                    (long long)json_integer_value(json_object_get(obj, "records_stored")));
        json_object_foreach(obj, key, v) {
            json_t *t = json_object_get(total, key);
            json_object_set_new(total, key, json_integer((t ? json_integer_value(t) : 0) + json_integer_value(v)));
        }
        json_decref(obj);
        close(from[w]);
    }
    json_object_set_new(total, "workers", json_integer(n));
    json_object_set_new(total, "workers_lost", json_integer(lost));
    if (write_summary(total, stats_path) != 0)
        rc = 1;
    json_decref(total);
    return rc;
}

/* ---- main ------------------------------------------------------------------------------- */

static void usage(void)
{
    fprintf(stderr,
            "usage: se collector --listen [HOST:]PORT --db FILE --cert server.pem --key server.key\n"
            "         --ca ca.pem [--max-peers N] [--idle-timeout SEC] [--exit-after-records N]\n"
            "         [--stats FILE] [--workers N] [common options]\n"
            "  --max-peers N           connection slots (default 16)\n"
            "  --idle-timeout SEC      free a handshake or connection without progress that long (default 300)\n"
            "  --exit-after-records N  stop after storing N readings\n"
            "  --stats FILE            write the counters there as JSON on exit\n"
            "  --workers N             N processes on the one UDP port (SO_REUSEPORT; default 1)\n"
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
    static se_dtls_server_io io = {send_dgram, tls_host_now_ms, on_event, on_record, NULL, &c, NULL};
    uint8_t cookie_key[32];
    const char *listen = NULL, *db = NULL, *stats = NULL;
    long max_peers = 16, idle = 300, exit_after = 0, workers = 1;
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
        else if (strcmp(f, "--workers") == 0) num = &workers, hi = MAX_WORKERS;
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
    if (workers > 1 && exit_after != 0) {
        fprintf(stderr, "se collector: --exit-after-records counts one process's readings: not with --workers\n");
        return 2;
    }

    /* The server's identity, trust anchors for the nodes, P-256 on the chosen backend, the DRBG
     * and the cookie secret. */
    if (tls_host_identity_load(&c.id, o.cert, o.key, o.ca) != 0 || c.id.n_anchors == 0)
        return 1;
    if (tls_host_curve(&c.p256) != SE_OK || tls_host_rng(&c.rng) != SE_OK ||
        se_hmac_drbg_generate(&c.rng, cookie_key, sizeof cookie_key, NULL, 0) != SE_OK) {
        fprintf(stderr, "se collector: cannot set up the curve or the DRBG\n");
        return 1;
    }
    tls_host_config(&c.cfg, &o, &c.id, SE_TLS_SERVER, &c.p256, &c.rng);
    c.cfg.client_auth = SE_TLS_CLIENT_CERT_REQUIRED;
    c.cfg.cid = 1; /* nodes that ask get a connection ID: found by it when their address changes */
    io.keylog = tls_host_keylog(); /* $SSLKEYLOGFILE, as the other host programs */
    if (io.keylog != NULL)
        fprintf(stderr, "se collector: SSLKEYLOGFILE is set: every connection's master secret goes to %s "
                        "(debugging only)\n", getenv("SSLKEYLOGFILE"));

    /* Every slot, once. */
    c.peers = calloc((size_t)max_peers, sizeof *c.peers);
    c.slots = calloc((size_t)max_peers, sizeof *c.slots);
    se_dtls_server_config sc = {.tls = &c.cfg, .cookie_key = cookie_key, .idle_ms = (uint32_t)idle * 1000u};
    if (c.peers == NULL || c.slots == NULL ||
        se_dtls_server_init(&c.srv, &sc, &io, c.peers, (size_t)max_peers) != SE_OK) {
        fprintf(stderr, "se collector: out of memory for %ld peers\n", max_peers);
        free(c.peers);
        free(c.slots);
        se_ct_wipe(cookie_key, sizeof cookie_key);
        return 1;
    }
    se_ct_wipe(cookie_key, sizeof cookie_key); /* the server keeps its copy */
    c.n_slots = (size_t)max_peers;
    c.exit_after = (unsigned long)exit_after;
    c.sock = -1;
    /* The schema is made once here; workers open the database each on their own. */
    if (db_open(&c, db) != 0)
        goto out;
    if (workers > 1)
        db_close(&c);
    if ((c.sock = workers > 1 ? tls_host_udp_bind_shared(listen) : tls_host_udp_bind(listen)) < 0)
        goto out;
    big_queue(c.sock);
    struct sockaddr_storage me;
    socklen_t me_len = sizeof me;
    if (getsockname(c.sock, (struct sockaddr *)&me, &me_len) == 0)
        tls_host_addr_str(&me, me_len, bound, sizeof bound);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: poll() returns EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (workers > 1) {
        rc = run_workers(&c, db, bound, (int)workers, stats);
    } else {
        fprintf(stderr, "collector: listening on %s (max %zu peers)\n", bound, c.n_slots);
        json_t *obj = serve(&c, bound);
        rc = write_summary(obj, stats) == 0 ? 0 : 1;
        json_decref(obj);
    }
out:
    cleanup(&c);
    return rc;
}
