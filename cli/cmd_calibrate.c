/* `scaleplan calibrate`: fits the model's free parameters to measurements and writes a profile CSV.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "calibrate/cal.h"
#include "cli/cli.h"
#include "common/common.h"
#include "hwdb/hw.h"
#include "model/model.h"

/* calibrate's options as given. */
typedef struct cal_cli {
	const char *inputs[64], *out, *where, *prior, *hwdb_dir, *phases_out, *mllog_dir, *source_prefix;
	const char *phases_fit, *phases_anchor;
	int ninputs;
	bool builtin, strict;
	double target;
} cal_cli;

/* --measurements P, --mllog DIR and bare arguments: one more input. */
static int add_input(cal_cli *c, const char *path)
{
	if (c->ninputs == 64) {
		fprintf(stderr, "scaleplan calibrate: at most 64 inputs\n");
		return -1;
	}
	c->inputs[c->ninputs++] = path;
	return 0;
}

static int opt_input(void *ctx, const cli_opt *o, const char *arg)
{
	cal_cli *c = ctx;
	if (strcmp(o->name, "mllog") == 0)
		c->mllog_dir = arg;
	return add_input(c, arg);
}

enum { CAL_NOPTS = 16 };

/* calibrate's options, bound to c, in --help's order. */
static void cal_table(cal_cli *c, cli_opt *t)
{
	const cli_opt own[] = {
		{.kind = CLI_OPT_CALL, .name = "measurements", .short_name = 'm', .fn = opt_input, .ctx = c, .repeatable = true,
		 .help = "  --measurements P  a measurement CSV (scaleplan-train runs, all-reduce sweeps, input-pipeline sweeps,\n"
			 "                    convergence tables; the kind is recognised by the header) or a directory of them;\n"
			 "                    MLLOG logs in a directory are read too. May be repeated; bare arguments count too.\n"
			 "                    Sweep rows with load columns (scaleplan-train --bench-allreduce --load resnet)\n"
			 "                    give the contention factors slowdown_compute / slowdown_comm.\n"},
		CLI_O_CALLS("mllog", opt_input, c, "  --mllog DIR       MLPerf result logs (:::MLLOG lines): epochs to target, time to train, throughput\n"),
		CLI_O_STR("phases-out", &c->phases_out,
			  "  --phases-out FILE write the phase table of the --mllog DIR logs (searched recursively): per run\n"
			  "                    init_s, init_to_run_s, run_s (scored), tta_s, epochs, first/warm epoch, evaluation\n"
			  "                    passes and their time, epoch-boundary gaps, throughput, nodes, GPUs, global batch\n"
			  "                    (refdata/mlperf_v4_0_phases.csv is one; tools/mlperf_phases.sh makes it); without\n"
			  "                    --out nothing is fitted\n"),
		CLI_O_STR("source-prefix", &c->source_prefix,
			  "  --source-prefix S prefix of the phase table's source column (e.g. repo@commit:), then the log's path\n"
			  "                    relative to DIR\n"),
		CLI_O_STR("phases-fit", &c->phases_fit,
			  "  --phases-fit T    fit the model's run-level terms (start-up, warm-up, evaluation, epoch boundary;\n"
			  "                    forms in calibrate/cal.h) to phase table T (a file, or 'builtin' for\n"
			  "                    refdata/mlperf_v4_0_phases.csv) with GSL and print them as `--param` values\n"),
		CLI_O_STR("phases-anchor", &c->phases_anchor,
			  "  --phases-anchor A anchor those terms on your own runs (a phase table of one system at one node\n"
			  "                    count, from --phases-out): the start-up, lead-in and cold-read rate then give\n"
			  "                    what your runs measured there, and grow with nodes as the fit says; with --out\n"
			  "                    FILE the terms are also written as a profile for `predict --profile FILE`\n"),
		CLI_O_FLAG("builtin", &c->builtin, "  --builtin         also fit the reference data built into the binary (refdata/)\n"),
		CLI_O_STR("where", &c->where,
			  "  --where EXPR      keep only points with field=value[,field=value] (gpus, nodes, gpus_per_node,\n"
			  "                    batch_per_gpu, machine, gpu, intra, inter, kind, source, file); sweeps and other\n"
			  "                    non-throughput points are kept unless the field is kind/source/file/machine\n"),
		CLI_O_STR("prior", &c->prior, "  --prior PROFILE   start from a profile's values (its parameters are the priors)\n"),
		{.kind = CLI_OPT_DOUBLE, .name = "target-top1", .dest = &c->target, .lo = 0, .hi = 1, .open_lo = true,
		 .want = "a fraction in (0, 1]", .help = "  --target-top1 A   quality target for MLLOG logs (default " MODEL_STR(MODEL_MLPERF_TARGET_TOP1) ")\n"},
		CLI_O_FLAG("strict", &c->strict,
			   "  --strict          a malformed row or log line is fatal (default: reported with file:line, skipped)\n"),
		{.kind = CLI_OPT_STRING, .name = "out", .short_name = 'o', .dest = &c->out,
		 .help = "  --out FILE        the profile CSV to write (required)\n"},
		CLI_O_STR("hwdb", &c->hwdb_dir,
			  "  --hwdb DIR        overlay DIR on the built-in hardware database (GPU peaks, link bandwidths)\n"),
		CLI_O_HELP,
		CLI_O_END,
	};
	memcpy(t, own, sizeof own);
}

static void calibrate_help(FILE *out)
{
	cal_cli c;
	cli_opt own[CAL_NOPTS];
	cal_table(&c, own);
	fprintf(out,
		"usage: scaleplan calibrate --measurements FILE|DIR [--measurements ...] [--mllog DIR] --out profile.csv\n"
		"       scaleplan calibrate --mllog DIR --phases-out phases.csv [--source-prefix S]\n"
		"       scaleplan calibrate --phases-fit builtin|phases.csv [--phases-anchor mine.csv]\n"
		"                           [--builtin] [--where EXPR] [--prior PROFILE] [--target-top1 A] [--strict] [--hwdb DIR]\n"
		"\n"
		"Fits the model's free parameters (the stack's compute_eff and b_half per machine, GPU, precision and\n"
		"stack, all-reduce alpha and bus bandwidth per machine and transport, compute/all-reduce contention,\n"
		"overlap, decode rate per core, convergence curve, epoch-boundary cost) through the model itself\n"
		"(each run as the scenario `predict` builds for it) with GSL nonlinear least squares on relative\n"
		"errors; prints each parameter with its standard error, the fit error and the leave-one-out error;\n"
		"writes the profile (read by `predict --profile`: compute_eff where one machine and stack was fitted;\n"
		"`validate --profile`: every scope).\n"
		"\n");
	cli_opt_help(out, own, NULL);
}

/* Reads a phase table file, or the built-in one for "builtin". 0 or ERR_*. */
static int phases_load(const char *table, cal_phase_row **rows, int *n)
{
	if (strcmp(table, "builtin") == 0)
		return cal_phases_builtin(rows, n);
	char *buf;
	size_t len;
	int rc = file_read_all(table, &buf, &len);
	if (rc == 0) {
		rc = cal_phases_read_buf(table, buf, len, rows, n);
		free(buf);
	}
	return rc;
}

/* The model parameters of the run-level terms (what cal_phase_fit_apply sets), in print order. */
static const char *const phase_params[] = {"startup_s", "startup_per_log2_node_s", "startup_per_sqrt_node_s",
					   "startup_per_node_s", "run_lead_s", "run_lead_steps", "cold_read_Bps",
					   "cold_read_node_exp", "eval_fixed_s", "eval_step_frac", "epoch_boundary_s",
					   "epoch_boundary_iters"};
enum { NPHASE_PARAMS = sizeof phase_params / sizeof phase_params[0] };

/* --phases-fit --out: the terms as a profile CSV (param,value,source) that `predict --profile` reads;
 * m holds them as cal_phase_fit_apply puts them in the model. */
static int phases_profile_write(const char *path, const model_params *m, const char *table, const char *anchor)
{
	char source[600];
	snprintf(source, sizeof source, "scaleplan calibrate --phases-fit %s%s%s", table, anchor ? " --phases-anchor " : "",
		 anchor ? anchor : "");
	csvw *w;
	int rc = csvw_create(path, &w);
	if (rc)
		return rc;
	csvw_text(w, "param");
	csvw_text(w, "value");
	csvw_text(w, "source");
	csvw_end_row(w);
	for (int i = 0; i < NPHASE_PARAMS; i++) {
		double v = NAN;
		model_params_get(m, phase_params[i], &v);
		csvw_text(w, phase_params[i]);
		csvw_num(w, v, 10);
		csvw_text(w, source);
		csvw_end_row(w);
	}
	return csvw_close(w);
}

/* --phases-fit [--phases-anchor] [--out]: the run-level terms fitted to a phase table (anchored on a second
 * one), printed as --param assignments and written as a profile. */
static int phases_fit_print(const char *table, const char *anchor, const char *out)
{
	cal_phase_row *rows = NULL, *arows = NULL;
	int n = 0, an = 0, rc;
	model_params p;
	cal_phase_fit f, a; /* as fitted; anchored (the options printed last) */

	model_params_default(&p);
	rc = phases_load(table, &rows, &n);
	if (rc == 0)
		rc = cal_phase_fit_rows(rows, n, NULL, p.dataset_B, &f);
	a = f;
	if (rc == 0 && anchor && (rc = phases_load(anchor, &arows, &an)) == 0 &&
	    (rc = cal_phase_anchor(&a, arows, an, NULL, NULL, p.dataset_B)) < 0)
		err_prefix("%s", anchor);
	free(arows);
	if (rc < 0) {
		fprintf(stderr, "scaleplan calibrate: %s\n", err_msg());
		free(rows);
		return exit_code_of(rc);
	}
	printf("run-level terms fitted to %s (%d of %d runs; GSL)\n", table, f.nruns, n);
	printf("  start-up = %s: startup_s=%.4g startup_per_log2_node_s=%.4g startup_per_sqrt_node_s=%.4g "
	       "startup_per_node_s=%.4g  in-sample MAPE %.1f%%\n", cal_startup_form_name(f.startup_form), f.startup_s,
	       f.startup_per_log2_node_s, f.startup_per_sqrt_node_s, f.startup_per_node_s, 100 * f.mape_startup);
	printf("    leave-one-organisation-out MAPE:");
	for (int k = 0; k < CAL_STARTUP_NFORMS; k++)
		printf(" %s %.1f%%%s", cal_startup_form_name(k), 100 * f.cv_startup[k], k + 1 < CAL_STARTUP_NFORMS ? "," : "\n");
	printf("  warm-up = lead-in%s + max(0, data/(R nodes^e) - epoch): run_lead_s=%.4g run_lead_steps=%.4g "
	       "cold_read_Bps=%.4g cold_read_node_exp=%.3g  mean |err| %.2f%% of the run\n",
	       f.lead_form == CAL_LEAD_STEPS ? " (a + k step)" : " (a)", f.run_lead_s, f.run_lead_steps, f.cold_read_Bps,
	       f.cold_read_node_exp, 100 * f.mae_warmup_run);
	printf("    leave-one-organisation-out mean |err| / run: lead-in a %.2f%%, a + k step %.2f%%\n",
	       100 * f.cv_warmup[CAL_LEAD_CONST], 100 * f.cv_warmup[CAL_LEAD_STEPS]);
	printf("  eval_fixed_s=%.4g eval_step_frac=%.4g  evaluation pass = a + b eval images / img/s  MAPE %.1f%%\n",
	       f.eval_fixed_s, f.eval_step_frac, 100 * f.mape_eval);
	printf("  epoch_boundary_s=%.4g epoch_boundary_iters=%.4g  boundary per epoch = a + b step  MAPE %.1f%%\n",
	       f.epoch_boundary_s, f.epoch_boundary_iters, 100 * f.mape_boundary);
	if (a.anchor_runs)
		printf("  anchored on %s (%d runs at %g node%s): start-up %.3f x the fit's (its fixed part moved), lead-in x %.3f, cold_read_Bps %.4g (from "
		       "its first epoch)\n", anchor, a.anchor_runs, a.anchor_nodes, a.anchor_nodes == 1 ? "" : "s",
		       a.anchor_startup_x, a.anchor_lead_x, a.cold_read_Bps);
	model_params fitted = p;
	cal_phase_fit_apply(&a, &fitted);
	printf("as options:");
	for (int i = 0; i < NPHASE_PARAMS; i++) {
		double v = NAN;
		model_params_get(&fitted, phase_params[i], &v);
		printf(" --param %s=%.6g", phase_params[i], v);
	}
	printf("\n");
	free(rows);
	if (out && (rc = phases_profile_write(out, &fitted, table, anchor)) < 0) {
		fprintf(stderr, "scaleplan calibrate: %s\n", err_msg());
		return exit_code_of(rc);
	}
	if (out)
		printf("profile: %s (scaleplan predict --profile %s ...)\n", out, out);
	return EXIT_OK;
}

/* A compute_eff deserves a word when its rows name no precision (calibrate then takes them as bf16,
 * calibrate/cal_mcol.c cal_point_compute_scenario) or when it is above 1: faster than the model's
 * MLPerf-grade reference on that GPU and precision - a sign of a wrong precision or GPU in the rows.
 * Scope: machine|gpu|precision|variant. */
static void compute_eff_note(const cal_param *p)
{
	if (strcmp(p->name, "compute_eff") != 0)
		return;
	const char *b1 = strchr(p->scope, '|'), *b2 = b1 ? strchr(b1 + 1, '|') : NULL;
	bool no_precision = !b2 || b2[1] == '|' || b2[1] == '\0';
	if (no_precision)
		printf("note: compute_eff %.4g of [%s]: its rows name no precision, so they were taken as bf16 (add a "
		       "precision column to the measurements)\n", p->value, p->scope);
	else if (p->value > 1)
		printf("note: compute_eff %.4g of [%s] is above 1: faster than the model's MLPerf-grade reference on "
		       "that GPU and precision; check the precision and GPU the rows name\n", p->value, p->scope);
}

/* The fitted parameters as a table; the scope column is as wide as its widest cell (never cut). */
static void fitted_table_print(const cal_pset *ps)
{
	int w = 5;
	for (int i = 0; i < ps->n; i++)
		if (ps->p[i].status != CAL_PRIOR && (int)strlen(ps->p[i].scope) > w)
			w = (int)strlen(ps->p[i].scope);
	printf("\n%-18s %-*s %12s %11s  %-15s %s\n", "param", w, "scope", "value", "std.err", "status", "rows");
	for (int i = 0; i < ps->n; i++) {
		const cal_param *p = &ps->p[i];
		if (p->status == CAL_PRIOR)
			continue;
		char se[32] = "-";
		if (isfinite(p->se))
			snprintf(se, sizeof se, "%.3g", p->se);
		int nrows = p->rows[0] ? 1 : 0;
		for (const char *s = p->rows; *s; s++)
			nrows += *s == ';';
		printf("%-18s %-*s %12.5g %11s  %-15s %d\n", p->name, w, p->scope, p->value, se, cal_pstatus_name(p->status),
		       nrows);
	}
	for (int i = 0; i < ps->n; i++)
		if (ps->p[i].status != CAL_PRIOR)
			compute_eff_note(&ps->p[i]);
}

int cli_calibrate_fit(const char *hwdb_dir, const cli_cal_in *in, const char *out)
{
	hw_db db;
	int rc = cli_load_db(&db, "calibrate", hwdb_dir);
	if (rc != EXIT_OK)
		return rc;
	cal_data d;
	cal_data_init(&d);
	cal_pset ps;
	cal_pset_init(&ps);
	if ((rc = cli_cal_inputs("calibrate", &db, in, &d, &ps)) != EXIT_OK)
		goto out;
	int nk[CAL_NKINDS] = {0};
	for (int i = 0; i < d.n; i++)
		nk[d.pts[i].kind]++;
	printf("measurements: %d throughput, %d all-reduce, %d pipeline, %d convergence, %d time-to-train points",
	       nk[CAL_THROUGHPUT], nk[CAL_ALLREDUCE], nk[CAL_PIPELINE], nk[CAL_EPOCHS], nk[CAL_TTA]);
	if (nk[CAL_CONTENTION])
		printf(", %d contention ratios", nk[CAL_CONTENTION]);
	if (d.nbad)
		printf("; %d malformed rows/lines skipped (listed on stderr)", d.nbad);
	printf("\n");
	cal_opts o = {.db = &db, .strict = in->strict, .log = stdout};
	cal_summary sum;
	intr_phase("compute");
	if (cal_fit_all(&ps, &d, &o, &sum) < 0) {
		fprintf(stderr, "scaleplan calibrate: %s\n", err_msg());
		rc = EXIT_INPUT;
		goto out;
	}
	if (intr_pending()) {
		fprintf(stderr, "scaleplan calibrate: interrupted (%s) while fitting; %s not written\n", intr_name(), out);
		rc = intr_exit_code();
		goto out;
	}
	fitted_table_print(&ps);
	printf("\nfits: %d, %d did not converge, %d parameters not determined by the data\n", sum.nfits, sum.nfailed,
	       sum.nundetermined);
	if (isfinite(sum.fit_mape))
		printf("fit error (in-sample MAPE): %.2f%% over %d points\n", 100 * sum.fit_mape, sum.npoints);
	if (isfinite(sum.loo_mape))
		printf("leave-one-out error (MAPE): %.2f%% over %d points\n", 100 * sum.loo_mape, sum.nloo);
	else
		printf("leave-one-out error: not available (no fit group has 2 or more points)\n");
	if (sum.nrepeat > 0 && isfinite(sum.fit_mape_spread))
		printf("beyond the repeats' spread (%d points run more than once): in-sample %.2f%%, leave-one-out %.2f%%\n",
		       sum.nrepeat, 100 * sum.fit_mape_spread, 100 * sum.loo_mape_spread);
	if (sum.iv.n > 1) {
		printf("90%% interval of a leave-one-out prediction: %+.1f%% / %+.1f%% of it, a repeated point's widened by "
		       "its repeats' half-range; %d of %d points inside the interval derived without them",
		       100 * (exp(sum.iv.lo) - 1), 100 * (exp(sum.iv.hi) - 1), sum.iv.in, sum.iv.n);
		if (sum.nrepeat > 0)
			printf(" (no spread counted: %+.1f%% / %+.1f%%, %d inside)", 100 * (exp(sum.iv_plain.lo) - 1),
			       100 * (exp(sum.iv_plain.hi) - 1), sum.iv_plain.in);
		printf("\n");
	}
	if ((rc = cal_pset_write(&ps, out, &o)) < 0) {
		fprintf(stderr, "scaleplan calibrate: %s\n", err_msg());
		rc = exit_code_of(rc);
		goto out;
	}
	printf("profile written to %s\n", out);
	rc = EXIT_OK;
out:
	cal_pset_free(&ps);
	cal_data_free(&d);
	hw_db_free(&db);
	return rc;
}

/* --phases-out: the phase table of --mllog DIR. EXIT_OK or the exit code (message printed). */
static int phases_out_write(const cal_cli *c)
{
	int nrows = 0;
	if (!c->mllog_dir) {
		fprintf(stderr, "scaleplan calibrate: --phases-out needs --mllog DIR\n");
		return EXIT_INPUT;
	}
	int rc = cal_phases_write_dir(c->mllog_dir, c->source_prefix, c->phases_out, c->target, c->strict, stderr, &nrows);
	if (rc < 0) {
		fprintf(stderr, "scaleplan calibrate: %s\n", err_msg());
		return exit_code_of(rc);
	}
	printf("phase table: %d runs written to %s\n", nrows, c->phases_out);
	return EXIT_OK;
}

int cmd_calibrate(int argc, char **argv)
{
	cal_cli c = {.source_prefix = "", .target = CAL_MLPERF_TARGET_TOP1};
	cli_opt own[CAL_NOPTS];
	cal_table(&c, own);
	cli_parse p = {.cmd = "calibrate", .tables = {own}, .usage = calibrate_help, .usage_on_error = true, .max_args = -1};
	int rc = cli_opt_parse(&p, argc, argv);
	if (rc || p.done)
		return rc;
	for (int i = 0; i < p.nargs && c.ninputs < 64; i++)
		c.inputs[c.ninputs++] = p.args[i];
	if ((rc = cli_check_out("calibrate", "--out", c.out, false)) ||
	    (rc = cli_check_out("calibrate", "--phases-out", c.phases_out, false)))
		return rc;
	if (c.phases_anchor && !c.phases_fit) {
		fprintf(stderr, "scaleplan calibrate: --phases-anchor needs --phases-fit TABLE\n");
		return EXIT_INPUT;
	}
	if (c.phases_fit)
		return phases_fit_print(c.phases_fit, c.phases_anchor, c.out);
	if (c.phases_out && ((rc = phases_out_write(&c)) || !c.out))
		return rc;
	if (!c.out || (c.ninputs == 0 && !c.builtin)) {
		fprintf(stderr, "scaleplan calibrate: %s\n\n", !c.out ? "--out FILE is required" : "no measurements given");
		calibrate_help(stderr);
		return EXIT_INPUT;
	}
	cli_cal_in in = {.builtin = c.builtin, .paths = c.inputs, .npaths = c.ninputs, .target_top1 = c.target,
			 .strict = c.strict, .where = c.where, .profile = c.prior};
	return cli_calibrate_fit(c.hwdb_dir, &in, c.out);
}
