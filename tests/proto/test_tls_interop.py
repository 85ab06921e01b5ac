"""DTLS 1.2 and TLS 1.2 (sw/proto through `se client` / `se server`) against OpenSSL 3's
s_server / s_client on loopback, for each suite, with and without client certificates, data
flowing both ways; then our client against our server, small MTUs (fragmented flights), the
cached-certificate mode and one handshake on the engine model (--backend rtl). The interop tests
run our side on the library (--backend sw) and on OpenSSL's libcrypto (--backend openssl).

The helpers here (Proc, procs, se_server, openssl commands) are shared with test_tls_negative.py."""
import os
import pathlib
import re
import socket
import subprocess
import threading
import time

import pytest
from cryptography import x509

from se_cli import CLI
from proto.pki import make_pki

SUITES = ("ccm8", "gcm", "cbc")
OSSL_CIPHER = {"ccm8": "ECDHE-ECDSA-AES128-CCM8", "gcm": "ECDHE-ECDSA-AES128-GCM-SHA256",
               "cbc": "ECDHE-ECDSA-AES128-SHA256"}
IANA = {"ccm8": "TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8", "gcm": "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        "cbc": "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256"}
MODES = ("dtls", "tls")
pytestmark = pytest.mark.backends("sw", "openssl")


class Proc:
    """A child process; its stdout and stderr (merged) are collected by a thread, so the test can
    wait for text while it runs."""

    def __init__(self, args, stdin=False):
        self.args = [str(a) for a in args]
        self.p = subprocess.Popen(self.args, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self._out = b""
        self._cv = threading.Condition()
        self._t = threading.Thread(target=self._read, daemon=True)
        self._t.start()

    def _read(self):
        fd = self.p.stdout.fileno()
        while True:
            chunk = os.read(fd, 65536)
            with self._cv:
                if not chunk:
                    self._eof = True
                    self._cv.notify_all()
                    return
                self._out += chunk
                self._cv.notify_all()

    @property
    def output(self):
        with self._cv:
            return self._out.decode(errors="replace")

    def wait_for(self, pattern, timeout=15):
        """The first match of the regex in the output; fails the test after timeout seconds."""
        end = time.monotonic() + timeout
        with self._cv:
            while True:
                m = re.search(pattern, self._out.decode(errors="replace"))
                if m:
                    return m
                left = end - time.monotonic()
                if left <= 0 or getattr(self, "_eof", False):
                    break
                self._cv.wait(min(left, 0.2))
        pytest.fail(f"no /{pattern}/ from {' '.join(self.args)}:\n{self.output[-3000:]}")

    def send(self, text):
        self.p.stdin.write(text.encode())
        self.p.stdin.flush()

    def close_stdin(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass

    def wait(self, timeout=20):
        """Exit status; the process is killed (and the test failed) if it outlives timeout."""
        try:
            rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"{' '.join(self.args)} did not exit:\n{self.output[-3000:]}")
        self._t.join(timeout=2)
        return rc

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait(timeout=5)


@pytest.fixture
def procs():
    """procs(args, stdin=False) starts a Proc; all are killed at the end of the test."""
    started = []

    def start(args, stdin=False):
        p = Proc(args, stdin)
        started.append(p)
        return p
    yield start
    for p in started:
        p.kill()


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return make_pki(tmp_path_factory.mktemp("pki"), clients=("node-1",))


def free_port():
    """A port free for both TCP and UDP on loopback (the kernel picks the TCP one; another test's
    UDP socket may hold that number: then another pick)."""
    for _ in range(100):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u, \
                socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
            try:
                u.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise OSError("no loopback port free for both TCP and UDP")


def mode_flags(mode):
    return ["--tls"] if mode == "tls" else []


def se_server(procs, pki, mode, *extra, backend="sw", cert=None, key=None):
    """`se server` on 127.0.0.1 (kernel-chosen port); returns (Proc, port)."""
    p = procs([CLI, "--backend", backend, "server", *mode_flags(mode), "--listen", "127.0.0.1:0",
               "--cert", cert or pki.server_pem, "--key", key or pki.server_key, "--ca", pki.ca_pem,
               "--timeout", "20", *extra])
    port = int(p.wait_for(r"listening: 127\.0\.0\.1:(\d+)").group(1))
    return p, port


def se_client_args(pki, mode, port, *extra, backend="sw", cert=False):
    """`se client` arguments against 127.0.0.1:port checking the name localhost."""
    args = [CLI, "--backend", backend, "client", *mode_flags(mode), "--connect", f"127.0.0.1:{port}",
            "--ca", pki.ca_pem, "--name", "localhost", "--timeout", "20"]
    if cert:
        c, k = pki.client("node-1")
        args += ["--cert", c, "--key", k]
    return args + [str(e) for e in extra]


def ossl_proto(mode, mtu=1200):
    return ["-dtls1_2", "-mtu", str(mtu)] if mode == "dtls" else ["-tls1_2"]


def s_server(procs, pki, mode, suite, port, *extra, cert=None, key=None, mtu=1200):
    """openssl s_server for one connection with one suite; waits until it accepts."""
    cipher = OSSL_CIPHER[suite] if suite else "ALL"
    p = procs(["openssl", "s_server", *ossl_proto(mode, mtu), "-accept", f"127.0.0.1:{port}",
               "-cert", cert or pki.server_pem, "-key", key or pki.server_key,
               "-cipher", f"{cipher}:@SECLEVEL=0", "-naccept", "1", *extra], stdin=True)
    p.wait_for("ACCEPT")
    return p


def s_client(procs, pki, mode, suite, port, *extra, mtu=1200):
    """openssl s_client checking our server's chain and name; stdin lines are sent as data."""
    cipher = OSSL_CIPHER[suite] if suite else "ALL"
    return procs(["openssl", "s_client", *ossl_proto(mode, mtu), "-connect", f"127.0.0.1:{port}",
                  "-CAfile", pki.ca_pem, "-verify_return_error", "-verify_hostname", "localhost",
                  "-cipher", f"{cipher}:@SECLEVEL=0", "-groups", "P-256", "-quiet", "-no_ign_eof",
                  *extra], stdin=True)


# ---- our client against openssl s_server ------------------------------------------------------
@pytest.mark.parametrize("client_cert", [False, True], ids=["anon", "mutual"])
@pytest.mark.parametrize("suite", SUITES)
@pytest.mark.parametrize("mode", MODES)
def test_our_client_vs_openssl_server(pki, procs, mode, suite, client_cert, backend):
    port = free_port()
    extra = ["-Verify", "1", "-CAfile", pki.ca_pem] if client_cert else []
    srv = s_server(procs, pki, mode, suite, port, *extra)
    msg = f"ping-{mode}-{suite}-{client_cert}"
    cli = procs(se_client_args(pki, mode, port, "--suites", suite, "--message", msg, "--expect-reply",
                               cert=client_cert, backend=backend))
    srv.wait_for(re.escape(msg))          # our record arrived at OpenSSL
    srv.send("pong from openssl\n")       # and OpenSSL's comes back
    assert cli.wait() == 0, cli.output
    out = cli.output
    assert f"suite: {IANA[suite]}" in out and "peer: localhost" in out
    assert "received: pong from openssl" in out
    srv.wait(10)
    if client_cert:
        assert re.search(r"CN\s*=\s*node-1", srv.output), srv.output  # s_server verified our chain
        assert "verify return:1" in srv.output


# ---- openssl s_client against our server ------------------------------------------------------
@pytest.mark.parametrize("client_cert", [False, True], ids=["anon", "mutual"])
@pytest.mark.parametrize("suite", SUITES)
@pytest.mark.parametrize("mode", MODES)
def test_openssl_client_vs_our_server(pki, procs, mode, suite, client_cert, backend):
    srv, port = se_server(procs, pki, mode, "--suites", suite, "--echo", "--once",
                          "--client-auth", "required" if client_cert else "optional", backend=backend)
    extra = []
    if client_cert:
        c, k = pki.client("node-1")
        extra = ["-cert", c, "-key", k]
    cli = s_client(procs, pki, mode, suite, port, *extra)
    msg = f"hello-{mode}-{suite}-{client_cert}"
    cli.send(msg + "\n")
    srv.wait_for(re.escape(f"received: {msg}"))   # OpenSSL's record arrived at our server
    cli.wait_for(re.escape(msg))                  # and our echo arrived at OpenSSL
    cli.close_stdin()                             # s_client sends close_notify
    assert srv.wait() == 0, srv.output
    out = srv.output
    assert f"connected: {'node-1' if client_cert else 'anonymous'} suite: {IANA[suite]}" in out
    assert "closed" in out
    cli.wait(10)


# ---- our client against our server ------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_our_client_vs_our_server(pki, procs, mode, backend):
    """Our server on the library, our client on the backend under test (sw or openssl)."""
    srv, port = se_server(procs, pki, mode, "--echo", "--once", "--client-auth", "required")
    cli = subprocess.run(se_client_args(pki, mode, port, "--message", "one", "--message", "two",
                                        "--expect-reply", cert=True, backend=backend),
                         capture_output=True, text=True, timeout=30)
    assert cli.returncode == 0, cli.stderr
    assert "received: one\nreceived: two\n" in cli.stdout
    assert f"suite: {IANA['ccm8']}" in cli.stdout        # our default preference
    assert srv.wait() == 0
    assert f"connected: node-1 suite: {IANA['ccm8']}" in srv.output
    assert "received: one" in srv.output and "received: two" in srv.output


def test_stdin_lines_are_records(pki, procs):
    srv, port = se_server(procs, pki, "dtls", "--once", "--suites", "gcm")
    cli = subprocess.run(se_client_args(pki, "dtls", port, "--stdin"), input="alpha\nbeta\n",
                         capture_output=True, text=True, timeout=30)
    assert cli.returncode == 0, cli.stderr
    assert srv.wait() == 0
    assert "received: alpha\nreceived: beta\n" in srv.output


# ---- fragmentation: a small MTU against OpenSSL ------------------------------------------------
def test_small_mtu_our_client_vs_openssl(pki, procs):
    """--mtu 300: our Certificate flight leaves in fragments, OpenSSL's (s_server -mtu 300)
    arrives in fragments."""
    port = free_port()
    srv = s_server(procs, pki, "dtls", "ccm8", port, "-Verify", "1", "-CAfile", pki.ca_pem, mtu=300)
    cli = procs(se_client_args(pki, "dtls", port, "--mtu", "300", "--message", "small-mtu",
                               "--expect-reply", "--verbose", cert=True))
    srv.wait_for("small-mtu")
    srv.send("fragmented pong\n")
    assert cli.wait() == 0, cli.output
    assert "received: fragmented pong" in cli.output
    # our Certificate (about 400 bytes) alone needs two datagrams of 300 bytes
    records_out = int(re.search(r"records_out=(\d+)", cli.output).group(1))
    assert records_out >= 8


def test_small_mtu_openssl_client_vs_our_server(pki, procs):
    srv, port = se_server(procs, pki, "dtls", "--mtu", "300", "--echo", "--once",
                          "--client-auth", "required")
    c, k = pki.client("node-1")
    # one suite: a stateless cookie check needs the ClientHello in one datagram
    cli = s_client(procs, pki, "dtls", "gcm", port, "-cert", c, "-key", k, mtu=300)
    cli.send("tiny\n")
    srv.wait_for("received: tiny")
    cli.wait_for("tiny")
    cli.close_stdin()
    assert srv.wait() == 0, srv.output
    assert "connected: node-1" in srv.output


# ---- cached-certificate mode ---------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_cached_certificate_mode(pki, procs, mode):
    srv, port = se_server(procs, pki, mode, "--echo")
    cli = subprocess.run(se_client_args(pki, mode, port, "--handshakes", "3", "--cache",
                                        "--message", "m", "--expect-reply"),
                         capture_output=True, text=True, timeout=30)
    assert cli.returncode == 0, cli.stderr
    assert re.findall(r"cached: (\w+)", cli.stdout) == ["no", "yes", "yes"]
    assert cli.stdout.count("received: m") == 3
    srv.wait_for(r"(?s)(connected: anonymous.*){3}")   # (its output, read by a thread, may lag the client)
    srv.kill()
    assert srv.output.count("connected: anonymous") == 3


def test_cache_file_across_runs_still_checks_the_name(pki, procs, tmp_path):
    """The cache survives the process (--cache-file); a hit skips the chain, not the name check."""
    srv, port = se_server(procs, pki, "dtls")
    cache = tmp_path / "cache.bin"
    run = lambda *extra: subprocess.run(se_client_args(pki, "dtls", port, "--cache-file", cache, *extra),
                                        capture_output=True, text=True, timeout=30)
    first, second = run(), run()
    assert first.returncode == 0 and "cached: no" in first.stdout, first.stderr
    assert second.returncode == 0 and "cached: yes" in second.stdout, second.stderr
    wrong = run("--name", "evil.example")
    assert wrong.returncode == 1 and "cert_name_mismatch" in wrong.stderr, wrong.stdout + wrong.stderr
    empty = run("--name", "")  # an empty name matches no certificate, cached or not
    assert empty.returncode == 1 and "cert_name_mismatch" in empty.stderr, empty.stdout + empty.stderr
    srv.kill()


def test_cache_hit_checks_the_cached_validity(pki, procs, tmp_path):
    """A hit does not parse the leaf again: the clock is checked against the validity period kept in
    the cache (the file is the struct as in memory, not_before and not_after its last fields).
    Moving the cached not_after into the past makes the next handshake fail as an expired
    certificate, although the server's real leaf is valid."""
    srv, port = se_server(procs, pki, "dtls")
    cache = tmp_path / "cache.bin"
    run = lambda: subprocess.run(se_client_args(pki, "dtls", port, "--cache-file", cache),
                                 capture_output=True, text=True, timeout=30)
    first = run()
    assert first.returncode == 0 and "cached: no" in first.stdout, first.stderr
    data = bytearray(cache.read_bytes())
    not_after = int.from_bytes(data[-8:], "little", signed=True)
    cert = x509.load_pem_x509_certificate(pathlib.Path(pki.server_pem).read_bytes())
    assert not_after == int(cert.not_valid_after_utc.timestamp())  # the leaf's, as cached
    data[-8:] = (int(time.time()) - 3600).to_bytes(8, "little", signed=True)
    cache.write_bytes(bytes(data))
    second = run()
    assert second.returncode == 1 and "cert_expired" in second.stderr, second.stdout + second.stderr
    srv.kill()


def test_without_cache_every_handshake_verifies(pki, procs):
    srv, port = se_server(procs, pki, "dtls")
    cli = subprocess.run(se_client_args(pki, "dtls", port, "--handshakes", "2"),
                         capture_output=True, text=True, timeout=30)
    assert cli.returncode == 0, cli.stderr
    assert "cached:" not in cli.stdout and cli.stdout.count("peer: localhost") == 2


# ---- the engine model ------------------------------------------------------------------------------
def test_rtl_backend_dtls_ccm8_vs_openssl(pki, procs):
    """One DTLS CCM_8 handshake with every crypto operation of our client on the engine model
    (a few seconds: OpenSSL retransmits meanwhile, which the client must absorb)."""
    port = free_port()
    srv = s_server(procs, pki, "dtls", "ccm8", port)
    cli = procs(se_client_args(pki, "dtls", port, "--suites", "ccm8", "--message", "from-the-engine",
                               "--expect-reply", "--timeout", "120", backend="rtl"))
    srv.wait_for("from-the-engine", timeout=120)
    srv.send("engine pong\n")
    assert cli.wait(120) == 0, cli.output
    assert "received: engine pong" in cli.output and f"suite: {IANA['ccm8']}" in cli.output


@pytest.mark.parametrize("mode", MODES)
def test_rtl_backend_cbc_records_vs_openssl(pki, procs, mode):
    """The CBC-SHA256 suite with MAC-then-encrypt records (OpenSSL told not to negotiate RFC 7366) on
    the engine model: each record sealed by the DMA's SEAL_CBC and opened by OPEN_CBC, whose MAC and
    padding check is the engine's, in constant time. A reply longer than a block or two, so its
    padding and MAC span blocks."""
    port = free_port()
    srv = s_server(procs, pki, mode, "cbc", port, "-no_etm")
    cli = procs(se_client_args(pki, mode, port, "--suites", "cbc", "--message", "cbc-from-the-engine",
                               "--expect-reply", "--timeout", "120", backend="rtl"))
    srv.wait_for("cbc-from-the-engine", timeout=120)
    reply = "engine-cbc-pong-" + "x" * 150
    srv.send(reply + "\n")
    assert cli.wait(120) == 0, cli.output
    assert f"received: {reply}" in cli.output and f"suite: {IANA['cbc']}" in cli.output
