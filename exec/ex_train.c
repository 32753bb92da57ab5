/* scaleplan-train: real ResNet-50 v1.5 training on one GPU (cuDNN convolutions, cuBLAS classifier,
 * own kernels for batch norm, pooling, loss and optimizer). Writes MLPerf-style :::MLLOG lines on
 * stdout, a measurement CSV (docs/design.md (measurement CSV)) and a summary table.
 * Exit codes: 0 ok, 1 bad input (options, data files, a batch that does not fit), 2 environment.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "exec/data/ex_data.h"
#include "exec/ex_internal.h"
#include "exec/ex_mllog.h"
/* what a build lacks has its own file (exec/module.mk): ex_dist_none.c without MPI or NCCL (one process on
 * GPU 0), ex_jpeg_gpu_none.c without nvJPEG (--data-path jpeg-cpu only) */
#include "exec/ex_ckpt.h"
#include "exec/ex_dist.h"
#include "exec/ex_jpeg_gpu.h"

#ifndef EX_GIT_SHA
#define EX_GIT_SHA "unknown"
#endif

typedef struct ex_args {
	const char *data, *data_dir, *csv, *run_id, *machine, *dump_dir;
	const char *mllog_org, *mllog_platform; /* --mllog-org, --mllog-platform: submission_org/_platform */
	int batch, image_size, classes, epochs, iters, warmup_iters, warmup_epochs;
	ex_prec prec;
	const char *prec_name;
	float lr, momentum, wd, smoothing, target_top1, lars_eta, end_lr;
	int sched;
	bool lars, bn_wd, graph, quiet, profile;
	long seed;
	size_t ws_B;
	bool folder;          /* --data DIR: a JPEG folder (ex_input.c) */
	bool conv_legacy;     /* --conv-api legacy: no cuDNN graph-API plans */
	int stem;             /* --stem: 1 + ex_stem (0: the engine's default) */
	int data_threads;     /* --data-threads: decode threads per loader (jpeg-gpu: reader threads) */
	bool data_gpu;        /* --data-path jpeg-gpu: nvJPEG decodes, the threads only read (ex_jpeg_gpu.c) */
	bool set_threads;
	const char *mk_dir;   /* --make-jpeg-folder DIR: write an ImageNet-like folder and exit */
	long mk_images;       /* --images N: its training images */
	float crop_scale_min; /* --crop-scale-min: RandomResizedCrop smallest area */
	double data_timeout_s; /* --data-timeout: jpeg-gpu's stall watch (ex_input.c) */
	double baseline_img_s; /* --baseline-img-s: 1-GPU img/s for scaling_eff (data-parallel runs) */
	ex_dist_opts dist;    /* --nccl-mode ... (ex_dist_opt_set) */
	ex_ckpt_policy ck;    /* --ckpt-dir ... (ex_ckpt_opt_set) */
} ex_args;

static int g_rank; /* data-parallel rank: only rank 0 prints MLLOG lines, progress and the summary */

static double t_origin_s;

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* :::MLLOG lines (exec/ex_mllog.c; the compliance checker's format). Only rank 0 writes them. */
static void mllog(ex_mllog_kind kind, const char *key, const char *value, int epoch, int line)
{
	ex_mllog m = {.out = g_rank == 0 ? stdout : NULL, .src_file = "exec/ex_train.c"};
	ex_mllog_event(&m, kind, key, value, epoch, NULL, line);
}
#define MLLOG_POINT(k, v) mllog(EX_MLLOG_POINT, k, v, -1, __LINE__)
/* run_stop carries the run's status ("success" or "aborted") in its metadata, as the checker asks */
static void run_stop(const char *status, int line)
{
	ex_mllog m = {.out = g_rank == 0 ? stdout : NULL, .src_file = "exec/ex_train.c"};
	ex_mllog_event(&m, EX_MLLOG_END, "run_stop", "null", -1, status, line);
}
#define MLLOG_EPOCH(t, k, v, e) mllog(t, k, v, e, __LINE__)

static void usage(FILE *f)
{
	fputs("usage: scaleplan-train --data synthetic|fashion-mnist [options]\n"
		"  --data D              synthetic (ImageNet-shaped, on the GPU) | fashion-mnist (default synthetic)\n"
		"  --data-dir DIR        Fashion-MNIST IDX files (default " EX_IDX_FASHION_DIR ")\n"
		"  --data DIR            an ImageNet-layout JPEG folder: DIR/train/<class>/*.JPEG, DIR/val/<class>/*.JPEG\n"
		"                        (classes from the folders, eval on val/ every epoch, --epochs/--target-top1 apply)\n"
		"  --data-path P         jpeg-gpu (nvJPEG decodes on the GPU, threads only read files) | jpeg-cpu\n"
		"                        (libjpeg-turbo on the CPU); default ", f);
	fputs(ex_gjpeg_check() == 0 ? "jpeg-gpu\n" : "jpeg-cpu (this build has no nvJPEG)\n", f);
	fputs("  --data-threads N      jpeg-cpu: decode threads (default: online CPUs); jpeg-gpu: reader threads (default 4)\n"
		"  --crop-scale-min X    RandomResizedCrop smallest area fraction (default 0.08)\n"
		"  --data-timeout S      jpeg-gpu: when no batch reaches the step for S seconds, end the job (exit 2) with\n"
		"                        a report naming the rank and where each thread was (default 60; 0: wait for ever)\n"
		"  --make-jpeg-folder DIR --images N   write an ImageNet-like folder (--classes, default 1,000; photo-like\n"
		"                        content, ImageNet-like sizes; N train + N/10 val JPEGs, --data-threads writers), exit\n"
		"  --batch-per-gpu B     images per step (default 256)\n"
		"  --precision P         bf16 | fp16 | tf32 | fp32 (default bf16)\n"
		"  --image-size S        input side in pixels (default 224; fashion-mnist 96)\n"
		"  --classes C           classifier outputs (default 1000; fashion-mnist 10)\n"
		"  --iters N             synthetic: timed steps (default 100)\n"
		"  --warmup-iters N      synthetic: untimed steps first (default 20)\n"
		"  --epochs E            fashion-mnist: epochs (default 10)\n"
		"  --target-top1 A       stop when test top-1 >= A (0..1; default 0 = run all epochs)\n"
		"  --lr X                peak learning rate (default 0.1; fashion-mnist 0.2)\n"
		"  --end-lr X            final learning rate (default 0)\n"
		"  --lr-schedule S       cosine | step | poly (default cosine)\n"
		"  --warmup-epochs E     linear warm-up (default 1 for fashion-mnist, 0 synthetic)\n"
		"  --momentum X          (default 0.9)    --weight-decay X (default 5e-5; fashion-mnist 5e-4)\n"
		"  --no-bn-weight-decay  no weight decay on BN parameters and biases\n"
		"  --label-smoothing X   (default 0.1)\n"
		"  --lars                LARS (MLPerf) instead of plain SGD;  --lars-eta X (default 0.001)\n"
		"  --no-graph            do not capture the step in a CUDA graph\n"
		"  --conv-api A          graph | legacy: convolutions through cuDNN graph-API plans autotuned per shape\n"
		"                        (bf16/fp16; a shape keeps the legacy call where that is faster; default graph)\n"
		"  --stem L              how the 7x7 stride-2 stem convolution on 3 channels runs (the same result):\n"
		"                        plain, pad8 (image padded to 8 channels), s2d (a stride-1 4x4 convolution over\n"
		"                        2x2 pixel blocks of 16 channels; default)\n"
		"  --csv PATH            measurement CSV (default: none)\n"
		"  --run-id ID  --machine NAME   labels for the CSV\n"
		"  --seed N              (default 1)\n"
		"  --workspace-mb N      cuDNN workspace limit when timing algorithms (default 1024)\n"
		"  --dump-step DIR       write weights, input, logits, loss and gradients of one step (tests)\n"
		"  --profile-ops         synthetic: print the time of each kind of layer (5 synchronised steps)\n"
		"  --quiet               no progress bar\n"
		"  --mllog-org NAME      MLLOG submission_org (default scaleplan)\n"
		"  --mllog-platform NAME MLLOG submission_platform (default <ranks>x<GPU name>)\n"
		"data-parallel (one process per GPU: mpirun -np N scaleplan-train ..., or RANK/WORLD_SIZE/LOCAL_RANK):\n"
		"  --baseline-img-s X    1-GPU img/s of the same setup, for the CSV's scaling_eff\n", f);
	ex_dist_help(f);
	fputs(EX_CKPT_HELP
	      "  --engine KEY=VALUE[,KEY=VALUE...]   the engine's tuning settings, for measuring against the\n"
	      "                        defaults (bench/NOTES.md); keys:\n", f);
	ex_settings_help(f);
}

/* The cores this process may run on (its affinity mask: a launcher that pins each rank to its own share of
 * the host's cores, bench/launch_local.sh, or taskset), not all the host's online cores, so that two ranks
 * of one host do not each start a decode thread per core of the whole host. */
static int own_cores(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 4;
}

/* Options whose defaults another one changes (--data fashion-mnist, a folder): those the user gave. */
typedef struct args_set {
	bool lr, wd, size, cls, warm;
} args_set;

static void args_defaults(ex_args *a)
{
	memset(a, 0, sizeof(*a));
	a->data = "synthetic";
	a->batch = 256;
	a->prec = EX_PREC_BF16;
	a->prec_name = "bf16";
	a->image_size = 224;
	a->classes = 1000;
	a->iters = 100;
	a->warmup_iters = 20;
	a->epochs = 10;
	a->lr = 0.1f;
	a->momentum = 0.9f;
	a->wd = 5e-5f;
	a->smoothing = 0.1f;
	a->lars_eta = 0.001f;
	a->bn_wd = true;
	a->graph = true;
	a->seed = 1;
	a->run_id = "run";
	a->machine = "local";
	a->ws_B = 1024UL << 20;
	a->data_timeout_s = 60; /* far beyond a step or an evaluation pass (a few seconds), short enough that a
				  * stopped job gives its GPUs back within a minute */
	a->data_threads = own_cores();
	a->data_gpu = ex_gjpeg_check() == 0; /* jpeg-gpu where the build has nvJPEG */
	ex_dist_opts_default(&a->dist);
	ex_ckpt_policy_init(&a->ck);
}

/* The options that take a name (precision, schedule, data path, engine settings, convolution API, stem). 1: c is
 * not one of them. */
static int parse_choice(ex_args *a, int c)
{
	switch (c) {
	case 'p':
		a->prec_name = optarg;
		if (!strcmp(optarg, "bf16")) a->prec = EX_PREC_BF16;
		else if (!strcmp(optarg, "fp16")) a->prec = EX_PREC_FP16;
		else if (!strcmp(optarg, "tf32")) a->prec = EX_PREC_TF32;
		else if (!strcmp(optarg, "fp32")) a->prec = EX_PREC_FP32;
		else {
			fprintf(stderr, "scaleplan-train: --precision: expected bf16, fp16, tf32 or fp32, got '%s'\n", optarg);
			return ERR_INPUT;
		}
		break;
	case 'S':
		if (!strcmp(optarg, "cosine")) a->sched = EX_SCHED_COSINE;
		else if (!strcmp(optarg, "step")) a->sched = EX_SCHED_STEP;
		else if (!strcmp(optarg, "poly")) a->sched = EX_SCHED_POLY;
		else {
			fprintf(stderr, "scaleplan-train: --lr-schedule: expected cosine, step or poly, got '%s'\n", optarg);
			return ERR_INPUT;
		}
		break;
	case 1008:
		if (strcmp(optarg, "jpeg-gpu") && strcmp(optarg, "jpeg-cpu")) {
			fprintf(stderr, "scaleplan-train: --data-path: expected jpeg-gpu or jpeg-cpu, got '%s'\n", optarg);
			return ERR_INPUT;
		}
		a->data_gpu = !strcmp(optarg, "jpeg-gpu");
		if (a->data_gpu && ex_gjpeg_check()) {
			fprintf(stderr, "scaleplan-train: %s\n", err_msg());
			return ERR_INPUT;
		}
		break;
	case 1012:
		if (ex_settings_parse(&ex_set, optarg)) {
			fprintf(stderr, "scaleplan-train: %s\n", err_msg());
			return ERR_INPUT;
		}
		break;
	case 1006:
		if (strcmp(optarg, "graph") && strcmp(optarg, "legacy")) {
			fprintf(stderr, "scaleplan-train: --conv-api: expected graph or legacy, got '%s'\n", optarg);
			return ERR_INPUT;
		}
		a->conv_legacy = !strcmp(optarg, "legacy");
		break;
	case 1007:
		a->stem = !strcmp(optarg, "plain") ? 1 + EX_STEM_PLAIN : !strcmp(optarg, "pad8") ? 1 + EX_STEM_PAD8
			: !strcmp(optarg, "s2d") ? 1 + EX_STEM_S2D : 0;
		if (!a->stem) {
			fprintf(stderr, "scaleplan-train: --stem: expected plain, pad8 or s2d, got '%s'\n", optarg);
			return ERR_INPUT;
		}
		break;
	default: return 1;
	}
	return 0;
}

#define NUM(dst, lo, hi)                                                                                     \
	do {                                                                                                 \
		double v_ = strtod(optarg, &end);                                                            \
		if (end == optarg || *end || !(v_ >= (lo) && v_ <= (hi))) {                                  \
			fprintf(stderr, "scaleplan-train: --%s: expected a number in [%g, %g], got '%s'\n",  \
				name, (double)(lo), (double)(hi), optarg);                                   \
			return ERR_INPUT;                                                                    \
		}                                                                                            \
		dst = v_;                                                                                    \
	} while (0)

/* One option c (getopt_long's value, name its long name) into a. */
static int parse_opt(ex_args *a, int c, const char *name, args_set *set)
{
	char *end;
	int rc = parse_choice(a, c);
	if (rc != 1)
		return rc;
	switch (c) {
	case 'd': a->data = optarg; break;
	case 'D': a->data_dir = optarg; break;
	case 'b': NUM(a->batch, 1, 65536); break;
	case 's': NUM(a->image_size, 32, 1024); set->size = true; break;
	case 'c': NUM(a->classes, 2, 100000); set->cls = true; break;
	case 'i': NUM(a->iters, 1, 1e9); break;
	case 'w': NUM(a->warmup_iters, 0, 1e9); break;
	case 'e': NUM(a->epochs, 1, 100000); break;
	case 't': NUM(a->target_top1, 0, 1); break;
	case 'l': NUM(a->lr, 0, 1000); set->lr = true; break;
	case 'L': NUM(a->end_lr, 0, 1000); break;
	case 'W': NUM(a->warmup_epochs, 0, 1000); set->warm = true; break;
	case 'm': NUM(a->momentum, 0, 1); break;
	case 'y': NUM(a->wd, 0, 1); set->wd = true; break;
	case 'B': a->bn_wd = false; break;
	case 'x': NUM(a->smoothing, 0, 1); break;
	case 'r': a->lars = true; break;
	case 'R': NUM(a->lars_eta, 0, 1); break;
	case 'G': a->graph = false; break;
	case 'o': a->csv = optarg; break;
	case 'I': a->run_id = optarg; break;
	case 'M': a->machine = optarg; break;
	case 'z': NUM(a->seed, 0, 1e15); break;
	case 'K': { double mb; NUM(mb, 1, 1 << 20); a->ws_B = (size_t)(mb * 1048576.0); break; }
	case 'P': a->dump_dir = optarg; break;
	case 'q': a->quiet = true; break;
	case 'Q': a->profile = true; break;
	case 1001: NUM(a->data_threads, 1, 1024); a->set_threads = true; break;
	case 1009: a->mk_dir = optarg; break;
	case 1010: NUM(a->mk_images, 1, 1e8); break;
	case 1002: NUM(a->crop_scale_min, 0.01, 1); break;
	case 1011: NUM(a->data_timeout_s, 0, 1e6); break;
	case 1003: NUM(a->baseline_img_s, 0, 1e9); break;
	case 1004: a->mllog_org = optarg; break;
	case 1005: a->mllog_platform = optarg; break;
	case 0: {
		int r = ex_ckpt_opt_set(&a->ck, name, optarg);
		if (r == 1)
			r = ex_dist_opt_set(&a->dist, name, optarg);
		if (r != 0) {
			fprintf(stderr, "scaleplan-train: %s\n", r == 1 ? "option not handled" : err_msg());
			return ERR_INPUT;
		}
		break;
	}
	case 'h': usage(stdout); exit(0);
	default: usage(stderr); return ERR_INPUT;
	}
	return 0;
}
#undef NUM

/* What the data set changes in the defaults the user left (Fashion-MNIST's size, classes and schedule; a
 * folder's readers and classes); a --data that is none of them is refused. */
static int args_finish(ex_args *a, const args_set *set)
{
	if (!strcmp(a->data, "fashion-mnist")) {
		if (!set->size) a->image_size = 96;
		if (!set->cls) a->classes = 10;
		if (!set->lr) a->lr = 0.2f;
		if (!set->wd) a->wd = 5e-4f;
		if (!set->warm) a->warmup_epochs = 1;
	} else if (strcmp(a->data, "synthetic")) {
		struct stat sb;
		if (stat(a->data, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			fprintf(stderr, "scaleplan-train: --data: expected synthetic, fashion-mnist or a folder with train/ "
					"and val/, got '%s' (no such folder)\n", a->data);
			return ERR_INPUT;
		}
		a->folder = true;
		if (a->data_gpu && !a->set_threads) /* readers only: a few keep up with the GPU's decode; no
						     * more than the cores this rank was given */
			a->data_threads = own_cores() < 4 ? own_cores() : 4;
		if (!set->cls) a->classes = 0; /* from the folder */
		if (!set->warm) a->warmup_epochs = 1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, ex_args *a)
{
	static const struct option opts[] = {
		{"data", 1, 0, 'd'}, {"data-dir", 1, 0, 'D'}, {"batch-per-gpu", 1, 0, 'b'}, {"precision", 1, 0, 'p'},
		{"image-size", 1, 0, 's'}, {"classes", 1, 0, 'c'}, {"iters", 1, 0, 'i'}, {"warmup-iters", 1, 0, 'w'},
		{"epochs", 1, 0, 'e'}, {"target-top1", 1, 0, 't'}, {"lr", 1, 0, 'l'}, {"end-lr", 1, 0, 'L'},
		{"lr-schedule", 1, 0, 'S'}, {"warmup-epochs", 1, 0, 'W'}, {"momentum", 1, 0, 'm'},
		{"weight-decay", 1, 0, 'y'}, {"no-bn-weight-decay", 0, 0, 'B'}, {"label-smoothing", 1, 0, 'x'},
		{"lars", 0, 0, 'r'}, {"lars-eta", 1, 0, 'R'}, {"no-graph", 0, 0, 'G'}, {"csv", 1, 0, 'o'},
		{"run-id", 1, 0, 'I'}, {"machine", 1, 0, 'M'}, {"seed", 1, 0, 'z'}, {"workspace-mb", 1, 0, 'K'},
		{"dump-step", 1, 0, 'P'}, {"profile-ops", 0, 0, 'Q'}, {"quiet", 0, 0, 'q'}, {"help", 0, 0, 'h'},
		{"data-threads", 1, 0, 1001}, {"crop-scale-min", 1, 0, 1002}, {"baseline-img-s", 1, 0, 1003},
		{"mllog-org", 1, 0, 1004}, {"mllog-platform", 1, 0, 1005}, {"conv-api", 1, 0, 1006},
		{"stem", 1, 0, 1007}, {"data-path", 1, 0, 1008},
		{"make-jpeg-folder", 1, 0, 1009}, {"images", 1, 0, 1010}, {"data-timeout", 1, 0, 1011}, {"engine", 1, 0, 1012},
		/* val 0: handed to ex_ckpt_opt_set, then ex_dist_opt_set */
		{"nccl-mode", 1, 0, 0}, {"emulate-nodes", 1, 0, 0}, {"grad-precision", 1, 0, 0}, {"bucket-mb", 1, 0, 0},
		{"nccl-timeout", 1, 0, 0}, {"no-overlap", 0, 0, 0}, {"ckpt-dir", 1, 0, 0}, {"ckpt-every-epochs", 1, 0, 0},
		{"ckpt-every-min", 1, 0, 0}, {"resume", 0, 0, 0}, {"first-bucket-mb", 1, 0, 0}, {"shrink-buckets", 0, 0, 0},
		{"comm-ctas", 1, 0, 0}, {"comm-priority", 1, 0, 0},
		{0, 0, 0, 0}};
	args_set set = {0};
	args_defaults(a);
	for (;;) {
		int idx = -1;
		int c = getopt_long(argc, argv, "h", opts, &idx);
		if (c == -1)
			break;
		const char *typed;
		int len;
		if (idx >= 0 && opt_shortened(argc, argv, opts[idx].name, &typed, &len)) { /* full names only */
			fprintf(stderr, "scaleplan-train: --%.*s: no such option (options are taken by their full name "
					"only: did you mean --%s?)\n", len, typed, opts[idx].name);
			return ERR_INPUT;
		}
		int r = parse_opt(a, c, idx >= 0 ? opts[idx].name : "", &set);
		if (r)
			return r;
	}
	if (optind < argc) {
		fprintf(stderr, "scaleplan-train: unexpected argument '%s' (see --help)\n", argv[optind]);
		return ERR_INPUT;
	}
	int r = args_finish(a, &set);
	if (r == 0 && a->csv && out_check_file(a->csv)) { /* before the GPU, as the planner checks its outputs */
		fprintf(stderr, "scaleplan-train: --csv %s\n", err_msg());
		return ERR_INPUT;
	}
	return r;
}

/* --make-jpeg-folder DIR --images N (exec/data/mkimagenet.c); needs no GPU. */
static int make_folder(const ex_args *a)
{
	ex_mkin_config c;
	ex_mkin_stats st;
	double t0 = time_now_s();
	ex_mkin_config_init(&c);
	c.dir = a->mk_dir;
	c.train = a->mk_images > 0 ? a->mk_images : c.train;
	c.threads = a->data_threads;
	c.seed = (uint64_t)a->seed;
	c.classes = a->classes;
	if (ex_make_imagenet_like(&c, &st) < 0) {
		fprintf(stderr, "scaleplan-train: --make-jpeg-folder: %s\n", err_msg());
		return EXIT_INPUT;
	}
	printf("scaleplan-train: %s: %ld JPEGs (%ld train, %ld val) in %d classes, mean %.0f x %.0f px, mean %.1f KB, "
	       "quality %d, %.1f s\n", c.dir, st.images, c.train, st.images - c.train, c.classes, st.sum_w / st.images,
	       st.sum_h / st.images, st.bytes / st.images / 1000, c.quality, time_now_s() - t0);
	return 0;
}

/* ---- measurement CSV ---- */
typedef struct ex_row {
	int epoch;          /* -1: the run row */
	long iters;
	double img_s, iter_s, fwd_s, bwd_s, opt_s, data_wait_s, loss, top1, time_s, lr;
	double glob_img_s;          /* all ranks together (= img_s with one process) */
	double allreduce_s, exposed_s; /* per iteration, this rank (ex_dist_times_sample) */
} ex_row;

/* Every rank writes its own rows; with more than one rank, rank r > 0 writes out.rank<r>.csv for
 * --csv out.csv (rank 0 keeps the name). */
static void csv_rows(const ex_args *a, const ex_row *rows, int nrows, double peak_B, const char *gpu, ex_dist *d)
{
	int n = ex_dist_size(d);
	char *path = NULL;
	static const char *cols[] = {"source", "run_id", "machine", "gpu", "nodes", "gpus_per_node", "gpus", "nccl_mode",
				     "batch_per_gpu", "global_batch", "precision", "data", "data_threads", "epoch", "iters",
				     "throughput_img_s", "per_gpu_img_s", "scaling_eff", "iter_s", "fwd_s", "bwd_s", "opt_s",
				     "allreduce_s", "comm_exposed_s", "data_wait_s", "loss", "top1", "peak_mem_B", "git_sha",
				     "image_size", "time_s", "lr"};
	csvw *w;
	int i, j;
	if (!a->csv)
		return;
	if (g_rank > 0) {
		size_t len = strlen(a->csv);
		bool ext = len > 4 && !strcmp(a->csv + len - 4, ".csv");
		path = xasprintf("%.*s.rank%d%s", (int)(ext ? len - 4 : len), a->csv, g_rank, ext ? ".csv" : "");
	}
	w = csvw_open(path ? path : a->csv);
	if (!w) {
		fprintf(stderr, "scaleplan-train: %s: cannot write the CSV: %s\n", path ? path : a->csv, err_msg());
		free(path);
		return;
	}
	for (j = 0; j < (int)(sizeof(cols) / sizeof(cols[0])); j++)
		csvw_text(w, cols[j]);
	csvw_end_row(w);
	for (i = 0; i < nrows; i++) {
		const ex_row *r = &rows[i];
		csvw_text(w, "exec");
		csvw_text(w, a->run_id);
		csvw_text(w, a->machine);
		csvw_text(w, gpu);
		csvw_int(w, ex_dist_nodes(d));
		csvw_int(w, ex_dist_gpus_per_node(d));
		csvw_int(w, n);
		csvw_text(w, n > 1 ? ex_dist_mode_label(d) : "none");
		csvw_int(w, a->batch);
		csvw_int(w, (long)a->batch * n);
		csvw_text(w, a->prec_name);
		csvw_text(w, a->folder ? (a->data_gpu ? "jpeg-gpu" : "jpeg-cpu") : a->data);
		csvw_int(w, a->folder ? a->data_threads : 0);
		if (r->epoch < 0)
			csvw_text(w, "");
		else
			csvw_int(w, r->epoch);
		csvw_int(w, r->iters);
		csvw_num(w, r->glob_img_s, 6);
		csvw_num(w, r->glob_img_s / n, 6);
		if (n == 1)
			csvw_num(w, 1.0, 3);
		else if (a->baseline_img_s > 0)
			csvw_num(w, r->glob_img_s / (n * a->baseline_img_s), 4);
		else
			csvw_text(w, "");
		csvw_num(w, r->iter_s, 6);
		csvw_num(w, r->fwd_s, 6);
		csvw_num(w, r->bwd_s, 6);
		csvw_num(w, r->opt_s, 6);
		csvw_num(w, r->allreduce_s, 6);
		csvw_num(w, r->exposed_s, 6);
		csvw_num(w, r->data_wait_s, 6);
		csvw_num(w, r->loss, 6);
		csvw_num(w, r->top1, 6);
		csvw_num(w, peak_B, 12);
		csvw_text(w, getenv("SCALEPLAN_GIT_SHA") ? getenv("SCALEPLAN_GIT_SHA") : EX_GIT_SHA);
		csvw_int(w, a->image_size);
		csvw_num(w, r->time_s, 6);
		csvw_num(w, r->lr, 6);
		csvw_end_row(w);
	}
	if (csvw_close(w) < 0)
		fprintf(stderr, "scaleplan-train: %s\n", err_msg());
	free(path);
}

/* Median over 5 profiled (non-graph) steps of the forward, backward and optimizer phases. */
static void phase_times(ex_net *net, double *fwd, double *bwd, double *opt, ex_dist *d, ex_dist_times *tm)
{
	float f[5], b[5], o[5], tmp;
	int i, j;
	for (i = 0; i < 5; i++) {
		ex_dist_heartbeat(d);
		ex_net_train_step(net, true);
		ex_dist_sync(d, net->stream);
		ex_dist_times_sample(d, tm);
		CUDA_CHECK(cudaEventElapsedTime(&f[i], net->ev[0], net->ev[1]));
		CUDA_CHECK(cudaEventElapsedTime(&b[i], net->ev[1], net->ev[2]));
		CUDA_CHECK(cudaEventElapsedTime(&o[i], net->ev[2], net->ev[3]));
	}
	for (i = 0; i < 5; i++)
		for (j = i + 1; j < 5; j++) {
			if (f[j] < f[i]) { tmp = f[i]; f[i] = f[j]; f[j] = tmp; }
			if (b[j] < b[i]) { tmp = b[i]; b[i] = b[j]; b[j] = tmp; }
			if (o[j] < o[i]) { tmp = o[i]; o[i] = o[j]; o[j] = tmp; }
		}
	*fwd = f[2] / 1e3;
	*bwd = b[2] / 1e3;
	*opt = o[2] / 1e3;
}

static void step(ex_net *net, bool graph)
{
	if (graph)
		ex_net_train_step_graph(net);
	else
		ex_net_train_step(net, false);
}

/* --dump-step: files for tests/gpu/torch_step.py (float32 little-endian, torchvision layouts). */
static int dump_step(ex_net *net, const char *dir, const ex_args *a)
{
	size_t n = net->p.n, i;
	float *w = xmalloc(n * 4), *g = xmalloc(n * 4), *conv = xmalloc(n * 4);
	size_t img = (size_t)net->batch * net->hw * net->hw * 3;
	float *x = xmalloc(img * 4), *dx;
	int *lab = xmalloc(net->batch * sizeof(int));
	float *logits = xmalloc((size_t)net->batch * net->classes * 4);
	ex_dev_state s;
	char path[4096];
	FILE *f;
	int t;
	float scale_used = 1.f;

	mkdir(dir, 0777);
	CUDA_CHECK(cudaMemcpy(w, net->p.w32, n * 4, cudaMemcpyDeviceToHost));
	CUDA_CHECK(cudaMalloc((void **)&dx, img * 4));
	ex_k_to_f32(net->dt, dx, ex_net_input(net), img, net->stream);
	CUDA_CHECK(cudaStreamSynchronize(net->stream));
	CUDA_CHECK(cudaMemcpy(x, dx, img * 4, cudaMemcpyDeviceToHost));
	cudaFree(dx);
	CUDA_CHECK(cudaMemcpy(lab, net->labels, net->batch * sizeof(int), cudaMemcpyDeviceToHost));
	/* fp16: as GradScaler, a step whose gradients overflow is skipped and the scale halved; dump the
	 * first step that did not overflow (the weights are unchanged by skipped steps) */
	for (t = 0; t < 16; t++) {
		ex_dev_state before;
		ex_net_take_stats(net, &before);
		ex_net_train_step(net, false);
		ex_net_take_stats(net, &s);
		scale_used = before.loss_scale;
		if (s.skipped == before.skipped)
			break;
	}
	CUDA_CHECK(cudaMemcpy(g, net->p.grad, n * 4, cudaMemcpyDeviceToHost));
	CUDA_CHECK(cudaMemcpy(logits, net->logits, (size_t)net->batch * net->classes * 4, cudaMemcpyDeviceToHost));
	/* conv weights/grads KRSC -> KCRS (PyTorch) */
	for (t = 0; t < net->nops; t++) {
		ex_op *op = &net->ops[t];
		float *bufs[2] = {w, g};
		int k;
		if (op->kind != EX_CONV)
			continue;
		for (k = 0; k < 2; k++) {
			float *b = bufs[k] + net->p.tensors[op->pw].off;
			int kk, cc, rr, ss, R = op->r, C = op->c;
			for (kk = 0; kk < op->k; kk++)
				for (rr = 0; rr < R; rr++)
					for (ss = 0; ss < R; ss++)
						for (cc = 0; cc < C; cc++)
							conv[((size_t)(kk * C + cc) * R + rr) * R + ss] =
								b[((size_t)(kk * R + rr) * R + ss) * C + cc];
			memcpy(b, conv, net->p.tensors[op->pw].n * 4);
		}
	}
	/* input NHWC -> NCHW */
	{
		float *xc = xmalloc(img * 4);
		int bb, hh, ww, cc, H = net->hw;
		for (bb = 0; bb < net->batch; bb++)
			for (hh = 0; hh < H; hh++)
				for (ww = 0; ww < H; ww++)
					for (cc = 0; cc < 3; cc++)
						xc[(((size_t)bb * 3 + cc) * H + hh) * H + ww] = x[(((size_t)bb * H + hh) * H + ww) * 3 + cc];
		free(x);
		x = xc;
	}
#define DUMP(name, ptr, bytes)                                                         \
	do {                                                                           \
		snprintf(path, sizeof(path), "%s/%s", dir, name);                      \
		if (file_write_atomic(path, ptr, bytes) < 0) {                         \
			fprintf(stderr, "scaleplan-train: %s: %s\n", path, err_msg()); \
			return ERR_ENV;                                                \
		}                                                                      \
	} while (0)
	DUMP("weights.f32", w, n * 4);
	DUMP("grads.f32", g, n * 4);
	DUMP("input.f32", x, img * 4);
	DUMP("labels.i32", lab, net->batch * sizeof(int));
	DUMP("logits.f32", logits, (size_t)net->batch * net->classes * 4);
	snprintf(path, sizeof(path), "%s/meta.txt", dir);
	f = fopen(path, "w");
	if (!f)
		return err_set("%s: cannot write", path), ERR_ENV;
	fprintf(f, "batch %d\nclasses %d\nimage %d\nprecision %s\nsmoothing %g\nloss %.9g\nloss_scale %g\n", net->batch,
		net->classes, net->hw, a->prec_name, a->smoothing, s.loss_sum / s.seen, scale_used);
	for (i = 0; i < (size_t)net->p.ntensors; i++)
		fprintf(f, "param %s %zu %zu\n", net->p.tensors[i].name, net->p.tensors[i].off, net->p.tensors[i].n);
	fclose(f);
	free(w);
	free(g);
	free(conv);
	free(x);
	free(lab);
	free(logits);
	return 0;
}

/* Everything a run carries from its set-up to its summary. */
typedef struct ex_run {
	ex_args a;
	ex_net net;
	ex_dist *d;
	ex_src *src;          /* --data DIR */
	struct cudaDeviceProp prop;
	ex_dist_times tm;
	int rank, world;
	size_t free0;         /* free device memory before the net (peak_B: what the run took of it) */
	ex_row *rows;
	int nrows;
	double peak_B;
	bool no_csv;          /* --dump-step: no measurement rows */
} ex_run;

/* Set-up, first part: the ranks (their boot) and the options, which all ranks must agree are good before any
 * GPU work (bad input: all ranks exit 1 together). EX_CONTINUE or the exit code. */
enum { EX_CONTINUE = -1 };
static int setup_args(ex_run *job, int argc, char **argv)
{
	ex_args *a = &job->a;
	ex_dist *d = NULL;
	int pr, rank;
	t_origin_s = time_now_s();
	if (ex_dist_boot(&d, &argc, &argv)) {
		fprintf(stderr, "scaleplan-train: %s\n", err_msg());
		return EXIT_ENV;
	}
	rank = job->rank = g_rank = ex_dist_rank(d);
	job->world = ex_dist_size(d);
	job->d = d;
	/* bad input is found on every rank before any GPU work; all ranks exit 1 together */
	pr = parse_args(argc, argv, a);
	if (pr == 0 && (ex_dist_opts_check(d, &a->dist) || ex_ckpt_policy_check(&a->ck))) {
		fprintf(stderr, "scaleplan-train: %s\n", err_msg());
		pr = ERR_INPUT;
	}
	if (!ex_dist_agree(d, pr == 0)) {
		if (rank == 0 && pr == 0)
			fprintf(stderr, "scaleplan-train: bad input on another rank\n");
		ex_dist_free(d);
		return EXIT_INPUT;
	}
	if (rank == 0 && !strcmp(a->data, "synthetic") && (a->ck.dir || a->ck.resume))
		fprintf(stderr, "scaleplan-train: warning: --ckpt-dir/--resume apply to epoch runs (fashion-mnist, --data DIR); "
				"ignored for synthetic data\n");
	if (a->mk_dir)
		return make_folder(a);
	/* only rank 0 prints MLLOG lines, progress and the summary; errors still reach stderr */
	if (rank != 0) {
		a->quiet = true;
		if (!freopen("/dev/null", "w", stdout))
			fprintf(stderr, "scaleplan-train: rank %d: cannot silence stdout\n", rank);
	}
	return EX_CONTINUE;
}

/* The GPU (a CUDA device, cuDNN 8 or newer), the ranks' communicator, the device's properties and free
 * memory. EX_CONTINUE or the exit code. */
static int setup_gpu(ex_run *job)
{
	ex_dist *d = job->d;
	int ndev = 0, rank = job->rank;
	cudaError_t ce;
	size_t tot;
	ce = cudaGetDeviceCount(&ndev);
	if (ce != cudaSuccess || ndev < 1) {
		fprintf(stderr, "scaleplan-train: no CUDA GPU available (%s); this program needs an NVIDIA GPU, its driver, "
				"cuDNN and cuBLAS\n",
			ce != cudaSuccess ? cudaGetErrorString(ce) : "0 devices");
		ex_dist_free(d);
		return EXIT_ENV;
	}
	if (cudnnGetVersion() < 8000) {
		fprintf(stderr, "scaleplan-train: cuDNN %zu is too old (need 8 or newer)\n", cudnnGetVersion());
		ex_dist_free(d);
		return EXIT_ENV;
	}
	if (ex_dist_start(d, &job->a.dist)) {
		fprintf(stderr, "scaleplan-train: rank %d: %s\n", rank, err_msg());
		return EXIT_ENV;
	}
	CUDA_CHECK(cudaGetDeviceProperties(&job->prop, ex_dist_device(d)));
	CUDA_CHECK(cudaFree(0));
	CUDA_CHECK(cudaMemGetInfo(&job->free0, &tot));

	return EX_CONTINUE;
}

/* --data DIR: the folder's source of batches (this rank's share), its classes. EX_CONTINUE or the exit code. */
static int setup_folder(ex_run *job)
{
	ex_args *a = &job->a;
	ex_src *src = NULL;
	int rank = job->rank, world = job->world;
	if (!a->folder)
		return EX_CONTINUE;
	{
		ex_src_cfg sc = {.dir = a->data, .batch = a->batch, .hw = a->image_size, .threads = a->data_threads,
				 .depth = 4, .rank = rank, .world = world, .seed = (uint64_t)a->seed,
				 .scale_min = a->crop_scale_min, .quiet = a->quiet, .gpu = a->data_gpu,
				 .stall_s = a->data_timeout_s};
		sc.dt = a->prec == EX_PREC_BF16 ? EX_BF16 : a->prec == EX_PREC_FP16 ? EX_F16 : EX_F32;
		int orc = ex_src_open(&src, &sc);
		if (orc < 0) { /* 1 for a bad folder, 2 for what the machine or build lacks (no nvJPEG) */
			fprintf(stderr, "scaleplan-train: %s\n", err_msg());
			return exit_code_of(orc);
		}
		if (a->classes == 0)
			a->classes = ex_src_classes(src);
		job->src = src;
		if (a->classes < ex_src_classes(src)) {
			fprintf(stderr, "scaleplan-train: --classes %d but %s has %d class folders\n", a->classes, a->data,
				ex_src_classes(src));
			ex_src_free(src);
			job->src = NULL;
			return EXIT_INPUT;
		}
	}
	return EX_CONTINUE;
}

/* The net's plan for the batch, precision and image size, refused where it does not fit the free memory; its
 * options (weight decay on batch norm, label smoothing, batch-norm constants, convolution API, stem).
 * EX_CONTINUE or the exit code. */
static int setup_net(ex_run *job)
{
	ex_args *a = &job->a;
	ex_net *net = &job->net;
	size_t fixed_B, per_B, free0 = job->free0;
	if (ex_net_plan(net, a->batch, a->classes, a->image_size, a->prec) < 0) {
		fprintf(stderr, "scaleplan-train: %s\n", err_msg());
		return EXIT_INPUT;
	}
	ex_net_mem(net, &fixed_B, &per_B);
	if (fixed_B + (size_t)a->batch * per_B > free0) {
		long fit = free0 > fixed_B ? (long)((free0 - fixed_B) / per_B) : 0;
		fprintf(stderr, "scaleplan-train: batch %d does not fit in GPU memory (%s, %.1f GiB free: needs about %.1f GiB); "
				"the largest batch that would fit at %dx%d %s is about %ld\n",
			a->batch, job->prop.name, free0 / 1073741824.0, (fixed_B + (double)a->batch * per_B) / 1073741824.0,
			a->image_size, a->image_size, a->prec_name, fit);
		ex_net_free(net);
		return EXIT_INPUT;
	}
	if (!a->bn_wd) {
		/* decay stays on conv/fc weights only (set in the plan) */
	} else {
		int i;
		for (i = 0; i < net->p.ntensors; i++)
			net->p.tensors[i].decay = true;
	}
	net->label_smoothing = a->smoothing;
	net->bn_momentum = 0.1f; /* PyTorch BatchNorm2d defaults */
	net->bn_eps = 1e-5f;
	net->conv_graph = !a->conv_legacy;
	if (a->stem)
		net->stem = (ex_stem)(a->stem - 1);

	return EX_CONTINUE;
}

/* MLLOG's submission lines, the weights (same seed: same on every rank), the gradients attached to the
 * communicator, the optimizer and its MLLOG lines. */
static void setup_init(ex_run *job)
{
	ex_args *a = &job->a;
	ex_net *net = &job->net;
	char buf[256];
	ex_dist *d = job->d;
	{
		ex_mllog m = {.out = g_rank == 0 ? stdout : NULL, .src_file = "exec/ex_train.c"};
		char platform[300];
		snprintf(platform, sizeof(platform), "%dx%s", job->world, job->prop.name);
		ex_mllog_submission sub = {.org = a->mllog_org, .platform = a->mllog_platform ? a->mllog_platform : platform,
					   .synthetic = !strcmp(a->data, "synthetic"), .global_batch = (long)a->batch * job->world};
		ex_mllog_submission_write(&m, &sub, __LINE__);
	}
	mllog(EX_MLLOG_START, "init_start", "null", -1, __LINE__);
	ex_net_init(net, (uint64_t)a->seed, a->ws_B, !a->quiet); /* same seed: same weights on every rank */
	if (ex_dist_attach(d, net->p.grad, EX_DIST_FP32, (long)net->p.n))
		ex_dist_fatal(d, EXIT_ENV, "%s", err_msg());
	ex_dist_hooks(d, &net->hooks); /* one rank: leaves them NULL */
	mllog(EX_MLLOG_END, "init_stop", "null", -1, __LINE__);

	ex_opt_cfg *o = &net->opt;
	o->momentum = a->momentum;
	o->weight_decay = a->wd;
	o->lars = a->lars;
	o->lars_eta = a->lars_eta;
	o->dynamic_scale = a->prec == EX_PREC_FP16;
	o->sched.kind = a->sched;
	o->sched.base_lr = a->lr;
	o->sched.end_lr = a->end_lr;
	o->sched.power = 2.f;
	o->sched.step_gamma = 0.1f;
	snprintf(buf, sizeof(buf), "%g", a->lr);
	MLLOG_POINT("opt_base_learning_rate", buf);
	snprintf(buf, sizeof(buf), "%g", a->wd);
	MLLOG_POINT("opt_weight_decay", buf);
	snprintf(buf, sizeof(buf), "\"%s\"", a->lars ? "lars" : "sgd");
	MLLOG_POINT("opt_name", buf);

}

/* Set-up: options (all ranks agree), the GPU, the input folder, the net's plan, memory check, weights and
 * the optimizer. EX_CONTINUE to go on, else the exit code (what it opened is closed again). */
static int run_setup(ex_run *job, int argc, char **argv)
{
	int rc = setup_args(job, argc, argv);
	if (rc == EX_CONTINUE)
		rc = setup_gpu(job);
	memset(&job->net, 0, sizeof(job->net));
	if (rc == EX_CONTINUE)
		rc = setup_folder(job);
	if (rc == EX_CONTINUE)
		rc = setup_net(job);
	if (rc == EX_CONTINUE)
		setup_init(job);
	return rc;
}

/* Synthetic data: warm-up, the phase times, the timed steps and their summary. */
static int run_synthetic(ex_run *job)
{
	ex_args *a = &job->a;
	ex_net *net = &job->net;
	ex_dist *d = job->d;
	int rank = job->rank, world = job->world;
	ex_opt_cfg *o = &net->opt;
	size_t tot, free1;
	char buf[256];
	double fwd, bwd, opt, t0, dt;
	float ms;
	ex_dev_state s;
	int i;
	progress pb;
	o->sched.warmup_steps = 0;
	o->sched.total_steps = a->warmup_iters + a->iters + 10;
	/* each rank its own batch (rank 0: as a single-GPU run) */
	ex_k_fill_normal(net->dt, ex_net_input(net), net->tens[0].elems, 0.f, 1.f,
			 (uint64_t)a->seed + 1000003ULL * (uint64_t)rank, net->stream);
	ex_k_fill_labels(net->labels, a->batch, a->classes, (uint64_t)a->seed + 99 + 7919ULL * (uint64_t)rank, net->stream);
	if (a->dump_dir) {
		job->no_csv = true;
		return dump_step(net, a->dump_dir, a) < 0 ? EXIT_ENV : EXIT_OK;
	}
	snprintf(buf, sizeof(buf), "%ld", (long)(a->warmup_iters + a->iters) * a->batch * world);
	MLLOG_POINT("train_samples", buf);
	MLLOG_POINT("eval_samples", "0");
	mllog(EX_MLLOG_START, "run_start", "null", -1, __LINE__);
	for (i = 0; i < a->warmup_iters; i++) {
		ex_dist_heartbeat(d);
		step(net, a->graph);
	}
	phase_times(net, &fwd, &bwd, &opt, d, &job->tm);
	ex_net_take_stats(net, &s);
	ex_dist_sync(d, net->stream);
	ex_dist_barrier(d); /* all ranks start the timed steps together */
	MLLOG_EPOCH(EX_MLLOG_START, "epoch_start", "1", 1);
	if (!a->quiet)
		progress_init(&pb, "train", a->iters);
	CUDA_CHECK(cudaEventRecord(net->ev[0], net->stream));
	t0 = time_now_s();
	for (i = 0; i < a->iters; i++) {
		ex_dist_heartbeat(d);
		step(net, a->graph);
		if (!a->quiet && (i % 10 == 9 || i == a->iters - 1)) {
			CUDA_CHECK(cudaStreamSynchronize(net->stream));
			progress_update(&pb, i + 1);
		}
	}
	CUDA_CHECK(cudaEventRecord(net->ev[1], net->stream));
	ex_dist_sync(d, net->stream);
	dt = time_now_s() - t0;
	ex_dist_pause(d);
	if (!a->quiet)
		progress_finish(&pb);
	CUDA_CHECK(cudaEventElapsedTime(&ms, net->ev[0], net->ev[1]));
	(void)dt;
	ex_net_take_stats(net, &s);
	CUDA_CHECK(cudaMemGetInfo(&free1, &tot));
	job->peak_B = (double)(job->free0 - free1);
	MLLOG_EPOCH(EX_MLLOG_END, "epoch_stop", "1", 1);
	double glob = a->iters * (double)a->batch / (ms / 1e3);
	ex_dist_sum(d, &glob, 1); /* img/s of all ranks together */
	snprintf(buf, sizeof(buf), "%.1f", glob);
	MLLOG_POINT("throughput", buf);
	run_stop("success", __LINE__);
	job->rows = xcalloc(2, sizeof(*job->rows));
	for (i = 0; i < 2; i++) {
		ex_row *r = &job->rows[i];
		r->epoch = i == 0 ? -1 : 1;
		r->iters = a->iters;
		r->iter_s = ms / 1e3 / a->iters;
		r->img_s = a->batch / r->iter_s;
		r->glob_img_s = world > 1 ? glob : r->img_s;
		r->allreduce_s = job->tm.iters ? job->tm.allreduce_s / job->tm.iters : 0;
		r->exposed_s = job->tm.iters ? job->tm.exposed_s / job->tm.iters : 0;
		r->fwd_s = fwd;
		r->bwd_s = bwd;
		r->opt_s = opt;
		r->loss = s.seen ? s.loss_sum / s.seen : NAN;
		r->top1 = NAN;
		r->time_s = ms / 1e3;
		r->lr = s.lr;
	}
	job->nrows = 2;
	printf("\n%-28s %s\n", "scaleplan-train", "synthetic");
	printf("%-28s %s (%d SMs), cuDNN %zu\n", "gpu", job->prop.name, job->prop.multiProcessorCount, cudnnGetVersion());
	printf("%-28s %d x %dx%d, %s, %s\n", "batch", a->batch, a->image_size, a->image_size, a->prec_name,
	       net->have_graph ? "CUDA graph" : "no graph");
	printf("%-28s %.1f\n", "throughput img/s", job->rows[0].glob_img_s);
	if (world > 1)
		printf("%-28s %d GPUs (%d nodes x %d), %s, %.1f img/s per GPU, all-reduce %.2f ms/step (%.2f ms exposed)\n",
		       "data-parallel", world, ex_dist_nodes(d), ex_dist_gpus_per_node(d), ex_dist_mode_label(d),
		       job->rows[0].glob_img_s / world, job->rows[0].allreduce_s * 1e3, job->rows[0].exposed_s * 1e3);
	printf("%-28s %.2f ms (fwd %.2f, bwd %.2f, opt %.2f ungraphed)\n", "step", job->rows[0].iter_s * 1e3, fwd * 1e3,
	       bwd * 1e3, opt * 1e3);
	printf("%-28s %.2f GiB (device: CUDA context, graph and libraries included); allocated by the engine %.2f "
	       "GiB while training, %.2f GiB at most (start-up autotuning)\n", "GPU memory used", job->peak_B / 1073741824.0,
	       ex_dev_alloc_now_B() / 1073741824.0, ex_dev_alloc_peak_B() / 1073741824.0);
	printf("%-28s %.4f\n", "mean loss", job->rows[0].loss);
	if (a->profile) {
		static const char *cat[EX_PROF_N] = {"conv fwd", "bn(+add+relu) fwd", "pool fwd", "fc fwd", "conv dgrad",
						     "conv wgrad (+cast)", "bn(+add+relu) bwd", "pool bwd", "fc+loss bwd"};
		double ptot = 0;
		net->profile = true;
		for (i = 0; i < 5; i++)
			ex_net_train_step(net, false);
		CUDA_CHECK(cudaStreamSynchronize(net->stream));
		for (i = 0; i < EX_PROF_N; i++)
			ptot += net->prof_ms[i] / 5;
		printf("%-28s %8s %6s\n", "per step (synchronised)", "ms", "%");
		for (i = 0; i < EX_PROF_N; i++)
			printf("PROFILE %-20s %8.2f %6.1f\n", cat[i], net->prof_ms[i] / 5, 100 * net->prof_ms[i] / 5 / ptot);
		printf("PROFILE %-20s %8.2f\n", "ptotal", ptot);
		net->profile = false;
	}
	printf("EXEC_RESULT data=synthetic batch=%d prec=%s img_s=%.1f peak_gib=%.2f alloc_gib=%.2f graph=%d", a->batch,
	       a->prec_name, job->rows[0].glob_img_s, job->peak_B / 1073741824.0, ex_dev_alloc_now_B() / 1073741824.0,
	       net->have_graph);
	if (world > 1)
		printf(" gpus=%d mode=%s per_gpu_img_s=%.1f allreduce_ms=%.2f exposed_ms=%.2f", world,
		       ex_dist_mode_label(d), job->rows[0].glob_img_s / world, job->rows[0].allreduce_s * 1e3, job->rows[0].exposed_s * 1e3);
	printf("\n");
	return EXIT_OK;
}

/* The epoch loop's state: the data (Fashion-MNIST on the device, or the folder's source), the order,
 * the step count and what the summary reports. */
typedef struct ex_epochs {
	ex_idx_set tr, te;
	uint8_t *d_tr, *d_trl, *d_te, *d_tel;
	int *d_idx, *h_idx;
	int steps, gstep, e0;
	uint64_t rs;          /* the shuffle's state: the same on every rank (one permutation) */
	double t_run0, tta, wait_run_s;
	char *ckpath;         /* --ckpt-dir's file */
	ex_ckpt_meta meta;
} ex_epochs;

/* --resume: every rank reads the same file (weights, momentum, BN, step); bad files end every rank. */
static void resume(ex_run *job, ex_epochs *ep)
{
	ex_args *a = &job->a;
	ex_dist *d = job->d;
	int world = job->world;
	if (ex_ckpt_load(ep->ckpath, &job->net, &ep->meta))
		ex_dist_fatal(d, EXIT_INPUT, "--resume: %s", err_msg());
	if (ep->meta.world_size != world || ep->meta.batch_per_gpu != a->batch)
		ex_dist_fatal(d, EXIT_INPUT, "--resume: %s was written by %d ranks x batch %d, this job is %d x %d",
			      ep->ckpath, ep->meta.world_size, ep->meta.batch_per_gpu, world, a->batch);
	ep->e0 = (int)ep->meta.epoch + 1;
	if (ep->e0 > a->epochs)
		ex_dist_fatal(d, EXIT_INPUT, "--resume: %s is after epoch %d, --epochs is %d: nothing left to train",
			      ep->ckpath, ep->e0 - 1, a->epochs);
	ep->gstep = (int)ep->meta.step;
	ep->rs = ep->meta.rng[0];
	if (job->rank == 0)
		printf("# resumed from %s after epoch %d (step %d, loss %.4f)\n", ep->ckpath, ep->e0 - 1, ep->gstep,
		       ep->meta.last_loss);
}

/* The data, the steps per epoch, the schedule, a resumed run's state, the device copies of Fashion-MNIST.
 * EX_CONTINUE, or the exit code. */
static int epochs_open(ex_run *job, ex_epochs *ep)
{
	ex_args *a = &job->a;
	ex_net *net = &job->net;
	ex_src *src = job->src;
	ex_opt_cfg *o = &net->opt;
	char buf[64];
	if (src) { /* JPEG folder: batches come from ex_input.c */
		ex_src_attach(src, net);
		ep->steps = (int)ex_src_train_steps(src);
		double neg = -ep->steps; /* shards may differ by a batch: every rank takes the fewest steps */
		ex_dist_max(job->d, &neg, 1);
		ep->steps = (int)-neg;
		ep->te.n = (int)ex_src_eval_images(src);
	} else if (ex_idx_load_fashion_mnist(&ep->tr, &ep->te, a->data_dir) < 0) {
		fprintf(stderr, "scaleplan-train: %s\n", err_msg());
		return EXIT_INPUT;
	} else {
		ep->steps = ep->tr.n / (a->batch * job->world); /* fashion-mnist: rank r takes batches r, r+N, ... */
	}
	if (ep->steps < 1) {
		fprintf(stderr, "scaleplan-train: --batch-per-gpu %d is larger than the training set (%d)\n", a->batch,
			ep->tr.n);
		return EXIT_INPUT;
	}
	o->sched.warmup_steps = a->warmup_epochs * ep->steps;
	o->sched.total_steps = a->epochs * ep->steps;
	o->sched.step_every = ep->steps * (a->epochs / 3 > 0 ? a->epochs / 3 : 1);
	ep->ckpath = a->ck.dir ? ex_ckpt_path(&a->ck) : NULL;
	if (a->ck.resume)
		resume(job, ep);
	a->ck.last_s = time_now_s();
	if (!src) {
		ex_idx_set *tr = &ep->tr, *te = &ep->te;
		CUDA_CHECK(cudaMalloc((void **)&ep->d_tr, (size_t)tr->n * 784));
		CUDA_CHECK(cudaMalloc((void **)&ep->d_trl, tr->n));
		CUDA_CHECK(cudaMalloc((void **)&ep->d_te, (size_t)te->n * 784));
		CUDA_CHECK(cudaMalloc((void **)&ep->d_tel, te->n));
		CUDA_CHECK(cudaMemcpy(ep->d_tr, tr->images, (size_t)tr->n * 784, cudaMemcpyHostToDevice));
		CUDA_CHECK(cudaMemcpy(ep->d_trl, tr->labels, tr->n, cudaMemcpyHostToDevice));
		CUDA_CHECK(cudaMemcpy(ep->d_te, te->images, (size_t)te->n * 784, cudaMemcpyHostToDevice));
		CUDA_CHECK(cudaMemcpy(ep->d_tel, te->labels, te->n, cudaMemcpyHostToDevice));
	}
	int nidx = ep->tr.n > ep->te.n + a->batch ? ep->tr.n : ep->te.n + a->batch;
	CUDA_CHECK(cudaMalloc((void **)&ep->d_idx, (size_t)nidx * sizeof(int)));
	ep->h_idx = xmalloc((size_t)nidx * sizeof(int));
	job->rows = xcalloc(a->epochs + 1, sizeof(*job->rows));
	snprintf(buf, sizeof(buf), "%ld", (long)ep->steps * a->batch * job->world);
	MLLOG_POINT("train_samples", buf);
	snprintf(buf, sizeof(buf), "%d", ep->te.n);
	MLLOG_POINT("eval_samples", buf);
	return EX_CONTINUE;
}

static void epochs_close(ex_epochs *ep)
{
	cudaFree(ep->d_tr);
	cudaFree(ep->d_trl);
	cudaFree(ep->d_te);
	cudaFree(ep->d_tel);
	cudaFree(ep->d_idx);
	free(ep->h_idx);
	ex_idx_free(&ep->tr);
	ex_idx_free(&ep->te);
	free(ep->ckpath);
}

/* Fashion-MNIST's order for this epoch: Fisher-Yates with splitmix64 from the shared state. */
static void shuffle_order(ex_epochs *ep)
{
	int i, j, *h = ep->h_idx;
	for (i = 0; i < ep->tr.n; i++)
		h[i] = i;
	for (i = ep->tr.n - 1; i > 0; i--) {
		uint64_t z = (ep->rs += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		j = (int)(z % (uint64_t)(i + 1));
		int t = h[i];
		h[i] = h[j];
		h[j] = t;
	}
}

/* One epoch's training steps; returns their GPU time in ms, *s the training counts. */
/* The training thread's phases for the stall watch's report (ex_src_phase). */
static const char PH_LAUNCH[] = "launching a training step (CUDA graph or kernels, all-reduce buckets)";
static const char PH_PROGRESS[] = "waiting for the GPU (the progress bar's cudaStreamSynchronize)";
static const char PH_EPOCH_END[] = "waiting for the epoch's last step and its all-reduces (ex_dist_sync)";
static const char PH_EVAL[] = "launching an evaluation step";
static const char PH_COUNTS[] = "the epoch's all-reduce of the evaluation counts";

static float train_epoch(ex_run *job, ex_epochs *ep, ex_dev_state *s)
{
	ex_args *a = &job->a;
	ex_net *net = &job->net;
	ex_dist *d = job->d;
	ex_src *src = job->src;
	int rank = job->rank, world = job->world, i;
	float ms;
	progress pb;
	shuffle_order(ep);
	if (!src)
		CUDA_CHECK(cudaMemcpyAsync(ep->d_idx, ep->h_idx, (size_t)ep->tr.n * sizeof(int), cudaMemcpyHostToDevice,
					   net->stream));
	if (!a->quiet)
		progress_init(&pb, "epoch", ep->steps);
	CUDA_CHECK(cudaEventRecord(net->ev[0], net->stream));
	for (i = 0; i < ep->steps; i++, ep->gstep++) {
		ex_dist_heartbeat(d);
		if (src)
			ex_src_train_batch(src);
		else
			ex_k_fmnist_batch(net->dt, ep->d_tr, ep->d_trl, ep->d_idx + ((size_t)i * world + rank) * a->batch,
					  a->batch, a->image_size, true,
					  (uint64_t)a->seed * 1000003ULL + (uint64_t)ep->gstep + 7919ULL * (uint64_t)rank,
					  ex_net_input(net), net->labels, net->stream);
		ex_src_phase(src, PH_LAUNCH);
		step(net, a->graph);
		if (src)
			ex_src_after_step(src); /* jpeg-gpu: the next batch's decode, beside this step */
		if (!a->quiet && (i % 20 == 19 || i == ep->steps - 1)) {
			ex_src_phase(src, PH_PROGRESS);
			CUDA_CHECK(cudaStreamSynchronize(net->stream));
			progress_update(&pb, i + 1);
		}
	}
	CUDA_CHECK(cudaEventRecord(net->ev[1], net->stream));
	ex_src_phase(src, PH_EPOCH_END);
	ex_dist_sync(d, net->stream);
	CUDA_CHECK(cudaEventElapsedTime(&ms, net->ev[0], net->ev[1]));
	if (!a->quiet)
		progress_finish(&pb);
	ex_net_take_stats(net, s);
	return ms;
}

/* Evaluation on the test set (this rank's share); *se its counts. Fashion-MNIST: the last batch is padded
 * with image 0 and not counted; rank r takes batches r, r+N, ...; the folder's loader shards val/ by rank. */
static void evaluate(ex_run *job, ex_epochs *ep, ex_dev_state *se)
{
	ex_args *a = &job->a;
	ex_net *net = &job->net;
	ex_src *src = job->src;
	int i, nb, n = ep->te.n;
	for (i = 0; i < n + a->batch; i++)
		ep->h_idx[i] = i < n ? i : 0;
	CUDA_CHECK(cudaMemcpyAsync(ep->d_idx, ep->h_idx, (size_t)(n + a->batch) * sizeof(int), cudaMemcpyHostToDevice,
				   net->stream));
	nb = src ? ex_src_eval_begin(src) : (n + a->batch - 1) / a->batch;
	for (i = src ? 0 : job->rank; i < nb; i += src ? 1 : job->world) {
		int valid = n - i * a->batch < a->batch ? n - i * a->batch : a->batch;
		ex_dist_heartbeat(job->d);
		if (src)
			valid = ex_src_eval_batch(src);
		else
			ex_k_fmnist_batch(net->dt, ep->d_te, ep->d_tel, ep->d_idx + (size_t)i * a->batch, a->batch,
					  a->image_size, false, 0, ex_net_input(net), net->labels, net->stream);
		ex_src_phase(src, PH_EVAL);
		ex_net_eval_batch(net, valid);
		if (src)
			ex_src_after_step(src);
	}
	ex_net_take_stats(net, se);
}

/* The epoch's row from the counts of every rank (one all-reduce); MLLOG lines; progress line. *tt: now. */
static ex_row *epoch_row(ex_run *job, ex_epochs *ep, int e, float ms_train, const ex_dev_state *s, ex_dev_state *se,
			 double te0, double *tt)
{
	ex_args *a = &job->a;
	int world = job->world;
	char buf[64];
	ex_row *r = &job->rows[job->nrows];
	double cnt[4] = {se->correct, se->seen, a->batch / (ms_train / 1e3 / ep->steps), s->seen ? s->loss_sum / s->seen : 0};
	ex_src_phase(job->src, PH_COUNTS);
	ex_dist_sum(job->d, cnt, 4); /* global top-1, img/s and mean loss; every rank takes the same branch after */
	se->correct = (int)cnt[0];
	se->seen = (int)cnt[1];
	*tt = time_now_s();
	snprintf(buf, sizeof(buf), "%.5f", se->seen ? (double)se->correct / se->seen : 0.0);
	MLLOG_EPOCH(EX_MLLOG_POINT, "eval_accuracy", buf, e);
	MLLOG_EPOCH(EX_MLLOG_END, "eval_stop", buf, e);
	snprintf(buf, sizeof(buf), "%d", e);
	MLLOG_EPOCH(EX_MLLOG_END, "epoch_stop", buf, e);
	r->epoch = e;
	r->iters = ep->steps;
	r->iter_s = ms_train / 1e3 / ep->steps;
	r->img_s = a->batch / r->iter_s;
	r->glob_img_s = world > 1 ? cnt[2] : r->img_s;
	r->loss = s->seen ? (world > 1 ? cnt[3] / world : s->loss_sum / s->seen) : NAN;
	r->top1 = se->seen ? (double)se->correct / se->seen : NAN;
	r->time_s = *tt - te0;
	r->lr = s->lr;
	r->data_wait_s = job->src ? ex_src_epoch_wait(job->src) : 0;
	ep->wait_run_s += r->data_wait_s;
	job->nrows++;
	if (!a->quiet)
		fprintf(stderr, "epoch %d: train loss %.4f, train top-1 %.4f, test top-1 %.4f, %.0f img/s, %.1f s (run %.1f s)\n",
			e, r->loss, s->seen ? (double)s->correct / s->seen : 0.0, r->top1, r->glob_img_s, r->time_s,
			*tt - ep->t_run0);
	return r;
}

/* --ckpt-dir: rank 0 writes when due (identical weights on every rank; no collective inside). */
static void checkpoint(ex_run *job, ex_epochs *ep, int e, const ex_row *r, double tt)
{
	ex_args *a = &job->a;
	ex_ckpt_meta *m = &ep->meta;
	if (!ep->ckpath || job->rank != 0 || !ex_ckpt_due(&a->ck, true, e, time_now_s()))
		return;
	m->epoch = e;
	m->step = ep->gstep;
	m->images = (int64_t)ep->gstep * a->batch * job->world;
	m->world_size = job->world;
	m->batch_per_gpu = a->batch;
	m->seed = (uint64_t)a->seed;
	m->rng[0] = ep->rs;
	m->elapsed_s = tt - ep->t_run0;
	m->last_loss = r->loss;
	snprintf(m->run_id, sizeof(m->run_id), "%s", a->run_id);
	if (ex_ckpt_save(ep->ckpath, &job->net, m))
		ex_dist_fatal(job->d, EXIT_ENV, "checkpoint: %s", err_msg());
	printf("# checkpoint after epoch %d: %s\n", e, ep->ckpath);
	a->ck.last_s = time_now_s();
}

/* The run row (totals over the epochs, first in the CSV) and the printed summary. */
static void epochs_summary(ex_run *job, ex_epochs *ep)
{
	ex_args *a = &job->a;
	ex_dist *d = job->d;
	ex_src *src = job->src;
	int world = job->world, i;
	ex_row run = job->rows[job->nrows - 1], *rows;
	double tr_s = 0, glob_it = 0;
	long it = 0;
	for (i = 0; i < job->nrows; i++) {
		tr_s += job->rows[i].iter_s * job->rows[i].iters;
		glob_it += job->rows[i].glob_img_s * job->rows[i].iters;
		it += job->rows[i].iters;
	}
	run.glob_img_s = world > 1 ? glob_it / it : a->batch * it / tr_s;
	run.epoch = -1;
	run.iters = it;
	run.iter_s = tr_s / it;
	run.img_s = a->batch / run.iter_s;
	run.time_s = time_now_s() - ep->t_run0;
	run.data_wait_s = ep->wait_run_s;
	memmove(job->rows + 1, job->rows, job->nrows * sizeof(*job->rows));
	job->rows[0] = run;
	job->nrows++;
	rows = job->rows;
	printf("\n%-28s %s\n", "scaleplan-train", a->data);
	printf("%-28s %s, cuDNN %zu\n", "gpu", job->prop.name, cudnnGetVersion());
	printf("%-28s %d x %dx%d, %s, lr %g, wd %g, %d epochs max\n", "recipe", a->batch, a->image_size, a->image_size,
	       a->prec_name, a->lr, a->wd, a->epochs);
	printf("%-28s %.1f\n", "train throughput img/s", rows[0].glob_img_s);
	if (world > 1)
		printf("%-28s %d GPUs (%d nodes x %d), %s\n", "data-parallel", world, ex_dist_nodes(d),
		       ex_dist_gpus_per_node(d), ex_dist_mode_label(d));
	printf("%-28s %.4f (epoch %d)\n", "final test top-1", rows[0].top1, rows[job->nrows - 1].epoch);
	if (a->target_top1 > 0) {
		if (ep->tta >= 0)
			printf("%-28s %.1f s\n", "time to target", ep->tta);
		else
			printf("%-28s not reached\n", "time to target");
	}
	printf("%-28s %.1f s\n", "run time", rows[0].time_s);
	if (src) {
		printf("%-28s %.2f s (%s, %d %s threads)\n", "GPU waited for input", ep->wait_run_s,
		       a->data_gpu ? "jpeg-gpu" : "jpeg-cpu", a->data_threads, a->data_gpu ? "reader" : "decode");
		ex_src_report(src, stdout);
	}
	printf("EXEC_RESULT data=%s batch=%d prec=%s size=%d top1=%.4f tta_s=%.1f run_s=%.1f img_s=%.0f epochs=%d "
	       "data_wait_s=%.2f threads=%d\n",
	       src ? (a->data_gpu ? "jpeg-gpu" : "jpeg-cpu") : a->data, a->batch, a->prec_name, a->image_size,
	       rows[0].top1, ep->tta, rows[0].time_s, rows[0].glob_img_s, rows[job->nrows - 1].epoch, ep->wait_run_s,
	       src ? a->data_threads : 0);
	if (a->target_top1 > 0 && ep->tta < 0)
		fprintf(stderr, "scaleplan-train: target top-1 %.3f not reached\n", a->target_top1);
}

/* Epochs over Fashion-MNIST or a JPEG folder: train, evaluate, checkpoint, then the summary. */
static int run_epochs(ex_run *job)
{
	ex_args *a = &job->a;
	ex_epochs ep;
	size_t tot, free1;
	char buf[32];
	memset(&ep, 0, sizeof(ep));
	ep.rs = (uint64_t)a->seed * 0x9e3779b97f4a7c15ULL + 1;
	ep.tta = -1;
	ep.e0 = 1;
	int rc = epochs_open(job, &ep);
	if (rc != EX_CONTINUE) {
		epochs_close(&ep);
		return rc;
	}
	mllog(EX_MLLOG_START, "run_start", "null", -1, __LINE__);
	ep.t_run0 = time_now_s();
	for (int e = ep.e0; e <= a->epochs; e++) {
		ex_dev_state s, se;
		double te0 = time_now_s(), tt;
		snprintf(buf, sizeof(buf), "%d", e);
		MLLOG_EPOCH(EX_MLLOG_START, "epoch_start", buf, e);
		float ms_train = train_epoch(job, &ep, &s);
		MLLOG_EPOCH(EX_MLLOG_START, "eval_start", buf, e);
		evaluate(job, &ep, &se);
		ex_row *r = epoch_row(job, &ep, e, ms_train, &s, &se, te0, &tt);
		ex_src_watch(job->src, false); /* a checkpoint takes no batches; on again restarts the count */
		checkpoint(job, &ep, e, r, tt);
		ex_src_watch(job->src, true);
		if (a->target_top1 > 0 && r->top1 >= a->target_top1) {
			ep.tta = tt - ep.t_run0;
			break;
		}
	}
	ex_src_watch(job->src, false);
	ex_dist_pause(job->d);
	CUDA_CHECK(cudaMemGetInfo(&free1, &tot));
	job->peak_B = (double)(job->free0 - free1);
	run_stop(a->target_top1 <= 0 || ep.tta >= 0 ? "success" : "aborted", __LINE__);
	epochs_summary(job, &ep);
	epochs_close(&ep);
	return EXIT_OK;
}

/* The engine's own CUDA settings, made before the first CUDA call (the runtime reads them once, when it
 * starts); a value already in the environment is kept. */
static void cuda_env_defaults(void)
{
	/* Hardware work queues per device. The default 8 are shared by the training, copy, NCCL and nvJPEG
	 * streams; with 32, jpeg-gpu at batch 256 on 4 cores of an H100 went from 79.2% to 90.6-94.1% of
	 * synthetic (bench/NOTES.md's log). The CUDA C++ Programming Guide lists the variable and its limit
	 * (32). */
	setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
}

int main(int argc, char **argv)
{
	ex_run *job = xcalloc(1, sizeof(*job));
	int rc;

	cuda_env_defaults();

	for (int k = 1; k < argc; k++)
		if (!strcmp(argv[k], "--bench-allreduce"))
			return ex_dist_bench_main(argc, argv); /* ex_dist_none.c: refused, exit 2 */
	rc = run_setup(job, argc, argv);
	if (rc != EX_CONTINUE) {
		free(job);
		return rc;
	}
	rc = !strcmp(job->a.data, "synthetic") ? run_synthetic(job) : run_epochs(job);
	if (rc == EXIT_OK && !job->no_csv)
		csv_rows(&job->a, job->rows, job->nrows, job->peak_B, job->prop.name, job->d);
	free(job->rows);
	ex_src_free(job->src);
	ex_net_free(&job->net);
	ex_dist_free(job->d);
	free(job);
	return rc;
}
