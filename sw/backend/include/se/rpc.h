/* The operation protocol between the host CLI's `--backend soc` (tools/cli/soc_backend.c) and the
 * node's op-server firmware (sw/apps/opserver): each se/backend.h entry point, and the curve
 * operations of se/ec.h, as one request frame and one response frame over the node's UART.
 *
 * Frame: 'S' 'E', one byte (request: the op; response: the se_status), one zero byte, the payload
 * length as 4 bytes little-endian, the payload. A payload is a sequence of fields: a number is 4
 * bytes little-endian; a byte string is its length (a number) followed by its bytes. Anything the
 * firmware prints outside a frame is not part of the protocol (the host passes it to stderr). */
#ifndef SE_RPC_H
#define SE_RPC_H

#include <stddef.h>
#include <stdint.h>

#define SE_RPC_MAGIC0 0x53u /* 'S' */
#define SE_RPC_MAGIC1 0x45u /* 'E' */
#define SE_RPC_HEADER 8u
#define SE_RPC_MAX_PAYLOAD 8192u /* the node's buffers; a longer request is refused on the host */

/* Requests (fields in order) -> response payload on SE_OK. */
typedef enum {
    SE_RPC_PING = 1,     /* -> backend name ("sw" / "hw") and the engine's probe status */
    SE_RPC_SHA256,       /* msg -> digest */
    SE_RPC_HMAC_SHA256,  /* key, msg -> mac */
    SE_RPC_AES,          /* mode (se_aes_mode), decrypt, key, iv (16 or 0 bytes), in -> out */
    SE_RPC_CBC_MAC,      /* key, data, mac_len -> mac */
    SE_RPC_AEAD_ENCRYPT, /* mode (se_aead_mode), key, nonce, aad, pt, tag_len -> ct, tag */
    SE_RPC_AEAD_DECRYPT, /* mode, key, nonce, aad, ct, tag -> pt */
    SE_RPC_EC_VALIDATE,  /* curve, pub -> nothing */
    SE_RPC_EC_MUL,       /* curve, k (order_bytes), pub (empty: the generator) -> 04 || x || y */
    SE_RPC_ECDSA_SIGN,   /* curve, d, e, k (order_bytes each) -> r || s (se_ecdsa_sign_values) */
    SE_RPC_ECDSA_VERIFY, /* curve, pub, e, r, s -> nothing: SE_OK or SE_ERR_BAD_SIGNATURE */
    SE_RPC_X25519,       /* k, u -> out */
    SE_RPC_MOD,          /* op (se_mod_op), m, a, b -> r */
    SE_RPC_SHA256_BLOCK, /* h0..h7 (eight numbers), block (64 bytes) -> h0..h7 (32 bytes, each word
                          * little-endian): one compression, for HMAC-DRBG contexts on the host */
} se_rpc_op;

/* A curve in a request: a number, SE_RPC_CURVE_BUILTIN followed by the se_curve_id, or
 * SE_RPC_CURVE_PARAMS followed by the cofactor and the byte strings p, a, b, gx, gy, n. */
#define SE_RPC_CURVE_BUILTIN 0u
#define SE_RPC_CURVE_PARAMS 1u

#endif
