// Data RAM: 64 KiB on Wishbone B4 classic with byte selects. A write is acknowledged in its own
// cycle (the memory takes it at that clock edge: no wait state); a read has a registered ack (one
// wait state: a synchronous memory's data come the cycle after its address).
// One memory per byte lane, so a byte or halfword store writes only its lanes (a form every
// tool maps to a plain memory, unlike a variable part-select of a word).
`default_nettype none

module soc_ram #(
  parameter int AddrBits = 16                    // byte address width: 2^16 bytes = 64 KiB
) (
  input  wire logic            clk_i,
  input  wire logic            rst_ni,
  input  wire wb_pkg::wb_req_t wb_i,
  output wb_pkg::wb_rsp_t      wb_o
);

  localparam int Words = 2 ** (AddrBits - 2);

  logic req, rd_q;
  logic [31:0] rdata_q;
  logic [AddrBits-3:0] word;
  // rd_q: a read's response cycle, where the master still holds stb; not a new access
  assign req  = wb_i.cyc && wb_i.stb && !rd_q;
  assign word = wb_i.adr[AddrBits-1:2];

  for (genvar l = 0; l < 4; l++) begin : g_lane
    logic [7:0] mem [Words];
    always_ff @(posedge clk_i) begin
      if (req && wb_i.we && wb_i.sel[l]) mem[word] <= wb_i.dat[8*l +: 8];
      if (req && !wb_i.we) rdata_q[8*l +: 8] <= mem[word];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_q <= 1'b0;
    end else begin
      rd_q <= req && !wb_i.we;
    end
  end

  assign wb_o.ack = rd_q || (req && wb_i.we);
  assign wb_o.err = 1'b0;
  assign wb_o.dat = rd_q ? rdata_q : 32'h0;

  // The address bits outside its words are the interconnect's.
  logic unused_adr;
  assign unused_adr = ^{wb_i.adr[31:AddrBits], wb_i.adr[1:0]};

endmodule

`default_nettype wire
