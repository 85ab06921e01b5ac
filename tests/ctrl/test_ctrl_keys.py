"""The ctrl engine's key schedule (rtl/ctrl/programs/keys.s: MASTER, KEYS, FINISHED) on its Python
model, after an ECDHE (its k from the engine's DRBG) with a peer of the `cryptography` package: the master secret, the key block and
the Finished messages' verify_data against the TLS 1.2 PRF written from RFC 5246 (tests/tls_prf.py),
the write keys in the AES IP's key slots and nowhere in the window, the spent secrets zeroed, the
server's Finished refused when one bit differs, cycles that depend on nothing secret, and the
caller's errors (BAD_INPUT). The RTL runs the same programs in tests/rtl/test_ctrl_core.py (against
this model) and tests/rtl/test_engine_wb.py (the keys used by the AES IP)."""
import hashlib
import random
import sys

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from drbg_model import HmacDrbg
from se_cli import ROOT
from tls_prf import p_sha256 as prf

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_asm as asm  # noqa: E402
import ctrl_isa as isa  # noqa: E402
import ctrl_model as model  # noqa: E402

EQU = asm.load().equ
PEER, PUB, CR, SR, IVS, HASH, VD = 0x0300, 0x0340, 0x0400, 0x0420, 0x0440, 0x0460, 0x0480
SECRET = isa.SECRET_BASE


def secret(m, at, n):
    """The model's view of the secret top (the bus never reads it)."""
    return bytes(m.mem[at:at + n])


def handshake(m, rng, slots=(0, 1), session_hash=None):
    """The DRBG seeded, ECDHE with a fresh peer (k: the DRBG's, tests/drbg_model.py), then MASTER
    (extended, RFC 7627, with a session hash) and KEYS: (premaster, client_random, server_random)."""
    entropy = rng.randbytes(32)
    m.load(EQU["ENT_AT"], entropy)
    assert m.run("DRBG_SEED", {1: 32, 2: PEER, 3: PEER, 4: 0}) == "OK"
    k = int.from_bytes(HmacDrbg(entropy, b"", b"").generate(32, b""), "big")
    mine, peer = ec.derive_private_key(k % model.P256_N, ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    n = peer.public_key().public_numbers()
    m.load(PEER, n.x.to_bytes(32, "big") + n.y.to_bytes(32, "big"))
    assert m.run("ECDHE", {2: PEER, 3: PUB}) == "OK"
    pms = mine.exchange(ec.ECDH(), peer.public_key())
    cr, sr = rng.randbytes(32), rng.randbytes(32)
    m.load(CR, cr)
    m.load(SR, sr)
    if session_hash is None:
        assert m.run("MASTER", {1: CR, 2: SR, 3: 0}) == "OK"
    else:
        m.load(HASH, session_hash)
        assert m.run("MASTER", {1: HASH, 3: 1}) == "OK"
    assert m.run("KEYS", {1: CR, 2: SR, 3: slots[0], 4: slots[1], 5: IVS}) == "OK"
    return pms, cr, sr


def test_key_schedule(tally):
    rng = random.Random(5246)
    runs = 0
    for i in range(8):
        m = model.Machine()
        slots = ((0, 1), (2, 3), (3, 0), (1, 2))[i % 4]
        session_hash = rng.randbytes(32) if i % 2 else None
        pms, cr, sr = handshake(m, rng, slots, session_hash)
        ms = prf(pms, b"extended master secret" + session_hash, 48) if session_hash else \
            prf(pms, b"master secret" + cr + sr, 48)
        assert secret(m, EQU["MS_AT"], 48) == ms
        assert secret(m, EQU["PMS_AT"], 32) == bytes(32)              # the premaster, used once
        kb = prf(ms, b"key expansion" + sr + cr, 40)
        assert m.aes == {slots[0]: kb[:16], slots[1]: kb[16:32]}
        assert bytes(m.mem[IVS:IVS + 8]) == kb[32:40]
        assert secret(m, EQU["KB_AT"], 40) == bytes(40)                # the key block, zeroed
        assert kb[:16] not in m.mem and kb[16:32] not in m.mem       # the keys: in the slots alone
        for _ in range(3):
            h = hashlib.sha256(rng.randbytes(rng.randrange(1, 900))).digest()
            m.load(HASH, h)
            assert m.run("FINISHED", {1: HASH, 2: 0, 3: VD}) == "OK"
            assert bytes(m.mem[VD:VD + 12]) == prf(ms, b"client finished" + h, 12)
            server = prf(ms, b"server finished" + h, 12)
            m.load(VD, server)
            assert m.run("FINISHED", {1: HASH, 2: 1, 3: VD}) == "OK"
            bad = bytearray(server)
            bad[rng.randrange(12)] ^= 1 << rng.randrange(8)
            m.load(VD, bad)
            assert m.run("FINISHED", {1: HASH, 2: 1, 3: VD}) == "BAD_FINISHED"
            m.load(VD, prf(ms, b"client finished" + h, 12))               # the client's is not the server's
            assert m.run("FINISHED", {1: HASH, 2: 1, 3: VD}) == "BAD_FINISHED"
            runs += 4
    tally("ctrl key schedule", runs)


def test_cycles_depend_on_nothing_secret():
    """MASTER, KEYS and FINISHED take the same cycles whatever the premaster, the master secret or the
    server's verify_data; a wrong verify_data is found no sooner than a right one."""
    rng = random.Random(77)
    seen = {}
    for _ in range(4):
        m = model.Machine()
        m.load(EQU["PMS_AT"], rng.randbytes(32))
        m.load(CR, rng.randbytes(64))
        for prog, regs in (("MASTER", {1: CR, 2: SR, 3: 0}), ("MASTER", {1: CR, 3: 1}), ("KEYS", {1: CR, 2: SR, 3: 0, 4: 1, 5: IVS}),
                           ("FINISHED", {1: HASH, 2: 0, 3: VD}), ("FINISHED", {1: HASH, 2: 1, 3: VD})):
            if regs.get(2) == 1:   # the server's verify_data: right (from the model's own master secret) or not
                ms = bytes(m.mem[EQU["MS_AT"]:EQU["MS_AT"] + 48])
                right = prf(ms, b"server finished" + bytes(m.mem[HASH:HASH + 32]), 12)
                m.load(VD, right if rng.random() < 0.5 else rng.randbytes(12))
            st = m.run(prog, regs)
            seen.setdefault((prog, regs.get(2)), set()).add(m.cycles)
            assert st in ("OK", "BAD_FINISHED")
    assert all(len(c) == 1 for c in seen.values()), seen


def test_the_scratch_is_zeroed():
    """Every program that runs HMAC on a secret (the PRF on the premaster or the master secret, the
    DRBG's updates) leaves the scratch, its keyed pads and blocks, zeroes."""
    rng = random.Random(2)
    m = model.Machine()
    handshake(m, rng)
    scratch = (isa.SECRET_BASE, EQU["SCRATCH_END"])
    for prog, regs in (("FINISHED", {1: HASH, 2: 0, 3: VD}), ("RANDOM", {1: VD, 2: 12}),
                       ("MASTER", {1: HASH, 3: 1}), ("KEYS", {1: CR, 2: SR, 3: 0, 4: 1, 5: IVS})):
        m.load(isa.SECRET_BASE, b"\x77" * (scratch[1] - scratch[0]))
        assert m.run(prog, regs) == "OK", prog
        assert bytes(m.mem[scratch[0]:scratch[1]]) == bytes(scratch[1] - scratch[0]), prog


@pytest.mark.parametrize("prog, regs", [
    ("MASTER", {1: SECRET, 2: SR, 3: 0}), ("MASTER", {1: CR, 2: SECRET - 16, 3: 0}),
    ("MASTER", {1: SECRET - 16, 3: 1}), ("MASTER", {1: CR, 2: SR, 3: 2}),
    ("KEYS", {1: CR, 2: SR, 3: 4, 4: 1, 5: IVS}), ("KEYS", {1: CR, 2: SR, 3: 0, 4: 7, 5: IVS}),
    ("KEYS", {1: CR, 2: SR, 3: 2, 4: 2, 5: IVS}), ("KEYS", {1: CR, 2: SR, 3: 0, 4: 1, 5: SECRET - 4}),
    ("KEYS", {1: EQU["MS_AT"], 2: SR, 3: 0, 4: 1, 5: IVS}), ("KEYS", {1: CR, 2: SR, 3: 0, 4: 1, 5: 0xfffc}),
    ("FINISHED", {1: HASH, 2: 2, 3: VD}), ("FINISHED", {1: SECRET - 31, 2: 0, 3: VD}),
    ("FINISHED", {1: HASH, 2: 0, 3: SECRET - 11}), ("FINISHED", {1: HASH, 2: 1, 3: EQU["MS_AT"]}),
])
def test_refusals(prog, regs):
    """Spans in the secret top (or wrapping past the window), bad slots and a Finished that is
    neither side's are BAD_INPUT, before anything is derived or written."""
    m = model.Machine()
    m.load(EQU["PMS_AT"], b"\x5a" * 32)
    m.load(IVS, b"\xee" * 8)
    m.load(VD, b"\xdd" * 12)
    assert m.run(prog, regs) == "BAD_INPUT"
    assert secret(m, EQU["PMS_AT"], 32) == b"\x5a" * 32 and m.aes == {}
    assert bytes(m.mem[IVS:IVS + 8]) == b"\xee" * 8 and bytes(m.mem[VD:VD + 12]) == b"\xdd" * 12


def test_p256_load_gives_pk_the_curve():
    """P256_LOAD on a pk that holds nothing: FIELD, ORDER and CURVE get p, n, a, b and G, with G on
    the curve y^2 = x^3 + ax + b and equal to the `cryptography` package's generator (the public key
    of the scalar 1; pk holds the last four in its Montgomery domain, R = 2^256), and PRECOMP G's
    table in entry 0; then ECDHE, which checks that pk holds P-256 (ENGINE before) and uses the
    table, agrees with the package's ECDH."""
    m = model.Machine()
    m.pk = model.Pk(loaded=False)
    assert m.run("ECDHE", {2: PEER, 3: PUB}) == "ENGINE"
    assert m.run("P256_LOAD", {}) == "OK" and m.pk.tables == {0: model.P256_G}
    p, n, a, b, gx, gy = (m.pk.slots[isa.PK_SLOT[k]] for k in ("P", "N", "A", "B", "GX", "GY"))
    a, b, gx, gy = (v * pow(2 ** 256, -1, p) % p for v in (a, b, gx, gy))
    g = ec.derive_private_key(1, ec.SECP256R1()).public_key().public_numbers()
    assert (gx, gy) == (g.x, g.y) and a == p - 3 and (gy * gy - gx ** 3 - a * gx - b) % p == 0
    assert p == 2 ** 256 - 2 ** 224 + 2 ** 192 + 2 ** 96 - 1 and n.bit_length() == 256   # (FIPS 186-4 D.1.2.3)
    assert ec.derive_private_key(n - 1, ec.SECP256R1()).public_key().public_numbers().x == g.x  # (n - 1) G = -G
    pms, cr, sr = handshake(m, random.Random(7))
    assert secret(m, EQU["MS_AT"], 48) == prf(pms, b"master secret" + cr + sr, 48)
