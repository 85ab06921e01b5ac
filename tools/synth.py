#!/usr/bin/env python3
"""make synth: area and logic depth of every RTL block into build/reports/area.json and area.md,
and docs/area.md when every block ran.

Each IP registers its blocks in rtl/<ip>/synth.json:
    {"blocks": [{"name": "aes", "core": "iotse:ip:aes", "target": "default", "sram_bytes": N,
                 "params": {"NAME": value}}]}
The sources and the top are the core's target (rtl/**/*.core, read by tools/cores.py); `params`
(optional) set the top's parameters. The files of the SRAM core (BLACK_BOXES) are read as black
boxes: macros, counted in sram_bytes rather than in gates. Sources under build/gen come from
`make regs`. `--verilog FILE... --top T` measures any other design the same way.

Per block, after a generic `synth -flatten` (Yosys's internal gate library):
- ge_logic: Yosys `stat -tech cmos` transistors / 4, less what Yosys counts for flip-flops (it
  prices the plain D flip-flop alone, YOSYS_PRICED);
- ge_ff: every flip-flop bit priced by its kind (FF_GE below), so ge_total = ge_logic + ge_ff;
- depth: the longest register-to-register path in gate levels (Yosys `ltp -noff`, every gate one
  level, a 2:1 mux included) with its start and end points. Block inputs and outputs count as
  registers, and so do the SRAM macros, which are synchronous: their cells are taken out first.
xc7 LUT/FF/DSP48E1 counts come from `synth_xilinx -family xc7`.
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import cores  # noqa: E402

BLACK_BOXES = set(cores.files("iotse:prim:sram"))

# GE per flip-flop bit by Yosys's internal cell kind ($_DFF_PN0_ and so on). A D flip-flop costs
# 5 GE without reset and 6 GE with an asynchronous reset or set (the scan-less DFFR of common
# 65/45 nm libraries, in NAND2 equivalents), 7 GE with both. What Yosys folds into the flip-flop
# is priced at its own cmos cost: a synchronous reset or set is a gate in front (+1.5 GE, an AND),
# a clock enable a 2:1 mux (+3 GE). A kind not listed (a latch) stops the report.
# Keyed by (kind, polarity letters): DFF/DFFE with three/four letters carry the asynchronous reset.
FF_GE = {("DFF", 1): 5, ("DFF", 3): 6, ("DFFE", 2): 8, ("DFFE", 4): 9, ("SDFF", 3): 6.5, ("SDFFE", 4): 9.5,
         ("SDFFCE", 4): 9.5, ("DFFSR", 3): 7, ("DFFSRE", 4): 10}


def ff_ge(cell):
    """GE of one bit of Yosys flip-flop cell `cell` ("$_DFFE_PN0P_"); ValueError for other kinds."""
    m = re.fullmatch(r"\$_([A-Z]+)_([NP01]+)_", cell)
    ge = FF_GE.get((m.group(1), len(m.group(2)))) if m else None
    if ge is None:
        raise ValueError(f"no GE cost for the storage cell {cell}: tools/synth.py FF_GE")
    return ge


def yosys(script):
    return subprocess.run(["yosys", "-q", "-p", script], capture_output=True, text=True, check=True,
                          cwd=ROOT).stdout


STORAGE = ("DFF", "DFFE", "SDFF", "SDFFE", "SDFFCE", "DFFSR", "DFFSRE", "ALDFF", "ALDFFE", "DLATCH", "DLATCHSR",
           "SR", "FF")
# Yosys 0.23's `stat -tech cmos` prices these flip-flops itself (16 transistors); ge_logic takes
# that out again, so that every flip-flop is priced once, by FF_GE.
YOSYS_PRICED = {"$_DFF_P_": 16, "$_DFF_N_": 16}


def storage_cells(stat):
    """{cell kind: count} of the storage cells in a `stat` listing."""
    cells = re.findall(r"^\s+(\$_([A-Z]+)_(?:[NP01]+_)?)\s+(\d+)$", stat, re.M)
    return {c: int(n) for c, kind, n in cells if kind in STORAGE}


def longest_path(text, top):
    """(levels, start, end) from `ltp -noff`'s report on module top."""
    head = f"Longest topological path in {top} "
    if head not in text:
        raise RuntimeError(f"synth: Yosys `ltp` printed no path for {top}")
    part = text.split(head)[-1]
    levels = int(re.match(r"\(length=(\d+)\)", part).group(1))
    steps = re.findall(r"^\s+(\d+|ff): (\S+(?: \[\d+\])?)", part, re.M)
    name = lambda s: s.lstrip("\\").replace(" [", "[")
    return levels, name(steps[0][1]), name(steps[-1][1])


def area(files, top, sram_bytes=0, params=None):
    read = " ".join(f"read_verilog -sv {'-lib ' if f in BLACK_BOXES else ''}{f};" for f in files
                    if f.endswith((".v", ".sv", ".svh")))
    read += "".join(f" chparam -set {k} {int(v)} {top};" for k, v in (params or {}).items())
    boxes = " ".join(pathlib.Path(f).stem for f in files if f in BLACK_BOXES)
    # A module marked keep_hierarchy (gf2m_mul) stays a module for stat, which then prints every
    # module and a "design hierarchy" total, the part to read. For the depth the netlist is flattened
    # whole and the SRAM cells removed (their ports become the path's ends).
    unbox = f"delete t:{boxes.replace(' ', ' t:')};" if boxes else ""
    cmos = yosys(f"{read} synth -flatten -top {top}; tee -o /dev/stdout stat -tech cmos; "
                 f"setattr -mod -unset keep_hierarchy; flatten; {unbox} tee -o /dev/stdout ltp -noff")
    stat = cmos.split("Longest topological path", 1)[0].split("=== design hierarchy ===")[-1]
    transistors = int(re.search(r"Estimated number of transistors:\s+(\d+)", stat).group(1))
    kinds = storage_cells(stat)
    levels, start, end = longest_path(cmos, top)
    xc7 = yosys(f"{read} synth_xilinx -family xc7 -flatten -top {top}; tee -o /dev/stdout stat")
    xc7 = xc7.split("=== design hierarchy ===")[-1]
    xc7_ff = sum(int(n) for n in re.findall(r"FD[A-Z]*\s+(\d+)", xc7))
    if xc7_ff and not kinds:  # the listing's layout changed: fail, rather than report no flip-flops
        raise RuntimeError(f"synth: no flip-flop cells found in Yosys's `stat` of {top}")
    transistors -= sum(YOSYS_PRICED.get(c, 0) * n for c, n in kinds.items())
    ge_logic = round(transistors / 4)
    ge_ff = round(sum(n * ff_ge(c) for c, n in kinds.items()))
    return {"top": top, "ge_logic": ge_logic, "ge_ff": ge_ff, "ge_total": ge_logic + ge_ff,
            "ff": sum(kinds.values()), "ff_kinds": kinds, "sram_bits": 8 * sram_bytes,
            "depth": {"levels": levels, "from": start, "to": end},
            "xc7_lut": sum(int(n) for n in re.findall(r"LUT\d\s+(\d+)", xc7)),
            "xc7_ff": xc7_ff,
            "xc7_dsp": sum(int(n) for n in re.findall(r"DSP48E1\s+(\d+)", xc7))}


def markdown(blocks):
    md = ["# Area and logic depth", "",
          "Generated by `make synth` (tools/synth.py, Yosys generic `synth -flatten`); schema and method in",
          "docs/benchmarks.md \"area.json\". GE: logic = `stat -tech cmos` transistors / 4 (flip-flops out); FF = the",
          "flip-flop bits priced by kind (5 GE a plain D flip-flop, 6 with asynchronous reset, +3 for a",
          "clock enable, +1.5 for a synchronous reset); total = both. Depth: the longest register-to-register",
          "path in gate levels (`ltp -noff`), from and to the named signals. SRAM: black-boxed macros.", ""]
    if not blocks:
        return md + ["No RTL block registers itself yet (rtl/<ip>/synth.json)."]
    md += ["| block | top | GE logic | GE FF | GE total | FF bits | SRAM bits | depth | path | xc7 LUT | xc7 FF | xc7 DSP |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |"]
    for n, b in blocks.items():
        d = b["depth"]
        md.append(f"| {n} | `{b['top']}` | {b['ge_logic']:,} | {b['ge_ff']:,} | {b['ge_total']:,} | {b['ff']:,} | "
                  f"{b['sram_bits']:,} | {d['levels']} | `{d['from']}` → `{d['to']}` | {b['xc7_lut']:,} | "
                  f"{b['xc7_ff']:,} | {b['xc7_dsp']} |")
    cpus = {n: b["depth"]["levels"] for n, b in blocks.items() if n.startswith("cpu_")}
    for cpu, levels in sorted(cpus.items()):
        deeper = [n for n, b in blocks.items() if n not in cpus and b["depth"]["levels"] > levels]
        md.append(f"\nDeeper than `{cpu}` ({levels} levels): {', '.join(deeper) if deeper else 'no block'}.")
    return md


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="build/reports")
    ap.add_argument("--only", help="comma-separated block names: synthesize just these")
    ap.add_argument("--verilog", nargs="+", help="measure these sources instead of the registered blocks")
    ap.add_argument("--top", help="the top module of --verilog")
    args = ap.parse_args()
    out = ROOT / args.out
    out.mkdir(parents=True, exist_ok=True)
    blocks = {}
    if args.verilog:
        if not args.top:
            sys.exit("synth: --verilog needs --top")
        blocks[args.top] = area([str(pathlib.Path(f).resolve()) for f in args.verilog], args.top)
    else:
        only = set(args.only.split(",")) if args.only else None
        for f in sorted((ROOT / "rtl").glob("*/synth.json")):
            for cfg in json.loads(f.read_text())["blocks"]:
                if only is not None and cfg["name"] not in only:
                    continue
                print(f"synth: {cfg['name']} ({cfg['core']}, {cfg['target']})", flush=True)
                blocks[cfg["name"]] = area(cores.files(cfg["core"], cfg["target"]),
                                           cores.toplevel(cfg["core"], cfg["target"]),
                                           cfg.get("sram_bytes", 0), cfg.get("params"))
        if only is not None and only - set(blocks):
            sys.exit(f"synth: no block named {', '.join(sorted(only - set(blocks)))} in rtl/*/synth.json")
    (out / "area.json").write_text(json.dumps({"schema": 2, "blocks": blocks}, indent=1) + "\n")
    md = markdown(blocks)
    (out / "area.md").write_text("\n".join(md) + "\n")
    if not args.verilog and not args.only:  # every block: the table is kept in the docs too
        (ROOT / "docs" / "area.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
