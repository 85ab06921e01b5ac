# The handshake's transcript (RFC 5246 7.4.9: the SHA-256 of the handshake messages so far), kept on
# the SHA IP from program to program: its state at TS_AT is the chaining value after the whole
# blocks hashed so far, their count, and the bytes of the block begun. The bus may write the state
# between programs, so the programs check the length they read from it before they use it. TS_ADD resumes the IP from it
# (SHAR), hashes what makes whole blocks, and saves the new chaining value (SHAS); TS_HASH resumes
# it and ends the message, so the state goes on unchanged. The state is public (so is every byte
# in it) and lies below the secret top, under CHAIN_CHECK's frame: no other program writes there,
# and no input a program takes may overlap it.

.equ TS_H 0                         # the chaining value, 32 bytes
.equ TS_N 32                        # the blocks hashed, 4 bytes big-endian (the low half at +34)
.equ TS_LEN 36                      # the bytes of the block begun, 2 bytes
.equ TS_BUF 40                      # those bytes, up to 63

.const SHA256_IV x"6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19"

# TS_START: an empty transcript (H = SHA-256's initial value, no blocks, no bytes).
.entry TS_START
    CALL ts_reset
    END

# ts_reset: TS_START's work. t, r7, r8 change.
ts_reset:
    LDI t, TS_AT
    CCOPY t, SHA256_IV
    LDI r7, TS_AT + TS_N
    LDI r8, 6
    CALL zero
    RET

# TS_ADD: r1, r2 the bytes to add: below the secret top and apart from the handshake's state
# (BAD_INPUT otherwise).
.entry TS_ADD
    MOV r13, r1
    MOV r14, r2
    CALL state_apart
    CALL ts_add
    END

# ts_add: TS_ADD's work on [r1, r2), checked. r3..r11, t change.
ts_add:
    LDI t, TS_AT
    LDH r3, t, TS_LEN
    CMPI r3, 64                     # (the bus may have written the state: no block begun is 64 or more)
    J.nc bad_input
    SUB r4, r2, r1                  # n
    ADD r5, r3, r4                  # the bytes not yet hashed, with these
    J.c bad_input
    CMPI r5, 64
    J.nc ts_blocks
    ADDI r6, t, TS_BUF              # less than a block: into the buffer
    ADD r6, r6, r3
    COPY r6, r1, r4
    STH t, r5, TS_LEN
    RET
ts_blocks:
    SHAR t
    ADDI r6, t, TS_BUF
    SHAU r6, r3                     # the block begun
    ANDI r7, r5, 0x3f               # what stays in the buffer
    SUB r8, r4, r7
    SHAU r1, r8                     # the rest of the whole blocks
    SHAS t
    SUB r9, r5, r7                  # the count: one a block
    LDH r10, t, TS_N + 2
ts_count:
    ADDI r10, r10, 1
    SUBI r9, r9, 64
    J.nz ts_count
    STH t, r10, TS_N + 2
    ADD r11, r1, r8
    COPY r6, r11, r7
    STH t, r7, TS_LEN
    RET

# TS_HASH: the transcript's SHA-256 so far into [r1, r1 + 32): below the secret top and apart from
# the handshake's state (BAD_INPUT otherwise); the transcript goes on.
.entry TS_HASH
    CALL ts_hash
    END

ts_hash:
    MOV r13, r1
    ADDI r14, r1, 32
    J.c bad_input
    CALL state_apart
    LDI t, TS_AT
    LDH r3, t, TS_LEN
    CMPI r3, 64
    J.nc bad_input
    SHAR t
    ADDI r6, t, TS_BUF
    SHAU r6, r3
    SHAF r1
    RET

# state_apart: the span [r13, r14) is below the secret top (public) and apart from the handshake's
# state, the hellos' and the transcript's (BAD_INPUT otherwise). r14 changes.
state_apart:
    CALL public
    CMPI r14, HS_AT + 1
    J.c state_ok
    CMPI r13, TS_AT + TS_BYTES
    J.c bad_input
state_ok:
    RET
