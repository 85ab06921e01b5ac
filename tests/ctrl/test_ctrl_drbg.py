"""The ctrl engine's HMAC_DRBG (rtl/ctrl/programs/drbg.s: DRBG_SEED, RANDOM, and ECDHE's private key)
on its Python model, against NIST CAVP's HMAC_DRBG SHA-256 COUNT 0 and the SP 800-90A model
(tests/drbg_model.py): instantiate and reseed with every entropy and seed length the programs take,
outputs of 1..1024 bytes, ECDHE's k G for the k the DRBG gives, the entropy input zeroed once used,
the reseed interval, NO_ENTROPY without a seed, cycles that do not depend on the state, and the
caller's errors (BAD_INPUT)."""
import random
import sys

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from drbg_model import CAVP_COUNT0, CAVP_COUNT0_OUT, HmacDrbg
from se_cli import ROOT

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_asm as asm  # noqa: E402
import ctrl_isa as isa  # noqa: E402
import ctrl_model as model  # noqa: E402

EQU = asm.load().equ
REST, OUT, PEER, PUB = 0x0100, 0x0200, 0x0700, 0x0740


def seed(m, entropy, rest, reseed=False):
    m.load(EQU["ENT_AT"], entropy)
    m.load(REST, rest)
    return m.run("DRBG_SEED", {1: len(entropy), 2: REST, 3: REST + len(rest), 4: int(reseed)})


def draw(m, n):
    st = m.run("RANDOM", {1: OUT, 2: n})
    return st, bytes(m.mem[OUT:OUT + n])


def test_cavp_count0():
    m = model.Machine()
    c = {k: bytes.fromhex(v) if isinstance(v, str) else v for k, v in CAVP_COUNT0.items()}
    assert seed(m, c["entropy"], c["nonce"]) == "OK"
    assert draw(m, c["bytes"])[0] == "OK"
    assert draw(m, c["bytes"]) == ("OK", bytes.fromhex(CAVP_COUNT0_OUT))


def test_against_the_model(tally):
    rng = random.Random(90)
    m = model.Machine()
    runs = 0
    for i in range(40):
        entropy, rest = rng.randbytes(rng.choice((32, 64, rng.randrange(32, 65)))), rng.randbytes(rng.randrange(65))
        ref = HmacDrbg(entropy, rest, b"")
        m.wipe()                                   # (an instantiation takes no seeded state)
        assert seed(m, entropy, rest) == "OK"
        assert bytes(m.mem[EQU["ENT_AT"]:EQU["ENT_AT"] + 128]) == bytes(128)   # used once: zeroed
        for _ in range(3):
            if rng.random() < 0.3:
                entropy, add = rng.randbytes(rng.randrange(32, 65)), rng.randbytes(rng.choice((0, 32, rng.randrange(65))))
                ref.reseed(entropy, add)
                assert seed(m, entropy, add, reseed=True) == "OK"
            n = rng.choice((1, 31, 32, 33, 64, 100, 1024, rng.randrange(1, 1025)))
            assert draw(m, n) == ("OK", ref.generate(n, b"")), (i, n)
            runs += 1
    tally("ctrl drbg vs SP 800-90A model", runs)


def test_ecdhe_draws_its_key(tally):
    """ECDHE's k is the DRBG's next 32 bytes: k G as the `cryptography` package computes it for that k,
    the premaster its ECDH with the peer, and K_AT zeroes after."""
    rng = random.Random(8422)
    m = model.Machine()
    entropy = rng.randbytes(48)
    ref = HmacDrbg(entropy, b"", b"")
    assert seed(m, entropy, b"") == "OK"
    for _ in range(5):
        peer = ec.generate_private_key(ec.SECP256R1())
        pn = peer.public_key().public_numbers()
        m.load(PEER, pn.x.to_bytes(32, "big") + pn.y.to_bytes(32, "big"))
        assert m.run("ECDHE", {2: PEER, 3: PUB}) == "OK"
        k = int.from_bytes(ref.generate(32, b""), "big")
        mine = ec.derive_private_key(k % model.P256_N, ec.SECP256R1())
        mn = mine.public_key().public_numbers()
        assert bytes(m.mem[PUB:PUB + 64]) == mn.x.to_bytes(32, "big") + mn.y.to_bytes(32, "big")
        pms_at = EQU["PMS_AT"]
        assert bytes(m.mem[pms_at:pms_at + 32]) == mine.exchange(ec.ECDH(), peer.public_key())
        assert bytes(m.mem[EQU["K_AT"]:EQU["K_AT"] + 32]) == bytes(32)
    tally("ctrl ecdhe from the drbg", 5)


def test_no_entropy():
    """Without a seed (a fresh window, or after WIPE's zeroes) RANDOM, ECDHE and a reseed are
    NO_ENTROPY, and after the reseed interval RANDOM is too, until a reseed."""
    m = model.Machine()
    assert draw(m, 32)[0] == "NO_ENTROPY"
    assert m.run("ECDHE", {2: PEER, 3: PUB}) == "NO_ENTROPY"
    assert seed(m, bytes(32), b"", reseed=True) == "NO_ENTROPY"
    assert seed(m, bytes(range(32)), b"") == "OK"
    dc = EQU["DC_AT"]
    m.load(dc, (10000).to_bytes(2, "big"))     # the 9,999th generate since the seed done
    assert draw(m, 32)[0] == "OK"
    assert draw(m, 32)[0] == "NO_ENTROPY"
    assert seed(m, bytes(range(32)), b"", reseed=True) == "OK"
    assert draw(m, 32)[0] == "OK"


def test_no_second_instantiation():
    """The bus writes the entropy input, so a seeded DRBG is not instantiated again (BAD_INPUT, the
    state going on as the model's, the entropy input untouched): else the bus would know every k
    ECDHE draws after. A reseed mixes its bytes into the state; after WIPE it instantiates."""
    m = model.Machine()
    ref = HmacDrbg(bytes(range(48)), b"", b"")
    assert seed(m, bytes(range(48)), b"") == "OK"
    ent = bytes(range(100, 132))
    m.load(EQU["ENT_AT"], ent)
    assert m.run("DRBG_SEED", {1: 32, 2: REST, 3: REST, 4: 0}) == "BAD_INPUT"
    assert bytes(m.mem[EQU["ENT_AT"]:EQU["ENT_AT"] + 32]) == ent
    assert draw(m, 32) == ("OK", ref.generate(32, b""))
    ref.reseed(ent, b"")
    assert seed(m, ent, b"", reseed=True) == "OK"
    assert draw(m, 32) == ("OK", ref.generate(32, b""))
    m.wipe()
    assert seed(m, bytes(32), b"") == "OK"
    assert draw(m, 32) == ("OK", HmacDrbg(bytes(32), b"", b"").generate(32, b""))


def test_cycles_depend_on_lengths_alone():
    rng = random.Random(3)
    seen = {}
    for _ in range(4):
        m = model.Machine()
        for prog, entropy, rest, n in (("seed", rng.randbytes(48), rng.randbytes(16), 0), ("random", b"", b"", 77),
                                       ("seed", rng.randbytes(32), rng.randbytes(40), 0), ("random", b"", b"", 32)):
            st = seed(m, entropy, rest, reseed=prog == "seed" and len(entropy) == 32) if prog == "seed" else draw(m, n)[0]
            assert st == "OK"
            seen.setdefault((prog, len(entropy), len(rest), n), set()).add(m.cycles)
    assert all(len(c) == 1 for c in seen.values()), seen


@pytest.mark.parametrize("prog, regs", [   # (reseeds: an instantiation over the seed is refused anyway)
    ("DRBG_SEED", {1: 31, 2: REST, 3: REST, 4: 1}), ("DRBG_SEED", {1: 65, 2: REST, 3: REST, 4: 1}),
    ("DRBG_SEED", {1: 32, 2: REST, 3: REST + 65, 4: 1}), ("DRBG_SEED", {1: 32, 2: REST, 3: REST, 4: 2}),
    ("DRBG_SEED", {1: 32, 2: isa.SECRET_BASE - 8, 3: isa.SECRET_BASE + 8, 4: 1}),
    ("DRBG_SEED", {1: 32, 2: REST + 4, 3: REST, 4: 1}),
    ("RANDOM", {1: OUT, 2: 0}), ("RANDOM", {1: OUT, 2: 1025}), ("RANDOM", {1: isa.SECRET_BASE - 31, 2: 32}),
    ("RANDOM", {1: 0xfff0, 2: 32}),
])
def test_refusals(prog, regs):
    """Lengths out of range, spans in the secret top or wrapping, r4 past 1: BAD_INPUT, with the
    state and the entropy input untouched (a seeded DRBG goes on as the model)."""
    m = model.Machine()
    ref = HmacDrbg(bytes(range(40)), b"n", b"")
    assert seed(m, bytes(range(40)), b"n") == "OK"
    m.load(EQU["ENT_AT"], b"\x77" * 64)
    assert m.run(prog, regs) == "BAD_INPUT"
    assert bytes(m.mem[EQU["ENT_AT"]:EQU["ENT_AT"] + 64]) == b"\x77" * 64
    assert draw(m, 40) == ("OK", ref.generate(40, b""))
