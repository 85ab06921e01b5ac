/* The node's HAL (node/node.h): sysctl, uart, intc, trng and nic, picolibc's stdio on the UART
 * and the stack watermark. Register layouts: docs/regs/{sysctl,uart,intc,trng,nic}.md. */
#include <stdio.h>

#include "node/node.h"
#if SE_FW_HW
#include "se/drv.h"
#include "se/ec_hw.h"
#endif
#include "se/sha256.h"

#if !SE_FW_HW && defined(SE_SHA256_NO_SOFTWARE)
#error "SE_SHA256_NO_SOFTWARE needs the engine's SHA-256 (an sw+hw config): software firmware would stop at its first hash"
#endif

#define BIT(n) (1u << (n))

#define SYSCTL(r) NODE_REG(SE_MAP_SYSCTL_BASE, SE_SYSCTL_##r)
#define UART(r) NODE_REG(SE_MAP_UART_BASE, SE_UART_##r)
#define INTC(r) NODE_REG(SE_MAP_INTC_BASE, SE_INTC_##r)
#define TRNG(r) NODE_REG(SE_MAP_TRNG_BASE, SE_TRNG_##r)
#define NIC(r) NODE_REG(SE_MAP_NIC_BASE, SE_NIC_##r)

/* sw/node/link.ld */
extern uint32_t __stack_limit[], __stack_top[];

void node_init(void)
{
    INTC(ENABLE) |= BIT(SE_IRQ_ENGINE);
}

se_status node_p256(se_ec_curve *c)
{
#if SE_FW_HW
    return se_ec_curve_engine(c, &se_ec_secp256r1);
#else
    return se_ec_curve_builtin(c, SE_CURVE_SECP256R1);
#endif
}

uint64_t node_cycles(void)
{
    uint32_t lo = SYSCTL(CYCLE_LO); /* latches the high word: no carry race */
    uint32_t hi = SYSCTL(CYCLE_HI);
    return (uint64_t)hi << 32 | lo;
}

void node_marker(const char *name)
{
    SYSCTL(SIM_MARKER) = (uint32_t)(uintptr_t)name;
}

_Noreturn void node_exit(int code)
{
    SYSCTL(SIM_EXIT) = (uint32_t)code;
    for (;;) /* the simulator has stopped; a chip would stay here */
        node_sleep();
}

_Noreturn void se_fatal(se_status st)
{
    const unsigned v = (unsigned)st % 100u; /* se_status numbers have two digits at most */
    const char num[3] = {(char)('0' + v / 10u), (char)('0' + v % 10u), 0};
    uart_puts("{\"fatal\":");
    uart_puts(v >= 10u ? num : num + 1);
    uart_puts("}\n");
    node_exit(NODE_EXIT_FATAL);
}

uint32_t node_trng32(void)
{
    while ((TRNG(STATUS) & BIT(SE_TRNG_STATUS_VALID_SHIFT)) == 0)
        ;
    return TRNG(DATA);
}

/* ---- UART ---- */

void uart_putc(char c)
{
    while ((UART(STATUS) & BIT(SE_UART_STATUS_TX_READY_SHIFT)) == 0)
        ;
    UART(TXDATA) = (uint8_t)c;
}

void uart_write(const void *buf, size_t len)
{
    const char *p = buf;
    for (size_t i = 0; i < len; i++)
        uart_putc(p[i]);
}

void uart_puts(const char *s)
{
    while (*s)
        uart_putc(*s++);
}

int uart_getc(void)
{
    if ((UART(STATUS) & BIT(SE_UART_STATUS_RX_VALID_SHIFT)) == 0) {
        /* The uart line is RX_VALID && INTR_ENABLE.RX, a level: a byte arriving between the
         * check and waitirq keeps it high, so the core cannot sleep through it. */
        UART(INTR_ENABLE) |= BIT(SE_UART_INTR_ENABLE_RX_SHIFT);
        INTC(ENABLE) |= BIT(SE_IRQ_UART_RX);
        while ((UART(STATUS) & BIT(SE_UART_STATUS_RX_VALID_SHIFT)) == 0)
            node_sleep();
        /* Off again: bytes left waiting would otherwise wake every later sleep (a driver's). */
        INTC(ENABLE) &= ~BIT(SE_IRQ_UART_RX);
    }
    return (int)(UART(RXDATA) & 0xffu);
}

/* picolibc's stdio: one unbuffered stream on the UART for stdin, stdout and stderr. */
static int stdio_put(char c, FILE *f)
{
    (void)f;
    uart_putc(c);
    return (unsigned char)c;
}

static int stdio_get(FILE *f)
{
    (void)f;
    return uart_getc();
}

/* used: only picolibc (outside link-time optimisation, RV_CFLAGS) refers to them. */
static FILE node_stdio = FDEV_SETUP_STREAM(stdio_put, stdio_get, NULL, _FDEV_SETUP_RW);
__attribute__((used)) FILE *const stdin = &node_stdio;
__attribute__((used)) FILE *const stdout = &node_stdio;
__attribute__((used)) FILE *const stderr = &node_stdio;

/* ---- NIC ---- */

/* A word that may alias the caller's byte buffer (aligned accesses only). */
typedef uint32_t __attribute__((may_alias)) word_alias;

size_t nic_send(const void *buf, size_t len)
{
    const uint8_t *p = buf;
    if (len == 0 || len > NODE_NIC_MAX_PACKET)
        return 0;
    /* The TX buffer holds one whole packet: let the previous one leave first. */
    while (NIC(STATUS) & BIT(SE_NIC_STATUS_TX_BUSY_SHIFT))
        ;
    /* An aligned packet in RAM the NIC reads itself (TX_DMA); the buffer stays as it is until it
     * has. Anything else, or a refusal, goes a word at a time through TX_DATA. */
    const uintptr_t a = (uintptr_t)p;
    if ((a & 3u) == 0 && node_in_ram(p, len)) {
        NIC(TX_ADDR) = (uint32_t)a;
        NIC(TX_DMA) = (uint32_t)len;
        uint32_t st;
        while ((st = NIC(STATUS)) & BIT(SE_NIC_STATUS_TX_DMA_SHIFT))
            ;
        if ((st & BIT(SE_NIC_STATUS_TX_DMA_ERR_SHIFT)) == 0)
            return len;
    }
    size_t i = 0;
    /* Little-endian words hold the first byte in bits 7:0, as TX_DATA wants: aligned whole
     * words go as they are. */
    if (((uintptr_t)p & 3u) == 0)
        for (; i + 4 <= len; i += 4)
            NIC(TX_DATA) = *(const word_alias *)(const void *)(p + i);
    for (; i < len; i += 4) {
        uint32_t w = 0;
        for (size_t j = 0; j < 4 && i + j < len; j++)
            w |= (uint32_t)p[i + j] << (8 * j);
        NIC(TX_DATA) = w;
    }
    NIC(TX_SEND) = (uint32_t)len;
    return len;
}

size_t nic_recv(void *buf, size_t cap)
{
    uint8_t *p = buf;
    if ((NIC(STATUS) & BIT(SE_NIC_STATUS_RX_AVAIL_SHIFT)) == 0)
        return 0;
    size_t len = NIC(RX_LEN), n = len < cap ? len : cap, i = 0;
    if (((uintptr_t)p & 3u) == 0)
        for (; i + 4 <= n; i += 4)
            *(word_alias *)(void *)(p + i) = NIC(RX_DATA);
    for (; i < n; i += 4) {
        uint32_t w = NIC(RX_DATA);
        for (size_t j = 0; j < 4 && i + j < n; j++)
            p[i + j] = (uint8_t)(w >> (8 * j));
    }
    NIC(RX_POP) = 1; /* drops whatever was not read */
    return len;
}

void nic_wait(void)
{
    NIC(INTR_ENABLE) |= BIT(SE_NIC_INTR_ENABLE_RX_SHIFT);
    INTC(ENABLE) |= BIT(SE_IRQ_NIC_RX);
    for (;;) {
        /* Acknowledge first, then look: a packet arriving after the check sets INTR_STATE again
         * and wakes the core, whichever of INTR_STATE or RX_AVAIL drives the line. */
        NIC(INTR_STATE) = BIT(SE_NIC_INTR_STATE_RX_SHIFT);
        if (NIC(STATUS) & BIT(SE_NIC_STATUS_RX_AVAIL_SHIFT))
            break;
        node_sleep();
    }
    /* Off again until the next wait: the waiting packet would wake every other sleep. */
    INTC(ENABLE) &= ~BIT(SE_IRQ_NIC_RX);
}

uint32_t nic_rx_dropped(void)
{
    return NIC(RX_DROPPED);
}

/* ---- stack watermark ---- */

uint32_t node_stack_peak(void)
{
    const volatile uint32_t *p = __stack_limit;
    while (p < __stack_top && *p == NODE_STACK_PAINT)
        p++;
    return (uint32_t)((uintptr_t)__stack_top - (uintptr_t)p);
}

uint32_t node_stack_size(void)
{
    return (uint32_t)((uintptr_t)__stack_top - (uintptr_t)__stack_limit);
}
