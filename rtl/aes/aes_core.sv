// AES block cipher core (FIPS 197): one round per clock, cipher and inverse cipher, 128/192/256-bit
// keys, round keys computed on the fly in both directions; no bus.
`default_nettype none

module aes_core (
  input  wire logic         clk_i,
  input  wire logic         rst_ni,
  input  wire logic [1:0]   keylen_i,   // 0: 128, 1: 192, 2 (and 3): 256; stable while an operation runs
  // Key store. key_load_i (while ready_o) copies key_i; key_prep_i (while ready_o) runs the forward
  // schedule and replaces the store by the last round-key window, which the inverse cipher starts from.
  input  wire logic         key_load_i,
  input  wire logic [255:0] key_i,      // key byte 0 in [255:248]; a 128-bit key in [255:128]
  input  wire logic         key_prep_i,
  // Block operation: start_i (while ready_o) ciphers block_i; dec_i selects the inverse cipher.
  input  wire logic         start_i,
  input  wire logic         dec_i,
  input  wire logic [127:0] block_i,    // byte 0 in [127:120]
  output logic              ready_o,    // idle: start_i / key_load_i / key_prep_i are accepted
  output logic              valid_o,    // the last operation finished; result_o holds until the next start
  output logic [127:0]      result_o
);

  // ---- GF(2^8) inversion in the composite field GF((2^4)^2) ------------------------------------
  // GF(2^4) = GF(2)[x]/(x^4+x+1); GF(2^8) = GF(2^4)[y]/(y^2+y+Lambda), Lambda = x^3.
  // The 8x8 bit matrices map between the AES polynomial basis and the composite basis; the S-box
  // affine transform (or its inverse) is folded into them. Row i of a matrix is ROWS[8*i +: 8].
  localparam logic [63:0] MapIn     = 64'ha0acd27018fc04a1; // AES basis -> composite
  localparam logic [63:0] MapOut    = 64'h06d0ee3b25693f45; // composite -> AES basis, then affine A
  localparam logic [63:0] InvMapIn  = 64'hc67178f76f129262; // inverse affine, then -> composite
  localparam logic [63:0] InvMapOut = 64'hd48e54cac202b081; // composite -> AES basis

  function automatic logic [7:0] mat8(input logic [63:0] rows, input logic [7:0] x);
    for (int i = 0; i < 8; i++) mat8[i] = ^(rows[8*i +: 8] & x);
  endfunction

  function automatic logic [3:0] gf16_mul(input logic [3:0] a, input logic [3:0] b);
    logic [6:0] p;
    p[0] = a[0] & b[0];
    p[1] = (a[1] & b[0]) ^ (a[0] & b[1]);
    p[2] = (a[2] & b[0]) ^ (a[1] & b[1]) ^ (a[0] & b[2]);
    p[3] = (a[3] & b[0]) ^ (a[2] & b[1]) ^ (a[1] & b[2]) ^ (a[0] & b[3]);
    p[4] = (a[3] & b[1]) ^ (a[2] & b[2]) ^ (a[1] & b[3]);
    p[5] = (a[3] & b[2]) ^ (a[2] & b[3]);
    p[6] = a[3] & b[3];
    // x^4 = x + 1, x^5 = x^2 + x, x^6 = x^3 + x^2
    gf16_mul = {p[3] ^ p[6], p[2] ^ p[5] ^ p[6], p[1] ^ p[4] ^ p[5], p[0] ^ p[4]};
  endfunction

  function automatic logic [3:0] gf16_sq(input logic [3:0] a);
    gf16_sq = {a[3], a[1] ^ a[3], a[2], a[0] ^ a[2]};
  endfunction

  // Lambda * a^2 with Lambda = x^3 (linear).
  function automatic logic [3:0] gf16_sq_lambda(input logic [3:0] a);
    gf16_sq_lambda = gf16_mul(gf16_sq(a), 4'h8);
  endfunction

  function automatic logic [3:0] gf16_inv(input logic [3:0] a);
    case (a)
      4'h0: gf16_inv = 4'h0;  4'h1: gf16_inv = 4'h1;  4'h2: gf16_inv = 4'h9;  4'h3: gf16_inv = 4'he;
      4'h4: gf16_inv = 4'hd;  4'h5: gf16_inv = 4'hb;  4'h6: gf16_inv = 4'h7;  4'h7: gf16_inv = 4'h6;
      4'h8: gf16_inv = 4'hf;  4'h9: gf16_inv = 4'h2;  4'ha: gf16_inv = 4'hc;  4'hb: gf16_inv = 4'h5;
      4'hc: gf16_inv = 4'ha;  4'hd: gf16_inv = 4'h4;  4'he: gf16_inv = 4'h3;  default: gf16_inv = 4'h8;
    endcase
  endfunction

  // (h*y + l)^-1 = (h*y + h + l) / (Lambda*h^2 + h*l + l^2); 0 maps to 0.
  function automatic logic [7:0] gf256_inv(input logic [7:0] a);
    logic [3:0] d_inv;
    d_inv = gf16_inv(gf16_sq_lambda(a[7:4]) ^ gf16_mul(a[7:4], a[3:0]) ^ gf16_sq(a[3:0]));
    gf256_inv = {gf16_mul(a[7:4], d_inv), gf16_mul(a[7:4] ^ a[3:0], d_inv)};
  endfunction

  function automatic logic [7:0] sbox_fwd(input logic [7:0] x);
    sbox_fwd = mat8(MapOut, gf256_inv(mat8(MapIn, x))) ^ 8'h63;
  endfunction

  // S-box or inverse S-box around one shared inverter.
  function automatic logic [7:0] sbox_fi(input logic [7:0] x, input logic inv);
    logic [7:0] c;
    c = gf256_inv(inv ? mat8(InvMapIn, x ^ 8'h63) : mat8(MapIn, x));
    sbox_fi = inv ? mat8(InvMapOut, c) : (mat8(MapOut, c) ^ 8'h63);
  endfunction

  function automatic logic [7:0] xtime(input logic [7:0] a);
    xtime = {a[6:0], 1'b0} ^ (a[7] ? 8'h1b : 8'h00);
  endfunction

  function automatic logic [7:0] inv_xtime(input logic [7:0] a);
    inv_xtime = {1'b0, a[7:1]} ^ (a[0] ? 8'h8d : 8'h00);
  endfunction

  function automatic logic [31:0] sub_word(input logic [31:0] w);
    sub_word = {sbox_fwd(w[31:24]), sbox_fwd(w[23:16]), sbox_fwd(w[15:8]), sbox_fwd(w[7:0])};
  endfunction

  // MixColumns on one column, a0 in [31:24].
  function automatic logic [31:0] mix_col(input logic [31:0] c);
    logic [7:0] a0, a1, a2, a3, t;
    {a0, a1, a2, a3} = c;
    t = a0 ^ a1 ^ a2 ^ a3;
    mix_col = {a0 ^ t ^ xtime(a0 ^ a1), a1 ^ t ^ xtime(a1 ^ a2),
               a2 ^ t ^ xtime(a2 ^ a3), a3 ^ t ^ xtime(a3 ^ a0)};
  endfunction

  // InvMixColumns = MixColumns after this cheap linear step (multiplication by 04x^2 + 05).
  function automatic logic [31:0] inv_mix_pre(input logic [31:0] c);
    logic [7:0] u, v;
    u = xtime(xtime(c[31:24] ^ c[15:8]));
    v = xtime(xtime(c[23:16] ^ c[7:0]));
    inv_mix_pre = c ^ {u, v, u, v};
  endfunction

  // ---- state -----------------------------------------------------------------------------------
  logic [255:0] key_q, key_d;   // key store: the key, or after key_prep_i the last round-key window
  logic [255:0] kw_q, kw_d;     // round-key window w[4r .. 4r+Nk-1], w[4r] in [255:224]
  logic [127:0] s_q, s_d;       // cipher state, byte 0 in [127:120]
  logic [7:0]   rcon_q, rcon_d; // forward: next Rcon to use; backward: the one after the last used
  logic [3:0]   cnt_q, cnt_d;   // round of the running operation (1..Nr), 0 when idle
  logic         busy_q, busy_d, valid_q, valid_d, dec_q, dec_d, prep_q, prep_d;

  logic [3:0] nr;
  always_comb begin
    case (keylen_i)
      2'd0:    nr = 4'd10;
      2'd1:    nr = 4'd12;
      default: nr = 4'd14;
    endcase
  end

  // ---- key schedule step (forward: window r -> r+1, backward: r -> r-1) ------------------------
  // The narrow controls are combinational; the 256-bit step itself (key_step) and the round
  // (aes_round) are functions called only in the branch of the next-state logic that registers
  // their result, so a simulator spends nothing on them while the core is idle.
  logic         launch;           // an operation starts this cycle (sources are the key store)
  logic         bwd;              // step direction
  logic [7:0]   rcon_src, rcon_use;
  logic [3:0]   step;             // index s of the forward step s -> s+1 (backward: its inverse)
  logic         use_f, f_at2, f_rot;

  always_comb begin
    launch   = ~busy_q & (start_i | key_prep_i);
    bwd      = launch ? (start_i & dec_i) : (dec_q & ~prep_q);
    // Rcon after a full forward schedule: 10 uses (128), 8 (192), 7 (256).
    if (!launch)      rcon_src = rcon_q;
    else if (!bwd)    rcon_src = 8'h01;
    else if (keylen_i == 2'd0) rcon_src = 8'h6c;
    else if (keylen_i == 2'd1) rcon_src = 8'h1b;
    else              rcon_src = 8'h80;
    step     = bwd ? (nr - 4'd1 - cnt_q) : cnt_q;

    // Where the S-boxed word enters the four new words: Nk=4 always at offset 0 with RotWord and
    // Rcon; Nk=6 at offset 0 (s%3==0), offset 2 (s%3==1) or nowhere; Nk=8 at offset 0, with
    // RotWord/Rcon on even steps and SubWord alone on odd ones.
    use_f = 1'b1;
    f_at2 = 1'b0;
    f_rot = 1'b1;
    case (keylen_i)
      2'd0: ;
      2'd1: begin
        case (step)
          4'd1, 4'd4, 4'd7, 4'd10: f_at2 = 1'b1;
          4'd2, 4'd5, 4'd8, 4'd11: use_f = 1'b0;
          default: ;
        endcase
      end
      default: f_rot = ~step[0];
    endcase

    rcon_use = bwd ? inv_xtime(rcon_src) : rcon_src;
    if (use_f & f_rot) rcon_d = bwd ? rcon_use : xtime(rcon_src);
    else               rcon_d = rcon_src;
  end

  // The window after one step of win.
  function automatic logic [255:0] key_step(input logic [255:0] win, input logic [1:0] klen,
                                            input logic bwd_s, input logic use_f_s,
                                            input logic f_at2_s, input logic f_rot_s,
                                            input logic [7:0] rcon_s);
    logic [31:0] k0, k1, k2, k3, k4, k5, k6, k7, t0, t1, t2, t3, p0, sub_in, f;
    logic [31:0] n0, n1, n2, n3, m0, m1, m2, m3;
    {k0, k1, k2, k3, k4, k5, k6, k7} = win;
    // t0..t3 = w[4r+Nk-4 .. 4r+Nk-1], the top four words of the window; p0 = w[4r+Nk-5].
    case (klen)
      2'd0:    begin {t0, t1, t2, t3} = {k0, k1, k2, k3}; p0 = k3 ^ k2; end
      2'd1:    begin {t0, t1, t2, t3} = {k2, k3, k4, k5}; p0 = k1;      end
      default: begin {t0, t1, t2, t3} = {k4, k5, k6, k7}; p0 = k3;      end
    endcase

    // Forward: n_o = w[4r+Nk+o]; backward: m_o = w[4r-4+o].
    if (bwd_s) sub_in = f_at2_s ? t1 : p0;
    else       sub_in = f_at2_s ? (k0 ^ k1 ^ t3) : t3;
    f = sub_word(sub_in);
    if (f_rot_s) f = {f[23:0], f[31:24]} ^ {rcon_s, 24'h0};

    n0 = k0 ^ ((use_f_s & ~f_at2_s) ? f : t3);
    n1 = k1 ^ n0;
    n2 = k2 ^ ((use_f_s & f_at2_s) ? f : n1);
    n3 = k3 ^ n2;
    m3 = t3 ^ t2;
    m2 = t2 ^ ((use_f_s & f_at2_s) ? f : t1);
    m1 = t1 ^ t0;
    m0 = t0 ^ ((use_f_s & ~f_at2_s) ? f : p0);

    if (bwd_s) begin
      case (klen)
        2'd0:    key_step = {m0, m1, m2, m3, m0, m1, m2, m3};
        2'd1:    key_step = {m0, m1, m2, m3, k0, k1, k4, k5};
        default: key_step = {m0, m1, m2, m3, k0, k1, k2, k3};
      endcase
    end else begin
      case (klen)
        2'd0:    key_step = {n0, n1, n2, n3, n0, n1, n2, n3};
        2'd1:    key_step = {k4, k5, n0, n1, n2, n3, k6, k7};
        default: key_step = {k4, k5, k6, k7, n0, n1, n2, n3};
      endcase
    end
  endfunction

  // ---- one round (encrypt: SubBytes, ShiftRows, MixColumns, AddRoundKey;
  //      decrypt: InvShiftRows, InvSubBytes, AddRoundKey, InvMixColumns) -------------------------
  function automatic logic [127:0] aes_round(input logic [127:0] s, input logic [127:0] rk,
                                             input logic dec, input logic lst);
    logic [127:0] sr, sb, ak, mc_in, mc, rnd;
    for (int c = 0; c < 4; c++) begin
      for (int r = 0; r < 4; r++) begin
        // byte (r, c) is at [127 - 8*(4c + r) -: 8]
        sr[127 - 8*(4*c + r) -: 8] = dec ? s[127 - 8*(4*((c + 4 - r) % 4) + r) -: 8]
                                         : s[127 - 8*(4*((c + r) % 4) + r) -: 8];
      end
    end
    for (int i = 0; i < 16; i++) sb[8*i +: 8] = sbox_fi(sr[8*i +: 8], dec);
    ak = dec ? (sb ^ rk) : sb;
    for (int c = 0; c < 4; c++) begin
      mc_in[32*c +: 32] = dec ? inv_mix_pre(ak[32*c +: 32]) : ak[32*c +: 32];
      mc[32*c +: 32]    = mix_col(mc_in[32*c +: 32]);
    end
    rnd = lst ? ak : mc;
    if (!dec) rnd = rnd ^ rk;
    aes_round = rnd;
  endfunction

  // ---- control ---------------------------------------------------------------------------------
  // Each wide register has a single next-value selection (keeps the multiplexers few).
  logic start, prep, finish, last;
  always_comb begin
    last   = (cnt_q == nr);
    start  = ~busy_q & start_i;
    prep   = ~busy_q & ~start_i & key_prep_i;
    finish = busy_q & last;
    kw_d   = kw_q;
    if (busy_q | launch)
      kw_d = key_step(launch ? key_q : kw_q, keylen_i, bwd, use_f, f_at2, f_rot, rcon_use);
    if (start)                 s_d = block_i ^ key_q[255:128];
    else if (busy_q & ~prep_q) s_d = aes_round(s_q, kw_q[255:128], dec_q, last);
    else                       s_d = s_q;
    if (~busy_q & ~start_i & ~key_prep_i & key_load_i) key_d = key_i;
    else if (finish & prep_q)                          key_d = kw_q;
    else                                               key_d = key_q;
    cnt_d   = launch ? 4'd1 : (finish ? 4'd0 : (busy_q ? cnt_q + 4'd1 : cnt_q));
    busy_d  = launch | (busy_q & ~last);
    valid_d = finish | (valid_q & ~launch & ~(~busy_q & key_load_i));
    dec_d   = start ? dec_i : (prep ? 1'b0 : dec_q);
    prep_d  = launch ? prep : prep_q;
  end

  // Datapath registers carry no reset; control does.
  always_ff @(posedge clk_i) begin
    key_q <= key_d;
    kw_q  <= kw_d;
    s_q   <= s_d;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rcon_q  <= 8'h01;
      cnt_q   <= 4'd0;
      busy_q  <= 1'b0;
      valid_q <= 1'b0;
      dec_q   <= 1'b0;
      prep_q  <= 1'b0;
    end else begin
      rcon_q  <= (busy_q | launch) ? rcon_d : rcon_q;
      cnt_q   <= cnt_d;
      busy_q  <= busy_d;
      valid_q <= valid_d;
      dec_q   <= dec_d;
      prep_q  <= prep_d;
    end
  end

  assign ready_o  = ~busy_q;
  assign valid_o  = valid_q;
  assign result_o = s_q;

endmodule

`default_nettype wire
