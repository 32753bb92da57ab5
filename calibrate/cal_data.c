/* calibrate/cal_data.c - measurement readers: exec measurement CSVs, reference throughput tables,
 * all-reduce sweeps, input-pipeline sweeps, convergence tables and MLLOG runs, all turned into cal_point
 * rows that keep their file, line and source. A table's kind is recognised by its header.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "calibrate/cal.h"

#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "calibrate/cal_internal.h"
#include "common/common.h"
#include "hwdb/hw.h"

const char *cal_kind_name(cal_kind kind)
{
	switch (kind) {
	case CAL_THROUGHPUT: return "throughput";
	case CAL_ALLREDUCE: return "allreduce";
	case CAL_PIPELINE: return "pipeline";
	case CAL_EPOCHS: return "epochs";
	case CAL_TTA: return "tta";
	case CAL_CONTENTION: return "contention";
	default: return "?";
	}
}

void cal_data_init(cal_data *d)
{
	memset(d, 0, sizeof *d);
}

static void point_free(cal_point *p)
{
	free(p->file);
	free(p->source);
	free(p->machine);
	free(p->gpu);
	free(p->precision);
	free(p->variant);
	free(p->framework);
	free(p->intra);
	free(p->inter);
	free(p->data);
	free(p->run_id);
}

void cal_data_free(cal_data *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->n; i++)
		point_free(&d->pts[i]);
	free(d->pts);
	cal_data_init(d);
}

/* A new point with every number unknown and every string "". */
static cal_point *point_new(cal_data *d, cal_kind kind, const char *file, int line)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 64;
		d->pts = xrealloc(d->pts, (size_t)d->cap * sizeof *d->pts);
	}
	cal_point *p = &d->pts[d->n++];
	memset(p, 0, sizeof *p);
	p->kind = kind;
	p->file = xstrdup(file);
	p->line = line;
	p->batch_per_gpu = p->global_batch = p->bytes = p->workers = NAN;
	p->train_images = p->block_img_s = p->measured = NAN;
	p->data_threads = p->rise = NAN;
	p->grad_B_param = 4;
	p->image_hw = 224;
	p->meas_comm_s = p->meas_exposed_s = NAN;
	p->bucket_B = NAN;
	p->nodes = p->gpus_per_node = p->gpus = 0;
	p->nranks = 1;
	p->step_ar = -1;
	return p;
}

static void point_fill_strings(cal_point *p)
{
	char **s[] = { &p->source, &p->machine, &p->gpu, &p->precision, &p->variant, &p->framework, &p->intra, &p->inter,
			 &p->data, &p->run_id };
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		if (!*s[i])
			*s[i] = xstrdup("");
}

static char *lower_dup(const char *s)
{
	char *r = xstrdup(s);
	for (char *c = r; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return r;
}

/* Transport of a mode string as the files write it: exec's --nccl-mode labels (nvlink, p2p-off,
 * all-socket, emulated-K), testbed_pytorch.csv's prose ("shm (NCCL_P2P_DISABLE=1)", "socket over lo ...",
 * "2 emulated nodes x 2 (...)"). Sets *emu_nodes to K for emulated nodes (0 otherwise). */
static const char *transport_of(const char *mode, int *emu_nodes)
{
	*emu_nodes = 0;
	if (strcasestr(mode, "emulated") || strcasestr(mode, "hostid")) {
		const char *dash = strrchr(mode, '-');
		int k = 0;
		if (dash && isdigit((unsigned char)dash[1]))
			k = atoi(dash + 1);
		else if (isdigit((unsigned char)mode[0]))
			k = atoi(mode);
		*emu_nodes = k > 1 ? k : 2;
		return "nvlink";
	}
	if (strcasestr(mode, "socket") || strcasestr(mode, "net"))
		return "socket";
	if (strcasestr(mode, "shm") || strcasestr(mode, "p2p-off") || strcasestr(mode, "p2p_disable"))
		return "shm";
	if (strcasestr(mode, "roce"))
		return "roce";
	if (strcasestr(mode, "ib") == mode || strcasestr(mode, "infiniband"))
		return "ib";
	if (strcasestr(mode, "pcie"))
		return "pcie";
	return "nvlink";
}

/* Cell text or "" when the column is absent. */
static const char *cell(const csv_table *t, int r, int c)
{
	return c >= 0 ? t->cells[r][c] : "";
}

/* Optional number: NAN when the column is absent or the cell empty; ERR_INPUT when not a number. */
static int opt_num(const csv_table *t, int r, int c, double *out)
{
	*out = NAN;
	if (c < 0 || t->cells[r][c][0] == '\0')
		return 0;
	return csv_cell_double(t, r, c, out);
}

/* Required number. */
static int req_num(const csv_table *t, int r, int c, double *out, bool positive)
{
	if (c < 0)   /* the kind's header check should have caught it; never index column -1 */
		return err_set("%s:%d: a required column is missing", t->name, t->line[r]);
	int rc = csv_cell_double(t, r, c, out);
	if (rc == 0 && positive && !(*out > 0))
		rc = err_set("%s:%d:%d (%s): expected a positive number, found '%s'", t->name, t->line[r], c + 1,
			     t->header[c], t->cells[r][c]);
	return rc;
}

/* Column of the first of several names present. */
static int col_any(const csv_table *t, const char *const *names)
{
	for (; *names; names++) {
		int c = csv_table_col(t, *names);
		if (c >= 0)
			return c;
	}
	return -1;
}

typedef struct loader {
	cal_data *d;
	const csv_table *t;
	bool strict;
	FILE *errs;
	int nbad;
} loader;

/* Reports a bad row; returns ERR_INPUT when strict (fatal), 0 to go on. */
static int bad_row(loader *L)
{
	L->nbad++;
	L->d->nbad++;
	if (L->errs)
		fprintf(L->errs, "%s (row skipped)\n", err_msg());
	return L->strict ? ERR_INPUT : 0;
}

static const char *file_base(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Length of a measurement file's run stem: the path without ".csv" and without exec's ".rank<N>" (rank
 * r > 0 of `--csv out.csv` writes out.rank<r>.csv: exec/ex_train.c csv_rows). */
static size_t stem_len(const char *path)
{
	size_t n = strlen(path);
	if (n > 4 && strcmp(path + n - 4, ".csv") == 0)
		n -= 4;
	size_t d = n;
	while (d > 0 && path[d - 1] >= '0' && path[d - 1] <= '9')
		d--;
	if (d < n && d >= 5 && strncmp(path + d - 5, ".rank", 5) == 0)
		n = d - 5;
	return n;
}

static bool same_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* The earlier point of the same run as the new last point p, or NULL: a multi-GPU exec run writes one
 * CSV per rank (exec/ex_train.c csv_rows: out.csv, out.rank1.csv, ...) and each one's run row holds the
 * job's img/s, so the ranks are one measurement, not one per process. Same run: another file of the
 * same stem (folder and name but the rank), run_id, source and configuration. Exec's default run_id
 * ("run") is shared by separate runs, and repeats of a run appended to one file (bench/data/h200x2-2026-11-22-r3
 * train.csv: three of each) are separate measurements, so the run_id alone does not say. */
static cal_point *same_run(cal_data *d, const cal_point *p)
{
	if (!p->run_id[0] || p->gpus < 2)
		return NULL;
	size_t sl = stem_len(p->file);
	for (int i = 0; i < d->n - 1; i++) {
		cal_point *q = &d->pts[i];
		if (q->kind != CAL_THROUGHPUT || !same_str(q->run_id, p->run_id) || stem_len(q->file) != sl ||
		    strncmp(q->file, p->file, sl) != 0 || strcmp(q->file, p->file) == 0)
			continue;
		if (same_str(q->source, p->source) && same_str(q->machine, p->machine) && same_str(q->gpu, p->gpu) &&
		    same_str(q->precision, p->precision) && same_str(q->data, p->data) &&
		    same_str(q->variant, p->variant) && same_str(q->intra, p->intra) && same_str(q->inter, p->inter) &&
		    q->gpus == p->gpus && q->nodes == p->nodes && q->gpus_per_node == p->gpus_per_node &&
		    (q->batch_per_gpu == p->batch_per_gpu || (isnan(q->batch_per_gpu) && isnan(p->batch_per_gpu))))
			return q;
	}
	return NULL;
}

/* Mean of a and b weighted by na and 1, the unknown (NAN) side left out. */
static double mean_in(double a, int na, double b)
{
	if (!isfinite(a))
		return b;
	if (!isfinite(b))
		return a;
	return (a * na + b) / (na + 1);
}

/* Folds the new last point into an earlier rank of its run (the job's throughput and the ranks' mean
 * all-reduce and exposed times) and drops it; true when it did. */
static bool merge_rank(cal_data *d)
{
	cal_point *p = &d->pts[d->n - 1], *q = same_run(d, p);
	if (!q)
		return false;
	q->measured = mean_in(q->measured, q->nranks, p->measured);
	q->meas_comm_s = mean_in(q->meas_comm_s, q->nranks, p->meas_comm_s);
	q->meas_exposed_s = mean_in(q->meas_exposed_s, q->nranks, p->meas_exposed_s);
	q->nranks++;
	if (q->step_ar >= 0)
		d->pts[q->step_ar].measured = q->meas_comm_s;
	point_free(p);
	d->n--;
	return true;
}

/* An engine run on several GPUs times its gradient all-reduce inside the step (exec allreduce_s: the comm
 * stream's busy time per iteration, beside the backward pass it overlaps): a point of the run's transport,
 * so that the link a run used is described by that run's own timings where no sweep measured it (the
 * emulated nodes' sockets). Its prediction sums the model's buckets of the run's scenario (cal_model.c), as
 * the throughput prediction does. */
static void add_step_allreduce(cal_data *d, int it)
{
	const cal_point *t = &d->pts[it];
	if (strcmp(t->source, "exec") != 0 || t->gpus < 2 || !(t->meas_comm_s > 0) || t->no_overlap)
		return;
	cal_point *p = point_new(d, CAL_ALLREDUCE, d->pts[it].file, d->pts[it].line);
	t = &d->pts[it];   /* point_new may move the array */
	p->step_grads = true;
	p->gpus = t->gpus;
	p->nodes = t->nodes;
	p->gpus_per_node = t->gpus_per_node;
	p->batch_per_gpu = t->batch_per_gpu;
	p->global_batch = t->global_batch;
	p->grad_B_param = t->grad_B_param;
	p->grad_B_said = t->grad_B_said;
	p->image_hw = t->image_hw;
	p->bucket_B = t->bucket_B;
	p->measured = t->meas_comm_s;
	const char *const *from[] = { (const char *const *)&t->source, (const char *const *)&t->machine,
				      (const char *const *)&t->gpu, (const char *const *)&t->precision,
				      (const char *const *)&t->variant, (const char *const *)&t->framework,
				      (const char *const *)&t->intra, (const char *const *)&t->inter,
				      (const char *const *)&t->data, (const char *const *)&t->run_id };
	char **to[] = { &p->source, &p->machine, &p->gpu, &p->precision, &p->variant, &p->framework, &p->intra,
			&p->inter, &p->data, &p->run_id };
	for (size_t i = 0; i < sizeof to / sizeof to[0]; i++)
		*to[i] = xstrdup(*from[i] ? *from[i] : "");
	d->pts[it].step_ar = d->n - 1;
}

/* Throughput rows: exec measurement CSVs, refdata/throughput.csv, refdata/testbed_pytorch.csv. */
/* The columns a throughput table may have (-1: absent). */
typedef struct tp_cols {
	int img, machine, gpus, nodes, gpn, batch, gbatch, mode, prec, gpu, src, data, epoch, fw, layout, compiled,
	    grad_prec, threads, rank, run, graph, image, ar, exposed, bucket;
} tp_cols;

static void tp_cols_find(const csv_table *t, tp_cols *c)
{
	static const char *const c_img[] = { "throughput_img_s", "img_s", NULL };
	static const char *const c_machine[] = { "machine", "system", NULL };
	c->img = col_any(t, c_img);
	c->machine = col_any(t, c_machine);
	c->gpus = csv_table_col(t, "gpus"), c->nodes = csv_table_col(t, "nodes"), c->gpn = csv_table_col(t, "gpus_per_node");
	c->batch = csv_table_col(t, "batch_per_gpu"), c->gbatch = csv_table_col(t, "global_batch");
	c->mode = csv_table_col(t, "nccl_mode"), c->prec = csv_table_col(t, "precision");
	c->gpu = csv_table_col(t, "gpu"), c->src = csv_table_col(t, "source"), c->data = csv_table_col(t, "data");
	c->epoch = csv_table_col(t, "epoch"), c->fw = csv_table_col(t, "framework"), c->layout = csv_table_col(t, "layout");
	c->compiled = csv_table_col(t, "compiled"), c->grad_prec = csv_table_col(t, "grad_precision");
	c->threads = csv_table_col(t, "data_threads"), c->rank = csv_table_col(t, "rank"), c->run = csv_table_col(t, "run_id");
	c->graph = csv_table_col(t, "graph"), c->image = csv_table_col(t, "image_size");
	c->ar = csv_table_col(t, "allreduce_s"), c->exposed = csv_table_col(t, "comm_exposed_s");
	c->bucket = csv_table_col(t, "bucket_mb");
}

/* A row's numbers (NAN where a column is absent or empty; img/s and GPUs required). */
typedef struct tp_nums { double img_s, gpus, nodes, gpn, batch, gbatch, thr, ar_s, ex_s, bucket_mb; } tp_nums;

static int tp_nums_read(const csv_table *t, int r, const tp_cols *c, tp_nums *v)
{
	return req_num(t, r, c->img, &v->img_s, true) || req_num(t, r, c->gpus, &v->gpus, true) ||
	       opt_num(t, r, c->nodes, &v->nodes) || opt_num(t, r, c->gpn, &v->gpn) || opt_num(t, r, c->batch, &v->batch) ||
	       opt_num(t, r, c->gbatch, &v->gbatch) || opt_num(t, r, c->threads, &v->thr) || opt_num(t, r, c->ar, &v->ar_s) ||
	       opt_num(t, r, c->exposed, &v->ex_s) || opt_num(t, r, c->bucket, &v->bucket_mb)
		       ? ERR_INPUT
		       : 0;
}

/* The placement of a run: nodes (emulated ones from the NCCL mode), GPUs per node, and the transports.
 * One node: the transport of the mode (nvlink when not said); several nodes: the transport between them
 * ("socket" for emulated nodes, "ib" for the reference clusters). */
static void tp_place(cal_point *p, const csv_table *t, int r, const tp_cols *c, const tp_nums *v)
{
	int emu = 0;
	const char *tr = transport_of(cell(t, r, c->mode), &emu);
	if (cell(t, r, c->mode)[0] == '\0')
		tr = "default"; /* resolved from the system's topology (hwdb) when predicting */
	p->nodes = isfinite(v->nodes) ? (int)v->nodes : (emu ? emu : 1);
	if (emu && p->nodes == 1)
		p->nodes = emu;
	if (p->nodes > p->gpus)
		p->nodes = p->gpus;
	p->gpus_per_node = isfinite(v->gpn) && v->gpn >= 1 ? (int)v->gpn : p->gpus / p->nodes;
	if (p->gpus_per_node < 1)
		p->gpus_per_node = 1;
	p->intra = xstrdup(p->gpus_per_node > 1 ? (emu ? "nvlink" : tr) : "");
	p->inter = xstrdup(p->nodes > 1 ? (emu || strcmp(tr, "socket") == 0 ? "socket" : "ib") : "");
}

/* What else sets per-GPU speed: the software (the row's source names one stack and setup; a framework cell
 * alone changes with the launcher, e.g. "TensorFlow 1.x + Horovod"), the memory layout and compilation,
 * CUDA graphs, the image side. */
static void tp_software(cal_point *p, const csv_table *t, int r, const tp_cols *c)
{
	p->framework = lower_dup(cell(t, r, c->fw));
	const char *graph = cell(t, r, c->graph), *img = cell(t, r, c->image);
	p->variant = xasprintf("%s%s%s%s%s%s%s%s", strcmp(p->source, "exec") == 0 ? "scaleplan-train" : p->source,
			       c->layout >= 0 ? " " : "", cell(t, r, c->layout),
			       c->compiled >= 0 && strcmp(cell(t, r, c->compiled), "yes") == 0 ? " compiled" : "",
			       graph[0] && strcmp(graph, "0") != 0 ? " graph" : "", graph[0] && strcmp(graph, "0") != 0 ? graph : "",
			       img[0] && strcmp(img, "224") != 0 ? " img" : "", img[0] && strcmp(img, "224") != 0 ? img : "");
	p->image_hw = img[0] ? atof(img) : 224;
	if (!(p->image_hw >= 32 && p->image_hw <= 4096))
		p->image_hw = 224;
	/* Gradient bytes per parameter: the file's grad_precision; else a guess (2 for the engine, 4 otherwise)
	 * that calibrate's model does not use: there the stack's grad_B holds (hwdb stacks.csv; the engine's
	 * --grad-precision default is fp32, exec/ex_dist.h). */
	const char *gp = cell(t, r, c->grad_prec);
	if (gp[0])
		p->grad_B_param = (strcasecmp(gp, "fp32") == 0 || strcasecmp(gp, "tf32") == 0) ? 4 : 2;
	else
		p->grad_B_param = strcmp(p->source, "exec") == 0 ? 2 : 4;
	p->grad_B_said = gp[0] != '\0';
}

/* Rows that repeat a run's configuration: per-rank rows (tests/gpu/test_dist.c; the run row "all" carries
 * the job's img/s) and per-epoch rows (the run row carries the throughput). */
static bool tp_repeat_row(const csv_table *t, int r, const tp_cols *c)
{
	return (c->rank >= 0 && t->cells[r][c->rank][0] && strcmp(t->cells[r][c->rank], "all") != 0) ||
	       (c->epoch >= 0 && t->cells[r][c->epoch][0] != '\0');
}

/* A run's steady img/s: the mean of its epoch rows from epoch 2 on (the first fills the input pipeline and
 * starts the clocks; a JPEG run of a few epochs measured start-up more than decoding), else NAN; *last the
 * img/s of its last epoch (NAN: none). Rows of the same run_id; a table without epoch or run_id columns has
 * none. */
static double tp_steady(const csv_table *t, const tp_cols *c, const char *run_id, double *last)
{
	*last = NAN;
	if (c->epoch < 0 || c->run < 0 || c->img < 0)
		return NAN;
	double sum = 0, last_ep = -1;
	int n = 0;
	for (int r = 0; r < t->nrows; r++) {
		char *end;
		double ep = strtod(t->cells[r][c->epoch], &end);
		if (end == t->cells[r][c->epoch] || ep < 2 || strcmp(t->cells[r][c->run], run_id) ||
		    (c->rank >= 0 && t->cells[r][c->rank][0] && strcmp(t->cells[r][c->rank], "all")))
			continue;
		double v = strtod(t->cells[r][c->img], &end);
		if (end != t->cells[r][c->img] && v > 0) {
			sum += v, n++;
			if (ep > last_ep)
				last_ep = ep, *last = v;
		}
	}
	return n ? sum / n : NAN;
}

static int load_throughput(loader *L)
{
	const csv_table *t = L->t;
	tp_cols c;
	tp_cols_find(t, &c);
	for (int r = 0; r < t->nrows; r++) {
		tp_nums v;
		if (tp_repeat_row(t, r, &c)) {
			L->d->nskipped++;
			continue;
		}
		if (tp_nums_read(t, r, &c, &v)) {
			if (bad_row(L))
				return ERR_INPUT;
			continue;
		}
		if (v.gpus != floor(v.gpus) || v.gpus > 1e6 || (isfinite(v.batch) && !(v.batch > 0)) ||
		    (isfinite(v.nodes) && (!(v.nodes >= 1) || v.nodes != floor(v.nodes) || v.nodes > v.gpus)) ||
		    (isfinite(v.gpn) && (!(v.gpn >= 1) || v.gpn != floor(v.gpn) || v.gpn > v.gpus))) {
			err_set("%s:%d: gpus, nodes, gpus_per_node and batch_per_gpu must be positive integers with "
				"nodes and gpus_per_node <= gpus", t->name, t->line[r]);
			if (bad_row(L))
				return ERR_INPUT;
			continue;
		}
		cal_point *p = point_new(L->d, CAL_THROUGHPUT, t->name, t->line[r]);
		p->measured = v.img_s;
		p->gpus = (int)v.gpus;
		p->batch_per_gpu = v.batch;
		p->global_batch = isfinite(v.gbatch) ? v.gbatch : (isfinite(v.batch) ? v.batch * v.gpus : NAN);
		p->source = xstrdup(c.src >= 0 && t->cells[r][c.src][0] ? t->cells[r][c.src] : file_base(t->name));
		p->machine = xstrdup(cell(t, r, c.machine));
		p->gpu = xstrdup(cell(t, r, c.gpu));
		p->precision = lower_dup(cell(t, r, c.prec));
		p->data = lower_dup(cell(t, r, c.data));
		tp_place(p, t, r, &c, &v);
		tp_software(p, t, r, &c);
		/* exec's --no-overlap runs (gpu_multi.sh TRAIN_EXTRA) reduce all buckets after backward */
		p->no_overlap = c.run >= 0 && strstr(t->cells[r][c.run], "no-overlap") != NULL;
		p->data_threads = v.thr;
		p->meas_comm_s = v.ar_s;
		p->meas_exposed_s = v.ex_s;
		/* exec --bucket-mb is MiB (ex_dist.c: bucket_B = MB x 1048576) */
		p->bucket_B = isfinite(v.bucket_mb) && v.bucket_mb > 0 ? v.bucket_mb * 1048576.0 : NAN;
		p->run_id = xstrdup(cell(t, r, c.run));
		/* JPEG runs: their steady epochs where they have them */
		double last;
		double steady = strcmp(p->data, "synthetic") && p->data[0] ? tp_steady(t, &c, p->run_id, &last) : NAN;
		if (isfinite(steady)) {
			p->measured = steady;
			p->rise = last / steady - 1;
		}
		point_fill_strings(p);
		if (!merge_rank(L->d))
			add_step_allreduce(L->d, L->d->n - 1);
	}
	return 0;
}

/* The contention points of a sweep row measured beside a compute load (exec --load resnet|gemm): how
 * much slower the all-reduce ran beside the load, and the load beside the all-reduce. */
static void add_contention(cal_data *d, int ia, double time_loaded_s, double load_alone_s, double load_loaded_s)
{
	const char *what[2] = { "comm", "compute" };
	double ratio[2] = { time_loaded_s / d->pts[ia].measured, load_loaded_s / load_alone_s };
	for (int k = 0; k < 2; k++) {
		if (!isfinite(ratio[k]) || !(ratio[k] > 0))
			continue;
		cal_point *p = point_new(d, CAL_CONTENTION, d->pts[ia].file, d->pts[ia].line);
		const cal_point *ar = &d->pts[ia];   /* after point_new, which may move the array */
		p->gpus = ar->gpus;
		p->nodes = ar->nodes;
		p->gpus_per_node = ar->gpus_per_node;
		p->bytes = ar->bytes;
		p->measured = ratio[k];
		p->source = xstrdup(ar->source);
		p->machine = xstrdup(ar->machine);
		p->precision = xstrdup(ar->precision);
		p->variant = xstrdup(what[k]);
		p->intra = xstrdup(ar->intra);
		p->inter = xstrdup(ar->inter);
		point_fill_strings(p);
	}
}

/* All-reduce sweep rows: [source,]machine,gpus,[nodes,]nccl_mode,[dtype,]bytes,time_s,...
 * [,load,load_alone_s,load_loaded_s,time_loaded_s] (exec --load resnet|gemm) */
static int load_allreduce(loader *L)
{
	const csv_table *t = L->t;
	int cm = csv_table_col(t, "machine"), cg = csv_table_col(t, "gpus"), cn = csv_table_col(t, "nodes");
	int cmode = csv_table_col(t, "nccl_mode"), cb = csv_table_col(t, "bytes"), ct = csv_table_col(t, "time_s");
	int csrc = csv_table_col(t, "source"), cdt = csv_table_col(t, "dtype");
	int cla = csv_table_col(t, "load_alone_s"), cll = csv_table_col(t, "load_loaded_s");
	int ctl = csv_table_col(t, "time_loaded_s");
	for (int r = 0; r < t->nrows; r++) {
		double gpus, nodes, bytes, time_s, load_alone_s, load_loaded_s, time_loaded_s;
		if (req_num(t, r, cg, &gpus, true) || opt_num(t, r, cn, &nodes) || req_num(t, r, cb, &bytes, true) ||
		    req_num(t, r, ct, &time_s, true) || opt_num(t, r, cla, &load_alone_s) ||
		    opt_num(t, r, cll, &load_loaded_s) || opt_num(t, r, ctl, &time_loaded_s)) {
			if (bad_row(L))
				return ERR_INPUT;
			continue;
		}
		if (gpus < 2 || gpus != floor(gpus) || gpus > 1e6 ||
		    (isfinite(nodes) && (nodes < 1 || nodes > gpus || nodes != floor(nodes)))) {
			err_set("%s:%d: an all-reduce needs gpus >= 2 (integer) and 1 <= nodes <= gpus", t->name,
				t->line[r]);
			if (bad_row(L))
				return ERR_INPUT;
			continue;
		}
		if (bytes < CAL_SWEEP_MIN_BYTES) {
			L->d->nskipped++;
			continue;
		}
		cal_point *p = point_new(L->d, CAL_ALLREDUCE, t->name, t->line[r]);
		int emu = 0;
		const char *tr = transport_of(cell(t, r, cmode), &emu);
		p->gpus = (int)gpus;
		p->nodes = isfinite(nodes) ? (int)nodes : (emu ? emu : 1);
		if (p->nodes > p->gpus)
			p->nodes = p->gpus;
		p->gpus_per_node = p->gpus / p->nodes;
		p->bytes = bytes;
		p->measured = time_s;
		p->source = xstrdup(csrc >= 0 && t->cells[r][csrc][0] ? t->cells[r][csrc] : file_base(t->name));
		p->machine = xstrdup(cell(t, r, cm));
		p->precision = lower_dup(cell(t, r, cdt));
		p->intra = xstrdup(p->gpus_per_node > 1 ? (emu ? "nvlink" : tr) : "");
		p->inter = xstrdup(p->nodes > 1 ? (emu || strcmp(tr, "socket") == 0 ? "socket" : "ib") : "");
		point_fill_strings(p);
		add_contention(L->d, L->d->n - 1, time_loaded_s, load_alone_s, load_loaded_s);
	}
	return 0;
}

/* Input-pipeline rows: machine,[cpu],[pipeline],workers|threads|cores,img_s[,img_s_per_worker]. */
static int load_pipeline(loader *L)
{
	const csv_table *t = L->t;
	static const char *const c_w[] = { "workers", "threads", "cores", NULL };
	static const char *const c_img[] = { "img_s", NULL };
	int cw = col_any(t, c_w), ci = col_any(t, c_img), cm = csv_table_col(t, "machine");
	int cpl = csv_table_col(t, "pipeline"), ccpu = csv_table_col(t, "cpu"), csrc = csv_table_col(t, "source");
	int cbytes = csv_table_col(t, "image_bytes_mean");
	char *prev_pipeline = NULL;
	for (int r = 0; r < t->nrows; r++) {
		double w, img_s;
		if (req_num(t, r, cw, &w, true) || req_num(t, r, ci, &img_s, true)) {
			if (bad_row(L))
				goto fail;
			continue;
		}
		if (strncmp(cell(t, r, cpl), "file read", 9) == 0) {
			/* databench's storage read rows: no decode, not this model's decode pipeline */
			L->d->nskipped++;
			continue;
		}
		cal_point *p = point_new(L->d, CAL_PIPELINE, t->name, t->line[r]);
		p->workers = w;
		p->measured = img_s;
		p->source = xstrdup(csrc >= 0 && t->cells[r][csrc][0] ? t->cells[r][csrc] : file_base(t->name));
		p->machine = xstrdup(cell(t, r, cm));
		p->gpu = xstrdup(cell(t, r, ccpu));
		/* testbed_input_pipeline.csv says "same" for "the pipeline of the row above" */
		const char *pl = cell(t, r, cpl);
		if (strcmp(pl, "same") == 0 && prev_pipeline)
			pl = prev_pipeline;
		char *keep = xstrdup(pl);
		/* decode cost grows with the JPEG's size: files of different mean sizes are different pipelines */
		double ib = NAN;
		if (cbytes >= 0 && t->cells[r][cbytes][0])
			ib = atof(t->cells[r][cbytes]);
		if (isfinite(ib) && ib > 0)
			p->variant = xasprintf("%s, %.2g kB images", keep, ib / 1000);
		else
			p->variant = xstrdup(keep);
		/* workers beyond the cores do not add decode throughput: "(N cores online)" in the cpu cell */
		const char *cores = strstr(cell(t, r, ccpu), "cores");
		if (cores) {
			const char *q = cores;
			while (q > cell(t, r, ccpu) && (q[-1] == ' ' || isdigit((unsigned char)q[-1])))
				q--;
			int nc = atoi(q);
			if (nc > 0)
				p->data_threads = nc;
		}
		free(prev_pipeline);
		prev_pipeline = keep;
		point_fill_strings(p);
	}
	free(prev_pipeline);
	return 0;
fail:
	free(prev_pipeline);
	return ERR_INPUT;
}

/* Convergence rows: global_batch and mean_epochs (RCP table) or epochs_to_converge (MLPerf results). */
static int load_epochs(loader *L)
{
	const csv_table *t = L->t;
	static const char *const c_e[] = { "mean_epochs", "epochs_to_converge", "epochs", NULL };
	static const char *const c_m[] = { "system", "creator", "machine", NULL };
	int ce = col_any(t, c_e), cgb = csv_table_col(t, "global_batch"), cm = col_any(t, c_m);
	int csrc = csv_table_col(t, "source");
	for (int r = 0; r < t->nrows; r++) {
		double gb, ep;
		if (req_num(t, r, cgb, &gb, true) || req_num(t, r, ce, &ep, true)) {
			if (bad_row(L))
				return ERR_INPUT;
			continue;
		}
		cal_point *p = point_new(L->d, CAL_EPOCHS, t->name, t->line[r]);
		p->global_batch = gb;
		p->measured = ep;
		p->source = xstrdup(csrc >= 0 && t->cells[r][csrc][0] ? t->cells[r][csrc] : file_base(t->name));
		p->machine = xstrdup(cell(t, r, cm));
		/* one convergence curve per table: the RCP table and the MLPerf results are different sets */
		p->variant = xstrdup(file_base(t->name));
		point_fill_strings(p);
	}
	return 0;
}

int cal_data_load_csv_buf(cal_data *d, const char *name, const char *buf, size_t len_B, bool strict, FILE *errs)
{
	csv_table t;
	int rc = csv_table_parse(&t, name, buf, len_B);
	if (rc < 0) {
		/* the reader rejects a whole table (bad quoting, ragged row): skip the file unless strict */
		d->nbad++;
		csv_table_free(&t);
		if (strict)
			return rc;
		if (errs)
			fprintf(errs, "%s (file skipped)\n", err_msg());
		return 0;
	}
	loader L = { .d = d, .t = &t, .strict = strict, .errs = errs };
	bool has_gpus = csv_table_col(&t, "gpus") >= 0;
	if (has_gpus && csv_table_col(&t, "bytes") >= 0 && csv_table_col(&t, "time_s") >= 0)
		rc = load_allreduce(&L);
	else if (has_gpus && (csv_table_col(&t, "throughput_img_s") >= 0 || csv_table_col(&t, "img_s") >= 0))
		rc = load_throughput(&L);
	else if (csv_table_col(&t, "global_batch") >= 0 &&
		 (csv_table_col(&t, "mean_epochs") >= 0 || csv_table_col(&t, "epochs_to_converge") >= 0))
		rc = load_epochs(&L);
	else if (!has_gpus && csv_table_col(&t, "img_s") >= 0 &&
		 (csv_table_col(&t, "workers") >= 0 || csv_table_col(&t, "threads") >= 0 ||
		  csv_table_col(&t, "cores") >= 0))
		rc = load_pipeline(&L);
	else {
		rc = err_set("%s:1: header matches no measurement kind (throughput: gpus + throughput_img_s|img_s; "
			     "all-reduce: gpus + bytes + time_s; pipeline: workers|threads + img_s; convergence: "
			     "global_batch + mean_epochs|epochs_to_converge)", name);
		d->nskipped++;
		if (!strict) {
			if (errs)
				fprintf(errs, "%s (file skipped)\n", err_msg());
			rc = 0;
		}
	}
	csv_table_free(&t);
	return rc;
}


int cal_data_load_csv(cal_data *d, const char *path, bool strict, FILE *errs)
{
	char *buf;
	size_t n;
	int rc = file_read_all(path, &buf, &n);
	if (rc < 0)
		return rc;
	rc = cal_data_load_csv_buf(d, path, buf, n, strict, errs);
	free(buf);
	return rc;
}

void cal_data_add_mllog(cal_data *d, const cal_mllog_run *run)
{
	const char *plat = run->platform[0] ? run->platform : file_base(run->name);
	if (isfinite(run->epochs) && isfinite(run->global_batch) && run->global_batch > 0) {
		cal_point *p = point_new(d, CAL_EPOCHS, run->name, 0);
		p->global_batch = run->global_batch;
		p->measured = run->epochs;
		p->source = xstrdup("mllog");
		p->machine = xstrdup(plat);
		p->variant = xstrdup("mllog");
		point_fill_strings(p);
	}
	if (isfinite(run->tta_s) && isfinite(run->epochs) && isfinite(run->block_img_s)) {
		cal_point *p = point_new(d, CAL_TTA, run->name, 0);
		p->global_batch = run->global_batch;
		p->measured = run->tta_s;
		p->workers = run->epochs;
		p->train_images = isfinite(run->train_samples) ? run->train_samples : MODEL_IMAGENET_TRAIN_IMAGES;
		p->block_img_s = run->block_img_s;
		p->source = xstrdup("mllog");
		p->machine = xstrdup(plat);
		point_fill_strings(p);
	}
}

int cal_data_load_path(cal_data *d, const char *path, double target_top1, bool strict, FILE *errs)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return err_path(path, errno, "a measurement CSV, an MLLOG log or a directory of them");
	if (S_ISDIR(st.st_mode))
		return cal_data_load_dir(d, path, target_top1, strict, errs);
	size_t len = strlen(path);
	if (len > 4 && strcmp(path + len - 4, ".csv") == 0)
		return cal_data_load_csv(d, path, strict, errs);
	cal_mllog_run run;
	int rc = cal_mllog_load(&run, path, target_top1, strict, errs);
	d->nbad += run.nbad;
	if (rc == 0) {
		cal_data_add_mllog(d, &run);
		if (!isfinite(run.epochs) && errs)
			fprintf(errs, "%s: run did not reach top-1 %.3f (status '%s'): no epochs to target\n", path,
				run.target_top1, run.status);
	}
	cal_mllog_run_free(&run);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int cal_data_load_dir(cal_data *d, const char *dir, double target_top1, bool strict, FILE *errs)
{
	DIR *dh;
	int rc = dir_open(dir, &dh);
	if (rc)
		return rc;
	char **names = NULL;
	int n = 0, cap = 0, nread = 0;
	struct dirent *e;
	while ((e = readdir(dh))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			names = xrealloc(names, (size_t)cap * sizeof *names);
		}
		names[n++] = xasprintf("%s/%s", dir, e->d_name);
	}
	closedir(dh);
	if (n > 1)
		qsort(names, (size_t)n, sizeof *names, cmp_str);
	for (int i = 0; i < n && rc == 0; i++) {
		struct stat st;
		if (stat(names[i], &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		size_t len = strlen(names[i]);
		if (len > 4 && strcmp(names[i] + len - 4, ".csv") == 0) {
			rc = cal_data_load_csv(d, names[i], strict, errs);
			nread++;
			continue;
		}
		char *buf;
		size_t blen;
		if (file_read_all(names[i], &buf, &blen) < 0)
			continue;
		bool is_log = memmem(buf, blen, ":::MLLOG", 8) != NULL;
		if (is_log) {
			cal_mllog_run run;
			nread++;
			rc = cal_mllog_parse_buf(&run, names[i], buf, blen, target_top1, strict, errs);
			d->nbad += run.nbad;
			if (rc == 0) {
				cal_data_add_mllog(d, &run);
				if (!isfinite(run.epochs) && errs)
					fprintf(errs, "%s: run did not reach top-1 %.3f (status '%s'): no epochs to target\n",
						names[i], run.target_top1, run.status);
			}
			cal_mllog_run_free(&run);
		} else {
			d->nskipped++;
		}
		free(buf);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	/* an empty folder or one of other files is a wrong name, not zero measurements */
	if (rc == 0 && nread == 0)
		rc = err_set("%s: no measurement CSV (*.csv) or MLLOG log (:::MLLOG lines) in this directory", dir);
	return rc;
}

int cal_data_load_builtin(cal_data *d, FILE *errs)
{
	for (int i = 0; i < cal_refdata_count; i++) {
		const cal_refdata_file *f = &cal_refdata[i];
		/* throughput, all-reduce, pipeline and convergence tables; README and notes are not data */
		size_t len = strlen(f->name);
		if (len < 4 || strcmp(f->name + len - 4, ".csv") != 0)
			continue;
		/* phase tables (cal_phases.c) are not measurements of a model quantity; cal_phases_builtin */
		if (len > 11 && strcmp(f->name + len - 11, "_phases.csv") == 0)
			continue;
		/* the stacks' one-GPU runs: points of the measurement tables they cite, listed again by stack
		 * (cal_one_gpu_runs) */
		if (strcmp(f->name, "one_gpu_runs.csv") == 0)
			continue;
		char *name = xasprintf("refdata/%s", f->name);
		int rc = cal_data_load_csv_buf(d, name, (const char *)f->data, f->len_B, true, errs);
		free(name);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* True when point p matches field=value. Fields that only throughput points carry match every point
 * of another kind. */
static bool point_match(const cal_point *p, const char *field, const char *value)
{
	char *end;
	double v = strtod(value, &end);
	bool num = *value && *end == '\0';
	if (strcmp(field, "kind") == 0)
		return strcmp(cal_kind_name(p->kind), value) == 0;
	if (strcmp(field, "source") == 0)
		return strcmp(p->source, value) == 0;
	if (strcmp(field, "file") == 0)
		return strstr(p->file, value) != NULL;
	if (strcmp(field, "machine") == 0)
		return strcasecmp(p->machine, value) == 0;
	if (p->kind != CAL_THROUGHPUT && !p->step_grads)   /* a run's in-step all-reduce matches as its run */
		return true;
	if (strcmp(field, "gpu") == 0)
		return strcasecmp(p->gpu, value) == 0;
	if (strcmp(field, "intra") == 0)
		return strcmp(p->intra, value) == 0;
	if (strcmp(field, "inter") == 0)
		return strcmp(p->inter, value) == 0;
	if (!num)
		return false;
	if (strcmp(field, "gpus") == 0)
		return p->gpus == v;
	if (strcmp(field, "nodes") == 0)
		return p->nodes == v;
	if (strcmp(field, "gpus_per_node") == 0)
		return p->gpus_per_node == v;
	if (strcmp(field, "batch_per_gpu") == 0)
		return p->batch_per_gpu == v;
	return false;
}

int cal_data_filter(cal_data *d, const char *where)
{
	static const char *const fields[] = { "gpus", "nodes", "gpus_per_node", "batch_per_gpu", "machine", "gpu",
					      "intra", "inter", "kind", "source", "file", NULL };
	char *w = xstrdup(where);
	int nconds = 0;
	char *f[16], *v[16];
	bool neg[16];
	for (char *save = NULL, *tok = strtok_r(w, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq || nconds == 16) {
			free(w);
			return err_set("--where '%s': expected field=value or field!=value, comma-separated (at most 16)", where);
		}
		bool negate = eq > tok && eq[-1] == '!';
		if (negate)
			eq[-1] = '\0';
		*eq = '\0';
		neg[nconds] = negate;
		bool known = false;
		for (int k = 0; fields[k]; k++)
			known |= strcmp(fields[k], tok) == 0;
		if (!known) {
			int rc = err_set("--where: unknown field '%s' (gpus, nodes, gpus_per_node, batch_per_gpu, "
					 "machine, gpu, intra, inter, kind, source, file)", tok);
			free(w);
			return rc;
		}
		const char *val = eq + 1;
		char *end;
		bool numeric = strcmp(tok, "gpus") == 0 || strcmp(tok, "nodes") == 0 || strcmp(tok, "gpus_per_node") == 0 ||
			       strcmp(tok, "batch_per_gpu") == 0;
		if (!*val || (numeric && (strtod(val, &end), *end != '\0'))) {
			int rc = err_set("--where: %s needs a %s value, found '%s'", tok, numeric ? "numeric" : "non-empty", val);
			free(w);
			return rc;
		}
		f[nconds] = tok;
		v[nconds++] = eq + 1;
	}
	int keep = 0, *moved = xmalloc((size_t)(d->n > 0 ? d->n : 1) * sizeof *moved);
	for (int i = 0; i < d->n; i++) {
		bool ok = true;
		for (int c = 0; c < nconds && ok; c++)
		{
			/* a throughput-only field does not filter other kinds, negated or not; a run's in-step
			 * all-reduce is part of the run and goes where the run goes */
			bool applies = d->pts[i].kind == CAL_THROUGHPUT || d->pts[i].step_grads || strcmp(f[c], "kind") == 0 ||
				       strcmp(f[c], "source") == 0 || strcmp(f[c], "file") == 0 || strcmp(f[c], "machine") == 0;
			ok = !applies || point_match(&d->pts[i], f[c], v[c]) != neg[c];
		}
		moved[i] = ok ? keep : -1;
		if (ok)
			d->pts[keep++] = d->pts[i];
		else
			point_free(&d->pts[i]);
	}
	for (int i = 0; i < keep; i++)
		if (d->pts[i].step_ar >= 0)
			d->pts[i].step_ar = moved[d->pts[i].step_ar];
	d->n = keep;
	free(moved);
	free(w);
	return 0;
}

void cal_data_canonical(cal_data *d, const hw_db *db)
{
	if (!db)
		return;
	for (int i = 0; i < d->n; i++) {
		cal_point *p = &d->pts[i];
		const hw_system *s = p->machine[0] ? hw_system_find(db, p->machine) : NULL;
		if (s && strcmp(s->id, p->machine) != 0) {
			free(p->machine);
			p->machine = xstrdup(s->id);
		}
		const hw_gpu *g = p->kind == CAL_THROUGHPUT && p->gpu[0] ? hw_gpu_find(db, p->gpu) : NULL;
		if (g && strcmp(g->id, p->gpu) != 0) {
			free(p->gpu);
			p->gpu = xstrdup(g->id);
		}
	}
}
