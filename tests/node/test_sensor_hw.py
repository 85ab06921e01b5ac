"""The sensor node in HW mode (sw/apps/sensor_hw; configs hw-rv32i and hw-rv32imc): the whole DTLS
client handshake runs in the engine's protocol controller (rtl/ctrl, HANDSHAKE and HS_RECORD), in
RTL on the simulated node, while the firmware carries datagrams between the NIC and the
controller's window and seals and opens the epoch-1 records with the key slots the controller
filled. The same provisioning blob and output lines as the sw+hw sensor (tools/provision.py), so
the checks are test_sensor.py's:

  - `se collector`: readings in SQLite; a second handshake in cached-certificate mode;
  - OpenSSL's `s_server -dtls1_2` with CCM_8 and GCM, client certificate required; and a server
    whose leaf and intermediate CA the `openssl` command made;
  - every refusal the software client names, with the alert the peer (`se server`) receives, as
    RFC 5246 7.2 and the software client give it: a server certificate with a bad signature, expired,
    from an unknown CA, for another name; a wrong Finished (`se server --fault bad-finished`); a
    ServerHelloDone turned into another message (unexpected_message) and a ServerHello whose
    extensions do not fill it (decode_error), by a relay;
  - a tampered protected record: dropped and counted, the handshake completes on the resend;
  - a relay that loses datagrams both ways: the retransmission timer (HS_RESEND) and the server's
    repeats (HS_RECORD) get the handshake through."""
import datetime
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from proto.pki import make_cert, make_pki
from proto.relay import DOWN, UP, Relay

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import provision  # noqa: E402

CONFIGS = ("hw-rv32imc", "hw-rv32i")
CONFIG = CONFIGS[0]  # the refusals run on one
TIMEOUT = 600


@pytest.fixture
def pki(tmp_path):
    return make_pki(tmp_path / "pki", clients=("node-1",))


@pytest.fixture(params=CONFIGS)
def config(request):
    return request.param


@pytest.fixture
def se(node):
    for c in CONFIGS:
        node.require(c, "sensor")
    se = node.root / "build" / "host" / "se"
    if not se.exists():
        pytest.fail("build/host/se is not built (run `make cli`)")
    return se


def blob(pki, ca=None, **kw):
    cert, key = pki.client("node-1")
    return provision.blob(ca or pki.ca_pem, cert, key, server_name=kw.pop("server_name", pki.server_name), **kw)


def readings(n, name="node-1"):
    """The payloads the firmware's fake sensor sends (sensor_io.c: sensor_reading())."""
    out = []
    for i in range(1, n + 1):
        t = 215 + (i * 37) % 21 - 10
        out.append(f"{name} seq={i} temp={t // 10}.{t % 10}C".encode())
    return out


def test_readings_reach_the_collector(se, config, pki, tmp_path):
    with provision.Collector(pki.dir, tmp_path / "readings.db", exit_after=3, se=se) as col:
        r = provision.run_node(config, blob(pki, readings=3), f"udp-connect:127.0.0.1:{col.port}", TIMEOUT)
        assert r.returncode == 0, (r, col.output())
        assert col.wait(30) == 0, col.output()
        rows = col.rows()
    assert rows == [("node-1", p) for p in readings(3)], rows
    assert r.lines[0]["suite"] == "TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8" and not r.lines[0]["cached"], r.lines
    done = r.lines[-1]
    assert done["done"] == 1 and done["readings"] == 3 and done["name"] == "node-1", r.lines
    hs = provision.handshakes(r.report)
    assert len(hs) == 1, hs
    for name in ("hello", "cert_verify", "key_exchange", "finished"):
        assert name in hs[0]["phases"], hs[0]["phases"].keys()
    assert r.lines[-1]["stack_peak"] < r.lines[-1]["stack_size"], r.lines


def test_cached_handshake(se, pki, tmp_path):
    """The second handshake takes the collector's leaf on the controller's cache record (its
    SHA-256), skipping the chain's verification: fewer cycles, the cert_verify phase above all."""
    with provision.Collector(pki.dir, tmp_path / "readings.db", exit_after=1, se=se) as col:
        r = provision.run_node(CONFIG, blob(pki, readings=1, handshakes=2), f"udp-connect:127.0.0.1:{col.port}",
                               TIMEOUT)
        assert r.returncode == 0, (r, col.output())
        assert col.wait(30) == 0, col.output()
        assert col.rows() == [("node-1", readings(1)[0])]
    assert [h["cached"] for h in r.lines if "handshake" in h] == [0, 1], r.lines
    full, cached = provision.handshakes(r.report)
    assert cached["cycles"] < full["cycles"], (full["cycles"], cached["cycles"])
    assert cached["phases"]["cert_verify"]["cycles"] < full["phases"]["cert_verify"]["cycles"]


def _s_server(port, cert, key, ca, cipher, extra=()):
    return subprocess.Popen(
        ["openssl", "s_server", "-dtls1_2", "-accept", f"127.0.0.1:{port}", "-cert", str(cert), "-key", str(key),
         "-CAfile", str(ca), "-Verify", "1", "-cipher", f"{cipher}:@SECLEVEL=0", "-groups", "P-256", "-mtu", "1200",
         "-naccept", "1", *extra],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # stdin stays open


def _against_openssl(srv, data, config=CONFIG):
    try:
        time.sleep(1.0)  # s_server binds at once; nothing tells us when, and UDP needs no connect
        assert srv.poll() is None, srv.stdout.read().decode(errors="replace")
        r = provision.run_node(config, data, f"udp-connect:127.0.0.1:{srv.port}", TIMEOUT)
        try:
            srv.wait(timeout=5)  # -naccept 1: may end after the node's close_notify
        except subprocess.TimeoutExpired:
            srv.terminate()
        out = srv.communicate(timeout=20)[0].decode(errors="replace")
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.communicate()
    return r, out


@pytest.mark.parametrize("suite,cipher", [("ccm8", "ECDHE-ECDSA-AES128-CCM8"),
                                          ("gcm", "ECDHE-ECDSA-AES128-GCM-SHA256")])
def test_openssl_s_server(se, pki, suite, cipher):
    """The controller offers both suites; OpenSSL picks the one it is given, and the firmware seals
    with the one ServerHello named (HS_SUITE)."""
    if shutil.which("openssl") is None:
        pytest.fail("no openssl on PATH (make setup installs it)")
    port = provision.free_udp_port()
    srv = _s_server(port, pki.server_pem, pki.server_key, pki.ca_pem, cipher)
    srv.port = port
    r, out = _against_openssl(srv, blob(pki, readings=2, suite=suite))
    assert r.returncode == 0, (r, out)
    for p in readings(2):
        assert p.decode() in out, out
    assert re.search(r"CN\s*=\s*node-1", out), out
    assert r.lines[0]["suite"].endswith("CCM_8" if suite == "ccm8" else "GCM_SHA256"), r.lines


def test_an_openssl_chain_with_an_intermediate(se, pki, tmp_path):
    """A server whose leaf and intermediate the `openssl` command made (SKI, AKI, a SAN with DNS
    names and an IP address, extendedKeyUsage, pathLen: tests/ctrl/test_ctrl_x509.py), sent with the
    intermediate, against the root alone as the node's anchor, for the SAN's second name."""
    from ctrl.test_ctrl_x509 import openssl_chain
    root, inter, leaf, _ = openssl_chain(tmp_path)
    port = provision.free_udp_port()
    srv = _s_server(port, leaf, tmp_path / "leaf.key", pki.ca_pem, "ECDHE-ECDSA-AES128-CCM8",
                    extra=("-cert_chain", str(inter)))
    srv.port = port
    r, out = _against_openssl(srv, blob(pki, ca=root, server_name="node.example", readings=1))
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


def _bad_cert(kind, pki, tmp):
    now = datetime.datetime.now(datetime.timezone.utc)
    ca = dict(issuer_cert=pki.ca_pem, issuer_key=pki.ca_key)
    if kind == "bad_signature":
        return make_cert(tmp, "badsig", cn="localhost", corrupt_signature=True, **ca)
    if kind == "expired":
        return make_cert(tmp, "expired", cn="localhost", not_before=now - datetime.timedelta(days=10),
                         not_after=now - datetime.timedelta(days=1), **ca)
    if kind == "unknown_ca":
        other, other_key = make_cert(tmp, "otherca", cn="Other CA", is_ca=True, key_usage="ca")
        return make_cert(tmp, "stranger", cn="localhost", issuer_cert=other, issuer_key=other_key)
    return pki.server_pem, pki.server_key


# case: (the server's certificate, `se server` options, the relay's mutation, the node's server name)
# -> the node's error and the alert it sends (RFC 5246 7.2, as sw/proto's client)
REFUSALS = {
    "bad_signature": (("bad_signature", (), None, "localhost"), ("cert_bad_signature", "bad_certificate")),
    "expired": (("expired", (), None, "localhost"), ("cert_expired", "certificate_expired")),
    "unknown_ca": (("unknown_ca", (), None, "localhost"), ("cert_unknown_ca", "unknown_ca")),
    "wrong_name": (("good", (), None, "other.example"), ("cert_name_mismatch", "bad_certificate")),
    "bad_finished": (("good", ("--fault", "bad-finished"), None, "localhost"), ("bad_finished", "decrypt_error")),
    "unexpected_message": (("good", (), (14, _to_finished), "localhost"), ("unexpected_message", "unexpected_message")),
    "decode_error": (("good", (), (2, _ext_length_plus_one), "localhost"), ("decode_error", "decode_error")),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refusals_send_the_software_clients_alert(se, pki, tmp_path, case):
    (kind, opts, mutation, name), (error, alert) = REFUSALS[case]
    cert, key = _bad_cert(kind, pki, tmp_path)
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


class TamperFirstProtected(Relay):
    """Flips a byte of the first record of a nonzero epoch the server sends."""

    def __init__(self, port):
        self.seen = []
        super().__init__(port, tamper_app=1, tamper_dir=DOWN)

    def _tamper_records(self, data, direction, hdr):
        out, pos = bytearray(data), 0
        while direction == DOWN and pos + hdr <= len(out):
            n = int.from_bytes(out[pos + hdr - 2:pos + hdr], "big")
            if out[pos + 3:pos + 5] != b"\0\0":
                self.seen.append(bytes(out[pos:pos + hdr + n]))
                if len(self.seen) == 1 and n > 0:
                    out[pos + hdr + n // 2] ^= 0x40
                    self.stats["tampered"] += 1
            pos += hdr + n
        return bytes(out)


def test_tampered_record_is_dropped(se, pki, tmp_path):
    """The collector's Finished arrives with a byte changed: the firmware's OPEN fails the tag, the
    record is dropped and counted, and the node's resent flight (HS_RESEND) gets it again."""
    with provision.Collector(pki.dir, tmp_path / "readings.db", exit_after=1, retransmit_ms=600000,
                             se=se) as col:
        relay = TamperFirstProtected(col.port)
        try:
            r = provision.run_node(CONFIG, blob(pki, readings=1, retransmit_ms=50),
                                   f"udp-connect:127.0.0.1:{relay.port}", TIMEOUT)
            assert r.returncode == 0, (r, col.output())
            assert col.wait(30) == 0, col.output()
            rows = col.rows()
        finally:
            relay.close()
    assert relay.stats["tampered"] == 1 and rows == [("node-1", readings(1)[0])], (relay.stats, rows)
    done = r.lines[-1]
    assert done["done"] == 1 and done["bad_mac"] == 1 and done["retransmits"] >= 1, r.lines


def test_lossy_relay(se, pki, tmp_path):
    """Datagrams lost both ways: the node's first ClientHello, the server's first answer to the
    second, and the node's first flight. The node's timer and the collector's repeats carry the
    handshake through, and the reading arrives."""
    with provision.Collector(pki.dir, tmp_path / "readings.db", exit_after=1, retransmit_ms=2000,
                             se=se) as col:
        relay = Relay(col.port, drop={(UP, 0), (DOWN, 1), (UP, 2)})
        try:
            r = provision.run_node(CONFIG, blob(pki, readings=1, retransmit_ms=300),
                                   f"udp-connect:127.0.0.1:{relay.port}", TIMEOUT)
            assert r.returncode == 0, (r, col.output())
            assert col.wait(30) == 0, col.output()
            rows = col.rows()
        finally:
            relay.close()
    assert relay.stats["dropped"] == 3 and rows == [("node-1", readings(1)[0])], (relay.stats, rows)
    assert r.lines[-1]["retransmits"] >= 1, r.lines
