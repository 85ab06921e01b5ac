#!/usr/bin/env python3
"""The pk microcode assembler: program text (rtl/pk/programs/*.s) -> ROM words.

Syntax, one statement a line; `#` starts a comment:
    name:                   a label (a jump or call target); may precede an instruction
    .entry NAME             the entry of program NAME (a row of programs/index.toml); also the
                            label prog_NAME
    MUL.n T1, RX, RRN       an instruction: its mnemonic, `.n`/`.g` for f = 1, then its operands
                            as isa.toml's `syntax` writes them (slot names, labels, status and
                            flag names, numbers, comb points T1..T7)
    .macro name p, q        a macro, up to `.endm`; `\\p` in its body is the argument
    name x, y               a macro's use: its body with p = x, q = y

The ROM is the files of programs/index.toml's `rom` in order, one namespace for labels and
macros. `python rtl/pk/asm.py [PROGRAM...]` prints the listing with each instruction's word
and source line.
"""
import argparse
import functools
import re
import sys
import tomllib
from dataclasses import dataclass, field

import isa

PROGRAMS_DIR = isa.HERE / "programs"


class AsmError(Exception):
    pass


@dataclass
class Line:
    """One assembled instruction."""
    insn: isa.Insn
    fields: dict               # f, d, a, b, imm
    src: str                   # file:line of its text
    via: tuple = ()            # the macro uses it came from, outermost first ("file:line name")
    target: str = None         # the label a label operand names
    text: str = ""             # as the listing shows it (isa.render)

    def where(self):
        return self.src + "".join(f" (in {v})" for v in reversed(self.via))


@dataclass
class Rom:
    """The assembled ROM: its instructions, labels and program entries, and the program table."""
    code: list = field(default_factory=list)
    labels: dict = field(default_factory=dict)      # label -> pc, in definition order
    entries: dict = field(default_factory=dict)     # program -> pc
    table: list = field(default_factory=list)       # [{name, inputs, doc}], CMD RUN's numbering

    @property
    def programs(self):
        return [p["name"] for p in self.table]

    def words(self):
        return [isa.encode(ln.insn, ln.fields) for ln in self.code]


@dataclass
class _Macro:
    params: list
    body: list                 # (file, line number, text)


def _operand_regex(insn):
    out = "^"
    for lit, fld in re.findall(r"([^{]*)(?:\{(\w+)\})?", insn.syntax):
        out += "".join(r"\s*,\s*" if c == "," else r"\s+" if c == " " else re.escape(c)
                       for c in lit.replace(", ", ","))
        if fld:
            pat = r"\w+(?:\s+\w+)*" if insn.kind(fld) == "flags" else r"\w+"
            out += f"(?P<{fld}>{pat})"
    return re.compile(out + "$")


_REGEX = {i.name: _operand_regex(i) for i in isa.INSNS}


def _value(insn, fld, tok):
    kind = insn.kind(fld)
    if kind == "slot":
        if tok not in isa.S:
            raise AsmError(f"unknown slot {tok!r}")
        return isa.S[tok]
    if kind == "status":
        if tok not in isa.STATUS:
            raise AsmError(f"unknown status {tok!r}")
        return isa.STATUS[tok]
    if kind == "flags":
        bad = [t for t in tok.split() if t not in isa.FLAG]
        if bad:
            raise AsmError(f"unknown flag {bad[0]!r}")
        return sum(isa.FLAG[t] for t in set(tok.split()))
    if kind == "point":
        m = re.fullmatch(r"T([1-9])", tok)
        if not m or int(m[1]) > isa.CACHE_POINTS:
            raise AsmError(f"comb point {tok!r}: T1..T{isa.CACHE_POINTS}")
        return int(m[1]) - 1
    try:
        return int(tok, 0)
    except ValueError:
        raise AsmError(f"{tok!r} is not a number") from None


def _instruction(stmt):
    """(Insn, fields, target) of one instruction statement."""
    mnemonic, _, ops = stmt.partition(" ")
    name, dot, suffix = mnemonic.partition(".")
    insn = isa.BY_NAME.get(name)
    if insn is None:
        raise AsmError(f"unknown instruction or macro {mnemonic!r}")
    fields = {}
    if dot:
        if "." + suffix != insn.suffix:
            raise AsmError(f"{name} takes no suffix .{suffix}" if not insn.suffix
                           else f"{name}'s suffix is {insn.suffix}, not .{suffix}")
        fields["f"] = 1
    m = _REGEX[name].match(ops.strip())
    if not m:
        raise AsmError(f"{name} wants operands `{insn.syntax}`, not {ops.strip()!r}" if insn.syntax
                       else f"{name} takes no operands")
    target = None
    for fld, tok in m.groupdict().items():
        if insn.kind(fld) == "label":
            target = tok
        else:
            fields[fld] = _value(insn, fld, tok)
    return insn, fields, target


class _Assembler:
    def __init__(self):
        self.rom = Rom()
        self.macros = {}

    def source(self, fname, text):
        lines = [(fname, n, t) for n, t in enumerate(text.splitlines(), 1)]
        i = 0
        while i < len(lines):
            f, n, t = lines[i]
            stmt = t.split("#", 1)[0].strip()
            if stmt.startswith(".macro"):
                head = stmt[len(".macro"):].strip()
                name, _, params = head.partition(" ")
                if not re.fullmatch(r"\w+", name or "-"):
                    raise AsmError(f"{f}:{n}: .macro wants a name")
                if name in self.macros or name in isa.BY_NAME:
                    raise AsmError(f"{f}:{n}: macro {name} is defined twice or is an instruction")
                body = []
                i += 1
                while i < len(lines) and lines[i][2].split("#", 1)[0].strip() != ".endm":
                    body.append(lines[i])
                    i += 1
                if i == len(lines):
                    raise AsmError(f"{f}:{n}: .macro {name} has no .endm")
                self.macros[name] = _Macro([p.strip() for p in params.split(",") if p.strip()], body)
            else:
                self.statement(f, n, stmt, ())
            i += 1

    def statement(self, f, n, stmt, via):
        try:
            m = re.match(r"(\w+):\s*(.*)$", stmt)
            if m:
                self.label(m[1])
                stmt = m[2]
            if not stmt:
                return
            head, _, rest = stmt.partition(" ")
            if head == ".entry":
                name = rest.strip()
                if name in self.rom.entries:
                    raise AsmError(f"program {name} has two entries")
                self.rom.entries[name] = len(self.rom.code)
                self.label("prog_" + name)
            elif head.startswith("."):
                raise AsmError(f"unknown directive {head}")
            elif head in self.macros:
                self.expand(f, n, head, rest, via)
            else:
                insn, fields, target = _instruction(stmt)
                self.rom.code.append(Line(insn, fields, f"{f}:{n}", via, target))
        except AsmError as e:
            if e.args[0].startswith(f"{f}:"):
                raise
            raise AsmError(f"{f}:{n}: {e}" + "".join(f" (in {v})" for v in reversed(via))) from None

    def expand(self, f, n, name, rest, via):
        mac = self.macros[name]
        args = [a.strip() for a in rest.split(",")] if rest.strip() else []
        if len(args) != len(mac.params):
            raise AsmError(f"macro {name} takes {len(mac.params)} arguments ({', '.join(mac.params)}), "
                           f"not {len(args)}")
        if len(via) > 8:
            raise AsmError(f"macro {name}: too deep")
        sub = dict(zip(mac.params, args))
        for bf, bn, bt in mac.body:
            stmt = bt.split("#", 1)[0].strip()
            stmt = re.sub(r"\\(\w+)", lambda m: sub.get(m[1], m[0]), stmt)
            if "\\" in stmt:
                raise AsmError(f"{bf}:{bn}: unknown macro parameter in {stmt!r}")
            self.statement(bf, bn, stmt, via + (f"{f}:{n} {name}",))

    def label(self, name):
        if name in self.rom.labels:
            raise AsmError(f"label {name} is defined twice")
        self.rom.labels[name] = len(self.rom.code)

    def finish(self, table):
        rom = self.rom
        rom.table = table if table is not None else [{"name": p, "inputs": []} for p in rom.entries]
        missing = [p for p in rom.programs if p not in rom.entries]
        extra = [p for p in rom.entries if p not in rom.programs]
        if missing or extra:
            raise AsmError(f"programs without an .entry: {missing}; .entry without a program: {extra}")
        if len(rom.code) > isa.ROM_WORDS:
            raise AsmError(f"{len(rom.code)} instructions: the ROM holds {isa.ROM_WORDS}")
        for ln in rom.code:
            if ln.target is not None:
                if ln.target not in rom.labels:
                    raise AsmError(f"{ln.where()}: unknown label {ln.target!r}")
                ln.fields["imm"] = rom.labels[ln.target]
            try:
                isa.encode(ln.insn, ln.fields)
            except ValueError as e:
                raise AsmError(f"{ln.where()}: {e}") from None
            ln.text = isa.render(ln.insn, ln.fields, ln.target)
        return rom


def assemble(sources, table=None):
    """Assembles [(file name, text), ...] in order into a Rom. table: the program table
    ([{name, inputs, doc}]; default: the .entry programs in order, without inputs)."""
    a = _Assembler()
    for fname, text in sources:
        a.source(fname, text)
    return a.finish(table)


def sources():
    """The real programs: programs/index.toml and the files it lists, in ROM order."""
    index = tomllib.loads((PROGRAMS_DIR / "index.toml").read_text())
    return [(f"rtl/pk/programs/{f}", (PROGRAMS_DIR / f).read_text()) for f in index["rom"]], index["program"]


@functools.lru_cache(maxsize=None)
def load():
    """The ROM of the real programs (assembled once)."""
    srcs, table = sources()
    return assemble(srcs, table)


def main():
    ap = argparse.ArgumentParser(description="Prints the pk microcode listing: pc, word, instruction, source.")
    ap.add_argument("program", nargs="*", help="only the instructions these programs reach (default: all)")
    args = ap.parse_args()
    try:
        rom = load()
    except AsmError as e:
        sys.exit(f"asm: {e}")
    words = rom.words()
    keep = range(len(rom.code))
    if args.program:
        import ctcheck
        keep = sorted(set().union(*(ctcheck.reachable(rom, p) for p in args.program)))
    at = {}
    for name, pc in rom.labels.items():
        at.setdefault(pc, []).append(name)
    for pc in keep:
        for name in at.get(pc, []):
            print(f"{name}:")
        ln = rom.code[pc]
        print(f"  {pc:3d}  {words[pc]:08x}  {ln.text:<28}  {ln.where()}")


if __name__ == "__main__":
    main()
