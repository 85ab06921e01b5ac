"""A loopback relay between one client and a server, UDP (DTLS) or TCP (TLS), that can drop,
duplicate, reorder and tamper with what passes, deterministically (by position, not by chance).

    relay = Relay(server_port, udp=True, tamper_app=1)     # flip a byte of the 1st app record
    ... point the client at ("127.0.0.1", relay.port) ...
    relay.close(); relay.stats

Datagram positions count from 0 per direction ("up" = client->server, "down" = server->client):
drop / duplicate / reorder are sets of (direction, index) pairs; a reordered datagram is held
back and sent after the next one of its direction. tamper_app=N flips one byte in the body of
the N-th (from 1) application_data record going in `tamper_dir`: in DTLS records inside the
datagrams (13-byte headers), in TLS records parsed from the byte stream (5-byte headers).
"""
import select
import socket
import threading

UP, DOWN = "up", "down"
APP = 23


class Relay:
    def __init__(self, server_port, *, udp=True, host="127.0.0.1", drop=(), duplicate=(), reorder=(),
                 tamper_app=0, tamper_dir=UP):
        self.server = (host, server_port)
        self.udp = udp
        self.drop, self.duplicate, self.reorder = set(drop), set(duplicate), set(reorder)
        self.tamper_app, self.tamper_dir = tamper_app, tamper_dir
        self.stats = {UP: 0, DOWN: 0, "dropped": 0, "duplicated": 0, "reordered": 0, "tampered": 0}
        self._apps = {UP: 0, DOWN: 0}      # application records seen per direction
        self._held = {UP: None, DOWN: None}
        self._stream_buf = {UP: b"", DOWN: b""}
        self._stop = False
        kind = socket.SOCK_DGRAM if udp else socket.SOCK_STREAM
        self.front = socket.socket(socket.AF_INET, kind)
        self.front.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.front.bind((host, 0))
        if not udp:
            self.front.listen(1)
        self.port = self.front.getsockname()[1]
        self._thread = threading.Thread(target=self._run_udp if udp else self._run_tcp, daemon=True)
        self._thread.start()

    # ---- tampering ---------------------------------------------------------------------
    def _tamper_records(self, data, direction, hdr):
        """Flips a byte in the chosen application record among the complete records in data."""
        out = bytearray(data)
        pos = 0
        while pos + hdr <= len(out):
            n = int.from_bytes(out[pos + hdr - 2:pos + hdr], "big")
            if out[pos] == APP:
                self._apps[direction] += 1
                if direction == self.tamper_dir and self._apps[direction] == self.tamper_app and n > 0:
                    out[pos + hdr + n // 2] ^= 0x40
                    self.stats["tampered"] += 1
            pos += hdr + n
        return bytes(out)

    # ---- UDP -----------------------------------------------------------------------------
    def _run_udp(self):
        back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        back.connect(self.server)
        client = None
        count = {UP: 0, DOWN: 0}
        while not self._stop:
            ready, _, _ = select.select([self.front, back], [], [], 0.05)
            for s in ready:
                try:
                    data, addr = s.recvfrom(65536)
                except OSError:
                    continue
                if s is self.front:
                    client, direction = addr, UP
                    send = lambda d: back.send(d)
                else:
                    if client is None:
                        continue
                    direction = DOWN
                    send = lambda d, c=client: self.front.sendto(d, c)
                idx = count[direction]
                count[direction] += 1
                self.stats[direction] += 1
                if self.tamper_app:
                    data = self._tamper_records(data, direction, 13)
                if (direction, idx) in self.drop:
                    self.stats["dropped"] += 1
                    continue
                if (direction, idx) in self.reorder:
                    self._held[direction] = (data, send)
                    self.stats["reordered"] += 1
                    continue
                self._send(send, data)
                if (direction, idx) in self.duplicate:
                    self._send(send, data)
                    self.stats["duplicated"] += 1
                if self._held[direction] is not None:
                    held, hsend = self._held[direction]
                    self._held[direction] = None
                    self._send(hsend, held)
        back.close()

    @staticmethod
    def _send(send, data):
        try:
            send(data)
        except OSError:
            pass

    # ---- TCP -----------------------------------------------------------------------------
    def _run_tcp(self):
        self.front.settimeout(0.1)
        conn = None
        while not self._stop and conn is None:
            try:
                conn, _ = self.front.accept()
            except socket.timeout:
                continue
            except OSError:
                return
        if conn is None:
            return
        back = socket.create_connection(self.server)
        peers = {conn: (back, UP), back: (conn, DOWN)}
        open_ = {conn, back}
        while not self._stop and open_:
            ready, _, _ = select.select(list(open_), [], [], 0.05)
            for s in ready:
                other, direction = peers[s]
                try:
                    data = s.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    open_.discard(s)
                    try:
                        other.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    continue
                self.stats[direction] += 1
                if self.tamper_app:
                    data = self._stream(data, direction)
                try:
                    other.sendall(data)
                except OSError:
                    open_.discard(s)
        conn.close()
        back.close()

    def _stream(self, data, direction):
        """Passes on whole TLS records only (so a record can be tampered with as a unit)."""
        buf = self._stream_buf[direction] + data
        pos = 0
        while pos + 5 <= len(buf) and pos + 5 + int.from_bytes(buf[pos + 3:pos + 5], "big") <= len(buf):
            pos += 5 + int.from_bytes(buf[pos + 3:pos + 5], "big")
        self._stream_buf[direction] = buf[pos:]
        return self._tamper_records(buf[:pos], direction, 5)

    def close(self):
        self._stop = True
        self._thread.join(timeout=2)
        self.front.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
