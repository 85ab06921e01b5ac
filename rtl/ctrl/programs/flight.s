# CLIENT_FLIGHT: the client's second flight (RFC 5246 7.3, RFC 6347 4.2.4), as the software client
# sends it after ServerHelloDone (sw/proto/tls_hs.c on_server_hello_done): Certificate when the
# server asked for one (CERTIFICATE_REQUEST), with the client's chain when one of its fits;
# ClientKeyExchange with ECDHE's k G; CertificateVerify, when the Certificate carries the chain,
# signed over the session hash; Finished. Each message carries its DTLS handshake header, its
# message_seq from the handshake's state, and goes into the transcript. Between them the program
# runs ECDHE against the server's point (HS_SP), the master secret with RFC 7627's session hash,
# and the keys into the AES key slots: the flight is all that comes out, with the write IVs. The
# ChangeCipherSpec record, which is no handshake message, and the records are the caller's: the
# flight's last 24 bytes are Finished, for epoch 1.

# CHAIN_CHECK's frame, which no program of the flight's uses, keeps the flight's state.
.equ FL_AT 0                        # where the next message goes
.equ FL_CH 2                        # the client's chain: certificate_list's entries
.equ FL_CHE 4
.equ FL_CS 6                        # the AES key slot for the client's write key
.equ FL_SS 8                        # and for the server's
.equ FL_OWN 10                      # 1: the Certificate carries the chain, CertificateVerify follows
.equ FL_OUT 12                      # the flight's first byte
.equ FL_MSG 14                      # the message being written

.equ SH_AT DIG                      # the session hash, then the hash Finished covers
.equ SIG_TMP REC_A                  # r || s from SIGN: 64 bytes over REC_A and REC, free meanwhile
.equ CKE_LEN 66                     # ClientKeyExchange's body: the point's length, 04, x, y
.equ FL_MAX 205                     # the flight's bytes beside the chain: Certificate's header and list
                                    # length 15, ClientKeyExchange 78, CertificateVerify 12 + 4 + 72 at
                                    # most, Finished 24

.equ HT_CERTIFICATE 11
.equ HT_CERT_VERIFY 15
.equ HT_CKE 16
.equ HT_FINISHED 20

# CLIENT_FLIGHT: r1 where the flight goes; r2, r3 the client's chain (its certificate_list entries,
# as CHAIN_CHECK takes them; none: r2 = r3); r4, r5 the AES key slots for the client's and the
# server's write keys (0..3, not the same one). The flight's span, with the chain's bytes and 205
# more, lies below the secret top, apart from the handshake's state and from the chain (BAD_INPUT
# otherwise). OUT MESSAGE: the flight; the IVs at HS_IV. ECDHE's, MASTER's, KEYS', SIGN's and
# FINISHED's refusals are its own.
.entry CLIENT_FLIGHT
    CALL client_flight
    END

client_flight:
    CMPI r4, 4
    J.nc bad_input
    CMPI r5, 4
    J.nc bad_input
    CMP r4, r5
    J.z bad_input
    MOV r13, r2
    MOV r14, r3
    CALL public
    SUB r6, r3, r2                  # the chain's bytes
    ADDI r7, r6, FL_MAX
    MOV r13, r1
    ADD r14, r1, r7
    J.c bad_input
    CALL state_apart
    ADD r14, r1, r7
    CMP r2, r3                      # (no chain: apart from anything)
    J.z fl_apart
    CMP r3, r1                      # the chain ends before the flight begins,
    J.be fl_apart
    CMP r14, r2                     # or begins after it ends
    J.a bad_input
fl_apart:
    LDI x, FRAME
    STH x, r1, FL_AT
    STH x, r1, FL_OUT
    STH x, r2, FL_CH
    STH x, r3, FL_CHE
    STH x, r4, FL_CS
    STH x, r5, FL_SS
    LDI t, HS_AT                    # the request's verdict: 0 none, 1 asked, 3 and ours fits
    LDB r8, t, HS_CREQ
    LDI r9, 0
    CMPI r8, 3
    J.nz fl_own
    CMPI r6, 0
    J.z fl_own
    LDI r9, 1
fl_own:
    STH x, r9, FL_OWN
    CMPI r8, 0
    J.z fl_cke

    # Certificate: certificate_list, the chain or empty
    LDI n, 0
    CMPI r9, 0
    J.z fl_cert
    MOV n, r6
fl_cert:
    ADDI r10, n, 3
    LDI t, HT_CERTIFICATE
    CALL msg_head
    LDI t, 0
    STB r8, t, 0
    STH r8, n, 1
    ADDI r8, r8, 3
    LDH r2, x, FL_CH
    COPY r8, r2, n
    ADD r8, r8, n
    CALL msg_end

    # ClientKeyExchange: k G of ECDHE's k, against the server's point
fl_cke:
    LDI r10, CKE_LEN
    LDI t, HT_CKE
    CALL msg_head
    LDI t, 65
    STB r8, t, 0
    LDI t, 4
    STB r8, t, 1
    ADDI r3, r8, 2
    LDI r2, HS_AT + HS_SP
    CALL ecdhe
    LDI x, FRAME
    LDH r8, x, FL_MSG
    ADDI r8, r8, 12 + CKE_LEN
    CALL msg_end

    # The session hash (through ClientKeyExchange), the master secret, the keys
    LDI r1, SH_AT
    CALL ts_hash
    LDI r1, SH_AT
    LDI r3, 1
    CALL master
    LDI r1, HS_AT + HS_CR
    LDI r2, HS_AT + HS_SR
    LDI x, FRAME
    LDH r3, x, FL_CS
    LDH r4, x, FL_SS
    LDI r5, HS_AT + HS_IV
    CALL keys

    # CertificateVerify: ecdsa_secp256r1_sha256 over the session hash, r and s in DER
    LDI x, FRAME
    LDH t, x, FL_OWN
    CMPI t, 0
    J.z fl_fin
    LDI r1, SH_AT
    LDI r3, SIG_TMP
    CALL sign
    LDI x, FRAME
    LDH r10, x, FL_AT
    ADDI r10, r10, 12 + 4 + 2       # the INTEGERs, after the algorithm, the length, the SEQUENCE's head
    LDI r9, SIG_TMP
    CALL der_put
    LDI r9, SIG_TMP + 32
    CALL der_put
    LDH r13, x, FL_AT
    ADDI r13, r13, 12               # the body: its length is the DER's and 4
    SUB r10, r10, r13
    SUBI r12, r10, 6                # the SEQUENCE's contents
    LDI t, 0x30
    STB r13, t, 4 + 0
    STB r13, r12, 4 + 1
    ADDI r12, r12, 2
    STH r13, r12, 2
    CCOPY r13, SIG_P256
    LDI t, HT_CERT_VERIFY
    CALL msg_head
    ADD r8, r8, r10
    CALL msg_end

    # Finished: the client's verify_data over the transcript through CertificateVerify
fl_fin:
    LDI r1, SH_AT
    CALL ts_hash
    LDI r10, 12
    LDI t, HT_FINISHED
    CALL msg_head
    MOV r3, r8
    LDI r1, SH_AT
    LDI r2, 0
    CALL finished
    LDI x, FRAME
    LDH r8, x, FL_MSG
    ADDI r8, r8, 12 + 12
    CALL msg_end
    LDI x, FRAME
    LDH r1, x, FL_OUT
    LDH r2, x, FL_AT
    SUB r2, r2, r1
    OUT MESSAGE, r1, r2
    RET

# msg_head: the DTLS handshake header (RFC 6347 4.2.2) of a message of type t and r10 body bytes at
# FL_AT, whole (fragment_offset 0), with the next message_seq; r8 = its body, x = FRAME. t, r7,
# r11 change.
msg_head:
    LDI x, FRAME
    LDH r8, x, FL_AT
    STH x, r8, FL_MSG
    STB r8, t, 0
    LDI t, 0
    STB r8, t, 1
    STH r8, r10, 2
    LDI r11, HS_AT
    LDH r7, r11, HS_MSEQ
    STH r8, r7, 4
    ADDI r7, r7, 1
    STH r11, r7, HS_MSEQ
    STB r8, t, 6
    STH r8, t, 7
    STB r8, t, 9
    STH r8, r10, 10
    ADDI r8, r8, 12
    RET

# msg_end: the message from FL_MSG to r8 into the transcript; FL_AT = r8. r1..r11, t change.
msg_end:
    LDI x, FRAME
    STH x, r8, FL_AT
    LDH r1, x, FL_MSG
    MOV r2, r8
    CALL ts_add
    RET

# der_put: the 32-byte number at r9 (not 0: a signature's half) as a DER INTEGER at r10, minimal
# and non-negative; r10 = its end. t, r9, r11, r12 change.
der_put:
    LDI r11, 32
dput_skip:
    LDB t, r9, 0
    CMPI t, 0
    J.nz dput_head
    CMPI r11, 1
    J.z dput_head
    ADDI r9, r9, 1
    SUBI r11, r11, 1
    J dput_skip
dput_head:
    LDI r12, 2
    STB r10, r12, 0
    CMPI t, 0x80
    J.c dput_short
    ADDI r12, r11, 1                # a sign byte first
    STB r10, r12, 1
    LDI t, 0
    STB r10, t, 2
    ADDI r10, r10, 3
    J dput_copy
dput_short:
    STB r10, r11, 1
    ADDI r10, r10, 2
dput_copy:
    COPY r10, r9, r11
    ADD r10, r10, r11
    RET
