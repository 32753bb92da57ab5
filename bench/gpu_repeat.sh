#!/bin/bash
# Repeatability of the 2x H200 testbed (issue 8): the same 2-GPU runs three times each, interleaved,
# with an all-reduce sweep over sockets before and after, and the 1-GPU batch-64 run twice - the noise
# floor any prediction of these runs is judged against. Then exec's GPU unit tests (make test-gpu).
#   OUT=dir bash bench/gpu_repeat.sh           carry: .gpudeps .jpegdeps .mpi
# SPDX-License-Identifier: GPL-3.0-or-later
cd "$(dirname "$0")/.." || exit 2
R="train:2:emulated:64 train:2:emulated:128 train:2:emulated:256 train:2:nvlink:64 train:2:all-socket:128"
HOLDOUT_PLAN="build sweep:emulated sweep:all-socket train:1:64 train:1:128 train:1:256 $R $R $R train:1:64 sweep:emulated sweep:all-socket" \
	DEADLINE_S=${DEADLINE_S:-330} OUT=${OUT:-/tmp/repeat} exec bash bench/gpu_holdout.sh
