// Prime-field public-key IP: the bus-free pk_core behind its generated register block and a
// Wishbone B4 slave.
`default_nettype none

module pk_wb #(
  parameter int DW = 32  // Montgomery digit width; rtl/pk/isa.toml digit_width must be the same (README: why 32)
) (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  input  wire logic        wb_cyc_i,
  input  wire logic        wb_stb_i,
  input  wire logic        wb_we_i,
  input  wire logic [7:0]  wb_adr_i,
  input  wire logic [31:0] wb_dat_i,
  input  wire logic [3:0]  wb_sel_i,
  output logic      [31:0] wb_dat_o,
  output logic             wb_ack_o,
  output logic             wb_err_o,
  output logic             irq_o,
  output logic             busy_o   // the engine is busy (what BUSY_CYCLES counts)
);

  logic        req, we, reg_err;
  logic [7:0]  addr;
  logic [31:0] wdata, rdata;
  logic [3:0]  be;

  wb_regif #(.AddrBits(8)) u_wb (
    .clk_i, .rst_ni, .wb_cyc_i, .wb_stb_i, .wb_we_i, .wb_adr_i, .wb_dat_i, .wb_sel_i,
    .wb_dat_o, .wb_ack_o, .wb_err_o,
    .req_o(req), .we_o(we), .addr_o(addr), .wdata_o(wdata), .be_o(be), .rdata_i(rdata),
    .err_i(reg_err)
  );

  logic         cmd_wr, err_cmd_dropped, intr_done, intr_enable_done;
  logic [2:0]   cmd_op, flags;
  logic [4:0]   cmd_slot, cmd_prog;
  logic [31:0]  insn, busy_cycles_q;
  logic [255:0] din, dout;
  logic         cmd_ready, busy, done;
  logic [3:0]   result;
  logic [7:0]   nprogs;

  pk_regs u_regs (
    .clk_i, .rst_ni,
    .req_i(req), .we_i(we), .addr_i(addr), .wdata_i(wdata), .be_i(be),
    .rdata_o(rdata), .err_o(reg_err),
    .capabilities_digit_i(8'(DW)), .capabilities_slots_i(8'd32), .capabilities_progs_i(nprogs),
    .cmd_op_o(cmd_op), .cmd_slot_o(cmd_slot), .cmd_prog_o(cmd_prog), .cmd_wr_o(cmd_wr),
    .status_busy_i(busy), .status_cmd_ready_i(cmd_ready), .status_result_i(result),
    .status_field_i(flags[0]), .status_order_i(flags[1]), .status_curve_i(flags[2]),
    .err_cmd_dropped_o(err_cmd_dropped), .err_cmd_dropped_set_i(cmd_wr && !cmd_ready),
    .intr_state_done_o(intr_done), .intr_state_done_set_i(done),
    .intr_enable_done_o(intr_enable_done),
    .busy_cycles_i(busy_cycles_q),
    .insn_o(insn),
    .din_o(din),
    .dout_i(dout)
  );

  pk_core #(.DW(DW)) u_core (
    .clk_i, .rst_ni,
    .cmd_valid_i(cmd_wr && cmd_ready), .cmd_i(cmd_op), .slot_i(cmd_slot), .prog_i(cmd_prog),
    .insn_i(insn), .din_i(din),
    .cmd_ready_o(cmd_ready), .dout_o(dout), .busy_o(busy), .done_o(done), .status_o(result),
    .flags_o(flags), .nprogs_o(nprogs)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) busy_cycles_q <= 32'h0;
    else if (busy) busy_cycles_q <= busy_cycles_q + 32'd1;
  end

  assign irq_o = intr_done && intr_enable_done;
  assign busy_o = busy;

  logic unused_err;
  assign unused_err = err_cmd_dropped;

endmodule

`default_nettype wire
