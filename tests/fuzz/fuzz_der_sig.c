/* libFuzzer: the strict DER ECDSA signature decoder (se_ecdsa_sig_from_der, se/ec.h).
 * Input: a byte picking the curve (se_curve_id 1 + byte % 7: the order's width sets the largest
 * integer accepted), then the DER, copied to a buffer of its exact size. Properties checked:
 * whatever decodes re-encodes (se_ecdsa_sig_to_der) to the same bytes (strict DER has one
 * encoding), and any r || s of the curve's width survives encode -> decode. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "se/ec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static se_ec_curve curves[7];
    static int ready;
    if (!ready) {
        for (int i = 0; i < 7; i++)
            if (se_ec_curve_builtin(&curves[i], (se_curve_id)(SE_CURVE_SECP160R1 + i)) != SE_OK)
                abort();
        ready = 1;
    }
    if (size < 1)
        return 0;
    const se_ec_curve *c = &curves[data[0] % 7];
    size_t nb = c->n.bytes, n = size - 1;
    uint8_t *der = malloc(n ? n : 1);
    if (der == NULL)
        abort();
    memcpy(der, data + 1, n);
    uint8_t sig[2 * SE_EC_MAX_BYTES], der2[2 * SE_EC_MAX_BYTES + 9], sig2[2 * SE_EC_MAX_BYTES];
    size_t der2_len;
    if (se_ecdsa_sig_from_der(c, der, n, sig) == SE_OK) {
        if (se_ecdsa_sig_to_der(c, sig, der2, &der2_len) != SE_OK || der2_len != n ||
            memcmp(der2, der, n) != 0)
            abort(); /* accepted an encoding that is not the canonical one */
    }
    if (n >= 2 * nb) {
        if (se_ecdsa_sig_to_der(c, der, der2, &der2_len) != SE_OK || der2_len > sizeof der2 ||
            se_ecdsa_sig_from_der(c, der2, der2_len, sig2) != SE_OK || memcmp(sig2, der, 2 * nb) != 0)
            abort(); /* an encoding that does not decode back */
    }
    free(der);
    return 0;
}
