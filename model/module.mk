# model/: analytic model (ResNet-50 layer table, compute, communication, data, convergence, TTA).
# SPDX-License-Identifier: GPL-3.0-or-later
LIB_SRCS += $(wildcard model/*.c)

# `make bench-model`: predictions per second in-process (bench/bench_model.c) and the wall time of a
# sweep of about a million configurations through the CLI (CSV written, then removed).
.PHONY: bench-model
$(BUILD)/bench/bench_model: bench/bench_model.c $(BUILD)/libscaleplan.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libscaleplan.a $(LDLIBS)

bench-model: $(BUILD)/bench/bench_model $(BUILD)/scaleplan
	$(BUILD)/bench/bench_model 20000000
	@n=$$(./$(BUILD)/scaleplan hw list systems | grep -c '^[a-z0-9]'); \
	 echo "sweep: all systems x nodes 1-1000 x batch 8-336:8"; \
	 t0=$$(date +%s.%N); ./$(BUILD)/scaleplan sweep --systems all --nodes 1-1000 --batch-per-gpu 8-336:8 \
	   --out $(BUILD)/bench-sweep.csv --quiet; t1=$$(date +%s.%N); \
	 rows=$$(($$(wc -l < $(BUILD)/bench-sweep.csv) - 1)); bytes=$$(wc -c < $(BUILD)/bench-sweep.csv); \
	 echo "sweep wall time $$(echo "$$t1 - $$t0" | bc) s; $$rows rows, $$bytes bytes of CSV"; rm -f $(BUILD)/bench-sweep.csv
