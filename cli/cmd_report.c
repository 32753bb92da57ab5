/* scaleplan report: the planner's question for a purchase as one self-contained folder: report.md and
 * index.html (the same text and tables), charts as SVG (gnuplot, plot/) and the rows as CSV.
 * The rows are compare's (cli_placements): every placement of each GPU count on each system, ranked by time to
 * accuracy. The folder is built under DIR.tmp-PID and renamed to DIR at the end; DIR must not exist.
 * All text placed in HTML is escaped; Markdown cells escape | and markup.
 * Exit: 0 ok, 1 bad input (unknown system, bad list, DIR exists), 2 environment (cannot write); 130/143 after
 * SIGINT/SIGTERM, polled between the steps, with the temporary folder removed.
 * Without gnuplot the report is written without charts and says so.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"
#include "plot/plot.h"
#include "web/web.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SCALEPLAN_VERSION
#define SCALEPLAN_VERSION "0.1.0"
#endif

#define REP_MAX_GPUS_N 16 /* --gpus values at most (the help says so) */
enum { REP_MAX_GPUS = REP_MAX_GPUS_N, REP_MAX_SYSTEMS = 64 };

/* ---- a table written to both documents ---- */

typedef struct rep_table {
	const char *id;     /* HTML id */
	int ncols, nrows;
	const char **head;  /* [ncols] */
	char **cells;       /* [nrows * ncols], heap strings */
	int ncells, cap;
} rep_table;

/* The text of fmt with ap, allocated (xmalloc: out of memory ends the program, common.h's convention). */
static char *vformat(const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	char *s = xmalloc((size_t)(n < 0 ? 0 : n) + 1);
	vsnprintf(s, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
	return s;
}

static void tab_init(rep_table *t, const char *id, int ncols, const char **head)
{
	memset(t, 0, sizeof *t);
	t->id = id;
	t->ncols = ncols;
	t->head = head;
}

static void tab_cell(rep_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tab_cell(rep_table *t, const char *fmt, ...)
{
	if (t->ncells == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->cells = xrealloc(t->cells, (size_t)t->cap * sizeof *t->cells);
	}
	va_list ap;
	va_start(ap, fmt);
	char *s = vformat(fmt, ap);
	va_end(ap);
	t->cells[t->ncells++] = s;
	t->nrows = t->ncells / t->ncols;
}

static void tab_free(rep_table *t)
{
	for (int i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
}

/* ---- the two documents ---- */

typedef struct rep_doc {
	FILE *md, *html;
} rep_doc;

static void html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* Markdown text: markup characters backslash-escaped, HTML tags neutralised, one line. */
static void md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if ((unsigned char)*s < 0x20)
			fputc(' ', f);
		else {
			if (strchr("\\`*_[]|#", *s))
				fputc('\\', f);
			fputc(*s, f);
		}
	}
}

static void doc_h(rep_doc *d, int level, const char *text)
{
	fprintf(d->md, "%.*s ", level, "####");
	md_text(d->md, text);
	fputs("\n\n", d->md);
	fprintf(d->html, "<h%d>", level);
	html_text(d->html, text);
	fprintf(d->html, "</h%d>\n", level);
}

static void doc_p(rep_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void doc_p(rep_doc *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vformat(fmt, ap);
	va_end(ap);
	md_text(d->md, s);
	fputs("\n\n", d->md);
	fputs("<p>", d->html);
	html_text(d->html, s);
	fputs("</p>\n", d->html);
	free(s);
}

/* A column of only '-' (no system of the report has that price) says nothing: it is left out of both documents. */
static bool tab_col_empty(const rep_table *t, int c)
{
	for (int r = 0; r < t->nrows; r++)
		if (strcmp(t->cells[r * t->ncols + c], "-") != 0)
			return false;
	return t->nrows > 0;
}

static void doc_table(rep_doc *d, const rep_table *t)
{
	bool *skip = xcalloc((size_t)t->ncols, sizeof *skip);
	for (int c = 0; c < t->ncols; c++)
		skip[c] = tab_col_empty(t, c);
	for (int c = 0; c < t->ncols; c++) {
		if (skip[c])
			continue;
		fputs("| ", d->md);
		md_text(d->md, t->head[c]);
		fputc(' ', d->md);
	}
	fputs("|\n", d->md);
	for (int c = 0; c < t->ncols; c++)
		if (!skip[c])
			fputs("|---", d->md);
	fputs("|\n", d->md);
	fprintf(d->html, "<table id=\"%s\" data-expected-rows=\"%d\">\n<thead><tr>", t->id, t->nrows);
	for (int c = 0; c < t->ncols; c++) {
		if (skip[c])
			continue;
		fputs("<th>", d->html);
		html_text(d->html, t->head[c]);
		fputs("</th>", d->html);
	}
	fputs("</tr></thead>\n<tbody>\n", d->html);
	for (int r = 0; r < t->nrows; r++) {
		fputs("<tr>", d->html);
		for (int c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];
			if (skip[c])
				continue;
			fputs("| ", d->md);
			md_text(d->md, s);
			fputc(' ', d->md);
			fputs("<td>", d->html);
			html_text(d->html, s);
			fputs("</td>", d->html);
		}
		fputs("|\n", d->md);
		fputs("</tr>\n", d->html);
	}
	fputs("</tbody></table>\n", d->html);
	fputc('\n', d->md);
	free(skip);
}

static void doc_img(rep_doc *d, const char *src, const char *alt)
{
	fputs("![", d->md);
	md_text(d->md, alt);
	fprintf(d->md, "](%s)\n\n", src);
	fprintf(d->html, "<p><img src=\"%s\" alt=\"", src);
	html_text(d->html, alt);
	fputs("\"></p>\n", d->html);
}

/* After load, index.html records on <body> how many images loaded (naturalWidth > 0) and each table's body
 * rows, so a headless browser's --dump-dom shows whether the folder is complete (tests/report_browser.sh). */
static const char html_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<title>scaleplan report</title>\n<style>\n"
	"body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\n"
	"table{border-collapse:collapse;margin:1em 0;font-size:85%;max-width:100%}\n"
	"th,td{border:1px solid #bbb;padding:3px 6px;text-align:left}\nth{background:#eee}\n"
	"@media print{body{max-width:none;margin:0}table{font-size:70%}}\n"
	"p.answer{font-size:1.1em;border-left:4px solid #2a6;padding-left:8px}\n"
	"img{max-width:100%;height:auto;border:1px solid #ddd}\n</style>\n"
	"<script>\nwindow.addEventListener('load', function () {\n"
	"  var imgs = document.images, ok = 0, rows = [];\n"
	"  for (var i = 0; i < imgs.length; i++) if (imgs[i].complete && imgs[i].naturalWidth > 0) ok++;\n"
	"  var t = document.querySelectorAll('table');\n"
	"  for (var j = 0; j < t.length; j++) rows.push(t[j].id + ':' + t[j].tBodies[0].rows.length);\n"
	"  document.body.setAttribute('data-images', String(imgs.length));\n"
	"  document.body.setAttribute('data-images-loaded', String(ok));\n"
	"  document.body.setAttribute('data-table-rows', rows.join(' '));\n"
	"});\n</script>\n</head>\n<body>\n";

/* ---- the report ---- */

typedef struct rep_group {
	int gpus;
	int first, n; /* rows[first .. first+n) */
} rep_group;

static const char *place(const cli_row *w, char *buf, size_t len_B)
{
	snprintf(buf, len_B, "%dx%d", w->sc.nodes, w->sc.node.gpus_per_node);
	return buf;
}

static const char *money(double usd, char *buf, size_t len_B)
{
	return plan_fmt_usd(usd, buf, len_B);
}

/* What the intervals in parentheses mean and how each option's GPU is known (basis), once for the report. */
static void section_uncertainty(rep_doc *d, const cli_row *rows, const rep_group *g, int ng)
{
	int nb[MODEL_NBASES] = {0};
	for (int k = 0; k < ng; k++)
		for (int i = 0; i < g[k].n; i++)
			nb[rows[g[k].first + i].r.basis]++;
	doc_p(d, "How sure: a time in parentheses, e.g. 12.3 min (11.8-13.1), is a 90%% prediction interval - nine times "
		 "in ten the real run lands inside. It comes from the model's errors on runs it was not fitted to "
		 "(scaleplan validate: single-node throughputs and the MLPerf v4.0 multi-node results), by scale (one "
		 "node, 2-16 nodes, more) and by basis, the last column: measured (results of this GPU are in that data) "
		 "%d option%s, transfer (only other GPUs of its architecture have results; the interval widened by how far "
		 "the model missed from H100 to H200) %d, estimate (no results of its architecture: Blackwell today; "
		 "widened by the largest miss of one GPU generation to the next it could check) %d. Where two options' "
		 "times differ by less than their intervals combined, the model cannot say for sure which is faster; an estimate is a starting point for a quote, not "
		 "a measured answer. Time to accuracy at hundreds of nodes is wide on the slow side: the start-up of such "
		 "runs in MLPerf v4.0 took about 2-4 times what the model predicts.",
	      nb[MODEL_BASIS_MEASURED], nb[MODEL_BASIS_MEASURED] == 1 ? "" : "s", nb[MODEL_BASIS_TRANSFER],
	      nb[MODEL_BASIS_ESTIMATE]);
}

/* The answer first: per GPU count the decision compare prints (plan_decide), with its cost. */
static void section_answer(rep_doc *d, cli_row *rows, const rep_group *g, int ng, const plan_question *q)
{
	doc_h(d, 2, "Answer");
	for (int k = 0; k < ng; k++) {
		plan_answer a;
		char text[4096];
		plan_decide(q, rows + g[k].first, g[k].n, &a);
		plan_answer_text(q, &a, g[k].gpus, text, sizeof text);
		doc_p(d, "%d GPU%s. %s", g[k].gpus, g[k].gpus == 1 ? "" : "s", text);
	}
	section_uncertainty(d, rows, g, ng);
}

static void section_ranking(rep_doc *d, cli_row *rows, const rep_group *g, const plan_question *q)
{
	plan_answer a; /* the answer's row is marked: the reader finds the pick in the table */
	plan_decide(q, rows + g->first, g->n, &a);
	static const char *head[] = {"rank", "system", "GPU", "nodes x GPUs", "time to accuracy", "MLPerf time to train",
				     "img/s", "scaling", "bottleneck", "capex", "rent per run", "owner's cost per run",
				     "energy kWh", "meets (budget / deadline)", "basis"};
	char title[256], id[32], order[160];
	snprintf(title, sizeof title, "Ranking at %d GPU%s (by %s)", g->gpus, g->gpus == 1 ? "" : "s", plan_order_text(q, order, sizeof order));
	snprintf(id, sizeof id, "rank-%d", g->gpus);
	doc_h(d, 2, title);
	if (a.winner)
		doc_p(d, "The answer's row is marked 'answer' in the rank column.");
	rep_table t;
	tab_init(&t, id, 15, head);
	for (int i = 0; i < g->n; i++) {
		const cli_row *w = &rows[g->first + i];
		char b1[48], b2[48];
		tab_cell(&t, w == a.winner ? "%d answer" : "%d", i + 1);
		tab_cell(&t, "%s", w->sc.node.system_id);
		tab_cell(&t, "%s", w->sc.node.gpu_id);
		tab_cell(&t, "%s", place(w, b1, sizeof b1));
		tab_cell(&t, "%s", cli_fmt_range(w->r.tta_s, w->r.tta_lo_s, w->r.tta_hi_s, b2, sizeof b2));
		tab_cell(&t, "%s", cli_fmt_range(w->r.ttt_s, w->r.ttt_lo_s, w->r.ttt_hi_s, b1, sizeof b1));
		tab_cell(&t, "%.0f", w->r.throughput_img_s);
		tab_cell(&t, "%.1f%%", 100 * w->r.scaling_eff);
		tab_cell(&t, "%s", w->r.fits ? model_bottleneck_name(w->r.bottleneck) : "memory");
		tab_cell(&t, "%s", money(w->r.capex_usd, b1, sizeof b1));
		tab_cell(&t, "%s", money(w->r.rent_usd, b1, sizeof b1));
		tab_cell(&t, "%s", money(w->r.tco_usd, b1, sizeof b1));
		tab_cell(&t, isfinite(w->r.energy_J) ? "%.1f" : "-", w->r.energy_J / 3.6e6);
		char f[96];
		tab_cell(&t, "%s", plan_fails_text(q, &w->v, f, sizeof f));
		tab_cell(&t, "%s", model_basis_name(w->r.basis));
	}
	doc_table(d, &t);
	tab_free(&t);
}

static void section_breakdown(rep_doc *d, const cli_row *rows, int nrows)
{
	static const char *head[] = {"GPUs", "system", "nodes x GPUs", "iteration ms", "compute ms",
				     "all-reduce ms (exposed)", "data ms", "storage io ms", "bottleneck", "start-up",
				     "staging", "epochs x epoch", "evaluation", "time to train", "time to accuracy"};
	doc_h(d, 2, "Breakdown of each option");
	doc_p(d, "Per iteration and GPU: compute, all-reduce (total, and the part not hidden behind backward), input "
		 "pipeline (decode and host copy per node) and storage reads; the bottleneck is the busiest of them. "
		 "Where the data set is staged to the nodes or held in the page cache, storage is read in the first "
		 "epoch only: its time is marked '(first epoch)', is not part of the iteration, and cannot be the "
		 "bottleneck, however long. "
		 "Per run: time to accuracy = start-up + staging + time to train; time to train (what MLPerf scores) = "
		 "epochs x epoch time + evaluations + epoch boundaries + warm-up.");
	rep_table t;
	tab_init(&t, "breakdown", 15, head);
	for (int i = 0; i < nrows; i++) {
		const cli_row *w = &rows[i];
		const model_result *r = &w->r;
		char b[6][32];
		tab_cell(&t, "%d", r->gpus);
		tab_cell(&t, "%s", w->sc.node.system_id);
		tab_cell(&t, "%s", place(w, b[0], sizeof b[0]));
		tab_cell(&t, "%.1f", 1e3 * r->iter_s);
		tab_cell(&t, "%.1f", 1e3 * r->compute_s);
		tab_cell(&t, "%.1f (%.1f)", 1e3 * r->comm_s, 1e3 * r->comm_exposed_s);
		tab_cell(&t, "%.1f", 1e3 * r->data_s);
		tab_cell(&t, w->sc.prep.cached ? "%.1f (first epoch)" : "%.1f", 1e3 * r->io_s);
		tab_cell(&t, "%s", r->fits ? model_bottleneck_name(r->bottleneck) : "memory");
		tab_cell(&t, "%s", cli_fmt_duration(r->startup_s, b[1], sizeof b[1]));
		tab_cell(&t, "%s", cli_fmt_duration(r->staging_s, b[2], sizeof b[2]));
		tab_cell(&t, "%.1f x %s", r->epochs, cli_fmt_duration(r->epoch_s, b[3], sizeof b[3]));
		tab_cell(&t, "%s", cli_fmt_duration(r->eval_s, b[4], sizeof b[4]));
		tab_cell(&t, "%s", cli_fmt_duration(r->ttt_s, b[5], sizeof b[5]));
		tab_cell(&t, "%s", cli_fmt_duration(r->tta_s, b[0], sizeof b[0]));
	}
	doc_table(d, &t);
	tab_free(&t);
}

static void section_setup(rep_doc *d, const cli_scen *s, const cli_row *rows, int nrows)
{
	static const char *head[] = {"GPUs", "system", "nodes x GPUs", "batch per GPU", "precision", "stack",
				     "data path", "storage", "power W", "capex USD", "energy kWh"};
	doc_h(d, 2, "Stack, data path, storage, cost and energy");
	doc_p(d, "capex = whole units bought at list price (an NVL72 rack is one unit of 18 trays; '-' where the "
		 "database has no price); energy per run = average power x time to accuracy. The stack (hw list stacks) sets the data path and whether the data "
		 "set is staged to every node's drives before the run.");
	rep_table t;
	tab_init(&t, "setup", 11, head);
	for (int i = 0; i < nrows; i++) {
		const cli_row *w = &rows[i];
		char b[96];
		tab_cell(&t, "%d", w->r.gpus);
		tab_cell(&t, "%s", w->sc.node.system_id);
		tab_cell(&t, "%s", place(w, b, sizeof b));
		tab_cell(&t, "%d", w->sc.batch_per_gpu);
		tab_cell(&t, "%s", model_precision_name(w->sc.precision));
		tab_cell(&t, "%s", w->sc.stack.id);
		tab_cell(&t, "%s decode%s", model_data_name(w->sc.data), w->sc.stack.staged ? ", staged" : "");
		tab_cell(&t, "%s", w->sc.node.storage_id ? w->sc.node.storage_id : "node drives");
		tab_cell(&t, isfinite(w->r.power_W) ? "%.0f" : "-", w->r.power_W);
		tab_cell(&t, "%s", money(w->r.capex_usd, b, sizeof b));
		tab_cell(&t, isfinite(w->r.energy_J) ? "%.1f" : "-", w->r.energy_J / 3.6e6);
	}
	doc_table(d, &t);
	tab_free(&t);
	char eol[2048];
	if (*plan_eol_text(&s->db, rows, nrows, eol, sizeof eol))
		doc_p(d, "Note: %s.", eol);
}

static void section_money(rep_doc *d, const cli_scen *s);

static void section_assumptions(rep_doc *d, const cli_scen *s)
{
	static const char *head[] = {"parameter", "value", "default", "unit", "source"};
	doc_h(d, 2, "Assumptions");
	doc_p(d, "ResNet-50 v1.5 trained on %.0f images per epoch to %.1f%% top-1; epochs from the MLPerf convergence "
		 "curve of the global batch unless --epochs; precision %s (a GPU without it runs the nearest it has); "
		 "batch per GPU: of 256, 128 ... 8 that fit, the one of least time to accuracy (inside the measured "
		 "convergence range first). Hardware from the built-in database%s "
		 "(`scaleplan hw show ID` gives each figure's source).",
	      s->spec.images, 100 * s->spec.target_top1, model_precision_name(s->spec.precision), s->hwdb_dir ? " with an overlay" : "");
	section_money(d, s);
	doc_p(d, "The model's parameters:");
	rep_table t;
	tab_init(&t, "params", 5, head);
	for (int i = 0; i < model_params_count(); i++) {
		const model_param_info *in = model_params_info(i);
		double v = NAN;
		model_params_get(&s->params, in->name, &v);
		tab_cell(&t, "%s", in->name);
		tab_cell(&t, "%.6g", v);
		tab_cell(&t, "%.6g", in->def);
		tab_cell(&t, "%s", in->unit);
		tab_cell(&t, "%s", in->source);
	}
	doc_table(d, &t);
	tab_free(&t);
}

/* ---- sensitivity: how the answer's cost moves with each input, and what could flip it ---- */

typedef plan_sens rep_sens; /* plan_sens_compute (plan/plan_sens.c) fills it */

/* An input's range as text: money, duration, fraction or plain. */
static const char *sens_in(int i, double v, char *buf, size_t len_B)
{
	if (i == MODEL_SENS_PRICE)
		return plan_fmt_usd(v, buf, len_B);
	if (i == MODEL_SENS_SPEED)
		return plan_fmt_duration(v, buf, len_B);
	if (i == MODEL_SENS_UTIL)
		snprintf(buf, len_B, "%.0f%%", 100 * v);
	else if (i == MODEL_SENS_KWH)
		snprintf(buf, len_B, "$%.3f/kWh", v);
	else
		snprintf(buf, len_B, "%.2f", v);
	return buf;
}

static const char *opt_name(const cli_row *w, char *buf, size_t len_B)
{
	snprintf(buf, len_B, "%s %dx%d", w->sc.node.system_id, w->sc.nodes, w->sc.node.gpus_per_node);
	return buf;
}

/* The tornado chart into dir/sensitivity.svg: bars sorted by width, widest on top. */
static bool sens_chart(const char *dir, const rep_sens *rs, char *note, size_t len_B)
{
	plot_data pd = {0};
	int order[MODEL_SENS_N];
	char label[96], lo[32], hi[32], alt[128], an[64];
	for (int i = 0; i < MODEL_SENS_N; i++) {
		int at = i;
		double w = fabs(rs->s[i].hi_usd - rs->s[i].lo_usd);
		while (at > 0 && fabs(rs->s[order[at - 1]].hi_usd - rs->s[order[at - 1]].lo_usd) > w) {
			order[at] = order[at - 1];
			at--;
		}
		order[at] = i;
	}
	pd.kind = PLOT_TORNADO;
	for (int k = 0; k < MODEL_SENS_N; k++) {
		int i = order[k];
		snprintf(label, sizeof label, "%s %s-%s", model_sens_name((model_sens_input)i),
			 sens_in(i, rs->s[i].lo_in, lo, sizeof lo), sens_in(i, rs->s[i].hi_in, hi, sizeof hi));
		plot_data_add_point(&pd, label, rs->s[i].lo_usd, rs->s[i].hi_usd, rs->base);
	}
	if (rs->alt)
		snprintf(alt, sizeof alt, "%s %.2f USD", opt_name(rs->alt, an, sizeof an), rs->alt_base);
	char *title = xasprintf("%s per run of %s at %d GPUs: each input at both ends",
				rs->rent ? "Rent" : "Owner's cost", opt_name(rs->ans, an, sizeof an), rs->gpus);
	plot_opts o = {.kind = PLOT_TORNADO, .svg = true, .title = title, .mark_label = rs->alt ? alt : NULL,
		       .mark_usd = rs->alt_base, .xlabel = rs->rent ? "rent per run" : "owner's cost per run"};
	char *prefix = xasprintf("%s/sensitivity", dir);
	bool ok = plot_render(&pd, &o, prefix) == 0;
	if (!ok)
		snprintf(note, len_B, "%s", err_msg());
	free(prefix);
	free(title);
	plot_data_free(&pd);
	return ok;
}

/* Every GPU count: what flips the answer between options and to renting, in words (plan_sens_text). */
static void sens_counts(rep_doc *d, cli_row *rows, const rep_group *g, int ng, const plan_question *q)
{
	for (int k = 0; k < ng; k++) {
		plan_sens ks;
		char text[1024];
		plan_sens_compute(q, rows + g[k].first, g[k].n, g[k].gpus, &ks);
		doc_p(d, "%s", plan_sens_text(&ks, text, sizeof text));
	}
}

static void section_sensitivity(rep_doc *d, const rep_sens *rs, bool chart_ok, const char *chart_note, cli_row *rows,
				const rep_group *g, int ng, const plan_question *q)
{
	static const char *head[] = {"input", "low end", "high end", "cost at low end", "cost at high end",
				     "could flip the decision"};
	char a[64], b[64], c[32], e[32];
	doc_h(d, 2, "Sensitivity");
	if (!rs->ok) {
		doc_p(d, "The answer at %d GPUs has no price in the database, so there is no cost to move.", rs->gpus);
		sens_counts(d, rows, g, ng, q);
		return;
	}
	doc_p(d, "The answer at %d GPUs, %s, costs %s per run (%s). Each input below is moved alone to both ends of "
		 "its range; the chart draws the cost at each end, the widest bar on top. Prices: each price's own "
		 "range or its kind's width (docs/prices.md); speed: the run time +-%.0f%%; utilisation x0.5-x1.5; kWh "
		 "price x0.5-x1.5; PUE 1.1 (a hyperscale hall) to 1.8.",
	      rs->gpus, opt_name(rs->ans, a, sizeof a), plan_fmt_usd(rs->base, b, sizeof b),
	      rs->rent ? "rent as billed" : "the owner's cost: capex share, support, facility and energy", 100 * rs->speed_err);
	if (chart_ok)
		doc_img(d, "sensitivity.svg", "tornado chart: the answer's cost per run at the low and high end of each input");
	else
		doc_p(d, "No sensitivity chart: %s", chart_note);
	rep_table t;
	tab_init(&t, "sensitivity", 6, head);
	int nflip = 0;
	char names[160] = "";
	for (int i = 0; i < MODEL_SENS_N; i++) {
		tab_cell(&t, "%s", model_sens_name((model_sens_input)i));
		tab_cell(&t, "%s", sens_in(i, rs->s[i].lo_in, a, sizeof a));
		tab_cell(&t, "%s", sens_in(i, rs->s[i].hi_in, b, sizeof b));
		tab_cell(&t, "%s", plan_fmt_usd(rs->s[i].lo_usd, c, sizeof c));
		tab_cell(&t, "%s", plan_fmt_usd(rs->s[i].hi_usd, e, sizeof e));
		tab_cell(&t, "%s", !rs->alt ? "-" : rs->flips[i] ? "yes" : "no");
		if (rs->flips[i]) {
			size_t u = strlen(names);
			int left = 0; /* flipping inputs after this one: ", " before all but the last, " and " before it */
			for (int j = i + 1; j < MODEL_SENS_N; j++)
				left += rs->flips[j];
			snprintf(names + u, sizeof names - u, "%s%s", !nflip ? "" : left ? ", " : " and ",
				 model_sens_name((model_sens_input)i));
			nflip++;
		}
	}
	doc_table(d, &t);
	tab_free(&t);
	if (!rs->alt)
		doc_p(d, "No other option at %d GPUs has such a cost to weigh the answer against.", rs->gpus);
	else if (nflip)
		doc_p(d, "Against %s (%s per run): %s could flip which of the two costs less per run over %s range%s.",
		      opt_name(rs->alt, a, sizeof a), plan_fmt_usd(rs->alt_base, b, sizeof b), names,
		      nflip > 1 ? "their" : "its", nflip > 1 ? "s" : "");
	else
		doc_p(d, "Against %s (%s per run): none of these inputs, over its range, changes which of the two costs "
			 "less per run.", opt_name(rs->alt, a, sizeof a), plan_fmt_usd(rs->alt_base, b, sizeof b));
	sens_counts(d, rows, g, ng, q);
}

/* The money assumptions a finance reader checks, each with its source (model_money_default's comments). */
static void section_money(rep_doc *d, const cli_scen *s)
{
	static const char *head[] = {"input", "value", "flag", "source"};
	const model_money *m = &s->spec.money;
	rep_table t;
	doc_p(d, "Money (docs/prices.md has every price with its source and range):");
	tab_init(&t, "money", 4, head);
	tab_cell(&t, "%s", "electricity");
	tab_cell(&t, "$%.3f per kWh", m->kwh_usd);
	tab_cell(&t, "%s", "--kwh-price");
	tab_cell(&t, "%s", "EIA Electric Power Monthly 5.6.B: U.S. commercial average 2024, 12-13 cents");
	tab_cell(&t, "%s", "PUE");
	tab_cell(&t, "%.2f", m->pue);
	tab_cell(&t, "%s", "--pue");
	tab_cell(&t, "%s", "Uptime Institute Global Data Center Survey 2023: industry average 1.58");
	tab_cell(&t, "%s", "facility");
	tab_cell(&t, "$%.0f per kW-month", m->facility_usd_kw_month);
	tab_cell(&t, "%s", "--facility-price");
	tab_cell(&t, "%s", "wholesale colocation 150-250 USD per kW-month (2026 GPU TCO analyses; CBRE 2018: 120-140)");
	tab_cell(&t, "%s", "support");
	tab_cell(&t, "%.0f%% of capex a year", 100 * m->support_frac_year);
	tab_cell(&t, "%s", "--support-frac");
	tab_cell(&t, "%s", "assumption: no public support price list found");
	tab_cell(&t, "%s", "utilisation");
	tab_cell(&t, m->runs_per_month > 0 ? "%.3g runs a month" : "%.0f%%",
		 m->runs_per_month > 0 ? m->runs_per_month : 100 * m->utilisation);
	tab_cell(&t, m->runs_per_month > 0 ? "--runs-per-month" : "--utilisation");
	tab_cell(&t, "%s", "Alibaba PAI trace (ATC'23): 54% of GPUs held by running jobs");
	tab_cell(&t, "%s", "amortisation");
	tab_cell(&t, "%.3g years", m->amortize_years);
	tab_cell(&t, "%s", "--amortize-years");
	tab_cell(&t, "%s", "Amazon 2024 10-K: servers' useful life 5 years");
	tab_cell(&t, "%s", "cost of capital");
	tab_cell(&t, "%.1f%% a year", 100 * m->finance_rate);
	tab_cell(&t, "%s", "--finance-rate");
	tab_cell(&t, "%s", "Damodaran, cost of capital by U.S. industry, January 2026: most 6-10%");
	tab_cell(&t, "%s", "residual value");
	tab_cell(&t, "%.1f%% of capex", 100 * m->residual_frac);
	tab_cell(&t, "%s", "--residual");
	tab_cell(&t, "%s", "H100 resale 10-15% after 5 years (GPU Lease Rate Index secondary-market analysis, 2026-01)");
	tab_cell(&t, "%s", "rental rate");
	tab_cell(&t, "%s", s->spec.rent_term_years == 1 ? "1-year" : s->spec.rent_term_years == 3 ? "3-year"
			   : s->spec.rent_term_years == PLAN_RENT_SPOT ? "spot" : "on demand");
	tab_cell(&t, "%s", "--rent-term");
	tab_cell(&t, "%s", "each system's rent_source (hw show ID)");
	doc_table(d, &t);
	tab_free(&t);
}

/* Each system's price and rental rate with its kind and date (systems.csv), once per system, so a reader
 * sees how old each figure is. */
static void section_price_dates(rep_doc *d, const cli_scen *s, const cli_row *rows, int nrows)
{
	char text[4096] = "", a[32], b[32];
	size_t u = 0;
	for (int i = 0; i < nrows && u < sizeof text - 256; i++) {
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = strcmp(rows[j].sc.node.system_id, rows[i].sc.node.system_id) == 0;
		const hw_system *sys = seen ? NULL : hw_system_find(&s->db, rows[i].sc.node.system_id);
		if (!sys || (!hw_known(sys->price_usd) && !hw_known(sys->rent_usd_gpu_h)))
			continue;
		u += (size_t)snprintf(text + u, sizeof text - u, "%s%s: ", u ? "; " : "", sys->id);
		if (hw_known(sys->price_usd))
			u += (size_t)snprintf(text + u, sizeof text - u, "%s a unit (%s, %s)", plan_fmt_usd(sys->price_usd, a, sizeof a),
					      sys->price_kind, sys->price_date);
		if (hw_known(sys->rent_usd_gpu_h))
			u += (size_t)snprintf(text + u, sizeof text - u, "%s%s per GPU-hour on demand (%s)", hw_known(sys->price_usd) ? ", " : "",
					      plan_fmt_usd(sys->rent_usd_gpu_h, a, sizeof a), sys->rent_date);
		if (hw_known(sys->rent_market_usd_gpu_h))
			u += (size_t)snprintf(text + u, sizeof text - u, ", the market's %s (%s)",
					      plan_fmt_usd(sys->rent_market_usd_gpu_h, b, sizeof b), sys->rent_market_date);
	}
	if (*text)
		doc_p(d, "Prices and their dates (docs/prices.md has each source): %s.", text);
}

/* ---- cash flow: the answer's cluster owned year by year beside the same runs rented (model_cashflow) ---- */

enum { REP_MAX_YEARS = 51 }; /* amortisation is at most 50 years (model_money_check) */
typedef struct rep_cash {
	const plan_option *buy;   /* NULL: no bought option of the answer's GPU with a price */
	const char *rent_id;      /* the rental the runs are priced at; NULL: none */
	int n;
	model_cash_year y[REP_MAX_YEARS];
	bool ok, chart_ok;
	char note[512];
} rep_cash;

/* cashflow.csv and cashflow.svg into dir for the first GPU count's answer (plan_decide's buy-vs-rent pair). */
static void cashflow_write(const char *dir, cli_row *rows, const rep_group *g, const plan_question *q, rep_cash *c)
{
	plan_answer a;
	memset(c, 0, sizeof *c);
	plan_decide(q, rows + g->first, g->n, &a);
	c->buy = a.winner ? a.buy_rent.buy : NULL;
	if (!c->buy)
		return;
	c->rent_id = a.buy_rent.rent_id;
	c->n = model_cashflow(&c->buy->sc, &c->buy->r, c->rent_id ? a.buy_rent.rent_usd_run : NAN, c->y, REP_MAX_YEARS);
	char *path = xasprintf("%s/cashflow.csv", dir);
	csvw *w = csvw_open(path);
	free(path);
	if (!w || c->n == 0) {
		snprintf(c->note, sizeof c->note, "%s", w ? "no capex" : err_msg());
		if (w)
			csvw_abort(w);
		return;
	}
	static const char *const head[] = {"year", "runs", "capex_usd", "support_usd", "facility_usd", "energy_usd",
					   "residual_usd", "owned_usd", "owned_cum_usd", "owned_pv_cum_usd", "rented_usd",
					   "rented_cum_usd", "rented_pv_cum_usd"};
	for (unsigned i = 0; i < sizeof head / sizeof head[0]; i++)
		csvw_text(w, head[i]);
	csvw_end_row(w);
	plot_data pd = {0};
	pd.kind = PLOT_CASHFLOW;
	for (int i = 0; i < c->n; i++) {
		const model_cash_year *y = &c->y[i];
		double v[] = {y->runs, y->capex_usd, y->support_usd, y->facility_usd, y->energy_usd, y->residual_usd,
			      y->owned_usd, y->owned_cum_usd, y->owned_pv_cum_usd, y->rented_usd, y->rented_cum_usd,
			      y->rented_pv_cum_usd};
		csvw_int(w, y->year);
		for (unsigned k = 0; k < sizeof v / sizeof v[0]; k++)
			csvw_num(w, v[k], 10);
		csvw_end_row(w);
		plot_data_add_point(&pd, "owned, cumulative", y->year, y->owned_cum_usd, NAN);
		if (c->rent_id)
			plot_data_add_point(&pd, "rented, cumulative", y->year, y->rented_cum_usd, NAN);
	}
	c->ok = csvw_close(w) == 0;
	if (!c->ok) {
		snprintf(c->note, sizeof c->note, "%s", err_msg());
		plot_data_free(&pd);
		return;
	}
	char an[64];
	snprintf(an, sizeof an, "%s %dx%d", c->buy->sc.node.system_id, c->buy->sc.nodes, c->buy->sc.node.gpus_per_node);
	char *title = xasprintf("%s owned%s%s: cumulative cash by year", an, c->rent_id ? " vs the same runs rented on " : "",
				c->rent_id ? c->rent_id : "");
	plot_opts o = {.kind = PLOT_CASHFLOW, .svg = true, .title = title, .xlabel = "cumulative (USD)"};
	char *prefix = xasprintf("%s/cashflow", dir);
	c->chart_ok = plot_render(&pd, &o, prefix) == 0;
	if (!c->chart_ok)
		snprintf(c->note, sizeof c->note, "%s", err_msg());
	free(prefix);
	free(title);
	plot_data_free(&pd);
}

static void section_cashflow(rep_doc *d, const rep_cash *c, int gpus, double rate)
{
	char a[32], b[32], e[32], f[32], h[32];
	doc_h(d, 2, "Cash flow");
	if (!c->ok) {
		doc_p(d, "No cash flow at %d GPUs: %s.", gpus, c->buy ? c->note : "no bought option of the answer's GPU has a price");
		return;
	}
	const model_cash_year *last = &c->y[c->n - 1];
	doc_p(d, "Owning %s %dx%d for %d years at the stated use (%.0f runs a year): %s in year 0, then support, facility and "
		 "energy each year, the resale of %s back at the end: %s in all, %s discounted at the cost of capital (%.1f%% "
		 "a year).",
	      c->buy->sc.node.system_id, c->buy->sc.nodes, c->buy->sc.node.gpus_per_node, c->n - 1, c->y[c->n > 1].runs,
	      plan_fmt_usd(c->y[0].capex_usd, a, sizeof a), plan_fmt_usd(-last->residual_usd, b, sizeof b),
	      plan_fmt_usd(last->owned_cum_usd, e, sizeof e), plan_fmt_usd(last->owned_pv_cum_usd, f, sizeof f), 100 * rate);
	if (c->rent_id)
		doc_p(d, "The same runs rented on %s: %s in all (%s discounted). cashflow.csv has each year.", c->rent_id,
		      plan_fmt_usd(last->rented_cum_usd, h, sizeof h), plan_fmt_usd(last->rented_pv_cum_usd, a, sizeof a));
	if (c->chart_ok)
		doc_img(d, "cashflow.svg", "cumulative cash by year, owned and rented");
	else
		doc_p(d, "No cash-flow chart: %s", c->note);
}

/* Draws one chart of the placements into dir; false (with a note in the report) when it cannot. */
static bool chart(const char *dir, const char *csv_path, plot_kind kind, const char *cost_col, double budget_usd,
		  const char *title, const char *name, char *note, size_t len_B)
{
	csv_table t;
	plot_data pd = {0};
	bool ok = false;
	if (csv_table_load(&t, csv_path) < 0) {
		snprintf(note, len_B, "%s", err_msg());
		goto out;
	}
	plot_data_begin(&pd, kind);
	pd.cost_col = cost_col; /* the cost the reader ranked by (--cost) */
	if (plot_data_add(&pd, &t) < 0 || plot_data_end(&pd, csv_path) < 0) {
		snprintf(note, len_B, "%s", err_msg());
		goto out;
	}
	plot_opts o = {.kind = kind, .budget_usd = budget_usd, .svg = true, .png = false, .title = title};
	char *prefix = xasprintf("%s/%s", dir, name);
	ok = plot_render(&pd, &o, prefix) == 0;
	free(prefix);
	if (!ok)
		snprintf(note, len_B, "%s", err_msg());
out:
	plot_data_free(&pd);
	csv_table_free(&t);
	return ok;
}

/* Removes the flat temporary folder (only files this command wrote). */
static void remove_dir(const char *dir)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return;
	struct dirent *e;
	while ((e = readdir(dp)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		unlink(p);
		free(p);
	}
	closedir(dp);
	rmdir(dir);
}

/* report's own options; the shared ones and the question's are cli_scen_opts' and cli_ask_opts'. */
typedef struct rep_opts {
	const char *systems, *outdir;
	int gpus[REP_MAX_GPUS], ngpus;
} rep_opts;

static int opt_gpus(void *ctx, const cli_opt *o, const char *arg)
{
	rep_opts *ro = ctx;
	(void)o;
	return cli_parse_int_list("--gpus", arg, ro->gpus, REP_MAX_GPUS, &ro->ngpus) ? -1 : 0;
}

#define REP_STR(x) #x
#define REP_STR2(x) REP_STR(x)
static void report_table(rep_opts *ro, cli_opt *t)
{
	const cli_opt own[] = {
		CLI_O_STR("systems", &ro->systems, "  --systems LIST  candidate systems; " CLI_DEFAULT_SYSTEMS_HELP),
		CLI_O_CALL("gpus", opt_gpus, ro, "  --gpus LIST     GPU counts, e.g. 4,8,16 (at most " REP_STR2(REP_MAX_GPUS_N) ")\n"),
		CLI_O_STR("out", &ro->outdir, "  --out DIR       the folder to write (built as DIR.tmp-PID, renamed when complete)\n"),
		CLI_O_HELP,
		CLI_O_END,
	};
	memcpy(t, own, sizeof own);
}

static void report_usage(FILE *out)
{
	rep_opts ro;
	cli_opt own[5];
	report_table(&ro, own);
	fprintf(out,
		"usage: scaleplan report [--systems a,b,c] --gpus 4,8,16 [--budget USD] [--deadline D] --out DIR [options]\n"
		"\n"
		"Writes DIR/ (which must not exist): report.md and index.html (ranking by time to accuracy, each option's\n"
		"bottleneck and breakdown, stack, data path, storage, cost and energy, a Sensitivity section - the first GPU\n"
		"count's answer's cost per run at both ends of its prices, speed, utilisation, kWh price and PUE, and the\n"
		"input that could flip it against the runner-up -, buy against rent, the money and model assumptions with\n"
		"their sources), tta.svg, cost.svg and sensitivity.svg (gnuplot; left out with a note when it is missing\n"
		"or nothing is priced), cashflow.csv and cashflow.svg (the answer's cluster owned year by year),\n"
		"placements.csv (compare's columns), whatif.html (the planner in one page: compare in the browser) and\n"
		"costs.xlsx (each option's money as formulas over an Assumptions sheet); whatif.html and costs.xlsx are\n"
		"left out, with the reason, where this build has no Emscripten or libxlsxwriter. Every placement of each\n"
		"GPU count on each system, as compare.\n");
	cli_opt_help(out, own, NULL);
	fprintf(out, "\n");
	cli_ask_help(out, false);
	fprintf(out, "\n");
	cli_scen_help_except(out, "system,gpus-per-node,nodes,global-batch,measured"); /* chosen per placement */
}

/* The files for readers who will not run the command line (write_reader_files): which were written. */
typedef struct rep_reader {
	bool whatif, xlsx;
} rep_reader;

/* report.md and index.html into dir. */
static int write_docs(const char *dir, int argc, char **argv, const cli_scen *s, cli_row *rows, int nrows,
		      const rep_group *g, int ng, const plan_question *q, bool tta_ok, bool cost_ok, const char *tta_note,
		      const char *cost_note, const rep_sens *rs, bool sens_ok, const char *sens_note, const rep_cash *cash,
		      const rep_reader *rd)
{
	char *mdp = xasprintf("%s/report.md", dir), *htp = xasprintf("%s/index.html", dir);
	rep_doc d = {fopen(mdp, "w"), fopen(htp, "w")};
	int rc = EXIT_OK;
	if (!d.md || !d.html) {
		fprintf(stderr, "scaleplan report: cannot write in %s: %s\n", dir, strerror(errno));
		rc = EXIT_ENV;
		goto out;
	}
	fputs(html_head, d.html);
	char cmd[1024] = "scaleplan";
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(cmd);
		snprintf(cmd + n, sizeof cmd - n, " %s", argv[i]);
	}
	doc_h(&d, 1, "Which cluster for ResNet-50? A procurement report");
	doc_p(&d, "Written by scaleplan %s: %s. Every placement (nodes x GPUs per node) of each GPU count on each "
		  "system is predicted by the analytic model and ranked by %s; whole servers%s.",
	      SCALEPLAN_VERSION, cmd, plan_goal_name(q), q->partial_nodes ? " and partly used ones" : " only");
	section_answer(&d, rows, g, ng, q);
	doc_h(&d, 2, "Charts");
	if (tta_ok)
		doc_img(&d, "tta.svg", "time to accuracy vs GPUs, one line per system and GPUs per node");
	else
		doc_p(&d, "No time-to-accuracy chart: %s", tta_note);
	if (cost_ok)
		doc_img(&d, "cost.svg", q->cost == PLAN_RENT  ? "rent and energy per run vs time to accuracy, Pareto front marked"
					: q->cost == PLAN_TCO ? "owner's cost and energy per run vs time to accuracy, Pareto front marked"
							      : "capex and energy per run vs time to accuracy, Pareto front marked");
	else
		doc_p(&d, "No cost chart: %s", cost_note);
	for (int k = 0; k < ng; k++)
		section_ranking(&d, rows, &g[k], q);
	section_sensitivity(&d, rs, sens_ok, sens_note, rows, g, ng, q);
	section_cashflow(&d, cash, g[0].gpus, s->spec.money.finance_rate);
	section_price_dates(&d, s, rows, nrows);
	section_breakdown(&d, rows, nrows);
	section_setup(&d, s, rows, nrows);
	section_assumptions(&d, s);
	doc_h(&d, 2, "Files");
	doc_p(&d, "placements.csv: every option with predict's columns (one row per placement). report.md and "
		  "index.html: this report.%s%s%s%s%s", tta_ok || cost_ok ? " " : "",
	      tta_ok && cost_ok ? "tta.svg, cost.svg: the charts" : tta_ok ? "tta.svg: the chart" : cost_ok ? "cost.svg: the chart" : "",
	      tta_ok || cost_ok ? " (scaleplan plot draws them from placements.csv)." : "",
	      sens_ok ? " sensitivity.svg: the Sensitivity section's tornado chart." : "",
	      !cash->ok ? "" : cash->chart_ok ? " cashflow.csv, cashflow.svg: the Cash flow section's years." : " cashflow.csv: the Cash flow section's years.");
	if (rd->whatif || rd->xlsx)
		doc_p(&d, "%s%s", rd->whatif ? "whatif.html: the planner in one page (compare in the browser, the inputs in the "
					       "page's address; it loads nothing from a network). " : "",
		      rd->xlsx ? "costs.xlsx: each option's money as formulas over its Assumptions sheet (every price and "
				 "input with its source), so that a spreadsheet recalculates every cost when an input changes." : "");
	fputs("</body>\n</html>\n", d.html);
	if (ferror(d.md) || ferror(d.html)) {
		fprintf(stderr, "scaleplan report: write error in %s\n", dir);
		rc = EXIT_ENV;
	}
out:
	if (d.md && fclose(d.md) != 0)
		rc = EXIT_ENV;
	if (d.html && fclose(d.html) != 0)
		rc = EXIT_ENV;
	free(mdp);
	free(htp);
	return rc;
}

/* whatif.html and costs.xlsx (web/) into dir, for the readers who will not run the command line; a file
 * this build cannot write is left out with its reason (printed, then the report goes on). EXIT_OK or
 * EXIT_ENV (a write failed). */
static int write_reader_files(const char *dir, int argc, char **argv, const struct option *opts, const cli_scen *s,
			      const plan_question *q, const cli_row *rows, int nrows, rep_reader *rd)
{
	char cmd[1024] = "scaleplan", why[512];
	for (int i = 0; i < argc; i++)
		snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " %s", argv[i]);
	char *path = xasprintf("%s/whatif.html", dir), *frag = web_fragment(argc, argv, opts);
	int rc = web_whatif_write(path, cmd, frag, why, sizeof why);
	free(path);
	free(frag);
	rd->whatif = rc == 0;
	if (rc == WEB_LEFT_OUT)
		printf("scaleplan report: whatif.html left out: %s\n", why);
	if (rc < 0)
		goto fail;
	path = xasprintf("%s/costs.xlsx", dir);
	rc = web_costs_write(path, &s->db, &s->spec, &s->params, q, rows, nrows, why, sizeof why);
	free(path);
	rd->xlsx = rc == 0;
	if (rc == WEB_LEFT_OUT)
		printf("scaleplan report: costs.xlsx left out: %s\n", why);
	if (rc < 0)
		goto fail;
	return EXIT_OK;
fail:
	fprintf(stderr, "scaleplan report: %s\n", err_msg());
	return EXIT_ENV;
}

/* True (message printed, *rc set to 130/143) once SIGINT or SIGTERM has arrived. */
static bool stopped(int *rc)
{
	if (!intr_pending())
		return false;
	fprintf(stderr, "scaleplan report: stopped by %s; no folder written\n", intr_name());
	*rc = intr_exit_code();
	return true;
}

/* One report being built: the options, the placements of each GPU count, the folder under construction. */
typedef struct rep_run {
	cli_scen s;
	rep_opts ro;
	plan_question q;
	struct option opts[80]; /* what getopt knew: the page's fragment reads the command line with them */
	const hw_system *cand[REP_MAX_SYSTEMS];
	int ncand, nrows, cap, skipped, skipped_whole;
	cli_row *rows;
	rep_group g[REP_MAX_GPUS];
	char *tmpdir, *csvp;
} rep_run;

/* The options into r and their checks, before any work. EXIT_OK, EXIT_INPUT, or -1 after --help. */
static int rep_parse(rep_run *r, int argc, char **argv)
{
	cli_opt scen[CLI_SCEN_NOPTS], ask[CLI_ASK_NOPTS], own[5];
	cli_ask qa = {.cmd = "report", .q = &r->q};
	cli_scen_opts(&r->s, scen);
	cli_ask_opts(&qa, ask);
	report_table(&r->ro, own);
	cli_parse p = {.cmd = "report", .tables = {scen, ask, own}, .usage = report_usage, .max_args = 0};
	int rc = cli_opt_parse(&p, argc, argv);
	if (rc || p.done)
		return p.done ? -1 : rc;
	int n = cli_opt_longopts(scen, 0, r->opts, 0, 79);
	n = cli_opt_longopts(ask, 0, r->opts, n, 79);
	n = cli_opt_longopts(own, 0, r->opts, n, 79);
	r->opts[n] = (struct option){0};
	if (r->ro.ngpus == 0 || !r->ro.outdir) {
		fprintf(stderr, "scaleplan report: --gpus and --out are required (e.g. --gpus 4,8,16 --out rep; "
				"--systems as compare: today's products by default)\n");
		return EXIT_INPUT;
	}
	for (int i = 0; i < r->ro.ngpus; i++)
		if (r->ro.gpus[i] < 1 || r->ro.gpus[i] > 65536) {
			fprintf(stderr, "scaleplan report: --gpus: %d: expected 1..65536\n", r->ro.gpus[i]);
			return EXIT_INPUT;
		}
	const plan_spec *sp = &r->s.spec;
	if (sp->system_id || sp->gpus_per_node || sp->nodes != 1 || sp->global_batch || sp->nmeasured) {
		fprintf(stderr, "scaleplan report: --system/--gpus-per-node/--nodes/--global-batch/--measured are chosen "
				"per placement; use --systems and --gpus\n");
		return EXIT_INPUT;
	}
	struct stat st;
	if ((rc = cli_check_out("report", "--out", r->ro.outdir, true)))
		return rc;
	if (stat(r->ro.outdir, &st) == 0) {
		fprintf(stderr, "scaleplan report: --out %s: exists; remove it or name another folder\n", r->ro.outdir);
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

/* Every placement of each GPU count on the candidates, each count's rows ranked. EXIT_OK or EXIT_INPUT. */
static int rep_place(rep_run *r)
{
	int rc = cli_candidates(&r->s, "report", r->ro.systems, &r->q, r->cand, REP_MAX_SYSTEMS, &r->ncand);
	for (int k = 0; !rc && k < r->ro.ngpus; k++) {
		int net0 = r->skipped, whole0 = r->skipped_whole;
		rep_group *g = &r->g[k];
		g->gpus = r->ro.gpus[k];
		g->first = r->nrows;
		rc = cli_placements(&r->s, "report", &r->q, r->cand, r->ncand, g->gpus, &r->rows, &r->nrows, &r->cap,
				    &r->skipped, &r->skipped_whole);
		if (rc)
			break;
		g->n = r->nrows - g->first;
		if (g->n == 0) /* the true reason, as compare gives it: no network, or another node size */
			return cli_no_placement("report", g->gpus, r->skipped - net0, r->skipped_whole - whole0);
		plan_options_sort(&r->q, r->rows + g->first, g->n);
	}
	return rc;
}

/* DIR.tmp-PID made and placements.csv written in it: each GPU count's rows over its own pick (the answer's).
 * EXIT_OK or an exit code (message printed). */
static int rep_placements_csv(rep_run *r)
{
	int rc = EXIT_OK;
	r->tmpdir = xasprintf("%s.tmp-%ld", r->ro.outdir, (long)getpid());
	if (mkdir(r->tmpdir, 0777) != 0) {
		/* README's rule: a missing parent folder is 1, permission or disk 2 */
		rc = exit_code_of(err_path(r->tmpdir, errno, "a folder in an existing directory"));
		fprintf(stderr, "scaleplan report: --out %s\n", err_msg());
		free(r->tmpdir);
		r->tmpdir = NULL;
		return rc;
	}
	r->csvp = xasprintf("%s/placements.csv", r->tmpdir);
	csvw *w = csvw_open(r->csvp);
	if (!w) {
		fprintf(stderr, "scaleplan report: %s\n", err_msg());
		return EXIT_ENV;
	}
	cli_option_csv_header(w);
	for (int k = 0; k < r->ro.ngpus; k++) {
		plan_answer a;
		const rep_group *g = &r->g[k];
		plan_decide(&r->q, r->rows + g->first, g->n, &a);
		for (int i = g->first; i < g->first + g->n; i++)
			cli_option_csv_row(w, &r->q, &r->rows[i].sc, &r->rows[i].r, &r->rows[i].v,
					   a.winner ? &a.winner->sc : NULL, a.winner ? &a.winner->r : NULL);
	}
	int crc = csvw_close(w);
	if (stopped(&rc)) /* a signal during the write: the writer refused to rename; say so as everywhere */
		return rc;
	if (crc) {
		fprintf(stderr, "scaleplan report: %s\n", err_msg());
		return exit_code_of(crc);
	}
	return EXIT_OK;
}

/* What the folder holds besides placements.csv (charts, sensitivity, cash flow, reader files, the two
 * documents), for the closing lines. */
typedef struct rep_made {
	bool tta_ok, cost_ok, sens_ok;
	rep_reader rd;
} rep_made;

/* The charts, the sensitivity, the cash flow, the readers' files and the documents into the folder.
 * EXIT_OK or an exit code (message printed). */
static int rep_files(rep_run *r, int argc, char **argv, rep_made *m)
{
	char tta_note[512] = "", cost_note[512] = "", sens_note[512] = "";
	int priced = 0, rc = EXIT_OK;
	m->tta_ok = chart(r->tmpdir, r->csvp, PLOT_TTA, NULL, NAN, NULL, "tta", tta_note, sizeof tta_note);
	for (int i = 0; i < r->nrows; i++)
		priced += r->rows[i].r.fits && isfinite(plan_cost_usd(r->q.cost, &r->rows[i].r));
	static const char *const cost_cols[] = {[PLAN_CAPEX] = "capex_usd", [PLAN_TCO] = "tco_usd", [PLAN_RENT] = "rent_usd"};
	if (priced == 0)
		snprintf(cost_note, sizeof cost_note, "none of these systems has a %s price in the hardware database "
			 "(`scaleplan hw show ID`; an --hwdb overlay can add one).", plan_cost_name(r->q.cost));
	else
		m->cost_ok = chart(r->tmpdir, r->csvp, PLOT_COST, cost_cols[r->q.cost], r->q.budget_usd, NULL, "cost",
				   cost_note, sizeof cost_note);
	if (!m->tta_ok)
		fprintf(stderr, "scaleplan report: no charts: %s\n", tta_note);
	rep_sens rs;
	plan_sens_compute(&r->q, r->rows + r->g[0].first, r->g[0].n, r->g[0].gpus, &rs);
	m->sens_ok = rs.ok && sens_chart(r->tmpdir, &rs, sens_note, sizeof sens_note);
	rep_cash cash;
	cashflow_write(r->tmpdir, r->rows, &r->g[0], &r->q, &cash);
	if (stopped(&rc))
		return rc;
	rc = write_reader_files(r->tmpdir, argc, argv, r->opts, &r->s, &r->q, r->rows, r->nrows, &m->rd);
	if (rc || stopped(&rc))
		return rc;
	rc = write_docs(r->tmpdir, argc, argv, &r->s, r->rows, r->nrows, r->g, r->ro.ngpus, &r->q, m->tta_ok, m->cost_ok,
			tta_note, cost_note, &rs, m->sens_ok, sens_note, &cash, &m->rd);
	if (!rc)
		stopped(&rc);
	return rc;
}

/* The closing lines: what was written where, and what was left out. */
static void rep_print_done(const rep_run *r, const rep_made *m)
{
	int ng = r->ro.ngpus;
	printf("scaleplan report: %d option%s (%d system%s x %d GPU count%s) in %s/: report.md, index.html, "
	       "placements.csv%s%s%s%s\n",
	       r->nrows, r->nrows == 1 ? "" : "s", r->ncand, r->ncand == 1 ? "" : "s", ng, ng == 1 ? "" : "s",
	       r->ro.outdir, m->tta_ok ? ", tta.svg" : "", m->cost_ok ? ", cost.svg" : "",
	       m->rd.whatif ? ", whatif.html" : "", m->rd.xlsx ? ", costs.xlsx" : "");
	if (m->sens_ok)
		printf("sensitivity.svg: the answer's cost per run at %d GPUs against each input\n", r->g[0].gpus);
	if (r->skipped)
		printf("(%d multi-node placement%s skipped: system without a network in the database)\n", r->skipped,
		       r->skipped > 1 ? "s" : "");
}

int cmd_report(int argc, char **argv)
{
	rep_run *r = xcalloc(1, sizeof *r);
	rep_made m = {0};
	plan_question_init(&r->q);
	cli_scen_init(&r->s, "report");
	int rc = rep_parse(r, argc, argv);
	if (rc == EXIT_OK && intr_install()) {
		fprintf(stderr, "scaleplan report: %s\n", err_msg());
		rc = EXIT_ENV;
	}
	if (rc == EXIT_OK && !(rc = cli_scen_load(&r->s)) && !(rc = rep_place(r)) && !(rc = rep_placements_csv(r)) &&
	    !(rc = rep_files(r, argc, argv, &m))) {
		if (rename(r->tmpdir, r->ro.outdir) != 0) {
			fprintf(stderr, "scaleplan report: cannot rename %s to %s: %s\n", r->tmpdir, r->ro.outdir,
				strerror(errno));
			rc = EXIT_ENV;
		} else
			rep_print_done(r, &m);
	}
	if (rc && r->tmpdir)
		remove_dir(r->tmpdir);
	free(r->tmpdir);
	free(r->csvp);
	free(r->rows);
	cli_scen_free(&r->s);
	free(r);
	return rc < 0 ? EXIT_OK : rc; /* -1: --help printed */
}
