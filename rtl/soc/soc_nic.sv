// Node packet interface (NIC0): byte streams with packet ends on the simulation side, whole packets
// for software. RX: a 4 KiB buffer of word-aligned packets plus a queue of their lengths; software
// sees only complete packets (RX_LEN, RX_DATA 4 bytes per read, RX_POP). TX: TX_DATA appends
// words to a 2 KiB ring, TX_SEND turns the first LEN appended bytes into a packet that leaves
// one byte per cycle while nic_tx_ready_i.
// TX_DMA (1.1): the NIC reads a packet from RAM itself, a word per bus access through its master
// port (m_o/m_i, the bus's last master), into the TX ring, and queues it as TX_SEND does; the CPU
// only writes TX_ADDR and TX_DMA. It reaches [RamBase, RamBase + RamSize) only.
// Flow control, not loss: nic_rx_ready_o is low while the next byte has no room (buffer or length
// queue full), so the simulator holds it; a packet never exceeds 2048 bytes and the buffer holds
// two, so draining the head packet always makes room. Only a packet longer than 2048 bytes is
// dropped (and counted in RX_DROPPED). TX_DATA with the ring full, and TX_SEND while 16 packets
// wait behind the one leaving, are dropped: software keeps at most 2 KiB outstanding (STATUS.TX_BUSY).
`default_nettype none

module soc_nic #(
  parameter logic [31:0] RamBase = 32'h1000_0000,  // the window TX_DMA may read (the node's RAM)
  parameter logic [31:0] RamSize = 32'h0001_0000
) (
  input  wire logic            clk_i,
  input  wire logic            rst_ni,
  input  wire wb_pkg::wb_req_t wb_i,
  output wb_pkg::wb_rsp_t      wb_o,
  output logic                 irq_o,  // level: RX_AVAIL && INTR_ENABLE.RX
  // TX_DMA's bus master (node RAM)
  output wb_pkg::wb_req_t      m_o,
  input  wire wb_pkg::wb_rsp_t m_i,
  // simulation side
  output logic                 tx_valid_o,
  output logic [7:0]           tx_data_o,
  output logic                 tx_last_o,
  input  wire logic            tx_ready_i,
  input  wire logic            rx_valid_i,
  input  wire logic [7:0]      rx_data_i,
  input  wire logic            rx_last_i,
  output logic                 rx_ready_o
);

  localparam int MaxLen  = 2048;        // bytes per packet
  localparam int RxWords = 1024;        // 4 KiB
  localparam int TxWords = 512;         // 2 KiB
  localparam int RxAw    = $clog2(RxWords);
  localparam int TxAw    = $clog2(TxWords);
  localparam int RxQ     = 64;          // RX lengths queue: packets waiting
  localparam int TxQ     = 16;          // TX lengths queue: packets sent, not yet started
  localparam int RxQw    = $clog2(RxQ);
  localparam int TxQw    = $clog2(TxQ);

  nic_reg_pkg::nic_reg2hw_t reg2hw;
  nic_reg_pkg::nic_hw2reg_t hw2reg;

  nic_reg_top u_reg (.clk_i, .rst_ni, .wb_i, .wb_o, .reg2hw_o(reg2hw), .hw2reg_i(hw2reg), .irq_o);

  // ---------------------------------------------------------------- RX
  // Packets start on word boundaries. Word pointers are one bit wider than the index (wrap bit).
  logic [RxAw:0]   rx_head_q;     // first word of the head (oldest complete) packet
  logic [RxAw:0]   rx_tail_q;     // first word of the packet being received
  logic [11:0]     rx_cnt_q;      // bytes of the packet being received so far (0..MaxLen)
  logic            rx_drop_q;     // discarding the rest of an over-long packet
  logic [11:0]     rx_off_q;      // byte offset of the next RX_DATA word in the head packet
  logic [11:0]     rxq [RxQ];     // lengths of the complete packets
  logic [RxQw:0]   rxq_wp_q, rxq_rp_q;
  logic            rxq_full, rx_take, rx_store, rx_commit, rx_overlong, rx_pop;
  logic [RxAw+1:0] rx_used;       // words held: complete packets + the partial one
  logic [11:0]     rx_cnt_next;
  logic [RxAw-1:0] rx_waddr, rx_raddr;

  logic        rx_avail, tx_busy;
  logic        dma_q, dma_err_q;      // TX_DMA reading; the last one sent nothing
  logic [11:0] rx_len;
  logic [31:0] rx_word, rx_dropped_q;

  assign hw2reg.status.rx_avail = rx_avail;
  assign hw2reg.status.tx_busy  = tx_busy;
  assign hw2reg.status.tx_dma   = dma_q;
  assign hw2reg.status.tx_dma_err = dma_err_q;
  assign hw2reg.rx_len.len      = rx_len;
  assign hw2reg.rx_data         = rx_word;
  assign hw2reg.intr_state.rx   = rx_commit;   // an event for software; the line follows RX_AVAIL
  assign hw2reg.rx_dropped      = rx_dropped_q;

  assign rx_avail = rxq_wp_q != rxq_rp_q;
  assign rxq_full = rxq_wp_q == {~rxq_rp_q[RxQw], rxq_rp_q[RxQw-1:0]};
  assign rx_len   = rx_avail ? rxq[rxq_rp_q[RxQw-1:0]] : 12'h0;
  assign rx_used  = {1'b0, rx_tail_q - rx_head_q} + {2'b0, rx_cnt_q[11:2]} + {{RxAw+1{1'b0}}, |rx_cnt_q[1:0]};

  // A byte needs a new word when it starts one (rx_cnt_q[1:0] == 0); a byte past MaxLen is
  // discarded and needs nothing.
  assign rx_overlong = rx_cnt_q == 12'(MaxLen);
  assign rx_ready_o  = rx_drop_q || rx_overlong ||
                       (!rxq_full && (rx_cnt_q[1:0] != 2'd0 || rx_used < (RxAw+2)'(RxWords)));
  assign rx_take     = rx_valid_i && rx_ready_o;
  assign rx_store    = rx_take && !rx_drop_q && !rx_overlong;
  assign rx_commit   = rx_store && rx_last_i;
  assign rx_cnt_next = rx_cnt_q + 12'd1;
  assign rx_waddr    = rx_tail_q[RxAw-1:0] + RxAw'(rx_cnt_q[11:2]);

  for (genvar l = 0; l < 4; l++) begin : g_rx_lane
    logic [7:0] mem [RxWords];
    always_ff @(posedge clk_i) begin
      if (rx_store && rx_cnt_q[1:0] == 2'(l)) mem[rx_waddr] <= rx_data_i;
    end
    // RX_DATA: bytes at or past the packet's end read as 0
    assign rx_word[8*l +: 8] = (rx_off_q + 12'(l) < rx_len) ? mem[rx_raddr] : 8'h0;
  end

  assign rx_raddr = rx_head_q[RxAw-1:0] + RxAw'(rx_off_q[11:2]);
  assign rx_pop   = reg2hw.rx_pop.wr && rx_avail;

  always_ff @(posedge clk_i) begin
    if (rx_commit) rxq[rxq_wp_q[RxQw-1:0]] <= rx_cnt_next;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rx_head_q    <= '0;
      rx_tail_q    <= '0;
      rx_cnt_q     <= 12'h0;
      rx_drop_q    <= 1'b0;
      rx_off_q     <= 12'h0;
      rxq_wp_q     <= '0;
      rxq_rp_q     <= '0;
      rx_dropped_q <= 32'h0;
    end else begin
      if (rx_take) begin
        if (rx_drop_q || rx_overlong) begin
          rx_cnt_q  <= 12'h0;                       // the partial packet is forgotten
          rx_drop_q <= !rx_last_i;
          if (rx_last_i) rx_dropped_q <= rx_dropped_q + 32'd1;
        end else if (rx_last_i) begin
          rx_tail_q <= rx_tail_q + (RxAw+1)'(rx_cnt_next[11:2]) + (RxAw+1)'(|rx_cnt_next[1:0]);
          rx_cnt_q  <= 12'h0;
          rxq_wp_q  <= rxq_wp_q + 1'b1;
        end else begin
          rx_cnt_q <= rx_cnt_next;
        end
      end
      if (rx_pop) begin
        rx_head_q <= rx_head_q + (RxAw+1)'(rx_len[11:2]) + (RxAw+1)'(|rx_len[1:0]);
        rx_off_q  <= 12'h0;
        rxq_rp_q  <= rxq_rp_q + 1'b1;
      end else if (reg2hw.rx_data.rd && rx_off_q < rx_len) begin
        rx_off_q <= rx_off_q + 12'd4;
      end
    end
  end

  // ---------------------------------------------------------------- TX
  logic [31:0]   txmem [TxWords];
  logic [TxAw:0] tx_rd_q;         // word being sent
  logic [1:0]    tx_lane_q;       // its byte
  logic [TxAw:0] tx_com_q;        // end of the sent (committed) packets
  logic [TxAw:0] tx_wr_q;         // end of the appended words
  logic [11:0]   tx_rem_q;        // bytes of the current packet still to go out
  logic [11:0]   txq [TxQ];       // lengths of the committed packets not yet started
  logic [TxQw:0] txq_wp_q, txq_rp_q;
  logic          txq_empty, txq_full, tx_append, tx_start, tx_beat;
  logic [TxAw:0] tx_used, tx_appended;
  logic [11:0]   tx_avail_bytes;
  logic [11:0]   tx_len;
  logic [31:0]   tx_cur;

  assign txq_empty      = txq_wp_q == txq_rp_q;
  assign txq_full       = txq_wp_q == {~txq_rp_q[TxQw], txq_rp_q[TxQw-1:0]};
  assign tx_used        = tx_wr_q - tx_rd_q;
  assign tx_appended    = tx_wr_q - tx_com_q;
  assign tx_avail_bytes = {tx_appended, 2'b00};
  // LEN is clamped to what was appended; 0 (or a full queue) sends nothing
  assign tx_len         = (reg2hw.tx_send.len > tx_avail_bytes) ? tx_avail_bytes[11:0] : reg2hw.tx_send.len;
  assign tx_append      = reg2hw.tx_data.wr && !dma_q && tx_used != (TxAw+1)'(TxWords);
  assign tx_start       = tx_rem_q == 12'h0 && !txq_empty;
  assign tx_busy        = tx_rem_q != 12'h0 || !txq_empty;

  // ---- TX_DMA: checked when written, then one word per bus access into the ring, then queued
  logic [31:0]   dma_adr_q;
  logic [11:0]   dma_len_q;
  logic [9:0]    dma_left_q;       // words still to read
  logic [32:0]   dma_off;
  logic [9:0]    dma_words;
  logic          dma_go, dma_word, dma_done, dma_fail, send, send_ok;
  logic [11:0]   send_len;
  // (evaluated only when TX_DMA is written: the simulator computes nothing here otherwise)
  always_comb begin
    dma_words = '0;
    dma_off   = '0;
    dma_go    = 1'b0;
    if (reg2hw.tx_dma.wr) begin
      dma_words = 10'((reg2hw.tx_dma.len + 12'd3) >> 2);
      dma_off   = {1'b0, reg2hw.tx_addr} - {1'b0, RamBase};
      dma_go    = !dma_q && reg2hw.tx_dma.len != 12'h0 && reg2hw.tx_dma.len <= 12'(MaxLen) &&
                  reg2hw.tx_addr[1:0] == 2'b00 && reg2hw.tx_addr >= RamBase &&
                  dma_off + {21'd0, reg2hw.tx_dma.len} <= {1'b0, RamSize} && tx_appended == '0 && !txq_full &&
                  (TxAw+1)'(TxWords) - tx_used >= (TxAw+1)'(dma_words);
    end
  end
  assign dma_word  = dma_q && m_i.ack;
  assign dma_done  = dma_word && dma_left_q == 10'd1;
  assign dma_fail  = dma_q && m_i.err;
  // bursts of 16 words at most, as the engine's DMA has: cyc drops for a cycle after every 16th ack,
  // so the arbiter may give the bus to the CPU or the engine's DMA between bursts
  logic          dma_gap_q;
  logic [3:0]    dma_burst_q;
  always_ff @(posedge clk_i or negedge rst_ni)
    if (!rst_ni) begin
      dma_gap_q <= 1'b0;  dma_burst_q <= '0;
    end else begin
      dma_gap_q <= dma_q && m_i.ack && dma_burst_q == 4'd15;
      if (dma_q && m_i.ack) dma_burst_q <= dma_burst_q + 4'd1;
      else if (!dma_q) dma_burst_q <= '0;
    end
  assign m_o.cyc   = dma_q && !dma_gap_q;
  assign m_o.stb   = dma_q && !dma_gap_q;
  assign m_o.we    = 1'b0;
  assign m_o.sel   = 4'hf;
  assign m_o.adr   = dma_adr_q;
  assign m_o.dat   = 32'h0;
  // a packet queued: TX_SEND's appended bytes, or TX_DMA's once read
  assign send      = (reg2hw.tx_send.wr && !dma_q) || dma_done;
  assign send_len  = dma_done ? dma_len_q : tx_len;
  assign send_ok   = send && send_len != 12'h0 && !txq_full;

  always_ff @(posedge clk_i) begin
    if (tx_append) txmem[tx_wr_q[TxAw-1:0]] <= reg2hw.tx_data.value;
    if (dma_word) txmem[tx_wr_q[TxAw-1:0]] <= m_i.dat;
    if (send_ok) txq[txq_wp_q[TxQw-1:0]] <= send_len;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dma_q <= 1'b0;  dma_err_q <= 1'b0;  dma_adr_q <= '0;  dma_len_q <= '0;  dma_left_q <= '0;
    end else if (dma_go) begin
      dma_q <= 1'b1;  dma_err_q <= 1'b0;  dma_adr_q <= reg2hw.tx_addr;  dma_len_q <= reg2hw.tx_dma.len;
      dma_left_q <= dma_words;
    end else if (reg2hw.tx_dma.wr && !dma_q) begin
      dma_err_q <= 1'b1;                            // refused: nothing sent
    end else if (dma_fail) begin
      dma_q <= 1'b0;  dma_err_q <= 1'b1;
    end else if (dma_word) begin
      dma_adr_q <= dma_adr_q + 32'd4;
      dma_left_q <= dma_left_q - 10'd1;
      if (dma_done) dma_q <= 1'b0;
    end
  end

  assign tx_cur     = txmem[tx_rd_q[TxAw-1:0]];
  assign tx_valid_o = tx_rem_q != 12'h0;
  assign tx_data_o  = tx_cur[8*tx_lane_q +: 8];
  assign tx_last_o  = tx_rem_q == 12'd1;
  assign tx_beat    = tx_valid_o && tx_ready_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tx_rd_q   <= '0;
      tx_lane_q <= 2'd0;
      tx_com_q  <= '0;
      tx_wr_q   <= '0;
      tx_rem_q  <= 12'h0;
      txq_wp_q  <= '0;
      txq_rp_q  <= '0;
    end else begin
      if (send) begin
        if (send_ok) begin
          tx_com_q <= tx_com_q + (TxAw+1)'(send_len[11:2]) + (TxAw+1)'(|send_len[1:0]);
          tx_wr_q  <= tx_com_q + (TxAw+1)'(send_len[11:2]) + (TxAw+1)'(|send_len[1:0]);
          txq_wp_q <= txq_wp_q + 1'b1;
        end else begin
          tx_wr_q <= tx_com_q;                      // the appended bytes are discarded
        end
      end else if (dma_fail) begin
        tx_wr_q <= tx_com_q;                        // the words read so far are discarded
      end else if (tx_append || dma_word) begin
        tx_wr_q <= tx_wr_q + 1'b1;
      end
      if (tx_start) begin
        tx_rem_q <= txq[txq_rp_q[TxQw-1:0]];
        txq_rp_q <= txq_rp_q + 1'b1;
      end else if (tx_beat) begin
        tx_rem_q <= tx_rem_q - 12'd1;
        if (tx_lane_q == 2'd3 || tx_last_o) begin    // packets start on a word boundary
          tx_rd_q   <= tx_rd_q + 1'b1;
          tx_lane_q <= 2'd0;
        end else begin
          tx_lane_q <= tx_lane_q + 2'd1;
        end
      end
    end
  end

  // RX_POP is a strobe: the value written does not matter.
  logic unused_pop;
  assign unused_pop = ^reg2hw.rx_pop.value;

endmodule

`default_nettype wire
