/* Records the TLS/DTLS fuzzers' seeds: a client and a server with the fuzzers' setup (fuzz_tls.h)
 * run each variant's handshake in memory (the DTLS server is se/dtls_server.h's, as
 * fuzz_dtls_server runs it, with its stateless cookie exchange); what the server received (DTLS:
 * from the ClientHello that got a slot on) becomes a seed of fuzz_{tls,dtls}_server, what the
 * client received one of fuzz_{tls,dtls}_client. One more seed of fuzz_dtls_server, "peers", has
 * clients on several addresses (run_peers). Usage: tls_seeds CORPUS_DIR (tests/fuzz/make_seeds.py
 * --tls runs it). Prints each variant's outcome. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_tls.h"

#define QMAX 64
typedef struct {
    uint8_t msg[QMAX][SE_TLS_MAX_MTU];
    size_t len[QMAX];
    unsigned who[QMAX];               /* run_peers: the client that sent it */
    size_t head, tail;
} queue;

static queue c2s, s2c;
static fz_end cli_end, srv_end;
static se_tls cli, srv;             /* srv: TLS; DTLS runs in dsrv's slot */
static se_dtls_server dsrv;
static se_dtls_peer slots[FZ_DTLS_SLOTS];
static se_tls_state ended_state; /* DTLS: the state the slot's connection ended in (wiped after) */
static se_status ended_err;
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

static int on_send_to(void *ctx, const uint8_t *peer, size_t peer_len, const uint8_t *buf, size_t len)
{
    (void)peer, (void)peer_len;
    return on_send(ctx, buf, len);
}

static void on_event(void *ctx, se_dtls_peer *p, se_dtls_event ev)
{
    (void)ctx;
    fz_dtls_event(p, ev);
    if (ev != SE_DTLS_OPEN && ev != SE_DTLS_CONNECTED) {
        ended_state = se_tls_get_state(se_dtls_peer_tls(p));
        ended_err = se_tls_error(se_dtls_peer_tls(p));
    }
}

/* One chunk of a seed; who: fuzz_dtls_server's peer address (the two top bits of the length). */
static void log_chunk(uint8_t *log, size_t *log_len, const uint8_t *b, size_t n, unsigned who)
{
    if (*log_len + 2 + n > sizeof log_c || n >> 14)
        exit(1);
    log[(*log_len)++] = (uint8_t)(who << 6 | n >> 8);
    log[(*log_len)++] = (uint8_t)n;
    if (n > 0)
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
    static const se_dtls_server_io dio = {on_send_to, fz_now_ms, on_event, NULL, NULL, &srv_end, NULL};
    se_dtls_server_config dcfg = {.tls = &srv_end.cfg, .cookie_key = fz_cookie_key(), .idle_ms = FZ_DTLS_IDLE_MS};
    const char *peer = fz_dtls_peer(0);
    int dtls = tr == SE_TLS_DATAGRAM, server_up = !dtls;
    se_tls *server = dtls ? se_dtls_peer_tls(&slots[0]) : &srv;
    memset(&c2s, 0, sizeof c2s);
    memset(&s2c, 0, sizeof s2c);
    log_c[0] = log_s[0] = v;
    log_c_len = log_s_len = 1;
    if (fz_setup(&cli_end, SE_TLS_CLIENT, tr, v, on_send) != SE_OK ||
        fz_setup(&srv_end, SE_TLS_SERVER, tr, v, on_send) != SE_OK ||
        se_tls_init(&cli, &cli_end.cfg, &cli_end.io) != SE_OK ||
        (dtls ? se_dtls_server_init(&dsrv, &dcfg, &dio, slots, FZ_DTLS_SLOTS)
              : se_tls_init(&srv, &srv_end.cfg, &srv_end.io)) != SE_OK ||
        se_tls_start(&cli) != SE_OK)
        return 1;
    for (int moved = 1; moved;) {
        moved = 0;
        while (c2s.head < c2s.tail) {
            const uint8_t *m = c2s.msg[c2s.head];
            size_t n = c2s.len[c2s.head++];
            moved = 1;
            if (dtls) { /* HelloVerifyRequests until the ClientHello with the cookie gets a slot */
                se_dtls_kind k = se_dtls_server_input(&dsrv, (const uint8_t *)peer, strlen(peer), m, n, NULL);
                server_up |= k == SE_DTLS_NEW_PEER;
                if (!server_up)
                    continue;
            } else {
                (void)se_tls_input(&srv, m, n);
                fz_after_input(&srv_end, &srv);
            }
            log_chunk(log_s, &log_s_len, m, n, 0);
        }
        while (s2c.head < s2c.tail) {
            const uint8_t *m = s2c.msg[s2c.head];
            size_t n = s2c.len[s2c.head++];
            moved = 1;
            log_chunk(log_c, &log_c_len, m, n, 0);
            (void)se_tls_input(&cli, m, n);
            fz_after_input(&cli_end, &cli);
        }
    }
    const char *t = dtls ? "dtls" : "tls";
    int server_state = (int)se_tls_get_state(server);
    se_status server_err = se_tls_error(server);
    if (dtls && !se_dtls_server_live(&dsrv)) {
        server_state = (int)ended_state;
        server_err = ended_err;
    }
    printf("%s variant %u: client %d (%s), server %d (%s)\n", t, v, (int)se_tls_get_state(&cli),
           se_status_name(se_tls_error(&cli)), server_state, se_status_name(server_err));
    char dir[400], name[32];
    snprintf(name, sizeof name, "v%02u", v);
    snprintf(dir, sizeof dir, "%s/%s_server", corpus, t);
    save(dir, name, log_s, log_s_len);
    snprintf(dir, sizeof dir, "%s/%s_client", corpus, t);
    save(dir, name, log_c, log_c_len);
    return 0;
}

/* ---- fuzz_dtls_server's seed with several peers ----------------------------------------- */
/* Variant 0 (no client authentication: cheap handshakes) against the harness's server
 * (FZ_DTLS_SLOTS slots): A (address 0) and B (address 1) connect; C (address 2) passes the cookie
 * exchange and finds every slot taken; A restarts from address 0 as A2 (another client random),
 * which replaces A's connection; then the clock runs past the idle timeout (empty chunks). */
enum { PEERS_A, PEERS_B, PEERS_C, PEERS_A2, PEERS_N };
static const unsigned peers_addr[PEERS_N] = {0, 1, 2, 0};
static fz_end pc_end[PEERS_N];
static se_tls pc[PEERS_N];
static queue up, down[PEERS_N];
static unsigned on_addr[4]; /* the client the server's datagrams to an address go to */

static int peers_send(void *ctx, const uint8_t *buf, size_t len)
{
    if (up.tail == QMAX || len > SE_TLS_MAX_MTU)
        return 1;
    memcpy(up.msg[up.tail], buf, len);
    up.len[up.tail] = len;
    up.who[up.tail++] = (unsigned)((fz_end *)ctx - pc_end);
    return 0;
}

static int peers_send_to(void *ctx, const uint8_t *peer, size_t peer_len, const uint8_t *buf, size_t len)
{
    queue *q = NULL;
    (void)ctx;
    for (unsigned a = 0; a < 4; a++)
        if (strlen(fz_dtls_peer(a)) == peer_len && memcmp(fz_dtls_peer(a), peer, peer_len) == 0)
            q = &down[on_addr[a]];
    if (q == NULL || q->tail == QMAX || len > SE_TLS_MAX_MTU)
        return 1;
    memcpy(q->msg[q->tail], buf, len);
    q->len[q->tail++] = len;
    return 0;
}

static const char *const kind_names[] = {"peer", "new_peer", "hello_verify", "bad_cookie", "peers_full",
                                         "malformed", "unknown_peer", "oversized", "start_failed"};

/* Runs client i until nothing moves; every datagram the server gets is logged with its address. */
static void peers_pump(unsigned i)
{
    on_addr[peers_addr[i]] = i;
    if (se_tls_start(&pc[i]) != SE_OK)
        exit(1);
    for (int moved = 1; moved;) {
        moved = 0;
        while (up.head < up.tail) {
            size_t k = up.head++;
            const char *peer = fz_dtls_peer(peers_addr[up.who[k]]);
            se_dtls_kind kind = se_dtls_server_input(&dsrv, (const uint8_t *)peer, strlen(peer),
                                                     up.msg[k], up.len[k], NULL);
            printf(" %s", kind_names[kind]);
            log_chunk(log_s, &log_s_len, up.msg[k], up.len[k], peers_addr[up.who[k]]);
            moved = 1;
        }
        for (unsigned c = 0; c < PEERS_N; c++)
            while (down[c].head < down[c].tail) {
                size_t k = down[c].head++;
                (void)se_tls_input(&pc[c], down[c].msg[k], down[c].len[k]);
                fz_after_input(&pc_end[c], &pc[c]);
                moved = 1;
            }
    }
}

static int run_peers(const char *corpus)
{
    static const se_dtls_server_io dio = {peers_send_to, fz_now_ms, on_event, NULL, NULL, &srv_end, NULL};
    se_dtls_server_config dcfg = {.tls = &srv_end.cfg, .cookie_key = fz_cookie_key(), .idle_ms = FZ_DTLS_IDLE_MS};
    se_dtls_server_stats n;
    char dir[400];

    memset(&up, 0, sizeof up);
    memset(down, 0, sizeof down);
    log_s[0] = 0;
    log_s_len = 1;
    if (fz_setup(&srv_end, SE_TLS_SERVER, SE_TLS_DATAGRAM, 0, on_send) != SE_OK ||
        se_dtls_server_init(&dsrv, &dcfg, &dio, slots, FZ_DTLS_SLOTS) != SE_OK)
        return 1;
    for (unsigned i = 0; i < PEERS_N; i++) {
        uint8_t who[32] = {(uint8_t)i};
        if (fz_setup(&pc_end[i], SE_TLS_CLIENT, SE_TLS_DATAGRAM, 0, peers_send) != SE_OK ||
            se_hmac_drbg_reseed(&pc_end[i].rng, who, sizeof who, NULL, 0) != SE_OK || /* its own random */
            se_tls_init(&pc[i], &pc_end[i].cfg, &pc_end[i].io) != SE_OK)
            return 1;
    }
    printf("dtls peers:");
    for (unsigned i = 0; i < PEERS_N; i++)
        peers_pump(i);
    for (int k = 0; k < 5; k++) /* 7.5 s: past the idle timeout */
        log_chunk(log_s, &log_s_len, NULL, 0, 0);
    se_dtls_server_get_stats(&dsrv, &n);
    printf("\n  connections %llu, replaced %llu, peers_full %llu, live %zu\n", (unsigned long long)n.connections,
           (unsigned long long)n.replaced, (unsigned long long)n.peers_full, se_dtls_server_live(&dsrv));
    if (n.connections != 3 || n.replaced != 1 || n.peers_full != 1)
        return 1;
    snprintf(dir, sizeof dir, "%s/dtls_server", corpus);
    save(dir, "peers", log_s, log_s_len);
    return 0;
}

int main(int argc, char **argv)
{
    static const uint8_t variants[] = {0, 1, 2, 3, 4, 8, 16, 20, 24, 25, 26}; /* 24..26: DTLS with CIDs */
    if (argc != 2) {
        fprintf(stderr, "usage: tls_seeds CORPUS_DIR\n");
        return 2;
    }
    for (int tr = 0; tr < 2; tr++)
        for (size_t i = 0; i < sizeof variants; i++)
            if (run(argv[1], tr ? SE_TLS_DATAGRAM : SE_TLS_STREAM, variants[i]) != 0)
                return 1;
    return run_peers(argv[1]);
}
