/* scaleplan campaign: a calibration campaign in one command (issue 27). From a grid of GPUs per node,
 * nodes, batch per GPU, data path and transport it writes the launch scripts of every scaleplan-train run
 * (run_mpirun.sh: mpirun, or the plain binary for one GPU; campaign.sbatch: Slurm, one srun per run) and
 * the expanded grid (grid.csv); --run runs run_mpirun.sh here, then fits the measurement CSVs it wrote
 * (`scaleplan calibrate`: parameters, fit and leave-one-out error, profile.csv) and predicts them back from
 * that profile (`scaleplan validate --detail`: parity.csv, drawn as parity.svg/png by `scaleplan plot`);
 * --fit-only does the last two on CSVs already in DIR/csv. Bad input: a message naming the field, value
 * and what was expected, exit 1, nothing written (each file appears complete or not at all).
 * Every run has a time limit (--run-timeout, else twice its predicted time, run_limit_s): a run that stops
 * or fails is recorded in DIR/runs.csv and the campaign goes on (issue 32: one stuck run used to stop the
 * rest). The scripts find their folder themselves, so they run from anywhere.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate/cal.h"
#include "common/common.h"
#include "plot/plot.h"

enum { CG_MAX = 16, CG_MAX_RUNS = 4096 };

static const char *const cg_data[] = {"synthetic", "jpeg-gpu", "jpeg-cpu", NULL};
static const char *const cg_transport[] = {"nvlink", "p2p-off", "all-socket", "emulated", NULL};

/* One axis of the grid: integers or names. */
typedef struct cg_axis {
	int n;
	long v[CG_MAX];
	const char *s[CG_MAX];
} cg_axis;

typedef struct cg_grid {
	cg_axis gpn, nodes, batch, data, transport;
} cg_grid;

typedef struct cg_run {
	int gpn, nodes, batch;
	const char *data, *transport; /* transport "none" for one GPU */
	char id[96];
	double img_s_gpu;             /* its throughput per GPU as the model predicts it (predict_runs) */
} cg_run;

typedef struct cg_opts {
	const char *out, *train, *folder, *machine, *hwdb, *where; /* where: "--grid" or "FILE:LINE" */
	const char *system;    /* --system: the node type the runs are predicted on; NULL: the slowest GPU's */
	int iters, epochs;
	bool run, fit_only, force;
	double run_timeout_s;  /* --run-timeout; 0: from each run's predicted time */
	long train_n, val_n;   /* JPEGs in the folder's train/ and val/ (counted when written) */
	char *out_abs;         /* --out as an absolute path (the Slurm script's copy runs elsewhere) */
} cg_opts;

/* The default grid (no --grid): what the calibration fit needs from one host of 2 GPUs - 1 and 2 GPUs, two
 * batches, both data paths, NVLink and 2 emulated nodes (bench/NOTES.md, issue 32). jpeg-gpu only with
 * --data-dir. */
#define CG_DEFAULT_GRID "gpus_per_node=1,2;nodes=1;batch=128,256;data=synthetic,jpeg-gpu;transport=nvlink,emulated"
#define CG_DEFAULT_GRID_NO_DATA "gpus_per_node=1,2;nodes=1;batch=128,256;data=synthetic;transport=nvlink,emulated"

enum { CG_NOPTS = 20 };

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
			  "                    data=synthetic;transport=nvlink. @FILE: the same, one key a line, # comments.\n"
			  "                    Without --grid: " CG_DEFAULT_GRID "\n"
			  "                    (data=synthetic alone without --data-dir): 12 runs on a host of 2 GPUs\n"),
		CLI_O_STR("out", &o->out,
			  "  --out DIR         where the scripts, grid and CSVs go (created; a folder that already holds a\n"
			  "                    campaign is refused unless --force)\n"),
		CLI_O_FLAG("force", &o->force, "  --force           write over the campaign in DIR\n"),
		CLI_O_FLAG("dry-run", dry, "  --dry-run         write the scripts only (the default)\n"),
		CLI_O_DBL("run-timeout", &o->run_timeout_s, 1, 1e6, "seconds 1..1000000",
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
		CLI_O_STR("train", &o->train, "  --train PATH      scaleplan-train as the scripts call it (default: scaleplan-train on PATH;\n"
					      "                    the scripts also read $TRAIN)\n"),
		CLI_O_STR("data-dir", &o->folder,
			  "  --data-dir FOLDER the JPEG folder (train/ and val/) of jpeg-gpu and jpeg-cpu runs (required for them)\n"),
		CLI_O_INT("iters", &o->iters, 1, 1000000, "an integer 1..1000000",
			  "  --iters N         synthetic runs: timed steps (default 60; 10 warm-up steps first)\n"),
		CLI_O_INT("epochs", &o->epochs, 1, 1000000, "an integer 1..1000000", "  --epochs E        JPEG runs: epochs (default 2)\n"),
		CLI_O_STR("machine", &o->machine, "  --machine NAME    the CSVs' machine column (default local)\n"),
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
		"                          [--train PATH] [--data-dir FOLDER] [--iters N] [--epochs E]\n"
		"                          [--run-timeout S] [--system ID] [--machine NAME] [--hwdb DIR]\n"
		"\n"
		"Writes DIR/run_mpirun.sh (mpirun; the plain binary for one GPU), DIR/campaign.sbatch (Slurm: one srun\n"
		"per run) and DIR/grid.csv: one scaleplan-train run per point of the grid, each writing its\n"
		"measurement CSV to DIR/csv/<id>.csv.\n");
	cli_opt_help(f, own, NULL);
}

static int bad(const cg_opts *o, const char *field, const char *value, const char *expected)
{
	fprintf(stderr, "scaleplan campaign: %s: field '%s', value '%s': expected %s\n", o->where, field, value, expected);
	return EXIT_INPUT;
}

static int name_index(const char *const *names, const char *v)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], v))
			return i;
	return -1;
}

/* Parses "v1,v2,..." into axis a: integers in [lo, hi], or names of `names`. */
static int parse_axis(const cg_opts *o, const char *key, char *vals, cg_axis *a, long lo, long hi,
		      const char *const *names)
{
	char *save = NULL, exp[160];
	a->n = 0;
	if (names)
		snprintf(exp, sizeof(exp), "one of %s, %s%s%s", names[0], names[1], names[2] ? ", ..." : "",
			 names[2] ? " (see --help)" : "");
	else
		snprintf(exp, sizeof(exp), "an integer %ld..%ld", lo, hi);
	for (char *v = strtok_r(vals, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
		while (*v == ' ' || *v == '\t')
			v++;
		for (size_t k = strlen(v); k > 0 && (v[k - 1] == ' ' || v[k - 1] == '\t'); k--)
			v[k - 1] = '\0';
		if (a->n == CG_MAX)
			return bad(o, key, v, "at most 16 values");
		if (names) {
			int k = name_index(names, v);
			if (k < 0)
				return bad(o, key, v, exp);
			a->s[a->n++] = names[k];
		} else {
			char *end;
			long x = strtol(v, &end, 10);
			if (end == v || *end || x < lo || x > hi)
				return bad(o, key, v, exp);
			a->v[a->n++] = x;
		}
	}
	if (a->n == 0)
		return bad(o, key, "", names ? exp : "at least one value");
	return EXIT_OK;
}

/* One "key=v1,v2" item. */
static int parse_item(cg_opts *o, char *item, cg_grid *g)
{
	while (*item == ' ' || *item == '\t')
		item++;
	if (!*item)
		return EXIT_OK;
	char *eq = strchr(item, '=');
	if (!eq)
		return bad(o, item, "", "key=value[,value...]");
	*eq = '\0';
	char *key = item, *vals = eq + 1;
	if (!strcmp(key, "gpus_per_node") || !strcmp(key, "gpn"))
		return parse_axis(o, key, vals, &g->gpn, 1, 64, NULL);
	if (!strcmp(key, "nodes"))
		return parse_axis(o, key, vals, &g->nodes, 1, 4096, NULL);
	if (!strcmp(key, "batch") || !strcmp(key, "batch_per_gpu"))
		return parse_axis(o, key, vals, &g->batch, 1, 65536, NULL);
	if (!strcmp(key, "data"))
		return parse_axis(o, key, vals, &g->data, 0, 0, cg_data);
	if (!strcmp(key, "transport"))
		return parse_axis(o, key, vals, &g->transport, 0, 0, cg_transport);
	return bad(o, key, vals, "a key gpus_per_node, nodes, batch, data or transport");
}

static void grid_defaults(cg_grid *g)
{
	memset(g, 0, sizeof(*g));
	g->gpn = (cg_axis){.n = 1, .v = {1}};
	g->nodes = (cg_axis){.n = 1, .v = {1}};
	g->batch = (cg_axis){.n = 1, .v = {256}};
	g->data = (cg_axis){.n = 1, .s = {"synthetic"}};
	g->transport = (cg_axis){.n = 1, .s = {"nvlink"}};
}

/* --grid SPEC (items split by ';') or @FILE (one item a line). */
static int parse_grid(cg_opts *o, const char *spec, cg_grid *g)
{
	int rc = EXIT_OK;
	grid_defaults(g);
	if (spec[0] == '@') {
		FILE *f = fopen(spec + 1, "r");
		char line[1024], where[1100];
		if (!f) {
			fprintf(stderr, "scaleplan campaign: --grid %s: cannot read: %s\n", spec + 1, strerror(errno));
			return EXIT_INPUT;
		}
		for (int ln = 1; rc == EXIT_OK && fgets(line, sizeof(line), f); ln++) {
			line[strcspn(line, "\r\n#")] = '\0';
			snprintf(where, sizeof(where), "%s:%d", spec + 1, ln);
			o->where = where;
			rc = parse_item(o, line, g);
		}
		fclose(f);
		o->where = "--grid";
		return rc;
	}
	char *s = xstrdup(spec), *save = NULL;
	o->where = "--grid";
	for (char *it = strtok_r(s, ";", &save); rc == EXIT_OK && it; it = strtok_r(NULL, ";", &save))
		rc = parse_item(o, it, g);
	free(s);
	return rc;
}

/* Every combination; one GPU in all runs once per batch and data path (no transport). */
static int expand(const cg_grid *g, cg_run *runs)
{
	int n = 0;
	for (int a = 0; a < g->gpn.n; a++)
		for (int b = 0; b < g->nodes.n; b++)
			for (int c = 0; c < g->batch.n; c++)
				for (int d = 0; d < g->data.n; d++)
					for (int e = 0; e < g->transport.n; e++) {
						cg_run r = {.gpn = (int)g->gpn.v[a], .nodes = (int)g->nodes.v[b],
							    .batch = (int)g->batch.v[c], .data = g->data.s[d],
							    .transport = g->transport.s[e]};
						if (r.gpn * r.nodes == 1) {
							if (e > 0)
								continue;
							r.transport = "none";
						}
						/* emulation means nodes: one node emulates one node per GPU */
						if (!strcmp(r.transport, "emulated") && r.nodes == 1)
							r.nodes = r.gpn, r.gpn = 1;
						snprintf(r.id, sizeof(r.id), "g%dx%d_b%d_%s_%s", r.gpn, r.nodes, r.batch, r.data,
							 r.transport);
						bool dup = false;
						for (int k = 0; k < n && k < CG_MAX_RUNS && !dup; k++)
							dup = !strcmp(runs[k].id, r.id);
						if (dup)
							continue;
						if (n < CG_MAX_RUNS)
							runs[n] = r;
						n++;
					}
	return n;
}

/* Start-up of a run before its first step: cuDNN's algorithm search, NCCL's set-up, the first batches; 12-20 s
 * on an H100 (bench/NOTES.md, issue 32), 60 s leaves room for slower hosts and file systems. */
static const double CG_START_S = 60.0;
/* Run r's time limit: --run-timeout, else twice its predicted time (start-up, then its images at the rate
 * predict_runs gave it), at least 120 s. Synthetic: (iters + 10 warm-up) steps; JPEG: epochs over the rank's
 * share of train/ and val/. */
static int run_limit_s(const cg_opts *o, const cg_run *r)
{
	if (o->run_timeout_s > 0)
		return (int)(o->run_timeout_s + 0.5);
	int gpus = r->gpn * r->nodes;
	double img = !strcmp(r->data, "synthetic") ? (double)(o->iters + 10) * r->batch
						   : (double)o->epochs * (double)(o->train_n + o->val_n) / gpus;
	double t = 2.0 * (CG_START_S + img / r->img_s_gpu);
	return t < 120.0 ? 120 : (int)(t + 0.5);
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
static int predict_run(cli_scen *s, const hw_system *sys, cg_run *runs, int i)
{
	cg_run *r = &runs[i];
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
static int predict_runs(const cg_opts *o, cg_run *runs, int n)
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

/* The scaleplan-train options of one run (after the binary). */
static void train_args(FILE *f, const cg_opts *o, const cg_run *r)
{
	fprintf(f, " --batch-per-gpu %d --quiet --machine '%s' --run-id %s --csv \"$CSV/%s.csv\"", r->batch, o->machine,
		r->id, r->id);
	if (!strcmp(r->data, "synthetic"))
		fprintf(f, " --iters %d --warmup-iters 10", o->iters);
	else
		fprintf(f, " --data \"$DATA\" --data-path %s --epochs %d", r->data, o->epochs);
	if (strcmp(r->transport, "none")) {
		fprintf(f, " --nccl-mode %s", r->transport);
		if (!strcmp(r->transport, "emulated"))
			fprintf(f, " --emulate-nodes %d", r->nodes);
	}
	fprintf(f, "\n");
}

/* The scripts' common head. dir_expr: the shell expression of the campaign folder (the mpirun script finds
 * its own; Slurm runs a copy of the batch script from its spool, so that one carries the absolute path). */
static void script_head(FILE *f, const cg_opts *o, const char *spec, int n, const char *how, const char *dir_expr)
{
	fprintf(f, "# scaleplan campaign: %d scaleplan-train runs (%s), written by `scaleplan campaign`.\n", n, how);
	fprintf(f, "# grid: %s\n", spec);
	fprintf(f, "# TRAIN: the scaleplan-train binary; CAMPAIGN_DIR: this campaign's folder; CSV: where the measurement\n"
		   "# CSVs go (default CAMPAIGN_DIR/csv); STATUS: each run's outcome (default CAMPAIGN_DIR/runs.csv);\n"
		   "# DATA_DIR: the JPEG folder (default the one given when written). Each run has a time limit (its\n"
		   "# second word, seconds: --run-timeout); a run that stops or fails is recorded and the next one starts.\n");
	fprintf(f, "set -u\nTRAIN=${TRAIN:-'%s'}\nCAMPAIGN_DIR=${CAMPAIGN_DIR:-%s}\nCSV=${CSV:-$CAMPAIGN_DIR/csv}\n"
		   "STATUS=${STATUS:-$CAMPAIGN_DIR/runs.csv}\nDATA=${DATA_DIR:-'%s'}\nmkdir -p \"$CSV\"\nfail=0\n"
		   "echo \"id,status,exit,seconds,limit_s\" > \"$STATUS\"\n",
		o->train, dir_expr, o->folder ? o->folder : "");
	fprintf(f, "run() {\n"
		   "\tid=$1; limit=$2; shift 2\n"
		   "\techo \"== $id (limit $limit s)\"\n"
		   "\tt0=$(date +%%s)\n"
		   "\ttimeout -k 10 \"$limit\" \"$@\"\n"
		   "\trc=$?\n"
		   "\tt=$(($(date +%%s) - t0))\n"
		   "\tcase $rc in\n"
		   "\t0) st=ok ;;\n"
		   "\t124 | 137) st=timeout; echo \"campaign: $id stopped at its limit of $limit s; skipped\" ;;\n"
		   "\t*) st=failed; echo \"campaign: $id failed (exit $rc); skipped\" ;;\n"
		   "\tesac\n"
		   "\t[ $rc -eq 0 ] || fail=$((fail + 1))\n"
		   "\techo \"$id,$st,$rc,$t,$limit\" >> \"$STATUS\"\n"
		   "}\n");
}

/* mpirun: ranks of a run on one host with one node (or emulated nodes), else across HOSTFILE's hosts. */
static void write_mpirun(FILE *f, const cg_opts *o, const char *spec, const cg_run *runs, int n)
{
	fprintf(f, "#!/bin/sh\n");
	script_head(f, o, spec, n, "mpirun; one GPU: the binary alone", "$(cd \"$(dirname \"$0\")\" && pwd)");
	fprintf(f, "# HOSTFILE: mpirun's host file for the runs on more than one node; MPIRUN_ARGS: more mpirun options;\n"
		   "# LAUNCH: instead of mpirun for the runs on one host, a launcher taking the rank count first\n"
		   "# (bench/launch_local.sh)\n");
	for (int i = 0; i < n; i++) {
		const cg_run *r = &runs[i];
		int np = r->gpn * r->nodes;
		fprintf(f, "run %s %d", r->id, run_limit_s(o, r));
		if (np > 1) {
			bool one_host = r->nodes == 1 || !strcmp(r->transport, "emulated");
			if (one_host)
				fprintf(f, " ${LAUNCH:-mpirun -np %d --map-by ppr:%d:node ${MPIRUN_ARGS:-}} ${LAUNCH:+%d}", np, np,
					np);
			else
				fprintf(f, " mpirun -np %d --map-by ppr:%d:node ${MPIRUN_ARGS:-} ${HOSTFILE:+--hostfile \"$HOSTFILE\"}",
					np, r->gpn);
		}
		fprintf(f, " \"$TRAIN\"");
		train_args(f, o, r);
	}
	fprintf(f, "echo \"campaign: %d runs, $fail failed; CSVs in $CSV\"\n[ $fail -eq 0 ]\n", n);
}

/* Slurm: one allocation as large as the largest run, one srun per run. */
static void write_sbatch(FILE *f, const cg_opts *o, const char *spec, const cg_run *runs, int n)
{
	int max_nodes = 1, max_gpn = 1;
	for (int i = 0; i < n; i++) {
		int nodes = !strcmp(runs[i].transport, "emulated") ? 1 : runs[i].nodes;
		int gpn = !strcmp(runs[i].transport, "emulated") ? runs[i].gpn * runs[i].nodes : runs[i].gpn;
		max_nodes = nodes > max_nodes ? nodes : max_nodes;
		max_gpn = gpn > max_gpn ? gpn : max_gpn;
	}
	long limit_s = 600;
	for (int i = 0; i < n; i++)
		limit_s += run_limit_s(o, &runs[i]) + 10;
	fprintf(f, "#!/bin/bash\n#SBATCH --job-name=scaleplan-campaign\n#SBATCH --nodes=%d\n#SBATCH --ntasks-per-node=%d\n"
		   "#SBATCH --gpus-per-node=%d\n#SBATCH --exclusive\n#SBATCH --time=%ld\n",
		max_nodes, max_gpn, max_gpn, (limit_s + 59) / 60);
	char *dir = xasprintf("'%s'", o->out_abs);
	script_head(f, o, spec, n, "Slurm: sbatch campaign.sbatch; --time: the runs' limits added up", dir);
	free(dir);
	fprintf(f, "# SRUN_MPI: srun's --mpi plugin for scaleplan-train's MPI (default pmix); SRUN_GPUS: srun's GPU request\n"
		   "# (default --gpus-per-node=N; empty where the cluster has no GPU resource configured)\n");
	for (int i = 0; i < n; i++) {
		const cg_run *r = &runs[i];
		bool emu = !strcmp(r->transport, "emulated");
		int nodes = emu ? 1 : r->nodes, per = emu ? r->gpn * r->nodes : r->gpn;
		fprintf(f, "run %s %d srun --mpi=${SRUN_MPI:-pmix} --nodes=%d --ntasks=%d --ntasks-per-node=%d "
			   "${SRUN_GPUS---gpus-per-node=%d} \"$TRAIN\"", r->id, run_limit_s(o, r), nodes, nodes * per, per, per);
		train_args(f, o, r);
	}
	fprintf(f, "echo \"campaign: %d runs, $fail failed; CSVs in $CSV\"\n[ $fail -eq 0 ]\n", n);
}

static void write_grid_csv(FILE *f, const cg_run *runs, int n)
{
	fprintf(f, "id,gpus_per_node,nodes,gpus,batch_per_gpu,data,transport\n");
	for (int i = 0; i < n; i++)
		fprintf(f, "%s,%d,%d,%d,%d,%s,%s\n", runs[i].id, runs[i].gpn, runs[i].nodes, runs[i].gpn * runs[i].nodes,
			runs[i].batch, runs[i].data, runs[i].transport);
}

/* Writes one file through a temporary name (complete or absent); mode 0755 for scripts. */
static int write_file(const char *dir, const char *name, bool exec,
		      void (*fn)(FILE *, const cg_opts *, const char *, const cg_run *, int), const cg_opts *o,
		      const char *spec, const cg_run *runs, int n)
{
	char *path = xasprintf("%s/%s", dir, name), *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int rc = EXIT_OK;
	if (!f) {
		fprintf(stderr, "scaleplan campaign: %s: cannot write: %s\n", tmp, strerror(errno));
		rc = EXIT_ENV;
	} else {
		fn(f, o, spec, runs, n);
		if (fclose(f) != 0 || chmod(tmp, exec ? 0755 : 0644) != 0 || rename(tmp, path) != 0) {
			fprintf(stderr, "scaleplan campaign: %s: cannot write: %s\n", path, strerror(errno));
			remove(tmp);
			rc = EXIT_ENV;
		}
	}
	free(path);
	free(tmp);
	return rc;
}

static void grid_csv_fn(FILE *f, const cg_opts *o, const char *spec, const cg_run *runs, int n)
{
	(void)o, (void)spec;
	write_grid_csv(f, runs, n);
}

/* calibrate's fit (cli_calibrate_fit), then validate --detail (the command: its scoring prints the table) and
 * the parity chart (cli_plot_files), in this process. */
static int fit(const cg_opts *o)
{
	char *csv = xasprintf("%s/csv", o->out), *prof = xasprintf("%s/profile.csv", o->out);
	char *par = xasprintf("%s/parity.csv", o->out), *pre = xasprintf("%s/parity", o->out);
	char *val[] = {"validate", "--no-builtin", "--against", csv, "--profile", prof, "--detail", par,
		       "--hwdb", (char *)o->hwdb, NULL};
	const char *paths[] = {csv};
	cli_cal_in in = {.paths = paths, .npaths = 1, .target_top1 = CAL_MLPERF_TARGET_TOP1};
	int rc;
	printf("== scaleplan calibrate --measurements %s --out %s\n", csv, prof);
	fflush(stdout);
	rc = cli_check_out("calibrate", "--out", prof, false);
	if (rc == EXIT_OK)
		rc = cli_calibrate_fit(o->hwdb, &in, prof);
	if (rc == EXIT_OK) {
		printf("== scaleplan validate --no-builtin --against %s --profile %s --detail %s\n", csv, prof, par);
		fflush(stdout);
		rc = cmd_validate(o->hwdb ? 10 : 8, val);
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
	*o = (cg_opts){.train = "scaleplan-train", .machine = "local", .iters = 60, .epochs = 2, .where = "--grid"};
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
	if (!*spec)
		*spec = o->folder ? CG_DEFAULT_GRID : CG_DEFAULT_GRID_NO_DATA;
	/* the scripts quote these in single quotes */
	const char *names[4] = {"machine", "train", "data-dir", "out"}, *vals[4] = {o->machine, o->train, o->folder, o->out};
	for (int k = 0; k < 4; k++)
		if (vals[k] && strpbrk(vals[k], "'\"\n")) {
			fprintf(stderr, "scaleplan campaign: --%s '%s': expected a value without quotes or newlines\n", names[k],
				vals[k]);
			return EXIT_INPUT;
		}
	return EXIT_OK;
}

/* Regular files in each class folder of dir/sub (one level, as the loader scans); -1 where dir/sub cannot be
 * read. */
static long count_images(const char *dir, const char *sub)
{
	char *top = xasprintf("%s/%s", dir, sub);
	DIR *d = opendir(top);
	long n = 0;
	struct dirent *e;
	if (!d) {
		free(top);
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *cls = xasprintf("%s/%s", top, e->d_name);
		DIR *c = opendir(cls);
		struct dirent *f;
		while (c && (f = readdir(c)))
			n += f->d_name[0] != '.';
		if (c)
			closedir(c);
		free(cls);
	}
	closedir(d);
	free(top);
	return n;
}

/* A folder that holds a campaign already (its scripts or grid). */
static bool has_campaign(const char *dir)
{
	static const char *const names[] = {"grid.csv", "run_mpirun.sh", "campaign.sbatch"};
	for (int k = 0; k < 3; k++) {
		char *p = xasprintf("%s/%s", dir, names[k]);
		bool there = access(p, F_OK) == 0;
		free(p);
		if (there)
			return true;
	}
	return false;
}

/* --run needs a GPU here: nvidia-smi lists one. */
static bool gpu_here(void)
{
	return system("nvidia-smi -L >/dev/null 2>&1") == 0;
}

int cmd_campaign(int argc, char **argv)
{
	cg_opts o;
	cg_grid g;
	const char *spec;
	bool done;
	int rc = parse_opts(argc, argv, &o, &spec, &done);
	if (rc != EXIT_OK || done)
		return rc;
	if (o.fit_only)
		return fit(&o);
	if ((rc = parse_grid(&o, spec, &g)) != EXIT_OK)
		return rc;
	if (has_campaign(o.out) && !o.force) {
		fprintf(stderr, "scaleplan campaign: --out %s holds a campaign already (its grid.csv or scripts); "
				"expected a new folder, or --force to write over it\n", o.out);
		return EXIT_INPUT;
	}
	cg_run *runs = xcalloc(CG_MAX_RUNS, sizeof(*runs));
	int n = expand(&g, runs);
	if (n > CG_MAX_RUNS) {
		fprintf(stderr, "scaleplan campaign: --grid: %d runs; expected at most %d\n", n, CG_MAX_RUNS);
		free(runs);
		return EXIT_INPUT;
	}
	for (int i = 0; i < n; i++)
		if (strcmp(runs[i].data, "synthetic") && !o.folder) {
			fprintf(stderr, "scaleplan campaign: --grid: field 'data', value '%s': expected --data-dir FOLDER "
					"(the JPEG folder it reads)\n", runs[i].data);
			free(runs);
			return EXIT_INPUT;
		}
	/* the JPEG runs' time limits count the folder's images (ImageNet's 1,281,167 + 50,000 where unreadable
	 * here: the scripts may run on another machine) */
	if (o.run_timeout_s <= 0 && (rc = predict_runs(&o, runs, n)) != EXIT_OK) {
		free(runs);
		return rc;
	}
	if (o.folder) {
		o.train_n = count_images(o.folder, "train");
		o.val_n = count_images(o.folder, "val");
		if (o.train_n < 0)
			o.train_n = 1281167, o.val_n = 50000;
		if (o.val_n < 0)
			o.val_n = 0;
	}
	if ((rc = mkdir_ok(o.out)) == EXIT_OK) {
		o.out_abs = realpath(o.out, NULL);
		if (!o.out_abs) {
			fprintf(stderr, "scaleplan campaign: %s: %s\n", o.out, strerror(errno));
			rc = EXIT_ENV;
		}
	}
	if (rc == EXIT_OK &&
	    (rc = write_file(o.out, "grid.csv", false, grid_csv_fn, &o, spec, runs, n)) == EXIT_OK &&
	    (rc = write_file(o.out, "run_mpirun.sh", true, write_mpirun, &o, spec, runs, n)) == EXIT_OK)
		rc = write_file(o.out, "campaign.sbatch", true, write_sbatch, &o, spec, runs, n);
	free(runs);
	free(o.out_abs);
	if (rc != EXIT_OK)
		return rc;
	printf("scaleplan campaign: %d runs (grid %s): %s/run_mpirun.sh, %s/campaign.sbatch, %s/grid.csv\n", n, spec, o.out,
	       o.out, o.out);
	if (!o.run)
		return EXIT_OK;
	if (!gpu_here()) {
		fprintf(stderr, "scaleplan campaign: --run: no NVIDIA GPU here (nvidia-smi -L failed); the scripts are "
				"written: run %s/run_mpirun.sh (or sbatch campaign.sbatch) where the GPUs are, then --fit-only\n",
			o.out);
		return EXIT_ENV;
	}
	char *cmd = xasprintf("TRAIN='%s' sh '%s/run_mpirun.sh'", o.train, o.out);
	fflush(stdout);
	int st = system(cmd);
	free(cmd);
	if (st != 0)
		fprintf(stderr, "scaleplan campaign: some runs failed (see above); fitting the CSVs that were written\n");
	return fit(&o);
}
