"""Hostile traffic against `se collector` and `se server` (DTLS) on loopback (issue #26), each run
bounded in count and time; results in docs/robustness.md ("Hostile traffic").

1. a ClientHello flood without cookies from thousands of source ports: every one answered with a
   HelloVerifyRequest, memory flat (VmRSS), a real node still served;
2. every collector slot held by a half-open handshake: a node is refused until --idle-timeout
   frees them;
3. 20,000 random and mutated datagrams: no crash, still serving, and every datagram accounted
   for by the collector's counters (or the server's drop lines), the kernel's drops and the
   HelloVerifyRequests we received;
4. the collector killed with SIGKILL mid-stream and restarted on the same database: every reading
   an independent reader saw committed is still there, none twice.

Everything is checked against what the test itself observes (the datagrams it sent and received,
/proc, SQLite through Python's sqlite3), not against the programs' own claims alone."""
import io
import json
import os
import random
import re
import resource
import select
import signal
import socket
import sqlite3
import struct
import subprocess
import threading
import time

import pytest

from se_cli import CLI
from proto.pki import make_pki
from proto.relay import UP, Relay
from proto.test_collector import Collector
from proto.test_tls_interop import procs, se_server  # noqa: F401 (fixture)

HOST = "127.0.0.1"  # loopback only
NODES = ("node-1", "node-2", "node-3")
MAX_DGRAM = 16384 + 2048 + 13  # the collector's largest datagram (docs/collector.md)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return make_pki(tmp_path_factory.mktemp("pki"), clients=NODES)


# ---- observing from outside: /proc, SQLite ------------------------------------------------------

def vmrss_kib(pid):
    """Resident set size of a process in KiB (/proc/<pid>/status VmRSS)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def udp_sock_state(port):
    """(rx_queue bytes, drops) of the IPv4 UDP socket bound to 127.0.0.1:port (/proc/net/udp). The
    kernel writes that table a page at a time, so a read while other processes open and close
    sockets may miss a line: a socket not seen is looked for again before it counts as gone."""
    want = f"0100007F:{port:04X}"
    for attempt in range(5):
        with open("/proc/net/udp") as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[1] == want:
                    return int(fields[4].split(":")[1], 16), int(fields[-1])
        time.sleep(0.01)
    raise AssertionError(f"no UDP socket on 127.0.0.1:{port}")


def wait_queue_below(port, limit=64 * 1024, timeout=10):
    """Waits until the server's receive queue holds less than limit bytes (send pacing: the point
    is the server's parsing, not the kernel's queue)."""
    end = time.monotonic() + timeout
    while udp_sock_state(port)[0] >= limit:
        if time.monotonic() > end:
            raise AssertionError("the server stopped reading its socket")
        time.sleep(0.001)


def rows(db):
    """(id, node, payload bytes) of every reading, read by an independent reader."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return [(i, n, bytes(p)) for i, n, p in con.execute("SELECT id, node, payload FROM readings ORDER BY id")]
    finally:
        con.close()


def wait_rows(db, n, timeout=30):
    end = time.monotonic() + timeout
    got = []
    while time.monotonic() < end:
        if db.exists():
            got = rows(db)
            if len(got) >= n:
                break
        time.sleep(0.05)
    return got


def events(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return [k for (k,) in con.execute("SELECT kind FROM events ORDER BY id")]
    finally:
        con.close()


# ---- the programs ---------------------------------------------------------------------------------

def client_args(port, pki, name, messages=(), extra=()):
    cert, key = pki.client(name)
    args = [str(CLI), "client", "--connect", f"{HOST}:{port}", "--ca", str(pki.ca_pem), "--name", "localhost",
            "--cert", str(cert), "--key", str(key), "--timeout", "25", *map(str, extra)]
    for m in messages:
        args += ["--message", m]
    return args


def run_client(port, pki, name, messages=(), extra=(), timeout=40):
    return subprocess.run(client_args(port, pki, name, messages, extra), capture_output=True, text=True,
                          timeout=timeout)


class Capture(Relay):
    """A relay that keeps every client->server datagram (for the mutation corpus and to count
    what a real client sent)."""

    def __init__(self, port):
        self.up = []
        super().__init__(port, udp=True, tamper_app=99)  # tamper_app: every datagram passes here

    def _tamper_records(self, data, direction, hdr):
        if direction == UP:
            self.up.append(bytes(data))
        return data


def relayed_client(port, pki, name, messages):
    """A real client run through a capturing relay; returns (completed process, its datagrams)."""
    with Capture(port) as relay:
        p = run_client(relay.port, pki, name, messages)
        time.sleep(0.2)  # the last datagrams through the relay
    return p, relay.up


# ---- DTLS datagrams -------------------------------------------------------------------------------

def record(ctype, epoch, seq, body, version=0xFEFD, length=None):
    return (struct.pack(">BHH", ctype, version, epoch) + seq.to_bytes(6, "big")
            + struct.pack(">H", len(body) if length is None else length) + body)


def client_hello(rnd, cookie=b""):
    """A DTLS 1.2 ClientHello datagram (CCM_8, P-256, ecdsa_secp256r1_sha256, EMS)."""
    exts = b"".join(struct.pack(">HH", t, len(d)) + d for t, d in (
        (10, b"\x00\x02\x00\x17"), (11, b"\x01\x00"), (13, b"\x00\x02\x04\x03"), (23, b""), (0xFF01, b"\x00")))
    body = (b"\xfe\xfd" + rnd + b"\x00" + bytes([len(cookie)]) + cookie + b"\x00\x02\xc0\xae" + b"\x01\x00"
            + struct.pack(">H", len(exts)) + exts)
    hs = b"\x01" + len(body).to_bytes(3, "big") + b"\x00\x00" + b"\x00\x00\x00" + len(body).to_bytes(3, "big") + body
    return record(22, 0, 0, hs)


def is_hvr(d):
    """A HelloVerifyRequest datagram: one record, one message, a cookie of 16 to 32 bytes."""
    return (len(d) >= 28 and d[0] == 22 and d[13] == 3 and 16 <= d[27] <= 32
            and len(d) == 13 + 12 + 3 + d[27] == 13 + int.from_bytes(d[11:13], "big"))


def hvr_cookie(d):
    assert is_hvr(d), d.hex()
    return d[28:28 + d[27]]


def is_hello_without_cookie(d):
    """A client's first ClientHello (epoch 0, no cookie) as our client sends it."""
    if len(d) < 13 + 12 + 2 + 32 + 2 or d[0] != 22 or d[13] != 1 or d[3:5] != b"\0\0":
        return False
    at = 13 + 12 + 2 + 32
    at += 1 + d[at]
    return at < len(d) and d[at] == 0


# ---- 1. ClientHello flood ---------------------------------------------------------------------------

def hello_flood(port, n, rng, more=lambda rounds: rounds < 2, batch=100, during=None):
    """ClientHellos without cookie from n sockets, each bound to its own source port: round after
    round (while more(rounds done)), each socket sends one with a fresh client random, batch by
    batch, every reply read before the next batch. during(round, batch) runs before each batch.
    Only datagrams from the server's address count: a source port may be one another test's flood
    used a moment ago, with that server's late replies still on their way to it.
    Returns (the replies per socket, source ports, hellos sent, seconds)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n + 512:  # one descriptor per source port
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(n + 512, hard) if hard != resource.RLIM_INFINITY
                                                    else n + 512, hard))
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(n)]
    replies = {s.fileno(): [] for s in socks}
    sent, rounds = 0, 0
    try:
        for s in socks:
            s.bind((HOST, 0))
            s.setblocking(False)
        t0 = time.monotonic()
        while more(rounds):
            for b in range(0, n, batch):
                if during:
                    during(rounds, b // batch)
                poller = select.poll()  # select() stops at fd 1024
                for s in socks[b:b + batch]:
                    s.sendto(client_hello(rng.randbytes(32)), (HOST, port))
                    poller.register(s, select.POLLIN)
                    sent += 1
                waiting, end = {s.fileno(): s for s in socks[b:b + batch]}, time.monotonic() + 10
                while waiting and time.monotonic() < end:
                    for fd, _ in poller.poll(500):
                        d, src = waiting[fd].recvfrom(4096)
                        if src == (HOST, port):
                            replies[fd].append(d)
                            del waiting[fd]
                            poller.unregister(fd)
            rounds += 1
        seconds = time.monotonic() - t0
        time.sleep(0.3)  # late duplicates would show here
        for s in socks:
            try:
                while True:
                    d, src = s.recvfrom(4096)
                    if src == (HOST, port):
                        replies[s.fileno()].append(d)
            except BlockingIOError:
                pass
        return [replies[s.fileno()] for s in socks], [s.getsockname()[1] for s in socks], sent, seconds
    finally:
        for s in socks:
            s.close()


FLOOD = 4000  # source ports


def check_flood_replies(replies, ports, sent):
    rounds = sent // FLOOD
    assert sent == rounds * FLOOD and len(set(ports)) == FLOOD  # every source port used alike
    assert [len(r) for r in replies] == [rounds] * FLOOD, "exactly one reply per ClientHello"
    assert all(is_hvr(d) for r in replies for d in r)
    cookies = {hvr_cookie(d) for r in replies for d in r}
    assert len(cookies) == sent  # a cookie per (address, hello): nothing is shared or remembered


def test_hello_flood_collector(tmp_path, pki):
    db = tmp_path / "readings.db"
    col = Collector(tmp_path, pki, db)
    legit = {}
    try:
        # a first node, so slot, SQLite and code pages are resident before the measurement
        assert run_client(col.port, pki, "node-1", ["warm-up"]).returncode == 0
        wait_rows(db, 1)
        rss0 = vmrss_kib(col.proc.pid)

        t0 = time.monotonic()

        def during(rounds, batch):  # a real node starts its handshake early in the flood
            if rounds == 1 and batch == 0:
                legit["t"] = time.monotonic()
                legit["p"] = subprocess.Popen(client_args(col.port, pki, "node-2", ["during the flood"]),
                                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if "p" in legit and "end" not in legit and legit["p"].poll() is not None:
                legit["end"] = time.monotonic()

        def more(rounds):  # 2 s at least, until the node is done (bounded: 60 rounds)
            return rounds < 60 and (time.monotonic() - t0 < 2 or "end" not in legit)
        replies, ports, sent, seconds = hello_flood(col.port, FLOOD, random.Random(26), more, during=during)
        out, err = legit["p"].communicate(timeout=40)
        assert "end" in legit, "the node finished during the flood"
        assert legit["p"].returncode == 0, err
        got = wait_rows(db, 2)
        rss1 = vmrss_kib(col.proc.pid)
        drops = udp_sock_state(col.port)[1]
        assert col.alive()
        stats = col.stop()
    finally:
        if "p" in legit and legit["p"].poll() is None:
            legit["p"].kill()
        col.kill()
    print(f"collector flood: {sent} hellos from {FLOOD} ports in {seconds:.2f} s, node handshake + "
          f"reading {legit['end'] - legit['t']:.2f} s, VmRSS {rss0} -> {rss1} KiB, kernel drops {drops}, "
          f"stats {stats}")
    check_flood_replies(replies, ports, sent)
    assert drops == 0
    assert rss1 - rss0 < 2048, (rss0, rss1)
    assert [p for _, _, p in got] == [b"warm-up", b"during the flood"]
    # the flood's hellos plus the two nodes' first hellos (a node resends one if its timer fires)
    assert sent + 2 <= stats["hello_verify_sent"] <= sent + 4, stats
    assert stats["connections"] == 2 and stats["peers_full"] == 0 and stats["live_peers"] == 0
    assert stats["dropped_malformed"] == stats["dropped_bad_cookie"] == stats["handshake_failed"] == 0
    # nothing per flood datagram in the database: start, 2 x (connected, closed), stop
    assert sorted(events(db)) == sorted(["start", "connected", "closed", "connected", "closed", "stop"])


def test_hello_flood_server(pki, procs):
    srv, port = se_server(procs, pki, "dtls", "--echo")
    cli = lambda msg: subprocess.run(
        client_args(port, pki, "node-1", [msg], ["--expect-reply"]), capture_output=True, text=True, timeout=40)
    p = cli("warm-up")
    assert p.returncode == 0, p.stderr
    srv.wait_for("closed")
    time.sleep(0.2)
    rss0 = vmrss_kib(srv.p.pid)
    # one slot: the flood's hellos get HelloVerifyRequests and no state (se_dtls_server), so the
    # node comes right after the flood
    replies, ports, sent, seconds = hello_flood(port, FLOOD, random.Random(27), lambda r: r < 10)
    rss1 = vmrss_kib(srv.p.pid)
    p = cli("after the flood")
    assert p.returncode == 0, p.stderr
    assert "received: after the flood" in p.stdout
    drops = udp_sock_state(port)[1]
    assert srv.p.poll() is None
    print(f"server flood: {sent} hellos from {FLOOD} ports in {seconds:.2f} s, VmRSS {rss0} -> {rss1} KiB, "
          f"kernel drops {drops}")
    check_flood_replies(replies, ports, sent)
    assert drops == 0
    assert rss1 - rss0 < 2048, (rss0, rss1)
    assert srv.output.count("connected:") == 2


# ---- 2. every slot held by a half-open handshake --------------------------------------------------

def half_open(port, rng):
    """A peer that passes the cookie exchange, gets a slot (the server's flight starts with
    ServerHello), then never answers. Returns its socket (non-blocking)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((HOST, 0))
    s.settimeout(5)
    rnd = rng.randbytes(32)
    s.sendto(client_hello(rnd), (HOST, port))
    cookie = hvr_cookie(s.recv(4096))
    s.sendto(client_hello(rnd, cookie), (HOST, port))
    return s


def drain(s):
    n = 0
    s.setblocking(False)
    try:
        while True:
            s.recv(65536)
            n += 1
    except BlockingIOError:
        return n


SLOTS, IDLE = 16, 8  # the collector's default --max-peers; a short --idle-timeout


def test_half_open_handshakes_fill_the_slots_until_the_idle_timeout(tmp_path, pki):
    db = tmp_path / "readings.db"
    col = Collector(tmp_path, pki, db, "--idle-timeout", IDLE)
    rng = random.Random(2)
    socks = []
    try:
        t_first = time.monotonic()  # no slot's idle clock can start before this
        for _ in range(SLOTS):
            socks.append(half_open(col.port, rng))
            assert socks[-1].recv(4096)[13] == 2  # ServerHello: it holds a slot
        t_full = time.monotonic()
        # a 17th such peer: its valid cookie gets no slot, so no answer at all
        extra = half_open(col.port, rng)
        socks.append(extra)
        extra.settimeout(1.0)
        with pytest.raises(socket.timeout):
            extra.recv(4096)
        # a real node with a short patience is refused while the table is full
        t = time.monotonic()
        p = run_client(col.port, pki, "node-1", ["refused"], ["--retransmit-ms", 200, "--max-retransmits", 2,
                                                               "--timeout", 2])
        refused_s = time.monotonic() - t
        assert p.returncode != 0 and "timeout" in p.stderr, p.stdout + p.stderr  # never answered
        assert time.monotonic() < t_first + IDLE, "the slots were still full while it tried"
        assert rows(db) == []
        # a real node with ordinary timers gets in once the idle timeout frees the slots
        t = time.monotonic()
        p = run_client(col.port, pki, "node-2", ["after the idle timeout"], ["--retransmit-ms", 500])
        assert p.returncode == 0, p.stderr
        got = wait_rows(db, 1)
        stored_at = time.monotonic()
        # every half-open slot's idle timeout is due by t_full + IDLE (the last was taken then)
        time.sleep(max(0.0, t_full + IDLE + 1.0 - time.monotonic()))
        flights = [drain(s) + 1 for s in socks[:SLOTS]]
        assert col.alive()
        stats = col.stop()
    finally:
        for s in socks:
            s.close()
        col.kill()
    kinds = events(db)
    print(f"half-open: {SLOTS} slots held (filled in {t_full - t_first:.2f} s), refused node gave up after {refused_s:.2f} s, the next stored "
          f"{stored_at - t_full:.2f} s after the table filled (idle timeout {IDLE} s), server flights per "
          f"half-open peer {flights}, stats {stats}")
    assert [p for _, _, p in got] == [b"after the idle timeout"]
    assert stored_at - t_first >= IDLE
    assert stored_at - t_full < IDLE + 6  # the node's next retransmission after the slots freed
    assert kinds.count("idle_timeout") == SLOTS and kinds.count("connected") == 1
    assert stats["idle_timeouts"] == SLOTS and stats["connections"] == 1 and stats["records_stored"] == 1
    assert stats["peers_full"] >= 2, stats  # the 17th peer and the refused node (each retry counts)
    assert stats["handshake_failed"] == 0 and stats["live_peers"] == 0
    assert all(f >= 2 for f in flights)  # the half-open peers saw the server retransmit its flight


def test_peers_that_repeat_their_hello_do_not_keep_their_slots(tmp_path, pki):
    """Half-open peers that keep resending their cookie-checked ClientHello (new record numbers,
    so no replay drop) make no progress: the repetitions do not reset the idle timer, and each
    slot is freed after --idle-timeout although its peer never went quiet. (A freed peer may take
    a slot again with a valid cookie: docs/robustness.md says what that leaves open.)"""
    slots, idle = 4, 2
    db = tmp_path / "readings.db"
    col = Collector(tmp_path, pki, db, "--idle-timeout", idle, "--max-peers", slots)
    rng = random.Random(5)
    peers = []
    try:
        for _ in range(slots):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind((HOST, 0))
            s.settimeout(5)
            rnd = rng.randbytes(32)
            s.sendto(client_hello(rnd), (HOST, col.port))
            hello = bytearray(client_hello(rnd, hvr_cookie(s.recv(4096))))
            s.sendto(hello, (HOST, col.port))
            assert s.recv(4096)[13] == 2  # ServerHello: it holds a slot
            peers.append((s, hello))
        t0 = time.monotonic()
        seq = 1
        while time.monotonic() < t0 + idle + 1.5:   # every 0.3 s, past the idle timeout
            time.sleep(0.3)
            for s, hello in peers:
                hello[5:11] = seq.to_bytes(6, "big")
                s.sendto(hello, (HOST, col.port))
            seq += 1
        stats = col.stop()
    finally:
        for s, _ in peers:
            s.close()
        col.kill()
    assert stats["idle_timeouts"] >= slots, stats
    assert events(db).count("idle_timeout") >= slots


# ---- 3. random and mutated datagrams ----------------------------------------------------------------

N_JUNK, N_OVERSIZED = 20000, 20


def corpus(rng, captured, n=N_JUNK, oversized=N_OVERSIZED):
    """n datagrams: random bytes, DTLS-looking records (each of the 256 content types with epochs
    0, 1, 2 and 65535, then random ones, some with lying lengths, some several to a datagram), handshake records of every message type, our own
    ClientHellos with and without bogus cookies, and truncated and bit-flipped copies of a real
    client's datagrams (captured); `oversized` of them longer than any DTLS record."""
    out = []

    def rec():
        ctype = rng.choice((20, 21, 22, 23) * 3 + (0, 1, 19, 24, 25, 127, 255))
        epoch = rng.choice((0, 0, 1, 1, 2, 0xFFFF, rng.randrange(65536)))
        version = rng.choice((0xFEFD, 0xFEFD, 0xFEFF, 0x0303, rng.randrange(65536)))
        body = rng.randbytes(rng.choice((0, 1, 2, 12, rng.randrange(300))))
        length = rng.choice((None, None, None, 0, rng.randrange(65536), len(body) + 1, max(len(body) - 1, 0)))
        return record(ctype, epoch, rng.randrange(1 << 48), body, version, length)

    def handshake():
        mtype = rng.randrange(256) if rng.random() < 0.5 else rng.choice((0, 1, 2, 3, 11, 12, 13, 14, 15, 16, 20))
        body = rng.randbytes(rng.randrange(200))
        frag_off = rng.choice((0, 0, rng.randrange(1 << 24)))
        hs = (bytes([mtype]) + rng.choice((len(body), rng.randrange(1 << 24))).to_bytes(3, "big")
              + rng.randrange(65536).to_bytes(2, "big") + frag_off.to_bytes(3, "big")
              + len(body).to_bytes(3, "big") + body)
        return record(22, rng.choice((0, 0, 0, 1)), rng.randrange(1 << 48), hs)

    def mutated():
        d = bytearray(rng.choice(captured))
        if rng.random() < 0.7:
            for _ in range(rng.randrange(1, 9)):
                d[rng.randrange(len(d))] ^= 1 << rng.randrange(8)
        if rng.random() < 0.6:
            d = d[:rng.randrange(len(d))]
        return bytes(d)

    kinds = (lambda: rng.randbytes(rng.choice((0, 1, 2, 12, 13, 14, 25, rng.randrange(1500)))),
             rec, lambda: b"".join(rec() for _ in range(rng.randrange(2, 4))), handshake, mutated, mutated,
             lambda: client_hello(rng.randbytes(32), rng.randbytes(rng.choice((0, 16, 32, rng.randrange(33))))))
    for ctype in range(256):  # every content type in every kind of epoch, once
        for epoch in (0, 1, 2, 0xFFFF):
            out.append(record(ctype, epoch, rng.randrange(1 << 48), rng.randbytes(rng.randrange(64))))
    while len(out) < n - oversized:
        out.append(rng.choice(kinds)())
    rng.shuffle(out)
    for _ in range(oversized):
        d = bytearray(rng.randbytes(rng.randrange(MAX_DGRAM + 1, 40000)))
        d[0:3] = bytes((rng.choice((22, 23)), 0xFE, 0xFD))
        out.insert(rng.randrange(len(out)), bytes(d))
    return out


def not_dtls(d):
    """Not even a DTLS record header: can only be dropped as malformed."""
    return len(d) <= MAX_DGRAM and (len(d) < 13 or d[0] not in (20, 21, 22, 23) or d[1] != 0xFE)


def past_the_handshake(d):
    """A DTLS record that cannot start a handshake: an alert, CCS or application data record, or
    any record of an epoch above 0."""
    return (len(d) <= MAX_DGRAM and len(d) >= 13 and d[1] == 0xFE
            and (d[0] in (20, 21, 23) or (d[0] == 22 and d[3:5] != b"\0\0")))


def blast(port, datagrams, n_socks=8):
    """Sends the datagrams round-robin from n_socks sockets (each its own source port), as fast as
    the server's receive queue drains (/proc/net/udp), collecting what comes back. Returns
    (HelloVerifyRequests received, other datagrams received, seconds)."""
    socks = []
    for _ in range(n_socks):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        s.bind((HOST, 0))
        s.setblocking(False)
        socks.append(s)
    got = []

    def collect():
        for s in socks:
            try:
                while True:
                    got.append(s.recv(65536))
            except BlockingIOError:
                pass
    t0 = time.monotonic()
    try:
        for i, d in enumerate(datagrams):
            if i % 32 == 0:
                wait_queue_below(port)
                collect()
            socks[i % n_socks].sendto(d, (HOST, port))
        seconds = time.monotonic() - t0
        end = time.monotonic() + 2
        while udp_sock_state(port)[0] and time.monotonic() < end:
            time.sleep(0.01)
        time.sleep(0.3)
        collect()
        for s in socks:
            assert udp_sock_state(s.getsockname()[1])[1] == 0, "no reply lost in our own queues"
    finally:
        for s in socks:
            s.close()
    hvrs = [d for d in got if is_hvr(d)]
    return len(hvrs), [d for d in got if not is_hvr(d)], seconds


def test_random_and_mutated_datagrams_collector(tmp_path, pki):
    db = tmp_path / "readings.db"
    col = Collector(tmp_path, pki, db)
    try:
        # a real run first, through a relay that keeps its datagrams: the mutation corpus
        p, legit1 = relayed_client(col.port, pki, "node-1", [f"reading {i}" for i in range(3)])
        assert p.returncode == 0, p.stderr
        assert len(legit1) >= 5 and is_hello_without_cookie(legit1[0])
        junk = corpus(random.Random(26), legit1)
        hvrs, others, seconds = blast(col.port, junk)
        drops_flood = udp_sock_state(col.port)[1]
        assert col.alive()
        # still serving
        p, legit2 = relayed_client(col.port, pki, "node-2", ["after the junk"])
        assert p.returncode == 0, p.stderr
        got = wait_rows(db, 4)
        drops = udp_sock_state(col.port)[1]
        stats = col.stop()
    finally:
        col.kill()
    legit = legit1 + legit2
    legit_hellos = sum(map(is_hello_without_cookie, legit))
    dropped = stats["dropped_malformed"] + stats["dropped_unknown_peer"] + stats["dropped_oversized"]
    print(f"collector junk: {len(junk)} datagrams in {seconds:.2f} s, {hvrs} HelloVerifyRequests back, "
          f"kernel drops {drops}, real clients' datagrams {len(legit)}, stats {stats}")
    assert others == []  # the only answer an unknown peer ever gets is a HelloVerifyRequest
    assert drops == drops_flood  # none during the real runs
    # every datagram accounted for
    assert stats["datagrams_in"] + drops == len(junk) + len(legit)
    assert dropped + hvrs + drops == len(junk)
    assert stats["hello_verify_sent"] == hvrs + legit_hellos
    # what the datagrams are by their first bytes alone, against the counters (lower bounds:
    # a kernel drop could hit any of them)
    assert stats["dropped_oversized"] + drops >= N_OVERSIZED and stats["dropped_oversized"] <= N_OVERSIZED
    assert stats["dropped_malformed"] + drops >= sum(map(not_dtls, junk))
    assert stats["dropped_unknown_peer"] + drops >= sum(map(past_the_handshake, junk))
    assert stats["dropped_bad_cookie"] <= hvrs
    # no connection from the junk; the two real ones complete and are stored
    assert stats["connections"] == 2 and stats["handshake_failed"] == 0 and stats["peers_full"] == 0
    assert [(n, m) for _, n, m in got] == [("node-1", f"reading {i}".encode()) for i in range(3)] + \
        [("node-2", b"after the junk")]
    assert drops <= len(junk) // 100  # the pacing keeps the kernel from dropping much


def test_random_and_mutated_datagrams_server(tmp_path, pki, procs):
    """The same against `se server` (DTLS), which logs each datagram it drops (--verbose)."""
    srv, port = se_server(procs, pki, "dtls", "--echo", "--verbose")
    cli = lambda msg: relayed_client(port, pki, "node-1", [msg])
    p, legit = cli("first")
    assert p.returncode == 0, p.stderr
    srv.wait_for("closed")
    junk = corpus(random.Random(27), legit)
    hvrs, others, seconds = blast(port, junk)
    drops = udp_sock_state(port)[1]
    before = srv.output.count("dropped a datagram:")
    time.sleep(0.3)
    assert srv.output.count("dropped a datagram:") == before  # all logged
    p, _ = cli("after the junk")
    assert p.returncode == 0, p.stderr
    assert srv.output.count("received: after the junk") == 1 and srv.p.poll() is None
    reasons = {}
    for r in re.findall(r"dropped a datagram: (\w+)", srv.output):
        reasons[r] = reasons.get(r, 0) + 1
    print(f"server junk: {len(junk)} datagrams in {seconds:.2f} s, {hvrs} HelloVerifyRequests back, "
          f"kernel drops {drops}, drop lines {before} {reasons}")
    assert others == []
    assert before + hvrs + drops == len(junk)
    assert drops <= len(junk) // 100


# ---- 4. SIGKILL mid-stream, restart on the same database ----------------------------------------

def all_rows(db):
    """{id: (node, payload)} of every reading, through a fresh independent reader."""
    return {i: (n, p) for i, n, p in rows(db)}


class Streamer(threading.Thread):
    """Feeds a streaming `se client --stdin` readings, one per line, in bursts of 20 lines every
    20 ms, until stopped. It calls kill() right after writing line number kill_at (mid-burst);
    `next` is the next sequence number, `mark` counts the lines written since it was zeroed."""

    def __init__(self, proc, node, seq, kill_at, kill):
        super().__init__(daemon=True)
        self.proc, self.node, self.next, self.mark = proc, node, seq, 0
        self.kill_at, self.kill, self.killed = kill_at, kill, threading.Event()
        self.lock, self.stopping = threading.Lock(), threading.Event()

    def run(self):
        while not self.stopping.is_set():
            for _ in range(20):
                with self.lock:
                    self.proc.stdin.write(f"{self.node} seq={self.next:06d}\n")
                    self.next += 1
                    self.mark += 1
                    if self.next == self.kill_at:
                        self.kill()
                        self.killed.set()
            time.sleep(0.02)

    def stop(self):
        self.stopping.set()
        self.join(timeout=10)


def connected(proc, timeout=30):
    """Waits for a client's "suite:" line (its handshake is done)."""
    buf, end = b"", time.monotonic() + timeout
    while b"suite:" not in buf:
        assert time.monotonic() < end and proc.poll() is None, buf
        if select.select([proc.stdout], [], [], 0.1)[0]:
            buf += os.read(proc.stdout.fileno(), 4096)


def test_sigkill_mid_stream_keeps_every_committed_reading(tmp_path, pki):
    """docs/collector.md: each reading is its own committed transaction when it is stored, so it
    survives the collector being killed. A reading counts as stored once a reader in another
    process sees it. Three times: a node streams readings (one record per stdin line), the
    collector is killed with SIGKILL in the middle of a burst and restarted on the same port and
    database while the node goes on sending into its old connection, which the new collector
    does not know; then the node reconnects and sends the next readings."""
    db = tmp_path / "readings.db"
    rng = random.Random(4)
    col = Collector(tmp_path, pki, db)
    port = col.port
    seq = 0
    seen = {}           # every row any reader ever saw: id -> (node, payload)
    streamed = []       # per cycle: the sequence numbers written to the streaming node before the kill
    reconnected = []    # per cycle: the sequence numbers of the node's new connection
    after_restart = 0   # lines the old connection sent to the restarted collector (last cycle)
    try:
        for cycle in range(3):
            node = NODES[cycle]
            stream = subprocess.Popen(client_args(port, pki, node, extra=["--stdin", "--timeout", 60]),
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      bufsize=0)
            stream.stdin = io.TextIOWrapper(stream.stdin, write_through=True)
            connected(stream)
            first = seq
            writer = Streamer(stream, node, seq, seq + rng.randrange(30, 70), col.proc.kill)
            writer.start()
            end = time.monotonic() + 20
            while not writer.killed.is_set():  # a reader in another process, all along
                seen.update(all_rows(db))
                assert time.monotonic() < end and stream.poll() is None
                time.sleep(0.002)
            seen.update(all_rows(db))
            col.proc.wait(timeout=10)
            col.kill()
            streamed.append(range(first, writer.kill_at))
            after_kill = all_rows(db)
            assert seen.items() <= after_kill.items(), "a reading seen committed is gone"
            time.sleep(0.05)  # the node goes on while nobody listens
            col = Collector(tmp_path, pki, db, port=port)  # the same port and database
            assert all_rows(db).items() >= after_kill.items()
            with writer.lock:
                writer.mark = 0
            time.sleep(0.05)  # and into its old connection, unknown to the new collector
            writer.stop()
            after_restart = writer.mark
            seq = writer.next
            out, err = stream.communicate(timeout=20)  # end of input: close_notify, exit
            assert stream.returncode == 0, err.decode()  # the node never noticed: there are no acks
            # the node reconnects and sends the next readings
            batch = [f"{node} seq={s:06d} again" for s in range(seq, seq + 15)]
            reconnected.append(range(seq, seq + 15))
            seq += 15
            n0 = len(all_rows(db))
            p = run_client(port, pki, node, batch)
            assert p.returncode == 0, p.stderr
            wait_rows(db, n0 + 15)
            seen.update(all_rows(db))
        time.sleep(0.2)
        last_run = {i for i in all_rows(db) if i > max(after_kill)}
        stats = col.stop()
    finally:
        col.kill()
    final = all_rows(db)
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        con.close()
    payloads = [p.decode() for _, p in final.values()]
    seqs = [int(re.search(r"seq=(\d+)", p).group(1)) for p in payloads]
    print(f"sigkill: {seq} readings sent in 3 cycles, {len(final)} stored; per cycle streamed before the "
          f"kill {[len(r) for r in streamed]}, stored of those "
          f"{[sum(s in r for s in seqs) for r in streamed]}; last collector stats {stats}")
    assert seen.items() <= final.items(), "every reading ever seen committed is still there, unchanged"
    assert len(set(seqs)) == len(seqs), "no reading stored twice"
    assert len(set(payloads)) == len(payloads)
    for r, again in zip(streamed, reconnected):
        mine = sorted(s for s in seqs if s in r)
        # what was stored of the stream is its beginning, without gaps: what was lost is the tail
        # still in flight (or queued in the killed collector's socket) when it died
        assert mine == list(range(r.start, r.start + len(mine))), mine
        assert sorted(s for s in seqs if s in again) == list(again)  # the reconnected node: all of it
    # nothing the node sent while the collector was down, or afterwards into its old connection
    stored = set(seqs)
    for r, again in zip(streamed, reconnected):
        assert not stored & set(range(r.stop, again.start))
    # the last collector: its stored count is what the reader finds it added; the old
    # connection's records were dropped as an unknown peer's
    assert stats["records_stored"] == len(last_run) == 15
    assert stats["dropped_unknown_peer"] >= after_restart
    assert stats["connections"] == 1
