"""AES block modes and CBC-MAC through the CLI: NIST CAVP KAT/MMT files, RFC 3686 CTR, random
cross-checks against the `cryptography` package, and the named errors."""
import random

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from nist import parse

# The same suites run on the software library and on the engine's RTL (drivers + Verilator model).
pytestmark = pytest.mark.backends("sw", "rtl", "openssl")

try:  # OFB moved to the "decrepit" namespace in cryptography 43
    from cryptography.hazmat.decrepit.ciphers.modes import OFB
except ImportError:  # pragma: no cover
    OFB = modes.OFB

KAT_GROUPS = ("GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT")


def aes_req(mode, direction, key, iv, data):
    req = {"op": "aes", "mode": mode, "dir": direction, "key": key, "data": data}
    if mode != "ecb":
        req["iv"] = iv
    return req


def run_checked(batch, reqs, want, what):
    got = batch(reqs)
    for q, g, w in zip(reqs, got, want):
        assert g.get("out") == w, f"{what}: {q} -> {g}, want {w}"


@pytest.mark.parametrize("mode", ["ECB", "CBC", "OFB"])
def test_cavp_kat_mmt(batch, tally, vectors, mode):
    """Every record of the KAT and MMT files, run in both directions."""
    reqs, want = [], []
    files = 0
    for group in KAT_GROUPS:
        for bits in (128, 192, 256):
            path = vectors / "ciphers" / "AES" / mode / f"{mode}{group}{bits}.rsp"
            files += 1
            for _, r in parse(path):
                if "KEY" not in r:
                    continue
                key, iv = r["KEY"].lower(), r.get("IV", "").lower()
                pt, ct = r["PLAINTEXT"].lower(), r["CIPHERTEXT"].lower()
                reqs.append(aes_req(mode.lower(), "enc", key, iv, pt))
                want.append(ct)
                reqs.append(aes_req(mode.lower(), "dec", key, iv, ct))
                want.append(pt)
    assert files == 15 and len(reqs) > 1000
    run_checked(batch, reqs, want, f"AES-{mode} CAVP")
    tally(f"aes-{mode.lower()} cavp kat+mmt (enc+dec)", len(reqs))


def test_ctr_rfc3686(batch, tally, vectors):
    reqs, want = [], []
    for bits in (128, 192, 256):
        for _, r in parse(vectors / "ciphers" / "AES" / "CTR" / f"aes-{bits}-ctr.txt"):
            if "KEY" not in r:
                continue
            key, iv = r["KEY"].lower(), r["IV"].lower()
            pt, ct = r["PLAINTEXT"].lower(), r["CIPHERTEXT"].lower()
            reqs += [aes_req("ctr", "enc", key, iv, pt), aes_req("ctr", "dec", key, iv, ct)]
            want += [ct, pt]
    assert len(reqs) >= 18
    run_checked(batch, reqs, want, "AES-CTR RFC 3686")
    tally("aes-ctr rfc3686 (enc+dec)", len(reqs))


def reference(mode, direction, key, iv, data):
    m = {"ecb": lambda: modes.ECB(), "cbc": lambda: modes.CBC(iv), "ctr": lambda: modes.CTR(iv),
         "ofb": lambda: OFB(iv)}[mode]()
    c = Cipher(algorithms.AES(key), m)
    op = c.encryptor() if direction == "enc" else c.decryptor()
    return op.update(data) + op.finalize()


@pytest.mark.parametrize("mode", ["ecb", "cbc", "ctr", "ofb"])
def test_random_vs_cryptography(batch, tally, seed, mode):
    rng = random.Random(f"{seed}-{mode}")
    cases = []
    for i in range(1200):
        key = rng.randbytes(rng.choice((16, 24, 32)))
        iv = rng.randbytes(16)
        if mode == "ctr" and i % 4 == 0:
            # Counters about to carry through several bytes, up to the 2^128 wrap.
            iv = iv[: rng.randrange(17)].ljust(16, b"\xff")
        n = rng.choice((0, 1, 2, 3, rng.randrange(40), rng.randrange(300)))
        data = rng.randbytes(16 * n if mode in ("ecb", "cbc") else rng.randrange(16 * n + 16))
        direction = rng.choice(("enc", "dec"))
        cases.append((key, iv, data, direction))
    reqs = [aes_req(mode, d, k.hex(), iv.hex(), x.hex()) for k, iv, x, d in cases]
    got = batch(reqs)
    for i, ((key, iv, data, d), g) in enumerate(zip(cases, got)):
        want = reference(mode, d, key, iv, data).hex()
        assert g.get("out") == want, f"seed {seed} case {i}: {reqs[i]} -> {g}, want {want}"
    tally(f"aes-{mode} random vs cryptography", len(cases))


def test_cbc_mac_random(batch, tally, seed):
    rng = random.Random(f"{seed}-cbcmac")
    cases, reqs = [], []
    for i in range(1000):
        key = rng.randbytes(rng.choice((16, 24, 32)))
        data = rng.randbytes(16 * rng.choice((1, 2, rng.randrange(1, 40))))
        tag_len = rng.randrange(4, 17)
        cases.append((key, data, tag_len))
        req = {"op": "cbc_mac", "key": key.hex(), "data": data.hex()}
        if tag_len != 16 or i % 2:
            req["tag_len"] = tag_len
        reqs.append(req)
    got = batch(reqs)
    for i, ((key, data, tag_len), g) in enumerate(zip(cases, got)):
        want = reference("cbc", "enc", key, bytes(16), data)[-16:][:tag_len].hex()
        assert g.get("mac") == want, f"seed {seed} case {i}: {reqs[i]} -> {g}"
    tally("aes cbc-mac random vs cryptography cbc", len(cases))


K16, IV16 = "00" * 16, "11" * 16


@pytest.mark.parametrize("req,err", [
    (aes_req("ecb", "enc", "00" * 15, IV16, "00" * 16), "bad_length"),
    (aes_req("ecb", "enc", "00" * 17, IV16, "00" * 16), "bad_length"),
    (aes_req("cbc", "dec", "00" * 33, IV16, "00" * 16), "bad_length"),
    (aes_req("ctr", "enc", "", IV16, "00"), "bad_length"),
    (aes_req("cbc", "enc", K16, "11" * 15, "00" * 16), "bad_length"),
    (aes_req("ofb", "enc", K16, "11" * 17, "00"), "bad_length"),
    (aes_req("ctr", "enc", K16, "", "00"), "bad_length"),
    (aes_req("ecb", "enc", K16, None, "00" * 15), "bad_length"),
    (aes_req("ecb", "dec", K16, None, "00" * 17), "bad_length"),
    (aes_req("cbc", "enc", K16, IV16, "00" * 31), "bad_length"),
    (aes_req("cbc", "dec", K16, IV16, "00"), "bad_length"),
    (aes_req("xts", "enc", K16, IV16, "00" * 16), "bad_input"),
    (aes_req("cbc", "both", K16, IV16, "00" * 16), "bad_input"),
    ({"op": "aes", "mode": "cbc", "dir": "enc", "key": K16, "data": "00" * 16}, "bad_input"),
    ({"op": "aes", "mode": "ecb", "dir": "enc", "key": K16}, "bad_input"),
    (aes_req("ecb", "enc", K16, None, "0g" * 16), "bad_hex"),
    ({"op": "cbc_mac", "key": K16, "data": ""}, "bad_length"),
    ({"op": "cbc_mac", "key": K16, "data": "00" * 17}, "bad_length"),
    ({"op": "cbc_mac", "key": K16, "data": "00" * 16, "tag_len": 3}, "bad_length"),
    ({"op": "cbc_mac", "key": K16, "data": "00" * 16, "tag_len": 17}, "bad_length"),
    ({"op": "cbc_mac", "key": "00" * 20, "data": "00" * 16}, "bad_length"),
])
def test_errors(batch, req, err):
    (got,) = batch([req])
    assert got.get("error") == err, f"{req} -> {got}"
    assert set(got) <= {"error", "field"}


def test_empty_and_streaming_edges(batch):
    """Zero-length input is fine for every mode; a CTR counter of all-ones wraps to zero."""
    reqs = [aes_req(m, "enc", K16, IV16, "") for m in ("ecb", "cbc", "ctr", "ofb")]
    assert [g.get("out") for g in batch(reqs)] == [""] * 4
    key = bytes(range(16))
    data = bytes(range(48))
    (g,) = batch([aes_req("ctr", "enc", key.hex(), "ff" * 16, data.hex())])
    assert g["out"] == reference("ctr", "enc", key, b"\xff" * 16, data).hex()
