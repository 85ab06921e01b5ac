// Node random-number source -- a SIMULATION MODEL, NOT an entropy source: xorshift64* from a seed.
// State x is loaded from seed_i in the first cycle after reset (a zero seed, which xorshift
// cannot leave, becomes a fixed nonzero constant). DATA shows the high word of
// step(x) * 0x2545F4914F6CDD1D and a read of DATA makes x = step(x), with
// step: x ^= x >> 12; x ^= x << 25; x ^= x >> 27 (Vigna's xorshift64*), so the simulator and
// a host model can reproduce the sequence from the seed.
`default_nettype none

module soc_trng (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  input  wire logic        wb_cyc_i,
  input  wire logic        wb_stb_i,
  input  wire logic        wb_we_i,
  input  wire logic [11:0] wb_adr_i,
  input  wire logic [31:0] wb_dat_i,
  input  wire logic [3:0]  wb_sel_i,
  output logic      [31:0] wb_dat_o,
  output logic             wb_ack_o,
  output logic             wb_err_o,
  input  wire logic [63:0] seed_i
);

  localparam logic [63:0] Mult = 64'h2545_f491_4f6c_dd1d;
  localparam logic [63:0] ZeroSeed = 64'h9e37_79b9_7f4a_7c15;  // used for seed 0

  logic        req, we, reg_err;
  logic [11:0] addr;
  logic [31:0] wdata, rdata;
  logic [3:0]  be;

  wb_regif #(.AddrBits(12)) u_wb (
    .clk_i, .rst_ni, .wb_cyc_i, .wb_stb_i, .wb_we_i, .wb_adr_i, .wb_dat_i, .wb_sel_i,
    .wb_dat_o, .wb_ack_o, .wb_err_o,
    .req_o(req), .we_o(we), .addr_o(addr), .wdata_o(wdata), .be_o(be), .rdata_i(rdata),
    .err_i(reg_err)
  );

  logic [63:0] x_q, s1, s2, next, prod;
  logic        seeded_q, data_rd;

  assign s1   = x_q ^ (x_q >> 12);
  assign s2   = s1 ^ (s1 << 25);
  assign next = s2 ^ (s2 >> 27);
  assign prod = next * Mult;

  trng_regs u_regs (
    .clk_i, .rst_ni,
    .req_i(req), .we_i(we), .addr_i(addr), .wdata_i(wdata), .be_i(be),
    .rdata_o(rdata), .err_o(reg_err),
    .status_valid_i(1'b1),
    .data_i(prod[63:32]), .data_rd_o(data_rd)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      x_q      <= ZeroSeed;
      seeded_q <= 1'b0;
    end else if (!seeded_q) begin
      x_q      <= (seed_i == 64'h0) ? ZeroSeed : seed_i;
      seeded_q <= 1'b1;
    end else if (data_rd) begin
      x_q <= next;
    end
  end

  logic unused_prod;
  assign unused_prod = ^prod[31:0];  // xorshift64* keeps the high word, the better bits

endmodule

`default_nettype wire
