"""DTLS Connection ID (RFC 9146) between `se client --cid` and `se collector`, through a relay
that changes the client's source port mid-stream (NAT rebinding). The relay keeps every datagram,
and the test reads them with a parser written here from RFC 9146 and RFC 6347: the
connection_id extension in both hellos, the tls12_cid record layout, and, with the master secret
from the client's SSLKEYLOGFILE and a TLS 1.2 PRF written from RFC 5246, each record decrypted by
the cryptography package under RFC 9146's additional data. (No peer with RFC 9146 support installs
here: OpenSSL 3.0 and GnuTLS 3.7 have none.)"""
import os
import select
import socket
import sqlite3
import subprocess
import threading
import time

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESCCM

from se_cli import CLI
from tls_prf import p_sha256
from proto.pki import make_pki
from proto.test_collector import Collector, rows, wait_rows

CID_EXT, TLS12_CID, APP, HANDSHAKE = 54, 25, 23, 22


@pytest.fixture
def pki(tmp_path):
    return make_pki(tmp_path / "pki", clients=("node-1",))


class RebindRelay:
    """client <-> relay <-> server over UDP. Upstream datagrams leave from a socket of the relay's;
    after `rebind_after` of them have started with a protected record (epoch > 0: application data
    once the handshake is over), that socket is replaced by a new one: the server sees the client's
    port change, as behind a NAT that rebinds. Every datagram is kept in self.log as
    (direction, bytes)."""

    def __init__(self, server_port, rebind_after=None, attack=None):
        self.server = ("127.0.0.1", server_port)
        self.front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.front.bind(("127.0.0.1", 0))
        self.port = self.front.getsockname()[1]
        self.up = self._new_up()
        self.rebind_after, self.protected_up, self.rebinds = rebind_after, 0, 0
        self.log, self.client = [], None
        # attack(direction, datagram) -> datagrams an attacker sends the server from an address of
        # its own, after that datagram passed
        self.attack, self.attacker = attack, socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def _new_up():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        return s

    def _run(self):
        while not self._stop:
            ready, _, _ = select.select([self.front, self.up], [], [], 0.05)
            for s in ready:
                data, addr = s.recvfrom(65535)
                if s is self.front:
                    self.client = addr
                    self.log.append(("up", data))
                    self.up.sendto(data, self.server)
                    if len(data) > 5 and data[3:5] != b"\x00\x00":
                        self.protected_up += 1
                        if self.rebind_after is not None and self.protected_up == self.rebind_after:
                            old, self.up = self.up, self._new_up()
                            old.close()
                            self.rebinds += 1
                elif self.client is not None:
                    self.log.append(("down", data))
                    self.front.sendto(data, self.client)
                if self.attack is not None:
                    for forged in self.attack("up" if s is self.front else "down", data):
                        self.attacker.sendto(forged, self.server)

    def close(self):
        self._stop = True
        self._thread.join(timeout=5)
        self.front.close()
        self.up.close()
        self.attacker.close()


# ---- a reader of DTLS 1.2 records and hellos, from RFC 6347 4.1 and RFC 9146 4-5 ----------------

def records(dgram, cid_len):
    """(type, epoch, seq, cid, body) of each record; a tls12_cid record's header carries cid_len
    bytes of CID between the sequence number and the length (RFC 9146 4)."""
    out, pos = [], 0
    while pos < len(dgram):
        ctype, version = dgram[pos], dgram[pos + 1:pos + 3]
        assert version in (b"\xfe\xfd", b"\xfe\xff"), dgram.hex()  # (HelloVerifyRequest: DTLS 1.0's)
        epoch = int.from_bytes(dgram[pos + 3:pos + 5], "big")
        seq = int.from_bytes(dgram[pos + 5:pos + 11], "big")
        k = pos + 11
        cid = b""
        if ctype == TLS12_CID:
            cid, k = dgram[k:k + cid_len], k + cid_len
        n = int.from_bytes(dgram[k:k + 2], "big")
        body = dgram[k + 2:k + 2 + n]
        assert len(body) == n, "a record's length runs past its datagram"
        out.append((ctype, epoch, seq, cid, body))
        pos = k + 2 + n
    return out


def hello(body):
    """(random, {extension type: data}) of a ClientHello (type 1) or ServerHello (type 2) message
    (handshake header of 12 bytes, unfragmented)."""
    msg_type, length = body[0], int.from_bytes(body[1:4], "big")
    assert int.from_bytes(body[6:9], "big") == 0 and int.from_bytes(body[9:12], "big") == length
    m, pos = body[12:12 + length], 2
    random = m[pos:pos + 32]
    pos += 32
    pos += 1 + m[pos]                                  # session_id
    if msg_type == 1:
        pos += 1 + m[pos]                              # cookie
        pos += 2 + int.from_bytes(m[pos:pos + 2], "big")  # cipher_suites
        pos += 1 + m[pos]                              # compression_methods
    else:
        pos += 3                                       # cipher_suite, compression_method
    exts, end = {}, pos + 2 + int.from_bytes(m[pos:pos + 2], "big")
    pos += 2
    while pos < end:
        t, n = int.from_bytes(m[pos:pos + 2], "big"), int.from_bytes(m[pos + 2:pos + 4], "big")
        exts[t] = m[pos + 4:pos + 4 + n]
        pos += 4 + n
    return msg_type, random, exts


def prf(secret, label, seed, n):
    """TLS 1.2 PRF with SHA-256 (RFC 5246 5)."""
    return p_sha256(secret, label + seed, n)


def cid_aad(epoch, seq, cid, inner_len):
    """RFC 9146 5: seq_num_placeholder || tls12_cid || cid_length || tls12_cid || version || epoch ||
    sequence_number || cid || length_of_DTLSInnerPlaintext."""
    return (b"\xff" * 8 + bytes([TLS12_CID, len(cid), TLS12_CID]) + b"\xfe\xfd" + epoch.to_bytes(2, "big")
            + seq.to_bytes(6, "big") + cid + inner_len.to_bytes(2, "big"))


def client_records(log, keylog):
    """The application data of the client's records in a relay's log, read from the RFCs: the
    connection_id extension in both hellos (the client's own CID empty, the server's 8 bytes);
    every protected record to the server a tls12_cid record under that CID, with the explicit nonce
    its epoch and sequence number make, decrypted by `cryptography` (CCM_8, the default suite)
    under RFC 9146's additional data with the keys from the client's master secret in keylog (a
    key log file) through the PRF; none to the client a tls12_cid record; Finished first and
    close_notify last."""
    hellos = {}
    for direction, d in log:
        for ctype, epoch, _, _, body in records(d, 8 if direction == "up" else 0):
            if ctype == HANDSHAKE and epoch == 0 and body[0] in (1, 2):
                t, random, exts = hello(body)
                hellos[t] = (random, exts)  # (the second ClientHello, with the cookie, wins)
    (client_random, ch_ext), (server_random, sh_ext) = hellos[1], hellos[2]
    assert ch_ext[CID_EXT] == b"\x00"             # cid<0..255>: the client's own CID is empty
    server_cid = sh_ext[CID_EXT][1:]
    assert sh_ext[CID_EXT][0] == len(server_cid) == 8
    line = keylog.read_text().split()
    assert line[0] == "CLIENT_RANDOM" and bytes.fromhex(line[1]) == client_random
    kb = prf(bytes.fromhex(line[2]), b"key expansion", server_random + client_random, 2 * 16 + 2 * 4)
    client_key, client_salt = kb[:16], kb[32:36]
    ccm = AESCCM(client_key, tag_length=8)
    inner_types, app = [], []
    for direction, d in log:
        for ctype, epoch, seq, cid, body in records(d, 8 if direction == "up" else 0):
            if epoch == 0:
                continue
            if direction == "down":               # to the client: its CID is empty, so no tls12_cid
                assert ctype != TLS12_CID
                continue
            assert ctype == TLS12_CID and cid == server_cid and epoch == 1
            explicit, ct = body[:8], body[8:]
            assert explicit == ((epoch << 48) | seq).to_bytes(8, "big")
            inner = ccm.decrypt(client_salt + explicit, ct, cid_aad(epoch, seq, cid, len(ct) - 8))
            content = inner.rstrip(b"\x00")
            inner_types.append(content[-1])
            if content[-1] == APP:
                app.append(content[:-1])
    assert inner_types[0] == HANDSHAKE and inner_types[-1] == 21, inner_types  # Finished first, close_notify last
    return app


def run_node(port, pki, messages, cid, env=None):
    cert, key = pki.client("node-1")
    args = [str(CLI), "client", "--connect", f"127.0.0.1:{port}", "--cert", str(cert), "--key", str(key),
            "--ca", str(pki.ca_pem), "--name", "localhost"] + (["--cid"] if cid else [])
    for m in messages:
        args += ["--message", m]
    return subprocess.run(args, capture_output=True, text=True, timeout=60, env=env)


def test_rebinding_node_keeps_its_connection(tmp_path, pki):
    """The port changes after the third tls12_cid datagram: the collector finds the connection by
    its CID, moves it to the new port, and stores every reading under the one session; the records
    are RFC 9146's, and decrypt under its additional data."""
    keylog = tmp_path / "keys.log"
    db = tmp_path / "r.db"
    col = Collector(tmp_path, pki, db)
    relay = RebindRelay(col.port, rebind_after=3)
    sent = [f"node-1 reading {i}" for i in range(8)]
    try:
        p = run_node(relay.port, pki, sent, cid=True, env=dict(os.environ, SSLKEYLOGFILE=str(keylog)))
        assert p.returncode == 0, p.stderr
        got = [(n, pl.decode()) for n, _, pl in wait_rows(db, len(sent))]
        stats = col.stop()
    finally:
        relay.close()
        col.kill()
    assert relay.rebinds == 1
    assert got == [("node-1", m) for m in sent]
    assert stats["connections"] == 1 and stats["moved"] == 1 and stats["dropped_unknown_peer"] == 0
    assert "moved to 127.0.0.1:" in col.text()
    con = sqlite3.connect(db)
    sessions = {s for (s,) in con.execute("SELECT session FROM readings")}
    kinds = [k for (k,) in con.execute("SELECT kind FROM events")]
    con.close()
    assert len(sessions) == 1 and kinds.count("moved") == 1

    assert [a.decode() for a in client_records(relay.log, keylog)] == sent


def test_without_cid_a_rebinding_node_is_lost(tmp_path, pki):
    """The control: the same node without --cid. After the port changes its records come from an
    address the collector does not know, and are dropped: only the readings before are stored."""
    db = tmp_path / "r.db"
    col = Collector(tmp_path, pki, db)
    relay = RebindRelay(col.port, rebind_after=3)
    sent = [f"node-1 reading {i}" for i in range(8)]
    try:
        p = run_node(relay.port, pki, sent, cid=False)
        assert p.returncode == 0, p.stderr  # (one-way: the node cannot tell)
        time.sleep(0.3)
        stats = col.stop()
    finally:
        relay.close()
        col.kill()
    assert relay.rebinds == 1
    stored = [pl.decode() for _, _, pl in rows(db)]
    assert stored == sent[:len(stored)] and len(stored) < len(sent)
    assert stats["moved"] == 0 and stats["dropped_unknown_peer"] >= len(sent) - len(stored)
    assert not any(d[0] == TLS12_CID for _, d in relay.log)


def test_no_cid_with_the_cbc_suite(tmp_path, pki):
    """Our tls12_cid records are the AEAD suites': a server that picks CBC leaves the client's offer
    unanswered, and the connection runs without CID."""
    col = Collector(tmp_path, pki, tmp_path / "r.db", "--suites", "cbc")
    relay = RebindRelay(col.port)
    try:
        p = run_node(relay.port, pki, ["x"], cid=True)
        assert p.returncode == 0, p.stderr
        col.stop()
    finally:
        relay.close()
        col.kill()
    sh = [hello(body) for direction, d in relay.log if direction == "down"
          for ctype, epoch, _, _, body in records(d, 0) if ctype == HANDSHAKE and epoch == 0 and body[0] == 2]
    assert sh and CID_EXT not in sh[0][2]
    assert not any(d[0] == TLS12_CID for direction, d in relay.log)


def test_forged_and_replayed_records_move_nothing(tmp_path, pki):
    """From an attacker's address, with the connection's CID (read off the ServerHello): a forged
    tls12_cid record followed by a plaintext epoch-0 handshake record, during the handshake; and
    copies of the node's own tls12_cid datagrams (replays). Nothing authenticates as newer, so the
    connection stays where it is: the handshake completes and every reading is stored once."""
    state = {"cid": None, "sent": 0}

    def forged():
        """A tls12_cid record with the CID and junk for a body, then a plaintext epoch-0 handshake
        record with a record number far ahead and message_seq 0xffff."""
        cid = (bytes([TLS12_CID]) + b"\xfe\xfd" + (1).to_bytes(2, "big") + (5000).to_bytes(6, "big")
               + state["cid"] + (40).to_bytes(2, "big") + bytes(40))
        frag = bytes([16]) + (0).to_bytes(3, "big") + b"\xff\xff" + bytes(6)
        hs = bytes([HANDSHAKE]) + b"\xfe\xfd" + (0).to_bytes(2, "big") + (900).to_bytes(6, "big")
        return cid + hs + len(frag).to_bytes(2, "big") + frag

    def attack(direction, d):
        out = []
        if direction == "down" and state["cid"] is None:
            for ctype, epoch, _, _, body in records(d, 0):
                if ctype == HANDSHAKE and epoch == 0 and body[0] == 2:
                    state["cid"] = hello(body)[2][CID_EXT][1:]
                    out.append(forged())  # during the handshake
        elif direction == "up" and d[0] == TLS12_CID:
            out.append(d)  # a replay of the node's own record, from another address
            if state["sent"] == 0:
                out.append(forged())  # and once established
            state["sent"] += 1
        return out

    db = tmp_path / "r.db"
    col = Collector(tmp_path, pki, db)
    relay = RebindRelay(col.port, attack=attack)
    sent = [f"node-1 reading {i}" for i in range(5)]
    try:
        p = run_node(relay.port, pki, sent, cid=True)
        assert p.returncode == 0, p.stderr
        got = [pl.decode() for _, _, pl in wait_rows(db, len(sent))]
        time.sleep(0.2)
        stats = col.stop()
    finally:
        relay.close()
        col.kill()
    assert state["cid"] is not None and state["sent"] >= len(sent)
    assert got == sent
    assert stats["moved"] == 0 and stats["connections"] == 1 and stats["handshake_failed"] == 0
    assert stats["dropped_replay"] >= len(sent)
