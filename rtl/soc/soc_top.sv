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
  output logic      [3:0]  engine_busy_o         // {GF2M, PK, SHA, AES} busy
);

  localparam int NumRegions = soc_memmap::NumRegions;
  localparam int Rom = soc_memmap::RomIdx, Ram = soc_memmap::RamIdx, Sysctl = soc_memmap::SysctlIdx,
                 Uart = soc_memmap::UartIdx, Intc = soc_memmap::IntcIdx, Trng = soc_memmap::TrngIdx,
                 Nic = soc_memmap::NicIdx, Engine = soc_memmap::EngineIdx;

  // ---------------------------------------------------------------- the core
  logic        mem_valid, mem_instr, mem_ready;
  logic [31:0] mem_addr, mem_wdata, mem_rdata;
  logic [3:0]  mem_wstrb;
  logic [31:0] cpu_irq;
  // picorv32 outputs the node does not use: look-ahead bus, PCPI, eoi, trace
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
  assign unused_cpu = ^{la_read, la_write, la_addr, la_wdata, la_wstrb, pcpi_valid, pcpi_insn,
                        pcpi_rs1, pcpi_rs2, eoi, trace_valid, trace_data};

  // ---------------------------------------------------------------- bus
  logic        wb_cyc, wb_stb, wb_we, wb_ack, wb_err;
  logic [31:0] wb_adr, wb_wdat, wb_rdat;
  logic [3:0]  wb_sel;

  soc_cpu_bridge u_bridge (
    .clk_i, .rst_ni,
    .mem_valid_i(mem_valid), .mem_instr_i(mem_instr), .mem_ready_o(mem_ready),
    .mem_addr_i(mem_addr), .mem_wdata_i(mem_wdata), .mem_wstrb_i(mem_wstrb),
    .mem_rdata_o(mem_rdata),
    .wb_cyc_o(wb_cyc), .wb_stb_o(wb_stb), .wb_we_o(wb_we), .wb_adr_o(wb_adr), .wb_dat_o(wb_wdat),
    .wb_sel_o(wb_sel), .wb_dat_i(wb_rdat), .wb_ack_i(wb_ack), .wb_err_i(wb_err),
    .pc_o(cpu_pc_o), .sleep_o(cpu_sleep_o),
    .bus_err_o, .bus_err_addr_o, .bus_err_we_o
  );

  logic [NumRegions-1:0]    s_cyc, s_ack, s_err;
  logic [NumRegions*32-1:0] s_dat;

  soc_bus u_bus (
    .clk_i, .rst_ni,
    .m_cyc_i(wb_cyc), .m_stb_i(wb_stb), .m_adr_i(wb_adr),
    .m_dat_o(wb_rdat), .m_ack_o(wb_ack), .m_err_o(wb_err),
    .s_cyc_o(s_cyc), .s_dat_i(s_dat), .s_ack_i(s_ack), .s_err_i(s_err)
  );

  // ---------------------------------------------------------------- slaves
  logic irq_engine, irq_nic, irq_timer, irq_uart;

  soc_rom #(.AddrBits(17)) u_rom (
    .clk_i, .rst_ni, .wb_cyc_i(s_cyc[Rom]), .wb_stb_i(wb_stb), .wb_we_i(wb_we),
    .wb_adr_i(wb_adr[16:0]),
    .wb_dat_o(s_dat[32*Rom +: 32]), .wb_ack_o(s_ack[Rom]), .wb_err_o(s_err[Rom])
  );

  soc_ram #(.AddrBits(16)) u_ram (
    .clk_i, .rst_ni, .wb_cyc_i(s_cyc[Ram]), .wb_stb_i(wb_stb), .wb_we_i(wb_we),
    .wb_adr_i(wb_adr[15:0]), .wb_dat_i(wb_wdat), .wb_sel_i(wb_sel),
    .wb_dat_o(s_dat[32*Ram +: 32]), .wb_ack_o(s_ack[Ram]), .wb_err_o(s_err[Ram])
  );

  soc_sysctl u_sysctl (
    .clk_i, .rst_ni, .wb_cyc_i(s_cyc[Sysctl]), .wb_stb_i(wb_stb), .wb_we_i(wb_we),
    .wb_adr_i(wb_adr[11:0]), .wb_dat_i(wb_wdat), .wb_sel_i(wb_sel),
    .wb_dat_o(s_dat[32*Sysctl +: 32]), .wb_ack_o(s_ack[Sysctl]), .wb_err_o(s_err[Sysctl]),
    .timer_irq_o(irq_timer),
    .sim_marker_valid_o, .sim_marker_o, .sim_exit_valid_o, .sim_exit_code_o
  );

  soc_uart u_uart (
    .clk_i, .rst_ni, .wb_cyc_i(s_cyc[Uart]), .wb_stb_i(wb_stb), .wb_we_i(wb_we),
    .wb_adr_i(wb_adr[11:0]), .wb_dat_i(wb_wdat), .wb_sel_i(wb_sel),
    .wb_dat_o(s_dat[32*Uart +: 32]), .wb_ack_o(s_ack[Uart]), .wb_err_o(s_err[Uart]),
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
    .clk_i, .rst_ni, .wb_cyc_i(s_cyc[Intc]), .wb_stb_i(wb_stb), .wb_we_i(wb_we),
    .wb_adr_i(wb_adr[11:0]), .wb_dat_i(wb_wdat), .wb_sel_i(wb_sel),
    .wb_dat_o(s_dat[32*Intc +: 32]), .wb_ack_o(s_ack[Intc]), .wb_err_o(s_err[Intc]),
    .src_i(irq_src), .cpu_irq_o(cpu_irq)
  );

  soc_trng u_trng (
    .clk_i, .rst_ni, .wb_cyc_i(s_cyc[Trng]), .wb_stb_i(wb_stb), .wb_we_i(wb_we),
    .wb_adr_i(wb_adr[11:0]), .wb_dat_i(wb_wdat), .wb_sel_i(wb_sel),
    .wb_dat_o(s_dat[32*Trng +: 32]), .wb_ack_o(s_ack[Trng]), .wb_err_o(s_err[Trng]),
    .seed_i(trng_seed_i)
  );

  soc_nic u_nic (
    .clk_i, .rst_ni, .wb_cyc_i(s_cyc[Nic]), .wb_stb_i(wb_stb), .wb_we_i(wb_we),
    .wb_adr_i(wb_adr[11:0]), .wb_dat_i(wb_wdat), .wb_sel_i(wb_sel),
    .wb_dat_o(s_dat[32*Nic +: 32]), .wb_ack_o(s_ack[Nic]), .wb_err_o(s_err[Nic]),
    .irq_o(irq_nic),
    .tx_valid_o(nic_tx_valid_o), .tx_data_o(nic_tx_data_o), .tx_last_o(nic_tx_last_o),
    .tx_ready_i(nic_tx_ready_i),
    .rx_valid_i(nic_rx_valid_i), .rx_data_i(nic_rx_data_i), .rx_last_i(nic_rx_last_i),
    .rx_ready_o(nic_rx_ready_o)
  );

  if (ENGINE) begin : g_engine
    se_engine u_engine (
      .clk_i, .rst_ni, .wb_cyc_i(s_cyc[Engine]), .wb_stb_i(wb_stb), .wb_we_i(wb_we),
      .wb_adr_i(wb_adr[15:0]), .wb_dat_i(wb_wdat), .wb_sel_i(wb_sel),
      .wb_dat_o(s_dat[32*Engine +: 32]), .wb_ack_o(s_ack[Engine]), .wb_err_o(s_err[Engine]),
      .irq_o(irq_engine), .busy_o(engine_busy_o)
    );
  end else begin : g_no_engine
    // One error cycle per access, as any slave refusing one.
    logic err_q;
    always_ff @(posedge clk_i or negedge rst_ni)
      if (!rst_ni) err_q <= 1'b0;
      else         err_q <= s_cyc[Engine] && wb_stb && !err_q;
    assign s_dat[32*Engine +: 32] = '0;
    assign s_ack[Engine] = 1'b0;
    assign s_err[Engine] = err_q;
    assign irq_engine = 1'b0;
    assign engine_busy_o = '0;
  end

endmodule

`default_nettype wire
