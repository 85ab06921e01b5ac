# PADD: (RX, RY) = (QX, QY) + (RX, RY), complete (P + P, P + (-P) included)
.entry PADD
    NEED CURVE
    load_q
    MOV T6, QX                # second point: validate it through load_q too
    MOV T5, QY
    MOV QX, RX
    MOV QY, RY
    load_q
    MOV RX, X
    MOV RY, Y
    MUL QX, T6, RRP
    MUL QY, T5, RRP
    MOV E, ONEP
    MOV T6, ONEP
    CALL padd
    MOV T3, X1
    CALL inv_p
    MUL RX, X0, T3
    MUL RY, Z0, T3
    LDI T6, 1
    MUL RX, RX, T6
    MUL RY, RY, T6
    ZF X1
    STF INFINITY
    END
