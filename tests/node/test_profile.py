"""The simulator's --profile and tools/fwprofile.py: every CPU-active cycle is charged to one fetch
address (the profile sums to the report's cpu_active_cycles, in total and per phase, a separate
count in the simulator), and folding onto the ELF's symbols names the functions that did the work.
Runs the sw-rv32im selftest (software SHA-256, HMAC, AES) on the node without the engine."""
import collections
import subprocess
import sys

import pytest

from se_cli import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import fwprofile  # noqa: E402


def test_profile_accounts_for_every_active_cycle(node, tmp_path):
    _, elf = node.require("sw-rv32im", "selftest")
    sim = node.sim_path("rv32im-noengine")
    if not sim.exists():
        pytest.fail(f"{sim} is not built (run `make node`)")
    prof = tmp_path / "prof.txt"
    r = node.run(sim, elf, ["--seed", "5", "--profile", prof], timeout=300)
    assert r.returncode == 0, r
    per_phase = collections.Counter()
    for line in prof.read_text().splitlines():
        phase, _, cycles = line.rsplit(" ", 2)
        per_phase[phase] += int(cycles)
    assert sum(per_phase.values()) == r.report["cpu_active_cycles"]
    for name, tot in r.report["phase_totals"].items():
        assert per_phase[name] == tot["cpu_active_cycles"], name
    funcs, total = fwprofile.fold(prof, elf)
    assert total == r.report["cpu_active_cycles"]
    top = [name for name, _ in funcs.most_common(10)]
    # SHA-256's rounds: se_sha256_compress, or sha256.c's compress() or compress_n() where LTO
    # inlined it there.
    assert {"se_sha256_compress", "compress", "compress_n"} & set(top), top
    assert not any(name.startswith("?") for name in top), top   # the cycles land in known functions
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "fwprofile.py"), str(prof), str(elf), "--top", "3"],
                         capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[0] == f"{total:,} CPU-active cycles" and len(out.splitlines()) == 4
