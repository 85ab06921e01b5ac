/* Merkle tree hashing on the node (seed 001's third application, RFC 6962 section 2.1): the root of
 * n data blocks and the audit path of one leaf, on the backend fixed at build time (SE_FW_BACKEND's
 * SHA-256 engine: the library for sw-*, the SHA IP for sw+hw-*). Inputs are deterministic (an LCG
 * per case), and each case prints them, so tests/node/test_merkle.py recomputes every output from
 * the RFC with Python's hashlib. One JSON object per line on the UART:
 *   {"op":"merkle","case":...,"n":N,"block_len":L,"m":M,"data":hex,"root":hex,"path":[hex,...],
 *    "status":...,"path_status":...}
 * then {"done":N,"failed":F}. The root and the path run between simulator markers named
 * merkle_root_<case> and merkle_path_<case>, so the simulator's --report gives their cycles; the
 * printing is outside. Exit status 0 when every call answered as expected. */
#include <stdio.h>

#include "node/node.h"
#include "se/merkle.h"

static const se_backend *be;
static unsigned lines, failed;
static uint8_t data[16 * 1024];

static void fill(uint8_t *b, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u; /* Numerical Recipes' LCG: the top byte is the output */
        b[i] = (uint8_t)(x >> 24);
    }
}

static void hex(const uint8_t *b, size_t n)
{
    putchar('"');
    for (size_t i = 0; i < n; i++)
        printf("%02x", b[i]);
    putchar('"');
}

static void status(const char *k, se_status st, se_status want)
{
    printf(",\"%s\":\"%s\"", k, se_status_name(st));
    if (st != want)
        failed++;
}

/* The cases: names are string literals, as the simulator's markers need (it reads them from ROM).
 * m >= n asks for a path that does not exist: SE_ERR_BAD_INPUT. */
static const struct {
    const char *name, *root_phase, *path_phase;
    size_t n, block_len, m;
} cases[] = {
    {"empty", "merkle_root_empty", "merkle_path_empty", 0, 64, 0},
    {"one", "merkle_root_one", "merkle_path_one", 1, 64, 0},
    {"7x64", "merkle_root_7x64", "merkle_path_7x64", 7, 64, 3},
    {"13x100", "merkle_root_13x100", "merkle_path_13x100", 13, 100, 12},
    {"5x0", "merkle_root_5x0", "merkle_path_5x0", 5, 0, 4},
    {"16x1k", "merkle_root_16x1k", "merkle_path_16x1k", 16, 1024, 5},
    {"no_leaf", "merkle_root_no_leaf", "merkle_path_no_leaf", 4, 64, 4},
};

int main(void)
{
    be = SE_FW_BACKEND;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t root[SE_SHA256_DIGEST_BYTES], path[SE_MERKLE_MAX_PATH][SE_SHA256_DIGEST_BYTES];
        size_t n = cases[c].n, len = cases[c].block_len, m = cases[c].m, path_len = 0;
        fill(data, n * len, (uint32_t)(900 + c));

        node_marker(cases[c].root_phase);
        se_status st = se_merkle_root(be->sha, data, len, n, root);
        node_marker(NULL);
        node_marker(cases[c].path_phase);
        se_status pst = se_merkle_path(be->sha, data, len, n, m, path, &path_len);
        node_marker(NULL);

        printf("{\"op\":\"merkle\",\"case\":\"%s\",\"n\":%u,\"block_len\":%u,\"m\":%u,\"data\":", cases[c].name,
               (unsigned)n, (unsigned)len, (unsigned)m);
        hex(data, n * len);
        printf(",\"root\":");
        hex(root, sizeof root);
        printf(",\"path\":[");
        for (size_t i = 0; i < path_len; i++) {
            if (i)
                putchar(',');
            hex(path[i], sizeof path[i]);
        }
        putchar(']');
        status("status", st, SE_OK);
        status("path_status", pst, m < n ? SE_OK : SE_ERR_BAD_INPUT);
        printf("}\n");
        lines++;
    }
    printf("{\"done\":%u,\"failed\":%u}\n", lines, failed);
    return failed == 0 ? 0 : 1;
}
