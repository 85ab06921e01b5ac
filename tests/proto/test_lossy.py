"""DTLS over a lossy path: a relay (proto/lossy.py) between `se client` and `se collector` drops,
duplicates and reorders datagrams both ways with a seeded RNG. The handshake must still complete
(retransmissions), and no reading may be stored twice or be one that was never sent."""
import pytest

from proto.lossy import DOWN, UP, LossyRelay
from proto.test_collector import NODES, Collector, readings, rows, run_client  # noqa: F401

N = 20


@pytest.fixture
def pki(tmp_path):
    from proto.pki import make_pki
    return make_pki(tmp_path / "pki", clients=("node-1",))


def run_over_relay(tmp_path, pki, seed, **impair):
    db = tmp_path / f"lossy-{seed}.db"
    col = Collector(tmp_path, pki, db, "--retransmit-ms", 150, "--max-retransmits", 10)
    relay = LossyRelay(("127.0.0.1", col.port), seed=seed, **impair)
    sent = readings("node-1", N)
    try:
        p = run_client(relay.port, pki, "node-1", sent, extra=("--retransmit-ms", 150), timeout=90)
        assert p.returncode == 0, p.stderr
        relay.wait_quiet(0.5)
        stats = col.stop()
    finally:
        relay.close()
        col.kill()
    return sent, [(n, m.decode()) for n, _, m in rows(db)], stats, relay.stats


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_drop_duplicate_reorder_both_ways(tmp_path, pki, seed):
    sent, got, stats, path = run_over_relay(tmp_path, pki, seed, drop=0.25, dup=0.15, reorder=0.15)
    assert path[UP]["dropped"] and path[DOWN]["dropped"], path  # the path really was lossy
    assert stats["connections"] == 1, stats
    assert stats["retransmits"] >= 1, stats  # the collector resent the flight lost on the way
    payloads = [m for _, m in got]
    assert all(n == "node-1" for n, _ in got)
    assert len(payloads) == len(set(payloads)), "a reading stored twice"
    assert set(payloads) <= set(sent), "a stored reading that was never sent"
    assert payloads, "nothing arrived although the handshake completed"


@pytest.mark.parametrize("seed", [11, 12])
def test_every_reading_exactly_once_when_app_data_is_not_dropped(tmp_path, pki, seed):
    # handshake records are dropped, application records only duplicated and reordered
    sent, got, stats, path = run_over_relay(tmp_path, pki, seed, drop=0.25, dup=0.3, reorder=0.2,
                                            keep_app=True)
    assert stats["connections"] == 1, stats
    assert stats["retransmits"] >= 1, stats  # the collector resent the flight lost on the way
    assert sorted(m for _, m in got) == sorted(sent)  # each exactly once
    if path[UP]["dup_app"]:
        # the copies went to the replay window (or, after close_notify, to no connection)
        assert stats["dropped_replay"] + stats["dropped_unknown_peer"] >= 1, (stats, path)


def test_tampered_records_fail_their_tag_and_are_not_stored(tmp_path, pki):
    sent, got, stats, path = run_over_relay(tmp_path, pki, 21, drop=0.0, dup=0.0, reorder=0.0,
                                            force_drop=(), tamper=0.3)
    bad = len(path[UP]["tampered"])
    assert bad >= 2, path
    payloads = [m for _, m in got]
    assert stats["dropped_bad_mac"] == bad, (stats, path)
    assert len(payloads) == len(set(payloads)) == N - bad  # the others, once each
    assert set(payloads) <= set(sent)


def test_late_copy_of_the_client_hello_does_not_end_the_connection(tmp_path, pki):
    sent, got, stats, path = run_over_relay(tmp_path, pki, 31, drop=0.0, dup=0.0, reorder=0.0,
                                            force_drop=(), late_hello=True)
    assert [m for _, m in got] == sent
    assert stats["replaced"] == 0 and stats["connections"] == 1 and stats["closed"] == 1, stats
