/* cli/validate_interval.c: validate's prediction intervals: gathers the held-out residuals (the model
 * column's, recorded by cmd_validate.c; the whole-run group's; the v4.0 single-node results' and start-up's),
 * the default model's transfer misses and the pairs of measured results of one source (for the intervals of
 * ratios), then prints the coverage and, with --intervals FILE and --ratios FILE, writes the tables
 * `make intervals` compiles in. The derivations are calibrate/cal_interval.c and cal_ratio.c; this file only
 * collects and prints.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "calibrate/cal.h"
#include "common/common.h"

/* The transfers the data can check: across an architecture and within one. */
static const char *const checked[][2] = {{"A100-SXM4-80GB", "H100-SXM5-80GB"}, {"H100-SXM5-80GB", "H200-SXM-141GB"}};
enum { NCHECKED = sizeof(checked) / sizeof(checked[0]) };

void cli_resids_add(cli_resids *v, const cal_resid *r)
{
	if (!(r->measured > 0) || !(r->predicted > 0) || !isfinite(r->predicted))
		return;
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 64;
		v->r = xrealloc(v->r, (size_t)v->cap * sizeof(*v->r));
	}
	v->r[v->n++] = *r;
}

int cli_point_pool(const hw_db *db, const cal_point *p)
{
	const char *id = cal_point_stack(p);
	const hw_stack *st = id ? hw_stack_find(db, id) : NULL;
	const hw_system *sys = st || !p->machine ? NULL : hw_system_find(db, p->machine);
	if (!st && sys)
		st = sys->stack;
	return model_pool_of(st ? st->compute_eff : NAN);
}

void cli_resids_free(cli_resids *v)
{
	free(v->r);
	memset(v, 0, sizeof(*v));
}

/* Pairs of measured results for the ratio intervals (cal_ratio.c). */
typedef struct pairs {
	cal_rpair *p;
	int n, cap;
} pairs;

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
 * scored by cal_wholerun_score. EXIT_OK or an exit code. */
static int whole_run_resids(const hw_db *db, cli_resids *v, pairs *pp)
{
	cal_wholerun w;
	int rc = cal_wholerun_score(db, &w);
	if (rc < 0) {
		fprintf(stderr, "scaleplan validate: whole-run residuals: %s\n", err_msg());
		cal_wholerun_free(&w);
		return rc == ERR_INTR ? exit_code_of(rc) : EXIT_ENV;
	}
	for (int i = 0; i < w.n; i++) {
		const cal_wr_result *o = &w.res[i];
		if (o->status != CAL_WR_PREDICTED || result_repeated(&w, i))
			continue;
		int nodes = (int)o->nodes;
		double ttt = at_digits(o->ttt_s, 2), tta = at_digits(o->tta_s, 1);
		double m[2] = {at_digits(o->run_meas_s, 2), at_digits(o->tta_meas_s, 1)};
		/* MLPerf's stack stages nothing inside tta: its start-up is tta - ttt */
		cal_resid r1 = {MODEL_Q_TTT, MODEL_BASIS_MEASURED, nodes, m[0], ttt, MODEL_POOL_MLPERF, 0};
		cal_resid r2 = {MODEL_Q_TTA, MODEL_BASIS_MEASURED, nodes, m[1], tta, MODEL_POOL_MLPERF, fmax(0.0, tta - ttt)};
		cli_resids_add(v, &r1);
		cli_resids_add(v, &r2);
		double pr[2] = {ttt, tta};
		unsigned diff = whole_run_differs(o->name, o->anchor);
		for (int k = 0; k < 2; k++)
			if (m[k] > 0 && pr[k] > 0)
				cal_rpair_add(&pp->p, &pp->n, &pp->cap, k ? MODEL_Q_TTA : MODEL_Q_TTT, diff,
					      log(m[k] / pr[k]), MODEL_STACKS_REFERENCE);
	}
	cal_wholerun_free(&w);
	return EXIT_OK;
}

/* The MLPerf v4.0 single-node results predicted leave-one-submitter-out (cal_gpu_heldout) and the v4.0
 * systems' start-up predicted without their organisation (cal_phase_startup_heldout). EXIT_OK or an exit code. */
static int mlperf_resids(const hw_db *db, cli_resids *v)
{
	enum { MAXR = 256 };
	cal_resid *r = xmalloc(MAXR * sizeof(*r));
	double nodes[MAXR], meas[MAXR], pred[MAXR];
	cal_phase_row *rows = NULL;
	model_params p;
	int nrows = 0, rc = EXIT_OK;
	model_params_default(&p);
	int k = cal_gpu_heldout(db, &p, r, MAXR);
	for (int i = 0; i < k; i++)
		cli_resids_add(v, &r[i]);
	int m = k < 0 ? k : cal_phases_builtin(&rows, &nrows);
	if (m == 0)
		m = cal_phase_startup_heldout(rows, nrows, p.dataset_B, nodes, meas, pred, MAXR);
	for (int i = 0; i < m; i++) {
		cal_resid s = {MODEL_Q_STARTUP, MODEL_BASIS_MEASURED, (int)nodes[i], meas[i], pred[i], MODEL_POOL_MLPERF, 0};
		cli_resids_add(v, &s);
	}
	if (m < 0) {
		fprintf(stderr, "scaleplan validate: held-out MLPerf residuals: %s\n", err_msg());
		rc = EXIT_ENV;
	}
	free(rows);
	free(r);
	return rc;
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
static void point_pairs(const hw_db *db, const cal_data *d, const double *pred, const char *const *stack, pairs *pp)
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

/* --ratios FILE: the ratio table from every pair. EXIT_OK or an exit code (message printed). */
static int write_ratios(const pairs *pp, const char *path)
{
	cal_rtable *t = xmalloc(sizeof(*t));
	int rc = cal_ratio_derive(pp->p, pp->n, -1, t);
	if (rc == 0)
		rc = cal_ratio_write(t, pp->n, path);
	free(t);
	if (rc != 0) {
		fprintf(stderr, "scaleplan validate: --ratios: %s\n", err_msg());
		return exit_code_of(rc);
	}
	fprintf(stderr, "scaleplan validate: wrote %s (%d pairs)\n", path, pp->n);
	return EXIT_OK;
}

int cli_validate_intervals(const cli_interval_in *in, cli_resids *v, FILE *out)
{
	const cal_data *d = in->d;
	double *pred = xmalloc((size_t)(d->n > 0 ? d->n : 1) * sizeof(*pred));
	const char **stack = xcalloc((size_t)(d->n > 0 ? d->n : 1), sizeof(*stack));
	cal_miss miss[NCHECKED];
	pairs pp = {0};
	model_params defaults;
	int rc = in->builtin ? whole_run_resids(in->db, v, &pp) : EXIT_OK;
	if (rc == EXIT_OK && in->builtin)
		rc = mlperf_resids(in->db, v);
	if (rc != EXIT_OK)
		goto out;
	model_params_default(&defaults);
	if (in->builtin && cal_mlperf_pairs(in->db, &defaults, &pp.p, &pp.n, &pp.cap) != 0) {
		fprintf(stderr, "scaleplan validate: MLPerf v4.0 pairs: %s\n", err_msg());
		rc = EXIT_INPUT;
		goto out;
	}
	/* the default model (no --measured) on every throughput point: how far it misses across generations */
	for (int i = 0; i < d->n; i++) {
		pred[i] = d->pts[i].kind == CAL_THROUGHPUT ? in->default_fn(in->default_ctx, d, i, NULL, 0) : NAN;
		stack[i] = in->stack_fn(&d->pts[i]);
	}
	for (int k = 0; k < NCHECKED; k++)
		cal_transfer_miss(d, pred, stack, checked[k][0], checked[k][1], in->db, &miss[k]);
	point_pairs(in->db, d, pred, stack, &pp);
	if (in->ratios && (rc = write_ratios(&pp, in->ratios)) != EXIT_OK)
		goto out;
	if (in->intervals) {
		cal_itable *t = xmalloc(sizeof(*t));
		char **gpus = NULL;
		int ngpus = cal_measured_gpus(d, in->db, &gpus);
		int wrc = cal_interval_derive(v->r, v->n, -1, miss, NCHECKED, t);
		if (wrc == 0)
			wrc = cal_interval_write(t, miss, NCHECKED, gpus, ngpus, in->intervals);
		if (wrc != 0) {
			fprintf(stderr, "scaleplan validate: --intervals: %s\n", err_msg());
			rc = exit_code_of(wrc); /* 1: no such directory, nothing to derive from; 2: permission, disk */
		} else {
			fprintf(stderr, "scaleplan validate: wrote %s (%d residuals, %d GPUs with results)\n", in->intervals,
				v->n, ngpus);
		}
		for (int i = 0; i < ngpus; i++)
			free(gpus[i]);
		free(gpus);
		free(t);
	}
	if (out) {
		fprintf(out, in->md ? "\n```\n" : "\n");
		cal_interval_coverage(v->r, v->n, miss, NCHECKED, out);
		for (int k = 0; k < NCHECKED; k++) {
			if (isnan(miss[k].miss)) { /* no points of one of the two GPUs in these measurements */
				fprintf(out, "  default model %s -> %s: not checked (%d and %d points)\n", miss[k].from,
					miss[k].to, miss[k].n_from, miss[k].n_to);
				continue;
			}
			fprintf(out, "  default model %s -> %s: ratio off by %+.1f%% (%d and %d points, %s)\n", miss[k].from,
				miss[k].to, 100 * (exp(miss[k].miss) - 1), miss[k].n_from, miss[k].n_to,
				miss[k].same_stack ? "the stacks both ran" : "all their stacks");
		}
		cal_ratio_coverage(pp.p, pp.n, out);
		if (in->md)
			fprintf(out, "```\n");
	}
out:
	free(pp.p);
	free(pred);
	free(stack);
	return rc;
}
