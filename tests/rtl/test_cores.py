"""The FuseSoC cores (rtl/**/*.core) are the one list of the RTL's sources: FuseSoC itself and
tools/cores.py, which gives make, the cocotb tests and `make synth` their lists, read the same files,
and FuseSoC's generators write what `make regs` writes.

FuseSoC resolves each core (`fusesoc run --setup`, its own dependency solver and generators) into
build/fusesoc; its file list (the .eda.yml) must name the files tools/cores.py names, and every
generated file must equal its twin in build/gen/rtl. The engine's lint target, the command an
integrator runs first, must pass under FuseSoC's Verilator backend."""
import filecmp
import json
import os
import pathlib
import subprocess
import sys

import pytest
import yaml

from rtlsim import ROOT, VERILATOR_BIN, sources

FUSESOC = ROOT / ".venv" / "bin" / "fusesoc"
BUILD_ROOT = ROOT / "build" / "fusesoc-test"
TOPS = ["iotse:engine:se_engine", "iotse:soc:soc_top", "iotse:ip:aes", "iotse:ip:sha", "iotse:ip:pk",
        "iotse:ip:gf2m"]


def fusesoc(*args):
    env = dict(os.environ, PATH=f"{ROOT / '.venv' / 'bin'}{os.pathsep}{VERILATOR_BIN}{os.pathsep}{os.environ['PATH']}")
    r = subprocess.run([FUSESOC, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, f"fusesoc {' '.join(args)}:\n{r.stdout}\n{r.stderr}"
    return r


def eda_files(vlnv):
    """[(path, file type)] FuseSoC resolves for a core's lint target, paths in its build directory."""
    fusesoc("run", "--setup", "--build-root", str(BUILD_ROOT / "setup"), "--target=lint", vlnv)
    work = BUILD_ROOT / "setup" / f"{vlnv.replace(':', '_')}_0.1" / "lint-verilator"
    eda = yaml.safe_load(next(work.glob("*.eda.yml")).read_text())
    return work, [(work / f["name"], f["file_type"]) for f in eda["files"]]


@pytest.mark.parametrize("vlnv", TOPS)
def test_fusesoc_and_cores_py_agree(vlnv):
    _, listed = eda_files(vlnv)
    ours = [ROOT / f for f in sources(vlnv)]
    # FuseSoC copies each core's files into src/<core>/: compare the files themselves
    assert sorted(p.name for p, _ in listed) == sorted(p.name for p in ours)
    by_name = {p.name: p for p in ours}
    for path, ftype in listed:
        twin = by_name[path.name]
        assert filecmp.cmp(path, twin, shallow=False), f"{path} (FuseSoC) differs from {twin}"
        assert ftype == ("vlt" if twin.suffix == ".vlt" else
                         "verilogSource" if twin.suffix == ".v" else "systemVerilogSource"), path


def test_fusesoc_lint_engine():
    """The integrator's first command, as docs/architecture.md gives it."""
    r = fusesoc("run", "--build-root", str(BUILD_ROOT / "run"), "--target=lint", "iotse:engine:se_engine")
    assert "Error" not in r.stdout + r.stderr


def test_cores_py_names_its_errors():
    run = lambda *a: subprocess.run([sys.executable, ROOT / "tools" / "cores.py", *a], capture_output=True,
                                    text=True)
    r = run("files", "iotse:ip:nosuch")
    assert r.returncode != 0 and "iotse:ip:nosuch: no such core" in r.stderr
    r = run("files", "iotse:ip:aes", "--target", "nosuch")
    assert r.returncode != 0 and "no target 'nosuch' in rtl/aes/aes.core" in r.stderr


def test_every_rtl_file_is_in_a_core():
    """No source outside the list: every .sv/.svh under rtl/ belongs to some core."""
    # the node holds the engine and every IP
    listed = set(sources("iotse:soc:soc_top"))
    on_disk = {str(p.relative_to(ROOT)) for p in (ROOT / "rtl").rglob("*.sv*")}
    assert on_disk <= listed, f"not in any core: {sorted(on_disk - listed)}"


def test_synth_reads_the_cores(tmp_path):
    """`make synth` (tools/synth.py) synthesizes a block from its core's target, and names a block
    no synth.json registers."""
    run = lambda *a: subprocess.run([sys.executable, ROOT / "tools" / "synth.py", "--out", str(tmp_path), *a],
                                    capture_output=True, text=True, cwd=ROOT)
    r = run("--only", "ghash")
    assert r.returncode == 0, r.stderr
    ghash = json.loads((tmp_path / "area.json").read_text())["blocks"]["ghash"]
    assert ghash["top"] == "aes_ghash" and ghash["ge_logic"] > 1000 and ghash["ff"] >= 128 and ghash["xc7_lut"] > 100
    assert ghash["ge_total"] == ghash["ge_logic"] + ghash["ge_ff"] and sum(ghash["ff_kinds"].values()) == ghash["ff"]
    assert ghash["depth"]["levels"] > 1 and ghash["depth"]["from"] and ghash["depth"]["to"]
    r = run("--only", "nosuch")
    assert r.returncode != 0 and "no block named nosuch" in r.stderr


def test_synth_prices_flip_flops_and_measures_depth(tmp_path):
    """Flip-flops priced by kind (docs/benchmarks.md "area.json") and the longest path in gate levels,
    on designs whose figures follow by hand: four XORs into a register with asynchronous reset and
    enable (4 x (6 + 3) GE, one level); an 8-input parity into a register with synchronous reset
    (5 + 1.5 GE, three levels of 2-input gates) beside two plain flip-flops (5 GE each)."""
    (tmp_path / "t1.sv").write_text(
        "module t1 (input logic clk_i, rst_ni, en_i, input logic [3:0] a_i, b_i, output logic [3:0] q_o);\n"
        "  always_ff @(posedge clk_i or negedge rst_ni) if (!rst_ni) q_o <= '0; else if (en_i) q_o <= a_i ^ b_i;\n"
        "endmodule\n")
    (tmp_path / "t2.sv").write_text(
        "module t2 (input logic clk_i, rst_i, input logic [7:0] a_i, output logic q_o, output logic [1:0] r_o);\n"
        "  always_ff @(posedge clk_i) begin if (rst_i) q_o <= 1'b0; else q_o <= ^a_i; r_o <= a_i[1:0]; end\n"
        "endmodule\n")
    got = {}
    for top in ("t1", "t2"):
        r = subprocess.run([sys.executable, ROOT / "tools" / "synth.py", "--out", str(tmp_path),
                            "--verilog", str(tmp_path / f"{top}.sv"), "--top", top],
                           capture_output=True, text=True, cwd=ROOT)
        assert r.returncode == 0, r.stderr
        got[top] = json.loads((tmp_path / "area.json").read_text())["blocks"][top]
    t1, t2 = got["t1"], got["t2"]
    assert (t1["ff"], t1["ge_ff"], t1["depth"]["levels"], t1["depth"]["to"][:3]) == (4, 36, 1, "q_o")
    assert t1["ge_logic"] == 4 * 3  # four XORs at Yosys's cmos cost, 12 transistors each
    assert (t2["ff"], t2["ge_ff"], t2["depth"]["levels"]) == (3, round(2 * 5 + 6.5), 3)
    assert t2["depth"]["from"].startswith("a_i[") and t2["depth"]["to"] == "q_o"
    assert t2["ge_logic"] == 7 * 3  # seven XORs of the parity: no flip-flop priced twice
