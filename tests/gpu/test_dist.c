/* tests/gpu/test_dist: GPU tests and drivers of exec's data-parallel layer.
 *
 *   test_dist --ckpt-selftest                 checkpoint format: round trip, checksum, truncation
 *                                             (host only, one process)
 *   test_dist --bench-allreduce [...]         the all-reduce sweep (same as scaleplan-train's)
 *   test_dist --train --batch-per-gpu B [--iters N --warmup-iters W --graph --csv F
 *             --baseline-img-s X --ckpt-dir D --ckpt-every-steps K --resume --log-every K ...]
 *       data-parallel ResNet-50 on exec's engine (ex_net) through this layer's hooks: synthetic
 *       224x224 data (own batch per rank), docs/design.md measurement CSV rows per rank + a run row;
 *       the integration scaleplan-train's main loop is meant to copy
 *   test_dist --mock-train [--steps N] [--kill-rank R --kill-step S] [dist options]
 *       backward replaced by kernels writing ResNet-50-shaped gradient ranges (rank-dependent
 *       values) in reverse layer order through the same hooks scaleplan-train uses; checks every
 *       step that the buckets averaged the gradients (tolerance 1e-6 fp32, 1e-2 bf16/fp16) and
 *       prints the bucket plan and event timings. With --kill-rank, that rank SIGKILLs itself
 *       at step S (--hang: stops at step S instead): the job must end non-zero, naming a rank,
 *       within --nccl-timeout.
 *
 * Ends with "N passed, N failed" (rank 0). Run under mpirun or bench/launch_local.sh.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "exec/ex_ckpt.h"
#include "exec/ex_dist.h"
#include "model/model.h"
#include "tests/test.h"

#ifndef EX_DIST_GIT_SHA
#define EX_DIST_GIT_SHA "unknown"
#endif

static int ckpt_selftest(void)
{
	test_ctx t = { 0 };
	char dir[] = "/tmp/test_dist_ckptXXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	char *path = xasprintf("%s/ckpt.bin", dir);
	static float w[1000];
	for (int i = 0; i < 1000; i++)
		w[i] = (float)i * 0.5f;
	ex_ckpt_meta m;
	memset(&m, 0, sizeof(m));
	m.epoch = 3;
	m.step = 4242;
	m.rng[2] = 77;
	ex_ckpt_section sec[] = { { "meta", sizeof(m), &m }, { "w32", sizeof(w), w }, { "empty", 0, "" } };
	TEST_CHECK(&t, ex_ckpt_write_sections(path, sec, 3) == 0, "write: %s", err_msg());
	ex_ckpt_file f;
	TEST_CHECK(&t, ex_ckpt_read_sections(&f, path) == 0, "read: %s", err_msg());
	const ex_ckpt_meta *pm = ex_ckpt_find(&f, "meta", sizeof(m));
	const float *pw = ex_ckpt_find(&f, "w32", sizeof(w));
	TEST_CHECK(&t, pm && pm->step == 4242 && pm->epoch == 3 && pm->rng[2] == 77, "meta round trip");
	TEST_CHECK(&t, pw && memcmp(pw, w, sizeof(w)) == 0, "weights round trip");
	TEST_CHECK(&t, ex_ckpt_find(&f, "w32", sizeof(w) - 4) == NULL, "size mismatch must be refused");
	TEST_CHECK(&t, ex_ckpt_find(&f, "nope", 4) == NULL, "missing section must be refused");
	ex_ckpt_file_free(&f);
	/* no temporary file left behind */
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	TEST_CHECK(&t, access(tmp, F_OK) != 0, "temporary file %s left behind", tmp);
	free(tmp);
	/* flip one byte of the weights: checksum must catch it */
	FILE *fp = fopen(path, "r+b");
	TEST_CHECK(&t, fp != NULL, "reopen");
	if (fp) {
		fseek(fp, -100, SEEK_END);
		int c = fgetc(fp);
		fseek(fp, -100, SEEK_END);
		fputc(c ^ 0x40, fp);
		fclose(fp);
	}
	TEST_CHECK(&t, ex_ckpt_read_sections(&f, path) != 0 && strstr(err_msg(), "checksum"),
		   "corruption not detected: %s", err_msg());
	/* truncation */
	TEST_CHECK(&t, ex_ckpt_write_sections(path, sec, 3) == 0, "rewrite");
	TEST_CHECK(&t, truncate(path, 200) == 0, "truncate");
	TEST_CHECK(&t, ex_ckpt_read_sections(&f, path) != 0, "truncated file accepted");
	/* not a checkpoint */
	fp = fopen(path, "wb");
	if (fp) {
		fputs("hello, world, this is not a checkpoint", fp);
		fclose(fp);
	}
	TEST_CHECK(&t, ex_ckpt_read_sections(&f, path) != 0 && strstr(err_msg(), "not a scaleplan"),
		   "foreign file accepted: %s", err_msg());
	/* policy */
	ex_ckpt_policy p;
	ex_ckpt_policy_init(&p);
	TEST_CHECK(&t, ex_ckpt_opt_set(&p, "ckpt-every-min", "-1") == ERR_INPUT, "negative minutes");
	TEST_CHECK(&t, ex_ckpt_opt_set(&p, "bogus", "1") == 1, "unknown option passes through");
	TEST_CHECK(&t, ex_ckpt_opt_set(&p, "resume", NULL) == 0 && ex_ckpt_policy_check(&p) != 0,
		   "--resume without --ckpt-dir accepted");
	p.dir = dir;
	p.resume = false;
	TEST_CHECK(&t, ex_ckpt_due(&p, true, 1, p.last_s), "epoch-end checkpoint by default");
	TEST_CHECK(&t, !ex_ckpt_due(&p, false, 1, p.last_s + 1e6), "no time-based checkpoint by default");
	TEST_CHECK(&t, ex_ckpt_opt_set(&p, "ckpt-every-min", "0.5") == 0 && ex_ckpt_due(&p, false, 1, p.last_s + 31),
		   "time-based checkpoint");
	unlink(path);
	rmdir(dir);
	free(path);
	return test_report(&t);
}

static int mock_train(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mock-train", no_argument, NULL, 'M' },      { "steps", required_argument, NULL, 's' },
		{ "kill-rank", required_argument, NULL, 'r' }, { "kill-step", required_argument, NULL, 'k' },
		{ "hang", no_argument, NULL, 'H' },
		{ "nccl-mode", required_argument, NULL, 0 },   { "emulate-nodes", required_argument, NULL, 0 },
		{ "grad-precision", required_argument, NULL, 0 }, { "bucket-mb", required_argument, NULL, 0 },
		{ "nccl-timeout", required_argument, NULL, 0 }, { "no-overlap", no_argument, NULL, 0 },
		{ NULL, 0, NULL, 0 },
	};
	bool hang = false;
	ex_dist *d;
	ex_dist_opts o;
	int steps = 30, kill_rank = -1, kill_step = -1, c, idx, bad = 0;
	if (ex_dist_boot(&d, &argc, &argv)) {
		fprintf(stderr, "test_dist: %s\n", err_msg());
		return 2;
	}
	ex_dist_opts_default(&o);
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, &idx)) != -1) {
		if (c == 0 && ex_dist_opt_set(&o, opts[idx].name, optarg) != 0)
			bad = 1;
		else if (c == 's')
			steps = atoi(optarg);
		else if (c == 'r')
			kill_rank = atoi(optarg);
		else if (c == 'k')
			kill_step = atoi(optarg);
		else if (c == 'H')
			hang = true;
		else if (c == '?')
			bad = 1;
	}
	if (!bad && ex_dist_opts_check(d, &o))
		bad = 1;
	if (!bad && ex_dist_size(d) < 2)
		bad = err_set("--mock-train needs at least 2 ranks");
	if (!ex_dist_agree(d, !bad)) {
		if (ex_dist_rank(d) == 0)
			fprintf(stderr, "test_dist: bad arguments: %s\n", err_msg());
		ex_dist_free(d);
		return 1;
	}
	if (ex_dist_start(d, &o)) {
		fprintf(stderr, "test_dist: %s\n", err_msg());
		return 2;
	}
	int rank = ex_dist_rank(d), n = ex_dist_size(d);
	test_ctx t = { 0 };
	model_net net;
	if (model_net_resnet50(&net, 1000, 224))
		ex_dist_fatal(d, 1, "model: %s", err_msg());
	long total = net.params;
	float *g;
	cudaStream_t s;
	float *probe_d;
	if (cudaMalloc((void **)&g, total * sizeof(float)) || cudaMalloc((void **)&probe_d, 64 * sizeof(float)) ||
	    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking))
		ex_dist_fatal(d, 2, "CUDA allocation failed");
	if (ex_dist_attach(d, g, EX_DIST_FP32, total))
		ex_dist_fatal(d, 2, "%s", err_msg());
	long *off = xcalloc((size_t)net.nlayers, sizeof(long));
	long acc = 0;
	for (int l = 0; l < net.nlayers; l++) {
		off[l] = acc;
		acc += net.layers[l].params;
	}
	ex_dist_times tm = { 0 };
	double tol = o.grad_dtype == EX_DIST_FP32 ? 1e-6 : 1e-2;
	double t0 = time_now_s();
	for (int step = 0; step < steps; step++) {
		ex_dist_heartbeat(d);
		if (rank == kill_rank && step == kill_step && hang) {
			fprintf(stderr, "test_dist: rank %d hangs (stops calling NCCL) at step %d\n", rank, step);
			fflush(stderr);
			for (;;)
				pause();
		}
		if (rank == kill_rank && step == kill_step) {
			fprintf(stderr, "test_dist: rank %d kills itself (SIGKILL) at step %d\n", rank, step);
			fflush(stderr);
			raise(SIGKILL);
		}
		float scale = (float)(1 + step % 3);
		for (int l = net.nlayers - 1; l >= 0; l--) {
			long cnt = net.layers[l].params;
			if (!cnt)
				continue;
			if (ex_dist_fill(g + off[l], EX_DIST_FP32, cnt, (float)(rank + 1) * scale, 0.25f, s))
				ex_dist_fatal(d, 2, "fill failed");
			ex_dist_grad_ready(d, (size_t)off[l], (size_t)cnt, s);
		}
		ex_dist_before_optimizer(d, s);
		/* probes: first, middle, last element and one per bucket start */
		long pidx[8] = { 0, total / 2, total - 1, 12345, total / 3, total - 777, 1, 2 * total / 3 };
		float got[8];
		for (int k = 0; k < 8; k++)
			cudaMemcpyAsync(got + k, g + pidx[k], sizeof(float), cudaMemcpyDeviceToHost, s);
		ex_dist_sync(d, s);
		ex_dist_times_sample(d, &tm);
		for (int k = 0; k < 8; k++) {
			/* element i of layer l holds (rank+1)*scale + 0.25*((i - off[l]) % 1024); the
			 * second term is rank-independent, so the average is ((n+1)/2)*scale + that */
			int l = 0;
			while (l + 1 < net.nlayers && off[l + 1] <= pidx[k])
				l++;
			while (net.layers[l].params == 0 || pidx[k] >= off[l] + net.layers[l].params)
				l--;
			double want = (n + 1) / 2.0 * scale + 0.25 * (double)((pidx[k] - off[l]) % 1024);
			TEST_NEAR(&t, got[k], want, tol);
		}
	}
	double wall = time_now_s() - t0;
	ex_dist_pause(d);
	if (rank == 0) {
		printf("# mock-train: %d ranks, mode %s, %s, %d buckets over %ld elements:", n,
		       ex_dist_mode_label(d), ex_dist_dtype_name(o.grad_dtype), ex_dist_nbuckets(d), total);
		for (int b = 0; b < ex_dist_nbuckets(d) && b < 12; b++)
			printf(" [%ld,+%ld)", ex_dist_get_bucket(d, b)->off, ex_dist_get_bucket(d, b)->n);
		printf("\n# per step: all-reduce %.3f ms, exposed %.3f ms (%ld sampled), wall %.3f ms\n",
		       tm.iters ? tm.allreduce_s / tm.iters * 1e3 : 0.0, tm.iters ? tm.exposed_s / tm.iters * 1e3 : 0.0,
		       tm.iters, wall / steps * 1e3);
		TEST_CHECK(&t, tm.iters == steps, "sampled %ld of %d steps", tm.iters, steps);
		TEST_CHECK(&t, ex_dist_nbuckets(d) >= 2, "only %d bucket(s)", ex_dist_nbuckets(d));
	}
	double fails = t.failed;
	ex_dist_sum(d, &fails, 1);
	free(off);
	model_net_free(&net);
	cudaFree(g);
	cudaFree(probe_d);
	cudaStreamDestroy(s);
	ex_dist_free(d);
	if (rank != 0)
		return fails > 0;
	return test_report(&t) || fails > 0;
}


/* ---- --train: data-parallel ResNet-50 on exec's engine (ex_net) + this layer ---- */

typedef struct train_args {
	int batch, iters, warmup, log_every, kill_rank, kill_step;
	long seed;
	bool graph;
	ex_prec prec;
	const char *prec_name, *csv, *machine, *run_id;
	double baseline_img_s;
	long ckpt_every_steps;
	ex_dist_opts dist;
	ex_ckpt_policy ck;
} train_args;

static int train_parse(train_args *a, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "train", no_argument, NULL, 'T' },              { "batch-per-gpu", required_argument, NULL, 'b' },
		{ "iters", required_argument, NULL, 'i' },        { "warmup-iters", required_argument, NULL, 'w' },
		{ "precision", required_argument, NULL, 'p' },    { "no-graph", no_argument, NULL, 'G' },
		{ "graph", no_argument, NULL, 'g' },              { "csv", required_argument, NULL, 'o' },
		{ "machine", required_argument, NULL, 'M' },      { "run-id", required_argument, NULL, 'I' },
		{ "seed", required_argument, NULL, 'z' },         { "baseline-img-s", required_argument, NULL, 'B' },
		{ "log-every", required_argument, NULL, 'L' },    { "kill-rank", required_argument, NULL, 'r' },
		{ "kill-step", required_argument, NULL, 'k' },    { "ckpt-every-steps", required_argument, NULL, 'C' },
		{ "nccl-mode", required_argument, NULL, 0 },      { "emulate-nodes", required_argument, NULL, 0 },
		{ "grad-precision", required_argument, NULL, 0 }, { "bucket-mb", required_argument, NULL, 0 },
		{ "nccl-timeout", required_argument, NULL, 0 },   { "no-overlap", no_argument, NULL, 0 },
		{ "ckpt-dir", required_argument, NULL, 0 },       { "ckpt-every-epochs", required_argument, NULL, 0 },
		{ "ckpt-every-min", required_argument, NULL, 0 }, { "resume", no_argument, NULL, 0 },
		{ NULL, 0, NULL, 0 },
	};
	int c, idx;
	memset(a, 0, sizeof(*a));
	a->batch = 256;
	a->iters = 100;
	a->warmup = 20;
	a->kill_rank = a->kill_step = -1;
	a->seed = 1;
	a->prec = EX_PREC_BF16;
	a->prec_name = "bf16";
	a->machine = "local";
	a->run_id = "dist";
	ex_dist_opts_default(&a->dist);
	ex_ckpt_policy_init(&a->ck);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, &idx)) != -1) {
		switch (c) {
		case 0: {
			int r = ex_dist_opt_set(&a->dist, opts[idx].name, optarg);
			if (r == 1)
				r = ex_ckpt_opt_set(&a->ck, opts[idx].name, optarg);
			if (r != 0)
				return ERR_INPUT;
			break;
		}
		case 'T': break;
		case 'b': a->batch = atoi(optarg); break;
		case 'i': a->iters = atoi(optarg); break;
		case 'w': a->warmup = atoi(optarg); break;
		case 'p':
			a->prec_name = optarg;
			if (!strcmp(optarg, "bf16")) a->prec = EX_PREC_BF16;
			else if (!strcmp(optarg, "fp16")) a->prec = EX_PREC_FP16;
			else if (!strcmp(optarg, "tf32")) a->prec = EX_PREC_TF32;
			else if (!strcmp(optarg, "fp32")) a->prec = EX_PREC_FP32;
			else return err_set("--precision: '%s' is not bf16, fp16, tf32 or fp32", optarg);
			break;
		case 'G': a->graph = false; break;
		case 'g': a->graph = true; break;
		case 'o': a->csv = optarg; break;
		case 'M': a->machine = optarg; break;
		case 'I': a->run_id = optarg; break;
		case 'z': a->seed = atol(optarg); break;
		case 'B': a->baseline_img_s = atof(optarg); break;
		case 'L': a->log_every = atoi(optarg); break;
		case 'r': a->kill_rank = atoi(optarg); break;
		case 'k': a->kill_step = atoi(optarg); break;
		case 'C': a->ckpt_every_steps = atol(optarg); break;
		default: return err_set("unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (a->batch < 1 || a->batch > 4096)
		return err_set("--batch-per-gpu %d: expected 1..4096", a->batch);
	if (a->iters < 1 || a->warmup < 0)
		return err_set("--iters must be >= 1 and --warmup-iters >= 0");
	if (a->ckpt_every_steps && !a->ck.dir)
		return err_set("--ckpt-every-steps needs --ckpt-dir");
	return ex_ckpt_policy_check(&a->ck);
}

static void train_step(ex_net *net, bool graph)
{
	if (graph)
		ex_net_train_step_graph(net);
	else
		ex_net_train_step(net, false);
}

/* One --train job: its options, ranks, net, checkpoint and what the steps measured. */
typedef struct train_run {
	train_args a;
	ex_dist *d;
	ex_net net;
	int rank, n;
	struct cudaDeviceProp prop;
	size_t free0;
	char *ckpath;
	ex_ckpt_meta meta;
	ex_dist_times tm;
	double fwd, bwd, opt, last_loss, t_timed;
	long timed, step;
	int nprof;
} train_run;

/* The net of batch a.batch on every rank (same seed: same weights), its optimizer, each rank's own synthetic
 * batch, the gradients attached to the communicator. */
static void train_net_init(train_run *tr)
{
	ex_net *net = &tr->net;
	train_args *a = &tr->a;
	memset(net, 0, sizeof(*net));
	if (ex_net_plan(net, a->batch, 1000, 224, a->prec) < 0)
		ex_dist_fatal(tr->d, 1, "%s", err_msg());
	for (int i = 0; i < net->p.ntensors; i++)
		net->p.tensors[i].decay = true;
	net->label_smoothing = 0.1f;
	net->bn_momentum = 0.1f;
	net->bn_eps = 1e-5f;
	ex_net_init(net, (uint64_t)a->seed, 1024UL << 20, false);   /* same seed: same weights on every rank */
	ex_opt_cfg *o = &net->opt;
	o->momentum = 0.9f;
	o->weight_decay = 5e-5f;
	o->dynamic_scale = a->prec == EX_PREC_FP16;
	o->sched.kind = EX_SCHED_COSINE;
	o->sched.base_lr = 0.1f;
	o->sched.power = 2.f;
	o->sched.step_gamma = 0.1f;
	o->sched.total_steps = a->iters + 10;
	/* each rank its own synthetic batch */
	ex_k_fill_normal(net->dt, ex_net_input(net), net->tens[0].elems, 0.f, 1.f,
			 (uint64_t)a->seed + 1000003ULL * tr->rank, net->stream);
	ex_k_fill_labels(net->labels, a->batch, 1000, (uint64_t)a->seed + 99 + 7919ULL * tr->rank, net->stream);
	if (ex_dist_attach(tr->d, net->p.grad, EX_DIST_FP32, (long)net->p.n))
		ex_dist_fatal(tr->d, 2, "%s", err_msg());
	ex_dist_hooks(tr->d, &net->hooks);
}

/* --resume: the checkpoint's weights and step (written by as many ranks as this job has). */
static void train_resume(train_run *tr)
{
	tr->ckpath = tr->a.ck.dir ? ex_ckpt_path(&tr->a.ck) : NULL;
	memset(&tr->meta, 0, sizeof(tr->meta));
	if (!tr->a.ck.resume)
		return;
	if (ex_ckpt_load(tr->ckpath, &tr->net, &tr->meta))
		ex_dist_fatal(tr->d, 1, "--resume: %s", err_msg());
	if (tr->meta.world_size != tr->n)
		ex_dist_fatal(tr->d, 1, "--resume: %s was written by %d ranks, this job has %d", tr->ckpath,
			      tr->meta.world_size, tr->n);
	tr->step = tr->meta.step;
	if (tr->rank == 0)
		printf("# resumed from %s at step %ld (loss %.4f when written)\n", tr->ckpath, tr->step, tr->meta.last_loss);
}

/* One profiled step (the last 5 warm-up steps): phase events, bucket timings. */
static void train_profiled(train_run *tr)
{
	ex_net *net = &tr->net;
	ex_net_train_step(net, true);
	ex_dist_sync(tr->d, net->stream);
	float f, b, p;
	cudaEventElapsedTime(&f, net->ev[0], net->ev[1]);
	cudaEventElapsedTime(&b, net->ev[1], net->ev[2]);
	cudaEventElapsedTime(&p, net->ev[2], net->ev[3]);
	tr->fwd += f * 1e-3;
	tr->bwd += b * 1e-3;
	tr->opt += p * 1e-3;
	tr->nprof++;
	ex_dist_times_sample(tr->d, &tr->tm);
}

/* After step `step`: the mean loss over ranks every --log-every steps (a collective: every rank takes the same
 * branch) and the checkpoint when due (rank 0 writes alone: the weights are identical on every rank; no
 * collective there, so a time-based decision taken on rank 0 alone is safe). */
static void train_after_step(train_run *tr, long step)
{
	train_args *a = &tr->a;
	bool log_now = a->log_every > 0 && (step + 1) % a->log_every == 0;
	bool ck_now = tr->ckpath && ((a->ckpt_every_steps && (step + 1) % a->ckpt_every_steps == 0) ||
				     ex_ckpt_due(&a->ck, false, 0, time_now_s()));
	if (log_now) {
		ex_dev_state st;
		ex_net_take_stats(&tr->net, &st);
		double l = st.seen ? st.loss_sum / st.seen : NAN;
		ex_dist_sum(tr->d, &l, 1);
		tr->last_loss = l / tr->n;
		if (tr->rank == 0)
			printf("step %ld loss %.4f (mean over ranks)\n", step + 1, tr->last_loss);
	}
	if (ck_now && tr->rank == 0) {
		ex_ckpt_meta *m = &tr->meta;
		m->step = step + 1;
		m->world_size = tr->n;
		m->batch_per_gpu = a->batch;
		m->seed = (uint64_t)a->seed;
		m->images = (step + 1) * (int64_t)a->batch * tr->n;
		m->last_loss = tr->last_loss;
		snprintf(m->run_id, sizeof(m->run_id), "%s", a->run_id);
		double t0 = time_now_s();
		if (ex_ckpt_save(tr->ckpath, &tr->net, m))
			ex_dist_fatal(tr->d, 2, "checkpoint: %s", err_msg());
		printf("# checkpoint at step %ld: %s (%.2f s)\n", step + 1, tr->ckpath, time_now_s() - t0);
		a->ck.last_s = time_now_s();
	}
	fflush(stdout);
}

/* The steps: warm-up (its last 5 profiled), then the timed ones (events around them all); --kill-rank's rank
 * kills itself at --kill-step. */
static void train_loop(train_run *tr)
{
	train_args *a = &tr->a;
	long warm_end = tr->step + a->warmup;
	cudaEvent_t e0, e1;
	cudaEventCreate(&e0);
	cudaEventCreate(&e1);
	bool timing_on = false;
	for (; tr->step < a->iters; tr->step++) {
		long step = tr->step;
		ex_dist_heartbeat(tr->d);
		if (tr->rank == a->kill_rank && step == a->kill_step) {
			fprintf(stderr, "test_dist: rank %d kills itself (SIGKILL) at step %ld\n", tr->rank, step);
			fflush(stderr);
			raise(SIGKILL);
		}
		if (step >= warm_end - 5 && step < warm_end) {
			train_profiled(tr);
		} else {
			if (step == warm_end && !timing_on) {
				ex_dist_sync(tr->d, tr->net.stream);
				ex_dist_barrier(tr->d);
				cudaEventRecord(e0, tr->net.stream);
				timing_on = true;
			}
			train_step(&tr->net, a->graph);
			if (timing_on)
				tr->timed++;
		}
		train_after_step(tr, step);
	}
	if (timing_on) {
		cudaEventRecord(e1, tr->net.stream);
		ex_dist_sync(tr->d, tr->net.stream);
		float ms;
		cudaEventElapsedTime(&ms, e0, e1);
		tr->t_timed = ms * 1e-3;
	}
}

enum { F_IMG, F_ITER, F_FWD, F_BWD, F_OPT, F_AR, F_EXP, F_LOSS, F_MEM, NF };

/* The measurement CSV: the run row (r = -1: sums and means), then one row per rank. */
static void train_csv(const train_run *tr, const double *all, const double *sum, double thr, double iter_max,
		      double eff)
{
	const train_args *a = &tr->a;
	int n = tr->n;
	csvw *w = csvw_open(a->csv);
	if (!w)
		ex_dist_fatal(tr->d, 2, "%s", err_msg());
	static const char *cols[] = {
		"source", "run_id", "machine", "gpu", "nodes", "gpus_per_node", "gpus", "nccl_mode",
		"batch_per_gpu", "global_batch", "precision", "data", "data_threads", "epoch", "iters",
		"throughput_img_s", "per_gpu_img_s", "scaling_eff", "iter_s", "fwd_s", "bwd_s", "opt_s",
		"allreduce_s", "comm_exposed_s", "data_wait_s", "loss", "top1", "peak_mem_B", "git_sha",
		"rank", "grad_precision", "bucket_mb", "graph", "step", "compute_s" };
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		csvw_text(w, cols[i]);
	csvw_end_row(w);
	for (int r = -1; r < n; r++) {
		double v[NF];
		for (int f = 0; f < NF; f++)
			v[f] = r < 0 ? sum[f] / n : all[f * n + r];
		double img = r < 0 ? thr : v[F_IMG];
		csvw_text(w, "exec");
		csvw_text(w, a->run_id);
		csvw_text(w, a->machine);
		csvw_text(w, tr->prop.name);
		csvw_int(w, ex_dist_nodes(tr->d));
		csvw_int(w, ex_dist_gpus_per_node(tr->d));
		csvw_int(w, n);
		csvw_text(w, n > 1 ? ex_dist_mode_label(tr->d) : "none");
		csvw_int(w, a->batch);
		csvw_int(w, (long)a->batch * n);
		csvw_text(w, a->prec_name);
		csvw_text(w, "synthetic");
		csvw_int(w, 0);
		csvw_text(w, "");
		csvw_int(w, tr->timed);
		csvw_num(w, img, 6);
		csvw_num(w, r < 0 ? thr / n : img, 6);
		csvw_num(w, n == 1 ? 1.0 : a->baseline_img_s > 0 ? (r < 0 ? eff : img / a->baseline_img_s) : NAN, 4);
		csvw_num(w, r < 0 ? iter_max : v[F_ITER], 6);
		csvw_num(w, v[F_FWD], 6);
		csvw_num(w, v[F_BWD], 6);
		csvw_num(w, v[F_OPT], 6);
		csvw_num(w, v[F_AR], 6);
		csvw_num(w, v[F_EXP], 6);
		csvw_num(w, 0, 3);
		csvw_num(w, v[F_LOSS], 6);
		csvw_num(w, NAN, 3);
		csvw_num(w, v[F_MEM], 12);
		csvw_text(w, EX_DIST_GIT_SHA);
		if (r < 0)
			csvw_text(w, "all");
		else
			csvw_int(w, r);
		csvw_text(w, ex_dist_dtype_name(a->dist.grad_dtype));
		csvw_num(w, a->dist.bucket_B / 1048576.0, 4);
		csvw_int(w, a->graph);
		csvw_int(w, tr->step);
		csvw_num(w, v[F_FWD] + v[F_BWD] + v[F_OPT] - v[F_EXP], 6);
		csvw_end_row(w);
	}
	if (csvw_close(w))
		fprintf(stderr, "test_dist: %s\n", err_msg());
}

/* Each rank's figures gathered on rank 0 (slot r of each field), then its DIST_RESULT line and the CSV. */
static void train_report(train_run *tr)
{
	int n = tr->n, rank = tr->rank;
	size_t free1, tot;
	ex_dev_state st;
	ex_net_take_stats(&tr->net, &st);
	if (st.seen)
		tr->last_loss = st.loss_sum / st.seen;   /* this rank's, since the last log point */
	cudaMemGetInfo(&free1, &tot);
	double mine[NF];
	mine[F_ITER] = tr->timed ? tr->t_timed / tr->timed : NAN;
	mine[F_IMG] = tr->timed ? tr->a.batch / mine[F_ITER] : NAN;
	mine[F_FWD] = tr->nprof ? tr->fwd / tr->nprof : NAN;
	mine[F_BWD] = tr->nprof ? tr->bwd / tr->nprof : NAN;
	mine[F_OPT] = tr->nprof ? tr->opt / tr->nprof : NAN;
	mine[F_AR] = tr->tm.iters ? tr->tm.allreduce_s / tr->tm.iters : 0;
	mine[F_EXP] = tr->tm.iters ? tr->tm.exposed_s / tr->tm.iters : 0;
	mine[F_LOSS] = tr->last_loss;
	mine[F_MEM] = (double)(tr->free0 - free1);
	double *all = xcalloc((size_t)NF * n, sizeof(double));
	for (int f = 0; f < NF; f++)
		all[f * n + rank] = mine[f];
	for (int f = 0; f < NF; f++)
		ex_dist_sum(tr->d, all + f * n, n);
	if (rank == 0) {
		const train_args *a = &tr->a;
		double thr = 0, iter_max = 0, sum[NF] = { 0 };
		for (int r = 0; r < n; r++) {
			thr += all[F_IMG * n + r];
			iter_max = fmax(iter_max, all[F_ITER * n + r]);
			for (int f = 0; f < NF; f++)
				sum[f] += all[f * n + r];
		}
		double eff = n == 1 ? 1.0 : a->baseline_img_s > 0 ? thr / (n * a->baseline_img_s) : NAN;
		printf("DIST_RESULT gpus=%d nodes=%d mode=%s batch=%d prec=%s grad=%s graph=%d img_s=%.1f per_gpu=%.1f "
		       "eff=%.4f iter_ms=%.2f fwd_ms=%.2f bwd_ms=%.2f opt_ms=%.2f allreduce_ms=%.2f exposed_ms=%.2f "
		       "buckets=%d step=%ld loss=%.4f\n",
		       n, ex_dist_nodes(tr->d), n > 1 ? ex_dist_mode_label(tr->d) : "none", a->batch, a->prec_name,
		       ex_dist_dtype_name(a->dist.grad_dtype), a->graph, thr, thr / n, eff, iter_max * 1e3,
		       sum[F_FWD] / n * 1e3, sum[F_BWD] / n * 1e3, sum[F_OPT] / n * 1e3, sum[F_AR] / n * 1e3,
		       sum[F_EXP] / n * 1e3, ex_dist_nbuckets(tr->d), tr->step, sum[F_LOSS] / n);
		if (a->csv)
			train_csv(tr, all, sum, thr, iter_max, eff);
	}
	free(all);
}

static int train_main(int argc, char **argv)
{
	train_run *tr = xcalloc(1, sizeof(*tr));
	if (ex_dist_boot(&tr->d, &argc, &argv)) {
		fprintf(stderr, "test_dist: %s\n", err_msg());
		return 2;
	}
	ex_dist *d = tr->d;
	int pr = train_parse(&tr->a, argc, argv);
	if (pr == 0 && ex_dist_opts_check(d, &tr->a.dist))
		pr = ERR_INPUT;
	if (!ex_dist_agree(d, pr == 0)) {
		if (ex_dist_rank(d) == 0 || pr)
			fprintf(stderr, "test_dist: rank %d: %s\n", ex_dist_rank(d), pr ? err_msg() : "bad input on another rank");
		ex_dist_free(d);
		return 1;
	}
	if (ex_dist_start(d, &tr->a.dist)) {
		fprintf(stderr, "test_dist: rank %d: %s\n", ex_dist_rank(d), err_msg());
		return 2;
	}
	tr->rank = ex_dist_rank(d);
	tr->n = ex_dist_size(d);
	tr->last_loss = NAN;
	size_t tot;
	cudaGetDeviceProperties(&tr->prop, ex_dist_device(d));
	cudaFree(0);
	cudaMemGetInfo(&tr->free0, &tot);
	train_net_init(tr);
	train_resume(tr);
	train_loop(tr);
	ex_dist_pause(d);
	train_report(tr);
	free(tr->ckpath);
	ex_net_free(&tr->net);
	ex_dist_free(d);
	free(tr);
	return 0;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--ckpt-selftest") == 0)
			return ckpt_selftest();
		if (strcmp(argv[i], "--bench-allreduce") == 0)
			return ex_dist_bench_main(argc, argv);
		if (strcmp(argv[i], "--mock-train") == 0)
			return mock_train(argc, argv);
		if (strcmp(argv[i], "--train") == 0)
			return train_main(argc, argv);
	}
	if (argc > 1) {
		fprintf(stderr, "usage: test_dist [--ckpt-selftest | --bench-allreduce ... | --mock-train ... | --train ...]\n");
		return 1;
	}
	/* no arguments (make test-gpu): the single-process checks; multi-rank ones: bench/gpu.sh (steps faults, multi) */
	return ckpt_selftest();
}
