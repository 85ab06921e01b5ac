// The engine alone as a Verilator model behind se/hal.h: the CLI's --backend rtl drives the real
// RTL (rtl/engine/se_engine.sv) through Wishbone B4 classic transactions, one per register access.
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "Vse_engine.h"
#include "verilated.h"

extern "C" {
#include "se/hal.h"
#include "engine_model.h"
}

namespace {

// A register access that is not answered within this many cycles is a hung bus.
constexpr int kBusTimeout = 64;

std::unique_ptr<VerilatedContext> ctx;
std::unique_ptr<Vse_engine> top;
uint64_t cycles;
int fault;

void tick()
{
    top->clk_i = 0;
    top->eval();
    top->clk_i = 1;
    top->eval();
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
    access(offset, true, value);
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
