"""The ctrl instruction set, read from isa.toml: machine constants, the encoding, the branch
conditions, the status codes and the instructions. The assembler (ctrl_asm.py) and the model
(ctrl_model.py) read the ISA through this module alone. (The ctrl_ prefix keeps these modules
apart from rtl/pk's isa, asm and model when one process imports both.)
"""
import pathlib
import re
import tomllib
from dataclasses import dataclass, field

HERE = pathlib.Path(__file__).resolve().parent
_T = tomllib.loads((HERE / "isa.toml").read_text())

M = _T["machine"]
ROM_WORDS, CONST_BYTES, MEM_BYTES = M["rom_words"], M["const_bytes"], M["mem_bytes"]
SECRET_BYTES = M["secret_bytes"]
SECRET_BASE = MEM_BYTES - SECRET_BYTES   # the window's secret top: [SECRET_BASE, MEM_BYTES)
REGS, WIDTH, CALL_DEPTH, OUT_SLOTS = M["regs"], M["width"], M["call_depth"], M["out_slots"]
MASK = (1 << WIDTH) - 1
FORMAT = {f: tuple(r) for f, r in _T["format"].items()}
COND = dict(_T["cond"])
STATUS = dict(_T["status"])
STATUS_NAME = {v: k for k, v in STATUS.items()}
TAG_ANY = 0x100  # TLV's imm[8]

# The pk IP's names, which PKW and PKRUN take (the assembler predefines PK_SLOT_<name>,
# PK_PROG_<name>, PK_ST_<name>): its operand slots and status codes (rtl/pk/isa.toml) and its
# programs (rtl/pk/programs/index.toml, CMD RUN's numbers), read from pk's own descriptions.
_PK = tomllib.loads((HERE.parent / "pk" / "isa.toml").read_text())
PK_SLOT = {name: i for i, name in enumerate(_PK["slot"])}
PK_STATUS = dict(_PK["status"])
PK_PROG = {p["name"]: i for i, p in enumerate(
    tomllib.loads((HERE.parent / "pk" / "programs" / "index.toml").read_text())["program"])}
PK_PROG_FIELD = (5, 5)   # PKRUN's imm: the program in [4:0], CMD.SLOT (the cache entry) in [9:5]


@dataclass
class Insn:
    """One instruction (an [[insn]] of isa.toml); its opcode is its position there."""
    name: str
    op: int
    syntax: str
    cycles: str
    effect: str
    cond: bool = False                          # J: the condition in d
    kinds: dict = field(default_factory=dict)   # operand -> status | label | const | tag | slot

    def operands(self):
        """The fields the syntax names, in order."""
        return re.findall(r"\{(\w+)\}", self.syntax)

    def kind(self, fld):
        return self.kinds.get(fld, "reg" if fld in ("d", "a", "b") else "int")


INSNS = [Insn(op=i, **d) for i, d in enumerate(_T["insn"])]
BY_NAME = {i.name: i for i in INSNS}
assert len(INSNS) <= 1 << (FORMAT["op"][0] - FORMAT["op"][1] + 1)
assert MEM_BYTES & (MEM_BYTES - 1) == 0 and MEM_BYTES <= 1 << WIDTH, "mem_bytes: a power of two the registers reach"
assert SECRET_BYTES % 4 == 0 and 0 < SECRET_BYTES < MEM_BYTES, "secret_bytes: whole words of the window"
for _i in INSNS:
    assert all(f in FORMAT for f in _i.operands()), _i.name


def field_max(name):
    hi, lo = FORMAT[name]
    return (1 << (hi - lo + 1)) - 1


def encode(insn, fields):
    """The 32-bit word of insn with the field values fields (name -> int; missing: 0)."""
    word = 0
    for name, (hi, lo) in FORMAT.items():
        v = insn.op if name == "op" else fields.get(name, 0)
        if not 0 <= v <= field_max(name):
            raise ValueError(f"{insn.name}: {name} = {v} does not fit [{hi}:{lo}]")
        word |= v << lo
    return word


def decode(word):
    """(insn, fields) of a ROM word; ValueError for an opcode the ISA does not have."""
    fields = {name: (word >> lo) & field_max(name) for name, (hi, lo) in FORMAT.items()}
    if fields["op"] >= len(INSNS):
        raise ValueError(f"word {word:#010x}: no instruction {fields['op']}")
    return INSNS[fields["op"]], fields
