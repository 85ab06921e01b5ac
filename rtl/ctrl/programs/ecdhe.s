# ECDHE: the client's half of TLS's ECDHE key exchange over P-256 (RFC 8422), on the pk IP: its
# public key k G and the premaster secret, the x coordinate of k Q (RFC 8422 5.10). k lies at K_AT and
# the premaster goes to PMS_AT, both in the window's secret top, which the bus writes but never reads.
#
# The bus loads pk's curve, so the program checks that pk holds P-256 before k goes in
# (p256_check): p, n, and a, b and G in the Montgomery domain CURVE put them in, with the curve
# loaded (FIELD and CURVE made the Montgomery constants from p and b after the last write of a
# curve slot: pk forgets a curve whose slots are written). A curve of the bus's making would give
# k away in k G. G's table (cache entry 0) must be G's: pk's ECSM_COMB refuses another point's
# there (BAD_SEQ: ENGINE here), which would make "k G" k Q for the peer's Q, the premaster in the
# clear (a table pk's PRECOMP makes of any point the bus gives it). k is used once: the program zeroes K_AT as soon as
# pk holds it, so a k partly rewritten by the bus and run again shows nothing of the first one. The
# engine clears pk's operand slots after the program, so neither k nor k Q stays there.

.const P256_P x"ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"
.const P256_N x"ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"
.const P256_A x"ffffffff00000001000000000000000000000000fffffffffffffffffffffffc"
.const P256_B x"5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b"
.const P256_GX x"6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
.const P256_GY x"4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"
# a, b and G as pk holds them after CURVE: in its Montgomery domain, v R mod p with R = 2^256
.const P256_A_R x"fffffffc00000004000000000000000000000003fffffffffffffffffffffffc"
.const P256_B_R x"dc30061d04874834e5a220abf7212ed6acf005cd78843090d89cdf6229c4bddf"
.const P256_GX_R x"18905f76a53755c679fb732b7762251075ba95fc5fedb60179e730d418a9143c"
.const P256_GY_R x"8571ff1825885d85d2e88688dd21f3258b4ab8e4ba19e45cddf25357ce95560a"

.equ CHK SECRET_BASE                # 32 bytes of scratch (HMAC's, unused meanwhile) for pk's answers

# pk_is: the 32 bytes pk's slot SLOT holds are the constant WANT (ENGINE otherwise). t, r6 = 32.
.macro pk_is slot, want
    LDI t, CHK
    PKR \slot, t
    MEQ t, r6, \want
    J.nz not_p256
.endm

# pk_put: pk's slot SLOT = the constant WANT, through CHK. t, r6 = 32.
.macro pk_put slot, want
    LDI t, CHK
    CCOPY t, \want
    PKW \slot, t, r6
.endm

# ECDHE: r2 the peer's point x || y (64 bytes), r3 where k G goes (x || y, 64 bytes), both below the
# secret top (BAD_INPUT otherwise). A k that is 0 modulo n is BAD_INPUT; a peer's point off the curve
# is INVALID_POINT; pk without P-256 is ENGINE.
.entry ECDHE
    CALL ecdhe
    END

ecdhe:
    LDI n, 64
    MOV r13, r2
    CALL public_n
    MOV r13, r3
    CALL public_n
    CALL p256_check
    LDI t, KF                       # k from the DRBG into K_AT (which keeps no registers)
    STH t, r2, 0
    STH t, r3, 2
    LDI r3, K_AT
    LDI r6, 32
    CALL drbg_draw
    LDI t, KF
    LDH r2, t, 0
    LDH r3, t, 2
    LDI r6, 32
    LDI r1, K_AT                    # k into pk, once: then K_AT is zeroes
    PKW PK_SLOT_K, r1, r6
    LDI r7, K_AT
    LDI r8, 32
    CALL zero
    PKRUN pks, PK_PROG_ECSM_COMB    # k G, on G's table (entry 0); K kept
    J.z ecdhe_pub
    CMPI pks, PK_ST_INFINITY
    J.z bad_input
    ERR ENGINE
ecdhe_pub:
    PKR PK_SLOT_RX, r3
    ADDI t, r3, 32
    PKR PK_SLOT_RY, t
    PKW PK_SLOT_QX, r2, r6
    ADDI t, r2, 32
    PKW PK_SLOT_QY, t, r6
    PKRUN pks, PK_PROG_ECSM         # k Q, Q checked first
    J.z ecdhe_shared
    CMPI pks, PK_ST_BAD_POINT
    J.z invalid_point
    CMPI pks, PK_ST_INFINITY
    J.z invalid_point
    ERR ENGINE
ecdhe_shared:
    LDI r5, PMS_AT
    PKR PK_SLOT_RX, r5
    RET
invalid_point:
    ERR INVALID_POINT

# P256_LOAD: P-256 into the pk IP from the constant ROM, as the driver's se_drv_pk_load_curve_g loads
# a curve: p, n, a, b, G into their slots, FIELD, ORDER, CURVE, then G's comb table into cache entry 0
# (PRECOMP). For a firmware whose pk only the controller uses (HW mode); ENGINE if pk refuses.
.entry P256_LOAD
    LDI r6, 32
    pk_put PK_SLOT_P, P256_P
    pk_put PK_SLOT_N, P256_N
    pk_put PK_SLOT_A, P256_A
    pk_put PK_SLOT_B, P256_B
    pk_put PK_SLOT_GX, P256_GX
    pk_put PK_SLOT_GY, P256_GY
    PKRUN pks, PK_PROG_FIELD
    J.nz not_p256
    PKRUN pks, PK_PROG_ORDER
    J.nz not_p256
    PKRUN pks, PK_PROG_CURVE
    J.nz not_p256
    pk_put PK_SLOT_QX, P256_GX
    pk_put PK_SLOT_QY, P256_GY
    PKRUN pks, PK_PROG_PRECOMP      # (entry 0)
    J.nz not_p256
    END

# p256_check: pk holds P-256 (ENGINE otherwise): p and n as the constants; a, b and G as CURVE
# leaves them (pk forgets a curve when the bus writes any of its slots, and a second CURVE finds
# them converted already and refuses); and the curve loaded, which VALIDATE of G needs.
# r6 = 32; t, pks change.
p256_check:
    LDI r6, 32
    pk_is PK_SLOT_P, P256_P
    pk_is PK_SLOT_N, P256_N
    pk_is PK_SLOT_A, P256_A_R
    pk_is PK_SLOT_B, P256_B_R
    pk_is PK_SLOT_GX, P256_GX_R
    pk_is PK_SLOT_GY, P256_GY_R
    pk_put PK_SLOT_QX, P256_GX
    pk_put PK_SLOT_QY, P256_GY
    PKRUN pks, PK_PROG_VALIDATE
    J.nz not_p256
    RET
not_p256:
    ERR ENGINE
