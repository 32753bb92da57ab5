# sim/: discrete-event simulator of a training run (event loop, links and flows, queues, trace, run model).
# SPDX-License-Identifier: GPL-3.0-or-later
LIB_SRCS += $(wildcard sim/*.c)

.PHONY: bench-sim
bench-sim: $(BUILD)/bench/bench_sim
	./$(BUILD)/bench/bench_sim

$(BUILD)/bench/bench_sim: bench/bench_sim.c $(BUILD)/libscaleplan.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libscaleplan.a $(LDLIBS)
