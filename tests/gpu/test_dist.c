/* tests/gpu/test_dist: GPU tests and drivers of exec's data-parallel layer (issue 5).
 *
 *   test_dist --ckpt-selftest                 checkpoint format: round trip, checksum, truncation
 *                                             (host only, one process)
 *   test_dist --bench-allreduce [...]         the all-reduce sweep (same as scaleplan-train's)
 *   test_dist --mock-train [--steps N] [--kill-rank R --kill-step S] [dist options]
 *       backward replaced by kernels writing ResNet-50-shaped gradient ranges (rank-dependent
 *       values) in reverse layer order through the same hooks scaleplan-train uses; checks every
 *       step that the buckets averaged the gradients (tolerance 1e-6 fp32, 1e-2 bf16/fp16) and
 *       prints the bucket plan and event timings. With --kill-rank, that rank SIGKILLs itself
 *       at step S: the job must end non-zero, naming a rank, within --nccl-timeout.
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
		{ "nccl-mode", required_argument, NULL, 0 },   { "emulate-nodes", required_argument, NULL, 0 },
		{ "grad-precision", required_argument, NULL, 0 }, { "bucket-mb", required_argument, NULL, 0 },
		{ "nccl-timeout", required_argument, NULL, 0 }, { "no-overlap", no_argument, NULL, 0 },
		{ NULL, 0, NULL, 0 },
	};
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
		else if (c == '?')
			bad = 1;
	}
	if (!bad && ex_dist_opts_check(d, &o))
		bad = 1;
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

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--ckpt-selftest") == 0)
			return ckpt_selftest();
		if (strcmp(argv[i], "--bench-allreduce") == 0)
			return ex_dist_bench_main(argc, argv);
		if (strcmp(argv[i], "--mock-train") == 0)
			return mock_train(argc, argv);
	}
	fprintf(stderr, "usage: test_dist --ckpt-selftest | --bench-allreduce [...] | --mock-train [...]\n");
	return 1;
}
