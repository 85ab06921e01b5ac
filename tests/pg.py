"""A throwaway PostgreSQL cluster for one test: initdb into a private temp directory, a server on
a Unix socket there only (no TCP, no system service), removed afterwards. PostgreSQL refuses to run
as root, so under root (CI) the cluster belongs to the `postgres` user (or `nobody`). The server
comes from the distribution's package (make setup installs `postgresql`); `psql` reads back what
the collector wrote, an independent reader."""
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

PORT = 5432  # names the socket file only; the directory is private


def _bindir():
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(d.split("/")[-2]))
    if not dirs:
        pytest.fail("PostgreSQL is missing: run `make setup` (it installs the postgresql package)")
    return dirs[-1]


class Postgres:
    def __init__(self):
        self.bin = _bindir()
        self.dir = tempfile.mkdtemp(prefix="se-pg-")
        self.data, self.log = os.path.join(self.dir, "data"), os.path.join(self.dir, "server.log")
        self.run_as = []
        if os.geteuid() == 0:
            user = "postgres"
            try:
                pw = pwd.getpwnam(user)
            except KeyError:
                user, pw = "nobody", pwd.getpwnam("nobody")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            # setpriv execs (runuser would fork and keep signals from the server)
            self.run_as = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--clear-groups", "--"]
        os.chmod(self.dir, 0o711)  # the collector (root or not) reaches the socket inside
        self._run([f"{self.bin}/initdb", "-D", self.data, "-U", "se", "-A", "trust", "-E", "UTF8", "--no-sync"])
        self.server = None
        self.start()
        self.url = f"postgresql:///postgres?host={self.dir}&port={PORT}&user=se"

    def _run(self, args):
        p = subprocess.run(self.run_as + args, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stdout + p.stderr

    def start(self):
        self.server = subprocess.Popen(
            self.run_as + [f"{self.bin}/postgres", "-D", self.data, "-k", self.dir, "-p", str(PORT),
                           "-c", "listen_addresses=", "-c", "max_connections=50", "-c", "fsync=on",
                           "-c", "synchronous_commit=on", "-c", "logging_collector=off"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + 30
        while time.monotonic() < end:
            p = subprocess.run([f"{self.bin}/pg_isready", "-h", self.dir, "-p", str(PORT)], capture_output=True)
            if p.returncode == 0:
                return
            assert self.server.poll() is None, "postgres exited at start-up"
            time.sleep(0.1)
        pytest.fail("postgres did not start")

    def stop(self):
        if self.server is not None and self.server.poll() is None:
            self.server.send_signal(signal.SIGINT)  # fast shutdown
            self.server.wait(timeout=60)
        self.server = None

    def psql(self, sql):
        """Rows of a query, each a list of column strings."""
        p = subprocess.run(["psql", "-h", self.dir, "-p", str(PORT), "-U", "se", "-d", "postgres", "-AtX",
                            "-F", "\t", "-c", sql], capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        return [line.split("\t") for line in p.stdout.splitlines()]

    def close(self):
        try:
            self.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
