"""A DTLS 1.2 client whose handshake is the ctrl engine's, on its Python model: HANDSHAKE starts it,
HS_RECORD takes each of the server's records and answers with the datagram to send (the programs in
rtl/ctrl/programs/record.s). Around them, this file does what the HW-mode firmware does, written
from the RFCs for the tests: it carries datagrams between a UDP socket and the window, splits a
datagram into its records (RFC 6347 4.1), runs the retransmission timer (HS_RESEND when it runs out),
and seals and opens the epoch-1 records with
AES-128-CCM_8 (RFC 6655, RFC 7251) under the keys KEYS put in the model's AES slots (on the engine:
SEAL and OPEN with those slots). Every handshake message, its framing into records, the reassembly
of the server's, the transcript, the keys and both Finished are the controller's."""
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
SLOT_C, SLOT_S = 0, 1
ST_CCS, ST_FIN, ST_DONE, ST_FAILED = 5, 6, 7, 8


class HandshakeError(Exception):
    """The controller refused the server's record (its status: the alert the client would send), or
    the server sent an alert."""

    def __init__(self, where, status):
        super().__init__(f"{where}: {status}")
        self.status = status


class CtrlDtlsClient:
    def __init__(self, sock, peer, anchors, now, name, chain=b"", key=None, cache=0, machine=None,
                 buffer=0x300):
        """anchors and chain: certificate_list entries (DER after 3-byte lengths); now: 14 digits; key:
        the client's private scalar (32 bytes), provisioned into CK_AT; cache: 1 for cached-
        certificate mode; machine: the model of an earlier connection (its DRBG and cache go on);
        buffer: the reassembly buffer's bytes."""
        self.sock, self.peer = sock, peer
        self.m = machine
        if machine is None:
            self.m = model.Machine()
            self.m.load(self.equ("ENT_AT"), os.urandom(48))
            self.run("DRBG_SEED", {1: 48, 2: 0, 3: 0, 4: 0})
        if key is not None:
            self.m.load(self.equ("CK_AT"), key)
        self.regs, self.rec_in = layout(self.m, anchors, now, name, chain, 1 | (cache << 1), buffer)
        self.seq1 = 0                    # the next sequence number of our epoch-1 records
        self.drop = lambda datagram: False
        self.sent_flights = 0

    def equ(self, name):
        return self.m.asm.equ[name]

    def run(self, prog, regs):
        st = self.m.run(prog, regs)
        if st != "OK":
            raise HandshakeError(prog, st)

    def state(self):
        return self.m.mem[self.equ("HS_AT") + self.equ("HS_ST")]

    # ---- epoch 1: the AES IP's SEAL and OPEN, with the slots' keys --------------------------------
    def ivs(self):
        at = self.equ("HS_AT") + self.equ("HS_IV")
        return bytes(self.m.mem[at:at + 4]), bytes(self.m.mem[at + 4:at + 8])

    def seal(self, ctype, plain):
        """A record of epoch 1: nonce = client_write_IV || explicit (epoch || seq), the additional data
        RFC 5246 6.2.3.3's with RFC 6347's epoch and sequence number."""
        explicit = struct.pack(">H", 1) + self.seq1.to_bytes(6, "big")
        self.seq1 += 1
        aad = explicit + bytes([ctype]) + DTLS12 + struct.pack(">H", len(plain))
        body = explicit + AESCCM(self.m.aes[SLOT_C], tag_length=8).encrypt(self.ivs()[0] + explicit, plain, aad)
        return bytes([ctype]) + DTLS12 + explicit + struct.pack(">H", len(body)) + body

    def open(self, ctype, epoch, seq, body):
        explicit, ct = body[:8], body[8:]
        aad = struct.pack(">H", epoch) + seq.to_bytes(6, "big") + bytes([ctype]) + DTLS12 + \
            struct.pack(">H", len(ct) - 8)
        return AESCCM(self.m.aes[SLOT_S], tag_length=8).decrypt(self.ivs()[1] + explicit, ct, aad)

    # ---- datagrams ---------------------------------------------------------------------------
    def send(self, data):
        if any(t == CT_CCS for t, _, _, _ in records(data)):
            self.sent_flights += 1
        if not self.drop(data):
            self.sock.sendto(data, self.peer)

    def receive(self):
        """The records of the next datagram: (type, epoch, seq, contents), epoch 1 opened once the
        keys are in the slots (before, left as they came)."""
        data, _ = self.sock.recvfrom(65536)
        return [(ctype, epoch, seq, self.open(ctype, epoch, seq, body) if epoch == 1 and SLOT_S in self.m.aes else body)
                for ctype, epoch, seq, body in records(data)]

    def answer(self):
        """The datagram HANDSHAKE or HS_RECORD left, if any; after the flight, with the client's
        Finished sealed in epoch 1 at its end."""
        out = self.m.out.get("MESSAGE", b"")
        if not out:
            return
        if self.state() in (ST_CCS, ST_FIN):              # the flight, first or again
            at = self.equ("HS_AT") + self.equ("HS_FIN")
            out += self.seal(CT_HANDSHAKE, bytes(self.m.mem[at:at + 24]))
        self.send(out)

    def handshake(self, timer=1.0, tries=6, drop=lambda datagram: False):
        """The whole handshake: HANDSHAKE, then each record through HS_RECORD, each answer sent (but
        those `drop` loses); when the timer runs out, HS_RESEND (RFC 6347 4.2.4, doubled each time)."""
        self.drop = drop
        self.run("HANDSHAKE", self.regs)
        self.answer()
        wait = timer
        while self.state() != ST_DONE:
            self.sock.settimeout(wait)
            try:
                got = self.receive()
            except socket.timeout:
                tries -= 1
                if tries == 0:
                    raise
                wait *= 2
                self.run("HS_RESEND", {})
                self.answer()
                continue
            for ctype, epoch, _, body in got:
                if ctype == CT_ALERT:
                    raise HandshakeError("server", f"alert {body.hex()}")
                if ctype not in (CT_HANDSHAKE, CT_CCS):
                    continue
                self.m.load(self.rec_in, body)
                self.run("HS_RECORD", {1: self.rec_in, 2: self.rec_in + len(body), 3: ctype, 4: epoch})
                self.answer()
        self.sock.settimeout(20)

    def flights(self):
        """How many datagrams carried the client's flight (ChangeCipherSpec in them) so far."""
        return self.sent_flights

    def send_data(self, data):
        self.send(self.seal(CT_APP, data))

    def close(self):
        self.send(self.seal(CT_ALERT, b"\x01\x00"))   # close_notify

    def cookies(self):
        """Whether a HelloVerifyRequest was answered: the cookie the second ClientHello carried."""
        return self.m.mem[self.equ("HS_AT") + self.equ("HS_CLEN")]


def layout(m, anchors, now, name, chain, flags, buffer):
    """HANDSHAKE's inputs laid out in the window below CHAIN_TOP: anchors, now, name, chain, the
    reassembly buffer, one record in (up to 1,536 bytes), the datagram out (kept there for a
    resend). Returns (HANDSHAKE's registers, where a record goes)."""
    at, regs = 0, {}
    for r, data in ((1, anchors), (3, now), (4, name), (7, chain)):
        m.load(at, data)
        regs[r] = at
        at += len(data)
        if r in (1, 4, 7):
            regs[r + 1] = at
    rec_in = at + buffer
    regs.update({6: flags, 9: SLOT_C, 10: SLOT_S, 11: at, 12: buffer, 13: rec_in + 0x600})
    return regs, rec_in


def records(datagram):
    """(type, epoch, seq, contents) of each record of a datagram."""
    out = []
    while len(datagram) >= 13:
        n = int.from_bytes(datagram[11:13], "big")
        out.append((datagram[0], int.from_bytes(datagram[3:5], "big"), int.from_bytes(datagram[5:11], "big"),
                    datagram[13:13 + n]))
        datagram = datagram[13 + n:]
    return out


def connect(port, timeout=20):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(timeout)
    return s, ("127.0.0.1", port)
