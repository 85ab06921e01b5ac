"""The node without the engine (soc_top ENGINE=0, build/sim/<arch>-noengine/node), which `make bench`
uses for the sw configurations' long runs:

  - sw firmware runs on it cycle for cycle as on the full node (the bench's premise): the sw-rv32im
    selftest gives the same UART output, total cycles and phase cycles on both simulators, and
    its lines are checked against the cryptography package by tests/node/test_selftest.py;
  - firmware that does touch the engine stops there with a bus error naming an address in the
    engine's range (rtl/soc/memmap.toml: 0x3000_0000, 64 KiB)."""
import re

import pytest

ENGINE_BASE, ENGINE_SIZE = 0x3000_0000, 0x1_0000


def noengine(node, arch):
    sim = node.sim_path(f"{arch}-noengine")
    if not sim.exists():
        pytest.fail(f"{sim} is not built (run `make node`)")
    return sim


def test_sw_firmware_runs_cycle_for_cycle_as_on_the_full_node(node):
    sim, elf = node.require("sw-rv32im", "selftest")
    full = node.run(sim, elf, ["--seed", "3"], timeout=900)
    bare = node.run(noengine(node, "rv32im"), elf, ["--seed", "3"], timeout=300)
    assert full.returncode == 0 and bare.returncode == 0, (full, bare)
    assert full.report["engine"] is True and bare.report["engine"] is False
    assert bare.stdout == full.stdout
    assert bare.report["cycles"] == full.report["cycles"] > 1_000_000
    assert [(p["name"], p["cycles"]) for p in bare.report["phases"]] == \
        [(p["name"], p["cycles"]) for p in full.report["phases"]]
    assert full.report["engine_busy_cycles"] == bare.report["engine_busy_cycles"] == \
        {"aes": 0, "sha": 0, "pk": 0, "gf2m": 0, "dma": 0, "ctrl": 0}


@pytest.mark.parametrize("arch", ["rv32i", "rv32im"])
def test_engine_access_is_a_bus_error(node, arch):
    _, elf = node.require(f"sw+hw-{arch}", "selftest")
    r = node.run(noengine(node, arch), elf, ["--seed", "1"], timeout=120)
    assert r.returncode == 4, r
    m = re.search(r"0x([0-9a-f]{8})", r.report["message"].lower())
    assert m and ENGINE_BASE <= int(m.group(1), 16) < ENGINE_BASE + ENGINE_SIZE, r.report["message"]
