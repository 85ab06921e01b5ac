#!/usr/bin/env python3
"""The RTL's source lists, read from the FuseSoC cores (rtl/**/*.core, the libraries of fusesoc.conf).

The cores are the one list of sources: FuseSoC runs them (`fusesoc run --target=lint
iotse:engine:se_engine`), and this reader gives the same files to make (build/cores.mk), the cocotb
tests (tests/rtlsim.py) and `make synth` (tools/synth.py) without a FuseSoC build directory.
tests/rtl/test_cores.py checks that it and FuseSoC agree.

It reads the part of CAPI2 the cores use: filesets (files, file_type, depend), targets (filesets,
generate, toplevel) and generate (tools/fusesoc_gen.py's parameters). A target's files are, in
order: its dependencies' (their default targets, depth first, each core once), then the files of
its `generate` steps as `make regs` writes them into build/gen/rtl, then its own filesets'. Verilator
configuration files (file_type vlt) go first, as FuseSoC's Verilator backend puts them.

    python tools/cores.py files iotse:engine:se_engine [--target T]    one path per line
    python tools/cores.py make build/cores.mk                           the Makefile's variables
"""
import argparse
import configparser
import functools
import pathlib
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
GEN = "build/gen/rtl"   # where `make regs` writes what the generate steps write
sys.path.insert(0, str(ROOT / "tools"))
import fusesoc_gen  # noqa: E402


class CoreError(Exception):
    pass


def vlnv_name(vlnv):
    """vendor:library:name of a VLNV, without its version (a dependency names any version)."""
    return ":".join(vlnv.split(":")[:3])


@functools.cache
def library():
    """{vendor:library:name: (core file, its data)} over the libraries of fusesoc.conf."""
    conf = configparser.ConfigParser()
    conf.read(ROOT / "fusesoc.conf")
    cores = {}
    for section in conf.sections():
        if section.startswith("library."):
            for path in sorted((ROOT / conf[section]["location"]).rglob("*.core")):
                data = yaml.safe_load(path.read_text())
                name = vlnv_name(data["name"])
                if name in cores:
                    raise CoreError(f"{name}: in {cores[name][0]} and {path}")
                cores[name] = (path, data)
    return cores


def core(vlnv):
    try:
        return library()[vlnv_name(vlnv)]
    except KeyError:
        raise CoreError(f"{vlnv}: no such core in the libraries of fusesoc.conf") from None


def target(vlnv, name="default"):
    path, data = core(vlnv)
    try:
        return data["targets"][name]
    except KeyError:
        raise CoreError(f"{vlnv}: no target {name!r} in {path.relative_to(ROOT)}") from None


def toplevel(vlnv, name="default"):
    return target(vlnv, name)["toplevel"]


def _rel(path):
    path = pathlib.Path(path)
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _files(vlnv, name, seen):
    """[(path, file type)] of a target, dependencies first; `seen` holds the cores already listed."""
    path, data = core(vlnv)
    if name == "default" and "default" not in data.get("targets", {}):
        return []   # a core of generators only
    tgt = target(vlnv, name)
    filesets = [data["filesets"][fs] for fs in tgt.get("filesets", [])]
    out = []
    for fs in filesets:
        for dep in fs.get("depend") or []:
            if vlnv_name(dep) not in seen:
                seen.add(vlnv_name(dep))
                out += _files(dep, "default", seen)
    for gen in tgt.get("generate", []):
        params = data["generate"][gen]["parameters"]
        for f, ftype in fusesoc_gen.outputs(params, path.parent):
            f = fusesoc_gen.pythondata(params["pythondata"]) if "pythondata" in params else ROOT / GEN / f
            out.append((_rel(f), ftype))
    for fs in filesets:
        for entry in fs.get("files") or []:
            f, attrs = next(iter(entry.items())) if isinstance(entry, dict) else (entry, {})
            out.append((_rel(path.parent / f), attrs.get("file_type", fs.get("file_type"))))
    return out


def files(vlnv, name="default"):
    """The files of a core's target, in compile order, as paths from the root (or absolute outside it)."""
    listed = _files(vlnv, name, {vlnv_name(vlnv)})
    return [f for f, t in listed if t == "vlt"] + [f for f, t in listed if t != "vlt"]


# The Makefile's variables: name -> (core, target)
MAKE_VARS = {"RTL_ENGINE": ("iotse:engine:se_engine", "default"),
             "NODE_RTL": ("iotse:soc:soc_top", "default")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("files", help="the files of a core's target, one per line")
    f.add_argument("vlnv")
    f.add_argument("--target", default="default")
    m = sub.add_parser("make", help="write the Makefile's source lists")
    m.add_argument("out")
    a = ap.parse_args()
    try:
        if a.cmd == "files":
            print("\n".join(files(a.vlnv, a.target)))
            return
        lines = ["# Generated by tools/cores.py from the FuseSoC cores: do not edit."]
        lines += [f"{var} := {' '.join(files(*where))}" for var, where in MAKE_VARS.items()]
        lines.append(f"CORE_FILES := {' '.join(_rel(p) for p, _ in library().values())}")
        pathlib.Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(a.out).write_text("\n".join(lines) + "\n")
    except CoreError as e:
        sys.exit(f"cores: {e}")


if __name__ == "__main__":
    main()
