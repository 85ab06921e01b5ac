// AES engine: mode controller (ECB, CBC, CTR, OFB, CBC-MAC, CCM, GCM) around aes_core and
// aes_ghash, with a one-block command slot, a one-block output register and the plaintext buffer
// that holds CCM/GCM decrypt results until the tag has been checked. No bus.
`default_nettype none

module aes_engine #(
  parameter int PTBUF_BLOCKS = 128   // plaintext buffer depth (blocks) for CCM/GCM decrypt
) (
  input  wire logic         clk_i,
  input  wire logic         rst_ni,
  // configuration: held stable by the register block; sampled by CMD_INIT only
  input  wire logic [255:0] key_i,
  input  wire logic [1:0]   keylen_i,
  input  wire logic         key_ok_i,   // 0: the key slot INIT would take is empty (BAD_SLOT)
  input  wire logic [127:0] h_i,        // GCM: the slot's hash key H (the cycle after the INIT is taken)
  input  wire logic         h_valid_i,
  input  wire logic [2:0]   mode_i,
  input  wire logic         dec_i,
  input  wire logic [127:0] iv_i,
  input  wire logic [4:0]   tag_len_i,
  input  wire logic [127:0] tag_i,
  // commands
  input  wire logic         cmd_valid_i,
  input  wire logic [2:0]   cmd_i,
  input  wire logic [127:0] din_i,
  input  wire logic [4:0]   din_bytes_i,
  output logic              cmd_ready_o,
  // output blocks
  output logic              out_valid_o,
  output logic [127:0]      dout_o,
  input  wire logic         out_pop_i,
  // results
  output logic [127:0]      tag_o,
  output logic              busy_o,
  output logic              done_o,
  output logic [3:0]        status_o,
  // for the DMA, by the mode INIT latched: DATA gives no output block (CBC-MAC; CCM/GCM
  // decryption, which holds its output until FINAL checks the tag: held_o); checked plaintext is
  // still being released
  output logic              no_out_o,
  output logic              held_o,
  output logic              rel_o,
  // INIT taken this cycle (key_i, keylen_i, key_ok_i and h_valid_i sampled); a GCM INIT computed
  // H = E_K(0^128) (h_o) this cycle: the key slot it ran from keeps it
  output logic              init_take_o,
  output logic              h_we_o,
  output logic [127:0]      h_o
);

  localparam logic [2:0] ModeEcb = 3'd0, ModeCbc = 3'd1, ModeCtr = 3'd2, ModeOfb = 3'd3,
                         ModeMac = 3'd4, ModeCcm = 3'd5, ModeGcm = 3'd6;
  localparam logic [2:0] CmdInit = 3'd1, CmdIv = 3'd2, CmdJ0 = 3'd3, CmdAad = 3'd4,
                         CmdData = 3'd5, CmdFinal = 3'd6;
  localparam logic [3:0] StOk = 4'd0, StTagFail = 4'd1, StBadKeylen = 4'd2, StBadMode = 4'd3,
                         StBadSeq = 4'd4, StBadLength = 4'd5, StBadSlot = 4'd6;

  localparam int PtW = (PTBUF_BLOCKS > 1) ? $clog2(PTBUF_BLOCKS) : 1;
  localparam logic [PtW:0] PtMax = PTBUF_BLOCKS[PtW:0];

  typedef enum logic [2:0] {
    SIdle,      // no command in progress
    SInit,      // key stored: start the decryption key preparation or H = E_K(0)
    SInitWait,  // waiting for that core operation
    SAes1,      // DATA: the core ciphers the block / counter / chain
    SMac,       // CBC-MAC step: chain := E(chain ^ block)
    SJ0,        // GCM J0 := GHASH(IV blocks || length block)
    SFinal      // tag: E(J0) or E(A0) in the core (and the GCM length block in GHASH)
  } state_e;

  // Byte i of a block (at [127-8i -: 8]) is kept when i < n.
  function automatic logic [127:0] byte_mask(input logic [4:0] n);
    logic [4:0] k;
    k = 5'd0;
    for (int i = 0; i < 16; i++) begin
      byte_mask[127 - 8*i -: 8] = (k < n) ? 8'hff : 8'h00;
      k = k + 5'd1;
    end
  endfunction

  // ---- state -----------------------------------------------------------------------------------
  state_e       state_q, state_d;
  // configuration latched by INIT
  logic [2:0]   mode_q, mode_d;
  logic [1:0]   keylen_q, keylen_d;
  logic [4:0]   taglen_q, taglen_d;
  logic         dec_q, dec_d;
  logic         cfg_ok_q, cfg_ok_d;       // a good INIT happened
  logic         hv_q, hv_d;               // INIT takes H from the key slot (h_i), not E_K(0)
  // message progress
  logic         over_q, over_d;           // FINAL done: only INIT is accepted
  logic         started_q, started_d;     // AAD, DATA or J0 seen: no more IV/J0
  logic         iv_pend_q, iv_pend_d;     // IV blocks absorbed, J0 outstanding
  logic         aad_part_q, aad_part_d;   // the last AAD/IV block was partial
  logic         data_q, data_d;           // DATA seen: no more AAD
  logic         data_part_q, data_part_d; // the last DATA block was partial
  logic         ovf_q, ovf_d;             // the plaintext buffer overflowed
  logic         tag_ok_q, tag_ok_d;       // tag_o shows chain_q
  logic [35:0]  aad_cnt_q, aad_cnt_d;     // GCM: IV bytes (before J0), then AAD bytes
  logic [35:0]  dat_cnt_q, dat_cnt_d;     // GCM: data bytes
  // datapath
  logic [127:0] chain_q, chain_d;         // CBC/OFB chain, CBC-MAC/CCM MAC; the tag after FINAL
  logic [127:0] ctr_q, ctr_d;             // counter block
  logic [31:0]  ctr0_q, ctr0_d;           // low word of A0/J0 (inc32 keeps the upper 96 bits)
  logic [127:0] cur_q, cur_d;             // data of the block in the core
  logic [4:0]   cur_n_q, cur_n_d;
  // command slot
  logic         in_valid_q, in_valid_d;
  logic [2:0]   in_cmd_q, in_cmd_d;
  logic [127:0] in_q, in_d;               // zero beyond in_n_q bytes
  logic [4:0]   in_n_q, in_n_d;           // 1..16
  // output register and plaintext release
  logic         out_valid_q, out_valid_d;
  logic [127:0] out_q, out_d;
  logic [PtW:0] pt_cnt_q, pt_cnt_d;       // buffered plaintext blocks
  logic [PtW:0] rd_ptr_q, rd_ptr_d;
  logic         rel_q, rel_d, rd_pend_q, rd_pend_d;
  // results
  logic         done_d;
  logic [3:0]   status_d;

  // ---- submodules ------------------------------------------------------------------------------
  logic         core_load, core_prep, core_start, core_dec, core_ready, core_valid;
  logic [127:0] core_a, core_b, core_res;
  logic         gh_hwe, gh_clear, gh_start, gh_ready;
  logic [127:0] gh_block, gh_y;
  logic         ram_we, ram_re;
  logic [PtW-1:0] ram_widx;
  logic [127:0] ram_wdata, ram_rdata;

  aes_core u_core (
    .clk_i, .rst_ni,
    .keylen_i  (keylen_q),
    .key_load_i(core_load),
    .key_i,
    .key_prep_i(core_prep),
    .start_i   (core_start),
    .dec_i     (core_dec),
    .block_i   (core_a ^ core_b),
    .ready_o   (core_ready),
    .valid_o   (core_valid),
    .result_o  (core_res)
  );

  aes_ghash u_ghash (
    .clk_i, .rst_ni,
    .h_we_i  (gh_hwe),
    .h_i     (h_slot ? h_i : core_res),
    .clear_i (gh_clear),
    .start_i (gh_start),
    .block_i (gh_block),
    .ready_o (gh_ready),
    .y_o     (gh_y)
  );

  sram_1r1w #(.WIDTH(128), .DEPTH(PTBUF_BLOCKS)) u_ptbuf (
    .clk_i,
    .we_i    (ram_we),
    .waddr_i (ram_widx),
    .wdata_i (ram_wdata),
    .re_i    (ram_re),
    .raddr_i (rd_ptr_q[PtW-1:0]),
    .rdata_o (ram_rdata)
  );

  // ---- decode ----------------------------------------------------------------------------------
  logic is_ecb, is_cbc, is_ctr, is_ofb, is_mac, is_ccm, is_gcm, aead, buffered, in_full;
  logic [3:0]   chk;         // status the slot's command gets
  logic         need_gh;     // the slot's command starts GHASH when taken
  logic [32:0]  ctr_lo;
  logic [127:0] ctr_inc, j0, resx, tagv, tag_mask;
  logic [4:0]   din_n;

  always_comb begin
    is_ecb   = mode_q == ModeEcb;
    is_cbc   = mode_q == ModeCbc;
    is_ctr   = mode_q == ModeCtr;
    is_ofb   = mode_q == ModeOfb;
    is_mac   = mode_q == ModeMac;
    is_ccm   = mode_q == ModeCcm;
    is_gcm   = mode_q == ModeGcm;
    aead     = is_ccm | is_gcm;
    buffered = aead & dec_q;
    in_full  = in_n_q == 5'd16;
    din_n    = (din_bytes_i == 5'd0 || din_bytes_i > 5'd16) ? 5'd16 : din_bytes_i;

    j0         = {ctr_q[127:32], ctr0_q};

    chk = StOk;
    case (in_cmd_q)
      CmdInit: begin
        if (!key_ok_i) chk = StBadSlot;
        else if (keylen_i == 2'd3) chk = StBadKeylen;
        else if (mode_i == 3'd7) chk = StBadMode;
        else if ((mode_i == ModeCcm || mode_i == ModeGcm) && (tag_len_i < 5'd4 || tag_len_i > 5'd16))
          chk = StBadLength;
        else if (mode_i == ModeMac && (tag_len_i < 5'd1 || tag_len_i > 5'd16)) chk = StBadLength;
      end
      CmdIv:  if (!cfg_ok_q || !is_gcm || over_q || started_q || aad_part_q) chk = StBadSeq;
      CmdJ0:  if (!cfg_ok_q || !is_gcm || over_q || started_q) chk = StBadSeq;
      CmdAad: if (!cfg_ok_q || !aead || over_q || data_q || aad_part_q || iv_pend_q) chk = StBadSeq;
      CmdData: begin
        if (!cfg_ok_q || over_q || data_part_q || iv_pend_q) chk = StBadSeq;
        else if ((is_ecb || is_cbc || is_mac) && !in_full) chk = StBadLength;
        else if (buffered && (ovf_q || pt_cnt_q == PtMax)) chk = StBadLength;
      end
      CmdFinal: if (!cfg_ok_q || !(aead || is_mac) || over_q || iv_pend_q) chk = StBadSeq;
      default: chk = StBadSeq;
    endcase
    need_gh = is_gcm && (in_cmd_q == CmdIv || in_cmd_q == CmdJ0 || in_cmd_q == CmdAad ||
                         in_cmd_q == CmdFinal || (in_cmd_q == CmdData && dec_q));
  end

  // The wide values below matter only in some states or for some slot commands: outside those
  // they are X (synthesis adds no gating), so a simulator computes them only when they are used.
  always_comb begin
    ctr_lo  = 'x;
    ctr_inc = 'x;
    if (in_cmd_q == CmdData) begin  // a DATA command steps the counter when it is taken
      ctr_lo  = {1'b0, ctr_q[31:0]} + 33'd1;
      // CTR counts over all 128 bits, CCM/GCM use inc32.
      ctr_inc = {ctr_q[127:32] + {95'h0, ctr_lo[32] & ~aead}, ctr_lo[31:0]};
    end
  end

  always_comb begin
    resx = 'x;
    if (state_q == SAes1) begin     // the one state that uses the combined result
      // The core result combined per mode: ECB/CBC-enc: E(x); CBC-dec: D(x) ^ chain; the stream
      // modes: data ^ keystream, truncated to the block's bytes.
      resx = (core_res ^ (cur_q & {128{~(is_ecb | is_cbc)}}) ^ (chain_q & {128{is_cbc & dec_q}}))
             & byte_mask(cur_n_q);
    end
  end

  always_comb begin
    tag_mask = 'x;
    tagv     = 'x;
    if (state_q == SFinal || in_cmd_q == CmdFinal) begin  // FINAL: the tag and its check
      tag_mask = byte_mask(taglen_q);
      // FINAL: CBC-MAC: MAC; CCM: MAC ^ E(A0); GCM: S ^ E(J0)
      tagv     = ((core_res & {128{~is_mac}}) ^ (is_gcm ? gh_y : chain_q)) & tag_mask;
    end
  end

  // ---- control ---------------------------------------------------------------------------------
  logic out_ok, take, fin_any;
  // datapath selects set by the control block
  logic ch_iv, ch_res, ch_cur, ch_tag, ct_iv, ct_gh, ct_inc, cu_in, cu_resx;
  logic o_ram, o_resx, a_in, a_cur, a_resx, b_chain, b_ctr, b_inc, b_j0, g_resx, g_len, g_fin;
  logic h_slot;  // GHASH takes H from the key slot (h_i), not from the core
  always_comb begin
    state_d = state_q;
    {mode_d, keylen_d, taglen_d, dec_d, cfg_ok_d, hv_d} = {mode_q, keylen_q, taglen_q, dec_q, cfg_ok_q, hv_q};
    h_slot = 1'b0;
    {over_d, started_d, iv_pend_d, aad_part_d, data_d, data_part_d, ovf_d, tag_ok_d} =
      {over_q, started_q, iv_pend_q, aad_part_q, data_q, data_part_q, ovf_q, tag_ok_q};
    aad_cnt_d = aad_cnt_q;
    dat_cnt_d = dat_cnt_q;
    {ch_iv, ch_res, ch_cur, ch_tag, ct_iv, ct_gh, ct_inc, cu_in, cu_resx} = '0;
    {o_ram, o_resx, a_in, a_cur, a_resx, b_chain, b_ctr, b_inc, b_j0, g_resx, g_len, g_fin} = '0;
    cur_n_d   = cur_n_q;
    in_valid_d = in_valid_q;
    in_cmd_d   = in_cmd_q;
    in_d       = in_q;
    in_n_d     = in_n_q;
    out_valid_d = out_valid_q;
    pt_cnt_d  = pt_cnt_q;
    rd_ptr_d  = rd_ptr_q;
    rel_d     = rel_q;
    rd_pend_d = rd_pend_q;
    done_d    = 1'b0;
    status_d  = StOk;
    core_load  = 1'b0;
    core_prep  = 1'b0;
    core_start = 1'b0;
    core_dec   = 1'b0;
    gh_hwe    = 1'b0;
    gh_clear  = 1'b0;
    gh_start  = 1'b0;
    ram_we    = 1'b0;
    ram_re    = 1'b0;
    ram_widx  = pt_cnt_q[PtW-1:0] - {{(PtW-1){1'b0}}, 1'b1};
    fin_any   = 1'b0;

    // Command slot: one block.
    if (cmd_valid_i && !in_valid_q) begin
      in_valid_d = 1'b1;
      in_cmd_d   = cmd_i;
      in_d       = din_i & byte_mask(din_n);
      in_n_d     = din_n;
    end

    // Output register and the release of checked plaintext (read latency one cycle).
    if (out_pop_i) out_valid_d = 1'b0;
    if (rd_pend_q) begin
      o_ram       = 1'b1;
      out_valid_d = 1'b1;
      rd_pend_d   = 1'b0;
    end else if (rel_q && (!out_valid_q || out_pop_i)) begin
      if (rd_ptr_q != pt_cnt_q) begin
        ram_re    = 1'b1;
        rd_ptr_d  = rd_ptr_q + {{PtW{1'b0}}, 1'b1};
        rd_pend_d = 1'b1;
      end else begin
        rel_d = 1'b0;
      end
    end
    // A pending INIT discards the output anyway, so a stalled block may overwrite it.
    out_ok = !out_valid_q || out_pop_i || (in_valid_q && in_cmd_q == CmdInit);

    // Running commands.
    case (state_q)
      SInit: begin
        if ((is_ecb || is_cbc) && dec_q) begin
          core_prep = 1'b1;
          state_d   = SInitWait;
        end else if (is_gcm && hv_q) begin
          gh_hwe  = 1'b1;     // H from the key slot
          h_slot  = 1'b1;
          done_d  = 1'b1;
          state_d = SIdle;
        end else if (is_gcm) begin
          core_start = 1'b1;  // H = E_K(0^128)
          state_d    = SInitWait;
        end else begin
          done_d  = 1'b1;
          state_d = SIdle;
        end
      end
      SInitWait: begin
        if (core_valid) begin
          gh_hwe  = is_gcm;
          done_d  = 1'b1;
          state_d = SIdle;
        end
      end
      SAes1: begin
        if (core_valid && (buffered || out_ok) && (!(is_gcm && !dec_q) || gh_ready)) begin
          o_resx      = !buffered;
          out_valid_d = !buffered;
          ch_cur      = is_cbc & dec_q;
          ch_res      = (is_cbc & ~dec_q) | is_ofb;
          ram_we      = buffered;
          gh_start    = is_gcm & ~dec_q;
          g_resx      = is_gcm & ~dec_q;
          if (is_ccm) begin
            // Second pass: CBC-MAC over the plaintext (the input for encrypt, the result for decrypt).
            cu_resx    = dec_q;
            core_start = 1'b1;
            a_cur      = ~dec_q;
            a_resx     = dec_q;
            b_chain    = 1'b1;
            state_d    = SMac;
          end else begin
            fin_any = 1'b1;
          end
        end
      end
      SMac: begin
        if (core_valid) begin
          ch_res  = 1'b1;
          fin_any = 1'b1;
        end
      end
      SJ0: begin
        if (gh_ready) begin
          ct_gh      = 1'b1;
          gh_clear   = 1'b1;
          aad_cnt_d  = 36'h0;
          aad_part_d = 1'b0;
          iv_pend_d  = 1'b0;
          done_d     = 1'b1;
          state_d    = SIdle;
        end
      end
      SFinal: begin
        if (core_valid && gh_ready) begin
          if (dec_q) begin
            // Constant time: OR-reduce the masked difference.
            if (|((tagv ^ tag_i) & tag_mask)) begin
              status_d = StTagFail;
            end else begin
              rel_d    = 1'b1;
              rd_ptr_d = '0;
            end
          end else begin
            ch_tag   = 1'b1;
            tag_ok_d = 1'b1;
          end
          over_d  = 1'b1;
          done_d  = 1'b1;
          state_d = SIdle;
        end
      end
      default: ;
    endcase
    if (fin_any) begin
      done_d  = 1'b1;
      state_d = SIdle;
    end

    // Take the slot's command: from idle, or a DATA right behind a finishing command (it
    // completes nothing this cycle, so done pulses never merge).
    take = in_valid_q && (!need_gh || gh_ready) &&
           (state_q == SIdle || (fin_any && in_cmd_q == CmdData && chk == StOk));
    if (take) begin
      in_valid_d = 1'b0;
      if (chk != StOk) begin
        done_d   = 1'b1;
        status_d = chk;
        if (in_cmd_q == CmdInit) begin
          cfg_ok_d = 1'b0;
          tag_ok_d = 1'b0;
          rel_d    = 1'b0;
        end
        if (in_cmd_q == CmdData && buffered && chk == StBadLength) ovf_d = 1'b1;
      end else begin
        case (in_cmd_q)
          CmdInit: begin
            mode_d   = mode_i;
            keylen_d = keylen_i;
            taglen_d = tag_len_i;
            dec_d    = dec_i;
            cfg_ok_d = 1'b1;
            hv_d     = h_valid_i;
            {over_d, started_d, iv_pend_d, aad_part_d, data_d, data_part_d, ovf_d, tag_ok_d} = '0;
            aad_cnt_d   = 36'h0;
            dat_cnt_d   = 36'h0;
            ch_iv       = 1'b1;
            ct_iv       = 1'b1;
            pt_cnt_d    = '0;
            rel_d       = 1'b0;
            rd_pend_d   = 1'b0;
            out_valid_d = 1'b0;
            gh_clear    = 1'b1;
            core_load   = 1'b1;
            state_d     = SInit;
          end
          CmdIv: begin
            gh_start   = 1'b1;
            aad_cnt_d  = aad_cnt_q + {31'h0, in_n_q};
            aad_part_d = !in_full;
            iv_pend_d  = 1'b1;
            done_d     = 1'b1;
          end
          CmdJ0: begin
            gh_start  = 1'b1;
            g_len     = 1'b1;
            started_d = 1'b1;
            state_d   = SJ0;
          end
          CmdAad: begin
            started_d  = 1'b1;
            aad_part_d = !in_full;
            if (is_gcm) begin
              gh_start  = 1'b1;
              aad_cnt_d = aad_cnt_q + {31'h0, in_n_q};
              done_d    = 1'b1;
            end else begin
              core_start = 1'b1;
              a_in       = 1'b1;
              b_chain    = 1'b1;
              state_d    = SMac;
            end
          end
          CmdData: begin
            started_d   = 1'b1;
            data_d      = 1'b1;
            data_part_d = !in_full;
            dat_cnt_d   = dat_cnt_q + {31'h0, in_n_q};
            cu_in       = 1'b1;
            cur_n_d     = in_n_q;
            if (buffered) pt_cnt_d = pt_cnt_q + {{PtW{1'b0}}, 1'b1};
            core_start  = 1'b1;
            core_dec    = dec_q & (is_ecb | is_cbc);
            state_d     = is_mac ? SMac : SAes1;
            a_in        = is_ecb | is_cbc | is_mac;
            b_chain     = (is_cbc & ~dec_q) | is_mac | is_ofb;
            b_ctr       = is_ctr;
            b_inc       = aead;
            ct_inc      = is_ctr | aead;
            if (is_gcm && dec_q) gh_start = 1'b1;
          end
          CmdFinal: begin
            over_d = 1'b1;
            if (is_mac) begin
              ch_tag   = 1'b1;
              tag_ok_d = 1'b1;
              done_d   = 1'b1;
            end else if (ovf_q) begin
              status_d = StTagFail;
              done_d   = 1'b1;
            end else begin
              over_d     = 1'b0;
              core_start = 1'b1;
              b_j0       = 1'b1;
              gh_start   = is_gcm;
              g_len      = 1'b1;
              g_fin      = 1'b1;
              state_d    = SFinal;
            end
          end
          default: ;
        endcase
      end
    end
  end

  // ---- datapath: every wide register and operand has one selection ---------------------------
  always_comb begin
    if (ch_iv)       chain_d = (mode_i == ModeMac || mode_i == ModeCcm) ? 128'h0 : iv_i;
    else if (ch_res) chain_d = core_res;
    else if (ch_cur) chain_d = cur_q;
    else if (ch_tag) chain_d = tagv;
    else             chain_d = chain_q;
    if (ct_iv)       {ctr_d, ctr0_d} = {iv_i, iv_i[31:0]};
    else if (ct_gh)  {ctr_d, ctr0_d} = {gh_y, gh_y[31:0]};
    else if (ct_inc) {ctr_d, ctr0_d} = {ctr_inc, ctr0_q};
    else             {ctr_d, ctr0_d} = {ctr_q, ctr0_q};
    if (o_ram)       out_d = ram_rdata;
    else if (o_resx) out_d = resx;
    else             out_d = out_q;
    if (cu_in)        cur_d = in_q;
    else if (cu_resx) cur_d = resx;
    else              cur_d = cur_q;
    // The core and GHASH read their block inputs only when started (X otherwise, as above).
    core_a   = 'x;
    core_b   = 'x;
    gh_block = 'x;
    if (core_start) begin
      core_a = (in_q & {128{a_in}}) | (cur_q & {128{a_cur}}) | (resx & {128{a_resx}});
      core_b = (chain_d & {128{b_chain}}) | (ctr_q & {128{b_ctr}}) | (ctr_inc & {128{b_inc}}) |
               (j0 & {128{b_j0}});
    end
    if (gh_start) begin
      if (g_resx)     gh_block = resx;
      else if (g_len) gh_block = {g_fin ? {25'h0, aad_cnt_q, 3'b000} : 64'h0,
                                  25'h0, (g_fin ? dat_cnt_q : aad_cnt_q), 3'b000};
      else            gh_block = in_q;
    end
    ram_wdata = resx;
  end

  always_ff @(posedge clk_i) begin
    chain_q <= chain_d;
    ctr_q   <= ctr_d;
    ctr0_q  <= ctr0_d;
    cur_q   <= cur_d;
    cur_n_q <= cur_n_d;
    in_q    <= in_d;
    in_n_q  <= in_n_d;
    in_cmd_q <= in_cmd_d;
    out_q   <= out_d;
    aad_cnt_q <= aad_cnt_d;
    dat_cnt_q <= dat_cnt_d;
    mode_q   <= mode_d;
    keylen_q <= keylen_d;
    taglen_q <= taglen_d;
    dec_q    <= dec_d;
    hv_q     <= hv_d;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= SIdle;
      cfg_ok_q    <= 1'b0;
      {over_q, started_q, iv_pend_q, aad_part_q, data_q, data_part_q, ovf_q, tag_ok_q} <= '0;
      in_valid_q  <= 1'b0;
      out_valid_q <= 1'b0;
      pt_cnt_q    <= '0;
      rd_ptr_q    <= '0;
      rel_q       <= 1'b0;
      rd_pend_q   <= 1'b0;
      done_o      <= 1'b0;
      status_o    <= StOk;
    end else begin
      state_q     <= state_d;
      cfg_ok_q    <= cfg_ok_d;
      {over_q, started_q, iv_pend_q, aad_part_q, data_q, data_part_q, ovf_q, tag_ok_q} <=
        {over_d, started_d, iv_pend_d, aad_part_d, data_d, data_part_d, ovf_d, tag_ok_d};
      in_valid_q  <= in_valid_d;
      out_valid_q <= out_valid_d;
      pt_cnt_q    <= pt_cnt_d;
      rd_ptr_q    <= rd_ptr_d;
      rel_q       <= rel_d;
      rd_pend_q   <= rd_pend_d;
      done_o      <= done_d;
      if (done_d) status_o <= status_d;
    end
  end

  assign cmd_ready_o = ~in_valid_q;
  assign out_valid_o = out_valid_q;
  assign dout_o      = out_q;
  assign tag_o       = tag_ok_q ? chain_q : 128'h0;
  assign busy_o      = in_valid_q | (state_q != SIdle) | ~gh_ready;
  assign no_out_o    = buffered | is_mac;
  assign held_o      = buffered;
  assign rel_o       = rel_q | rd_pend_q;
  assign init_take_o = take && in_cmd_q == CmdInit;
  assign h_we_o      = gh_hwe & ~h_slot;
  assign h_o         = core_res;

  // core_ready is implied by the state machine (the core only runs in SInitWait/SAes1/SMac/SFinal).
  logic unused;
  assign unused = core_ready;

endmodule

`default_nettype wire
