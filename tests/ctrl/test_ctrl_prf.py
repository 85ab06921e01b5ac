"""The ctrl engine's HMAC, PRF and ECDHE programs (rtl/ctrl/programs/hmac.s, ecdhe.s) on its Python
model, against Python's hmac module and the `cryptography` package: HMAC-SHA256 (RFC 2104) for every
key length it takes and data of many lengths, the RFC 4231 test cases that fit (keys of at most 64
bytes), the TLS 1.2 PRF (RFC 5246 5, P_SHA256) for the lengths a handshake asks (the master secret,
the key block, Finished) and around the 32-byte blocks, and ECDHE's refusals (its key pairs against
`cryptography`'s ECDH: test_ctrl_drbg.py, whose DRBG gives its k). HMAC's and the PRF's cycles depend
on the lengths alone, never on the key's or the data's bytes; the caller's errors are BAD_INPUT, a span
in the secret top among them."""
import hashlib
import hmac
import random
import sys

import pytest

from se_cli import ROOT
from tls_prf import p_sha256 as prf

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_asm as asm  # noqa: E402
import ctrl_isa as isa  # noqa: E402
import ctrl_model as model  # noqa: E402

EQU = asm.load().equ
KEY, DATA, OUT = 0x0100, 0x0200, 0x0800     # where the tests put the key, the data and the output
SECRET = isa.SECRET_BASE


def run_hmac(m, key, data, key_at=KEY, out=OUT):
    m.load(key_at, key)
    m.load(DATA, data)
    st = m.run("HMAC", {1: key_at, 2: key_at + len(key), 3: DATA, 4: DATA + len(data), 5: out})
    return st, bytes(m.mem[out:out + 32])


def run_prf(m, secret, seed, n, out=OUT):
    m.load(KEY, secret)
    m.load(DATA, seed)
    st = m.run("PRF", {1: KEY, 2: KEY + len(secret), 3: DATA, 4: DATA + len(seed), 5: out, 6: n})
    return st, bytes(m.mem[out:out + n])


def test_hmac(tally):
    rng = random.Random(4231)
    m = model.Machine()
    runs = 0
    for klen in range(65):
        for dlen in (0, 1, 55, 56, 63, 64, 65, 119, 120, 300, rng.randrange(1000)):
            key, data = rng.randbytes(klen), rng.randbytes(dlen)
            assert run_hmac(m, key, data) == ("OK", hmac.new(key, data, hashlib.sha256).digest()), (klen, dlen)
            runs += 1
    tally("ctrl hmac", runs)


# RFC 4231 4.2-4.4 and 4.6 (4.5 truncates the MAC; 4.7 and 4.8 take keys of 131 bytes): key, data,
# HMAC-SHA256
RFC4231 = [
    (b"\x0b" * 20, b"Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    (b"Jefe", b"what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    (b"\xaa" * 20, b"\xdd" * 50, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
    (bytes(range(1, 26)), b"\xcd" * 50, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
]


def test_rfc4231():
    m = model.Machine()
    for key, data, mac in RFC4231:
        assert run_hmac(m, key, data) == ("OK", bytes.fromhex(mac))


def test_prf(tally):
    rng = random.Random(5246)
    m = model.Machine()
    runs = 0
    for slen, seed_len, n in ((48, 13 + 64, 40), (32, 13 + 64, 48), (48, 15 + 32, 12), (48, 22 + 32, 48),
                              (64, 1, 0), (0, 0, 1), (16, 100, 31), (16, 100, 32), (16, 100, 33), (48, 77, 200)):
        secret, seed = rng.randbytes(slen), rng.randbytes(seed_len)
        assert run_prf(m, secret, seed, n) == ("OK", prf(secret, seed, n)), (slen, seed_len, n)
        runs += 1
    tally("ctrl prf", runs)


def test_cycles_depend_on_lengths_alone():
    """Keys and data of the same lengths, different bytes (all zeros, all ones, random): the same
    cycle count, for HMAC and PRF."""
    rng = random.Random(1)
    m = model.Machine()
    for klen, dlen in ((0, 0), (1, 7), (32, 64), (48, 77), (64, 300)):
        cycles = set()
        for fill in (lambda n: bytes(n), lambda n: b"\xff" * n, rng.randbytes, rng.randbytes):
            assert run_hmac(m, fill(klen), fill(dlen))[0] == "OK"
            cycles.add(m.cycles)
        assert len(cycles) == 1, (klen, dlen, cycles)
        cycles = set()
        for fill in (lambda n: bytes(n), lambda n: b"\xff" * n, rng.randbytes):
            assert run_prf(m, fill(klen), fill(dlen), 40)[0] == "OK"
            cycles.add(m.cycles)
        assert len(cycles) == 1, (klen, dlen, cycles)


@pytest.mark.parametrize("regs", [
    {2: KEY + 65},                                     # a key of 65 bytes
    {2: KEY - 1},                                      # a key that ends before it begins
    {4: DATA - 1},                                     # data that end before they begin
    {1: SECRET, 2: SECRET + 16},                       # a key in the secret top (the scratch's start)
    {1: SECRET + 0x100, 2: SECRET + 0x101},            # one byte of a secret
    {1: SECRET - 16, 2: SECRET + 16},                  # a key reaching into it
    {3: EQU["HI"], 4: EQU["HI"] + 4},                  # data in it
    {3: SECRET - 2, 4: SECRET + 2},                    # data reaching into it
    {5: EQU["PO"]},                                    # the output in it
    {5: SECRET - 16},                                  # the output reaching into it
    {5: isa.MEM_BYTES - 8},                            # the output past the window
    {5: 0xfff0},                                       # ... and wrapping
    {4: isa.MEM_BYTES + 1},                            # data past the window
    {5: DATA + 4},                                     # the output over the data
    {5: DATA - 8},                                     # the output reaching into them
])
def test_bad_input(regs):
    m = model.Machine()
    for prog, base in (("HMAC", {}), ("PRF", {6: 32})):
        good = {1: KEY, 2: KEY + 32, 3: DATA, 4: DATA + 10, 5: OUT, **base}
        assert m.run(prog, good) == "OK"
        assert m.run(prog, {**good, **regs}) == "BAD_INPUT", (prog, regs)


def test_prf_output_beside_its_seed():
    """An output that ends where the seed begins, or begins where it ends, is fine: the seed is read
    again after each block, and it is intact."""
    rng = random.Random(2)
    m = model.Machine()
    secret, seed = rng.randbytes(48), rng.randbytes(77)
    for out in (DATA - 64, DATA + len(seed)):
        assert run_prf(m, secret, seed, 64, out=out) == ("OK", prf(secret, seed, 64))
        assert bytes(m.mem[DATA:DATA + len(seed)]) == seed


# ---- ECDHE (its k from the DRBG: tests/ctrl/test_ctrl_drbg.py) ------------------------------------
PEER, PUB = 0x0300, 0x0340


def seeded():
    """A model whose DRBG is instantiated (entropy at ENT_AT, no nonce)."""
    m = model.Machine()
    m.load(EQU["ENT_AT"], bytes(range(1, 49)))
    assert m.run("DRBG_SEED", {1: 48, 2: DATA, 3: DATA, 4: 0}) == "OK"
    return m


def point_bytes(pub):
    n = pub.public_numbers()
    return n.x.to_bytes(32, "big") + n.y.to_bytes(32, "big")


def test_ecdhe_checks_the_curve():
    """pk without P-256's p, n, a, b or G (the bus loads pk's curve), or with no curve loaded, is
    ENGINE, before k is drawn: the DRBG's count is as it was and nothing is written at r3."""
    m = seeded()
    dc = bytes(m.mem[EQU["DC_AT"]:EQU["DC_AT"] + 2])
    G2 = model.mul(2, model.P256_G)
    for slot, v in (("P", model.P256_P - 2), ("N", model.P256_N + 2), ("A", 5), ("B", 7),
                    ("GX", G2[0] * 2 ** 256 % model.P256_P), ("GY", G2[1] * 2 ** 256 % model.P256_P), (None, 0)):
        if slot is None:
            m.pk.curve = False      # P-256's numbers in the slots, but the curve not loaded
        else:
            m.pk.slots[model.isa.PK_SLOT[slot]] = v
        m.load(PUB, b"\x55" * 64)
        assert m.run("ECDHE", {2: PEER, 3: PUB}) == "ENGINE", slot
        assert bytes(m.mem[PUB:PUB + 64]) == b"\x55" * 64
        assert bytes(m.mem[EQU["DC_AT"]:EQU["DC_AT"] + 2]) == dc
        m.pk = model.Pk()


def test_ecdhe_refusals(monkeypatch):
    """A peer's point off the curve (x = 0 with another point's y among them) or with a coordinate
    past p is INVALID_POINT; spans in the secret top are BAD_INPUT; and a k that is 0 modulo n (pk's k G at
    infinity: a DRBG cannot be made to give it, so the model's pk says so) is BAD_INPUT."""
    from cryptography.hazmat.primitives.asymmetric import ec
    m = seeded()
    good = point_bytes(ec.generate_private_key(ec.SECP256R1()).public_key())
    p = model.P256_P.to_bytes(32, "big")
    for peer in (good[:63] + bytes([good[63] ^ 1]), p + good[32:], good[:32] + p, bytes(32) + good[32:], bytes(64)):
        m.load(PEER, peer)
        assert m.run("ECDHE", {2: PEER, 3: PUB}) == "INVALID_POINT", peer.hex()
    for regs in ({2: SECRET}, {2: SECRET - 32}, {3: SECRET - 8}, {3: EQU["PMS_AT"]}, {3: 0xfff0}):
        m.load(PEER, good)
        assert m.run("ECDHE", {2: PEER, 3: PUB, **regs}) == "BAD_INPUT", regs
    run = model.Pk.run
    monkeypatch.setattr(model.Pk, "run", lambda pk, prog, entry: "INFINITY"
                        if prog == isa.PK_PROG["ECSM_COMB"] else run(pk, prog, entry))
    assert m.run("ECDHE", {2: PEER, 3: PUB}) == "BAD_INPUT"


@pytest.mark.parametrize("prog, regs", [
    ("SHA256", {1: SECRET, 2: SECRET + 1, 3: OUT}),             # a hash of one secret byte
    ("SHA256", {1: DATA, 2: DATA + 4, 3: SECRET - 16}),          # a digest over it
    ("SIG_CHECK", {1: DATA, 2: DATA + 4, 3: SECRET, 6: OUT, 7: OUT + 0x80}),
    ("SIG_CHECK", {1: DATA, 2: DATA + 4, 3: OUT, 6: SECRET - 32, 7: OUT + 0x80}),
    ("SIG_CHECK", {1: DATA, 2: DATA + 4, 3: OUT, 6: OUT + 0x40, 7: SECRET}),
    ("VALIDITY", {1: SECRET + 0x100}),                            # now compared with a secret
    ("NAME_CHECK", {1: DATA, 2: DATA + 4, 6: SECRET, 7: SECRET + 4, 9: 0}),
    ("NAME_CHECK", {1: SECRET, 2: SECRET + 4, 6: DATA, 7: DATA + 4, 9: 0}),
    ("X509_PARSE", {1: SECRET, 2: SECRET + 0x40}),
    ("CHAIN_CHECK", {1: 0, 2: 0, 3: 0, 4: 0, 5: SECRET, 6: 0, 7: 0, 8: 0}),
])
def test_no_program_reads_the_secret_top(prog, regs):
    """Every program refuses a span of the secret top (the ones made for secrets read their own fixed
    places there), so the bus cannot have one copy, hash, compare or otherwise tell it a secret."""
    m = model.Machine()
    assert m.run(prog, regs) == "BAD_INPUT"
