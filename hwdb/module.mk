# hwdb: hardware database. The CSV tables in hwdb/data are embedded into $(BUILD)/gen/hwdb_data.c.
# SPDX-License-Identifier: GPL-3.0-or-later
HWDB_CSVS := $(sort $(wildcard hwdb/data/*.csv))
LIB_SRCS  += $(wildcard hwdb/*.c)
GEN_SRCS  += $(BUILD)/gen/hwdb_data.c

$(BUILD)/gen/hwdb_data.c: $(HWDB_CSVS) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $@ hwdb/hw_internal.h hw_embedded hw_embedded_tables hw_embedded_ntables $(HWDB_CSVS)

# The generated file includes hwdb/hw_internal.h.
$(BUILD)/gen/hwdb_data.o: hwdb/hw_internal.h hwdb/hw.h

# fuzz-hwdb: libFuzzer + ASan/UBSan on the CSV loader, seeded with the shipped tables; a short run for CI.
FUZZ_TARGETS += fuzz-hwdb
HWDB_FUZZ_TIME ?= 30
HWDB_FUZZ_DIR  := build/fuzz-hwdb
.PHONY: fuzz-hwdb
fuzz-hwdb: $(HWDB_FUZZ_DIR)/fuzz_hwdb
	@rm -rf $(HWDB_FUZZ_DIR)/corpus && mkdir -p $(HWDB_FUZZ_DIR)/corpus $(HWDB_FUZZ_DIR)/crashes
	@k=0; for t in gpus cpus links fabrics storage systems stacks archs stack_effs; do \
		{ printf "\\$$(printf '%03o' $$k)"; cat hwdb/data/$$t.csv; } > $(HWDB_FUZZ_DIR)/corpus/seed-$$t; \
		k=$$((k + 1)); done
	$(HWDB_FUZZ_DIR)/fuzz_hwdb -max_total_time=$(HWDB_FUZZ_TIME) -max_len=8192 -timeout=10 \
		-artifact_prefix=$(HWDB_FUZZ_DIR)/crashes/ $(HWDB_FUZZ_DIR)/corpus $(wildcard tests/fuzz/corpus_hwdb)

$(HWDB_FUZZ_DIR)/fuzz_hwdb: tests/fuzz/fuzz_hwdb.c $(wildcard common/*.c common/*.h hwdb/*.c hwdb/*.h) $(HWDB_CSVS) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $(HWDB_FUZZ_DIR)/hwdb_data.c hwdb/hw_internal.h hw_embedded hw_embedded_tables hw_embedded_ntables $(HWDB_CSVS)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o $@ tests/fuzz/fuzz_hwdb.c $(wildcard common/*.c) $(wildcard hwdb/*.c) $(HWDB_FUZZ_DIR)/hwdb_data.c -ljansson -lcsv -lz -lm

# fuzz-import: libFuzzer + ASan/UBSan on `hw import` (MLPerf system-description JSON), seeded with the
# v4.0 system descriptions in tests/data/mlperf_systems; anything it accepts must load back as an overlay.
FUZZ_TARGETS    += fuzz-import
IMPORT_FUZZ_DIR := build/fuzz-import
.PHONY: fuzz-import
fuzz-import: $(IMPORT_FUZZ_DIR)/fuzz_hw_import
	@rm -rf $(IMPORT_FUZZ_DIR)/corpus && mkdir -p $(IMPORT_FUZZ_DIR)/corpus $(IMPORT_FUZZ_DIR)/crashes
	@cp tests/data/mlperf_systems/*.json $(IMPORT_FUZZ_DIR)/corpus/
	$(IMPORT_FUZZ_DIR)/fuzz_hw_import -max_total_time=$(HWDB_FUZZ_TIME) -max_len=8192 -timeout=10 \
		-artifact_prefix=$(IMPORT_FUZZ_DIR)/crashes/ $(IMPORT_FUZZ_DIR)/corpus

$(IMPORT_FUZZ_DIR)/fuzz_hw_import: tests/fuzz/fuzz_hw_import.c $(wildcard common/*.c common/*.h hwdb/*.c hwdb/*.h) $(HWDB_CSVS) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh $(IMPORT_FUZZ_DIR)/hwdb_data.c hwdb/hw_internal.h hw_embedded hw_embedded_tables hw_embedded_ntables $(HWDB_CSVS)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o $@ tests/fuzz/fuzz_hw_import.c $(wildcard common/*.c) $(wildcard hwdb/*.c) $(IMPORT_FUZZ_DIR)/hwdb_data.c -ljansson -lcsv -lz -lm
