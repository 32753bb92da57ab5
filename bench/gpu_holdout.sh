#!/bin/bash
# Fresh hold-out data for issue 8 on 2x H200 (device kind nvidia-h200-x2), after the calibrate model
# gained the engine's bucket pipeline: 1-GPU runs at batch 64, 128, 256 (the fit uses 64 and 256 only),
# an all-reduce sweep per transport, and 2-GPU runs the profile has never seen (NVLink and 2 emulated
# nodes at 64, 128, 256; all-socket and host memory at 128), PyTorch DDP beside them; then the GPU unit
# tests of exec (common/ changed since the last GPU run). Everything in one job, inside DEADLINE_S.
#   OUT=dir bash bench/gpu_holdout.sh          carry: .gpudeps .jpegdeps .mpi
#   HOLDOUT_PLAN="..." DEADLINE_S=N            another gpu_multi.sh plan (bench/gpu_repeat.sh)
# Afterwards, on any machine: sh bench/calibrate_h200x2.sh DIR (DIR = the returned files).
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
cd "$(dirname "$0")/.." || exit 2
O=${OUT:-/tmp/holdout}; mkdir -p "$O"
T0=$(date +%s)
PLAN=${HOLDOUT_PLAN:-"build sweep:nvlink sweep:emulated train:1:64 train:1:128 train:1:256 train:2:nvlink:64
train:2:emulated:64 train:2:nvlink:128 train:2:emulated:128 train:2:nvlink:256 train:2:emulated:256 sweep:all-socket
sweep:p2p-off train:2:all-socket:128 train:2:p2p-off:128 ddp:1:nvlink:256 ddp:2:nvlink:256 ddp:2:emulated:256"} \
	SWEEP_MAX=268435456 TRAIN_ITERS=60 DEADLINE_S=${DEADLINE_S:-440} OUT="$O" bash bench/gpu_multi.sh >/dev/null 2>&1
echo "gpu_multi: $(( $(date +%s) - T0 )) s"
if { [ ! -f /usr/include/turbojpeg.h ] || [ ! -f /usr/include/csv.h ]; } && [ -d .jpegdeps ]; then
	export C_INCLUDE_PATH=$PWD/.jpegdeps/include LIBRARY_PATH=$PWD/.jpegdeps/lib
fi
LEFT=$(( ${TOTAL_S:-570} - $(date +%s) + T0 ))
if [ $LEFT -gt 60 ]; then
	( make -j16 build/scaleplan-train >"$O/test_gpu.log" 2>&1 && timeout $((LEFT - 30)) make test-gpu >>"$O/test_gpu.log" 2>&1 )
	echo "test-gpu: exit $? at $(( $(date +%s) - T0 )) s"
	grep -E "^== |passed|failed|ok|FAIL|skip" "$O/test_gpu.log" | tail -14
else
	echo "test-gpu: skipped ($LEFT s left)"
fi
cat "$O/summary.txt"
