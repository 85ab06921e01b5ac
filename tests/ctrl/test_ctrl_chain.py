"""The ctrl engine's CHAIN_CHECK program (rtl/ctrl/programs/chain.s) on its Python model, against the
software stack's chain verification (sw/proto/x509.c se_x509_verify_chain, through `se batch`
x509_verify): the same verdict, and on success the same leaf key, for

  - every case of tests/proto/test_x509.py (chains of one to five certificates, each refusal);
  - chains made by the `openssl` command: a root, an intermediate with pathLen 0, leaves with
    subjectKeyIdentifier, authorityKeyIdentifier, subjectAltName, extendedKeyUsage, and one with a
    critical extension of its own (refused);
  - the clock at each edge of every certificate's validity;
  - random byte flips and truncations of the certificates of good chains.

The model's pk IP is the `cryptography` package's ECDSA, its SHA IP hashlib's."""
import datetime
import random
import sys

import pytest

import p256_model
from proto.pki import der
from proto.test_x509 import CASES, NOW, paths, w  # noqa: F401 (w: the certificates' fixture)
from se_cli import ROOT, run_batch
from test_ctrl_x509 import built, openssl_chain

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_asm as asm  # noqa: E402
import ctrl_model as model  # noqa: E402

UTC = datetime.timezone.utc
TOP = asm.load().equ["CHAIN_TOP"]
ERROR = {"OK": None, "CERT_MALFORMED": "cert_malformed", "CERT_UNSUPPORTED": "cert_unsupported",
         "CERT_EXPIRED": "cert_expired", "CERT_NOT_YET_VALID": "cert_not_yet_valid", "CERT_NAME": "cert_name_mismatch",
         "CERT_SIGNATURE": "cert_bad_signature", "CERT_CHAIN": "cert_chain", "CERT_UNKNOWN_CA": "cert_unknown_ca",
         "CERT_NOT_CA": "cert_not_ca", "CERT_KEY_USAGE": "cert_key_usage"}


def entries(certs):
    """TLS's certificate_list contents: each certificate after its 3-byte length."""
    return b"".join(len(c).to_bytes(3, "big") + c for c in certs)


def cert_body(certs):
    """A Certificate message's body (RFC 5246 7.4.2): certificate_list, its 3-byte length first."""
    lst = entries(certs)
    return len(lst).to_bytes(3, "big") + lst


def digits(t):
    """Unix seconds as 14 digits YYYYMMDDHHMMSS (the datetime module's calendar)."""
    return datetime.datetime.fromtimestamp(t, UTC).strftime("%Y%m%d%H%M%S").encode()


def parses(m, cert):
    m.load(0, cert)
    return m.run("X509_PARSE", {1: 0, 2: len(cert)}, budget=4 * len(cert) + 1000) == "OK"


def check(m, chain, anchors, now, name=None, table=False):
    """CHAIN_CHECK's verdict in the sw stack's words: {"ok": True, "pub": ...} or {"error": ...}. The
    anchors that do not parse are left out first, as the driver does (the sw stack passes them over).
    table: the first anchor's key's comb table goes into pk's cache entry 1 first (KEY_TABLE)."""
    anchors = [a for a in anchors if parses(m, a)]
    if table and anchors:
        assert parses(m, anchors[0]) and m.run("KEY_TABLE", {1: 1}) == "OK"
    lst, anc, nm = entries(chain), entries(anchors), (name or "").encode()
    at_anc = len(lst)
    at_now = at_anc + len(anc)
    at_name = at_now + 14
    if at_name + len(nm) > TOP:
        return None                 # past CHAIN_TOP: the driver leaves it to the software
    m.load(0, lst + anc + digits(now) + nm)
    regs = {1: 0, 2: at_anc, 3: at_anc, 4: at_now, 5: at_now, 6: at_name, 7: at_name + len(nm),
            8: int(name is not None)}
    st = m.run("CHAIN_CHECK", regs, budget=8 * (len(lst) + len(anc)) + 5000)
    assert st in ERROR, st
    if st != "OK":
        return {"error": ERROR[st]}
    return {"ok": True, "pub": "04" + m.out["PUB_X"].hex() + m.out["PUB_Y"].hex()}


def req(chain, anchors, now, name=None):
    r = {"op": "x509_verify", "chain": [c.hex() for c in chain], "anchors": [a.hex() for a in anchors], "now": now}
    if name is not None:
        r["name"] = name
    return r


def agree(cases):
    """cases: (chain, anchors, now, name) of DER certificates; asserts the model and the sw stack
    give the same answer for each that fits below CHAIN_TOP (at most one does not: the longest
    chain with its root), with pk's ladder for every signature and again with the first anchor's
    key's table made first (KEY_TABLE: pk's joint comb for the signatures that key made, which
    must have been taken). Returns the answers."""
    sw = run_batch([req(*c) for c in cases], "sw")
    for table in (False, True):
        m = model.Machine()
        too_large = 0
        for c, s in zip(cases, sw):
            got = check(m, *c, table=table)
            too_large += got is None
            assert got is None or got == s, ([x.hex() for x in c[0]], table, got, s)
        assert too_large <= 1, too_large
        combs = [r for r in m.pk.runs if r[:2] == ("ECDSA_VERIFY_COMB", 1) and r[2] != "BAD_SEQ"]
        assert bool(combs) == table, table
    return sw


def test_the_sw_stack_cases(w, tally):  # noqa: F811
    cases = [([der(p) for p in paths(w, chain)], [der(p) for p in paths(w, anchors)], NOW + (offset or 0), name)
             for _, chain, anchors, offset, name, _, _ in CASES]
    got = agree(cases)
    want = [error for _, _, _, _, _, error, _ in CASES]
    assert [g.get("error") for g in got] == want
    tally("ctrl chains", len(cases))


@pytest.fixture(scope="module")
def openssl_pki(tmp_path_factory):
    from cryptography import x509
    root, inter, leaf, odd = openssl_chain(tmp_path_factory.mktemp("ctrl-chain"))
    leaf = der(leaf)
    now = int(x509.load_der_x509_certificate(leaf).not_valid_before_utc.timestamp()) + 60   # (openssl's clock)
    return {"root": der(root), "inter": der(inter), "leaf": leaf, "odd": der(odd), "now": now}


def test_openssl_chains(openssl_pki, tally):
    """A leaf and an intermediate made by `openssl x509 -req`: accepted with its SAN names, the root
    sent along or not; refused for a name it does not carry, a critical extension it does not know,
    the intermediate missing, and with the intermediate as the leaf's issuer's anchor."""
    o = openssl_pki
    now = o["now"]
    cases = [([o["leaf"], o["inter"]], [o["root"]], now, "localhost"),
             ([o["leaf"], o["inter"]], [o["root"]], now, "NODE.example"),
             ([o["leaf"], o["inter"], o["root"]], [o["root"]], now, None),
             ([o["leaf"], o["inter"]], [o["root"]], now, "127.0.0.1"),       # an IP address is no dNSName
             ([o["leaf"], o["inter"]], [o["root"]], now, "leaf.example"),    # the CN, with a SAN there
             ([o["odd"], o["inter"]], [o["root"]], now, None),
             ([o["leaf"]], [o["root"]], now, None),
             ([o["leaf"]], [o["inter"]], now, None),
             ([o["inter"]], [o["root"]], now, None),                          # no digitalSignature
             ([o["leaf"], o["inter"]], [o["inter"], o["root"]], now, None)]
    got = agree(cases)
    assert [g.get("error") for g in got] == [None, None, None, "cert_name_mismatch", "cert_name_mismatch",
                                              "cert_unsupported", "cert_unknown_ca", None, "cert_key_usage", None]
    tally("ctrl chains (openssl)", len(cases))


def test_the_clock_at_every_edge(openssl_pki, tally):
    """now at each certificate's notBefore and notAfter, and a second either side: each certificate
    of the chain expires and begins on its own second, in the sw stack's order of checks."""
    from cryptography import x509
    o = openssl_pki
    times = set()
    for name in ("leaf", "inter", "root"):
        c = x509.load_der_x509_certificate(o[name])
        for t in (c.not_valid_before_utc, c.not_valid_after_utc):
            times |= {int(t.timestamp()) + d for d in (-1, 0, 1)}
    cases = [([o["leaf"], o["inter"]], [o["root"]], t, None) for t in sorted(times)]
    got = agree(cases)
    assert {g.get("error") for g in got} >= {None, "cert_expired", "cert_not_yet_valid"}
    tally("ctrl chains (clock)", len(cases))


def test_mutations(openssl_pki, w, tally):  # noqa: F811
    """Byte flips and truncations anywhere in the certificates of two good chains: whatever the
    damage (a Name that no longer links, a signature, a time, a length), the same verdict."""
    rng = random.Random(22)
    o = openssl_pki
    goods = [([o["leaf"], o["inter"]], [o["root"]], o["now"], "localhost"),
             ([der(p) for p in paths(w, ["leaf3", "inter"])], [der(p) for p in paths(w, ["root"])], NOW,
              "deep.example")]
    cases = []
    for _ in range(240):
        chain, anchors, now, name = rng.choice(goods)
        chain = list(chain)
        i = rng.randrange(len(chain))
        b = bytearray(chain[i])
        if rng.random() < 0.2:
            b = b[:rng.randrange(1, len(b))]
        else:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        chain[i] = bytes(b)
        cases.append((chain, anchors, now, name))
    got = agree(cases)
    errors = {g.get("error") for g in got}
    assert {"cert_malformed", "cert_bad_signature"} <= errors, errors
    tally("ctrl chains (mutated)", len(cases))


def test_inputs_below_the_top(w):  # noqa: F811
    """Inputs reaching CHAIN_TOP, spans that end before they begin, and badly framed entries are the
    caller's error (BAD_INPUT), not a verdict on the chain."""
    m = model.Machine()
    server, ca = der(paths(w, ["server"])[0]), der(paths(w, ["ca"])[0])
    lst, anc = entries([server]), entries([ca])
    m.load(0, lst + anc + digits(NOW))
    a, n = len(lst), len(lst) + len(anc)
    good = {1: 0, 2: a, 3: a, 4: n, 5: n, 6: 0, 7: 0, 8: 0}
    assert m.run("CHAIN_CHECK", good) == "OK"
    for k, v in ((2, TOP + 1), (1, a + 1), (4, TOP + 1), (3, n + 1), (5, TOP - 13), (7, TOP + 1), (6, 1)):
        assert m.run("CHAIN_CHECK", {**good, k: v}) == "BAD_INPUT", (k, v)
    for bad in (b"\x00\x00\x00", b"\x01" + lst[1:], lst[:-1]):
        m.load(0, bad)
        assert m.run("CHAIN_CHECK", {**good, 2: len(bad)}) == "BAD_INPUT", bad[:4].hex()


def test_the_engine_checks_as_the_sw_stack(openssl_pki, w, tmp_path, tally):  # noqa: F811
    """`se --backend rtl` x509_verify runs CHAIN_CHECK in the engine: the driver (sw/drivers/ctrl_drv.c)
    puts the entries, the anchors that parse, the time as digits and the name in the window. With
    `ctrl_only` (the program and no other way), the sw stack's answers for the openssl chains; for
    the clock a second either side of certificate times from 1950 to 9999 and far outside them (the
    driver's calendar against the stack's); for a malformed anchor, passed over. What the program
    cannot decide as the stack does is `too_large` there, and plain x509_verify then answers as the
    stack: a chain that ends with a copy of an anchor that does not parse (the stack drops one entry,
    not two) and an anchor longer than X509_PARSE takes."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ObjectIdentifier
    from proto.pki import make_cert
    o, ca = openssl_pki, w["ca"]
    reqs = [req([o["leaf"], o["inter"]], [o["root"]], o["now"], n) for n in ("localhost", "127.0.0.1", None)]
    reqs += [req([o["odd"], o["inter"]], [o["root"]], o["now"]), req([o["inter"]], [o["root"]], o["now"])]
    edges = [datetime.datetime(*t, tzinfo=UTC) for t in
             ((1950, 1, 1), (1999, 12, 31, 23, 59, 59), (2000, 2, 29, 12), (2049, 12, 31, 23, 59, 59),
              (2100, 3, 1), (2400, 2, 29, 23, 59, 59), (9999, 12, 31, 23, 59, 59))]
    anchor = der(ca[0])
    for before, after in zip(edges, edges[1:]):
        leaf = der(make_cert(tmp_path, f"t{before.year}", issuer_cert=ca[0], issuer_key=ca[1], cn="localhost",
                             not_before=before, not_after=after)[0])
        for t in (before, after):
            reqs += [req([leaf], [anchor], int(t.timestamp()) + d) for d in (-1, 0, 1)]
    server = der(paths(w, ["server"])[0])
    reqs += [req([server], [anchor], t) for t in (-2 ** 40, -1, 0, 2 ** 40)]
    junk = b"\x30\x03\x02\x01\x01"                   # a SEQUENCE that is no certificate
    reqs += [req([server], [junk, anchor], NOW), req([server, junk], [anchor], NOW)]
    ctrl = run_batch([dict(r, ctrl_only=True) for r in reqs], "rtl")
    sw = run_batch(reqs, "sw")
    for r, a, b in zip(reqs, ctrl, sw):
        assert a == b, (r["now"], r.get("name"), a, b)
    errors = [s.get("error") for s in sw]
    assert {None, "cert_expired", "cert_not_yet_valid", "cert_name_mismatch", "cert_unsupported",
            "cert_key_usage", "cert_malformed"} <= set(errors), errors
    assert errors[-2:] == [None, "cert_malformed"]

    # What the driver leaves to the stack
    leaf3, inter, root = (der(p) for p in paths(w, ["leaf3", "inter", "root"]))
    key = ec.generate_private_key(ec.SECP256R1())
    filler = x509.UnrecognizedExtension(ObjectIdentifier("1.3.6.1.4.1.55555.2"), bytes(7400))   # past REC
    big = built("a large root", "a large root", key, key, 7, ca=True, extensions=[(filler, False)])
    big_leaf = built("x", "a large root", ec.generate_private_key(ec.SECP256R1()), key, 8)
    now = datetime.datetime.now(UTC)
    left = [req([leaf3, inter, junk], [junk, inter], NOW), req([leaf3, inter, root, junk], [junk, root], NOW),
            req([big_leaf.public_bytes(serialization.Encoding.DER)], [big.public_bytes(serialization.Encoding.DER)],
                int(now.timestamp()))]
    assert run_batch([dict(r, ctrl_only=True) for r in left], "rtl") == [{"error": "too_large"}] * len(left)
    sw = run_batch(left, "sw")
    assert run_batch(left, "rtl") == sw
    assert [s.get("error") for s in sw] == ["cert_unknown_ca", None, None]
    assert run_batch([dict(reqs[0], ctrl_only=True)], "sw") == [{"error": "not_supported"}]
    tally("ctrl chains on the engine", len(reqs) + len(left))


def test_a_leaf_key_with_x_zero(tally):
    """A leaf whose key is P-256's (0, sqrt(b)) or (0, -sqrt(b)), valid points (pk's ladder once refused
    them): the sw stack, the controller's model and CHAIN_CHECK in the engine (`se --backend rtl`)
    all accept the chain and give that key."""
    import types
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    ca = ec.generate_private_key(ec.SECP256R1())
    anchor = built("x0 ca", "x0 ca", ca, ca, 1, ca=True).public_bytes(serialization.Encoding.DER)
    cases, want = [], []
    for _, y in p256_model.points_with_x_zero():
        pub = ec.EllipticCurvePublicNumbers(0, y, ec.SECP256R1()).public_key()
        leaf = built("localhost", "x0 ca", types.SimpleNamespace(public_key=lambda pub=pub: pub), ca, 2, ca=False)
        cases.append(([leaf.public_bytes(serialization.Encoding.DER)], [anchor],
                      int(datetime.datetime.now(UTC).timestamp()), "localhost"))
        want.append("04" + "00" * 32 + y.to_bytes(32, "big").hex())
    sw = agree(cases)
    assert [s.get("pub") for s in sw] == want, sw
    assert run_batch([dict(req(*c), ctrl_only=True) for c in cases], "rtl") == sw
    tally("ctrl chains with a leaf key x = 0", len(cases))


def test_key_table_takes_public_keys_only(openssl_pki):
    """KEY_TABLE r1 = 1 takes the key X509_PARSE's record names, and the bus may write that record:
    a key that reaches the secret top (where the client's key lies) or past the record is BAD_INPUT,
    and pk sees none of it; r1 past 2 is BAD_INPUT; the anchor's own key is tabled."""
    eq = asm.load().equ
    m = model.Machine()
    assert parses(m, openssl_pki["root"]) and m.run("KEY_TABLE", {1: 1}) == "OK"
    assert set(m.pk.tables) == {0, 1}
    m.load(eq["CK_AT"], bytes(range(1, 33)))
    for at in (eq["CK_AT"] - 63, model.isa.SECRET_BASE - 63, eq["REC"] - 63, 0xffe0):
        m.pk = model.Pk()
        m.load(eq["REC"] + eq["R_PUB"], at.to_bytes(2, "big"))
        assert m.run("KEY_TABLE", {1: 1}) == "BAD_INPUT", hex(at)
        assert m.pk.runs == [] and m.pk.tables == {0: model.P256_G}, hex(at)
    for which in (0, 3, 0xffff):
        assert m.run("KEY_TABLE", {1: which}) == "BAD_INPUT"
    # a key that ends at REC exactly (the last place X509_PARSE's input may reach) is taken
    g2 = model.mul(2, model.P256_G)
    m.pk = model.Pk()
    m.load(eq["REC"] - 64, g2[0].to_bytes(32, "big") + g2[1].to_bytes(32, "big"))
    m.load(eq["REC"] + eq["R_PUB"], (eq["REC"] - 64).to_bytes(2, "big"))
    assert m.run("KEY_TABLE", {1: 1}) == "OK" and m.pk.tables[1] == g2
