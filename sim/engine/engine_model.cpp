// The engine alone as a Verilator model behind se/hal.h: the CLI's --backend rtl drives the real
// RTL (rtl/engine/se_engine.sv) through Wishbone B4 classic transactions, one per register access.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "Vse_engine.h"
#include "verilated.h"

extern "C" {
#include "se/hal.h"
#include "se/hw/dma_regs.h"
#include "engine_model.h"
}

namespace {

// A register access that is not answered within this many cycles is a hung bus.
constexpr int kBusTimeout = 64;

// The node RAM the engine's DMA reaches (se_engine's RamBase/RamSize defaults): answered as the
// node's RAM does, one wait state; outside it, err.
constexpr uint32_t kRamBase = 0x10000000u, kRamSize = 0x10000u;
uint8_t ram[kRamSize];
bool dma_resp;

// se_hal_dma_in/out: the driver's buffers, each given a place in that RAM (from its start, afresh
// after every sync); filled when the chain starts, the outputs copied back by se_hal_dma_sync.
struct Region {
    const void *from;
    void *to;  // nullptr for an input
    uint32_t at;
    size_t n;
};
std::vector<Region> regions;
uint32_t ram_used;

uint32_t place(const void *from, void *to, size_t n)
{
    if (n > kRamSize - ram_used)
        return 0;
    const uint32_t at = kRamBase + ram_used;
    regions.push_back({from, to, at, n});
    ram_used += (uint32_t)((n + 3) & ~(size_t)3);
    return at;
}

std::unique_ptr<VerilatedContext> ctx;
std::unique_ptr<Vse_engine> top;
uint64_t cycles;
int fault;

void tick()
{
    top->clk_i = 0;
    top->eval();
    const bool req = top->dma_cyc_o && top->dma_stb_o && !dma_resp;
    const uint32_t a = top->dma_adr_o - kRamBase;
    const bool in_ram = a < kRamSize;
    uint32_t rdata = 0;
    if (req && in_ram) {
        for (unsigned l = 0; l < 4; l++) {
            if (top->dma_we_o && (top->dma_sel_o >> l & 1u))
                ram[(a & ~3u) + l] = (uint8_t)(top->dma_dat_o >> (8 * l));
            rdata |= (uint32_t)ram[(a & ~3u) + l] << (8 * l);
        }
    }
    top->clk_i = 1;
    top->eval();
    top->dma_ack_i = req && in_ram;
    top->dma_err_i = req && !in_ram;
    top->dma_dat_i = top->dma_we_o ? 0 : rdata;
    dma_resp = req;
    cycles++;
}

void ensure_model()
{
    if (top)
        return;
    ctx = std::make_unique<VerilatedContext>();
    top = std::make_unique<Vse_engine>(ctx.get());
    top->rst_ni = 0;
    top->wb_cyc_i = 0;
    top->wb_stb_i = 0;
    tick();
    tick();
    top->rst_ni = 1;
    tick();
}

uint32_t access(uint32_t offset, bool we, uint32_t data)
{
    ensure_model();
    top->wb_cyc_i = 1;
    top->wb_stb_i = 1;
    top->wb_we_i = we;
    top->wb_adr_i = offset & 0xffffu;
    top->wb_dat_i = data;
    top->wb_sel_i = 0xf;
    uint32_t rdata = 0;
    int n = 0;
    for (;;) {
        tick();
        if (top->wb_ack_o || top->wb_err_o) {
            rdata = top->wb_dat_o;
            fault |= top->wb_err_o;
            break;
        }
        if (++n == kBusTimeout) {
            std::fprintf(stderr, "engine model: no bus response at offset 0x%04x\n", offset);
            std::exit(3);
        }
    }
    top->wb_cyc_i = 0;
    top->wb_stb_i = 0;
    return rdata;
}

}  // namespace

extern "C" uint32_t se_hal_read32(uint32_t offset)
{
    return access(offset, false, 0);
}

extern "C" void se_hal_write32(uint32_t offset, uint32_t value)
{
    if (offset == SE_HAL_DMA_BASE + SE_DMA_CMD &&
        (value >> SE_DMA_CMD_OP_SHIFT & SE_DMA_CMD_OP_MASK) == SE_DMA_CMD_OP_START)
        for (const Region &r : regions)
            std::memcpy(ram + (r.at - kRamBase), r.from, r.n);
    access(offset, true, value);
}

extern "C" uint32_t se_hal_dma_in(const void *p, size_t n)
{
    return place(p, nullptr, n);
}

// (an output region starts as a copy of p, so what the DMA leaves unwritten comes back unchanged)
extern "C" uint32_t se_hal_dma_out(void *p, size_t n)
{
    return place(p, p, n);
}

extern "C" void se_hal_dma_sync(void)
{
    for (const Region &r : regions)
        if (r.to != nullptr)
            std::memcpy(r.to, ram + (r.at - kRamBase), r.n);
    regions.clear();
    ram_used = 0;
}

extern "C" int se_hal_take_fault(void)
{
    int f = fault;
    fault = 0;
    return f;
}

// The engine has no CPU to put to sleep: run the clock until its interrupt line rises (a bounded
// stretch, so a driver waiting on a disabled interrupt still gets back to its poll limit).
extern "C" void se_hal_sleep(void)
{
    ensure_model();
    for (int n = 0; n < (1 << 20) && !top->irq_o; n++)
        tick();
}

extern "C" uint64_t se_engine_model_cycles(void)
{
    return cycles;
}
