"""The ctrl engine's SIGN (rtl/ctrl/programs/sign.s: CertificateVerify's ECDSA with the client key in
the secret top, its nonce by RFC 6979) on its Python model, against RFC 6979's own example (A.2.5,
P-256 with SHA-256) and the `cryptography` package's deterministic ECDSA: the same r and s for
random keys and hashes and for hashes at and past n. A table in entry 0 of another point than G (the
bus loads pk's tables; it would give another r) is refused by pk's ECDSA_SIGN (BAD_SEQ: the model's
pk as rtl/pk's, tests/rtl/test_pk_ucode.py), which the program answers ENGINE with nothing written; no key is
BAD_INPUT; the nonce's state, its seed and k are zeroes after; cycles do not depend on the key."""
import hashlib
import random
import sys

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, decode_dss_signature

from se_cli import ROOT

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_asm as asm  # noqa: E402
import ctrl_isa as isa  # noqa: E402
import ctrl_model as model  # noqa: E402

EQU = asm.load().equ
HASH, SIG = 0x0100, 0x0200
N = model.P256_N

# RFC 6979 A.2.5: the P-256 key, and the signature with SHA-256 of "sample"
RFC_X = 0xC9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721
RFC_SAMPLE = (0xEFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716,
              0xF7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8)


def sign(m, x, h):
    m.load(EQU["CK_AT"], x.to_bytes(32, "big"))
    m.load(HASH, h)
    st = m.run("SIGN", {1: HASH, 3: SIG})
    return st, bytes(m.mem[SIG:SIG + 64])


def reference(x, h):
    """r || s of `cryptography`'s deterministic (RFC 6979) ECDSA of the prehashed h."""
    key = ec.derive_private_key(x, ec.SECP256R1())
    r, s = decode_dss_signature(key.sign(h, ec.ECDSA(Prehashed(hashes.SHA256()), deterministic_signing=True)))
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def test_rfc6979_example():
    m = model.Machine()
    st, sig = sign(m, RFC_X, hashlib.sha256(b"sample").digest())
    assert st == "OK" and sig == RFC_SAMPLE[0].to_bytes(32, "big") + RFC_SAMPLE[1].to_bytes(32, "big")


def test_against_cryptography(tally):
    rng = random.Random(6979)
    m = model.Machine()
    hs = [rng.randbytes(32) for _ in range(20)]
    hs += [v.to_bytes(32, "big") for v in (0, 1, N - 1, N, N + 1, 2 ** 256 - 1)]   # bits2octets's reduction
    for h in hs:
        x = rng.randrange(1, N)
        st, sig = sign(m, x, h)
        assert (st, sig) == ("OK", reference(x, h)), h.hex()
        work = bytes(m.mem[EQU["WORK"]:EQU["WORK"] + EQU["WORK_USED"]])
        assert work == bytes(len(work))                  # the nonce's state and seed (x): zeroes
        assert bytes(m.mem[EQU["K_AT"]:EQU["K_AT"] + 32]) == bytes(32)   # ... and k
    tally("ctrl sign vs RFC 6979 (cryptography)", len(hs))


def refused_clean(m):
    """After a refusal: k and the work space (the nonce's state, its seed, pk's r || s) zeroes."""
    assert bytes(m.mem[EQU["K_AT"]:EQU["K_AT"] + 32]) == bytes(32)
    assert bytes(m.mem[EQU["WORK"]:EQU["WORK"] + EQU["WORK_USED"]]) == bytes(EQU["WORK_USED"])


def test_another_table_is_refused():
    """pk's table in entry 0 of 2G (a point of P-256, but not G; its r would be x(2 k G), not x(k G)):
    pk refuses to sign, the program answers ENGINE, writes nothing and leaves nothing of k."""
    m = model.Machine()
    m.pk.tables[0] = model.mul(2, model.P256_G)
    m.load(SIG, b"\xaa" * 64)
    assert sign(m, 12345, bytes(range(32))) == ("ENGINE", b"\xaa" * 64)
    refused_clean(m)


@pytest.mark.parametrize("x", [0, N, 2 ** 256 - 1])
def test_no_key(x):
    m = model.Machine()
    m.load(SIG, b"\xaa" * 64)
    assert sign(m, x, bytes(32)) == ("BAD_INPUT", b"\xaa" * 64)
    refused_clean(m)


def test_refusals():
    """Spans in the secret top or wrapping are BAD_INPUT; pk without P-256 is ENGINE."""
    m = model.Machine()
    m.load(EQU["CK_AT"], (5).to_bytes(32, "big"))
    for regs in ({1: isa.SECRET_BASE - 16, 3: SIG}, {1: HASH, 3: isa.SECRET_BASE - 63}, {1: HASH, 3: EQU["CK_AT"]},
                 {1: 0xfff0, 3: SIG}):
        assert m.run("SIGN", regs) == "BAD_INPUT", regs
    m.pk.slots[isa.PK_SLOT["N"]] = N - 2
    assert m.run("SIGN", {1: HASH, 3: SIG}) == "ENGINE"


def test_cycles_do_not_depend_on_the_key():
    """The same cycles for any key and any hash below n (a hash of n or more is reduced first: one
    more public branch)."""
    rng = random.Random(1)
    cycles = set()
    for _ in range(6):
        m = model.Machine()
        assert sign(m, rng.randrange(1, N), rng.randbytes(31).rjust(32, b"\0"))[0] == "OK"
        cycles.add(m.cycles)
    assert len(cycles) == 1, cycles
