/* Reads and parses the provisioning blob (format in provision.h) from the UART. */
#include <string.h>

#include "node/node.h"
#include "provision.h"
#include "se/tls.h"

static uint32_t le(const uint8_t *p, size_t n)
{
    uint32_t v = 0;
    while (n--)
        v = v << 8 | p[n];
    return v;
}

static void read_bytes(uint8_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (uint8_t)uart_getc();
}

/* FNV-1a, 32 bits: catches a truncated or shifted blob, no more. */
static uint32_t fnv1a(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

/* An integer field of exactly n bytes; NULL or a reason. */
static const char *int_field(const uint8_t *v, size_t vlen, size_t n, uint32_t *out)
{
    if (vlen != n)
        return "bad field length";
    *out = le(v, n);
    return NULL;
}

const char *sensor_provision(sensor_prov *p, uint8_t *buf)
{
    uint8_t head[6], tail[4];
    read_bytes(head, sizeof head);
    if (memcmp(head, SENSOR_PROV_MAGIC, 4) != 0)
        return "bad magic";
    size_t len = le(head + 4, 2);
    if (len > SENSOR_PROV_MAX)
        return "blob too large";
    read_bytes(buf, len);
    read_bytes(tail, sizeof tail);
    if (fnv1a(buf, len) != le(tail, 4))
        return "bad check";

    memset(p, 0, sizeof *p);
    p->readings = 1;
    p->suite = SE_TLS_ECDHE_ECDSA_AES_128_CCM_8;
    p->handshakes = 1;
    int have_now = 0;
    for (size_t i = 0; i < len;) {
        if (len - i < 3)
            return "truncated record";
        unsigned tag = buf[i];
        size_t vlen = le(buf + i + 1, 2);
        const uint8_t *v = buf + i + 3;
        if (vlen > len - i - 3)
            return "truncated record";
        i += 3 + vlen;
        const char *err = NULL;
        uint32_t x = 0;
        switch (tag) {
        case SENSOR_TAG_CA: p->ca = v, p->ca_len = vlen; break;
        case SENSOR_TAG_CERT: p->cert = v, p->cert_len = vlen; break;
        case SENSOR_TAG_KEY:
            if (vlen != SENSOR_KEY_BYTES)
                return "bad key length";
            p->key = v;
            break;
        case SENSOR_TAG_SERVER_NAME:
            if (vlen > SENSOR_NAME_MAX || memchr(v, 0, vlen))
                return "bad server name";
            memcpy(p->server_name, v, vlen);
            p->server_name[vlen] = 0;
            break;
        case SENSOR_TAG_NOW:
            if (vlen != 8)
                return "bad field length";
            p->now = (int64_t)((uint64_t)le(v + 4, 4) << 32 | le(v, 4));
            have_now = 1;
            break;
        case SENSOR_TAG_READINGS: err = int_field(v, vlen, 2, &x), p->readings = (uint16_t)x; break;
        case SENSOR_TAG_SUITE: err = int_field(v, vlen, 2, &x), p->suite = (uint16_t)x; break;
        case SENSOR_TAG_HANDSHAKES: err = int_field(v, vlen, 1, &x), p->handshakes = (uint8_t)x; break;
        case SENSOR_TAG_MTU: err = int_field(v, vlen, 2, &x), p->mtu = (uint16_t)x; break;
        case SENSOR_TAG_RECORD_SIZE: err = int_field(v, vlen, 2, &x), p->record_size = (uint16_t)x; break;
        case SENSOR_TAG_RETRANSMIT_MS: err = int_field(v, vlen, 4, &p->retransmit_ms); break;
        case SENSOR_TAG_CID: err = int_field(v, vlen, 1, &x), p->cid = (uint8_t)x; break;
        default: return "unknown tag";
        }
        if (err)
            return err;
    }
    if (!p->ca || !p->cert || !p->key || !have_now)
        return "missing field";
    if (p->handshakes < 1 || p->handshakes > 2)
        return "handshakes must be 1 or 2";
    if (p->cid > 1)
        return "cid must be 0 or 1";
    return NULL;
}
