// SHA-256 / HMAC-SHA256 IP: the bus-free sha256_engine behind its generated bus side (sha_reg_top, from regs.toml).
`default_nettype none

module sha_wb (
  input  wire logic clk_i, rst_ni,
  input  wire wb_pkg::wb_req_t wb_i, output wb_pkg::wb_rsp_t wb_o,  // the bus side: sha_reg_top (regs.toml)
  output logic irq_o, busy_o,                                        // busy_o: STATUS.BUSY (BUSY_CYCLES)
  // The DMA's command stream (rtl/dma): while dma_own_i it issues the engine's commands (its blocks
  // already big-endian); then a CMD write is dropped (ERR.CMD_DROPPED). dma_hmac_i: its INIT starts
  // an HMAC whatever CTRL.HMAC says (the DMA's CBC records); plain_i: a plain SHA-256 whatever CTRL.HMAC
  // says (the protocol controller's, whose commands se_engine puts on this stream).
  input  wire logic dma_own_i, plain_i, dma_hmac_i, dma_cmd_valid_i, input wire logic [2:0] dma_cmd_i,
  input  wire logic [511:0] dma_din_i, input wire logic [6:0] dma_bytes_i,
  output logic cmd_ready_o, eng_busy_o, done_o, output logic [2:0] status_o, output logic [255:0] digest_o
);

  logic         cmd_ready, done;
  logic [2:0]   result;
  logic [511:0] din;
  logic [255:0] digest;

  // The registers, as sha_reg_top keeps them.
  sha_reg_pkg::sha_reg2hw_t reg2hw;
  sha_reg_pkg::sha_hw2reg_t hw2reg;
  sha_reg_top u_reg (.clk_i, .rst_ni, .wb_i, .wb_o, .reg2hw_o(reg2hw), .hw2reg_i(hw2reg), .irq_o, .busy_o);

  // CTRL.DIN_LE: each word's bytes reversed, so the engine always sees message byte 0 in din[511:504].
  // RESUME's chaining value and block count are numbers, never reversed.
  localparam logic [2:0] CmdResume = 3'd5;
  always_comb begin
    for (int w = 0; w < 16; w++)
      din[32*w +: 32] = (reg2hw.ctrl.din_le && reg2hw.cmd.op != CmdResume)
                      ? {reg2hw.din[32*w +: 8], reg2hw.din[32*w+8 +: 8], reg2hw.din[32*w+16 +: 8],
                         reg2hw.din[32*w+24 +: 8]}
                      : reg2hw.din[32*w +: 32];
  end

  assign hw2reg.status.cmd_ready = cmd_ready;
  assign hw2reg.status.result    = {1'b0, result};
  assign hw2reg.err.cmd_dropped  = reg2hw.cmd.wr && (!cmd_ready || dma_own_i);

  // The protocol controller's messages (plain_i) hash its secrets: HMAC's keyed pads, the PRF's blocks
  // of a master secret. From its first command until another master's INIT or RESUME has succeeded
  // (a refused one, an HMAC INIT without a key, leaves the digest as it was), DIGEST and the STATUS
  // bits that say what it holds read 0 (mine_q), as pk hides its DOUT.
  localparam logic [2:0] CmdInit = 3'd1;
  logic       mine_q, pend_q, cmd_take, digest_valid, state_valid;
  logic [2:0] cmd;
  assign cmd      = dma_own_i ? dma_cmd_i : reg2hw.cmd.op;
  assign cmd_take = (dma_own_i ? dma_cmd_valid_i : reg2hw.cmd.wr) && cmd_ready;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mine_q <= 1'b0; pend_q <= 1'b0;
    end else if (cmd_take && plain_i) begin
      mine_q <= 1'b1; pend_q <= 1'b0;
    end else if (cmd_take && (cmd == CmdInit || cmd == CmdResume)) begin
      pend_q <= 1'b1;
    end else if (pend_q && done) begin
      pend_q <= 1'b0;
      if (result == 3'd0) mine_q <= 1'b0;
    end
  end

  sha256_engine u_engine (
    .clk_i, .rst_ni,
    .hmac_i(!plain_i && (reg2hw.ctrl.hmac || (dma_own_i && dma_hmac_i))),
    .cmd_valid_i(dma_own_i ? dma_cmd_valid_i : reg2hw.cmd.wr), .cmd_i(dma_own_i ? dma_cmd_i : reg2hw.cmd.op),
    .din_i(dma_own_i ? dma_din_i : din), .din_bytes_i(dma_own_i ? dma_bytes_i : reg2hw.cmd.bytes),
    .cmd_ready_o(cmd_ready),
    .digest_o(digest), .digest_valid_o(digest_valid),
    .state_valid_o(state_valid), .key_valid_o(hw2reg.status.key_valid),
    .busy_o(eng_busy_o), .done_o(done), .status_o(result)
  );
  assign hw2reg.digest             = mine_q ? 256'h0 : digest;
  assign hw2reg.status.digest_valid = digest_valid && !mine_q;
  assign hw2reg.status.state_valid  = state_valid && !mine_q;
  assign hw2reg.status.busy      = eng_busy_o;
  assign hw2reg.intr_state.done  = done;
  assign {cmd_ready_o, done_o, status_o, digest_o} = {cmd_ready, done, result, digest};

endmodule

`default_nettype wire
