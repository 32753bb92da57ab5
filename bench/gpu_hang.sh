#!/bin/bash
# Issue 27 bisection: jpeg-gpu at batch 64 stopped inside epoch 1 (campaign, call 6). Each variant: one epoch,
# 60 s; a run still alive then gets a backtrace of every thread (gdb) and is killed.
#   OUT=dir bash bench/gpu_hang.sh   (after bench/gpu_jpeg.sh built build-dev/scaleplan-train and /tmp/inlike)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
cd "$(dirname "$0")/.." || exit 2
TR=build-dev/scaleplan-train; DEST=${OUT:-/tmp/hang}; mkdir -p "$DEST"
# VARIANTS: environment settings per run, commas between several; QUIET=1 in a variant adds --quiet (no
# progress bar, whose cudaStreamSynchronize every 20 steps the runs that stopped all lacked). REPEAT: runs each.
for v0 in ${VARIANTS:-default}; do for rep in $(seq 1 ${REPEAT:-1}); do
	v=$v0-$rep
	E=(); [ "$v0" != default ] && E=(${v0//,/ })
	Q=; case ",$v0," in *,QUIET=1,*) Q=--quiet ;; esac
	# --data-timeout (DATA_TIMEOUT s, below LIMIT): a run that stops ends itself with a report of each data
	# thread's phase (exit 2), kept in hang_$v.log and shown below
	env "${E[@]}" taskset -c 0-3 $TR --data /tmp/inlike --data-path jpeg-gpu --batch-per-gpu ${B:-64} --epochs ${EPOCHS:-1} \
		--data-timeout ${DATA_TIMEOUT:-30} $Q > "$DEST/hang_$v.log" 2>&1 &
	pid=$!; t=0
	while kill -0 $pid 2>/dev/null && [ $t -lt ${LIMIT:-60} ]; do sleep 1; t=$((t + 1)); done
	if kill -0 $pid 2>/dev/null; then
		echo "$v: still running after $t s"
		command -v gdb >/dev/null && gdb -p $pid -batch -ex "thread apply all bt 12" > "$DEST/bt_$v.txt" 2>&1
		# without gdb: each thread's name, kernel wait channel and system call (futex: a lock or condition
		# variable; ioctl: the GPU driver)
		for t in /proc/$pid/task/*; do
			echo "$(basename $t) $(cat $t/comm) wchan=$(cat $t/wchan 2>/dev/null) syscall=$(cut -d' ' -f1-3 $t/syscall 2>/dev/null)"
		done > "$DEST/threads_$v.txt" 2>&1
		cat "$DEST/threads_$v.txt"
		kill -9 $pid; wait $pid 2>/dev/null
		grep -E "^#[0-9]+ .* in (ex_|fill|decode|nvjpeg|pthread_cond|cuda|batched|lane|slot|worker|feed)" "$DEST/bt_$v.txt" 2>/dev/null | head -30
	else
		wait $pid; rc=$?; echo "$v: rc $rc in $t s; $(grep -o 'img_s=[0-9]*' "$DEST/hang_$v.log")"
		[ $rc -eq 2 ] && grep -A12 "jpeg-gpu: no batch" "$DEST/hang_$v.log"
	fi
done; done
