// Binary-field ECC IP: the bus-free gf2m_ecsm core behind its generated register block and a
// Wishbone B4 slave. The wrapper refuses out-of-range inputs (bits above 232) before the core
// starts, so the core only ever sees field elements and 233-bit scalars.
`default_nettype none

module gf2m_wb (
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

  localparam logic [3:0] ResOk = 4'd0, ResBadPoint = 4'd1, ResInfinity = 4'd2, ResBadScalar = 4'd3,
                         ResBadCmd = 4'd4, ResCleared = 4'd5;

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

  logic         ctrl_koblitz, cmd_wr, err_cmd_dropped, intr_done, intr_enable_done;
  logic [1:0]   cmd_op;
  logic [255:0] k, px, py;
  logic [31:0]  busy_cycles_q;
  logic         busy, core_done, done_q;
  logic [1:0]   core_status;
  logic [232:0] rx, ry;
  logic [3:0]   result_q;

  gf2m_regs u_regs (
    .clk_i, .rst_ni,
    .req_i(req), .we_i(we), .addr_i(addr), .wdata_i(wdata), .be_i(be),
    .rdata_o(rdata), .err_o(reg_err),
    .capabilities_b233_i(1'b1), .capabilities_k233_i(1'b1),
    .ctrl_koblitz_o(ctrl_koblitz),
    .cmd_op_o(cmd_op), .cmd_wr_o(cmd_wr),
    .status_busy_i(busy), .status_cmd_ready_i(!busy), .status_result_i(result_q),
    .err_cmd_dropped_o(err_cmd_dropped), .err_cmd_dropped_set_i(cmd_wr && busy),
    .intr_state_done_o(intr_done), .intr_state_done_set_i(core_done || done_q),
    .intr_enable_done_o(intr_enable_done),
    .busy_cycles_i(busy_cycles_q),
    .k_o(k), .px_o(px), .py_o(py),
    .rx_i({23'h0, result_q == ResOk ? rx : 233'h0}),
    .ry_i({23'h0, result_q == ResOk ? ry : 233'h0})
  );

  // A START with every input in range starts the core; anything else finishes at once.
  logic accept, start;
  assign accept = cmd_wr && !busy;
  assign start  = accept && cmd_op == 2'd1 && k[255:233] == '0 && px[255:233] == '0 &&
                  py[255:233] == '0;

  gf2m_ecsm u_core (
    .clk_i, .rst_ni, .start_i(start), .koblitz_i(ctrl_koblitz), .k_i(k[232:0]),
    .px_i(px[232:0]), .py_i(py[232:0]), .busy_o(busy), .done_o(core_done),
    .status_o(core_status), .rx_o(rx), .ry_o(ry)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      result_q <= ResOk;
      done_q <= 1'b0;
    end else begin
      done_q <= accept && !start;
      if (accept && !start)
        result_q <= cmd_op == 2'd2 ? ResCleared : cmd_op != 2'd1 ? ResBadCmd :
                    k[255:233] != '0 ? ResBadScalar : ResBadPoint;
      else if (core_done)
        result_q <= core_status == 2'd0 ? ResOk : core_status == 2'd1 ? ResBadPoint : ResInfinity;
    end
  end

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
