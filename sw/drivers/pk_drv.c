/* Prime-field public-key engine driver through the registers of rtl/pk (docs/regs/pk.md): values
 * go into the engine's operand slots, a microcode program runs, results come back from slots.
 * The slot map and program numbers are generated with the microcode (se/hw/pk_ucode.h). */
#include <string.h>

#include "drv_internal.h"
#include "se/drv.h"
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
                                                          base + SE_PK_INTR_ENABLE)
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
        bg.st = get(PK_SLOT_RX, bg.x, bg.len);
    if (bg.st == SE_OK && bg.len != 0)
        bg.st = get(PK_SLOT_RY, bg.y, bg.len);
    bg.st = clear(bg.st);
}

se_status se_drv_pk_probe(void)
{
    if (rd(SE_PK_NAME) != SE_PK_NAME_VALUE || (rd(SE_PK_VERSION) >> 24) != 1u)
        return SE_ERR_NOT_SUPPORTED;
    return se_hal_take_fault() ? SE_ERR_NOT_SUPPORTED : SE_OK;
}

se_status se_drv_pk_load_curve(const se_drv_ec_params *c)
{
    settle();
    /* The values in slot order: slot i takes src[i]. */
    _Static_assert(PK_SLOT_P == 0 && PK_SLOT_N == 1 && PK_SLOT_A == 2 && PK_SLOT_B == 3 &&
                       PK_SLOT_GX == 4 && PK_SLOT_GY == 5,
                   "the curve's slots are 0..5 in the order of src");
    const uint8_t *const src[6] = {c->p, c->n, c->a, c->b, c->gx, c->gy};
    se_status st = SE_OK;

    if (c->p_len == 0 || c->p_len > SLOT_BYTES || c->n_len == 0 || c->n_len > SLOT_BYTES)
        return SE_ERR_BAD_PARAMS;
    wr(SE_PK_ERR, 0xffffffffu);
    int same = loaded.p_len == c->p_len && loaded.n_len == c->n_len &&
               (rd(SE_PK_STATUS) & BIT(CURVE)) != 0;
    for (unsigned i = 0; i < 6 && same; i++)
        same = memcmp(loaded.v[i], src[i], i == PK_SLOT_N ? c->n_len : c->p_len) == 0;
    if (same)
        return SE_OK;
    loaded.p_len = 0;
    loaded.key_table = 0; /* a new curve empties the engine's cache */
    for (unsigned i = 0; i < 6 && st == SE_OK; i++) {
        size_t len = i == PK_SLOT_N ? c->n_len : c->p_len;
        memcpy(loaded.v[i], src[i], len); /* kept: valid once p_len is set below */
        st = put(i, src[i], len);
    }
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
    st = put(PK_SLOT_QX, c->gx, c->p_len);
    if (st == SE_OK)
        st = put(PK_SLOT_QY, c->gy, c->p_len);
    if (st == SE_OK)
        st = run(PK_PROG_PRECOMP);
    loaded.g_table = st == SE_OK;
    return st;
}

static se_status put_point(const se_drv_ec_params *c, const uint8_t *x, const uint8_t *y)
{
    se_status st = put(PK_SLOT_QX, x, c->p_len);
    return st == SE_OK ? put(PK_SLOT_QY, y, c->p_len) : st;
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
    if (st == SE_OK)
        st = put(PK_SLOT_K, k, c->n_len);
    if (st == SE_OK && x != NULL)
        st = put_point(c, x, y);
    return st;
}

se_status se_drv_pk_mul(const se_drv_ec_params *c, const uint8_t *k, const uint8_t *x,
                        const uint8_t *y, uint8_t *rx, uint8_t *ry)
{
    se_status st = mul_operands(c, k, x, y);
    if (st == SE_OK)
        st = run(x != NULL ? PK_PROG_ECSM : PK_PROG_ECSM_COMB);
    if (st == SE_OK)
        st = get(PK_SLOT_RX, rx, c->p_len);
    if (st == SE_OK)
        st = get(PK_SLOT_RY, ry, c->p_len);
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
    if (st == SE_OK)
        st = put(PK_SLOT_K, k, c->n_len);
    if (st == SE_OK)
        st = put(PK_SLOT_D, d, c->n_len);
    if (st == SE_OK)
        st = put(PK_SLOT_E, e, c->n_len);
    return st;
}

se_status se_drv_pk_ecdsa_sign(const se_drv_ec_params *c, const uint8_t *d, const uint8_t *k,
                               const uint8_t *e, uint8_t *r, uint8_t *s)
{
    se_status st = sign_operands(c, d, k, e);
    if (st == SE_OK)
        st = run(PK_PROG_ECDSA_SIGN);
    if (st == SE_OK)
        st = get(PK_SLOT_RX, r, c->n_len);
    if (st == SE_OK)
        st = get(PK_SLOT_RY, s, c->n_len);
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
    if (st == SE_OK)
        st = put_point(c, x, y);
    if (st == SE_OK)
        st = put(PK_SLOT_E, e, c->n_len);
    if (st == SE_OK)
        st = put(PK_SLOT_RX, r, c->n_len);
    if (st == SE_OK)
        st = put(PK_SLOT_RY, s, c->n_len);
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
