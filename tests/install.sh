#!/bin/sh
# `make install PREFIX=DIR` copies scaleplan (and scaleplan-train when it was built) into DIR/bin, and the
# installed scaleplan runs from anywhere (the hardware tables and reference data are built in). Uses the
# build that make test just made ($BUILD); nothing is rebuilt. Needs $BUILD.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
make -s -C "$here" BUILD="$B" install PREFIX="$tmp/p" >"$tmp/log" 2>&1 || { no "make install: $(cat "$tmp/log")"; exit 1; }
[ -x "$tmp/p/bin/scaleplan" ] || no "scaleplan not in PREFIX/bin"
if [ -x "$here/$B/scaleplan-train" ]; then
	[ -x "$tmp/p/bin/scaleplan-train" ] || no "scaleplan-train was built but not installed"
else
	[ ! -e "$tmp/p/bin/scaleplan-train" ] || no "scaleplan-train installed but never built"
	grep -q "scaleplan-train was not built" "$tmp/log" || no "make install did not say scaleplan-train was skipped"
fi
# from an empty folder, with only PREFIX/bin added to PATH
(cd "$tmp" && PATH="$tmp/p/bin:$PATH" scaleplan predict --system dgxh100 --nodes 2 >"$tmp/out" 2>&1) ||
	no "installed scaleplan predict: $(cat "$tmp/out")"
(cd "$tmp" && PATH="$tmp/p/bin:$PATH" scaleplan validate >"$tmp/out" 2>&1) || no "installed scaleplan validate: $(tail -3 "$tmp/out")"
# DESTDIR stages under a root (packaging)
make -s -C "$here" BUILD="$B" install DESTDIR="$tmp/stage" PREFIX=/opt/sp >/dev/null 2>&1 &&
	[ -x "$tmp/stage/opt/sp/bin/scaleplan" ] || no "DESTDIR=$tmp/stage PREFIX=/opt/sp"
exit $fail
