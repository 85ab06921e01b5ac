/* Shared between the parts of the DTLS/TLS stack: tls_record.c (records, protection, replay
 * window, alerts), tls_dtls.c (handshake reassembly, flights, fragmentation, retransmission),
 * tls_hs.c (handshake messages, both roles), tls_prf.c (PRF, key schedule), dtls_server.c (the
 * DTLS server's cookies and peer slots, se/dtls_server.h). */
#ifndef SE_TLS_INTERNAL_H
#define SE_TLS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "se/tls.h"

/* Record content types (RFC 5246 6.2.1; tls12_cid: RFC 9146). */
enum { CT_CCS = 20, CT_ALERT = 21, CT_HANDSHAKE = 22, CT_APP = 23, CT_CID = 25 };
#define EXT_CID 54 /* connection_id (RFC 9146) */

/* Handshake message types (RFC 5246 7.4, RFC 6347 4.2.1). */
enum {
    HT_HELLO_REQUEST = 0, HT_CLIENT_HELLO = 1, HT_SERVER_HELLO = 2, HT_HELLO_VERIFY = 3,
    HT_CERTIFICATE = 11, HT_SKE = 12, HT_CERT_REQUEST = 13, HT_SHD = 14, HT_CERT_VERIFY = 15,
    HT_CKE = 16, HT_FINISHED = 20,
};

/* Handshake states: what the connection waits for next. */
enum {
    HS_C_START,  /* client before se_tls_start */
    HS_C_SH,     /* ServerHello (or HelloVerifyRequest) */
    HS_C_CERT,   /* the server's Certificate */
    HS_C_SKE,    /* ServerKeyExchange */
    HS_C_SHD,    /* CertificateRequest or ServerHelloDone */
    HS_C_CCS,    /* the server's ChangeCipherSpec */
    HS_C_FIN,    /* the server's Finished */
    HS_S_CH,     /* ClientHello */
    HS_S_CERT,   /* the client's Certificate (CertificateRequest sent) */
    HS_S_CKE,    /* ClientKeyExchange */
    HS_S_CV,     /* CertificateVerify */
    HS_S_CCS,    /* the client's ChangeCipherSpec */
    HS_S_FIN,    /* the client's Finished */
    HS_DONE,     /* established */
};

/* t->flags */
#define F_CERT_REQ  0x01u /* client: the server asked for a certificate */
#define F_OWN_CERT  0x02u /* client: we send a non-empty Certificate + CertificateVerify */
#define F_PEER_AUTH 0x04u /* the peer's certificate was verified (or found in the cache) */
#define F_PEER_PF   0x08u /* server: the client sent ec_point_formats */
#define F_PEER_RI   0x10u /* server: the client sent renegotiation_info or its SCSV */
#define F_SEQ_SET   0x20u /* server (DTLS): message_seq taken from the first ClientHello */
#define F_PK_BUSY   0x40u /* client: an ECC operation begun and not ended (se_ec_cancel in se_tls_wipe) */

/* Build-time subsets (se/tls.h): -DSE_TLS_NO_SERVER builds the client only, -DSE_TLS_NO_STREAM
 * DTLS only, -DSE_TLS_NO_CBC leaves the CBC-SHA256 suite out. The code they drop stays compiled,
 * behind these constants. */
#ifdef SE_TLS_NO_SERVER
#define TLS_CLIENT_ONLY 1
#else
#define TLS_CLIENT_ONLY 0
#endif
#ifdef SE_TLS_NO_STREAM
#define TLS_DTLS_ONLY 1
#else
#define TLS_DTLS_ONLY 0
#endif
#ifdef SE_TLS_NO_CBC
#define TLS_CBC 0
#else
#define TLS_CBC 1
#endif
#ifdef SE_TLS_NO_CID
#define TLS_CID 0
#else
#define TLS_CID 1
#endif

/* The connection runs DTLS (constant 1 in a DTLS-only build). */
static inline int is_dtls(const se_tls *t)
{
    return TLS_DTLS_ONLY || t->dtls;
}

/* The connection is a server (constant 0 in a client-only build, whose se_tls_init refuses the
 * role). Past se_tls_start a connection that is not a server is a client. */
static inline int is_server(const se_tls *t)
{
    return !TLS_CLIENT_ONLY && t->cfg->role == SE_TLS_SERVER;
}

#define TLS_VERSION  0x0303u /* TLS 1.2 */
#define DTLS_VERSION 0xFEFDu /* DTLS 1.2 */
#define GROUP_P256   23u
#define SIG_P256_SHA256 0x0403u

/* ---- bounds-checked readers and writers ----------------------------------------------- */
typedef struct {
    const uint8_t *p;
    size_t n;   /* bytes left */
    int bad;    /* a read ran past the end */
} tls_rd;

/* Bounds-checked reads (tls_prf.c): past the end they return 0 / an empty vector and set bad
 * (check r->bad before using what se_rd_bytes returned). */
uint32_t se_rd_u8(tls_rd *r);
uint32_t se_rd_u16(tls_rd *r);
uint32_t se_rd_u24(tls_rd *r);
const uint8_t *se_rd_bytes(tls_rd *r, size_t k);
/* A vector with a len_bytes (1..3) length prefix, as a reader of its own. */
tls_rd se_rd_vec(tls_rd *r, int len_bytes);

typedef struct {
    uint8_t *p;
    size_t cap, len;
    int bad;    /* a write did not fit */
} tls_wr;

/* Writes that do not fit set bad and write nothing (tls_prf.c). */
void se_wr_bytes(tls_wr *w, const uint8_t *src, size_t k);
void se_wr_uint(tls_wr *w, uint32_t v, int bytes);

/* (p[0] << 8 | p[1] would become a byte-swapped halfword load, twice the code on rv32.) */
static inline uint32_t be16(const uint8_t *p) { return p[0] * 256u + p[1]; }
static inline uint32_t be24(const uint8_t *p) { return (uint32_t)p[0] << 16 | be16(p + 1); }
static inline void put_be(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

/* ---- tls_record.c --------------------------------------------------------------------- */
/* Fails the connection: records st, sends a fatal alert (alert >= 0), state FAILED. Returns st. */
se_status se_tls_fail(se_tls *t, se_status st, int alert);
/* Wipes the ephemeral key and master secret; with keys, the record keys too (the connection is
 * over: failed or closed). */
void se_tls_wipe(se_tls *t, int keys);
/* The DTLS datagram size / TLS send buffer size, and the record header length. */
size_t se_tls_out_cap(const se_tls *t);
size_t se_tls_hdr_len(const se_tls *t);
/* Record expansion of our protection in `epoch` (0: none). */
size_t se_tls_overhead(const se_tls *t, uint16_t epoch);
/* The 13 bytes a record's protection authenticates: seq_num (DTLS: epoch || seq) || type ||
 * version || length. */
void se_tls_pseudo_header(const se_tls *t, uint8_t ph[13], uint64_t seq_num, uint8_t type, size_t len);
/* A record's header at rec: type, version, DTLS's seq_num, and the body's length n. */
void se_tls_put_header(const se_tls *t, uint8_t *rec, uint8_t type, uint64_t seq_num, size_t n);
/* Appends one record (payload a || b) to the output, sending what is there first if the record
 * does not fit; se_tls_flush sends the output (one datagram for DTLS). */
se_status se_tls_record(se_tls *t, uint8_t type, uint16_t epoch, const uint8_t *a, size_t alen,
                     const uint8_t *b, size_t blen);
se_status se_tls_flush(se_tls *t);
se_status se_tls_alert(se_tls *t, int level, int desc);
/* The content of one accepted (decrypted) record. */
se_status se_tls_content(se_tls *t, uint8_t type, const uint8_t *d, size_t n, int old_epoch);
void se_tls_phase(se_tls *t, const char *name);

/* ---- tls_dtls.c ----------------------------------------------------------------------- */
/* Handshake record content: reassembles messages (DTLS fragments or the TLS stream) and hands
 * each complete one to se_tls_hs_message. old_epoch: a retransmission from the previous epoch. */
se_status se_tls_hs_data(se_tls *t, const uint8_t *d, size_t n, int old_epoch);
/* Building our flight: se_tls_msg_begin gives a writer over a new message's body, se_tls_msg_end
 * adds its header, hashes it into the transcript and keeps it in the flight. */
void se_tls_flight_reset(se_tls *t);
tls_wr se_tls_msg_begin(se_tls *t);
se_status se_tls_msg_end(se_tls *t, uint8_t type, tls_wr *w);
se_status se_tls_flight_ccs(se_tls *t);
/* Sends (or resends) the whole flight; arm: start the retransmission timer (DTLS). */
se_status se_tls_flight_send(se_tls *t, int arm);

/* ---- tls_hs.c ------------------------------------------------------------------------- */
/* A complete handshake message is in t->buf (body at SE_TLS_HS_HEADER, hs_type, hs_len). */
se_status se_tls_hs_message(se_tls *t);
se_status se_tls_send_client_hello(se_tls *t);
/* Server, established: a ClientHello asks for renegotiation, answered with a no_renegotiation
 * warning. */
se_status se_tls_hs_renegotiation(se_tls *t);

/* ---- tls_prf.c ------------------------------------------------------------------------ */
se_status se_tls_prf(const se_backend *be, const uint8_t *secret, size_t secret_len, const char *label,
                  const uint8_t *seed, size_t seed_len, uint8_t *out, size_t out_len);
/* The transcript hash so far (the running hash is not disturbed). */
void se_tls_transcript_hash(const se_tls *t, uint8_t out[32]);
/* master = PRF(pms, "extended master secret", session_hash), then the key block into rd/wr. */
se_status se_tls_derive_keys(se_tls *t, const uint8_t pms[32]);
/* verify_data of the client's (from_server 0) or server's Finished over the transcript so far. */
se_status se_tls_finished(se_tls *t, int from_server, uint8_t out[12]);

/* ---- record protection: one class per suite (tls_aead.c, tls_cbc.c) ----------------------
 * BearSSL's ssl_rec shape: each direction's se_tls_rec is set up once per epoch from the key
 * block, then seals or opens each record in place. A record body is the explicit nonce or IV
 * (explicit_len bytes) || the protected plaintext; it grows by overhead at most. */
typedef struct se_tls_rec_class {
    uint8_t mac_len, iv_len; /* the key block's MAC key and implicit nonce per direction */
    uint8_t explicit_len, overhead;
    uint8_t aead_mode;       /* AEAD suites: se_aead_mode */
    /* Sets up both directions (their cls already set) from the key block (RFC 5246 6.3: the
     * client's and the server's MAC keys, then AES keys, then implicit nonces). */
    se_status (*init)(const se_tls *t, se_tls_rec *client, se_tls_rec *server, const uint8_t *kb);
    /* Protects len bytes of plaintext at src, which is either in place (the record's body +
     * explicit_len) or a buffer apart from the record: the whole record, header and body, is
     * written at rec; *n = body length. */
    se_status (*seal)(se_tls *t, const se_tls_rec *r, uint8_t type, uint64_t sn, const uint8_t *src,
                      uint8_t *rec, size_t len, size_t *n);
    /* Checks and decrypts body (n bytes) in place: the plaintext at body + explicit_len, *pt_len
     * bytes. SE_ERR_BAD_TAG for any failure (tag, MAC, padding, length): a sender learns nothing
     * about which. */
    se_status (*open)(const se_tls *t, const se_tls_rec *r, uint8_t type, uint64_t sn, uint8_t *body, size_t n,
                      size_t *pt_len);
    /* Ends a direction's keys held outside its record object (the engine's key slot), or NULL;
     * the record object itself is zeroed after it. */
    void (*end)(const se_tls *t, se_tls_rec *r);
} se_tls_rec_class;
extern const se_tls_rec_class se_tls_rec_ccm8, se_tls_rec_gcm; /* tls_aead.c */
extern const se_tls_rec_class se_tls_rec_cbc, se_tls_rec_cbc_etm; /* tls_cbc.c: MAC-then-encrypt, RFC 7366 */

/* ---- tls_cbc.c ------------------------------------------------------------------------ */
/* The MAC-then-encrypt check of a decrypted CBC-SHA256 record (RFC 5246 6.2.3.2): p holds
 * plaintext || HMAC-SHA256 || padding, clen bytes; hdr is the MAC input's seq_num || type ||
 * version (the length follows from the padding). Returns 1 and the plaintext's length in *plen
 * when clen is a multiple of 16 of at least 48 and the padding and MAC are good, else 0. Branches,
 * memory addresses and SHA-256 compressions depend on clen only (Lucky Thirteen). */
int se_tls_cbc_check(const uint8_t key[32], const uint8_t hdr[11], const uint8_t *p, size_t clen,
                  size_t *plen);
/* Its MAC: HMAC-SHA256(key, hdr || plen (2 bytes) || p[0, plen)), for a secret plen anywhere in
 * [clen - 32 - 256, clen - 32], in the same constant time. */
void se_tls_cbc_hmac(const uint8_t key[32], const uint8_t hdr[11], const uint8_t *p, size_t clen,
                  uint32_t plen, uint8_t mac[32]);

/* The fields of a record the crypto API takes (se/aes.h's se_record) but the AEAD ones (tag_len, salt). */
static inline void tls_record_fields(const se_tls *t, uint8_t type, uint64_t sn, se_record *x)
{
    x->seq_num = sn;
    x->version = is_dtls(t) ? DTLS_VERSION : TLS_VERSION;
    x->type = type;
    x->dtls = (uint8_t)is_dtls(t);
}

static inline int tls_is_cbc(uint16_t suite)
{
    return TLS_CBC && suite == SE_TLS_ECDHE_ECDSA_AES_128_CBC_SHA256;
}

/* DTLS Connection ID (RFC 9146, tls_cid.c; stubs in a build without it). */
#ifndef SE_TLS_NO_CID
/* The connection_id extension for our hello at out (at most 5 + SE_TLS_MAX_CID bytes): the
 * client's offer, or the server's answer once it accepted; its length, 0 for none. */
size_t se_tls_cid_hello_ext(const se_tls *t, uint8_t *out);
/* The extension in the peer's hello: client (ServerHello), server (ClientHello; the offer is
 * taken or dropped by se_tls_cid_accept once the suite is chosen). Fail the connection on error. */
se_status se_tls_cid_server_hello(se_tls *t, tls_rd d);
se_status se_tls_cid_client_hello(se_tls *t, tls_rd d);
se_status se_tls_cid_accept(se_tls *t);
/* Our records of `epoch` are tls12_cid records; the bytes they add to a record's protection. */
int se_tls_cid_sending(const se_tls *t, uint16_t epoch);
size_t se_tls_cid_extra(const se_tls *t, uint16_t epoch);
/* Seals the record at rec whose len bytes of content already lie at its plaintext place (rec +
 * 13 + CID + 8); *n: its bytes past the first 13. */
se_status se_tls_cid_seal(se_tls *t, uint8_t type, uint64_t sn, uint8_t *rec, size_t len, size_t *n);
/* The header length of the tls12_cid record at d (len bytes left), 0 if it is none of ours. */
size_t se_tls_cid_header(const se_tls *t, const uint8_t *d, size_t len);
/* Checks and decrypts the n-byte body of the tls12_cid record rec (record number sn: epoch <<
 * 48 | sequence number) in place: its real type, the content at *pt (*pt_len bytes).
 * SE_ERR_BAD_TAG, or SE_ERR_TLS_DECODE (wrong CID, too short, no type). */
se_status se_tls_cid_open(se_tls *t, const uint8_t *rec, uint64_t sn, uint8_t *body, size_t n, uint8_t *type,
                          uint8_t **pt, size_t *pt_len);
/* The peer's protected records must carry our CID (one was negotiated and is not empty). */
int se_tls_cid_expected(const se_tls *t);
#else
static inline int se_tls_cid_expected(const se_tls *t) { (void)t; return 0; }
static inline size_t se_tls_cid_hello_ext(const se_tls *t, uint8_t *out) { (void)t, (void)out; return 0; }
static inline se_status se_tls_cid_server_hello(se_tls *t, tls_rd d)
{
    (void)d;
    return se_tls_fail(t, SE_ERR_TLS_ILLEGAL_PARAMETER, SE_TLS_ALERT_UNSUPPORTED_EXTENSION);
}
static inline se_status se_tls_cid_client_hello(se_tls *t, tls_rd d) { (void)t, (void)d; return SE_OK; }
static inline se_status se_tls_cid_accept(se_tls *t) { (void)t; return SE_OK; }
static inline int se_tls_cid_sending(const se_tls *t, uint16_t epoch) { (void)t, (void)epoch; return 0; }
static inline size_t se_tls_cid_extra(const se_tls *t, uint16_t epoch) { (void)t, (void)epoch; return 0; }
static inline se_status se_tls_cid_seal(se_tls *t, uint8_t type, uint64_t sn, uint8_t *rec, size_t len, size_t *n)
{
    (void)t, (void)type, (void)sn, (void)rec, (void)len, (void)n;
    return SE_ERR_NOT_SUPPORTED;
}
static inline size_t se_tls_cid_header(const se_tls *t, const uint8_t *d, size_t len)
{
    (void)t, (void)d, (void)len;
    return 0;
}
static inline se_status se_tls_cid_open(se_tls *t, const uint8_t *rec, uint64_t sn, uint8_t *body, size_t n,
                                        uint8_t *type, uint8_t **pt, size_t *pt_len)
{
    (void)t, (void)rec, (void)sn, (void)body, (void)n, (void)type, (void)pt, (void)pt_len;
    return SE_ERR_NOT_SUPPORTED;
}
#endif

/* The record class of the connection's suite (and encrypt-then-MAC for CBC). */
static inline const se_tls_rec_class *tls_rec_class(const se_tls *t)
{
    if (tls_is_cbc(t->suite))
        return t->etm ? &se_tls_rec_cbc_etm : &se_tls_rec_cbc;
    return t->suite == SE_TLS_ECDHE_ECDSA_AES_128_GCM_SHA256 ? &se_tls_rec_gcm : &se_tls_rec_ccm8;
}

#endif
