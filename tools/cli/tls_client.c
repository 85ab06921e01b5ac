/* `se client`: a DTLS (UDP) or TLS (TCP) client over sw/proto. Connects, prints the suite and
 * the server's name, sends each --message (or stdin line) as one record, optionally waits for
 * a reply to each, closes with close_notify. --handshakes N repeats the whole connection (with
 * --cache, the server's certificate is verified once and then recognised). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "se/ct.h"
#include "tls_host.h"

#define MAX_MESSAGES 64

static void usage(FILE *f)
{
    fprintf(f, "usage: se [--backend B] client --connect HOST:PORT [options]\n"
               "  --name NAME          check the server's certificate name\n"
               "  --message TEXT       send one record (repeatable)\n"
               "  --stdin              send each line of stdin as one record\n"
               "  --expect-reply       after each record wait for one back and print it\n"
               "  --handshakes N       N connections in sequence (default 1)\n"
               "  --cache              cached-certificate mode across those connections\n"
               "  --cache-file FILE    the same, the cache kept in FILE across runs (read if present,\n"
               "                       written after a successful handshake)\n"
               "%s", tls_host_opts_help);
}

/* --cache-file: the se_tls_cert_cache as it is in memory (valid, fingerprint, key, the name it
 * was checked for, commonName, validity period); a missing file is an empty cache, a file of
 * another size (an older layout among them) an error. */
static int load_cache(const char *path, se_tls_cert_cache *cache)
{
    FILE *f = fopen(path, "rb");
    int ok;

    if (f == NULL)
        return 0;
    ok = fread(cache, 1, sizeof *cache, f) == sizeof *cache && fgetc(f) == EOF && cache->valid <= 1;
    fclose(f);
    if (!ok) {
        memset(cache, 0, sizeof *cache);
        fprintf(stderr, "se client: %s: not a certificate cache\n", path);
        return -1;
    }
    return 0;
}

static int save_cache(const char *path, const se_tls_cert_cache *cache)
{
    FILE *f = fopen(path, "wb");
    int ok = f != NULL && fwrite(cache, 1, sizeof *cache, f) == sizeof *cache;

    if (f != NULL && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, "se client: cannot write %s\n", path);
    return ok ? 0 : -1;
}

/* The connection's I/O context: the socket first, then our counters. */
typedef struct {
    tls_host_sock sock;
    unsigned received;
    int verbose;
} conn_ctx;

static void conn_data(void *ctx, const uint8_t *buf, size_t len)
{
    conn_ctx *c = ctx;
    c->received++;
    printf("received: %.*s\n", (int)len, (const char *)buf);
    fflush(stdout);
}

static void conn_phase(void *ctx, const char *name)
{
    conn_ctx *c = ctx;
    if (c->verbose)
        fprintf(stderr, "phase: %s\n", name);
}

static int got_reply(se_tls *t, void *arg)
{
    (void)t;
    return ((conn_ctx *)arg)->received > 0;
}

static int send_line(se_tls *t, conn_ctx *c, int fd, const char *msg, int expect, uint32_t deadline)
{
    se_status st = se_tls_write(t, (const uint8_t *)msg, strlen(msg));
    if (st == SE_OK && expect) {
        c->received = 0;
        st = tls_host_pump(t, fd, deadline, got_reply, c);
    }
    if (st != SE_OK) {
        tls_host_print_error("client", t, st);
        return -1;
    }
    return 0;
}

int cli_client_main(int argc, char **argv)
{
    tls_host_opts o;
    tls_host_identity *id = malloc(sizeof *id);
    se_tls *t = malloc(sizeof *t);
    const char *connect_to = NULL, *name = NULL, *messages[MAX_MESSAGES];
    size_t n_messages = 0;
    int use_stdin = 0, expect = 0, cache_on = 0, rc = 0;
    const char *cache_file = NULL;
    unsigned handshakes = 1;
    se_tls_cert_cache cache;
    se_ec_curve p256;
    se_hmac_drbg_ctx rng;

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
        } else if (strcmp(a, "--stdin") == 0) {
            use_stdin = 1;
        } else if (strcmp(a, "--expect-reply") == 0) {
            expect = 1;
        } else if (strcmp(a, "--cache") == 0) {
            cache_on = 1;
        } else if (i + 1 < argc && strcmp(a, "--cache-file") == 0) {
            cache_file = argv[++i];
            cache_on = 1;
        } else if (i + 1 < argc && strcmp(a, "--connect") == 0) {
            connect_to = argv[++i];
        } else if (i + 1 < argc && strcmp(a, "--name") == 0) {
            name = argv[++i];
        } else if (i + 1 < argc && strcmp(a, "--message") == 0) {
            if (n_messages == MAX_MESSAGES) {
                fprintf(stderr, "se client: at most %d --message\n", MAX_MESSAGES);
                return 2;
            }
            messages[n_messages++] = argv[++i];
        } else if (i + 1 < argc && strcmp(a, "--handshakes") == 0) {
            handshakes = (unsigned)atoi(argv[++i]);
            if (handshakes < 1 || handshakes > 1000) {
                fprintf(stderr, "se client: --handshakes: 1..1000\n");
                return 2;
            }
        } else {
            fprintf(stderr, "se client: unknown option or missing value: '%s'\n", a);
            usage(stderr);
            return 2;
        }
        i++;
    }
    if (connect_to == NULL) {
        fprintf(stderr, "se client: --connect HOST:PORT is required\n");
        return 2;
    }
    if (tls_host_identity_load(id, o.cert, o.key, o.ca) != 0)
        return 1;
    if (tls_host_curve(&p256) != SE_OK || tls_host_rng(&rng) != SE_OK) {
        fprintf(stderr, "se client: cannot set up the curve or the DRBG\n");
        return 1;
    }
    memset(&cache, 0, sizeof cache);
    if (cache_file != NULL && load_cache(cache_file, &cache) != 0)
        return 1;
    uint32_t deadline = tls_host_now_ms(NULL) + (uint32_t)(o.timeout * 1000);

    for (unsigned h = 0; h < handshakes && rc == 0; h++) {
        se_tls_config cfg;
        conn_ctx c = {{-1}, 0, o.verbose};
        se_tls_io io = {.send = tls_host_send, .now_ms = tls_host_now_ms, .on_data = conn_data, .phase = conn_phase,
                        .keylog = tls_host_keylog(), .ctx = &c};
        char peer[64];
        se_status st;

        tls_host_config(&cfg, &o, id, SE_TLS_CLIENT, &p256, &rng);
        cfg.server_name = name;
        cfg.cache = cache_on ? &cache : NULL;
        c.sock.fd = tls_host_connect(connect_to, o.tls);
        if (c.sock.fd < 0)
            return 1;
        st = se_tls_init(t, &cfg, &io);
        if (st == SE_OK)
            st = se_tls_start(t);
        if (st == SE_OK)
            st = tls_host_pump(t, c.sock.fd, deadline, NULL, NULL);
        if (st != SE_OK) {
            tls_host_print_error("client", t, st);
            if (o.tls)
                tls_host_tcp_close(c.sock.fd); /* our alert first, not a reset */
            else
                close(c.sock.fd);
            rc = 1;
            break;
        }
        se_tls_peer_name(t, peer, sizeof peer);
        printf("suite: %s\npeer: %s\n", se_tls_suite_name(se_tls_suite(t)), peer[0] ? peer : "?");
        if (cache_on)
            printf("cached: %s\n", se_tls_used_cache(t) ? "yes" : "no");
        if (cache_file != NULL && save_cache(cache_file, &cache) != 0)
            rc = 1;
        fflush(stdout);
        for (size_t m = 0; m < n_messages && rc == 0; m++)
            rc = send_line(t, &c, c.sock.fd, messages[m], expect, deadline) ? 1 : 0;
        if (use_stdin && rc == 0) {
            char *line = NULL;
            size_t cap = 0;
            ssize_t n;
            while (rc == 0 && (n = getline(&line, &cap, stdin)) > 0) {
                while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
                    line[--n] = 0;
                rc = send_line(t, &c, c.sock.fd, line, expect, deadline) ? 1 : 0;
            }
            free(line);
        }
        if (rc == 0) {
            se_tls_close(t);
            if (!o.tls) /* the server's close_notify, so it does not meet a closed port */
                tls_host_close_wait(c.sock.fd, TLS_HOST_CLOSE_WAIT_MS);
        }
        if (o.verbose) {
            const se_tls_stats *s = se_tls_get_stats(t);
            fprintf(stderr, "stats: records_in=%u records_out=%u dropped_bad_mac=%u dropped_replay=%u "
                            "dropped_malformed=%u retransmits=%u\n",
                    (unsigned)s->records_in, (unsigned)s->records_out, (unsigned)s->dropped_bad_mac,
                    (unsigned)s->dropped_replay, (unsigned)s->dropped_malformed, (unsigned)s->retransmits);
        }
        close(c.sock.fd);
    }
    se_ct_wipe(id, sizeof *id); /* the private key */
    se_ct_wipe(t, sizeof *t);
    free(id);
    free(t);
    return rc;
}
