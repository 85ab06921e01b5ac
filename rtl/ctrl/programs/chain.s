# CHAIN_CHECK: a certificate chain against trust anchors, with the rules and the order of checks of
# the software stack's se_x509_verify_chain (sw/proto/x509.c): the same verdict for every input.
# Each certificate is parsed by x509 (x509.s), which leaves its record at REC; the one below it
# is kept at REC_A meanwhile. Nothing survives a parse in the registers, so the program's own
# state is a frame of 16-bit fields at FRAME.

# Below X509_PARSE's record and times: the lower certificate's record, the digest, the frame, and
# under them the handshake's state, which lasts from program to program: the transcript's
# (transcript.s) and the hellos' (hello.s). CHAIN_CHECK's inputs lie below CHAIN_TOP.
.equ REC_A REC-REC_BYTES
.equ DIG REC_A-32
.equ FRAME DIG-32
.equ TS_BYTES 0x68
.equ TS_AT FRAME-TS_BYTES
.equ HS_BYTES 0x200
.equ HS_AT TS_AT-HS_BYTES
.equ CHAIN_TOP HS_AT
.equ NOW_MAX CHAIN_TOP-14           # the last place now's digits may start
.equ MAX_CHAIN 4                    # certificates below the anchor (x509.h SE_X509_MAX_CHAIN)
.equ ANCHOR_TABLE 32                # PKRUN's cache entry 1 (imm[9:5]): KEY_TABLE's, a trust anchor's key
.equ SERVER_TABLE 64                # entry 2: KEY_TABLE's, the cached server certificate's key

# The frame's fields. Three cursors, each an entry and the end of its list (parse_at).
.equ F_LEAF 0                       # the leaf's entry, the list's end
.equ F_NEXT 4                       # the entry parsed next, the list's end
.equ F_LEND 6
.equ F_ACUR 8                       # the anchor tried next, the anchors' end
.equ F_AEND 10
.equ F_ANC 12                       # the anchors' first entry
.equ F_NOW 14
.equ F_NAME 16
.equ F_NEND 18
.equ F_CHECK 20                     # 1: check the server name
.equ F_N 22                         # the chain's length, an anchor's copy at its end dropped
.equ F_I 24                         # the certificate being checked: 0 the leaf
.equ F_CACHE 26                     # CERTIFICATE's (cert.s): 1, cached-certificate mode
.equ F_LIST 28                      # and its list's first entry

.reg ck r8                          # the input: 1 to check the name

chain_bad:
    ERR CERT_CHAIN
unknown_ca:
    ERR CERT_UNKNOWN_CA
not_ca:
    ERR CERT_NOT_CA
bad_key_usage:
    ERR CERT_KEY_USAGE

.entry CHAIN_CHECK
    CALL chain
    END

# chain: CHAIN_CHECK's check, a return when the chain is good: REC then holds the leaf's record (and
# NB_BUF, NA_BUF its times). Every register changes.
chain:
    CALL chain_inputs
    LDI x, FRAME
    STH x, p, F_LEAF
    STH x, e, F_LEAF + 2
    STH x, p, F_NEXT
    STH x, e, F_LEND
    STH x, r3, F_ANC
    STH x, r4, F_AEND
    STH x, r5, F_NOW
    STH x, r6, F_NAME
    STH x, r7, F_NEND
    STH x, ck, F_CHECK

    # The entries: each well framed (BAD_INPUT), at most MAX_CHAIN + 1 of them (CERT_CHAIN, as
    # the handshake's Certificate message says); y counts them, v is the last one.
    LDI y, 0
count:
    CMP p, e
    J.z counted
    CALL entry
    CMPI y, MAX_CHAIN + 1
    J.z chain_bad
    MOV v, p
    MOV p, w
    ADDI y, y, 1
    J count
counted:
    CMPI y, 0
    J.z chain_bad

    # A chain that ends with an anchor itself (a peer that sends its root) stops before it.
    CMPI y, 1
    J.z no_copy
    MOV p, v
    CALL entry
    MOV k, q                        # the last certificate: k, u bytes
    SUB u, w, q
    LDH p, x, F_ANC
    LDH e, x, F_AEND
copy_next:
    CMP p, e
    J.z no_copy
    CALL entry
    SUB n, w, q
    MOV p, w
    CMP n, u
    J.nz copy_next
    MCMP n, q, k
    J.nz copy_next
    SUBI y, y, 1
no_copy:
    CMPI y, MAX_CHAIN + 1
    J.nc chain_bad
    STH x, y, F_N
    LDI t, 0
    STH x, t, F_I

    # The leaf, then each certificate i with REC its record and NB_BUF, NA_BUF its times.
    LDI x, FRAME + F_NEXT
    CALL parse_at
chain_loop:
    LDI x, FRAME
    LDH p, x, F_NOW
    CALL validity
    LDI p, REC
    LDI q, REC_A
    LDI n, REC_BYTES
    COPY q, p, n
    LDI x, FRAME
    LDH y, x, F_I
    ADDI y, y, 1
    LDH t, x, F_N
    CMP y, t
    J.z chain_anchor

    # Its issuer: the next certificate, a CA that allows i certificates below it and signs them
    LDI x, FRAME + F_NEXT
    CALL parse_at
    CALL issued_by
    J.nz chain_bad
    LDI x, REC
    LDH t, x, R_IS_CA
    CMPI t, 0
    J.z not_ca
    LDH t, x, R_PATH
    CMPI t, 128                     # 0xffff: no pathLenConstraint
    J.nc path_ok
    LDI u, FRAME
    LDH y, u, F_I
    CMP t, y
    J.c not_ca
path_ok:
    LDH t, x, R_KU
    ANDI t, t, 0x20                 # keyCertSign
    J.z bad_key_usage
    J chain_sig

    # Its issuer: the first anchor whose subject is its issuer Name
chain_anchor:
    LDH t, x, F_ANC
    STH x, t, F_ACUR
anchor_next:
    LDI x, FRAME
    LDH p, x, F_ACUR
    LDH e, x, F_AEND
    CMP p, e
    J.z unknown_ca
    LDI x, FRAME + F_ACUR
    CALL parse_at
    CALL issued_by
    J.z chain_sig
    J anchor_next

    # The signature of REC_A's certificate with REC's key
chain_sig:
    LDI x, REC_A
    LDH p, x, R_TBS
    LDH n, x, R_TBS_N
    SHAI
    SHAU p, n
    LDI q, DIG
    SHAF q
    LDI n, 32
    PKW PK_SLOT_E, q, n
    LDH p, x, R_SIG_R
    LDH n, x, R_SIG_R_N
    PKW PK_SLOT_RX, p, n
    LDH p, x, R_SIG_S
    LDH n, x, R_SIG_S_N
    PKW PK_SLOT_RY, p, n
    CALL pk_key
    PKRUN pks, PK_PROG_ECDSA_VERIFY_COMB + ANCHOR_TABLE  # the joint comb, if KEY_TABLE made this key's table (cert.s)
    CMPI pks, PK_ST_BAD_SEQ
    J.nz chain_verdict
    PKRUN pks, PK_PROG_ECDSA_VERIFY # (the same verdicts, on the ladder)
chain_verdict:
    CMPI pks, PK_ST_OK
    J.z chain_next
    CMPI pks, PK_ST_VERIFY_FAIL
    J.z bad_signature
    CMPI pks, PK_ST_BAD_POINT
    J.z bad_signature
    ERR ENGINE
chain_next:
    LDI x, FRAME
    LDH y, x, F_I
    ADDI y, y, 1
    STH x, y, F_I
    LDH t, x, F_N
    CMP y, t
    J.nz chain_loop

    # The leaf again: digitalSignature, a key on the curve, the name
    LDI x, FRAME + F_LEAF
    CALL parse_at
    LDI x, REC
    LDH t, x, R_KU
    ANDI t, t, 1                    # digitalSignature
    J.z bad_key_usage
    CALL pk_key
    PKRUN pks, PK_PROG_VALIDATE
    J.z leaf_key_ok
    CMPI pks, PK_ST_BAD_POINT
    J.z malformed                   # (x509.c: the signatures above never used it)
    ERR ENGINE
leaf_key_ok:
    LDI x, FRAME
    LDH t, x, F_CHECK
    CMPI t, 0
    J.z chain_ok
    LDH nm, x, F_NAME
    LDH nme, x, F_NEND
    LDI x, REC
    LDB san, x, R_HAS_SAN
    CMPI san, 0
    J.z leaf_cn
    LDH p, x, R_SAN
    LDH n, x, R_SAN_N
    J leaf_name
leaf_cn:
    LDH p, x, R_CN
    LDH n, x, R_CN_N
    LDB t, x, R_HAS_CN
    CMPI t, 0
    J.nz leaf_name
    LDI n, 0                        # neither: an empty span, which no name matches
leaf_name:
    ADD e, p, n
    CALL check_name
chain_ok:
    RET

# chain_inputs: CHAIN_CHECK's inputs r1 <= r2, r3 <= r4, r6 <= r7 and now's 14 digits at r5, all below
# CHAIN_TOP (BAD_INPUT otherwise). t changes.
chain_inputs:
    LDI t, CHAIN_TOP
    CMP e, p
    J.c bad_input
    CMP t, e
    J.c bad_input
    CMP r4, r3
    J.c bad_input
    CMP t, r4
    J.c bad_input
    CMPI r5, NOW_MAX
    J.a bad_input
    CMP r7, r6
    J.c bad_input
    CMP t, r7
    J.c bad_input
    RET

# entry: the list entry at p (p < e) is framed: q = its certificate's first byte, w = one past its
# last; BAD_INPUT otherwise. t, n change.
entry:
    CALL framed
    J.nz bad_input
    RET

# framed: Z = the list entry at p has a 3-byte length, not 0, and that many bytes before e; then q =
# its certificate's first byte, w = one past its last. t, n change.
framed:
    SUB n, e, p
    CMPI n, 3
    J.c fr_no
    LDB t, p, 0                     # (a length past 0xffff would not fit in the window)
    CMPI t, 0
    J.nz fr_no
    LDH t, p, 1
    CMPI t, 0
    J.z fr_no
    SUBI n, n, 3
    CMP n, t
    J.c fr_no
    ADDI q, p, 3
    ADD w, q, t
    CMP t, t
    RET
fr_no:
    LDI t, 1
    ANDI t, t, 1                    # Z = 0
    RET

# parse_at: the certificate of the entry at the cursor [x] (below the end at [x + 2]) parsed by
# x509; the cursor moves past it. Every register changes.
parse_at:
    LDH p, x, 0
    LDH e, x, 2
    CALL entry
    STH x, w, 0
    MOV p, q
    MOV e, w
    CALL x509
    RET

# issued_by: Z = REC_A's issuer Name is REC's subject Name, byte for byte. t, n, p, q, x change.
issued_by:
    LDI x, REC_A
    LDH p, x, R_ISS
    LDH n, x, R_ISS_N
    LDI x, REC
    LDH q, x, R_SUB
    LDH t, x, R_SUB_N
    CMP n, t
    J.nz issued_done
    MCMP n, p, q
issued_done:
    RET

# pk_key: pk's QX, QY = REC's key. p, n, x change.
pk_key:
    LDI x, REC
    LDH p, x, R_PUB
    LDI n, 32
    PKW PK_SLOT_QX, p, n
    ADDI p, p, 32
    PKW PK_SLOT_QY, p, n
    RET
