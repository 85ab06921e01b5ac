"""Every symbol the libraries export starts with se_ (tools/exports.py, also run by `make lint`), so
nothing of ours collides in an integrator's link; and the check finds an offender when there is one."""
import subprocess
import sys

import pytest

from se_cli import ROOT

LIBS = ["libsecrypto.a", "libsedrivers.a", "libsebackend.a", "libseproto.a"]


def exports(*args):
    return subprocess.run([sys.executable, str(ROOT / "tools/exports.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_host_libraries_export_only_se_names():
    libs = [ROOT / "build/host" / n for n in LIBS]
    missing = [str(p.relative_to(ROOT)) for p in libs if not p.exists()]
    if missing:
        pytest.fail(f"{', '.join(missing)} not built (run `make cli`)")
    r = exports(*libs)
    assert r.returncode == 0 and r.stdout == "", r.stdout


@pytest.mark.parametrize("arch", ["rv32i", "rv32im", "rv32imc"])
def test_cross_libraries_export_only_se_names(arch):
    libs = [ROOT / "build" / arch / n for n in LIBS]
    missing = [str(p.relative_to(ROOT)) for p in libs if not p.exists()]
    if missing:
        pytest.fail(f"{', '.join(missing)} not built (run `make cross`)")
    r = exports("--nm", "riscv64-unknown-elf-gcc-nm", *libs)
    assert r.returncode == 0 and r.stdout == "", r.stdout


def test_an_unprefixed_export_is_found(tmp_path):
    src = tmp_path / "bad.c"
    src.write_text("int se_fine(void) { return 1; }\nint helper(void) { return 2; }\n"
                   "static int hidden(void) { return 3; }\nint se_uses(void) { return hidden(); }\n")
    subprocess.run(["cc", "-c", str(src), "-o", str(tmp_path / "bad.o")], check=True)
    subprocess.run(["ar", "rcs", str(tmp_path / "libbad.a"), str(tmp_path / "bad.o")], check=True)
    r = exports(tmp_path / "libbad.a")
    assert r.returncode == 1
    assert [line.split(": ")[1].split()[0] for line in r.stdout.splitlines()] == ["helper"]
