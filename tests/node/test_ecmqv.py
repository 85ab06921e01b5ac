"""ECMQV key agreement on the node (sw/apps/ecmqv; seed 001's first application) against the peer's
side of SEC 1 section 6.2, computed here with tests/p256_model.py from the host's own private keys:
both sides must reach the same shared secret Z. Then the named refusals: a peer key off the curve
(invalid_point), peer keys whose combination Q_e' + avf(Q_e') Q_s' is the point at infinity
(infinity), a malformed line (bad_input), after which the node still agrees correctly. The library's config (sw-rv32im) takes about a minute of simulation per
agreement (three software P-256 multiplications): it runs with SE_NODE_FULL=1, as the selftest's
software ECC does; the engine's configs always."""
import os
import secrets

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
    n = node.UartProgram(config, "ecmqv")
    try:
        identity = n.read()
        assert identity["status"] == "ok"
        node_Q_s = decode(identity["Q"])
        first = agreement(n, node_Q_s)
        if not config.startswith("sw-"):
            assert agreement(n, node_Q_s) != first  # a fresh ephemeral key each time
        good = encode(times_g(secrets.randbelow(N - 1) + 1))
        x, y = times_g(7)
        off_curve = encode((x, (y + 1) % P))
        origin = "04" + "00" * 64  # (0, 0): not on P-256
        for line in (f"peer {off_curve} {good}", f"peer {good} {off_curve}", f"peer {good} {origin}"):
            assert n.ask(line) == {"op": "mqv", "status": "invalid_point"}
        # Q_s' = -(d_e' / avf(Q_e')) G makes Q_e' + avf(Q_e') Q_s' the point at infinity
        d_e = secrets.randbelow(N - 1) + 1
        Q_e = times_g(d_e)
        Q_s = times_g(-d_e * pow(avf(Q_e), -1, N) % N)
        assert n.ask(f"peer {encode(Q_s)} {encode(Q_e)}") == {"op": "mqv", "status": "infinity"}
        for line in ("peer", f"peer {good}", f"peer {good}{good}", f"peer {good} {good[:-2]}zz", "hello"):
            assert n.ask(line) == {"op": "mqv", "status": "bad_input"}
        agreement(n, node_Q_s)  # and it still agrees
    finally:
        n.close()
