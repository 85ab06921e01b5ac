# ECDSA: sign, verify, and verify with a cached key (the joint comb).

# ECDSA_SIGN: r = x(kG) mod n, s = k^-1 (e + r d) mod n into (RX, RY)
.entry ECDSA_SIGN
    NEED CURVE ENTRY CACHED   # the cache entry holds G's table
    g_entry TLD
    ZF K                      # k and d in [1, n-1]
    JF bad_scalar
    LTM.n K
    JNF bad_scalar
    ZF D
    JF bad_scalar
    LTM.n D
    JNF bad_scalar
    MOV X, E                  # e (the comb works in E)
    SCAL.n K
    CALL comb                 # k G
    CALL frommont
    CALL xmodn                # r = x mod n
    MOV RX, T0
    ZF RX
    STF RETRY
    MUL.n T1, RX, RRN         # r R
    MUL.n T1, T1, D           # r d
    LDI T6, 0
    ADD.n T2, X, T6           # e mod n (e < 2^bitlen(n) < 2n)
    ADD.n T2, T1, T2          # e + r d (T2: inv_n works in T0, T1, T3)
    MUL.n T3, K, RRN          # k R
    CALL inv_n                # k^-1 R
    MUL.n RY, T3, T2          # s = k^-1 (e + r d)
    ZF RY
    STF RETRY
    END

# r, s in [1, n-1] (VERIFY_FAIL otherwise); X, Y = Q (Montgomery), validated
.macro verify_begin
    ZF RX
    JF verify_fail
    LTM.n RX
    JNF verify_fail
    ZF RY
    JF verify_fail
    LTM.n RY
    JNF verify_fail
    load_q
.endm

# K = r; D = u1 = e w, \u2 = u2 = r w (w = s^-1 mod n)
.macro verify_scalars u2
    MOV K, RX
    MUL.n T3, RY, RRN         # s R
    CALL inv_n                # w R = s^-1 R
    LDI T6, 0
    ADD.n T2, E, T6           # e mod n
    MUL.n D, T2, T3           # u1 = e w
    MUL.n \u2, RX, T3         # u2 = r w
.endm

# OK if the x of (\x : . : \z), affine, mod n is r (in K)
.macro verify_end x, z
    ZF \z
    JF verify_fail
    MOV T3, \z
    CALL inv_p
    MUL RX, \x, T3
    LDI T6, 1
    MUL RX, RX, T6            # x, plain
    CALL xmodn
    EQ T0, K
    JNF verify_fail
    END
.endm

# ECDSA_VERIFY: OK or VERIFY_FAIL for (QX, QY), e = E, r = RX, s = RY
.entry ECDSA_VERIFY
    NEED CURVE ENTRY CACHED   # the cache entry holds G's table (u1 G by the comb)
    g_entry TLD
    verify_begin
    verify_scalars E
    SCAL.n E
    CALL ladder               # u2 Q
    CALL yrecover
    CALL topoint
    MOV X, RX                 # u2 Q = (X : Y : D): slots the comb leaves alone
    MOV Y, RY
    SCAL.n D
    MOV D, T6
    CALL comb                 # u1 G, affine; E = 0 if it is O (u1 = 0)
    ZF E
    CALL topoint              # (RX : RY : T6)
    MOV QX, X
    MOV QY, Y
    MOV E, D
    CALL padd                 # (X0 : Z0 : X1) = (QX : QY : E) + (RX : RY : T6)
    verify_end X0, X1
verify_fail:
    ERR VERIFY_FAIL

# ECDSA_VERIFY_COMB: ECDSA_VERIFY for the Q whose table is in cache entry CMD.SLOT (PRECOMP),
# G's in entry 0: one joint comb, u1 G + u2 Q, a doubling and two additions per column
.entry ECDSA_VERIFY_COMB
    NEED CURVE ENTRY CACHED GCACHED
    g_entry TLD.g             # entry 0 holds G's table
    verify_begin
    TLD T4, T5, T1            # Q must be the entry's point
    EQ X, T4
    JNF wrong_entry
    EQ Y, T5
    JNF wrong_entry
    verify_scalars X          # D and X: slots the comb leaves alone
    LDI QX, 0
    MOV QY, ONEP
    LDI E, 0                  # acc = O = (0 : 1 : 0)
    CNT.n 3 0
joint_loop:
    CALL pdbl
    SCAL.n D                  # + T_u1[column] of G's table
    comb_add TSEL.g
    SCAL.n X                  # + T_u2[column] of Q's
    comb_add TSEL
    DJNZ joint_loop
    verify_end QX, E          # E = 0: u1 G + u2 Q = O
wrong_entry:
    ERR BAD_SEQ
