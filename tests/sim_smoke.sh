#!/bin/sh
# Smoke test of `scaleplan sim`: CSV columns, agreement with predict in ideal mode, a trace that parses
# as JSON, and bad input refused with exit 1. Needs $SCALEPLAN.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
S=${SCALEPLAN:?set SCALEPLAN to the scaleplan binary}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then :; else echo "FAIL: $1"; fail=1; fi; }

# CSV: the predict columns first, then the spread
"$S" sim --system dgxa100-80g --nodes 4 --runs 3 --format csv >"$tmp/sim.csv" 2>"$tmp/err"
check "sim csv exit 0 ($(cat "$tmp/err"))" '[ $? -eq 0 ]'
hdr=$(head -1 "$tmp/sim.csv")
case "$hdr" in
system,gpu,nodes,gpus_per_node,gpus,batch_per_gpu,global_batch,precision,throughput_img_s,per_gpu_img_s,scaling_eff,iter_s,compute_s,comm_s,comm_exposed_s,data_s,io_s,bottleneck,epochs,epoch_s,tta_s,*iter_p50_s,iter_p95_s,tta_p50_s,tta_p95_s*) ;;
*) echo "FAIL: csv header: $hdr"; fail=1 ;;
esac
check "csv has one data row" '[ $(wc -l <"$tmp/sim.csv") -eq 2 ]'

# ideal mode equals predict (straggler term off) to 6 significant digits
"$S" sim --system dgxa100-80g --nodes 4 --contention off --warmup off --jitter 0 --param straggler_cv=0 \
	--format csv >"$tmp/ideal.csv" 2>"$tmp/err"
"$S" predict --system dgxa100-80g --nodes 4 --param straggler_cv=0 --format csv >"$tmp/pred.csv" 2>>"$tmp/err"
a=$(sed -n 2p "$tmp/ideal.csv" | cut -d, -f1-21)
b=$(sed -n 2p "$tmp/pred.csv" | cut -d, -f1-21)
check "ideal sim = predict: sim $a / predict $b ($(cat "$tmp/err"))" '[ "$a" = "$b" ]'

# trace: valid JSON with GPU, link and loader tracks
"$S" sim --system dgxa100-80g --nodes 2 --trace "$tmp/run.json" --trace-window 2:4 >/dev/null 2>"$tmp/err"
check "trace exit 0 ($(cat "$tmp/err"))" '[ $? -eq 0 ]'
check "trace file written" '[ -s "$tmp/run.json" ] && [ ! -e "$tmp/run.json.tmp" ]'
if command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp/run.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["args"]["name"] for e in d if e["ph"] == "M" and e["name"] == "thread_name"}
need = ["gpu0 compute", "gpu0 nccl", "nic0 out", "gpu0 nvlink out", "loader worker 0", "iterations"]
miss = [n for n in need if n not in names]
spans = [e for e in d if e["ph"] == "X"]
if miss or len(spans) < 1000 or any(e["dur"] < 0 for e in spans):
    print("FAIL: trace tracks missing %s, %d spans" % (miss, len(spans)))
    sys.exit(1)
PY
fi

# bad input: exit 1 with a message naming the problem
bad() {
	"$S" sim "$@" >/dev/null 2>"$tmp/err"; rc=$?
	check "exit 1 for $* (got $rc: $(cat "$tmp/err"))" '[ $rc -eq 1 ] && [ -s "$tmp/err" ]'
}
bad --system dgxa100-80g --nodes 2 --trace "$tmp/x.json" --trace-window 100000:100001
bad --system dgxa100-80g --jitter -0.1
bad --system dgxa100-80g --slow-prob 2
bad --system dgxa100-80g --contention maybe
bad --system dgxa100-80g --trace-window 3:1 --trace "$tmp/x.json"
bad --system dgxa100-80g --runs 0
bad --system dgxa100-80g --nodes 2 --nics-per-node 0
mkdir -p "$tmp/zbw"
{ echo "id,aliases,kind,gen,bw_Bps,latency_s,source"; echo "ib-hdr,,ib,0,0,,test: zero bandwidth"; } >"$tmp/zbw/links.csv"
bad --hwdb "$tmp/zbw" --system dgxa100-80g --nodes 2
check "no trace left by failed runs" '[ ! -e "$tmp/x.json" ]'
exit $fail
