/* libFuzzer: the op server's request parser (sw/apps/opserver, the firmware side of the CLI's
 * `--backend soc`, se/rpc.h), built for the host. opserver.c is included whole, its main renamed;
 * shim/node/node.h stands in for the node's HAL: uart_getc reads the fuzz input and, when it is
 * used up, jumps back here out of the server's endless loop. The input is the byte stream the
 * UART receives: any number of frames, with noise between them. The backend is the software
 * library (SE_FW_BACKEND). The last curve is cached across frames, but not across inputs. */
#include <setjmp.h>
#include <stdlib.h>

#include "fuzz_util.h"

#define main opserver_main
#include "../../sw/apps/opserver/opserver.c"
#undef main

static const uint8_t *in;
static size_t in_left;
static jmp_buf done;

void node_init(void) {}

void node_marker(const char *name)
{
    (void)name;
}

int uart_getc(void)
{
    if (in_left == 0)
        longjmp(done, 1);
    in_left--;
    return *in++;
}

void uart_write(const void *buf, size_t len)
{
    /* The response leaves in one piece: read it all, so the sanitizer checks its bounds. */
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < len; i++)
        sink ^= ((const uint8_t *)buf)[i];
    (void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    in = data;
    in_left = size;
    curve_ok = 0;
    if (setjmp(done) == 0)
        opserver_main();
    return 0;
}
