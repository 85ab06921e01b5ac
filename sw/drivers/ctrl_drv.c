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

/* A word of a buffer the caller aligned: the window's bytes move a word per access (little-endian,
 * as WIN_WDATA and WIN_RDATA take them), without the byte shuffle an unaligned buffer needs. */
typedef uint32_t __attribute__((may_alias)) word_alias;
#define LITTLE_ENDIAN_WORDS (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

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

/* What the last se_drv_ctrl_hs_start or _place put in the window: the inputs of the configuration
 * whose fingerprint (fingerprint(): its lists' and name's places and lengths) is placed_print, up
 * to the end of its client's chain (placed_end; 0: nothing placed, or it may have been overwritten
 * since), with the time placed_now. A window write below that end or into the handshake's state
 * above SE_CTRL_CHAIN_TOP (its layout: where the datagram out goes) ends it, and so does every
 * program but HS_RECORD, HS_RESEND and KEY_TABLE, and HANDSHAKE run by hs_start (which write
 * above it: tests/ctrl/test_ctrl_openssl.py checks). */
static uint32_t placed_print, placed_end;
static int64_t placed_now;

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
    if (addr < placed_end || addr + n > SE_CTRL_CHAIN_TOP)
        placed_end = 0;
    size_t i = 0;
    if (n % 4 != 0 && addr + n > SE_CTRL_SECRET_BASE)
        return SE_ERR_BAD_INPUT; /* (a part word in the secret top: its other bytes cannot be read to keep) */
    if (((uintptr_t)p & 3u) == 0 && LITTLE_ENDIAN_WORDS) {
        const word_alias *w = (const word_alias *)(const void *)p;
        for (; i + 16 <= n; i += 16, w += 4) { /* (four a turn: a turn's own instructions cost a word's) */
            wr(SE_CTRL_WIN_WDATA, w[0]);
            wr(SE_CTRL_WIN_WDATA, w[1]);
            wr(SE_CTRL_WIN_WDATA, w[2]);
            wr(SE_CTRL_WIN_WDATA, w[3]);
        }
        for (; i + 4 <= n; i += 4)
            wr(SE_CTRL_WIN_WDATA, *(const word_alias *)(const void *)(p + i));
    }
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
    size_t i = 0;
    if (((uintptr_t)p & 3u) == 0 && LITTLE_ENDIAN_WORDS) {
        word_alias *w = (word_alias *)(void *)p;
        for (; i + 16 <= n; i += 16, w += 4) { /* (as se_drv_ctrl_write's) */
            w[0] = rd(SE_CTRL_WIN_RDATA);
            w[1] = rd(SE_CTRL_WIN_RDATA);
            w[2] = rd(SE_CTRL_WIN_RDATA);
            w[3] = rd(SE_CTRL_WIN_RDATA);
        }
        for (; i + 4 <= n; i += 4)
            *(word_alias *)(void *)(p + i) = rd(SE_CTRL_WIN_RDATA);
    }
    for (; i < n; i += 4) {
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
    if (prog != SE_CTRL_PROG_HS_RECORD && prog != SE_CTRL_PROG_HS_RESEND && prog != SE_CTRL_PROG_KEY_TABLE)
        placed_end = 0; /* (hs_start puts it back for its own HANDSHAKE) */
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

se_status se_drv_ctrl_wipe(void)
{
    const uint32_t status = SE_HAL_CTRL_BASE + SE_CTRL_STATUS, busy = SE_CTRL_STATUS_BUSY_MASK << SE_CTRL_STATUS_BUSY_SHIFT;
    se_status st = se_drv_wait(status, busy, 0);
    if (st != SE_OK)
        return st;
    wr(SE_CTRL_ERR, 0xffffffffu);
    wr(SE_CTRL_INTR_STATE, 1u << SE_CTRL_INTR_STATE_DONE_SHIFT);
    wr(SE_CTRL_CMD, SE_CTRL_CMD_OP_WIPE << SE_CTRL_CMD_OP_SHIFT);
    if ((st = se_drv_wait(status, busy, 0)) != SE_OK) /* (192 cycles: not worth a sleep) */
        return st;
    return taken();
}

/* A program's status as the software stack names it: SIG_CHECK's and CHAIN_CHECK's refusals, and the
 * client handshake's. */
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
    case SE_CTRL_ST_INVALID_POINT: return SE_ERR_INVALID_POINT;
    case SE_CTRL_ST_NO_ENTROPY: return SE_ERR_DRBG_NOT_SEEDED;
    case SE_CTRL_ST_DECODE_ERROR: return SE_ERR_TLS_DECODE;
    case SE_CTRL_ST_PROTOCOL_VERSION: return SE_ERR_TLS_PROTOCOL_VERSION;
    case SE_CTRL_ST_ILLEGAL_PARAMETER:
    case SE_CTRL_ST_UNSUPPORTED_EXTENSION: return SE_ERR_TLS_ILLEGAL_PARAMETER; /* (the stack's too) */
    case SE_CTRL_ST_HANDSHAKE_FAILURE: return SE_ERR_TLS_HANDSHAKE;
    case SE_CTRL_ST_DECRYPT_ERROR: return SE_ERR_BAD_SIGNATURE; /* ServerKeyExchange's signature */
    case SE_CTRL_ST_BAD_FINISHED: return SE_ERR_TLS_BAD_FINISHED;
    case SE_CTRL_ST_UNEXPECTED_MESSAGE: return SE_ERR_TLS_UNEXPECTED;
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

/* One entry of CHAIN_CHECK's lists at *at: a 3-byte length and the certificate (where it is already,
 * keep: passed over). */
static se_status put_entry(uint32_t *at, const uint8_t *cert, size_t len, int keep)
{
    const uint8_t hdr[3] = {(uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len};
    se_status st = SE_OK;
    if (!keep && (st = put(*at, hdr, 3)) == SE_OK)
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
    /* Days and seconds of t - first (below 2^39) with 32-bit divisions: 86400 = 128 * 675, and
     * (t - first) / 128 is below 2^32 (a 64-bit division would link 3 KiB of libgcc on the node). */
    const uint64_t since = (uint64_t)(t - first);
    const uint32_t q = (uint32_t)(since >> 7), days = q / 675u, secs = (q % 675u) << 7 | (uint32_t)(since & 127u);
    /* The civil date of a day counted from 0001-01-01: counted again from 0000-03-01 (306 days
     * before), the years run March to February, so a leap day ends its year; then 400-year eras,
     * the year of the era, the day of the year and its month (153 days a five-month run). */
    const uint32_t z = days + 306u, era = z / 146097u, doe = z - era * 146097u;
    const uint32_t yoe = (doe - doe / 1460u + doe / 36524u - doe / 146096u) / 365u;
    const uint32_t doy = doe - (365u * yoe + yoe / 4u - yoe / 100u), mp = (5u * doy + 2u) / 153u;
    const unsigned month = mp < 10u ? mp + 3u : mp - 9u, year = yoe + era * 400u + (month <= 2u);
    const unsigned f[7] = {year / 100, year % 100, month, doy - (153u * mp + 2u) / 5u + 1u, secs / 3600u,
                           secs / 60u % 60u, secs % 60u};
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
        st = put_entry(&at, chain[i], chain_len[i], 0);
    regs[2] = regs[3] = (uint16_t)at;
    for (size_t k = 0; k < n_anchors && st == SE_OK; k++)
        if (good & (1u << k))
            st = put_entry(&at, anchors[k], anchor_len[k], 0);
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

/* ---- the client handshake (HANDSHAKE, HS_RECORD, HS_RESEND) ------------------------------------- */

/* n bytes at window address addr, aligned or not, into p. */
se_status se_drv_ctrl_get(uint32_t addr, uint8_t *p, size_t n)
{
    uint8_t w[4];
    while (n > 0) {
        const uint32_t head = addr & 3u;
        size_t k = 4u - head < n ? 4u - head : n;
        if (head == 0 && n >= 4) { /* whole words straight into p */
            k = n & ~(size_t)3u;
            se_status st = se_drv_ctrl_read(addr, p, k);
            if (st != SE_OK)
                return st;
        } else {
            se_status st = se_drv_ctrl_read(addr - head, w, 4);
            if (st != SE_OK)
                return st;
            memcpy(p, w + head, k);
        }
        addr += (uint32_t)k;
        p += k;
        n -= k;
    }
    return SE_OK;
}

static uint32_t align4(uint32_t a)
{
    return (a + 3u) & ~3u;
}

/* Where an entry list may begin at or after window address at (up to 3 bytes on) so that its first
 * certificate, after its 3-byte length, has the alignment its bytes have in RAM: then
 * se_drv_ctrl_write moves it a word per access. */
static uint32_t lined_up(uint32_t at, const uint8_t *cert)
{
    return at + (((uint32_t)(uintptr_t)cert - at - 3u) & 3u);
}

/* After HANDSHAKE, HS_RECORD or HS_RESEND: the program's result, the machine's state and the
 * datagram out (MESSAGE: none when the slot was not written or is empty). */
static se_status hs_after(se_drv_ctrl_hs *h, se_status st, unsigned result, const uint32_t out[16], uint32_t valid)
{
    uint8_t state = SE_CTRL_STATE_FAILED;
    h->out_len = 0;
    if (st != SE_OK)
        return st;
    h->result = (uint8_t)result;
    if ((st = se_drv_ctrl_get(SE_CTRL_HS_ST, &state, 1)) != SE_OK)
        return st;
    h->state = state;
    if (result != SE_CTRL_ST_OK)
        return status_of(result);
    if (valid >> SE_CTRL_SLOT_MESSAGE & 1u) {
        const uint32_t m = out[SE_CTRL_SLOT_MESSAGE], at = m & 0xffffu, len = m >> 16;
        if (at != h->out_at || len > h->out_max)
            return SE_ERR_BACKEND; /* not where HANDSHAKE was told to put it */
        h->out_len = (uint16_t)len;
    }
    return SE_OK;
}

/* One more word into a fingerprint: rotated, then added, so that a change of any one word changes
 * it (no multiplication: rv32i has none). Not a hash against an adversary: the caller is trusted. */
static uint32_t mix(uint32_t h, uintptr_t x)
{
    return (h << 7 | h >> 25) + (uint32_t)x;
}

/* A configuration's anchors, chain and name as places and lengths, mixed into one word: a placement
 * is kept for the same ones only. Their bytes are the caller's to keep (drv.h: `placed`). */
static uint32_t fingerprint(const se_drv_ctrl_hs_config *c, size_t name_len)
{
    uint32_t h = mix(mix(1u, (uintptr_t)c->name), name_len);
    for (size_t k = 0; k < c->n_anchors; k++)
        h = mix(mix(h, (uintptr_t)c->anchors[k]), c->anchor_len[k]);
    h = mix(h, c->n_anchors); /* (where one list ends) */
    for (size_t i = 0; i < c->chain_n; i++)
        h = mix(mix(h, (uintptr_t)c->chain[i]), c->chain_len[i]);
    return mix(h, c->chain_n);
}

/* HANDSHAKE's registers 1..13 and h's places for the configuration c, and its inputs in the window
 * below SE_CTRL_CHAIN_TOP (the anchors, now, the name, the client's chain: written unless c->placed
 * finds them in place, then the time alone, if it changed). SE_ERR_TLS_TOO_LARGE, nothing written,
 * when they do not fit. */
static se_status hs_layout(se_drv_ctrl_hs *h, const se_drv_ctrl_hs_config *c, uint16_t regs[16])
{
    uint32_t at = 0, chain = 0;
    const size_t name_len = c->name != NULL ? strlen(c->name) : 0;
    se_status st = SE_OK;

    /* The sizes first (each below the window, so no sum wraps): anchors, now, name, chain, the
     * datagram out, a record in, and the reassembly buffer in what is left below CHAIN_TOP. */
    size_t total = 14 + name_len;
    for (size_t k = 0; k < c->n_anchors; k++)
        total += 3 + (c->anchor_len[k] < SE_CTRL_CHAIN_TOP ? c->anchor_len[k] : SE_CTRL_CHAIN_TOP);
    for (size_t i = 0; i < c->chain_n; i++)
        chain += 3u + (uint32_t)(c->chain_len[i] < SE_CTRL_CHAIN_TOP ? c->chain_len[i] : SE_CTRL_CHAIN_TOP);
    const uint32_t out_max = align4(13u + chain + 205u > 256u ? 13u + chain + 205u : 256u);
    total += chain + 18u + out_max + c->datagram_max + 12u + 256u; /* (alignment; a buffer of 256 at least) */
    if (name_len > 255 || c->datagram_max > SE_CTRL_CHAIN_TOP || total > SE_CTRL_CHAIN_TOP)
        return SE_ERR_TLS_TOO_LARGE;

    const uint32_t print = fingerprint(c, name_len);
    const int keep = c->placed && placed_end != 0 && placed_print == print;
    at = c->n_anchors > 0 ? lined_up(0, c->anchors[0]) : 0;
    regs[1] = (uint16_t)at;
    for (size_t k = 0; k < c->n_anchors && st == SE_OK; k++)
        st = put_entry(&at, c->anchors[k], c->anchor_len[k], keep);
    regs[2] = regs[3] = (uint16_t)at;
    if (st == SE_OK && (!keep || placed_now != c->now)) {
        uint8_t digits[14];
        time_digits(c->now, digits);
        st = put(at, digits, 14);
    }
    at += 14u;
    regs[4] = (uint16_t)at;
    if (!keep && st == SE_OK && name_len > 0)
        st = put(at, (const uint8_t *)c->name, name_len);
    at += (uint32_t)name_len;
    regs[5] = (uint16_t)at;
    regs[6] = (uint16_t)((c->name != NULL ? 1u : 0u) | (c->cached ? 2u : 0u));
    at = c->chain_n > 0 ? lined_up(at, c->chain[0]) : at;
    regs[7] = (uint16_t)at;
    for (size_t i = 0; i < c->chain_n && st == SE_OK; i++)
        st = put_entry(&at, c->chain[i], c->chain_len[i], keep);
    regs[8] = (uint16_t)at;
    placed_print = print;
    placed_end = st == SE_OK ? at : 0;
    placed_now = c->now;
    regs[9] = (uint16_t)c->slot_c;
    regs[10] = (uint16_t)c->slot_s;
    h->out_at = (uint16_t)align4(at);
    h->out_max = (uint16_t)out_max;
    h->in_at = (uint16_t)(h->out_at + out_max);
    h->in_max = (uint16_t)c->datagram_max;
    regs[11] = (uint16_t)align4(h->in_at + h->in_max);
    regs[12] = (uint16_t)(SE_CTRL_CHAIN_TOP - regs[11]);
    regs[13] = h->out_at;
    return st;
}

se_status se_drv_ctrl_hs_place(const se_drv_ctrl_hs_config *c)
{
    se_drv_ctrl_hs h;
    uint16_t regs[16];
    return hs_layout(&h, c, regs);
}

se_status se_drv_ctrl_hs_start(se_drv_ctrl_hs *h, const se_drv_ctrl_hs_config *c)
{
    uint16_t regs[16] = {0};
    uint32_t out[16], valid;
    unsigned result;

    memset(h, 0, sizeof *h);
    h->state = SE_CTRL_STATE_FAILED;
    if (c->slot_c > 3 || c->slot_s > 3 || c->slot_c == c->slot_s || c->datagram_max == 0)
        return SE_ERR_BAD_INPUT;
    se_status st = hs_layout(h, c, regs);
    if (st != SE_OK)
        return st;
    const uint32_t end = placed_end;
    st = se_drv_ctrl_run(SE_CTRL_PROG_HANDSHAKE, regs, 0x3ffeu, &result, out, &valid);
    placed_end = end; /* (HANDSHAKE writes above it) */
    return hs_after(h, st, result, out, valid);
}

se_status se_drv_ctrl_hs_datagram(se_drv_ctrl_hs *h, const uint8_t *d, size_t n)
{
    return n > h->in_max ? SE_ERR_TLS_TOO_LARGE : put(h->in_at, d, n);
}

se_status se_drv_ctrl_hs_record(se_drv_ctrl_hs *h, unsigned type, unsigned epoch, size_t off, const uint8_t *body,
                                size_t n)
{
    uint16_t regs[16]; /* (run reads those of its mask alone: 1..4) */
    uint32_t out[16], valid;
    unsigned result;
    se_status st;

    h->out_len = 0;
    if (off > h->in_max || n > h->in_max - off || epoch > 1 || type > 255)
        return SE_ERR_TLS_TOO_LARGE;
    if (body != NULL && (st = put(h->in_at + (uint32_t)off, body, n)) != SE_OK)
        return st;
    regs[1] = (uint16_t)(h->in_at + off);
    regs[2] = (uint16_t)(h->in_at + off + n);
    regs[3] = (uint16_t)type;
    regs[4] = (uint16_t)epoch;
    st = se_drv_ctrl_run(SE_CTRL_PROG_HS_RECORD, regs, 0x1eu, &result, out, &valid);
    return hs_after(h, st, result, out, valid);
}

se_status se_drv_ctrl_hs_resend(se_drv_ctrl_hs *h)
{
    uint32_t out[16], valid;
    unsigned result;
    se_status st = se_drv_ctrl_run(SE_CTRL_PROG_HS_RESEND, NULL, 0, &result, out, &valid); /* (no inputs) */
    return hs_after(h, st, result, out, valid);
}
