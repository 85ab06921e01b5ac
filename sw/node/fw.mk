# Firmware of the node (included by the top Makefile after RV_CC, RV_CFLAGS(_<arch>), RV_DRV_FLAGS, BUILD, GEN,
# $(GEN)/regs.stamp and the per-arch library rules). Every app is built for the five configs into
# $(BUILD)/fw/<config>/<app>.{elf,map,size}: <config> is sw-<arch> (the crypto library alone,
# SE_FW_HW=0) or sw+hw-<arch> (the engine drivers, SE_FW_HW=1), <arch> rv32i, rv32im or rv32imc
# (sw+hw only: the smallest firmware), the part after the last '-'. An app is the C files of sw/apps/<app>/, linked with sw/node/*.{c,S},
# libseproto.a, libsebackend.a, libsedrivers.a and libsecrypto.a of its arch. Add one with
#     $(eval $(call FW_APP,<app>))
# or a variant of another app's sources with extra compiler flags:
#     $(eval $(call FW_APP,<name>,<source app>,<flags>))

FW_CONFIGS := sw-rv32i sw-rv32im sw+hw-rv32i sw+hw-rv32im sw+hw-rv32imc
# HW mode (issue 22): the DTLS client handshake runs in the engine's protocol controller. Only the
# apps with a firmware of their own for it are built there, each named by FW_APP_CONFIG (the sensor:
# sw/apps/sensor_hw). The CPU has little left to do, so these are built for size (-Os, the libraries'
# code too at the link-time optimisation; no DMA bounce buffer, hal_engine.c; picolibc's byte-wise
# memcpy/memset/memcmp instead of mem.c's word-wise ones); their libraries keep no software AEAD or
# SHA-256 (rv32imc's own, and rv32i-hw for hw-rv32i: fw_lib).
FW_HW_CONFIGS := hw-rv32i hw-rv32imc
FW_APPS    :=
RV_SIZE    ?= riscv64-unknown-elf-size

FW_NODE_SRC := $(wildcard sw/node/*.c sw/node/*.S)
FW_LD       := sw/node/link.ld

fw_arch = $(lastword $(subst -, ,$(1)))
# The library set a config links and whose flags its own objects share (Makefile, RV_LIBS): its
# arch's, except hw-rv32i's, rv32i-hw (rv32imc's size-build flags on rv32i).
fw_lib  = $(if $(filter hw-rv32i,$(1)),rv32i-hw,$(call fw_arch,$(1)))
fw_hw   = $(if $(findstring +hw-,$(1))$(filter hw-%,$(1)),1,0)
# -MMD: header dependencies (generated ones included) come from the compiler.
fw_cflags = -march=$(call fw_arch,$(1)) -mabi=ilp32 $(RV_CFLAGS) $(RV_CFLAGS_$(call fw_lib,$(1))) $(RV_DRV_FLAGS) -Isw/node/include \
            $(PROTO_FLAGS) $(NODE_TLS_FLAGS) $(NODE_TLS_FLAGS_$(call fw_lib,$(1))) \
            -DSE_FW_HW=$(call fw_hw,$(1)) -MMD -MP $(if $(filter hw-%,$(1)),-Os -DNODE_DMA_BOUNCE_WORDS=0)
# Own start.S and link.ld instead of picolibc's crt0 and picolibc.ld; integer-only printf (no
# floating point, no %ll) keeps the ROM small. The defsym picks it directly: the specs' switch
# (-DPICOLIBC_INTEGER_PRINTF_SCANF) would also pull in scanf (~2 KiB), which no app uses.
fw_ldflags = -march=$(call fw_arch,$(1)) -mabi=ilp32 $(RV_CFLAGS) $(RV_CFLAGS_$(call fw_lib,$(1))) -nostartfiles -T $(FW_LD) \
             -Wl,--defsym=vfprintf=__i_vfprintf -Wl,--gc-sections $(if $(filter hw-%,$(1)),-Os)
fw_node_obj = $(patsubst sw/node/%,$(BUILD)/fw/$(1)/node/%.o,$(basename $(filter-out $(if $(filter hw-%,$(1)),sw/node/mem.c),$(FW_NODE_SRC))))

# The node's objects in one config: $(1) = config.
define FW_CONFIG_RULES
$(BUILD)/fw/$(1)/node/%.o: sw/node/%.c $(GEN)/regs.stamp $(BUILD)/$(call fw_lib,$(1))/cflags.txt
	@mkdir -p $$(@D)
	$(RV_CC) $(call fw_cflags,$(1)) -c $$< -o $$@

$(BUILD)/fw/$(1)/node/%.o: sw/node/%.S $(GEN)/regs.stamp $(BUILD)/$(call fw_lib,$(1))/cflags.txt
	@mkdir -p $$(@D)
	$(RV_CC) $(call fw_cflags,$(1)) -c $$< -o $$@
endef
$(foreach c,$(FW_CONFIGS) $(FW_HW_CONFIGS),$(eval $(call FW_CONFIG_RULES,$(c))))

# One app in one config: $(1) = config, $(2) = app, $(3) = its source directory under sw/apps,
# $(4) = extra compiler flags, $(5) = more of its C files from other apps (sw/apps/<app>/<file>.c).
define FW_APP_CONFIG
FW_OBJ_$(1)_$(2) := $(patsubst sw/apps/$(3)/%.c,$(BUILD)/fw/$(1)/apps/$(2)/%.o,$(wildcard sw/apps/$(3)/*.c)) \
                    $(patsubst sw/apps/%.c,$(BUILD)/fw/$(1)/apps/$(2)/more/%.o,$(5))

$(BUILD)/fw/$(1)/apps/$(2)/%.o: sw/apps/$(3)/%.c $(GEN)/regs.stamp $(BUILD)/$(call fw_lib,$(1))/cflags.txt
	@mkdir -p $$(@D)
	$(RV_CC) $(call fw_cflags,$(1)) $(4) -c $$< -o $$@

$(BUILD)/fw/$(1)/apps/$(2)/more/%.o: sw/apps/%.c $(GEN)/regs.stamp $(BUILD)/$(call fw_lib,$(1))/cflags.txt
	@mkdir -p $$(@D)
	$(RV_CC) $(call fw_cflags,$(1)) $(4) -c $$< -o $$@

$(BUILD)/fw/$(1)/$(2).elf: $$(FW_OBJ_$(1)_$(2)) $(call fw_node_obj,$(1)) $(FW_LD) \
        $(BUILD)/$(call fw_lib,$(1))/libseproto.a $(BUILD)/$(call fw_lib,$(1))/libsebackend.a \
        $(BUILD)/$(call fw_lib,$(1))/libsedrivers.a \
        $(BUILD)/$(call fw_lib,$(1))/libsecrypto.a
	$(RV_CC) $(call fw_ldflags,$(1)) -Wl,-Map=$(BUILD)/fw/$(1)/$(2).map -o $$@ \
	    $$(filter %.o,$$^) -Wl,--start-group $$(filter %.a,$$^) -Wl,--end-group

$(BUILD)/fw/$(1)/$(2).size: $(BUILD)/fw/$(1)/$(2).elf
	$(RV_SIZE) -A $$< > $$@

firmware: $(BUILD)/fw/$(1)/$(2).elf $(BUILD)/fw/$(1)/$(2).size
endef

# An app in every config: $(eval $(call FW_APP,<app>[,<source app>[,<flags>]])).
define FW_APP
FW_APPS += $(1)
$(foreach c,$(FW_CONFIGS),$(eval $(call FW_APP_CONFIG,$(c),$(1),$(or $(2),$(1)),$(3))))
endef

.PHONY: firmware
firmware:

$(eval $(call FW_APP,selftest))
$(eval $(call FW_APP,faults))
$(eval $(call FW_APP,nicecho))
# The self-test's whole set in the sw configs too (hours of simulation there: see selftest.c).
$(eval $(call FW_APP,selftest-full,selftest,-DSELFTEST_FULL=1))

-include $(wildcard $(BUILD)/fw/*/node/*.d $(BUILD)/fw/*/apps/*/*.d $(BUILD)/fw/*/apps/*/more/*/*.d)
