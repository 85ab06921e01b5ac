/* --backend soc: every operation runs inside the simulated node. The CLI starts the node simulator
 * (build/sim/<arch>/node) on the op-server firmware (build/fw/<config>/opserver.elf) with the
 * node's UART on a pair of pipes, then sends each entry point of se/backend.h (and each curve
 * operation of se/ec.h) as one request frame and reads one response frame (se/rpc.h). Which
 * firmware runs is the node configuration: --node sw-rv32i | sw-rv32im | sw+hw-rv32i |
 * sw+hw-rv32im | sw+hw-rv32imc (default sw+hw-rv32im, or $SE_NODE). The simulator's run report goes to
 * $SE_NODE_REPORT when that is set.
 *
 * The library's ECDH, ECDSA and key code runs on the host over these curve operations, as on the
 * other backends: point validation, k * P, k * G and ECDSA's signing and verification arithmetic
 * (se_ecdsa_sign_values / se_ecdsa_verify_values) run in the node, on its CPU alone (sw) or on the
 * engine (sw+hw); encodings, hashing and the RFC 6979 nonce stay on the host. HMAC-DRBG (the
 * hmac_drbg op) runs on the host over the node's HMAC and SHA-256 compression. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "se/ct.h"
#include "se/rpc.h"

const char *cli_node_config;

static pid_t child = -1;
static FILE *to_node, *from_node;

/* ---- the simulator process --------------------------------------------------------------- */

/* build/ of this CLI: the executable is build/host/se. */
static int build_dir(char *out, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(exe, '/');
        if (slash == NULL)
            return -1;
        *slash = '\0';
    }
    return snprintf(out, cap, "%s", exe) < (int)cap ? 0 : -1;
}

/* Ends the simulation: EOF on its UART input ends a healthy one; `kill` ends one that stopped
 * answering (a firmware stuck in a loop would otherwise run forever: the op server runs without a
 * cycle budget, as a batch may be long). */
static void stop_node_how(int kill_it)
{
    if (child <= 0)
        return;
    if (kill_it)
        kill(child, SIGTERM);
    fclose(to_node);
    int status;
    waitpid(child, &status, 0);
    fclose(from_node);
    child = -1;
}

static void stop_node(void)
{
    stop_node_how(0);
}

static const char *const node_configs[] = {"sw-rv32i", "sw-rv32im", "sw+hw-rv32i", "sw+hw-rv32im",
                                            "sw+hw-rv32imc"};

static se_status start_node(void)
{
    char build[PATH_MAX], sim[PATH_MAX + 64], elf[PATH_MAX + 64];
    const char *config = cli_node_config ? cli_node_config : getenv("SE_NODE");
    if (config == NULL)
        config = "sw+hw-rv32im";
    int known = 0;
    for (size_t i = 0; i < sizeof node_configs / sizeof node_configs[0]; i++)
        known |= strcmp(config, node_configs[i]) == 0;
    const char *arch = strrchr(config, '-');
    if (!known || arch == NULL) {
        fprintf(stderr, "se: unknown node configuration '%s' (have: sw-rv32i, sw-rv32im, sw+hw-rv32i, "
                        "sw+hw-rv32im, sw+hw-rv32imc)\n", config);
        return SE_ERR_BACKEND;
    }
    if (build_dir(build, sizeof build) != 0)
        return SE_ERR_BACKEND;
    snprintf(sim, sizeof sim, "%s/sim/%s/node", build, arch + 1);
    snprintf(elf, sizeof elf, "%s/fw/%s/opserver.elf", build, config);
    if (access(sim, X_OK) != 0 || access(elf, R_OK) != 0) {
        fprintf(stderr, "se: the node (%s) or its firmware (%s) is not built: run `make node`\n", sim, elf);
        return SE_ERR_BACKEND;
    }
    int in[2], out[2];
    if (pipe(in) != 0)
        return SE_ERR_BACKEND;
    if (pipe(out) != 0) {
        close(in[0]), close(in[1]);
        return SE_ERR_BACKEND;
    }
    const char *report = getenv("SE_NODE_REPORT");
    child = fork();
    if (child < 0) {
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        return SE_ERR_BACKEND;
    }
    if (child == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        char *argv[12] = {sim, "--elf", elf, "--uart-rx", "--max-cycles", "0", "--quiet", NULL};
        if (report != NULL) {
            argv[7] = "--report";
            argv[8] = (char *)report;
            argv[9] = NULL;
        }
        execv(sim, argv);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    signal(SIGPIPE, SIG_IGN); /* a dead simulator is an error answer, not a dead CLI */
    to_node = fdopen(in[1], "wb");
    from_node = fdopen(out[0], "rb");
    static int registered;
    if (!registered)
        registered = atexit(stop_node) == 0;
    if (to_node == NULL || from_node == NULL) {
        fprintf(stderr, "se: cannot talk to the node simulator\n");
        kill(child, SIGTERM);
        waitpid(child, NULL, 0);
        child = -1;
        return SE_ERR_BACKEND;
    }
    return SE_OK;
}

/* ---- frames ------------------------------------------------------------------------------- */
static uint8_t msg[SE_RPC_MAX_PAYLOAD];
static size_t msg_len;
static int too_long;

static void put_u32(uint32_t v)
{
    if (msg_len + 4 > sizeof msg) {
        too_long = 1;
        return;
    }
    for (int i = 0; i < 4; i++)
        msg[msg_len++] = (uint8_t)(v >> (8 * i));
}

static void put_bytes(const uint8_t *b, size_t n)
{
    put_u32((uint32_t)n);
    if (too_long || msg_len + n > sizeof msg) {
        too_long = 1;
        return;
    }
    if (n)
        memcpy(msg + msg_len, b, n);
    msg_len += n;
}

static void begin(void)
{
    msg_len = 0;
    too_long = 0;
}

/* Response fields are read from msg after call(). */
static size_t rd_pos;

static const uint8_t *get_bytes(size_t want)
{
    if (rd_pos + 4 > msg_len)
        return NULL;
    uint32_t n = (uint32_t)msg[rd_pos] | (uint32_t)msg[rd_pos + 1] << 8 |
                 (uint32_t)msg[rd_pos + 2] << 16 | (uint32_t)msg[rd_pos + 3] << 24;
    if (n != want || rd_pos + 4 + n > msg_len)
        return NULL;
    rd_pos += 4 + n;
    return msg + rd_pos - n;
}

/* Sends the request in msg, waits for the answer (payload into msg). */
static se_status call(se_rpc_op op)
{
    if (too_long)
        return SE_ERR_BAD_LENGTH; /* larger than the node's buffers */
    if (child <= 0 && start_node() != SE_OK)
        return SE_ERR_BACKEND;
    uint8_t h[SE_RPC_HEADER] = {SE_RPC_MAGIC0, SE_RPC_MAGIC1, (uint8_t)op, 0, (uint8_t)msg_len,
                                (uint8_t)(msg_len >> 8), (uint8_t)(msg_len >> 16),
                                (uint8_t)(msg_len >> 24)};
    if (fwrite(h, 1, sizeof h, to_node) != sizeof h || fwrite(msg, 1, msg_len, to_node) != msg_len ||
        fflush(to_node) != 0)
        goto dead;
    /* Bytes before the magic are the firmware's own output: pass them on. */
    int c, prev = -1;
    while ((c = fgetc(from_node)) != EOF) {
        if (prev == SE_RPC_MAGIC0 && c == SE_RPC_MAGIC1)
            break;
        if (prev >= 0)
            fputc(prev, stderr);
        prev = c;
    }
    if (c == EOF || fread(h + 2, 1, 6, from_node) != 6 || h[3] != 0)
        goto dead;
    size_t len = (size_t)h[4] | (size_t)h[5] << 8 | (size_t)h[6] << 16 | (size_t)h[7] << 24;
    if (len > sizeof msg || fread(msg, 1, len, from_node) != len || h[2] >= SE_STATUS_COUNT)
        goto dead;
    se_ct_wipe(msg + len, sizeof msg - len); /* the request's keys and scalars do not stay behind */
    msg_len = len;
    rd_pos = 0;
    return (se_status)h[2];
dead:
    se_ct_wipe(msg, sizeof msg);
    fprintf(stderr, "se: the simulated node stopped answering (see its message above)\n");
    stop_node_how(1);
    return SE_ERR_BACKEND;
}

/* Copies the next response field of exactly n bytes to out. */
static se_status take(uint8_t *out, size_t n)
{
    const uint8_t *b = get_bytes(n);
    if (b == NULL)
        return SE_ERR_BACKEND;
    if (n)
        memcpy(out, b, n);
    return SE_OK;
}

/* ---- se/backend.h entry points ----------------------------------------------------------- */
static se_status soc_probe(void)
{
    begin();
    return call(SE_RPC_PING);
}

static se_status soc_sha256(const uint8_t *m, size_t len, uint8_t digest[32])
{
    begin();
    put_bytes(m, len);
    se_status st = call(SE_RPC_SHA256);
    return st == SE_OK ? take(digest, 32) : st;
}

static se_status soc_hmac(const uint8_t *key, size_t key_len, const uint8_t *m, size_t len, uint8_t mac[32])
{
    begin();
    put_bytes(key, key_len);
    put_bytes(m, len);
    se_status st = call(SE_RPC_HMAC_SHA256);
    return st == SE_OK ? take(mac, 32) : st;
}

/* One compression in the node: the engine's SHA IP on sw+hw, the library on sw. */
static se_status soc_sha256_block(uint32_t h[8], const uint8_t block[64])
{
    uint8_t out[32];
    begin();
    for (unsigned i = 0; i < 8; i++)
        put_u32(h[i]);
    put_bytes(block, 64);
    se_status st = call(SE_RPC_SHA256_BLOCK);
    if (st == SE_OK && (st = take(out, 32)) == SE_OK)
        for (unsigned i = 0; i < 8; i++)
            h[i] = (uint32_t)out[4 * i] | (uint32_t)out[4 * i + 1] << 8 | (uint32_t)out[4 * i + 2] << 16 |
                   (uint32_t)out[4 * i + 3] << 24;
    return st;
}

/* Where HMAC-DRBG's HMACs run on this backend (se/sha256.h): each HMAC, or each compression of a
 * longer one, is one request to the node. */
static const se_sha256_engine soc_sha = {soc_sha256_block, soc_hmac, NULL};

static se_status soc_aes(se_aes_mode mode, int decrypt, const uint8_t *key, size_t key_len,
                         const uint8_t iv[16], const uint8_t *in, size_t len, uint8_t *out)
{
    begin();
    put_u32((uint32_t)mode);
    put_u32((uint32_t)(decrypt != 0));
    put_bytes(key, key_len);
    put_bytes(iv, iv != NULL && mode != SE_AES_MODE_ECB ? 16 : 0); /* ECB has no IV; the others need 16 bytes */
    put_bytes(in, len);
    se_status st = call(SE_RPC_AES);
    return st == SE_OK ? take(out, len) : st;
}

static se_status soc_cbc_mac(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                             uint8_t *mac, size_t mac_len)
{
    begin();
    put_bytes(key, key_len);
    put_bytes(data, len);
    put_u32((uint32_t)mac_len);
    se_status st = call(SE_RPC_CBC_MAC);
    return st == SE_OK ? take(mac, mac_len) : st;
}

/* The node takes the key with each message (se_aead_key_raw). */
static se_status soc_aead_seal(const se_aead_key *k, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                               size_t aad_len, const uint8_t *pt, size_t len, uint8_t *ct, uint8_t *tag,
                               size_t tag_len)
{
    begin();
    put_u32(k->mode);
    put_bytes(k->u.raw, k->key_len);
    put_bytes(nonce, nonce_len);
    put_bytes(aad, aad_len);
    put_bytes(pt, len);
    put_u32((uint32_t)tag_len);
    se_status st = call(SE_RPC_AEAD_ENCRYPT);
    if (st == SE_OK && (st = take(ct, len)) == SE_OK)
        st = take(tag, tag_len);
    return st;
}

static se_status soc_aead_open(const se_aead_key *k, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                               size_t aad_len, const uint8_t *ct, size_t len, const uint8_t *tag, size_t tag_len,
                               uint8_t *pt)
{
    begin();
    put_u32(k->mode);
    put_bytes(k->u.raw, k->key_len);
    put_bytes(nonce, nonce_len);
    put_bytes(aad, aad_len);
    put_bytes(ct, len);
    put_bytes(tag, tag_len);
    se_status st = call(SE_RPC_AEAD_DECRYPT);
    return st == SE_OK ? take(pt, len) : st;
}

static se_status soc_x25519(uint8_t out[32], const uint8_t k[32], const uint8_t u[32])
{
    begin();
    put_bytes(k, 32);
    put_bytes(u, 32);
    se_status st = call(SE_RPC_X25519);
    return st == SE_OK ? take(out, 32) : st;
}

static se_status soc_mod(se_mod_op op, const uint8_t *m, size_t m_len, const uint8_t *a,
                         const uint8_t *b, uint8_t *r)
{
    begin();
    put_u32((uint32_t)op);
    put_bytes(m, m_len);
    put_bytes(a, m_len);
    put_bytes(b, m_len);
    se_status st = call(SE_RPC_MOD);
    return st == SE_OK ? take(r, m_len) : st;
}

/* ---- curve operations --------------------------------------------------------------------- */

/* The curve as the node rebuilds it: a built-in one by its id, any other by its parameters. */
static void put_curve(const se_ec_curve *c)
{
    se_ec_curve t;
    for (int id = SE_CURVE_SECP160R1; id <= SE_CURVE_SECT233K1; id++)
        if (se_ec_curve_builtin(&t, (se_curve_id)id) == SE_OK && strcmp(t.name, c->name) == 0) {
            put_u32(SE_RPC_CURVE_BUILTIN);
            put_u32((uint32_t)id);
            return;
        }
    uint8_t v[32];
    size_t pl = c->p.bytes, nl = c->n.bytes;
    const se_bn *mont[4] = {&c->a, &c->b, &c->gx, &c->gy};
    put_u32(SE_RPC_CURVE_PARAMS);
    put_u32(c->h);
    se_bn_to_bytes(v, pl, &c->p.m);
    put_bytes(v, pl);
    for (int i = 0; i < 4; i++) {
        se_bn x;
        se_mod_from_mont(&c->p, &x, mont[i]);
        se_bn_to_bytes(v, pl, &x);
        put_bytes(v, pl);
    }
    se_bn_to_bytes(v, nl, &c->n.m);
    put_bytes(v, nl);
}

static void put_scalar(const se_ec_curve *c, const se_bn *k)
{
    uint8_t v[SE_EC_MAX_BYTES];
    se_bn_to_bytes(v, c->n.bytes, k);
    put_bytes(v, c->n.bytes);
    se_ct_wipe(v, sizeof v);
}

static se_status soc_validate(const se_ec_curve *c, const uint8_t *pub, size_t len)
{
    begin();
    put_curve(c);
    put_bytes(pub, len);
    return call(SE_RPC_EC_VALIDATE);
}

static se_status soc_mul(const se_ec_curve *c, const se_bn *k, const uint8_t *pub, size_t len, uint8_t *out)
{
    begin();
    put_curve(c);
    put_scalar(c, k);
    put_bytes(pub, pub ? len : 0);
    se_status st = call(SE_RPC_EC_MUL);
    return st == SE_OK ? take(out, 1 + 2 * c->field_bytes) : st;
}

static se_status soc_sign(const se_ec_curve *c, const se_bn *d, const se_bn *e, const se_bn *k, uint8_t *sig)
{
    begin();
    put_curve(c);
    put_scalar(c, d);
    put_scalar(c, e);
    put_scalar(c, k);
    se_status st = call(SE_RPC_ECDSA_SIGN);
    return st == SE_OK ? take(sig, 2 * c->n.bytes) : st;
}

static se_status soc_verify(const se_ec_curve *c, const uint8_t *pub, size_t len, const se_bn *e,
                            const se_bn *r, const se_bn *s)
{
    begin();
    put_curve(c);
    put_bytes(pub, len);
    put_scalar(c, e);
    put_scalar(c, r);
    put_scalar(c, s);
    return call(SE_RPC_ECDSA_VERIFY);
}

/* ECDSA goes to the node whole (its sign and verify): no u1 G + u2 Q on its own. */
static const se_ec_ops soc_ec_ops = {
    .validate = soc_validate,
    .mul = soc_mul,
    .sign = soc_sign,
    .verify = soc_verify,
};

static se_status soc_ec_curve(se_ec_curve *c)
{
    c->ops = &soc_ec_ops;
    return SE_OK;
}

/* Records are made of the AEAD messages above. */
static se_status soc_record_seal(const se_aead_key *k, const se_record *r, const uint8_t *pt, size_t len, uint8_t *rec)
{
    return se_backend_record_seal(&cli_soc_ops, k, r, pt, len, rec);
}

static se_status soc_record_open(const se_aead_key *k, const se_record *r, uint8_t *body, size_t n)
{
    return se_backend_record_open(&cli_soc_ops, k, r, body, n);
}

const se_backend cli_soc_ops = {
    .name = "soc",
    .probe = soc_probe,
    .sha256 = soc_sha256,
    .sha = &soc_sha,
    .hmac_sha256 = soc_hmac,
    .aes_crypt = soc_aes,
    .cbc_mac = soc_cbc_mac,
    .aead_key = se_aead_key_raw,
    .aead_wipe = se_aead_key_raw_wipe,
    .aead_seal = soc_aead_seal,
    .aead_open = soc_aead_open,
    .record_seal = soc_record_seal,
    .record_open = soc_record_open,
    .ec_curve = soc_ec_curve,
    .x25519 = soc_x25519,
    .mod = soc_mod,
};
