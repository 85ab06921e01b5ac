/* libFuzzer: the DTLS server front end (se/dtls_server.h) with two slots, fed arbitrary datagrams
 * from four peer addresses: the stateless cookie check, the sorting of datagrams, slots taken,
 * refused (peers_full), replaced, idled out, and the connections behind them (se/tls.h).
 * Input: a variant byte (fuzz_tls.h: suites, client authentication), then chunks as fuzz_util.h
 * frames them, except that the two top bits of a chunk's length pick the peer address
 * (fz_dtls_peer) and the other 14 bits are the length: each chunk is one se_dtls_server_input
 * call; an empty chunk from address 0 advances the clock by 1.5 s and runs se_dtls_server_timer
 * (retransmissions, idle timeouts after 6 s without progress). Seeds (tls_seeds.c): recorded
 * handshakes from address 0 that replay to ESTABLISHED, and one with clients on three addresses
 * (slots full, a restart replacing a connection, the idle timeout). Cookies are HMACs, so only
 * the recorded ClientHellos get slots. */
#include "fuzz_tls.h"

static se_dtls_peer slots[FZ_DTLS_SLOTS];
static se_dtls_server srv;
static fz_end end;
static unsigned connected;

static int fz_send_to(void *ctx, const uint8_t *peer, size_t peer_len, const uint8_t *buf, size_t len)
{
    (void)ctx, (void)peer, (void)peer_len, (void)buf, (void)len;
    return 0;
}

static void fz_event(void *ctx, se_dtls_peer *p, se_dtls_event ev)
{
    se_tls *t = se_dtls_peer_tls(p);
    size_t len;
    (void)ctx;
    (void)se_dtls_peer_addr(p, &len);
    (void)se_dtls_peer_index(p);
    fz_dtls_event(p, ev); /* once established, one application record */
    if (ev == SE_DTLS_CONNECTED) {
        connected++;
    } else if (ev != SE_DTLS_OPEN) { /* the slot's last event: the accessors, whatever its state */
        fz_accessors(t);
        (void)se_dtls_peer_established(p);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const se_dtls_server_io io = {fz_send_to, fz_now_ms, fz_event, NULL, NULL, &end, NULL};
    se_dtls_server_config sc = {.tls = &end.cfg, .cookie_key = fz_cookie_key(), .idle_ms = FZ_DTLS_IDLE_MS};
    const uint8_t *p;
    size_t left;

    if (size < 1 || fz_setup(&end, SE_TLS_SERVER, SE_TLS_DATAGRAM, data[0], fz_discard) != SE_OK ||
        se_dtls_server_init(&srv, &sc, &io, slots, FZ_DTLS_SLOTS) != SE_OK)
        return 0;
    connected = 0;
    for (p = data + 1, left = size - 1; left >= 2;) {
        unsigned who = p[0] >> 6;
        size_t n = (size_t)(p[0] & 0x3f) << 8 | p[1];
        se_status why;
        p += 2;
        left -= 2;
        n = n < left ? n : left;
        if (n == 0 && who == 0) {
            end.clock += 1500;
            (void)se_dtls_server_timer(&srv);
        } else {
            const char *peer = fz_dtls_peer(who);
            se_dtls_kind k = se_dtls_server_input(&srv, (const uint8_t *)peer, strlen(peer), p, n, &why);
            (void)se_dtls_kind_name(k);
            (void)se_status_name(why);
        }
        p += n;
        left -= n;
    }
    se_dtls_server_stats st;
    se_dtls_server_get_stats(&srv, &st);
    (void)se_dtls_server_live(&srv);
#ifdef FZ_DEBUG /* replay check: how far did the input get? */
    fprintf(stderr, "fz: connected %u, live %zu, datagrams %llu\n", connected, se_dtls_server_live(&srv),
            (unsigned long long)st.datagrams_in);
#endif
    se_dtls_server_shutdown(&srv);
    se_dtls_server_wipe(&srv);
    return 0;
}
