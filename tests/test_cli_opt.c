/* cli/opt.c, the option parser every command's table goes through: each kind stores what it should and
 * refuses what it should (exit 1), an alias is the option it stands for (its abbreviation not ambiguous),
 * --help stops the parse, arguments after the options are counted, and the help prints the table's text.
 * The parser is compiled into this test (cli/ is not in the library).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/opt.c"

#include "tests/test.h"

typedef struct vals {
	int i;
	long l;
	double d, frac;
	const char *s, *e;
	bool f, on;
	int calls;
	const char *called_with;
} vals;

static const char *const words[] = {"table", "csv", "json", NULL};

static int count_call(void *ctx, const cli_opt *o, const char *arg)
{
	vals *v = ctx;
	(void)o;
	v->calls++;
	v->called_with = arg;
	return strcmp(arg, "bad") == 0 ? -1 : 0;
}

static int nusage;
static void usage(FILE *out)
{
	(void)out;
	nusage++;
}

static void table(vals *v, cli_opt *t)
{
	const cli_opt own[] = {
		CLI_O_TEXT("heading:\n"),
		CLI_O_INT("count", &v->i, 1, 10, "an integer 1..10", "  --count N\n"),
		CLI_O_LONG("seed", &v->l, 0, 4294967295.0, "a seed", NULL),
		CLI_O_DBL("rate", &v->d, 0, 1e6, "a rate", "  --rate R\n"),
		{.kind = CLI_OPT_DOUBLE, .name = "utilisation", .dest = &v->frac, .lo = 0, .hi = 1, .open_lo = true,
		 .want = "a fraction 0 < F <= 1", .help = "  --utilisation F\n"},
		{.kind = CLI_OPT_DOUBLE, .name = "utilization", .alias_of = "utilisation", .dest = &v->frac, .lo = 0,
		 .hi = 1, .open_lo = true, .want = "a fraction 0 < F <= 1"},
		{.kind = CLI_OPT_STRING, .name = "out", .short_name = 'o', .dest = &v->s, .help = "  --out FILE\n"},
		CLI_O_ENUM("format", &v->e, words, "table, csv or json", "  --format F\n"),
		CLI_O_FLAG("force", &v->f, "  --force\n"),
		CLI_O_ONOFF("warmup", &v->on, "  --warmup on|off\n"),
		CLI_O_CALL("measured", count_call, v, "  --measured X\n"),
		CLI_O_HELP,
		CLI_O_END,
	};
	memcpy(t, own, sizeof own);
}

/* Parses the words of line (at most 30) with v's table; the exit code, and p for what came after. */
static int parse(vals *v, cli_parse *p, int max_args, const char *line)
{
	static char buf[512];
	static char *argv[32];
	static cli_opt t[16];
	int argc = 0;
	*v = (vals){0};
	table(v, t);
	*p = (cli_parse){.cmd = "test", .tables = {t}, .usage = usage, .max_args = max_args};
	snprintf(buf, sizeof buf, "test %s", line);
	for (char *save = NULL, *w = strtok_r(buf, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	return cli_opt_parse(p, argc, argv);
}

static void test_kinds(test_ctx *t)
{
	vals v;
	cli_parse p;
	int rc = parse(&v, &p, 0, "--count 7 --seed 4294967295 --rate 2.5e3 --utilisation 0.5 -o x.csv --format csv "
				"--force --warmup off --measured 8:256:1");
	TEST_CHECK(t, rc == EXIT_OK && !p.done, "a good line parses (rc %d)", rc);
	TEST_CHECK(t, v.i == 7 && v.l == 4294967295L && v.d == 2500 && v.frac == 0.5, "numbers %d %ld %g %g", v.i, v.l,
		   v.d, v.frac);
	TEST_CHECK(t, v.s && strcmp(v.s, "x.csv") == 0, "short -o stores the string");
	TEST_CHECK(t, v.e == words[1], "enum stores the choice itself");
	TEST_CHECK(t, v.f && !v.on, "flag set, off read as false");
	TEST_CHECK(t, v.calls == 1 && strcmp(v.called_with, "8:256:1") == 0, "the callback got its argument");
	rc = parse(&v, &p, 0, "--count=3 --warmup on");
	TEST_CHECK(t, rc == EXIT_OK && v.i == 3 && v.on, "--name=value and on");
}

static void test_refusals(test_ctx *t)
{
	static const char *const bad[] = {
		"--count 0",  "--count 11",     "--count 3x",     "--count ''",   "--seed -1",     "--rate nan",
		"--rate inf", "--rate 1e7",     "--utilisation 0", "--utilization 1.5", "--format xml",
		"--warmup yes", "--measured bad", "--no-such",   "--count",      "stray",
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		vals v;
		cli_parse p;
		int rc = parse(&v, &p, 0, bad[k]);
		TEST_CHECK(t, rc == EXIT_INPUT && !p.done, "'%s' refused with exit 1 (got %d)", bad[k], rc);
	}
}

static void test_alias_help_args(test_ctx *t)
{
	vals v;
	cli_parse p;
	int rc = parse(&v, &p, 0, "--utilization 0.25");
	TEST_CHECK(t, rc == EXIT_OK && v.frac == 0.25, "the alias stores into the same place");
	rc = parse(&v, &p, 0, "--util 0.75");
	TEST_CHECK(t, rc == EXIT_INPUT, "a shortened name is refused, not taken as the option it starts (got %d)", rc);
	rc = parse(&v, &p, 0, "--utilisation=0.75");
	TEST_CHECK(t, rc == EXIT_OK && v.frac == 0.75, "the full name with '=' is taken");
	nusage = 0;
	rc = parse(&v, &p, 0, "--help --count 0");
	TEST_CHECK(t, rc == EXIT_OK && p.done && nusage == 1, "--help: usage once, done, exit 0 before a bad value");
	rc = parse(&v, &p, 2, "a --force b");
	TEST_CHECK(t, rc == EXIT_OK && p.nargs == 2 && strcmp(p.args[0], "a") == 0 && strcmp(p.args[1], "b") == 0 && v.f,
		   "arguments after the options, in order (%d)", p.nargs);
	rc = parse(&v, &p, 1, "a b");
	TEST_CHECK(t, rc == EXIT_INPUT, "more arguments than allowed refused");
}

static void test_help_text(test_ctx *t)
{
	vals v;
	cli_opt tab[16];
	char *buf = NULL;
	size_t len = 0;
	table(&v, tab);
	FILE *f = open_memstream(&buf, &len);
	cli_opt_help(f, tab, "rate,force");
	fclose(f);
	TEST_CHECK(t, strstr(buf, "heading:\n  --count N\n  --utilisation F\n  --out FILE\n") != NULL,
		   "help in table order: %s", buf);
	TEST_CHECK(t, !strstr(buf, "--rate") && !strstr(buf, "--force") && strstr(buf, "--warmup"),
		   "omitted options left out, the others kept");
	free(buf);
	struct option lo[16];
	int n = cli_opt_longopts(tab, 500, lo, 0, 16);
	int ut = -1, uz = -1;
	for (int i = 0; i < n; i++) {
		if (strcmp(lo[i].name, "utilisation") == 0)
			ut = lo[i].val;
		if (strcmp(lo[i].name, "utilization") == 0)
			uz = lo[i].val;
	}
	TEST_CHECK(t, n == 11 && ut == uz && ut > 0, "getopt table: %d options, alias shares its value (%d, %d)", n, ut, uz);
}

int main(void)
{
	test_ctx t = {0};
	test_kinds(&t);
	test_refusals(&t);
	test_alias_help_args(&t);
	test_help_text(&t);
	return test_report(&t);
}
