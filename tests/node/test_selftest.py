"""The node's self-test firmware (sw/apps/selftest) in each firmware config: every output line is
recomputed here with the `cryptography` package (hashes, MACs, AES modes, AEAD, ECDSA, ECDH,
X25519; ECDSA's RFC 6979 nonce by an independent implementation below) or, for the curves that
package lacks (secp160r1, sect233r1), with OpenSSL's libcrypto (tests/ossl.py). The simulator's
report must show the engine working in the sw+hw configs and idle in the sw ones. In the sw+hw
configs the prime curves are the engine's alone (se_ec_curve_engine, as the sensor makes P-256).

selftest.elf runs the whole set on the engine (sw+hw configs) but leaves the elliptic-curve lines,
the 256-bit AEAD keys and the modular inversion out of the software configs: one P-256
multiplication in software is ~150 M cycles, minutes of simulation. Each run is 22-38 M cycles at
~0.3 M cycles/s of CPU time, and the runs start together on first use (the cores run them side by
side). To keep tests/node within its budget sw-rv32i, the slowest (~120 s of CPU), runs only with
SE_NODE_SLOW=1; SE_NODE_FULL=1 adds selftest-full.elf in both sw configs: the whole set in
software, hours of simulation."""
import hashlib
import hmac
import json
import os
import re
import shutil
import subprocess

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, x25519
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, encode_dss_signature
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESGCM

import ossl

RUNS = [("sw-rv32im", "selftest"), ("sw+hw-rv32im", "selftest"), ("sw+hw-rv32i", "selftest"),
        ("sw+hw-rv32imc", "selftest")]
if os.environ.get("SE_NODE_SLOW") == "1":
    RUNS += [("sw-rv32i", "selftest")]
if os.environ.get("SE_NODE_FULL") == "1":
    RUNS += [("sw-rv32im", "selftest-full"), ("sw-rv32i", "selftest-full")]
FULL_RUN = 20_000_000_000   # cycle budget of selftest-full in software
MAX_CYCLES = 200_000_000    # selftest.elf: ~40 M cycles in every config; a hang still ends
TIMEOUT = 900               # seconds of wall time per run, all of them running at once

CRYPTO_CURVES = {"secp192r1": ec.SECP192R1(), "secp224r1": ec.SECP224R1(), "secp256r1": ec.SECP256R1()}
FIELD_BYTES = {"secp160r1": 20, "secp192r1": 24, "secp224r1": 28, "secp256r1": 32, "sect233r1": 30}

# The phases (simulator markers, also each line's "phase") in firmware order; FULL_ONLY runs where
# the start line says "full" (every sw+hw config; selftest-full.elf in the sw ones).
BASE_PHASES = ["sha256/0", "sha256/3", "sha256/64", "sha256/1000", "hmac/32", "hmac/80",
               "aes_ecb/128", "aes_ecb/256", "aes_cbc/128", "aes_cbc/256", "aes_ctr/128", "aes_ctr/256",
               "cbc_mac/128", "gcm/128", "ccm/128", "mod_mul/p256"]
FULL_ONLY = (["gcm/256", "ccm/256", "mod_inv/p256", "ec_curve/secp256r1", "ec_pubkey/secp256r1",
              "ecdsa_sign/secp256r1", "ecdsa_verify/secp256r1", "ec_pubkey2/secp256r1",
              # the begin/end halves, each with another operation in between; then a begun ECDH
              # cancelled, after which the driver has nothing to collect (hw only)
              "ec_keygen_split/secp256r1", "ecdh_split/secp256r1", "ecdsa_sign_split/secp256r1",
              "pk_cancel",
              # a remembered key (the engine: its comb table cached, the joint-comb verification)
              "ecdsa_remember_bad/secp256r1", "ecdsa_remember/secp256r1", "ecdsa_verify_other/secp256r1",
              "ecdsa_remember_own/secp256r1", "ecdsa_verify_remembered/secp256r1",
              "ecdsa_verify_bad/secp256r1", "ecdh/secp256r1"]
             + [f"{p}/{c}" for c in ("secp192r1", "secp224r1", "secp160r1", "sect233r1")
                for p in ("ec_curve", "ec_pubkey", "ecdh")]
             + ["x25519_base", "x25519"])

_pending = {}
_results = {}


def _launch(node, config, app):
    sim, elf = node.sim_path(node.arch_of(config)), node.elf_path(config, app)
    budget = FULL_RUN if app == "selftest-full" else MAX_CYCLES
    _pending[config, app] = node.start(sim, elf, ["--max-cycles", budget, "--seed", 1])


def _start_all(node, session):
    """Starts, once per session, every run that a selected test uses and that is built, so they
    run side by side."""
    if _pending or _results:
        return
    wanted = {item.callspec.params["st"] for item in session.items
              if hasattr(item, "callspec") and "st" in item.callspec.params}
    for config, app in RUNS:
        if (config, app) in wanted and node.sim_path(node.arch_of(config)).exists() \
                and node.elf_path(config, app).exists():
            _launch(node, config, app)


class Selftest:
    """One run: the Run, the start line, the op lines and the final "done" line."""

    def __init__(self, config, app, run):
        self.config, self.app, self.run, self.report = config, app, run, run.report
        self.start, self.ops, self.skips, self.done = None, [], [], None
        for line in run.stdout.splitlines():
            obj = json.loads(line)  # every UART line is one JSON object
            if obj.get("op") == "start":
                self.start = obj
            elif obj.get("op") == "skip":
                self.skips.append(obj)
            elif "done" in obj:
                self.done = obj
            else:
                self.ops.append(obj)
        self.hw = config.startswith("sw+hw")

    def of(self, op):
        return [o for o in self.ops if o["op"] == op]

    def phase(self, name):
        return self.report["phase_totals"][name]


@pytest.fixture(params=RUNS, ids=[f"{c}/{a}" for c, a in RUNS])
def st(request, node):
    config, app = request.param
    node.require(config, app)
    _start_all(node, request.session)
    if request.param not in _results:
        if request.param not in _pending:
            _launch(node, config, app)
        timeout = 36 * 3600 if app == "selftest-full" else TIMEOUT
        try:
            _results[request.param] = Selftest(config, app, _pending.pop(request.param)(timeout))
        except AssertionError as e:  # a hang: every test of this run fails, without a rerun
            _results[request.param] = e
    if isinstance(_results[request.param], Exception):
        pytest.fail(str(_results[request.param]))
    return _results[request.param]


def _needs_ecc(st):
    if not st.start["full"]:
        pytest.skip(f"{st.config}/{st.app}.elf has no ECC lines (software ECC is too slow to simulate "
                    "in the test budget; SE_NODE_FULL=1 runs selftest-full.elf)")


def _expected_phases(st):
    full = [p for p in FULL_ONLY if st.hw or p != "pk_cancel"] if st.start["full"] else []
    return (["probe"] if st.hw else []) + BASE_PHASES + full


def test_run_completes(st):
    r = st.run
    assert r.returncode == 0, r
    assert st.report["reason"] == "exit" and st.report["exit_code"] == 0, st.report
    assert st.start["backend"] == ("hw" if st.hw else "sw") and st.start["arch"] == st.config.split("-")[-1]
    # selftest.elf leaves the slow part out in the sw configs only, and says so
    assert st.start["full"] is (st.hw or st.app == "selftest-full")
    assert bool(st.skips) == (not st.start["full"])
    assert [o["phase"] for o in st.ops] == _expected_phases(st)
    assert st.done["done"] == len(st.ops) and st.done["failed"] == 0, st.done
    assert 0 < st.done["stack_peak"] < st.done["stack_size"], "stack watermark out of range"
    # the HAL's cycle counter and TRNG: the firmware's count ends just before the simulator's
    assert 0 < st.report["cycles"] - int(st.done["cycles"], 16) < 100_000, (st.done, st.report["cycles"])
    t = st.start["trng"]
    assert len(t) == 16 and t[:8] != t[8:] and int(t, 16) != 0, t
    refused = ("ecdsa_verify_bad", "ecdsa_remember_bad", "pk_cancel")  # checked by name below
    assert all(o["status"] == "ok" for o in st.ops if not o["phase"].startswith(refused)), \
        [o for o in st.ops if o["status"] != "ok"]
    # the operation run between a begin and its end went through too
    assert all(o["between"] == "ok" for o in st.ops if "between" in o), [o for o in st.ops if "between" in o]
    assert [(o["begin"], o["status"]) for o in st.of("pk_collect")] == \
        ([("ok", "bad_input")] if st.hw and st.start["full"] else [])
    # every phase in the report comes from a marker of the firmware, each once
    totals = st.report["phase_totals"]
    assert set(totals) == set(_expected_phases(st)) and all(t["count"] == 1 for t in totals.values())


def test_hashes(st):
    for o in st.of("sha256"):
        assert o["digest"] == hashlib.sha256(bytes.fromhex(o["msg"])).hexdigest(), o["phase"]
    for o in st.of("hmac_sha256"):
        want = hmac.new(bytes.fromhex(o["key"]), bytes.fromhex(o["msg"]), hashlib.sha256).hexdigest()
        assert o["mac"] == want, o["phase"]
    assert sorted(len(o["msg"]) // 2 for o in st.of("sha256")) == [0, 3, 64, 1000]
    assert sorted(len(o["key"]) // 2 for o in st.of("hmac_sha256")) == [32, 80]


def test_aes_modes(st):
    seen = set()
    for o in st.of("aes"):
        key, pt = bytes.fromhex(o["key"]), bytes.fromhex(o["pt"])
        mode = {"ecb": lambda: modes.ECB(), "cbc": lambda: modes.CBC(bytes.fromhex(o["iv"])),
                "ctr": lambda: modes.CTR(bytes.fromhex(o["iv"]))}[o["mode"]]()
        enc = Cipher(algorithms.AES(key), mode).encryptor()
        assert o["ct"] == (enc.update(pt) + enc.finalize()).hex(), o["phase"]
        assert o["dec_status"] == "ok" and o["rt_ok"] is True, o
        seen.add((o["mode"], 8 * len(key)))
    assert seen == {(m, k) for m in ("ecb", "cbc", "ctr") for k in (128, 256)}
    (mac,) = st.of("cbc_mac")
    enc = Cipher(algorithms.AES(bytes.fromhex(mac["key"])), modes.CBC(bytes(16))).encryptor()
    assert mac["mac"] == (enc.update(bytes.fromhex(mac["msg"])) + enc.finalize())[-16:].hex()


def test_aead(st):
    seen = set()
    for o in st.of("aead"):
        key, nonce, aad, pt = (bytes.fromhex(o[k]) for k in ("key", "nonce", "aad", "pt"))
        tag_len = len(o["tag"]) // 2
        if o["mode"] == "gcm":
            out = AESGCM(key).encrypt(nonce, pt, aad or None)  # 16-byte tag; shorter ones truncate it
            ct, tag = out[:len(pt)], out[len(pt):][:tag_len]
        else:
            out = AESCCM(key, tag_length=tag_len).encrypt(nonce, pt, aad or None)
            ct, tag = out[:len(pt)], out[len(pt):]
        assert (o["ct"], o["tag"]) == (ct.hex(), tag.hex()), o["phase"]
        assert o["dec_status"] == "ok" and o["rt_ok"] is True, o
        assert o["tampered_status"] == "bad_tag", o
        assert o["key_status"] == "ok" and o["wiped"] is True, o  # aead_wipe leaves no key byte behind
        seen.add((o["mode"], 8 * len(key)))
    assert seen == {(m, k) for m in ("gcm", "ccm") for k in ((128, 256) if st.start["full"] else (128,))}


def test_mod(st):
    for o in st.of("mod"):
        m, a = int(o["m"], 16), int(o["a"], 16)
        want = a * int(o["b"], 16) % m if o["kind"] == "mul" else pow(a, -1, m)
        assert int(o["r"], 16) == want, o


# ---- elliptic curves ----------------------------------------------------------------------------

def _point(pub_hex, curve):
    fb = FIELD_BYTES[curve]
    b = bytes.fromhex(pub_hex)
    assert len(b) == 1 + 2 * fb and b[0] == 4
    return int.from_bytes(b[1:1 + fb], "big"), int.from_bytes(b[1 + fb:], "big")


def _encode(p, curve):
    fb = FIELD_BYTES[curve]
    return "04" + p[0].to_bytes(fb, "big").hex() + p[1].to_bytes(fb, "big").hex()


def _ref_mul(curve, k, q=None):
    """k * G (q None) or k * Q on curve, by cryptography or by OpenSSL's libcrypto."""
    if curve in CRYPTO_CURVES:
        cv = CRYPTO_CURVES[curve]
        if q is None:
            pn = ec.derive_private_key(k, cv).public_key().public_numbers()
            return pn.x, pn.y
        peer = ec.EllipticCurvePublicNumbers(q[0], q[1], cv).public_key()
        shared = ec.derive_private_key(k, cv).exchange(ec.ECDH(), peer)
        return int.from_bytes(shared, "big"), None  # ECDH gives x only
    ref = ossl.Curve(curve)
    return ref.mul(k) if q is None else ref.mul(0, q, k)


P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551  # FIPS 186-4 D.1.2.3


def _order(curve):
    return P256_N if curve == "secp256r1" else ossl.Curve(curve).n


def test_ec_pubkeys_and_ecdh(st):
    _needs_ecc(st)
    pubs = st.of("ec_pubkey")
    for o in pubs:
        assert o["pub"] == _encode(_ref_mul(o["curve"], int(o["key"], 16)), o["curve"]), o["phase"]
    for o in st.of("ecdh"):
        curve = o["curve"]
        x, _ = _ref_mul(curve, int(o["key"], 16), _point(o["pub"], curve))
        assert o["shared"] == x.to_bytes(FIELD_BYTES[curve], "big").hex(), o["phase"]
    curves = {o["curve"] for o in st.of("ecdh")}
    want = {"secp256r1", "secp192r1", "secp224r1", "secp160r1", "sect233r1"}
    assert curves == want and {o["curve"] for o in pubs} == want


def rfc6979_k(x, h1, q):
    """RFC 6979 section 3.2 with HMAC-SHA256: the nonce for private key x and hash h1."""
    qlen, rolen = q.bit_length(), (q.bit_length() + 7) // 8

    def bits2int(b):
        v = int.from_bytes(b, "big")
        return v >> (8 * len(b) - qlen) if 8 * len(b) > qlen else v

    def mac(k, d):
        return hmac.new(k, d, hashlib.sha256).digest()

    xo, ho = x.to_bytes(rolen, "big"), (bits2int(h1) % q).to_bytes(rolen, "big")
    v, k = b"\x01" * 32, b"\x00" * 32
    k = mac(k, v + b"\x00" + xo + ho)
    v = mac(k, v)
    k = mac(k, v + b"\x01" + xo + ho)
    v = mac(k, v)
    while True:
        t = b""
        while 8 * len(t) < qlen:
            v = mac(k, v)
            t += v
        cand = bits2int(t)
        if 1 <= cand < q:
            return cand
        k = mac(k, v + b"\x00")
        v = mac(k, v)


def test_ecdsa(st):
    _needs_ecc(st)
    signs = st.of("ecdsa_sign")  # the one-call form, then the begin/end halves
    assert [o["phase"] for o in signs] == ["ecdsa_sign/secp256r1", "ecdsa_sign_split/secp256r1"]
    assert hashlib.sha256(bytes.fromhex(signs[0]["msg"])).digest() == bytes.fromhex(signs[0]["hash"])
    for sign in signs:
        curve = sign["curve"]
        cv, n, nb = CRYPTO_CURVES[curve], _order(curve), FIELD_BYTES[curve]
        d, h = int(sign["key"], 16), bytes.fromhex(sign["hash"])
        r, s = int(sign["sig"][:2 * nb], 16), int(sign["sig"][2 * nb:], 16)
        # a valid signature for cryptography ...
        key = ec.derive_private_key(d, cv)
        key.public_key().verify(encode_dss_signature(r, s), h, ec.ECDSA(Prehashed(hashes.SHA256())))
        # ... and exactly the deterministic one (RFC 6979, computed here independently)
        k = rfc6979_k(d, h, n)
        e = int.from_bytes(h, "big") % n
        want_r = _ref_mul(curve, k)[0] % n
        assert (r, s) == (want_r, pow(k, -1, n) * (e + want_r * d) % n), ("not the RFC 6979 signature", sign["phase"])
    # the ECDH run between the split signature's begin and end
    mid = signs[1]
    x, _ = _ref_mul(mid["curve"], int(mid["between_key"], 16), _point(mid["between_pub"], mid["curve"]))
    assert mid["between_shared"] == x.to_bytes(FIELD_BYTES[mid["curve"]], "big").hex()
    verifies = st.of("ecdsa_verify")
    assert [o["phase"] for o in verifies] == ["ecdsa_verify/secp256r1", "ecdsa_verify_other/secp256r1",
                                              "ecdsa_verify_remembered/secp256r1", "ecdsa_verify_bad/secp256r1"]
    for o in verifies:
        pub = ec.EllipticCurvePublicNumbers(*_point(o["pub"], curve), cv).public_key()
        rr, ss = int(o["sig"][:2 * nb], 16), int(o["sig"][2 * nb:], 16)
        try:
            pub.verify(encode_dss_signature(rr, ss), bytes.fromhex(o["hash"]), ec.ECDSA(Prehashed(hashes.SHA256())))
            want = "ok"
        except InvalidSignature:
            want = "bad_signature"
        assert o["status"] == want, o["phase"]
    assert [o["status"] for o in verifies] == ["ok", "ok", "ok", "bad_signature"]
    # remembering a key: refused by name when cryptography refuses the point
    remembers = st.of("ecdsa_remember")
    assert len(remembers) == 3
    for o in remembers:
        try:
            ec.EllipticCurvePublicKey.from_encoded_point(CRYPTO_CURVES[o["curve"]], bytes.fromhex(o["pub"]))
            want = "ok"
        except ValueError:
            want = "invalid_point"
        assert o["status"] == want, o["phase"]
    assert [o["status"] for o in remembers] == ["invalid_point", "ok", "ok"]
    if st.hw:  # the remembered key's verification took the joint comb over both cached tables
        plain, joint = st.phase("ecdsa_verify/secp256r1"), st.phase("ecdsa_verify_remembered/secp256r1")
        assert joint["engine_busy_cycles"]["pk"] < plain["engine_busy_cycles"]["pk"] * 0.85, (plain, joint)


def test_x25519(st):
    _needs_ecc(st)
    outs = st.of("x25519")
    assert len(outs) == 2 and outs[0]["u"] == "09" + "00" * 31 and outs[1]["u"] == outs[0]["out"]
    for o in outs:
        priv = x25519.X25519PrivateKey.from_private_bytes(bytes.fromhex(o["scalar"]))
        want = priv.exchange(x25519.X25519PublicKey.from_public_bytes(bytes.fromhex(o["u"])))
        assert o["out"] == want.hex(), o["phase"]


# ---- engine use, from the simulator's report ----------------------------------------------------

def _engine_block(phase):
    """The engine block a phase's operation runs on in the sw+hw configs."""
    if phase.startswith(("sha256", "hmac")):
        return "sha"
    if phase.startswith(("aes", "cbc_mac", "gcm", "ccm")):
        return "aes"
    if phase.endswith("sect233r1"):
        return "gf2m"
    return "pk"


def test_engine_use(st, node):
    busy = st.report["engine_busy_cycles"]
    if not st.hw:
        assert busy == {"aes": 0, "sha": 0, "pk": 0, "gf2m": 0, "dma": 0, "ctrl": 0}, "the sw config touched the engine"
        # nor is any driver linked in
        nm = shutil.which("riscv64-unknown-elf-nm")
        if nm:
            syms = subprocess.run([nm, str(node.elf_path(st.config, st.app))], capture_output=True,
                                  text=True, check=True).stdout
            assert not re.search(r" se_(drv|hal)_", syms), "engine drivers linked into a sw image"
        return
    assert busy["pk"] > 0 and busy["gf2m"] > 0 and busy["aes"] > 0 and busy["sha"] > 0, busy
    for name in _expected_phases(st):
        if name.startswith(("probe", "ec_curve")):
            continue  # register reads and a software curve set-up: no engine command
        block = _engine_block(name)
        assert st.phase(name)["engine_busy_cycles"][block] > 0, f"{name} did not run on the {block} block"
    # the CPU sleeps in waitirq while the pk block runs a long program
    assert st.phase("ecdsa_sign/secp256r1")["cpu_sleep_cycles"] > 0
