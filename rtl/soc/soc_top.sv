// The node: PicoRV32 (RV32I, RV32IM or RV32IMC) + ROM, RAM, sysctl, UART, intc, TRNG model, NIC and the security
// engine on one Wishbone B4 classic bus (map: rtl/soc/memmap.toml, docs/memory_map.md).
// The ports are the simulator's view (sim/node): byte streams for the UART and the NIC, the
// SIMULATION-ONLY marker/exit strobes, and what it reports (trap, sleep, pc, bus errors, busy IPs).
`default_nettype none

module soc_top #(
  parameter bit RV32M = 1'b1,                    // 1: MUL/DIV in hardware (RV32IM), 0: RV32I
  parameter bit RVC = 1'b0,                      // 1: the C extension (compressed instructions) too
  // 0: the node without the engine (the sw baseline's SoC): its address range answers every access
  // with a bus error, its interrupt and busy lines stay low. The sw firmware never touches it, so
  // its cycles are the same on either SoC; without the engine the simulator runs ~10x faster.
  parameter bit ENGINE = 1'b1
) (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  // UART, simulation side
  output logic             uart_tx_valid_o,      // one-cycle strobe per byte the firmware writes
  output logic      [7:0]  uart_tx_data_o,
  input  wire logic        uart_rx_valid_i,      // a byte is taken when valid && ready
  input  wire logic [7:0]  uart_rx_data_i,
  output logic             uart_rx_ready_o,
  // NIC, simulation side: byte streams with packet ends
  output logic             nic_tx_valid_o,
  output logic      [7:0]  nic_tx_data_o,
  output logic             nic_tx_last_o,        // the last byte of a packet
  input  wire logic        nic_tx_ready_i,
  input  wire logic        nic_rx_valid_i,
  input  wire logic [7:0]  nic_rx_data_i,
  input  wire logic        nic_rx_last_i,
  output logic             nic_rx_ready_o,       // low while the RX buffer cannot take a byte
  input  wire logic [63:0] trng_seed_i,
  // simulation control (sysctl SIM_* registers)
  output logic             sim_marker_valid_o,
  output logic      [31:0] sim_marker_o,
  output logic             sim_exit_valid_o,
  output logic      [31:0] sim_exit_code_o,
  // observation, for the simulator's report and error messages
  output logic             cpu_trap_o,           // picorv32 trap: the core has halted
  output logic             cpu_sleep_o,          // the core waits in waitirq
  output logic      [31:0] cpu_pc_o,             // address of the last instruction fetch
  output logic             bus_err_o,            // one-cycle: an access ended in a bus error
  output logic      [31:0] bus_err_addr_o,       // its byte address (valid with bus_err_o)
  output logic             bus_err_we_o,
  output logic      [5:0]  engine_busy_o         // {CTRL, DMA, GF2M, PK, SHA, AES} busy
);

  localparam int NumRegions = soc_memmap::NumRegions;
  localparam int ReqBits = wb_pkg::ReqBits, RspBits = wb_pkg::RspBits;
  localparam int Rom = soc_memmap::RomIdx, Ram = soc_memmap::RamIdx, Sysctl = soc_memmap::SysctlIdx,
                 Uart = soc_memmap::UartIdx, Intc = soc_memmap::IntcIdx, Trng = soc_memmap::TrngIdx,
                 Nic = soc_memmap::NicIdx, Engine = soc_memmap::EngineIdx;

  // ---------------------------------------------------------------- the core
  logic        mem_valid, mem_instr, mem_ready;
  logic [31:0] mem_addr, mem_wdata, mem_rdata;
  logic [3:0]  mem_wstrb;
  logic [31:0] cpu_irq;
  // picorv32 outputs the node does not use: the look-ahead bus but its reads, PCPI, eoi, trace
  logic        la_read, la_write, pcpi_valid, trace_valid;
  logic [31:0] la_addr, la_wdata, pcpi_insn, pcpi_rs1, pcpi_rs2, eoi;
  logic [3:0]  la_wstrb;
  logic [35:0] trace_data;

  // Interrupts are never taken (picorv32 starts with all masked; firmware keeps them so): irq only
  // ends `waitirq`. LATCHED_IRQ = 0 makes the pending bits follow the live levels.
  picorv32 #(
    .ENABLE_COUNTERS(1'b1), .ENABLE_COUNTERS64(1'b1), .BARREL_SHIFTER(1'b1), .COMPRESSED_ISA(RVC),
    .CATCH_MISALIGN(1'b1), .CATCH_ILLINSN(1'b1),
    .ENABLE_MUL(1'b0), .ENABLE_FAST_MUL(RV32M), .ENABLE_DIV(RV32M),
    .ENABLE_IRQ(1'b1), .ENABLE_IRQ_QREGS(1'b0), .ENABLE_IRQ_TIMER(1'b0),
    .LATCHED_IRQ(32'h0), .MASKED_IRQ(32'h0),
    .PROGADDR_RESET(soc_memmap::RomBase), .PROGADDR_IRQ(soc_memmap::RomBase + 32'h10),
    .STACKADDR(soc_memmap::RamBase + soc_memmap::RamSize)
  ) u_cpu (
    .clk(clk_i), .resetn(rst_ni), .trap(cpu_trap_o),
    .mem_valid(mem_valid), .mem_instr(mem_instr), .mem_ready(mem_ready),
    .mem_addr(mem_addr), .mem_wdata(mem_wdata), .mem_wstrb(mem_wstrb), .mem_rdata(mem_rdata),
    .mem_la_read(la_read), .mem_la_write(la_write), .mem_la_addr(la_addr),
    .mem_la_wdata(la_wdata), .mem_la_wstrb(la_wstrb),
    .pcpi_valid(pcpi_valid), .pcpi_insn(pcpi_insn), .pcpi_rs1(pcpi_rs1), .pcpi_rs2(pcpi_rs2),
    .pcpi_wr(1'b0), .pcpi_rd(32'h0), .pcpi_wait(1'b0), .pcpi_ready(1'b0),
    .irq(cpu_irq), .eoi(eoi),
    .trace_valid(trace_valid), .trace_data(trace_data)
  );

  logic unused_cpu;
  assign unused_cpu = ^{la_write, la_wdata, la_wstrb, pcpi_valid, pcpi_insn,
                        pcpi_rs1, pcpi_rs2, eoi, trace_valid, trace_data};

  // ---------------------------------------------------------------- bus
  // Three masters, the CPU first, the engine's DMA second, the NIC's TX_DMA third (wb_arbiter: fixed
  // priority, a master keeps the bus while it holds cyc; the DMA holds it for one block at most, the
  // NIC for one word, rtl/soc/README.md).
  wb_pkg::wb_req_t cpu_req, dma_req, nic_req, m_req;
  wb_pkg::wb_rsp_t cpu_rsp, dma_rsp, nic_rsp, m_rsp;

  wb_arbiter #(.NumMasters(3)) u_arb (
    .clk_i, .rst_ni, .m_i({nic_req, dma_req, cpu_req}), .m_o({nic_rsp, dma_rsp, cpu_rsp}), .s_o(m_req), .s_i(m_rsp)
  );

  logic        rom_fetch;
  logic [31:0] rom_addr, rom_dat;

  soc_cpu_bridge #(.RomBase(soc_memmap::RomBase), .RomSize(soc_memmap::RomSize)) u_bridge (
    .clk_i, .rst_ni,
    .mem_valid_i(mem_valid), .mem_instr_i(mem_instr), .mem_ready_o(mem_ready),
    .mem_addr_i(mem_addr), .mem_wdata_i(mem_wdata), .mem_wstrb_i(mem_wstrb),
    .mem_rdata_o(mem_rdata), .mem_la_read_i(la_read), .mem_la_addr_i(la_addr),
    .rom_fetch_o(rom_fetch), .rom_addr_o(rom_addr), .rom_dat_i(rom_dat),
    .wb_o(cpu_req), .wb_i(cpu_rsp),
    .pc_o(cpu_pc_o), .sleep_o(cpu_sleep_o),
    .bus_err_o, .bus_err_addr_o, .bus_err_we_o
  );

  // Region i's slave at [ReqBits*i +: ReqBits] / [RspBits*i +: RspBits]. Without the engine its
  // region is a hole: the interconnect answers every access there with a bus error.
  localparam logic [NumRegions-1:0] Present = ENGINE ? {NumRegions{1'b1}} : ~(NumRegions'(1) << Engine);
  logic [NumRegions*ReqBits-1:0] s_req;
  logic [NumRegions*RspBits-1:0] s_rsp;

  wb_interconnect #(
    .NumSlaves(NumRegions), .Bases(soc_memmap::RegionBases), .Sizes(soc_memmap::RegionSizes), .Present(Present)
  ) u_bus (.clk_i, .rst_ni, .m_i(m_req), .m_o(m_rsp), .s_o(s_req), .s_i(s_rsp));

  // ---------------------------------------------------------------- slaves
  logic irq_engine, irq_nic, irq_timer, irq_uart;

  soc_rom #(.AddrBits(17)) u_rom (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Rom +: ReqBits]), .wb_o(s_rsp[RspBits*Rom +: RspBits]),
    .fetch_i(rom_fetch), .fetch_word_i(rom_addr[16:2]), .fetch_dat_o(rom_dat)
  );
  logic unused_rom_addr;
  assign unused_rom_addr = ^{rom_addr[31:17], rom_addr[1:0]};

  soc_ram #(.AddrBits(16)) u_ram (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Ram +: ReqBits]), .wb_o(s_rsp[RspBits*Ram +: RspBits])
  );

  soc_sysctl u_sysctl (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Sysctl +: ReqBits]), .wb_o(s_rsp[RspBits*Sysctl +: RspBits]),
    .timer_irq_o(irq_timer),
    .sim_marker_valid_o, .sim_marker_o, .sim_exit_valid_o, .sim_exit_code_o
  );

  soc_uart u_uart (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Uart +: ReqBits]), .wb_o(s_rsp[RspBits*Uart +: RspBits]),
    .irq_o(irq_uart),
    .tx_valid_o(uart_tx_valid_o), .tx_data_o(uart_tx_data_o),
    .rx_valid_i(uart_rx_valid_i), .rx_data_i(uart_rx_data_i), .rx_ready_o(uart_rx_ready_o)
  );

  logic [soc_memmap::NumIrqs-1:0] irq_src;
  always_comb begin
    irq_src = '0;
    irq_src[soc_memmap::IrqEngine] = irq_engine;
    irq_src[soc_memmap::IrqNicRx]  = irq_nic;
    irq_src[soc_memmap::IrqTimer]  = irq_timer;
    irq_src[soc_memmap::IrqUartRx] = irq_uart;
  end

  soc_intc u_intc (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Intc +: ReqBits]), .wb_o(s_rsp[RspBits*Intc +: RspBits]),
    .src_i(irq_src), .cpu_irq_o(cpu_irq)
  );

  soc_trng u_trng (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Trng +: ReqBits]), .wb_o(s_rsp[RspBits*Trng +: RspBits]),
    .seed_i(trng_seed_i)
  );

  soc_nic #(.RamBase(soc_memmap::RamBase), .RamSize(soc_memmap::RamSize)) u_nic (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Nic +: ReqBits]), .wb_o(s_rsp[RspBits*Nic +: RspBits]),
    .irq_o(irq_nic), .m_o(nic_req), .m_i(nic_rsp),
    .tx_valid_o(nic_tx_valid_o), .tx_data_o(nic_tx_data_o), .tx_last_o(nic_tx_last_o),
    .tx_ready_i(nic_tx_ready_i),
    .rx_valid_i(nic_rx_valid_i), .rx_data_i(nic_rx_data_i), .rx_last_i(nic_rx_last_i),
    .rx_ready_o(nic_rx_ready_o)
  );

  wb_pkg::wb_req_t eng_req;
  wb_pkg::wb_rsp_t eng_rsp;
  assign eng_req = s_req[ReqBits*Engine +: ReqBits];
  assign s_rsp[RspBits*Engine +: RspBits] = eng_rsp;

  if (ENGINE) begin : g_engine
    se_engine #(.RamBase(soc_memmap::RamBase), .RamSize(soc_memmap::RamSize)) u_engine (
      .clk_i, .rst_ni, .wb_cyc_i(eng_req.cyc), .wb_stb_i(eng_req.stb), .wb_we_i(eng_req.we),
      .wb_adr_i(eng_req.adr[15:0]), .wb_dat_i(eng_req.dat), .wb_sel_i(eng_req.sel),
      .wb_dat_o(eng_rsp.dat), .wb_ack_o(eng_rsp.ack), .wb_err_o(eng_rsp.err),
      .irq_o(irq_engine), .busy_o(engine_busy_o),
      .dma_cyc_o(dma_req.cyc), .dma_stb_o(dma_req.stb), .dma_we_o(dma_req.we), .dma_adr_o(dma_req.adr),
      .dma_dat_o(dma_req.dat), .dma_sel_o(dma_req.sel), .dma_dat_i(dma_rsp.dat), .dma_ack_i(dma_rsp.ack),
      .dma_err_i(dma_rsp.err)
    );
    // The engine's window holds its 16 address bits; the rest are the interconnect's.
    logic unused_adr;
    assign unused_adr = ^eng_req.adr[31:16];
  end else begin : g_no_engine
    assign eng_rsp = '0;
    assign dma_req = '0;
    logic unused_dma;
    assign unused_dma = ^dma_rsp;
    assign irq_engine = 1'b0;
    assign engine_busy_o = '0;
    logic unused_req;
    assign unused_req = ^eng_req;
  end

endmodule

`default_nettype wire
