"""The ctrl engine's Python model: runs the ROM's words (decoded from their encoding, so the
assembler's output is what runs) on the byte window (isa.toml mem_bytes; an address wraps modulo
its size, as in the engine's RAM), 16 registers and the flags, and counts
the cycles isa.toml gives each instruction (an IP that answers at once: no waits). The SHA IP's
calls are a SHA-256 written from FIPS 180-4 (Sha256: it resumes from a chaining value, which hashlib
cannot; the tests hold its digests to hashlib's); the pk IP's are the `cryptography` package's, for the programs the ctrl
programs run, on P-256 (Pk: its slots, its curve and its cache entries); AESK's keys land
in `aes`, the AES IP's slots. Tests use it to check the programs against the
software stack and the `cryptography` package, before and apart from the RTL.
"""
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, encode_dss_signature

import ctrl_asm as asm
import ctrl_isa as isa

MASK = isa.MASK
P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551   # (FIPS 186-4, D.1.2.3)
AMASK = isa.MEM_BYTES - 1   # a window address (mem_bytes is a power of two)


P256_P = 2 ** 256 - 2 ** 224 + 2 ** 192 + 2 ** 96 - 1                                 # (FIPS 186-4, D.1.2.3)
P256_G = (0x6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296,
          0x4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5)
STATE_SLOTS = 12             # pk's slots below this hold the curve; CLEAR zeroes the others
P256_CURVE = {"P": P256_P, "N": P256_N, "A": P256_P - 3,                              # (FIPS 186-4, D.1.2.3)
              "B": 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b, "GX": P256_G[0], "GY": P256_G[1]}
MONT = ("A", "B", "GX", "GY")   # CURVE turns these into the Montgomery domain in place (R = 2^256 at P-256)
P256_SLOTS = {isa.PK_SLOT[k]: v * 2 ** 256 % P256_P if k in MONT else v    # what PKR reads of a loaded P-256
              for k, v in P256_CURVE.items()}


class Pk:
    """The pk IP as the ctrl programs see it: its operand slots (slot -> number), whether a curve is
    loaded (FIELD, ORDER, CURVE; a write to a curve slot unloads it and empties the cache, as in
    rtl/pk/pk_core.sv), and its cache: entry -> the point whose table PRECOMP put there.
    Made with P-256 loaded and G's table in entry 0."""

    def __init__(self, loaded=True):
        self.slots = dict(P256_SLOTS) if loaded else {}
        self.curve = loaded
        self.tables = {0: P256_G} if loaded else {}
        self.runs = []                  # (program name, entry, status) of each run, for the tests

    def write(self, slot, v):
        self.slots[slot] = v
        if slot < STATE_SLOTS:
            self.curve, self.tables = False, {}

    def clear(self):
        """pk's CLEAR: the operand slots (12..31) zeroes; the curve and the cache stay."""
        self.slots = {k: v for k, v in self.slots.items() if k < STATE_SLOTS}

    def run(self, prog, entry):
        st = self._run(prog, entry)
        self.runs.append(({v: k for k, v in isa.PK_PROG.items()}.get(prog, prog), entry, st))
        return st

    def _run(self, prog, entry):
        """Program prog (its number) for cache entry `entry`: its status; its results go to the slots.
        Only the programs the ctrl programs run, on P-256: FIELD, ORDER and CURVE take P-256 alone;
        VALIDATE, ECSM, ECSM_COMB, PADD, PRECOMP, ECDSA_SIGN, ECDSA_VERIFY and ECDSA_VERIFY_COMB
        check in rtl/pk/programs's order: the curve and the entry (BAD_SEQ; SIGN and VERIFY want G's
        table in the entry, VERIFY_COMB and ECSM_COMB G's in entry 0 and, after the point's check, VERIFY_COMB Q's in the entry), then r and s in [1, n - 1]
        (VERIFY_FAIL), then points (BAD_POINT: coordinates below p, on the curve), k and
        d (BAD_SCALAR), then the result (INFINITY, RETRY, VERIFY_FAIL)."""
        P = isa.PK_PROG
        slots = self.slots
        slot = lambda name: slots.get(isa.PK_SLOT[name], 0)  # noqa: E731
        q = (slot("QX"), slot("QY"))
        if prog in (P["FIELD"], P["ORDER"], P["CURVE"]):
            if any(slot(k) != v for k, v in P256_CURVE.items()):
                raise NotImplementedError("the model's pk holds P-256 only")
            if prog == P["CURVE"]:
                slots.update(P256_SLOTS)
                self.curve = True
            return "OK"
        if not self.curve or entry > 5:
            return "BAD_SEQ"
        table = self.tables.get(entry)
        if prog == P["VALIDATE"]:
            return "OK" if point(*q) else "BAD_POINT"
        if prog == P["PRECOMP"]:
            if not point(*q):
                return "BAD_POINT"
            self.tables[entry] = q
            return "OK"
        if prog in (P["ECDSA_VERIFY"], P["ECDSA_SIGN"]) and table != P256_G:
            return "BAD_SEQ"
        if prog == P["ECDSA_VERIFY_COMB"] and (table is None or self.tables.get(0) != P256_G):
            return "BAD_SEQ"
        if prog in (P["ECDSA_VERIFY"], P["ECDSA_VERIFY_COMB"]):
            if not (0 < slot("RX") < P256_N and 0 < slot("RY") < P256_N):
                return "VERIFY_FAIL"
            if not point(*q):
                return "BAD_POINT"
            if prog == P["ECDSA_VERIFY_COMB"] and q != table:
                return "BAD_SEQ"
            w = pow(slot("RY"), -1, P256_N)
            u1, u2 = slot("E") % P256_N * w % P256_N, slot("RX") * w % P256_N
            g = self.tables[0] if prog == P["ECDSA_VERIFY_COMB"] else table
            r = add(mul(u1, g), mul(u2, q))
            return "OK" if r is not None and r[0] % P256_N == slot("RX") else "VERIFY_FAIL"
        if prog in (P["ECSM_COMB"], P["ECSM"]):
            if prog == P["ECSM_COMB"] and (table is None or self.tables.get(0) != P256_G):
                return "BAD_SEQ"
            if prog == P["ECSM"] and not point(*q):
                return "BAD_POINT"
            r = mul(slot("K"), table if prog == P["ECSM_COMB"] else q)
            if r is None:
                return "INFINITY"
            slots[isa.PK_SLOT["RX"]], slots[isa.PK_SLOT["RY"]] = r
            return "OK"
        if prog == P["ECDSA_SIGN"]:
            k, d = slot("K"), slot("D")
            if not (0 < k < P256_N and 0 < d < P256_N):
                return "BAD_SCALAR"
            r = mul(k, table)[0] % P256_N
            s = pow(k, -1, P256_N) * (slot("E") + r * d) % P256_N
            if r == 0 or s == 0:
                return "RETRY"
            slots[isa.PK_SLOT["RX"]], slots[isa.PK_SLOT["RY"]] = r, s
            return "OK"
        if prog == P["PADD"]:
            r = (slot("RX"), slot("RY"))
            if not (point(*q) and point(*r)):
                return "BAD_POINT"
            s = add(q, r)
            if s is None:
                return "INFINITY"
            slots[isa.PK_SLOT["RX"]], slots[isa.PK_SLOT["RY"]] = s
            return "OK"
        raise NotImplementedError(f"the model's pk does not run program {prog}")


def add(a, b):
    """a + b on P-256 in affine coordinates, None the point at infinity."""
    if a is None or b is None:
        return b if a is None else a
    (x1, y1), (x2, y2) = a, b
    if x1 == x2 and (y1 + y2) % P256_P == 0:
        return None
    lam = (3 * x1 * x1 - 3) * pow(2 * y1, -1, P256_P) if a == b else (y2 - y1) * pow(x2 - x1, -1, P256_P)
    x3 = (lam * lam - x1 - x2) % P256_P
    return x3, (lam * (x1 - x3) - y1) % P256_P


def mul(k, pt):
    """k * pt on P-256 in affine coordinates, None for the point at infinity (double and add)."""
    r = None
    for bit in bin(k % P256_N)[2:]:
        r = add(r, r)
        if bit == "1":
            r = add(r, pt)
    return r


def point(x, y):
    """pk's load_q: a point of P-256 (coordinates below p, on the curve)."""
    try:
        return ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1()).public_key() is not None
    except ValueError:
        return False


K256 = [int(x, 16) for x in """
428a2f98 71374491 b5c0fbcf e9b5dba5 3956c25b 59f111f1 923f82a4 ab1c5ed5 d807aa98 12835b01 243185be 550c7dc3
72be5d74 80deb1fe 9bdc06a7 c19bf174 e49b69c1 efbe4786 0fc19dc6 240ca1cc 2de92c6f 4a7484aa 5cb0a9dc 76f988da
983e5152 a831c66d b00327c8 bf597fc7 c6e00bf3 d5a79147 06ca6351 14292967 27b70a85 2e1b2138 4d2c6dfc 53380d13
650a7354 766a0abb 81c2c92e 92722c85 a2bfe8a1 a81a664b c24b8b70 c76c51a3 d192e819 d6990624 f40e3585 106aa070
19a4c116 1e376c08 2748774c 34b0bcb5 391c0cb3 4ed8aa4a 5b9cca4f 682e6ff3 748f82ee 78a5636f 84c87814 8cc70208
90befffa a4506ceb bef9a3f7 c67178f2""".split()]                                  # FIPS 180-4, 4.2.2
SHA256_IV = bytes.fromhex("6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19")   # 5.3.3


class Sha256:
    """The SHA IP's plain SHA-256 as the programs see it (FIPS 180-4, written out because hashlib
    cannot start from a chaining value): INIT, bytes, FINAL, and RESUME from a chaining value after n
    blocks, STATE (the chaining value after the last whole block)."""

    def __init__(self, h=SHA256_IV, blocks=0):
        self.h, self.blocks, self.buf, self.fed = list(int.from_bytes(h[i:i + 4], "big") for i in range(0, 32, 4)), \
            blocks, b"", 0

    def update(self, data):
        self.buf += data
        while len(self.buf) >= 64:
            self._compress(self.buf[:64])
            self.buf = self.buf[64:]

    def state(self):
        """The chaining value, or None unless the bytes since INIT or RESUME are whole blocks, not none."""
        return None if self.buf or not self.fed else b"".join(x.to_bytes(4, "big") for x in self.h)

    def digest(self):
        n = self.blocks * 64 + len(self.buf)
        self.update(b"\x80" + bytes(-(n + 9) % 64) + (8 * n).to_bytes(8, "big"))
        return b"".join(x.to_bytes(4, "big") for x in self.h)

    def _compress(self, block):
        ror = lambda x, r: (x >> r | x << (32 - r)) & 0xffffffff  # noqa: E731
        w = [int.from_bytes(block[i:i + 4], "big") for i in range(0, 64, 4)]
        for i in range(16, 64):
            s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ w[i - 15] >> 3
            s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ w[i - 2] >> 10
            w.append((w[i - 16] + s0 + w[i - 7] + s1) & 0xffffffff)
        a, b, c, d, e, f, g, h = self.h
        for i in range(64):
            t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + (e & f ^ ~e & g) + K256[i] + w[i]
            t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + (a & b ^ a & c ^ b & c)
            a, b, c, d, e, f, g, h = (t1 + t2) & 0xffffffff, a, b, c, (d + t1) & 0xffffffff, e, f, g
        self.h = [(x + y) & 0xffffffff for x, y in zip(self.h, (a, b, c, d, e, f, g, h))]
        self.blocks += 1
        self.fed += 1


class Machine:
    """rom: an asm.Rom (default: the engine's programs)."""

    def __init__(self, rom=None):
        self.asm = rom or asm.load()
        self.decoded = [isa.decode(w) for w in self.asm.words()]
        self.consts = bytes(self.asm.consts)
        self.mem = bytearray(isa.MEM_BYTES)
        self.regs = [0] * isa.REGS
        self.out = {}            # slot name -> bytes (OUT, OUTN) or int (OUTR)
        self.spans = {}          # slot name -> (address, length) of an OUT
        self.slot_names = {v: k for k, v in self.asm.slots.items()}
        self.pk = Pk()           # the pk IP: P-256 loaded, G's table in entry 0 (the bus may change both)
        self.pk_used = False     # the last run used pk
        self.aes = {}            # the AES IP's key slots AESK filled: slot -> its 16-byte key
        self.cycles = self.steps = 0

    def load(self, addr, data):
        for i, x in enumerate(data):
            self.mem[(addr + i) & AMASK] = x

    def wipe(self):
        """CMD WIPE (ctrl_wb.sv): the secret top's bytes zeroed (the DRBG unseeded, the keys gone)."""
        self.mem[isa.SECRET_BASE:] = bytes(isa.MEM_BYTES - isa.SECRET_BASE)

    def run(self, prog, regs=None, budget=1_000_000, trace=None):
        """Runs program prog (its name) with registers regs (index -> value); returns the status
        name. A run past `budget` steps stops with BAD_PROGRAM, so that a test notices a program that
        would not stop (the RTL has no such limit: the programs' loops must end by themselves).
        trace: a list that gets the pc of every instruction run. A program that used pk leaves its
        operand slots cleared, as the engine does after it (pk's CLEAR)."""
        try:
            return self._run(prog, regs, budget, trace)
        finally:
            if self.pk_used:
                self.pk.clear()

    def _run(self, prog, regs, budget, trace):
        self.pk_used = False
        r, mem, c = self.regs, self.mem, self.consts
        for k, v in (regs or {}).items():
            r[k] = v & MASK
        pc, z, cf, stack, sha = self.asm.entries[prog], 0, 0, [], None
        self.out, self.spans, self.cycles, self.steps = {}, {}, 0, 0
        while True:
            if self.steps >= budget:
                return "BAD_PROGRAM"
            if not 0 <= pc < len(self.decoded):  # (the RTL decodes its ROM's empty word: one cycle)
                self.steps += 1
                self.cycles += 1
                return "BAD_PROGRAM"
            insn, f = self.decoded[pc]
            if trace is not None:
                trace.append(pc)
            d, a, b, imm = f["d"], f["a"], f["b"], f["imm"]
            name = insn.name
            self.steps += 1
            self.cycles += 1
            pc += 1
            if name == "END":
                return "OK"
            elif name == "ERR":
                return isa.STATUS_NAME.get(imm, f"unknown({imm})")
            elif name == "LDI":
                r[d] = imm
            elif name == "MOV":
                r[d] = r[a]
            elif name in ("ADD", "ADDI"):
                s = r[a] + (r[b] if name == "ADD" else imm)
                r[d], cf = s & MASK, s >> isa.WIDTH
                z = int(r[d] == 0)
            elif name in ("SUB", "SUBI", "CMP", "CMPI"):
                y = r[b] if name in ("SUB", "CMP") else imm
                x = r[a]
                z, cf = int(x == y), int(x < y)
                if name in ("SUB", "SUBI"):
                    r[d] = (x - y) & MASK
                    z = int(r[d] == 0)
            elif name == "ANDI":
                r[d] = r[a] & imm
                z = int(r[d] == 0)
            elif name == "AND":
                r[d] = r[a] & r[b]
                z = int(r[d] == 0)
            elif name == "OR":
                r[d] = r[a] | r[b]
                z = int(r[d] == 0)
            elif name == "ORI":
                r[d] = r[a] | imm
            elif name == "XORI":
                r[d] = r[a] ^ imm
                z = int(r[d] == 0)
            elif name == "SHL":
                r[d] = (r[a] << imm) & MASK
            elif name == "LDB":
                r[d] = mem[(r[a] + imm) & AMASK]
                self.cycles += 1
            elif name == "STB":
                mem[(r[a] + imm) & AMASK] = r[b] & 0xff
            elif name == "LDH":
                r[d] = mem[(r[a] + imm) & AMASK] << 8 | mem[(r[a] + imm + 1) & AMASK]
                self.cycles += 2
            elif name == "STH":
                mem[(r[a] + imm) & AMASK] = r[b] >> 8
                mem[(r[a] + imm + 1) & AMASK] = r[b] & 0xff
                self.cycles += 1
            elif name == "J":
                taken = {0: True, 1: z, 2: not z, 3: cf, 4: not cf, 5: cf or z, 6: not (cf or z)}.get(d, False)
                if taken:
                    pc = imm
            elif name == "CALL":
                if len(stack) == isa.CALL_DEPTH:
                    return "BAD_PROGRAM"
                stack.append(pc)
                pc = imm
            elif name == "RET":
                if not stack:
                    return "BAD_PROGRAM"
                pc = stack.pop()
            elif name == "TLV":
                z, cf, extra = self._tlv(d, a, b, imm)
                self.cycles += extra
            elif name == "MEQ":
                n, want = r[b], c[imm:imm + 1 + c[imm]]
                z = int(n == want[0] and self._bytes(r[a], n) == want[1:])
                self.cycles += n if n == want[0] else 0
            elif name == "CCOPY":
                for i, x in enumerate(c[imm + 1:imm + 1 + c[imm]]):
                    mem[(r[d] + i) & AMASK] = x
                self.cycles += c[imm]
            elif name == "MCMP":
                n = r[d]
                x, y = self._bytes(r[a], n), self._bytes(r[b], n)
                z, cf = int(x == y), int(x < y)
                self.cycles += 2 * n
            elif name == "COPY":
                n = r[b]
                if n and ((r[d] - r[a]) & MASK < n or (r[a] - r[d]) & MASK < n):
                    return "BAD_PROGRAM"  # overlapping ranges
                for i in range(n):
                    mem[(r[d] + i) & AMASK] = mem[(r[a] + i) & AMASK]
                self.cycles += n
            elif name == "OUT":
                self.out[self.slot_names[imm]] = self._bytes(r[a], r[b])
                self.spans[self.slot_names[imm]] = (r[a], r[b])
            elif name == "OUTN":
                if r[b] > 32:
                    return "BAD_PROGRAM"
                self.out[self.slot_names[imm]] = bytes(32 - r[b]) + self._bytes(r[a], r[b])
            elif name == "OUTR":
                self.out[self.slot_names[imm]] = r[a]
            elif name == "PKW":
                if r[b] > 32 or imm > 31:
                    return "BAD_PROGRAM"   # (refused before pk hears of it)
                self.pk_used = True
                self.pk.write(imm, int.from_bytes(self._bytes(r[a], r[b]), "big"))
                self.cycles += 1 + r[b]
            elif name == "PKRUN":
                self.pk_used = True
                st = self.pk.run(imm & 31, (imm >> 5) & 31)
                r[d] = isa.PK_STATUS[st]
                z = int(r[d] == 0)
            elif name == "PKR":
                if imm > 31:
                    return "BAD_PROGRAM"
                self.pk_used = True
                for i, x in enumerate(self.pk.slots.get(imm, 0).to_bytes(32, "big")):
                    mem[(r[a] + i) & AMASK] = x
                self.cycles += 32
            elif name == "AESK":
                if r[d] > 3:
                    return "BAD_PROGRAM"
                self.aes[r[d]] = self._bytes(r[a], 16)
                self.cycles += 17
            elif name == "SHAI":
                sha = Sha256()
            elif name == "SHAR":
                st = self._bytes(r[a], 36)
                sha = Sha256(st[:32], int.from_bytes(st[32:], "big"))
                self.cycles += 37
            elif name == "SHAS":
                if sha is None:
                    return "BAD_PROGRAM"
                if sha.state() is None:
                    return "ENGINE"
                for i, x in enumerate(sha.state()):
                    mem[(r[a] + i) & AMASK] = x
                self.cycles += 32
            elif name == "SHAU":
                if sha is None:
                    return "BAD_PROGRAM"
                sha.update(self._bytes(r[a], r[b]))
                self.cycles += r[b]
            elif name == "SHAF":
                if sha is None:
                    return "BAD_PROGRAM"
                for i, x in enumerate(sha.digest()):
                    mem[(r[a] + i) & AMASK] = x
                sha = None
                self.cycles += 32
            else:  # pragma: no cover - every instruction of isa.toml is above
                raise NotImplementedError(name)

    def _bytes(self, addr, n):
        return bytes(self.mem[(addr + i) & AMASK] for i in range(n))

    def _tlv(self, d, a, b, imm):
        """TLV's effect (isa.toml): (Z, C, the bytes it read: its cycles beyond the first)."""
        r, mem = self.regs, self.mem
        p, end = r[a], r[b]
        if p >= end:
            return 0, 0, 0
        if not imm & isa.TAG_ANY and mem[p & AMASK] != (imm & 0xff):
            return 0, 0, 1
        n = end - p
        if n < 2 or (mem[p & AMASK] & 0x1f) == 0x1f:
            return 0, 1, 1
        ln, hdr = mem[(p + 1) & AMASK], 2
        if ln == 0x81:
            if n < 3:
                return 0, 1, 2
            if mem[(p + 2) & AMASK] < 0x80:
                return 0, 1, 3
            ln, hdr = mem[(p + 2) & AMASK], 3
        elif ln == 0x82:
            if n < 4:
                return 0, 1, 2
            if mem[(p + 2) & AMASK] == 0:
                return 0, 1, 3
            ln, hdr = mem[(p + 2) & AMASK] << 8 | mem[(p + 3) & AMASK], 4
        elif ln >= 0x80:
            return 0, 1, 2
        if ln > n - hdr:
            return 0, 1, hdr
        r[a], r[d] = (p + hdr) & MASK, (p + hdr + ln) & MASK
        return 1, 0, hdr
