"""The sensor node in HW mode (sw/apps/sensor_hw; configs hw-rv32imc and hw-rv32i): the whole DTLS
client handshake runs in the engine's protocol controller (rtl/ctrl, HANDSHAKE and HS_RECORD), in
RTL on the simulated node, while the firmware carries datagrams between the NIC and the
controller's window and seals and opens the epoch-1 records with the key slots the controller
filled. It takes the sw+hw sensor's blob and prints its lines, so test_sensor.py runs it too (the
collector, a cached handshake, OpenSSL with CCM_8 and GCM); here what is its own:

  - a server whose leaf and intermediate CA the `openssl` command made;
  - the refusals issue 22 names, with the error and the alert the peer (`se server`) receives as
    RFC 5246 7.2 and the software client give them: a server certificate with a bad signature, expired,
    from an unknown CA, for another name; a wrong Finished (`se server --fault bad-finished`); a
    ServerHelloDone turned into a Finished (unexpected_message) and a ServerHello whose extensions
    do not fill it (decode_error), by a relay;
  - a tampered protected record: dropped and counted, the handshake completes on the resend;
  - a relay that loses datagrams both ways: the retransmission timer (HS_RESEND) and the server's
    repeats (HS_RECORD) get the handshake through."""
import os
import subprocess
import sys
import time

import pytest

from node.test_sensor import TIMEOUT, TamperFirstProtected, against_openssl, blob, pki, readings  # noqa: F401
from proto.relay import DOWN, UP, Relay
from proto.test_tls_negative import bad_server_cert

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import provision  # noqa: E402

CONFIG = "hw-rv32imc"


@pytest.fixture
def se(node):
    node.require(CONFIG, "sensor")
    se = node.root / "build" / "host" / "se"
    if not se.exists():
        pytest.fail("build/host/se is not built (run `make cli`)")
    return se


def test_an_openssl_chain_with_an_intermediate(se, pki, tmp_path):
    """A server whose leaf and intermediate the `openssl` command made (SKI, AKI, a SAN with DNS
    names and an IP address, extendedKeyUsage, pathLen: tests/ctrl/test_ctrl_x509.py), sent with the
    intermediate, against the root alone as the node's anchor, for the SAN's second name."""
    from ctrl.test_ctrl_x509 import openssl_chain
    root, inter, leaf, _ = openssl_chain(tmp_path)
    r, out = against_openssl(CONFIG, blob(pki, ca=root, server_name="node.example", readings=1),
                             "ECDHE-ECDSA-AES128-CCM8", leaf, tmp_path / "leaf.key", pki.ca_pem,
                             extra=("-cert_chain", str(inter)))
    assert r.returncode == 0, (r, out)
    assert readings(1)[0].decode() in out, out


# ---- refusals -------------------------------------------------------------------------------------
class MutateServerFlight(Relay):
    """Applies `mutate` to every whole handshake message of type `mtype` the server sends in epoch 0
    (DTLS records, RFC 6347 4.1 and 4.2.2: type, version, epoch, sequence number, length; then
    msg_type, length, message_seq, fragment_offset, fragment_length)."""

    def __init__(self, port, mtype, mutate):
        self.mtype, self.mutate = mtype, mutate
        super().__init__(port, tamper_app=1, tamper_dir=DOWN)  # (turns on record-wise passing)

    def _tamper_records(self, data, direction, hdr):
        out, pos = bytearray(data), 0
        while direction == DOWN and pos + hdr + 12 <= len(out):
            n = int.from_bytes(out[pos + 11:pos + 13], "big")
            msg = pos + hdr
            whole = out[msg + 6:msg + 9] == b"\0\0\0" and out[msg + 1:msg + 4] == out[msg + 9:msg + 12]
            if out[pos] == 22 and out[pos + 3:pos + 5] == b"\0\0" and out[msg] == self.mtype and whole:
                self.mutate(out, msg)
                self.stats["tampered"] += 1
            pos += hdr + n
        return bytes(out)


def _ext_length_plus_one(out, msg):
    """A ServerHello's extensions length one more than they are (RFC 5246 7.4.1.3)."""
    body = msg + 12
    at = body + 35 + out[body + 34] + 3
    n = int.from_bytes(out[at:at + 2], "big") + 1
    out[at:at + 2] = n.to_bytes(2, "big")


def _to_finished(out, msg):
    out[msg] = 20


# case: (the server's certificate, `se server` options, the relay's mutation, the node's server name)
# -> the node's error and the alert it sends (RFC 5246 7.2, as sw/proto's client)
REFUSALS = {
    "bad_signature": (("bad_signature", (), None, "localhost"), ("cert_bad_signature", "bad_certificate")),
    "expired": (("expired", (), None, "localhost"), ("cert_expired", "certificate_expired")),
    "unknown_ca": (("unknown_ca", (), None, "localhost"), ("cert_unknown_ca", "unknown_ca")),
    "wrong_name": (("wrong_name", (), None, "other.example"), ("cert_name_mismatch", "bad_certificate")),
    "bad_finished": (("good", ("--fault", "bad-finished"), None, "localhost"), ("bad_finished", "decrypt_error")),
    "unexpected_message": (("good", (), (14, _to_finished), "localhost"), ("unexpected_message", "unexpected_message")),
    "decode_error": (("good", (), (2, _ext_length_plus_one), "localhost"), ("decode_error", "decode_error")),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refusals_send_the_software_clients_alert(se, pki, tmp_path, case):
    (kind, opts, mutation, name), (error, alert) = REFUSALS[case]
    cert, key = bad_server_cert(kind, pki, tmp_path)
    port = provision.free_udp_port()
    srv = subprocess.Popen([str(se), "server", "--listen", f"127.0.0.1:{port}", "--cert", str(cert), "--key", str(key),
                            "--ca", str(pki.ca_pem), "--client-auth", "required", "--once", "--timeout", "60",
                            "--retransmit-ms", "30000", *opts],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    relay = MutateServerFlight(port, *mutation) if mutation else None
    try:
        time.sleep(0.5)
        r = provision.run_node(CONFIG, blob(pki, server_name=name),
                               f"udp-connect:127.0.0.1:{relay.port if relay else port}", TIMEOUT)
        try:
            out = srv.communicate(timeout=30)[0]
        except subprocess.TimeoutExpired:
            srv.kill()
            out = srv.communicate()[0]
    finally:
        if relay:
            relay.close()
        if srv.poll() is None:
            srv.kill()
            srv.communicate()
    assert r.returncode == 1 and r.report["exit_code"] == 3, (r, out)
    assert r.lines[-1]["error"] == error and r.lines[-1]["where"] == "dtls", r.lines
    assert r.lines[-1]["alert_sent"] == alert, r.lines
    assert f"(alert {alert})" in out, out   # what the peer received
    if relay:
        assert relay.stats["tampered"] >= 1, relay.stats


def _through(se, pki, tmp_path, make_relay, col_retransmit_ms, node_retransmit_ms):
    """One reading from the node to `se collector` through a relay: (the node's run, the relay, the
    rows stored)."""
    with provision.Collector(pki.dir, tmp_path / "readings.db", exit_after=1, retransmit_ms=col_retransmit_ms,
                             se=se) as col:
        relay = make_relay(col.port)
        try:
            r = provision.run_node(CONFIG, blob(pki, readings=1, retransmit_ms=node_retransmit_ms),
                                   f"udp-connect:127.0.0.1:{relay.port}", TIMEOUT)
            assert r.returncode == 0, (r, col.output())
            assert col.wait(30) == 0, col.output()
            return r, relay, col.rows()
        finally:
            relay.close()


def test_tampered_record_is_dropped(se, pki, tmp_path):
    """The collector's Finished arrives with a byte changed: the firmware's OPEN fails the tag, the
    record is dropped and counted, and the node's resent flight (HS_RESEND) gets it again."""
    r, relay, rows = _through(se, pki, tmp_path, TamperFirstProtected, 600000, 50)
    assert relay.stats["tampered"] == 1 and rows == [("node-1", readings(1)[0])], (relay.stats, rows)
    done = r.lines[-1]
    assert done["done"] == 1 and done["bad_mac"] == 1 and done["retransmits"] >= 1, r.lines


class LoseFirstFlight(Relay):
    """Loses the node's first datagram, the collector's second, and the node's first flight (the
    first datagram from the node with a ChangeCipherSpec record in it: found by content, since the
    timer's resends move the count)."""

    def __init__(self, port):
        self.flight_lost = False
        super().__init__(port, drop={(UP, 0), (DOWN, 1)}, tamper_app=1, tamper_dir=UP)  # (record-wise)

    def _tamper_records(self, data, direction, hdr):
        pos = 0
        while direction == UP and not self.flight_lost and pos + hdr <= len(data):
            if data[pos] == 20:
                self.drop.add((UP, self.stats[UP] - 1))   # (this datagram's index: counted already)
                self.flight_lost = True
            pos += hdr + int.from_bytes(data[pos + hdr - 2:pos + hdr], "big")
        return data


def test_lossy_relay(se, pki, tmp_path):
    """Datagrams lost both ways, the node's flight among them (its resend seals the Finished again
    under a new epoch-1 sequence number): the node's timer and the collector's repeats carry the
    handshake through, and the reading arrives."""
    r, relay, rows = _through(se, pki, tmp_path, LoseFirstFlight, 2000, 300)
    assert relay.flight_lost and relay.stats["dropped"] == 3, relay.stats
    assert rows == [("node-1", readings(1)[0])], rows
    assert r.lines[-1]["retransmits"] >= 2, r.lines
