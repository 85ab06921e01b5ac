"""The ctrl engine's SERVER_KEY_EXCHANGE (rtl/ctrl/programs/ske.s) on its Python model, held to the
software client's verdicts: a socket of the test plays the server, answering `se client`'s
ClientHello with a flight of ServerHello, Certificate (the `se certs` server's chain) and a
ServerKeyExchange signed with the server's key by the `cryptography` package over the client's
random (RFC 8422 5.4), good or broken in one of the fields the client checks. The client's alert, or
its silence as it waits for the rest of the flight, must be what the program's status names, with
the model given the same randoms and the leaf's key; OK keeps the server's point."""
import random
import struct
import sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

from ctrl.test_ctrl_chain import cert_body
from ctrl.test_ctrl_hello import ALERT, HVR, handshake_msg, seeded, server_hello, sw_answer
from proto.pki import der, make_pki
from se_cli import ROOT

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_asm as asm  # noqa: E402

EQU = asm.load().equ
ALERTS = {**ALERT, "DECRYPT_ERROR": 51}
SKE_AT = 0x0400


def record(seq, mtype, mseq, body):
    msg = handshake_msg(mtype, mseq, body)
    return bytes([22]) + b"\xfe\xfd" + bytes(2) + seq.to_bytes(6, "big") + len(msg).to_bytes(2, "big") + msg


def ske_body(key, cr, sr, point=None, curve=b"\x03\x00\x17", alg=b"\x04\x03", sig=None, edit=None):
    """A ServerKeyExchange's body (RFC 8422 5.4): ECParameters, the point, the signature over
    client_random || server_random || params; `edit` changes the signature's DER before it goes in."""
    if point is None:
        pub = ec.generate_private_key(ec.SECP256R1()).public_key()
        point = pub.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    params = curve + bytes([len(point)]) + point
    if sig is None:
        sig = key.sign(cr + sr + params, ec.ECDSA(hashes.SHA256()))
    if edit:
        sig = edit(sig)
    return params + alg + struct.pack(">H", len(sig)) + sig


def sw_verdicts(pki, cases):
    """The software client's answer to a flight of ServerHello, Certificate and the ServerKeyExchange
    cases[i](client_random) for each i (tests/ctrl/test_ctrl_hello.py sw_answer), and what was sent:
    (the client random, the body)."""
    chain = der(pki.server_pem)
    cert = cert_body([chain])
    got, sent = [], []

    def flight(case):
        def reply(hello):
            cr = hello[13 + 12 + 2:13 + 12 + 34]
            sent.append((cr, case(cr)))
            return record(0, 2, 0, server_hello()) + record(1, 11, 1, cert) + record(2, 12, 2, sent[-1][1])
        return reply
    for case in cases:
        got.append(sw_answer(pki, flight(case)))
    return got, sent


def test_ske_as_the_software_client(tmp_path, tally):
    pki = make_pki(tmp_path / "pki")
    key = serialization.load_pem_private_key(pki.server_key.read_bytes(), None)
    n = key.public_key().public_numbers()
    leaf = n.x.to_bytes(32, "big") + n.y.to_bytes(32, "big")
    sr = server_hello()[2:34]
    rng = random.Random(8422)
    other = ec.generate_private_key(ec.SECP256R1())

    def flip(i):
        return lambda sig: sig[:i] + bytes([sig[i] ^ 1]) + sig[i + 1:]

    def low_s(sig):   # the same signature with s replaced by n - s: valid too
        r, s = decode_dss_signature(sig)
        return encode_dss_signature(r, 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551 - s)

    cases = [
        lambda cr: ske_body(key, cr, sr), lambda cr: ske_body(key, cr, sr, edit=low_s),
        lambda cr: ske_body(key, cr, sr)[:3], lambda cr: ske_body(key, cr, sr)[:40], lambda cr: ske_body(key, cr, sr)[:70],
        lambda cr: ske_body(key, cr, sr)[:72], lambda cr: ske_body(key, cr, sr) + b"\0",
        lambda cr: ske_body(key, cr, sr, curve=b"\x03\x00\x18"), lambda cr: ske_body(key, cr, sr, curve=b"\x01\x00\x17"),
        lambda cr: ske_body(key, cr, sr, point=b"\x04" + bytes(63)), lambda cr: ske_body(key, cr, sr, point=b"\x02" + bytes(64)),
        lambda cr: ske_body(key, cr, sr, point=b"\x04" + bytes(range(64))),
        lambda cr: ske_body(key, cr, sr, alg=b"\x04\x01"), lambda cr: ske_body(key, cr, sr, alg=b"\x05\x03"),
        lambda cr: ske_body(other, cr, sr), lambda cr: ske_body(key, cr, sr, edit=flip(10)),
        lambda cr: ske_body(key, cr, sr, edit=flip(0)), lambda cr: ske_body(key, cr, sr, edit=flip(1)),
        lambda cr: ske_body(key, cr, sr, edit=flip(2)), lambda cr: ske_body(key, cr, sr, edit=flip(3)),
        lambda cr: ske_body(key, cr, sr, edit=lambda s: s + b"\0"), lambda cr: ske_body(key, cr, sr, edit=lambda s: s[:-1]),
        lambda cr: ske_body(key, cr, sr, sig=b"\x30\x06\x02\x01\x00\x02\x01\x01"),
        lambda cr: ske_body(key, cr, sr, sig=b"\x30\x07\x02\x02\x00\x01\x02\x01\x01"),
        lambda cr: ske_body(key, cr, sr, sig=b"\x30\x06\x02\x01\x81\x02\x01\x01"),
        lambda cr: ske_body(key, cr, sr, sig=b"\x30\x81\x06\x02\x01\x01\x02\x01\x01"),
        lambda cr: ske_body(key, cr, sr, sig=b"\x30\x26\x02\x21" + bytes([1]) * 33 + b"\x02\x01\x01"),
        lambda cr: ske_body(key, cr, sr, sig=b""),
    ]
    for _ in range(6):
        i = rng.randrange(4, 80)
        cases.append(lambda cr, i=i: (lambda b: b[:i] + bytes([b[i] ^ 0x40]) + b[i + 1:])(ske_body(key, cr, sr)))
    got, sent = sw_verdicts(pki, cases)
    seen = {}
    assert len(got) == len(sent) == len(cases)
    for k, (cr, b) in enumerate(sent):
        for table in (False, True):     # pk's ladder; pk's joint comb over the leaf key's table
            m = seeded(bytes(32))
            m.load(EQU["HS_AT"], cr)
            m.load(HVR, server_hello())
            assert m.run("SERVER_HELLO", {1: HVR, 2: HVR + len(server_hello())}) == "OK"
            m.load(EQU["HS_AT"] + EQU["HS_LK"], leaf)   # (CERTIFICATE's)
            if table:                   # a cached-certificate record of that leaf (the bus may write it)
                m.load(EQU["HS_AT"] + EQU["HS_CC"] + EQU["CC_VALID"], b"\x01")
                m.load(EQU["HS_AT"] + EQU["HS_CC"] + EQU["CC_PUB"], leaf)
                assert m.run("KEY_TABLE", {1: 2}) == "OK" and m.pk.tables[2] == (n.x, n.y)
            m.load(SKE_AT, b)
            m.pk.runs.clear()
            st = m.run("SERVER_KEY_EXCHANGE", {1: SKE_AT, 2: SKE_AT + len(b)})
            assert st in ALERTS, st
            assert got[k] == ALERTS[st], (k, table, b.hex(), st, got[k])
            if st == "OK":
                assert bytes(m.mem[EQU["HS_AT"] + 100:EQU["HS_AT"] + 164]) == b[5:69]
                assert [r[:2] for r in m.pk.runs if r[2] != "BAD_SEQ"][-1] == \
                    (("ECDSA_VERIFY_COMB", 2) if table else ("ECDSA_VERIFY", 0))
            seen[st] = seen.get(st, 0) + 1
    assert {"OK", "DECODE_ERROR", "ILLEGAL_PARAMETER", "DECRYPT_ERROR"} <= set(seen) and seen["OK"] >= 2, seen
    tally("ctrl server_key_exchange vs the software client", len(sent))


def cert_request(types=b"\x40", algs=b"\x04\x03", cas=b""):
    """A CertificateRequest's body (RFC 5246 7.4.4)."""
    return bytes([len(types)]) + types + struct.pack(">H", len(algs)) + algs + struct.pack(">H", len(cas)) + cas


def test_certificate_request_as_the_software_client(tmp_path, tally):
    """CERTIFICATE_REQUEST against the software client (with a certificate of its own): after
    ServerHello, Certificate, a good ServerKeyExchange, the request and ServerHelloDone, the client
    either alerts (decode_error) or sends its flight, whose Certificate carries its chain exactly when
    the program's verdict says one of ours fits (3), and an empty list when it is only asked for (1)."""
    pki = make_pki(tmp_path / "pki")
    key = serialization.load_pem_private_key(pki.server_key.read_bytes(), None)
    sr = server_hello()[2:34]
    chain = der(pki.server_pem)
    cert = cert_body([chain])
    bodies = [cert_request(), cert_request(types=b"\x01\x40", algs=b"\x04\x01\x04\x03\x00"), cert_request(types=b"\x01"),
              cert_request(algs=b"\x04\x01"), cert_request(types=b"", algs=b""), cert_request(cas=b"\x00\x03abc"),
              cert_request(algs=b"\x03\x04\x03"), cert_request()[:-1], cert_request() + b"\x00", b"", b"\x05\x40",
              b"\x01\x40\x00\x04\x04\x03", b"\x01\x40\x00\x02\x04\x03\x00\x05ab"]
    got = []
    for body in bodies:
        def reply(hello, body=body):
            cr = hello[13 + 12 + 2:13 + 12 + 34]
            return (record(0, 2, 0, server_hello()) + record(1, 11, 1, cert) + record(2, 12, 2, ske_body(key, cr, sr)) +
                    record(3, 13, 3, body) + record(4, 14, 4, b""))
        got.append(sw_answer(pki, reply, client_cert=True, flight=True))
    for body, verdict in zip(bodies, got):
        m = seeded(bytes(32))
        m.load(SKE_AT, body)
        st = m.run("CERTIFICATE_REQUEST", {1: SKE_AT, 2: SKE_AT + len(body)})
        if st == "OK":
            own = m.mem[EQU["HS_AT"] + 164]
            assert verdict == ("flight", own == 3), (body.hex(), own, verdict)
        else:
            assert (st, verdict) == ("DECODE_ERROR", 50), (body.hex(), st, verdict)
    assert {v[1] for v in got if isinstance(v, tuple)} == {True, False} and 50 in got, got
    tally("ctrl certificate_request vs the software client", len(bodies))
