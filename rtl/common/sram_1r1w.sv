// Behavioural synchronous 1-read/1-write RAM: the model of an SRAM macro (synthesis blackboxes it).
`default_nettype none

module sram_1r1w #(
  parameter int WIDTH = 128,                                 // bits per word
  parameter int DEPTH = 128,                                 // words
  parameter int AddrW = (DEPTH > 1) ? $clog2(DEPTH) : 1      // derived, do not override
) (
  input  wire logic             clk_i,
  input  wire logic             we_i,
  input  wire logic [AddrW-1:0] waddr_i,
  input  wire logic [WIDTH-1:0] wdata_i,
  input  wire logic             re_i,     // rdata_o shows word raddr_i after the edge; holds otherwise
  input  wire logic [AddrW-1:0] raddr_i,
  output logic      [WIDTH-1:0] rdata_o
);

  logic [WIDTH-1:0] mem [DEPTH];

  always_ff @(posedge clk_i) begin
    if (we_i) mem[waddr_i] <= wdata_i;
    if (re_i) rdata_o <= mem[raddr_i];
  end

endmodule

`default_nettype wire
