"""pk_alu: Montgomery MUL, modular ADD/SUB and MINV against Python integers, with fixed latencies.

The reference is plain integer arithmetic (pow(m, -1, R) etc.), independent of the RTL's algorithm.
Latency is the number of rising edges from the one that samples start_i (counted as 1) to the one
after which done_o is high; it must equal the documented formula and never depend on the operands.
"""
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge

from rtlsim import run_cocotb, sources

MUL, ADD, SUB, MINV = 0, 1, 2, 3
NAMES = {MUL: "MUL", ADD: "ADD", SUB: "SUB", MINV: "MINV"}

# Moduli of the real curves, written out from their standards (SEC 2, FIPS 186-4, RFC 7748).
CURVE_MODULI = {
    "secp160r1 p": 2**160 - 2**31 - 1,
    "secp160r1 n": 0x0100000000000000000001F4C8F927AED3CA752257,
    "P-192 p": 2**192 - 2**64 - 1,
    "P-224 p": 2**224 - 2**96 + 1,
    "P-256 p": 2**256 - 2**224 + 2**192 + 2**96 - 1,
    "P-256 n": 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551,
    "secp256k1 p": 2**256 - 2**32 - 977,
    "2^255-19": 2**255 - 19,
}


def latency(op, ndig, dw):
    """The formulas of the header comment in rtl/pk/pk_alu.sv."""
    nit = 1
    while 3 << nit < dw:
        nit += 1
    return {MUL: 2 * ndig + 1, ADD: 2, SUB: 2, MINV: 2 * nit}[op]


class TB:
    def __init__(self, dut):
        self.dut = dut
        self.w = int(dut.W.value)
        self.dw = int(dut.DW.value)
        self.nd = self.w // self.dw
        self.last = None
        cocotb.start_soon(Clock(dut.clk_i, 10, unit="ns").start())

    async def reset(self):
        d = self.dut
        d.start_i.value = 0
        for s in (d.op_i, d.ndig_i, d.m_i, d.minv_i, d.a_i, d.b_i):
            s.value = 0
        d.rst_ni.value = 0
        await ClockCycles(d.clk_i, 2)
        d.rst_ni.value = 1
        await RisingEdge(d.clk_i)

    async def run(self, op, ndig, m, minv=0, a=0, b=0):
        """Returns (r_o, latency). Starts at the falling edge after the previous done_o (so starts come
        back to back, in the done cycle) and checks that r_o held until then and busy_o meanwhile."""
        d = self.dut
        await FallingEdge(d.clk_i)
        if self.last is not None:
            assert int(d.r_o.value) == self.last, "r_o changed after done_o"
        d.op_i.value = op
        d.ndig_i.value = ndig
        d.m_i.value = m
        d.minv_i.value = minv
        d.a_i.value = a
        d.b_i.value = b
        d.start_i.value = 1
        await RisingEdge(d.clk_i)
        d.start_i.value = 0
        cycles = 1
        await ReadOnly()
        while not d.done_o.value:
            assert d.busy_o.value == 1, f"{NAMES[op]}: busy_o fell before done_o"
            assert cycles < 1000, f"{NAMES[op]}: no done_o"
            await RisingEdge(d.clk_i)
            await ReadOnly()
            cycles += 1
        assert d.busy_o.value == 0, "busy_o still high with done_o"
        self.last = int(d.r_o.value)
        return self.last, cycles


def moduli(rng, dw, nd, count):
    """(name, m, ndig): the curve moduli with the fewest digits that hold them (and once with every
    digit), then random odd moduli of random widths 2..W bits with ndig from minimal to ND."""
    out = []
    for name, m in CURVE_MODULI.items():
        ndig = -(-m.bit_length() // dw)
        out.append((name, m, ndig))
    out.append(("P-256 p, 2^255-19 widened", 2**255 - 19, nd))
    widths = [2, 3, dw - 1, dw, dw + 1, 2 * dw, nd * dw - 1, nd * dw]
    widths += [rng.randrange(2, nd * dw + 1) for _ in range(count - len(widths))]
    for bits in widths:
        m = rng.getrandbits(bits) | 1 | (1 << (bits - 1))
        if m < 3:
            m = 3
        ndig = rng.randrange(-(-m.bit_length() // dw), nd + 1)
        out.append((f"random {bits}-bit", m, ndig))
    return out


async def check_modulus(tb, rng, name, m, ndig, nops, lat):
    dw = tb.dw
    R = 1 << (dw * ndig)
    rinv = pow(R, -1, m)

    def note(op, cycles):
        lat.setdefault((op, ndig), set()).add(cycles)
        assert cycles == latency(op, ndig, dw), \
            f"{name}: {NAMES[op]} with ndig={ndig} took {cycles} cycles, expected {latency(op, ndig, dw)}"

    # MINV, with junk on the operands that MINV must ignore.
    minv, cycles = await tb.run(MINV, ndig, m, rng.getrandbits(dw), rng.getrandbits(tb.w), rng.getrandbits(tb.w))
    note(MINV, cycles)
    want = (-pow(m, -1, 1 << dw)) % (1 << dw)
    assert minv == want, f"{name}: MINV gave {minv:#x}, expected {want:#x}"

    edges = [0, 1, m - 1]
    cases = [(MUL, a, b) for a in edges + [R - 1] for b in edges]
    cases += [(op, a, b) for op in (ADD, SUB) for a in edges for b in edges]
    while len(cases) < nops:
        op = rng.choice((MUL, ADD, SUB))
        a = rng.randrange(R if op == MUL else m)
        b = rng.randrange(m)
        cases.append((op, a, b))
    for op, a, b in cases:
        r, cycles = await tb.run(op, ndig, m, minv, a, b)
        note(op, cycles)
        want = {MUL: a * b * rinv % m, ADD: (a + b) % m, SUB: (a - b) % m}[op]
        assert r == want, f"{name} (ndig={ndig}): {NAMES[op]} a={a:#x} b={b:#x} gave {r:#x}, expected {want:#x}"


@cocotb.test()
async def random_and_curve_moduli(dut):
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(int(os.environ.get("PK_ALU_SEED", "20260517")) + tb.dw)
    nops = int(os.environ.get("PK_ALU_OPS", "200"))
    nrand = int(os.environ.get("PK_ALU_MODULI", "40"))
    lat = {}
    for name, m, ndig in moduli(rng, tb.dw, tb.nd, nrand):
        await check_modulus(tb, rng, name, m, ndig, nops, lat)
    # Constant time: one latency per (op, ndig), whatever the operands and the modulus.
    for (op, ndig), seen in lat.items():
        assert len(seen) == 1, f"{NAMES[op]} ndig={ndig} latencies {sorted(seen)}"
    dut._log.info("latencies: %s", {f"{NAMES[op]}/{nd}": min(s) for (op, nd), s in sorted(lat.items())})


@cocotb.test()
async def start_while_busy_is_ignored(dut):
    """Start pulses during a MUL must neither restart nor disturb it; r_o holds after done_o."""
    tb = TB(dut)
    await tb.reset()
    d = dut
    dw = tb.dw
    m = CURVE_MODULI["P-256 n"]
    ndig = -(-m.bit_length() // dw)
    R = 1 << (dw * ndig)
    minv = (-pow(m, -1, 1 << dw)) % (1 << dw)
    a, b = R - 1, m - 2
    d.op_i.value = MUL
    d.ndig_i.value = ndig
    d.m_i.value = m
    d.minv_i.value = minv
    d.a_i.value = a
    d.b_i.value = b
    d.start_i.value = 1
    await RisingEdge(d.clk_i)
    cycles = 1
    while True:
        await ReadOnly()
        if d.done_o.value:
            break
        await FallingEdge(d.clk_i)
        # Keep pulsing start (with other ops) while busy; stop a cycle before done.
        if cycles < latency(MUL, ndig, dw) - 1:
            d.start_i.value = 1
            d.op_i.value = cycles % 4
        else:
            d.start_i.value = 0
            d.op_i.value = MUL
        await RisingEdge(d.clk_i)
        cycles += 1
    assert cycles == latency(MUL, ndig, dw)
    want = a * b * pow(R, -1, m) % m
    assert int(d.r_o.value) == want
    for _ in range(5):
        await RisingEdge(d.clk_i)
        await ReadOnly()
        assert d.done_o.value == 0 and d.busy_o.value == 0
        assert int(d.r_o.value) == want


def test_pk_alu():
    """At the default digit width, the engine's (DW = 32)."""
    run_cocotb("pk_alu", sources("iotse:ip:pk", "alu"), "test_pk_alu")


def test_pk_alu_dw16():
    """At DW = 16, the half-size multiplier (rtl/pk/README.md: the trade)."""
    run_cocotb("pk_alu", sources("iotse:ip:pk", "alu"), "test_pk_alu", parameters={"DW": 16}, tag="_dw16")
