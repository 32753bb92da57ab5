#!/bin/bash
# One device call for scaleplan-train (issue 4): build from source, GPU tests, then the engine and the
# PyTorch peers side by side on the same GPU; prints a short table last. Logs go to $OUT (or /tmp).
#   bench/gpu_single.sh quick   build, layer tests, one-step check vs PyTorch, short synthetic + fashion runs
#   bench/gpu_single.sh full    + synthetic batch 256/128/64 vs PyTorch eager/compile, time to 92% vs PyTorch
# Needs .fmnist/ (the Fashion-MNIST .gz files) carried when the dataset package is not installed, and
# .gpudeps/ (csv.h, zlib.h, libcsv.a, libz.a) when libcsv/zlib headers are missing there.
# SPDX-License-Identifier: GPL-3.0-or-later
MODE=${1:-quick}
O=${OUT:-/tmp/ex_out}; mkdir -p "$O"
cd "$(dirname "$0")/.." || exit 2
export PYTHONUNBUFFERED=1
nvidia-smi -L; nvidia-smi --query-gpu=name,memory.used,memory.total,clocks.sm --format=csv,noheader
if [ ! -f /usr/include/csv.h ] && [ -d .gpudeps ]; then
	export C_INCLUDE_PATH=$PWD/.gpudeps/include LIBRARY_PATH=$PWD/.gpudeps/lib; fi
FM=/usr/share/datasets/fashion-mnist; [ -f $FM/train-images-idx3-ubyte.gz ] || FM=$PWD/.fmnist
export FMNIST_DIR=$FM
T0=$(date +%s)
make -j16 build/scaleplan-train > "$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 2; }
echo "build: $(( $(date +%s) - T0 )) s"
make test-gpu 2>&1 | tee "$O/test_gpu.log" | tail -25
TR=build/scaleplan-train
R="$O/results.txt"; : > "$R"
for p in fp32 bf16; do
	rm -rf /tmp/dump_$p
	$TR --precision $p --batch-per-gpu 32 --image-size 128 --dump-step /tmp/dump_$p --quiet > /dev/null 2>"$O/dump_$p.err" || cat "$O/dump_$p.err"
	python3 tests/gpu/torch_step.py /tmp/dump_$p 2>&1 | tee -a "$R" | tail -4
done
if [ "$MODE" = quick ]; then
	$TR --data synthetic --batch-per-gpu 256 --iters 30 --warmup-iters 5 --quiet --csv "$O/syn256.csv" 2>&1 | tail -9 | tee -a "$R"
	$TR --data fashion-mnist --data-dir "$FM" --epochs 2 --csv "$O/fm.csv" 2>&1 | grep -v MLLOG | tail -6 | tee -a "$R"
	grep -h MLLOG "$O"/*.log 2>/dev/null | head -3
else
	for b in 256 128 64; do
		$TR --data synthetic --batch-per-gpu $b --iters 60 --warmup-iters 10 --quiet --csv "$O/syn$b.csv" 2>&1 | grep EXEC_RESULT | tee -a "$R"
	done
	$TR --data synthetic --batch-per-gpu 256 --iters 60 --warmup-iters 10 --quiet --no-graph 2>&1 | grep EXEC_RESULT | sed 's/$/ (no graph)/' | tee -a "$R"
	python3 bench/peers/torch_rn50_cl.py --no-compile 2>&1 | grep -E "TORCH|fail" | tee -a "$R"
	$TR --data fashion-mnist --data-dir "$FM" --epochs 10 --target-top1 0.92 --csv "$O/fm.csv" > "$O/fm.log" 2>&1
	grep -E "^epoch [0-9]+:|EXEC_RESULT" "$O/fm.log" | tail -12; grep EXEC_RESULT "$O/fm.log" >> "$R"
	python3 bench/peers/torch_fmnist.py --epochs 10 --target 0.92 2>&1 | tee "$O/torch_fm.log" | tail -12; grep TORCH_FMNIST "$O/torch_fm.log" >> "$R"
	python3 bench/peers/torch_rn50_cl.py --batches 256 --compile-only 2>&1 | grep -E "TORCH|fail" | tee -a "$R"
fi
echo "===== results ($MODE, $(nvidia-smi --query-gpu=name --format=csv,noheader), total $(( $(date +%s) - T0 )) s)"
grep -E "EXEC_RESULT|TORCH_|grad median|logits" "$R"
