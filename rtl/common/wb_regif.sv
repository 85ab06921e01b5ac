// Wishbone B4 classic slave to register-block adapter: one register access per bus cycle, registered ack/err.
// Byte addresses; the interconnect (wb_interconnect) decodes the bits above AddrBits. An access takes two clocks:
// the request cycle (the register block sees req_o) and the response cycle (ack_o or err_o).
// A stb still high in the cycle after the ack is another access (B4 classic), with its side
// effects (a CMD pulse, a DOUT3 pop): a master must drop it unless it means one. The node's
// bridge would hold it only for picorv32's back-to-back instruction fetches, which read the ROM
// (rtl/soc/soc_cpu_bridge.sv).
`default_nettype none

module wb_regif #(
  parameter int AddrBits = 8
) (
  input  wire logic                clk_i,
  input  wire logic                rst_ni,
  input  wire wb_pkg::wb_req_t     wb_i,     // Wishbone B4 classic slave
  output wb_pkg::wb_rsp_t          wb_o,
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

  assign req_o   = wb_i.cyc && wb_i.stb && !resp_q;
  assign we_o    = wb_i.we;
  assign addr_o  = wb_i.adr[AddrBits-1:0];
  assign wdata_o = wb_i.dat;
  assign be_o    = wb_i.sel;

  logic        ack_q, err_q;
  logic [31:0] dat_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      resp_q <= 1'b0;
      ack_q  <= 1'b0;
      err_q  <= 1'b0;
      dat_q  <= 32'h0;
    end else begin
      resp_q <= req_o;
      ack_q  <= req_o && !err_i;
      err_q  <= req_o && err_i;
      dat_q  <= req_o ? rdata_i : 32'h0;
    end
  end

  assign wb_o.ack = ack_q;
  assign wb_o.err = err_q;
  assign wb_o.dat = dat_q;

  // The address bits above the window are the interconnect's.
  logic unused_adr;
  assign unused_adr = ^wb_i.adr[31:AddrBits];

endmodule

`default_nettype wire
