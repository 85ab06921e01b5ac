/* X.509 v3 certificates (DER) with ECDSA-SHA256 over P-256: parsing in place (no copies, no
 * allocation) and chain verification to configured trust anchors. The only profile is the one
 * the DTLS/TLS stack uses: ecdsa-with-SHA256 signatures, id-ecPublicKey keys on prime256v1.
 * Every failure is a named status (se/status.h, SE_ERR_CERT_*). */
#ifndef SE_X509_H
#define SE_X509_H

#include <stddef.h>
#include <stdint.h>

#include "se/backend.h"
#include "se/ec.h"
#include "se/status.h"

/* Longest chain verify accepts, trust anchor excluded. */
#define SE_X509_MAX_CHAIN 4

/* keyUsage bits, as numbered in RFC 5280 (bit 0 = digitalSignature). */
#define SE_X509_KU_DIGITAL_SIGNATURE 0x001u
#define SE_X509_KU_KEY_CERT_SIGN     0x020u

/* A parsed certificate: pointers into the caller's DER buffer, which must outlive it. */
typedef struct {
    const uint8_t *der;      /* the whole certificate */
    size_t der_len;
    const uint8_t *tbs;      /* tbsCertificate, the signed bytes (tag and length included) */
    size_t tbs_len;
    const uint8_t *issuer;   /* issuer Name, whole DER element (compared byte for byte) */
    size_t issuer_len;
    const uint8_t *subject;  /* subject Name, whole DER element */
    size_t subject_len;
    const uint8_t *cn;       /* subject commonName value bytes, NULL if absent */
    size_t cn_len;
    const uint8_t *san;      /* subjectAltName extension value (GeneralNames DER), NULL if absent */
    size_t san_len;
    int64_t not_before;      /* validity, seconds since 1970-01-01T00:00:00Z */
    int64_t not_after;
    uint8_t pub[65];         /* subject public key, 04 || x || y (P-256) */
    uint8_t sig[64];         /* signatureValue, r || s, 32 bytes each */
    int is_ca;               /* basicConstraints cA */
    int path_len;            /* basicConstraints pathLenConstraint, -1 if absent */
    unsigned key_usage;      /* SE_X509_KU_* bits; all bits set when the extension is absent */
} se_x509;

/* Parses one certificate. SE_ERR_CERT_MALFORMED for bad DER or a non-v3 certificate,
 * SE_ERR_CERT_UNSUPPORTED for another algorithm, curve or an unknown critical extension. */
se_status se_x509_parse(se_x509 *cert, const uint8_t *der, size_t len);

/* The same on backend be: on its protocol controller where it has one (be->ctrl: the program
 * X509_PARSE, rtl/ctrl), else se_x509_parse. The controller gives the same verdict and fields for
 * a certificate that fits its window below the program's buffers (docs/regs/ctrl_ucode.md), and
 * answers a longer one SE_ERR_TLS_TOO_LARGE. SE_ERR_BACKEND if the engine misbehaves. */
se_status se_x509_parse_on(const se_backend *be, se_x509 *cert, const uint8_t *der, size_t len);

/* Seconds since 1970-01-01T00:00:00Z of a valid date and time (UTC, year 1..9999). */
int64_t se_x509_time(unsigned year, unsigned month, unsigned day, unsigned hour, unsigned min, unsigned sec);

/* Verifies that `sig_holder`'s signature was made with `issuer_pub` (04||x||y, P-256) over its
 * tbsCertificate: SE_OK or SE_ERR_CERT_SIGNATURE. p256 is an initialised P-256 curve on the
 * backend `be` (be->ec_curve already applied); be hashes, or, where it has a protocol controller
 * (be->ctrl), the controller hashes and verifies (SIG_CHECK), but for a tbsCertificate its window
 * does not hold. */
se_status se_x509_check_signature(const se_backend *be, const se_ec_curve *p256,
                                  const se_x509 *sig_holder, const uint8_t issuer_pub[65]);

/* Does the leaf name `name` (NUL-terminated, case-insensitive ASCII compare) match a dNSName
 * of subjectAltName, or, when the certificate has no subjectAltName, its commonName?
 * SE_OK or SE_ERR_CERT_NAME. No wildcards. */
se_status se_x509_check_name(const se_x509 *leaf, const char *name);

/* Chain verification. chain[0] is the leaf, chain[i+1] issued chain[i]; the last certificate
 * must be issued by (or be) one of the anchors (certificates too, trusted as they are: only
 * their subject and key are used). For each certificate, in this order of checks:
 *   - parse                                  -> cert_malformed / cert_unsupported
 *   - validity against now (Unix seconds)    -> cert_expired / cert_not_yet_valid
 *   - its issuer Name equals the next one's subject Name (or an anchor's) -> cert_chain /
 *     cert_unknown_ca (no anchor with that subject)
 *   - every issuer (not the anchor) has cA and a pathLen that allows the certificates below it
 *                                            -> cert_not_ca; keyUsage with keyCertSign -> cert_key_usage
 *   - the signature with the issuer's key    -> cert_bad_signature
 * then the leaf: keyUsage allows digitalSignature (cert_key_usage); if name is not NULL,
 * se_x509_check_name (cert_name_mismatch). On SE_OK, leaf_pub (if not NULL) gets the leaf key.
 * n, without a trailing copy of an anchor, is 1..SE_X509_MAX_CHAIN, else SE_ERR_CERT_CHAIN.
 * Where be has a protocol controller (be->ctrl), its program CHAIN_CHECK does all of this, but for a
 * chain its window does not hold (a build with -DSE_TLS_NO_CTRL, the node's, leaves that path out). */
se_status se_x509_verify_chain(const se_backend *be, const se_ec_curve *p256,
                               const uint8_t *const *chain, const size_t *chain_len, size_t n,
                               const uint8_t *const *anchors, const size_t *anchor_len,
                               size_t n_anchors, int64_t now, const char *name,
                               uint8_t leaf_pub[65]);

#endif
