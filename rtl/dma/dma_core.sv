// The engine's DMA: runs chains of descriptors from node RAM, moving each one's data between RAM
// (its Wishbone master port) and the AES and SHA engines (their command streams, beside the
// registers), so a message crosses the bus once per word and never through the CPU.
//
// A descriptor is five words at a 4-byte aligned RAM address (rtl/dma/README.md):
//   +0 CTRL  [3:0] OP: 1 AES_AAD, 2 AES_DATA, 3 AES_FINAL, 4 SHA, 5 SEAL, 6 OPEN, 7 PK, 8 GF2M,
//            9 SEAL_CBC, 10 OPEN_CBC; SHA only:
//            [8] INIT, [9] FINAL, [10] KEY (alone), [11] RESUME (alone); PK only: [12:8] SLOT, [13] READ;
//            GF2M only: [9:8] REG, [10] READ; every other bit 0
//   +4 SRC   +8 DST  (any byte address)   +12 LEN (bytes)   +16 NEXT (the next descriptor, 0: the end)
//   SEAL and OPEN (5, 6) take four words more: +20 SEQ_HI, +24 SEQ_LO (the record's 64-bit seq_num),
//   +28 TYPE [7:0] and VERSION [23:8], +32 SALT (the implicit nonce's four bytes, in memory order);
//   their CTRL: [5:4] key SLOT, [6] TLS (5-byte header; else DTLS's 13), [7] CCM (else GCM), [8] an
//   8-byte tag (else 16). SEAL_CBC and OPEN_CBC (9, 10) take the same 36 bytes, SALT unused; their
//   CTRL: [5:4] key SLOT, [6] TLS
// Ops (the IP is configured and, for AES, INIT-ed through its registers first):
//   AES_AAD    LEN bytes at SRC as AAD blocks
//   AES_DATA   LEN bytes at SRC as DATA blocks; each output block to DST (none in CBC-MAC, nor
//              while the AES engine holds CCM/GCM decryption output until the tag is checked)
//   AES_FINAL  FINAL; then to DST the LEN bytes of checked plaintext it releases (CCM/GCM
//              decryption; nothing if the tag fails), or else the first LEN (0..16) bytes of the tag
//   SHA        [INIT,] LEN bytes at SRC as 64-byte BLOCKs (a multiple of 64 without FINAL) [, the
//              rest as FINAL, and the 32-byte digest to DST]; with KEY, the LEN (0..64) bytes at SRC,
//              zero-padded, become the HMAC key (CMD KEY); with RESUME, a plain SHA-256 resumed from
//              the chaining value at DST (eight 32-bit words, 4-byte aligned), the LEN (a non-zero
//              multiple of 64) bytes at SRC as BLOCKs, and the new chaining value written back to DST
//   SEAL       an AEAD record (RFC 5246 6.2.3.3; nonce = SALT || the explicit part, which is seq_num):
//              INIT from the key slot, the AAD (seq_num, type, version, length; CCM's B0 first), the
//              header and explicit nonce to DST, the LEN bytes of plaintext at SRC encrypted after
//              them, the tag after those
//   OPEN       the LEN-byte body at SRC (explicit nonce || ciphertext || tag) checked, and its
//              plaintext to DST only if the tag verifies
//   PK         an operand into the pk IP's slot SLOT: the LEN (1..32) bytes at SRC, a big-endian
//              number, zero-extended (CMD WRITE); with READ, the slot's low LEN bytes to DST (CMD READ)
//   GF2M       the same for the gf2m IP's registers, once it is idle: K, PX, PY (REG 0..2) written,
//              or with READ, RX, RY (REG 0, 1) read
//   SEAL_CBC   a MAC-then-encrypt CBC-SHA256 record (RFC 5246 6.2.3.2) in place: the LEN bytes of
//              plaintext at SRC = DST + header + 16 HMAC-ed (the SHA engine's held key) after the
//              pseudo-header, the MAC and the padding written after them, the header to DST, and
//              plaintext || MAC || padding CBC-encrypted in place from the key slot, with the IV the
//              caller put at DST + header
//   OPEN_CBC   the LEN-byte body at SRC (IV || ciphertext) decrypted and checked in constant time
//              (dma_cbcmac.sv); its plaintext || MAC || padding to DST only if padding and MAC check
//              out, the plaintext's length in REC_LEN
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
  output logic [14:0]       rec_len_o,   // the last SEAL_CBC's record bytes, OPEN_CBC's plaintext bytes
  // the bus master (node RAM)
  output wb_pkg::wb_req_t   m_o,
  input  wire wb_pkg::wb_rsp_t m_i,
  // the AES engine's command stream (aes_engine's ports, muxed in aes_wb while aes_own_o)
  output logic              aes_own_o,
  output logic              aes_cmd_valid_o,
  output logic [2:0]        aes_cmd_o,
  output logic [127:0]      aes_din_o,
  output logic [4:0]        aes_bytes_o,
  // SEAL/OPEN configure the AES engine themselves (aes_wb takes these instead of its registers
  // while aes_rec_o): INIT's mode, direction, tag length, IV and key slot, and FINAL's tag to check
  output logic              aes_rec_o,
  output logic [2:0]        aes_mode_o,
  output logic              aes_dec_o,
  output logic [4:0]        aes_tag_len_o,
  output logic [127:0]      aes_iv_o,
  output logic [1:0]        aes_slot_o,
  output logic [127:0]      aes_tag_in_o,
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
  output logic              sha_hmac_o,  // SEAL_CBC, OPEN_CBC: INIT starts an HMAC (the held key)
  output logic              sha_cmd_valid_o,
  output logic [2:0]        sha_cmd_o,
  output logic [511:0]      sha_din_o,
  output logic [6:0]        sha_bytes_o,
  input  wire logic         sha_cmd_ready_i,
  input  wire logic         sha_busy_i,
  input  wire logic         sha_done_i,
  input  wire logic [2:0]   sha_status_i,
  input  wire logic [255:0] sha_digest_i,
  // the pk IP's operand commands (WRITE, READ; muxed in pk_wb while pk_own_o)
  output logic              pk_own_o,
  output logic              pk_cmd_valid_o,
  output logic [2:0]        pk_cmd_o,
  output logic [4:0]        pk_slot_o,
  output logic [255:0]      num_din_o,
  input  wire logic         pk_cmd_ready_i,
  input  wire logic         pk_busy_i,
  input  wire logic         pk_done_i,
  input  wire logic [3:0]   pk_status_i,
  input  wire logic [255:0] pk_dout_i,
  // the gf2m IP's operand registers (K, PX, PY: their hw_write) and results
  output logic [2:0]        gf_we_o,
  input  wire logic [255:0] gf_rx_i,
  input  wire logic [255:0] gf_ry_i,
  input  wire logic         gf_busy_i
);

  localparam logic [3:0] OpAesAad = 4'd1, OpAesData = 4'd2, OpAesFinal = 4'd3, OpSha = 4'd4, OpSeal = 4'd5,
                         OpOpen = 4'd6, OpPk = 4'd7, OpGf = 4'd8, OpSealCbc = 4'd9, OpOpenCbc = 4'd10;
  localparam logic [2:0] PkWrite = 3'd1, PkRead = 3'd2;
  localparam logic [3:0] ResOk = 4'd0, ResBadOp = 4'd1, ResBadAddr = 4'd2, ResBadLen = 4'd3,
                         ResOverlap = 4'd4, ResBusError = 4'd5, ResEngine = 4'd6, ResAborted = 4'd7;
  localparam logic [2:0] AesInit = 3'd1, AesAad = 3'd4, AesData = 3'd5, AesFinal = 3'd6;
  localparam logic [2:0] ModeCbc = 3'd1, ModeCcm = 3'd5, ModeGcm = 3'd6;
  localparam logic [2:0] ShaInit = 3'd1, ShaBlock = 3'd2, ShaFinal = 3'd3, ShaKey = 3'd4, ShaResume = 3'd5,
                         ShaKeep = 3'd6, ShaOuter = 3'd7;
  localparam logic [2:0] SrcDout = 3'd0, SrcTag = 3'd1, SrcDigest = 3'd2, SrcHdr = 3'd3, SrcState = 3'd4, SrcNum = 3'd5,
                         SrcPad = 3'd6;
  localparam logic [31:0] MaxCbcBody = 32'd16384 + 32'd2048;  // IV and ciphertext: 2^14 + 2048 (RFC 5246 6.2.3)
  localparam logic [31:0] MaxRecord = 32'd16384;  // a record's plaintext, 2^14 bytes (RFC 5246 6.2.1)

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

  // SEAL and OPEN run as steps inside SRun (and the bus and wait states it starts); from RData on,
  // they are AES_DATA and AES_FINAL
  typedef enum logic [2:0] {
    RExpl,   // OPEN: the explicit nonce from the body
    RTag,    // OPEN: the tag from its end
    RInit,   // INIT from the key slot, then wait for it
    RAad0,   // GCM: the 13-byte AAD; CCM: B0
    RAad1,   // CCM: the length-prefixed AAD
    RHdr,    // SEAL: the header and the explicit nonce to DST
    RData,
    RFinal
  } rstep_e;

  // SEAL_CBC and OPEN_CBC run as steps inside SRun. OPEN_CBC: CIvLast .. CLast (the last block
  // alone, for the padding length), CIv .. CPassA (the whole body through AES into the HMAC, nothing
  // written), COuter, CCheck, CInitB, CPassB (the whole body again, written only if it checked out;
  // if not, the same bus writes with no byte enabled: the same cycles either way). SEAL_CBC:
  // CShaInit, CPassA (the plaintext into the HMAC), COuter, SMac, SPad, SHdr, SIv, CInitB, CPassB.
  typedef enum logic [3:0] {
    CIvLast, CInitLast, CLast, CIv, CInit, CShaInit, CPassA, COuter, CCheck, CInitB, CPassB,
    SMac, SPad, SHdr, SIv
  } cstep_e;

  // [a, a + n) inside the window (n <= RamSize already)
  function automatic logic in_ram(input logic [31:0] a, input logic [31:0] n);
    logic [32:0] off;
    off = {1'b0, a} - {1'b0, RamBase};
    in_ram = a >= RamBase && off + {1'b0, n} <= {1'b0, RamSize};
  endfunction

  state_e       state_q, state_d;
  logic [31:0]  desc_q, desc_d;                       // the descriptor running
  logic [31:0]  ctrl_q, src_q, dst_q, len_q, next_q;  // its words
  logic [63:0]  seq_q;                                // SEAL, OPEN: the record's seq_num,
  logic [31:0]  tv_q, salt_q;                         // its type and version, the implicit nonce
  rstep_e       rstep_q, rstep_d;
  cstep_e       cstep_q, cstep_d;
  logic [7:0]   pad_q, pad_d;                         // OPEN_CBC: the padding length
  logic         ok_q, ok_d;                           // OPEN_CBC: padding and MAC checked out
  logic [14:0]  rec_len_q, rec_len_d;
  logic         feed_start, feed_push, feed_ready, feed_valid, feed_keep, feed_pop, feed_done, feed_pad_ok;
  logic         mac_fail;
  logic [127:0] feed_in;
  logic [511:0] feed_blk;
  logic [255:0] feed_mac;
  logic [14:0]  feed_len;
  logic [63:0]  expl_q, expl_d;                       // the explicit nonce
  logic [127:0] tag_q, tag_d;                         // OPEN: the record's tag
  logic [4:0]   widx_q, widx_d, wlast_q, wlast_d;     // the burst: word index, last index (0..16)
  logic [31:0]  buf_q [17];                          // a block in, its words as read
  logic [1:0]   roff_q, roff_d;                       // where in its first word the block starts (SRC & 3)
  logic [31:0]  rd_adr_q, rd_adr_d, wr_adr_q, wr_adr_d;
  logic [31:0]  in_left_q, in_left_d, out_left_q, out_left_d;
  logic [6:0]   chunk_q, chunk_d;                     // bytes of the block in buf_q
  logic         chunk_fin_q, chunk_fin_d;             // buf_q is SHA's FINAL block
  logic [5:0]   wbytes_q, wbytes_d;                   // bytes of the block being written (a digest: 32)
  logic [1:0]   woff_q, woff_d;                       // where it starts in its first word (DST & 3)
  logic [2:0]   wsrc_q, wsrc_d;
  logic         have_in_q, have_in_d, pend_out_q, pend_out_d, held_q, held_d, no_out_q, no_out_d;
  logic         issued_q, issued_d, init_q, init_d, quiet_q, issuing;
  logic         rsm_q, rsm_d;                         // SHA RESUME: the chaining value still to read
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
  wire       keyf = op == OpSha && ctrl_q[10];
  wire       rsmf = op == OpSha && ctrl_q[11];
  wire       rec  = op == OpSeal || op == OpOpen;
  wire       cbc  = op == OpSealCbc || op == OpOpenCbc;          // records the DMA writes as 36 bytes too
  wire       copn = op == OpOpenCbc;
  wire [4:0] hl   = ctrl_q[6] ? 5'd5 : 5'd13;                   // a record header: TLS, DTLS
  // CBC: the bytes after the IV (OPEN: of the body; SEAL: plaintext, MAC, 1..16 of padding)
  wire [31:0] mlen = copn ? len_q - 32'd16 : (len_q + 32'd48) & ~32'd15;
  wire [31:0] cbc_reclen = {27'd0, hl} + 32'd16 + mlen;         // SEAL_CBC: the record written
  wire [7:0]  spad = {4'd0, ~len_q[3:0]};                       // SEAL_CBC: the padding length
  wire       opn  = op == OpOpen;
  wire       ccm  = ctrl_q[7];
  wire [4:0] tl   = ctrl_q[8] ? 5'd8 : 5'd16;                  // SEAL, OPEN: the tag's bytes
  wire [4:0] pre  = hl + 5'd8;                                 // SEAL: header and explicit nonce
  wire [31:0] ptlen = opn ? len_q - 32'd8 - {27'd0, tl} : len_q;
  wire [31:0] reclen = {27'd0, pre} + len_q + {27'd0, tl};     // SEAL: the record written
  // the op the AES engine sees: SEAL and OPEN are AES_DATA, then AES_FINAL
  wire [3:0] aop  = !rec ? op : rstep_q == RFinal ? OpAesFinal : OpAesData;
  wire       is_aes = op == OpAesAad || op == OpAesData || op == OpAesFinal || rec || cbc;
  wire       is_pk  = op == OpPk;
  wire       is_gf  = op == OpGf;
  wire       is_num = is_pk || is_gf;                            // a number into or out of pk or gf2m
  wire       numrd  = is_pk ? ctrl_q[13] : ctrl_q[10];
  wire       running = state_q != SIdle && state_q != SFetch && state_q != SCheck && state_q != SEnd;
  wire       ip_busy = cbc ? aes_busy_i || sha_busy_i : is_aes ? aes_busy_i : is_pk ? pk_busy_i : is_gf ? gf_busy_i :
                       sha_busy_i;
  // The IP has been idle for two cycles: its last command's done pulse (registered, at the latest
  // in the cycle busy drops) has reached eng_err_q.
  wire       ip_quiet = quiet_q && !ip_busy;

  // ---- the checks of SCheck (in order: op, length, addresses, overlap) -------------------------------
  logic [3:0]  verdict;
  logic        reads, writes;
  logic [31:0] wlen, allowed;
  // (Each wide block below is evaluated only in the state that uses it: Verilator runs an always
  // block at every change of its inputs, and an idle DMA should cost the simulator nothing.)
  always_comb begin
    reads  = op != OpAesFinal && len_q != 32'd0 && !(is_num && numrd) && op != OpSealCbc;
    writes = (op == OpAesData && !aes_no_out_i) || (op == OpAesFinal && len_q != 32'd0) || (op == OpSha && finf) ||
             op == OpSeal || (opn && ptlen != 32'd0) || rsmf || (is_num && numrd) || cbc;
    wlen   = op == OpSha ? 32'd32 : op == OpSeal ? reclen : rec ? ptlen : op == OpSealCbc ? cbc_reclen :
             copn ? mlen : len_q;
    // the CTRL bits each op may set
    allowed = rec ? 32'h0000_01ff : cbc ? 32'h0000_007f : op == OpSha ? 32'h0000_0f0f : is_pk ? 32'h0000_3f0f :
              is_gf ? 32'h0000_070f : 32'h0000_000f;
    verdict = ResOk;
    if (state_q != SCheck)
      verdict = ResOk;
    else if (op == 4'd0 || op > OpOpenCbc || (ctrl_q & ~allowed) != '0 || ((rec || cbc) && tv_q[31:24] != '0) ||
             (keyf && ctrl_q[9:8] != '0) || (rsmf && ctrl_q[10:8] != '0) ||
             (is_gf && (ctrl_q[9:8] == 2'd3 || (numrd && ctrl_q[9]))))
      verdict = ResBadOp;
    else if (len_q > RamSize || (len_q == 32'd0 && (op == OpAesAad || op == OpAesData)) ||
             (op == OpSha && !finf && !keyf && len_q[5:0] != 6'd0) || (keyf && len_q > 32'd64) || (rsmf && len_q == 32'd0) ||
             (op == OpAesFinal && !aes_held_i && len_q > 32'd16) || (op == OpSeal && len_q > MaxRecord) ||
             (opn && (len_q < 32'd8 + {27'd0, tl} || ptlen > MaxRecord)) || (is_num && (len_q == 32'd0 || len_q > 32'd32)) ||
             (op == OpSealCbc && len_q > MaxRecord) || (copn && (len_q < 32'd64 || len_q[3:0] != 4'd0 || len_q > MaxCbcBody)))
      verdict = ResBadLen;
    else if ((reads && !in_ram(src_q, len_q)) || (writes && !in_ram(dst_q, wlen)) || ((rec || cbc) && !in_ram(desc_q, 32'd36)) ||
             (rsmf && dst_q[1:0] != 2'b00))
      verdict = ResBadAddr;
    else if ((op == OpAesData && writes && src_q != dst_q && src_q < dst_q + len_q && dst_q < src_q + len_q) ||
             (op == OpSeal && reads && src_q != dst_q + {27'd0, pre} && src_q < dst_q + reclen && dst_q < src_q + len_q) ||
             (op == OpSealCbc && src_q != dst_q + {27'd0, hl} + 32'd16) ||
             (copn && dst_q != src_q + 32'd16 && src_q < dst_q + mlen && dst_q < src_q + len_q))
      verdict = ResOverlap;
  end

  // the last word index of a burst over n (1..64) bytes that start at byte `off` of a word
  function automatic logic [4:0] last_word(input logic [1:0] off, input logic [6:0] n);
    last_word = 5'(({5'd0, off} + n - 7'd1) >> 2);
  endfunction

  // ---- a block in: its bytes start at byte roff_q of buf_q's first word; the engines' blocks are
  // big-endian, and bytes past the block 0 (a KEY is zero-padded)
  // OPEN: the 8 or 16 bytes just read (explicit nonce, tag) as a big-endian block, from the first
  // five words of buf_q (not from aes_din_o: the state machine reads nothing of block_in)
  logic [127:0] rd_be;
  always_comb begin
    logic [159:0] w;
    rd_be = '0;
    w = '0;
    if ((rec || cbc) && state_q == SRun && have_in_q) begin
      w = {buf_q[4], buf_q[3], buf_q[2], buf_q[1], buf_q[0]} >> {roff_q, 3'b000};
      for (int k = 0; k < 16; k++) rd_be[127 - 8*k -: 8] = w[8*k +: 8];
    end
  end

  // SEAL, OPEN: the nonce, the AAD (seq_num || type || version || length) and the IV, B0 and
  // header made of them (RFC 5288, RFC 6655; SP 800-38C A.2 with a 12-byte nonce: q = 3)
  logic [95:0]  nonce;
  logic [103:0] aad;
  logic [7:0]   b0_flags;
  always_comb begin
    nonce = '0;  aad = '0;  b0_flags = '0;
    aes_iv_o = '0;
    if (rec) begin
      nonce    = {salt_q[7:0], salt_q[15:8], salt_q[23:16], salt_q[31:24], expl_q};
      aad      = {seq_q, tv_q[7:0], tv_q[23:8], ptlen[15:0]};
      b0_flags = {2'b01, 3'((tl - 5'd2) >> 1), 3'd2};
      aes_iv_o = ccm ? {8'd2, nonce, 24'd0} : {nonce, 32'd1};
    end else if (cbc) begin
      aes_iv_o = tag_q;                                  // the IV, or the block before the last
    end
  end

  always_comb begin : block_in
    logic [17*32-1:0] inb;
    inb = '0;
    aes_din_o = '0;
    sha_din_o = '0;
    num_din_o = '0;
    if (rec && state_q == SRun && rstep_q == RAad0)
      aes_din_o = ccm ? {b0_flags, nonce, 8'd0, ptlen[15:0]} : {aad, 24'd0};
    else if (rec && state_q == SRun && rstep_q == RAad1)
      aes_din_o = {16'd13, aad, 8'd0};
    else if (have_in_q) begin
      for (int w = 0; w < 17; w++) inb[32*w +: 32] = buf_q[w];
      inb = inb >> {roff_q, 3'b000};
      for (int k = 0; k < 16; k++) aes_din_o[127 - 8*k -: 8] = inb[8*k +: 8];
      for (int k = 0; k < 64; k++) sha_din_o[511 - 8*k -: 8] = k < chunk_q ? inb[8*k +: 8] : 8'h00;
      if (rsm_q)  // RESUME: the chaining value's eight words as numbers, a block count of 0
        for (int w = 0; w < 16; w++) sha_din_o[511 - 32*w -: 32] = w < 8 ? buf_q[w] : 32'd0;
      if (is_num) begin  // PK, GF2M: the big-endian number in the low bytes
        for (int k = 0; k < 32; k++) num_din_o[255 - 8*k -: 8] = k < chunk_q ? inb[8*k +: 8] : 8'h00;
        num_din_o = num_din_o >> {7'd32 - chunk_q, 3'b000};
      end
    end
    if (cbc) sha_din_o = feed_blk;  // SEAL_CBC, OPEN_CBC: the HMAC input's block
  end

  // ---- a block out: its source's bytes (byte k at [8k +: 8]) moved up by woff_q, whole words; the
  // source holds still until the burst ends (AES's output register until the pop, the tag, the digest)
  logic [31:0]     wr_word;
  logic [3:0]      wr_sel;
  always_comb begin : write_word
    logic [16*32-1:0] outb;
    logic [167:0]     hdr;    // SEAL: the header and the explicit nonce, DTLS's 21 bytes or TLS's 13
    logic [15:0]      flen;   // the record's length field: its body
    logic [255:0]     pkv;    // PK, GF2M READ: the number's low wbytes_q bytes at the top
    outb = '0;
    flen = '0;
    hdr = '0;
    pkv = '0;
    wr_word = '0;
    wr_sel = '0;
    if (state_q == SWrite) begin
      flen = cbc ? 16'(32'd16 + mlen) : 16'(32'd8 + len_q + {27'd0, tl});
      hdr  = ctrl_q[6] ? {tv_q[7:0], tv_q[23:8], flen, expl_q, 64'd0} : {tv_q[7:0], tv_q[23:8], seq_q, flen, expl_q};
      pkv  = (is_pk ? pk_dout_i : ctrl_q[8] ? gf_ry_i : gf_rx_i) << {6'd32 - wbytes_q, 3'b000};
      for (int k = 0; k < 32; k++)
        case (wsrc_q)
          SrcDout: outb[8*k +: 8] = k < 16 ? aes_dout_i[127 - 8*(k % 16) -: 8] : 8'h0;
          SrcTag:  outb[8*k +: 8] = k < 16 ? aes_tag_i[127 - 8*(k % 16) -: 8] : 8'h0;
          SrcHdr:  outb[8*k +: 8] = k < 21 ? hdr[167 - 8*k -: 8] : 8'h0;
          SrcState: outb[8*k +: 8] = sha_digest_i[255 - 32*(k / 4) - 8*(3 - k % 4) -: 8];  // words as numbers
          SrcNum:  outb[8*k +: 8] = pkv[255 - 8*k -: 8];
          SrcPad:  outb[8*k +: 8] = spad;
          default: outb[8*k +: 8] = sha_digest_i[255 - 8*k -: 8];
        endcase
      outb = outb << {woff_q, 3'b000};
      wr_word = (copn && !ok_q) ? '0 : outb[32*widx_q[3:0] +: 32];  // OPEN_CBC refused: no plaintext on the bus
      for (int l = 0; l < 4; l++)
        wr_sel[l] = {2'b0, widx_q, 2'(l)} >= {7'd0, woff_q} && {2'b0, widx_q, 2'(l)} < {7'd0, woff_q} + {3'd0, wbytes_q} &&
                    (!copn || ok_q);  // OPEN_CBC: refused, its writes enable no byte
    end
  end

  always_comb begin
    state_d = state_q;  desc_d = desc_q;  widx_d = widx_q;  wlast_d = wlast_q;  roff_d = roff_q;
    rd_adr_d = rd_adr_q;  wr_adr_d = wr_adr_q;  in_left_d = in_left_q;  out_left_d = out_left_q;
    chunk_d = chunk_q;  chunk_fin_d = chunk_fin_q;  wbytes_d = wbytes_q;  woff_d = woff_q;  wsrc_d = wsrc_q;
    have_in_d = have_in_q;  pend_out_d = pend_out_q;  held_d = held_q;  no_out_d = no_out_q;  issued_d = issued_q;
    init_d = init_q;  rsm_d = rsm_q;  issuing = 1'b0;  result_d = result_q;  rstep_d = rstep_q;  expl_d = expl_q;  tag_d = tag_q;
    cstep_d = cstep_q;  pad_d = pad_q;  ok_d = ok_q;  rec_len_d = rec_len_q;
    feed_start = 1'b0;  feed_push = 1'b0;  feed_pop = 1'b0;  mac_fail = 1'b0;
    feed_in = !cbc ? '0 : cstep_q == CPassA && copn ? aes_dout_i : aes_din_o;  // (still outside CBC records)
    cyc_d = cyc_q;  we_d = we_q;  adr_d = adr_q;
    done_d = 1'b0;  error_d = 1'b0;  bst_st = SIdle;  bst_adr = '0;  bst_n = '0;
    aes_cmd_valid_o = 1'b0;  aes_cmd_o = AesData;  aes_bytes_o = 5'd16;  aes_out_pop_o = 1'b0;
    sha_cmd_valid_o = 1'b0;  sha_cmd_o = ShaBlock;  sha_bytes_o = 7'd0;
    pk_cmd_valid_o = 1'b0;  pk_cmd_o = PkWrite;  gf_we_o = '0;

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
        // SEAL, OPEN: four words more, if they too lie in the window (else SCheck refuses it)
        if (state_q == SFetch && widx_q == 5'd0 &&
            (m_i.dat[3:0] == OpSeal || m_i.dat[3:0] == OpOpen || m_i.dat[3:0] == OpSealCbc || m_i.dat[3:0] == OpOpenCbc) &&
            in_ram(desc_q, 32'd36))
          wlast_d = 5'd8;
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
              state_d = (wsrc_q == SrcDout || wsrc_q == SrcHdr || cbc) ? SRun : SDrain;
              if (wsrc_q == SrcHdr && !cbc) rstep_d = RData;
            end
          endcase
        end
      end

      SCheck: begin
        held_d = aes_held_i;  no_out_d = aes_no_out_i;  have_in_d = 1'b0;  pend_out_d = 1'b0;  issued_d = 1'b0;
        init_d = op == OpSha && ctrl_q[8];
        rsm_d = rsmf;
        rd_adr_d = src_q;  wr_adr_d = dst_q;  in_left_d = reads ? len_q : 32'd0;  out_left_d = len_q;
        if (rec) begin  // the data phase's input, and the held plaintext of OPEN
          rd_adr_d = opn ? src_q + 32'd8 : src_q;  in_left_d = ptlen;
          held_d = opn;  no_out_d = opn;  expl_d = seq_q;  rstep_d = opn ? RExpl : RInit;
        end
        if (cbc) begin
          held_d = 1'b0;  no_out_d = 1'b0;  cstep_d = copn ? CIvLast : CShaInit;  ok_d = 1'b0;
          rec_len_d = copn || verdict != ResOk ? '0 : cbc_reclen[14:0];
        end
        if (verdict != ResOk) begin
          result_d = verdict;  state_d = SEnd;
        end else begin
          state_d = SRun;
        end
      end

      SRun: if (abort_q) begin
        result_d = ResAborted;  state_d = SEnd;
      end else if (eng_err_q) begin                                      // the IP refused a command
        result_d = ResEngine;  state_d = SEnd;
      end else if (cbc) begin
        case (cstep_q)
          CIvLast, CIv, SIv: if (have_in_q) begin                       // a block to chain from
            have_in_d = 1'b0;  tag_d = rd_be;
            cstep_d = cstep_q == CIvLast ? CInitLast : cstep_q == CIv ? CInit : CInitB;
          end else begin
            chunk_d = 7'd16;
            bst_adr = cstep_q == CIvLast ? src_q + len_q - 32'd32 : cstep_q == CIv ? src_q : dst_q + {27'd0, hl};
            roff_d = bst_adr[1:0];
            bst_st = SRead;  bst_n = 7'd16;
          end
          CInitLast, CInit, CInitB: if (aes_cmd_ready_i) begin           // INIT from the slot; then a pass
            aes_cmd_valid_o = 1'b1;  aes_cmd_o = AesInit;  issuing = 1'b1;  state_d = SFinWait;
            cstep_d = cstep_q == CInitLast ? CLast : cstep_q == CInit ? CShaInit : CPassB;
            rd_adr_d  = cstep_q == CInitLast ? src_q + len_q - 32'd16 : copn ? src_q + 32'd16 :
                        dst_q + {27'd0, hl} + 32'd16;
            in_left_d = cstep_q == CInitLast ? 32'd16 : mlen;
            wr_adr_d  = copn ? dst_q : dst_q + {27'd0, hl} + 32'd16;
          end
          CShaInit: if (sha_cmd_ready_i) begin                           // the HMAC; the plaintext into it
            sha_cmd_valid_o = 1'b1;  sha_cmd_o = ShaInit;  issuing = 1'b1;  feed_start = 1'b1;
            cstep_d = CPassA;
            rd_adr_d = copn ? src_q + 32'd16 : src_q;  in_left_d = copn ? mlen : len_q;
          end
          CLast, CPassA, CPassB: begin
            // the pass: blocks in from RAM, through AES (not SEAL's plaintext into the HMAC), out to
            // the padding length (CLast), the HMAC input (CPassA) or RAM (CPassB)
            if (have_in_q && !pend_out_q && (cstep_q == CPassA && !copn ? feed_ready : aes_cmd_ready_i)) begin
              if (cstep_q == CPassA && !copn) begin
                feed_push = 1'b1;
              end else begin
                aes_cmd_valid_o = 1'b1;  aes_cmd_o = AesData;  aes_bytes_o = 5'd16;  issuing = 1'b1;
                pend_out_d = 1'b1;  wbytes_d = 6'd16;
              end
              have_in_d = 1'b0;
            end else if (!have_in_q && in_left_q != 0) begin
              chunk_d = in_left_q >= 32'd16 ? 7'd16 : {2'b0, in_left_q[4:0]};
              in_left_d = in_left_q - {25'd0, chunk_d};
              rd_adr_d = rd_adr_q + {25'd0, chunk_d};
              roff_d = rd_adr_q[1:0];
              bst_st = SRead;  bst_adr = rd_adr_q;  bst_n = chunk_d;
            end else if (pend_out_q && aes_out_valid_i) begin
              if (cstep_q == CPassB) begin
                wsrc_d = SrcDout;  woff_d = wr_adr_q[1:0];
                bst_st = SWrite;  bst_adr = wr_adr_q;  bst_n = 7'd16;
              end else if (cstep_q == CLast || feed_ready) begin
                if (cstep_q == CLast) pad_d = aes_dout_i[7:0];
                feed_push = cstep_q == CPassA;
                aes_out_pop_o = 1'b1;  pend_out_d = 1'b0;
              end
            end else if (!have_in_q && in_left_q == 0 && !pend_out_q && (cstep_q != CPassA || feed_done)) begin
              if (cstep_q == CLast) cstep_d = CIv;
              else if (cstep_q == CPassA) cstep_d = COuter;
              else begin
                state_d = SDrain;
                mac_fail = copn && !ok_q;                                // (the same cycles as a success)
              end
            end
          end
          COuter: if (sha_cmd_ready_i) begin                             // the outer hash
            sha_cmd_valid_o = 1'b1;  sha_cmd_o = ShaOuter;  issuing = 1'b1;  state_d = SFinWait;
            cstep_d = copn ? CCheck : SMac;
          end
          CCheck: begin                                                  // the verdict, not yet told
            ok_d = feed_pad_ok && sha_digest_i == feed_mac;
            rec_len_d = ok_d ? feed_len : '0;
            cstep_d = CInitB;
          end
          SMac, SPad, SHdr: begin                                        // MAC, padding, header out
            wsrc_d  = cstep_q == SMac ? SrcDigest : cstep_q == SPad ? SrcPad : SrcHdr;
            bst_adr = cstep_q == SMac ? src_q + len_q : cstep_q == SPad ? src_q + len_q + 32'd32 : dst_q;
            wbytes_d = cstep_q == SMac ? 6'd32 : cstep_q == SPad ? 6'(spad) + 6'd1 : {1'b0, hl};
            woff_d = bst_adr[1:0];
            bst_st = SWrite;  bst_n = {1'b0, wbytes_d};
            cstep_d = cstep_q == SMac ? SPad : cstep_q == SPad ? SHdr : SIv;
          end
          default: begin
            result_d = ResBadOp;  state_d = SEnd;
          end
        endcase
      end else if (rec && rstep_q < RData) begin
        case (rstep_q)
          RExpl, RTag: if (have_in_q) begin                              // its 8 or tl bytes read
            have_in_d = 1'b0;
            if (rstep_q == RExpl) expl_d = rd_be[127:64];
            else tag_d = ctrl_q[8] ? {rd_be[127:64], 64'd0} : rd_be;
            rstep_d = rstep_q == RExpl ? RTag : RInit;
          end else begin
            chunk_d = rstep_q == RExpl ? 7'd8 : {2'd0, tl};
            bst_adr = rstep_q == RExpl ? src_q : src_q + len_q - {27'd0, tl};
            roff_d = bst_adr[1:0];
            bst_st = SRead;  bst_n = chunk_d;
          end
          RInit: if (aes_cmd_ready_i) begin                              // INIT; SFinWait sees it done
            aes_cmd_valid_o = 1'b1;  aes_cmd_o = AesInit;  issuing = 1'b1;
            rstep_d = RAad0;  state_d = SFinWait;
          end
          RAad0, RAad1: if (aes_cmd_ready_i) begin
            aes_cmd_valid_o = 1'b1;  aes_cmd_o = AesAad;  issuing = 1'b1;
            aes_bytes_o = (ccm || rstep_q == RAad1) ? 5'd16 : 5'd13;
            rstep_d = (ccm && rstep_q == RAad0) ? RAad1 : opn ? RData : RHdr;
          end
          default: begin                                                 // RHdr
            wsrc_d = SrcHdr;  wbytes_d = {1'b0, pre};  woff_d = wr_adr_q[1:0];
            bst_st = SWrite;  bst_adr = wr_adr_q;  bst_n = {2'd0, pre};
          end
        endcase
      end else if (is_aes && aop != OpAesFinal) begin
        if (have_in_q && !pend_out_q && aes_cmd_ready_i) begin          // the block to the engine
          aes_cmd_valid_o = 1'b1;
          aes_cmd_o = aop == OpAesAad ? AesAad : AesData;
          aes_bytes_o = chunk_q[4:0];
          have_in_d = 1'b0;
          pend_out_d = aop == OpAesData && !no_out_q;
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
          state_d = rec ? SRun : SDrain;
          if (rec) begin                                                 // FINAL: the tag, or the plaintext
            rstep_d = RFinal;  out_left_d = opn ? ptlen : {27'd0, tl};
          end
        end
      end else if (aop == OpAesFinal) begin
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
      end else if (is_gf) begin                                          // once the IP is idle:
        if (numrd) begin                                                 // RX or RY out
          if (!gf_busy_i) begin
            wsrc_d = SrcNum;  wbytes_d = len_q[5:0];  woff_d = wr_adr_q[1:0];
            bst_st = SWrite;  bst_adr = wr_adr_q;  bst_n = len_q[6:0];
          end
        end else if (have_in_q) begin                                    // K, PX or PY in
          if (!gf_busy_i) begin
            gf_we_o = 3'(1) << ctrl_q[9:8];  have_in_d = 1'b0;  state_d = SDrain;
          end
        end else begin
          chunk_d = len_q[6:0];  roff_d = src_q[1:0];
          bst_st = SRead;  bst_adr = src_q;  bst_n = len_q[6:0];
        end
      end else if (is_pk) begin
        if (numrd) begin                                                 // READ; SFinWait writes it out
          if (pk_cmd_ready_i) begin
            pk_cmd_valid_o = 1'b1;  pk_cmd_o = PkRead;  issuing = 1'b1;  state_d = SFinWait;
          end
        end else if (have_in_q) begin                                    // WRITE the number read
          if (pk_cmd_ready_i) begin
            pk_cmd_valid_o = 1'b1;  pk_cmd_o = PkWrite;  have_in_d = 1'b0;  issuing = 1'b1;  state_d = SDrain;
          end
        end else begin
          chunk_d = len_q[6:0];  roff_d = src_q[1:0];
          bst_st = SRead;  bst_adr = src_q;  bst_n = len_q[6:0];
        end
      end else begin  // SHA
        if (init_q) begin
          if (sha_cmd_ready_i) begin
            sha_cmd_valid_o = 1'b1;  sha_cmd_o = ShaInit;  init_d = 1'b0;  issuing = 1'b1;
          end
        end else if (rsm_q && !have_in_q) begin                          // RESUME: the chaining value in
          chunk_d = 7'd32;  roff_d = 2'b00;
          bst_st = SRead;  bst_adr = dst_q;  bst_n = 7'd32;
        end else if (rsm_q) begin
          if (sha_cmd_ready_i) begin
            sha_cmd_valid_o = 1'b1;  sha_cmd_o = ShaResume;  have_in_d = 1'b0;  rsm_d = 1'b0;  issuing = 1'b1;
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
          state_d = rsmf ? SFinWait : SDrain;                            // RESUME: the state out, once done
        end
      end

      SFinWait: if (abort_q) begin
        result_d = ResAborted;  state_d = SEnd;
      end else if (ip_quiet) begin
        if (eng_err_q) begin
          result_d = ResEngine;  state_d = SEnd;
        end else if (is_aes) begin
          state_d = SRun;                                                // the tag or plaintext out
        end else if (is_pk) begin                                        // the slot's bytes out
          wsrc_d = SrcNum;  wbytes_d = len_q[5:0];  woff_d = wr_adr_q[1:0];
          bst_st = SWrite;  bst_adr = wr_adr_q;  bst_n = len_q[6:0];
        end else begin                                                   // the digest, or the state, out
          wsrc_d = rsmf ? SrcState : SrcDigest;  wbytes_d = 6'd32;  woff_d = wr_adr_q[1:0];
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

    // OPEN_CBC, SEAL_CBC: the HMAC input's blocks to the SHA engine as they are ready, whatever the
    // bus is doing
    if (cbc && running && cstep_q == CPassA && feed_valid && sha_cmd_ready_i) begin
      sha_cmd_valid_o = 1'b1;  sha_cmd_o = feed_keep ? ShaKeep : ShaBlock;  feed_pop = 1'b1;  issuing = 1'b1;
    end

    // Starting a burst: its first word's address, its last word, read or write.
    if (bst_st != SIdle) begin
      state_d = bst_st;  widx_d = '0;  wlast_d = last_word(bst_adr[1:0], bst_n);
      cyc_d = 1'b1;  we_d = bst_st == SWrite;  adr_d = {bst_adr[31:2], 2'b00};
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= SIdle;  desc_q <= '0;  widx_q <= '0;  wlast_q <= '0;  roff_q <= '0;
      rstep_q <= RExpl;  expl_q <= '0;  tag_q <= '0;  seq_q <= '0;  tv_q <= '0;  salt_q <= '0;
      ctrl_q <= '0;  src_q <= '0;  dst_q <= '0;  len_q <= '0;  next_q <= '0;
      rd_adr_q <= '0;  wr_adr_q <= '0;  in_left_q <= '0;  out_left_q <= '0;
      chunk_q <= '0;  chunk_fin_q <= 1'b0;  wbytes_q <= '0;  woff_q <= '0;  wsrc_q <= SrcDout;
      have_in_q <= 1'b0;  pend_out_q <= 1'b0;  held_q <= 1'b0;  no_out_q <= 1'b0;  issued_q <= 1'b0;  init_q <= 1'b0;
      rsm_q <= 1'b0;  cstep_q <= CIvLast;  pad_q <= '0;  ok_q <= 1'b0;  rec_len_q <= '0;
      quiet_q <= 1'b0;  eng_err_q <= 1'b0;  abort_q <= 1'b0;  ip_res_q <= '0;  result_q <= '0;
      cyc_q <= 1'b0;  we_q <= 1'b0;  adr_q <= '0;
      done_o <= 1'b0;  error_o <= 1'b0;
      for (int w = 0; w < 17; w++) buf_q[w] <= '0;
    end else begin
      state_q <= state_d;  desc_q <= desc_d;  widx_q <= widx_d;  wlast_q <= wlast_d;  roff_q <= roff_d;
      rstep_q <= rstep_d;  expl_q <= expl_d;  tag_q <= tag_d;
      rd_adr_q <= rd_adr_d;  wr_adr_q <= wr_adr_d;  in_left_q <= in_left_d;  out_left_q <= out_left_d;
      chunk_q <= chunk_d;  chunk_fin_q <= chunk_fin_d;  wbytes_q <= wbytes_d;  woff_q <= woff_d;  wsrc_q <= wsrc_d;
      have_in_q <= have_in_d;  pend_out_q <= pend_out_d;  held_q <= held_d;  no_out_q <= no_out_d;  issued_q <= issued_d;
      init_q <= init_d;  rsm_q <= rsm_d;  cstep_q <= cstep_d;  pad_q <= pad_d;  ok_q <= ok_d;  rec_len_q <= rec_len_d;  quiet_q <= !ip_busy && !issuing;  result_q <= result_d;
      cyc_q <= cyc_d;  we_q <= we_d;  adr_q <= adr_d;
      done_o <= done_d;  error_o <= error_d;
      // the descriptor's words as they arrive
      if (state_q == SFetch && m_i.ack)
        case (widx_q)
          5'd0: ctrl_q <= m_i.dat;
          5'd1: src_q  <= m_i.dat;
          5'd2: dst_q  <= m_i.dat;
          5'd3: len_q  <= m_i.dat;
          5'd4: next_q <= m_i.dat;
          5'd5: seq_q[63:32] <= m_i.dat;
          5'd6: seq_q[31:0]  <= m_i.dat;
          5'd7: tv_q   <= m_i.dat;
          default: salt_q <= m_i.dat;
        endcase
      // a block from SRC as whole words (the bytes around it are masked out above); at a chain's
      // end the buffer is cleared (it may have held a key or a scalar)
      if (state_q == SRead && m_i.ack) buf_q[widx_q] <= m_i.dat;
      else if (state_q == SEnd)
        for (int w = 0; w < 17; w++) buf_q[w] <= '0;
      // the IP's refusals while the DMA owns it; cleared by START
      if (state_q == SIdle && start_i) begin
        eng_err_q <= 1'b0;  ip_res_q <= '0;  abort_q <= 1'b0;
      end else if (running && ((is_aes && aes_done_i && aes_status_i != 4'd0) ||
                               (is_pk && pk_done_i && pk_status_i != 4'd0) ||
                               ((op == OpSha || cbc) && sha_done_i && sha_status_i != 3'd0))) begin
        eng_err_q <= 1'b1;
        ip_res_q  <= (is_aes && aes_done_i && aes_status_i != 4'd0) ? aes_status_i : is_pk ? pk_status_i :
                     {1'b0, sha_status_i};
      end else if (mac_fail) begin                                      // OPEN_CBC refused: as a tag
        eng_err_q <= 1'b1;
        ip_res_q  <= 4'd1;                                               // (AES's TAG_FAIL)
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
  assign aes_rec_o   = running && (rec || cbc);
  assign aes_mode_o  = cbc ? ModeCbc : ccm ? ModeCcm : ModeGcm;
  assign aes_dec_o   = opn || copn;
  assign aes_tag_len_o = tl;
  assign aes_slot_o  = ctrl_q[5:4];
  assign aes_tag_in_o = tag_q;
  assign sha_own_o   = running && (op == OpSha || cbc);
  assign sha_hmac_o  = running && cbc;
  assign rec_len_o   = rec_len_q;
  assign pk_own_o    = running && is_pk;
  assign pk_slot_o   = ctrl_q[12:8];

  dma_cbcmac u_cbcmac (
    .clk_i, .rst_ni, .start_i(feed_start), .wipe_i(state_q == SEnd), .open_i(copn),
    .hdr_i({seq_q, tv_q[7:0], tv_q[23:8]}), .n_i(copn ? mlen[14:0] : len_q[14:0]), .pad_i(pad_q),
    .in_valid_i(feed_push), .in_i(feed_in), .in_ready_o(feed_ready),
    .blk_valid_o(feed_valid), .blk_o(feed_blk), .blk_keep_o(feed_keep), .blk_pop_i(feed_pop), .done_o(feed_done),
    .len_o(feed_len), .pad_ok_o(feed_pad_ok), .mac_o(feed_mac)
  );

endmodule

`default_nettype wire
