/* cli/opt.c: one option parser for every command. A command describes its options in a table (cli_opt:
 * long name, short letter, kind, where the value goes, its range and help text), the way git's
 * parse-options does; cli_opt_parse runs getopt_long over the tables, checks each value against its kind
 * and range, prints the one message shape a bad value gets, and cli_opt_help prints the tables' help text.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

/* getopt_long's value of table t's entry i: short letters stay themselves, long-only options count from
 * CLI_OPT_VAL_BASE, 256 values a table. */
enum { CLI_OPT_VAL_BASE = 3000 };

static bool takes_arg(const cli_opt *o)
{
	return o->kind != CLI_OPT_FLAG && o->kind != CLI_OPT_HELP && !(o->kind == CLI_OPT_CALL && o->no_arg);
}

static bool is_option(const cli_opt *o)
{
	return o->kind != CLI_OPT_TEXT && o->name;
}

/* The one message of a bad value; an alias is named as the option it stands for. */
static int bad_value(const char *cmd, bool got_style, const cli_opt *o, const char *arg)
{
	const char *name = o->alias_of ? o->alias_of : o->name;
	if (got_style)
		fprintf(stderr, "scaleplan %s: --%s: expected %s, got '%s'\n", cmd, name, o->want, arg);
	else
		fprintf(stderr, "scaleplan %s: --%s '%s': expected %s\n", cmd, name, arg, o->want);
	return -1;
}

int cli_opt_bad(const char *cmd, const cli_opt *o, const char *arg)
{
	return bad_value(cmd, false, o, arg);
}

int cli_parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* Stores arg into o's destination as o's kind says; -1 with the message printed when it does not fit. */
static int opt_apply(const char *cmd, bool got_style, const cli_opt *o, const char *arg)
{
	long v;
	double d;
	switch (o->kind) {
	case CLI_OPT_FLAG: *(bool *)o->dest = true; return 0;
	case CLI_OPT_STRING: *(const char **)o->dest = arg; return 0;
	case CLI_OPT_INT:
	case CLI_OPT_LONG:
		if (cli_parse_long(arg, (long)o->lo, (long)o->hi, &v))
			return bad_value(cmd, got_style, o, arg);
		if (o->kind == CLI_OPT_INT)
			*(int *)o->dest = (int)v;
		else
			*(long *)o->dest = v;
		return 0;
	case CLI_OPT_DOUBLE:
		if (cli_parse_double(arg, o->lo, o->hi, &d) || (o->open_lo && d == o->lo) || (o->open_hi && d == o->hi))
			return bad_value(cmd, got_style, o, arg);
		*(double *)o->dest = d;
		return 0;
	case CLI_OPT_ENUM:
		for (int i = 0; o->choices[i]; i++)
			if (strcmp(arg, o->choices[i]) == 0) {
				*(const char **)o->dest = o->choices[i];
				return 0;
			}
		return bad_value(cmd, got_style, o, arg);
	case CLI_OPT_ONOFF:
		if (strcmp(arg, "on") && strcmp(arg, "off"))
			return bad_value(cmd, got_style, o, arg);
		*(bool *)o->dest = strcmp(arg, "on") == 0;
		return 0;
	case CLI_OPT_CALL: return o->fn(o->ctx, o, arg);
	default: return 0;
	}
}

/* The entry getopt reports for table[i]: the option an alias stands for (one entry stores both), else
 * itself. */
static int canonical(const cli_opt *table, int i)
{
	if (!table[i].alias_of)
		return i;
	for (int k = 0; table[k].kind != CLI_OPT_END; k++)
		if (is_option(&table[k]) && strcmp(table[k].name, table[i].alias_of) == 0)
			return k;
	return i;
}

/* The getopt_long tables of p: every table's options in order, then {0}; the short letters in shorts. */
static struct option *build_longopts(const cli_parse *p, char *shorts, size_t len_B)
{
	int n = 0, ns = 0;
	for (int t = 0; t < CLI_OPT_MAX_TABLES && p->tables[t]; t++)
		for (const cli_opt *o = p->tables[t]; o->kind != CLI_OPT_END; o++)
			n += is_option(o);
	struct option *lo = xcalloc((size_t)n + 1, sizeof *lo);
	n = 0;
	for (int t = 0; t < CLI_OPT_MAX_TABLES && p->tables[t]; t++)
		for (int i = 0; p->tables[t][i].kind != CLI_OPT_END; i++) {
			const cli_opt *o = &p->tables[t][i];
			if (!is_option(o))
				continue;
			int val = o->short_name ? o->short_name : CLI_OPT_VAL_BASE + 256 * t + canonical(p->tables[t], i);
			lo[n++] = (struct option){o->name, takes_arg(o) ? required_argument : no_argument, NULL, val};
			if (o->short_name && (size_t)ns + 3 < len_B) {
				shorts[ns++] = (char)o->short_name;
				if (takes_arg(o))
					shorts[ns++] = ':';
			}
		}
	shorts[ns] = '\0';
	return lo;
}

/* The entry getopt_long's value c stands for, NULL for none. */
static const cli_opt *find_opt(const cli_parse *p, int c)
{
	if (c >= CLI_OPT_VAL_BASE) {
		int t = (c - CLI_OPT_VAL_BASE) / 256, i = (c - CLI_OPT_VAL_BASE) % 256;
		return t < CLI_OPT_MAX_TABLES && p->tables[t] ? &p->tables[t][i] : NULL;
	}
	for (int t = 0; t < CLI_OPT_MAX_TABLES && p->tables[t]; t++)
		for (const cli_opt *o = p->tables[t]; o->kind != CLI_OPT_END; o++)
			if (is_option(o) && o->short_name == c)
				return o;
	return NULL;
}

/* Options that answer one question, so that given together one would be ignored without a word: refused
 * with both named wherever a command takes both. */
static const struct cli_conflict {
	const char *a, *b, *why;
} cli_opt_conflicts[] = {
	{"runs-per-month", "utilisation",
	 "both say how the owner's month is shared among runs (--runs-per-month: among N runs; --utilisation: by "
	 "the share of time the cluster works); give one"},
};

/* What the user gave, to find an option given twice and options that conflict. */
typedef struct opt_given {
	const char *name; /* the option's own name (an alias: the option it stands for) */
	const char *arg;
} opt_given;

static const char *given_arg(const opt_given *g, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(g[i].name, name) == 0)
			return g[i].arg;
	return NULL;
}

/* Records o given with arg in g; an option with a value given twice (and not repeatable) is refused with
 * both values, as the last silently winning would hide a typo. -1 with the message printed. */
static int note_given(const cli_parse *p, opt_given *g, int *n, const cli_opt *o, const char *arg)
{
	const char *name = o->alias_of ? o->alias_of : o->name;
	const char *before = given_arg(g, *n, name);
	if (before && takes_arg(o) && !o->repeatable) {
		fprintf(stderr, "scaleplan %s: --%s given twice ('%s', then '%s'): give it once\n", p->cmd, name, before,
			arg);
		return -1;
	}
	if (!before)
		g[(*n)++] = (opt_given){name, arg ? arg : ""};
	return 0;
}

static int check_conflicts(const cli_parse *p, const opt_given *g, int n)
{
	for (size_t i = 0; i < sizeof cli_opt_conflicts / sizeof cli_opt_conflicts[0]; i++) {
		const struct cli_conflict *c = &cli_opt_conflicts[i];
		const char *a = given_arg(g, n, c->a), *b = given_arg(g, n, c->b);
		if (a && b) {
			fprintf(stderr, "scaleplan %s: --%s %s and --%s %s: %s\n", p->cmd, c->a, a, c->b, b, c->why);
			return -1;
		}
	}
	return 0;
}

/* What a command does with an option getopt did not know (getopt named it already). */
static int unknown(const cli_parse *p)
{
	if (p->usage_on_error && p->usage)
		p->usage(stderr);
	else
		fprintf(stderr, "scaleplan %s: see `scaleplan %s --help`\n", p->cmd, p->cmd);
	return EXIT_INPUT;
}

/* true (message printed) when the long option getopt_long just matched as name was typed shorter: only the
 * full name is taken (`sweep --gpus 8` ran as --gpus-per-node 8 with no word). */
static bool abbreviated(const cli_parse *p, int argc, char **argv, const char *name)
{
	const char *typed;
	int len;
	if (!opt_shortened(argc, argv, name, &typed, &len))
		return false;
	fprintf(stderr, "scaleplan %s: --%.*s: no such option (options are taken by their full name only: did you "
			"mean --%s?)\n", p->cmd, len, typed, name);
	return true;
}

int cli_opt_parse(cli_parse *p, int argc, char **argv)
{
	char shorts[64];
	struct option *lo = build_longopts(p, shorts, sizeof shorts);
	opt_given *given = xcalloc((size_t)argc + 1, sizeof *given);
	int c, rc = EXIT_OK, ngiven = 0;
	p->done = false;
	optind = 0; /* glibc: start afresh, whatever a parse before left */
	int li = -1;
	while ((c = getopt_long(argc, argv, shorts, lo, &li)) != -1) {
		const cli_opt *o = find_opt(p, c);
		if (!o) {
			rc = unknown(p);
			goto out;
		}
		if (li >= 0 && abbreviated(p, argc, argv, lo[li].name)) {
			rc = EXIT_INPUT;
			goto out;
		}
		li = -1;
		if (o->kind == CLI_OPT_HELP) {
			if (p->usage)
				p->usage(stdout);
			p->done = true;
			goto out;
		}
		int arc = note_given(p, given, &ngiven, o, optarg) ? -1 : opt_apply(p->cmd, p->got_style, o, optarg);
		if (arc < 0) {
			rc = EXIT_INPUT;
			goto out;
		}
		if (arc > 0) { /* it printed what was asked (--columns help): nothing more to do, as after --help */
			p->done = true;
			goto out;
		}
	}
	if (check_conflicts(p, given, ngiven)) {
		rc = EXIT_INPUT;
		goto out;
	}
	p->args = argv + optind;
	p->nargs = argc - optind;
	if (p->max_args >= 0 && p->nargs > p->max_args) {
		fprintf(stderr, "scaleplan %s: unexpected argument '%s'\n", p->cmd, p->args[p->max_args]);
		rc = EXIT_INPUT;
	}
out:
	free(given);
	free(lo);
	return rc;
}

int cli_opt_longopts(const cli_opt *table, int val_base, struct option *opts, int from, int max)
{
	for (int i = 0; table[i].kind != CLI_OPT_END && from < max; i++)
		if (is_option(&table[i]))
			opts[from++] = (struct option){table[i].name, takes_arg(&table[i]) ? required_argument : no_argument,
						       NULL, val_base + canonical(table, i)};
	return from;
}

bool cli_opt_in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *s = list; s && *s;) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (len == n && strncmp(s, name, n) == 0)
			return true;
		s = e ? e + 1 : NULL;
	}
	return false;
}

void cli_opt_help(FILE *out, const cli_opt *table, const char *omit)
{
	for (const cli_opt *o = table; o->kind != CLI_OPT_END; o++)
		if (o->help && !(o->name && cli_opt_in_list(omit, o->name)))
			fputs(o->help, out);
}
