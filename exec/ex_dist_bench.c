/* exec: `scaleplan-train --bench-allreduce` - an nccl-tests style all-reduce sweep over the same
 * process group, transport modes and communicator set-up as training, for calibrate/.
 *
 * Each size is all-reduced in place (ncclAvg, the training operation) `iters` times between two
 * CUDA events after `warm` untimed calls; time_s is the slowest rank's mean. algbw = bytes /
 * time_s; busbw = algbw x 2(n-1)/n (nccl-tests doc/PERFORMANCE.md, all-reduce). Before timing,
 * each element type is checked: ranks fill rank+1, the average must be (n+1)/2 exactly.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "common/common.h"
#include "exec/ex_dist.h"
#include "exec/ex_internal.h"

typedef struct bench_args {
	double min_B, max_B;
	ex_dist_dtype dtypes[3];
	int ndtypes;
	int iters;              /* 0: by size */
	const char *machine;
	const char *out;
	const char *load;       /* --load gemm | resnet: each bucket size also under that compute load */
	ex_dist_opts dist;
} bench_args;

static void usage(FILE *f)
{
	fprintf(f, "usage: scaleplan-train --bench-allreduce [options]   (one process per GPU: mpirun/srun)\n"
		   "  --min-bytes B        smallest message (default 1024)\n"
		   "  --max-bytes B        largest message (default 1073741824)\n"
		   "  --dtypes LIST        element types, comma-separated (default fp32,bf16)\n"
		   "  --iters N            timed calls per size (default: 5..200 by size)\n"
		   "  --machine NAME       machine column of the CSV (default: host name)\n"
		   "  --out FILE           CSV output (rank 0; default: none)\n"
		   "  --load gemm|resnet   also time sizes of 4-128 MiB beside a compute load on another stream, and\n"
		   "                       the load beside the all-reduce (compute/comm contention, for calibrate):\n"
		   "                       gemm: bf16 4096^3 GEMMs; resnet: the engine's ResNet-50 step (batch 256,\n"
		   "                       bf16, CUDA graph, no gradient all-reduce)\n"
		   "%s", EX_DIST_HELP);
}

static int parse_bytes(const char *opt, const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v >= 4 && v <= 64.0 * 1073741824.0))
		return err_set("--%s: '%s' is not a byte count in [4, 64 GiB]", opt, s);
	*out = v;
	return 0;
}

static int parse_dtypes(bench_args *a, const char *s)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%s", s);
	a->ndtypes = 0;
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (a->ndtypes == 3)
			return err_set("--dtypes: at most 3 types");
		if (ex_dist_dtype_parse(tok, &a->dtypes[a->ndtypes]))
			return err_prefix("--dtypes");
		a->ndtypes++;
	}
	return a->ndtypes ? 0 : err_set("--dtypes: empty list");
}

/* Parses argv (all ranks identically). Returns 0, 1 for --help, ERR_INPUT. */
static int bench_parse(bench_args *a, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "bench-allreduce", no_argument, NULL, 'B' }, { "min-bytes", required_argument, NULL, 'a' },
		{ "max-bytes", required_argument, NULL, 'b' }, { "dtypes", required_argument, NULL, 't' },
		{ "iters", required_argument, NULL, 'i' },     { "machine", required_argument, NULL, 'm' },
		{ "out", required_argument, NULL, 'o' },       { "help", no_argument, NULL, 'h' },
		{ "load", required_argument, NULL, 'L' },
		{ "nccl-mode", required_argument, NULL, 0 },   { "emulate-nodes", required_argument, NULL, 0 },
		{ "grad-precision", required_argument, NULL, 0 }, { "bucket-mb", required_argument, NULL, 0 },
		{ "nccl-timeout", required_argument, NULL, 0 }, { "no-overlap", no_argument, NULL, 0 },
		{ NULL, 0, NULL, 0 },
	};
	int c, idx;
	memset(a, 0, sizeof(*a));
	a->min_B = 1024;
	a->max_B = 1073741824.0;
	a->dtypes[0] = EX_DIST_FP32;
	a->dtypes[1] = EX_DIST_BF16;
	a->ndtypes = 2;
	ex_dist_opts_default(&a->dist);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, &idx)) != -1) {
		switch (c) {
		case 0:
			if (ex_dist_opt_set(&a->dist, opts[idx].name, optarg) != 0)
				return ERR_INPUT;
			break;
		case 'B': break;
		case 'a': if (parse_bytes("min-bytes", optarg, &a->min_B)) return ERR_INPUT; break;
		case 'b': if (parse_bytes("max-bytes", optarg, &a->max_B)) return ERR_INPUT; break;
		case 't': if (parse_dtypes(a, optarg)) return ERR_INPUT; break;
		case 'i':
			a->iters = atoi(optarg);
			if (a->iters < 1 || a->iters > 100000)
				return err_set("--iters: '%s' is not a count in [1, 100000]", optarg);
			break;
		case 'm': a->machine = optarg; break;
		case 'o': a->out = optarg; break;
		case 'L':
			if (strcmp(optarg, "gemm") != 0 && strcmp(optarg, "resnet") != 0)
				return err_set("--load: '%s' is not a load (gemm or resnet)", optarg);
			a->load = optarg;
			break;
		case 'h': return 1;
		default:
			return err_set("unknown or incomplete option '%s' (see --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return err_set("unexpected argument '%s'", argv[optind]);
	if (a->min_B > a->max_B)
		return err_set("--min-bytes %.0f is above --max-bytes %.0f", a->min_B, a->max_B);
	return 0;
}

/* ---- all-reduce under a compute load (--load gemm) ----
 * Training runs the all-reduce of each gradient bucket beside backward's kernels and the two slow
 * each other down: NCCL's kernels hold SMs for the whole transfer (over sockets and host memory they
 * wait on the CPU proxy) and must find free SMs to start. This times both sides with a stand-in for
 * backward: bf16 GEMMs (4096^3, fp32 accumulate, tensor cores like the convolutions) back to back on
 * a normal-priority stream while the all-reduces run on the bench's stream at high priority (as
 * ex_dist.c's comm stream). An event after every GEMM gives the GEMM rate inside the all-reduce
 * window only. */
enum { LOAD_N = 4096, LOAD_MAX_GEMMS = 8192 };

typedef struct gemm_load {
	bool resnet;      /* the engine's step instead of GEMMs (step_load_init) */
	const char *name; /* the CSV's load column */
	cublasHandle_t h;
	cudaStream_t s;
	void *a, *b, *c;
	ex_net net;       /* resnet */
	cudaEvent_t ev[LOAD_MAX_GEMMS + 1];
	int nev;
	double alone_s;   /* one GEMM (one training step) with nothing else running */
} gemm_load;

/* Enqueues k GEMMs; with events, GEMM i (0-based) records ev[i + 1] when it ends. */
static int gemm_enqueue(gemm_load *g, int k, bool events)
{
	const float one = 1.0f, zero = 0.0f;
	for (int i = 0; i < k; i++) {
		if (cublasGemmEx(g->h, CUBLAS_OP_N, CUBLAS_OP_N, LOAD_N, LOAD_N, LOAD_N, &one, g->a, CUDA_R_16BF, LOAD_N,
				 g->b, CUDA_R_16BF, LOAD_N, &zero, g->c, CUDA_R_16BF, LOAD_N, CUBLAS_COMPUTE_32F,
				 CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
			return err_set("cublasGemmEx failed");
		if (events && cudaEventRecord(g->ev[i + 1], g->s) != cudaSuccess)
			return err_set("cudaEventRecord failed");
	}
	return 0;
}

static int gemm_load_init(gemm_load *g)
{
	size_t sz = (size_t)LOAD_N * LOAD_N * 2;
	memset(g, 0, sizeof(*g));
	if (cublasCreate(&g->h) != CUBLAS_STATUS_SUCCESS)
		return err_set("cublasCreate failed");
	if (cudaStreamCreateWithFlags(&g->s, cudaStreamNonBlocking) != cudaSuccess ||
	    cublasSetStream(g->h, g->s) != CUBLAS_STATUS_SUCCESS)
		return err_set("GEMM stream not created");
	if (cudaMalloc(&g->a, sz) != cudaSuccess || cudaMalloc(&g->b, sz) != cudaSuccess ||
	    cudaMalloc(&g->c, sz) != cudaSuccess)
		return err_set("no GPU memory for the GEMM load (3 x %zu bytes)", sz);
	/* non-zero operands in [-0.5, 0.5): tensor cores draw (and clock) by the data, zeros would flatter
	 * the GEMM; sums of 4096 such products stay far inside bf16's range */
	long ne = (long)LOAD_N * LOAD_N;
	if (ex_dist_fill(g->a, EX_DIST_BF16, ne, -0.5f, 1.0f / 1024, g->s) ||
	    ex_dist_fill(g->b, EX_DIST_BF16, ne, -0.25f, 1.0f / 2048, g->s))
		return err_set("fill kernel failed");
	for (int i = 0; i <= LOAD_MAX_GEMMS; i++) {
		if (cudaEventCreate(&g->ev[i]) != cudaSuccess)
			return err_set("cudaEventCreate failed");
		g->nev = i + 1;
	}
	/* one GEMM alone: 10 warm-up, then 50 timed */
	float ms = 0;
	if (gemm_enqueue(g, 10, false) || cudaEventRecord(g->ev[0], g->s) != cudaSuccess || gemm_enqueue(g, 50, false) ||
	    cudaEventRecord(g->ev[1], g->s) != cudaSuccess || cudaStreamSynchronize(g->s) != cudaSuccess ||
	    cudaEventElapsedTime(&ms, g->ev[0], g->ev[1]) != cudaSuccess)
		return err_set("GEMM load: %s", err_msg()[0] ? err_msg() : "CUDA error while timing");
	g->alone_s = ms * 1e-3 / 50;
	return 0;
}

static void gemm_load_free(gemm_load *g)
{
	for (int i = 0; i < g->nev; i++)
		cudaEventDestroy(g->ev[i]);
	if (g->resnet) {
		ex_net_free(&g->net);
		return;
	}
	cudaFree(g->a);
	cudaFree(g->b);
	cudaFree(g->c);
	if (g->s)
		cudaStreamDestroy(g->s);
	if (g->h)
		cublasDestroy(g->h);
}

/* Times `iters` all-reduces of cnt elements under the GEMM load: *ar_s per all-reduce, *gemm_s per GEMM
 * for the GEMMs that ran wholly inside the all-reduce window (NAN when none did). */
static void time_loaded(ex_dist *d, gemm_load *g, void *buf, long cnt, ex_dist_dtype t, cudaStream_t s, int iters,
			double ar_alone_s, cudaEvent_t c0, cudaEvent_t c1, double *ar_s, double *gemm_s)
{
	/* enough GEMMs to outlast the all-reduces even if these slow down 3x */
	int k = (int)fmin(LOAD_MAX_GEMMS, ceil(3.0 * iters * ar_alone_s / g->alone_s) + 4);
	/* the GEMMs first (the stream stays busy while the host enqueues the all-reduces), then the window */
	ex_dist_heartbeat(d);
	if (gemm_enqueue(g, k, true))
		ex_dist_fatal(d, EXIT_ENV, "GEMM load: %s", err_msg());
	if (cudaEventRecord(c0, s) != cudaSuccess)
		ex_dist_fatal(d, EXIT_ENV, "cudaEventRecord failed");
	for (int i = 0; i < iters; i++)
		if (ex_dist_allreduce(d, buf, cnt, t, s))
			ex_dist_fatal(d, EXIT_ENV, "all-reduce failed");
	if (cudaEventRecord(c1, s) != cudaSuccess)
		ex_dist_fatal(d, EXIT_ENV, "cudaEventRecord failed");
	ex_dist_sync(d, s);
	if (cudaStreamSynchronize(g->s) != cudaSuccess)
		ex_dist_fatal(d, EXIT_ENV, "GEMM load failed");
	ex_dist_pause(d);
	float ms = 0;
	if (cudaEventElapsedTime(&ms, c0, c1) != cudaSuccess)
		ex_dist_fatal(d, EXIT_ENV, "cudaEventElapsedTime failed");
	*ar_s = ms * 1e-3 / iters;
	/* GEMMs ending inside [c0, c1]: the rate between the first and the last of them is the loaded rate
	 * (the first may have started before c0, so it only opens the interval) */
	int first = -1, last = -1;
	for (int i = 1; i <= k; i++) {
		float from_c0 = 0, to_c1 = 0;
		if (cudaEventElapsedTime(&from_c0, c0, g->ev[i]) != cudaSuccess ||
		    cudaEventElapsedTime(&to_c1, g->ev[i], c1) != cudaSuccess)
			continue;
		if (from_c0 > 0 && to_c1 >= 0) {
			if (first < 0)
				first = i;
			last = i;
		}
	}
	*gemm_s = NAN;
	if (first > 0 && last > first) {
		if (cudaEventElapsedTime(&ms, g->ev[first], g->ev[last]) == cudaSuccess)
			*gemm_s = ms * 1e-3 / (last - first);
	}
}

/* --load resnet: the engine's training step as the load. One step runs while back-to-back all-reduces
 * keep the comm stream busy from before it starts to after it ends; the step's time is the loaded
 * step, the all-reduces ending inside it give the loaded all-reduce rate. */
enum { STEP_BATCH = 256 };

static int step_load_init(gemm_load *g, int rank)
{
	memset(g, 0, sizeof(*g));
	g->resnet = true;
	g->name = "resnet50-b256";
	if (ex_net_plan(&g->net, STEP_BATCH, 1000, 224, EX_PREC_BF16) < 0)
		return ERR_INPUT;
	ex_net_init(&g->net, 1, 1024UL << 20, false);   /* dies (exit 2) on CUDA/cuDNN failures */
	ex_k_fill_normal(g->net.dt, ex_net_input(&g->net), g->net.tens[0].elems, 0.f, 1.f, 11 + 7919ULL * (uint64_t)rank,
			 g->net.stream);
	ex_k_fill_labels(g->net.labels, STEP_BATCH, 1000, 99 + 7919ULL * (uint64_t)rank, g->net.stream);
	for (int i = 0; i <= LOAD_MAX_GEMMS; i++) {
		if (cudaEventCreate(&g->ev[i]) != cudaSuccess)
			return err_set("cudaEventCreate failed");
		g->nev = i + 1;
	}
	float ms = 0;
	for (int i = 0; i < 5; i++)
		ex_net_train_step_graph(&g->net);
	if (cudaEventRecord(g->ev[0], g->net.stream) != cudaSuccess)
		return err_set("cudaEventRecord failed");
	for (int i = 0; i < 10; i++)
		ex_net_train_step_graph(&g->net);
	if (cudaEventRecord(g->ev[1], g->net.stream) != cudaSuccess || cudaStreamSynchronize(g->net.stream) != cudaSuccess ||
	    cudaEventElapsedTime(&ms, g->ev[0], g->ev[1]) != cudaSuccess)
		return err_set("timing the training step failed");
	g->alone_s = ms * 1e-3 / 10;
	return 0;
}

static void step_loaded(ex_dist *d, gemm_load *g, void *buf, long cnt, ex_dist_dtype t, cudaStream_t s,
			double ar_alone_s, cudaEvent_t a, cudaEvent_t b, double *ar_s, double *step_s)
{
	/* enough all-reduces for the host to enqueue them and the step, and to outlast a step slowed 2x */
	int n = (int)fmin(LOAD_MAX_GEMMS, ceil(3.0 * g->alone_s / ar_alone_s) + 4);
	ex_dist_heartbeat(d);
	for (int i = 0; i < n; i++) {
		if (ex_dist_allreduce(d, buf, cnt, t, s))
			ex_dist_fatal(d, EXIT_ENV, "all-reduce failed");
		if (cudaEventRecord(g->ev[i + 1], s) != cudaSuccess)
			ex_dist_fatal(d, EXIT_ENV, "cudaEventRecord failed");
		if (i == 1) {   /* the step starts once the comm stream is busy */
			if (cudaEventRecord(a, g->net.stream) != cudaSuccess)
				ex_dist_fatal(d, EXIT_ENV, "cudaEventRecord failed");
			ex_net_train_step_graph(&g->net);
			if (cudaEventRecord(b, g->net.stream) != cudaSuccess)
				ex_dist_fatal(d, EXIT_ENV, "cudaEventRecord failed");
		}
	}
	ex_dist_sync(d, s);
	if (cudaStreamSynchronize(g->net.stream) != cudaSuccess)
		ex_dist_fatal(d, EXIT_ENV, "training step failed");
	ex_dist_pause(d);
	float ms = 0, tail = 0;
	*ar_s = *step_s = NAN;
	/* valid only where the all-reduces outlasted the step */
	if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess || cudaEventElapsedTime(&tail, b, g->ev[n]) != cudaSuccess ||
	    !(tail > 0))
		return;
	*step_s = ms * 1e-3;
	int first = -1, last = -1;
	for (int i = 1; i <= n; i++) {
		float from_a = 0, to_b = 0;
		if (cudaEventElapsedTime(&from_a, a, g->ev[i]) != cudaSuccess ||
		    cudaEventElapsedTime(&to_b, g->ev[i], b) != cudaSuccess)
			continue;
		if (from_a > 0 && to_b >= 0) {
			if (first < 0)
				first = i;
			last = i;
		}
	}
	if (first > 0 && last > first && cudaEventElapsedTime(&ms, g->ev[first], g->ev[last]) == cudaSuccess)
		*ar_s = ms * 1e-3 / (last - first);
}

/* One sweep's state: the ranks, options, buffers, stream, compute load, CSV and timing events. */
typedef struct sweep {
	bench_args a;
	ex_dist *d;
	csvw *w;
	void *buf;
	float *dev32;
	cudaStream_t s;
	gemm_load *load;
	int rank, n;
	char host[64];
	cudaEvent_t e0, e1;
} sweep;

/* The ranks' boot and options (every rank agrees they are good; --help: exit 0), at least 2 ranks, the
 * communicator. -1 to go on, else the exit code. */
static int sweep_boot(sweep *sw, int argc, char **argv)
{
	if (ex_dist_boot(&sw->d, &argc, &argv)) {
		fprintf(stderr, "scaleplan-train: %s\n", err_msg());
		return EXIT_ENV;
	}
	ex_dist *d = sw->d;
	int pr = bench_parse(&sw->a, argc, argv);
	if (pr == 0 && ex_dist_opts_check(d, &sw->a.dist))
		pr = ERR_INPUT;
	if (pr == 0 && ex_dist_size(d) < 2)
		pr = err_set("--bench-allreduce needs at least 2 ranks (mpirun -np 2 ...)");
	if (!ex_dist_agree(d, pr == 0)) {
		if (ex_dist_rank(d) == 0) {
			if (pr == 1)
				usage(stdout);
			else
				fprintf(stderr, "scaleplan-train: %s\n", pr ? err_msg() : "bad input on another rank");
		}
		ex_dist_free(d);
		return pr == 1 ? EXIT_OK : EXIT_INPUT;
	}
	if (ex_dist_start(d, &sw->a.dist)) {
		fprintf(stderr, "scaleplan-train: rank %d: %s\n", ex_dist_rank(d), err_msg());
		ex_dist_free(d);
		return EXIT_ENV;
	}
	sw->rank = ex_dist_rank(d);
	sw->n = ex_dist_size(d);
	snprintf(sw->host, sizeof(sw->host), "%s", sw->a.machine ? sw->a.machine : ex_dist_host(d));
	return -1;
}

/* The stream (high priority, as the training comm stream in ex_dist.c, so that --load sees what training
 * sees), the buffers, the compute load (--load), the CSV's header, the table's header and the events. */
static void sweep_setup(sweep *sw)
{
	ex_dist *d = sw->d;
	int prio_lo, prio_hi;
	if (cudaDeviceGetStreamPriorityRange(&prio_lo, &prio_hi) != cudaSuccess ||
	    cudaStreamCreateWithPriority(&sw->s, cudaStreamNonBlocking, prio_hi) != cudaSuccess ||
	    cudaMalloc(&sw->buf, (size_t)sw->a.max_B) != cudaSuccess || cudaMalloc((void **)&sw->dev32, 4096) != cudaSuccess)
		ex_dist_fatal(d, EXIT_ENV, "no GPU memory for a %.0f-byte buffer", sw->a.max_B);
	if (sw->a.load) {
		gemm_load *load = sw->load = xcalloc(1, sizeof(*load));
		bool resnet = strcmp(sw->a.load, "resnet") == 0;
		if (resnet ? step_load_init(load, sw->rank) : gemm_load_init(load))
			ex_dist_fatal(d, EXIT_ENV, "%s", err_msg());
		ex_dist_max(d, &load->alone_s, 1);   /* every rank sizes its loops alike */
		if (sw->rank == 0 && resnet)
			printf("# load: the engine's ResNet-50 step, batch %d bf16, CUDA graph, %.2f ms alone\n", STEP_BATCH,
			       load->alone_s * 1e3);
		else if (sw->rank == 0)
			printf("# load: bf16 GEMM %dx%dx%d on a second stream, %.3f ms alone (%.0f TFLOP/s)\n", LOAD_N, LOAD_N,
			       LOAD_N, load->alone_s * 1e3, 2.0 * LOAD_N * LOAD_N * (double)LOAD_N / load->alone_s / 1e12);
	}
	if (sw->rank == 0 && sw->a.out && !(sw->w = csvw_open(sw->a.out)))
		ex_dist_fatal(d, EXIT_ENV, "%s", err_msg());
	if (sw->w) {
		const char *cols[] = { "source", "machine", "gpus", "nodes", "nccl_mode", "dtype", "bytes",
				       "time_s", "algbw_GBps", "busbw_GBps", "load", "load_alone_s", "load_loaded_s",
				       "time_loaded_s" };
		for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
			csvw_text(sw->w, cols[i]);
		csvw_end_row(sw->w);
	}
	if (sw->rank == 0) {
		printf("# all-reduce sweep: %d ranks, %d node(s), mode %s, in place, ncclAvg\n", sw->n, ex_dist_nodes(d),
		       ex_dist_mode_label(d));
		printf("%12s %6s %12s %10s %10s%s\n", "bytes", "dtype", "time_us", "algbw_GB/s", "busbw_GB/s",
		       sw->load ? "  loaded_us load_slowdown" : "");
	}
	if (cudaEventCreate(&sw->e0) != cudaSuccess || cudaEventCreate(&sw->e1) != cudaSuccess)
		ex_dist_fatal(d, EXIT_ENV, "cudaEventCreate failed");
}

/* Correctness of type t over total elements: every rank fills rank+1; the average is (n+1)/2, exact in every
 * type, at four places. */
static void sweep_check(sweep *sw, ex_dist_dtype t, long total)
{
	ex_dist *d = sw->d;
	size_t es = ex_dist_dtype_size(t);
	if (ex_dist_fill(sw->buf, t, total, (float)(sw->rank + 1), 0.0f, sw->s))
		ex_dist_fatal(d, EXIT_ENV, "fill kernel failed");
	if (ex_dist_allreduce(d, sw->buf, total, t, sw->s))
		ex_dist_fatal(d, EXIT_ENV, "all-reduce failed");
	float got[4];
	long probe[4] = { 0, total / 3, total / 2, total - 1 };
	for (int k = 0; k < 4; k++) {
		if (ex_dist_convert(sw->dev32 + k, EX_DIST_FP32, (char *)sw->buf + probe[k] * es, t, 1, sw->s))
			ex_dist_fatal(d, EXIT_ENV, "convert kernel failed");
	}
	if (cudaMemcpyAsync(got, sw->dev32, sizeof(got), cudaMemcpyDeviceToHost, sw->s) != cudaSuccess)
		ex_dist_fatal(d, EXIT_ENV, "cudaMemcpyAsync failed");
	ex_dist_sync(d, sw->s);
	float want = (float)(sw->n + 1) / 2.0f;
	for (int k = 0; k < 4; k++)
		if (got[k] != want)
			ex_dist_fatal(d, EXIT_ENV, "%s all-reduce is wrong: element %ld is %g, expected %g",
				      ex_dist_dtype_name(t), probe[k], got[k], want);
}

/* The mean time of iters all-reduces of cnt elements of t after a warm-up, the slowest rank's. */
static double sweep_time(sweep *sw, ex_dist_dtype t, long cnt, int iters)
{
	ex_dist *d = sw->d;
	int warm = iters / 5 > 2 ? iters / 5 : 2;
	for (int i = 0; i < warm; i++)
		if (ex_dist_allreduce(d, sw->buf, cnt, t, sw->s))
			ex_dist_fatal(d, EXIT_ENV, "all-reduce failed");
	ex_dist_heartbeat(d);
	if (cudaEventRecord(sw->e0, sw->s) != cudaSuccess)
		ex_dist_fatal(d, EXIT_ENV, "cudaEventRecord failed");
	for (int i = 0; i < iters; i++)
		if (ex_dist_allreduce(d, sw->buf, cnt, t, sw->s))
			ex_dist_fatal(d, EXIT_ENV, "all-reduce failed");
	if (cudaEventRecord(sw->e1, sw->s) != cudaSuccess)
		ex_dist_fatal(d, EXIT_ENV, "cudaEventRecord failed");
	ex_dist_sync(d, sw->s);
	ex_dist_pause(d);
	float ms = 0;
	if (cudaEventElapsedTime(&ms, sw->e0, sw->e1) != cudaSuccess)
		ex_dist_fatal(d, EXIT_ENV, "cudaEventElapsedTime failed");
	double t_s = ms * 1e-3 / iters;
	ex_dist_max(d, &t_s, 1);
	return t_s;
}

/* One CSV row: the size's time and bandwidths, and beside the load (lv: all-reduce and load time, -1 none). */
static void sweep_row(sweep *sw, ex_dist_dtype t, double real_B, double t_s, double algbw, double busbw, const double *lv)
{
	csvw *w = sw->w;
	csvw_text(w, "exec");
	csvw_text(w, sw->host);
	csvw_int(w, sw->n);
	csvw_int(w, ex_dist_nodes(sw->d));
	csvw_text(w, ex_dist_mode_label(sw->d));
	csvw_text(w, ex_dist_dtype_name(t));
	csvw_num(w, real_B, 15);
	csvw_num(w, t_s, 6);
	csvw_num(w, algbw, 6);
	csvw_num(w, busbw, 6);
	if (sw->load && (lv[0] > 0 || lv[1] > 0)) {
		csvw_text(w, sw->load->resnet ? sw->load->name : "gemm");
		csvw_num(w, sw->load->alone_s, 6);
		if (lv[1] > 0)
			csvw_num(w, lv[1], 6);
		else
			csvw_text(w, "");
		if (lv[0] > 0)
			csvw_num(w, lv[0], 6);
		else
			csvw_text(w, "");
	} else {
		for (int k = 0; k < 4; k++)
			csvw_text(w, "");
	}
	csvw_end_row(w);
}

/* One message size of type t: its time alone and, for bucket-sized messages (4-128 MiB), beside the load (the
 * slowest rank's figures); a line of the table and a CSV row. */
static void sweep_size(sweep *sw, ex_dist_dtype t, double bytes)
{
	size_t es = ex_dist_dtype_size(t);
	long cnt = (long)(bytes / (double)es);
	if (cnt < 1)
		return;
	int iters = sw->a.iters ? sw->a.iters : (int)fmin(200, fmax(5, 4e9 / bytes / 4));
	double t_s = sweep_time(sw, t, cnt, iters);
	double real_B = (double)cnt * (double)es;
	double algbw = real_B / t_s / 1e9, busbw = algbw * 2.0 * (sw->n - 1) / sw->n;
	double lv[2] = { -1, -1 };
	gemm_load *load = sw->load;
	if (load && real_B >= 4.0 * 1048576 && real_B <= 128.0 * 1048576) {
		double ar_l, gemm_l;
		if (load->resnet)
			step_loaded(sw->d, load, sw->buf, cnt, t, sw->s, t_s, sw->e0, sw->e1, &ar_l, &gemm_l);
		else
			time_loaded(sw->d, load, sw->buf, cnt, t, sw->s, iters < 20 ? iters : 20, t_s, sw->e0, sw->e1, &ar_l,
				    &gemm_l);
		lv[0] = isfinite(ar_l) ? ar_l : -1;
		lv[1] = isfinite(gemm_l) ? gemm_l : -1;
		ex_dist_max(sw->d, lv, 2);
	}
	if (sw->rank == 0) {
		printf("%12.0f %6s %12.2f %10.2f %10.2f", real_B, ex_dist_dtype_name(t), t_s * 1e6, algbw, busbw);
		if (load && (lv[0] > 0 || lv[1] > 0))
			printf("  %9.2f %13.3f", lv[0] * 1e6, lv[1] > 0 ? lv[1] / load->alone_s : NAN);
		printf("\n");
		fflush(stdout);
	}
	if (sw->w)
		sweep_row(sw, t, real_B, t_s, algbw, busbw, lv);
}

int ex_dist_bench_main(int argc, char **argv)
{
	sweep *sw = xcalloc(1, sizeof(*sw));
	int rc = sweep_boot(sw, argc, argv);
	if (rc >= 0) {
		free(sw);
		return rc;
	}
	sweep_setup(sw);
	for (int ti = 0; ti < sw->a.ndtypes; ti++) {
		ex_dist_dtype t = sw->a.dtypes[ti];
		sweep_check(sw, t, (long)((size_t)sw->a.max_B / ex_dist_dtype_size(t)));
		for (double bytes = sw->a.min_B; bytes <= sw->a.max_B * 1.0000001; bytes *= 2)
			sweep_size(sw, t, bytes);
	}
	rc = EXIT_OK;
	if (sw->w && csvw_close(sw->w)) {
		fprintf(stderr, "scaleplan-train: %s\n", err_msg());
		rc = EXIT_ENV;
	}
	cudaEventDestroy(sw->e0);
	cudaEventDestroy(sw->e1);
	if (sw->load) {
		gemm_load_free(sw->load);
		free(sw->load);
	}
	cudaFree(sw->buf);
	cudaFree(sw->dev32);
	cudaStreamDestroy(sw->s);
	ex_dist_free(sw->d);
	free(sw);
	return rc;
}
