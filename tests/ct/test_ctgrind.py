"""Secret-independence ("ctgrind"): each tests/ct/ct_*.c harness marks its secrets undefined for
valgrind memcheck; any branch or memory address that depends on them is reported as an error."""
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HARNESSES = sorted(p.stem for p in (ROOT / "tests" / "ct").glob("ct_*.c"))


def test_harnesses_exist():
    assert HARNESSES, "no constant-time harness found in tests/ct"


@pytest.mark.parametrize("name", HARNESSES)
def test_no_secret_dependent_branch_or_address(name):
    assert shutil.which("valgrind"), "valgrind is required (make setup installs it)"
    exe = ROOT / "build" / "host" / "ct" / name
    assert exe.exists(), f"{exe} missing: run `make ct`"
    p = subprocess.run(["valgrind", "--tool=memcheck", "--error-exitcode=97", "--track-origins=yes",
                        str(exe)], capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, f"{name}: valgrind reports secret-dependent behaviour:\n{p.stderr[-6000:]}"
    assert "ERROR SUMMARY: 0 errors" in p.stderr
    assert p.stdout.strip(), f"{name} printed nothing"
