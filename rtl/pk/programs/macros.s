# Macros shared by the programs (rtl/pk/asm.py expands them; the listing shows the expansion).
# `.macro name p, q` ... `.endm` defines one; `\p` in its body is the argument.

# (QX, QY) -> (X, Y) in the Montgomery domain, or BAD_POINT: coordinates < p, on the curve, not
# (0, 0), pk's O, which lies on a curve with b = 0 (the library refuses it too: sw/crypto/ecp.c)
.macro load_q
    LTM QX
    JNF bad_point
    LTM QY
    JNF bad_point
    CALL not_origin
    MUL X, QX, RRP
    MUL Y, QY, RRP
    CALL oncurve
    JNF bad_point
.endm

# acc (QX : QY : E) += the column's point of a comb table, by the complete mixed addition:
# `comb_add TSEL` takes it from the table of the cache entry CMD.SLOT, `comb_add TSEL.g` from
# G's (entry 0). Digit 0 adds T[1] and discards the sum: the same instructions every column.
.macro comb_add tsel
    \tsel RX, RY
    CALL padd_mixed
    SEL QX, QX, X0            # digit 0: keep acc
    SEL QY, QY, Z0
    SEL E, E, X1
.endm

# The cache entry's point is G (BAD_SEQ otherwise, at wrong_entry: ecdsa.s): a table of another
# point, which the host can have PRECOMP make there, would give ECDSA_SIGN an r of another k, and
# two signatures of one hash with one k and two r give the key away; verification a wrong verdict;
# and ECSM_COMB, whose entry 0 the protocol controller takes for G's, k Q for a key k G (an ECDHE
# public key that is the shared secret). \tld: TLD, the running entry; TLD.g, entry 0 (G's).
.macro g_entry tld
    \tld T4, T5, T1
    EQ GX, T4
    JNF wrong_entry
    EQ GY, T5
    JNF wrong_entry
.endm
