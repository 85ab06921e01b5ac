// Wishbone B4 classic as two packed structs: what a master drives (wb_req_t) and what a slave answers (wb_rsp_t).
// Byte addresses, 32-bit data. Every slave port of the engine and the node is one wb_req_t in
// and one wb_rsp_t out; wb_interconnect fans a master's request out to its slaves.
package wb_pkg;

  // (The words last, so they start on word boundaries: Verilator copies them whole.)
  typedef struct packed {
    logic        cyc;
    logic        stb;
    logic        we;
    logic [3:0]  sel;
    logic [31:0] adr;   // byte address; a slave uses the bits below its window size
    logic [31:0] dat;
  } wb_req_t;

  typedef struct packed {
    logic        ack;
    logic        err;
    logic [31:0] dat;
  } wb_rsp_t;

  // Their widths, for packed vectors of them (Yosys 0.23 has neither $bits of a type nor arrays
  // of structs with member access).
  /* verilator lint_off UNUSEDPARAM */
  localparam int ReqBits = 3 + 32 + 32 + 4;
  localparam int RspBits = 32 + 2;
  /* verilator lint_on UNUSEDPARAM */

endpackage
