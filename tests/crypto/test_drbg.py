"""HMAC_DRBG (SP 800-90A Rev. 1, HMAC-SHA256) through the CLI, against a Python model written
from section 10.1.2 of the standard (cryptography-vectors ships no CAVP DRBG file). On rtl every
HMAC runs on the engine's SHA IP (inputs over 160 bytes as compressions on it)."""
import hashlib
import hmac
import random

import pytest
from drbg_model import CAVP_COUNT0, CAVP_COUNT0_OUT, HmacDrbg, model

pytestmark = pytest.mark.backends("sw", "rtl", "openssl")


def to_req(c):
    return {"op": "hmac_drbg",
            **{k: (v.hex() if isinstance(v, bytes) else v) for k, v in c.items()}}


def test_model_sanity():
    """The model's first block from all-zero inputs, spelled out by hand from 10.1.2.2/10.1.2.5."""
    h = lambda k, m: hmac.new(k, m, hashlib.sha256).digest()  # noqa: E731
    k, v = b"\0" * 32, b"\1" * 32
    seed = b"\0" * 48
    k = h(k, v + b"\0" + seed)
    v = h(k, v)
    k = h(k, v + b"\1" + seed)
    v = h(k, v)
    assert HmacDrbg(b"\0" * 32, b"\0" * 16, b"").generate(32, b"") == h(k, v)


def test_cavp_count0(batch, tally):
    c = {k: bytes.fromhex(v) if isinstance(v, str) else v for k, v in CAVP_COUNT0.items()}
    assert model(c).hex() == CAVP_COUNT0_OUT
    (got,) = batch([{"op": "hmac_drbg", **CAVP_COUNT0}])
    assert got == {"out": CAVP_COUNT0_OUT}
    tally("hmac-drbg cavp sha-256 count 0", 1)


def test_random_vs_model(batch, tally, seed, budget):
    rng = random.Random(f"{seed}-drbg")
    cases = []
    for i in range(budget(1500, 150)):
        c = {"entropy": rng.randbytes(rng.choice((32, 32, rng.randrange(32, 130)))),
             "nonce": rng.randbytes(rng.choice((16, 0, rng.randrange(60))))}
        for k in ("pers", "add1", "add2"):
            if rng.random() < 0.6:
                c[k] = rng.randbytes(rng.choice((0, 32, rng.randrange(100))))
        if rng.random() < 0.5:
            c["reseed_entropy"] = rng.randbytes(rng.choice((32, rng.randrange(32, 100))))
            if rng.random() < 0.6:
                c["reseed_add"] = rng.randbytes(rng.choice((0, 32, rng.randrange(100))))
        c["bytes"] = rng.choice((0, 1, 31, 32, 33, 64, 128, rng.randrange(300)))
        if i % 250 == 0:
            c["bytes"] = 65536  # the documented maximum request
        if i % 7 == 0:
            c["reseed_interval"] = rng.randrange(2, 10001)  # two generates fit
        cases.append(c)
    reqs = [to_req(c) for c in cases]
    for i, (q, g, c) in enumerate(zip(reqs, batch(reqs), cases)):
        want = model(c).hex()
        assert g == {"out": want}, f"seed {seed} case {i}: {str(q)[:300]} -> {str(g)[:200]}"
    tally("hmac-drbg random vs SP 800-90A model", len(cases))


E32, N16 = "ab" * 32, "cd" * 16


@pytest.mark.parametrize("fields,err", [
    ({"entropy": "ab" * 31, "nonce": N16, "bytes": 16}, "bad_length"),
    ({"entropy": E32, "nonce": N16, "reseed_entropy": "ab" * 31, "bytes": 16}, "bad_length"),
    ({"entropy": E32, "nonce": N16, "bytes": 65537}, "bad_length"),
    ({"instantiate": 0, "bytes": 16}, "drbg_not_seeded"),
    ({"instantiate": 0, "reseed_entropy": E32, "bytes": 16}, "drbg_not_seeded"),
    ({"entropy": E32, "nonce": N16, "bytes": 16, "reseed_interval": 1}, "drbg_reseed_required"),
    ({"entropy": E32, "nonce": N16, "reseed_entropy": E32, "bytes": 16, "reseed_interval": 1},
     "drbg_reseed_required"),
    ({"entropy": E32, "nonce": N16, "bytes": 16, "reseed_interval": 10001}, "bad_input"),
    ({"entropy": E32, "nonce": N16, "reseed_add": "00", "bytes": 16}, "bad_input"),
    ({"entropy": E32, "nonce": N16}, "bad_input"),
    ({"nonce": N16, "bytes": 16}, "bad_input"),
    ({"entropy": E32, "bytes": 16}, "bad_input"),
    ({"entropy": E32, "nonce": N16, "add1": "0", "bytes": 16}, "bad_hex"),
])
def test_errors(batch, fields, err):
    (got,) = batch([{"op": "hmac_drbg", **fields}])
    assert got.get("error") == err, f"{fields} -> {got}"
    assert "out" not in got


def test_reseed_interval_boundary(batch):
    """With an interval of 2, exactly the two generate calls of the op are allowed."""
    c = {"entropy": bytes(range(32)), "nonce": b"n" * 16, "bytes": 40, "reseed_interval": 2}
    (got,) = batch([to_req(c)])
    assert got == {"out": model(c).hex()}
