"""The pk instruction set, read from isa.toml: machine constants, slot map, status codes, flags,
instruction formats and the instructions themselves (syntax, dataflow, effect).

Everything else reads the ISA through this module: the assembler (asm.py), the model
(model.py), the constant-time checker (ctcheck.py) and the generators (ucode.py).
"""
import pathlib
import re
import tomllib
from dataclasses import dataclass, field

HERE = pathlib.Path(__file__).resolve().parent
_T = tomllib.loads((HERE / "isa.toml").read_text())

M = _T["machine"]
DW = M["digit_width"]
W = M["width"]
ROM_WORDS = M["rom_words"]
CALL_DEPTH = M["call_depth"]
CACHE_ENTRIES, CACHE_POINTS, CACHE_BASE = M["cache_entries"], M["cache_points"], M["cache_base"]
HOST_INSNS = M["host_insns"]

SLOTS = list(_T["slot"])
S = {name: i for i, name in enumerate(SLOTS)}
SLOT_CLASS = {name: v["class"] for name, v in _T["slot"].items()}
SLOT_DOC = {name: v["doc"] for name, v in _T["slot"].items() if "doc" in v}
STATE_SLOTS = sum(c == "state" for c in SLOT_CLASS.values())
assert all(SLOT_CLASS[n] == "state" for n in SLOTS[:STATE_SLOTS]), "state slots come first"

REGISTERS = dict(_T["register"])   # F, prev, scalar, ctr -> reset | kept (at each command)
STATUS = dict(_T["status"])
FLAG = dict(_T["flags"])
FORMATS = {name: {f: tuple(r) for f, r in fields.items()} for name, fields in _T["format"].items()}
FIELD_DOC = dict(_T["field_doc"])

SLOT_FIELDS = ("d", "a", "b")
CONTROLS = ("next", "jump", "branch", "call", "ret", "end", "abort")


@dataclass
class Insn:
    """One instruction of the ISA (an [[insn]] of isa.toml)."""
    name: str
    op: int
    effect: str
    syntax: str = ""
    suffix: str = ""                             # the mnemonic suffix that sets f = 1
    format: str = "R"
    kinds: dict = field(default_factory=dict)    # field -> slot | int | label | status | flags | point
    control: str = "next"
    cond: str = ""                               # what a branch tests: F or ctr
    flow: dict = field(default_factory=dict)     # written location -> the locations it depends on
    public: dict = field(default_factory=dict)   # operand -> why it must not be secret-derived
    range_test: bool = False                     # F = a range test of operand a (ctcheck.py)

    def operands(self):
        """The fields the syntax names, in order."""
        return re.findall(r"\{(\w+)\}", self.syntax)

    def kind(self, fld):
        return self.kinds.get(fld, "slot" if fld in SLOT_FIELDS else "int")


INSNS = [Insn(op=i, **d) for i, d in enumerate(_T["insn"])]
OPS = [i.name for i in INSNS]
OP = {i.name: i.op for i in INSNS}
OP_DOC = {i.name: i.effect for i in INSNS}
BY_NAME = {i.name: i for i in INSNS}
for _i in INSNS:
    assert _i.format in FORMATS and _i.control in CONTROLS, _i.name
    assert all(f in FORMATS[_i.format] for f in _i.operands()), _i.name


def encode(insn, fields):
    """The 32-bit word of `insn` with the field values `fields` (name -> int; missing: 0)."""
    word = 0
    for name, (hi, lo) in FORMATS[insn.format].items():
        v = insn.op if name == "op" else fields.get(name, 0)
        if not 0 <= v < 1 << (hi - lo + 1):
            raise ValueError(f"{insn.name}: {name} = {v} does not fit [{hi}:{lo}]")
        word |= v << lo
    for name, v in fields.items():
        if v and name not in FORMATS[insn.format]:
            raise ValueError(f"{insn.name} has no field {name}")
    return word


def decode(word):
    """(Insn, fields) of a 32-bit word; fields the instruction's format does not have are 0."""
    op = word >> FORMATS["R"]["op"][1]
    if op >= len(INSNS):
        return None, {}
    insn = INSNS[op]
    fields = dict.fromkeys(FORMATS["R"], 0)
    for name, (hi, lo) in FORMATS[insn.format].items():
        fields[name] = word >> lo & ((1 << (hi - lo + 1)) - 1)
    return insn, fields


def render(insn, fields, label=None):
    """An instruction's text as the listing shows it, e.g. `MUL.n T1, RX, RRN` (label: the name
    of a label operand's target)."""
    names = {v: k for k, v in STATUS.items()}

    def text(fld):
        v, kind = fields.get(fld, 0), insn.kind(fld)
        if kind == "slot":
            return SLOTS[v]
        if kind == "label":
            return label
        if kind == "status":
            return names[v]
        if kind == "flags":
            return " ".join(n for n, bit in FLAG.items() if v & bit)
        if kind == "point":
            return f"T{v + 1}"
        return str(v)

    mnemonic = insn.name + (insn.suffix if fields.get("f") else "")
    ops = insn.syntax.format(**{f: text(f) for f in insn.operands()})
    return f"{mnemonic} {ops}" if ops else mnemonic
