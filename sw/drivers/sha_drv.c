/* SHA-256 / HMAC-SHA256 engine driver through the registers of rtl/sha (docs/regs/sha.md). */
#include <string.h>

#include "drv_internal.h"
#include "se/drv.h"
#include "se/hw/sha_regs.h"

#define BLK 64u

static uint32_t rd(uint32_t reg)
{
    return se_hal_read32(SE_HAL_SHA_BASE + reg);
}

static void wr(uint32_t reg, uint32_t v)
{
    se_hal_write32(SE_HAL_SHA_BASE + reg, v);
}

#define BIT(f) (SE_SHA_STATUS_##f##_MASK << SE_SHA_STATUS_##f##_SHIFT)

/* On a little-endian CPU the driver sets CTRL.DIN_LE and moves a block into DIN a word per load
 * and store; otherwise it assembles each big-endian word from four bytes. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define DIN_LE (SE_SHA_CTRL_DIN_LE_MASK << SE_SHA_CTRL_DIN_LE_SHIFT)
#else
#define DIN_LE 0u
#endif

#if DIN_LE
/* A word-aligned block (se_ct_word: a may_alias view of the caller's bytes). Its own function:
 * unrolled beside the unaligned path, GCC hoists the first word load above the alignment test,
 * and the node's core traps on a misaligned load. */
__attribute__((noinline)) static void write_aligned(const uint8_t *blk)
{
    UNROLLED
    for (uint32_t i = 0; i < BLK / 4; i++)
        se_hal_write32(SE_HAL_SHA_BASE + SE_SHA_DIN(i), ((const se_ct_word *)blk)[i]);
}

/* The first n words of a part block from a word-aligned buffer (own function: as above). */
__attribute__((noinline)) static uint32_t write_aligned_words(const uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        se_hal_write32(SE_HAL_SHA_BASE + SE_SHA_DIN(i), ((const se_ct_word *)p)[i]);
    return n;
}
#endif

/* A 64-byte block into DIN0..15. */
static void write_block(const uint8_t *blk)
{
#if DIN_LE
    if (((uintptr_t)blk & 3u) == 0) {
        write_aligned(blk);
        return;
    }
    for (uint32_t i = 0; i < BLK / 4; i++) /* unaligned: each word from its four bytes */
        se_hal_write32(SE_HAL_SHA_BASE + SE_SHA_DIN(i), se_drv_load_le32(blk + 4 * i));
#else
    se_drv_write_words(SE_HAL_SHA_BASE + SE_SHA_DIN(0), blk, BLK / 4);
#endif
}

static se_status wait_status(uint32_t bit, uint32_t want)
{
    return se_drv_wait(SE_HAL_SHA_BASE + SE_SHA_STATUS, bit, want);
}

/* n < 64 bytes into DIN, zero-padded to a block, straight from the caller's bytes: the whole
 * words (loaded as words where the buffer is aligned), the last part word put together in a
 * register, then zero words (no copy in memory is left to wipe; n is public). */
static void write_part(const uint8_t *p, size_t n)
{
    uint32_t i = 0;
#if DIN_LE
    if (((uintptr_t)p & 3u) == 0)
        i = write_aligned_words(p, (uint32_t)(n / 4));
#endif
    for (; 4 * i + 4 <= n; i++)
        wr(SE_SHA_DIN(i), DIN_LE ? se_drv_load_le32(p + 4 * i) : se_drv_load_be32(p + 4 * i));
    if (4 * i < n) {
        uint32_t w = 0;
        for (uint32_t j = 0; 4 * i + j < n; j++)
            w |= (uint32_t)p[4 * i + j] << (DIN_LE ? 8 * j : 24 - 8 * j);
        wr(SE_SHA_DIN(i++), w);
    }
    for (; i < BLK / 4; i++)
        wr(SE_SHA_DIN(i), 0);
}

/* Writes n (< 64 for FINAL, else 64) bytes zero-padded to DIN and issues op. */
static se_status command(uint32_t op, const uint8_t *blk, size_t n)
{
    se_status st;

    if (n == BLK)
        write_block(blk);
    else
        write_part(blk, n);
    if ((st = wait_status(BIT(CMD_READY), BIT(CMD_READY))) != SE_OK)
        return st;
    wr(SE_SHA_CMD, (op << SE_SHA_CMD_OP_SHIFT) | ((uint32_t)(n % BLK) << SE_SHA_CMD_BYTES_SHIFT));
    return SE_OK;
}

static se_status finish(void)
{
    se_status st = wait_status(BIT(BUSY), 0);
    uint32_t res = (rd(SE_SHA_STATUS) >> SE_SHA_STATUS_RESULT_SHIFT) & SE_SHA_STATUS_RESULT_MASK;

    if (st != SE_OK)
        return st;
    if (rd(SE_SHA_ERR) != 0 || se_hal_take_fault() || res != SE_SHA_STATUS_RESULT_OK)
        return SE_ERR_BACKEND;
    return SE_OK;
}

#define DMA_MSG (SE_DRV_DMA_SHA | SE_DRV_DMA_SHA_INIT | SE_DRV_DMA_SHA_FINAL)
#define DMA_KEY (SE_DRV_DMA_SHA | SE_DRV_DMA_SHA_KEY)

/* A descriptor for one whole message (INIT, blocks, FINAL, the digest to out); 0 if the DMA cannot
 * reach msg or out. */
static int dma_message(uint32_t d[SE_DRV_DMA_WORDS], const uint8_t *msg, size_t len, uint8_t out[32])
{
    return se_drv_dma_part(d, DMA_MSG, len != 0 ? msg : NULL, NULL, len) && (d[2] = se_hal_dma_out(out, 32)) != 0;
}

/* One message through the registers (the DMA cannot reach msg or out). Apart from message(), so the
 * DMA's path, the common one, saves no registers for it. */
__attribute__((noinline)) static se_status message_pio(const uint8_t *msg, size_t len, uint8_t out[32])
{
    size_t off = 0;
    se_status st;

    se_hal_dma_sync(); /* gives back the places taken */
    if (!SE_DRV_PIO)
        return SE_ERR_NOT_SUPPORTED;
    wr(SE_SHA_ERR, 0xffffffffu); /* (finish() reads it: a command dropped) */
    if ((st = wait_status(BIT(CMD_READY), BIT(CMD_READY))) != SE_OK)
        return st;
    wr(SE_SHA_CMD, SE_SHA_CMD_OP_INIT << SE_SHA_CMD_OP_SHIFT);
    for (; st == SE_OK && len - off >= BLK; off += BLK)
        st = command(SE_SHA_CMD_OP_BLOCK, msg + off, BLK);
    if (st == SE_OK)
        st = command(SE_SHA_CMD_OP_FINAL, msg + off, len - off);
    if (st == SE_OK && (st = finish()) == SE_OK)
        se_drv_read_words(SE_HAL_SHA_BASE + SE_SHA_DIGEST(0), out, 8);
    return st;
}

/* One message: INIT, whole blocks, FINAL with the rest (the engine pads), then the digest; by DMA
 * (the CPU asleep) where it reaches msg and out, else through the registers. */
static se_status message(int hmac, const uint8_t *msg, size_t len, uint8_t out[32])
{
    uint32_t d[1][SE_DRV_DMA_WORDS];

    wr(SE_SHA_CTRL, (uint32_t)(hmac != 0) << SE_SHA_CTRL_HMAC_SHIFT | DIN_LE);
    if (dma_message(d[0], msg, len, out))
        return se_drv_dma_run(d, 1);
    return message_pio(msg, len, out);
}

void se_drv_sha_end_message(void)
{
    wr(SE_SHA_CTRL, DIN_LE);
    if (wait_status(BIT(CMD_READY), BIT(CMD_READY)) == SE_OK)
        wr(SE_SHA_CMD, SE_SHA_CMD_OP_INIT << SE_SHA_CMD_OP_SHIFT);
    (void)wait_status(BIT(BUSY), 0);
}

se_status se_drv_sha_probe(void)
{
    const uint32_t need = SE_SHA_CAPABILITIES_RESUME_MASK << SE_SHA_CAPABILITIES_RESUME_SHIFT |
                          (DIN_LE ? SE_SHA_CAPABILITIES_DIN_LE_MASK << SE_SHA_CAPABILITIES_DIN_LE_SHIFT : 0u);
    if (rd(SE_SHA_NAME) != SE_SHA_NAME_VALUE || (rd(SE_SHA_VERSION) >> 24) != 1u ||
        (rd(SE_SHA_CAPABILITIES) & need) != need) /* RESUME (1.1), DIN_LE (1.2) where used */
        return SE_ERR_NOT_SUPPORTED;
    return se_hal_take_fault() ? SE_ERR_NOT_SUPPORTED : SE_OK;
}

se_status se_drv_sha256(const uint8_t *msg, size_t len, uint8_t digest[32])
{
    return message(0, msg, len, digest);
}

se_status se_drv_sha256_compress(uint32_t h[8], const uint8_t block[64])
{
    se_status st;

    wr(SE_SHA_ERR, 0xffffffffu);
    wr(SE_SHA_CTRL, DIN_LE);
    UNROLLED /* the chaining value, then a block count of 0 (unused) */
    for (uint32_t i = 0; i < 8; i++)
        wr(SE_SHA_DIN(i), h[i]);
    wr(SE_SHA_DIN(8), 0);
    wr(SE_SHA_DIN(9), 0);
    if ((st = wait_status(BIT(CMD_READY), BIT(CMD_READY))) != SE_OK)
        return st;
    wr(SE_SHA_CMD, SE_SHA_CMD_OP_RESUME << SE_SHA_CMD_OP_SHIFT);
    write_block(block); /* latched when taken */
    if ((st = wait_status(BIT(CMD_READY), BIT(CMD_READY))) != SE_OK)
        return st;
    wr(SE_SHA_CMD, SE_SHA_CMD_OP_BLOCK << SE_SHA_CMD_OP_SHIFT);
    if ((st = finish()) != SE_OK)
        return st;
    if (!(rd(SE_SHA_STATUS) & BIT(STATE_VALID)))
        return SE_ERR_BACKEND;
    UNROLLED
    for (uint32_t i = 0; i < 8; i++)
        h[i] = rd(SE_SHA_DIGEST(i));
    return SE_OK;
}

se_status se_drv_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *msg, size_t len,
                             uint8_t mac[32])
{
    uint32_t d[3][SE_DRV_DMA_WORDS];
    uint8_t k[32];
    se_status st = SE_OK;

    wr(SE_SHA_ERR, 0xffffffffu);
    if (key_len > BLK) { /* RFC 2104: a long key is replaced by its hash */
        if ((st = message(0, key, key_len, k)) != SE_OK)
            return st;
        key = k;
        key_len = sizeof k;
    }
    /* By DMA, one chain: KEY, the message as an HMAC, and an all-zero KEY after it, so no later
     * MAC can be made under the caller's key. */
    wr(SE_SHA_CTRL, SE_SHA_CTRL_HMAC_MASK << SE_SHA_CTRL_HMAC_SHIFT | DIN_LE);
    if (se_drv_dma_part(d[0], DMA_KEY, key_len != 0 ? key : NULL, NULL, key_len) && dma_message(d[1], msg, len, mac) &&
        se_drv_dma_part(d[2], DMA_KEY, NULL, NULL, 0)) {
        if ((st = se_drv_dma_run(d, 3)) != SE_OK && se_drv_dma_part(d[0], DMA_KEY, NULL, NULL, 0))
            (void)se_drv_dma_run(d, 1); /* the chain stopped early: the zero key all the same */
    } else {
        se_hal_dma_sync();
        st = SE_ERR_NOT_SUPPORTED;
        if (SE_DRV_PIO) {
            wr(SE_SHA_CTRL, DIN_LE); /* for KEY; message() sets HMAC */
            if ((st = command(SE_SHA_CMD_OP_KEY, key, key_len)) == SE_OK && (st = finish()) == SE_OK)
                st = message(1, msg, len, mac);
            if (command(SE_SHA_CMD_OP_KEY, NULL, 0) != SE_OK || finish() != SE_OK)
                st = SE_ERR_BACKEND;
        }
    }
    se_ct_wipe(k, sizeof k);
    return st;
}

se_status se_drv_sha256_blocks(uint32_t h[8], const uint8_t *data, size_t n)
{
    uint32_t d[1][SE_DRV_DMA_WORDS], state[8];
    se_status st;

    if (n == 0)
        return SE_OK;
    memcpy(state, h, sizeof state); /* (h changes only when all went well) */
    d[0][0] = SE_DRV_DMA_SHA | SE_DRV_DMA_SHA_RESUME;
    d[0][1] = se_hal_dma_in(data, n * 64u);
    d[0][2] = se_hal_dma_out(state, sizeof state);
    d[0][3] = (uint32_t)(n * 64u);
    if (d[0][1] == 0 || d[0][2] == 0) {
        se_hal_dma_sync(); /* gives back the places taken */
        st = SE_OK;
        for (size_t i = 0; i < n && st == SE_OK; i++)
            st = se_drv_sha256_compress(state, data + 64u * i);
    } else {
        st = se_drv_dma_run(d, 1);
    }
    if (st == SE_OK)
        memcpy(h, state, sizeof state);
    return st;
}

const se_sha256_engine se_drv_sha256_engine = {se_drv_sha256_compress, se_drv_hmac_sha256, se_drv_sha256_blocks};
