// The HMAC input of a MAC-then-encrypt CBC record (RFC 5246 6.2.3.2), for the DMA's SEAL_CBC and
// OPEN_CBC: turns the record's plaintext, 16 bytes at a time, into the 64-byte blocks of the HMAC's
// inner hash over pseudo-header || plaintext, already padded (FIPS 180-4 5.1.1), for the SHA engine's
// BLOCK and KEEP commands.
//
// OPEN learns the plaintext's length from the padding, which is secret until the MAC has checked
// it (a padding oracle, and Lucky Thirteen's timing one: AlFardan and Paterson 2013). So nothing here
// depends on it in time: the stream is the whole decrypted body P' (plaintext || MAC || padding), the
// blocks emitted are as many as the longest plaintext P' could hold needs, each built with masks
// (plaintext byte, the 0x80 after the last one, zeros, the bit length in the block the plaintext
// really ends in), and that block is flagged KEEP (the others BLOCK, in the same cycles). Meanwhile
// the padding is checked, and the received MAC taken from wherever the length puts it (a rotation
// and 32 byte enables). A bad padding is taken as none, and the MAC computed all the same.
// SEAL's plaintext length is public; the same blocks, no checks.
`default_nettype none

module dma_cbcmac (
  input  wire logic         clk_i,
  input  wire logic         rst_ni,
  input  wire logic         start_i,     // a record begins: the four below are taken
  input  wire logic         wipe_i,      // the DMA's chain ends: nothing of the record stays
  input  wire logic         open_i,      // OPEN (the stream is P'); else SEAL (the stream is the plaintext)
  input  wire logic [87:0]  hdr_i,       // seq_num || type || version: the pseudo-header before its length
  input  wire logic [14:0]  n_i,         // OPEN: P''s bytes (a multiple of 16, >= 48); SEAL: the plaintext's
  input  wire logic [7:0]   pad_i,       // OPEN: P''s last byte, the padding length
  input  wire logic         in_valid_i,  // the next 16 bytes of the stream (bytes past its end: any)
  input  wire logic [127:0] in_i,        // byte 0 in [127:120]
  output logic              in_ready_o,
  output logic              blk_valid_o, // the next block of the inner hash
  output logic [511:0]      blk_o,       // byte 0 in [511:504]
  output logic              blk_keep_o,  // ... the one the message ends in: KEEP, else BLOCK
  input  wire logic         blk_pop_i,
  output logic              done_o,      // every input taken and every block out
  output logic [14:0]       len_o,       // the plaintext's bytes (OPEN: from the padding; if bad, n - 33)
  output logic              pad_ok_o,    // OPEN: the padding checks out
  output logic [255:0]      mac_o        // OPEN: the received MAC, byte 0 in [255:248]
);

  logic         open_q;
  logic [14:0]  n_q, len_q;
  logic [7:0]   pad_q;
  logic [10:0]  i_q, nin_q;       // 16-byte inputs taken, and expected
  logic [8:0]   j_q, nblk_q, fin_q; // blocks out, to emit, and the one the message ends in
  logic [7:0]   w_q [64];         // the block being assembled: message bytes 64 j ..
  logic [7:0]   c_q [13];         // ... and the 13 of the next block the fourth input brings
  logic         full_q;           // w_q is a whole block
  logic         bad_q;
  logic [7:0]   mac_q [32];

  // at start: the length the MAC covers and the block counts, all from n (public) and the padding
  logic [14:0] len_s, lmax_s;
  always_comb begin
    lmax_s = open_i ? n_i - 15'd33 : n_i;
    len_s  = (open_i && {7'd0, pad_i} + 15'd33 <= n_i) ? n_i - 15'd33 - {7'd0, pad_i} : lmax_s;
  end

  wire take = in_valid_i && in_ready_o;
  wire pop  = blk_pop_i && blk_valid_o;
  assign in_ready_o  = !full_q && i_q != nin_q;
  assign blk_valid_o = j_q != nblk_q && (full_q || i_q == nin_q);
  assign blk_keep_o  = j_q == fin_q;
  assign done_o      = i_q == nin_q && j_q == nblk_q;
  assign len_o       = len_q;
  assign pad_ok_o    = !bad_q;
  always_comb for (int d = 0; d < 32; d++) mac_o[255 - 8*d -: 8] = mac_q[d];

  // the block out: byte o is message byte 64 j + o while that is below 13 + len, then 0x80, zeros,
  // and in the block the message ends in, the bit length of the key block and the message
  logic signed [16:0] rel;  // 13 + len - 64 j: the first byte of this block past the message
  logic [63:0]        bits;
  always_comb begin
    rel  = $signed({2'b0, len_q} + 17'd13) - $signed({2'b0, j_q, 6'd0});
    bits = {46'd0, (len_q + 15'd77), 3'b000};
    for (int o = 0; o < 64; o++)
      if ($signed(17'(o)) < rel)       blk_o[511 - 8*o -: 8] = w_q[o];
      else if ($signed(17'(o)) == rel) blk_o[511 - 8*o -: 8] = 8'h80;
      else if (o >= 56 && blk_keep_o) blk_o[511 - 8*o -: 8] = bits[8*((63 - o) % 8) +: 8];
      else                             blk_o[511 - 8*o -: 8] = 8'h00;
  end

  // an input's bytes, and the received MAC's: byte d is P'[len + d], in the input len / 16 +
  // (len % 16 + d) / 16, at (len % 16 + d) % 16 of it: the input rotated by len % 16
  logic [7:0]  in_b [16];
  logic [7:0]  rot [16];
  logic [10:0] mac_at [32];
  always_comb begin
    for (int b = 0; b < 16; b++) begin
      in_b[b] = in_i[127 - 8*b -: 8];
    end
    for (int b = 0; b < 16; b++)
      rot[b] = in_b[len_q[3:0] + 4'(b)];
    for (int d = 0; d < 32; d++)
      mac_at[d] = len_q[14:4] + (({7'd0, len_q[3:0]} + 11'(d)) >> 4);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      open_q <= 1'b0;  n_q <= '0;  len_q <= '0;  pad_q <= '0;  i_q <= '0;  nin_q <= '0;
      j_q <= '0;  nblk_q <= '0;  fin_q <= '0;  full_q <= 1'b0;  bad_q <= 1'b0;
      for (int o = 0; o < 64; o++) w_q[o] <= '0;
      for (int o = 0; o < 13; o++) c_q[o] <= '0;
      for (int d = 0; d < 32; d++) mac_q[d] <= '0;
    end else if (wipe_i) begin
      open_q <= 1'b0;  n_q <= '0;  len_q <= '0;  pad_q <= '0;  i_q <= '0;  nin_q <= '0;
      j_q <= '0;  nblk_q <= '0;  fin_q <= '0;  full_q <= 1'b0;  bad_q <= 1'b0;
      for (int o = 0; o < 64; o++) w_q[o] <= '0;
      for (int o = 0; o < 13; o++) c_q[o] <= '0;
      for (int d = 0; d < 32; d++) mac_q[d] <= '0;
    end else if (start_i) begin
      open_q <= open_i;  n_q <= n_i;  len_q <= len_s;  pad_q <= pad_i;
      i_q <= '0;  nin_q <= open_i ? n_i[14:4] : 11'((n_i + 15'd15) >> 4);
      j_q <= '0;  nblk_q <= 9'(((lmax_s + 15'd21) >> 6) + 15'd1);  fin_q <= 9'((len_s + 15'd21) >> 6);
      full_q <= 1'b0;
      bad_q <= open_i && {7'd0, pad_i} + 15'd33 > n_i;
      for (int o = 0; o < 11; o++) w_q[o] <= hdr_i[87 - 8*o -: 8];
      w_q[11] <= {1'b0, len_s[14:8]};
      w_q[12] <= len_s[7:0];
      for (int d = 0; d < 32; d++) mac_q[d] <= '0;
    end else begin
      if (take) begin
        // placed after the 13-byte pseudo-header: inputs 0..2 of a block at 13, 29, 45; the
        // fourth's first three bytes end it, its other 13 begin the next
        for (int b = 0; b < 16; b++)
          case (i_q[1:0])
            2'd0: w_q[13 + b] <= in_b[b];
            2'd1: w_q[29 + b] <= in_b[b];
            2'd2: w_q[45 + b] <= in_b[b];
            default: if (b < 3) w_q[61 + b] <= in_b[b]; else c_q[b - 3] <= in_b[b];
          endcase
        i_q <= i_q + 11'd1;
        full_q <= i_q[1:0] == 2'd3;
        // OPEN: the padding's bytes P'[n - 1 - pad .. n - 1] all equal pad
        for (int b = 0; b < 16; b++)
          if (open_q && {i_q, 4'(b)} + {7'd0, pad_q} + 15'd1 >= n_q && in_b[b] != pad_q) bad_q <= 1'b1;
        for (int d = 0; d < 32; d++)
          if (open_q && i_q == mac_at[d]) mac_q[d] <= rot[d % 16];
      end
      if (pop) begin
        j_q <= j_q + 9'd1;
        full_q <= 1'b0;
        for (int o = 0; o < 13; o++) w_q[o] <= c_q[o];
      end
    end
  end

endmodule

`default_nettype wire
