/* `se certs`: a test PKI (CA, server and client certificates, ECDSA P-256) made with our own
 * crypto library and a small DER writer, written as PEM files that OpenSSL and Python load. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "pem.h"
#include "se/ec.h"
#include "se/sha256.h"

#define MAX_DER 2048 /* one certificate or key */

/* A DER writer: elements are opened with dw_open and closed with dw_close, which inserts the
 * (minimal) length in front of the contents once they are known. */
typedef struct {
    uint8_t b[MAX_DER];
    size_t n;
    int overflow;
} dw;

static void dw_bytes(dw *w, const void *p, size_t len)
{
    if (w->n + len > sizeof w->b) {
        w->overflow = 1;
        return;
    }
    memcpy(w->b + w->n, p, len);
    w->n += len;
}

static void dw_byte(dw *w, uint8_t v) { dw_bytes(w, &v, 1); }

/* Writes the tag; returns where the contents start. */
static size_t dw_open(dw *w, uint8_t tag)
{
    dw_byte(w, tag);
    return w->n;
}

static void dw_close(dw *w, size_t start)
{
    if (w->overflow)
        return;
    size_t len = w->n - start, hdr = len < 0x80 ? 1 : len < 0x100 ? 2 : 3;
    if (w->n + hdr > sizeof w->b) {
        w->overflow = 1;
        return;
    }
    memmove(w->b + start + hdr, w->b + start, len);
    if (hdr == 1) {
        w->b[start] = (uint8_t)len;
    } else {
        w->b[start] = (uint8_t)(0x80 | (hdr - 1));
        if (hdr == 3)
            w->b[start + 1] = (uint8_t)(len >> 8);
        w->b[start + hdr - 1] = (uint8_t)len;
    }
    w->n += hdr;
}

/* A primitive element: tag and contents. */
static void dw_prim(dw *w, uint8_t tag, const void *p, size_t len)
{
    size_t s = dw_open(w, tag);
    dw_bytes(w, p, len);
    dw_close(w, s);
}

enum { T_BOOL = 0x01, T_INT = 0x02, T_BITS = 0x03, T_OCTETS = 0x04, T_OID = 0x06, T_UTF8 = 0x0c,
       T_UTC = 0x17, T_GEN = 0x18, T_SEQ = 0x30, T_SET = 0x31 };

static const uint8_t oid_ecdsa_sha256[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02};
static const uint8_t oid_ec_pub[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01};
static const uint8_t oid_p256[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};
static const uint8_t oid_cn[] = {0x55, 0x04, 0x03};
static const uint8_t oid_ski[] = {0x55, 0x1d, 0x0e}, oid_ku[] = {0x55, 0x1d, 0x0f};
static const uint8_t oid_san[] = {0x55, 0x1d, 0x11}, oid_bc[] = {0x55, 0x1d, 0x13};
static const uint8_t oid_aki[] = {0x55, 0x1d, 0x23}, oid_eku[] = {0x55, 0x1d, 0x25};
static const uint8_t oid_server_auth[] = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01};
static const uint8_t oid_client_auth[] = {0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x02};

/* A key pair on P-256. */
typedef struct {
    uint8_t priv[32];
    uint8_t pub[65];
    uint8_t id[20]; /* key identifier: leftmost 160 bits of SHA-256 of the key (RFC 7093, method 1) */
} keypair;

/* What one certificate says. */
typedef struct {
    const char *cn;
    int is_ca;
    int eku; /* 0 none, 1 serverAuth, 2 clientAuth */
    time_t not_before, not_after;
} profile;

static void put_alg_ecdsa(dw *w)
{
    size_t s = dw_open(w, T_SEQ);
    dw_prim(w, T_OID, oid_ecdsa_sha256, sizeof oid_ecdsa_sha256);
    dw_close(w, s);
}

/* Name: one RDN, commonName as UTF8String. */
static void put_name(dw *w, const char *cn)
{
    size_t s = dw_open(w, T_SEQ), set = dw_open(w, T_SET), atv = dw_open(w, T_SEQ);
    dw_prim(w, T_OID, oid_cn, sizeof oid_cn);
    dw_prim(w, T_UTF8, cn, strlen(cn));
    dw_close(w, atv);
    dw_close(w, set);
    dw_close(w, s);
}

/* UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5). */
static int put_time(dw *w, time_t t)
{
    struct tm tm;
    char buf[32];
    if (gmtime_r(&t, &tm) == NULL)
        return -1;
    int year = tm.tm_year + 1900;
    int utc = year >= 1950 && year < 2050;
    if (year < 1 || year > 9999)
        return -1;
    snprintf(buf, sizeof buf, "%0*d%02d%02d%02d%02d%02dZ", utc ? 2 : 4, utc ? year % 100 : year,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    dw_prim(w, utc ? T_UTC : T_GEN, buf, strlen(buf));
    return 0;
}

static void put_spki(dw *w, const uint8_t pub[65])
{
    size_t s = dw_open(w, T_SEQ), alg = dw_open(w, T_SEQ);
    dw_prim(w, T_OID, oid_ec_pub, sizeof oid_ec_pub);
    dw_prim(w, T_OID, oid_p256, sizeof oid_p256);
    dw_close(w, alg);
    size_t bits = dw_open(w, T_BITS);
    dw_byte(w, 0);
    dw_bytes(w, pub, 65);
    dw_close(w, bits);
    dw_close(w, s);
}

/* Extension ::= SEQUENCE { extnID, critical BOOLEAN (only when TRUE), extnValue OCTET STRING };
 * returns where the value's contents start, closed by end_ext. */
static size_t begin_ext(dw *w, const uint8_t *oid, size_t oid_len, int critical, size_t *outer)
{
    *outer = dw_open(w, T_SEQ);
    dw_prim(w, T_OID, oid, oid_len);
    if (critical)
        dw_prim(w, T_BOOL, "\xff", 1);
    return dw_open(w, T_OCTETS);
}

static void end_ext(dw *w, size_t value, size_t outer)
{
    dw_close(w, value);
    dw_close(w, outer);
}

static void put_extensions(dw *w, const profile *pr, const keypair *subject, const keypair *issuer)
{
    size_t outer, v, s;
    size_t exts = dw_open(w, 0xa3), seq = dw_open(w, T_SEQ);

    v = begin_ext(w, oid_bc, sizeof oid_bc, 1, &outer); /* basicConstraints */
    s = dw_open(w, T_SEQ);
    if (pr->is_ca)
        dw_prim(w, T_BOOL, "\xff", 1);
    dw_close(w, s);
    end_ext(w, v, outer);

    /* keyUsage: CA keyCertSign|cRLSign (bits 5, 6), leaf digitalSignature (bit 0) */
    v = begin_ext(w, oid_ku, sizeof oid_ku, 1, &outer);
    dw_prim(w, T_BITS, pr->is_ca ? "\x01\x06" : "\x07\x80", 2);
    end_ext(w, v, outer);

    v = begin_ext(w, oid_ski, sizeof oid_ski, 0, &outer);
    dw_prim(w, T_OCTETS, subject->id, sizeof subject->id);
    end_ext(w, v, outer);
    if (issuer != subject) { /* authorityKeyIdentifier { [0] keyIdentifier } */
        v = begin_ext(w, oid_aki, sizeof oid_aki, 0, &outer);
        s = dw_open(w, T_SEQ);
        dw_prim(w, 0x80, issuer->id, sizeof issuer->id);
        dw_close(w, s);
        end_ext(w, v, outer);
    }
    if (!pr->is_ca) { /* subjectAltName { dNSName [2] } */
        v = begin_ext(w, oid_san, sizeof oid_san, 0, &outer);
        s = dw_open(w, T_SEQ);
        dw_prim(w, 0x82, pr->cn, strlen(pr->cn));
        dw_close(w, s);
        end_ext(w, v, outer);
    }
    if (pr->eku) {
        v = begin_ext(w, oid_eku, sizeof oid_eku, 0, &outer);
        s = dw_open(w, T_SEQ);
        dw_prim(w, T_OID, pr->eku == 1 ? oid_server_auth : oid_client_auth, sizeof oid_server_auth);
        dw_close(w, s);
        end_ext(w, v, outer);
    }
    dw_close(w, seq);
    dw_close(w, exts);
}

/* Certificate for `subject` described by pr, signed by `issuer` (named issuer_cn). */
static se_status make_cert(dw *w, const se_ec_curve *c, const profile *pr, const keypair *subject,
                           const char *issuer_cn, const keypair *issuer)
{
    uint8_t serial[16], hash[32], sig[64], sig_der[80];
    size_t sig_len;
    se_status st = cli_os_random(serial, sizeof serial);
    if (st != SE_OK)
        return st;
    serial[0] = (uint8_t)((serial[0] & 0x7f) | 0x40); /* positive, minimal, 16 bytes */

    memset(w, 0, sizeof *w);
    size_t cert = dw_open(w, T_SEQ), tbs = dw_open(w, T_SEQ), ver = dw_open(w, 0xa0);
    dw_prim(w, T_INT, "\x02", 1); /* v3 */
    dw_close(w, ver);
    dw_prim(w, T_INT, serial, sizeof serial);
    put_alg_ecdsa(w);
    put_name(w, issuer_cn);
    size_t val = dw_open(w, T_SEQ);
    if (put_time(w, pr->not_before) != 0 || put_time(w, pr->not_after) != 0)
        return SE_ERR_BAD_INPUT;
    dw_close(w, val);
    put_name(w, pr->cn);
    put_spki(w, subject->pub);
    put_extensions(w, pr, subject, issuer);
    dw_close(w, tbs);
    if (w->overflow)
        return SE_ERR_BUFFER_TOO_SMALL;

    /* tbs - 1 is its tag; the element runs to the end of what is written so far */
    se_sha256(w->b + tbs - 1, w->n - (tbs - 1), hash);
    st = se_ecdsa_sign_hash(c, issuer->priv, sizeof issuer->priv, hash, sizeof hash,
                            SE_ECDSA_NONCE_RFC6979, NULL, sig);
    if (st == SE_OK)
        st = se_ecdsa_sig_to_der(c, sig, sig_der, &sig_len);
    if (st != SE_OK)
        return st;
    put_alg_ecdsa(w);
    size_t bits = dw_open(w, T_BITS);
    dw_byte(w, 0);
    dw_bytes(w, sig_der, sig_len);
    dw_close(w, bits);
    dw_close(w, cert);
    return w->overflow ? SE_ERR_BUFFER_TOO_SMALL : SE_OK;
}

/* PKCS#8 PrivateKeyInfo around an RFC 5915 ECPrivateKey (with the public key). */
static void make_pkcs8(dw *w, const keypair *k)
{
    memset(w, 0, sizeof *w);
    size_t p8 = dw_open(w, T_SEQ);
    dw_prim(w, T_INT, "\x00", 1);
    size_t alg = dw_open(w, T_SEQ);
    dw_prim(w, T_OID, oid_ec_pub, sizeof oid_ec_pub);
    dw_prim(w, T_OID, oid_p256, sizeof oid_p256);
    dw_close(w, alg);
    size_t oct = dw_open(w, T_OCTETS), ec = dw_open(w, T_SEQ);
    dw_prim(w, T_INT, "\x01", 1);
    dw_prim(w, T_OCTETS, k->priv, sizeof k->priv);
    size_t pub = dw_open(w, 0xa1), bits = dw_open(w, T_BITS);
    dw_byte(w, 0);
    dw_bytes(w, k->pub, sizeof k->pub);
    dw_close(w, bits);
    dw_close(w, pub);
    dw_close(w, ec);
    dw_close(w, oct);
    dw_close(w, p8);
}

static se_status keygen(const se_ec_curve *c, se_hmac_drbg_ctx *rng, keypair *k)
{
    uint8_t h[32];
    se_status st = se_ec_keygen(c, rng, k->priv, k->pub);
    se_sha256(k->pub, sizeof k->pub, h);
    memcpy(k->id, h, sizeof k->id);
    return st;
}

/* Writes <dir>/<stem>.pem and <stem>.key. */
static int write_pair(const char *dir, const char *stem, const dw *cert, const keypair *k)
{
    static dw key;
    char path[4096];
    make_pkcs8(&key, k);
    snprintf(path, sizeof path, "%s/%s.pem", dir, stem);
    int rc = cli_write_pem(path, "CERTIFICATE", cert->b, cert->n, 0);
    snprintf(path, sizeof path, "%s/%s.key", dir, stem);
    if (rc == 0)
        rc = cli_write_pem(path, "PRIVATE KEY", key.b, key.n, 1);
    memset(&key, 0, sizeof key);
    return rc;
}

static int usage(FILE *f, int rc)
{
    fprintf(f, "usage: se certs --out DIR [--server-name NAME] [--clients A,B,...] [--days N]\n"
               "  Makes a test PKI with ECDSA P-256 in DIR (created if missing):\n"
               "    ca.pem/ca.key          self-signed CA (cA, keyCertSign|cRLSign)\n"
               "    server.pem/server.key  leaf for NAME (CN and dNSName; default localhost)\n"
               "    <client>.pem/.key      one leaf per client (default node-1)\n"
               "  Keys are PKCS#8 PEM. Valid from one hour ago for N days (default 365).\n");
    return rc;
}

/* A file stem must be a plain name: it becomes <dir>/<name>.pem. */
static int plain_name(const char *s)
{
    if (*s == '\0' || strlen(s) > 64 || strcmp(s, "ca") == 0 || strcmp(s, "server") == 0)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '.' || *s == '_'))
            return 0;
    return 1;
}

int cli_certs_main(int argc, char **argv)
{
    const char *out = NULL, *server_name = "localhost", *clients_arg = "node-1";
    long days = 365;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return usage(stdout, 0);
        if (i + 1 >= argc) {
            fprintf(stderr, "se certs: %s needs a value\n", a);
            return usage(stderr, 2);
        }
        const char *v = argv[++i];
        if (strcmp(a, "--out") == 0) {
            out = v;
        } else if (strcmp(a, "--server-name") == 0) {
            server_name = v;
        } else if (strcmp(a, "--clients") == 0) {
            clients_arg = v;
        } else if (strcmp(a, "--days") == 0) {
            char *end;
            days = strtol(v, &end, 10);
            if (*end != '\0' || days < 1 || days > 36500) {
                fprintf(stderr, "se certs: --days must be 1..36500\n");
                return 2;
            }
        } else {
            fprintf(stderr, "se certs: unknown option %s\n", a);
            return usage(stderr, 2);
        }
    }
    if (out == NULL) {
        fprintf(stderr, "se certs: --out DIR is required\n");
        return usage(stderr, 2);
    }
    if (*server_name == '\0' || strlen(server_name) > 253) {
        fprintf(stderr, "se certs: bad --server-name\n");
        return 2;
    }
    char clients[1024];
    if (strlen(clients_arg) >= sizeof clients) {
        fprintf(stderr, "se certs: --clients is too long\n");
        return 2;
    }
    strcpy(clients, clients_arg);
    for (char *save = NULL, *n = strtok_r(clients, ",", &save); n; n = strtok_r(NULL, ",", &save))
        if (!plain_name(n)) {
            fprintf(stderr, "se certs: bad client name '%s' (letters, digits, '-', '.', '_'; not ca or server)\n", n);
            return 2;
        }
    strcpy(clients, clients_arg);
    if (mkdir(out, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "se certs: %s: %s\n", out, strerror(errno));
        return 1;
    }

    se_ec_curve c;
    se_hmac_drbg_ctx rng;
    uint8_t seed[48];
    static keypair ca, leaf;
    static dw cert;
    se_status st = se_ec_curve_builtin(&c, SE_CURVE_SECP256R1);
    if (st == SE_OK)
        st = cli_os_random(seed, sizeof seed);
    if (st == SE_OK)
        st = se_hmac_drbg_instantiate(&rng, seed, sizeof seed, NULL, 0, (const uint8_t *)"se-certs", 8);
    memset(seed, 0, sizeof seed);
    time_t now = time(NULL);
    profile pr = {"iotse test CA", 1, 0, now - 3600, now + days * 86400};
    if (st == SE_OK)
        st = keygen(&c, &rng, &ca);
    if (st == SE_OK)
        st = make_cert(&cert, &c, &pr, &ca, pr.cn, &ca);
    int rc = st == SE_OK ? write_pair(out, "ca", &cert, &ca) : 0;

    pr.is_ca = 0;
    pr.cn = server_name;
    pr.eku = 1;
    if (st == SE_OK && rc == 0)
        st = keygen(&c, &rng, &leaf);
    if (st == SE_OK && rc == 0)
        st = make_cert(&cert, &c, &pr, &leaf, "iotse test CA", &ca);
    if (st == SE_OK && rc == 0)
        rc = write_pair(out, "server", &cert, &leaf);

    pr.eku = 2;
    char *save = NULL;
    for (char *n = strtok_r(clients, ",", &save); n && st == SE_OK && rc == 0;
         n = strtok_r(NULL, ",", &save)) {
        pr.cn = n;
        st = keygen(&c, &rng, &leaf);
        if (st == SE_OK)
            st = make_cert(&cert, &c, &pr, &leaf, "iotse test CA", &ca);
        if (st == SE_OK)
            rc = write_pair(out, n, &cert, &leaf);
    }
    se_hmac_drbg_uninstantiate(&rng);
    memset(&ca, 0, sizeof ca);
    memset(&leaf, 0, sizeof leaf);
    if (st != SE_OK) {
        fprintf(stderr, "se certs: %s\n", se_status_name(st));
        return 1;
    }
    if (rc != 0)
        return 1;
    printf("se certs: wrote ca, server (%s)%s%s in %s\n", server_name, *clients_arg ? " and " : "",
           clients_arg, out);
    return 0;
}
