// Digit-serial GF(2^233) multiplier, f(x) = x^233 + x^74 + 1, most significant digit first.
// Each cycle folds one D-bit digit of the second operand in:
//   acc <- (acc * x^D + a * d) mod f
// after ceil(233/D) cycles acc = a * b mod f. The first operand a_i must stay stable for the whole
// product (the caller holds its register select); d_i is the current digit, top digit first.
// p_o is the accumulator value after the current cycle (combinational), so the caller can write
// the finished product on the last cycle without an extra write-back cycle. It is defined only
// while en_i is high (X otherwise: synthesis drops the condition, and a simulator evaluates the
// whole product only in the cycles that use it).
// Digit product a * d: KARA = 1 cuts it into D x D chunk products, each with one Karatsuba level
// (three (D/2) x (D/2) carry-less products instead of four: fewer AND gates, the choice for
// gate-level/ASIC flows); KARA = 0 (default) sums the AND pairs of every product bit three at a
// time into kept wires, one LUT6 each, which is about half the xc7 LUTs of the Karatsuba form
// after Yosys/ABC mapping (2.5k vs 4.8k LUTs for D = 24).
`default_nettype none

// keep_hierarchy: flattened together with gf2m_ecsm, Yosys/ABC maps this XOR network about twice
// as large (14k vs 6.9k LUTs for the whole core with D = 24), so it stays a separate module.
(* keep_hierarchy *)
module gf2m_mul #(
  parameter int D = 24,                // digit size, even, 2 .. 158
  parameter bit KARA = 1'b0            // 0: LUT6-packed schoolbook, 1: Karatsuba chunk products
) (
  input  wire logic         clk_i,
  input  wire logic         rst_ni,
  input  wire logic         en_i,      // step the accumulator this cycle
  input  wire logic         first_i,   // first digit: the accumulator is taken as 0
  input  wire logic [232:0] a_i,
  input  wire logic [D-1:0] d_i,
  output logic      [232:0] p_o
);

  localparam int H  = D / 2;
  localparam int NC = (233 + D - 1) / D;     // D-bit chunks of a
  localparam int TW = (NC + 1) * D;          // unreduced width (top bits are constant 0)

  // Carry-less D x D product, schoolbook.
  function automatic logic [2*D-2:0] clmul_d(input logic [D-1:0] x, input logic [D-1:0] y);
    logic [2*D-2:0] r;
    r = '0;
    for (int i = 0; i < D; i++)
      for (int j = 0; j < D; j++)
        r[i+j] = r[i+j] ^ (x[i] & y[j]);
    clmul_d = r;
  endfunction

  // Carry-less H x H product.
  function automatic logic [2*H-2:0] clmul_h(input logic [H-1:0] x, input logic [H-1:0] y);
    logic [2*H-2:0] r;
    r = '0;
    for (int i = 0; i < H; i++)
      for (int j = 0; j < H; j++)
        r[i+j] = r[i+j] ^ (x[i] & y[j]);
    clmul_h = r;
  endfunction

  // Carry-less D x D product by one Karatsuba level: x = x1 t + x0, y = y1 t + y0 (t = x^H),
  // xy = hi t^2 + (mid + hi + lo) t + lo with mid = (x0 + x1)(y0 + y1).
  function automatic logic [2*D-2:0] kmul(input logic [D-1:0] x, input logic [D-1:0] y);
    logic [2*H-2:0] lo, hi, mid;
    logic [2*D-2:0] r;
    lo  = clmul_h(x[H-1:0], y[H-1:0]);
    hi  = clmul_h(x[D-1:H], y[D-1:H]);
    mid = clmul_h(x[H-1:0] ^ x[D-1:H], y[H-1:0] ^ y[D-1:H]) ^ lo ^ hi;
    r = '0;
    r[2*H-2:0]     = lo;
    r[2*D-2:D]     = hi;
    r[3*H-2:H]     = r[3*H-2:H] ^ mid;
    kmul = r;
  endfunction

  localparam int PW = 233 + D - 1;         // width of a * d

  logic [232:0]     acc_q;
  logic [PW-1:0]    pd;                      // a * d, unreduced
  if (KARA) begin : g_kara
    logic [NC*D-1:0] ap;
    logic [TW-1:0]   t;
    always_comb begin
      ap = 'x;
      t  = 'x;
      pd = 'x;
      if (en_i) begin
        ap = '0;
        ap[232:0] = a_i;
        t = '0;
        for (int i = 0; i < NC; i++)
          t[i*D +: 2*D-1] = t[i*D +: 2*D-1] ^ kmul(ap[i*D +: D], d_i);
        pd = t[PW-1:0];
      end
    end
  end else begin : g_school
    // Schoolbook, packed for LUT6: the digit's AND pairs are summed three at a time,
    // part_g = (a << 3g) d[3g] + (a << 3g+1) d[3g+1] + (a << 3g+2) d[3g+2], into kept vectors,
    // so synthesis maps every bit of a triple to one LUT6 and then only XORs the triples.
    localparam int G = (D + 2) / 3;
    logic [G*3-1:0] dp;
    logic [G*PW-1:0] sum_in;
    always_comb begin
      dp        = '0;
      dp[D-1:0] = d_i;
    end
    for (genvar g = 0; g < G; g++) begin : g_grp
      (* keep *) logic [PW-1:0] part;
      logic [PW-1:0] ae;
      always_comb begin
        ae   = 'x;
        part = 'x;
        if (en_i) begin
          ae        = '0;
          ae[232:0] = a_i;
          part = ((ae << (3*g))     & {PW{dp[3*g]}}) ^
                 ((ae << (3*g + 1)) & {PW{dp[3*g+1]}}) ^
                 ((ae << (3*g + 2)) & {PW{dp[3*g+2]}});
        end
      end
      assign sum_in[g*PW +: PW] = part;
    end
    always_comb begin
      pd = 'x;
      if (en_i) begin
        pd = '0;
        for (int g = 0; g < G; g++) pd = pd ^ sum_in[g*PW +: PW];
      end
    end
  end

  logic [TW-1:0] u;
  always_comb begin
    u   = 'x;
    p_o = 'x;
    if (en_i) begin
      u = '0;
      u[PW-1:0] = pd;
      if (!first_i) u[232+D:D] = u[232+D:D] ^ acc_q;
      // x^i = x^(i-233) + x^(i-159) for i >= 233, top down so refolded bits are folded again.
      for (int i = TW - 1; i >= 233; i--) begin
        u[i-233] = u[i-233] ^ u[i];
        u[i-159] = u[i-159] ^ u[i];
      end
      p_o = u[232:0];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)   acc_q <= '0;
    else if (en_i) acc_q <= p_o;
  end

endmodule

`default_nettype wire
