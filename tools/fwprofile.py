#!/usr/bin/env python3
"""Where a node run's CPU cycles went: folds the simulator's `--profile FILE` (CPU-active cycles per
fetch address and phase, sim/node/README.md) onto the firmware's functions.

    build/sim/rv32im/node --elf build/fw/sw+hw-rv32im/sensor.elf ... --profile prof.txt
    tools/fwprofile.py prof.txt build/fw/sw+hw-rv32im/sensor.elf [--phase key_exchange] [--top 25]

Prints, per function, the cycles and their share of the phases chosen (all by default). The
address counted is the last instruction fetch, so a cycle spent waiting for a load is charged to
the instruction after it: exact per function, not per instruction."""
import argparse
import bisect
import collections
import subprocess
import sys


def symbols(elf, nm="riscv64-unknown-elf-nm"):
    """(start addresses, [(start, end, name)]) of the ELF's functions, sorted."""
    out = subprocess.run([nm, "-S", "-n", "--defined-only", elf], check=True, capture_output=True,
                         text=True).stdout
    funcs = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            start, size = int(parts[0], 16), int(parts[1], 16)
            funcs.append((start, start + size, parts[3]))
    funcs.sort()
    return [f[0] for f in funcs], funcs


def fold(profile, elf, phases=None):
    """{function: cycles} over the phases named (None: all), and the total."""
    starts, funcs = symbols(elf)
    per = collections.Counter()
    with open(profile) as f:
        for line in f:
            phase, addr, cycles = line.rsplit(" ", 2)
            if phases and phase not in phases:
                continue
            a = int(addr, 16)
            i = bisect.bisect_right(starts, a) - 1
            name = funcs[i][2] if i >= 0 and a < funcs[i][1] else f"?0x{a:08x}"
            per[name] += int(cycles)
    return per, sum(per.values())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("profile")
    ap.add_argument("elf")
    ap.add_argument("--phase", action="append", help="only these phases (repeatable; '-' = outside phases)")
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args(argv)
    per, total = fold(a.profile, a.elf, a.phase)
    if not total:
        sys.exit("fwprofile.py: no cycles in the phases chosen")
    print(f"{total:,} CPU-active cycles" + (f" in {', '.join(a.phase)}" if a.phase else ""))
    for name, n in per.most_common(a.top):
        print(f"{n:>12,} {100 * n / total:5.1f}%  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
