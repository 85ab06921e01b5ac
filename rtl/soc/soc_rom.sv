// Code memory: 128 KiB ROM on Wishbone B4 classic, registered ack; a write is a bus error (err, no effect).
// Contents: `$readmemh` at time 0 from the file named by the plusarg +rom=<path> (32-bit words,
// word 0 at address 0); words the file does not give read as 0. This is a simulation model:
// synthesis (SYNTHESIS defined, as Yosys does) sees an uninitialised memory.
`default_nettype none

module soc_rom #(
  parameter int AddrBits = 17                    // byte address width: 2^17 bytes = 128 KiB
) (
  input  wire logic                clk_i,
  input  wire logic                rst_ni,
  input  wire logic                wb_cyc_i,
  input  wire logic                wb_stb_i,
  input  wire logic                wb_we_i,
  input  wire logic [AddrBits-1:0] wb_adr_i,
  output logic      [31:0]         wb_dat_o,
  output logic                     wb_ack_o,
  output logic                     wb_err_o
);

  localparam int Words = 2 ** (AddrBits - 2);

  logic [31:0] mem [Words];

`ifndef SYNTHESIS
  initial begin : load
    string path;
    for (int i = 0; i < Words; i++) mem[i] = 32'h0;
    if ($value$plusargs("rom=%s", path)) $readmemh(path, mem);
  end
`endif

  logic req, resp_q, rd_q;
  logic [31:0] rdata_q;
  // resp_q: the response cycle, where the master still holds stb; not a new access
  assign req = wb_cyc_i && wb_stb_i && !resp_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      resp_q   <= 1'b0;
      rd_q     <= 1'b0;
      wb_err_o <= 1'b0;
    end else begin
      resp_q   <= req;
      rd_q     <= req && !wb_we_i;
      wb_err_o <= req && wb_we_i;
    end
  end

  always_ff @(posedge clk_i) begin
    if (req && !wb_we_i) rdata_q <= mem[wb_adr_i[AddrBits-1:2]];
  end

  assign wb_ack_o = rd_q;
  assign wb_dat_o = rd_q ? rdata_q : 32'h0;

  logic unused_adr;
  assign unused_adr = ^wb_adr_i[1:0];

endmodule

`default_nettype wire
