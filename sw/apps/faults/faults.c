/* Fault injection for the simulator's error paths (tests/node/test_sim_errors.py): reads one
 * command byte from the UART and does what it names.
 *   i  an illegal instruction      -> the core traps (simulator exit status 3)
 *   b  a store to 0x4000_0000       -> bus error, nothing mapped there (status 4)
 *   r  a load from 0x4000_0000      -> bus error (status 4)
 *   w  a store into the ROM         -> bus error (status 4)
 *   s  spins forever                -> the cycle budget runs out (status 5)
 *   e  exits with code 7            -> status 1, code 7 in the report
 *   o  prints "ok", exits with 0    -> status 0
 *   h  SHA-256("abc") with a compression hook that always fails: the library's software
 *      fallback prints the digest (status 0), or, built with SE_SHA256_NO_SOFTWARE (rv32imc),
 *      se_fatal stops the node: {"fatal":<SE_ERR_BACKEND>}, exit code NODE_EXIT_FATAL
 * Before a faulting access it prints the address it is about to use. */
#include <stdio.h>

#include "node/node.h"
#include "se/sha256.h"

/* Volatile, so the compiler neither folds the accesses nor reasons about constant addresses. */
static volatile uintptr_t unmapped = 0x40000000u;
static volatile uintptr_t rom_word = 0x00000400u;

static se_status broken_compress(uint32_t h[8], const uint8_t block[SE_SHA256_BLOCK_BYTES])
{
    (void)h, (void)block;
    return SE_ERR_BACKEND;
}

int main(void)
{
    int cmd = uart_getc();
    switch (cmd) {
    case 'i':
        printf("faults: illegal instruction\n");
        __asm__ volatile(".globl faults_illegal\nfaults_illegal: unimp"); /* named for the test */
        break;
    case 'b':
        printf("faults: store to 0x%08lx\n", (unsigned long)unmapped);
        *(volatile uint32_t *)unmapped = 0x12345678u;
        break;
    case 'r':
        printf("faults: load from 0x%08lx\n", (unsigned long)unmapped);
        (void)*(volatile uint32_t *)unmapped;
        break;
    case 'w':
        printf("faults: store to ROM at 0x%08lx\n", (unsigned long)rom_word);
        *(volatile uint32_t *)rom_word = 0u;
        break;
    case 's':
        printf("faults: spinning\n");
        for (;;)
            ;
    case 'e':
        printf("faults: exit 7\n");
        node_exit(7);
    case 'o':
        printf("ok\n");
        return 0;
    case 'h': {
        uint8_t d[SE_SHA256_DIGEST_BYTES];
        static const se_sha256_engine broken = {broken_compress, NULL, NULL};
        se_sha256_ctx ctx;
        se_sha256_init_on(&ctx, &broken);
        se_sha256_update(&ctx, (const uint8_t *)"abc", 3);
        se_sha256_final(&ctx, d);
        printf("faults: sha256 ");
        for (size_t i = 0; i < sizeof d; i++)
            printf("%02x", d[i]);
        printf("\n");
        return 0;
    }
    default:
        printf("faults: unknown command 0x%02x\n", cmd & 0xff);
        return 2;
    }
    /* Only reached if the fault did not stop the simulation. */
    printf("faults: still running after '%c'\n", cmd);
    return 99;
}
