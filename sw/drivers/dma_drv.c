/* The engine's DMA (rtl/dma, docs/regs/dma.md): runs a chain of descriptors the AES and SHA
 * drivers build, while the CPU sleeps until the chain's DONE or ERROR interrupt. */
#include "drv_internal.h"
#include "se/hw/dma_regs.h"

static uint32_t rd(uint32_t reg)
{
    return se_hal_read32(SE_HAL_DMA_BASE + reg);
}

static void wr(uint32_t reg, uint32_t v)
{
    se_hal_write32(SE_HAL_DMA_BASE + reg, v);
}

#define INTR_BOTH (1u << SE_DMA_INTR_STATE_DONE_SHIFT | 1u << SE_DMA_INTR_STATE_ERROR_SHIFT)

se_status se_drv_dma_probe(void)
{
    uint32_t v = rd(SE_DMA_VERSION); /* 0.2: SEAL, OPEN, PK, GF2M, SHA with RESUME */
    if (rd(SE_DMA_NAME) != SE_DMA_NAME_VALUE || v >> 24 != 0u || (v >> 16 & 0xffu) < 2u)
        return SE_ERR_NOT_SUPPORTED;
    return se_hal_take_fault() ? SE_ERR_NOT_SUPPORTED : SE_OK;
}

int se_drv_dma_part(uint32_t d[SE_DRV_DMA_WORDS], uint32_t op, const void *src, void *dst, size_t n)
{
    d[0] = op;
    d[1] = src != NULL ? se_hal_dma_in(src, n) : 0u;
    d[2] = dst != NULL && n != 0 ? se_hal_dma_out(dst, n) : 0u;
    d[3] = (uint32_t)n;
    return (src == NULL || d[1] != 0) && (dst == NULL || n == 0 || d[2] != 0);
}

se_status se_drv_dma_chain(uint32_t *d, size_t words, size_t n)
{
    /* (taken as a region the DMA may write, which it does not: the descriptors lie on the caller's
     * stack, in RAM, so no bounce buffer is ever needed, and the node's HAL answers at once) */
    const uint32_t stride = (uint32_t)(words * sizeof *d);
    uint32_t base = se_hal_dma_out(d, n * stride), next = base, *w = d + 4, st;
    se_status ret;

    for (size_t i = 1; i < n; i++, w += words) /* NEXT, word 4 of each: the next one, then 0 */
        *w = next += stride;
    *w = 0;
    if (n == 0)
        return SE_OK;
    wr(SE_DMA_INTR_STATE, INTR_BOTH); /* (one a chain that timed out left latched) */
    wr(SE_DMA_INTR_ENABLE, INTR_BOTH);
    wr(SE_DMA_DESC, base);
    wr(SE_DMA_CMD, SE_DMA_CMD_OP_START << SE_DMA_CMD_OP_SHIFT);
    ret = se_drv_sleep_until_idle(SE_HAL_DMA_BASE + SE_DMA_STATUS, SE_DMA_STATUS_BUSY_MASK << SE_DMA_STATUS_BUSY_SHIFT,
                                  SE_HAL_DMA_BASE + SE_DMA_INTR_STATE, SE_HAL_DMA_BASE + SE_DMA_INTR_ENABLE,
                                  INTR_BOTH, SE_DRV_POLL_LIMIT);
    st = rd(SE_DMA_STATUS) >> SE_DMA_STATUS_RESULT_SHIFT; /* RESULT, then IP_RESULT above it */
    /* (descriptors on the caller's stack are always in RAM: base 0 cannot pass the DMA's check,
     * which ends the chain in BAD_ADDR) */
    if (ret != SE_OK || se_hal_take_fault())
        ret = SE_ERR_BACKEND;
    else if ((st & SE_DMA_STATUS_RESULT_MASK) != SE_DMA_STATUS_RESULT_OK)
        /* ENGINE with the AES engine's TAG_FAIL (1); any other refusal is a driver's or the bus's fault */
        ret = st == (SE_DMA_STATUS_RESULT_ENGINE | 1u << (SE_DMA_STATUS_IP_RESULT_SHIFT - SE_DMA_STATUS_RESULT_SHIFT))
                  ? SE_ERR_BAD_TAG
                  : SE_ERR_BACKEND;
    se_hal_dma_sync();
    return ret;
}
