/* plan_table.c: compare's ranked options as a text table - one line per option in the columns asked, each as
 * wide as its widest cell, offers of the same hardware and time folded (plan_fold) - for people; the CSV
 * (plan_row.c) has every figure for machines. Decides nothing: the rank and the pick's mark come from plan_decide.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plan/plan_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

/* The table's columns, by the CSV's names (--columns takes the same names for the table and the CSV), with
 * their heading; those marked shown make the default table, within PLAN_TEXT_WIDTH characters a line. */
static const struct tcol {
	const char *key, *head;
	bool left, shown;
} tcols[] = {
	{"rank", "rank", false, true},
	{"system", "system", true, true},
	{"gpu", "gpu", true, true},
	{"nodes", "nodes", false, true},
	{"precision", "prec", false, false},
	{"batch_per_gpu", "batch", false, false},
	{"global_batch", "global", false, true},
	{"throughput_img_s", "img/s", false, true},
	{"scaling_eff", "scaling", false, true},
	{"comm_s", "comm ms", false, true},
	{"bottleneck", "bottleneck", true, true},
	{"epochs", "epochs", false, true},
	{"ttt_s", "time-to-train", false, false},
	{"tta_s", "time-to-acc (90%)", true, true},
	{"capex_usd", "capex", false, true},
	{"rent_usd", "rent/run", false, true},
	{"tco_usd", "tco/run", false, true},
	{"idle_gpus", "idle", false, true},
	{"basis", "basis", true, true},
	{"meets", "meets", true, true},
	{"stack", "stack (data path)", true, false},
};
enum { NTCOLS = sizeof tcols / sizeof tcols[0] };
_Static_assert((int)NTCOLS <= (int)PLAN_TABLE_MAX_COLS, "plan.h: PLAN_TABLE_MAX_COLS holds every column");

/* The cell of column c for option w ranked `rank` (">4" marks the pick) into buf. */
static void tcell(int c, const plan_question *q, const plan_option *w, const char *rank, char *buf, size_t len_B)
{
	const model_result *r = &w->r;
	char st[96];
	strbuf fails;
	switch (c) {
	case 0: snprintf(buf, len_B, "%s", rank); break;
	case 1: snprintf(buf, len_B, "%s", w->sc.node.system_id); break;
	case 2: snprintf(buf, len_B, "%s", w->sc.node.gpu_id); break;
	case 3: snprintf(buf, len_B, "%dx%d%s", w->sc.nodes, w->sc.node.gpus_per_node, w->partial ? "*" : ""); break;
	case 4: snprintf(buf, len_B, "%s", model_precision_name(w->sc.precision)); break;
	case 5: snprintf(buf, len_B, "%d", w->sc.batch_per_gpu); break;
	case 6: snprintf(buf, len_B, "%d", r->global_batch); break;
	case 7: snprintf(buf, len_B, "%.0f", r->throughput_img_s); break;
	case 8: snprintf(buf, len_B, "%.1f%%", 100 * r->scaling_eff); break;
	case 9: snprintf(buf, len_B, "%.3f", 1e3 * r->comm_s); break;
	case 10: snprintf(buf, len_B, "%s", r->fits ? model_bottleneck_name(r->bottleneck) : "memory"); break;
	case 11:
		snprintf(buf, len_B, "%.1f%s", r->epochs, r->extrapolated ? "~" : r->extrapolated_below ? "<" : " ");
		break;
	case 12: plan_fmt_duration(r->ttt_s, buf, len_B); break;
	case 13: plan_fmt_range(r->tta_s, r->tta_lo_s, r->tta_hi_s, buf, len_B); break;
	case 14: plan_fmt_usd(w->cost.capex_usd, buf, len_B); break;
	case 15: plan_fmt_usd(w->cost.rent_usd, buf, len_B); break;
	case 16: plan_fmt_usd(w->cost.tco_usd, buf, len_B); break;
	case 17: snprintf(buf, len_B, "%d", w->v.idle_gpus); break;
	case 18: snprintf(buf, len_B, "%s", model_basis_name(r->basis)); break;
	case 19:
		strbuf_init(&fails);
		snprintf(buf, len_B, "%s", plan_fails_text(q, &w->v, &fails));
		strbuf_free(&fails);
		break;
	default: snprintf(buf, len_B, "%s", plan_stack_label(&w->sc, st, sizeof st)); break;
	}
}

int plan_table_columns(const char *list, int *col, int *n)
{
	*n = 0;
	if (!list || strcmp(list, "all") == 0) {
		for (int c = 0; c < NTCOLS; c++)
			if (list || tcols[c].shown)
				col[(*n)++] = c;
		return 0;
	}
	char buf[1024], *save = NULL;
	snprintf(buf, sizeof buf, "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int c = 0;
		while (c < NTCOLS && strcmp(tcols[c].key, t) != 0)
			c++;
		if (c == NTCOLS || *n == NTCOLS) {
			strbuf names;
			strbuf_init(&names);
			for (int k = 0; k < NTCOLS; k++)
				strbuf_addf(&names, "%s%s", k ? "," : "", tcols[k].key);
			err_set("--columns: the table has no column '%s' (its columns: %s; or 'all'; --format csv takes every "
				"CSV column)", t, names.s);
			strbuf_free(&names);
			return ERR_INPUT;
		}
		col[(*n)++] = c;
	}
	return 0;
}

/* After shown row i: the offers folded into it, each with its price, on lines of their own under the row
 * ("     + aws-p6-b200 rent $25.98, gcp-a4 -"). */
static void add_folded(const plan_option *rows, int nrows, const int *fold, int i, strbuf *out)
{
	char m[24];
	strbuf b;
	strbuf_init(&b);
	for (int k = i + 1; k < nrows; k++) {
		if (fold[k] != i)
			continue;
		const model_cost *c = &rows[k].cost;
		strbuf_addf(&b, "%s%s %s%s", b.len_B ? ", " : "     + ", rows[k].sc.node.system_id,
			    isfinite(c->capex_usd) ? "capex " : isfinite(c->rent_usd) ? "rent " : "",
			    plan_fmt_usd(isfinite(c->capex_usd) ? c->capex_usd : c->rent_usd, m, sizeof m));
	}
	if (b.len_B) {
		strbuf_addf(&b, "\n");
		strbuf_add_wrapped(out, b.s, PLAN_TEXT_WIDTH);
	}
	strbuf_free(&b);
}

/* "75.9% top-1" or "70.0% top-1 in 20 epochs (--epochs)": what the heading says the run trains to. */
static char *target_label(const plan_spec *spec, char *buf, size_t len_B)
{
	if (spec->epochs > 0)
		snprintf(buf, len_B, "%.1f%% top-1 in %g epochs (--epochs)", 100 * spec->target_top1, spec->epochs);
	else
		snprintf(buf, len_B, "%.1f%% top-1", 100 * spec->target_top1);
	return buf;
}

/* The heading: the GPUs, the target, precision and data, the order. */
static void add_heading(const plan_spec *spec, const plan_question *q, const char *gpus, const plan_option *rows,
			int nrows, strbuf *out)
{
	char prec[64], order[160], target[64];
	snprintf(prec, sizeof prec, "%s", model_precision_name(spec->precision));
	for (int i = 0; i < nrows; i++)
		if (rows[i].sc.precision != spec->precision) {
			snprintf(prec, sizeof prec, "%s where the GPU has it", model_precision_name(spec->precision));
			break;
		}
	strbuf head;
	strbuf_init(&head);
	strbuf_addf(&head, "scaleplan compare: %s GPU%s, ResNet-50 to %s, %s, data %s; ranked by %s\n", gpus,
		    strcmp(gpus, "1") ? "s" : "", target_label(spec, target, sizeof target), prec,
		    spec->data >= 0 ? model_data_name((model_data)spec->data) : "as each stack",
		    plan_order_text(q, order, sizeof order));
	strbuf_add_wrapped(out, head.s, PLAN_TEXT_WIDTH);
	strbuf_free(&head);
}

void plan_table_write(const plan_spec *spec, const plan_question *q, const char *gpus, const plan_option *rows,
		      int nrows, bool all, const int *col, int ncol, strbuf *out)
{
	const plan_option *pick = NULL;
	for (int i = 0; i < nrows; i++)
		if (rows[i].v.pick)
			pick = &rows[i];
	add_heading(spec, q, gpus, rows, nrows, out);
	int *fold = xmalloc((size_t)nrows * sizeof(*fold));
	int nfolded = all ? 0 : plan_fold(rows, nrows, pick, fold);
	for (int i = 0; all && i < nrows; i++)
		fold[i] = -1;
	/* every cell first, to size each column to its widest */
	enum { CELL = 128 };
	char(*cell)[CELL] = xcalloc((size_t)nrows * NTCOLS, CELL);
	int width[NTCOLS], shown = 0;
	for (int c = 0; c < NTCOLS; c++)
		width[c] = (int)strlen(tcols[c].head);
	for (int i = 0; i < nrows; i++) {
		if (fold[i] >= 0)
			continue;
		char rank[16];
		snprintf(rank, sizeof rank, "%s%d", rows[i].v.pick ? ">" : "", ++shown); /* ">4": the pick */
		for (int k = 0; k < ncol; k++) {
			tcell(col[k], q, &rows[i], rank, cell[i * NTCOLS + col[k]], CELL);
			width[col[k]] = (int)fmax(width[col[k]], strlen(cell[i * NTCOLS + col[k]]));
		}
	}
	for (int k = 0; k < ncol; k++) { /* a last column on the left unpadded: no trailing blanks */
		int wd = tcols[col[k]].left ? -width[col[k]] : width[col[k]];
		strbuf_addf(out, "%s%*s", k ? " " : "", k + 1 < ncol || !tcols[col[k]].left ? wd : 0, tcols[col[k]].head);
	}
	strbuf_addf(out, "\n");
	for (int i = 0; i < nrows; i++) {
		if (fold[i] >= 0)
			continue;
		for (int k = 0; k < ncol; k++) {
			const char *v = cell[i * NTCOLS + col[k]];
			int wd = tcols[col[k]].left ? -width[col[k]] : width[col[k]];
			strbuf_addf(out, "%s%*s", k ? " " : "", k + 1 < ncol || !tcols[col[k]].left ? wd : 0, v);
		}
		strbuf_addf(out, "\n");
		add_folded(rows, nrows, fold, i, out);
	}
	if (nfolded)
		strbuf_addf(out, "(+ = %d offer%s of the same hardware and time folded into the row above it, with %s price; "
		       "--all-rows gives each its row)\n", nfolded, nfolded == 1 ? "" : "s", nfolded == 1 ? "its" : "their");
	strbuf_addf(out, "\n");
	free(cell);
	free(fold);
}

/* Row w's reason for a missing cost c into buf; NULL where c is priced or w does not fit. */
static const char *row_why(const plan_option *w, plan_cost c, char *buf, size_t len_B)
{
	plan_unpriced k = w->r.fits ? plan_cost_unpriced(c, &w->sc, &w->cost) : PLAN_PRICED;
	return k == PLAN_PRICED ? NULL : plan_unpriced_text(k, &w->sc.price, buf, len_B);
}

/* true when row i is the first of rows with cost c missing for reason why (and, with id, of that system) */
static bool why_first(const plan_option *rows, int i, plan_cost c, const char *why, const char *id)
{
	char t[200];
	for (int j = 0; j < i; j++) {
		const char *w = row_why(&rows[j], c, t, sizeof t);
		if (w && strcmp(w, why) == 0 && (!id || strcmp(rows[j].sc.node.system_id, id) == 0))
			return false;
	}
	return true;
}

/* The reasons of every "-" in rows' capex, tco/run and rent/run columns, one line each, no line twice. */
static void add_unpriced(const plan_option *rows, int nrows, strbuf *out)
{
	static const plan_cost costs[] = {PLAN_CAPEX, PLAN_RENT};
	char why[200], t[200];
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < nrows; i++) {
			plan_cost c = costs[k];
			if (!row_why(&rows[i], c, why, sizeof why) || !why_first(rows, i, c, why, NULL))
				continue;
			/* a line per reason, naming every system it holds for */
			strbuf_addf(out, "('-' in %s: %s", c == PLAN_RENT ? "rent/run" : "capex and tco/run", rows[i].sc.node.system_id);
			for (int j = i + 1; j < nrows; j++) {
				const char *w = row_why(&rows[j], c, t, sizeof t);
				if (w && strcmp(w, why) == 0 && why_first(rows, j, c, why, rows[j].sc.node.system_id) &&
				    strcmp(rows[j].sc.node.system_id, rows[i].sc.node.system_id) != 0)
					strbuf_addf(out, ", %s", rows[j].sc.node.system_id);
			}
			strbuf_addf(out, ": %s)\n", why);
		}
}

/* End-of-life systems among the rows (named in --systems or --include-eol): their prices are historical. */
static void add_eol(const hw_db *db, const plan_option *rows, int nrows, strbuf *out)
{
	strbuf text;
	strbuf_init(&text);
	plan_eol_text(db, rows, nrows, &text);
	if (text.len_B)
		strbuf_addf(out, "(%s)\n", text.s);
	strbuf_free(&text);
}

void plan_table_notes(const hw_db *db, const model_money *m, const plan_question *q, const plan_option *rows, int nrows,
		      int skipped_net, int skipped_whole, const char *left_out, strbuf *out)
{
	int unpriced = 0, partial = 0;
	for (int i = 0; i < nrows; i++) {
		unpriced += !isfinite(plan_cost_usd(q->cost, &rows[i].cost));
		partial += rows[i].partial;
	}
	strbuf_addf(out, "comm ms = the step's all-reduce (inside an NVLink domain over NVLink, between domains over the NICs); "
	       "capex = whole units bought at list price + network (the fabric's switches and links, front-end and "
	       "management) + storage + racks + cooling + installation (each in predict's capex line and the CSV's capex_* "
	       "columns); ");
	if (m->rent_session_s > 0)
		strbuf_addf(out, "rent/run = a run's share of a rental session: whole instances held %.3g h (--rent-session-h; the "
		       "month's runs where fewer) for back-to-back runs, billed as the provider bills, start-up and data copy "
		       "once a session; a reservation, the run's share of its month; ", m->rent_session_s / 3600.0);
	else
		strbuf_addf(out, "rent/run = whole instances rented for the run alone (--rent-session-h 0) as billed, with its start-up "
		       "and data copy; a reservation, the run's share of its month; ");
	char tco[256];
	model_money_tco_words(m, m->runs_per_month > 0 ? "--runs-per-month" : m->utilisation >= 1 ? "runs back to back"
							     : "the --utilisation", tco, sizeof tco);
	strbuf_addf(out, "idle = GPUs bought (whole servers or racks) and left idle; tco/run = %s; "
	       "'-' = not priced (why: the lines in parentheses below; the CSV has each part and its range); meets = the budget and "
	       "deadline (the predicted time; the answer says which meet it with 90%% confidence) or what fails and by how much\n",
	       tco);
	add_unpriced(rows, nrows, out);
	if (unpriced && q->cost == PLAN_RUN)
		strbuf_addf(out, "(%d option%s with neither a purchase price nor a rent at this count: they cannot qualify)\n",
			unpriced, unpriced > 1 ? "s" : "");
	else if (unpriced && (q->goal == PLAN_COST || !isnan(q->budget_usd) || !isnan(q->deadline_s) || q->cost != PLAN_CAPEX))
		strbuf_addf(out, "(%d option%s without a %s price: they cannot qualify; --cost run weighs bought and rented options "
			"on one price)\n", unpriced, unpriced > 1 ? "s" : "", plan_cost_name(q->cost));
	if (partial)
		strbuf_addf(out, "(* = GPUs of the node left idle; costed as the whole node)\n");
	strbuf_addf(out, "(> = the pick: %s)\n", PLAN_RULE);
	int extra = 0;
	for (int i = 0; i < nrows; i++)
		extra += rows[i].r.fits && rows[i].r.extrapolated;
	if (extra)
		strbuf_addf(out, "(~ = global batch above the largest measured convergence point (%.0f): epochs extrapolated; "
		       "%s)\n", model_conv_max_batch(&rows[0].sc), q->extrapolate ? "--extrapolate lets them qualify"
									 : "not recommended without --extrapolate");
	int below = 0;
	for (int i = 0; i < nrows; i++)
		below += rows[i].r.fits && rows[i].r.extrapolated_below;
	if (below)
		strbuf_addf(out, "(< = global batch below the smallest measured convergence point (%.0f): epochs held at its "
		       "value, extrapolated)\n", model_conv_min_batch(&rows[0].sc));
	if (skipped_whole)
		strbuf_addf(out, "(%d system%s left out: N is not a multiple of their GPUs per node (%s); --partial-nodes shows them)\n",
		       skipped_whole, skipped_whole > 1 ? "s" : "", left_out);
	if (skipped_net)
		strbuf_addf(out, "(%d multi-node placement%s skipped: system without a network in the database; --fabric ID adds one)\n",
		       skipped_net, skipped_net > 1 ? "s" : "");
	add_eol(db, rows, nrows, out);
	int far = 0;
	for (int i = 0; i < nrows; i++)
		far += model_scale_of(rows[i].sc.nodes) == MODEL_NSCALES - 1;
	if (far) /* the intervals there rest on few held-out runs */
		strbuf_addf(out, "(beyond 16 nodes " MODEL_SCALE_TOP_NOTE "; `scaleplan validate` reports how often held-out "
			     "results of that scale fall inside their interval)\n");
}
