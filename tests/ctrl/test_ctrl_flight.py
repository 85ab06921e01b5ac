"""The ctrl engine's CLIENT_FLIGHT (rtl/ctrl/programs/flight.s) on its Python model, at the end of a
whole client handshake run program by program: the model's hellos, a server flight the test builds
from the RFCs with the `cryptography` package (ServerHello, the `se certs` server's Certificate, a
signed ServerKeyExchange, a CertificateRequest or none, ServerHelloDone), each message through the
model's program for it and into its transcript. The test then plays the server's part:

  - the flight's messages and their DTLS headers (RFC 6347 4.2.2), message_seq going on from the
    second ClientHello, and the Certificate message carrying the node's chain exactly when the
    request fits (RFC 5246 7.4.6);
  - the premaster from the server's ECDHE key and the ClientKeyExchange point (`cryptography`), the
    master secret with RFC 7627's session hash over the messages as sent, the key block (the PRF
    written from RFC 5246, tests/tls_prf.py) against the AES key slots and the IVs;
  - CertificateVerify verified with the node's public key (`cryptography`), its DER strict;
  - the client's Finished, and the server's Finished over the transcript with it accepted by
    FINISHED.

Then the refusals: slots, spans, and a server that sent no usable point."""
import hashlib
import random
import struct
import sys
import time

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, decode_dss_signature, encode_dss_signature

from ctrl.test_ctrl_chain import cert_body, digits, entries
from ctrl.test_ctrl_hello import handshake_msg, seeded, server_hello
from ctrl.test_ctrl_ske import cert_request, ske_body
from proto.pki import der, make_pki
from se_cli import ROOT
from tls_prf import p_sha256 as prf

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_asm as asm  # noqa: E402

EQU = asm.load().equ
HS = EQU["HS_AT"]
MSG, IN, CHAIN, FLIGHT = 0x0000, 0x0100, 0x0480, 0x0640


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return make_pki(tmp_path_factory.mktemp("flight"))


def run_to_flight(pki, rng, request=None, chain=True, slots=(0, 1)):
    """The model through the server's flight; then CLIENT_FLIGHT. Returns (status, the model, what the
    server knows: its ECDHE key, the messages so far, the randoms, the node's key)."""
    m = seeded(rng.randbytes(32))
    assert m.run("CLIENT_HELLO", {1: MSG, 2: 0}) == "OK"
    cookie = rng.randbytes(16)
    m.load(IN, b"\xfe\xfd" + bytes([len(cookie)]) + cookie)
    assert m.run("HELLO_VERIFY", {1: IN, 2: IN + 3 + len(cookie)}) == "OK"
    assert m.run("CLIENT_HELLO", {1: MSG, 2: 1}) == "OK"
    msgs = [m.out["MESSAGE"]]
    cr = bytes(m.mem[HS:HS + 32])
    skey = serialization.load_pem_private_key(pki.server_key.read_bytes(), None)
    eph = ec.generate_private_key(ec.SECP256R1())
    sh = server_hello()
    sr = sh[2:34]
    point = eph.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    flight = [(2, "SERVER_HELLO", sh), (11, "CERTIFICATE", cert_body([der(pki.server_pem)])),
              (12, "SERVER_KEY_EXCHANGE", ske_body(skey, cr, sr, point=point))]
    if request is not None:
        flight.append((13, "CERTIFICATE_REQUEST", request))
    flight.append((14, "SERVER_HELLO_DONE", b""))
    anchors = entries([der(pki.ca_pem)])
    for seq, (mtype, prog, body) in enumerate(flight, start=1):
        msg = handshake_msg(mtype, seq, body)
        msgs.append(msg)
        m.load(IN, msg)
        assert m.run("TS_ADD", {1: IN, 2: IN + len(msg)}) == "OK"
        regs = {1: IN + 12, 2: IN + len(msg)}
        if prog == "CERTIFICATE":
            at = IN + len(msg)
            m.load(at, anchors + digits(time.time()) + b"localhost")
            regs.update({3: at, 4: at + len(anchors), 5: at + len(anchors), 6: at + len(anchors) + 14,
                         7: at + len(anchors) + 23, 8: 1, 9: 0})
        assert m.run(prog, regs) == "OK", prog
    cert_pem, key_pem = pki.client("node-1")
    node_key = serialization.load_pem_private_key(key_pem.read_bytes(), None)
    m.load(EQU["CK_AT"], node_key.private_numbers().private_value.to_bytes(32, "big"))
    node_chain = entries([der(cert_pem)]) if chain else b""
    m.load(CHAIN, node_chain)
    st = m.run("CLIENT_FLIGHT", {1: FLIGHT, 2: CHAIN, 3: CHAIN + len(node_chain), 4: slots[0], 5: slots[1]})
    return st, m, {"eph": eph, "msgs": msgs, "cr": cr, "sr": sr, "node": node_key, "chain": node_chain}


def split(flight):
    """The flight's handshake messages: (type, message_seq, body, the whole message)."""
    out, at = [], 0
    while at < len(flight):
        mtype, n, seq, off, frag = flight[at], int.from_bytes(flight[at + 1:at + 4], "big"), \
            int.from_bytes(flight[at + 4:at + 6], "big"), int.from_bytes(flight[at + 6:at + 9], "big"), \
            int.from_bytes(flight[at + 9:at + 12], "big")
        assert off == 0 and frag == n
        out.append((mtype, seq, flight[at + 12:at + 12 + n], flight[at:at + 12 + n]))
        at += 12 + n
    assert at == len(flight)
    return out


def check_flight(m, srv, slots, with_cert, with_chain, first_seq=2):
    msgs = split(m.out["MESSAGE"])
    want = ([11] if with_cert else []) + [16] + ([15] if with_chain else []) + [20]
    assert [t for t, _, _, _ in msgs] == want
    assert [s for _, s, _, _ in msgs] == list(range(first_seq, first_seq + len(want)))   # the client's own count
    assert m.out["MESSAGE"][-24:] == msgs[-1][3]                      # Finished last, 24 bytes
    sent = srv["msgs"]
    it = iter(msgs)
    if with_cert:
        _, _, body, whole = next(it)
        lst = srv["chain"] if with_chain else b""
        assert body == len(lst).to_bytes(3, "big") + lst
        sent = sent + [whole]
    _, _, body, whole = next(it)
    assert body[0] == 65 and len(body) == 66
    node_pub = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), body[1:])
    pms = srv["eph"].exchange(ec.ECDH(), node_pub)
    sent = sent + [whole]
    session_hash = hashlib.sha256(b"".join(sent)).digest()
    ms = prf(pms, b"extended master secret" + session_hash, 48)
    kb = prf(ms, b"key expansion" + srv["sr"] + srv["cr"], 40)
    assert m.aes == {slots[0]: kb[:16], slots[1]: kb[16:32]}
    assert bytes(m.mem[HS + EQU["HS_IV"]:HS + EQU["HS_IV"] + 8]) == kb[32:40]
    if with_chain:
        _, _, body, whole = next(it)
        assert body[:2] == b"\x04\x03" and int.from_bytes(body[2:4], "big") == len(body) - 4
        sig = body[4:]
        r, s = decode_dss_signature(sig)
        assert encode_dss_signature(r, s) == sig                      # strict DER
        srv["node"].public_key().verify(sig, session_hash, ec.ECDSA(Prehashed(hashes.SHA256())))
        sent = sent + [whole]
    _, _, body, whole = next(it)
    assert body == prf(ms, b"client finished" + hashlib.sha256(b"".join(sent)).digest(), 12)
    sent = sent + [whole]
    # The server's Finished over the transcript with the client's: FINISHED takes it
    m.run("TS_HASH", {1: IN})
    assert bytes(m.mem[IN:IN + 32]) == hashlib.sha256(b"".join(sent)).digest()
    m.load(IN + 32, prf(ms, b"server finished" + hashlib.sha256(b"".join(sent)).digest(), 12))
    assert m.run("FINISHED", {1: IN, 2: 1, 3: IN + 32}) == "OK"
    assert bytes(m.mem[EQU["PMS_AT"]:EQU["PMS_AT"] + 32]) == bytes(32)   # the premaster, used once
    assert kb[:16] not in m.mem and kb[16:32] not in m.mem


@pytest.mark.parametrize("request_, chain, with_cert, with_chain", [
    (None, True, False, False),                                     # no request: no Certificate
    (cert_request(), True, True, True),                             # ours fits: the chain and CertificateVerify
    (cert_request(algs=b"\x04\x01"), True, True, False),            # asked, ours does not fit: an empty list
    (cert_request(), False, True, False),                           # asked, no chain of ours: an empty list
])
def test_flight_as_the_server_reads_it(pki, request_, chain, with_cert, with_chain):
    rng = random.Random(6347)
    st, m, srv = run_to_flight(pki, rng, request_, chain, slots=(2, 0))
    assert st == "OK"
    check_flight(m, srv, (2, 0), with_cert, with_chain)


def test_flights_differ_each_handshake(pki, tally):
    """Three handshakes, each its DRBG seeded anew: new randoms and ECDHE keys, so new flights, each
    one checking out."""
    rng = random.Random(7627)
    points = set()
    for _ in range(3):
        st, m, srv = run_to_flight(pki, rng, cert_request())
        assert st == "OK"
        points.add(split(m.out["MESSAGE"])[1][2])
        check_flight(m, srv, (0, 1), True, True)
    assert len(points) == 3
    tally("ctrl client flights checked as the server", 3)


def test_refusals(pki):
    """Slots out of range or the same; a flight over the chain, over the handshake's state or past
    the secret top: BAD_INPUT, and the transcript and message_seq as they were."""
    rng = random.Random(1)
    st, m, srv = run_to_flight(pki, rng, cert_request(), slots=(0, 1))
    assert st == "OK"
    chain = srv["chain"]
    state = bytes(m.mem[HS:HS + EQU["HS_BYTES"] + 0x68])
    for regs in ({4: 4, 5: 0}, {4: 1, 5: 1}, {4: 0, 5: 9},
                 {1: CHAIN + 10},                                     # over the chain
                 {1: CHAIN - 100},                                    # its end over the chain
                 {1: HS - 100},                                       # over the handshake's state
                 {1: EQU["SECRET_BASE"] - 50},                        # past the secret top
                 {2: CHAIN + 4, 3: CHAIN}):                           # a chain that ends before it begins
        base = {1: FLIGHT, 2: CHAIN, 3: CHAIN + len(chain), 4: 0, 5: 1}
        assert m.run("CLIENT_FLIGHT", {**base, **regs}) == "BAD_INPUT", regs
        assert bytes(m.mem[HS:HS + EQU["HS_BYTES"] + 0x68]) == state, regs
    # no chain, its (empty) place inside the flight's: fine
    assert m.run("CLIENT_FLIGHT", {1: FLIGHT, 2: FLIGHT + 40, 3: FLIGHT + 40, 4: 0, 5: 1}) == "OK"
    # a chain right below the flight, and right above it: fine
    m2 = run_to_flight(pki, random.Random(2), cert_request())[1]
    n = len(chain)
    m2.load(FLIGHT - n, chain)
    assert m2.run("CLIENT_FLIGHT", {1: FLIGHT, 2: FLIGHT - n, 3: FLIGHT, 4: 0, 5: 1}) == "OK"
    assert split(m2.out["MESSAGE"])[0][2] == len(chain).to_bytes(3, "big") + chain


def test_a_point_that_is_not_one(pki):
    """The server's point as the bus may have rewritten it after SERVER_KEY_EXCHANGE: ECDHE's
    INVALID_POINT, with no flight and no keys."""
    m2 = seeded(b"\x01" * 32)
    m2.load(HS + EQU["HS_SP"], bytes(range(64)))
    m2.load(HS + EQU["HS_MSEQ"], struct.pack(">H", 2))
    assert m2.run("CLIENT_FLIGHT", {1: FLIGHT, 2: CHAIN, 3: CHAIN, 4: 0, 5: 1}) == "INVALID_POINT"
    assert m2.aes == {} and "MESSAGE" not in m2.out
