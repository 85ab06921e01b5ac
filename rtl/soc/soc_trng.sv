// Node random-number source -- a SIMULATION MODEL, NOT an entropy source: xorshift64* from a seed.
// State x is loaded from seed_i in the first cycle after reset (a zero seed, which xorshift
// cannot leave, becomes a fixed nonzero constant). DATA shows the high word of
// step(x) * 0x2545F4914F6CDD1D and a read of DATA makes x = step(x), with
// step: x ^= x >> 12; x ^= x << 25; x ^= x >> 27 (Vigna's xorshift64*), so the simulator and
// a host model can reproduce the sequence from the seed.
`default_nettype none

module soc_trng (
  input  wire logic            clk_i,
  input  wire logic            rst_ni,
  input  wire wb_pkg::wb_req_t wb_i,
  output wb_pkg::wb_rsp_t      wb_o,
  input  wire logic [63:0]     seed_i
);

  localparam logic [63:0] Mult = 64'h2545_f491_4f6c_dd1d;
  localparam logic [63:0] ZeroSeed = 64'h9e37_79b9_7f4a_7c15;  // used for seed 0

  trng_reg_pkg::trng_reg2hw_t reg2hw;
  trng_reg_pkg::trng_hw2reg_t hw2reg;

  trng_reg_top u_reg (.clk_i, .rst_ni, .wb_i, .wb_o, .reg2hw_o(reg2hw), .hw2reg_i(hw2reg));

  logic [63:0] x_q, s1, s2, next, prod;
  logic        seeded_q;

  assign s1   = x_q ^ (x_q >> 12);
  assign s2   = s1 ^ (s1 << 25);
  assign next = s2 ^ (s2 >> 27);
  assign prod = next * Mult;

  assign hw2reg.data = prod[63:32];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      x_q      <= ZeroSeed;
      seeded_q <= 1'b0;
    end else if (!seeded_q) begin
      x_q      <= (seed_i == 64'h0) ? ZeroSeed : seed_i;
      seeded_q <= 1'b1;
    end else if (reg2hw.data.rd) begin
      x_q <= next;
    end
  end

  logic unused_prod;
  assign unused_prod = ^prod[31:0];  // xorshift64* keeps the high word, the better bits

endmodule

`default_nettype wire
