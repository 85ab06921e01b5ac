// The engine's DMA IP: dma_core behind its generated bus side (dma_reg_top, from regs.toml), with
// its master port to node RAM and its streams to the AES and SHA IPs (se_engine wires them).
`default_nettype none

module dma_wb #(
  parameter logic [31:0] RamBase = 32'h1000_0000,  // the window the DMA may reach (the node's RAM)
  parameter logic [31:0] RamSize = 32'h0001_0000
) (
  input  wire logic clk_i, rst_ni,
  input  wire wb_pkg::wb_req_t wb_i, output wb_pkg::wb_rsp_t wb_o,  // the bus side: dma_reg_top (regs.toml)
  output logic irq_o, busy_o,                                        // busy_o: STATUS.BUSY (BUSY_CYCLES)
  output wb_pkg::wb_req_t m_o, input wire wb_pkg::wb_rsp_t m_i,      // the master port (node RAM)
  // the AES, SHA and pk command streams: dma_core's ports
  output logic aes_own_o, aes_cmd_valid_o, output logic [2:0] aes_cmd_o, output logic [127:0] aes_din_o,
  output logic [4:0] aes_bytes_o, input wire logic aes_cmd_ready_i, aes_out_valid_i,
  output logic aes_rec_o, output logic [2:0] aes_mode_o, output logic aes_dec_o, output logic [4:0] aes_tag_len_o,
  output logic [127:0] aes_iv_o, output logic [1:0] aes_slot_o, output logic [127:0] aes_tag_in_o,
  input wire logic [127:0] aes_dout_i, output logic aes_out_pop_o,
  input wire logic aes_no_out_i, aes_held_i, aes_rel_i, aes_busy_i, aes_done_i, input wire logic [3:0] aes_status_i,
  input wire logic [127:0] aes_tag_i,
  output logic sha_own_o, sha_hmac_o, sha_cmd_valid_o, output logic [2:0] sha_cmd_o, output logic [511:0] sha_din_o,
  output logic [6:0] sha_bytes_o, input wire logic sha_cmd_ready_i, sha_busy_i, sha_done_i,
  input wire logic [2:0] sha_status_i, input wire logic [255:0] sha_digest_i,
  output logic pk_own_o, pk_cmd_valid_o, output logic [2:0] pk_cmd_o, output logic [4:0] pk_slot_o,
  output logic [255:0] num_din_o, input wire logic pk_cmd_ready_i, pk_busy_i, pk_done_i,
  input wire logic [3:0] pk_status_i, input wire logic [255:0] pk_dout_i,
  output logic [2:0] gf_we_o, input wire logic [255:0] gf_rx_i, gf_ry_i, input wire logic gf_busy_i
);

  localparam logic [1:0] CmdStart = 2'd1, CmdAbort = 2'd2;

  // The registers, as dma_reg_top keeps them.
  dma_reg_pkg::dma_reg2hw_t reg2hw;
  dma_reg_pkg::dma_hw2reg_t hw2reg;
  dma_reg_top u_reg (.clk_i, .rst_ni, .wb_i, .wb_o, .reg2hw_o(reg2hw), .hw2reg_i(hw2reg), .irq_o, .busy_o);

  logic start, busy;
  logic [14:0] rec_len;
  assign hw2reg.rec_len = {17'd0, rec_len};
  assign start = reg2hw.cmd.wr && reg2hw.cmd.op == CmdStart;
  assign hw2reg.status.busy     = busy;
  assign hw2reg.err.cmd_dropped = start && busy;
  assign hw2reg.ram_base = RamBase;
  assign hw2reg.ram_size = RamSize;

  dma_core #(.RamBase(RamBase), .RamSize(RamSize)) u_core (
    .clk_i, .rst_ni,
    .start_i(start && !busy), .abort_i(reg2hw.cmd.wr && reg2hw.cmd.op == CmdAbort), .desc_i(reg2hw.desc),
    .busy_o(busy), .result_o(hw2reg.status.result), .ip_result_o(hw2reg.status.ip_result),
    .cur_desc_o(hw2reg.cur_desc), .rec_len_o(rec_len), .done_o(hw2reg.intr_state.done), .error_o(hw2reg.intr_state.error),
    .m_o, .m_i,
    .aes_own_o, .aes_cmd_valid_o, .aes_cmd_o, .aes_din_o, .aes_bytes_o, .aes_cmd_ready_i, .aes_out_valid_i,
    .aes_rec_o, .aes_mode_o, .aes_dec_o, .aes_tag_len_o, .aes_iv_o, .aes_slot_o, .aes_tag_in_o,
    .aes_dout_i, .aes_out_pop_o, .aes_no_out_i, .aes_held_i, .aes_rel_i, .aes_busy_i, .aes_done_i, .aes_status_i, .aes_tag_i,
    .sha_own_o, .sha_hmac_o, .sha_cmd_valid_o, .sha_cmd_o, .sha_din_o, .sha_bytes_o, .sha_cmd_ready_i, .sha_busy_i,
    .sha_done_i, .sha_status_i, .sha_digest_i,
    .pk_own_o, .pk_cmd_valid_o, .pk_cmd_o, .pk_slot_o, .num_din_o, .pk_cmd_ready_i, .pk_busy_i, .pk_done_i,
    .pk_status_i, .pk_dout_i, .gf_we_o, .gf_rx_i, .gf_ry_i, .gf_busy_i
  );

endmodule

`default_nettype wire
