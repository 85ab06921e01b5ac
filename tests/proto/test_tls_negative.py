"""What DTLS/TLS must refuse, each with its named error on our side and the alert on the peer's:
bad server certificates (signature, expiry, unknown CA, name), a wrong Finished (against
OpenSSL and our own server), tampered records (fatal bad_record_mac in TLS, dropped and counted
in DTLS), a missing client certificate, and hostile datagrams that must not disturb a server or
crash a client."""
import datetime
import os
import random
import re
import socket
import struct
import subprocess
import time

import pytest

from se_cli import CLI
from proto.pki import make_cert
from proto.relay import DOWN, UP, Relay
from proto.test_tls_interop import (  # noqa: F401 (fixtures)
    pki, procs, free_port, s_client, s_server, se_client_args, se_server)


def run_client(args, timeout=30, **kw):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, **kw)


# ---- the server's certificate ---------------------------------------------------------------
def bad_server_cert(kind, pki, tmp):
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
    return pki.server_pem, pki.server_key  # wrong_name: a good certificate, another name asked


CERT_CASES = {  # kind: (our error, the alert we send)
    "bad_signature": ("cert_bad_signature", "bad_certificate", 42),
    "expired": ("cert_expired", "certificate_expired", 45),
    "unknown_ca": ("cert_unknown_ca", "unknown_ca", 48),
    "wrong_name": ("cert_name_mismatch", "bad_certificate", 42),
}


@pytest.mark.parametrize("mode", ["dtls", "tls"])
@pytest.mark.parametrize("kind", list(CERT_CASES))
def test_bad_server_certificate(pki, procs, tmp_path, kind, mode):
    cert, key = bad_server_cert(kind, pki, tmp_path)
    port = free_port()
    srv = s_server(procs, pki, mode, None, port, cert=cert, key=key)
    args = se_client_args(pki, mode, port, "--message", "never")
    if kind == "wrong_name":
        args[args.index("localhost")] = "other.example"
    cli = run_client(args)
    error, alert, number = CERT_CASES[kind]
    assert cli.returncode == 1
    assert f"se client: {error} (alert {alert})" in cli.stderr
    srv.wait_for(f"SSL alert number {number}", timeout=10)   # OpenSSL got our alert
    assert "never" not in srv.output


# ---- a wrong Finished ---------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["dtls", "tls"])
def test_bad_finished_against_openssl(pki, procs, mode):
    port = free_port()
    srv = s_server(procs, pki, mode, "ccm8", port)
    cli = run_client(se_client_args(pki, mode, port, "--fault", "bad-finished", "--message", "x",
                                    "--max-retransmits", "2", "--retransmit-ms", "200"))
    assert cli.returncode == 1
    srv.wait_for(r"(?i)digest check failed|decrypt error|bad finished", timeout=10)
    assert "se client: peer_alert (alert decrypt_error)" in cli.stderr


@pytest.mark.parametrize("mode", ["dtls", "tls"])
def test_bad_finished_against_our_server(pki, procs, mode):
    srv, port = se_server(procs, pki, mode, "--once")
    cli = run_client(se_client_args(pki, mode, port, "--fault", "bad-finished", "--message", "x"))
    assert cli.returncode == 1
    assert srv.wait() == 1
    assert "error: bad_finished (alert decrypt_error)" in srv.output
    assert "se client: peer_alert (alert decrypt_error)" in cli.stderr


# ---- tampered records ------------------------------------------------------------------------------
def test_tls_tampered_record_to_server(pki, procs):
    srv, port = se_server(procs, pki, "tls", "--echo", "--once")
    with Relay(port, udp=False, tamper_app=1, tamper_dir=UP) as relay:
        cli = run_client(se_client_args(pki, "tls", relay.port, "--message", "payload", "--expect-reply"))
        assert srv.wait() == 1
    assert relay.stats["tampered"] == 1
    assert "error: bad_record_mac (alert bad_record_mac)" in srv.output
    assert "received: payload" not in srv.output
    assert cli.returncode == 1 and "se client: peer_alert (alert bad_record_mac)" in cli.stderr


def test_tls_tampered_record_to_client(pki, procs):
    srv, port = se_server(procs, pki, "tls", "--echo", "--once")
    with Relay(port, udp=False, tamper_app=1, tamper_dir=DOWN) as relay:
        cli = run_client(se_client_args(pki, "tls", relay.port, "--message", "payload", "--expect-reply"))
        assert srv.wait() == 1
    assert cli.returncode == 1
    assert "se client: bad_record_mac (alert bad_record_mac)" in cli.stderr
    assert "received:" not in cli.stdout
    assert "error: peer_alert (alert bad_record_mac)" in srv.output


def test_tls_tampered_record_from_openssl(pki, procs):
    """OpenSSL's record, tampered on the way: our client's CBC MAC-then-encrypt check."""
    port = free_port()
    srv = s_server(procs, pki, "tls", "cbc", port)
    with Relay(port, udp=False, tamper_app=1, tamper_dir=DOWN) as relay:
        cli = procs(se_client_args(pki, "tls", relay.port, "--message", "hi", "--expect-reply"))
        srv.wait_for("hi")
        srv.send("tampered pong\n")
        assert cli.wait() == 1
    assert "se client: bad_record_mac (alert bad_record_mac)" in cli.output
    srv.wait(10)
    assert "SSL alert number 20" in srv.output


def test_dtls_tampered_record_is_dropped_and_counted(pki, procs):
    srv, port = se_server(procs, pki, "dtls", "--once")
    with Relay(port, udp=True, tamper_app=1, tamper_dir=UP) as relay:
        cli = run_client(se_client_args(pki, "dtls", relay.port, "--message", "first", "--message", "second"))
        assert srv.wait() == 0, srv.output
    assert relay.stats["tampered"] == 1
    assert cli.returncode == 0, cli.stderr
    out = srv.output
    assert "received: first" not in out and "received: second" in out and "closed" in out
    assert int(re.search(r"dropped_bad_mac=(\d+)", out).group(1)) >= 1


def test_dtls_replayed_record_is_dropped(pki, procs):
    """A duplicated datagram (the first application record twice) is delivered once."""
    srv, port = se_server(procs, pki, "dtls", "--once")
    # up datagrams: CH, CH+cookie, Certificate.. flight (one datagram at mtu 1200), then data
    with Relay(port, udp=True, duplicate={(UP, 3)}) as relay:
        cli = run_client(se_client_args(pki, "dtls", relay.port, "--message", "once"))
        assert srv.wait() == 0, srv.output
    assert relay.stats["duplicated"] == 1
    assert cli.returncode == 0
    assert srv.output.count("received: once") == 1
    assert int(re.search(r"dropped_replay=(\d+)", srv.output).group(1)) == 1


def test_dtls_lost_final_flight_is_resent(pki, procs):
    """The server's CCS+Finished is lost: the client's timer resends its flight, the server
    answers the repeated Finished with its own flight again."""
    srv, port = se_server(procs, pki, "dtls", "--once")
    with Relay(port, udp=True, drop={(DOWN, 2)}) as relay:   # HVR, server flight, CCS+Finished
        cli = run_client(se_client_args(pki, "dtls", relay.port, "--message", "late",
                                        "--retransmit-ms", "200", "--verbose"))
        assert srv.wait() == 0, srv.output
    assert relay.stats["dropped"] == 1
    assert cli.returncode == 0, cli.stderr
    assert "received: late" in srv.output
    assert int(re.search(r"retransmits=(\d+)", srv.output).group(1)) >= 1
    assert int(re.search(r"retransmits=(\d+)", cli.stderr).group(1)) >= 1


# ---- client certificates ------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["dtls", "tls"])
def test_required_client_certificate_missing(pki, procs, mode):
    srv, port = se_server(procs, pki, mode, "--once", "--client-auth", "required")
    cli = run_client(se_client_args(pki, mode, port, "--message", "x"))
    assert srv.wait() == 1
    assert "error: certificate_required (alert handshake_failure)" in srv.output
    assert cli.returncode == 1 and "se client: peer_alert (alert handshake_failure)" in cli.stderr


def test_required_client_certificate_missing_openssl_client(pki, procs):
    srv, port = se_server(procs, pki, "tls", "--once", "--client-auth", "required")
    cli = s_client(procs, pki, "tls", None, port)
    assert srv.wait() == 1
    assert "error: certificate_required" in srv.output
    cli.wait(10)
    assert "SSL alert number 40" in cli.output


def test_client_certificate_from_unknown_ca(pki, procs, tmp_path):
    other, other_key = make_cert(tmp_path, "otherca", cn="Other CA", is_ca=True, key_usage="ca")
    cert, key = make_cert(tmp_path, "intruder", cn="node-9", issuer_cert=other, issuer_key=other_key)
    srv, port = se_server(procs, pki, "dtls", "--once", "--client-auth", "optional")
    args = se_client_args(pki, "dtls", port, "--message", "x") + ["--cert", cert, "--key", key]
    cli = run_client(args)
    assert srv.wait() == 1
    assert "error: cert_unknown_ca (alert unknown_ca)" in srv.output
    assert "se client: peer_alert (alert unknown_ca)" in cli.stderr


# ---- hostile input ----------------------------------------------------------------------------------
def dtls_record(ctype, epoch, seq, body, version=b"\xfe\xfd"):
    return bytes([ctype]) + version + struct.pack(">H", epoch) + struct.pack(">Q", seq)[2:] + struct.pack(">H", len(body)) + body


def client_hello(cookie=b"", suites=(0xC0AE,), seq=0, truncate=None, random_=b"R" * 32):
    body = b"\xfe\xfd" + random_ + b"\x00" + bytes([len(cookie)]) + cookie
    body += struct.pack(">H", 2 * len(suites)) + b"".join(struct.pack(">H", s) for s in suites)
    body += b"\x01\x00"
    ext = bytes.fromhex("000a000400020017" "00170000" "000d000400020403" "000b00020100")
    body += struct.pack(">H", len(ext)) + ext
    if truncate is not None:   # a whole message, but cut short: its own length says so
        body = body[:truncate]
    hs = bytes([1]) + len(body).to_bytes(3, "big") + struct.pack(">H", seq) + b"\0\0\0" + len(body).to_bytes(3, "big")
    return dtls_record(22, 0, seq, hs + body)


def test_garbage_datagrams_do_not_disturb_the_server(pki, procs):
    srv, port = se_server(procs, pki, "dtls", "--echo", "--retransmit-ms", "100", "--max-retransmits", "2")
    rng = random.Random(6)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(1)
    target = ("127.0.0.1", port)
    # random bytes, random DTLS-looking records, ClientHellos cut anywhere, fragments
    for n in range(200):
        if n % 25 == 0:
            time.sleep(0.02)  # paced: the point is the server's parsing, not the socket's buffer
        s.sendto(os.urandom(rng.randrange(1, 300)), target)
        s.sendto(dtls_record(rng.choice([20, 21, 22, 23, 99]), rng.randrange(3), rng.randrange(9),
                             os.urandom(rng.randrange(0, 120))), target)
    full = client_hello()
    for cut in range(0, len(full), 7):
        s.sendto(full[:cut], target)
    # a cookie exchange, then ClientHellos with the valid cookie but broken bodies: each one
    # starts a connection that fails (decode_error) and the server carries on
    for attempt in range(5):
        s.sendto(client_hello(), target)
        try:
            hvr = s.recv(2048)
            break
        except socket.timeout:
            continue
    assert hvr[0] == 22 and hvr[13] == 3, hvr.hex()
    cookie = hvr[28:28 + hvr[27]]
    for cut in (56, 57, 60, 70, 75):   # after the suites (the cookie check reads that far)
        s.sendto(client_hello(cookie=cookie, seq=1, truncate=cut), target)
        time.sleep(0.05)
    srv.wait_for("error: decode_error", timeout=10)
    # a valid one: the server answers with its flight, to a peer that never goes on; the
    # server's retransmissions give up, then a real client gets served
    s.sendto(client_hello(cookie=cookie, seq=1), target)
    replies = [s.recv(4096) for _ in range(6)]   # the failed ones' alerts, then the flight
    assert any(d[0] == 21 for d in replies)       # decode_error alerts
    assert any(d[0] == 22 and d[13] == 2 for d in replies), [d[:14].hex() for d in replies]
    srv.wait_for("error: timeout", timeout=10)
    s.close()
    cli = run_client(se_client_args(pki, "dtls", port, "--message", "still-alive", "--expect-reply"))
    assert cli.returncode == 0, cli.stderr + srv.output
    assert "received: still-alive" in cli.stdout
    assert srv.p.poll() is None   # still serving


def test_client_survives_mutated_server_flights(pki, procs):
    """A fake server answers each ClientHello with a real server flight (captured through a relay)
    cut and bit-flipped at random: the client must fail cleanly (exit 1), never crash."""
    srv, port = se_server(procs, pki, "dtls")
    captured = []

    class Capture(Relay):
        def _tamper_records(self, data, direction, hdr):
            if direction == DOWN:
                captured.append(data)
            return data
    with Capture(port, udp=True, tamper_app=99) as relay:
        assert run_client(se_client_args(pki, "dtls", relay.port)).returncode == 0
    flight = captured[1:]   # after the HelloVerifyRequest
    assert flight
    rng = random.Random(7)
    fake = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    fake.bind(("127.0.0.1", 0))
    fake.settimeout(5)
    for i in range(25):
        cli = subprocess.Popen([str(a) for a in se_client_args(
            pki, "dtls", fake.getsockname()[1], "--retransmit-ms", "50", "--max-retransmits", "1",
            "--timeout", "5")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _, addr = fake.recvfrom(4096)
        for d in flight:
            d = bytearray(d)
            for _ in range(rng.randrange(1, 4)):
                d[rng.randrange(len(d))] ^= 1 << rng.randrange(8)
            if rng.random() < 0.3:
                d = d[:rng.randrange(len(d))]
            fake.sendto(bytes(d), addr)
        out, err = cli.communicate(timeout=10)
        assert cli.returncode == 1, (i, cli.returncode, err)   # a named failure, not a signal
        assert err.startswith("se client: "), err
    fake.close()
