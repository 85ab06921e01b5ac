// The engine's DMA: runs chains of descriptors from node RAM, moving each one's data between RAM
// (its Wishbone master port) and the AES and SHA engines (their command streams, beside the
// registers), so a message crosses the bus once per word and never through the CPU.
//
// A descriptor is five words at a 4-byte aligned RAM address (rtl/dma/README.md):
//   +0 CTRL  [3:0] OP: 1 AES_AAD, 2 AES_DATA, 3 AES_FINAL, 4 SHA; SHA only: [8] INIT, [9] FINAL,
//            [10] KEY (alone); every other bit 0
//   +4 SRC   +8 DST  (any byte address)   +12 LEN (bytes)   +16 NEXT (the next descriptor, 0: the end)
// Ops (the IP is configured and, for AES, INIT-ed through its registers first):
//   AES_AAD    LEN bytes at SRC as AAD blocks
//   AES_DATA   LEN bytes at SRC as DATA blocks; each output block to DST (none in CBC-MAC, nor
//              while the AES engine holds CCM/GCM decryption output until the tag is checked)
//   AES_FINAL  FINAL; then to DST the LEN bytes of checked plaintext it releases (CCM/GCM
//              decryption; nothing if the tag fails), or else the first LEN (0..16) bytes of the tag
//   SHA        [INIT,] LEN bytes at SRC as 64-byte BLOCKs (a multiple of 64 without FINAL) [, the
//              rest as FINAL, and the 32-byte digest to DST]; with KEY, the LEN (0..64) bytes at SRC,
//              zero-padded, become the HMAC key (CMD KEY)
// RAM words are little-endian (byte 0 of a message in bits 7:0); the IPs' blocks are big-endian. A
// block that starts inside a word is read as whole words and shifted; one written there is written
// as whole words with byte enables.
//
// Every address the DMA puts on the bus is checked first: a descriptor, its source and its
// destination lie wholly in the RAM window [RamBase, RamBase + RamSize). A chain ends at the first
// problem with a named RESULT: BAD_OP, BAD_ADDR, BAD_LEN, OVERLAP (AES_DATA's SRC and DST overlap
// but differ), BUS_ERROR (err on any access), ENGINE (the IP refused a command or the tag failed:
// ip_result_o), ABORTED. A bus burst (a descriptor, or one block in or out) holds cyc; between
// bursts the SoC's arbiter may give the bus to the CPU.
`default_nettype none

module dma_core #(
  parameter logic [31:0] RamBase = 32'h1000_0000,
  parameter logic [31:0] RamSize = 32'h0001_0000
) (
  input  wire logic         clk_i,
  input  wire logic         rst_ni,
  // control: the registers of dma_wb
  input  wire logic         start_i,
  input  wire logic         abort_i,
  input  wire logic [31:0]  desc_i,
  output logic              busy_o,
  output logic [3:0]        result_o,
  output logic [3:0]        ip_result_o,
  output logic [31:0]       cur_desc_o,
  output logic              done_o,      // one-cycle pulses at a chain's end
  output logic              error_o,
  // the bus master (node RAM)
  output wb_pkg::wb_req_t   m_o,
  input  wire wb_pkg::wb_rsp_t m_i,
  // the AES engine's command stream (aes_engine's ports, muxed in aes_wb while aes_own_o)
  output logic              aes_own_o,
  output logic              aes_cmd_valid_o,
  output logic [2:0]        aes_cmd_o,
  output logic [127:0]      aes_din_o,
  output logic [4:0]        aes_bytes_o,
  input  wire logic         aes_cmd_ready_i,
  input  wire logic         aes_out_valid_i,
  input  wire logic [127:0] aes_dout_i,
  output logic              aes_out_pop_o,
  input  wire logic         aes_no_out_i,  // DATA gives no output block (CBC-MAC, CCM/GCM decryption)
  input  wire logic         aes_held_i,  // CCM/GCM decryption: output held until FINAL checks the tag
  input  wire logic         aes_rel_i,   // checked plaintext still being released
  input  wire logic         aes_busy_i,
  input  wire logic         aes_done_i,
  input  wire logic [3:0]   aes_status_i,
  input  wire logic [127:0] aes_tag_i,
  // the SHA engine's command stream (muxed in sha_wb while sha_own_o)
  output logic              sha_own_o,
  output logic              sha_cmd_valid_o,
  output logic [2:0]        sha_cmd_o,
  output logic [511:0]      sha_din_o,
  output logic [6:0]        sha_bytes_o,
  input  wire logic         sha_cmd_ready_i,
  input  wire logic         sha_busy_i,
  input  wire logic         sha_done_i,
  input  wire logic [2:0]   sha_status_i,
  input  wire logic [255:0] sha_digest_i
);

  localparam logic [3:0] OpAesAad = 4'd1, OpAesData = 4'd2, OpAesFinal = 4'd3, OpSha = 4'd4;
  localparam logic [3:0] ResOk = 4'd0, ResBadOp = 4'd1, ResBadAddr = 4'd2, ResBadLen = 4'd3,
                         ResOverlap = 4'd4, ResBusError = 4'd5, ResEngine = 4'd6, ResAborted = 4'd7;
  localparam logic [2:0] AesAad = 3'd4, AesData = 3'd5, AesFinal = 3'd6;
  localparam logic [2:0] ShaInit = 3'd1, ShaBlock = 3'd2, ShaFinal = 3'd3, ShaKey = 3'd4;
  localparam logic [1:0] SrcDout = 2'd0, SrcTag = 2'd1, SrcDigest = 2'd2;

  typedef enum logic [3:0] {
    SIdle,
    SFetch,    // bus: the descriptor's five words
    SCheck,    // its fields against the window and the op
    SRun,      // the op: decides the next block to read, command to issue or block to write
    SRead,     // bus: one block from SRC into buf_q
    SWrite,    // bus: one block (output, tag or digest) to DST
    SFinWait,  // a FINAL runs in the IP
    SDrain,    // the IP finishes its last command; then the next descriptor
    SEnd
  } state_e;

  // [a, a + n) inside the window (n <= RamSize already)
  function automatic logic in_ram(input logic [31:0] a, input logic [31:0] n);
    logic [32:0] off;
    off = {1'b0, a} - {1'b0, RamBase};
    in_ram = a >= RamBase && off + {1'b0, n} <= {1'b0, RamSize};
  endfunction

  state_e       state_q, state_d;
  logic [31:0]  desc_q, desc_d;                       // the descriptor running
  logic [31:0]  ctrl_q, src_q, dst_q, len_q, next_q;  // its words
  logic [4:0]   widx_q, widx_d, wlast_q, wlast_d;     // the burst: word index, last index (0..16)
  logic [31:0]  buf_q [17];                          // a block in, its words as read
  logic [1:0]   roff_q, roff_d;                       // where in its first word the block starts (SRC & 3)
  logic [31:0]  rd_adr_q, rd_adr_d, wr_adr_q, wr_adr_d;
  logic [31:0]  in_left_q, in_left_d, out_left_q, out_left_d;
  logic [6:0]   chunk_q, chunk_d;                     // bytes of the block in buf_q
  logic         chunk_fin_q, chunk_fin_d;             // buf_q is SHA's FINAL block
  logic [5:0]   wbytes_q, wbytes_d;                   // bytes of the block being written (a digest: 32)
  logic [1:0]   woff_q, woff_d;                       // where it starts in its first word (DST & 3)
  logic [1:0]   wsrc_q, wsrc_d;
  logic         have_in_q, have_in_d, pend_out_q, pend_out_d, held_q, held_d, no_out_q, no_out_d;
  logic         issued_q, issued_d, init_q, init_d, quiet_q, issuing;
  // a burst to start, chosen in the state machine and started after it: its state (SFetch, SRead,
  // SWrite; SIdle for none), its first byte's address and its length in bytes (1..64)
  state_e       bst_st;
  logic [31:0]  bst_adr;
  logic [6:0]   bst_n;
  logic         eng_err_q, abort_q;
  logic [3:0]   ip_res_q, result_q, result_d;
  logic         cyc_q, cyc_d, we_q, we_d;
  logic [31:0]  adr_q, adr_d;
  logic         done_d, error_d;

  wire [3:0] op   = ctrl_q[3:0];
  wire       finf = ctrl_q[9];
  wire       keyf = ctrl_q[10];
  wire       is_aes = op == OpAesAad || op == OpAesData || op == OpAesFinal;
  wire       running = state_q != SIdle && state_q != SFetch && state_q != SCheck && state_q != SEnd;
  wire       ip_busy = is_aes ? aes_busy_i : sha_busy_i;
  // The IP has been idle for two cycles: its last command's done pulse (registered, at the latest
  // in the cycle busy drops) has reached eng_err_q.
  wire       ip_quiet = quiet_q && !ip_busy;

  // ---- the checks of SCheck (in order: op, length, addresses, overlap) -------------------------------
  logic [3:0]  verdict;
  logic        reads, writes;
  logic [31:0] wlen;
  // (Each wide block below is evaluated only in the state that uses it: Verilator runs an always
  // block at every change of its inputs, and an idle DMA should cost the simulator nothing.)
  always_comb begin
    reads  = op != OpAesFinal && len_q != 32'd0;
    writes = (op == OpAesData && !aes_no_out_i) || (op == OpAesFinal && len_q != 32'd0) || (op == OpSha && finf);
    wlen   = op == OpSha ? 32'd32 : len_q;
    verdict = ResOk;
    if (state_q != SCheck)
      verdict = ResOk;
    else if (op == 4'd0 || op > OpSha || ctrl_q[31:11] != '0 || ctrl_q[7:4] != '0 || (op != OpSha && ctrl_q[10:8] != '0) ||
        (keyf && ctrl_q[9:8] != '0))
      verdict = ResBadOp;
    else if (len_q > RamSize || (len_q == 32'd0 && (op == OpAesAad || op == OpAesData)) ||
             (op == OpSha && !finf && !keyf && len_q[5:0] != 6'd0) || (keyf && len_q > 32'd64) ||
             (op == OpAesFinal && !aes_held_i && len_q > 32'd16))
      verdict = ResBadLen;
    else if ((reads && !in_ram(src_q, len_q)) || (writes && !in_ram(dst_q, wlen)))
      verdict = ResBadAddr;
    else if (op == OpAesData && writes && src_q != dst_q && src_q < dst_q + len_q && dst_q < src_q + len_q)
      verdict = ResOverlap;
  end

  // the last word index of a burst over n (1..64) bytes that start at byte `off` of a word
  function automatic logic [4:0] last_word(input logic [1:0] off, input logic [6:0] n);
    last_word = 5'(({5'd0, off} + n - 7'd1) >> 2);
  endfunction

  // ---- a block in: its bytes start at byte roff_q of buf_q's first word; the engines' blocks are
  // big-endian, and bytes past the block 0 (a KEY is zero-padded)
  always_comb begin : block_in
    logic [17*32-1:0] inb;
    inb = '0;
    aes_din_o = '0;
    sha_din_o = '0;
    if (have_in_q) begin
      for (int w = 0; w < 17; w++) inb[32*w +: 32] = buf_q[w];
      inb = inb >> {roff_q, 3'b000};
      for (int k = 0; k < 16; k++) aes_din_o[127 - 8*k -: 8] = inb[8*k +: 8];
      for (int k = 0; k < 64; k++) sha_din_o[511 - 8*k -: 8] = k < chunk_q ? inb[8*k +: 8] : 8'h00;
    end
  end

  // ---- a block out: its source's bytes (byte k at [8k +: 8]) moved up by woff_q, whole words; the
  // source holds still until the burst ends (AES's output register until the pop, the tag, the digest)
  logic [31:0]     wr_word;
  logic [3:0]      wr_sel;
  always_comb begin : write_word
    logic [16*32-1:0] outb;
    outb = '0;
    wr_word = '0;
    wr_sel = '0;
    if (state_q == SWrite) begin
      for (int k = 0; k < 32; k++)
        case (wsrc_q)
          SrcDout: outb[8*k +: 8] = k < 16 ? aes_dout_i[127 - 8*(k % 16) -: 8] : 8'h0;
          SrcTag:  outb[8*k +: 8] = k < 16 ? aes_tag_i[127 - 8*(k % 16) -: 8] : 8'h0;
          default: outb[8*k +: 8] = sha_digest_i[255 - 8*k -: 8];
        endcase
      outb = outb << {woff_q, 3'b000};
      wr_word = outb[32*widx_q[3:0] +: 32];
      for (int l = 0; l < 4; l++)
        wr_sel[l] = {2'b0, widx_q, 2'(l)} >= {7'd0, woff_q} && {2'b0, widx_q, 2'(l)} < {7'd0, woff_q} + {3'd0, wbytes_q};
    end
  end

  always_comb begin
    state_d = state_q;  desc_d = desc_q;  widx_d = widx_q;  wlast_d = wlast_q;  roff_d = roff_q;
    rd_adr_d = rd_adr_q;  wr_adr_d = wr_adr_q;  in_left_d = in_left_q;  out_left_d = out_left_q;
    chunk_d = chunk_q;  chunk_fin_d = chunk_fin_q;  wbytes_d = wbytes_q;  woff_d = woff_q;  wsrc_d = wsrc_q;
    have_in_d = have_in_q;  pend_out_d = pend_out_q;  held_d = held_q;  no_out_d = no_out_q;  issued_d = issued_q;
    init_d = init_q;  issuing = 1'b0;  result_d = result_q;
    cyc_d = cyc_q;  we_d = we_q;  adr_d = adr_q;
    done_d = 1'b0;  error_d = 1'b0;  bst_st = SIdle;  bst_adr = '0;  bst_n = '0;
    aes_cmd_valid_o = 1'b0;  aes_cmd_o = AesData;  aes_bytes_o = 5'd16;  aes_out_pop_o = 1'b0;
    sha_cmd_valid_o = 1'b0;  sha_cmd_o = ShaBlock;  sha_bytes_o = 7'd0;

    case (state_q)
      SIdle: if (start_i) begin
        desc_d = desc_i;
        if (desc_i[1:0] == 2'b00 && in_ram(desc_i, 32'd20)) begin
          bst_st = SFetch;  bst_adr = desc_i;  bst_n = 7'd20;
        end else begin
          result_d = ResBadAddr;  state_d = SEnd;
        end
      end

      SFetch, SRead, SWrite: if (m_i.ack || m_i.err) begin
        widx_d = widx_q + 5'd1;
        adr_d  = adr_q + 32'd4;
        if (m_i.err || abort_q || widx_q == wlast_q) cyc_d = 1'b0;
        if (m_i.err) begin
          result_d = ResBusError;  state_d = SEnd;
        end else if (abort_q) begin
          result_d = ResAborted;  state_d = SEnd;
        end else if (widx_q == wlast_q) begin
          case (state_q)
            SFetch: state_d = SCheck;
            SRead:  begin have_in_d = 1'b1; state_d = SRun; end
            default: begin  // a block written: its source is consumed
              aes_out_pop_o = wsrc_q == SrcDout;
              pend_out_d = 1'b0;
              wr_adr_d = wr_adr_q + {26'd0, wbytes_q};
              out_left_d = out_left_q - {26'd0, wbytes_q};
              state_d = (wsrc_q == SrcDout) ? SRun : SDrain;
            end
          endcase
        end
      end

      SCheck: begin
        held_d = aes_held_i;  no_out_d = aes_no_out_i;  have_in_d = 1'b0;  pend_out_d = 1'b0;  issued_d = 1'b0;
        init_d = op == OpSha && ctrl_q[8];
        rd_adr_d = src_q;  wr_adr_d = dst_q;  in_left_d = reads ? len_q : 32'd0;  out_left_d = len_q;
        if (verdict != ResOk) begin
          result_d = verdict;  state_d = SEnd;
        end else begin
          state_d = SRun;
        end
      end

      SRun: if (abort_q) begin
        result_d = ResAborted;  state_d = SEnd;
      end else if (is_aes && op != OpAesFinal) begin
        if (have_in_q && !pend_out_q && aes_cmd_ready_i) begin          // the block to the engine
          aes_cmd_valid_o = 1'b1;
          aes_cmd_o = op == OpAesAad ? AesAad : AesData;
          aes_bytes_o = chunk_q[4:0];
          have_in_d = 1'b0;
          pend_out_d = op == OpAesData && !no_out_q;
          wbytes_d = {1'b0, chunk_q[4:0]};
          issuing = 1'b1;
        end else if (!have_in_q && in_left_q != 0) begin                 // the next block in
          chunk_d = in_left_q >= 32'd16 ? 7'd16 : {2'b0, in_left_q[4:0]};
          in_left_d = in_left_q - {25'd0, chunk_d};
          rd_adr_d = rd_adr_q + {25'd0, chunk_d};
          roff_d = rd_adr_q[1:0];
          bst_st = SRead;  bst_adr = rd_adr_q;  bst_n = chunk_d;
        end else if (pend_out_q && aes_out_valid_i) begin                // its output out
          wsrc_d = SrcDout;  woff_d = wr_adr_q[1:0];
          bst_st = SWrite;  bst_adr = wr_adr_q;  bst_n = {1'b0, wbytes_q};
        end else if (!have_in_q && in_left_q == 0 && !pend_out_q) begin
          state_d = SDrain;
        end
      end else if (op == OpAesFinal) begin
        if (!issued_q) begin
          if (aes_cmd_ready_i) begin
            aes_cmd_valid_o = 1'b1;  aes_cmd_o = AesFinal;  aes_bytes_o = 5'd16;
            issued_d = 1'b1;  issuing = 1'b1;  state_d = SFinWait;
          end
        end else if (out_left_q != 0 && (!held_q || aes_out_valid_i)) begin    // the tag, or plaintext, out
          wsrc_d = held_q ? SrcDout : SrcTag;  woff_d = wr_adr_q[1:0];
          wbytes_d = out_left_q >= 32'd16 ? 6'd16 : {1'b0, out_left_q[4:0]};
          bst_st = SWrite;  bst_adr = wr_adr_q;  bst_n = {1'b0, wbytes_d};
        end else if (out_left_q == 0) begin                              // all of it, and no more
          result_d = (aes_out_valid_i || aes_rel_i) ? ResBadLen : result_q;
          state_d = (aes_out_valid_i || aes_rel_i) ? SEnd : SDrain;
        end else if (!aes_out_valid_i && !aes_rel_i) begin               // the message was shorter
          result_d = ResBadLen;  state_d = SEnd;
        end
      end else begin  // SHA
        if (init_q) begin
          if (sha_cmd_ready_i) begin
            sha_cmd_valid_o = 1'b1;  sha_cmd_o = ShaInit;  init_d = 1'b0;  issuing = 1'b1;
          end
        end else if (have_in_q) begin
          if (sha_cmd_ready_i) begin
            sha_cmd_valid_o = 1'b1;
            sha_cmd_o = keyf ? ShaKey : chunk_fin_q ? ShaFinal : ShaBlock;
            sha_bytes_o = chunk_q;
            have_in_d = 1'b0;
            issuing = 1'b1;
            issued_d = chunk_fin_q;
            if (chunk_fin_q && !keyf) begin
              state_d = SFinWait;
            end
          end
        end else if ((in_left_q >= 32'd64 && !keyf) || ((finf || keyf) && !issued_q)) begin
          chunk_fin_d = in_left_q < 32'd64 || keyf;
          chunk_d = in_left_q >= 32'd64 ? 7'd64 : {1'b0, in_left_q[5:0]};
          in_left_d = in_left_q - {25'd0, chunk_d};
          rd_adr_d = rd_adr_q + {25'd0, chunk_d};
          roff_d = rd_adr_q[1:0];
          if (in_left_q == 32'd0) begin                                  // FINAL of no bytes
            have_in_d = 1'b1;
          end else begin
            bst_st = SRead;  bst_adr = rd_adr_q;  bst_n = chunk_d;
          end
        end else begin
          state_d = SDrain;
        end
      end

      SFinWait: if (abort_q) begin
        result_d = ResAborted;  state_d = SEnd;
      end else if (ip_quiet) begin
        if (eng_err_q) begin
          result_d = ResEngine;  state_d = SEnd;
        end else if (is_aes) begin
          state_d = SRun;                                                // the tag or plaintext out
        end else begin                                                   // the digest out
          wsrc_d = SrcDigest;  wbytes_d = 6'd32;  woff_d = wr_adr_q[1:0];
          bst_st = SWrite;  bst_adr = wr_adr_q;  bst_n = 7'd32;
        end
      end

      SDrain: if (abort_q) begin
        result_d = ResAborted;  state_d = SEnd;
      end else if (ip_quiet) begin
        if (eng_err_q) begin
          result_d = ResEngine;  state_d = SEnd;
        end else if (next_q == 32'd0) begin
          result_d = ResOk;  state_d = SEnd;
        end else begin
          desc_d = next_q;
          if (next_q[1:0] == 2'b00 && in_ram(next_q, 32'd20)) begin
            bst_st = SFetch;  bst_adr = next_q;  bst_n = 7'd20;
          end else begin
            result_d = ResBadAddr;  state_d = SEnd;
          end
        end
      end

      SEnd: begin
        done_d = result_q == ResOk;
        error_d = result_q != ResOk;
        state_d = SIdle;
      end

      default: state_d = SIdle;
    endcase

    // Starting a burst: its first word's address, its last word, read or write.
    if (bst_st != SIdle) begin
      state_d = bst_st;  widx_d = '0;  wlast_d = last_word(bst_adr[1:0], bst_n);
      cyc_d = 1'b1;  we_d = bst_st == SWrite;  adr_d = {bst_adr[31:2], 2'b00};
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= SIdle;  desc_q <= '0;  widx_q <= '0;  wlast_q <= '0;  roff_q <= '0;
      ctrl_q <= '0;  src_q <= '0;  dst_q <= '0;  len_q <= '0;  next_q <= '0;
      rd_adr_q <= '0;  wr_adr_q <= '0;  in_left_q <= '0;  out_left_q <= '0;
      chunk_q <= '0;  chunk_fin_q <= 1'b0;  wbytes_q <= '0;  woff_q <= '0;  wsrc_q <= SrcDout;
      have_in_q <= 1'b0;  pend_out_q <= 1'b0;  held_q <= 1'b0;  no_out_q <= 1'b0;  issued_q <= 1'b0;  init_q <= 1'b0;
      quiet_q <= 1'b0;  eng_err_q <= 1'b0;  abort_q <= 1'b0;  ip_res_q <= '0;  result_q <= '0;
      cyc_q <= 1'b0;  we_q <= 1'b0;  adr_q <= '0;
      done_o <= 1'b0;  error_o <= 1'b0;
      for (int w = 0; w < 17; w++) buf_q[w] <= '0;
    end else begin
      state_q <= state_d;  desc_q <= desc_d;  widx_q <= widx_d;  wlast_q <= wlast_d;  roff_q <= roff_d;
      rd_adr_q <= rd_adr_d;  wr_adr_q <= wr_adr_d;  in_left_q <= in_left_d;  out_left_q <= out_left_d;
      chunk_q <= chunk_d;  chunk_fin_q <= chunk_fin_d;  wbytes_q <= wbytes_d;  woff_q <= woff_d;  wsrc_q <= wsrc_d;
      have_in_q <= have_in_d;  pend_out_q <= pend_out_d;  held_q <= held_d;  no_out_q <= no_out_d;  issued_q <= issued_d;
      init_q <= init_d;  quiet_q <= !ip_busy && !issuing;  result_q <= result_d;
      cyc_q <= cyc_d;  we_q <= we_d;  adr_q <= adr_d;
      done_o <= done_d;  error_o <= error_d;
      // the descriptor's words as they arrive
      if (state_q == SFetch && m_i.ack)
        case (widx_q)
          5'd0: ctrl_q <= m_i.dat;
          5'd1: src_q  <= m_i.dat;
          5'd2: dst_q  <= m_i.dat;
          5'd3: len_q  <= m_i.dat;
          default: next_q <= m_i.dat;
        endcase
      // a block from SRC as whole words (the bytes around it are masked out above)
      if (state_q == SRead && m_i.ack) buf_q[widx_q] <= m_i.dat;
      // the IP's refusals while the DMA owns it; cleared by START
      if (state_q == SIdle && start_i) begin
        eng_err_q <= 1'b0;  ip_res_q <= '0;  abort_q <= 1'b0;
      end else if (running && ((is_aes && aes_done_i && aes_status_i != 4'd0) ||
                               (!is_aes && sha_done_i && sha_status_i != 3'd0))) begin
        eng_err_q <= 1'b1;
        ip_res_q  <= is_aes ? aes_status_i : {1'b0, sha_status_i};
      end
      if (abort_i && state_q != SIdle) abort_q <= 1'b1;
      else if (state_q == SEnd) abort_q <= 1'b0;
    end
  end

  assign m_o.cyc = cyc_q;
  assign m_o.stb = cyc_q;
  assign m_o.we  = we_q;
  assign m_o.sel = we_q ? wr_sel : 4'hf;
  assign m_o.adr = adr_q;
  assign m_o.dat = we_q ? wr_word : 32'h0;
  assign busy_o      = state_q != SIdle;
  assign result_o    = result_q;
  assign ip_result_o = ip_res_q;
  assign cur_desc_o  = desc_q;
  assign aes_own_o   = running && is_aes;
  assign sha_own_o   = running && !is_aes;

endmodule

`default_nettype wire
