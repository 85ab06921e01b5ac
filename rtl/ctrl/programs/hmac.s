# HMAC: HMAC-SHA256 (RFC 2104) of a span of the window. PRF: the TLS 1.2 PRF (RFC 5246 5, P_SHA256).
# Both on the SHA IP: an HMAC is two SHA-256 messages, the key's inner pad and the data, then the
# outer pad and the inner digest. The programs take public keys and data below the secret top; their
# subroutines (pads, hmac2) are the handshake's to run on its secrets, so the pads, the inner digest
# and the PRF's A(i) lie in the scratch at the start of the secret top. The key is at most 64 bytes
# (a TLS premaster or master secret; BAD_INPUT otherwise). Every branch depends on lengths alone,
# never on a key's or a message's bytes.

.equ PAD_I SECRET_BASE              # the key XOR 0x36.., 64 bytes
.equ PAD_O SECRET_BASE+0x40         # the key XOR 0x5c.., 64 bytes
.equ HI SECRET_BASE+0x80            # the inner digest
.equ PA SECRET_BASE+0xa0            # the PRF's A(i)
.equ PO SECRET_BASE+0xc0            # the PRF's block HMAC(secret, A(i) || seed)
.equ SCRATCH_END SECRET_BASE+0xe0

# hmac2's inputs
.reg a1 r8                          # the first span of the data ...
.reg n1 r9
.reg a2 r10                         # ... and the second (each may be empty)
.reg n2 r11
.reg mac r12                        # where the 32-byte MAC goes

# HMAC: r1, r2 the key; r3, r4 the data; r5 the MAC's 32 bytes (check_io's rules).
.entry HMAC
    LDI r6, 32
    CALL check_io
    MOV a1, r3
    SUB n1, r4, r3
    LDI n2, 0
    MOV mac, r5
    CALL pads
    CALL hmac2
    END

# PRF: r1, r2 the secret; r3, r4 the label and the seed, one span; r6 bytes of output into [r5, r5 + r6)
# (check_io's rules).
.entry PRF
    CALL check_io
    CALL prf
    END

# prf: the PRF of the secret [p, e) (at most 64 bytes) over [r3, r4) into [r5, r5 + r6), the output
# apart from the seed and both off the scratch: the handshake's programs call it on their secrets.
# A(1) = HMAC(secret, seed), each block HMAC(secret, A(i) || seed), A(i + 1) = HMAC(secret, A(i));
# then the scratch is zeroes. r5..r15, t change.
prf:
    CALL pads
    MOV a1, r3
    SUB n1, r4, r3
    LDI n2, 0
    LDI mac, PA
    CALL hmac2                      # A(1)
prf_block:
    LDI a1, PA
    LDI n1, 32
    MOV a2, r3
    SUB n2, r4, r3
    LDI mac, PO
    CALL hmac2
    LDI r13, 32                     # min(32, what is left) bytes of it
    CMP r6, r13
    J.nc prf_copy
    MOV r13, r6
prf_copy:
    LDI t, PO
    COPY r5, t, r13
    ADD r5, r5, r13
    SUB r6, r6, r13
    J.z prf_done
    LDI a1, PA                      # A(i + 1), in place
    LDI n1, 32
    LDI n2, 0
    LDI mac, PA
    CALL hmac2
    J prf_block
prf_done:
    J wipe_scratch

# wipe_scratch: the scratch zeroes (the pads hold a key, the PRF's blocks its output): the end of
# every use of a secret key (prf, drbg.s's dupdate). t, r7, r8 change.
wipe_scratch:
    LDI r7, PAD_I
    LDI r8, SCRATCH_END - PAD_I
    CALL zero
    RET

# check_io: the key [r1, r2), the data [r3, r4) and the output [r5, r5 + r6), each in order and below
# the secret top (so off the scratch), the output apart from the data, which the PRF reads again after
# each block (BAD_INPUT otherwise). t, r13, r14 change.
check_io:
    MOV r13, p
    MOV r14, e
    CALL public
    MOV r13, r3
    MOV r14, r4
    CALL public
    MOV r13, r5
    ADD r14, r5, r6
    J.c bad_input
    CALL public
    CMP r4, r5                      # the data end at the output's start, or begin at its end
    J.be io_ok
    CMP r14, r3
    J.a bad_input
io_ok:
    RET

# pads: PAD_I and PAD_O of the key [p, e), at most 64 bytes (BAD_INPUT otherwise), zero-padded.
# t, r13 (the key's length), r14 (the byte), r15 change.
pads:
    CMP e, p
    J.c bad_input
    SUB r13, e, p
    CMPI r13, 65
    J.nc bad_input
    LDI r14, 0
pads_byte:
    LDI t, 0
    CMP r14, r13
    J.nc pads_zero
    ADD r15, p, r14
    LDB t, r15, 0
pads_zero:
    XORI r15, t, 0x36
    STB r14, r15, PAD_I
    XORI r15, t, 0x5c
    STB r14, r15, PAD_O
    ADDI r14, r14, 1
    CMPI r14, 64
    J.nz pads_byte
    RET

# hmac2: the HMAC, with the pads built, of [a1, a1 + n1) then [a2, a2 + n2) into [mac, mac + 32).
# t, r13 change.
hmac2:
    SHAI
    LDI t, PAD_I
    LDI r13, 64
    SHAU t, r13
    SHAU a1, n1
    SHAU a2, n2
    LDI t, HI
    SHAF t
    SHAI
    LDI t, PAD_O
    SHAU t, r13
    LDI t, HI
    LDI r13, 32
    SHAU t, r13
    SHAF mac
    RET
