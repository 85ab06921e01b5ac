/* `se server`: a DTLS (UDP) or TLS (TCP) server over sw/proto, one peer at a time. DTLS runs
 * through se/dtls_server.h with one slot: peers get a stateless HelloVerifyRequest cookie, and a
 * connection starts at a ClientHello that carries a valid one while the slot is free. Prints
 * "connected: <peer CN or anonymous> suite: <suite>", "received: <text>" per record (--echo sends
 * it back), "closed", "replaced" or "error: <status>", then the connection's statistics; --once
 * exits after the first connection. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "se/ct.h"
#include "se/dtls_server.h"
#include "tls_host.h"

typedef struct {
    tls_host_sock sock;  /* first: tls_host_send's context */
    se_tls *t;
    se_tls_config *cfg;
    int echo, verbose;
    int ended, rc;       /* DTLS: a connection ended, and how (finished()) */
} srv_ctx;

static void received(srv_ctx *c, se_tls *t, const uint8_t *buf, size_t len)
{
    printf("received: %.*s\n", (int)len, (const char *)buf);
    fflush(stdout);
    if (c->echo)
        se_tls_write(t, buf, len);
}

static void srv_data(void *ctx, const uint8_t *buf, size_t len)
{
    received(ctx, ((srv_ctx *)ctx)->t, buf, len);
}

static void srv_phase(void *ctx, const char *name)
{
    if (((srv_ctx *)ctx)->verbose)
        fprintf(stderr, "phase: %s\n", name);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: se [--backend B] server --listen [HOST:]PORT --cert FILE --key FILE [options]\n"
               "  --client-auth none|optional|required   ask for a client certificate (default none)\n"
               "  --echo               send every record back\n"
               "  --once               exit after the first connection (status 1 if it failed)\n"
               "%s", tls_host_opts_help);
}

static void connected(se_tls *t)
{
    char peer[64];
    if (se_tls_peer_name(t, peer, sizeof peer) == 0) {
        uint8_t pub[65];
        snprintf(peer, sizeof peer, "%s", se_tls_peer_key(t, pub) ? "?" : "anonymous");
    }
    printf("connected: %s suite: %s\n", peer, se_tls_suite_name(se_tls_suite(t)));
    fflush(stdout);
}

/* Reports how a connection ended (how: "closed", or NULL for st); returns 0 for a clean end. */
static int finished(se_tls *t, se_status st, const char *how)
{
    const se_tls_stats *s = se_tls_get_stats(t);
    int ok = how != NULL || st == SE_OK || st == SE_ERR_TLS_CLOSED;

    if (ok) {
        printf("%s\n", how != NULL ? how : "closed");
    } else {
        int alert = se_tls_peer_alert(t) >= 0 ? se_tls_peer_alert(t) : se_tls_sent_alert(t);
        printf("error: %s", se_status_name(st));
        if (alert >= 0)
            printf(" (alert %s)", se_tls_alert_name(alert));
        printf("\n");
    }
    printf("stats: records_in=%u records_out=%u dropped_bad_mac=%u dropped_replay=%u "
           "dropped_malformed=%u retransmits=%u app_bytes_in=%u app_bytes_out=%u\n",
           (unsigned)s->records_in, (unsigned)s->records_out, (unsigned)s->dropped_bad_mac,
           (unsigned)s->dropped_replay, (unsigned)s->dropped_malformed, (unsigned)s->retransmits,
           (unsigned)s->app_bytes_in, (unsigned)s->app_bytes_out);
    fflush(stdout);
    return ok ? 0 : 1;
}

static int never(se_tls *t, void *arg)
{
    (void)t;
    (void)arg;
    return 0;
}

static void listening(int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char buf[80];
    if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
        printf("listening: %s\n", tls_host_addr_str(&ss, len, buf, sizeof buf));
    fflush(stdout);
}

/* TLS: accept, handshake, serve until the peer closes. */
static int serve_tls(int lfd, se_tls *t, se_tls_config *cfg, srv_ctx *c, double timeout, int once)
{
    for (;;) {
        se_tls_io io = {.send = tls_host_send, .now_ms = tls_host_now_ms, .on_data = srv_data, .phase = srv_phase,
                         .keylog = tls_host_keylog(), .ctx = c};
        uint32_t deadline;
        se_status st;
        int rc;

        c->sock.fd = accept(lfd, NULL, NULL);
        if (c->sock.fd < 0) {
            if (errno == EINTR)
                continue;
            perror("se server: accept");
            return 1;
        }
        deadline = tls_host_now_ms(NULL) + (uint32_t)(timeout * 1000);
        cfg->now = tls_host_unix_time(); /* certificates against today's clock */
        st = se_tls_init(t, cfg, &io);
        if (st == SE_OK)
            st = tls_host_pump(t, c->sock.fd, deadline, NULL, NULL);
        if (st == SE_OK && se_tls_get_state(t) == SE_TLS_ESTABLISHED) {
            connected(t);
            st = tls_host_pump(t, c->sock.fd, deadline, never, NULL);
        }
        rc = finished(t, st, NULL);
        if (rc != 0)
            tls_host_tcp_close(c->sock.fd); /* our alert first, not a reset */
        else
            close(c->sock.fd);
        if (once)
            return rc;
    }
}

/* DTLS: se_dtls_server with one slot over one unconnected socket. */
static int dtls_send(void *ctx, const uint8_t *peer, size_t peer_len, const uint8_t *buf, size_t len)
{
    return tls_host_sendto(((srv_ctx *)ctx)->sock.fd, peer, peer_len, buf, len);
}

static void dtls_data(void *ctx, se_dtls_peer *p, const uint8_t *buf, size_t len)
{
    received(ctx, se_dtls_peer_tls(p), buf, len);
}

static void dtls_phase(void *ctx, se_dtls_peer *p, const char *name)
{
    (void)p;
    srv_phase(ctx, name);
}

static void dtls_event(void *ctx, se_dtls_peer *p, se_dtls_event ev)
{
    srv_ctx *c = ctx;
    se_tls *t = se_dtls_peer_tls(p);

    switch (ev) {
    case SE_DTLS_OPEN:
        c->cfg->now = tls_host_unix_time(); /* certificates against today's clock */
        return;
    case SE_DTLS_CONNECTED:
        connected(t);
        return;
    case SE_DTLS_CLOSED:
        c->rc = finished(t, SE_OK, NULL);
        break;
    case SE_DTLS_FAILED:
        c->rc = finished(t, se_tls_error(t), NULL);
        break;
    case SE_DTLS_IDLE: /* no progress for --timeout seconds */
        c->rc = finished(t, SE_ERR_TLS_TIMEOUT, NULL);
        break;
    case SE_DTLS_REPLACED: /* the peer restarted on the same address (RFC 6347 4.2.8) */
        c->rc = finished(t, SE_OK, "replaced");
        break;
    case SE_DTLS_MOVED: { /* found by its connection ID at another address (RFC 9146) */
        char to[64];
        size_t n;
        const uint8_t *a = se_dtls_peer_addr(p, &n);
        printf("moved: %s\n", tls_host_peer_str(a, n, to, sizeof to));
        fflush(stdout);
        return;
    }
    }
    c->ended = 1;
}

/* With --verbose, the server's counters after each connection. */
static void dtls_counters(const se_dtls_server *srv)
{
    se_dtls_server_stats n;
    se_dtls_server_get_stats(srv, &n);
    fprintf(stderr, "counters:");
#define X(name) fprintf(stderr, " %s=%llu", #name, (unsigned long long)n.name);
    SE_DTLS_SERVER_COUNTERS(X)
#undef X
    fprintf(stderr, "\n");
}

static int serve_dtls(int fd, se_tls_config *cfg, srv_ctx *c, double timeout, int once)
{
    static uint8_t buf[65536];
    se_dtls_peer *slot = malloc(sizeof *slot);
    se_dtls_server srv;
    uint8_t cookie_key[32];
    se_dtls_server_io io = {dtls_send, tls_host_now_ms, dtls_event, dtls_data, dtls_phase, c, tls_host_keylog()};
    se_dtls_server_config sc = {.tls = cfg, .cookie_key = cookie_key, .idle_ms = (uint32_t)(timeout * 1000)};
    int rc = 1;

    c->sock.fd = fd;
    c->cfg = cfg;
    if (slot == NULL || cli_os_random(cookie_key, sizeof cookie_key) != SE_OK ||
        se_dtls_server_init(&srv, &sc, &io, slot, 1) != SE_OK) {
        free(slot);
        return 1;
    }
    se_ct_wipe(cookie_key, sizeof cookie_key); /* the server keeps its copy */
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        uint32_t next = se_dtls_server_timer(&srv);

        if (!c->ended && poll(&p, 1, next == UINT32_MAX ? -1 : next > INT_MAX ? INT_MAX : (int)next) > 0) {
            struct sockaddr_storage from;
            socklen_t flen = sizeof from;
            ssize_t n = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen);
            se_status why;
            se_dtls_kind k;
            if (n < 0)
                continue;
            k = se_dtls_server_input(&srv, (const uint8_t *)&from, tls_host_peer(&from, flen), buf,
                                     (size_t)n, &why);
            if (c->verbose && k >= SE_DTLS_PEERS_FULL) /* dropped */
                fprintf(stderr, "dropped a datagram: %s%s%s\n", se_dtls_kind_name(k),
                        why != SE_OK ? " " : "", why != SE_OK ? se_status_name(why) : "");
        }
        if (!c->ended)
            continue;
        c->ended = 0;
        if (c->verbose)
            dtls_counters(&srv);
        if (once) {
            rc = c->rc;
            break;
        }
    }
    se_dtls_server_wipe(&srv);
    free(slot);
    return rc;
}

int cli_server_main(int argc, char **argv)
{
    tls_host_opts o;
    tls_host_identity *id = malloc(sizeof *id);
    se_tls *t = malloc(sizeof *t);
    const char *listen_on = NULL;
    se_tls_client_auth auth = SE_TLS_CLIENT_CERT_NONE;
    int echo = 0, once = 0, fd, rc;
    se_tls_config cfg;
    se_ec_curve p256;
    se_hmac_drbg_ctx rng;
    srv_ctx c;

    if (id == NULL || t == NULL)
        return 1;
    tls_host_opts_init(&o);
    for (int i = 1; i < argc;) {
        int r = tls_host_opt(&o, argc, argv, &i);
        const char *a;
        if (r < 0)
            return 2;
        if (r == 1)
            continue;
        a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--echo") == 0) {
            echo = 1;
        } else if (strcmp(a, "--once") == 0) {
            once = 1;
        } else if (i + 1 < argc && strcmp(a, "--listen") == 0) {
            listen_on = argv[++i];
        } else if (i + 1 < argc && strcmp(a, "--client-auth") == 0) {
            const char *v = argv[++i];
            if (strcmp(v, "none") == 0)
                auth = SE_TLS_CLIENT_CERT_NONE;
            else if (strcmp(v, "optional") == 0)
                auth = SE_TLS_CLIENT_CERT_OPTIONAL;
            else if (strcmp(v, "required") == 0)
                auth = SE_TLS_CLIENT_CERT_REQUIRED;
            else {
                fprintf(stderr, "se server: --client-auth none|optional|required\n");
                return 2;
            }
        } else {
            fprintf(stderr, "se server: unknown option or missing value: '%s'\n", a);
            usage(stderr);
            return 2;
        }
        i++;
    }
    if (listen_on == NULL || o.cert == NULL) {
        fprintf(stderr, "se server: --listen, --cert and --key are required\n");
        return 2;
    }
    if (tls_host_identity_load(id, o.cert, o.key, o.ca) != 0)
        return 1;
    if (tls_host_curve(&p256) != SE_OK || tls_host_rng(&rng) != SE_OK) {
        fprintf(stderr, "se server: cannot set up the curve or the DRBG\n");
        return 1;
    }
    tls_host_config(&cfg, &o, id, SE_TLS_SERVER, &p256, &rng);
    cfg.client_auth = auth;
    fd = o.tls ? tls_host_tcp_listen(listen_on) : tls_host_udp_bind(listen_on);
    if (fd < 0)
        return 1;
    listening(fd);
    memset(&c, 0, sizeof c);
    c.t = t;
    c.echo = echo;
    c.verbose = o.verbose;
    rc = o.tls ? serve_tls(fd, t, &cfg, &c, o.timeout, once) : serve_dtls(fd, &cfg, &c, o.timeout, once);
    close(fd);
    se_ct_wipe(id, sizeof *id); /* the private key */
    se_ct_wipe(t, sizeof *t);
    free(id);
    free(t);
    return rc;
}
