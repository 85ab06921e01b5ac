/* PEM/DER files for the CLI: certificates and P-256 private keys in, PEM out (see pem.h). */
#include "pem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Largest file read: far more than any chain or key we take. */
#define PEM_MAX_FILE (256 * 1024)

static char file[PEM_MAX_FILE + 1];

static int fail(const char *path, const char *reason)
{
    fprintf(stderr, "se: %s: %s\n", path, reason);
    return -1;
}

/* The whole file into `file`, NUL-terminated; its length, or -1. */
static long read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return fail(path, strerror(errno));
    size_t n = fread(file, 1, PEM_MAX_FILE + 1, f);
    int err = ferror(f);
    fclose(f);
    if (err)
        return fail(path, "read error");
    if (n > PEM_MAX_FILE)
        return fail(path, "file too large");
    file[n] = '\0';
    return (long)n;
}

static int b64val(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Base64 of [s, end) (whitespace ignored, '=' padding only at the end) into out (cap bytes).
 * The decoded length, or -1 if malformed or too long. */
static long b64_decode(const char *s, const char *end, uint8_t *out, size_t cap)
{
    uint32_t acc = 0;
    unsigned bits = 0, pad = 0;
    size_t n = 0;
    for (; s < end; s++) {
        if (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
            continue;
        if (*s == '=') {
            pad++;
            continue;
        }
        int v = b64val(*s);
        if (v < 0 || pad > 0)
            return -1;
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (n >= cap)
                return -1;
            out[n++] = (uint8_t)(acc >> bits);
        }
    }
    /* leftover bits must be the zero padding of a 2- or 3-character final group */
    if (pad > 2 || bits >= 6 || (acc & ((1u << bits) - 1u)) != 0)
        return -1;
    return (long)n;
}

/* The next PEM block labelled `label` at or after *pos, decoded into out. Its length, 0 if there
 * is no further block, or -1 if malformed (*pos then moves past the block). */
static long pem_next(const char **pos, const char *label, uint8_t *out, size_t cap)
{
    char begin[64], end_line[64];
    snprintf(begin, sizeof begin, "-----BEGIN %s-----", label);
    snprintf(end_line, sizeof end_line, "-----END %s-----", label);
    const char *b = strstr(*pos, begin);
    if (b == NULL)
        return 0;
    b += strlen(begin);
    const char *e = strstr(b, end_line);
    if (e == NULL)
        return -1;
    *pos = e + strlen(end_line);
    long n = b64_decode(b, e, out, cap);
    return n == 0 ? -1 : n;
}

int cli_read_certs(const char *path, uint8_t *buf, size_t cap, const uint8_t **certs, size_t *lens,
                   size_t max)
{
    long len = read_file(path);
    if (len < 0)
        return -1;
    if (strstr(file, "-----BEGIN ") == NULL) { /* one DER certificate */
        if (len < 2 || (uint8_t)file[0] != 0x30)
            return fail(path, "neither PEM nor a DER certificate");
        if ((size_t)len > cap || max < 1)
            return fail(path, "certificate too large");
        memcpy(buf, file, (size_t)len);
        certs[0] = buf;
        lens[0] = (size_t)len;
        return 1;
    }
    const char *pos = file;
    size_t used = 0;
    int count = 0;
    for (;;) {
        long n = pem_next(&pos, "CERTIFICATE", buf + used, cap - used);
        if (n == 0)
            break;
        if (n < 0)
            return fail(path, "malformed PEM CERTIFICATE block (or too large)");
        if ((size_t)count >= max)
            return fail(path, "too many certificates");
        certs[count] = buf + used;
        lens[count++] = (size_t)n;
        used += (size_t)n;
    }
    if (count == 0)
        return fail(path, "no CERTIFICATE block");
    return count;
}

/* A minimal DER reader for keys: the next element must have `tag`; its contents go to [*v, *v+*n). */
static int tlv(const uint8_t **p, const uint8_t *end, unsigned tag, const uint8_t **v, size_t *n)
{
    if (end - *p < 2 || (*p)[0] != tag)
        return -1;
    size_t len = (*p)[1], hdr = 2;
    if (len & 0x80) {
        size_t k = len & 0x7f;
        if (k == 0 || k > 2 || (size_t)(end - *p) < 2 + k)
            return -1;
        len = 0;
        for (size_t i = 0; i < k; i++)
            len = len << 8 | (*p)[2 + i];
        hdr += k;
    }
    if (len > (size_t)(end - *p) - hdr)
        return -1;
    *v = *p + hdr;
    *n = len;
    *p = *v + len;
    return 0;
}

/* id-ecPublicKey and prime256v1, as OID contents. */
static const uint8_t oid_ec[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01};
static const uint8_t oid_p256[] = {0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};

static int is_oid(const uint8_t **p, const uint8_t *end, const uint8_t *oid, size_t oid_len)
{
    const uint8_t *v;
    size_t n;
    return tlv(p, end, 0x06, &v, &n) == 0 && n == oid_len && memcmp(v, oid, n) == 0;
}

/* ECPrivateKey (RFC 5915): SEQUENCE { 1, OCTET STRING d, [0] curve OPTIONAL, [1] pub OPTIONAL }. */
static const char *parse_sec1(const uint8_t *p, const uint8_t *end, uint8_t key[32])
{
    const uint8_t *seq, *v;
    size_t n;
    if (tlv(&p, end, 0x30, &seq, &n) != 0)
        return "malformed EC private key";
    end = seq + n;
    p = seq;
    if (tlv(&p, end, 0x02, &v, &n) != 0 || n != 1 || v[0] != 1)
        return "malformed EC private key (version)";
    if (tlv(&p, end, 0x04, &v, &n) != 0 || n == 0 || n > 32)
        return "malformed EC private key (not a P-256 scalar)";
    memset(key, 0, 32 - n);
    memcpy(key + 32 - n, v, n);
    const uint8_t *params;
    size_t plen;
    if (p < end && p[0] == 0xa0) {
        if (tlv(&p, end, 0xa0, &params, &plen) != 0 ||
            !is_oid(&params, params + plen, oid_p256, sizeof oid_p256))
            return "not a P-256 key";
    }
    return NULL;
}

/* PKCS#8 PrivateKeyInfo: SEQUENCE { 0|1, AlgorithmIdentifier, OCTET STRING ECPrivateKey, ... }. */
static const char *parse_pkcs8(const uint8_t *p, const uint8_t *end, uint8_t key[32])
{
    const uint8_t *seq, *v, *alg;
    size_t n, alen;
    if (tlv(&p, end, 0x30, &seq, &n) != 0)
        return "malformed private key";
    end = seq + n;
    p = seq;
    if (tlv(&p, end, 0x02, &v, &n) != 0 || n != 1 || v[0] > 1)
        return "malformed private key (version)";
    if (tlv(&p, end, 0x30, &alg, &alen) != 0)
        return "malformed private key (algorithm)";
    /* Both OIDs within the AlgorithmIdentifier: its end is fixed before the first read moves alg. */
    const uint8_t *alg_end = alg + alen;
    if (!is_oid(&alg, alg_end, oid_ec, sizeof oid_ec) || !is_oid(&alg, alg_end, oid_p256, sizeof oid_p256))
        return "not a P-256 EC key";
    if (tlv(&p, end, 0x04, &v, &n) != 0)
        return "malformed private key (no key octets)";
    return parse_sec1(v, v + n, key);
}

int cli_read_key(const char *path, uint8_t key[32])
{
    static uint8_t der[8192];
    long len = read_file(path);
    if (len < 0)
        return -1;
    const char *pos = file, *reason;
    long n;
    if ((n = pem_next(&pos, "PRIVATE KEY", der, sizeof der)) != 0) {
        reason = n < 0 ? "malformed PEM PRIVATE KEY block" : parse_pkcs8(der, der + n, key);
    } else if ((pos = file, n = pem_next(&pos, "EC PRIVATE KEY", der, sizeof der)) != 0) {
        reason = n < 0 ? "malformed PEM EC PRIVATE KEY block" : parse_sec1(der, der + n, key);
    } else if (strstr(file, "-----BEGIN ") != NULL) {
        reason = "no PRIVATE KEY or EC PRIVATE KEY block (encrypted keys are not supported)";
    } else {
        /* DER: PKCS#8 starts SEQUENCE { INTEGER 0, SEQUENCE ...}, SEC1 SEQUENCE { INTEGER 1, ... } */
        const uint8_t *d = (const uint8_t *)file;
        reason = parse_pkcs8(d, d + len, key) == NULL ? NULL : parse_sec1(d, d + len, key);
        if (reason != NULL)
            reason = "not a P-256 private key (PEM or DER, PKCS#8 or SEC1)";
    }
    memset(der, 0, sizeof der);
    memset(file, 0, (size_t)len);
    return reason == NULL ? 0 : fail(path, reason);
}

int cli_write_pem(const char *path, const char *label, const uint8_t *der, size_t len, int secret)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, secret ? 0600 : 0644);
    if (fd < 0)
        return fail(path, strerror(errno));
    if (fchmod(fd, secret ? 0600 : 0644) != 0) { /* O_TRUNC keeps an old file's mode */
        close(fd);
        return fail(path, strerror(errno));
    }
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        close(fd);
        return fail(path, strerror(errno));
    }
    fprintf(f, "-----BEGIN %s-----\n", label);
    unsigned col = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)der[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)der[i + 1] << 8;
        if (i + 2 < len)
            v |= der[i + 2];
        char q[4] = {b64[v >> 18 & 63], b64[v >> 12 & 63], i + 1 < len ? b64[v >> 6 & 63] : '=',
                     i + 2 < len ? b64[v & 63] : '='};
        fwrite(q, 1, 4, f);
        if ((col += 4) == 64) { /* RFC 7468 lines of 64 characters */
            fputc('\n', f);
            col = 0;
        }
    }
    if (col != 0)
        fputc('\n', f);
    fprintf(f, "-----END %s-----\n", label);
    if (fclose(f) != 0)
        return fail(path, "write error");
    return 0;
}
