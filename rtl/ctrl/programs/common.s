# What every ctrl program shares: register names, DER tags, the refusals, and the DER macros.

# Registers. p and e bound the window being read: [p, e).
.reg t  r0          # scratch
.reg p  r1          # the read cursor
.reg e  r2          # the end of the window
.reg n  r4          # a length

# DER tags (X.690), and TLV's "any tag"
.equ T_BOOL    0x01
.equ T_INT     0x02
.equ T_BITS    0x03
.equ T_OCTETS  0x04
.equ T_OID     0x06
.equ T_UTC     0x17
.equ T_GEN     0x18
.equ T_SEQ     0x30
.equ T_SET     0x31
.equ T_ANY     0x100

# The refusals: a jump here ends the program with that status.
malformed:
    ERR CERT_MALFORMED
unsupported:
    ERR CERT_UNSUPPORTED
bad_input:
    ERR BAD_INPUT
name_mismatch:
    ERR CERT_NAME

# The window's secret top (isa.toml secret_bytes, from SECRET_BASE) is read by the programs made to
# take secrets alone, each from its own fixed place. Every other input and output a caller names
# must lie below it, so no program can be made to copy, hash, compare or derive a public value from
# a secret. The bus writes only ENT_AT's and CK_AT's bytes there (ctrl_wb.sv), CK_AT's only from a
# WIPE until a program runs.
# The secret top's places, from SECRET_BASE: +0x000 hmac.s's scratch (its pads, inner digest, A(i) and
# block: 0xe0 bytes); then these.
.equ K_AT SECRET_BASE+0x100         # ECDHE's private key k, 32 bytes: the bus writes it, never reads it
.equ PMS_AT SECRET_BASE+0x120       # ECDHE's premaster secret, 32 bytes
.equ MS_AT SECRET_BASE+0x140        # the master secret, 48 bytes (MASTER)
.equ WORK SECRET_BASE+0x170         # 0x90 bytes of work space, each program's own while it runs:
.equ LS_AT WORK                     #   a PRF's label || seed (public bytes, kept apart), 0x50 bytes
.equ KB_AT WORK+0x50                #   KEYS' key block, 40 bytes
.equ VD_AT WORK+0x50                #   FINISHED's verify_data, 12 bytes
.equ KF SECRET_BASE+0x200           # a frame: what a program's registers would lose over a PRF or the DRBG
.equ DK_AT SECRET_BASE+0x210        # the DRBG's Key, 32 bytes
.equ DV_AT SECRET_BASE+0x230        # its V, 32 bytes, then a byte for update's 0x00 or 0x01
.equ DC_AT SECRET_BASE+0x252        # its generate count since the last seed, 2 bytes: 0 = no seed
.equ ENT_AT SECRET_BASE+0x260       # entropy input, 32..64 bytes: the bus writes it; then the seed's other bytes
.equ ENT_BYTES 0x80
.equ CK_AT SECRET_BASE+0x2e0        # the client's signing key, 32 bytes: the bus writes it, never reads it

# public: the span [r13, r14) is in order and below the secret top (BAD_INPUT otherwise).
public:
    CMP r14, r13
    J.c bad_input
    CMPI r14, SECRET_BASE + 1
    J.nc bad_input
    RET

# public_n: the n bytes at r13 (n below 0x8000) are below the secret top (BAD_INPUT otherwise). r14
# changes.
public_n:
    ADD r14, r13, n
    J.c bad_input
    J public

# zero: [r7, r7 + r8) = zeroes, r8 even and not 0 (a secret's end of use). t, r7, r8 change.
zero:
    LDI t, 0
zero_h:
    STH r7, t, 0
    ADDI r7, r7, 2
    SUBI r8, r8, 2
    J.nz zero_h
    RET

# need_tlv_or END, TAG, LIMIT, REFUSAL: the element at p (below LIMIT) must have this tag and be
# strict DER: p = its contents, END = its end; otherwise a jump to REFUSAL.
.macro need_tlv_or end, tag, limit, refusal
    TLV \end, p, \limit, \tag
    J.nz \refusal
.endm

# need_tlv END, TAG, LIMIT: need_tlv_or with CERT_MALFORMED.
.macro need_tlv end, tag, limit
    need_tlv_or \end, \tag, \limit, malformed
.endm

# need_last END, TAG, LIMIT: need_tlv, and the element must end at LIMIT (the last one).
.macro need_last end, tag, limit
    need_tlv \end, \tag, \limit
    CMP \end, \limit
    J.nz malformed
.endm
