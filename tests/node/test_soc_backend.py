"""A representative subset of the vector suites through `se --backend soc`: every operation runs
inside the simulated node (PicoRV32, the op-server firmware, the shared drivers, the engine), in
the default node configuration sw+hw-rv32im. The full suites run on sw and rtl (tests/crypto);
here an even spread of each suite's records, checked against the same independent references
(NIST CAVP files, RFC examples, the `cryptography` package)."""
import hashlib
import json
import pathlib
import random
import subprocess

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

import ossl
import p256_model as p256
from drbg_model import model
from nist import ccm_fields, ccm_records, parse

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = ROOT / "build" / "host" / "se"
CONFIG = "sw+hw-rv32im"
NEEDED = (CLI, ROOT / "build" / "sim" / "rv32im" / "node", ROOT / "build" / "fw" / CONFIG / "opserver.elf")


def spread(items, n):
    """n items evenly spread over the list (all of them when there are fewer)."""
    items = list(items)
    return items if len(items) <= n else [items[i * len(items) // n] for i in range(n)]


@pytest.fixture(scope="module")
def soc():
    """Runs requests through one `se --backend soc batch` process per call; returns the answers."""
    for f in NEEDED:
        if not f.exists():
            pytest.fail(f"{f.relative_to(ROOT)} is not built (run `make node`)")

    def run(reqs, node=CONFIG):
        lines = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in reqs)
        proc = subprocess.run([str(CLI), "--backend", "soc", "--node", node, "batch"], input=lines,
                              capture_output=True, text=True, timeout=900)
        out = [json.loads(line) for line in proc.stdout.splitlines()]
        assert len(out) == len(reqs), f"{len(out)} answers for {len(reqs)} requests: {proc.stderr[-1500:]}"
        return out
    return run


def hexpad(h, nbytes):
    """A hex integer as nbytes bytes (a value that needs more stays longer: out of range)."""
    v = int(h, 16)
    return v.to_bytes(max(nbytes, (v.bit_length() + 7) // 8), "big").hex()


# ---- hashes and MACs --------------------------------------------------------------------------

def test_sha256_cavp(soc, vectors):
    recs = []
    for name, n in (("SHA256ShortMsg.rsp", 12), ("SHA256LongMsg.rsp", 2)):
        recs += spread([r for _, r in parse(vectors / "hashes" / "SHA2" / name)], n)
    reqs = [{"op": "sha256", "msg": r["Msg"][: int(r["Len"]) // 4]} for r in recs]
    for q, g, r in zip(reqs, soc(reqs), recs):
        assert g.get("digest") == r["MD"].lower(), f"{q['msg'][:40]}: {g}"


def test_hmac_rfc4231(soc, vectors):
    recs = [r for _, r in parse(vectors / "HMAC" / "rfc-4231-sha256.txt") if "Key" in r]
    reqs = [{"op": "hmac_sha256", "key": r["Key"], "msg": r["Msg"]} for r in recs]
    assert len(reqs) >= 6
    for q, g, r in zip(reqs, soc(reqs), recs):
        assert g.get("mac", "")[: len(r["MD"])] == r["MD"].lower(), f"{q}: {g}"


# ---- AES ----------------------------------------------------------------------------------------

def test_aes_cavp_and_rfc3686(soc, vectors):
    reqs, want = [], []
    for mode in ("ECB", "CBC", "OFB"):
        for bits in (128, 256):
            for r in spread([r for _, r in parse(vectors / "ciphers" / "AES" / mode / f"{mode}MMT{bits}.rsp")
                             if "KEY" in r], 2):
                base = {"op": "aes", "mode": mode.lower(), "key": r["KEY"].lower()}
                if mode != "ECB":
                    base["iv"] = r["IV"].lower()
                reqs += [dict(base, dir="enc", data=r["PLAINTEXT"].lower()),
                         dict(base, dir="dec", data=r["CIPHERTEXT"].lower())]
                want += [r["CIPHERTEXT"].lower(), r["PLAINTEXT"].lower()]
    for r in [r for _, r in parse(vectors / "ciphers" / "AES" / "CTR" / "aes-128-ctr.txt") if "KEY" in r]:
        reqs.append({"op": "aes", "mode": "ctr", "dir": "enc", "key": r["KEY"].lower(), "iv": r["IV"].lower(),
                     "data": r["PLAINTEXT"].lower()})
        want.append(r["CIPHERTEXT"].lower())
    for q, g, w in zip(reqs, soc(reqs), want):
        assert g.get("out") == w, f"{q}: {g}"


def test_cbc_mac_vs_cryptography(soc, seed):
    rng = random.Random(f"{seed}-soc-cbcmac")
    cases = [(rng.randbytes(16), rng.randbytes(16 * rng.randrange(1, 6)), rng.randrange(4, 17)) for _ in range(4)]
    reqs = [{"op": "cbc_mac", "key": k.hex(), "data": d.hex(), "tag_len": t} for k, d, t in cases]
    for (k, d, t), g in zip(cases, soc(reqs)):
        enc = Cipher(algorithms.AES(k), modes.CBC(bytes(16))).encryptor()
        assert g.get("mac") == (enc.update(d) + enc.finalize())[-16:][:t].hex()


def gcm_records(path):
    for sec, r in parse(path):
        if "Key" in r:
            yield int(sec["Taglen"]) // 8, {k: (v.lower() if isinstance(v, str) else v) for k, v in r.items()}


def test_gcm_cavp(soc, vectors):
    enc = spread(gcm_records(vectors / "ciphers" / "AES" / "GCM" / "gcmEncryptExtIV128.rsp"), 8)
    dec = spread(gcm_records(vectors / "ciphers" / "AES" / "GCM" / "gcmDecrypt128.rsp"), 8)
    assert any(r.get("FAIL") for _, r in dec) and any(not r.get("FAIL") for _, r in dec)
    reqs = [{"op": "aead_encrypt", "mode": "gcm", "key": r["Key"], "nonce": r["IV"], "aad": r["AAD"],
             "pt": r["PT"], "tag_len": t} for t, r in enc]
    reqs += [{"op": "aead_decrypt", "mode": "gcm", "key": r["Key"], "nonce": r["IV"], "aad": r["AAD"],
              "ct": r["CT"], "tag": r["Tag"]} for t, r in dec]
    got = soc(reqs)
    for (t, r), g in zip(enc, got):
        assert g == {"ct": r["CT"], "tag": r["Tag"]}, f"{r}: {g}"
    for (t, r), g in zip(dec, got[len(enc):]):
        assert g == ({"error": "bad_tag"} if r.get("FAIL") else {"pt": r["PT"]}), f"{r}: {g}"


def test_ccm_cavp(soc, vectors):
    recs = list(ccm_records(vectors / "ciphers" / "AES" / "CCM" / "DVPT128.rsp"))
    picked = spread([r for r in recs if r["Result"].startswith("Pass")], 4) + \
        spread([r for r in recs if r["Result"].startswith("Fail")], 4)
    reqs, want = [], []
    for r in picked:
        key, nonce, aad, payload, ct, tag, _ = ccm_fields(r)
        reqs.append({"op": "aead_decrypt", "mode": "ccm", "key": key, "nonce": nonce, "aad": aad, "ct": ct,
                     "tag": tag})
        want.append({"pt": payload} if payload is not None else {"error": "bad_tag"})
    for q, g, w in zip(reqs, soc(reqs), want):
        assert g == w, f"{q}: {g}"


# ---- ECC ----------------------------------------------------------------------------------------

def test_ecdsa_sigver_p256(soc, vectors):
    """(B-233 verification is left out: its u1 G + u2 Q runs in the node's software, minutes of
    simulation; B-233 reaches the gf2m engine in test_keygen_and_pubkey_match_cryptography.)"""
    recs = [(s, r) for s, r in parse(vectors / "asymmetric/ECDSA/FIPS_186-3/SigVer.rsp")
            if "Msg" in r and s.get("hash") == "SHA-256" and s.get("curve") == "P-256"]
    recs = spread(recs, 5)
    assert any(r["Result"].startswith("F") for _, r in recs) and any(r["Result"].startswith("P") for _, r in recs)
    reqs = []
    for s, r in recs:
        c, fb, nb = "secp256r1", 32, 32
        reqs.append({"op": "ecdsa_verify", "curve": c, "pub": "04" + hexpad(r["Qx"], fb) + hexpad(r["Qy"], fb),
                     "hash": hashlib.sha256(bytes.fromhex(r["Msg"])).hexdigest(),
                     "r": hexpad(r["R"], nb), "s": hexpad(r["S"], nb)})
    for (s, r), g in zip(recs, soc(reqs)):
        if r["Result"].startswith("P"):
            assert g.get("valid") is True, f"{s} {r}: {g}"
        else:
            assert g.get("error") in ("bad_signature", "invalid_point"), f"{s} {r}: {g}"


def test_ecdsa_sign_verified_by_cryptography(soc, seed):
    """RFC 6979 signatures made in the node verify under `cryptography`, on P-256 and P-192."""
    rng = random.Random(f"{seed}-soc-sign")
    cases = []
    for name, curve in (("secp256r1", ec.SECP256R1()), ("secp192r1", ec.SECP192R1())):
        key = ec.derive_private_key(rng.randrange(1, 2**180), curve)
        msg = rng.randbytes(40)
        cases.append((name, key, msg))
    nb = {"secp256r1": 32, "secp192r1": 24}
    reqs = [{"op": "ecdsa_sign", "curve": n, "key": k.private_numbers().private_value.to_bytes(nb[n], "big").hex(),
             "msg": m.hex()} for n, k, m in cases]
    for (n, k, m), g in zip(cases, soc(reqs)):
        k.public_key().verify(bytes.fromhex(g["der"]), m, ec.ECDSA(hashes.SHA256()))
        r, s = decode_dss_signature(bytes.fromhex(g["der"]))
        assert (g["r"], g["s"]) == (r.to_bytes(nb[n], "big").hex(), s.to_bytes(nb[n], "big").hex())


def test_ecdh_kas_and_pkv(soc, vectors):
    """SP 800-56A ZZ-only (P-256) shared secrets and FIPS 186-3 PKV validity (P-224 / P-256)."""
    path = vectors / "asymmetric/ECDH/KASValidityTest_ECCStaticUnified_NOKC_ZZOnly_init.fax"
    kas = spread([r for s, r in parse(path) if "dsIUT" in r and s.get("name", "")[:2] == "EC"], 3)
    pkv = spread([(s, r) for s, r in parse(vectors / "asymmetric/ECDSA/FIPS_186-3/PKV.rsp")
                  if "Qx" in r and s.get("curve") in ("P-224", "P-256")], 6)
    reqs = [{"op": "ecdh", "curve": "secp256r1", "key": hexpad(r["dsIUT"], 32),
             "pub": "04" + hexpad(r["QsCAVSx"], 32) + hexpad(r["QsCAVSy"], 32)} for r in kas]
    for s, r in pkv:
        fb = 28 if s["curve"] == "P-224" else 32
        reqs.append({"op": "ec_validate", "curve": "secp224r1" if fb == 28 else "secp256r1",
                     "pub": "04" + hexpad(r["Qx"], fb) + hexpad(r["Qy"], fb)})
    got = soc(reqs)
    for r, g in zip(kas, got):
        assert (g.get("shared") == hexpad(r["Z"], 32)) == r["Result"].startswith("P"), f"{r}: {g}"
    for (s, r), g in zip(pkv, got[len(kas):]):
        assert (g.get("valid") is True) == r["Result"].startswith("P"), f"{s} {r}: {g}"
        if not r["Result"].startswith("P"):
            assert g.get("error") == "invalid_point"


def test_points_with_x_zero(soc):
    """P-256's points (0, +-sqrt(b)), valid keys whose x is 0: valid, and ECDH with one gives
    cryptography's shared secret (the engine's ladder once refused them)."""
    reqs, want = [], []
    for _, y in p256.points_with_x_zero():
        pub = "04" + "00" * 32 + y.to_bytes(32, "big").hex()
        k = random.Random(y).randrange(1, 2**255)
        peer = ec.EllipticCurvePublicNumbers(0, y, ec.SECP256R1()).public_key()
        reqs += [{"op": "ec_validate", "curve": "secp256r1", "pub": pub},
                 {"op": "ecdh", "curve": "secp256r1", "key": k.to_bytes(32, "big").hex(), "pub": pub}]
        want += [{"valid": True}, {"shared": ec.derive_private_key(k, ec.SECP256R1()).exchange(ec.ECDH(), peer).hex()}]
    for q, w, g in zip(reqs, want, soc(reqs)):
        assert all(g.get(key) == v for key, v in w.items()), f"{q}: {g}"


def test_x25519_rfc7748_and_mod(soc):
    """RFC 7748 5.2's first vector, and the big-integer commands against Python's integers."""
    reqs = [{"op": "x25519", "scalar": "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
             "u": "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c"}]
    p = 2**255 - 19
    rng = random.Random(7748)
    mods = []
    for op in ("mod_mul", "mod_add", "mod_sub", "mod_inv"):
        a, b = rng.randrange(1, p), rng.randrange(p)
        want = {"mod_mul": a * b % p, "mod_add": (a + b) % p, "mod_sub": (a - b) % p, "mod_inv": pow(a, -1, p)}[op]
        req = {"op": op, "m": p.to_bytes(32, "big").hex(), "a": a.to_bytes(32, "big").hex()}
        if op != "mod_inv":
            req["b"] = b.to_bytes(32, "big").hex()
        reqs.append(req)
        mods.append(want.to_bytes(32, "big").hex())
    got = soc(reqs)
    assert got[0].get("out") == "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"
    assert [g.get("r") for g in got[1:]] == mods


def test_pubkey_matches_references(soc):
    """ec_pubkey in the node: P-256 (pk engine) against `cryptography`, B-233 (gf2m engine) against
    OpenSSL's libcrypto (the cryptography package has no binary curves)."""
    d256, d233 = 0x1234567, 0x7654321
    reqs = [{"op": "ec_pubkey", "curve": "secp256r1", "key": d256.to_bytes(32, "big").hex()},
            {"op": "ec_pubkey", "curve": "sect233r1", "key": d233.to_bytes(30, "big").hex()}]
    got = soc(reqs)
    pub = ec.derive_private_key(d256, ec.SECP256R1()).public_key().public_numbers()
    assert got[0].get("pub") == "04" + pub.x.to_bytes(32, "big").hex() + pub.y.to_bytes(32, "big").hex()
    x, y = ossl.Curve("sect233r1").mul(d233)
    assert got[1].get("pub") == "04" + x.to_bytes(30, "big").hex() + y.to_bytes(30, "big").hex()


def test_hmac_drbg(soc):
    """HMAC_DRBG runs over the node's HMAC (short inputs) and its SHA-256 compressions (an update
    over 160 bytes), against the SP 800-90A model."""
    rng = random.Random("soc-drbg")
    cases = [{"entropy": rng.randbytes(32), "nonce": rng.randbytes(16), "bytes": 64},
             {"entropy": rng.randbytes(130), "nonce": rng.randbytes(60), "pers": rng.randbytes(40),
              "reseed_entropy": rng.randbytes(32), "add2": rng.randbytes(99), "bytes": 33}]
    got = soc([{"op": "hmac_drbg", **{k: v.hex() if isinstance(v, bytes) else v for k, v in c.items()}}
               for c in cases])
    assert [g.get("out") for g in got] == [model(c).hex() for c in cases]


# ---- errors ------------------------------------------------------------------------------------

def test_named_errors(soc):
    """Bad input keeps its named error through the node; a request larger than the node's buffers
    is refused on the host (bad_length) and the node goes on answering."""
    reqs = [
        {"op": "ec_validate", "curve": "secp256r1", "pub": "04" + "00" * 64},
        {"op": "ecdh", "curve": "secp256r1", "key": "00" * 32, "pub": "04" + "11" * 64},
        {"op": "aead_decrypt", "mode": "gcm", "key": "00" * 16, "nonce": "00" * 12, "ct": "00", "tag": "00" * 16},
        {"op": "sha256", "msg": "ab" * 9000},
        {"op": "sha256", "msg": "616263"},
        {"op": "hmac_drbg", "entropy": "00" * 32, "nonce": "00" * 16, "bytes": 16, "reseed_interval": 1},
    ]
    got = soc(reqs)
    assert got[0].get("error") == "invalid_point"
    assert got[1].get("error") in ("invalid_scalar", "invalid_point")
    assert got[2].get("error") == "bad_tag"
    assert got[3].get("error") == "bad_length"
    assert got[4].get("digest") == hashlib.sha256(b"abc").hexdigest()
    assert got[5].get("error") == "drbg_reseed_required"


def test_unknown_node_config_is_a_clear_error():
    if not CLI.exists():
        pytest.fail("build/host/se is not built")
    proc = subprocess.run([str(CLI), "--backend", "soc", "--node", "sw-rv64", "sha256", "--msg", "00"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "unknown node configuration" in proc.stderr, proc.stderr
