/* scaleplan campaign: a calibration campaign in one command. From a grid of GPUs per node, nodes, batch per
 * GPU, data path and transport it writes the launch scripts of every scaleplan-train run and the expanded
 * grid (calibrate/cal_campaign.c), each run's time limit from the model's prediction of it; --run runs run_mpirun.sh here, then fits the measurement CSVs it wrote
 * (`scaleplan calibrate`: parameters, fit and leave-one-out error, profile.csv) and predicts them back from
 * that profile (`scaleplan validate --detail`: parity.csv, drawn as parity.svg/png by `scaleplan plot`);
 * --fit-only does the last two on CSVs already in DIR/csv. Bad input: a message naming the field, value
 * and what was expected, exit 1, nothing written (each file appears complete or not at all).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "calibrate/cal.h"
#include "common/common.h"
#include "plot/plot.h"

/* campaign's options: what the scripts say (c), and what this command does. */
typedef struct cg_opts {
	cal_campaign c;
	const char *out, *hwdb;
	const char *system;    /* --system: the node type the runs are predicted on; NULL: the slowest's */
	int host_gpus;         /* --host-gpus: the default grid's host (0: the GPUs nvidia-smi lists here, else 2) */
	int repeat;            /* --repeat: runs of each emulated point */
	bool host_gpus_seen;   /* host_gpus is what nvidia-smi listed here */
	bool folder_read;      /* --data-dir was readable here (c.train_n counted) */
	bool run, fit_only, force;
} cg_opts;

/* The default grid (no --grid) is the host's (cal_cg_default_grid): 1, 2, 4, ... GPUs up to the host's,
 * NVLink and emulated nodes; jpeg-gpu only with --data-dir. A JPEG run should see at least this many
 * batches an epoch on each rank, so that its steady epochs measure decoding rather than the pipeline's
 * start (8,704 JPEGs gave 8 batches an epoch at 4 ranks of 256: runs of 1.1-1.4 s). */
enum { CG_NOPTS = 22, CG_MIN_BATCHES = 50, CG_REPEAT = 2 };
/* The steady window (epochs 2 on, what calibrate fits) should hold this many batches a rank, so that the part
 * of the pipeline's warm-up left after the first epoch weighs little in its mean: on 4x H200 at 50 batches an
 * epoch the data wait fell 0.45, 0.09, 0.03, 0.007 s over epochs 1-4 and 5 of 10 JPEG runs' last epoch lay
 * 3.1-4.8% above the mean of epochs 2-4 (bench/data/h200x4-2026-11-28); 300 batches (7 epochs there) put
 * that last epoch about 2% above the window's mean. */
enum { CG_STEADY_BATCHES = 300, CG_MIN_EPOCHS = 4, CG_MAX_EPOCHS = 40 };

/* campaign's options, bound to o (dry: --dry-run, spec: --grid), in --help's order. */
static void cg_table(cg_opts *o, bool *dry, const char **spec, cli_opt *t)
{
	const cli_opt own[] = {
		CLI_O_STR("grid", spec,
			  "  --grid SPEC       key=v1,v2,...;key=... with keys gpus_per_node (1..64), nodes (1..4096),\n"
			  "                    batch (1..65536), data (synthetic, jpeg-gpu, jpeg-cpu), transport (nvlink, p2p-off,\n"
			  "                    all-socket, emulated: the run's nodes emulated on one host, sockets between them;\n"
			  "                    a point of one node emulates one node per GPU: gpus_per_node=2;nodes=1 runs as 2\n"
			  "                    nodes of 1 GPU, id g1x2_..._emulated); every combination is run once (one GPU\n"
			  "                    without a transport). Keys left out: gpus_per_node=1;nodes=1;batch=256;\n"
			  "                    data=synthetic;transport=nvlink. Grids joined by '|': their runs together.\n"
			  "                    @FILE: one grid, one key a line, # comments. Without --grid: the host's\n"
			  "                    (--host-gpus N): gpus_per_node=1,2,4..N over nvlink and emulated (nodes of\n"
			  "                    1 GPU), from N=4 also 2 emulated nodes of N/2; batch 128,256 (N <= 2) or 256;\n"
			  "                    data synthetic, jpeg-gpu too with --data-dir\n"),
		CLI_O_INT("host-gpus", &o->host_gpus, 1, 64, "an integer 1..64",
			  "  --host-gpus N     the GPUs of the host the default grid is for (default: those nvidia-smi lists\n"
			  "                    here, else 2)\n"),
		CLI_O_INT("repeat", &o->repeat, 1, 20, "an integer 1..20",
			  "  --repeat R        runs of each emulated point (default 2: emulated nodes share one host's cores and\n"
			  "                    loopback and do not repeat; calibrate reads the spread; copies last, id _rK)\n"),
		CLI_O_STR("out", &o->out,
			  "  --out DIR         where the scripts, grid and CSVs go (created; a folder that already holds a\n"
			  "                    campaign is refused unless --force)\n"),
		CLI_O_FLAG("force", &o->force, "  --force           write over the campaign in DIR\n"),
		CLI_O_FLAG("dry-run", dry, "  --dry-run         write the scripts only (the default)\n"),
		CLI_O_DBL("run-timeout", &o->c.run_timeout_s, 1, 1e6, "seconds 1..1000000",
			  "  --run-timeout S   each run's time limit in seconds (default: twice its predicted time, at least\n"
			  "                    120 s: 60 s of start-up + its images at the throughput `scaleplan predict` gives\n"
			  "                    the run on --system); a run that stops or fails is recorded in DIR/runs.csv\n"
			  "                    (id,status,exit,seconds,limit_s) and skipped\n"),
		CLI_O_STR("system", &o->system,
			  "  --system ID       the node type the runs go on, for their predicted time (default: the database's\n"
			  "                    system of the least predicted throughput per GPU at the run's batch, so that\n"
			  "                    no run is stopped before its time)\n"),
		CLI_O_FLAG("run", &o->run,
			   "  --run             then run DIR/run_mpirun.sh here (a GPU is needed: exit 2 without one), fit its\n"
			   "                    CSVs (scaleplan calibrate: profile.csv,\n"
			   "                    the fit's leave-one-out error) and compare them with the profile's predictions\n"
			   "                    (scaleplan validate: parity.csv; scaleplan plot: parity.svg/png)\n"),
		CLI_O_FLAG("fit-only", &o->fit_only, "  --fit-only        only the fit and the comparison, on the CSVs already in DIR/csv\n"),
		CLI_O_STR("train", &o->c.train, "  --train PATH      scaleplan-train as the scripts call it (default: scaleplan-train on PATH;\n"
					      "                    the scripts also read $TRAIN)\n"),
		CLI_O_STR("data-dir", &o->c.folder,
			  "  --data-dir FOLDER the JPEG folder (train/ and val/) of jpeg-gpu and jpeg-cpu runs (required for them)\n"),
		CLI_O_INT("iters", &o->c.iters, 1, 1000000, "an integer 1..1000000",
			  "  --iters N         synthetic runs: timed steps (default 60; 10 warm-up steps first)\n"),
		CLI_O_INT("epochs", &o->c.epochs, 1, 1000000, "an integer 1..1000000",
			  "  --epochs E        JPEG runs: epochs (the first fills the pipeline, calibrate fits the mean of\n"
			  "                    the others; default: enough that they hold 300 batches a rank at the largest\n"
			  "                    JPEG run over the folder's images, at least 4)\n"),
		CLI_O_STR("machine", &o->c.machine, "  --machine NAME    the CSVs' machine column (default local)\n"),
		CLI_O_STR("hwdb", &o->hwdb, "  --hwdb DIR        passed to calibrate and validate\n"),
		CLI_O_HELP,
		CLI_O_END,
	};
	memcpy(t, own, sizeof own);
}

static void campaign_usage(FILE *f)
{
	cg_opts o;
	bool dry;
	const char *spec;
	cli_opt own[CG_NOPTS];
	cg_table(&o, &dry, &spec, own);
	fprintf(f,
		"usage: scaleplan campaign [--grid SPEC|@FILE] --out DIR [--dry-run | --run | --fit-only] [--force]\n"
		"                          [--host-gpus N] [--repeat R]\n"
		"                          [--train PATH] [--data-dir FOLDER] [--iters N] [--epochs E]\n"
		"                          [--run-timeout S] [--system ID] [--machine NAME] [--hwdb DIR]\n"
		"\n"
		"Writes DIR/run_mpirun.sh (mpirun; the plain binary for one GPU), DIR/campaign.sbatch (Slurm: one srun\n"
		"per run) and DIR/grid.csv: one scaleplan-train run per point of the grid, each writing its\n"
		"measurement CSV to DIR/csv/<id>.csv.\n");
	cli_opt_help(f, own, NULL);
}

/* The throughput per GPU model_predict gives gpn x nodes GPUs of sys at s's batch and data path; 0 where the
 * scenario cannot be built or does not fit. */
static double predict_img_s_gpu(cli_scen *s, const hw_system *sys, int gpn, int nodes)
{
	model_scenario sc;
	model_result res;
	if (plan_resolve(&s->db, &s->spec, &s->params, sys, gpn, nodes, &sc) == 0 &&
	    model_predict(&sc, &s->params, &res) == 0 && res.fits && res.throughput_img_s > 0)
		return res.throughput_img_s / res.gpus;
	return 0;
}

/* Run r's throughput per GPU. With sys (--system): model_predict on r's scenario there (its GPUs per node,
 * nodes, batch and data path; emulated nodes as real ones), or on one GPU of sys where sys cannot hold r.
 * Without: the least over the database's systems of one GPU's, so that no run on a machine the database
 * knows is stopped before its time (a run of the same batch and data path reuses it from runs[0..i)). */
static int predict_run(cli_scen *s, const hw_system *sys, cal_cg_run *runs, int i)
{
	cal_cg_run *r = &runs[i];
	s->spec.batch_per_gpu = r->batch;
	s->spec.data = !strcmp(r->data, "synthetic") ? MODEL_DATA_SYNTHETIC
		       : !strcmp(r->data, "jpeg-cpu") ? MODEL_DATA_CPU : MODEL_DATA_GPU;
	r->img_s_gpu = 0;
	if (sys && !(r->img_s_gpu = predict_img_s_gpu(s, sys, r->gpn, r->nodes)))
		r->img_s_gpu = predict_img_s_gpu(s, sys, 1, 1);
	for (int k = 0; !sys && k < i && !r->img_s_gpu; k++)
		if (runs[k].batch == r->batch && !strcmp(runs[k].data, r->data))
			r->img_s_gpu = runs[k].img_s_gpu;
	for (int k = 0; !sys && !runs[i].img_s_gpu && k < s->db.nsystems; k++) {
		double v = predict_img_s_gpu(s, &s->db.systems[k], 1, 1);
		if (v > 0 && (r->img_s_gpu == 0 || v < r->img_s_gpu))
			r->img_s_gpu = v;
	}
	if (r->img_s_gpu > 0)
		return EXIT_OK;
	fprintf(stderr, "scaleplan campaign: run %s: no prediction of its time on %s; give --run-timeout S\n", r->id,
		sys ? sys->id : "any system of the database (the batch fits none)");
	return EXIT_INPUT;
}

/* Every run's predicted throughput per GPU (predict_run). */
static int predict_runs(const cg_opts *o, cal_cg_run *runs, int n)
{
	cli_scen s;
	cli_scen_init(&s, "campaign");
	s.hwdb_dir = o->hwdb;
	s.spec.system_id = o->system;
	int rc = cli_scen_load(&s);
	for (int i = 0; i < n && !rc; i++)
		rc = predict_run(&s, s.system, runs, i);
	cli_scen_free(&s);
	err_clear();
	return rc;
}

/* runs.csv's column steady (cal_cg_mark_steady) from the CSVs in csv, where the scripts wrote a runs.csv; a
 * failure is said and the fit goes on (the column is a note on the runs, the fit has weighed them already). */
static void mark_steady(const cg_opts *o, const char *csv)
{
	char *runs = xasprintf("%s/runs.csv", o->out);
	cal_data d;
	cal_data_init(&d);
	if (access(runs, F_OK) == 0) {
		if (cal_data_load_path(&d, csv, CAL_MLPERF_TARGET_TOP1, false, NULL) < 0 || cal_cg_mark_steady(runs, &d) < 0)
			fprintf(stderr, "scaleplan campaign: %s: column steady not written: %s\n", runs, err_msg());
		else
			printf("== %s: column steady (a JPEG run whose last epoch lies more than %.0f%% above the mean of "
			       "epochs 2 on: rising, weighed less)\n", runs, 100 * CAL_STEADY_RISE);
	}
	cal_data_free(&d);
	free(runs);
}

/* calibrate's fit (cli_calibrate_fit), then validate --detail (cli_validate) and the parity chart
 * (cli_plot_files), in this process. */
static int fit(const cg_opts *o)
{
	char *csv = xasprintf("%s/csv", o->out), *prof = xasprintf("%s/profile.csv", o->out);
	char *par = xasprintf("%s/parity.csv", o->out), *pre = xasprintf("%s/parity", o->out);
	cli_validate_opts val = {.against = {csv}, .nagainst = 1, .no_builtin = true, .profile = prof, .detail = par,
				 .hwdb_dir = o->hwdb, .format = "table", .group = "all"};
	const char *paths[] = {csv};
	cli_cal_in in = {.paths = paths, .npaths = 1, .target_top1 = CAL_MLPERF_TARGET_TOP1};
	int rc;
	printf("== scaleplan calibrate --measurements %s --out %s\n", csv, prof);
	fflush(stdout);
	rc = cli_check_out("calibrate", "--out", prof, false);
	if (rc == EXIT_OK)
		rc = cli_calibrate_fit(o->hwdb, &in, prof);
	if (rc == EXIT_OK)
		mark_steady(o, csv);
	if (rc == EXIT_OK) {
		printf("== scaleplan validate --no-builtin --against %s --profile %s --detail %s\n", csv, prof, par);
		fflush(stdout);
		rc = cli_validate(&val);
	}
	if (rc == EXIT_OK) {
		plot_opts po = {.kind = PLOT_PARITY, .budget_usd = NAN, .svg = true, .png = true};
		if (cli_plot_files(&po, NULL, &par, 1, pre) != EXIT_OK)
			fprintf(stderr, "scaleplan campaign: no parity chart (scaleplan plot failed; gnuplot missing?); "
					"the comparison is in %s\n", par);
	}
	free(csv);
	free(prof);
	free(par);
	free(pre);
	return rc;
}

static int mkdir_ok(const char *p)
{
	if (mkdir(p, 0777) != 0 && errno != EEXIST) {
		int rc = err_path(p, errno, "a folder in an existing folder"); /* README's rule: missing parent 1 */
		fprintf(stderr, "scaleplan campaign: --out %s\n", err_msg());
		return exit_code_of(rc);
	}
	return EXIT_OK;
}

/* The options into o and spec; EXIT_OK with *done after --help, else an exit code (message printed). */
static int parse_opts(int argc, char **argv, cg_opts *o, const char **spec, bool *done)
{
	bool dry = false;
	cli_opt own[CG_NOPTS];
	*o = (cg_opts){.c = {.train = "scaleplan-train", .machine = "local", .iters = 60, .epochs = 0}, .repeat = CG_REPEAT};
	*spec = NULL;
	cg_table(o, &dry, spec, own);
	cli_parse p = {.cmd = "campaign", .tables = {own}, .usage = campaign_usage, .usage_on_error = true,
		       .got_style = true, .max_args = -1};
	int rc = cli_opt_parse(&p, argc, argv);
	*done = p.done;
	if (rc || p.done)
		return rc;
	if (p.nargs > 0 || !o->out) {
		fprintf(stderr, "scaleplan campaign: %s\n", p.nargs > 0 ? "unexpected argument (see --help)"
							      : "--out DIR is required");
		return EXIT_INPUT;
	}
	if (cli_check_not_both("campaign", "--run", o->run, "--dry-run", dry) ||
	    cli_check_not_both("campaign", "--fit-only", o->fit_only, o->run ? "--run" : "--dry-run", o->run || dry) ||
	    cli_check_not_both("campaign", "--fit-only", o->fit_only, "--grid", *spec))
		return EXIT_INPUT;
	int orc = cli_check_out("campaign", "--out", o->out, true); /* README: no such folder or a file is 1 */
	if (orc)
		return orc;
	/* the scripts quote these in single quotes */
	const char *names[4] = {"machine", "train", "data-dir", "out"}, *vals[4] = {o->c.machine, o->c.train, o->c.folder, o->out};
	for (int k = 0; k < 4; k++)
		if (vals[k] && strpbrk(vals[k], "'\"\n")) {
			fprintf(stderr, "scaleplan campaign: --%s '%s': expected a value without quotes or newlines\n", names[k],
				vals[k]);
			return EXIT_INPUT;
		}
	return EXIT_OK;
}

/* --run needs a GPU here: nvidia-smi lists one. */
static bool gpu_here(void)
{
	return system("nvidia-smi -L >/dev/null 2>&1") == 0;
}

/* The GPUs nvidia-smi lists here; 0 where it lists none or is missing. */
static int gpus_here(void)
{
	FILE *p = popen("nvidia-smi -L 2>/dev/null", "r");
	if (!p)
		return 0;
	char line[512];
	int n = 0;
	while (fgets(line, sizeof(line), p))
		n += strncmp(line, "GPU ", 4) == 0;
	return pclose(p) == 0 ? n : 0;
}

/* What the campaign chose, printed: the grid and whose host it is for, the repeats, the JPEG runs' epochs and
 * whether the folder gives each rank CG_MIN_BATCHES batches an epoch at the largest JPEG run. */
/* The images a step takes at the largest JPEG run (ranks x batch), 0 without JPEG runs. */
static int jpeg_ranks_batch(const cal_cg_run *runs, int n)
{
	int ranks_b = 0;
	for (int i = 0; i < n; i++) {
		int rb = runs[i].gpn * runs[i].nodes * runs[i].batch;
		if (strcmp(runs[i].data, "synthetic") && rb > ranks_b)
			ranks_b = rb;
	}
	return ranks_b;
}

/* The JPEG runs' epochs where --epochs was not given: a first one, then enough for CG_STEADY_BATCHES batches a
 * rank at the largest JPEG run over the folder's images (CG_MIN_EPOCHS where the folder was not read). */
static int size_epochs(const cg_opts *o, const cal_cg_run *runs, int n)
{
	long ranks_b = jpeg_ranks_batch(runs, n), bpe = ranks_b > 0 ? o->c.train_n / ranks_b : 0;
	if (!o->folder_read || bpe < 1)
		return CG_MIN_EPOCHS;
	long e = 1 + (CG_STEADY_BATCHES + bpe - 1) / bpe;
	return (int)(e < CG_MIN_EPOCHS ? CG_MIN_EPOCHS : e > CG_MAX_EPOCHS ? CG_MAX_EPOCHS : e);
}

static void say_choices(const cg_opts *o, const char *spec, bool dflt, const cal_cg_run *runs, int n)
{
	int ranks_b = jpeg_ranks_batch(runs, n), rep = 0;
	for (int i = 0; i < n; i++)
		rep += runs[i].copy > 1;
	if (dflt)
		printf("scaleplan campaign: the default grid of a host of %d GPUs%s: %s\n", o->host_gpus,
		       o->host_gpus_seen ? " (nvidia-smi here)" : " (--host-gpus, else 2)", spec);
	if (rep)
		printf("scaleplan campaign: each emulated point run %d times (%d runs more; --repeat)\n", o->repeat, rep);
	if (!ranks_b || !o->c.folder)
		return;
	long need = (long)CG_MIN_BATCHES * ranks_b;
	if (o->c.epochs >= 2)
		printf("scaleplan campaign: JPEG runs: %d epochs (calibrate fits the mean of epochs 2-%d); ", o->c.epochs,
		       o->c.epochs);
	else
		printf("scaleplan campaign: JPEG runs: 1 epoch (no epoch after the first: calibrate fits the whole run, "
		       "start-up included); ");
	if (!o->folder_read)
		printf("folder not readable here: it needs %ld train JPEGs for %d batches an epoch a rank\n", need,
		       CG_MIN_BATCHES);
	else if (o->c.train_n < need)
		printf("the folder's %ld train JPEGs give %ld batches an epoch a rank at the largest run; %d need %ld "
		       "(scaleplan-train --make-jpeg-folder DIR --images %ld)\n", o->c.train_n, o->c.train_n / ranks_b,
		       CG_MIN_BATCHES, need, need);
	else
		printf("the folder's %ld train JPEGs give %ld batches an epoch a rank at the largest run\n", o->c.train_n,
		       o->c.train_n / ranks_b);
}

/* The campaign of grid spec: planned, checked, written and, with --run, run and fitted. */
/* The planned runs against --out and --data-dir: EXIT_OK, or EXIT_INPUT with the message printed. */
static int check_plan(const cg_opts *o, const cal_cg_run *runs, int n)
{
	if (cal_cg_exists(o->out) && !o->force) {
		fprintf(stderr, "scaleplan campaign: --out %s holds a campaign already (its grid.csv or scripts); "
				"expected a new folder, or --force to write over it\n", o->out);
		return EXIT_INPUT;
	}
	if (n > CAL_CG_MAX_RUNS) {
		fprintf(stderr, "scaleplan campaign: --grid: %d runs; expected at most %d\n", n, CAL_CG_MAX_RUNS);
		return EXIT_INPUT;
	}
	for (int i = 0; i < n; i++)
		if (strcmp(runs[i].data, "synthetic") && !o->c.folder) {
			fprintf(stderr, "scaleplan campaign: --grid: field 'data', value '%s': expected --data-dir FOLDER "
					"(the JPEG folder it reads)\n", runs[i].data);
			return EXIT_INPUT;
		}
	return EXIT_OK;
}

static int campaign_with(cg_opts *o, const char *spec, bool dflt)
{
	int rc = EXIT_OK;
	cal_cg_run *runs = xcalloc(CAL_CG_MAX_RUNS, sizeof(*runs));
	int n = cal_cg_plan(spec, o->repeat, runs);
	if (n < 0) {
		fprintf(stderr, "scaleplan campaign: %s\n", err_msg());
		free(runs);
		return EXIT_INPUT;
	}
	if ((rc = check_plan(o, runs, n)) != EXIT_OK) {
		free(runs);
		return rc;
	}
	/* the JPEG runs' time limits count the folder's images (ImageNet's 1,281,167 + 50,000 where unreadable
	 * here: the scripts may run on another machine) */
	if (o->c.run_timeout_s <= 0 && (rc = predict_runs(o, runs, n)) != EXIT_OK) {
		free(runs);
		return rc;
	}
	if (o->c.folder) {
		o->c.train_n = cal_cg_count_images(o->c.folder, "train");
		o->c.val_n = cal_cg_count_images(o->c.folder, "val");
		o->folder_read = o->c.train_n >= 0;
		if (o->c.train_n < 0)
			o->c.train_n = MODEL_IMAGENET_TRAIN_IMAGES, o->c.val_n = 50000;
		if (o->c.val_n < 0)
			o->c.val_n = 0;
	}
	if (o->c.epochs == 0)
		o->c.epochs = size_epochs(o, runs, n);
	if ((rc = mkdir_ok(o->out)) == EXIT_OK) {
		o->c.out_abs = realpath(o->out, NULL);
		if (!o->c.out_abs) {
			fprintf(stderr, "scaleplan campaign: %s: %s\n", o->out, strerror(errno));
			rc = EXIT_ENV;
		}
	}
	int wrc = rc == EXIT_OK ? cal_cg_write(o->out, &o->c, spec, runs, n) : 0;
	if (wrc) {
		fprintf(stderr, "scaleplan campaign: %s\n", err_msg());
		rc = exit_code_of(wrc);
	}
	if (rc == EXIT_OK)
		say_choices(o, spec, dflt, runs, n);
	free(runs);
	free(o->c.out_abs);
	if (rc != EXIT_OK)
		return rc;
	printf("scaleplan campaign: %d runs (grid %s): %s/run_mpirun.sh, %s/campaign.sbatch, %s/grid.csv\n", n, spec, o->out,
	       o->out, o->out);
	if (!o->run)
		return EXIT_OK;
	if (!gpu_here()) {
		fprintf(stderr, "scaleplan campaign: --run: no NVIDIA GPU here (nvidia-smi -L failed); the scripts are "
				"written: run %s/run_mpirun.sh (or sbatch campaign.sbatch) where the GPUs are, then --fit-only\n",
			o->out);
		return EXIT_ENV;
	}
	char *cmd = xasprintf("TRAIN='%s' sh '%s/run_mpirun.sh'", o->c.train, o->out);
	fflush(stdout);
	int st = system(cmd);
	free(cmd);
	if (st != 0)
		fprintf(stderr, "scaleplan campaign: some runs failed (see above); fitting the CSVs that were written\n");
	return fit(o);
}

int cmd_campaign(int argc, char **argv)
{
	cg_opts o;
	const char *spec;
	bool done;
	int rc = parse_opts(argc, argv, &o, &spec, &done);
	if (rc != EXIT_OK || done)
		return rc;
	if (o.fit_only)
		return fit(&o);
	bool dflt = !spec;
	strbuf dgrid;
	strbuf_init(&dgrid);
	if (dflt) {
		if (!o.host_gpus)
			o.host_gpus_seen = (o.host_gpus = gpus_here()) > 0;
		if (!o.host_gpus)
			o.host_gpus = 2;
		spec = cal_cg_default_grid(o.host_gpus, o.c.folder != NULL, &dgrid);
	}
	rc = campaign_with(&o, spec, dflt);
	strbuf_free(&dgrid);
	return rc;
}
