/* se/hal.h on the node: the engine drivers (sw/drivers) reach the engine through plain 32-bit
 * memory-mapped accesses at its base (rtl/soc/memmap.toml; inline in se/hal.h under SE_HAL_MMIO,
 * which every node build sets), and sleep in PicoRV32's waitirq while
 * a long public-key command runs (node_init enabled the engine's intc source). */
#include <string.h>

#include "node/node.h"
#include "se/hal.h"

/* PicoRV32 has no bus-error input: the SoC acknowledges a failed access with data 0 and the
 * simulator stops the run (exit status 4) with the address. Firmware that is still running has
 * therefore never seen a fault. */
int se_hal_take_fault(void)
{
    return 0;
}

/* The engine's DMA reaches RAM: the caller's own buffers where they lie there. */
__attribute__((always_inline)) static inline uint32_t ram_addr(const void *p, size_t n)
{
    return node_in_ram(p, n) ? (uint32_t)(uintptr_t)p : 0u;
}

uint32_t se_hal_dma_out(void *p, size_t n)
{
    return ram_addr(p, n);
}

/* Inputs it cannot reach (constants in ROM) go through this RAM, in the order a chain takes them;
 * se_hal_dma_sync gives it all back. Enough for a chain's keys, labels and short constants; a
 * longer one the driver moves itself, or, in a build without that path (SE_DRV_DMA_ONLY), refuses.
 * A firmware that hands the DMA buffers in RAM alone keeps none (NODE_DMA_BOUNCE_WORDS 0: HW mode). */
#ifndef NODE_DMA_BOUNCE_WORDS
#define NODE_DMA_BOUNCE_WORDS 64
#endif
#if NODE_DMA_BOUNCE_WORDS > 0
static uint32_t bounce[NODE_DMA_BOUNCE_WORDS];
static size_t bounce_used; /* words */

/* (apart, so a buffer already in RAM, the common case, costs the caller no stack frame) */
__attribute__((noinline)) static uint32_t bounce_in(const void *p, size_t n)
{
    size_t words = (n + 3) / 4;

    if (words > NODE_DMA_BOUNCE_WORDS - bounce_used)
        return 0;
    memcpy(bounce + bounce_used, p, n);
    bounce_used += words;
    return (uint32_t)(uintptr_t)(bounce + bounce_used - words);
}

__attribute__((noinline)) static void bounce_wipe(void)
{
    memset(bounce, 0, bounce_used * 4); /* (what went through it may have been a key) */
    bounce_used = 0;
}
#else
static uint32_t bounce_in(const void *p, size_t n)
{
    (void)p, (void)n;
    return 0;
}

static const size_t bounce_used = 0;

static void bounce_wipe(void)
{
}
#endif

uint32_t se_hal_dma_in(const void *p, size_t n)
{
    uint32_t a = ram_addr(p, n);

    return a != 0 ? a : bounce_in(p, n);
}

void se_hal_dma_sync(void)
{
    if (bounce_used != 0)
        bounce_wipe();
}

/* The driver enabled the IP's DONE interrupt before the command; its level wakes the core. */
void se_hal_sleep(void)
{
    node_sleep();
}
