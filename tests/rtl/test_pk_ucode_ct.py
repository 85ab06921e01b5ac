"""The pk microcode's constant-time checker (rtl/pk/ctcheck.py, run by make lint): the real
programs pass it, with exactly the documented exception (ending at once on an out-of-range secret
input), and small programs that branch on secret data, directly or through arithmetic, a SEL, a
subroutine, a leftover slot or the cache, are refused with their source line. Also the
assembler's own errors (rtl/pk/asm.py) name the line."""
import subprocess
import sys

import pytest

from rtlsim import ROOT

sys.path.insert(0, str(ROOT / "rtl" / "pk"))
import asm  # noqa: E402
import ctcheck  # noqa: E402


def run(text, inputs=(), name="BAD"):
    rom = asm.assemble([("bad.s", text)], [{"name": name, "inputs": list(inputs)}])
    return ctcheck.check(rom)


def test_real_programs_are_constant_time():
    rom = asm.load()
    findings, notes = ctcheck.check(rom)
    assert findings == [], "\n".join(map(str, findings))
    secret = sorted((n.program, n.text) for n in notes if "secret-derived" in n.message)
    assert secret == [("ECDSA_SIGN", "JF bad_scalar"), ("ECDSA_SIGN", "JF bad_scalar"),
                      ("ECDSA_SIGN", "JNF bad_scalar"), ("ECDSA_SIGN", "JNF bad_scalar"),
                      ("ECSM", "JF bad_scalar"), ("ECSM_COMB", "JF bad_scalar"), ("ECSM_G", "JF bad_scalar")]
    # every program was followed into its subroutines: the ladder's loop branch is checked for ECSM
    assert any(n.program == "ECSM" and n.text == "DJNZ ladder_loop" for n in notes)
    out = subprocess.run([sys.executable, str(ROOT / "rtl/pk/ctcheck.py")], capture_output=True, text=True)
    assert out.returncode == 0 and "15 pk programs constant-time" in out.stdout, out.stderr


def refused(text, line, *words, inputs=()):
    findings, _ = run(text, inputs)
    assert findings, "the checker accepted a bad program"
    msg = "\n".join(map(str, findings))
    assert f"bad.s:{line}:" in msg and all(w in msg for w in words), msg
    return msg


def test_branch_on_a_scalar_bit_is_refused():
    msg = refused("""
.entry BAD
    SCAL.n K
    KBIT
    JF skip            # the time now says bit 0 of k
    MUL T0, T0, T0
skip:
    END
""", 5, "JF skip", "secret-derived", "KBIT", "K: a secret input")
    assert "bad.s:4" in msg  # the chain names the KBIT's line


def test_secret_through_arithmetic_select_and_subroutine_is_refused():
    # the flag comes from a value computed from d, through SEL and a subroutine called twice:
    # once with public data (fine), once with secret data (refused, naming the CALL)
    msg = refused("""
.entry BAD
    LDI T0, 1
    CALL test
    MUL.n T1, D, RRN
    ZF T1
    SEL T0, T1, ONEP
    CALL test
    END
test:
    ZF T0
    JNF out
out:
    RET
""", 12, "JNF out", "T0 <- `SEL T0, T1, ONEP`", "D: a secret input", "called from bad.s:8")
    assert "called from bad.s:4" not in msg


def test_error_exit_only_for_a_range_test_of_an_input():
    ok = """
.entry BAD
    ZF D
    JF bad
    END
bad:
    ERR BAD_SCALAR
"""
    assert run(ok)[0] == []
    refused(ok.replace("ZF D", "MUL.n T0, D, D\n    ZF T0"), 5, "not a range test of a secret input")
    refused(ok.replace("ZF D", "EQ D, K"), 4, "not a range test")
    refused(ok.replace("ERR BAD_SCALAR", "MOV T0, T0\n    ERR BAD_SCALAR"), 4, "secret-derived")


@pytest.mark.parametrize("first, second", [("ZF K", "KBIT"), ("KBIT", "ZF K")])
def test_exception_holds_on_every_path(first, second):
    # F is a range test of k on one path and a bit of k on the other: the branch is refused
    # whichever path the analysis follows first
    refused(f"""
.entry BAD
    SCAL.n K
    EQ P, N
    JF other
    {first}
    JMP join
other:
    {second}
join:
    JF bad
    END
bad:
    ERR BAD_SCALAR
""", 11, "JF bad", "KBIT")


def test_leftovers_and_inputs():
    prog = """
.entry BAD
    EQ QX, GX
    JF out
out:
    END
"""
    assert run(prog, inputs=["QX"])[0] == []                     # QX is a public input
    refused(prog, 4, "not an input of BAD")                      # else: a previous result
    refused(prog.replace("QX", "T3"), 4, "scratch", inputs=["QX"])  # work slots: leftovers
    assert run(prog.replace("EQ QX, GX", "LDI T3, 5\n    EQ T3, GX"))[0] == []  # written first
    # RUN keeps the scalar register from the previous program: a bit of it is secret until SCAL
    refused(".entry BAD\n    CNT 2 5\n    KBIT\n    JF x\nx:\n    END\n", 4, "scalar: kept from an earlier program")


def test_public_operands_state_slots_and_cache():
    refused(".entry BAD\n    SETMOD.n D\n    END\n", 2, "must be public", "ndig")
    refused(".entry BAD\n    MUL A, K, RRP\n    END\n", 2, "state slot A")
    refused(".entry BAD\n    TST T1, X0, K\n    END\n", 2, "precompute cache")
    refused(".entry BAD\n    CALL f\n    END\nf:\n    CALL f\n", 5, "deeper than the 4-level stack")
    # a secret ladder: CSWAP on secret bits in a loop on the public counter is fine
    assert run("""
.entry BAD
    SCAL.n K
    CNT.n 0 0
loop:
    LBIT
    CSWAP X0, X1
    DJNZ loop
    LFIN
    END
""")[0] == []


def test_command_line_refuses_a_bad_file(tmp_path):
    f = tmp_path / "bad.s"
    f.write_text(".entry BAD\n    SCAL.n K\n    KBIT\n    JNF BAD_end\nBAD_end:\n    END\n")
    out = subprocess.run([sys.executable, str(ROOT / "rtl/pk/ctcheck.py"), str(f)], capture_output=True, text=True)
    assert out.returncode != 0
    assert f"{f}:4: BAD: `JNF BAD_end`" in out.stderr and "1 constant-time violation" in out.stderr


@pytest.mark.parametrize("text, error", [
    ("    MUL T0, T9, T1", "bad.s:1: unknown slot 'T9'"),
    ("    JMP nowhere", "bad.s:1: unknown label 'nowhere'"),
    ("    MUL.g T0, T0, T0", "bad.s:1: MUL's suffix is .n, not .g"),
    ("    ADD T0, T0", "bad.s:1: ADD wants operands `{d}, {a}, {b}`"),
    ("    LDI T0, 3000000", "bad.s:1: LDI: imm = 3000000 does not fit [20:0]"),
    (".macro m x\n    ZF \\y\n.endm\n    m T0", "bad.s:2: unknown macro parameter"),
])
def test_assembler_errors_name_the_line(text, error):
    with pytest.raises(asm.AsmError, match=None) as e:
        asm.assemble([("bad.s", text)])
    assert str(e.value).startswith(error), str(e.value)
