// AES engine IP: the bus-free aes_engine behind its generated bus side (aes_reg_top, from regs.toml).
`default_nettype none

module aes_wb #(
  parameter int PtbufBlocks = 128  // AEAD-decryption plaintext buffer, 16-byte blocks (SRAM); < 4096,
                                   // the width of CAPABILITIES.PTBUF_BLOCKS
) (
  input  wire logic clk_i, rst_ni,
  input  wire wb_pkg::wb_req_t wb_i, output wb_pkg::wb_rsp_t wb_o,  // the bus side: aes_reg_top (regs.toml)
  output logic irq_o, busy_o,                                        // busy_o: STATUS.BUSY (BUSY_CYCLES)
  // The DMA's command stream (rtl/dma): while dma_own_i it issues the engine's commands and pops
  // its output blocks; then a CMD write is dropped (ERR.CMD_DROPPED) and a DOUT3 read pops nothing.
  input  wire logic dma_own_i, dma_cmd_valid_i, input wire logic [2:0] dma_cmd_i,
  input  wire logic [127:0] dma_din_i, input wire logic [4:0] dma_bytes_i, input wire logic dma_out_pop_i,
  // A DMA record command (SEAL, OPEN) configures the engine itself: while dma_rec_i, INIT takes
  // these instead of CTRL and IV, always from key slot dma_slot_i, and FINAL checks dma_tag_in_i.
  input  wire logic dma_rec_i, input wire logic [2:0] dma_mode_i, input wire logic dma_dec_i,
  input  wire logic [4:0] dma_tag_len_i, input wire logic [127:0] dma_iv_i, input wire logic [1:0] dma_slot_i,
  input  wire logic [127:0] dma_tag_in_i,
  output logic cmd_ready_o, out_valid_o, output logic [127:0] dout_o, output logic no_out_o, held_o, rel_o,
  output logic eng_busy_o, done_o, output logic [3:0] status_o, output logic [127:0] tag_o,
  // The protocol controller's AESK (rtl/ctrl): an AES-128 key into a slot from inside the engine, a
  // byte a cycle (ctrl_key_kind_i 0), then LOAD (1) marks the slot full. Taken only while the engine
  // is idle and neither an INIT nor SLOT_CMD takes a slot in that cycle (ctrl_key_ready_o).
  input  wire logic ctrl_key_req_i, ctrl_key_kind_i, input wire logic [1:0] ctrl_key_slot_i,
  input  wire logic [7:0] ctrl_key_byte_i, output logic ctrl_key_ready_o
);

  logic         cmd_ready, out_valid, done;
  logic [3:0]   result;
  logic [127:0] dout, tag;

  // The registers, as aes_reg_top keeps them.
  aes_reg_pkg::aes_reg2hw_t reg2hw;
  aes_reg_pkg::aes_hw2reg_t hw2reg;
  aes_reg_top u_reg (.clk_i, .rst_ni, .wb_i, .wb_o, .reg2hw_o(reg2hw), .hw2reg_i(hw2reg), .irq_o, .busy_o);

  assign hw2reg.capabilities.ptbuf_blocks = PtbufBlocks[11:0];
  assign hw2reg.status.cmd_ready = cmd_ready;
  assign hw2reg.status.out_valid = out_valid;
  assign hw2reg.err.cmd_dropped  = reg2hw.cmd.wr && (!cmd_ready || dma_own_i);
  assign hw2reg.err.early_read   = |reg2hw.dout.rd && !out_valid;
  assign hw2reg.dout             = out_valid && !dma_rec_i ? dout : 128'h0;  // (a record's blocks: never)

  // ---- key slots: a key, its length and, once a GCM INIT has computed it, its hash key H. No
  // register reads them. SLOT_CMD LOAD copies KEY0..7 and CTRL.KEYLEN in; WIPE zeroes a slot;
  // both are dropped while the engine is busy (so never under a running INIT). The controller's key
  // bytes shift into a slot's first 16 bytes (an AES-128 key: KEY0..3's place), the rest zero; the
  // slot holds no key from its first byte until its LOAD, and SLOT_CMD on it is dropped meanwhile (a
  // LOAD or WIPE between the bytes would splice the bus's bytes into the derived key). INIT with
  // CTRL.USE_SLOT takes its key from slot CTRL.SLOT when the engine takes it (init_take), which
  // also latches the slot that then gets the INIT's H.
  localparam int Slots = 4;
  logic [255:0] slot_key_q [Slots];
  logic [127:0] slot_h_q [Slots];
  logic [1:0]   slot_kl_q [Slots];
  logic [Slots-1:0] slot_v_q, slot_hv_q;
  logic         use_q;         // the last INIT taken ran from a slot ...
  logic [1:0]   sel_q;         // ... this one
  logic         slot_go, h_we, init_take, ctrl_go;
  logic         kon_q;         // an AESK under way, from its first byte to its LOAD ...
  logic [1:0]   kslot_q;       // ... into this slot, which SLOT_CMD may not touch meanwhile
  logic [127:0] h_new;
  // the slot INIT would take: CTRL's, or a DMA record's
  wire          use_slot = dma_rec_i || reg2hw.ctrl.use_slot;
  wire [1:0]    slot = dma_rec_i ? dma_slot_i : reg2hw.ctrl.slot;
  assign slot_go = reg2hw.slot_cmd.wr && !eng_busy_o &&
                   (reg2hw.slot_cmd.op == 2'd1 || reg2hw.slot_cmd.op == 2'd2) &&
                   !(kon_q && reg2hw.slot_cmd.idx == kslot_q);
  assign hw2reg.err.slot_dropped = reg2hw.slot_cmd.wr && !slot_go;
  assign ctrl_key_ready_o = !eng_busy_o && !init_take && !reg2hw.slot_cmd.wr;
  assign ctrl_go = ctrl_key_req_i && ctrl_key_ready_o;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int i = 0; i < Slots; i++) begin
        slot_key_q[i] <= '0;  slot_h_q[i] <= '0;  slot_kl_q[i] <= '0;
      end
      slot_v_q <= '0;  slot_hv_q <= '0;  use_q <= 1'b0;  sel_q <= '0;  kon_q <= 1'b0;  kslot_q <= '0;
    end else begin
      if (ctrl_go) begin kon_q <= !ctrl_key_kind_i; kslot_q <= ctrl_key_slot_i; end
      if (slot_go) begin
        slot_key_q[reg2hw.slot_cmd.idx] <= reg2hw.slot_cmd.op == 2'd1 ? reg2hw.key : '0;
        slot_kl_q[reg2hw.slot_cmd.idx]  <= reg2hw.slot_cmd.op == 2'd1 ? reg2hw.ctrl.keylen : '0;
        slot_h_q[reg2hw.slot_cmd.idx]   <= '0;
        slot_v_q[reg2hw.slot_cmd.idx]   <= reg2hw.slot_cmd.op == 2'd1;
        slot_hv_q[reg2hw.slot_cmd.idx]  <= 1'b0;
      end else if (ctrl_go && !ctrl_key_kind_i) begin
        slot_key_q[ctrl_key_slot_i] <= {slot_key_q[ctrl_key_slot_i][247:128], ctrl_key_byte_i, 128'h0};
        slot_kl_q[ctrl_key_slot_i]  <= 2'd0;
        slot_h_q[ctrl_key_slot_i]   <= '0;
        slot_v_q[ctrl_key_slot_i]   <= 1'b0;
        slot_hv_q[ctrl_key_slot_i]  <= 1'b0;
      end else if (ctrl_go) begin
        slot_v_q[ctrl_key_slot_i]   <= 1'b1;
      end else if (h_we && use_q) begin
        slot_h_q[sel_q]  <= h_new;
        slot_hv_q[sel_q] <= 1'b1;
      end
      if (init_take) begin
        use_q <= use_slot;
        sel_q <= slot;
      end
    end
  end
  assign hw2reg.slot_status.key_valid = slot_v_q;
  assign hw2reg.slot_status.h_valid   = slot_hv_q;

  aes_engine #(.PTBUF_BLOCKS(PtbufBlocks)) u_engine (
    .clk_i, .rst_ni,
    .key_i(use_slot ? slot_key_q[slot] : reg2hw.key),
    .keylen_i(use_slot ? slot_kl_q[slot] : reg2hw.ctrl.keylen),
    .key_ok_i(!use_slot || slot_v_q[slot]),
    .h_valid_i(use_slot && slot_hv_q[slot]), .h_i(slot_h_q[sel_q]),
    .init_take_o(init_take), .h_we_o(h_we), .h_o(h_new),
    .mode_i(dma_rec_i ? dma_mode_i : reg2hw.ctrl.mode), .dec_i(dma_rec_i ? dma_dec_i : reg2hw.ctrl.dec),
    .iv_i(dma_rec_i ? dma_iv_i : reg2hw.iv), .tag_len_i(dma_rec_i ? dma_tag_len_i : reg2hw.ctrl.tag_len),
    .tag_i(dma_rec_i ? dma_tag_in_i : reg2hw.tag_in),
    .cmd_valid_i(dma_own_i ? dma_cmd_valid_i : reg2hw.cmd.wr), .cmd_i(dma_own_i ? dma_cmd_i : reg2hw.cmd.op),
    .din_i(dma_own_i ? dma_din_i : reg2hw.din), .din_bytes_i(dma_own_i ? dma_bytes_i : reg2hw.cmd.bytes),
    .cmd_ready_o(cmd_ready),
    .out_valid_o(out_valid), .dout_o(dout),
    .out_pop_i(dma_own_i ? dma_out_pop_i : reg2hw.dout.rd[0] && out_valid),  // DOUT3 read
    .no_out_o, .held_o, .rel_o,
    .tag_o(tag), .busy_o(eng_busy_o), .done_o(done), .status_o(result)
  );
  assign hw2reg.tag_out          = tag;
  assign hw2reg.status.busy      = eng_busy_o;
  assign hw2reg.intr_state.done  = done;
  assign hw2reg.status.result    = result;
  assign {cmd_ready_o, out_valid_o, dout_o, done_o, status_o, tag_o} = {cmd_ready, out_valid, dout, done, result, tag};

endmodule

`default_nettype wire
