// PicoRV32 native memory interface -> Wishbone B4 classic master, plus the ROM's fetch port and
// what the simulator observes of the core.
// ROM reads (instructions, and constants) take no wait state: PicoRV32's look-ahead interface
// names the next access a cycle before mem_valid rises; when that is a read inside the ROM, the
// ROM's fetch port reads the word at that edge, and the request is answered in its first cycle,
// off the shared bus (the engine's DMA and the NIC never wait behind an instruction fetch).
// Everything else is one Wishbone cycle per picorv32 request: cyc/stb follow mem_valid, and
// mem_ready is the ack (or err) itself, so an access takes the slave's latency and nothing more.
// picorv32 holds mem_valid until mem_ready and drops it in
// the next cycle, with one exception: with the C extension, a 32-bit instruction that straddles
// two words is fetched by two back-to-back reads, mem_valid staying high while mem_addr moves on
// to the next word. That is a new access, as B4 classic reads a stb held after an ack, and the
// slaves (which drop their request for the response cycle) take it as one.
// picorv32 has no bus-error input: an err is acknowledged to the core with read data 0 and
// reported on bus_err_o for the simulator, which stops there.
`default_nettype none

module soc_cpu_bridge #(
  parameter logic [31:0] RomBase = 32'h0000_0000,
  parameter logic [31:0] RomSize = 32'h0002_0000
) (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  // picorv32 native memory interface
  input  wire logic        mem_valid_i,
  input  wire logic        mem_instr_i,
  output logic             mem_ready_o,
  input  wire logic [31:0] mem_addr_i,
  input  wire logic [31:0] mem_wdata_i,
  input  wire logic [3:0]  mem_wstrb_i,    // 0: a read (picorv32 reads whole words)
  output logic      [31:0] mem_rdata_o,
  input  wire logic        mem_la_read_i,   // look-ahead: a read of mem_la_addr_i starts next cycle
  input  wire logic [31:0] mem_la_addr_i,
  // the ROM's fetch port (soc_rom)
  output logic             rom_fetch_o,
  output logic      [31:0] rom_addr_o,
  input  wire logic [31:0] rom_dat_i,
  // Wishbone B4 classic master
  output wb_pkg::wb_req_t  wb_o,
  input  wire wb_pkg::wb_rsp_t wb_i,
  // observation
  output logic      [31:0] pc_o,           // address of the last instruction fetch
  output logic             sleep_o,        // the core waits in `waitirq` (see below)
  output logic             bus_err_o,      // one cycle per access that ended in err
  output logic      [31:0] bus_err_addr_o,
  output logic             bus_err_we_o
);

  // waitirq: custom-0 opcode, funct7 0000100 (picorv32's own decode of it)
  localparam logic [6:0] OpWaitirq = 7'b0001011, F7Waitirq = 7'b0000100;

  logic resp;     // the response cycle: ack or err
  logic fast;     // a ROM read its look-ahead started: answered now, off the bus
  logic la_rom_q;
  logic [31:2] la_addr_q;

  assign rom_fetch_o = mem_la_read_i && mem_la_addr_i - RomBase < RomSize;  // (below RomBase wraps: outside)
  assign rom_addr_o  = mem_la_addr_i - RomBase;
  assign fast = mem_valid_i && la_rom_q && mem_addr_i[31:2] == la_addr_q && mem_wstrb_i == 4'h0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      la_rom_q  <= 1'b0;
      la_addr_q <= '0;
    end else begin
      la_rom_q  <= rom_fetch_o;
      la_addr_q <= mem_la_addr_i[31:2];
    end
  end

  assign wb_o.cyc = mem_valid_i && !fast;
  assign wb_o.stb = mem_valid_i && !fast;
  assign wb_o.we  = |mem_wstrb_i;
  assign wb_o.adr = mem_addr_i;
  assign wb_o.dat = mem_wdata_i;
  assign wb_o.sel = |mem_wstrb_i ? mem_wstrb_i : 4'hf;

  assign resp        = fast || (mem_valid_i && (wb_i.ack || wb_i.err));
  assign mem_ready_o = resp;
  assign mem_rdata_o = fast ? rom_dat_i : (mem_valid_i && wb_i.ack) ? wb_i.dat : 32'h0;

`ifndef SYNTHESIS
  // What passing a held request on relies on: one still valid in the cycle after its response is
  // an instruction fetch of another word (never a repeated load, store or register access).
  logic        resp_q;
  logic [31:0] resp_addr_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      resp_q      <= 1'b0;
      resp_addr_q <= 32'h0;
    end else begin
      resp_q      <= resp;
      resp_addr_q <= mem_addr_i;
      if (resp_q && mem_valid_i)
        assert (mem_instr_i && mem_wstrb_i == 4'h0 && mem_addr_i != resp_addr_q)
          else $error("soc_cpu_bridge: request held after its response at %h", mem_addr_i);
    end
  end
`endif

  // Sleep. picorv32 fetches an instruction before the previous one has finished: a load or store
  // makes its data access after fetching the next word, and a taken branch discards the word
  // fetched after it. So a fetched waitirq (waitirq_q) means sleep only once the bus has stayed
  // quiet for QuietCycles (the core makes no request while it waits), and any later instruction
  // fetch ends it (the waitirq finished, or was never executed). The instruction is recognised in
  // a whole fetched word: firmware built with the C extension keeps it word-aligned (node_sleep).
  localparam int QuietCycles = 3;
  logic fetched_waitirq, waitirq_q;
  logic [1:0] quiet_q;   // cycles without a request, saturating at QuietCycles
  assign fetched_waitirq = resp && mem_instr_i && mem_rdata_o[6:0] == OpWaitirq && mem_rdata_o[31:25] == F7Waitirq;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pc_o           <= 32'h0;
      waitirq_q      <= 1'b0;
      quiet_q        <= 2'd0;
      sleep_o        <= 1'b0;
      bus_err_o      <= 1'b0;
      bus_err_addr_o <= 32'h0;
      bus_err_we_o   <= 1'b0;
    end else begin
      if (mem_valid_i && mem_instr_i) pc_o <= mem_addr_i;
      if (fetched_waitirq) waitirq_q <= 1'b1;
      else if (mem_valid_i && mem_instr_i) waitirq_q <= 1'b0;
      if (mem_valid_i) quiet_q <= 2'd0;
      else if (quiet_q != 2'(QuietCycles)) quiet_q <= quiet_q + 2'd1;
      sleep_o <= waitirq_q && !mem_valid_i && quiet_q == 2'(QuietCycles);
      bus_err_o <= mem_valid_i && wb_i.err;
      if (mem_valid_i && wb_i.err) begin
        bus_err_addr_o <= mem_addr_i;
        bus_err_we_o   <= |mem_wstrb_i;
      end
    end
  end

endmodule

`default_nettype wire
