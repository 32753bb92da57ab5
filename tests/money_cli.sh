#!/bin/sh
# The whole cost of a cluster through the CLI and the built-in hwdb: capex by part, running cost at
# a utilisation, rent as billed, buy against rent, price ranges, bad money refused.
# Run by tools/run_tests.sh with SCALEPLAN set. No GPU, no network.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"
# get NAME SYSTEM FILE: column NAME of SYSTEM's first row in a result CSV
get() { awk -F, -v n="$1" -v s="$2" '{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next }
	$1 == s && !done { print $c; done = 1 }' "$3"; }
# check EXPR MSG: an awk condition over the variables passed as -v name=value before it
ok() { msg=$1; shift; awk "$@" || no "$msg"; }

# the goal command: servers + network, network 5-35% of capex, PUE above 1, break-even above 0, one power basis,
# each price inside its range
expectw 0 "$SP" compare --systems dgxh100,xe9680-h100,gb200-nvl72 --gpus 64 --format csv --out "$tmp/g.csv"
for s in dgxh100 xe9680-h100 gb200-nvl72; do
	ok "$s: capex = servers + network + storage + racks + cooling + installation, network 2-35%" \
		-v c="$(get capex_usd $s "$tmp/g.csv")" \
		-v sv="$(get capex_servers_usd $s "$tmp/g.csv")" -v n="$(get capex_network_usd $s "$tmp/g.csv")" \
		-v st="$(get capex_storage_usd $s "$tmp/g.csv")" -v rk="$(get capex_racks_usd $s "$tmp/g.csv")" \
		-v co="$(get capex_cooling_usd $s "$tmp/g.csv")" -v ins="$(get capex_install_usd $s "$tmp/g.csv")" \
		-v f="$(get capex_fabric_usd $s "$tmp/g.csv")" -v fe="$(get capex_frontend_usd $s "$tmp/g.csv")" \
		'BEGIN { d = c - sv - n - st - rk - co - ins; if (d < 0) d = -d; e = n - f - fe; if (e < 0) e = -e
			 exit !(sv > 0 && st > 0 && fe > 0 && ins > 0 && n >= 0.02 * c && n <= 0.35 * c && d < 1 && e < 1) }'
	ok "$s: pue > 1, breakeven > 0" -v p="$(get pue $s "$tmp/g.csv")" -v b="$(get breakeven_runs_per_month $s "$tmp/g.csv")" \
		'BEGIN { exit !(p > 1 && b > 0) }'
	ok "$s: capex_lo < capex < capex_hi, tco_lo < tco < tco_hi" -v c="$(get capex_usd $s "$tmp/g.csv")" \
		-v l="$(get capex_lo_usd $s "$tmp/g.csv")" -v h="$(get capex_hi_usd $s "$tmp/g.csv")" \
		-v t="$(get tco_usd $s "$tmp/g.csv")" -v tl="$(get tco_lo_usd $s "$tmp/g.csv")" -v th="$(get tco_hi_usd $s "$tmp/g.csv")" \
		'BEGIN { exit !(l < c && c < h && tl < t && t < th) }'
done
ok "dgxh100 and xe9680-h100 power within 15%" -v a="$(get power_W dgxh100 "$tmp/g.csv")" \
	-v b="$(get power_W xe9680-h100 "$tmp/g.csv")" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d <= 0.15 * a) }'
[ "$(get power_basis dgxh100 "$tmp/g.csv")" = datasheet ] || no "dgxh100 power from its datasheet"
[ "$(get power_basis xe9680-h100 "$tmp/g.csv")" = estimate ] || no "xe9680-h100 power labelled estimate"
# a system without a power figure says so
expect 0 "$SP" predict --system c4140-m --format csv; [ "$(col power_basis "$tmp/out")" = tdp-fallback ] || no "tdp-fallback labelled"
# OEM and cloud H100 nodes: the DGX H100 datasheet's board, labelled estimate, not 1.3 x TDP
for s in xe8640-h100 aws-p5 coreweave-hgx-h100; do
	expect 0 "$SP" predict --system $s --format csv; [ "$(col power_basis "$tmp/out")" = estimate ] || no "$s: power an estimate from the datasheet"
done

# one 8-GPU server needs no fabric; 8 of them one 64-port switch and 64 links (50,000 NVIDIA-branded + 64 x 1,320)
expect 0 "$SP" predict --system dgxh100 --format csv; [ "$(col capex_fabric_usd "$tmp/out")" = 0 ] || no "1 node: no fabric"
expect 0 "$SP" predict --system dgxh100 --nodes 8 --format csv
[ "$(col capex_fabric_usd "$tmp/out")" = 134480 ] || no "8 DGX: 1 switch + 64 links = 134480, got $(col capex_fabric_usd "$tmp/out")"
# 16 nodes (128 ports): 4 leaves of 32 down-ports, 128 up-links to 2 spines: 6 switches, 256 links
expect 0 "$SP" predict --system dgxh100 --nodes 16 --format csv
[ "$(col capex_fabric_usd "$tmp/out")" = 637920 ] || no "16 DGX: 6 switches + 256 links = 637920, got $(col capex_fabric_usd "$tmp/out")"
# the goals: 1,024 DGX H100 GPUs pay 10-25% of capex for their networks and price the store; a job inside one
# NVL72 rack needs no compute fabric (network <= 5%), and the rack costs the same however its trays are used
expectw 0 "$SP" compare --systems dgxh100 --gpus 1024 --format csv
ok "dgxh100 1024: network 10-25%, store priced" -v c="$(col capex_usd "$tmp/out")" -v n="$(col capex_network_usd "$tmp/out")" \
	-v st="$(col capex_storage_usd "$tmp/out")" 'BEGIN { exit !(n >= 0.10 * c && n <= 0.25 * c && st > 0) }'
expectw 0 "$SP" compare --systems gb200-nvl72 --gpus 64 --format csv
ok "gb200-nvl72 64: network <= 5%, no compute fabric, liquid cooling bought" -v c="$(col capex_usd "$tmp/out")" \
	-v n="$(col capex_network_usd "$tmp/out")" -v f="$(col capex_fabric_usd "$tmp/out")" -v co="$(col capex_cooling_usd "$tmp/out")" \
	'BEGIN { exit !(n <= 0.05 * c && f == 0 && co > 0) }'
"$SP" predict --system gb200-nvl72 --nodes 16 --format csv >"$tmp/n4.csv"
"$SP" predict --system gb200-nvl72 --nodes 18 --gpus-per-node 2 --format csv >"$tmp/n2.csv"
[ "$(col capex_usd "$tmp/n4.csv")" = "$(col capex_usd "$tmp/n2.csv")" ] ||
	no "one NVL72 rack: the same capex at 4 or 2 GPUs a tray ($(col capex_usd "$tmp/n4.csv") vs $(col capex_usd "$tmp/n2.csv"))"

# the owner's cost: a lower utilisation costs more per run; the parts add up; bad values refused
"$SP" predict --system dgxh100 --nodes 8 --utilisation 0.5 --format csv >"$tmp/u5.csv" || no "utilisation 0.5"
"$SP" predict --system dgxh100 --nodes 8 --utilisation 1 --finance-rate 0 --residual 0 --format csv >"$tmp/u1.csv" ||
	no "utilisation 1"
ok "utilisation 0.5 costs more per run than 1" -v a="$(col tco_usd "$tmp/u5.csv")" -v b="$(col tco_usd "$tmp/u1.csv")" \
	'BEGIN { exit !(a > b && b > 0) }'
ok "tco = capex share + support + facility + energy (utilisation 1, 5 years, straight line)" \
	-v t="$(col tco_usd "$tmp/u1.csv")" -v c="$(col capex_usd "$tmp/u1.csv")" -v tta="$(col tta_s "$tmp/u1.csv")" \
	-v s="$(col support_usd "$tmp/u1.csv")" -v f="$(col facility_usd "$tmp/u1.csv")" -v e="$(col energy_usd "$tmp/u1.csv")" \
	'BEGIN { m = 365.25 * 86400 / 12; want = c / 60 * tta / m + s + f + e; d = t - want; if (d < 0) d = -d
		 exit !(s > 0 && f > 0 && d < 1e-4 * t) }'
ok "support = 8% of capex a year, per run" -v s="$(col support_usd "$tmp/u1.csv")" -v c="$(col capex_usd "$tmp/u1.csv")" \
	-v tta="$(col tta_s "$tmp/u1.csv")" 'BEGIN { want = 0.08 * c / 12 * tta / (365.25 * 86400 / 12); d = s - want; if (d < 0) d = -d
		 exit !(d < 1e-4 * want) }'
ok "energy at the meter: kWh x PUE x price" -v e="$(col energy_usd "$tmp/u1.csv")" -v j="$(col energy_J "$tmp/u1.csv")" \
	'BEGIN { want = j / 3.6e6 * 1.2 * 0.08; d = e - want; if (d < 0) d = -d; exit !(d < 1e-4 * want) }'
"$SP" predict --system dgxh100 --nodes 8 --utilisation 1 --finance-rate 0.07 --residual 0 --format csv >"$tmp/fin.csv"
"$SP" predict --system dgxh100 --nodes 8 --utilisation 1 --finance-rate 0 --residual 0.3 --format csv >"$tmp/res.csv"
ok "financing costs more, a residual value less" -v f="$(col tco_usd "$tmp/fin.csv")" -v r="$(col tco_usd "$tmp/res.csv")" \
	-v b="$(col tco_usd "$tmp/u1.csv")" 'BEGIN { exit !(f > b && r < b) }'
# money over time: a cost of capital and a resale value by default; the owner's rate per GPU-hour beside rent's
"$SP" predict --system dgxh100 --nodes 8 --format csv >"$tmp/d.csv" || no "default money"
"$SP" predict --system dgxh100 --nodes 8 --finance-rate 0 --format csv >"$tmp/d0.csv" || no "finance 0"
ok "a cost of capital by default: tco above --finance-rate 0; owned_usd_per_gpu_hour 1-8" \
	-v t="$(col tco_usd "$tmp/d.csv")" -v t0="$(col tco_usd "$tmp/d0.csv")" -v o="$(col owned_usd_per_gpu_hour "$tmp/d.csv")" \
	-v g="$(col gpus "$tmp/d.csv")" -v tta="$(col tta_s "$tmp/d.csv")" \
	'BEGIN { d = o - t / (g * tta / 3600); if (d < 0) d = -d; exit !(t > t0 && o >= 1 && o <= 8 && d < 1e-4 * o) }'
# report: the cash flow by year (>= 5 years after the purchase), owned and rented, and its chart
"$SP" report --systems dgxh100,coreweave-hgx-h100,aws-p5 --gpus 64 --out "$tmp/rep" >/dev/null 2>&1 || no "report"
[ "$(awk 'END { print NR - 1 }' "$tmp/rep/cashflow.csv")" -ge 6 ] || no "cashflow.csv: years 0..5"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ s = $c["capex_usd"] + $c["support_usd"] + $c["facility_usd"] + $c["energy_usd"] + $c["residual_usd"]; cum += $c["owned_usd"]
	  d = s - $c["owned_usd"]; e = cum - $c["owned_cum_usd"]; if (d < 0) d = -d; if (e < 0) e = -e
	  if (d > 1 || e > 1 || !($c["rented_usd"] > 0 || NR == 2)) bad = 1; last_res = $c["residual_usd"] }
	END { exit bad || !(last_res < 0) }' "$tmp/rep/cashflow.csv" || no "cashflow.csv: parts add up, resale at the end"
grep -q "## Cash flow" "$tmp/rep/report.md" || no "report: Cash flow section"
expectw 1 "$SP" compare --systems dgxh100 --gpus 64 --utilisation 1.5; has "--utilisation '1.5': expected a fraction 0 < F <= 1"
expect 1 "$SP" predict --system dgxh100 --utilisation 0; has "--utilisation '0'"
expect 1 "$SP" predict --system dgxh100 --pue 0.9; has "--pue '0.9'"
expect 1 "$SP" predict --system dgxh100 --facility-price -5; has "--facility-price '-5'"
expect 1 "$SP" predict --system dgxh100 --residual 1; has "--residual '1'"
expect 1 "$SP" predict --system dgxh100 --rent-term 2y; has "expected ondemand, 1y, 3y or spot"

# rent as billed: a CoreWeave NVL72 is a whole rack of 72 GPUs, however few are used
expectw 0 "$SP" compare --systems coreweave-gb200-nvl72 --gpus 8 --format csv
ok "coreweave-gb200-nvl72 at 8 GPUs rents 72" -v g="$(col rent_gpus "$tmp/out")" -v r="$(col rent_usd "$tmp/out")" \
	-v t="$(col tta_s "$tmp/out")" 'BEGIN { exit !(g == 72 && r >= 72 * 10.5 * t / 3600) }'
# Lambda's instance rate covers one instance: a 2-node cluster has no rate from our sources
expect 0 "$SP" predict --system lambda-hgx-h100 --nodes 2 --format csv; [ -z "$(col rent_usd "$tmp/out")" ] || no "lambda 2 nodes: no rate"
expect 0 "$SP" predict --system lambda-hgx-h100 --format csv; [ -n "$(col rent_usd "$tmp/out")" ] || no "lambda 1 node: rented"
# billing increments: AWS bills per second with a 60 s minimum, so a run's rent is at least a minute
expect 0 "$SP" predict --system aws-p5 --epochs 0.01 --rent-session-h 0 --format csv
ok "aws-p5: at least 60 s billed" -v r="$(col rent_usd "$tmp/out")" 'BEGIN { exit !(r >= 8 * 6.88 * 60 / 3600 - 1e-6) }'
# committed and spot rates: at least 3 systems with a 1-year rate
expectw 0 "$SP" compare --systems all --gpus 64 --rent-term 1y --format csv
n=$(awk -F, '{ sub(/\r$/, "") } NR == 1 { for (i = 1; i <= NF; i++) if ($i == "rent_usd") c = i; next } $c != "" { s[$1] = 1 }
	END { for (k in s) n++; print n + 0 }' "$tmp/out")
[ "$n" -ge 3 ] || no "--rent-term 1y prices $n systems, want >= 3"
expect 0 "$SP" predict --system aws-p5 --rent-term spot --format csv; [ -n "$(col rent_usd "$tmp/out")" ] || no "aws-p5 spot rate"
# a reservation is paid around the clock: half the use, twice the rent a run; a run rented alone the same at
# both uses, above the run's GPU-hours x rate by the instances' start-up and the data copy; in the default day's
# session within 1% of the run's GPU-hours x rate (the set-up shared by the day's runs)
for t in 1y ondemand; do for u in 0.5 1; do
	"$SP" predict --system aws-p5 --nodes 8 --rent-term $t --utilisation $u --rent-session-h 0 --format csv \
		>"$tmp/r$t$u.csv" || no "aws-p5 $t $u"
done; done
"$SP" predict --system aws-p5 --nodes 8 --format csv >"$tmp/rday.csv" || no "aws-p5 in a day's session"
ok "on demand in a day's session: within 1% of GPU-hours x rate" -v b="$(col rent_usd "$tmp/rday.csv")" \
	-v t="$(col tta_s "$tmp/rday.csv")" 'BEGIN { g = 64 * 6.88 * t / 3600; exit !(b >= g && b < 1.01 * g) }' 
ok "1y: rent at use 0.5 = 2 x at 1" -v a="$(col rent_usd "$tmp/r1y0.5.csv")" -v b="$(col rent_usd "$tmp/r1y1.csv")" \
	-v s="$(col rent_setup_s "$tmp/r1y1.csv")" 'BEGIN { d = a - 2 * b; if (d < 0) d = -d; exit !(b > 0 && d < 1e-6 * a && s == 0) }'
ok "on demand: the same at both uses, above GPU-hours x rate by start-up and copy" \
	-v a="$(col rent_usd "$tmp/rondemand0.5.csv")" -v b="$(col rent_usd "$tmp/rondemand1.csv")" \
	-v t="$(col tta_s "$tmp/rondemand1.csv")" -v s="$(col rent_setup_s "$tmp/rondemand1.csv")" \
	'BEGIN { exit !(a == b && s > 60 && b >= 64 * 6.88 * (t + s) / 3600 - 1e-6 && b > 64 * 6.88 * t / 3600 * 1.05) }'
# the buy-vs-rent rules below at today's rate (--rent-decline 0); by default the rent falls 25% a year over
# the horizon (AWS's P5 list cut, docs/decision.md) and the line says so
expectw 0 "$SP" compare --systems dgxh100,coreweave-hgx-h100 --gpus 64; has "averaged over 5 years as rent falls 25% a year"
expect 0 "$SP" predict --system aws-p5 --nodes 8; has "instance start-up and data copy"
# the buy-vs-rent line weighs the bought option's run against the same run rented (the bought option's own figures,
# as predict prints them: one answer in every command); a 1-year reservation against owning: owning wins at any use
# (where the options hold a rental of the GPU, the cheapest of them: the line and the pick weigh the same figures)
expectw 0 "$SP" compare --rent-decline 0 --systems dgxh100,lambda-hgx-h100 --gpus 8
has "owned (dgxh100 1x8)"; has "rented (lambda-hgx-h100, its share of a 24 h session)"
expectw 0 "$SP" compare --rent-decline 0 --systems dgxh100 --gpus 8; has "rented (market-h100, its share of a 24 h session)"
expectw 0 "$SP" compare --rent-decline 0 --systems dgxh100,coreweave-hgx-h100 --gpus 64 --rent-term 1y; has "buying wins at any use"

# market rent: CoreWeave's H100 rate ranges down to the market's (1.85 of 6.16); buy vs rent at both ends and the
# rate where the decision flips; at 5% use renting wins
expect 0 "$SP" predict --system coreweave-hgx-h100 --nodes 8 --format csv
ok "coreweave-hgx-h100: rent_lo_usd <= 0.6 x rent_usd" -v l="$(col rent_lo_usd "$tmp/out")" -v r="$(col rent_usd "$tmp/out")" \
	'BEGIN { exit !(l > 0 && l <= 0.6 * r) }'
expectw 0 "$SP" compare --rent-decline 0 --gpus 64 --systems dgxh100,coreweave-hgx-h100,aws-p5 --utilisation 0.05
has "at the stated use renting wins"
expectw 0 "$SP" compare --rent-decline 0 --gpus 64 --systems dgxh100,coreweave-hgx-h100 --rent-rate 6.155; has "buying wins above about"
lacks "at the stated use renting wins"; has "rented (the --rent-rate quote"
# at the market's rate (market-h100, 2.32 on demand) renting wins at the stated use, and the line names it
expectw 0 "$SP" compare --rent-decline 0 --gpus 64 --systems dgxh100; has "rented (market-h100"; has "at the stated use renting wins"
printf 'id,rent_usd_gpu_h,rent_date,rent_source,rent_market_usd_gpu_h\ncoreweave-hgx-h100,6.16,2026-11,list,1.85\n' >"$tmp/mk.csv"
mkdir -p "$tmp/mk" && mv "$tmp/mk.csv" "$tmp/mk/systems.csv"
expect 1 "$SP" hw check "$tmp/mk"; has "a market rate needs rent_market_date and rent_market_source"

# current, dated prices: the DGX H100 at its 2024 quotes, the GB200 NVL72 rack at the analysts' 3.1-3.4 M; the report
# names each price's date
expect 0 "$SP" predict --system dgxh100 --format csv
ok "dgxh100: 2024 quotes, 270-317k" -v c="$(col capex_servers_usd "$tmp/out")" -v l="$(col capex_lo_usd "$tmp/out")" \
	'BEGIN { exit !(c == 310000 && l > 270000 * 0.99) }'
expect 0 "$SP" hw show gb200-nvl72; has "3,100,000"; has "3,400,000"
grep -q "Prices and their dates.*dgxh100: \$310,000 a unit (quote, 2024-08)" "$tmp/rep/report.md" || no "report: prices with their dates"

# sensitivity over every GPU count, in words: the use below which renting wins, a flip inside the utilisation's
# range (40% stated, renting wins below 32% at 16 GPUs), the market's rate
# (at CoreWeave's list rate as a quote in hand, --rent-rate); at the market's rate (market-h100) renting wins
"$SP" report --rent-decline 0 --systems dgxh100,coreweave-hgx-h100 --gpus 16,64 --utilisation 0.4 --rent-rate 6.155 --out "$tmp/sens" >/dev/null 2>&1 || no "report sens"
grep -q "^At 16 GPUs, dgxh100 2x8.*Renting the same runs on the --rent-rate quote wins below [0-9]*% use.*the utilisation flips it within 20-60%" \
	"$tmp/sens/report.md" || no "report: 16 GPUs, renting below a use, flipped within the utilisation's range"
"$SP" report --rent-decline 0 --systems dgxh100 --gpus 16,64 --utilisation 0.4 --out "$tmp/sens2" >/dev/null 2>&1 || no "report sens2"
grep -q "^At 64 GPUs, dgxh100 8x8.*Renting the same runs on market-h100 wins below [0-9]*% use.*(stated 40%: renting wins)" \
	"$tmp/sens2/report.md" || no "report: 64 GPUs, at the market's rate renting wins"

# your figures win: an overlay with a price range, a fabric price, a shared store; bad values named at file:line
mkdir -p "$tmp/mine"
printf 'id,price_usd,price_kind,price_date,price_source,price_lo_usd,price_hi_usd\ndgxh100,250000,quote,2026-11,our quote,240000,260000\n' \
	>"$tmp/mine/systems.csv"
expect 0 "$SP" predict --system dgxh100 --nodes 2 --hwdb "$tmp/mine" --format csv
ok "quote range used" -v s="$(col capex_servers_usd "$tmp/out")" -v l="$(col capex_lo_usd "$tmp/out")" \
	-v n="$(col capex_network_usd "$tmp/out")" -v st="$(col capex_storage_usd "$tmp/out")" \
	'BEGIN { exit !(s == 500000 && l > 480000 && l < 480000 + n + st) }'
printf 'id,price_usd,price_kind,price_date,price_source,price_lo_usd,price_hi_usd\ndgxh100,250000,quote,2026-11,our quote,270000,260000\n' \
	>"$tmp/mine/systems.csv"
expect 1 "$SP" hw check "$tmp/mine"; has "systems.csv:2:6(price_lo_usd): 270000 is above the high end 260000"
printf 'id,price_usd,price_kind,price_date,price_source\ndgxh100,-3,quote,2026-11,me\n' >"$tmp/mine/systems.csv"
expect 1 "$SP" predict --system dgxh100 --hwdb "$tmp/mine"; has "systems.csv:2:2(price_usd): -3 is negative"
rm "$tmp/mine/systems.csv"
printf 'id,aliases,kind,read_Bps,node_Bps,latency_s,link,price_usd,unit_B,unit_Bps,price_kind,price_date,price_source,source\n' >"$tmp/mine/storage.csv"
printf 'nas-q,,nas,1e10,,,eth-40g,100000,1e14,5e9,quote,2026-11,our NAS quote,mine\n' >>"$tmp/mine/storage.csv"
expect 0 "$SP" predict --system dgxh100 --nodes 8 --storage nas-q --hwdb "$tmp/mine" --format csv
ok "a shared store: whole units for the first epoch's read rate" -v s="$(col capex_storage_usd "$tmp/out")" \
	-v x="$(col throughput_img_s "$tmp/out")" 'BEGIN { u = int(x * 1.45e11 / 1281167 / 5e9) + 1; exit !(s == u * 100000) }'
printf 'nas-bad,,nas,1e10,,,eth-40g,100000,1e14,5e9,rumour,2026-11,x,mine\n' >>"$tmp/mine/storage.csv"
expect 1 "$SP" hw check "$tmp/mine"; has "storage.csv:3:11(price_kind): 'rumour' is not a price_kind"
# buy vs rent as a month of work: the break-even use and the flip rate within 2% of a buyer's
# spreadsheet rule from the CSV's own terms: the owner's fixed month over the month's GPU-hours (F), the energy
# over a used GPU-hour (E), CoreWeave's rate R from the database: break-even F / (R - E), flip F / u + E
R=$(python3 -c 'import csv; print([r["rent_usd_gpu_h"] for r in csv.DictReader(l for l in open("hwdb/data/systems.csv") if l[0] != "#") if r["id"] == "coreweave-hgx-h100"][0])')
expectw 0 "$SP" compare --rent-decline 0 --systems dgxh100,coreweave-hgx-h100 --gpus 64 --rent-rate "$R" --format csv
ok "break-even use and flip rate within 2% of the spreadsheet rule (R=$R)" -v R="$R" \
	-v om="$(get owned_month_usd dgxh100 "$tmp/out")" -v e="$(get energy_usd dgxh100 "$tmp/out")" \
	-v t="$(get tta_s dgxh100 "$tmp/out")" -v u="$(get utilisation dgxh100 "$tmp/out")" \
	-v be="$(get breakeven_use dgxh100 "$tmp/out")" -v fl="$(get flip_usd_per_gpu_hour dgxh100 "$tmp/out")" \
	'BEGIN { m = 365.25 * 86400 / 12; F = (om - e * u * m / t) / (64 * m / 3600); E = e / (64 * t / 3600)
		b = F / (R - E); f = F / u + E; d1 = be / b - 1; d2 = fl / f - 1
		exit !(R > 1 && d1 < 0.02 && d1 > -0.02 && d2 < 0.02 && d2 > -0.02) }'
# a 3-year reservation at 90% use: one comparison gives the CSV and the sentence (renting wins above the crossing)
expectw 0 "$SP" compare --rent-decline 0 --systems dgxh100,coreweave-hgx-h100 --gpus 64 --rent-term 3y --utilisation 0.9 --format csv
ok "3y at 0.9: the CSV says buying wins below a use under 0.9" -v a="$(get buy_wins_above dgxh100 "$tmp/out")" \
	-v b="$(get breakeven_use dgxh100 "$tmp/out")" 'BEGIN { exit !(a == 0 && b > 0 && b < 0.9) }'
pct=$(awk -v b="$(get breakeven_use dgxh100 "$tmp/out")" 'BEGIN { printf "%.0f", 100 * b }')
expectw 0 "$SP" compare --rent-decline 0 --systems dgxh100,coreweave-hgx-h100 --gpus 64 --rent-term 3y --utilisation 0.9
grep -q "buying wins below about [0-9,.]* runs a month (${pct}% use)" "$tmp/out" || no "3y at 0.9: the sentence's crossing is not the CSV's ${pct}%"
has "at the stated use renting wins"
grep -q "buying wins at any use" "$tmp/out" && no "3y at 0.9: 'buying wins at any use' beside renting winning"
# the single run rented alone stays available: --rent-session-h 0 pays the set-up on every run
expectw 0 "$SP" compare --rent-decline 0 --systems dgxh100,coreweave-hgx-h100 --gpus 64 --rent-session-h 0; has "rented alone)"
expectw 1 "$SP" compare --rent-decline 0 --systems dgxh100 --gpus 8 --rent-session-h -1; has "rent-session-h"
expect 0 "$SP" predict --system dgxh100 --nodes 1 --format csv
ok "co2_kg = energy at the meter x 0.39 kg/kWh" -v c="$(col co2_kg "$tmp/out")" -v j="$(col energy_J "$tmp/out")" \
	-v p="$(col pue "$tmp/out")" 'BEGIN { x = j / 3.6e6 * p * 0.39; d = c - x; if (d < 0) d = -d; exit !(c > 0 && d < 1e-3 * x) }'
# carbon beside energy in the report (owned options only) and the money inputs' one table in its money rows
rm -rf "$tmp/co2"
"$SP" report --systems dgxh100,coreweave-hgx-h100 --gpus 8 --out "$tmp/co2" >/dev/null 2>&1 || no "report co2"
"$SP" compare --systems dgxh100 --gpus 8 --format csv >"$tmp/co2.csv"
c=$(awk -v c="$(col co2_kg "$tmp/co2.csv")" 'BEGIN { printf "%.2f", c }')
grep -q "^| 8 | dgxh100 | .* | $c |\$" "$tmp/co2/report.md" || no "report: dgxh100's kg CO2e per run $c"
grep -q "^| 8 | coreweave-hgx-h100 | .* | - |\$" "$tmp/co2/report.md" || no "report: a rental has no CO2 of ours"
for f in kwh-price pue facility-price support-frac utilisation amortize-years finance-rate residual runs-per-month \
	rent-session-h grid-carbon store-tb-per-gpu; do
	grep -q "| --$f |" "$tmp/co2/report.md" || no "report: no money row for --$f"
done
# the market as a rental option of its own: every buy-vs-rent line of a bought H100, H200, B200 and GB200 at 64 GPUs
# weighs the market's dated rate (market-*), which is also a row of the table; a market figure is never a
# provider's (the B200 spot floor is market-b200's: aws-p6-b200 has no spot rate)
for c in "dgxh100 H100 market-h100" "hgx-h200 H200 market-h200" "dgxb200 B200 market-b200" "gb200-nvl72 B200 market-gb200"; do
	set -- $c
	expectw 0 "$SP" compare --gpus 64 --systems $1,$3
	grep -q "^  Buy vs rent ($2): a run costs .* owned ($1 .*rented ($3, " "$tmp/out" || no "compare $1: buy vs rent does not weigh $3"
	grep -q "$3" "$tmp/out" || no "compare $1: no row of $3"
done
expect 0 "$SP" hw show market-h100; has "market reference"; has "2026"
expect 0 "$SP" predict --system aws-p6-b200 --nodes 1 --rent-term spot; has "no spot rate"
# a term against the same term: a 1-year reservation is not set beside the on-demand market's low end
expectw 0 "$SP" compare --gpus 64 --systems dgxh100,coreweave-hgx-h100 --rent-term 1y; lacks "at the market's"
# the years: rent that falls 20% a year over the 5-year horizon raises the runs a month owning needs to win
be() { sed -n 's/.*buying wins above about \([0-9,]*\) runs a month.*/\1/p' "$tmp/out" | tr -d ,; }
expectw 0 "$SP" compare --systems dgxh100,coreweave-hgx-h100 --gpus 64 --rent-rate 6.155 --rent-decline 0; b0=$(be)
expectw 0 "$SP" compare --systems dgxh100,coreweave-hgx-h100 --gpus 64 --rent-rate 6.155 --rent-decline 0.2; b2=$(be)
has "averaged over 5 years as rent falls 20% a year"
ok "--rent-decline 0.2 raises the runs a month owning needs ($b0 -> $b2)" -v a="$b0" -v b="$b2" 'BEGIN { exit !(a > 0 && b > a) }'
expectw 1 "$SP" compare --gpus 8 --rent-decline 1; has "rent-decline"
echo "money_cli: done (fail=$fail)"
exit $fail
