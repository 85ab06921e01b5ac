/* ctgrind harness: AES-128/192/256 blocks, modes, GCM and CCM must not branch or index on
 * the key, IV/nonce or data (all marked secret). */
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "se/aes.h"

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

static void show(const char *what, size_t key_len, uint8_t *buf, size_t len)
{
    PUBLIC(buf, len);
    printf("%-10s aes-%zu: ", what, 8 * key_len);
    for (size_t i = 0; i < len; i++)
        printf("%02x", buf[i]);
    printf("\n");
}

int main(void)
{
    uint8_t key[32], iv[16], nonce[13], gcm_iv[20], aad[21], pt[37], ct[48], tag[16], blk[16];
    uint8_t pt_pub[sizeof pt];
    se_aes_ctx ctx;
    se_aes_gcm_ctx gctx;

    for (unsigned i = 0; i < sizeof key; i++)
        key[i] = (uint8_t)(i * 7u + 1u);
    for (unsigned i = 0; i < sizeof pt; i++)
        pt[i] = (uint8_t)(i * 13u + 5u);
    memcpy(pt_pub, pt, sizeof pt);
    memset(iv, 0xA5, sizeof iv);
    memset(nonce, 0x3C, sizeof nonce);
    memset(gcm_iv, 0x5A, sizeof gcm_iv);
    memset(aad, 0x77, sizeof aad);

    for (size_t key_len = 16; key_len <= 32; key_len += 8) {
        SECRET(key, sizeof key);
        SECRET(pt, sizeof pt);
        SECRET(iv, sizeof iv);
        SECRET(nonce, sizeof nonce);
        SECRET(gcm_iv, sizeof gcm_iv);
        SECRET(aad, sizeof aad);
        if (se_aes_init(&ctx, key, key_len) != SE_OK)
            return 1;

        se_aes_encrypt_block(&ctx, pt, blk);
        se_aes_decrypt_block(&ctx, blk, blk);
        show("block", key_len, blk, sizeof blk);
        if (memcmp(blk, pt_pub, 16) != 0)
            return 2; /* decrypt(encrypt(x)) != x */
        se_aes_encrypt_blocks(&ctx, pt, ct, 2);
        se_aes_decrypt_blocks(&ctx, ct, ct, 2);
        show("blocks", key_len, ct, 32);
        if (memcmp(ct, pt_pub, 32) != 0)
            return 2; /* in place */

        memcpy(blk, iv, sizeof blk);
        if (se_aes_cbc_encrypt(&ctx, blk, pt, 32, ct) != SE_OK)
            return 1;
        memcpy(blk, iv, sizeof blk);
        if (se_aes_cbc_decrypt(&ctx, blk, ct, 32, ct) != SE_OK)
            return 1;
        show("cbc", key_len, ct, 32);
        if (memcmp(ct, pt_pub, 32) != 0)
            return 2; /* in place */
        memcpy(blk, iv, sizeof blk);
        se_aes_ctr_crypt(&ctx, blk, pt, sizeof pt, ct);
        show("ctr", key_len, ct, sizeof pt);
        memcpy(blk, iv, sizeof blk);
        se_aes_ofb_crypt(&ctx, blk, pt, sizeof pt, ct);
        show("ofb", key_len, ct, sizeof pt);
        if (se_aes_cbc_mac(&ctx, pt, 32, tag, 16) != SE_OK)
            return 1;
        show("cbc-mac", key_len, tag, 16);

        if (se_aes_ccm_encrypt(&ctx, nonce, sizeof nonce, aad, sizeof aad, pt, sizeof pt, ct, tag,
                               8) != SE_OK)
            return 1;
        show("ccm ct", key_len, ct, sizeof pt);
        show("ccm tag", key_len, tag, 8);

        if (se_aes_gcm_init(&gctx, key, key_len) != SE_OK)
            return 1;
        /* 12 bytes: the fast path; 20 bytes: J0 through GHASH. */
        for (size_t iv_len = 12; iv_len <= 20; iv_len += 8) {
            if (se_aes_gcm_encrypt(&gctx, gcm_iv, iv_len, aad, sizeof aad, pt, sizeof pt, ct, tag,
                                   16) != SE_OK)
                return 1;
            show(iv_len == 12 ? "gcm96 ct" : "gcm160 ct", key_len, ct, sizeof pt);
            show(iv_len == 12 ? "gcm96 tag" : "gcm160 tag", key_len, tag, 16);
        }
#ifdef SE_CTGRIND
        /* Decryption, accepted and rejected: only the verdict may be public (the library
         * declassifies it), so these need the SE_CTGRIND build of the library. */
        for (int bad = 0; bad <= 1; bad++) {
            uint8_t out[sizeof pt];
            se_status st;
            tag[0] ^= (uint8_t)bad;
            st = se_aes_gcm_decrypt(&gctx, gcm_iv, 20, aad, sizeof aad, ct, sizeof pt, tag, 16,
                                    out);
            show(bad ? "gcm dec bad" : "gcm dec ok", key_len, out, sizeof out);
            if (st != (bad ? SE_ERR_BAD_TAG : SE_OK))
                return 3;
            tag[0] ^= (uint8_t)bad;
        }
        if (se_aes_ccm_encrypt(&ctx, nonce, sizeof nonce, aad, sizeof aad, pt, sizeof pt, ct, tag,
                               8) != SE_OK)
            return 1;
        for (int bad = 0; bad <= 1; bad++) {
            uint8_t out[sizeof pt];
            se_status st;
            ct[0] ^= (uint8_t)bad;
            st = se_aes_ccm_decrypt(&ctx, nonce, sizeof nonce, aad, sizeof aad, ct, sizeof pt,
                                    tag, 8, out);
            show(bad ? "ccm dec bad" : "ccm dec ok", key_len, out, sizeof out);
            if (st != (bad ? SE_ERR_BAD_TAG : SE_OK))
                return 3;
            ct[0] ^= (uint8_t)bad;
        }
#endif
        se_aes_gcm_wipe(&gctx);
        se_aes_wipe(&ctx);
    }
    return 0;
}
