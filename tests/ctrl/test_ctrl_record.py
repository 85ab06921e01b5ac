"""The ctrl engine's HANDSHAKE and HS_RECORD (rtl/ctrl/programs/record.s) on its Python model, fed
the records a server would send, built here from RFC 6347 (4.1, 4.2.2, 4.2.3) with the `cryptography`
package:

  - the server's flight whole, and the same flight cut into fragments of every size, one record each
    or several to a record, with duplicates, retransmitted old messages and fragments out of order
    among them: the same flight comes back, byte for byte (the DRBG seeded alike), and it checks out
    as the server reads it (tests/ctrl/test_ctrl_flight.py);
  - messages out of the client's order: UNEXPECTED_MESSAGE, as the software client's
    unexpected_message alert (held to `se client` itself); after any refusal the handshake is over
    (ST_FAILED) until the next HANDSHAKE;
  - ChangeCipherSpec where it is due, early (ignored) and malformed (DECODE_ERROR);
  - mutated records of every kind: a status the program names, within the step budget, and the
    state either moved on or ST_FAILED;
  - the resends (HS_RESEND, and HS_RECORD on the server's repeat), the epochs, the server's Finished
    and what comes after it;
  - the callers' errors (BAD_INPUT), with the state as it was, and the state the bus rewrote between
    records: checked again, never a way into the secret top."""
import hashlib
import random
import sys
import time

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from ctrl.ctrl_dtls import layout, records
from ctrl.test_ctrl_chain import cert_body, digits, entries
from ctrl.test_ctrl_flight import check_flight, split
from ctrl.test_ctrl_hello import handshake_msg, seeded, server_hello, sw_answer
from ctrl.test_ctrl_ske import cert_request, ske_body
from proto.pki import der, make_pki
from se_cli import ROOT

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_asm as asm  # noqa: E402
import ctrl_isa as isa  # noqa: E402
import ctrl_model as model  # noqa: E402
from drbg_model import HmacDrbg  # noqa: E402

EQU = asm.load().equ
HS = EQU["HS_AT"]
ST = {"SH": 1, "CERT": 2, "SKE": 3, "SHD": 4, "CCS": 5, "FIN": 6, "DONE": 7, "FAILED": 8}
NAMED = {"OK", "DECODE_ERROR", "PROTOCOL_VERSION", "ILLEGAL_PARAMETER", "UNSUPPORTED_EXTENSION", "HANDSHAKE_FAILURE",
         "DECRYPT_ERROR", "UNEXPECTED_MESSAGE", "CERT_MALFORMED", "CERT_UNSUPPORTED", "CERT_EXPIRED",
         "CERT_NOT_YET_VALID", "CERT_NAME", "CERT_SIGNATURE", "CERT_CHAIN", "CERT_UNKNOWN_CA", "CERT_NOT_CA",
         "CERT_KEY_USAGE", "INVALID_POINT"}


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return make_pki(tmp_path_factory.mktemp("record"))


class Client:
    """The model with HANDSHAKE's configuration laid out in its window (anchors, now, name, the
    node's chain and key, a reassembly buffer, then the record in and the datagram out, which stays
    for a resend)."""

    def __init__(self, pki, entropy=bytes(32), buffer=0x380):
        self.m = seeded(entropy)
        cert_pem, key_pem = pki.client("node-1")
        node = serialization.load_pem_private_key(key_pem.read_bytes(), None)
        self.m.load(EQU["CK_AT"], node.private_numbers().private_value.to_bytes(32, "big"))
        self.node, self.chain = node, entries([der(cert_pem)])
        self.regs, self.rec = layout(self.m, entries([der(pki.ca_pem)]), digits(time.time()), b"localhost",
                                     self.chain, 1, buffer)

    def start(self):
        assert self.m.run("HANDSHAKE", self.regs) == "OK"
        return self.m.out["MESSAGE"]

    def record(self, body, ctype=22, epoch=0, budget=2_000_000):
        self.m.load(self.rec, body)
        return self.m.run("HS_RECORD", {1: self.rec, 2: self.rec + len(body), 3: ctype, 4: epoch}, budget=budget)

    def state(self):
        return self.m.mem[HS + EQU["HS_ST"]]

    def out(self):
        return self.m.out.get("MESSAGE", b"")


def server_flight(pki, hello_record, request=True):
    """The server's flight for the client's ClientHello (in its record): messages (type, body) and
    what the server knows (for check_flight)."""
    (_, _, _, ch), = records(hello_record)
    cr = ch[12 + 2:12 + 34]
    skey = serialization.load_pem_private_key(pki.server_key.read_bytes(), None)
    eph = ec.derive_private_key(0x5eed, ec.SECP256R1())          # (the same point every run)
    sh = server_hello()
    point = eph.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    signed = cr + sh[2:34] + b"\x03\x00\x17" + bytes([len(point)]) + point    # (RFC 6979: the same every run)
    sig = skey.sign(signed, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
    msgs = [(2, sh), (11, cert_body([der(pki.server_pem)])), (12, ske_body(skey, cr, sh[2:34], point=point, sig=sig))]
    if request:
        msgs.append((13, cert_request()))
    msgs.append((14, b""))
    return msgs, {"eph": eph, "cr": cr, "sr": sh[2:34]}


def fragments(mtype, seq, body, cuts):
    """The message as fragments cut at the offsets `cuts` (RFC 6347 4.2.3)."""
    edges = [0] + sorted(set(c for c in cuts if 0 < c < len(body))) + [len(body)]
    return [bytes([mtype]) + len(body).to_bytes(3, "big") + seq.to_bytes(2, "big") + a.to_bytes(3, "big") +
            (b - a).to_bytes(3, "big") + body[a:b] for a, b in zip(edges, edges[1:])] if body else \
        [handshake_msg(mtype, seq, body)]


def renumbered(again, first):
    """again is the datagram first with each record's sequence number new (RFC 6347 4.2.4)."""
    a, f = records(again), records(first)
    return len(a) == len(f) and all((x[0], x[1], x[3]) == (y[0], y[1], y[3]) and x[2] > y[2] for x, y in zip(a, f))


def deliver(c, recs):
    """Each record to HS_RECORD; the statuses."""
    return [c.record(r) for r in recs]


def whole_run(pki, request=True):
    c = Client(pki)
    hello = c.start()
    msgs, srv = server_flight(pki, hello, request)
    sts = deliver(c, [handshake_msg(t, i, b) for i, (t, b) in enumerate(msgs)])
    assert set(sts) == {"OK"} and c.state() == ST["CCS"], sts
    return c, hello, msgs, srv


def test_a_whole_flight_checks_out(pki):
    """Whole messages one to a record: the flight's records (epoch 0, sequence numbers on from the
    ClientHello's), ChangeCipherSpec, and Finished at HS_FIN; all of it as the server reads it."""
    for request in (True, False):
        c, hello, msgs, srv = whole_run(pki, request)
        recs = records(c.out())
        assert [(t, e, s) for t, e, s, _ in recs] == [(22, 0, 1), (20, 0, 2)] and recs[1][3] == b"\x01"
        fin = bytes(c.m.mem[HS + EQU["HS_FIN"]:HS + EQU["HS_FIN"] + 24])
        (_, _, _, ch), = records(hello)
        srv.update({"msgs": [ch] + [handshake_msg(t, i, b) for i, (t, b) in enumerate(msgs)],
                    "node": c.node, "chain": c.chain})
        c.m.out["MESSAGE"] = recs[0][3] + fin          # the flight as CLIENT_FLIGHT gave it
        check_flight(c.m, srv, (0, 1), request, request, first_seq=1)


def test_fragments_in_any_cut_give_the_same_flight(pki, tally):
    """The same flight from fragments: cut at random places, one to a record or several, old
    messages and duplicate fragments resent among them, a fragment ahead of its turn (skipped, sent
    again later): the client's answer is the whole run's, byte for byte."""
    want = whole_run(pki)[0]
    want_out = want.out()
    rng = random.Random(4223)
    for trial in range(12):
        c = Client(pki)
        msgs, _ = server_flight(pki, c.start())
        frags = []
        for i, (t, b) in enumerate(msgs):
            cuts = [rng.randrange(1, max(2, len(b))) for _ in range(rng.randrange(0, 6))]
            fs = fragments(t, i, b, cuts)
            if trial % 3 == 1 and len(fs) > 1:              # the second fragment first: skipped
                fs = [fs[1]] + fs
            if trial % 3 == 2 and i > 0:                    # a retransmission of the message before
                fs = [handshake_msg(msgs[i - 1][0], i - 1, msgs[i - 1][1])] + fs
            frags += fs + ([rng.choice(fs)] if rng.random() < 0.5 else [])
        recs, k = [], 0
        while k < len(frags):
            n = rng.randrange(1, 4)
            recs.append(b"".join(frags[k:k + n]))
            k += n
        sts, outs = [], []
        for r in recs:
            sts.append(c.record(r))
            outs += [c.out()] if c.out() else []
        assert set(sts) == {"OK"} and c.state() == ST["CCS"], (trial, sts)
        assert outs[0] == want_out, trial               # the flight; then, for each ServerHelloDone
        for again in outs[1:]:                          # repeated, the flight again with new numbers
            assert renumbered(again, want_out), trial
    tally("ctrl reassembled flights", 12)


def test_a_message_past_the_buffer(pki):
    """A fragmented message longer than the reassembly buffer: DECODE_ERROR (the software client's
    too_large, a decode_error alert); a whole one in its record needs no buffer."""
    c = Client(pki, buffer=0x100)
    msgs, _ = server_flight(pki, c.start())
    assert c.record(handshake_msg(2, 0, msgs[0][1])) == "OK"
    t, b = msgs[1]
    assert c.record(fragments(t, 1, b, [200])[0]) == "DECODE_ERROR" and c.state() == ST["FAILED"]
    c = Client(pki, buffer=0x100)
    msgs, _ = server_flight(pki, c.start())
    assert deliver(c, [handshake_msg(t, i, b) for i, (t, b) in enumerate(msgs)]) == ["OK"] * len(msgs)


@pytest.mark.parametrize("order", [
    [2, 12], [2, 11, 14], [2, 11, 12, 13, 13], [11], [2, 2], [2, 11, 12, 20]])
def test_out_of_order_as_the_software_client(pki, order):
    """Messages where the client expects another: UNEXPECTED_MESSAGE, the software client's
    unexpected_message (10) for the same messages, then ST_FAILED, and nothing more is taken."""
    c = Client(pki)
    hello = c.start()
    msgs, _ = server_flight(pki, hello)
    body = dict(msgs)
    body[20] = bytes(12)
    sts = deliver(c, [handshake_msg(t, i, body[t]) for i, t in enumerate(order)])
    assert sts[-1] == "UNEXPECTED_MESSAGE" and set(sts[:-1]) <= {"OK"}, sts
    assert c.state() == ST["FAILED"]
    assert c.record(handshake_msg(2, 0, body[2])) == "UNEXPECTED_MESSAGE"

    def reply(ch):
        cr = ch[13 + 12 + 2:13 + 12 + 34]
        key = serialization.load_pem_private_key(pki.server_key.read_bytes(), None)
        b = dict(body)
        b[12] = ske_body(key, cr, server_hello()[2:34])
        return b"".join(bytes([22]) + b"\xfe\xfd" + bytes(2) + i.to_bytes(6, "big") +
                        len(handshake_msg(t, i, b[t])).to_bytes(2, "big") + handshake_msg(t, i, b[t])
                        for i, t in enumerate(order))
    assert sw_answer(pki, reply, client_cert=True) == 10


def test_change_cipher_spec(pki):
    """Early: ignored (a retransmission, as the client takes it); not one byte 1: DECODE_ERROR; due
    (after the flight): on to the Finished, which epoch 0 does not bring."""
    c, *_ = whole_run(pki)
    c2 = Client(pki)
    c2.start()
    assert c2.record(b"\x01", ctype=20) == "OK" and c2.state() == ST["SH"]
    assert c2.record(b"\x01\x01", ctype=20) == "DECODE_ERROR" and c2.state() == ST["FAILED"]
    assert c.record(b"\x02", ctype=20) == "DECODE_ERROR"
    c, *_ = whole_run(pki)
    assert c.record(b"\x01", ctype=20) == "OK" and c.state() == ST["FIN"]
    assert c.record(handshake_msg(20, 5, bytes(12)), epoch=0) == "OK" and c.state() == ST["FIN"]   # dropped
    assert c.record(handshake_msg(20, 5, bytes(12)), epoch=1) == "BAD_FINISHED" and c.state() == ST["FAILED"]


def test_mutated_records_never_hang(pki, tally):
    """Records of the flight with bytes flipped, cut, or lengths rewritten: a status the programs
    name, within the budget, and the state moved on or ST_FAILED."""
    rng = random.Random(6347)
    base = Client(pki)
    msgs, _ = server_flight(pki, base.start())
    good = [handshake_msg(t, i, b) for i, (t, b) in enumerate(msgs)]
    seen = {}
    for k in range(60):
        c = Client(pki)
        c.start()
        recs = list(good)
        i = rng.randrange(len(recs))
        r = bytearray(recs[i])
        how = k % 3
        if how == 0:
            for _ in range(rng.randrange(1, 4)):
                r[rng.randrange(len(r))] ^= 1 << rng.randrange(8)
        elif how == 1:
            r = r[:rng.randrange(len(r))]
        else:
            at = rng.choice((1, 2, 3, 6, 7, 8, 9, 10, 11))
            r[at] = rng.randrange(256)
        recs[i] = bytes(r)
        for rec in recs:
            st = c.record(rec)
            assert st in NAMED, (k, st)
            seen[st] = seen.get(st, 0) + 1
            if st != "OK":
                assert c.state() == ST["FAILED"]
                break
        else:
            assert c.state() in (ST["CCS"], ST["SHD"], ST["SKE"], ST["CERT"], ST["SH"]), c.state()
    assert len(seen) >= 4, seen
    tally("ctrl mutated server records", 60)


def test_refusals(pki):
    """HANDSHAKE with spans past CHAIN_TOP, a buffer over the anchors, a datagram place over the
    chain, bad slots or flags; HS_RECORD with a bad type or epoch, a record over the buffer or past
    CHAIN_TOP, or before any HANDSHAKE: BAD_INPUT (UNEXPECTED_MESSAGE without a handshake), the state
    as it was."""
    c = Client(pki)
    top = EQU["CHAIN_TOP"]
    state = bytes(c.m.mem[HS:HS + EQU["HS_BYTES"]])
    assert c.record(b"\x00" * 12) == "UNEXPECTED_MESSAGE"
    r = c.regs
    for bad in ({2: top + 1}, {5: top + 1}, {3: top - 13}, {11: r[1]}, {13: r[7]}, {13: top - 100}, {9: 4},
                {9: 1, 10: 1}, {6: 4}, {12: 12}, {1: r[2] + 1}):
        assert c.m.run("HANDSHAKE", {**r, **bad}) == "BAD_INPUT", bad
        assert bytes(c.m.mem[HS:HS + EQU["HS_BYTES"]]) == state, bad
    c.start()
    state = bytes(c.m.mem[HS:HS + EQU["HS_BYTES"]])
    for regs in ({1: c.rec, 2: c.rec + 12, 3: 23, 4: 0}, {1: c.rec, 2: c.rec + 12, 3: 22, 4: 2},
                 {1: r[11], 2: r[11] + 12, 3: 22, 4: 0}, {1: top - 4, 2: top + 8, 3: 22, 4: 0},
                 {1: c.rec + 8, 2: c.rec, 3: 22, 4: 0}):
        assert c.m.run("HS_RECORD", regs) == "BAD_INPUT", regs
        assert bytes(c.m.mem[HS:HS + EQU["HS_BYTES"]]) == state, regs


def test_resend(pki):
    """HS_RESEND (the caller's timer): the last datagram again, renumbered, while an answer is due, in
    ServerHello's state (the ClientHello) and after the flight; nothing before a handshake, once it is
    done or failed. HS_RECORD on its own: the first fragment of the server's last message before our
    datagram, repeated, gets the datagram again; another old fragment does not. A record over the
    kept datagram is BAD_INPUT."""
    c = Client(pki)
    assert c.m.run("HS_RESEND") == "OK" and c.out() == b""              # no handshake yet
    first = c.start()
    assert c.m.run("HS_RESEND") == "OK" and renumbered(c.out(), first) and c.state() == ST["SH"]
    c, hello, msgs, _ = whole_run(pki)
    flight = c.out()
    state = c.state()
    assert c.m.run("HS_RESEND") == "OK" and renumbered(c.out(), flight) and c.state() == state
    again = c.out()
    sts = [c.record(handshake_msg(14, 4, b"")), c.record(fragments(12, 2, msgs[2][1], [50])[0])]
    assert sts == ["OK", "OK"] and c.state() == state
    c.record(handshake_msg(14, 4, b""))
    assert renumbered(c.out(), again)                                      # the flight a third time
    c.record(fragments(12, 2, msgs[2][1], [50])[0])
    assert c.out() == b""                                                  # (an older message)
    out_at = c.regs[13]
    assert c.m.run("HS_RECORD", {1: out_at + 10, 2: out_at + 30, 3: 22, 4: 0}) == "BAD_INPUT"
    assert c.record(b"\x01", ctype=20) == "OK" and c.state() == ST["FIN"]
    assert c.m.run("HS_RESEND") == "OK" and renumbered(c.out(), again)   # (its Finished: the caller's)
    assert c.record(handshake_msg(20, 5, bytes(12)), epoch=1) == "BAD_FINISHED"
    assert c.m.run("HS_RESEND") == "OK" and c.out() == b""              # failed: nothing


def _h(m, at, v):
    m.load(at, v.to_bytes(2, "big"))


def test_the_state_the_bus_wrote_is_checked_again(pki):
    """The handshake's state is public: the bus may rewrite the configuration and the reassembly's
    fields between records. HS_RECORD checks them again before it uses them, so no rewrite makes it
    copy from or into the secret top (the client's key into the transcript's buffer, a byte over
    it): BAD_INPUT, the secret top as it was, nothing of it in the public window."""
    cfg, ts = HS + EQU["HS_CFG"], EQU["TS_AT"]
    key = bytes(range(0xa0, 0xc0))
    for name, edit in (
            ("the buffer in the secret top", lambda c: (_h(c.m, cfg + 20, EQU["CK_AT"] - 12), _h(c.m, cfg + 22, 44))),
            ("a message past the buffer", lambda c: (c.m.load(HS + EQU["HS_RON"], b"\x01"),
                                                     _h(c.m, HS + EQU["HS_RN"], EQU["MEM_BYTES"] - c.regs[11] - 12),
                                                     _h(c.m, HS + EQU["HS_RG"], EQU["MEM_BYTES"] - c.regs[11] - 12))),
            ("received past the message", lambda c: (c.m.load(HS + EQU["HS_RON"], b"\x01"), _h(c.m, HS + EQU["HS_RN"], 40),
                                                     _h(c.m, HS + EQU["HS_RG"], 41))),
            ("a begun flag not 0 or 1", lambda c: c.m.load(HS + EQU["HS_RON"], b"\x02")),
            ("the datagram out in the secret top", lambda c: _h(c.m, cfg + 24, EQU["SECRET_BASE"] - 16)),
            ("a datagram out longer than its place", lambda c: _h(c.m, HS + EQU["HS_OLEN"], 0x3000)),
            ("the anchors past CHAIN_TOP", lambda c: _h(c.m, cfg + 2, EQU["CHAIN_TOP"] + 1)),
            ("now in the secret top", lambda c: _h(c.m, cfg + 4, EQU["CK_AT"])),
            ("the slots the same", lambda c: _h(c.m, cfg + 18, 0)),
            ("the buffer over the anchors", lambda c: _h(c.m, cfg + 20, c.regs[1]))):
        c = Client(pki)
        c.start()
        c.m.load(EQU["CK_AT"], key)
        c.m.load(ts + 36, (32).to_bytes(2, "big"))
        edit(c)
        secret = bytes(c.m.mem[EQU["SECRET_BASE"]:])
        frag = bytes([2, 0, 0, 40]) + bytes(5) + bytes([0, 0, 1]) + b"\x55"
        assert c.record(frag) == "BAD_INPUT", name
        assert bytes(c.m.mem[EQU["SECRET_BASE"]:]) == secret, name
        assert key not in bytes(c.m.mem[:EQU["SECRET_BASE"]]), name


def test_resend_checks_the_state_again(pki):
    """HS_RESEND renumbers the datagram out where the configuration says it lies, and the bus may
    rewrite that: the datagram out in the secret top (over the client's key: its records' lengths
    would count out the key's bytes into HS_WSEQ, and the new numbers would land in it), longer than
    its place, or the configuration otherwise broken is BAD_INPUT, with the secret top and HS_WSEQ as
    they were."""
    cfg = HS + EQU["HS_CFG"]
    key = bytes(range(0xa0, 0xc0))
    for name, edit in (
            ("the datagram out over the key", lambda c: (_h(c.m, cfg + 24, EQU["CK_AT"] - 11),
                                                         _h(c.m, HS + EQU["HS_OLEN"], 40))),
            ("the datagram out just below the top", lambda c: _h(c.m, cfg + 24, EQU["SECRET_BASE"] - 16)),
            ("a datagram out longer than its place", lambda c: _h(c.m, HS + EQU["HS_OLEN"], 0x3000)),
            ("now in the secret top", lambda c: _h(c.m, cfg + 4, EQU["CK_AT"]))):
        c = Client(pki)
        c.start()
        c.m.load(EQU["CK_AT"], key)
        edit(c)
        secret = bytes(c.m.mem[EQU["SECRET_BASE"]:])
        wseq = bytes(c.m.mem[HS + EQU["HS_WSEQ"]:HS + EQU["HS_WSEQ"] + 2])
        assert c.m.run("HS_RESEND") == "BAD_INPUT", name
        assert bytes(c.m.mem[EQU["SECRET_BASE"]:]) == secret, name
        assert bytes(c.m.mem[HS + EQU["HS_WSEQ"]:HS + EQU["HS_WSEQ"] + 2]) == wseq, name


def _to_server_hello_done(pki, request):
    """A client whose next record is the server's ServerHelloDone: (client, that record)."""
    c = Client(pki)
    msgs, _ = server_flight(pki, c.start(), request=request)
    recs = [handshake_msg(t, i, b) for i, (t, b) in enumerate(msgs)]
    assert deliver(c, recs[:-1]) == ["OK"] * (len(recs) - 1)
    return c, recs[-1]


@pytest.mark.parametrize("request_", [False, True], ids=["no-request", "request"])
def test_another_table_where_gs_must_be(pki, request_):
    """The bus may have pk's PRECOMP put the table of another point into entry 0, G's, between two
    programs: the server's ECDHE point (HS_SP, public) would make ECDHE's "k G" k Q, the premaster,
    and send it in the ClientKeyExchange. pk's ECSM_COMB refuses a table of another point than G in
    entry 0, so the flight is ENGINE (the internal_error alert), the machine FAILED, no datagram goes
    out, and pk computed neither "k G" nor the premaster (with a CertificateRequest SIGN would refuse
    the table too, but only after the flight's ClientKeyExchange was in the window); with G's table
    back, a new handshake goes through."""
    c, shd = _to_server_hello_done(pki, request_)
    sp = HS + EQU["HS_SP"]
    c.m.pk.write(isa.PK_SLOT["QX"], int.from_bytes(c.m.mem[sp:sp + 32], "big"))
    c.m.pk.write(isa.PK_SLOT["QY"], int.from_bytes(c.m.mem[sp + 32:sp + 64], "big"))
    assert c.m.pk.run(isa.PK_PROG["PRECOMP"], 0) == "OK"
    c.m.out.clear()
    c.m.pk.runs.clear()
    assert c.record(shd) == "ENGINE"
    assert c.state() == ST["FAILED"] and c.out() == b""
    assert [r for r in c.m.pk.runs if r[0].startswith("ECSM")] == [("ECSM_COMB", 0, "BAD_SEQ")]  # no k Q
    assert bytes(c.m.mem[EQU["PMS_AT"]:EQU["PMS_AT"] + 32]) == bytes(32)
    c.m.pk.write(isa.PK_SLOT["QX"], model.P256_G[0])
    c.m.pk.write(isa.PK_SLOT["QY"], model.P256_G[1])
    assert c.m.pk.run(isa.PK_PROG["PRECOMP"], 0) == "OK"
    msgs, _ = server_flight(pki, c.start(), request=request_)
    assert deliver(c, [handshake_msg(t, i, b) for i, (t, b) in enumerate(msgs)]) == ["OK"] * len(msgs)
    assert c.state() == ST["CCS"]


def test_the_drbg_is_not_started_again(pki):
    """Between two programs the bus may run DRBG_SEED with entropy of its own: an instantiation over
    the seed would let it know ECDHE's next k, and so the premaster and every key. It is BAD_INPUT,
    and the flight's k stays the DRBG's own: not the one the bus's entropy would give."""
    c, shd = _to_server_hello_done(pki, False)
    ent = bytes(range(32))
    c.m.load(EQU["ENT_AT"], ent)
    assert c.m.run("DRBG_SEED", {1: 32, 2: 0, 3: 0, 4: 0}) == "BAD_INPUT"
    assert c.record(shd) == "OK" and c.state() == ST["CCS"]
    k = int.from_bytes(HmacDrbg(ent, b"", b"").generate(32, b""), "big")
    kg = model.mul(k, model.P256_G)
    assert kg[0].to_bytes(32, "big") + kg[1].to_bytes(32, "big") not in c.out()


def test_cached_mode_checks_its_inputs(pki):
    """CERTIFICATE in cached-certificate mode reads now and the name before any chain: both must lie
    below CHAIN_TOP like CHAIN_CHECK's, or the record's times and name would compare against the
    secret top. BAD_INPUT, whatever the record says."""
    c = Client(pki)
    leaf = der(pki.server_pem)
    body = cert_body([leaf])
    c.m.load(0, body)
    cc = HS + EQU["HS_CC"]
    c.m.load(cc, b"\x01" + hashlib.sha256(leaf).digest())
    base = {1: 0, 2: len(body), 3: 0, 4: 0, 5: 0x400, 6: 0x410, 7: 0x411, 8: 0, 9: 1}
    for bad in ({5: EQU["CK_AT"]}, {5: EQU["CHAIN_TOP"] - 13}, {6: EQU["CK_AT"], 7: EQU["CK_AT"] + 1, 8: 1},
                {7: EQU["CHAIN_TOP"] + 1}, {3: 10, 4: 5}):
        assert c.m.run("CERTIFICATE", {**base, **bad}) == "BAD_INPUT", bad


def test_epochs(pki):
    """The client reads epoch 0 until the server's ChangeCipherSpec, then epoch 1 (tls_record.c): a
    record of the next epoch is dropped, a ChangeCipherSpec of the old one too, whatever its bytes;
    an unauthenticated datagram cannot end the handshake that way."""
    c = Client(pki)
    c.start()
    assert c.record(b"junk", ctype=20, epoch=1) == "OK" and c.state() == ST["SH"]
    assert c.record(b"\x16" * 30, epoch=1) == "OK" and c.state() == ST["SH"]
    c, *_ = whole_run(pki)
    assert c.record(b"\x01", ctype=20) == "OK" and c.state() == ST["FIN"]
    assert c.record(b"\x01\x02", ctype=20, epoch=0) == "OK" and c.state() == ST["FIN"]   # the old epoch's
    assert c.record(b"\x01\x02", ctype=20, epoch=1) == "DECODE_ERROR"                  # the current one's


def finished_for(c):
    """The server's Finished for the model's transcript (its master secret read from the model's
    secret top: the test's view, not the bus's), as RFC 5246 7.4.9 makes it."""
    from tls_prf import p_sha256 as prf
    ms = bytes(c.m.mem[EQU["MS_AT"]:EQU["MS_AT"] + 48])
    at = 0x1800                                # (free in Client's layout)
    assert c.m.run("TS_HASH", {1: at}) == "OK"
    return prf(ms, b"server finished" + bytes(c.m.mem[at:at + 32]), 12)


def test_done_and_after(pki):
    """The server's Finished, right, in epoch 1: ST_DONE. After it, epoch 0 is the old epoch (dropped
    but for a repeat), a HelloRequest in epoch 1 is ignored, any other handshake message is
    UNEXPECTED_MESSAGE (tls_hs.c post_handshake)."""
    c, *_ = whole_run(pki)
    assert c.record(b"\x01", ctype=20) == "OK"
    assert c.record(handshake_msg(20, 5, finished_for(c)), epoch=1) == "OK" and c.state() == ST["DONE"]
    assert bytes(c.m.mem[EQU["MS_AT"]:EQU["MS_AT"] + 48]) == bytes(48)   # the master secret: done with
    assert c.record(handshake_msg(2, 6, server_hello()), epoch=0) == "OK" and c.state() == ST["DONE"]
    assert c.record(handshake_msg(0, 6, b""), epoch=1) == "OK" and c.state() == ST["DONE"]
    assert c.record(handshake_msg(2, 7, server_hello()), epoch=1) == "UNEXPECTED_MESSAGE"
    assert c.state() == ST["FAILED"]


def test_hello_verify_and_hello_request(pki):
    """A HelloVerifyRequest through HS_RECORD: the second ClientHello with its cookie, in the next
    record, message_seq 1, and the transcript starts with it; a HelloRequest before the ServerHello
    is ignored (and takes its message_seq)."""
    c = Client(pki)
    first = c.start()
    cookie = bytes(range(20))
    assert c.record(handshake_msg(3, 0, b"\xfe\xfd" + bytes([20]) + cookie)) == "OK"
    (t, e, seq, ch2), = records(c.out())
    assert (t, e, seq) == (22, 0, 1) and ch2[0] == 1 and ch2[4:6] == b"\x00\x01"
    (_, _, _, ch1), = records(first)
    assert ch2[12 + 34:12 + 36] == b"\x00\x14" and ch2[12 + 36:12 + 56] == cookie and ch2[14:46] == ch1[14:46]
    assert c.record(handshake_msg(0, 1, b"")) == "OK" and c.state() == ST["SH"]
    assert c.m.run("TS_HASH", {1: 0x1800}) == "OK"
    assert bytes(c.m.mem[0x1800:0x1820]) == hashlib.sha256(ch2).digest()
    cookie = bytes(range(100, 108))                    # another request: a third ClientHello, message_seq 2
    assert c.record(handshake_msg(3, 2, b"\xfe\xfd" + bytes([8]) + cookie)) == "OK"
    (t, e, seq, ch3), = records(c.out())
    assert (seq, ch3[4:6], ch3[12 + 36:12 + 44]) == (2, b"\x00\x02", cookie)
    assert c.record(handshake_msg(2, 3, server_hello())) == "OK" and c.state() == ST["CERT"]


def test_a_flight_over_the_anchors(pki):
    """HANDSHAKE checks the whole flight's place (13 + the chain + FL_MAX bytes), not only a
    ClientHello's: a datagram place whose flight would run over the anchors is BAD_INPUT."""
    c = Client(pki)
    anchors = bytes(c.m.mem[c.regs[1]:c.regs[2]])
    c.m.load(0x1000, anchors)                  # the anchors moved up, so a flight can end on them
    r = {**c.regs, 1: 0x1000, 2: 0x1000 + len(anchors)}
    chain = r[8] - r[7]
    out = r[1] - 13 - chain - 205 + 20         # the flight's last 20 bytes over the anchors' first
    assert out + 256 <= r[1]                   # (a ClientHello's 256 would fit)
    assert c.m.run("HANDSHAKE", {**r, 13: out}) == "BAD_INPUT"
    assert c.m.run("HANDSHAKE", {**r, 13: out - 20}) == "OK"
