"""The node simulator's error paths, driven by the faults firmware (sw/apps/faults): a trap, bus
errors, the cycle budget, a nonzero exit code, and ELF files it cannot load. Every run is bounded
by a wall-clock timeout, so a simulator that hangs fails the test instead of stalling the suite.

Exit statuses (sim/node): 0 SIM_EXIT 0, 1 SIM_EXIT nonzero, 2 bad ELF, 3 trap, 4 bus error,
5 cycle budget."""
import hashlib
import os
import re
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import provision  # noqa: E402  (names: `se names`)

CONFIG = "sw-rv32im"
TIMEOUT = 60


def fault(node, cmd, *args, config=CONFIG):
    sim, elf = node.require(config, "faults")
    return node.run(sim, elf, ["--max-cycles", 5_000_000, *args], uart_input=cmd.encode(), timeout=TIMEOUT)


@pytest.mark.parametrize("config", [CONFIG, "sw+hw-rv32imc"])
def test_illegal_instruction_traps(node, config):
    r = fault(node, "i", config=config)
    assert r.returncode == 3, r
    err = r.stderr.lower()
    m = re.search(r"pc[ =:]*0x([0-9a-f]{8})", err)
    assert "trap" in err and m, r
    assert r.report["reason"] == "trap" and r.report["exit_code"] is None, r.report
    assert "illegal instruction" in r.stdout  # the firmware got there
    # where it was: faults.c names the instruction (unimp: 4 bytes, or 2 in compressed code)
    nm = subprocess.run(["riscv64-unknown-elf-nm", str(node.elf_path(config, "faults"))], capture_output=True,
                        text=True, check=True).stdout
    at = next(int(ln.split()[0], 16) for ln in nm.splitlines() if ln.endswith(" faults_illegal"))
    pc = int(m.group(1), 16)
    if config.endswith("c"):  # "near pc": in the word before the last fetch or at it
        assert "near pc" in err and pc - 4 <= at < pc + 4, (hex(at), r.stderr)
    else:
        assert pc == at, (hex(at), r.stderr)


@pytest.mark.parametrize("cmd, addr, write", [("b", 0x40000000, True), ("r", 0x40000000, False),
                                              ("w", 0x00000400, True)])
def test_bus_errors(node, cmd, addr, write):
    r = fault(node, cmd)
    assert r.returncode == 4, r
    assert f"0x{addr:08x}" in r.stderr.lower(), r
    assert r.report["reason"] == "bus_error", r.report
    assert f"0x{addr:08x}" in r.report["message"].lower(), r.report
    kind = "write" if write else "read"
    assert kind in r.stderr.lower(), f"the message does not say it was a {kind}: {r.stderr!r}"


def test_cycle_budget(node):
    r = fault(node, "s", "--max-cycles", 200_000)
    assert r.returncode == 5, r
    assert r.report["reason"] == "max_cycles" and r.report["cycles"] <= 200_001, r.report
    assert "spinning" in r.stdout


def test_nonzero_exit_code(node):
    r = fault(node, "e")
    assert r.returncode == 1, r
    assert r.report["reason"] == "exit" and r.report["exit_code"] == 7, r.report
    assert "7" in r.stderr, r


@pytest.mark.parametrize("config", ["sw-rv32im", "sw-rv32i", "sw+hw-rv32im", "sw+hw-rv32i", "sw+hw-rv32imc"])
def test_clean_exit(node, config):
    r = fault(node, "o", config=config)
    assert r.returncode == 0, r
    assert r.stdout == "ok\n"
    assert r.report["reason"] == "exit" and r.report["exit_code"] == 0, r.report
    assert r.report["engine_busy_cycles"] == {"aes": 0, "sha": 0, "pk": 0, "gf2m": 0, "dma": 0, "ctrl": 0}


@pytest.mark.parametrize("config", ["sw+hw-rv32im", "sw+hw-rv32imc"])
def test_failed_sha_engine(node, config):
    """A SHA-256 compression the engine's hook fails: the library hashes in software instead, or,
    where it is built without software SHA-256 (SE_SHA256_NO_SOFTWARE: rv32imc), stops the node
    with se_fatal (exit code 70, NODE_EXIT_FATAL) rather than go on with a wrong hash."""
    r = fault(node, "h", config=config)
    if config.endswith("c"):
        backend_error = next(k for k, v in provision.names()["status"].items() if v == "backend_error")
        assert r.returncode == 1 and r.report["exit_code"] == 70, r
        assert r.stdout == f'{{"fatal":{backend_error}}}\n', r
    else:
        assert r.returncode == 0, r
        assert r.stdout == f"faults: sha256 {hashlib.sha256(b'abc').hexdigest()}\n", r


def test_not_an_elf(node, tmp_path):
    sim, _ = node.require(CONFIG, "faults")
    bad = tmp_path / "notes.txt"
    bad.write_text("this is not an ELF file\n" * 10)
    r = node.run(sim, bad, timeout=TIMEOUT)
    assert r.returncode == 2, r
    assert "elf" in r.stderr.lower() and str(bad) in r.stderr, r


def test_wrong_elf_class(node, tmp_path):
    """A 64-bit ELF (the host's own /bin/true) is refused too, not run."""
    sim, _ = node.require(CONFIG, "faults")
    r = node.run(sim, "/bin/true", timeout=TIMEOUT)
    assert r.returncode == 2, r
    assert "elf" in r.stderr.lower(), r


def test_missing_file(node, tmp_path):
    sim, _ = node.require(CONFIG, "faults")
    missing = tmp_path / "no-such-firmware.elf"
    r = node.run(sim, missing, timeout=TIMEOUT)
    assert r.returncode == 2, r
    assert str(missing) in r.stderr and re.search(r"no such file|cannot open|not found", r.stderr.lower()), r


def test_link_script_matches_memory_map(node):
    """sw/node/link.ld repeats the ROM and RAM regions of rtl/soc/memmap.toml for the linker."""
    hdr = node.root / "build" / "gen" / "include" / "se" / "hw" / "soc_memmap.h"
    if not hdr.exists():
        pytest.fail(f"{hdr.relative_to(node.root)} is not generated (run `make regs`)")
    defs = {m[0]: int(m[1], 16) for m in re.findall(r"#define (SE_MAP_\w+) 0x([0-9a-fA-F]+)u", hdr.read_text())}
    ld = (node.root / "sw" / "node" / "link.ld").read_text()
    regions = {name: (int(org, 16), int(size) * 1024)
               for name, org, size in re.findall(r"(\w+) \(\w+\)\s*: ORIGIN = 0x([0-9a-fA-F]+), LENGTH = (\d+)K", ld)}
    assert regions == {"rom": (defs["SE_MAP_ROM_BASE"], defs["SE_MAP_ROM_SIZE"]),
                       "ram": (defs["SE_MAP_RAM_BASE"], defs["SE_MAP_RAM_SIZE"])}
