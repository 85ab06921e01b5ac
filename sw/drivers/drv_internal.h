/* Helpers shared by the engine drivers. */
#ifndef SE_DRV_INTERNAL_H
#define SE_DRV_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "se/ct.h"
#include "se/hal.h"
#include "se/status.h"

/* Status polls before a driver gives up with SE_ERR_BACKEND: far above any command's latency
 * (the longest, an AEAD FINAL, takes tens of cycles), so only a broken engine reaches it. */
#define SE_DRV_POLL_LIMIT 100000u

static inline uint32_t se_drv_load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The same four bytes as a little-endian CPU loads them (the SHA IP's CTRL.DIN_LE order). */
static inline uint32_t se_drv_load_le32(const uint8_t *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline void se_drv_store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* The public-key programs run for up to about a million cycles (ECDSA verification). */
#define SE_DRV_PK_POLL_LIMIT 10000000u

/* Polls the STATUS register at offset `status` until (STATUS & bit) == want, at most `limit`
 * times; SE_ERR_BACKEND if the engine never gets there. */
static inline se_status se_drv_wait_n(uint32_t status, uint32_t bit, uint32_t want, uint32_t limit)
{
    for (uint32_t i = 0; i < limit; i++)
        if ((se_hal_read32(status) & bit) == want)
            return SE_OK;
    return SE_ERR_BACKEND;
}

/* Waits for a long command (pk RUN, gf2m START, a DMA chain) to leave BUSY, sleeping between at
 * most `limit` polls. The caller cleared the IP's INTR_STATE and enabled the interrupts `intr` (its
 * DONE; the DMA's ERROR too) just before issuing the command, so each se_hal_sleep returns once the
 * command is over. On the way out they are acknowledged and disabled again: the short commands
 * that follow also signal DONE, and a line left high would wake every later sleep of the CPU at
 * once. */
static inline se_status se_drv_sleep_until_idle(uint32_t status, uint32_t busy, uint32_t intr_state,
                                                uint32_t intr_enable, uint32_t intr, uint32_t limit)
{
    se_status st = SE_ERR_BACKEND;
    for (uint32_t i = 0; i < limit; i++) {
        if ((se_hal_read32(status) & busy) == 0) {
            st = SE_OK;
            break;
        }
        se_hal_sleep();
    }
    se_hal_write32(intr_enable, 0u);
    se_hal_write32(intr_state, intr);
    return st;
}

/* The engine's DMA (dma_drv.c, rtl/dma/README.md). A descriptor is five words: CTRL (an op below,
 * for SHA with its flags), SRC, DST, LEN and NEXT, which se_drv_dma_run fills in. A driver takes
 * the bus addresses of its buffers with se_hal_dma_in/out, builds the chain on its stack, and
 * runs it; when a buffer is out of the DMA's reach (0), it moves the bytes itself. */
#define SE_DRV_DMA_WORDS 5
/* SE_DRV_DMA_ONLY (the smallest node, rv32imc): bulk data moves by DMA alone, without the
 * register path beside it, and what the DMA cannot reach answers SE_ERR_NOT_SUPPORTED. */
#ifdef SE_DRV_DMA_ONLY
#define SE_DRV_PIO 0
#else
#define SE_DRV_PIO 1
#endif
#define SE_DRV_DMA_AES_AAD 1u
#define SE_DRV_DMA_AES_DATA 2u
#define SE_DRV_DMA_AES_FINAL 3u
#define SE_DRV_DMA_SHA 4u
#define SE_DRV_DMA_SHA_INIT (1u << 8)
#define SE_DRV_DMA_SHA_FINAL (1u << 9)
#define SE_DRV_DMA_SHA_KEY (1u << 10)
#define SE_DRV_DMA_SHA_RESUME (1u << 11)
/* PK: an operand into the pk IP's slot [12:8] (LEN 1..32 bytes, big-endian), or with READ its low
 * LEN bytes out. */
#define SE_DRV_DMA_PK 7u
#define SE_DRV_DMA_PK_SLOT_SHIFT 8
#define SE_DRV_DMA_PK_READ (1u << 13)
/* GF2M: the gf2m IP's K, PX, PY (REG [9:8] 0..2) written, or with READ its RX, RY (REG 0, 1) read. */
#define SE_DRV_DMA_GF2M 8u
#define SE_DRV_DMA_GF2M_REG_SHIFT 8
#define SE_DRV_DMA_GF2M_READ (1u << 10)
/* SEAL and OPEN (a DTLS/TLS AEAD record) take four words more: SEQ_HI, SEQ_LO, TYPE | VERSION << 8
 * and the salt's four bytes; their CTRL holds the key slot and the record's kind. */
#define SE_DRV_DMA_RECORD_WORDS 9
#define SE_DRV_DMA_SEAL 5u
#define SE_DRV_DMA_OPEN 6u
#define SE_DRV_DMA_REC_SLOT_SHIFT 4
#define SE_DRV_DMA_REC_TLS (1u << 6)
#define SE_DRV_DMA_REC_CCM (1u << 7)
#define SE_DRV_DMA_REC_TAG8 (1u << 8)
/* SEAL_CBC and OPEN_CBC (a MAC-then-encrypt CBC-SHA256 record, DMA 0.3): the same nine words, the
 * salt unused; CTRL holds the key slot and TLS. */
#define SE_DRV_DMA_SEAL_CBC 9u
#define SE_DRV_DMA_OPEN_CBC 10u

/* Fills one descriptor: op over n bytes from src to dst (either NULL: none); 0 if the DMA cannot
 * reach one of them (the regions already taken go back with se_hal_dma_sync). */
int se_drv_dma_part(uint32_t d[SE_DRV_DMA_WORDS], uint32_t op, const void *src, void *dst, size_t n);

/* Runs the chain of n descriptors of `words` words each at d (linking them: their NEXT words),
 * sleeping until it ends: SE_OK, SE_ERR_BAD_TAG (the AES engine's tag check failed: nothing was
 * released), or SE_ERR_BACKEND (any other refusal, which the driver's own checks leave to a bus
 * error or a broken engine). se_drv_dma_run: a chain of five-word descriptors; se_drv_dma_record:
 * one SEAL or OPEN descriptor. */
se_status se_drv_dma_chain(uint32_t *d, size_t words, size_t n);
/* Ends any message the SHA engine is in with a plain INIT (sha_drv.c): after a chain that stopped
 * inside an HMAC, which would refuse the next KEY. */
void se_drv_sha_end_message(void);
__attribute__((always_inline)) static inline se_status se_drv_dma_run(uint32_t (*d)[SE_DRV_DMA_WORDS], size_t n)
{
    return se_drv_dma_chain(&d[0][0], SE_DRV_DMA_WORDS, n);
}
__attribute__((always_inline)) static inline se_status se_drv_dma_record(uint32_t d[SE_DRV_DMA_RECORD_WORDS])
{
    return se_drv_dma_chain(d, SE_DRV_DMA_RECORD_WORDS, 1);
}

static inline se_status se_drv_wait(uint32_t status, uint32_t bit, uint32_t want)
{
    return se_drv_wait_n(status, bit, want, SE_DRV_POLL_LIMIT);
}

/* A hot register run of fixed length written out in full: on the node's core a loop turn costs
 * as much again as the load and store it moves (the SHA driver's block and chaining value). */
#define UNROLLED _Pragma("GCC unroll 16")

/* Block bytes <-> a run of consecutive 32-bit registers (the first holds bytes 0..3, big-endian). */
static inline void se_drv_write_words(uint32_t reg, const uint8_t *b, uint32_t words)
{
    for (uint32_t i = 0; i < words; i++)
        se_hal_write32(reg + 4 * i, se_drv_load_be32(b + 4 * i));
}

static inline void se_drv_read_words(uint32_t reg, uint8_t *b, uint32_t words)
{
    for (uint32_t i = 0; i < words; i++)
        se_drv_store_be32(b + 4 * i, se_hal_read32(reg + 4 * i));
}

#endif
