#!/usr/bin/env python3
"""Register generator: one description per IP (rtl/<ip>/regs.toml) -> the IP's whole bus side, C header, docs table.

Why our own format and not SystemRDL/PeakRDL: PeakRDL-regblock's SystemVerilog is rejected by
Debian's Yosys 0.23 ("Only PACKED supported") and warns under Verilator -Wall (docs/engine.md).

Description (TOML):
    name = "aes"                # IP name: <name>_reg_top, <name>_reg_pkg, header se/hw/<name>_regs.h
    title = "..."               # one line for the docs
    addr_bits = 8               # byte-address width of the register window
    [common]                    # the common registers: NAME, VERSION, CAPABILITIES, ERR, INTR_STATE,
    NAME = "AES "  ...          # INTR_ENABLE, BUSY_CYCLES (the template rtl/common/regs_common.toml says how)
    [[reg]]
    name = "CTRL"  offset = 0x0c  access = "rw"  desc = "..."
    count = 4                   # optional: an array REG0..REG3 at offset + 4*i, no fields
    value = 0x41455320          # access "const" only
    rd_strobe = true            # access "ro" only: a one-cycle read strobe per read
    hw_write = true             # access "rw"/"wo" without fields only: the hardware may write it too
    fields = [ {name = "MODE", bits = "2:0", desc = "...", reset = 0, enum = {ECB = 0}} ]
A register without fields has one implicit 32-bit field named like the register. An `ro` field
with `value = N` is a constant (no hardware input).

The generated bus side, build/gen/rtl/<name>_reg_top.sv: a Wishbone B4 classic slave
(wb_pkg::wb_req_t wb_i / wb_rsp_t wb_o, through rtl/common/wb_regif.sv: registered ack/err, two
clocks an access), the registers, and the common registers' hardware (irq_o, busy_o). The IP
sees its registers as two packed structs from build/gen/rtl/<name>_reg_pkg.sv:
    reg2hw_o  (<name>_reg2hw_t)  the register side's outputs
    hw2reg_i  (<name>_hw2reg_t)  the hardware's inputs
with one member per register, named like it in lower case: a struct of its fields (lower case)
and strobes, or, for a register whose only member would be its implicit field, that value itself
(an implicit field beside a strobe is `value`). Per access kind (software view; struct members):
    const  reads `value`, writes ignored                      [none]
    rw     storage, read back                                 [reg2hw.<reg>.<field>]
    wo     storage, reads as 0 (keys)                         [reg2hw.<reg>.<field>]
    ro     hardware value, writes ignored                     [hw2reg.<reg>.<field>; rd_strobe: reg2hw.<reg>.rd]
    pulse  a write gives a one-cycle strobe with the value    [reg2hw.<reg>.<field>, reg2hw.<reg>.wr]
    w1c    bits set by hardware, cleared by writing 1         [hw2reg.<reg>.<field>: 1 sets the bit]
(INTR_ENABLE and BUSY_CYCLES have no members: the generated interrupt line and counter use them.)
A register with hw_write also takes [hw2reg.<reg>.de, hw2reg.<reg>.d]: in a cycle with de set it
stores d (the whole array), and a bus write to it in that cycle is lost (a DMA that owns the IP).
Bus: an unmapped or unaligned address, or a write whose byte enables are not all set, ends in
err and changes nothing. Arrays are packed into one member with element 0 in the most significant
word (big-endian byte order, as the cipher standards write blocks); a read strobe has a bit per
element, element 0 in the most significant bit.

    regtool.py rtl/aes/regs.toml --sv DIR --c DIR --md DIR
    regtool.py rtl/*/regs.toml --check-md docs/regs      (fails if the committed docs are stale)
"""
import argparse
import pathlib
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
COMMON = ROOT / "rtl" / "common" / "regs_common.toml"
ACCESS = {"const", "rw", "wo", "ro", "pulse", "w1c"}
# Not struct member names (SystemVerilog keywords a field might be called).
KEYWORDS = {"bit", "byte", "int", "logic", "wire", "reg", "type", "input", "output", "event", "table",
            "wait", "do", "if", "else", "case", "begin", "end", "assign", "default", "module", "struct"}


def fail(msg):
    sys.exit(f"regtool: {msg}")


class Field:
    def __init__(self, reg, d):
        self.name = d["name"]
        hi, _, lo = str(d["bits"]).partition(":")
        self.hi, self.lo = int(hi), int(lo or hi)
        self.width = self.hi - self.lo + 1
        self.desc = d.get("desc", "")
        self.reset = int(d.get("reset", 0))
        self.enum = dict(d.get("enum", {}))
        self.value = d.get("value")      # ro: a constant
        self.level = d.get("level")      # INTR_STATE: the level that raises the interrupt instead
        self.implicit = self.name == reg.name
        self.port = f"{reg.lname}_{self.name.lower()}" if not self.implicit else reg.lname
        if not (0 <= self.lo <= self.hi < 32):
            fail(f"{reg.name}.{self.name}: bad bits {d['bits']}")
        if self.value is not None and reg.access != "ro":
            fail(f"{reg.name}.{self.name}: only ro fields have a constant value")
        if self.name.lower() in KEYWORDS | {"wr", "rd", "value"}:
            fail(f"{reg.name}.{self.name}: the name is taken")

    @property
    def mask(self):
        return ((1 << self.width) - 1) << self.lo

    def decl(self, n=1):
        w = self.width * n
        return f"[{w - 1}:0] " if w > 1 else ""


class Reg:
    def __init__(self, d, role=None):
        self.name = d["name"]
        self.lname = self.name.lower()
        self.offset = int(d["offset"])
        self.access = d["access"]
        self.count = int(d.get("count", 1))
        self.desc = d.get("desc", "")
        self.value = int(d.get("value", 0))
        self.rd_strobe = bool(d.get("rd_strobe", False))
        self.hw_write = bool(d.get("hw_write", False))
        self.role = role     # the common register's name: its hardware is generated
        if self.access not in ACCESS:
            fail(f"{self.name}: unknown access {self.access}")
        if self.count > 1 and ("fields" in d or self.access in ("pulse", "w1c")):
            fail(f"{self.name}: arrays have no fields and are not pulse or w1c")
        if self.rd_strobe and self.access != "ro":
            fail(f"{self.name}: only ro registers have a read strobe")
        if self.hw_write and (self.access not in ("rw", "wo") or "fields" in d):
            fail(f"{self.name}: only rw and wo registers without fields take hw_write")
        if self.lname in KEYWORDS:
            fail(f"{self.name}: the name is a SystemVerilog keyword")
        fields = d.get("fields") or [{"name": self.name, "bits": "31:0", "desc": self.desc}]
        self.fields = [Field(self, f) for f in fields]
        used = 0
        for f in self.fields:
            if used & f.mask:
                fail(f"{self.name}.{f.name} overlaps another field")
            used |= f.mask

    def addrs(self):
        return [self.offset + 4 * i for i in range(self.count)]

    def elem(self, i):
        return f"{self.name}{i}" if self.count > 1 else self.name

    # ---- the hardware's view: members of reg2hw (to the hardware) and hw2reg (from it) ----------
    def to_hw(self, f):
        return self.access in ("rw", "wo", "pulse") and self.role != "INTR_ENABLE"

    def from_hw(self, f):
        return (self.access == "ro" and f.value is None and self.role != "BUSY_CYCLES") or self.access == "w1c"

    def strobe(self):
        return ("wr", 1) if self.access == "pulse" else ("rd", self.count) if self.rd_strobe else None

    def members(self, side):
        """[(member name, width)] of this register in reg2hw ("reg2hw") or hw2reg ("hw2reg")."""
        keep = self.to_hw if side == "reg2hw" else self.from_hw
        if side == "hw2reg" and self.hw_write:
            return [("de", 1), ("d", 32 * self.count)]
        out = [("value" if f.implicit else f.name.lower(), f.width * self.count)
               for f in sorted(self.fields, key=lambda f: -f.lo) if keep(f)]
        if side == "reg2hw" and self.strobe():   # first: the fields keep their places from bit 0
            out.insert(0, self.strobe())
        return out

    def word_aligned(self, side):
        """Whether this register's member is a plain value of whole words: the structs put those last,
        from bit 0 up, so each starts on a word boundary (Verilator copies whole words then)."""
        ms = self.members(side)
        return len(ms) == 1 and ms[0][0] == "value" and ms[0][1] % 32 == 0

    def path(self, side, member):
        """The SystemVerilog expression of one member ("value" for the implicit field)."""
        s = f"{side}_{'o' if side == 'reg2hw' else 'i'}.{self.lname}"
        ms = self.members(side)
        return s if len(ms) == 1 and ms[0][0] == "value" else f"{s}.{member}"

    def fpath(self, side, f):
        return self.path(side, "value" if f.implicit else f.name.lower())

    # ---- what a test expects of it over the bus ----------------------------------------------
    def reset_value(self):
        """What a read returns after reset, or None when the hardware decides."""
        if self.access == "const":
            return self.value
        if self.access in ("rw", "w1c"):
            return sum(f.reset << f.lo for f in self.fields)
        if self.access in ("wo", "pulse"):
            return 0
        if all(f.value is not None for f in self.fields):
            return sum(int(f.value) << f.lo for f in self.fields)
        return 0 if self.role == "BUSY_CYCLES" else None

    def write_mask(self):
        """The bits a write stores and a read returns (rw only)."""
        return sum(f.mask for f in self.fields) if self.access == "rw" else 0


def common_regs(d):
    """The common registers an IP's [common] table asks for, from the template (rtl/common/regs_common.toml)."""
    c = d.get("common")
    if c is None:
        return []
    known = {"NAME", "VERSION", "CAPABILITIES", "ERR", "INTR", "BUSY_CYCLES", "offsets", "descs"}
    if set(c) - known:
        fail(f"[common]: unknown keys {sorted(set(c) - known)}")
    name = str(c.get("NAME", ""))
    if len(name) != 4 or not name.isascii():
        fail(f"[common] NAME {name!r}: four ASCII characters")
    version = str(c.get("VERSION", ""))
    parts = version.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        fail(f"[common] VERSION {version!r}: major.minor.patch")
    major, minor, patch = map(int, parts)
    values = {"NAME": int.from_bytes(name.encode(), "big"), "VERSION": major << 24 | minor << 16 | patch}
    offsets, descs = dict(c.get("offsets", {})), dict(c.get("descs", {}))
    regs = []
    for t in tomllib.loads(COMMON.read_text())["reg"]:
        if t["key"] not in c:
            continue
        r = {k: v for k, v in t.items() if k in ("name", "offset", "access", "desc")}
        r["desc"] = descs.pop(r["name"], r["desc"]).format(name=name, version=version)
        r["offset"] = offsets.pop(r["name"], r["offset"])
        if r["name"] in values:
            r["value"] = values[r["name"]]
        elif t["key"] in ("ERR", "INTR"):   # one bit each, in order from bit 0
            r["fields"] = [dict(f, bits=str(i)) for i, f in enumerate(c[t["key"]])]
            if "field_desc" in t:
                r["fields"] = [dict(f, desc=t["field_desc"].format(field=f["name"])) for f in r["fields"]]
            if r["name"] != "INTR_STATE":
                r["fields"] = [{k: v for k, v in f.items() if k != "level"} for f in r["fields"]]
        elif t["key"] == "CAPABILITIES":
            r["fields"] = c["CAPABILITIES"]
        regs.append(Reg(r, role=r["name"]))
    if offsets or descs:
        fail(f"[common]: offsets/descs for registers it does not have: {sorted(set(offsets) | set(descs))}")
    return regs


def field_of(regs, ref):
    """The (register, field) named "REG.FIELD": a hardware-driven ro field."""
    rn, _, fn = ref.partition(".")
    for r in regs:
        for f in r.fields:
            if r.name == rn and f.name == fn and r.access == "ro" and f.value is None and r.count == 1:
                return r, f
    fail(f"{ref}: not an ro field driven by the hardware")


def load(path):
    d = tomllib.loads(pathlib.Path(path).read_text())
    regs = sorted(common_regs(d) + [Reg(r) for r in d.get("reg", [])], key=lambda r: r.offset)
    seen = {}
    for r in regs:
        for a in r.addrs():
            if a % 4 or a >= 1 << d["addr_bits"] or a in seen:
                fail(f"{r.name}: offset {a:#x} unaligned, out of range or used by {seen.get(a)}")
            seen[a] = r.name
    names = [r.name for r in regs]
    if len(set(names)) != len(names):
        fail(f"{path}: a register name is used twice")
    for r in regs:
        for f in r.fields:
            if f.level:
                field_of(regs, f.level)
        if r.role == "BUSY_CYCLES":
            field_of(regs, "STATUS.BUSY")
    return d, regs


# ---------------------------------------------------------------------------------------------
def gen_pkg(d, regs, src):
    name = d["name"]
    out = [f"// Generated by tools/regtool.py from {src} -- do not edit.",
           f"// {d['title']}:",
           f"// the registers' interface to the hardware ({name}_reg_top's reg2hw_o and hw2reg_i).",
           f"package {name}_reg_pkg;", ""]
    for side, what in (("reg2hw", "register values and strobes, to the hardware"),
                       ("hw2reg", "hardware values and w1c set strobes, to the registers")):
        out += [f"  // {what}", "  typedef struct packed {"]
        n = 0
        for r in sorted(regs, key=lambda r: r.word_aligned(side)):
            ms = r.members(side)
            if not ms:
                continue
            n += 1
            if len(ms) == 1 and ms[0][0] == "value":
                out.append(f"    logic {decl(ms[0][1])}{r.lname};")
                continue
            out.append("    struct packed {")
            out += [f"      logic {decl(w)}{m};" for m, w in ms]
            out.append(f"    }} {r.lname};")
        if not n:
            fail(f"{src}: no {side} member (a struct cannot be empty)")
        out += [f"  }} {name}_{side}_t;", ""]
    out += ["endpackage", ""]
    return "\n".join(out)


def decl(w):
    return f"[{w - 1}:0] " if w > 1 else ""


def gen_sv(d, regs, src):
    name, aw = d["name"], d["addr_bits"]
    body, rd, tail = [], [], []
    resets, writes = [], {}     # the plain (rw, wo) registers: one write port, decoded once
    hw_writes = [f"      if ({r.path('hw2reg', 'de')}) {r.fields[0].port}_q <= {r.path('hw2reg', 'd')};"
                 for r in regs if r.hw_write]
    intr_state = next((r for r in regs if r.role == "INTR_STATE"), None)
    intr_enable = next((r for r in regs if r.role == "INTR_ENABLE"), None)
    busy = next((r for r in regs if r.role == "BUSY_CYCLES"), None)
    for r in regs:
        n = r.count
        for f in r.fields:
            if r.access in ("rw", "wo", "w1c"):
                body.append(f"  logic {f.decl(n)}{f.port}_q;")
                if r.to_hw(f):
                    tail.append(f"  assign {r.fpath('reg2hw', f)} = {f.port}_q;")
        if r.rd_strobe:
            body.append(f"  logic {decl(n)}{r.lname}_rd;")
            tail.append(f"  assign {r.path('reg2hw', 'rd')} = {r.lname}_rd;")
        for i, a in enumerate(r.addrs()):
            hit = f"hit_{r.lname}{i if n > 1 else ''}"
            if r.access in ("pulse", "w1c") or r.rd_strobe:
                body.append(f"  logic {hit};")
                body.append(f"  assign {hit} = req && addr == {aw}'h{a:x};")
            if r.rd_strobe:
                body.append(f"  assign {r.lname}_rd{f'[{n - 1 - i}]' if n > 1 else ''} = {hit} && !we;")
            wr = f"{hit} && we && be == 4'hf"
            for f in r.fields:
                sl = f"[{(n - i) * f.width - 1}:{(n - 1 - i) * f.width}]" if n > 1 else ""
                data = f"wdata[{f.hi}:{f.lo}]" if f.width > 1 else f"wdata[{f.lo}]"
                val = f"{f.port}_q{sl}"
                if r.access in ("rw", "wo"):
                    resets.append(f"      {val} <= {f.width}'h{f.reset:x};")
                    writes.setdefault(a, []).append(f"{val} <= {data};")
                elif r.access == "w1c":
                    body.append(f"  always_ff @(posedge clk_i or negedge rst_ni)\n"
                                f"    if (!rst_ni) {val} <= {f.width}'h{f.reset:x};\n"
                                f"    else {val} <= ({val} & ~({{{f.width}{{{wr}}}}} & {data})) | "
                                f"{r.fpath('hw2reg', f)};")
                elif r.access == "pulse":
                    body.append(f"  assign {r.fpath('reg2hw', f)} = {data};")
                if r.access in ("rw", "w1c"):
                    rd.append((a, f, val))
                elif r.access == "ro":
                    rd.append((a, f, f"{f.width}'h{int(f.value):x}" if f.value is not None else
                               "busy_cycles_q" if r.role == "BUSY_CYCLES" else f"{r.fpath('hw2reg', f)}{sl}"))
            if r.access == "pulse":
                body.append(f"  assign {r.path('reg2hw', 'wr')} = {wr};")
            if r.access == "const":
                rd.append((a, None, f"32'h{r.value:08x}"))
    # The read multiplexer, one case item per readable address.
    by_addr = {}
    for a, f, v in rd:
        by_addr.setdefault(a, []).append((f, v))
    items = []
    for a in sorted(by_addr):
        parts = []
        for f, v in by_addr[a]:
            parts.append(f"rdata_mux[{f.hi}:{f.lo}] = {v};" if f and f.width > 1 else
                         f"rdata_mux[{f.lo}] = {v};" if f else f"rdata_mux = {v};")
        items.append(f"      {aw}'h{a:x}: begin {' '.join(parts)} end")
    mapped = ",\n".join(f"      {aw}'h{a:x}" for r in regs for a in r.addrs())
    # One case on the address for all plain registers, under one write enable: an idle bus costs
    # the simulator one test, not one compare per register.
    plain = ""
    if writes:
        cases = "\n".join(f"          {aw}'h{a:x}: begin {' '.join(w)} end" for a, w in sorted(writes.items()))
        head = ("  // The plain registers (rw, wo): written by a whole-word write to their address"
                + (", or by the hardware (hw_write)" if hw_writes else "") + ".\n"
                "  always_ff @(posedge clk_i or negedge rst_ni)\n"
                "    if (!rst_ni) begin\n" + "\n".join(resets) + "\n")
        case = "        case (addr)\n" + cases + "\n          default: ;\n        endcase\n"
        if hw_writes:   # after the bus write: the hardware's write wins
            plain = (head + "    end else begin\n      if (req && we && be == 4'hf)\n" + case +
                     "".join(w + "\n" for w in hw_writes) + "    end\n")
        else:
            plain = head + "    end else if (req && we && be == 4'hf) begin\n" + case + "    end\n"

    ports = [("input  wire logic", "clk_i", ""), ("input  wire logic", "rst_ni", ""),
             ("input  wire wb_pkg::wb_req_t", "wb_i", "Wishbone B4 classic slave"),
             ("output wb_pkg::wb_rsp_t", "wb_o", ""),
             (f"output {name}_reg_pkg::{name}_reg2hw_t", "reg2hw_o", "to the hardware"),
             (f"input  wire {name}_reg_pkg::{name}_hw2reg_t", "hw2reg_i", "from the hardware")]
    common = []
    if intr_state:
        terms = []
        for f in intr_state.fields:
            en = next(e for e in intr_enable.fields if e.name == f.name)
            if f.level:
                lr, lf = field_of(regs, f.level)
                terms.append(f"{lr.fpath('hw2reg', lf)} & {en.port}_q")
            else:
                terms.append(f"{f.port}_q & {en.port}_q")
        what = "|(INTR_STATE & INTR_ENABLE)" + "".join(f", {f.level} for INTR_STATE.{f.name}"
                                                       for f in intr_state.fields if f.level)
        ports.append(("output logic", "irq_o", what))
        common += [f"  // The interrupt line: {what}.",
                   f"  assign irq_o = {terms[0]};" if len(terms) == 1 else
                   f"  assign irq_o = |{{{', '.join(terms)}}};"]
    if busy:
        br, bf = field_of(regs, "STATUS.BUSY")
        ports.append(("output logic", "busy_o", "STATUS.BUSY, what BUSY_CYCLES counts"))
        common += ["  // BUSY_CYCLES: the cycles with STATUS.BUSY set.",
                   "  logic [31:0] busy_cycles_q;",
                   "  always_ff @(posedge clk_i or negedge rst_ni)",
                   "    if (!rst_ni) busy_cycles_q <= 32'h0;",
                   f"    else if ({br.fpath('hw2reg', bf)}) busy_cycles_q <= busy_cycles_q + 32'd1;",
                   f"  assign busy_o = {br.fpath('hw2reg', bf)};"]
    taken = 0   # the data bits some register takes from a write
    for r in regs:
        if r.access in ("rw", "wo", "pulse", "w1c"):
            taken |= sum(f.mask for f in r.fields)
    unused = "" if taken == 0xffffffff else (
        "\n  // The data bits no register takes.\n  logic unused_wdata;\n"
        f"  assign unused_wdata = ^(wdata & 32'h{~taken & 0xffffffff:08x});\n")
    width = max(len(t) for t, _, _ in ports)
    plist = []
    for k, (t, p, c) in enumerate(ports):
        line = f"  {t:<{width}} {p}{',' if k < len(ports) - 1 else ''}"
        plist.append(f"{line:<{width + 14}}// {c}" if c else line)
    return f"""// Generated by tools/regtool.py from {src} -- do not edit.
// {d['title']}:
// the bus side -- a Wishbone B4 slave (rtl/common/wb_regif.sv), the registers and the common
// registers' hardware; the IP sees reg2hw_o / hw2reg_i ({name}_reg_pkg).
`default_nettype none

module {name}_reg_top (
{chr(10).join(plist)}
);

  logic        req, we, err;
  logic {f"[{aw - 1}:0]":<6} addr;
  logic [31:0] wdata, rdata;
  logic [3:0]  be;

  wb_regif #(.AddrBits({aw})) u_wb (
    .clk_i, .rst_ni, .wb_i, .wb_o,
    .req_o(req), .we_o(we), .addr_o(addr), .wdata_o(wdata), .be_o(be), .rdata_i(rdata), .err_i(err)
  );

  logic mapped;
  always_comb
    case (addr)
{mapped}: mapped = 1'b1;
      default: mapped = 1'b0;
    endcase
  // Unmapped, or a write of less than a whole word: an error, and no effect (every write below
  // is also gated by be == 4'hf and its address).
  assign err = req && (!mapped || (we && be != 4'hf));

{chr(10).join(body)}

{plain}
{chr(10).join(tail)}

  logic [31:0] rdata_mux;
  always_comb begin
    rdata_mux = 32'h0;
    case (addr)
{chr(10).join(items)}
      default: rdata_mux = 32'h0;
    endcase
  end
  assign rdata = (req && !we) ? rdata_mux : 32'h0;
{unused}{chr(10) + chr(10).join(common) + chr(10) if common else ''}
endmodule

`default_nettype wire
"""


def gen_c(d, regs, src):
    p = f"SE_{d['name'].upper()}"
    g = f"SE_HW_{d['name'].upper()}_REGS_H"
    out = [f"/* Generated by tools/regtool.py from {src} -- do not edit. */",
           f"/* {d['title']}: register offsets, field shifts/masks and values. */",
           f"#ifndef {g}", f"#define {g}", ""]
    for r in regs:
        out.append(f"/* {r.name} ({r.access}): {r.desc} */")
        if r.count > 1:
            out.append(f"#define {p}_{r.name}(i) (0x{r.offset:02x}u + 4u * (unsigned)(i))")
            out.append(f"#define {p}_{r.name}_COUNT {r.count}u")
        else:
            out.append(f"#define {p}_{r.name} 0x{r.offset:02x}u")
        if r.access == "const":
            out.append(f"#define {p}_{r.name}_VALUE 0x{r.value:08x}u")
        for f in r.fields:
            if f.name == r.name:
                continue
            out.append(f"#define {p}_{r.name}_{f.name}_SHIFT {f.lo}u")
            out.append(f"#define {p}_{r.name}_{f.name}_MASK 0x{(1 << f.width) - 1:x}u")
            for k, v in f.enum.items():
                out.append(f"#define {p}_{r.name}_{f.name}_{k} {v}u")
        out.append("")
    out += [f"#endif /* {g} */", ""]
    return "\n".join(out)


def gen_md(d, regs, src):
    out = [f"<!-- Generated by tools/regtool.py from {src} -- do not edit. -->",
           f"# {d['name']} registers — {d['title']}", "",
           "Offsets are bytes from the IP's base; all registers are 32 bits wide and must be accessed",
           "as whole words (a partial write or an unmapped offset is a bus error).", "",
           "| offset | name | access | reset | description |", "| --- | --- | --- | --- | --- |"]
    for r in regs:
        off = f"0x{r.offset:02x}" + (f"–0x{r.offset + 4 * r.count - 1:02x}" if r.count > 1 else "")
        nm = f"{r.name}0..{r.count - 1}" if r.count > 1 else r.name
        reset = f"0x{r.value:08x}" if r.access == "const" else (
            "0" if r.access in ("rw", "wo", "w1c") else "—")
        out.append(f"| {off} | {nm} | {r.access} | {reset} | {r.desc} |")
    for r in regs:
        if len(r.fields) == 1 and r.fields[0].name == r.name:
            continue
        out += ["", f"## {r.name}", "", "| bits | field | description |", "| --- | --- | --- |"]
        for f in r.fields:
            bits = f"{f.hi}:{f.lo}" if f.width > 1 else f"{f.lo}"
            enum = (" Values: " + ", ".join(f"{v} = {k}" for k, v in f.enum.items()) + ".") if f.enum else ""
            out.append(f"| {bits} | {f.name} | {f.desc}{enum} |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("desc", nargs="+")
    ap.add_argument("--sv", help="write <name>_reg_pkg.sv and <name>_reg_top.sv here")
    ap.add_argument("--c")
    ap.add_argument("--md")
    ap.add_argument("--check-md", help="compare generated docs with the files in this folder")
    a = ap.parse_args()
    stale = []
    for path in a.desc:
        d, regs = load(path)
        src = pathlib.Path(path).as_posix()
        outs = []
        if a.sv:
            outs.append((pathlib.Path(a.sv) / f"{d['name']}_reg_pkg.sv", gen_pkg(d, regs, src)))
            outs.append((pathlib.Path(a.sv) / f"{d['name']}_reg_top.sv", gen_sv(d, regs, src)))
        if a.c:
            outs.append((pathlib.Path(a.c) / f"{d['name']}_regs.h", gen_c(d, regs, src)))
        if a.md:
            outs.append((pathlib.Path(a.md) / f"{d['name']}.md", gen_md(d, regs, src)))
        for f, text in outs:
            f.parent.mkdir(parents=True, exist_ok=True)
            if not f.exists() or f.read_text() != text:
                f.write_text(text)
        if a.check_md:
            f = pathlib.Path(a.check_md) / f"{d['name']}.md"
            if not f.exists() or f.read_text() != gen_md(d, regs, src):
                stale.append(str(f))
    if stale:
        sys.exit("regtool: stale register docs (run `make regs`): " + ", ".join(stale))


if __name__ == "__main__":
    main()
