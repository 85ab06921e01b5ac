/* Reset entry of the node's firmware (PicoRV32, PROGADDR_RESET = 0): sets up gp, sp and tp,
 * copies .data/.tdata from their ROM load address to RAM, zeroes .tbss/.bss, paints the unused
 * stack for node_stack_peak(), calls node_init, runs main and hands its return value to node_exit
 * (sysctl SIM_EXIT). Symbols come from sw/node/link.ld; picolibc's crt0 is not linked. */
#include "node/node.h"

    .section .reset, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    j       reset

    /* 0x10: picorv32's interrupt vector (PROGADDR_IRQ). The firmware never unmasks an interrupt
     * (it only sleeps in waitirq), so this is unreachable; should it ever run, the illegal
     * instruction makes the core trap and the simulator say where. */
    .balign 16
irq_vector:
    unimp

reset:
    /* gp first, without relaxation: the assembler must not turn this into a gp-relative
     * address of itself. */
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
    la      sp, __stack_top
    la      tp, __tls_base

    /* .data and .tdata are adjacent in RAM and in ROM: one word copy. */
    la      a0, __data_start
    la      a1, __data_end
    la      a2, __data_load
1:  bgeu    a0, a1, 2f
    lw      t0, 0(a2)
    sw      t0, 0(a0)
    addi    a0, a0, 4
    addi    a2, a2, 4
    j       1b

    /* .tbss and .bss, also adjacent. */
2:  la      a0, __bss_start
    la      a1, __bss_end
3:  bgeu    a0, a1, 4f
    sw      zero, 0(a0)
    addi    a0, a0, 4
    j       3b

    /* Stack painting: every word from the stack limit up to sp holds the pattern, so the
     * deepest word main's call tree ever wrote is the lowest one that lost it. Four words per
     * turn (link.ld aligns the limit to 16 bytes, sp is the top of RAM): ~60 KiB cost about
     * 0.1 M cycles instead of 0.3 M. */
4:  la      a0, __stack_limit
    li      t0, NODE_STACK_PAINT
5:  bgeu    a0, sp, 6f
    sw      t0, 0(a0)
    sw      t0, 4(a0)
    sw      t0, 8(a0)
    sw      t0, 12(a0)
    addi    a0, a0, 16
    j       5b

6:  call    node_init       /* the engine's intc source, for the drivers' se_hal_sleep */
    li      a0, 0           /* argc */
    li      a1, 0           /* argv */
    call    main
    /* node_exit writes a0 to SIM_EXIT and never returns; the loop is for a real chip. */
    call    node_exit
7:  j       7b
    .size _start, . - _start
