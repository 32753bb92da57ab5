#!/bin/bash
# One host, N ranks, no MPI: starts N copies of a command with the torchrun-style variables
# scaleplan-train's launcher mode reads (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE and a fresh
# SCALEPLAN_BOOT_FILE for the NCCL id). When one rank exits non-zero, the others are killed and the
# script names the rank and exits with its status - the job-wide failure that mpirun gives.
#   bench/launch_local.sh N command [args...]
# Each rank's stdout/stderr go to the terminal (rank 0) or are prefixed "[rank r]" (others).
# LAUNCH_PIN=1 gives each rank its own contiguous share of the cores this script may run on (taskset): its
# training thread, decode and reader threads and NCCL's socket threads stay on its share. Off by default: on a
# 2x H200 host of 32 cores, halves measured slower than the scheduler's own placement (2 emulated nodes,
# batch 256: 79.9% vs 83.6% scaling; jpeg-gpu 12,801 vs 13,023 img/s; bench/NOTES.md).
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
n=$1
shift
bootdir=$(mktemp -d /tmp/scaleplan-boot.XXXXXX)
export WORLD_SIZE=$n LOCAL_WORLD_SIZE=$n SCALEPLAN_BOOT_FILE=$bootdir/nccl-id
# the cores this script may use, one number a word (from its affinity list, e.g. "0-15,32-47")
cores=()
for part in $(taskset -pc $$ 2>/dev/null | sed 's/.*: //; s/,/ /g'); do
	case $part in
	*-*) for ((c = ${part%-*}; c <= ${part#*-}; c++)); do cores+=("$c"); done ;;
	*) cores+=("$part") ;;
	esac
done
pin=()
share() { # rank: taskset words for its share of the cores, none when unpinned or too few cores
	local per=$((${#cores[@]} / n))
	if [ "${LAUNCH_PIN:-0}" = 1 ] && [ "$per" -ge 1 ]; then
		local list=${cores[*]:$(($1 * per)):$per}
		pin=(taskset -c "${list// /,}")
	else
		pin=()
	fi
}
declare -A pid2rank
pids=()
for ((r = 0; r < n; r++)); do
	share "$r"
	if [ "$r" -eq 0 ]; then
		RANK=$r LOCAL_RANK=$r "${pin[@]}" "$@" &
	else
		RANK=$r LOCAL_RANK=$r "${pin[@]}" "$@" > >(sed -u "s/^/[rank $r] /") 2> >(sed -u "s/^/[rank $r] /" >&2) &
	fi
	pid2rank[$!]=$r
	pids+=($!)
done
trap 'kill -TERM "${pids[@]}" 2>/dev/null; sleep 1; kill -KILL "${pids[@]}" 2>/dev/null; rm -rf "$bootdir"; exit 143' TERM INT
status=0
left=$n
running=("${pids[@]}")
while [ "$left" -gt 0 ]; do
	# only the ranks still running: bash's wait -n names each pid it is given, and a pid it has already
	# reaped is "no such job" (it printed that for every rank of every run)
	wait -n -p done_pid "${running[@]}"
	rc=$?
	left=$((left - 1))
	r=${pid2rank[$done_pid]:-?}
	still=()
	for p in "${running[@]}"; do
		[ "$p" != "$done_pid" ] && still+=("$p")
	done
	running=("${still[@]}")
	if [ "$rc" -ne 0 ]; then
		echo "launch_local: rank $r exited with status $rc$([ $rc -gt 128 ] && echo " (signal $((rc - 128)))"); ending the job" >&2
		for p in "${pids[@]}"; do
			[ "$p" != "$done_pid" ] && kill -TERM "$p" 2>/dev/null
		done
		sleep 2
		for p in "${pids[@]}"; do
			[ "$p" != "$done_pid" ] && kill -KILL "$p" 2>/dev/null
		done
		status=$rc
		break
	fi
done
wait 2>/dev/null
rm -rf "$bootdir"
exit $status
