/* calibrate/cal_interval.c: the 90% prediction intervals of model/intervals.csv, derived from the held-out
 * residuals `scaleplan validate` computes (split-conformal; model_interval_conformal holds the quantile rule).
 *
 * Residuals rho = ln(measured / predicted). Pools and how they combine:
 * - by stack: the MLPerf-grade stacks' residuals apart from the frameworks' (PyTorch eager, DeepLearningExamples,
 *   ...: their errors are several times larger; one pool would give MLPerf-grade predictions the frameworks'
 *   width). MLPerf pool: the v4.0 single-node results predicted leave-one-submitter-out (cal_gpu_heldout), the
 *   whole-run group's time to train (multi-node results from their submitter's single-node result) and the
 *   model column's MLPerf-stack points; framework pool: the model column's other points;
 * - throughput and time to train share one pool in time's orientation (a time is images / throughput: a
 *   throughput residual counts negated), one node and many alike;
 * - the node count: a run waits for its slowest node (start-up, staging, every all-reduce), whose lag grows as
 *   the spread of the slowest of n draws, sqrt(2 ln n) standard deviations; a model whose per-node spread is
 *   off misses by that error times sqrt(2 ln n). Each pool fits rho^2 = a + b 2 ln n on its own residuals
 *   (cal_interval_growth), scores each residual divided by its spread sqrt(1 + (b / a) 2 ln n) (normalised
 *   conformal) and the model multiplies the log-bounds back by the spread at the prediction's node count
 *   (model_interval_spread); leave-one-out refits the growth without the point;
 * - start-up: the v4.0 systems' start-up predicted by the phase fit without their organisation, not anchored
 *   (cal_phase_startup_heldout), one row for every basis and pool; time to accuracy is derived from time to
 *   train's and the start-up's rows (model_interval_tta), so its width follows the start-up's share of the run;
 * - transfer: the measured interval widened on both sides by the largest miss of a transfer within an
 *   architecture (H100 -> H200); estimate: by the largest miss of any checked transfer (A100 -> H100,
 *   H100 -> H200) - one generation ahead, the model is wrong by about what it was wrong by one generation
 *   back, in a direction nobody has seen yet. The start-up does not depend on the GPU: not widened.
 * A pool without residuals borrows the other pool's.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "calibrate/cal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "calibrate/cal_internal.h"
#include "common/common.h"
#include "hwdb/hw.h"

static const char *arch_of(const struct hw_db *db, const char *gpu)
{
	const hw_gpu *g = db && gpu ? hw_gpu_find(db, gpu) : NULL;
	return g && g->arch ? g->arch : NULL;
}

model_basis cal_point_basis(const cal_data *d, int i, const struct hw_db *db)
{
	const char *gpu = d->pts[i].gpu, *arch = arch_of(db, gpu);
	bool transfer = false;
	for (int j = 0; j < d->n; j++) {
		const cal_point *q = &d->pts[j];
		if (j == i || q->kind != CAL_THROUGHPUT || !q->gpu[0])
			continue;
		if (strcasecmp(q->gpu, gpu) == 0)
			return MODEL_BASIS_MEASURED;
		const char *qa = arch_of(db, q->gpu);
		transfer = transfer || (arch && qa && strcmp(arch, qa) == 0);
	}
	return transfer ? MODEL_BASIS_TRANSFER : MODEL_BASIS_ESTIMATE;
}

/* Whether one of `gpu`'s points (other than by index) ran stack st. */
static bool gpu_has_stack(const cal_data *d, const double *pred, const char *const *stack, const char *gpu,
			  const char *st)
{
	for (int i = 0; i < d->n; i++)
		if (isfinite(pred[i]) && stack[i] && strcmp(stack[i], st) == 0 && strcasecmp(d->pts[i].gpu, gpu) == 0)
			return true;
	return false;
}

/* Mean ln(pred / measured) of gpu's points (only stacks `other` has too when shared); *n points. */
static double mean_err(const cal_data *d, const double *pred, const char *const *stack, const char *gpu,
		       const char *other, bool shared, int *n)
{
	double sum = 0;
	*n = 0;
	for (int i = 0; i < d->n; i++) {
		const cal_point *p = &d->pts[i];
		if (!isfinite(pred[i]) || !(p->measured > 0) || strcasecmp(p->gpu, gpu) != 0)
			continue;
		if (shared && !(stack[i] && gpu_has_stack(d, pred, stack, other, stack[i])))
			continue;
		sum += log(pred[i] / p->measured);
		(*n)++;
	}
	return *n ? sum / *n : NAN;
}

void cal_transfer_miss(const cal_data *d, const double *default_pred, const char *const *stack, const char *from,
		       const char *to, const struct hw_db *db, cal_miss *m)
{
	const char *a = arch_of(db, from), *b = arch_of(db, to);
	memset(m, 0, sizeof(*m));
	m->from = from;
	m->to = to;
	m->same_arch = a && b && strcmp(a, b) == 0;
	double ef = mean_err(d, default_pred, stack, from, to, true, &m->n_from);
	double et = mean_err(d, default_pred, stack, to, from, true, &m->n_to);
	m->same_stack = m->n_from > 0 && m->n_to > 0;
	if (!m->same_stack) {
		ef = mean_err(d, default_pred, stack, from, to, false, &m->n_from);
		et = mean_err(d, default_pred, stack, to, from, false, &m->n_to);
	}
	m->miss = m->n_from > 0 && m->n_to > 0 ? et - ef : NAN;
}

double cal_interval_growth(const double *rho, const int *nodes, int n)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (int i = 0; i < n; i++) {
		double x = nodes[i] > 1 ? 2.0 * log((double)nodes[i]) : 0.0, y = rho[i] * rho[i];
		sx += x, sy += y, sxx += x * x, sxy += x * y;
	}
	double den = n * sxx - sx * sx;
	if (n < 2 || !(den > 1e-12 * (n * sxx + 1e-300)))
		return 0.0;
	double b = (n * sxy - sx * sy) / den, a = (sy - b * sx) / n;
	return b > 0 && a > 0 ? b / a : 0.0;
}

/* Divides each score v[i] by its spread at nodes[i] under the growth the scores give (cal_interval_growth);
 * returns that growth. */
static double normalise(double *v, const int *nodes, int k)
{
	double g = cal_interval_growth(v, nodes, k);
	for (int i = 0; i < k; i++)
		v[i] /= model_interval_spread(g, nodes[i]);
	return g;
}

/* ln(measured / predicted) of the measured-basis residuals of pool `pool` in time's orientation (throughput
 * negated; ttt as is), without index skip, into v, their node counts into nodes; returns how many. */
static int time_pool(const cal_resid *res, int n, int skip, int pool, double *v, int *nodes)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		const cal_resid *r = &res[i];
		if (i == skip || r->basis != MODEL_BASIS_MEASURED || r->pool != pool ||
		    (r->q != MODEL_Q_THROUGHPUT && r->q != MODEL_Q_TTT) || !(r->measured > 0 && r->predicted > 0))
			continue;
		double rho = log(r->measured / r->predicted);
		/* a point run more than once scores what lies beyond its repeats' half-range (its interval gets
		 * that half-range back in bounds): the run-to-run spread its campaign measured is not the model's */
		rho = cal_resid_beyond(rho, r->repeat_hw);
		nodes[k] = r->nodes;
		v[k++] = r->q == MODEL_Q_THROUGHPUT ? -rho : rho;
	}
	return k;
}

/* The start-up residuals (any basis and pool), without index skip, into v (nodes alike); returns how many. */
static int startup_pool(const cal_resid *res, int n, int skip, double *v, int *nodes)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		if (i != skip && res[i].q == MODEL_Q_STARTUP && res[i].measured > 0 && res[i].predicted > 0) {
			nodes[k] = res[i].nodes;
			v[k++] = log(res[i].measured / res[i].predicted);
		}
	return k;
}

static void set(cal_itable *t, int b, int pool, int q, double lo, double hi, double grow, int n, const char *how)
{
	t->lo[b][pool][q] = lo;
	t->hi[b][pool][q] = hi;
	t->grow[b][pool][q] = grow;
	t->n[b][pool][q] = n;
	snprintf(t->how[b][pool][q], sizeof t->how[b][pool][q], "%s", how);
}

/* The largest |miss| of the checked transfers (within an architecture only when same_arch). */
static double widest_miss(const cal_miss *miss, int nmiss, bool same_arch, char *what, size_t len_B)
{
	double w = 0;
	snprintf(what, len_B, "no transfer could be checked");
	for (int i = 0; i < nmiss; i++)
		if (isfinite(miss[i].miss) && (!same_arch || miss[i].same_arch) && fabs(miss[i].miss) >= w) {
			w = fabs(miss[i].miss);
			snprintf(what, len_B, "%s -> %s %+.1f%%", miss[i].from, miss[i].to, 100 * (exp(miss[i].miss) - 1));
		}
	return w;
}

/* Measured: each pool's time interval (else the other pool's) for ttt, inverted for throughput; the start-up's
 * for every pool. Returns the residuals of the MLPerf pool and the framework pool together. */
static int measured_rows(const cal_resid *res, int n, int skip, cal_itable *t)
{
	const int M = MODEL_BASIS_MEASURED;
	double *v = xmalloc((size_t)(n > 0 ? n : 1) * sizeof(*v)), lo[MODEL_NPOOLS], hi[MODEL_NPOOLS], g[MODEL_NPOOLS];
	int *nodes = xmalloc((size_t)(n > 0 ? n : 1) * sizeof(*nodes)), np[MODEL_NPOOLS], total = 0;
	char how[200];
	for (int pool = 0; pool < MODEL_NPOOLS; pool++) {
		np[pool] = time_pool(res, n, skip, pool, v, nodes);
		g[pool] = normalise(v, nodes, np[pool]);
		model_interval_conformal(v, np[pool], &lo[pool], &hi[pool]);
		total += np[pool];
	}
	for (int pool = 0; pool < MODEL_NPOOLS; pool++) {
		int from = np[pool] > 0 ? pool : 1 - pool;
		snprintf(how, sizeof how, "%s stacks' held-out throughput and time-to-train residuals (%d)%s",
			 model_pool_name(from), np[from], from != pool ? ": this pool has none" : "");
		set(t, M, pool, MODEL_Q_TTT, lo[from], hi[from], g[from], np[from], how);
		set(t, M, pool, MODEL_Q_THROUGHPUT, -hi[from], -lo[from], g[from], np[from], how);
	}
	int ns = startup_pool(res, n, skip, v, nodes);
	double slo, shi, sg = normalise(v, nodes, ns);
	model_interval_conformal(v, ns, &slo, &shi);
	snprintf(how, sizeof how, "v4.0 systems' start-up, fitted without their organisation (%d)", ns);
	for (int pool = 0; pool < MODEL_NPOOLS; pool++)
		set(t, M, pool, MODEL_Q_STARTUP, slo, shi, sg, ns, how);
	free(nodes);
	free(v);
	return total;
}

/* Transfer and estimate: the measured interval widened by how far a checked transfer missed (the start-up as
 * measured's: it does not depend on the GPU). */
static void widened(const cal_miss *miss, int nmiss, cal_itable *t)
{
	const int M = MODEL_BASIS_MEASURED;
	char how[200], what[160];
	for (int b = MODEL_BASIS_TRANSFER; b <= MODEL_BASIS_ESTIMATE; b++) {
		double w = widest_miss(miss, nmiss, b == MODEL_BASIS_TRANSFER, what, sizeof what);
		snprintf(how, sizeof how, "measured's, widened by %.3f (%s)", w, what);
		for (int pool = 0; pool < MODEL_NPOOLS; pool++) {
			for (int q = MODEL_Q_THROUGHPUT; q <= MODEL_Q_TTT; q++)
				set(t, b, pool, q, t->lo[M][pool][q] - w, t->hi[M][pool][q] + w, t->grow[M][pool][q],
				    t->n[M][pool][q], how);
			set(t, b, pool, MODEL_Q_STARTUP, t->lo[M][pool][MODEL_Q_STARTUP], t->hi[M][pool][MODEL_Q_STARTUP],
			    t->grow[M][pool][MODEL_Q_STARTUP], t->n[M][pool][MODEL_Q_STARTUP],
			    t->how[M][pool][MODEL_Q_STARTUP]);
		}
	}
}

int cal_interval_derive(const cal_resid *res, int n, int skip, const cal_miss *miss, int nmiss, cal_itable *t)
{
	memset(t, 0, sizeof(*t));
	if (measured_rows(res, n, skip, t) == 0)
		return err_set("no measured throughput or time-to-train residual: no interval can be derived");
	widened(miss, nmiss, t);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds a database GPU id (of `name`, an id, alias or "NVIDIA <name>") once. */
static void add_gpu(const struct hw_db *db, const char *name, char ***ids, int *n, int *cap)
{
	const hw_gpu *g = hw_gpu_find(db, name);
	if (!g && strncasecmp(name, "NVIDIA ", 7) == 0)
		g = hw_gpu_find(db, name + 7);
	if (!g)
		return;
	for (int i = 0; i < *n; i++)
		if (strcmp((*ids)[i], g->id) == 0)
			return;
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*ids = xrealloc(*ids, (size_t)*cap * sizeof(**ids));
	}
	(*ids)[(*n)++] = xstrdup(g->id);
}

int cal_measured_gpus(const cal_data *d, const struct hw_db *db, char ***ids)
{
	int n = 0, cap = 0;
	cal_phase_row *rows = NULL;
	int nrows = 0;
	*ids = NULL;
	for (int i = 0; i < d->n; i++)
		if ((d->pts[i].kind == CAL_THROUGHPUT || d->pts[i].kind == CAL_TTA) && d->pts[i].gpu && d->pts[i].gpu[0])
			add_gpu(db, d->pts[i].gpu, ids, &n, &cap);
	if (cal_phases_builtin(&rows, &nrows) == 0)
		for (int i = 0; i < nrows; i++)
			if (strcmp(rows[i].status, "success") == 0)
				add_gpu(db, rows[i].accelerator, ids, &n, &cap);
	free(rows);
	if (n > 1)
		qsort(*ids, (size_t)n, sizeof(**ids), cmp_str);
	return n;
}

/* A generated table (model/intervals.csv, model/ratios.csv) is written to PATH.tmp and renamed over PATH
 * when complete. cal_table_open: the open temporary file (*tmp to free in cal_table_close), or NULL with *rc
 * set (err_path's code). cal_table_close: closes, renames and frees; 0 or err_path's code, PATH.tmp removed. */
FILE *cal_table_open(const char *path, char **tmp, int *rc)
{
	*tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(*tmp, "w");
	if (!f) {
		*rc = err_path(*tmp, errno, "a file in an existing directory");
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

int cal_table_close(FILE *f, char *tmp, const char *path)
{
	int rc = 0;
	if (ferror(f) | (fclose(f) != 0) || rename(tmp, path) != 0) {
		rc = err_path(path, errno, "a writable file");
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

int cal_interval_write(const cal_itable *t, const cal_miss *miss, int nmiss, char *const *gpus, int ngpus,
		       const char *path)
{
	char *tmp = NULL;
	int rc = 0;
	FILE *f = cal_table_open(path, &tmp, &rc);
	if (!f)
		return rc;
	fprintf(f, "# 90%% prediction intervals and the GPUs with results in the data. Generated by `make intervals`\n"
		   "# (scaleplan validate --intervals FILE) from validate's held-out residuals; do not edit by hand.\n"
		   "# lo_x, hi_x: measured / predicted lies between them nine times in ten (split-conformal; rules in\n"
		   "# calibrate/cal_interval.c). Pools: stacks at MLPerf-grade speed (stacks.csv compute_eff empty or 1) and\n"
		   "# the others; tta is derived from ttt and startup (model_interval_tta). grow_z2: the log-bounds at n nodes\n"
		   "# are lo_x, hi_x's times sqrt(1 + grow_z2 2 ln n) (model_interval_spread). Transfers checked (default model,\n"
		   "# mean ln(pred/measured) of the second GPU minus the first's):\n");
	for (int i = 0; i < nmiss; i++)
		fprintf(f, "#   %s -> %s: %+.1f%% (%d and %d points%s%s)\n", miss[i].from, miss[i].to,
			100 * (exp(miss[i].miss) - 1), miss[i].n_from, miss[i].n_to,
			miss[i].same_stack ? ", same stacks" : ", all stacks", miss[i].same_arch ? ", same architecture" : "");
	fprintf(f, "kind,basis,pool,quantity,n,lo_x,hi_x,grow_z2,what\n");
	for (int b = 0; b < MODEL_NBASES; b++)
		for (int pool = 0; pool < MODEL_NPOOLS; pool++)
			for (int q = 0; q < MODEL_NQUANTITIES; q++)
				if (q != MODEL_Q_TTA) /* derived: model_interval_tta */
					fprintf(f, "interval,%s,%s,%s,%d,%.4f,%.4f,%.4f,\"%s\"\n", model_basis_name((model_basis)b),
						model_pool_name(pool), model_quantity_name((model_quantity)q), t->n[b][pool][q],
						exp(t->lo[b][pool][q]), exp(t->hi[b][pool][q]), t->grow[b][pool][q],
						t->how[b][pool][q]);
	for (int i = 0; i < ngpus; i++)
		fprintf(f, "gpu,measured,,,,,,,%s\n", gpus[i]);
	return cal_table_close(f, tmp, path);
}

typedef struct tally {
	int n, in;
	double *w; /* the table's widths (hi - lo) / predicted, n of them (the table's tally only) */
} tally;

static double median(double *v, int n);

static void tally_add(tally *a, int in, double width)
{
	if ((a->n & (a->n - 1)) == 0) /* grows at each power of two */
		a->w = xrealloc(a->w, (size_t)(a->n ? 2 * a->n : 1) * sizeof(*a->w));
	a->w[a->n++] = width;
	a->in += in;
}

/* Prints a row (table coverage, leave-one-out, median width) and frees the table tally's widths. */
static void tally_print(FILE *out, const char *what, tally *a, const tally *l)
{
	char loo[16] = "     -";
	if (l->n)
		snprintf(loo, sizeof loo, "%5.1f%%", 100.0 * l->in / l->n);
	if (a->n)
		fprintf(out, "  %-22s %4d  %5.1f%%  %s  %6.1f%%\n", what, a->n, 100.0 * a->in / a->n, loo,
			100 * median(a->w, a->n));
	free(a->w);
	a->w = NULL;
}

/* The bounds (s, img/s) of residual r's interval by table t (NULL: the built-in one) as the model gives them. */
static void bounds_model(const cal_resid *r, const cal_itable *t, double *lo, double *hi)
{
	int b = r->basis, pool = r->pool;
	const int T = MODEL_Q_TTT, S = MODEL_Q_STARTUP;
	if (r->q == MODEL_Q_TTA && !t) {
		model_interval_tta(r->basis, pool, r->nodes, r->predicted, r->startup_s, lo, hi);
	} else if (r->q == MODEL_Q_TTA) {
		double st = model_interval_spread(t->grow[b][pool][T], r->nodes);
		double ss = model_interval_spread(t->grow[b][pool][S], r->nodes);
		model_interval_tta_x(r->predicted, r->startup_s, exp(st * t->lo[b][pool][T]), exp(st * t->hi[b][pool][T]),
				     exp(ss * t->lo[b][pool][S]), exp(ss * t->hi[b][pool][S]), lo, hi);
	} else if (!t) {
		model_interval_factors(r->basis, pool, r->q, r->nodes, lo, hi);
		*lo *= r->predicted, *hi *= r->predicted;
	} else {
		double s = model_interval_spread(t->grow[b][pool][r->q], r->nodes);
		*lo = r->predicted * exp(s * t->lo[b][pool][r->q]);
		*hi = r->predicted * exp(s * t->hi[b][pool][r->q]);
	}
}

/* The bounds (s, img/s) of residual r's interval by table t (NULL: the built-in one), widened on each side by
 * the half-range of the point's repeats where its campaign ran it more than once (cal_resid repeat_hw). */
static void bounds(const cal_resid *r, const cal_itable *t, double *lo, double *hi)
{
	bounds_model(r, t, lo, hi);
	*lo *= exp(-r->repeat_hw);
	*hi *= exp(r->repeat_hw);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted in place); NAN when n is 0. */
static double median(double *v, int n)
{
	if (n == 0)
		return NAN;
	qsort(v, (size_t)n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Median width (hi - lo) / predicted of the built-in intervals of the measured basis, per quantity. */
static void widths_print(const cal_resid *res, int n, FILE *out)
{
	double *w = xmalloc((size_t)(n > 0 ? n : 1) * sizeof(*w));
	bool any = false;
	for (int i = 0; i < n; i++)
		any = any || (res[i].basis == MODEL_BASIS_MEASURED && res[i].predicted > 0);
	if (any)
		fprintf(out, "  median width of the measured-basis intervals, (hi - lo) / predicted (goal for ttt <= 20%%):");
	for (int q = 0; any && q < MODEL_NQUANTITIES; q++) {
		int k = 0;
		for (int i = 0; i < n; i++) {
			double lo, hi;
			if (res[i].q != (model_quantity)q || res[i].basis != MODEL_BASIS_MEASURED || !(res[i].predicted > 0))
				continue;
			bounds(&res[i], NULL, &lo, &hi);
			w[k++] = (hi - lo) / res[i].predicted;
		}
		if (k)
			fprintf(out, " %s %.1f%% (%d)", model_quantity_name((model_quantity)q), 100 * median(w, k), k);
	}
	if (any)
		fprintf(out, "\n");
	free(w);
}

void cal_interval_coverage(const cal_resid *res, int n, const cal_miss *miss, int nmiss, FILE *out)
{
	tally all[2] = {{0}}, basis[MODEL_NBASES][2] = {{{0}}}, scale[MODEL_NSCALES][2] = {{{0}}},
	      pools[MODEL_NPOOLS][2] = {{{0}}}, qty[MODEL_NQUANTITIES][2] = {{{0}}};
	cal_itable *t = xmalloc(sizeof(*t));
	for (int i = 0; i < n; i++) {
		const cal_resid *r = &res[i];
		double lo, hi, m = r->measured;
		if (!(m > 0) || !(r->predicted > 0) || !isfinite(r->predicted))
			continue;
		bounds(r, NULL, &lo, &hi);
		int in_table = m >= lo * (1 - 1e-9) && m <= hi * (1 + 1e-9), in_loo = 0;
		double width = (hi - lo) / r->predicted;
		int s = model_scale_of(r->nodes);
		/* without the point there may be nothing left to derive from: then it has no leave-one-out figure */
		bool loo = cal_interval_derive(res, n, i, miss, nmiss, t) == 0;
		if (loo) {
			bounds(r, t, &lo, &hi);
			in_loo = m >= lo * (1 - 1e-9) && m <= hi * (1 + 1e-9);
		}
		tally *ts[5] = {all, basis[r->basis], scale[s], pools[r->pool], qty[r->q]};
		for (int k = 0; k < 5; k++) {
			tally_add(&ts[k][0], in_table, width);
			ts[k][1].n += loo;
			ts[k][1].in += in_loo;
		}
	}
	free(t);
	fprintf(out, "interval coverage (goal 85-95%% at 90%%): held-out points inside their own interval, with the built-in\n"
		     "table (derived from these same points: in-sample) and leave-one-out (each against intervals derived without it);\n"
		     "width: the median (hi - lo) / predicted of the table's intervals\n");
	fprintf(out, "  %-22s %4s  %6s  %6s  %7s\n", "points", "n", "table", "l-o-o", "width");
	tally_print(out, "all", &all[0], &all[1]);
	for (int b = 0; b < MODEL_NBASES; b++) {
		char w[40];
		snprintf(w, sizeof w, "basis %s", model_basis_name((model_basis)b));
		tally_print(out, w, &basis[b][0], &basis[b][1]);
	}
	for (int s = 0; s < MODEL_NSCALES; s++) {
		char w[40];
		snprintf(w, sizeof w, "%s node%s", model_scale_name(s), s ? "s" : "");
		tally_print(out, w, &scale[s][0], &scale[s][1]);
	}
	for (int p = 0; p < MODEL_NPOOLS; p++) {
		char w[40];
		snprintf(w, sizeof w, "stacks %s", model_pool_name(p));
		tally_print(out, w, &pools[p][0], &pools[p][1]);
	}
	for (int q = 0; q < MODEL_NQUANTITIES; q++) {
		char w[40];
		snprintf(w, sizeof w, "%s", model_quantity_name((model_quantity)q));
		tally_print(out, w, &qty[q][0], &qty[q][1]);
	}
	widths_print(res, n, out);
}

double cal_resid_beyond(double rho, double hw)
{
	return rho > 0 ? fmax(0.0, rho - hw) : fmin(0.0, rho + hw);
}

void cal_loo_interval(const double *rho, const double *hw, int n, cal_loo_iv *out)
{
	double *v = xmalloc((size_t)(n > 0 ? n : 1) * sizeof(*v));
	*out = (cal_loo_iv){ .n = n };
	for (int i = 0; i < n; i++)
		v[i] = cal_resid_beyond(rho[i], hw ? hw[i] : 0.0);
	model_interval_conformal(v, n, &out->lo, &out->hi);
	/* each point against the interval of the others' scores, widened by its own half-range (a point with
	 * no others has no interval to fall into) */
	for (int i = 0; i < n && n > 1; i++) {
		double lo, hi, keep = v[i], h = hw ? hw[i] : 0.0;
		v[i] = v[n - 1];
		model_interval_conformal(v, n - 1, &lo, &hi);
		v[i] = keep;
		out->in += rho[i] >= lo - h - 1e-12 && rho[i] <= hi + h + 1e-12;
	}
	free(v);
}

void cal_point_interval(double pred, double var_param_ln, double sd_run_ln, double *lo, double *hi)
{
	/* 1.6449: the normal quantile of 95%, two-sided 90%; a t quantile would need the fit's degrees of freedom,
	 * which a profile does not carry */
	double v = (isfinite(var_param_ln) ? var_param_ln : 0) + (isfinite(sd_run_ln) ? sd_run_ln * sd_run_ln : 0);
	double h = 1.6449 * sqrt(v);
	*lo = pred * exp(-h);
	*hi = pred * exp(h);
}
