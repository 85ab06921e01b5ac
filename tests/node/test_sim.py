"""The node simulator's own start-up errors (sim/node): usage mistakes and ELF files it must refuse,
each with exit status 2, one `node: ...` line on stderr, nothing on stdout and, when asked for, a
JSON report saying why. The ELF files are built here byte by byte, so no firmware is needed; the
simulator itself is not built by the tests."""
import json
import pathlib
import struct
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SIM = ROOT / "build" / "sim" / "rv32im" / "node"
TIMEOUT = 30

EM_RISCV = 243
J_SELF = 0x0000006F  # `j .`: a valid program, for option errors that must stop before running it


@pytest.fixture(scope="module")
def sim():
    if not SIM.exists():
        pytest.fail(f"{SIM.relative_to(ROOT)} is not built (run `make node-sim`)")
    return SIM


def make_elf(segments=((0, 0, struct.pack("<I", J_SELF), 4),), machine=EM_RISCV, cls=1, data=1):
    """An ELF32 executable: segments are (vaddr, paddr, file bytes, memsz) PT_LOAD entries."""
    ehsize, phentsize = 52, 32
    phoff = ehsize
    offset = phoff + phentsize * len(segments)
    phdrs, blobs = b"", b""
    for vaddr, paddr, blob, memsz in segments:
        phdrs += struct.pack("<IIIIIIII", 1, offset + len(blobs), vaddr, paddr, len(blob), memsz, 5, 4)
        blobs += blob
    ident = b"\x7fELF" + bytes([cls, data, 1]) + bytes(9)
    hdr = ident + struct.pack("<HHIIIIIHHHHHH", 2, machine, 1, 0, phoff, 0, 0, ehsize, phentsize,
                              len(segments), 40, 0, 0)
    return hdr + phdrs + blobs


def run(sim, args, tmp_path):
    rep = tmp_path / "report.json"
    proc = subprocess.run([str(sim), *map(str, args), "--report", str(rep)], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=TIMEOUT)
    report = json.loads(rep.read_text()) if rep.exists() else None
    return proc, report


def check_refused(proc, report, reason, *words):
    assert proc.returncode == 2, proc
    assert proc.stdout == "", "stdout is the UART's alone"
    first = proc.stderr.splitlines()[0]
    assert first.startswith("node: "), proc.stderr
    for w in words:
        assert w.lower() in first.lower(), f"{w!r} not in {first!r}"
    assert report is not None, "no report written for a refused run"
    assert report["reason"] == reason and report["exit_status"] == 2, report
    assert report["cycles"] == 0 and report["exit_code"] is None, report


BAD_ELFS = {
    "empty": (b"", "empty"),
    "text": (b"this is not an ELF file\n" * 4, "not an ELF"),
    "truncated_header": (make_elf()[:30], "truncated"),
    "elf64": (make_elf(cls=2), "ELF64"),
    "big_endian": (make_elf(data=2), "little-endian"),
    "wrong_machine": (make_elf(machine=40), "not RISC-V"),
    "no_segments": (make_elf(segments=()), "program headers"),
    "truncated_segment": (make_elf()[:-2], "truncated"),
    "outside_rom_and_ram": (make_elf(segments=((0x40000000, 0x40000000, b"\0" * 4, 4),)), "outside ROM and RAM"),
    "past_rom_end": (make_elf(segments=((0x1fffc, 0x1fffc, b"\0" * 8, 8),)), "outside ROM and RAM"),
    "data_loaded_in_ram": (make_elf(segments=((0x10000000, 0x10000000, b"\1" * 4, 4),)), "RAM"),
    "bss_outside_ram": (make_elf(segments=((0, 0, struct.pack("<I", J_SELF), 4),
                                           (0x10010000, 0x10010000, b"", 16))), "outside ROM and RAM"),
}


@pytest.mark.parametrize("name", sorted(BAD_ELFS))
def test_bad_elf_refused(sim, tmp_path, name):
    content, why = BAD_ELFS[name]
    path = tmp_path / f"{name}.elf"
    path.write_bytes(content)
    proc, report = run(sim, ["--elf", path], tmp_path)
    check_refused(proc, report, "bad_elf", f"bad ELF {path}: ", why)


def test_missing_file(sim, tmp_path):
    path = tmp_path / "no-such.elf"
    proc, report = run(sim, ["--elf", path], tmp_path)
    check_refused(proc, report, "bad_elf", f"bad ELF {path}: ", "no such file")


@pytest.mark.parametrize("args, words", [
    ([], ["--elf FILE is required"]),
    (["--elf", "{elf}", "--bogus"], ["unknown argument", "--bogus"]),
    (["--elf", "{elf}", "--max-cycles", "lots"], ["--max-cycles", "lots"]),
    (["--elf", "{elf}", "--max-cycles", "-5"], ["--max-cycles"]),
    (["--elf", "{elf}", "--seed", "0xzz"], ["--seed"]),
    (["--elf", "{elf}", "--seed"], ["--seed needs a value"]),
    (["--elf", "{elf}", "--quiet=1"], ["unknown argument"]),
])
def test_usage_errors(sim, tmp_path, args, words):
    elf = tmp_path / "ok.elf"
    elf.write_bytes(make_elf())
    proc, report = run(sim, [a.format(elf=elf) for a in args], tmp_path)
    check_refused(proc, report, "usage", *words)
    assert "usage: node --elf FILE" in proc.stderr


@pytest.mark.parametrize("mode, words", [
    ("ethernet:eth0", ["unknown NIC mode"]),
    ("udp-listen:http", ["bad port"]),
    ("udp-connect:127.0.0.1", ["HOST:PORT"]),
    ("tcp-connect:127.0.0.1:0", ["HOST:PORT"]),
])
def test_bad_nic_mode(sim, tmp_path, mode, words):
    elf = tmp_path / "ok.elf"
    elf.write_bytes(make_elf())
    proc, report = run(sim, ["--elf", elf, "--nic", mode], tmp_path)
    check_refused(proc, report, "setup_error", "nic", *words)


def test_help(sim):
    proc = subprocess.run([str(sim), "--help"], capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 0
    for opt in ("--elf", "--max-cycles", "--uart-rx", "--nic", "--seed", "--fst", "--report", "--quiet"):
        assert opt in proc.stdout
