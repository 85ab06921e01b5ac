/* AES engine driver: block modes, CBC-MAC, GCM and CCM through the registers of rtl/aes (docs/regs/aes.md). */
#include <string.h>

#include "drv_internal.h"
#include "se/drv.h"
#include "se/hw/aes_regs.h"
#include "se/hw/dma_regs.h"

#define BLK 16u

static uint32_t rd(uint32_t reg)
{
    return se_hal_read32(SE_HAL_AES_BASE + reg);
}

static void wr(uint32_t reg, uint32_t v)
{
    se_hal_write32(SE_HAL_AES_BASE + reg, v);
}

static uint32_t status_field(uint32_t st, uint32_t shift, uint32_t mask)
{
    return (st >> shift) & mask;
}

static se_status wait_status(uint32_t bit, uint32_t want)
{
    return se_drv_wait(SE_HAL_AES_BASE + SE_AES_STATUS, bit, want);
}

#define BIT(f) (SE_AES_STATUS_##f##_MASK << SE_AES_STATUS_##f##_SHIFT)

/* Writes a (possibly partial, zero-padded) block to DIN and issues `op` on it. */
static se_status command(uint32_t op, const uint8_t *blk, size_t n)
{
    se_status st;

    if (n == BLK) { /* a whole block straight from the caller's buffer */
        se_drv_write_words(SE_HAL_AES_BASE + SE_AES_DIN(0), blk, 4);
    } else {
        uint32_t b[BLK / 4] = {0};
        if (n > 0)
            memcpy(b, blk, n);
        se_drv_write_words(SE_HAL_AES_BASE + SE_AES_DIN(0), (const uint8_t *)b, 4);
        se_ct_wipe(b, sizeof b);
    }
    if ((st = wait_status(BIT(CMD_READY), BIT(CMD_READY))) != SE_OK)
        return st;
    wr(SE_AES_CMD, (op << SE_AES_CMD_OP_SHIFT) | ((uint32_t)(n & 15u) << SE_AES_CMD_BYTES_SHIFT));
    return SE_OK;
}

/* Reads one output block (waits for it) and keeps its first n bytes: a whole block straight into
 * out (any alignment), a part block through a buffer. Reading DOUT3 consumes the block. */
static se_status read_out(uint8_t *out, size_t n)
{
    uint32_t b[BLK / 4];
    se_status st = wait_status(BIT(OUT_VALID), BIT(OUT_VALID));

    if (st != SE_OK)
        return st;
    if (n == BLK) {
        se_drv_read_words(SE_HAL_AES_BASE + SE_AES_DOUT(0), out, 4);
    } else {
        se_drv_read_words(SE_HAL_AES_BASE + SE_AES_DOUT(0), (uint8_t *)b, 4);
        memcpy(out, b, n);
        se_ct_wipe(b, sizeof b);
    }
    return SE_OK;
}

/* Waits until the engine is idle; the result of the last command as a status. */
static se_status finish(void)
{
    se_status st = wait_status(BIT(BUSY), 0);
    uint32_t s = rd(SE_AES_STATUS);
    uint32_t res = status_field(s, SE_AES_STATUS_RESULT_SHIFT, SE_AES_STATUS_RESULT_MASK);

    if (st != SE_OK)
        return st;
    if (rd(SE_AES_ERR) != 0 || se_hal_take_fault())
        return SE_ERR_BACKEND;
    if (res == SE_AES_STATUS_RESULT_OK)
        return SE_OK;
    if (res == SE_AES_STATUS_RESULT_TAG_FAIL)
        return SE_ERR_BAD_TAG;
    if (res == SE_AES_STATUS_RESULT_BAD_LENGTH || res == SE_AES_STATUS_RESULT_BAD_KEYLEN)
        return SE_ERR_BAD_LENGTH;
    return SE_ERR_BACKEND;
}

/* Issues INIT on the configuration in the registers and waits for it. */
static se_status run_init(void)
{
    if (wait_status(BIT(CMD_READY), BIT(CMD_READY)) != SE_OK)
        return SE_ERR_BACKEND;
    wr(SE_AES_CMD, SE_AES_CMD_OP_INIT << SE_AES_CMD_OP_SHIFT);
    return finish();
}

/* KEY0..7 := the key_len bytes of key (big-endian words), zero beyond; all zero for key NULL. */
static void write_key(const uint8_t *key, size_t key_len)
{
    for (uint32_t i = 0; i < 8; i++)
        wr(SE_AES_KEY(i), key != NULL && 4 * i < key_len ? se_drv_load_be32(key + 4 * i) : 0);
}

/* Writes the key to KEY0..7; its CTRL.KEYLEN bits, or 0 with SE_ERR_BAD_LENGTH in *st. */
static uint32_t put_key(const uint8_t *key, size_t key_len, se_status *st)
{
    uint32_t keylen;

    *st = SE_OK;
    if (key_len == 16)
        keylen = SE_AES_CTRL_KEYLEN_K128;
    else if (key_len == 24)
        keylen = SE_AES_CTRL_KEYLEN_K192;
    else if (key_len == 32)
        keylen = SE_AES_CTRL_KEYLEN_K256;
    else {
        *st = SE_ERR_BAD_LENGTH;
        return 0;
    }
    write_key(key, key_len);
    return keylen << SE_AES_CTRL_KEYLEN_SHIFT;
}

/* IV and CTRL (mode, direction, tag length and `key`: the KEYLEN or USE_SLOT bits), then INIT. */
static se_status start(uint32_t mode, int decrypt, uint32_t key, const uint8_t iv[BLK], size_t tag_len)
{
    static const uint8_t zero[BLK] = {0};

    wr(SE_AES_ERR, 0xffffffffu);
    se_drv_write_words(SE_HAL_AES_BASE + SE_AES_IV(0), iv ? iv : zero, 4);
    wr(SE_AES_CTRL, (mode << SE_AES_CTRL_MODE_SHIFT) | ((uint32_t)(decrypt != 0) << SE_AES_CTRL_DEC_SHIFT) | key |
                        ((uint32_t)tag_len << SE_AES_CTRL_TAG_LEN_SHIFT));
    return run_init();
}

/* Loads key, IV and configuration and runs INIT. */
static se_status init(uint32_t mode, int decrypt, const uint8_t *key, size_t key_len,
                      const uint8_t iv[BLK], size_t tag_len)
{
    se_status st;
    uint32_t keylen = put_key(key, key_len, &st);

    return st == SE_OK ? start(mode, decrypt, keylen, iv, tag_len) : st;
}

/* Ends an operation: zero the key registers, then INIT the engine with that zero key, so the
 * caller's key schedule no longer sits in the engine and nothing more can be computed under it. */
static void wipe_key(void)
{
    write_key(NULL, 0);
    wr(SE_AES_CTRL, SE_AES_CTRL_MODE_ECB << SE_AES_CTRL_MODE_SHIFT);
    (void)run_init(); /* a failure here cannot change the caller's result */
}

/* ---- key slots ------------------------------------------------------------------------- */
/* A context's claim k->slot is (n << 2 | slot) for the n-th context set up: the slot holds the
 * context's key while owner[slot] says so. */
#define SLOTS 4u
static uint32_t owner[SLOTS], issued;

/* Copies the context's key (16, 24 or 32 bytes: se_aead_key_raw checked) into its slot (SLOT_CMD
 * LOAD), zeroes the key registers again, and records the claim. A load that did not happen shows
 * at the INIT that needs it: BAD_SLOT, SE_ERR_BACKEND. */
static void slot_load(const se_aead_key *k)
{
    const uint32_t s = k->slot & (SLOTS - 1u);

    write_key(k->u.raw, k->key_len);
    wr(SE_AES_CTRL, (uint32_t)(k->key_len - 16u) / 8u << SE_AES_CTRL_KEYLEN_SHIFT); /* K128, K192, K256 */
    wr(SE_AES_SLOT_CMD, SE_AES_SLOT_CMD_OP_LOAD << SE_AES_SLOT_CMD_OP_SHIFT | s << SE_AES_SLOT_CMD_IDX_SHIFT);
    write_key(NULL, 0);
    owner[s] = k->slot;
}

/* The context's key in its slot: loaded again if another context took it (a context of
 * se_aead_key_raw, claim 0, each time), unless the context has no key of its own to load: 0 for
 * se_drv_aead_slot's once the controller's key is gone, and for a wiped one. */
static int slot_ready(const se_aead_key *k)
{
    if (k->slot != 0 && owner[k->slot & (SLOTS - 1u)] == k->slot)
        return 1;
    if (k->key_len == 0)
        return 0;
    slot_load(k);
    return 1;
}

se_status se_drv_aead_slot(se_aead_key *k, se_aead_mode mode, unsigned slot)
{
    memset(k, 0, sizeof *k);
    if (slot >= SLOTS || (mode != SE_AEAD_GCM && mode != SE_AEAD_CCM))
        return SE_ERR_BAD_INPUT;
    k->mode = (uint8_t)mode;
    issued++;
    k->slot = issued << 2 | slot;
    owner[slot] = k->slot;
    return SE_OK;
}

se_status se_drv_aead_key(se_aead_key *k, se_aead_mode mode, const uint8_t *key, size_t key_len)
{
    se_status st = se_aead_key_raw(k, mode, key, key_len); /* checks key_len, keeps the key */

    if (st != SE_OK)
        return st;
    issued++;
    k->slot = issued << 2 | (issued & (SLOTS - 1u)); /* the slots in turn */
    slot_load(k);
    return SE_OK;
}

void se_drv_aead_wipe(se_aead_key *k)
{
    const uint32_t s = k->slot & (SLOTS - 1u);

    if (k->slot != 0 && owner[s] == k->slot) {
        wr(SE_AES_SLOT_CMD, SE_AES_SLOT_CMD_OP_WIPE << SE_AES_SLOT_CMD_OP_SHIFT | s << SE_AES_SLOT_CMD_IDX_SHIFT);
        owner[s] = 0;
        wipe_key(); /* the cipher's copy of the last key it ran */
    }
    se_aead_key_raw_wipe(k); /* se_drv_aead_key's se_aead_key_raw wrote nothing past u.raw */
}

/* DATA commands over in[0..len) with one block in flight: block i+1 is handed to the engine
 * before block i is read back, so the engine never waits for the bus. out may be NULL (no output
 * blocks: CBC-MAC, AEAD decryption). */
static se_status data_blocks(const uint8_t *in, size_t len, uint8_t *out)
{
    size_t pending = 0, pending_n = 0; /* offset and length of the block awaiting read-back */
    int have = 0;
    se_status st = SE_OK;

    for (size_t off = 0; off < len && st == SE_OK; off += BLK) {
        size_t n = len - off < BLK ? len - off : BLK;
        st = command(SE_AES_CMD_OP_DATA, in + off, n);
        if (st == SE_OK && out && have)
            st = read_out(out + pending, pending_n);
        pending = off;
        pending_n = n;
        have = 1;
    }
    if (st == SE_OK && out && have)
        st = read_out(out + pending, pending_n);
    return st;
}

/* The same by DMA, when it reaches the buffers, in one chain: AAD blocks from hdr[0..hl) (a header
 * the driver built) and aad[0..aad_len), DATA over in[0..len) (its output blocks to out, or NULL
 * where the engine gives none: CBC-MAC, CCM/GCM decryption), then, if `final`, FINAL with its first
 * fin_len bytes (the tag or MAC; a decryption's checked plaintext; none) to fin. The CPU sleeps
 * meanwhile. SE_ERR_NOT_SUPPORTED if the DMA cannot reach a buffer: the caller moves the blocks
 * through the registers (SE_DRV_PIO). */
static se_status dma_data(const uint8_t *hdr, size_t hl, const uint8_t *aad, size_t aad_len, const uint8_t *in,
                          size_t len, uint8_t *out, int final, uint8_t *fin, size_t fin_len)
{
    uint32_t d[4][SE_DRV_DMA_WORDS];
    size_t n = 0;
    int reach = 1;

    if (hl != 0)
        reach &= se_drv_dma_part(d[n++], SE_DRV_DMA_AES_AAD, hdr, NULL, hl);
    if (aad_len != 0)
        reach &= se_drv_dma_part(d[n++], SE_DRV_DMA_AES_AAD, aad, NULL, aad_len);
    if (len != 0)
        reach &= se_drv_dma_part(d[n++], SE_DRV_DMA_AES_DATA, in, out, len);
    if (final)
        reach &= se_drv_dma_part(d[n++], SE_DRV_DMA_AES_FINAL, NULL, fin, fin_len);
    if (!reach || n == 0) {
        se_hal_dma_sync(); /* gives back the places taken */
        return SE_ERR_NOT_SUPPORTED;
    }
    return se_drv_dma_run(d, n);
}

/* The first n bytes of TAG_OUT (the MAC or tag computed by FINAL). */
static void read_tag(uint8_t *tag, size_t n)
{
    uint8_t t[BLK];

    se_drv_read_words(SE_HAL_AES_BASE + SE_AES_TAG_OUT(0), t, 4);
    memcpy(tag, t, n);
}

se_status se_drv_aes_probe(void)
{
    if (rd(SE_AES_NAME) != SE_AES_NAME_VALUE || (rd(SE_AES_VERSION) >> 24) != 1u)
        return SE_ERR_NOT_SUPPORTED;
    return se_hal_take_fault() ? SE_ERR_NOT_SUPPORTED : SE_OK;
}

se_status se_drv_aes_crypt(se_aes_mode mode, int decrypt, const uint8_t *key, size_t key_len,
                           const uint8_t iv[16], const uint8_t *in, size_t len, uint8_t *out)
{
    /* The driver's modes are the engine's CTRL.MODE values. */
    _Static_assert(SE_AES_MODE_ECB == SE_AES_CTRL_MODE_ECB && SE_AES_MODE_CBC == SE_AES_CTRL_MODE_CBC &&
                       SE_AES_MODE_CTR == SE_AES_CTRL_MODE_CTR && SE_AES_MODE_OFB == SE_AES_CTRL_MODE_OFB,
                   "se_aes_mode is CTRL.MODE");
    se_status st;

    if ((mode == SE_AES_MODE_ECB || mode == SE_AES_MODE_CBC) && len % BLK != 0)
        return SE_ERR_BAD_LENGTH;
    if ((st = init((uint32_t)mode, decrypt, key, key_len, mode == SE_AES_MODE_ECB ? NULL : iv, 0)) == SE_OK &&
        (st = dma_data(NULL, 0, NULL, 0, in, len, out, 0, NULL, 0)) == SE_ERR_NOT_SUPPORTED && SE_DRV_PIO &&
        (st = data_blocks(in, len, out)) == SE_OK)
        st = finish();
    wipe_key();
    return st;
}

se_status se_drv_aes_cbc_mac(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                             uint8_t *mac, size_t mac_len)
{
    se_status st;

    if (len == 0 || len % BLK != 0 || mac_len < 4 || mac_len > BLK)
        return SE_ERR_BAD_LENGTH;
    if ((st = init(SE_AES_CTRL_MODE_CBC_MAC, 0, key, key_len, NULL, mac_len)) == SE_OK &&
        (st = dma_data(NULL, 0, NULL, 0, data, len, NULL, 1, mac, mac_len)) == SE_ERR_NOT_SUPPORTED && SE_DRV_PIO &&
        (st = data_blocks(data, len, NULL)) == SE_OK &&
        (st = command(SE_AES_CMD_OP_FINAL, NULL, 0)) == SE_OK && (st = finish()) == SE_OK)
        read_tag(mac, mac_len);
    wipe_key();
    return st;
}

/* ---- AEAD ------------------------------------------------------------------------------- */

/* AAD blocks straight from the caller's buffer (GCM: the last may be partial). */
static se_status aad_blocks(const uint8_t *aad, size_t len)
{
    se_status st = SE_OK;

    for (size_t off = 0; off < len && st == SE_OK; off += BLK)
        st = command(SE_AES_CMD_OP_AAD, aad + off, len - off < BLK ? len - off : BLK);
    return st;
}

/* CCM (SP 800-38C A.2): B0, then the AAD with its length prefix, zero-padded to whole blocks, as AAD
 * commands (the engine's CBC-MAC absorbs them; a partial last block is padded with zeros). Builds B0
 * and the first AAD block (the prefix and the first AAD bytes) into h; returns h's length, and in
 * *used how many AAD bytes it took: the rest follow from the caller's buffer. */
static size_t ccm_b0(uint8_t h[2 * BLK], const uint8_t *nonce, size_t nonce_len, const uint8_t *aad, size_t aad_len,
                     size_t len, size_t tag_len, size_t *used)
{
    size_t q = 15 - nonce_len, fill;

    memset(h, 0, 2 * BLK);
    h[0] = (uint8_t)((aad_len > 0 ? 0x40u : 0u) | (((tag_len - 2) / 2) << 3) | (q - 1));
    memcpy(h + 1, nonce, nonce_len);
    for (size_t i = 0; i < q && i < sizeof(size_t); i++)
        h[15 - i] = (uint8_t)(len >> (8 * i));
    *used = 0;
    if (aad_len == 0)
        return BLK;
    /* The length prefix: 2 bytes below 0xff00, else 0xfffe and 4 bytes; aead_check refuses AAD
     * of 2^32 bytes or more (the 10-byte form), which only a 64-bit host could pass. */
    if (aad_len < 0xff00u || !SE_DRV_PIO) { /* (SE_DRV_DMA_ONLY: aead_check refuses longer AAD) */
        h[BLK] = (uint8_t)(aad_len >> 8);
        h[BLK + 1] = (uint8_t)aad_len;
        fill = 2;
    } else {
        h[BLK] = 0xff;
        h[BLK + 1] = 0xfe;
        for (size_t i = 0; i < 4; i++)
            h[BLK + 2 + i] = (uint8_t)((uint32_t)aad_len >> (24 - 8 * i)); /* (below 2^32: aead_check) */
        fill = 6;
    }
    *used = aad_len < BLK - fill ? aad_len : BLK - fill;
    memcpy(h + BLK + fill, aad, *used);
    return BLK + fill + *used;
}

/* GCM: IV || 0^31 || 1 for 96-bit IVs; otherwise the engine hashes the IV (IV commands, then J0). */
static se_status gcm_iv(const uint8_t *iv, size_t iv_len)
{
    se_status st = SE_OK;

    if (iv_len == 12)
        return SE_OK;
    for (size_t off = 0; off < iv_len && st == SE_OK; off += BLK)
        st = command(SE_AES_CMD_OP_IV, iv + off, iv_len - off < BLK ? iv_len - off : BLK);
    if (st == SE_OK)
        st = command(SE_AES_CMD_OP_J0, NULL, 0);
    return st;
}

static se_status aead_check(se_aead_mode mode, size_t nonce_len, size_t aad_len, size_t len,
                            size_t tag_len)
{
    if (((aad_len >> 16) >> 16) != 0) /* 2^32 bytes or more; written so a 32-bit size_t builds clean */
        return SE_ERR_BAD_LENGTH;
    /* The DMA-only node (64 KiB of RAM) never holds AAD of 0xff00 bytes or more: CCM's 6-byte
     * length prefix is left out of that build. */
    if (!SE_DRV_PIO && mode == SE_AEAD_CCM && aad_len >= 0xff00u)
        return SE_ERR_NOT_SUPPORTED;
    if (mode == SE_AEAD_GCM)
        return nonce_len == 0 || tag_len < 4 || tag_len > BLK ? SE_ERR_BAD_LENGTH : SE_OK;
    if (nonce_len < 7 || nonce_len > 13 || tag_len < 4 || tag_len > BLK || tag_len % 2 != 0)
        return SE_ERR_BAD_LENGTH;
    size_t q = 15 - nonce_len;
    if (q < sizeof(size_t) && (len >> (8 * q)) != 0)
        return SE_ERR_BAD_LENGTH;
    return SE_OK;
}

/* INIT from the context's key slot (loaded again first if another context took it; a context of
 * se_aead_key_raw, slot 0, is loaded into slot 0 as claim 0) with the IV
 * (GCM: J0; CCM: A0), shared by both directions; the header h (ccm_b0) and the AAD follow, by DMA
 * with the data or, without it, by aead_header. */
static se_status aead_init(const se_aead_key *k, int decrypt, const uint8_t *nonce, size_t nonce_len,
                           size_t tag_len)
{
    const uint32_t s = k->slot & (SLOTS - 1u);
    const uint32_t use = SE_AES_CTRL_USE_SLOT_MASK << SE_AES_CTRL_USE_SLOT_SHIFT | s << SE_AES_CTRL_SLOT_SHIFT;
    uint8_t iv[BLK] = {0};
    se_status st;

    if (!slot_ready(k))
        return SE_ERR_BAD_INPUT;
    if (k->mode == SE_AEAD_GCM) {
        if (nonce_len == 12) {
            memcpy(iv, nonce, 12);
            iv[15] = 1;
        }
        if ((st = start(SE_AES_CTRL_MODE_GCM, decrypt, use, iv, tag_len)) == SE_OK)
            st = gcm_iv(nonce, nonce_len);
        return st;
    }
    /* CCM: INIT takes A0 (counter block 0: flags q - 1, the nonce, a zero counter) in IV. */
    iv[0] = (uint8_t)(14 - nonce_len);
    memcpy(iv + 1, nonce, nonce_len);
    return start(SE_AES_CTRL_MODE_CCM, decrypt, use, iv, tag_len);
}

/* The header through the registers: h[0..hl) (whole blocks but the last), then the AAD; STATUS.RESULT
 * keeps only the last result, so the header's is checked here. */
static se_status aead_header(const uint8_t *h, size_t hl, const uint8_t *aad, size_t aad_len)
{
    se_status st = aad_blocks(h, hl);

    if (st == SE_OK)
        st = aad_blocks(aad, aad_len);
    return st == SE_OK ? finish() : st;
}

se_status se_drv_aead_seal(const se_aead_key *k, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                           size_t aad_len, const uint8_t *pt, size_t len, uint8_t *ct, uint8_t *tag,
                           size_t tag_len)
{
    se_aead_mode mode = (se_aead_mode)k->mode;
    uint8_t h[2 * BLK];
    size_t hl = 0, used = 0;
    se_status st = aead_check(mode, nonce_len, aad_len, len, tag_len);

    if (st != SE_OK)
        return st;
    if (mode == SE_AEAD_CCM)
        hl = ccm_b0(h, nonce, nonce_len, aad, aad_len, len, tag_len, &used);
    const uint8_t *rest = used != 0 ? aad + used : aad; /* the AAD ccm_b0 left (all of GCM's) */
    if ((st = aead_init(k, 0, nonce, nonce_len, tag_len)) == SE_OK &&
        (st = dma_data(h, hl, rest, aad_len - used, pt, len, ct, 1, tag, tag_len)) == SE_ERR_NOT_SUPPORTED &&
        SE_DRV_PIO && (st = aead_header(h, hl, rest, aad_len - used)) == SE_OK &&
        (st = data_blocks(pt, len, ct)) == SE_OK &&
        (st = command(SE_AES_CMD_OP_FINAL, NULL, 0)) == SE_OK && (st = finish()) == SE_OK)
        read_tag(tag, tag_len);
    return st;
}

/* The longest message a CCM/GCM decryption may have: the engine's plaintext buffer. */
static size_t ptbuf_bytes(void)
{
    return (size_t)status_field(rd(SE_AES_CAPABILITIES), SE_AES_CAPABILITIES_PTBUF_BLOCKS_SHIFT,
                                SE_AES_CAPABILITIES_PTBUF_BLOCKS_MASK) * BLK;
}

se_status se_drv_aead_open(const se_aead_key *k, const uint8_t *nonce, size_t nonce_len, const uint8_t *aad,
                           size_t aad_len, const uint8_t *ct, size_t len, const uint8_t *tag, size_t tag_len,
                           uint8_t *pt)
{
    se_aead_mode mode = (se_aead_mode)k->mode;
    uint8_t t[BLK] = {0}, h[2 * BLK];
    size_t hl = 0, used = 0;
    se_status st = aead_check(mode, nonce_len, aad_len, len, tag_len);

    if (st != SE_OK)
        return st;
    if (len > ptbuf_bytes())
        return SE_ERR_BAD_LENGTH;
    memcpy(t, tag, tag_len);
    se_drv_write_words(SE_HAL_AES_BASE + SE_AES_TAG_IN(0), t, 4);
    if (mode == SE_AEAD_CCM)
        hl = ccm_b0(h, nonce, nonce_len, aad, aad_len, len, tag_len, &used);
    const uint8_t *rest = used != 0 ? aad + used : aad; /* the AAD ccm_b0 left (all of GCM's) */
    /* The engine keeps the plaintext until FINAL has checked the tag; only then is it readable. */
    if ((st = aead_init(k, 1, nonce, nonce_len, tag_len)) == SE_OK &&
        (st = dma_data(h, hl, rest, aad_len - used, ct, len, NULL, 1, pt, len)) == SE_ERR_NOT_SUPPORTED &&
        SE_DRV_PIO && (st = aead_header(h, hl, rest, aad_len - used)) == SE_OK &&
        (st = data_blocks(ct, len, NULL)) == SE_OK &&
        (st = command(SE_AES_CMD_OP_FINAL, NULL, 0)) == SE_OK && (st = finish()) == SE_OK)
        for (size_t off = 0; off < len && st == SE_OK; off += BLK)
            st = read_out(pt + off, len - off < BLK ? len - off : BLK);
    return st;
}

/* ---- records (DMA SEAL and OPEN) ------------------------------------------------------------ */

/* The descriptor's words but SRC, DST and LEN: the slot (loaded again if another context took it),
 * the record's kind, seq_num, type and version, salt. 0 if the record has a tag length the suites
 * do not use, or the context's key is gone from its slot (slot_ready). */
static uint32_t record_desc(uint32_t d[SE_DRV_DMA_RECORD_WORDS], uint32_t op, const se_aead_key *k, const se_record *r)
{
    const uint32_t s = k->slot & (SLOTS - 1u);

    if ((r->tag_len != 8 && r->tag_len != 16) || !slot_ready(k))
        return 0;
    d[0] = op | s << SE_DRV_DMA_REC_SLOT_SHIFT | (r->dtls ? 0u : SE_DRV_DMA_REC_TLS) |
           (k->mode == SE_AEAD_CCM ? SE_DRV_DMA_REC_CCM : 0u) | (r->tag_len == 8 ? SE_DRV_DMA_REC_TAG8 : 0u);
    d[5] = (uint32_t)(r->seq_num >> 32);
    d[6] = (uint32_t)r->seq_num;
    d[7] = r->type | (uint32_t)r->version << 8;
    memcpy(&d[8], r->salt, 4);
    return d[0];
}

/* Runs the record's descriptor if the DMA reaches its buffers. */
static se_status reach_and_run(uint32_t d[SE_DRV_DMA_RECORD_WORDS], int reach)
{
    if (!reach) {
        se_hal_dma_sync(); /* gives back the places taken */
        return SE_ERR_NOT_SUPPORTED;
    }
    return se_drv_dma_record(d);
}

se_status se_drv_record_seal(const se_aead_key *k, const se_record *r, const uint8_t *pt, size_t len, uint8_t *rec)
{
    uint32_t d[SE_DRV_DMA_RECORD_WORDS];

    if (len > SE_RECORD_MAX_PLAINTEXT || record_desc(d, SE_DRV_DMA_SEAL, k, r) == 0)
        return SE_ERR_BAD_LENGTH;
    d[1] = len != 0 ? se_hal_dma_in(pt, len) : 0u;
    d[2] = se_hal_dma_out(rec, (r->dtls ? 13u : 5u) + SE_RECORD_EXPLICIT + len + r->tag_len);
    d[3] = (uint32_t)len;
    return reach_and_run(d, d[2] != 0 && (len == 0 || d[1] != 0));
}

se_status se_drv_record_open(const se_aead_key *k, const se_record *r, uint8_t *body, size_t n)
{
    uint32_t d[SE_DRV_DMA_RECORD_WORDS];
    size_t len = n - SE_RECORD_EXPLICIT - r->tag_len; /* the plaintext's (checked below) */

    if (n < SE_RECORD_EXPLICIT + r->tag_len || len > SE_RECORD_MAX_PLAINTEXT || len > ptbuf_bytes() ||
        record_desc(d, SE_DRV_DMA_OPEN, k, r) == 0)
        return SE_ERR_BAD_LENGTH;
    d[1] = se_hal_dma_in(body, n);
    d[2] = len != 0 ? se_hal_dma_out(body + SE_RECORD_EXPLICIT, len) : 0u;
    d[3] = (uint32_t)n;
    return reach_and_run(d, d[1] != 0 && (len == 0 || d[2] != 0));
}

/* ---- MAC-then-encrypt CBC-SHA256 records (DMA SEAL_CBC and OPEN_CBC) ------------------------- */

#define CBC_KEY (SE_DRV_DMA_SHA | SE_DRV_DMA_SHA_KEY)

/* Runs d: the HMAC key into the SHA engine (d[0]), the record (d[1]: CTRL's op, SRC, DST and LEN
 * set), and an all-zero KEY after it (d[2]), as se_drv_hmac_sha256 leaves no key held. A chain
 * that stops at the record (its check failed, or anything worse) is followed by that KEY alone,
 * after a plain INIT of each engine: SHA's ends an HMAC the chain may have left running (which
 * would refuse the KEY), AES's drops any output block it held. */
static se_status cbc_chain(uint32_t d[3][SE_DRV_DMA_RECORD_WORDS], const se_aead_key *k, const se_record *r,
                           const uint8_t mac_key[32], int reach)
{
    const uint32_t s = k->slot & (SLOTS - 1u);
    se_status st;

    if (!(se_hal_read32(SE_HAL_DMA_BASE + SE_DMA_CAPABILITIES) >> SE_DMA_CAPABILITIES_RECORD_CBC_SHIFT & 1u) ||
        !reach || !se_drv_dma_part(d[0], CBC_KEY, mac_key, NULL, 32) || !se_drv_dma_part(d[2], CBC_KEY, NULL, NULL, 0)) {
        se_hal_dma_sync(); /* gives back the places taken */
        return SE_ERR_NOT_SUPPORTED;
    }
    if (!slot_ready(k)) {
        se_hal_dma_sync();
        return SE_ERR_BAD_INPUT;
    }
    d[1][0] |= s << SE_DRV_DMA_REC_SLOT_SHIFT | (r->dtls ? 0u : SE_DRV_DMA_REC_TLS);
    d[1][5] = (uint32_t)(r->seq_num >> 32);
    d[1][6] = (uint32_t)r->seq_num;
    d[1][7] = r->type | (uint32_t)r->version << 8;
    d[1][8] = 0;
    st = se_drv_dma_chain(&d[0][0], SE_DRV_DMA_RECORD_WORDS, 3);
    if (st != SE_OK) {
        se_drv_sha_end_message();
        wipe_key();
        if (se_drv_dma_part(d[2], CBC_KEY, NULL, NULL, 0))
            (void)se_drv_dma_chain(&d[2][0], SE_DRV_DMA_RECORD_WORDS, 1);
    }
    return st;
}

se_status se_drv_record_cbc_seal(const se_aead_key *k, const uint8_t mac_key[32], const se_record *r, uint8_t *rec,
                                 size_t len)
{
    uint32_t d[3][SE_DRV_DMA_RECORD_WORDS];
    const uint32_t hl = r->dtls ? 13u : 5u;

    if (len > SE_RECORD_MAX_PLAINTEXT)
        return SE_ERR_BAD_LENGTH;
    /* one region, the whole record: the IV and the plaintext are read where they lie */
    d[1][0] = SE_DRV_DMA_SEAL_CBC;
    d[1][2] = se_hal_dma_out(rec, hl + SE_RECORD_CBC_BODY(len));
    d[1][1] = d[1][2] + hl + 16u;
    d[1][3] = (uint32_t)len;
    return cbc_chain(d, k, r, mac_key, d[1][2] != 0);
}

se_status se_drv_record_cbc_open(const se_aead_key *k, const uint8_t mac_key[32], const se_record *r, uint8_t *body,
                                 size_t n, size_t *len)
{
    uint32_t d[3][SE_DRV_DMA_RECORD_WORDS];
    se_status st;

    *len = 0;
    if (n < 64u || n % 16u != 0 || n > SE_RECORD_MAX_PLAINTEXT + 2048u)
        return SE_ERR_BAD_LENGTH;
    d[1][0] = SE_DRV_DMA_OPEN_CBC; /* in place: the plaintext over the ciphertext */
    d[1][1] = se_hal_dma_out(body, n);
    d[1][2] = d[1][1] + 16u;
    d[1][3] = (uint32_t)n;
    st = cbc_chain(d, k, r, mac_key, d[1][1] != 0);
    if (st == SE_OK)
        *len = se_hal_read32(SE_HAL_DMA_BASE + SE_DMA_REC_LEN);
    return st;
}
