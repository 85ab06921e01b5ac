# SERVER_KEY_EXCHANGE (RFC 8422 5.4): the server's ECDHE parameters and its signature over
# client_random || server_random || params, checked as the software client does (on_ske, verify)
# in its order, its point kept for ECDHE. The signature is verified on the SHA and pk IPs with the
# leaf's key that CERTIFICATE kept at HS_LK: by pk's joint comb if KEY_TABLE put that key's table into
# cache entry 2 (the cached server certificate's), by its ladder otherwise.

.const ECPARAMS x"030017"           # named_curve, secp256r1
.const SIG_P256 x"0403"             # ecdsa_secp256r1_sha256

.equ SKE_PARAMS 69                  # curve_type, named_curve, the point's length and its 65 bytes

# SERVER_KEY_EXCHANGE: r1, r2 the body (below the secret top and apart from the handshake's state:
# BAD_INPUT otherwise); the server's key x || y at HS_LK (CERTIFICATE's). DECODE_ERROR for
# params that do not parse; ILLEGAL_PARAMETER for another curve, a point that is not 65 bytes,
# uncompressed and on P-256 (pk's VALIDATE); DECODE_ERROR for a signature
# part that does not parse or fill the body; ILLEGAL_PARAMETER for another signature algorithm;
# DECRYPT_ERROR for a signature that is not strict DER (se_ecdsa_sig_from_der's rules) or does not
# verify. ENGINE without P-256 loaded. OK keeps the point at HS_SP.
.entry SERVER_KEY_EXCHANGE
    CALL server_key_exchange
    END

server_key_exchange:
    MOV r13, r1
    MOV r14, r2
    CALL state_apart
    SUB r5, r2, r1
    CMPI r5, 4
    J.c decode_error
    LDB r6, r1, 3                   # the point's length
    ADDI r7, r6, 4
    CMP r5, r7
    J.c decode_error
    LDI r8, 3
    MEQ r1, r8, ECPARAMS
    J.nz illegal_parameter
    CMPI r6, 65
    J.nz illegal_parameter
    LDB r8, r1, 4
    CMPI r8, 4
    J.nz illegal_parameter
    LDI t, KF
    STH t, r1, 0
    STH t, r2, 2
    CALL p256_check                 # r6 = 32
    LDI t, KF
    LDH r1, t, 0
    ADDI r7, r1, 5
    PKW PK_SLOT_QX, r7, r6
    ADDI r7, r1, 37
    PKW PK_SLOT_QY, r7, r6
    PKRUN pks, PK_PROG_VALIDATE
    J.nz illegal_parameter
    LDI t, KF                       # the signature: algorithm, signature<0..2^16-1> to the end
    LDH r1, t, 0
    LDH r2, t, 2
    ADDI r9, r1, SKE_PARAMS
    SUB r5, r2, r9
    CMPI r5, 4
    J.c decode_error
    LDH r10, r9, 2
    SUBI r5, r5, 4
    CMP r10, r5
    J.nz decode_error
    LDI r8, 2
    MEQ r9, r8, SIG_P256
    J.nz illegal_parameter
    ADDI r11, r9, 4                 # the DER signature [r11, r2)
    CMPI r10, 2
    J.c decrypt_error
    LDB r8, r11, 0
    CMPI r8, 0x30
    J.nz decrypt_error
    LDB r8, r11, 1
    CMPI r8, 0x80
    J.nc decrypt_error
    ADDI r8, r8, 2
    CMP r8, r10
    J.nz decrypt_error
    ADDI r11, r11, 2
    CALL der_int                    # r: [r12, r12 + r13)
    MOV r14, r12
    MOV r15, r13
    CALL der_int                    # s
    CMP r11, r2
    J.nz decrypt_error
    LDI r3, HS_AT + HS_LK
    PKW PK_SLOT_RX, r14, r15
    PKW PK_SLOT_RY, r12, r13
    PKW PK_SLOT_QX, r3, r6
    ADDI r7, r3, 32
    PKW PK_SLOT_QY, r7, r6
    SHAI                            # the signed bytes: client_random || server_random || params
    LDI r7, HS_AT + HS_CR
    SHAU r7, r6
    LDI r7, HS_AT + HS_SR
    SHAU r7, r6
    LDI r8, SKE_PARAMS
    SHAU r1, r8
    LDI t, CHK
    SHAF t
    PKW PK_SLOT_E, t, r6
    PKRUN pks, PK_PROG_ECDSA_VERIFY_COMB + SERVER_TABLE  # the joint comb, if KEY_TABLE made this key's table
    CMPI pks, PK_ST_BAD_SEQ
    J.nz ske_verdict
    PKRUN pks, PK_PROG_ECDSA_VERIFY # (the same verdicts, on the ladder)
ske_verdict:
    CMPI pks, PK_ST_OK
    J.nz decrypt_error
    ADDI r7, r1, 5
    LDI r8, HS_AT + HS_SP
    LDI r9, 64
    COPY r8, r7, r9
    RET

# der_int: the INTEGER at r11 before r2 (se_ecdsa_sig_from_der's der_get_int: a short length, not 0;
# non-negative; minimal; at most 32 bytes after a sign byte): r12, r13 its value's bytes; r11 past
# it. DECRYPT_ERROR otherwise. r8, t change.
der_int:
    SUB r8, r2, r11
    CMPI r8, 2
    J.c decrypt_error
    LDB t, r11, 0
    CMPI t, 2
    J.nz decrypt_error
    LDB r13, r11, 1
    CMPI r13, 0
    J.z decrypt_error
    CMPI r13, 0x80
    J.nc decrypt_error
    SUBI r8, r8, 2
    CMP r8, r13
    J.c decrypt_error
    ADDI r12, r11, 2
    ADD r11, r12, r13
    LDB t, r12, 0
    ANDI r8, t, 0x80
    J.nz decrypt_error
    CMPI r13, 1
    J.z der_len
    CMPI t, 0
    J.nz der_len
    LDB t, r12, 1                   # a leading zero: a sign byte, and then dropped
    ANDI t, t, 0x80
    J.z decrypt_error
    ADDI r12, r12, 1
    SUBI r13, r13, 1
der_len:
    CMPI r13, 33
    J.nc decrypt_error
    RET

decrypt_error:
    ERR DECRYPT_ERROR
