// Code memory: 128 KiB ROM. The CPU reads it through its fetch port: a synchronous read started by
// PicoRV32's look-ahead address, so the word is there in the cycle the request begins (no wait
// state; soc_cpu_bridge). On Wishbone B4 classic (registered ack) it answers any other read, and
// a write is a bus error (err, no effect).
// Contents: `$readmemh` at time 0 from the file named by the plusarg +rom=<path> (32-bit words,
// word 0 at address 0); words the file does not give read as 0. This is a simulation model:
// synthesis (SYNTHESIS defined, as Yosys does) sees an uninitialised memory.
`default_nettype none

module soc_rom #(
  parameter int AddrBits = 17                    // byte address width: 2^17 bytes = 128 KiB
) (
  input  wire logic            clk_i,
  input  wire logic            rst_ni,
  input  wire wb_pkg::wb_req_t wb_i,
  output wb_pkg::wb_rsp_t      wb_o,
  // the CPU's fetch port: fetch_i reads word fetch_word_i at this edge into fetch_dat_o
  input  wire logic                fetch_i,
  input  wire logic [AddrBits-3:0] fetch_word_i,
  output logic      [31:0]         fetch_dat_o
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

  logic req, resp_q, rd_q, err_q;
  logic [31:0] rdata_q;
  // resp_q: the response cycle, where the master still holds stb; not a new access
  assign req = wb_i.cyc && wb_i.stb && !resp_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      resp_q <= 1'b0;
      rd_q   <= 1'b0;
      err_q  <= 1'b0;
    end else begin
      resp_q <= req;
      rd_q   <= req && !wb_i.we;
      err_q  <= req && wb_i.we;
    end
  end

  always_ff @(posedge clk_i) begin
    if (req && !wb_i.we) rdata_q <= mem[wb_i.adr[AddrBits-1:2]];
  end

  always_ff @(posedge clk_i) begin
    if (fetch_i) fetch_dat_o <= mem[fetch_word_i];
  end

  assign wb_o.ack = rd_q;
  assign wb_o.err = err_q;
  assign wb_o.dat = rd_q ? rdata_q : 32'h0;

  // A ROM takes no data; the address bits outside its words are the interconnect's.
  logic unused;
  assign unused = ^{wb_i.adr[31:AddrBits], wb_i.adr[1:0], wb_i.dat, wb_i.sel};

endmodule

`default_nettype wire
