#!/bin/sh
# scaleplan-train takes its long options by their full name only, as the planner does: getopt_long would take
# any unambiguous prefix (`--batch 64` ran as --batch-per-gpu 64 without a word). Options are parsed before
# the engine looks for a GPU, so this runs on a host without one. Needs $SCALEPLAN (scaleplan-train beside it).
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
S=${SCALEPLAN:?set SCALEPLAN to the scaleplan binary}
T="$(dirname "$S")/scaleplan-train"
[ -x "$T" ] || { echo "skip: no $T (built where nvcc is found)"; exit 0; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL $*"; fail=1; }
# refused WHAT PATTERN ARGS...: exit 1 and a message matching PATTERN
refused() {
	what=$1 pat=$2
	shift 2
	"$T" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || no "$what: exit $rc, expected 1: $(head -2 "$tmp/err")"
	grep -q -e "$pat" "$tmp/err" || no "$what: no '$pat' in: $(head -2 "$tmp/err")"
}
# a shortened name, with its value apart, after '=', and a flag: refused, naming the option it matched
refused "--batch 64" "^scaleplan-train: --batch: no such option.*did you mean --batch-per-gpu?" \
	--batch 64 --csv /nonexistent/x.csv
refused "--batch=64" "^scaleplan-train: --batch: no such option.*did you mean --batch-per-gpu?" \
	--batch=64 --csv /nonexistent/x.csv
refused "--qui" "^scaleplan-train: --qui: no such option.*did you mean --quiet?" --qui --csv /nonexistent/x.csv
refused "--nccl-m nvlink" "did you mean --nccl-mode?" --nccl-m nvlink --csv /nonexistent/x.csv
# the full names still parse: the run stops at the --csv path, checked after the options
refused "--batch-per-gpu 64" "^scaleplan-train: --csv /nonexistent/x.csv" --batch-per-gpu 64 --quiet \
	--batch-per-gpu=32 --nccl-mode nvlink --csv /nonexistent/x.csv
grep -q "no such option" "$tmp/err" && no "full names refused: $(head -2 "$tmp/err")"
[ $fail -eq 0 ] && echo "train_options: shortened names refused, full names taken"
exit $fail
