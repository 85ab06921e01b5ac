/* The sensor firmwares' shared parts (sensor_io.h). */
#include <string.h>

#include "node/node.h"
#include "sensor_io.h"

#define BIT(n) (1u << (n))
#define SYSCTL(r) NODE_REG(SE_MAP_SYSCTL_BASE, SE_SYSCTL_##r)
#define INTC(r) NODE_REG(SE_MAP_INTC_BASE, SE_INTC_##r)
#define NIC(r) NODE_REG(SE_MAP_NIC_BASE, SE_NIC_##r)

char sensor_name[32];

void sensor_wait_rx(uint32_t ms)
{
    sensor_wait_rx_until(ms == UINT32_MAX ? UINT64_MAX : node_cycles() + (uint64_t)ms * SENSOR_CYCLES_PER_MS);
}

void sensor_wait_rx_until(uint64_t deadline)
{
    const int timed = deadline != UINT64_MAX;
    if (timed) {
        SYSCTL(TIMER_CMP_HI) = (uint32_t)(deadline >> 32);
        SYSCTL(TIMER_CMP_LO) = (uint32_t)deadline;
        SYSCTL(TIMER_CTRL) = BIT(SE_SYSCTL_TIMER_CTRL_EN_SHIFT);
        INTC(ENABLE) |= BIT(SE_IRQ_TIMER);
    }
    NIC(INTR_ENABLE) |= BIT(SE_NIC_INTR_ENABLE_RX_SHIFT);
    INTC(ENABLE) |= BIT(SE_IRQ_NIC_RX);
    for (;;) {
        NIC(INTR_STATE) = BIT(SE_NIC_INTR_STATE_RX_SHIFT); /* ack first, then look (as nic_wait) */
        if (NIC(STATUS) & BIT(SE_NIC_STATUS_RX_AVAIL_SHIFT))
            break;
        if (timed && node_cycles() >= deadline)
            break;
        node_sleep();
    }
    /* Levels: left enabled they would wake every later sleep (the engine drivers'). */
    INTC(ENABLE) &= ~(BIT(SE_IRQ_NIC_RX) | BIT(SE_IRQ_TIMER));
    SYSCTL(TIMER_CTRL) = 0;
}

char *sensor_cat(char *d, const char *s)
{
    while (*s)
        *d++ = *s++;
    return d;
}

char *sensor_cat_u(char *d, uint32_t v)
{
    char t[10];
    unsigned n = 0;
    do
        t[n++] = (char)('0' + v % 10u);
    while ((v /= 10u) != 0);
    while (n)
        *d++ = t[--n];
    return d;
}

void sensor_say(char *buf, char *end)
{
    *end++ = '\n';
    *end = 0;
    uart_puts(buf);
}

/* {"k":v,...}: keys NUL-separated, the list ending with an empty one; a key that begins with '"'
 * takes the next of str, quoted, instead of the next number of v. One loop for every line: their
 * code is the firmware's ROM. */
static void line(const char *keys, const uint32_t *v, const char *const *str)
{
    char l[200], *e = l;
    for (char sep = '{'; *keys; keys += strlen(keys) + 1, sep = ',') {
        *e++ = sep;
        e = sensor_cat(sensor_cat(sensor_cat(e, "\""), keys + (*keys == '"')), "\":");
        e = *keys == '"' ? sensor_cat(sensor_cat(sensor_cat(e, "\""), *str++), "\"") : sensor_cat_u(e, *v++);
    }
    sensor_say(l, sensor_cat(e, "}"));
}

/* Appends key k and its NUL to a key list. */
static char *key(char *d, const char *k)
{
    d = sensor_cat(d, k);
    *d++ = 0;
    return d;
}

_Noreturn void sensor_fail(int code, const char *where, const char *reason, int st, int alert_sent,
                           int alert_received)
{
    char keys[64], *k = keys;
    uint32_t v[4], *n = v;
    const char *str[2] = {reason, where};
    node_marker(NULL);
    if (reason == NULL)
        *n++ = (uint32_t)st;
    k = key(key(k, reason ? "\"error" : "error"), "\"where");
    if (alert_sent >= 0)
        k = key(k, "alert_sent"), *n++ = (uint32_t)alert_sent;
    if (alert_received >= 0)
        k = key(k, "alert_received"), *n++ = (uint32_t)alert_received;
    *key(k, "stack_peak") = 0;
    *n = node_stack_peak();
    line(keys, v, reason ? str : str + 1);
    node_exit(code);
}

int sensor_set_name(const uint8_t *cn, size_t len)
{
    if (cn == NULL || len >= sizeof sensor_name)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (cn[i] < 0x20 || cn[i] > 0x7e || cn[i] == '"' || cn[i] == '\\')
            return 0;
    memcpy(sensor_name, cn, len);
    sensor_name[len] = 0;
    return 1;
}

size_t sensor_reading(char *line, unsigned seq)
{
    unsigned t = 215u + (seq * 37u) % 21u - 10u;
    char *e = sensor_cat(line, sensor_name);
    e = sensor_cat_u(sensor_cat(e, " seq="), seq);
    e = sensor_cat_u(sensor_cat(e, " temp="), t / 10u);
    e = sensor_cat(sensor_cat_u(sensor_cat(e, "."), t % 10u), "C");
    return (size_t)(e - line);
}

void sensor_line_handshake(unsigned h, int cached, unsigned suite, uint32_t cycles)
{
    const uint32_t v[4] = {h, cached != 0, suite, cycles};
    line("handshake\0cached\0suite\0cycles\0", v, NULL);
}

void sensor_line_app_data(uint32_t bytes, unsigned records, uint32_t cycles)
{
    const uint32_t v[3] = {bytes, records, cycles};
    line("app_data\0records\0cycles\0", v, NULL);
}

void sensor_line_done(unsigned readings, uint32_t retransmits, uint32_t dropped, uint32_t bad_mac, uint32_t bytes_in)
{
    const uint32_t v[8] = {1, readings, retransmits, dropped, bad_mac, bytes_in, node_stack_peak(), node_stack_size()};
    const char *name = sensor_name;
    line("done\0readings\0\"name\0retransmits\0dropped\0bad_mac\0bytes_in\0stack_peak\0stack_size\0", v, &name);
}
