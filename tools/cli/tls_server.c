/* `se server`: a DTLS (UDP) or TLS (TCP) server over sw/proto, one peer at a time. DTLS peers
 * first get a stateless HelloVerifyRequest cookie; a connection starts at a ClientHello that
 * carries a valid one. Prints "connected: <peer CN or anonymous> suite: <suite>", "received:
 * <text>" per record (--echo sends it back), "closed" or "error: <status>", then the
 * connection's statistics; --once exits after the first connection. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "se/ct.h"
#include "tls_host.h"

typedef struct {
    tls_host_sock sock;  /* first: tls_host_send's context */
    se_tls *t;
    int echo, verbose;
} srv_ctx;

static void srv_data(void *ctx, const uint8_t *buf, size_t len)
{
    srv_ctx *c = ctx;
    printf("received: %.*s\n", (int)len, (const char *)buf);
    fflush(stdout);
    if (c->echo)
        se_tls_write(c->t, buf, len);
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

/* Reports how a connection ended; returns 0 for a clean close. */
static int finished(se_tls *t, se_status st)
{
    const se_tls_stats *s = se_tls_get_stats(t);
    int ok = st == SE_OK || st == SE_ERR_TLS_CLOSED;

    if (ok) {
        printf("closed\n");
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
        se_tls_io io = {tls_host_send, tls_host_now_ms, srv_data, srv_phase, c};
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
        c->sock.peer_len = 0;
        deadline = tls_host_now_ms(NULL) + (uint32_t)(timeout * 1000);
        cfg->now = tls_host_unix_time(); /* certificates against today's clock */
        st = se_tls_init(t, cfg, &io);
        if (st == SE_OK)
            st = tls_host_pump(t, c->sock.fd, deadline, NULL, NULL);
        if (st == SE_OK && se_tls_get_state(t) == SE_TLS_ESTABLISHED) {
            connected(t);
            st = tls_host_pump(t, c->sock.fd, deadline, never, NULL);
        }
        rc = finished(t, st);
        if (rc != 0)
            tls_host_tcp_close(c->sock.fd); /* our alert first, not a reset */
        else
            close(c->sock.fd);
        if (once)
            return rc;
    }
}

/* DTLS: one unconnected socket; a peer without a connection gets cookies until its ClientHello
 * carries a valid one; then that peer has the connection until it ends. */
static int serve_dtls(int fd, se_tls *t, se_tls_config *cfg, srv_ctx *c, double timeout, int once)
{
    static uint8_t buf[65536];
    uint8_t cookie_key[32], hvr[64];
    int active = 0;
    uint32_t deadline = 0;
    se_tls_io io = {tls_host_send, tls_host_now_ms, srv_data, srv_phase, c};

    if (cli_os_random(cookie_key, sizeof cookie_key) != SE_OK)
        return 1;
    c->sock.fd = fd;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        int wait = -1, r;

        if (active) {
            uint32_t now = tls_host_now_ms(NULL), w = (int32_t)(deadline - now) > 0 ? deadline - now : 0;
            wait = (int)(se_tls_timeout_ms(t) < w ? se_tls_timeout_ms(t) : w);
        }
        r = poll(&p, 1, wait);
        if (r > 0) {
            struct sockaddr_storage from;
            socklen_t flen = sizeof from;
            ssize_t n = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen);
            if (n < 0)
                continue;
            if (!active) {
                size_t hl;
                se_status st = se_dtls_cookie_check(cfg->crypto, cookie_key, (const uint8_t *)&from, flen,
                                                    buf, (size_t)n, hvr, sizeof hvr, &hl);
                if (st == SE_ERR_TLS_UNEXPECTED) {
                    sendto(fd, hvr, hl, 0, (struct sockaddr *)&from, flen);
                } else if (st == SE_OK) {
                    memcpy(&c->sock.peer, &from, flen);
                    c->sock.peer_len = flen;
                    cfg->now = tls_host_unix_time();
                    if (se_tls_init(t, cfg, &io) == SE_OK) {
                        active = 1;
                        se_tls_input(t, buf, (size_t)n);
                    }
                } else if (c->verbose) {
                    fprintf(stderr, "dropped a datagram: %s\n", se_status_name(st));
                }
                deadline = tls_host_now_ms(NULL) + (uint32_t)(timeout * 1000);
            } else if (flen == c->sock.peer_len && memcmp(&from, &c->sock.peer, flen) == 0) {
                se_tls_state before = se_tls_get_state(t);
                se_tls_input(t, buf, (size_t)n);
                if (before == SE_TLS_HANDSHAKING && se_tls_get_state(t) == SE_TLS_ESTABLISHED)
                    connected(t);
                deadline = tls_host_now_ms(NULL) + (uint32_t)(timeout * 1000);
            }
        }
        if (!active)
            continue;
        se_tls_state before = se_tls_get_state(t);
        se_tls_timer(t);
        if (before == SE_TLS_HANDSHAKING && se_tls_get_state(t) == SE_TLS_ESTABLISHED)
            connected(t);
        se_tls_state s = se_tls_get_state(t);
        int expired = (int32_t)(deadline - tls_host_now_ms(NULL)) <= 0;
        if (s == SE_TLS_FAILED || s == SE_TLS_CLOSED || expired) {
            int rc = finished(t, s == SE_TLS_FAILED ? se_tls_error(t)
                                 : s == SE_TLS_CLOSED ? SE_OK : SE_ERR_TLS_TIMEOUT);
            active = 0;
            c->sock.peer_len = 0;
            if (once)
                return rc;
        }
    }
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
    rc = o.tls ? serve_tls(fd, t, &cfg, &c, o.timeout, once) : serve_dtls(fd, t, &cfg, &c, o.timeout, once);
    close(fd);
    se_ct_wipe(id, sizeof *id); /* the private key */
    se_ct_wipe(t, sizeof *t);
    free(id);
    free(t);
    return rc;
}
