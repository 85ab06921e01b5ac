// The security engine: its IPs behind one Wishbone B4 slave, 4 KiB windows, one interrupt line.
// Window map (byte offsets from the engine base): 0x0000 AES, 0x1000 SHA, 0x2000 PK (prime-field
// ECC), 0x3000 GF2M (B-233/K-233); an access outside the windows is a bus error.
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

  localparam int NumIps = 4;

  logic [NumIps-1:0] sel, ack, err, irq;
  logic [31:0]       dat_aes, dat_sha, dat_pk, dat_gf2m;
  logic              hole_q;  // error response for an access outside every window

  always_comb begin
    sel = '0;
    // Only offsets 0x000..0x0ff of a window reach its IP; the rest of the window is a hole.
    if (wb_adr_i[11:8] == 4'h0)
      case (wb_adr_i[15:12])
        4'h0: sel[0] = 1'b1;
        4'h1: sel[1] = 1'b1;
        4'h2: sel[2] = 1'b1;
        4'h3: sel[3] = 1'b1;
        default: sel = '0;
      endcase
  end

  aes_wb #(.PtbufBlocks(PtbufBlocks)) u_aes (
    .clk_i, .rst_ni, .wb_cyc_i(wb_cyc_i && sel[0]), .wb_stb_i(wb_stb_i), .wb_we_i,
    .wb_adr_i(wb_adr_i[7:0]), .wb_dat_i, .wb_sel_i,
    .wb_dat_o(dat_aes), .wb_ack_o(ack[0]), .wb_err_o(err[0]), .irq_o(irq[0]), .busy_o(busy_o[0])
  );

  sha_wb u_sha (
    .clk_i, .rst_ni, .wb_cyc_i(wb_cyc_i && sel[1]), .wb_stb_i(wb_stb_i), .wb_we_i,
    .wb_adr_i(wb_adr_i[7:0]), .wb_dat_i, .wb_sel_i,
    .wb_dat_o(dat_sha), .wb_ack_o(ack[1]), .wb_err_o(err[1]), .irq_o(irq[1]), .busy_o(busy_o[1])
  );

  pk_wb u_pk (
    .clk_i, .rst_ni, .wb_cyc_i(wb_cyc_i && sel[2]), .wb_stb_i(wb_stb_i), .wb_we_i,
    .wb_adr_i(wb_adr_i[7:0]), .wb_dat_i, .wb_sel_i,
    .wb_dat_o(dat_pk), .wb_ack_o(ack[2]), .wb_err_o(err[2]), .irq_o(irq[2]), .busy_o(busy_o[2])
  );

  gf2m_wb u_gf2m (
    .clk_i, .rst_ni, .wb_cyc_i(wb_cyc_i && sel[3]), .wb_stb_i(wb_stb_i), .wb_we_i,
    .wb_adr_i(wb_adr_i[7:0]), .wb_dat_i, .wb_sel_i,
    .wb_dat_o(dat_gf2m), .wb_ack_o(ack[3]), .wb_err_o(err[3]), .irq_o(irq[3]), .busy_o(busy_o[3])
  );

  logic hole;
  assign hole = wb_cyc_i && wb_stb_i && !hole_q && sel == '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) hole_q <= 1'b0;
    else hole_q <= hole;
  end

  assign wb_dat_o = dat_aes | dat_sha | dat_pk | dat_gf2m;  // the idle IP drives 0
  assign wb_ack_o = |ack;
  assign wb_err_o = |err || hole_q;
  assign irq_o    = |irq;

endmodule

`default_nettype wire
