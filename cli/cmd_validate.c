/* `scaleplan validate`: predicts every measurement on file without fitting to it; error table.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate/cal.h"
#include "cli/cli.h"
#include "plan/plan.h"
#include "common/common.h"
#include "hwdb/hw.h"

/* The model column's errors per stack (calibrate/cal_mcol.c gathers them). */
static void stack_print(const cal_mcol *m, FILE *out)
{
	fprintf(out, "model column by stack (no --measured from another group; the stack's speed from its cell of the GPU "
		     "(hwdb stack_effs.csv, tools/fit_stack_gen.sh), fitted on these one-GPU points, so in-sample there):\n");
	for (int k = 0; k < m->nstacks; k++) {
		const cal_stack_err *v = &m->stacks[k];
		fprintf(out, "  %-16s %3d points  mean |error| %5.1f%%  bias %+5.1f%%\n", v->id, v->n, 100 * v->abs_sum / v->n,
			100 * v->sum / v->n);
	}
}

/* The model column, recording each prediction as a held-out residual for the intervals (the point's basis:
 * how its GPU is known without it). */
typedef struct vrecord {
	cal_mcol *m;
	const hw_db *db;
	cal_resids res;
} vrecord;

static double vmodel_record(void *vctx, const cal_data *d, int i, const int *others, int nothers)
{
	vrecord *v = vctx;
	double pred = cal_mcol_point(v->m, d, i, others, nothers);
	cal_resid r = {MODEL_Q_THROUGHPUT, cal_point_basis(d, i, v->db), d->pts[i].nodes, d->pts[i].measured, pred,
		       cal_point_pool(v->db, &d->pts[i]), 0, 0};
	double lo, hi;
	if (cal_repeat_spread(d, i, &lo, &hi) && lo > 0)
		r.repeat_hw = 0.5 * log(hi / lo);
	cal_resids_add(&v->res, &r);
	return pred;
}

/* Opens --detail FILE as FILE.tmp (renamed at the end). EXIT_OK, or the exit code of the README's rule
 * (1: no such directory, a directory named; 2: permission, disk) with the message printed. */
static int detail_open(const char *detail, FILE **df, char **tmp)
{
	struct stat st;
	int rc;
	*tmp = xasprintf("%s.tmp", detail);
	if (stat(detail, &st) == 0 && S_ISDIR(st.st_mode))
		rc = err_path(detail, EISDIR, "a file to write");
	else if ((*df = fopen(*tmp, "w")))
		return EXIT_OK;
	else
		rc = err_path(*tmp, errno, "a file in an existing directory");
	fprintf(stderr, "scaleplan validate: --detail %s\n", err_msg());
	return exit_code_of(rc);
}

static int opt_against(void *ctx, const cli_opt *o, const char *arg)
{
	cli_validate_opts *vo = ctx;
	(void)o;
	if (vo->nagainst == CLI_VALIDATE_MAX_AGAINST) {
		fprintf(stderr, "scaleplan validate: at most 64 --against\n");
		return -1;
	}
	vo->against[vo->nagainst++] = arg;
	return 0;
}

static const char *const formats[] = {"table", "csv", "md", NULL};
static const char *const groups[] = {"all", "whole-run", "gpus", NULL};

static void validate_table(cli_validate_opts *vo, cli_opt *t)
{
	const cli_opt own[] = {
		{.kind = CLI_OPT_CALL, .name = "against", .short_name = 'a', .fn = opt_against, .ctx = vo, .repeatable = true,
		 .help = "  --against P     measurements (CSV or directory, as calibrate reads them); may be repeated\n"},
		CLI_O_FLAG("no-builtin", &vo->no_builtin, "  --no-builtin    leave out the built-in reference data\n"),
		CLI_O_STR("profile", &vo->profile,
			  "  --profile FILE  predict with this profile (written by `scaleplan calibrate`) instead of refitting\n"),
		CLI_O_STR("where", &vo->where,
			  "  --where EXPR    keep only points with field=value[,...] (see `scaleplan calibrate --help`)\n"),
		CLI_O_ENUM("format", &vo->format, formats, "table, csv or md",
			   "  --format F      table (default), csv, or md (the Markdown table of docs/validate.md)\n"),
		CLI_O_STR("detail", &vo->detail,
			  "  --detail FILE   also write one CSV row per point (measured, predicted, error, how; for\n"
			  "                  throughput the 90% interval predicted_lo..predicted_hi: the parameters'\n"
			  "                  standard errors, a run's noise, the all-reduce's miss on its exposed share); with\n"
			  "                  --group whole-run one row per result and time (ttt, tta) with the built-in\n"
			  "                  interval at its node count. Written as FILE.tmp,\n"
			  "                  renamed when complete; `scaleplan plot FILE` draws the parity plot\n"),
		CLI_O_FLAG("strict", &vo->strict,
			   "  --strict        malformed rows are fatal (default: reported with file:line, skipped)\n"),
		CLI_O_ENUM("group", &vo->group, groups, "all, whole-run or gpus",
			   "  --group G       all (default) or whole-run: only the whole-run group - every MLPerf v4.0\n"
			   "                  multi-node result predicted end to end (ttt_s vs run_start..run_stop, tta_s vs\n"
			   "                  init_start..run_stop) from its submitter's single-node result, run-level terms\n"
			   "                  fitted leave-one-submitter-out (refdata/mlperf_v4_0_phases.csv); with --format\n"
			   "                  table or md it follows the other groups, with csv it needs --group whole-run;\n"
			   "                  gpus: the fit of the compute constants (eff_compute, eff_mem, eff_compute_fp32)\n"
			   "                  to every GPU on file, with leave-one-GPU-out, leave-one-submitter-out and\n"
			   "                  leave-one-stack-out errors (a table; docs/model.md)\n"),
		CLI_O_STR("intervals", &vo->intervals,
			  "  --intervals FILE  also write the 90% prediction-interval table derived from these held-out\n"
			  "                  residuals (model/intervals.csv: `make intervals`; compiled into the binary)\n"),
		CLI_O_STR("ratios", &vo->ratios,
			  "  --ratios FILE   also write the 90% intervals of the ratio of two predictions, by what differs,\n"
			  "                  from pairs of measured results of one source (model/ratios.csv: `make intervals`)\n"),
		CLI_O_STR("hwdb", &vo->hwdb_dir, "  --hwdb DIR      overlay DIR on the built-in hardware database\n"),
		CLI_O_HELP,
		CLI_O_END,
	};
	memcpy(t, own, sizeof own);
}

static void validate_help(FILE *out)
{
	cli_validate_opts vo;
	cli_opt own[13];
	validate_table(&vo, own);
	fprintf(out,
		"usage: scaleplan validate [--against DIR|FILE]... [--no-builtin] [--profile FILE] [--where EXPR]\n"
		"                          [--format table|csv|md] [--detail FILE] [--strict] [--group all|whole-run|gpus]\n"
		"                          [--intervals FILE] [--ratios FILE] [--hwdb DIR]\n"
		"\n"
		"Predicts every measurement on file - the reference data built into the binary and any --against\n"
		"data - without fitting to the point being predicted, and prints per group: points, mean absolute\n"
		"percentage error (MAPE) and the worst point.\n"
		"Without --profile each point is predicted by a fit of the other points of its group\n"
		"(leave-one-out; a group of one point is predicted from the priors). With --profile the points are\n"
		"predicted from that profile alone (nothing is fitted): use it for a hold-out set that the profile's\n"
		"calibration did not see.\n"
		"\n");
	cli_opt_help(out, own, NULL);
	fprintf(out, "After the table: interval coverage, the share of held-out points inside their own 90%% interval,\n"
		     "and the same for the ratio intervals of pairs of results, with their median width.\n");
}

/* The summary after the points' table: overall error, what the model column is, its errors by stack. */
static void print_points_summary(const cal_vtable *vt, const cal_mcol *vm, const cli_validate_opts *o)
{
	bool md = strcmp(o->format, "md") == 0;
	double all = 0;
	for (int i = 0; i < vt->n; i++)
		all += vt->rows[i].mape * vt->rows[i].n;
	printf("%s%d points in %d groups, overall MAPE %.1f%%%s; predicted %s\n", md ? "\n" : "", vt->npred, vt->n,
	       100 * all / vt->npred, vt->nunpredictable ? " (some points could not be predicted: see stderr)" : "",
	       o->profile ? "from the profile only (no fitting)" : "leave-one-out within each fit group (a group of one: from the other groups' fits and the priors)");
	printf("%smodel column: the full analytic model (`predict`) with %s, the stack of the row's framework "
	       "(TensorFlow: tf1-hvd; PyTorch: pytorch-ddp, -nchw, -compile or -dle; MXNet: ngc-mlperf, mxnet-dle or "
	       "mxnet-dell; this engine: scaleplan-train) and, as "
	       "--measured, the single-node points "
	       "of the same group that fit on the predicted node (none: the database estimate); %d points predicted, "
	       "%d failed; '-' where it cannot describe the transport (sockets or host memory on one host)\n",
	       md ? "\n" : "", o->profile ? "the profile" : "default parameters", vm->npred, vm->nfail);
	stack_print(vm, stdout);
}

/* --detail's FILE.tmp closed and renamed when the whole table was written (rc EXIT_OK); else removed.
 * Returns rc, or the exit code of what failed here. */
static int detail_finish(FILE *df, const char *detail, const char *detail_tmp, int rc)
{
	bool ok = rc == EXIT_OK && !ferror(df);
	int closed = fclose(df);
	intr_phase("rename");
	if (ok && intr_pending()) { /* the last moment the old file can be kept */
		fprintf(stderr, "scaleplan validate: interrupted (%s); not written: %s\n", intr_name(), detail);
		unlink(detail_tmp);
		return intr_exit_code();
	}
	if (closed != 0 || !ok || rename(detail_tmp, detail) != 0) {
		if (rc == EXIT_OK)
			fprintf(stderr, "scaleplan validate: %s: cannot write: %s\n", detail, strerror(errno));
		unlink(detail_tmp);
		return rc == EXIT_OK ? EXIT_ENV : rc;
	}
	return rc;
}

/* The measurements' table (cal_validate with the model column recorded in rec), then for table and md the
 * summary and the whole-run group. EXIT_OK or an exit code (message printed). */
static int score_points(const cli_validate_opts *o, cal_data *d, cal_pset *ps, cal_vtable *vt, cal_mcol *vm,
			vrecord *rec, FILE *df)
{
	cal_opts co = {.db = vm->db, .strict = o->strict, .log = stderr, .model_fn = vmodel_record, .model_ctx = rec};
	intr_phase("compute");
	if (cal_validate(vt, d, o->profile ? ps : NULL, &co, df) < 0) {
		fprintf(stderr, "scaleplan validate: %s\n", err_msg());
		return EXIT_INPUT;
	}
	if (intr_pending()) {
		fprintf(stderr, "scaleplan validate: interrupted (%s)%s%s\n", intr_name(), o->detail ? "; not written: " : "",
			o->detail ? o->detail : "");
		return intr_exit_code();
	}
	cal_vtable_print(vt, o->format, stdout);
	if (strcmp(o->format, "csv") == 0)
		return EXIT_OK;
	print_points_summary(vt, vm, o);
	return cli_validate_whole_run(vm->db, o->format, stdout, NULL);
}

/* Every measurement predicted without fitting to it (the groups' table), the whole-run group and the
 * prediction intervals. */
static int validate_points(const cli_validate_opts *o, const hw_db *db)
{
	cal_data d;
	cal_pset ps;
	cal_vtable vt = {0};
	FILE *df = NULL;
	char *detail_tmp = NULL;
	int rc;
	cal_data_init(&d);
	cal_pset_init(&ps);
	/* the model column's parameters: the defaults, or the profile's (as `predict --profile`) */
	model_params mp;
	model_params_default(&mp);
	cal_mcol vm = {.db = db, .params = &mp}, vm_default = vm, vm_transfer = {.db = db, .params = &mp, .skip_own_gpu = true};
	vrecord rec = {.m = &vm, .db = db};
	cli_cal_in in = {.builtin = !o->no_builtin, .paths = o->against, .npaths = o->nagainst,
			 .target_top1 = CAL_MLPERF_TARGET_TOP1, .strict = o->strict, .where = o->where, .profile = o->profile};
	if ((rc = cli_cal_inputs("validate", db, &in, &d, &ps)) != EXIT_OK)
		goto out;
	if (o->profile && model_params_load(&mp, o->profile)) {
		fprintf(stderr, "scaleplan validate: --profile: %s\n", err_msg());
		rc = EXIT_INPUT;
		goto out;
	}
	if (o->detail && (rc = detail_open(o->detail, &df, &detail_tmp)) != EXIT_OK)
		goto out;
	rc = score_points(o, &d, &ps, &vt, &vm, &rec, df);
	if (rc == EXIT_OK && (o->intervals || o->ratios || strcmp(o->format, "csv") != 0)) {
		cli_interval_in ii = {.db = db, .d = &d, .intervals = o->intervals, .ratios = o->ratios,
				      .builtin = !o->no_builtin, .md = strcmp(o->format, "md") == 0,
				      .default_fn = cal_mcol_point, .default_ctx = &vm_default, .transfer_ctx = &vm_transfer,
				      .stack_fn = cal_point_stack};
		rc = cli_validate_intervals(&ii, &rec.res, strcmp(o->format, "csv") != 0 ? stdout : NULL);
	}
out:
	if (df) /* written as FILE.tmp: renamed only when the whole table was written */
		rc = detail_finish(df, o->detail, detail_tmp, rc);
	free(detail_tmp);
	cal_resids_free(&rec.res);
	cal_vtable_free(&vt);
	cal_pset_free(&ps);
	cal_data_free(&d);
	return rc;
}

int cli_validate(const cli_validate_opts *o)
{
	int rc;
	if ((rc = cli_check_out("validate", "--detail", o->detail, false)) ||
	    (rc = cli_check_out("validate", "--intervals", o->intervals, false)))
		return rc;
	if (strcmp(o->group, "gpus") == 0 && strcmp(o->format, "table") != 0) {
		fprintf(stderr, "scaleplan validate: --group gpus prints a table only (got --format %s)\n", o->format);
		return EXIT_INPUT;
	}
	hw_db db;
	if ((rc = cli_load_db(&db, "validate", o->hwdb_dir)) != EXIT_OK)
		return rc;
	if (strcmp(o->group, "gpus") == 0) {
		model_params p;
		model_params_default(&p);
		rc = cal_gpu_report(&db, &p, stdout) ? EXIT_INPUT : EXIT_OK;
		if (rc != EXIT_OK)
			fprintf(stderr, "scaleplan validate: %s\n", err_msg());
	} else if (strcmp(o->group, "whole-run") == 0)
		rc = cli_validate_whole_run(&db, o->format, stdout, o->detail);
	else
		rc = validate_points(o, &db);
	hw_db_free(&db);
	return rc;
}

int cmd_validate(int argc, char **argv)
{
	cli_validate_opts vo = {.format = "table", .group = "all"};
	cli_opt own[13];
	validate_table(&vo, own);
	cli_parse p = {.cmd = "validate", .tables = {own}, .usage = validate_help, .usage_on_error = true, .max_args = 0};
	int rc = cli_opt_parse(&p, argc, argv);
	if (rc || p.done)
		return rc;
	return cli_validate(&vo);
}
