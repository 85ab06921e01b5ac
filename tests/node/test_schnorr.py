"""The Schnorr identification prover on the node (sw/apps/schnorr; seed 001's second application)
against a verifier written here: the three moves (commitment R = r G, challenge c, response
s = r + c x mod n) over the UART, accepted when s G = R + c X. s G comes from the `cryptography`
package (an independent P-256), R + c X from tests/p256_model.py (SEC 1 section 2.2.1).
Rejections: a forged response fails the check; the prover refuses a challenge without a fresh
commitment (a second challenge for one r would give the key away), a challenge >= n and a
malformed line, with a named error and no s, and still proves correctly afterwards.
The engine configs run three rounds; the library (sw-rv32im, on the node without the engine) one,
as each commitment is a P-256 multiplication in software (~77 M cycles)."""
import secrets

import pytest

from p256_model import G, N, add, decode, mul, times_g


def accepts(X, R, c, s):
    """The verifier's check: s G == R + c X, with 0 < s < n."""
    return 0 < s < N and times_g(s) == add(R, mul(c, X))


def test_verifier_model():
    """The model against `cryptography`: (a + b) G and 2 (a G) by the model's add equal the
    package's own multiplications."""
    a, b = secrets.randbelow(N - 1) + 1, secrets.randbelow(N - 1) + 1
    assert add(times_g(a), times_g(b)) == times_g((a + b) % N)
    assert add(times_g(a), times_g(a)) == times_g(2 * a % N)
    assert mul(b, times_g(a)) == times_g(a * b % N)
    assert add(times_g(a), times_g(N - a)) is None
    assert times_g(1) == G


def round_trip(prover, X):
    commit = prover.ask("commit")
    assert commit["status"] == "ok"
    R = decode(commit["R"])
    c = secrets.randbelow(N)
    resp = prover.ask(f"challenge {c:064x}")
    assert resp["status"] == "ok", resp
    s = int(resp["s"], 16)
    return R, c, s


@pytest.mark.parametrize("config", ["sw-rv32im", "sw+hw-rv32im", "sw+hw-rv32imc"])
def test_schnorr_identification(node, config):
    prover = node.UartProgram(config, "schnorr")
    try:
        identity = prover.read()
        assert identity["status"] == "ok"
        X = decode(identity["X"])
        rounds = 1 if config.startswith("sw-") else 3
        for _ in range(rounds):
            R, c, s = round_trip(prover, X)
            assert accepts(X, R, c, s)
            # what a cheat would send: a changed response, or this response to another challenge
            assert not accepts(X, R, c, (s + 1) % N)
            assert not accepts(X, R, (c + 1) % N, s)
            # the same commitment again: refused, with no response
            again = prover.ask(f"challenge {(c + 1) % N:064x}")
            assert again == {"op": "response", "status": "bad_input"}
        # a challenge without any commitment, and a malformed line
        assert prover.ask(f"challenge {1:064x}") == {"op": "response", "status": "bad_input"}
        assert prover.ask("hello") == {"op": "response", "status": "bad_input"}
        if not config.startswith("sw-"):
            # c >= n, and a short challenge: refused, and they use up the commitment
            for bad in (f"challenge {N:064x}", "challenge 1234"):
                assert prover.ask("commit")["status"] == "ok"
                assert prover.ask(bad) == {"op": "response", "status": "bad_input"}
                assert prover.ask(f"challenge {5:064x}") == {"op": "response", "status": "bad_input"}
            R, c, s = round_trip(prover, X)  # and the prover still proves
            assert accepts(X, R, c, s)
    finally:
        prover.close()
