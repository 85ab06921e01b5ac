/* X.509 v3 (RFC 5280) for the DTLS/TLS stack: a strict DER reader, certificate parsing in place
 * and chain verification, limited to ECDSA-SHA256 over P-256. Input is hostile: every length is
 * checked against what is left before it is used. */
#include <string.h>

#include "se/x509.h"

/* A window [p, end) of DER being read. */
typedef struct {
    const uint8_t *p;
    const uint8_t *end;
} der;

enum {
    T_BOOL = 0x01, T_INT = 0x02, T_BITS = 0x03, T_OCTETS = 0x04, T_OID = 0x06,
    T_UTC = 0x17, T_GEN = 0x18, T_SEQ = 0x30, T_SET = 0x31,
    T_VERSION = 0xa0, T_ISSUER_UID = 0x81, T_SUBJECT_UID = 0x82, T_EXTS = 0xa3, T_DNS = 0x82,
};

/* AlgorithmIdentifier ecdsa-with-SHA256 (parameters absent, RFC 5758), and the
 * subjectPublicKeyInfo algorithm id-ecPublicKey with namedCurve prime256v1: whole DER. */
static const uint8_t alg_ecdsa_sha256[] = {0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce,
                                           0x3d, 0x04, 0x03, 0x02};
static const uint8_t alg_p256[] = {0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01,
                                   0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};
/* OID contents: id-at-commonName 2.5.4.3; id-ce 2.5.29.x differ in their last byte. */
static const uint8_t oid_cn[] = {0x55, 0x04, 0x03};
#define ID_CE_KEY_USAGE 15
#define ID_CE_SAN 17
#define ID_CE_BASIC_CONSTRAINTS 19

#define NEED(x)                                                                                    \
    do {                                                                                           \
        if (!(x))                                                                                  \
            return SE_ERR_CERT_MALFORMED;                                                          \
    } while (0)

static size_t left(const der *r) { return (size_t)(r->end - r->p); }

static int same(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len)
{
    return a_len == b_len && memcmp(a, b, a_len) == 0;
}

/* Reads the next element of any tag into *tag and its contents into *v. Definite lengths only,
 * in their shortest form, up to 65535 bytes; no high tag numbers. 0, or -1 if malformed. */
static int der_any(der *r, unsigned *tag, der *v)
{
    size_t n = left(r), len, hdr = 2;
    if (n < 2 || (r->p[0] & 0x1f) == 0x1f)
        return -1;
    len = r->p[1];
    if (len == 0x81) {
        if (n < 3 || r->p[2] < 0x80)
            return -1;
        len = r->p[2];
        hdr = 3;
    } else if (len == 0x82) {
        if (n < 4 || r->p[2] == 0)
            return -1;
        len = (size_t)r->p[2] << 8 | r->p[3];
        hdr = 4;
    } else if (len >= 0x80) {
        return -1; /* indefinite, or longer than any certificate we take */
    }
    if (len > n - hdr)
        return -1;
    *tag = r->p[0];
    v->p = r->p + hdr;
    v->end = v->p + len;
    r->p = v->end;
    return 0;
}

/* The next element, which must have this tag. */
static int der_get(der *r, unsigned tag, der *v)
{
    unsigned t;
    return left(r) > 0 && r->p[0] == tag && der_any(r, &t, v) == 0 ? 0 : -1;
}

/* The next element, which must have this tag and be the last one in r. */
static int der_last(der *r, unsigned tag, der *v)
{
    return der_get(r, tag, v) == 0 && left(r) == 0 ? 0 : -1;
}

/* An OPTIONAL element: 1 if present (read into *v), 0 if absent, -1 if malformed. */
static int der_opt(der *r, unsigned tag, der *v)
{
    if (left(r) == 0 || r->p[0] != tag)
        return 0;
    return der_get(r, tag, v) == 0 ? 1 : -1;
}

/* A non-negative minimal INTEGER of at most n bytes (after its sign byte), into out[n],
 * big-endian and left-padded with zeros. */
static int der_uint(der *r, uint8_t *out, size_t n)
{
    der v;
    if (der_get(r, T_INT, &v) != 0 || left(&v) == 0 || (v.p[0] & 0x80))
        return -1;
    if (left(&v) > 1 && v.p[0] == 0) {
        if (!(v.p[1] & 0x80))
            return -1; /* a leading zero that is not a sign byte */
        v.p++;
    }
    if (left(&v) > n)
        return -1;
    memset(out, 0, n - left(&v));
    memcpy(out + n - left(&v), v.p, left(&v));
    return 0;
}

/* An AlgorithmIdentifier SEQUENCE that must be exactly `want` (whole DER): malformed DER is
 * SE_ERR_CERT_MALFORMED, another algorithm SE_ERR_CERT_UNSUPPORTED. */
static se_status der_alg(der *r, const uint8_t *want, size_t want_len)
{
    const uint8_t *start = r->p;
    der v;
    NEED(der_get(r, T_SEQ, &v) == 0);
    return same(start, (size_t)(r->p - start), want, want_len) ? SE_OK : SE_ERR_CERT_UNSUPPORTED;
}

/* BOOLEAN TRUE; DER never encodes FALSE where it is the DEFAULT, so FALSE is malformed too. */
static int der_true(der *r)
{
    der v;
    return der_get(r, T_BOOL, &v) == 0 && left(&v) == 1 && v.p[0] == 0xff ? 0 : -1;
}

/* Two decimal digits; over 99 if either is not a digit. */
static unsigned two_digits(const uint8_t *p)
{
    unsigned hi = (unsigned)p[0] - '0', lo = (unsigned)p[1] - '0';
    return hi > 9 || lo > 9 ? 100u : hi * 10u + lo;
}

/* Time ::= UTCTime (YYMMDDHHMMSSZ, 19YY for YY >= 50) | GeneralizedTime (YYYYMMDDHHMMSSZ),
 * both in UTC with seconds and no fraction, as RFC 5280 4.1.2.5 requires. */
static int der_time(der *r, int64_t *t)
{
    /* century (GeneralizedTime only), year in the century, month, day, h, m, s */
    static const uint8_t max[7] = {99, 99, 12, 31, 23, 59, 59};
    unsigned f[7], tag, i;
    der v;
    if (der_any(r, &tag, &v) != 0 || left(&v) != (tag == T_GEN ? 15u : 13u) ||
        (tag != T_UTC && tag != T_GEN) || v.end[-1] != 'Z')
        return -1;
    for (i = tag == T_GEN ? 0 : 1; i < 7; i++, v.p += 2) {
        f[i] = two_digits(v.p);
        if (f[i] > max[i] || (i >= 2 && i <= 3 && f[i] == 0))
            return -1;
    }
    unsigned y = tag == T_GEN ? f[0] * 100u + f[1] : f[1] + (f[1] < 50 ? 2000u : 1900u);
    unsigned mo = f[2], leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    /* day within its month: 30 days hath September, April, June and November */
    if (y == 0 || f[3] > (mo == 2 ? 28 + leap : mo == 4 || mo == 6 || mo == 9 || mo == 11 ? 30u : 31u))
        return -1;
    *t = se_x509_time(y, mo, f[3], f[4], f[5], f[6]);
    return 0;
}

int64_t se_x509_time(unsigned y, unsigned mo, unsigned d, unsigned h, unsigned mi, unsigned s)
{
    /* Days since 1970-01-01, counting years from March so that the leap day comes last. */
    long yy = (long)y - (mo <= 2);
    long days = 365 * yy + yy / 4 - yy / 100 + yy / 400 + (long)((153 * ((mo + 9) % 12) + 2) / 5) +
                (long)d - 1 - 719468;
    return (int64_t)days * 86400 + (int64_t)(h * 3600 + mi * 60 + s);
}

/* Name ::= SEQUENCE OF RelativeDistinguishedName (SET OF AttributeTypeAndValue). The whole
 * element goes to *name; the first commonName's value bytes to *cn (if cn is not NULL). */
static int der_name(der *r, const uint8_t **name, size_t *name_len, const uint8_t **cn,
                    size_t *cn_len)
{
    der seq, rdn, atv, oid, val;
    unsigned tag;
    *name = r->p;
    if (der_get(r, T_SEQ, &seq) != 0)
        return -1;
    *name_len = (size_t)(r->p - *name);
    while (left(&seq) > 0) {
        if (der_get(&seq, T_SET, &rdn) != 0 || left(&rdn) == 0)
            return -1;
        while (left(&rdn) > 0) {
            if (der_get(&rdn, T_SEQ, &atv) != 0 || der_get(&atv, T_OID, &oid) != 0 ||
                der_any(&atv, &tag, &val) != 0 || left(&atv) != 0)
                return -1;
            if (cn != NULL && *cn == NULL && same(oid.p, left(&oid), oid_cn, sizeof oid_cn)) {
                *cn = val.p;
                *cn_len = left(&val);
            }
        }
    }
    return 0;
}

/* The extensions this profile reads: basicConstraints, keyUsage, subjectAltName. */
static se_status parse_extension(se_x509 *c, unsigned id, der v)
{
    der seq, any;
    unsigned tag;
    uint8_t b;
    switch (id) {
    case ID_CE_BASIC_CONSTRAINTS: /* SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLen INTEGER OPT } */
        NEED(der_last(&v, T_SEQ, &seq) == 0);
        if (left(&seq) > 0 && seq.p[0] == T_BOOL) {
            NEED(der_true(&seq) == 0);
            c->is_ca = 1;
        }
        if (left(&seq) > 0) {
            /* path lengths past 127 (two content bytes) are not worth supporting */
            NEED(der_uint(&seq, &b, 1) == 0);
            if (b > 127)
                return SE_ERR_CERT_UNSUPPORTED;
            c->path_len = b;
        }
        NEED(left(&seq) == 0);
        return SE_OK;
    case ID_CE_KEY_USAGE: /* BIT STRING, bit 0 = the first bit on the wire */
        NEED(der_last(&v, T_BITS, &seq) == 0);
        NEED(left(&seq) >= 1 && left(&seq) <= 3 && seq.p[0] < 8);
        NEED(left(&seq) > 1 || seq.p[0] == 0);
        NEED((seq.end[-1] & ((1u << seq.p[0]) - 1u)) == 0 || left(&seq) == 1); /* unused bits 0 */
        c->key_usage = 0;
        for (unsigned i = 0; i < 8 * (left(&seq) - 1); i++)
            if (seq.p[1 + i / 8] & (0x80u >> (i % 8)))
                c->key_usage |= 1u << i;
        return SE_OK;
    case ID_CE_SAN: /* GeneralNames ::= SEQUENCE SIZE (1..MAX) OF GeneralName */
        c->san = v.p;
        NEED(der_last(&v, T_SEQ, &seq) == 0 && left(&seq) > 0);
        c->san_len = (size_t)(v.p - c->san);
        while (left(&seq) > 0)
            NEED(der_any(&seq, &tag, &any) == 0);
        return SE_OK;
    default:
        return SE_OK;
    }
}

/* Extensions ::= SEQUENCE SIZE (1..MAX) OF SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE,
 * extnValue OCTET STRING }. Each known extension at most once. */
static se_status parse_extensions(se_x509 *c, der exts)
{
    der seq, ext, oid, val;
    unsigned seen = 0;
    NEED(der_last(&exts, T_SEQ, &seq) == 0 && left(&seq) > 0);
    while (left(&seq) > 0) {
        int critical = 0;
        NEED(der_get(&seq, T_SEQ, &ext) == 0 && der_get(&ext, T_OID, &oid) == 0);
        if (left(&ext) > 0 && ext.p[0] == T_BOOL) {
            NEED(der_true(&ext) == 0);
            critical = 1;
        }
        NEED(der_last(&ext, T_OCTETS, &val) == 0);
        unsigned id = left(&oid) == 3 && oid.p[0] == 0x55 && oid.p[1] == 0x1d ? oid.p[2] : 0;
        if (id == ID_CE_KEY_USAGE || id == ID_CE_SAN || id == ID_CE_BASIC_CONSTRAINTS) {
            NEED(!(seen & (1u << (id - 8))));
            seen |= 1u << (id - 8);
            se_status st = parse_extension(c, id, val);
            if (st != SE_OK)
                return st;
        } else if (critical) {
            return SE_ERR_CERT_UNSUPPORTED;
        }
    }
    return SE_OK;
}

se_status se_x509_parse(se_x509 *c, const uint8_t *der_in, size_t len)
{
    der all = {der_in, der_in + len}, crt, tbs, v, spki;
    se_status st;
    uint8_t b;
    int r;

    memset(c, 0, sizeof *c);
    c->path_len = -1;
    c->key_usage = ~0u;
    c->der = der_in;
    c->der_len = len;
    NEED(der_in != NULL && der_last(&all, T_SEQ, &crt) == 0);
    c->tbs = crt.p;
    NEED(der_get(&crt, T_SEQ, &tbs) == 0);
    c->tbs_len = (size_t)(crt.p - c->tbs);
    if ((st = der_alg(&crt, alg_ecdsa_sha256, sizeof alg_ecdsa_sha256)) != SE_OK)
        return st;
    /* signatureValue: BIT STRING (no unused bits) of Ecdsa-Sig-Value ::= SEQUENCE { r, s } */
    NEED(der_last(&crt, T_BITS, &v) == 0 && left(&v) > 0 && v.p[0] == 0);
    v.p++;
    NEED(der_last(&v, T_SEQ, &spki) == 0);
    NEED(der_uint(&spki, c->sig, 32) == 0 && der_uint(&spki, c->sig + 32, 32) == 0);
    NEED(left(&spki) == 0);

    /* version [0] EXPLICIT INTEGER: v3 only (the extensions need it) */
    NEED(der_get(&tbs, T_VERSION, &v) == 0 && der_uint(&v, &b, 1) == 0 && left(&v) == 0 && b == 2);
    NEED(der_get(&tbs, T_INT, &v) == 0 && left(&v) >= 1 && left(&v) <= 21); /* serialNumber */
    if ((st = der_alg(&tbs, alg_ecdsa_sha256, sizeof alg_ecdsa_sha256)) != SE_OK)
        return st;
    NEED(der_name(&tbs, &c->issuer, &c->issuer_len, NULL, NULL) == 0);
    NEED(der_get(&tbs, T_SEQ, &v) == 0 && der_time(&v, &c->not_before) == 0 &&
         der_time(&v, &c->not_after) == 0 && left(&v) == 0);
    NEED(der_name(&tbs, &c->subject, &c->subject_len, &c->cn, &c->cn_len) == 0);

    /* subjectPublicKeyInfo: the algorithm, then BIT STRING 00 || 04 || x || y */
    NEED(der_get(&tbs, T_SEQ, &spki) == 0);
    if ((st = der_alg(&spki, alg_p256, sizeof alg_p256)) != SE_OK)
        return st;
    NEED(der_last(&spki, T_BITS, &v) == 0 && left(&v) > 0 && v.p[0] == 0);
    if (left(&v) != 1 + sizeof c->pub || v.p[1] != 0x04)
        return SE_ERR_CERT_UNSUPPORTED; /* compressed or hybrid point */
    memcpy(c->pub, v.p + 1, sizeof c->pub);

    /* issuerUniqueID, subjectUniqueID (ignored), then extensions */
    NEED(der_opt(&tbs, T_ISSUER_UID, &v) >= 0 && der_opt(&tbs, T_SUBJECT_UID, &v) >= 0);
    NEED((r = der_opt(&tbs, T_EXTS, &v)) >= 0 && left(&tbs) == 0);
    return r ? parse_extensions(c, v) : SE_OK;
}

se_status se_x509_check_signature(const se_backend *be, const se_ec_curve *p256,
                                  const se_x509 *sig_holder, const uint8_t issuer_pub[65])
{
    uint8_t hash[32];
    se_status st;
#ifndef SE_TLS_NO_CTRL
    /* the engine's protocol controller hashes and verifies (SIG_CHECK); a tbsCertificate its window
     * does not hold is hashed and verified below */
    if (be->ctrl != NULL &&
        (st = be->ctrl->sig_check(p256, sig_holder->tbs, sig_holder->tbs_len, sig_holder->sig, issuer_pub)) !=
            SE_ERR_TLS_TOO_LARGE)
        return st;
#endif
    st = be->sha256(sig_holder->tbs, sig_holder->tbs_len, hash);
    if (st != SE_OK)
        return st; /* a backend failure is not a verdict on the certificate */
    st = se_ecdsa_verify_hash(p256, issuer_pub, 65, hash, sizeof hash, sig_holder->sig,
                              sizeof sig_holder->sig);
    return st == SE_OK ? SE_OK : SE_ERR_CERT_SIGNATURE;
}

static int name_eq(const uint8_t *a, size_t a_len, const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n != a_len)
        return 0;
    for (size_t i = 0; i < n; i++) {
        /* equal, or one letter in its two cases (they differ in bit 5 alone) */
        unsigned x = a[i], y = (uint8_t)name[i];
        if (x != y && ((x ^ y) != 0x20 || (x | 0x20) - 'a' > 'z' - 'a'))
            return 0;
    }
    return 1;
}

se_status se_x509_check_name(const se_x509 *leaf, const char *name)
{
    der all, seq, v;
    unsigned tag;
    if (leaf->san == NULL)
        return leaf->cn != NULL && name_eq(leaf->cn, leaf->cn_len, name) ? SE_OK : SE_ERR_CERT_NAME;
    all.p = leaf->san;
    all.end = leaf->san + leaf->san_len;
    if (der_get(&all, T_SEQ, &seq) != 0)
        return SE_ERR_CERT_NAME;
    while (der_any(&seq, &tag, &v) == 0)
        if (tag == T_DNS && name_eq(v.p, left(&v), name))
            return SE_OK;
    return SE_ERR_CERT_NAME;
}

/* The first trust anchor whose subject is `issuer` (parsed into *a); -1 if none. A malformed
 * anchor is passed over. */
static int find_anchor(se_x509 *a, const uint8_t *issuer, size_t issuer_len,
                       const uint8_t *const *anchors, const size_t *anchor_len, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (se_x509_parse(a, anchors[i], anchor_len[i]) == SE_OK &&
            same(a->subject, a->subject_len, issuer, issuer_len))
            return 0;
    return -1;
}

se_status se_x509_verify_chain(const se_backend *be, const se_ec_curve *p256,
                               const uint8_t *const *chain, const size_t *chain_len, size_t n,
                               const uint8_t *const *anchors, const size_t *anchor_len,
                               size_t n_anchors, int64_t now, const char *name,
                               uint8_t leaf_pub[65])
{
    se_x509 cert, up; /* chain[i] and its issuer */
    se_status st;
#ifndef SE_TLS_NO_CTRL
    /* the engine's protocol controller checks it all (CHAIN_CHECK), but for a chain its window does
     * not hold */
    if (be->ctrl != NULL && (st = be->ctrl->chain_check(p256, chain, chain_len, n, anchors, anchor_len, n_anchors,
                                                        now, name, leaf_pub)) != SE_ERR_TLS_TOO_LARGE)
        return st;
#endif
    /* A chain that ends with the anchor itself (a peer sending its root) stops before it; the
     * length limit counts the certificates below the anchor. */
    for (size_t k = 0; n > 1 && k < n_anchors; k++)
        if (same(chain[n - 1], chain_len[n - 1], anchors[k], anchor_len[k])) {
            n--;
            break;
        }
    if (n < 1 || n > SE_X509_MAX_CHAIN)
        return SE_ERR_CERT_CHAIN;
    if ((st = se_x509_parse(&cert, chain[0], chain_len[0])) != SE_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        if (now > cert.not_after)
            return SE_ERR_CERT_EXPIRED;
        if (now < cert.not_before)
            return SE_ERR_CERT_NOT_YET_VALID;
        if (i + 1 < n) {
            if ((st = se_x509_parse(&up, chain[i + 1], chain_len[i + 1])) != SE_OK)
                return st;
            if (!same(cert.issuer, cert.issuer_len, up.subject, up.subject_len))
                return SE_ERR_CERT_CHAIN;
            /* up sits above i intermediates (the leaf is not counted) */
            if (!up.is_ca || (up.path_len >= 0 && (size_t)up.path_len < i))
                return SE_ERR_CERT_NOT_CA;
            if (!(up.key_usage & SE_X509_KU_KEY_CERT_SIGN))
                return SE_ERR_CERT_KEY_USAGE;
        } else if (find_anchor(&up, cert.issuer, cert.issuer_len, anchors, anchor_len,
                               n_anchors) != 0) {
            return SE_ERR_CERT_UNKNOWN_CA;
        }
        if ((st = se_x509_check_signature(be, p256, &cert, up.pub)) != SE_OK)
            return st;
        cert = up;
    }
    /* The leaf again (parsing is cheaper than keeping a third copy on a small stack). */
    (void)se_x509_parse(&cert, chain[0], chain_len[0]);
    if (!(cert.key_usage & SE_X509_KU_DIGITAL_SIGNATURE))
        return SE_ERR_CERT_KEY_USAGE;
    if (se_ec_validate_public(p256, cert.pub, sizeof cert.pub) != SE_OK)
        return SE_ERR_CERT_MALFORMED; /* a key off the curve: the signatures above never used it */
    if (name != NULL && (st = se_x509_check_name(&cert, name)) != SE_OK)
        return st;
    if (leaf_pub != NULL)
        memcpy(leaf_pub, cert.pub, sizeof cert.pub);
    return SE_OK;
}
