"""The pk microcode's Python model: runs the ROM's words on Python integers (results and status;
cycle counts come from the RTL). Tests use it to check the formulas against the `cryptography`
package (tests/rtl/test_pk_ucode.py) before, and apart from, the RTL running the same ROM.

Data lives in 32 operand slots of 256 bits. Field values are kept in the Montgomery domain
(x*R mod m, R = 2^(DW*ndig)); MUL is the Montgomery product. Two moduli are held at once:
field p (f = 0) and group order n (f = 1).
"""
import asm
from isa import CACHE_ENTRIES, CACHE_POINTS, DW, FLAG, STATE_SLOTS, STATUS, W, decode


class Machine:
    """Executes the microcode on Python integers (results and status; cycles come from the RTL)."""

    def __init__(self, rom=None, dw=DW):
        self.asm = rom or asm.load()         # an asm.Rom: entries and words
        self.rom = self.asm.words()
        self.decoded = [decode(w) for w in self.rom]
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
        """Runs program `prog` (its name) for cache entry `entry` (CMD.SLOT); returns the status."""
        pc = self.asm.entries[prog]
        s = self.slots
        F, prev, ctr, K, status, stack = 0, 0, 0, 0, 0, []
        while True:
            insn, fl = self.decoded[pc]
            f, d, a, b, imm = fl["f"], fl["d"], fl["a"], fl["b"], fl["imm"]
            name = insn.name
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
                s[d] = imm
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
                base = ((0 if f else entry) * CACHE_POINTS + imm) * 2
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
