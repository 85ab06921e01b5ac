"""The ctrl engine's CERTIFICATE and SERVER_HELLO_DONE (rtl/ctrl/programs/cert.s, creq.s) on its
Python model.

CERTIFICATE is held to the software client's verdicts: a socket of the test plays the server and
answers `se client`'s ClientHello with a ServerHello and a Certificate message, good or broken in
its framing, its count or its chain (the certificates of tests/proto/test_x509.py, made by the
`cryptography` package). The client's alert (RFC 5246 7.2.2), or its silence as it waits for the
ServerKeyExchange, must be what the program's status names, with the model given the client's
trust anchor, name and clock. OK keeps the leaf's key, which the `cryptography` package reads out of
the certificate.

Cached-certificate mode is checked against hashlib and `cryptography`: the record a full
verification leaves holds the leaf's SHA-256, its key, its validity times and the name; the same
leaf for the same name then passes on its times alone (its chain may be anything framed), and fails
them once the clock has passed notAfter."""
import datetime
import hashlib
import sys
import time

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from ctrl.test_ctrl_chain import cert_body, digits, entries
from ctrl.test_ctrl_hello import server_hello, sw_answer
from ctrl.test_ctrl_ske import record
from proto.pki import der
from proto.test_x509 import paths, w  # noqa: F401 (w: the certificates' fixture)
from se_cli import ROOT

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_asm as asm  # noqa: E402
import ctrl_model as model  # noqa: E402

EQU = asm.load().equ
HS, LK, CC = EQU["HS_AT"], EQU["HS_AT"] + EQU["HS_LK"], EQU["HS_AT"] + EQU["HS_CC"]
# RFC 5246 7.2: the client's alert for each status (tls_hs.c cert_alert)
ALERT = {"OK": None, "DECODE_ERROR": 50, "HANDSHAKE_FAILURE": 40, "CERT_EXPIRED": 45, "CERT_NOT_YET_VALID": 45,
         "CERT_UNKNOWN_CA": 48, "CERT_UNSUPPORTED": 43, "CERT_MALFORMED": 42, "CERT_SIGNATURE": 42, "CERT_CHAIN": 42,
         "CERT_NOT_CA": 42, "CERT_KEY_USAGE": 42, "CERT_NAME": 42}


def run(m, body, anchors, now, name=b"localhost", cache=0):
    """CERTIFICATE on body with the anchors (DER), now (14 digits) and the name (None: not checked),
    the inputs laid out from 0 as the handshake's caller would."""
    anc = entries(anchors)
    nm = name or b""
    at_anc = len(body)
    at_now = at_anc + len(anc)
    at_name = at_now + 14
    assert at_name + len(nm) <= EQU["CHAIN_TOP"]
    m.load(0, body + anc + now + nm)
    regs = {1: 0, 2: at_anc, 3: at_anc, 4: at_now, 5: at_now, 6: at_name, 7: at_name + len(nm),
            8: int(name is not None), 9: cache}
    return m.run("CERTIFICATE", regs, budget=10 * len(body) + 8 * len(anc) + 8000)


def key_of(cert):
    n = x509.load_der_x509_certificate(cert).public_key().public_numbers()
    return n.x.to_bytes(32, "big") + n.y.to_bytes(32, "big")


def bodies(w):  # noqa: F811
    """Certificate bodies: good, and broken in the framing, the count, or each check of the chain."""
    c = lambda *names: [der(p) for p in paths(w, names)]   # noqa: E731
    good = cert_body(c("server"))
    lst = entries(c("server"))
    return [
        good, cert_body(c("server", "ca")), cert_body(c("no_san")), cert_body(c("server") * 3),
        cert_body(c("server") + [b"\x30\x00"] * 5), cert_body(c("server") + [b"\x30\x00"] * 4),
        cert_body(c("server") + [b"\x30\x00"] * 4)[:-2] + b"\x00\x00\x00",
        b"\x00\x00\x00", b"", b"\x00\x00", good[:-1], good + b"\x00", b"\x01" + good[1:],
        (len(lst) + 3).to_bytes(3, "big") + lst + b"\x00\x00\x00",
        (len(lst) + 3).to_bytes(3, "big") + b"\x00\x00\x00" + lst,
        (len(lst) + 1).to_bytes(3, "big") + lst + b"\x00",
        cert_body(c("bad_sig")), cert_body(c("expired")), cert_body(c("future")), cert_body(c("leaf3", "inter")),
        cert_body(c("multi_san")), cert_body(c("server", "inter")), cert_body(c("leaf_issuer", "server")),
        cert_body(c("ku_leaf")), cert_body(c("rsa_leaf")), cert_body(c("p384_leaf")), cert_body(c("crit_ext")),
        cert_body([der(w["server"][0])[:100]]),
    ]


def test_certificate_as_the_software_client(w, tally):  # noqa: F811
    pki = w["pki"]
    anchors = [der(pki.ca_pem)]
    cases = bodies(w)
    got = [sw_answer(pki, lambda hello, b=b: record(0, 2, 0, server_hello()) + record(1, 11, 1, b)) for b in cases]
    now = digits(time.time())
    seen = {}
    for body, verdict in zip(cases, got):
        m = model.Machine()
        st = run(m, body, anchors, now)
        assert st in ALERT, st
        assert ALERT[st] == verdict, (body[:40].hex(), st, verdict)
        if st == "OK":
            leaf = body[6:6 + int.from_bytes(body[3:6], "big")]
            assert bytes(m.mem[LK:LK + 64]) == key_of(leaf)
        seen[st] = seen.get(st, 0) + 1
    assert {"OK", "DECODE_ERROR", "HANDSHAKE_FAILURE", "CERT_EXPIRED", "CERT_NOT_YET_VALID", "CERT_UNKNOWN_CA",
            "CERT_UNSUPPORTED", "CERT_CHAIN", "CERT_SIGNATURE", "CERT_NAME"} <= set(seen), seen
    tally("ctrl certificate vs the software client", len(cases))


def test_cached_certificate_mode(w):  # noqa: F811
    """The record a full verification leaves, then the cache's answers: the same leaf and name pass
    on the times alone; another name, another leaf or the cache off verify the chain again; the
    clock past notAfter (or before notBefore) fails on the record's times; a name past 63 bytes is
    never cached."""
    pki = w["pki"]
    leaf, ca, other = der(pki.server_pem), der(pki.ca_pem), der(w["no_san"][0])
    cert = x509.load_der_x509_certificate(leaf)
    nb, na = (t.strftime("%Y%m%d%H%M%S").encode() for t in (cert.not_valid_before_utc, cert.not_valid_after_utc))
    now = digits(time.time())
    m = model.Machine()
    assert run(m, cert_body([leaf]), [ca], now, cache=1) == "OK"
    rec = bytes(m.mem[CC:CC + 189])
    assert rec[0] == 1 and rec[1:33] == hashlib.sha256(leaf).digest() and rec[33:97] == key_of(leaf)
    assert rec[97:111] == nb and rec[111:125] == na and rec[125] == 9 and rec[126:135] == b"localhost"

    # The same leaf: its chain is not looked at (no anchor would take it, a broken issuer follows it)
    m.load(LK, bytes(64))
    assert run(m, cert_body([leaf, b"\x30\x00"]), [], now, cache=1) == "OK"
    assert bytes(m.mem[LK:LK + 64]) == key_of(leaf)
    assert run(m, cert_body([leaf]), [], now, name=b"LOCALHOST", cache=1) == "CERT_UNKNOWN_CA"   # bytes, not names
    assert run(m, cert_body([leaf]), [], now, name=None, cache=1) == "OK"                        # any name
    assert run(m, cert_body([leaf]), [], now, cache=0) == "CERT_UNKNOWN_CA"
    assert run(m, cert_body([other]), [], now, cache=1) == "CERT_UNKNOWN_CA"
    day = datetime.timedelta(days=1)
    assert run(m, cert_body([leaf]), [], (cert.not_valid_after_utc + day).strftime("%Y%m%d%H%M%S").encode(),
               cache=1) == "CERT_EXPIRED"
    assert run(m, cert_body([leaf]), [], (cert.not_valid_before_utc - day).strftime("%Y%m%d%H%M%S").encode(),
               cache=1) == "CERT_NOT_YET_VALID"
    assert bytes(m.mem[CC:CC + 189]) == rec                  # none of that touched the record

    # A record the bus broke: a name length past the limit matches nothing
    m.load(CC + 125, b"\x40")
    assert run(m, cert_body([leaf]), [], now, cache=1) == "CERT_UNKNOWN_CA"
    # Refilled by a full verification without a name; then a name too long to keep
    assert run(m, cert_body([leaf]), [ca], now, name=None, cache=1) == "OK"
    assert m.mem[CC] == 1 and m.mem[CC + 125] == 0
    assert run(m, cert_body([leaf]), [], now, name=b"localhost", cache=1) == "CERT_UNKNOWN_CA"
    assert run(m, cert_body([der(w["multi_san"][0])]), [ca], now, name=b"b.example", cache=1) == "OK"
    assert m.mem[CC + 125] == 9 and bytes(m.mem[CC + 1:CC + 33]) == hashlib.sha256(der(w["multi_san"][0])).digest()
    long_name = b"a" * 64
    assert run(m, cert_body([leaf]), [ca], now, name=long_name, cache=1) == "CERT_NAME"
    assert m.mem[CC] == 1                                   # a failure leaves the record


def test_refusals(w):  # noqa: F811
    """Inputs past CHAIN_TOP, a body that ends before it begins, and a mode that is neither 0 nor 1."""
    m = model.Machine()
    top = EQU["CHAIN_TOP"]
    base = {3: 0, 4: 0, 5: 0, 6: 0, 7: 0, 8: 0, 9: 0}
    assert m.run("CERTIFICATE", {**base, 1: 0, 2: top + 1}) == "BAD_INPUT"
    assert m.run("CERTIFICATE", {**base, 1: 5, 2: 4}) == "BAD_INPUT"
    assert m.run("CERTIFICATE", {**base, 1: 0, 2: 0, 9: 2}) == "BAD_INPUT"
    body = cert_body([der(w["pki"].server_pem)])
    m.load(0, body)
    assert m.run("CERTIFICATE", {**base, 1: 0, 2: len(body), 3: len(body), 4: top + 1}) == "BAD_INPUT"


@pytest.mark.parametrize("body, want", [(b"", "OK"), (b"\x00", "DECODE_ERROR"), (bytes(4), "DECODE_ERROR")])
def test_server_hello_done(body, want):
    """An empty ServerHelloDone (RFC 5246 7.4.5), anything else refused as the client does."""
    m = model.Machine()
    m.load(0x100, body)
    assert m.run("SERVER_HELLO_DONE", {1: 0x100, 2: 0x100 + len(body)}) == want


def test_server_hello_done_as_the_software_client(w):  # noqa: F811
    """The software client's answers to a ServerHelloDone after a good flight: decode_error for one
    with a byte in it, as SERVER_HELLO_DONE's DECODE_ERROR says; its own flight for an empty one."""
    from ctrl.test_ctrl_ske import ske_body
    pki = w["pki"]
    key = serialization.load_pem_private_key(pki.server_key.read_bytes(), None)
    sr = server_hello()[2:34]
    body = cert_body([der(pki.server_pem)])

    def reply(shd):
        def r(hello):
            cr = hello[13 + 12 + 2:13 + 12 + 34]
            return (record(0, 2, 0, server_hello()) + record(1, 11, 1, body) + record(2, 12, 2, ske_body(key, cr, sr)) +
                    record(3, 14, 3, shd))
        return r
    assert sw_answer(pki, reply(b"\x00")) == 50
    assert sw_answer(pki, reply(b""), flight=True) == ("flight", None)
