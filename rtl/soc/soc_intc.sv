// Node interrupt controller: level sources, one enable each; the core's irq[31:0] = {PENDING, 4'b0}.
// The core never takes an interrupt (all masked in picorv32); PENDING only ends `waitirq`.
`default_nettype none

module soc_intc (
  input  wire logic                           clk_i,
  input  wire logic                           rst_ni,
  input  wire wb_pkg::wb_req_t                wb_i,
  output wb_pkg::wb_rsp_t                     wb_o,
  input  wire logic [soc_memmap::NumIrqs-1:0] src_i,  // source levels, bit = intc bit (memmap.toml)
  output logic [31:0]                         cpu_irq_o
);

  localparam int NumIrqs = soc_memmap::NumIrqs;

  intc_reg_pkg::intc_reg2hw_t reg2hw;
  intc_reg_pkg::intc_hw2reg_t hw2reg;

  intc_reg_top u_reg (.clk_i, .rst_ni, .wb_i, .wb_o, .reg2hw_o(reg2hw), .hw2reg_i(hw2reg));

  logic [NumIrqs-1:0] enable, pending;
  assign pending = src_i & enable;

  // The registers' fields by name, the sources by their bits in memmap.toml.
  assign enable[soc_memmap::IrqEngine] = reg2hw.enable.engine;
  assign enable[soc_memmap::IrqNicRx]  = reg2hw.enable.nic_rx;
  assign enable[soc_memmap::IrqTimer]  = reg2hw.enable.timer;
  assign enable[soc_memmap::IrqUartRx] = reg2hw.enable.uart_rx;
  assign hw2reg.raw.engine      = src_i[soc_memmap::IrqEngine];
  assign hw2reg.raw.nic_rx      = src_i[soc_memmap::IrqNicRx];
  assign hw2reg.raw.timer       = src_i[soc_memmap::IrqTimer];
  assign hw2reg.raw.uart_rx     = src_i[soc_memmap::IrqUartRx];
  assign hw2reg.pending.engine  = pending[soc_memmap::IrqEngine];
  assign hw2reg.pending.nic_rx  = pending[soc_memmap::IrqNicRx];
  assign hw2reg.pending.timer   = pending[soc_memmap::IrqTimer];
  assign hw2reg.pending.uart_rx = pending[soc_memmap::IrqUartRx];

  // irq[3:0] are picorv32's own causes (timer, ebreak, bus error): keep them clear
  assign cpu_irq_o = {{(28 - NumIrqs){1'b0}}, pending, 4'b0};

endmodule

`default_nettype wire
