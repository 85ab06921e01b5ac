// Binary-field ECC IP: the bus-free gf2m_ecsm core behind its generated bus side (gf2m_reg_top, from
// regs.toml). The IP refuses out-of-range inputs (bits above 232) before the core starts, so the
// core only ever sees field elements and 233-bit scalars.
`default_nettype none

module gf2m_wb (
  input  wire logic clk_i, rst_ni,
  input  wire wb_pkg::wb_req_t wb_i, output wb_pkg::wb_rsp_t wb_o,  // the bus side: gf2m_reg_top (regs.toml)
  output logic irq_o, busy_o,                                        // busy_o: STATUS.BUSY (BUSY_CYCLES)
  // The DMA's operand writes (rtl/dma, op GF2M): dma_we_i[0..2] stores dma_din_i into K, PX, PY
  // (the registers' hw_write); it reads RX, RY (rx_o, ry_o, as the registers show them).
  input  wire logic [2:0] dma_we_i, input wire logic [255:0] dma_din_i,
  output logic [255:0] rx_o, ry_o, output logic eng_busy_o
);

  localparam logic [3:0] ResOk = 4'd0, ResBadPoint = 4'd1, ResInfinity = 4'd2, ResBadScalar = 4'd3,
                         ResBadCmd = 4'd4, ResCleared = 4'd5;

  // The registers, as gf2m_reg_top keeps them.
  gf2m_reg_pkg::gf2m_reg2hw_t reg2hw;
  gf2m_reg_pkg::gf2m_hw2reg_t hw2reg;
  gf2m_reg_top u_reg (.clk_i, .rst_ni, .wb_i, .wb_o, .reg2hw_o(reg2hw), .hw2reg_i(hw2reg), .irq_o, .busy_o);

  logic         busy, core_done, done_q;
  logic [1:0]   core_status;
  logic [232:0] rx, ry;
  logic [3:0]   result_q;

  // A START with every input in range starts the core; anything else finishes at once.
  logic accept, start;
  assign accept = reg2hw.cmd.wr && !busy;
  assign start  = accept && reg2hw.cmd.op == 2'd1 && reg2hw.k[255:233] == '0 && reg2hw.px[255:233] == '0 &&
                  reg2hw.py[255:233] == '0;

  gf2m_ecsm u_core (
    .clk_i, .rst_ni, .start_i(start), .koblitz_i(reg2hw.ctrl.koblitz), .k_i(reg2hw.k[232:0]),
    .px_i(reg2hw.px[232:0]), .py_i(reg2hw.py[232:0]), .busy_o(busy), .done_o(core_done),
    .status_o(core_status), .rx_o(rx), .ry_o(ry)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      result_q <= ResOk;
      done_q <= 1'b0;
    end else begin
      done_q <= accept && !start;
      if (accept && !start)
        result_q <= reg2hw.cmd.op == 2'd2 ? ResCleared : reg2hw.cmd.op != 2'd1 ? ResBadCmd :
                    reg2hw.k[255:233] != '0 ? ResBadScalar : ResBadPoint;
      else if (core_done)
        result_q <= core_status == 2'd0 ? ResOk : core_status == 2'd1 ? ResBadPoint : ResInfinity;
    end
  end

  assign hw2reg.status.busy      = busy;
  assign hw2reg.status.cmd_ready = !busy;
  assign hw2reg.status.result    = result_q;
  assign hw2reg.err.cmd_dropped  = reg2hw.cmd.wr && busy;
  assign hw2reg.intr_state.done  = core_done || done_q;
  assign hw2reg.rx               = {23'h0, result_q == ResOk ? rx : 233'h0};
  assign hw2reg.ry               = {23'h0, result_q == ResOk ? ry : 233'h0};
  assign hw2reg.k.de  = dma_we_i[0];
  assign hw2reg.px.de = dma_we_i[1];
  assign hw2reg.py.de = dma_we_i[2];
  assign hw2reg.k.d   = dma_din_i;
  assign hw2reg.px.d  = dma_din_i;
  assign hw2reg.py.d  = dma_din_i;
  assign {rx_o, ry_o, eng_busy_o} = {hw2reg.rx, hw2reg.ry, busy};

endmodule

`default_nettype wire
