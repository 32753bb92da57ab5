#!/bin/bash
# Multi-GPU measurements on one host (2x H200: device kind nvidia-h200-x2), in one job. PLAN is an
# ordered list of steps, run until DEADLINE_S seconds have passed (what is left is skipped, the
# summary still prints):
#   build                    test driver of the data-parallel layer (build/dist/test_dist: exec's
#                            single-GPU engine + ex_dist + ex_ckpt), against this machine's CUDA/cuDNN/NCCL
#   mock:MODE                bucketed all-reduce through the training hooks, checked every step
#   sweep:MODE[:LOAD]        all-reduce sweep 1 KiB..SWEEP_MAX, fp32 + bf16 (nccl-tests rows); with LOAD
#                            (gemm | resnet) also 4-128 MiB beside that compute load (--load LOAD)
#   train:1:B                ResNet-50 synthetic 224 bf16 on 1 GPU, batch B per GPU (test_dist --train)
#   train:2:MODE:B[:VAR]     the same on 2 GPUs (VAR: bf16 | fp16 gradients, no-overlap)
#   ddp:N:MODE:B             PyTorch DDP (bench/peers/torch_ddp.py), N GPUs
#   kill                     a rank SIGKILLed (nvlink, emulated) / hung mid-run: the job ends non-zero
#   resume                   training killed at step 250 (checkpoint every 100), resumed to step 300
# Transport modes (docs/design.md): nvlink (NCCL default), p2p-off, emulated (2 nodes x 1 GPU: NCCL_HOSTID
# per rank, sockets between), all-socket.
# Writes to $OUT (default /tmp/gpu_multi): allreduce.csv, train.csv, ddp.csv, kill.txt, log.txt,
# summary.txt (at most 8 files come back from a device call); prints the summary last.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu_multi}
mkdir -p "$OUT"
PLAN=${PLAN:-build mock:nvlink train:1:256 train:2:nvlink:256 train:2:emulated:256 ddp:1:nvlink:256
ddp:2:nvlink:256 ddp:2:emulated:256 resume kill sweep:nvlink sweep:emulated sweep:p2p-off sweep:all-socket
train:1:64 train:2:nvlink:64 train:2:emulated:64 train:2:p2p-off:256 train:2:all-socket:256
ddp:2:p2p-off:256 ddp:2:all-socket:256 train:2:p2p-off:64 train:2:all-socket:64 train:2:emulated:64:bf16}
DEADLINE_S=${DEADLINE_S:-540}
SWEEP_MAX=${SWEEP_MAX:-1073741824}
TRAIN_ITERS=${TRAIN_ITERS:-80}
TRAIN_GRAPH=${TRAIN_GRAPH:---graph}
MACHINE=${MACHINE:-h200x2}
# NVLink multicast stays off on shared hosts (KINDS.md), also for PyTorch and NVSHMEM.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1
T_START=$(date +%s)
LOG=$OUT/log.txt
SUMMARY=$OUT/summary.txt
: >"$LOG"
: >"$SUMMARY"
LASTF=$(mktemp /tmp/gpu_multi_last.XXXXXX)
TD=build/dist/test_dist
declare -A BASE   # 1-GPU img/s per batch, for scaling efficiency

say() { echo "$@" | tee -a "$LOG"; }
run() { say "+ $*"; "$@" 2>&1 | tee -a "$LOG"; return "${PIPESTATUS[0]}"; }
elapsed() { echo $(($(date +%s) - T_START)); }

# NCCL variables of a transport mode for programs that do not set them (PyTorch)
mode_env() {
	case $1 in
	p2p-off) echo "NCCL_P2P_DISABLE=1" ;;
	emulated) echo "EMU_NODES=2 NCCL_NET=Socket NCCL_SOCKET_IFNAME=lo" ;;
	all-socket) echo "NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_NET=Socket NCCL_SOCKET_IFNAME=lo" ;;
	esac
}
mode_args() { [ "$1" = emulated ] && echo "--emulate-nodes 2" || echo "--nccl-mode $1"; }

say "# gpu_multi.sh $(date -u +%FT%TZ) sha ${SCALEPLAN_GIT_SHA:-$(sh tools/git_sha.sh)}"
nvidia-smi -L 2>&1 | tee -a "$LOG"
nvidia-smi topo -m 2>&1 | tee -a "$LOG"

# ---- MPI: the machine's own, else the carried libraries (.mpi) + the local launcher ----
if command -v mpirun >/dev/null && command -v mpicc >/dev/null; then
	LAUNCH2="mpirun -np 2"
	mpirun --version 2>&1 | grep -q "Open MPI" && LAUNCH2="mpirun -np 2 --bind-to none --oversubscribe"
	say "# launcher: $(mpirun --version 2>&1 | head -1)"
else
	# libmpi's own RUNPATH names Debian's folder, so the program NEEDs libmpi's dependencies itself and
	# finds them through its DT_RPATH; no LD_LIBRARY_PATH, which would also reach PyTorch's processes
	export MPI_CFLAGS="-I$PWD/.mpi/include" MPI_LIBS="-L$PWD/.mpi/lib -Wl,--disable-new-dtags,-rpath,$PWD/.mpi/lib \
-Wl,--no-as-needed -l:libmpi.so.40 -l:libopen-rte.so.40 -l:libopen-pal.so.40 -l:libhwloc.so.15 -l:libevent_core-2.1.so.7 \
-l:libevent_pthreads-2.1.so.7 -l:libudev.so.1"
	LAUNCH2="bench/launch_local.sh 2"
	say "# launcher: no mpirun here: bench/launch_local.sh (RANK/WORLD_SIZE + SCALEPLAN_BOOT_FILE)"
fi

step_build() {
	local t0=$(date +%s)
	run bench/build_dist.sh || say "BUILD FAILED (test_dist)"
	say "# build: $(($(date +%s) - t0)) s"
	[ -x $TD ] && run $TD --ckpt-selftest
	echo "build rc=$([ -x $TD ] && echo 0 || echo 1) $(($(date +%s) - t0)) s" >>"$SUMMARY"
}

step_mock() { # mode
	run timeout 120 $LAUNCH2 $TD --mock-train --steps 30 $(mode_args "$1") --nccl-timeout 60
	echo "mock $1 rc=$?" >>"$SUMMARY"
}

step_sweep() { # mode [load]
	local f=$OUT/sweep.tmp.csv
	rm -f "$f"
	run timeout 240 $LAUNCH2 $TD --bench-allreduce $(mode_args "$1") --max-bytes "$SWEEP_MAX" \
		--dtypes fp32,bf16 --machine "$MACHINE" --out "$f" --nccl-timeout 60 ${2:+--load $2}
	echo "sweep $1${2:+ (under load $2)} rc=$?" >>"$SUMMARY"
	if [ -f "$f" ]; then
		if [ -f "$OUT/allreduce.csv" ]; then tail -n +2 "$f" >>"$OUT/allreduce.csv"; else cat "$f" >"$OUT/allreduce.csv"; fi
		rm -f "$f"
	fi
}

step_ddp() { # nproc mode batch
	local np=$1 m=$2 bs=$3 line img
	[ -f "$OUT/ddp.csv" ] || echo "source,machine,gpus,nodes,nccl_mode,batch_per_gpu,throughput_img_s,per_gpu_img_s,scaling_eff" >"$OUT/ddp.csv"
	say "+ $(mode_env "$m") BS=$bs python3 -m torch.distributed.run --standalone --nproc_per_node=$np bench/peers/torch_ddp.py"
	env $(mode_env "$m") BS=$bs timeout 300 python3 -m torch.distributed.run --standalone --nproc_per_node="$np" \
		bench/peers/torch_ddp.py >"$LASTF" 2>&1
	local rc=$?
	cat "$LASTF" >>"$LOG"
	line=$(grep "ddp rn50" "$LASTF" | head -1)
	grep -E "ddp rn50|allreduce 256|Error|error" "$LASTF" | head -6
	img=$(echo "$line" | sed -n 's/.*ddp rn50: \([0-9.]*\) img\/s total.*/\1/p')
	local key="ddp$bs" eff=""
	[ "$np" = 1 ] && [ -n "$img" ] && BASE[$key]=$img
	[ "$np" != 1 ] && [ -n "$img" ] && [ -n "${BASE[$key]:-}" ] && eff=$(python3 -c "print(round($img/($np*${BASE[$key]}),4))")
	echo "torch_ddp,$MACHINE,$np,$([ "$m" = emulated ] && echo 2 || echo 1),$([ "$np" = 1 ] && echo none || echo "$m"),$bs,${img:-},$([ -n "$img" ] && python3 -c "print(round($img/$np,1))"),$eff" >>"$OUT/ddp.csv"
	echo "ddp $np gpu $m b$bs rc=$rc img_s=${img:-?} eff=${eff:-}" >>"$SUMMARY"
}

step_train() { # 1 B | 2 MODE B [VAR]
	local np=$1 m b v="" va="" res rc csv=$OUT/t.tmp.csv
	if [ "$np" = 1 ]; then b=$2; m=none; else m=$2; b=$3; v=${4:-}; fi
	case $v in bf16 | fp16) va="--grad-precision $v" ;; no-overlap) va="--no-overlap" ;; esac
	local TA="--train --iters $TRAIN_ITERS --warmup-iters 20 --precision bf16 --machine $MACHINE $TRAIN_GRAPH --nccl-timeout 120"
	local id="${np}gpu-$m-b$b${v:+-$v}"
	rm -f "$csv"
	say "+ train $id"
	if [ "$np" = 1 ]; then
		timeout 300 $TD $TA --batch-per-gpu "$b" --run-id "$id" --csv "$csv" >"$LASTF" 2>&1
	else
		timeout 300 $LAUNCH2 $TD $TA --batch-per-gpu "$b" $(mode_args "$m") $va --baseline-img-s "${BASE[$b]:-0}" \
			--run-id "$id" --csv "$csv" >"$LASTF" 2>&1
	fi
	rc=$?
	cat "$LASTF" >>"$LOG"
	if [ "$rc" -ne 0 ] && [ "$np" = 2 ] && [ "$TRAIN_GRAPH" = --graph ]; then
		# NCCL inside a captured CUDA graph failed: say so, go on without graphs
		grep -E "rank [0-9]|rror" "$LASTF" | head -5
		say "# 2-GPU run with --graph failed (rc=$rc): retrying and continuing with --no-graph"
		echo "train $id rc=$rc with --graph: retried with --no-graph" >>"$SUMMARY"
		TRAIN_GRAPH=--no-graph
		step_train "$@"
		return
	fi
	grep -E "DIST_RESULT|rank [0-9]|rror|FAIL|warning|nccl:" "$LASTF" | head -12
	res=$(grep DIST_RESULT "$LASTF" | tail -1)
	echo "train $id rc=$rc ${res#DIST_RESULT }" >>"$SUMMARY"
	[ "$np" = 1 ] && BASE[$b]=$(echo "$res" | sed -n 's/.* img_s=\([0-9.]*\).*/\1/p')
	if [ -f "$csv" ]; then
		if [ -f "$OUT/train.csv" ]; then tail -n +2 "$csv" >>"$OUT/train.csv"; else cat "$csv" >"$OUT/train.csv"; fi
		rm -f "$csv"
	fi
}

step_kill() {
	local m t0 rc
	for m in nvlink emulated; do
		t0=$(date +%s)
		run timeout 120 $LAUNCH2 $TD --mock-train --steps 100000 --kill-rank 1 --kill-step 40 $(mode_args $m) --nccl-timeout 20
		rc=$?
		echo "kill: rank 1 SIGKILLed at step 40 ($m): job rc=$rc after $(($(date +%s) - t0)) s (--nccl-timeout 20)" | tee -a "$OUT/kill.txt" "$SUMMARY"
	done
	t0=$(date +%s)
	run timeout 120 $LAUNCH2 $TD --mock-train --steps 100000 --kill-rank 1 --kill-step 40 --hang --nccl-timeout 10
	rc=$?
	echo "kill: rank 1 hangs at step 40 (nvlink): job rc=$rc after $(($(date +%s) - t0)) s (--nccl-timeout 10)" | tee -a "$OUT/kill.txt" "$SUMMARY"
	grep -h "scaleplan-train: rank\|launch_local:\|mpirun noticed\|kills itself\|hangs (stops" "$LOG" | tail -12 | sed 's/^/  /' >>"$OUT/kill.txt"
}

step_resume() {
	local CK t0 rc
	CK=$(mktemp -d /tmp/ckpt.XXXXXX)
	local RA="--train --batch-per-gpu 64 --iters 300 --warmup-iters 10 --precision bf16 $TRAIN_GRAPH --ckpt-dir $CK --ckpt-every-steps 100 --log-every 25 --nccl-timeout 60"
	t0=$(date +%s)
	timeout 200 $LAUNCH2 $TD $RA --kill-rank 1 --kill-step 250 >"$LASTF" 2>&1
	rc=$?
	cat "$LASTF" >>"$LOG"
	echo "resume: run 1 killed (rank 1 SIGKILL at step 250): rc=$rc after $(($(date +%s) - t0)) s; $CK/ckpt.bin $(stat -c %s $CK/ckpt.bin 2>/dev/null) B" | tee -a "$OUT/kill.txt" "$SUMMARY"
	grep -hE "^step |checkpoint at|launch_local|mpirun noticed|kills itself" "$LASTF" | sed 's/^/  run 1: /' | tee -a "$OUT/kill.txt"
	timeout 200 $LAUNCH2 $TD $RA --resume >"$LASTF" 2>&1
	rc=$?
	cat "$LASTF" >>"$LOG"
	echo "resume: run 2 (--resume) rc=$rc" | tee -a "$OUT/kill.txt" "$SUMMARY"
	grep -hE "^step |resumed from|DIST_RESULT" "$LASTF" | sed 's/^/  run 2: /' | tee -a "$OUT/kill.txt" "$SUMMARY"
	rm -rf "$CK"
}

for s in $PLAN; do
	if [ "$(elapsed)" -ge "$DEADLINE_S" ]; then
		say "# deadline ($DEADLINE_S s) reached: skipping $s"
		echo "skipped $s (deadline)" >>"$SUMMARY"
		continue
	fi
	say ""
	say "## step $s (at $(elapsed) s)"
	IFS=: read -r what a b c d <<<"$s"
	case $what in
	build) step_build ;;
	mock) [ -x $TD ] && step_mock "$a" ;;
	sweep) [ -x $TD ] && step_sweep "$a" "$b" ;;
	train) [ -x $TD ] && step_train "$a" "$b" "$c" "$d" ;;
	ddp) step_ddp "$a" "$b" "$c" ;;
	kill) [ -x $TD ] && step_kill ;;
	resume) [ -x $TD ] && step_resume ;;
	*) say "unknown step $s" ;;
	esac
done

say ""
say "==== summary ($MACHINE, $(elapsed) s) ===="
cat "$SUMMARY" | tee -a "$LOG"
if [ -f "$OUT/allreduce.csv" ]; then
	say "all-reduce busbw GB/s, fp32 (bytes: 1 MiB, 64 MiB, 256 MiB, 1 GiB):"
	awk -F, 'NR>1 && $6=="fp32" && ($7==1048576 || $7==67108864 || $7==268435456 || $7==1073741824) {
		b[$5] = b[$5] sprintf(" %8.2f", $10) } END { for (m in b) printf "  %-12s%s\n", m, b[m] }' \
		"$OUT/allreduce.csv" | tee -a "$LOG"
fi
rm -f "$LASTF"
exit 0
