/* cli/validate_interval.c: validate's prediction intervals: takes the held-out residuals (the model column's,
 * recorded by cmd_validate.c; the built-in MLPerf ones), the default model's transfer misses and the pairs of
 * measured results of one source, all gathered by calibrate/cal_resid.c, then prints the coverage and, with
 * --intervals FILE and --ratios FILE, writes the tables `make intervals` compiles in. The derivations are
 * calibrate/cal_interval.c and cal_ratio.c; this file only calls and prints.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/cal.h"
#include "common/common.h"

/* --ratios FILE: the ratio table from every pair. EXIT_OK or an exit code (message printed). */
static int write_ratios(const cal_rpairs *pp, const char *path)
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

int cli_validate_intervals(const cli_interval_in *in, cal_resids *v, FILE *out)
{
	const cal_data *d = in->d;
	double *pred = xmalloc((size_t)(d->n > 0 ? d->n : 1) * sizeof(*pred));
	const char **stack = xcalloc((size_t)(d->n > 0 ? d->n : 1), sizeof(*stack));
	cal_miss miss[CAL_MAX_TRANSFERS];
	int nmiss = 0;
	cal_rpairs pp = {0};
	model_params defaults;
	int rc = in->builtin ? cal_wholerun_resids(in->db, v, &pp) : 0;
	if (rc < 0) {
		fprintf(stderr, "scaleplan validate: whole-run residuals: %s\n", err_msg());
		rc = rc == ERR_INTR ? exit_code_of(rc) : EXIT_ENV;
		goto out;
	}
	if (in->builtin && cal_mlperf_resids(in->db, v) < 0) {
		fprintf(stderr, "scaleplan validate: held-out MLPerf residuals: %s\n", err_msg());
		rc = EXIT_ENV;
		goto out;
	}
	model_params_default(&defaults);
	if (in->builtin && cal_mlperf_pairs(in->db, &defaults, &pp.p, &pp.n, &pp.cap) != 0) {
		fprintf(stderr, "scaleplan validate: MLPerf v4.0 pairs: %s\n", err_msg());
		rc = EXIT_INPUT;
		goto out;
	}
	/* the default model (no --measured) on every throughput point: how far it misses across generations */
	void *tctx = in->transfer_ctx ? in->transfer_ctx : in->default_ctx;
	for (int i = 0; i < d->n; i++) {
		pred[i] = d->pts[i].kind == CAL_THROUGHPUT ? in->default_fn(tctx, d, i, NULL, 0) : NAN;
		stack[i] = in->stack_fn(&d->pts[i]);
	}
	nmiss = cal_transfer_misses(d, pred, stack, in->db, miss);
	for (int i = 0; i < d->n && tctx != in->default_ctx; i++)
		pred[i] = d->pts[i].kind == CAL_THROUGHPUT ? in->default_fn(in->default_ctx, d, i, NULL, 0) : NAN;
	cal_point_pairs(in->db, d, pred, stack, &pp);
	if (in->ratios && (rc = write_ratios(&pp, in->ratios)) != EXIT_OK)
		goto out;
	if (in->intervals) {
		cal_itable *t = xmalloc(sizeof(*t));
		char **gpus = NULL;
		int ngpus = cal_measured_gpus(d, in->db, &gpus);
		int wrc = cal_interval_derive(v->r, v->n, -1, miss, nmiss, t);
		if (wrc == 0)
			wrc = cal_interval_write(t, miss, nmiss, gpus, ngpus, in->intervals);
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
		cal_interval_coverage(v->r, v->n, miss, nmiss, out);
		for (int k = 0; k < nmiss; k++) {
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
