#!/bin/bash
# Repeatability of the 2x H200 testbed (issue 8): the same 2-GPU runs three times each, interleaved,
# with an all-reduce sweep over sockets before and after, and the 1-GPU batch-64 run twice - the noise
# floor any prediction of these runs is judged against. Then exec's GPU unit tests (make test-gpu).
#   OUT=dir bash bench/gpu_repeat.sh           carry: .gpudeps .jpegdeps .mpi
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
cd "$(dirname "$0")/.." || exit 2
O=${OUT:-/tmp/repeat}; mkdir -p "$O"
T0=$(date +%s)
R="train:2:emulated:64 train:2:emulated:128 train:2:emulated:256 train:2:nvlink:64 train:2:all-socket:128"
PLAN="build sweep:emulated sweep:all-socket train:1:64 train:1:128 train:1:256 $R $R $R train:1:64 sweep:emulated sweep:all-socket" \
	SWEEP_MAX=268435456 TRAIN_ITERS=60 DEADLINE_S=${DEADLINE_S:-330} OUT="$O" bash bench/gpu_multi.sh >/dev/null 2>&1
echo "gpu_multi: $(( $(date +%s) - T0 )) s"
# libcsv, zlib, libjpeg-turbo headers and static libraries where the machine lacks them (carried)
if { [ ! -f /usr/include/turbojpeg.h ] || [ ! -f /usr/include/csv.h ]; } && [ -d .jpegdeps ]; then
	export C_INCLUDE_PATH=$PWD/.jpegdeps/include LIBRARY_PATH=$PWD/.jpegdeps/lib
fi
LEFT=$(( ${TOTAL_S:-570} - $(date +%s) + T0 ))
if [ $LEFT -gt 60 ]; then
	( make -j16 build/scaleplan-train >"$O/test_gpu.log" 2>&1 && timeout $((LEFT - 20)) make test-gpu >>"$O/test_gpu.log" 2>&1 )
	echo "test-gpu: exit $? at $(( $(date +%s) - T0 )) s"
	grep -E "^== |passed|failed|ok|FAIL|skip" "$O/test_gpu.log" | tail -14
else
	echo "test-gpu: skipped ($LEFT s left)"
fi
cat "$O/summary.txt"
