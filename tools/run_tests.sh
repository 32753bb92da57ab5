#!/bin/sh
# Runs every test binary in BUILD/tests, then every tests/*.sh smoke test; fails if any fails.
# SPDX-License-Identifier: GPL-3.0-or-later
BUILD=${1:-build}
fail=0; n=0
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	n=$((n + 1))
	out=$("$t" 2>&1); rc=$?
	last=$(printf '%s\n' "$out" | tail -1)
	if [ $rc -ne 0 ]; then fail=$((fail + 1)); printf '%s\n' "$out"; echo "FAIL $t (exit $rc)"; else echo "ok   $t: $last"; fi
done
for s in tests/*.sh; do
	[ -f "$s" ] || continue
	n=$((n + 1))
	out=$(SCALEPLAN="$PWD/$BUILD/scaleplan" BUILD="$BUILD" sh "$s" 2>&1); rc=$?
	if [ $rc -ne 0 ]; then fail=$((fail + 1)); printf '%s\n' "$out"; echo "FAIL $s (exit $rc)"; else echo "ok   $s"; fi
done
echo "tests: $n run, $fail failed"
[ $fail -eq 0 ]
