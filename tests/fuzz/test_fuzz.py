"""The libFuzzer harnesses (tests/fuzz/fuzz_*.c, built by `make fuzz-build` into build/fuzz/ with
ASan + UBSan, -fno-sanitize-recover=all): each replays its committed corpus, then fuzzes a scratch
copy of it for FUZZ_TEST_SECONDS (default 24 s; two harnesses at a time under `pytest -n 2`).
Any crash, leak, timeout or sanitizer report makes libFuzzer exit nonzero: the test fails with
its report. A harness that is not built fails (never skips). Long runs: `make fuzz`, docs/robustness.md."""
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "fuzz"
BUILD = ROOT / "build" / "fuzz"
NAMES = sorted(p.stem[len("fuzz_"):] for p in HERE.glob("fuzz_*.c"))
SECONDS = int(os.environ.get("FUZZ_TEST_SECONDS", "24"))
FLAGS = ["-timeout=10", "-rss_limit_mb=2048", "-close_fd_mask=3", "-print_final_stats=1"]


def binary(name):
    b = BUILD / f"fuzz_{name}"
    assert b.exists(), f"{b} is not built: `make fuzz-build` (a prerequisite of `make test`)"
    return b


def report(proc):
    return proc.stderr[-6000:]


def test_every_harness_has_a_corpus():
    assert len(NAMES) >= 7
    total = 0
    for name in NAMES:
        files = [p for p in (HERE / "corpus" / name).iterdir() if p.is_file()]
        assert files, f"tests/fuzz/corpus/{name} is empty"
        total += sum(p.stat().st_size for p in files)
    assert total < 1 << 20, "the committed corpora must stay well under 1 MB"


def start(name, tmp_path):
    """Replays the committed corpus (each seed once, no mutation), then starts fuzzing a copy of it
    (libFuzzer adds to its corpus directory). Returns the running fuzzer and its artifact dir."""
    b = binary(name)
    corpus = HERE / "corpus" / name
    art = tmp_path / name / "artifacts"
    art.mkdir(parents=True)
    seeds = sorted(str(p) for p in corpus.iterdir() if p.is_file())
    proc = subprocess.run([str(b), *FLAGS, f"-artifact_prefix={art}/", *seeds], capture_output=True,
                          text=True, errors="replace", timeout=300)
    assert proc.returncode == 0, f"fuzz_{name}: a committed seed fails:\n{report(proc)}"
    work = tmp_path / name / "corpus"
    shutil.copytree(corpus, work)
    cmd = [str(b), *FLAGS, f"-max_total_time={SECONDS}", f"-artifact_prefix={art}/", str(work)]
    if (HERE / f"{name}.dict").exists():
        cmd.insert(1, f"-dict={HERE / name}.dict")
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace"), art


# make test runs pytest with --dist loadfile (this whole file on one worker): the harnesses run two
# at a time inside each test, so all of them take about (N / 2) * SECONDS.
PAIRS = [NAMES[i:i + 2] for i in range(0, len(NAMES), 2)]


@pytest.mark.parametrize("names", PAIRS, ids=["+".join(p) for p in PAIRS])
def test_fuzz(names, tmp_path):
    running = [(name, *start(name, tmp_path)) for name in names]
    failures = []
    for name, proc, art in running:
        try:
            _, err = proc.communicate(timeout=SECONDS + 300)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        found = sorted(p.name for p in art.iterdir())
        if proc.returncode != 0 or found or "stat::number_of_executed_units" not in err:
            failures.append(f"fuzz_{name}: exit {proc.returncode}, {found}\n{err[-6000:]}")
    assert not failures, "\n".join(failures)
