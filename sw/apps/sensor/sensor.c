/* The sensor node: a DTLS 1.2 client (sw/proto, se/tls.h) over the node's NIC that sends readings
 * of a fake sensor to a collector. README.md beside this file describes a run.
 *
 *   boot       HMAC-DRBG seeded from the trng (a SIMULATION MODEL here, not an entropy source);
 *              the backend is fixed at build time (SE_FW_BACKEND: library or engine)
 *   provision  certificates, key, server name, time and run options from the UART (provision.h)
 *   setup      P-256 made ready once on the backend (millions of cycles in software)
 *   handshake  DTLS with the collector; the stack's phase hook becomes the simulator's phase markers
 *              (hello, cert_verify, key_exchange, finished, done); with handshakes = 2 a second
 *              handshake reuses the server certificate cached by the first (cached mode)
 *   app_data   N readings "<cn> seq=<i> temp=<t>C" (or N records of one record_size-byte pattern,
 *              made beforehand), then close_notify
 *
 * The UART gets JSON lines only: one per handshake, one for the data, a last one with the totals,
 * or on failure one with the error and a nonzero exit. Status codes, TLS alerts and suites go out
 * as numbers, which the host's tools name (`se names`, tools/provision.py): the names would be
 * ~2 KiB of the node's ROM. The lines are put together by hand (cat, cat_u below): picolibc's
 * smallest printf is 1.7 KiB of code. */
#include <string.h>

#include "node/node.h"
#include "provision.h"
#include "sensor_io.h"
#include "se/tls.h"
#include "se/x509.h"

#define CYCLES_PER_MS SENSOR_CYCLES_PER_MS
_Static_assert(CYCLES_PER_MS < 65536u, "io_now_ms divides by 16-bit digits");
/* Largest datagram taken from the NIC, the size the stack sends (a longer one is dropped, counted:
 * peers must keep to the same MTU, as the collector's default and s_server -mtu 1200 do). */
#define RX_MAX SE_TLS_MAX_MTU

enum { EXIT_OK = SENSOR_EXIT_OK, EXIT_PROVISION = SENSOR_EXIT_PROVISION, EXIT_SETUP = SENSOR_EXIT_SETUP,
       EXIT_TLS = SENSOR_EXIT_TLS };

static uint8_t prov_buf[SENSOR_PROV_MAX];
static uint8_t rx[RX_MAX] __attribute__((aligned(4)));
static sensor_prov prov;
static se_hmac_drbg_ctx rng;
static se_ec_curve p256;
static se_tls tls;
static se_tls_cert_cache cache;
static uint32_t rx_too_long, data_in;

/* ---- transport: the NIC, the cycle counter as clock ------------------------------------------ */

static int io_send(void *ctx, const uint8_t *buf, size_t len)
{
    (void)ctx;
    return nic_send(buf, len) == len ? 0 : -1;
}

/* Milliseconds since boot at the nominal clock (modulo 2^32): the 64-bit cycle count divided by
 * CYCLES_PER_MS (below 2^16) a 16-bit digit at a time, so each step is a 32-bit division (a 64-bit
 * one would link 1 KiB of libgcc). */
static uint32_t io_now_ms(void *ctx)
{
    const uint64_t c = node_cycles();
    const uint32_t hi = (uint32_t)(c >> 32), lo = (uint32_t)c;
    const uint32_t digit[4] = {hi >> 16, hi & 0xffffu, lo >> 16, lo & 0xffffu};
    uint32_t q = 0, r = 0;
    (void)ctx;
    for (unsigned i = 0; i < 4; i++) {
        uint32_t cur = r << 16 | digit[i]; /* r < CYCLES_PER_MS < 2^16: no overflow */
        q = q << 16 | cur / CYCLES_PER_MS;
        r = cur % CYCLES_PER_MS;
    }
    return q;
}

static void io_data(void *ctx, const uint8_t *buf, size_t len)
{
    (void)ctx, (void)buf;
    data_in += (uint32_t)len;
}

/* The stack names its phases with string literals (in ROM): they go straight to the simulator. */
static void io_phase(void *ctx, const char *name)
{
    (void)ctx;
    node_marker(name);
}

/* ---- the run ------------------------------------------------------------------------------- */

/* The failure line, then the exit (sensor_fail), with the alerts sent and received where the
 * connection had begun (alerts). */
static _Noreturn void fail(int code, const char *where, const char *reason, se_status st, int alerts)
{
    sensor_fail(code, where, reason, (int)st, alerts ? se_tls_sent_alert(&tls) : -1,
                alerts ? se_tls_peer_alert(&tls) : -1);
}

/* One DTLS handshake: until ESTABLISHED, feeding datagrams and running the retransmission timer,
 * asleep in between. */
static se_status handshake(const se_tls_config *cfg, const se_tls_io *io)
{
    se_status st = se_tls_init(&tls, cfg, io);
    if (st != SE_OK) /* refused before anything was sent (a suite this build left out): no alerts */
        fail(EXIT_TLS, "dtls set-up", NULL, st, 0);
    st = se_tls_start(&tls);
    while (st == SE_OK && se_tls_get_state(&tls) == SE_TLS_HANDSHAKING) {
        size_t n = nic_recv(rx, sizeof rx);
        if (n > sizeof rx)
            rx_too_long++;
        else if (n > 0)
            st = se_tls_input(&tls, rx, n);
        else if (se_tls_timeout_ms(&tls) == 0)
            st = se_tls_timer(&tls);
        else
            sensor_wait_rx(se_tls_timeout_ms(&tls));
    }
    if (st == SE_OK && se_tls_get_state(&tls) != SE_TLS_ESTABLISHED)
        st = se_tls_error(&tls) != SE_OK ? se_tls_error(&tls) : SE_ERR_TLS_STATE;
    return st;
}

/* A fake sensor: a deterministic temperature in tenths of a degree around 21.5 C. */
/* Records of record_size bytes (the bench's cycles per byte): one byte pattern, made before the
 * app_data phase so the phase counts the channel's work alone. rx is idle once established. */
static size_t pattern(void)
{
    size_t len = prov.record_size < sizeof rx ? prov.record_size : sizeof rx;
    for (size_t j = 0; j < len; j++)
        rx[j] = (uint8_t)j;
    return len;
}

/* Sends the readings (text) or records of pattern bytes. */
static se_status send_data(size_t len)
{
    se_status st = SE_OK;
    for (unsigned i = 1; st == SE_OK && i <= prov.readings; i++) {
        if (prov.record_size == 0) {
            char line[80];
            st = se_tls_write(&tls, (const uint8_t *)line, sensor_reading(line, i));
        } else {
            st = se_tls_write(&tls, rx, len);
        }
    }
    return st;
}

/* The node's name is its certificate's commonName (a function of its own: se_x509 is large):
 * printable ASCII without '"' or '\\', as it goes into a JSON string unescaped. */
static __attribute__((noinline)) int name_from_cert(void)
{
    se_x509 me;
    return se_x509_parse(&me, prov.cert, prov.cert_len) == SE_OK && sensor_set_name(me.cn, me.cn_len);
}

int main(void)
{
    const se_backend *be = SE_FW_BACKEND_TLS;

    node_marker("provision");
    const char *why = sensor_provision(&prov, prov_buf);
    if (why)
        fail(EXIT_PROVISION, "provisioning", why, SE_OK, 0);
    if (!name_from_cert())
        fail(EXIT_PROVISION, "provisioning", "bad node certificate", SE_OK, 0);

    /* The DRBG: 32 bytes of entropy and a 16-byte nonce from the trng model. */
    node_marker("setup");
    uint8_t seed[48];
    for (size_t i = 0; i < sizeof seed; i += 4) {
        uint32_t w = node_trng32();
        memcpy(seed + i, &w, 4);
    }
    se_status st = se_hmac_drbg_instantiate_on(&rng, SE_FW_BACKEND_TLS->sha, seed, 32, seed + 32, 16,
                                               (const uint8_t *)"sensor", 6);
    memset(seed, 0, sizeof seed);
    if (st == SE_OK && be->probe)
        st = be->probe();
    if (st == SE_OK)
        st = node_p256(&p256);
    node_marker(NULL);
    if (st != SE_OK)
        fail(EXIT_SETUP, "setup", NULL, st, 0);

    const uint8_t *anchors[1] = {prov.ca}, *chain[1] = {prov.cert};
    size_t anchor_len[1] = {prov.ca_len}, chain_len[1] = {prov.cert_len};
    se_tls_config cfg = {
        .transport = SE_TLS_DATAGRAM, .role = SE_TLS_CLIENT, .crypto = be, .rng = &rng, .p256 = &p256,
        .suites = &prov.suite, .n_suites = 1,
        .chain = chain, .chain_len = chain_len, .chain_n = 1, .key = prov.key,
        .anchors = anchors, .anchor_len = anchor_len, .n_anchors = 1,
        .server_name = prov.server_name[0] ? prov.server_name : NULL,
        .now = prov.now, .cache = &cache, .mtu = prov.mtu, .retransmit_ms = prov.retransmit_ms,
    };
#ifndef SE_TLS_NO_CID
    cfg.cid = prov.cid;
#else
    if (prov.cid) /* a build without connection IDs (the Makefile's NODE_TLS_FLAGS_rv32imc) */
        fail(EXIT_TLS, "dtls set-up", NULL, SE_ERR_NOT_SUPPORTED, 0);
#endif
    se_tls_io io = {.send = io_send, .now_ms = io_now_ms, .on_data = io_data, .phase = io_phase};

    for (unsigned h = 1; h <= prov.handshakes; h++) {
        uint64_t t0 = node_cycles();
        st = handshake(&cfg, &io);
        if (st != SE_OK)
            fail(EXIT_TLS, "dtls", NULL, st, 1);
        uint32_t cycles = (uint32_t)(node_cycles() - t0);
        sensor_line_handshake(h, se_tls_used_cache(&tls), se_tls_suite(&tls), cycles);
        if (h == prov.handshakes) {
            size_t len = prov.record_size ? pattern() : 0;
            node_marker("app_data");
            uint64_t t2 = node_cycles();
            st = send_data(len);
            cycles = (uint32_t)(node_cycles() - t2);
            node_marker(NULL);
            if (st != SE_OK)
                fail(EXIT_TLS, "dtls", NULL, st, 1);
            sensor_line_app_data(se_tls_get_stats(&tls)->app_bytes_out, prov.readings, cycles);
        }
        node_marker("close");
        st = se_tls_close(&tls);
        node_marker(NULL);
        if (st != SE_OK)
            fail(EXIT_TLS, "dtls", NULL, st, 1);
    }
    const se_tls_stats *s = se_tls_get_stats(&tls);
    sensor_line_done(prov.readings, s->retransmits,
                     s->dropped_bad_mac + s->dropped_replay + s->dropped_malformed + rx_too_long, s->dropped_bad_mac,
                     data_in);
    return EXIT_OK;
}
