#!/bin/sh
# GPU smoke tests of scaleplan-train ($TRAIN): a small fixed batch overfits to near-zero loss; every
# precision trains a few steps with a finite loss; a batch that cannot fit says so (exit 1, names a
# batch that would); missing data files are named (exit 1); MLLOG and CSV are written.
# SPDX-License-Identifier: GPL-3.0-or-later
T=${TRAIN:-build/scaleplan-train}
D=$(mktemp -d); fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
# 0. no environment switches in the product: --help lists none, --engine is the one way to tune
if $T --help | grep -q 'EX_'; then bad "--help lists EX_ switches"; else ok "--help: no EX_ switches"; fi
$T --help | grep -q 'fold_pool' && ok "--help lists the --engine keys" || bad "--help lacks the --engine keys"
$T --engine fold_pool=maybe >$D/eng.log 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "key 'fold_pool', value 'maybe'" $D/eng.log && ok "--engine: bad value, exit 1" \
	|| bad "--engine bad value: exit $rc"
out=$($T --engine fold_pool=off,fold_res=off,bn_unroll=1 --batch-per-gpu 16 --image-size 64 --warmup-iters 2 --iters 3 --quiet 2>&1)
loss=$(printf '%s\n' "$out" | awk '/^mean loss/ {print $3}')
case "$loss" in ''|*nan*|*inf*) bad "--engine folds off: loss '$loss'";; *) ok "--engine folds off: loss $loss";; esac
# 1. overfit: 32 random images with random labels, no smoothing/decay: mean loss of steps 251-300 < 0.05
out=$($T --batch-per-gpu 32 --image-size 64 --classes 10 --warmup-iters 250 --iters 50 --lr 0.01 \
	--label-smoothing 0 --weight-decay 0 --quiet 2>&1)
loss=$(printf '%s\n' "$out" | awk '/^mean loss/ {print $3}')
if awk "BEGIN {exit !($loss < 0.05)}" 2>/dev/null; then ok "overfit: loss $loss < 0.05"; else bad "overfit: loss '$loss'"; fi
# 2. every precision: finite loss after a few steps; CSV header and two rows
for p in bf16 fp16 tf32 fp32; do
	out=$($T --precision $p --batch-per-gpu 16 --image-size 64 --warmup-iters 3 --iters 5 --quiet --csv $D/$p.csv 2>&1)
	loss=$(printf '%s\n' "$out" | awk '/^mean loss/ {print $3}')
	rows=$(wc -l < $D/$p.csv 2>/dev/null)
	case "$loss" in ''|*nan*|*inf*) bad "$p: loss '$loss'";; *) ok "$p: loss $loss";; esac
	[ "$rows" = 3 ] && head -1 $D/$p.csv | grep -q '^source,run_id,machine,gpu,nodes,gpus_per_node,gpus,nccl_mode,batch_per_gpu,global_batch,precision,data,data_threads,epoch,iters,throughput_img_s,per_gpu_img_s,scaling_eff,iter_s,fwd_s,bwd_s,opt_s,allreduce_s,comm_exposed_s,data_wait_s,loss,top1,peak_mem_B,git_sha' \
		&& ok "$p: csv" || bad "$p: csv ($rows lines)"
done
printf '%s\n' "$out" | grep -q ':::MLLOG {"namespace": "", "time_ms": [0-9]*, "event_type": "INTERVAL_END", "key": "run_stop"' && ok "mllog run_stop" || bad "mllog run_stop"
# 3. a batch that does not fit: exit 1 and the largest batch that would
out=$($T --batch-per-gpu 60000 --quiet 2>&1); rc=$?
[ $rc = 1 ] && printf '%s\n' "$out" | grep -q "largest batch that would fit" && ok "too large batch: $(printf '%s' "$out" | tail -c 60)" || bad "too large batch (rc $rc): $out"
# 4. missing data: exit 1 naming the file
out=$($T --data fashion-mnist --data-dir $D/nowhere --quiet 2>&1); rc=$?
[ $rc = 1 ] && printf '%s\n' "$out" | grep -q "$D/nowhere" && ok "missing data named" || bad "missing data (rc $rc): $out"
printf 'garbage' > $D/train-images-idx3-ubyte.gz; cp $D/train-images-idx3-ubyte.gz $D/train-labels-idx1-ubyte.gz
out=$($T --data fashion-mnist --data-dir $D --quiet 2>&1); rc=$?
[ $rc = 1 ] && printf '%s\n' "$out" | grep -q "train-" && ok "corrupt data named" || bad "corrupt data (rc $rc): $out"
# 5. data-parallel (where built with MPI/NCCL and mpirun exists): bad input fails on every rank with
# exit 1 before GPU work; with 2+ GPUs, 2 ranks train and each writes its CSV (gpus column 2)
if $T --help | grep -q -- --nccl-mode && command -v mpirun >/dev/null; then
	MR="mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2"
	out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 $MR $T --emulate-nodes 3 --quiet 2>&1); rc=$?
	[ $rc != 0 ] && printf '%s\n' "$out" | grep -q "emulate-nodes 3" && ok "dist: bad input rejected on all ranks" \
		|| bad "dist: bad input (rc $rc): $out"
	if [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -ge 2 ]; then
		out=$(NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 $MR $T --batch-per-gpu 16 \
			--image-size 64 --warmup-iters 3 --iters 5 --quiet --nccl-timeout 60 --csv $D/dist.csv 2>&1); rc=$?
		[ $rc = 0 ] && [ -f $D/dist.rank1.csv ] && awk -F, 'NR == 2 && $7 == 2 {f = 1} END {exit !f}' $D/dist.csv \
			&& ok "dist: 2 ranks trained, per-rank CSVs" || bad "dist: 2 ranks (rc $rc): $(printf '%s' "$out" | tail -c 300)"
	fi
fi
# 5. convolutions through graph-API plans (default) and through the legacy calls both
#    overfit 32 random images (as 1., 150 steps: mean loss of the last 50 < 0.5; the two runs' losses
#    are not compared step by step: different algorithms round differently and the runs diverge), and
#    the graph run says how many convolutions use graph plans
OV="--batch-per-gpu 32 --image-size 64 --classes 10 --warmup-iters 100 --iters 50 --lr 0.01 --label-smoothing 0 --weight-decay 0"
lg=$($T $OV --conv-api graph 2>&1 >/dev/null | grep -o "graph-API plans for .*")
l1=$($T $OV --quiet --conv-api graph 2>&1 | awk '/^mean loss/ {print $3}')
l2=$($T $OV --quiet --conv-api legacy 2>&1 | awk '/^mean loss/ {print $3}')
if awk "BEGIN {exit !($l1 < 0.5 && $l2 < 0.5)}" 2>/dev/null; then
	ok "conv-api graph / legacy overfit: loss $l1 / $l2 ($lg)"; else bad "conv-api graph / legacy overfit: loss '$l1' / '$l2' ($lg)"; fi
rm -rf $D
exit $fail
