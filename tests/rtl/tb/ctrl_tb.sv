// ctrl_core with its window: a byte memory of ctrl_pkg::MemBytes (an address wraps modulo its size, as
// in ctrl_wb's RAM) that answers a read in the next cycle, which the test fills and reads back
// through a port of its own (ld_*).
`default_nettype none

module ctrl_tb #(
  parameter int BadSeq = 0        // pk's BAD_SEQ (the test passes rtl/pk's number)
) (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  input  wire logic        start_i,
  input  wire logic [4:0]  prog_i,
  input  wire logic        reg_we_i,
  input  wire logic [3:0]  reg_idx_i,
  input  wire logic [15:0] reg_wdata_i,
  output logic      [15:0] reg_rdata_o,
  output logic             busy_o,
  output logic             done_o,
  output logic      [4:0]  status_o,
  output logic             out_valid_o,
  output logic      [3:0]  out_slot_o,
  output logic      [1:0]  out_kind_o,
  output logic      [15:0] out_a_o,
  output logic      [15:0] out_n_o,
  input  wire logic        ld_we_i,
  input  wire logic [15:0] ld_addr_i,
  input  wire logic [7:0]  ld_data_i,
  output logic      [7:0]  ld_rdata_o,
  // the SHA IP's calls, answered by the test (a SHA-256 that takes every request at once; SHAS's
  // refusal comes with sha_err_i, which the test raises for it)
  output logic             sha_req_o,
  output logic      [2:0]  sha_kind_o,
  output logic      [7:0]  sha_byte_o,
  input  wire logic        sha_ready_i,
  input  wire logic        sha_err_i,
  input  wire logic        sha_err_final_i,   // refuse FINALs only
  input  wire logic        sha_state_ok_i,    // SHAS is answered (else refused): whole blocks since INIT
  input  wire logic [255:0] sha_digest_i,
  // the pk IP's calls, answered by the test at once: a RUN of program i on cache entry e (0..3) gets
  // pk_status_table_i[4 (32 e + i) +: 4] (the test keeps the table up to date with every WRITE and
  // RUN), on an entry past 3 BAD_SEQ; a READ's slot comes on pk_dout_i in the next cycle
  output logic             pk_req_o,
  output logic      [2:0]  pk_kind_o,
  output logic      [7:0]  pk_byte_o,
  output logic      [9:0]  pk_arg_o,
  input  wire logic [511:0] pk_status_table_i,
  input  wire logic [255:0] pk_dout_i,
  // the AES IP's key slots (AESK), answered by the test: a request is taken in a cycle with aes_ready_i
  output logic             aes_req_o,
  output logic             aes_kind_o,
  output logic      [1:0]  aes_slot_o,
  output logic      [7:0]  aes_byte_o,
  input  wire logic        aes_ready_i
);

  logic        mem_re, mem_we;
  logic [15:0] mem_raddr, mem_waddr;
  logic [7:0]  mem_wdata, mem_rdata_q;
  logic [7:0]  mem [ctrl_pkg::MemBytes];
  localparam int Aw = ctrl_pkg::MemAw;

  ctrl_core u_core (
    .clk_i, .rst_ni, .start_i, .prog_i, .reg_we_i, .reg_idx_i, .reg_wdata_i, .reg_rdata_o, .busy_o, .done_o,
    .status_o, .mem_re_o(mem_re), .mem_raddr_o(mem_raddr), .mem_rdata_i(mem_rdata_q), .mem_we_o(mem_we),
    .mem_waddr_o(mem_waddr), .mem_wdata_o(mem_wdata), .out_valid_o, .out_slot_o, .out_kind_o, .out_a_o, .out_n_o,
    .sha_req_o, .sha_kind_o, .sha_byte_o, .sha_ready_i, .sha_err_i(sha_err_i || (sha_err_final_i && sha_kind_o == 3'd2) || (!sha_state_ok_i && sha_kind_o == 3'd5)),
    .sha_digest_i, .pk_req_o, .pk_kind_o, .pk_byte_o, .pk_arg_o, .pk_ready_i(1'b1),
    .pk_status_i(pk_arg_o[9:7] == '0 ? pk_status_table_i[{pk_arg_o[6:0], 2'b00} +: 4] : 4'(BadSeq)), .pk_dout_i,
    .aes_req_o, .aes_kind_o, .aes_slot_o, .aes_byte_o, .aes_ready_i
  );

  always_ff @(posedge clk_i) begin
    if (mem_we) mem[mem_waddr[Aw-1:0]] <= mem_wdata;
    else if (ld_we_i) mem[ld_addr_i[Aw-1:0]] <= ld_data_i;
    if (mem_re) mem_rdata_q <= mem[mem_raddr[Aw-1:0]];
  end
  assign ld_rdata_o = mem[ld_addr_i[Aw-1:0]];
  logic unused_addr;
  assign unused_addr = ^{mem_waddr[15:Aw], mem_raddr[15:Aw], ld_addr_i[15:Aw]};

endmodule

`default_nettype wire
