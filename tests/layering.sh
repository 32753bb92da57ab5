#!/bin/sh
# Who may call whom (docs/design.md, "Parts and who may call whom"), checked on the built objects with nm:
# every undefined symbol of an object of the planner (the library's and the command's objects, as the
# Makefile lists them) that another of those objects defines is one arrow "A calls B". It fails when
#   - objects call into each other, directly or round a longer loop (a circle);
#   - a folder calls into a folder above it: common, then hwdb and exec's host parts, then model, then plan,
#     then sim, calibrate and plot, then web, then report, then cli (report writes web's files; nothing
#     below web/ calls into web/).
#   sh tests/layering.sh                 check (run by tools/run_tests.sh with BUILD set)
#   sh tests/layering.sh --list          print every circle and upward arrow, one per line, and exit 0
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
list=0
[ "${1:-}" = --list ] && list=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

objs=$(make -s --no-print-directory -C "$root" BUILD="$BUILD" layering-objs) || { echo "FAIL: make layering-objs"; exit 1; }
[ -n "$objs" ] || { echo "FAIL: no objects listed"; exit 1; }
cd "$root" || exit 2
for o in $objs; do
	[ -f "$o" ] || { echo "FAIL: $o not built (make first)"; exit 1; }
done
# one line per symbol: FILE TYPE SYMBOL (nm -A prints FILE: before each symbol; undefined ones have no value)
# shellcheck disable=SC2086
nm -A $objs | awk '{ f = $1; sub(/:.*/, "", f); print f, $(NF - 1), $NF }' >"$tmp/syms" || exit 2

# arrows "A B SYMBOL", then the circles (strongly connected components of two or more objects: Tarjan)
# and the upward arrows, each as one line
awk -v build="$BUILD/" '
function folder(f) { sub("^" build, "", f); sub("/.*", "", f); return f }
function base(f) { sub("^" build, "", f); return f }
$2 ~ /^[TDBRCGSVW]$/ { def[$3] = $1; next }
$2 == "U" { use[++nu] = $1 " " $3 }
END {
	rank["common"] = 0; rank["hwdb"] = 1; rank["exec"] = 1; rank["model"] = 2; rank["plan"] = 3
	rank["sim"] = 4; rank["calibrate"] = 4; rank["plot"] = 4; rank["web"] = 5; rank["report"] = 6; rank["cli"] = 7
	for (i = 1; i <= nu; i++) {
		split(use[i], p, " ")
		if (!(p[2] in def) || def[p[2]] == p[1]) continue
		a = base(p[1]); b = base(def[p[2]])
		if (!((a, b) in edge)) { edge[a, b] = p[2]; out[a] = out[a] " " b; node[a]; node[b] }
		else if (index(" " edge[a, b] " ", " " p[2] " ") == 0) edge[a, b] = edge[a, b] " " p[2]
		fa = folder(p[1]); fb = folder(def[p[2]])
		if (!(fa in rank) || !(fb in rank)) { print "unknown-folder " a " " b; continue }
		if (rank[fb] > rank[fa] && !((a, b, "up") in seen)) { seen[a, b, "up"]; upn[a, b] = 1 }
	}
	for (k in upn) { split(k, q, SUBSEP); print "up " q[1] " -> " q[2] ": " edge[q[1], q[2]] }
	idx = 0; sp = 0
	for (v in node) if (!(v in num)) tarjan(v)
}
function tarjan(v,    n, w, i, ws, comp, m, j, s) {
	num[v] = low[v] = ++idx; stack[++sp] = v; on[v] = 1
	n = split(out[v], ws, " ")
	for (i = 1; i <= n; i++) {
		w = ws[i]
		if (!(w in num)) { tarjan(w); if (low[w] < low[v]) low[v] = low[w] }
		else if (on[w] && num[w] < low[v]) low[v] = num[w]
	}
	if (low[v] != num[v]) return
	m = 0
	do { w = stack[sp--]; on[w] = 0; memb[++m] = w } while (w != v)
	if (m < 2) return
	# sorted members, so that the line is the same from run to run
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (memb[j] < memb[i]) { s = memb[i]; memb[i] = memb[j]; memb[j] = s }
	comp = "circle"
	for (i = 1; i <= m; i++) comp = comp " " memb[i]
	print comp
	for (i = 1; i <= m; i++) for (j = 1; j <= m; j++)
		if ((memb[i], memb[j]) in edge) print "  " memb[i] " -> " memb[j] ": " edge[memb[i], memb[j]] >"/dev/stderr"
}' "$tmp/syms" >"$tmp/found" 2>"$tmp/why" || exit 2

if [ $list -eq 1 ]; then
	sort "$tmp/found"
	cat "$tmp/why"
	exit 0
fi
fail=0
grep '^circle ' "$tmp/found" | sort | sed 's/^/FAIL: /' | tee "$tmp/circles"
[ -s "$tmp/circles" ] && { echo "the arrows of every circle:"; cat "$tmp/why"; fail=1; }
grep -v '^circle ' "$tmp/found" | sed 's/^/FAIL: /' | tee "$tmp/up"
[ -s "$tmp/up" ] && fail=1
n=$(echo $objs | wc -w)
echo "layering: $n objects, $(wc -l <"$tmp/circles") circle(s), $(wc -l <"$tmp/up") upward arrow(s)"
exit $fail
