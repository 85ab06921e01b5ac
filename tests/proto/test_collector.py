"""`se collector`: many DTLS nodes at once into SQLite, read back with Python's sqlite3 (an
independent reader). Nodes are our `se client` with certificates from tests/proto/pki.py."""
import datetime
import json
import os
import random
import re
import signal
import socket
import sqlite3
import struct
import subprocess
import time

import pytest

from se_cli import CLI
from proto.pki import make_cert, make_pki

NODES = ("node-1", "node-2", "node-3", "node-4")


class Collector:
    """A running `se collector` on 127.0.0.1 (port chosen by the kernel, read from its log)."""

    def __init__(self, tmp, pki, db, *extra, port=0, backend="sw"):
        self.log_path = tmp / f"collector-{time.monotonic_ns()}.log"
        self.stats_path = tmp / f"stats-{time.monotonic_ns()}.json"
        self.db = db
        self.log = open(self.log_path, "w+")
        self.proc = subprocess.Popen(
            [str(CLI), "--backend", backend, "collector", "--listen", f"127.0.0.1:{port}", "--db", str(db),
             "--cert", str(pki.server_pem), "--key", str(pki.server_key), "--ca", str(pki.ca_pem),
             "--stats", str(self.stats_path), *map(str, extra)],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.port = None
        end = time.monotonic() + 20
        while self.port is None and time.monotonic() < end:
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", self.log_path.read_text())
            if m:
                self.port = int(m.group(1))
            elif self.proc.poll() is not None:
                break
            else:
                time.sleep(0.02)
        if self.port is None:
            self.kill()
            pytest.fail(f"collector did not start: {self.log_path.read_text()}")
        self.stdout = ""

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        """SIGTERM, then the --stats JSON (the summary on stdout is kept in self.stdout)."""
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.stdout, _ = self.proc.communicate(timeout=20)
        finally:
            self.kill()
        assert self.proc.returncode == 0, self.text()
        return json.loads(self.stats_path.read_text())

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        if not self.log.closed:
            self.log.close()

    def text(self):
        return self.log_path.read_text()


@pytest.fixture
def pki(tmp_path):
    return make_pki(tmp_path / "pki", clients=NODES)


def client_args(port, pki, name="node-1", messages=(), extra=(), cert=None):
    cert_pem, key_pem = cert or pki.client(name)
    args = [str(CLI), "client", "--connect", f"127.0.0.1:{port}", "--ca", str(pki.ca_pem),
            "--name", "localhost", *map(str, extra)]
    if cert_pem is not None:
        args += ["--cert", str(cert_pem), "--key", str(key_pem)]
    for m in messages:
        args += ["--message", m]
    return args


def run_client(port, pki, name="node-1", messages=(), extra=(), cert=None, timeout=60):
    return subprocess.run(client_args(port, pki, name, messages, extra, cert), capture_output=True,
                          text=True, timeout=timeout)


def rows(db):
    """(node, received_at, payload bytes) of every reading, read by an independent reader."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return [(n, t, bytes(p)) for n, t, p in
                con.execute("SELECT node, received_at, payload FROM readings ORDER BY id")]
    finally:
        con.close()


def wait_rows(db, n, timeout=20):
    """Waits until the DB holds at least n readings; returns them."""
    end = time.monotonic() + timeout
    got = []
    while time.monotonic() < end:
        if db.exists():
            got = rows(db)
            if len(got) >= n:
                return got
        time.sleep(0.05)
    return got


def readings(node, n, start=0):
    return [f"{node} reading {i:04d} t={20 + i % 7}.{i % 10}C" for i in range(start, start + n)]


def test_parallel_nodes_each_reading_stored_once(tmp_path, pki):
    db = tmp_path / "readings.db"
    col = Collector(tmp_path, pki, db)
    before = datetime.datetime.now(datetime.timezone.utc)
    try:
        sent = {node: readings(node, 12) for node in NODES}
        procs = [subprocess.Popen(client_args(col.port, pki, node, sent[node]), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for node in NODES]
        try:
            for p in procs:
                out, err = p.communicate(timeout=60)
                assert p.returncode == 0, err
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
        got = wait_rows(db, 4 * 12)
        stats = col.stop()
    finally:
        col.kill()
    after = datetime.datetime.now(datetime.timezone.utc)

    assert len(got) == 4 * 12
    for node in NODES:
        mine = [p.decode() for n, _, p in got if n == node]
        assert mine == sent[node]  # all of them, once, in the order sent
    for _, at, _ in got:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", at)
        t = datetime.datetime.strptime(at, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
        assert before - datetime.timedelta(seconds=1) <= t <= after + datetime.timedelta(seconds=1)
    assert stats["connections"] == 4 and stats["records_stored"] == 48
    assert stats["closed"] == 4 and stats["handshake_failed"] == 0 and stats["live_peers"] == 0
    assert "records_stored: 48" in col.stdout
    log = col.text()
    assert re.search(r"collector: node-3 127\.0\.0\.1:\d+ connected \(TLS_ECDHE_ECDSA_", log), log
    assert re.search(r"collector: node-3 127\.0\.0\.1:\d+ closed, 12 records", log), log

    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        keys = dict(con.execute("SELECT node, key_sha256 FROM readings GROUP BY node"))
        kinds = [k for (k,) in con.execute("SELECT kind FROM events")]
    finally:
        con.close()
    assert len(set(keys.values())) == 4 and all(re.fullmatch(r"[0-9a-f]{64}", k) for k in keys.values())
    assert kinds.count("connected") == 4 and kinds.count("closed") == 4


def test_restart_keeps_rows_and_exit_after_records(tmp_path, pki):
    db = tmp_path / "readings.db"
    first, second = readings("node-1", 5), readings("node-2", 6, start=100)
    col = Collector(tmp_path, pki, db)
    try:
        assert run_client(col.port, pki, "node-1", first).returncode == 0
        wait_rows(db, 5)
        col.stop()
    finally:
        col.kill()
    # Again on the same file; this run ends by itself after 6 records.
    col = Collector(tmp_path, pki, db, "--exit-after-records", 6)
    try:
        assert run_client(col.port, pki, "node-2", second).returncode == 0
        col.proc.wait(timeout=20)
        stats = col.stop()
    finally:
        col.kill()
    assert stats["records_stored"] == 6
    assert [(n, p.decode()) for n, _, p in rows(db)] == \
        [("node-1", m) for m in first] + [("node-2", m) for m in second]


def test_killed_collector_keeps_committed_rows(tmp_path, pki):
    db = tmp_path / "readings.db"
    col = Collector(tmp_path, pki, db)
    try:
        assert run_client(col.port, pki, "node-4", readings("node-4", 4)).returncode == 0
        wait_rows(db, 4)
        col.proc.kill()  # no clean shutdown: each reading was committed on arrival
        col.proc.wait(timeout=10)
    finally:
        col.kill()
    assert [p.decode() for _, _, p in rows(db)] == readings("node-4", 4)


# ---- hostile input -----------------------------------------------------------------------

def record(ctype, epoch, seq, body):
    return struct.pack(">BHH", ctype, 0xFEFD, epoch) + seq.to_bytes(6, "big") + struct.pack(">H", len(body)) + body


def client_hello(cookie=b"", rnd=None):
    """A plausible DTLS 1.2 ClientHello datagram (CCM_8, P-256, ecdsa_secp256r1_sha256, EMS)."""
    rnd = rnd or bytes(random.Random(7).randrange(256) for _ in range(32))
    exts = b"".join(struct.pack(">HH", t, len(d)) + d for t, d in (
        (10, b"\x00\x02\x00\x17"),          # supported_groups: secp256r1
        (11, b"\x01\x00"),                  # ec_point_formats: uncompressed
        (13, b"\x00\x02\x04\x03"),          # signature_algorithms: ecdsa_secp256r1_sha256
        (23, b""),                          # extended_master_secret
        (0xFF01, b"\x00"),                  # renegotiation_info
    ))
    body = (b"\xfe\xfd" + rnd + b"\x00" + bytes([len(cookie)]) + cookie + b"\x00\x02\xc0\xae" + b"\x01\x00"
            + struct.pack(">H", len(exts)) + exts)
    hs = bytes([1]) + len(body).to_bytes(3, "big") + b"\x00\x00" + b"\x00\x00\x00" + len(body).to_bytes(3, "big") + body
    return record(22, 0, 0, hs)


def hvr_cookie(dgram):
    """The cookie of a HelloVerifyRequest datagram."""
    assert dgram[0] == 22 and dgram[13] == 3, dgram.hex()
    return dgram[13 + 12 + 2 + 1:13 + 12 + 2 + 1 + dgram[13 + 12 + 2]]


def test_hostile_datagrams_are_dropped_and_counted(tmp_path, pki):
    db = tmp_path / "readings.db"
    col = Collector(tmp_path, pki, db)
    rng = random.Random(1234)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(3)
    try:
        dst = ("127.0.0.1", col.port)
        s.sendto(b"hello, is this a DTLS server?", dst)
        s.sendto(b"", dst)
        s.sendto(b"\x16\xfe", dst)                                  # truncated header
        s.sendto(client_hello()[:40], dst)                          # truncated ClientHello
        s.sendto(record(22, 0, 0, b"\x01\x00\x10"), dst)            # truncated handshake header
        s.sendto(client_hello()[:13] + b"\xff" * 60, dst)           # length mismatch
        s.sendto(b"\x17\xfe\xfd" + bytes(60000), dst)               # oversized
        s.sendto(record(23, 1, 5, rng.randbytes(40)), dst)          # epoch 1 for an unknown peer
        s.sendto(record(21, 1, 6, rng.randbytes(26)), dst)          # encrypted alert, unknown peer
        # A ClientHello without cookie is answered with one; a wrong cookie too (and counted).
        s.sendto(client_hello(), dst)
        cookie = hvr_cookie(s.recvfrom(2048)[0])
        assert len(cookie) > 0
        bad = bytes([cookie[0] ^ 1]) + cookie[1:]
        s.sendto(client_hello(bad), dst)
        assert hvr_cookie(s.recvfrom(2048)[0]) == cookie
        # Random bytes in bulk, some shaped like DTLS records.
        for i in range(3000):
            n = rng.randrange(0, 1400)
            junk = rng.randbytes(n)
            if i % 3 == 0 and n >= 13:
                junk = bytes([rng.choice((20, 21, 22, 23)), 0xFE, 0xFD]) + junk[3:]
            s.sendto(junk, dst)
            if i % 200 == 0:
                time.sleep(0.01)  # let the collector keep up (the kernel drops the rest otherwise)
        # A peer that proved its address gets a slot, then feeds its handshake junk: records
        # with mangled lengths and bits, and random bytes.
        time.sleep(0.3)  # the flood above may still fill the socket's queue
        s.sendto(client_hello(cookie), dst)
        assert s.recvfrom(2048)[0][13] == 2  # ServerHello: it has a slot
        hello = client_hello(cookie)
        for i in range(600):
            if i % 2:
                junk = bytearray(hello)
                for _ in range(rng.randrange(1, 4)):
                    junk[rng.randrange(len(junk))] ^= 1 << rng.randrange(8)
                junk = bytes(junk[:rng.randrange(1, len(junk) + 1)])
            else:
                junk = record(rng.choice((20, 21, 22, 23)), rng.randrange(2), i, rng.randbytes(rng.randrange(80)))
            s.sendto(junk, dst)
            if i % 100 == 0:
                time.sleep(0.01)
        time.sleep(0.3)
        assert col.alive()
        p = run_client(col.port, pki, "node-2", ["still here"], timeout=60)
        assert p.returncode == 0, p.stderr
        got = wait_rows(db, 1)
        assert col.alive()
        stats = col.stop()
    finally:
        s.close()
        col.kill()
    assert [(n, m) for n, _, m in got] == [("node-2", b"still here")]
    assert stats["dropped_malformed"] >= 100, stats
    assert stats["dropped_bad_record"] >= 100, stats  # the junk fed to a live handshake
    assert stats["dropped_oversized"] == 1
    assert stats["dropped_unknown_peer"] >= 2
    assert stats["dropped_bad_cookie"] == 1
    assert stats["hello_verify_sent"] >= 3  # ours two, the client's one
    assert stats["connections"] == 1 and stats["records_stored"] == 1
    assert stats["datagrams_in"] >= 1000
    assert "dropped: bad cookie" in col.text()


def test_full_table_refuses_then_idle_timeout_frees(tmp_path, pki):
    """Two half-open handshakes fill --max-peers 2; a node is refused until they idle out."""
    db = tmp_path / "readings.db"
    col = Collector(tmp_path, pki, db, "--max-peers", 2, "--idle-timeout", 2)
    socks = []
    try:
        for i in range(2):  # each proves its address, then never answers the server's flight
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.settimeout(3)
            socks.append(s)
            s.sendto(client_hello(), ("127.0.0.1", col.port))
            cookie = hvr_cookie(s.recvfrom(2048)[0])
            s.sendto(client_hello(cookie), ("127.0.0.1", col.port))
            assert s.recvfrom(2048)[0][13] == 2  # ServerHello: it has a slot
        start = time.monotonic()
        p = run_client(col.port, pki, "node-1", ["after the wait"], extra=("--retransmit-ms", 400))
        assert p.returncode == 0, p.stderr
        assert time.monotonic() - start >= 1.0  # it had to wait for a slot
        got = wait_rows(db, 1)
        stats = col.stop()
    finally:
        for s in socks:
            s.close()
        col.kill()
    assert [m for _, _, m in got] == [b"after the wait"]
    assert stats["peers_full"] >= 1 and stats["idle_timeouts"] >= 2, stats
    assert stats["connections"] == 1


def drain(s):
    """Reads what the socket has queued; returns the datagrams."""
    got = []
    s.settimeout(0.1)
    try:
        while True:
            got.append(s.recvfrom(4096)[0])
    except TimeoutError:
        pass
    finally:
        s.settimeout(3)
    return got


def test_same_address_gets_a_slot_again_after_a_failure(tmp_path, pki):
    """One slot: a peer takes it, aborts with a fatal alert, and comes back from the same port."""
    db = tmp_path / "readings.db"
    col = Collector(tmp_path, pki, db, "--max-peers", 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(3)
    try:
        dst = ("127.0.0.1", col.port)
        for _ in range(3):
            s.sendto(client_hello(), dst)
            cookie = hvr_cookie(s.recvfrom(2048)[0])
            s.sendto(client_hello(cookie), dst)
            assert s.recvfrom(4096)[0][13] == 2  # ServerHello: the slot is ours
            s.sendto(record(21, 0, 1, b"\x02\x28"), dst)  # fatal alert handshake_failure
            drain(s)
        # the one slot is free again for a real node
        assert run_client(col.port, pki, "node-3", ["after"]).returncode == 0
        got = wait_rows(db, 1)
        stats = col.stop()
    finally:
        s.close()
        col.kill()
    assert [m for _, _, m in got] == [b"after"]
    assert stats["handshake_failed"] == 3 and stats["peers_full"] == 0, stats
    assert col.text().count("peer alert handshake_failure") == 3, col.text()


# ---- authentication ----------------------------------------------------------------------

def test_unauthenticated_nodes_are_refused(tmp_path, pki):
    now = datetime.datetime.now(datetime.timezone.utc)
    other = make_pki(tmp_path / "other", clients=("node-x",))
    expired = make_cert(tmp_path / "pki", "expired", issuer_cert=pki.ca_pem, issuer_key=pki.ca_key,
                        cn="node-old", eku="client", not_before=now - datetime.timedelta(days=10),
                        not_after=now - datetime.timedelta(days=1))
    db = tmp_path / "readings.db"
    col = Collector(tmp_path, pki, db, "--max-retransmits", 2, "--retransmit-ms", 200)
    try:
        for cert in (other.client("node-x"), expired, (None, None)):
            p = run_client(col.port, pki, messages=["must not be stored"], cert=cert,
                           extra=("--retransmit-ms", 200), timeout=60)
            assert p.returncode != 0, (cert, p.stdout)
        # a good node afterwards, to know the collector has seen everything
        assert run_client(col.port, pki, "node-1", ["ok"]).returncode == 0
        got = wait_rows(db, 1)
        stats = col.stop()
    finally:
        col.kill()
    assert [(n, m) for n, _, m in got] == [("node-1", b"ok")]
    assert stats["handshake_failed"] == 3, stats
    assert stats["connections"] == 1 and stats["records_stored"] == 1
    log = col.text()
    assert log.count("dropped: handshake failed") == 3, log
    # the other CA has the same name as ours, so its signature is what fails
    assert "cert_bad_signature" in log or "cert_unknown_ca" in log, log
    assert "cert_expired" in log and "certificate_required" in log, log


def test_bad_options_and_files(tmp_path, pki):
    base = [str(CLI), "collector", "--listen", "127.0.0.1:0", "--cert", str(pki.server_pem),
            "--key", str(pki.server_key), "--ca", str(pki.ca_pem)]
    run = lambda *a: subprocess.run([*base, *map(str, a)], capture_output=True, text=True, timeout=20)
    assert run().returncode == 2                                   # no --db
    assert run("--db", tmp_path / "x.db", "--max-peers", 0).returncode == 2
    assert run("--db", tmp_path / "x.db", "--frobnicate", 1).returncode == 2
    assert run("--db", tmp_path / "x.db", "--tls").returncode == 2
    p = run("--db", tmp_path / "no" / "such" / "dir.db")
    assert p.returncode == 1 and "cannot open" in p.stderr
    help = subprocess.run([str(CLI), "collector", "--help"], capture_output=True, text=True, timeout=20)
    assert help.returncode == 0 and "--idle-timeout" in help.stderr
