# Directed programs for the ctrl instruction set (index.toml). `flags R` keeps Z | C << 1 in R.
.macro flags r
    LDI \r, 0
    J.nz f1\@
    ORI \r, \r, 1
f1\@:
    J.nc f2\@
    ORI \r, \r, 2
f2\@:
.endm

.const ABC "abc"
.const EMPTY ""

.entry ALU
    LDI r1, 0x3fff
    SHL r1, r1, 2          # 0xfffc
    ADDI r2, r1, 4         # 0x0000: Z, C (carry out)
    flags r3
    SUBI r4, r2, 1         # 0xffff: C (borrow)
    flags r5
    CMP r4, r1             # 0xffff against 0xfffc: neither
    flags r6
    CMPI r1, 0x3fff        # above
    J.be fail
    J.a alu_above
    J fail
alu_above:
    CMP r1, r1             # equal: below or equal, not above
    J.a fail
    J.be alu_be
    J fail
alu_be:
    AND r7, r1, r4         # 0xfffc
    ANDI r8, r7, 3         # 0: Z (C kept from CMP: clear)
    flags r9
    OR r10, r8, r8         # 0: Z
    ORI r11, r8, 0x2aaa    # (no flags)
    SHL r12, r11, 20       # past 15: 0
    SHL r13, r11, 1        # 0x5554
    ADD r14, r13, r11      # 0x7ffe
    MOV r15, r14
    END
fail:
    ERR BAD_INPUT

.entry CALLS
    LDI r1, 0
    CALL rec
    END
rec:                       # r1 + 1 levels deep so far; on until r2
    ADDI r1, r1, 1
    CMP r1, r2
    J.z rec_done
    CALL rec
rec_done:
    RET

.entry RET_EMPTY
    RET

.entry MEM
    LDB r3, r1, 1          # 'b'
    STB r2, r3, 0          # dst[0] = 'b'
    LDI r4, 3
    ADDI r6, r2, 1
    COPY r6, r1, r4        # dst[1..4) = "abc"
    MEQ r6, r4, ABC
    flags r7               # Z
    LDI r8, 0
    MEQ r6, r8, EMPTY      # zero bytes against an empty constant: equal
    flags r9
    MEQ r6, r8, ABC        # lengths differ
    flags r10
    MCMP r8, r1, r2        # zero bytes: equal
    flags r11
    MCMP r4, r1, r6        # "abc" against "abc"
    flags r12
    STB r6, r4, 2          # dst[3] = 3: "ab\x03"
    MCMP r4, r1, r6        # "abc" against "ab\x03": above
    flags r13
    MCMP r4, r6, r1        # below
    flags r14
    LDB r15, r2, 3         # 3
    END

.entry HALF
    STH r1, r2, 1          # mem[r1 + 1] = r2 >> 8, mem[r1 + 2] = r2 & 0xff
    LDH r3, r1, 1          # r2 again
    LDB r4, r1, 1          # the high byte
    LDB r5, r1, 2          # the low one
    LDI r6, MEM_BYTES-1
    STH r6, r2, 0          # the window's last byte, then its first
    LDH r7, r6, 0
    LDB r8, r6, 1          # (MEM_BYTES: address 0)
    XORI r9, r2, 0x0f0f    # 0xaa55
    flags r10              # Z clear (C as CMP left it: clear)
    XORI r11, r4, 0xa5     # 0: Z set
    flags r12
    ADDI r13, r1, 8
    CCOPY r13, ABC         # mem[r1 + 8 ..) = "abc"
    CCOPY r13, EMPTY       # nothing
    END

.entry OUTS
    LDI r3, 4
    OUT A, r1, r3
    OUTN B, r1, r3
    LDI r5, 0x1234
    OUTR C, r5
    LDI r3, 32
    OUTN B, r1, r3
    LDI r3, 33
    OUTN A, r1, r3
    END

.entry OVERLAP
    LDI r3, 4
    ADDI r4, r1, 2
    COPY r4, r1, r3
    END

.entry SHA
    SHAI
    SHAU r1, r3             # the first r3 bytes
    ADD r5, r1, r3
    SUB r6, r2, r3
    SHAU r5, r6             # the rest
    SHAF r4
    LDI r7, 32
    OUT D, r4, r7
    SHAI
    LDI r8, 0
    SHAU r1, r8             # zero bytes: one cycle
    ADDI r9, r4, 32
    SHAF r9
    OUT E, r9, r7
    END

.entry SHA_SAVE
    SHAI
    SHAU r1, r3                 # r3 bytes: whole blocks
    SHAS r4                     # the chaining value to r4 (the caller put the block count at r4 + 32)
    ADD r6, r1, r3
    SUB r7, r2, r3
    SHAU r6, r7
    SHAF r5                     # the digest, straight through
    SHAR r4                     # the message again from the saved state
    SHAU r6, r7
    ADDI r8, r5, 32
    SHAF r8                     # the digest, resumed
    LDI r9, 32
    OUT D, r5, r9
    OUT E, r8, r9
    END

.entry SHA_SAVE_BAD
    SHAI
    SHAU r1, r2
    SHAS r4                     # r2 bytes, not a whole non-zero number of blocks: ENGINE
    END

.entry SHA_NO_INIT
    LDI r3, 1
    SHAU r1, r3
    END

.entry SHA_TWICE
    SHAI
    SHAF r1
    SHAF r1
    END

.entry PK
    LDI r3, 32
    PKW PK_SLOT_E, r1, r3
    LDI r3, 0
    PKW PK_SLOT_QX, r1, r3     # no bytes: 0
    LDI r3, 5
    PKW PK_SLOT_QY, r1, r3
    ADDI r7, r1, 0x100
    PKR PK_SLOT_E, r7          # the three slots back: mem[r1 + 0x100 .. r1 + 0x160)
    ADDI r7, r1, 0x120
    PKR PK_SLOT_QX, r7
    ADDI r7, r1, 0x140
    PKR PK_SLOT_QY, r7
    PKRUN r4, PK_PROG_ECDSA_VERIFY
    flags r5
    PKRUN r6, PK_PROG_ECDSA_VERIFY + 32     # on cache entry 1 (imm[9:5])
    LDI r3, 33
    PKW PK_SLOT_E, r1, r3
    END

.entry PK_READ_BAD
    PKR 32, r1                 # no slot 32: BAD_PROGRAM
    END

.entry PK_VERIFY
    LDI r3, 32
    PKW PK_SLOT_E, r1, r3
    ADDI r2, r1, 32
    PKW PK_SLOT_RX, r2, r3
    ADDI r2, r2, 32
    PKW PK_SLOT_RY, r2, r3
    ADDI r2, r2, 32
    PKW PK_SLOT_QX, r2, r3
    ADDI r2, r2, 32
    PKW PK_SLOT_QY, r2, r3
    PKRUN r4, PK_PROG_ECDSA_VERIFY
    flags r5
    END
