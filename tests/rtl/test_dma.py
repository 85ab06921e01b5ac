"""The engine's DMA (rtl/dma): descriptor chains in RAM through the AES and SHA engines, on a bus it
shares with a CPU through the SoC's arbiter (tests/rtl/tb/dma_tb.sv). The memory model answering
that bus stalls at random and can err at chosen addresses; a "CPU" master writes and reads back its
own words on the same bus meanwhile. Results are checked against the `cryptography` package and
hashlib; every access the DMA makes must fall in the RAM window its registers report.

Checked: AES in ECB, CBC, CTR, CBC-MAC, GCM and CCM (both directions) and SHA-256/HMAC, chained, at
every byte offset; every
descriptor error (BAD_OP, BAD_ADDR, BAD_LEN, OVERLAP), a bus error mid-transfer, a failing tag (no
plaintext reaches RAM), ABORT, START while busy; the engine answers normally after each."""
import hashlib
import hmac
import json
import os
import pathlib
import struct

import cocotb
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESGCM

from rtlsim import WbMaster, memmap, run_cocotb, sources
from ossl import Curve
from test_engine_wb import AES, GF2M, PK, SHA, TB, A, Ctrl, G, P, S, ctrl_isa, field, get, regmap, seed_of

DMA = memmap("rtl/engine/memmap.toml")["dma"][0]
D = regmap("dma")
# The descriptor's ops and flags (rtl/dma/README.md, dma_core.sv's header)
AES_AAD, AES_DATA, AES_FINAL, SHA_OP, SEAL, OPEN, SEAL_CBC, OPEN_CBC = 1, 2, 3, 4, 5, 6, 9, 10
SHA_INIT, SHA_FINAL, SHA_KEY, SHA_RESUME = 1 << 8, 1 << 9, 1 << 10, 1 << 11
SHA256_IV = (0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19)
REC_TLS, REC_CCM, REC_TAG8 = 1 << 6, 1 << 7, 1 << 8   # SEAL/OPEN flags; the key slot in [5:4]
PK_OP, PK_READ = 7, 1 << 13                           # PK: the slot in [12:8]
GF_OP, GF_READ = 8, 1 << 10                           # GF2M: REG in [9:8] (K, PX, PY; RX, RY)
DTLS12, TLS12 = 0xFEFD, 0x0303
RESULT = D["STATUS"][1]["RESULT"][2]   # the enum: {name: value}


class Ram:
    """The shared bus's memory: one response per request after 0..n stall cycles drawn from
    `stall`, err at the word addresses in `err_at`, and a log of every address outside the window."""

    def __init__(self, dut, rng, base, size, stall=(0,)):
        self.dut, self.rng, self.base, self.size, self.stall = dut, rng, base, size, stall
        self.mem = bytearray(rng.randbytes(size))
        self.err_at, self.outside = set(), []

    def load(self, addr, data):
        self.mem[addr - self.base:addr - self.base + len(data)] = data

    def read(self, addr, n):
        return bytes(self.mem[addr - self.base:addr - self.base + n])

    async def run(self):
        """Like the node's RAM (rtl/soc/soc_ram.sv) with no stall: a request seen in one cycle is
        answered in the next, and the request still held in that response cycle is not a new one."""
        d = self.dut
        pending, wait, resp = None, 0, False
        while True:
            await RisingEdge(d.clk_i)
            resp_now = False
            if pending is not None and wait == 0:
                adr, we, dat, sel = pending
                off = adr - self.base
                err = (adr & ~3) in self.err_at or not 0 <= off < self.size
                if not 0 <= off < self.size:
                    self.outside.append(adr)
                rdata = 0
                if not err:
                    for lane in range(4):
                        if we and sel >> lane & 1:
                            self.mem[(off & ~3) + lane] = dat >> (8 * lane) & 0xFF
                    rdata = int.from_bytes(self.mem[off & ~3:(off & ~3) + 4], "little")
                d.ram_ack_i.value, d.ram_err_i.value, d.ram_dat_i.value = int(not err), int(err), 0 if we else rdata
                pending, resp_now = None, True
            elif resp:
                d.ram_ack_i.value, d.ram_err_i.value, d.ram_dat_i.value = 0, 0, 0
            resp = resp_now
            await ReadOnly()
            if pending is not None:
                wait -= 1
            elif not resp and d.ram_cyc_o.value and d.ram_stb_o.value:
                pending = (int(d.ram_adr_o.value), int(d.ram_we_o.value), int(d.ram_dat_o.value),
                           int(d.ram_sel_o.value))
                wait = self.rng.choice(self.stall)


class Cpu:
    """The other master: writes random words to its own area and reads them back, until stopped."""

    def __init__(self, dut, rng, area):
        # (it waits for the bus while the DMA holds it: one block, 16 words with stalls at most)
        self.bus = WbMaster(dut, rng, idle=(0, 1, 2, 5), prefix="cpu", timeout=200)
        self.rng, self.area, self.running, self.accesses = rng, area, True, 0

    async def run(self):
        await self.bus.reset()
        while self.running:
            adr = self.area + 4 * self.rng.randrange(64)
            v = self.rng.getrandbits(32)
            _, err = await self.bus.access(adr, True, v)
            got, err2 = await self.bus.access(adr, False)
            assert not err and not err2 and got == v, f"CPU traffic at {adr:#x}: {got:#x} != {v:#x}"
            self.accesses += 2


class Bench(TB):
    async def start(self, stall=(0, 0, 1, 3), cpu=True):
        d = self.dut
        d.ram_ack_i.value, d.ram_err_i.value, d.ram_dat_i.value = 0, 0, 0
        d.cpu_cyc_i.value, d.cpu_stb_i.value = 0, 0
        await self.reset()
        base = await self.read(DMA + D["RAM_BASE"][0])
        size = await self.read(DMA + D["RAM_SIZE"][0])
        self.ram = Ram(d, self.rng, base, size, stall)
        cocotb.start_soon(self.ram.run())
        # the CPU's area at the top; descriptors, sources and destinations below it
        self.cpu = Cpu(d, self.rng, base + size - 256)
        if cpu:
            cocotb.start_soon(self.cpu.run())
        self.heap = base + 0x100
        return base, size

    def alloc(self, n):
        a = self.heap
        self.heap += (n + 15) & ~15
        return a

    def put(self, data, off=0):
        """data into RAM at a fresh address + off (0..3: not word-aligned)."""
        a = self.alloc(max(len(data), 4) + 4) + off
        self.ram.load(a, data)
        return a

    def chain(self, *descs):
        """Descriptors into RAM, linked in order; the first one's address. Each is (op, src, dst, len),
        or for SEAL and OPEN (op, src, dst, len, seq_num, type, version, salt)."""
        addrs = [self.alloc(36) for _ in descs]
        for i, (ctrl, src, dst, n, *rec) in enumerate(descs):
            nxt = addrs[i + 1] if i + 1 < len(descs) else 0
            self.ram.load(addrs[i], struct.pack("<5I", ctrl, src, dst, n, nxt))
            if rec:
                sn, typ, ver, salt = rec
                self.ram.load(addrs[i] + 20, struct.pack("<3I", sn >> 32, sn & 0xFFFFFFFF, typ | ver << 8) + salt)
        return addrs[0]

    async def slot_load(self, idx, key):
        """key into AES key slot idx (SLOT_CMD LOAD)."""
        for i in range(8):
            await self.write(AES + A["KEY"][0] + 4 * i, int.from_bytes(key[4 * i:4 * i + 4].ljust(4, b"\0"), "big"))
        await self.write(AES + A["CTRL"][0], field(A, "CTRL", "KEYLEN", {16: 0, 24: 1, 32: 2}[len(key)]))
        await self.write(AES + A["SLOT_CMD"][0], field(A, "SLOT_CMD", "OP", "LOAD") | field(A, "SLOT_CMD", "IDX", idx))

    async def begin(self, first):
        """Starts the chain at `first` (CMD START)."""
        await self.write(DMA + D["DESC"][0], first)
        await self.write(DMA + D["CMD"][0], field(D, "CMD", "OP", "START"))

    async def run(self, first, limit=20000):
        """Runs the chain at `first`: (RESULT name, IP_RESULT, CUR_DESC)."""
        await self.begin(first)
        return await self.end(limit)

    async def end(self, limit=20000):
        """Waits for the running chain to end: (RESULT name, IP_RESULT, CUR_DESC)."""
        for _ in range(limit):
            st = await self.read(DMA + D["STATUS"][0])
            if not get(D, "STATUS", "BUSY", st):
                name = {v: k for k, v in RESULT.items()}[get(D, "STATUS", "RESULT", st)]
                return name, get(D, "STATUS", "IP_RESULT", st), await self.read(DMA + D["CUR_DESC"][0])
        raise AssertionError("the DMA never finished")

    async def timed(self, first):
        """Runs the chain at `first` (with INTR_ENABLE set): the cycles from CMD START to the
        interrupt, which it then clears."""
        await self.begin(first)
        n = 0
        while not self.dut.irq_o.value:
            await RisingEdge(self.dut.clk_i)
            n += 1
            assert n < 100000
        await self.write(DMA + D["INTR_STATE"][0], 0b11)
        return n

    async def abort(self):
        """CMD ABORT on a running chain: it ends within 100 register reads, RESULT ABORTED."""
        await self.write(DMA + D["CMD"][0], field(D, "CMD", "OP", "ABORT"))
        for _ in range(100):
            st = await self.read(DMA + D["STATUS"][0])
            if not get(D, "STATUS", "BUSY", st):
                break
        assert get(D, "STATUS", "RESULT", st) == RESULT["ABORTED"]

    async def ok(self, first):
        res = await self.run(first)
        assert res[0] == "OK", res
        return res

    async def tag_in(self, tag):
        for i in range(4):
            await self.write(AES + A["TAG_IN"][0] + 4 * i, int.from_bytes(tag.ljust(16, b"\0")[4 * i:4 * i + 4], "big"))

    def check_window(self):
        assert not self.ram.outside, f"accesses outside the RAM window: {[hex(a) for a in self.ram.outside]}"


def record(key, salt, sn, typ, ver, pt, tls=False, ccm=False, tag_len=16):
    """A protected TLS 1.2 / DTLS 1.2 AEAD record as RFC 5246 6.2.3.3 builds it, with the nonce of RFC
    5288 and RFC 6655 (salt || explicit nonce, which is the seq_num), sealed by `cryptography`: the
    header (DTLS: type, version, epoch and sequence number, length; TLS without the 8-byte seq_num),
    then the explicit nonce, the ciphertext and the tag."""
    expl = sn.to_bytes(8, "big")
    aad = expl + bytes([typ]) + ver.to_bytes(2, "big") + len(pt).to_bytes(2, "big")
    if ccm:
        sealed = AESCCM(key, tag_length=tag_len).encrypt(salt + expl, pt, aad)
    else:
        sealed = AESGCM(key).encrypt(salt + expl, pt, aad)[:len(pt) + tag_len]  # a short GCM tag: a prefix
    body = expl + sealed
    return bytes([typ]) + ver.to_bytes(2, "big") + (b"" if tls else expl) + len(body).to_bytes(2, "big") + body


def ccm_header(nonce, aad, n, tag_len):
    """B0 and the length-prefixed AAD in whole blocks (SP 800-38C A.2), as the driver sends them."""
    q = 15 - len(nonce)
    b0 = bytes([(0x40 if aad else 0) | ((tag_len - 2) // 2) << 3 | (q - 1)]) + nonce + n.to_bytes(q, "big")
    a = (len(aad).to_bytes(2, "big") + aad) if aad else b""
    return b0 + a + bytes(-len(a) % 16)


@cocotb.test()
async def aes_and_sha_chains(dut):
    tb = Bench(dut, seed_of() + 101)
    await tb.start()
    rng = tb.rng
    # ECB, CBC, CTR: one AES_DATA each, partial last block for CTR, in place for CBC decryption
    for mode, n in (("ECB", 64), ("CBC", 160), ("CTR", 1000)):
        key, iv, pt = rng.randbytes(16), rng.randbytes(16), rng.randbytes(n)
        assert await tb.aes_setup(mode, key, iv) == 0
        src, dst = tb.put(pt), tb.alloc(n)
        await tb.ok(tb.chain((AES_DATA, src, dst, n)))
        m = {"ECB": modes.ECB(), "CBC": modes.CBC(iv), "CTR": modes.CTR(iv)}[mode]
        enc = Cipher(algorithms.AES(key), m).encryptor()
        ct = enc.update(pt) + enc.finalize()
        assert tb.ram.read(dst, n) == ct, mode
        if mode == "CBC":
            assert await tb.aes_setup(mode, key, iv, dec=1) == 0
            await tb.ok(tb.chain((AES_DATA, dst, dst, n)))
            assert tb.ram.read(dst, n) == pt, "CBC decryption in place"
    # CBC-MAC: DATA gives no output block, FINAL the MAC
    key, msg = rng.randbytes(16), rng.randbytes(96)
    assert await tb.aes_setup("CBC_MAC", key, tag_len=16) == 0
    mac = tb.alloc(16)
    await tb.ok(tb.chain((AES_DATA, tb.put(msg), 0, 96), (AES_FINAL, 0, mac, 16)))
    enc = Cipher(algorithms.AES(key), modes.CBC(bytes(16))).encryptor()
    assert tb.ram.read(mac, 16) == (enc.update(msg) + enc.finalize())[-16:], "CBC-MAC"
    # GCM both ways: AAD, DATA, FINAL (the tag out; the checked plaintext out)
    for n, an in ((37, 20), (1024, 13)):
        key, nonce, aad, pt = rng.randbytes(16), rng.randbytes(12), rng.randbytes(an), rng.randbytes(n)
        want = AESGCM(key).encrypt(nonce, pt, aad)
        assert await tb.aes_setup("GCM", key, nonce + b"\0\0\0\1", tag_len=16) == 0
        a, src, dst, tag = tb.put(aad), tb.put(pt), tb.alloc(n), tb.alloc(16)
        await tb.ok(tb.chain((AES_AAD, a, 0, an), (AES_DATA, src, dst, n), (AES_FINAL, 0, tag, 16)))
        assert tb.ram.read(dst, n) + tb.ram.read(tag, 16) == want, f"GCM encryption of {n}"
        assert await tb.aes_setup("GCM", key, nonce + b"\0\0\0\1", dec=1, tag_len=16) == 0
        await tb.tag_in(want[n:])
        src, out = tb.put(want[:n]), tb.alloc(n)
        await tb.ok(tb.chain((AES_AAD, a, 0, an), (AES_DATA, src, 0, n), (AES_FINAL, 0, out, n)))
        assert tb.ram.read(out, n) == pt, f"GCM decryption of {n}"
    # CCM_8 both ways (the DTLS suites' mode): B0 and the AAD as AAD blocks
    key, nonce, aad, pt = rng.randbytes(16), rng.randbytes(12), rng.randbytes(13), rng.randbytes(300)
    want = AESCCM(key, tag_length=8).encrypt(nonce, pt, aad)
    a0 = bytes([14 - len(nonce)]) + nonce + bytes(16 - 1 - len(nonce))
    hdr = tb.put(ccm_header(nonce, aad, len(pt), 8))
    assert await tb.aes_setup("CCM", key, a0, tag_len=8) == 0
    src, dst, tag = tb.put(pt), tb.alloc(len(pt)), tb.alloc(16)
    await tb.ok(tb.chain((AES_AAD, hdr, 0, 32), (AES_DATA, src, dst, len(pt)), (AES_FINAL, 0, tag, 8)))
    assert tb.ram.read(dst, len(pt)) + tb.ram.read(tag, 8) == want, "CCM_8 encryption"
    assert await tb.aes_setup("CCM", key, a0, dec=1, tag_len=8) == 0
    await tb.tag_in(want[-8:])
    src, out = tb.put(want[:-8]), tb.alloc(len(pt))
    await tb.ok(tb.chain((AES_AAD, hdr, 0, 32), (AES_DATA, src, 0, len(pt)), (AES_FINAL, 0, out, len(pt))))
    assert tb.ram.read(out, len(pt)) == pt, "CCM_8 decryption"
    # byte addresses: a DTLS record's layout (13-byte header, 8-byte explicit nonce) in a word-aligned
    # buffer puts AAD, plaintext, ciphertext and tag at every offset within a word
    for off_in, off_out in ((1, 3), (2, 0), (3, 1)):
        key, nonce, aad, pt = rng.randbytes(16), rng.randbytes(12), rng.randbytes(13), rng.randbytes(77 + off_in)
        want = AESGCM(key).encrypt(nonce, pt, aad)
        assert await tb.aes_setup("GCM", key, nonce + b"\0\0\0\1", tag_len=16) == 0
        a, src = tb.put(aad, off_in), tb.put(pt, off_in)
        dst = tb.alloc(len(pt) + 24) + off_out
        await tb.ok(tb.chain((AES_AAD, a, 0, 13), (AES_DATA, src, dst, len(pt)), (AES_FINAL, 0, dst + len(pt), 16)))
        assert tb.ram.read(dst, len(pt) + 16) == want, f"GCM at offsets {off_in}, {off_out}"
        msg = rng.randbytes(100 + off_out)
        dig = tb.alloc(40) + off_in
        await tb.ok(tb.chain((SHA_OP | SHA_INIT | SHA_FINAL, tb.put(msg, off_out), dig, len(msg))))
        assert tb.ram.read(dig, 32) == hashlib.sha256(msg).digest(), f"SHA-256 at offsets {off_out}, {off_in}"
    # SHA-256: one descriptor, and a message split over a chain; HMAC with a held key
    for n in (0, 55, 64, 1000):
        msg, dig = rng.randbytes(n), tb.alloc(32)
        await tb.ok(tb.chain((SHA_OP | SHA_INIT | SHA_FINAL, tb.put(msg), dig, n)))
        assert tb.ram.read(dig, 32) == hashlib.sha256(msg).digest(), f"SHA-256 of {n}"
    msg, dig = rng.randbytes(300), tb.alloc(32)
    s1, s2 = tb.put(msg[:128]), tb.put(msg[128:])
    await tb.ok(tb.chain((SHA_OP | SHA_INIT, s1, 0, 128), (SHA_OP | SHA_FINAL, s2, dig, 172)))
    assert tb.ram.read(dig, 32) == hashlib.sha256(msg).digest(), "SHA-256 over two descriptors"
    # HMAC: the key by KEY (zero-padded, any length up to a block, any offset), the message, and a
    # zero key after it, in one chain
    await tb.write(SHA + S["CTRL"][0], field(S, "CTRL", "HMAC", 1))
    for klen, off in ((32, 0), (20, 3), (64, 1), (0, 0)):
        k, msg, mac = rng.randbytes(klen), rng.randbytes(200), tb.alloc(32)
        await tb.ok(tb.chain((SHA_OP | SHA_KEY, tb.put(k, off), 0, klen), (SHA_OP | SHA_INIT | SHA_FINAL, tb.put(msg), mac, 200),
                             (SHA_OP | SHA_KEY, 0, 0, 0)))
        assert tb.ram.read(mac, 32) == hmac.new(k, msg, hashlib.sha256).digest(), f"HMAC-SHA256, {klen}-byte key"
    await tb.ok(tb.chain((SHA_OP | SHA_INIT | SHA_FINAL, tb.put(msg), mac, 200)))
    assert tb.ram.read(mac, 32) == hmac.new(bytes(32), msg, hashlib.sha256).digest(), "the zero key held after"
    tb.cpu.running = False
    tb.check_window()
    assert tb.cpu.accesses > 100, "the CPU's traffic ran beside the DMA"


@cocotb.test()
async def errors_are_named(dut):
    """Every refusal: its RESULT, the descriptor it names, the ERROR interrupt; nothing written."""
    tb = Bench(dut, seed_of() + 102)
    base, size = await tb.start()
    rng = tb.rng
    await tb.write(DMA + D["INTR_ENABLE"][0], 0b11)
    key, iv = rng.randbytes(16), rng.randbytes(16)
    src, dst = tb.put(rng.randbytes(64)), tb.alloc(64)
    end = base + size
    cases = [
        ("BAD_OP", (0, src, dst, 16)), ("BAD_OP", (9, src, dst, 16)), ("BAD_OP", (AES_DATA | SHA_FINAL, src, dst, 16)),
        ("BAD_OP", (AES_DATA | 1 << 20, src, dst, 16)),
        ("BAD_LEN", (AES_DATA, src, dst, 0)), ("BAD_LEN", (AES_DATA, src, dst, size + 16)),
        ("BAD_LEN", (SHA_OP | SHA_INIT, src, 0, 65)), ("BAD_LEN", (AES_FINAL, 0, dst, 17)),
        ("BAD_LEN", (SHA_OP | SHA_KEY, src, 0, 65)), ("BAD_OP", (SHA_OP | SHA_KEY | SHA_INIT, src, 0, 16)),
        ("BAD_ADDR", (AES_DATA, base - 16, dst, 16)), ("BAD_ADDR", (AES_DATA, base - 1, dst, 16)), ("BAD_ADDR", (AES_DATA, src, end - 8, 16)),
        ("BAD_ADDR", (AES_DATA, 0x3000_0000, dst, 16)), ("BAD_ADDR", (AES_DATA, src, 0xFFFF_FFF0, 0x20)),
        ("OVERLAP", (AES_DATA, src, src + 16, 32)), ("OVERLAP", (AES_DATA, src + 16, src, 32)),
    ]
    for want, d in cases:
        assert await tb.aes_setup("ECB", key, iv) == 0
        first = tb.chain(d)
        before = tb.ram.read(base, size - 256)
        res, _, cur = await tb.run(first)
        assert (res, cur) == (want, first), f"{d}: {res} at {cur:#x}, want {want}"
        assert get(D, "INTR_STATE", "ERROR", await tb.read(DMA + D["INTR_STATE"][0])) == 1
        assert dut.irq_o.value == 1
        await tb.write(DMA + D["INTR_STATE"][0], 0b11)
        assert tb.ram.read(base, size - 256) == before, f"{d}: RAM changed"
    # a descriptor outside the window, unaligned, or chained to from a good one
    for bad in (base - 4, base + 2, end - 16, 0x3000_0000):
        res, _, cur = await tb.run(bad)
        assert (res, cur) == ("BAD_ADDR", bad)
    assert await tb.aes_setup("ECB", key, iv) == 0
    first = tb.chain((AES_DATA, src, dst, 16))
    tb.ram.load(first + 16, struct.pack("<I", end - 8))
    res, _, cur = await tb.run(first)
    assert (res, cur) == ("BAD_ADDR", end - 8)
    # a bus error in the middle of a transfer; the chain stops there
    assert await tb.aes_setup("ECB", key, iv) == 0
    tb.ram.err_at.add(src + 32)
    res, _, cur = await tb.run(tb.chain((AES_DATA, src, dst, 64), (SHA_OP | SHA_INIT | SHA_FINAL, src, dst, 4)))
    assert res == "BUS_ERROR"
    tb.ram.err_at.clear()
    # the engine works after all of these
    assert await tb.aes_setup("ECB", key, iv) == 0
    await tb.ok(tb.chain((AES_DATA, src, dst, 64)))
    enc = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    assert tb.ram.read(dst, 64) == enc.update(tb.ram.read(src, 64))
    tb.check_window()


@cocotb.test()
async def failed_tag_releases_nothing(dut):
    """A GCM decryption whose tag fails: RESULT ENGINE with the AES engine's TAG_FAIL, and not one
    byte of the plaintext in RAM; the same record with its right tag then decrypts."""
    tb = Bench(dut, seed_of() + 103)
    await tb.start()
    rng = tb.rng
    key, nonce, aad, pt = rng.randbytes(16), rng.randbytes(12), rng.randbytes(13), rng.randbytes(512)
    ct = AESGCM(key).encrypt(nonce, pt, aad)
    a, src, out = tb.put(aad), tb.put(ct[:-16]), tb.alloc(len(pt))
    fill = rng.randbytes(len(pt))
    tb.ram.load(out, fill)
    for tag in (bytes(a ^ (i == 3) for i, a in enumerate(ct[-16:])), ct[-16:]):
        assert await tb.aes_setup("GCM", key, nonce + b"\0\0\0\1", dec=1, tag_len=16) == 0
        await tb.tag_in(tag)
        res, ip, _ = await tb.run(tb.chain((AES_AAD, a, 0, 13), (AES_DATA, src, 0, len(pt)),
                                           (AES_FINAL, 0, out, len(pt))))
        if tag != ct[-16:]:
            assert (res, ip) == ("ENGINE", A["STATUS"][1]["RESULT"][2]["TAG_FAIL"]), (res, ip)
            assert tb.ram.read(out, len(pt)) == fill, "plaintext reached RAM after a failed tag"
        else:
            assert res == "OK" and tb.ram.read(out, len(pt)) == pt
    # a FINAL descriptor longer than the message: BAD_LEN, not a hang
    assert await tb.aes_setup("GCM", key, nonce + b"\0\0\0\1", dec=1, tag_len=16) == 0
    await tb.tag_in(ct[-16:])
    res, _, _ = await tb.run(tb.chain((AES_AAD, a, 0, 13), (AES_DATA, src, 0, len(pt)),
                                      (AES_FINAL, 0, out, len(pt) + 16)))
    assert res == "BAD_LEN"
    tb.check_window()


def rec_ctrl(op, slot, tls=False, ccm=False, tag_len=16):
    return op | slot << 4 | (REC_TLS if tls else 0) | (REC_CCM if ccm else 0) | (REC_TAG8 if tag_len == 8 else 0)


@cocotb.test()
async def records(dut):
    """SEAL and OPEN: DTLS 1.2 and TLS 1.2 AEAD records from a key slot, in every mode the suites use
    (GCM, CCM_8, CCM) and a GCM with an 8-byte tag, both headers, 0 to 300 bytes, sources and
    destinations at every byte offset, sealed apart and in place in one chain, and each opened back in
    place; every record checked against `cryptography` (record() above), and the bytes around it
    untouched."""
    tb = Bench(dut, seed_of() + 106)
    await tb.start()
    rng = tb.rng
    keys = {1: rng.randbytes(16), 3: rng.randbytes(32)}
    for idx, key in keys.items():
        await tb.slot_load(idx, key)
    cases = ((False, 16, False, 300), (True, 8, False, 77), (True, 16, True, 0), (False, 8, True, 33),
             (True, 8, False, 1), (False, 16, True, 16), (True, 8, True, 200), (False, 16, False, 0))
    for i, (ccm, tl, tls, n) in enumerate(cases):
        slot = 1 if i % 2 == 0 else 3
        salt, sn, typ = rng.randbytes(4), rng.getrandbits(64), rng.choice((20, 21, 22, 23))
        ver = TLS12 if tls else DTLS12
        pt = rng.randbytes(n)
        want = record(keys[slot], salt, sn, typ, ver, pt, tls, ccm, tl)
        ctrl = rec_ctrl(0, slot, tls, ccm, tl)
        hl = 5 if tls else 13
        off_in, off_out = i % 4, (3 * i + 1) % 4
        src, dst = tb.put(pt, off_in), tb.alloc(len(want) + 8) + off_out
        inplace = tb.alloc(len(want) + 8) + off_in
        tb.ram.load(inplace + hl + 8, pt)
        around = [tb.ram.read(a, 1) for a in (dst - 1, dst + len(want), inplace - 1, inplace + len(want))]
        await tb.ok(tb.chain((SEAL | ctrl, src, dst, n, sn, typ, ver, salt),
                             (SEAL | ctrl, inplace + hl + 8, inplace, n, sn, typ, ver, salt)))
        what = f"{'CCM' if ccm else 'GCM'}-{tl} {'TLS' if tls else 'DTLS'} record of {n} bytes"
        assert tb.ram.read(dst, len(want)) == want, f"SEAL of a {what}"
        assert tb.ram.read(inplace, len(want)) == want, f"SEAL in place of a {what}"
        assert [tb.ram.read(a, 1) for a in (dst - 1, dst + len(want), inplace - 1, inplace + len(want))] == around
        # OPEN in place: the plaintext after the explicit nonce; and to a buffer apart
        out = tb.alloc(n + 8) + off_in
        await tb.ok(tb.chain((OPEN | ctrl, dst + hl, dst + hl + 8, len(want) - hl, sn, typ, ver, salt),
                             (OPEN | ctrl, inplace + hl, out, len(want) - hl, sn, typ, ver, salt)))
        assert tb.ram.read(dst + hl + 8, n) == pt, f"OPEN of a {what}"
        assert tb.ram.read(out, n) == pt, f"OPEN of a {what} to a buffer apart"
    tb.cpu.running = False
    tb.check_window()


def flip(b, i):
    b = bytearray(b)
    b[i] ^= 1
    return bytes(b)


@cocotb.test()
async def record_errors(dut):
    """A record whose tag fails (any byte of its body, or any field of its AAD or nonce, changed): RESULT
    ENGINE with TAG_FAIL and not one byte of plaintext in RAM. An empty key slot: ENGINE with BAD_SLOT
    and no header written. Every descriptor error of SEAL and OPEN, RAM untouched, the descriptor
    named, no access outside the window; a good record after them all."""
    tb = Bench(dut, seed_of() + 107)
    base, size = await tb.start(cpu=False)
    rng = tb.rng
    end = base + size
    R = A["STATUS"][1]["RESULT"][2]
    key, salt, sn, pt = rng.randbytes(16), rng.randbytes(4), rng.getrandbits(64), rng.randbytes(100)
    await tb.slot_load(2, key)
    ctrl = rec_ctrl(0, 2, ccm=True, tag_len=8)              # DTLS CCM_8, the node's suite
    body = record(key, salt, sn, 23, DTLS12, pt, ccm=True, tag_len=8)[13:]
    f = (sn, 23, DTLS12, salt)
    tampered = [(flip(body, 2), f), (flip(body, 8 + 50), f), (flip(body, len(body) - 1), f),
                (body, (sn ^ 1 << 60, 23, DTLS12, salt)), (body, (sn, 22, DTLS12, salt)),
                (body, (sn, 23, TLS12, salt)), (body, (sn, 23, DTLS12, flip(salt, 0)))]
    for b, fields in tampered:
        src, out = tb.put(b), tb.alloc(len(pt))
        fill = rng.randbytes(len(pt))
        tb.ram.load(out, fill)
        res, ip, _ = await tb.run(tb.chain((OPEN | ctrl, src, out, len(b), *fields)))
        assert (res, ip) == ("ENGINE", R["TAG_FAIL"]), (res, ip)
        assert tb.ram.read(out, len(pt)) == fill, "plaintext reached RAM after a failed tag"
    # an empty slot (0): INIT refused before anything is written
    src, dst = tb.put(pt), tb.alloc(len(body) + 13)
    before = tb.ram.read(base, size)
    first = tb.chain((SEAL | rec_ctrl(0, 0), src, dst, len(pt), *f))
    before = tb.ram.read(base, size)
    res, ip, cur = await tb.run(first)
    assert (res, ip, cur) == ("ENGINE", R["BAD_SLOT"], first)
    assert tb.ram.read(base, size) == before, "a SEAL from an empty slot wrote to RAM"
    # descriptor errors
    n = len(pt)
    cases = [
        ("BAD_OP", (SEAL | ctrl | 1 << 9, src, dst, n, *f)), ("BAD_OP", (OPEN | ctrl | 1 << 10, src, dst, n, *f)),
        ("BAD_OP", (SEAL | ctrl, src, dst, n, sn, 23 | 1 << 24, DTLS12, salt)), ("BAD_OP", (11, src, dst, n)), ("BAD_OP", (15, src, dst, n)),
        ("BAD_LEN", (SEAL | ctrl, src, dst, 16385, *f)), ("BAD_LEN", (OPEN | ctrl, src, dst, 15, *f)),
        ("BAD_LEN", (OPEN | rec_ctrl(0, 2), src, dst, 8 + 15, *f)), ("BAD_LEN", (OPEN | ctrl, src, dst, 8 + 8 + 16385, *f)),
        ("BAD_ADDR", (SEAL | ctrl, src, end - n - 20, n, *f)), ("BAD_ADDR", (SEAL | ctrl, base - 4, dst, n, *f)),
        ("BAD_ADDR", (OPEN | ctrl, end - 100, dst, 116, *f)), ("BAD_ADDR", (OPEN | ctrl, src, end - 50, 116, *f)),
        ("BAD_ADDR", (SEAL | ctrl, src, base - 0x40, 0, *f)), ("BAD_ADDR", (SEAL | ctrl, src, end - 10, 0, *f)),
        ("OVERLAP", (SEAL | ctrl, dst + 20, dst, n, *f)), ("OVERLAP", (SEAL | ctrl, dst - 50, dst, n, *f)),
        ("OVERLAP", (SEAL | rec_ctrl(0, 2, tls=True), dst + 20, dst, n, *f)),
    ]
    for want, d in cases:
        first = tb.chain(d)
        before = tb.ram.read(base, size)
        res, _, cur = await tb.run(first)
        assert (res, cur) == (want, first), f"{d}: {res} at {cur:#x}, want {want}"
        assert tb.ram.read(base, size) == before, f"{d}: RAM changed"
    # a record descriptor whose first five words lie in the window and whose last four do not
    last = end - 24
    tb.ram.load(last, struct.pack("<5I", SEAL | ctrl, src, dst, n, 0))
    res, _, cur = await tb.run(last)
    assert (res, cur) == ("BAD_ADDR", last)
    tb.check_window()
    # and a good record after all of these
    src, out = tb.put(body), tb.alloc(n)
    await tb.ok(tb.chain((OPEN | ctrl, src, out, len(body), *f)))
    assert tb.ram.read(out, n) == pt


def cbc_record(key, mac_key, iv, sn, typ, ver, pt, tls=False, pad=None, bad_pad=False):
    """A MAC-then-encrypt TLS 1.2 / DTLS 1.2 CBC-SHA256 record as RFC 5246 6.2.3.2 builds it, by hmac
    and `cryptography`: HMAC-SHA256 over seq_num || type || version || length || plaintext, then
    padding (`pad` + 1 bytes of value `pad`: the shortest by default, any up to 255 allowed; with
    bad_pad its first byte wrong), CBC under `iv`, and the header before IV || ciphertext."""
    mac = hmac.new(mac_key, sn.to_bytes(8, "big") + bytes([typ]) + ver.to_bytes(2, "big") +
                   len(pt).to_bytes(2, "big") + pt, hashlib.sha256).digest()
    pad = 15 - (len(pt) + 32) % 16 if pad is None else pad
    padding = bytearray([pad] * (pad + 1))
    if bad_pad:
        padding[0] ^= 0x40
    enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    body = iv + enc.update(pt + mac + bytes(padding)) + enc.finalize()
    return bytes([typ]) + ver.to_bytes(2, "big") + (b"" if tls else sn.to_bytes(8, "big")) + \
        len(body).to_bytes(2, "big") + body


NO_SALT = bytes(4)


@cocotb.test()
async def cbc_records(dut):
    """SEAL_CBC and OPEN_CBC: MAC-then-encrypt CBC-SHA256 records from a key slot and the SHA engine's
    held HMAC key (a SHA KEY descriptor first in the chain), DTLS and TLS headers, 0 to 300 bytes, at
    every byte offset, under random bus stalls and CPU traffic. Sealed in place and compared with
    cbc_record() above; then opened in place and to a buffer apart, REC_LEN the plaintext's length;
    records with every padding a sender may choose (up to 255 bytes) open too."""
    tb = Bench(dut, seed_of() + 111)
    await tb.start()

    rng = tb.rng
    key, mac_key = rng.randbytes(16), rng.randbytes(32)
    await tb.slot_load(1, key)
    ka = tb.put(mac_key, 1)
    hkey = (SHA_OP | SHA_KEY, ka, 0, 32)
    for i, (tls, n) in enumerate(((False, 0), (True, 1), (False, 15), (True, 16), (False, 17), (True, 100),
                                  (False, 300), (True, 47))):
        sn, typ = rng.getrandbits(64), rng.choice((20, 21, 22, 23))
        ver, hl = (TLS12, 5) if tls else (DTLS12, 13)
        pt, iv = rng.randbytes(n), rng.randbytes(16)
        want = cbc_record(key, mac_key, iv, sn, typ, ver, pt, tls)
        ctrl = SEAL_CBC | 1 << 4 | (REC_TLS if tls else 0)
        rec = tb.alloc(len(want) + 8) + i % 4
        tb.ram.load(rec + hl, iv + pt)
        around = tb.ram.read(rec - 1, 1) + tb.ram.read(rec + len(want), 1)
        await tb.ok(tb.chain(hkey, (ctrl, rec + hl + 16, rec, n, sn, typ, ver, NO_SALT)))
        what = f"{'TLS' if tls else 'DTLS'} CBC record of {n} bytes"
        assert tb.ram.read(rec, len(want)) == want, f"SEAL_CBC of a {what}"
        assert tb.ram.read(rec - 1, 1) + tb.ram.read(rec + len(want), 1) == around
        assert await tb.read(DMA + D["REC_LEN"][0]) == len(want)
        # OPEN_CBC in place (the plaintext where the ciphertext was), and to a buffer apart
        octrl = OPEN_CBC | 1 << 4 | (REC_TLS if tls else 0)
        body = want[hl:]
        src, out = tb.put(body, (i + 1) % 4), tb.alloc(len(body)) + (i + 2) % 4
        await tb.ok(tb.chain(hkey, (octrl, src, out, len(body), sn, typ, ver, NO_SALT)))
        assert tb.ram.read(out, n) == pt, f"OPEN_CBC of a {what}"
        assert await tb.read(DMA + D["REC_LEN"][0]) == n
        await tb.ok(tb.chain(hkey, (octrl, rec + hl, rec + hl + 16, len(body), sn, typ, ver, NO_SALT)))
        assert tb.ram.read(rec + hl + 16, n) == pt, f"OPEN_CBC in place of a {what}"
    # a peer may pad with up to 255 bytes: every length the block size allows
    for n, pad in ((10, 5), (10, 21), (200, 255), (1, 254), (64, 127)):
        pad += (15 - (n + 32 + pad) % 16)  # (made a whole number of blocks)
        if pad > 255:
            pad -= 16
        sn, pt, iv = rng.getrandbits(64), rng.randbytes(n), rng.randbytes(16)
        body = cbc_record(key, mac_key, iv, sn, 23, DTLS12, pt, pad=pad)[13:]
        src = tb.put(body, n % 4)
        await tb.ok(tb.chain(hkey, (OPEN_CBC | 1 << 4, src, src + 16, len(body), sn, 23, DTLS12, NO_SALT)))
        assert tb.ram.read(src + 16, n) == pt, f"a record of {n} bytes padded with {pad + 1}"
        assert await tb.read(DMA + D["REC_LEN"][0]) == n
    tb.cpu.running = False
    tb.check_window()


@cocotb.test()
async def cbc_record_errors(dut):
    """OPEN_CBC refuses a record whose MAC or padding is wrong, with the same answer for both (RESULT
    ENGINE, TAG_FAIL), REC_LEN 0, and not one byte written; and it takes the same cycles for a good
    record, a bad MAC and a bad padding of the same length, whatever the padding's length (Lucky
    Thirteen). No HMAC key held: ENGINE, SHA's BAD_SEQ. Every descriptor error of SEAL_CBC and OPEN_CBC."""
    tb = Bench(dut, seed_of() + 112)
    base, size = await tb.start(stall=(0,), cpu=False)
    rng = tb.rng
    end = base + size
    R = A["STATUS"][1]["RESULT"][2]
    await tb.write(DMA + D["INTR_ENABLE"][0], 0b11)
    key, mac_key, sn = rng.randbytes(16), rng.randbytes(32), rng.getrandbits(64)
    await tb.slot_load(2, key)
    hkey = (SHA_OP | SHA_KEY, tb.put(mac_key), 0, 32)
    f = (sn, 23, DTLS12, NO_SALT)
    ctrl = OPEN_CBC | 2 << 4

    async def timed_open(body, fields=f):
        """OPEN_CBC of body to a buffer apart: (RESULT, IP_RESULT, cycles START to interrupt, written)."""
        src, out = tb.put(body), tb.alloc(len(body))
        fill = rng.randbytes(len(body) - 16)
        tb.ram.load(out, fill)
        first = tb.chain(hkey, (ctrl, src, out, len(body), *fields))
        n = await tb.timed(first)
        st = await tb.read(DMA + D["STATUS"][0])
        name = {v: k for k, v in RESULT.items()}[get(D, "STATUS", "RESULT", st)]
        got = tb.ram.read(out, len(fill))
        return name, get(D, "STATUS", "IP_RESULT", st), n, got if got != fill else None

    # bodies of 16 + 1040 bytes: good ones with the shortest and the longest padding, then bad ones
    m = 1040
    iv = rng.randbytes(16)
    good = [cbc_record(key, mac_key, iv, sn, 23, DTLS12, rng.randbytes(m - 33 - p), pad=p)[13:] for p in (0, 15, 255, 130)]
    typical = good[1]
    bad = [
        ("a changed ciphertext byte", flip(typical, 16 + 100), f),
        ("another seq_num", typical, (sn ^ 1, 23, DTLS12, NO_SALT)),
        ("another type", typical, (sn, 22, DTLS12, NO_SALT)),
        ("a bad padding byte", cbc_record(key, mac_key, iv, sn, 23, DTLS12, rng.randbytes(m - 48), pad=15, bad_pad=True)[13:], f),
        ("a bad long padding", cbc_record(key, mac_key, iv, sn, 23, DTLS12, rng.randbytes(m - 33 - 255), pad=255, bad_pad=True)[13:], f),
        ("a well-formed padding after no MAC",
         iv + Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor().update(rng.randbytes(m - 232) + bytes([231]) * 232), f),
    ]
    cycles = set()
    for body in good:
        res, ip, n, got = await timed_open(body)
        assert res == "OK" and got is not None, res
        cycles.add(n)
    for what, body, fields in bad:
        res, ip, n, got = await timed_open(body, fields)
        assert (res, ip) == ("ENGINE", R["TAG_FAIL"]), (what, res, ip)
        assert got is None, f"{what}: plaintext reached RAM"
        assert await tb.read(DMA + D["REC_LEN"][0]) == 0
        cycles.add(n)
    assert len(cycles) == 1, f"OPEN_CBC's cycles depend on the padding or the MAC: {sorted(cycles)}"
    dut._log.info(f"OPEN_CBC of a {16 + m}-byte body: {cycles.pop()} cycles, good or bad")
    # a padding longer than the record could hold with its MAC
    short = iv + Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor().update(rng.randbytes(47) + bytes([20]))
    res, ip, _, got = await timed_open(short)
    assert (res, ip, got) == ("ENGINE", R["TAG_FAIL"], None)

    # ABORT inside OPEN_CBC's first pass: no AES output block is readable while a record runs, the
    # SHA engine is left inside the HMAC (KEY refused), and after a plain INIT of each engine (as the
    # driver does after a failed chain) the next record opens
    big = cbc_record(key, mac_key, iv, sn, 23, DTLS12, rng.randbytes(4000))[13:]
    src = tb.put(big)
    await tb.begin(tb.chain(hkey, (ctrl, src, src + 16, len(big), *f)))
    await ClockCycles(dut.clk_i, 600)
    assert get(D, "STATUS", "BUSY", await tb.read(DMA + D["STATUS"][0])) == 1
    for i in range(4):
        assert await tb.read(AES + A["DOUT"][0] + 4 * i) == 0, "a record's block readable in DOUT"
    await tb.abort()
    await tb.write(DMA + D["INTR_STATE"][0], 0b11)
    assert tb.ram.read(src + 16, 16) == big[16:32], "OPEN_CBC wrote before its check"
    res, ip, _ = await tb.run(tb.chain(hkey))
    assert (res, ip) == ("ENGINE", S["STATUS"][1]["RESULT"][2]["BAD_SEQ"]), (res, ip)
    await tb.write(SHA + S["CTRL"][0], 0)
    await tb.write(SHA + S["CMD"][0], field(S, "CMD", "OP", "INIT"))
    await tb.write(AES + A["CTRL"][0], field(A, "CTRL", "MODE", "ECB"))
    await tb.write(AES + A["CMD"][0], field(A, "CMD", "OP", "INIT"))
    await tb.wait_status(AES, A, "BUSY", 0)
    src = tb.put(typical)
    await tb.ok(tb.chain(hkey, (ctrl, src, src + 16, len(typical), *f)))
    assert await tb.read(DMA + D["REC_LEN"][0]) == m - 48

    # no HMAC key held: a RESUME drops it
    chain_val = tb.alloc(32)
    tb.ram.load(chain_val, struct.pack("<8I", *SHA256_IV))
    blk = tb.put(bytes(64))
    src = tb.put(typical)
    first = tb.chain((SHA_OP | SHA_RESUME, blk, chain_val, 64), (ctrl, src, src + 16, len(typical), *f))
    res, ip, _ = await tb.run(first)
    assert (res, ip) == ("ENGINE", S["STATUS"][1]["RESULT"][2]["BAD_SEQ"]), (res, ip)
    # an empty slot
    first = tb.chain(hkey, (OPEN_CBC | 0 << 4, src, src + 16, len(typical), *f))
    res, ip, _ = await tb.run(first)
    assert (res, ip) == ("ENGINE", R["BAD_SLOT"]), (res, ip)

    # descriptor errors: RAM untouched, the descriptor named
    n = 100
    rec = tb.alloc(13 + 16 + 160)
    sctrl = SEAL_CBC | 2 << 4
    cases = [
        ("BAD_OP", (sctrl | 1 << 7, rec + 29, rec, n, *f)), ("BAD_OP", (ctrl | 1 << 8, src, src + 16, 1056, *f)),
        ("BAD_OP", (sctrl, rec + 29, rec, n, sn, 23 | 1 << 24, DTLS12, NO_SALT)),
        ("BAD_LEN", (sctrl, rec + 29, rec, 16385, *f)), ("BAD_LEN", (ctrl, src, src + 16, 48, *f)),
        ("BAD_LEN", (ctrl, src, src + 16, 1056 - 8, *f)), ("BAD_LEN", (ctrl, src, src + 16, 16384 + 2048 + 16, *f)),
        ("BAD_ADDR", (sctrl, end - 100 + 29, end - 100, n, *f)), ("BAD_ADDR", (sctrl, base - 0x40 + 29, base - 0x40, n, *f)),
        ("BAD_ADDR", (ctrl, end - 64, end - 48, 80, *f)), ("BAD_ADDR", (ctrl, src, end - 40, 80, *f)),
        ("OVERLAP", (sctrl, rec + 30, rec, n, *f)), ("OVERLAP", (sctrl | REC_TLS, rec + 29, rec, n, *f)),
        ("OVERLAP", (ctrl, src, src + 20, 1056, *f)),
    ]
    for want, d in cases:
        first = tb.chain(hkey, d)
        before = tb.ram.read(base, size)
        res, _, cur = await tb.run(first)
        assert (res, cur) == (want, first + 48), f"{d}: {res}, want {want}"  # (the second descriptor)
        assert tb.ram.read(base, size) == before, f"{d}: RAM changed"
    tb.check_window()


def sha256_padded(msg):
    """msg with SHA-256's padding (FIPS 180-4 5.1.1): 0x80, zeros, the 64-bit bit length."""
    return msg + b"\x80" + bytes(-(len(msg) + 9) % 64) + (8 * len(msg)).to_bytes(8, "big")


@cocotb.test()
async def sha_resume(dut):
    """SHA with RESUME, a running hash kept in RAM (the transcript's): the chaining value at DST is
    resumed, blocks from SRC compressed, and the new chaining value written back, over descriptors
    and chains; a message so hashed, padded by the test (FIPS 180-4), ends in hashlib's digest. A
    held HMAC key is dropped by it, and an HMAC after it is right again. Its errors: INIT, FINAL or
    KEY beside it (BAD_OP), a length 0 or not a multiple of 64 (BAD_LEN), an unaligned state (BAD_ADDR)."""
    tb = Bench(dut, seed_of() + 108)
    await tb.start()

    rng = tb.rng
    for n in (0, 1, 55, 56, 64, 300, 1000):
        msg = sha256_padded(rng.randbytes(n))
        state = tb.alloc(32)
        tb.ram.load(state, struct.pack("<8I", *SHA256_IV))
        cut = 64 * rng.randrange(len(msg) // 64 + 1)          # two descriptors: one chain, or two
        parts = [(SHA_OP | SHA_RESUME, tb.put(p, rng.randrange(4)), state, len(p))
                 for p in (msg[:cut], msg[cut:]) if p]
        if n % 2:
            await tb.ok(tb.chain(*parts))
        else:
            for p in parts:
                await tb.ok(tb.chain(p))
        got = b"".join(w.to_bytes(4, "big") for w in struct.unpack("<8I", tb.ram.read(state, 32)))
        assert got == hashlib.sha256(msg[:n]).digest(), f"SHA-256 of {n} bytes by RESUME"
    # a held HMAC key goes; the next HMAC, with its key by KEY, is right
    await tb.write(SHA + S["CTRL"][0], field(S, "CTRL", "HMAC", 1))
    k, msg, mac = rng.randbytes(32), rng.randbytes(100), tb.alloc(32)
    await tb.ok(tb.chain((SHA_OP | SHA_KEY, tb.put(k), 0, 32)))
    state = tb.alloc(32)
    tb.ram.load(state, struct.pack("<8I", *SHA256_IV))
    await tb.ok(tb.chain((SHA_OP | SHA_RESUME, tb.put(sha256_padded(b"abc")), state, 64)))
    assert get(S, "STATUS", "KEY_VALID", await tb.read(SHA + S["STATUS"][0])) == 0
    await tb.ok(tb.chain((SHA_OP | SHA_KEY, tb.put(k), 0, 32), (SHA_OP | SHA_INIT | SHA_FINAL, tb.put(msg), mac, 100)))
    assert tb.ram.read(mac, 32) == hmac.new(k, msg, hashlib.sha256).digest()
    await tb.write(SHA + S["CTRL"][0], 0)
    src = tb.put(rng.randbytes(128))
    for want, d in (("BAD_OP", (SHA_OP | SHA_RESUME | SHA_INIT, src, state, 64)),
                    ("BAD_OP", (SHA_OP | SHA_RESUME | SHA_FINAL, src, state, 64)),
                    ("BAD_OP", (SHA_OP | SHA_RESUME | SHA_KEY, src, state, 64)),
                    ("BAD_OP", (AES_DATA | SHA_RESUME, src, state, 64)),
                    ("BAD_LEN", (SHA_OP | SHA_RESUME, src, state, 65)),
                    ("BAD_LEN", (SHA_OP | SHA_RESUME, src, state, 0)),
                    ("BAD_ADDR", (SHA_OP | SHA_RESUME, src, state + 2, 64))):
        before = tb.ram.read(state, 36)
        first = tb.chain(d)
        res, _, cur = await tb.run(first)
        assert (res, cur) == (want, first), f"{d}: {res}"
        assert tb.ram.read(state, 36) == before
    tb.cpu.running = False
    tb.check_window()


@cocotb.test()
async def sha_shared_with_the_controller(dut):
    """The SHA IP shared by the DMA and the protocol controller (se_engine): a DMA chain that hashes
    while the controller's program SHA256 hashes, started in either order, and one started just
    after it: both digests are hashlib's and the chain ends OK (neither one takes the other's
    blocks or its done pulse)."""
    tb = Bench(dut, seed_of() + 110)
    await tb.start()
    c, rng = Ctrl(tb), tb.rng
    for order in ("ctrl first", "dma first", "ctrl first, dma at once"):
        prog_msg, dma_msg = rng.randbytes(rng.randrange(1500, 3000)), rng.randbytes(rng.randrange(500, 1500))
        await c.load(0, prog_msg)
        dst = tb.alloc(32)
        first = tb.chain((SHA_OP | SHA_INIT | SHA_FINAL, tb.put(dma_msg, rng.randrange(4)), dst, len(dma_msg)))
        if order.startswith("ctrl"):
            await c.start("SHA256", {1: 0, 2: len(prog_msg), 3: ctrl_isa.SECRET_BASE - 32})
            if order == "ctrl first":
                await ClockCycles(dut.clk_i, 100)   # the program holds the IP by now
            res = await tb.run(first)
        else:
            await tb.begin(first)
            await ClockCycles(dut.clk_i, 150)        # the chain is in the middle of its message by now
            await c.start("SHA256", {1: 0, 2: len(prog_msg), 3: ctrl_isa.SECRET_BASE - 32})
            assert get(D, "STATUS", "BUSY", await tb.read(DMA + D["STATUS"][0])) == 1, "the chain ended too soon"
            res = await tb.end()
        assert res[0] == "OK", (order, res)
        assert await c.result() == "OK", order
        assert tb.ram.read(dst, 32) == hashlib.sha256(dma_msg).digest(), order
        assert await c.dump(ctrl_isa.SECRET_BASE - 32, 32) == hashlib.sha256(prog_msg).digest(), order
    tb.cpu.running = False
    tb.check_window()


@cocotb.test()
async def pk_operands(dut):
    """PK: operands of 1 to 32 bytes (big-endian numbers) from RAM at every offset into pk slots, read
    back through the pk registers (CMD READ, DOUT); slots written through the registers, to RAM by
    PK with READ (the low LEN bytes); a chain of both. Its errors: LEN 0 or above 32, a bit beside SLOT and READ, an address outside RAM."""
    tb = Bench(dut, seed_of() + 109)
    base, size = await tb.start()
    rng = tb.rng

    async def reg_read(slot):
        await tb.write(PK + P["CMD"][0], field(P, "CMD", "OP", "READ") | field(P, "CMD", "SLOT", slot))
        await tb.wait_status(PK, P, "BUSY", 0)
        return await tb.words(PK + P["DOUT"][0], 8)

    for n in (1, 5, 17, 31, 32):
        slot, v = rng.randrange(12, 32), rng.randbytes(n)
        await tb.ok(tb.chain((PK_OP | slot << 8, tb.put(v, rng.randrange(4)), 0, n)))
        assert await reg_read(slot) == v.rjust(32, b"\0"), f"PK WRITE of {n} bytes"
        # through the registers in, by the DMA out: the low n bytes
        w = rng.randbytes(32)
        for i in range(8):
            await tb.write(PK + P["DIN"][0] + 4 * i, int.from_bytes(w[4 * i:4 * i + 4], "big"))
        await tb.write(PK + P["CMD"][0], field(P, "CMD", "OP", "WRITE") | field(P, "CMD", "SLOT", slot))
        await tb.wait_status(PK, P, "BUSY", 0)
        out = tb.alloc(40) + rng.randrange(4)
        around = tb.ram.read(out - 1, 1) + tb.ram.read(out + n, 1)
        await tb.ok(tb.chain((PK_OP | PK_READ | slot << 8, 0, out, n)))
        assert tb.ram.read(out, n) == w[32 - n:], f"PK READ of {n} bytes"
        assert tb.ram.read(out - 1, 1) + tb.ram.read(out + n, 1) == around
    # a chain: three operands in, one copied out of a slot into RAM
    vals = [rng.randbytes(32) for _ in range(3)]
    out = tb.alloc(32)
    await tb.ok(tb.chain(*[(PK_OP | (20 + i) << 8, tb.put(v), 0, 32) for i, v in enumerate(vals)],
                         (PK_OP | PK_READ | 21 << 8, 0, out, 32)))
    assert tb.ram.read(out, 32) == vals[1]
    assert [await reg_read(20 + i) for i in range(3)] == vals
    src, dst = tb.put(rng.randbytes(40)), tb.alloc(40)
    for want, d in (("BAD_LEN", (PK_OP | 20 << 8, src, 0, 0)), ("BAD_LEN", (PK_OP | 20 << 8, src, 0, 33)),
                    ("BAD_OP", (PK_OP | 20 << 8 | 1 << 14, src, 0, 8)), ("BAD_OP", (PK_OP | 20 << 8 | 1 << 4, src, 0, 8)),
                    ("BAD_ADDR", (PK_OP | 20 << 8, base - 4, 0, 8)), ("BAD_ADDR", (PK_OP | PK_READ | 20 << 8, 0, base + size - 4, 8))):
        first = tb.chain(d)
        res, _, cur = await tb.run(first)
        assert (res, cur) == (want, first), f"{d}: {res}"
    assert await reg_read(20) == vals[0], "a refused PK changed a slot"
    tb.cpu.running = False
    tb.check_window()


@cocotb.test()
async def gf2m_operands(dut):
    """GF2M: k, x and y of 30 bytes (and shorter, zero-extended) from RAM at any offset into K, PX, PY,
    START through the gf2m registers, RX and RY out by GF2M with READ: k P on sect233r1 and sect233k1
    against OpenSSL (tests/ossl.py). Operands written while a multiplication runs wait for its end
    (the one running is unchanged). Its errors: REG 3, READ of REG 2, LEN 0 or above 32."""
    tb = Bench(dut, seed_of() + 110)
    base, size = await tb.start()
    rng = tb.rng
    for name, koblitz in (("sect233r1", 0), ("sect233k1", 1)):
        c = Curve(name)
        k = rng.randrange(1, 1 << 120)                    # short: 15 bytes, zero-extended
        p = c.mul(rng.randrange(1, c.n))
        want = c.mul(0, p, k)
        kb = k.to_bytes(15, "big")
        xb, yb = p[0].to_bytes(30, "big"), p[1].to_bytes(30, "big")
        await tb.ok(tb.chain((GF_OP | 0 << 8, tb.put(kb, 1), 0, len(kb)), (GF_OP | 1 << 8, tb.put(xb, 2), 0, 30),
                             (GF_OP | 2 << 8, tb.put(yb, 3), 0, 30)))
        await tb.write(GF2M + G["CTRL"][0], field(G, "CTRL", "KOBLITZ", koblitz))
        await tb.write(GF2M + G["CMD"][0], field(G, "CMD", "OP", "START"))
        # K rewritten by the DMA while it runs: the write waits for the end
        k2 = rng.randrange(1, c.n)
        await tb.ok(tb.chain((GF_OP | 0 << 8, tb.put(k2.to_bytes(30, "big")), 0, 30)))
        assert get(G, "STATUS", "BUSY", await tb.read(GF2M + G["STATUS"][0])) == 0
        assert get(G, "STATUS", "RESULT", await tb.read(GF2M + G["STATUS"][0])) == 0
        rx, ry = tb.alloc(32), tb.alloc(32) + 1
        await tb.ok(tb.chain((GF_OP | GF_READ | 0 << 8, 0, rx, 30), (GF_OP | GF_READ | 1 << 8, 0, ry, 30)))
        got = (int.from_bytes(tb.ram.read(rx, 30), "big"), int.from_bytes(tb.ram.read(ry, 30), "big"))
        assert got == want, f"{name}: k P by DMA-loaded operands"
        # the second k, already in K: k2 P
        await tb.write(GF2M + G["CMD"][0], field(G, "CMD", "OP", "START"))
        await tb.ok(tb.chain((GF_OP | GF_READ | 0 << 8, 0, rx, 30), (GF_OP | GF_READ | 1 << 8, 0, ry, 30)))
        got = (int.from_bytes(tb.ram.read(rx, 30), "big"), int.from_bytes(tb.ram.read(ry, 30), "big"))
        assert got == c.mul(0, p, k2), f"{name}: k2 P"
    src = tb.put(rng.randbytes(40))
    for want, d in (("BAD_OP", (GF_OP | 3 << 8, src, 0, 30)), ("BAD_OP", (GF_OP | GF_READ | 2 << 8, 0, src, 30)),
                    ("BAD_OP", (GF_OP | 1 << 11, src, 0, 30)), ("BAD_LEN", (GF_OP, src, 0, 0)),
                    ("BAD_LEN", (GF_OP, src, 0, 33)), ("BAD_ADDR", (GF_OP | GF_READ, 0, base + size - 8, 30))):
        first = tb.chain(d)
        res, _, cur = await tb.run(first)
        assert (res, cur) == (want, first), f"{d}: {res}"
    tb.cpu.running = False
    tb.check_window()


@cocotb.test()
async def abort_and_busy(dut):
    """START while a chain runs is dropped (ERR.CMD_DROPPED); ABORT ends it (ABORTED); the next
    chain runs normally."""
    tb = Bench(dut, seed_of() + 104)
    await tb.start(stall=(2, 3))
    rng = tb.rng
    msg, dig = rng.randbytes(4096), tb.alloc(32)
    first = tb.chain((SHA_OP | SHA_INIT | SHA_FINAL, tb.put(msg), dig, len(msg)))
    await tb.write(DMA + D["DESC"][0], first)
    await tb.write(DMA + D["CMD"][0], field(D, "CMD", "OP", "START"))
    await tb.write(DMA + D["CMD"][0], field(D, "CMD", "OP", "START"))
    assert get(D, "ERR", "CMD_DROPPED", await tb.read(DMA + D["ERR"][0])) == 1
    await ClockCycles(dut.clk_i, 200)
    await tb.abort()
    msg = rng.randbytes(100)
    await tb.ok(tb.chain((SHA_OP | SHA_INIT | SHA_FINAL, tb.put(msg), dig, 100)))
    assert tb.ram.read(dig, 32) == hashlib.sha256(msg).digest()
    tb.check_window()


@cocotb.test()
async def throughput(dut):
    """Cycles of a chain from CMD START to the DONE interrupt, on a bus without stalls or CPU
    traffic (a RAM answering each access in two cycles, as the node's does): AES-128-GCM and
    AES-128-CTR over 1 KiB, SHA-256 over 1 KiB, and SEAL and OPEN of a 1 KiB DTLS record in GCM,
    CCM_8 and CBC-SHA256 from a key slot. Results checked; DMA_CYCLES_JSON writes them (make bench)."""
    tb = Bench(dut, seed_of() + 105)
    await tb.start(stall=(0,), cpu=False)
    rng = tb.rng
    await tb.write(DMA + D["INTR_ENABLE"][0], 0b01)
    timed = tb.timed

    res = {}
    key, nonce, aad, pt = rng.randbytes(16), rng.randbytes(12), rng.randbytes(16), rng.randbytes(1024)
    assert await tb.aes_setup("GCM", key, nonce + b"\0\0\0\1", tag_len=16) == 0
    a, src, dst, tag = tb.put(aad), tb.put(pt), tb.alloc(1024), tb.alloc(16)
    res["gcm_1k"] = await timed(tb.chain((AES_AAD, a, 0, 16), (AES_DATA, src, dst, 1024), (AES_FINAL, 0, tag, 16)))
    assert tb.ram.read(dst, 1024) + tb.ram.read(tag, 16) == AESGCM(key).encrypt(nonce, pt, aad)
    iv = rng.randbytes(16)
    assert await tb.aes_setup("CTR", key, iv) == 0
    res["ctr_1k"] = await timed(tb.chain((AES_DATA, src, dst, 1024)))
    enc = Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor()
    assert tb.ram.read(dst, 1024) == enc.update(pt) + enc.finalize()
    dig = tb.alloc(32)
    res["sha256_1k"] = await timed(tb.chain((SHA_OP | SHA_INIT | SHA_FINAL, src, dig, 1024)))
    assert tb.ram.read(dig, 32) == hashlib.sha256(pt).digest()
    # whole records from a key slot: a DTLS 1.2 record of 1 KiB, sealed and opened
    await tb.slot_load(0, key)
    salt, sn = rng.randbytes(4), rng.getrandbits(64)
    for name, ccm, tl in (("gcm", False, 16), ("ccm8", True, 8)):
        want = record(key, salt, sn, 23, DTLS12, pt, ccm=ccm, tag_len=tl)
        ctrl = rec_ctrl(0, 0, ccm=ccm, tag_len=tl)
        rec, out = tb.alloc(len(want)), tb.alloc(1024)
        res[f"seal_{name}_1k"] = await timed(tb.chain((SEAL | ctrl, src, rec, 1024, sn, 23, DTLS12, salt)))
        assert tb.ram.read(rec, len(want)) == want
        res[f"open_{name}_1k"] = await timed(tb.chain((OPEN | ctrl, rec + 13, out, len(want) - 13, sn, 23, DTLS12, salt)))
        assert tb.ram.read(out, 1024) == pt
    # a MAC-then-encrypt CBC-SHA256 record of 1 KiB, the HMAC key already held
    mac_key, iv = rng.randbytes(32), rng.randbytes(16)
    await timed(tb.chain((SHA_OP | SHA_KEY, tb.put(mac_key), 0, 32)))
    want = cbc_record(key, mac_key, iv, sn, 23, DTLS12, pt)
    rec = tb.alloc(len(want))
    tb.ram.load(rec + 13, iv + pt)
    res["seal_cbc_1k"] = await timed(tb.chain((SEAL_CBC, rec + 29, rec, 1024, sn, 23, DTLS12, NO_SALT)))
    assert tb.ram.read(rec, len(want)) == want
    res["open_cbc_1k"] = await timed(tb.chain((OPEN_CBC, rec + 13, rec + 29, len(want) - 13, sn, 23, DTLS12, NO_SALT)))
    assert tb.ram.read(rec + 29, 1024) == pt
    dut._log.info(f"DMA chains, cycles from START to DONE: {res}")
    out = os.environ.get("DMA_CYCLES_JSON")
    if out:
        pathlib.Path(out).write_text(json.dumps(res, indent=1) + "\n")


def test_dma():
    run_cocotb("dma_tb", sources("iotse:engine:se_engine") + ["tests/rtl/tb/dma_tb.sv"], "test_dma")
