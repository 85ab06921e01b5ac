/* se/hal.h on the node: the engine drivers (sw/drivers) reach the engine through plain 32-bit
 * memory-mapped accesses at its base (rtl/soc/memmap.toml; inline in se/hal.h under SE_HAL_MMIO,
 * which every node build sets), and sleep in PicoRV32's waitirq while
 * a long public-key command runs (node_init enabled the engine's intc source). */
#include "node/node.h"
#include "se/hal.h"

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
