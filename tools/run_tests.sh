#!/bin/sh
# Runs every test binary in BUILD/tests and every tests/*.sh smoke test, JOBS at a time (default: the
# machine's cores + 1, as some tests mostly wait: a Slurm job, a signal, a browser), printing one line per
# test as it ends with its wall time in seconds; then the whole output of each test that failed, and a
# summary. Exits 1 when any test failed.
#   tools/run_tests.sh [BUILD [TEST...]]   TEST: tests/NAME.sh or BUILD/tests/test_NAME (default: all)
#   JOBS=1 tools/run_tests.sh              one after another
# The tests are independent: each writes only under a folder of its own (mktemp), never into the tree or
# BUILD, so any may run beside any other. Those that took longest last time (BUILD/test-times.txt) start
# first, so that a long one does not start last and run alone at the end.
# SPDX-License-Identifier: GPL-3.0-or-later

# one TEST: its output into BUILD/test-logs/KEY.log, its exit status and seconds beside it; one line printed
if [ "${1:-}" = --one ]; then
	BUILD=$2 t=$3
	log="$BUILD/test-logs/$(echo "$t" | tr '/' '_')"
	s=$(date +%s.%N)
	case "$t" in
	*.sh) SCALEPLAN="$PWD/$BUILD/scaleplan" BUILD="$BUILD" sh "$t" >"$log.log" 2>&1 ;;
	*) "$t" >"$log.log" 2>&1 ;;
	esac
	rc=$?
	sec=$(echo "$s $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')
	printf '%s %s %s\n' "$rc" "$sec" "$t" >"$log.rc"
	last=""
	case "$t" in *.sh) ;; *) last=": $(tail -1 "$log.log")" ;; esac  # a binary's "N passed, N failed"
	if [ $rc -eq 0 ]; then
		printf 'ok   %6s s  %s%s\n' "$sec" "$t" "$last"
	else
		printf 'FAIL %6s s  %s (exit %s)\n' "$sec" "$t" "$rc"
	fi
	exit 0
fi

BUILD=${1:-build}
[ $# -gt 0 ] && shift
JOBS=${JOBS:-$(($(nproc 2>/dev/null || echo 1) + 1))}
logs="$BUILD/test-logs"
times="$BUILD/test-times.txt"
rm -rf "$logs" && mkdir -p "$logs" || exit 2
[ -f "$times" ] || : >"$times"

# every test, the slowest of the last run first (a test not in the last run's times, before all)
list() {
	[ $# -gt 0 ] && { printf '%s\n' "$@"; return; }
	for t in "$BUILD"/tests/test_*; do [ -x "$t" ] && echo "$t"; done
	for s in tests/*.sh; do [ -f "$s" ] && echo "$s"; done
}
t0=$(date +%s.%N)
list "$@" | awk 'FILENAME == ARGV[1] { t[$2] = $1; next } { print ($0 in t ? t[$0] : 1e9), $0 }' "$times" - |
	sort -k1,1gr | cut -d' ' -f2- | xargs -P "$JOBS" -I{} sh "$0" --one "$BUILD" {}
wall=$(echo "$t0 $(date +%s.%N)" | awk '{ printf "%.0f", $2 - $1 }')

cat "$logs"/*.rc >"$logs/all" 2>/dev/null
awk '$1 != 0 { print $3 }' "$logs/all" | while read -r t; do
	echo "==== $t"
	cat "$logs/$(echo "$t" | tr '/' '_').log"
	echo "FAIL $t"
done
# this run's times replace those of the same tests; the others' are kept (a run of a few tests)
awk 'FILENAME == ARGV[1] { t[$3] = $2; next } !($2 in t) { t[$2] = $1 } END { for (k in t) print t[k], k }' \
	"$logs/all" "$times" | sort -k1,1gr >"$times.tmp" && mv "$times.tmp" "$times"
awk -v wall="$wall" -v jobs="$JOBS" '{ n++; s += $2; if ($1 != 0) f++ }
	END { printf "tests: %d run, %d failed; %s s wall, %d at a time (their own times add up to %.0f s)\n",
	      n, f, wall, jobs, s; exit f > 0 || n == 0 }' "$logs/all"
