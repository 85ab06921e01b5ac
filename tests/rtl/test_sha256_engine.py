"""sha256_engine: SHA-256/HMAC-SHA256 commands against hashlib/hmac, NIST CAVP, RFC 4231; sequencing and timing."""
import hashlib
import hmac
import json
import os
import pathlib
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge
from cocotb.utils import get_sim_time

from nist import parse
from rtlsim import ROOT, run_cocotb, sources

INIT, BLOCK, FINAL, KEY, RESUME = 1, 2, 3, 4, 5
OK, BAD_SEQ, BAD_LENGTH = 0, 4, 5
LIMIT = 400          # cycles any single wait may take before the test fails (a block is 65)
SEED = int(os.environ.get("SE_TEST_SEED", "20261122"))


def vectors():
    import cryptography_vectors
    return pathlib.Path(cryptography_vectors.__file__).parent


def hmac_ref(key, msg):
    return hmac.new(key, msg, hashlib.sha256).digest()


def driver_key(key):
    """What the driver loads with KEY: keys over 64 bytes hashed first (RFC 2104)."""
    return hashlib.sha256(key).digest() if len(key) > 64 else key


class TB:
    """Drives and samples on the falling edge; the engine's outputs are registered."""

    def __init__(self, dut):
        self.dut = dut
        self.dones = []            # (cycle, status) per done_o pulse
        self.rng = random.Random(SEED)
        cocotb.start_soon(Clock(dut.clk_i, 10, unit="ns").start())
        cocotb.start_soon(self._monitor())

    async def _monitor(self):
        d = self.dut
        while True:
            await FallingEdge(d.clk_i)
            if d.done_o.value:
                self.dones.append((self.now(), int(d.status_o.value)))

    async def reset(self):
        d = self.dut
        d.cmd_valid_i.value = 0
        d.cmd_i.value = 0
        d.din_i.value = 0
        d.din_bytes_i.value = 0
        d.hmac_i.value = 0
        d.rst_ni.value = 0
        await FallingEdge(d.clk_i)
        await FallingEdge(d.clk_i)
        d.rst_ni.value = 1
        await FallingEdge(d.clk_i)
        self.dones.clear()

    def now(self):
        """Clock cycles since time 0 (the clock's period is 10 ns)."""
        return int(get_sim_time(unit="ns")) // 10

    async def send(self, cmd, data=b"", nbytes=None, hmac_mode=0):
        """Presents one command once cmd_ready_o is seen (called just after a falling edge);
        returns the cycle of acceptance. Bytes past the message are random, so the engine must
        mask them."""
        d = self.dut
        assert len(data) <= 64
        for _ in range(LIMIT):
            if d.cmd_ready_o.value:
                break
            await FallingEdge(d.clk_i)
        else:
            raise AssertionError(f"command {cmd} not accepted within {LIMIT} cycles")
        block = data + self.rng.randbytes(64 - len(data))
        d.cmd_i.value = cmd
        d.din_i.value = int.from_bytes(block, "big")
        d.din_bytes_i.value = len(data) if nbytes is None else nbytes
        d.hmac_i.value = hmac_mode
        d.cmd_valid_i.value = 1
        accepted = self.now()
        await RisingEdge(d.clk_i)
        await FallingEdge(d.clk_i)
        d.cmd_valid_i.value = 0
        d.din_i.value = int.from_bytes(self.rng.randbytes(64), "big")
        return accepted

    async def wait_dones(self, n):
        """Waits until n done pulses have been seen in total; returns the last one."""
        for _ in range(LIMIT * 4):
            if len(self.dones) >= n:
                return self.dones[n - 1]
            await FallingEdge(self.dut.clk_i)
        raise AssertionError(f"no done pulse after {LIMIT * 4} cycles ({len(self.dones)} of {n})")

    async def command(self, cmd, data=b"", nbytes=None, hmac_mode=0):
        """One command on its own: returns its status."""
        n = len(self.dones) + 1
        await self.send(cmd, data, nbytes, hmac_mode)
        return (await self.wait_dones(n))[1]

    async def load_key(self, key):
        assert await self.command(KEY, driver_key(key).ljust(64, b"\0")) == OK
        assert self.dut.key_valid_o.value == 1

    async def digest_of_rest(self, msg):
        """BLOCKs and FINAL of a message already started (INIT or RESUME); its digest."""
        n0 = len(self.dones)
        full = len(msg) // 64
        for i in range(full):
            await self.send(BLOCK, msg[64 * i:64 * i + 64])
        await self.send(FINAL, msg[64 * full:])
        await self.wait_dones(n0 + full + 1)
        assert [s for _, s in self.dones[n0:]] == [OK] * (full + 1)
        assert self.dut.digest_valid_o.value == 1
        return int(self.dut.digest_o.value).to_bytes(32, "big")

    async def digest_of(self, msg, hmac_mode=0):
        """INIT, back-to-back BLOCKs, FINAL; every command must end OK. Returns the digest."""
        d = self.dut
        n0 = len(self.dones)
        await self.send(INIT, hmac_mode=hmac_mode)
        full = len(msg) // 64
        for i in range(full):
            await self.send(BLOCK, msg[64 * i:64 * i + 64])
        await self.send(FINAL, msg[64 * full:])
        await self.wait_dones(n0 + full + 2)
        statuses = [s for _, s in self.dones[n0:]]
        assert statuses == [OK] * (full + 2), f"statuses {statuses} for a {len(msg)}-byte message"
        assert d.digest_valid_o.value == 1
        return int(d.digest_o.value).to_bytes(32, "big")


async def measure_cycles(tb, blocks=8):
    """Cycle counts for `make bench` (the engine at reset, any key state):
    block: steady-state cycles per BLOCK (distance of done pulses of back-to-back BLOCKs);
    final_1 / final_2: FINAL acceptance to done for a one- / two-block padding;
    key: KEY acceptance to done; hmac_1k: HMAC over 1 KiB, INIT acceptance to digest_valid
    with the key already loaded."""
    rng = random.Random(SEED)
    res = {}
    n0 = len(tb.dones)
    await tb.send(INIT)
    for _ in range(blocks):
        await tb.send(BLOCK, rng.randbytes(64))
    await tb.wait_dones(n0 + 1 + blocks)
    t = [c for c, _ in tb.dones[n0 + 1:n0 + 1 + blocks]]
    gaps = {b - a for a, b in zip(t, t[1:])}
    assert len(gaps) == 1, f"BLOCK spacing varies: {gaps}"
    res["block"] = gaps.pop()
    for name, n in (("final_1", 55), ("final_2", 56)):
        await tb.command(INIT)
        k = len(tb.dones) + 1
        start = await tb.send(FINAL, rng.randbytes(n))
        res[name] = (await tb.wait_dones(k))[0] - start
    k = len(tb.dones) + 1
    start = await tb.send(KEY, rng.randbytes(64))
    res["key"] = (await tb.wait_dones(k))[0] - start
    msg = rng.randbytes(1024)
    start = await tb.send(INIT, hmac_mode=1)
    for i in range(16):
        await tb.send(BLOCK, msg[64 * i:64 * i + 64])
    await tb.send(FINAL, b"")
    for _ in range(LIMIT * 8):
        if tb.dut.digest_valid_o.value:
            break
        await FallingEdge(tb.dut.clk_i)
    else:
        raise AssertionError("HMAC over 1 KiB did not finish")
    res["hmac_1k"] = tb.now() - start
    return res


@cocotb.test()
async def nist_cavp_sha256(dut):
    tb = TB(dut)
    await tb.reset()
    cases = []
    for name, step in (("SHA256ShortMsg.rsp", 1), ("SHA256LongMsg.rsp", 1)):
        records = list(parse(vectors() / "hashes" / "SHA2" / name))
        for _, r in records[::step]:
            n = int(r["Len"])
            cases.append((bytes.fromhex(r["Msg"])[:n // 8], r["MD"].lower()))
    for msg, md in cases:
        assert (await tb.digest_of(msg)).hex() == md, f"CAVP {len(msg)}-byte message {msg.hex()[:64]}"
    dut._log.info("CAVP SHA-256 short + long: %d messages", len(cases))


@cocotb.test()
async def rfc4231_hmac(dut):
    tb = TB(dut)
    await tb.reset()
    count = 0
    for _, r in parse(vectors() / "HMAC" / "rfc-4231-sha256.txt"):
        if "Key" not in r:
            continue
        key, msg = bytes.fromhex(r["Key"]), bytes.fromhex(r["Msg"])
        await tb.load_key(key)
        mac = await tb.digest_of(msg, hmac_mode=1)
        want = r["MD"].lower()            # test case 5 lists a 128-bit truncation
        assert mac.hex()[:len(want)] == want, f"RFC 4231 key {r['Key']}"
        assert mac == hmac_ref(key, msg)
        count += 1
    assert count >= 6
    dut._log.info("RFC 4231 HMAC-SHA256: %d cases", count)


@cocotb.test()
async def random_vs_hashlib(dut):
    dut._log.info("seed %d (SE_TEST_SEED replays)", SEED)
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(SEED)
    lengths = [0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 300] + [rng.randrange(301) for _ in range(28)]
    for n in lengths:
        msg = rng.randbytes(n)
        assert await tb.digest_of(msg) == hashlib.sha256(msg).digest(), \
            f"seed {SEED}: sha256 of {n} bytes {msg.hex()[:64]}"
        key = rng.randbytes(rng.choice([0, 1, 32, 55, 56, 63, 64, rng.randrange(65)]))
        await tb.load_key(key)
        assert await tb.digest_of(msg, hmac_mode=1) == hmac_ref(key, msg), \
            f"seed {SEED}: hmac key {key.hex()} msg {msg.hex()[:64]} ({n} bytes)"
    dut._log.info("random: %d SHA-256 + %d HMAC messages", len(lengths), len(lengths))


@cocotb.test()
async def held_key_serves_many_macs(dut):
    """One KEY, then HMACs interleaved with plain hashes: the key states survive messages."""
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(SEED + 1)
    key = rng.randbytes(100)              # longer than a block: hashed as the driver would
    await tb.load_key(key)
    for i in range(6):
        msg = rng.randbytes(rng.randrange(200))
        assert await tb.digest_of(msg, hmac_mode=1) == hmac_ref(key, msg), f"mac {i}"
        other = rng.randbytes(rng.randrange(100))
        assert await tb.digest_of(other) == hashlib.sha256(other).digest()
        assert dut.key_valid_o.value == 1


@cocotb.test()
async def resume_continues_from_a_chaining_value(dut):
    """RESUME (chaining value + block count) continues a SHA-256 another message interrupted: with
    the engine's padding (FINAL) or the software's (BLOCKs, then the chaining value is the digest).
    Between plain blocks the chaining value is readable; an HMAC's never is, and RESUME drops a
    held key. All against hashlib."""
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(SEED + 7)
    for i in range(8):
        msg = rng.randbytes(rng.randrange(64, 400))
        k = rng.randrange(1, len(msg) // 64 + 1)              # blocks before the interruption
        n0 = len(tb.dones)
        await tb.send(INIT)
        for j in range(k):
            await tb.send(BLOCK, msg[64 * j:64 * j + 64])
        await tb.wait_dones(n0 + 1 + k)
        assert dut.state_valid_o.value == 1 and dut.digest_valid_o.value == 0
        state = int(dut.digest_o.value).to_bytes(32, "big")
        other = rng.randbytes(rng.randrange(150))                # another message in between
        assert await tb.digest_of(other) == hashlib.sha256(other).digest()
        assert await tb.command(RESUME, state + k.to_bytes(8, "big")) == OK
        assert dut.state_valid_o.value == 0                      # no block of it yet
        rest = msg[64 * k:]
        if i % 2 == 0:                                           # the engine pads (FINAL)
            assert await tb.digest_of_rest(rest) == hashlib.sha256(msg).digest(), f"message {i}"
        else:                                                    # software pads, BLOCKs only
            bits = (8 * len(msg)).to_bytes(8, "big")
            padded = rest + b"\x80" + b"\0" * ((55 - len(msg)) % 64) + bits
            n0 = len(tb.dones)
            for j in range(len(padded) // 64):
                await tb.send(BLOCK, padded[64 * j:64 * j + 64])
            await tb.wait_dones(n0 + len(padded) // 64)
            assert dut.state_valid_o.value == 1
            assert int(dut.digest_o.value).to_bytes(32, "big") == hashlib.sha256(msg).digest(), f"message {i}"

    # An HMAC's chaining values (the key's) are never shown, and RESUME drops the held key.
    key = rng.randbytes(32)
    await tb.load_key(key)
    assert await tb.command(INIT, hmac_mode=1) == OK
    assert await tb.command(BLOCK, rng.randbytes(64)) == OK
    assert dut.state_valid_o.value == 0 and int(dut.digest_o.value) == 0
    assert await tb.command(RESUME, bytes(40)) == OK
    assert dut.key_valid_o.value == 0
    assert await tb.command(INIT, hmac_mode=1) == BAD_SEQ


@cocotb.test()
async def bad_sequences(dut):
    tb = TB(dut)
    await tb.reset()
    d = dut
    assert await tb.command(BLOCK, bytes(64)) == BAD_SEQ          # before INIT
    assert await tb.command(FINAL, b"abc") == BAD_SEQ             # before INIT
    for bad in (0, 6, 7):
        assert await tb.command(bad) == BAD_SEQ, f"command code {bad}"
    assert await tb.command(INIT, hmac_mode=1) == BAD_SEQ         # HMAC without a key
    assert d.key_valid_o.value == 0 and d.digest_valid_o.value == 0
    assert int(d.digest_o.value) == 0

    # FINAL with 64 bytes: BAD_LENGTH and the message goes on unharmed.
    assert await tb.command(INIT) == OK
    assert await tb.command(BLOCK, b"x" * 64) == OK
    assert await tb.command(FINAL, b"y" * 63, nbytes=64) == BAD_LENGTH
    assert await tb.command(FINAL, b"y" * 63, nbytes=127) == BAD_LENGTH
    assert d.digest_valid_o.value == 0
    assert await tb.command(FINAL, b"tail") == OK
    want = hashlib.sha256(b"x" * 64 + b"tail").digest()
    assert int(d.digest_o.value).to_bytes(32, "big") == want
    # After FINAL: BLOCK/FINAL rejected, the digest stays.
    assert await tb.command(BLOCK, bytes(64)) == BAD_SEQ
    assert await tb.command(FINAL, b"") == BAD_SEQ
    assert d.digest_valid_o.value == 1 and int(d.digest_o.value).to_bytes(32, "big") == want

    # KEY during an HMAC: BAD_SEQ, the held key and the message survive.
    key = b"k" * 20
    await tb.load_key(key)
    assert await tb.command(INIT, hmac_mode=1) == OK
    assert d.digest_valid_o.value == 0 and int(d.digest_o.value) == 0
    assert await tb.command(BLOCK, b"m" * 64) == OK
    assert await tb.command(KEY, b"other key") == BAD_SEQ
    assert d.key_valid_o.value == 1
    assert await tb.command(FINAL, b"end") == OK
    assert int(d.digest_o.value).to_bytes(32, "big") == hmac_ref(key, b"m" * 64 + b"end")

    # KEY during a plain message ends it (a driver's compressions leave one open).
    assert await tb.command(INIT) == OK
    assert await tb.command(BLOCK, b"p" * 64) == OK
    await tb.load_key(key)
    assert await tb.command(BLOCK, b"p" * 64) == BAD_SEQ

    # INIT abandons a message in progress.
    assert await tb.command(INIT) == OK
    assert await tb.command(BLOCK, b"junk" * 16) == OK
    assert await tb.digest_of(b"fresh") == hashlib.sha256(b"fresh").digest()


@cocotb.test()
async def busy_engine_takes_no_command(dut):
    """One command waits in the slot while the core works; a further one is not accepted."""
    tb = TB(dut)
    await tb.reset()
    d = dut
    await tb.command(INIT)
    n0 = len(tb.dones)
    await tb.send(BLOCK, b"a" * 64)          # starts the core
    await tb.send(BLOCK, b"b" * 64)          # waits in the slot
    assert d.busy_o.value == 1
    d.cmd_i.value = INIT                     # would abandon the message if taken
    d.cmd_valid_i.value = 1
    for _ in range(20):
        await FallingEdge(d.clk_i)
        assert d.cmd_ready_o.value == 0, "a second command was accepted while busy"
    d.cmd_valid_i.value = 0
    assert len(tb.dones) == n0
    await tb.send(FINAL, b"c")
    await tb.wait_dones(n0 + 3)
    assert [s for _, s in tb.dones[n0:]] == [OK] * 3
    assert int(d.digest_o.value).to_bytes(32, "big") == hashlib.sha256(b"a" * 64 + b"b" * 64 + b"c").digest()
    for _ in range(5):
        await FallingEdge(d.clk_i)
    assert d.busy_o.value == 0 and d.cmd_ready_o.value == 1


@cocotb.test()
async def timing_independent_of_data(dut):
    """Cycle counts depend only on commands and lengths: two random runs must agree."""
    tb = TB(dut)
    await tb.reset()
    await tb.load_key(b"first key")
    runs = []
    for _ in range(2):
        n0 = len(tb.dones)
        rng = tb.rng
        lat = []
        for mode in (0, 1):
            for n in (0, 55, 56, 63):
                assert await tb.command(INIT, hmac_mode=mode) == OK
                k = len(tb.dones) + 1
                s = await tb.send(BLOCK, rng.randbytes(64))
                lat.append((await tb.wait_dones(k))[0] - s)
                k = len(tb.dones) + 1
                s = await tb.send(FINAL, rng.randbytes(n))
                lat.append((await tb.wait_dones(k))[0] - s)
        k = len(tb.dones) + 1
        s = await tb.send(KEY, rng.randbytes(64))
        lat.append((await tb.wait_dones(k))[0] - s)
        runs.append(lat)
        assert all(st == OK for _, st in tb.dones[n0:])
    assert runs[0] == runs[1], f"data-dependent timing: {runs}"


@cocotb.test()
async def cycle_counts(dut):
    """The figures `make bench` reports; also written to build/rtl/sha256_engine/cycles.json."""
    tb = TB(dut)
    await tb.reset()
    res = await measure_cycles(tb)
    dut._log.info("cycles: %s", res)
    assert res["block"] == 65, res
    out = ROOT / "build" / "rtl" / "sha256_engine" / "cycles.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1) + "\n")


def test_sha256_engine():
    run_cocotb("sha256_engine", sources("iotse:ip:sha", "engine"), "test_sha256_engine")
