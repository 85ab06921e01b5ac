"""The ctrl instruction set on the model, by directed programs (tests/ctrl/isa/isa.s): every
expected register, status and cycle count here is computed by hand from isa.toml's definitions,
not by the model. The same programs run on the RTL in tests/rtl/test_ctrl_core.py, which must
match the model."""
import hashlib
import sys

from se_cli import ROOT

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_asm as asm  # noqa: E402
import ctrl_isa as isa  # noqa: E402
import ctrl_model as model  # noqa: E402

ISA_DIR = ROOT / "tests" / "ctrl" / "isa"
Z, C = 1, 2  # the `flags` macro's bits


def machine():
    return model.Machine(asm.load(ISA_DIR))


def test_alu_and_branches():
    m = machine()
    assert m.run("ALU") == "OK"
    assert m.regs[1:] == [0xfffc, 0, Z | C, 0xffff, C, 0, 0xfffc, 0, Z, 0, 0x2aaa, 0, 0x5554, 0x7ffe, 0x7ffe]


def test_call_depth():
    m = machine()
    assert m.run("CALLS", {2: 8}) == "OK" and m.regs[1] == 8
    assert m.run("CALLS", {2: 9}) == "BAD_PROGRAM" and m.regs[1] == 8   # the ninth CALL, at level 8
    # LDI and CALL rec, then per level ADDI, CMP, J.z and CALL (7 times), the last level's ADDI,
    # CMP, J.z, eight RETs and END
    assert m.run("CALLS", {2: 8}) == "OK" and m.cycles == 2 + 7 * 4 + 3 + 8 + 1
    assert m.run("RET_EMPTY") == "BAD_PROGRAM" and m.cycles == 1


def test_no_program_can_fill_the_call_stack():
    """The static bound (ctrl_asm Rom.call_depths, which ctrl_ucode.py enforces on the engine's ROM):
    every program of the engine within the stack's levels; the directed ROM's recursion found, its
    straight programs at 0."""
    depths = asm.load().call_depths()
    assert depths and all(d is not None and d <= isa.CALL_DEPTH for d in depths.values()), depths
    assert depths["HS_RECORD"] >= depths["CERTIFICATE"] >= depths["CHAIN_CHECK"] >= 3
    directed = asm.load(ISA_DIR).call_depths()
    assert directed["CALLS"] is None and directed["ALU"] == 0 and directed["RET_EMPTY"] == 0


def test_memory():
    m = machine()
    m.load(0x100, b"abcd")
    assert m.run("MEM", {1: 0x100, 2: 0x200}) == "OK"
    assert bytes(m.mem[0x200:0x204]) == b"bab\x03"
    assert m.regs[3] == ord("b") and m.regs[15] == 3
    assert m.regs[7] == Z and m.regs[9] & Z and not m.regs[10] & Z and m.regs[11] == Z and m.regs[12] == Z
    assert m.regs[13] == 0 and m.regs[14] == C
    # LDB 2, STB, LDI, ADDI, COPY 1+3, MEQ 1+3, flags 4 (Z set: the ORI runs; C clear: not),
    # LDI, MEQ 1 (empty: equal), flags, MEQ 1 (lengths differ), flags, MCMP 1, flags,
    # MCMP 1+2*3, flags, STB, MCMP 1+6, flags, MCMP 1+6, flags, LDB 2, END
    flags = {Z: 4, 0: 3, C: 4, Z | C: 5}   # LDI, J.nz, [ORI], J.nc, [ORI]
    want = (2 + 1 + 1 + 1 + 4 + 4 + flags[Z] + 1 + 1 + flags[m.regs[9]] + 1 + flags[m.regs[10]]
            + 1 + flags[Z] + 7 + flags[Z] + 1 + 7 + flags[0] + 7 + flags[C] + 2 + 1)
    assert m.cycles == want


def test_half_words():
    m = machine()
    m.load(0x208, bytes(4))
    assert m.run("HALF", {1: 0x200, 2: 0xa55a}) == "OK"
    assert bytes(m.mem[0x201:0x203]) == b"\xa5\x5a" and m.mem[isa.MEM_BYTES - 1] == 0xa5 and m.mem[0] == 0x5a
    assert m.regs[3:13] == [0xa55a, 0xa5, 0x5a, isa.MEM_BYTES - 1, 0xa55a, 0x5a, 0xaa55, 0, 0, Z]
    assert bytes(m.mem[0x208:0x20c]) == b"abc\0"
    # STH 2, LDH 3, LDB 2, LDB 2, LDI 1, STH 2, LDH 3, LDB 2, XORI 1, flags 3, XORI 1, flags 4,
    # ADDI 1, CCOPY 1+3, CCOPY 1, END 1
    assert m.cycles == 2 + 3 + 2 + 2 + 1 + 2 + 3 + 2 + 1 + 3 + 1 + 4 + 1 + 4 + 1 + 1


def test_outputs():
    m = machine()
    m.load(0x100, b"\x01\x02\x03\x04" + bytes(28))
    assert m.run("OUTS", {1: 0x100}) == "BAD_PROGRAM"   # the OUTN of 33 bytes
    assert m.out == {"A": b"\x01\x02\x03\x04", "B": b"\x01\x02\x03\x04" + bytes(28), "C": 0x1234}
    m.load(0x300, bytes(4))
    assert m.run("OVERLAP", {1: 0x300}) == "BAD_PROGRAM"


def test_sha_calls():
    """SHAI, SHAU and SHAF: the digests hashlib gives, the cycles isa.toml gives (no waits on the
    model), and the refusals of a message that was not begun."""
    m = machine()
    msg = bytes(range(200)) * 2
    m.load(0x100, msg)
    for split in (0, 1, 63, 64, 65, 399, 400):
        assert m.run("SHA", {1: 0x100, 2: len(msg), 3: split, 4: 0x400}) == "OK"
        assert m.out["D"] == hashlib.sha256(msg).digest() and bytes(m.mem[0x400:0x420]) == m.out["D"]
        assert m.out["E"] == hashlib.sha256(b"").digest()
        # SHAI 1, SHAU 1 + split, ADD, SUB, SHAU 1 + the rest, SHAF 1 + 32, LDI, OUT, SHAI,
        # LDI, SHAU 1, ADDI, SHAF 33, OUT, END
        assert m.cycles == 1 + (1 + split) + 2 + (1 + len(msg) - split) + 33 + 2 + 1 + 1 + 1 + 1 + 33 + 1 + 1
    assert m.run("SHA_NO_INIT", {1: 0x100}) == "BAD_PROGRAM" and m.cycles == 2
    assert m.run("SHA_TWICE", {1: 0x100}) == "BAD_PROGRAM" and m.cycles == 1 + 33 + 1
    assert bytes(m.mem[0x100:0x120]) == hashlib.sha256(b"").digest()


def test_sha_save_and_resume():
    """SHAS saves a message's chaining value after whole blocks, SHAR starts one from it: the digest
    is hashlib's either way, for every split at a block boundary; SHAS elsewhere is ENGINE, and with
    no message BAD_PROGRAM; the cycles isa.toml gives."""
    m = machine()
    msg = bytes(range(256)) * 2 + b"tail"
    m.load(0x100, msg)
    for blocks in (1, 2, 8):
        m.load(0x400 + 32, blocks.to_bytes(4, "big"))
        assert m.run("SHA_SAVE", {1: 0x100, 2: len(msg), 3: 64 * blocks, 4: 0x400, 5: 0x500}) == "OK"
        assert m.out["D"] == m.out["E"] == hashlib.sha256(msg).digest(), blocks
        rest = len(msg) - 64 * blocks
        # SHAI 1, SHAU 1 + 64 b, SHAS 33, ADD, SUB, SHAU 1 + rest, SHAF 33, SHAR 38, SHAU 1 + rest,
        # ADDI, SHAF 33, LDI, OUT, OUT, END
        assert m.cycles == 1 + (1 + 64 * blocks) + 33 + 2 + (1 + rest) + 33 + 38 + (1 + rest) + 1 + 33 + 4
    for n in (0, 5, 63, 65):
        assert m.run("SHA_SAVE_BAD", {1: 0x100, 2: n, 4: 0x400}) == "ENGINE", n
    assert m.run("SHA_SAVE_BAD", {1: 0x100, 2: 128, 4: 0x400}) == "OK"


def test_pk_calls():
    """PKW, PKR and PKRUN: the numbers the pk IP gets and gives back, the status it answers (a
    signature the `cryptography` package made, and one changed bit of it), and the cycles isa.toml
    gives."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    m = machine()
    m.load(0x100, bytes(range(1, 33)))
    assert m.run("PK", {1: 0x100}) == "BAD_PROGRAM"            # the PKW of 33 bytes
    assert bytes(m.mem[0x200:0x260]) == bytes(range(1, 33)) + bytes(32) + bytes(27) + bytes(range(1, 6))
    assert m.regs[4] == model.isa.PK_STATUS["VERIFY_FAIL"] and m.regs[5] == 0   # (r = 0: pk checks it first)
    assert m.regs[6] == model.isa.PK_STATUS["BAD_SEQ"]
    assert not any(s >= 12 for s in m.pk.slots)                     # the engine cleared pk's operands after it
    # LDI, PKW 2+32, LDI, PKW 2, LDI, PKW 2+5, 3 (ADDI, PKR 1+32), PKRUN, flags (Z, C clear: LDI,
    # J.nz, J.nc), PKRUN, LDI, PKW refused at once
    assert m.cycles == 1 + 34 + 1 + 2 + 1 + 7 + 3 * 34 + 1 + 3 + 1 + 1 + 1
    m.pk.slots[model.isa.PK_SLOT["RX"]] = 5           # as the bus left pk: a refused PKR does not reach it,
    assert m.run("PK_READ_BAD", {1: 0x100}) == "BAD_PROGRAM" and m.cycles == 1
    assert m.pk.slots[model.isa.PK_SLOT["RX"]] == 5   # so the engine sends no CLEAR after it
    key = ec.generate_private_key(ec.SECP256R1())
    msg = b"tbsCertificate"
    r, s = decode_dss_signature(key.sign(msg, ec.ECDSA(hashes.SHA256())))
    pub = key.public_key().public_numbers()
    e = hashlib.sha256(msg).digest()
    for flip, want in ((0, "OK"), (1, "VERIFY_FAIL")):
        nums = [int.from_bytes(e, "big"), r ^ flip, s, pub.x, pub.y]
        m.load(0x200, b"".join(v.to_bytes(32, "big") for v in nums))
        assert m.run("PK_VERIFY", {1: 0x200}) == "OK"
        assert m.regs[4] == model.isa.PK_STATUS[want] and bool(m.regs[5] & Z) == (want == "OK")
        # LDI, 5 PKW of 2+32, 4 ADDI, PKRUN, flags (LDI, J.nz, [ORI], J.nc), END
        assert m.cycles == 1 + 5 * 34 + 4 + 1 + (4 if want == "OK" else 3) + 1
