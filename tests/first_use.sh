#!/bin/sh
# What a new user still trips on (issue 41), each tried as on a fresh clone: outputs checked before any work,
# conflicting options refused alike, messages that give the true reason and the limit, defaults that offer
# today's products, charts and reports that show what they say. Needs $SCALEPLAN.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
S=${SCALEPLAN:?set SCALEPLAN to the scaleplan binary}
case "$S" in /*) ;; *) S="$PWD/$S" ;; esac
tmp=$(mktemp -d) || exit 2
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
fail=0
bad() { echo "FAIL $*"; fail=1; }

# refused NAME RC PATTERN CMD...: exit RC at once (nothing on stdout) and PATTERN (grep -E) on stderr
refused() {
	name=$1 want=$2 pat=$3
	shift 3
	"$@" >out.txt 2>err.txt
	rc=$?
	[ $rc -eq "$want" ] && grep -Eq -- "$pat" err.txt || bad "$name: exit $rc (want $want and /$pat/): $(head -c 300 err.txt)"
	[ -s out.txt ] && bad "$name: did the work before refusing its output: $(head -c 200 out.txt)"
	return 0
}

# ---- outputs: checked before any work; a read-only file is left as it was ----
echo keep >ro.csv
chmod 444 ro.csv
mkdir adir
: >afile
refused "compare --out ro.csv (mode 444)" 1 "ro.csv.*read-only" "$S" compare --gpus 8 --format csv --out ro.csv
[ "$(cat ro.csv)" = keep ] || bad "compare replaced the read-only ro.csv"
[ "$(stat -c %a ro.csv)" = 444 ] || bad "compare changed ro.csv's mode to $(stat -c %a ro.csv)"
refused "compare --out nodir/x.csv" 1 "nodir/x.csv" "$S" compare --gpus 8 --out nodir/x.csv
refused "compare --out adir" 1 "adir.*directory" "$S" compare --gpus 8 --out adir
refused "sweep --out ro.csv" 1 "read-only" "$S" sweep --systems dgxh100 --quiet --out ro.csv
refused "sweep --out nodir/x.csv" 1 "nodir" "$S" sweep --systems dgxh100 --quiet --out nodir/x.csv
refused "calibrate --out nodir/p.csv" 1 "nodir/p.csv" "$S" calibrate --builtin --out nodir/p.csv
refused "calibrate --out ro.csv" 1 "read-only" "$S" calibrate --builtin --out ro.csv
refused "validate --detail ro.csv" 1 "read-only" "$S" validate --detail ro.csv
refused "validate --intervals nodir/i.csv" 1 "nodir" "$S" validate --intervals nodir/i.csv
refused "plot --out nodir/p" 1 "nodir" "$S" plot --out nodir/p ro.csv
refused "sim --trace nodir/t.json" 1 "nodir" "$S" sim --system dgxh100 --trace nodir/t.json
refused "report --out nodir/r" 1 "nodir/r" "$S" report --systems dgxh100 --gpus 8 --out nodir/r
refused "report --out afile" 1 "afile" "$S" report --systems dgxh100 --gpus 8 --out afile
refused "hw import --out afile" 1 "afile" "$S" hw import x.json --out afile
[ "$(cat ro.csv)" = keep ] || bad "a command replaced the read-only ro.csv"
# campaign: README "Exit status": a folder that is not there, or a file where a folder belongs, is 1
refused "campaign --out nodir/camp --dry-run" 1 "nodir/camp" "$S" campaign --out nodir/camp --dry-run
refused "campaign --out afile --dry-run" 1 "afile" "$S" campaign --out afile --dry-run
[ -s afile ] && bad "campaign wrote into the file afile"
# a writable output still works, and /dev/null too
"$S" compare --gpus 8 --systems dgxh100 --format csv --out ok.csv >/dev/null 2>err.txt && [ -s ok.csv ] ||
	bad "compare --out ok.csv: $(cat err.txt)"
"$S" compare --gpus 8 --systems dgxh100 --format csv --out /dev/null >/dev/null 2>err.txt ||
	bad "compare --out /dev/null: $(cat err.txt)"

# ---- options that contradict each other: exit 1 naming both, in every command ----
refused "predict --global-batch --batch-per-gpu" 1 "--global-batch.*--batch-per-gpu.*not both" \
	"$S" predict --system dgxh100 --global-batch 4096 --batch-per-gpu 256
refused "sim --global-batch --batch-per-gpu" 1 "--global-batch.*--batch-per-gpu.*not both" \
	"$S" sim --system dgxh100 --global-batch 4096 --batch-per-gpu 256
refused "sweep --global-batch --batch-per-gpu" 1 "--global-batch.*--batch-per-gpu.*not both" \
	"$S" sweep --global-batch 4096 --batch-per-gpu 256 --out s.csv
refused "campaign --run --dry-run" 1 "--run.*--dry-run.*not both" "$S" campaign --out c --run --dry-run
refused "campaign --fit-only --dry-run" 1 "--fit-only.*--dry-run.*not both" "$S" campaign --out c --fit-only --dry-run
[ -e c ] && bad "campaign made c/ before refusing its options"

exit $fail
