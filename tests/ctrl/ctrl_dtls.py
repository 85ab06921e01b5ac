"""A DTLS 1.2 client whose handshake is the ctrl engine's programs, run on its Python model: the
record layer around them (RFC 6347 4.1), which the HW-mode firmware and the controller will take
over, written here from the RFCs for the tests.

The test side does only what the engine does not do yet: it frames and unframes records, reassembles
the server's handshake fragments (RFC 6347 4.2.3), hands each whole message to the program for it
(with its header into the transcript first, as RFC 6347 4.2.6 hashes it), and protects the epoch-1
records with AES-128-CCM_8 (RFC 6655, RFC 7251) under the keys KEYS put in the model's AES slots.
Every handshake message the client sends, every check of the server's, the transcript, the keys and
both Finished are the programs'."""
import os
import socket
import struct
import sys

from cryptography.hazmat.primitives.ciphers.aead import AESCCM

from se_cli import ROOT

sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_model as model  # noqa: E402

DTLS12 = b"\xfe\xfd"
CT_CCS, CT_ALERT, CT_HANDSHAKE, CT_APP = 20, 21, 22, 23
PROGRAM = {3: "HELLO_VERIFY", 2: "SERVER_HELLO", 11: "CERTIFICATE", 12: "SERVER_KEY_EXCHANGE",
           13: "CERTIFICATE_REQUEST", 14: "SERVER_HELLO_DONE"}
SLOT_C, SLOT_S = 0, 1
# where things lie in the window (below CHAIN_TOP): a message in, the anchors, now and the name after it,
# the client's chain, the flight out
IN, CHAIN, OUT = 0x0000, 0x0400, 0x0600


class HandshakeError(Exception):
    """A program refused the server's message: its status (the alert the client would send)."""

    def __init__(self, program, status):
        super().__init__(f"{program}: {status}")
        self.status = status


class CtrlDtlsClient:
    def __init__(self, sock, peer, anchors, now, name, chain=b"", key=None, cache=0, machine=None):
        """anchors and chain: certificate_list entries (DER with 3-byte lengths); now: 14 digits; key:
        the client's private scalar (32 bytes), provisioned into CK_AT; cache: 1 for cached-
        certificate mode; machine: the model of an earlier connection (its DRBG and cache go on)."""
        self.sock, self.peer = sock, peer
        self.anchors, self.now, self.name, self.chain, self.cache = anchors, now, name, chain, cache
        self.m = machine
        if machine is None:
            self.m = model.Machine()
            self.m.load(self.m.asm.equ["ENT_AT"], os.urandom(48))
            self.run("DRBG_SEED", {1: 48, 2: OUT, 3: OUT, 4: 0})
        if key is not None:
            self.m.load(self.m.asm.equ["CK_AT"], key)
        self.seq = {0: 0, 1: 0}          # the next record sequence number of each epoch we write
        self.next_in = 0                 # the server's next message_seq
        self.frags = {}                  # message_seq -> (type, length, {offset: bytes})
        self.cookies = 0                 # HelloVerifyRequests answered

    # ---- the programs --------------------------------------------------------------------------
    def run(self, prog, regs):
        st = self.m.run(prog, regs)
        if st != "OK":
            raise HandshakeError(prog, st)
        return st

    def equ(self, name):
        return self.m.asm.equ[name]

    # ---- records -------------------------------------------------------------------------------
    def record(self, ctype, epoch, payload):
        seq = self.seq[epoch]
        self.seq[epoch] += 1
        if epoch == 1:
            payload = self.seal(ctype, seq, payload)
        return bytes([ctype]) + DTLS12 + struct.pack(">H", epoch) + seq.to_bytes(6, "big") + \
            struct.pack(">H", len(payload)) + payload

    def ivs(self):
        at = self.equ("HS_AT") + self.equ("HS_IV")
        return bytes(self.m.mem[at:at + 4]), bytes(self.m.mem[at + 4:at + 8])

    def seal(self, ctype, seq, plain):
        """RFC 6655 3: nonce = client_write_IV || explicit (epoch || seq), the additional data RFC
        5246 6.2.3.3's with RFC 6347's 8-byte epoch || sequence number."""
        explicit = struct.pack(">H", 1) + seq.to_bytes(6, "big")
        aad = explicit + bytes([ctype]) + DTLS12 + struct.pack(">H", len(plain))
        return explicit + AESCCM(self.m.aes[SLOT_C], tag_length=8).encrypt(self.ivs()[0] + explicit, plain, aad)

    def open(self, ctype, epoch, seq, body):
        explicit, ct = body[:8], body[8:]
        aad = struct.pack(">H", epoch) + seq.to_bytes(6, "big") + bytes([ctype]) + DTLS12 + \
            struct.pack(">H", len(ct) - 8)
        return AESCCM(self.m.aes[SLOT_S], tag_length=8).decrypt(self.ivs()[1] + explicit, ct, aad)

    def send(self, records):
        self.sock.sendto(b"".join(records), self.peer)

    def receive(self):
        """The records of the next datagram: (type, epoch, seq, payload), epoch 1 opened."""
        data, _ = self.sock.recvfrom(65536)
        out = []
        while data:
            ctype, epoch, seq, n = data[0], int.from_bytes(data[3:5], "big"), int.from_bytes(data[5:11], "big"), \
                int.from_bytes(data[11:13], "big")
            body, data = data[13:13 + n], data[13 + n:]
            if epoch == 1:
                body = self.open(ctype, epoch, seq, body)
            out.append((ctype, epoch, seq, body))
        return out

    # ---- handshake messages --------------------------------------------------------------------
    def messages(self, payload):
        """Whole messages from a handshake record's fragments, in message_seq order: (type, the
        message with its header as one fragment, the body)."""
        done = []
        while payload:
            mtype, n, mseq, off, flen = payload[0], int.from_bytes(payload[1:4], "big"), \
                int.from_bytes(payload[4:6], "big"), int.from_bytes(payload[6:9], "big"), \
                int.from_bytes(payload[9:12], "big")
            frag, payload = payload[12:12 + flen], payload[12 + flen:]
            if mseq < self.next_in:
                continue                          # a retransmission
            self.frags.setdefault(mseq, (mtype, n, {}))[2][off] = frag
        while self.next_in in self.frags:
            mtype, n, parts = self.frags[self.next_in]
            body, at = b"", 0
            while at in parts and at < n:
                body += parts[at]
                at = len(body)
            if len(body) < n:
                break
            body = body[:n]
            header = bytes([mtype]) + n.to_bytes(3, "big") + self.next_in.to_bytes(2, "big") + bytes(3) + \
                n.to_bytes(3, "big")
            done.append((mtype, header + body, body))
            del self.frags[self.next_in]
            self.next_in += 1
        return done

    def take(self, mtype, whole, body):
        """One server message: into the transcript (but HelloVerifyRequest), then its program."""
        prog = PROGRAM.get(mtype)
        if prog is None:
            raise HandshakeError(f"message type {mtype}", "UNEXPECTED_MESSAGE")
        if mtype != 3:
            self.m.load(IN, whole)
            self.run("TS_ADD", {1: IN, 2: IN + len(whole)})
        self.m.load(IN, body)
        regs = {1: IN, 2: IN + len(body)}
        if prog == "CERTIFICATE":
            at = IN + len(body)
            tail = self.anchors + self.now + self.name
            self.m.load(at, tail)
            a_end = at + len(self.anchors)
            regs.update({3: at, 4: a_end, 5: a_end, 6: a_end + 14, 7: a_end + 14 + len(self.name), 8: 1,
                         9: self.cache})
        self.run(prog, regs)

    def hello(self, second):
        self.run("CLIENT_HELLO", {1: OUT, 2: int(second)})
        self.send([self.record(CT_HANDSHAKE, 0, self.m.out["MESSAGE"])])

    def handshake(self):
        """The whole client handshake; returns the server's records after its Finished, if any."""
        self.hello(False)
        done = False
        while not done:
            for ctype, epoch, _, payload in self.receive():
                if ctype == CT_ALERT:
                    raise HandshakeError("server", f"alert {payload.hex()}")
                assert ctype == CT_HANDSHAKE and epoch == 0, (ctype, epoch)
                for mtype, whole, body in self.messages(payload):
                    self.take(mtype, whole, body)
                    if mtype == 3:                       # a cookie: the second ClientHello, anew
                        self.cookies += 1
                        self.next_in = 1
                        self.frags.clear()
                        self.hello(True)
                    done = mtype == 14
        self.m.load(CHAIN, self.chain)
        self.run("CLIENT_FLIGHT", {1: OUT, 2: CHAIN, 3: CHAIN + len(self.chain), 4: SLOT_C, 5: SLOT_S})
        flight = self.m.out["MESSAGE"]
        records = [self.record(CT_HANDSHAKE, 0, flight[:-24]), self.record(CT_CCS, 0, b"\x01"),
                   self.record(CT_HANDSHAKE, 1, flight[-24:])]
        self.send(records)
        # the server's ChangeCipherSpec and Finished
        got_ccs = False
        while True:
            for ctype, epoch, _, payload in self.receive():
                if ctype == CT_ALERT:
                    raise HandshakeError("server", f"alert {payload.hex()}")
                if ctype == CT_CCS:
                    got_ccs = True
                    continue
                assert got_ccs and epoch == 1 and ctype == CT_HANDSHAKE and payload[0] == 20, (ctype, epoch)
                assert len(payload) == 24 and int.from_bytes(payload[4:6], "big") == self.next_in
                dig = OUT + 0x100
                self.run("TS_HASH", {1: dig})
                self.m.load(dig + 32, payload[12:])
                self.run("FINISHED", {1: dig, 2: 1, 3: dig + 32})
                return

    def send_data(self, data):
        self.send([self.record(CT_APP, 1, data)])

    def close(self):
        self.send([self.record(CT_ALERT, 1, b"\x01\x00")])   # close_notify


def connect(port, timeout=20):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(timeout)
    return s, ("127.0.0.1", port)
