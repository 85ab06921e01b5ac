/* se_backend_hw: the engine drivers behind the entry points of se/backend.h; ECC through the
 * engine-backed curve operations (se/ec_hw.h). se_backend_hw_tls: the part the DTLS/TLS stack uses. */
#include "se/backend.h"
#include "se/drv.h"
#include "se/ec_hw.h"

/* The engine must answer its NAME/VERSION probes before it is used: the IPs the DTLS/TLS stack
 * uses (the DMA among them), then the gf2m IP and the protocol controller. */
static se_status hw_probe_tls(void)
{
    se_status st = se_drv_aes_probe();
    if (st == SE_OK)
        st = se_drv_sha_probe();
    if (st == SE_OK)
        st = se_drv_dma_probe();
    return st == SE_OK ? se_drv_pk_probe() : st;
}

static se_status hw_probe(void)
{
    se_status st = hw_probe_tls();
    if (st == SE_OK)
        st = se_drv_gf2m_probe();
    return st == SE_OK ? se_drv_ctrl_probe() : st;
}

static const se_ctrl_engine hw_ctrl = {se_drv_ctrl_write, se_drv_ctrl_read, se_drv_ctrl_run, se_drv_ctrl_sig_check,
                                       se_drv_ctrl_chain_check};

/* A record is one DMA command; where the DMA cannot reach a buffer, and the drivers may move data
 * through the registers, it is made of AEAD messages instead (hw_aead: those two alone, so firmware
 * with se_backend_hw_tls links nothing more). */
#ifndef SE_DRV_DMA_ONLY
static const se_backend hw_aead = {.name = "hw", .aead_seal = se_drv_aead_seal, .aead_open = se_drv_aead_open};
#endif

static se_status hw_record_seal(const se_aead_key *k, const se_record *r, const uint8_t *pt, size_t len, uint8_t *rec)
{
    se_status st = se_drv_record_seal(k, r, pt, len, rec);
#ifndef SE_DRV_DMA_ONLY
    if (st == SE_ERR_NOT_SUPPORTED)
        st = se_backend_record_seal(&hw_aead, k, r, pt, len, rec);
#endif
    return st;
}

static se_status hw_record_open(const se_aead_key *k, const se_record *r, uint8_t *body, size_t n)
{
    se_status st = se_drv_record_open(k, r, body, n);
#ifndef SE_DRV_DMA_ONLY
    if (st == SE_ERR_NOT_SUPPORTED)
        st = se_backend_record_open(&hw_aead, k, r, body, n);
#endif
    return st;
}

const se_backend se_backend_hw = {
    .name = "hw",
    .probe = hw_probe,
    .sha256 = se_drv_sha256,
    .sha = &se_drv_sha256_engine,
    .hmac_sha256 = se_drv_hmac_sha256,
    .aes_crypt = se_drv_aes_crypt,
    .cbc_mac = se_drv_aes_cbc_mac,
    .aead_key = se_drv_aead_key,
    .aead_wipe = se_drv_aead_wipe,
    .aead_seal = se_drv_aead_seal,
    .aead_open = se_drv_aead_open,
    .record_seal = hw_record_seal,
    .record_open = hw_record_open,
    .cbc_record_seal = se_drv_record_cbc_seal,
    .cbc_record_open = se_drv_record_cbc_open,
    .ec_curve = se_ec_use_engine,
    .x25519 = se_drv_pk_x25519,
    .mod = se_drv_pk_mod,
    .ctrl = &hw_ctrl,
};

const se_backend se_backend_hw_tls = {
    .name = "hw",
    .probe = hw_probe_tls,
    .sha256 = se_drv_sha256,
    .sha = &se_drv_sha256_engine,
    .hmac_sha256 = se_drv_hmac_sha256,
    .aead_key = se_drv_aead_key,
    .aead_wipe = se_drv_aead_wipe,
#ifndef SE_TLS_NO_CID /* (the node's protocol flags, NODE_TLS_FLAGS: tls12_cid records are AEAD messages) */
    .aead_seal = se_drv_aead_seal,
    .aead_open = se_drv_aead_open,
#endif
    .record_seal = hw_record_seal,
    .record_open = hw_record_open,
};
