"""The ctrl engine's handshake transcript (rtl/ctrl/programs/transcript.s: TS_START, TS_ADD, TS_HASH)
on its Python model, against hashlib: the hash after every message of random sequences, of
messages of every length around the 64-byte blocks and of a 3 KB flight, the transcript going on
after each TS_HASH, and the refusals of spans in the secret top or over the transcript's state.
The model's SHA-256 resumes from a chaining value (SHAR, SHAS) as the SHA IP does; the RTL runs
the same programs in tests/rtl/test_ctrl_core.py."""
import hashlib
import random
import sys

import pytest

from se_cli import ROOT

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_asm as asm  # noqa: E402
import ctrl_isa as isa  # noqa: E402
import ctrl_model as model  # noqa: E402

EQU = asm.load().equ
MSG, OUT = 0x0100, 0x0900


def add(m, data):
    m.load(MSG, data)
    return m.run("TS_ADD", {1: MSG, 2: MSG + len(data)})


def digest(m):
    assert m.run("TS_HASH", {1: OUT}) == "OK"
    return bytes(m.mem[OUT:OUT + 32])


def test_random_sequences(tally):
    rng = random.Random(7925)
    runs = 0
    for _ in range(30):
        m = model.Machine()
        assert m.run("TS_START") == "OK"
        seen = b""
        assert digest(m) == hashlib.sha256(b"").digest()
        for _ in range(rng.randrange(1, 12)):
            msg = rng.randbytes(rng.choice((0, 1, 12, 63, 64, 65, 127, 128, rng.randrange(600))))
            assert add(m, msg) == "OK"
            seen += msg
            assert digest(m) == hashlib.sha256(seen).digest(), len(seen)
            runs += 1
    tally("ctrl transcript vs hashlib", runs)


def test_every_split_around_a_block():
    """Two messages whose lengths add up to 0..200 bytes, split everywhere: the same hash."""
    data = bytes(range(200))
    for total in range(0, 200, 7):
        for cut in range(0, total + 1, 5):
            m = model.Machine()
            m.run("TS_START")
            assert add(m, data[:cut]) == "OK" and add(m, data[cut:total]) == "OK"
            assert digest(m) == hashlib.sha256(data[:total]).digest(), (total, cut)


def test_a_flight():
    """A flight that fills the window below the handshake's state in one add, then more."""
    rng = random.Random(1)
    m = model.Machine()
    m.run("TS_START")
    big = rng.randbytes(EQU["HS_AT"])
    m.load(0, big)
    assert m.run("TS_ADD", {1: 0, 2: len(big)}) == "OK"
    assert add(m, b"finished") == "OK"
    assert digest(m) == hashlib.sha256(big + b"finished").digest()


def test_start_empties_it():
    m = model.Machine()
    m.run("TS_START")
    add(m, b"x" * 100)
    assert m.run("TS_START") == "OK"
    assert digest(m) == hashlib.sha256(b"").digest()


@pytest.mark.parametrize("prog, regs", [
    ("TS_ADD", {1: isa.SECRET_BASE - 4, 2: isa.SECRET_BASE + 4}), ("TS_ADD", {1: MSG + 8, 2: MSG}),
    ("TS_ADD", {1: EQU["TS_AT"] - 4, 2: EQU["TS_AT"] + 1}), ("TS_ADD", {1: EQU["TS_AT"] + 0x67, 2: EQU["TS_AT"] + 0x70}),
    ("TS_HASH", {1: isa.SECRET_BASE - 16}), ("TS_HASH", {1: EQU["TS_AT"] - 31}), ("TS_HASH", {1: 0xfff0}),
])
def test_refusals(prog, regs):
    """Spans not below the secret top, out of order, or over the state: BAD_INPUT, the state kept."""
    m = model.Machine()
    m.run("TS_START")
    add(m, b"abc")
    state = bytes(m.mem[EQU["TS_AT"]:EQU["TS_AT"] + EQU["TS_BYTES"]])
    assert m.run(prog, regs) == "BAD_INPUT"
    assert bytes(m.mem[EQU["TS_AT"]:EQU["TS_AT"] + EQU["TS_BYTES"]]) == state
    assert digest(m) == hashlib.sha256(b"abc").digest()


@pytest.mark.parametrize("n", [64, 65, 0x0100, 0xffff])
def test_a_state_the_bus_wrote(n):
    """The bus may write the state between programs: a block-begun length of 64 or more would have
    TS_ADD and TS_HASH hash past the state, into the secret top. Both refuse it (BAD_INPUT) and write
    nothing."""
    m = model.Machine()
    m.run("TS_START")
    m.load(EQU["TS_AT"] + 36, n.to_bytes(2, "big"))
    m.load(OUT, b"\x5a" * 32)
    assert m.run("TS_HASH", {1: OUT}) == "BAD_INPUT"
    assert bytes(m.mem[OUT:OUT + 32]) == b"\x5a" * 32
    state = bytes(m.mem[EQU["TS_AT"]:EQU["TS_AT"] + EQU["TS_BYTES"]])
    for data in (b"", b"x" * 70):
        assert add(m, data) == "BAD_INPUT"
        assert bytes(m.mem[EQU["TS_AT"]:EQU["TS_AT"] + EQU["TS_BYTES"]]) == state
