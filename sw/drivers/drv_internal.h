/* Helpers shared by the engine drivers. */
#ifndef SE_DRV_INTERNAL_H
#define SE_DRV_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "se/hal.h"

/* Status polls before a driver gives up with SE_ERR_BACKEND: far above any command's latency
 * (the longest, an AEAD FINAL, takes tens of cycles), so only a broken engine reaches it. */
#define SE_DRV_POLL_LIMIT 100000u

static inline uint32_t se_drv_load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void se_drv_store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Clears a buffer that held secrets; volatile so the compiler keeps the stores. */
static inline void se_drv_wipe(void *p, size_t n)
{
    volatile uint8_t *v = (volatile uint8_t *)p;
    while (n--)
        *v++ = 0;
}

#endif
