/* `scaleplan validate`, whole-run group: every MLPerf v4.0 multi-node ResNet-50 result predicted end to
 * end (ttt_s against the scored run_start..run_stop, tta_s against init_start..run_stop) from the same
 * submitter's single-node result of the round, as a user would: its measured throughput as --measured,
 * the database's node for its GPU, the run-level terms (start-up, warm-up, evaluation, epoch boundary)
 * fitted to the phase table without the organisation being predicted (leave-one-submitter-out).
 * Data: refdata/mlperf_v4_0_phases.csv (calibrate/cal_phases.c). Epochs enter twice: the epochs the
 * runs logged (what the throughput and phase model alone are judged on) and the model's convergence
 * curve at the run's global batch (what a planner would predict).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/cal.h"
#include "cli/cli.h"
#include "common/common.h"
#include "hwdb/hw.h"

/* One MLPerf result (the runs of one submitter's system), scored as MLPerf scores ResNet-50: of five
 * runs the fastest and slowest are dropped and the other three averaged. */
typedef struct vresult {
	const cal_phase_row *first;  /* a run of it, for names and placement */
	int nruns;
	double run_s, tta_s, epochs; /* scored means (by run_s) */
	double img_s;                /* mean warm-epoch throughput over its successful runs */
} vresult;

static int cmp_run(const void *a, const void *b)
{
	double x = (*(const cal_phase_row *const *)a)->run_s, y = (*(const cal_phase_row *const *)b)->run_s;
	return x < y ? -1 : x > y;
}

/* Scores the successful runs of (submitter, system) of rows[i]. */
static void score(const cal_phase_row *rows, int n, int i, vresult *v)
{
	const cal_phase_row *ok[64];
	int k = 0;
	memset(v, 0, sizeof *v);
	v->first = &rows[i];
	for (int j = 0; j < n && k < 64; j++)
		if (strcmp(rows[j].submitter, rows[i].submitter) == 0 && strcmp(rows[j].system, rows[i].system) == 0 &&
		    strcmp(rows[j].status, "success") == 0 && rows[j].run_s > 0 && rows[j].tta_s > 0)
			ok[k++] = &rows[j];
	v->nruns = k;
	v->run_s = v->tta_s = v->epochs = v->img_s = NAN;
	if (k == 0)
		return;
	qsort(ok, (size_t)k, sizeof *ok, cmp_run);
	int lo = k >= 5 ? 1 : 0, hi = k >= 5 ? k - 1 : k;
	double rs = 0, ts = 0, es = 0, is = 0;
	for (int j = lo; j < hi; j++)
		rs += ok[j]->run_s, ts += ok[j]->tta_s, es += ok[j]->epochs_to_target;
	for (int j = 0; j < k; j++)
		is += ok[j]->train_img_s;
	v->run_s = rs / (hi - lo);
	v->tta_s = ts / (hi - lo);
	v->epochs = es / (hi - lo);
	v->img_s = is / k;
}

/* The database system of a result's GPU with its GPUs per node (and a network, for several nodes). */
static const hw_system *system_for(const hw_db *db, const cal_phase_row *r)
{
	const char *acc = r->accelerator;
	const hw_gpu *g = hw_gpu_find(db, acc);
	plan_spec spec;
	plan_spec_init(&spec);
	if (!g && strncmp(acc, "NVIDIA ", 7) == 0)
		g = hw_gpu_find(db, acc + 7);
	for (int i = 0; g && i < db->nsystems; i++) {
		const hw_system *s = &db->systems[i];
		if (s->gpu == g && s->gpus_per_node == (int)r->gpus_per_node &&
		    plan_joinable(&spec, s, s->gpus_per_node, (int)r->nodes))
			return s;
	}
	return NULL;
}

/* Predicts a result: 0 and *ttt, *tta; -1 (the scenario failed; its message went to stderr). */
static int predict(const char *hwdb_dir, const hw_system *sys, const vresult *t, const vresult *anchor,
		   const cal_phase_fit *f, double epochs, double *ttt, double *tta, double *ep)
{
	const cal_phase_row *r = t->first, *a = anchor->first;
	cli_scen s;
	model_scenario sc;
	model_result res;
	int rc = -1;

	cli_scen_init(&s, "validate");
	s.hwdb_dir = hwdb_dir;
	s.spec.system_id = sys->id;
	s.spec.precision = MODEL_FP16;         /* the v4.0 NVIDIA MXNet stack trains in fp16 */
	s.spec.global_batch = (int)r->global_batch;
	s.spec.epochs = epochs;
	s.spec.measured[0].gpus = (int)a->gpus;
	s.spec.measured[0].batch_per_gpu = (int)(a->global_batch / a->gpus);
	s.spec.measured[0].img_s = anchor->img_s;
	s.spec.nmeasured = 1;
	if (cli_scen_load(&s) != EXIT_OK)
		goto out;
	cal_phase_fit_apply(f, &s.params);
	if (cli_scen_resolve(&s, s.system, (int)r->gpus_per_node, (int)r->nodes, &sc) != EXIT_OK ||
	    model_predict(&sc, &s.params, &res) != 0 || !res.fits)
		goto out;
	*ttt = res.ttt_s;
	*tta = res.tta_s;
	*ep = res.epochs;
	rc = 0;
out:
	cli_scen_free(&s);
	return rc;
}

typedef struct errsum {
	int n;
	double sum, worst, signed_sum; /* sum of |err|, the worst |err|, sum of err (the bias) */
} errsum;

static double err_add(errsum *e, double pred, double meas)
{
	double x = pred / meas - 1;
	if (isfinite(x)) {
		e->n++;
		e->sum += fabs(x);
		e->signed_sum += x;
		e->worst = fmax(e->worst, fabs(x));
	}
	return x;
}

/* One detail row: the group's first word is what parity plots colour by. */
static void detail_row(csvw *w, const char *group, const char *name, double nodes, double meas, double pred, double err)
{
	if (!w)
		return;
	csvw_text(w, group);
	csvw_text(w, name);
	csvw_num(w, nodes, 6);
	csvw_num(w, meas, 6);
	csvw_num(w, pred, 6);
	csvw_num(w, 100 * err, 4);
	csvw_end_row(w);
}

int cli_validate_whole_run(const char *hwdb_dir, const hw_db *db, const char *format, FILE *out, const char *detail)
{
	cal_phase_row *rows = NULL;
	int n = 0;
	bool md = strcmp(format, "md") == 0, csv = strcmp(format, "csv") == 0;
	errsum e_ttt = {0}, e_curve = {0}, e_tta = {0};
	model_params dp;

	if (cal_phases_builtin(&rows, &n) < 0) {
		fprintf(stderr, "scaleplan validate: %s\n", err_msg());
		return EXIT_ENV;
	}
	csvw *dw = NULL;
	if (detail) {
		int orc = csvw_create(detail, &dw);
		if (orc) {
			fprintf(stderr, "scaleplan validate: --detail %s\n", err_msg());
			free(rows);
			return exit_code_of(orc);
		}
		static const char *hdr[] = {"group", "result", "nodes", "measured", "predicted", "err_pct"};
		for (int k = 0; k < 6; k++)
			csvw_text(dw, hdr[k]);
		csvw_end_row(dw);
	}
	model_params_default(&dp);
	if (csv)
		fprintf(out, "result,nodes,gpus,anchor,ttt_measured_s,ttt_pred_s,ttt_err_pct,epochs_logged,ttt_curve_pred_s,"
			     "ttt_curve_err_pct,epochs_curve,tta_measured_s,tta_pred_s,tta_err_pct\n");
	else
		fprintf(out, "%swhole-run group: MLPerf v4.0 multi-node ResNet-50 results (refdata/mlperf_v4_0_phases.csv), "
			     "each predicted from its submitter's single-node result (--measured: its warm-epoch img/s); "
			     "run-level terms fitted without the predicted organisation, then anchored on that single-node "
			     "result's own start-up, lead-in and first epoch (cal_phase_anchor)\n%s",
			md ? "\n" : "\n", md ? "\n| result | nodes | anchor | ttt measured | ttt predicted (logged epochs) | "
					      "ttt predicted (curve epochs) | tta measured | tta predicted |\n"
					      "|---|---:|---|---:|---:|---:|---:|---:|\n" : "");
	if (!csv && !md)
		fprintf(out, "%-44s %5s %-26s %9s %9s %7s %9s %7s %9s %9s %7s\n", "result", "nodes", "anchor (1 node)",
			"ttt meas", "ttt pred", "err", "curve", "err", "tta meas", "tta pred", "err");
	intr_phase("compute");
	for (int i = 0; i < n; i++) {
		const cal_phase_row *r = &rows[i];
		vresult t, a;
		bool seen = false;
		if (intr_pending()) {
			fprintf(stderr, "scaleplan validate: interrupted (%s)%s%s\n", intr_name(), detail ? "; not written: " : "",
				detail ? detail : "");
			csvw_abort(dw);
			free(rows);
			return intr_exit_code();
		}
		for (int j = 0; j < i && !seen; j++)
			seen = strcmp(rows[j].submitter, r->submitter) == 0 && strcmp(rows[j].system, r->system) == 0;
		if (seen || !(r->nodes > 1 && r->nodes < 1e6 && r->gpus_per_node >= 1 && r->gpus_per_node < 1e6 &&
			      r->global_batch >= 1 && r->global_batch < 1e9))
			continue;
		score(rows, n, i, &t);
		if (t.nruns == 0)
			continue;
		int ai = -1;
		for (int j = 0; j < n && ai < 0; j++)
			if (strcmp(rows[j].submitter, r->submitter) == 0 && rows[j].nodes == 1 &&
			    rows[j].gpus_per_node == r->gpus_per_node && strcmp(rows[j].accelerator, r->accelerator) == 0 &&
			    strcmp(rows[j].status, "success") == 0 && rows[j].global_batch >= 1 && rows[j].global_batch < 1e9 &&
			    rows[j].train_img_s > 0)
				ai = j;
		char name[200];
		snprintf(name, sizeof name, "%s/%s", r->submitter, r->system);
		const hw_system *sys = system_for(db, r);
		if (ai < 0 || !sys) {
			const char *why = ai < 0 ? "no single-node result of the same GPU from this submitter in v4.0"
						 : "no system in the database with this GPU and node size";
			if (md)
				fprintf(out, "| %s | %g | - | not predicted: %s | | | | |\n", name, r->nodes, why);
			else if (!csv)
				fprintf(out, "%s: not predicted (%s)\n", name, why);
			continue;
		}
		score(rows, n, ai, &a);
		char org[64];
		cal_phase_org(r->submitter, org, sizeof org);
		cal_phase_fit f;
		if (cal_phase_fit_rows(rows, n, org, dp.dataset_B, &f) < 0 ||
		    cal_phase_anchor(&f, rows, n, a.first->submitter, a.first->system, dp.dataset_B) < 0) {
			fprintf(stderr, "scaleplan validate: whole-run %s: %s\n", name, err_msg());
			continue;
		}
		double ttt = NAN, tta = NAN, ep = NAN, ttt_c = NAN, tta_c = NAN, ep_c = NAN;
		if (predict(hwdb_dir, sys, &t, &a, &f, t.epochs, &ttt, &tta, &ep) < 0 ||
		    predict(hwdb_dir, sys, &t, &a, &f, 0, &ttt_c, &tta_c, &ep_c) < 0) {
			fprintf(stderr, "scaleplan validate: whole-run %s: not predicted (scenario failed)\n", name);
			continue;
		}
		double e1 = err_add(&e_ttt, ttt, t.run_s), e2 = err_add(&e_curve, ttt_c, t.run_s);
		double e3 = err_add(&e_tta, tta, t.tta_s);
		detail_row(dw, "ttt whole-run (s)", name, r->nodes, t.run_s, ttt, e1);
		detail_row(dw, "tta whole-run (s)", name, r->nodes, t.tta_s, tta, e3);
		if (csv)
			fprintf(out, "%s,%g,%g,%s,%.2f,%.2f,%.1f,%.1f,%.2f,%.1f,%.1f,%.1f,%.1f,%.1f\n", name, r->nodes, r->gpus,
				a.first->system, t.run_s, ttt, 100 * e1, ep, ttt_c, 100 * e2, ep_c, t.tta_s, tta, 100 * e3);
		else if (md)
			fprintf(out, "| %s | %g | %s | %.1f s | %.1f s (%+.1f%%) | %.1f s (%+.1f%%, %.0f epochs) | %.1f s | %.1f s (%+.1f%%) |\n",
				name, r->nodes, a.first->system, t.run_s, ttt, 100 * e1, ttt_c, 100 * e2, ep_c, t.tta_s, tta,
				100 * e3);
		else
			fprintf(out, "%-44.44s %5g %-26.26s %8.1fs %8.1fs %+6.1f%% %8.1fs %+6.1f%% %8.1fs %8.1fs %+6.1f%%\n", name,
				r->nodes, a.first->system, t.run_s, ttt, 100 * e1, ttt_c, 100 * e2, t.tta_s, tta, 100 * e3);
	}
	if (!csv) {
		const errsum *es[3] = {&e_ttt, &e_curve, &e_tta};
		const char *what[3] = {"ttt_s (logged epochs) vs run_start..run_stop", "ttt_s (convergence-curve epochs)",
				       "tta_s (logged epochs) vs init_start..run_stop"};
		fprintf(out, "\n");
		for (int k = 0; k < 3; k++)
			fprintf(out, "%s%s: %d results, mean absolute error %.1f%%, mean signed error %+.1f%%, worst %.1f%%\n",
				md ? "- " : "", what[k], es[k]->n, es[k]->n ? 100 * es[k]->sum / es[k]->n : NAN,
				es[k]->n ? 100 * es[k]->signed_sum / es[k]->n : NAN, 100 * es[k]->worst);
	}
	free(rows);
	int crc = csvw_close(dw);
	if (crc < 0) {
		fprintf(stderr, "scaleplan validate: --detail %s\n", err_msg());
		return exit_code_of(crc);
	}
	return EXIT_OK;
}
