/* ctgrind harness: HMAC_DRBG with secret entropy, nonce, personalization and additional input. */
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "se/drbg.h"

int main(void)
{
    uint8_t entropy[48], nonce[16], pers[20], add[40], out[70];
    se_hmac_drbg_ctx ctx = {0};

    for (unsigned i = 0; i < sizeof entropy; i++)
        entropy[i] = (uint8_t)(i * 11u + 3u);
    memset(nonce, 0x42, sizeof nonce);
    memset(pers, 0x17, sizeof pers);
    memset(add, 0x99, sizeof add);
    VALGRIND_MAKE_MEM_UNDEFINED(entropy, sizeof entropy);
    VALGRIND_MAKE_MEM_UNDEFINED(nonce, sizeof nonce);
    VALGRIND_MAKE_MEM_UNDEFINED(pers, sizeof pers);
    VALGRIND_MAKE_MEM_UNDEFINED(add, sizeof add);
    if (se_hmac_drbg_instantiate(&ctx, entropy, sizeof entropy, nonce, sizeof nonce, pers,
                                 sizeof pers) != SE_OK ||
        se_hmac_drbg_generate(&ctx, out, sizeof out, add, sizeof add) != SE_OK ||
        se_hmac_drbg_reseed(&ctx, entropy, 32, add, 7) != SE_OK ||
        se_hmac_drbg_generate(&ctx, out, sizeof out, NULL, 0) != SE_OK)
        return 1;
    VALGRIND_MAKE_MEM_DEFINED(out, sizeof out);
    printf("hmac_drbg out:");
    for (unsigned i = 0; i < sizeof out; i++)
        printf("%02x", out[i]);
    printf("\n");
    se_hmac_drbg_uninstantiate(&ctx);
    return 0;
}
