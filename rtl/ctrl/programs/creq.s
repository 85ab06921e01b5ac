# CERTIFICATE_REQUEST (RFC 5246 7.4.4): parsed as the software client does (on_cert_request): three
# vectors, certificate_types<1..2^8-1>, supported_signature_algorithms<2..2^16-2> and
# certificate_authorities<0..2^16-1>, that fill the body (DECODE_ERROR otherwise; the authorities
# are not read, as the client has one chain anyway). Its verdict stays in the hellos' state
# (HS_CREQ): 1, a certificate is asked for; 3, and one of ours fits, ecdsa_sign among the types and
# ecdsa_secp256r1_sha256 among the algorithms (items read whole, an odd last byte of the
# algorithms ignored, as the client's has_item does).

# CERTIFICATE_REQUEST: r1, r2 the body (below the secret top and apart from the handshake's state:
# BAD_INPUT otherwise).
.entry CERTIFICATE_REQUEST
    CALL cert_request
    END

cert_request:
    MOV r13, r1
    MOV r14, r2
    CALL state_apart
    MOV r3, r1                      # certificate_types
    CALL vec1
    MOV r5, r3                      # its items [r5, r6)
    MOV r6, r4
    MOV r3, r4                      # supported_signature_algorithms
    CALL vec2
    MOV r7, r3
    MOV r8, r4
    MOV r3, r4                      # certificate_authorities
    CALL vec2
    CMP r4, r2
    J.nz decode_error
    LDI r9, 1                       # asked for
cr_type:
    CMP r5, r6
    J.z cr_store
    LDB t, r5, 0
    ADDI r5, r5, 1
    CMPI t, 64                      # ecdsa_sign
    J.nz cr_type
cr_alg:
    SUB t, r8, r7
    CMPI t, 2
    J.c cr_store
    LDB t, r7, 0
    LDB r10, r7, 1
    ADDI r7, r7, 2
    CMPI t, 4
    J.nz cr_alg
    CMPI r10, 3                     # 0x0403: ecdsa_secp256r1_sha256
    J.nz cr_alg
    LDI r9, 3
cr_store:
    LDI t, HS_AT
    STB t, r9, HS_CREQ
    RET

# vec1, vec2: the vector with a 1- or 2-byte length at r3, before r2: r3 its first item, r4 its end
# (DECODE_ERROR if it does not fit). t changes.
vec1:
    CMP r3, r2
    J.z decode_error
    LDB t, r3, 0
    ADDI r3, r3, 1
    J vec_end
vec2:
    SUB t, r2, r3
    CMPI t, 2
    J.c decode_error
    LDH t, r3, 0
    ADDI r3, r3, 2
vec_end:
    SUB r4, r2, r3
    CMP r4, t
    J.c decode_error
    ADD r4, r3, t
    RET

# SERVER_HELLO_DONE (RFC 5246 7.4.5): r1, r2 its body, which is empty (DECODE_ERROR otherwise, as the
# software client's on_server_hello_done).
.entry SERVER_HELLO_DONE
    CMP r1, r2
    J.nz decode_error
    END
