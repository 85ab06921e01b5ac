"""The DTLS server front end (sw/proto/dtls_server.c, se/dtls_server.h) as real peers see it, in
the two programs that run it: slots, the stateless cookie exchange and a restart on the same
address. The peers are OpenSSL's s_client; what passes between them and our programs is watched
by a relay of the test's own (tests/proto/relay.py); readings are read back with Python's
sqlite3. The other cases (junk, floods, full tables, idle timeouts) are in test_collector.py and
test_hostile.py."""
import sqlite3
import time

import pytest

from proto.pki import make_pki
from proto.relay import DOWN
from proto.test_collector import Collector, rows, wait_rows
from proto.test_hostile import Capture
from proto.test_tls_interop import procs, s_client, se_server  # noqa: F401 (fixture)


@pytest.fixture
def pki(tmp_path):
    return make_pki(tmp_path / "pki", clients=("node-1",))


class Watch(Capture):
    """test_hostile's capturing relay, also keeping the server's datagrams to the client. All its
    clients use its one socket towards the server: to the server they share one address."""

    def __init__(self, port):
        self.down = []
        super().__init__(port)

    def _tamper_records(self, data, direction, hdr):
        if direction == DOWN:
            self.down.append(bytes(data))
        return super()._tamper_records(data, direction, hdr)


def is_hvr(d):
    """A HelloVerifyRequest datagram (RFC 6347 4.2.1): a handshake record whose message is type 3."""
    return len(d) >= 13 + 12 + 3 and d[0] == 22 and d[13] == 3


def node(procs, pki, port):
    """OpenSSL's s_client as a node with node-1's certificate; each stdin line is one record."""
    cert, key = pki.client("node-1")
    return s_client(procs, pki, "dtls", None, port, "-cert", cert, "-key", key)


def wait_until(cond, timeout=20, what="condition"):
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_collector_node_restart_on_the_same_address_replaces_its_connection(tmp_path, pki, procs):
    """RFC 6347 4.2.8: a node that restarts on the address of its live connection starts a new
    handshake; it gets a HelloVerifyRequest first, and its ClientHello with the cookie replaces the
    old connection (docs/collector.md). The first node process is killed (no close_notify), the
    second comes from the same address: both go through one relay socket."""
    db = tmp_path / "readings.db"
    col = Collector(tmp_path, pki, db)
    try:
        with Watch(col.port) as relay:
            first = node(procs, pki, relay.port)
            first.send("before the restart\n")
            wait_rows(db, 1)
            first.kill()  # gone without a word: the collector still holds its connection
            before = len(relay.down)
            second = node(procs, pki, relay.port)
            second.send("after the restart\n")
            wait_until(lambda: len(rows(db)) >= 2, what="the second reading")
            # the server's first answer to the new ClientHello: a cookie, not its flight
            assert relay.down[before:] and is_hvr(relay.down[before]), [d[:14].hex() for d in relay.down[before:]]
            second.close_stdin()  # close_notify
            wait_until(lambda: "closed, 1 records" in col.text(), what="the close")
        stats = col.stop()
    finally:
        col.kill()
    assert [(n, p) for n, _, p in rows(db)] == [("node-1", b"before the restart\n"),
                                                ("node-1", b"after the restart\n")]
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        kinds = [k for (k,) in con.execute("SELECT kind FROM events ORDER BY id")]
    finally:
        con.close()
    assert kinds == ["start", "connected", "replaced", "connected", "closed", "stop"], kinds
    assert stats["replaced"] == 1 and stats["connections"] == 2 and stats["closed"] == 1, stats
    assert stats["handshake_failed"] == 0 and stats["live_peers"] == 0, stats
    assert "replaced by a new handshake, 1 records" in col.text()


def test_server_answers_a_second_peer_with_a_cookie_and_serves_it_when_its_slot_frees(pki, procs):
    """`se server` (DTLS) has one slot. A second peer that comes while a connection runs still gets
    its HelloVerifyRequest at once (the cookie exchange keeps no state), is refused a slot until the
    first connection ends, and gets in on its next retransmission."""
    srv, port = se_server(procs, pki, "dtls", "--echo", "--verbose", "--client-auth", "required")
    first = node(procs, pki, port)
    first.send("first\n")
    srv.wait_for("received: first")
    with Watch(port) as relay:
        second = node(procs, pki, relay.port)
        wait_until(lambda: len(relay.down) >= 1, what="an answer to the second peer")
        assert is_hvr(relay.down[0]), relay.down[0][:14].hex()
        time.sleep(1.5)  # its ClientHello with the cookie, and a retransmission of it: no slot
        assert srv.output.count("connected:") == 1 and all(is_hvr(d) for d in relay.down), srv.output
        first.close_stdin()  # close_notify: the slot frees
        srv.wait_for("closed")
        second.send("second\n")
        srv.wait_for("received: second", timeout=20)
    assert srv.output.count("connected: node-1") == 2, srv.output
    assert "dropped a datagram: peers_full" in srv.output, srv.output
    assert srv.p.poll() is None
