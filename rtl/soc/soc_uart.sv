// Node UART, a SIMULATION MODEL: bytes go out and come in at once (no baud timing, no framing).
// TXDATA writes become one-cycle strobes on uart_tx_*; received bytes wait in a 16-byte FIFO
// (uart_rx_ready_o is low while it is full, so the simulator holds the next byte).
`default_nettype none

module soc_uart (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  input  wire logic        wb_cyc_i,
  input  wire logic        wb_stb_i,
  input  wire logic        wb_we_i,
  input  wire logic [11:0] wb_adr_i,
  input  wire logic [31:0] wb_dat_i,
  input  wire logic [3:0]  wb_sel_i,
  output logic      [31:0] wb_dat_o,
  output logic             wb_ack_o,
  output logic             wb_err_o,
  output logic             irq_o,         // level: RX FIFO not empty && INTR_ENABLE.RX
  output logic             tx_valid_o,    // one cycle per byte written to TXDATA
  output logic      [7:0]  tx_data_o,
  input  wire logic        rx_valid_i,    // a byte is taken when rx_valid_i && rx_ready_o
  input  wire logic [7:0]  rx_data_i,
  output logic             rx_ready_o
);

  localparam int Depth = 16;
  localparam int PtrW  = $clog2(Depth);

  logic        req, we, reg_err;
  logic [11:0] addr;
  logic [31:0] wdata, rdata;
  logic [3:0]  be;

  wb_regif #(.AddrBits(12)) u_wb (
    .clk_i, .rst_ni, .wb_cyc_i, .wb_stb_i, .wb_we_i, .wb_adr_i, .wb_dat_i, .wb_sel_i,
    .wb_dat_o, .wb_ack_o, .wb_err_o,
    .req_o(req), .we_o(we), .addr_o(addr), .wdata_o(wdata), .be_o(be), .rdata_i(rdata),
    .err_i(reg_err)
  );

  // RX FIFO: pointers one bit wider than the index, so full and empty differ
  logic [7:0]    fifo [Depth];
  logic [PtrW:0] wp_q, rp_q;
  logic          empty, full, push, pop, rx_rd, tx_wr, intr_rx, intr_en_rx;
  logic [7:0]    tx_byte;

  assign empty      = wp_q == rp_q;
  assign full       = wp_q == {~rp_q[PtrW], rp_q[PtrW-1:0]};
  assign rx_ready_o = !full;
  assign push       = rx_valid_i && !full;
  assign pop        = rx_rd && !empty;

  uart_regs u_regs (
    .clk_i, .rst_ni,
    .req_i(req), .we_i(we), .addr_i(addr), .wdata_i(wdata), .be_i(be),
    .rdata_o(rdata), .err_o(reg_err),
    .status_rx_valid_i(!empty), .status_tx_ready_i(1'b1),
    .txdata_data_o(tx_byte), .txdata_wr_o(tx_wr),
    .rxdata_data_i(empty ? 8'h0 : fifo[rp_q[PtrW-1:0]]), .rxdata_rd_o(rx_rd),
    .intr_state_rx_o(intr_rx), .intr_state_rx_set_i(push),
    .intr_enable_rx_o(intr_en_rx)
  );

  always_ff @(posedge clk_i) begin
    if (push) fifo[wp_q[PtrW-1:0]] <= rx_data_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wp_q       <= '0;
      rp_q       <= '0;
      tx_valid_o <= 1'b0;
      tx_data_o  <= 8'h0;
    end else begin
      if (push) wp_q <= wp_q + 1'b1;
      if (pop) rp_q <= rp_q + 1'b1;
      tx_valid_o <= tx_wr;
      if (tx_wr) tx_data_o <= tx_byte;
    end
  end

  assign irq_o = !empty && intr_en_rx;

  // INTR_STATE.RX is for software (an event log); the interrupt line follows the FIFO level.
  logic unused_intr;
  assign unused_intr = intr_rx;

endmodule

`default_nettype wire
