/* TLS 1.2 PRF (RFC 5246 5, P_SHA256) and the key schedule: extended master secret (RFC 7627),
 * key block, Finished verify_data. HMAC runs on the connection's backend. Also the bounds-checked
 * readers and writers of tls_internal.h (functions, not inlined: they are called everywhere). */
#include "se/ct.h"
#include "tls_internal.h"

uint32_t se_rd_u8(tls_rd *r)
{
    if (r->n < 1) {
        r->bad = 1;
        return 0;
    }
    r->n--;
    return *r->p++;
}

/* A big-endian number of `bytes` bytes (1..3). */
static uint32_t rd_uint(tls_rd *r, int bytes)
{
    uint32_t v = 0;
    while (bytes-- > 0)
        v = v << 8 | se_rd_u8(r);
    return v;
}

uint32_t se_rd_u16(tls_rd *r)
{
    return rd_uint(r, 2);
}

uint32_t se_rd_u24(tls_rd *r)
{
    return rd_uint(r, 3);
}

const uint8_t *se_rd_bytes(tls_rd *r, size_t k)
{
    const uint8_t *p = r->p;
    if (r->n < k) {
        r->bad = 1;
        r->n = 0;
        return p;
    }
    r->p += k;
    r->n -= k;
    return p;
}

tls_rd se_rd_vec(tls_rd *r, int len_bytes)
{
    tls_rd v = {r->p, 0, 0};
    size_t k = rd_uint(r, len_bytes);
    v.p = se_rd_bytes(r, k);
    v.n = r->bad ? 0 : k;
    v.bad = r->bad;
    return v;
}

void se_wr_bytes(tls_wr *w, const uint8_t *src, size_t k)
{
    if (w->cap - w->len < k) {
        w->bad = 1;
        return;
    }
    memcpy(w->p + w->len, src, k);
    w->len += k;
}

void se_wr_uint(tls_wr *w, uint32_t v, int bytes)
{
    uint8_t b[3];
    for (int i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    se_wr_bytes(w, b, (size_t)bytes);
}

/* P_SHA256(secret, label || seed): A(1) = HMAC(secret, label || seed), A(i+1) = HMAC(secret,
 * A(i)); the output is HMAC(secret, A(1) || label || seed) || HMAC(secret, A(2) || ...) ... */
se_status se_tls_prf(const se_backend *be, const uint8_t *secret, size_t secret_len, const char *label,
                  const uint8_t *seed, size_t seed_len, uint8_t *out, size_t out_len)
{
    uint8_t buf[32 + 32 + 64], blk[32];
    size_t llen = strlen(label), ls = llen + seed_len;
    se_status st;

    if (ls > sizeof buf - 32)
        return SE_ERR_BAD_INPUT;
    memcpy(buf + 32, label, llen);
    memcpy(buf + 32 + llen, seed, seed_len);
    st = be->hmac_sha256(secret, secret_len, buf + 32, ls, blk); /* A(1) */
    while (st == SE_OK && out_len > 0) {
        size_t k = out_len < 32 ? out_len : 32;
        memcpy(buf, blk, 32);
        st = be->hmac_sha256(secret, secret_len, buf, 32 + ls, blk);
        if (st != SE_OK)
            break;
        memcpy(out, blk, k);
        out += k;
        out_len -= k;
        st = be->hmac_sha256(secret, secret_len, buf, 32, blk); /* A(i+1) */
    }
    se_ct_wipe(blk, sizeof blk);
    return st;
}

void se_tls_transcript_hash(const se_tls *t, uint8_t out[32])
{
    se_sha256_ctx c = t->transcript;
    se_sha256_final(&c, out);
}

se_status se_tls_derive_keys(se_tls *t, const uint8_t pms[32])
{
    const se_backend *be = t->cfg->crypto;
    const se_tls_rec_class *cls = tls_rec_class(t);
    uint8_t seed[64], kb[2 * (32 + 16 + 4)];
    se_tls_rec *c = is_server(t) ? &t->rd : &t->wr; /* client_write */
    se_tls_rec *s = is_server(t) ? &t->wr : &t->rd; /* server_write */
    se_status st;

    st = se_tls_prf(be, pms, 32, "extended master secret", t->session_hash, 32, t->master, 48);
    if (st != SE_OK)
        return st;
#ifndef SE_TLS_NO_KEYLOG
    if (t->io->keylog != NULL)
        t->io->keylog(t->io->ctx, t->client_random, t->master);
#endif
    memcpy(seed, t->server_random, 32);
    memcpy(seed + 32, t->client_random, 32);
    /* The key block (RFC 5246 6.3) as long as the suite needs, into both record objects. */
    st = se_tls_prf(be, t->master, 48, "key expansion", seed, 64, kb, 2u * (cls->mac_len + 16u + cls->iv_len));
    c->cls = s->cls = cls;
    if (st == SE_OK)
        st = cls->init(t, c, s, kb);
    se_ct_wipe(kb, sizeof kb);
    return st;
}

se_status se_tls_finished(se_tls *t, int from_server, uint8_t out[12])
{
    uint8_t h[32];
    se_tls_transcript_hash(t, h);
    return se_tls_prf(t->cfg->crypto, t->master, 48, from_server ? "server finished" : "client finished",
                   h, 32, out, 12);
}
