/* Binary-field ECC engine driver through the registers of rtl/gf2m (docs/regs/gf2m.md); operands in
 * and results out by the engine's DMA (op GF2M) where it reaches them. */
#include <string.h>

#include "drv_internal.h"
#include "se/ct.h"
#include "se/drv.h"
#include "se/ec_hw.h"
#include "se/hw/gf2m_regs.h"

#define FE 30u    /* bytes of a field element or scalar */
#define REGB 32u  /* bytes of a K/PX/PY/RX/RY register array */

static uint32_t rd(uint32_t reg)
{
    return se_hal_read32(SE_HAL_GF2M_BASE + reg);
}

static void wr(uint32_t reg, uint32_t v)
{
    se_hal_write32(SE_HAL_GF2M_BASE + reg, v);
}

#define BIT(f) (SE_GF2M_STATUS_##f##_MASK << SE_GF2M_STATUS_##f##_SHIFT)

static void put(uint32_t reg, const uint8_t *v)
{
    uint8_t b[REGB] = {0};
    if (v != NULL)
        memcpy(b + REGB - FE, v, FE);
    se_drv_write_words(SE_HAL_GF2M_BASE + reg, b, REGB / 4);
    se_ct_wipe(b, sizeof b);
}

static void get(uint32_t reg, uint8_t *v)
{
    uint8_t b[REGB];
    se_drv_read_words(SE_HAL_GF2M_BASE + reg, b, REGB / 4);
    memcpy(v, b + REGB - FE, FE);
}

/* K, PX, PY := k, x, y (30 bytes each) in one DMA chain (GF2M REG 0..2), or through the registers
 * where the DMA cannot reach them. */
static se_status put_operands(const uint8_t *k, const uint8_t *x, const uint8_t *y)
{
    const uint8_t *const v[3] = {k, x, y};
    uint32_t d[3][SE_DRV_DMA_WORDS];
    int reach = 1;

    for (uint32_t i = 0; i < 3; i++)
        reach &= se_drv_dma_part(d[i], SE_DRV_DMA_GF2M | i << SE_DRV_DMA_GF2M_REG_SHIFT, v[i], NULL, FE);
    if (reach)
        return se_drv_dma_run(d, 3) == SE_OK ? SE_OK : SE_ERR_BACKEND;
    se_hal_dma_sync(); /* gives back the places taken */
    put(SE_GF2M_K(0), k);
    put(SE_GF2M_PX(0), x);
    put(SE_GF2M_PY(0), y);
    return SE_OK;
}

/* rx, ry := RX, RY, the same way. */
static se_status get_result(uint8_t *rx, uint8_t *ry)
{
    uint32_t d[2][SE_DRV_DMA_WORDS];
    int reach = se_drv_dma_part(d[0], SE_DRV_DMA_GF2M | SE_DRV_DMA_GF2M_READ, NULL, rx, FE);

    reach &= se_drv_dma_part(d[1], SE_DRV_DMA_GF2M | SE_DRV_DMA_GF2M_READ | 1u << SE_DRV_DMA_GF2M_REG_SHIFT, NULL, ry, FE);
    if (reach)
        return se_drv_dma_run(d, 2) == SE_OK ? SE_OK : SE_ERR_BACKEND;
    se_hal_dma_sync();
    get(SE_GF2M_RX(0), rx);
    get(SE_GF2M_RY(0), ry);
    return SE_OK;
}

se_status se_drv_gf2m_probe(void)
{
    if (rd(SE_GF2M_NAME) != SE_GF2M_NAME_VALUE || (rd(SE_GF2M_VERSION) >> 24) != 1u)
        return SE_ERR_NOT_SUPPORTED;
    return se_hal_take_fault() ? SE_ERR_NOT_SUPPORTED : SE_OK;
}

se_status se_drv_gf2m_mul(int koblitz, const uint8_t k[30], const uint8_t x[30], const uint8_t y[30],
                          uint8_t rx[30], uint8_t ry[30])
{
    const uint32_t status = SE_HAL_GF2M_BASE + SE_GF2M_STATUS;
    se_status st = se_drv_wait(status, BIT(CMD_READY), BIT(CMD_READY));
    if (st != SE_OK)
        return st;
    wr(SE_GF2M_ERR, 0xffffffffu);
    wr(SE_GF2M_CTRL, (uint32_t)(koblitz != 0) << SE_GF2M_CTRL_KOBLITZ_SHIFT);
    if ((st = put_operands(k, x, y)) != SE_OK)
        return st;
    wr(SE_GF2M_INTR_STATE, 1u << SE_GF2M_INTR_STATE_DONE_SHIFT);
    wr(SE_GF2M_INTR_ENABLE, 1u << SE_GF2M_INTR_ENABLE_DONE_SHIFT);
    wr(SE_GF2M_CMD, SE_GF2M_CMD_OP_START << SE_GF2M_CMD_OP_SHIFT);
    st = se_drv_sleep_until_idle(status, BIT(BUSY), SE_HAL_GF2M_BASE + SE_GF2M_INTR_STATE,
                                 SE_HAL_GF2M_BASE + SE_GF2M_INTR_ENABLE, 1u, SE_DRV_PK_POLL_LIMIT);
    put(SE_GF2M_K(0), NULL); /* the scalar does not stay in the engine's registers */
    if (st != SE_OK)
        return st;
    uint32_t res = (rd(SE_GF2M_STATUS) >> SE_GF2M_STATUS_RESULT_SHIFT) & SE_GF2M_STATUS_RESULT_MASK;
    if (rd(SE_GF2M_ERR) != 0 || se_hal_take_fault())
        return SE_ERR_BACKEND;
    switch (res) {
    case SE_GF2M_STATUS_RESULT_OK:
        st = get_result(rx, ry);
        wr(SE_GF2M_CMD, SE_GF2M_CMD_OP_CLEAR << SE_GF2M_CMD_OP_SHIFT); /* RX, RY read 0 again */
        return st;
    case SE_GF2M_STATUS_RESULT_BAD_POINT: return SE_ERR_INVALID_POINT;
    case SE_GF2M_STATUS_RESULT_INFINITY: return SE_ERR_INFINITY;
    case SE_GF2M_STATUS_RESULT_BAD_SCALAR: return SE_ERR_INVALID_SCALAR;
    default: return SE_ERR_BACKEND;
    }
}

/* ---- se_ec_ops on the gf2m IP (se/ec_hw.h): sect233r1 / sect233k1 ------------------------------ */
#define BFE FE

static int koblitz(const se_ec_curve *c)
{
    return strcmp(c->name, "sect233k1") == 0;
}

/* k * (x, y) (G when xy is NULL), k an se_bn below 2^233 */
static se_status b_mul_xy(const se_ec_curve *c, const se_bn *k, const uint8_t *xy, uint8_t *out)
{
    uint8_t kb[BFE], gx[BFE], gy[BFE];
    se_bn_to_bytes(kb, BFE, k);
    if (xy == NULL) {
        se_bn_to_bytes(gx, BFE, &c->gx);
        se_bn_to_bytes(gy, BFE, &c->gy);
    }
    out[0] = 0x04;
    se_status st = se_drv_gf2m_mul(koblitz(c), kb, xy ? xy : gx, xy ? xy + BFE : gy, out + 1,
                                   out + 1 + BFE);
    se_ct_wipe(kb, sizeof kb);
    return st;
}

/* On the curve (the engine checks) and in the order-n subgroup: n * P = O. */
static se_status b_validate(const se_ec_curve *c, const uint8_t *pub, size_t len)
{
    uint8_t out[1 + 2 * BFE];
    const uint8_t *xy = se_ec_point_xy(c, pub, len);
    if (xy == NULL)
        return SE_ERR_INVALID_POINT;
    se_status st = b_mul_xy(c, &c->n.m, xy, out);
    return st == SE_ERR_INFINITY ? SE_OK : st == SE_OK ? SE_ERR_INVALID_POINT : st;
}

static se_status b_mul(const se_ec_curve *c, const se_bn *k, const uint8_t *pub, size_t len,
                       uint8_t *out)
{
    const uint8_t *xy = NULL;
    if (pub != NULL && (xy = se_ec_point_xy(c, pub, len)) == NULL)
        return SE_ERR_INVALID_POINT;
    return b_mul_xy(c, k, xy, out);
}

/* Verification's u1 G + u2 Q stays in the library, on its binary curves' operations. */
static se_status b_mul2_x(const se_ec_curve *c, const se_bn *u1, const se_bn *u2, const uint8_t *pub,
                          size_t len, se_bn *x)
{
    return se_ec_binary_ops.mul2_x(c, u1, u2, pub, len, x);
}

/* The gf2m IP does scalar multiplication only: ECDSA's arithmetic is the library's, over it. */
const se_ec_ops se_ec_gf2m_ops = {
    .validate = b_validate,
    .mul = b_mul,
    .mul2_x = b_mul2_x,
    .sign = se_ec_sign_generic,
    .verify = se_ec_verify_generic,
    .sha = &se_drv_sha256_engine,
};
