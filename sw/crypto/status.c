/* Names of the status codes (see se/status.h). */
#include "se/status.h"

static const char *const names[SE_STATUS_COUNT] = {
    [SE_OK] = "ok",
    [SE_ERR_BAD_INPUT] = "bad_input",
    [SE_ERR_BAD_LENGTH] = "bad_length",
    [SE_ERR_BAD_HEX] = "bad_hex",
    [SE_ERR_UNKNOWN_OP] = "unknown_op",
    [SE_ERR_UNKNOWN_CURVE] = "unknown_curve",
    [SE_ERR_BAD_PARAMS] = "bad_params",
    [SE_ERR_INVALID_POINT] = "invalid_point",
    [SE_ERR_INVALID_SCALAR] = "invalid_scalar",
    [SE_ERR_BAD_SIGNATURE] = "bad_signature",
    [SE_ERR_BAD_ENCODING] = "bad_encoding",
    [SE_ERR_BAD_TAG] = "bad_tag",
    [SE_ERR_NOT_INVERTIBLE] = "not_invertible",
    [SE_ERR_INFINITY] = "infinity",
    [SE_ERR_BUFFER_TOO_SMALL] = "buffer_too_small",
    [SE_ERR_DRBG_NOT_SEEDED] = "drbg_not_seeded",
    [SE_ERR_DRBG_RESEED] = "drbg_reseed_required",
    [SE_ERR_NOT_SUPPORTED] = "not_supported",
    [SE_ERR_BACKEND] = "backend_error",
};

const char *se_status_name(se_status st)
{
    if ((unsigned)st >= SE_STATUS_COUNT || names[st] == 0)
        return "unknown_status";
    return names[st];
}
