#!/bin/bash
# Multi-GPU measurements on one host (2x H200: device kind nvidia-h200-x2), in one job:
#   build      test driver of the data-parallel layer (+ scaleplan-train when exec/ builds)
#   mock       bucketed all-reduce through the training hooks, checked, per transport mode
#   sweep      all-reduce sweep 1 KiB..1 GiB, fp32 + bf16, per transport mode (nccl-tests rows)
#   train      ResNet-50 synthetic 224 bf16 (test_dist --train): 1 GPU at batch 64 and 256, 2 GPUs per mode
#   ddp        PyTorch DDP (bench/peers/torch_ddp.py) at 1 GPU and 2 GPUs per mode
#   kill       a rank SIGKILLed / hung mid-run: the job must end non-zero naming it
#   resume     training killed at step 250 (checkpoint every 100), resumed with --resume to step 300
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
PHASES=${PHASES:-build mock sweep ddp train kill resume}
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
	LAUNCH2="mpirun -np 2"
	mpirun --version 2>&1 | grep -q "Open MPI" && LAUNCH2="mpirun -np 2 --bind-to none --oversubscribe"
	say "# launcher: $(mpirun --version 2>&1 | head -1)"
else
	# DT_RPATH (not RUNPATH) so that libmpi's own dependencies are found there too; no
	# LD_LIBRARY_PATH, which would also reach PyTorch's processes
	# libmpi's own RUNPATH points at Debian's folder, so its dependencies are NEEDED by the program too
	export MPI_CFLAGS="-I$PWD/.mpi/include" MPI_LIBS="-L$PWD/.mpi/lib -Wl,--disable-new-dtags,-rpath,$PWD/.mpi/lib \
-Wl,--no-as-needed -l:libmpi.so.40 -l:libopen-rte.so.40 -l:libopen-pal.so.40 -l:libhwloc.so.15 -l:libevent_core-2.1.so.7 \
-l:libevent_pthreads-2.1.so.7 -l:libudev.so.1"
	LAUNCH2="bench/launch_local.sh 2"
	say "# launcher: no mpirun here: bench/launch_local.sh (RANK/WORLD_SIZE + SCALEPLAN_BOOT_FILE)"
fi
TD=build/dist/test_dist
TRAIN=""

if has build; then
	t0=$(date +%s)
	run bench/build_dist.sh || { say "BUILD FAILED (test_dist)"; }
	if [ -n "${BUILD_ALL:-}" ]; then
		run make -j16 all || say "make all failed"
		TRAIN=$(find build -name scaleplan-train -type f -perm -u+x 2>/dev/null | head -1)
	fi
	say "# build: $(($(date +%s) - t0)) s; scaleplan-train: ${TRAIN:-not built}"
	[ -x $TD ] && run $TD --ckpt-selftest
else
	TRAIN=$(find build -name scaleplan-train -type f -perm -u+x 2>/dev/null | head -1)
fi

if has mock && [ -x $TD ]; then
	for m in ${MOCK_MODES:-$MODES}; do
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
	line=$(env $(mode_env "$m") BS=$bs timeout 300 python3 -m torch.distributed.run --standalone --nproc_per_node="$np" \
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

# ---- data-parallel training (exec's engine through the dist layer; test_dist --train) ----
# scaleplan-train's own main loop has no multi-GPU wiring yet; test_dist --train is that wiring.
TRAIN_GRAPH=${TRAIN_GRAPH:---graph}
LASTF=$(mktemp /tmp/gpu_multi_last.XXXXXX)
train_one() { # label csv launcher+args...
	local label=$1 csv=$2
	shift 2
	say "# train $label"
	"$@" >"$LASTF" 2>&1
	local rc=$?
	cat "$LASTF" >>"$LOG"
	grep -E "DIST_RESULT|rank|error|FAIL|warning|nccl:" "$LASTF" | head -20
	local res=$(grep DIST_RESULT "$LASTF" | tail -1)
	echo "train $label rc=$rc ${res#DIST_RESULT }" >>"$SUMMARY"
	if [ -f "$csv" ]; then
		if [ -f "$OUT/train.csv" ]; then tail -n +2 "$csv" >>"$OUT/train.csv"; else cat "$csv" >"$OUT/train.csv"; fi
		rm -f "$csv"
	fi
	LAST_IMG=$(echo "$res" | sed -n 's/.* img_s=\([0-9.]*\).*/\1/p')
}
if has train && [ -x $TD ]; then
	TA="--train --iters $TRAIN_ITERS --warmup-iters 20 --precision bf16 --machine $MACHINE $TRAIN_GRAPH --nccl-timeout 120"
	for b in ${TRAIN_BATCHES:-64 256}; do
		train_one "1gpu b$b" $OUT/t.csv timeout 300 $TD $TA --batch-per-gpu $b --run-id "1gpu-b$b" --csv $OUT/t.csv
		base=${LAST_IMG:-0}
		for m in ${TRAIN_MODES:-$MODES}; do
			train_one "2gpu $m b$b" $OUT/t.csv timeout 300 $LAUNCH2 $TD $TA --batch-per-gpu $b $(mode_args $m) \
				--baseline-img-s "$base" --run-id "2gpu-$m-b$b" --csv $OUT/t.csv
		done
		# variants, e.g. TRAIN_EXTRA="emulated:bf16 emulated:no-overlap": gradient precision / overlap off
		for x in ${TRAIN_EXTRA:-}; do
			m=${x%%:*}
			v=${x#*:}
			case $v in bf16|fp16) va="--grad-precision $v" ;; no-overlap) va="--no-overlap" ;; *) va="" ;; esac
			train_one "2gpu $m b$b $v" $OUT/t.csv timeout 300 $LAUNCH2 $TD $TA --batch-per-gpu $b $(mode_args $m) $va \
				--baseline-img-s "$base" --run-id "2gpu-$m-b$b-$v" --csv $OUT/t.csv
		done
	done
fi

# ---- faults ----
if has kill && [ -x $TD ]; then
	for m in nvlink emulated; do
		t0=$(date +%s)
		run timeout 120 $LAUNCH2 $TD --mock-train --steps 100000 --kill-rank 1 --kill-step 40 \
			$(mode_args $m) --nccl-timeout 20
		rc=$?
		echo "mock: rank 1 SIGKILLed at step 40 ($m): job rc=$rc after $(($(date +%s) - t0)) s (timeout 20 s)" | tee -a "$OUT/kill.txt" "$SUMMARY"
	done
	t0=$(date +%s)
	run timeout 120 $LAUNCH2 $TD --mock-train --steps 100000 --kill-rank 1 --kill-step 40 --hang --nccl-timeout 20
	rc=$?
	echo "mock: rank 1 hangs at step 40 (nvlink): job rc=$rc after $(($(date +%s) - t0)) s (timeout 20 s)" | tee -a "$OUT/kill.txt" "$SUMMARY"
	grep -h "scaleplan-train: rank\|launch_local:\|mpirun noticed\|kills itself\|hangs" "$LOG" | tail -12 >>"$OUT/kill.txt"
fi
if has resume && [ -x $TD ]; then
	CK=$(mktemp -d /tmp/ckpt.XXXXXX)
	RA="--train --batch-per-gpu 64 --iters 300 --warmup-iters 10 --precision bf16 $TRAIN_GRAPH --ckpt-dir $CK --ckpt-every-steps 100 --log-every 25 --nccl-timeout 60"
	t0=$(date +%s)
	run timeout 200 $LAUNCH2 $TD $RA --kill-rank 1 --kill-step 250
	rc=$?
	echo "resume test: run killed (rank 1 SIGKILL at step 250): rc=$rc after $(($(date +%s) - t0)) s; checkpoint $(ls -la $CK | grep ckpt.bin | awk '{print $5}') B" | tee -a "$OUT/kill.txt" "$SUMMARY"
	grep -h "^step \|checkpoint at" "$LOG" | tail -12 | sed 's/^/  killed run: /' >>"$OUT/kill.txt"
	run timeout 200 $LAUNCH2 $TD $RA --resume
	rc=$?
	echo "resume test: resumed run rc=$rc" | tee -a "$OUT/kill.txt" "$SUMMARY"
	grep -h "^step \|resumed from\|DIST_RESULT" "$LOG" | tail -6 | sed 's/^/  resumed run: /' | tee -a "$OUT/kill.txt" "$SUMMARY"
	rm -rf "$CK"
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
