# scaleplan - top-level build. SPDX-License-Identifier: GPL-3.0-or-later
#
#   make plan      install the packages the planner lacks (tools/deps.sh plan), build build/scaleplan alone (not
#                  the GPU engine, not the tests' tools), run `scaleplan compare` on the default scenario
#   make test      install every missing package (tools/deps.sh), build everything, run every host test (no GPU needed), several at a time,
#                  each test's seconds printed (tools/run_tests.sh: JOBS=N, or one test: tools/run_tests.sh
#                  build tests/golden.sh)
#   make test-san  the same tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   make test-gpu  exec/ GPU tests (on a machine with a GPU; skipped with a message otherwise)
#   make golden    rewrites tests/golden/ (the outputs tests/golden.sh compares byte for byte) with this
#                  build; only in a commit that says which change moved the numbers and why
#   make examples  regenerates examples/charts/ (charts and reports) with this build; `make test` fails while
#                  the committed ones differ from what the binary writes (needs gnuplot)
#   make whatif    builds whatif.html's script (compare as WebAssembly, needs emcc) into scaleplan, so that
#                  `report` writes whatif.html (part of every build where emcc is found)
#   make bench     the benchmarks (BENCH_TARGETS): model speed, simulator, whatif.html's size and first answer
#   make install   copies scaleplan (and scaleplan-train where it was built) to $(DESTDIR)$(PREFIX)/bin
#
# Each module directory has a module.mk that appends to these variables (and nothing else global):
#   LIB_SRCS   host C sources of the planner library libscaleplan.a: common, hwdb, model, plan, sim, calibrate,
#              plot, report, web, and exec's host parts (exec/data/, the MLLOG writer and the --engine settings)
#   CLI_SRCS   sources of the `scaleplan` command (cli/)
#   GEN_SRCS   generated C sources (written under $(BUILD)/gen) that go into the library
#   FUZZ_TARGETS  phony targets that build and briefly run a libFuzzer target (`make fuzz` runs all)
#   BENCH_TARGETS phony benchmarks `make bench` runs (each prints what it measured; nothing asserted)
# Every tests/test_*.c becomes a test binary linked against the library; tests/*.sh are smoke tests
# run after the binaries with SCALEPLAN=path/to/scaleplan in their environment.

CC      ?= cc
WERROR  ?=
SAN     ?=
BUILD   ?= build$(if $(SAN),-san)
OPT     ?= -O2
CFLAGS  := -std=c11 -D_GNU_SOURCE $(OPT) -g -Wall -Wextra -Wshadow -I. $(if $(WERROR),-Werror) \
           $(if $(SAN),-fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all) \
           $(shell pkg-config --cflags gsl 2>/dev/null)
LDFLAGS := $(if $(SAN),-fsanitize=$(SAN))
# libxlsxwriter is optional: without it report leaves costs.xlsx out and says so (web/module.mk)
XLSX_FOUND := $(shell pkg-config --exists xlsxwriter 2>/dev/null && echo yes)
LDLIBS  := $(shell pkg-config --libs gsl 2>/dev/null || echo -lgsl -lgslcblas) -ljansson -lcsv -lz -lm -lpthread \
           $(if $(XLSX_FOUND),$(shell pkg-config --libs xlsxwriter))

LIB_SRCS :=
CLI_SRCS :=
GEN_SRCS :=
FUZZ_TARGETS :=
BENCH_TARGETS := bench-model bench-sim
TEST_SRCS := $(wildcard tests/test_*.c)

PREFIX  ?= /usr/local
DESTDIR ?=

.PHONY: all deps deps-plan plan test test-unit test-san test-gpu clean found fuzz bench install examples golden \
        layering-objs
all: found $(BUILD)/scaleplan

include $(sort $(wildcard */module.mk */*/module.mk))

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(GEN_SRCS:%.c=%.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libscaleplan.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/scaleplan: $(CLI_OBJS) $(BUILD)/libscaleplan.a
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(BUILD)/libscaleplan.a $(LDLIBS)
	@ln -sf $(BUILD)/scaleplan scaleplan$(if $(SAN),-san)

$(BUILD)/tests/%: tests/%.c $(BUILD)/libscaleplan.a tests/test.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libscaleplan.a $(LDLIBS)

deps:
	@tools/deps.sh

deps-plan:
	@tools/deps.sh plan

found:
	@tools/found.sh

# the planner only: `all` would compile the CUDA engine where nvcc is found, which planning never runs
plan: deps-plan
	@$(MAKE) --no-print-directory $(BUILD)/scaleplan
	$(BUILD)/scaleplan compare --gpus 8
	$(BUILD)/scaleplan compare --gpus 16

test: deps
	@$(MAKE) --no-print-directory test-unit

test-unit: all $(TEST_BINS)
	@tools/run_tests.sh $(BUILD)

test-san:
	@$(MAKE) --no-print-directory SAN=address,undefined test-unit

fuzz: $(FUZZ_TARGETS)

bench: $(BENCH_TARGETS)

examples: all
	SCALEPLAN=$(BUILD)/scaleplan sh examples/charts.sh examples/charts

golden: all
	SCALEPLAN=$(BUILD)/scaleplan sh tests/golden.sh --update

# the objects of the planner (library and command) whose calls tests/layering.sh checks
layering-objs:
	@echo $(LIB_SRCS:%.c=$(BUILD)/%.o) $(CLI_OBJS)

# scaleplan-train is built only where the GPU toolchain is found (exec/module.mk); installed when it was.
install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/scaleplan $(DESTDIR)$(PREFIX)/bin/scaleplan
	@if [ -x $(BUILD)/scaleplan-train ]; then \
		echo "install -m 755 $(BUILD)/scaleplan-train $(DESTDIR)$(PREFIX)/bin/scaleplan-train"; \
		install -m 755 $(BUILD)/scaleplan-train $(DESTDIR)$(PREFIX)/bin/scaleplan-train; \
	else echo "install: scaleplan-train was not built (no GPU toolchain found): not installed"; fi

clean:
	rm -rf build build-san scaleplan scaleplan-san

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
