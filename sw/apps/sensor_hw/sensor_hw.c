/* The sensor node in HW mode (seed 001): the DTLS 1.2 client handshake runs in the engine's
 * protocol controller (rtl/ctrl: HANDSHAKE, HS_RECORD, HS_RESEND through se_drv_ctrl_hs_*), and this
 * firmware only carries datagrams between the NIC and the controller's window, runs the
 * retransmission timer, sends the alert for a refusal, and seals and opens the epoch-1 records
 * with the AES IP's SEAL and OPEN under the key slots the controller filled. Same provisioning blob,
 * output lines and exit codes as ../sensor (README.md there; this one: README.md beside it).
 *
 *   boot       the controller's secret top wiped, the client's key into its write-only slot
 *              (CK_AT), the DRBG seeded in the controller from the trng (a SIMULATION MODEL here),
 *              P-256 and G's comb table into the pk IP
 *   handshake  HANDSHAKE, then each of the server's records through HS_RECORD, each answer sent;
 *              the phases (hello, cert_verify, key_exchange, finished) follow the machine's state
 *   app_data   the readings sealed in epoch 1 (SEAL), then close_notify
 *
 * No TLS library is linked: the record layer here is RFC 6347 4.1's header, and the handshake is
 * the controller's. */
#include <string.h>

#include "node/node.h"
#include "provision.h"
#include "se/ct.h"
#include "se/drv.h"
#include "se/hw/ctrl_ucode.h"
#include "se/tls.h"
#include "sensor_io.h"

/* Largest datagram taken from or sent to the NIC: the software node's (a longer one is dropped,
 * counted). */
#define MTU 1200u
#define HDR 13u                    /* a DTLS record's header */
#define SLOT_C 0u                  /* the AES key slots for the client's and the server's write keys */
#define SLOT_S 1u
#define FINISHED_BYTES 24u         /* the client's Finished message (HS_FIN) */
#define CT_CCS 20u
#define CT_ALERT 21u
#define CT_HANDSHAKE 22u
#define CT_APP 23u
#define MAX_RETRANSMITS 6u         /* as the stack's default */
#define RETRANSMIT_MAX_MS 60000u

static uint8_t prov_buf[SENSOR_PROV_MAX] __attribute__((aligned(4)));
/* The datagram in, then, once its records are taken, the datagram out (a sealed Finished after
 * the flight's records) or a sealed record of data. */
static uint8_t buf[MTU + 64u] __attribute__((aligned(4)));
static sensor_prov prov;
static se_drv_ctrl_hs hs;
static se_aead_key key_c, key_s;
static se_record rec_c, rec_s;     /* the epoch-1 records' parameters: ours (seq_num counts), theirs */
static int keys;                   /* key_c, key_s set up (KEYS filled the slots) */
static int write_epoch;            /* the epoch of our records: 1 once the flight is out */
static int alert_sent = -1, alert_received = -1;
static uint32_t retransmits, dropped, bad_mac, data_in, app_out, warnings;
static uint32_t last_mseq;         /* the message_seq that began the last datagram out (none: 2^16) */

static const char *phase;

/* The simulator's phase marker, set when it changes. */
static void mark(const char *name)
{
    if (name != phase)
        node_marker(name);
    phase = name;
}

/* The phase that takes the server's next record: its work is the controller's for that message. */
static void mark_state(void)
{
    static const char *const names[] = {"hello", "hello", "cert_verify", "key_exchange", "key_exchange",
                                        "finished", "finished", "done", "done"};
    mark(hs.state < sizeof names / sizeof names[0] ? names[hs.state] : "done");
}

/* A refusal's alert, as the software client sends it (sw/proto: RFC 5246 7.2). */
static int alert_for(unsigned result)
{
    switch (result) {
    case SE_CTRL_ST_CERT_EXPIRED:
    case SE_CTRL_ST_CERT_NOT_YET_VALID: return SE_TLS_ALERT_CERTIFICATE_EXPIRED;
    case SE_CTRL_ST_CERT_UNKNOWN_CA: return SE_TLS_ALERT_UNKNOWN_CA;
    case SE_CTRL_ST_CERT_UNSUPPORTED: return SE_TLS_ALERT_UNSUPPORTED_CERTIFICATE;
    case SE_CTRL_ST_CERT_MALFORMED:
    case SE_CTRL_ST_CERT_NAME:
    case SE_CTRL_ST_CERT_SIGNATURE:
    case SE_CTRL_ST_CERT_CHAIN:
    case SE_CTRL_ST_CERT_NOT_CA:
    case SE_CTRL_ST_CERT_KEY_USAGE: return SE_TLS_ALERT_BAD_CERTIFICATE;
    case SE_CTRL_ST_DECODE_ERROR: return SE_TLS_ALERT_DECODE_ERROR;
    case SE_CTRL_ST_PROTOCOL_VERSION: return SE_TLS_ALERT_PROTOCOL_VERSION;
    case SE_CTRL_ST_ILLEGAL_PARAMETER:
    case SE_CTRL_ST_INVALID_POINT: return SE_TLS_ALERT_ILLEGAL_PARAMETER;
    case SE_CTRL_ST_UNSUPPORTED_EXTENSION: return SE_TLS_ALERT_UNSUPPORTED_EXTENSION;
    case SE_CTRL_ST_HANDSHAKE_FAILURE: return SE_TLS_ALERT_HANDSHAKE_FAILURE;
    case SE_CTRL_ST_DECRYPT_ERROR:
    case SE_CTRL_ST_BAD_FINISHED: return SE_TLS_ALERT_DECRYPT_ERROR;
    case SE_CTRL_ST_UNEXPECTED_MESSAGE: return SE_TLS_ALERT_UNEXPECTED_MESSAGE;
    default: return SE_TLS_ALERT_INTERNAL_ERROR;
    }
}

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* A record of epoch 1 at out (the header, the explicit nonce, the ciphertext, the tag) of the len
 * bytes at pt: SEAL with the client's write key. Returns its bytes, 0 if the engine refused. */
static size_t seal(uint8_t type, const uint8_t *pt, size_t len, uint8_t *out)
{
    rec_c.type = type;
    if (se_drv_record_seal(&key_c, &rec_c, pt, len, out) != SE_OK)
        return 0;
    rec_c.seq_num++;
    return HDR + 8u + len + rec_c.tag_len;
}

/* An alert record to the server: epoch 0 before the flight, epoch 1 (sealed) from it on. */
static void send_alert(int level, int desc)
{
    uint8_t a[2] = {(uint8_t)level, (uint8_t)desc}, out[HDR + 8 + 2 + 16];
    size_t n = 0;
    if (write_epoch) {
        n = seal(CT_ALERT, a, 2, out);
    } else { /* epoch 0: the controller's next sequence number */
        static const uint8_t head[9] = {CT_ALERT, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0};
        memcpy(out, head, sizeof head);
        if (se_drv_ctrl_get(SE_CTRL_HS_WSEQ, out + 9, 2) != SE_OK)
            return;
        put16(out + 11, 2);
        memcpy(out + HDR, a, 2);
        n = HDR + 2;
    }
    if (n != 0 && nic_send(out, n) == n && desc != SE_TLS_ALERT_CLOSE_NOTIFY)
        alert_sent = desc;
}

/* The write keys out of the AES slots (and the cipher's copy of the last one it ran). */
static void wipe_keys(void)
{
    se_drv_aead_wipe(&key_c);
    se_drv_aead_wipe(&key_s);
}

/* The end of a failed run: the keys out of the AES slots and the controller's secret top wiped (the
 * master secret, the DRBG, the client's key), then the error line. */
static _Noreturn void fail(const char *where, se_status st)
{
    if (keys)
        wipe_keys();
    (void)se_drv_ctrl_wipe();
    sensor_fail(SENSOR_EXIT_TLS, where, NULL, (int)st, alert_sent, alert_received);
}

/* A refusal of the controller ends the handshake with its alert; a fault of the engine with
 * internal_error. */
static void check(se_status st)
{
    if (st == SE_OK)
        return;
    send_alert(2, st == SE_ERR_BACKEND || st == SE_ERR_TLS_TOO_LARGE ? SE_TLS_ALERT_INTERNAL_ERROR
                                                                     : alert_for(hs.result));
    fail("dtls", st);
}

/* The epoch-1 contexts once KEYS has filled the slots: the suite ServerHello chose, the write IVs. */
static void keys_ready(void)
{
    uint8_t iv[8], suite = 0;
    check(se_drv_ctrl_get(SE_CTRL_HS_IV, iv, 8));
    check(se_drv_ctrl_get(SE_CTRL_HS_SUITE, &suite, 1));
    const se_aead_mode mode = suite == 0x2b ? SE_AEAD_GCM : SE_AEAD_CCM;
    check(se_drv_aead_slot(&key_c, mode, SLOT_C));
    check(se_drv_aead_slot(&key_s, mode, SLOT_S));
    rec_c = (se_record){.seq_num = 1ull << 48, .version = 0xfefd, .dtls = 1, .tag_len = mode == SE_AEAD_GCM ? 16 : 8};
    rec_s = rec_c;
    memcpy(rec_c.salt, iv, 4);
    memcpy(rec_s.salt, iv + 4, 4);
    keys = 1;
}

/* The n bytes of the datagram the controller left out to the NIC; a flight (the state it was made
 * in, CCS or FIN) with the client's Finished sealed after its records. buf is free (the datagram in
 * is taken). */
static void send_answer(size_t n, uint8_t state)
{
    const int flight = state == SE_CTRL_STATE_CCS || state == SE_CTRL_STATE_FIN;
    if (n == 0)
        return;
    if (n + (flight ? HDR + 8u + FINISHED_BYTES + 16u : 0u) > MTU) /* (a flight past the node's MTU) */
        check(SE_ERR_TLS_TOO_LARGE);
    check(se_drv_ctrl_get(hs.out_at, buf, n));
    /* A resend (the timer's, or the server's repeat answered) repeats the message_seq of the last
     * datagram's first message; a new one has the next. */
    const uint32_t mseq = n >= HDR + 6u ? (uint32_t)buf[HDR + 4] << 8 | buf[HDR + 5] : 0u;
    if (mseq == last_mseq)
        retransmits++;
    last_mseq = mseq;
    if (flight) {
        uint8_t fin[FINISHED_BYTES];
        if (!keys)
            keys_ready();
        check(se_drv_ctrl_get(SE_CTRL_HS_FIN, fin, sizeof fin));
        size_t k = seal(CT_HANDSHAKE, fin, sizeof fin, buf + n);
        if (k == 0)
            check(SE_ERR_BACKEND);
        n += k;
    }
    if (nic_send(buf, n) == n && flight)
        write_epoch = 1;
}

/* The records of the datagram in buf (n bytes), each through the controller or dropped (RFC 6347
 * 4.1.2.7: what does not parse or open is dropped and counted), as the software client reads them
 * (tls_record.c): the epoch the client reads is 0 until the server's ChangeCipherSpec, then 1; a
 * record of a later epoch is dropped, and of the earlier one only handshake records go on (the
 * controller looks at them for a repeat that asks for a resend). The datagram goes into the window
 * once, a word per access, before the first record for the controller; an epoch-1 record's
 * plaintext (opened here) replaces its bytes there. The answer waits for the datagram's end: the
 * last one stands for them all. Returns 1 if an answer went out. */
static int take_datagram(size_t n)
{
    uint16_t answer = 0;
    uint8_t answer_state = 0;
    int placed = 0;
    for (size_t at = 0; at + HDR <= n;) {
        uint8_t *r = buf + at;
        const size_t len = (size_t)r[11] << 8 | r[12];
        const unsigned type = r[0], epoch = (unsigned)r[3] << 8 | r[4], reads = hs.state >= SE_CTRL_STATE_FIN;
        if (len > n - at - HDR) {
            dropped++;
            break;
        }
        at += HDR + len;
        uint8_t *body = r + HDR;
        size_t blen = len;
        if (epoch > reads || (epoch < reads && type != CT_HANDSHAKE)) {
            dropped++;
            continue;
        }
        if (epoch == 1) { /* (reads 1: the flight went out, the keys are in their slots) */
            rec_s.type = (uint8_t)type;
            rec_s.seq_num = 0;
            for (unsigned k = 3; k < HDR - 2u; k++) /* (the epoch and the sequence number) */
                rec_s.seq_num = rec_s.seq_num << 8 | r[k];
            if (se_drv_record_open(&key_s, &rec_s, body, len) != SE_OK) {
                dropped++, bad_mac++;
                continue;
            }
            body += 8;
            blen = len - 8u - rec_s.tag_len;
        }
        if (type == CT_ALERT) { /* a warning a few times; close_notify or a fatal one ends it */
            if (blen != 2) {
                dropped++;
            } else if (body[1] == SE_TLS_ALERT_CLOSE_NOTIFY) {
                alert_received = 0;
                fail("dtls", SE_ERR_TLS_CLOSED);
            } else if (body[0] != 1) {
                alert_received = body[1];
                fail("dtls", SE_ERR_TLS_PEER_ALERT);
            } else if (++warnings > SE_TLS_MAX_WARNINGS) {
                send_alert(2, SE_TLS_ALERT_UNEXPECTED_MESSAGE);
                fail("dtls", SE_ERR_TLS_WARNINGS);
            }
            continue;
        }
        if (type == CT_APP && hs.state == SE_CTRL_STATE_DONE) {
            data_in += (uint32_t)blen;
            continue;
        }
        if ((type != CT_HANDSHAKE && type != CT_CCS) || hs.state == SE_CTRL_STATE_DONE) {
            dropped++;
            continue;
        }
        mark_state();
        if (!placed)
            check(se_drv_ctrl_hs_datagram(&hs, buf, n));
        placed = 1;
        check(se_drv_ctrl_hs_record(&hs, type, epoch, (size_t)(body - buf), epoch == 1 ? body : NULL, blen));
        warnings = 0; /* (progress, as the software client counts it) */
        if (hs.out_len != 0) { /* (the window keeps it: HS_RECORD's later runs leave it there) */
            answer = hs.out_len;
            answer_state = hs.state;
        }
    }
    if (answer != 0)
        send_answer(answer, answer_state);
    return answer != 0;
}

/* One handshake: HANDSHAKE, then until the server's Finished checks out, datagrams in and
 * answers out, asleep in between; the timer resends (HS_RESEND, doubled each time). The timer runs
 * in cycles at the nominal clock, `span` from the last progress to `due`: at most 60 s (a longer
 * first one provisioned is cut to it), 3e9 cycles, so doubling it never leaves 32 bits. */
#define SPAN_MAX (RETRANSMIT_MAX_MS * SENSOR_CYCLES_PER_MS)
_Static_assert((uint64_t)RETRANSMIT_MAX_MS * SENSOR_CYCLES_PER_MS < UINT32_MAX, "the timer's span in 32 bits");
static void handshake(const se_drv_ctrl_hs_config *cfg)
{
    const uint32_t first = prov.retransmit_ms == 0 ? 1000u * SENSOR_CYCLES_PER_MS
                           : prov.retransmit_ms < RETRANSMIT_MAX_MS ? prov.retransmit_ms * SENSOR_CYCLES_PER_MS
                                                                    : SPAN_MAX;
    uint32_t span = first, tries = 0;
    keys = write_epoch = 0;
    warnings = 0;
    last_mseq = 0x10000u;
    mark("hello");
    check(se_drv_ctrl_hs_start(&hs, cfg));
    send_answer(hs.out_len, hs.state);
    uint64_t due = node_cycles() + span;
    while (hs.state != SE_CTRL_STATE_DONE) {
        size_t n = nic_recv(buf, MTU);
        if (n > MTU) {
            dropped++;
        } else if (n > 0) {
            const uint8_t before = hs.state;
            /* progress, or a new flight out (the second ClientHello): the timer starts again */
            if (take_datagram(n) || hs.state != before) {
                span = first;
                tries = 0;
                due = node_cycles() + span;
            }
        } else if (node_cycles() >= due) {
            if (++tries > MAX_RETRANSMITS)
                fail("dtls", SE_ERR_TLS_TIMEOUT); /* (no alert: the stack's se_tls_timer sends none) */
            check(se_drv_ctrl_hs_resend(&hs));
            send_answer(hs.out_len, hs.state);
            span = span < SPAN_MAX / 2 ? span * 2 : SPAN_MAX;
            due = node_cycles() + span;
        } else {
            sensor_wait_rx_until(due);
        }
    }
    mark("done");
}

/* The readings, or records of record_size pattern bytes (made before, in prov_buf: the blob is not
 * needed again after the last handshake), each sealed into buf and sent. */
static void send_data(void)
{
    size_t len = prov.record_size < sizeof prov_buf ? prov.record_size : sizeof prov_buf;
    if (len > MTU - HDR - 8u - 16u)
        len = MTU - HDR - 8u - 16u;
    for (size_t j = 0; j < len; j++)
        prov_buf[j] = (uint8_t)j;
    mark("app_data");
    const uint64_t t0 = node_cycles();
    for (unsigned i = 1; i <= prov.readings; i++) {
        char line[80];
        size_t n = 0, k = len;
        const uint8_t *pt = prov_buf;
        if (prov.record_size == 0) {
            k = sensor_reading(line, i);
            pt = (const uint8_t *)line;
        }
        if ((n = seal(CT_APP, pt, k, buf)) == 0)
            fail("dtls", SE_ERR_BACKEND);
        (void)nic_send(buf, n);
        app_out += (uint32_t)k;
    }
    const uint32_t cycles = (uint32_t)(node_cycles() - t0);
    mark(NULL);
    sensor_line_app_data(app_out, prov.readings, cycles);
}

/* X509_PARSE of the certificate der (len bytes) at the window's start: the controller's result. */
static unsigned parse(const uint8_t *der, size_t len, uint32_t out[16], uint32_t *valid)
{
    uint16_t regs[16] = {0};
    unsigned result;
    regs[2] = (uint16_t)len;
    if (len > SE_CTRL_REC || se_drv_ctrl_write(0, der, len) != SE_OK ||
        se_drv_ctrl_run(SE_CTRL_PROG_X509_PARSE, regs, 1u << 1 | 1u << 2, &result, out, valid) != SE_OK)
        return SE_CTRL_ST_BAD_INPUT;
    return result;
}

/* The controller's name for the node: the commonName X509_PARSE finds in its certificate. */
static int name_from_cert(void)
{
    uint32_t out[16], valid;
    if (parse(prov.cert, prov.cert_len, out, &valid) != SE_CTRL_ST_OK || !(valid >> SE_CTRL_SLOT_CN & 1u))
        return 0;
    const uint32_t at = out[SE_CTRL_SLOT_CN] & 0xffffu, n = out[SE_CTRL_SLOT_CN] >> 16;
    return at + n <= prov.cert_len && sensor_set_name(prov.cert + at, n); /* (it takes names below 32 bytes) */
}

/* A key's comb table into pk's cache (KEY_TABLE), so that its signatures take pk's joint comb, not
 * its ladder: which 1, the trust anchor's (after its X509_PARSE), for the chain's signature by the
 * anchor; which 2, the cached server certificate's, for the ServerKeyExchange of a cached
 * handshake. A key the controller refuses gets no table, and its checks take the ladder. */
static void key_table(unsigned which)
{
    uint16_t regs[16] = {0};
    uint32_t out[16], valid;
    unsigned result;
    regs[1] = (uint16_t)which;
    if (se_drv_ctrl_run(SE_CTRL_PROG_KEY_TABLE, regs, 1u << 1, &result, out, &valid) != SE_OK)
        sensor_fail(SENSOR_EXIT_SETUP, which == 1 ? "setup" : "key_table", NULL, SE_ERR_BACKEND, -1, -1);
}

/* The controller made ready: its secret top wiped, the client's key into CK_AT (write-only, from
 * the WIPE until the first program), the DRBG seeded with 32 bytes of entropy and a 16-byte nonce
 * from the trng, P-256 and G's comb table into the pk IP by P256_LOAD (pk is the controller's
 * alone here: the firmware links no pk driver). */
static se_status setup(void)
{
    uint16_t regs[16] = {0};
    uint32_t out[16], valid, seed[12];
    unsigned result;
    se_status st = se_drv_ctrl_probe();
    if (st == SE_OK)
        st = se_drv_ctrl_wipe();
    if (st == SE_OK)
        st = se_drv_ctrl_write(SE_CTRL_CK_AT, prov.key, SENSOR_KEY_BYTES);
    for (size_t i = 0; i < 12; i++)
        seed[i] = node_trng32();
    if (st == SE_OK)
        st = se_drv_ctrl_write(SE_CTRL_ENT_AT, (const uint8_t *)seed, sizeof seed);
    se_ct_wipe(seed, sizeof seed);
    regs[1] = 48;
    if (st == SE_OK)
        st = se_drv_ctrl_run(SE_CTRL_PROG_DRBG_SEED, regs, 0x1eu, &result, out, &valid);
    if (st == SE_OK && result == SE_CTRL_ST_OK) /* P-256 and G's comb table into the pk IP */
        st = se_drv_ctrl_run(SE_CTRL_PROG_P256_LOAD, regs, 0, &result, out, &valid);
    return st == SE_OK && result != SE_CTRL_ST_OK ? SE_ERR_BACKEND : st;
}

int main(void)
{
    mark("provision");
    const char *why = sensor_provision(&prov, prov_buf);
    if (why)
        sensor_fail(SENSOR_EXIT_PROVISION, "provisioning", why, 0, -1, -1);
    mark("setup");
    se_status st = setup();
    se_ct_wipe(prov_buf + (prov.key - prov_buf), SENSOR_KEY_BYTES); /* in CK_AT now, which the bus never reads */
    if (st != SE_OK)
        sensor_fail(SENSOR_EXIT_SETUP, "setup", NULL, (int)st, -1, -1);
    if (!name_from_cert())
        sensor_fail(SENSOR_EXIT_PROVISION, "provisioning", "bad node certificate", 0, -1, -1);
    const uint8_t *anchors[1] = {prov.ca}, *chain[1] = {prov.cert};
    size_t anchor_len[1] = {prov.ca_len}, chain_len[1] = {prov.cert_len};
    se_drv_ctrl_hs_config cfg = {
        .anchors = anchors, .anchor_len = anchor_len, .n_anchors = 1,
        .chain = chain, .chain_len = chain_len, .chain_n = 1,
        .now = prov.now, .name = prov.server_name[0] ? prov.server_name : NULL,
        .cached = 1, /* as the sw sensor's cache: the first handshake fills the record, a second uses it */
        .slot_c = SLOT_C, .slot_s = SLOT_S, .datagram_max = MTU,
        .placed = 1, /* (never changed: each handshake finds them where the boot put them) */
    };
    uint32_t out[16], valid;
    if (parse(prov.ca, prov.ca_len, out, &valid) == SE_CTRL_ST_OK)
        key_table(1);
    /* The anchor, the node's chain and the name into the window once (a configuration too large
     * for it fails the first handshake instead, as it would without this). */
    (void)se_drv_ctrl_hs_place(&cfg);
    /* The suite is the controller's choice of the two it offers (CCM_8, GCM); the options the
     * controller has no room for are refused as the size build refuses them. */
    if (prov.cid || (prov.mtu != 0 && prov.mtu < MTU) ||
        (prov.suite != SE_TLS_ECDHE_ECDSA_AES_128_CCM_8 && prov.suite != SE_TLS_ECDHE_ECDSA_AES_128_GCM_SHA256))
        sensor_fail(SENSOR_EXIT_TLS, "dtls set-up", NULL, SE_ERR_NOT_SUPPORTED, -1, -1);
    mark(NULL);

    for (unsigned h = 1; h <= prov.handshakes; h++) {
        uint8_t cached = 0, suite = 0;
        const uint64_t t0 = node_cycles();
        handshake(&cfg);
        const uint32_t cycles = (uint32_t)(node_cycles() - t0);
        check(se_drv_ctrl_get(SE_CTRL_HS_CACHED, &cached, 1));
        check(se_drv_ctrl_get(SE_CTRL_HS_SUITE, &suite, 1));
        mark(NULL);
        sensor_line_handshake(h, cached, 0xc000u | suite, cycles);
        if (h == prov.handshakes)
            send_data();
        mark("close");
        send_alert(1, SE_TLS_ALERT_CLOSE_NOTIFY);
        wipe_keys();
        mark(NULL);
        if (!cached && h < prov.handshakes) { /* the next handshake is a cached one */
            mark("key_table");
            key_table(2);
            mark(NULL);
        }
    }
    st = se_drv_ctrl_wipe();
    if (st != SE_OK)
        fail("close", st);
    sensor_line_done(prov.readings, retransmits, dropped, bad_mac, data_in);
    return SENSOR_EXIT_OK;
}
