// GHASH multiplier for GCM (SP 800-38D): Y := (Y ^ X) * H in GF(2^128), 16-bit digits, 8 cycles.
`default_nettype none

module aes_ghash (
  input  wire logic         clk_i,
  input  wire logic         rst_ni,
  input  wire logic         h_we_i,    // load the hash subkey H = E_K(0^128)
  input  wire logic [127:0] h_i,
  input  wire logic         clear_i,   // Y := 0 (aborts a running multiplication)
  input  wire logic         start_i,   // while ready_o: Y := (Y ^ block_i) * H
  input  wire logic [127:0] block_i,   // byte 0 in [127:120]
  output logic              ready_o,
  output logic [127:0]      y_o        // valid while ready_o
);

  // GCM bit order: the coefficient of x^i is bit 127-i of the block, so multiplying by x is a
  // right shift, reduced by R = 11100001 || 0^120 when x^127 falls off.
  localparam logic [127:0] R = {8'he1, 120'h0};

  function automatic logic [127:0] mul_x(input logic [127:0] v);
    mul_x = {1'b0, v[127:1]} ^ (v[0] ? R : 128'h0);
  endfunction

  logic [127:0] h_q, z_q, z_d, x_q, x_d;
  logic [2:0]   cnt_q, cnt_d;
  logic         busy_q, busy_d;

  // Horner over 16-coefficient digits, highest degrees first: x_q[15:0] holds the coefficients of
  // x^(16k+15) .. x^(16k) (bit 15-j is the coefficient of x^(16k+j)), so Z := Z*x^16 + D(x)*H.
  // A function, called only in the branch of the next-state logic that uses it (busy), so a
  // simulator spends nothing on it while GHASH is idle.
  function automatic logic [127:0] horner_step(input logic [127:0] z, input logic [127:0] h,
                                               input logic [15:0] dig);
    logic [127:0] acc, hv;  // hv = H * x^j
    acc = z;
    for (int j = 0; j < 16; j++) acc = mul_x(acc);
    hv = h;
    for (int j = 0; j < 16; j++) begin
      acc = acc ^ (hv & {128{dig[15-j]}});
      hv  = mul_x(hv);
    end
    horner_step = acc;
  endfunction

  always_comb begin
    z_d    = z_q;
    x_d    = x_q;
    cnt_d  = cnt_q;
    busy_d = busy_q;
    if (clear_i) begin
      z_d    = 128'h0;
      cnt_d  = 3'd0;
      busy_d = 1'b0;
    end else if (busy_q) begin
      z_d    = horner_step(z_q, h_q, x_q[15:0]);
      x_d    = {16'h0, x_q[127:16]};
      cnt_d  = cnt_q + 3'd1;
      busy_d = (cnt_q != 3'd7);
    end else if (start_i) begin
      x_d    = z_q ^ block_i;
      z_d    = 128'h0;
      busy_d = 1'b1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (h_we_i) h_q <= h_i;
    z_q <= z_d;
    x_q <= x_d;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q  <= 3'd0;
      busy_q <= 1'b0;
    end else begin
      cnt_q  <= cnt_d;
      busy_q <= busy_d;
    end
  end

  assign ready_o = ~busy_q;
  assign y_o     = z_q;

endmodule

`default_nettype wire
