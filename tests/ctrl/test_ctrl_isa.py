"""The ctrl instruction set on the model, by directed programs (tests/ctrl/isa/isa.s): every
expected register, status and cycle count here is computed by hand from isa.toml's definitions,
not by the model. The same programs run on the RTL in tests/rtl/test_ctrl_core.py, which must
match the model."""
import sys

from se_cli import ROOT

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_asm as asm  # noqa: E402
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


def test_outputs():
    m = machine()
    m.load(0x100, b"\x01\x02\x03\x04" + bytes(28))
    assert m.run("OUTS", {1: 0x100}) == "BAD_PROGRAM"   # the OUTN of 33 bytes
    assert m.out == {"A": b"\x01\x02\x03\x04", "B": b"\x01\x02\x03\x04" + bytes(28), "C": 0x1234}
    m.load(0x300, bytes(4))
    assert m.run("OVERLAP", {1: 0x300}) == "BAD_PROGRAM"
