/* plot_data.c: from CSV tables to chart series (kind detection, series grouping, the Pareto front).
 * Columns are found by name; a missing column or a bad cell is an error naming file, line and column.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plot/plot_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"auto", "tta", "cost", "parity", "epochs", "tornado", "cashflow"};

bool plot_kind_parse(const char *s, plot_kind *out)
{
	for (int k = PLOT_TTA; k <= PLOT_EPOCHS; k++)
		if (strcmp(s, kind_names[k]) == 0) {
			*out = (plot_kind)k;
			return true;
		}
	return false;
}

const char *plot_kind_name(plot_kind k)
{
	return (int)k >= 0 && k <= PLOT_CASHFLOW ? kind_names[k] : "?";
}

static bool has(const csv_table *t, const char *col)
{
	return csv_table_col(t, col) >= 0;
}

plot_kind plot_kind_detect(const csv_table *t)
{
	if (has(t, "measured") && has(t, "predicted"))
		return PLOT_PARITY;
	if (has(t, "epoch") && has(t, "throughput_img_s") && has(t, "top1"))
		return PLOT_EPOCHS;
	if (has(t, "tta_s") && has(t, "gpus"))
		return PLOT_TTA;
	return PLOT_AUTO;
}

/* ---- series ---- */

static plot_series *series_get(plot_data *d, const char *label)
{
	for (int i = 0; i < d->nseries; i++)
		if (strcmp(d->series[i].label, label) == 0)
			return &d->series[i];
	d->series = xrealloc(d->series, (size_t)(d->nseries + 1) * sizeof *d->series);
	plot_series *s = &d->series[d->nseries++];
	memset(s, 0, sizeof *s);
	s->label = xstrdup(label);
	return s;
}

static void series_grow(plot_series *s)
{
	if (s->n < s->cap)
		return;
	s->cap = s->cap ? 2 * s->cap : 8;
	s->x = xrealloc(s->x, (size_t)s->cap * sizeof *s->x);
	s->y = xrealloc(s->y, (size_t)s->cap * sizeof *s->y);
	s->y2 = xrealloc(s->y2, (size_t)s->cap * sizeof *s->y2);
	s->key = xrealloc(s->key, (size_t)s->cap * sizeof *s->key);
	s->mark = xrealloc(s->mark, (size_t)s->cap * sizeof *s->mark);
}

static void series_add(plot_series *s, double x, double y, double y2)
{
	series_grow(s);
	s->x[s->n] = x;
	s->y[s->n] = y;
	s->y2[s->n] = y2;
	s->key[s->n] = NAN;
	s->mark[s->n] = 0;
	s->n++;
}

void plot_data_add_point(plot_data *d, const char *label, double x, double y, double y2)
{
	series_add(series_get(d, label), x, y, y2);
	if (isfinite(y2))
		d->has_y2 = true;
}

/* One point per key (the GPU count), kept sorted by key: a new key is inserted, a known one replaced
 * when t_s is shorter (the fastest configuration of that many GPUs; a sweep holds several batches).
 * Binary search: millions of sweep rows fold into a chart-sized series. */
static void series_upsert(plot_series *s, double key, double t_s, double x, double y, double y2, int mark)
{
	int lo = 0, hi = s->n;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (s->key[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->n && s->key[lo] == key) {
		if (!(t_s < s->t_s[lo]))
			return;
	} else {
		series_grow(s);
		s->t_s = xrealloc(s->t_s, (size_t)s->cap * sizeof *s->t_s);
		size_t tail = (size_t)(s->n - lo);
		memmove(s->x + lo + 1, s->x + lo, tail * sizeof *s->x);
		memmove(s->y + lo + 1, s->y + lo, tail * sizeof *s->y);
		memmove(s->y2 + lo + 1, s->y2 + lo, tail * sizeof *s->y2);
		memmove(s->key + lo + 1, s->key + lo, tail * sizeof *s->key);
		memmove(s->mark + lo + 1, s->mark + lo, tail * sizeof *s->mark);
		memmove(s->t_s + lo + 1, s->t_s + lo, tail * sizeof *s->t_s);
		s->n++;
	}
	s->key[lo] = key;
	s->t_s[lo] = t_s;
	s->x[lo] = x;
	s->y[lo] = y;
	s->y2[lo] = y2;
	s->mark[lo] = (unsigned char)mark;
}

static void series_free(plot_series *s)
{
	free(s->label);
	free(s->x);
	free(s->y);
	free(s->y2);
	free(s->key);
	free(s->mark);
	free(s->t_s);
}

void plot_data_free(plot_data *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->nseries; i++)
		series_free(&d->series[i]);
	free(d->series);
	memset(d, 0, sizeof *d);
}

/* ---- cells ---- */

/* Column `name` of t, or an error naming what the chart needs. */
static int need_col(const csv_table *t, const char *name, plot_kind k, const char *needs, int *col)
{
	*col = csv_table_col(t, name);
	if (*col < 0)
		return err_set("%s: no column '%s' (the %s chart needs the columns %s)", t->name, name,
			       plot_kind_name(k), needs);
	return 0;
}

/* A number cell that may be empty (NAN). col < 0 (optional column absent): NAN. */
static int cell_opt(const csv_table *t, int row, int col, double *v)
{
	*v = NAN;
	if (col < 0 || t->cells[row][col][0] == '\0')
		return 0;
	return csv_cell_double(t, row, col, v);
}

/* A number that must be > 0 (a log axis) when present; empty gives NAN. */
static int cell_pos(const csv_table *t, int row, int col, double *v)
{
	if (cell_opt(t, row, col, v) < 0)
		return ERR_INPUT;
	if (!isnan(*v) && !(*v > 0))
		return err_set("%s:%d:%d (%s): expected a positive number, found '%s'", t->name, t->line[row], col + 1,
			       t->header[col], t->cells[row][col]);
	return 0;
}

/* ---- per kind ---- */

/* "dgxh100 8/node": a system and its GPUs per node, the unit of one tta line. */
static int placement_label(const csv_table *t, int r, int csys, int cgpn, char *buf, size_t len_B)
{
	long gpn;
	if (csv_cell_int(t, r, cgpn, &gpn) < 0)
		return ERR_INPUT;
	if (gpn < 1)
		return err_set("%s:%d:%d (gpus_per_node): expected at least 1, found '%s'", t->name, t->line[r],
			       cgpn + 1, t->cells[r][cgpn]);
	snprintf(buf, len_B, "%s %ld/node", t->cells[r][csys], gpn);
	return 0;
}

static int build_tta(plot_data *d, const csv_table *t, plot_kind k)
{
	const char *money = d->cost_col ? d->cost_col : "capex_usd";
	char needs_cost[160];
	snprintf(needs_cost, sizeof needs_cost, "system, gpus_per_node, gpus, tta_s, %s (energy_J optional)", money);
	const char *needs = k == PLOT_TTA ? "system, gpus_per_node, gpus, tta_s (ttt_s optional)" : needs_cost;
	int csys, cgpn, cg, ctta, ccap = -1;
	if (need_col(t, "system", k, needs, &csys) < 0 || need_col(t, "gpus_per_node", k, needs, &cgpn) < 0 ||
	    need_col(t, "gpus", k, needs, &cg) < 0 || need_col(t, "tta_s", k, needs, &ctta) < 0)
		return ERR_INPUT;
	if (k == PLOT_COST && need_col(t, money, k, needs, &ccap) < 0)
		return ERR_INPUT;
	int cy2 = csv_table_col(t, k == PLOT_TTA ? "ttt_s" : "energy_J");
	int cfits = csv_table_col(t, "fits"), cextra = csv_table_col(t, "extrapolated");
	int cbelow = csv_table_col(t, "extrapolated_below");
	for (int r = 0; r < t->nrows; r++) {
		if (cfits >= 0 && strcmp(t->cells[r][cfits], "0") == 0)
			continue; /* does not fit in memory: no time */
		char label[256];
		double g, tta, y2, cap = NAN;
		if (placement_label(t, r, csys, cgpn, label, sizeof label) < 0 || cell_pos(t, r, cg, &g) < 0 ||
		    cell_pos(t, r, ctta, &tta) < 0 || cell_pos(t, r, cy2, &y2) < 0 ||
		    (ccap >= 0 && cell_pos(t, r, ccap, &cap) < 0))
			return ERR_INPUT;
		if (isnan(g) || isnan(tta))
			continue;
		plot_series *s = series_get(d, label);
		int extra = (cextra >= 0 && strcmp(t->cells[r][cextra], "1") == 0) ||
			    (cbelow >= 0 && strcmp(t->cells[r][cbelow], "1") == 0);
		if (k == PLOT_COST) {
			if (isnan(cap))
				continue; /* unpriced: no point on a cost chart */
			/* minutes; USD; kWh. One point per GPU count: a slower batch on the same nodes costs the
			 * same and is never on the front */
			series_upsert(s, g, tta, tta / 60.0, cap, y2 / 3.6e6, extra);
			continue;
		}
		/* one point per GPU count: the fastest configuration (a sweep may hold several batches) */
		series_upsert(s, g, tta, g, tta / 60.0, y2 / 60.0, extra);
	}
	return 0;
}

static int build_parity(plot_data *d, const csv_table *t)
{
	const char *needs = "measured, predicted (group optional)";
	int cm, cp;
	if (need_col(t, "measured", PLOT_PARITY, needs, &cm) < 0 || need_col(t, "predicted", PLOT_PARITY, needs, &cp) < 0)
		return ERR_INPUT;
	int cgrp = csv_table_col(t, "group");
	for (int r = 0; r < t->nrows; r++) {
		double m, p;
		if (cell_pos(t, r, cm, &m) < 0 || cell_pos(t, r, cp, &p) < 0)
			return ERR_INPUT;
		if (isnan(m) || isnan(p))
			continue;
		/* the group's first word is the kind of measurement (throughput, allreduce, pipeline, ...) */
		char label[64] = "points";
		if (cgrp >= 0 && t->cells[r][cgrp][0]) {
			snprintf(label, sizeof label, "%s", t->cells[r][cgrp]);
			label[strcspn(label, " ")] = '\0';
		}
		series_add(series_get(d, label), m, p, NAN);
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

static int build_epochs(plot_data *d, const csv_table *t)
{
	const char *needs = "epoch, throughput_img_s, top1, and time_s or iters+iter_s";
	int ce, cthr, ctop;
	if (need_col(t, "epoch", PLOT_EPOCHS, needs, &ce) < 0 ||
	    need_col(t, "throughput_img_s", PLOT_EPOCHS, needs, &cthr) < 0 ||
	    need_col(t, "top1", PLOT_EPOCHS, needs, &ctop) < 0)
		return ERR_INPUT;
	int ctime = csv_table_col(t, "time_s"), cit = csv_table_col(t, "iters"), cits = csv_table_col(t, "iter_s");
	if (ctime < 0 && (cit < 0 || cits < 0))
		return err_set("%s: no column 'time_s' nor 'iters' and 'iter_s' (an epochs chart needs the columns %s)",
			       t->name, needs);
	int crun = csv_table_col(t, "run_id");
	/* elapsed time per run: the sum of its epochs' times, in file order */
	for (int r = 0; r < t->nrows; r++) {
		if (t->cells[r][ce][0] == '\0')
			continue; /* the run's summary row */
		long ep;
		if (csv_cell_int(t, r, ce, &ep) < 0)
			return ERR_INPUT;
		if (ep < 1)
			continue;
		double thr, top1, dt, it = NAN, its = NAN;
		if (cell_opt(t, r, cthr, &thr) < 0 || cell_opt(t, r, ctop, &top1) < 0)
			return ERR_INPUT;
		if (ctime >= 0) {
			if (cell_opt(t, r, ctime, &dt) < 0)
				return ERR_INPUT;
		} else {
			if (cell_opt(t, r, cit, &it) < 0 || cell_opt(t, r, cits, &its) < 0)
				return ERR_INPUT;
			dt = it * its;
		}
		if (isnan(dt) || dt < 0)
			return err_set("%s:%d: expected the epoch's time (time_s, or iters x iter_s) as a number >= 0",
				       t->name, t->line[r]);
		char label[256];
		snprintf(label, sizeof label, "%s%s%s", base_name(t->name), crun >= 0 ? " " : "",
			 crun >= 0 ? t->cells[r][crun] : "");
		plot_series *s = series_get(d, label);
		double t0 = s->n ? s->x[s->n - 1] : 0.0;
		if (!isfinite(t0 + dt))
			return err_set("%s:%d: the elapsed time (sum of the epochs' times) is not a finite number", t->name,
				       t->line[r]);
		series_add(s, t0 + dt, thr, top1);
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The series' best time: tta's smallest y (minutes), cost's smallest x (time to accuracy). */
static double best_time(const plot_series *s, plot_kind kind)
{
	double b = INFINITY;
	for (int j = 0; j < s->n; j++)
		b = fmin(b, kind == PLOT_TTA ? s->y[j] : s->x[j]);
	return b;
}

/* cost: on[i] is true when series i holds a point of the time-cost Pareto front of all series together (the
 * front the chart draws, put_front); returns how many do. */
static int front_series(const plot_data *d, bool *on)
{
	int n = 0, k = 0, nf = 0;
	for (int i = 0; i < d->nseries; i++)
		n += d->series[i].n;
	double *x = xmalloc((size_t)(n ? n : 1) * sizeof *x), *y = xmalloc((size_t)(n ? n : 1) * sizeof *y);
	bool *pt = xmalloc((size_t)(n ? n : 1) * sizeof *pt);
	for (int i = 0; i < d->nseries; i++)
		for (int j = 0; j < d->series[i].n; j++, k++)
			x[k] = d->series[i].x[j], y[k] = d->series[i].y[j];
	plot_pareto(x, y, n, pt);
	k = 0;
	for (int i = 0; i < d->nseries; i++) {
		on[i] = false;
		for (int j = 0; j < d->series[i].n; j++, k++)
			on[i] |= pt[k];
		nf += on[i];
	}
	free(x);
	free(y);
	free(pt);
	return nf;
}

/* Keeps the PLOT_MAX_SERIES series with the shortest best time, in their order; frees the others. A cost chart
 * keeps first every series on the time-cost front (the cheapest option is on it whatever its speed, and a front
 * drawn from the fastest lines alone would not be the front), then the fastest others. */
static void keep_fastest(plot_data *d, plot_kind kind)
{
	double *t = xcalloc((size_t)d->nseries, sizeof(double)), *sorted = xcalloc((size_t)d->nseries, sizeof(double));
	bool *front = xcalloc((size_t)d->nseries, sizeof(bool));
	int nf = kind == PLOT_COST ? front_series(d, front) : 0, ns = 0;
	for (int i = 0; i < d->nseries; i++) {
		t[i] = best_time(&d->series[i], kind);
		if (!front[i])
			sorted[ns++] = t[i];
	}
	qsort(sorted, (size_t)ns, sizeof(double), cmp_double);
	int others = PLOT_MAX_SERIES > nf ? PLOT_MAX_SERIES - nf : 0;
	double cut = others > 0 && ns > 0 ? sorted[(others < ns ? others : ns) - 1] : -INFINITY;
	int kept = 0, kept_others = 0;
	for (int i = 0; i < d->nseries; i++) {
		plot_series *s = &d->series[i];
		if (front[i] || (t[i] <= cut && kept_others < others)) {
			kept_others += !front[i];
			d->series[kept++] = *s;
			continue;
		}
		series_free(s);
		d->dropped++;
	}
	d->nseries = kept;
	d->nfront = nf;
	free(t);
	free(sorted);
	free(front);
}

void plot_data_begin(plot_data *d, plot_kind kind)
{
	memset(d, 0, sizeof *d);
	d->kind = kind;
}

int plot_data_add(plot_data *d, const csv_table *t)
{
	plot_kind kind = d->kind;
	int rc = kind == PLOT_TTA || kind == PLOT_COST ? build_tta(d, t, kind)
		 : kind == PLOT_PARITY		       ? build_parity(d, t)
		 : kind == PLOT_EPOCHS		       ? build_epochs(d, t)
						       : err_set("plot: no chart kind given");
	if (rc < 0) {
		plot_data_free(d);
		return ERR_INPUT;
	}
	return 0;
}

int plot_data_build(plot_data *d, plot_kind kind, const csv_table *const *tables, int n)
{
	plot_data_begin(d, kind);
	for (int i = 0; i < n; i++)
		if (plot_data_add(d, tables[i]) < 0)
			return ERR_INPUT;
	return plot_data_end(d, n > 0 ? tables[0]->name : "plot");
}

int plot_data_end(plot_data *d, const char *name)
{
	plot_kind kind = d->kind;
	/* drop empty series (every row skipped); tta lines are sorted by GPUs already (series_upsert) */
	int total = 0, kept = 0;
	for (int i = 0; i < d->nseries; i++) {
		plot_series *s = &d->series[i];
		if (s->n == 0) {
			series_free(s);
			continue;
		}
		for (int j = 0; j < s->n; j++) {
			d->has_y2 |= !isnan(s->y2[j]);
			d->has_mark |= s->mark[j] != 0;
		}
		total += s->n;
		d->series[kept++] = *s;
	}
	d->nseries = kept;
	if ((kind == PLOT_TTA || kind == PLOT_COST) && d->nseries > PLOT_MAX_SERIES)
		keep_fastest(d, kind);
	if (total == 0) {
		const char *money = d->cost_col ? d->cost_col : "capex_usd";
		plot_data_free(d);
		return err_set("%s: no row has anything to draw on the %s chart%s%s%s", name, plot_kind_name(kind),
			       kind == PLOT_COST ? " (rows need tta_s and " : "", kind == PLOT_COST ? money : "",
			       kind == PLOT_COST ? ")" : "");
	}
	return 0;
}

/* ---- Pareto front ---- */

typedef struct pidx {
	double x, y;
	int i;
} pidx;

static int cmp_pidx(const void *a, const void *b)
{
	const pidx *p = a, *q = b;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	if (p->y != q->y)
		return p->y < q->y ? -1 : 1;
	return p->i - q->i;
}

int plot_pareto(const double *x, const double *y, int n, bool *on_front)
{
	pidx *p = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *p);
	int m = 0;
	for (int i = 0; i < n; i++) {
		on_front[i] = false;
		if (!isnan(x[i]) && !isnan(y[i]))
			p[m++] = (pidx){x[i], y[i], i};
	}
	/* by x, then y: a point is on the front when its y is below every y seen before it (all of which have
	 * a smaller or equal x), or when it repeats the last front point exactly */
	qsort(p, (size_t)m, sizeof *p, cmp_pidx);
	int count = 0;
	double best_y = INFINITY, best_x = NAN;
	for (int k = 0; k < m; k++) {
		if (p[k].y < best_y || (p[k].y == best_y && p[k].x == best_x)) {
			on_front[p[k].i] = true;
			count++;
			best_y = p[k].y;
			best_x = p[k].x;
		}
	}
	free(p);
	return count;
}
