#!/bin/bash
# Device smoke test of data-parallel scaleplan-train (issue 5 wiring in exec/ex_train.c), one call on
# an nvidia-h200-x2, under 120 s: builds build/scaleplan-train from source (sm_90 only), then ResNet-50
# synthetic 224 bf16, batch 256 per GPU, 10 warm-up + 40 timed steps:
#   1 GPU (baseline) | mpirun -np 2, nvlink | mpirun -np 2, --emulate-nodes 2 (sockets between "nodes")
# and prints img/s and scaling efficiency (2-GPU img/s / (2 x 1-GPU img/s)) in a short table last.
# CSVs (rank 0: NAME.csv, rank 1: NAME.rank1.csv) and logs go to $OUT (default /tmp/gpu_dist_smoke).
# Carry: .gpudeps .jpegdeps .mpi (headers/static libs for libcsv, zlib, turbojpeg; MPI when the machine
# has no mpicc - then bench/launch_local.sh starts the ranks).
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-/tmp/gpu_dist_smoke}
mkdir -p "$OUT"
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
MACHINE=${MACHINE:-h200x2}
ARGS="--data synthetic --batch-per-gpu 256 --iters 40 --warmup-iters 10 --precision bf16 --quiet --machine $MACHINE"
# NVLink multicast stays off on shared hosts (KINDS.md)
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export SCALEPLAN_GIT_SHA=${SCALEPLAN_GIT_SHA:-$(sh tools/git_sha.sh)}
nvidia-smi -L

# ---- build (like bench/gpu_input.sh + bench/build_dist.sh) ----
if { [ ! -f /usr/include/turbojpeg.h ] || [ ! -f /usr/include/csv.h ]; } && [ -d .jpegdeps ]; then
	export C_INCLUDE_PATH=$PWD/.jpegdeps/include LIBRARY_PATH=$PWD/.jpegdeps/lib
elif [ ! -f /usr/include/csv.h ] && [ -d .gpudeps ]; then
	export C_INCLUDE_PATH=$PWD/.gpudeps/include LIBRARY_PATH=$PWD/.gpudeps/lib
fi
MK=()
pydir() { python3 -c "import $1 as m; print(list(m.__path__)[0])" 2>/dev/null; }
NCCL_INC=""
for d in /usr/include /usr/local/cuda/include "$(pydir nvidia.nccl)/include"; do
	[ -f "$d/nccl.h" ] && NCCL_INC=$d && break
done
[ -n "$NCCL_INC" ] && [ "$NCCL_INC" != /usr/include ] && MK+=("NCCL_INC=$NCCL_INC")
for d in /usr/lib/x86_64-linux-gnu /usr/local/cuda/lib64 /usr/local/cuda/lib "$(pydir nvidia.nccl)/lib"; do
	if [ -e "$d/libnccl.so" ]; then MK+=("NCCL_LIB=$d"); break; fi
	if [ -e "$d/libnccl.so.2" ]; then # no dev symlink: make one for the linker
		mkdir -p build/nccl-lib && ln -sf "$d/libnccl.so.2" build/nccl-lib/libnccl.so
		MK+=("NCCL_LIB=$PWD/build/nccl-lib")
		break
	fi
done
if command -v mpirun >/dev/null && command -v mpicc >/dev/null; then
	LAUNCH2="mpirun --allow-run-as-root -np 2 --bind-to none --oversubscribe"
else # the carried Open MPI libraries (see bench/gpu_multi.sh) and the local launcher
	export MPI_CFLAGS="-I$PWD/.mpi/include" MPI_LIBS="-L$PWD/.mpi/lib -Wl,--disable-new-dtags,-rpath,$PWD/.mpi/lib \
-Wl,--no-as-needed -l:libmpi.so.40 -l:libopen-rte.so.40 -l:libopen-pal.so.40 -l:libhwloc.so.15 -l:libevent_core-2.1.so.7 \
-l:libevent_pthreads-2.1.so.7 -l:libudev.so.1"
	LAUNCH2="bench/launch_local.sh 2"
fi
echo "# nccl.h: ${NCCL_INC:-?}; make ${MK[*]}; launcher: $LAUNCH2"
NVF="-O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -Xcompiler -Wall -I."
if ! make -j"$(nproc)" build/scaleplan-train "${MK[@]}" EX_NVFLAGS="$NVF" >"$OUT/build.log" 2>&1; then
	tail -25 "$OUT/build.log"
	echo "BUILD FAILED ($(el) s)"
	exit 2
fi
build/scaleplan-train --help | grep -q -- --nccl-mode || echo "WARNING: ex_train.c built without -DEX_HAVE_DIST (no MPI/NCCL found): one GPU only"
echo "# build: $(el) s"
TR=build/scaleplan-train

# ---- runs ----
RES=$OUT/results.txt
: >"$RES"
run() { # name launcher-args...
	local name=$1 rc line
	shift
	echo "+ $* $ARGS --run-id $name --csv $OUT/$name.csv" | tee -a "$OUT/log.txt"
	timeout 90 "$@" $ARGS --run-id "$name" --csv "$OUT/$name.csv" >"$OUT/$name.log" 2>&1
	rc=$?
	cat "$OUT/$name.log" >>"$OUT/log.txt"
	grep -E "throughput img/s|data-parallel|scaleplan-train:|EXEC_RESULT|rank [0-9]" "$OUT/$name.log" | head -8
	line=$(grep -m1 "^EXEC_RESULT" "$OUT/$name.log")
	echo "$name rc=$rc $line" >>"$RES"
	echo "# $name: rc $rc, $(el) s"
}
val() { sed -n "s/^$1 .* $2=\([0-9.]*\).*/\1/p" "$RES" | head -1; }
run 1gpu $TR
BASE=$(val 1gpu img_s)
ARGS="$ARGS --nccl-timeout 60 ${BASE:+--baseline-img-s $BASE}"
run 2gpu-nvlink $LAUNCH2 $TR --nccl-mode nvlink
run 2gpu-emulated $LAUNCH2 $TR --emulate-nodes 2

# ---- table ----
echo
echo "gpu_dist_smoke $(date -u +%FT%TZ) sha $SCALEPLAN_GIT_SHA, synthetic 224 bf16, batch 256/GPU, 40 timed steps, $(el) s"
printf "%-14s %4s %10s %10s %8s %10s %10s %s\n" run rc img_s per_gpu eff allred_ms exposed_ms csv
for n in 1gpu 2gpu-nvlink 2gpu-emulated; do
	rc=$(sed -n "s/^$n rc=\([0-9]*\).*/\1/p" "$RES")
	img=$(val $n img_s)
	g=1
	case $n in 2gpu*) g=2 ;; esac
	eff=$(awk -v a="${img:-0}" -v b="${BASE:-0}" -v g=$g 'BEGIN { if (a > 0 && b > 0) printf "%.3f", a / (g * b); else print "-" }')
	per=$(awk -v a="${img:-0}" -v g=$g 'BEGIN { if (a > 0) printf "%.1f", a / g; else print "-" }')
	csvs=$(cd "$OUT" && ls $n.csv $n.rank*.csv 2>/dev/null | tr '\n' ' ')
	printf "%-14s %4s %10s %10s %8s %10s %10s %s\n" $n "${rc:-?}" "${img:--}" "$per" "$eff" \
		"$(val $n allreduce_ms)" "$(val $n exposed_ms)" "$csvs"
done
