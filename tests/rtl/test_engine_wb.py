"""se_engine (AES + SHA IPs behind their register blocks and Wishbone B4 slaves, the protocol
controller's window and programs): identification, bus errors, bad register sequences and
interrupts, with random master-side stalls on every access.
Reference results come from the `cryptography` package and hashlib; the full vector suites run
through the CLI's --backend rtl (tests/crypto)."""
import hashlib
import hmac
import datetime
import os
import random
import sys

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.x509.oid import NameOID

from rtlsim import ENGINE_SOURCES, ROOT, WbMaster, memmap, regmap as reg_list, run_cocotb

sys.path.insert(0, str(ROOT / "rtl" / "pk"))
sys.path.insert(0, str(ROOT / "rtl" / "ctrl"))
import ctrl_isa  # noqa: E402  (the controller's status codes and window size)
import ctrl_asm  # noqa: E402  (its program table and output slots)
import ucode  # noqa: E402  (the pk microcode's digit width)

WINDOWS = memmap("rtl/engine/memmap.toml")   # the engine's windows: {ip: (base, size)}
AES, SHA, PK, GF2M, CTRL = (WINDOWS[ip][0] for ip in ("aes", "sha", "pk", "gf2m", "ctrl"))


def regmap(ip):
    """Offsets and field layouts from the IP's register description (rtl/<ip>/regs.toml, as
    tools/regtool.py reads it): {name: (offset, {field: (lo, width, enum)}, const value)}."""
    return {r.name: (r.offset, {f.name: (f.lo, f.width, f.enum) for f in r.fields if not f.implicit},
                     r.value if r.access == "const" else None) for r in reg_list(f"rtl/{ip}/regs.toml")}


A, S, P, G, C = regmap("aes"), regmap("sha"), regmap("pk"), regmap("gf2m"), regmap("ctrl")


def field(regs, reg, name, value):
    """value placed in reg.name's bits; name may be an enum member of the field."""
    lo, _, enum = regs[reg][1][name]
    return (enum[value] if isinstance(value, str) else value) << lo


def get(regs, reg, name, word):
    lo, w, _ = regs[reg][1][name]
    return (word >> lo) & ((1 << w) - 1)


class TB:
    def __init__(self, dut, seed):
        self.dut = dut
        self.rng = random.Random(seed)
        self.bus = WbMaster(dut, self.rng, idle=(0, 0, 1, 3))   # 0..3 idle cycles before an access
        cocotb.start_soon(Clock(dut.clk_i, 10, unit="ns").start())

    async def reset(self):
        d = self.dut
        await self.bus.reset()
        d.rst_ni.value = 0
        await ClockCycles(d.clk_i, 2)
        d.rst_ni.value = 1
        await RisingEdge(d.clk_i)

    async def access(self, addr, we, data=0, sel=0xF):
        return await self.bus.access(addr, we, data, sel)

    async def write(self, addr, data):
        _, err = await self.access(addr, True, data)
        assert not err, f"bus error writing {addr:#06x}"

    async def read(self, addr):
        data, err = await self.access(addr, False)
        assert not err, f"bus error reading {addr:#06x}"
        return data

    async def words(self, addr, n):
        """n registers from addr on, as big-endian bytes (block byte order)."""
        out = b""
        for i in range(n):
            out += (await self.read(addr + 4 * i)).to_bytes(4, "big")
        return out

    async def wait_status(self, base, regs, name, want, limit=2000):
        for _ in range(limit):
            st = await self.read(base + regs["STATUS"][0])
            if get(regs, "STATUS", name, st) == want:
                return st
        raise AssertionError(f"STATUS.{name} never became {want}")

    # ---- AES helpers --------------------------------------------------------------------
    async def aes_setup(self, mode, key, iv=bytes(16), dec=0, tag_len=0, keylen=None):
        for i in range(8):
            w = key[4 * i:4 * i + 4].ljust(4, b"\0")
            await self.write(AES + A["KEY"][0] + 4 * i, int.from_bytes(w, "big"))
        for i in range(4):
            await self.write(AES + A["IV"][0] + 4 * i, int.from_bytes(iv[4 * i:4 * i + 4], "big"))
        kl = {16: 0, 24: 1, 32: 2}[len(key)] if keylen is None else keylen
        await self.write(AES + A["CTRL"][0], field(A, "CTRL", "MODE", mode) | field(A, "CTRL", "DEC", dec) |
                         field(A, "CTRL", "KEYLEN", kl) | field(A, "CTRL", "TAG_LEN", tag_len))
        await self.aes_cmd("INIT")
        st = await self.wait_status(AES, A, "BUSY", 0)
        return get(A, "STATUS", "RESULT", st)

    async def aes_cmd(self, op, block=b"", n=None):
        blk = block.ljust(16, b"\0")
        for i in range(4):
            await self.write(AES + A["DIN"][0] + 4 * i, int.from_bytes(blk[4 * i:4 * i + 4], "big"))
        await self.wait_status(AES, A, "CMD_READY", 1)
        n = len(block) if n is None else n
        await self.write(AES + A["CMD"][0], field(A, "CMD", "OP", op) | field(A, "CMD", "BYTES", n & 15))

    async def aes_out(self):
        await self.wait_status(AES, A, "OUT_VALID", 1)
        return await self.words(AES + A["DOUT"][0], 4)

    async def aes_result(self):
        st = await self.wait_status(AES, A, "BUSY", 0)
        return get(A, "STATUS", "RESULT", st)

    async def aes_tag(self):
        return await self.words(AES + A["TAG_OUT"][0], 4)

    async def aes_gcm_rest(self, aad, pt):
        """AAD, DATA and FINAL after a GCM encryption's INIT: the ciphertext and the tag."""
        for i in range(0, len(aad), 16):
            await self.aes_cmd("AAD", aad[i:i + 16])
        ct = b""
        for i in range(0, len(pt), 16):
            await self.aes_cmd("DATA", pt[i:i + 16])
            ct += (await self.aes_out())[:len(pt[i:i + 16])]
        await self.aes_cmd("FINAL")
        assert await self.aes_result() == 0
        return ct + await self.aes_tag()

    # ---- SHA helpers --------------------------------------------------------------------
    async def sha_cmd(self, op, block=b"", n=0, le=0):
        """le: the words as a little-endian CPU loads them (for CTRL.DIN_LE = 1)."""
        blk = block.ljust(64, b"\0")
        for i in range(16):
            await self.write(SHA + S["DIN"][0] + 4 * i, int.from_bytes(blk[4 * i:4 * i + 4], "little" if le else "big"))
        await self.wait_status(SHA, S, "CMD_READY", 1)
        await self.write(SHA + S["CMD"][0], field(S, "CMD", "OP", op) | field(S, "CMD", "BYTES", n))

    async def sha_message(self, msg, hmac_mode=0, le=0):
        await self.write(SHA + S["CTRL"][0], field(S, "CTRL", "HMAC", hmac_mode) | field(S, "CTRL", "DIN_LE", le))
        await self.sha_cmd("INIT")
        off = 0
        while len(msg) - off >= 64:
            await self.sha_cmd("BLOCK", msg[off:off + 64], le=le)
            off += 64
        await self.sha_cmd("FINAL", msg[off:], len(msg) - off, le=le)
        st = await self.wait_status(SHA, S, "BUSY", 0)
        assert get(S, "STATUS", "RESULT", st) == 0
        return await self.words(SHA + S["DIGEST"][0], 8)


def seed_of():
    s = int(os.environ.get("SE_TEST_SEED", "20261123"))
    print(f"seed {s} (SE_TEST_SEED replays)")
    return s


@cocotb.test()
async def identification_and_bus_errors(dut):
    tb = TB(dut, seed_of())
    await tb.reset()
    assert await tb.read(AES + A["NAME"][0]) == A["NAME"][2]
    assert await tb.read(AES + A["VERSION"][0]) == A["VERSION"][2]
    assert await tb.read(SHA + S["NAME"][0]) == S["NAME"][2]
    assert await tb.read(PK + P["NAME"][0]) == P["NAME"][2]
    assert await tb.read(GF2M + G["NAME"][0]) == G["NAME"][2]
    # the pk IP through the bus: a slot written and read back; a command while busy is dropped
    for i in range(8):
        await tb.write(PK + P["DIN"][0] + 4 * i, 0x01020304 * (i + 1))
    await tb.write(PK + P["CMD"][0], field(P, "CMD", "OP", "WRITE") | field(P, "CMD", "SLOT", 12))
    await tb.write(PK + P["CMD"][0], field(P, "CMD", "OP", "READ") | field(P, "CMD", "SLOT", 12))
    assert [await tb.read(PK + P["DOUT"][0] + 4 * i) for i in range(8)] == [0x01020304 * (i + 1) for i in range(8)]
    await tb.write(PK + P["CMD"][0], field(P, "CMD", "OP", "CLEAR"))
    await tb.write(PK + P["CMD"][0], field(P, "CMD", "OP", "READ"))  # while CLEAR runs
    assert get(P, "ERR", "CMD_DROPPED", await tb.read(PK + P["ERR"][0])) == 1
    await tb.write(PK + P["ERR"][0], 1)
    cap = await tb.read(AES + A["CAPABILITIES"][0])
    assert get(A, "CAPABILITIES", "KEYLENS", cap) == 0b111 and get(A, "CAPABILITIES", "MODES", cap) == 0x7F
    assert get(A, "CAPABILITIES", "PTBUF_BLOCKS", cap) > 0
    # the pk IP's digit width is the one its microcode (and the model that checked it) assumes
    assert get(P, "CAPABILITIES", "DIGIT", await tb.read(PK + P["CAPABILITIES"][0])) == ucode.DW
    # Unmapped offsets, reserved windows, the hole past a window, partial writes: bus errors.
    past = max(base + size for base, size in WINDOWS.values())
    for addr, we, sel in ((AES + 0xFC, False, 0xF), (PK + 0x100, False, 0xF), (GF2M + 0x110, True, 0xF),
                          (past, False, 0xF), (AES + 0x100, False, 0xF), (SHA + 0x104, True, 0xF),
                          (AES + A["CTRL"][0], True, 0x3)):
        _, err = await tb.access(addr, we, 0x5A5A5A5A, sel)
        assert err, f"no bus error for {addr:#06x}"
    # The refused partial write left CTRL unchanged; keys and DIN read as 0 (write-only).
    assert await tb.read(AES + A["CTRL"][0]) == 0
    await tb.write(AES + A["KEY"][0], 0x01234567)
    assert await tb.read(AES + A["KEY"][0]) == 0


@cocotb.test()
async def aes_and_sha_through_registers(dut):
    tb = TB(dut, seed_of() + 1)
    await tb.reset()
    rng = tb.rng
    for klen in (16, 24, 32):
        key, iv = rng.randbytes(klen), rng.randbytes(16)
        pt = rng.randbytes(64)
        assert await tb.aes_setup("CBC", key, iv) == 0
        got = b""
        for i in range(0, 64, 16):
            await tb.aes_cmd("DATA", pt[i:i + 16])
            got += await tb.aes_out()
        enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
        assert got == enc.update(pt) + enc.finalize(), f"CBC-{klen * 8}"
    # GCM, 96-bit IV, AAD and a partial last block.
    key, nonce, aad, pt = rng.randbytes(16), rng.randbytes(12), rng.randbytes(20), rng.randbytes(37)
    assert await tb.aes_setup("GCM", key, nonce + b"\0\0\0\1", tag_len=16) == 0
    assert await tb.aes_gcm_rest(aad, pt) == AESGCM(key).encrypt(nonce, pt, aad)
    # SHA-256 and HMAC with a held key.
    for n in (0, 55, 56, 64, 130):
        msg = rng.randbytes(n)
        assert await tb.sha_message(msg) == hashlib.sha256(msg).digest()
    k = rng.randbytes(20)
    await tb.sha_cmd("KEY", k)
    st = await tb.wait_status(SHA, S, "BUSY", 0)
    assert get(S, "STATUS", "KEY_VALID", st) == 1
    for n in (0, 100):
        msg = rng.randbytes(n)
        assert await tb.sha_message(msg, 1) == hmac.new(k, msg, hashlib.sha256).digest()


@cocotb.test()
async def sha_little_endian_words(dut):
    """CTRL.DIN_LE: BLOCK, FINAL and KEY take each DIN word byte-reversed (as a little-endian CPU
    loads message bytes); RESUME's chaining value and block count stay numbers. Against hashlib."""
    tb = TB(dut, seed_of() + 5)
    await tb.reset()
    rng = tb.rng
    assert get(S, "CAPABILITIES", "DIN_LE", await tb.read(SHA + S["CAPABILITIES"][0])) == 1
    for n in (0, 3, 55, 56, 64, 130):
        msg = rng.randbytes(n)
        assert await tb.sha_message(msg, le=1) == hashlib.sha256(msg).digest(), n
    k = rng.randbytes(37)
    await tb.write(SHA + S["CTRL"][0], field(S, "CTRL", "DIN_LE", 1))
    await tb.sha_cmd("KEY", k, le=1)
    st = await tb.wait_status(SHA, S, "BUSY", 0)
    assert get(S, "STATUS", "KEY_VALID", st) == 1
    msg = rng.randbytes(90)
    assert await tb.sha_message(msg, 1, le=1) == hmac.new(k, msg, hashlib.sha256).digest()
    # RESUME with DIN_LE set: the chaining value of a message's first block, as numbers, then its
    # second block little-endian; the state read back is that of hashlib's two-block prefix.
    msg = rng.randbytes(128)
    await tb.write(SHA + S["CTRL"][0], field(S, "CTRL", "DIN_LE", 1))
    await tb.sha_cmd("INIT")
    await tb.sha_cmd("BLOCK", msg[:64], le=1)
    await tb.wait_status(SHA, S, "BUSY", 0)
    state = await tb.words(SHA + S["DIGEST"][0], 8)
    other = rng.randbytes(70)
    assert await tb.sha_message(other, le=1) == hashlib.sha256(other).digest()
    words = [int.from_bytes(state[4 * i:4 * i + 4], "big") for i in range(8)] + [0, 1]
    for i, w in enumerate(words):
        await tb.write(SHA + S["DIN"][0] + 4 * i, w)
    await tb.wait_status(SHA, S, "CMD_READY", 1)
    await tb.write(SHA + S["CMD"][0], field(S, "CMD", "OP", "RESUME"))
    await tb.sha_cmd("BLOCK", msg[64:], le=1)
    st = await tb.wait_status(SHA, S, "BUSY", 0)
    assert get(S, "STATUS", "RESULT", st) == 0
    await tb.sha_cmd("FINAL", b"", 0, le=1)
    st = await tb.wait_status(SHA, S, "BUSY", 0)
    assert get(S, "STATUS", "RESULT", st) == 0
    assert await tb.words(SHA + S["DIGEST"][0], 8) == hashlib.sha256(msg).digest()


@cocotb.test()
async def sha_keep_outer(dut):
    """KEEP and OUTER (SHA 1.3): an HMAC over a message whose length the engine is not told. The test
    pads the message itself (FIPS 180-4 5.1.1, the key block counted) and sends as many blocks as a
    longer message would need, KEEP for the block the message ends in and BLOCK with junk for the
    rest; OUTER's digest is hmac's. OUTER outside an HMAC, or after a plain INIT: BAD_SEQ."""
    tb = TB(dut, seed_of() + 6)
    await tb.reset()
    rng = tb.rng
    RS = S["STATUS"][1]["RESULT"][2]
    assert get(S, "CAPABILITIES", "KEEP_OUTER", await tb.read(SHA + S["CAPABILITIES"][0])) == 1
    k = rng.randbytes(32)
    await tb.write(SHA + S["CTRL"][0], 0)
    await tb.sha_cmd("KEY", k, len(k))
    await tb.wait_status(SHA, S, "BUSY", 0)
    for n, blocks in ((0, 1), (55, 2), (56, 2), (100, 4), (119, 2), (200, 5)):
        msg = rng.randbytes(n)
        padded = msg + b"\x80" + bytes(-(n + 9) % 64) + (8 * (64 + n)).to_bytes(8, "big")
        ends = len(padded) // 64 - 1
        await tb.write(SHA + S["CTRL"][0], field(S, "CTRL", "HMAC", 1))
        await tb.sha_cmd("INIT")
        for j in range(blocks):
            blk = padded[64 * j:64 * j + 64] if j <= ends else rng.randbytes(64)
            await tb.sha_cmd("KEEP" if j == ends else "BLOCK", blk)
        await tb.sha_cmd("OUTER")
        st = await tb.wait_status(SHA, S, "BUSY", 0)
        assert get(S, "STATUS", "RESULT", st) == 0 and get(S, "STATUS", "DIGEST_VALID", st) == 1
        assert await tb.words(SHA + S["DIGEST"][0], 8) == hmac.new(k, msg, hashlib.sha256).digest(), n
    await tb.sha_cmd("OUTER")
    st = await tb.wait_status(SHA, S, "BUSY", 0)
    assert get(S, "STATUS", "RESULT", st) == RS["BAD_SEQ"]
    await tb.write(SHA + S["CTRL"][0], 0)
    await tb.sha_cmd("INIT")
    await tb.sha_cmd("KEEP", bytes(64))
    await tb.sha_cmd("OUTER")
    st = await tb.wait_status(SHA, S, "BUSY", 0)
    assert get(S, "STATUS", "RESULT", st) == RS["BAD_SEQ"]


@cocotb.test()
async def bad_sequences(dut):
    tb = TB(dut, seed_of() + 2)
    await tb.reset()
    R = A["STATUS"][1]["RESULT"][2]
    # Key length 3 is not a key length; an unconfigured engine refuses DATA.
    assert await tb.aes_setup("ECB", bytes(16), keylen=3) == R["BAD_KEYLEN"]
    await tb.aes_cmd("DATA", bytes(16))
    assert await tb.aes_result() == R["BAD_SEQ"]
    # Reading DOUT with nothing to read: 0 and ERR.EARLY_READ, no hang.
    assert await tb.read(AES + A["DOUT"][0] + 12) == 0
    err = await tb.read(AES + A["ERR"][0])
    assert get(A, "ERR", "EARLY_READ", err) == 1
    await tb.write(AES + A["ERR"][0], err)
    assert await tb.read(AES + A["ERR"][0]) == 0
    # Commands written faster than the engine takes them are dropped and flagged, never queued
    # silently: INIT then DATA x6 without looking at CMD_READY or reading the output.
    assert await tb.aes_setup("ECB", bytes(16)) == 0
    for _ in range(6):
        await tb.write(AES + A["CMD"][0], field(A, "CMD", "OP", "DATA"))
    err = await tb.read(AES + A["ERR"][0])
    assert get(A, "ERR", "CMD_DROPPED", err) == 1
    await tb.write(AES + A["ERR"][0], err)
    # Drain: the engine holds each result until DOUT3 is read, then finishes.
    for _ in range(20):
        st = await tb.read(AES + A["STATUS"][0])
        if get(A, "STATUS", "OUT_VALID", st):
            await tb.aes_out()
        elif not get(A, "STATUS", "BUSY", st):
            break
    else:
        raise AssertionError("the engine did not drain")
    # GCM decryption with a wrong tag: TAG_FAIL, no output block ever, TAG_OUT stays 0.
    key, nonce, pt = os.urandom(16), os.urandom(12), os.urandom(40)
    sealed = bytearray(AESGCM(key).encrypt(nonce, pt, b""))
    sealed[-1] ^= 1
    for i in range(4):
        await tb.write(AES + A["TAG_IN"][0] + 4 * i, int.from_bytes(sealed[-16:][4 * i:4 * i + 4], "big"))
    assert await tb.aes_setup("GCM", key, nonce + b"\0\0\0\1", dec=1, tag_len=16) == 0
    ct = bytes(sealed[:-16])
    for i in range(0, len(ct), 16):
        await tb.aes_cmd("DATA", ct[i:i + 16])
        assert get(A, "STATUS", "OUT_VALID", await tb.read(AES + A["STATUS"][0])) == 0
    await tb.aes_cmd("FINAL")
    assert await tb.aes_result() == R["TAG_FAIL"]
    assert get(A, "STATUS", "OUT_VALID", await tb.read(AES + A["STATUS"][0])) == 0
    assert await tb.aes_tag() == bytes(16)
    assert await tb.read(AES + A["DOUT"][0]) == 0
    # SHA: BLOCK before INIT, and a FINAL of 64 bytes.
    RS = S["STATUS"][1]["RESULT"][2]
    await tb.write(SHA + S["CTRL"][0], 0)
    await tb.sha_cmd("BLOCK", bytes(64))
    st = await tb.wait_status(SHA, S, "BUSY", 0)
    assert get(S, "STATUS", "RESULT", st) == RS["BAD_SEQ"]
    await tb.sha_cmd("INIT")
    await tb.sha_cmd("FINAL", bytes(64), 64 & 0x7F)
    st = await tb.wait_status(SHA, S, "BUSY", 0)
    assert get(S, "STATUS", "RESULT", st) == RS["BAD_LENGTH"]


@cocotb.test()
async def key_slots(dut):
    """Key slots (AES 1.1): keys loaded once and used by INIT with CTRL.USE_SLOT, results checked
    against the `cryptography` package; a slot's GCM H computed once, then taken from the slot; no
    address of the AES window reads a slot's key back; WIPE empties a slot (INIT: BAD_SLOT); bad
    and mistimed SLOT_CMD writes are dropped and flagged."""
    tb = TB(dut, seed_of() + 5)
    await tb.reset()
    rng = tb.rng
    R = A["STATUS"][1]["RESULT"][2]
    assert get(A, "CAPABILITIES", "SLOTS", await tb.read(AES + A["CAPABILITIES"][0])) == 4
    assert (await tb.read(AES + A["VERSION"][0])) >> 16 == 0x0101

    async def load(idx, key):
        for i in range(8):
            await tb.write(AES + A["KEY"][0] + 4 * i, int.from_bytes(key[4 * i:4 * i + 4].ljust(4, b"\0"), "big"))
        await tb.write(AES + A["CTRL"][0], field(A, "CTRL", "KEYLEN", {16: 0, 24: 1, 32: 2}[len(key)]))
        await tb.write(AES + A["SLOT_CMD"][0], field(A, "SLOT_CMD", "OP", "LOAD") | field(A, "SLOT_CMD", "IDX", idx))

    async def slot_status():
        return await tb.read(AES + A["SLOT_STATUS"][0])

    async def init_from(idx, mode, iv=bytes(16), tag_len=0, dec=0):
        for i in range(4):
            await tb.write(AES + A["IV"][0] + 4 * i, int.from_bytes(iv[4 * i:4 * i + 4], "big"))
        await tb.write(AES + A["CTRL"][0], field(A, "CTRL", "MODE", mode) | field(A, "CTRL", "DEC", dec) |
                       field(A, "CTRL", "TAG_LEN", tag_len) | field(A, "CTRL", "USE_SLOT", 1) |
                       field(A, "CTRL", "SLOT", idx) | field(A, "CTRL", "KEYLEN", 3))  # KEYLEN ignored
        await tb.aes_cmd("INIT")
        return await tb.aes_result()

    async def gcm(idx, key):
        nonce, aad, pt = rng.randbytes(12), rng.randbytes(13), rng.randbytes(40)
        assert await init_from(idx, "GCM", nonce + b"\0\0\0\1", tag_len=16) == 0
        assert await tb.aes_gcm_rest(aad, pt) == AESGCM(key).encrypt(nonce, pt, aad), f"GCM from slot {idx}"

    k1, k2 = rng.randbytes(16), rng.randbytes(32)
    await load(1, k1)
    await load(2, k2)
    # The KEY registers change after the loads: the slots keep what they took.
    for i in range(8):
        await tb.write(AES + A["KEY"][0] + 4 * i, 0)
    assert get(A, "SLOT_STATUS", "KEY_VALID", await slot_status()) == 0b0110
    assert get(A, "SLOT_STATUS", "H_VALID", await slot_status()) == 0
    await gcm(1, k1)                                   # computes H and keeps it in slot 1
    assert get(A, "SLOT_STATUS", "H_VALID", await slot_status()) == 0b0010
    await gcm(1, k1)                                   # H from the slot
    iv, pt = rng.randbytes(16), rng.randbytes(48)
    assert await init_from(2, "CBC", iv) == 0
    got = b""
    for i in range(0, len(pt), 16):
        await tb.aes_cmd("DATA", pt[i:i + 16])
        got += await tb.aes_out()
    enc = Cipher(algorithms.AES(k2), modes.CBC(iv)).encryptor()
    assert got == enc.update(pt) + enc.finalize(), "CBC-256 from slot 2"
    # No address of the window reads a key word back (a bus error is no read at all).
    secret = {int.from_bytes(k[i:i + 4], "big") for k in (k1, k2) for i in range(0, len(k), 4)}
    for off in range(0, WINDOWS["aes"][1], 4):
        data, err = await tb.access(AES + off, False)
        assert err or data not in secret, f"a key word reads back at {off:#x}"
    # WIPE: slot 1 empty, its INIT refused; slot 3 was never loaded.
    await tb.write(AES + A["SLOT_CMD"][0], field(A, "SLOT_CMD", "OP", "WIPE") | field(A, "SLOT_CMD", "IDX", 1))
    st = await slot_status()
    assert get(A, "SLOT_STATUS", "KEY_VALID", st) == 0b0100 and get(A, "SLOT_STATUS", "H_VALID", st) == 0
    assert await init_from(1, "GCM", tag_len=16) == R["BAD_SLOT"]
    assert await init_from(3, "ECB") == R["BAD_SLOT"]
    await tb.aes_cmd("DATA", bytes(16))                # nothing configured after a refused INIT
    assert await tb.aes_result() == R["BAD_SEQ"]
    # Bad SLOT_CMD writes: OP 0 and 3, and a LOAD while an INIT runs, are dropped and flagged.
    await tb.write(AES + A["ERR"][0], 0xFFFFFFFF)
    for op in (0, 3):
        await tb.write(AES + A["SLOT_CMD"][0], op | field(A, "SLOT_CMD", "IDX", 3))
        err = await tb.read(AES + A["ERR"][0])
        assert get(A, "ERR", "SLOT_DROPPED", err) == 1
        await tb.write(AES + A["ERR"][0], err)
    await tb.write(AES + A["CTRL"][0], field(A, "CTRL", "MODE", "GCM") | field(A, "CTRL", "TAG_LEN", 16) |
                   field(A, "CTRL", "USE_SLOT", 1) | field(A, "CTRL", "SLOT", 2))   # AES-256: 14 rounds for H
    await tb.write(AES + A["CMD"][0], field(A, "CMD", "OP", "INIT"))
    await tb.write(AES + A["SLOT_CMD"][0], field(A, "SLOT_CMD", "OP", "LOAD") | field(A, "SLOT_CMD", "IDX", 3))
    assert await tb.aes_result() == 0
    assert get(A, "ERR", "SLOT_DROPPED", await tb.read(AES + A["ERR"][0])) == 1
    assert get(A, "SLOT_STATUS", "KEY_VALID", await slot_status()) == 0b0100


@cocotb.test()
async def done_interrupt(dut):
    tb = TB(dut, seed_of() + 3)
    await tb.reset()
    assert dut.irq_o.value == 0
    await tb.write(SHA + S["INTR_ENABLE"][0], 1)
    await tb.sha_message(b"abc")
    assert dut.irq_o.value == 1
    await tb.write(SHA + S["INTR_STATE"][0], 1)
    await RisingEdge(dut.clk_i)
    assert dut.irq_o.value == 0
    # Enabled but no event: no interrupt; AES DONE after INIT raises it.
    await tb.write(AES + A["INTR_ENABLE"][0], 1)
    assert dut.irq_o.value == 0
    await tb.aes_setup("CTR", bytes(16))
    assert dut.irq_o.value == 1
    busy = await tb.read(AES + A["BUSY_CYCLES"][0])
    assert busy > 0


def leaf_cert():
    """A P-256 leaf with a commonName and a subjectAltName, made by the `cryptography` package."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "node.example")])
    t = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(77).not_valid_before(t).not_valid_after(t + datetime.timedelta(days=400))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("node.example")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    return cert, cert.public_bytes(serialization.Encoding.DER)


class Ctrl:
    """The protocol controller through its registers (rtl/ctrl/regs.toml)."""

    def __init__(self, tb):
        self.tb = tb
        rom = ctrl_asm.load()
        self.prog = {p["name"]: i for i, p in enumerate(rom.table)}
        self.slot = rom.slots

    async def err(self):
        """ERR, then cleared."""
        e = await self.tb.read(CTRL + C["ERR"][0])
        await self.tb.write(CTRL + C["ERR"][0], 0xFFFFFFFF)
        return e

    async def load(self, addr, data):
        await self.tb.write(CTRL + C["WIN_ADDR"][0], addr)
        data = data + bytes(-len(data) % 4)
        for i in range(0, len(data), 4):
            await self.tb.write(CTRL + C["WIN_WDATA"][0], int.from_bytes(data[i:i + 4], "little"))

    async def dump(self, addr, n):
        await self.tb.write(CTRL + C["WIN_ADDR"][0], addr)
        out = b""
        while len(out) < n:
            out += (await self.tb.read(CTRL + C["WIN_RDATA"][0])).to_bytes(4, "little")
        return out[:n]

    async def start(self, prog, regs=None):
        for i, v in (regs or {}).items():
            await self.tb.write(CTRL + C["SETREG"][0], field(C, "SETREG", "IDX", i) | field(C, "SETREG", "DATA", v))
        await self.tb.write(CTRL + C["CMD"][0], field(C, "CMD", "OP", "START") |
                            field(C, "CMD", "PROG", self.prog.get(prog, prog)))

    async def wipe(self):
        """CMD WIPE, waited for, its DONE cleared."""
        await self.tb.write(CTRL + C["CMD"][0], field(C, "CMD", "OP", "WIPE"))
        await self.tb.wait_status(CTRL, C, "BUSY", 0, limit=1000)
        await self.tb.write(CTRL + C["INTR_STATE"][0], 1)

    async def result(self, limit=20000):
        st = await self.tb.wait_status(CTRL, C, "BUSY", 0, limit=limit)
        return {v: k for k, v in ctrl_isa.STATUS.items()}[get(C, "STATUS", "RESULT", st)]

    async def outputs(self):
        valid = await self.tb.read(CTRL + C["OUT_VALID"][0])
        return {name: await self.tb.read(CTRL + C["OUT"][0] + 4 * i) for name, i in self.slot.items()
                if valid >> i & 1}


@cocotb.test()
async def ctrl_window_and_x509(dut):
    """The window written and read back word by word (back-to-back accesses included), but for its
    secret top, which is never read and written only where the bus provisions (ERR.WIN_SECRET);
    range errors; X509_PARSE on a
    certificate the `cryptography` package made: its spans, numbers and times."""
    tb = TB(dut, seed_of() + 4)
    await tb.reset()
    c = Ctrl(tb)
    assert await tb.read(CTRL + C["NAME"][0]) == C["NAME"][2]
    kib = get(C, "CAPABILITIES", "WINDOW_KIB", await tb.read(CTRL + C["CAPABILITIES"][0]))
    assert kib * 1024 == ctrl_isa.MEM_BYTES
    secret = ctrl_isa.SECRET_BASE
    assert get(C, "CAPABILITIES", "SECRET_WORDS", await tb.read(CTRL + C["CAPABILITIES"][0])) * 4 == \
        ctrl_isa.MEM_BYTES - secret
    data = tb.rng.randbytes(ctrl_isa.MEM_BYTES)
    await c.load(0, data[:secret])
    assert await c.err() == 0
    # The secret top takes bus writes only at the DRBG's entropy input and the client's key (this
    # one from a WIPE until a program runs; not out of reset, which leaves the window as it was):
    # elsewhere a write is refused, WIN_ADDR left where it was.
    rom = ctrl_asm.load()
    for at, ok in ((rom.equ["ENT_AT"], 1), (rom.equ["ENT_AT"] + 124, 1), (rom.equ["CK_AT"], 0), (secret, 0), (rom.equ["MS_AT"], 0),
                   (rom.equ["ENT_AT"] - 4, 0), (rom.equ["DK_AT"], 0), ("wipe", 0), (rom.equ["CK_AT"], 1),
                   (rom.equ["CK_AT"] + 28, 1)):
        if at == "wipe":
            await c.wipe()
            continue
        await tb.write(CTRL + C["WIN_ADDR"][0], at)
        await tb.write(CTRL + C["WIN_WDATA"][0], 0x12345678)
        assert get(C, "ERR", "WIN_SECRET", await c.err()) == 1 - ok, hex(at)
        assert await tb.read(CTRL + C["WIN_ADDR"][0]) == at + 4 * ok
    assert await c.dump(0, secret) == data[:secret]
    at = 4 * tb.rng.randrange(secret // 4 - 8)
    assert await c.dump(at, 32) == data[at:at + 32]
    assert await c.err() == 0
    # The secret top: every word refused, read as 0, WIN_ADDR left where it was.
    for addr in (secret, secret + 4 * tb.rng.randrange((ctrl_isa.MEM_BYTES - secret) // 4), ctrl_isa.MEM_BYTES - 4):
        await tb.write(CTRL + C["WIN_ADDR"][0], addr)
        assert await tb.read(CTRL + C["WIN_RDATA"][0]) == 0
        assert get(C, "ERR", "WIN_SECRET", await c.err()) == 1
        assert await tb.read(CTRL + C["WIN_ADDR"][0]) == addr
    await tb.write(CTRL + C["WIN_ADDR"][0], secret - 4)    # the last public word, then the first secret one
    assert await tb.read(CTRL + C["WIN_RDATA"][0]) == int.from_bytes(data[secret - 4:secret], "little")
    assert await tb.read(CTRL + C["WIN_RDATA"][0]) == 0
    assert get(C, "ERR", "WIN_SECRET", await c.err()) == 1
    # Unaligned or past the window: refused, read as 0, WIN_ADDR left where it was.
    for addr in (2, ctrl_isa.MEM_BYTES, 0x10000):
        await tb.write(CTRL + C["WIN_ADDR"][0], addr)
        await tb.write(CTRL + C["WIN_WDATA"][0], 0xDEADBEEF)
        assert await tb.read(CTRL + C["WIN_RDATA"][0]) == 0
        assert get(C, "ERR", "WIN_RANGE", await c.err()) == 1
        assert await tb.read(CTRL + C["WIN_ADDR"][0]) == addr
    assert await c.dump(0, secret) == data[:secret]   # (nothing written)

    cert, der = leaf_cert()
    await c.load(0, der)
    await c.start("X509_PARSE", {1: 0, 2: len(der)})
    assert await c.result() == "OK"
    out = await c.outputs()
    span = lambda v: der[v & 0xFFFF:(v & 0xFFFF) + (v >> 16)]  # noqa: E731
    assert span(out["TBS"]) == cert.tbs_certificate_bytes
    assert span(out["SUBJECT"]) == cert.subject.public_bytes() == span(out["ISSUER"])
    assert span(out["CN"]) == b"node.example"
    pub = cert.public_key().public_numbers()
    assert int.from_bytes(span(out["PUB_X"]), "big") == pub.x and int.from_bytes(span(out["PUB_Y"]), "big") == pub.y
    assert out["IS_CA"] == 0 and out["PATH_LEN"] == 0xFFFF and "KEY_USAGE" not in out
    nb, na = out["NOT_BEFORE"], out["NOT_AFTER"]
    assert await c.dump(nb & 0xFFFF, nb >> 16) == cert.not_valid_before_utc.strftime("%Y%m%d%H%M%S").encode()
    assert await c.dump(na & 0xFFFF, na >> 16) == cert.not_valid_after_utc.strftime("%Y%m%d%H%M%S").encode()
    # A truncated certificate: the software stack's refusal, and START cleared the outputs first.
    await c.start("X509_PARSE", {1: 0, 2: len(der) - 1})
    assert await c.result() == "CERT_MALFORMED"
    assert "TBS" not in await c.outputs()
    assert await c.err() == 0


@cocotb.test()
async def ctrl_bad_sequences(dut):
    """While a program runs, CMD, SETREG and the window are refused (ERR.CMD_DROPPED) and change
    nothing; an unknown OP is ERR.BAD_CMD; a program number with no program stops with BAD_PROGRAM;
    DONE raises the interrupt."""
    tb = TB(dut, seed_of() + 5)
    await tb.reset()
    c = Ctrl(tb)
    cert, der = leaf_cert()
    await c.load(0, der)
    await tb.write(CTRL + C["INTR_ENABLE"][0], 1)
    await c.start("X509_PARSE", {1: 0, 2: len(der)})
    assert get(C, "STATUS", "BUSY", await tb.read(CTRL + C["STATUS"][0])) == 1
    await c.start("VALIDITY")                                    # dropped: the parse goes on
    await tb.write(CTRL + C["SETREG"][0], field(C, "SETREG", "IDX", 2) | field(C, "SETREG", "DATA", 1))
    await tb.write(CTRL + C["WIN_ADDR"][0], 0)
    await tb.write(CTRL + C["WIN_WDATA"][0], 0)
    assert await tb.read(CTRL + C["WIN_RDATA"][0]) == 0
    assert get(C, "ERR", "CMD_DROPPED", await c.err()) == 1
    assert dut.irq_o.value == 0
    assert await c.result() == "OK"
    assert dut.irq_o.value == 1
    await tb.write(CTRL + C["INTR_STATE"][0], 1)
    assert await c.dump(0, len(der)) == der                      # the write was dropped
    assert "TBS" in await c.outputs()
    for op in (0, 3):
        await tb.write(CTRL + C["CMD"][0], op)
        assert get(C, "ERR", "BAD_CMD", await c.err()) == 1
        assert get(C, "STATUS", "BUSY", await tb.read(CTRL + C["STATUS"][0])) == 0
    await c.start(31)                                            # (no such program)
    assert 31 >= len(c.prog)
    assert await c.result() == "BAD_PROGRAM"
    assert await c.outputs() == {}
    assert dut.irq_o.value == 1
    assert await tb.read(CTRL + C["BUSY_CYCLES"][0]) > 0


@cocotb.test()
async def ctrl_sha256(dut):
    """The program SHA256 on the SHA IP: the NIST CAVP short and long messages that fit the window
    (cryptography-vectors), split across blocks as SHAU stages them, whatever the SHA registers'
    CTRL.HMAC says; while it holds the IP, the SHA registers' commands are dropped and the digest
    stays right. The transcript programs (TS_START, TS_ADD, TS_HASH) over CAVP messages, with the CPU's
    messages and other programs on the IP between them."""
    from nist import parse
    tb = TB(dut, seed_of() + 6)
    await tb.reset()
    c = Ctrl(tb)
    root = os.environ["SE_VECTORS"]
    msgs = []
    for name in ("SHA256ShortMsg.rsp", "SHA256LongMsg.rsp"):
        for _, r in parse(os.path.join(root, "hashes", "SHA2", name)):
            n = int(r["Len"]) // 8
            if n <= 3000:
                msgs.append((bytes.fromhex(r["Msg"])[:n], bytes.fromhex(r["MD"])))
    assert len(msgs) > 70
    digest_at = ctrl_isa.SECRET_BASE - 32
    await tb.write(SHA + S["CTRL"][0], field(S, "CTRL", "HMAC", 1))   # the CPU's setting: not the program's
    for i, (msg, md) in enumerate(msgs):
        await c.load(0, msg)
        await c.start("SHA256", {1: 0, 2: len(msg), 3: digest_at})
        if i == len(msgs) - 1:   # the longest: meddle with the SHA IP while the program hashes
            await ClockCycles(dut.clk_i, 200)
            assert get(C, "STATUS", "BUSY", await tb.read(CTRL + C["STATUS"][0])) == 1
            await tb.write(SHA + S["CMD"][0], field(S, "CMD", "OP", "INIT"))
            assert get(S, "ERR", "CMD_DROPPED", await tb.read(SHA + S["ERR"][0])) == 1
        assert await c.result() == "OK", len(msg)
        out = await c.outputs()
        assert out == {"DIGEST": 32 << 16 | digest_at}
        assert await c.dump(digest_at, 32) == md, len(msg)
    # An empty span, and one that ends before it begins (BAD_INPUT)
    await c.start("SHA256", {1: 8, 2: 8, 3: digest_at})
    assert await c.result() == "OK"
    assert await c.dump(digest_at, 32) == hashlib.sha256(b"").digest()
    await c.start("SHA256", {1: 9, 2: 8, 3: digest_at})
    assert await c.result() == "BAD_INPUT"
    # The SHA IP is the CPU's again once the program is over.
    assert await tb.sha_message(b"abc") == hashlib.sha256(b"abc").digest()
    # A transcript of CAVP messages kept across programs (TS_ADD resumes the IP from the state it
    # saved), the CPU's own SHA-256 messages and a SHA256 program between the adds
    await c.start("TS_START")
    assert await c.result() == "OK"
    seen = b""
    below_state = [(msg, md) for msg, md in msgs if len(msg) <= ctrl_asm.load().equ["HS_AT"]]   # (TS_ADD's inputs)
    for i, (msg, _) in enumerate(below_state[-12::2]):
        await c.load(0, msg)
        await c.start("TS_ADD", {1: 0, 2: len(msg)})
        assert await c.result() == "OK"
        seen += msg
        await c.start("TS_HASH", {1: digest_at})
        assert await c.result() == "OK"
        assert await c.dump(digest_at, 32) == hashlib.sha256(seen).digest(), i
        assert await tb.sha_message(msg[:100]) == hashlib.sha256(msg[:100]).digest()
        await c.start("SHA256", {1: 0, 2: 5, 3: digest_at})
        assert await c.result() == "OK"


def test_engine_wb(vectors):
    run_cocotb("se_engine", ENGINE_SOURCES, "test_engine_wb", extra_env={"SE_VECTORS": str(vectors)})


class Pk:
    """The pk IP through its registers (rtl/pk/regs.toml): slots, programs, P-256 with G's table."""

    def __init__(self, tb):
        self.tb = tb

    async def cmd(self, op, slot=0, prog=0):
        await self.tb.write(PK + P["CMD"][0], field(P, "CMD", "OP", op) | field(P, "CMD", "SLOT", slot) |
                            field(P, "CMD", "PROG", prog))
        st = await self.tb.wait_status(PK, P, "BUSY", 0, limit=400000)
        return get(P, "STATUS", "RESULT", st)

    async def write(self, slot, v):
        for i in range(8):
            await self.tb.write(PK + P["DIN"][0] + 4 * i, v >> (224 - 32 * i) & 0xFFFFFFFF)
        assert await self.cmd("WRITE", ctrl_isa.PK_SLOT[slot]) == 0

    async def dout(self):
        v = 0
        for i in range(8):
            v = v << 32 | await self.tb.read(PK + P["DOUT"][0] + 4 * i)
        return v

    async def read(self, slot):
        assert await self.cmd("READ", ctrl_isa.PK_SLOT[slot]) == 0
        return await self.dout()

    async def p256(self, g=None):
        """P-256 loaded (FIELD, ORDER, CURVE) and G's comb table in cache entry 0, as the driver's
        se_drv_pk_hold_curve leaves them (or the table of another point g)."""
        import p256_model as c
        g = g or c.G
        for slot, v in (("P", c.P), ("N", c.N), ("A", c.A), ("B", c.B), ("GX", g[0]), ("GY", g[1]),
                        ("QX", g[0]), ("QY", g[1])):
            await self.write(slot, v)
        for prog in ("FIELD", "ORDER", "CURVE", "PRECOMP"):
            assert await self.cmd("RUN", 0, ctrl_isa.PK_PROG[prog]) == 0, prog


@cocotb.test()
async def ctrl_secrets(dut):
    """The window's secret top and what the programs do with it. HMAC and the PRF on the real SHA IP
    (Python's hmac the reference). ECDHE on the real pk IP with a k from the DRBG, seeded with entropy
    the bus wrote at ENT_AT and cannot read back: k G as the `cryptography` package computes it; pk's DOUT 0 to the bus all the while,
    and pk's slots and DOUT cleared once it is over. MASTER, KEYS and FINISHED after it, the write keys
    used from the AES IP's key slots, the SHA IP's DIGEST hidden from the bus while and after the
    controller hashes secrets. SIGN with a key the bus wrote, against RFC 6979 ECDSA, and refused on
    a G table of another point. WIPE: STATUS.BUSY, dropped commands and window
    accesses, DONE at its end; the DRBG it zeroed is refused (NO_ENTROPY), the public bytes below kept."""
    from drbg_model import HmacDrbg
    from tls_prf import p_sha256 as prf
    tb = TB(dut, seed_of() + 7)
    await tb.reset()
    c, pk = Ctrl(tb), Pk(tb)
    rom = ctrl_asm.load()
    ent_at, key_at, msg_at, out_at, peer_at, pub_at = rom.equ["ENT_AT"], 0x0100, 0x0200, 0x0800, 0x0300, 0x0340
    key, msg = tb.rng.randbytes(48), b"master secret" + tb.rng.randbytes(64)
    await c.load(key_at, key)
    await c.load(msg_at, msg)
    regs = {1: key_at, 2: key_at + len(key), 3: msg_at, 4: msg_at + len(msg), 5: out_at}
    await c.start("HMAC", regs)
    assert await c.result() == "OK"
    assert await c.dump(out_at, 32) == hmac.new(key, msg, hashlib.sha256).digest()
    await c.start("PRF", {**regs, 6: 48})
    assert await c.result() == "OK"
    assert await c.dump(out_at, 48) == prf(key, msg, 48)
    await c.start("PRF", {**regs, 5: ctrl_isa.SECRET_BASE, 6: 48})   # an output in the secret top: refused
    assert await c.result() == "BAD_INPUT"

    # ECDHE on pk. First a curve of the bus's making, P-256's p and n but y^2 = x^3 through (4, 8), on
    # which k G would give k away: refused (ENGINE) before k goes into pk, nothing written at r3.
    import p256_model as p256
    for slot, v in (("P", p256.P), ("N", p256.N), ("A", 0), ("B", 0), ("GX", 4), ("GY", 8), ("QX", 4), ("QY", 8)):
        await pk.write(slot, v)
    for prog in ("FIELD", "ORDER", "CURVE", "PRECOMP"):
        assert await pk.cmd("RUN", 0, ctrl_isa.PK_PROG[prog]) == 0, prog
    await c.load(pub_at, bytes(64))
    await c.start("ECDHE", {2: peer_at, 3: pub_at})               # (no seed yet: the curve is checked first)
    assert await c.result(limit=200000) == "ENGINE"
    assert await c.dump(pub_at, 64) == bytes(64)
    await pk.p256()
    # The DRBG seeded with entropy the bus writes and cannot read back; k is its next 32 bytes.
    entropy = tb.rng.randbytes(32)
    await c.load(ent_at, entropy)
    await tb.write(CTRL + C["WIN_ADDR"][0], ent_at)
    assert await tb.read(CTRL + C["WIN_RDATA"][0]) == 0
    assert get(C, "ERR", "WIN_SECRET", await c.err()) == 1
    await c.start("DRBG_SEED", {1: 32, 2: msg_at, 3: msg_at + 16, 4: 0})
    assert await c.result() == "OK"
    k = int.from_bytes(HmacDrbg(entropy, msg[:16], b"").generate(32, b""), "big")
    mine, peer = ec.derive_private_key(k, ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1()).public_key()
    pn = peer.public_numbers()
    await c.load(peer_at, pn.x.to_bytes(32, "big") + pn.y.to_bytes(32, "big"))
    await c.start("ECDHE", {2: peer_at, 3: pub_at})
    douts = []
    while get(C, "STATUS", "BUSY", await tb.read(CTRL + C["STATUS"][0])):
        douts.append(await pk.dout())
    assert len(douts) > 100 and set(douts) == {0}, "pk's DOUT showed while the controller held pk"
    assert await c.result() == "OK"
    mn = mine.public_key().public_numbers()
    assert await c.dump(pub_at, 64) == mn.x.to_bytes(32, "big") + mn.y.to_bytes(32, "big")
    assert await pk.dout() == 0
    for slot in ("K", "QX", "RX", "RY"):
        assert await pk.read(slot) == 0, f"pk's {slot} kept after the program"

    # The key schedule over that premaster: MASTER (extended), then KEYS into AES key slots 2 and 0, which the
    # bus never sees: GCM from slot 2 as the `cryptography` package gives it with the client's write
    # key that the PRF of RFC 5246 (tests/tls_prf.py) derives; the IVs; the client's Finished.
    pms = mine.exchange(ec.ECDH(), peer)
    cr_at, ivs_at, hash_at, vd_at = 0x0400, 0x0440, 0x0460, 0x0480
    cr, sr, h = tb.rng.randbytes(32), tb.rng.randbytes(32), hashlib.sha256(b"transcript").digest()
    await c.load(cr_at, cr + sr + bytes(32) + h)
    await c.start("MASTER", {1: hash_at, 3: 1})                  # RFC 7627's, over a session hash
    seen = set()   # the SHA IP's DIGEST and its STATUS while the controller hashes the premaster
    while get(C, "STATUS", "BUSY", await tb.read(CTRL + C["STATUS"][0])):
        st = await tb.read(SHA + S["STATUS"][0])
        seen.add((await tb.words(SHA + S["DIGEST"][0], 8), get(S, "STATUS", "DIGEST_VALID", st),
                  get(S, "STATUS", "STATE_VALID", st)))
    assert await c.result() == "OK"
    assert len(seen) == 1 and seen.pop() == (bytes(32), 0, 0), "the SHA IP showed the controller's hashing"
    assert await tb.words(SHA + S["DIGEST"][0], 8) == bytes(32)
    await tb.write(SHA + S["CTRL"][0], field(S, "CTRL", "HMAC", 1))          # an HMAC INIT with no key held:
    await tb.sha_cmd("INIT")                                                  # refused, and the digest stays hidden
    st = await tb.wait_status(SHA, S, "BUSY", 0)
    assert get(S, "STATUS", "RESULT", st) == S["STATUS"][1]["RESULT"][2]["BAD_SEQ"]
    assert await tb.words(SHA + S["DIGEST"][0], 8) == bytes(32) and get(S, "STATUS", "DIGEST_VALID", st) == 0
    # The master secret is the programs' alone: a bus write there is refused (ERR.WIN_SECRET)
    await c.load(rom.equ["MS_AT"], bytes(4))
    assert get(C, "ERR", "WIN_SECRET", await c.err()) == 1
    # KEYS, with the CPU hammering SLOT_CMD LOAD (of a key of its own) on slot 2 all the while: a LOAD
    # that lands between AESK's bytes is dropped (ERR.SLOT_DROPPED), so the slot ends with either the
    # derived key or the CPU's whole, never a splice of the two (checked below by GCM with each)
    mine_key = tb.rng.randbytes(16)
    for i in range(4):
        await tb.write(AES + A["KEY"][0] + 4 * i, int.from_bytes(mine_key[4 * i:4 * i + 4], "big"))
    for i in range(4, 8):
        await tb.write(AES + A["KEY"][0] + 4 * i, 0)
    await tb.write(AES + A["CTRL"][0], field(A, "CTRL", "KEYLEN", 0))
    await tb.write(AES + A["ERR"][0], 0xFFFFFFFF)
    await c.start("KEYS", {1: cr_at, 2: cr_at + 32, 3: 2, 4: 0, 5: ivs_at})
    drops = 0
    while get(C, "STATUS", "BUSY", await tb.read(CTRL + C["STATUS"][0])):
        await tb.write(AES + A["SLOT_CMD"][0], field(A, "SLOT_CMD", "OP", "LOAD") | field(A, "SLOT_CMD", "IDX", 2))
        if get(A, "ERR", "SLOT_DROPPED", await tb.read(AES + A["ERR"][0])):
            drops += 1
            await tb.write(AES + A["ERR"][0], 0xFFFFFFFF)
    assert await c.result() == "OK"
    assert drops > 0, "no LOAD landed between AESK's bytes"
    ms = prf(pms, b"extended master secret" + h, 48)
    kb = prf(ms, b"key expansion" + sr + cr, 40)
    assert await c.dump(ivs_at, 8) == kb[32:]
    assert get(A, "SLOT_STATUS", "KEY_VALID", await tb.read(AES + A["SLOT_STATUS"][0])) == 0b0101
    nonce, aad, pt = kb[32:36] + tb.rng.randbytes(8), tb.rng.randbytes(13), tb.rng.randbytes(40)

    async def gcm_from_slot_2():
        for i in range(4):
            await tb.write(AES + A["IV"][0] + 4 * i, int.from_bytes((nonce + b"\0\0\0\1")[4 * i:4 * i + 4], "big"))
        await tb.write(AES + A["CTRL"][0], field(A, "CTRL", "MODE", "GCM") | field(A, "CTRL", "TAG_LEN", 16) |
                       field(A, "CTRL", "USE_SLOT", 1) | field(A, "CTRL", "SLOT", 2))
        await tb.aes_cmd("INIT")
        assert await tb.aes_result() == 0
        return await tb.aes_gcm_rest(aad, pt)
    assert await gcm_from_slot_2() in (AESGCM(kb[:16]).encrypt(nonce, pt, aad), AESGCM(mine_key).encrypt(nonce, pt, aad))
    await c.start("KEYS", {1: cr_at, 2: cr_at + 32, 3: 2, 4: 0, 5: ivs_at})   # (again, alone: the derived key)
    assert await c.result() == "OK"
    assert await gcm_from_slot_2() == AESGCM(kb[:16]).encrypt(nonce, pt, aad)
    await c.start("FINISHED", {1: hash_at, 2: 0, 3: vd_at})
    assert await c.result() == "OK"
    assert await c.dump(vd_at, 12) == prf(ms, b"client finished" + h, 12)
    await c.load(vd_at, prf(ms, b"server finished" + h, 12))
    await c.start("FINISHED", {1: hash_at, 2: 1, 3: vd_at})
    assert await c.result() == "OK"
    assert await tb.sha_message(b"abc") == hashlib.sha256(b"abc").digest()   # the bus's own message: shown

    # SIGN with a client key the bus writes at CK_AT: r || s as `cryptography`'s deterministic ECDSA
    # (RFC 6979) gives it; then with pk's G table made of 2G, refused (ENGINE) with nothing written.
    from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, decode_dss_signature
    ck_at, sig_at, x = rom.equ["CK_AT"], 0x0500, tb.rng.randrange(1, p256.N)
    await c.load(ck_at, x.to_bytes(32, "big"))                    # programs ran since the last WIPE:
    assert get(C, "ERR", "WIN_SECRET", await c.err()) == 1        # the key's place takes no writes
    await c.wipe()
    await c.load(ck_at, x.to_bytes(32, "big"))                    # after WIPE it does, once
    assert get(C, "ERR", "WIN_SECRET", await c.err()) == 0
    await c.start("SIGN", {1: hash_at, 3: sig_at})
    assert await c.result(limit=600000) == "OK"
    r, s = decode_dss_signature(ec.derive_private_key(x, ec.SECP256R1()).sign(
        h, ec.ECDSA(Prehashed(hashes.SHA256()), deterministic_signing=True)))
    assert await c.dump(sig_at, 64) == r.to_bytes(32, "big") + s.to_bytes(32, "big")
    g2 = ec.derive_private_key(2, ec.SECP256R1()).public_key().public_numbers()
    await pk.p256((g2.x, g2.y))
    await c.load(sig_at, bytes(64))
    await c.start("SIGN", {1: hash_at, 3: sig_at})
    assert await c.result(limit=600000) == "ENGINE"
    assert await c.dump(sig_at, 64) == bytes(64)
    await pk.p256()

    # WIPE
    await tb.write(CTRL + C["INTR_STATE"][0], 1)
    await tb.write(CTRL + C["INTR_ENABLE"][0], 1)
    assert dut.irq_o.value == 0
    await tb.write(CTRL + C["CMD"][0], field(C, "CMD", "OP", "WIPE"))
    assert get(C, "STATUS", "BUSY", await tb.read(CTRL + C["STATUS"][0])) == 1
    await c.start("HMAC", regs)
    assert get(C, "ERR", "CMD_DROPPED", await c.err()) == 1
    await tb.write(CTRL + C["WIN_ADDR"][0], msg_at)
    await tb.write(CTRL + C["WIN_WDATA"][0], 0)
    assert get(C, "ERR", "CMD_DROPPED", await c.err()) == 1
    await tb.wait_status(CTRL, C, "BUSY", 0, limit=1000)
    assert dut.irq_o.value == 1
    await tb.write(CTRL + C["INTR_STATE"][0], 1)
    assert await c.dump(msg_at, len(msg)) == msg                  # the public bytes: not the wipe's
    await c.start("ECDHE", {2: peer_at, 3: pub_at})
    assert await c.result(limit=200000) == "NO_ENTROPY"           # the DRBG's state: wiped
    await c.start("SIGN", {1: hash_at, 3: sig_at})
    assert await c.result(limit=200000) == "BAD_INPUT"            # ... and the client's key
