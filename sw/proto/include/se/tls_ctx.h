/* The layout of one DTLS/TLS connection (se/tls.h). Public only so that callers can allocate it;
 * every field is private to sw/proto. Its size follows the SE_TLS_MAX_* build-time sizes: three
 * buffers (handshake reassembly sharing its space with the record being decrypted, our last
 * flight, the datagram being sent) plus about 750 bytes of state. */
#ifndef SE_TLS_CTX_H
#define SE_TLS_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "se/backend.h"
#include "se/sha256.h"

/* Worst-case record expansion we accept: CBC's explicit IV (16), MAC (32) and padding up to
 * 256 bytes; AEAD needs 8 + 16. Records on the wire carry a 5 (TLS) or 13 (DTLS) byte header. */
#define SE_TLS_RECORD_EXPANSION 304
#define SE_TLS_RX_BYTES (13 + SE_TLS_MAX_RECORD + SE_TLS_RECORD_EXPANSION)
#define SE_TLS_HS_HEADER 12  /* room for the DTLS handshake header in front of a message */
#define SE_TLS_HS_BYTES (SE_TLS_HS_HEADER + SE_TLS_MAX_HANDSHAKE)
/* Handshake messages are reassembled from the start of one buffer, protected records decrypted
 * at its end. Plaintext records never go there (DTLS: read in the datagram; TLS: streamed into
 * the reassembly), and during a handshake the only protected record is the peer's Finished,
 * which fits below the decryption area (32 bytes are kept for it). */
#define SE_TLS_BUF_BYTES \
    (SE_TLS_HS_BYTES > SE_TLS_RX_BYTES + 32 ? SE_TLS_HS_BYTES : SE_TLS_RX_BYTES + 32)

/* One direction's record protection: its suite's class (tls_internal.h: seal, open) and keys, set
 * up once per epoch from the key block. AEAD suites: a keyed context of the crypto API (the
 * library's expanded key, or the key for the engine) and the implicit nonce; CBC-SHA256: the AES
 * key as such a context too (the key itself, or the engine's key slot), and the HMAC key. */
typedef struct {
    const struct se_tls_rec_class *cls;
    uint8_t iv[4];
    union {
        se_aead_key aead;
        struct {
            se_aead_key aes;
            uint8_t mac[32];
        } cbc;
    } k;
} se_tls_rec;

struct se_tls {
    const se_tls_config *cfg;
    const se_tls_io *io;
    uint8_t state;            /* se_tls_state */
    uint8_t hs;               /* handshake state (tls_internal.h, HS_*) */
    uint8_t dtls;             /* cfg->transport == SE_TLS_DATAGRAM */
    uint8_t flags;            /* F_* (tls_internal.h) */
    se_status err;
    int16_t peer_alert, sent_alert;
    uint16_t suite;
    uint8_t used_cache;
    uint8_t cookie_len;
    uint8_t etm;              /* encrypt-then-MAC (RFC 7366) negotiated for the CBC suite */
    uint8_t warnings;         /* warning alerts received in a row */
    uint16_t mtu;             /* DTLS: datagram size; TLS: send buffer size */

    /* Handshake secrets and transcript. */
    uint8_t client_random[32], server_random[32];
    uint8_t cookie[32];       /* client: the server's HelloVerifyRequest cookie */
    uint8_t ecdh_priv[32];    /* our ephemeral key */
    uint8_t eph_pub[65];      /* client: the server's ephemeral ECDHE key */
    uint8_t peer_key[65];     /* the peer's leaf certificate key */
    char peer_cn[SE_TLS_MAX_CN];
    uint8_t session_hash[32]; /* transcript through ClientKeyExchange (EMS, CertificateVerify) */
    uint8_t master[48];
    se_tls_rec rd, wr;        /* record protection, read and write sides */
    se_sha256_ctx transcript;

    /* Record layer: epochs, sequence numbers (TLS: per epoch from 0; DTLS: 48 bits) and the
     * DTLS replay window of the current read epoch. */
    uint16_t epoch_in, epoch_out;
    uint64_t seq_out[2];
    uint64_t seq_in;          /* TLS: next implicit sequence number */
    uint64_t win_top;         /* DTLS: highest sequence number accepted in epoch_in */
    uint32_t win_bits[2];     /* bit i % 32 of word i / 32: win_top - i seen */
    uint8_t win_any;          /* a record of epoch_in has been accepted */
#ifndef SE_TLS_NO_SERVER
    uint64_t rec_in;          /* the record being delivered: epoch << 48 | sequence number */
#endif
#ifndef SE_TLS_NO_CID
    /* RFC 9146: negotiated; ours (in the peer's records), the peer's (in ours). */
    uint8_t cid_on, cid_in_len, cid_out_len;
    uint8_t cid_in[SE_TLS_MAX_CID], cid_out[SE_TLS_MAX_CID];
#endif

    /* Handshake messages: sequence numbers (DTLS), the message being reassembled. */
    uint16_t seq_hs_out, seq_hs_in;
    uint16_t flight_mark;     /* DTLS: seq_hs_in when our last flight was sent */
    uint8_t hs_busy;          /* a message is being reassembled */
    uint8_t hs_type;
    uint32_t hs_len, hs_got;  /* its length, bytes received (DTLS: distinct; TLS: header too) */

    /* DTLS retransmission timer. */
    uint32_t timer_start, timer_ms;
    uint8_t timer_on;
    uint8_t retransmits;

    /* TLS stream: bytes of the current record received (header in rhdr, with a plaintext
     * alert or ChangeCipherSpec body after it). */
    size_t rx_fill;
    uint8_t rhdr[5 + 2];
    size_t flight_len, out_len;
    se_tls_stats stats;

    uint8_t buf[SE_TLS_BUF_BYTES];      /* handshake message (header + body) / record (at the end) */
    uint8_t hs_map[(SE_TLS_MAX_HANDSHAKE + 7) / 8]; /* DTLS: bytes of the message received */
    uint8_t flight[SE_TLS_MAX_FLIGHT];  /* our last flight: entries [type][len16][bytes] */
    uint8_t out[SE_TLS_MAX_MTU];        /* the datagram (DTLS) / records (TLS) being sent */
};

#endif
