/* calibrate/cal_resid.c: what validate's prediction intervals are derived from, gathered: the held-out
 * residuals of the whole-run group (cal_wholerun.c), of the MLPerf v4.0 single-node results and start-up
 * (cal_gpus.c, cal_phases.c), the default model's transfer misses across GPU generations, and the pairs of
 * measured results of one source (for the intervals of ratios, cal_ratio.c). Prints nothing.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "calibrate/cal.h"
#include "calibrate/cal_internal.h"
#include "common/common.h"
#include "hwdb/hw.h"

void cal_resids_add(cal_resids *v, const cal_resid *r)
{
	if (!(r->measured > 0) || !(r->predicted > 0) || !isfinite(r->predicted))
		return;
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 64;
		v->r = xrealloc(v->r, (size_t)v->cap * sizeof(*v->r));
	}
	v->r[v->n++] = *r;
}

int cal_point_pool(const hw_db *db, const cal_point *p)
{
	const char *id = cal_point_stack(p);
	const hw_stack *st = id ? hw_stack_find(db, id) : NULL;
	const hw_system *sys = st || !p->machine ? NULL : hw_system_find(db, p->machine);
	if (!st && sys)
		st = sys->stack;
	return model_pool_of(st ? st->compute_eff : NAN);
}

void cal_resids_free(cal_resids *v)
{
	free(v->r);
	memset(v, 0, sizeof(*v));
}

/* Copies system name s without its node-count tokens (a leading "8x", "_n448"), which MLPerf's system names
 * carry: two names that are equal after this name one cluster at two node counts. */
static void cluster_name(const char *s, char *out, size_t cap)
{
	size_t k = 0;
	const char *p = s;
	while (*p >= '0' && *p <= '9')
		p++;
	s = p > s && *p == 'x' ? p + 1 : s;
	for (p = s; *p && k + 1 < cap; p++) {
		const char *q = p + 2;
		while (p[0] == '_' && p[1] == 'n' && *q >= '0' && *q <= '9')
			q++;
		if (q > p + 2 && (*q == '_' || *q == '\0')) {
			p = q - 1;
			continue;
		}
		out[k++] = *p;
	}
	out[k] = '\0';
}

/* What differs between a whole-run result ("submitter/system") and its single-node anchor (a system of the
 * same submitter): the node count, and the system when the anchor is another cluster (NVIDIA's 448-node
 * CoreWeave run is anchored on its Eos node, another host, fabric, file system and container release: its
 * start-up is that cluster's, not Eos's grown with the nodes). */
static unsigned whole_run_differs(const char *result, const char *anchor)
{
	const char *slash = strchr(result, '/');
	char a[128], b[128];
	cluster_name(slash ? slash + 1 : result, a, sizeof a);
	cluster_name(anchor, b, sizeof b);
	return 1u << MODEL_DIFF_SCALE | (strcmp(a, b) != 0 ? 1u << MODEL_DIFF_SYSTEM : 0);
}

/* x at the precision of the whole-run CSV (ttt 0.01 s, tta 0.1 s): model/intervals.csv and ratios.csv were
 * derived from that table's numbers, and `make intervals` must give them again byte for byte. */
static double at_digits(double x, int digits)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%.*f", digits, x);
	return atof(buf);
}

/* Whether result i repeats an earlier one's nodes, measured and predicted times at the whole-run table's
 * precision: v4.0 files one 8-node log under smc-ac-power and smc-dc-power, with one single-node log for both,
 * so the two are one prediction of one run: one residual. */
static bool result_repeated(const cal_wholerun *w, int i)
{
	const cal_wr_result *a = &w->res[i];
	for (int j = 0; j < i; j++) {
		const cal_wr_result *b = &w->res[j];
		if (b->status == CAL_WR_PREDICTED && a->nodes == b->nodes &&
		    at_digits(a->run_meas_s, 2) == at_digits(b->run_meas_s, 2) && at_digits(a->ttt_s, 2) == at_digits(b->ttt_s, 2) &&
		    at_digits(a->tta_meas_s, 1) == at_digits(b->tta_meas_s, 1) && at_digits(a->tta_s, 1) == at_digits(b->tta_s, 1))
			return true;
	}
	return false;
}

/* The whole-run group's ttt and tta residuals (basis measured: predicted from a measured single-node result),
 * scored by cal_wholerun_score, and their pairs against the anchors. */
int cal_wholerun_resids(const hw_db *db, cal_resids *v, cal_rpairs *pp)
{
	cal_wholerun w;
	int rc = cal_wholerun_score(db, &w);
	if (rc < 0) {
		cal_wholerun_free(&w);
		return rc;
	}
	for (int i = 0; i < w.n; i++) {
		const cal_wr_result *o = &w.res[i];
		if (o->status != CAL_WR_PREDICTED || result_repeated(&w, i))
			continue;
		int nodes = (int)o->nodes;
		double ttt = at_digits(o->ttt_s, 2), tta = at_digits(o->tta_s, 1);
		double m[2] = {at_digits(o->run_meas_s, 2), at_digits(o->tta_meas_s, 1)};
		/* MLPerf's stack stages nothing inside tta: its start-up is tta - ttt */
		cal_resid r1 = {MODEL_Q_TTT, MODEL_BASIS_MEASURED, nodes, m[0], ttt, MODEL_POOL_MLPERF, 0, 0};
		cal_resid r2 = {MODEL_Q_TTA, MODEL_BASIS_MEASURED, nodes, m[1], tta, MODEL_POOL_MLPERF, fmax(0.0, tta - ttt), 0};
		cal_resids_add(v, &r1);
		cal_resids_add(v, &r2);
		double pr[2] = {ttt, tta};
		unsigned diff = whole_run_differs(o->name, o->anchor);
		for (int k = 0; k < 2; k++)
			if (m[k] > 0 && pr[k] > 0)
				cal_rpair_add(&pp->p, &pp->n, &pp->cap, k ? MODEL_Q_TTA : MODEL_Q_TTT, diff,
					      log(m[k] / pr[k]), MODEL_STACKS_REFERENCE);
	}
	cal_wholerun_free(&w);
	return 0;
}

/* The MLPerf v4.0 single-node results predicted leave-one-submitter-out (cal_gpu_heldout) and the v4.0
 * systems' start-up predicted without their organisation (cal_phase_startup_heldout). */
int cal_mlperf_resids(const hw_db *db, cal_resids *v)
{
	enum { MAXR = 256 };
	cal_resid *r = xmalloc(MAXR * sizeof(*r));
	double nodes[MAXR], meas[MAXR], pred[MAXR];
	cal_phase_row *rows = NULL;
	model_params p;
	int nrows = 0;
	model_params_default(&p);
	int k = cal_gpu_heldout(db, &p, r, MAXR);
	for (int i = 0; i < k; i++)
		cal_resids_add(v, &r[i]);
	int m = k < 0 ? k : cal_phases_builtin(&rows, &nrows);
	if (m == 0)
		m = cal_phase_startup_heldout(rows, nrows, p.dataset_B, nodes, meas, pred, MAXR);
	for (int i = 0; i < m; i++) {
		cal_resid s = {MODEL_Q_STARTUP, MODEL_BASIS_MEASURED, (int)nodes[i], meas[i], pred[i], MODEL_POOL_MLPERF, 0, 0};
		cal_resids_add(v, &s);
	}
	free(rows);
	free(r);
	return m < 0 ? m : 0;
}

/* What differs between two throughput points of one source (model_ratio_differs' bits from their columns). */
static unsigned point_differs(const cal_point *a, const cal_point *b, const char *sa, const char *sb)
{
	unsigned d = 0;
	bool gpu = strcasecmp(a->gpu, b->gpu) != 0;
	d |= gpu ? 1u << MODEL_DIFF_GPU : 0;
	d |= a->nodes != b->nodes || a->gpus_per_node != b->gpus_per_node ? 1u << MODEL_DIFF_SCALE : 0;
	d |= !gpu && strcmp(a->machine, b->machine) != 0 ? 1u << MODEL_DIFF_SYSTEM : 0;
	d |= (sa && sb) ? (strcmp(sa, sb) != 0 ? 1u << MODEL_DIFF_STACK : 0) : (sa != sb ? 1u << MODEL_DIFF_STACK : 0);
	d |= strcmp(a->precision, b->precision) != 0 ? 1u << MODEL_DIFF_PRECISION : 0;
	return d;
}

/* Whether the model runs the database stack `id` at its reference efficiency (model_stack_reference's rule on
 * the stack's compute_eff; no stack: the system's default, taken as reference). */
static bool stack_reference(const hw_db *db, const char *id)
{
	const hw_stack *st = id ? hw_stack_find(db, id) : NULL;
	model_stack ms = {.compute_eff = st ? st->compute_eff : NAN};
	return model_stack_reference(&ms);
}

/* Pairs of the throughput points of one source (a white paper, a README table, a test bed) that the default
 * model predicts (pred[i] finite): speeds, and times as images over speed. Points that differ only in batch or
 * variant are no pair of the respects model_ratio knows. */
void cal_point_pairs(const hw_db *db, const cal_data *d, const double *pred, const char *const *stack, cal_rpairs *pp)
{
	for (int i = 0; i < d->n; i++)
		for (int j = i + 1; j < d->n; j++) {
			const cal_point *a = &d->pts[i], *b = &d->pts[j];
			if (!isfinite(pred[i]) || !isfinite(pred[j]) || !(pred[i] > 0) || !(pred[j] > 0) ||
			    !(a->measured > 0) || !(b->measured > 0) || strcmp(a->source, b->source) != 0)
				continue;
			unsigned diff = point_differs(a, b, stack[i], stack[j]);
			if (!diff || strcmp(a->variant, b->variant) != 0)
				continue;
			double rho = log(a->measured / b->measured) - log(pred[i] / pred[j]);
			model_stacks c = stack_reference(db, stack[i]) && stack_reference(db, stack[j]) ? MODEL_STACKS_REFERENCE
													 : MODEL_STACKS_ANY;
			cal_rpair_add(&pp->p, &pp->n, &pp->cap, MODEL_Q_THROUGHPUT, diff, rho, c);
			cal_rpair_add(&pp->p, &pp->n, &pp->cap, MODEL_Q_TTT, diff, -rho, c);
			cal_rpair_add(&pp->p, &pp->n, &pp->cap, MODEL_Q_TTA, diff, -rho, c);
		}
}

/* The transfers the data can check are data: gpus.csv's checked_from (across an architecture and within one). */
int cal_transfer_misses(const cal_data *d, const double *pred, const char *const *stack, const hw_db *db,
			cal_miss miss[CAL_MAX_TRANSFERS])
{
	int n = 0;
	for (int i = 0; i < db->ngpus && n < CAL_MAX_TRANSFERS; i++) {
		const hw_gpu *from = *db->gpus[i].checked_from_id ? hw_gpu_find(db, db->gpus[i].checked_from_id) : NULL;
		if (from)
			cal_transfer_miss(d, pred, stack, from->id, db->gpus[i].id, db, &miss[n++]);
	}
	return n;
}
