#!/bin/sh
# A stand-in for scaleplan-train where no GPU is: it takes the same flags, reads the rank from the launcher's
# variables (Slurm, the torchrun-style ones of bench/launch_local.sh, Open MPI), prints the EXEC_RESULT line
# and writes the measurement CSV a real run writes (the columns of exec/ex_train.c's csv_rows; rank r > 0
# writes NAME.rank<r>.csv), so the campaign scripts, the Slurm path and bench/gpu.sh can be run end to end by
# `make test` and dry runs. Its img/s are made up (a fixed rate per GPU); nothing here measures anything.
# STAND_IN_HANG=ID: the run whose --run-id is ID sleeps (a stuck run, for --run-timeout tests).
# STAND_IN_FAIL=ID: that run exits 2.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
csv="" run_id="" b=256 data=synthetic path=jpeg-gpu epochs=1 nodes_emul=0 mode=nvlink machine="" mk=""
while [ $# -gt 0 ]; do
	case $1 in
	--help)
		echo "usage: scaleplan-train (stand-in) ... --data-path P (default jpeg-gpu) --nccl-mode M"
		exit 0 ;;
	--csv) csv=$2; shift ;;
	--run-id) run_id=$2; shift ;;
	--batch-per-gpu) b=$2; shift ;;
	--data) data=$2; shift ;;
	--data-path) path=$2; shift ;;
	--epochs) epochs=$2; shift ;;
	--emulate-nodes) nodes_emul=$2; mode=emulated; shift ;;
	--nccl-mode) mode=$2; shift ;;
	--machine) machine=$2; shift ;;
	--make-jpeg-folder) mk=$2; shift ;;
	--*=*) ;;
	--quiet | --no-graph | --lars | --no-overlap | --shrink-buckets | --no-bn-weight-decay | --profile-ops) ;;
	--*) shift ;;
	esac
	shift
done
if [ -n "$mk" ]; then
	mkdir -p "$mk/train/n00000000" "$mk/val/n00000000"
	exit 0
fi
rank=${SLURM_PROCID:-${RANK:-${OMPI_COMM_WORLD_RANK:-0}}}
world=${SLURM_NTASKS:-${WORLD_SIZE:-${OMPI_COMM_WORLD_SIZE:-1}}}
if [ -n "$run_id" ] && [ "${STAND_IN_HANG:-}" = "$run_id" ]; then
	sleep 3600
fi
if [ -n "$run_id" ] && [ "${STAND_IN_FAIL:-}" = "$run_id" ]; then
	echo "scaleplan-train (stand-in): rank $rank: failing on purpose (STAND_IN_FAIL)" >&2
	exit 2
fi
nodes=1
[ "$mode" = emulated ] && nodes=${nodes_emul:-2}
[ -n "${SLURM_NNODES:-}" ] && nodes=$SLURM_NNODES
per=$((world / nodes))
[ "$world" -gt 1 ] || mode=none
# a made-up rate: 5,000 img/s per GPU at batch 256, less at smaller batches, 90% scaling
img=$(awk -v b="$b" -v w="$world" 'BEGIN { r = 5000 * b / (b + 16); if (w > 1) r *= 0.9; printf "%.1f", r * w }')
src=$data
case $data in synthetic | fashion-mnist) ;; *) src=$path ;; esac
echo "EXEC_RESULT data=$src batch=$b prec=bf16 img_s=${img%.*} (stand-in)"
[ -n "$csv" ] || exit 0
out=$csv
if [ "$rank" -gt 0 ]; then
	case $csv in *.csv) out=${csv%.csv}.rank$rank.csv ;; *) out=$csv.rank$rank ;; esac
fi
mkdir -p "$(dirname "$out")"
{
	echo "source,run_id,machine,gpu,nodes,gpus_per_node,gpus,nccl_mode,batch_per_gpu,global_batch,precision,data,data_threads,epoch,iters,throughput_img_s,per_gpu_img_s,scaling_eff,iter_s,fwd_s,bwd_s,opt_s,allreduce_s,comm_exposed_s,data_wait_s,loss,top1,peak_mem_B,git_sha,image_size,time_s,lr"
	iter=$(awk -v b="$b" -v w="$world" -v i="$img" 'BEGIN { printf "%.6f", b * w / i }')
	if [ "$src" = synthetic ]; then
		echo "exec,$run_id,$machine,stand-in GPU,$nodes,$per,$world,$mode,$b,$((b * world)),bf16,synthetic,0,,60,$img,$(awk -v i="$img" -v w="$world" 'BEGIN { print i / w }'),,$iter,0,0,0,0,0,0,0,0,1e9,standin,224,1,0"
	else
		e=1
		while [ "$e" -le "$epochs" ]; do
			echo "exec,$run_id,$machine,stand-in GPU,$nodes,$per,$world,$mode,$b,$((b * world)),bf16,$src,4,$e,10,$img,$(awk -v i="$img" -v w="$world" 'BEGIN { print i / w }'),,$iter,0,0,0,0,0,0,2.5,0.1,1e9,standin,224,1,0.1"
			e=$((e + 1))
		done
	fi
} >"$out.tmp" && mv "$out.tmp" "$out"
