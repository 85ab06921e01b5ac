// Wishbone B4 classic arbiter: several masters onto one bus, fixed priority. Master 0 ranks first.
// A master keeps the bus for as long as it holds cyc (a burst); when the bus is free, the
// first-ranked master holding cyc gets it, in the same cycle. Only the master holding the bus sees
// ack and err; the others wait with their request held, as B4 classic masters do. The node puts its
// CPU first and the engine's DMA second (rtl/soc/README.md: why).
`default_nettype none

module wb_arbiter #(
  parameter int NumMasters = 2
) (
  input  wire logic                                  clk_i,
  input  wire logic                                  rst_ni,
  input  wire logic [NumMasters*wb_pkg::ReqBits-1:0] m_i,  // from master i at [ReqBits*i +: ReqBits]
  output logic      [NumMasters*wb_pkg::RspBits-1:0] m_o,  // to master i at [RspBits*i +: RspBits]
  output wb_pkg::wb_req_t                            s_o,  // to the bus
  input  wire wb_pkg::wb_rsp_t                       s_i
);

  localparam int ReqBits = wb_pkg::ReqBits, RspBits = wb_pkg::RspBits;
  localparam int IdxW = NumMasters > 1 ? $clog2(NumMasters) : 1;

  logic [NumMasters-1:0] cyc;
  always_comb begin
    for (int i = 0; i < NumMasters; i++) cyc[i] = m_i[ReqBits*(i+1) - 1];  // cyc: the struct's first member
  end

  logic [IdxW-1:0] owner_q, sel;
  logic            held_q;   // owner_q held cyc in the last cycle
  always_comb begin
    sel = owner_q;
    if (!(held_q && cyc[owner_q])) begin
      sel = '0;
      for (int i = NumMasters - 1; i >= 0; i--)
        if (cyc[i]) sel = IdxW'(i);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      owner_q <= '0;
      held_q  <= 1'b0;
    end else begin
      owner_q <= sel;
      held_q  <= cyc[sel];
    end
  end

  assign s_o = m_i[ReqBits*sel +: ReqBits];
  always_comb begin
    for (int i = 0; i < NumMasters; i++)
      m_o[RspBits*i +: RspBits] = (IdxW'(i) == sel) ? s_i : '0;
  end

endmodule

`default_nettype wire
