// Node system control: 64-bit cycle counter, compare timer (a level interrupt), and the SIMULATION-ONLY
// SIM_MARKER / SIM_EXIT registers that the simulator watches on sim_*_o.
`default_nettype none

module soc_sysctl (
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
  output logic             timer_irq_o,         // level: TIMER_CTRL.EN && cycle >= TIMER_CMP
  output logic             sim_marker_valid_o,  // one cycle per SIM_MARKER write
  output logic      [31:0] sim_marker_o,
  output logic             sim_exit_valid_o,    // one cycle per SIM_EXIT write
  output logic      [31:0] sim_exit_code_o
);

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

  logic [63:0] cycle_q;
  logic [31:0] cycle_hi_q, cmp_lo, cmp_hi, marker, exit_code;
  logic        cycle_lo_rd, timer_en, marker_wr, exit_wr;

  sysctl_regs u_regs (
    .clk_i, .rst_ni,
    .req_i(req), .we_i(we), .addr_i(addr), .wdata_i(wdata), .be_i(be),
    .rdata_o(rdata), .err_o(reg_err),
    .cycle_lo_i(cycle_q[31:0]), .cycle_lo_rd_o(cycle_lo_rd),
    .cycle_hi_i(cycle_hi_q),
    .timer_cmp_lo_o(cmp_lo), .timer_cmp_hi_o(cmp_hi), .timer_ctrl_en_o(timer_en),
    .sim_marker_o(marker), .sim_marker_wr_o(marker_wr),
    .sim_exit_o(exit_code), .sim_exit_wr_o(exit_wr)
  );

  // CYCLE_LO returns cycle_q[31:0] of the request cycle, and the same edge keeps the high word
  // of that count: the two reads form one 64-bit value even across a carry.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cycle_q            <= 64'h0;
      cycle_hi_q         <= 32'h0;
      timer_irq_o        <= 1'b0;
      sim_marker_valid_o <= 1'b0;
      sim_marker_o       <= 32'h0;
      sim_exit_valid_o   <= 1'b0;
      sim_exit_code_o    <= 32'h0;
    end else begin
      cycle_q <= cycle_q + 64'd1;
      if (cycle_lo_rd) cycle_hi_q <= cycle_q[63:32];
      timer_irq_o <= timer_en && cycle_q >= {cmp_hi, cmp_lo};
      // registered, so the simulator sees them with the bus response
      sim_marker_valid_o <= marker_wr;
      if (marker_wr) sim_marker_o <= marker;
      sim_exit_valid_o <= exit_wr;
      if (exit_wr) sim_exit_code_o <= exit_code;
    end
  end

endmodule

`default_nettype wire
