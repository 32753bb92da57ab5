#!/bin/sh
# Every option a command's --help lists is accepted by that command, so the help cannot drift from the
# option tables:
#   1. each `--name` in `scaleplan CMD --help` is known to CMD's getopt (no "unrecognized option"), checked in
#      a few processes per command;
#   2. for the commands built on the shared scenario options (predict, compare, sweep, sim, report), each
#      listed option is given a sample value on top of a working command line, which must still exit 0
#      (compare refusing --nodes it lists is the kind of drift this catches).
# Also: the automatic batch is described as it behaves (the batch of least time to accuracy).
# Needs $SCALEPLAN.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
S=${SCALEPLAN:?set SCALEPLAN to the scaleplan binary}
case "$S" in /*) ;; *) S="$PWD/$S" ;; esac
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
fail=0

# the options a command's help offers as its own: text in backquotes and other commands' lines
# ("`predict --params`", "scaleplan predict --hwdb DIR ...", "scaleplan-train --load") are references
opts_of() {
	"$S" "$1" --help 2>/dev/null | sed -e 's/`[^`]*`//g' -e "s/scaleplan $1 /SELF /" -e 's/scaleplan.*$//' |
		grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}

# 1. recognised by getopt: the listed options in one process, each followed by "1" (a required argument takes
# it, a flag leaves it as an argument, checked only after the options) and a final --help that stops the
# command before it checks its arguments or does any work. An option that refuses "1" stops the parse naming
# itself (it was recognised): the next process takes the options after it. An unknown one is named by getopt
# ("unrecognized option") or by the full-name rule ("no such option").
known() { # CMD OPT...: the options left, checked from the first
	cmd=$1
	shift
	while [ $# -gt 0 ]; do
		line=$(for o in "$@"; do printf '%s 1 ' "$o"; done)
		# shellcheck disable=SC2086 # the option names have no blanks
		"$S" "$cmd" $line --help >/dev/null 2>err.txt && return
		if grep -q -e "unrecognized option" -e "ambiguous" -e "no such option" err.txt; then
			echo "FAIL $cmd --help lists an option $cmd does not know: $(head -1 err.txt)"
			fail=1
			return
		fi
		# the option that refused its "1" (named first in the message); the parse goes on after it
		bad=$(head -1 err.txt | grep -o -- '--[a-z][a-z0-9-]*' | head -1)
		while [ $# -gt 0 ] && [ "$1" != "$bad" ]; do shift; done
		[ $# -gt 0 ] || { echo "FAIL $cmd: '$(head -1 err.txt)' names no option of the list"; fail=1; return; }
		shift
	done
}
for cmd in hw predict compare sweep sim calibrate campaign validate report plot; do
	n=$(opts_of "$cmd" | grep -vx -e --help | wc -l)
	[ "$n" -gt 0 ] || { echo "FAIL $cmd --help lists no option"; fail=1; continue; }
	# shellcheck disable=SC2046
	known "$cmd" $(opts_of "$cmd" | grep -vx -e --help)
done

# 2. accepted with a value: a sample for each shared option (one that works on dgxh100)
sample() {
	case "$1" in
	--system) echo dgxh100 ;; --gpu) echo H100-SXM5-80GB ;; --gpus-per-node) echo 8 ;;
	--intra) echo nvswitch3 ;; --host-link) echo pcie5-x16 ;; --host-links) echo 8 ;;
	--cpu) echo "Xeon Platinum 8480C" ;; --cpus-per-node) echo 2 ;; --fabric) echo ib-ndr-fattree ;;
	--nics-per-node) echo 8 ;; --nodes) echo 2 ;; --batch-per-gpu) echo 128 ;; --global-batch) echo 1024 ;;
	--precision) echo bf16 ;; --measured) echo 8:256:25000 ;; --epochs) echo 40 ;; --images) echo 1281167 ;;
	--target-top1) echo 0.759 ;; --data) echo synthetic ;; --storage) echo local-nvme ;; --stack) echo ngc-mlperf ;;
	--param) echo eff_compute=0.8 ;; --profile) echo "$tmp/profile.csv" ;; --hwdb) echo "$tmp/hwdb" ;;
	--kwh-price) echo 0.1 ;; --amortize-years) echo 4 ;; --runs-per-month) echo 10 ;; --rent-term) echo 1y ;;
	--measured-epochs) echo 3264:41.5 ;; --measured-stack) echo ngc-mlperf ;; --measured-system) echo dgxh100 ;; --rank-by) echo tta ;; --cost) echo capex ;; --budget) echo 1e9 ;;
	--deadline) echo 30d ;; --format) echo table ;; --systems) echo dgxh100 ;; --gpus) echo 8 ;;
	*) return 1 ;;
	esac
}
# flags that take no value
flag() { case "$1" in --partial-nodes | --extrapolate | --quiet | --params | --help) return 0 ;; *) return 1 ;; esac; }
mkdir hwdb
cp "$here/hwdb/data/stacks.csv" hwdb/ || exit 2   # an overlay that replaces the stacks with themselves
printf 'param,value\neff_compute,0.8\n' >profile.csv
run_with() { # CMD OPT: the command's working line plus OPT (and its sample value)
	cmd=$1 o=$2
	rm -rf rep out.csv
	case "$cmd" in
	predict) set -- "$S" predict --system dgxh100 ;;
	compare) set -- "$S" compare --gpus 8 --systems dgxh100 ;;
	sweep) set -- "$S" sweep --nodes 1 --quiet --out out.csv
	       [ "$o" = --system ] || set -- "$@" --systems dgxh100 ;;
	sim) set -- "$S" sim --system dgxh100 ;;
	report) set -- "$S" report --systems dgxh100 --gpus 8 --out rep ;;
	esac
	# an option of the working line itself is accepted there (given twice it is refused: tests/new_user4.sh)
	case " $* " in *" $o "*) "$@"; return ;; esac
	if flag "$o"; then "$@" "$o"; else "$@" "$o" "$(sample "$o")"; fi
}
for cmd in predict compare sweep sim report; do
	for o in $(opts_of "$cmd"); do
		case "$o" in --out | --help | --trace | --trace-window) continue ;; esac  # in the working line / writes a file
		if ! flag "$o" && ! sample "$o" >/dev/null; then continue; fi  # the command's own options: step 1
		run_with "$cmd" "$o" >out.txt 2>err.txt
		rc=$?
		[ $rc -eq 0 ] || { echo "FAIL $cmd --help lists $o, but $cmd $o $(sample "$o") exits $rc: $(head -1 err.txt)"; fail=1; }
	done
done

# the automatic batch as it behaves: the help says "least time to accuracy", and predict's pick is one
for cmd in predict compare sweep sim; do
	"$S" "$cmd" --help | tr '\n' ' ' | grep -q "least time to accuracy" ||
		{ echo "FAIL $cmd --help does not describe the automatic batch as the batch of least time to accuracy"; fail=1; }
	"$S" "$cmd" --help | grep -q "largest of 256" && { echo "FAIL $cmd --help still says 'largest of 256..8'"; fail=1; }
done
# a count README or docs/ give of the model's parameters is predict --params's
n=$(cat "$here/README.md" "$here"/docs/*.md | grep -o "the model's [0-9]* free parameters" | grep -o '[0-9][0-9]*')
got=$("$S" predict --params | tail -n +2 | wc -l)
for k in $n; do [ "$k" -eq "$got" ] || { echo "FAIL README.md says $k free parameters; predict --params lists $got"; fail=1; }; done
[ $fail -eq 0 ] && echo "help_options: every listed option accepted"
exit $fail
