"""SHA-256 and HMAC-SHA256 through the CLI: NIST CAVP files, RFC 4231, random cross-checks."""
import hashlib
import hmac
import random

import pytest

from nist import parse

# The same suites run on the software library and on the engine's RTL (drivers + Verilator model).
pytestmark = pytest.mark.backends("sw", "rtl", "openssl")


def test_sha256_cavp(batch, tally, vectors):
    reqs, want = [], []
    for name in ("SHA256ShortMsg.rsp", "SHA256LongMsg.rsp"):
        for _, r in parse(vectors / "hashes" / "SHA2" / name):
            n = int(r["Len"])
            msg = r["Msg"][: n // 4] if n else ""
            reqs.append({"op": "sha256", "msg": msg})
            want.append(r["MD"].lower())
    assert len(reqs) > 100
    got = batch(reqs)
    for q, g, w in zip(reqs, got, want):
        assert g.get("digest") == w, f"sha256 {q['msg'][:64]}...: got {g}, want {w}"
    tally("sha256 cavp short+long", len(reqs))


def test_sha256_monte(session, tally, vectors):
    """The CAVP Monte Carlo test: 100 checkpoints of 1000 chained hashes each."""
    records = list(parse(vectors / "hashes" / "SHA2" / "SHA256Monte.rsp"))
    seed = bytes.fromhex(next(r["Seed"] for _, r in records if "Seed" in r))
    checkpoints = [r["MD"].lower() for _, r in records if "MD" in r]
    assert len(checkpoints) == 100
    for j, want in enumerate(checkpoints):
        md = [seed, seed, seed]
        for _ in range(1000):
            out = session({"op": "sha256", "msg": (md[-3] + md[-2] + md[-1]).hex()})
            md.append(bytes.fromhex(out["digest"]))
        seed = md[-1]
        assert seed.hex() == want, f"monte checkpoint {j}"
    tally("sha256 cavp monte checkpoints", len(checkpoints))


def test_hmac_rfc4231(batch, tally, vectors):
    reqs, want = [], []
    for _, r in parse(vectors / "HMAC" / "rfc-4231-sha256.txt"):
        if "Key" not in r:
            continue
        reqs.append({"op": "hmac_sha256", "key": r["Key"], "msg": r["Msg"] if r["Msg"] != "" else ""})
        want.append(r["MD"].lower())
    assert len(reqs) >= 6
    got = batch(reqs)
    for q, g, w in zip(reqs, got, want):
        # RFC 4231 test 5 lists a 128-bit truncation of the MAC.
        assert g.get("mac", "")[: len(w)] == w, f"hmac {q}: got {g}, want {w}"
    tally("hmac-sha256 rfc4231", len(reqs))


def test_random_vs_hashlib(batch, tally, seed):
    rng = random.Random(seed)
    cases = []
    for i in range(1000):
        msg = rng.randbytes(rng.choice([0, 1, 55, 56, 63, 64, 65, 119, 120, rng.randrange(2000)]))
        key = rng.randbytes(rng.choice([0, 1, 32, 64, 65, rng.randrange(200)]))
        cases.append((msg, key))
    reqs = []
    for msg, key in cases:
        reqs.append({"op": "sha256", "msg": msg.hex()})
        reqs.append({"op": "hmac_sha256", "key": key.hex(), "msg": msg.hex()})
    got = batch(reqs)
    for i, (msg, key) in enumerate(cases):
        assert got[2 * i]["digest"] == hashlib.sha256(msg).hexdigest(), f"seed {seed} case {i}"
        assert got[2 * i + 1]["mac"] == hmac.new(key, msg, hashlib.sha256).hexdigest(), \
            f"seed {seed} case {i}"
    tally("sha256 random vs hashlib", len(cases))
    tally("hmac-sha256 random vs hmac", len(cases))
