"""Ten thousand mutated server flights through the ctrl engine's HS_RECORD on its Python model (the
robustness check of HW mode): the server's flight (ServerHello, Certificate, ServerKeyExchange,
CertificateRequest, ServerHelloDone, built from the RFCs as tests/ctrl/test_ctrl_record.py builds
it) with one record mutated: bits flipped, cut short, a DTLS handshake header's length, fragment
offset or fragment length rewritten (RFC 6347 4.2.2), or a two-byte length inside the message
set out of range (a length where the message has one). Each flight must end, record by record, in
a status the programs name (the alert the firmware sends) with the machine in ST_FAILED, or in the
client's flight sent (ST_CCS: a change in bytes the client only hashes); or the mutated record was
dropped as the software client drops it (a fragment it cannot place: cut short, a fragment past its
message), and then the good record after it takes the machine on as in the good run; or it was kept as the first
fragment of a message of another length, and the good one is then dropped as the software client
drops it (tls_dtls.c: dropped_malformed) - the machine waits, answers HS_RESEND, and the firmware's
timer ends the handshake (timeout), as the software client's does; or a part of it was kept (a
fragment shorter than it said, with a flip in it), and the good record is then refused on those
bytes, where the software client, which writes every fragment's bytes again, would take it. No
record may take more
than a cycle budget (the model's cycles, the IPs answering at once). The model runs the ROM's words
as the RTL core does, cycle for cycle (tests/rtl/test_ctrl_core.py); a flight starts from the
machine as the good records before the mutated one left it."""
import copy
import random

from ctrl.test_ctrl_hello import handshake_msg
from ctrl.test_ctrl_record import NAMED, ST, Client, pki, server_flight  # noqa: F401 (fixture)

FLIGHTS = 10_000
CYCLES = 60_000     # a record's budget: the largest good one, ServerHelloDone with the flight, is 25,769
STEPS = 200_000     # the model's own stop, far past it


def fork(client):
    """A client whose machine goes on from client's as it is now."""
    c = copy.copy(client)
    m = c.m = copy.copy(client.m)
    m.mem, m.regs, m.pk, m.aes = bytearray(m.mem), list(m.regs), copy.deepcopy(m.pk), dict(m.aes)
    m.out, m.spans = dict(m.out), dict(m.spans)
    return c


def mutate(rec, rng, how):
    """rec changed in one of four ways (how), drawn again until it differs from rec."""
    while True:
        r = _mutate(rec, rng, how)
        if r != rec:
            return r


def _mutate(rec, rng, how):
    r = bytearray(rec)
    if how == 0:                          # bits flipped
        for _ in range(rng.randrange(1, 4)):
            r[rng.randrange(len(r))] ^= 1 << rng.randrange(8)
    elif how == 1:                        # cut short
        r = r[:rng.randrange(len(r))]
    elif how == 2 or len(r) <= 14:        # the handshake header's length, fragment offset or length
        at = rng.choice((1, 6, 9))
        v = rng.choice((0, 1, len(r) - 12, len(r) - 11, len(r), 0xffffff, rng.randrange(1 << 24)))
        r[at:at + 3] = (v & 0xffffff).to_bytes(3, "big")
    else:                                 # two bytes of the body set to a length out of range
        at = rng.randrange(12, len(r) - 1)
        v = rng.choice((0xffff, len(r) - at, len(r) - at - 1, int.from_bytes(r[at:at + 2], "big") + 1))
        r[at:at + 2] = (v & 0xffff).to_bytes(2, "big")
    return bytes(r)


def test_ten_thousand_mutated_flights(pki, tally):
    rng = random.Random(22)
    base = Client(pki)
    msgs, _ = server_flight(pki, base.start())
    good = [handshake_msg(t, i, b) for i, (t, b) in enumerate(msgs)]
    snaps = [fork(base)]
    for rec in good:
        assert base.record(rec) == "OK" and base.m.cycles <= CYCLES
        snaps.append(fork(base))
    assert base.state() == ST["CCS"] and base.out()
    ends = {}
    for k in range(FLIGHTS):
        i = rng.randrange(len(good))
        c = fork(snaps[i])
        for rec in [mutate(good[i], rng, k % 4)] + good[i + 1:]:
            st = c.record(rec, budget=STEPS)
            assert st in NAMED and c.m.cycles <= CYCLES, (k, i, st, c.m.cycles)
            if st != "OK":
                assert c.state() == ST["FAILED"], (k, st)
                break
        else:
            if c.state() == ST["CCS"]:   # a change in bytes the client only hashes: the flight went out
                st = "flight"
            else:                        # the mutated record dropped, or kept as a fragment
                before = c.state()
                again = c.record(good[i], budget=STEPS)
                assert again in NAMED and c.m.cycles <= CYCLES, (k, i, again)
                if again != "OK":            # a fragment kept in part, the good one refused on it
                    assert c.state() == ST["FAILED"], (k, again)
                    st = "refused later"
                elif c.state() == snaps[i + 1].state():
                    st = "dropped"           # the good record takes the machine on as in the good run
                else:                        # a fragment that set another length: waits (RFC 6347)
                    assert c.state() == before and c.m.run("HS_RESEND", {}) == "OK", (k, i, c.state())
                    st = "stalled"
        ends[st] = ends.get(st, 0) + 1
    assert sum(ends.values()) == FLIGHTS and len(ends) >= 6 and ends.get("dropped") and ends.get("flight"), ends
    tally("ctrl mutated server flights", FLIGHTS)
