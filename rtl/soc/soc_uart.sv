// Node UART, a SIMULATION MODEL: bytes go out and come in at once (no baud timing, no framing).
// TXDATA writes become one-cycle strobes on uart_tx_*; received bytes wait in a 16-byte FIFO
// (uart_rx_ready_o is low while it is full, so the simulator holds the next byte).
`default_nettype none

module soc_uart (
  input  wire logic            clk_i,
  input  wire logic            rst_ni,
  input  wire wb_pkg::wb_req_t wb_i,
  output wb_pkg::wb_rsp_t      wb_o,
  output logic                 irq_o,       // level: RX FIFO not empty && INTR_ENABLE.RX
  output logic                 tx_valid_o,  // one cycle per byte written to TXDATA
  output logic [7:0]           tx_data_o,
  input  wire logic            rx_valid_i,  // a byte is taken when rx_valid_i && rx_ready_o
  input  wire logic [7:0]      rx_data_i,
  output logic                 rx_ready_o
);

  localparam int Depth = 16;
  localparam int PtrW  = $clog2(Depth);

  uart_reg_pkg::uart_reg2hw_t reg2hw;
  uart_reg_pkg::uart_hw2reg_t hw2reg;

  uart_reg_top u_reg (.clk_i, .rst_ni, .wb_i, .wb_o, .reg2hw_o(reg2hw), .hw2reg_i(hw2reg), .irq_o);

  // RX FIFO: pointers one bit wider than the index, so full and empty differ
  logic [7:0]    fifo [Depth];
  logic [PtrW:0] wp_q, rp_q;
  logic          empty, full, push, pop;

  assign empty      = wp_q == rp_q;
  assign full       = wp_q == {~rp_q[PtrW], rp_q[PtrW-1:0]};
  assign rx_ready_o = !full;
  assign push       = rx_valid_i && !full;
  assign pop        = reg2hw.rxdata.rd && !empty;

  assign hw2reg.status.rx_valid = !empty;
  assign hw2reg.rxdata.data     = empty ? 8'h0 : fifo[rp_q[PtrW-1:0]];
  assign hw2reg.intr_state.rx   = push;   // an event for software; the line follows the FIFO level

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
      tx_valid_o <= reg2hw.txdata.wr;
      if (reg2hw.txdata.wr) tx_data_o <= reg2hw.txdata.data;
    end
  end

endmodule

`default_nettype wire
