/* DTLS 1.2 (RFC 6347) and TLS 1.2 (RFC 5246) client and server, one handshake code for both.
 *
 * ECDHE-ECDSA on secp256r1 with AES-128 CCM_8 (RFC 7925's mandatory suite), GCM-SHA256 and
 * CBC-SHA256; extensions supported_groups, ec_point_formats, signature_algorithms
 * (ecdsa_secp256r1_sha256), extended_master_secret (RFC 7627, required) and renegotiation_info
 * (initial handshake only; renegotiation is refused). Mutual authentication with X.509
 * certificates (se/x509.h); the client may cache the server's leaf (cached-certificate mode).
 *
 * Sans-I/O and allocation-free: the caller owns one se_tls per connection (its buffers are
 * sized at build time, below), feeds it what arrives (se_tls_input: one datagram for DTLS,
 * any slice of the byte stream for TLS), calls se_tls_timer when se_tls_timeout_ms says so,
 * and receives what to send through the send callback (one call = one datagram for DTLS).
 * Application data arrives through the on_data callback. Crypto runs on a se_backend (the
 * library or the engine drivers), randomness comes from an HMAC-DRBG the caller seeded.
 *
 * Errors: a fatal error sends the matching alert, moves the connection to SE_TLS_FAILED and
 * is returned by the call that hit it and by every later call. In DTLS, records that fail
 * their tag, are replays or are malformed are dropped silently (RFC 6347 4.1.2.7) and counted
 * in se_tls_stats; in TLS they are fatal (bad_record_mac / decode_error).
 *
 * Server with DTLS: se/dtls_server.h puts the stateless cookie exchange (HelloVerifyRequest with
 * an HMAC cookie bound to the peer's address) and a table of connections in front of se_tls: only
 * a ClientHello with a valid cookie gets a connection (se_tls_init + se_tls_input of it). */
#ifndef SE_TLS_H
#define SE_TLS_H

#include <stddef.h>
#include <stdint.h>

#include "se/backend.h"
#include "se/drbg.h"
#include "se/ec.h"
#include "se/sha256.h"
#include "se/status.h"
#include "se/x509.h"

/* ---- build-time sizes (override with -D; the node's firmware uses small ones) ---------- */
#ifndef SE_TLS_MAX_RECORD   /* largest record plaintext accepted and sent (TLS: peers send 16384) */
#define SE_TLS_MAX_RECORD 16384
#endif
#ifndef SE_TLS_MAX_HANDSHAKE /* largest handshake message reassembled (the Certificate chain) */
#define SE_TLS_MAX_HANDSHAKE 8192
#endif
#ifndef SE_TLS_MAX_FLIGHT   /* bytes of our last flight's handshake messages kept for DTLS resends */
#define SE_TLS_MAX_FLIGHT 8192
#endif
#ifndef SE_TLS_MAX_MTU      /* largest datagram (DTLS) the connection sends; TLS: its send buffer */
#define SE_TLS_MAX_MTU 1500
#endif
/* A handshake message longer than SE_TLS_MAX_HANDSHAKE fails the connection with SE_ERR_TLS_TOO_LARGE
 * and a decode_error alert; a TLS record longer than SE_TLS_MAX_RECORD (protected: than the
 * receive buffer takes, SE_TLS_RX_BYTES - 5) with SE_ERR_TLS_TOO_LARGE and record_overflow (DTLS:
 * dropped). */
/* Warning alerts a connection takes without progress in between (a new handshake message, the
 * expected ChangeCipherSpec, application data; not a dropped or repeated record): the next one
 * fails it with SE_ERR_TLS_WARNINGS and unexpected_message (CVE-2016-8610; OpenSSL's cap too). */
#ifndef SE_TLS_MAX_WARNINGS
#define SE_TLS_MAX_WARNINGS 4
#endif
/* Subsets for a small node (sw/node's build uses all three); se_tls_init answers
 * SE_ERR_NOT_SUPPORTED for what was left out:
 *   -DSE_TLS_NO_SERVER  the server role (a client-only node);
 *   -DSE_TLS_NO_STREAM  TLS over a byte stream (DTLS only);
 *   -DSE_TLS_NO_CBC     the CBC-SHA256 suite (CCM_8 and GCM only; the default list drops it). */

/* Cipher suites (IANA numbers). */
/* DTLS Connection ID (RFC 9146; se_tls_config.cid): a server gives each connection a random CID of
 * SE_TLS_CID_LEN bytes; a client takes a server's CID of up to SE_TLS_MAX_CID bytes. */
#define SE_TLS_CID_LEN 8
#define SE_TLS_MAX_CID 32

#define SE_TLS_ECDHE_ECDSA_AES_128_CCM_8        0xC0AEu
#define SE_TLS_ECDHE_ECDSA_AES_128_GCM_SHA256   0xC02Bu
#define SE_TLS_ECDHE_ECDSA_AES_128_CBC_SHA256   0xC023u

/* Alert descriptions (RFC 5246 7.2). */
#define SE_TLS_ALERT_CLOSE_NOTIFY          0
#define SE_TLS_ALERT_UNEXPECTED_MESSAGE    10
#define SE_TLS_ALERT_BAD_RECORD_MAC        20
#define SE_TLS_ALERT_RECORD_OVERFLOW       22
#define SE_TLS_ALERT_HANDSHAKE_FAILURE     40
#define SE_TLS_ALERT_BAD_CERTIFICATE       42
#define SE_TLS_ALERT_UNSUPPORTED_CERTIFICATE 43
#define SE_TLS_ALERT_CERTIFICATE_EXPIRED   45
#define SE_TLS_ALERT_CERTIFICATE_UNKNOWN   46
#define SE_TLS_ALERT_ILLEGAL_PARAMETER     47
#define SE_TLS_ALERT_UNKNOWN_CA            48
#define SE_TLS_ALERT_DECODE_ERROR          50
#define SE_TLS_ALERT_DECRYPT_ERROR         51
#define SE_TLS_ALERT_PROTOCOL_VERSION      70
#define SE_TLS_ALERT_INTERNAL_ERROR        80
#define SE_TLS_ALERT_NO_RENEGOTIATION      100
#define SE_TLS_ALERT_UNSUPPORTED_EXTENSION 110
#define SE_TLS_ALERT_CERTIFICATE_REQUIRED  116

typedef enum { SE_TLS_STREAM = 0, SE_TLS_DATAGRAM = 1 } se_tls_transport; /* TLS over TCP / DTLS over UDP */
typedef enum { SE_TLS_CLIENT = 0, SE_TLS_SERVER = 1 } se_tls_role;
typedef enum {
    SE_TLS_CLIENT_CERT_NONE = 0,     /* server: no CertificateRequest */
    SE_TLS_CLIENT_CERT_OPTIONAL = 1, /* server: request, accept an empty Certificate */
    SE_TLS_CLIENT_CERT_REQUIRED = 2, /* server: request, refuse without (certificate_required) */
} se_tls_client_auth;

typedef enum {
    SE_TLS_HANDSHAKING = 0,
    SE_TLS_ESTABLISHED,  /* application data flows */
    SE_TLS_CLOSED,       /* close_notify sent or received */
    SE_TLS_FAILED,       /* a fatal error; se_tls_error() says which */
} se_tls_state;

/* The client's cache of one server certificate (cached-certificate mode, seed 001): after a
 * full chain verification the leaf's SHA-256 fingerprint, key, validity period and commonName
 * are kept, with the server name it was checked for. A later handshake whose leaf has the same
 * fingerprint, asking for the same non-empty name (or none), skips chain verification and the leaf's
 * parsing: the cached validity period is checked against the clock again and the
 * ServerKeyExchange signature is still verified with the cached key; the issuers' signatures
 * and validity are not re-checked. On the engine the key's comb table is kept as well
 * (se_ecdsa_remember_key, once a full handshake's last flight is out), which makes that
 * verification cheaper.
 * A name longer than SE_TLS_CACHE_NAME - 1 is never cached. Zero it to start empty. */
#define SE_TLS_CACHE_NAME 64
#define SE_TLS_MAX_CN 40 /* the peer's commonName kept (NUL included) */
typedef struct {
    uint8_t valid;
    uint8_t fingerprint[32];
    uint8_t pub[65];
    char name[SE_TLS_CACHE_NAME]; /* the server name checked ("": none was asked for) */
    char cn[SE_TLS_MAX_CN];       /* the leaf's commonName, as se_tls_peer_name gives it */
    int64_t not_before, not_after;
} se_tls_cert_cache;

/* Transport and hooks, all called synchronously from se_tls_* calls. */
typedef struct {
    /* Sends one datagram (DTLS) or bytes of the stream (TLS); returns 0, or nonzero on failure
     * (the call then fails with SE_ERR_TLS_IO). */
    int (*send)(void *ctx, const uint8_t *buf, size_t len);
    /* Monotonic milliseconds (DTLS retransmission timers; may be NULL for TLS). */
    uint32_t (*now_ms)(void *ctx);
    /* Decrypted application data, one record at a time (may be NULL to discard). */
    void (*on_data)(void *ctx, const uint8_t *buf, size_t len);
    /* Phase boundaries for measurements (may be NULL): called with a string literal naming the
     * phase that starts now: "hello", "cert_verify", "key_exchange", "finished", "done". */
    void (*phase)(void *ctx, const char *name);
    /* Debugging only (may be NULL; not there in a build with -DSE_TLS_NO_KEYLOG, the node's):
     * the master secret once it is made, with the client random that names the connection, as
     * NSS's key log file takes them (Wireshark decrypts a capture with it; the host programs write
     * it where $SSLKEYLOGFILE says). */
#ifndef SE_TLS_NO_KEYLOG
    void (*keylog)(void *ctx, const uint8_t client_random[32], const uint8_t master[48]);
#endif
    void *ctx;
} se_tls_io;

typedef struct {
    se_tls_transport transport;
    se_tls_role role;
    const se_backend *crypto;      /* where the crypto runs */
    se_hmac_drbg_ctx *rng;         /* seeded by the caller (OS entropy / the node's TRNG) */
    /* secp256r1, initialised by the caller once and shared by all connections (se_ec_curve_builtin,
     * then crypto->ec_curve where the backend has one; or se_ec_curve_engine, se/ec_hw.h): ECDHE,
     * ECDSA and certificate checks run on it. */
    const se_ec_curve *p256;
    const uint16_t *suites;        /* enabled suites, preference order; NULL: CCM_8, GCM, CBC (not
                                    * in a build without CBC) */
    size_t n_suites;
    /* Own certificate chain (leaf first, DER) and the leaf's P-256 private key (32 bytes).
     * Server: required. Client: optional (sent when the server asks). */
    const uint8_t *const *chain;
    const size_t *chain_len;
    size_t chain_n;
    const uint8_t *key;
    /* Trust anchors (DER certificates) for the peer's chain; n_anchors 0 = accept no chain. */
    const uint8_t *const *anchors;
    const size_t *anchor_len;
    size_t n_anchors;
    const char *server_name;       /* client: the name the server's leaf must carry; NULL: no check */
    se_tls_client_auth client_auth;  /* server only */
    int64_t now;                   /* Unix seconds for certificate validity */
    se_tls_cert_cache *cache;      /* client: cached-certificate mode; NULL: always full verify */
    size_t mtu;                    /* DTLS: largest datagram to send, <= SE_TLS_MAX_MTU; 0: 1200 */
    uint32_t retransmit_ms;        /* DTLS: initial retransmission timeout; 0: 1000 (doubles, max 60 s) */
    unsigned max_retransmits;      /* DTLS: resends of one flight before SE_ERR_TLS_TIMEOUT; 0: 6 */
    unsigned faults;               /* testing only: SE_TLS_FAULT_* bits, 0 in normal use */
    /* DTLS Connection ID (RFC 9146), for the AEAD suites: a client offers the connection_id
     * extension with an empty CID of its own (the server's records to it carry none: it is the
     * client whose address changes); a server accepts it and names the connection with a random
     * CID of SE_TLS_CID_LEN bytes, which the client's records then carry (tls12_cid records), so
     * the server finds the connection by it from any address (se/dtls_server.h). 0: off.
     * SE_ERR_NOT_SUPPORTED from se_tls_init over a backend without aead_seal/aead_open. Not there in a build with -DSE_TLS_NO_CID. */
#ifndef SE_TLS_NO_CID
    uint8_t cid;
#endif
} se_tls_config;

/* Fault injection for the negative tests (a peer must reject what these produce). */
#define SE_TLS_FAULT_BAD_FINISHED 0x1u /* our Finished carries a wrong verify_data */

/* Per-connection counters (for tests, the collector and the bench). */
typedef struct {
    uint32_t records_in, records_out;
    uint32_t dropped_bad_mac;      /* DTLS: records failing their tag/MAC (dropped) */
    uint32_t dropped_replay;       /* DTLS: records rejected by the replay window */
    uint32_t dropped_malformed;    /* DTLS: malformed records or wrong epoch (dropped) */
    uint32_t retransmits;          /* flights we resent */
    uint32_t hs_messages_in;       /* the peer's handshake messages taken (not repeated ones) */
    uint32_t app_bytes_in, app_bytes_out;
} se_tls_stats;

/* One connection. Opaque: use the functions below. Its size depends on the sizes above. */
typedef struct se_tls se_tls;

/* ---- the connection ------------------------------------------------------------------- */
/* Sets up a connection with cfg and io (both must outlive it). SE_ERR_BAD_INPUT for a bad
 * config (no key for a server, mtu too large, unknown suite). The client sends nothing yet. */
se_status se_tls_init(se_tls *t, const se_tls_config *cfg, const se_tls_io *io);
/* Client: sends the ClientHello. */
se_status se_tls_start(se_tls *t);
/* Feeds received bytes: one whole datagram (DTLS) or any part of the stream (TLS). May send
 * (replies, retransmissions) and deliver application data. */
se_status se_tls_input(se_tls *t, const uint8_t *buf, size_t len);
/* Milliseconds until se_tls_timer is due (DTLS, during the handshake), UINT32_MAX if none. */
uint32_t se_tls_timeout_ms(const se_tls *t);
/* Runs the DTLS retransmission timer: resends the last flight (doubling the timeout) or fails
 * with SE_ERR_TLS_TIMEOUT after max_retransmits. A no-op when nothing is due. */
se_status se_tls_timer(se_tls *t);
/* Sends application data (ESTABLISHED only), split into records of at most the MTU (DTLS)
 * or SE_TLS_MAX_RECORD (TLS). */
se_status se_tls_write(se_tls *t, const uint8_t *buf, size_t len);
/* Sends close_notify; the connection becomes SE_TLS_CLOSED. */
se_status se_tls_close(se_tls *t);

se_tls_state se_tls_get_state(const se_tls *t);
se_status se_tls_error(const se_tls *t);         /* the fatal error, SE_OK if none */
int se_tls_peer_alert(const se_tls *t);          /* the fatal alert received, -1 if none */
int se_tls_sent_alert(const se_tls *t);          /* the fatal alert we sent, -1 if none */
uint16_t se_tls_suite(const se_tls *t);          /* the negotiated suite, 0 before ServerHello */
/* The peer's leaf certificate key (04||x||y) and whether it was authenticated by a certificate
 * (a server with client_auth OPTIONAL may end up with an anonymous client: returns 0). */
int se_tls_peer_key(const se_tls *t, uint8_t pub[65]);
/* The peer leaf's subject commonName (copied, NUL-terminated, truncated to cap-1); 0 if none. */
size_t se_tls_peer_name(const se_tls *t, char *buf, size_t cap);
int se_tls_used_cache(const se_tls *t);          /* client: this handshake skipped chain verification */
const se_tls_stats *se_tls_get_stats(const se_tls *t);
#ifndef SE_TLS_NO_CID
/* The connection ID negotiated (RFC 9146): ours, the one the peer's records carry (*len bytes;
 * a server's SE_TLS_CID_LEN), or NULL when none was negotiated. */
const uint8_t *se_tls_own_cid(const se_tls *t, size_t *len);
#endif
#ifndef SE_TLS_NO_SERVER
/* Builds with the server: the protected record whose application data on_data is delivering, as
 * epoch << 48 | sequence number (DTLS: the record's own; TLS: its implicit number). Unique within a
 * connection; a reading store keys its rows on it (docs/collector.md). */
uint64_t se_tls_record_number(const se_tls *t);
#endif
/* Suite by name: "ccm8", "gcm", "cbc" (also the IANA names); 0 if unknown. */
uint16_t se_tls_suite_by_name(const char *name);
const char *se_tls_suite_name(uint16_t suite);   /* IANA name, "unknown" */
const char *se_tls_alert_name(int alert);        /* "bad_record_mac", ...; "unknown" */

/* The connection's layout, public only so callers can allocate it (statically or on the
 * stack); fields are private to sw/proto. */
#include "se/tls_ctx.h"

#endif
