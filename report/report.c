/* report/: report.md and index.html (the same sections and tables, each table in both), the charts they show
 * and cashflow.csv (report.h). Every text placed in HTML is escaped; Markdown cells escape | and markup.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "report/report.h"
#include "plot/plot.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SCALEPLAN_VERSION
#define SCALEPLAN_VERSION "0.1.0"
#endif

/* ---- a table written to both documents ---- */

typedef struct rep_table {
	const char *id;     /* HTML id */
	int ncols, nrows;
	const char **head;  /* [ncols] */
	char **cells;       /* [nrows * ncols], heap strings */
	int ncells, cap;
} rep_table;

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
	strbuf s;
	strbuf_init(&s);
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&s, fmt, ap);
	va_end(ap);
	t->cells[t->ncells++] = s.s; /* the cell owns the text: tab_free frees it */
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
	strbuf s;
	strbuf_init(&s);
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&s, fmt, ap);
	va_end(ap);
	md_text(d->md, s.s);
	fputs("\n\n", d->md);
	fputs("<p>", d->html);
	html_text(d->html, s.s);
	fputs("</p>\n", d->html);
	strbuf_free(&s);
}

/* An answer of plan_answer_write: its first line a paragraph after `lead`, its labelled lines a list. */
static void doc_answer(rep_doc *d, const char *lead, const char *text)
{
	const char *nl = strchr(text, '\n');
	char *first = xasprintf("%s%.*s", lead, nl ? (int)(nl - text) : (int)strlen(text), text);
	doc_p(d, "%s", first);
	free(first);
	if (!nl || !nl[1])
		return;
	fputs("<ul>\n", d->html);
	for (const char *l = nl + 1; *l;) {
		const char *e = strchr(l, '\n');
		char *line = xasprintf("%.*s", e ? (int)(e - l) : (int)strlen(l), l);
		const char *t = line + strspn(line, " ");
		fputs("- ", d->md);
		md_text(d->md, t);
		fputs("\n", d->md);
		fputs("<li>", d->html);
		html_text(d->html, t);
		fputs("</li>\n", d->html);
		free(line);
		l = e ? e + 1 : l + strlen(l);
	}
	fputs("\n", d->md);
	fputs("</ul>\n", d->html);
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

static const char *place(const plan_option *w, char *buf, size_t len_B)
{
	snprintf(buf, len_B, "%dx%d", w->sc.nodes, w->sc.node.gpus_per_node);
	return buf;
}

/* Whether any GPU of architecture `arch` (gpus.csv's name, as plan_resolve's basis compares it) has results. */
static bool arch_measured(const hw_db *db, const char *arch)
{
	for (int i = 0; i < db->ngpus; i++)
		if (strcmp(db->gpus[i].arch, arch) == 0 && model_gpu_measured(db->gpus[i].id))
			return true;
	return false;
}

/* The generation of the newest architecture (archs.csv sm) that has GPUs in the database and no results:
 * what an estimate is today ("Blackwell"); NULL when every architecture has results. */
static const char *newest_unmeasured(const hw_db *db)
{
	const hw_arch *newest = NULL;
	for (int i = 0; i < db->ngpus; i++) {
		const hw_arch *a = db->gpus[i].arch_info;
		if (a && (!newest || a->sm > newest->sm) && !arch_measured(db, db->gpus[i].arch))
			newest = a;
	}
	return newest ? newest->generation : NULL;
}

/* "H100 to H200": the first transfer validate checks within one architecture (gpus.csv checked_from), by
 * chip; "" when none is. */
static const char *checked_within(const hw_db *db, char *buf, size_t len_B)
{
	buf[0] = '\0';
	for (int i = 0; i < db->ngpus && !buf[0]; i++) {
		const hw_gpu *to = &db->gpus[i];
		const hw_gpu *from = *to->checked_from_id ? hw_gpu_find(db, to->checked_from_id) : NULL;
		if (from && strcmp(from->arch, to->arch) == 0)
			snprintf(buf, len_B, "%s to %s", *from->chip ? from->chip : from->id, *to->chip ? to->chip : to->id);
	}
	return buf;
}

/* What the intervals in parentheses mean and how each option's GPU is known (basis), once for the report;
 * the GPUs it names come from the database (archs.csv, gpus.csv chip and checked_from). */
static void section_uncertainty(rep_doc *d, const hw_db *db, const plan_option *rows, const rep_group *g, int ng)
{
	int nb[MODEL_NBASES] = {0};
	char within[64];
	const char *newest = newest_unmeasured(db);
	for (int k = 0; k < ng; k++)
		for (int i = 0; i < g[k].n; i++)
			nb[rows[g[k].first + i].r.basis]++;
	checked_within(db, within, sizeof within);
	doc_p(d, "How sure: a time in parentheses, e.g. 12.3 min (11.8-13.1), is a 90%% prediction interval - nine times "
		 "in ten the real run lands inside. It comes from the model's errors on runs it was not fitted to "
		 "(scaleplan validate: single-node throughputs and the MLPerf v4.0 multi-node results), by scale (one "
		 "node, 2-16 nodes, more) and by basis, the last column: measured (results of this GPU are in that data) "
		 "%d option%s, transfer (only other GPUs of its architecture have results; the interval widened by how far "
		 "the model missed %s%s) %d, estimate (no results of its architecture%s%s%s; "
		 "widened by the largest miss of one GPU generation to the next it could check) %d. Two options are "
		 "compared by the ratio of their times, whose interval is narrower: the errors two predictions share "
		 "cancel in it (the same hardware from two vendors: within 3.8%%). The pick: %s. An estimate is a "
		 "starting point for a quote, not a measured answer. Beyond 16 nodes " MODEL_SCALE_TOP_NOTE ".",
	      nb[MODEL_BASIS_MEASURED], nb[MODEL_BASIS_MEASURED] == 1 ? "" : "s", *within ? "from " : "within one",
	      *within ? within : " architecture", nb[MODEL_BASIS_TRANSFER], newest ? ": " : "", newest ? newest : "",
	      newest ? " today" : "", nb[MODEL_BASIS_ESTIMATE], PLAN_RULE);
}

/* The answer first: per GPU count the decision compare prints (plan_decide), with its cost. */
static void section_answer(rep_doc *d, const hw_db *db, const model_params *params, plan_option *rows,
			   const rep_group *g, int ng, const plan_question *q)
{
	doc_h(d, 2, "Answer");
	for (int k = 0; k < ng; k++) {
		plan_answer a;
		strbuf text;
		char lead[48];
		strbuf_init(&text);
		plan_decide(q, rows + g[k].first, g[k].n, &a);
		plan_answer_write(q, &a, g[k].gpus, &text);
		plan_flip flip; /* what the pick rests on, as compare says it */
		plan_flip_find(q, rows + g[k].first, g[k].n, &a, params, &flip);
		plan_flip_text(&flip, &a, &text);
		snprintf(lead, sizeof lead, "%d GPU%s: ", g[k].gpus, g[k].gpus == 1 ? "" : "s");
		doc_answer(d, lead, text.s);
		strbuf_free(&text);
	}
	section_uncertainty(d, db, rows, g, ng);
}

static void section_ranking(rep_doc *d, plan_option *rows, const rep_group *g, const plan_question *q)
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
	int *fold = xmalloc((size_t)(g->n > 0 ? g->n : 1) * sizeof(*fold));
	if (plan_fold(rows + g->first, g->n, a.winner, fold))
		doc_p(d, "Offers of the same hardware and time share a row: the system column lists the others (+) with "
			 "their capex or rent per run; placements.csv has a row for each.");
	rep_table t;
	tab_init(&t, id, 15, head);
	for (int i = 0; i < g->n; i++) {
		const plan_option *w = &rows[g->first + i];
		char b1[48], b2[48];
		if (fold[i] >= 0)
			continue;
		tab_cell(&t, w->v.pick ? "%d answer" : "%d", i + 1);
		strbuf sys;
		strbuf_init(&sys);
		strbuf_addf(&sys, "%s", w->sc.node.system_id);
		for (int k = i + 1; k < g->n; k++) {
			const model_cost *c = &rows[g->first + k].cost;
			if (fold[k] != i)
				continue;
			strbuf_addf(&sys, " + %s %s%s", rows[g->first + k].sc.node.system_id,
				    isfinite(c->capex_usd) ? "" : isfinite(c->rent_usd) ? "rent " : "",
				    plan_fmt_usd(isfinite(c->capex_usd) ? c->capex_usd : c->rent_usd, b1, sizeof b1));
		}
		tab_cell(&t, "%s", sys.s);
		strbuf_free(&sys);
		tab_cell(&t, "%s", w->sc.node.gpu_id);
		tab_cell(&t, "%s", place(w, b1, sizeof b1));
		tab_cell(&t, "%s", plan_fmt_range(w->r.tta_s, w->r.tta_lo_s, w->r.tta_hi_s, b2, sizeof b2));
		tab_cell(&t, "%s", plan_fmt_range(w->r.ttt_s, w->r.ttt_lo_s, w->r.ttt_hi_s, b1, sizeof b1));
		tab_cell(&t, "%.0f", w->r.throughput_img_s);
		tab_cell(&t, "%.1f%%", 100 * w->r.scaling_eff);
		tab_cell(&t, "%s", w->r.fits ? model_bottleneck_name(w->r.bottleneck) : "memory");
		tab_cell(&t, "%s", plan_fmt_usd(w->cost.capex_usd, b1, sizeof b1));
		tab_cell(&t, "%s", plan_fmt_usd(w->cost.rent_usd, b1, sizeof b1));
		tab_cell(&t, "%s", plan_fmt_usd(w->cost.tco_usd, b1, sizeof b1));
		tab_cell(&t, isfinite(w->cost.energy_J) ? "%.1f" : "-", w->cost.energy_J / 3.6e6);
		strbuf f;
		strbuf_init(&f);
		tab_cell(&t, "%s", plan_fails_text(q, &w->v, &f));
		strbuf_free(&f);
		tab_cell(&t, "%s", model_basis_name(w->r.basis));
	}
	doc_table(d, &t);
	tab_free(&t);
	free(fold);
}

static void section_breakdown(rep_doc *d, const plan_option *rows, int nrows)
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
		const plan_option *w = &rows[i];
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
		tab_cell(&t, "%s", plan_fmt_duration(r->startup_s, b[1], sizeof b[1]));
		tab_cell(&t, "%s", plan_fmt_duration(r->staging_s, b[2], sizeof b[2]));
		tab_cell(&t, "%.1f x %s", r->epochs, plan_fmt_duration(r->epoch_s, b[3], sizeof b[3]));
		tab_cell(&t, "%s", plan_fmt_duration(r->eval_s, b[4], sizeof b[4]));
		tab_cell(&t, "%s", plan_fmt_duration(r->ttt_s, b[5], sizeof b[5]));
		tab_cell(&t, "%s", plan_fmt_duration(r->tta_s, b[0], sizeof b[0]));
	}
	doc_table(d, &t);
	tab_free(&t);
}

static void section_setup(rep_doc *d, const rep_input *s, const plan_option *rows, int nrows)
{
	static const char *head[] = {"GPUs", "system", "nodes x GPUs", "batch per GPU", "precision", "stack",
				     "data path", "storage", "power W", "capex USD", "energy kWh", "kg CO2e per run"};
	doc_h(d, 2, "Stack, data path, storage, cost and energy");
	doc_p(d, "capex = whole units bought at list price (an NVL72 rack is one unit of 18 trays; '-' where the "
		 "database has no price); energy per run = average power x time to accuracy; kg CO2e per run = that "
		 "energy x PUE x the grid's carbon intensity (--grid-carbon), for the options one owns (a provider's "
		 "grid is its own). The stack (hw list stacks) sets the data path and whether the data "
		 "set is staged to every node's drives before the run.");
	rep_table t;
	tab_init(&t, "setup", 12, head);
	for (int i = 0; i < nrows; i++) {
		const plan_option *w = &rows[i];
		char b[96];
		tab_cell(&t, "%d", w->r.gpus);
		tab_cell(&t, "%s", w->sc.node.system_id);
		tab_cell(&t, "%s", place(w, b, sizeof b));
		tab_cell(&t, "%d", w->sc.batch_per_gpu);
		tab_cell(&t, "%s", model_precision_name(w->sc.precision));
		tab_cell(&t, "%s", w->sc.stack.id);
		tab_cell(&t, "%s decode%s", model_data_name(w->sc.data), w->sc.stack.staged ? ", staged" : "");
		tab_cell(&t, "%s", w->sc.node.storage_id ? w->sc.node.storage_id : "node drives");
		tab_cell(&t, isfinite(w->cost.power_W) ? "%.0f" : "-", w->cost.power_W);
		tab_cell(&t, "%s", plan_fmt_usd(w->cost.capex_usd, b, sizeof b));
		tab_cell(&t, isfinite(w->cost.energy_J) ? "%.1f" : "-", w->cost.energy_J / 3.6e6);
		tab_cell(&t, isfinite(w->cost.capex_usd) && isfinite(w->cost.co2_kg) ? "%.2f" : "-", w->cost.co2_kg);
	}
	doc_table(d, &t);
	tab_free(&t);
	strbuf eol;
	strbuf_init(&eol);
	plan_eol_text(s->db, rows, nrows, &eol);
	if (eol.len_B)
		doc_p(d, "Note: %s.", eol.s);
	strbuf_free(&eol);
}

static void section_money(rep_doc *d, const rep_input *s);

static void section_assumptions(rep_doc *d, const rep_input *s)
{
	static const char *head[] = {"parameter", "value", "default", "unit", "source"};
	doc_h(d, 2, "Assumptions");
	doc_p(d, "ResNet-50 v1.5 trained on %.0f images per epoch to %.1f%% top-1; epochs from the MLPerf convergence "
		 "curve of the global batch unless --epochs; precision %s (a GPU without it runs the nearest it has); "
		 "batch per GPU: of 256, 128 ... 8 that fit, the one of least time to accuracy (inside the measured "
		 "convergence range first). Hardware from the built-in database%s "
		 "(`scaleplan hw show ID` gives each figure's source).",
	      s->spec->images, 100 * s->spec->target_top1, model_precision_name(s->spec->precision), s->overlay ? " with an overlay" : "");
	section_money(d, s);
	doc_p(d, "The model's parameters:");
	rep_table t;
	tab_init(&t, "params", 5, head);
	for (int i = 0; i < model_params_count(); i++) {
		const model_param_info *in = model_params_info(i);
		double v = NAN;
		model_params_get(s->params, in->name, &v);
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

static const char *opt_name(const plan_option *w, char *buf, size_t len_B)
{
	snprintf(buf, len_B, "%s %dx%d", w->sc.node.system_id, w->sc.nodes, w->sc.node.gpus_per_node);
	return buf;
}

/* The tornado chart into dir/sensitivity.svg: bars sorted by width, widest on top. */
static bool sens_chart(const char *dir, const plan_sens *rs, char *note, size_t len_B)
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
static void sens_counts(rep_doc *d, plan_option *rows, const rep_group *g, int ng, const plan_question *q)
{
	for (int k = 0; k < ng; k++) {
		plan_sens ks;
		strbuf text;
		strbuf_init(&text);
		plan_sens_compute(q, rows + g[k].first, g[k].n, g[k].gpus, &ks);
		plan_sens_text(&ks, &text);
		doc_p(d, "%s", text.s);
		strbuf_free(&text);
	}
}

static void section_sensitivity(rep_doc *d, const plan_sens *rs, bool chart_ok, const char *chart_note, plan_option *rows,
				const rep_group *g, int ng, const plan_question *q)
{
	static const char *head[] = {"input", "low end", "high end", "cost at low end", "cost at high end",
				     "could flip the decision"};
	char a[64], b[64], c[32], e[32], ranges[128];
	doc_h(d, 2, "Sensitivity");
	if (!rs->ok) {
		doc_p(d, "The answer at %d GPUs has no price in the database, so there is no cost to move.", rs->gpus);
		sens_counts(d, rows, g, ng, q);
		return;
	}
	doc_p(d, "The answer at %d GPUs, %s, costs %s per run (%s). Each input below is moved alone to both ends of "
		 "its range; the chart draws the cost at each end, the widest bar on top. Prices: each price's own "
		 "range or its kind's width (docs/prices.md); speed: the run time +-%.0f%%; %s.",
	      rs->gpus, opt_name(rs->ans, a, sizeof a), plan_fmt_usd(rs->base, b, sizeof b),
	      rs->rent ? "rent as billed" : "the owner's cost: capex share, support, facility and energy", 100 * rs->speed_err,
	      model_sens_ranges_text(ranges, sizeof ranges));
	if (chart_ok)
		doc_img(d, "sensitivity.svg", "tornado chart: the answer's cost per run at the low and high end of each input");
	else
		doc_p(d, "No sensitivity chart: %s", chart_note);
	rep_table t;
	tab_init(&t, "sensitivity", 6, head);
	int nflip = 0;
	strbuf names;
	strbuf_init(&names);
	for (int i = 0; i < MODEL_SENS_N; i++) {
		tab_cell(&t, "%s", model_sens_name((model_sens_input)i));
		tab_cell(&t, "%s", sens_in(i, rs->s[i].lo_in, a, sizeof a));
		tab_cell(&t, "%s", sens_in(i, rs->s[i].hi_in, b, sizeof b));
		tab_cell(&t, "%s", plan_fmt_usd(rs->s[i].lo_usd, c, sizeof c));
		tab_cell(&t, "%s", plan_fmt_usd(rs->s[i].hi_usd, e, sizeof e));
		tab_cell(&t, "%s", !rs->alt ? "-" : rs->flips[i] ? "yes" : "no");
		if (rs->flips[i]) {
			int left = 0; /* flipping inputs after this one: ", " before all but the last, " and " before it */
			for (int j = i + 1; j < MODEL_SENS_N; j++)
				left += rs->flips[j];
			strbuf_addf(&names, "%s%s", !nflip ? "" : left ? ", " : " and ", model_sens_name((model_sens_input)i));
			nflip++;
		}
	}
	doc_table(d, &t);
	tab_free(&t);
	if (!rs->alt)
		doc_p(d, "No other option at %d GPUs has such a cost to weigh the answer against.", rs->gpus);
	else if (nflip)
		doc_p(d, "Against %s (%s per run): %s could flip which of the two costs less per run over %s range%s.",
		      opt_name(rs->alt, a, sizeof a), plan_fmt_usd(rs->alt_base, b, sizeof b), names.s,
		      nflip > 1 ? "their" : "its", nflip > 1 ? "s" : "");
	else
		doc_p(d, "Against %s (%s per run): none of these inputs, over its range, changes which of the two costs "
			 "less per run.", opt_name(rs->alt, a, sizeof a), plan_fmt_usd(rs->alt_base, b, sizeof b));
	strbuf_free(&names);
	sens_counts(d, rows, g, ng, q);
}

/* The money assumptions a finance reader checks, each with its flag and source: model_money_inputs' rows
 * that have a flag (the one table), then the rental term. */
static void section_money(rep_doc *d, const rep_input *s)
{
	static const char *head[] = {"input", "value", "flag", "source"};
	const model_money *m = &s->spec->money;
	int n;
	const model_money_input *in = model_money_inputs(&n);
	rep_table t;
	doc_p(d, "Money (docs/prices.md has every price with its source and range):");
	tab_init(&t, "money", 4, head);
	for (int i = 0; i < n; i++) {
		if (!in[i].flag)
			continue;
		tab_cell(&t, "%s", in[i].label);
		tab_cell(&t, "%g%s%s", model_money_get(m, &in[i]), *in[i].unit ? " " : "", in[i].unit);
		tab_cell(&t, "--%s", in[i].flag);
		tab_cell(&t, "%s", in[i].source);
	}
	tab_cell(&t, "%s", "rental rate");
	tab_cell(&t, "%s", s->spec->rent_term_years == 1 ? "1-year" : s->spec->rent_term_years == 3 ? "3-year"
			   : s->spec->rent_term_years == PLAN_RENT_SPOT ? "spot" : "on demand");
	tab_cell(&t, "%s", "--rent-term");
	tab_cell(&t, "%s", "each system's rent_source (hw show ID)");
	tab_cell(&t, "%s", "rental quote weighed in buy vs rent");
	if (isfinite(s->spec->rent_quote_usd_gpu_h))
		tab_cell(&t, "%g USD per GPU-hour", s->spec->rent_quote_usd_gpu_h);
	else
		tab_cell(&t, "%s", "none: the cheapest rate of the GPU");
	tab_cell(&t, "%s", "--rent-rate");
	tab_cell(&t, "%s", "the buyer's quote; by default the database's cheapest rate of the GPU, the market's (market-*) "
			   "included");
	doc_table(d, &t);
	tab_free(&t);
}

/* Each system's price and rental rate with its kind and date (systems.csv), once per system, so a reader
 * sees how old each figure is. */
static void section_price_dates(rep_doc *d, const rep_input *s, const plan_option *rows, int nrows)
{
	char a[32], b[32];
	strbuf text;
	strbuf_init(&text);
	for (int i = 0; i < nrows; i++) {
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = strcmp(rows[j].sc.node.system_id, rows[i].sc.node.system_id) == 0;
		const hw_system *sys = seen ? NULL : hw_system_find(s->db, rows[i].sc.node.system_id);
		if (!sys || (!hw_known(sys->price_usd) && !hw_known(sys->rent_usd_gpu_h)))
			continue;
		strbuf_addf(&text, "%s%s: ", text.len_B ? "; " : "", sys->id);
		if (hw_known(sys->price_usd))
			strbuf_addf(&text, "%s a unit (%s, %s)", plan_fmt_usd(sys->price_usd, a, sizeof a), sys->price_kind,
				    sys->price_date);
		if (hw_known(sys->rent_usd_gpu_h))
			strbuf_addf(&text, "%s%s per GPU-hour on demand (%s)", hw_known(sys->price_usd) ? ", " : "",
				    plan_fmt_usd(sys->rent_usd_gpu_h, a, sizeof a), sys->rent_date);
		if (hw_known(sys->rent_market_usd_gpu_h))
			strbuf_addf(&text, ", the market's %s (%s)", plan_fmt_usd(sys->rent_market_usd_gpu_h, b, sizeof b),
				    sys->rent_market_date);
	}
	if (text.len_B)
		doc_p(d, "Prices and their dates (docs/prices.md has each source): %s.", text.s);
	strbuf_free(&text);
}

/* ---- cash flow: the answer's cluster owned year by year beside the same runs rented (model_cashflow) ---- */

/* cashflow.csv and cashflow.svg into dir for the first GPU count's answer (plan_decide's buy-vs-rent pair). */
static void cashflow_write(const char *dir, plan_option *rows, const rep_group *g, const plan_question *q, rep_cash *c)
{
	plan_answer a;
	memset(c, 0, sizeof *c);
	plan_decide(q, rows + g->first, g->n, &a);
	c->buy = a.winner ? a.buy_rent.buy : NULL;
	if (!c->buy)
		return;
	c->rent_id = a.buy_rent.rent_id;
	c->rent_term_years = a.buy_rent.rent_term_years;
	c->n = model_cashflow(&c->buy->sc, &c->buy->r, &c->buy->cost, c->rent_id ? a.buy_rent.rent_today_usd_run : NAN,
			      a.buy_rent.rent_term_years, c->y, REP_MAX_YEARS);
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

/* The rented column's sentence: its sum and, where the market's rent falls (model_cashflow), its first
 * and last year's, on demand re-priced each month, a reservation renewed at the fallen rate each term. */
static void rented_text(rep_doc *d, const rep_cash *c)
{
	char h[32], a[32], b[32], e[32], how[96];
	const model_cash_year *last = &c->y[c->n - 1];
	double fall = c->buy->sc.money.rent_decline;
	plan_fmt_usd(last->rented_cum_usd, h, sizeof h);
	plan_fmt_usd(last->rented_pv_cum_usd, a, sizeof a);
	if (!(fall > 0) || c->n < 3) {
		doc_p(d, "The same runs rented on %s: %s in all (%s discounted) at today's rate. cashflow.csv has each "
			 "year.", c->rent_id, h, a);
		return;
	}
	if (c->rent_term_years > 0)
		snprintf(how, sizeof how, "a %g-year reservation renewed at the fallen rate", c->rent_term_years);
	else
		snprintf(how, sizeof how, "on demand, re-priced each month");
	doc_p(d, "The same runs rented on %s: %s in all (%s discounted), %s in year 1 to %s in year %d as the market's rent "
		 "falls %.0f%% a year (%s). cashflow.csv has each year.",
	      c->rent_id, h, a, plan_fmt_usd(c->y[1].rented_usd, b, sizeof b), plan_fmt_usd(last->rented_usd, e, sizeof e),
	      c->n - 1, 100 * fall, how);
}

static void section_cashflow(rep_doc *d, const rep_cash *c, int gpus, double rate)
{
	char a[32], b[32], e[32], f[32];
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
		rented_text(d, c);
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

void rep_remove_dir(const char *dir)
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

/* The documents' text, section by section. */
static void doc_write(rep_doc *d, const rep_input *s, const rep_made *m)
{
	doc_h(d, 1, "Which cluster for ResNet-50? A procurement report");
	doc_p(d, "Written by scaleplan %s: %s. Every placement (nodes x GPUs per node) of each GPU count on each "
		  "system is predicted by the analytic model and ranked by %s; whole servers%s.",
	      SCALEPLAN_VERSION, s->cmdline, plan_goal_name(s->q), s->q->partial_nodes ? " and partly used ones" : " only");
	section_answer(d, s->db, s->params, s->rows, s->g, s->ng, s->q);
	doc_h(d, 2, "Charts");
	if (m->tta_ok)
		doc_img(d, "tta.svg", "time to accuracy vs GPUs, one line per system and GPUs per node");
	else
		doc_p(d, "No time-to-accuracy chart: %s", m->tta_note);
	if (m->cost_ok)
		doc_img(d, "cost.svg", s->q->cost == PLAN_RUN ? "cost per run (owned or rented) vs time to accuracy, Pareto front marked"
					: s->q->cost == PLAN_RENT  ? "rent and energy per run vs time to accuracy, Pareto front marked"
					: s->q->cost == PLAN_TCO ? "owner's cost and energy per run vs time to accuracy, Pareto front marked"
							      : "capex and energy per run vs time to accuracy, Pareto front marked");
	else
		doc_p(d, "No cost chart: %s", m->cost_note);
	for (int k = 0; k < s->ng; k++)
		section_ranking(d, s->rows, &s->g[k], s->q);
	section_sensitivity(d, &m->sens, m->sens_ok, m->sens_note, s->rows, s->g, s->ng, s->q);
	section_cashflow(d, &m->cash, s->g[0].gpus, s->spec->money.finance_rate);
	section_price_dates(d, s, s->rows, s->nrows);
	section_breakdown(d, s->rows, s->nrows);
	section_setup(d, s, s->rows, s->nrows);
	section_assumptions(d, s);
	doc_h(d, 2, "Files");
	doc_p(d, "placements.csv: every option with predict's columns (one row per placement). report.md and "
		  "index.html: this report.%s%s%s%s%s", m->tta_ok || m->cost_ok ? " " : "",
	      m->tta_ok && m->cost_ok ? "tta.svg, cost.svg: the charts" : m->tta_ok ? "tta.svg: the chart" : m->cost_ok ? "cost.svg: the chart" : "",
	      m->tta_ok || m->cost_ok ? " (scaleplan plot draws them from placements.csv)." : "",
	      m->sens_ok ? " sensitivity.svg: the Sensitivity section's tornado chart." : "",
	      !m->cash.ok ? "" : m->cash.chart_ok ? " cashflow.csv, cashflow.svg: the Cash flow section's years." : " cashflow.csv: the Cash flow section's years.");
	if (s->whatif || s->xlsx)
		doc_p(d, "%s%s", s->whatif ? "whatif.html: the planner in one page (compare in the browser, the inputs in the "
					       "page's address; it loads nothing from a network). " : "",
		      s->xlsx ? "costs.xlsx: each option's money as formulas over its Assumptions sheet (every price and "
				 "input with its source), so that a spreadsheet recalculates every cost when an input changes." : "");
}

int rep_docs(const char *dir, const rep_input *in, const rep_made *m)
{
	char *mdp = xasprintf("%s/report.md", dir), *htp = xasprintf("%s/index.html", dir);
	rep_doc d = {fopen(mdp, "w"), fopen(htp, "w")};
	int rc = 0;
	if (!d.md || !d.html) {
		err_set("cannot write in %s: %s", dir, strerror(errno));
		rc = ERR_ENV;
		goto out;
	}
	fputs(html_head, d.html);
	doc_write(&d, in, m);
	fputs("</body>\n</html>\n", d.html);
	if (ferror(d.md) || ferror(d.html))
		rc = ERR_ENV;
out:
	if (d.md && fclose(d.md) != 0)
		rc = ERR_ENV;
	if (d.html && fclose(d.html) != 0)
		rc = ERR_ENV;
	if (rc && d.md && d.html)
		err_set("write error in %s", dir);
	free(mdp);
	free(htp);
	return rc;
}

void rep_charts(const char *dir, const rep_input *in, rep_made *m)
{
	const plan_question *q = in->q;
	int priced = 0;
	memset(m, 0, sizeof *m);
	m->tta_ok = chart(dir, in->placements_csv, PLOT_TTA, NULL, NAN, NULL, "tta", m->tta_note, sizeof m->tta_note);
	for (int i = 0; i < in->nrows; i++)
		priced += in->rows[i].r.fits && isfinite(plan_cost_usd(q->cost, &in->rows[i].cost));
	static const char *const cost_cols[] = {[PLAN_CAPEX] = "capex_usd", [PLAN_TCO] = "tco_usd", [PLAN_RENT] = "rent_usd",
						[PLAN_RUN] = "run_cost_usd"};
	if (priced == 0)
		snprintf(m->cost_note, sizeof m->cost_note, "none of these systems has a %s price in the hardware database "
			 "(`scaleplan hw show ID`; an --hwdb overlay can add one).", plan_cost_name(q->cost));
	else
		m->cost_ok = chart(dir, in->placements_csv, PLOT_COST, cost_cols[q->cost], q->budget_usd, NULL, "cost",
				   m->cost_note, sizeof m->cost_note);
	plan_sens_compute(q, in->rows + in->g[0].first, in->g[0].n, in->g[0].gpus, &m->sens);
	m->sens_ok = m->sens.ok && sens_chart(dir, &m->sens, m->sens_note, sizeof m->sens_note);
	cashflow_write(dir, in->rows, &in->g[0], q, &m->cash);
}
