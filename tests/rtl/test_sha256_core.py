"""sha256_core: messages padded in Python are compressed block by block; digests must match hashlib."""
import hashlib
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from rtlsim import run_cocotb, sources


def pad(msg):
    """FIPS 180-4 padding, written from the standard (the core compresses whole blocks)."""
    bits = len(msg) * 8
    msg += b"\x80" + b"\0" * ((55 - len(msg)) % 64) + bits.to_bytes(8, "big")
    return [msg[i:i + 64] for i in range(0, len(msg), 64)]


class TB:
    def __init__(self, dut):
        self.dut = dut
        cocotb.start_soon(Clock(dut.clk_i, 10, unit="ns").start())

    async def reset(self):
        d = self.dut
        d.init_i.value = 0
        d.next_i.value = 0
        d.block_i.value = 0
        d.rst_ni.value = 0
        await ClockCycles(d.clk_i, 2)
        d.rst_ni.value = 1
        await RisingEdge(d.clk_i)

    async def hash(self, msg):
        """Returns (digest, cycles of the last block from start pulse to digest_valid)."""
        d = self.dut
        for i, block in enumerate(pad(msg)):
            while not d.ready_o.value:
                await RisingEdge(d.clk_i)
            d.block_i.value = int.from_bytes(block, "big")
            (d.init_i if i == 0 else d.next_i).value = 1
            await RisingEdge(d.clk_i)
            d.init_i.value = 0
            d.next_i.value = 0
            # Count clock edges from the start edge until digest_valid_o is seen after an edge.
            cycles = 1
            await ReadOnly()
            while not d.digest_valid_o.value:
                await RisingEdge(d.clk_i)
                await ReadOnly()
                cycles += 1
            await RisingEdge(d.clk_i)
        return int(d.digest_o.value).to_bytes(32, "big"), cycles


@cocotb.test()
async def nist_and_random_messages(dut):
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(20261122)
    msgs = [b"", b"abc", b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", b"a" * 1000]
    msgs += [rng.randbytes(rng.randrange(300)) for _ in range(60)]
    for msg in msgs:
        digest, cycles = await tb.hash(msg)
        assert digest == hashlib.sha256(msg).digest(), f"message {msg.hex()[:80]}"
        assert cycles == 65, f"a block took {cycles} cycles"


@cocotb.test()
async def start_while_busy_is_ignored(dut):
    """A second start pulse during a block must not disturb it."""
    tb = TB(dut)
    await tb.reset()
    d = dut
    block = pad(b"abc")[0]
    d.block_i.value = int.from_bytes(block, "big")
    d.init_i.value = 1
    await RisingEdge(d.clk_i)
    for _ in range(10):
        d.next_i.value = 1
        d.block_i.value = 0xdead
        await RisingEdge(d.clk_i)
    d.next_i.value = 0
    while not d.digest_valid_o.value:
        await RisingEdge(d.clk_i)
    assert int(d.digest_o.value).to_bytes(32, "big") == hashlib.sha256(b"abc").digest()


def test_sha256_core():
    run_cocotb("sha256_core", sources("iotse:ip:sha", "core"), "test_sha256_core")
