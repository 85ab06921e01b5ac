# X25519 (RFC 7748) on the field p = 2^255 - 19 (FIELD first): RX = X25519(K, QX)
.entry X25519
    NEED FIELD
    MUL X, QX, RRP            # u < 2^255 < R: reduced on the way in
    LDI T6, 121665
    MUL T6, T6, RRP           # a24
    MOV X0, ONEP
    LDI Z0, 0
    MOV X1, X
    MOV Z1, ONEP
    SCAL K
    CNT 2 254
x25519_loop:
    LBIT
    CSWAP X0, X1
    CSWAP Z0, Z1
    ADD T0, X0, Z0            # A
    MUL T1, T0, T0            # AA
    SUB T2, X0, Z0            # B
    MUL T3, T2, T2            # BB
    SUB T4, T1, T3            # E
    ADD T5, X1, Z1            # C
    SUB Y, X1, Z1             # D
    MUL Y, Y, T0              # DA
    MUL T5, T5, T2            # CB
    ADD T0, Y, T5
    MUL X1, T0, T0            # x3 = (DA + CB)^2
    SUB T0, Y, T5
    MUL T0, T0, T0
    MUL Z1, T0, X             # z3 = x1 (DA - CB)^2
    MUL X0, T1, T3            # x2 = AA BB
    MUL T0, T6, T4
    ADD T0, T1, T0
    MUL Z0, T4, T0            # z2 = E (AA + a24 E)
    DJNZ x25519_loop
    LFIN
    CSWAP X0, X1
    CSWAP Z0, Z1
    MOV T3, Z0
    CALL inv_p
    MUL RX, X0, T3
    LDI T6, 1
    MUL RX, RX, T6
    END
