/* Record protection of the CBC-SHA256 suite: MAC-then-encrypt (RFC 5246 6.2.3.2) and
 * encrypt-then-MAC (RFC 7366), the code sensitive to padding oracles, in one place. A backend with
 * record commands for MAC-then-encrypt (se/backend.h's cbc_record_seal/open: the engine's DMA
 * SEAL_CBC and OPEN_CBC, which check in constant time in hardware) protects each such record in
 * one call; on the others, and where the engine cannot reach a buffer, the code below does.
 *
 * MAC-then-encrypt's check of a decrypted record runs in constant time: against the padding oracle and its timing variant (Lucky Thirteen, AlFardan and Paterson
 * 2013). The padding length decides how many bytes the HMAC covers, so a plain HMAC over them
 * would take a number of SHA-256 compressions that tells it. Here the compressions, the branches
 * and the memory addresses follow the record's length alone:
 *
 *  - the inner hash runs over every block the message could end in (the padding is at most 256
 *    bytes), each built with masks: message byte, the 0x80 after it, zeros, and the bit length in
 *    the block where the message really ends; the state after that block is kept, by mask;
 *  - the outer hash is of a fixed length;
 *  - the received MAC is read from the last 32 + 256 bytes into a buffer rotated by the MAC's
 *    (secret) offset modulo 32, then rotated back with a scan over every position.
 *
 * Software SHA-256 compression (se_sha256_compress) whatever the backend: the engine's HMAC
 * takes whole messages, whose length is the secret here. */
#include "se/ct.h"
#include "se/sha256.h"
#include "tls_internal.h"

#define MAC_LEN  32u
#define PAD_MAX  256u /* padding || padding_length */
#define HDR_LEN  13u  /* seq_num || type || version || length */
#define BLOCK    SE_SHA256_BLOCK_BYTES

/* x, which the compiler can no longer relate to anything: a public index stays computed from
 * public values (else p[i] under a mask of i - len may become (p + len)[i - len]). */
static inline uint32_t opaque32(uint32_t x)
{
    __asm__("" : "+r"(x));
    return x;
}

/* h = the SHA-256 state after the block key ^ x (the 32-byte key zero-padded to a block). */
static void key_block(uint32_t h[8], const uint8_t key[MAC_LEN], uint8_t x)
{
    se_sha256_ctx init;
    uint8_t b[BLOCK];

    se_sha256_init(&init);
    memcpy(h, init.h, sizeof init.h);
    for (unsigned i = 0; i < BLOCK; i++)
        b[i] = (uint8_t)((i < MAC_LEN ? key[i] : 0) ^ x);
    se_sha256_compress(h, b);
    se_ct_wipe(b, sizeof b);
}

/* Byte k of the MAC input hdr || length || p (k < 13 + clen); the length bytes are given. */
static uint8_t msg_byte(const uint8_t hdr[11], const uint8_t len[2], const uint8_t *p, size_t k)
{
    return k < 11 ? hdr[k] : k < HDR_LEN ? len[k - 11] : p[k - HDR_LEN];
}

void se_tls_cbc_hmac(const uint8_t key[MAC_LEN], const uint8_t hdr[11], const uint8_t *p, size_t clen,
                  uint32_t plen, uint8_t mac[MAC_LEN])
{
    /* The inner message after the key block is m = 13 + plen bytes; plen lies in [lo, hi]. */
    size_t hi = clen - MAC_LEN, lo = hi > PAD_MAX ? hi - PAD_MAX : 0;
    size_t first = (HDR_LEN + lo) / BLOCK;            /* blocks of message bytes whatever plen */
    size_t blocks = (HDR_LEN + hi + 8) / BLOCK + 1;   /* blocks the longest message pads to */
    uint32_t m = HDR_LEN + plen;
    uint32_t last = (m + 8) / BLOCK;                  /* the block the padded message ends */
    uint32_t bits = (BLOCK + m) * 8;                  /* key block included */
    uint8_t len[2] = {(uint8_t)(plen >> 8), (uint8_t)plen}, b[BLOCK];
    uint32_t h[8], inner[8] = {0};

    key_block(h, key, 0x36);
    for (size_t j = 0; j < first; j++) {
        if (j == 0) {
            for (size_t k = 0; k < BLOCK; k++)
                b[k] = msg_byte(hdr, len, p, k);
            se_sha256_compress(h, b);
        } else {
            se_sha256_compress(h, p + j * BLOCK - HDR_LEN);
        }
    }
    for (size_t j = first; j < blocks; j++) {
        uint32_t fin = se_ct_eq32((uint32_t)j, last);
        for (size_t i = 0; i < BLOCK; i++) {
            size_t k = j * BLOCK + i;
            uint32_t x = k < HDR_LEN + clen ? msg_byte(hdr, len, p, k) : 0;
            x = (x & se_ct_lt32((uint32_t)k, m)) | (0x80u & se_ct_eq32((uint32_t)k, m));
            if (i >= BLOCK - 4) /* the bit length's low word (the high one is 0) */
                x |= fin & (bits >> (8 * (BLOCK - 1 - i)));
            b[i] = (uint8_t)x;
        }
        se_sha256_compress(h, b);
        for (unsigned w = 0; w < 8; w++)
            inner[w] = se_ct_select32(fin, h[w], inner[w]);
    }

    /* Outer: key block, then the inner digest, 0x80, zeros and (64 + 32) * 8 bits. */
    memset(b, 0, sizeof b);
    for (unsigned w = 0; w < 8; w++)
        put_be(b + 4 * w, inner[w], 4);
    b[MAC_LEN] = 0x80;
    b[BLOCK - 2] = (uint8_t)(((BLOCK + MAC_LEN) * 8) >> 8);
    key_block(h, key, 0x5c);
    se_sha256_compress(h, b);
    for (unsigned w = 0; w < 8; w++)
        put_be(mac + 4 * w, h[w], 4);
    se_ct_wipe(b, sizeof b);
    se_ct_wipe(h, sizeof h);
    se_ct_wipe(inner, sizeof inner);
}

int se_tls_cbc_check(const uint8_t key[MAC_LEN], const uint8_t hdr[11], const uint8_t *p, size_t clen,
                  size_t *plen)
{
    uint32_t n = (uint32_t)clen, pad, good, len, scan, rot;
    uint8_t mac[MAC_LEN], got[MAC_LEN], rx[MAC_LEN] = {0};

    *plen = 0;
    if (clen < 16 + MAC_LEN || clen % 16 != 0 || clen > 0xFFFFu + MAC_LEN)
        return 0;
    /* Padding (RFC 5246 6.2.3.2): padding_length + 1 bytes, each equal to padding_length. A bad
     * one is taken as none, and the MAC computed all the same. */
    pad = p[n - 1];
    good = se_ct_lt32(pad + MAC_LEN, n); /* pad + 1 + 32 <= clen */
    for (uint32_t i = 1; i < PAD_MAX && i < n; i++) {
        uint32_t in_pad = se_ct_lt32(i, pad + 1u);
        good &= ~(in_pad & se_ct_mask_nz32(p[n - 1 - i] ^ pad));
    }
    len = n - MAC_LEN - se_ct_select32(good, pad + 1u, 0);
    se_tls_cbc_hmac(key, hdr, p, clen, len, mac);

    /* The received MAC at p + len: every byte of the last 32 + 256 goes to rx[(i - scan) % 32]
     * when it is one of the MAC's, so rx holds the MAC rotated left by (len - scan) % 32. */
    scan = n > MAC_LEN + PAD_MAX ? n - MAC_LEN - PAD_MAX : 0;
    for (uint32_t i = scan; i < n; i++) {
        uint32_t in_mac = ~se_ct_lt32(i, len) & se_ct_lt32(i, len + MAC_LEN);
        rx[(i - scan) % MAC_LEN] |= (uint8_t)(p[opaque32(i)] & in_mac);
    }
    rot = (len - scan) % MAC_LEN;
    for (uint32_t k = 0; k < MAC_LEN; k++) {
        uint32_t v = 0, at = (rot + k) % MAC_LEN;
        for (uint32_t j = 0; j < MAC_LEN; j++)
            v |= rx[j] & se_ct_eq32(j, at);
        got[k] = (uint8_t)v;
    }
    good &= (uint32_t)0 - (uint32_t)se_ct_equal(mac, got, MAC_LEN);
    se_ct_wipe(mac, sizeof mac);
    se_ct_wipe(got, sizeof got);
    se_ct_wipe(rx, sizeof rx);

    /* The verdict is public (the record is taken or refused), and so is an accepted record's
     * length; a refused record's is not (0 instead). No branch on either: the same time here. */
    len &= good;
    SE_CT_DECLASSIFY(&good, sizeof good);
    SE_CT_DECLASSIFY(&len, sizeof len);
    *plen = len;
    return (int)(good & 1u);
}

/* ---- the record classes ------------------------------------------------------------------ */
/* The key block: client MAC key, server MAC key, client AES key, server AES key. The AES keys: the
 * backend's keyed context where it has record commands (the engine's key slot), else the key as
 * it is, for aes_crypt. */
static se_status cbc_key(const se_backend *be, se_tls_rec *r, const uint8_t *key)
{
    return be->cbc_record_seal != NULL ? be->aead_key(&r->k.cbc.aes, SE_AEAD_CBC, key, 16)
                                       : se_aead_key_raw(&r->k.cbc.aes, SE_AEAD_CBC, key, 16);
}

static se_status cbc_init(const se_tls *t, se_tls_rec *client, se_tls_rec *server, const uint8_t *kb)
{
    se_status st;

    memcpy(client->k.cbc.mac, kb, MAC_LEN);
    memcpy(server->k.cbc.mac, kb + MAC_LEN, MAC_LEN);
    st = cbc_key(t->cfg->crypto, client, kb + 2 * MAC_LEN);
    return st == SE_OK ? cbc_key(t->cfg->crypto, server, kb + 2 * MAC_LEN + 16) : st;
}

/* The backend ends the keyed context (the engine wipes its key slot). */
static void cbc_end(const se_tls *t, se_tls_rec *r)
{
    if (t->cfg->crypto->cbc_record_seal != NULL)
        t->cfg->crypto->aead_wipe(&r->k.cbc.aes);
}

/* MAC over pseudo-header || plaintext: the header goes just before the plaintext, in the space
 * the IV takes afterwards. Then padding and CBC with a fresh IV. */
static se_status mte_seal(se_tls *t, const se_tls_rec *r, uint8_t type, uint64_t sn, const uint8_t *src,
                          uint8_t *rec, size_t len, size_t *n)
{
    const se_backend *be = t->cfg->crypto;
    uint8_t *body = rec + se_tls_hdr_len(t), *pt = body + 16;
    size_t pad = 15 - (len + MAC_LEN) % 16;
    se_status st;
    se_record x;

    memmove(pt, src, len); /* CBC pads and encrypts in place */
    *n = 16 + len + MAC_LEN + pad + 1;
    if (be->cbc_record_seal != NULL) { /* the engine: IV first, then one record command */
        tls_record_fields(t, type, sn, &x);
        st = se_hmac_drbg_generate(t->cfg->rng, body, 16, NULL, 0);
        if (st == SE_OK)
            st = be->cbc_record_seal(&r->k.cbc.aes, r->k.cbc.mac, &x, rec, len);
        if (st != SE_ERR_NOT_SUPPORTED)
            return st;
    }
    se_tls_pseudo_header(t, body + 3, sn, type, len);
    st = be->hmac_sha256(r->k.cbc.mac, MAC_LEN, body + 3, HDR_LEN + len, pt + len);
    if (st == SE_OK)
        st = se_hmac_drbg_generate(t->cfg->rng, body, 16, NULL, 0);
    if (st != SE_OK)
        return st;
    memset(pt + len + MAC_LEN, (int)pad, pad + 1);
    se_tls_put_header(t, rec, type, sn, *n); /* (after the MAC input that shared its place) */
    return be->aes_crypt(SE_AES_MODE_CBC, 0, r->k.cbc.aes.u.raw, 16, body, pt, *n - 16, pt);
}

/* Decrypts, then padding and MAC in constant time (se_tls_cbc_check): the MAC input's length comes
 * from the padding. */
static se_status mte_open(const se_tls *t, const se_tls_rec *r, uint8_t type, uint64_t sn, uint8_t *body,
                          size_t n, size_t *pt_len)
{
    const se_backend *be = t->cfg->crypto;
    uint8_t ph[HDR_LEN], *p = body + 16;
    size_t clen = n - 16;
    se_record x;
    se_status st;

    if (n < 16 + 48 || clen % 16 != 0)
        return SE_ERR_BAD_TAG;
    if (be->cbc_record_open != NULL) { /* the engine: one record command, constant time in hardware */
        tls_record_fields(t, type, sn, &x);
        st = be->cbc_record_open(&r->k.cbc.aes, r->k.cbc.mac, &x, body, n, pt_len);
        if (st != SE_ERR_NOT_SUPPORTED)
            return st == SE_OK ? SE_OK : SE_ERR_BAD_TAG;
    }
    if (be->aes_crypt(SE_AES_MODE_CBC, 1, r->k.cbc.aes.u.raw, 16, body, p, clen, p) != SE_OK)
        return SE_ERR_BAD_TAG;
    se_tls_pseudo_header(t, ph, sn, type, 0);
    return se_tls_cbc_check(r->k.cbc.mac, ph, p, clen, pt_len) ? SE_OK : SE_ERR_BAD_TAG;
}

/* Encrypt-then-MAC: IV || CBC(plaintext || padding) || HMAC(pseudo-header || IV || ciphertext),
 * the MAC over the length of IV and ciphertext. The MAC is checked before anything is decrypted,
 * so the padding's check tells a sender nothing it did not write itself. */
static void etm_mac(const se_tls *t, const uint8_t key[MAC_LEN], uint64_t sn, uint8_t type,
                    const uint8_t *body, size_t len, uint8_t mac[MAC_LEN])
{
    se_hmac_sha256_ctx h;
    uint8_t ph[HDR_LEN];

    se_tls_pseudo_header(t, ph, sn, type, len);
    se_hmac_sha256_init_on(&h, t->cfg->crypto->sha, key, MAC_LEN);
    se_hmac_sha256_update(&h, ph, HDR_LEN);
    se_hmac_sha256_update(&h, body, len);
    se_hmac_sha256_final(&h, mac);
    se_ct_wipe(&h, sizeof h);
}

static se_status etm_seal(se_tls *t, const se_tls_rec *r, uint8_t type, uint64_t sn, const uint8_t *src,
                          uint8_t *rec, size_t len, size_t *n)
{
    uint8_t *body = rec + se_tls_hdr_len(t), *pt = body + 16;
    size_t pad = 15 - len % 16, clen = len + pad + 1;
    se_status st = se_hmac_drbg_generate(t->cfg->rng, body, 16, NULL, 0);

    memmove(pt, src, len); /* CBC pads and encrypts in place */
    memset(pt + len, (int)pad, pad + 1);
    if (st == SE_OK)
        st = t->cfg->crypto->aes_crypt(SE_AES_MODE_CBC, 0, r->k.cbc.aes.u.raw, 16, body, pt, clen, pt);
    if (st != SE_OK)
        return st;
    etm_mac(t, r->k.cbc.mac, sn, type, body, 16 + clen, pt + clen);
    *n = 16 + clen + MAC_LEN;
    se_tls_put_header(t, rec, type, sn, *n);
    return SE_OK;
}

static se_status etm_open(const se_tls *t, const se_tls_rec *r, uint8_t type, uint64_t sn, uint8_t *body,
                          size_t n, size_t *pt_len)
{
    uint8_t mac[MAC_LEN], *p = body + 16;
    size_t clen = n - 16 - MAC_LEN, pad;

    if (n < 16 + 16 + MAC_LEN || clen % 16 != 0)
        return SE_ERR_BAD_TAG;
    etm_mac(t, r->k.cbc.mac, sn, type, body, 16 + clen, mac);
    if (!se_ct_equal(mac, body + 16 + clen, MAC_LEN))
        return SE_ERR_BAD_TAG;
    if (t->cfg->crypto->aes_crypt(SE_AES_MODE_CBC, 1, r->k.cbc.aes.u.raw, 16, body, p, clen, p) != SE_OK)
        return SE_ERR_BAD_TAG;
    pad = p[clen - 1];
    if (pad + 1 > clen)
        return SE_ERR_BAD_TAG;
    for (size_t i = 1; i <= pad; i++)
        if (p[clen - 1 - i] != pad)
            return SE_ERR_BAD_TAG;
    *pt_len = clen - pad - 1;
    return SE_OK;
}

/* Both grow a record by the IV, the MAC and up to a block of padding. */
const se_tls_rec_class se_tls_rec_cbc = {
    .mac_len = MAC_LEN, .explicit_len = 16, .overhead = 16 + MAC_LEN + 16,
    .init = cbc_init, .seal = mte_seal, .open = mte_open, .end = cbc_end,
};

const se_tls_rec_class se_tls_rec_cbc_etm = {
    .mac_len = MAC_LEN, .explicit_len = 16, .overhead = 16 + MAC_LEN + 16,
    .init = cbc_init, .seal = etm_seal, .open = etm_open, .end = cbc_end,
};
