# Subroutines shared by the programs (CALL/RET, 4 levels), and the error exits.

# (RX, RY) = K P, affine Montgomery, for the P of the cache entry; E = 0 if the result is O
comb:
    LDI QX, 0
    MOV QY, ONEP
    LDI E, 0                  # acc = O = (0 : 1 : 0)
    CNT.n 3 0
comb_loop:
    CALL pdbl
    comb_add TSEL
    DJNZ comb_loop
    CALL toaffine
    RET

# acc (QX : QY : E) = 2 acc, in place, by the complete doubling (Renes-Costello-Batina 2016,
# Algorithm 3, any a; b3 = 3b): 16 multiplications, O = (0 : Y : 0) stays O
pdbl:
    ADD Z1, B, B              # b3
    ADD Z1, Z1, B             # b3 = 3b
    MUL T0, QX, QX            # t0 = X^2
    MUL T1, QY, QY            # t1 = Y^2
    MUL T2, E, E              # t2 = Z^2
    MUL T3, QX, QY            # t3 = X Y
    ADD T3, T3, T3            # t3 = 2 X Y
    MUL T4, QY, E             # t4 = Y Z
    ADD T4, T4, T4            # t4 = 2 Y Z
    MUL E, QX, E              # Z3 = X Z
    ADD E, E, E               # Z3 = 2 X Z
    MUL QX, A, E              # X3 = a Z3
    MUL QY, Z1, T2            # Y3 = b3 t2
    ADD QY, QX, QY            # Y3 = X3 + Y3
    SUB QX, T1, QY            # X3 = t1 - Y3
    ADD QY, T1, QY            # Y3 = t1 + Y3
    MUL QY, QX, QY            # Y3 = X3 Y3
    MUL QX, T3, QX            # X3 = t3 X3
    MUL E, Z1, E              # Z3 = b3 Z3
    MUL T2, A, T2             # t2 = a t2
    SUB T3, T0, T2            # t3 = t0 - t2
    MUL T3, A, T3             # t3 = a t3
    ADD T3, T3, E             # t3 = t3 + Z3
    ADD E, T0, T0             # Z3 = 2 t0
    ADD T0, E, T0             # t0 = 3 t0
    ADD T0, T0, T2            # t0 = t0 + t2
    MUL T0, T0, T3            # t0 = t0 t3
    ADD QY, QY, T0            # Y3 = Y3 + t0
    MUL T0, T4, T3            # t0 = t4 t3
    SUB QX, QX, T0            # X3 = X3 - t0
    MUL E, T4, T1             # Z3 = t4 t1
    ADD E, E, E               # Z3 = 2 Z3
    ADD E, E, E               # Z3 = 4 t4 t1
    RET

# (X0 : Z0 : X1) = (QX : QY : E) + (RX, RY), the second point affine (a comb table's, never O):
# the complete mixed addition (Renes-Costello-Batina 2016, Algorithm 2, any a; b3 = 3b), 16
# multiplications; the inputs are kept
padd_mixed:
    ADD Z1, B, B              # b3
    ADD Z1, Z1, B             # b3 = 3b
    MUL T0, QX, RX            # t0 = X1 X2
    MUL T1, QY, RY            # t1 = Y1 Y2
    ADD T3, RX, RY            # t3 = X2 + Y2
    ADD T4, QX, QY            # t4 = X1 + Y1
    MUL T3, T3, T4            # t3 = t3 t4
    ADD T4, T0, T1            # t4 = t0 + t1
    SUB T3, T3, T4            # t3 = t3 - t4
    MUL T4, RX, E             # t4 = X2 Z1
    ADD T4, T4, QX            # t4 = t4 + X1
    MUL T5, RY, E             # t5 = Y2 Z1
    ADD T5, T5, QY            # t5 = t5 + Y1
    MUL X1, A, T4             # Z3 = a t4
    MUL X0, Z1, E             # X3 = b3 Z1
    ADD X1, X0, X1            # Z3 = X3 + Z3
    SUB X0, T1, X1            # X3 = t1 - Z3
    ADD X1, T1, X1            # Z3 = t1 + Z3
    MUL Z0, X0, X1            # Y3 = X3 Z3
    ADD T1, T0, T0            # t1 = 2 t0
    ADD T1, T1, T0            # t1 = 3 t0
    MUL T2, A, E              # t2 = a Z1
    MUL T4, Z1, T4            # t4 = b3 t4
    ADD T1, T1, T2            # t1 = t1 + t2
    SUB T2, T0, T2            # t2 = t0 - t2
    MUL T2, A, T2             # t2 = a t2
    ADD T4, T4, T2            # t4 = t4 + t2
    MUL T0, T1, T4            # t0 = t1 t4
    ADD Z0, Z0, T0            # Y3 = Y3 + t0
    MUL T0, T5, T4            # t0 = t5 t4
    MUL X0, T3, X0            # X3 = t3 X3
    SUB X0, X0, T0            # X3 = X3 - t0
    MUL T0, T3, T1            # t0 = t3 t1
    MUL X1, T5, X1            # Z3 = t5 Z3
    ADD X1, X1, T0            # Z3 = Z3 + t0
    RET

# (RX, RY) = affine (QX : QY : E), Montgomery domain (0, 0 for O)
toaffine:
    MOV T3, E
    CALL inv_p
    MUL RX, QX, T3
    MUL RY, QY, T3
    RET

# F = (Y^2 == X^3 + a X + b), Montgomery domain
oncurve:
    MUL T0, X, X
    ADD T0, T0, A
    MUL T0, T0, X
    ADD T0, T0, B
    MUL T1, Y, Y
    EQ T0, T1
    RET

# BAD_POINT for (QX, QY) = (0, 0) (load_q)
not_origin:
    ZF QX
    JNF not_origin_end
    ZF QY
    JF bad_point
not_origin_end:
    RET

# x-only Montgomery ladder over all DW*ndig_n bits of K: (X0:Z0) = K P, (X1:Z1) = (K+1) P with
# x(P) = X. Starts from R0 = O = (1:0), so no recoding: doubling keeps O, and the differential
# addition of O and P gives P because R1 - R0 = P throughout. The differential addition is the
# sum form, x(R0 + R1) = [2 (x0 + x1)(x0 x1 + a) + 4b] / (x0 - x1)^2 - x(P), which holds for
# x(P) = 0 too (the product form, x(R0 + R1) x(P) = ..., does not).
ladder:
    MOV X0, ONEP
    LDI Z0, 0
    MOV X1, X
    MOV Z1, ONEP
    CNT.n 0 0
ladder_loop:
    LBIT
    CSWAP X0, X1
    CSWAP Z0, Z1
    # (X1:Z1) = (X0:Z0) + (X1:Z1), difference P:
    # X3 = 2 (X0Z1 + X1Z0)(X0X1 + a Z0Z1) + 4b (Z0Z1)^2 - x (X0Z1 - X1Z0)^2, Z3 = (X0Z1 - X1Z0)^2
    MUL T0, X0, X1
    MUL T1, Z0, Z1
    MUL T2, X0, Z1
    MUL T3, X1, Z0
    MUL T4, A, T1
    ADD T4, T0, T4
    ADD T5, T2, T3
    ADD T5, T5, T5
    MUL T4, T4, T5
    MUL T1, T1, T1
    MUL T1, T1, B4
    ADD T4, T4, T1
    SUB T2, T2, T3
    MUL Z1, T2, T2
    MUL T2, Z1, X
    SUB X1, T4, T2
    # (X0:Z0) = 2 (X0:Z0): X = (XX - a ZZ)^2 - 8b X Z ZZ, Z = 4 Z (X (XX + a ZZ) + b Z ZZ)
    MUL T0, X0, X0
    MUL T1, Z0, Z0
    MUL T2, A, T1
    SUB T3, T0, T2
    MUL T3, T3, T3
    ADD T0, T0, T2
    MUL T0, T0, X0
    MUL T2, X0, Z0
    MUL T2, T2, T1
    MUL T4, T2, B8
    SUB X0, T3, T4
    MUL T1, T1, Z0
    MUL T1, T1, B
    ADD T0, T0, T1
    MUL T0, T0, Z0
    ADD T0, T0, T0
    ADD Z0, T0, T0
    DJNZ ladder_loop
    LFIN
    CSWAP X0, X1
    CSWAP Z0, Z1
    RET

# y-recovery (Okeya-Sakurai) with one inversion: (RX, RY) = K P affine, Montgomery domain.
# y = [2b Z0^2 Z1 + (a Z0 + x X0)(x Z0 + X0) Z1 - X1 (x Z0 - X0)^2] / (2y Z0^2 Z1),
# x = X0 (2y Z0 Z1) / (2y Z0^2 Z1). Z1 = 0 means K P = -P; Z0 = 0 (F on return) means O.
yrecover:
    MUL T0, X, Z0
    ADD T1, T0, X0
    SUB T0, T0, X0
    MUL T0, T0, T0
    MUL T0, T0, X1
    MUL T2, A, Z0
    MUL T3, X, X0
    ADD T2, T2, T3
    MUL T2, T2, T1
    MUL T2, T2, Z1
    SUB T2, T2, T0
    MUL T3, Z0, Z0
    MUL T3, T3, Z1
    MUL T1, T3, B
    ADD T1, T1, T1
    ADD T2, T2, T1
    ADD T4, Y, Y
    MUL T5, T4, Z0
    MUL T5, T5, Z1
    MUL T3, T5, Z0
    CALL inv_p
    MUL RY, T2, T3
    MUL T5, T5, T3
    MUL RX, X0, T5
    LDI T0, 0
    SUB T0, T0, Y
    ZF Z1
    SEL RX, X, RX
    SEL RY, T0, RY
    ZF Z0
    RET

# T0 = RX mod n for RX < p < R_n (CURVE checked p < R_n): (x R^2 / R) / R
xmodn:
    MUL.n T0, RX, RRN
    LDI T1, 1
    MUL.n T0, T0, T1
    RET

# (RX, RY) from the Montgomery domain (F is kept)
frommont:
    LDI T0, 1
    MUL RX, RX, T0
    MUL RY, RY, T0
    RET

# affine (RX, RY) or O (F) -> projective (RX : RY : T6), O = (0 : 1 : 0)
topoint:
    LDI T0, 0
    SEL T6, T0, ONEP
    SEL RY, ONEP, RY
    RET

# complete addition (Renes-Costello-Batina 2016, Algorithm 1, any a; b3 = 3b):
# (X0 : Z0 : X1) = (QX : QY : E) + (RX : RY : T6)
padd:
    ADD Z1, B, B
    ADD Z1, Z1, B             # b3
    MUL T0, QX, RX
    MUL T1, QY, RY
    MUL T2, E, T6
    ADD T3, QX, QY
    ADD T4, RX, RY
    MUL T3, T3, T4
    ADD T4, T0, T1
    SUB T3, T3, T4
    ADD T4, QX, E
    ADD T5, RX, T6
    MUL T4, T4, T5
    ADD T5, T0, T2
    SUB T4, T4, T5
    ADD T5, QY, E
    ADD X0, RY, T6
    MUL T5, T5, X0
    ADD X0, T1, T2
    SUB T5, T5, X0
    MUL X1, A, T4
    MUL X0, Z1, T2
    ADD X1, X0, X1
    SUB X0, T1, X1
    ADD X1, T1, X1
    MUL Z0, X0, X1
    ADD T1, T0, T0
    ADD T1, T1, T0
    MUL T2, A, T2
    MUL T4, Z1, T4
    ADD T1, T1, T2
    SUB T2, T0, T2
    MUL T2, A, T2
    ADD T4, T4, T2
    MUL T0, T1, T4
    ADD Z0, Z0, T0
    MUL T0, T5, T4
    MUL X0, T3, X0
    SUB X0, X0, T0
    MUL T0, T3, T1
    MUL X1, T5, X1
    ADD X1, X1, T0
    RET

# T3 = T3^(m-2) mod m_f (Fermat, square and multiply). The exponent is public (the modulus's), so the
# multiply runs on its one bits alone: the time depends on m, never on T3.
inv_p:
    LDI T0, 2
    LDI T1, 0
    SUB T0, T1, T0            # p - 2
    SCAL T0
    MOV T1, ONEP
    CNT 0 0
inv_p_loop:
    MUL T1, T1, T1
    KBIT
    JNF inv_p_next
    MUL T1, T1, T3
inv_p_next:
    DJNZ inv_p_loop
    MOV T3, T1
    RET

inv_n:
    LDI T0, 2
    LDI T1, 0
    SUB.n T0, T1, T0          # n - 2
    SCAL.n T0
    MOV T1, ONEN
    CNT.n 0 0
inv_n_loop:
    MUL.n T1, T1, T1
    KBIT
    JNF inv_n_next
    MUL.n T1, T1, T3
inv_n_next:
    DJNZ inv_n_loop
    MOV T3, T1
    RET

# the error exits: ERR ends the program with that status
bad_params:
    ERR BAD_PARAMS
bad_point:
    ERR BAD_POINT
bad_scalar:
    ERR BAD_SCALAR
