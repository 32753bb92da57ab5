#!/bin/sh
# The committed interval table (model/intervals.csv and its C form model/gen_intervals.c) is what
# `make intervals` makes from today's model and data: a change to the physics or refdata/ without
# regenerating it fails here. Run by tools/run_tests.sh with SCALEPLAN set.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
"$SP" validate --intervals "$tmp/iv.csv" --ratios "$tmp/rt.csv" >"$tmp/out" 2>&1 || no "validate --intervals --ratios"
has "interval coverage"
has "ratio interval coverage"
cmp -s "$tmp/rt.csv" "$root/model/ratios.csv" ||
	no "model/ratios.csv is stale: run make intervals ($(diff "$root/model/ratios.csv" "$tmp/rt.csv" | head -5))"
sh "$root/tools/ratios_c.sh" "$tmp/rt.c" "$root/model/ratios.csv" || no "tools/ratios_c.sh"
cmp -s "$tmp/rt.c" "$root/model/gen_ratios.c" || no "model/gen_ratios.c is stale: run make intervals"
# every class of stacks has a row for every difference and quantity, each holding the point (lo_x <= 1 <= hi_x),
# and a set row for every combination of differences (31 x 3 a class)
rows=$(awk -F, '$1 == "ratio" && $6 <= 1 && $7 >= 1' "$root/model/ratios.csv" | wc -l)
[ "$rows" -eq 30 ] || no "model/ratios.csv: expected 30 ratio rows holding 1, got $rows"
sets=$(awk -F, '$1 == "set" && $6 <= 1 && $7 >= 1' "$root/model/ratios.csv" | wc -l)
[ "$sets" -eq 186 ] || no "model/ratios.csv: expected 186 set rows holding 1, got $sets"
cmp -s "$tmp/iv.csv" "$root/model/intervals.csv" ||
	no "model/intervals.csv is stale: run make intervals ($(diff "$root/model/intervals.csv" "$tmp/iv.csv" | head -5))"
sh "$root/tools/intervals_c.sh" "$tmp/iv.c" "$root/model/intervals.csv" || no "tools/intervals_c.sh"
cmp -s "$tmp/iv.c" "$root/model/gen_intervals.c" || no "model/gen_intervals.c is stale: run make intervals"
# --intervals into a folder that is not there: exit 1, the path named, nothing left behind
expect 1 "$SP" validate --intervals "$tmp/no/such/iv.csv"; has "--intervals"; has "no/such"
# with no measured throughput point there is nothing to derive from: exit 1
expect 1 "$SP" validate --no-builtin --against "$root/tests/data/cal/h200x2" --where kind=allreduce --intervals "$tmp/x.csv"
has "no measured throughput or time-to-train residual"
[ ! -e "$tmp/x.csv" ] || no "an interval table written from nothing"
# a table the generator cannot read stops it with file:line
printf 'kind,basis,pool,quantity,n,lo_x,hi_x,what\ninterval,guessed,mlperf,ttt,3,0.9,1.1,x\n' >"$tmp/bad.csv"
sh "$root/tools/intervals_c.sh" "$tmp/badc.c" "$tmp/bad.csv" 2>"$tmp/err" && no "bad basis accepted"
grep -q 'bad.csv:2: basis "guessed"' "$tmp/err" || no "intervals_c.sh: file:line message ($(cat "$tmp/err"))"
printf 'kind,stacks,differs,quantity,n,lo_x,hi_x,what\nratio,any,colour,ttt,3,0.9,1.1,x\n' >"$tmp/badr.csv"
sh "$root/tools/ratios_c.sh" "$tmp/badr.c" "$tmp/badr.csv" 2>"$tmp/err" && no "bad difference accepted"
grep -q 'badr.csv:2: differs "colour"' "$tmp/err" || no "ratios_c.sh: file:line message ($(cat "$tmp/err"))"
# --ratios into a folder that is not there: exit 1, the path named
expect 1 "$SP" validate --ratios "$tmp/no/such/rt.csv"; has "--ratios"; has "no/such"
echo "intervals_fresh: done (fail=$fail)"
exit $fail
