"""The sensor node end to end (sw/apps/sensor): the sw+hw node (rv32im, and rv32imc: the same
firmware with compressed instructions, the smallest), provisioned over its UART
(tools/provision.py), runs a DTLS 1.2 client over the simulator's NIC bridge against
(the first three also in HW mode, sw/apps/sensor_hw on hw-rv32imc and hw-rv32i: the handshake in the
engine's protocol controller, with the same blob and lines; its own cases: test_sensor_hw.py)

  - our collector (`se collector`): the readings land in its SQLite database under the node's
    certificate name; a second handshake uses the cached server certificate and costs fewer cycles;
  - OpenSSL's `s_server -dtls1_2` with CCM_8 and GCM, client certificate required;
  - a server its trust anchor does not vouch for: the node stops with cert_unknown_ca (or
    cert_bad_signature for an anchor of the same name but another key);
  - a relay that tampers with the collector's first protected record (its Finished): the node's
    OPEN fails the tag, the record is dropped and counted, and the retransmitted one completes;
  - a relay that changes the node's port mid-stream, with a DTLS connection ID (RFC 9146): the
    collector keeps the connection; the rv32imc build, which has none, refuses the option.

Each run is a few million simulated cycles (tens of seconds of wall time). The sw configurations
take a billion cycles or more per handshake (minutes even on the node without the engine) and are
run by `make bench`, not here."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time

import pytest

from proto.pki import make_cert, make_pki
from proto.relay import DOWN, Relay

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import provision  # noqa: E402

CONFIGS = ("sw+hw-rv32im", "sw+hw-rv32imc", "hw-rv32imc", "hw-rv32i")
CONFIG = CONFIGS[0]  # the tests of refusals run on one
TIMEOUT = 600  # wall seconds per node run (a handshake: ~10-30 s)


@pytest.fixture
def pki(tmp_path):
    return make_pki(tmp_path / "pki", clients=("node-1",))


@pytest.fixture(params=CONFIGS)
def config(request):
    return request.param


@pytest.fixture
def ready(node, config):
    node.require(config, "sensor")
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


def test_readings_reach_the_collector(ready, config, pki, tmp_path):
    with provision.Collector(pki.dir, tmp_path / "readings.db", exit_after=3, se=ready) as col:
        r = provision.run_node(config, blob(pki, readings=3), f"udp-connect:127.0.0.1:{col.port}", TIMEOUT)
        assert r.returncode == 0, (r, col.output())
        assert col.wait(30) == 0, col.output()
        rows = col.rows()
    assert rows == [("node-1", p) for p in readings(3)], rows
    done = r.lines[-1]
    assert done["done"] == 1 and done["readings"] == 3 and done["name"] == "node-1", r.lines
    hs = provision.handshakes(r.report)
    assert len(hs) == 1 and hs[0]["cycles"] > 0 and not r.lines[0]["cached"], (hs, r.lines)
    for name in ("hello", "cert_verify", "key_exchange", "finished"):
        assert name in hs[0]["phases"], hs[0]["phases"].keys()
    assert provision.phase(r.report, "app_data")["cycles"] > 0
    assert r.lines[-1]["stack_peak"] < r.lines[-1]["stack_size"], r.lines


def test_cached_handshake_is_cheaper(ready, config, pki, tmp_path):
    with provision.Collector(pki.dir, tmp_path / "readings.db", exit_after=1, se=ready) as col:
        r = provision.run_node(config, blob(pki, readings=1, handshakes=2), f"udp-connect:127.0.0.1:{col.port}",
                               TIMEOUT)
        assert r.returncode == 0, (r, col.output())
        assert col.wait(30) == 0, col.output()
        assert col.rows() == [("node-1", readings(1)[0])]
    hs = [l for l in r.lines if "handshake" in l]
    assert [h["cached"] for h in hs] == [0, 1], r.lines
    full, cached = provision.handshakes(r.report)
    assert cached["cycles"] < full["cycles"], (full["cycles"], cached["cycles"])
    # the cached handshake skips the chain check: its cert_verify phase does less on the engine
    assert cached["phases"]["cert_verify"]["cycles"] < full["phases"]["cert_verify"]["cycles"]


def against_openssl(config, data, cipher, cert, key, ca, extra=()):
    """One node run against `openssl s_server -dtls1_2` (CCM_8 or GCM as cipher, P-256, a client
    certificate required and checked against ca): (the run, what s_server printed)."""
    if shutil.which("openssl") is None:
        pytest.fail("no openssl on PATH (make setup installs it)")
    port = provision.free_udp_port()
    srv = subprocess.Popen(
        ["openssl", "s_server", "-dtls1_2", "-accept", f"127.0.0.1:{port}", "-cert", str(cert), "-key", str(key),
         "-CAfile", str(ca), "-Verify", "1", "-cipher", f"{cipher}:@SECLEVEL=0", "-groups", "P-256", "-mtu", "1200",
         "-naccept", "1", *extra],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # stdin stays open
    try:
        time.sleep(1.0)  # s_server binds at once; nothing tells us when, and UDP needs no connect
        assert srv.poll() is None, srv.stdout.read().decode(errors="replace")
        r = provision.run_node(config, data, f"udp-connect:127.0.0.1:{port}", TIMEOUT)
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
def test_openssl_s_server(ready, config, pki, suite, cipher):
    r, out = against_openssl(config, blob(pki, readings=2, suite=suite), cipher, pki.server_pem, pki.server_key,
                             pki.ca_pem)
    assert r.returncode == 0, (r, out)
    for p in readings(2):
        assert p.decode() in out, out
    assert r.lines[0]["suite"].endswith("CCM_8" if suite == "ccm8" else "GCM_SHA256"), r.lines


@pytest.mark.parametrize("config", [CONFIG])
@pytest.mark.parametrize("ca_name,error", [("another CA", "cert_unknown_ca"),
                                           ("iotse test CA", "cert_bad_signature")])
def test_wrong_anchor_is_refused(ready, pki, tmp_path, ca_name, error):
    """The node's anchor did not sign the collector's certificate: a CA of another name
    (cert_unknown_ca), or one of the same name with another key (the chain's signature fails)."""
    other, _ = make_cert(tmp_path / "other", "ca", cn=ca_name, is_ca=True, key_usage="ca")
    with provision.Collector(pki.dir, tmp_path / "readings.db", se=ready) as col:
        r = provision.run_node(CONFIG, blob(pki, ca=other), f"udp-connect:127.0.0.1:{col.port}", TIMEOUT)
        rows = col.rows()
    assert r.returncode == 1 and r.report["exit_code"] == 3, r
    assert r.lines[-1]["error"] == error and r.lines[-1]["where"] == "dtls", r.lines
    alert = "unknown_ca" if error == "cert_unknown_ca" else "bad_certificate"  # RFC 5246 7.2.2
    assert r.lines[-1]["alert_sent"] == alert and "alert_received" not in r.lines[-1], r.lines
    assert rows == []


@pytest.mark.parametrize("config", [CONFIG])
def test_cbc_suite_is_refused(ready, pki):
    """The node's protocol is built without the CBC suite (-DSE_TLS_NO_CBC): a node provisioned for
    it stops before sending anything, naming the reason."""
    r = provision.run_node(CONFIG, blob(pki, suite="cbc"), f"udp-connect:127.0.0.1:{provision.free_udp_port()}",
                           TIMEOUT)
    assert r.returncode == 1 and r.report["exit_code"] == 3, r
    assert r.lines == [{"error": "not_supported", "where": "dtls set-up", "stack_peak": r.lines[0]["stack_peak"]}], r.lines


class TamperFirstProtected(Relay):
    """Flips a byte of the first record with a nonzero epoch the server sends (DTLS headers: type,
    version, epoch, sequence number, length; RFC 6347 4.1)."""

    def __init__(self, port):
        self.seen = []
        super().__init__(port, tamper_app=1, tamper_dir=DOWN)  # (turns on record-wise passing)

    def _tamper_records(self, data, direction, hdr):
        out, pos = bytearray(data), 0
        while direction == DOWN and pos + hdr <= len(out):
            n = int.from_bytes(out[pos + hdr - 2:pos + hdr], "big")
            epoch = int.from_bytes(out[pos + 3:pos + 5], "big")
            if epoch != 0:
                self.seen.append(bytes(out[pos:pos + hdr + n]))
                if len(self.seen) == 1 and n > 0:
                    out[pos + hdr + n // 2] ^= 0x40
                    self.stats["tampered"] += 1
            pos += hdr + n
        return bytes(out)


@pytest.mark.parametrize("config", [CONFIG])
def test_tampered_record_is_dropped(ready, pki, tmp_path):
    """The collector's Finished, the first record the node OPENs (on the engine, by DMA), arrives
    with one byte changed: its tag fails, the record is dropped and counted (RFC 6347 4.1.2.7), and
    the node's retransmitted flight gets the Finished again. Had any of the tampered record reached
    the stack, its Finished would not verify and the handshake would fail."""
    with provision.Collector(pki.dir, tmp_path / "readings.db", exit_after=1, retransmit_ms=600000,
                             se=ready) as col:
        relay = TamperFirstProtected(col.port)
        try:
            r = provision.run_node(CONFIG, blob(pki, readings=1, retransmit_ms=50),
                                   f"udp-connect:127.0.0.1:{relay.port}", TIMEOUT)
            assert r.returncode == 0, (r, col.output())
            assert col.wait(30) == 0, col.output()
            rows = col.rows()
        finally:
            relay.close()
    assert relay.stats["tampered"] == 1, relay.stats
    assert rows == [("node-1", readings(1)[0])], rows
    done = r.lines[-1]
    assert done["done"] == 1 and done["bad_mac"] == 1 and done["retransmits"] >= 1, r.lines
    # The tampered record was the Finished (the first protected handshake record, epoch 1), and the
    # handshake completed on a later copy of it: the node took nothing of the tampered one.
    fin = [rec for rec in relay.seen if rec[0] == 22 and rec[3:5] == b"\x00\x01"]
    assert relay.seen[0] == fin[0] and len(fin) >= 2, relay.seen


@pytest.mark.parametrize("config", [CONFIG])
def test_cid_keeps_a_rebinding_node(ready, pki, tmp_path):
    """DTLS Connection ID (RFC 9146) on the node: provisioned with cid, the sensor offers an empty
    CID and its records to the collector become tls12_cid records under the CID the collector
    assigned. A relay changes the node's source port after its third protected datagram (a NAT
    rebinding): the collector finds the connection by its CID, moves it, and stores every reading
    under the one session, with no second handshake. The datagrams are read with test_cid's parser
    (RFC 9146 and RFC 6347), and each of the node's records is decrypted by `cryptography` under
    RFC 9146's additional data and the nonce its sequence number makes, with the master secret
    from the collector's $SSLKEYLOGFILE."""
    from proto.test_cid import RebindRelay, client_records

    n, keylog, stats, db = 6, tmp_path / "keys.log", tmp_path / "stats.json", tmp_path / "readings.db"
    col = provision.Collector(pki.dir, db, exit_after=n, stats=stats, se=ready,
                              env=dict(os.environ, SSLKEYLOGFILE=str(keylog)))
    with col:
        relay = RebindRelay(col.port, rebind_after=3)
        try:
            r = provision.run_node(CONFIG, blob(pki, readings=n, cid=True), f"udp-connect:127.0.0.1:{relay.port}",
                                   TIMEOUT)
            assert r.returncode == 0, (r, col.output())
            assert col.wait(60) == 0, col.output()
            rows = col.rows()
        finally:
            relay.close()
    assert relay.rebinds == 1
    assert rows == [("node-1", p) for p in readings(n)], rows
    st = json.loads(stats.read_text())
    assert st["connections"] == 1 and st["moved"] == 1 and st["dropped_unknown_peer"] == 0, st
    assert "moved to 127.0.0.1:" in col.output()
    con = sqlite3.connect(db)
    try:
        assert len({s for (s,) in con.execute("SELECT session FROM readings")}) == 1
        assert [k for (k,) in con.execute("SELECT kind FROM events")].count("moved") == 1
    finally:
        con.close()

    assert client_records(relay.log, keylog) == readings(n)


def test_cid_refused_by_the_size_build(node, pki):
    """sw+hw-rv32imc is built without connection IDs (the Makefile's NODE_TLS_FLAGS_rv32imc): a node
    provisioned for one stops before sending anything, naming the reason."""
    node.require("sw+hw-rv32imc", "sensor")
    r = provision.run_node("sw+hw-rv32imc", blob(pki, cid=True),
                           f"udp-connect:127.0.0.1:{provision.free_udp_port()}", TIMEOUT)
    assert r.returncode == 1 and r.report["exit_code"] == 3, r
    assert r.lines == [{"error": "not_supported", "where": "dtls set-up", "stack_peak": r.lines[0]["stack_peak"]}], r.lines
