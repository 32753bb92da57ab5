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

# 1. scale up vs out names one GPU record: both systems of the sentence have the same GPU (the same database id:
# a GB200 NVL72 rack's 1.2 kW B200 against a DGX B200's 1 kW one would hide a GPU difference in the topology's)
for g in 8 16 64 144; do
	expect 0 "$SP" compare --gpus $g --partial-nodes
	cp "$tmp/out" "$tmp/t$g"
	line=$(grep '^answer:' "$tmp/t$g" | sed -n 's/.* Scale \(up\|out\) (\([^ ]*\) alike): [0-9]* NVLink domains\{0,1\} \([^ ]*\) [0-9x]* ([^)]*), [0-9]* \([^ ]*\) .*/\2 \3 \4/p')
	[ -n "$line" ] || { grep -q "Scale up vs out: no GPU model" "$tmp/t$g" || no "compare --gpus $g: no scale sentence"; continue; }
	set -- $line
	a=$(gpu_of "$2" "$tmp/t$g"); b=$(gpu_of "$3" "$tmp/t$g")
	[ "$a" = "$1" ] && [ "$b" = "$1" ] || no "compare --gpus $g: scale up/out across GPU records: $2 ($a) vs $3 ($b)"
done

# 2. whole servers or partial ones: the same answer (losing rows do not move it)
first() { sed -n 's/^answer: [^:]*: \([^ ]* [0-9]*x[0-9]*\).*/\1/p' "$1"; }
expect 0 "$SP" compare --gpus 8; cp "$tmp/out" "$tmp/w8"
[ -n "$(first "$tmp/w8")" ] && [ "$(first "$tmp/w8")" = "$(first "$tmp/t8")" ] ||
	no "compare --gpus 8 answers '$(first "$tmp/w8")', with --partial-nodes '$(first "$tmp/t8")'"

# 3. an NVLink server is not beaten by the same GPUs one per server
expect 0 "$SP" compare --systems dgxh100 --gpus 8 --partial-nodes --format csv; cp "$tmp/out" "$tmp/h.csv"
awk -v a="$(cell tta_s dgxh100 1 8 "$tmp/h.csv")" -v b="$(cell tta_s dgxh100 8 1 "$tmp/h.csv")" 'BEGIN { exit !(a + 0 > 0 && a < b) }' ||
	no "dgxh100 1x8 not faster than 8x1"
"$SP" predict --system dgxh100 --gpus-per-node 1 --nodes 64 --format csv >"$tmp/p1.csv"
"$SP" predict --system dgxh100 --nodes 8 --format csv >"$tmp/p8.csv"
awk -v a="$(col tta_s "$tmp/p8.csv")" -v b="$(col tta_s "$tmp/p1.csv")" 'BEGIN { exit !(a + 0 > 0 && a < b) }' ||
	no "64 GPUs: 8x8 dgxh100 not faster than 64x1"

# 4. the first option an answer names: none within 10% of its time at less than half its capex
for g in 8 16 64; do
	"$SP" compare --gpus $g >"$tmp/a$g" && "$SP" compare --gpus $g --format csv >"$tmp/a$g.csv" || no "compare --gpus $g"
	set -- $(first "$tmp/a$g" | sed 's/ \([0-9]*\)x\([0-9]*\)$/ \1 \2/')
	t=$(cell tta_s "$1" "$2" "$3" "$tmp/a$g.csv"); c=$(cell capex_usd "$1" "$2" "$3" "$tmp/a$g.csv")
	[ -n "$t" ] && [ -n "$c" ] || { no "compare --gpus $g: no row for the answer $*"; continue; }
	awk -F, -v t="$t" -v c="$c" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		$k["tta_s"] + 0 > 0 && $k["tta_s"] <= 1.1 * t && $k["capex_usd"] != "" && $k["capex_usd"] < 0.5 * c { bad = 1 }
		END { exit bad }' \
		"$tmp/a$g.csv" || no "compare --gpus $g: an option within 10% of $1 $2x$3's time at less than half its capex"
done

# 5. today's products by default; end-of-life ones when named or asked for, their prices historical
expect 0 "$SP" compare --gpus 8; lacks "V100"; lacks "P100"
expect 0 "$SP" compare --gpus 8 --include-eol; has "V100"; has "prices of end-of-life systems are historical"
expect 0 "$SP" compare --gpus 8 --systems c4140-m,dgxh100; has "c4140-m (end of life 2020-05)"
for q in "--rank-by cost" "--deadline 10min"; do
	s=$("$SP" compare --systems all --gpus 64 $q | sed -n 's/^answer: [^:]*: \([^ ]*\) .*/\1/p')
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
expect 0 "$SP" compare --gpus 8 --budget 380000 --deadline 12min --systems dgxb200,hgx-h200,gb200-nvl72
has "Nearest: hgx-h200 1x8"; has "misses deadline by"; has "over budget by"
# every header says how its rows are ordered; rows that fail come after those that meet
has "options that do not qualify (column meets) after those that do"
expect 0 "$SP" compare --gpus 8 --budget 600000 --systems dgxb200,hgx-h200,gb200-nvl72
awk '$1 ~ /^[0-9]+$/ { if (/over budget/) over = 1; else if (over) bad = 1 } END { exit bad }' "$tmp/out" ||
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
expect 0 "$SP" sweep --systems dgxb200 --nodes 1,2 --out "$tmp/s.csv" --quiet
has "answer: Best by time to accuracy for 8 GPUs"; has "answer: Best by time to accuracy for 16 GPUs"
expect 0 "$SP" sweep --systems dgxb200 --nodes 1-20 --out "$tmp/s.csv" --quiet; has "answer (overall, not per GPU count"
printf 'good,file\n1,2\n' >"$tmp/good.csv"; cp "$tmp/good.csv" "$tmp/good.bak"
expect 1 "$SP" sweep --out "$tmp/good.csv" --systems dgxh100 --gpus-per-node 16 --quiet
has "5 with more GPUs per node than the system has"; has "left as it was"; lacks "fits in GPU memory"
cmp -s "$tmp/good.csv" "$tmp/good.bak" || no "empty sweep replaced the file"
[ ! -e "$tmp/good.csv.tmp" ] || no "empty sweep left good.csv.tmp"

# 9. nonsense simulator input refused
expect 1 "$SP" sim --system dgxh100 --jitter 100; has "--jitter '100': expected a lognormal sigma in [0, 1]"
expect 1 "$SP" sim --system dgxh100 --jitter 1000
expect 1 "$SP" sim --system dgxh100 --global-batch 2048 --batch-per-gpu 64; has "not both"

# 10. buy against rent for the winner's GPU model, with the break-even
expect 0 "$SP" compare --gpus 8 --systems dgxb200
has "Buy vs rent (B200-SXM-180GB): owning dgxb200 1x8"; has "renting the same GPUs"; has "runs a month"

# faster means surely faster: each row carries its time over the pick's with the 90% interval (the pick 1, 1, 1);
# no option that qualifies beats the pick surely (tta_ratio_hi < 1) at a cost per run (owned: tco; rented:
# rent) no higher than the pick's
for n in 8 64 144; do
	expect 0 "$SP" compare --gpus $n --format csv
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ cost = $(c["capex_usd"]) != "" ? $(c["tco_usd"]) : $(c["rent_usd"]) }
		$(c["tta_ratio"]) == 1 && $(c["tta_ratio_lo"]) == 1 && $(c["tta_ratio_hi"]) == 1 { picks++; pc = cost }
		$(c["meets"]) == 1 { r[NR] = $(c["tta_ratio_hi"]); k[NR] = cost }
		END { if (picks != 1) exit 1; for (i in r) if (r[i] < 1 && k[i] != "" && k[i] + 0 <= pc + 0) exit 1 }' "$tmp/out" ||
		no "compare --gpus $n: one pick (ratio 1, 1, 1), none surely faster at no more per run"
done

# a deadline: those that meet it with 90% confidence, else those whose prediction meets it, with the probability
expect 0 "$SP" compare --gpus 8 --deadline 15min --systems dgxh100,hgx-h200
has "answer: Cheapest (capex) to reach accuracy within 15.0 min"; has "Deadline: "; lacks "No priced option"
expect 0 "$SP" compare --gpus 8 --deadline 15min --systems dgxh100,hgx-h200 --format csv
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "deadline_p") c = i; next } !($c > 0 && $c < 1) { bad = 1 }
	END { exit bad || NR < 3 }' "$tmp/out" || no "deadline_p: a probability on every row"

# a budget that excludes nothing changes nothing: 1.5x the pick's capex gives the same pick
for n in 8 64; do
	expect 0 "$SP" compare --gpus $n --format csv; cp "$tmp/out" "$tmp/b$n.csv"
	cap=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$(c["tta_ratio"]) == 1 && $(c["tta_ratio_lo"]) == 1 && $(c["tta_ratio_hi"]) == 1 { printf "%.0f", 1.5 * $(c["capex_usd"]) }' "$tmp/b$n.csv")
	expect 0 "$SP" compare --gpus $n; cp "$tmp/out" "$tmp/b$n"
	expect 0 "$SP" compare --gpus $n --budget "$cap"; cp "$tmp/out" "$tmp/bb$n"
	[ -n "$(first "$tmp/b$n")" ] && [ "$(first "$tmp/b$n")" = "$(first "$tmp/bb$n")" ] ||
		no "compare --gpus $n: '$(first "$tmp/b$n")', with --budget $cap (1.5x its capex) '$(first "$tmp/bb$n")'"
done

exit $fail
