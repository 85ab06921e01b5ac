"""The malformation table of docs/tls.md, walked: each row names a handshake message (or record),
one way to break it, and the named error and alert the receiving side must answer with. Our
client and server talk TLS through a relay (tests/proto/malform.py) that rewrites the message on
its way; the side that receives it must fail with the row's error and alert, and the other side
must see that alert. Rows whose alert column is "—" must not fail at all.

Each row runs twice: between our own client and server, and with OpenSSL on the sending side
(s_client sends the broken client message to our server, s_server the broken server message to
our client), so what we parse is also what an independent stack writes, and OpenSSL reports the
alert it got. The table is the specification (docs/tls.md), the expected alerts come from the
RFCs it cites; DTLS runs the same message parsers (tls_hs.c) and is not walked again here."""
import pathlib
import re
import socket
import struct
import subprocess

import pytest

from proto.malform import ALERT, Rewriter, alerts, client_hello, server_hello, vec
from proto.relay import DOWN, UP
from proto.test_tls_interop import (  # noqa: F401 (fixtures)
    free_port, pki, procs, s_client, s_server, se_client_args, se_server)

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "tls.md"
CH, SH, CERT, SKE, CR, SHD, CV, CKE = 1, 2, 11, 12, 13, 14, 15, 16
SUITES = b"\xc0\xae\xc0\x2b"   # what our client offers (CCM_8, GCM)


def flip_last(body):
    return body[:-1] + bytes([body[-1] ^ 1])


def ske_point(f):
    """ServerKeyExchange with its point (after the 1-byte length) replaced by f(point)."""
    def g(body):
        point = body[4:4 + body[3]]
        return body[:3] + vec(f(point), 1) + body[4 + body[3]:]
    return g


def set_u16(at, value):
    return lambda body: body[:at] + struct.pack(">H", value) + body[at + 2:]


def after_point(at, f):
    """f applied to what follows a 1-byte-length point at body[at]."""
    return lambda body: body[:at + 1 + body[at]] + f(body[at + 1 + body[at]:])


def cert_list_len(delta):
    return lambda b: (int.from_bytes(b[:3], "big") + delta).to_bytes(3, "big") + b[3:]


def cert_entry_len(delta):
    return lambda b: b[:3] + (int.from_bytes(b[3:6], "big") + delta).to_bytes(3, "big") + b[6:]


def field(name, value):
    def f(h):
        setattr(h, name, value)
        return h
    return f


def ext(t, data=None, **kw):
    return lambda h: h.ext(t, data, **kw)


def ext_len_off(h):
    h.ext_len = sum(4 + len(d) for _, d in h.exts) + 1
    return h


def trailer(h):
    h.trailer = b"\x00"
    return h


def padding(n):
    return ext(21, bytes(n), add=True)


SIGALGS = b"\x04\x03\x05\x03\x06\x03"
# id -> (direction, message type, rewrite of its body, options); options: "auth" runs the server
# with --client-auth required and the client with its certificate; "after" adds records after
# the message instead of rewriting it.
ROWS = {
    # ClientHello: our server answers
    "ch-trailing": (UP, CH, lambda b: b + b"\x00"),
    "ch-ext-block-long": (UP, CH, client_hello(ext_len_off)),
    "ch-comp-empty": (UP, CH, client_hello(field("comp", b""))),
    "ch-comp-no-null": (UP, CH, client_hello(field("comp", b"\x01"))),
    "ch-suites-odd": (UP, CH, client_hello(field("suites", SUITES + b"\x00"))),
    "ch-version-old": (UP, CH, client_hello(field("version", b"\x03\x01"))),
    "ch-groups-short": (UP, CH, client_hello(ext(10, b"\x00\x02\x00\x17\x00\x18"))),
    "ch-groups-empty": (UP, CH, client_hello(ext(10, b"\x00\x00"))),
    "ch-groups-no-p256": (UP, CH, client_hello(ext(10, vec(b"\x00\x18", 2)))),
    "ch-pf-empty": (UP, CH, client_hello(ext(11, b"\x00"))),
    "ch-pf-compressed-only": (UP, CH, client_hello(ext(11, b"\x01\x01"))),
    "ch-sigalgs-inner-2": (UP, CH, client_hello(ext(13, b"\x00\x02" + SIGALGS))),
    "ch-sigalgs-inner-3": (UP, CH, client_hello(ext(13, b"\x00\x03" + SIGALGS))),
    "ch-sigalgs-empty": (UP, CH, client_hello(ext(13, b"\x00\x00"))),
    "ch-sigalgs-odd": (UP, CH, client_hello(ext(13, vec(b"\x04\x03\x05", 2)))),
    "ch-sigalgs-no-p256": (UP, CH, client_hello(ext(13, vec(b"\x05\x03", 2)))),
    "ch-ems-data": (UP, CH, client_hello(ext(23, b"\x00"))),
    "ch-ems-missing": (UP, CH, client_hello(ext(23, drop=True))),
    "ch-etm-data": (UP, CH, client_hello(ext(22, b"\x00"))),
    "ch-ri-empty-body": (UP, CH, client_hello(ext(0xff01, b""))),
    "ch-ri-nonempty": (UP, CH, client_hello(ext(0xff01, b"\x01\x00"))),
    "ch-ext-duplicate": (UP, CH, client_hello(ext(10, vec(b"\x00\x17", 2), add=True))),
    "ch-too-large": (UP, CH, client_hello(padding(9000))),
    "ch-too-large-records": (UP, CH, client_hello(padding(20000))),
    # ServerHello: our client answers
    "sh-trailing": (DOWN, SH, lambda b: b + b"\x00"),
    "sh-sid-long": (DOWN, SH, server_hello(field("sid", bytes(33)))),
    "sh-version": (DOWN, SH, server_hello(field("version", b"\x03\x02"))),
    "sh-suite-unoffered": (DOWN, SH, server_hello(field("suites", b"\xc0\x2c"))),
    "sh-comp": (DOWN, SH, server_hello(field("comp", b"\x01"))),
    "sh-ext-unsolicited": (DOWN, SH, server_hello(ext(35, b""))),
    "sh-ems-data": (DOWN, SH, server_hello(ext(23, b"\x00"))),
    "sh-ems-missing": (DOWN, SH, server_hello(ext(23, drop=True))),
    "sh-ri-nonempty": (DOWN, SH, server_hello(ext(0xff01, b"\x02\x00\x00"))),
    "sh-pf-empty": (DOWN, SH, server_hello(ext(11, b"\x00"))),
    "sh-pf-compressed-only": (DOWN, SH, server_hello(ext(11, b"\x01\x01"))),
    "sh-etm-unoffered": (DOWN, SH, server_hello(ext(22, b"", add=True)), "aead"),
    # the server's Certificate
    "cert-list-long": (DOWN, CERT, cert_list_len(+1)),
    "cert-entry-long": (DOWN, CERT, cert_entry_len(+1)),
    "cert-empty": (DOWN, CERT, lambda b: b"\x00\x00\x00"),
    "cert-garbage": (DOWN, CERT, lambda b: vec(vec(b"\x30\x03\x02\x01\x00", 3), 3)),
    # ServerKeyExchange
    "ske-curve-type": (DOWN, SKE, lambda b: b"\x01" + b[1:]),
    "ske-curve": (DOWN, SKE, set_u16(1, 24)),
    "ske-point-compressed": (DOWN, SKE, ske_point(lambda p: b"\x02" + p[1:33])),
    "ske-point-off-curve": (DOWN, SKE, ske_point(flip_last)),
    "ske-sig-alg": (DOWN, SKE, after_point(3, lambda rest: b"\x04\x01" + rest[2:])),
    "ske-sig-bad": (DOWN, SKE, flip_last),
    "ske-trailing": (DOWN, SKE, lambda b: b + b"\x00"),
    # CertificateRequest, ServerHelloDone
    "cr-types-long": (DOWN, CR, lambda b: bytes([b[0] + 1]) + b[1:], "auth"),
    "cr-trailing": (DOWN, CR, lambda b: b + b"\x00", "auth"),
    "shd-body": (DOWN, SHD, lambda b: b"\x00"),
    # the client's Certificate, ClientKeyExchange, CertificateVerify
    "ccert-list-long": (UP, CERT, cert_list_len(+1), "auth"),
    "cke-compressed": (UP, CKE, lambda b: vec(b"\x02" + b[2:34], 1)),
    "cke-off-curve": (UP, CKE, flip_last),
    "cke-empty": (UP, CKE, lambda b: b"\x00"),
    "cke-len-short": (UP, CKE, lambda b: b[:-1]),
    "cke-trailing": (UP, CKE, lambda b: b + b"\x00"),
    "cv-sig-alg": (UP, CV, lambda b: b"\x04\x01" + b[2:], "auth"),
    "cv-sig-bad": (UP, CV, flip_last, "auth"),
    "cv-trailing": (UP, CV, lambda b: b + b"\x00", "auth"),
    # records after a message
    "warn-4": (UP, CH, alerts(1, 90, 4), "after"),
    "warn-5": (UP, CH, alerts(1, 90, 5), "after"),
    "warn-5-to-client": (DOWN, SH, alerts(1, 90, 5), "after"),
    "warn-3-then-2": (None, None, {(UP, CH): alerts(1, 90, 3), (UP, CKE): alerts(1, 90, 2)}, "after"),
    "rec-overflow": (UP, CH, b"\x16\x03\x03\x40\x01" + bytes(16385), "after"),
    "rec-version": (UP, CH, b"\x16\x02\x00\x00\x04" + bytes(4), "after"),
}


def table():
    """The rows of docs/tls.md's malformation table: {id: (from, message, error, alert)}."""
    rows = {}
    for line in DOC.read_text().splitlines():
        m = re.match(r"\|\s*`([a-z0-9-]+)`\s*\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|\s*$", line)
        if m:
            rows[m.group(1)] = tuple(c.strip().strip("`") for c in m.group(2, 3, 5, 6))
    return rows


TABLE = table()


def test_table_and_rows_agree():
    assert TABLE, "no malformation table in docs/tls.md"
    assert sorted(TABLE) == sorted(ROWS), (set(TABLE) ^ set(ROWS))
    for rid, (frm, _, _, _) in TABLE.items():
        assert frm == ("client" if ROWS[rid][0] in (UP, None) else "server"), rid


ALERT_NUMBERS = {"decode_error": 50, "illegal_parameter": 47, "handshake_failure": 40, "decrypt_error": 51,
                 "protocol_version": 70, "unexpected_message": 10, "record_overflow": 22,
                 "bad_certificate": 42, "unsupported_extension": 110}


def client_opts(opts):
    """"aead": our client offers the AEAD suites only (so no encrypt_then_mac either)."""
    return ["--suites", "ccm8,gcm"] if "aead" in opts else []


def relay_args(direction, mtype, change, opts):
    if "after" in opts:
        return {"after": change if isinstance(change, dict) else {(direction, mtype): change}}
    return {"up" if direction == UP else "down": {mtype: change}}


@pytest.mark.parametrize("peer", ["ours", "openssl"])
@pytest.mark.parametrize("rid", sorted(ROWS))
def test_malformation(pki, procs, rid, peer):
    direction, mtype, change, *opts = ROWS[rid]
    frm, message, error, alert = TABLE[rid]
    auth = "auth" in opts
    if peer == "openssl":
        return with_openssl(pki, procs, rid, direction, mtype, change, opts, error, alert)
    srv, port = se_server(procs, pki, "tls", "--once", "--echo",
                          *(["--client-auth", "required"] if auth else []))
    with Rewriter(port, **relay_args(direction, mtype, change, opts)) as relay:
        cli = subprocess.run([str(a) for a in se_client_args(pki, "tls", relay.port, "--message", "x",
                                                             "--expect-reply", *client_opts(opts), cert=auth)],
                             capture_output=True, text=True, timeout=30)
        rc = srv.wait(20)
    assert "after" in opts or relay.rewritten, f"{rid}: the relay saw no {message}"
    out = srv.output
    if alert == "—":   # the connection goes through
        assert cli.returncode == 0 and rc == 0, (cli.stderr, out)
        assert "received: x" in cli.stdout
        return
    assert cli.returncode == 1 and rc == 1, (cli.returncode, rc, cli.stderr, out)
    if direction == UP:   # the server refused what the client sent
        assert f"error: {error} (alert {alert})" in out, out
        assert f"se client: peer_alert (alert {alert})" in cli.stderr, cli.stderr
    else:
        assert f"se client: {error} (alert {alert})" in cli.stderr, cli.stderr
        assert f"error: peer_alert (alert {alert})" in out, out


def with_openssl(pki, procs, rid, direction, mtype, change, opts, error, alert):
    auth = "auth" in opts
    if direction in (UP, None):   # s_client's message, broken, to our server
        srv, port = se_server(procs, pki, "tls", "--once", "--echo",
                              *(["--client-auth", "required"] if auth else []))
        c, k = pki.client("node-1")
        with Rewriter(port, **relay_args(direction, mtype, change, opts)) as relay:
            cli = s_client(procs, pki, "tls", None, relay.port, *(["-cert", c, "-key", k] if auth else []))
            try:
                cli.send("x\n")
            except OSError:   # s_client already gone: it got the alert first
                pass
            if alert == "—":
                srv.wait_for("received: x")
                cli.close_stdin()
            rc = srv.wait(20)
            cli.wait(10)
        assert "after" in opts or relay.rewritten, f"{rid}: the relay saw no such message from OpenSSL"
        if alert == "—":
            assert rc == 0, srv.output
            return
        assert rc == 1 and f"error: {error} (alert {alert})" in srv.output, srv.output
        assert f"SSL alert number {ALERT_NUMBERS[alert]}" in cli.output, cli.output
    else:                 # s_server's message, broken, to our client
        port = free_port()
        c, k = pki.client("node-1")
        srv = s_server(procs, pki, "tls", None, port, *(["-Verify", "1", "-CAfile", pki.ca_pem] if auth else []))
        with Rewriter(port, **relay_args(direction, mtype, change, opts)) as relay:
            cli = subprocess.run([str(a) for a in se_client_args(pki, "tls", relay.port, "--message", "x",
                                                                 *client_opts(opts), cert=auth)],
                                 capture_output=True, text=True, timeout=30)
            srv.wait(20)
        assert "after" in opts or relay.rewritten, f"{rid}: the relay saw no such message from OpenSSL"
        assert cli.returncode == 1 and f"se client: {error} (alert {alert})" in cli.stderr, cli.stderr
        assert f"SSL alert number {ALERT_NUMBERS[alert]}" in srv.output, srv.output


# ---- DTLS: the same limits over datagrams ------------------------------------------------------
def dtls_record(ctype, seq, body):
    return bytes([ctype]) + b"\xfe\xfd\x00\x00" + seq.to_bytes(6, "big") + struct.pack(">H", len(body)) + body


def dtls_hello(rnd, cookie=b"", pad=0, mseq=0):
    """A ClientHello datagram (CCM_8, P-256, EMS); pad: a padding extension of that many bytes."""
    exts = b"".join(struct.pack(">HH", t, len(d)) + d for t, d in (
        (10, b"\x00\x02\x00\x17"), (11, b"\x01\x00"), (13, b"\x00\x02\x04\x03"), (23, b""),
        *([(21, bytes(pad))] if pad else [])))
    body = (b"\xfe\xfd" + rnd + b"\x00" + vec(cookie, 1) + vec(SUITES[:2], 2) + b"\x01\x00" + vec(exts, 2))
    hs = (b"\x01" + len(body).to_bytes(3, "big") + mseq.to_bytes(2, "big") + b"\x00\x00\x00"
          + len(body).to_bytes(3, "big") + body)
    return dtls_record(22, mseq, hs)


def dtls_peer(port, rnd):
    """A socket that passed the cookie exchange; returns (socket, cookie)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.settimeout(5)
    s.sendto(dtls_hello(rnd), ("127.0.0.1", port))
    hvr = s.recv(4096)
    assert hvr[0] == 22 and hvr[13] == 3, hvr.hex()
    return s, hvr[28:28 + hvr[27]]


def fatal_alert(s):
    """The description of the first fatal alert the server sends (other records skipped)."""
    while True:
        d = s.recv(65536)
        pos = 0
        while pos + 13 <= len(d):
            n = int.from_bytes(d[pos + 11:pos + 13], "big")
            if d[pos] == ALERT and d[pos + 13] == 2:
                return d[pos + 14]
            pos += 13 + n


def test_dtls_hello_over_the_handshake_limit(pki, procs):
    """A cookie-checked ClientHello of 9 KB (one datagram): too_large, decode_error."""
    srv, port = se_server(procs, pki, "dtls", "--once")
    s, cookie = dtls_peer(port, bytes(range(32)))
    s.sendto(dtls_hello(bytes(range(32)), cookie, pad=9000, mseq=1), ("127.0.0.1", port))
    assert fatal_alert(s) == ALERT_NUMBERS["decode_error"]
    assert srv.wait() == 1 and "error: too_large (alert decode_error)" in srv.output, srv.output


def test_dtls_warning_cap_is_not_reset_by_dropped_records(pki, procs):
    """Five warnings with a dropped record between them (a handshake fragment of a later
    message_seq, which brings no progress): too_many_warnings, unexpected_message."""
    srv, port = se_server(procs, pki, "dtls", "--once")
    rnd = bytes(range(1, 33))
    s, cookie = dtls_peer(port, rnd)
    s.sendto(dtls_hello(rnd, cookie, mseq=1), ("127.0.0.1", port))
    assert s.recv(65536)[13] == 2          # ServerHello: the handshake is on
    later = b"\x10\x00\x00\x01\x00\x09\x00\x00\x00\x00\x00\x01\x00"   # a fragment of message_seq 9
    records = [dtls_record(ALERT, 2 + i, b"\x01\x5a") for i in range(4)]
    records += [dtls_record(22, 6, later), dtls_record(ALERT, 7, b"\x01\x5a")]
    for r in records:
        s.sendto(r, ("127.0.0.1", port))
    assert fatal_alert(s) == ALERT_NUMBERS["unexpected_message"]
    assert srv.wait() == 1 and "error: too_many_warnings (alert unexpected_message)" in srv.output, srv.output
