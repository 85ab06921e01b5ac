#!/usr/bin/env python3
"""The pk engine's microcode: instruction set, programs, an executable model, and the generator.

One description serves three users:
  * pk_core.sv runs the programs from a ROM generated here (build/gen/rtl/pk_ucode.sv);
  * the drivers use the slot map and program numbers from build/gen/include/se/hw/pk_ucode.h;
  * tests run the same programs on `Machine` (Python integers) to check the formulas, and on
    the RTL to check the hardware.

Data lives in 32 operand slots of 256 bits (an SRAM inside the engine). Field values are kept in
the Montgomery domain (x*R mod m, R = 2^(DW*ndig)); MUL is the Montgomery product. Two moduli
are held at once: field p (f=0) and group order n (f=1).

Constant time: no instruction's cycle count depends on data. The data-dependent branches
(JF/JNF) test public facts (a point is on the curve, r and s are in range, the moduli are
valid) or end a program on an invalid secret input (k or d out of range), which the status
reports anyway. Secret bits move data only through CSWAP, SEL and TSEL, which always write
both/all slots and read every cache slot of the entry.
"""
import argparse
import pathlib

DW = 32          # Montgomery digit width of pk_alu: pk_core and pk_wb use the same default
W = 256

# ---- instruction set --------------------------------------------------------------------------
# 32-bit microinstruction: [31:27] op, [26] f, [25:21] d, [20:16] a, [15:11] b, [9:0] imm;
# LDI uses [20:0] as a 21-bit immediate.
OPS = ["END", "MUL", "ADD", "SUB", "MOV", "LDI", "CSWAP", "SEL", "EQ", "ZF", "LTM", "JMP", "JF",
       "JNF", "CALL", "RET", "STF", "ERR", "SETMOD", "SCAL", "CNT", "DJNZ", "LBIT", "LFIN", "KBIT",
       "NEED", "MARK", "TLD", "TST", "TSEL", "UNMARK"]
OP = {name: i for i, name in enumerate(OPS)}
OP_DOC = {
    "END": "end of program: done, STATUS.RESULT = the status (OK unless STF/ERR set it)",
    "MUL": "d = a*b*R^-1 mod m_f (Montgomery product); a < R, b < m_f",
    "ADD": "d = a + b mod m_f; a + b < 2 m_f",
    "SUB": "d = a - b mod m_f; a, b < m_f",
    "MOV": "d = a",
    "LDI": "d = imm21 (zero-extended)",
    "CSWAP": "swap slots a and b if F (both are always rewritten)",
    "SEL": "d = F ? a : b (d is always written)",
    "EQ": "F = (a == b)",
    "ZF": "F = (a == 0)",
    "LTM": "F = (a < m_f)",
    "JMP": "pc = imm",
    "JF": "if F: pc = imm (public F only)",
    "JNF": "if !F: pc = imm (public F only)",
    "CALL": "push pc+1, pc = imm (4 levels)",
    "RET": "pc = pop",
    "STF": "if F and the status is OK: status = imm",
    "ERR": "status = imm, end",
    "SETMOD": "m_f = a; ndig_f = digits of a; minv_f = -m_f^-1 mod 2^DW; F = (a even or a < 3)",
    "SCAL": "K = a (the scalar register); F = (a >= 2^(DW*ndig_f))",
    "CNT": "ctr = DW*ndig_f - 1 (b = 0), 2*DW*ndig_f - 1 (b = 1), or imm (b = 2)",
    "DJNZ": "if ctr != 0: ctr -= 1, pc = imm",
    "LBIT": "F = K[ctr] ^ prev; prev = K[ctr] (Montgomery-ladder swap bit)",
    "LFIN": "F = prev; prev = 0 (the ladder's final swap)",
    "KBIT": "F = K[ctr]",
    "NEED": "unless all flags in imm are set: status = BAD_SEQ, end (ENTRY 8: CMD.SLOT < 6; CACHED 16: that entry was "
            "precomputed; GCACHED 32: entry 0 was precomputed)",
    "MARK": "set the flags in imm (FIELD 1, ORDER 2, CURVE 4, CACHED 16 for the entry); a host write to slots 0..11 clears them all",
    "UNMARK": "clear the flags in imm (FIELD 1, ORDER 2, CURVE 4)",
    "TLD": "d, b = x, y of point imm (0..6) of the cache entry CMD.SLOT",
    "TST": "point imm of the cache entry = a, b",
    "TSEL": "d, b = point idx - 1 of the cache entry (f = 1: of entry 0, G's), idx = K[ctr] + 2 K[ctr + C] "
            "+ 4 K[ctr + 2C] (C = ceil(L_n / 3)); F = (idx == 0); reads all 7 points whatever idx is",
}

CACHE_ENTRIES, CACHE_POINTS = 6, 7  # precompute cache: 6 base points, 7 comb points each
CACHE_BASE = 32                     # cache slot of entry e, point i, coordinate c: 32 + 14e + 2i + c

STATUS = {"OK": 0, "BAD_PARAMS": 1, "BAD_POINT": 2, "BAD_SCALAR": 3, "INFINITY": 4,
          "VERIFY_FAIL": 5, "RETRY": 6, "BAD_SEQ": 7, "BAD_INSN": 8}
FLAG = {"FIELD": 1, "ORDER": 2, "CURVE": 4, "ENTRY": 8, "CACHED": 16, "GCACHED": 32}

# ---- slot map ---------------------------------------------------------------------------------
SLOTS = ["P", "N", "A", "B", "GX", "GY", "RRP", "RRN", "ONEP", "ONEN", "B4", "B8",
         "K", "D", "E", "QX", "QY", "RX", "RY",
         "X", "Y", "X0", "Z0", "X1", "Z1", "T0", "T1", "T2", "T3", "T4", "T5", "T6"]
S = {name: i for i, name in enumerate(SLOTS)}
STATE_SLOTS = 12  # slots 0..11 hold the loaded curve; writing one clears the FIELD/ORDER/CURVE flags
SLOT_DOC = {
    "P": "field prime p (input, plain)", "N": "group order n (input, plain)",
    "A": "curve a (input plain; Montgomery after CURVE)", "B": "curve b (likewise)",
    "GX": "generator x (likewise)", "GY": "generator y (likewise)",
    "RRP": "R^2 mod p (FIELD)", "RRN": "R^2 mod n (ORDER)", "ONEP": "R mod p", "ONEN": "R mod n",
    "B4": "4b (Montgomery, CURVE)", "B8": "8b (Montgomery, CURVE)",
    "K": "scalar / ECDSA nonce k (input)", "D": "ECDSA private key d (input)",
    "E": "ECDSA hash value e (input, truncated to the bit length of n)",
    "QX": "input point x (plain)", "QY": "input point y (plain)",
    "RX": "result x / ECDSA r (plain)", "RY": "result y / ECDSA s (plain)",
}


class Asm:
    def __init__(self):
        self.code, self.labels, self.fix = [], {}, []
        self.entries = {}

    def label(self, name):
        assert name not in self.labels, name
        self.labels[name] = len(self.code)

    def entry(self, name):
        self.entries[name] = len(self.code)
        self.label("prog_" + name)

    def emit(self, op, d=0, a=0, b=0, f=0, imm=0, target=None, text=""):
        if target is not None:
            self.fix.append((len(self.code), target))
        self.code.append([OP[op], f, d, a, b, imm, text])

    def words(self):
        for pc, target in self.fix:
            self.code[pc][5] = self.labels[target]
        out = []
        for op, f, d, a, b, imm, _ in self.code:
            if op == OP["LDI"]:
                assert imm < (1 << 21)
                out.append(op << 27 | d << 21 | imm)
            else:
                assert imm < 1024
                out.append(op << 27 | f << 26 | d << 21 | a << 16 | b << 11 | imm)
        return out


def build():
    """Assembles every program; returns the Asm."""
    m = Asm()

    def r(x):
        return S[x]

    def mul(d, a, b, f=0): m.emit("MUL", r(d), r(a), r(b), f, text=f"MUL{'.n' if f else ''} {d}, {a}, {b}")
    def add(d, a, b, f=0): m.emit("ADD", r(d), r(a), r(b), f, text=f"ADD{'.n' if f else ''} {d}, {a}, {b}")
    def sub(d, a, b, f=0): m.emit("SUB", r(d), r(a), r(b), f, text=f"SUB{'.n' if f else ''} {d}, {a}, {b}")
    def mov(d, a): m.emit("MOV", r(d), r(a), text=f"MOV {d}, {a}")
    def ldi(d, v): m.emit("LDI", r(d), imm=v, text=f"LDI {d}, {v}")
    def cswap(a, b): m.emit("CSWAP", 0, r(a), r(b), text=f"CSWAP {a}, {b}")
    def sel(d, a, b): m.emit("SEL", r(d), r(a), r(b), text=f"SEL {d}, {a}, {b}")
    def eq(a, b): m.emit("EQ", 0, r(a), r(b), text=f"EQ {a}, {b}")
    def zf(a): m.emit("ZF", 0, r(a), text=f"ZF {a}")
    def ltm(a, f=0): m.emit("LTM", 0, r(a), 0, f, text=f"LTM{'.n' if f else ''} {a}")
    def jmp(t): m.emit("JMP", target=t, text=f"JMP {t}")
    def jf(t): m.emit("JF", target=t, text=f"JF {t}")
    def jnf(t): m.emit("JNF", target=t, text=f"JNF {t}")
    def call(t): m.emit("CALL", target=t, text=f"CALL {t}")
    def ret(): m.emit("RET", text="RET")
    def stf(code): m.emit("STF", imm=STATUS[code], text=f"STF {code}")
    def err(code): m.emit("ERR", imm=STATUS[code], text=f"ERR {code}")
    def end(): m.emit("END", text="END")
    def setmod(a, f): m.emit("SETMOD", 0, r(a), 0, f, text=f"SETMOD{'.n' if f else ''} {a}")
    def scal(a, f=1): m.emit("SCAL", 0, r(a), 0, f, text=f"SCAL{'.n' if f else ''} {a}")
    def cnt(f, kind, n=0): m.emit("CNT", b=kind, f=f, imm=n, text=f"CNT{'.n' if f else ''} {kind} {n}")
    def djnz(t): m.emit("DJNZ", target=t, text=f"DJNZ {t}")
    def lbit(): m.emit("LBIT", text="LBIT")
    def lfin(): m.emit("LFIN", text="LFIN")
    def kbit(): m.emit("KBIT", text="KBIT")
    def need(*fl): m.emit("NEED", imm=sum(FLAG[x] for x in fl), text="NEED " + " ".join(fl))
    def mark(*fl): m.emit("MARK", imm=sum(FLAG[x] for x in fl), text="MARK " + " ".join(fl))
    def unmark(*fl): m.emit("UNMARK", imm=sum(FLAG[x] for x in fl), text="UNMARK " + " ".join(fl))
    def tld(i, x, y): m.emit("TLD", r(x), 0, r(y), imm=i, text=f"TLD {x}, {y}, T{i + 1}")
    def tst(i, x, y): m.emit("TST", 0, r(x), r(y), imm=i, text=f"TST T{i + 1}, {x}, {y}")
    def tsel(x, y, g=0): m.emit("TSEL", r(x), 0, r(y), g, text=f"TSEL{'.g' if g else ''} {x}, {y}")

    def comb_add(g=0):               # acc (QX : QY : E) += the column's point of the table (g: G's)
        tsel("RX", "RY", g)
        mov("T6", "ONEP")
        call("padd")
        sel("QX", "QX", "X0")        # digit 0: keep acc
        sel("QY", "QY", "Z0")
        sel("E", "E", "X1")

    # -- FIELD / ORDER: a modulus, its R^2 (2*DW*ndig modular doublings of 1) and R ---------------
    def modulus(f, mslot, rr, one, name):
        m.entry(name)
        setmod(mslot, f)
        jf("bad_params")
        ldi(rr, 1)
        cnt(f, 1)
        m.label(name + "_rr")
        add(rr, rr, rr, f)
        djnz(name + "_rr")
        ldi("T0", 1)
        mul(one, "T0", rr, f)
        mark("FIELD" if f == 0 else "ORDER")
        end()

    modulus(0, "P", "RRP", "ONEP", "FIELD")
    modulus(1, "N", "RRN", "ONEN", "ORDER")

    # -- CURVE: a, b, G into the Montgomery domain, G on the curve ---------------------------------
    m.entry("CURVE")
    need("FIELD", "ORDER")
    unmark("CURVE")                  # A, B, G are converted in place: a second CURVE must not pass
    scal("P", 1)                     # x mod n by Montgomery products needs p < R_n
    jf("bad_params")
    for s in ("A", "B", "GX", "GY"):
        ltm(s)
        jnf("bad_params")
    for s in ("A", "B", "GX", "GY"):
        mul(s, s, "RRP")
    add("B4", "B", "B")
    add("B4", "B4", "B4")
    add("B8", "B4", "B4")
    mov("X", "GX")
    mov("Y", "GY")
    call("oncurve")
    jnf("bad_params")
    zf("X")                      # the x-only ladder needs x(P) != 0
    jf("bad_params")
    mark("CURVE")
    end()

    # -- VALIDATE: (QX, QY) is a point of the curve (BAD_POINT otherwise) --------------------------
    def load_q():
        ltm("QX")
        jnf("bad_point")
        ltm("QY")
        jnf("bad_point")
        mul("X", "QX", "RRP")
        mul("Y", "QY", "RRP")
        call("oncurve")
        jnf("bad_point")
        zf("X")
        jf("bad_point")

    m.entry("VALIDATE")
    need("CURVE")
    load_q()
    end()

    # -- ECSM: (RX, RY) = K * (QX, QY); INFINITY if the result is O --------------------------------
    m.entry("ECSM")
    need("CURVE")
    load_q()
    jmp("ecsm_common")
    m.entry("ECSM_G")                # (RX, RY) = K * G
    need("CURVE")
    mov("X", "GX")
    mov("Y", "GY")
    m.label("ecsm_common")
    scal("K")
    jf("bad_scalar")
    call("ladder")
    call("yrecover")
    call("frommont")
    stf("INFINITY")
    end()

    # -- ECDSA_SIGN: r = x(kG) mod n, s = k^-1 (e + r d) mod n into (RX, RY) -----------------------
    m.entry("ECDSA_SIGN")
    need("CURVE", "ENTRY", "CACHED")  # the cache entry holds G's table
    for s in ("K", "D"):             # k and d in [1, n-1]
        zf(s)
        jf("bad_scalar")
        ltm(s, 1)
        jnf("bad_scalar")
    mov("X", "E")                    # e (the comb works in E)
    scal("K")
    call("comb")                     # k G
    call("frommont")
    call("xmodn")                    # r = x mod n
    mov("RX", "T0")
    zf("RX")
    stf("RETRY")
    mul("T1", "RX", "RRN", 1)        # r R
    mul("T1", "T1", "D", 1)          # r d
    ldi("T6", 0)
    add("T2", "X", "T6", 1)          # e mod n (e < 2^bitlen(n) < 2n)
    add("T2", "T1", "T2", 1)         # e + r d (T2: inv_n works in T0, T1, T3)
    mul("T3", "K", "RRN", 1)         # k R
    call("inv_n")                    # k^-1 R
    mul("RY", "T3", "T2", 1)         # s = k^-1 (e + r d)
    zf("RY")
    stf("RETRY")
    end()

    # -- ECDSA_VERIFY: OK or VERIFY_FAIL for (QX, QY), e = E, r = RX, s = RY -----------------------
    def verify_begin(*flags):        # r, s in [1, n-1]; X, Y = Q (Montgomery), validated
        need(*flags)
        for s in ("RX", "RY"):
            zf(s)
            jf("verify_fail")
            ltm(s, 1)
            jnf("verify_fail")
        load_q()

    def verify_scalars(u2):          # K = r; D = u1 = e w, u2 = r w (w = s^-1 mod n)
        mov("K", "RX")
        mul("T3", "RY", "RRN", 1)    # s R
        call("inv_n")                # w R = s^-1 R
        ldi("T6", 0)
        add("T2", "E", "T6", 1)      # e mod n
        mul("D", "T2", "T3", 1)      # u1 = e w
        mul(u2, "RX", "T3", 1)       # u2 = r w

    def verify_end(x, z):            # OK if the x of (x : . : z), affine, mod n is r (in K)
        zf(z)
        jf("verify_fail")
        mov("T3", z)
        call("inv_p")
        mul("RX", x, "T3")
        ldi("T6", 1)
        mul("RX", "RX", "T6")        # x, plain
        call("xmodn")
        eq("T0", "K")
        jnf("verify_fail")
        end()

    m.entry("ECDSA_VERIFY")
    verify_begin("CURVE", "ENTRY", "CACHED")  # the cache entry holds G's table (u1 G by the comb)
    verify_scalars("E")
    scal("E")
    call("ladder")                   # u2 Q
    call("yrecover")
    call("topoint")
    mov("X", "RX")                   # u2 Q = (X : Y : D): slots the comb leaves alone
    mov("Y", "RY")
    scal("D")
    mov("D", "T6")
    call("comb")                     # u1 G, affine; E = 0 if it is O (u1 = 0)
    zf("E")
    call("topoint")                  # (RX : RY : T6)
    mov("QX", "X")
    mov("QY", "Y")
    mov("E", "D")
    call("padd")                     # (X0 : Z0 : X1) = (QX : QY : E) + (RX : RY : T6)
    verify_end("X0", "X1")
    m.label("verify_fail")
    err("VERIFY_FAIL")

    # -- ECDSA_VERIFY_COMB: ECDSA_VERIFY for the Q whose table is in cache entry CMD.SLOT (PRECOMP),
    #    G's in entry 0: one joint comb, u1 G + u2 Q, a doubling and two additions per column
    m.entry("ECDSA_VERIFY_COMB")
    verify_begin("CURVE", "ENTRY", "CACHED", "GCACHED")
    tld(0, "T4", "T5")               # Q must be the entry's point
    eq("X", "T4")
    jnf("wrong_entry")
    eq("Y", "T5")
    jnf("wrong_entry")
    verify_scalars("X")              # D and X: slots the comb leaves alone
    ldi("QX", 0)
    mov("QY", "ONEP")
    ldi("E", 0)                      # acc = O = (0 : 1 : 0)
    cnt(1, 3)
    m.label("joint_loop")
    call("pdbl")
    for u, g in (("D", 1), ("X", 0)):  # + T_u1[column] of G's table, + T_u2[column] of Q's
        scal(u)
        comb_add(g)
    djnz("joint_loop")
    verify_end("QX", "E")            # E = 0: u1 G + u2 Q = O
    m.label("wrong_entry")
    err("BAD_SEQ")

    # -- PADD: (RX, RY) = (QX, QY) + (RX, RY), complete (P + P, P + (-P) included) -----------------
    m.entry("PADD")
    need("CURVE")
    load_q()
    mov("T6", "QX")                  # second point: validate it through load_q too
    mov("T5", "QY")
    mov("QX", "RX")
    mov("QY", "RY")
    load_q()
    mov("RX", "X")
    mov("RY", "Y")
    mul("QX", "T6", "RRP")
    mul("QY", "T5", "RRP")
    mov("E", "ONEP")
    mov("T6", "ONEP")
    call("padd")
    mov("T3", "X1")
    call("inv_p")
    mul("RX", "X0", "T3")
    mul("RY", "Z0", "T3")
    ldi("T6", 1)
    mul("RX", "RX", "T6")
    mul("RY", "RY", "T6")
    zf("X1")
    stf("INFINITY")
    end()

    # -- X25519 (RFC 7748) on the field p = 2^255 - 19 (FIELD first): RX = X25519(K, QX) -----------
    m.entry("X25519")
    need("FIELD")
    mul("X", "QX", "RRP")            # u < 2^255 < R: reduced on the way in
    ldi("T6", 121665)
    mul("T6", "T6", "RRP")           # a24
    mov("X0", "ONEP")
    ldi("Z0", 0)
    mov("X1", "X")
    mov("Z1", "ONEP")
    scal("K", 0)
    cnt(0, 2, 254)
    m.label("x25519_loop")
    lbit()
    cswap("X0", "X1")
    cswap("Z0", "Z1")
    add("T0", "X0", "Z0")            # A
    mul("T1", "T0", "T0")            # AA
    sub("T2", "X0", "Z0")            # B
    mul("T3", "T2", "T2")            # BB
    sub("T4", "T1", "T3")            # E
    add("T5", "X1", "Z1")            # C
    sub("Y", "X1", "Z1")             # D
    mul("Y", "Y", "T0")              # DA
    mul("T5", "T5", "T2")            # CB
    add("T0", "Y", "T5")
    mul("X1", "T0", "T0")            # x3 = (DA + CB)^2
    sub("T0", "Y", "T5")
    mul("T0", "T0", "T0")
    mul("Z1", "T0", "X")             # z3 = x1 (DA - CB)^2
    mul("X0", "T1", "T3")            # x2 = AA BB
    mul("T0", "T6", "T4")
    add("T0", "T1", "T0")
    mul("Z0", "T4", "T0")            # z2 = E (AA + a24 E)
    djnz("x25519_loop")
    lfin()
    cswap("X0", "X1")
    cswap("Z0", "Z1")
    mov("T3", "Z0")
    call("inv_p")
    mul("RX", "X0", "T3")
    ldi("T6", 1)
    mul("RX", "RX", "T6")
    end()

    # -- MODINV_P / MODINV_N: RX = K^-1 mod m (plain; 0 for K = 0) ---------------------------------
    for f, name in ((0, "MODINV_P"), (1, "MODINV_N")):
        m.entry(name)
        need("FIELD" if f == 0 else "ORDER")
        mul("T3", "K", "RRP" if f == 0 else "RRN", f)
        call("inv_p" if f == 0 else "inv_n")
        ldi("T6", 1)
        mul("RX", "T3", "T6", f)
        end()

    # -- PRECOMP: cache entry CMD.SLOT = the comb table of (QX, QY): T[i] = sum of the 2^(jC) P for
    #    the bits j of i (i = 1..7, C = ceil(L/3) columns), affine, Montgomery domain
    m.entry("PRECOMP")
    need("CURVE", "ENTRY")
    load_q()
    tst(0, "X", "Y")                 # T1 = P
    for src, dst in ((0, 1), (1, 3)):  # T2 = 2^C T1, T4 = 2^C T2
        tld(src, "QX", "QY")
        mov("E", "ONEP")
        cnt(1, 3)
        m.label(f"pre_dbl{dst}")
        call("pdbl")
        djnz(f"pre_dbl{dst}")
        call("toaffine")
        tst(dst, "RX", "RY")
    for a, b, dst in ((0, 1, 2), (0, 3, 4), (1, 3, 5), (2, 3, 6)):  # T3, T5, T6, T7
        tld(a, "QX", "QY")
        mov("E", "ONEP")
        tld(b, "RX", "RY")
        mov("T6", "ONEP")
        call("padd")
        mov("QX", "X0")
        mov("QY", "Z0")
        mov("E", "X1")
        call("toaffine")
        tst(dst, "RX", "RY")
    mark("CACHED")
    end()

    # -- ECSM_COMB: (RX, RY) = K * P for the P cached in entry CMD.SLOT: fixed-base comb, one
    #    doubling and one addition per column, both complete; column digit 0 adds nothing (SEL)
    m.entry("ECSM_COMB")
    need("CURVE", "ENTRY", "CACHED")
    scal("K")
    jf("bad_scalar")
    call("comb")
    call("frommont")
    zf("E")
    stf("INFINITY")
    end()

    # ---- subroutines ----------------------------------------------------------------------------
    # (RX, RY) = K P, affine Montgomery, for the P of the cache entry; E = 0 if the result is O
    m.label("comb")
    ldi("QX", 0)
    mov("QY", "ONEP")
    ldi("E", 0)                      # acc = O = (0 : 1 : 0)
    cnt(1, 3)
    m.label("comb_loop")
    call("pdbl")
    comb_add()
    djnz("comb_loop")
    call("toaffine")
    ret()

    # acc (QX : QY : E) = 2 acc, by the complete addition
    m.label("pdbl")
    mov("RX", "QX")
    mov("RY", "QY")
    mov("T6", "E")
    call("padd")
    mov("QX", "X0")
    mov("QY", "Z0")
    mov("E", "X1")
    ret()

    # (RX, RY) = affine (QX : QY : E), Montgomery domain (0, 0 for O)
    m.label("toaffine")
    mov("T3", "E")
    call("inv_p")
    mul("RX", "QX", "T3")
    mul("RY", "QY", "T3")
    ret()

    # F = (Y^2 == X^3 + a X + b), Montgomery domain
    m.label("oncurve")
    mul("T0", "X", "X")
    add("T0", "T0", "A")
    mul("T0", "T0", "X")
    add("T0", "T0", "B")
    mul("T1", "Y", "Y")
    eq("T0", "T1")
    ret()

    # x-only Montgomery ladder over all DW*ndig_n bits of K: (X0:Z0) = K P, (X1:Z1) = (K+1) P with
    # x(P) = X. Starts from R0 = O = (1:0), so no recoding: doubling keeps O, and the differential
    # addition of O and P gives P because R1 - R0 = P throughout.
    m.label("ladder")
    mov("X0", "ONEP")
    ldi("Z0", 0)
    mov("X1", "X")
    mov("Z1", "ONEP")
    cnt(1, 0)
    m.label("ladder_loop")
    lbit()
    cswap("X0", "X1")
    cswap("Z0", "Z1")
    # (X1:Z1) = (X0:Z0) + (X1:Z1), difference P:
    # X3 = (X0X1 - a Z0Z1)^2 - 4b Z0Z1 (X0Z1 + X1Z0), Z3 = x (X0Z1 - X1Z0)^2
    mul("T0", "X0", "X1")
    mul("T1", "Z0", "Z1")
    mul("T2", "X0", "Z1")
    mul("T3", "X1", "Z0")
    mul("T4", "A", "T1")
    sub("T4", "T0", "T4")
    mul("T4", "T4", "T4")
    add("T5", "T2", "T3")
    mul("T5", "T5", "T1")
    mul("T5", "T5", "B4")
    sub("X1", "T4", "T5")
    sub("T2", "T2", "T3")
    mul("T2", "T2", "T2")
    mul("Z1", "T2", "X")
    # (X0:Z0) = 2 (X0:Z0): X = (XX - a ZZ)^2 - 8b X Z ZZ, Z = 4 Z (X (XX + a ZZ) + b Z ZZ)
    mul("T0", "X0", "X0")
    mul("T1", "Z0", "Z0")
    mul("T2", "A", "T1")
    sub("T3", "T0", "T2")
    mul("T3", "T3", "T3")
    add("T0", "T0", "T2")
    mul("T0", "T0", "X0")
    mul("T2", "X0", "Z0")
    mul("T2", "T2", "T1")
    mul("T4", "T2", "B8")
    sub("X0", "T3", "T4")
    mul("T1", "T1", "Z0")
    mul("T1", "T1", "B")
    add("T0", "T0", "T1")
    mul("T0", "T0", "Z0")
    add("T0", "T0", "T0")
    add("Z0", "T0", "T0")
    djnz("ladder_loop")
    lfin()
    cswap("X0", "X1")
    cswap("Z0", "Z1")
    ret()

    # y-recovery (Okeya-Sakurai) with one inversion: (RX, RY) = K P affine, Montgomery domain.
    # y = [2b Z0^2 Z1 + (a Z0 + x X0)(x Z0 + X0) Z1 - X1 (x Z0 - X0)^2] / (2y Z0^2 Z1),
    # x = X0 (2y Z0 Z1) / (2y Z0^2 Z1). Z1 = 0 means K P = -P; Z0 = 0 (F on return) means O.
    m.label("yrecover")
    mul("T0", "X", "Z0")
    add("T1", "T0", "X0")
    sub("T0", "T0", "X0")
    mul("T0", "T0", "T0")
    mul("T0", "T0", "X1")
    mul("T2", "A", "Z0")
    mul("T3", "X", "X0")
    add("T2", "T2", "T3")
    mul("T2", "T2", "T1")
    mul("T2", "T2", "Z1")
    sub("T2", "T2", "T0")
    mul("T3", "Z0", "Z0")
    mul("T3", "T3", "Z1")
    mul("T1", "T3", "B")
    add("T1", "T1", "T1")
    add("T2", "T2", "T1")
    add("T4", "Y", "Y")
    mul("T5", "T4", "Z0")
    mul("T5", "T5", "Z1")
    mul("T3", "T5", "Z0")
    call("inv_p")
    mul("RY", "T2", "T3")
    mul("T5", "T5", "T3")
    mul("RX", "X0", "T5")
    ldi("T0", 0)
    sub("T0", "T0", "Y")
    zf("Z1")
    sel("RX", "X", "RX")
    sel("RY", "T0", "RY")
    zf("Z0")
    ret()

    # T0 = RX mod n for RX < p < R_n (CURVE checked p < R_n): (x R^2 / R) / R
    m.label("xmodn")
    mul("T0", "RX", "RRN", 1)
    ldi("T1", 1)
    mul("T0", "T0", "T1", 1)
    ret()

    # (RX, RY) from the Montgomery domain (F is kept)
    m.label("frommont")
    ldi("T0", 1)
    mul("RX", "RX", "T0")
    mul("RY", "RY", "T0")
    ret()

    # affine (RX, RY) or O (F) -> projective (RX : RY : T6), O = (0 : 1 : 0)
    m.label("topoint")
    ldi("T0", 0)
    sel("T6", "T0", "ONEP")
    sel("RY", "ONEP", "RY")
    ret()

    # complete addition (Renes-Costello-Batina 2016, Algorithm 1, any a; b3 = 3b):
    # (X0 : Z0 : X1) = (QX : QY : E) + (RX : RY : T6)
    m.label("padd")
    add("Z1", "B", "B")
    add("Z1", "Z1", "B")             # b3
    mul("T0", "QX", "RX")
    mul("T1", "QY", "RY")
    mul("T2", "E", "T6")
    add("T3", "QX", "QY")
    add("T4", "RX", "RY")
    mul("T3", "T3", "T4")
    add("T4", "T0", "T1")
    sub("T3", "T3", "T4")
    add("T4", "QX", "E")
    add("T5", "RX", "T6")
    mul("T4", "T4", "T5")
    add("T5", "T0", "T2")
    sub("T4", "T4", "T5")
    add("T5", "QY", "E")
    add("X0", "RY", "T6")
    mul("T5", "T5", "X0")
    add("X0", "T1", "T2")
    sub("T5", "T5", "X0")
    mul("X1", "A", "T4")
    mul("X0", "Z1", "T2")
    add("X1", "X0", "X1")
    sub("X0", "T1", "X1")
    add("X1", "T1", "X1")
    mul("Z0", "X0", "X1")
    add("T1", "T0", "T0")
    add("T1", "T1", "T0")
    mul("T2", "A", "T2")
    mul("T4", "Z1", "T4")
    add("T1", "T1", "T2")
    sub("T2", "T0", "T2")
    mul("T2", "A", "T2")
    add("T4", "T4", "T2")
    mul("T0", "T1", "T4")
    add("Z0", "Z0", "T0")
    mul("T0", "T5", "T4")
    mul("X0", "T3", "X0")
    sub("X0", "X0", "T0")
    mul("T0", "T3", "T1")
    mul("X1", "T5", "X1")
    add("X1", "X1", "T0")
    ret()

    # T3 = T3^(m-2) mod m_f (Fermat; square and always multiply, the exponent is public anyway)
    for f, name in ((0, "inv_p"), (1, "inv_n")):
        m.label(name)
        ldi("T0", 2)
        ldi("T1", 0)
        sub("T0", "T1", "T0", f)     # m - 2
        scal("T0", f)
        mov("T1", "ONEP" if f == 0 else "ONEN")
        cnt(f, 0)
        m.label(name + "_loop")
        mul("T1", "T1", "T1", f)
        mul("T0", "T1", "T3", f)
        kbit()
        sel("T1", "T0", "T1")
        djnz(name + "_loop")
        mov("T3", "T1")
        ret()

    for lab, code in (("bad_params", "BAD_PARAMS"), ("bad_point", "BAD_POINT"),
                      ("bad_scalar", "BAD_SCALAR")):
        m.label(lab)
        err(code)
    return m


PROGRAMS = ["FIELD", "ORDER", "CURVE", "VALIDATE", "ECSM", "ECSM_G", "ECDSA_SIGN", "ECDSA_VERIFY",
            "PADD", "X25519", "MODINV_P", "MODINV_N", "PRECOMP", "ECSM_COMB", "ECDSA_VERIFY_COMB"]
PROG_DOC = {
    "FIELD": "m_p = P; RRP = R^2 mod p, ONEP = R mod p; sets FIELD (BAD_PARAMS: p even or < 3)",
    "ORDER": "m_n = N; RRN, ONEN; sets ORDER",
    "CURVE": "needs FIELD, ORDER: A, B, GX, GY (plain, < p) into the Montgomery domain, 4b, 8b; G on the curve; sets CURVE",
    "VALIDATE": "OK or BAD_POINT for (QX, QY): coordinates < p, on the curve, x != 0",
    "ECSM": "(RX, RY) = K (QX, QY), validated; BAD_SCALAR if K >= 2^(DW*ndig_n); INFINITY if O",
    "ECSM_G": "(RX, RY) = K G",
    "ECDSA_SIGN": "k = K, d = D, e = E, G's table in cache entry CMD.SLOT: RX = r, RY = s; BAD_SCALAR unless k, d in [1, n-1]; RETRY if r or s is 0",
    "ECDSA_VERIFY": "OK or VERIFY_FAIL for Q = (QX, QY), e = E, r = RX, s = RY, G's table in cache entry CMD.SLOT (BAD_POINT for an invalid Q)",
    "PADD": "(RX, RY) = (QX, QY) + (RX, RY), both validated; INFINITY if O",
    "X25519": "needs FIELD with p = 2^255 - 19: RX = X25519(K, QX) (K clamped and QX < 2^255 by the caller)",
    "MODINV_P": "RX = K^-1 mod p (K < R), 0 for K = 0",
    "MODINV_N": "RX = K^-1 mod n",
    "PRECOMP": "cache entry CMD.SLOT (0..5) = the comb table of (QX, QY), validated; sets that entry's CACHED",
    "ECSM_COMB": "(RX, RY) = K P for the P of cache entry CMD.SLOT (fixed-base comb); INFINITY if O",
    "ECDSA_VERIFY_COMB": "as ECDSA_VERIFY, for the Q = (QX, QY) whose table is in cache entry CMD.SLOT (BAD_SEQ if "
                         "that entry holds another point), G's in entry 0: a joint comb",
}


# ---- model ------------------------------------------------------------------------------------
class Machine:
    """Executes the microcode on Python integers (results and status; cycles come from the RTL)."""

    def __init__(self, asm=None, dw=DW):
        self.asm = asm or build()
        self.rom = self.asm.words()
        self.dw = dw
        self.slots = [0] * 32
        self.flags = 0
        self.m = [0, 0]
        self.ndig = [0, 0]
        self.cache = [0] * (CACHE_ENTRIES * CACHE_POINTS * 2)
        self.cached = [0] * CACHE_ENTRIES

    def write(self, slot, v):
        assert 0 <= v < (1 << W)
        self.slots[slot] = v
        if slot < STATE_SLOTS:
            self.flags = 0
            self.cached = [0] * CACHE_ENTRIES

    def run(self, prog, entry=0):
        pc = self.asm.entries[prog]
        s = self.slots
        F, prev, ctr, K, status, stack = 0, 0, 0, 0, 0, []
        while True:
            w = self.rom[pc]
            op, f, d, a, b, imm = w >> 27, w >> 26 & 1, w >> 21 & 31, w >> 16 & 31, w >> 11 & 31, w & 1023
            name = OPS[op]
            pc += 1
            mod = self.m[f]
            R = 1 << (self.dw * self.ndig[f])
            if name == "END":
                return status
            elif name == "MUL":
                assert s[a] < R and s[b] < mod, (pc, s[a], s[b])
                s[d] = s[a] * s[b] * pow(R, -1, mod) % mod
            elif name == "ADD":
                assert s[a] + s[b] < 2 * mod
                s[d] = (s[a] + s[b]) % mod
            elif name == "SUB":
                assert s[a] < mod and s[b] < mod
                s[d] = (s[a] - s[b]) % mod
            elif name == "MOV":
                s[d] = s[a]
            elif name == "LDI":
                s[d] = w & ((1 << 21) - 1)
            elif name == "CSWAP":
                if F:
                    s[a], s[b] = s[b], s[a]
            elif name == "SEL":
                s[d] = s[a] if F else s[b]
            elif name == "EQ":
                F = int(s[a] == s[b])
            elif name == "ZF":
                F = int(s[a] == 0)
            elif name == "LTM":
                F = int(s[a] < mod)
            elif name == "JMP":
                pc = imm
            elif name == "JF":
                pc = imm if F else pc
            elif name == "JNF":
                pc = pc if F else imm
            elif name == "CALL":
                stack.append(pc)
                assert len(stack) <= 4
                pc = imm
            elif name == "RET":
                pc = stack.pop()
            elif name == "STF":
                if F and status == 0:
                    status = imm
            elif name == "ERR":
                return imm
            elif name == "SETMOD":
                v = s[a]
                self.m[f] = v
                self.ndig[f] = max(1, -(-v.bit_length() // self.dw))
                F = int(v % 2 == 0 or v < 3)
            elif name == "SCAL":
                K = s[a]
                F = int(K >> (self.dw * self.ndig[f]) != 0)
            elif name == "CNT":
                L = self.dw * self.ndig[f]
                ctr = [L - 1, 2 * L - 1, imm, -(-L // 3) - 1][b & 3]
            elif name == "DJNZ":
                if ctr:
                    ctr -= 1
                    pc = imm
            elif name == "LBIT":
                bit = K >> ctr & 1
                F, prev = bit ^ prev, bit
            elif name == "LFIN":
                F, prev = prev, 0
            elif name == "KBIT":
                F = K >> ctr & 1
            elif name == "NEED":
                ok = entry < CACHE_ENTRIES
                have = (self.flags | (FLAG["ENTRY"] if ok else 0) | (FLAG["CACHED"] if ok and self.cached[entry] else 0)
                        | (FLAG["GCACHED"] if self.cached[0] else 0))
                if have & imm != imm:
                    return STATUS["BAD_SEQ"]
            elif name == "UNMARK":
                self.flags &= ~imm
            elif name == "MARK":
                self.flags |= imm & 7
                if imm & FLAG["CACHED"]:
                    self.cached[entry] = 1
            elif name == "TLD":
                base = (entry * CACHE_POINTS + imm) * 2
                s[d], s[b] = self.cache[base], self.cache[base + 1]
            elif name == "TST":
                base = (entry * CACHE_POINTS + imm) * 2
                self.cache[base], self.cache[base + 1] = s[a], s[b]
                self.cached[entry] = 0
            elif name == "TSEL":
                C = -(-self.dw * self.ndig[1] // 3)
                idx = sum((K >> (ctr + j * C) & 1) << j for j in range(3))
                F = int(idx == 0)
                base = ((0 if f else entry) * CACHE_POINTS + max(idx, 1) - 1) * 2
                s[d], s[b] = self.cache[base], self.cache[base + 1]
            else:
                raise AssertionError(name)


# ---- generators -------------------------------------------------------------------------------
def gen_sv(asm):
    words = asm.words()
    lines = ["// Generated by rtl/pk/ucode.py: the pk engine's microcode ROM and program entry table.",
             "`default_nettype none", "", "module pk_ucode (",
             "  input  wire logic [9:0] addr_i,", "  output logic      [31:0] insn_o,",
             "  input  wire logic [4:0] prog_i,",
             "  output logic      [9:0] entry_o,", "  output logic            entry_ok_o,",
             "  output logic      [7:0] nprogs_o", ");", "", f"  assign nprogs_o = 8'd{len(PROGRAMS)};", "",
             "  always_comb begin", "    case (addr_i)"]
    for pc, (wd, ins) in enumerate(zip(words, asm.code)):
        lines.append(f"      10'd{pc}: insn_o = 32'h{wd:08x};  // {ins[6]}")
    lines += ["      default: insn_o = 32'h0;  // END", "    endcase", "  end", "",
              "  always_comb begin", "    entry_ok_o = 1'b1;", "    case (prog_i)"]
    for i, p in enumerate(PROGRAMS):
        lines.append(f"      5'd{i}: entry_o = 10'd{asm.entries[p]};  // {p}")
    lines += ["      default: begin entry_o = 10'd0; entry_ok_o = 1'b0; end", "    endcase", "  end", "",
              "endmodule", "", "`default_nettype wire", ""]
    assert len(words) <= 1024
    return "\n".join(lines)


def gen_h():
    out = ["/* Generated by rtl/pk/ucode.py: the pk engine's operand slots, programs and status codes. */",
           "#ifndef SE_HW_PK_UCODE_H", "#define SE_HW_PK_UCODE_H", ""]
    out += [f"#define PK_SLOT_{n} {i}u" for i, n in enumerate(SLOTS)]
    out += [""] + [f"#define PK_PROG_{p} {i}u" for i, p in enumerate(PROGRAMS)]
    out += [""] + [f"#define PK_ST_{k} {v}u" for k, v in STATUS.items()]
    out += [""] + [f"#define PK_OP_{k} {v}u" for k, v in OP.items()]
    out += ["", "/* One instruction for CMD INSN: op, f (0: mod p, 1: mod n), slots d, a, b. */",
            "#define PK_INSN(op, f, d, a, b) \\",
            "    ((uint32_t)(op) << 27 | (uint32_t)(f) << 26 | (uint32_t)(d) << 21 | (uint32_t)(a) << 16 | (uint32_t)(b) << 11)",
            "", "#endif", ""]
    return "\n".join(out)


def gen_md(asm):
    out = ["# pk microcode", "", "Generated by `rtl/pk/ucode.py` (`make regs`); do not edit.", "",
           f"{len(asm.code)} instructions of 32 bits in the ROM.", "",
           "## Programs (CMD RUN, PROG field)", "", "| # | program | what it does |", "| ---: | --- | --- |"]
    out += [f"| {i} | {p} | {PROG_DOC[p]} |" for i, p in enumerate(PROGRAMS)]
    out += ["", "## Operand slots", "", "| slot | name | use |", "| ---: | --- | --- |"]
    out += [f"| {i} | {n} | {SLOT_DOC.get(n, 'work')} |" for i, n in enumerate(SLOTS)]
    out += ["", "## Status codes (STATUS.RESULT)", "", "| code | name |", "| ---: | --- |"]
    out += [f"| {v} | {k} |" for k, v in STATUS.items()]
    out += ["", "## Instructions", "",
            "`[31:27]` op, `[26]` f (0: modulus p, 1: modulus n), `[25:21]` d, `[20:16]` a, `[15:11]` b, "
            "`[9:0]` imm; LDI takes `[20:0]` as its immediate. CMD INSN runs one MUL, ADD, SUB, MOV or LDI.", "",
            "| op | name | effect |", "| ---: | --- | --- |"]
    out += [f"| {i} | {n} | {OP_DOC[n]} |" for i, n in enumerate(OPS)]
    out += ["", "## Listing", "", "```"]
    inv = {v: k for k, v in asm.labels.items()}
    for pc, ins in enumerate(asm.code):
        if pc in inv:
            out.append(f"{inv[pc]}:")
        out.append(f"  {pc:3d}  {ins[6]}")
    out += ["```", ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sv")
    ap.add_argument("--c")
    ap.add_argument("--md")
    ap.add_argument("--check-md", action="store_true")
    args = ap.parse_args()
    asm = build()
    outputs = []
    if args.sv:
        outputs.append((pathlib.Path(args.sv) / "pk_ucode.sv", gen_sv(asm)))
    if args.c:
        outputs.append((pathlib.Path(args.c) / "pk_ucode.h", gen_h()))
    if args.md:
        outputs.append((pathlib.Path(args.md) / "pk_ucode.md", gen_md(asm)))
    for path, text in outputs:
        if args.check_md and path.suffix == ".md":
            if not path.exists() or path.read_text() != text:
                raise SystemExit(f"{path} is stale: run make regs")
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)


if __name__ == "__main__":
    main()
