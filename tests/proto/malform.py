"""Malformed TLS handshakes for the strict-parsing tests: a TCP relay that rewrites plaintext
handshake messages on their way (and can add records after one), and the pieces to take a
ClientHello or ServerHello apart and put it together again.

    with Rewriter(port, up={1: f}) as relay:   # f(body) -> new body of the client's ClientHello
        ... `se client --tls` against relay.port ...

Messages are rewritten in records of epoch 0 (before the direction's ChangeCipherSpec), each
record's messages parsed whole (neither our stack nor OpenSSL splits a message this small across
records). A rewritten record longer than 2^14 is cut into records of that size, as a sender must.
"""
import struct

from proto.relay import DOWN, UP, Relay

HANDSHAKE, CCS, ALERT = 22, 20, 21
MAX_FRAGMENT = 1 << 14


def record(ctype, body, version=b"\x03\x03"):
    """TLS records (5-byte headers) carrying body, cut at 2^14 bytes."""
    out = b""
    for i in range(0, max(len(body), 1), MAX_FRAGMENT):
        part = body[i:i + MAX_FRAGMENT]
        out += bytes([ctype]) + version + struct.pack(">H", len(part)) + part
    return out


def message(mtype, body):
    return bytes([mtype]) + len(body).to_bytes(3, "big") + body


class Rewriter(Relay):
    """up / down: {handshake type: f(body) -> body} for the client's and the server's messages;
    after: {(direction, handshake type): bytes} sent right after the record holding that
    message (whole records, e.g. alerts)."""

    def __init__(self, server_port, up=None, down=None, after=None):
        self.rewrite = {UP: dict(up or {}), DOWN: dict(down or {})}
        self.after = dict(after or {})
        self.ccs_seen = {UP: False, DOWN: False}
        self.rewritten = []
        super().__init__(server_port, udp=False, tamper_app=1)  # (turns on record-wise passing)

    def _tamper_records(self, data, direction, hdr):
        out, pos = b"", 0
        while pos + 5 <= len(data):
            ctype, n = data[pos], int.from_bytes(data[pos + 3:pos + 5], "big")
            body = data[pos + 5:pos + 5 + n]
            pos += 5 + n
            if ctype == CCS:
                self.ccs_seen[direction] = True
            if ctype != HANDSHAKE or self.ccs_seen[direction]:
                out += data[pos - 5 - n:pos]
                continue
            msgs, extra, k = b"", b"", 0
            while k + 4 <= len(body):
                mtype, mlen = body[k], int.from_bytes(body[k + 1:k + 4], "big")
                mbody = body[k + 4:k + 4 + mlen]
                assert len(mbody) == mlen, "a handshake message split across records"
                f = self.rewrite[direction].get(mtype)
                if f is not None:
                    mbody = f(mbody)
                    self.rewritten.append((direction, mtype))
                msgs += message(mtype, mbody)
                extra += self.after.get((direction, mtype), b"")
                k += 4 + mlen
            out += record(HANDSHAKE, msgs, data[pos - 4 - n:pos - 2 - n]) + extra
        return out


# ---- hellos ------------------------------------------------------------------------------------
def vec(data, n):
    return len(data).to_bytes(n, "big") + data


class Hello:
    """A ClientHello or ServerHello body (TLS) as fields; build() puts it back together."""

    def __init__(self, body, client):
        self.client = client
        self.version, self.random = body[:2], body[2:34]
        p = 34
        self.sid = body[p + 1:p + 1 + body[p]]
        p += 1 + body[p]
        if client:
            n = int.from_bytes(body[p:p + 2], "big")
            self.suites = body[p + 2:p + 2 + n]
            p += 2 + n
            self.comp = body[p + 1:p + 1 + body[p]]
            p += 1 + body[p]
        else:
            self.suites, self.comp = body[p:p + 2], body[p + 2:p + 3]
            p += 3
        self.exts = []
        if p < len(body):
            end = p + 2 + int.from_bytes(body[p:p + 2], "big")
            p += 2
            while p < end:
                t, n = struct.unpack(">HH", body[p:p + 4])
                self.exts.append([t, body[p + 4:p + 4 + n]])
                p += 4 + n
        self.ext_len = None   # build(): the extensions' length as it should be, unless set
        self.trailer = b""

    def ext(self, t, data=None, drop=False, add=False):
        """Sets extension t's data (appended when add or absent), or drops it."""
        if drop:
            self.exts = [e for e in self.exts if e[0] != t]
        elif add or not any(e[0] == t for e in self.exts):
            self.exts.append([t, data])
        else:
            for e in self.exts:
                if e[0] == t:
                    e[1] = data
        return self

    def build(self):
        body = self.version + self.random + vec(self.sid, 1)
        body += (vec(self.suites, 2) + vec(self.comp, 1)) if self.client else self.suites + self.comp
        exts = b"".join(struct.pack(">HH", t, len(d)) + d for t, d in self.exts)
        body += (self.ext_len if self.ext_len is not None else len(exts)).to_bytes(2, "big") + exts
        return body + self.trailer


def client_hello(f):
    """A rewrite of the ClientHello through f(Hello) -> Hello."""
    return lambda body: f(Hello(body, True)).build()


def server_hello(f):
    return lambda body: f(Hello(body, False)).build()


def alerts(level, desc, count):
    return record(ALERT, bytes([level, desc])) * count
