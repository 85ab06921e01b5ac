"""The collector at scale: `se collector --workers N` (SO_REUSEPORT), its group commit, and the
load generator `se load`, with the crypto on OpenSSL's libcrypto (--backend openssl) and on the
library. Readings are read back with Python's sqlite3 (an independent reader); every reading names
itself ("<prefix> client=<k> conn=<c> seq=<i>"), so each can be checked stored exactly once."""
import json
import os
import re
import select
import signal
import socket
import subprocess
import threading
import time

import pytest

from se_cli import CLI
from proto.pki import make_pki
from proto.test_collector import Collector, rows, wait_rows

pytestmark = pytest.mark.backends("openssl", "sw")  # the collector's and the clients' crypto


@pytest.fixture
def pki(tmp_path):
    return make_pki(tmp_path / "pki", clients=("node-1",))


def load(port, pki, clients, readings, *extra, backend="openssl", prefix="load", timeout=120):
    """Runs `se load`; returns (exit status, its JSON report)."""
    cert, key = pki.client("node-1")
    p = subprocess.run([str(CLI), "--backend", backend, "load", "--connect", f"127.0.0.1:{port}",
                        "--cert", str(cert), "--key", str(key), "--ca", str(pki.ca_pem), "--name", "localhost",
                        "--clients", str(clients), "--readings", str(readings), "--prefix", prefix,
                        *map(str, extra)], capture_output=True, text=True, timeout=timeout)
    assert p.stdout.strip(), p.stderr
    return p.returncode, json.loads(p.stdout)


def expected(prefix, clients, connections, readings):
    return {f"{prefix} client={k} conn={c} seq={i}".encode()
            for k in range(clients) for c in range(1, connections + 1) for i in range(1, readings + 1)}


def stored_once(db, want):
    got = [p for _, _, p in rows(db)]
    assert len(got) == len(set(got)), "a reading was stored twice"
    assert set(got) == want


def worker_pids(col):
    return [int(p) for p in re.findall(r"collector: worker \d+ is pid (\d+)", col.text())]


def test_200_clients_two_workers_each_reading_once(tmp_path, pki, backend):
    """200 clients at once against 2 workers: every handshake completes (a peer's datagrams stay with
    the worker holding its connection: otherwise its flights would be dropped as unknown-peer records),
    both workers serve, and SIGTERM drains both, whose counters add up."""
    db = tmp_path / "r.db"
    col = Collector(tmp_path, pki, db, "--workers", 2, "--max-peers", 256, backend=backend)
    try:
        rc, rep = load(col.port, pki, 200, 5, backend=backend)
        assert rc == 0 and rep["failures"] == 0 and rep["handshakes"] == 200, rep
        assert rep["readings_sent"] == 1000 and rep["backend"] == backend
        assert 0 < rep["p50_handshake_ms"] <= rep["p99_handshake_ms"]
        wait_rows(db, 1000)
        stats = col.stop()
    finally:
        col.kill()
    stored_once(db, expected("load", 200, 1, 5))
    assert stats["workers"] == 2 and stats["workers_lost"] == 0
    assert stats["connections"] == 200 and stats["records_stored"] == 1000 and stats["closed"] == 200
    assert stats["dropped_unknown_peer"] == 0 and stats["handshake_failed"] == 0
    per = [int(n) for n in re.findall(r"worker \d+: (\d+) connections", col.text())]
    assert len(per) == 2 and all(n > 0 for n in per) and sum(per) == 200, col.text()


def test_killed_worker_loses_no_stored_reading(tmp_path, pki):
    """kill -9 one of two workers: what was counted as stored stays, each once; the survivor takes
    the port's datagrams, new connections (the nodes' reconnections) complete on it, and the
    parent reports the lost worker."""
    db = tmp_path / "r.db"
    col = Collector(tmp_path, pki, db, "--workers", 2, "--max-peers", 256, backend="openssl")
    try:
        rc, rep = load(col.port, pki, 100, 4, prefix="before")
        assert rc == 0 and rep["failures"] == 0, rep
        assert len(wait_rows(db, 400)) == 400
        pids = worker_pids(col)
        assert len(pids) == 2
        os.kill(pids[1], signal.SIGKILL)
        time.sleep(0.3)
        rc, rep = load(col.port, pki, 100, 4, "--connections", 2, prefix="after")
        assert rc == 0 and rep["failures"] == 0 and rep["handshakes"] == 200, rep
        wait_rows(db, 1200)
        stats = col.stop()
    finally:
        col.kill()
    stored_once(db, expected("before", 100, 1, 4) | expected("after", 100, 2, 4))
    assert stats["workers"] == 2 and stats["workers_lost"] == 1
    assert re.search(rf"worker 1 \(pid {pids[1]}\) ended by signal 9", col.text()), col.text()


def test_worker_killed_mid_load(tmp_path, pki):
    """kill -9 a worker while 100 clients stream readings through both: the rows already committed
    stay; every reading is stored at most once; the survivor takes the port's datagrams, and the
    connections started after the kill complete on it (the nodes' reconnections)."""
    db = tmp_path / "r.db"
    col = Collector(tmp_path, pki, db, "--workers", 2, "--max-peers", 256, backend="openssl")
    result = {}
    try:
        t = threading.Thread(target=lambda: result.update(r=load(
            col.port, pki, 100, 10, "--connections", 20, "--timeout", 60, "--retransmit-ms", 100,
            "--max-retransmits", 3, prefix="mid")))
        t.start()
        assert len(wait_rows(db, 2000)) >= 2000
        pids = worker_pids(col)
        os.kill(pids[1], signal.SIGKILL)
        survived = {p for _, _, p in rows(db)}
        t.join(timeout=120)
        rc, rep = load(col.port, pki, 50, 4, prefix="after")
        assert rc == 0 and rep["failures"] == 0 and rep["handshakes"] == 50, rep
        wait_rows(db, len(survived) + 200)
        stats = col.stop()
    finally:
        col.kill()
    got = [p for _, _, p in rows(db)]
    assert len(got) == len(set(got)), "a reading was stored twice"
    assert survived <= set(got) and expected("after", 50, 1, 4) <= set(got)
    assert set(got) <= expected("mid", 100, 20, 10) | expected("after", 50, 1, 4)
    assert stats["workers_lost"] == 1
    # the survivor's own count: readings it committed, all present
    survivor = [int(n) for n in re.findall(r"worker 0: \d+ connections, (\d+) readings stored", col.text())]
    assert len(survivor) == 1 and survivor[0] <= len(got)


def test_resumed_clients_use_the_cached_certificate(tmp_path, pki):
    db = tmp_path / "r.db"
    col = Collector(tmp_path, pki, db, "--max-peers", 64, backend="openssl")
    try:
        rc, rep = load(col.port, pki, 10, 2, "--connections", 3, "--resume")
        assert rc == 0 and rep["handshakes"] == 30 and rep["cached_handshakes"] == 20, rep
        wait_rows(db, 60)
        col.stop()
    finally:
        col.kill()
    stored_once(db, expected("load", 10, 3, 2))


def test_load_counts_failures_by_name(tmp_path, pki):
    """Nothing listens: every handshake times out, is counted under its error's name, and the exit
    status says so (3)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))  # a port that answers nothing (the datagrams are read by no one)
    port = s.getsockname()[1]
    try:
        rc, rep = load(port, pki, 5, 1, "--retransmit-ms", 50, "--max-retransmits", 1)
    finally:
        s.close()
    assert rc == 3 and rep["failures"] == 5 and rep["handshakes"] == 0, rep
    assert rep["failure_kinds"] == {"timeout": 5}, rep


def test_bad_options(tmp_path, pki):
    base = [str(CLI), "collector", "--listen", "127.0.0.1:0", "--db", str(tmp_path / "x.db"), "--cert",
            str(pki.server_pem), "--key", str(pki.server_key), "--ca", str(pki.ca_pem)]
    for extra in (["--workers", "0"], ["--workers", "65"], ["--workers", "2", "--exit-after-records", "5"]):
        p = subprocess.run(base + extra, capture_output=True, text=True, timeout=30)
        assert p.returncode == 2, (extra, p.stderr)
    for extra in (["--clients", "0"], ["--readings", "x"], ["--tls"], []):
        args = [str(CLI), "load", *extra] + ([] if extra == [] else ["--connect", "127.0.0.1:9"])
        p = subprocess.run(args, capture_output=True, text=True, timeout=30)
        assert p.returncode == 2, (extra, p.stderr)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def flood(port, hello, n, batch=500):
    """n ClientHellos, each from a socket (a source port) of its own. Each batch of sockets stays
    open until its HelloVerifyRequests are back (or 2 s passed): a port closed earlier could go to a
    test running beside this one, and the late reply with it."""
    for b in range(0, n, batch):
        socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(min(batch, n - b))]
        try:
            poller, waiting = select.poll(), {}
            for s in socks:
                s.sendto(hello, ("127.0.0.1", port))
                poller.register(s, select.POLLIN)
                waiting[s.fileno()] = s
            end = time.monotonic() + 2
            while waiting and time.monotonic() < end:
                for fd, _ in poller.poll(200):
                    waiting.pop(fd).recv(4096)
                    poller.unregister(fd)
        finally:
            for s in socks:
                s.close()


def test_clienthello_flood_keeps_memory_flat(tmp_path, pki, monkeypatch):
    """10,000 cookie-less ClientHellos, each from a port of its own: the stateless cookie check
    answers each with a HelloVerifyRequest and keeps nothing, so the collector's resident memory
    stays flat over a flood (after a first one and a real load have touched what they need; real
    readings themselves grow SQLite's page cache, up to its bound). And while another flood runs,
    20 real clients all finish. (Under `make test-asan`, ASan's quarantine of freed memory would
    grow the RSS by itself: it is turned off for this collector.)"""
    from proto.test_collector import client_hello
    monkeypatch.setenv("ASAN_OPTIONS", os.environ.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=0")
    db = tmp_path / "r.db"
    col = Collector(tmp_path, pki, db, "--max-peers", 64, backend="openssl")
    hello, result = client_hello(), {}
    try:
        rc, rep = load(col.port, pki, 20, 5, prefix="warm")
        assert rc == 0, rep
        flood(col.port, hello, 10000)
        time.sleep(0.3)
        before = rss_kib(col.proc.pid)
        flood(col.port, hello, 10000)
        time.sleep(0.3)
        after = rss_kib(col.proc.pid)
        t = threading.Thread(target=lambda: result.update(r=load(col.port, pki, 20, 5, "--connections", 5,
                                                                 prefix="real")))
        t.start()
        flood(col.port, hello, 10000)
        t.join(timeout=120)
        stats = col.stop()
    finally:
        col.kill()
    assert after - before < 256, f"RSS grew from {before} KiB to {after} KiB over 10,000 ClientHellos"
    rc, rep = result["r"]
    assert rc == 0 and rep["failures"] == 0 and rep["handshakes"] == 100, rep
    assert stats["hello_verify_sent"] >= 3 * 10000 + 120
