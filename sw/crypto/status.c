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
    [SE_ERR_CERT_MALFORMED] = "cert_malformed",
    [SE_ERR_CERT_UNSUPPORTED] = "cert_unsupported",
    [SE_ERR_CERT_SIGNATURE] = "cert_bad_signature",
    [SE_ERR_CERT_EXPIRED] = "cert_expired",
    [SE_ERR_CERT_NOT_YET_VALID] = "cert_not_yet_valid",
    [SE_ERR_CERT_UNKNOWN_CA] = "cert_unknown_ca",
    [SE_ERR_CERT_NOT_CA] = "cert_not_ca",
    [SE_ERR_CERT_KEY_USAGE] = "cert_key_usage",
    [SE_ERR_CERT_NAME] = "cert_name_mismatch",
    [SE_ERR_CERT_CHAIN] = "cert_chain",
    [SE_ERR_TLS_DECODE] = "decode_error",
    [SE_ERR_TLS_UNEXPECTED] = "unexpected_message",
    [SE_ERR_TLS_HANDSHAKE] = "handshake_failure",
    [SE_ERR_TLS_ILLEGAL_PARAMETER] = "illegal_parameter",
    [SE_ERR_TLS_PROTOCOL_VERSION] = "protocol_version",
    [SE_ERR_TLS_BAD_FINISHED] = "bad_finished",
    [SE_ERR_TLS_BAD_RECORD_MAC] = "bad_record_mac",
    [SE_ERR_TLS_CERT_REQUIRED] = "certificate_required",
    [SE_ERR_TLS_PEER_ALERT] = "peer_alert",
    [SE_ERR_TLS_CLOSED] = "closed",
    [SE_ERR_TLS_TIMEOUT] = "timeout",
    [SE_ERR_TLS_IO] = "io_error",
    [SE_ERR_TLS_STATE] = "bad_state",
    [SE_ERR_TLS_TOO_LARGE] = "too_large",
    [SE_ERR_TLS_WARNINGS] = "too_many_warnings",
};

const char *se_status_name(se_status st)
{
    if ((unsigned)st >= SE_STATUS_COUNT || names[st] == 0)
        return "unknown_status";
    return names[st];
}
