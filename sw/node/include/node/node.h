/* The node's firmware base: a small HAL over the SoC's peripherals (rtl/soc: sysctl, uart, intc,
 * trng, nic), the simulation hooks (phase markers, exit code), a stack watermark and the choice
 * of crypto backend. Everything here is polled or sleeps in PicoRV32's `waitirq`: interrupts are
 * never taken (the core keeps them masked), an enabled intc source only wakes the core.
 *
 * Register offsets and field positions come from the generated headers se/hw/<name>_regs.h
 * (tools/regtool.py from rtl/soc/regs/<name>.toml) and the bases from se/hw/soc_memmap.h
 * (tools/memmap.py from rtl/soc/memmap.toml); sw/node/link.ld repeats the ROM and RAM regions
 * for the linker. This header is also included by start.S: only plain-number macros outside the
 * C block (the generated ones carry C's `u` suffix). */
#ifndef NODE_NODE_H
#define NODE_NODE_H

/* Word start.S paints over the unused stack; node_stack_peak() looks for the first overwritten one. */
#define NODE_STACK_PAINT 0x57ac57ac

#ifndef __ASSEMBLER__

#include <stddef.h>
#include <stdint.h>

#include "se/backend.h"

/* ---- crypto backend, fixed at build time ---------------------------------------------------- */
#ifndef SE_FW_HW
#error "SE_FW_HW must be defined: 0 for the software library, 1 for the engine (sw/node/fw.mk)"
#endif
#if SE_FW_HW
#define SE_FW_BACKEND (&se_backend_hw)
#define SE_FW_BACKEND_TLS (&se_backend_hw_tls)
#else
#define SE_FW_BACKEND (&se_backend_sw)
#define SE_FW_BACKEND_TLS (&se_backend_sw_tls)
#endif
/* SE_FW_BACKEND_TLS: only what the DTLS/TLS stack calls (se/backend.h), for firmware that needs
 * no more (the sensor); with it, node_p256 makes the curve. */

/* secp256r1 on the backend: the engine's alone (se_ec_curve_engine: no software ECC is linked)
 * or the library's (se_ec_curve_builtin). */
se_status node_p256(se_ec_curve *c);

/* ---- addresses: bases and intc source bits (SE_MAP_*, SE_IRQ_*), register layouts ------------ */
#include "se/hw/intc_regs.h"
#include "se/hw/nic_regs.h"
#include "se/hw/soc_memmap.h"
#include "se/hw/sysctl_regs.h"
#include "se/hw/trng_regs.h"
#include "se/hw/uart_regs.h"

/* A 32-bit device register: base from soc_memmap.h, offset from <name>_regs.h. */
#define NODE_REG(base, off) (*(volatile uint32_t *)(uintptr_t)((uint32_t)(base) + (uint32_t)(off)))

/* ---- start-up, CPU ---------------------------------------------------------------------------- */

/* Enables the engine's interrupt source in the intc, so a driver's se_hal_sleep() wakes when an
 * engine command is done. start.S calls it before main; calling it again does no harm. */
void node_init(void);

/* PicoRV32's custom `waitirq` (custom-0, funct7 4): the core stops until an irq line is high.
 * Interrupts stay masked, so it is never taken: execution continues after the instruction.
 * Sources are levels, so a wake-up that is already pending makes it return at once; callers
 * check their condition in a loop around it. On a word boundary (compressed builds may put it at
 * half of one): the simulator tells sleep from a fetched waitirq word (rtl/soc/soc_cpu_bridge.sv). */
static inline void node_sleep(void)
{
    __asm__ volatile(".balign 4\n\t.insn r 0x0B, 4, 4, x0, x0, x0" ::: "memory");
}

/* The free-running 64-bit cycle counter (sysctl CYCLE_LO latches CYCLE_HI). */
uint64_t node_cycles(void);

/* Starts a phase of the simulator's report (--report): name is the address of a NUL-terminated
 * string the simulator reads from the ROM image, so it must be a string literal (or other
 * const data in ROM). node_marker(NULL) ends the current phase. */
void node_marker(const char *name);

/* Stops the simulation with this exit code (sysctl SIM_EXIT); main's return value ends here too. */
_Noreturn void node_exit(int code);

/* The exit code of se_fatal (se/sha256.h), which prints {"fatal":<se_status number>} first. */
#define NODE_EXIT_FATAL 70

/* 32 bits from the trng. SIMULATION MODEL: a seeded xorshift64*, not an entropy source. */
uint32_t node_trng32(void);

/* ---- UART (stdout, stderr and stdin of picolibc's stdio go here) ------------------------------- */
void uart_putc(char c);
void uart_write(const void *buf, size_t len);
void uart_puts(const char *s); /* no newline added */
/* Blocks until a byte arrives, sleeping in waitirq (the uart RX source is enabled in the intc
 * while it waits). */
int uart_getc(void);

/* ---- RAM ---------------------------------------------------------------------------------------- */
/* p's n bytes lie wholly in RAM, the only window the bus masters besides the CPU (the engine's DMA,
 * the NIC's TX_DMA) reach. (Always inlined: a call costs each DMA chain a save and a restore.) */
__attribute__((always_inline)) static inline int node_in_ram(const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p;
    return a >= SE_MAP_RAM_BASE && a - SE_MAP_RAM_BASE + n <= SE_MAP_RAM_SIZE;
}

/* ---- NIC -------------------------------------------------------------------------------------- */
#define NODE_NIC_MAX_PACKET 2048u

/* Sends one packet of 1..NODE_NIC_MAX_PACKET bytes, waiting first while an earlier packet is
 * still leaving. A 4-byte aligned buffer in RAM the NIC reads itself (TX_DMA, NIC 1.1), and this
 * returns once it has; any other buffer goes a word at a time through TX_DATA. Returns len, or 0
 * (nothing sent) for a length out of range. */
size_t nic_send(const void *buf, size_t len);
/* Takes the packet at the head of the RX buffer without waiting: returns its length and copies
 * min(length, cap) bytes (the rest is dropped), or 0 when no packet waits. */
size_t nic_recv(void *buf, size_t cap);
/* Sleeps until a packet waits in the RX buffer (the nic source is enabled in the intc while it
 * waits). */
void nic_wait(void);
/* Packets the NIC dropped because its RX buffer was full. */
uint32_t nic_rx_dropped(void);

/* ---- stack watermark --------------------------------------------------------------------------- */
/* Bytes between the top of RAM and the deepest stack word written since reset (start.S painted
 * everything between the end of .bss and the top). A result equal to node_stack_size() means the
 * stack may have run into .bss. */
uint32_t node_stack_peak(void);
uint32_t node_stack_size(void);

#endif /* __ASSEMBLER__ */
#endif
