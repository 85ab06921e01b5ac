/* Host stand-in for sw/node/include/node/node.h, for fuzz_rpc.c only: the op server's UART reads
 * the fuzz input and its writes are dropped; the backend is the software library. */
#ifndef NODE_NODE_H
#define NODE_NODE_H

#include <stddef.h>
#include <stdint.h>

#include "se/backend.h"

#define SE_FW_BACKEND (&se_backend_sw)

void node_init(void);
void node_marker(const char *name);
int uart_getc(void);
void uart_write(const void *buf, size_t len);

#endif
