#!/usr/bin/env python3
"""The generator behind the cores' `generate` steps (rtl/generators.core: iotse_gen).

A core asks for one kind of output in its parameters, paths relative to the core's directory:
    regs:   [regs.toml, ...]   tools/regtool.py: <name>_reg_pkg.sv and <name>_reg_top.sv per description
    memmap: memmap.toml        tools/memmap.py: <name>_memmap.svh (the map's package)
    ucode:  pk | ctrl          that engine's microcode ROM (UCODE: its generator and files)
    pythondata: {package: P, file: F}   F from a pythondata package installed in .venv (a CPU's
                               Verilog; the package's own .core does not pass FuseSoC 2.4's schema)

Run by FuseSoC (GAPI 1.0: the argument is a YAML file with files_root and parameters; the working
directory receives the files and a .core naming them), it writes the files there. `make regs` writes
the same files into build/gen/rtl; tools/cores.py finds them there through outputs().
"""
import importlib
import os
import pathlib
import shutil
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
VENV_PY = ROOT / ".venv" / "bin" / "python"
KINDS = ("regs", "memmap", "ucode", "pythondata")
# the engines with a microcode generator: its script and the files it writes
UCODE = {"pk": ("rtl/pk/ucode.py", ["pk_ucode.sv"]),
         "ctrl": ("rtl/ctrl/ctrl_ucode.py", ["ctrl_pkg.sv", "ctrl_rom.sv"])}


def pythondata(params):
    """The path of a pythondata package's file (the package as the project's .venv has it)."""
    return pathlib.Path(importlib.import_module(params["package"]).data_location) / params["file"]


def outputs(params, files_root):
    """[(file name, FuseSoC file type)] that params ask for, in the order they are compiled."""
    kinds = [k for k in KINDS if k in params]
    if len(kinds) != 1 or set(params) != set(kinds):
        raise ValueError(f"iotse_gen: parameters {sorted(params)}: give exactly one of {', '.join(KINDS)}")
    kind = kinds[0]
    if kind == "regs":
        names = [tomllib.loads((pathlib.Path(files_root) / d).read_text())["name"] for d in params["regs"]]
        return [(f"{n}_reg_{part}.sv", "systemVerilogSource") for n in names for part in ("pkg", "top")]
    if kind == "memmap":
        name = tomllib.loads((pathlib.Path(files_root) / params["memmap"]).read_text())["name"]
        return [(f"{name}_memmap.svh", "systemVerilogSource")]
    if kind == "pythondata":
        return [(params["pythondata"]["file"], "verilogSource")]
    if params["ucode"] not in UCODE:
        raise ValueError(f"iotse_gen: ucode: {params['ucode']!r} is none of {', '.join(UCODE)}")
    return [(f, "systemVerilogSource") for f in UCODE[params["ucode"]][1]]


def run(params, files_root, out):
    """Writes the files of params into the directory out."""
    # paths from the project's root, as `make regs` gives them (the generated files name their source)
    rel = lambda d: str((pathlib.Path(files_root) / d).resolve().relative_to(ROOT))
    if "pythondata" in params:
        shutil.copy(pythondata(params["pythondata"]), out)
        return
    if "regs" in params:
        cmd = ["tools/regtool.py", *[rel(d) for d in params["regs"]]]
    elif "memmap" in params:
        cmd = ["tools/memmap.py", rel(params["memmap"])]
    else:
        cmd = [UCODE[params["ucode"]][0]]
    subprocess.run([sys.executable, *cmd, "--sv", str(out)], cwd=ROOT, check=True)


def main():
    # FuseSoC starts the interpreter it finds on PATH: move to the project's own (the packages)
    if VENV_PY.exists() and pathlib.Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
        os.execv(VENV_PY, [str(VENV_PY), __file__, *sys.argv[1:]])
    import yaml  # PyYAML, which FuseSoC itself depends on

    gapi = yaml.safe_load(pathlib.Path(sys.argv[1]).read_text())
    params, files_root = gapi.get("parameters") or {}, gapi["files_root"]
    files = outputs(params, files_root)
    run(params, files_root, pathlib.Path.cwd())
    vendor, library, name, version = gapi["vlnv"].split(":")
    core = {"name": gapi["vlnv"],
            "filesets": {"rtl": {"files": [{f: {"file_type": t}} for f, t in files]}},
            "targets": {"default": {"filesets": ["rtl"]}}}
    pathlib.Path(f"{name}.core").write_text("CAPI=2:\n" + yaml.safe_dump(core, sort_keys=False))


if __name__ == "__main__":
    main()
