/* `se load`: a load generator for a DTLS server such as `se collector`. N clients run at once in
 * this one process, each over a UDP socket of its own (so a new source port, a new peer, for every
 * connection): a full handshake, M readings, close_notify (and the server's, or half a second),
 * and again, --connections times each.
 * With --resume a client's later connections run in cached-certificate mode (se/tls.h). The
 * report is one JSON object on stdout (and in --json FILE): handshakes and readings per second,
 * handshake latency percentiles, and the failures by error name.
 *
 * Each reading is one record, "<prefix> client=<k> conn=<c> seq=<i>", which names it uniquely: a
 * test can check that the server stored each exactly once. The crypto runs on --backend (openssl
 * for the most load per core). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "se/ct.h"
#include "tls_host.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: se [--backend B] load --connect HOST:PORT --cert C --key K --ca CA [options]\n"
               "  --clients N          clients at once (default 10, at most 4096)\n"
               "  --connections N      connections each client makes, one after another (default 1)\n"
               "  --readings M         readings sent on each connection (default 10)\n"
               "  --resume             a client's later connections in cached-certificate mode\n"
               "  --name NAME          check the server's certificate name\n"
               "  --prefix TEXT        the readings' first word (default \"load\", at most 64 characters)\n"
               "  --json FILE          the report, also written here\n"
               "  (--timeout SEC is the whole run's deadline; default 30)\n"
               "%s", tls_host_opts_help);
}

#define MAX_PREFIX 64 /* a reading's line, "<prefix> client=<k> conn=<c> seq=<i>", fits in 160 bytes */

/* One client: its socket, connection, configuration (a cache of its own) and progress. */
typedef struct {
    tls_host_sock sock;
    se_tls tls;
    se_tls_config cfg;
    se_tls_io io;
    se_tls_cert_cache cache;
    unsigned index, conn;  /* which client; connections started so far */
    int busy;              /* a connection is under way */
    double closing;        /* close_notify sent: waiting for the server's until then (seconds) */
    double started;        /* when its handshake began (seconds) */
} load_client;

typedef struct {
    const char *target, *prefix;
    unsigned clients, connections, readings;
    int resume;
    /* results */
    unsigned handshakes, cached, failures, readings_sent, ended;
    unsigned fail_count[64];
    se_status fail_kind[64];
    unsigned n_kinds;
    double *latency;       /* seconds, one per completed handshake */
} load_run;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void count_failure(load_run *r, se_status st)
{
    r->failures++;
    for (unsigned i = 0; i < r->n_kinds; i++)
        if (r->fail_kind[i] == st) {
            r->fail_count[i]++;
            return;
        }
    if (r->n_kinds < sizeof r->fail_kind / sizeof r->fail_kind[0]) {
        r->fail_kind[r->n_kinds] = st;
        r->fail_count[r->n_kinds++] = 1;
    }
}

/* Ends c's connection (the socket closed, the connection's keys wiped). */
static void finish(load_run *r, load_client *c)
{
    r->ended++;
    if (c->sock.fd >= 0)
        close(c->sock.fd);
    c->sock.fd = -1;
    c->busy = 0;
    c->closing = 0;
    se_ct_wipe(&c->tls, sizeof c->tls);
}

/* Starts c's next connection, with fresh OS entropy in the shared DRBG (which also keeps its
 * reseed counter far from the limit); 0, or -1 when the socket cannot be made (a setup failure). */
static int start(load_run *r, load_client *c)
{
    (void)tls_host_reseed(c->cfg.rng);
    c->cfg.cache = r->resume ? &c->cache : NULL;
    c->sock.fd = tls_host_connect(r->target, 0);
    if (c->sock.fd < 0)
        return -1;
    c->conn++;
    c->busy = 1;
    c->started = now_s();
    se_status st = se_tls_init(&c->tls, &c->cfg, &c->io);
    if (st == SE_OK)
        st = se_tls_start(&c->tls);
    if (st != SE_OK) {
        count_failure(r, st);
        finish(r, c);
    }
    return 0;
}

/* After input or a timer: a failed connection is counted; an established one gets its readings
 * and close_notify, and is done. */
static void progress(load_run *r, load_client *c, se_status st)
{
    if (st == SE_OK && se_tls_get_state(&c->tls) == SE_TLS_HANDSHAKING)
        return;
    if (st != SE_OK || se_tls_get_state(&c->tls) != SE_TLS_ESTABLISHED) {
        count_failure(r, st != SE_OK ? st : se_tls_error(&c->tls));
        finish(r, c);
        return;
    }
    r->latency[r->handshakes++] = now_s() - c->started;
    r->cached += se_tls_used_cache(&c->tls) != 0;
    char line[160];
    for (unsigned i = 1; i <= r->readings && st == SE_OK; i++) {
        int n = snprintf(line, sizeof line, "%s client=%u conn=%u seq=%u", r->prefix, c->index, c->conn, i);
        st = se_tls_write(&c->tls, (const uint8_t *)line, (size_t)n);
        r->readings_sent += st == SE_OK;
    }
    if (st == SE_OK)
        st = se_tls_close(&c->tls);
    if (st != SE_OK) {
        count_failure(r, st);
        finish(r, c);
        return;
    }
    /* The socket stays open for the server's close_notify (RFC 5246 7.2.1), at most TLS_HOST_CLOSE_WAIT_MS:
     * a port closed at once could go to another program before that answer arrives. */
    c->closing = now_s() + TLS_HOST_CLOSE_WAIT_MS / 1000.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile (nearest rank) of the sorted latencies, in milliseconds. */
static double quantile_ms(const double *v, unsigned n, double q)
{
    if (n == 0)
        return 0;
    unsigned k = (unsigned)(q * n + 0.999999);
    return 1000.0 * v[k == 0 ? 0 : k - 1];
}

static json_t *report(load_run *r, double seconds, int timed_out)
{
    qsort(r->latency, r->handshakes, sizeof r->latency[0], cmp_double);
    json_t *kinds = json_object();
    for (unsigned i = 0; i < r->n_kinds; i++)
        json_object_set_new(kinds, se_status_name(r->fail_kind[i]), json_integer(r->fail_count[i]));
    unsigned planned = r->clients * r->connections;
    return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:b, s:f, s:f, s:f, s:f, s:f}",
                     "op", "load", "backend", cli_be->name, "clients", (json_int_t)r->clients,
                     "connections", (json_int_t)planned, "handshakes", (json_int_t)r->handshakes,
                     "cached_handshakes", (json_int_t)r->cached, "readings_sent", (json_int_t)r->readings_sent,
                     "failures", (json_int_t)r->failures, "unfinished", (json_int_t)(planned - r->ended),
                     "readings_per_connection", (json_int_t)r->readings, "failure_kinds", kinds,
                     "timed_out", timed_out, "seconds", seconds,
                     "handshakes_per_s", seconds > 0 ? r->handshakes / seconds : 0.0,
                     "readings_per_s", seconds > 0 ? r->readings_sent / seconds : 0.0,
                     "p50_handshake_ms", quantile_ms(r->latency, r->handshakes, 0.50),
                     "p99_handshake_ms", quantile_ms(r->latency, r->handshakes, 0.99));
}

static int parse_count(const char *opt, const char *v, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    if (*v == '\0' || *end != '\0' || x < lo || x > hi) {
        fprintf(stderr, "se load: %s: %u..%u\n", opt, lo, hi);
        return -1;
    }
    *out = (unsigned)x;
    return 0;
}

int cli_load_main(int argc, char **argv)
{
    tls_host_opts o;
    load_run r = {.prefix = "load", .clients = 10, .connections = 1, .readings = 10};
    const char *name = NULL, *json_path = NULL;

    tls_host_opts_init(&o);
    for (int i = 1; i < argc;) {
        int k = tls_host_opt(&o, argc, argv, &i);
        if (k < 0)
            return 2;
        if (k == 1)
            continue;
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--resume") == 0) {
            r.resume = 1;
            i++;
            continue;
        } else if (v == NULL) {
            fprintf(stderr, "se load: unknown option or missing value: '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (strcmp(a, "--connect") == 0) {
            r.target = v;
        } else if (strcmp(a, "--name") == 0) {
            name = v;
        } else if (strcmp(a, "--prefix") == 0) {
            if (strlen(v) > MAX_PREFIX) {
                fprintf(stderr, "se load: --prefix: at most %d characters\n", MAX_PREFIX);
                return 2;
            }
            r.prefix = v;
        } else if (strcmp(a, "--json") == 0) {
            json_path = v;
        } else if (strcmp(a, "--clients") == 0) {
            if (parse_count(a, v, 1, 4096, &r.clients) != 0)
                return 2;
        } else if (strcmp(a, "--connections") == 0) {
            if (parse_count(a, v, 1, 1000000, &r.connections) != 0)
                return 2;
        } else if (strcmp(a, "--readings") == 0) {
            if (parse_count(a, v, 0, 100000, &r.readings) != 0)
                return 2;
        } else {
            fprintf(stderr, "se load: unknown option: '%s'\n", a);
            usage(stderr);
            return 2;
        }
        i += 2;
    }
    if (r.target == NULL || o.tls) {
        fprintf(stderr, "se load: --connect HOST:PORT is required (DTLS only: no --tls)\n");
        return 2;
    }
    if ((unsigned long long)r.clients * r.connections > 100000000ull) {
        fprintf(stderr, "se load: --clients x --connections: at most 10^8\n");
        return 2;
    }

    tls_host_identity *id = malloc(sizeof *id);
    load_client *cl = calloc(r.clients, sizeof *cl);
    struct pollfd *pf = calloc(r.clients, sizeof *pf);
    r.latency = calloc((size_t)r.clients * r.connections, sizeof *r.latency);
    se_ec_curve p256;
    se_hmac_drbg_ctx rng;
    if (id == NULL || cl == NULL || pf == NULL || r.latency == NULL) {
        fprintf(stderr, "se load: out of memory\n");
        return 1;
    }
    if (tls_host_identity_load(id, o.cert, o.key, o.ca) != 0)
        return 1;
    if (tls_host_curve(&p256) != SE_OK || tls_host_rng(&rng) != SE_OK) {
        fprintf(stderr, "se load: cannot set up the curve or the DRBG\n");
        return 1;
    }
    for (unsigned k = 0; k < r.clients; k++) {
        load_client *c = &cl[k];
        c->index = k;
        c->sock.fd = -1;
        tls_host_config(&c->cfg, &o, id, SE_TLS_CLIENT, &p256, &rng);
        c->cfg.server_name = name;
        c->io = (se_tls_io){.send = tls_host_send, .now_ms = tls_host_now_ms, .keylog = tls_host_keylog(), .ctx = &c->sock};
    }

    int rc = 0, timed_out = 0;
    double t0 = now_s(), deadline = t0 + o.timeout;
    uint8_t buf[SE_TLS_MAX_MTU + 2048];
    for (;;) {
        /* Idle clients with connections left start one; then wait for the sockets or a timer. */
        unsigned live = 0;
        uint32_t wait_ms = 1000;
        for (unsigned k = 0; k < r.clients; k++) {
            load_client *c = &cl[k];
            if (!c->busy && c->conn < r.connections && start(&r, c) != 0) {
                rc = 1;
                break;
            }
            pf[k] = (struct pollfd){c->busy ? c->sock.fd : -1, POLLIN, 0};
            if (c->busy) {
                uint32_t t = c->closing ? (uint32_t)(c->closing > now_s() ? (c->closing - now_s()) * 1000 + 1 : 0)
                                        : se_tls_timeout_ms(&c->tls);
                wait_ms = t < wait_ms ? t : wait_ms;
                live++;
            }
        }
        if (rc != 0 || live == 0)
            break;
        if (now_s() > deadline) {
            timed_out = 1;
            break;
        }
        int n = poll(pf, r.clients, (int)wait_ms);
        if (n < 0 && errno != EINTR) {
            perror("se load: poll");
            rc = 1;
            break;
        }
        for (unsigned k = 0; k < r.clients; k++) {
            load_client *c = &cl[k];
            if (!c->busy)
                continue;
            if (c->closing) { /* the server's close_notify (or anything) ends it, as does the wait */
                if ((pf[k].revents & (POLLIN | POLLERR)) || now_s() >= c->closing)
                    finish(&r, c);
                continue;
            }
            if (pf[k].revents & (POLLIN | POLLERR)) {
                ssize_t got = recv(c->sock.fd, buf, sizeof buf, 0);
                /* A refused datagram (no server on the port) reads as an error: the handshake's
                 * retransmissions go on, and its timer decides. */
                if (got > 0)
                    progress(&r, c, se_tls_input(&c->tls, buf, (size_t)got));
            }
            if (c->busy && se_tls_timeout_ms(&c->tls) == 0)
                progress(&r, c, se_tls_timer(&c->tls));
        }
    }
    double seconds = now_s() - t0;
    for (unsigned k = 0; k < r.clients; k++)
        if (cl[k].busy) { /* cut off by the deadline: unfinished, not failed (unless only closing) */
            int done = cl[k].closing != 0;
            finish(&r, &cl[k]);
            r.ended -= !done;
        }

    json_t *out = report(&r, seconds, timed_out);
    char *text = json_dumps(out, JSON_SORT_KEYS);
    if (text != NULL) {
        printf("%s\n", text);
        if (json_path != NULL) {
            FILE *f = fopen(json_path, "w");
            if (f == NULL || fprintf(f, "%s\n", text) < 0 || fclose(f) != 0) {
                fprintf(stderr, "se load: cannot write %s\n", json_path);
                rc = 1;
            }
        }
    }
    free(text);
    json_decref(out);
    se_hmac_drbg_uninstantiate(&rng);
    se_ct_wipe(id, sizeof *id);
    se_ct_wipe(cl, (size_t)r.clients * sizeof *cl);
    free(id);
    free(cl);
    free(pf);
    free(r.latency);
    if (rc == 0 && (timed_out || r.failures != 0))
        rc = 3;
    return rc;
}
