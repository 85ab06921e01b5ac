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
#include "se/tls.h"
#include "se/x509.h"

/* The node's nominal clock: turns cycles into the milliseconds of the DTLS timers. */
#define SENSOR_CLOCK_HZ 50000000u
#define CYCLES_PER_MS (SENSOR_CLOCK_HZ / 1000u)
_Static_assert(CYCLES_PER_MS < 65536u, "io_now_ms divides by 16-bit digits");
/* Largest datagram taken from the NIC, the size the stack sends (a longer one is dropped, counted:
 * peers must keep to the same MTU, as the collector's default and s_server -mtu 1200 do). */
#define RX_MAX SE_TLS_MAX_MTU

/* Exit codes. */
enum { EXIT_OK = 0, EXIT_PROVISION = 1, EXIT_SETUP = 2, EXIT_TLS = 3 };

#define BIT(n) (1u << (n))
#define SYSCTL(r) NODE_REG(SE_MAP_SYSCTL_BASE, SE_SYSCTL_##r)
#define INTC(r) NODE_REG(SE_MAP_INTC_BASE, SE_INTC_##r)
#define NIC(r) NODE_REG(SE_MAP_NIC_BASE, SE_NIC_##r)

static uint8_t prov_buf[SENSOR_PROV_MAX];
static uint8_t rx[RX_MAX] __attribute__((aligned(4)));
static sensor_prov prov;
static se_hmac_drbg_ctx rng;
static se_ec_curve p256;
static se_tls tls;
static se_tls_cert_cache cache;
static char node_name[32];
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

/* Sleeps until a packet waits in the NIC or ms milliseconds have passed (UINT32_MAX: no limit),
 * on the nic_rx and timer sources of the intc; both are off again on return. */
static void wait_rx(uint32_t ms)
{
    uint64_t deadline = node_cycles() + (uint64_t)ms * CYCLES_PER_MS;
    if (ms != UINT32_MAX) {
        SYSCTL(TIMER_CMP_HI) = (uint32_t)(deadline >> 32);
        SYSCTL(TIMER_CMP_LO) = (uint32_t)deadline;
        SYSCTL(TIMER_CTRL) = BIT(SE_SYSCTL_TIMER_CTRL_EN_SHIFT);
        INTC(ENABLE) |= BIT(SE_IRQ_TIMER);
    }
    NIC(INTR_ENABLE) |= BIT(SE_NIC_INTR_ENABLE_RX_SHIFT);
    INTC(ENABLE) |= BIT(SE_IRQ_NIC_RX);
    for (;;) {
        NIC(INTR_STATE) = BIT(SE_NIC_INTR_STATE_RX_SHIFT); /* ack first, then look (as nic_wait) */
        if (NIC(STATUS) & BIT(SE_NIC_STATUS_RX_AVAIL_SHIFT))
            break;
        if (ms != UINT32_MAX && node_cycles() >= deadline)
            break;
        node_sleep();
    }
    /* Levels: left enabled they would wake every later sleep (the engine drivers'). */
    INTC(ENABLE) &= ~(BIT(SE_IRQ_NIC_RX) | BIT(SE_IRQ_TIMER));
    SYSCTL(TIMER_CTRL) = 0;
}

/* ---- output lines ------------------------------------------------------------------------- */

/* Appends s or the decimal v at d; returns the new end (not terminated). Unbounded: each line's
 * buffer holds its longest form (the node's name 31 characters, a provisioning problem 25,
 * numbers 10 digits; the longest, the last line, 191 of its 200 bytes). */
static char *cat(char *d, const char *s)
{
    while (*s)
        *d++ = *s++;
    return d;
}

static char *cat_u(char *d, uint32_t v)
{
    char t[10];
    unsigned n = 0;
    do
        t[n++] = (char)('0' + v % 10u);
    while ((v /= 10u) != 0);
    while (n)
        *d++ = t[--n];
    return d;
}

/* Sends the line in buf up to end, with its newline. */
static void say(char *buf, char *end)
{
    *end++ = '\n';
    *end = 0;
    uart_puts(buf);
}

/* ---- the run ------------------------------------------------------------------------------- */

/* Appends ,"key":a for an alert a sent or received (a < 0: none). */
static char *alert(char *d, const char *key, int a)
{
    return a < 0 ? d : cat_u(cat(d, key), (uint32_t)a);
}

/* The failure line, then the exit: {"error":E,"where":"W"[,"alert_sent":A][,"alert_received":A],
 * "stack_peak":N}. E is the se_status number, or the provisioning problem in quotes (reason);
 * the alerts (numbers too) only where the connection had begun (alerts). */
static _Noreturn void fail(int code, const char *where, const char *reason, se_status st, int alerts)
{
    char l[160], *e = cat(l, "{\"error\":");
    node_marker(NULL);
    e = reason ? cat(cat(cat(e, "\""), reason), "\"") : cat_u(e, (uint32_t)st);
    e = cat(cat(cat(e, ",\"where\":\""), where), "\"");
    if (alerts) {
        e = alert(e, ",\"alert_sent\":", se_tls_sent_alert(&tls));
        e = alert(e, ",\"alert_received\":", se_tls_peer_alert(&tls));
    }
    e = cat_u(cat(e, ",\"stack_peak\":"), node_stack_peak());
    say(l, cat(e, "}"));
    node_exit(code);
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
            wait_rx(se_tls_timeout_ms(&tls));
    }
    if (st == SE_OK && se_tls_get_state(&tls) != SE_TLS_ESTABLISHED)
        st = se_tls_error(&tls) != SE_OK ? se_tls_error(&tls) : SE_ERR_TLS_STATE;
    return st;
}

/* A fake sensor: a deterministic temperature in tenths of a degree around 21.5 C. */
static int temperature(unsigned seq)
{
    return 215 + (int)((seq * 37u) % 21u) - 10;
}

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
        if (prov.record_size == 0) { /* "<name> seq=<i> temp=<t>C", t between 20.5 and 22.5 */
            char line[80];
            unsigned t = (unsigned)temperature(i);
            char *e = cat(line, node_name);
            e = cat_u(cat(e, " seq="), i);
            e = cat_u(cat(e, " temp="), t / 10u);
            e = cat(cat_u(cat(e, "."), t % 10u), "C");
            st = se_tls_write(&tls, (const uint8_t *)line, (size_t)(e - line));
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
    if (se_x509_parse(&me, prov.cert, prov.cert_len) != SE_OK || !me.cn || me.cn_len >= sizeof node_name)
        return 0;
    for (size_t i = 0; i < me.cn_len; i++)
        if (me.cn[i] < 0x20 || me.cn[i] > 0x7e || me.cn[i] == '"' || me.cn[i] == '\\')
            return 0;
    memcpy(node_name, me.cn, me.cn_len);
    return 1;
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

    char l[200], *e;
    for (unsigned h = 1; h <= prov.handshakes; h++) {
        uint64_t t0 = node_cycles();
        st = handshake(&cfg, &io);
        if (st != SE_OK)
            fail(EXIT_TLS, "dtls", NULL, st, 1);
        uint32_t cycles = (uint32_t)(node_cycles() - t0);
        e = cat_u(cat(l, "{\"handshake\":"), h);
        e = cat_u(cat(e, ",\"cached\":"), (uint32_t)se_tls_used_cache(&tls));
        e = cat_u(cat(e, ",\"suite\":"), se_tls_suite(&tls));
        say(l, cat(cat_u(cat(e, ",\"cycles\":"), cycles), "}"));
        if (h == prov.handshakes) {
            size_t len = prov.record_size ? pattern() : 0;
            node_marker("app_data");
            uint64_t t2 = node_cycles();
            st = send_data(len);
            cycles = (uint32_t)(node_cycles() - t2);
            node_marker(NULL);
            if (st != SE_OK)
                fail(EXIT_TLS, "dtls", NULL, st, 1);
            e = cat_u(cat(l, "{\"app_data\":"), se_tls_get_stats(&tls)->app_bytes_out);
            e = cat_u(cat(e, ",\"records\":"), prov.readings);
            e = cat_u(cat(e, ",\"cycles\":"), cycles);
            say(l, cat(e, "}"));
        }
        node_marker("close");
        st = se_tls_close(&tls);
        node_marker(NULL);
        if (st != SE_OK)
            fail(EXIT_TLS, "dtls", NULL, st, 1);
    }
    const se_tls_stats *s = se_tls_get_stats(&tls);
    e = cat_u(cat(l, "{\"done\":1,\"readings\":"), prov.readings);
    e = cat(cat(cat(e, ",\"name\":\""), node_name), "\"");
    e = cat_u(cat(e, ",\"retransmits\":"), s->retransmits);
    e = cat_u(cat(e, ",\"dropped\":"), s->dropped_bad_mac + s->dropped_replay + s->dropped_malformed + rx_too_long);
    e = cat_u(cat(e, ",\"bad_mac\":"), s->dropped_bad_mac);
    e = cat_u(cat(e, ",\"bytes_in\":"), data_in);
    e = cat_u(cat(e, ",\"stack_peak\":"), node_stack_peak());
    e = cat_u(cat(e, ",\"stack_size\":"), node_stack_size());
    say(l, cat(e, "}"));
    return EXIT_OK;
}
