"""The ctrl engine's Python model: runs the ROM's words (decoded from their encoding, so the
assembler's output is what runs) on a 64 KiB byte window, 16 registers and the flags, and counts
the cycles isa.toml gives each instruction. Tests use it to check the programs against the
software stack and the `cryptography` package, before and apart from the RTL.
"""
import ctrl_asm as asm
import ctrl_isa as isa

MASK = isa.MASK


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
        self.cycles = self.steps = 0

    def load(self, addr, data):
        self.mem[addr:addr + len(data)] = data

    def run(self, prog, regs=None, budget=1_000_000, trace=None):
        """Runs program prog (its name) with registers regs (index -> value); returns the status
        name. A run past `budget` steps stops with BAD_PROGRAM, so that a test notices a program that
        would not stop (the RTL has no such limit: the programs' loops must end by themselves).
        trace: a list that gets the pc of every instruction run."""
        r, mem, c = self.regs, self.mem, self.consts
        for k, v in (regs or {}).items():
            r[k] = v & MASK
        pc, z, cf, stack = self.asm.entries[prog], 0, 0, []
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
            elif name == "SHL":
                r[d] = (r[a] << imm) & MASK
            elif name == "LDB":
                r[d] = mem[(r[a] + imm) & MASK]
                self.cycles += 1
            elif name == "STB":
                mem[(r[a] + imm) & MASK] = r[b] & 0xff
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
                    mem[(r[d] + i) & MASK] = mem[(r[a] + i) & MASK]
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
            else:  # pragma: no cover - every instruction of isa.toml is above
                raise NotImplementedError(name)

    def _bytes(self, addr, n):
        return bytes(self.mem[(addr + i) & MASK] for i in range(n))

    def _tlv(self, d, a, b, imm):
        """TLV's effect (isa.toml): (Z, C, the bytes it read: its cycles beyond the first)."""
        r, mem = self.regs, self.mem
        p, end = r[a], r[b]
        if p >= end:
            return 0, 0, 0
        if not imm & isa.TAG_ANY and mem[p] != (imm & 0xff):
            return 0, 0, 1
        n = end - p
        if n < 2 or (mem[p] & 0x1f) == 0x1f:
            return 0, 1, 1
        ln, hdr = mem[(p + 1) & MASK], 2
        if ln == 0x81:
            if n < 3:
                return 0, 1, 2
            if mem[(p + 2) & MASK] < 0x80:
                return 0, 1, 3
            ln, hdr = mem[(p + 2) & MASK], 3
        elif ln == 0x82:
            if n < 4:
                return 0, 1, 2
            if mem[(p + 2) & MASK] == 0:
                return 0, 1, 3
            ln, hdr = mem[(p + 2) & MASK] << 8 | mem[(p + 3) & MASK], 4
        elif ln >= 0x80:
            return 0, 1, 2
        if ln > n - hdr:
            return 0, 1, hdr
        r[a], r[d] = (p + hdr) & MASK, (p + hdr + ln) & MASK
        return 1, 0, hdr
