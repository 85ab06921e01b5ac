#!/usr/bin/env python3
"""The ctrl assembler: program text (rtl/ctrl/programs/*.s) -> ROM words and the constant ROM.

Syntax, one statement a line; `#` starts a comment:
    name:                   a label (a jump or call target); may precede a statement
    .entry NAME             the entry of program NAME (a [[program]] of programs/index.toml)
    .reg name rN            name is register rN from here on (in every file after this one)
    .equ NAME value         NAME is the number value (predefined: PK_SLOT_<slot>, PK_PROG_<program>
                            and PK_ST_<status>, the pk IP's numbers from rtl/pk; MEM_BYTES and
                            SECRET_BASE, the window's size and its secret top's first byte)
    .const NAME b0 b1 ...   NAME is the offset of a constant in the constant ROM: a length byte,
                            then the bytes (numbers, "text" in double quotes, or x"0a1b..": hex)
    .macro name p, q        a macro, up to `.endm`; `\\p` in its body is the argument (another
                            `\\name` is an error); its labels `name\\@` get a number of their
                            own at each use
    J.z label               an instruction: its mnemonic (J takes a condition suffix), then its
                            operands as isa.toml's syntax writes them: registers, numbers,
                            .equ names (a number may be a sum or a difference: A + B, A - B),
                            labels, .const names,
                            status names (ERR) and output slot names (OUT, OUTN, OUTR:
                            programs/index.toml)

The ROM is the files of programs/index.toml's `rom` in order, one namespace for everything.
`python rtl/ctrl/ctrl_asm.py` prints the listing.
"""
import argparse
import functools
import pathlib
import re
import sys
import tomllib
from dataclasses import dataclass, field

import ctrl_isa as isa

PROGRAMS_DIR = isa.HERE / "programs"


class AsmError(Exception):
    pass


@dataclass
class Line:
    insn: isa.Insn
    fields: dict
    src: str       # file:line
    text: str      # the statement as written (macros expanded)


@dataclass
class Rom:
    code: list = field(default_factory=list)
    labels: dict = field(default_factory=dict)
    entries: dict = field(default_factory=dict)     # program -> pc
    consts: bytearray = field(default_factory=bytearray)
    const_names: dict = field(default_factory=dict)
    table: list = field(default_factory=list)       # index.toml's [[program]]s
    slots: dict = field(default_factory=dict)       # output slot name -> number
    equ: dict = field(default_factory=dict)         # .equ name -> value (the window's layout among them)

    def words(self):
        return [isa.encode(line.insn, line.fields) for line in self.code]

    def call_depths(self):
        """The deepest CALL nesting each program can reach, from its control flow alone (both ways at
        every conditional jump, a subroutine followed to its RETs): {program: levels}, None for one
        that reaches a subroutine that can call itself. A program whose levels stay within
        isa.CALL_DEPTH can never stop on a full call stack, whatever its inputs."""
        code, memo, active = [(line.insn.name, line.fields) for line in self.code], {}, set()

        def below(start):
            if start in memo:
                return memo[start]
            if start in active:
                return None
            active.add(start)
            deepest, seen, todo = 0, set(), [start]
            while todo and deepest is not None:
                pc = todo.pop()
                if pc in seen or not 0 <= pc < len(code):
                    continue
                seen.add(pc)
                name, f = code[pc]
                if name in ("END", "ERR", "RET"):
                    continue
                if name == "J":
                    todo.append(f["imm"])
                    if f["d"] == isa.COND["always"]:
                        continue
                elif name == "CALL":
                    d = below(f["imm"])
                    deepest = None if d is None else max(deepest, 1 + d)
                todo.append(pc + 1)
            active.discard(start)
            memo[start] = deepest
            return deepest
        return {name: below(pc) for name, pc in self.entries.items()}

    def listing(self):
        names = {pc: n for n, pc in self.labels.items()}
        out = []
        for pc, (line, word) in enumerate(zip(self.code, self.words())):
            if pc in names:
                out.append(f"{names[pc]}:")
            out.append(f"  {pc:4d}  {word:08x}  {line.text:40s} # {line.src}")
        return "\n".join(out)


def _number(tok):
    try:
        return int(tok, 0)
    except ValueError:
        return None


def _split_operands(s):
    return [t.strip() for t in s.split(",")] if s.strip() else []


def _code(line, src):
    """A line without its comment: `#` outside double quotes starts one."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return line[:i].strip()
    if quoted:
        raise AsmError(f"{src}: a string without its closing quote")
    return line.strip()


class _Assembler:
    def __init__(self, index):
        self.rom = Rom(table=index["program"], slots=dict(index["slots"]))
        bad = [k for k, v in self.rom.slots.items() if not 0 <= v < isa.OUT_SLOTS]
        if bad:
            raise AsmError(f"index.toml: output slots {', '.join(bad)} are not below {isa.OUT_SLOTS}")
        self.regs = {f"r{i}": i for i in range(isa.REGS)}
        self.equ = {**{f"PK_SLOT_{k}": v for k, v in isa.PK_SLOT.items()},
                    **{f"PK_PROG_{k}": v for k, v in isa.PK_PROG.items()},
                    **{f"PK_ST_{k}": v for k, v in isa.PK_STATUS.items()},
                    "MEM_BYTES": isa.MEM_BYTES, "SECRET_BASE": isa.SECRET_BASE}
        self.macros = {}
        self.uses = 0
        self.pending = []   # (pc, field, label, src)

    # ---- pass one: statements -------------------------------------------------------------------
    def file(self, path):
        lines = path.read_text().splitlines()
        i = 0
        while i < len(lines):
            src = f"{path.name}:{i + 1}"
            text = _code(lines[i], src)
            i += 1
            if text.startswith(".macro"):
                head = text[len(".macro"):].strip().split(None, 1)
                if not head:
                    raise AsmError(f"{src}: .macro without a name")
                params = _split_operands(head[1]) if len(head) > 1 else []
                body = []
                while i < len(lines) and _code(lines[i], f"{path.name}:{i + 1}") != ".endm":
                    body.append((f"{path.name}:{i + 1}", _code(lines[i], f"{path.name}:{i + 1}")))
                    i += 1
                if i == len(lines):
                    raise AsmError(f"{src}: .macro {head[0]} without .endm")
                i += 1
                self.macros[head[0]] = (params, body)
                continue
            self.statement(text, src)

    def statement(self, text, src, depth=0):
        m = re.match(r"^([A-Za-z_][\w]*):\s*(.*)$", text)
        if m:
            self.label(m.group(1), src)
            text = m.group(2)
        if not text:
            return
        word, rest = (text.split(None, 1) + [""])[:2]
        ops = _split_operands(rest)
        if word == ".entry":
            if len(ops) != 1 or ops[0] in self.rom.entries:
                raise AsmError(f"{src}: .entry needs one new program name")
            if ops[0] not in [p["name"] for p in self.rom.table]:
                raise AsmError(f"{src}: .entry {ops[0]}: no such [[program]] in index.toml")
            self.rom.entries[ops[0]] = len(self.rom.code)
            self.label(f"prog_{ops[0]}", src)
        elif word == ".reg":
            parts = rest.split()
            if len(parts) != 2 or parts[1] not in [f"r{i}" for i in range(isa.REGS)]:
                raise AsmError(f"{src}: .reg name rN")
            self.regs[parts[0]] = int(parts[1][1:])
        elif word == ".equ":
            parts = rest.split()
            if len(parts) != 2 or self.value(parts[1], src) is None:
                raise AsmError(f"{src}: .equ NAME value")
            self.equ[parts[0]] = self.value(parts[1], src)
        elif word == ".const":
            self.const(rest, src)
        elif word in self.macros:
            self.expand(word, ops, src, depth)
        else:
            self.insn(word, ops, src, text)

    def label(self, name, src):
        if name in self.rom.labels:
            raise AsmError(f"{src}: label {name} defined twice")
        self.rom.labels[name] = len(self.rom.code)

    def const(self, rest, src):
        parts = rest.split(None, 1)
        if len(parts) != 2:
            raise AsmError(f"{src}: .const NAME bytes")
        name, data = parts[0], bytearray()
        for tok in re.findall(r'x?"[^"]*"|\S+', parts[1]):
            if tok.startswith('"'):
                data += tok[1:-1].encode()
            elif tok.startswith('x"'):
                try:
                    data += bytes.fromhex(tok[2:-1])
                except ValueError:
                    raise AsmError(f"{src}: .const {name}: {tok} is not hex") from None
            else:
                v = self.value(tok, src)
                if v is None or not 0 <= v <= 0xff:
                    raise AsmError(f"{src}: .const {name}: {tok} is not a byte")
                data.append(v)
        if name in self.rom.const_names or len(data) > 0xff:
            raise AsmError(f"{src}: .const {name}: defined twice or longer than 255 bytes")
        self.rom.const_names[name] = len(self.rom.consts)
        self.rom.consts += bytes([len(data)]) + data
        if len(self.rom.consts) > isa.CONST_BYTES:
            raise AsmError(f"{src}: the constant ROM is full ({isa.CONST_BYTES} bytes)")

    def expand(self, name, args, src, depth):
        params, body = self.macros[name]
        if len(args) != len(params):
            raise AsmError(f"{src}: {name} takes {len(params)} arguments")
        if depth > 8:
            raise AsmError(f"{src}: macros nested too deep")
        self.uses += 1
        values = dict(zip(params, args), **{"@": f"_{self.uses}"})

        def arg(m):
            if m.group(1) not in values:
                raise AsmError(f"{src}: macro {name} has no parameter {m.group(1)}")
            return values[m.group(1)]
        for bsrc, btext in body:
            self.statement(re.sub(r"\\(\w+|@)", arg, btext), f"{bsrc} (in {name} at {src})", depth + 1)

    def value(self, tok, src):
        """A number or an .equ name, or a sum or difference of them (A + B: PKRUN's program and
        cache entry; SECRET_BASE - 32); None if not."""
        parts = re.split(r"\s*([+-])\s*", tok.strip())
        if len(parts) > 1:
            v = self.value(parts[0], src) if parts[0] else None
            for sign, t in zip(parts[1::2], parts[2::2]):
                x = self.value(t, src)
                if v is None or x is None:
                    return None
                v = v + x if sign == "+" else v - x
            return v
        v = _number(tok)
        return v if v is not None else self.equ.get(tok)

    def insn(self, word, ops, src, text):
        mnem, _, suffix = word.partition(".")
        insn = isa.BY_NAME.get(mnem)
        if insn is None:
            raise AsmError(f"{src}: unknown instruction or macro {word}")
        fields = {}
        if insn.cond:
            if (suffix or "always") not in isa.COND:
                raise AsmError(f"{src}: J has no condition .{suffix}")
            fields["d"] = isa.COND[suffix or "always"]
        elif suffix:
            raise AsmError(f"{src}: {mnem} takes no suffix")
        names = insn.operands()
        if len(ops) != len(names):
            raise AsmError(f"{src}: {mnem} takes {len(names)} operands ({insn.syntax})")
        for fld, tok in zip(names, ops):
            kind = insn.kind(fld)
            if kind == "reg":
                if tok not in self.regs:
                    raise AsmError(f"{src}: {tok} is not a register")
                v = self.regs[tok]
            elif kind == "label":
                self.pending.append((len(self.rom.code), fld, tok, src))
                v = 0
            elif kind == "status":
                if tok not in isa.STATUS:
                    raise AsmError(f"{src}: no status {tok}")
                v = isa.STATUS[tok]
            elif kind == "const":
                if tok not in self.rom.const_names:
                    raise AsmError(f"{src}: no .const {tok} (define it before its use)")
                v = self.rom.const_names[tok]
            elif kind == "slot":
                if tok not in self.rom.slots:
                    raise AsmError(f"{src}: no output slot {tok} (programs/index.toml)")
                v = self.rom.slots[tok]
            else:  # int or tag
                v = self.value(tok, src)
                if v is None:
                    raise AsmError(f"{src}: {tok} is not a number")
                if kind == "tag" and v > 0x1ff:
                    raise AsmError(f"{src}: {tok} is not a tag (0..0xff, or 0x100 for any)")
            if not 0 <= v <= isa.field_max(fld):
                raise AsmError(f"{src}: {tok} = {v} does not fit {mnem}'s {fld}")
            fields[fld] = v
        self.rom.code.append(Line(insn, fields, src, text))
        if len(self.rom.code) > isa.ROM_WORDS - 1:  # (the last word stays empty: a bad program's entry)
            raise AsmError(f"{src}: the ROM is full ({isa.ROM_WORDS - 1} words)")

    # ---- pass two: labels -------------------------------------------------------------------------
    def resolve(self):
        for pc, fld, name, src in self.pending:
            if name not in self.rom.labels:
                raise AsmError(f"{src}: no label {name}")
            self.rom.code[pc].fields[fld] = self.rom.labels[name]
        missing = [p["name"] for p in self.rom.table if p["name"] not in self.rom.entries]
        if missing:
            raise AsmError(f"programs without an .entry: {', '.join(missing)}")
        self.rom.equ = dict(self.equ)
        return self.rom


def assemble(files, index):
    """The Rom of these program files (paths, in order) under index (programs/index.toml)."""
    a = _Assembler(index)
    for f in files:
        a.file(f)
    return a.resolve()


@functools.lru_cache(maxsize=None)
def load(directory=PROGRAMS_DIR):
    """The ROM of a directory's index.toml (default: programs/, the engine's), assembled once per
    process."""
    directory = pathlib.Path(directory)
    index = tomllib.loads((directory / "index.toml").read_text())
    return assemble([directory / f for f in index["rom"]], index)


def main(argv=None):
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    try:
        rom = load()
    except AsmError as e:
        sys.exit(f"asm: {e}")
    print(rom.listing())
    print(f"# {len(rom.code)} words of {isa.ROM_WORDS}, {len(rom.consts)} constant bytes of {isa.CONST_BYTES}")


if __name__ == "__main__":
    main()
