/* The protocol controller's driver, through the registers of rtl/ctrl (docs/regs/ctrl.md): its
 * window (WIN_ADDR, WIN_WDATA, WIN_RDATA) and its programs (SETREG, CMD START, STATUS, OUT). */
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
    if (rd(SE_CTRL_NAME) != SE_CTRL_NAME_VALUE || (rd(SE_CTRL_VERSION) >> 24) != 0u ||
        FIELD(CAPABILITIES, WINDOW_KIB, rd(SE_CTRL_CAPABILITIES)) * 1024u != SE_CTRL_MEM_BYTES)
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

/* SIG_CHECK's inputs at the window's top, below the 32 bytes X509_PARSE keeps there: the digest,
 * the key, the signature; the signed bytes from 0. */
#define SIG_AT (SE_CTRL_MEM_BYTES - 32u - 160u)
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
    return result == SE_CTRL_ST_OK               ? SE_OK
           : result == SE_CTRL_ST_CERT_SIGNATURE ? SE_ERR_CERT_SIGNATURE
                                                 : SE_ERR_BACKEND;
}
