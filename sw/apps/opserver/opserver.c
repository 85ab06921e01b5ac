/* The op server: runs the host CLI's operations inside the node (--backend soc). It reads request
 * frames from the UART (se/rpc.h), runs each on the backend this firmware was built with
 * (SE_FW_BACKEND: the crypto library, or the engine through its drivers) and answers with one
 * response frame. Each operation is a simulator phase named after the op, so the run report
 * shows where the cycles went. */
#include <stdint.h>
#include <string.h>

#include "node/node.h"
#include "se/backend.h"
#include "se/ct.h"
#include "se/ec.h"
#include "se/rpc.h"

static uint8_t req[SE_RPC_MAX_PAYLOAD];
static uint8_t resp[SE_RPC_MAX_PAYLOAD];

/* ---- request fields ---------------------------------------------------------------------- */
typedef struct {
    const uint8_t *p;
    size_t left;
    int bad; /* a field ran past the payload */
} reader;

static uint32_t get_u32(reader *r)
{
    if (r->left < 4) {
        r->bad = 1;
        return 0;
    }
    uint32_t v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 |
                 (uint32_t)r->p[3] << 24;
    r->p += 4;
    r->left -= 4;
    return v;
}

static const uint8_t *get_bytes(reader *r, size_t *len)
{
    uint32_t n = get_u32(r);
    if (r->bad || n > r->left) {
        r->bad = 1;
        *len = 0;
        return r->p;
    }
    const uint8_t *b = r->p;
    r->p += n;
    r->left -= n;
    *len = n;
    return b;
}

/* ---- response fields --------------------------------------------------------------------- */
static size_t out_len;

static uint8_t *put_bytes(size_t n) /* room for a byte string of n bytes, its length written */
{
    if (out_len + 4 + n > sizeof resp)
        return NULL;
    uint8_t *q = resp + out_len;
    q[0] = (uint8_t)n;
    q[1] = (uint8_t)(n >> 8);
    q[2] = (uint8_t)(n >> 16);
    q[3] = (uint8_t)(n >> 24);
    out_len += 4 + n;
    return q + 4;
}

/* ---- curves: the last one is kept, so a batch on one curve builds it once ------------------ */
static se_ec_curve curve;
static uint8_t curve_key[6 * 36 + 8];
static size_t curve_key_len;
static int curve_ok;

static se_status get_curve(reader *r)
{
    const uint8_t *start = r->p;
    uint32_t kind = get_u32(r);
    se_status st = SE_ERR_BAD_INPUT;
    const uint8_t *f[6];
    size_t len[6];
    uint32_t id = 0, h = 0;

    if (kind == SE_RPC_CURVE_BUILTIN)
        id = get_u32(r);
    else if (kind == SE_RPC_CURVE_PARAMS) {
        h = get_u32(r);
        for (int i = 0; i < 6; i++)
            f[i] = get_bytes(r, &len[i]);
    } else
        r->bad = 1;
    if (r->bad)
        return SE_ERR_BAD_INPUT;
    size_t key_len = (size_t)(r->p - start);
    if (curve_ok && key_len == curve_key_len && memcmp(start, curve_key, key_len) == 0)
        return SE_OK;
    curve_ok = 0;
    if (kind == SE_RPC_CURVE_BUILTIN)
        st = se_ec_curve_builtin(&curve, (se_curve_id)id);
    else
        st = se_ec_curve_init(&curve, f[0], len[0], f[1], len[1], f[2], len[2], f[3], len[3], f[4],
                              len[4], f[5], len[5], h);
    if (st == SE_OK)
        st = SE_FW_BACKEND->ec_curve(&curve);
    if (st == SE_OK && key_len <= sizeof curve_key) {
        memcpy(curve_key, start, key_len);
        curve_key_len = key_len;
        curve_ok = 1;
    }
    return st;
}

/* A scalar field (order_bytes) as a number below 2^(8 * order_bytes). */
static se_status get_scalar(reader *r, se_bn *k)
{
    size_t n;
    const uint8_t *b = get_bytes(r, &n);
    if (r->bad || n != SE_EC_ORDER_BYTES(&curve))
        return SE_ERR_BAD_INPUT;
    return se_bn_from_bytes(k, b, n);
}

/* ECDSA's values arrive decoded by the host: d, k, r, s must lie in [1, n-1] and e below n, as
 * se_ecdsa_sign_values / se_ecdsa_verify_values assume. */
static int in_range(const se_bn *v, int zero_ok)
{
    return (zero_ok || !se_bn_is_zero(v)) && se_bn_lt(v, &curve.n.m);
}

/* ---- the operations ---------------------------------------------------------------------- */
static se_status run(uint32_t op, reader *r)
{
    const se_backend *be = SE_FW_BACKEND;
    const uint8_t *a, *b, *c, *d, *e;
    size_t al, bl, cl, dl, el;
    uint32_t x, y;
    uint8_t *o, *o2;
    se_status st;

    switch (op) {
    case SE_RPC_PING: {
        size_t n = strlen(be->name);
        if ((o = put_bytes(n)) == NULL)
            return SE_ERR_BAD_LENGTH;
        memcpy(o, be->name, n);
        return be->probe ? be->probe() : SE_OK;
    }
    case SE_RPC_SHA256:
        a = get_bytes(r, &al);
        if (r->bad || (o = put_bytes(32)) == NULL)
            return SE_ERR_BAD_INPUT;
        return be->sha256(a, al, o);
    case SE_RPC_HMAC_SHA256:
        a = get_bytes(r, &al);
        b = get_bytes(r, &bl);
        if (r->bad || (o = put_bytes(32)) == NULL)
            return SE_ERR_BAD_INPUT;
        return be->hmac_sha256(a, al, b, bl, o);
    case SE_RPC_AES:
        x = get_u32(r);
        y = get_u32(r);
        a = get_bytes(r, &al);
        b = get_bytes(r, &bl);
        c = get_bytes(r, &cl);
        if (r->bad || x > SE_AES_MODE_OFB || (bl != 16 && !(x == SE_AES_MODE_ECB && bl == 0)) || (o = put_bytes(cl)) == NULL)
            return SE_ERR_BAD_INPUT;
        return be->aes_crypt((se_aes_mode)x, y != 0, a, al, bl ? b : NULL, c, cl, o);
    case SE_RPC_CBC_MAC:
        a = get_bytes(r, &al);
        b = get_bytes(r, &bl);
        x = get_u32(r);
        if (r->bad || x > 17 || (o = put_bytes(x)) == NULL)
            return SE_ERR_BAD_INPUT;
        return be->cbc_mac(a, al, b, bl, o, x);
    case SE_RPC_AEAD_ENCRYPT:
        x = get_u32(r);
        a = get_bytes(r, &al);
        b = get_bytes(r, &bl);
        c = get_bytes(r, &cl);
        d = get_bytes(r, &dl);
        y = get_u32(r);
        if (r->bad || x > SE_AEAD_CCM || y > 16 || (o = put_bytes(dl)) == NULL ||
            (o2 = put_bytes(y)) == NULL)
            return SE_ERR_BAD_INPUT;
        return se_backend_aead_encrypt(be, (se_aead_mode)x, a, al, b, bl, c, cl, d, dl, o, o2, y);
    case SE_RPC_AEAD_DECRYPT:
        x = get_u32(r);
        a = get_bytes(r, &al);
        b = get_bytes(r, &bl);
        c = get_bytes(r, &cl);
        d = get_bytes(r, &dl);
        e = get_bytes(r, &el);
        if (r->bad || x > SE_AEAD_CCM || (o = put_bytes(dl)) == NULL)
            return SE_ERR_BAD_INPUT;
        return se_backend_aead_decrypt(be, (se_aead_mode)x, a, al, b, bl, c, cl, d, dl, e, el, o);
    case SE_RPC_EC_VALIDATE:
        if ((st = get_curve(r)) != SE_OK)
            return st;
        a = get_bytes(r, &al);
        return r->bad ? SE_ERR_BAD_INPUT : curve.ops->validate(&curve, a, al);
    case SE_RPC_EC_MUL: {
        se_bn k;
        if ((st = get_curve(r)) != SE_OK || (st = get_scalar(r, &k)) != SE_OK)
            return st;
        a = get_bytes(r, &al);
        if (r->bad || (o = put_bytes(1 + 2 * SE_EC_FIELD_BYTES(&curve))) == NULL)
            st = SE_ERR_BAD_INPUT;
        else
            st = curve.ops->mul(&curve, &k, al ? a : NULL, al, o);
        se_ct_wipe(&k, sizeof k);
        return st;
    }
    case SE_RPC_ECDSA_SIGN: {
        se_bn dd, ee, kk;
        if ((st = get_curve(r)) == SE_OK && (st = get_scalar(r, &dd)) == SE_OK &&
            (st = get_scalar(r, &ee)) == SE_OK && (st = get_scalar(r, &kk)) == SE_OK) {
            if (!in_range(&dd, 0) || !in_range(&kk, 0) || !in_range(&ee, 1))
                st = SE_ERR_INVALID_SCALAR;
            else if ((o = put_bytes(2 * SE_EC_ORDER_BYTES(&curve))) == NULL)
                st = SE_ERR_BAD_INPUT;
            else
                st = se_ecdsa_sign_values(&curve, &dd, &ee, &kk, o);
        }
        se_ct_wipe(&dd, sizeof dd);
        se_ct_wipe(&kk, sizeof kk);
        return st;
    }
    case SE_RPC_ECDSA_VERIFY: {
        se_bn ee, rr, ss;
        if ((st = get_curve(r)) != SE_OK)
            return st;
        a = get_bytes(r, &al);
        if ((st = get_scalar(r, &ee)) != SE_OK || (st = get_scalar(r, &rr)) != SE_OK ||
            (st = get_scalar(r, &ss)) != SE_OK)
            return st;
        if (!in_range(&ee, 1))
            return SE_ERR_BAD_INPUT;
        if (!in_range(&rr, 0) || !in_range(&ss, 0))
            return SE_ERR_BAD_SIGNATURE;
        return se_ecdsa_verify_values(&curve, a, al, &ee, &rr, &ss);
    }
    case SE_RPC_X25519:
        a = get_bytes(r, &al);
        b = get_bytes(r, &bl);
        if (r->bad || al != 32 || bl != 32 || (o = put_bytes(32)) == NULL)
            return SE_ERR_BAD_INPUT;
        return be->x25519(o, a, b);
    case SE_RPC_MOD:
        x = get_u32(r);
        a = get_bytes(r, &al);
        b = get_bytes(r, &bl);
        c = get_bytes(r, &cl);
        if (r->bad || x > SE_MOD_INV || al == 0 || bl != al || cl != al ||
            (o = put_bytes(al)) == NULL)
            return SE_ERR_BAD_INPUT;
        return be->mod((se_mod_op)x, a, al, b, c, o);
    case SE_RPC_SHA256_BLOCK: {
        uint32_t h[8];
        for (unsigned i = 0; i < 8; i++)
            h[i] = get_u32(r);
        a = get_bytes(r, &al);
        if (r->bad || al != SE_SHA256_BLOCK_BYTES || (o = put_bytes(32)) == NULL)
            return SE_ERR_BAD_INPUT;
        if (be->sha != NULL && be->sha->compress != NULL) {
            if ((st = be->sha->compress(h, a)) != SE_OK)
                return st;
        } else {
#ifdef SE_SHA256_NO_SOFTWARE
            return SE_ERR_NOT_SUPPORTED;
#else
            se_sha256_compress(h, a);
#endif
        }
        for (unsigned i = 0; i < 32; i++)
            o[i] = (uint8_t)(h[i / 4] >> (8 * (i % 4)));
        return SE_OK;
    }
    default:
        return SE_ERR_UNKNOWN_OP;
    }
}

/* Phase names for the simulator's report: string literals in ROM (node_marker). */
static const char *const phase[] = {
    [SE_RPC_PING] = "ping",           [SE_RPC_SHA256] = "sha256",
    [SE_RPC_HMAC_SHA256] = "hmac",    [SE_RPC_AES] = "aes",
    [SE_RPC_CBC_MAC] = "cbc_mac",     [SE_RPC_AEAD_ENCRYPT] = "aead_encrypt",
    [SE_RPC_AEAD_DECRYPT] = "aead_decrypt", [SE_RPC_EC_VALIDATE] = "ec_validate",
    [SE_RPC_EC_MUL] = "ec_mul",       [SE_RPC_ECDSA_SIGN] = "ecdsa_sign", [SE_RPC_ECDSA_VERIFY] = "ecdsa_verify",
    [SE_RPC_X25519] = "x25519",       [SE_RPC_MOD] = "mod",
};

static uint32_t get_le32(void)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)(uint8_t)uart_getc() << (8 * i);
    return v;
}

static void send_frame(se_status st, size_t len)
{
    uint8_t h[SE_RPC_HEADER] = {SE_RPC_MAGIC0, SE_RPC_MAGIC1, (uint8_t)st, 0,
                                (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16),
                                (uint8_t)(len >> 24)};
    uart_write(h, sizeof h);
    uart_write(resp, len);
}

int main(void)
{
    node_init();
    for (;;) {
        /* Resynchronise on the magic: the host never sends anything else. */
        if ((uint8_t)uart_getc() != SE_RPC_MAGIC0)
            continue;
        if ((uint8_t)uart_getc() != SE_RPC_MAGIC1)
            continue;
        uint32_t op = (uint8_t)uart_getc();
        (void)uart_getc();
        uint32_t len = get_le32();
        if (len > sizeof req) { /* drain it, then refuse */
            for (uint32_t i = 0; i < len; i++)
                (void)uart_getc();
            send_frame(SE_ERR_BAD_LENGTH, 0);
            continue;
        }
        for (uint32_t i = 0; i < len; i++)
            req[i] = (uint8_t)uart_getc();
        reader r = {req, len, 0};
        out_len = 0;
        if (op < sizeof phase / sizeof phase[0] && phase[op] != NULL)
            node_marker(phase[op]);
        se_status st = run(op, &r);
        node_marker(0);
        if (st == SE_OK && r.left != 0)
            st = SE_ERR_BAD_INPUT; /* trailing fields */
        send_frame(st, st == SE_OK ? out_len : 0);
        se_ct_wipe(req, len);
        se_ct_wipe(resp, out_len);
    }
}
