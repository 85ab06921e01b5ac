"""The ctrl engine's client handshake against real servers: `openssl s_server -dtls1_2`, `se server`
and `se collector`, each with TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8 and a client certificate asked for
and verified. Every handshake message the node sends and every check of the server's is a program of
the controller on its Python model (tests/ctrl/ctrl_dtls.py frames the records around them); the
write keys are the ones KEYS put in the AES slots. The handshake is good when the server takes the
node's Finished and application data under those keys, and the controller takes the server's
Finished and its data back."""
import re
import subprocess
import time

import pytest
from cryptography.hazmat.primitives import serialization

from ctrl.ctrl_dtls import CT_APP, CtrlDtlsClient, HandshakeError, connect
from ctrl.test_ctrl_chain import digits, entries
from proto.pki import der, make_pki
from proto.test_tls_interop import free_port
from se_cli import CLI


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return make_pki(tmp_path_factory.mktemp("ctrl-openssl"))


def client(pki, port, with_cert=True, name=b"localhost", anchors=None, cache=0, machine=None, buffer=0x300):
    sock, peer = connect(port)
    cert_pem, key_pem = pki.client("node-1")
    key = serialization.load_pem_private_key(key_pem.read_bytes(), None).private_numbers().private_value
    anchors = entries([der(pki.ca_pem)]) if anchors is None else anchors
    return CtrlDtlsClient(sock, peer, anchors, digits(time.time()), name,
                          chain=entries([der(cert_pem)]) if with_cert else b"",
                          key=key.to_bytes(32, "big") if with_cert else None, cache=cache, machine=machine,
                          buffer=buffer), sock


def wait_for(proc, pattern, timeout=20):
    """Reads proc's output until pattern; returns all of it."""
    out, end = "", time.monotonic() + timeout
    while time.monotonic() < end:
        line = proc.stdout.readline()
        if not line:
            break
        out += line
        if re.search(pattern, out):
            return out
    raise AssertionError(f"no {pattern!r} in {out!r}")


def s_server(pki, port, mtu, cert=None, key=None, extra=()):
    """`openssl s_server -dtls1_2` for one connection, CCM_8, a client certificate asked for and
    checked against the CA; once it listens."""
    srv = subprocess.Popen(["openssl", "s_server", "-dtls1_2", "-mtu", str(mtu), "-accept", f"127.0.0.1:{port}",
                            "-cert", str(cert or pki.server_pem), "-key", str(key or pki.server_key),
                            "-CAfile", str(pki.ca_pem), *extra,
                            "-Verify", "1", "-cipher", "ECDHE-ECDSA-AES128-CCM8:@SECLEVEL=0", "-groups", "P-256",
                            "-naccept", "1"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wait_for(srv, "ACCEPT")
    return srv


@pytest.mark.parametrize("mtu, buffer", [(1200, 0x100), (300, 0x380)])
def test_openssl_s_server_mutual(pki, mtu, buffer):
    """With OpenSSL's datagrams of 1,200 bytes, its messages come whole (its Certificate with the CA's
    too, 809 bytes) and a small reassembly buffer does; at 300 bytes the Certificate comes in
    fragments over several datagrams, reassembled in the buffer."""
    port = free_port()
    srv = s_server(pki, port, mtu)
    try:
        c, sock = client(pki, port, buffer=buffer)
        with sock:
            c.handshake()
            assert c.cookies()   # both servers ask for a cookie first
            c.send_data(b"hello from the ctrl engine\n")
            out = wait_for(srv, "hello from the ctrl engine")
            assert re.search(r"CN\s*=\s*node-1", out) and "verify return:1" in out, out
            srv.stdin.write("pong from openssl\n")
            srv.stdin.flush()
            got = [p for t, e, _, p in c.receive() if t == CT_APP]
            assert got == [b"pong from openssl\n"]
            c.close()
    finally:
        srv.kill()
        srv.wait()


@pytest.mark.parametrize("with_cert", [True, False], ids=["mutual", "anonymous"])
def test_se_server(pki, with_cert):
    """`se server --echo`: the node's data comes back under the server's write key."""
    port = free_port()
    srv = subprocess.Popen([str(CLI), "server", "--listen", f"127.0.0.1:{port}", "--cert", str(pki.server_pem),
                            "--key", str(pki.server_key), "--ca", str(pki.ca_pem), "--suites", "ccm8", "--echo",
                            "--once", "--timeout", "20", "--client-auth", "required" if with_cert else "optional"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_for(srv, r"listening: 127\.0\.0\.1")
        c, sock = client(pki, port, with_cert)
        with sock:
            c.handshake()
            assert c.cookies()   # both servers ask for a cookie first
            c.send_data(b"reading 1\n")
            got = [p for t, e, _, p in c.receive() if t == CT_APP]
            assert got == [b"reading 1\n"]
            c.close()
    finally:
        srv.kill()
        out = srv.communicate()[0]
    assert ("connected: node-1 suite: TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8" in out) == with_cert, out
    assert "received: reading 1" in out, out


def test_cached_certificate_mode(pki):
    """Two connections to one `se server` from one controller in cached-certificate mode: the first
    verifies the server's chain and fills the record; the second, with no trust anchor at all, takes
    the same leaf on the record (RFC 5246 has no such mode: the node's own, as the software client's
    --cache), and verifies the ServerKeyExchange by pk's joint comb over the table KEY_TABLE made of
    the record's key in between. Without the mode, no anchor is CERT_UNKNOWN_CA. Neither the
    handshake's programs nor KEY_TABLE write below the end of the client's chain (registers 1..8's
    inputs): the driver puts them there once (se_drv_ctrl_hs_place) for every later handshake."""
    port = free_port()
    srv = subprocess.Popen([str(CLI), "server", "--listen", f"127.0.0.1:{port}", "--cert", str(pki.server_pem),
                            "--key", str(pki.server_key), "--ca", str(pki.ca_pem), "--suites", "ccm8", "--echo",
                            "--client-auth", "required", "--timeout", "20"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_for(srv, r"listening: 127\.0\.0\.1")
        machine = None
        for anchors in (None, b""):
            c, sock = client(pki, port, anchors=anchors, cache=1, machine=machine)
            if machine is None:
                assert c.m.run("KEY_TABLE", {1: 2}) == "BAD_INPUT"      # no record yet
            else:
                c.m.pk.runs.clear()
            placed = bytes(c.m.mem[:c.regs[8]])
            with sock:
                c.handshake()
                c.send_data(b"cached\n" if machine else b"full\n")
                assert [p for t, e, _, p in c.receive() if t == CT_APP] == [b"cached\n" if machine else b"full\n"]
                c.close()
            assert bytes(c.m.mem[:c.regs[8]]) == placed
            if machine is not None:     # the ServerKeyExchange on the joint comb, no ladder
                verifies = [r for r in c.m.pk.runs if r[0].startswith("ECDSA_VERIFY") and r[2] != "BAD_SEQ"]
                assert verifies == [("ECDSA_VERIFY_COMB", 2, "OK")], verifies
            machine = c.m
            assert machine.run("KEY_TABLE", {1: 2}) == "OK"             # the record's key's table
            assert machine.run("KEY_TABLE", {1: 3}) == "BAD_INPUT"
            assert bytes(c.m.mem[:c.regs[8]]) == placed
        c, sock = client(pki, port, anchors=b"", cache=0, machine=machine)
        with sock, pytest.raises(HandshakeError) as e:
            c.handshake()
        assert e.value.status == "CERT_UNKNOWN_CA"
    finally:
        srv.kill()
        out = srv.communicate()[0]
    assert out.count("connected: node-1") == 2, out


@pytest.mark.parametrize("timer", [0.3, 8.0], ids=["our-timer", "their-repeat"])
def test_a_lost_flight_is_sent_again(pki, timer):
    """The node's first flight lost on the way to OpenSSL: with a short timer, HS_RESEND sends it
    again before OpenSSL's one second runs out; with a long one, OpenSSL repeats its own flight
    first, and HS_RECORD answers the repeated ServerHelloDone with the flight again. Either way with
    new record sequence numbers (RFC 6347 4.2.4), and the handshake completes."""
    port = free_port()
    srv = s_server(pki, port, 1200)
    try:
        c, sock = client(pki, port, buffer=0x100)
        placed = bytes(c.m.mem[:c.regs[8]])
        with sock:
            c.handshake(timer=timer, drop=lambda d: c.flights() == 1)
            assert c.flights() == 2
            assert bytes(c.m.mem[:c.regs[8]]) == placed     # (HS_RESEND too: as test_cached_certificate_mode)
            c.send_data(b"after a loss\n")
            wait_for(srv, "after a loss")
            c.close()
    finally:
        srv.kill()
        srv.wait()


def test_a_wrong_name_is_refused_before_any_flight(pki):
    """The server's certificate for another name: CERTIFICATE's CERT_NAME, as the software client's
    bad_certificate; the controller sends nothing more."""
    port = free_port()
    srv = subprocess.Popen([str(CLI), "server", "--listen", f"127.0.0.1:{port}", "--cert", str(pki.server_pem),
                            "--key", str(pki.server_key), "--ca", str(pki.ca_pem), "--suites", "ccm8", "--once",
                            "--timeout", "5"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_for(srv, r"listening: 127\.0\.0\.1")
        c, sock = client(pki, port, name=b"evil.example")
        with sock, pytest.raises(HandshakeError) as e:
            c.handshake()
        assert e.value.status == "CERT_NAME"
    finally:
        srv.kill()
        srv.communicate()


def test_se_collector_full_then_cached(pki, tmp_path):
    """`se collector` (tests/proto/test_collector.py) takes the controller's handshakes as a node's:
    a full one, then one in cached-certificate mode with no trust anchor at all; each sends a
    reading, which arrives in SQLite under the node's certificate name (read back with sqlite3)."""
    from proto.test_collector import Collector, rows, wait_rows
    db = tmp_path / "readings.db"
    col = Collector(tmp_path, pki, db)
    try:
        machine = None
        for anchors, reading in ((None, b"t=21.5C full\n"), (b"", b"t=21.6C cached\n")):
            c, sock = client(pki, col.port, anchors=anchors, cache=1, machine=machine)
            with sock:
                c.handshake()
                c.send_data(reading)
                wait_rows(db, 1 if machine is None else 2)
                c.close()
            machine = c.m
    finally:
        col.kill()
    assert [(n, p) for n, _, p in rows(db)] == [("node-1", b"t=21.5C full\n"), ("node-1", b"t=21.6C cached\n")]


def test_an_openssl_chain_with_an_intermediate(pki, tmp_path):
    """A server whose leaf and intermediate the `openssl` command made (subjectKeyIdentifier,
    authorityKeyIdentifier, subjectAltName with a DNS name and an IP address, extendedKeyUsage,
    pathLen; tests/ctrl/test_ctrl_x509.py openssl_chain), sent with its intermediate, against their
    root as the only anchor: the handshake completes for the SAN's name, and a name the leaf does not
    carry is CERT_NAME."""
    from ctrl.test_ctrl_x509 import openssl_chain
    root, inter, leaf, _ = openssl_chain(tmp_path)
    for name, want in ((b"node.example", None), (b"other.example", "CERT_NAME")):
        port = free_port()
        srv = s_server(pki, port, 1200, cert=leaf, key=tmp_path / "leaf.key", extra=("-cert_chain", str(inter)))
        try:
            c, sock = client(pki, port, anchors=entries([der(root)]), name=name, buffer=0x600)
            with sock:
                if want is None:
                    c.handshake()
                    c.send_data(b"through an intermediate\n")
                    wait_for(srv, "through an intermediate")
                    c.close()
                else:
                    with pytest.raises(HandshakeError) as e:
                        c.handshake()
                    assert e.value.status == want
        finally:
            srv.kill()
            srv.wait()
