"""Shared pytest fixtures: run the CLI's batch mode, count vectors per kind, locate NIST files."""
import json
import os
import pathlib
import subprocess
from collections import defaultdict

import pytest

from se_cli import CLI, ROOT, run_batch  # noqa: F401  (re-exported for fixtures below)

_passed = defaultdict(int)


def pytest_addoption(parser):
    parser.addoption("--backend", default=os.environ.get("SE_BACKEND", "all"),
                     help="CLI backend the vector suites run on: sw, rtl, soc, or all (default) for every "
                          "backend a test module declares with @pytest.mark.backends(...)")


# make test runs two pytest-xdist workers over whole files (--dist loadfile) in collection order
# (--no-loadscope-reorder: xdist's own order, by number of tests, put the cocotb benches, one test
# each and minutes long, last, and the run ended on one worker). These files take longest (wall
# seconds on the 2-core machine beside other jobs, one file at a time), so they start first; the
# others keep pytest's order.
LONG_FIRST = (
    "tests/rtl/test_pk_core.py",        # ~300
    "tests/rtl/test_soc.py",            # ~190: three soc_top models built
    "tests/fuzz/test_fuzz.py",          # ~130
    "tests/rtl/test_aes_engine.py",     # 45-130
    "tests/rtl/test_gf2m_ecsm.py",      # ~80
    "tests/crypto/test_ecc.py",         # ~70
    "tests/node/test_selftest.py",      # ~50: four node runs side by side
    "tests/rtl/test_sha256_engine.py",  # ~50
    "tests/rtl/test_sha256_core.py",    # ~50
)


def pytest_collection_modifyitems(config, items):
    rank = {path: i for i, path in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))  # stable


def pytest_generate_tests(metafunc):
    """Runs a test once per backend: those its module names in `pytestmark = pytest.mark.backends(...)`
    (only "sw" when it names none), narrowed by --backend."""
    if "backend" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("backends")
    chosen = metafunc.config.getoption("--backend")
    params = [b for b in (marker.args if marker else ("sw",)) if chosen in ("all", b)]
    metafunc.parametrize("backend", params)


class Session:
    """A long-lived `se batch` process for chained tests (each request waits for its answer)."""

    def __init__(self, backend):
        self.proc = subprocess.Popen([str(CLI), "--backend", backend, "batch"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)

    def __call__(self, request):
        self.proc.stdin.write(json.dumps(request, separators=(",", ":")) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"se batch exited early (status {self.proc.poll()})"
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


@pytest.fixture
def session(backend):
    s = Session(backend)
    yield s
    s.close()


@pytest.fixture
def batch(backend):
    def _batch(requests, backend_override=None):
        return run_batch(requests, backend_override or backend)
    return _batch


@pytest.fixture
def budget(backend):
    """Sizes a suite for the backend: budget(n_sw, n_rtl) is the number of cases to run, and
    budget.pick(items, n_rtl) every item on sw but an even spread of n_rtl items on a simulated
    backend (about half a million engine cycles per second); openssl runs the sw sizes. SE_FULL_VECTORS=1 (make bench) runs
    the sw sizes everywhere."""
    full = backend in ("sw", "openssl") or os.environ.get("SE_FULL_VECTORS") == "1"

    class Budget:
        def __call__(self, n_sw, n_rtl):
            return n_sw if full else n_rtl

        def pick(self, items, n_rtl):
            if full or len(items) <= n_rtl:
                return items
            return [items[i * len(items) // n_rtl] for i in range(n_rtl)]
    return Budget()


@pytest.fixture
def tally(request):
    """tally(kind, n): records that n vectors of this kind passed (printed at the end of the run),
    under "[backend] kind" when the test runs on a backend other than sw."""
    params = getattr(request.node, "callspec", None)
    backend = params.params.get("backend", "sw") if params else "sw"
    prefix = "" if backend == "sw" else f"[{backend}] "

    def _tally(kind, n):
        _passed[prefix + kind] += n
    return _tally


@pytest.fixture(scope="session")
def vectors():
    """Root of the NIST/RFC vector files shipped by the cryptography-vectors package."""
    import cryptography_vectors
    return pathlib.Path(cryptography_vectors.__file__).parent


@pytest.fixture(scope="session")
def seed():
    """Seed of the randomised cross-checks; set SE_TEST_SEED to replay a failure."""
    return int(os.environ.get("SE_TEST_SEED", "20261122"))


# Under pytest-xdist (make test runs two workers) each worker counts its own vectors: the counts
# travel back to the controller with the worker's output and are added up there.
def pytest_sessionfinish(session):
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["vectors_passed"] = dict(_passed)


def pytest_testnodedown(node, error):
    for kind, n in getattr(node, "workeroutput", {}).get("vectors_passed", {}).items():
        _passed[kind] += n


def pytest_terminal_summary(terminalreporter):
    if not _passed:
        return
    terminalreporter.section("vectors passed, by kind")
    for kind in sorted(_passed):
        terminalreporter.write_line(f"{kind:48s} {_passed[kind]:7d}")
    terminalreporter.write_line(f"{'total':48s} {sum(_passed.values()):7d}")
