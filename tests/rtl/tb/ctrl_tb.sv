// ctrl_core with its window: a 64 KiB byte memory that answers a read in the next cycle, which the
// test fills and reads back through a port of its own (ld_*).
`default_nettype none

module ctrl_tb (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  input  wire logic        start_i,
  input  wire logic [3:0]  prog_i,
  input  wire logic        reg_we_i,
  input  wire logic [3:0]  reg_idx_i,
  input  wire logic [15:0] reg_wdata_i,
  output logic      [15:0] reg_rdata_o,
  output logic             busy_o,
  output logic             done_o,
  output logic      [3:0]  status_o,
  output logic             out_valid_o,
  output logic      [3:0]  out_slot_o,
  output logic      [1:0]  out_kind_o,
  output logic      [15:0] out_a_o,
  output logic      [15:0] out_n_o,
  input  wire logic        ld_we_i,
  input  wire logic [15:0] ld_addr_i,
  input  wire logic [7:0]  ld_data_i,
  output logic      [7:0]  ld_rdata_o
);

  logic        mem_re, mem_we;
  logic [15:0] mem_raddr, mem_waddr;
  logic [7:0]  mem_wdata, mem_rdata_q;
  logic [7:0]  mem [65536];

  ctrl_core u_core (
    .clk_i, .rst_ni, .start_i, .prog_i, .reg_we_i, .reg_idx_i, .reg_wdata_i, .reg_rdata_o, .busy_o, .done_o,
    .status_o, .mem_re_o(mem_re), .mem_raddr_o(mem_raddr), .mem_rdata_i(mem_rdata_q), .mem_we_o(mem_we),
    .mem_waddr_o(mem_waddr), .mem_wdata_o(mem_wdata), .out_valid_o, .out_slot_o, .out_kind_o, .out_a_o, .out_n_o
  );

  always_ff @(posedge clk_i) begin
    if (mem_we) mem[mem_waddr] <= mem_wdata;
    else if (ld_we_i) mem[ld_addr_i] <= ld_data_i;
    if (mem_re) mem_rdata_q <= mem[mem_raddr];
  end
  assign ld_rdata_o = mem[ld_addr_i];

endmodule

`default_nettype wire
