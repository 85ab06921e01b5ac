/* Merkle tree hashing (RFC 6962 section 2.1, SHA-256): the tree hash of n data blocks and the audit
 * path of one of them. A leaf's hash is SHA-256(0x00 || block), a node's SHA-256(0x01 || left ||
 * right), and a tree of n > 1 leaves splits at k, the largest power of two below n: its first k
 * leaves on the left. The blocks lie one after another, block_len bytes each (0 allowed). Hashing
 * runs on eng (se/sha256.h: a backend's `sha`, or NULL for software). Public data: not constant
 * time in n or m. */
#ifndef SE_MERKLE_H
#define SE_MERKLE_H

#include <stddef.h>
#include <stdint.h>

#include "se/sha256.h"
#include "se/status.h"

/* The most leaves a tree may have, and room for the longest audit path (31 nodes). */
#define SE_MERKLE_MAX_LEAVES ((size_t)1 << 31)
#define SE_MERKLE_MAX_PATH 32

/* MTH(D[n]): the root of the tree over the n blocks at data (n = 0: SHA-256 of the empty string).
 * SE_ERR_BAD_LENGTH when n > SE_MERKLE_MAX_LEAVES. */
se_status se_merkle_root(const se_sha256_engine *eng, const uint8_t *data, size_t block_len, size_t n,
                         uint8_t root[SE_SHA256_DIGEST_BYTES]);

/* PATH(m, D[n]): the audit path of leaf m, the sibling hashes from the leaf up, into path; *len
 * gets their count. SE_ERR_BAD_INPUT when m >= n, SE_ERR_BAD_LENGTH when n > SE_MERKLE_MAX_LEAVES. */
se_status se_merkle_path(const se_sha256_engine *eng, const uint8_t *data, size_t block_len, size_t n, size_t m,
                         uint8_t path[SE_MERKLE_MAX_PATH][SE_SHA256_DIGEST_BYTES], size_t *len);

#endif
