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
 *   app_data   N readings "<cn> seq=<i> temp=<t>C" (or N records of record_size bytes), then
 *              close_notify
 *
 * One JSON line per handshake and a last one with the totals go to the UART for the host's tools;
 * a failure prints "sensor: error <status name>" and exits nonzero. */
#include <stdio.h>
#include <string.h>

#include "node/node.h"
#include "provision.h"
#include "se/tls.h"
#include "se/x509.h"

/* The node's nominal clock: turns cycles into the milliseconds of the DTLS timers. */
#define SENSOR_CLOCK_HZ 50000000u
#define CYCLES_PER_MS (SENSOR_CLOCK_HZ / 1000u)
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

/* Milliseconds since boot at the nominal clock, advanced from the cycles since the last call with
 * 32-bit divisions only (a 64-bit one would link 1 KiB of libgcc). */
static uint32_t io_now_ms(void *ctx)
{
    static uint64_t base; /* cycle count at clock_ms */
    static uint32_t clock_ms;
    (void)ctx;
    uint64_t d = node_cycles() - base;
    while (d >> 31) { /* 2^31 cycles or more since the last call: hours of software ECC */
        const uint32_t step = 0x80000000u / CYCLES_PER_MS;
        clock_ms += step;
        base += (uint64_t)step * CYCLES_PER_MS;
        d -= (uint64_t)step * CYCLES_PER_MS;
    }
    uint32_t whole = (uint32_t)d / CYCLES_PER_MS;
    clock_ms += whole;
    base += (uint64_t)whole * CYCLES_PER_MS;
    return clock_ms;
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

/* ---- the run ------------------------------------------------------------------------------- */

static _Noreturn void fail(int code, const char *what, const char *why)
{
    node_marker(NULL);
    printf("sensor: error %s (%s)\n", why, what);
    printf("{\"error\":\"%s\",\"stack_peak\":%lu}\n", why, (unsigned long)node_stack_peak());
    node_exit(code);
}

/* The error of a failed connection, with the alerts that went either way. */
static _Noreturn void tls_fail(se_status st)
{
    int peer = se_tls_peer_alert(&tls), sent = se_tls_sent_alert(&tls);
    if (peer >= 0)
        printf("sensor: peer sent alert %s\n", se_tls_alert_name(peer));
    if (sent >= 0)
        printf("sensor: sent alert %s\n", se_tls_alert_name(sent));
    fail(EXIT_TLS, "dtls", se_status_name(st));
}

/* One DTLS handshake: until ESTABLISHED, feeding datagrams and running the retransmission timer,
 * asleep in between. */
static se_status handshake(const se_tls_config *cfg, const se_tls_io *io)
{
    se_status st = se_tls_init(&tls, cfg, io);
    if (st == SE_OK)
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

/* Sends the readings (text) or records of record_size bytes (a byte pattern, for the bench). */
static se_status send_data(void)
{
    se_status st = SE_OK;
    for (unsigned i = 1; st == SE_OK && i <= prov.readings; i++) {
        if (prov.record_size == 0) {
            char line[80];
            int t = temperature(i);
            int n = snprintf(line, sizeof line, "%s seq=%u temp=%d.%dC", node_name, i, t / 10, t % 10);
            st = se_tls_write(&tls, (const uint8_t *)line, (size_t)n);
        } else {
            size_t len = prov.record_size < sizeof rx ? prov.record_size : sizeof rx;
            for (size_t j = 0; j < len; j++) /* rx is idle once established */
                rx[j] = (uint8_t)(i + j);
            st = se_tls_write(&tls, rx, len);
        }
    }
    return st;
}

/* The node's name is its certificate's commonName (a function of its own: se_x509 is large). */
static __attribute__((noinline)) int name_from_cert(void)
{
    se_x509 me;
    if (se_x509_parse(&me, prov.cert, prov.cert_len) != SE_OK || !me.cn || me.cn_len >= sizeof node_name)
        return 0;
    memcpy(node_name, me.cn, me.cn_len);
    return 1;
}

int main(void)
{
    const se_backend *be = SE_FW_BACKEND;

    node_marker("provision");
    const char *why = sensor_provision(&prov, prov_buf);
    if (why)
        fail(EXIT_PROVISION, "provisioning", why);
    if (!name_from_cert())
        fail(EXIT_PROVISION, "provisioning", "bad node certificate");

    /* The DRBG: 32 bytes of entropy and a 16-byte nonce from the trng model. */
    node_marker("setup");
    uint8_t seed[48];
    for (size_t i = 0; i < sizeof seed; i += 4) {
        uint32_t w = node_trng32();
        memcpy(seed + i, &w, 4);
    }
    se_status st = se_hmac_drbg_instantiate(&rng, seed, 32, seed + 32, 16, (const uint8_t *)"sensor", 6);
    memset(seed, 0, sizeof seed);
    if (st == SE_OK && be->probe)
        st = be->probe();
    if (st == SE_OK)
        st = se_ec_curve_builtin(&p256, SE_CURVE_SECP256R1);
    if (st == SE_OK)
        st = be->ec_curve(&p256);
    node_marker(NULL);
    if (st != SE_OK)
        fail(EXIT_SETUP, "setup", se_status_name(st));

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
    se_tls_io io = {.send = io_send, .now_ms = io_now_ms, .on_data = io_data, .phase = io_phase};

    for (unsigned h = 1; h <= prov.handshakes; h++) {
        uint64_t t0 = node_cycles();
        st = handshake(&cfg, &io);
        if (st != SE_OK)
            tls_fail(st);
        uint64_t t1 = node_cycles();
        int cached = se_tls_used_cache(&tls);
        printf("sensor: handshake %u %s, %s, %lu cycles\n", h, cached ? "cached" : "full",
               se_tls_suite_name(se_tls_suite(&tls)), (unsigned long)(t1 - t0));
        printf("{\"handshake\":%u,\"cached\":%d,\"suite\":\"%s\",\"cycles\":%lu}\n", h, cached,
               se_tls_suite_name(se_tls_suite(&tls)), (unsigned long)(t1 - t0));
        if (h == prov.handshakes) {
            node_marker("app_data");
            uint64_t t2 = node_cycles();
            st = send_data();
            uint64_t t3 = node_cycles();
            node_marker(NULL);
            if (st != SE_OK)
                tls_fail(st);
            printf("{\"app_data\":%lu,\"records\":%u,\"cycles\":%lu}\n",
                   (unsigned long)se_tls_get_stats(&tls)->app_bytes_out, (unsigned)prov.readings,
                   (unsigned long)(t3 - t2));
        }
        node_marker("close");
        st = se_tls_close(&tls);
        node_marker(NULL);
        if (st != SE_OK)
            tls_fail(st);
    }
    const se_tls_stats *s = se_tls_get_stats(&tls);
    printf("sensor: ok, %u readings sent as %s, %lu retransmits, %lu records dropped, "
           "%lu bytes received\n", (unsigned)prov.readings, node_name, (unsigned long)s->retransmits,
           (unsigned long)(s->dropped_bad_mac + s->dropped_replay + s->dropped_malformed + rx_too_long),
           (unsigned long)data_in);
    printf("{\"done\":1,\"stack_peak\":%lu,\"stack_size\":%lu}\n", (unsigned long)node_stack_peak(),
           (unsigned long)node_stack_size());
    return EXIT_OK;
}
