// The security engine: its IPs behind one Wishbone B4 slave, one window each, one interrupt line.
// The windows (byte offsets from the engine base) are rtl/engine/memmap.toml, through tools/memmap.py
// (package engine_memmap; docs/engine_map.md): AES, SHA, PK (prime-field ECC), GF2M (B-233/K-233).
// wb_interconnect answers an access outside the windows with a bus error.
`default_nettype none

module se_engine #(
  parameter int PtbufBlocks = 128
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
  output logic      [3:0]  busy_o    // {GF2M, PK, SHA, AES} busy, for observation
);

  localparam int ReqBits = wb_pkg::ReqBits, RspBits = wb_pkg::RspBits;
  localparam int Aes = engine_memmap::AesIdx, Sha = engine_memmap::ShaIdx, Pk = engine_memmap::PkIdx,
                 Gf2m = engine_memmap::Gf2mIdx;

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

  logic [3:0] irq;

  aes_wb #(.PtbufBlocks(PtbufBlocks)) u_aes (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Aes +: ReqBits]), .wb_o(s_rsp[RspBits*Aes +: RspBits]),
    .irq_o(irq[0]), .busy_o(busy_o[0])
  );

  sha_wb u_sha (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Sha +: ReqBits]), .wb_o(s_rsp[RspBits*Sha +: RspBits]),
    .irq_o(irq[1]), .busy_o(busy_o[1])
  );

  pk_wb u_pk (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Pk +: ReqBits]), .wb_o(s_rsp[RspBits*Pk +: RspBits]),
    .irq_o(irq[2]), .busy_o(busy_o[2])
  );

  gf2m_wb u_gf2m (
    .clk_i, .rst_ni, .wb_i(s_req[ReqBits*Gf2m +: ReqBits]), .wb_o(s_rsp[RspBits*Gf2m +: RspBits]),
    .irq_o(irq[3]), .busy_o(busy_o[3])
  );

  assign irq_o = |irq;

endmodule

`default_nettype wire
