// The security engine: its IPs behind one Wishbone B4 slave, one window each, one interrupt line.
// The windows (byte offsets from the engine base) are rtl/engine/memmap.toml, through tools/memmap.py
// (package engine_memmap; docs/engine_map.md): AES, SHA, PK (prime-field ECC), GF2M (B-233/K-233),
// DMA, CTRL (the protocol controller, rtl/ctrl). wb_interconnect answers an access outside the
// windows with a bus error.
// The DMA is the engine's Wishbone master (dma_*): it reaches node RAM, [RamBase, RamBase + RamSize)
// and nothing else, and streams what it reads through the AES and SHA engines (rtl/dma).
`default_nettype none

module se_engine #(
  parameter int          PtbufBlocks = 128,
  parameter logic [31:0] RamBase     = 32'h1000_0000,  // the DMA's window: the node's RAM
  parameter logic [31:0] RamSize     = 32'h0001_0000
) (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  input  wire logic        wb_cyc_i,
  input  wire logic        wb_stb_i,
  input  wire logic        wb_we_i,
  input  wire logic [15:0] wb_adr_i,
  input  wire logic [31:0] wb_dat_i,
  input  wire logic [3:0]  wb_sel_i,
  output logic      [31:0] wb_dat_o,
  output logic             wb_ack_o,
  output logic             wb_err_o,
  output logic             irq_o,
  output logic      [5:0]  busy_o,   // {CTRL, DMA, GF2M, PK, SHA, AES} busy, for observation
  // the DMA's master port (Wishbone B4 classic)
  output logic             dma_cyc_o,
  output logic             dma_stb_o,
  output logic             dma_we_o,
  output logic      [31:0] dma_adr_o,
  output logic      [31:0] dma_dat_o,
  output logic      [3:0]  dma_sel_o,
  input  wire logic [31:0] dma_dat_i,
  input  wire logic        dma_ack_i,
  input  wire logic        dma_err_i
);

  localparam int ReqBits = wb_pkg::ReqBits, RspBits = wb_pkg::RspBits;
  localparam int Aes = engine_memmap::AesIdx, Sha = engine_memmap::ShaIdx, Pk = engine_memmap::PkIdx,
                 Gf2m = engine_memmap::Gf2mIdx, Dma = engine_memmap::DmaIdx,
                 Ctrl = engine_memmap::CtrlIdx;

  wb_pkg::wb_req_t req;
  wb_pkg::wb_rsp_t rsp;
  assign req.cyc = wb_cyc_i;
  assign req.stb = wb_stb_i;
  assign req.we  = wb_we_i;
  assign req.adr = {16'h0, wb_adr_i};
  assign req.dat = wb_dat_i;
  assign req.sel = wb_sel_i;
  assign wb_dat_o = rsp.dat;
  assign wb_ack_o = rsp.ack;
  assign wb_err_o = rsp.err;

  logic [engine_memmap::NumRegions*ReqBits-1:0] s_req;
  logic [engine_memmap::NumRegions*RspBits-1:0] s_rsp;

  wb_interconnect #(
    .NumSlaves(engine_memmap::NumRegions), .Bases(engine_memmap::RegionBases), .Sizes(engine_memmap::RegionSizes)
  ) u_bus (.clk_i, .rst_ni, .m_i(req), .m_o(rsp), .s_o(s_req), .s_i(s_rsp));

  logic [5:0] irq;

  // The DMA's streams into AES and SHA.
  logic         aes_own, aes_cmd_valid, aes_out_pop, aes_cmd_ready, aes_out_valid, aes_no_out, aes_held, aes_rel,
                aes_busy, aes_done;
  logic [2:0]   aes_cmd;
  logic [4:0]   aes_bytes;
  logic [3:0]   aes_status;
  logic [127:0] aes_din, aes_dout, aes_tag;
  logic         aes_rec, aes_dec;
  logic [2:0]   aes_mode;
  logic [4:0]   aes_tag_len;
  logic [1:0]   aes_slot;
  logic [127:0] aes_iv, aes_tag_in;
  logic         ctrl_key_req, ctrl_key_kind, ctrl_key_ready;   // the controller's AESK into the AES key slots
  logic [1:0]   ctrl_key_slot;
  logic [7:0]   ctrl_key_byte;
  logic         sha_own, sha_hmac, sha_cmd_valid, sha_cmd_ready, sha_busy, sha_done;
  logic [2:0]   sha_cmd, sha_status;
  logic [6:0]   sha_bytes;
  logic [511:0] sha_din;
  logic [255:0] sha_digest;

  aes_wb #(.PtbufBlocks(PtbufBlocks)) u_aes (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Aes +: ReqBits]), .wb_o(s_rsp[RspBits*Aes +: RspBits]),
    .irq_o(irq[0]), .busy_o(busy_o[0]),
    .dma_own_i(aes_own), .dma_cmd_valid_i(aes_cmd_valid), .dma_cmd_i(aes_cmd), .dma_din_i(aes_din),
    .dma_bytes_i(aes_bytes), .dma_out_pop_i(aes_out_pop), .dma_rec_i(aes_rec), .dma_mode_i(aes_mode),
    .dma_dec_i(aes_dec), .dma_tag_len_i(aes_tag_len), .dma_iv_i(aes_iv), .dma_slot_i(aes_slot),
    .dma_tag_in_i(aes_tag_in), .cmd_ready_o(aes_cmd_ready),
    .out_valid_o(aes_out_valid), .dout_o(aes_dout), .no_out_o(aes_no_out), .held_o(aes_held), .rel_o(aes_rel),
    .eng_busy_o(aes_busy), .done_o(aes_done), .status_o(aes_status), .tag_o(aes_tag),
    .ctrl_key_req_i(ctrl_key_req), .ctrl_key_kind_i(ctrl_key_kind), .ctrl_key_slot_i(ctrl_key_slot),
    .ctrl_key_byte_i(ctrl_key_byte), .ctrl_key_ready_o(ctrl_key_ready)
  );

  // The SHA IP's command port, shared by the DMA and the protocol controller: the controller's while
  // it holds a message (from its INIT on) or asks when the DMA does not; the other one waits.
  logic         ctrl_sha_own, ctrl_sha_held, ctrl_sha_valid, ctrl_sha_sel, sha_ip_ready;
  logic [2:0]   ctrl_sha_cmd;
  logic [511:0] ctrl_sha_din;
  logic [6:0]   ctrl_sha_bytes;
  assign ctrl_sha_sel = ctrl_sha_held || (ctrl_sha_own && !sha_own);

  sha_wb u_sha (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Sha +: ReqBits]), .wb_o(s_rsp[RspBits*Sha +: RspBits]),
    .irq_o(irq[1]), .busy_o(busy_o[1]),
    .dma_own_i(sha_own || ctrl_sha_own), .plain_i(ctrl_sha_sel), .dma_hmac_i(sha_hmac),
    .dma_cmd_valid_i(ctrl_sha_sel ? ctrl_sha_valid : sha_cmd_valid), .dma_cmd_i(ctrl_sha_sel ? ctrl_sha_cmd : sha_cmd),
    .dma_din_i(ctrl_sha_sel ? ctrl_sha_din : sha_din), .dma_bytes_i(ctrl_sha_sel ? ctrl_sha_bytes : sha_bytes),
    .cmd_ready_o(sha_ip_ready), .eng_busy_o(sha_busy), .done_o(sha_done), .status_o(sha_status), .digest_o(sha_digest)
  );
  assign sha_cmd_ready = sha_ip_ready && !ctrl_sha_sel;

  logic         pk_own, pk_cmd_valid, pk_cmd_ready, pk_busy, pk_done;
  logic [2:0]   pk_cmd;
  logic [4:0]   pk_slot;
  logic [3:0]   pk_status;
  logic [255:0] num_din, pk_dout;  // num_din: the DMA's operand for pk and gf2m
  // The pk IP's command port, shared by the DMA (operands) and the protocol controller (operands and
  // programs) as the SHA IP's is.
  logic         ctrl_pk_own, ctrl_pk_held, ctrl_pk_valid, ctrl_pk_sel, pk_ip_ready;
  logic [2:0]   ctrl_pk_cmd;
  logic [4:0]   ctrl_pk_slot, ctrl_pk_prog;
  logic [255:0] ctrl_pk_din;
  assign ctrl_pk_sel = ctrl_pk_held || (ctrl_pk_own && !pk_own);
  pk_wb u_pk (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Pk +: ReqBits]), .wb_o(s_rsp[RspBits*Pk +: RspBits]),
    .irq_o(irq[2]), .busy_o(busy_o[2]),
    .dma_own_i(pk_own || ctrl_pk_own), .dma_cmd_valid_i(ctrl_pk_sel ? ctrl_pk_valid : pk_cmd_valid),
    .dma_cmd_i(ctrl_pk_sel ? ctrl_pk_cmd : pk_cmd), .dma_slot_i(ctrl_pk_sel ? ctrl_pk_slot : pk_slot),
    .dma_prog_i(ctrl_pk_prog), .dma_din_i(ctrl_pk_sel ? ctrl_pk_din : num_din),
    .cmd_ready_o(pk_ip_ready), .eng_busy_o(pk_busy), .done_o(pk_done), .status_o(pk_status), .dout_o(pk_dout)
  );
  assign pk_cmd_ready = pk_ip_ready && !ctrl_pk_sel;

  logic [2:0]   gf_we;
  logic [255:0] gf_rx, gf_ry;
  logic         gf_busy;
  gf2m_wb u_gf2m (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Gf2m +: ReqBits]), .wb_o(s_rsp[RspBits*Gf2m +: RspBits]),
    .irq_o(irq[3]), .busy_o(busy_o[3]),
    .dma_we_i(gf_we), .dma_din_i(num_din), .rx_o(gf_rx), .ry_o(gf_ry), .eng_busy_o(gf_busy)
  );

  wb_pkg::wb_req_t dma_req;
  wb_pkg::wb_rsp_t dma_rsp;
  logic            dma_busy;
  assign {dma_cyc_o, dma_stb_o, dma_we_o, dma_sel_o, dma_adr_o, dma_dat_o} = dma_req;
  assign dma_rsp.ack = dma_ack_i;
  assign dma_rsp.err = dma_err_i;
  assign dma_rsp.dat = dma_dat_i;

  dma_wb #(.RamBase(RamBase), .RamSize(RamSize)) u_dma (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Dma +: ReqBits]), .wb_o(s_rsp[RspBits*Dma +: RspBits]),
    .irq_o(irq[4]), .busy_o(dma_busy), .m_o(dma_req), .m_i(dma_rsp),
    .aes_own_o(aes_own), .aes_cmd_valid_o(aes_cmd_valid), .aes_cmd_o(aes_cmd), .aes_din_o(aes_din),
    .aes_bytes_o(aes_bytes), .aes_rec_o(aes_rec), .aes_mode_o(aes_mode), .aes_dec_o(aes_dec),
    .aes_tag_len_o(aes_tag_len), .aes_iv_o(aes_iv), .aes_slot_o(aes_slot), .aes_tag_in_o(aes_tag_in),
    .aes_cmd_ready_i(aes_cmd_ready), .aes_out_valid_i(aes_out_valid),
    .aes_dout_i(aes_dout), .aes_out_pop_o(aes_out_pop), .aes_no_out_i(aes_no_out), .aes_held_i(aes_held), .aes_rel_i(aes_rel),
    .aes_busy_i(aes_busy), .aes_done_i(aes_done), .aes_status_i(aes_status), .aes_tag_i(aes_tag),
    .sha_own_o(sha_own), .sha_hmac_o(sha_hmac), .sha_cmd_valid_o(sha_cmd_valid), .sha_cmd_o(sha_cmd), .sha_din_o(sha_din),
    .sha_bytes_o(sha_bytes), .sha_cmd_ready_i(sha_cmd_ready), .sha_busy_i(sha_busy),
    .sha_done_i(sha_done && !ctrl_sha_sel),   // (the controller's commands' ends are not the DMA's)
    .sha_status_i(sha_status), .sha_digest_i(sha_digest),
    .pk_own_o(pk_own), .pk_cmd_valid_o(pk_cmd_valid), .pk_cmd_o(pk_cmd), .pk_slot_o(pk_slot), .num_din_o(num_din),
    .pk_cmd_ready_i(pk_cmd_ready), .pk_busy_i(pk_busy), .pk_done_i(pk_done && !ctrl_pk_sel), .pk_status_i(pk_status),
    .pk_dout_i(pk_dout),
    .gf_we_o(gf_we), .gf_rx_i(gf_rx), .gf_ry_i(gf_ry), .gf_busy_i(gf_busy)
  );

  // The protocol controller: programs over its own window (rtl/ctrl).
  logic ctrl_busy;
  ctrl_wb u_ctrl (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Ctrl +: ReqBits]), .wb_o(s_rsp[RspBits*Ctrl +: RspBits]),
    .irq_o(irq[5]), .busy_o(ctrl_busy),
    .sha_own_o(ctrl_sha_own), .sha_held_o(ctrl_sha_held), .sha_cmd_valid_o(ctrl_sha_valid), .sha_cmd_o(ctrl_sha_cmd),
    .sha_din_o(ctrl_sha_din), .sha_bytes_o(ctrl_sha_bytes), .sha_cmd_ready_i(sha_ip_ready && ctrl_sha_sel),
    .sha_busy_i(sha_busy), .sha_status_i(sha_status), .sha_digest_i(sha_digest),
    .pk_own_o(ctrl_pk_own), .pk_held_o(ctrl_pk_held), .pk_cmd_valid_o(ctrl_pk_valid), .pk_cmd_o(ctrl_pk_cmd),
    .pk_slot_o(ctrl_pk_slot), .pk_prog_o(ctrl_pk_prog), .pk_din_o(ctrl_pk_din),
    .pk_cmd_ready_i(pk_ip_ready && ctrl_pk_sel), .pk_busy_i(pk_busy), .pk_status_i(pk_status), .pk_dout_i(pk_dout),
    .aes_key_req_o(ctrl_key_req), .aes_key_kind_o(ctrl_key_kind), .aes_key_slot_o(ctrl_key_slot),
    .aes_key_byte_o(ctrl_key_byte), .aes_key_ready_i(ctrl_key_ready)
  );

  assign busy_o[4] = dma_busy;
  assign busy_o[5] = ctrl_busy;

  assign irq_o = |irq;

endmodule

`default_nettype wire
