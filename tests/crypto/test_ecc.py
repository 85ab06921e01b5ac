"""Prime-field ECC, X25519 and the modular layer through the CLI: NIST CAVP (FIPS 186-3 KeyPair,
PKV, SigGen, SigVer; SP 800-56A ZZ-only KAS), RFC 6979 and RFC 7748 examples, and randomised
cross-checks against the `cryptography` package (or, for secp160r1, a SEC 1 model below)."""
import hashlib
import random

import pytest
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, x25519
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, decode_dss_signature, encode_dss_signature

import ossl
import p256_model as p256
from nist import parse

# Every suite runs on the library (sw) and on the engine model (rtl, a spread subset: budget).
pytestmark = pytest.mark.backends("sw", "rtl", "openssl")

# NIST name -> (our curve name, cryptography curve or None)
NIST_CURVES = {"P-192": "secp192r1", "P-224": "secp224r1", "P-256": "secp256r1",
               "B-233": "sect233r1", "K-233": "sect233k1"}
CRYPTO_CURVES = {"secp192r1": ec.SECP192R1(), "secp224r1": ec.SECP224R1(),
                 "secp256r1": ec.SECP256R1(), "secp256k1": ec.SECP256K1()}
HASHES = {"SHA-1": hashlib.sha1, "SHA-224": hashlib.sha224, "SHA-256": hashlib.sha256,
          "SHA-384": hashlib.sha384, "SHA-512": hashlib.sha512}


def field_bytes(curve):
    """Bytes of a coordinate."""
    return {"secp160r1": 20, "secp192r1": 24, "secp224r1": 28, "secp256r1": 32, "secp256k1": 32,
            "sect233r1": 30, "sect233k1": 30}[curve]


def order_bytes(curve):
    """Bytes of a scalar (private key, r, s): the byte length of n."""
    return {"secp160r1": 21, "secp192r1": 24, "secp224r1": 28, "secp256r1": 32, "secp256k1": 32,
            "sect233r1": 30, "sect233k1": 29}[curve]


def hexpad(h, nbytes):
    """A CAVP hex integer as exactly nbytes (a value that needs more stays longer: out of range)."""
    v = int(h, 16)
    return v.to_bytes(max(nbytes, (v.bit_length() + 7) // 8), "big").hex()


def pub_hex(qx, qy, nbytes):
    return "04" + hexpad(qx, nbytes) + hexpad(qy, nbytes)


def i2h(v, nbytes):
    return v.to_bytes(nbytes, "big").hex()


# ---- NIST CAVP -----------------------------------------------------------------------------

def test_keypair(batch, tally, vectors, budget):
    recs = [(s, r) for s, r in parse(vectors / "asymmetric/ECDSA/FIPS_186-3/KeyPair.rsp") if "d" in r]
    recs = [(s, r) for s, r in recs if s.get("curve") in NIST_CURVES]
    assert len(recs) >= 30
    recs = budget.pick(recs, 6)
    reqs = [{"op": "ec_pubkey", "curve": NIST_CURVES[s["curve"]],
             "key": hexpad(r["d"], order_bytes(NIST_CURVES[s["curve"]]))} for s, r in recs]
    for (s, r), q, got in zip(recs, reqs, batch(reqs)):
        nb = field_bytes(q["curve"])
        assert got.get("pub") == pub_hex(r["Qx"], r["Qy"], nb), f"{s['curve']} d={r['d']}: {got}"
    tally("ecdsa keypair (FIPS 186-3)", len(recs))


def test_pkv(batch, tally, vectors, budget):
    recs = [(s, r) for s, r in parse(vectors / "asymmetric/ECDSA/FIPS_186-3/PKV.rsp") if "Qx" in r]
    recs = [(s, r) for s, r in recs if s.get("curve") in NIST_CURVES]
    assert len(recs) >= 30 and any(r["Result"].startswith("P") for _, r in recs)
    recs = budget.pick(recs, 30)
    reqs = []
    for s, r in recs:
        c = NIST_CURVES[s["curve"]]
        reqs.append({"op": "ec_validate", "curve": c, "pub": pub_hex(r["Qx"], r["Qy"], field_bytes(c))})
    for (s, r), got in zip(recs, batch(reqs)):
        if r["Result"].startswith("P"):
            assert got.get("valid") is True, f"{s['curve']} {r}: {got}"
        else:
            assert got.get("error") == "invalid_point", f"{s['curve']} {r}: {got}"
    tally("ecdsa public key validation (FIPS 186-3 PKV)", len(recs))


def test_siggen_known_k(batch, tally, vectors, budget):
    """SigGen.txt carries k: the signature must be exactly (R, S) for every hash variant."""
    recs = [(s, r) for s, r in parse(vectors / "asymmetric/ECDSA/FIPS_186-3/SigGen.txt") if "k" in r]
    recs = [(s, r) for s, r in recs if s.get("curve") in NIST_CURVES]
    assert len(recs) >= 100
    recs = budget.pick(recs, 8)
    reqs = []
    for s, r in recs:
        c = NIST_CURVES[s["curve"]]
        nb = order_bytes(c)
        digest = HASHES[s["hash"]](bytes.fromhex(r["Msg"])).hexdigest()
        reqs.append({"op": "ecdsa_sign", "curve": c, "key": hexpad(r["d"], nb), "hash": digest,
                     "nonce": "k", "k": hexpad(r["k"], nb)})
    for (s, r), q, got in zip(recs, reqs, batch(reqs)):
        nb = order_bytes(q["curve"])
        assert (got.get("r"), got.get("s")) == (hexpad(r["R"], nb), hexpad(r["S"], nb)), \
            f"{s['curve']},{s['hash']} d={r['d']}: {got}"
    tally("ecdsa siggen with k (FIPS 186-3)", len(recs))


def test_sigver(batch, tally, vectors, budget):
    recs = [(s, r) for s, r in parse(vectors / "asymmetric/ECDSA/FIPS_186-3/SigVer.rsp") if "Msg" in r]
    recs = [(s, r) for s, r in recs if s.get("curve") in NIST_CURVES]
    assert len(recs) >= 100 and any(r["Result"].startswith("F") for _, r in recs)
    recs = budget.pick(recs, 16)
    reqs = []
    for s, r in recs:
        c = NIST_CURVES[s["curve"]]
        nb, fb = order_bytes(c), field_bytes(c)
        digest = HASHES[s["hash"]](bytes.fromhex(r["Msg"])).hexdigest()
        reqs.append({"op": "ecdsa_verify", "curve": c, "pub": pub_hex(r["Qx"], r["Qy"], fb),
                     "hash": digest, "r": hexpad(r["R"], nb), "s": hexpad(r["S"], nb)})
    for (s, r), got in zip(recs, batch(reqs)):
        if r["Result"].startswith("P"):
            assert got.get("valid") is True, f"{s['curve']},{s['hash']} {r}: {got}"
        else:
            assert got.get("error") in ("bad_signature", "invalid_point"), f"{s['curve']} {r}: {got}"
    tally("ecdsa sigver (FIPS 186-3)", len(recs))


def test_ecdh_kas_zz_only(batch, tally, vectors, budget):
    """SP 800-56A ECC CDH validity: Result P exactly when our Z equals the file's Z."""
    curve_of = {"EA": "secp192r1", "EB": "secp224r1", "EC": "secp256r1"}
    n = 0
    for role in ("init", "resp"):
        path = vectors / f"asymmetric/ECDH/KASValidityTest_ECCStaticUnified_NOKC_ZZOnly_{role}.fax"
        recs = [(s, r) for s, r in parse(path) if "dsIUT" in r and s.get("name", "")[:2] in curve_of]
        assert len(recs) >= 20
        recs = budget.pick(recs, 4)
        reqs = []
        for s, r in recs:
            c = curve_of[s["name"][:2]]
            nb = field_bytes(c)
            reqs.append({"op": "ecdh", "curve": c, "key": hexpad(r["dsIUT"], nb),
                         "pub": pub_hex(r["QsCAVSx"], r["QsCAVSy"], nb)})
        for (s, r), q, got in zip(recs, reqs, batch(reqs)):
            match = got.get("shared") == hexpad(r["Z"], field_bytes(q["curve"]))
            assert match == r["Result"].startswith("P"), f"{s['name']} {r}: {got}"
        n += len(recs)
    tally("ecdh kas zz-only validity (SP 800-56A)", n)


def test_rfc6979_sha256(batch, tally, vectors):
    """RFC 6979 A.2.5-7 (via OpenSSL's test file): our nonces use HMAC-SHA256, so the SHA-256
    signatures of the P-192/P-224/P-256 keys must match byte for byte."""
    text = (vectors / "asymmetric/ECDSA/RFC6979/evppkey_ecdsa_rfc6979.txt").read_text()
    keys, cases = {}, []
    for block in text.split("\n\n"):
        lines = [l for l in block.strip().splitlines() if not l.startswith("#")]
        if lines and lines[0].startswith("PrivateKey="):
            try:
                keys[lines[0].split("=", 1)[1]] = serialization.load_pem_private_key(
                    "\n".join(lines[1:]).encode(), None)
            except UnsupportedAlgorithm:  # binary curves this cryptography build lacks
                pass
            continue
        kv = dict(l.split(" = ", 1) for l in lines if " = " in l)
        if kv.get("DigestSign") == "SHA256" and kv.get("NonceType") == "deterministic":
            cases.append(kv)
    reqs, want = [], []
    for kv in cases:
        key = keys.get(kv["Key"])
        if key is None:
            continue
        c = {"secp192r1": "secp192r1", "secp224r1": "secp224r1", "secp256r1": "secp256r1"}.get(key.curve.name)
        if c is None:
            continue
        msg = kv["Input"].strip('"').encode()
        reqs.append({"op": "ecdsa_sign", "curve": c, "msg": msg.hex(),
                     "key": i2h(key.private_numbers().private_value, field_bytes(c))})
        want.append(kv["Output"].lower())
    assert len(reqs) == 6, f"expected sample+test for 3 curves, found {len(reqs)}"
    for q, got, w in zip(reqs, batch(reqs), want):
        assert got.get("der") == w, f"{q['curve']} {bytes.fromhex(q['msg'])}: {got}"
    tally("ecdsa rfc6979 deterministic (SHA-256)", len(reqs))


def test_x25519_rfc7748(batch, session, tally, vectors, budget):
    recs = [r for _, r in parse(vectors / "asymmetric/X25519/rfc7748.txt") if "INPUT_U" in r]
    assert len(recs) == 3
    got = batch([{"op": "x25519", "scalar": r["INPUT_SCALAR"], "u": r["INPUT_U"]} for r in recs])
    for r, g in zip(recs, got):
        assert g.get("out") == r["OUTPUT_U"], r
    # RFC 7748 5.2: k = u = 9, iterate k, u = X25519(k, u), k; the values after 1 and 1,000 iterations.
    iters = budget(1000, 1)
    k = u = "09" + "00" * 31
    for _ in range(iters):
        k, u = session({"op": "x25519", "scalar": k, "u": u})["out"], k
    assert k == {1: "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079",
                 1000: "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51"}[iters]
    # RFC 7748 6.1: the Alice/Bob exchange.
    a = "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"
    b = "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"
    pa, pb, z1, z2 = (x["out"] for x in batch([
        {"op": "x25519", "scalar": a}, {"op": "x25519", "scalar": b},
        {"op": "x25519", "scalar": a, "u": "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"},
        {"op": "x25519", "scalar": b, "u": "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"}]))
    assert pa == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"
    assert pb == "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"
    assert z1 == z2 == "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
    tally(f"x25519 rfc7748 (incl. {iters:,} iterations)", len(recs) + iters + 4)


# ---- randomised cross-checks against the cryptography package --------------------------------

_ORDERS = {}


def _order(cv):
    """The group order, read from OpenSSL (independent of our tables)."""
    name = {"secp192r1": "prime192v1", "secp256r1": "prime256v1"}.get(cv.name, cv.name)
    if name not in _ORDERS:
        _ORDERS[name] = int(_openssl_params(name)["n"], 16)
    return _ORDERS[name]


def _keys(cv, rng, count):
    return [ec.derive_private_key(rng.randrange(1, _order(cv)), cv) for _ in range(count)]


@pytest.mark.parametrize("curve", sorted(CRYPTO_CURVES))
def test_random_vs_cryptography(batch, tally, seed, curve, budget):
    """250 cases per curve and primitive (1,000 per primitive over the four curves); 2 on rtl."""
    cv, nb = CRYPTO_CURVES[curve], field_bytes(curve)
    rng = random.Random(f"{seed}-{curve}")
    n = budget(250, 2)
    reqs, checks = [], []
    for i in range(n):
        a, b = _keys(cv, rng, 2)
        da = i2h(a.private_numbers().private_value, nb)
        pa, pb = a.public_key().public_numbers(), b.public_key().public_numbers()
        pub_a, pub_b = "04" + i2h(pa.x, nb) + i2h(pa.y, nb), "04" + i2h(pb.x, nb) + i2h(pb.y, nb)
        msg = rng.randbytes(rng.randrange(200))
        theirs = a.sign(msg, ec.ECDSA(hashes.SHA256()))
        reqs += [{"op": "ec_pubkey", "curve": curve, "key": da},
                 {"op": "ecdh", "curve": curve, "key": da, "pub": pub_b},
                 {"op": "ecdsa_sign", "curve": curve, "key": da, "msg": msg.hex(),
                  "nonce": rng.choice(["rfc6979", "drbg"])},
                 {"op": "ecdsa_verify", "curve": curve, "pub": pub_a, "msg": msg.hex(), "der": theirs.hex()},
                 {"op": "ecdsa_verify", "curve": curve, "pub": pub_a, "msg": (msg + b"!").hex(),
                  "der": theirs.hex()}]
        checks.append((a, b, pub_a, msg))
    got = batch(reqs)
    for i, (a, b, pub_a, msg) in enumerate(checks):
        g = got[5 * i: 5 * i + 5]
        ctx = f"seed {seed} {curve} case {i}"
        assert g[0].get("pub") == pub_a, ctx
        assert g[1].get("shared") == a.exchange(ec.ECDH(), b.public_key()).hex(), ctx
        r, s = int(g[2]["r"], 16), int(g[2]["s"], 16)
        assert bytes.fromhex(g[2]["der"]) == encode_dss_signature(r, s), ctx
        a.public_key().verify(encode_dss_signature(r, s), msg, ec.ECDSA(hashes.SHA256()))  # raises if bad
        assert g[3].get("valid") is True, ctx
        assert g[4].get("error") == "bad_signature", ctx
    for kind in ("pubkey", "ecdh", "ecdsa sign", "ecdsa verify", "ecdsa reject"):
        tally(f"{kind} random vs cryptography", n)


OSSL_CURVES = {"secp160r1": 1000, "sect233r1": 500, "sect233k1": 500}  # cases per primitive


@pytest.mark.parametrize("curve", sorted(OSSL_CURVES))
def test_random_vs_openssl(batch, tally, seed, curve, budget):
    """Curves the cryptography package lacks, against OpenSSL's libcrypto (tests/ossl.py):
    public keys and ECDH by its point multiplication, our signatures checked by computing
    u1*G + u2*Q there, and signatures made in Python with k*G from OpenSSL for our verifier."""
    ref = ossl.Curve(curve)
    n, nb, fb = ref.n, order_bytes(curve), field_bytes(curve)
    qlen = n.bit_length()
    rng = random.Random(f"{seed}-{curve}")
    enc = lambda P: "04" + i2h(P[0], fb) + i2h(P[1], fb)
    e_of = lambda digest: int.from_bytes(digest, "big") >> max(0, 8 * len(digest) - qlen)
    cases, reqs = [], []
    for _ in range(budget(OSSL_CURVES[curve], 2)):
        d, e = rng.randrange(1, n), rng.randrange(1, n)
        D, E = ref.mul(d), ref.mul(e)
        msg = rng.randbytes(rng.randrange(64))
        h = e_of(hashlib.sha256(msg).digest()) % n
        k = rng.randrange(1, n)
        r = ref.mul(k)[0] % n
        s = pow(k, -1, n) * (h + r * d) % n
        cases.append((d, D, E, msg))
        reqs += [{"op": "ec_pubkey", "curve": curve, "key": i2h(d, nb)},
                 {"op": "ecdh", "curve": curve, "key": i2h(d, nb), "pub": enc(E)},
                 {"op": "ecdsa_sign", "curve": curve, "key": i2h(d, nb), "msg": msg.hex()},
                 {"op": "ecdsa_verify", "curve": curve, "pub": enc(D), "msg": msg.hex(),
                  "r": i2h(r, nb), "s": i2h(s, nb)},
                 {"op": "ecdsa_verify", "curve": curve, "pub": enc(D), "msg": msg.hex(),
                  "r": i2h(r, nb), "s": i2h(s + 1 if s + 1 < n else 1, nb)}]  # (r, n - s) would be valid
    got = batch(reqs)
    for i, (d, D, E, msg) in enumerate(cases):
        g, ctx = got[5 * i: 5 * i + 5], f"seed {seed} {curve} case {i}"
        assert g[0].get("pub") == enc(D), ctx
        assert g[1].get("shared") == i2h(ref.mul(0, E, d)[0], fb), ctx
        r, s = int(g[2]["r"], 16), int(g[2]["s"], 16)
        h = e_of(hashlib.sha256(msg).digest()) % n
        w = pow(s, -1, n)
        X = ref.mul(h * w % n, D, r * w % n)
        assert X is not None and X[0] % n == r, ctx
        assert g[3].get("valid") is True, ctx
        assert g[4].get("error") == "bad_signature", ctx
    for kind in ("pubkey", "ecdh", "ecdsa sign", "ecdsa verify", "ecdsa reject"):
        tally(f"{curve} {kind} vs openssl libcrypto", len(cases))


def _openssl_params(name):
    """Explicit curve parameters as printed by `openssl ecparam -param_enc explicit -text`."""
    import re
    import subprocess
    text = subprocess.run(["openssl", "ecparam", "-name", name, "-param_enc", "explicit", "-text", "-noout"],
                          capture_output=True, text=True, check=True).stdout
    fields, key = {}, None
    for line in text.splitlines():
        m = re.match(r"^(Prime|A|B|Generator \(uncompressed\)|Order|Cofactor):\s*(.*)$", line.strip())
        if m:
            key = m.group(1)
            fields[key] = m.group(2)
        elif key and re.fullmatch(r"[0-9a-f:]+", line.strip()):
            fields[key] += line.strip()
    hexes = {k: v.replace(":", "").lstrip("0") or "0" for k, v in fields.items() if k != "Cofactor"}
    g = hexes["Generator (uncompressed)"]
    g = g[1:] if len(g) % 2 else g  # drop the 04 prefix's leading zero that lstrip left odd
    g = g[2:] if g.startswith("4") and len(g) % 2 else g
    even = lambda h: h if len(h) % 2 == 0 else "0" + h
    p = even(hexes["Prime"])
    nb = len(p) // 2
    gxy = g[-4 * nb:]
    return {"p": p, "a": even(hexes["A"]), "b": even(hexes["B"]), "gx": gxy[:2 * nb], "gy": gxy[2 * nb:],
            "n": even(hexes["Order"]), "h": fields["Cofactor"].split()[0]}


def test_runtime_curve_brainpool(batch, tally, seed, budget, backend):
    """A curve given at run time (brainpoolP256r1: a != -3, not built in), parameters from
    OpenSSL, results against the cryptography package. The openssl backend maps built-in curves
    to libcrypto's by name and answers not_supported for a curve given by its parameters."""
    curve = _openssl_params("brainpoolP256r1")
    assert int(curve["n"], 16).bit_length() == 256
    if backend == "openssl":
        got = batch([{"op": "ec_pubkey", "curve": curve, "key": "01" * 32},
                     {"op": "ecdsa_verify", "curve": curve, "pub": "04" + "00" * 64, "hash": "00" * 32,
                      "r": "01", "s": "01"}])
        assert [g.get("error") for g in got] == ["not_supported"] * 2, got
        return
    cv, nb = ec.BrainpoolP256R1(), 32
    rng = random.Random(f"{seed}-brainpool")
    reqs, cases = [], []
    for _ in range(budget(100, 2)):
        a, b = _keys(cv, rng, 2)
        pb = b.public_key().public_numbers()
        msg = rng.randbytes(32)
        da = i2h(a.private_numbers().private_value, nb)
        reqs += [{"op": "ecdh", "curve": curve, "key": da, "pub": "04" + i2h(pb.x, nb) + i2h(pb.y, nb)},
                 {"op": "ecdsa_sign", "curve": curve, "key": da, "msg": msg.hex()}]
        cases.append((a, b, msg))
    got = batch(reqs)
    for i, (a, b, msg) in enumerate(cases):
        assert got[2 * i].get("shared") == a.exchange(ec.ECDH(), b.public_key()).hex(), f"seed {seed} case {i}"
        a.public_key().verify(bytes.fromhex(got[2 * i + 1]["der"]), msg, ec.ECDSA(hashes.SHA256()))
    tally("runtime curve (brainpoolP256r1) ecdh+ecdsa vs cryptography", len(cases))
    bad = dict(curve, p=curve["p"][:-1] + "0")  # even modulus
    off = dict(curve, gy=curve["gx"])           # generator off the curve
    wrong_n = dict(curve, n="%x" % (int(curve["n"], 16) + 2))  # n is not the order of G
    got = batch([{"op": "ec_pubkey", "curve": c, "key": "01" * 32} for c in (bad, off, wrong_n)])
    assert [g.get("error") for g in got] == ["bad_params"] * 3


# ---- negative cases ---------------------------------------------------------------------------

def test_invalid_points_scalars_and_signatures(batch, tally):
    c, nb = "secp256r1", 32
    n = int("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551", 16)
    p = int("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff", 16)
    k = ec.derive_private_key(12345, ec.SECP256R1())
    q = k.public_key().public_numbers()
    good = "04" + i2h(q.x, nb) + i2h(q.y, nb)
    msg = b"negative"
    r, s = decode_dss_signature(k.sign(msg, ec.ECDSA(hashes.SHA256())))
    sig = lambda rr, ss: {"op": "ecdsa_verify", "curve": c, "pub": good, "msg": msg.hex(),
                          "r": i2h(rr, nb), "s": i2h(ss, nb)}
    der = lambda d: {"op": "ecdsa_verify", "curve": c, "pub": good, "msg": msg.hex(), "der": d}
    good_der = encode_dss_signature(r, s).hex()
    off_curve = "04" + i2h(q.x, nb) + i2h((q.y + 1) % p, nb)
    bad_key = lambda pub, rr, ss: dict(sig(rr, ss), pub=pub)
    cases = [
        ({"op": "ec_validate", "curve": c, "pub": good}, None),
        ({"op": "ec_validate", "curve": c, "pub": "04" + i2h(q.x, nb) + i2h((q.y + 1) % p, nb)}, "invalid_point"),
        ({"op": "ec_validate", "curve": c, "pub": good[:-2]}, "invalid_point"),          # wrong length
        ({"op": "ec_validate", "curve": c, "pub": "00"}, "invalid_point"),                # infinity
        ({"op": "ec_validate", "curve": c, "pub": "04" + "00" * 64}, "invalid_point"),    # (0, 0)
        ({"op": "ec_validate", "curve": c, "pub": "04" + i2h(q.x + p, 33)[2:] + i2h(q.y, nb)}, "invalid_point"),
        ({"op": "ec_validate", "curve": c, "pub": "04" + i2h(p, nb) + i2h(q.y, nb)}, "invalid_point"),  # x = p
        ({"op": "ec_validate", "curve": c, "pub": "03" + i2h(q.x, nb)}, "invalid_point"),  # compressed: unsupported
        ({"op": "ecdh", "curve": c, "key": i2h(5, nb), "pub": "04" + i2h(q.x, nb) + i2h(q.x, nb)}, "invalid_point"),
        ({"op": "ec_pubkey", "curve": c, "key": i2h(0, nb)}, "invalid_scalar"),
        ({"op": "ec_pubkey", "curve": c, "key": i2h(n, nb)}, "invalid_scalar"),
        ({"op": "ec_pubkey", "curve": c, "key": i2h(n + 1, nb)}, "invalid_scalar"),
        ({"op": "ec_pubkey", "curve": c, "key": "ff" * nb}, "invalid_scalar"),
        ({"op": "ec_pubkey", "curve": c, "key": i2h(1, nb - 1)}, "invalid_scalar"),      # wrong length
        ({"op": "ec_pubkey", "curve": c, "key": i2h(n - 1, nb)}, None),
        ({"op": "ec_pubkey", "curve": "secp999r1", "key": i2h(1, nb)}, "unknown_curve"),
        (sig(r, s), None),
        (sig(0, s), "bad_signature"), (sig(r, 0), "bad_signature"),
        (sig(n, s), "bad_signature"), (sig(r, n), "bad_signature"),
        (sig(r, s + 1 if s + 1 < n else s - 1), "bad_signature"),
        # verification validates the key itself (once), whatever the signature
        (bad_key(off_curve, r, s), "invalid_point"),
        (bad_key("04" + i2h(p, nb) + i2h(q.y, nb), r, s), "invalid_point"),
        (bad_key(off_curve, 0, s), "invalid_point"), (bad_key(off_curve, r, n), "invalid_point"),
        (bad_key(good[:-2], r, s), "invalid_point"),
        (der(good_der), None),
        (der(good_der[:-2]), "bad_encoding"),                        # truncated
        (der(good_der + "00"), "bad_encoding"),                      # trailing garbage
        (der("30" + i2h(len(good_der) // 2 - 1, 1) + good_der[4:] + "00"), "bad_encoding"),  # length lies
        (der("3006020100020100"), "bad_signature"),                  # r = s = 0, well-formed
        (der("3008020200010201" + "01"), "bad_encoding"),            # non-minimal INTEGER
        (der("30060201ff020101"), "bad_encoding"),                   # negative r
        (der("3081" + good_der[2:]), "bad_encoding"),                # long-form length
        (der("30" + "%02x" % (4 + 2 * 34) + "0222" + "01" * 34 + "0222" + "01" * 34), "bad_encoding"),  # oversized
        ({"op": "ecdsa_sign", "curve": c, "key": i2h(1, nb)}, "bad_input"),                 # neither msg nor hash
        ({"op": "ecdsa_sign", "curve": c, "key": i2h(1, nb), "msg": "00", "hash": "00"}, "bad_input"),
        ({"op": "ecdsa_sign", "curve": c, "key": i2h(1, nb), "msg": "00", "nonce": "zz"}, "bad_input"),
        ({"op": "x25519", "scalar": "00" * 31, "u": "09" + "00" * 31}, "bad_length"),
        ({"op": "x25519", "scalar": "01" * 32, "u": "00" * 32}, "infinity"),   # small-order u
    ]
    got = batch([q for q, _ in cases])
    for (q, want), g in zip(cases, got):
        assert g.get("error") == want, f"{q}: {g}"
    tally("ecc negative cases", len(cases))


def test_points_with_x_zero(batch, tally):
    """P-256's points (0, +-sqrt(b)) are valid keys, and every backend must take them (the engine's
    x-only ladder once refused them): ec_validate; ECDH against cryptography's; and a signature
    made from the verification equation (e = u1 s, r = x(u1 G + u2 Q) mod n, s = r / u2, with
    tests/p256_model.py), which cryptography verifies first, verifies, and with another hash not."""
    rng = random.Random(24)
    nb = 32
    reqs, want = [], []
    for _, y in p256.points_with_x_zero():
        pub = ec.EllipticCurvePublicNumbers(0, y, ec.SECP256R1()).public_key()
        pub_hex_ = "04" + i2h(0, nb) + i2h(y, nb)
        k = rng.randrange(1, p256.N)
        reqs += [{"op": "ec_validate", "curve": "secp256r1", "pub": pub_hex_},
                 {"op": "ecdh", "curve": "secp256r1", "key": i2h(k, nb), "pub": pub_hex_}]
        want += [{"valid": True}, {"shared": ec.derive_private_key(k, ec.SECP256R1()).exchange(ec.ECDH(), pub).hex()}]
        u1, u2 = rng.randrange(1, p256.N), rng.randrange(1, p256.N)
        r = p256.add(p256.times_g(u1), p256.mul(u2, (0, y)))[0] % p256.N
        s = r * pow(u2, -1, p256.N) % p256.N
        e = u1 * s % p256.N
        pub.verify(encode_dss_signature(r, s), e.to_bytes(32, "big"), ec.ECDSA(Prehashed(hashes.SHA256())))
        for h, w in ((e, {"valid": True}), ((e + 1) % p256.N, {"error": "bad_signature"})):
            reqs.append({"op": "ecdsa_verify", "curve": "secp256r1", "pub": pub_hex_, "hash": i2h(h, nb),
                         "r": i2h(r, nb), "s": i2h(s, nb)})
            want.append(w)
    for q, w, g in zip(reqs, want, batch(reqs)):
        assert "error" not in g or "error" in w, f"{q}: {g}"
        assert all(g.get(key) == v for key, v in w.items()), f"{q}: {g}"
    tally("ecc points with x = 0", len(reqs))


def test_hash_truncation_any_length(batch):
    """A hash longer than n is cut to its leftmost bits(n) bits (SEC 1 4.1.3 step 5)."""
    k = ec.derive_private_key(777, ec.SECP192R1())
    q = k.public_key().public_numbers()
    pub = "04" + i2h(q.x, 24) + i2h(q.y, 24)
    digest = hashlib.sha512(b"long hash").digest()
    got = batch([{"op": "ecdsa_sign", "curve": "secp192r1", "key": i2h(777, 24), "hash": digest.hex()}])[0]
    k.public_key().verify(bytes.fromhex(got["der"]), digest, ec.ECDSA(Prehashed(hashes.SHA512())))


# ---- modular arithmetic -------------------------------------------------------------------------

def _probable_prime(m, rng):
    """Miller-Rabin with 20 random bases."""
    if m < 4:
        return m in (2, 3)
    d, r = m - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for _ in range(20):
        x = pow(rng.randrange(2, m - 1), d, m)
        if x in (1, m - 1):
            continue
        for _ in range(r - 1):
            x = x * x % m
            if x == m - 1:
                break
        else:
            return False
    return True


def test_modular_ops_vs_python(batch, tally, seed, backend, budget):
    """Random odd moduli of every width. The engine inverts by Fermat, so on rtl mod_inv gets
    prime moduli (a composite one answers not_invertible there, a documented limit). The openssl
    backend has no such ops: not_supported, after the same checks of the modulus."""
    if backend == "openssl":
        got = batch([{"op": op, "m": "0b", "a": "03", "b": "05"} for op in ("mod_mul", "mod_add", "mod_sub")] +
                    [{"op": "mod_inv", "m": "0b", "a": "03"}, {"op": "mod_mul", "m": "10", "a": "01", "b": "01"}])
        assert [g.get("error") for g in got] == ["not_supported"] * 4 + ["bad_params"], got
        return
    rng = random.Random(f"{seed}-bn")
    reqs, want = [], []
    cases = budget(1000, 100)
    for i in range(cases):
        bits = rng.choice([2, 3, 31, 32, 33, 64, 127, 160, 161, 192, 224, 255, 256, rng.randrange(2, 257)])
        m = rng.randrange(2 ** (bits - 1), 2 ** bits) | 1
        if m < 3:
            m = 3
        nb = (m.bit_length() + 7) // 8
        a, b = rng.randrange(m), rng.randrange(m)
        if i % 50 == 0:
            a = m - 1
        for op, r in (("mod_mul", a * b % m), ("mod_add", (a + b) % m), ("mod_sub", (a - b) % m)):
            reqs.append({"op": op, "m": i2h(m, nb), "a": i2h(a, nb), "b": i2h(b, nb)})
            want.append(i2h(r, nb))
        import math
        if backend != "sw":
            while not _probable_prime(m, rng):
                m += 2
            nb = (m.bit_length() + 7) // 8
            a %= m
        reqs.append({"op": "mod_inv", "m": i2h(m, nb), "a": i2h(a, nb)})
        want.append(i2h(pow(a, -1, m), nb) if math.gcd(a, m) == 1 else "not_invertible")
    got = batch(reqs)
    for q, g, w in zip(reqs, got, want):
        assert g.get("r", g.get("error")) == w, f"seed {seed}: {q} -> {g}, want {w}"
    for op in ("mod_mul", "mod_add", "mod_sub", "mod_inv"):
        tally(f"{op} random vs python", cases)
    got = batch([{"op": "mod_mul", "m": "10", "a": "01", "b": "01"},
                 {"op": "mod_inv", "m": "0f", "a": "05"},
                 {"op": "mod_add", "m": "01" + "00" * 32, "a": "01", "b": "01"}])
    assert [g.get("error") for g in got] == ["bad_params", "not_invertible", "bad_params"]


def test_binary_curve_invalid_points(batch, tally):
    """Coordinates of 2^233 or more, points off the curve, and a point on K-233 outside the
    order-n subgroup: (0, 1) satisfies y^2 + xy = x^3 + 1 but has order 2."""
    k = ossl.Curve("sect233k1")
    G = k.mul(1)
    enc = lambda x, y: "04" + i2h(x, 30) + i2h(y, 30)
    cases = [
        ({"op": "ec_validate", "curve": "sect233k1", "pub": enc(*G)}, None),
        ({"op": "ec_validate", "curve": "sect233k1", "pub": enc(0, 1)}, "invalid_point"),
        ({"op": "ecdh", "curve": "sect233k1", "key": "01" * 29, "pub": enc(0, 1)}, "invalid_point"),
        ({"op": "ec_validate", "curve": "sect233k1", "pub": enc(G[0] | (1 << 233), G[1])}, "invalid_point"),
        ({"op": "ec_validate", "curve": "sect233k1", "pub": enc(G[0], G[1] ^ 1)}, "invalid_point"),
        ({"op": "ec_validate", "curve": "sect233r1", "pub": enc(*G)}, "invalid_point"),  # K-233's G on B-233
        ({"op": "ec_validate", "curve": "sect233r1", "pub": "00"}, "invalid_point"),
        ({"op": "ec_pubkey", "curve": "sect233k1", "key": i2h(k.n, 29)}, "invalid_scalar"),
        ({"op": "ec_pubkey", "curve": "sect233k1", "key": i2h(k.n - 1, 29)}, None),
    ]
    got = batch([q for q, _ in cases])
    for (q, want), g in zip(cases, got):
        assert g.get("error") == want, f"{q}: {g}"
    tally("ecc negative cases (binary curves)", len(cases))
