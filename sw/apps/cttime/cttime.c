/* Constant time on the node (make bench's ct_node rows, tests/node/test_ct_cycles.py): one
 * operation per UART line, on inputs the host chooses, its cycles read from the cycle counter
 * just before and just after the call. The host sends the same operation with different secrets
 * (scalars, keys) and wants the same count for each; it checks the outputs against its own
 * implementation (the cryptography package), so a count is only taken from a correct run.
 *
 * Lines (hex fields separated by one space, '\n' at the end):
 *     E <d: 32 B> <Q: 65 B, 04||x||y>         P-256 ECDH, se_ecdh(d, Q): x of d*Q
 *     A <key: 16 B> <block: 16 B>             AES-128 ECB of one block (key expansion included)
 *     C <key: 16 B> <nonce: 12 B> <aad> <msg> AES-128-CCM_8 encrypt (as DTLS's CCM_8 suite)
 *     G <key: 16 B> <iv: 12 B> <aad> <msg>    AES-128-GCM encrypt, 16-byte tag
 *     Q                                       exit 0
 * Each operation answers {"op":"E","status":0,"cycles":N,"out":"<hex>"} (out: shared x; the
 * block; ct||tag); a line it cannot parse, {"op":"?","status":-1}. Everything goes through the
 * firmware's backend (SE_FW_BACKEND): the library in the sw configs, the engine in sw+hw ones.
 * cycles are the low 32 bits of the difference (software P-256 on RV32I is ~1.5 G cycles). */
#include <stdio.h>
#include <string.h>

#include "node/node.h"
#include "se/backend.h"
#include "se/ec.h"

#define LINE_CAP 400
#define FIELD_MAX 96

static char line[LINE_CAP];
static uint8_t f[5][FIELD_MAX];
static size_t flen[5];
static uint8_t out[FIELD_MAX + 16];

static size_t read_line(void)
{
    size_t n = 0;
    for (;;) {
        char ch = (char)uart_getc();
        if (ch == '\n')
            break;
        if (ch != '\r' && n < LINE_CAP - 1)
            line[n++] = ch;
    }
    line[n] = '\0';
    return n;
}

static int nibble(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* The hex fields after the command letter into f[]; their number, or -1 if one is malformed. */
static int parse(void)
{
    const char *p = line + 1;
    int nf = 0;
    while (*p == ' ') {
        p++;
        if (nf == 5)
            return -1;
        size_t n = 0;
        while (p[0] && p[0] != ' ') {
            int hi = nibble(p[0]), lo = p[1] ? nibble(p[1]) : -1;
            if (hi < 0 || lo < 0 || n == FIELD_MAX)
                return -1;
            f[nf][n++] = (uint8_t)(hi << 4 | lo);
            p += 2;
        }
        flen[nf++] = n;
    }
    return *p ? -1 : nf;
}

static void answer(char op, se_status st, uint64_t cycles, size_t out_len)
{
    printf("{\"op\":\"%c\",\"status\":%d,\"cycles\":%lu,\"out\":\"", op, (int)st,
           (unsigned long)(uint32_t)cycles);
    for (size_t i = 0; st == SE_OK && i < out_len; i++)
        printf("%02x", out[i]);
    printf("\"}\n");
}

int main(void)
{
    const se_backend *be = SE_FW_BACKEND;
    se_ec_curve p256;
    se_status cst = se_ec_curve_builtin(&p256, SE_CURVE_SECP256R1);
    if (cst == SE_OK)
        cst = be->ec_curve(&p256);
    printf("{\"ready\":\"%s\",\"status\":%d}\n", be->name, (int)cst);

    for (;;) {
        if (read_line() == 0)
            continue;
        char op = line[0];
        if (op == 'Q')
            return 0;
        int nf = parse();
        se_status st = SE_ERR_BAD_LENGTH;
        uint64_t t0 = 0, t1 = 0;
        size_t olen = 0;
        if (op == 'E' && nf == 2 && flen[0] == 32 && cst == SE_OK) {
            t0 = node_cycles();
            st = se_ecdh(&p256, f[0], 32, f[1], flen[1], out);
            t1 = node_cycles();
            olen = 32;
        } else if (op == 'A' && nf == 2 && flen[0] == 16 && flen[1] == 16) {
            t0 = node_cycles();
            st = be->aes_crypt(SE_AES_MODE_ECB, 0, f[0], 16, NULL, f[1], 16, out);
            t1 = node_cycles();
            olen = 16;
        } else if ((op == 'C' || op == 'G') && nf == 4 && flen[0] == 16 && flen[1] == 12 &&
                   flen[3] <= 64) {
            size_t tag = op == 'C' ? 8 : 16;
            se_aead_mode mode = op == 'C' ? SE_AEAD_CCM : SE_AEAD_GCM;
            t0 = node_cycles();
            st = se_backend_aead_encrypt(be, mode, f[0], 16, f[1], 12, f[2], flen[2], f[3], flen[3], out,
                                         out + flen[3], tag);
            t1 = node_cycles();
            olen = flen[3] + tag;
        } else {
            printf("{\"op\":\"?\",\"status\":-1}\n");
            continue;
        }
        answer(op, st, t1 - t0, olen);
        memset(f, 0, sizeof f);
        memset(out, 0, sizeof out);
    }
}
