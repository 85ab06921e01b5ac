"""Merkle tree hashing on the node (sw/apps/merkle, se/merkle.h; seed 001's third application),
checked against RFC 6962 section 2.1, written here from the RFC with hashlib: the root of n data
blocks (MTH) and the audit path of one leaf (PATH), on the library (sw-rv32im), the engine
(sw+hw-rv32im) and the engine-only build (sw+hw-rv32imc). The app prints each case's data, so the
reference hashes exactly what the node hashed."""
import hashlib
import json

import pytest

CONFIGS = ("sw-rv32im", "sw+hw-rv32im", "sw+hw-rv32imc")
_pending, _runs = {}, {}


def mth(leaves):
    """RFC 6962 2.1: the Merkle Tree Hash of a list of data entries."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1 << ((len(leaves) - 1).bit_length() - 1)  # the largest power of two smaller than n
    return hashlib.sha256(b"\x01" + mth(leaves[:k]) + mth(leaves[k:])).digest()


def path(m, leaves):
    """RFC 6962 2.1.1: the audit path of leaf m, from the leaf up."""
    if len(leaves) == 1:
        return []
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    if m < k:
        return path(m, leaves[:k]) + [mth(leaves[k:])]
    return path(m - k, leaves[k:]) + [mth(leaves[:k])]


def root_from_path(m, n, leaf, audit):
    """The root an audit path proves for leaf m of n (RFC 9162 2.1.3.2's verification walk)."""
    fn, sn, r = m, n - 1, hashlib.sha256(b"\x00" + leaf).digest()
    for p in audit:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            r = hashlib.sha256(b"\x01" + p + r).digest()
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = hashlib.sha256(b"\x01" + r + p).digest()
        fn, sn = fn >> 1, sn >> 1
    return r if sn == 0 else None


def _start_all(node):
    if _pending or _runs:
        return
    for config in CONFIGS:
        sim, elf = node.require(config, "merkle")
        if config.startswith("sw-"):  # the library never touches the engine: the faster simulation
            sim = node.sim_path(f"{node.arch_of(config)}-noengine")
        _pending[config] = node.start(sim, elf, ["--max-cycles", 400_000_000, "--seed", 1])


@pytest.fixture(params=CONFIGS)
def run(request, node):
    _start_all(node)
    if request.param not in _runs:
        _runs[request.param] = _pending.pop(request.param)(600)
    r = _runs[request.param]
    assert r.returncode == 0, r
    return r


def test_reference_matches_the_rfc_example_shape():
    """The reference itself: for 7 leaves the RFC's example tree splits 4 + 3 and the audit path of
    leaf 3 (d in the RFC's figure) is [c, g, l]: three nodes, which verify back to the root."""
    leaves = [bytes([i]) * 3 for i in range(7)]
    audit = path(3, leaves)
    assert len(audit) == 3
    assert audit[0] == hashlib.sha256(b"\x00" + leaves[2]).digest()                    # c
    assert audit[2] == mth(leaves[4:])                                                  # l
    assert root_from_path(3, 7, leaves[3], audit) == mth(leaves)


def test_root_and_path_match_rfc6962(run):
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    cases = [o for o in lines if o.get("op") == "merkle"]
    assert lines[-1] == {"done": len(cases), "failed": 0}
    assert {o["case"] for o in cases} == {"empty", "one", "7x64", "13x100", "5x0", "16x1k", "no_leaf"}
    for o in cases:
        n, size, m = o["n"], o["block_len"], o["m"]
        data = bytes.fromhex(o["data"])
        assert len(data) == n * size, o["case"]
        leaves = [data[i * size:(i + 1) * size] for i in range(n)]
        assert o["status"] == "ok" and bytes.fromhex(o["root"]) == mth(leaves), o["case"]
        if m < n:
            audit = [bytes.fromhex(h) for h in o["path"]]
            assert o["path_status"] == "ok" and audit == path(m, leaves), o["case"]
            assert root_from_path(m, n, leaves[m], audit) == mth(leaves), o["case"]
        else:  # no such leaf: a named error and an empty path
            assert o["path_status"] == "bad_input" and o["path"] == [], o["case"]
