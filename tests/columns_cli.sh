#!/bin/sh
# One table of columns drives the CSV header, the CSV cells and the JSON members (plan/plan_row.c, cli/cmd_sim.c,
# common/cols.c): predict's CSV names and JSON members are the same, in the same order (JSON adds staged), with
# the same values; sim's own columns come in the same order in its CSV and in its JSON "sim" object; --columns help
# lists each command's CSV columns in the CSV's order.
# Run by tools/run_tests.sh with SCALEPLAN set; no GPU.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
. "$(dirname "$0")/lib/cli.sh"
command -v python3 >/dev/null || { echo "columns_cli.sh: python3 not installed; skipped"; exit 0; }

for sys in dgxh100 gb200-nvl72 c4140-m; do
	"$SP" predict --system $sys --nodes 2 --format csv >"$tmp/p.csv" || no "predict $sys csv"
	"$SP" predict --system $sys --nodes 2 --format json >"$tmp/p.json" || no "predict $sys json"
	python3 - "$tmp/p.csv" "$tmp/p.json" <<'PY' || no "predict --system $sys: CSV and JSON differ"
import csv, json, math, sys
rows = list(csv.reader(open(sys.argv[1])))
obj = json.load(open(sys.argv[2]))
names = [k for k in obj if k != "staged"]
if rows[0] != names:
    sys.exit("order: csv %s json %s" % (rows[0], names))
for k, v in zip(rows[0], rows[1]):
    j = obj[k]
    if isinstance(j, bool):
        ok = v == ("1" if j else "0")
    elif j is None:
        ok = v == ""
    elif isinstance(j, (int, float)):
        ok = v != "" and math.isclose(float(v), j, rel_tol=1e-3, abs_tol=1e-12)
    else:
        ok = v == j
    if not ok:
        sys.exit("%s: csv %r json %r" % (k, v, j))
PY
done

"$SP" sim --system dgxh100 --nodes 2 --format csv >"$tmp/s.csv" || no "sim csv"
"$SP" sim --system dgxh100 --nodes 2 --format json >"$tmp/s.json" || no "sim json"
"$SP" predict --system dgxh100 --nodes 2 --format csv >"$tmp/p.csv"
python3 - "$tmp/s.csv" "$tmp/s.json" "$tmp/p.csv" <<'PY' || no "sim: CSV and JSON columns differ"
import csv, json, math, sys
head, row = list(csv.reader(open(sys.argv[1])))
obj = json.load(open(sys.argv[2]))
pred = next(csv.reader(open(sys.argv[3])))
n = pred.index("basis")  # predict's first block, then sim's own, then stack
if head[:n] != pred[:n] or head[-1] != "stack":
    sys.exit("sim csv: not predict's first block + its own + stack")
own = [c for c in head[n:-1] if not c.startswith("model_")]
js = [k for k in obj["sim"] if k in own]
if js != own:
    sys.exit("order: csv %s json %s" % (own, js))
for k in own:
    if k == "sim_wall_s":  # the wall time of each run, not a result
        continue
    v, j = row[head.index(k)], obj["sim"][k]
    if not math.isclose(float(v), j, rel_tol=1e-3):
        sys.exit("%s: csv %r json %r" % (k, v, j))
for k in ("throughput_img_s", "tta_s", "iter_s"):  # the simulated figures in predict's columns
    if not math.isclose(float(row[head.index(k)]), obj["sim"][k], rel_tol=1e-3):
        sys.exit("%s: csv %r json %r" % (k, row[head.index(k)], obj["sim"][k]))
PY

# --columns help lists each command's CSV columns, in the CSV's order, from the tables that write them
names() { awk '/^  [a-z]/ { print $1 }' "$1" | paste -sd, -; }
"$SP" predict --columns help >"$tmp/h.txt" || no "predict --columns help: exit $?"
[ "$(names "$tmp/h.txt")" = "$(head -1 "$tmp/p.csv" | tr -d '\r')" ] || no "predict --columns help differs from its CSV header"
"$SP" compare --gpus 8 --systems dgxh100 --format csv >"$tmp/c.csv" || no "compare csv"
"$SP" compare --columns help >"$tmp/h.txt" || no "compare --columns help: exit $?"
[ "$(names "$tmp/h.txt")" = "$(head -1 "$tmp/c.csv" | tr -d '\r')" ] || no "compare --columns help differs from its CSV header"
grep -q '^  tta_ratio  *time to accuracy over the pick' "$tmp/h.txt" || no "compare --columns help: no units"
"$SP" sim --columns help >"$tmp/h.txt" || no "sim --columns help: exit $?"
[ "$(names "$tmp/h.txt")" = "$(head -1 "$tmp/s.csv" | tr -d '\r')" ] || no "sim --columns help differs from its CSV header"
"$SP" sweep --columns help >"$tmp/h.txt" || no "sweep --columns help: exit $?"
[ "$(names "$tmp/h.txt")" = "$(head -1 "$tmp/c.csv" | tr -d '\r')" ] || no "sweep --columns help differs from compare's CSV header"
exit $fail
