"""The pk microcode on its Python model (rtl/pk/model.py's Machine, through ucode): every program
against the `cryptography` package and the SEC 1 model of test_pk_core, in a second. The RTL runs the same
ROM (test_pk_core), so a formula bug shows up here first and with a readable trace."""
import random
import sys

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, x25519
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, decode_dss_signature

from rtlsim import ROOT
from test_pk_core import CRYPTO, CURVES, ref_add, ref_mul

sys.path.insert(0, str(ROOT / "rtl" / "pk"))
import ucode  # noqa: E402

S, ST = ucode.S, ucode.STATUS


def load(m, c):
    p, a, b, gx, gy, n = c
    for name, v in (("P", p), ("N", n), ("A", a % p), ("B", b), ("GX", gx), ("GY", gy)):
        m.write(S[name], v)
    for prog in ("FIELD", "ORDER", "CURVE"):
        assert m.run(prog) == ST["OK"], prog


def test_programs_on_every_curve():
    rng = random.Random(1123)
    for name, c in CURVES.items():
        m = ucode.Machine()
        load(m, c)
        p, n, G = c[0], c[5], (c[3], c[4])
        L = ucode.DW * -(-n.bit_length() // ucode.DW)
        Q = ref_mul(c, rng.randrange(1, n), G)
        for e in (0, 2):                                 # (entry 0 is G's for every comb program)
            m.write(S["QX"], G[0])
            m.write(S["QY"], G[1])
            assert m.run("PRECOMP", entry=e) == ST["OK"]
        for k in [0, 1, 2, n - 1, n, n + 1, (1 << L) - 1] + [rng.randrange(n) for _ in range(3)]:
            want = ref_mul(c, k % n, G)
            for prog, point in (("ECSM_G", None), ("ECSM", Q), ("ECSM_COMB", None)):
                m.write(S["K"], k)
                if point:
                    m.write(S["QX"], point[0])
                    m.write(S["QY"], point[1])
                st = m.run(prog, entry=2)
                ref = want if point is None else ref_mul(c, k % n, Q)
                got = None if st == ST["INFINITY"] else (m.slots[S["RX"]], m.slots[S["RY"]])
                assert got == ref, (name, prog, k, st)
        if name in CRYPTO:  # a signature the cryptography package accepts is checked by ECDSA_VERIFY
            d, k, e = rng.randrange(1, n), rng.randrange(1, n), rng.randrange(n)
            for s_, v in (("K", k), ("D", d), ("E", e)):
                m.write(S[s_], v)
            assert m.run("ECDSA_SIGN", entry=2) == ST["OK"]
            r, s = m.slots[S["RX"]], m.slots[S["RY"]]
            R = ec.derive_private_key(k, CRYPTO[name]).public_key().public_numbers()
            assert r == R.x % n and s == pow(k, -1, n) * (e + r * d) % n
            D = ec.derive_private_key(d, CRYPTO[name]).public_key().public_numbers()
            for ee, want in ((e, ST["OK"]), (e ^ 1, ST["VERIFY_FAIL"])):
                for s_, v in (("QX", D.x), ("QY", D.y), ("E", ee), ("RX", r), ("RY", s)):
                    m.write(S[s_], v)
                assert m.run("ECDSA_VERIFY", entry=2) == want
            # e = 0: u1 = 0, so the comb's u1 G is O; a signature over an all-zero digest that the
            # cryptography package makes must still verify
            nb = (n.bit_length() + 7) // 8
            algo = {20: hashes.SHA1(), 24: hashes.SHA224(), 28: hashes.SHA224(), 32: hashes.SHA256()}[nb]
            der = ec.derive_private_key(d, CRYPTO[name]).sign(bytes(algo.digest_size), ec.ECDSA(Prehashed(algo)))
            r0, s0 = decode_dss_signature(der)
            for ee, want in ((0, ST["OK"]), (1, ST["VERIFY_FAIL"])):
                for s_, v in (("QX", D.x), ("QY", D.y), ("E", ee), ("RX", r0), ("RY", s0)):
                    m.write(S[s_], v)
                assert m.run("ECDSA_VERIFY", entry=2) == want
            # the joint comb over G's table (entry 0) and the key's (entry 3): the same verdicts
            for e_, pt in ((0, G), (3, (D.x, D.y))):
                m.write(S["QX"], pt[0])
                m.write(S["QY"], pt[1])
                assert m.run("PRECOMP", entry=e_) == ST["OK"]
            for ee, rr, ss, want in ((e, r, s, "OK"), (e ^ 1, r, s, "VERIFY_FAIL"), (0, r0, s0, "OK"),
                                     (1, r0, s0, "VERIFY_FAIL"), (e, 0, s, "VERIFY_FAIL"),
                                     (e, r, n, "VERIFY_FAIL")):
                for s_, v in (("QX", D.x), ("QY", D.y), ("E", ee), ("RX", rr), ("RY", ss)):
                    m.write(S[s_], v)
                assert m.run("ECDSA_VERIFY_COMB", entry=3) == ST[want], (name, ee, want)
            for s_, v in (("QX", D.x), ("QY", D.y), ("E", e), ("RX", r), ("RY", s)):
                m.write(S[s_], v)
            assert m.run("ECDSA_VERIFY_COMB", entry=2) == ST["BAD_SEQ"]  # entry 2 holds G, not Q
        P = ref_mul(c, rng.randrange(1, n), G)
        for A, B in ((P, Q), (P, P), (P, (P[0], p - P[1]))):
            for s_, v in (("QX", A[0]), ("QY", A[1]), ("RX", B[0]), ("RY", B[1])):
                m.write(S[s_], v)
            st = m.run("PADD")
            got = None if st == ST["INFINITY"] else (m.slots[S["RX"]], m.slots[S["RY"]])
            assert got == ref_add(c, A, B)


def test_sequences_and_cache_rules():
    c = CURVES["secp192r1"]
    m = ucode.Machine()
    assert m.run("ECSM_G") == ST["BAD_SEQ"]
    load(m, c)
    assert m.run("CURVE") == ST["BAD_PARAMS"]   # a second CURVE finds A, B, G converted already
    assert m.run("ECSM_G") == ST["BAD_SEQ"]     # ... and leaves no curve loaded
    load(m, c)
    assert m.run("ECSM_COMB", entry=1) == ST["BAD_SEQ"]  # nothing cached there
    assert m.run("ECDSA_VERIFY", entry=1) == ST["BAD_SEQ"]  # its u1 G needs G's table there
    m.write(S["QX"], c[3])
    m.write(S["QY"], c[4])
    assert m.run("PRECOMP", entry=2) == ST["OK"]
    assert m.run("ECDSA_VERIFY_COMB", entry=2) == ST["BAD_SEQ"]  # G's table must be in entry 0
    m.write(S["QX"], c[3])
    m.write(S["QY"], c[4])
    assert m.run("PRECOMP", entry=6) == ST["BAD_SEQ"]    # entries are 0..5
    assert m.run("PRECOMP", entry=1) == ST["OK"]
    # a table of another point where G's must be: sign and verify refuse it, whatever else
    # holds; with G's table in the entry they run (the sign is checked in test_ecdsa)
    Q = ref_mul(c, 2, (c[3], c[4]))
    m.write(S["QX"], Q[0])
    m.write(S["QY"], Q[1])
    assert m.run("PRECOMP", entry=3) == ST["OK"]
    for s_, v in (("K", 7), ("D", 11), ("E", 13)):
        m.write(S[s_], v)
    assert m.run("ECDSA_SIGN", entry=3) == ST["BAD_SEQ"]
    assert m.run("ECDSA_SIGN", entry=1) == ST["OK"]
    for s_, v in (("QX", Q[0]), ("QY", Q[1]), ("E", 13), ("RX", 1), ("RY", 1)):
        m.write(S[s_], v)
    assert m.run("ECDSA_VERIFY", entry=3) == ST["BAD_SEQ"]
    assert m.run("ECDSA_VERIFY", entry=1) == ST["VERIFY_FAIL"]
    # the joint comb takes G's table from entry 0: with Q's there (and in entry 3), a signature
    # forged from t (r = x(t Q), s = (e + r) / t: u1 Q + u2 Q = t Q) must not pass; it is BAD_SEQ
    n = c[5]
    t_ = 5
    r_ = ref_mul(c, t_, Q)[0] % n
    s_ = (13 + r_) * pow(t_, -1, n) % n
    m.write(S["QX"], Q[0])
    m.write(S["QY"], Q[1])
    assert m.run("PRECOMP", entry=0) == ST["OK"]
    for k_, v in (("QX", Q[0]), ("QY", Q[1]), ("E", 13), ("RX", r_), ("RY", s_)):
        m.write(S[k_], v)
    assert m.run("ECDSA_VERIFY_COMB", entry=3) == ST["BAD_SEQ"]
    m.write(S["K"], 5)                                    # nor k G on any entry: "k G" of entry 0
    assert m.run("ECSM_COMB", entry=0) == ST["BAD_SEQ"]   # would be k Q, a key exchange's secret
    assert m.run("ECSM_COMB", entry=1) == ST["BAD_SEQ"]
    m.write(S["QX"], c[3])
    m.write(S["QY"], c[4])
    assert m.run("PRECOMP", entry=0) == ST["OK"]
    m.write(S["K"], 5)
    assert m.run("ECSM_COMB", entry=3) == ST["OK"]        # G's again: k P for the P of any entry
    assert (m.slots[S["RX"]], m.slots[S["RY"]]) == ref_mul(c, 5, Q)
    m.write(S["A"], c[1] % c[0])                          # a new curve empties the cache
    load(m, c)
    assert m.run("ECSM_COMB", entry=1) == ST["BAD_SEQ"]


def test_x25519_and_inversion():
    rng = random.Random(5)
    m = ucode.Machine()
    m.write(S["P"], 2**255 - 19)
    assert m.run("FIELD") == ST["OK"]
    for _ in range(3):
        kb, ub = rng.randbytes(32), rng.randbytes(32)
        m.write(S["K"], int.from_bytes(kb, "little") & ~7 & ~(1 << 255) | (1 << 254))
        m.write(S["QX"], int.from_bytes(ub, "little") & ((1 << 255) - 1))
        assert m.run("X25519") == ST["OK"]
        want = x25519.X25519PrivateKey.from_private_bytes(kb).exchange(x25519.X25519PublicKey.from_public_bytes(ub))
        assert m.slots[S["RX"]].to_bytes(32, "little") == want
        x = rng.randrange(2**255 - 19)
        m.write(S["K"], x)
        assert m.run("MODINV_P") == ST["OK"] and m.slots[S["RX"]] == pow(x, -1, 2**255 - 19)


def test_points_with_x_zero_and_the_origin():
    """The points (0, +-sqrt(b)) of P-256, P-192 and secp160r1 (b a square there; p = 3 mod 4) are
    valid points, which VALIDATE, PRECOMP and ECSM take as any other (ECSM against the SEC 1 model,
    and its x against cryptography's ECDH where it has the curve; test_pk_core.py checks the
    verifications with such a key, on the RTL). (0, 0), pk's O, is refused
    on a curve with b = 0, where it lies on the curve (y^2 = x^3 + x over P-256's field)."""
    rng = random.Random(24)
    for name in ("secp256r1", "secp192r1", "secp160r1"):
        c = CURVES[name]
        p, b, n = c[0], c[2], c[5]
        y0 = pow(b, (p + 1) // 4, p)
        assert p % 4 == 3 and y0 * y0 % p == b
        m = ucode.Machine()
        load(m, c)
        for Q in ((0, y0), (0, p - y0)):
            m.write(S["QX"], Q[0])
            m.write(S["QY"], Q[1])
            assert m.run("VALIDATE") == ST["OK"], (name, Q)
            assert m.run("PRECOMP", entry=1) == ST["OK"], (name, Q)
            for k in (1, 2, n - 1, n, rng.randrange(1, n)):
                want = ref_mul(c, k % n, Q)
                m.write(S["K"], k)
                m.write(S["QX"], Q[0])
                m.write(S["QY"], Q[1])
                st = m.run("ECSM")
                got = None if st == ST["INFINITY"] else (m.slots[S["RX"]], m.slots[S["RY"]])
                assert got == want, (name, k, st)
                if name in CRYPTO and want is not None:
                    pub = ec.EllipticCurvePublicNumbers(Q[0], Q[1], CRYPTO[name]).public_key()
                    shared = ec.derive_private_key(k % n, CRYPTO[name]).exchange(ec.ECDH(), pub)
                    assert want[0] == int.from_bytes(shared, "big")
    p = CURVES["secp256r1"][0]
    x = next(x for x in range(2, 100) if pow((x ** 3 + x) % p, (p - 1) // 2, p) == 1)
    g = (x, pow((x ** 3 + x) % p, (p + 1) // 4, p))
    m = ucode.Machine()
    load(m, (p, 1, 0, g[0], g[1], CURVES["secp256r1"][5]))  # (n is not this curve's order: VALIDATE does not use it)
    for point, want in ((g, "OK"), ((0, 0), "BAD_POINT"), ((0, 1), "BAD_POINT")):
        m.write(S["QX"], point[0])
        m.write(S["QY"], point[1])
        assert m.run("VALIDATE") == ST[want], (point, want)
