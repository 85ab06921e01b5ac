/* libFuzzer: the CLI's PEM/DER readers (tools/cli/pem.c), included here so its static parsers can
 * be called on exact-size copies (the sanitizer then sees any read past the input).
 * Each input goes through, in turn: the DER key parsers (PKCS#8, SEC1), the PEM block reader and
 * base64 decoder, and the file-level readers cli_read_certs and cli_read_key on a memfd holding
 * the input. A certificate that reads back is written out again with cli_write_pem and must read
 * back unchanged. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../tools/cli/pem.c"
#include "fuzz_util.h"

static int fd = -1, fd2 = -1;
static char path[64], path2[64];

static int put_file(int f, const uint8_t *data, size_t size)
{
    if (ftruncate(f, 0) != 0)
        return -1;
    return pwrite(f, data, size, 0) == (ssize_t)size ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fd < 0) {
        fd = memfd_create("fuzz_pem", 0);
        fd2 = memfd_create("fuzz_pem_out", 0);
        if (fd < 0 || fd2 < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        snprintf(path2, sizeof path2, "/proc/self/fd/%d", fd2);
    }
    uint8_t key[32];
    uint8_t *der = malloc(size ? size : 1);
    if (der == NULL)
        abort();
    memcpy(der, data, size);
    (void)parse_pkcs8(der, der + size, key);
    (void)parse_sec1(der, der + size, key);
    free(der);

    /* The PEM reader on the text, NUL-terminated right after the input. */
    char *copy = malloc(size + 1);
    if (copy == NULL)
        abort();
    memcpy(copy, data, size);
    copy[size] = '\0';
    static const char *const labels[] = {"CERTIFICATE", "PRIVATE KEY", "EC PRIVATE KEY"};
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
        const char *pos = copy;
        uint8_t *out = malloc(size + 1);
        if (out == NULL)
            abort();
        for (int blocks = 0; blocks < 8 && pem_next(&pos, labels[i], out, size + 1) > 0; blocks++)
            ;
        free(out);
    }
    (void)b64_decode(copy, copy + size, key, sizeof key);
    free(copy);

    /* The file-level readers. */
    if (put_file(fd, data, size) != 0)
        abort();
    static uint8_t buf[16384], back[16384];
    const uint8_t *certs[4], *certs2[4];
    size_t lens[4], lens2[4];
    int n = cli_read_certs(path, buf, sizeof buf, certs, lens, 4);
    (void)cli_read_key(path, key);
    if (n > 0) {
        if (cli_write_pem(path2, "CERTIFICATE", certs[0], lens[0], 0) != 0 ||
            cli_read_certs(path2, back, sizeof back, certs2, lens2, 4) != 1 || lens2[0] != lens[0] ||
            memcmp(certs2[0], certs[0], lens[0]) != 0)
            abort(); /* PEM written by cli_write_pem does not read back */
    }
    return 0;
}
