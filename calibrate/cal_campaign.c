/* calibrate/cal_campaign.c: a calibration campaign's grid and launch scripts (`scaleplan campaign`): the grid
 * of scaleplan-train runs parsed and expanded, each run's time limit, and the scripts that run them
 * (run_mpirun.sh: mpirun, or the plain binary for one GPU; campaign.sbatch: Slurm, one srun per run) with the
 * expanded grid (grid.csv). Every run has a time limit (--run-timeout, else twice its predicted time): a run
 * that stops or fails is recorded in runs.csv and the campaign goes on. The scripts find their folder
 * themselves, so they run from anywhere. Prints nothing: errors in err_msg().
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "calibrate/cal.h"
#include "calibrate/cal_internal.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"

static const char *const cg_data[] = {"synthetic", "jpeg-gpu", "jpeg-cpu", NULL};
static const char *const cg_transport[] = {"nvlink", "p2p-off", "all-socket", "emulated", NULL};

static int bad(const char *where, const char *field, const char *value, const char *expected)
{
	return err_set("%s: field '%s', value '%s': expected %s", where, field, value, expected);
}

static int name_index(const char *const *names, const char *v)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], v))
			return i;
	return -1;
}

/* Parses "v1,v2,..." into axis a: integers in [lo, hi], or names of `names`. */
static int parse_axis(const char *where, const char *key, char *vals, cal_cg_axis *a, long lo, long hi,
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
		if (a->n == CAL_CG_MAX)
			return bad(where, key, v, "at most 16 values");
		if (names) {
			int k = name_index(names, v);
			if (k < 0)
				return bad(where, key, v, exp);
			a->s[a->n++] = names[k];
		} else {
			char *end;
			long x = strtol(v, &end, 10);
			if (end == v || *end || x < lo || x > hi)
				return bad(where, key, v, exp);
			a->v[a->n++] = x;
		}
	}
	if (a->n == 0)
		return bad(where, key, "", names ? exp : "at least one value");
	return 0;
}

/* One "key=v1,v2" item. */
static int parse_item(const char *where, char *item, cal_cg_grid *g)
{
	while (*item == ' ' || *item == '\t')
		item++;
	if (!*item)
		return 0;
	char *eq = strchr(item, '=');
	if (!eq)
		return bad(where, item, "", "key=value[,value...]");
	*eq = '\0';
	char *key = item, *vals = eq + 1;
	if (!strcmp(key, "gpus_per_node") || !strcmp(key, "gpn"))
		return parse_axis(where, key, vals, &g->gpn, 1, 64, NULL);
	if (!strcmp(key, "nodes"))
		return parse_axis(where, key, vals, &g->nodes, 1, 4096, NULL);
	if (!strcmp(key, "batch") || !strcmp(key, "batch_per_gpu"))
		return parse_axis(where, key, vals, &g->batch, 1, 65536, NULL);
	if (!strcmp(key, "data"))
		return parse_axis(where, key, vals, &g->data, 0, 0, cg_data);
	if (!strcmp(key, "transport"))
		return parse_axis(where, key, vals, &g->transport, 0, 0, cg_transport);
	return bad(where, key, vals, "a key gpus_per_node, nodes, batch, data or transport");
}

static void grid_defaults(cal_cg_grid *g)
{
	memset(g, 0, sizeof(*g));
	g->gpn = (cal_cg_axis){.n = 1, .v = {1}};
	g->nodes = (cal_cg_axis){.n = 1, .v = {1}};
	g->batch = (cal_cg_axis){.n = 1, .v = {256}};
	g->data = (cal_cg_axis){.n = 1, .s = {"synthetic"}};
	g->transport = (cal_cg_axis){.n = 1, .s = {"nvlink"}};
}

int cal_cg_grid_parse(const char *spec, cal_cg_grid *g)
{
	int rc = 0;
	grid_defaults(g);
	if (spec[0] == '@') {
		FILE *f = fopen(spec + 1, "r");
		char line[1024], where[1100];
		if (!f)
			return err_set("--grid %s: cannot read: %s", spec + 1, strerror(errno));
		for (int ln = 1; rc == 0 && fgets(line, sizeof(line), f); ln++) {
			line[strcspn(line, "\r\n#")] = '\0';
			snprintf(where, sizeof(where), "%s:%d", spec + 1, ln);
			rc = parse_item(where, line, g);
		}
		fclose(f);
		return rc;
	}
	char *s = xstrdup(spec), *save = NULL;
	for (char *it = strtok_r(s, ";", &save); rc == 0 && it; it = strtok_r(NULL, ";", &save))
		rc = parse_item("--grid", it, g);
	free(s);
	return rc;
}

/* Appends r to runs[0..n) unless a run of its id is there; returns the new count (which may exceed the room). */
static int add_run(cal_cg_run *runs, int n, const cal_cg_run *r)
{
	for (int k = 0; k < n && k < CAL_CG_MAX_RUNS; k++)
		if (!strcmp(runs[k].id, r->id))
			return n;
	if (n < CAL_CG_MAX_RUNS)
		runs[n] = *r;
	return n + 1;
}

int cal_cg_expand(const cal_cg_grid *g, cal_cg_run *runs, int n)
{
	for (int a = 0; a < g->gpn.n; a++)
		for (int b = 0; b < g->nodes.n; b++)
			for (int c = 0; c < g->batch.n; c++)
				for (int d = 0; d < g->data.n; d++)
					for (int e = 0; e < g->transport.n; e++) {
						cal_cg_run r = {.gpn = (int)g->gpn.v[a], .nodes = (int)g->nodes.v[b],
							    .batch = (int)g->batch.v[c], .data = g->data.s[d],
							    .transport = g->transport.s[e], .copy = 1};
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
						n = add_run(runs, n, &r);
					}
	return n;
}

int cal_cg_plan(const char *spec, int repeat, cal_cg_run *runs)
{
	cal_cg_grid g;
	int n = 0;
	if (spec[0] == '@') {
		if (cal_cg_grid_parse(spec, &g))
			return -1;
		n = cal_cg_expand(&g, runs, 0);
	} else {
		char *s = xstrdup(spec), *save = NULL;
		for (char *part = strtok_r(s, "|", &save); part; part = strtok_r(NULL, "|", &save)) {
			if (cal_cg_grid_parse(part, &g)) {
				free(s);
				return -1;
			}
			n = cal_cg_expand(&g, runs, n);
		}
		free(s);
	}
	/* emulated nodes share one host's cores and loopback: such a run does not repeat (three hosts of one type
	 * gave 13,507, 18,688 and 21,668 img/s for 4 emulated nodes), so each is run `repeat` times, the copies
	 * last (apart in time), id suffix _rK; calibrate reads their spread */
	int n0 = n < CAL_CG_MAX_RUNS ? n : CAL_CG_MAX_RUNS;
	for (int k = 2; k <= repeat; k++)
		for (int i = 0; i < n0; i++) {
			if (strcmp(runs[i].transport, "emulated"))
				continue;
			cal_cg_run r = runs[i];
			r.copy = k;
			snprintf(r.id, sizeof(r.id), "%s_r%d", runs[i].id, k);
			n = add_run(runs, n, &r);
		}
	return n;
}

/* The default grid of a host of host_gpus GPUs: 1, 2, 4, ... GPUs up to the host's over NVLink, emulated
 * nodes of one GPU (as many as the GPUs of each point) and, from 4 GPUs, 2 emulated nodes of half the host:
 * what the calibration fit needs to predict the host and the nodes of it. Two batches on a host of 1-2 GPUs
 * (b_half needs two), 256 alone on larger hosts (the time goes into the GPU counts). */
const char *cal_cg_default_grid(int host_gpus, bool jpeg, strbuf *out)
{
	strbuf_addf(out, "gpus_per_node=1");
	for (int g = 2; g < host_gpus; g *= 2)
		strbuf_addf(out, ",%d", g);
	if (host_gpus > 1)
		strbuf_addf(out, ",%d", host_gpus);
	const char *data = jpeg ? "synthetic,jpeg-gpu" : "synthetic";
	const char *batch = host_gpus <= 2 ? "128,256" : "256";
	strbuf_addf(out, ";nodes=1;batch=%s;data=%s;transport=nvlink,emulated", batch, data);
	if (host_gpus >= 4)
		strbuf_addf(out, "|gpus_per_node=%d;nodes=2;batch=%s;data=%s;transport=emulated", host_gpus / 2, batch, data);
	return out->s;
}

/* Start-up of a run before its first step: cuDNN's algorithm search, NCCL's set-up, the first batches; 12-20 s
 * on an H100 (bench/NOTES.md's log), 60 s leaves room for slower hosts and file systems. */
static const double CG_START_S = 60.0;
/* Run r's time limit: --run-timeout, else twice its predicted time (start-up, then its images at the rate
 * predict_runs gave it), at least 120 s. Synthetic: (iters + 10 warm-up) steps; JPEG: epochs over the rank's
 * share of train/ and val/. */
static int run_limit_s(const cal_campaign *o, const cal_cg_run *r)
{
	if (o->run_timeout_s > 0)
		return (int)(o->run_timeout_s + 0.5);
	int gpus = r->gpn * r->nodes;
	double img = !strcmp(r->data, "synthetic") ? (double)(o->iters + 10) * r->batch
						   : (double)o->epochs * (double)(o->train_n + o->val_n) / gpus;
	double t = 2.0 * (CG_START_S + img / r->img_s_gpu);
	return t < 120.0 ? 120 : (int)(t + 0.5);
}


/* The scaleplan-train options of one run (after the binary). */
static void train_args(FILE *f, const cal_campaign *o, const cal_cg_run *r)
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
static void script_head(FILE *f, const cal_campaign *o, const char *spec, int n, const char *how, const char *dir_expr)
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
static void write_mpirun(FILE *f, const cal_campaign *o, const char *spec, const cal_cg_run *runs, int n)
{
	fprintf(f, "#!/bin/sh\n");
	script_head(f, o, spec, n, "mpirun; one GPU: the binary alone", "$(cd \"$(dirname \"$0\")\" && pwd)");
	fprintf(f, "# HOSTFILE: mpirun's host file for the runs on more than one node; MPIRUN_ARGS: more mpirun options;\n"
		   "# LAUNCH: instead of mpirun for the runs on one host, a launcher taking the rank count first\n"
		   "# (bench/launch_local.sh)\n");
	for (int i = 0; i < n; i++) {
		const cal_cg_run *r = &runs[i];
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
static void write_sbatch(FILE *f, const cal_campaign *o, const char *spec, const cal_cg_run *runs, int n)
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
		const cal_cg_run *r = &runs[i];
		bool emu = !strcmp(r->transport, "emulated");
		int nodes = emu ? 1 : r->nodes, per = emu ? r->gpn * r->nodes : r->gpn;
		fprintf(f, "run %s %d srun --mpi=${SRUN_MPI:-pmix} --nodes=%d --ntasks=%d --ntasks-per-node=%d "
			   "${SRUN_GPUS---gpus-per-node=%d} \"$TRAIN\"", r->id, run_limit_s(o, r), nodes, nodes * per, per, per);
		train_args(f, o, r);
	}
	fprintf(f, "echo \"campaign: %d runs, $fail failed; CSVs in $CSV\"\n[ $fail -eq 0 ]\n", n);
}

static void write_grid_csv(FILE *f, const cal_cg_run *runs, int n)
{
	fprintf(f, "id,gpus_per_node,nodes,gpus,batch_per_gpu,data,transport\n");
	for (int i = 0; i < n; i++)
		fprintf(f, "%s,%d,%d,%d,%d,%s,%s\n", runs[i].id, runs[i].gpn, runs[i].nodes, runs[i].gpn * runs[i].nodes,
			runs[i].batch, runs[i].data, runs[i].transport);
}

/* Writes one file through a temporary name (complete or absent); mode 0755 for scripts. 0 or ERR_ENV. */
static int write_file(const char *dir, const char *name, bool exec,
		      void (*fn)(FILE *, const cal_campaign *, const char *, const cal_cg_run *, int), const cal_campaign *o,
		      const char *spec, const cal_cg_run *runs, int n)
{
	char *path = xasprintf("%s/%s", dir, name), *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	int rc = 0;
	if (!f) {
		err_set("%s: cannot write: %s", tmp, strerror(errno));
		rc = ERR_ENV;
	} else {
		fn(f, o, spec, runs, n);
		if (fclose(f) != 0 || chmod(tmp, exec ? 0755 : 0644) != 0 || rename(tmp, path) != 0) {
			err_set("%s: cannot write: %s", path, strerror(errno));
			remove(tmp);
			rc = ERR_ENV;
		}
	}
	free(path);
	free(tmp);
	return rc;
}

static void grid_csv_fn(FILE *f, const cal_campaign *o, const char *spec, const cal_cg_run *runs, int n)
{
	(void)o, (void)spec;
	write_grid_csv(f, runs, n);
}

/* Regular files in each class folder of dir/sub (one level, as the loader scans); -1 where dir/sub cannot be
 * read. */
long cal_cg_count_images(const char *dir, const char *sub)
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
bool cal_cg_exists(const char *dir)
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

int cal_cg_write(const char *dir, const cal_campaign *c, const char *spec, const cal_cg_run *runs, int n)
{
	int rc = write_file(dir, "grid.csv", false, grid_csv_fn, c, spec, runs, n);
	if (rc == 0)
		rc = write_file(dir, "run_mpirun.sh", true, write_mpirun, c, spec, runs, n);
	if (rc == 0)
		rc = write_file(dir, "campaign.sbatch", true, write_sbatch, c, spec, runs, n);
	return rc;
}

/* The `steady` cell of run id: "rising +X.X%" where one of its points (a run's JPEG epochs) is not steady,
 * "yes" where its epochs are, "" where it has none (synthetic runs, one epoch) or no CSV. */
static void steady_cell(const cal_data *d, const char *id, strbuf *out)
{
	double rise = NAN;
	for (int i = 0; i < d->n; i++) {
		const cal_point *p = &d->pts[i];
		if (p->kind == CAL_THROUGHPUT && p->run_id && !strcmp(p->run_id, id) && isfinite(p->rise))
			rise = isfinite(rise) ? fmax(rise, p->rise) : p->rise;
	}
	if (isfinite(rise))
		cal_steady_weight(&(cal_point){.rise = rise}) < 1 ? strbuf_addf(out, "rising %+.1f%%", 100 * rise)
								  : strbuf_addf(out, "yes");
}

int cal_cg_mark_steady(const char *runs_csv, const cal_data *d)
{
	FILE *f;
	int rc = file_open_read(runs_csv, &f);
	if (rc)
		return rc;
	strbuf out;
	strbuf_init(&out);
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	int col = -1, lineno = 0;
	while ((got = getline(&line, &cap, f)) >= 0) {
		while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
			line[--got] = '\0';
		/* a column written before (a second --fit-only) is replaced: the line up to it kept */
		if (lineno++ == 0) {
			char *at = strstr(line, ",steady");
			col = at ? 1 : 0; /* the comma before the old column: the col-th of a row */
			for (char *c = line; at && c < at; c++)
				col += *c == ',';
			if (at)
				*at = '\0';
			strbuf_addf(&out, "%s,steady\n", line);
			continue;
		}
		if (col > 0) { /* cut at the old steady column */
			char *c = line;
			for (int k = 0; k < col && c; k++)
				c = strchr(c + 1, ',');
			if (c && *c == ',')
				*c = '\0';
		}
		char *comma = strchr(line, ',');
		char *id = xasprintf("%.*s", comma ? (int)(comma - line) : (int)strlen(line), line);
		strbuf_addf(&out, "%s,", line);
		steady_cell(d, id, &out);
		strbuf_addf(&out, "\n");
		free(id);
	}
	free(line);
	fclose(f);
	rc = file_write_atomic(runs_csv, out.s, strlen(out.s));
	strbuf_free(&out);
	return rc;
}
