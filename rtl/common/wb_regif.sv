// Wishbone B4 classic slave to register-block adapter: one register access per bus cycle, registered ack/err.
// Byte addresses; the interconnect decodes the bits above AddrBits. An access takes two clocks:
// the request cycle (the register block sees req_o) and the response cycle (ack_o or err_o).
// A stb still high in the cycle after the ack is another access (B4 classic), with its side
// effects (a CMD pulse, a DOUT3 pop): a master must drop it unless it means one. The node's
// bridge holds it only for picorv32's back-to-back instruction fetches (rtl/soc/soc_cpu_bridge.sv).
`default_nettype none

module wb_regif #(
  parameter int AddrBits = 8
) (
  input  wire logic                clk_i,
  input  wire logic                rst_ni,
  // Wishbone B4 classic slave
  input  wire logic                wb_cyc_i,
  input  wire logic                wb_stb_i,
  input  wire logic                wb_we_i,
  input  wire logic [AddrBits-1:0] wb_adr_i,
  input  wire logic [31:0]         wb_dat_i,
  input  wire logic [3:0]          wb_sel_i,
  output logic      [31:0]         wb_dat_o,
  output logic                     wb_ack_o,
  output logic                     wb_err_o,
  // register block
  output logic                     req_o,
  output logic                     we_o,
  output logic      [AddrBits-1:0] addr_o,
  output logic      [31:0]         wdata_o,
  output logic      [3:0]          be_o,
  input  wire logic [31:0]         rdata_i,
  input  wire logic                err_i
);

  logic resp_q;  // the response cycle of an access: the master still holds stb, do not access again

  assign req_o   = wb_cyc_i && wb_stb_i && !resp_q;
  assign we_o    = wb_we_i;
  assign addr_o  = wb_adr_i;
  assign wdata_o = wb_dat_i;
  assign be_o    = wb_sel_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      resp_q   <= 1'b0;
      wb_ack_o <= 1'b0;
      wb_err_o <= 1'b0;
      wb_dat_o <= 32'h0;
    end else begin
      resp_q   <= req_o;
      wb_ack_o <= req_o && !err_i;
      wb_err_o <= req_o && err_i;
      wb_dat_o <= req_o ? rdata_i : 32'h0;
    end
  end

endmodule

`default_nettype wire
