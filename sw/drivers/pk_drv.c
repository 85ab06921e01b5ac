/* Prime-field public-key engine driver through the registers of rtl/pk (docs/regs/pk.md): values
 * go into the engine's operand slots, a microcode program runs, results come back from slots.
 * The slot map and program numbers are generated with the microcode (se/hw/pk_ucode.h).
 * At the end, the crypto library's curve operations (se_ec_ops, se/ec.h) on this driver
 * (se/ec_hw.h): ECDH, ECDSA, keys and point validation keep their one implementation in sw/crypto
 * (encodings, nonces, hash truncation), while scalar multiplication and ECDSA's arithmetic run on
 * the engine. */
#include <string.h>

#include "drv_internal.h"
#include "se/ct.h"
#include "se/drv.h"
#include "se/ec_hw.h"
#include "se/hw/pk_regs.h"
#include "se/hw/pk_ucode.h"

#define SLOT_BYTES 32u

static uint32_t rd(uint32_t reg)
{
    return se_hal_read32(SE_HAL_PK_BASE + reg);
}

static void wr(uint32_t reg, uint32_t v)
{
    se_hal_write32(SE_HAL_PK_BASE + reg, v);
}

#define BIT(f) (SE_PK_STATUS_##f##_MASK << SE_PK_STATUS_##f##_SHIFT)

/* Issues one command (after waiting for CMD_READY); -1 on a bus failure. */
static int issue(uint32_t op, uint32_t slot, uint32_t prog)
{
    if (se_drv_wait(SE_HAL_PK_BASE + SE_PK_STATUS, BIT(CMD_READY), BIT(CMD_READY)) != SE_OK)
        return -1;
    wr(SE_PK_CMD, op << SE_PK_CMD_OP_SHIFT | slot << SE_PK_CMD_SLOT_SHIFT | prog << SE_PK_CMD_PROG_SHIFT);
    return 0;
}

/* Programs run for up to a million cycles: the CPU sleeps until DONE. Armed only by whoever then
 * waits (command(), settle()): a program left running in the background must not wake the
 * CPU's other sleeps (the network's) when it ends. */
static void arm_done(void)
{
    wr(SE_PK_INTR_STATE, 1u << SE_PK_INTR_STATE_DONE_SHIFT);
    wr(SE_PK_INTR_ENABLE, 1u << SE_PK_INTR_ENABLE_DONE_SHIFT);
}

/* Waits for the command issued last (RUN: asleep until DONE; WRITE/READ/INSN/CLEAR take a few
 * cycles: polled); returns the engine's RESULT code, or -1 on a driver or bus failure (reported
 * as SE_ERR_BACKEND). */
static int complete(uint32_t op)
{
    uint32_t base = SE_HAL_PK_BASE;
    if ((op == SE_PK_CMD_OP_RUN ? se_drv_sleep_until_idle(base + SE_PK_STATUS, BIT(BUSY), base + SE_PK_INTR_STATE,
                                                          base + SE_PK_INTR_ENABLE, 1u, SE_DRV_PK_POLL_LIMIT)
                                : se_drv_wait_n(base + SE_PK_STATUS, BIT(BUSY), 0, SE_DRV_PK_POLL_LIMIT)) != SE_OK)
        return -1;
    uint32_t status = rd(SE_PK_STATUS);
    if (rd(SE_PK_ERR) != 0 || se_hal_take_fault())
        return -1;
    return (int)((status >> SE_PK_STATUS_RESULT_SHIFT) & SE_PK_STATUS_RESULT_MASK);
}

static int command(uint32_t op, uint32_t slot, uint32_t prog)
{
    if (op == SE_PK_CMD_OP_RUN)
        arm_done();
    return issue(op, slot, prog) != 0 ? -1 : complete(op);
}

static se_status to_status(int res)
{
    switch (res) {
    case PK_ST_OK: return SE_OK;
    case PK_ST_BAD_PARAMS: return SE_ERR_BAD_PARAMS;
    case PK_ST_BAD_POINT: return SE_ERR_INVALID_POINT;
    case PK_ST_BAD_SCALAR: return SE_ERR_INVALID_SCALAR;
    case PK_ST_INFINITY: return SE_ERR_INFINITY;
    case PK_ST_VERIFY_FAIL: /* fall through */
    case PK_ST_RETRY: return SE_ERR_BAD_SIGNATURE;
    default: return SE_ERR_BACKEND; /* BAD_SEQ, BAD_INSN: a driver bug */
    }
}

/* Cache entry 0 holds the comb table of the loaded curve's generator (PRECOMP, made on first use);
 * entry 1 that of one remembered public key (se_drv_pk_remember_key). */
#define G_ENTRY 0u
#define KEY_ENTRY 1u

static se_status run_in(uint32_t entry, uint32_t prog)
{
    return to_status(command(SE_PK_CMD_OP_RUN, entry, prog));
}

static se_status run(uint32_t prog)
{
    return run_in(G_ENTRY, prog);
}

/* A big-endian integer of len (<= 32) bytes into a slot. */
static se_status put(uint32_t slot, const uint8_t *v, size_t len)
{
    uint32_t w[SLOT_BYTES / 4] = {0}; /* words: aligned for se_ct_wipe's word stores */
    uint8_t *b = (uint8_t *)w;
    memcpy(b + SLOT_BYTES - len, v, len);
    se_drv_write_words(SE_HAL_PK_BASE + SE_PK_DIN(0), b, SLOT_BYTES / 4);
    se_ct_wipe(w, sizeof w);
    return command(SE_PK_CMD_OP_WRITE, slot, 0) == PK_ST_OK ? SE_OK : SE_ERR_BACKEND;
}

/* A slot's low len bytes, big-endian. */
static se_status get(uint32_t slot, uint8_t *v, size_t len)
{
    uint32_t w[SLOT_BYTES / 4];
    uint8_t *b = (uint8_t *)w;
    if (command(SE_PK_CMD_OP_READ, slot, 0) != PK_ST_OK)
        return SE_ERR_BACKEND;
    se_drv_read_words(SE_HAL_PK_BASE + SE_PK_DOUT(0), b, SLOT_BYTES / 4);
    memcpy(v, b + SLOT_BYTES - len, len);
    se_ct_wipe(w, sizeof w);
    return SE_OK;
}

/* ---- operands and results by DMA (PK descriptors, DMA 0.2) --------------------------------- */
/* Up to XFER_MAX slots in one DMA chain, the CPU asleep: put_n writes slot[i] := the big-endian
 * number v[i] of len[i] bytes (PK), get_n reads each slot's low len[i] bytes into v[i] (PK with
 * READ). Where the DMA cannot reach a buffer, through the registers one at a time (put, get). */
#define XFER_MAX 6
static se_status xfer(size_t n, const uint32_t *slot, const uint8_t *const *in, uint8_t *const *out,
                      const size_t *len)
{
    uint32_t d[XFER_MAX][SE_DRV_DMA_WORDS];
    se_status st = SE_OK;
    int reach = 1;

    for (size_t i = 0; i < n; i++) {
        d[i][0] = SE_DRV_DMA_PK | slot[i] << SE_DRV_DMA_PK_SLOT_SHIFT | (out != NULL ? SE_DRV_DMA_PK_READ : 0u);
        d[i][1] = in != NULL ? se_hal_dma_in(in[i], len[i]) : 0u;
        d[i][2] = out != NULL ? se_hal_dma_out(out[i], len[i]) : 0u;
        d[i][3] = (uint32_t)len[i];
        reach &= (in != NULL ? d[i][1] : d[i][2]) != 0;
    }
    if (reach)
        return se_drv_dma_run(d, n) == SE_OK ? SE_OK : SE_ERR_BACKEND;
    se_hal_dma_sync(); /* gives back the places taken */
    for (size_t i = 0; i < n && st == SE_OK; i++)
        st = in != NULL ? put(slot[i], in[i], len[i]) : get(slot[i], out[i], len[i]);
    return st;
}

static se_status put_n(size_t n, const uint32_t *slot, const uint8_t *const *v, const size_t *len)
{
    return xfer(n, slot, v, NULL, len);
}

static se_status get_n(size_t n, const uint32_t *slot, uint8_t *const *v, const size_t *len)
{
    return xfer(n, slot, NULL, v, len);
}

/* The result point (or signature) RX, RY: len bytes each. */
static se_status get_result(uint8_t *x, uint8_t *y, size_t len)
{
    const uint32_t slot[2] = {PK_SLOT_RX, PK_SLOT_RY};
    uint8_t *const v[2] = {x, y};
    const size_t l[2] = {len, len};
    return get_n(2, slot, v, l);
}

/* The point (x, y) into QX, QY, and up to three scalars of n_len bytes after it (e: E, RX, RY). */
static se_status put_point_and(const se_drv_ec_params *c, const uint8_t *x, const uint8_t *y, size_t ns,
                               const uint32_t *sslot, const uint8_t *const *sv)
{
    uint32_t slot[5] = {PK_SLOT_QX, PK_SLOT_QY};
    const uint8_t *v[5] = {x, y};
    size_t len[5] = {c->p_len, c->p_len};
    for (size_t i = 0; i < ns; i++) {
        slot[2 + i] = sslot[i];
        v[2 + i] = sv[i];
        len[2 + i] = c->n_len;
    }
    return put_n(2 + ns, slot, v, len);
}

static se_status put_point(const se_drv_ec_params *c, const uint8_t *x, const uint8_t *y)
{
    return put_point_and(c, x, y, 0, NULL, NULL);
}

/* Scalars of n_len bytes into their slots. */
static se_status put_scalars(const se_drv_ec_params *c, size_t n, const uint32_t *slot, const uint8_t *const *v)
{
    const size_t len[3] = {c->n_len, c->n_len, c->n_len};
    return put_n(n, slot, v, len);
}

/* Zeroes the working slots (keys, nonces, intermediates) and DOUT, then DIN; the curve stays. */
static se_status clear(se_status st)
{
    if (command(SE_PK_CMD_OP_CLEAR, 0, 0) != PK_ST_OK)
        return SE_ERR_BACKEND;
    for (uint32_t i = 0; i < SLOT_BYTES / 4; i++)
        wr(SE_PK_DIN(i), 0);
    return st;
}

/* A program left running by se_drv_pk_mul_start, se_drv_pk_ecdsa_sign_start or
 * se_drv_pk_remember_key. Every other entry point first settles it: waits for it, keeps its
 * status and result (RX, RY) here for se_drv_pk_collect, and clears the working slots. So the
 * CPU can work while the engine computes, and any pk call made meanwhile stays correct (it
 * just waits). A remembered key's PRECOMP has no result: settling it records the table. */
static struct {
    enum { BG_NONE, BG_RUNNING, BG_DONE } state;
    se_status st;
    size_t len; /* 0: a remembered key's PRECOMP */
    uint8_t x[SLOT_BYTES], y[SLOT_BYTES];
} bg;

/* The curve the engine holds (public parameters), so back-to-back operations skip reloading,
 * and the public key whose table is in KEY_ENTRY. */
static struct {
    uint8_t v[6][SLOT_BYTES];
    size_t p_len, n_len;
    int g_table;   /* PRECOMP of G done for this curve */
    int key_table; /* KEY_ENTRY holds the table of key (x || y, p_len bytes each) */
    uint8_t key[2 * SLOT_BYTES];
} loaded;

/* Forgets a settled result (the shared secret of an ECDH among them). */
static void drop(void)
{
    se_ct_wipe(bg.x, sizeof bg.x);
    se_ct_wipe(bg.y, sizeof bg.y);
    bg.state = BG_NONE;
}

static void settle(void)
{
    if (bg.state != BG_RUNNING)
        return;
    bg.state = BG_DONE;
    arm_done(); /* complete() tests BUSY before each sleep: a program already done is not waited for */
    bg.st = to_status(complete(SE_PK_CMD_OP_RUN));
    if (bg.len == 0) { /* se_drv_pk_remember_key: nothing to collect */
        loaded.key_table = bg.st == SE_OK;
        bg.state = BG_NONE;
    }
    if (bg.st == SE_OK && bg.len != 0)
        bg.st = get_result(bg.x, bg.y, bg.len);
    bg.st = clear(bg.st);
}

se_status se_drv_pk_probe(void)
{
    if (rd(SE_PK_NAME) != SE_PK_NAME_VALUE || (rd(SE_PK_VERSION) >> 24) != 1u)
        return SE_ERR_NOT_SUPPORTED;
    return se_hal_take_fault() ? SE_ERR_NOT_SUPPORTED : SE_OK;
}

/* a and b, n bytes of public values, are equal: word by word where both are word-aligned (the
 * curves' parameters usually are), else memcmp's bytes. (The word loop in a function of its own:
 * see sha_drv.c's write_aligned.) */
__attribute__((noinline)) static int same_words(const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n / 4; i++)
        if (((const se_ct_word *)a)[i] != ((const se_ct_word *)b)[i])
            return 0;
    return 1;
}

static int same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
    return (((uintptr_t)a | (uintptr_t)b | n) & 3u) == 0 ? same_words(a, b, n) : memcmp(a, b, n) == 0;
}

se_status se_drv_pk_load_curve(const se_drv_ec_params *c)
{
    settle();
    /* The values in slot order: slot i takes src[i]. */
    _Static_assert(PK_SLOT_P == 0 && PK_SLOT_N == 1 && PK_SLOT_A == 2 && PK_SLOT_B == 3 &&
                       PK_SLOT_GX == 4 && PK_SLOT_GY == 5,
                   "the curve's slots are 0..5 in the order of src");
    const uint8_t *const src[6] = {c->p, c->n, c->a, c->b, c->gx, c->gy};
    const uint32_t slot[6] = {0, 1, 2, 3, 4, 5};
    const size_t len[6] = {c->p_len, c->n_len, c->p_len, c->p_len, c->p_len, c->p_len};
    se_status st;

    if (c->p_len == 0 || c->p_len > SLOT_BYTES || c->n_len == 0 || c->n_len > SLOT_BYTES)
        return SE_ERR_BAD_PARAMS;
    wr(SE_PK_ERR, 0xffffffffu);
    int same = loaded.p_len == c->p_len && loaded.n_len == c->n_len &&
               (rd(SE_PK_STATUS) & BIT(CURVE)) != 0;
    for (unsigned i = 0; i < 6 && same; i++)
        same = same_bytes(loaded.v[i], src[i], i == PK_SLOT_N ? c->n_len : c->p_len);
    if (same)
        return SE_OK;
    loaded.p_len = 0;
    loaded.key_table = 0; /* a new curve empties the engine's cache */
    for (unsigned i = 0; i < 6; i++)
        memcpy(loaded.v[i], src[i], len[i]); /* kept: valid once p_len is set below */
    st = put_n(6, slot, src, len);
    if (st == SE_OK)
        st = run(PK_PROG_FIELD);
    if (st == SE_OK)
        st = run(PK_PROG_ORDER);
    if (st == SE_OK)
        st = run(PK_PROG_CURVE);
    if (st == SE_OK) {
        loaded.p_len = c->p_len;
        loaded.n_len = c->n_len;
        loaded.g_table = 0;
    }
    return st;
}

/* The curve, and G's comb table in cache entry 0 (the fixed-base programs use it). */
se_status se_drv_pk_load_curve_g(const se_drv_ec_params *c)
{
    se_status st = se_drv_pk_load_curve(c);
    if (st != SE_OK || loaded.g_table)
        return st;
    st = put_point(c, c->gx, c->gy);
    if (st == SE_OK)
        st = run(PK_PROG_PRECOMP);
    loaded.g_table = st == SE_OK;
    return st;
}

/* Leaves prog running (its operands are in place) for se_drv_pk_collect: RX, RY of len bytes. */
static se_status run_start(se_status st, uint32_t entry, uint32_t prog, size_t len)
{
    if (st == SE_OK && (issue(SE_PK_CMD_OP_RUN, entry, prog) != 0 || rd(SE_PK_ERR) != 0 || se_hal_take_fault()))
        st = SE_ERR_BACKEND;
    if (st != SE_OK)
        return clear(st);
    bg.len = len;
    bg.state = BG_RUNNING;
    return SE_OK;
}

/* K (and Q for k * Q) into their slots; the curve (and G's table for k * G) loaded. */
static se_status mul_operands(const se_drv_ec_params *c, const uint8_t *k, const uint8_t *x,
                              const uint8_t *y)
{
    se_status st = x != NULL ? se_drv_pk_load_curve(c) : se_drv_pk_load_curve_g(c); /* settles */
    const uint32_t slot[1] = {PK_SLOT_K};
    const uint8_t *const v[1] = {k};
    if (st != SE_OK)
        return st;
    return x != NULL ? put_point_and(c, x, y, 1, slot, v) : put_scalars(c, 1, slot, v);
}

se_status se_drv_pk_mul(const se_drv_ec_params *c, const uint8_t *k, const uint8_t *x,
                        const uint8_t *y, uint8_t *rx, uint8_t *ry)
{
    se_status st = mul_operands(c, k, x, y);
    if (st == SE_OK)
        st = run(x != NULL ? PK_PROG_ECSM : PK_PROG_ECSM_COMB);
    if (st == SE_OK)
        st = get_result(rx, ry, c->p_len);
    return clear(st);
}

se_status se_drv_pk_mul_start(const se_drv_ec_params *c, const uint8_t *k, const uint8_t *x,
                              const uint8_t *y)
{
    se_status st = mul_operands(c, k, x, y);
    drop(); /* an uncollected earlier result */
    return run_start(st, G_ENTRY, x != NULL ? PK_PROG_ECSM : PK_PROG_ECSM_COMB, c->p_len);
}

se_status se_drv_pk_collect(uint8_t *a, uint8_t *b)
{
    settle();
    if (a == NULL) { /* discard: whatever ran is over and wiped */
        drop();
        return SE_OK;
    }
    if (bg.state != BG_DONE)
        return SE_ERR_BAD_INPUT;
    se_status st = bg.st;
    if (st == SE_OK) {
        memcpy(a, bg.x, bg.len);
        memcpy(b, bg.y, bg.len);
    }
    drop();
    return st;
}

se_status se_drv_pk_validate(const se_drv_ec_params *c, const uint8_t *x, const uint8_t *y)
{
    se_status st = se_drv_pk_load_curve(c);
    if (st == SE_OK)
        st = put_point(c, x, y);
    return st == SE_OK ? run(PK_PROG_VALIDATE) : st;
}

static se_status sign_operands(const se_drv_ec_params *c, const uint8_t *d, const uint8_t *k,
                               const uint8_t *e)
{
    se_status st = se_drv_pk_load_curve_g(c); /* settles */
    const uint32_t slot[3] = {PK_SLOT_K, PK_SLOT_D, PK_SLOT_E};
    const uint8_t *const v[3] = {k, d, e};
    return st == SE_OK ? put_scalars(c, 3, slot, v) : st;
}

se_status se_drv_pk_ecdsa_sign(const se_drv_ec_params *c, const uint8_t *d, const uint8_t *k,
                               const uint8_t *e, uint8_t *r, uint8_t *s)
{
    se_status st = sign_operands(c, d, k, e);
    if (st == SE_OK)
        st = run(PK_PROG_ECDSA_SIGN);
    if (st == SE_OK)
        st = get_result(r, s, c->n_len);
    return clear(st);
}

se_status se_drv_pk_ecdsa_sign_start(const se_drv_ec_params *c, const uint8_t *d, const uint8_t *k,
                                     const uint8_t *e)
{
    se_status st = sign_operands(c, d, k, e);
    drop();
    return run_start(st, G_ENTRY, PK_PROG_ECDSA_SIGN, c->n_len);
}

/* Does KEY_ENTRY hold the table of the key (x, y)? */
static int key_loaded(const se_drv_ec_params *c, const uint8_t *x, const uint8_t *y)
{
    return loaded.key_table && memcmp(loaded.key, x, c->p_len) == 0 &&
           memcmp(loaded.key + c->p_len, y, c->p_len) == 0;
}

/* A remembered key: PRECOMP into KEY_ENTRY, left running (settle records it). Public values. */
se_status se_drv_pk_remember_key(const se_drv_ec_params *c, const uint8_t *x, const uint8_t *y)
{
    se_status st = se_drv_pk_load_curve_g(c); /* settles; the joint comb needs G's table too */
    if (st != SE_OK)
        return st;
    if (key_loaded(c, x, y))
        return SE_OK;
    loaded.key_table = 0;
    memcpy(loaded.key, x, c->p_len);
    memcpy(loaded.key + c->p_len, y, c->p_len);
    st = put_point(c, x, y);
    drop();
    return run_start(st, KEY_ENTRY, PK_PROG_PRECOMP, 0);
}

se_status se_drv_pk_ecdsa_verify(const se_drv_ec_params *c, const uint8_t *x, const uint8_t *y,
                                 const uint8_t *e, const uint8_t *r, const uint8_t *s)
{
    se_status st = se_drv_pk_load_curve_g(c); /* u1 G by the comb; settles */
    /* the remembered key: u1 G + u2 Q by one joint comb over both tables */
    int joint = key_loaded(c, x, y);
    const uint32_t slot[3] = {PK_SLOT_E, PK_SLOT_RX, PK_SLOT_RY};
    const uint8_t *const v[3] = {e, r, s};
    if (st == SE_OK)
        st = put_point_and(c, x, y, 3, slot, v);
    if (st == SE_OK)
        st = joint ? run_in(KEY_ENTRY, PK_PROG_ECDSA_VERIFY_COMB) : run(PK_PROG_ECDSA_VERIFY);
    return clear(st);
}

static const uint8_t p25519[SLOT_BYTES] = {
    0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xed};

/* Loads modulus m into slot P and runs FIELD (this unloads any curve). */
static se_status load_field(const uint8_t *m, size_t m_len)
{
    loaded.p_len = 0;
    loaded.key_table = 0;
    wr(SE_PK_ERR, 0xffffffffu);
    se_status st = put(PK_SLOT_P, m, m_len);
    return st == SE_OK ? run(PK_PROG_FIELD) : st;
}

se_status se_drv_pk_x25519(uint8_t out[32], const uint8_t k[32], const uint8_t u[32])
{
    settle();
    uint8_t kb[SLOT_BYTES], ub[SLOT_BYTES];
    /* RFC 7748 section 5: little-endian strings; clamp k, mask u's top bit */
    for (unsigned i = 0; i < SLOT_BYTES; i++) {
        kb[i] = k[SLOT_BYTES - 1 - i];
        ub[i] = u[SLOT_BYTES - 1 - i];
    }
    kb[31] &= 0xf8;
    kb[0] = (uint8_t)((kb[0] & 0x7f) | 0x40);
    ub[0] &= 0x7f;
    se_status st = load_field(p25519, sizeof p25519);
    if (st == SE_OK)
        st = put(PK_SLOT_K, kb, sizeof kb);
    if (st == SE_OK)
        st = put(PK_SLOT_QX, ub, sizeof ub);
    if (st == SE_OK)
        st = run(PK_PROG_X25519);
    if (st == SE_OK)
        st = get(PK_SLOT_RX, kb, sizeof kb);
    uint8_t acc = 0;
    for (unsigned i = 0; st == SE_OK && i < SLOT_BYTES; i++) {
        out[i] = kb[SLOT_BYTES - 1 - i];
        acc |= out[i];
    }
    if (st == SE_OK && acc == 0) /* a small-order u: all-zero output, as the library reports it */
        st = SE_ERR_INFINITY;
    se_ct_wipe(kb, sizeof kb);
    return clear(st);
}

/* Runs one instruction (CMD INSN): op on slots d, a, b modulo p. */
static se_status insn(uint32_t op, uint32_t d, uint32_t a, uint32_t b)
{
    wr(SE_PK_INSN, PK_INSN(op, 0u, d, a, b));
    return to_status(command(SE_PK_CMD_OP_INSN, 0, 0));
}

/* Public values: an ordinary comparison. a < m for big-endian strings of len bytes. */
static int less(const uint8_t *a, const uint8_t *m, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (a[i] != m[i])
            return a[i] < m[i];
    return 0;
}

se_status se_drv_pk_mod(se_mod_op op, const uint8_t *m, size_t m_len, const uint8_t *a,
                        const uint8_t *b, uint8_t *r)
{
    settle();
    if (m_len == 0 || m_len > SLOT_BYTES || !less(a, m, m_len) || (op != SE_MOD_INV && !less(b, m, m_len)))
        return SE_ERR_BAD_INPUT;
    se_status st = load_field(m, m_len);
    if (st == SE_OK)
        st = put(PK_SLOT_T0, a, m_len);
    if (st == SE_OK && op != SE_MOD_INV)
        st = put(PK_SLOT_T1, b, m_len);
    if (st != SE_OK)
        return clear(st);
    switch (op) {
    case SE_MOD_MUL: /* (a b R^-1) R^2 R^-1 = a b */
        st = insn(PK_OP_MUL, PK_SLOT_T2, PK_SLOT_T0, PK_SLOT_T1);
        if (st == SE_OK)
            st = insn(PK_OP_MUL, PK_SLOT_RX, PK_SLOT_T2, PK_SLOT_RRP);
        break;
    case SE_MOD_ADD:
        st = insn(PK_OP_ADD, PK_SLOT_RX, PK_SLOT_T0, PK_SLOT_T1);
        break;
    case SE_MOD_SUB:
        st = insn(PK_OP_SUB, PK_SLOT_RX, PK_SLOT_T0, PK_SLOT_T1);
        break;
    default: /* Fermat, then the check a * r = 1 that a composite m or a = 0 fails */
        st = insn(PK_OP_MOV, PK_SLOT_K, PK_SLOT_T0, 0);
        if (st == SE_OK)
            st = run(PK_PROG_MODINV_P);
        if (st == SE_OK)
            st = insn(PK_OP_MUL, PK_SLOT_T2, PK_SLOT_K, PK_SLOT_RX); /* K: MODINV works in T0, T1 */
        if (st == SE_OK)
            st = insn(PK_OP_MUL, PK_SLOT_T2, PK_SLOT_T2, PK_SLOT_RRP); /* a r mod m */
        if (st == SE_OK) {
            uint8_t one[SLOT_BYTES];
            st = get(PK_SLOT_T2, one, m_len);
            for (size_t i = 0; st == SE_OK && i < m_len; i++)
                if (one[i] != (i + 1 == m_len))
                    st = SE_ERR_NOT_INVERTIBLE;
        }
        break;
    }
    if (st == SE_OK)
        st = get(PK_SLOT_RX, r, m_len);
    return clear(st);
}

/* ---- se_ec_ops on the pk IP (se/ec_hw.h) --------------------------------------------------- */
#define FB SE_BN_MAX_BYTES

/* A run-time curve's parameters as big-endian strings (a, b, G leave the Montgomery domain). The
 * last conversion is kept, keyed by the curve's own values (a curve object may be reused for
 * another curve at the same address): many operations on one curve convert it once (each
 * conversion is four Montgomery products in software). */
static struct {
    se_bn p, n, a, b, gx, gy;
    uint8_t v[6][FB];
    int valid;
} runtime;

static void convert(se_drv_ec_params *d, const se_ec_curve *c)
{
    const size_t pl = c->field_bytes, nl = c->n.bytes;
    se_bn t;
    if (!runtime.valid || memcmp(&runtime.p, &c->p.m, sizeof t) != 0 || memcmp(&runtime.n, &c->n.m, sizeof t) != 0 ||
        memcmp(&runtime.a, &c->a, sizeof t) != 0 || memcmp(&runtime.b, &c->b, sizeof t) != 0 ||
        memcmp(&runtime.gx, &c->gx, sizeof t) != 0 || memcmp(&runtime.gy, &c->gy, sizeof t) != 0) {
        const se_bn *mont[4] = {&c->a, &c->b, &c->gx, &c->gy};
        se_bn_to_bytes(runtime.v[0], pl, &c->p.m);
        se_bn_to_bytes(runtime.v[5], nl, &c->n.m);
        for (unsigned i = 0; i < 4; i++) {
            se_mod_from_mont(&c->p, &t, mont[i]);
            se_bn_to_bytes(runtime.v[1 + i], pl, &t);
        }
        runtime.p = c->p.m;
        runtime.n = c->n.m;
        runtime.a = c->a;
        runtime.b = c->b;
        runtime.gx = c->gx;
        runtime.gy = c->gy;
        runtime.valid = 1;
    }
    *d = (se_drv_ec_params){runtime.v[0], runtime.v[1], runtime.v[2], runtime.v[3], runtime.v[4], runtime.v[5], pl, nl};
}

/* A prime curve's ops on the engine, and how its parameters reach the driver: a built-in curve's
 * as they are (builtin below), a run-time curve's converted (convert above). Two tables, so
 * firmware that makes its curves with se_ec_curve_engine (built-in parameters) links no
 * conversion: only se_ec_use_engine takes the run-time table. ops comes first: a curve's c->ops
 * points at its table. */
typedef struct {
    se_ec_ops ops;
    void (*params)(se_drv_ec_params *d, const se_ec_curve *c);
} pk_table;

static void builtin(se_drv_ec_params *d, const se_ec_curve *c)
{
    const se_ec_params *q = c->params;
    *d = (se_drv_ec_params){q->p, q->a, q->b, q->gx, q->gy, q->n, q->p_len, q->n_len};
}

/* The driver's view of c, by its table. */
static const se_drv_ec_params *get_params(const se_ec_curve *c, se_drv_ec_params *d)
{
    ((const pk_table *)(const void *)c->ops)->params(d, c);
    return d;
}

static se_status pk_validate(const se_ec_curve *c, const uint8_t *pub, size_t len)
{
    const uint8_t *xy = se_ec_point_xy(c, pub, len);
    if (xy == NULL)
        return SE_ERR_INVALID_POINT;
    se_drv_ec_params dp;
    const se_drv_ec_params *cp = get_params(c, &dp);
    se_status st = se_drv_pk_validate(cp, xy, xy + c->field_bytes);
    if (st == SE_OK && c->h != 1) { /* cofactor: the point must be in the order-n subgroup */
        uint8_t x[FB], y[FB];
        st = se_drv_pk_mul(cp, cp->n, xy, xy + c->field_bytes, x, y);
        st = st == SE_ERR_INFINITY ? SE_OK : st == SE_OK ? SE_ERR_INVALID_POINT : st;
    }
    return st;
}

/* k * P (P = NULL: G) on the engine: the point into out now, or, for out = NULL, left running
 * in the background (pk_mul_start: se_ec_keygen_begin, se_ecdh_begin; the driver keeps one). */
static se_status pk_mul(const se_ec_curve *c, const se_bn *k, const uint8_t *pub, size_t len,
                        uint8_t *out)
{
    uint8_t kb[FB];
    const size_t fb = c->field_bytes;
    const uint8_t *xy = NULL, *y;
    if (pub != NULL && (xy = se_ec_point_xy(c, pub, len)) == NULL)
        return SE_ERR_INVALID_POINT;
    se_drv_ec_params dp;
    const se_drv_ec_params *cp = get_params(c, &dp);
    y = xy ? xy + fb : NULL;
    se_bn_to_bytes(kb, c->n.bytes, k);
    se_status st;
    if (out == NULL) {
        st = se_drv_pk_mul_start(cp, kb, xy, y);
    } else {
        out[0] = 0x04;
        st = se_drv_pk_mul(cp, kb, xy, y, out + 1, out + 1 + fb);
    }
    se_ct_wipe(kb, sizeof kb);
    return st;
}

static se_status pk_mul_start(const se_ec_curve *c, const se_bn *k, const uint8_t *pub, size_t len)
{
    return pk_mul(c, k, pub, len, NULL);
}

static se_status pk_mul_collect(const se_ec_curve *c, uint8_t *out)
{
    if (out == NULL) /* se_ec_cancel: discard (a pending signature too: one slot) */
        return se_drv_pk_collect(NULL, NULL);
    out[0] = 0x04;
    return se_drv_pk_collect(out + 1, out + 1 + c->field_bytes);
}

/* ECDSA on the engine: r || s into sig now, or, for sig = NULL, left running (pk_sign_start). */
static se_status pk_sign(const se_ec_curve *c, const se_bn *d, const se_bn *e, const se_bn *k,
                         uint8_t *sig)
{
    uint8_t db[FB], kb[FB], eb[FB];
    const size_t nl = c->n.bytes;
    se_drv_ec_params dp;
    const se_drv_ec_params *cp = get_params(c, &dp);
    se_bn_to_bytes(db, nl, d);
    se_bn_to_bytes(kb, nl, k);
    se_bn_to_bytes(eb, nl, e);
    se_status st = sig != NULL ? se_drv_pk_ecdsa_sign(cp, db, kb, eb, sig, sig + nl)
                               : se_drv_pk_ecdsa_sign_start(cp, db, kb, eb);
    se_ct_wipe(db, sizeof db);
    se_ct_wipe(kb, sizeof kb);
    return st;
}

static se_status pk_sign_start(const se_ec_curve *c, const se_bn *d, const se_bn *e, const se_bn *k)
{
    return pk_sign(c, d, e, k, NULL);
}

static se_status pk_sign_collect(const se_ec_curve *c, uint8_t *sig)
{
    return se_drv_pk_collect(sig, sig + c->n.bytes);
}

/* ECDSA_VERIFY validates Q itself (on the curve, coordinates below p): the key goes up once. */
static se_status pk_verify(const se_ec_curve *c, const uint8_t *pub, size_t len, const se_bn *e,
                           const se_bn *r, const se_bn *s)
{
    uint8_t eb[FB], rb[FB], sb[FB];
    const size_t nl = c->n.bytes;
    const uint8_t *xy = se_ec_point_xy(c, pub, len);
    if (xy == NULL)
        return SE_ERR_INVALID_POINT;
    se_drv_ec_params dp;
    const se_drv_ec_params *cp = get_params(c, &dp);
    se_bn_to_bytes(eb, nl, e);
    se_bn_to_bytes(rb, nl, r);
    se_bn_to_bytes(sb, nl, s);
    return se_drv_pk_ecdsa_verify(cp, xy, xy + c->field_bytes, eb, rb, sb);
}

/* A run-time curve may have a cofactor: then Q must also be in the order-n subgroup, which
 * validate checks first (the built-in prime curves have none). */
static se_status pk_verify_cofactor(const se_ec_curve *c, const uint8_t *pub, size_t len, const se_bn *e,
                                    const se_bn *r, const se_bn *s)
{
    se_status st = c->h != 1 ? pk_validate(c, pub, len) : SE_OK;
    return st == SE_OK ? pk_verify(c, pub, len, e, r, s) : st;
}

/* The key's comb table into the engine's cache (validated by the caller: se_ecdsa_remember_key). */
static se_status pk_remember(const se_ec_curve *c, const uint8_t *pub, size_t len)
{
    const uint8_t *xy = se_ec_point_xy(c, pub, len);
    if (xy == NULL)
        return SE_ERR_INVALID_POINT;
    se_drv_ec_params dp;
    return se_drv_pk_remember_key(get_params(c, &dp), xy, xy + c->field_bytes);
}

/* mul2_x is not needed: verify runs whole on the engine. RFC 6979's HMACs run on the SHA IP. */
#define PK_OPS(verify_fn)                                                                               \
    {                                                                                                   \
        .validate = pk_validate, .mul = pk_mul, .sign = pk_sign, .verify = verify_fn,                   \
        .mul_start = pk_mul_start, .mul_collect = pk_mul_collect, .sign_start = pk_sign_start,          \
        .sign_collect = pk_sign_collect, .remember = pk_remember, .sha = &se_drv_sha256_engine,         \
    }
static const pk_table pk_builtin = {PK_OPS(pk_verify), builtin};
static const pk_table pk_runtime = {PK_OPS(pk_verify_cofactor), convert};

se_status se_drv_pk_hold_curve(const se_ec_curve *c)
{
    if (c->ops != &pk_builtin.ops && c->ops != &pk_runtime.ops)
        return SE_ERR_NOT_SUPPORTED;
    se_drv_ec_params dp;
    return se_drv_pk_load_curve_g(get_params(c, &dp));
}

se_status se_ec_use_engine(se_ec_curve *c)
{
    if (c->name != NULL && strncmp(c->name, "sect233", 7) == 0) {
        c->ops = &se_ec_gf2m_ops;
        return SE_OK;
    }
    if (c->field_bytes > FB || c->n.bytes > FB) /* wider than the pk IP (an order above 2^256) */
        return SE_ERR_BAD_PARAMS;                /* the curve keeps its software ops */
    const se_ec_ops *software = c->ops;
    se_drv_ec_params dp;
    c->ops = c->params != NULL ? &pk_builtin.ops : &pk_runtime.ops;
    se_status st = se_drv_pk_load_curve_g(get_params(c, &dp)); /* the engine ready: G's table for keys, signatures, verification */
    if (st != SE_OK) /* a curve the engine refuses keeps its software ops */
        c->ops = software;
    return st;
}

se_status se_ec_curve_engine(se_ec_curve *c, const se_ec_params *q)
{
    memset(c, 0, sizeof *c);
    if (q == NULL)
        return SE_ERR_UNKNOWN_CURVE;
    if (se_mod_set(&c->p, q->p, q->p_len) != SE_OK || se_mod_set(&c->n, q->n, q->n_len) != SE_OK ||
        c->p.bytes != q->p_len || c->n.bytes != q->n_len) /* no leading zero bytes */
        return SE_ERR_BAD_PARAMS;
    c->field_bytes = q->p_len;
    c->h = 1;
    c->name = q->name;
    c->params = q;
    c->ops = &pk_builtin.ops;
    se_drv_ec_params dp;
    return se_drv_pk_load_curve_g(get_params(c, &dp));
}
