/* Merkle tree hashing, RFC 6962 section 2.1 (se/merkle.h). Both calls follow the RFC's recursive
 * definitions over the leaf range [lo, hi): the recursion is as deep as the tree (<= 32 levels). */
#include <string.h>

#include "se/merkle.h"

/* k: the largest power of two below n (n >= 2). */
static size_t split(size_t n)
{
    size_t k = 1;
    while (2 * k < n)
        k *= 2;
    return k;
}

static void leaf_hash(const se_sha256_engine *eng, const uint8_t *block, size_t block_len,
                      uint8_t out[SE_SHA256_DIGEST_BYTES])
{
    static const uint8_t prefix = 0x00;
    se_sha256_ctx ctx;
    se_sha256_init_on(&ctx, eng);
    se_sha256_update(&ctx, &prefix, 1);
    se_sha256_update(&ctx, block, block_len);
    se_sha256_final(&ctx, out);
}

static void node_hash(const se_sha256_engine *eng, const uint8_t left[SE_SHA256_DIGEST_BYTES],
                      const uint8_t right[SE_SHA256_DIGEST_BYTES], uint8_t out[SE_SHA256_DIGEST_BYTES])
{
    static const uint8_t prefix = 0x01;
    se_sha256_ctx ctx;
    se_sha256_init_on(&ctx, eng);
    se_sha256_update(&ctx, &prefix, 1);
    se_sha256_update(&ctx, left, SE_SHA256_DIGEST_BYTES);
    se_sha256_update(&ctx, right, SE_SHA256_DIGEST_BYTES);
    se_sha256_final(&ctx, out);
}

/* MTH(D[lo:hi]), hi > lo. */
static void mth(const se_sha256_engine *eng, const uint8_t *data, size_t block_len, size_t lo, size_t hi,
                uint8_t out[SE_SHA256_DIGEST_BYTES])
{
    uint8_t left[SE_SHA256_DIGEST_BYTES], right[SE_SHA256_DIGEST_BYTES];

    if (hi - lo == 1) {
        leaf_hash(eng, data + lo * block_len, block_len, out);
        return;
    }
    size_t k = split(hi - lo);
    mth(eng, data, block_len, lo, lo + k, left);
    mth(eng, data, block_len, lo + k, hi, right);
    node_hash(eng, left, right, out);
}

se_status se_merkle_root(const se_sha256_engine *eng, const uint8_t *data, size_t block_len, size_t n,
                         uint8_t root[SE_SHA256_DIGEST_BYTES])
{
    if (n > SE_MERKLE_MAX_LEAVES)
        return SE_ERR_BAD_LENGTH;
    if (n == 0) {
        se_sha256_ctx ctx;
        se_sha256_init_on(&ctx, eng);
        se_sha256_final(&ctx, root);
    } else {
        mth(eng, data, block_len, 0, n, root);
    }
    return SE_OK;
}

se_status se_merkle_path(const se_sha256_engine *eng, const uint8_t *data, size_t block_len, size_t n, size_t m,
                         uint8_t path[SE_MERKLE_MAX_PATH][SE_SHA256_DIGEST_BYTES], size_t *len)
{
    size_t lo = 0, hi = n, depth = 0;

    *len = 0;
    if (n > SE_MERKLE_MAX_LEAVES)
        return SE_ERR_BAD_LENGTH;
    if (m >= n)
        return SE_ERR_BAD_INPUT;
    /* PATH(m, D[lo:hi]) = PATH(m, D[lo:lo+k]) : MTH(D[lo+k:hi]) for m < lo + k, else
     * PATH(m, D[lo+k:hi]) : MTH(D[lo:lo+k]). Walking down from the root finds the siblings from the
     * top; the path lists them from the leaf up, so they are stored from the end and moved down. */
    while (hi - lo > 1) {
        size_t k = split(hi - lo);
        uint8_t *sibling = path[SE_MERKLE_MAX_PATH - 1 - depth];
        if (m < lo + k) {
            mth(eng, data, block_len, lo + k, hi, sibling);
            hi = lo + k;
        } else {
            mth(eng, data, block_len, lo, lo + k, sibling);
            lo += k;
        }
        depth++;
    }
    memmove(path[0], path[SE_MERKLE_MAX_PATH - depth], depth * SE_SHA256_DIGEST_BYTES);
    *len = depth;
    return SE_OK;
}
