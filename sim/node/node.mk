# The node simulator (sim/node): Verilated rtl/soc/soc_top.sv plus the C++ harness, one binary per
# core configuration: build/sim/rv32i/node (RV32M=0), build/sim/rv32im/node (RV32M=1) and
# build/sim/rv32imc/node (RV32M=1, RVC=1: the C extension).
# Included by the top Makefile after its own variables (PY, BUILD, GEN, VERILATOR, VERILATOR_ROOT,
# NODE_RTL from build/cores.mk, SETUP_DONE).

NODE_SRC := $(wildcard sim/node/*.cpp)
NODE_HDR := $(wildcard sim/node/*.h)
# Speed over everything: Verilator -O3, X values resolved at compile time, no assertions. The
# model's C++ at -O2: -O3 and -march=native measured no faster (and -march=native would tie the
# binary to the build machine). The PCH override is the engine rule's workaround for the wheel's
# verilated.mk. FST tracing is not compiled in: even unused it costs about a fifth of the speed
# (traced signals stay in the model's state instead of locals); `make node-sim-fst` builds traced
# twins (build/sim/<core>-fst/node, their FST writer needs liblz4-dev and zlib1g-dev), and the
# plain binary runs its twin when given --fst.
NODE_VFLAGS := --cc --exe --build -j 2 --top-module soc_top -O3 --x-assign fast --x-initial fast --noassert
NODE_MAKEFLAGS := CFG_CXXFLAGS_PCH_I=-include OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2
NODE_CFLAGS := -std=c++17 -O2

# $(1) = simulator name, $(2) = RV32M, $(3) = ENGINE, $(4) = RVC parameter values, $(5) = extra
# Verilator flags, $(6) = a firmware to train the model's C++ on (profile-guided optimisation), or
# empty. Every build starts from an empty object directory: Verilator's own make does not see flag
# changes, and an incremental rebuild was measured to give a much slower model.
# PGO: the model is built with -fprofile-generate, runs the first NODE_PGO_CYCLES cycles of the
# training firmware (the profile goes to $(BUILD)/sim/<name>/pgo), and is built again with
# -fprofile-use (the firmware is an order-only prerequisite: a new build of it does not rebuild the
# model). Measured figures: sim/node/README.md, "Timing model and speed".
NODE_PGO_CYCLES := 4000000
node_pgo = -fprofile-dir=$(abspath $(BUILD)/sim/$(1)/pgo)
# Verilates and builds the model of $(1) .. $(5) as above, its C++ with the extra flags $(6).
node_verilate = MAKEFLAGS="$(NODE_MAKEFLAGS)" VERILATOR_ROOT=$(VERILATOR_ROOT) $(VERILATOR) $(NODE_VFLAGS) $(5) \
    -GRV32M=$(2) -GENGINE=$(3) -GRVC=$(4) -CFLAGS "$(NODE_CFLAGS) $(6) -DNODE_RV32M=$(2) -DNODE_ENGINE=$(3) -DNODE_RVC=$(4)" \
    $(if $(6),-LDFLAGS "$(6)") -Mdir $(BUILD)/sim/$(1)/obj -o ../node $(NODE_RTL) $(abspath $(NODE_SRC)) \
    > $(BUILD)/sim/$(1)/build.log 2>&1 || (cat $(BUILD)/sim/$(1)/build.log; exit 1)
define NODE_RULES
$(BUILD)/sim/$(1)/node: $(NODE_RTL) $(BUILD)/cores.mk \
        $(NODE_SRC) $(NODE_HDR) sim/node/node.mk $(GEN)/regs.stamp | $(SETUP_DONE) $(6)
	@echo "== node-sim: Verilating soc_top for $(1) (RV32M=$(2) ENGINE=$(3) RVC=$(4))$(if $(6), with PGO on $(6))"
	@mkdir -p $(BUILD)/sim/$(1)
	rm -rf $(BUILD)/sim/$(1)/obj $(BUILD)/sim/$(1)/pgo
	$(call node_verilate,$(1),$(2),$(3),$(4),$(5),$(if $(6),-fprofile-generate -fprofile-update=single $(call node_pgo,$(1))))
	$(if $(6),$(BUILD)/sim/$(1)/node --elf $(6) --max-cycles $(NODE_PGO_CYCLES) --seed 1 > /dev/null 2>&1 || true)
	$(if $(6),test -n "$$$$(ls $(BUILD)/sim/$(1)/pgo 2>/dev/null)" || (echo "node-sim: $(1): the training run left no profile"; exit 1))
	$(if $(6),rm -rf $(BUILD)/sim/$(1)/obj)
	$(if $(6),$(call node_verilate,$(1),$(2),$(3),$(4),$(5),-fprofile-use -fprofile-correction -Wno-missing-profile $(call node_pgo,$(1))))
	@touch $$@
endef
$(eval $(call NODE_RULES,rv32i,0,1,0,,$(BUILD)/fw/sw+hw-rv32i/nodebench.elf))
$(eval $(call NODE_RULES,rv32im,1,1,0,,$(BUILD)/fw/sw+hw-rv32im/nodebench.elf))
$(eval $(call NODE_RULES,rv32imc,1,1,1,,$(BUILD)/fw/sw+hw-rv32imc/nodebench.elf))
# The node without the engine, for the sw configs' long runs (make bench): same CPU cycles, the
# simulator ~10x faster. build/sim/<arch>-noengine/node.
$(eval $(call NODE_RULES,rv32i-noengine,0,0,0))
$(eval $(call NODE_RULES,rv32im-noengine,1,0,0))
# Their FST-traced twins, built only by `make node-sim-fst`: build/sim/<name>-fst/node.
NODE_SIMS := rv32i rv32im rv32imc rv32i-noengine rv32im-noengine
$(eval $(call NODE_RULES,rv32i-fst,0,1,0,--trace-fst))
$(eval $(call NODE_RULES,rv32im-fst,1,1,0,--trace-fst))
$(eval $(call NODE_RULES,rv32imc-fst,1,1,1,--trace-fst))
$(eval $(call NODE_RULES,rv32i-noengine-fst,0,0,0,--trace-fst))
$(eval $(call NODE_RULES,rv32im-noengine-fst,1,0,0,--trace-fst))

.PHONY: node-sim node-sim-noengine node-sim-fst
node-sim: $(BUILD)/sim/rv32i/node $(BUILD)/sim/rv32im/node $(BUILD)/sim/rv32imc/node
node-sim-noengine: $(BUILD)/sim/rv32i-noengine/node $(BUILD)/sim/rv32im-noengine/node
node-sim-fst: $(foreach s,$(NODE_SIMS),$(BUILD)/sim/$(s)-fst/node)
