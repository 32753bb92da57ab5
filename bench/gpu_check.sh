#!/bin/bash
# Second device call of issue 4: GPU tests (layers + training smoke), the one-step check in fp16 and
# tf32, and a per-layer-kind profile of the batch-256 bf16 step. Short table last.
# SPDX-License-Identifier: GPL-3.0-or-later
O=${OUT:-/tmp/ex_out}; mkdir -p "$O"; cd "$(dirname "$0")/.." || exit 2
export PYTHONUNBUFFERED=1
if [ ! -f /usr/include/csv.h ] && [ -d .gpudeps ]; then export C_INCLUDE_PATH=$PWD/.gpudeps/include LIBRARY_PATH=$PWD/.gpudeps/lib; fi
make -j16 build/scaleplan-train > "$O/build.log" 2>&1 || { tail -30 "$O/build.log"; exit 2; }
make test-gpu 2>&1 | grep -v "^/opt\|^gcc\|^cc " | tee "$O/test_gpu.log" | tail -22
for p in fp16 tf32; do
	rm -rf /tmp/dump_$p
	build/scaleplan-train --precision $p --batch-per-gpu 32 --image-size 128 --dump-step /tmp/dump_$p --quiet > /dev/null
	python3 tests/gpu/torch_step.py /tmp/dump_$p 2>&1 | tee -a "$O/results.txt"
done
build/scaleplan-train --batch-per-gpu 256 --iters 60 --warmup-iters 10 --quiet --profile-ops 2>&1 | tee "$O/profile.txt" | grep -E "PROFILE|EXEC_RESULT|throughput"
