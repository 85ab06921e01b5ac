// Data RAM: 64 KiB on Wishbone B4 classic with byte selects, registered ack (1 wait state).
// One memory per byte lane, so a byte or halfword store writes only its lanes (a form every
// tool maps to a plain memory, unlike a variable part-select of a word).
`default_nettype none

module soc_ram #(
  parameter int AddrBits = 16                    // byte address width: 2^16 bytes = 64 KiB
) (
  input  wire logic                clk_i,
  input  wire logic                rst_ni,
  input  wire logic                wb_cyc_i,
  input  wire logic                wb_stb_i,
  input  wire logic                wb_we_i,
  input  wire logic [AddrBits-1:0] wb_adr_i,
  input  wire logic [31:0]         wb_dat_i,
  input  wire logic [3:0]          wb_sel_i,
  output logic      [31:0]         wb_dat_o,
  output logic                     wb_ack_o,
  output logic                     wb_err_o
);

  localparam int Words = 2 ** (AddrBits - 2);

  logic req, resp_q, rd_q;
  logic [31:0] rdata_q;
  logic [AddrBits-3:0] word;
  // resp_q: the response cycle, where the master still holds stb; not a new access
  assign req  = wb_cyc_i && wb_stb_i && !resp_q;
  assign word = wb_adr_i[AddrBits-1:2];

  for (genvar l = 0; l < 4; l++) begin : g_lane
    logic [7:0] mem [Words];
    always_ff @(posedge clk_i) begin
      if (req && wb_we_i && wb_sel_i[l]) mem[word] <= wb_dat_i[8*l +: 8];
      if (req && !wb_we_i) rdata_q[8*l +: 8] <= mem[word];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      resp_q   <= 1'b0;
      rd_q     <= 1'b0;
      wb_ack_o <= 1'b0;
    end else begin
      resp_q   <= req;
      rd_q     <= req && !wb_we_i;
      wb_ack_o <= req;
    end
  end

  assign wb_err_o = 1'b0;
  assign wb_dat_o = rd_q ? rdata_q : 32'h0;

  logic unused_adr;
  assign unused_adr = ^wb_adr_i[1:0];

endmodule

`default_nettype wire
