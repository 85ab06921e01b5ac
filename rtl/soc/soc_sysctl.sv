// Node system control: 64-bit cycle counter, compare timer (a level interrupt), and the SIMULATION-ONLY
// SIM_MARKER / SIM_EXIT registers that the simulator watches on sim_*_o.
`default_nettype none

module soc_sysctl (
  input  wire logic            clk_i,
  input  wire logic            rst_ni,
  input  wire wb_pkg::wb_req_t wb_i,
  output wb_pkg::wb_rsp_t      wb_o,
  output logic                 timer_irq_o,         // level: TIMER_CTRL.EN && cycle >= TIMER_CMP
  output logic                 sim_marker_valid_o,  // one cycle per SIM_MARKER write
  output logic [31:0]          sim_marker_o,
  output logic                 sim_exit_valid_o,    // one cycle per SIM_EXIT write
  output logic [31:0]          sim_exit_code_o
);

  sysctl_reg_pkg::sysctl_reg2hw_t reg2hw;
  sysctl_reg_pkg::sysctl_hw2reg_t hw2reg;

  sysctl_reg_top u_reg (.clk_i, .rst_ni, .wb_i, .wb_o, .reg2hw_o(reg2hw), .hw2reg_i(hw2reg));

  logic [63:0] cycle_q;
  logic [31:0] cycle_hi_q;

  assign hw2reg.cycle_lo = cycle_q[31:0];
  assign hw2reg.cycle_hi = cycle_hi_q;

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
      if (reg2hw.cycle_lo.rd) cycle_hi_q <= cycle_q[63:32];
      timer_irq_o <= reg2hw.timer_ctrl.en && cycle_q >= {reg2hw.timer_cmp_hi, reg2hw.timer_cmp_lo};
      // registered, so the simulator sees them with the bus response
      sim_marker_valid_o <= reg2hw.sim_marker.wr;
      if (reg2hw.sim_marker.wr) sim_marker_o <= reg2hw.sim_marker.value;
      sim_exit_valid_o <= reg2hw.sim_exit.wr;
      if (reg2hw.sim_exit.wr) sim_exit_code_o <= reg2hw.sim_exit.value;
    end
  end

endmodule

`default_nettype wire
