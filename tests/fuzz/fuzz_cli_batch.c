/* libFuzzer: the CLI's JSON-lines batch mode (`se batch`), one cli_batch_line call (tools/cli/batch.c)
 * per line of the input, on the `sw` backend, answers written to /dev/null. Every op of the CLI
 * is reachable (hashes, AES modes, AEAD, the DRBG, ECC on built-in and custom curves, X.509). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz_util.h"

/* backend.c is not linked (it pulls in the engine model and the soc backend): the `sw` backend. */
static const cli_backend sw = {"sw", &se_backend_sw};
const cli_backend *cli_be = &sw;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *out;
    if (out == NULL && (out = fopen("/dev/null", "w")) == NULL)
        abort();
    char *text = malloc(size + 1);
    if (text == NULL)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    /* Lines as getline() gives them: each with its '\n'. */
    for (char *line = text; line < text + size;) {
        char *nl = memchr(line, '\n', (size_t)(text + size - line));
        char *next = nl ? nl + 1 : text + size;
        char saved = *next;
        *next = '\0';
        (void)cli_batch_line(line, out);
        *next = saved;
        line = next;
    }
    free(text);
    return 0;
}
