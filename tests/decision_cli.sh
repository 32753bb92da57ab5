#!/bin/sh
# The decision a buyer signs, end to end: like for like, ties broken by money, today's products,
# budget and deadline together, placement physics, answers to the question asked, refused nonsense.
# Relations only, never a figure of the model. Run by tools/run_tests.sh with SCALEPLAN set; no GPU.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"

# the GPU record of a system in a compare table (column gpu)
gpu_of() { awk -v s="$1" '$2 == s { print $3; exit }' "$2"; }
# the value of column NAME in the CSV row whose system and placement are SYS and NODES x GPN
cell() {
	awk -F, -v n="$1" -v s="$2" -v k="$3" -v g="$4" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 == s && $c["nodes"] == k && $c["gpus_per_node"] == g { print $c[n]; exit }' "$5"
}

# 1. scale up vs out names one chip: both systems of the line carry it; where their GPU records differ (a GB200
# NVL72 rack's 1.2 kW B200 against a DGX B200's 1 kW one) the GPU's part is stated apart from the topology's
for g in 8 16 64 144; do
	expectw 0 "$SP" compare --gpus $g --partial-nodes
	cp "$tmp/out" "$tmp/t$g"
	line=$(sed -n 's/^  Scale up vs out (\([^)]*\)): \(up\|out\) - \([^ ]*\) [0-9x]* ([0-9]* NVLink domains\{0,1\}) [a-z0-9. %]* \([^ ]*\) [0-9x]* ([0-9]*).*/\1 \3 \4/p' "$tmp/t$g")
	[ -n "$line" ] || { grep -q "^  Scale up vs out (.*): neither - each option spans " "$tmp/t$g" || no "compare --gpus $g: no scale line"; continue; }
	case "$line" in *:*) grep -q "^  Scale up vs out ([A-Za-z ]*: [^ ]* vs [^ ]*): .*; GPU alone .*, topology " "$tmp/t$g" ||
		no "compare --gpus $g: one generation, two GPUs, without the GPU's part apart"; continue ;; esac
	set -- $line
	a=$(gpu_of "$2" "$tmp/t$g"); b=$(gpu_of "$3" "$tmp/t$g")
	case "$a" in "$1"-*) ;; *) no "compare --gpus $g: $2 ($a) is no $1" ;; esac
	case "$b" in "$1"-*) ;; *) no "compare --gpus $g: $3 ($b) is no $1" ;; esac
	[ "$a" = "$b" ] || grep -q "^  Scale up vs out.*; GPU alone .*, topology " "$tmp/t$g" ||
		no "compare --gpus $g: $a against $b without the GPU's part apart"
done
# with no pair of the pick's GPU or chip, its generation (gpus.csv arch): H200 servers against H100 ones, apart
expectw 0 "$SP" compare --gpus 16 --rank-by cost --cost tco --systems hgx-h200,xe8640-h100,dgxb200
grep -q "^  Scale up vs out (Hopper: H200 vs H100): \(up\|out\) - .*; GPU alone .*, topology " "$tmp/out" ||
	no "compare --gpus 16 --rank-by cost: no Hopper verdict with the GPU's part apart"
# the README's showcase: NVL72 racks against B200 servers at 144 GPUs gets a verdict, the GPU's part apart
expectw 0 "$SP" compare --systems dgxb200,gb200-nvl72 --gpus 144
grep -q "^  Scale up vs out (B200): \(up\|out\) - .*; GPU alone .*, topology " "$tmp/out" ||
	no "compare --systems dgxb200,gb200-nvl72 --gpus 144: no scale verdict with the GPU's part apart"

# scale up vs out is answered whenever asked: on the default systems and where the options differ in GPU
# (B200 vs B300, H100 vs H200: the same topology, so "neither", with the GPU's part apart), at 8 to 512 GPUs
for g in 8 64 144 512; do
	for sys in "" dgxb200,hgx-b300 hgx-h200,dgxh100; do
		expectw 0 "$SP" compare --gpus $g ${sys:+--systems $sys}
		n=$(grep -c "^  Scale up vs out" "$tmp/out")
		[ "$n" -eq 1 ] || no "compare --gpus $g ${sys:+--systems $sys}: $n scale lines"
		grep -q "no GPU here" "$tmp/out" && no "compare --gpus $g ${sys:+--systems $sys}: no verdict"
		grep -q "^  Scale up vs out ([^)]*): \(up\|out\|neither\) - " "$tmp/out" ||
			no "compare --gpus $g ${sys:+--systems $sys}: no verdict (up, out or neither)"
		case "$sys" in
		dgxb200,hgx-b300) want="Blackwell: B[23]00 vs B[23]00" ;;
		hgx-h200,dgxh100) want="Hopper: H[12]00 vs H[12]00" ;;
		*) continue ;;
		esac
		grep -q "^  Scale up vs out ($want): .*; GPU alone .*, \(topology\|the rest (one topology)\) " "$tmp/out" ||
			no "compare --gpus $g --systems $sys: the GPU's part not stated apart from the topology's"
		# the two options the line names are both in the table, of the two GPUs
		set -- $(sed -n 's/^  Scale up vs out ([^)]*): [a-z]* - \(each option spans [0-9]* NVLink domains\{0,1\}; \)\{0,1\}\([^ ]*\) [0-9x]* .*\(as fast as\|against\) \([^ ]*\) [0-9x]*.*/\2 \4/p' "$tmp/out")
		[ $# -eq 2 ] && [ "$(gpu_of "$1" "$tmp/out" | cut -c1-2)" != "" ] && [ "$(gpu_of "$1" "$tmp/out")" != "$(gpu_of "$2" "$tmp/out")" ] ||
			no "compare --gpus $g --systems $sys: the scale line does not name two options of two GPUs"
	done
done
# with placements over more NVLink domains (--partial-nodes), H200 against H100 is up or out, the GPU's part apart
expectw 0 "$SP" compare --gpus 64 --systems hgx-h200,dgxh100 --partial-nodes
grep -q "^  Scale up vs out (\(H[12]00\|Hopper: H[12]00 vs H[12]00\)): \(up\|out\) - " "$tmp/out" ||
	no "compare --gpus 64 --systems hgx-h200,dgxh100 --partial-nodes: no up or out verdict"

# 2. whole servers or partial ones: the same answer (losing rows do not move it)
first() { sed -n 's/^answer: \([^ ]* [0-9]*x[0-9]*\): .*/\1/p' "$1"; }
expectw 0 "$SP" compare --gpus 8; cp "$tmp/out" "$tmp/w8"
[ -n "$(first "$tmp/w8")" ] && [ "$(first "$tmp/w8")" = "$(first "$tmp/t8")" ] ||
	no "compare --gpus 8 answers '$(first "$tmp/w8")', with --partial-nodes '$(first "$tmp/t8")'"

# 3. an NVLink server is not beaten by the same GPUs one per server
expectw 0 "$SP" compare --systems dgxh100 --gpus 8 --partial-nodes --format csv; cp "$tmp/out" "$tmp/h.csv"
awk -v a="$(cell tta_s dgxh100 1 8 "$tmp/h.csv")" -v b="$(cell tta_s dgxh100 8 1 "$tmp/h.csv")" 'BEGIN { exit !(a + 0 > 0 && a < b) }' ||
	no "dgxh100 1x8 not faster than 8x1"
"$SP" predict --system dgxh100 --gpus-per-node 1 --nodes 64 --format csv >"$tmp/p1.csv"
"$SP" predict --system dgxh100 --nodes 8 --format csv >"$tmp/p8.csv"
awk -v a="$(col tta_s "$tmp/p8.csv")" -v b="$(col tta_s "$tmp/p1.csv")" 'BEGIN { exit !(a + 0 > 0 && a < b) }' ||
	no "64 GPUs: 8x8 dgxh100 not faster than 64x1"

# 4. the first option an answer names: none within 10% of its time at less than half its cost per run (the cost
# compared: owned tco, rented rent)
for g in 8 16 64; do
	"$SP" compare --gpus $g >"$tmp/a$g" && "$SP" compare --gpus $g --format csv >"$tmp/a$g.csv" || no "compare --gpus $g"
	set -- $(first "$tmp/a$g" | sed 's/ \([0-9]*\)x\([0-9]*\)$/ \1 \2/')
	t=$(cell tta_s "$1" "$2" "$3" "$tmp/a$g.csv"); c=$(cell run_cost_usd "$1" "$2" "$3" "$tmp/a$g.csv")
	[ -n "$t" ] && [ -n "$c" ] || { no "compare --gpus $g: no row for the answer $*"; continue; }
	awk -F, -v t="$t" -v c="$c" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		$k["tta_s"] + 0 > 0 && $k["tta_s"] <= 1.1 * t && $k["run_cost_usd"] != "" && $k["run_cost_usd"] < 0.5 * c { bad = 1 }
		END { exit bad }' \
		"$tmp/a$g.csv" || no "compare --gpus $g: an option within 10% of $1 $2x$3's time at less than half its cost per run"
done

# 5. today's products by default; end-of-life ones when named or asked for, their prices historical
expectw 0 "$SP" compare --gpus 8; lacks "V100"; lacks "P100"
expectw 0 "$SP" compare --gpus 8 --include-eol; has "V100"; has "prices of end-of-life systems are historical"
expectw 0 "$SP" compare --gpus 8 --systems c4140-m,dgxh100; has "c4140-m (end of life 2020-05)"
for q in "--rank-by cost" "--deadline 10min"; do
	s=$("$SP" compare --systems all --gpus 64 $q | sed -n 's/^answer: \([^ ]*\) .*/\1/p')
	[ -n "$s" ] || { no "compare --systems all --gpus 64 $q: no answer"; continue; }
	expect 0 "$SP" hw show "$s"; lacks "end of life"
done
expect 0 "$SP" hw show c4130-p100; has "status         end of life since 2020-05"
# a status is current or eol, and an end of life names its date and source
mkdir -p "$tmp/st"
{ grep -v '^#' hwdb/data/systems.csv | head -1; grep '^dgxb200,' hwdb/data/systems.csv | sed 's/,current,,$/,retired,,/'; } >"$tmp/st/systems.csv"
expect 1 "$SP" --hwdb "$tmp/st" compare --gpus 8; has "systems.csv:2"; has "'retired' is not a status"
{ grep -v '^#' hwdb/data/systems.csv | head -1; grep '^dgxb200,' hwdb/data/systems.csv | sed 's/,current,,$/,eol,,/'; } >"$tmp/st/systems.csv"
expect 1 "$SP" --hwdb "$tmp/st" compare --gpus 8; has "status eol needs status_date"

# 6. budget and deadline together: the option within budget that misses the deadline is named, with by how much
expectw 0 "$SP" compare --gpus 8 --budget 380000 --deadline 12min --systems dgxb200,hgx-h200,gb200-nvl72
has "Nearest: hgx-h200 1x8"; has "misses deadline by"; has "over budget by"
# every header says how its rows are ordered; rows that fail come after those that meet
has "options that do not qualify (column meets) after those that do"
expectw 0 "$SP" compare --gpus 8 --budget 600000 --systems dgxb200,hgx-h200,gb200-nvl72
awk '$1 ~ /^>?[0-9]+$/ { if (/over budget/) over = 1; else if (over) bad = 1 } END { exit bad }' "$tmp/out" ||
	no "a row that meets the budget listed after one that fails it"

# 7. identical hardware, identical MLPerf-scored time; slower drives never shorten it; staging only for a
# stack that stages and has something to copy
db=hwdb/data/systems.csv
mkdir -p "$tmp/db"
{ grep -v '^#' "$db" | head -1; grep '^dgxb200,' "$db" | sed 's/^dgxb200,[^,]*,/dgxb200-copy,,/';
  grep '^dgxb200,' "$db" | sed 's/^dgxb200,[^,]*,/dgxb200-slow,,/; s/,14300,8,7.88e9,/,14300,1,2e9,/'; } >"$tmp/db/systems.csv"
for s in dgxb200 dgxb200-copy dgxb200-slow; do
	"$SP" --hwdb "$tmp/db" predict --system $s --format csv >"$tmp/$s.csv" || no "predict $s"
done
[ "$(col ttt_s "$tmp/dgxb200.csv")" = "$(col ttt_s "$tmp/dgxb200-copy.csv")" ] || no "identical hardware, different ttt_s"
awk -v a="$(col ttt_s "$tmp/dgxb200.csv")" -v b="$(col ttt_s "$tmp/dgxb200-slow.csv")" 'BEGIN { exit !(b >= a) }' ||
	no "slower drives shortened the scored time"
[ "$(col staging_s "$tmp/dgxb200-slow.csv")" = 0 ] || no "local drives: nothing to stage, staging $(col staging_s "$tmp/dgxb200-slow.csv")"

# 8. sweep answers per GPU count; an empty result never replaces a file
expectw 0 "$SP" sweep --systems dgxb200 --nodes 1,2 --out "$tmp/s.csv" --quiet
[ "$(grep -c '^answer: dgxb200 ' "$tmp/out")" = 2 ] || no "sweep --nodes 1,2: one answer per GPU count"
expectw 0 "$SP" sweep --systems dgxb200 --nodes 1-20 --out "$tmp/s.csv" --quiet; has "answer (overall, not per GPU count"
printf 'good,file\n1,2\n' >"$tmp/good.csv"; cp "$tmp/good.csv" "$tmp/good.bak"
expectw 1 "$SP" sweep --out "$tmp/good.csv" --systems dgxh100 --gpus-per-node 16 --quiet
has "5 with more GPUs per node than the system has"; has "left as it was"; lacks "fits in GPU memory"
cmp -s "$tmp/good.csv" "$tmp/good.bak" || no "empty sweep replaced the file"
[ ! -e "$tmp/good.csv.tmp" ] || no "empty sweep left good.csv.tmp"

# 9. nonsense simulator input refused
expect 1 "$SP" sim --system dgxh100 --jitter 100; has "--jitter '100': expected a lognormal sigma in [0, 1]"
expect 1 "$SP" sim --system dgxh100 --jitter 1000
# sim's values in the one message of every command's bad value ("--NAME 'ARG': expected WANT", cli/opt.c)
expect 1 "$SP" sim --system dgxh100 --jitter -1; has "--jitter '-1': expected a lognormal sigma in [0, 1]"
expect 1 "$SP" sim --system dgxh100 --slow-prob 2; has "scaleplan sim: --slow-prob '2': expected a probability in [0, 1]"
expect 1 "$SP" sim --system dgxh100 --trace-window 3:1 --trace "$tmp/t.json"
has "scaleplan sim: --trace-window '3:1': expected A:B, iterations counted from 1 with A <= B"
expect 1 "$SP" sim --system dgxh100 --trace-window x --trace "$tmp/t.json"; has "--trace-window 'x': expected A:B"
expect 1 "$SP" sim --system dgxh100 --global-batch 2048 --batch-per-gpu 64; has "not both"

# 10. buy against rent for the winner's GPU model, with the break-even (at today's rate: with the default fall of
# the rent, renting B200s wins at any use)
expectw 0 "$SP" compare --gpus 8 --systems dgxb200 --rent-decline 0
has "Buy vs rent (B200): a run costs"; has "owned (dgxb200 1x8)"; has "runs a month"

# the rule (PLAN_RULE) on compare's CSV: one pick (column pick; its ratio 1, 1, 1); no option that qualifies is at
# least as fast and at most as costly (the cost per run, --cost run; none: the dearest), one of them strictly; each qualifying option
# surely faster than the pick (tta_ratio_hi < 1) costs more. tests/test_plan_rule.c checks the same over random
# subsets and that options off the front do not move the pick.
for n in 8 64 144 512; do
	expectw 0 "$SP" compare --gpus $n --format csv
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ cost = $(c["run_cost_usd"]) != "" ? $(c["run_cost_usd"]) + 0 : 1e300 }
		$(c["pick"]) == 1 { picks++; pt = $(c["tta_s"]) + 0; pc = cost
			if ($(c["tta_ratio"]) != 1 || $(c["tta_ratio_lo"]) != 1 || $(c["tta_ratio_hi"]) != 1) exit 1 }
		$(c["meets"]) == 1 { t[NR] = $(c["tta_s"]) + 0; k[NR] = cost; r[NR] = $(c["tta_ratio_hi"]) }
		END { if (picks != 1) exit 1
			for (i in t) { if (t[i] <= pt && k[i] <= pc && (t[i] < pt || k[i] < pc)) exit 1
				if (r[i] != "" && r[i] < 1 && k[i] <= pc) exit 1 } }' "$tmp/out" ||
		no "compare --gpus $n: one pick, not beaten on both time and cost per run"
done

# a deadline: those that meet it with 90% confidence, else those whose prediction meets it, with the probability
expectw 0 "$SP" compare --gpus 8 --deadline 15min --systems dgxh100,hgx-h200
has "answer: "; has "Constraints: deadline 15.0 min (alone it asks for the cheapest option that meets it): "; lacks "No option"
expectw 0 "$SP" compare --gpus 8 --deadline 15min --systems dgxh100,hgx-h200 --format csv
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "deadline_p") c = i; next } !($c > 0 && $c < 1) { bad = 1 }
	END { exit bad || NR < 3 }' "$tmp/out" || no "deadline_p: a probability on every row"

# a budget that excludes nothing changes nothing: 1.5x the largest capex gives the same pick
for n in 8 64; do
	expectw 0 "$SP" compare --gpus $n --format csv; cp "$tmp/out" "$tmp/b$n.csv"
	cap=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$(c["capex_usd"]) + 0 > m { m = $(c["capex_usd"]) + 0 } END { printf "%.0f", 1.5 * m }' "$tmp/b$n.csv")
	expectw 0 "$SP" compare --gpus $n; cp "$tmp/out" "$tmp/b$n"
	expectw 0 "$SP" compare --gpus $n --budget "$cap"; cp "$tmp/out" "$tmp/bb$n"
	[ -n "$(first "$tmp/b$n")" ] && [ "$(first "$tmp/b$n")" = "$(first "$tmp/bb$n")" ] ||
		no "compare --gpus $n: '$(first "$tmp/b$n")', with --budget $cap (1.5x the largest capex) '$(first "$tmp/bb$n")'"
done

# a budget that excludes nothing, with --runs-per-month and rentals among the options, changes nothing; the
# answer says rentals are outside it (a --budget of 1e14 once turned the pick from a rental to dgxb200)
expectw 0 "$SP" compare --gpus 8 --runs-per-month 10; cp "$tmp/out" "$tmp/r10"
expectw 0 "$SP" compare --gpus 8 --runs-per-month 10 --budget 1e14; cp "$tmp/out" "$tmp/r10b"
[ "$(first "$tmp/r10")" = "$(first "$tmp/r10b")" ] || no "--budget 1e14 moved the pick: $(first "$tmp/r10") -> $(first "$tmp/r10b")"
has "rented outside it"; has "excludes nothing"
# the budget is capex whatever --cost compares (it read as a cost per run under --cost tco); $3M, as the shared
# store sized to the cluster puts dgxh100 8x8 at $2.99M
expectw 0 "$SP" compare --gpus 64 --budget 3000000 --cost tco; has "budget \$3M caps the capex of bought options"
# --cost rent never picks an option without a rent, and names those left out and why
for t in ondemand 1y; do
	expectw 0 "$SP" compare --gpus 64 --cost rent --rent-term $t --format csv
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $(c["pick"]) == 1 && $(c["rent_usd"]) == "" { bad = 1 }
		END { exit bad }' "$tmp/out" || no "compare --gpus 64 --cost rent --rent-term $t picks an option without a rent"
	expectw 0 "$SP" compare --gpus 64 --cost rent --rent-term $t; has "left out"; has "without a rent price (no rate: "
	grep "^  Scale up vs out" "$tmp/out" | grep -q "xe8640-h100" && no "--cost rent --rent-term $t: scale line names xe8640-h100 (no rent)"
done

# one answer for one question: the buy-vs-rent break-even of compare's answer is the bought option's own
# (predict's column breakeven_runs_per_month), rounded to two figures, at today's rate (--rent-decline 0: with
# the default fall renting B200s wins at any use)
# (gb200-nvl72 16x4 at 64 GPUs was once 1110.4 in compare, 1243.5 in predict; dgxb200 1x8 1360.2 in the
# answer, 1393.5 in the CSV)
for c in "8 dgxb200 1 8" "64 gb200-nvl72 16 4"; do
	set -- $c
	expectw 0 "$SP" compare --gpus $1 --systems $2 --rent-decline 0; cp "$tmp/out" "$tmp/one"
	"$SP" predict --system $2 --nodes $3 --rent-decline 0 --format csv >"$tmp/one.csv" || no "predict $2"
	be=$(awk -v b="$(col breakeven_runs_per_month "$tmp/one.csv")" 'BEGIN { e = 10 ^ int(log(b) / log(10) - 1); printf "%d", int(b / e + 0.5) * e }')
	grep -q "^  Buy vs rent (B200): .*owned ($2 $3x$4).* above about $(printf "%d" "$be" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta') runs a month" "$tmp/one" ||
		no "compare --gpus $1's break-even is not predict's $be: $(grep 'Buy vs rent' "$tmp/one")"
done
# sweep's blocks are prepared at one node: dgxh100 8x8 was weighed against Lambda's 8-GPU rate (2486.6 runs a
# month) where predict weighs it against a rental that takes 64 GPUs (1600.66); now the same
"$SP" sweep --systems dgxh100 --nodes 8 --batch-per-gpu 128 --out "$tmp/sw.csv" --quiet >"$tmp/sw.out" 2>&1 || no "sweep dgxh100 8"
"$SP" predict --system dgxh100 --nodes 8 --batch-per-gpu 128 --format csv >"$tmp/p8.csv" || no "predict dgxh100 8"
[ "$(col breakeven_runs_per_month "$tmp/sw.csv")" = "$(col breakeven_runs_per_month "$tmp/p8.csv")" ] ||
	no "sweep's break-even $(col breakeven_runs_per_month "$tmp/sw.csv") is not predict's $(col breakeven_runs_per_month "$tmp/p8.csv")"
# compare and sweep weigh scale up vs out at 64 GPUs on the same options: one verdict
"$SP" compare --gpus 64 | grep '^  Scale up vs out' >"$tmp/sc.c"
"$SP" sweep --nodes 1,2,4,8,16 --out "$tmp/sw2.csv" --quiet 2>/dev/null | grep '^  Scale up vs out' | grep -F "$(cat "$tmp/sc.c")" >/dev/null ||
	no "compare --gpus 64 and sweep's 64-GPU answer differ on scale up vs out: $(cat "$tmp/sc.c")"

# the answer as JSON (--answer-json, what whatif.html reads): the same pick as the table's mark and the CSV's
# column, the same lines as the printed answer
expectw 0 "$SP" compare --gpus 8 --answer-json "$tmp/a.json" --out "$tmp/a.csv"; cp "$tmp/out" "$tmp/a.txt"
if command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp/a.json" "$tmp/a.csv" "$tmp/a.txt" <<'PY' || no "--answer-json disagrees with the table, the CSV or the printed answer"
import csv, json, sys
a = json.load(open(sys.argv[1]))
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["pick"] == "1"]
text = open(sys.argv[3]).read().splitlines()
i = [k for k, l in enumerate(text) if l.startswith("answer: ")][0]
printed = [text[i][len("answer: "):]] + [l.strip() for l in text[i + 1:i + len(a["lines"])]]
p = a["pick"]
ok = len(rows) == 1 and rows[0]["system"] == p["system"] and int(rows[0]["nodes"]) == p["nodes"] and \
    printed == a["lines"] and a["lines"][0].startswith("%s %dx%d: " % (p["system"], p["nodes"], p["gpus_per_node"])) and \
    any(l.split()[0] == ">%s" % l.split()[0][1:] and l.split()[1] == p["system"] for l in text if l.startswith(">") or l.lstrip().startswith(">"))
sys.exit(0 if ok else 1)
PY
fi
expectw 1 "$SP" compare --gpus 8 --answer-json "$tmp/nosuch/a.json"; has "--answer-json"

# offers of the same hardware and time fold into one row that lists them with their price; --all-rows (and the
# CSV) keep every offer
expectw 0 "$SP" compare --gpus 8 --systems dgxh100,xe9680-h100,aws-p5,dgxb200
# (the folded offers on the line under their row)
awk '$1 ~ /^>?[0-9]+$/ { n++; last = $2; if ($2 == "xe9680-h100") own = 1 }
	/^ +[+] xe9680-h100 capex \$[0-9,]*, aws-p5 rent \$/ && last == "dgxh100" { f = 1 }
	END { exit !(n == 2 && !own && f) }' "$tmp/out" || no "compare: dgxh100, xe9680-h100 and aws-p5 not folded into one row"
has "2 offers of the same hardware and time folded"
expectw 0 "$SP" compare --gpus 8 --systems dgxh100,xe9680-h100,aws-p5,dgxb200 --all-rows
awk '$1 ~ /^>?[0-9]+$/ { n++ } END { exit n != 4 }' "$tmp/out" || no "--all-rows: not one row per offer"; lacks "folded"

# the count of GPUs is a decision: a list of counts is one question with one pick (the count part of the option);
# at one count the answer names a smaller count of the pick's system that is as fast (the knee)
expectw 0 "$SP" compare --gpus 8,16,32,64,128,256,512,1024
[ "$(grep -c '^answer: ' "$tmp/out")" = 1 ] || no "compare --gpus 8,...,1024: not one answer"
expectw 0 "$SP" compare --gpus 8,16,32,64,128,256,512,1024 --format csv
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { g[$(c["gpus"])] = 1 } $(c["pick"]) == 1 { p++ }
	END { n = 0; for (k in g) n++; exit !(p == 1 && n == 8) }' "$tmp/out" || no "compare --gpus list: one pick over 8 counts"
expectw 0 "$SP" compare --gpus 1024
grep -q "^  Fewer GPUs: .* \(256\|512\|128\|64\) GPUs as fast as 1024 within the 90% interval" "$tmp/out" ||
	no "compare --gpus 1024 names no smaller count as fast: $(grep '^answer' "$tmp/out")"
expectw 1 "$SP" compare --gpus 8,0; has "expected positive integers"

# the site: --site-kw caps the peak draw of bought options (power_max_W), said in fails; rentals are off site
expectw 0 "$SP" compare --gpus 512 --site-kw 700 --format csv
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$(c["pick"]) == 1 && $(c["capex_usd"]) != "" && $(c["power_max_W"]) > 700e3 { bad = 1 }
	$(c["capex_usd"]) != "" && $(c["power_max_W"]) > 700e3 && $(c["fails"]) !~ /power .* kW at peak over the site/ { bad = 1 }
	$(c["fails"]) ~ /over the site/ { over++ }
	END { exit bad || !over }' "$tmp/out" || no "--site-kw 700: the pick or a bought option over it is not marked"
expectw 0 "$SP" compare --gpus 512 --site-kw 700; has "site 700 kW caps the peak draw of bought options"; has "over it on power"
expectw 1 "$SP" compare --gpus 8 --site-kw 0; has "site-kw"

# a deadline without --gpus finds the fewest GPUs (8, 16, ..., 1024) at which an option meets it: the answer
# names the count and why; a compare at that count picks the same, at half of it none meets the deadline
for d in 30min 5min 3min; do
	expectw 0 "$SP" compare --deadline $d; cp "$tmp/out" "$tmp/d$d"
	n=$(sed -n 's/^GPUs: \([0-9]*\), the fewest of 8, 16, \.\.\., 1024 at which an option meets the deadline of .*/\1/p' "$tmp/d$d")
	[ -n "$n" ] || { no "compare --deadline $d: no count named"; cat "$tmp/d$d"; continue; }
	expectw 0 "$SP" compare --deadline $d --gpus $n
	[ "$(grep '^answer' "$tmp/out")" = "$(grep '^answer' "$tmp/d$d")" ] || no "compare --deadline $d: the pick differs from --gpus $n's"
	[ "$n" -eq 8 ] && continue
	grep -q "^GPUs: $n, .* (at $((n / 2)) the fastest takes " "$tmp/d$d" || no "compare --deadline $d: no reason for $n"
	expectw 0 "$SP" compare --deadline $d --gpus $((n / 2)); has "No option for $((n / 2)) GPUs meets the constraints"
done
expectw 0 "$SP" compare --deadline 1s; has "No option meets the deadline of 1.0 s at up to 1024 GPUs"
expectw 1 "$SP" compare; has "--gpus N is required"; has "--deadline T alone"

exit $fail
