"""aes_engine: every mode x key size x direction against the `cryptography` package and NIST CAVP
files, partial blocks, back-pressure, tag failures, bad sequences, constant timing, cycles/block."""
import json
import os
import pathlib
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESGCM

from nist import parse
from rtlsim import run_cocotb, sources

try:  # OFB moved to the "decrepit" namespace in cryptography 43
    from cryptography.hazmat.decrepit.ciphers.modes import OFB
except ImportError:  # pragma: no cover
    OFB = modes.OFB

SEED = int(os.environ.get("SE_TEST_SEED", "20261122"))
PTBUF_BLOCKS = 8  # the test build's plaintext buffer (small, so the overflow test is quick)

ECB, CBC, CTR, OFB_M, MAC, CCM, GCM = range(7)
INIT, IV, J0, AAD, DATA, FINAL = 1, 2, 3, 4, 5, 6
OK, TAG_FAIL, BAD_KEYLEN, BAD_MODE, BAD_SEQ, BAD_LENGTH = range(6)
KEYLEN = {16: 0, 24: 1, 32: 2}
MODE_NAMES = {ECB: "ecb", CBC: "cbc", CTR: "ctr", OFB_M: "ofb", MAC: "cbcmac", CCM: "ccm", GCM: "gcm"}


def vectors_dir():
    import cryptography_vectors
    return pathlib.Path(cryptography_vectors.__file__).parent / "ciphers" / "AES"


def blocks(data):
    return [data[i:i + 16] for i in range(0, len(data), 16)]


# ---- independent references ---------------------------------------------------------------------

def ref_cipher(mode, key, iv, dec, data):
    m = {ECB: modes.ECB(), CBC: modes.CBC(iv), CTR: modes.CTR(iv), OFB_M: OFB(iv)}[mode]
    c = Cipher(algorithms.AES(key), m)
    op = c.decryptor() if dec else c.encryptor()
    return op.update(data) + op.finalize()


def ref_cbcmac(key, data, tag_len):
    return ref_cipher(CBC, key, bytes(16), False, data)[-16:][:tag_len]


def ccm_format(nonce, aad, plen, tag_len):
    """SP 800-38C A.2 formatting, written from the standard: B0 || encoded AAD (padded), and A0."""
    q = 15 - len(nonce)
    flags = (64 if aad else 0) | (((tag_len - 2) // 2) << 3) | (q - 1)
    b0 = bytes([flags]) + nonce + plen.to_bytes(q, "big")
    if not aad:
        enc = b""
    elif len(aad) < 0xff00:
        enc = len(aad).to_bytes(2, "big") + aad
    else:
        enc = b"\xff\xfe" + len(aad).to_bytes(4, "big") + aad
    enc += bytes(-len(enc) % 16)
    a0 = bytes([q - 1]) + nonce + bytes(q)
    return b0 + enc, a0


def ref_gcm_enc(key, iv, aad, pt, tag_len):
    out = AESGCM(key).encrypt(iv, pt, aad)
    return out[:-16], out[-16:][:tag_len]


# ---- testbench ----------------------------------------------------------------------------------

class TB:
    """Drives the command port, pops outputs with random delays and records done pulses."""

    def __init__(self, dut, rng):
        self.dut = dut
        self.rng = rng
        self.cmdq = []
        self.n_cmds = 0
        self.statuses = []
        self.done_cycles = []
        self.outs = []          # (cycle, block bytes)
        self.cycle = 0
        self.busy_cycles = 0
        self.pop_delay = (0, 0)
        self.pop_wait = 0
        cocotb.start_soon(Clock(dut.clk_i, 10, unit="ns").start())

    async def reset(self):
        d = self.dut
        for s in (d.cmd_valid_i, d.cmd_i, d.din_i, d.din_bytes_i, d.out_pop_i, d.key_i, d.keylen_i,
                  d.mode_i, d.dec_i, d.iv_i, d.tag_len_i, d.tag_i, d.h_i, d.h_valid_i):
            s.value = 0
        d.key_ok_i.value = 1   # the key on key_i (the key slots live in aes_wb: test_engine_wb)
        d.rst_ni.value = 0
        for _ in range(3):
            await RisingEdge(d.clk_i)
        d.rst_ni.value = 1
        await RisingEdge(d.clk_i)
        self.cmdq, self.n_cmds, self.statuses, self.done_cycles, self.outs = [], 0, [], [], []
        if not getattr(self, "_ticking", False):
            self._ticking = True
            cocotb.start_soon(self._tick())

    async def _tick(self):
        """Per cycle: sample after the edge (ReadOnly), drive at the falling edge."""
        d = self.dut
        while True:
            await RisingEdge(d.clk_i)
            await ReadOnly()
            self.cycle += 1
            ready, ov = int(d.cmd_ready_o.value), int(d.out_valid_o.value)
            if int(d.busy_o.value):
                self.busy_cycles += 1
            if int(d.done_o.value):
                self.statuses.append(int(d.status_o.value))
                self.done_cycles.append(self.cycle)
            dout = int(d.dout_o.value) if ov else 0
            await FallingEdge(d.clk_i)
            if ready and self.cmdq:
                cmd, din, n = self.cmdq.pop(0)
                d.cmd_valid_i.value = 1
                d.cmd_i.value = cmd
                d.din_i.value = din
                d.din_bytes_i.value = n
            else:
                d.cmd_valid_i.value = 0
                # junk on the data lines while idle
                d.din_i.value = self.rng.getrandbits(128)
                d.cmd_i.value = self.rng.randrange(8)
            pop = 0
            if ov:
                if self.pop_wait == 0:
                    pop = 1
                    self.outs.append((self.cycle, dout.to_bytes(16, "big")))
                    self.pop_wait = self.rng.randint(*self.pop_delay)
                else:
                    self.pop_wait -= 1
            d.out_pop_i.value = pop

    def send(self, cmd, data=b"", n=None):
        """Queues a command; data beyond n bytes is filled with junk the engine must ignore."""
        n = len(data) if n is None else n
        junk = self.rng.randbytes(16 - len(data)) if len(data) < 16 else b""
        din = int.from_bytes(data + junk, "big")
        code = 0 if n == 16 and self.rng.random() < 0.5 else n
        self.cmdq.append((cmd, din, code))
        self.n_cmds += 1
        return self.n_cmds - 1

    async def wait_done(self, limit=20000):
        start = self.cycle
        while len(self.statuses) < self.n_cmds or self.cmdq:
            assert self.cycle - start < limit, (
                f"hang: {len(self.statuses)}/{self.n_cmds} commands done after {limit} cycles")
            await RisingEdge(self.dut.clk_i)
        await RisingEdge(self.dut.clk_i)

    async def wait_outs(self, count, limit=5000):
        start = self.cycle
        while len(self.outs) < count:
            assert self.cycle - start < limit, f"hang: {len(self.outs)}/{count} output blocks"
            await RisingEdge(self.dut.clk_i)

    async def idle(self, n):
        for _ in range(n):
            await RisingEdge(self.dut.clk_i)

    def configure(self, mode, key=bytes(16), dec=False, iv=bytes(16), tag_len=16, tag=bytes(16),
                  keylen=None):
        d = self.dut
        d.key_i.value = int.from_bytes(key.ljust(32, b"\0"), "big")
        d.keylen_i.value = KEYLEN.get(len(key), 3) if keylen is None else keylen
        d.mode_i.value = mode
        d.dec_i.value = int(dec)
        d.iv_i.value = int.from_bytes(iv, "big")
        d.tag_len_i.value = tag_len
        d.tag_i.value = int.from_bytes(tag.ljust(16, b"\0"), "big")

    async def message(self, mode, key, dec=False, iv=bytes(16), tag_len=16, tag=b"", aad_blocks=(),
                      data=b"", iv_blocks=None, expect_outs=None):
        """Runs INIT [IV.. J0] [AAD..] DATA.. [FINAL]; returns (output bytes, tag, statuses)."""
        self.configure(mode, key, dec, iv, tag_len, tag)
        first = self.n_cmds
        n_out0 = len(self.outs)
        self.send(INIT)
        if iv_blocks is not None:
            for b in blocks(iv_blocks):
                self.send(IV, b)
            self.send(J0)
        for b in aad_blocks:
            self.send(AAD, b)
        parts = blocks(data)
        for b in parts:
            self.send(DATA, b)
        if mode in (MAC, CCM, GCM):
            self.send(FINAL)
        await self.wait_done()
        sts = self.statuses[first:]
        if expect_outs is None:
            expect_outs = 0 if mode == MAC else len(parts)
        await self.wait_outs(n_out0 + expect_outs)
        await self.idle(3)
        outs = self.outs[n_out0:]
        assert len(outs) == expect_outs, f"{len(outs)} output blocks, expected {expect_outs}"
        res = b""
        for (_, o), p in zip(outs, parts):
            assert o[len(p):] == bytes(16 - len(p)), f"bytes beyond the block not zero: {o.hex()}"
            res += o[:len(p)]
        tag_o = int(self.dut.tag_o.value).to_bytes(16, "big")
        return res, tag_o, sts


def tag_field(tag, n):
    return tag[:n] + bytes(16 - n)


async def setup(dut, pop_delay=(0, 0)):
    rng = random.Random(SEED)
    dut._log.info(f"seed {SEED} (SE_TEST_SEED replays)")
    tb = TB(dut, rng)
    tb.pop_delay = pop_delay
    await tb.reset()
    return tb, rng


# ---- tests --------------------------------------------------------------------------------------

@cocotb.test()
async def block_modes_random(dut):
    """ECB/CBC/CTR/OFB x 128/192/256 x enc/dec, random lengths, random pop delays."""
    tb, rng = await setup(dut, pop_delay=(0, 4))
    for _ in range(8):
        for klen in (16, 24, 32):
            for mode in (ECB, CBC, CTR, OFB_M):
                for dec in (False, True):
                    key, iv = rng.randbytes(klen), rng.randbytes(16)
                    if mode == CTR and rng.random() < 0.5:
                        iv = b"\xff" * 15 + bytes([rng.randrange(250, 256)])  # 128-bit carry
                    nblk = rng.randrange(1, 6)
                    n = 16 * nblk if mode in (ECB, CBC) else rng.randrange(1, 16 * nblk + 1)
                    data = rng.randbytes(n)
                    out, _, sts = await tb.message(mode, key, dec, iv, data=data)
                    want = ref_cipher(mode, key, iv, dec, data)
                    assert sts == [OK] * len(sts), sts
                    assert out == want, f"{MODE_NAMES[mode]} k{klen} dec={dec} key {key.hex()} " \
                                        f"iv {iv.hex()} in {data.hex()}: {out.hex()} != {want.hex()}"


@cocotb.test()
async def block_modes_cavp(dut):
    """A subset of every ECB/CBC/OFB KAT/MMT file and the RFC 3686 CTR vectors."""
    tb, rng = await setup(dut)
    n = 0
    for mode, name in ((ECB, "ECB"), (CBC, "CBC"), (OFB_M, "OFB")):
        for group in ("GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT"):
            for bits in (128, 192, 256):
                recs = [r for _, r in parse(vectors_dir() / name / f"{name}{group}{bits}.rsp")
                        if "KEY" in r]
                for r in rng.sample(recs, min(8, len(recs))):
                    key, iv = bytes.fromhex(r["KEY"]), bytes.fromhex(r.get("IV", "00" * 16))
                    pt, ct = bytes.fromhex(r["PLAINTEXT"]), bytes.fromhex(r["CIPHERTEXT"])
                    out, _, _ = await tb.message(mode, key, False, iv, data=pt)
                    assert out == ct, f"{name}{group}{bits} enc {r}"
                    out, _, _ = await tb.message(mode, key, True, iv, data=ct)
                    assert out == pt, f"{name}{group}{bits} dec {r}"
                    n += 2
    for bits in (128, 192, 256):
        for _, r in parse(vectors_dir() / "CTR" / f"aes-{bits}-ctr.txt"):
            if "KEY" not in r:
                continue
            key, iv = bytes.fromhex(r["KEY"]), bytes.fromhex(r["IV"])
            pt, ct = bytes.fromhex(r["PLAINTEXT"]), bytes.fromhex(r["CIPHERTEXT"])
            out, _, _ = await tb.message(CTR, key, False, iv, data=pt)
            assert out == ct, f"ctr {bits} {r}"
            n += 1
    dut._log.info(f"{n} CAVP/RFC block-mode vectors passed")


@cocotb.test()
async def cbc_mac(dut):
    tb, rng = await setup(dut, pop_delay=(0, 2))
    for klen in (16, 24, 32):
        for _ in range(4):
            key, tl = rng.randbytes(klen), rng.randint(1, 16)
            data = rng.randbytes(16 * rng.randrange(1, 5))
            _, tag, sts = await tb.message(MAC, key, rng.random() < 0.5, tag_len=tl, data=data)
            assert sts == [OK] * len(sts), sts
            assert tag == tag_field(ref_cbcmac(key, data, tl), tl), f"cbc-mac key {key.hex()}"


async def ccm_run(tb, key, nonce, aad, payload, tag_len, dec, ct_tag=None):
    """Drives CCM with the test's own formatting; returns (out, tag, statuses)."""
    fmt, a0 = ccm_format(nonce, aad, len(payload), tag_len)
    if not dec:
        return await tb.message(CCM, key, False, a0, tag_len, aad_blocks=blocks(fmt), data=payload)
    ct, tag = ct_tag
    return await tb.message(CCM, key, True, a0, tag_len, tag=tag, aad_blocks=blocks(fmt), data=ct)


@cocotb.test()
async def ccm_random(dut):
    """Nonce 7..13, tag 4..16 (even), all key sizes, enc + dec + tampered dec."""
    tb, rng = await setup(dut, pop_delay=(0, 3))
    for klen in (16, 24, 32):
        for nlen in range(7, 14):
            tl = rng.choice((4, 6, 8, 10, 12, 14, 16))
            key, nonce = rng.randbytes(klen), rng.randbytes(nlen)
            aad = rng.randbytes(rng.choice((0, 1, 15, 16, 30)))
            pt = rng.randbytes(rng.choice((0, 1, 16, 17, 40, 16 * PTBUF_BLOCKS)))
            ref = AESCCM(key, tag_length=tl).encrypt(nonce, pt, aad or None)
            out, tag, sts = await ccm_run(tb, key, nonce, aad, pt, tl, False)
            assert sts == [OK] * len(sts), sts
            assert out + tag[:tl] == ref and tag[tl:] == bytes(16 - tl), \
                f"ccm enc key {key.hex()} nonce {nonce.hex()} aad {aad.hex()} pt {pt.hex()}"
            ct, good = ref[:-tl], ref[-tl:]
            out, tag, sts = await ccm_run(tb, key, nonce, aad, pt, tl, True, (ct, good))
            assert sts[-1] == OK and out == pt and tag == bytes(16), "ccm dec"
            bad = bytearray(good)
            bad[rng.randrange(tl)] ^= 1 << rng.randrange(8)
            fmt, a0 = ccm_format(nonce, aad, len(pt), tl)
            out, tag, sts = await tb.message(CCM, key, True, a0, tl, tag=bytes(bad),
                                             aad_blocks=blocks(fmt), data=ct, expect_outs=0)
            await tb.idle(40)
            assert sts[-1] == TAG_FAIL and out == b"", "tampered CCM tag accepted"
            assert int(dut.tag_o.value) == 0


def ccm_file_records(path):
    """CAVP CCM files keep Key and the lengths above the records (partly in [a = 1, b = 2])."""
    state = {}
    for sec, r in parse(path):
        for k, v in sec.items():
            for part in f"{k} = {v}".split(","):
                if "=" in part:
                    a, b = (s.strip() for s in part.split("=", 1))
                    state[a] = b
        state.update(r)
        if "Count" in r:
            yield dict(state)
            for k in ("Payload", "Result", "CT", "Adata"):
                state.pop(k, None)


@cocotb.test()
async def ccm_cavp(dut):
    tb, rng = await setup(dut)
    n = 0
    for group in ("VADT", "VNT", "VPT", "VTT", "DVPT"):
        for bits in (128, 192, 256):
            recs = list(ccm_file_records(vectors_dir() / "CCM" / f"{group}{bits}.rsp"))
            for r in rng.sample(recs, 12):
                alen, plen, tl = int(r["Alen"]), int(r["Plen"]), int(r["Tlen"])
                if plen > 16 * PTBUF_BLOCKS:
                    continue
                key, nonce = bytes.fromhex(r["Key"]), bytes.fromhex(r["Nonce"])
                aad = bytes.fromhex(r["Adata"])[:alen]
                ct = bytes.fromhex(r["CT"])
                if group == "DVPT":
                    fmt, a0 = ccm_format(nonce, aad, plen, tl)
                    ok = r["Result"].startswith("Pass")
                    out, tag, sts = await tb.message(CCM, key, True, a0, tl, tag=ct[plen:],
                                                     aad_blocks=blocks(fmt), data=ct[:plen],
                                                     expect_outs=len(blocks(ct[:plen])) if ok else 0)
                    assert sts[-1] == (OK if ok else TAG_FAIL), f"{group}{bits} {r}"
                    if ok:
                        assert out == bytes.fromhex(r["Payload"])[:plen], f"{group}{bits} {r}"
                else:
                    pt = bytes.fromhex(r["Payload"])[:plen]
                    out, tag, _ = await ccm_run(tb, key, nonce, aad, pt, tl, False)
                    assert out + tag[:tl] == ct, f"{group}{bits} {r}"
                n += 1
    dut._log.info(f"{n} CCM CAVP vectors passed")


async def gcm_run(tb, key, iv, aad, data, tag_len, dec, tag=b"", expect_outs=None):
    """96-bit IVs go in iv_i as IV || 1; other lengths through IV commands and J0."""
    if len(iv) == 12:
        return await tb.message(GCM, key, dec, iv + b"\0\0\0\1", tag_len, tag, aad_blocks=blocks(aad),
                                data=data, expect_outs=expect_outs)
    return await tb.message(GCM, key, dec, bytes(16), tag_len, tag, aad_blocks=blocks(aad), data=data,
                            iv_blocks=iv, expect_outs=expect_outs)


@cocotb.test()
async def gcm_random(dut):
    """IV 12/1/8/60 bytes, empty and partial AAD/data, tag 4..16, enc, dec and tampered dec."""
    tb, rng = await setup(dut, pop_delay=(0, 3))
    for klen in (16, 24, 32):
        for ivlen in (12, 8, 60, 12, 13, 16, 12):  # 1-byte IVs: the CAVP IVlen=8 records
            key, iv = rng.randbytes(klen), rng.randbytes(ivlen)
            aad = rng.randbytes(rng.choice((0, 1, 16, 20, 33)))
            pt = rng.randbytes(rng.choice((0, 1, 15, 16, 31, 16 * PTBUF_BLOCKS)))
            tl = rng.randint(4, 16)
            ct, want = ref_gcm_enc(key, iv, aad, pt, tl)
            out, tag, sts = await gcm_run(tb, key, iv, aad, pt, tl, False)
            assert sts == [OK] * len(sts), sts
            assert out == ct and tag == tag_field(want, tl), \
                f"gcm enc key {key.hex()} iv {iv.hex()} aad {aad.hex()} pt {pt.hex()}"
            out, tag, sts = await gcm_run(tb, key, iv, aad, ct, tl, True, want)
            assert sts == [OK] * len(sts) and out == pt and tag == bytes(16), "gcm dec"
            bad = bytearray(want)
            bad[rng.randrange(tl)] ^= 1 << rng.randrange(8)
            out, tag, sts = await gcm_run(tb, key, iv, aad, ct, tl, True, bytes(bad), expect_outs=0)
            await tb.idle(40)
            assert sts[-1] == TAG_FAIL and out == b"" and tag == bytes(16), "tampered GCM tag"


@cocotb.test()
async def gcm_cavp(dut):
    """Subsets of gcmEncryptExtIV (including 8-bit IVs) and gcmDecrypt (with FAIL records)."""
    tb, rng = await setup(dut)
    n = 0
    for bits in (128, 192, 256):
        for kind in ("EncryptExtIV", "Decrypt"):
            recs = [(s, r) for s, r in parse(vectors_dir() / "GCM" / f"gcm{kind}{bits}.rsp")
                    if "Key" in r and int(s["PTlen"]) <= 128 * PTBUF_BLOCKS]
            pick = rng.sample(recs, 30)
            if kind == "EncryptExtIV":
                pick += rng.sample([x for x in recs if x[0]["IVlen"] == "8"], 3)
            for s, r in pick:
                key, iv = bytes.fromhex(r["Key"]), bytes.fromhex(r["IV"])
                aad, ct, tag = (bytes.fromhex(r[k]) for k in ("AAD", "CT", "Tag"))
                tl = int(s["Taglen"]) // 8
                if kind == "EncryptExtIV":
                    pt = bytes.fromhex(r["PT"])
                    out, t, _ = await gcm_run(tb, key, iv, aad, pt, tl, False)
                    assert out == ct and t == tag_field(tag, tl), f"gcm enc {bits} {r}"
                else:
                    ok = "FAIL" not in r
                    out, t, sts = await gcm_run(tb, key, iv, aad, ct, tl, True, tag,
                                                expect_outs=len(blocks(ct)) if ok else 0)
                    assert sts[-1] == (OK if ok else TAG_FAIL), f"gcm dec {bits} {r}"
                    if ok:
                        assert out == bytes.fromhex(r["PT"]), f"gcm dec {bits} {r}"
                n += 1
    dut._log.info(f"{n} GCM CAVP vectors passed")


@cocotb.test()
async def bad_sequences(dut):
    tb, rng = await setup(dut)
    key = rng.randbytes(16)

    async def expect(cmds, want, what):
        first = tb.n_cmds
        for c in cmds:
            tb.send(*c) if isinstance(c, tuple) else tb.send(c)
        await tb.wait_done(limit=2000)
        got = tb.statuses[first:]
        assert got == want, f"{what}: statuses {got}, want {want}"

    await expect([DATA], [BAD_SEQ], "DATA before INIT")
    await expect([0, 7], [BAD_SEQ, BAD_SEQ], "commands 0 and 7")
    tb.configure(ECB, key, keylen=3)
    await expect([INIT, (DATA, bytes(16))], [BAD_KEYLEN, BAD_SEQ], "bad keylen")
    tb.configure(7, key)
    await expect([INIT, (DATA, bytes(16))], [BAD_MODE, BAD_SEQ], "bad mode")
    for mode, tl in ((GCM, 3), (CCM, 17), (MAC, 0), (GCM, 31)):
        tb.configure(mode, key, tag_len=tl)
        await expect([INIT, FINAL], [BAD_LENGTH, BAD_SEQ], f"bad tag length {tl}")
    tb.configure(ECB, key)
    await expect([INIT, (DATA, bytes(15)), (DATA, bytes(16)), FINAL, (AAD, bytes(16)), IV, J0],
                 [OK, BAD_LENGTH, OK, BAD_SEQ, BAD_SEQ, BAD_SEQ, BAD_SEQ], "ECB partial / FINAL / AAD")
    await tb.wait_outs(1)
    tb.configure(CBC, key, dec=True)
    await expect([INIT, (DATA, bytes(8))], [OK, BAD_LENGTH], "CBC partial")
    tb.configure(CTR, key)
    await expect([INIT, (DATA, bytes(5)), (DATA, bytes(16)), FINAL],
                 [OK, OK, BAD_SEQ, BAD_SEQ], "CTR partial then DATA, FINAL")
    tb.configure(GCM, key, iv=bytes(15) + b"\1", tag_len=16)
    await expect([INIT, (AAD, bytes(16)), (DATA, bytes(16)), (AAD, bytes(16)), IV, J0, FINAL,
                  (DATA, bytes(16)), FINAL],
                 [OK, OK, OK, BAD_SEQ, BAD_SEQ, BAD_SEQ, OK, BAD_SEQ, BAD_SEQ], "GCM order")
    await expect([INIT, (AAD, bytes(3)), (AAD, bytes(16)), (IV, bytes(16))],
                 [OK, OK, BAD_SEQ, BAD_SEQ], "GCM partial AAD then AAD, IV after AAD")
    await expect([INIT, (IV, bytes(5)), (AAD, bytes(16)), (IV, bytes(16)), J0, (AAD, bytes(16)), FINAL],
                 [OK, OK, BAD_SEQ, BAD_SEQ, OK, OK, OK], "GCM IV sequence")
    tb.configure(CCM, key, tag_len=8)
    await expect([INIT, IV, J0, (AAD, bytes(16)), (DATA, bytes(16)), (AAD, bytes(16)), FINAL, FINAL],
                 [OK, BAD_SEQ, BAD_SEQ, OK, OK, BAD_SEQ, OK, BAD_SEQ], "CCM order")
    tb.configure(MAC, key, tag_len=16)
    await expect([INIT, (AAD, bytes(16)), (DATA, bytes(12)), (DATA, bytes(16)), FINAL],
                 [OK, BAD_SEQ, BAD_LENGTH, OK, OK], "CBC-MAC")
    # Plaintext buffer overflow: a decrypt longer than PTBUF_BLOCKS can only fail.
    for mode in (GCM, CCM):
        tb.configure(mode, key, dec=True, iv=bytes(15) + b"\1", tag_len=16)
        n0 = len(tb.outs)
        cmds = [INIT] + [(DATA, bytes(16))] * (PTBUF_BLOCKS + 2) + [FINAL, (DATA, bytes(16))]
        want = [OK] + [OK] * PTBUF_BLOCKS + [BAD_LENGTH] * 2 + [TAG_FAIL, BAD_SEQ]
        await expect(cmds, want, f"{MODE_NAMES[mode]} plaintext buffer overflow")
        await tb.idle(30)
        assert len(tb.outs) == n0, "overflowed decrypt released plaintext"
    # INIT discards a pending output block and re-keys.
    tb.configure(CTR, key, iv=bytes(16))
    tb.pop_delay = (10 ** 9, 10 ** 9)
    tb.pop_wait = 10 ** 9
    await expect([INIT, (DATA, bytes(16)), (DATA, bytes(16)), INIT], [OK, OK, OK, OK], "INIT with output held")
    assert int(dut.out_valid_o.value) == 0
    tb.pop_delay, tb.pop_wait = (0, 0), 0
    out, _, _ = await tb.message(CTR, key, False, bytes(16), data=bytes(16))
    assert out == ref_cipher(CTR, key, bytes(16), False, bytes(16))


async def one_block_timing(tb, mode, key, dec, data, iv, tag=b""):
    """Cycles from the DATA command's acceptance to its done pulse, and FINAL's."""
    tb.configure(mode, key, dec, iv, 16, tag)
    tb.send(INIT)
    if mode in (CCM, GCM):
        tb.send(AAD, data[:16])
    await tb.wait_done()
    t0 = tb.cycle
    tb.send(DATA, data)
    if mode in (MAC, CCM, GCM):
        tb.send(FINAL)
    await tb.wait_done()
    busy0 = tb.busy_cycles
    await tb.idle(30)
    return [c - t0 for c in tb.done_cycles[-2:]], tb.busy_cycles - busy0


@cocotb.test()
async def constant_time(dut):
    """Cycle counts must not depend on key, data or tag values."""
    tb, rng = await setup(dut)
    for mode, dec in ((ECB, False), (CBC, True), (CTR, False), (MAC, False), (CCM, False), (CCM, True),
                      (GCM, False), (GCM, True)):
        for klen in (16, 32):
            seen = set()
            for _ in range(4):
                r = await one_block_timing(tb, mode, rng.randbytes(klen), dec, rng.randbytes(16),
                                           rng.randbytes(16), rng.randbytes(16))
                seen.add(str(r))
            assert len(seen) == 1, f"{MODE_NAMES[mode]} k{klen} dec={dec}: timings differ {seen}"


async def measure_cycles_per_block(tb, n_blocks=8):
    """Steady-state cycles per block (DATA done to DATA done, outputs popped at once) for every
    mode and key size; returns {"<mode>[-dec]-<bits>": cycles}."""
    tb.pop_delay, tb.pop_wait = (0, 0), 0
    res = {}
    cases = [(ECB, False), (ECB, True), (CBC, False), (CBC, True), (CTR, False), (OFB_M, False),
             (MAC, False), (CCM, False), (CCM, True), (GCM, False), (GCM, True)]
    for mode, dec in cases:
        for klen in (16, 24, 32):
            tb.configure(mode, bytes(range(klen)), dec, bytes(15) + b"\1", 16)
            tb.send(INIT)
            await tb.wait_done()
            first = len(tb.done_cycles)
            for i in range(n_blocks):
                tb.send(DATA, bytes([i]) * 16)
            await tb.wait_done()
            t = tb.done_cycles[first:]
            gaps = {b - a for a, b in zip(t[2:], t[3:])}
            assert len(gaps) == 1, f"{MODE_NAMES[mode]}: uneven steady state {gaps}"
            res[f"{MODE_NAMES[mode]}{'-dec' if dec else ''}-{klen * 8}"] = gaps.pop()
    return res


async def measure_aead_1k(tb):
    """AES-128 GCM and CCM over a 1 KiB message with 16 B AAD: cycles from INIT to FINAL's done
    pulse, with the block commands the driver sends (CCM: B0 + 2 formatted AAD blocks)."""
    res = {}
    for mode, n_aad in ((GCM, 1), (CCM, 3)):
        tb.configure(mode, bytes(16), False, bytes(15) + b"\1", 16)
        t0 = tb.cycle
        tb.send(INIT)
        for _ in range(n_aad):
            tb.send(AAD, bytes(16))
        for i in range(64):
            tb.send(DATA, bytes([i]) * 16)
        tb.send(FINAL)
        await tb.wait_done()
        res[MODE_NAMES[mode]] = tb.done_cycles[-1] - t0
    return res


@cocotb.test()
async def cycles_per_block(dut):
    tb, _ = await setup(dut)
    res = await measure_cycles_per_block(tb)
    for k, v in res.items():
        dut._log.info(f"cycles/block {k:16s} {v}")
    aead = await measure_aead_1k(tb)
    dut._log.info(f"1 KiB AEAD with 16 B AAD: {aead}")
    out = os.environ.get("AES_CYCLES_JSON")
    if out:
        pathlib.Path(out).write_text(json.dumps({"block": res, "aead_1k": aead}, indent=1) + "\n")
    for k, v in res.items():
        bits = int(k.rsplit("-", 1)[1])
        limit = {128: 12, 192: 14, 256: 16}[bits] * (2 if k.startswith("ccm") else 1)
        assert v <= limit, f"{k}: {v} cycles per block (goal {limit})"


SOURCES = sources("iotse:ip:aes", "engine")


def test_aes_engine():
    run_cocotb("aes_engine", SOURCES, "test_aes_engine", parameters={"PTBUF_BLOCKS": PTBUF_BLOCKS})
