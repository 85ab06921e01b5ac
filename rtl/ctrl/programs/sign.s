# SIGN: CertificateVerify's ECDSA signature (P-256, RFC 4492 / RFC 8422 over the SHA-256 of the
# handshake messages) with the client's key at CK_AT, which the bus writes and never reads. Its nonce
# is RFC 6979's (3.2): an HMAC_DRBG instantiated from int2octets(x) || bits2octets(h), the same
# construction as the engine's DRBG on a state of its own (drbg.s: dinit, dupdate, gen). pk signs
# (ECDSA_SIGN, on G's table in cache entry 0, with the curve checked to be P-256 first). The bus
# loads pk's tables, and a table of another point would give another r for RFC 6979's k, which is
# fixed by (x, h): two such signatures of one hash give x away. pk's ECDSA_SIGN refuses a table
# whose point is not the curve's G (BAD_SEQ), and p256_check has found G to be P-256's, so such a
# table is ENGINE and nothing is written. The nonce's state, the seed (which holds x) and k are
# zeroed before the signature leaves, and on every refusal after k was made.

.equ RS_AT WORK                     # RFC 6979's HMAC_DRBG state (65 bytes)
.equ SEED6979 WORK+0x48             # int2octets(x) || bits2octets(h), 64 bytes
.equ WORK_USED 0x88                 # SEED6979's end

.const ZERO32 x"0000000000000000000000000000000000000000000000000000000000000000"

# SIGN: r1 the hash (32 bytes), r3 where r || s goes (64 bytes), both below the secret top
# (BAD_INPUT otherwise, as for no key at CK_AT: 0, or n or more); pk without P-256, or a table in
# entry 0 of another point than G, is ENGINE.
.entry SIGN
    CALL sign
    END

sign:
    LDI n, 32
    MOV r13, r1
    CALL public_n
    LDI n, 64
    MOV r13, r3
    CALL public_n
    LDI t, KF
    STH t, r3, 0
    CALL p256_check                 # r6 = 32
    LDI r7, SEED6979 + 32           # bits2octets(h): h mod n
    COPY r7, r1, r6
    CALL reduce_n
    LDI r7, SEED6979                # int2octets(x)
    LDI t, CK_AT
    COPY r7, t, r6
    LDI sb, RS_AT
    CALL dinit
    LDI r3, SEED6979
    LDI r4, SEED6979 + 64
    CALL dupdate
sign_k:
    LDI r3, K_AT                    # a candidate k; the state updated for the next one
    LDI r6, 32
    CALL gen
    LDI r6, 32
    LDI t, CHK
    CCOPY t, P256_N
    LDI r7, K_AT
    MCMP r6, r7, t                  # 0 < k < n, each compare in fixed cycles (a retry, ~2^-32, shows)
    J.nc sign_k
    MEQ r7, r6, ZERO32
    J.z sign_k
    PKW PK_SLOT_K, r7, r6
    LDI t, CK_AT
    PKW PK_SLOT_D, t, r6
    LDI t, SEED6979 + 32
    PKW PK_SLOT_E, t, r6
    LDI r7, WORK
    LDI r8, WORK_USED
    CALL zero                       # the nonce's state and its seed, x among it
    PKRUN pks, PK_PROG_ECDSA_SIGN
    J.z sign_r
    MOV r9, pks
    CALL sign_wipe
    CMPI r9, PK_ST_BAD_SCALAR
    J.z bad_input
    ERR ENGINE
sign_r:
    LDI r7, K_AT
    LDI r8, 32
    CALL zero                       # k: used
    LDI t, KF
    LDH r3, t, 0
    PKR PK_SLOT_RX, r3
    ADDI r3, r3, 32
    PKR PK_SLOT_RY, r3
    RET

# sign_wipe: k and the work space (the nonce's state, its seed) zeroes, for a signature
# refused. t, r7, r8 change.
sign_wipe:
    LDI r7, K_AT
    LDI r8, 32
    CALL zero
    LDI r7, WORK
    LDI r8, WORK_USED
    CALL zero
    RET

# reduce_n: the 32-byte number at r7 (public: a hash) less n if it is n or more. r8..r12, t change.
reduce_n:
    LDI t, CHK
    CCOPY t, P256_N
    LDI r8, 32
    MCMP r8, r7, t
    J.c reduce_done
    LDI r9, 31                      # from the last byte: x - n - borrow
    LDI r10, 0                      # the borrow
reduce_byte:
    ADD r11, r7, r9
    LDB r12, r11, 0
    ADDI r12, r12, 0x100
    ADD r8, t, r9
    LDB r8, r8, 0
    SUB r12, r12, r8
    SUB r12, r12, r10
    LDI r10, 0
    CMPI r12, 0x100
    J.nc reduce_store
    LDI r10, 1
reduce_store:
    STB r11, r12, 0
    SUBI r9, r9, 1
    J.nc reduce_byte
reduce_done:
    RET
