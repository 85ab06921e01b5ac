"""A lossy UDP path on loopback for the DTLS tests: a relay between one client and a server that
drops, duplicates and reorders datagrams in both directions, driven by a seeded RNG.

    relay = LossyRelay(("127.0.0.1", server_port), seed=1, drop=0.25, dup=0.1, reorder=0.1)
    ... point the client at ("127.0.0.1", relay.port) ...
    relay.wait_quiet(0.5); relay.close(); relay.stats

The client's side is whichever address sent to relay.port last. Random drops never hit more than
`max_burst` datagrams in a row in one direction (a path that loses everything tests nothing);
the datagrams numbered in `force_drop` (default: the second of each direction) are always lost,
so both sides have to retransmit whatever the seed.
late_hello sends a copy of the client's last ClientHello just before its first application record.
tamper flips a bit of that share of application records (their tag must then fail).
keep_app=True never drops DTLS application_data records (content type 23): duplication and
reordering still apply (but nothing is held back past an alert, i.e. the close_notify, after
which DTLS rightly ignores late data), so every reading must arrive exactly once.
"""
import random
import select
import socket
import threading
import time

UP, DOWN = "client->server", "server->client"


class LossyRelay:
    def __init__(self, server, seed, drop=0.25, dup=0.1, reorder=0.1, keep_app=False, max_burst=2,
                 hold_ms=30, force_drop=(1,), tamper=0.0, late_hello=False):
        self.server = server
        # one RNG per direction, so what one side sees does not depend on the other's timing
        self.rng = {UP: random.Random(f"{seed}/up"), DOWN: random.Random(f"{seed}/down")}
        self.force_drop = set(force_drop)  # datagram numbers (from 0) dropped in each direction
        self.tamper = tamper  # share of application records with one ciphertext bit flipped
        self.late_hello = late_hello  # resend the last ClientHello once application data flows
        self._hello = None
        self.drop, self.dup, self.reorder = drop, dup, reorder
        self.keep_app, self.max_burst, self.hold = keep_app, max_burst, hold_ms / 1000
        self.front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # the client talks to this
        self.front.bind(("127.0.0.1", 0))
        self.back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)   # this talks to the server
        self.back.bind(("127.0.0.1", 0))
        self.port = self.front.getsockname()[1]
        self.client = None
        self.stats = {d: {"in": 0, "out": 0, "dropped": 0, "duplicated": 0, "reordered": 0,
                          "dup_app": 0, "tampered": []} for d in (UP, DOWN)}
        self._burst = {UP: 0, DOWN: 0}
        self._held = {UP: None, DOWN: None}  # (datagram, release time) waiting to go out late
        self.last_activity = time.monotonic()
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    # ---- the path ---------------------------------------------------------------------------
    def _send(self, direction, data):
        if direction == UP:
            self.back.sendto(data, self.server)
        elif self.client is not None:
            self.front.sendto(data, self.client)
        self.stats[direction]["out"] += 1

    def _release(self, direction):
        held = self._held[direction]
        if held is not None:
            self._held[direction] = None
            self._send(direction, held[0])

    def _forward(self, direction, data):
        st = self.stats[direction]
        rng = self.rng[direction]
        forced = st["in"] in self.force_drop
        st["in"] += 1
        self.last_activity = time.monotonic()
        app = len(data) >= 13 and data[0] == 23
        if direction == UP and len(data) > 13 and data[0] == 22 and data[3:5] == b"\0\0" and data[13] == 1:
            self._hello = data
        if direction == UP and app and self.late_hello and self._hello is not None:
            self._send(UP, self._hello)  # a very late copy of the ClientHello
            self._hello = None
        if self.keep_app and len(data) >= 13 and data[0] == 21:
            self._release(direction)  # data held back must not land after the close_notify
        lose = rng.random() < self.drop and self._burst[direction] < self.max_burst
        if (lose or forced) and not (self.keep_app and app):
            self._burst[direction] += 1
            st["dropped"] += 1
            return
        self._burst[direction] = 0
        if app and self.tamper and rng.random() < self.tamper:
            st["tampered"].append(data)  # kept, so a test can tell which reading it was
            data = data[:-1] + bytes([data[-1] ^ 0x01])
        copies = 1
        if rng.random() < self.dup:
            copies = 2
            st["duplicated"] += 1
            st["dup_app"] += app
        if self._held[direction] is None and rng.random() < self.reorder:
            # held back: goes out after the next datagram of this direction (or hold_ms)
            st["reordered"] += 1
            self._held[direction] = (data, time.monotonic() + self.hold)
            copies -= 1
        for _ in range(copies):
            self._send(direction, data)
        if self._held[direction] is not None and self._held[direction][0] is not data:
            self._release(direction)

    def _run(self):
        while not self._stop:
            ready, _, _ = select.select([self.front, self.back], [], [], 0.01)
            for sock in ready:
                try:
                    data, addr = sock.recvfrom(65536)
                except OSError:
                    continue
                if sock is self.front:
                    self.client = addr
                    self._forward(UP, data)
                else:
                    self._forward(DOWN, data)
            now = time.monotonic()
            for d in (UP, DOWN):
                if self._held[d] is not None and self._held[d][1] <= now:
                    self._release(d)

    # ---- control ----------------------------------------------------------------------------
    def wait_quiet(self, quiet=0.5, timeout=30):
        """Waits until nothing passed for `quiet` seconds (held datagrams are out by then)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if time.monotonic() - self.last_activity >= quiet:
                return True
            time.sleep(0.05)
        return False

    def close(self):
        self._stop = True
        self._thread.join(timeout=5)
        self.front.close()
        self.back.close()
