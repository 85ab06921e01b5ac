/* ctgrind harness: HMAC-SHA256 with the key and message marked secret must not branch or index on them. */
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>

#include "se/sha256.h"

int main(void)
{
    uint8_t key[100], msg[200], mac[SE_SHA256_DIGEST_BYTES];

    for (unsigned i = 0; i < sizeof key; i++)
        key[i] = (uint8_t)(i * 7u + 1u);
    for (unsigned i = 0; i < sizeof msg; i++)
        msg[i] = (uint8_t)(i * 13u + 5u);
    /* Lengths are public; the bytes are secret. Short (padded) and long (hashed) keys both run. */
    for (size_t key_len = 16; key_len <= sizeof key; key_len += 84) {
        VALGRIND_MAKE_MEM_UNDEFINED(key, sizeof key);
        VALGRIND_MAKE_MEM_UNDEFINED(msg, sizeof msg);
        se_hmac_sha256(key, key_len, msg, sizeof msg, mac);
        VALGRIND_MAKE_MEM_DEFINED(mac, sizeof mac);
        printf("hmac key_len=%zu:", key_len);
        for (unsigned i = 0; i < sizeof mac; i++)
            printf("%02x", mac[i]);
        printf("\n");
    }
    return 0;
}
