// The protocol controller's IP (rtl/ctrl/README.md): ctrl_core, its window RAM and its generated bus
// side (ctrl_reg_top, from regs.toml).
//
// The window is ctrl_pkg::MemBytes of RAM, four byte lanes of sram_1r1w (one word of four bytes per
// address). The core reads and writes single bytes; an address wraps modulo the window's size, as
// rtl/ctrl/isa.toml says and the model does. While the core is idle the bus owns the RAM: WIN_WDATA
// writes a word at WIN_ADDR, and the read port reads the word at WIN_ADDR every cycle, so that
// WIN_RDATA shows it when the bus asks (WIN_ADDR moves on one cycle after an access, the RAM answers
// in the next, and the bus's next access comes no sooner).
//
// The window's top, from ctrl_pkg::SecretBase, holds the programs' secrets: the bus may write it
// (provisioning a key) but never reads it back (WIN_RDATA gives 0, ERR.WIN_SECRET). CMD WIPE writes
// zeros over it, a word a cycle, while no program runs.
//
// Each output event of a program lands in OUT[slot] and OUT_VALID; START clears them.
//
// The SHA IP's calls (SHAI, SHAU, SHAF): the core's bytes are staged here into 64-byte blocks, each
// handed to the IP as BLOCK, the rest with FINAL. The controller owns the IP (sha_own_o) from the
// INIT it issues until the FINAL's digest, or until its program stops; se_engine shares the IP with
// the DMA, each waiting while the other owns it.
//
// The pk IP's calls (PKW, PKRUN, PKR): the core's bytes are shifted into a 256-bit number here, which
// WRITE puts into a pk slot; RUN starts a pk program and answers with its status once pk is idle;
// READ brings a slot to pk's DOUT for the core to copy. The controller holds the pk IP from its first
// command until its program stops and then a CLEAR has wiped pk's operand slots, scalar and DOUT
// (STATUS.BUSY until then, DONE after), so nothing a program put into pk or read out of it is left
// for the bus (shared with the DMA in se_engine the same way).
`default_nettype none

module ctrl_wb (
  input  wire logic clk_i, rst_ni,
  input  wire wb_pkg::wb_req_t wb_i, output wb_pkg::wb_rsp_t wb_o,  // the bus side: ctrl_reg_top (regs.toml)
  output logic irq_o, busy_o,                                        // busy_o: STATUS.BUSY (BUSY_CYCLES)
  // the SHA IP's command port (rtl/sha sha_wb's, shared in se_engine): its plain SHA-256
  // (sha_own_o: wants or holds it; sha_held_o: holds it, a message begun)
  output logic sha_own_o, sha_held_o, sha_cmd_valid_o, output logic [2:0] sha_cmd_o, output logic [511:0] sha_din_o,
  output logic [6:0] sha_bytes_o, input wire logic sha_cmd_ready_i, sha_busy_i, input wire logic [2:0] sha_status_i,
  input wire logic [255:0] sha_digest_i,
  // the pk IP's command port (rtl/pk pk_wb's, shared in se_engine)
  output logic pk_own_o, pk_held_o, pk_cmd_valid_o, output logic [2:0] pk_cmd_o, output logic [4:0] pk_slot_o,
  output logic [4:0] pk_prog_o, output logic [255:0] pk_din_o,
  input wire logic pk_cmd_ready_i, pk_busy_i, input wire logic [3:0] pk_status_i, input wire logic [255:0] pk_dout_i,
  // the AES IP's key slots (rtl/aes aes_wb's ctrl_key_*): AESK's bytes and LOAD, straight from the core
  output logic aes_key_req_o, aes_key_kind_o, output logic [1:0] aes_key_slot_o, output logic [7:0] aes_key_byte_o,
  input wire logic aes_key_ready_i
);

  localparam int Aw = ctrl_pkg::MemAw;   // window address bits
  localparam int Ww = Aw - 2;            // RAM word address bits

  ctrl_reg_pkg::ctrl_reg2hw_t reg2hw;
  ctrl_reg_pkg::ctrl_hw2reg_t hw2reg;
  ctrl_reg_top u_reg (.clk_i, .rst_ni, .wb_i, .wb_o, .reg2hw_o(reg2hw), .hw2reg_i(hw2reg), .irq_o, .busy_o);

  // ---- the core ---------------------------------------------------------------------------------
  logic        busy, done, start, reg_we;
  logic        ip_busy;          // STATUS.BUSY: a program, a WIPE, or pk's CLEAR after a program
  logic        busy_q, idle;     // idle: no program in this cycle or the last (the RAM then shows WIN_ADDR's word)
  logic [511:0] stage_q;         // SHAU's block being gathered, byte 0 in [511:504]; after SHAF its digest in [511:256]
  logic [4:0]  status;
  logic        mem_re, mem_we;
  logic [15:0] mem_raddr, mem_waddr;
  logic [7:0]  mem_wdata, mem_rdata;
  logic        out_valid;
  logic [3:0]  out_slot;
  logic [1:0]  out_kind;
  logic [15:0] out_a, out_n;
  logic [15:0] unused_reg_rdata;
  logic        sha_req, sha_ready, sha_err;
  logic [2:0]  sha_kind;
  logic [7:0]  sha_byte;
  logic        pk_req, pk_ready;
  logic [2:0]  pk_kind;
  logic [7:0]  pk_byte;
  logic [9:0]  pk_arg;

  // ---- WIPE: zeros over the secret top, a word a cycle ------------------------------------------
  localparam logic [Ww-1:0] SecretWord = Ww'(ctrl_pkg::SecretBase / 4);
  logic          wipe_q, wipe_start, wipe_done;
  logic [Ww-1:0] wcnt_q;       // the word it writes
  assign wipe_start = reg2hw.cmd.wr && !ip_busy && reg2hw.cmd.op == 2'd2;
  assign wipe_done  = wipe_q && wcnt_q == '1;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wipe_q <= 1'b0; wcnt_q <= '0;
    end else if (wipe_start) begin
      wipe_q <= 1'b1; wcnt_q <= SecretWord;
    end else if (wipe_q) begin
      wcnt_q <= wcnt_q + 1'b1;
      if (wipe_done) wipe_q <= 1'b0;
    end
  end

  assign start  = reg2hw.cmd.wr && !ip_busy && reg2hw.cmd.op == 2'd1;
  assign reg_we = reg2hw.setreg.wr && !ip_busy;

  ctrl_core u_core (
    .clk_i, .rst_ni, .start_i(start), .prog_i(reg2hw.cmd.prog), .reg_we_i(reg_we), .reg_idx_i(reg2hw.setreg.idx),
    .reg_wdata_i(reg2hw.setreg.data), .reg_rdata_o(unused_reg_rdata), .busy_o(busy), .done_o(done), .status_o(status),
    .mem_re_o(mem_re), .mem_raddr_o(mem_raddr), .mem_rdata_i(mem_rdata), .mem_we_o(mem_we), .mem_waddr_o(mem_waddr),
    .mem_wdata_o(mem_wdata), .out_valid_o(out_valid), .out_slot_o(out_slot), .out_kind_o(out_kind), .out_a_o(out_a),
    .out_n_o(out_n), .sha_req_o(sha_req), .sha_kind_o(sha_kind), .sha_byte_o(sha_byte), .sha_ready_i(sha_ready),
    .sha_err_i(sha_err), .sha_digest_i(stage_q[511:256]), .pk_req_o(pk_req), .pk_kind_o(pk_kind), .pk_byte_o(pk_byte),
    .pk_arg_o(pk_arg), .pk_ready_i(pk_ready), .pk_status_i, .pk_dout_i, .aes_req_o(aes_key_req_o),
    .aes_kind_o(aes_key_kind_o), .aes_slot_o(aes_key_slot_o), .aes_byte_o(aes_key_byte_o), .aes_ready_i(aes_key_ready_i)
  );

  // ---- the pk IP's calls --------------------------------------------------------------------------
  localparam logic [2:0] PkWrite = 3'd1, PkRead = 3'd2, PkRun = 3'd3, PkClear = 3'd5;
  logic [255:0] num_q;      // PKW's number, its bytes shifted in from the right
  logic         issued_q;   // RUN or READ taken: answered when the IP is idle again
  logic         pk_held_q;  // the controller has used pk in this program (and not yet cleared it)
  logic         pk_clr;     // the program has stopped: pk's CLEAR, then pk is released
  logic         clr_sent_q; // that CLEAR taken
  logic         clr_done;   // ... and over: pk released
  logic         waits;      // the core's request is one answered when the IP is idle again
  assign waits    = pk_kind == ctrl_pkg::PkRun || pk_kind == ctrl_pkg::PkRead;
  assign pk_clr   = !busy && pk_held_q;
  assign clr_done = pk_clr && clr_sent_q && !pk_busy_i;
  assign pk_cmd_valid_o = pk_clr ? !clr_sent_q : pk_req && (pk_kind == ctrl_pkg::PkWrite || (waits && !issued_q));
  always_comb begin
    if (pk_clr) pk_cmd_o = PkClear;
    else unique case (pk_kind)
      ctrl_pkg::PkRun:  pk_cmd_o = PkRun;
      ctrl_pkg::PkRead: pk_cmd_o = PkRead;
      default:          pk_cmd_o = PkWrite;
    endcase
  end
  assign pk_slot_o = pk_kind == ctrl_pkg::PkRun ? pk_arg[9:5] : pk_arg[4:0];
  assign pk_prog_o = pk_arg[4:0];
  assign pk_din_o  = num_q;
  assign pk_own_o  = pk_held_q || pk_cmd_valid_o;
  assign pk_held_o = pk_held_q;
  always_comb begin
    unique case (pk_kind)
      ctrl_pkg::PkClear, ctrl_pkg::PkByte: pk_ready = 1'b1;
      ctrl_pkg::PkWrite: pk_ready = pk_cmd_ready_i;
      default:           pk_ready = issued_q && !pk_busy_i;   // PkRun, PkRead
    endcase
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      num_q <= '0; issued_q <= 1'b0; pk_held_q <= 1'b0; clr_sent_q <= 1'b0;
    end else if (!busy) begin                        // no program: no number kept; pk cleared, then let go
      num_q <= '0; issued_q <= 1'b0;
      if (pk_clr && pk_cmd_valid_o && pk_cmd_ready_i) clr_sent_q <= 1'b1;
      if (clr_done) begin pk_held_q <= 1'b0; clr_sent_q <= 1'b0; end
    end else begin
      if (pk_req && pk_kind == ctrl_pkg::PkClear) num_q <= '0;
      if (pk_req && pk_kind == ctrl_pkg::PkByte) num_q <= {num_q[247:0], pk_byte};
      if (pk_cmd_valid_o && pk_cmd_ready_i) begin
        pk_held_q <= 1'b1;
        if (waits) issued_q <= 1'b1;
      end
      if (pk_req && waits && pk_ready) issued_q <= 1'b0;
    end
  end
  assign ip_busy = busy || wipe_q || pk_clr;

  // ---- the SHA IP's calls -------------------------------------------------------------------------
  localparam logic [2:0] ShaInit = 3'd1, ShaBlock = 3'd2, ShaFinal = 3'd3, ShaResume = 3'd5;
  logic [6:0]   scnt_q;     // its bytes; 64: full, handed to the IP before anything else
  logic [5:0]   rcnt_q;     // SHAR's state bytes staged: the chaining value in words 0..7, the count in 9
  logic         fin_q;      // FINAL issued: its digest comes when the IP is idle again
  logic         own_q;      // the message is the controller's (INIT or RESUME taken, no digest yet)
  logic         blk_q;      // a BLOCK of it taken since its INIT or RESUME (SHAS has a chaining value)
  // (the command and the core's answer apart: the answer depends on the IP's ready, the command not)
  always_comb begin
    sha_cmd_valid_o = 1'b0; sha_cmd_o = ShaInit;
    if (!busy) begin
      // no program: nothing goes to the IP
    end else if (scnt_q == 7'd64) begin
      sha_cmd_valid_o = 1'b1; sha_cmd_o = ShaBlock;
    end else if (sha_req && sha_kind == ctrl_pkg::ShaInit) begin
      sha_cmd_valid_o = 1'b1;
    end else if (sha_req && sha_kind == ctrl_pkg::ShaGo) begin
      sha_cmd_valid_o = 1'b1; sha_cmd_o = ShaResume;
    end else if (sha_req && sha_kind == ctrl_pkg::ShaFinal && !fin_q) begin
      sha_cmd_valid_o = 1'b1; sha_cmd_o = ShaFinal;
    end
  end
  always_comb begin
    sha_ready = 1'b0; sha_err = 1'b0;
    if (scnt_q != 7'd64 && sha_req) begin
      unique case (sha_kind)
        ctrl_pkg::ShaInit, ctrl_pkg::ShaGo: sha_ready = sha_cmd_ready_i;
        ctrl_pkg::ShaByte, ctrl_pkg::ShaResume: sha_ready = 1'b1;
        ctrl_pkg::ShaState: if (!sha_busy_i) begin sha_ready = 1'b1; sha_err = !own_q || !blk_q || scnt_q != '0; end
        ctrl_pkg::ShaFinal: if (fin_q && !sha_busy_i) begin sha_ready = 1'b1; sha_err = sha_status_i != 3'd0; end
        default: ;
      endcase
    end
  end
  assign sha_din_o   = stage_q;
  assign sha_bytes_o = scnt_q;
  assign sha_own_o   = own_q || sha_cmd_valid_o;
  assign sha_held_o  = own_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      stage_q <= '0; scnt_q <= '0; rcnt_q <= '0; fin_q <= 1'b0; own_q <= 1'b0; blk_q <= 1'b0;
    end else if (!busy) begin                        // no program: nothing staged, nothing owned
      scnt_q <= '0; rcnt_q <= '0; fin_q <= 1'b0; own_q <= 1'b0; blk_q <= 1'b0;
    end else begin
      if (sha_cmd_valid_o && sha_cmd_ready_i) begin
        if (sha_cmd_o == ShaInit || sha_cmd_o == ShaResume) begin
          own_q <= 1'b1; scnt_q <= '0; rcnt_q <= '0; fin_q <= 1'b0; blk_q <= 1'b0;
        end
        if (sha_cmd_o == ShaBlock) begin scnt_q <= '0; blk_q <= 1'b1; end
        if (sha_cmd_o == ShaFinal) fin_q <= 1'b1;
      end
      if (sha_req && sha_kind == ctrl_pkg::ShaResume && sha_ready) begin
        if (rcnt_q == '0) stage_q <= {sha_byte, 504'h0};   // word 8 (the count's high half) stays 0
        else stage_q[{~(rcnt_q < 6'd32 ? rcnt_q : rcnt_q + 6'd4), 3'b000} +: 8] <= sha_byte;
        rcnt_q <= rcnt_q + 6'd1;
      end
      if (sha_req && sha_kind == ctrl_pkg::ShaState && sha_ready) stage_q[511:256] <= sha_digest_i;
      if (sha_req && sha_kind == ctrl_pkg::ShaByte && sha_ready) begin
        stage_q[{~scnt_q[5:0], 3'b000} +: 8] <= sha_byte;   // byte i at bits 511 - 8i .. 504 - 8i
        scnt_q <= scnt_q + 7'd1;
      end
      if (sha_req && sha_kind == ctrl_pkg::ShaFinal && sha_ready) begin
        fin_q <= 1'b0; own_q <= 1'b0; scnt_q <= '0;
        stage_q[511:256] <= sha_digest_i;   // the digest the core copies out: the IP is free again
      end
    end
  end

  // ---- the window: the core's byte port while it runs, the bus's word port while it is idle ------
  // A bus access to the window is in range when WIN_ADDR is aligned and inside it; a read, when it
  // is below the secret top too; a write, when it is below the secret top or in one of its two
  // places the bus provisions: the DRBG's entropy input (ENT_AT) and the client's key (CK_AT, from a
  // WIPE until a program runs: ck_lock_q, set out of reset too, since a reset leaves the window as it
  // was). The rest of the secret top is the programs' alone, so the bus can neither read a secret nor
  // change part of one and watch a program's output.
  localparam logic [Ww:0] EntLo = (Ww+1)'(ctrl_pkg::EntAt / 4), EntHi = (Ww+1)'((ctrl_pkg::EntAt + ctrl_pkg::EntBytes) / 4),
                          CkLo = (Ww+1)'(ctrl_pkg::CkAt / 4), CkHi = (Ww+1)'((ctrl_pkg::CkAt + ctrl_pkg::CkBytes) / 4);
  logic win_ok, win_secret, win_wr, win_rd, win_prov, ck_lock_q;
  logic [Ww:0] wword;
  assign idle       = !ip_busy && !busy_q;
  assign win_ok     = reg2hw.win_addr[1:0] == 2'b00 && reg2hw.win_addr[31:Aw] == '0;
  assign win_secret = reg2hw.win_addr[Aw-1:2] >= SecretWord;
  assign wword      = {1'b0, reg2hw.win_addr[Aw-1:2]};
  assign win_prov   = (wword >= EntLo && wword < EntHi) || (wword >= CkLo && wword < CkHi && !ck_lock_q);
  assign win_wr = reg2hw.win_wdata.wr && idle && win_ok && (!win_secret || win_prov);
  assign win_rd = reg2hw.win_rdata.rd && idle && win_ok && !win_secret;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) ck_lock_q <= 1'b1;
    else if (wipe_start) ck_lock_q <= 1'b0;
    else if (start) ck_lock_q <= 1'b1;
  end

  logic [3:0]    lane_we;
  logic [Ww-1:0] waddr, raddr;
  logic [31:0]   wdata, rword;
  logic [1:0]    rlane_q;
  always_comb begin
    if (busy) begin
      lane_we = mem_we ? 4'b0001 << mem_waddr[1:0] : 4'b0000;
      waddr   = mem_waddr[Aw-1:2];
      wdata   = {4{mem_wdata}};
      raddr   = mem_raddr[Aw-1:2];
    end else if (wipe_q) begin
      lane_we = 4'b1111;
      waddr   = wcnt_q;
      wdata   = '0;
      raddr   = reg2hw.win_addr[Aw-1:2];
    end else begin
      lane_we = {4{win_wr}};
      waddr   = reg2hw.win_addr[Aw-1:2];
      wdata   = reg2hw.win_wdata.value;
      raddr   = reg2hw.win_addr[Aw-1:2];
    end
  end

  for (genvar l = 0; l < 4; l++) begin : g_lane
    sram_1r1w #(.WIDTH(8), .DEPTH(1 << Ww)) u_ram (
      .clk_i, .we_i(lane_we[l]), .waddr_i(waddr), .wdata_i(wdata[8*l +: 8]),
      .re_i(busy ? mem_re : 1'b1), .raddr_i(raddr), .rdata_o(rword[8*l +: 8])
    );
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rlane_q <= '0; busy_q <= 1'b0;
    end else begin
      busy_q <= busy;
      if (mem_re) rlane_q <= mem_raddr[1:0];
    end
  end
  assign mem_rdata = rword[8*rlane_q +: 8];

  // ---- the outputs --------------------------------------------------------------------------------
  logic [15:0]  valid_q;
  logic [511:0] out_q;                    // OUT0 in the top word, as the registers pack it
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
      out_q <= '0;
    end else if (start) begin
      valid_q <= '0;
      out_q <= '0;
    end else if (out_valid) begin
      valid_q[out_slot] <= 1'b1;
      out_q[{~out_slot, 5'd0} +: 32] <= {out_n, out_a};   // (15 - slot) * 32
    end
  end
  assign hw2reg.out = out_q;
  assign hw2reg.out_valid = {16'h0, valid_q};

  // ---- status, errors, the interrupt -------------------------------------------------------------
  assign hw2reg.status.busy   = ip_busy;
  assign hw2reg.status.result = status;
  assign hw2reg.intr_state.done = (done && !pk_held_q) || clr_done || wipe_done;   // (a program that held pk: once it is cleared)
  assign hw2reg.err.cmd_dropped = (ip_busy && (reg2hw.cmd.wr || reg2hw.setreg.wr)) ||
                                  (!idle && (reg2hw.win_wdata.wr || reg2hw.win_rdata.rd));
  assign hw2reg.err.bad_cmd   = reg2hw.cmd.wr && !ip_busy && reg2hw.cmd.op != 2'd1 && reg2hw.cmd.op != 2'd2;
  assign hw2reg.err.win_range = idle && !win_ok && (reg2hw.win_wdata.wr || reg2hw.win_rdata.rd);
  assign hw2reg.err.win_secret = idle && win_ok && win_secret && (reg2hw.win_rdata.rd || (reg2hw.win_wdata.wr && !win_prov));
  assign hw2reg.win_rdata     = !idle || !win_ok || win_secret ? 32'h0 : rword;
  assign hw2reg.win_addr.de   = win_wr || win_rd;
  assign hw2reg.win_addr.d    = reg2hw.win_addr + 32'd4;

  logic unused_kind;
  assign unused_kind = ^{out_kind, unused_reg_rdata, mem_raddr[15:Aw], mem_waddr[15:Aw]};   // (the window wraps)

endmodule

`default_nettype wire
