# CERTIFICATE (RFC 5246 7.4.2): the server's Certificate message, taken as the software client takes
# it (sw/proto/tls_hs.c peer_certificate), in its order: the list framed (DECODE_ERROR), at most
# MAX_CHAIN + 1 entries (CERT_CHAIN), not empty (HANDSHAKE_FAILURE); then, in cached-certificate
# mode, the same leaf as last time for the same name needs only its validity checked against now;
# otherwise the chain is verified (chain.s). The leaf's key goes to HS_LK, for SERVER_KEY_EXCHANGE.
#
# The cache is a record in the handshake's state (HS_CC), public like the rest of it: the bus may
# read it out and write it back, as the software client's se_tls_cert_cache lives in its caller's
# memory. A full verification that passes refills it.

.equ CC_VALID 0                     # not 0: the record holds a leaf
.equ CC_FP 1                        # the leaf's SHA-256, 32 bytes
.equ CC_PUB 33                      # its key x || y, 64 bytes
.equ CC_NB 97                       # its notBefore, 14 digits
.equ CC_NA 111                      # its notAfter, 14 digits
.equ CC_NLEN 125                    # the server name it was checked for: its length (0: none asked)
.equ CC_NAME 126                    # and its bytes, at most CC_NAME_MAX
.equ CC_NAME_MAX 63                 # (tls.h SE_TLS_CACHE_NAME - 1: a longer name is never cached)

# CERTIFICATE: r1, r2 the body; r3, r4 the trust anchors; r5 now; r6, r7 the server name; r8 1: check
# the name; as CHAIN_CHECK's, every input below CHAIN_TOP (BAD_INPUT otherwise). r9 1: cached-
# certificate mode, with the record at HS_CC; 0: verify the chain always.
.entry CERTIFICATE
    CALL certificate
    END

certificate:
    CMPI r9, 2
    J.nc bad_input
    CALL chain_inputs               # all of them, the cached path's now and name too
    LDI x, FRAME
    STH x, r3, F_ANC
    STH x, r4, F_AEND
    STH x, r5, F_NOW
    STH x, r6, F_NAME
    STH x, r7, F_NEND
    STH x, r8, F_CHECK
    STH x, r9, F_CACHE
    SUB n, e, p                     # certificate_list<0..2^24-1>: the whole body
    CMPI n, 3
    J.c decode_error
    LDB t, p, 0
    CMPI t, 0
    J.nz decode_error
    LDH t, p, 1
    SUBI n, n, 3
    CMP t, n
    J.nz decode_error
    ADDI p, p, 3
    MOV u, p                        # the leaf's entry
    STH x, u, F_LIST
    LDI y, 0
ce_count:                           # each entry framed before it is counted, as the client does
    CMP p, e
    J.z ce_counted
    CALL framed
    J.nz decode_error
    CMPI y, MAX_CHAIN + 1
    J.z chain_bad
    MOV p, w
    ADDI y, y, 1
    J ce_count
ce_counted:
    CMPI y, 0
    J.z handshake_failure           # no certificate from the server
    LDI x, FRAME
    LDH t, x, F_CACHE
    CMPI t, 0
    J.z ce_verify

    # Cached-certificate mode: the leaf's fingerprint, then the record's leaf and name
    MOV p, u
    CALL leaf_digest                # into DIG
    LDI k, HS_AT + HS_CC
    LDB t, k, CC_VALID
    CMPI t, 0
    J.z ce_verify
    LDI n, 32
    LDI t, DIG
    ADDI v, k, CC_FP
    MCMP n, t, v
    J.nz ce_verify
    LDB n, k, CC_NLEN
    CMPI n, CC_NAME_MAX + 1         # (the bus may have written the record)
    J.nc ce_verify
    LDH t, x, F_CHECK
    CMPI t, 0
    J.z ce_cached                   # no name asked for: any record's
    LDH s, x, F_NAME
    LDH t, x, F_NEND
    SUB t, t, s
    J.z ce_verify                   # an empty name: never the record's
    CMP t, n
    J.nz ce_verify
    ADDI v, k, CC_NAME
    MCMP n, s, v
    J.nz ce_verify
ce_cached:                          # its chain checked out before: the clock, again
    LDI t, HS_AT
    LDI n, 1
    STB t, n, HS_CACHED
    LDI n, 14
    LDI t, NB_BUF
    ADDI v, k, CC_NB
    COPY t, v, n
    LDI t, NA_BUF
    ADDI v, k, CC_NA
    COPY t, v, n
    LDH p, x, F_NOW
    CALL validity
    ADDI v, k, CC_PUB
    J ce_key

ce_verify:
    MOV p, u
    LDH r3, x, F_ANC
    LDH r4, x, F_AEND
    LDH r5, x, F_NOW
    LDH r6, x, F_NAME
    LDH r7, x, F_NEND
    LDH r8, x, F_CHECK
    CALL chain                      # REC: the leaf's record, NB_BUF, NA_BUF its times
    LDI x, FRAME
    LDH t, x, F_CACHE
    CMPI t, 0
    J.z ce_leaf_key

    # The record refilled: the leaf, its key, its times, the name (none: a name too long to keep)
    LDH p, x, F_LIST
    LDH e, x, F_LEND
    CALL leaf_digest
    LDI k, HS_AT + HS_CC
    LDI n, 32
    LDI t, DIG
    ADDI v, k, CC_FP
    COPY v, t, n
    LDI t, REC
    LDH t, t, R_PUB
    LDI n, 64
    ADDI v, k, CC_PUB
    COPY v, t, n
    LDI n, 14
    LDI t, NB_BUF
    ADDI v, k, CC_NB
    COPY v, t, n
    LDI t, NA_BUF
    ADDI v, k, CC_NA
    COPY v, t, n
    LDI n, 0
    LDH t, x, F_CHECK
    CMPI t, 0
    J.z ce_name
    LDH s, x, F_NAME
    LDH n, x, F_NEND
    SUB n, n, s
ce_name:
    LDI t, 0
    CMPI n, CC_NAME_MAX + 1
    J.nc ce_valid
    STB k, n, CC_NLEN
    ADDI v, k, CC_NAME
    CMPI n, 0
    J.z ce_one
    COPY v, s, n
ce_one:
    LDI t, 1
ce_valid:
    STB k, t, CC_VALID
ce_leaf_key:
    LDI t, REC
    LDH v, t, R_PUB
ce_key:
    LDI n, 64
    LDI t, HS_AT + HS_LK
    COPY t, v, n
    RET

# leaf_digest: the SHA-256 of the certificate of the list entry at p (framed, before e) into DIG.
# t, n, q, w change.
leaf_digest:
    CALL framed
    SUB n, w, q
    SHAI
    SHAU q, n
    LDI t, DIG
    SHAF t
    RET

# KEY_TABLE: a key's comb table into pk's cache (PRECOMP), for the signature checks that take pk's
# joint comb (ECDSA_VERIFY_COMB) when the entry holds their key's table, and its ladder otherwise
# (the same verdicts). r1 = 1: the key of the certificate the last X509_PARSE took (a trust anchor's:
# CHAIN_CHECK) into entry 1; r1 = 2: the cached-certificate record's key (HS_CC: a full handshake's
# leaf; SERVER_KEY_EXCHANGE) into entry 2. BAD_INPUT for another r1, for r1 = 2 without a valid
# record, and for r1 = 1 when X509_PARSE's record (REC, which the bus may write) names a key that
# does not lie below REC; ENGINE if pk does not hold P-256; INVALID_POINT for a key not on it. The record is public (the bus may write it),
# and ECDSA_VERIFY_COMB takes an entry only for the key it verifies with: a table of another key
# only makes a check take the ladder.
.entry KEY_TABLE
    CMPI r1, 1
    J.z kt_anchor
    CMPI r1, 2
    J.nz bad_input
    LDI p, HS_AT + HS_CC
    LDB t, p, CC_VALID
    CMPI t, 0
    J.z bad_input
    CALL p256_check
    LDI p, HS_AT + HS_CC + CC_PUB
    LDI n, 32
    PKW PK_SLOT_QX, p, n
    ADDI p, p, 32
    PKW PK_SLOT_QY, p, n
    PKRUN pks, PK_PROG_PRECOMP + SERVER_TABLE
    J.nz invalid_point
    END
kt_anchor:                          # the record's key must lie in the certificate, below REC: the
    LDI t, REC                      # bus writes the record, and a key read from the secret top
    LDH r13, t, R_PUB               # would be an oracle on its bytes (on the curve or not)
    ADDI r12, r13, 64
    J.c bad_input
    CMPI r12, REC + 1
    J.nc bad_input
    CALL p256_check
    CALL pk_key
    PKRUN pks, PK_PROG_PRECOMP + ANCHOR_TABLE
    J.nz invalid_point
    END
