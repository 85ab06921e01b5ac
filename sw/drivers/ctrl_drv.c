/* The protocol controller's driver, through the registers of rtl/ctrl (docs/regs/ctrl.md): its
 * window (WIN_ADDR, WIN_WDATA, WIN_RDATA) and its programs (SETREG, CMD START, STATUS, OUT). */
#include <string.h>

#include "drv_internal.h"
#include "se/drv.h"
#include "se/ec_hw.h"
#include "se/hw/ctrl_regs.h"
#include "se/hw/ctrl_ucode.h"

static uint32_t rd(uint32_t reg)
{
    return se_hal_read32(SE_HAL_CTRL_BASE + reg);
}

static void wr(uint32_t reg, uint32_t v)
{
    se_hal_write32(SE_HAL_CTRL_BASE + reg, v);
}

#define FIELD(reg, f, v) (((v) >> SE_CTRL_##reg##_##f##_SHIFT) & SE_CTRL_##reg##_##f##_MASK)

se_status se_drv_ctrl_probe(void)
{
    const uint32_t caps = rd(SE_CTRL_CAPABILITIES);
    if (rd(SE_CTRL_NAME) != SE_CTRL_NAME_VALUE || (rd(SE_CTRL_VERSION) >> 24) != 0u ||
        FIELD(CAPABILITIES, WINDOW_KIB, caps) * 1024u != SE_CTRL_MEM_BYTES ||
        FIELD(CAPABILITIES, SECRET_WORDS, caps) * 4u != SE_CTRL_MEM_BYTES - SE_CTRL_SECRET_BASE)
        return SE_ERR_NOT_SUPPORTED;
    return se_hal_take_fault() ? SE_ERR_NOT_SUPPORTED : SE_OK;
}

/* The window access addr..addr+n is aligned and inside; the controller idle and without errors. */
static se_status window(uint32_t addr, size_t n)
{
    if ((addr & 3u) != 0 || addr > SE_CTRL_MEM_BYTES || n > SE_CTRL_MEM_BYTES - addr)
        return SE_ERR_BAD_INPUT;
    se_status st = se_drv_wait(SE_HAL_CTRL_BASE + SE_CTRL_STATUS, SE_CTRL_STATUS_BUSY_MASK << SE_CTRL_STATUS_BUSY_SHIFT, 0);
    wr(SE_CTRL_ERR, 0xffffffffu);
    wr(SE_CTRL_WIN_ADDR, addr);
    return st;
}

/* ERR clear and no bus fault: every access of the call was taken. */
static se_status taken(void)
{
    return rd(SE_CTRL_ERR) != 0 || se_hal_take_fault() ? SE_ERR_BACKEND : SE_OK;
}

se_status se_drv_ctrl_write(uint32_t addr, const uint8_t *p, size_t n)
{
    se_status st = window(addr, n);
    if (st != SE_OK)
        return st;
    size_t i = 0;
    if (n % 4 != 0 && addr + n > SE_CTRL_SECRET_BASE)
        return SE_ERR_BAD_INPUT; /* (a part word in the secret top: its other bytes cannot be read to keep) */
    for (; i + 4 <= n; i += 4)
        wr(SE_CTRL_WIN_WDATA, se_drv_load_le32(p + i));
    if (i < n) { /* the last word: its bytes past n are kept */
        uint8_t w[4];
        uint32_t v = rd(SE_CTRL_WIN_RDATA);
        for (size_t k = 0; k < 4; k++)
            w[k] = (uint8_t)(k < n - i ? p[i + k] : v >> (8 * k));
        wr(SE_CTRL_WIN_ADDR, addr + (uint32_t)i);
        wr(SE_CTRL_WIN_WDATA, se_drv_load_le32(w));
    }
    return taken();
}

se_status se_drv_ctrl_read(uint32_t addr, uint8_t *p, size_t n)
{
    se_status st = window(addr, n);
    if (st != SE_OK)
        return st;
    for (size_t i = 0; i < n; i += 4) {
        uint32_t v = rd(SE_CTRL_WIN_RDATA);
        for (size_t k = 0; k < 4 && i + k < n; k++)
            p[i + k] = (uint8_t)(v >> (8 * k));
    }
    return taken();
}

se_status se_drv_ctrl_run(unsigned prog, const uint16_t regs[16], unsigned mask, unsigned *result, uint32_t out[16],
                          uint32_t *valid)
{
    const uint32_t status = SE_HAL_CTRL_BASE + SE_CTRL_STATUS, busy = SE_CTRL_STATUS_BUSY_MASK << SE_CTRL_STATUS_BUSY_SHIFT;
    se_status st = se_drv_wait(status, busy, 0);
    if (st != SE_OK)
        return st;
    wr(SE_CTRL_ERR, 0xffffffffu);
    for (uint32_t i = 0; i < 16; i++)
        if (mask & (1u << i))
            wr(SE_CTRL_SETREG, i << SE_CTRL_SETREG_IDX_SHIFT | regs[i]);
    wr(SE_CTRL_INTR_STATE, 1u << SE_CTRL_INTR_STATE_DONE_SHIFT);
    wr(SE_CTRL_INTR_ENABLE, 1u << SE_CTRL_INTR_ENABLE_DONE_SHIFT);
    wr(SE_CTRL_CMD, SE_CTRL_CMD_OP_START << SE_CTRL_CMD_OP_SHIFT | (prog & SE_CTRL_CMD_PROG_MASK) << SE_CTRL_CMD_PROG_SHIFT);
    st = se_drv_sleep_until_idle(status, busy, SE_HAL_CTRL_BASE + SE_CTRL_INTR_STATE,
                                 SE_HAL_CTRL_BASE + SE_CTRL_INTR_ENABLE, 1u, SE_DRV_PK_POLL_LIMIT);
    if (st != SE_OK)
        return st;
    *result = FIELD(STATUS, RESULT, rd(SE_CTRL_STATUS));
    *valid = rd(SE_CTRL_OUT_VALID);
    for (uint32_t i = 0; i < SE_CTRL_OUT_SLOTS; i++)
        out[i] = rd(SE_CTRL_OUT(i));
    return taken();
}

/* A program's status as the software stack names it (SIG_CHECK's and CHAIN_CHECK's refusals). */
static se_status status_of(unsigned result)
{
    switch (result) {
    case SE_CTRL_ST_OK: return SE_OK;
    case SE_CTRL_ST_CERT_MALFORMED: return SE_ERR_CERT_MALFORMED;
    case SE_CTRL_ST_CERT_UNSUPPORTED: return SE_ERR_CERT_UNSUPPORTED;
    case SE_CTRL_ST_CERT_EXPIRED: return SE_ERR_CERT_EXPIRED;
    case SE_CTRL_ST_CERT_NOT_YET_VALID: return SE_ERR_CERT_NOT_YET_VALID;
    case SE_CTRL_ST_CERT_NAME: return SE_ERR_CERT_NAME;
    case SE_CTRL_ST_CERT_SIGNATURE: return SE_ERR_CERT_SIGNATURE;
    case SE_CTRL_ST_CERT_CHAIN: return SE_ERR_CERT_CHAIN;
    case SE_CTRL_ST_CERT_UNKNOWN_CA: return SE_ERR_CERT_UNKNOWN_CA;
    case SE_CTRL_ST_CERT_NOT_CA: return SE_ERR_CERT_NOT_CA;
    case SE_CTRL_ST_CERT_KEY_USAGE: return SE_ERR_CERT_KEY_USAGE;
    default: return SE_ERR_BACKEND; /* BAD_INPUT (a layout this driver got wrong), ENGINE, BAD_PROGRAM */
    }
}

/* SIG_CHECK's inputs below what X509_PARSE keeps at the window's top (SE_CTRL_REC): the signature,
 * the key, the digest; the signed bytes from 0. */
#define SIG_AT (SE_CTRL_REC - 160u)
#define KEY_AT (SIG_AT + 64u)
#define DIGEST_AT (KEY_AT + 64u)

se_status se_drv_ctrl_sig_check(const se_ec_curve *p256, const uint8_t *tbs, size_t tbs_len, const uint8_t sig[64],
                                const uint8_t pub[65])
{
    uint16_t regs[16] = {0};
    uint32_t out[16], valid;
    unsigned result;
    if (tbs_len > SIG_AT)
        return SE_ERR_TLS_TOO_LARGE;
    if (pub[0] != 0x04)
        return SE_ERR_CERT_SIGNATURE; /* (no P-256 point in the stack's encoding) */
    se_status st = se_drv_pk_hold_curve(p256);
    if (st == SE_OK)
        st = se_drv_ctrl_write(0, tbs, tbs_len);
    if (st == SE_OK)
        st = se_drv_ctrl_write(SIG_AT, sig, 64);
    if (st == SE_OK)
        st = se_drv_ctrl_write(KEY_AT, pub + 1, 64);
    regs[2] = (uint16_t)tbs_len;
    regs[3] = SIG_AT;
    regs[6] = KEY_AT;
    regs[7] = DIGEST_AT;
    if (st == SE_OK)
        st = se_drv_ctrl_run(SE_CTRL_PROG_SIG_CHECK, regs, 1u << 1 | 1u << 2 | 1u << 3 | 1u << 6 | 1u << 7, &result,
                             out, &valid);
    if (st != SE_OK)
        return st;
    return status_of(result);
}

/* n bytes at window address addr, aligned or not: an unaligned head is merged into its word. */
static se_status put(uint32_t addr, const uint8_t *p, size_t n)
{
    uint32_t head = addr & 3u;
    if (head != 0 && n > 0) {
        uint8_t w[4];
        size_t k = n < 4u - head ? n : 4u - head;
        se_status st = se_drv_ctrl_read(addr - head, w, 4);
        if (st != SE_OK)
            return st;
        memcpy(w + head, p, k);
        if ((st = se_drv_ctrl_write(addr - head, w, 4)) != SE_OK)
            return st;
        addr += (uint32_t)k;
        p += k;
        n -= k;
    }
    return n > 0 ? se_drv_ctrl_write(addr, p, n) : SE_OK;
}

/* One entry of CHAIN_CHECK's lists at *at: a 3-byte length and the certificate. */
static se_status put_entry(uint32_t *at, const uint8_t *cert, size_t len)
{
    const uint8_t hdr[3] = {(uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len};
    se_status st = put(*at, hdr, 3);
    if (st == SE_OK)
        st = put(*at + 3u, cert, len);
    *at += 3u + (uint32_t)len;
    return st;
}

/* Unix seconds (UTC) as the 14 digits YYYYMMDDHHMMSS the programs compare with a certificate's
 * times; all zeros before the year 1, all nines after 9999, where no certificate's time lies. */
static void time_digits(int64_t t, uint8_t out[14])
{
    const int64_t first = -62135596800LL, last = 253402300799LL; /* 0001-01-01T00:00:00Z, 9999-12-31T23:59:59Z */
    if (t < first || t > last) {
        memset(out, t < first ? '0' : '9', 14);
        return;
    }
    int64_t days = (t - first) / 86400, secs = (t - first) % 86400;
    /* The civil date of a day counted from 0001-01-01, in 400-, 100-, 4- and 1-year cycles. */
    int64_t q400 = days / 146097, r = days % 146097;
    int64_t q100 = r / 36524 < 3 ? r / 36524 : 3;
    r -= q100 * 36524;
    int64_t q4 = r / 1461;
    r -= q4 * 1461;
    int64_t q1 = r / 365 < 3 ? r / 365 : 3;
    r -= q1 * 365;
    unsigned year = (unsigned)(q400 * 400 + q100 * 100 + q4 * 4 + q1 + 1), month = 1;
    int leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    static const uint8_t mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    while (r >= mdays[month - 1] + (month == 2 && leap)) {
        r -= mdays[month - 1] + (month == 2 && leap);
        month++;
    }
    const unsigned f[7] = {year / 100, year % 100, month, (unsigned)r + 1u, (unsigned)(secs / 3600),
                           (unsigned)(secs / 60 % 60), (unsigned)(secs % 60)};
    for (unsigned i = 0; i < 7; i++) {
        out[2 * i] = (uint8_t)('0' + f[i] / 10);
        out[2 * i + 1] = (uint8_t)('0' + f[i] % 10);
    }
}

se_status se_drv_ctrl_chain_check(const se_ec_curve *p256, const uint8_t *const *chain, const size_t *chain_len,
                                  size_t n, const uint8_t *const *anchors, const size_t *anchor_len,
                                  size_t n_anchors, int64_t now, const char *name, uint8_t leaf_pub[65])
{
    uint16_t regs[16] = {0};
    uint32_t out[16], valid, at = 0, good = 0; /* good: the anchors X509_PARSE accepts (bit k) */
    unsigned result;
    size_t name_len = name != NULL ? strlen(name) : 0, total = 14 + name_len;
    se_status st;

    if (n_anchors > 32)
        return SE_ERR_TLS_TOO_LARGE;
    for (size_t i = 0; i < n; i++)
        if (chain_len[i] == 0 || chain_len[i] > SE_CTRL_CHAIN_TOP ||
            (total += 3 + chain_len[i]) > SE_CTRL_CHAIN_TOP)
            return SE_ERR_TLS_TOO_LARGE; /* (an empty one: the stack's own parse names it) */
    /* The anchors that parse: the stack passes over the others. One longer than X509_PARSE takes
     * may parse on the stack: that is the stack's to check. */
    for (size_t k = 0; k < n_anchors; k++) {
        if (anchor_len[k] > SE_CTRL_REC)
            return SE_ERR_TLS_TOO_LARGE;
        if (anchor_len[k] == 0)
            continue; /* (cert_malformed) */
        regs[2] = (uint16_t)anchor_len[k];
        if ((st = se_drv_ctrl_write(0, anchors[k], anchor_len[k])) != SE_OK ||
            (st = se_drv_ctrl_run(SE_CTRL_PROG_X509_PARSE, regs, 1u << 1 | 1u << 2, &result, out, &valid)) != SE_OK)
            return st;
        if (result == SE_CTRL_ST_OK) {
            good |= 1u << k;
            total += 3 + anchor_len[k];
        }
    }
    if (total > SE_CTRL_CHAIN_TOP)
        return SE_ERR_TLS_TOO_LARGE;
    /* CHAIN_CHECK drops a copy of an anchor it holds at the chain's end; a copy of one left out is
     * the stack's to drop (it drops one entry at most). */
    for (size_t k = 0; n > 1 && k < n_anchors; k++)
        if (!(good & (1u << k)) && anchor_len[k] == chain_len[n - 1] &&
            memcmp(anchors[k], chain[n - 1], chain_len[n - 1]) == 0)
            return SE_ERR_TLS_TOO_LARGE;

    if ((st = se_drv_pk_hold_curve(p256)) != SE_OK)
        return st;
    for (size_t i = 0; i < n && st == SE_OK; i++)
        st = put_entry(&at, chain[i], chain_len[i]);
    regs[2] = regs[3] = (uint16_t)at;
    for (size_t k = 0; k < n_anchors && st == SE_OK; k++)
        if (good & (1u << k))
            st = put_entry(&at, anchors[k], anchor_len[k]);
    uint8_t digits[14];
    time_digits(now, digits);
    regs[4] = regs[5] = (uint16_t)at;
    if (st == SE_OK)
        st = put(at, digits, 14);
    regs[6] = (uint16_t)(at + 14u);
    regs[7] = (uint16_t)(at + 14u + name_len);
    regs[8] = name != NULL;
    if (st == SE_OK && name_len > 0)
        st = put(at + 14u, (const uint8_t *)name, name_len);
    if (st == SE_OK)
        st = se_drv_ctrl_run(SE_CTRL_PROG_CHAIN_CHECK, regs, 0x1feu, &result, out, &valid);
    if (st != SE_OK || (st = status_of(result)) != SE_OK)
        return st;

    /* The leaf's key: the window's bytes that PUB_X and PUB_Y name, inside the leaf (at 3). */
    const uint32_t x = out[SE_CTRL_SLOT_PUB_X], y = out[SE_CTRL_SLOT_PUB_Y];
    if (!(valid >> SE_CTRL_SLOT_PUB_X & valid >> SE_CTRL_SLOT_PUB_Y & 1u) || x >> 16 != 32u || y >> 16 != 32u ||
        (x & 0xffffu) < 3u || (x & 0xffffu) - 3u + 64u > chain_len[0] || (y & 0xffffu) != (x & 0xffffu) + 32u)
        return SE_ERR_BACKEND;
    if (leaf_pub != NULL) {
        leaf_pub[0] = 0x04;
        memcpy(leaf_pub + 1, chain[0] + (x & 0xffffu) - 3u, 64);
    }
    return SE_OK;
}
