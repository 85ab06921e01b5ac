# X509_PARSE: one X.509 v3 certificate, ECDSA-SHA256 over P-256, with the rules and the order of
# checks of the software stack's se_x509_parse (sw/proto/x509.c), so that both give the same
# verdict for every input: the same checks in the same order, each failure the same status.
# The parse itself is the subroutine x509, which CHAIN_CHECK (chain.s) calls for each certificate:
# besides the output events it keeps what a chain check needs in a record at REC.

.reg q    r3        # the end of the element just read
.reg s    r5        # a start kept for later
.reg tbsp r6        # tbsCertificate: its contents' start ...
.reg tbse r7        # ... and its end
.reg w    r8        # the end of an inner window
.reg ie   r9        # the end of an INTEGER's contents (int_body), or of another inner element
.reg k    r10       # subject Name: 1 = look for the commonName, 2 = found; extensions: the id
.reg seen r11       # extensions seen (1 keyUsage, 2 subjectAltName, 4 basicConstraints)
.reg u    r12
.reg v    r13
.reg x    r14
.reg y    r15

# AlgorithmIdentifier ecdsa-with-SHA256 (RFC 5758, parameters absent), and id-ecPublicKey with
# namedCurve prime256v1 (RFC 5480): whole DER, compared byte for byte
.const ALG_ECDSA_SHA256 0x30 0x0a 0x06 0x08 0x2a 0x86 0x48 0xce 0x3d 0x04 0x03 0x02
.const ALG_P256 0x30 0x13 0x06 0x07 0x2a 0x86 0x48 0xce 0x3d 0x02 0x01 0x06 0x08 0x2a 0x86 0x48 0xce 0x3d 0x03 0x01 0x07
.const OID_CN 0x55 0x04 0x03                   # id-at-commonName's contents

# Where the validity times are written (14 digits each): the 32 bytes below the window's secret top
# (isa.toml secret_bytes; the bus reads these back); below them the record. The certificate must lie
# below the record (BAD_INPUT otherwise).
.equ NB_BUF SECRET_BASE-32
.equ NA_BUF SECRET_BASE-16

# The record (REC, 40 bytes): 16-bit fields, big-endian (STH, LDH), of the last certificate x509
# parsed. Spans are an address and a length. KU is 0xffff without keyUsage, PATH 0xffff without a
# pathLenConstraint; HAS_CN and HAS_SAN are bytes, 1 when the certificate has one.
.equ REC SECRET_BASE-72
.equ R_TBS 0
.equ R_TBS_N 2
.equ R_ISS 4
.equ R_ISS_N 6
.equ R_SUB 8
.equ R_SUB_N 10
.equ R_CN 12
.equ R_CN_N 14
.equ R_SAN 16
.equ R_SAN_N 18
.equ R_PUB 20                       # x || y, 64 bytes
.equ R_SIG_R 22
.equ R_SIG_R_N 24
.equ R_SIG_S 26
.equ R_SIG_S_N 28
.equ R_IS_CA 30
.equ R_PATH 32
.equ R_KU 34
.equ R_HAS_CN 36
.equ R_HAS_SAN 37
.equ REC_BYTES 40

# need_alg LIMIT, CONST: an AlgorithmIdentifier SEQUENCE at p that must be exactly CONST:
# malformed DER is CERT_MALFORMED, another algorithm CERT_UNSUPPORTED (x509.c der_alg).
.macro need_alg limit, want
    MOV s, p
    need_tlv q, T_SEQ, \limit
    MOV p, q
    SUB n, q, s
    MEQ s, n, \want
    J.nz unsupported
.endm

# need_uint LIMIT, BOUND: a non-negative minimal INTEGER at p of fewer than BOUND value bytes
# (x509.c der_uint): p = its value's first byte, n = their number, ie = the element's end.
.macro need_uint limit, bound
    need_tlv ie, T_INT, \limit
    CALL int_body
    CMPI n, \bound
    J.nc malformed
.endm

.entry X509_PARSE
    CALL x509
    END

# x509: the certificate [p, e): OK (a return), or the program stops with the refusal. Every register
# changes.
x509:
    CMP e, p                        # the input: p <= e <= REC
    J.c bad_input
    LDI t, REC
    CMP t, e
    J.c bad_input
    LDI s, REC
    LDI t, 0
    OUTR IS_CA, t
    STH s, t, R_IS_CA
    STB s, t, R_HAS_CN
    STB s, t, R_HAS_SAN
    SUBI t, t, 1
    OUTR PATH_LEN, t                # absent: 0xffff (-1)
    STH s, t, R_PATH
    STH s, t, R_KU                  # no keyUsage: every use
    need_last q, T_SEQ, e           # Certificate ::= SEQUENCE, the whole input
    MOV s, p
    need_tlv tbse, T_SEQ, e         # tbsCertificate: the signed bytes
    SUB n, tbse, s
    OUT TBS, s, n
    LDI q, REC
    STH q, s, R_TBS
    STH q, n, R_TBS_N
    MOV tbsp, p
    MOV p, tbse
    need_alg e, ALG_ECDSA_SHA256    # signatureAlgorithm

    # signatureValue: BIT STRING, no unused bits, of Ecdsa-Sig-Value ::= SEQUENCE { r, s }
    need_last q, T_BITS, e
    CMP p, q
    J.z malformed
    LDB t, p, 0
    CMPI t, 0
    J.nz malformed
    ADDI p, p, 1
    need_last e, T_SEQ, q
    LDI w, REC
    need_uint e, 33
    OUTN SIG_R, p, n
    STH w, p, R_SIG_R
    STH w, n, R_SIG_R_N
    MOV p, ie
    need_uint e, 33
    OUTN SIG_S, p, n
    STH w, p, R_SIG_S
    STH w, n, R_SIG_S_N
    MOV p, ie
    CMP p, e
    J.nz malformed

    # tbsCertificate
    MOV p, tbsp
    MOV e, tbse
    need_tlv q, 0xa0, e             # version [0] EXPLICIT INTEGER: v3 (2) only
    need_uint q, 2
    LDB u, p, 0
    MOV p, ie
    CMP p, q
    J.nz malformed
    CMPI u, 2
    J.nz malformed
    need_tlv q, T_INT, e            # serialNumber: 1 to 21 bytes
    SUB n, q, p
    J.z malformed
    CMPI n, 22
    J.nc malformed
    MOV p, q
    need_alg e, ALG_ECDSA_SHA256    # signature
    LDI k, 0
    CALL name                       # issuer
    OUT ISSUER, s, n
    LDI q, REC
    STH q, s, R_ISS
    STH q, n, R_ISS_N
    need_tlv q, T_SEQ, e            # validity
    MOV e, q
    LDI s, NB_BUF
    CALL time
    OUT NOT_BEFORE, s, n
    LDI s, NA_BUF
    CALL time
    OUT NOT_AFTER, s, n
    CMP p, e
    J.nz malformed
    MOV e, tbse
    LDI k, 1
    CALL name                       # subject, and its first commonName
    OUT SUBJECT, s, n
    LDI w, REC
    STH w, s, R_SUB
    STH w, n, R_SUB_N

    # subjectPublicKeyInfo: the algorithm, then BIT STRING 00 || 04 || x || y
    need_tlv w, T_SEQ, e
    need_alg w, ALG_P256
    need_last q, T_BITS, w
    CMP p, q
    J.z malformed
    LDB t, p, 0
    CMPI t, 0
    J.nz malformed
    SUB n, q, p
    CMPI n, 66
    J.nz unsupported                # compressed or hybrid point
    LDB t, p, 1
    CMPI t, 4
    J.nz unsupported
    ADDI s, p, 2
    LDI n, 32
    OUTN PUB_X, s, n
    LDI q, REC
    STH q, s, R_PUB
    ADDI s, s, 32
    OUTN PUB_Y, s, n
    MOV p, w

    # issuerUniqueID [1], subjectUniqueID [2] (ignored), extensions [3]; then nothing
    TLV q, p, e, 0x81
    J.c malformed
    J.nz no_iuid
    MOV p, q
no_iuid:
    TLV q, p, e, 0x82
    J.c malformed
    J.nz no_suid
    MOV p, q
no_suid:
    TLV q, p, e, 0xa3
    J.c malformed
    J.nz no_exts
    CMP q, e
    J.nz malformed
    J extensions
no_exts:
    CMP p, e
    J.nz malformed
    RET

# ---- Name ::= SEQUENCE OF SET OF SEQUENCE { OID, any } ---------------------------------------
# The Name at p (below e): s = its first byte, n = its length, p = past it. With k = 1, the first
# commonName's value goes to CN (k = 2 after).
name:
    MOV s, p
    need_tlv q, T_SEQ, e
name_rdn:
    CMP p, q
    J.z name_done
    need_tlv w, T_SET, q            # a RelativeDistinguishedName, not empty
    CMP p, w
    J.z malformed
name_atv:
    CMP p, w
    J.z name_rdn
    need_tlv ie, T_SEQ, w           # AttributeTypeAndValue
    need_tlv u, T_OID, ie
    MOV x, p                        # the OID's contents
    SUB y, u, p
    MOV p, u
    need_tlv v, T_ANY, ie           # the value
    CMP v, ie
    J.nz malformed
    CMPI k, 1
    J.nz name_next
    MEQ x, y, OID_CN
    J.nz name_next
    SUB y, v, p
    OUT CN, p, y
    LDI x, REC
    STH x, p, R_CN
    STH x, y, R_CN_N
    STB x, k, R_HAS_CN              # (k = 1)
    LDI k, 2
name_next:
    MOV p, ie
    J name_atv
name_done:
    SUB n, p, s
    RET

# ---- Time ::= UTCTime | GeneralizedTime (x509.c der_time) -----------------------------------------
# The Time at p (below e), UTC with seconds and no fraction: its 14 digits YYYYMMDDHHMMSS to the
# buffer at s, n = 14, p = past it. Registers: x the digit read next, k the century, u the year in
# it, v the month, y the day.
time:
    LDB t, p, 0                     # (its tag, if there is an element)
    need_tlv ie, T_ANY, e
    SUB n, ie, p
    CMPI t, T_GEN
    J.z time_gen
    CMPI t, T_UTC
    J.nz malformed
    CMPI n, 13
    J.nz malformed
    MOV x, p
    CALL two                        # YY: 19YY from 50 on
    CMPI n, 100
    J.nc malformed
    MOV u, n
    LDI k, 20
    LDI t, 0x32                     # "20"
    LDI y, 0x30
    CMPI u, 50
    J.c time_century
    LDI k, 19
    LDI t, 0x31                     # "19"
    LDI y, 0x39
time_century:
    STB s, t, 0
    STB s, y, 1
    LDI n, 12
    ADDI t, s, 2
    COPY t, p, n
    J time_fields
time_gen:
    CMPI n, 15
    J.nz malformed
    MOV x, p
    CALL two                        # the century
    CMPI n, 100
    J.nc malformed
    MOV k, n
    CALL two                        # the year in it
    CMPI n, 100
    J.nc malformed
    MOV u, n
    LDI n, 14
    COPY s, p, n
time_fields:                        # x: the month's digits
    CALL two
    CMPI n, 13
    J.nc malformed
    CMPI n, 0
    J.z malformed
    MOV v, n
    CALL two
    CMPI n, 32
    J.nc malformed
    CMPI n, 0
    J.z malformed
    MOV y, n
    CALL two                        # hours, minutes, seconds
    CMPI n, 24
    J.nc malformed
    CALL two
    CMPI n, 60
    J.nc malformed
    CALL two
    CMPI n, 60
    J.nc malformed
    LDB t, x, 0                     # the zone: Z
    CMPI t, 0x5a
    J.nz malformed
    OR t, k, u                      # year 0 does not exist
    J.z malformed
    # The month's days: 30 in April, June, September, November; February 28, 29 in a leap year
    # (divisible by 4, and a century only when divisible by 400: yy % 4 == 0, and yy != 0 or
    # the century % 4 == 0).
    LDI n, 31
    CMPI v, 2
    J.nz time_not_feb
    LDI n, 28
    ANDI t, u, 3
    J.nz time_days
    CMPI u, 0
    J.nz time_leap
    ANDI t, k, 3
    J.nz time_days
time_leap:
    LDI n, 29
    J time_days
time_not_feb:
    CMPI v, 4
    J.z time_30
    CMPI v, 6
    J.z time_30
    CMPI v, 9
    J.z time_30
    CMPI v, 11
    J.nz time_days
time_30:
    LDI n, 30
time_days:
    CMP n, y
    J.c malformed
    MOV p, ie
    LDI n, 14
    RET

# two: the two decimal digits at x as a number in n (100 if either is not a digit); x += 2
two:
    LDB t, x, 0
    SUBI t, t, 0x30
    J.c two_bad
    CMPI t, 10
    J.nc two_bad
    SHL n, t, 3
    ADD n, n, t
    ADD n, n, t
    LDB t, x, 1
    SUBI t, t, 0x30
    J.c two_bad
    CMPI t, 10
    J.nc two_bad
    ADD n, n, t
    ADDI x, x, 2
    RET
two_bad:
    LDI n, 100
    ADDI x, x, 2
    RET

# int_body: the contents [p, ie) of an INTEGER, which must be non-negative and minimal: p = the
# value's first byte (past a sign byte), n = the value's length
int_body:
    SUB n, ie, p
    J.z malformed
    LDB t, p, 0
    ANDI u, t, 0x80
    J.nz malformed
    CMPI n, 1
    J.z int_done
    CMPI t, 0
    J.nz int_done
    LDB t, p, 1                     # a leading zero must be a sign byte
    ANDI t, t, 0x80
    J.z malformed
    ADDI p, p, 1
    SUBI n, n, 1
int_done:
    RET

# ---- Extensions ::= SEQUENCE SIZE (1..MAX) OF Extension (x509.c parse_extensions) ----------------
# [p, e): the contents of [3]. Each known extension at most once; an unknown critical one is
# CERT_UNSUPPORTED.
extensions:
    need_last q, T_SEQ, e
    CMP p, q
    J.z malformed
    LDI seen, 0
ext_next:
    CMP p, q
    J.z ext_done
    need_tlv w, T_SEQ, q            # Extension ::= SEQUENCE { extnID, critical, extnValue }
    need_tlv ie, T_OID, w
    LDI k, 0                        # id-ce-x (2.5.29.x) -> x, another OID -> 0
    SUB t, ie, p
    CMPI t, 3
    J.nz ext_id
    LDB t, p, 0
    CMPI t, 0x55
    J.nz ext_id
    LDB t, p, 1
    CMPI t, 0x1d
    J.nz ext_id
    LDB k, p, 2
ext_id:
    MOV p, ie
    LDI x, 0                        # critical
    CMP p, w
    J.z ext_value
    LDB t, p, 0
    CMPI t, T_BOOL
    J.nz ext_value
    CALL need_true
    LDI x, 1
ext_value:
    need_last ie, T_OCTETS, w       # extnValue: [p, ie)
    CMPI k, 15
    J.z ext_ku
    CMPI k, 17
    J.z ext_san
    CMPI k, 19
    J.z ext_bc
    CMPI x, 0
    J.nz unsupported
ext_skip:
    MOV p, w
    J ext_next
ext_done:
    RET

# need_true: BOOLEAN TRUE at p (below w, the Extension's end: a critical flag, or basicConstraints'
# cA, whose SEQUENCE ends there too): DER never encodes FALSE where it is the default
need_true:
    need_tlv u, T_BOOL, w
    SUB t, u, p
    CMPI t, 1
    J.nz malformed
    LDB t, p, 0
    CMPI t, 0xff
    J.nz malformed
    MOV p, u
    RET

# keyUsage ::= BIT STRING, bit 0 the first on the wire; at most two bytes of bits, the unused
# ones zero
ext_ku:
    ANDI t, seen, 1
    J.nz malformed
    ORI seen, seen, 1
    need_last v, T_BITS, ie
    SUB n, v, p
    J.z malformed
    CMPI n, 4
    J.nc malformed
    LDB y, p, 0                     # unused bits
    CMPI y, 8
    J.nc malformed
    CMPI n, 1
    J.nz ku_bits
    CMPI y, 0
    J.nz malformed
    J ku_value
ku_bits:
    LDI u, 0                        # (1 << unused) - 1
ku_mask:
    CMPI y, 0
    J.z ku_masked
    ADD u, u, u
    ADDI u, u, 1
    SUBI y, y, 1
    J ku_mask
ku_masked:
    SUBI x, v, 1
    LDB t, x, 0                     # the last byte
    AND t, t, u
    J.nz malformed
ku_value:                           # bit i (from the first byte's top bit) -> the value's bit i
    LDI u, 0
    LDI x, 1
    ADDI s, p, 1
ku_byte:
    CMP s, v
    J.z ku_done
    LDB t, s, 0
    LDI y, 8
ku_bit:
    ANDI k, t, 0x80
    J.z ku_clear
    ADD u, u, x
ku_clear:
    ADD x, x, x
    ADD t, t, t
    SUBI y, y, 1
    J.nz ku_bit
    ADDI s, s, 1
    J ku_byte
ku_done:
    OUTR KEY_USAGE, u
    LDI x, REC
    STH x, u, R_KU
    J ext_skip

# subjectAltName: GeneralNames ::= SEQUENCE SIZE (1..MAX) OF GeneralName, each any element
ext_san:
    ANDI t, seen, 2
    J.nz malformed
    ORI seen, seen, 2
    MOV s, p
    need_last v, T_SEQ, ie
    CMP p, v
    J.z malformed
    SUB n, v, s
    OUT SAN, s, n
    LDI u, REC
    STH u, s, R_SAN
    STH u, n, R_SAN_N
    LDI t, 1
    STB u, t, R_HAS_SAN
san_next:
    CMP p, v
    J.z ext_skip
    need_tlv u, T_ANY, v
    MOV p, u
    J san_next

# basicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER OPTIONAL }
ext_bc:
    ANDI t, seen, 4
    J.nz malformed
    ORI seen, seen, 4
    need_last v, T_SEQ, ie         # (so v = ie = w, the Extension's end, which need_true reads below)
    CMP p, v
    J.z bc_end
    LDB t, p, 0
    CMPI t, T_BOOL
    J.nz bc_path
    CALL need_true
    LDI t, 1
    OUTR IS_CA, t
    LDI u, REC
    STH u, t, R_IS_CA
bc_path:
    CMP p, v
    J.z bc_end
    need_uint v, 2
    LDB t, p, 0
    CMPI t, 128                     # path lengths past 127 are not worth supporting
    J.nc unsupported
    OUTR PATH_LEN, t
    LDI u, REC
    STH u, t, R_PATH
    MOV p, ie
bc_end:
    CMP p, v
    J.nz malformed
    J ext_skip

# ---- VALIDITY: the times X509_PARSE left against now (x509.c se_x509_verify_chain's check) -------
# Run it after an X509_PARSE that ended OK (after a refusal the buffers may hold an earlier
# certificate's times). r1: now, 14 digits YYYYMMDDHHMMSS (UTC). CERT_EXPIRED after notAfter, then CERT_NOT_YET_VALID
# before notBefore, else OK. Equal digits are equal times, and digit order is time order.
.entry VALIDITY
    MOV r13, p                      # now: public
    LDI n, 14
    CALL public_n
    CALL validity
    END

# validity: VALIDITY's check (a return when valid); n, s change.
validity:
    LDI n, 14
    LDI s, NA_BUF
    MCMP n, s, p                    # notAfter against now: below is expired
    J.c expired
    LDI s, NB_BUF
    MCMP n, p, s                    # now against notBefore: below is not yet valid
    J.c not_yet_valid
    RET
expired:
    ERR CERT_EXPIRED
not_yet_valid:
    ERR CERT_NOT_YET_VALID

# ---- NAME_CHECK: the server name against the leaf (x509.c se_x509_check_name) ---------------------
# After an X509_PARSE that ended OK: [p, e) its SAN span (r9 = 1) or its commonName span (r9 = 0:
# the certificate has no subjectAltName; an empty span if it has no commonName either); the name at
# [nm, nme). OK if the name equals a dNSName of the SAN, or, without a SAN, the commonName (ASCII
# letters in either case, no wildcards); else CERT_NAME.
.reg nm  r6
.reg nme r7
.reg san r9
.entry NAME_CHECK
    MOV r13, p                      # the spans: public
    MOV r14, e
    CALL public
    MOV r13, nm
    MOV r14, nme
    CALL public
    CALL check_name
    END

# check_name: NAME_CHECK's check (a return on a match); p, q, t, k, n, u, v, w, x, y change.
check_name:
    CMPI san, 0
    J.nz nc_san
    MOV u, p
    SUB v, e, p
    CALL name_eq
    J.nz name_mismatch
    RET
nc_san:
    need_tlv_or q, T_SEQ, e, name_mismatch
nc_next:                            # each GeneralName; a dNSName ([2] IA5String) is compared
    LDB t, p, 0
    TLV w, p, q, T_ANY
    J.nz name_mismatch
    CMPI t, 0x82
    J.nz nc_skip
    MOV u, p
    SUB v, w, p
    CALL name_eq
    J.z nc_ok
nc_skip:
    MOV p, w
    J nc_next
nc_ok:
    RET

# name_eq: Z = the v bytes at u are the name [nm, nme), not empty; letters match in either case
# (two bytes that differ in bit 5 alone, and are a letter)
name_eq:
    SUB n, nme, nm
    J.z ne_no
    CMP n, v
    J.nz ne_no
    MOV x, nm
    MOV y, u
ne_byte:
    LDB t, y, 0
    LDB k, x, 0
    CMP t, k
    J.z ne_same
    ORI t, t, 0x20
    ORI k, k, 0x20
    CMP t, k
    J.nz ne_no
    SUBI t, t, 0x61                 # 'a'..'z'
    J.c ne_no
    CMPI t, 26
    J.nc ne_no
ne_same:
    ADDI x, x, 1
    ADDI y, y, 1
    SUBI n, n, 1                    # Z once every byte matched
    J.nz ne_byte
    RET
ne_no:
    LDI t, 1
    ANDI t, t, 1                    # Z = 0
    RET
