/* SHA-256 (FIPS 180-4) and HMAC-SHA256 (FIPS 198-1), portable and allocation-free. */
#include <string.h>

#include "se/ct.h"
#include "se/sha256.h"

static const uint32_t k256[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u,
    0xab1c5ed5u, 0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu,
    0x9bdc06a7u, 0xc19bf174u, 0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu,
    0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau, 0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u,
    0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u, 0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu,
    0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u, 0xa2bfe8a1u, 0xa81a664bu,
    0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u, 0x19a4c116u,
    0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u,
    0xc67178f2u,
};

static const uint32_t h0[8] = {
    0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
    0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u,
};

static inline uint32_t ror(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32u - n));
}

static inline uint32_t load_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* n words to 4 n bytes, big-endian. */
static void store_words(uint8_t *p, const uint32_t *w, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        store_be32(p + 4 * i, w[i]);
}

void se_sha256_compress(uint32_t h[8], const uint8_t block[SE_SHA256_BLOCK_BYTES])
{
    /* A 16-word rolling schedule keeps the stack small on the node. */
    uint32_t w[16];
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];

    for (unsigned i = 0; i < 16; i++)
        w[i] = load_be32(block + 4 * i);
    for (unsigned i = 0; i < 64; i++) {
        if (i >= 16) {
            uint32_t w15 = w[(i - 15) & 15], w2 = w[(i - 2) & 15];
            uint32_t s0 = ror(w15, 7) ^ ror(w15, 18) ^ (w15 >> 3);
            uint32_t s1 = ror(w2, 17) ^ ror(w2, 19) ^ (w2 >> 10);
            w[i & 15] += s0 + w[(i - 7) & 15] + s1;
        }
        uint32_t t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + k256[i] +
                      w[i & 15];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
    se_ct_wipe(w, sizeof w);
}

/* One block on the context's engine, else in software (se/sha256.h). */
static void compress(const se_sha256_engine *eng, uint32_t h[8], const uint8_t *block)
{
    if (eng == NULL || eng->compress == NULL || eng->compress(h, block) != SE_OK)
#ifdef SE_SHA256_NO_SOFTWARE
        se_fatal(SE_ERR_BACKEND); /* no software to fall back on (se/sha256.h) */
#else
        se_sha256_compress(h, block);
#endif
}

/* n blocks: all at once where the engine takes several, else one at a time. */
static void compress_n(const se_sha256_engine *eng, uint32_t h[8], const uint8_t *data, size_t n)
{
    if (eng != NULL && eng->blocks != NULL && eng->blocks(h, data, n) == SE_OK)
        return;
    for (size_t i = 0; i < n; i++)
        compress(eng, h, data + i * SE_SHA256_BLOCK_BYTES);
}

void se_sha256_init_on(se_sha256_ctx *ctx, const se_sha256_engine *eng)
{
    memcpy(ctx->h, h0, sizeof h0);
    ctx->total_bytes = 0;
    ctx->buf_len = 0;
    ctx->eng = eng;
}

void se_sha256_init(se_sha256_ctx *ctx)
{
    se_sha256_init_on(ctx, NULL);
}

void se_sha256_update(se_sha256_ctx *ctx, const uint8_t *data, size_t len)
{
    if (len == 0) /* data may be NULL then */
        return;
    ctx->total_bytes += len;
    if (ctx->buf_len > 0) {
        size_t take = SE_SHA256_BLOCK_BYTES - ctx->buf_len;
        if (take > len)
            take = len;
        memcpy(ctx->buf + ctx->buf_len, data, take);
        ctx->buf_len += take;
        data += take;
        len -= take;
        if (ctx->buf_len < SE_SHA256_BLOCK_BYTES)
            return;
        compress_n(ctx->eng, ctx->h, ctx->buf, 1);
        ctx->buf_len = 0;
    }
    size_t n = len / SE_SHA256_BLOCK_BYTES;
    if (n != 0)
        compress_n(ctx->eng, ctx->h, data, n);
    data += n * SE_SHA256_BLOCK_BYTES;
    len -= n * SE_SHA256_BLOCK_BYTES;
    memcpy(ctx->buf, data, len);
    ctx->buf_len = len;
}

void se_sha256_final(se_sha256_ctx *ctx, uint8_t digest[SE_SHA256_DIGEST_BYTES])
{
    uint8_t pad[SE_SHA256_BLOCK_BYTES + 8] = {0x80};
    /* Pad with 0x80 and zeros so that 8 length bytes end a block. */
    size_t pad_len = (ctx->buf_len < 56 ? 56 : 120) - ctx->buf_len;

    /* The bit length as two big-endian words, by constant shifts (a variable 64-bit shift per byte
     * was a library call each on RV32). */
    const uint32_t bits[2] = {(uint32_t)(ctx->total_bytes >> 29), (uint32_t)ctx->total_bytes << 3};
    store_words(pad + pad_len, bits, 2);
    se_sha256_update(ctx, pad, pad_len + 8);
    store_words(digest, ctx->h, 8);
    se_ct_wipe(ctx, sizeof *ctx);
}

static void sha256_on(const se_sha256_engine *eng, const uint8_t *data, size_t len,
                      uint8_t digest[SE_SHA256_DIGEST_BYTES])
{
    se_sha256_ctx ctx;
    se_sha256_init_on(&ctx, eng);
    se_sha256_update(&ctx, data, len);
    se_sha256_final(&ctx, digest);
}

void se_sha256(const uint8_t *data, size_t len, uint8_t digest[SE_SHA256_DIGEST_BYTES])
{
    se_sha256_ctx ctx;
    se_sha256_init(&ctx);
    se_sha256_update(&ctx, data, len);
    se_sha256_final(&ctx, digest);
}

void se_hmac_sha256_init_on(se_hmac_sha256_ctx *ctx, const se_sha256_engine *eng, const uint8_t *key,
                            size_t key_len)
{
    /* Words, so the pads are XORed four bytes at a time (byte order does not matter to a XOR). */
    uint32_t kw[SE_SHA256_BLOCK_BYTES / 4] = {0};
    uint8_t *k = (uint8_t *)kw;

    if (key_len > SE_SHA256_BLOCK_BYTES)
        sha256_on(eng, key, key_len, k);
    else
        memcpy(k, key, key_len);
    for (unsigned i = 0; i < SE_SHA256_BLOCK_BYTES / 4; i++)
        kw[i] ^= 0x36363636u;
    se_sha256_init_on(&ctx->inner, eng);
    se_sha256_update(&ctx->inner, k, sizeof kw);
    for (unsigned i = 0; i < SE_SHA256_BLOCK_BYTES / 4; i++)
        kw[i] ^= 0x36363636u ^ 0x5c5c5c5cu;
    se_sha256_init_on(&ctx->outer, eng);
    se_sha256_update(&ctx->outer, k, sizeof kw);
    se_ct_wipe(kw, sizeof kw);
}

void se_hmac_sha256_init(se_hmac_sha256_ctx *ctx, const uint8_t *key, size_t key_len)
{
    se_hmac_sha256_init_on(ctx, NULL, key, key_len);
}

void se_hmac_sha256_update(se_hmac_sha256_ctx *ctx, const uint8_t *data, size_t len)
{
    se_sha256_update(&ctx->inner, data, len);
}

void se_hmac_sha256_final(se_hmac_sha256_ctx *ctx, uint8_t mac[SE_SHA256_DIGEST_BYTES])
{
    uint8_t inner[SE_SHA256_DIGEST_BYTES];

    se_sha256_final(&ctx->inner, inner);
    se_sha256_update(&ctx->outer, inner, sizeof inner);
    se_sha256_final(&ctx->outer, mac);
    se_ct_wipe(inner, sizeof inner);
}

void se_hmac_sha256_on(const se_sha256_engine *eng, const uint8_t *key, size_t key_len,
                       const uint8_t *data, size_t len, uint8_t mac[SE_SHA256_DIGEST_BYTES])
{
    se_hmac_sha256_ctx ctx;
    if (eng != NULL && eng->hmac != NULL) { /* into t: key or data may be mac itself, and a failed */
        uint8_t t[SE_SHA256_DIGEST_BYTES];  /* engine must not have touched them before the retry */
        se_status st = eng->hmac(key, key_len, data, len, t);
        if (st == SE_OK)
            memcpy(mac, t, sizeof t);
        se_ct_wipe(t, sizeof t);
        if (st == SE_OK)
            return;
    }
    se_hmac_sha256_init_on(&ctx, eng, key, key_len);
    se_hmac_sha256_update(&ctx, data, len);
    se_hmac_sha256_final(&ctx, mac);
}

void se_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                    uint8_t mac[SE_SHA256_DIGEST_BYTES])
{
    se_hmac_sha256_on(NULL, key, key_len, data, len, mac);
}

void se_hmac_sha256_cat(const se_sha256_engine *eng, const uint8_t *key, size_t key_len,
                        const uint8_t *const part[], const size_t part_len[], size_t n,
                        uint8_t mac[SE_SHA256_DIGEST_BYTES])
{
    uint8_t m[SE_HMAC_CAT_BYTES];
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += part_len[i];
    if (len <= sizeof m) {
        len = 0;
        for (size_t i = 0; i < n; i++) {
            if (part_len[i] > 0)
                memcpy(m + len, part[i], part_len[i]);
            len += part_len[i];
        }
        se_hmac_sha256_on(eng, key, key_len, m, len, mac);
        se_ct_wipe(m, sizeof m);
        return;
    }
    se_hmac_sha256_ctx ctx;
    se_hmac_sha256_init_on(&ctx, eng, key, key_len);
    for (size_t i = 0; i < n; i++)
        se_hmac_sha256_update(&ctx, part[i], part_len[i]);
    se_hmac_sha256_final(&ctx, mac);
    se_ct_wipe(&ctx, sizeof ctx);
}
