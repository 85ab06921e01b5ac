// SHA-256 compression core (FIPS 180-4): one round per cycle, no bus; 65 cycles per block.
`default_nettype none

module sha256_core (
  input  wire logic         clk_i,
  input  wire logic         rst_ni,
  // Pulse for one cycle while ready_o: init_i starts a message from the standard IV,
  // next_i chains block_i onto the current digest, load_i compresses block_i onto chain_i
  // (an HMAC pad state). block_i[511:480] is the first word.
  input  wire logic         init_i,
  input  wire logic         next_i,
  input  wire logic         load_i,
  input  wire logic [255:0] chain_i,
  input  wire logic [511:0] block_i,
  output logic              ready_o,
  output logic [255:0]      digest_o,      // H0 in [255:224]
  output logic              digest_valid_o
);

  localparam logic [255:0] IV = {
    32'h6a09e667, 32'hbb67ae85, 32'h3c6ef372, 32'ha54ff53a,
    32'h510e527f, 32'h9b05688c, 32'h1f83d9ab, 32'h5be0cd19
  };

  // Round constants, K[0] in the top word.
  localparam logic [64*32-1:0] K = {
    32'h428a2f98, 32'h71374491, 32'hb5c0fbcf, 32'he9b5dba5, 32'h3956c25b, 32'h59f111f1,
    32'h923f82a4, 32'hab1c5ed5, 32'hd807aa98, 32'h12835b01, 32'h243185be, 32'h550c7dc3,
    32'h72be5d74, 32'h80deb1fe, 32'h9bdc06a7, 32'hc19bf174, 32'he49b69c1, 32'hefbe4786,
    32'h0fc19dc6, 32'h240ca1cc, 32'h2de92c6f, 32'h4a7484aa, 32'h5cb0a9dc, 32'h76f988da,
    32'h983e5152, 32'ha831c66d, 32'hb00327c8, 32'hbf597fc7, 32'hc6e00bf3, 32'hd5a79147,
    32'h06ca6351, 32'h14292967, 32'h27b70a85, 32'h2e1b2138, 32'h4d2c6dfc, 32'h53380d13,
    32'h650a7354, 32'h766a0abb, 32'h81c2c92e, 32'h92722c85, 32'ha2bfe8a1, 32'ha81a664b,
    32'hc24b8b70, 32'hc76c51a3, 32'hd192e819, 32'hd6990624, 32'hf40e3585, 32'h106aa070,
    32'h19a4c116, 32'h1e376c08, 32'h2748774c, 32'h34b0bcb5, 32'h391c0cb3, 32'h4ed8aa4a,
    32'h5b9cca4f, 32'h682e6ff3, 32'h748f82ee, 32'h78a5636f, 32'h84c87814, 32'h8cc70208,
    32'h90befffa, 32'ha4506ceb, 32'hbef9a3f7, 32'hc67178f2
  };

  function automatic logic [31:0] k_of(input logic [5:0] i);
    k_of = K[(6'd63 - i) * 32 +: 32];
  endfunction

  function automatic logic [31:0] rotr(input logic [31:0] x, input integer n);
    rotr = (x >> n) | (x << (32 - n));
  endfunction

  logic [255:0] h_q, h_d;          // chaining value
  logic [255:0] s_q, s_d;          // working variables a..h, a in [255:224]
  logic [511:0] w_q, w_d;          // W[t..t+15], W[t] in [511:480]
  logic [5:0]   round_q, round_d;
  logic         busy_q, busy_d;
  logic         valid_q, valid_d;

  // One round on the working variables with schedule word w0 and constant k. The round and the
  // schedule step are functions, called only in the branch of the next-state logic that runs a
  // round, so a simulator spends nothing on them while the core is idle.
  function automatic logic [255:0] sha_round(input logic [255:0] s, input logic [31:0] w0,
                                             input logic [31:0] k);
    logic [31:0] a, b, c, d, e, f, g, h, t1, t2;
    {a, b, c, d, e, f, g, h} = s;
    t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k + w0;
    t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    sha_round = {t1 + t2, a, b, c, d + t1, e, f, g};
  endfunction

  // W[t+16] = s1(W[t+14]) + W[t+9] + s0(W[t+1]) + W[t]
  function automatic logic [31:0] sched(input logic [31:0] w14, input logic [31:0] w9,
                                        input logic [31:0] w1, input logic [31:0] w0);
    sched = (rotr(w14, 17) ^ rotr(w14, 19) ^ (w14 >> 10)) + w9 +
            (rotr(w1, 7) ^ rotr(w1, 18) ^ (w1 >> 3)) + w0;
  endfunction

  // Adds two 256-bit states word by word (the feed-forward of the chaining value).
  function automatic logic [255:0] add8(input logic [255:0] x, input logic [255:0] y);
    logic [255:0] r;
    for (int i = 0; i < 8; i++) r[32*i +: 32] = x[32*i +: 32] + y[32*i +: 32];
    add8 = r;
  endfunction

  always_comb begin
    h_d     = h_q;
    s_d     = s_q;
    w_d     = w_q;
    round_d = round_q;
    busy_d  = busy_q;
    valid_d = valid_q;
    if (!busy_q && (init_i || next_i || load_i)) begin
      h_d     = load_i ? chain_i : init_i ? IV : h_q;
      s_d     = h_d;
      w_d     = block_i;
      round_d = 6'd0;
      busy_d  = 1'b1;
      valid_d = 1'b0;
    end else if (busy_q) begin
      s_d     = sha_round(s_q, w_q[511:480], k_of(round_q));
      w_d     = {w_q[479:0], sched(w_q[63:32], w_q[223:192], w_q[479:448], w_q[511:480])};
      round_d = round_q + 6'd1;
      if (round_q == 6'd63) begin
        h_d     = add8(h_q, s_d);
        busy_d  = 1'b0;
        valid_d = 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      h_q     <= '0;
      s_q     <= '0;
      w_q     <= '0;
      round_q <= '0;
      busy_q  <= 1'b0;
      valid_q <= 1'b0;
    end else begin
      h_q     <= h_d;
      s_q     <= s_d;
      w_q     <= w_d;
      round_q <= round_d;
      busy_q  <= busy_d;
      valid_q <= valid_d;
    end
  end

  assign ready_o        = !busy_q;
  assign digest_o       = h_q;
  assign digest_valid_o = valid_q;

endmodule

`default_nettype wire
