// SHA-256 / HMAC-SHA256 IP: the bus-free sha256_engine behind its generated register block and a Wishbone B4 slave.
`default_nettype none

module sha_wb (
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

  logic         ctrl_hmac, ctrl_din_le, cmd_wr, err_cmd_dropped, intr_done, intr_enable_done;
  logic [2:0]   cmd_op;
  logic [6:0]   cmd_bytes;
  logic [511:0] din, din_cmd;
  logic [31:0]  busy_cycles_q;
  logic         cmd_ready, digest_valid, state_valid, key_valid, busy, done;
  logic [255:0] digest;
  logic [2:0]   result;

  sha_regs u_regs (
    .clk_i, .rst_ni,
    .req_i(req), .we_i(we), .addr_i(addr), .wdata_i(wdata), .be_i(be),
    .rdata_o(rdata), .err_o(reg_err),
    .capabilities_sha256_i(1'b1), .capabilities_hmac_i(1'b1), .capabilities_resume_i(1'b1),
    .capabilities_din_le_i(1'b1),
    .ctrl_hmac_o(ctrl_hmac), .ctrl_din_le_o(ctrl_din_le),
    .cmd_op_o(cmd_op), .cmd_bytes_o(cmd_bytes), .cmd_wr_o(cmd_wr),
    .status_busy_i(busy), .status_cmd_ready_i(cmd_ready), .status_digest_valid_i(digest_valid),
    .status_key_valid_i(key_valid), .status_result_i({1'b0, result}), .status_state_valid_i(state_valid),
    .err_cmd_dropped_o(err_cmd_dropped), .err_cmd_dropped_set_i(cmd_wr && !cmd_ready),
    .intr_state_done_o(intr_done), .intr_state_done_set_i(done),
    .intr_enable_done_o(intr_enable_done),
    .busy_cycles_i(busy_cycles_q),
    .din_o(din),
    .digest_i(digest)
  );

  // CTRL.DIN_LE: each word's bytes reversed, so the engine always sees message byte 0 in din[511:504].
  // RESUME's chaining value and block count are numbers, never reversed.
  localparam logic [2:0] CmdResume = 3'd5;
  always_comb begin
    for (int w = 0; w < 16; w++)
      din_cmd[32*w +: 32] = (ctrl_din_le && cmd_op != CmdResume)
                          ? {din[32*w +: 8], din[32*w+8 +: 8], din[32*w+16 +: 8], din[32*w+24 +: 8]}
                          : din[32*w +: 32];
  end

  sha256_engine u_engine (
    .clk_i, .rst_ni,
    .hmac_i(ctrl_hmac),
    .cmd_valid_i(cmd_wr), .cmd_i(cmd_op), .din_i(din_cmd), .din_bytes_i(cmd_bytes),
    .cmd_ready_o(cmd_ready),
    .digest_o(digest), .digest_valid_o(digest_valid), .state_valid_o(state_valid), .key_valid_o(key_valid),
    .busy_o(busy), .done_o(done), .status_o(result)
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
