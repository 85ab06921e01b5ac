// Test bench top for tests/rtl/test_dma.py: the engine with its DMA sharing one bus with a second
// master through the SoC's arbiter (wb_arbiter: the "CPU" first, as in rtl/soc/soc_top.sv). cocotb
// drives the engine's registers (wb_*), the CPU's traffic (cpu_*) and answers the shared bus (ram_*)
// with a memory model that stalls and errs at random.
`default_nettype none

module dma_tb (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  // the engine's registers
  input  wire logic        wb_cyc_i, wb_stb_i, wb_we_i,
  input  wire logic [15:0] wb_adr_i,
  input  wire logic [31:0] wb_dat_i,
  input  wire logic [3:0]  wb_sel_i,
  output logic      [31:0] wb_dat_o,
  output logic             wb_ack_o, wb_err_o,
  output logic             irq_o,
  // the other master on the shared bus
  input  wire logic        cpu_cyc_i, cpu_stb_i, cpu_we_i,
  input  wire logic [31:0] cpu_adr_i, cpu_dat_i,
  input  wire logic [3:0]  cpu_sel_i,
  output logic      [31:0] cpu_dat_o,
  output logic             cpu_ack_o, cpu_err_o,
  // the shared bus, answered by the test
  output logic             ram_cyc_o, ram_stb_o, ram_we_o,
  output logic      [31:0] ram_adr_o, ram_dat_o,
  output logic      [3:0]  ram_sel_o,
  input  wire logic [31:0] ram_dat_i,
  input  wire logic        ram_ack_i, ram_err_i
);

  wb_pkg::wb_req_t cpu_req, dma_req, bus_req;
  wb_pkg::wb_rsp_t cpu_rsp, dma_rsp, bus_rsp;
  logic [5:0] busy;

  assign cpu_req.cyc = cpu_cyc_i;
  assign cpu_req.stb = cpu_stb_i;
  assign cpu_req.we  = cpu_we_i;
  assign cpu_req.sel = cpu_sel_i;
  assign cpu_req.adr = cpu_adr_i;
  assign cpu_req.dat = cpu_dat_i;
  assign {cpu_ack_o, cpu_err_o, cpu_dat_o} = {cpu_rsp.ack, cpu_rsp.err, cpu_rsp.dat};

  se_engine u_engine (
    .clk_i, .rst_ni, .wb_cyc_i, .wb_stb_i, .wb_we_i, .wb_adr_i, .wb_dat_i, .wb_sel_i, .wb_dat_o, .wb_ack_o,
    .wb_err_o, .irq_o, .busy_o(busy),
    .dma_cyc_o(dma_req.cyc), .dma_stb_o(dma_req.stb), .dma_we_o(dma_req.we), .dma_adr_o(dma_req.adr),
    .dma_dat_o(dma_req.dat), .dma_sel_o(dma_req.sel), .dma_dat_i(dma_rsp.dat), .dma_ack_i(dma_rsp.ack),
    .dma_err_i(dma_rsp.err)
  );

  wb_arbiter #(.NumMasters(2)) u_arb (
    .clk_i, .rst_ni, .m_i({dma_req, cpu_req}), .m_o({dma_rsp, cpu_rsp}), .s_o(bus_req), .s_i(bus_rsp)
  );

  assign {ram_cyc_o, ram_stb_o, ram_we_o, ram_sel_o, ram_adr_o, ram_dat_o} = bus_req;
  assign bus_rsp.ack = ram_ack_i;
  assign bus_rsp.err = ram_err_i;
  assign bus_rsp.dat = ram_dat_i;

  logic unused;
  assign unused = ^busy;

endmodule

`default_nettype wire
