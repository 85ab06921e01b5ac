"""The ctrl engine's X509_PARSE program (rtl/ctrl/programs/x509.s) on its Python model
(rtl/ctrl/ctrl_model.py), against two references:

  - the software stack's parser (sw/proto/x509.c, through `se batch` x509_parse): the same verdict
    (ok, cert_malformed, cert_unsupported) and the same fields for every input, well formed or not:
    certificates from `se certs`, the `cryptography` package and the `openssl` command, every
    truncation of them, thousands of random byte flips, and DER rebuilt with bad lengths, tags and
    values;
  - the `cryptography` package: the fields of every well-formed certificate, read by its own parser.

No input may keep the controller running: every run must end within budget(length) instructions,
about three per byte of certificate at most."""
import calendar
import hashlib
import datetime
import random
import subprocess
import sys

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID, ObjectIdentifier

from proto.pki import der, make_cert, make_pki
from se_cli import ROOT, run_batch

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_asm as asm  # noqa: E402
import ctrl_isa as isa  # noqa: E402
import ctrl_model as model  # noqa: E402

UTC = datetime.timezone.utc
STATUS = {"OK": None, "CERT_MALFORMED": "cert_malformed", "CERT_UNSUPPORTED": "cert_unsupported"}
LIMIT = asm.load().equ["REC"]   # the program's record and buffers, the window's top: a certificate ends below
AT = isa.SECRET_BASE - 0x100   # where the tests put a time or a name (certificates lie at 0, below it)


def budget(n):
    """Instructions an n-byte certificate may take: Names of many small attributes take the most
    per byte, about 2 for one-byte values (test_many_attributes); 4 leaves room for denser ones."""
    return 4 * n + 1000


def run_model(m, cert):
    """(the sw stack's error name or None, the model's outputs) for one certificate."""
    m.load(0, cert)
    st = m.run("X509_PARSE", {1: 0, 2: len(cert)}, budget=budget(len(cert)))
    assert st in STATUS, (st, m.steps, cert.hex())
    return STATUS[st], dict(m.out)


def unix(digits):
    """Seconds since 1970 of YYYYMMDDHHMMSS (the calendar module's, not the controller's)."""
    t = digits.decode()
    return calendar.timegm((int(t[:4]), int(t[4:6]), int(t[6:8]), int(t[8:10]), int(t[10:12]), int(t[12:14])))


def as_sw(out):
    """The model's outputs in `se batch` x509_parse's form."""
    r = {"not_before": unix(out["NOT_BEFORE"]), "not_after": unix(out["NOT_AFTER"]), "is_ca": bool(out["IS_CA"]),
         "path_len": -1 if out["PATH_LEN"] == 0xffff else out["PATH_LEN"],
         "pub": "04" + out["PUB_X"].hex() + out["PUB_Y"].hex(), "sig": out["SIG_R"].hex() + out["SIG_S"].hex(),
         "subject": out["SUBJECT"].hex(), "issuer": out["ISSUER"].hex(), "tbs": out["TBS"].hex()}
    if "CN" in out:  # as `se batch` prints it: a C string of at most 255 bytes, left out if not UTF-8
        try:
            r["cn"] = out["CN"][:255].split(b"\0")[0].decode()
        except UnicodeDecodeError:
            pass
    if "KEY_USAGE" in out:
        r["key_usage"] = out["KEY_USAGE"]
    if "SAN" in out:
        r["san"] = out["SAN"].hex()
    return r


def agree(certs):
    """Runs every certificate on the model and on the sw stack; asserts the same verdict and, when
    both accept, the same fields. Returns the verdicts."""
    m = model.Machine()
    sw = run_batch([{"op": "x509_parse", "cert": c.hex()} for c in certs], "sw")
    verdicts = []
    for c, s in zip(certs, sw):
        err, out = run_model(m, c)
        assert err == s.get("error"), (c.hex(), err, s)
        if err is None:
            got = as_sw(out)
            assert got == s, (c.hex(), got, s)
        verdicts.append(err)
    return verdicts


def openssl_chain(d):
    """An intermediate CA and a leaf made by the `openssl` command with the extensions a real PKI
    carries (subjectKeyIdentifier, authorityKeyIdentifier, subjectAltName, extendedKeyUsage,
    keyUsage, basicConstraints with a pathLen), and a leaf with a critical extension of its own."""
    def sh(*args):
        subprocess.run(args, check=True, capture_output=True, cwd=d)
    sh("openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "root.key")
    sh("openssl", "req", "-x509", "-new", "-key", "root.key", "-subj", "/O=iotse/CN=openssl root", "-days", "30",
       "-sha256", "-addext", "basicConstraints=critical,CA:true", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
       "-out", "root.pem")
    (d / "ext.cnf").write_text(
        "[inter]\nbasicConstraints=critical,CA:true,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n"
        "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid:always\n"
        "[leaf]\nbasicConstraints=critical,CA:false\nkeyUsage=critical,digitalSignature\n"
        "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid,issuer\n"
        "subjectAltName=DNS:localhost,DNS:node.example,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n"
        "[odd]\nbasicConstraints=critical,CA:false\nkeyUsage=critical,digitalSignature\n"
        "1.3.6.1.4.1.55555.7=critical,DER:0500\n")
    out = []
    for name, issuer, section in (("inter", "root", "inter"), ("leaf", "inter", "leaf"), ("odd", "inter", "odd")):
        sh("openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", f"{name}.key")
        sh("openssl", "req", "-new", "-key", f"{name}.key", "-subj", f"/C=CH/O=iotse/OU=ctrl/CN={name}.example",
           "-out", f"{name}.csr")
        sh("openssl", "x509", "-req", "-in", f"{name}.csr", "-CA", f"{issuer}.pem", "-CAkey", f"{issuer}.key",
           "-CAcreateserial", "-days", "30", "-sha256", "-extfile", "ext.cnf", "-extensions", section,
           "-out", f"{name}.pem")
        out.append(d / f"{name}.pem")
    return [d / "root.pem"] + out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """name -> DER: well-formed certificates of every kind this profile meets or refuses."""
    d = tmp_path_factory.mktemp("ctrl-x509")
    pki = make_pki(d / "pki", clients=("node-1",))
    ca = (pki.ca_pem, pki.ca_key)
    mk = lambda stem, **kw: make_cert(d, stem, issuer_cert=ca[0], issuer_key=ca[1], **kw)[0]  # noqa: E731
    unknown = x509.UnrecognizedExtension(ObjectIdentifier("1.3.6.1.4.1.55555.1"), b"\x05\x00")
    paths = {
        "se_ca": pki.ca_pem, "se_server": pki.server_pem, "se_node": pki.client("node-1")[0],
        "inter_pathlen": mk("inter_pathlen", cn="inter", is_ca=True, path_len=3, key_usage="ca"),
        "pathlen_127": mk("pathlen_127", cn="deep", is_ca=True, path_len=127, key_usage="ca"),
        "pathlen_128": mk("pathlen_128", cn="deeper", is_ca=True, path_len=128, key_usage="ca"),
        "no_ku": mk("no_ku", cn="localhost", key_usage=None),
        "ku_many": mk("ku_many", cn="localhost", key_usage=("digital_signature", "key_agreement", "crl_sign")),
        "ku_decipher_only": mk("ku_decipher_only", cn="localhost", key_usage=("key_agreement", "decipher_only")),
        "no_san": mk("no_san", cn="Localhost", san=[]),
        "multi_san": mk("multi_san", cn="x", san=["a.example", "b.example"]),
        "odd_san": mk("odd_san", cn="odd", san=["a@b.example", "x[y.example"]),  # bit 5 apart from ` and {
        "eku": mk("eku", cn="localhost", eku="server"),
        "crit_ext": mk("crit_ext", cn="localhost", extensions=[(unknown, True)]),
        "noncrit_ext": mk("noncrit_ext", cn="localhost", extensions=[(unknown, False)]),
        "gen_time": mk("gen_time", cn="localhost", not_after=datetime.datetime(2061, 2, 28, 12, 34, 56, tzinfo=UTC)),
        "leap_day": mk("leap_day", cn="localhost", not_before=datetime.datetime(2024, 2, 29, 0, 0, 0, tzinfo=UTC),
                       not_after=datetime.datetime(2400, 2, 29, 23, 59, 59, tzinfo=UTC)),
        "utc_1950": mk("utc_1950", cn="localhost", not_before=datetime.datetime(1950, 1, 1, tzinfo=UTC),
                       not_after=datetime.datetime(2049, 12, 31, 23, 59, 59, tzinfo=UTC)),
        "p384_key": mk("p384_key", cn="localhost", key="p384"),
        "rsa_key": mk("rsa_key", cn="localhost", key="rsa"),
        "bad_sig": mk("bad_sig", cn="localhost", corrupt_signature=True),
    }
    rsa_ca = make_cert(d, "rsa_ca", cn="rsa CA", is_ca=True, key_usage="ca", key="rsa")
    paths["rsa_signed"] = make_cert(d, "rsa_signed", issuer_cert=rsa_ca[0], issuer_key=rsa_ca[1], cn="localhost")[0]
    for p in openssl_chain(d):
        paths["openssl_" + p.stem] = p
    return {name: der(p) for name, p in paths.items()}


ACCEPTED = ("se_ca", "se_server", "se_node", "inter_pathlen", "pathlen_127", "no_ku", "ku_many", "ku_decipher_only",
            "no_san", "multi_san", "odd_san", "eku", "noncrit_ext", "gen_time", "leap_day", "utc_1950", "bad_sig",
            "openssl_root", "openssl_inter", "openssl_leaf")
UNSUPPORTED = ("pathlen_128", "crit_ext", "p384_key", "rsa_key", "rsa_signed", "openssl_odd")


def test_verdicts_and_fields_match_the_sw_stack(corpus, tally):
    names = sorted(corpus)
    verdicts = dict(zip(names, agree([corpus[n] for n in names])))
    assert {n for n, v in verdicts.items() if v is None} == set(ACCEPTED)
    assert {n for n, v in verdicts.items() if v == "cert_unsupported"} == set(UNSUPPORTED)
    tally("ctrl x509 certificates", len(names))


def test_fields_match_cryptography(corpus, tally):
    """The independent reference: what the `cryptography` package reads from the same DER."""
    m = model.Machine()
    for name in ACCEPTED:
        err, out = run_model(m, corpus[name])
        assert err is None, name
        cert = x509.load_der_x509_certificate(corpus[name])
        assert out["TBS"] == cert.tbs_certificate_bytes, name
        assert out["ISSUER"] == cert.issuer.public_bytes() and out["SUBJECT"] == cert.subject.public_bytes(), name
        cns = cert.subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)
        assert out.get("CN") == (cns[0].value.encode() if cns else None), name
        assert unix(out["NOT_BEFORE"]) == int(cert.not_valid_before_utc.timestamp()), name
        assert unix(out["NOT_AFTER"]) == int(cert.not_valid_after_utc.timestamp()), name
        pub = cert.public_key().public_numbers()
        assert (out["PUB_X"], out["PUB_Y"]) == (pub.x.to_bytes(32, "big"), pub.y.to_bytes(32, "big")), name
        r, s = decode_dss_signature(cert.signature)
        assert (out["SIG_R"], out["SIG_S"]) == (r.to_bytes(32, "big"), s.to_bytes(32, "big")), name
        bc = cert.extensions.get_extension_for_class(x509.BasicConstraints).value
        assert out["IS_CA"] == bc.ca, name
        assert out["PATH_LEN"] == (0xffff if bc.path_length is None else bc.path_length), name
        try:
            ku = cert.extensions.get_extension_for_class(x509.KeyUsage).value
        except x509.ExtensionNotFound:
            assert "KEY_USAGE" not in out, name
        else:
            bits = [ku.digital_signature, ku.content_commitment, ku.key_encipherment, ku.data_encipherment,
                    ku.key_agreement, ku.key_cert_sign, ku.crl_sign,
                    ku.key_agreement and ku.encipher_only, ku.key_agreement and ku.decipher_only]
            assert out["KEY_USAGE"] == sum(1 << i for i, b in enumerate(bits) if b), name
        try:
            san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName)
        except x509.ExtensionNotFound:
            assert "SAN" not in out, name
        else:
            assert out["SAN"] == san.value.public_bytes(), name
    tally("ctrl x509 fields", len(ACCEPTED))


def test_every_truncation(corpus, tally):
    certs = [c[:n] for name in ("se_server", "openssl_leaf", "gen_time") for c in [corpus[name]]
             for n in range(len(c))]
    assert set(agree(certs)) == {"cert_malformed"}
    tally("ctrl x509 truncations", len(certs))


def test_random_mutations(corpus, tally):
    """Byte flips, byte changes and length bytes set to edge values, anywhere: the same verdict as
    the sw stack, the same fields when both accept, and never a hang."""
    rng = random.Random(2026)
    base = [corpus[n] for n in ("se_server", "se_ca", "openssl_leaf", "openssl_inter", "ku_many", "gen_time")]
    certs = []
    for i in range(3000):
        b = bytearray(rng.choice(base))
        for _ in range(rng.randint(1, 3)):
            k = rng.randrange(len(b))
            kind = rng.randrange(3)
            b[k] = (b[k] ^ (1 << rng.randrange(8)) if kind == 0 else rng.randrange(256) if kind == 1
                    else rng.choice([0x00, 0x01, 0x7f, 0x80, 0x81, 0x82, 0x83, 0xff]))
        certs.append(bytes(b))
    verdicts = agree(certs)
    assert {None, "cert_malformed", "cert_unsupported"} <= set(verdicts)  # (every verdict is reached)
    tally("ctrl x509 mutations", len(certs))


def tlv(tag, content):
    n = len(content)
    hdr = bytes([n]) if n < 0x80 else bytes([0x81, n]) if n < 0x100 else bytes([0x82, n >> 8, n & 0xff])
    return bytes([tag]) + hdr + content


def test_crafted_der(corpus, tally):
    """DER that random flips rarely reach: non-minimal and indefinite lengths, high tag numbers,
    INTEGERs with sign bytes, times at their limits, a second keyUsage; each certificate is the
    se_server one with one element of its tbsCertificate replaced."""
    good = x509.load_der_x509_certificate(corpus["se_server"])
    cert = corpus["se_server"]
    tbs = good.tbs_certificate_bytes
    at = cert.index(tbs)

    def with_tbs(body):
        t = tlv(0x30, body)
        rest = cert[at + len(tbs):]
        return tlv(0x30, t + rest)

    inner = tbs[4:]  # the tbsCertificate's contents (its header is 30 82 xx xx)
    assert tbs[:2] == b"\x30\x82"
    times = [b"\x17\x0d" + t for t in (b"240229000000Z", b"230229000000Z", b"000229000000Z", b"991231235959Z",
                                       b"500101000000Z", b"491231235959Z", b"241301000000Z", b"240100000000Z",
                                       b"240131240000Z", b"240131236000Z", b"240131235960Z", b"24013123595 Z",
                                       b"240131235959+")]
    times += [b"\x18\x0f" + t for t in (b"20000229000000Z", b"19000229000000Z", b"24000229000000Z",
                                        b"00000101000000Z", b"99991231235959Z", b"21000229000000Z")]
    validity = inner.index(b"\x30\x1e\x17\x0d")
    variants = []
    for t in times:
        v = tlv(0x30, t + inner[validity + 2 + 15:validity + 2 + 30])
        variants.append(with_tbs(inner[:validity] + v + inner[validity + 32:]))
    version = inner[:5]  # a0 03 02 01 02
    for bad in (b"\xa0\x04\x02\x02\x00\x02", b"\xa0\x03\x02\x01\x01", b"\xa0\x81\x03\x02\x01\x02",
                b"\xa0\x80\x02\x01\x02\x00\x00", b"\xbf\x1f\x03\x02\x01\x02", b"\xa0\x03\x02\x01\x82"):
        variants.append(with_tbs(bad + inner[len(version):]))
    serial_at = len(version)
    serial_len = inner[serial_at + 1]
    for serial in (b"\x02\x00", b"\x02\x01\x80", b"\x02\x02\x00\x01", b"\x02\x15" + b"\x01" * 21,
                   b"\x02\x16" + b"\x01" * 22):
        variants.append(with_tbs(version + serial + inner[serial_at + 2 + serial_len:]))
    exts = inner.index(b"\xa3\x81")
    assert inner[exts + 3:exts + 5] == b"\x30\x81" and len(inner) == exts + 6 + inner[exts + 5]
    body = inner[exts + 6:]  # the Extension elements

    def with_exts(b):
        return with_tbs(inner[:exts] + tlv(0xa3, tlv(0x30, b)))

    ku = b"\x30\x0e\x06\x03\x55\x1d\x0f\x01\x01\xff\x04\x04\x03\x02\x07\x80"
    assert ku in body
    for k in (b"\x03\x01\x00", b"\x03\x01\x01", b"\x03\x02\x08\x80", b"\x03\x03\x00\xff\xff", b"\x03\x03\x07\x80\x80",
              b"\x03\x03\x07\x80\x00", b"\x03\x04\x00\x01\x02\x03", b"\x03\x00", b"\x04\x02\x00\x80"):
        variants.append(with_exts(body.replace(ku, tlv(0x30, b"\x06\x03\x55\x1d\x0f\x01\x01\xff" + tlv(0x04, k)))))
    variants.append(with_exts(body.replace(ku, ku + ku)))                       # keyUsage twice
    variants.append(with_exts(body.replace(ku, ku.replace(b"\x01\x01\xff", b"\x01\x01\x00"))))  # critical FALSE
    for bc in (b"\x30\x03\x02\x01\x05", b"\x30\x06\x01\x01\xff\x02\x01\x00", b"\x30\x04\x02\x02\x00\x80",
               b"\x30\x03\x01\x01\x00", b"\x30\x06\x02\x01\x01\x01\x01\xff", b"\x30\x00\x00"):
        old_bc = b"\x30\x0c\x06\x03\x55\x1d\x13\x01\x01\xff\x04\x02\x30\x00"
        assert old_bc in body
        variants.append(with_exts(body.replace(old_bc, tlv(0x30, b"\x06\x03\x55\x1d\x13\x01\x01\xff" + tlv(0x04, bc)))))
    variants.append(with_exts(b""))                                             # an empty list
    variants.append(with_tbs(inner[:exts]))                                     # no extensions at all
    variants.append(with_tbs(inner + b"\x81\x01\x00"))                          # something after them
    variants.append(with_tbs(inner[:exts] + b"\x81\x02\x00\x01\x82\x01\x00" + inner[exts:]))  # unique IDs
    assert len(set(variants)) == len(variants)
    verdicts = agree(variants)
    assert None in verdicts and "cert_malformed" in verdicts
    tally("ctrl x509 crafted", len(variants))


def test_validity(corpus, tally):
    """VALIDITY after X509_PARSE, at the edges of each certificate's validity: the verdict the
    `cryptography` package's times give (the software stack's rule: expired after notAfter, not
    yet valid before notBefore)."""
    m = model.Machine()
    n = 0
    for name in ("se_server", "gen_time", "leap_day", "utc_1950"):
        cert = x509.load_der_x509_certificate(corpus[name])
        nb, na = int(cert.not_valid_before_utc.timestamp()), int(cert.not_valid_after_utc.timestamp())
        for now in (nb - 86400, nb - 1, nb, nb + 1, (nb + na) // 2, na - 1, na, na + 1, na + 366 * 86400):
            assert run_model(m, corpus[name])[0] is None
            digits = datetime.datetime.fromtimestamp(now, UTC).strftime("%Y%m%d%H%M%S").encode()
            m.load(AT, digits)
            got = m.run("VALIDITY", {1: AT})
            want = "CERT_EXPIRED" if now > na else "CERT_NOT_YET_VALID" if now < nb else "OK"
            assert got == want, (name, now, got)
            n += 1
    tally("ctrl x509 validity", n)


NAMES = ["localhost", "LocalHost", "LOCALHOST", "localhos", "localhostt", "", "a.example", "B.EXAMPLE",
         "b.example.", "x", "X", "node-1", "NODE-1", "evil.example", "127.0.0.1", "a.examplE", "iotse test CA"]


def test_name_check(corpus, tally):
    """NAME_CHECK after X509_PARSE, against the software stack's se_x509_check_name (through
    `se batch x509_verify` with a name, on chains that verify otherwise): a dNSName of the SAN, or
    the commonName without a SAN, in either case of its letters and nothing else."""
    # ` and @, { and [: bit 5 apart, but not letters
    names = NAMES + ["a`b.example", "A@B.EXAMPLE", "a@b.example", "x{y.example", "X[Y.example", "lOcAlHoSt"]
    m = model.Machine()
    reqs, got = [], []
    now = int(datetime.datetime.now(UTC).timestamp())
    for cert in ("se_server", "se_node", "no_san", "multi_san", "odd_san", "eku", "openssl_leaf"):
        der_ = corpus[cert]
        anchor = corpus["openssl_inter" if cert == "openssl_leaf" else "se_ca"]
        for name in names:
            assert run_model(m, der_)[0] is None
            span, san = (m.spans["SAN"], 1) if "SAN" in m.spans else (m.spans.get("CN", (0, 0)), 0)
            m.load(AT, name.encode())
            got.append(m.run("NAME_CHECK", {1: span[0], 2: span[0] + span[1], 6: AT, 7: AT + len(name),
                                            9: san}))
            reqs.append({"op": "x509_verify", "chain": [der_.hex()], "anchors": [anchor.hex()],
                         "now": now, "name": name})
    sw = run_batch(reqs, "sw")
    for r, g, s in zip(reqs, got, sw):
        assert s.get("error") in (None, "cert_name_mismatch"), s  # (every chain verifies but for its name)
        assert g == ("OK" if "error" not in s else "CERT_NAME"), (r["name"], g, s)
    assert {"OK", "CERT_NAME"} <= set(got)
    odd = dict(zip(names, got[len(names) * 4:len(names) * 5]))  # odd_san's verdicts
    assert odd["A@B.EXAMPLE"] == odd["X[Y.example"] == "OK" and odd["a`b.example"] == odd["x{y.example"] == "CERT_NAME"
    tally("ctrl x509 names", len(got))


def many_attributes(n):
    """A certificate whose subject is n attributes of one byte."""
    key = ec.generate_private_key(ec.SECP256R1())
    names = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "many")] +
                      [x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "x") for _ in range(n)])
    issuer = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "issuer")])
    now = datetime.datetime.now(UTC)
    return (x509.CertificateBuilder().subject_name(names).issuer_name(issuer).public_key(key.public_key())
            .serial_number(7).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.DER))


def test_many_attributes(tally):
    """A certificate whose subject is 240 attributes of one byte (3,173 bytes, near the input's limit
    REC): accepted by both, within budget()."""
    cert = many_attributes(240)
    assert len(cert) <= LIMIT
    assert agree([cert]) == [None]
    m = model.Machine()
    run_model(m, cert)
    assert 2 * len(cert) < m.steps < budget(len(cert)), (m.steps, len(cert))  # (about 2.1 a byte here)
    tally("ctrl x509 large", 1)


def test_input_must_lie_below_the_buffers(corpus):
    """The program writes its record and time buffers in the window's top 72 bytes: a certificate that
    would reach them is refused (BAD_INPUT), wherever it is; one that ends right below them is parsed."""
    cert = corpus["se_server"]
    m = model.Machine()
    for at in (LIMIT - 0x80, LIMIT - len(cert) + 1, 0x8000):
        m.load(at, cert)
        assert m.run("X509_PARSE", {1: at, 2: at + len(cert)}) == "BAD_INPUT", at
    m.load(LIMIT - len(cert), cert)
    assert m.run("X509_PARSE", {1: LIMIT - len(cert), 2: LIMIT}) == "OK"
    assert m.run("X509_PARSE", {1: 10, 2: 9}) == "BAD_INPUT"   # an end before the start


def test_assembler_and_encoding():
    """Every ROM word decodes to what was assembled, and the assembler refuses bad text."""
    rom = asm.load()
    for line, word in zip(rom.code, rom.words()):
        insn, fields = isa.decode(word)
        assert insn is line.insn and all(fields[f] == v for f, v in line.fields.items())
    index = {"program": [{"name": "P"}], "slots": {"S": 0}}

    def bad(text, what):
        f = ROOT / "build" / "ctrl-asm-test.s"
        f.parent.mkdir(exist_ok=True)
        f.write_text(text)
        with pytest.raises(asm.AsmError, match=what):
            asm.assemble([f], index)

    bad(".entry P\n    J nowhere\n", "no label nowhere")
    bad(".entry P\n    LDI r16, 1\n", "not a register")
    bad(".entry P\n    LDI r1, 16384\n", "does not fit")
    bad(".entry P\n    MEQ r1, r2, NOPE\n", "no .const NOPE")
    bad(".entry P\n    OUT NOPE, r1, r2\n", "no output slot")
    bad(".entry P\n    ERR NOPE\n", "no status")
    bad(".entry P\n    J.q x\nx:\n", "no condition")
    bad(".entry P\n    ADD r1, r2\n", "takes 3 operands")
    bad("    END\n", "without an .entry")
    bad(".entry P\nx:\nx:\n", "defined twice")
    bad(".entry Q\n", "no such \\[\\[program\\]\\]")
    bad(".entry P\n    TLV r1, r2, r3, 0x200\n", "not a tag")
    bad('.const S "a#b\n', "without its closing quote")
    bad(".macro m a\n    LDI \\a, \\b\n.endm\n.entry P\n    m r1\n", "no parameter b")
    bad(".macro m a\n    LDI \\a, 1\n.entry P\n", "without .endm")
    bad(".entry P\n    m r1\n", "unknown instruction or macro m")
    bad(".const S 256\n", "not a byte")
    with pytest.raises(asm.AsmError, match="not below 16"):
        asm.assemble([], {"program": [], "slots": {"S": 16}})
    # what the assembler takes: a string constant with a #, tabs, a macro's label per use
    f = ROOT / "build" / "ctrl-asm-test.s"
    f.write_text('.const S "a#b"  # its comment\n.macro m a\nx\\@:\n\tLDI\t\\a,\t1\n.endm\n.entry P\n    m r1\n    m r2\n    MEQ r1, r2, S\n    END\n')
    rom = asm.assemble([f], index)
    assert rom.consts == bytearray(b"\x03a#b") and len(rom.code) == 4 and set(rom.labels) == {"prog_P", "x_1", "x_2"}


def test_the_engine_parses_as_the_sw_stack(corpus, tally):
    """X509_PARSE in the engine (`se --backend rtl`: the driver loads the window, runs the program and
    reads its slots): the sw stack's answer, whole, for every corpus certificate, every truncation
    of one and 400 mutations; the fields `cryptography` reads; and a certificate too long for the
    window refused by name."""
    rng = random.Random(27)
    certs = [corpus[n] for n in sorted(corpus)]
    certs += [corpus["openssl_leaf"][:n] for n in range(len(corpus["openssl_leaf"]))]
    for _ in range(400):
        b = bytearray(rng.choice(certs[:len(corpus)]))
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        certs.append(bytes(b))
    reqs = [{"op": "x509_parse", "cert": c.hex()} for c in certs]
    rtl, sw = run_batch(reqs, "rtl"), run_batch(reqs, "sw")
    for c, r, s in zip(certs, rtl, sw):
        assert r == s, (c.hex(), r, s)
    assert {"cert_malformed", "cert_unsupported"} <= {s.get("error") for s in sw} and any("error" not in s for s in sw)
    for name in ACCEPTED:
        r = rtl[sorted(corpus).index(name)]
        cert = x509.load_der_x509_certificate(corpus[name])
        pub = cert.public_key().public_numbers()
        assert bytes.fromhex(r["tbs"]) == cert.tbs_certificate_bytes, name
        assert r["pub"] == "04" + pub.x.to_bytes(32, "big").hex() + pub.y.to_bytes(32, "big").hex(), name
        assert r["not_after"] == int(cert.not_valid_after_utc.timestamp()), name
    # Past the window's buffers: too_large on the engine (the sw stack takes up to 8 KiB).
    big = many_attributes(600)
    assert LIMIT < len(big) <= 8192
    assert run_batch([{"op": "x509_parse", "cert": big.hex()}], "rtl") == [{"error": "too_large"}]
    assert "error" not in run_batch([{"op": "x509_parse", "cert": big.hex()}], "sw")[0]
    tally("ctrl x509 on the engine", len(certs) + 1)


def test_sig_check(corpus, tally):
    """SIG_CHECK on the model (SHA-256 of the TBS on the SHA IP, ECDSA on the pk IP) for every
    accepted certificate against every P-256 key of the corpus: OK exactly where the `cryptography`
    package verifies the signature with that key."""
    from cryptography.exceptions import InvalidSignature
    m = model.Machine()
    keys = {n: x509.load_der_x509_certificate(corpus[n]).public_key() for n in ACCEPTED}
    keys = {n: k for n, k in keys.items() if isinstance(k, ec.EllipticCurvePublicKey)}
    runs, oks = 0, 0
    for name in ACCEPTED:
        cert = x509.load_der_x509_certificate(corpus[name])
        err, out = run_model(m, corpus[name])
        tbs = m.spans["TBS"]
        for kname, key in keys.items():
            pub = key.public_numbers()
            m.load(0x0c00, out["SIG_R"] + out["SIG_S"])
            m.load(0x0c40, pub.x.to_bytes(32, "big") + pub.y.to_bytes(32, "big"))
            got = m.run("SIG_CHECK", {1: tbs[0], 2: tbs[0] + tbs[1], 3: 0x0c00, 6: 0x0c40, 7: 0x0c80})
            try:
                key.verify(cert.signature, cert.tbs_certificate_bytes, ec.ECDSA(hashes.SHA256()))
                want = "OK"
            except InvalidSignature:
                want = "CERT_SIGNATURE"
            assert got == want, (name, kname, got)
            assert bytes(m.mem[0x0c80:0x0ca0]) == hashlib.sha256(cert.tbs_certificate_bytes).digest()
            runs, oks = runs + 1, oks + (got == "OK")
    assert oks >= 15 and runs - oks > 100   # (each leaf's own issuer, the self-signed ones; the rest not)
    m.load(0x0c40, bytes(64))                # a key that is no point: CERT_SIGNATURE, as the sw stack says
    assert m.run("SIG_CHECK", {1: tbs[0], 2: tbs[0] + tbs[1], 3: 0x0c00, 6: 0x0c40, 7: 0x0c80}) == "CERT_SIGNATURE"
    assert m.run("SIG_CHECK", {1: 5, 2: 4, 3: 0x0c00, 6: 0x0c40, 7: 0x0c80}) == "BAD_INPUT"
    tally("ctrl signature checks", runs)


def built(subject, issuer, key, signer, serial, ca=None, extensions=()):
    """A certificate the `cryptography` package builds: Names of one commonName (or the x509.Name
    given), key's public key, signed by signer, valid from an hour ago for a day; basicConstraints
    (critical) when ca is not None; more (extension, critical) pairs."""
    name = lambda n: n if isinstance(n, x509.Name) else x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, n)])  # noqa: E731
    now = datetime.datetime.now(UTC)
    b = (x509.CertificateBuilder().subject_name(name(subject)).issuer_name(name(issuer))
         .public_key(key.public_key()).serial_number(serial).not_valid_before(now - datetime.timedelta(hours=1))
         .not_valid_after(now + datetime.timedelta(days=1)))
    if ca is not None:
        b = b.add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    for ext, critical in extensions:
        b = b.add_extension(ext, critical=critical)
    return b.sign(signer, hashes.SHA256())


def test_a_tbs_past_the_window_is_checked_another_way(tally):
    """On `--backend rtl` a signature whose tbsCertificate the controller's window does not hold
    (7.4 KB here, past SIG_CHECK's inputs below REC) is hashed and verified without SIG_CHECK: the same verdicts as the sw stack, a good
    signature and a wrong one."""
    key, other = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(UTC)
    anchor = built("issuer", "issuer", key, key, 1, ca=True).public_bytes(serialization.Encoding.DER)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "many")] +
                        [x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "x") for _ in range(600)])
    leaves = [built(subject, "issuer", other, signer, 2, ca=False) for signer in (key, other)]
    # past the driver's SIG_AT (REC - 160), within the CLI's 8 KiB certificate
    assert LIMIT - 160 < len(leaves[0].tbs_certificate_bytes)
    assert len(leaves[0].public_bytes(serialization.Encoding.DER)) <= 8192
    reqs = [{"op": "x509_verify", "chain": [c.public_bytes(serialization.Encoding.DER).hex()],
             "anchors": [anchor.hex()], "now": int(now.timestamp())} for c in leaves]
    got = run_batch(reqs, "rtl")
    assert got == run_batch(reqs, "sw")
    assert got[0].get("ok") is True and got[1] == {"error": "cert_bad_signature"}
    tally("ctrl signature checks past the window", len(reqs))
