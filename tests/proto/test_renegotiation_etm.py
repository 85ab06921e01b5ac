"""Renegotiation refused and encrypt-then-MAC, against OpenSSL 3 and GnuTLS 3 as peers.

- A peer's renegotiating ClientHello gets a no_renegotiation warning from our server at once, in
  DTLS as in TLS (RFC 5746, docs/tls.md). In DTLS that ClientHello starts its message_seq at 0
  again (RFC 6347 4.2.2); taken for an old retransmission, it used to be dropped while the peer
  resent it until its timer gave up. A server's HelloRequest is ignored by our client, and data
  keeps flowing.
- Encrypt-then-MAC (RFC 7366) for the CBC suite: offered by our client, accepted by our server,
  confirmed by the peer's own report (OpenSSL's -trace of the ServerHello, GnuTLS's "EtM"),
  with data both ways; a peer that declines it gets MAC-then-encrypt."""
import re
import shutil
import socket
import subprocess
import time

import pytest

from proto.test_tls_interop import (  # noqa: F401 (fixtures)
    free_port, ossl_proto, pki, procs, s_server, se_client_args, se_server)

GNUTLS_CBC = "NORMAL:-VERS-ALL:+VERS-TLS1.2:+VERS-DTLS1.2:-CIPHER-ALL:+AES-128-CBC:-MAC-ALL:+SHA256"
GNUTLS_12 = "NORMAL:-VERS-ALL:+VERS-TLS1.2:+VERS-DTLS1.2"


def gnutls(tool):
    path = shutil.which(tool)
    assert path, f"{tool} is required (make setup installs gnutls-bin)"
    return path


def wait_tcp(port, timeout=10):
    end = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.05)


def openssl_client(procs, pki, mode, port, *extra):
    """s_client with its commands on (no -quiet): a line "R" asks for renegotiation."""
    return procs(["openssl", "s_client", *ossl_proto(mode), "-connect", f"127.0.0.1:{port}",
                  "-CAfile", pki.ca_pem, "-verify_return_error", "-groups", "P-256", "-no_ign_eof",
                  *extra], stdin=True)


# ---- renegotiation -------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["dtls", "tls"])
def test_renegotiation_from_openssl_is_refused(pki, procs, mode):
    srv, port = se_server(procs, pki, mode, "--once", "--retransmit-ms", "5000")
    cli = openssl_client(procs, pki, mode, port)
    cli.send("before\n")
    srv.wait_for("received: before")
    cli.send("R\n")
    cli.wait_for("RENEGOTIATING")
    # our warning arrives at once (the DTLS retransmission timer of either side would take
    # seconds), and OpenSSL ends the connection, as it does when a renegotiation it asked for
    # is refused
    cli.wait_for(r"no renegotiation", timeout=3)
    assert srv.wait() == 1
    assert "error: peer_alert (alert handshake_failure)" in srv.output, srv.output


@pytest.mark.parametrize("mode", ["dtls", "tls"])
def test_renegotiation_from_gnutls_is_refused(pki, procs, mode):
    srv, port = se_server(procs, pki, mode, "--echo", "--once", "--retransmit-ms", "5000")
    cli = procs([gnutls("gnutls-cli"), *(["-u"] if mode == "dtls" else []), "-p", str(port), "127.0.0.1",
                 "--x509cafile", pki.ca_pem, "--verify-hostname", "localhost", "--rehandshake",
                 "--priority", GNUTLS_12], stdin=True)
    # no_renegotiation: GnuTLS names it over TLS; over DTLS it reports a warning alert (each
    # time it resends its ClientHello)
    cli.wait_for(r"Received alert \[100\]" if mode == "tls" else r"warning alert has been received", timeout=5)
    cli.kill()
    assert "connected: anonymous" in srv.output


@pytest.mark.parametrize("mode", ["dtls", "tls"])
def test_hello_request_from_openssl_is_ignored(pki, procs, mode):
    """s_server asks our client to renegotiate: the client ignores it (RFC 5246 7.4.1.1) and the
    data that follows still arrives."""
    port = free_port()
    srv = s_server(procs, pki, mode, None, port, "-trace")
    cli = procs(se_client_args(pki, mode, port, "--stdin"), stdin=True)
    cli.send("before-hello-request\n")
    srv.wait_for("before-hello-request")   # (a word of its own: -trace prints "ServerHelloDone")
    srv.send("R\n")
    time.sleep(0.5)                     # (our client answers nothing: no sign to wait for)
    cli.send("after-hello-request\n")
    srv.wait_for("after-hello-request")
    srv.wait_for(r"Sent Record(.|\n)*HelloRequest")   # it did go out (s_server's output is buffered)
    cli.send("last-line\n")            # and data still flows after it
    srv.wait_for("last-line")
    cli.close_stdin()
    assert cli.wait() == 0, cli.output


# ---- encrypt-then-MAC ----------------------------------------------------------------------
def server_hello_extensions(trace):
    """The extensions of the ServerHello in an OpenSSL -trace output."""
    sh = trace[trace.index("ServerHello"):]
    sh = sh[:sh.index("Certificate")]
    return re.findall(r"extension_type=(\w+)", sh)


@pytest.mark.parametrize("mode", ["dtls", "tls"])
def test_etm_our_client_openssl_server(pki, procs, mode):
    port = free_port()
    srv = s_server(procs, pki, mode, "cbc", port, "-trace")
    cli = procs(se_client_args(pki, mode, port, "--suites", "cbc", "--message", "etm-up",
                               "--expect-reply"))
    srv.wait_for("etm-up")
    srv.send("etm-down\n")
    assert cli.wait() == 0, cli.output
    assert "received: etm-down" in cli.output
    assert "encrypt_then_mac" in server_hello_extensions(srv.output)


@pytest.mark.parametrize("mode", ["dtls", "tls"])
def test_etm_openssl_client_our_server(pki, procs, mode):
    srv, port = se_server(procs, pki, mode, "--suites", "cbc", "--echo", "--once")
    cli = openssl_client(procs, pki, mode, port, "-cipher", "ECDHE-ECDSA-AES128-SHA256", "-trace")
    cli.send("etm-echo\n")
    srv.wait_for("received: etm-echo")
    cli.wait_for(r"(?s)Verify return code.*etm-echo")   # echoed
    cli.close_stdin()
    assert srv.wait() == 0, srv.output
    assert "encrypt_then_mac" in server_hello_extensions(cli.output)


@pytest.mark.parametrize("mode", ["dtls", "tls"])
def test_mac_then_encrypt_when_openssl_declines_etm(pki, procs, mode):
    srv, port = se_server(procs, pki, mode, "--suites", "cbc", "--echo", "--once")
    cli = openssl_client(procs, pki, mode, port, "-cipher", "ECDHE-ECDSA-AES128-SHA256", "-trace",
                         "-no_etm")
    cli.send("mte-echo\n")
    srv.wait_for("received: mte-echo")
    cli.wait_for(r"(?s)Verify return code.*mte-echo")
    cli.close_stdin()
    assert srv.wait() == 0, srv.output
    assert "encrypt_then_mac" not in server_hello_extensions(cli.output)


@pytest.mark.parametrize("mode", ["dtls", "tls"])
def test_etm_gnutls_client_our_server(pki, procs, mode):
    srv, port = se_server(procs, pki, mode, "--suites", "cbc", "--echo", "--once")
    cli = procs([gnutls("gnutls-cli"), *(["-u"] if mode == "dtls" else []), "-p", str(port), "127.0.0.1",
                 "--x509cafile", pki.ca_pem, "--verify-hostname", "localhost", "--priority", GNUTLS_CBC],
                stdin=True)
    cli.wait_for(r"- Options:.*EtM")
    cli.send("gnutls-etm\n")
    srv.wait_for("received: gnutls-etm")
    cli.wait_for(r"(?s)Handshake was completed.*gnutls-etm")
    cli.close_stdin()
    assert srv.wait() == 0, srv.output


@pytest.mark.parametrize("mode", ["dtls", "tls"])
def test_etm_our_client_gnutls_server(pki, procs, mode):
    port = free_port()
    srv = procs([gnutls("gnutls-serv"), *(["-u"] if mode == "dtls" else []), "-p", str(port), "--echo",
                 "--x509certfile", pki.server_pem, "--x509keyfile", pki.server_key, "-a",
                 "--priority", GNUTLS_CBC])
    srv.wait_for("listening|Echo Server ready", timeout=10)
    if mode == "tls":   # (it says so before it listens)
        wait_tcp(port)
    # (gnutls-serv echoes TLS by lines)
    cli = subprocess.run([str(a) for a in se_client_args(pki, mode, port, "--suites", "cbc", "--message",
                                                         "gnutls-serv-etm\n", "--expect-reply")],
                         capture_output=True, text=True, timeout=30)
    assert cli.returncode == 0, cli.stderr + srv.output
    assert "received: gnutls-serv-etm" in cli.stdout
    if mode == "tls":   # (gnutls-serv prints the session's options for TLS only)
        srv.wait_for(r"- Options:.*EtM")
