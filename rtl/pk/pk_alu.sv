// Modular arithmetic unit for the prime-field ECC engine (no bus): Montgomery multiplication,
// modular addition and subtraction, and the Montgomery constant -m^-1 mod 2^DW.
//
// Operations (op_i), for an odd modulus 3 <= m < R = 2^(DW*ndig_i):
//   0 MUL  r = a*b*R^-1 mod m, fully reduced, for a < R and b < m
//   1 ADD  r = (a + b) mod m   for a, b < m
//   2 SUB  r = (a - b) mod m   for a, b < m
//   3 MINV r = -m^-1 mod 2^DW  (r's bits above DW-1 are 0); the minv_i that MUL needs
//
// Latency, counted in rising clock edges from the one that samples start_i (counted as 1) to the one
// after which done_o is high; it depends only on op_i and ndig_i, never on the operands:
//   MUL  = 2*ndig_i + 1
//   ADD  = SUB = 2
//   MINV = 2*NIT, NIT = Newton iterations = 3 for DW = 16, 4 for DW = 32 (3 correct bits doubled
//          until >= DW: NIT = ceil(log2(DW/3)))
// busy_o falls and done_o pulses on the same edge, so the next start may come in the done cycle.
//
// Datapath: one W x DW multiplier (prod = mul_a * mul_d) feeding one (W+DW+1)-bit adder
// (sum = add_x +/- prod) into the accumulator acc_q, plus a small DW x DW multiplier (low half only)
// for the Montgomery quotient digit and for MINV. Every operation is a fixed schedule of steps:
//   MUL, digit j of a (radix-2^DW interleaved Montgomery, two cycles per digit because the two
//   products share the multiplier):
//     MA: acc = acc + b*a_j;        q = (acc mod 2^DW) * minv mod 2^DW   (acc = 0 on the first digit)
//     MB: acc = (acc + m*q) / 2^DW  (exact: the low digit is 0 by the choice of q)
//     With T < b + m before MA, T' < (b + m + (2^DW - 1)*(b + m)) / 2^DW = b + m; so acc < 2m < 2^(W+1)
//     after the last digit and acc + b*a_j + m*q < 2^(W+DW+1) never overflows the accumulator.
//   ADD/SUB: AS: acc = a +/- b (two's complement in the accumulator width)
//   FIN (MUL, ADD, SUB): the last step; the multiplier passes m through (mul_d = 1):
//     MUL/ADD: s = acc - m, acc = (s < 0) ? acc : s;  SUB: s = acc + m, acc = (acc < 0) ? s : acc.
//     Both candidates always exist and a mux picks one by the sign (no data-dependent timing).
//   MINV, Newton on y = -m^-1: y' = y*(2 + m*y) doubles the correct low bits; y0 = m ^ 6 is correct
//     mod 8 (m^2 = 1 mod 8 for odd m, so -m^-1 = -m, and -m = m ^ 6 on the low 3 bits):
//     IA: acc = t = m*y mod 2^DW;   IB: y = q = acc = y*(2 + t) mod 2^DW
// The operands a_i, b_i, m_i, minv_i are read from the (stable) inputs rather than copied into
// registers, which saves 3*W+DW flip-flops; the result lives in the accumulator, hence r_o stays
// valid until the next start overwrites it.
`default_nettype none

module pk_alu #(
  parameter int W   = 256,             // operand width
  parameter int DW  = 32,              // Montgomery digit width (the engine's; 16 also tested)
  parameter int ND  = W / DW,          // max digits
  parameter int NdW = $clog2(ND + 1)
) (
  input  wire logic           clk_i,
  input  wire logic           rst_ni,   // async active-low
  input  wire logic           start_i,  // 1-cycle pulse while !busy_o; inputs below stable until done_o
  input  wire logic [1:0]     op_i,     // 0 MUL, 1 ADD, 2 SUB, 3 MINV
  input  wire logic [NdW-1:0] ndig_i,   // digits of the modulus, 1..ND: R = 2^(DW*ndig_i)
  input  wire logic [W-1:0]   m_i,      // odd modulus, 3 <= m < 2^(DW*ndig_i)
  input  wire logic [DW-1:0]  minv_i,   // -m^-1 mod 2^DW
  input  wire logic [W-1:0]   a_i,
  input  wire logic [W-1:0]   b_i,
  output logic                busy_o,
  output logic                done_o,   // 1-cycle pulse; r_o valid from then until the next start
  output logic      [W-1:0]   r_o
);

  localparam int AW = W + DW + 1;      // accumulator: holds acc + b*a_j + m*q < 2^(W+DW+1)
  // Newton iterations from 3 correct bits: 3 -> 6 -> 12 -> 24 -> 48 -> 96.
  // NIT - 1 (NIT >= 1 so that the schedule has at least one IA/IB pair).
  localparam logic [2:0] LAST_IT3 = (DW <= 6) ? 3'd0 : (DW <= 12) ? 3'd1 : (DW <= 24) ? 3'd2 :
                                    (DW <= 48) ? 3'd3 : 3'd4;
  // The step counter counts digits (up to ND) and Newton iterations (up to NIT <= 5).
  localparam int CW = (NdW > 3) ? NdW : 3;

  localparam logic [1:0] OP_MUL = 2'd0, OP_ADD = 2'd1, OP_SUB = 2'd2, OP_MINV = 2'd3;

  logic [AW-1:0]  acc_q, acc_d;
  logic [DW-1:0]  q_q, q_d;            // MUL: quotient digit; MINV: Newton iterate y
  logic [CW-1:0]  j_q, j_d;            // digit / iteration index
  logic [NdW-1:0] ndig_q, ndig_d;      // latched so the schedule cannot be upset mid-operation
  logic [1:0]     op_q, op_d;
  logic           phase_q, phase_d;    // 0: MA/IA next, 1: MB/IB next
  logic           fin_q, fin_d;        // FIN next
  logic           busy_q, busy_d;
  logic           done_q, done_d;

  logic start;
  assign start = start_i && !busy_q;

  // ndig_q - 1 widened to the counter: the index of the last digit.
  logic [CW-1:0] last_dig;
  always_comb begin
    last_dig = '0;
    last_dig[NdW-1:0] = ndig_q;
    last_dig = last_dig - 1'b1;
  end

  logic [CW-1:0] last_it;
  always_comb begin
    last_it = '0;
    last_it[2:0] = LAST_IT3;
  end

  // Digit j of a; j_q < ndig_q <= ND on every MA step, so the select stays inside a_i. j_q is 0
  // while idle (reset, and cleared as each operation ends), so the start step reads a_0.
  logic [DW-1:0] a_dig;
  assign a_dig = a_i[j_q * DW +: DW];

  logic [DW-1:0] y0;
  assign y0 = m_i[DW-1:0] ^ {{(DW-3){1'b0}}, 3'b110};

  // Step decode: what this cycle does, from the start request or the schedule state.
  logic [1:0] op;
  logic st_ma, st_mb, st_as, st_fin, st_ia, st_ib, step;
  always_comb begin
    op     = start ? op_i : op_q;
    st_ma  = 1'b0;
    st_mb  = 1'b0;
    st_as  = 1'b0;
    st_fin = 1'b0;
    st_ia  = 1'b0;
    st_ib  = 1'b0;
    if (start) begin
      st_ma = op_i == OP_MUL;
      st_as = op_i == OP_ADD || op_i == OP_SUB;
      st_ia = op_i == OP_MINV;
    end else if (busy_q) begin
      if (fin_q) st_fin = 1'b1;
      else if (op_q == OP_MUL) begin
        st_ma = !phase_q;
        st_mb = phase_q;
      end else begin
        st_ia = !phase_q;
        st_ib = phase_q;
      end
    end
    step = st_ma | st_mb | st_as | st_fin | st_ia | st_ib;
  end

  // The datapath of one step: {acc, q} after it. A function, called only in the cycles that run a
  // step (below), so the wide multiplier and adder cost a simulator nothing while the unit is
  // idle; in hardware it is the same logic.
  //
  // Shared W x DW multiplier and the accumulator adder. sum = add_x + prod, or add_x - prod when
  // sub: ~prod + 1, with the +1 entering as the carry into an extra low bit so that it stays one
  // adder. Subtraction only happens with mul_d = 1, where prod's high digit is 0, so OR-ing sub
  // into those bits is the same as inverting them and cheaper. The DW x DW multiplier (low half
  // only) makes the q digit and the MINV steps; its operands depend on sum.
  function automatic logic [AW+DW-1:0] dp_step(
      input logic s_ma, input logic s_mb, input logic s_as, input logic s_fin, input logic s_ia,
      input logic s_ib, input logic s_start, input logic [1:0] s_op, input logic [AW-1:0] acc,
      input logic [DW-1:0] q, input logic [W-1:0] a, input logic [W-1:0] b, input logic [W-1:0] m,
      input logic [DW-1:0] minv, input logic [DW-1:0] a_j, input logic [DW-1:0] y_0);
    logic [W-1:0]    mul_a;
    logic [DW-1:0]   mul_d;
    logic [W+DW-1:0] prod;
`ifndef SYNTHESIS
    logic [2*DW-1:0] pp;
`endif
    logic [AW-1:0]   add_x, add_y, sum, acc_n;
    /* verilator lint_off UNUSEDSIGNAL */
    logic [AW:0]     sum_c;              // bit 0 only carries sub into the adder
    /* verilator lint_on UNUSEDSIGNAL */
    logic            sub;
    logic [DW-1:0]   qa, qb, qm, q_n;

    // Operand selection for the shared multiplier and the adder.
    mul_a = b;
    mul_d = {{(DW-1){1'b0}}, 1'b1};
    add_x = acc;
    sub   = 1'b0;
    if (s_ma) begin
      mul_d = a_j;
      if (s_start) add_x = '0;
    end
    if (s_mb) begin
      mul_a = m;
      mul_d = q;
    end
    if (s_as) begin
      add_x = {{(DW+1){1'b0}}, a};
      sub   = s_op == OP_SUB;
    end
    if (s_fin) begin
      mul_a = m;
      sub   = s_op != OP_SUB;
    end
`ifdef SYNTHESIS
    prod = {{DW{1'b0}}, mul_a} * {{W{1'b0}}, mul_d};
`else
    // Simulation: the same product as the sum of its DW x DW digit products, each one machine
    // word (Verilator's W+DW-bit multiplication costs several times more, and pk runs for most
    // of a handshake). Synthesis (SYNTHESIS defined, as Yosys does) keeps the single multiplier:
    // written this way it would build W/DW multipliers and an adder chain instead.
    prod = '0;
    for (int i = 0; i < W / DW; i++) begin
      pp   = {{DW{1'b0}}, mul_a[i*DW +: DW]} * {{DW{1'b0}}, mul_d};
      prod = prod + ({{(W-DW){1'b0}}, pp} << (i * DW));
    end
`endif
    add_y = {sub, prod[W+DW-1:W] | {DW{sub}}, prod[W-1:0] ^ {W{sub}}};
    sum_c = {add_x, sub} + {add_y, sub};
    sum   = sum_c[AW:1];

    // Operands of the DW x DW multiplier: the quotient digit on MA, Newton steps on IA/IB.
    qa = sum[DW-1:0];
    qb = minv;
    if (s_ia) begin
      qa = m[DW-1:0];
      qb = s_start ? y_0 : q;
    end
    if (s_ib) begin
      qa = q;
      qb = acc[DW-1:0] + {{(DW-2){1'b0}}, 2'd2};
    end
    qm = qa * qb;

    // Register updates.
    acc_n = acc;
    q_n   = q;
    if (s_ma) begin
      acc_n = sum;
      q_n   = qm;
    end
    if (s_mb) acc_n = {{DW{1'b0}}, sum[AW-1:DW]};
    if (s_as) acc_n = sum;
    if (s_fin) begin
      // MUL/ADD keep acc when acc - m < 0; SUB adds m back when a - b < 0.
      if (s_op == OP_SUB) acc_n = acc[AW-1] ? sum : acc;
      else                acc_n = sum[AW-1] ? acc : sum;
    end
    if (s_ia) begin
      acc_n = {{(AW-DW){1'b0}}, qm};
      q_n   = qb;
    end
    if (s_ib) begin
      acc_n = {{(AW-DW){1'b0}}, qm};
      q_n   = qm;
    end
    dp_step = {acc_n, q_n};
  endfunction

  // Register updates: one result vector, so that the step is evaluated once (a simulator that
  // splits the block per target would otherwise run it for acc_d and q_d each).
  logic [AW+DW-1:0] nxt;
  always_comb begin
    nxt = {acc_q, q_q};
    if (step)
      nxt = dp_step(st_ma, st_mb, st_as, st_fin, st_ia, st_ib, start, op, acc_q, q_q,
                    a_i, b_i, m_i, minv_i, a_dig, y0);
  end
  assign {acc_d, q_d} = nxt;

  // Schedule.
  always_comb begin
    j_d     = j_q;
    ndig_d  = ndig_q;
    op_d    = op_q;
    phase_d = phase_q;
    fin_d   = fin_q;
    busy_d  = busy_q;
    done_d  = 1'b0;
    if (start) begin
      op_d    = op_i;
      ndig_d  = ndig_i;
      busy_d  = 1'b1;
      phase_d = 1'b1;                             // MUL and MINV start with their A step
      fin_d   = op_i == OP_ADD || op_i == OP_SUB;
    end else if (busy_q) begin
      if (fin_q) begin
        j_d    = '0;                              // idle with j = 0: the start step reads a_0
        fin_d  = 1'b0;
        busy_d = 1'b0;
        done_d = 1'b1;
      end else if (!phase_q) begin
        phase_d = 1'b1;
      end else begin
        phase_d = 1'b0;
        if (op_q == OP_MUL) begin
          if (j_q == last_dig) fin_d = 1'b1;
          else j_d = j_q + 1'b1;
        end else if (j_q == last_it) begin      // MINV: the last IB leaves y in acc
          j_d    = '0;
          busy_d = 1'b0;
          done_d = 1'b1;
        end else begin
          j_d = j_q + 1'b1;
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      acc_q   <= '0;
      q_q     <= '0;
      j_q     <= '0;
      ndig_q  <= '0;
      op_q    <= '0;
      phase_q <= 1'b0;
      fin_q   <= 1'b0;
      busy_q  <= 1'b0;
      done_q  <= 1'b0;
    end else begin
      acc_q   <= acc_d;
      q_q     <= q_d;
      j_q     <= j_d;
      ndig_q  <= ndig_d;
      op_q    <= op_d;
      phase_q <= phase_d;
      fin_q   <= fin_d;
      busy_q  <= busy_d;
      done_q  <= done_d;
    end
  end

  assign busy_o = busy_q;
  assign done_o = done_q;
  assign r_o    = acc_q[W-1:0];

endmodule

`default_nettype wire
