// Prime-field public-key IP: the bus-free pk_core behind its generated bus side (pk_reg_top, from regs.toml).
`default_nettype none

module pk_wb #(
  parameter int DW = 32  // Montgomery digit width; rtl/pk/isa.toml digit_width must be the same (README: why 32)
) (
  input  wire logic clk_i, rst_ni,
  input  wire wb_pkg::wb_req_t wb_i, output wb_pkg::wb_rsp_t wb_o,  // the bus side: pk_reg_top (regs.toml)
  output logic irq_o, busy_o,                                        // busy_o: STATUS.BUSY (BUSY_CYCLES)
  // The engine's command stream: while dma_own_i the DMA issues WRITE and READ (rtl/dma), or the
  // protocol controller WRITE and RUN with dma_prog_i (rtl/ctrl; se_engine puts both on this port);
  // then a CMD write is dropped (ERR.CMD_DROPPED), and DOUT reads 0: what the engine reads out of pk
  // (a premaster the controller computes) is not the bus's to see.
  input  wire logic dma_own_i, dma_cmd_valid_i, input wire logic [2:0] dma_cmd_i,
  input  wire logic [4:0] dma_slot_i, dma_prog_i, input wire logic [255:0] dma_din_i,
  output logic cmd_ready_o, eng_busy_o, done_o, output logic [3:0] status_o, output logic [255:0] dout_o
);

  logic [2:0] flags;       // STATUS.FIELD, ORDER, CURVE
  logic       cmd_ready;
  logic [255:0] dout;      // the last READ's slot

  // The registers, as pk_reg_top keeps them.
  pk_reg_pkg::pk_reg2hw_t reg2hw;
  pk_reg_pkg::pk_hw2reg_t hw2reg;
  pk_reg_top u_reg (.clk_i, .rst_ni, .wb_i, .wb_o, .reg2hw_o(reg2hw), .hw2reg_i(hw2reg), .irq_o, .busy_o);

  assign hw2reg.capabilities.digit = 8'(DW);
  assign hw2reg.status.cmd_ready   = cmd_ready;
  assign hw2reg.status.field       = flags[0];
  assign hw2reg.status.order       = flags[1];
  assign hw2reg.status.curve       = flags[2];
  assign hw2reg.err.cmd_dropped    = reg2hw.cmd.wr && (!cmd_ready || dma_own_i);

  pk_core #(.DW(DW)) u_core (
    .clk_i, .rst_ni,
    .cmd_valid_i(dma_own_i ? dma_cmd_valid_i : reg2hw.cmd.wr && cmd_ready), .cmd_i(dma_own_i ? dma_cmd_i : reg2hw.cmd.op),
    .slot_i(dma_own_i ? dma_slot_i : reg2hw.cmd.slot),
    .prog_i(dma_own_i ? dma_prog_i : reg2hw.cmd.prog), .insn_i(reg2hw.insn), .din_i(dma_own_i ? dma_din_i : reg2hw.din),
    .cmd_ready_o(cmd_ready), .dout_o(dout), .busy_o(hw2reg.status.busy),
    .done_o(hw2reg.intr_state.done), .status_o(hw2reg.status.result),
    .flags_o(flags), .nprogs_o(hw2reg.capabilities.progs)
  );
  assign cmd_ready_o = cmd_ready;
  assign hw2reg.dout = dma_own_i ? '0 : dout;
  assign {eng_busy_o, done_o, status_o, dout_o} = {hw2reg.status.busy, hw2reg.intr_state.done, hw2reg.status.result, dout};

endmodule

`default_nettype wire
