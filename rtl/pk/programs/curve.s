# Loading a curve: FIELD, ORDER, CURVE; and VALIDATE, a point of it.

# FIELD / ORDER: a modulus, its R^2 (2*DW*ndig modular doublings of 1) and R
.entry FIELD
    SETMOD P
    JF bad_params
    LDI RRP, 1
    CNT 1 0                   # ctr = 2 DW ndig_p - 1
FIELD_rr:
    ADD RRP, RRP, RRP
    DJNZ FIELD_rr
    LDI T0, 1
    MUL ONEP, T0, RRP
    MARK FIELD
    END

.entry ORDER
    SETMOD.n N
    JF bad_params
    LDI RRN, 1
    CNT.n 1 0
ORDER_rr:
    ADD.n RRN, RRN, RRN
    DJNZ ORDER_rr
    LDI T0, 1
    MUL.n ONEN, T0, RRN
    MARK ORDER
    END

# CURVE: a, b, G into the Montgomery domain, G on the curve
.entry CURVE
    NEED FIELD ORDER
    UNMARK CURVE              # A, B, G are converted in place: a second CURVE must not pass
    SCAL.n P                  # x mod n by Montgomery products needs p < R_n
    JF bad_params
    LTM A
    JNF bad_params
    LTM B
    JNF bad_params
    LTM GX
    JNF bad_params
    LTM GY
    JNF bad_params
    MUL A, A, RRP
    MUL B, B, RRP
    MUL GX, GX, RRP
    MUL GY, GY, RRP
    ADD B4, B, B
    ADD B4, B4, B4
    ADD B8, B4, B4
    MOV X, GX
    MOV Y, GY
    CALL oncurve
    JNF bad_params
    MARK CURVE
    END

# VALIDATE: (QX, QY) is a point of the curve (BAD_POINT otherwise)
.entry VALIDATE
    NEED CURVE
    load_q
    END
