"""X.509 parsing and chain verification (sw/proto/x509.c through `se batch` x509_parse/x509_verify),
against certificates made by the `cryptography` package and verdicts of `openssl verify`."""
import datetime
import random
import subprocess
import time

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.x509.oid import ObjectIdentifier

from se_cli import run_batch
from proto.pki import der, make_cert, make_pki

UTC = datetime.timezone.utc
NOW = int(time.time())


def pub_bytes(cert_path):
    cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    return cert.public_key().public_bytes(serialization.Encoding.X962,
                                          serialization.PublicFormat.UncompressedPoint).hex()


def verify_req(chain, anchors, now=NOW, name=None):
    req = {"op": "x509_verify", "chain": [der(p).hex() for p in chain],
           "anchors": [der(p).hex() for p in anchors], "now": now}
    if name is not None:
        req["name"] = name
    return req


def openssl_ok(chain, anchors, now=NOW, name=None, tmp=None):
    """openssl verify's verdict on the same chain (intermediates as -untrusted)."""
    cafile = tmp / "anchors.pem"
    cafile.write_bytes(b"".join(p.read_bytes() for p in anchors))
    cmd = ["openssl", "verify", "-x509_strict", "-attime", str(now), "-CAfile", str(cafile)]
    if len(chain) > 1:
        untrusted = tmp / "untrusted.pem"
        untrusted.write_bytes(b"".join(p.read_bytes() for p in chain[1:]))
        cmd += ["-untrusted", str(untrusted)]
    if name is not None:
        cmd += ["-verify_hostname", name]
    return subprocess.run(cmd + [str(chain[0])], capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def w(tmp_path_factory):
    """Every certificate the cases below use, made once."""
    d = tmp_path_factory.mktemp("x509")
    pki = make_pki(d, clients=("node-1",))
    ca = (pki.ca_pem, pki.ca_key)
    mk = lambda stem, issuer=ca, **kw: make_cert(d, stem, issuer_cert=issuer[0], issuer_key=issuer[1], **kw)
    c = {"pki": pki, "dir": d, "ca": ca, "server": (pki.server_pem, pki.server_key)}
    # a three-level hierarchy: root -> inter (pathLen 0) -> leaf
    c["root"] = make_cert(d, "root", cn="root", is_ca=True, key_usage="ca")
    c["inter"] = mk("inter", c["root"], cn="inter", is_ca=True, path_len=0, key_usage="ca")
    c["leaf3"] = mk("leaf3", c["inter"], cn="deep.example")
    # root -> inter0 (pathLen 0) -> inter1 -> leaf: one intermediate too many below inter0
    c["inter0"] = mk("inter0", c["root"], cn="inter0", is_ca=True, path_len=0, key_usage="ca")
    c["inter1"] = mk("inter1", c["inter0"], cn="inter1", is_ca=True, key_usage="ca")
    c["leaf4"] = mk("leaf4", c["inter1"], cn="deeper.example")
    # the same with pathLen 1: allowed
    c["inter0b"] = mk("inter0b", c["root"], cn="inter0b", is_ca=True, path_len=1, key_usage="ca")
    c["inter1b"] = mk("inter1b", c["inter0b"], cn="inter1b", is_ca=True, key_usage="ca")
    c["leaf4b"] = mk("leaf4b", c["inter1b"], cn="deeper.example")
    # root -> ia -> ib -> ic -> leaf5: four certificates below the root, the most a chain may have
    c["ia"] = mk("ia", c["root"], cn="ia", is_ca=True, key_usage="ca")
    c["ib"] = mk("ib", c["ia"], cn="ib", is_ca=True, key_usage="ca")
    c["ic"] = mk("ic", c["ib"], cn="ic", is_ca=True, key_usage="ca")
    c["leaf5"] = mk("leaf5", c["ic"], cn="deepest.example")
    c["other_root"] = make_cert(d, "other", cn="iotse test CA", is_ca=True, key_usage="ca")  # same name, other key
    c["stranger"] = make_cert(d, "stranger", cn="stranger CA", is_ca=True, key_usage="ca")
    c["bad_sig"] = mk("bad_sig", cn="localhost", corrupt_signature=True)
    past = datetime.datetime.now(UTC) - datetime.timedelta(days=10)
    future = datetime.datetime.now(UTC) + datetime.timedelta(days=10)
    c["expired"] = mk("expired", cn="localhost", not_before=past - datetime.timedelta(days=1), not_after=past)
    c["future"] = mk("future", cn="localhost", not_before=future, not_after=future + datetime.timedelta(days=1))
    c["leaf_issuer"] = mk("leaf_issuer", c["server"], cn="under-a-leaf")
    c["ku_ca"] = mk("ku_ca", c["root"], cn="ku_ca", is_ca=True, key_usage=("digital_signature", "crl_sign"))
    c["ku_ca_leaf"] = mk("ku_ca_leaf", c["ku_ca"], cn="localhost")
    c["ku_leaf"] = mk("ku_leaf", cn="localhost", key_usage=("key_encipherment",))
    c["no_ku_leaf"] = mk("no_ku_leaf", cn="localhost", key_usage=None)
    c["no_san"] = mk("no_san", cn="Localhost", san=[])
    c["multi_san"] = mk("multi_san", cn="x", san=["a.example", "b.example"])
    c["p384_leaf"] = mk("p384_leaf", cn="localhost", key="p384")
    c["rsa_leaf"] = mk("rsa_leaf", cn="localhost", key="rsa")
    c["p384_ca"] = make_cert(d, "p384_ca", cn="p384 CA", is_ca=True, key_usage="ca", key="p384")
    c["p384_signed"] = mk("p384_signed", c["p384_ca"], cn="localhost")
    c["rsa_ca"] = make_cert(d, "rsa_ca", cn="rsa CA", is_ca=True, key_usage="ca", key="rsa")
    c["rsa_signed"] = mk("rsa_signed", c["rsa_ca"], cn="localhost")
    unknown = x509.UnrecognizedExtension(ObjectIdentifier("1.3.6.1.4.1.55555.1"), b"\x05\x00")
    c["crit_ext"] = mk("crit_ext", cn="localhost", extensions=[(unknown, True)])
    c["noncrit_ext"] = mk("noncrit_ext", cn="localhost", extensions=[(unknown, False)])
    c["gen_time"] = mk("gen_time", cn="localhost",
                       not_after=datetime.datetime(2061, 2, 28, 12, 34, 56, tzinfo=UTC))
    return c


# (case, chain, anchors, now offset or None, name, expected error or None, does openssl agree on ok/fail)
CASES = [
    ("leaf_ca", ["server"], ["ca"], None, "localhost", None, True),
    ("leaf_ca_anchor_in_chain", ["server", "ca"], ["ca"], None, None, None, True),
    ("three_levels", ["leaf3", "inter"], ["root"], None, "deep.example", None, True),
    ("three_levels_with_root", ["leaf3", "inter", "root"], ["root"], None, None, None, True),
    ("second_anchor", ["leaf3", "inter"], ["stranger", "root"], None, None, None, True),
    ("path_len_1_ok", ["leaf4b", "inter1b", "inter0b"], ["root"], None, None, None, True),
    ("client", ["node-1"], ["ca"], None, "node-1", None, True),
    ("case_insensitive_name", ["server"], ["ca"], None, "LocalHost", None, True),
    ("no_san_uses_cn", ["no_san"], ["ca"], None, "localhost", None, True),
    ("second_san", ["multi_san"], ["ca"], None, "b.example", None, True),
    ("leaf_without_key_usage", ["no_ku_leaf"], ["ca"], None, None, None, True),
    ("noncritical_unknown_ext", ["noncrit_ext"], ["ca"], None, None, None, True),
    ("generalized_time", ["gen_time"], ["ca"], None, None, None, True),
    ("bad_signature", ["bad_sig"], ["ca"], None, None, "cert_bad_signature", True),
    ("wrong_anchor_key", ["server"], ["other_root"], None, None, "cert_bad_signature", True),
    ("expired", ["expired"], ["ca"], None, None, "cert_expired", True),
    ("not_yet_valid", ["future"], ["ca"], None, None, "cert_not_yet_valid", True),
    ("clock_past_not_after", ["server"], ["ca"], 31 * 86400, None, "cert_expired", True),
    ("clock_before_not_before", ["server"], ["ca"], -2 * 3600, None, "cert_not_yet_valid", True),
    ("unknown_ca", ["server"], ["stranger"], None, None, "cert_unknown_ca", True),
    ("unknown_ca_deep", ["leaf3", "inter"], ["ca"], None, None, "cert_unknown_ca", True),
    ("broken_chain", ["server", "inter"], ["root"], None, None, "cert_chain", True),
    ("wrong_name", ["server"], ["ca"], None, "evil.example", "cert_name_mismatch", True),
    ("cn_ignored_with_san", ["multi_san"], ["ca"], None, "x", "cert_name_mismatch", True),
    ("issuer_is_leaf", ["leaf_issuer", "server"], ["ca"], None, None, "cert_not_ca", True),
    ("path_len_exceeded", ["leaf4", "inter1", "inter0"], ["root"], None, None, "cert_not_ca", True),
    ("issuer_without_key_cert_sign", ["ku_ca_leaf", "ku_ca"], ["root"], None, None, "cert_key_usage", True),
    # openssl verify without -purpose does not look at a leaf's keyUsage
    ("leaf_without_digital_signature", ["ku_leaf"], ["ca"], None, None, "cert_key_usage", False),
    ("p384_key", ["p384_leaf"], ["ca"], None, None, "cert_unsupported", False),
    ("rsa_key", ["rsa_leaf"], ["ca"], None, None, "cert_unsupported", False),
    ("p384_signature", ["p384_signed"], ["p384_ca"], None, None, "cert_unsupported", False),
    ("rsa_signature", ["rsa_signed"], ["rsa_ca"], None, None, "cert_unsupported", False),
    ("unknown_critical_ext", ["crit_ext"], ["ca"], None, None, "cert_unsupported", True),
    ("chain_too_long", ["server"] * 5, ["ca"], None, None, "cert_chain", False),
    # the limit counts the certificates below the anchor: a peer sending its root as well is fine
    ("longest_chain_with_root", ["leaf5", "ic", "ib", "ia", "root"], ["root"], None, None, None, True),
]


def paths(w, names):
    return [w["pki"].client(n)[0] if n == "node-1" else w[n][0] for n in names]


def verify_cases(w, tally, backend):
    reqs, expect = [], []
    for case, chain, anchors, offset, name, error, _ in CASES:
        reqs.append(verify_req(paths(w, chain), paths(w, anchors), NOW + (offset or 0), name))
        expect.append((case, error, paths(w, chain)[0]))
    out = run_batch(reqs, backend)
    for (case, error, leaf), got in zip(expect, out):
        if error is None:
            assert got == {"ok": True, "pub": pub_bytes(leaf)}, case
        else:
            assert got.get("error") == error, (case, got)
    tally("x509 chains" if backend == "sw" else f"[{backend}] x509 chains", len(CASES))


def test_verify_cases(w, tally):
    verify_cases(w, tally, "sw")


@pytest.mark.parametrize("case", [c for c in CASES if c[6] and len(c[1]) <= 4], ids=lambda c: c[0])
def test_openssl_agrees(w, case, tmp_path):
    """The independent reference: openssl verify -x509_strict accepts exactly the chains we accept."""
    _, chain, anchors, offset, name, error, _ = case
    assert openssl_ok(paths(w, chain), paths(w, anchors), NOW + (offset or 0), name, tmp_path) == (error is None)


def test_parse_fields_match_cryptography(w, tally):
    names = ["ca", "server", "inter", "inter0", "no_ku_leaf", "gen_time", "ku_ca", "multi_san"]
    out = run_batch([{"op": "x509_parse", "cert": der(w[n][0]).hex()} for n in names], "sw")
    for n, got in zip(names, out):
        cert = x509.load_pem_x509_certificate(w[n][0].read_bytes())
        cn = cert.subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)[0].value
        bc = cert.extensions.get_extension_for_class(x509.BasicConstraints).value
        assert got["cn"] == cn, n
        assert got["not_before"] == int(cert.not_valid_before_utc.timestamp()), n
        assert got["not_after"] == int(cert.not_valid_after_utc.timestamp()), n
        assert got["is_ca"] == bc.ca and got["path_len"] == (-1 if bc.path_length is None else bc.path_length), n
        assert got["pub"] == pub_bytes(w[n][0]), n
        assert bytes.fromhex(got["tbs"]) == cert.tbs_certificate_bytes, n
        assert bytes.fromhex(got["subject"]) == cert.subject.public_bytes(), n
        try:
            ku = cert.extensions.get_extension_for_class(x509.KeyUsage).value
        except x509.ExtensionNotFound:
            assert "key_usage" not in got, n
        else:
            bits = [ku.digital_signature, ku.content_commitment, ku.key_encipherment, ku.data_encipherment,
                    ku.key_agreement, ku.key_cert_sign, ku.crl_sign]
            assert got["key_usage"] == sum(1 << i for i, b in enumerate(bits) if b), n
    tally("x509 parse", len(names))


# --- hostile input -------------------------------------------------------------------------------

def tlv(tag, content):
    n = len(content)
    hdr = bytes([n]) if n < 0x80 else bytes([0x81, n]) if n < 0x100 else bytes([0x82, n >> 8, n & 0xff])
    return bytes([tag]) + hdr + content


def elements(body):
    """Splits DER contents into (tag, whole element, contents) triples (well-formed input only)."""
    out, i = [], 0
    while i < len(body):
        tag, n, h = body[i], body[i + 1], 2
        if n & 0x80:
            k = n & 0x7f
            n, h = int.from_bytes(body[i + 2:i + 2 + k], "big"), 2 + k
        out.append((tag, body[i:i + h + n], body[i + h:i + h + n]))
        i += h + n
    return out


def rebuild(cert_der, tbs_fn):
    """The certificate with its tbsCertificate elements passed through tbs_fn (signature kept)."""
    (_, _, body), = elements(cert_der)
    (tbs_tag, _, tbs), alg, sig = elements(body)
    new_tbs = tlv(0x30, b"".join(tbs_fn([e[1] for e in elements(tbs)])))
    return tlv(0x30, new_tbs + alg[1] + sig[1])


def test_malformed_variants(w):
    good = der(w["server"][0])
    assert good[1] == 0x82  # the variants below assume a two-byte length
    variants = {
        "empty": b"",
        "garbage": bytes(range(64)),
        "trailing_byte": good + b"\x00",
        "indefinite_length": b"\x30\x80" + good[4:] + b"\x00\x00",
        "non_minimal_length": b"\x30\x83\x00" + good[2:],
        "v1_no_version": rebuild(good, lambda e: e[1:]),
        "version_v2": rebuild(good, lambda e: [tlv(0xa0, tlv(0x02, b"\x01"))] + e[1:]),
        "negative_length_byte": good[:1] + b"\xff" + good[2:],
        "high_tag": b"\x1f" + good[1:],
        "bad_time": rebuild(good, lambda e: e[:4] + [tlv(0x30, tlv(0x17, b"991332000000Z") * 2)] + e[5:]),
        "time_no_z": rebuild(good, lambda e: e[:4] + [tlv(0x30, tlv(0x17, b"2001010000000") * 2)] + e[5:]),
        "extra_tbs_element": rebuild(good, lambda e: e + [tlv(0x05, b"")]),
    }
    out = run_batch([{"op": "x509_parse", "cert": v.hex()} for v in variants.values()], "sw")
    for name, got in zip(variants, out):
        assert got.get("error") == "cert_malformed", (name, got)


def test_every_truncation_fails(w, tally):
    good = der(w["server"][0])
    reqs = [{"op": "x509_parse", "cert": good[:n].hex()} for n in range(len(good))]
    reqs += [{"op": "x509_verify", "chain": good[:n].hex(), "anchors": [der(w["ca"][0]).hex()], "now": NOW}
             for n in range(0, len(good), 7)]
    out = run_batch(reqs, "sw")
    assert all(o.get("error") == "cert_malformed" for o in out), [o for o in out if "error" not in o][:3]
    tally("x509 truncations", len(reqs))


def test_random_mutations_never_crash(w, tally):
    """Byte flips anywhere: any verdict is allowed except success with a changed certificate, and the
    process must answer every line (run_batch checks the count)."""
    good = der(w["server"][0])
    ca = der(w["ca"][0]).hex()
    rng = random.Random(1234)
    muts = []
    for _ in range(600):
        b = bytearray(good)
        for _ in range(rng.randint(1, 3)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        if bytes(b) != good:
            muts.append(bytes(b))
    out = run_batch([{"op": "x509_verify", "chain": m.hex(), "anchors": [ca], "now": NOW} for m in muts], "sw")
    accepted = [m for m, o in zip(muts, out) if "error" not in o]
    # a flip may only be accepted where DER leaves room (none in this profile): require none
    assert not accepted, f"{len(accepted)} mutated certificates verified"
    tally("x509 mutations", len(muts))


def test_rtl_backend(w, request, tally):
    """Every case on the engine: its signatures checked by the protocol controller (SIG_CHECK: the
    SHA IP, then the pk IP), the same verdicts."""
    if request.config.getoption("--backend") not in ("all", "rtl"):
        pytest.skip("--backend excludes rtl")
    verify_cases(w, tally, "rtl")