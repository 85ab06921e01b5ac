# The fixed-base comb: PRECOMP fills a cache entry, ECSM_COMB uses it (lib.s: comb).

# one entry of the table: \sum = \p + \q, affine (comb points T1..T7 of the cache entry)
.macro pre_add p, q, sum
    TLD QX, QY, \p
    MOV E, ONEP
    TLD RX, RY, \q
    CALL padd_mixed
    MOV QX, X0
    MOV QY, Z0
    MOV E, X1
    CALL toaffine
    TST \sum, RX, RY
.endm

# PRECOMP: cache entry CMD.SLOT = the comb table of (QX, QY): T[i] = sum of the 2^(jC) P for
# the bits j of i (i = 1..7, C = ceil(L/3) columns), affine, Montgomery domain
.entry PRECOMP
    NEED CURVE ENTRY
    load_q
    TST T1, X, Y              # T1 = P
    TLD QX, QY, T1            # T2 = 2^C T1
    MOV E, ONEP
    CNT.n 3 0
pre_dbl1:
    CALL pdbl
    DJNZ pre_dbl1
    CALL toaffine
    TST T2, RX, RY
    TLD QX, QY, T2            # T4 = 2^C T2
    MOV E, ONEP
    CNT.n 3 0
pre_dbl3:
    CALL pdbl
    DJNZ pre_dbl3
    CALL toaffine
    TST T4, RX, RY
    pre_add T1, T2, T3
    pre_add T1, T4, T5
    pre_add T2, T4, T6
    pre_add T3, T4, T7
    MARK CACHED
    END

# ECSM_COMB: (RX, RY) = K * P for the P cached in entry CMD.SLOT: fixed-base comb, one
# doubling and one addition per column, both complete; column digit 0 adds nothing (SEL). Entry 0
# must hold G's table, as for every program that reads it (BAD_SEQ otherwise): k G is a key's
# public half, and its callers run it on entry 0.
.entry ECSM_COMB
    NEED CURVE ENTRY CACHED GCACHED
    g_entry TLD.g
    SCAL.n K
    JF bad_scalar             # K >= 2^(DW ndig_n): ends at once, as the status says
    CALL comb
    CALL frommont
    ZF E
    STF INFINITY
    END
