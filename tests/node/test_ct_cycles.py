"""Constant time on the node, the cheap part: software AES-128 on the LTO-built sw-rv32im firmware
(sw/apps/cttime through tools/ctnode.py) takes the same number of cycles for six keys (all-zero,
all-ones, 55..55, FIPS-197's, two random) and their plaintexts — one ECB block with its key
expansion, CCM_8 and GCM over 32 bytes — and every output matches the cryptography package.
P-256 (~117 M cycles per scalar in software) is `make bench`'s ct_node step (docs/robustness.md)."""
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import ctnode  # noqa: E402

CONFIG = "sw-rv32im"


@pytest.fixture(scope="module")
def rows(node):
    node.require(CONFIG, "cttime")
    if not ctnode.simulator(CONFIG).exists():
        pytest.fail(f"{ctnode.simulator(CONFIG).relative_to(ROOT)} is not built (run `make node`)")
    rows, _ = ctnode.measure(CONFIG, p256=False, aes=True)  # raises on a wrong output
    return {r["alg"]: r for r in rows}


@pytest.mark.parametrize("alg", ["aes128_ecb_block", "aes128_ccm8_32", "aes128_gcm_32"])
def test_aes_cycles_do_not_depend_on_the_key(rows, alg):
    r = rows[alg]
    assert r["secrets"] >= 5 and r["outputs_checked"]
    assert r["constant"], f"{alg} on {CONFIG}: cycle counts differ: {r['cycles']} (keys {r['secret_labels']})"
    assert r["cycles"][0] > 100_000  # really software AES, not a stub


def test_ccm_and_gcm_cost_more_than_one_block(rows):
    block = rows["aes128_ecb_block"]["cycles"][0]
    assert rows["aes128_ccm8_32"]["cycles"][0] > block and rows["aes128_gcm_32"]["cycles"][0] > block
