"""ECMQV key agreement on the node (sw/apps/ecmqv; seed 001's first application) against the peer's
side of SEC 1 section 6.2, computed here with tests/p256_model.py from the host's own private keys:
both sides must reach the same shared secret Z. Then the named refusals: a peer key off the curve
or the encoding of infinity (invalid_point), a malformed line (bad_input), after which the node
still agrees correctly. The library's config (sw-rv32im) takes about a minute of simulation per
agreement (three software P-256 multiplications): it runs with SE_NODE_FULL=1, as the selftest's
software ECC does; the engine's configs always."""
import json
import os
import secrets
import subprocess

import pytest

from p256_model import N, P, add, decode, encode, mul, times_g

FULL = os.environ.get("SE_NODE_FULL") == "1"


def avf(pt):
    """SEC 1 6.2: the associate value of a point for P-256 (f = 256 bits of n: half is 128)."""
    return (pt[0] % 2**128) + 2**128


def peer_z(d_s, d_e, Q_e, node_Q_s, node_Q_e):
    """The peer's computation (SEC 1 6.2.1 step 3, h = 1): s = d_e + avf(Q_e) d_s mod n and
    Z = x(s (Q_e' + avf(Q_e') Q_s')), with ' the node's keys."""
    s = (d_e + avf(Q_e) * d_s) % N
    shared = mul(s, add(node_Q_e, mul(avf(node_Q_e), node_Q_s)))
    return shared[0].to_bytes(32, "big").hex()


class Node:
    def __init__(self, node, config):
        sim, elf = node.require(config, "ecmqv")
        if config.startswith("sw-"):  # the library never touches the engine: the faster simulation
            sim = node.sim_path(f"{node.arch_of(config)}-noengine")
        self.proc = subprocess.Popen([str(sim), "--elf", str(elf), "--uart-rx", "--seed", "1",
                                      "--max-cycles", "20000000000"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.identity = self.read()

    def read(self):
        line = self.proc.stdout.readline()
        assert line, f"the node stopped: {self.proc.stderr.read()[-600:]}"
        return json.loads(line)

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.read()

    def close(self):
        self.proc.stdin.close()
        assert self.proc.wait(timeout=900) == 0, self.proc.stderr.read()[-600:]


def agreement(n, node_Q_s):
    d_s, d_e = secrets.randbelow(N - 1) + 1, secrets.randbelow(N - 1) + 1
    Q_s, Q_e = times_g(d_s), times_g(d_e)
    out = n.ask(f"peer {encode(Q_s)} {encode(Q_e)}")
    assert out["status"] == "ok", out
    node_Q_e = decode(out["Qe"])
    assert out["Z"] == peer_z(d_s, d_e, Q_e, node_Q_s, node_Q_e)
    return node_Q_e


@pytest.mark.parametrize("config", ["sw-rv32im", "sw+hw-rv32im", "sw+hw-rv32imc"])
def test_ecmqv(node, config):
    if config.startswith("sw-") and not FULL:
        pytest.skip("software P-256 ECMQV takes about a minute of simulation: SE_NODE_FULL=1 runs it")
    n = Node(node, config)
    try:
        assert n.identity["status"] == "ok"
        node_Q_s = decode(n.identity["Q"])
        seen = {agreement(n, node_Q_s) for _ in range(2 if not config.startswith("sw-") else 1)}
        assert len(seen) == (2 if not config.startswith("sw-") else 1)  # a fresh ephemeral key each time
        good = encode(times_g(secrets.randbelow(N - 1) + 1))
        x, y = times_g(7)
        off_curve = encode((x, (y + 1) % P))
        infinity = "04" + "00" * 64
        for line in (f"peer {off_curve} {good}", f"peer {good} {off_curve}", f"peer {good} {infinity}"):
            assert n.ask(line) == {"op": "mqv", "status": "invalid_point"}
        for line in ("peer", f"peer {good}", f"peer {good}{good}", f"peer {good} {good[:-2]}zz", "hello"):
            assert n.ask(line) == {"op": "mqv", "status": "bad_input"}
        agreement(n, node_Q_s)  # and it still agrees
    finally:
        n.close()
