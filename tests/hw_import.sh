#!/bin/sh
# `scaleplan hw import`: three MLPerf v4.0 system descriptions into an overlay that predict reads;
# bad input refused with exit 1, leaving no directory and no temporary one. Needs $SCALEPLAN.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
S=${SCALEPLAN:?set SCALEPLAN to the scaleplan binary}
D=tests/data/mlperf_systems
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then :; else echo "FAIL: $1"; fail=1; fi; }

"$S" hw import $D/eos_ngc24.04_mxnet.json $D/R760xax4L40S.json $D/ESC8000A-E12-8xH100-PCIE-80GB.json \
	--out "$tmp/db" >"$tmp/out" 2>"$tmp/err"
check "import exit 0 ($(cat "$tmp/err"))" '[ $? -eq 0 ]'
check "summary with the predict line at the submission's nodes" \
	'grep -q "^nvidia-eos-ngc24.04-mxnet: 8 x H100-SXM5-80GB (nvswitch), 2 x Xeon Platinum 8480C, NICs 8 x ib-ndr" "$tmp/out" &&
	 grep -q "scaleplan predict --hwdb $tmp/db --system nvidia-eos-ngc24.04-mxnet --nodes 1" "$tmp/out"'
check "systems.csv and cpus.csv written" '[ -f "$tmp/db/systems.csv" ] && [ -f "$tmp/db/cpus.csv" ]'
check "unmapped fields named on stderr" 'grep -q "R760xax4L40S.json: not mapped: operating_system" "$tmp/err"'
check "and in a comment above the row" 'grep -q "^# dell-r760xax4l40s: not mapped: .*operating_system" "$tmp/db/systems.csv"'
check "hw check accepts it" '"$S" hw check "$tmp/db" >/dev/null 2>&1'
for id in nvidia-eos-ngc24.04-mxnet dell-r760xax4l40s asustek-esc8000a-e12-8xh100-pcie-80gb; do
	"$S" predict --hwdb "$tmp/db" --system $id --format csv >"$tmp/p.csv" 2>"$tmp/perr"
	check "predict $id exit 0 ($(cat "$tmp/perr"))" '[ $? -eq 0 ]'
	check "predict $id: one row for that system" '[ "$(sed -n 2p "$tmp/p.csv" | cut -d, -f1)" = $id ]'
done

# a second import into the same (non-empty) directory: refused, the directory untouched
cp "$tmp/db/systems.csv" "$tmp/systems.before"
"$S" hw import $D/R760xax4L40S.json --out "$tmp/db" >/dev/null 2>"$tmp/err"
check "non-empty --out: exit 1 ($(cat "$tmp/err"))" '[ $? -eq 1 ]'
check "non-empty --out: untouched" 'cmp -s "$tmp/systems.before" "$tmp/db/systems.csv"'

# bad input: exit 1, file and field named, nothing written
printf '{"system_name": "x", "accelerators_per_node": "8", "host_processors_per_node": "2",\n "accelerator_model_name": "NVIDIA GeForce RTX 4090"}\n' >"$tmp/gpu.json"
"$S" hw import $D/R760xax4L40S.json "$tmp/gpu.json" --out "$tmp/bad" >/dev/null 2>"$tmp/err"
check "unknown GPU: exit 1" '[ $? -eq 1 ]'
check "unknown GPU: file, field, nearest ids ($(cat "$tmp/err"))" \
	'grep -q "gpu.json: field .accelerator_model_name.: unknown GPU .NVIDIA GeForce RTX 4090.; nearest ids: " "$tmp/err"'
printf '{"system_name": "x",\n  "accelerators_per_node": 8,,\n}\n' >"$tmp/syntax.json"
"$S" hw import "$tmp/syntax.json" --out "$tmp/bad" >/dev/null 2>"$tmp/err"
check "bad JSON: exit 1 with line and column ($(cat "$tmp/err"))" '[ $? -eq 1 ] && grep -q "syntax.json:2:[0-9]*: not valid JSON" "$tmp/err"'
"$S" hw import "$tmp/missing.json" --out "$tmp/bad" >/dev/null 2>&1
check "missing file: exit 1" '[ $? -eq 1 ]'
"$S" hw import $D/R760xax4L40S.json >/dev/null 2>&1
check "no --out: exit 1" '[ $? -eq 1 ]'
check "nothing written for bad input: $(ls "$tmp")" '[ ! -e "$tmp/bad" ] && ! ls "$tmp" | grep -q "bad.tmp"'
exit $fail
