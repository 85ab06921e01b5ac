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
    uint64_t deadline = node_cycles() + (uint64_t)ms * SENSOR_CYCLES_PER_MS;
    if (ms != UINT32_MAX) {
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
        if (ms != UINT32_MAX && node_cycles() >= deadline)
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

/* Appends ,"key":a for an alert a (a < 0: none). */
static char *alert(char *d, const char *key, int a)
{
    return a < 0 ? d : sensor_cat_u(sensor_cat(d, key), (uint32_t)a);
}

_Noreturn void sensor_fail(int code, const char *where, const char *reason, int st, int alert_sent,
                           int alert_received)
{
    char l[160], *e = sensor_cat(l, "{\"error\":");
    node_marker(NULL);
    e = reason ? sensor_cat(sensor_cat(sensor_cat(e, "\""), reason), "\"") : sensor_cat_u(e, (uint32_t)st);
    e = sensor_cat(sensor_cat(sensor_cat(e, ",\"where\":\""), where), "\"");
    e = alert(e, ",\"alert_sent\":", alert_sent);
    e = alert(e, ",\"alert_received\":", alert_received);
    e = sensor_cat_u(sensor_cat(e, ",\"stack_peak\":"), node_stack_peak());
    sensor_say(l, sensor_cat(e, "}"));
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
    char l[96], *e = sensor_cat_u(sensor_cat(l, "{\"handshake\":"), h);
    e = sensor_cat_u(sensor_cat(e, ",\"cached\":"), cached != 0);
    e = sensor_cat_u(sensor_cat(e, ",\"suite\":"), suite);
    sensor_say(l, sensor_cat(sensor_cat_u(sensor_cat(e, ",\"cycles\":"), cycles), "}"));
}

void sensor_line_app_data(uint32_t bytes, unsigned records, uint32_t cycles)
{
    char l[96], *e = sensor_cat_u(sensor_cat(l, "{\"app_data\":"), bytes);
    e = sensor_cat_u(sensor_cat(e, ",\"records\":"), records);
    e = sensor_cat_u(sensor_cat(e, ",\"cycles\":"), cycles);
    sensor_say(l, sensor_cat(e, "}"));
}

void sensor_line_done(unsigned readings, uint32_t retransmits, uint32_t dropped, uint32_t bad_mac, uint32_t bytes_in)
{
    char l[200], *e = sensor_cat_u(sensor_cat(l, "{\"done\":1,\"readings\":"), readings);
    e = sensor_cat(sensor_cat(sensor_cat(e, ",\"name\":\""), sensor_name), "\"");
    e = sensor_cat_u(sensor_cat(e, ",\"retransmits\":"), retransmits);
    e = sensor_cat_u(sensor_cat(e, ",\"dropped\":"), dropped);
    e = sensor_cat_u(sensor_cat(e, ",\"bad_mac\":"), bad_mac);
    e = sensor_cat_u(sensor_cat(e, ",\"bytes_in\":"), bytes_in);
    e = sensor_cat_u(sensor_cat(e, ",\"stack_peak\":"), node_stack_peak());
    e = sensor_cat_u(sensor_cat(e, ",\"stack_size\":"), node_stack_size());
    sensor_say(l, sensor_cat(e, "}"));
}
