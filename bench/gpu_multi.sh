#!/bin/bash
# Multi-GPU measurements on one host (2x H200: device kind nvidia-h200-x2), in one job:
#   build      test driver of the data-parallel layer (+ scaleplan-train when exec/ builds)
#   mock       bucketed all-reduce through the training hooks, checked, per transport mode
#   sweep      all-reduce sweep 1 KiB..1 GiB, fp32 + bf16, per transport mode (nccl-tests rows)
#   train      scaleplan-train synthetic 224 bf16: 1 GPU at batch 64 and 256, 2 GPUs per mode
#   ddp        PyTorch DDP (bench/peers/torch_ddp.py) at 1 GPU and 2 GPUs per mode
#   kill       a rank SIGKILLed mid-run: the job must end non-zero naming it; kill + --resume
# Transport modes (DESIGN.md): nvlink (NCCL default), p2p-off, emulated (2 nodes x 1 GPU, NCCL_HOSTID
# per rank, sockets between), all-socket.
#   PHASES="build mock sweep ddp train kill" bench/gpu_multi.sh      (default: all)
#   SWEEP_MAX=1073741824 TRAIN_ITERS=60 ...
# Writes to $OUT (default /tmp/gpu_multi): allreduce.csv, train.csv, ddp.csv, kill.txt, log.txt,
# summary.txt; prints the summary table last.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu_multi}
mkdir -p "$OUT"
PHASES=${PHASES:-build mock sweep ddp train kill}
MODES=${MODES:-nvlink p2p-off emulated all-socket}
SWEEP_MAX=${SWEEP_MAX:-1073741824}
TRAIN_ITERS=${TRAIN_ITERS:-60}
MACHINE=${MACHINE:-h200x2}
# NVLink multicast stays off on shared hosts (KINDS.md), also for PyTorch and NVSHMEM.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1
LOG=$OUT/log.txt
: >"$LOG"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
say() { echo "$@" | tee -a "$LOG"; }
run() { say "+ $*"; "$@" 2>&1 | tee -a "$LOG"; return "${PIPESTATUS[0]}"; }
has() { case " $PHASES " in *" $1 "*) return 0 ;; esac; return 1; }

# NCCL variables of a transport mode for programs that do not set them (PyTorch)
mode_env() {
	case $1 in
	nvlink) echo "" ;;
	p2p-off) echo "NCCL_P2P_DISABLE=1" ;;
	emulated) echo "EMU_NODES=2 NCCL_NET=Socket NCCL_SOCKET_IFNAME=lo" ;;
	all-socket) echo "NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_NET=Socket NCCL_SOCKET_IFNAME=lo" ;;
	esac
}
mode_args() { [ "$1" = emulated ] && echo "--emulate-nodes 2" || echo "--nccl-mode $1"; }

say "# gpu_multi.sh $(date -u +%FT%TZ) git $(git rev-parse --short HEAD 2>/dev/null)"
nvidia-smi -L 2>&1 | tee -a "$LOG"
nvidia-smi topo -m 2>&1 | tee -a "$LOG"
NGPU=$(nvidia-smi -L 2>/dev/null | wc -l)

# ---- MPI: the machine's own, else the carried libraries (.mpi) + the local launcher ----
if command -v mpirun >/dev/null && command -v mpicc >/dev/null; then
	LAUNCH2="mpirun -np 2 --bind-to none --oversubscribe"
	say "# launcher: $(mpirun --version 2>&1 | head -1)"
else
	export MPI_CFLAGS="-I$PWD/.mpi/include" MPI_LIBS="-L$PWD/.mpi/lib -lmpi"
	export LD_LIBRARY_PATH=$PWD/.mpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	LAUNCH2="bench/launch_local.sh 2"
	say "# launcher: no mpirun here: bench/launch_local.sh (RANK/WORLD_SIZE + SCALEPLAN_BOOT_FILE)"
fi
TD=build/dist/test_dist
TRAIN=""

if has build; then
	t0=$(date +%s)
	run bench/build_dist.sh || { say "BUILD FAILED (test_dist)"; }
	if [ -f exec/module.mk ]; then
		run make -j16 all || say "make all failed"
		TRAIN=$(find build -name scaleplan-train -type f -perm -u+x 2>/dev/null | head -1)
	fi
	say "# build: $(($(date +%s) - t0)) s; scaleplan-train: ${TRAIN:-not built}"
	[ -x $TD ] && run $TD --ckpt-selftest
else
	TRAIN=$(find build -name scaleplan-train -type f -perm -u+x 2>/dev/null | head -1)
fi
export LD_LIBRARY_PATH=$PWD/build/dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

if has mock && [ -x $TD ]; then
	for m in $MODES; do
		run timeout 120 $LAUNCH2 $TD --mock-train --steps 30 $(mode_args $m) --nccl-timeout 60
		echo "mock $m rc=$?" >>"$SUMMARY"
	done
	run timeout 120 $LAUNCH2 $TD --mock-train --steps 20 --grad-precision bf16 --bucket-mb 4
	echo "mock nvlink bf16 4MiB-buckets rc=$?" >>"$SUMMARY"
fi

if has sweep && [ -x $TD ]; then
	first=1
	for m in $MODES; do
		f=$OUT/sweep_$m.csv
		run timeout 240 $LAUNCH2 $TD --bench-allreduce $(mode_args $m) --max-bytes "$SWEEP_MAX" \
			--dtypes fp32,bf16 --machine "$MACHINE" --out "$f" --nccl-timeout 60
		if [ -f "$f" ]; then
			if [ $first = 1 ]; then cat "$f" >"$OUT/allreduce.csv"; first=0; else tail -n +2 "$f" >>"$OUT/allreduce.csv"; fi
			rm -f "$f"
		fi
	done
fi

# ---- PyTorch DDP, same machine, same job ----
ddp_one() { # mode nproc batch
	local m=$1 np=$2 bs=$3 line
	line=$(env $(mode_env "$m") BS=$bs timeout 300 torchrun --standalone --nproc_per_node="$np" \
		bench/peers/torch_ddp.py 2>&1 | tee -a "$LOG" | grep "ddp rn50" | head -1)
	say "ddp $m np=$np bs=$bs: $line"
	local img=$(echo "$line" | sed -n 's/.*ddp rn50: \([0-9.]*\) img\/s total.*/\1/p')
	echo "torch_ddp,$MACHINE,$np,$([ "$m" = emulated ] && echo 2 || echo 1),$m,$bs,${img:-}" >>"$OUT/ddp.csv"
}
if has ddp; then
	echo "source,machine,gpus,nodes,nccl_mode,batch_per_gpu,throughput_img_s" >"$OUT/ddp.csv"
	for b in ${DDP_BATCHES:-256}; do
		ddp_one nvlink 1 "$b"
		for m in $MODES; do ddp_one "$m" 2 "$b"; done
	done
fi

# ---- scaleplan-train ----
train_one() { # label launcher... -- args
	local label=$1
	shift
	say "# train $label"
	run timeout 300 "$@"
	echo "train $label rc=$?" >>"$SUMMARY"
}
if has train && [ -n "$TRAIN" ]; then
	run $TRAIN --help
	TA="--data synthetic --precision bf16 --iters $TRAIN_ITERS --machine $MACHINE --csv $OUT/train.csv"
	for b in 64 256; do train_one "1gpu b$b" $TRAIN $TA --batch-per-gpu $b; done
	for m in $MODES; do
		for b in 64 256; do train_one "2gpu $m b$b" $LAUNCH2 $TRAIN $TA --batch-per-gpu $b $(mode_args $m); done
	done
fi

# ---- faults ----
if has kill && [ -x $TD ]; then
	for m in nvlink emulated; do
		t0=$(date +%s.%N)
		run timeout 120 $LAUNCH2 $TD --mock-train --steps 100000 --kill-rank 1 --kill-step 40 \
			$(mode_args $m) --nccl-timeout 20
		rc=$?
		dt=$(echo "$(date +%s.%N) - $t0" | bc 2>/dev/null || python3 -c "print(round($(date +%s.%N)-$t0,1))")
		echo "kill rank 1 at step 40 ($m): job rc=$rc after ${dt} s (timeout 20 s)" | tee -a "$OUT/kill.txt" "$SUMMARY"
	done
fi

say ""
say "==== summary ($MACHINE) ===="
cat "$SUMMARY" | tee -a "$LOG"
if [ -f "$OUT/allreduce.csv" ]; then
	say "all-reduce busbw GB/s at 256 MiB / 1 GiB (fp32):"
	awk -F, 'NR>1 && $6=="fp32" && ($7==268435456 || $7==1073741824) {printf "  %-12s %10s B  %8.2f\n", $5, $7, $10}' \
		"$OUT/allreduce.csv" | tee -a "$LOG"
fi
[ -f "$OUT/ddp.csv" ] && { say "DDP:"; column -s, -t "$OUT/ddp.csv" | tee -a "$LOG"; }
exit 0
