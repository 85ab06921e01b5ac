# HMAC_DRBG (SP 800-90A Rev. 1, 10.1.2) with HMAC-SHA256 on the SHA IP, its state (Key, V and a
# generate count) in the secret top: the handshake's randomness, drawn inside the engine. DRBG_SEED
# instantiates or reseeds it from entropy input the bus writes at ENT_AT (the stand-in for a TRNG
# port) and public bytes (a nonce and a personalization string, or additional input); RANDOM draws
# public bytes (the client random); ECDHE draws its private key, which so never exists outside the
# engine. The entropy input is zeroed once used. No prediction resistance and no additional input
# to generate; the reseed interval is 10,000 generates (then NO_ENTROPY until a reseed), far inside
# the standard's 2^48. WIPE zeroes the state, and a count of 0 means no seed.

# An HMAC_DRBG state is 65 bytes at sb: Key, V (+32) and a byte for update's 0x00 or 0x01 (+64). The
# DRBG's is at DK_AT; SIGN runs RFC 6979's, which is the same construction, on one of its own.
.reg sb r5
.equ S_V 32
.equ S_SEP 64
.equ ENT_MAX 64                     # entropy input and the public rest: at most 64 bytes each
.equ RESEED_MAX 10000               # generates between seeds

# DRBG_SEED: r1 the entropy input's length (32..64 bytes at ENT_AT); r2, r3 the public rest of the
# seed material, at most 64 bytes below the secret top (instantiate: nonce || personalization
# string; reseed: additional input); r4 0 to instantiate (Key = 0x00.., V = 0x01..), 1 to reseed
# (NO_ENTROPY without a seed). BAD_INPUT for lengths or spans out of range, r4 past 1, or an
# instantiation over a seed: the bus chooses the entropy input, so once seeded the state only takes
# more (a reseed) until WIPE; were it to start again from bytes of the bus's choosing, the bus would
# know every key ECDHE draws after.
.entry DRBG_SEED
    CMPI r1, 32
    J.c bad_input
    CMPI r1, ENT_MAX + 1
    J.nc bad_input
    CMPI r4, 2
    J.nc bad_input
    MOV r13, r2
    MOV r14, r3
    CALL public
    SUB r9, r3, r2                  # the public rest's length
    CMPI r9, ENT_MAX + 1
    J.nc bad_input
    LDI sb, DK_AT
    CMPI r4, 0
    J.z seed_new
    LDI t, DC_AT
    LDH r6, t, 0
    CMPI r6, 0
    J.z no_entropy
    J seed_go
seed_new:
    LDI t, DC_AT
    LDH r6, t, 0
    CMPI r6, 0
    J.nz bad_input
    CALL dinit
seed_go:
    LDI r7, ENT_AT                  # the seed material: the entropy input, then the public rest
    ADD r7, r7, r1
    COPY r7, r2, r9
    LDI r3, ENT_AT
    ADD r4, r7, r9
    CALL dupdate
    LDI r7, ENT_AT
    LDI r8, ENT_BYTES
    CALL zero
    LDI t, DC_AT
    LDI r6, 1
    STH t, r6, 0
    END

# RANDOM: r2 bytes (1..1024) from the DRBG into [r1, r1 + r2), below the secret top (BAD_INPUT
# otherwise); NO_ENTROPY without a seed.
.entry RANDOM
    CMPI r2, 1
    J.c bad_input
    CMPI r2, 1025
    J.nc bad_input
    MOV r13, r1
    MOV n, r2
    CALL public_n
    MOV r3, r1
    MOV r6, r2
    CALL drbg_draw
    END

# drbg_draw: r6 bytes (not 0) from the DRBG into [r3, r3 + r6) (10.1.2.5, no additional input);
# NO_ENTROPY without a seed or past the reseed interval. Every register changes.
drbg_draw:
    LDI t, DC_AT
    LDH r7, t, 0
    CMPI r7, 0
    J.z no_entropy
    CMPI r7, RESEED_MAX + 1
    J.nc no_entropy
    ADDI r7, r7, 1
    STH t, r7, 0
    LDI sb, DK_AT
    J gen

# gen: r6 bytes (not 0) from the state at sb into [r3, r3 + r6): V = HMAC(Key, V) for each 32
# bytes, then update with no data (which is also RFC 6979's step for a candidate refused). r1..r4,
# r6..r15, t change.
gen:
    MOV p, sb
    ADDI e, sb, 32
    CALL pads
gen_block:
    ADDI a1, sb, S_V
    LDI n1, 32
    LDI n2, 0
    MOV mac, a1
    CALL hmac2
    LDI r13, 32                     # min(32, what is left)
    CMP r6, r13
    J.nc gen_copy
    MOV r13, r6
gen_copy:
    ADDI t, sb, S_V
    COPY r3, t, r13
    ADD r3, r3, r13
    SUB r6, r6, r13
    J.nz gen_block
    LDI r3, 0
    LDI r4, 0
    CALL dupdate
    RET

# dinit: the state at sb instantiated: Key = 0x00.., V = 0x01... r6, r7, r8, r10 change.
dinit:
    MOV r7, sb
    ADDI r10, sb, 32
    LDI r6, 0
    LDI r8, 0x0101
dinit_h:
    STH r7, r6, 0                   # Key
    STH r7, r8, S_V                 # V
    ADDI r7, r7, 2
    CMP r7, r10
    J.nz dinit_h
    RET

# dupdate: update (10.1.2.2) of the state at sb with the provided data [r3, r4), which may be
# empty: Key = HMAC(Key, V || 0x00 || data), V = HMAC(Key, V); with data, once more with 0x01.
# r1, r2, r7..r15, t change.
dupdate:
    LDI r7, 0
dupdate_round:
    STB sb, r7, S_SEP
    MOV p, sb
    ADDI e, sb, 32
    CALL pads
    ADDI a1, sb, S_V
    LDI n1, 33
    MOV a2, r3
    SUB n2, r4, r3
    MOV mac, sb
    CALL hmac2
    CALL pads                       # the new Key's
    ADDI a1, sb, S_V
    LDI n1, 32
    LDI n2, 0
    MOV mac, a1
    CALL hmac2
    CMP r4, r3
    J.z dupdate_done
    CMPI r7, 1
    J.z dupdate_done
    LDI r7, 1
    J dupdate_round
dupdate_done:
    J wipe_scratch

no_entropy:
    ERR NO_ENTROPY
