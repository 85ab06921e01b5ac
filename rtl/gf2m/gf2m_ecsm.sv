// sect233r1 (B-233) / sect233k1 (K-233) scalar multiplication kP, no bus.
// Lopez-Dahab Montgomery ladder in projective x-only coordinates (X:Z) over all 233 scalar bits
// from R0 = O = (1:0), R1 = P = (x:1), then Lopez-Dahab y-recovery with one Itoh-Tsujii
// inversion. The point is validated first (y^2 + xy = x^3 + a x^2 + b, x != 0). Everything runs
// from a fixed microprogram, so the cycle count is the same for every scalar, point and curve.
// See README.md in this directory for the schedule and the figures.
`default_nettype none

module gf2m_ecsm #(
  parameter int D    = 24,                  // multiplier digit size (even)
  parameter bit KARA = 1'b0                 // digit products: 0 LUT6-packed, 1 Karatsuba
) (
  input  wire logic         clk_i,
  input  wire logic         rst_ni,         // async active-low reset
  input  wire logic         start_i,        // 1-cycle pulse; ignored while busy_o
  input  wire logic         koblitz_i,      // 1: sect233k1 (a=0, b=1); 0: sect233r1. Sampled at start
  input  wire logic [232:0] k_i,            // scalar, sampled at start
  input  wire logic [232:0] px_i, py_i,     // affine input point, sampled at start
  output logic              busy_o,
  output logic              done_o,         // 1-cycle pulse when finished
  output logic      [1:0]   status_o,       // 0 OK, 1 BAD_POINT, 2 INFINITY (valid from done)
  output logic      [232:0] rx_o, ry_o      // affine result, 0 unless status is OK
);

  localparam int N = (233 + D - 1) / D;     // cycles per multiplication
  localparam logic [31:0] NM1W = N - 1;
  localparam logic [6:0]  NM1 = NM1W[6:0];
  localparam logic [232:0] B233 =
    233'h066647ede6c332c7f8c0923bb58213b333b20e9ce4281fe115f7d8f90ad;
  localparam logic [5:0] PC_LAD    = 6'd9;   // first instruction of a ladder step
  localparam logic [5:0] PC_LADEND = 6'd14;  // last one

  // ---- squaring: spread the bits (a linear map) and reduce; one cycle, no state -------------
  function automatic logic [232:0] gf_sqr(input logic [232:0] a);
    logic [464:0] c;
    c = '0;
    for (int i = 0; i < 233; i++) c[2*i] = a[i];
    for (int i = 464; i >= 233; i--) begin
      c[i-233] = c[i-233] ^ c[i];
      c[i-159] = c[i-159] ^ c[i];
    end
    gf_sqr = c[232:0];
  endfunction

  // ---- state ------------------------------------------------------------------------------
  // Ladder registers: (X0:Z0) = R0, (X1:Z1) = R1. In a ladder step the names XD/ZD (the point
  // that is doubled) and XA/ZA (the one the sum goes to) map onto them by the scalar bit, so no
  // swap is ever done; outside the ladder XD/ZD = X0/Z0 and XA/ZA = X1/Z1.
  logic [232:0] x0_q, z0_q, x1_q, z1_q, px_q, py_q, t1_q, t2_q, sx_q, sz_q, k_q;
  logic         kob_q, busy_q, done_q, outv_q, bad_q, inf_q, neg_q;
  logic [5:0]   pc_q;
  logic [7:0]   bit_q;                      // scalar bit of the current ladder step
  logic [6:0]   cnt_q;                      // cycle within the instruction

  // ---- microprogram -----------------------------------------------------------------------
  // typ: 0 LIN (1 cycle: linear op only), 1 MUL (N cycles: product written on the last cycle as
  // wdst = a * b + addp, linear op on the first cycle), 2 REP (rep cycles of SZ = SZ^2, the first
  // one SZ = lp^2). Linear op: ldst = (lp + lq) or (lp + lq)^2 when lsq.
  // asel: ZD ZA SZ T1 | bsel: XD XA SX PX T2 B PXA(x + a)
  // lp, addp: XD ZD XA ZA T1 T2 SX SZ PX PY 0 | lq: 0 T2 B XA PY PX 1
  // wdst/ldst: - XD ZD XA ZA T1 T2 SX SZ
  logic [1:0] typ, asel;
  logic [2:0] bsel, lq;
  logic [3:0] wdst, ldst, lp, addp;
  logic       lsq, f_bad, f_inf, f_loop, f_end;
  logic [6:0] rep;

  always_comb begin
    typ = 2'd0; asel = 2'd0; bsel = 3'd0; wdst = 4'd0; addp = 4'd10;
    ldst = 4'd0; lp = 4'd0; lq = 3'd0; lsq = 1'b0; rep = 7'd1;
    f_bad = 1'b0; f_inf = 1'b0; f_loop = 1'b0; f_end = 1'b0;
    case (pc_q)
      6'd0: begin typ = 2'd0; ldst = 4'd5; lp = 4'd9; end  // LIN; T1 = PY
      6'd1: begin typ = 2'd1; asel = 2'd3; bsel = 3'd3; wdst = 4'd6; addp = 4'd10; ldst = 4'd8; lp = 4'd8; lsq = 1'b1; end  // MUL T2 = T1*PX; SZ = (PX)^2
      6'd2: begin typ = 2'd1; asel = 2'd2; bsel = 3'd6; wdst = 4'd6; addp = 4'd5; ldst = 4'd7; lp = 4'd9; lsq = 1'b1; end  // MUL T2 = SZ*PXA + T2; SX = (PY)^2
      6'd3: begin typ = 2'd0; ldst = 4'd6; lp = 4'd6; lq = 3'd1; end  // LIN; T2 = SX + T2
      6'd4: begin typ = 2'd0; ldst = 4'd6; lp = 4'd5; lq = 3'd2; end  // LIN; T2 = T2 + B
      6'd5: begin typ = 2'd0; ldst = 4'd3; lp = 4'd8; f_bad = 1'b1; end  // LIN; XA = PX
      6'd6: begin typ = 2'd0; ldst = 4'd4; lp = 4'd10; lq = 3'd6; end  // LIN; ZA = ZERO + ONE
      6'd7: begin typ = 2'd0; ldst = 4'd1; lp = 4'd10; lq = 3'd6; end  // LIN; XD = ZERO + ONE
      6'd8: begin typ = 2'd0; ldst = 4'd2; lp = 4'd10; end  // LIN; ZD = ZERO
      6'd9: begin typ = 2'd1; asel = 2'd1; bsel = 3'd0; wdst = 4'd5; addp = 4'd10; ldst = 4'd7; lp = 4'd0; lsq = 1'b1; end  // MUL T1 = ZA*XD; SX = (XD)^2
      6'd10: begin typ = 2'd1; asel = 2'd0; bsel = 3'd1; wdst = 4'd6; addp = 4'd10; ldst = 4'd8; lp = 4'd1; lsq = 1'b1; end  // MUL T2 = ZD*XA; SZ = (ZD)^2
      6'd11: begin typ = 2'd1; asel = 2'd2; bsel = 3'd2; wdst = 4'd2; addp = 4'd10; ldst = 4'd4; lp = 4'd4; lq = 3'd1; lsq = 1'b1; end  // MUL ZD = SZ*SX; ZA = (T1 + T2)^2
      6'd12: begin typ = 2'd1; asel = 2'd1; bsel = 3'd3; wdst = 4'd3; addp = 4'd10; ldst = 4'd8; lp = 4'd7; lsq = 1'b1; end  // MUL XA = ZA*PX; SZ = (SZ)^2
      6'd13: begin typ = 2'd1; asel = 2'd3; bsel = 3'd4; wdst = 4'd3; addp = 4'd2; ldst = 4'd7; lp = 4'd6; lsq = 1'b1; end  // MUL XA = T1*T2 + XA; SX = (SX)^2
      6'd14: begin typ = 2'd1; asel = 2'd2; bsel = 3'd5; wdst = 4'd1; addp = 4'd6; f_loop = 1'b1; end  // MUL XD = SZ*B + SX
      6'd15: begin typ = 2'd0; ldst = 4'd6; lp = 4'd3; f_inf = 1'b1; end  // LIN; T2 = ZA
      6'd16: begin typ = 2'd1; asel = 2'd0; bsel = 3'd4; wdst = 4'd5; addp = 4'd10; end  // MUL T1 = ZD*T2
      6'd17: begin typ = 2'd1; asel = 2'd1; bsel = 3'd3; wdst = 4'd4; addp = 4'd10; end  // MUL ZA = ZA*PX
      6'd18: begin typ = 2'd1; asel = 2'd1; bsel = 3'd0; wdst = 4'd6; addp = 4'd10; end  // MUL T2 = ZA*XD
      6'd19: begin typ = 2'd1; asel = 2'd0; bsel = 3'd3; wdst = 4'd2; addp = 4'd0; ldst = 4'd3; lp = 4'd3; lq = 3'd3; end  // MUL ZD = ZD*PX + XD; XA = ZA + XA
      6'd20: begin typ = 2'd1; asel = 2'd0; bsel = 3'd1; wdst = 4'd1; addp = 4'd10; ldst = 4'd7; lp = 4'd8; lsq = 1'b1; end  // MUL XD = ZD*XA; SX = (PX)^2
      6'd21: begin typ = 2'd0; ldst = 4'd7; lp = 4'd6; lq = 3'd4; end  // LIN; SX = SX + PY
      6'd22: begin typ = 2'd1; asel = 2'd3; bsel = 3'd2; wdst = 4'd1; addp = 4'd0; end  // MUL XD = T1*SX + XD
      6'd23: begin typ = 2'd1; asel = 2'd3; bsel = 3'd3; wdst = 4'd3; addp = 4'd10; end  // MUL XA = T1*PX
      6'd24: begin typ = 2'd2; ldst = 4'd8; lp = 4'd2; lsq = 1'b1; rep = 7'd1; end  // REP; SZ = (XA)^2 (x1)
      6'd25: begin typ = 2'd1; asel = 2'd2; bsel = 3'd1; wdst = 4'd7; addp = 4'd10; end  // MUL SX = SZ*XA
      6'd26: begin typ = 2'd2; ldst = 4'd8; lp = 4'd6; lsq = 1'b1; rep = 7'd1; end  // REP; SZ = (SX)^2 (x1)
      6'd27: begin typ = 2'd1; asel = 2'd2; bsel = 3'd1; wdst = 4'd7; addp = 4'd10; end  // MUL SX = SZ*XA
      6'd28: begin typ = 2'd2; ldst = 4'd8; lp = 4'd6; lsq = 1'b1; rep = 7'd3; end  // REP; SZ = (SX)^2 (x3)
      6'd29: begin typ = 2'd1; asel = 2'd2; bsel = 3'd2; wdst = 4'd7; addp = 4'd10; end  // MUL SX = SZ*SX
      6'd30: begin typ = 2'd2; ldst = 4'd8; lp = 4'd6; lsq = 1'b1; rep = 7'd1; end  // REP; SZ = (SX)^2 (x1)
      6'd31: begin typ = 2'd1; asel = 2'd2; bsel = 3'd1; wdst = 4'd7; addp = 4'd10; end  // MUL SX = SZ*XA
      6'd32: begin typ = 2'd2; ldst = 4'd8; lp = 4'd6; lsq = 1'b1; rep = 7'd7; end  // REP; SZ = (SX)^2 (x7)
      6'd33: begin typ = 2'd1; asel = 2'd2; bsel = 3'd2; wdst = 4'd7; addp = 4'd10; end  // MUL SX = SZ*SX
      6'd34: begin typ = 2'd2; ldst = 4'd8; lp = 4'd6; lsq = 1'b1; rep = 7'd14; end  // REP; SZ = (SX)^2 (x14)
      6'd35: begin typ = 2'd1; asel = 2'd2; bsel = 3'd2; wdst = 4'd7; addp = 4'd10; end  // MUL SX = SZ*SX
      6'd36: begin typ = 2'd2; ldst = 4'd8; lp = 4'd6; lsq = 1'b1; rep = 7'd1; end  // REP; SZ = (SX)^2 (x1)
      6'd37: begin typ = 2'd1; asel = 2'd2; bsel = 3'd1; wdst = 4'd7; addp = 4'd10; end  // MUL SX = SZ*XA
      6'd38: begin typ = 2'd2; ldst = 4'd8; lp = 4'd6; lsq = 1'b1; rep = 7'd29; end  // REP; SZ = (SX)^2 (x29)
      6'd39: begin typ = 2'd1; asel = 2'd2; bsel = 3'd2; wdst = 4'd7; addp = 4'd10; end  // MUL SX = SZ*SX
      6'd40: begin typ = 2'd2; ldst = 4'd8; lp = 4'd6; lsq = 1'b1; rep = 7'd58; end  // REP; SZ = (SX)^2 (x58)
      6'd41: begin typ = 2'd1; asel = 2'd2; bsel = 3'd2; wdst = 4'd7; addp = 4'd10; end  // MUL SX = SZ*SX
      6'd42: begin typ = 2'd2; ldst = 4'd8; lp = 4'd6; lsq = 1'b1; rep = 7'd116; end  // REP; SZ = (SX)^2 (x116)
      6'd43: begin typ = 2'd1; asel = 2'd2; bsel = 3'd2; wdst = 4'd7; addp = 4'd10; end  // MUL SX = SZ*SX
      6'd44: begin typ = 2'd2; ldst = 4'd8; lp = 4'd6; lsq = 1'b1; rep = 7'd1; end  // REP; SZ = (SX)^2 (x1)
      6'd45: begin typ = 2'd1; asel = 2'd2; bsel = 3'd4; wdst = 4'd2; addp = 4'd10; end  // MUL ZD = SZ*T2
      6'd46: begin typ = 2'd1; asel = 2'd2; bsel = 3'd0; wdst = 4'd5; addp = 4'd10; ldst = 4'd7; lp = 4'd1; lq = 3'd5; end  // MUL T1 = SZ*XD; SX = ZD + PX
      6'd47: begin typ = 2'd1; asel = 2'd3; bsel = 3'd2; wdst = 4'd1; addp = 4'd9; f_end = 1'b1; end  // MUL XD = T1*SX + PY
      default: ;
    endcase
  end

  // ---- datapath ---------------------------------------------------------------------------
  logic sw, first, last;
  logic [232:0] bconst, av, bv, lpv, lqv, linv, wbus, prod;
  logic [3:0]   psel;
  logic [2:0]   qsel;
  logic         sqf, wr_m, wr_l, rep_on;
  logic [N*D-1:0] bpad;
  logic [D-1:0]   digit;
  logic [31:0]    cnt32;
  assign cnt32 = {25'd0, cnt_q};

  assign sw     = (pc_q >= PC_LAD) && (pc_q <= PC_LADEND) && k_q[bit_q];
  assign bconst = kob_q ? 233'd1 : B233;
  assign first  = cnt_q == 7'd0;
  always_comb begin
    case (typ)
      2'd1:    last = cnt_q == NM1;
      2'd2:    last = cnt_q == rep - 7'd1;
      default: last = 1'b1;
    endcase
  end

  // The scalar bit renames XD/XA and ZD/ZA on the select codes, so the data muxes only see
  // physical registers.
  logic [1:0] ap;
  logic [2:0] bp, qp;
  logic [3:0] pp;
  assign ap = {asel[1], asel[0] ^ (sw && !asel[1])};                  // Z0 Z1 SZ T1
  assign bp = {bsel[2:1], bsel[0] ^ (sw && bsel[2:1] == 2'd0)};       // X0 X1 SX PX T2 B PXA
  assign pp = {psel[3:2], psel[1] ^ (sw && psel[3:2] == 2'd0), psel[0]}; // X0 Z0 X1 Z1 T1 ..
  assign qp = (qsel == 3'd3 && sw) ? 3'd7 : qsel;                     // 0 T2 B X1 PY PX 1 X0

  // The operand and write-bus multiplexers matter only while busy (the registers take wbus under
  // busy_q, the multiplier steps only then): X otherwise, so synthesis adds no gating and a
  // simulator skips them in idle cycles.
  always_comb begin
    av   = 'x;
    bv   = 'x;
    lpv  = 'x;
    lqv  = 'x;
    linv = 'x;
    wbus = 'x;
    if (busy_q) begin
      case (ap)
        2'd0:    av = z0_q;
        2'd1:    av = z1_q;
        2'd2:    av = sz_q;
        default: av = t1_q;
      endcase
      case (bp)
        3'd0:    bv = x0_q;
        3'd1:    bv = x1_q;
        3'd2:    bv = sx_q;
        3'd3:    bv = px_q;
        3'd4:    bv = t2_q;
        3'd5:    bv = bconst;
        default: bv = {px_q[232:1], px_q[0] ^ ~kob_q};
      endcase
      case (pp)
        4'd0:    lpv = x0_q;
        4'd1:    lpv = z0_q;
        4'd2:    lpv = x1_q;
        4'd3:    lpv = z1_q;
        4'd4:    lpv = t1_q;
        4'd5:    lpv = t2_q;
        4'd6:    lpv = sx_q;
        4'd7:    lpv = sz_q;
        4'd8:    lpv = px_q;
        4'd9:    lpv = py_q;
        default: lpv = '0;
      endcase
      case (qp)
        3'd1:    lqv = t2_q;
        3'd2:    lqv = bconst;
        3'd3:    lqv = x1_q;
        3'd4:    lqv = py_q;
        3'd5:    lqv = px_q;
        3'd6:    lqv = 233'd1;
        3'd7:    lqv = x0_q;
        default: lqv = '0;
      endcase
      linv = lpv ^ lqv;
      // One write bus: a MUL's last cycle writes product + addp, any other write is the linear op.
      wbus = ({233{wr_m}} & prod) ^ (sqf ? gf_sqr(linv) : linv);
    end
  end

  // Digits of b, most significant first.
  always_comb begin
    bpad  = 'x;
    digit = 'x;
    if (busy_q) begin
      bpad        = '0;
      bpad[232:0] = bv;
      digit       = '0;
      for (int j = 0; j < N; j++)
        if (cnt32 == j) digit = bpad[(N-1-j)*D +: D];
    end
  end

  gf2m_mul #(.D(D), .KARA(KARA)) u_mul (
    .clk_i, .rst_ni,
    .en_i   (busy_q && (typ == 2'd1)),
    .first_i(first),
    .a_i    (av),
    .d_i    (digit),
    .p_o    (prod)
  );

  // Writes: the product on a MUL's last cycle, the linear result on the first cycle of a LIN/MUL
  // and on every cycle of a REP; never both in one cycle (N > 1), so they share the write bus.
  logic [3:0] wc;
  assign wr_m = busy_q && (typ == 2'd1) && last;
  assign wr_l = busy_q && (first || (typ == 2'd2));
  // A REP squares SZ in place after its first cycle.
  assign rep_on = (typ == 2'd2) && !first;
  assign psel   = wr_m ? addp : rep_on ? 4'd7 : lp;
  assign qsel   = (wr_m || rep_on) ? 3'd0 : lq;
  assign sqf  = !wr_m && lsq;
  assign wc   = wr_m ? wdst : wr_l ? ldst : 4'd0;

  // Physical destination decode of a logical code c (1 XD, 2 ZD, 3 XA, 4 ZA, 5 T1 .. 8 SZ).
  function automatic logic hit(input logic [3:0] c, input logic [3:0] want_d, input logic [3:0] want_a,
                               input logic s);
    hit = (c == want_d && !s) || (c == want_a && s);
  endfunction

  logic we_x0, we_z0, we_x1, we_z1;
  assign we_x0 = hit(wc, 4'd1, 4'd3, sw);
  assign we_x1 = hit(wc, 4'd3, 4'd1, sw);
  assign we_z0 = hit(wc, 4'd2, 4'd4, sw);
  assign we_z1 = hit(wc, 4'd4, 4'd2, sw);

  logic go;
  assign go = start_i && !busy_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      x0_q <= '0; z0_q <= '0; x1_q <= '0; z1_q <= '0; px_q <= '0; py_q <= '0;
      t1_q <= '0; t2_q <= '0; sx_q <= '0; sz_q <= '0; k_q <= '0;
      kob_q <= 1'b0; busy_q <= 1'b0; done_q <= 1'b0; outv_q <= 1'b0;
      bad_q <= 1'b0; inf_q <= 1'b0; neg_q <= 1'b0;
      pc_q <= '0; bit_q <= '0; cnt_q <= '0;
    end else begin
      done_q <= 1'b0;
      if (go) begin
        px_q  <= px_i;
        py_q  <= py_i;
        k_q   <= k_i;
        kob_q <= koblitz_i;
        busy_q <= 1'b1;
        outv_q <= 1'b0;
        pc_q  <= '0;
        bit_q <= 8'd232;
        cnt_q <= '0;
      end else if (busy_q) begin
        if (we_x0)      x0_q <= wbus;
        if (we_z0)      z0_q <= wbus;
        if (we_x1)      x1_q <= wbus;
        if (we_z1)      z1_q <= wbus;
        if (wc == 4'd5) t1_q <= wbus;
        if (wc == 4'd6) t2_q <= wbus;
        if (wc == 4'd7) sx_q <= wbus;
        if (wc == 4'd8) sz_q <= wbus;
        if (f_bad) bad_q <= (t2_q != '0) || (px_q == '0);
        if (f_inf) begin
          inf_q <= z0_q == '0;                // kP = O
          neg_q <= z1_q == '0;                // (k+1)P = O: kP = -P
        end
        if (last) begin
          cnt_q <= '0;
          if (f_end) begin
            busy_q <= 1'b0;
            done_q <= 1'b1;
            outv_q <= 1'b1;
          end else if (f_loop && bit_q != 8'd0) begin
            pc_q  <= PC_LAD;
            bit_q <= bit_q - 8'd1;
          end else begin
            pc_q <= pc_q + 6'd1;
          end
        end else begin
          cnt_q <= cnt_q + 7'd1;
        end
      end
    end
  end

  // ---- outputs: masked unless a result is valid --------------------------------------------
  logic ok;
  assign ok       = outv_q && !bad_q && !inf_q;
  assign busy_o   = busy_q;
  assign done_o   = done_q;
  assign status_o = !outv_q ? 2'd0 : bad_q ? 2'd1 : inf_q ? 2'd2 : 2'd0;
  assign rx_o     = {233{ok}} & (neg_q ? px_q : z0_q);
  assign ry_o     = {233{ok}} & (neg_q ? (px_q ^ py_q) : x0_q);

endmodule

`default_nettype wire
