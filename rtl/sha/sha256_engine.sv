// SHA-256 / HMAC-SHA256 engine: command sequencer, hardware padding and held HMAC key states around sha256_core.
// RESUME continues a plain SHA-256 from a chaining value the driver supplies, and between the blocks of
// a plain SHA-256 the chaining value is readable: software can run its own SHA-256 contexts (a running
// transcript, HMAC, a DRBG) one compression at a time on the engine. Neither is possible for an HMAC,
// whose chaining values are the key's.
// KEEP and OUTER end an HMAC whose length is secret in constant time (a TLS CBC record's, RFC 5246
// 6.2.3.2, against Lucky Thirteen): the caller pads every block itself and sends as many as the longest
// message needs, KEEP for the one the message really ends in (the chaining value after it is kept) and
// BLOCK for the others, which take the same cycles; OUTER then runs the outer hash over the kept value.
`default_nettype none

module sha256_engine (
  input  wire logic         clk_i,
  input  wire logic         rst_ni,
  input  wire logic         hmac_i,       // sampled with INIT: 0 SHA-256, 1 HMAC with the held key
  input  wire logic         cmd_valid_i,
  input  wire logic [2:0]   cmd_i,        // 1 INIT, 2 BLOCK, 3 FINAL, 4 KEY, 5 RESUME, 6 KEEP, 7 OUTER
  input  wire logic [511:0] din_i,        // byte 0 in [511:504]
  input  wire logic [6:0]   din_bytes_i,  // FINAL: 0..63 message bytes in din_i
  output logic              cmd_ready_o,
  output logic [255:0]      digest_o,     // H0 in [255:224]; zero unless digest_valid_o or state_valid_o
  output logic              digest_valid_o,
  output logic              state_valid_o,  // digest_o is the chaining value after a plain SHA-256's BLOCK
  output logic              key_valid_o,
  output logic              busy_o,
  output logic              done_o,       // one-cycle pulse per finished command
  output logic [2:0]        status_o      // of the last finished command
);

  localparam logic [2:0] CmdInit  = 3'd1;
  localparam logic [2:0] CmdBlock = 3'd2;
  localparam logic [2:0] CmdFinal = 3'd3;
  localparam logic [2:0] CmdKey   = 3'd4;
  localparam logic [2:0] CmdResume = 3'd5;  // din_i: chaining value [511:256], blocks hashed so far [255:192]
  localparam logic [2:0] CmdKeep  = 3'd6;  // a BLOCK whose resulting chaining value is kept
  localparam logic [2:0] CmdOuter = 3'd7;  // an HMAC's outer hash over the kept value; din_i unused

  localparam logic [2:0] StOk        = 3'd0;
  localparam logic [2:0] StBadSeq    = 3'd4;
  localparam logic [2:0] StBadLength = 3'd5;

  // Sequencer phase: which compression the core is running.
  localparam logic [2:0] PhIdle = 3'd0;
  localparam logic [2:0] PhBlk  = 3'd1;  // a BLOCK
  localparam logic [2:0] PhFin1 = 3'd2;  // FINAL: the block holding the last bytes
  localparam logic [2:0] PhFin2 = 3'd3;  // FINAL: the extra length-only block
  localparam logic [2:0] PhOut  = 3'd4;  // HMAC outer hash
  localparam logic [2:0] PhKey1 = 3'd5;  // KEY: K ^ ipad
  localparam logic [2:0] PhKey2 = 3'd6;  // KEY: K ^ opad

  // One command slot: the command and its data wait here until the sequencer takes them,
  // so the driver can hand over the next block while the core compresses this one.
  logic         pend_q, pend_d;
  logic [2:0]   pcmd_q;
  logic         phmac_q;
  logic [6:0]   pbytes_q;
  logic [511:0] blk_q;                   // latched din_i; bytes past din_bytes_i of a FINAL are zero

  logic [2:0]   ph_q, ph_d;
  logic         msg_q, msg_d;            // between INIT and FINAL
  logic         first_q, first_d;        // no block of this message compressed yet
  logic         hm_q, hm_d;              // this message is an HMAC
  logic         res_q, res_d;            // this message was resumed: its first block chains from ipad_q
  logic         ipad_res;                // RESUME: ipad_q takes the supplied chaining value
  logic         fin_q, fin_d;            // digest_o holds a result
  logic         kv_q, kv_d;              // ipad_q/opad_q hold a key's states
  logic [54:0]  cnt_q, cnt_d;            // 64-byte blocks hashed so far (an HMAC counts the key block)
  logic [5:0]   nb_q, nb_d;              // FINAL's byte count, for the length-only block
  logic [255:0] ipad_q, opad_q;          // chaining states after K^ipad, K^opad
  logic         keep_q, keep_d;          // the BLOCK compressing is a KEEP
  logic [255:0] kept_q;                  // the chaining value after the last KEEP
  logic         kept_we, kept_clr, okept; // ... taken, wiped (OUTER, INIT, KEY, RESUME); OUTER hashes it
  logic         ipad_we, opad_we;
  logic         done_d, done_q;
  logic [2:0]   status_d, status_q;

  // Core interface.
  logic         core_init, core_next, core_load, core_ready, core_valid;
  logic         chain_opad;
  logic [255:0] core_h;
  logic [511:0] core_block;

  // Block assembly controls.
  logic         pad_ipad, pad_opad;      // XOR the latched block with the HMAC pads (KEY)
  logic         mark_en, len_en, outer;  // 0x80 marker, 64-bit length, inner digest for the outer hash
  logic         blk_clr;                 // the latched block has been handed to the core

  wire logic accept = cmd_valid_i && cmd_ready_o;

  // ---- command slot -----------------------------------------------------------------------
  // FINAL's unused bytes are cleared as they are latched, so no later mask is needed.
  function automatic logic [511:0] keep_mask(input logic fin, input logic [6:0] nbytes);
    for (int i = 0; i < 64; i++) begin
      keep_mask[8*(63 - i) +: 8] = {8{!fin || ({25'd0, nbytes} > i)}};
    end
  endfunction

  always_ff @(posedge clk_i) begin
    if (accept)       blk_q <= cmd_i == CmdOuter ? '0 : din_i & keep_mask(cmd_i == CmdFinal, din_bytes_i);
    else if (blk_clr) blk_q <= '0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pcmd_q   <= '0;
      phmac_q  <= 1'b0;
      pbytes_q <= '0;
    end else if (accept) begin
      pcmd_q   <= cmd_i;
      phmac_q  <= hmac_i;
      pbytes_q <= din_bytes_i;
    end
  end

  // ---- sequencer ---------------------------------------------------------------------------
  wire logic fin_len_ok = (pbytes_q < 7'd64);
  // A BLOCK, a KEEP or a well-formed FINAL may start as the previous BLOCK ends (65 cycles per block);
  // anything else waits for an idle cycle so two commands never finish in the same cycle.
  wire logic chain_ok   = pcmd_q == CmdBlock || pcmd_q == CmdKeep || (pcmd_q == CmdFinal && fin_len_ok);
  wire logic take       = pend_q && core_ready &&
                          (ph_q == PhIdle || (ph_q == PhBlk && chain_ok));

  always_comb begin
    pend_d     = pend_q;
    ph_d       = ph_q;
    msg_d      = msg_q;
    first_d    = first_q;
    hm_d       = hm_q;
    res_d      = res_q;
    ipad_res   = 1'b0;
    fin_d      = fin_q;
    kv_d       = kv_q;
    cnt_d      = cnt_q;
    nb_d       = nb_q;
    done_d     = 1'b0;
    status_d   = status_q;
    ipad_we    = 1'b0;
    opad_we    = 1'b0;
    core_init  = 1'b0;
    core_next  = 1'b0;
    core_load  = 1'b0;
    chain_opad = 1'b0;
    pad_ipad   = 1'b0;
    pad_opad   = 1'b0;
    mark_en    = 1'b0;
    len_en     = 1'b0;
    outer      = 1'b0;
    blk_clr    = 1'b0;
    keep_d     = keep_q;
    kept_we    = 1'b0;
    kept_clr   = 1'b0;
    okept      = 1'b0;

    // A compression has ended: finish the command or start its next block.
    if (core_ready) begin
      unique case (ph_q)
        PhBlk: begin
          kept_we  = keep_q;
          done_d   = 1'b1;
          status_d = StOk;
          ph_d     = PhIdle;
        end
        PhFin1, PhFin2: begin
          if (ph_q == PhFin1 && nb_q > 6'd55) begin
            core_next = 1'b1;          // length-only block
            len_en    = 1'b1;
            ph_d      = PhFin2;
          end else if (hm_q) begin
            core_load  = 1'b1;         // outer hash from the opad state over the inner digest
            chain_opad = 1'b1;
            outer      = 1'b1;
            mark_en    = 1'b1;
            len_en     = 1'b1;
            ph_d       = PhOut;
          end else begin
            fin_d    = 1'b1;
            done_d   = 1'b1;
            status_d = StOk;
            ph_d     = PhIdle;
          end
        end
        PhOut: begin
          kept_clr = 1'b1;
          fin_d    = 1'b1;
          done_d   = 1'b1;
          status_d = StOk;
          ph_d     = PhIdle;
        end
        PhKey1: begin
          ipad_we   = 1'b1;
          core_init = 1'b1;
          pad_opad  = 1'b1;
          blk_clr   = 1'b1;            // the raw key leaves the engine with this start
          ph_d      = PhKey2;
        end
        PhKey2: begin
          opad_we  = 1'b1;
          kv_d     = 1'b1;
          done_d   = 1'b1;
          status_d = StOk;
          ph_d     = PhIdle;
        end
        default: ;
      endcase
    end

    // Take the waiting command.
    if (take) begin
      pend_d  = 1'b0;
      blk_clr = 1'b1;
      unique case (pcmd_q)
        CmdInit: begin
          if (phmac_q && !kv_q) begin
            status_d = StBadSeq;
          end else begin
            kept_clr = 1'b1;
            msg_d    = 1'b1;
            first_d  = 1'b1;
            hm_d     = phmac_q;
            res_d    = 1'b0;
            fin_d    = 1'b0;
            cnt_d    = {54'd0, phmac_q};
            status_d = StOk;
          end
          done_d = 1'b1;
        end
        CmdResume: begin
          // A plain SHA-256 from the given chaining value. The value is kept in ipad_q, so a
          // held HMAC key is gone (KEY_VALID drops): an HMAC needs KEY again.
          ipad_res = 1'b1;
          kept_clr = 1'b1;
          kv_d     = 1'b0;
          msg_d    = 1'b1;
          first_d  = 1'b1;
          hm_d     = 1'b0;
          res_d    = 1'b1;
          fin_d    = 1'b0;
          cnt_d    = blk_q[246:192];
          status_d = StOk;
          done_d   = 1'b1;
        end
        CmdBlock, CmdKeep, CmdFinal: begin
          if (!msg_q) begin
            status_d = StBadSeq;
            done_d   = 1'b1;
          end else if (pcmd_q == CmdFinal && !fin_len_ok) begin
            status_d = StBadLength;
            done_d   = 1'b1;
          end else begin
            // The first block starts from the IV or the ipad state, later ones chain.
            core_init = first_q && !hm_q && !res_q;
            core_load = first_q && (hm_q || res_q);
            core_next = !first_q;
            first_d   = 1'b0;
            if (pcmd_q != CmdFinal) begin
              cnt_d  = cnt_q + 55'd1;
              ph_d   = PhBlk;
              keep_d = pcmd_q == CmdKeep;
            end else begin
              nb_d    = pbytes_q[5:0];
              mark_en = 1'b1;
              len_en  = pbytes_q < 7'd56;
              msg_d   = 1'b0;
              ph_d    = PhFin1;
            end
          end
        end
        CmdKey: begin
          // Refused during an HMAC (its key states are in use); a plain message is ended.
          if (msg_q && hm_q) begin
            status_d = StBadSeq;
            done_d   = 1'b1;
          end else begin
            kept_clr  = 1'b1;
            msg_d     = 1'b0;
            kv_d      = 1'b0;
            res_d     = 1'b0;
            fin_d     = 1'b0;
            core_init = 1'b1;
            pad_ipad  = 1'b1;
            blk_clr   = 1'b0;          // K ^ opad is the next block
            ph_d      = PhKey1;
          end
        end
        CmdOuter: begin
          // Only inside an HMAC, after its blocks: the outer hash from the opad state.
          if (!msg_q || !hm_q) begin
            status_d = StBadSeq;
            done_d   = 1'b1;
          end else begin
            core_load  = 1'b1;
            chain_opad = 1'b1;
            outer      = 1'b1;
            okept      = 1'b1;
            mark_en    = 1'b1;
            len_en     = 1'b1;
            msg_d      = 1'b0;
            ph_d       = PhOut;
          end
        end
        default: begin
          status_d = StBadSeq;
          done_d   = 1'b1;
        end
      endcase
    end
    if (accept) pend_d = 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pend_q   <= 1'b0;
      ph_q     <= PhIdle;
      msg_q    <= 1'b0;
      first_q  <= 1'b0;
      hm_q     <= 1'b0;
      res_q    <= 1'b0;
      fin_q    <= 1'b0;
      kv_q     <= 1'b0;
      cnt_q    <= '0;
      nb_q     <= '0;
      keep_q   <= 1'b0;
      done_q   <= 1'b0;
      status_q <= StOk;
    end else begin
      pend_q   <= pend_d;
      ph_q     <= ph_d;
      msg_q    <= msg_d;
      first_q  <= first_d;
      hm_q     <= hm_d;
      res_q    <= res_d;
      fin_q    <= fin_d;
      kv_q     <= kv_d;
      cnt_q    <= cnt_d;
      nb_q     <= nb_d;
      keep_q   <= keep_d;
      done_q   <= done_d;
      status_q <= status_d;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ipad_q <= '0;
      opad_q <= '0;
      kept_q <= '0;
    end else begin
      if (kept_clr)     kept_q <= '0;
      else if (kept_we) kept_q <= core_h;
      if (ipad_res)     ipad_q <= blk_q[511:256];
      else if (ipad_we) ipad_q <= core_h;
      if (opad_we) opad_q <= core_h;
    end
  end

  // ---- block assembly ----------------------------------------------------------------------
  // block = (latched ^ pad) | inner digest | 0x80 marker | 64-bit bit length. The sources never
  // overlap: a FINAL's latched bytes stop before the marker, the length only goes into a block
  // whose last 8 bytes are free, and the outer block's latch is already cleared.
  logic [5:0]   mark_pos;
  logic [63:0]  len_bits;
  logic [511:0] pad_x, mark_v;
  always_comb begin
    for (int i = 0; i < 64; i++) begin
      pad_x[8*i +: 8] = (pad_ipad ? 8'h36 : 8'h00) ^ (pad_opad ? 8'h5c : 8'h00);
    end
    mark_pos = outer ? 6'd32 : (ph_q == PhIdle || ph_q == PhBlk) ? pbytes_q[5:0] : nb_q;
    mark_v   = '0;
    for (int i = 0; i < 64; i++) begin
      mark_v[8*(63 - i) + 7] = mark_en && ({26'd0, mark_pos} == i);
    end
    // Bit length = bytes * 8; the outer hash covers the opad block and the 32-byte inner digest.
    if (outer) begin
      len_bits = 64'd768;
    end else begin
      len_bits = {cnt_q, (ph_q == PhIdle || ph_q == PhBlk) ? pbytes_q[5:0] : nb_q, 3'b000};
    end
    core_block = (blk_q ^ pad_x) | mark_v |
                 {(outer ? (okept ? kept_q : core_h) : 256'd0), 192'd0, (len_en ? len_bits : 64'd0)};
  end

  sha256_core u_core (
    .clk_i,
    .rst_ni,
    .init_i         (core_init),
    .next_i         (core_next),
    .load_i         (core_load),
    .chain_i        (chain_opad ? opad_q : ipad_q),
    .block_i        (core_block),
    .ready_o        (core_ready),
    .digest_o       (core_h),
    .digest_valid_o (core_valid)
  );

  // ---- outputs -----------------------------------------------------------------------------
  assign cmd_ready_o    = !pend_q;
  assign busy_o         = pend_q || ph_q != PhIdle;
  // Between blocks of a plain SHA-256 (never an HMAC) the chaining value is public.
  wire logic state_valid = msg_q && !hm_q && !first_q && !pend_q && ph_q == PhIdle;
  assign digest_o       = (fin_q || state_valid) ? core_h : 256'd0;
  assign digest_valid_o = fin_q;
  assign state_valid_o  = state_valid;
  assign key_valid_o    = kv_q;
  assign done_o         = done_q;
  assign status_o       = status_q;

  logic unused;
  assign unused = core_valid;

endmodule

`default_nettype wire
