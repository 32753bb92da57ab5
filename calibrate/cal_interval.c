/* calibrate/cal_interval.c: the 90% prediction intervals of model/intervals.csv, derived from the held-out
 * residuals `scaleplan validate` computes (split-conformal; model_interval_conformal holds the quantile rule).
 *
 * Residuals rho = ln(measured / predicted). Pools and how they combine:
 * - throughput, measured, one node: the model column's one-node points whose GPU has other results
 *   (fewer than 9: every measured throughput point, all scales);
 * - ttt and tta at 2-16 and 17+ nodes: the whole-run group (MLPerf v4.0 multi-node results predicted from
 *   their submitter's measured single-node result) at that scale, combined (model_interval_combine: two
 *   independent errors) with the one-node throughput interval inverted (a time is images / throughput, and a
 *   prediction without the user's own measurement also misses the single-node speed); one node takes the
 *   2-16 pool, the nearest scale with whole-run data (it holds scale-out error too: wider than one node needs);
 * - throughput at 2-16 and 17+: the pooled throughput interval combined with that scale's whole-run ttt
 *   interval inverted (what the scale-out adds);
 * - transfer: the measured interval widened on both sides by the largest miss of a transfer within an
 *   architecture (H100 -> H200); estimate: by the largest miss of any checked transfer (A100 -> H100,
 *   H100 -> H200) - one generation ahead, the model is wrong by about what it was wrong by one generation
 *   back, in a direction nobody has seen yet.
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

/* ln(measured / predicted) of the residuals of quantity q, basis b (b < 0: any) and scale s (s < 0: any),
 * without index skip, into v; returns how many. */
static int pool(const cal_resid *res, int n, int skip, model_quantity q, int b, int s, double *v)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		const cal_resid *r = &res[i];
		if (i == skip || r->q != q || (b >= 0 && (int)r->basis != b) || (s >= 0 && model_scale_of(r->nodes) != s))
			continue;
		if (r->measured > 0 && r->predicted > 0)
			v[k++] = log(r->measured / r->predicted);
	}
	return k;
}

static void set(cal_itable *t, int b, int s, int q, double lo, double hi, int n, const char *how)
{
	t->lo[b][s][q] = lo;
	t->hi[b][s][q] = hi;
	t->n[b][s][q] = n;
	snprintf(t->how[b][s][q], sizeof t->how[b][s][q], "%s", how);
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

/* The log bounds of every measured pool (see the head comment). */
typedef struct pools {
	int nall, n0;                      /* measured throughput points: all scales, the one-node pool used */
	double all_lo, all_hi, tp0_lo, tp0_hi;
	int wn[MODEL_NQUANTITIES][MODEL_NSCALES]; /* whole-run results per time quantity and scale */
	double w_lo[MODEL_NQUANTITIES][MODEL_NSCALES], w_hi[MODEL_NQUANTITIES][MODEL_NSCALES];
} pools;

/* Fills *p from the residuals (skip: one left out, or -1). Returns nall. */
static int pools_fill(const cal_resid *res, int n, int skip, pools *p)
{
	const int M = MODEL_BASIS_MEASURED;
	double *v = xmalloc((size_t)(n > 0 ? n : 1) * sizeof(*v));
	memset(p, 0, sizeof(*p));
	p->nall = pool(res, n, skip, MODEL_Q_THROUGHPUT, M, -1, v);
	model_interval_conformal(v, p->nall, &p->all_lo, &p->all_hi);
	p->n0 = pool(res, n, skip, MODEL_Q_THROUGHPUT, M, 0, v);
	if (p->n0 >= 9) {
		model_interval_conformal(v, p->n0, &p->tp0_lo, &p->tp0_hi);
	} else { /* too few one-node points for a symmetric 90% quantile: every scale's */
		p->n0 = p->nall;
		p->tp0_lo = p->all_lo;
		p->tp0_hi = p->all_hi;
	}
	for (int q = MODEL_Q_TTT; q <= MODEL_Q_TTA; q++)
		for (int s = 0; s < MODEL_NSCALES; s++) {
			p->wn[q][s] = pool(res, n, skip, (model_quantity)q, M, s, v);
			model_interval_conformal(v, p->wn[q][s], &p->w_lo[q][s], &p->w_hi[q][s]);
		}
	free(v);
	return p->nall;
}

/* Measured times: the whole-run pool of the scale (else the nearest scale with results) with the one-node
 * throughput interval inverted (a time is images / throughput). */
static void measured_times(const pools *p, cal_itable *t)
{
	static const int near[MODEL_NSCALES][MODEL_NSCALES] = {{0, 1, 2}, {1, 2, 0}, {2, 1, 0}};
	char how[200];
	for (int q = MODEL_Q_TTT; q <= MODEL_Q_TTA; q++)
		for (int s = 0; s < MODEL_NSCALES; s++) {
			int from = s;
			for (int k = 0; k < MODEL_NSCALES && p->wn[q][from] == 0; k++)
				from = near[s][k];
			double lo, hi;
			model_interval_combine(p->w_lo[q][from], p->w_hi[q][from], -p->tp0_hi, -p->tp0_lo, &lo, &hi);
			snprintf(how, sizeof how, "whole-run %s at %s nodes (%d results) + one-node throughput (%d points)",
				 model_quantity_name((model_quantity)q), model_scale_name(from), p->wn[q][from], p->n0);
			set(t, MODEL_BASIS_MEASURED, s, q, lo, hi, p->wn[q][from] + p->n0, how);
		}
}

/* Measured throughput: the one-node pool at one node; beyond, every scale's with the scale-out that the
 * whole-run ttt of that scale (else the other multi-node scale) shows, inverted. */
static void measured_throughput(const pools *p, cal_itable *t)
{
	const int q = MODEL_Q_THROUGHPUT;
	char how[200];
	snprintf(how, sizeof how, "throughput at one node (%d points)", p->n0);
	set(t, MODEL_BASIS_MEASURED, 0, q, p->tp0_lo, p->tp0_hi, p->n0, how);
	for (int s = 1; s < MODEL_NSCALES; s++) {
		int from = p->wn[MODEL_Q_TTT][s] ? s : s == 1 ? 2 : 1;
		double lo, hi;
		model_interval_combine(p->all_lo, p->all_hi, -p->w_hi[MODEL_Q_TTT][from], -p->w_lo[MODEL_Q_TTT][from], &lo, &hi);
		snprintf(how, sizeof how, "throughput, all scales (%d points) + whole-run ttt at %s nodes (%d results)",
			 p->nall, model_scale_name(from), p->wn[MODEL_Q_TTT][from]);
		set(t, MODEL_BASIS_MEASURED, s, q, lo, hi, p->nall + p->wn[MODEL_Q_TTT][from], how);
	}
}

/* Transfer and estimate: the measured interval widened by how far a checked transfer missed. */
static void widened(const cal_miss *miss, int nmiss, cal_itable *t)
{
	const int M = MODEL_BASIS_MEASURED;
	char how[200], what[160];
	for (int b = MODEL_BASIS_TRANSFER; b <= MODEL_BASIS_ESTIMATE; b++) {
		double w = widest_miss(miss, nmiss, b == MODEL_BASIS_TRANSFER, what, sizeof what);
		snprintf(how, sizeof how, "measured's, widened by %.3f (%s)", w, what);
		for (int s = 0; s < MODEL_NSCALES; s++)
			for (int q = 0; q < MODEL_NQUANTITIES; q++)
				set(t, b, s, q, t->lo[M][s][q] - w, t->hi[M][s][q] + w, t->n[M][s][q], how);
	}
}

int cal_interval_derive(const cal_resid *res, int n, int skip, const cal_miss *miss, int nmiss, cal_itable *t)
{
	pools p;
	memset(t, 0, sizeof(*t));
	if (pools_fill(res, n, skip, &p) == 0)
		return err_set("no measured throughput residual: no interval can be derived");
	measured_times(&p, t);
	measured_throughput(&p, t);
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

int cal_interval_write(const cal_itable *t, const cal_miss *miss, int nmiss, char *const *gpus, int ngpus,
		       const char *path)
{
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int rc = 0;
	if (!f) {
		rc = err_path(tmp, errno, "a file in an existing directory");
		free(tmp);
		return rc;
	}
	fprintf(f, "# 90%% prediction intervals and the GPUs with results in the data. Generated by `make intervals`\n"
		   "# (scaleplan validate --intervals FILE) from validate's held-out residuals; do not edit by hand.\n"
		   "# lo_x, hi_x: measured / predicted lies between them nine times in ten (split-conformal; rules in\n"
		   "# calibrate/cal_interval.c). Transfers checked (default model, mean ln(pred/measured) of the second GPU\n"
		   "# minus the first's):\n");
	for (int i = 0; i < nmiss; i++)
		fprintf(f, "#   %s -> %s: %+.1f%% (%d and %d points%s%s)\n", miss[i].from, miss[i].to,
			100 * (exp(miss[i].miss) - 1), miss[i].n_from, miss[i].n_to,
			miss[i].same_stack ? ", same stacks" : ", all stacks", miss[i].same_arch ? ", same architecture" : "");
	fprintf(f, "kind,basis,scale,quantity,n,lo_x,hi_x,what\n");
	for (int b = 0; b < MODEL_NBASES; b++)
		for (int s = 0; s < MODEL_NSCALES; s++)
			for (int q = 0; q < MODEL_NQUANTITIES; q++)
				fprintf(f, "interval,%s,%s,%s,%d,%.4f,%.4f,\"%s\"\n", model_basis_name((model_basis)b),
					model_scale_name(s), model_quantity_name((model_quantity)q), t->n[b][s][q],
					exp(t->lo[b][s][q]), exp(t->hi[b][s][q]), t->how[b][s][q]);
	for (int i = 0; i < ngpus; i++)
		fprintf(f, "gpu,measured,,,,,,%s\n", gpus[i]);
	if (ferror(f) | (fclose(f) != 0) || rename(tmp, path) != 0) {
		rc = err_path(path, errno, "a writable file");
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

typedef struct tally {
	int n, in;
} tally;

static void tally_print(FILE *out, const char *what, const tally *a, const tally *l)
{
	char loo[16] = "     -";
	if (l->n)
		snprintf(loo, sizeof loo, "%5.1f%%", 100.0 * l->in / l->n);
	if (a->n)
		fprintf(out, "  %-22s %4d  %5.1f%%  %s\n", what, a->n, 100.0 * a->in / a->n, loo);
}

void cal_interval_coverage(const cal_resid *res, int n, const cal_miss *miss, int nmiss, FILE *out)
{
	tally all[2] = {{0}}, basis[MODEL_NBASES][2] = {{{0}}}, scale[MODEL_NSCALES][2] = {{{0}}},
	      qty[MODEL_NQUANTITIES][2] = {{{0}}};
	cal_itable *t = xmalloc(sizeof(*t));
	for (int i = 0; i < n; i++) {
		const cal_resid *r = &res[i];
		double x = r->measured / r->predicted, lo, hi;
		if (!(x > 0) || !isfinite(x))
			continue;
		model_interval_factors(r->basis, r->nodes, r->q, &lo, &hi);
		int in_table = x >= lo * (1 - 1e-9) && x <= hi * (1 + 1e-9), in_loo = 0;
		int s = model_scale_of(r->nodes);
		/* without the point there may be nothing left to derive from: then it has no leave-one-out figure */
		bool loo = cal_interval_derive(res, n, i, miss, nmiss, t) == 0;
		if (loo) {
			double l = t->lo[r->basis][s][r->q], h = t->hi[r->basis][s][r->q];
			in_loo = log(x) >= l - 1e-9 && log(x) <= h + 1e-9;
		}
		tally *ts[4] = {all, basis[r->basis], scale[s], qty[r->q]};
		for (int k = 0; k < 4; k++) {
			ts[k][0].n++;
			ts[k][0].in += in_table;
			ts[k][1].n += loo;
			ts[k][1].in += in_loo;
		}
	}
	free(t);
	fprintf(out, "interval coverage (goal 85-95%% at 90%%): held-out points inside their own interval, with the built-in\n"
		     "table (derived from these same points: in-sample) and leave-one-out (each against intervals derived without it)\n");
	fprintf(out, "  %-22s %4s  %6s  %6s\n", "points", "n", "table", "l-o-o");
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
	for (int q = 0; q < MODEL_NQUANTITIES; q++) {
		char w[40];
		snprintf(w, sizeof w, "%s", model_quantity_name((model_quantity)q));
		tally_print(out, w, &qty[q][0], &qty[q][1]);
	}
}
