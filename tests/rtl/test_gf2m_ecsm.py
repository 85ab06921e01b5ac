"""gf2m_ecsm: sect233r1/k1 scalar multiplication kP in RTL.

References, both independent of the RTL: OpenSSL's libcrypto through ossl.py (the `cryptography`
package no longer has binary curves) and a small affine model of binary-curve arithmetic written
from SEC 1 section 2.2.2 below, itself cross-checked against OpenSSL on the generators.
"""
import json
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge
from cocotb.utils import get_sim_time

from ossl import Curve
from rtlsim import ROOT, run_cocotb, sources

# ---- GF(2^233), f = x^233 + x^74 + 1, and SEC 1 affine arithmetic (the model) ---------------
M = 233
F = (1 << 233) | (1 << 74) | 1
B233 = 0x066647EDE6C332C7F8C0923BB58213B333B20E9CE4281FE115F7D8F90AD


def fmul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        b >>= 1
    for i in range(r.bit_length() - 1, M - 1, -1):
        if r >> i & 1:
            r ^= F << (i - M)
    return r


def finv(a):
    """Extended Euclid over GF(2)[x]; a != 0."""
    u, v, g1, g2 = a, F, 1, 0
    while u != 1:
        j = u.bit_length() - v.bit_length()
        if j < 0:
            u, v, g1, g2, j = v, u, g2, g1, -j
        u ^= v << j
        g1 ^= g2 << j
    return g1


def fsqrt(a):
    for _ in range(M - 1):
        a = fmul(a, a)
    return a


class Model:
    """y^2 + xy = x^3 + a x^2 + b; points (x, y), None = O (SEC 1 2.2.2 addition rules)."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def on_curve(self, p):
        x, y = p
        return fmul(y, y) ^ fmul(x, y) == fmul(fmul(x, x), x ^ self.a) ^ self.b

    def neg(self, p):
        return None if p is None else (p[0], p[0] ^ p[1])

    def add(self, p, q):
        if p is None:
            return q
        if q is None:
            return p
        (x1, y1), (x2, y2) = p, q
        if q == self.neg(p):
            return None
        if p == q:
            lam = x1 ^ fmul(y1, finv(x1))
            x3 = fmul(lam, lam) ^ lam ^ self.a
            return x3, fmul(x1, x1) ^ fmul(lam ^ 1, x3)
        lam = fmul(y1 ^ y2, finv(x1 ^ x2))
        x3 = fmul(lam, lam) ^ lam ^ x1 ^ x2 ^ self.a
        return x3, fmul(lam, x1 ^ x3) ^ x3 ^ y1

    def mul(self, k, p):
        r = None
        for i in range(k.bit_length() - 1, -1, -1):
            r = self.add(r, r)
            if k >> i & 1:
                r = self.add(r, p)
        return r


class Setup:
    def __init__(self, name, koblitz):
        self.name, self.koblitz = name, koblitz
        self.ossl = Curve(name)
        self.n = self.ossl.n
        self.model = Model(0, 1) if koblitz else Model(1, B233)
        self.g = self.ossl.mul(1)


CURVES = [Setup("sect233r1", 0), Setup("sect233k1", 1)]
OK, BAD, INF = 0, 1, 2


class TB:
    def __init__(self, dut):
        self.dut = dut
        cocotb.start_soon(Clock(dut.clk_i, 10, unit="ns").start())

    async def reset(self):
        d = self.dut
        d.start_i.value = 0
        d.koblitz_i.value = 0
        d.k_i.value = 0
        d.px_i.value = 0
        d.py_i.value = 0
        d.rst_ni.value = 0
        await ClockCycles(d.clk_i, 2)
        d.rst_ni.value = 1
        await RisingEdge(d.clk_i)

    async def run(self, koblitz, k, p, busy_starts=None):
        """kP on the core; returns (status, point or None, cycles from the start edge to the edge
        after which done_o is seen). busy_starts: other (koblitz, k, p) pulsed while busy."""
        d = self.dut
        d.koblitz_i.value = koblitz
        d.k_i.value = k
        d.px_i.value, d.py_i.value = p
        d.start_i.value = 1
        await RisingEdge(d.clk_i)
        t0 = get_sim_time("ns")
        d.start_i.value = 0
        await ReadOnly()
        assert d.busy_o.value == 1
        if busy_starts:
            for kob2, k2, p2 in busy_starts:
                await RisingEdge(d.clk_i)
                d.koblitz_i.value = kob2
                d.k_i.value = k2
                d.px_i.value, d.py_i.value = p2
                d.start_i.value = 1
                await RisingEdge(d.clk_i)
                d.start_i.value = 0
        await RisingEdge(d.done_o)
        await ReadOnly()
        cycles = round((get_sim_time("ns") - t0) / 10)
        assert d.busy_o.value == 0
        status = int(d.status_o.value)
        rx, ry = int(d.rx_o.value), int(d.ry_o.value)
        await RisingEdge(d.clk_i)
        await ReadOnly()
        # done is a pulse; the result stays until the next start.
        assert d.done_o.value == 0
        assert (int(d.status_o.value), int(d.rx_o.value), int(d.ry_o.value)) == (status, rx, ry)
        await RisingEdge(d.clk_i)
        if status != OK:
            assert rx == 0 and ry == 0, "result not zeroed for a non-OK status"
            return status, None, cycles
        return status, (rx, ry), cycles


def expect(c, k, p):
    """(status, point) kP should give according to OpenSSL."""
    r = c.ossl.mul(0, p, k)
    return (INF, None) if r is None else (OK, r)


CYCLES = set()


@cocotb.test()
async def generator_random_scalars(dut):
    """k G for random k in [1, n-1] on both curves against OpenSSL."""
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(1)
    for c in CURVES:
        assert c.model.on_curve(c.g)
        for _ in range(6):
            k = rng.randrange(1, c.n)
            st, r, cyc = await tb.run(c.koblitz, k, c.g)
            CYCLES.add(cyc)
            assert (st, r) == (OK, c.ossl.mul(k)), f"{c.name} k={k:#x}"
    dut._log.info("cycles per scalar multiplication: %s", sorted(CYCLES))


@cocotb.test()
async def random_points_random_scalars(dut):
    """k Q with Q = k'G random: against OpenSSL's k Q and against (k k' mod n) G."""
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(2)
    for c in CURVES:
        for _ in range(5):
            q = c.ossl.mul(rng.randrange(1, c.n))
            k = rng.randrange(1, c.n)
            st, r, cyc = await tb.run(c.koblitz, k, q)
            CYCLES.add(cyc)
            assert (st, r) == expect(c, k, q), f"{c.name} k={k:#x} Q={q}"


@cocotb.test()
async def edge_scalars(dut):
    """0, 1, 2, n-1, n, n+1, 2^233-1 on G and on a random point, against the SEC 1 model."""
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(3)
    for c in CURVES:
        # The model agrees with OpenSSL on the generator (and on a random multiple of it).
        k0 = rng.randrange(1, c.n)
        assert c.model.mul(k0, c.g) == c.ossl.mul(k0)
        assert c.model.mul(c.n, c.g) is None
        q = c.ossl.mul(rng.randrange(1, c.n))
        for p in (c.g, q):
            for k in (0, 1, 2, 3, c.n - 1, c.n, c.n + 1, c.n + 2, (1 << 233) - 1):
                want = c.model.mul(k % c.n, p)
                st, r, cyc = await tb.run(c.koblitz, k, p)
                CYCLES.add(cyc)
                assert (st, r) == ((INF, None) if want is None else (OK, want)), f"{c.name} k={k:#x}"
                if k == c.n - 1:
                    assert r == c.model.neg(p)
        # 2^233 - 1 is above n: the model with the unreduced scalar gives the same point.
        assert c.model.mul((1 << 233) - 1, c.g) == c.model.mul(((1 << 233) - 1) % c.n, c.g)


@cocotb.test()
async def invalid_points(dut):
    """Points off the curve and x = 0 give BAD_POINT, zero outputs and the usual cycle count."""
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(4)
    counts = set()
    for c in CURVES:
        sqrt_b = fsqrt(c.model.b)
        assert c.model.on_curve((0, sqrt_b))
        pts = [(0, sqrt_b), (0, 0), (0, rng.getrandbits(233))]
        g = c.g
        pts += [(g[0], g[1] ^ 1), (g[0] ^ (1 << 100), g[1])]
        while len(pts) < 10:
            p = (rng.getrandbits(233), rng.getrandbits(233))
            if not c.model.on_curve(p):
                pts.append(p)
        for p in pts:
            for k in (rng.randrange(1, c.n), 0):
                st, r, cyc = await tb.run(c.koblitz, k, p)
                counts.add(cyc)
                assert st == BAD and r is None, f"{c.name} P={p}"
        # The same core then works again on a valid point.
        st, r, _ = await tb.run(c.koblitz, 7, g)
        assert (st, r) == (OK, c.ossl.mul(7))
    assert len(counts) == 1, f"cycle counts for bad points vary: {counts}"
    CYCLES.update(counts)


@cocotb.test()
async def constant_time(dut):
    """The cycle count is the same for >= 100 random scalars per curve, the edge scalars, random
    points and both curves (results checked too)."""
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(5)
    counts = set(CYCLES)
    for c in CURVES:
        q = c.ossl.mul(rng.randrange(1, c.n))
        scalars = [rng.randrange(1, c.n) for _ in range(100)]
        scalars += [rng.getrandbits(233) for _ in range(4)]
        scalars += [0, 1, 2, c.n - 1, c.n, c.n + 1, (1 << 233) - 1, 1 << 232, (1 << 232) - 1]
        for i, k in enumerate(scalars):
            p = q if i % 2 else c.g
            st, r, cyc = await tb.run(c.koblitz, k, p)
            counts.add(cyc)
            assert (st, r) == expect(c, k, p), f"{c.name} k={k:#x}"
    assert len(counts) == 1, f"cycle counts vary: {sorted(counts)}"
    cycles = counts.pop()
    dut._log.info("constant time: every run took %d cycles", cycles)
    # the figure `make bench` reports (tools/bench.py)
    out = ROOT / "build" / "rtl" / "gf2m_ecsm" / "cycles.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({c.name: cycles for c in CURVES}, indent=1) + "\n")


@cocotb.test()
async def start_while_busy_is_ignored(dut):
    """Start pulses with other inputs while busy change neither the result nor the timing."""
    tb = TB(dut)
    await tb.reset()
    rng = random.Random(6)
    c, other = CURVES
    k = rng.randrange(1, c.n)
    _, _, ref_cycles = await tb.run(c.koblitz, 5, c.g)
    junk = [(other.koblitz, rng.getrandbits(233), other.g), (1, 0, (0, 0)),
            (0, 1, (rng.getrandbits(233), 1))]
    st, r, cyc = await tb.run(c.koblitz, k, c.g, busy_starts=junk)
    assert (st, r) == (OK, c.ossl.mul(k))
    assert cyc == ref_cycles


def test_gf2m_ecsm():
    run_cocotb("gf2m_ecsm", sources("iotse:ip:gf2m", "ecsm"), "test_gf2m_ecsm")


def test_gf2m_ecsm_karatsuba():
    """The Karatsuba digit products (KARA = 1; the default packs schoolbook products into LUT6s,
    smaller on xc7): the same results and the same cycle count, without the long CT sweep."""
    run_cocotb("gf2m_ecsm", sources("iotse:ip:gf2m", "ecsm"), "test_gf2m_ecsm",
               parameters={"KARA": 1}, tag="_kara",
               test_filter="generator_random_scalars|random_points_random_scalars|edge_scalars|invalid_points")
