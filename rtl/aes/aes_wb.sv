// AES engine IP: the bus-free aes_engine behind its generated register block and a Wishbone B4 slave.
`default_nettype none

module aes_wb #(
  parameter int PtbufBlocks = 128  // AEAD-decryption plaintext buffer, 16-byte blocks (SRAM); < 4096,
                                   // the width of CAPABILITIES.PTBUF_BLOCKS
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

  // Register fields.
  logic [2:0]   ctrl_mode;
  logic         ctrl_dec;
  logic [1:0]   ctrl_keylen;
  logic [4:0]   ctrl_tag_len;
  logic [2:0]   cmd_op;
  logic [4:0]   cmd_bytes;
  logic         cmd_wr;
  logic         err_cmd_dropped, err_early_read, intr_done, intr_enable_done;
  logic [255:0] key;
  logic [127:0] iv, tag_in, din;
  logic [3:0]   dout_rd;
  logic [31:0]  busy_cycles_q;

  // Engine.
  logic         cmd_ready, out_valid, busy, done;
  logic [127:0] dout, tag_out;
  logic [3:0]   result;

  aes_regs u_regs (
    .clk_i, .rst_ni,
    .req_i(req), .we_i(we), .addr_i(addr), .wdata_i(wdata), .be_i(be),
    .rdata_o(rdata), .err_o(reg_err),
    .capabilities_keylens_i(3'b111),
    .capabilities_modes_i(7'h7f),
    .capabilities_dec_i(1'b1),
    .capabilities_ptbuf_blocks_i(PtbufBlocks[11:0]),
    .ctrl_mode_o(ctrl_mode), .ctrl_dec_o(ctrl_dec), .ctrl_keylen_o(ctrl_keylen),
    .ctrl_tag_len_o(ctrl_tag_len),
    .cmd_op_o(cmd_op), .cmd_bytes_o(cmd_bytes), .cmd_wr_o(cmd_wr),
    .status_busy_i(busy), .status_cmd_ready_i(cmd_ready), .status_out_valid_i(out_valid),
    .status_result_i(result),
    .err_cmd_dropped_o(err_cmd_dropped), .err_cmd_dropped_set_i(cmd_wr && !cmd_ready),
    .err_early_read_o(err_early_read), .err_early_read_set_i(|dout_rd && !out_valid),
    .intr_state_done_o(intr_done), .intr_state_done_set_i(done),
    .intr_enable_done_o(intr_enable_done),
    .busy_cycles_i(busy_cycles_q),
    .key_o(key), .iv_o(iv), .tag_in_o(tag_in), .din_o(din),
    .dout_i(out_valid ? dout : 128'h0), .dout_rd_o(dout_rd),
    .tag_out_i(tag_out)
  );

  aes_engine #(.PTBUF_BLOCKS(PtbufBlocks)) u_engine (
    .clk_i, .rst_ni,
    .key_i(key), .keylen_i(ctrl_keylen), .mode_i(ctrl_mode), .dec_i(ctrl_dec), .iv_i(iv),
    .tag_len_i(ctrl_tag_len), .tag_i(tag_in),
    .cmd_valid_i(cmd_wr), .cmd_i(cmd_op), .din_i(din), .din_bytes_i(cmd_bytes),
    .cmd_ready_o(cmd_ready),
    .out_valid_o(out_valid), .dout_o(dout), .out_pop_i(dout_rd[0] && out_valid),  // DOUT3 read
    .tag_o(tag_out), .busy_o(busy), .done_o(done), .status_o(result)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) busy_cycles_q <= 32'h0;
    else if (busy) busy_cycles_q <= busy_cycles_q + 32'd1;
  end

  assign irq_o = intr_done && intr_enable_done;
  assign busy_o = busy;

  // ERR bits are for software to read; nothing in hardware depends on them.
  logic unused_err;
  assign unused_err = err_cmd_dropped ^ err_early_read;

endmodule

`default_nettype wire
