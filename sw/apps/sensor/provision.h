/* The sensor node's provisioning blob: what the host gives the node over the UART before it
 * starts (the simulator's --uart-rx; tools/provision.py writes it). The one definition of the
 * format; tools/provision.py repeats the numbers.
 *
 * All integers little-endian:
 *
 *     magic    "SNP1"                               4 bytes
 *     len      u16: bytes of records that follow     (at most SENSOR_PROV_MAX)
 *     records  len bytes of { tag u8, vlen u16, value[vlen] }, any order, each tag at most once
 *     check    u32: FNV-1a 32 of the records
 *
 * Required: CA, CERT, KEY, NOW. The others have the defaults given below. */
#ifndef SENSOR_PROVISION_H
#define SENSOR_PROVISION_H

#include <stddef.h>
#include <stdint.h>

#define SENSOR_PROV_MAGIC "SNP1"
/* Room for the records: two P-256 certificates (about 420 bytes each from `se certs`, short
 * names) and the small fields; a larger blob is refused ("blob too large"). */
#ifndef SENSOR_PROV_MAX
#define SENSOR_PROV_MAX 1024u
#endif

enum {
    SENSOR_TAG_CA = 1,          /* trust anchor: the CA certificate, DER */
    SENSOR_TAG_CERT = 2,        /* the node's certificate, DER (its CN names the node) */
    SENSOR_TAG_KEY = 3,         /* the node's P-256 private key, 32 bytes big-endian */
    SENSOR_TAG_SERVER_NAME = 4, /* the name the server's certificate must carry (none: no check) */
    SENSOR_TAG_NOW = 5,         /* current Unix time, u64 (certificate validity) */
    SENSOR_TAG_READINGS = 6,    /* u16: records of application data to send (default 1) */
    SENSOR_TAG_SUITE = 7,       /* u16: the one cipher suite offered, IANA number (default CCM_8) */
    SENSOR_TAG_HANDSHAKES = 8,  /* u8: 1, or 2 = a full then a cached-certificate handshake */
    SENSOR_TAG_MTU = 9,         /* u16: DTLS datagram size (default 0 = the stack's 1200) */
    SENSOR_TAG_RECORD_SIZE = 10, /* u16: 0 = text readings (default); n = records of n bytes */
    SENSOR_TAG_RETRANSMIT_MS = 11, /* u32: initial DTLS retransmission timeout (default 0 = stack's) */
    SENSOR_TAG_CID = 12,        /* u8: 1 = offer a DTLS connection ID (RFC 9146; default 0). A
                                 * firmware built without them (rv32imc) stops with not_supported */
};

#define SENSOR_KEY_BYTES 32u
#define SENSOR_NAME_MAX 63u /* longest server name */

/* The parsed blob: pointers into the buffer it was read into. */
typedef struct {
    const uint8_t *ca, *cert;
    size_t ca_len, cert_len;
    const uint8_t *key;
    char server_name[SENSOR_NAME_MAX + 1]; /* "" = no name check */
    int64_t now;
    uint16_t readings, suite, mtu, record_size;
    uint8_t handshakes, cid;
    uint32_t retransmit_ms;
} sensor_prov;

/* Reads a blob from the UART into buf (SENSOR_PROV_MAX bytes) and parses it into p. Returns
 * NULL, or a short reason ("bad magic", "bad check", ...). */
const char *sensor_provision(sensor_prov *p, uint8_t *buf);

#endif
