#!/bin/sh
# Every command shown in README.md's code blocks that needs no GPU is run, in order, from a fresh copy of
# the repository (the files git tracks, nothing else) and must exit 0; the README and the program cannot
# drift apart. Rules, not a list of commands:
#   - a line that runs the engine (scaleplan-train, mpirun, srun, sbatch) needs a GPU: it is skipped, and so
#     is the rest of its code block (those lines read the GPU runs' output);
#   - `make test...` is this check's own caller: skipped;
#   - without gnuplot on the PATH, the lines that draw (`scaleplan plot`, `scaleplan report`) are skipped.
# The build that make test made ($BUILD) is carried into the copy with the sources' times kept, so
# `make plan` there checks what it would do without building everything again. Also checks that the list
# of predict's CSV columns in docs/usage.md is the header predict writes. Needs $SCALEPLAN and $BUILD.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-build}
S=${SCALEPLAN:-$here/$B/scaleplan}
tmp=$(mktemp -d) || exit 2
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT   # KEEP=1: leave the copy and its log for a look
fail=0

# the fresh copy: what git tracks, as it is in the working tree; tar keeps the files' times
clone="$tmp/clone"
mkdir "$clone"
(cd "$here" && git ls-files -z | tar --null -T - -cf -) 2>"$tmp/tar.err" | tar -xf - -C "$clone" ||
	{ echo "FAIL: cannot copy the tracked files: $(cat "$tmp/tar.err")"; exit 1; }
[ -f "$clone/README.md" ] || { echo "FAIL: README.md not tracked"; exit 1; }
mkdir -p "$clone/build"
cp -pR "$here/$B/." "$clone/build/"

# README.md -> a script: one checked command per line of each runnable ```sh block, with its README line
have_gnuplot=0
command -v gnuplot >/dev/null 2>&1 && have_gnuplot=1
awk -v gp=$have_gnuplot '
	/^```sh[ \t]*$/ { inblock = 1; gpu = 0; next }
	inblock && /^```/ { inblock = 0; next }
	!inblock || gpu { next }
	{
		line = $0
		if (line ~ /(^|[ \/])(scaleplan-train|mpirun|srun|sbatch)([ ]|$)/) {
			gpu = 1
			printf "echo \"readme_commands.sh: README.md:%d: needs a GPU: it and the rest of its block skipped\"\n", NR
			next
		}
		if (line ~ /^[ \t]*(#|$)/) next
		if (line ~ /^[ \t]*make[ \t]+([A-Z_]+=[^ ]*[ \t]+)*test/) next
		if (!gp && line ~ /scaleplan[ \t]+(plot|report)[ \t]/) next
		gsub(/\047/, "\047\\\047\047", line)
		printf "printf \"%%s\\n\" \047README.md:%d: %s\047 >>\"$log\"; eval \047%s\047 >>\"$log\" 2>&1 || { rc=$?; echo \"FAIL README.md:%d: exit $rc: \047%s\047\"; tail -5 \"$log\"; fail=1; }\n", NR, line, line, NR, line
	}
	END { if (inblock) print "echo \"FAIL: README.md ends inside a code block\"; fail=1" }
' "$clone/README.md" >"$tmp/run.sh"
[ -s "$tmp/run.sh" ] || { echo "FAIL: no command found in README.md's code blocks"; exit 1; }
printf 'exit $fail\n' >>"$tmp/run.sh"
# as a user's shell would run them: no make variables from the make that runs this test (BUILD, MAKEFLAGS)
(cd "$clone" && env -u BUILD -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SCALEPLAN log="$tmp/log" fail=0 \
	sh -c '. "$0"' "$tmp/run.sh") || fail=1

# the CSV columns docs/usage.md lists are predict's header
want=$(grep -o '^`system,gpu,nodes,[a-z_0-9A-Z,]*`$' "$here/docs/usage.md" | tr -d '`')
got=$("$S" predict --system dgxh100 --format csv | head -1 | tr -d '\r')
[ -n "$want" ] && [ "$want" = "$got" ] || { echo "FAIL: docs/usage.md's CSV columns differ from predict's header"; \
	echo "  docs:    $want"; echo "  predict: $got"; fail=1; }
exit $fail
