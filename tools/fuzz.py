#!/usr/bin/env python3
"""make fuzz: runs each libFuzzer harness (build/fuzz/fuzz_<name>, tests/fuzz/) for a set time.

Each harness fuzzes a working copy of its committed corpus (tests/fuzz/corpus/<name> is copied into
build/fuzz/corpus/<name>, which keeps what earlier runs found; the committed directory is never
written), with its dictionary tests/fuzz/<name>.dict when there is one, on one core. Findings
(crash-*, leak-*, timeout-*, oom-*) go to build/fuzz/artifacts/<name>/. Writes build/fuzz/<name>.json:

    {"op": "fuzz", "where": "host", "harness": name, "execs": N, "edges": N, "crashes": N, ...}

execs from libFuzzer's final stats (-print_final_stats=1), edges from its last "cov:" figure,
crashes = findings of this run. Exit status 1 if any harness found something.
tools/bench.py imports run() for its fuzz rows; tests/fuzz/test_fuzz.py runs the harnesses itself.
"""
import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
FUZZ_SRC = ROOT / "tests" / "fuzz"
FINDINGS = ("crash-", "leak-", "timeout-", "oom-", "slow-unit-")


def names():
    return sorted(p.stem[len("fuzz_"):] for p in FUZZ_SRC.glob("fuzz_*.c"))


def parse_output(text):
    """(execs, edges, features, corpus units) from libFuzzer's log."""
    stats = dict(re.findall(r"^stat::(\w+):\s*(\d+)", text, re.M))
    execs = int(stats["number_of_executed_units"]) if "number_of_executed_units" in stats else None
    if execs is None:  # stopped early (a finding): the last status line's count
        counts = re.findall(r"^#(\d+)\s", text, re.M)
        execs = int(counts[-1]) if counts else 0
    covs = re.findall(r"\bcov: (\d+) ft: (\d+) corp: (\d+)", text)
    edges, features, units = (int(x) for x in covs[-1]) if covs else (0, 0, 0)
    return execs, edges, features, units


def run(name, seconds, build=ROOT / "build" / "fuzz", timeout=10, extra=()):
    """Fuzzes one harness for `seconds`; returns its result row (also written to build/fuzz/<name>.json)."""
    build = pathlib.Path(build)
    binary = build / f"fuzz_{name}"
    if not binary.exists():
        sys.exit(f"fuzz: {binary} is not built (make fuzz builds it)")
    work = build / "corpus" / name
    work.mkdir(parents=True, exist_ok=True)
    for seed in (FUZZ_SRC / "corpus" / name).iterdir():
        if not (work / seed.name).exists():
            shutil.copy(seed, work / seed.name)
    art = build / "artifacts" / name
    art.mkdir(parents=True, exist_ok=True)
    before = {p.name for p in art.iterdir()}
    cmd = [str(binary), f"-max_total_time={seconds}", "-print_final_stats=1", f"-timeout={timeout}",
           "-rss_limit_mb=2048", "-close_fd_mask=3", f"-artifact_prefix={art}/", *extra, str(work)]
    d = FUZZ_SRC / f"{name}.dict"
    if d.exists():
        cmd.insert(1, f"-dict={d}")
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    wall = time.monotonic() - t0
    (build / f"{name}.log").write_text(proc.stderr)
    execs, edges, features, units = parse_output(proc.stderr)
    found = sorted(p.name for p in art.iterdir() if p.name not in before and p.name.startswith(FINDINGS))
    crashes = len(found) or (1 if proc.returncode != 0 else 0)
    row = {"op": "fuzz", "where": "host", "config": "clang-asan-ubsan", "harness": name, "execs": execs,
           "edges": edges, "features": features, "corpus_units": units, "crashes": crashes,
           "seconds": round(wall, 1), "execs_per_sec": round(execs / wall) if wall > 0 else 0,
           "exit_code": proc.returncode, "findings": found,
           "note": "libFuzzer, one core; edges = its final cov: figure"}
    (build / f"{name}.json").write_text(json.dumps(row, indent=1) + "\n")
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=60, help="per harness (FUZZ_SECONDS)")
    ap.add_argument("--build", default=str(ROOT / "build" / "fuzz"))
    ap.add_argument("harness", nargs="*", help="names (default: every tests/fuzz/fuzz_*.c)")
    args = ap.parse_args()
    rows = []
    for name in args.harness or names():
        row = run(name, args.seconds, args.build)
        rows.append(row)
        print(f"fuzz {name:12s} execs {row['execs']:>11,} ({row['execs_per_sec']:,}/s)  edges {row['edges']:>5}  "
              f"crashes {row['crashes']}" + (f"  {row['findings']}" if row["findings"] else ""), flush=True)
    total = sum(r["execs"] for r in rows)
    print(f"fuzz total execs {total:,}; crashes {sum(r['crashes'] for r in rows)}")
    return 1 if any(r["crashes"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
