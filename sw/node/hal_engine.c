/* se/hal.h on the node: the engine drivers (sw/drivers) reach the engine through plain 32-bit
 * memory-mapped accesses at its base (rtl/soc/memmap.toml), and sleep in PicoRV32's waitirq while
 * a long public-key command runs (node_init enabled the engine's intc source). */
#include "node/node.h"
#include "se/hal.h"

uint32_t se_hal_read32(uint32_t offset)
{
    return NODE_REG(SE_MAP_ENGINE_BASE, offset);
}

void se_hal_write32(uint32_t offset, uint32_t value)
{
    NODE_REG(SE_MAP_ENGINE_BASE, offset) = value;
}

/* PicoRV32 has no bus-error input: the SoC acknowledges a failed access with data 0 and the
 * simulator stops the run (exit status 4) with the address. Firmware that is still running has
 * therefore never seen a fault. */
int se_hal_take_fault(void)
{
    return 0;
}

/* The driver enabled the IP's DONE interrupt before the command; its level wakes the core. */
void se_hal_sleep(void)
{
    node_sleep();
}
