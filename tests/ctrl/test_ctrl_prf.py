"""The ctrl engine's HMAC and PRF programs (rtl/ctrl/programs/hmac.s) on its Python model, against
Python's hmac module: HMAC-SHA256 (RFC 2104) for every key length it takes and data of many lengths,
the RFC 4231 test cases that fit (keys of at most 64 bytes), and the TLS 1.2 PRF (RFC 5246 5,
P_SHA256) for the lengths a handshake asks (the master secret, the key block, Finished) and around
the 32-byte blocks. The programs' cycles depend on the lengths alone, never on the key's or the
data's bytes; the caller's errors are BAD_INPUT."""
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
SECRET_OUT = EQU["SCRATCH_END"]             # an output in the secret top, past the scratch


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
    # the master secret into the secret top, the way a handshake keeps it
    secret, seed = rng.randbytes(32), b"master secret" + rng.randbytes(64)
    assert run_prf(m, secret, seed, 48, out=SECRET_OUT) == ("OK", prf(secret, seed, 48))
    tally("ctrl prf", runs + 1)


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
    {1: EQU["PAD_I"], 2: EQU["PAD_I"] + 16},          # a key on the scratch
    {3: EQU["HI"], 4: EQU["HI"] + 4},                  # data on the scratch
    {3: EQU["PAD_I"] - 2, 4: EQU["PAD_I"] + 2},        # data reaching into it
    {5: EQU["PO"]},                                    # the output on it
    {5: EQU["PAD_I"] - 16},                            # the output reaching into it
    {5: isa.MEM_BYTES - 8},                            # the output past the window
    {5: isa.MEM_BYTES},
    {4: isa.MEM_BYTES + 1},                            # data past the window
])
def test_bad_input(regs):
    m = model.Machine()
    for prog, base in (("HMAC", {}), ("PRF", {6: 32})):
        good = {1: KEY, 2: KEY + 32, 3: DATA, 4: DATA + 10, 5: OUT, **base}
        assert m.run(prog, good) == "OK"
        assert m.run(prog, {**good, **regs}) == "BAD_INPUT", (prog, regs)
