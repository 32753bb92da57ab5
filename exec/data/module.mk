# exec/data/: host input pipeline (IDX reader, JPEG decode + augmentation, folder loader) - pure C,
# part of the library so `make test` covers it without a GPU; plus two host programs:
#   build/scaleplan-mkjpeg     Fashion-MNIST -> ImageNet-layout folder of RGB JPEGs
#   build/scaleplan-databench  decode+augment images/s per thread count -> CSV
#   make fuzz-data             libFuzzer (clang) on the JPEG and IDX readers, briefly
# SPDX-License-Identifier: GPL-3.0-or-later
EX_DATA_SRCS := exec/data/idx.c exec/data/jpeg.c $(wildcard exec/data/loader.c) exec/data/mkimagenet.c \
                exec/data/watch.c
LIB_SRCS += $(EX_DATA_SRCS)
LDLIBS += -lturbojpeg -ljpeg

EX_DATA_PROGS := $(if $(wildcard exec/data/mkjpeg.c),$(BUILD)/scaleplan-mkjpeg) \
                 $(if $(wildcard exec/data/databench.c),$(BUILD)/scaleplan-databench)
all: $(EX_DATA_PROGS)

$(BUILD)/scaleplan-mkjpeg: $(BUILD)/exec/data/mkjpeg.o $(BUILD)/libscaleplan.a
	$(CC) $(LDFLAGS) -o $@ $< $(BUILD)/libscaleplan.a $(LDLIBS)

$(BUILD)/scaleplan-databench: $(BUILD)/exec/data/databench.o $(BUILD)/libscaleplan.a
	$(CC) $(LDFLAGS) -o $@ $< $(BUILD)/libscaleplan.a $(LDLIBS)

# Fuzzing: clang's libFuzzer + ASan + UBSan; FUZZ_S seconds per target (seed corpus in tests/fuzz/seeds).
FUZZ_CC ?= clang
FUZZ_S  ?= 20
FUZZ_TARGETS += fuzz-data
.PHONY: fuzz-data
EX_DATA_FUZZ_SRCS := exec/data/idx.c exec/data/jpeg.c common/err.c common/util.c common/intr.c
build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(EX_DATA_FUZZ_SRCS) exec/data/ex_data.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -g -O1 -I. -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ $< $(EX_DATA_FUZZ_SRCS) -lturbojpeg -ljpeg -lz -lm -lpthread
fuzz-data: build/fuzz/fuzz_jpeg build/fuzz/fuzz_idx build/fuzz/fuzz_jpeghdr
	@mkdir -p build/fuzz/corpus_jpeg build/fuzz/corpus_idx build/fuzz/corpus_jpeghdr
	build/fuzz/fuzz_jpeg -max_total_time=$(FUZZ_S) -rss_limit_mb=2048 -timeout=10 \
		build/fuzz/corpus_jpeg tests/fuzz/seeds/jpeg
	build/fuzz/fuzz_idx -max_total_time=$(FUZZ_S) -rss_limit_mb=2048 -timeout=10 \
		build/fuzz/corpus_idx tests/fuzz/seeds/idx
	build/fuzz/fuzz_jpeghdr -max_total_time=$(FUZZ_S) -rss_limit_mb=2048 -timeout=10 \
		build/fuzz/corpus_jpeghdr tests/fuzz/seeds/jpeg

# the resampler's loops need the full vectoriser (GCC's -O2 uses only its very-cheap cost model)
$(BUILD)/exec/data/jpeg.o: CFLAGS += -O3
