#!/usr/bin/env python3
"""Register generator: one description per IP (rtl/<ip>/regs.toml) -> RTL register block, C header, docs table.

Why our own format and not SystemRDL/PeakRDL: PeakRDL-regblock's SystemVerilog is rejected by
Debian's Yosys 0.23 ("Only PACKED supported") and warns under Verilator -Wall (see docs/registers.md).

Description (TOML):
    name = "aes"                # IP name: module <name>_regs, header se/hw/<name>_regs.h
    title = "..."               # one line for the docs
    addr_bits = 8               # byte-address width of the register window
    [[reg]]
    name = "CTRL"  offset = 0x0c  access = "rw"  desc = "..."
    count = 4                   # optional: an array REG0..REG3 at offset + 4*i, no fields
    value = 0x41455320          # access "const" only
    rd_strobe = true            # access "ro" only: a one-cycle <reg>_rd_o pulse per read
    fields = [ {name = "MODE", bits = "2:0", desc = "...", reset = 0, enum = {ECB = 0}} ]
A register without fields has one implicit 32-bit field named like the register.

Access kinds (software view; hardware ports in brackets):
    const  reads `value`, writes ignored                      [none]
    rw     storage, read back                                 [<reg>_<field>_o]
    wo     storage, reads as 0 (keys)                         [<reg>_<field>_o]
    ro     hardware value, writes ignored                     [<reg>_<field>_i, opt. <reg>_rd_o]
    pulse  a write gives a one-cycle strobe with the value    [<reg>_wr_o, <reg>_<field>_o]
    w1c    bits set by hardware, cleared by writing 1         [<reg>_<field>_set_i, <reg>_<field>_o]
Bus: one access per cycle with req_i; err_o (same cycle) for an unmapped or unaligned address or a
write whose byte enables are not all set; an erroring access changes nothing.
Arrays are packed into one port with element 0 in the most significant word (big-endian byte order,
as the cipher standards write blocks).

    regtool.py rtl/aes/regs.toml --sv DIR --c DIR --md DIR
    regtool.py rtl/*/regs.toml --check-md docs/regs      (fails if the committed docs are stale)
"""
import argparse
import pathlib
import sys
import tomllib

ACCESS = {"const", "rw", "wo", "ro", "pulse", "w1c"}


class Field:
    def __init__(self, reg, d):
        self.name = d["name"]
        hi, _, lo = str(d["bits"]).partition(":")
        self.hi, self.lo = int(hi), int(lo or hi)
        self.width = self.hi - self.lo + 1
        self.desc = d.get("desc", "")
        self.reset = int(d.get("reset", 0))
        self.enum = dict(d.get("enum", {}))
        self.port = f"{reg.lname}_{self.name.lower()}" if self.name != reg.name else reg.lname
        if not (0 <= self.lo <= self.hi < 32):
            sys.exit(f"regtool: {reg.name}.{self.name}: bad bits {d['bits']}")

    @property
    def mask(self):
        return ((1 << self.width) - 1) << self.lo

    def decl(self, n=1):
        w = self.width * n
        return f"[{w - 1}:0] " if w > 1 else ""


class Reg:
    def __init__(self, d):
        self.name = d["name"]
        self.lname = self.name.lower()
        self.offset = int(d["offset"])
        self.access = d["access"]
        self.count = int(d.get("count", 1))
        self.desc = d.get("desc", "")
        self.value = int(d.get("value", 0))
        self.rd_strobe = bool(d.get("rd_strobe", False))
        if self.access not in ACCESS:
            sys.exit(f"regtool: {self.name}: unknown access {self.access}")
        if self.count > 1 and "fields" in d:
            sys.exit(f"regtool: {self.name}: arrays have no fields")
        fields = d.get("fields") or [{"name": self.name, "bits": "31:0", "desc": self.desc}]
        self.fields = [Field(self, f) for f in fields]
        used = 0
        for f in self.fields:
            if used & f.mask:
                sys.exit(f"regtool: {self.name}.{f.name} overlaps another field")
            used |= f.mask

    def addrs(self):
        return [self.offset + 4 * i for i in range(self.count)]

    def elem(self, i):
        return f"{self.name}{i}" if self.count > 1 else self.name


def load(path):
    d = tomllib.loads(pathlib.Path(path).read_text())
    regs = [Reg(r) for r in d["reg"]]
    seen = {}
    for r in regs:
        for a in r.addrs():
            if a % 4 or a >= 1 << d["addr_bits"] or a in seen:
                sys.exit(f"regtool: {r.name}: offset {a:#x} unaligned, out of range or used by {seen.get(a)}")
            seen[a] = r.name
    return d, regs


# ---------------------------------------------------------------------------------------------
def gen_sv(d, regs, src):
    name, aw = d["name"], d["addr_bits"]
    ports, body, rd = [], [], []
    for r in regs:
        n = r.count
        for f in r.fields:
            if r.access in ("rw", "wo", "pulse", "w1c"):
                ports.append(f"  output logic {f.decl(n)}{f.port}_o,")
            if r.access == "ro":
                ports.append(f"  input  wire logic {f.decl(n)}{f.port}_i,")
            if r.access == "w1c":
                ports.append(f"  input  wire logic {f.decl()}{f.port}_set_i,")
        if r.access == "pulse":
            ports.append(f"  output logic {r.lname}_wr_o,")
        if r.rd_strobe:
            ports.append(f"  output logic {'[%d:0] ' % (n - 1) if n > 1 else ''}{r.lname}_rd_o,")

        for i, a in enumerate(r.addrs()):
            hit = f"hit_{r.lname}{i if n > 1 else ''}"
            if r.access in ("rw", "wo", "pulse", "w1c") or r.rd_strobe:
                body.append(f"  logic {hit};")
                body.append(f"  assign {hit} = req_i && addr_i == {aw}'h{a:x};")
            if r.rd_strobe:
                idx = f"[{n - 1 - i}]" if n > 1 else ""
                body.append(f"  assign {r.lname}_rd_o{idx} = {hit} && !we_i;")
            wr = f"{hit} && we_i && be_i == 4'hf"
            for f in r.fields:
                sl = f"[{(n - i) * f.width - 1}:{(n - 1 - i) * f.width}]" if n > 1 else ""
                data = f"wdata_i[{f.hi}:{f.lo}]" if f.width > 1 else f"wdata_i[{f.lo}]"
                val = f"{f.port}_o{sl}"
                if r.access in ("rw", "wo"):
                    body.append(f"  always_ff @(posedge clk_i or negedge rst_ni)\n"
                                f"    if (!rst_ni) {val} <= {f.width}'h{f.reset:x};\n"
                                f"    else if ({wr}) {val} <= {data};")
                elif r.access == "w1c":
                    body.append(f"  always_ff @(posedge clk_i or negedge rst_ni)\n"
                                f"    if (!rst_ni) {val} <= {f.width}'h{f.reset:x};\n"
                                f"    else {val} <= ({val} & ~({{{f.width}{{{wr}}}}} & {data})) | {f.port}_set_i;")
                elif r.access == "pulse":
                    body.append(f"  assign {val} = {data};")
                if r.access in ("rw", "w1c"):
                    rd.append((a, f, val))
                elif r.access == "ro":
                    rd.append((a, f, f"{f.port}_i{sl}"))
            if r.access == "pulse":
                body.append(f"  assign {r.lname}_wr_o = {wr};")
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
            parts.append(f"rdata[{f.hi}:{f.lo}] = {v};" if f and f.width > 1 else
                         f"rdata[{f.lo}] = {v};" if f else f"rdata = {v};")
        items.append(f"      {aw}'h{a:x}: begin {' '.join(parts)} end")
    mapped = " ||\n".join(f"      addr_i == {aw}'h{a:x}" for r in regs for a in r.addrs())
    ports[-1] = ports[-1].rstrip(",")
    return f"""// Generated by tools/regtool.py from {src} -- do not edit.
// {d['title']}: register block (bus-free: one access per req_i cycle; the bus wrapper acknowledges).
`default_nettype none

module {name}_regs (
  input  wire logic clk_i,
  input  wire logic rst_ni,
  input  wire logic req_i,
  input  wire logic we_i,
  input  wire logic [{aw - 1}:0] addr_i,
  input  wire logic [31:0] wdata_i,
  input  wire logic [3:0] be_i,
  output logic [31:0] rdata_o,
  output logic err_o,
{chr(10).join(ports)}
);

  logic mapped;
  assign mapped =
{mapped};
  // Unmapped, or a write of less than a whole word: an error, and no effect (the hit_* terms
  // below still see it, so the writes are also gated by be_i == 4'hf and the address compare).
  assign err_o = req_i && (!mapped || (we_i && be_i != 4'hf));

{chr(10).join(body)}

  logic [31:0] rdata;
  always_comb begin
    rdata = 32'h0;
    case (addr_i)
{chr(10).join(items)}
      default: rdata = 32'h0;
    endcase
  end
  assign rdata_o = (req_i && !we_i) ? rdata : 32'h0;

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
    ap.add_argument("--sv")
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
            outs.append((pathlib.Path(a.sv) / f"{d['name']}_regs.sv", gen_sv(d, regs, src)))
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
