// Wishbone B4 classic interconnect: one master, one slave per window of a memory map (tools/memmap.py).
// The node's bus (rtl/soc/memmap.toml) and the engine's windows (rtl/engine/memmap.toml) are both
// one of these. The address selects at most one slave, which gets cyc; stb, we, adr, dat and sel go
// to every slave (each uses only the address bits below its window size). An address outside
// every window, or in the window of a slave marked absent, is answered here with a registered err,
// like a slave would (1 wait state), and read data 0.
`default_nettype none

module wb_interconnect #(
  parameter int                      NumSlaves = 1,
  // Window i at [32*i +: 32]: size a power of two, base a multiple of it (memmap.py checks both).
  parameter logic [NumSlaves*32-1:0] Bases     = '0,
  parameter logic [NumSlaves*32-1:0] Sizes     = {NumSlaves{32'h1}},
  parameter logic [NumSlaves-1:0]    Present   = {NumSlaves{1'b1}}  // 0: slave i is left out, its window unmapped
) (
  input  wire logic                                 clk_i,
  input  wire logic                                 rst_ni,
  input  wire wb_pkg::wb_req_t                      m_i,   // from the master
  output wb_pkg::wb_rsp_t                           m_o,
  output logic [NumSlaves*wb_pkg::ReqBits-1:0]      s_o,   // to slave i at [ReqBits*i +: ReqBits]
  input  wire logic [NumSlaves*wb_pkg::RspBits-1:0] s_i    // from slave i at [RspBits*i +: RspBits]
);

  localparam int ReqBits = wb_pkg::ReqBits, RspBits = wb_pkg::RspBits;

  logic [NumSlaves-1:0] sel;
  always_comb begin
    for (int i = 0; i < NumSlaves; i++)
      sel[i] = Present[i] && (m_i.adr & ~(Sizes[32*i +: 32] - 32'd1)) == Bases[32*i +: 32];
  end

  wb_pkg::wb_req_t req;
  always_comb begin
    for (int i = 0; i < NumSlaves; i++) begin
      req = m_i;
      req.cyc = m_i.cyc && sel[i];
      s_o[ReqBits*i +: ReqBits] = req;
    end
  end

  // No slave: an error response in the next cycle; hole_q also keeps the master's held stb from
  // starting a second one in the response cycle.
  logic hole, hole_q;
  assign hole = m_i.cyc && m_i.stb && !hole_q && sel == '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) hole_q <= 1'b0;
    else hole_q <= hole;
  end

  // Slaves may drive data outside their ack; only the acknowledging one reaches the master.
  wb_pkg::wb_rsp_t rsp;
  logic [31:0]     dat;
  logic            ack, err;
  always_comb begin
    dat = 32'h0;
    ack = 1'b0;
    err = hole_q;
    for (int i = 0; i < NumSlaves; i++) begin
      rsp = s_i[RspBits*i +: RspBits];
      if (rsp.ack) dat = dat | rsp.dat;
      ack = ack | rsp.ack;
      err = err | rsp.err;
    end
  end

  assign m_o.dat = dat;
  assign m_o.ack = ack;
  assign m_o.err = err;

endmodule

`default_nettype wire
