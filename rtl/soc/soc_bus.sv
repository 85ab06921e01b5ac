// The node's Wishbone B4 classic interconnect: one master (the core's bridge), one slave per region of
// rtl/soc/memmap.toml. The address selects at most one slave, which gets cyc; stb, we, adr, dat
// and sel go to every slave (each sees only the bits below its region size). An address outside
// every region is answered here with a registered err, like a slave would (1 wait state).
`default_nettype none

module soc_bus (
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,
  // from the master
  input  wire logic                     m_cyc_i,
  input  wire logic                     m_stb_i,
  input  wire logic [31:0]              m_adr_i,
  output logic      [31:0]              m_dat_o,
  output logic                          m_ack_o,
  output logic                          m_err_o,
  // to the slaves: region i is bit i / word i
  output logic      [soc_memmap::NumRegions-1:0]    s_cyc_o,
  input  wire logic [soc_memmap::NumRegions*32-1:0] s_dat_i,
  input  wire logic [soc_memmap::NumRegions-1:0]    s_ack_i,
  input  wire logic [soc_memmap::NumRegions-1:0]    s_err_i
);

  localparam int NumRegions = soc_memmap::NumRegions;
  // (qualified names: Yosys 0.23 has no `import`)
  localparam logic [NumRegions*32-1:0] Bases = soc_memmap::RegionBases, Sizes = soc_memmap::RegionSizes;

  logic [NumRegions-1:0] sel;
  always_comb begin
    for (int i = 0; i < NumRegions; i++)
      sel[i] = (m_adr_i & ~(Sizes[32*i +: 32] - 32'd1)) == Bases[32*i +: 32];
  end

  assign s_cyc_o = m_cyc_i ? sel : '0;

  // No slave: an error response in the next cycle; hole_q also keeps the master's held stb from
  // starting a second one in the response cycle.
  logic hole, hole_q;
  assign hole = m_cyc_i && m_stb_i && !hole_q && sel == '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) hole_q <= 1'b0;
    else hole_q <= hole;
  end

  // Slaves may drive data outside their ack; only the acknowledging one reaches the master.
  always_comb begin
    m_dat_o = 32'h0;
    for (int i = 0; i < NumRegions; i++)
      if (s_ack_i[i]) m_dat_o = m_dat_o | s_dat_i[32*i +: 32];
  end

  assign m_ack_o = |s_ack_i;
  assign m_err_o = |s_err_i || hole_q;

endmodule

`default_nettype wire
