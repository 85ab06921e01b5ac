/* Status codes shared by every part of the security engine's C code. */
#ifndef SE_STATUS_H
#define SE_STATUS_H

/* Every function that can fail returns one of these; callers must check it.
 * The names returned by se_status_name() are the error strings of the CLI's
 * batch mode ({"error":"invalid_point"}), so keep them stable. */
typedef enum {
    SE_OK = 0,
    SE_ERR_BAD_INPUT,        /* "bad_input": malformed argument */
    SE_ERR_BAD_LENGTH,       /* "bad_length": a length the operation does not accept */
    SE_ERR_BAD_HEX,          /* "bad_hex": malformed hex string (CLI) */
    SE_ERR_UNKNOWN_OP,       /* "unknown_op": no such operation (CLI) */
    SE_ERR_UNKNOWN_CURVE,    /* "unknown_curve" */
    SE_ERR_BAD_PARAMS,       /* "bad_params": curve/modulus parameters unusable */
    SE_ERR_INVALID_POINT,    /* "invalid_point": bad encoding, off curve, coordinate >= p, infinity */
    SE_ERR_INVALID_SCALAR,   /* "invalid_scalar": private key 0 or >= n */
    SE_ERR_BAD_SIGNATURE,    /* "bad_signature": r or s out of range, or verification failed */
    SE_ERR_BAD_ENCODING,     /* "bad_encoding": malformed DER */
    SE_ERR_BAD_TAG,          /* "bad_tag": AEAD tag mismatch; no plaintext released */
    SE_ERR_NOT_INVERTIBLE,   /* "not_invertible": inverse of a value sharing a factor with the modulus */
    SE_ERR_INFINITY,         /* "infinity": result is the point at infinity (e.g. ECDH) */
    SE_ERR_BUFFER_TOO_SMALL, /* "buffer_too_small" */
    SE_ERR_DRBG_NOT_SEEDED,  /* "drbg_not_seeded" */
    SE_ERR_DRBG_RESEED,      /* "drbg_reseed_required": reseed counter exhausted */
    SE_ERR_NOT_SUPPORTED,    /* "not_supported": backend or build lacks the feature */
    SE_ERR_BACKEND,          /* "backend_error": hardware/simulation failure */
    /* X.509 certificates (sw/proto/x509.c) */
    SE_ERR_CERT_MALFORMED,   /* "cert_malformed": not a well-formed X.509 v3 DER certificate */
    SE_ERR_CERT_UNSUPPORTED, /* "cert_unsupported": not ECDSA-SHA256 / P-256, or an unknown critical extension */
    SE_ERR_CERT_SIGNATURE,   /* "cert_bad_signature": a certificate's signature does not verify */
    SE_ERR_CERT_EXPIRED,     /* "cert_expired": the clock is past notAfter */
    SE_ERR_CERT_NOT_YET_VALID, /* "cert_not_yet_valid": the clock is before notBefore */
    SE_ERR_CERT_UNKNOWN_CA,  /* "cert_unknown_ca": the chain does not end at a trust anchor */
    SE_ERR_CERT_NOT_CA,      /* "cert_not_ca": an issuer lacks basicConstraints cA, or its path length is exceeded */
    SE_ERR_CERT_KEY_USAGE,   /* "cert_key_usage": keyUsage forbids the use (keyCertSign, digitalSignature) */
    SE_ERR_CERT_NAME,        /* "cert_name_mismatch": the leaf is not for the expected name */
    SE_ERR_CERT_CHAIN,       /* "cert_chain": subject/issuer names do not chain, or the chain is too long */
    /* TLS / DTLS (sw/proto/tls*.c); the alert a failure sends is in se/tls.h */
    SE_ERR_TLS_DECODE,       /* "decode_error": a malformed message or record */
    SE_ERR_TLS_UNEXPECTED,   /* "unexpected_message": a message out of order */
    SE_ERR_TLS_HANDSHAKE,    /* "handshake_failure": no common suite, group or signature algorithm */
    SE_ERR_TLS_ILLEGAL_PARAMETER, /* "illegal_parameter": a field with a forbidden value */
    SE_ERR_TLS_PROTOCOL_VERSION,  /* "protocol_version": not (D)TLS 1.2 */
    SE_ERR_TLS_BAD_FINISHED, /* "bad_finished": the peer's Finished does not match the transcript */
    SE_ERR_TLS_BAD_RECORD_MAC, /* "bad_record_mac": a record fails its tag/MAC/padding check */
    SE_ERR_TLS_CERT_REQUIRED,  /* "certificate_required": the server requires a client certificate */
    SE_ERR_TLS_PEER_ALERT,   /* "peer_alert": the peer sent a fatal alert (se_tls_peer_alert() names it) */
    SE_ERR_TLS_CLOSED,       /* "closed": the connection is closed (close_notify) */
    SE_ERR_TLS_TIMEOUT,      /* "timeout": the DTLS handshake gave up after its retransmissions */
    SE_ERR_TLS_IO,           /* "io_error": the transport callback failed */
    SE_ERR_TLS_STATE,        /* "bad_state": the call is not valid in the connection's state */
    SE_ERR_TLS_TOO_LARGE,    /* "too_large": a handshake message or record over the build's limits (se/tls.h) */
    SE_ERR_TLS_WARNINGS,     /* "too_many_warnings": warning alerts in a row past the cap (se/tls.h) */
    SE_STATUS_COUNT
} se_status;

/* Stable lower_snake_case name of a status, "unknown_status" if out of range. */
const char *se_status_name(se_status st);

#endif
