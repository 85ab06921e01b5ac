# Scalar multiplication on the x-only ladder (lib.s: ladder, yrecover).

# ECSM: (RX, RY) = K * (QX, QY); INFINITY if the result is O
.entry ECSM
    NEED CURVE
    load_q
    JMP ecsm_common

# ECSM_G: (RX, RY) = K * G
.entry ECSM_G
    NEED CURVE
    MOV X, GX
    MOV Y, GY
ecsm_common:
    SCAL.n K
    JF bad_scalar             # K >= 2^(DW ndig_n): ends at once, as the status says
    CALL ladder
    CALL yrecover
    CALL frommont
    STF INFINITY
    END
