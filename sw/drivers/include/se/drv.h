/* Engine drivers: AES (all modes, AEAD), SHA-256/HMAC and public-key cryptography (prime-field
 * ECC, X25519, big-integer commands; binary-field B-233/K-233) on the hardware engine.
 *
 * One copy of this code serves the CLI's --backend rtl (host, Verilator model) and the node's
 * firmware (issue 5). The entry points are one-shot (pk multiplication and signing also in
 * start/collect halves) and mirror the `sw` library's semantics and status codes, so the same
 * vectors run through either. Register layouts come from the generated
 * headers se/hw/<ip>_regs.h (tools/regtool.py from rtl/<ip>/regs.toml). */
#ifndef SE_DRV_H
#define SE_DRV_H

#include <stddef.h>
#include <stdint.h>

#include "se/aes.h"
#include "se/bn.h"
#include "se/ec.h"
#include "se/sha256.h"
#include "se/status.h"

/* SE_OK when the engine answers with the expected NAME and a major VERSION this driver knows,
 * SE_ERR_NOT_SUPPORTED otherwise. */
se_status se_drv_aes_probe(void);
se_status se_drv_sha_probe(void);
/* The engine's DMA, at least version 0.2 (the descriptor ops the drivers use). */
se_status se_drv_dma_probe(void);

/* ECB/CBC need a multiple of 16 bytes; CTR/OFB any length. iv is the CBC/OFB IV or the initial
 * CTR counter block (unused for ECB). */
se_status se_drv_aes_crypt(se_aes_mode mode, int decrypt, const uint8_t *key, size_t key_len,
                           const uint8_t iv[16], const uint8_t *in, size_t len, uint8_t *out);

/* CBC-MAC (zero IV) over a non-empty multiple of 16 bytes, truncated to mac_len 4..16. */
se_status se_drv_aes_cbc_mac(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                             uint8_t *mac, size_t mac_len);

/* A keyed AEAD context in one of the engine's key slots (AES 1.1: CAPABILITIES.SLOTS, docs/engine.md).
 * se_drv_aead_key loads the key into a slot (the four in turn) once; each message
 * then starts from the slot (INIT with CTRL.USE_SLOT), with GCM's H kept there after the first. A
 * context whose slot another has taken since loads it again at its next message (the context keeps
 * the key for that). se_drv_aead_wipe wipes the slot (SLOT_CMD WIPE), clears the cipher's own copy
 * of the key, and zeroes the context. */
se_status se_drv_aead_key(se_aead_key *k, se_aead_mode mode, const uint8_t *key, size_t key_len);
void se_drv_aead_wipe(se_aead_key *k);
/* A context for a key the engine put in slot 0..3 itself (the controller's KEYS, HW mode): the bus
 * never had it, so the context holds none, and once another context takes the slot its messages
 * are refused (SE_ERR_BAD_INPUT; records: SE_ERR_BAD_LENGTH) instead of run under another key.
 * SE_ERR_BAD_INPUT for a slot past 3 or a mode not GCM or CCM. */
se_status se_drv_aead_slot(se_aead_key *k, se_aead_mode mode, unsigned slot);

/* GCM (any non-empty IV, tag 4..16) and CCM (nonce 7..13, even tag 4..16) under such a context.
 * open returns SE_ERR_BAD_TAG without touching `pt` when the tag does not verify: the engine holds
 * the plaintext until its own tag check passes, so a message longer than the engine's plaintext
 * buffer (CAPABILITIES.PTBUF_BLOCKS blocks) is refused with SE_ERR_BAD_LENGTH. */
se_status se_drv_aead_seal(const se_aead_key *k, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                           size_t aad_len, const uint8_t *pt, size_t len, uint8_t *ct, uint8_t *tag,
                           size_t tag_len);
se_status se_drv_aead_open(const se_aead_key *k, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                           size_t aad_len, const uint8_t *ct, size_t len, const uint8_t *tag, size_t tag_len,
                           uint8_t *pt);

/* A DTLS/TLS 1.2 AEAD record under such a context (se/backend.h's record_seal and record_open), as
 * one DMA command, SEAL or OPEN (DMA 0.2, rtl/dma/README.md): the engine builds the nonce, the AAD
 * and the header itself, and OPEN writes the plaintext only once the tag checks out.
 * SE_ERR_NOT_SUPPORTED when the DMA cannot reach a buffer (nothing done; se_backend_hw then makes
 * the record of se_drv_aead_seal/open), SE_ERR_BAD_LENGTH for lengths out of range, which for OPEN
 * include a plaintext longer than the engine's plaintext buffer, as for se_drv_aead_open. */
se_status se_drv_record_seal(const se_aead_key *k, const se_record *r, const uint8_t *pt, size_t len, uint8_t *rec);
se_status se_drv_record_open(const se_aead_key *k, const se_record *r, uint8_t *body, size_t n);
/* A MAC-then-encrypt CBC-SHA256 record (se/backend.h's cbc_record_seal and cbc_record_open) as one
 * DMA chain (DMA 0.3): the HMAC key into the SHA engine, SEAL_CBC or OPEN_CBC, and the key wiped
 * from the SHA engine after it. OPEN_CBC decrypts, checks padding and MAC in constant time, and
 * writes the plaintext only if they check out. SE_ERR_NOT_SUPPORTED when the DMA lacks them or
 * cannot reach a buffer (nothing done). */
se_status se_drv_record_cbc_seal(const se_aead_key *k, const uint8_t mac_key[32], const se_record *r, uint8_t *rec,
                                 size_t len);
se_status se_drv_record_cbc_open(const se_aead_key *k, const uint8_t mac_key[32], const se_record *r, uint8_t *body,
                                 size_t n, size_t *len);

se_status se_drv_sha256(const uint8_t *msg, size_t len, uint8_t digest[32]);

/* One SHA-256 compression of block into h on the engine (RESUME from h, BLOCK, the chaining value
 * read back). h is unchanged unless SE_OK. Leaves a plain message open on the engine (the next
 * INIT or KEY ends it). */
se_status se_drv_sha256_compress(uint32_t h[8], const uint8_t block[64]);

/* The key is loaded into the engine (hashed first when longer than 64 bytes, RFC 2104). */
se_status se_drv_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t len,
                             uint8_t mac[32]);

/* n whole blocks into h by the DMA in one descriptor (SHA with RESUME, DMA 0.2): the chaining value
 * read from RAM, the blocks compressed, the new one written back. A running hash (the DTLS
 * transcript's) so crosses the bus once. h is unchanged unless SE_OK; where the DMA cannot reach
 * data, block by block through the registers (se_drv_sha256_compress). */
se_status se_drv_sha256_blocks(uint32_t h[8], const uint8_t *data, size_t n);

/* The three above as the library's SHA-256 engine (se/sha256.h): se_backend_hw's `sha`, and where the
 * engine's curves hash RFC 6979's nonces. Every SHA-256 context started on it compresses on the SHA
 * IP, and whole HMACs use its keyed mode. */
extern const se_sha256_engine se_drv_sha256_engine;

/* ---- prime-field public-key engine (rtl/pk, docs/regs/pk.md, docs/regs/pk_ucode.md) ----------
 * Big-endian integers. A curve's a, b, gx, gy are p_len bytes; scalars and ECDSA values n_len.
 * Points are x and y of p_len bytes each (the point at infinity has no encoding). */
typedef struct {
    const uint8_t *p, *a, *b, *gx, *gy, *n;
    size_t p_len, n_len; /* 1..32 */
} se_drv_ec_params;

se_status se_drv_pk_probe(void);
/* Loads p, n, a, b, G (programs FIELD, ORDER, CURVE) unless the same curve is loaded already;
 * SE_ERR_BAD_PARAMS if the engine refuses them (p or n even, a coordinate >= p, G off the curve). */
se_status se_drv_pk_load_curve(const se_drv_ec_params *c);
/* The same, and G's comb table in cache entry 0 unless it is there already (PRECOMP: about 117 k
 * cycles at 256 bits): a node calls it once at boot so no key or signature pays for it later. */
se_status se_drv_pk_load_curve_g(const se_drv_ec_params *c);
/* (rx, ry) = k * (x, y) (x-only ladder), or k * G when x is NULL (fixed-base comb over G's table,
 * which the driver precomputes into the engine's cache entry 0 on the first such call for a
 * curve); k < 2^(DW * ceil(bits(n) / DW)), DW = the engine's digit width (CAPABILITIES.DIGIT).
 * Errors: SE_ERR_INVALID_POINT, SE_ERR_INVALID_SCALAR (k too wide), SE_ERR_INFINITY. */
se_status se_drv_pk_mul(const se_drv_ec_params *c, const uint8_t *k, const uint8_t *x,
                        const uint8_t *y, uint8_t *rx, uint8_t *ry);
/* Multiplication and signing also come in two halves, so the CPU can work while the engine
 * computes: a _start loads the operands and leaves the program running; se_drv_pk_collect
 * waits for it and returns its result (rx, ry: p_len bytes each; r, s: n_len) or its error.
 * Any other pk call made in between first waits for the program and keeps its result for
 * collect; a second start drops an uncollected result. collect without a start:
 * SE_ERR_BAD_INPUT; collect(NULL, NULL) discards (waits, clears the engine's slots and the kept
 * result: after a failure between start and collect). */
se_status se_drv_pk_mul_start(const se_drv_ec_params *c, const uint8_t *k, const uint8_t *x,
                              const uint8_t *y);
se_status se_drv_pk_ecdsa_sign_start(const se_drv_ec_params *c, const uint8_t *d, const uint8_t *k,
                                     const uint8_t *e);
se_status se_drv_pk_collect(uint8_t *a, uint8_t *b);
se_status se_drv_pk_validate(const se_drv_ec_params *c, const uint8_t *x, const uint8_t *y);
/* ECDSA with the engine doing all arithmetic: d, k in [1, n-1] (else SE_ERR_INVALID_SCALAR),
 * e = bits2int(hash) (< 2^bits(n)); SE_ERR_BAD_SIGNATURE when r or s comes out 0 (retry with
 * another k). verify: SE_OK or SE_ERR_BAD_SIGNATURE (SE_ERR_INVALID_POINT for a bad Q). */
se_status se_drv_pk_ecdsa_sign(const se_drv_ec_params *c, const uint8_t *d, const uint8_t *k,
                               const uint8_t *e, uint8_t *r, uint8_t *s);
se_status se_drv_pk_ecdsa_verify(const se_drv_ec_params *c, const uint8_t *x, const uint8_t *y,
                                 const uint8_t *e, const uint8_t *r, const uint8_t *s);
/* A public key whose signatures will be verified again (a server's, cached-certificate mode):
 * its comb table goes into the engine's cache entry 1 (PRECOMP), in the background like a
 * _start (it drops an uncollected result; nothing to collect). From then on, verify with this
 * key runs one joint comb over G's and its table (ECDSA_VERIFY_COMB) instead of a ladder and a
 * comb. One key at a time; loading another curve, X25519 and se_drv_pk_mod forget it. SE_ERR_INVALID_POINT (when the
 * table is settled, the key is simply not remembered) for an invalid key. */
se_status se_drv_pk_remember_key(const se_drv_ec_params *c, const uint8_t *x, const uint8_t *y);
/* RFC 7748 X25519 (little-endian byte strings; the driver clamps k and masks u's top bit). */
se_status se_drv_pk_x25519(uint8_t out[32], const uint8_t k[32], const uint8_t u[32]);

/* Big-integer commands modulo an odd m (m_len 1..32 bytes): r = a*b, a+b, a-b or a^-1 mod m
 * for a, b < m (SE_ERR_BAD_INPUT otherwise; that check is not constant time: public operands). Inversion is Fermat's: m must be prime
 * (SE_ERR_NOT_INVERTIBLE for a = 0 or when a * r != 1 mod m). r has m_len bytes. */
se_status se_drv_pk_mod(se_mod_op op, const uint8_t *m, size_t m_len, const uint8_t *a,
                        const uint8_t *b, uint8_t *r);

/* ---- binary-field engine (rtl/gf2m, docs/regs/gf2m.md) ----------------------------------------
 * (rx, ry) = k * (x, y) on sect233k1 (koblitz = 1) or sect233r1: 30-byte big-endian coordinates,
 * k of 30 bytes below 2^233. Errors: SE_ERR_INVALID_POINT (off the curve, x = 0, a coordinate
 * >= 2^233), SE_ERR_INVALID_SCALAR (k >= 2^233), SE_ERR_INFINITY (the result is O). */
se_status se_drv_gf2m_probe(void);
se_status se_drv_gf2m_mul(int koblitz, const uint8_t k[30], const uint8_t x[30], const uint8_t y[30],
                          uint8_t rx[30], uint8_t ry[30]);

/* ---- the protocol controller (rtl/ctrl, docs/regs/ctrl.md, its programs docs/regs/ctrl_ucode.md)
 * Its window is SE_CTRL_MEM_BYTES of RAM in the engine (se/hw/ctrl_ucode.h), whose top from
 * SE_CTRL_SECRET_BASE the bus never reads back and writes only at SE_CTRL_ENT_AT (the DRBG's entropy)
 * and SE_CTRL_CK_AT (the client's key, from a WIPE until a program runs). write and read move
 * n bytes at window address addr (4-byte aligned; the bytes after the last one in its word are kept,
 * but for a write into the secret top, which must be whole words); SE_ERR_BAD_INPUT when addr is not
 * aligned, the bytes do not fit the window, or a write ends in the secret top with a part word;
 * SE_ERR_BACKEND for a read in the secret top or a write there the controller refused. run sets register
 * i to regs[i] for every bit i of mask (regs is read there alone: NULL with mask 0), runs program prog (SE_CTRL_PROG_*) and, once it stops,
 * gives its status code (SE_CTRL_ST_*) in *result, its output slots in out[0..15] (OUT i: a span's
 * or a number's window address in bits 15:0 and its bytes in 31:16, a register's value in 15:0)
 * and in *valid the slots it wrote (bit i). SE_ERR_BACKEND when the controller does not answer or
 * refuses a register access. */
se_status se_drv_ctrl_probe(void);
se_status se_drv_ctrl_write(uint32_t addr, const uint8_t *p, size_t n);
se_status se_drv_ctrl_read(uint32_t addr, uint8_t *p, size_t n);
se_status se_drv_ctrl_run(unsigned prog, const uint16_t regs[16], unsigned mask, unsigned *result, uint32_t out[16],
                          uint32_t *valid);
/* CMD WIPE: zeros over the window's secret top (the DRBG, the keys, the client's key), which opens
 * SE_CTRL_CK_AT to the bus again until the next program. SE_ERR_BACKEND if refused. */
se_status se_drv_ctrl_wipe(void);
/* A certificate's signature checked by the controller's program SIG_CHECK: the SHA-256 of the
 * tbs_len bytes at tbs on the SHA IP, then ECDSA verification of sig (r || s, 32 bytes each) with
 * pub (04 || x || y) on the pk IP, after se_drv_pk_hold_curve(p256). SE_OK, SE_ERR_CERT_SIGNATURE
 * (as se_x509_check_signature says: an invalid key too), SE_ERR_TLS_TOO_LARGE for a tbs the window
 * does not hold with the rest (nothing done: the caller checks it another way), SE_ERR_BACKEND if an
 * IP misbehaves. */
se_status se_drv_ctrl_sig_check(const se_ec_curve *p256, const uint8_t *tbs, size_t tbs_len, const uint8_t sig[64],
                                const uint8_t pub[65]);
/* A certificate chain verified by the controller's program CHAIN_CHECK, with the arguments, the
 * rules and the answers of se_x509_verify_chain (se/x509.h): the chain's entries, the anchors that
 * X509_PARSE accepts (the stack passes over the others), now as 14 digits and the name go into the
 * window, the pk IP holds P-256 (se_drv_pk_hold_curve), and the program checks everything: each
 * certificate, each link, each signature on the SHA and pk IPs, the leaf. SE_ERR_TLS_TOO_LARGE when
 * they do not fit below SE_CTRL_CHAIN_TOP, an entry is empty, there are more than 32 anchors, an
 * anchor is longer than X509_PARSE takes, or the chain ends with a copy of an anchor that does not
 * parse: nothing is decided, the caller checks it another way. */
se_status se_drv_ctrl_chain_check(const se_ec_curve *p256, const uint8_t *const *chain, const size_t *chain_len,
                                  size_t n, const uint8_t *const *anchors, const size_t *anchor_len,
                                  size_t n_anchors, int64_t now, const char *name, uint8_t leaf_pub[65]);

/* n bytes at window address addr, aligned or not (se_drv_ctrl_read's rules otherwise). */
se_status se_drv_ctrl_get(uint32_t addr, uint8_t *p, size_t n);

/* The DTLS 1.2 client handshake run by the controller (HW mode: HANDSHAKE, HS_RECORD, HS_RESEND;
 * docs/tls.md): the caller carries datagrams and seals and opens the epoch-1 records with the key
 * slots KEYS filled; every handshake message, the transcript, the chain's verification and the keys
 * are the controller's. hs_start lays out the window (below SE_CTRL_CHAIN_TOP: the anchors, now,
 * the name, the client's chain, the datagram out, one datagram in of up to datagram_max bytes, and
 * the reassembly buffer in the rest) and runs HANDSHAKE: the client's random, keys and certificate
 * cache stay in the controller from one handshake to the next (WIPE ends them). hs_datagram puts a
 * datagram of the server's into the window (a word per access from a 4-byte aligned d); hs_record
 * hands the controller one of its records, the n bytes of contents at offset off of it, replaced
 * first by the n bytes at body unless body is NULL (an epoch-1 record the caller opened);
 * hs_resend is the retransmission timer's. After each, h->state is the machine's
 * (SE_CTRL_STATE_*), h->result the program's status (SE_CTRL_ST_*: the caller's alert), and
 * h->out_len bytes at window address h->out_at are the datagram to send (0: none); from
 * SE_CTRL_STATE_CCS on it carries the client's flight, whose Finished (24 bytes at SE_CTRL_HS_FIN)
 * the caller seals in epoch 1 after it. Returns SE_OK, a refusal as the software stack names it
 * (SE_ERR_CERT_*, SE_ERR_TLS_*: the handshake has failed), SE_ERR_TLS_TOO_LARGE for a configuration
 * or record that does not fit (nothing run), SE_ERR_BACKEND when the engine misbehaves. The pk IP must
 * hold P-256 with G's comb table in cache entry 0 meanwhile, and run nothing else: the controller's
 * own P256_LOAD puts it there in HW mode (a firmware that shares pk with its driver makes it hold
 * the curve with se_drv_pk_hold_curve before each call). */
typedef struct {
    const uint8_t *const *anchors; /* trust anchors (DER), their lengths and number */
    const size_t *anchor_len;
    size_t n_anchors;
    const uint8_t *const *chain; /* the client's certificate chain, leaf first (none: chain_n 0) */
    const size_t *chain_len;
    size_t chain_n;
    int64_t now;                 /* Unix seconds, for the server's certificates */
    const char *name;            /* the server's name to check (NULL: none) */
    int cached;                  /* cached-certificate mode */
    unsigned slot_c, slot_s;     /* the AES key slots for the client's and the server's write keys */
    size_t datagram_max;         /* the longest datagram hs_datagram takes */
    int placed;                  /* 1: the bytes of the anchors, chain and name have not changed
                                    since the last hs_start or hs_place that put them in the window:
                                    if that one had the same lists and name (the same places and
                                    lengths) and nothing may have overwritten them since (no window
                                    write below them or into the handshake's state, no program but
                                    the handshake's and KEY_TABLE: the driver keeps count), they
                                    are not written again (the time is, if it changed) */
} se_drv_ctrl_hs_config;

typedef struct {
    uint16_t out_at, out_max, out_len; /* the datagram out: its place, room and bytes (0: none) */
    uint16_t in_at, in_max;            /* where a datagram in goes, its most */
    uint8_t state, result;             /* SE_CTRL_STATE_*, SE_CTRL_ST_* */
} se_drv_ctrl_hs;

se_status se_drv_ctrl_hs_start(se_drv_ctrl_hs *h, const se_drv_ctrl_hs_config *c);
/* hs_start's window inputs alone, ahead of it, between handshakes (at boot: a firmware whose
 * configuration never changes sets c->placed, and no handshake writes them again; a placement is
 * kept for the same lists and name only); SE_ERR_TLS_TOO_LARGE as hs_start. */
se_status se_drv_ctrl_hs_place(const se_drv_ctrl_hs_config *c);
se_status se_drv_ctrl_hs_datagram(se_drv_ctrl_hs *h, const uint8_t *d, size_t n);
se_status se_drv_ctrl_hs_record(se_drv_ctrl_hs *h, unsigned type, unsigned epoch, size_t off, const uint8_t *body,
                                size_t n);
se_status se_drv_ctrl_hs_resend(se_drv_ctrl_hs *h);

#endif
