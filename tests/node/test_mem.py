"""sw/node/mem.c (the node's memcpy, memmove, memset, memcmp) against the host's C
library: the file is compiled for the host with its functions renamed and checked by
tests/node/c/mem_check.c over every alignment, overlaps both ways and many lengths."""
import subprocess

from se_cli import ROOT


def test_mem_functions_match_libc(tmp_path):
    exe = tmp_path / "mem_check"
    ren = ["-Dmemcpy=t_memcpy", "-Dmemmove=t_memmove", "-Dmemset=t_memset", "-Dmemcmp=t_memcmp"]
    subprocess.run(["cc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-c", str(ROOT / "sw/node/mem.c"),
                    "-o", str(tmp_path / "mem.o"), *ren], check=True)
    subprocess.run(["cc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", str(ROOT / "tests/node/c/mem_check.c"),
                    str(tmp_path / "mem.o"), "-o", str(exe)], check=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout
    assert r.stdout.strip().endswith("0 failed") and int(r.stdout.split()[-4]) > 10000, r.stdout
