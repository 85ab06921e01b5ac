# The hellos of the DTLS 1.2 client handshake (RFC 6347 4.2.1, RFC 5246 7.4.1.2), as the software
# client builds and checks them (sw/proto/tls_hs.c): CLIENT_HELLO writes the ClientHello with its
# DTLS handshake header, and starts the transcript with it; HELLO_VERIFY takes the cookie of the
# server's HelloVerifyRequest for the second ClientHello; SERVER_HELLO checks the ServerHello with
# the client's rules and alerts and keeps the server random. Their state, at HS_AT below the
# transcript's, is public: the client random (the DRBG's), the cookie, the server random.

.equ HS_CR 0                        # client_random, 32 bytes
.equ HS_CLEN 32                     # the cookie's length, 1 byte (0: none)
.equ HS_COOKIE 33                   # the cookie, up to 32 bytes (the software client's tls_ctx.h cookie[32])
.equ HS_SR 68                      # server_random, 32 bytes
.equ HS_SP 100                      # the server's ECDHE point x || y, 64 bytes (SERVER_KEY_EXCHANGE)
.equ HS_CREQ 164                    # CERTIFICATE_REQUEST's verdict, 1 byte (creq.s)
.equ HS_LK 168                      # the server's key x || y, 64 bytes: its leaf's (CERTIFICATE)
.equ HS_CC 232                      # the cached-certificate record, 189 bytes (cert.s)
.equ HS_MSEQ 421                    # the client's next message_seq, 2 bytes
.equ HS_IV 423                      # client_write_IV || server_write_IV, 8 bytes (CLIENT_FLIGHT)
# HANDSHAKE's and HS_RECORD's (record.s): the client's state, the server's message being reassembled,
# the record being walked, the datagram out, the client's Finished to seal, and the configuration
.equ HS_ST 431                      # the state between programs (ST_*)
.equ HS_STL 432                     # the state while HS_RECORD runs (HS_ST says ST_FAILED meanwhile)
.equ HS_NIN 433                     # the server's next message_seq, 2 bytes
.equ HS_WSEQ 435                    # the next sequence number of our epoch-0 records, 2 bytes
.equ HS_RON 437                     # 1: a message is being reassembled
.equ HS_RT 438                      # its type
.equ HS_RN 439                      # its length, 2 bytes
.equ HS_RG 441                      # its bytes so far (from offset 0), 2 bytes
.equ HS_RP 443                      # the fragment being read, 2 bytes
.equ HS_RE 445                      # the record's end, 2 bytes
.equ HS_REP 447                     # 1: the record is of the epoch before the one the client reads
.equ HS_OLEN 448                    # the last datagram out: its bytes, kept at C_OUT to resend, 2 bytes
.equ HS_FIN 450                     # the client's Finished message, 24 bytes: the caller seals it (epoch 1)
.equ HS_CFG 474                     # HANDSHAKE's configuration, 26 bytes (record.s C_*)
.equ HS_ANS 500                     # 1: this run answered (MESSAGE is the datagram out)
.equ HS_FMARK 501                   # the server's next message_seq when the datagram out was made, 2 bytes
.equ HS_SUITE 503                   # the suite ServerHello chose: its second byte (0xae CCM_8, 0x2b GCM)
.equ HS_CACHED 504                  # 1: CERTIFICATE took the cached-certificate path
.equ COOKIE_MAX 32
.equ CH_FIXED 89                    # a ClientHello's bytes but the cookie: header 12, version 2, random 32,
                                    # session_id and cookie lengths 2, cipher_suites 6, the tail 35

.const DTLS12 x"fefd"
.const SUITE_CCM8 x"c0ae"
.const SUITE_GCM x"c02b"
# cipher_suites: TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
.const CH_SUITES x"0004c0aec02b"
# compression_methods (null), then extensions, 31 bytes: supported_groups (secp256r1), ec_point_formats
# (uncompressed), signature_algorithms (ecdsa_secp256r1_sha256), extended_master_secret,
# renegotiation_info (initial): the software client's ch_tail
.const CH_TAIL x"0100001f000a000400020017000b00020100000d00040002040300170000ff01000100"

# CLIENT_HELLO: r1 where the message goes (below the secret top, apart from the handshake's state:
# BAD_INPUT otherwise); r2 0: the first ClientHello, message_seq 0, with a new client random from
# the DRBG (NO_ENTROPY without a seed) and no cookie; 1: the second (or a later one, after another
# HelloVerifyRequest), the next message_seq (HS_MSEQ: 1 after the first), with the same random and
# the cookie HELLO_VERIFY kept. OUT MESSAGE: the message, 89 bytes and the cookie's; the
# transcript starts again with it (RFC 6347 4.2.1: the first ClientHello and the HelloVerifyRequest
# are not in it once a cookie came).
.entry CLIENT_HELLO
    CALL client_hello
    END

client_hello:
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
    J.nz ch_again
    LDI t, KF                       # a new handshake: a new random, no cookie
    STH t, r1, 0
    STH t, r6, 2
    LDI r3, HS_AT + HS_CR
    LDI r6, 32
    CALL drbg_draw
    LDI t, HS_AT
    LDI r5, 0
    STB t, r5, HS_CLEN
    STB t, r5, HS_CREQ              # (no request yet in this handshake)
    LDI t, KF
    LDH r1, t, 0
    LDH r6, t, 2
    LDI r2, 0
    J ch_build
ch_again:                           # a ClientHello again: the next message_seq (1 after the first)
    LDI t, HS_AT
    LDH r2, t, HS_MSEQ
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
    ADDI r9, r2, 1                  # the next message_seq
    LDI t, HS_AT
    STH t, r9, HS_MSEQ
    OUT MESSAGE, r1, r6
    CALL ts_reset
    ADD r2, r1, r6
    CALL ts_add
    RET

# HELLO_VERIFY: r1, r2 the body of a HelloVerifyRequest (server_version, cookie<0..2^8-1>; below the
# secret top and apart from the handshake's state: BAD_INPUT otherwise). Its cookie, 1..32 bytes, is
# kept for the second ClientHello; a body that is short, longer than its cookie, or a cookie empty or
# past 32 bytes is DECODE_ERROR (the software client's on_hello_verify), the state unchanged.
.entry HELLO_VERIFY
    CALL hello_verify
    END

hello_verify:
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
    RET
# SERVER_HELLO: r1, r2 the body of a ServerHello (below the secret top and apart from the handshake's
# state: BAD_INPUT otherwise), checked as the software client does (on_server_hello), in its order:
# DECODE_ERROR for a body that does not parse (short, a session_id past 32 bytes, extensions that
# do not fill it or are cut), PROTOCOL_VERSION unless DTLS 1.2, ILLEGAL_PARAMETER for a suite not
# offered (CCM_8, GCM) or compression not null; then each extension in turn: extended_master_secret
# (empty), renegotiation_info (empty renegotiated_connection, else HANDSHAKE_FAILURE), ec_point_formats
# (a list that allows uncompressed, else ILLEGAL_PARAMETER), anything else UNSUPPORTED_EXTENSION; no
# extended_master_secret is HANDSHAKE_FAILURE. OK keeps the server random and the suite.
.entry SERVER_HELLO
    CALL server_hello
    END

server_hello:
    MOV r13, r1
    MOV r14, r2
    CALL state_apart
    SUB r3, r2, r1                  # the body's length
    CMPI r3, 35
    J.c decode_error
    LDB r4, r1, 34                  # session_id's length
    ADDI r5, r4, 38                 # version, random, session_id, cipher_suite, compression_method
    CMP r3, r5
    J.c decode_error
    CMPI r4, 33
    J.nc decode_error
    ADD r6, r1, r5                  # the extensions, if any
    CMP r6, r2
    J.z sh_fields
    SUB r7, r2, r6
    CMPI r7, 2
    J.c decode_error
    LDH r8, r6, 0
    ADDI r8, r8, 2
    CMP r8, r7
    J.nz decode_error
sh_fields:
    LDI r10, 2
    MEQ r1, r10, DTLS12
    J.nz protocol_version
    ADD r11, r1, r4                 # cipher_suite at r11 + 35
    ADDI r11, r11, 35
    MEQ r11, r10, SUITE_CCM8
    J.z sh_suite
    MEQ r11, r10, SUITE_GCM
    J.nz illegal_parameter
sh_suite:
    LDB r12, r11, 2
    CMPI r12, 0
    J.nz illegal_parameter
    LDI r12, 0                      # extended_master_secret seen
    CMP r6, r2
    J.z sh_ext_done
    ADDI r6, r6, 2
sh_ext:
    CMP r6, r2
    J.z sh_ext_done
    SUB r7, r2, r6
    CMPI r7, 4
    J.c decode_error
    LDH r8, r6, 0                   # its type (and its bytes, for renegotiation_info's 0xff01)
    LDB r14, r6, 0
    LDB r15, r6, 1
    LDH r9, r6, 2                   # its length
    SUBI r7, r7, 4
    CMP r7, r9
    J.c decode_error
    ADDI r10, r6, 4                 # its data
    ADD r6, r10, r9                 # the next
    CMPI r8, 23
    J.z sh_ems
    CMPI r8, 11
    J.z sh_formats
    CMPI r14, 0xff
    J.nz unsupported_extension
    CMPI r15, 0x01
    J.nz unsupported_extension
    CMPI r9, 1                      # renegotiation_info: renegotiated_connection<0..255>, empty
    J.c decode_error
    LDB r11, r10, 0
    ADDI r11, r11, 1
    CMP r11, r9
    J.nz decode_error
    CMPI r9, 1
    J.nz handshake_failure
    J sh_ext
sh_ems:
    CMPI r9, 0
    J.nz decode_error
    LDI r12, 1
    J sh_ext
sh_formats:                         # ec_point_formats: a list of at least one, filling the data
    CMPI r9, 2
    J.c decode_error
    LDB r11, r10, 0
    ADDI r11, r11, 1
    CMP r11, r9
    J.nz decode_error
    ADDI r11, r10, 1
sh_format:
    CMP r11, r6
    J.z illegal_parameter
    LDB r13, r11, 0
    CMPI r13, 0                     # uncompressed
    J.z sh_ext
    ADDI r11, r11, 1
    J sh_format
sh_ext_done:
    CMPI r12, 0
    J.z handshake_failure
    ADD r11, r1, r4
    LDB r12, r11, 36                # the suite's second byte, for the caller's SEAL and OPEN
    LDI r8, HS_AT
    STB r8, r12, HS_SUITE
    ADDI r7, r1, 2
    LDI r8, HS_AT + HS_SR
    LDI r9, 32
    COPY r8, r7, r9
    RET

decode_error:
    ERR DECODE_ERROR
protocol_version:
    ERR PROTOCOL_VERSION
illegal_parameter:
    ERR ILLEGAL_PARAMETER
unsupported_extension:
    ERR UNSUPPORTED_EXTENSION
handshake_failure:
    ERR HANDSHAKE_FAILURE
