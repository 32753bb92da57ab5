#!/bin/bash
# Contention on 2x H200 (issue 8): an all-reduce sweep per transport with the 4-128 MiB sizes also timed
# beside a compute load (--load LOAD: how much the all-reduce and the load slow each other; LOAD gemm,
# bf16 GEMMs, or resnet, the engine's own training step), then a fresh hold-out set (1-GPU runs, 2-GPU
# runs per transport and batch) measured in the same job.
#   OUT=dir [LOAD=gemm|resnet] bash bench/gpu_contention.sh       carry: .gpudeps .jpegdeps .mpi
# Then: FIT_WHERE='gpus=1,batch_per_gpu!=128' sh bench/calibrate_h200x2.sh DIR
# SPDX-License-Identifier: GPL-3.0-or-later
cd "$(dirname "$0")/.." || exit 2
L=${LOAD:-gemm}
HOLDOUT_PLAN="build sweep:nvlink:$L sweep:emulated:$L sweep:all-socket:$L sweep:p2p-off:$L train:1:64
train:1:128 train:1:256 train:2:nvlink:64 train:2:emulated:64 train:2:nvlink:128 train:2:emulated:128
train:2:nvlink:256 train:2:emulated:256 train:2:all-socket:128 train:2:p2p-off:128 train:2:all-socket:256
train:2:p2p-off:64 train:2:emulated:256:bf16 train:2:emulated:64:bf16" \
	DEADLINE_S=${DEADLINE_S:-400} OUT=${OUT:-/tmp/contention} exec bash bench/gpu_holdout.sh
