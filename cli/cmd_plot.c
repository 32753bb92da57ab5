/* scaleplan plot: charts (SVG, PNG) from the CSVs scaleplan writes, drawn by gnuplot (plot/).
 * Fails with exit 1 on a bad CSV (file, line, column, what was expected) and exit 2 when gnuplot is missing
 * or fails; outputs appear only when complete (temporary names, renamed).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"
#include "plot/plot.h"

#include <getopt.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int parse_formats(const char *arg, plot_opts *o)
{
	o->svg = o->png = false;
	char *list = xstrdup(arg), *save = NULL;
	int rc = EXIT_OK;
	for (char *f = strtok_r(list, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		if (strcmp(f, "svg") == 0)
			o->svg = true;
		else if (strcmp(f, "png") == 0)
			o->png = true;
		else {
			fprintf(stderr, "scaleplan plot: --format '%s': expected svg, png or svg,png\n", f);
			rc = EXIT_INPUT;
		}
	}
	free(list);
	if (rc == EXIT_OK && !o->svg && !o->png) {
		fprintf(stderr, "scaleplan plot: --format '%s': expected svg, png or svg,png\n", arg);
		rc = EXIT_INPUT;
	}
	return rc;
}

/* plot's options as given. */
typedef struct plot_cli {
	plot_opts o;
	const char *out, *cost_col;
} plot_cli;

static int opt_cost(void *ctx, const cli_opt *opt, const char *arg)
{
	plot_cli *c = ctx;
	(void)opt;
	c->cost_col = strcmp(arg, "capex") == 0 ? "capex_usd"
		      : strcmp(arg, "tco") == 0 ? "tco_usd"
		      : strcmp(arg, "rent") == 0 ? "rent_usd"
						 : NULL;
	if (!c->cost_col) {
		fprintf(stderr, "scaleplan plot: --cost '%s': expected capex, tco or rent\n", arg);
		return -1;
	}
	return 0;
}

static int opt_kind(void *ctx, const cli_opt *opt, const char *arg)
{
	(void)opt;
	if (plot_kind_parse(arg, &((plot_cli *)ctx)->o.kind))
		return 0;
	fprintf(stderr, "scaleplan plot: --kind '%s': expected tta, cost, parity or epochs\n", arg);
	return -1;
}

static int opt_format(void *ctx, const cli_opt *opt, const char *arg)
{
	(void)opt;
	return parse_formats(arg, &((plot_cli *)ctx)->o) == EXIT_OK ? 0 : -1;
}

enum { PLOT_NOPTS = 8 };

/* plot's options, bound to c, in --help's order (--kind is described with the kinds). */
static void plot_table(plot_cli *c, cli_opt *t)
{
	const cli_opt own[] = {
		{.kind = CLI_OPT_STRING, .name = "out", .short_name = 'o', .dest = &c->out,
		 .help = "  --out PREFIX    output path without extension (required)\n"},
		{.kind = CLI_OPT_DOUBLE, .name = "budget", .dest = &c->o.budget_usd, .lo = 0, .hi = DBL_MAX, .open_lo = true,
		 .want = "a positive number of USD", .help = "  --budget USD    cost: draw the budget as a horizontal line\n"},
		CLI_O_CALL("cost", opt_cost, c,
			   "  --cost C        cost: capex (default) | tco | rent: the money on the y axis (as compare's --cost)\n"),
		CLI_O_CALL("format", opt_format, c, "  --format LIST   svg,png (default both)\n"),
		CLI_O_STR("title", &c->o.title, "  --title TEXT    chart title (default: the kind's)\n"),
		CLI_O_CALL("kind", opt_kind, c, NULL), /* described with the kinds, above the options */
		CLI_O_HELP,
		CLI_O_END,
	};
	memcpy(t, own, sizeof own);
}

static void plot_usage(FILE *out)
{
	plot_cli c;
	cli_opt own[PLOT_NOPTS];
	plot_table(&c, own);
	fprintf(out,
		"usage: scaleplan plot CSV... --out PREFIX [--kind tta|cost|parity|epochs] [--budget USD]\n"
		"                      [--cost capex|tco|rent] [--format svg,png] [--title TEXT]\n"
		"\n"
		"Draws PREFIX.svg and PREFIX.png with gnuplot (Debian package gnuplot-nox) from CSVs that scaleplan\n"
		"writes; columns are read by name. Kinds (default: from the first file's header):\n"
		"  tta     predict/compare/sweep CSV: time to accuracy (thick lines; ttt_s as small dots) vs GPUs, a\n"
		"          line per system and GPUs per node (line pattern), log axes (the default for these files)\n"
		"  cost    the same CSVs: capex, TCO or rent per run (--cost; and energy per run) vs time to\n"
		"          accuracy, the Pareto front marked; beyond 10 lines, every line on the front, then the fastest\n"
		"  parity  `validate --detail FILE`: predicted vs measured, y = x and the +-10%% band\n"
		"  epochs  the engine's measurement CSV (scaleplan-train): throughput and top-1 vs time, epochs >= 1\n");
	cli_opt_help(out, own, NULL);
	fprintf(out,
		"CSVs are read in batches (a multi-million-row sweep in tens of MB: one point per system, GPUs per\n"
		"node and GPU count, the fastest), with progress on stderr for large files.\n"
		"Exit status: 0 ok, 1 bad input, 2 gnuplot missing or failed.\n");
}

/* PREFIX must end in a file name: "dir/" would write the hidden files dir/.svg and dir/.png. */
static int check_prefix(const char *out)
{
	size_t n = strlen(out);
	if (n > 0 && out[n - 1] != '/' && strcmp(out, ".") != 0 && strcmp(out, "..") != 0 &&
	    !(n >= 2 && strcmp(out + n - 2, "/.") == 0) && !(n >= 3 && strcmp(out + n - 3, "/..") == 0))
		return EXIT_OK;
	fprintf(stderr, "scaleplan plot: --out '%s': expected a path prefix that ends in a file name (e.g. %schart "
			"writes %schart.svg and %schart.png)\n", out, out, out, out);
	return EXIT_INPUT;
}

/* Rows handed over at a time when reading a CSV: a few MB of cells, whatever the file's size. */
enum { PLOT_BATCH_ROWS = 16384 };

typedef struct stream_ctx {
	plot_opts *o;
	const char *cost_col; /* --cost: the column of a cost chart */
	plot_data *d;
	bool first;   /* the first batch of a file: its header picks the kind */
	bool started; /* plot_data_begin done */
	bool printed; /* the message is out already */
} stream_ctx;

/* csv_table_stream's callback: the kind from the first file's header, then the rows into the series. */
static int stream_rows(const csv_table *t, void *ctx)
{
	stream_ctx *c = ctx;
	if (c->first) {
		c->first = false;
		plot_kind k = plot_kind_detect(t);
		if (c->o->kind == PLOT_AUTO && k == PLOT_AUTO) {
			bool groups = csv_table_col(t, "mape_pct") >= 0;
			fprintf(stderr,
				"scaleplan plot: %s:1: header: expected the columns of a chart kind (tta_s+gpus, "
				"measured+predicted, or epoch+throughput_img_s+top1); or give --kind%s\n",
				t->name,
				groups ? " (this is validate's group table: `validate --detail FILE` writes the points a "
					 "parity chart needs)"
				       : "");
			c->printed = true;
			return ERR_INPUT;
		}
		if (c->o->kind == PLOT_AUTO)
			c->o->kind = k;
		if (!c->started) {
			plot_data_begin(c->d, c->o->kind);
			c->d->cost_col = c->cost_col;
			c->started = true;
		}
	}
	return plot_data_add(c->d, t);
}

int cli_plot_files(plot_opts *o, const char *cost_col, char *const *files, int nfiles, const char *out)
{
	for (int k = 0; k < 2; k++) { /* the files the chart becomes, checked before the CSVs are read */
		if (!(k ? o->png : o->svg))
			continue;
		char *f = xasprintf("%s.%s", out, k ? "png" : "svg");
		int crc = cli_check_out("plot", "--out", f, false);
		free(f);
		if (crc)
			return crc;
	}
	plot_data d = {0};
	int rc = EXIT_OK;
	stream_ctx sc = {.o = o, .d = &d, .cost_col = cost_col};
	intr_phase("read");
	for (int i = 0; i < nfiles; i++) {
		char label[512];
		snprintf(label, sizeof label, "plot: reading %s", files[i]);
		sc.first = true;
		int lrc = csv_table_stream(files[i], PLOT_BATCH_ROWS, stream_rows, &sc, label);
		if (lrc < 0) {
			if (lrc == ERR_INTR) /* said here: main's word is only for a command that did not stop */
				fprintf(stderr, "scaleplan plot: interrupted (%s) while reading %s; nothing written\n",
					intr_name(), files[i]);
			else if (!sc.printed)
				fprintf(stderr, "scaleplan plot: %s\n", err_msg());
			rc = exit_code_of(lrc);
			goto done;
		}
	}
	if (plot_data_end(&d, files[0]) < 0) {
		fprintf(stderr, "scaleplan plot: %s\n", err_msg());
		rc = EXIT_INPUT;
		goto done;
	}
	int prc = plot_render(&d, o, out);
	if (prc < 0) {
		fprintf(stderr, "scaleplan plot: %s\n", err_msg());
		rc = exit_code_of(prc);
		goto done;
	}
	printf("scaleplan plot: %s chart, %d series\n", plot_kind_name(o->kind), d.nseries);
	if (o->svg)
		printf("  %s.svg\n", out);
	if (o->png)
		printf("  %s.png\n", out);
done:
	plot_data_free(&d);
	return rc;
}

int cmd_plot(int argc, char **argv)
{
	plot_cli c = {.o = {.kind = PLOT_AUTO, .budget_usd = NAN, .svg = true, .png = true}};
	cli_opt own[PLOT_NOPTS];
	plot_table(&c, own);
	cli_parse p = {.cmd = "plot", .tables = {own}, .usage = plot_usage, .usage_on_error = true, .max_args = -1};
	int rc = cli_opt_parse(&p, argc, argv);
	if (rc || p.done)
		return rc;
	if (p.nargs < 1 || !c.out) {
		fprintf(stderr, "scaleplan plot: %s\n", p.nargs < 1 ? "no CSV file given" : "--out PREFIX is required");
		plot_usage(stderr);
		return EXIT_INPUT;
	}
	if (check_prefix(c.out))
		return EXIT_INPUT;
	return cli_plot_files(&c.o, c.cost_col, p.args, p.nargs, c.out);
}
