#!/bin/sh
# tools/public_api.sh counts a function as used by another folder only where that folder's code names it:
# a name in a comment, a string or a character literal is no use (tools/c_code.sh). Checked on a small tree
# of its own: folder a/ declares five functions, folder b/ names each in one way; only the call and the
# function pointer count. Run by tools/run_tests.sh.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # WHAT EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAIL: $1: expected '$2', got '$3'"; fail=1; fi
}
mkdir -p "$tmp/tools" "$tmp/a" "$tmp/b" "$tmp/tests" || exit 2
cp "$root/tools/public_api.sh" "$root/tools/protos.sh" "$root/tools/c_code.sh" "$tmp/tools/" || exit 2
cat >"$tmp/a/a.h" <<'EOF'
/* a/a.h: a_in_comment(void) here names nothing */
int a_called(int x);
int a_pointer(int x);
int a_in_comment(int x);
int a_in_string(int x);
int a_in_tests(int x);
EOF
cat >"$tmp/b/b.c" <<'EOF'
#include "a/a.h"
/* a_in_comment: a block comment,
 * over two lines: a_in_comment */
static int (*f)(int) = a_pointer; // a_in_comment in a line comment
int b(void)
{
	const char *s = "a_in_string(1) \" a_in_string", *q = "/* a_called";
	char c = '"';
	return a_called(1) + f(2) + (s[0] == c) + (q[0] == '\'');
}
EOF
echo 'int t(void) { return a_in_tests(1); }' >"$tmp/tests/t.c"

out=$(sh "$tmp/tools/public_api.sh" a/a.h)
check "a call counts" "a/a.h a_called b" "$(echo "$out" | grep -w a_called | sed 's/ *$//')"
check "a function pointer counts" "a/a.h a_pointer b" "$(echo "$out" | grep -w a_pointer | sed 's/ *$//')"
check "comments do not count" "a/a.h a_in_comment -" "$(echo "$out" | grep -w a_in_comment)"
check "strings do not count" "a/a.h a_in_string -" "$(echo "$out" | grep -w a_in_string)"
check "tests/ does not count" "a/a.h a_in_tests -" "$(echo "$out" | grep -w a_in_tests)"
sh "$tmp/tools/public_api.sh" --internal a/a.h >/dev/null
check "--internal exits 1 when some are unused" 1 $?

# c_code.sh keeps every line where it was (a block comment's breaks too), so line numbers still hold
check "lines kept" "$(wc -l <"$tmp/b/b.c")" "$(sh "$root/tools/c_code.sh" "$tmp/b/b.c" | wc -l)"
check "code after a comment kept" 'static int (*f)(int) = a_pointer; ' \
	"$(sh "$root/tools/c_code.sh" "$tmp/b/b.c" | sed -n 4p)"
[ $fail -eq 0 ] || exit 1
echo "public_api.sh: only code counts"
