/* Platform hooks the engine drivers use: 32-bit register access and waiting for the engine.
 * Implemented by the node firmware (memory-mapped I/O + WFI) and by sim/engine (a Verilator
 * model of the engine alone, for the CLI's --backend rtl). Addresses are byte offsets from the
 * engine's base; the IP windows are below. */
#ifndef SE_HAL_H
#define SE_HAL_H

#include <stddef.h>
#include <stdint.h>

/* The IPs' windows: rtl/engine/memmap.toml (tools/memmap.py, docs/engine_map.md). */
#include "se/hw/engine_memmap.h"
#define SE_HAL_AES_BASE SE_ENGINE_AES_BASE
#define SE_HAL_SHA_BASE SE_ENGINE_SHA_BASE
#define SE_HAL_PK_BASE SE_ENGINE_PK_BASE
#define SE_HAL_GF2M_BASE SE_ENGINE_GF2M_BASE
#define SE_HAL_DMA_BASE SE_ENGINE_DMA_BASE
#define SE_HAL_CTRL_BASE SE_ENGINE_CTRL_BASE

#if defined(SE_HAL_MMIO) && SE_HAL_MMIO
/* The node (cross builds, -DSE_HAL_MMIO=1): the engine is memory-mapped at SE_MAP_ENGINE_BASE
 * (rtl/soc/memmap.toml), so an access is one inline load or store, not a call: the drivers make
 * about forty of them per SHA block. */
#include "se/hw/soc_memmap.h"

static inline uint32_t se_hal_read32(uint32_t offset)
{
    return *(volatile uint32_t *)(uintptr_t)(SE_MAP_ENGINE_BASE + offset);
}

static inline void se_hal_write32(uint32_t offset, uint32_t value)
{
    *(volatile uint32_t *)(uintptr_t)(SE_MAP_ENGINE_BASE + offset) = value;
}
#else
uint32_t se_hal_read32(uint32_t offset);
void se_hal_write32(uint32_t offset, uint32_t value);
#endif

/* The engine's DMA (rtl/dma) reaches node RAM only. se_hal_dma_in gives the bus address from which
 * it may read n bytes equal to those at p, se_hal_dma_out one where it may write n bytes that end
 * up at p; either is 0 when the DMA cannot reach them, and the driver moves the bytes through the
 * registers instead. A driver takes the regions of one chain (its descriptors too) before it
 * writes CMD START, and calls se_hal_dma_sync once the chain has ended (or to give back what it
 * took when it does not start one). The node (sw/node/hal_engine.c): the buffer's own address
 * where it lies in RAM, and an input in ROM (a constant) copied into a small bounce buffer in RAM.
 * The engine model (sim/engine): places in the RAM it gives the DMA, filled from p when START is
 * written, copied back to p by sync. */
uint32_t se_hal_dma_in(const void *p, size_t n);
uint32_t se_hal_dma_out(void *p, size_t n);
void se_hal_dma_sync(void);

/* Nonzero once a register access ended in a bus error (then cleared). Drivers check it after an
 * operation and report SE_ERR_BACKEND. */
int se_hal_take_fault(void);

/* Waits for an interrupt from the engine: a driver calls it between status polls of a long
 * public-key command whose DONE interrupt it enabled. The node executes WFI (the CPU sleeps until
 * the engine's interrupt); the engine model advances the clock until its interrupt line rises. */
void se_hal_sleep(void);

#endif
