/* X.509 parsing on the engine's protocol controller (se_x509_parse_on): the certificate into the
 * controller's window, the program X509_PARSE (rtl/ctrl/programs/x509.s), and its output slots
 * turned into an se_x509 that points into the caller's buffer, as se_x509_parse's does. */
#include <string.h>

#include "se/hw/ctrl_ucode.h"
#include "se/x509.h"

#define SPAN_AT(v) ((v) & 0xffffu)
#define SPAN_LEN(v) ((v) >> 16)

/* The program's status as the software stack names it. */
static se_status status_of(unsigned result)
{
    switch (result) {
    case SE_CTRL_ST_OK: return SE_OK;
    case SE_CTRL_ST_CERT_MALFORMED: return SE_ERR_CERT_MALFORMED;
    case SE_CTRL_ST_CERT_UNSUPPORTED: return SE_ERR_CERT_UNSUPPORTED;
    case SE_CTRL_ST_BAD_INPUT: return SE_ERR_TLS_TOO_LARGE; /* (X509_PARSE: past its window) */
    default: return SE_ERR_BACKEND;
    }
}

/* A span of the input: *p into der, with *n bytes; 0 if the engine named bytes outside it. */
static int span(const uint8_t *der, size_t len, uint32_t v, const uint8_t **p, size_t *n)
{
    if (SPAN_AT(v) > len || SPAN_LEN(v) > len - SPAN_AT(v))
        return 0;
    *p = der + SPAN_AT(v);
    *n = SPAN_LEN(v);
    return 1;
}

/* A number of at most 32 bytes, right-aligned into out[32]. */
static int number(const uint8_t *der, size_t len, uint32_t v, uint8_t out[32])
{
    const uint8_t *p;
    size_t n;
    if (!span(der, len, v, &p, &n) || n > 32)
        return 0;
    memset(out, 0, 32 - n);
    memcpy(out + 32 - n, p, n);
    return 1;
}

/* A validity time the program wrote into its window: 14 digits YYYYMMDDHHMMSS, checked there. */
static se_status time_of(const se_ctrl_engine *e, uint32_t v, int64_t *t)
{
    uint8_t d[16];
    unsigned f[7];
    if (SPAN_LEN(v) != 14 || (SPAN_AT(v) & 3u) != 0)
        return SE_ERR_BACKEND;
    se_status st = e->read(SPAN_AT(v), d, 14);
    for (unsigned i = 0; st == SE_OK && i < 7; i++) {
        unsigned hi = (unsigned)d[2 * i] - '0', lo = (unsigned)d[2 * i + 1] - '0';
        if (hi > 9 || lo > 9)
            return SE_ERR_BACKEND;
        f[i] = hi * 10 + lo;
    }
    if (st == SE_OK)
        *t = se_x509_time(f[0] * 100 + f[1], f[2], f[3], f[4], f[5], f[6]);
    return st;
}

se_status se_x509_parse_on(const se_backend *be, se_x509 *c, const uint8_t *der, size_t len)
{
    const se_ctrl_engine *e = be->ctrl;
    uint16_t regs[16] = {0};
    uint32_t out[16], valid;
    unsigned result;

    if (e == NULL)
        return se_x509_parse(c, der, len);
    memset(c, 0, sizeof *c);
    if (der == NULL)
        return SE_ERR_CERT_MALFORMED;
    if (len > SE_CTRL_REC)
        return SE_ERR_TLS_TOO_LARGE; /* (X509_PARSE's input ends below its record) */
    regs[1] = 0;
    regs[2] = (uint16_t)len;
    se_status st = e->write(0, der, len);
    if (st == SE_OK)
        st = e->run(SE_CTRL_PROG_X509_PARSE, regs, 1u << 1 | 1u << 2, &result, out, &valid);
    if (st == SE_OK)
        st = status_of(result);
    if (st != SE_OK)
        return st;

    /* Every slot the program always writes when it ends OK; CN, SAN, KEY_USAGE only when there. */
#define HAS(s) ((valid >> SE_CTRL_SLOT_##s) & 1u)
    const uint32_t always = 1u << SE_CTRL_SLOT_TBS | 1u << SE_CTRL_SLOT_ISSUER | 1u << SE_CTRL_SLOT_SUBJECT |
                            1u << SE_CTRL_SLOT_NOT_BEFORE | 1u << SE_CTRL_SLOT_NOT_AFTER | 1u << SE_CTRL_SLOT_PUB_X |
                            1u << SE_CTRL_SLOT_PUB_Y | 1u << SE_CTRL_SLOT_SIG_R | 1u << SE_CTRL_SLOT_SIG_S |
                            1u << SE_CTRL_SLOT_IS_CA | 1u << SE_CTRL_SLOT_PATH_LEN;
    c->der = der;
    c->der_len = len;
    c->pub[0] = 0x04;
    c->is_ca = out[SE_CTRL_SLOT_IS_CA] != 0;
    c->path_len = out[SE_CTRL_SLOT_PATH_LEN] == 0xffffu ? -1 : (int)out[SE_CTRL_SLOT_PATH_LEN];
    c->key_usage = HAS(KEY_USAGE) ? out[SE_CTRL_SLOT_KEY_USAGE] : ~0u;
    if ((valid & always) != always || !span(der, len, out[SE_CTRL_SLOT_TBS], &c->tbs, &c->tbs_len) ||
        !span(der, len, out[SE_CTRL_SLOT_ISSUER], &c->issuer, &c->issuer_len) ||
        !span(der, len, out[SE_CTRL_SLOT_SUBJECT], &c->subject, &c->subject_len) ||
        (HAS(CN) && !span(der, len, out[SE_CTRL_SLOT_CN], &c->cn, &c->cn_len)) ||
        (HAS(SAN) && !span(der, len, out[SE_CTRL_SLOT_SAN], &c->san, &c->san_len)) ||
        !number(der, len, out[SE_CTRL_SLOT_PUB_X], c->pub + 1) || !number(der, len, out[SE_CTRL_SLOT_PUB_Y], c->pub + 33) ||
        !number(der, len, out[SE_CTRL_SLOT_SIG_R], c->sig) || !number(der, len, out[SE_CTRL_SLOT_SIG_S], c->sig + 32))
        st = SE_ERR_BACKEND;
#undef HAS
    if (st == SE_OK)
        st = time_of(e, out[SE_CTRL_SLOT_NOT_BEFORE], &c->not_before);
    if (st == SE_OK)
        st = time_of(e, out[SE_CTRL_SLOT_NOT_AFTER], &c->not_after);
    if (st != SE_OK)
        memset(c, 0, sizeof *c);
    return st;
}
