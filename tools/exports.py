#!/usr/bin/env python3
"""Exported symbols of the libraries that lack the se_ prefix (`make lint`, tests/cli/test_exports.py).

Every symbol a library of ours exports must start with se_ (or be static), so that nothing
collides in an integrator's link. Reads archives with nm (gcc-nm for the cross builds' LTO
objects: pass --nm). Prints each offender as "<archive>: <symbol>" and exits 1 if there is one.
"""
import argparse
import subprocess
import sys


def offenders(archives, nm="nm"):
    """(archive, symbol) for every defined global symbol without the se_ prefix."""
    bad = []
    for a in archives:
        out = subprocess.run([nm, "-g", "--defined-only", a], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and not f[2].startswith("se_"):
                bad.append((a, f[2]))
    return sorted(set(bad))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archives", nargs="+")
    ap.add_argument("--nm", default="nm", help="the nm to use (riscv64-unknown-elf-gcc-nm for LTO archives)")
    args = ap.parse_args()
    bad = offenders(args.archives, args.nm)
    for a, s in bad:
        print(f"{a}: {s}  (exported without the se_ prefix: prefix it or make it static)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
