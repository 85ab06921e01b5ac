"""The ctrl engine's hellos (rtl/ctrl/programs/hello.s: CLIENT_HELLO, HELLO_VERIFY, SERVER_HELLO) on
its Python model, against the software client itself: `se client --suites ccm8,gcm` sends its
ClientHello to a UDP socket here, which answers with a HelloVerifyRequest built from RFC 6347 4.2.1
and takes the second ClientHello. The controller's two hellos must be byte for byte the client's
but for the client random (the DRBG's: tests/drbg_model.py), and the transcript must start with the
second one. HELLO_VERIFY's refusals (DECODE_ERROR) follow RFC 6347's layout and the software
client's limit of a 32-byte cookie; they leave the state as it was. SERVER_HELLO is held to the
client's verdict on the same ServerHello: the socket answers the client's hello with it, and the
client's alert (or its silence, waiting for the server's Certificate) must be what the program's
status names."""
import hashlib
import random
import socket
import struct
import subprocess
import sys

import pytest

from drbg_model import HmacDrbg
from proto.pki import make_pki
from proto.test_collector import client_args
from se_cli import ROOT

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_asm as asm  # noqa: E402
import ctrl_isa as isa  # noqa: E402
import ctrl_model as model  # noqa: E402

EQU = asm.load().equ
OUT, HVR, DIGEST = 0x0100, 0x0300, 0x0400
RANDOM_AT = 12 + 2                  # where a ClientHello message's random starts


def handshake_msg(mtype, seq, body):
    """A DTLS handshake message, whole in one fragment (RFC 6347 4.2.2): type, length, message_seq,
    fragment_offset 0, fragment_length = length, the body."""
    return bytes([mtype]) + len(body).to_bytes(3, "big") + seq.to_bytes(2, "big") + bytes(3) + \
        len(body).to_bytes(3, "big") + body


def hvr_record(cookie, seq=0):
    """A HelloVerifyRequest in a DTLS record (RFC 6347 4.1, 4.2.1, 4.2.2): epoch 0, message_seq 0."""
    msg = handshake_msg(3, 0, b"\xfe\xfd" + bytes([len(cookie)]) + cookie)
    return bytes([22]) + b"\xfe\xfd" + bytes(2) + seq.to_bytes(6, "big") + len(msg).to_bytes(2, "big") + msg


def sw_hellos(tmp_path, cookie):
    """The software client's first and second ClientHello messages (each the one message of the one
    record of a datagram), with a HelloVerifyRequest carrying `cookie` between them."""
    pki = make_pki(tmp_path / "pki")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        s.settimeout(20)
        p = subprocess.Popen(client_args(s.getsockname()[1], pki, cert=(None, None), extra=("--suites", "ccm8,gcm", "--timeout", "20")),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            first, peer = s.recvfrom(4096)
            s.sendto(hvr_record(cookie), peer)
            while True:   # (a resent first hello, should one cross the request)
                second, _ = s.recvfrom(4096)
                if second != first:
                    break
        finally:
            p.kill()
            p.wait()
    for rec in (first, second):
        assert rec[0] == 22 and int.from_bytes(rec[11:13], "big") == len(rec) - 13
    return first[13:], second[13:]


def seeded(entropy):
    m = model.Machine()
    m.load(EQU["ENT_AT"], entropy)
    assert m.run("DRBG_SEED", {1: len(entropy), 2: OUT, 3: OUT, 4: 0}) == "OK"
    return m


def test_hellos_are_the_software_clients(tmp_path):
    rng = random.Random(6347)
    cookie = rng.randbytes(20)
    sw1, sw2 = sw_hellos(tmp_path, cookie)
    entropy = rng.randbytes(32)
    m = seeded(entropy)
    assert m.run("CLIENT_HELLO", {1: OUT, 2: 0}) == "OK"
    hw1 = m.out["MESSAGE"]
    random_ = HmacDrbg(entropy, b"", b"").generate(32, b"")
    assert hw1[RANDOM_AT:RANDOM_AT + 32] == random_
    assert hw1 == sw1[:RANDOM_AT] + random_ + sw1[RANDOM_AT + 32:]
    m.load(HVR, hvr_record(cookie)[13 + 12:])
    assert m.run("HELLO_VERIFY", {1: HVR, 2: HVR + 3 + len(cookie)}) == "OK"
    assert m.run("CLIENT_HELLO", {1: OUT, 2: 1}) == "OK"
    hw2 = m.out["MESSAGE"]
    assert hw2 == sw2[:RANDOM_AT] + random_ + sw2[RANDOM_AT + 32:]
    assert m.run("TS_HASH", {1: DIGEST}) == "OK"
    assert bytes(m.mem[DIGEST:DIGEST + 32]) == hashlib.sha256(hw2).digest()


def test_each_first_hello_has_a_new_random():
    m = seeded(bytes(range(32)))
    randoms = set()
    for _ in range(3):
        assert m.run("CLIENT_HELLO", {1: OUT, 2: 0}) == "OK"
        randoms.add(m.out["MESSAGE"][RANDOM_AT:RANDOM_AT + 32])
        assert len(m.out["MESSAGE"]) == 89
    assert len(randoms) == 3
    assert model.Machine().run("CLIENT_HELLO", {1: OUT, 2: 0}) == "NO_ENTROPY"


@pytest.mark.parametrize("body", [
    b"", b"\xfe\xfd", b"\xfe\xfd\x00", b"\xfe\xfd\x05abcd", b"\xfe\xfd\x04abcde", b"\xfe\xfd\x21" + bytes(33),
    b"\xfe\xfd\x01",
])
def test_hello_verify_refusals(body):
    """Short, truncated, trailing bytes, an empty cookie, a cookie of 33 bytes: DECODE_ERROR, and the
    second ClientHello still carries the cookie kept before."""
    m = seeded(bytes(32))
    m.load(HVR, b"\xfe\xfd\x02ok")
    assert m.run("HELLO_VERIFY", {1: HVR, 2: HVR + 5}) == "OK"
    m.load(HVR, body)
    assert m.run("HELLO_VERIFY", {1: HVR, 2: HVR + len(body)}) == "DECODE_ERROR"
    assert m.run("CLIENT_HELLO", {1: OUT, 2: 0}) == "OK"          # (a first hello forgets the cookie ...)
    m.load(HVR, b"\xfe\xfd\x02ok")
    assert m.run("HELLO_VERIFY", {1: HVR, 2: HVR + 5}) == "OK"
    m.load(HVR, body)
    assert m.run("HELLO_VERIFY", {1: HVR, 2: HVR + len(body)}) == "DECODE_ERROR"
    assert m.run("CLIENT_HELLO", {1: OUT, 2: 1}) == "OK"          # (... a refused request keeps it)
    assert m.out["MESSAGE"][RANDOM_AT + 32:RANDOM_AT + 36] == b"\x00\x02ok"


def test_a_32_byte_cookie():
    m = seeded(bytes(32))
    m.load(HVR, b"\xfe\xfd\x20" + bytes(range(32)))
    assert m.run("HELLO_VERIFY", {1: HVR, 2: HVR + 35}) == "OK"
    assert m.run("CLIENT_HELLO", {1: OUT, 2: 1}) == "OK"
    assert len(m.out["MESSAGE"]) == 89 + 32


@pytest.mark.parametrize("prog, regs", [
    ("CLIENT_HELLO", {1: OUT, 2: 2}), ("CLIENT_HELLO", {1: isa.SECRET_BASE - 88, 2: 0}),
    ("CLIENT_HELLO", {1: EQU["HS_AT"] - 80, 2: 0}), ("CLIENT_HELLO", {1: EQU["TS_AT"] + 8, 2: 0}),
    ("HELLO_VERIFY", {1: EQU["HS_AT"] + 4, 2: EQU["HS_AT"] + 10}), ("HELLO_VERIFY", {1: HVR + 4, 2: HVR}),
])
def test_refusals(prog, regs):
    m = seeded(bytes(32))
    assert m.run(prog, regs) == "BAD_INPUT"


@pytest.mark.parametrize("n", [33, 0xff])
def test_a_cookie_length_the_bus_wrote(n):
    """The bus may write the hellos' state: a cookie length past 32 is refused (BAD_INPUT)."""
    m = seeded(bytes(32))
    m.load(EQU["HS_AT"] + 32, bytes([n]))
    assert m.run("CLIENT_HELLO", {1: OUT, 2: 1}) == "BAD_INPUT"


# ---- SERVER_HELLO against the software client's verdicts --------------------------------------
ALERT = {"OK": None, "DECODE_ERROR": 50, "PROTOCOL_VERSION": 70, "ILLEGAL_PARAMETER": 47,
         "UNSUPPORTED_EXTENSION": 110, "HANDSHAKE_FAILURE": 40}    # RFC 5246 7.2, RFC 6066


def ext(etype, data):
    return struct.pack(">HH", etype, len(data)) + data


def server_hello(version=b"\xfe\xfd", sid=b"", suite=b"\xc0\xae", comp=b"\x00", exts=None, raw_exts=None):
    """A ServerHello's body from RFC 5246 7.4.1.3 (extensions: RFC 7627, RFC 5746, RFC 8422)."""
    if exts is None:
        exts = [ext(23, b""), ext(0xff01, b"\x00"), ext(11, b"\x01\x00")]
    body = version + bytes(range(32)) + bytes([len(sid)]) + sid + suite + comp
    if raw_exts is not None:
        return body + raw_exts
    e = b"".join(exts)
    return body + struct.pack(">H", len(e)) + e if exts != [] else body


def sh_record(body):
    msg = handshake_msg(2, 0, body)
    return bytes([22]) + b"\xfe\xfd" + bytes(8) + len(msg).to_bytes(2, "big") + msg


def sw_answer(pki, reply, client_cert=False, flight=False):
    """Runs `se client` (with node-1's certificate if client_cert) against a socket here: reply(its
    ClientHello datagram) is the datagram the socket sends back. The client's answer: its alert's
    description, or None when it says nothing within 0.7 s (it took what it got and waits for more),
    or with `flight`, when it sends its second flight: ("flight", whether its Certificate message
    carries a chain, or None without one)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        s.settimeout(20)
        p = subprocess.Popen(client_args(s.getsockname()[1], pki, cert=None if client_cert else (None, None),
                                         extra=("--suites", "ccm8,gcm", "--timeout", "10", "--retransmit-ms", "5000")),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            hello, peer = s.recvfrom(4096)
            s.sendto(reply(hello), peer)
            s.settimeout(0.7)
            try:
                data, _ = s.recvfrom(4096)
            except socket.timeout:
                return None
            if flight and data[0] == 22:
                if data[13] != 11:   # no Certificate (none asked for): ClientKeyExchange first
                    return "flight", None
                return "flight", data[13 + 12:13 + 15] != bytes(3)
            assert data[0] == 21 and len(data) == 15, data.hex()   # a plaintext alert (epoch 0)
            return data[14]
        finally:
            p.kill()
            p.wait()


def server_hellos():
    """Good ServerHellos and ones broken in every field the client checks, then random mutations."""
    good = server_hello()
    bodies = [good, server_hello(suite=b"\xc0\x2b"), server_hello(sid=bytes(32)), server_hello(sid=b"x"),
              server_hello(exts=[ext(23, b"")]), server_hello(exts=[ext(11, b"\x02\x01\x00"), ext(23, b""), ext(23, b"")]),
              server_hello(sid=bytes(33)), server_hello(version=b"\xfe\xff"), server_hello(version=b"\x03\x03"),
              server_hello(suite=b"\xc0\x23"), server_hello(suite=b"\x00\x00"), server_hello(comp=b"\x01"),
              server_hello(exts=[]), server_hello(exts=[ext(0xff01, b"\x00")]),
              server_hello(exts=[ext(23, b"\x00")]), server_hello(exts=[ext(23, b""), ext(0xff01, b"\x01\x00")]),
              server_hello(exts=[ext(23, b""), ext(0xff01, b"")]), server_hello(exts=[ext(23, b""), ext(0xff01, b"\x00\x00")]),
              server_hello(exts=[ext(23, b""), ext(11, b"\x01\x01")]), server_hello(exts=[ext(23, b""), ext(11, b"\x00")]),
              server_hello(exts=[ext(23, b""), ext(11, b"\x02\x00")]), server_hello(exts=[ext(23, b""), ext(11, b"")]),
              server_hello(exts=[ext(23, b""), ext(22, b"")]), server_hello(exts=[ext(23, b""), ext(54, b"\x00")]),
              server_hello(exts=[ext(23, b""), ext(0x01ff, b"")]), server_hello(exts=[ext(0xff02, b""), ext(23, b"")]),
              server_hello(raw_exts=b"\x00"), server_hello(raw_exts=b"\x00\x05" + ext(23, b"")),
              server_hello(raw_exts=b"\x00\x03" + ext(23, b"")), server_hello(raw_exts=b"\x00\x02\x00\x17"),
              server_hello(raw_exts=b"\x00\x00"), server_hello(raw_exts=b"\x00\x04" + ext(23, b"") + b"\x00")]
    bodies += [good[:n] for n in (0, 1, 2, 34, 35, 37, 38, 39, 40, len(good) - 1)]
    rng = random.Random(5246)
    for _ in range(16):
        b = bytearray(good)
        b[rng.choice((0, 1, 34, 35, 36, 37, 38, 39, 40, rng.randrange(len(b))))] ^= 1 << rng.randrange(8)
        bodies.append(bytes(b))
    return bodies


def test_server_hello_as_the_software_client(tmp_path, tally):
    pki = make_pki(tmp_path / "pki")
    m = seeded(bytes(32))
    seen = {}
    for body in server_hellos():
        m.load(HVR, body)
        st = m.run("SERVER_HELLO", {1: HVR, 2: HVR + len(body)})
        assert st in ALERT, st
        assert sw_answer(pki, lambda hello: sh_record(body)) == ALERT[st], (body.hex(), st)
        if st == "OK":
            assert bytes(m.mem[EQU["HS_AT"] + 68:EQU["HS_AT"] + 100]) == body[2:34]
        seen[st] = seen.get(st, 0) + 1
    assert set(seen) == set(ALERT), seen
    tally("ctrl server_hello vs the software client", sum(seen.values()))
