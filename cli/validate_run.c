/* `scaleplan validate`, whole-run group: prints what calibrate/cal_wholerun.c scored (every MLPerf v4.0
 * multi-node ResNet-50 result predicted end to end from its submitter's single-node result) as a table,
 * Markdown or CSV, and the detail rows for the parity plot.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/cal.h"
#include "cli/cli.h"
#include "common/common.h"

/* One detail row: the group's first word is what parity plots colour by; lo, hi: the built-in 90% interval. */
static void detail_row(csvw *w, const char *group, const char *name, double nodes, double meas, double pred, double err,
		       double lo, double hi)
{
	if (!w)
		return;
	csvw_text(w, group);
	csvw_text(w, name);
	csvw_num(w, nodes, 6);
	csvw_num(w, meas, 6);
	csvw_num(w, pred, 6);
	csvw_num(w, 100 * err, 4);
	csvw_num(w, lo, 6);
	csvw_num(w, hi, 6);
	csvw_end_row(w);
}

/* A result's ttt and tta rows with the built-in intervals at its node count (measured basis, MLPerf stacks: it
 * is predicted from its submitter's measured single-node result; MLPerf's start-up is tta - ttt). */
static void detail_rows(csvw *w, const cal_wr_result *o)
{
	double lo, hi;
	model_interval_factors(MODEL_BASIS_MEASURED, MODEL_POOL_MLPERF, MODEL_Q_TTT, (int)o->nodes, &lo, &hi);
	detail_row(w, "ttt whole-run (s)", o->name, o->nodes, o->run_meas_s, o->ttt_s, o->err_ttt, o->ttt_s * lo,
		   o->ttt_s * hi);
	model_interval_tta(MODEL_BASIS_MEASURED, MODEL_POOL_MLPERF, (int)o->nodes, o->tta_s, fmax(0.0, o->tta_s - o->ttt_s),
			   &lo, &hi);
	detail_row(w, "tta whole-run (s)", o->name, o->nodes, o->tta_meas_s, o->tta_s, o->err_tta, lo, hi);
}

/* --detail FILE opened with its header (through FILE.tmp). EXIT_OK or the exit code, message printed. */
static int detail_open(const char *detail, csvw **dw)
{
	static const char *hdr[] = {"group", "result", "nodes", "measured", "predicted", "err_pct", "predicted_lo",
				    "predicted_hi"};
	int orc = csvw_create(detail, dw);
	if (orc) {
		fprintf(stderr, "scaleplan validate: --detail %s\n", err_msg());
		return exit_code_of(orc);
	}
	for (int k = 0; k < 8; k++)
		csvw_text(*dw, hdr[k]);
	csvw_end_row(*dw);
	return EXIT_OK;
}

static void print_head(FILE *out, bool md, bool csv)
{
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
}

/* One result's line (or why it has none: stdout for what the data lacks, stderr for what failed). */
static void print_result(FILE *out, bool md, bool csv, const cal_wr_result *o, csvw *dw)
{
	if (o->status == CAL_WR_SKIPPED) {
		if (md)
			fprintf(out, "| %s | %g | - | not predicted: %s | | | | |\n", o->name, o->nodes, o->why);
		else if (!csv)
			fprintf(out, "%s: not predicted (%s)\n", o->name, o->why);
		return;
	}
	if (o->status != CAL_WR_PREDICTED) {
		fprintf(stderr, o->status == CAL_WR_FIT_FAILED ? "scaleplan validate: whole-run %s: %s\n"
							      : "scaleplan validate: whole-run %s: not predicted (%s)\n",
			o->name, o->err);
		return;
	}
	detail_rows(dw, o);
	if (csv)
		fprintf(out, "%s,%g,%g,%s,%.2f,%.2f,%.1f,%.1f,%.2f,%.1f,%.1f,%.1f,%.1f,%.1f\n", o->name, o->nodes, o->gpus,
			o->anchor, o->run_meas_s, o->ttt_s, 100 * o->err_ttt, o->epochs, o->ttt_curve_s, 100 * o->err_curve,
			o->epochs_curve, o->tta_meas_s, o->tta_s, 100 * o->err_tta);
	else if (md)
		fprintf(out, "| %s | %g | %s | %.1f s | %.1f s (%+.1f%%) | %.1f s (%+.1f%%, %.0f epochs) | %.1f s | %.1f s (%+.1f%%) |\n",
			o->name, o->nodes, o->anchor, o->run_meas_s, o->ttt_s, 100 * o->err_ttt, o->ttt_curve_s,
			100 * o->err_curve, o->epochs_curve, o->tta_meas_s, o->tta_s, 100 * o->err_tta);
	else
		fprintf(out, "%-44.44s %5g %-26.26s %8.1fs %8.1fs %+6.1f%% %8.1fs %+6.1f%% %8.1fs %8.1fs %+6.1f%%\n", o->name,
			o->nodes, o->anchor, o->run_meas_s, o->ttt_s, 100 * o->err_ttt, o->ttt_curve_s, 100 * o->err_curve,
			o->tta_meas_s, o->tta_s, 100 * o->err_tta);
}

static void print_summary(FILE *out, bool md, const cal_wholerun *w)
{
	const cal_wr_err *es[3] = {&w->ttt, &w->curve, &w->tta};
	const char *what[3] = {"ttt_s (logged epochs) vs run_start..run_stop", "ttt_s (convergence-curve epochs)",
			       "tta_s (logged epochs) vs init_start..run_stop"};
	fprintf(out, "\n");
	for (int k = 0; k < 3; k++)
		fprintf(out, "%s%s: %d results, mean absolute error %.1f%%, mean signed error %+.1f%%, worst %.1f%%\n",
			md ? "- " : "", what[k], es[k]->n, es[k]->n ? 100 * es[k]->sum / es[k]->n : NAN,
			es[k]->n ? 100 * es[k]->signed_sum / es[k]->n : NAN, 100 * es[k]->worst);
}

int cli_validate_whole_run(const hw_db *db, const char *format, FILE *out, const char *detail)
{
	bool md = strcmp(format, "md") == 0, csv = strcmp(format, "csv") == 0;
	csvw *dw = NULL;
	cal_wholerun w;
	int rc;

	if (detail && (rc = detail_open(detail, &dw)) != EXIT_OK)
		return rc;
	print_head(out, md, csv);
	intr_phase("compute");
	if ((rc = cal_wholerun_score(db, &w)) < 0) {
		if (rc == ERR_INTR)
			fprintf(stderr, "scaleplan validate: interrupted (%s)%s%s\n", intr_name(),
				detail ? "; not written: " : "", detail ? detail : "");
		else
			fprintf(stderr, "scaleplan validate: %s\n", err_msg());
		csvw_abort(dw);
		cal_wholerun_free(&w);
		return exit_code_of(rc);
	}
	for (int i = 0; i < w.n; i++)
		print_result(out, md, csv, &w.res[i], dw);
	if (!csv)
		print_summary(out, md, &w);
	cal_wholerun_free(&w);
	int crc = csvw_close(dw);
	if (crc < 0) {
		fprintf(stderr, "scaleplan validate: --detail %s\n", err_msg());
		return exit_code_of(crc);
	}
	return EXIT_OK;
}
