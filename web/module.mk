# web/: what `report` hands readers who will not run a command line - whatif.html (compare compiled to
# WebAssembly by Emscripten, one self-contained page) and costs.xlsx (libxlsxwriter) - each left out with a
# reason where the build had no such tool (XLSX_FOUND in the Makefile; EMCC below).
# SPDX-License-Identifier: GPL-3.0-or-later
LIB_SRCS += web/web_page.c web/web_calc.c $(if $(XLSX_FOUND),web/web_xlsx.c,web/web_xlsx_none.c)
GEN_SRCS += $(BUILD)/gen/web_data.c

EMCC ?= $(shell command -v emcc 2>/dev/null)
# What the page runs: compare (and the option parsing, database loading and checks it calls) over the planner
# library, without the modules compare does not use (calibrate, sim, plot, exec) and hw_import (jansson).
WEB_WASM_SRCS := $(filter-out hwdb/hw_import.c,$(wildcard common/*.c hwdb/*.c model/*.c plan/*.c)) \
	cli/cmd_compare.c cli/ask.c cli/scenario.c cli/opt.c cli/optcheck.c cli/db.c cli/wasm_main.c
WEB_WASM_HDRS := $(wildcard common/*.h hwdb/*.h model/*.h plan/*.h cli/*.h web/*.h)

# Rebuilt when emcc appears or goes (the recorded path changes).
$(BUILD)/wasm/emcc.found: FORCE
	@mkdir -p $(dir $@)
	@echo '$(EMCC)' | cmp -s - $@ || echo '$(EMCC)' > $@

$(BUILD)/wasm/whatif.js: $(WEB_WASM_SRCS) $(WEB_WASM_HDRS) $(BUILD)/gen/hwdb_data.c $(BUILD)/wasm/emcc.found \
		tools/whatif_wasm.sh tools/wasm_libcsv.sh
	EMCC='$(EMCC)' sh tools/whatif_wasm.sh $(BUILD)/wasm $(WEB_WASM_SRCS) $(BUILD)/gen/hwdb_data.c

$(BUILD)/gen/web_data.c: web/whatif.html.in $(BUILD)/wasm/whatif.js tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $@ web/web_internal.h web_file web_embedded web_embedded_n web/whatif.html.in \
		$(BUILD)/wasm/whatif.js $(BUILD)/wasm/whatif.why
$(BUILD)/gen/web_data.o: web/web_internal.h

# `make whatif`: the page's script, and scaleplan with it (report then writes whatif.html).
.PHONY: whatif FORCE
whatif: $(BUILD)/scaleplan
	@if [ -s $(BUILD)/wasm/whatif.js ]; then echo "whatif: report writes whatif.html ($(BUILD)/wasm/whatif.js, $$(wc -c < $(BUILD)/wasm/whatif.js) bytes)"; \
	 else echo "whatif: left out: $$(cat $(BUILD)/wasm/whatif.why)"; fi

# `make bench-whatif` (in `make bench`): the page's size and its time to the first answer in headless Chromium.
BENCH_TARGETS += bench-whatif
.PHONY: bench-whatif
bench-whatif: $(BUILD)/scaleplan
	SCALEPLAN=$(BUILD)/scaleplan sh bench/whatif.sh
