# The hellos of the DTLS 1.2 client handshake (RFC 6347 4.2.1, RFC 5246 7.4.1.2), as the software
# client builds and checks them (sw/proto/tls_hs.c): CLIENT_HELLO writes the ClientHello with its
# DTLS handshake header, and starts the transcript with it; HELLO_VERIFY takes the cookie of the
# server's HelloVerifyRequest for the second ClientHello. Their state, at HS_AT below the
# transcript's, is public: the client random (the DRBG's) and the cookie.

.equ HS_CR 0                        # client_random, 32 bytes
.equ HS_CLEN 32                     # the cookie's length, 1 byte (0: none)
.equ HS_COOKIE 33                   # the cookie, up to 32 bytes (the software client's tls_ctx.h cookie[32])
.equ COOKIE_MAX 32
.equ CH_FIXED 89                    # a ClientHello's bytes but the cookie: header 12, version 2, random 32,
                                    # session_id and cookie lengths 2, cipher_suites 6, the tail 35

.const DTLS12 x"fefd"
# cipher_suites: TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
.const CH_SUITES x"0004c0aec02b"
# compression_methods (null), then extensions, 31 bytes: supported_groups (secp256r1), ec_point_formats
# (uncompressed), signature_algorithms (ecdsa_secp256r1_sha256), extended_master_secret,
# renegotiation_info (initial): the software client's ch_tail
.const CH_TAIL x"0100001f000a000400020017000b00020100000d00040002040300170000ff01000100"

# CLIENT_HELLO: r1 where the message goes (below the secret top, apart from the handshake's state:
# BAD_INPUT otherwise); r2 0: the first ClientHello, message_seq 0, with a new client random from
# the DRBG (NO_ENTROPY without a seed) and no cookie; 1: the second, message_seq 1, with the same
# random and the cookie HELLO_VERIFY kept. OUT MESSAGE: the message, 89 bytes and the cookie's; the
# transcript starts again with it (RFC 6347 4.2.1: the first ClientHello and the HelloVerifyRequest
# are not in it once a cookie came).
.entry CLIENT_HELLO
    CMPI r2, 2
    J.nc bad_input
    LDI t, HS_AT
    LDI r5, 0
    CMPI r2, 0
    J.z ch_len
    LDB r5, t, HS_CLEN
    CMPI r5, COOKIE_MAX + 1         # (the bus may have written the state)
    J.nc bad_input
ch_len:
    ADDI r6, r5, CH_FIXED
    MOV r13, r1
    ADD r14, r1, r6
    J.c bad_input
    CALL state_apart
    CMPI r2, 0
    J.nz ch_build
    LDI t, KF                       # a new handshake: a new random, no cookie
    STH t, r1, 0
    STH t, r6, 2
    LDI r3, HS_AT + HS_CR
    LDI r6, 32
    CALL drbg_draw
    LDI t, HS_AT
    LDI r5, 0
    STB t, r5, HS_CLEN
    LDI t, KF
    LDH r1, t, 0
    LDH r6, t, 2
    LDI r2, 0
ch_build:
    SUBI r7, r6, 12                 # the body's length
    LDI t, 1                        # the handshake header: client_hello, length, message_seq,
    STB r1, t, 0                    # fragment_offset 0, fragment_length (the whole message)
    LDI t, 0
    STB r1, t, 1
    STH r1, r7, 2
    STH r1, r2, 4
    STB r1, t, 6
    STH r1, t, 7
    STB r1, t, 9
    STH r1, r7, 10
    ADDI r8, r1, 12
    CCOPY r8, DTLS12
    ADDI r8, r8, 2
    LDI r9, HS_AT + HS_CR
    LDI r10, 32
    COPY r8, r9, r10
    ADD r8, r8, r10
    STB r8, t, 0                    # session_id: empty
    STB r8, r5, 1                   # the cookie
    ADDI r8, r8, 2
    LDI r9, HS_AT + HS_COOKIE
    COPY r8, r9, r5
    ADD r8, r8, r5
    CCOPY r8, CH_SUITES
    ADDI r8, r8, 6
    CCOPY r8, CH_TAIL
    OUT MESSAGE, r1, r6
    CALL ts_reset
    ADD r2, r1, r6
    CALL ts_add
    END

# HELLO_VERIFY: r1, r2 the body of a HelloVerifyRequest (server_version, cookie<0..2^8-1>; below the
# secret top and apart from the handshake's state: BAD_INPUT otherwise). Its cookie, 1..32 bytes, is
# kept for the second ClientHello; a body that is short, longer than its cookie, or a cookie empty or
# past 32 bytes is DECODE_ERROR (the software client's on_hello_verify), the state unchanged.
.entry HELLO_VERIFY
    MOV r13, r1
    MOV r14, r2
    CALL state_apart
    SUB r3, r2, r1
    CMPI r3, 3
    J.c decode_error
    LDB r4, r1, 2
    ADDI r5, r4, 3
    CMP r5, r3
    J.nz decode_error
    CMPI r4, 0
    J.z decode_error
    CMPI r4, COOKIE_MAX + 1
    J.nc decode_error
    LDI t, HS_AT
    STB t, r4, HS_CLEN
    ADDI r6, r1, 3
    ADDI r7, t, HS_COOKIE
    COPY r7, r6, r4
    END
decode_error:
    ERR DECODE_ERROR
