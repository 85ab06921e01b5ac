# SHA256: the SHA-256 digest of a span of the window, on the engine's SHA IP (SHAI, SHAU, SHAF).
# Their spans lie below the secret top (BAD_INPUT otherwise).
# SIG_CHECK: a certificate's signature, the SHA IP and the pk IP called in turn.

.entry SHA256
    CMP e, p                        # the span: p <= e
    J.c bad_input
    MOV r13, p                      # the span and the digest: public
    MOV r14, e
    CALL public
    MOV r13, r3
    LDI n, 32
    CALL public_n
    SUB n, e, p
    SHAI
    SHAU p, n
    SHAF r3
    LDI n, 32
    OUT DIGEST, r3, n
    END

# SIG_CHECK: the SHA-256 of a tbsCertificate [r1, r2), then ECDSA P-256 verification of the
# signature r || s (64 bytes at r3) with the issuer's key x || y (64 bytes at r6) on the pk IP,
# which holds P-256 and G's table in cache entry 0. The digest goes to [r7, r7 + 32). As
# se_x509_check_signature: any failure of the verification, an invalid key included, is
# CERT_SIGNATURE.
.reg sig r3
.reg key r6
.reg dig r7
.reg pks r8

.entry SIG_CHECK
    CMP e, p
    J.c bad_input
    MOV r13, p                      # the TBS, the signature, the key and the digest: public
    MOV r14, e
    CALL public
    LDI n, 64
    MOV r13, sig
    CALL public_n
    MOV r13, key
    CALL public_n
    LDI n, 32
    MOV r13, dig
    CALL public_n
    SUB n, e, p
    SHAI
    SHAU p, n
    SHAF dig
    LDI n, 32
    PKW PK_SLOT_E, dig, n
    PKW PK_SLOT_RX, sig, n
    ADDI t, sig, 32
    PKW PK_SLOT_RY, t, n
    PKW PK_SLOT_QX, key, n
    ADDI t, key, 32
    PKW PK_SLOT_QY, t, n
    PKRUN pks, PK_PROG_ECDSA_VERIFY
    J.z sig_ok
    CMPI pks, PK_ST_VERIFY_FAIL
    J.z bad_signature
    CMPI pks, PK_ST_BAD_POINT
    J.z bad_signature
    ERR ENGINE
sig_ok:
    END
bad_signature:
    ERR CERT_SIGNATURE
