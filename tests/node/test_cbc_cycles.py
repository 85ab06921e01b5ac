"""Lucky Thirteen on the node: the CBC-SHA256 record check (sw/proto/tls_cbc.c) takes the same
number of cycles on PicoRV32 for every record of a length, whatever its padding length and
whether its MAC and padding are good (sw/apps/cbctime, which reads the cycle counter around each
se_tls_cbc_check call). The node's TLS build leaves the CBC suite out; the check is the host's (the
CLI's TLS server and client), run here on the node's cores because their timing is exact: a
compressed-instruction build at -Os and an rv32im one at -O2, each with LTO like the firmware."""
import json

import pytest

CONFIGS = ("sw-rv32im", "sw+hw-rv32imc")
RECORDS = 30  # sw/apps/cbctime: clen 64 with 4 padding lengths, clen 320 with 6, three kinds each


@pytest.fixture(scope="module")
def runs(node):
    waits = {}
    for config in CONFIGS:
        sim, elf = node.require(config, "cbctime")
        waits[config] = node.start(sim, elf, ["--max-cycles", 60_000_000, "--seed", 1], report=False)
    return {config: wait(600) for config, wait in waits.items()}


@pytest.mark.parametrize("config", CONFIGS)
def test_same_cycles_for_every_padding_and_verdict(runs, config):
    run = runs[config]
    assert run.returncode == 0, run
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    assert lines and lines[-1] == {"done": RECORDS}, run
    recs = lines[:-1]
    assert len(recs) == RECORDS
    for r in recs:  # the verdicts are what the records were built to be
        if r["kind"] == "good":
            assert (r["ok"], r["plen"]) == (1, r["clen"] - 32 - r["pad"] - 1), r
        else:
            assert (r["ok"], r["plen"]) == (0, 0), r
    by_len = {}
    for r in recs:
        by_len.setdefault(r["clen"], set()).add(r["cycles"])
    assert set(by_len) == {64, 320}
    for clen, cycles in by_len.items():
        assert len(cycles) == 1, f"{config}: clen {clen}: cycle counts differ: {sorted(cycles)}"
    assert by_len[320] != by_len[64]
