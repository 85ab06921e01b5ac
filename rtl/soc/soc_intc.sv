// Node interrupt controller: level sources, one enable each; the core's irq[31:0] = {PENDING, 4'b0}.
// The core never takes an interrupt (all masked in picorv32); PENDING only ends `waitirq`.
`default_nettype none

module soc_intc (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  input  wire logic        wb_cyc_i,
  input  wire logic        wb_stb_i,
  input  wire logic        wb_we_i,
  input  wire logic [11:0] wb_adr_i,
  input  wire logic [31:0] wb_dat_i,
  input  wire logic [3:0]  wb_sel_i,
  output logic      [31:0] wb_dat_o,
  output logic             wb_ack_o,
  output logic             wb_err_o,
  input  wire logic [soc_memmap::NumIrqs-1:0] src_i,   // source levels, bit = intc bit (memmap.toml)
  output logic      [31:0] cpu_irq_o
);

  localparam int NumIrqs = soc_memmap::NumIrqs;

  logic        req, we, reg_err;
  logic [11:0] addr;
  logic [31:0] wdata, rdata;
  logic [3:0]  be;

  wb_regif #(.AddrBits(12)) u_wb (
    .clk_i, .rst_ni, .wb_cyc_i, .wb_stb_i, .wb_we_i, .wb_adr_i, .wb_dat_i, .wb_sel_i,
    .wb_dat_o, .wb_ack_o, .wb_err_o,
    .req_o(req), .we_o(we), .addr_o(addr), .wdata_o(wdata), .be_o(be), .rdata_i(rdata),
    .err_i(reg_err)
  );

  logic [NumIrqs-1:0] enable, pending;
  assign pending = src_i & enable;

  intc_regs u_regs (
    .clk_i, .rst_ni,
    .req_i(req), .we_i(we), .addr_i(addr), .wdata_i(wdata), .be_i(be),
    .rdata_o(rdata), .err_o(reg_err),
    .raw_engine_i(src_i[soc_memmap::IrqEngine]), .raw_nic_rx_i(src_i[soc_memmap::IrqNicRx]),
    .raw_timer_i(src_i[soc_memmap::IrqTimer]), .raw_uart_rx_i(src_i[soc_memmap::IrqUartRx]),
    .enable_engine_o(enable[soc_memmap::IrqEngine]), .enable_nic_rx_o(enable[soc_memmap::IrqNicRx]),
    .enable_timer_o(enable[soc_memmap::IrqTimer]), .enable_uart_rx_o(enable[soc_memmap::IrqUartRx]),
    .pending_engine_i(pending[soc_memmap::IrqEngine]), .pending_nic_rx_i(pending[soc_memmap::IrqNicRx]),
    .pending_timer_i(pending[soc_memmap::IrqTimer]), .pending_uart_rx_i(pending[soc_memmap::IrqUartRx])
  );

  // irq[3:0] are picorv32's own causes (timer, ebreak, bus error): keep them clear
  assign cpu_irq_o = {{(28 - NumIrqs){1'b0}}, pending, 4'b0};

endmodule

`default_nettype wire
