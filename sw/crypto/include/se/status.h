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
    SE_STATUS_COUNT
} se_status;

/* Stable lower_snake_case name of a status, "unknown_status" if out of range. */
const char *se_status_name(se_status st);

#endif
