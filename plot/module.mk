# plot/: charts from scaleplan's CSV tables, drawn by gnuplot (a leaf on common).
# SPDX-License-Identifier: GPL-3.0-or-later
LIB_SRCS += $(wildcard plot/*.c)

# fuzz-plot: libFuzzer + ASan/UBSan on the chart CSV reader and script writer, seeded with the first lines
# of the CSVs under examples/ and bench/data/; a short run.
FUZZ_TARGETS  += fuzz-plot
PLOT_FUZZ_DIR := build-fuzz/plot
PLOT_FUZZ_TIME ?= 20
PLOT_SEEDS    := $(wildcard examples/*/*.csv tests/data/plot/*.csv bench/data/h200x2-2026-11-22-b/*.csv)
.PHONY: fuzz-plot
fuzz-plot: $(PLOT_FUZZ_DIR)/fuzz_plot
	@rm -rf $(PLOT_FUZZ_DIR)/corpus && mkdir -p $(PLOT_FUZZ_DIR)/corpus $(PLOT_FUZZ_DIR)/crashes
	@k=0; for f in $(PLOT_SEEDS); do head -n 12 "$$f" > $(PLOT_FUZZ_DIR)/corpus/seed-$$k; k=$$((k + 1)); done
	$(PLOT_FUZZ_DIR)/fuzz_plot -max_total_time=$(PLOT_FUZZ_TIME) -max_len=4096 -timeout=10 \
		-artifact_prefix=$(PLOT_FUZZ_DIR)/crashes/ $(PLOT_FUZZ_DIR)/corpus

$(PLOT_FUZZ_DIR)/fuzz_plot: tests/fuzz/fuzz_plot.c $(wildcard plot/*.c plot/*.h common/*.c common/*.h)
	@mkdir -p $(dir $@)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o $@ tests/fuzz/fuzz_plot.c $(wildcard plot/*.c common/*.c) -lcsv -lz -lm
