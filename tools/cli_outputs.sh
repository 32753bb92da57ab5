#!/bin/sh
# Records what the option-parsing commands print (stdout, stderr, exit code) for a broad set of command
# lines, good and bad, into DIR, one file per case: `tools/cli_outputs.sh build/scaleplan DIR`. Two runs
# compared with `diff -r A B` show whether a change to the command line moved a single byte.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
S=${1:?usage: tools/cli_outputs.sh SCALEPLAN DIR}
D=${2:?usage: tools/cli_outputs.sh SCALEPLAN DIR}
case "$S" in /*) ;; *) S="$PWD/$S" ;; esac
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$D" || exit 2
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
n=0
# case NAME ARGS...: runs scaleplan ARGS in a fresh folder; campaign's and plot's files are listed too
case_() {
	name=$1
	shift
	n=$((n + 1))
	rm -rf "$work/run" && mkdir "$work/run" && cd "$work/run" || exit 2
	"$S" "$@" >"$D/$name.out" 2>"$D/$name.err"
	echo "$?" >"$D/$name.rc"
	if [ -d cg ]; then
		for f in cg/*; do [ -f "$f" ] && { echo "== $f"; cat "$f"; }; done >"$D/$name.files"
	fi
	ls >"$D/$name.ls"
	cd / || exit 2
	# what changes from run to run: the scratch folder, the simulator's own wall time and progress lines
	for f in "$D/$name".*; do
		sed -E -e "s|$work|WORK|g" -e '/^sim: [0-9]+% /d' -e 's/events in [0-9.]+ s \([^)]*\)/events in T s (R)/' \
			-e 's/"sim_wall_s":[0-9.e+-]+/"sim_wall_s":T/' "$f" >"$f.n" && mv "$f.n" "$f"
	done
	case $name in s-csv) awk -F, -v OFS=, 'NR > 1 { $72 = "T" } 1' "$D/$name.out" >"$D/$name.n" && mv "$D/$name.n" "$D/$name.out" ;; esac
}
for c in predict sim calibrate campaign hw plot compare sweep validate report; do
	case_ "help-$c" "$c" --help
	case_ "badopt-$c" "$c" --no-such-option
	case_ "extra-$c" "$c" stray-argument
done
case_ help-top --help
case_ none
case_ unknown-cmd predic
# predict
case_ p-dgx predict --system dgxh100 --nodes 2
case_ p-csv predict --system dgxa100-80g --nodes 4 --format csv
case_ p-json predict --system dgxa100-80g --nodes 4 --format json
case_ p-params predict --params
case_ p-comp predict --gpu H100-SXM5-80GB --gpus-per-node 8 --intra nvswitch3 --nodes 2 --batch-per-gpu 128
case_ p-money predict --system dgxh100 --kwh-price 0.2 --pue 1.3 --facility-price 150 --support-frac 0.1 --utilisation 0.7 --amortize-years 4 --finance-rate 0.05 --residual 0.2 --rent-term 1y
case_ p-money2 predict --system dgxh100 --utilization 0.5 --rent-term spot --runs-per-month 20
case_ p-run predict --system dgxh100 --precision fp16 --data synthetic --epochs 30 --images 1000000 --target-top1 75
case_ p-meas predict --system dgxh100 --measured 8:256:25000 --measured-epochs 3264:41.5 --param eff_compute=0.8
case_ p-gb predict --system dgxh100 --nodes 2 --global-batch 2048
case_ p-batchauto predict --system dgxh100 --batch-per-gpu auto
case_ p-eq predict --system=dgxh100 --nodes=3
case_ p-abbrev predict --sys dgxh100 --nod 2
case_ p-hwdb-first --hwdb /nonexistent predict --system dgxh100
for o in gpus-per-node host-links cpus-per-node nics-per-node nodes batch-per-gpu global-batch precision data epochs images target-top1 measured measured-epochs kwh-price amortize-years runs-per-month utilisation pue facility-price support-frac finance-rate residual rent-term param format; do
	case_ "p-bad-$o" predict --system dgxh100 "--$o" x1
	case_ "p-bad2-$o" predict --system dgxh100 "--$o" -5
done
case_ p-bad-target predict --system dgxh100 --target-top1 1.5
case_ p-bad-meas2 predict --system dgxh100 --measured 8:256
case_ p-bad-both predict --system dgxh100 --global-batch 64 --batch-per-gpu 8
case_ p-bad-sys predict --system dgxh10
case_ p-missing predict --system
case_ p-ambig predict --s x
case_ p-ambig2 predict --util 0.5 --system dgxh100
case_ p-util predict --system dgxh100 --utilization 0
case_ p-resid predict --system dgxh100 --residual 1
case_ s-ambig sim --s x
case_ cmp-bad compare --gpus 8 --nodes x
case_ cmp-ok compare --gpus 16
case_ sw-ok sweep --systems dgxh100 --nodes 1,2
# the buyer's question (compare, sweep, report)
case_ q-all compare --gpus 16 --rank-by cost --cost tco --budget 1e7 --deadline 2h --partial-nodes --extrapolate --include-eol
case_ q-sweep-none sweep --systems dgxh100 --nodes 1 --rank-by none
for a in "--rank-by none" "--rank-by x" "--cost y" "--budget 0" "--budget 1e16" "--deadline x" "--deadline"; do
	case_ "q-bad-$(echo "$a" | tr -c 'a-z0-9\n' _)" compare --gpus 8 $a
done
case_ q-sweep-bad sweep --systems dgxh100 --nodes 1 --rank-by x
case_ p-nofit predict --system dgxh100 --batch-per-gpu 4096
# sim
case_ s-dgx sim --system dgxa100-80g --nodes 2 --runs 2 --seed 3
case_ s-csv sim --system dgxa100-80g --nodes 2 --format csv --contention off --warmup off --jitter 0
case_ s-json sim --system dgxh100 --format json --detail on --replay off --slow-prob 0.1 --slow-factor 2 --loader-workers 4 --prefetch 8
case_ s-trace sim --system dgxh100 --trace t.json --trace-window 2:3
for o in trace-window seed runs jitter slow-prob slow-factor contention warmup replay detail loader-workers prefetch format; do
	case_ "s-bad-$o" sim --system dgxh100 "--$o" x1
	case_ "s-bad2-$o" sim --system dgxh100 "--$o" 5000000000000
done
case_ s-bad-jit sim --system dgxh100 --jitter 2
case_ s-bad-sp sim --system dgxh100 --slow-prob 1.5
case_ s-bad-win sim --system dgxh100 --trace t.json --trace-window 3:2
case_ s-bad-win2 sim --system dgxh100 --trace-window 1:2
case_ s-bad-trace sim --system dgxh100 --trace /nonexistent/t.json
# calibrate
case_ c-builtin calibrate --builtin
case_ c-out calibrate --builtin --out prof.csv
case_ c-bad-m calibrate --measurements /nonexistent.csv
case_ c-none calibrate
# campaign
case_ cg-dry campaign --out cg --dry-run
case_ cg-grid campaign --out cg --grid "gpus_per_node=1,2;nodes=1,2;batch=64;transport=nvlink,emulated" --iters 20 --machine m1 --train /x/train
case_ cg-data campaign --out cg --grid "data=jpeg-gpu" --data-dir /nonexistent --epochs 3
case_ cg-tmo campaign --out cg --run-timeout 300
case_ cg-noout campaign --dry-run
case_ cg-bad-iters campaign --out cg --iters 0
case_ cg-bad-epochs campaign --out cg --epochs x
case_ cg-bad-tmo campaign --out cg --run-timeout 0.5
case_ cg-bad-grid campaign --out cg --grid "nodes=0"
case_ cg-both campaign --out cg --run --dry-run
case_ cg-fit-grid campaign --out cg --fit-only --grid nodes=1
case_ cg-quote campaign --out cg --machine "a'b"
case_ cg-fitonly campaign --out cg --fit-only
# --fit-only on recorded measurements: calibrate, validate and plot in one process
fitdir=$work/fit
mkdir -p "$fitdir/cg/csv" "$fitdir/hw" && cp "$here/tests/data/cal/h200x2/train.csv" "$fitdir/cg/csv/a.csv" || exit 2
cp "$here/hwdb/data/stacks.csv" "$fitdir/hw/" || exit 2
case_ cg-fit campaign --out "$fitdir/cg" --fit-only
case_ cg-fit-hwdb campaign --out "$fitdir/cg" --fit-only --hwdb "$fitdir/hw"
for f in profile.csv parity.csv parity.svg; do cp "$fitdir/cg/$f" "$D/cg-fit.$f" 2>/dev/null || echo "no $f" >"$D/cg-fit.$f"; done
# compare, sweep, report, validate: their own options, good and bad
for a in "--gpus 0" "--gpus x" "--gpus 70000" "--format x" "--format csv" "--system dgxh100" "--s x" "--gpus" "--format csv --out /nonexistent/d/x.csv"; do
	case_ "cmp-o-$(echo "$a" | tr -c 'a-z0-9\n' _)" compare --gpus 8 $a
done
case_ cmp-nogpus compare
for a in "dgxh100,dgxh100" "dgxh10" "dgxh100,nosuch" "all" "c4140-m"; do
	case_ "cmp-sys-$(echo "$a" | tr -c 'a-z0-9\n' _)" compare --gpus 8 --systems $a
done
case_ cmp-help-late compare --gpus 8 --help --format x
case_ cmp-out compare --gpus 8 --format csv --out c.csv
for a in "--nodes x" "--nodes 1-x" "--batch-per-gpu 0" "--gpus-per-node 0" "--nodes 200000" "--batch-per-gpu 70000" "--system dgxa100-80g" "--global-batch 512 --batch-per-gpu 64" "--no x" "--quiet --gpus-per-node 4,8 --partial-nodes" "--global-batch 1024"; do
	case_ "sw-o-$(echo "$a" | tr -c 'a-z0-9\n' _)" sweep --systems dgxh100 --out s.csv $a
done
case_ sw-noout sweep --systems dgxh100
case_ sw-help sweep --nodes x --help
for a in "--gpus x" "--gpus 0,8" "--gpus 8 --nodes 2" "--gpus 8" "--out r" "--gpus 8 --out /nonexistent/r" "--gpus 8,16 --out r --systems dgxh100 --budget 1e7"; do
	case_ "rep-o-$(echo "$a" | tr -c 'a-z0-9\n' _)" report $a
done
for a in "--format x" "--group x" "--group gpus --format csv" "--h" "-a /nonexistent" "--against" "--no-builtin" "--no-builtin --against $here/tests/data/cal/h200x2 --format csv --strict" "--detail /nonexistent/d/x.csv" "--format md --help"; do
	case_ "val-o-$(echo "$a" | tr -c 'a-z0-9\n' _ | cut -c1-40)" validate $a
done
# hw
case_ hw-list hw list
case_ hw-sys hw list systems
case_ hw-show hw show dgxh100
case_ hw-show-bad hw show dgxh10
case_ hw-check hw check /nonexistent
case_ hw-none hw
case_ hw-bad hw frob
# plot
case_ pl-none plot
case_ pl-bad plot /nonexistent.csv
case_ pl-kind plot --kind nope x.csv
case_ pl-out plot --out /nonexistent/dir/x /nonexistent.csv
echo "$n cases in $D"
