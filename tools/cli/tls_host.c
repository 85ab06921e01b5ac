/* Host glue for the DTLS/TLS programs (see tls_host.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "se/ct.h"
#include "pem.h"
#include "tls_host.h"

const char tls_host_opts_help[] =
    "  --tls                TLS over TCP (default: DTLS over UDP)\n"
    "  --cert FILE          own certificate chain (PEM, leaf first)\n"
    "  --key FILE           own private key (PEM/DER, PKCS#8 or SEC1)\n"
    "  --ca FILE            trust anchors for the peer's chain\n"
    "  --suites LIST        ccm8,gcm,cbc (order = preference; default all three)\n"
    "  --mtu N              DTLS datagram size (default 1200)\n"
    "  --timeout SEC        overall time limit (server: per connection idle limit; default 30)\n"
    "  --retransmit-ms N    initial DTLS retransmission timeout (default 1000, at most 3600000:\n"
    "                       a simulated node's peer; later timeouts double up to 60000)\n"
    "  --max-retransmits N  DTLS resends of one flight before giving up (default 6)\n"
    "  --cid                DTLS connection ID (RFC 9146, AEAD suites): a client offers it, a server\n"
    "                       accepts it (the collector always does)\n"
    "  --verbose            phases and statistics on stderr\n"
    "  --fault bad-finished send a wrong Finished (negative tests)\n";

void tls_host_opts_init(tls_host_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mtu = 1200;
    o->timeout = 30;
    o->retransmit_ms = 1000;
    o->max_retransmits = 6;
}

static int parse_num(const char *opt, const char *s, double lo, double hi, double *v)
{
    char *end;
    *v = strtod(s, &end);
    if (*s == 0 || *end != 0 || *v < lo || *v > hi) {
        fprintf(stderr, "se: %s: bad value '%s'\n", opt, s);
        return -1;
    }
    return 0;
}

int tls_host_opt(tls_host_opts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    double d;

    if (strcmp(a, "--tls") == 0) {
        o->tls = 1;
    } else if (strcmp(a, "--verbose") == 0) {
        o->verbose = 1;
    } else if (strcmp(a, "--cid") == 0) {
        o->cid = 1;
    } else if (strcmp(a, "--fault") == 0) {
        if (v == NULL || strcmp(v, "bad-finished") != 0) {
            fprintf(stderr, "se: --fault: only bad-finished\n");
            return -1;
        }
        (*i)++;
        o->faults |= SE_TLS_FAULT_BAD_FINISHED;
    } else if (strcmp(a, "--cert") == 0 || strcmp(a, "--key") == 0 || strcmp(a, "--ca") == 0 ||
               strcmp(a, "--suites") == 0 || strcmp(a, "--mtu") == 0 || strcmp(a, "--timeout") == 0 ||
               strcmp(a, "--retransmit-ms") == 0 || strcmp(a, "--max-retransmits") == 0) {
        if (v == NULL) {
            fprintf(stderr, "se: %s needs a value\n", a);
            return -1;
        }
        (*i)++;
        if (strcmp(a, "--cert") == 0) {
            o->cert = v;
        } else if (strcmp(a, "--key") == 0) {
            o->key = v;
        } else if (strcmp(a, "--ca") == 0) {
            o->ca = v;
        } else if (strcmp(a, "--suites") == 0) {
            char buf[128], *save = NULL;
            snprintf(buf, sizeof buf, "%s", v);
            o->n_suites = 0;
            for (char *s = strtok_r(buf, ",", &save); s != NULL; s = strtok_r(NULL, ",", &save)) {
                uint16_t id = se_tls_suite_by_name(s);
                if (id == 0 || o->n_suites == 3) {
                    fprintf(stderr, "se: --suites: unknown or repeated suite '%s' (have ccm8, gcm, cbc)\n", s);
                    return -1;
                }
                o->suites[o->n_suites++] = id;
            }
            if (o->n_suites == 0) {
                fprintf(stderr, "se: --suites: empty list\n");
                return -1;
            }
        } else if (strcmp(a, "--mtu") == 0) {
            if (parse_num(a, v, 128, SE_TLS_MAX_MTU, &d) != 0)
                return -1;
            o->mtu = (size_t)d;
        } else if (strcmp(a, "--timeout") == 0) {
            if (parse_num(a, v, 0.001, 86400, &d) != 0)
                return -1;
            o->timeout = d;
        } else if (strcmp(a, "--retransmit-ms") == 0) {
            if (parse_num(a, v, 1, 3600000, &d) != 0)
                return -1;
            o->retransmit_ms = (uint32_t)d;
        } else {
            if (parse_num(a, v, 1, 255, &d) != 0)
                return -1;
            o->max_retransmits = (unsigned)d;
        }
    } else {
        return 0;
    }
    (*i)++;
    return 1;
}

int tls_host_identity_load(tls_host_identity *id, const char *cert, const char *key, const char *ca)
{
    int n;

    memset(id, 0, sizeof *id);
    if ((cert == NULL) != (key == NULL)) {
        fprintf(stderr, "se: --cert and --key go together\n");
        return -1;
    }
    if (cert != NULL) {
        n = cli_read_certs(cert, id->chain_buf, sizeof id->chain_buf, id->chain, id->chain_len,
                           TLS_HOST_MAX_CHAIN);
        if (n <= 0) {
            if (n == 0)
                fprintf(stderr, "se: %s: no certificate\n", cert);
            return -1;
        }
        id->chain_n = (size_t)n;
        if (cli_read_key(key, id->key) != 0)
            return -1;
        id->has_key = 1;
    }
    if (ca != NULL) {
        n = cli_read_certs(ca, id->anchor_buf, sizeof id->anchor_buf, id->anchors, id->anchor_len,
                           TLS_HOST_MAX_ANCHORS);
        if (n < 0)
            return -1;
        id->n_anchors = (size_t)n;
    }
    return 0;
}

se_status tls_host_curve(se_ec_curve *c)
{
    se_status st = se_ec_curve_builtin(c, SE_CURVE_SECP256R1);
    return st == SE_OK ? cli_be->ops->ec_curve(c) : st;
}

se_status tls_host_rng(se_hmac_drbg_ctx *rng)
{
    static const uint8_t pers[] = "se tls host";
    uint8_t seed[48];
    se_status st = cli_os_random(seed, sizeof seed);

    if (st == SE_OK)
        st = se_hmac_drbg_instantiate(rng, seed, sizeof seed, NULL, 0, pers, sizeof pers - 1);
    memset(seed, 0, sizeof seed);
    return st;
}

se_status tls_host_reseed(se_hmac_drbg_ctx *rng)
{
    uint8_t e[32];
    se_status st = cli_os_random(e, sizeof e);
    if (st == SE_OK)
        st = se_hmac_drbg_reseed(rng, e, sizeof e, NULL, 0);
    se_ct_wipe(e, sizeof e);
    return st;
}

uint32_t tls_host_now_ms(void *ctx)
{
    struct timespec ts;
    (void)ctx;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

int64_t tls_host_unix_time(void)
{
    return (int64_t)time(NULL);
}

static void keylog_line(void *ctx, const uint8_t client_random[32], const uint8_t master[48])
{
    const char *path = getenv("SSLKEYLOGFILE");
    /* Secrets: a new file is the owner's alone, and an existing one must be a regular file (not
     * through a symbolic link) that nobody else may read; otherwise nothing is written. */
    int fd = path != NULL ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600) : -1;
    struct stat st;
    FILE *f = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
                      (st.st_mode & 077) == 0
                  ? fdopen(fd, "a")
                  : NULL;
    (void)ctx;
    if (f == NULL) {
        if (fd >= 0)
            close(fd);
        return;
    }
    char cr[2 * 32 + 1], ms[2 * 48 + 1];
    fprintf(f, "CLIENT_RANDOM %s %s\n", cli_to_hex(cr, client_random, 32), cli_to_hex(ms, master, 48));
    se_ct_wipe(ms, sizeof ms);
    fclose(f);
}

void (*tls_host_keylog(void))(void *ctx, const uint8_t client_random[32], const uint8_t master[48])
{
    const char *path = getenv("SSLKEYLOGFILE");
    return path != NULL && path[0] != '\0' ? keylog_line : NULL;
}

void tls_host_config(se_tls_config *cfg, const tls_host_opts *o, const tls_host_identity *id,
                     se_tls_role role, const se_ec_curve *p256, se_hmac_drbg_ctx *rng)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->transport = o->tls ? SE_TLS_STREAM : SE_TLS_DATAGRAM;
    cfg->role = role;
    cfg->crypto = cli_be->ops;
    cfg->rng = rng;
    cfg->p256 = p256;
    cfg->suites = o->n_suites ? o->suites : NULL;
    cfg->n_suites = o->n_suites;
    cfg->chain = id->chain;
    cfg->chain_len = id->chain_len;
    cfg->chain_n = id->chain_n;
    cfg->key = id->has_key ? id->key : NULL;
    cfg->anchors = id->anchors;
    cfg->anchor_len = id->anchor_len;
    cfg->n_anchors = id->n_anchors;
    cfg->now = tls_host_unix_time();
    cfg->mtu = o->mtu;
    cfg->retransmit_ms = o->retransmit_ms;
    cfg->max_retransmits = o->max_retransmits;
    cfg->cid = (uint8_t)o->cid;
    cfg->faults = o->faults;
}

/* ---- sockets ---------------------------------------------------------------------------- */
/* Splits "host:port", "[v6]:port" or "port" and resolves it. */
static struct addrinfo *resolve(const char *hostport, int socktype, int passive)
{
    char host[256] = "", port[32];
    const char *colon = strrchr(hostport, ':');
    struct addrinfo hints, *res = NULL;
    int rc;

    if (colon == NULL) {
        snprintf(port, sizeof port, "%s", hostport);
    } else {
        const char *h = hostport;
        size_t hl = (size_t)(colon - hostport);
        if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {
            h++;
            hl -= 2;
        }
        if (hl >= sizeof host) {
            fprintf(stderr, "se: '%s': host name too long\n", hostport);
            return NULL;
        }
        memcpy(host, h, hl);
        host[hl] = 0;
        snprintf(port, sizeof port, "%s", colon + 1);
    }
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = socktype;
    hints.ai_flags = passive ? AI_PASSIVE : 0;
    rc = getaddrinfo(host[0] ? host : (passive ? NULL : "localhost"), port, &hints, &res);
    if (rc != 0) {
        fprintf(stderr, "se: '%s': %s\n", hostport, gai_strerror(rc));
        return NULL;
    }
    return res;
}

void tls_host_tcp_close(int fd)
{
    uint32_t end = tls_host_now_ms(NULL) + 500;
    size_t total = 0;
    uint8_t sink[4096];

    shutdown(fd, SHUT_WR);
    for (;;) {
        int32_t left = (int32_t)(end - tls_host_now_ms(NULL));
        struct pollfd p = {fd, POLLIN, 0};
        ssize_t n;
        if (left <= 0 || total > (1u << 20) || poll(&p, 1, left) <= 0)
            break;
        n = recv(fd, sink, sizeof sink, 0);
        if (n <= 0)
            break;
        total += (size_t)n;
    }
    close(fd);
}

static int open_socket(const char *hostport, int socktype, int mode) /* 0 connect, 1 bind, 2 listen, 3 shared bind */
{
    struct addrinfo *res = resolve(hostport, socktype, mode != 0), *ai;
    int fd = -1, err = 0;

    for (ai = res; ai != NULL; ai = ai->ai_next) {
        int one = 1;
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        if (mode != 0)
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (mode == 3)
            setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
        if ((mode == 0 ? connect(fd, ai->ai_addr, ai->ai_addrlen) : bind(fd, ai->ai_addr, ai->ai_addrlen)) == 0 &&
            (mode != 2 || listen(fd, 8) == 0))
            break;
        err = errno;
        close(fd);
        fd = -1;
    }
    if (res != NULL && fd < 0)
        fprintf(stderr, "se: '%s': %s\n", hostport, strerror(err));
    freeaddrinfo(res);
    return fd;
}

int tls_host_connect(const char *hostport, int stream)
{
    return open_socket(hostport, stream ? SOCK_STREAM : SOCK_DGRAM, 0);
}

int tls_host_udp_bind(const char *hostport)
{
    return open_socket(hostport, SOCK_DGRAM, 1);
}

int tls_host_udp_bind_shared(const char *hostport)
{
    return open_socket(hostport, SOCK_DGRAM, 3);
}

int tls_host_tcp_listen(const char *hostport)
{
    return open_socket(hostport, SOCK_STREAM, 2);
}

int tls_host_send(void *ctx, const uint8_t *buf, size_t len)
{
    tls_host_sock *s = ctx;

    while (len > 0) {
        ssize_t n = send(s->fd, buf, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            /* A datagram that the network refuses now (no listener yet) is as good as lost. */
            return errno == ECONNREFUSED ? 0 : -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

const char *tls_host_addr_str(const struct sockaddr_storage *ss, socklen_t len, char *buf, size_t cap)
{
    char host[INET6_ADDRSTRLEN + 2] = "?", port[16] = "?";
    (void)getnameinfo((const struct sockaddr *)ss, len, host, sizeof host, port, sizeof port,
                      NI_NUMERICHOST | NI_NUMERICSERV);
    snprintf(buf, cap, ss->ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
    return buf;
}

socklen_t tls_host_peer(struct sockaddr_storage *ss, socklen_t len)
{
    struct sockaddr_storage clean;

    memset(&clean, 0, sizeof clean);
    clean.ss_family = ss->ss_family;
    if (ss->ss_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        struct sockaddr_in *to = (struct sockaddr_in *)&clean, *from = (struct sockaddr_in *)ss;
        to->sin_port = from->sin_port;
        to->sin_addr = from->sin_addr;
        len = sizeof *to;
    } else if (ss->ss_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        struct sockaddr_in6 *to = (struct sockaddr_in6 *)&clean, *from = (struct sockaddr_in6 *)ss;
        to->sin6_port = from->sin6_port;
        to->sin6_addr = from->sin6_addr;
        to->sin6_scope_id = from->sin6_scope_id; /* a link-local peer is only reachable with it */
        len = sizeof *to;
    } else {
        return len; /* another family: as it came */
    }
    *ss = clean;
    return len;
}

int tls_host_sendto(int fd, const uint8_t *peer, size_t peer_len, const uint8_t *buf, size_t len)
{
    struct sockaddr_storage to;

    if (peer_len > sizeof to)
        return -1;
    memcpy(&to, peer, peer_len);
    while (sendto(fd, buf, len, 0, (const struct sockaddr *)&to, (socklen_t)peer_len) < 0)
        if (errno != EINTR)
            return -1;
    return 0;
}

const char *tls_host_peer_str(const uint8_t *peer, size_t peer_len, char *buf, size_t cap)
{
    struct sockaddr_storage ss;

    memset(&ss, 0, sizeof ss);
    memcpy(&ss, peer, peer_len < sizeof ss ? peer_len : sizeof ss);
    return tls_host_addr_str(&ss, (socklen_t)peer_len, buf, cap);
}

static int handshake_over(se_tls *t, void *arg)
{
    (void)arg;
    return se_tls_get_state(t) != SE_TLS_HANDSHAKING;
}

se_status tls_host_pump(se_tls *t, int fd, uint32_t deadline_ms, int (*done)(se_tls *t, void *arg),
                        void *arg)
{
    static uint8_t buf[65536];

    if (done == NULL)
        done = handshake_over;
    for (;;) {
        uint32_t now = tls_host_now_ms(NULL), wait;
        struct pollfd p = {fd, POLLIN, 0};
        int r;

        if (se_tls_get_state(t) == SE_TLS_FAILED)
            return se_tls_error(t);
        if (done(t, arg))
            return SE_OK;
        if (se_tls_get_state(t) == SE_TLS_CLOSED)
            return SE_ERR_TLS_CLOSED;
        if ((int32_t)(deadline_ms - now) <= 0)
            return SE_ERR_TLS_TIMEOUT;
        wait = deadline_ms - now;
        if (se_tls_timeout_ms(t) < wait)
            wait = se_tls_timeout_ms(t);
        r = poll(&p, 1, (int)wait);
        if (r < 0 && errno != EINTR)
            return SE_ERR_TLS_IO;
        if (r > 0) {
            ssize_t n = recv(fd, buf, sizeof buf, 0);
            if (n == 0)
                return SE_ERR_TLS_CLOSED;
            if (n < 0) {
                if (errno == ECONNREFUSED || errno == EINTR || errno == EAGAIN)
                    continue; /* UDP: nobody there yet; the timer resends */
                return SE_ERR_TLS_IO;
            }
            se_tls_input(t, buf, (size_t)n);
        }
        se_tls_timer(t);
    }
}

void tls_host_close_wait(int fd, int ms)
{
    uint8_t buf[64];
    uint32_t end = tls_host_now_ms(NULL) + (uint32_t)ms;

    for (;;) { /* until a datagram that starts with an alert record (type 21: its header is clear) */
        int32_t left = (int32_t)(end - tls_host_now_ms(NULL));
        struct pollfd p = {fd, POLLIN, 0};
        if (left <= 0 || poll(&p, 1, left) <= 0)
            return;
        ssize_t n = recv(fd, buf, sizeof buf, MSG_TRUNC);
        if (n > 0 && buf[0] == 21)
            return;
    }
}

void tls_host_print_error(const char *prog, const se_tls *t, se_status st)
{
    int alert = se_tls_peer_alert(t) >= 0 ? se_tls_peer_alert(t) : se_tls_sent_alert(t);

    if (alert >= 0)
        fprintf(stderr, "se %s: %s (alert %s)\n", prog, se_status_name(st), se_tls_alert_name(alert));
    else
        fprintf(stderr, "se %s: %s\n", prog, se_status_name(st));
}
