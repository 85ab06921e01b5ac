"""The collector's PostgreSQL sink (`--db postgresql://...`, libpq) on a throwaway cluster of the
test's own (tests/pg.py), read back with psql: the same tables as SQLite, every reading stored once
under its key (node, session, epoch, seq), readings that survive kill -9 of the collector, and a
batch written again after the server dropped the connection."""
import subprocess
import threading
import time

import pytest

from pg import Postgres
from se_cli import CLI
from proto.test_collector import Collector
from proto.test_collector_scale import expected, load, pki  # noqa: F401  (pki is a fixture)


@pytest.fixture
def pg():
    server = Postgres()
    yield server
    server.close()


def payloads(pg):
    return [bytes.fromhex(h[2:]) for (h,) in pg.psql("SELECT payload FROM readings ORDER BY id")]


def wait_count(pg, n, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = int(pg.psql("SELECT count(*) FROM readings")[0][0])
        if got >= n:
            return got
        time.sleep(0.1)
    return got


def stored_once(pg, want):
    got = payloads(pg)
    assert len(got) == len(set(got)), "a reading was stored twice"
    assert set(got) == want


def test_two_workers_into_postgresql(tmp_path, pki, pg):
    col = Collector(tmp_path, pki, pg.url, "--workers", 2, "--max-peers", 128, backend="openssl")
    try:
        rc, rep = load(col.port, pki, 60, 5, "--connections", 2)
        assert rc == 0 and rep["failures"] == 0, rep
        assert wait_count(pg, 600) == 600
        stats = col.stop()
    finally:
        col.kill()
    stored_once(pg, expected("load", 60, 2, 5))
    assert stats["records_stored"] == 600 and stats["db_errors"] == 0 and stats["workers"] == 2
    cols = [c for (c,) in pg.psql("SELECT column_name FROM information_schema.columns WHERE table_name = "
                                  "'readings' ORDER BY ordinal_position")]
    assert cols == ["id", "node", "received_at", "payload", "peer", "key_sha256", "session", "epoch", "seq"]
    # the key: one row per (node, session, epoch, seq); sessions name connections, seq counts from 1
    rows = pg.psql("SELECT node, session, epoch, seq FROM readings")
    assert len({tuple(r) for r in rows}) == 600 and {r[0] for r in rows} == {"node-1"}
    assert len({r[1] for r in rows}) == 120 and {r[2] for r in rows} == {"1"}
    kinds = [k for (k,) in pg.psql("SELECT kind FROM events")]
    assert kinds.count("connected") == 120 and kinds.count("closed") == 120 and kinds.count("start") == 2


def test_kill9_mid_stream_then_restart(tmp_path, pki, pg):
    """Readings counted as stored before kill -9 are all there after it; a collector restarted on
    the same database and port takes new connections; no reading is ever stored twice."""
    col = Collector(tmp_path, pki, pg.url, "--max-peers", 128, backend="openssl")
    port = col.port
    try:
        rc, rep = load(port, pki, 20, 5, prefix="first")
        assert rc == 0 and rep["failures"] == 0, rep
        assert wait_count(pg, 100) == 100
        # mid-stream: a load is running when the collector dies
        result = {}
        t = threading.Thread(target=lambda: result.update(r=load(
            port, pki, 20, 20, "--connections", 50, "--timeout", 60, "--retransmit-ms", 100,
            "--max-retransmits", 3, prefix="mid")))
        t.start()
        wait_count(pg, 300)
        col.proc.kill()
        col.proc.wait(timeout=10)
        survived = payloads(pg)
        col = Collector(tmp_path, pki, pg.url, "--max-peers", 128, port=port, backend="openssl")
        t.join(timeout=120)
        rc, rep = load(port, pki, 20, 5, prefix="after")
        assert rc == 0 and rep["failures"] == 0, rep
        wait_count(pg, len(survived) + 100)
        col.stop()
    finally:
        col.kill()
    got = payloads(pg)
    assert len(got) == len(set(got)), "a reading was stored twice"
    assert expected("first", 20, 1, 5) <= set(got) and expected("after", 20, 1, 5) <= set(got)
    assert set(survived) <= set(got)  # nothing stored before the kill went missing
    assert all(p.startswith((b"first ", b"mid ", b"after ")) for p in got)
    assert any(p.startswith(b"mid ") for p in survived)


def test_lost_database_connection_is_retried(tmp_path, pki, pg):
    """The server ends the collector's session (pg_terminate_backend): the next batch fails on the
    dead connection, which is reset, and the batch written again; every reading stored once."""
    col = Collector(tmp_path, pki, pg.url, "--max-peers", 64, backend="openssl")
    try:
        rc, rep = load(col.port, pki, 5, 4, prefix="before")
        assert rc == 0 and wait_count(pg, 20) == 20
        ended = pg.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()")
        assert ended and all(r == ["t"] for r in ended)
        rc, rep = load(col.port, pki, 5, 4, prefix="after")
        assert rc == 0 and wait_count(pg, 40) == 40
        stats = col.stop()
    finally:
        col.kill()
    stored_once(pg, expected("before", 5, 1, 4) | expected("after", 5, 1, 4))
    assert stats["db_errors"] == 0 and stats["records_stored"] == 40
    log = col.text()
    assert "collector: database: begin:" in log, log  # the batch that met the dead connection
    assert "database: reconnect" not in log


def test_unreachable_database_is_a_setup_failure(tmp_path, pki, pg):
    p = subprocess.run([str(CLI), "collector", "--listen", "127.0.0.1:0", "--db",
                        pg.url.replace("port=5432", "port=1"), "--cert", str(pki.server_pem), "--key",
                        str(pki.server_key), "--ca", str(pki.ca_pem)], capture_output=True, text=True, timeout=30)
    assert p.returncode == 1 and "cannot connect to the database" in p.stderr, p.stderr
