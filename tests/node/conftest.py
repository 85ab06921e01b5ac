"""Running firmware on the node simulator (build/sim/<arch>/node) for the tests in tests/node.

A firmware config is sw-<arch> (the crypto library) or sw+hw-<arch> (the engine); its images are
build/fw/<config>/<app>.elf (sw/node/fw.mk). Tests skip, saying what is missing, when the simulator
or an image has not been built (`make node` builds both; `make test` does it first)."""
import json
import os
import pathlib
import subprocess
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"
CONFIGS = ("sw-rv32i", "sw-rv32im", "sw+hw-rv32i", "sw+hw-rv32im", "sw+hw-rv32imc")


def arch_of(config):
    """The core of a config: the part after the last '-'."""
    return config.rsplit("-", 1)[1]


def sim_path(arch):
    return BUILD / "sim" / arch / "node"


def elf_path(config, app):
    return BUILD / "fw" / config / f"{app}.elf"


def require(config, app):
    """(simulator, elf) of config/app; a missing one fails the test, naming the file and the make
    target that builds it (a missing build is never a green skip)."""
    sim, elf = sim_path(arch_of(config)), elf_path(config, app)
    for f in (sim, elf):
        if not f.exists():
            pytest.fail(f"{f.relative_to(ROOT)} is not built (run `make node`)")
    return sim, elf


class Run:
    """A finished simulation: returncode, stdout (UART) and stderr as text, the parsed --report."""

    def __init__(self, proc, report, seconds):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.report = report
        self.seconds = seconds

    def __repr__(self):
        return (f"<Run status {self.returncode}, stderr {self.stderr[-600:]!r}, "
                f"stdout tail {self.stdout[-300:]!r}>")


def start(sim, elf, args=(), uart_input=None, report=True):
    """Starts a simulation in the background; returns a function that waits (timeout in seconds)
    and gives a Run."""
    import time
    rep = None
    if report:
        fd, rep = tempfile.mkstemp(prefix="node-report-", suffix=".json")
        os.close(fd)
    cmd = [str(sim), "--elf", str(elf), *map(str, args)] + (["--report", rep] if rep else [])
    if uart_input is not None:
        cmd.append("--uart-rx")
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if uart_input is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def wait(timeout):
        try:
            out, err = proc.communicate(uart_input, timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise AssertionError(f"{' '.join(cmd)} did not finish within {timeout} s")
        done = subprocess.CompletedProcess(cmd, proc.returncode, out.decode(errors="replace"),
                                           err.decode(errors="replace"))
        data = None
        if rep:
            try:
                text = pathlib.Path(rep).read_text()
                data = json.loads(text) if text.strip() else None
            finally:
                os.unlink(rep)
        return Run(done, data, time.monotonic() - t0)
    return wait


def run(sim, elf, args=(), uart_input=None, timeout=60, report=True):
    """Runs a simulation to its end (bounded by timeout seconds of wall time)."""
    return start(sim, elf, args, uart_input, report)(timeout)


class UartProgram:
    """A program on the node that talks to the host a line at a time over the UART (node/app.h:
    sw/apps/schnorr, sw/apps/ecmqv): JSON lines out, text lines in. The sw configs run on the node
    without the engine, which they never touch: the same cycles, a faster simulation."""

    def __init__(self, config, app, max_cycles=20_000_000_000):
        sim, elf = require(config, app)
        if config.startswith("sw-"):
            sim = sim_path(f"{arch_of(config)}-noengine")
        self.proc = subprocess.Popen([str(sim), "--elf", str(elf), "--uart-rx", "--seed", "1",
                                      "--max-cycles", str(max_cycles)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, bufsize=1)

    def read(self):
        line = self.proc.stdout.readline()
        assert line, f"the program stopped: {self.proc.stderr.read()[-600:]}"
        return json.loads(line)

    def ask(self, line):
        """Sends one line; the program's one-line answer."""
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.read()

    def close(self, timeout=900):
        """Ends the input; the run must end with status 0."""
        self.proc.stdin.close()
        assert self.proc.wait(timeout=timeout) == 0, self.proc.stderr.read()[-600:]


class Node:
    """What the `node` fixture gives a test: the helpers above."""
    root, configs = ROOT, CONFIGS
    arch_of = staticmethod(arch_of)
    sim_path = staticmethod(sim_path)
    elf_path = staticmethod(elf_path)
    require = staticmethod(require)
    start = staticmethod(start)
    run = staticmethod(run)
    UartProgram = UartProgram


@pytest.fixture(scope="session")
def node():
    return Node()
