/* Records the TLS/DTLS fuzzers' seeds: a client and a server with the fuzzers' setup (fuzz_tls.h)
 * run each variant's handshake in memory (DTLS with the stateless cookie exchange in front of
 * the server); what the server received becomes a seed of fuzz_{tls,dtls}_server, what the client
 * received one of fuzz_{tls,dtls}_client. Usage: tls_seeds CORPUS_DIR (tests/fuzz/make_seeds.py
 * --tls runs it). Prints each variant's outcome. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_tls.h"

#define QMAX 64
typedef struct {
    uint8_t msg[QMAX][SE_TLS_MAX_MTU];
    size_t len[QMAX];
    size_t head, tail;
} queue;

static queue c2s, s2c;
static fz_end cli_end, srv_end;
static se_tls cli, srv;
static uint8_t log_c[65536], log_s[65536];
static size_t log_c_len, log_s_len;

static int on_send(void *ctx, const uint8_t *buf, size_t len)
{
    queue *q = ctx == &cli_end ? &c2s : &s2c;
    if (q->tail == QMAX || len > SE_TLS_MAX_MTU)
        return 1;
    memcpy(q->msg[q->tail], buf, len);
    q->len[q->tail++] = len;
    return 0;
}

static void log_chunk(uint8_t *log, size_t *log_len, const uint8_t *b, size_t n)
{
    if (*log_len + 2 + n > sizeof log_c)
        exit(1);
    log[(*log_len)++] = (uint8_t)(n >> 8);
    log[(*log_len)++] = (uint8_t)n;
    memcpy(log + *log_len, b, n);
    *log_len += n;
}

static void save(const char *dir, const char *name, const uint8_t *b, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(b, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

static int run(const char *corpus, se_tls_transport tr, uint8_t v)
{
    static const uint8_t key[32] = {0x42}, peer[] = "192.0.2.1:5684";
    int dtls = tr == SE_TLS_DATAGRAM, server_up = !dtls;
    memset(&c2s, 0, sizeof c2s);
    memset(&s2c, 0, sizeof s2c);
    log_c[0] = log_s[0] = v;
    log_c_len = log_s_len = 1;
    if (fz_setup(&cli_end, SE_TLS_CLIENT, tr, v, on_send) != SE_OK ||
        fz_setup(&srv_end, SE_TLS_SERVER, tr, v, on_send) != SE_OK ||
        se_tls_init(&cli, &cli_end.cfg, &cli_end.io) != SE_OK ||
        se_tls_init(&srv, &srv_end.cfg, &srv_end.io) != SE_OK || se_tls_start(&cli) != SE_OK)
        return 1;
    for (int moved = 1; moved;) {
        moved = 0;
        while (c2s.head < c2s.tail) {
            const uint8_t *m = c2s.msg[c2s.head];
            size_t n = c2s.len[c2s.head++];
            moved = 1;
            if (!server_up) {
                uint8_t hvr[SE_TLS_MAX_MTU];
                size_t hvr_len;
                se_status st = se_dtls_cookie_check(&se_backend_sw, key, peer, sizeof peer - 1, m,
                                                     n, hvr, sizeof hvr, &hvr_len);
                if (st == SE_ERR_TLS_UNEXPECTED) {
                    on_send(&srv_end, hvr, hvr_len);
                    continue;
                }
                if (st != SE_OK)
                    continue;
                server_up = 1;
            }
            log_chunk(log_s, &log_s_len, m, n);
            (void)se_tls_input(&srv, m, n);
            fz_after_input(&srv_end, &srv);
        }
        while (s2c.head < s2c.tail) {
            const uint8_t *m = s2c.msg[s2c.head];
            size_t n = s2c.len[s2c.head++];
            moved = 1;
            log_chunk(log_c, &log_c_len, m, n);
            (void)se_tls_input(&cli, m, n);
            fz_after_input(&cli_end, &cli);
        }
    }
    const char *t = dtls ? "dtls" : "tls";
    printf("%s variant %u: client %d (%s), server %d (%s)\n", t, v, (int)se_tls_get_state(&cli),
           se_status_name(se_tls_error(&cli)), (int)se_tls_get_state(&srv),
           se_status_name(se_tls_error(&srv)));
    char dir[400], name[32];
    snprintf(name, sizeof name, "v%02u", v);
    snprintf(dir, sizeof dir, "%s/%s_server", corpus, t);
    save(dir, name, log_s, log_s_len);
    snprintf(dir, sizeof dir, "%s/%s_client", corpus, t);
    save(dir, name, log_c, log_c_len);
    return 0;
}

int main(int argc, char **argv)
{
    static const uint8_t variants[] = {0, 1, 2, 3, 4, 8, 16, 20};
    if (argc != 2) {
        fprintf(stderr, "usage: tls_seeds CORPUS_DIR\n");
        return 2;
    }
    for (int tr = 0; tr < 2; tr++)
        for (size_t i = 0; i < sizeof variants; i++)
            if (run(argv[1], tr ? SE_TLS_DATAGRAM : SE_TLS_STREAM, variants[i]) != 0)
                return 1;
    return 0;
}
