"""Register tests generated from every IP's one description (rtl/<ip>/regs.toml, rtl/soc/regs/<name>.toml,
read by tools/regtool.py's own loader, common registers included) and run on the RTL over the bus:

* reset values: every register whose value after reset the description fixes (const, rw, wo, w1c,
  pulse, constant ro fields, BUSY_CYCLES) reads it;
* read/write masks: an rw register stores and reads back exactly its fields' bits (all ones, zeros,
  random words), restored afterwards;
* access kinds: wo and pulse read 0 (wo after a write too), const and hardware ro ignore writes,
  a write of ones sets no w1c bit;
* bus errors: every other word of the window, unaligned addresses and writes without all four byte
  enables end in err, and the refused write changes nothing;
* the interrupt line stays low and BUSY_CYCLES at 0 throughout (nothing ran).
Registers with a read strobe (their reads have effects: DOUT3 pops, RX_DATA advances) are read last.
The engine's four IPs run through se_engine at their windows (rtl/engine/memmap.toml), the node's
peripherals each alone (their window is the description's 2^addr_bits bytes)."""
import json
import os
import random

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge

from rtlsim import ENGINE_SOURCES, WbMaster, memmap, reg_window, regmap, run_cocotb, sources

ALL_ONES = 0xFFFF_FFFF


async def check_block(tb, desc, base):
    """Every check above on the register block of `desc` at `base`; returns the count of accesses."""
    regs, window = regmap(desc), reg_window(desc)
    n0 = tb.n
    elems = [(r, i, base + a) for r in regs for i, a in enumerate(r.addrs())]
    plain = [e for e in elems if not e[0].rd_strobe]

    for r, i, a in plain:                                # reset values
        want = r.reset_value()
        if want is not None:
            got = await tb.read(a)
            assert got == want, f"{desc} {r.elem(i)}: reset {got:#010x}, expected {want:#010x}"

    for r, i, a in plain:                                # masks and access kinds
        before = await tb.read(a)
        if r.access == "rw":
            mask = r.write_mask()
            for v in (ALL_ONES, 0, tb.rng.getrandbits(32), tb.rng.getrandbits(32)):
                await tb.write(a, v)
                got = await tb.read(a)
                assert got == v & mask, f"{desc} {r.elem(i)}: wrote {v:#010x}, read {got:#010x} (mask {mask:#010x})"
            await tb.write(a, before)
        elif r.access == "pulse":
            assert before == 0, f"{desc} {r.elem(i)}: a pulse register reads {before:#010x}"
            continue   # writing one starts what it starts (a command, a packet): the IPs' own tests
        elif r.access == "wo":
            assert before == 0, f"{desc} {r.elem(i)}: write-only, reads {before:#010x}"
            await tb.write(a, tb.rng.getrandbits(32) | 1)
        else:   # const, ro, w1c: a write changes nothing a read shows (w1c: clears nothing set)
            await tb.write(a, ALL_ONES if r.access == "w1c" else tb.rng.getrandbits(32))
        got = await tb.read(a)
        assert got == (0 if r.access == "wo" else before), \
            f"{desc} {r.elem(i)} ({r.access}): {before:#010x} before a write, {got:#010x} after"
        # A write without all four byte enables: err, and nothing stored.
        _, err = await tb.access(a, True, ~before & ALL_ONES, sel=0x3)
        assert err, f"{desc} {r.elem(i)}: a partial write is no bus error"
        got = await tb.read(a)
        assert got == before or r.access == "wo", f"{desc} {r.elem(i)}: the refused write changed it to {got:#010x}"

    mapped = {a - base for _, _, a in elems}             # every other word, and unaligned addresses
    for off in [o for o in range(0, window, 4) if o not in mapped] + [min(mapped) + 1, max(mapped) + 2]:
        for we in (False, True):
            data, err = await tb.access(base + off, we, ALL_ONES)
            assert err and data == 0, f"{desc} offset {off:#x} ({'write' if we else 'read'}): no bus error"

    for r, i, a in elems:                                # the read strobes, last
        if r.rd_strobe:
            _, err = await tb.access(a, False)
            assert not err, f"{desc} {r.elem(i)}: bus error"

    for r in regs:                                       # nothing ran: no interrupt, no busy cycle
        if r.role == "BUSY_CYCLES":
            assert await tb.read(base + r.offset) == 0, f"{desc}: BUSY_CYCLES counted"
    irq = getattr(tb.dut, "irq_o", None)
    assert irq is None or irq.value == 0, f"{desc}: interrupt raised"
    return tb.n - n0


class TB:
    def __init__(self, dut, seed):
        self.dut, self.rng, self.n = dut, random.Random(seed), 0
        self.bus = WbMaster(dut, self.rng, idle=(0, 0, 1, 2))
        cocotb.start_soon(Clock(dut.clk_i, 10, unit="ns").start())

    async def reset(self, ties):
        d = self.dut
        await self.bus.reset()
        for name in ties:   # the IP's other inputs, held at 0
            getattr(d, name).value = 0
        d.rst_ni.value = 0
        await ClockCycles(d.clk_i, 2)
        d.rst_ni.value = 1
        await RisingEdge(d.clk_i)

    async def access(self, addr, we, data=0, sel=0xF):
        self.n += 1
        return await self.bus.access(addr, we, data, sel)

    async def read(self, addr):
        data, err = await self.access(addr, False)
        assert not err, f"bus error reading {addr:#x}"
        return data

    async def write(self, addr, data):
        _, err = await self.access(addr, True, data)
        assert not err, f"bus error writing {addr:#x}"


@cocotb.test()
async def registers(dut):
    cfg = json.loads(os.environ["REGS_BLOCKS"])
    tb = TB(dut, int(os.environ.get("SE_TEST_SEED", "20261126")))
    await tb.reset(cfg["ties"])
    for desc, base in cfg["blocks"]:
        n = await check_block(tb, desc, base)
        dut._log.info(f"{desc} at {base:#x}: {n} accesses, all as described")


# ---------------------------------------------------------------------------------- pytest side
# top -> (sources, inputs held at 0, [(description, base)])
ENGINE_WINDOWS = memmap("rtl/engine/memmap.toml", with_regs=True)
TOPS = {"se_engine": (ENGINE_SOURCES, [], [(regs, base) for base, _, regs in ENGINE_WINDOWS.values()])}
TIES = {"uart": ["rx_valid_i", "rx_data_i"], "nic": ["rx_valid_i", "rx_data_i", "rx_last_i", "tx_ready_i"],
        "intc": ["src_i"], "trng": ["seed_i"], "sysctl": []}
for name, (_, _, regs) in memmap("rtl/soc/memmap.toml", with_regs=True).items():
    if regs:   # the peripherals with a register block
        TOPS[f"soc_{name}"] = (sources("iotse:soc:soc_top", name), TIES[name], [(regs, 0)])


@pytest.mark.parametrize("top", TOPS)
def test_regs(top):
    sources, ties, blocks = TOPS[top]
    # its own build directory: test_engine_wb and test_soc build the same tops, maybe at the same time
    run_cocotb(top, sources, "test_regs", tag="-regs",
               extra_env={"REGS_BLOCKS": json.dumps({"ties": ties, "blocks": blocks})})
