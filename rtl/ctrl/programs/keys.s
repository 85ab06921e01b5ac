# The TLS 1.2 key schedule (RFC 5246 8.1, 6.3, 7.4.9) over ECDHE's premaster, all of it in the
# window's secret top: MASTER makes the master secret, KEYS the key block, whose two write keys go
# into the AES IP's key slots (AESK) and never into the window's readable part, and FINISHED the
# Finished messages' verify_data. The labels are the ROM's: a caller names the randoms, the
# transcript's hash and where the public results go, nothing else. So the only PRF outputs of the
# master secret that leave are a Finished's 12 bytes and the two implicit nonces (the write IVs,
# which RFC 5116's nonces need not keep secret). The premaster is zeroed once the master secret is
# made, and the key block once its keys are in the slots: a bus that overwrites part of a secret and
# runs a program again finds nothing of the rest left to search for.

.const L_MASTER "master secret"
.const L_EMS "extended master secret"
.const L_KEYS "key expansion"
.const L_CLIENT "client finished"
.const L_SERVER "server finished"

.equ KB_LEN 40                      # client_write_key, server_write_key (16 each), client_write_IV, server_write_IV (4 each)

# MASTER: r3 0: r1 client_random, r2 server_random (32 bytes each): MS_AT = PRF(PMS_AT, "master
# secret", client_random || server_random); r3 1: r1 the session hash (32 bytes, RFC 7627: the
# transcript's hash through ClientKeyExchange): MS_AT = PRF(PMS_AT, "extended master secret",
# session_hash). 48 bytes; then PMS_AT is zeroes. Spans below the secret top (BAD_INPUT otherwise, as
# for r3 past 1).
.entry MASTER
    CALL master
    END

master:
    CMPI r3, 2
    J.nc bad_input
    CMPI r3, 1
    J.z master_ems
    CALL randoms
    MOV r10, r1
    MOV r11, r2
    LDI r3, LS_AT
    CCOPY r3, L_MASTER
    LDI r4, LS_AT + 13
    CALL seed2
    J master_prf
master_ems:
    LDI n, 32
    MOV r13, r1
    CALL public_n
    LDI r3, LS_AT
    CCOPY r3, L_EMS
    LDI r4, LS_AT + 22
    LDI r12, 32
    COPY r4, r1, r12
    ADD r4, r4, r12
master_prf:
    LDI r1, PMS_AT
    LDI r2, PMS_AT + 32
    LDI r5, MS_AT
    LDI r6, 48
    CALL prf
    LDI r7, PMS_AT
    LDI r8, 32
    CALL zero
    RET

# KEYS: r1 client_random, r2 server_random (32 bytes each); r3 the AES key slot for the client's write
# key, r4 the server's (0..3, not the same one); r5 where the IVs go, client_write_IV ||
# server_write_IV (8 bytes). The key block PRF(MS_AT, "key expansion", server_random ||
# client_random) for an AES-128 AEAD suite (CCM_8, GCM: no MAC keys); the spans below the secret top
# (BAD_INPUT otherwise, as for the slots).
.entry KEYS
    CALL keys
    END

keys:
    CMPI r3, 4
    J.nc bad_input
    CMPI r4, 4
    J.nc bad_input
    CMP r3, r4
    J.z bad_input
    LDI t, KF
    STH t, r3, 0
    STH t, r4, 2
    STH t, r5, 4
    CALL randoms
    LDI n, 8
    MOV r13, r5
    CALL public_n
    MOV r10, r2
    MOV r11, r1
    LDI r3, LS_AT
    CCOPY r3, L_KEYS
    LDI r4, LS_AT + 13
    CALL seed2
    LDI r1, MS_AT
    LDI r2, MS_AT + 48
    LDI r5, KB_AT
    LDI r6, KB_LEN
    CALL prf
    LDI t, KF
    LDH r3, t, 0
    LDH r4, t, 2
    LDH r5, t, 4
    LDI t, KB_AT
    AESK r3, t
    LDI t, KB_AT + 16
    AESK r4, t
    LDI t, KB_AT + 32
    LDI r6, 8
    COPY r5, t, r6
    LDI r7, KB_AT
    LDI r8, KB_LEN
    CALL zero
    RET

# FINISHED: r1 the transcript's hash (32 bytes); r2 0: the client's Finished, its verify_data (12
# bytes) to r3; 1: the server's, whose verify_data at r3 is checked (BAD_FINISHED if it is not
# PRF(MS_AT, "server finished", hash), compared in constant time). Spans below the secret top
# (BAD_INPUT otherwise, as for r2 past 1).
.entry FINISHED
    CALL finished
    END

finished:
    CMPI r2, 2
    J.nc bad_input
    LDI n, 32
    MOV r13, r1
    CALL public_n
    LDI n, 12
    MOV r13, r3
    CALL public_n
    LDI t, KF
    STH t, r3, 0
    STH t, r2, 2
    MOV r7, r2
    MOV r10, r1
    LDI r3, LS_AT
    CMPI r7, 0
    J.nz fin_server
    CCOPY r3, L_CLIENT
    J fin_seed
fin_server:
    CCOPY r3, L_SERVER
fin_seed:
    LDI r4, LS_AT + 15
    LDI r12, 32
    COPY r4, r10, r12
    ADD r4, r4, r12
    LDI r1, MS_AT
    LDI r2, MS_AT + 48
    LDI r5, VD_AT
    LDI r6, 12
    CALL prf
    LDI t, KF
    LDH r3, t, 0
    LDH r7, t, 2
    LDI t, VD_AT
    LDI r6, 12
    CMPI r7, 0
    J.nz fin_check
    COPY r3, t, r6
    RET
fin_check:
    MCMP r6, t, r3
    J.nz bad_finished
    RET
bad_finished:
    MOV t, t                        # the cycle of the match's RET: the verdict comes as late either way
    ERR BAD_FINISHED

# randoms: r1 and r2 each name 32 bytes below the secret top (BAD_INPUT otherwise). n, r13, r14 change.
randoms:
    LDI n, 32
    MOV r13, r1
    CALL public_n
    MOV r13, r2
    CALL public_n
    RET

# seed2: the 32 bytes at r10, then the 32 at r11, copied to r4 on; r4 = their end. r12 changes.
seed2:
    LDI r12, 32
    COPY r4, r10, r12
    ADD r4, r4, r12
    COPY r4, r11, r12
    ADD r4, r4, r12
    RET
