/* NIC echo: sends every received packet back unchanged, sleeping in waitirq while the RX buffer
 * is empty, until a packet "quit" (not echoed) ends the run with exit code 0. Prints one line at
 * the start and a summary at the end on the UART. */
#include <stdio.h>
#include <string.h>

#include "node/node.h"

static uint8_t buf[NODE_NIC_MAX_PACKET];

int main(void)
{
    uint32_t packets = 0, bytes = 0;
    printf("nicecho: ready\n");
    for (;;) {
        size_t len;
        while ((len = nic_recv(buf, sizeof buf)) == 0)
            nic_wait();
        if (len == 4 && memcmp(buf, "quit", 4) == 0)
            break;
        if (nic_send(buf, len) != len)
            printf("nicecho: could not send %lu bytes\n", (unsigned long)len);
        packets++;
        bytes += (uint32_t)len;
    }
    printf("nicecho: %lu packets, %lu bytes echoed, %lu dropped, stack %lu bytes\n",
           (unsigned long)packets, (unsigned long)bytes, (unsigned long)nic_rx_dropped(),
           (unsigned long)node_stack_peak());
    return 0;
}
