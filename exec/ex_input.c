/* --data DIR: an ImageNet-layout JPEG folder (DIR/train/<class>/<file>.JPEG, DIR/val/<class>/<file>.JPEG) fed
 * to the training loop of scaleplan-train. Host side: exec/data's loader decodes into
 * pinned buffers (cudaHostAlloc) with a pthread pool. Device side, per batch:
 *   copy stream:    wait consumed[slot]; H2D pinned -> stage[slot]; record copied[slot]
 *   compute stream: wait copied[slot]; D2D stage[slot] -> the net's input/labels; record consumed[slot]
 * The net's input buffer never moves, so the CUDA graph of the step (captured on a fixed input
 * address) stays valid; the D2D copy costs about 2 x batch bytes / HBM bandwidth (77 MB at 224 px bf16
 * batch 256: ~40 us on an H200, <0.1 % of a step). Two staging slots let batch i+1's H2D copy overlap
 * step i. A pinned buffer goes back to the loader once its H2D copy's event completed (checked at the
 * next batch, cudaEventSynchronize: it only blocks when the host is ahead of the GPU).
 * GPU wait for data: an event on the compute stream before the host waits for the loader and one
 * after the compute stream's wait on the copy; their distance is the time the GPU had nothing to do
 * because the batch (decode, or its H2D copy) was not there yet - summed per epoch (data_wait_s).
 * Failures: loader errors (missing folder, no images, every replacement of a batch failed) print
 * the loader's message and exit 1; CUDA failures exit 2 (CUDA_CHECK).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "exec/data/ex_data.h"
#include "exec/ex_internal.h"
#include "exec/ex_jpeg_gpu.h" /* or ex_jpeg_gpu_none.c's stand-ins, where the build has no nvJPEG */

enum { EX_SRC_SLOTS = 2, EX_SRC_GAPS = 16 };

/* Pinned host buffers of one loader. */
typedef struct ex_pool {
	ex_data_loader *L;
	int depth;
	void **h;          /* [depth] pinned, batch_bytes each */
	int **lab;         /* [depth] pinned int[batch] */
	bool *out;         /* [depth] submitted to the loader */
	int pend;          /* buffer whose H2D copy is in flight (-1 none) */
	cudaEvent_t pend_ev;
	long left;         /* buffers still to submit (eval: this pass; train: unbounded) */
} ex_pool;

struct ex_src {
	ex_src_cfg cfg;
	ex_pool tr, ev;
	ex_net *net;
	size_t img_B;
	cudaStream_t copy;
	void *stage[EX_SRC_SLOTS];       /* device [batch][hw][hw][3] in the loader's dtype */
	int *stage_lab[EX_SRC_SLOTS];    /* device [batch] */
	cudaEvent_t copied[EX_SRC_SLOTS], consumed[EX_SRC_SLOTS];
	int slot;
	cudaEvent_t gap0[EX_SRC_GAPS], gap1[EX_SRC_GAPS];
	bool gap_used[EX_SRC_GAPS];
	int gap_next;
	double gap_s;      /* GPU wait summed since the last ex_src_epoch_wait */
	double gap_total_s;
	double host_wait_s;
	long eval_left;    /* eval batches still to deliver this pass */
	/* --data-path jpeg-gpu (ex_jpeg_gpu.c): the loaders only read; these decode */
	ex_gjpeg *gtr, *gev;
	ex_data_watch *watch; /* their stall watch (--data-timeout) */
	int wfeed;            /* the training thread's party in it */
	long ev_pref;      /* eval batches of this pass whose decode was enqueued */
	long ev_n;         /* eval batches in a pass */
};

static ex_data_dtype data_dtype(ex_dtype t)
{
	return t == EX_BF16 ? EX_DATA_BF16 : t == EX_F16 ? EX_DATA_F16 : EX_DATA_F32;
}

static void die_loader(const char *what)
{
	fprintf(stderr, "scaleplan-train: %s: %s\n", what, err_msg());
	exit(EXIT_INPUT);
}

int ex_src_open(ex_src **out, const ex_src_cfg *c)
{
	ex_data_config dc;
	ex_src *s;
	int rc;

	*out = NULL;
	s = xcalloc(1, sizeof(*s));
	s->cfg = *c;
	ex_data_config_init(&dc);
	dc.dir = c->dir;
	dc.batch = c->batch;
	dc.dtype = data_dtype(c->dt);
	dc.out_hw = c->hw;
	dc.resize_hw = (c->hw * 256 + 112) / 224; /* torchvision's 256/224 eval ratio */
	dc.threads = c->threads;
	dc.rank = c->rank;
	dc.world = c->world;
	dc.seed = c->seed;
	dc.quiet = c->quiet;
	dc.scale_min = c->scale_min;
	dc.split = "train";
	dc.train = true;
	dc.depth = c->depth;
	if (c->gpu) {
		rc = ex_gjpeg_check(); /* a build without nvJPEG says so here, before any file is read */
		if (rc < 0)
			goto fail;
		dc.raw = true; /* readers only: the GPU decodes */
		dc.depth = EX_GJ_RAW;
	}
	rc = ex_data_loader_new(&s->tr.L, &dc);
	if (rc < 0)
		goto fail;
	dc.split = "val";
	dc.train = false;
	dc.depth = dc.raw ? dc.depth : 3;
	rc = ex_data_loader_new(&s->ev.L, &dc);
	if (rc < 0)
		goto fail;
	if (ex_data_loader_classes(s->ev.L) != ex_data_loader_classes(s->tr.L)) {
		rc = err_set("%s: train/ has %d class folders but val/ has %d", c->dir, ex_data_loader_classes(s->tr.L),
			     ex_data_loader_classes(s->ev.L));
		goto fail;
	}
	for (int i = 0; i < ex_data_loader_classes(s->tr.L); i++)
		if (strcmp(ex_data_loader_class_name(s->tr.L, i), ex_data_loader_class_name(s->ev.L, i))) {
			rc = err_set("%s: class %d is '%s' in train/ but '%s' in val/", c->dir, i,
				     ex_data_loader_class_name(s->tr.L, i), ex_data_loader_class_name(s->ev.L, i));
			goto fail;
		}
	s->img_B = ex_data_loader_image_bytes(s->tr.L);
	*out = s;
	return 0;
fail:
	ex_src_free(s);
	return rc;
}

int ex_src_classes(const ex_src *s)
{
	return ex_data_loader_classes(s->tr.L);
}

long ex_src_train_steps(const ex_src *s)
{
	return ex_data_loader_batches_per_epoch(s->tr.L);
}

long ex_src_eval_images(const ex_src *s)
{
	return ex_data_loader_shard_files(s->ev.L);
}

long ex_src_train_images(const ex_src *s)
{
	return ex_data_loader_shard_files(s->tr.L);
}

static void submit(ex_pool *p, int k)
{
	if (ex_data_loader_submit(p->L, p->h[k], p->lab[k]) < 0)
		die_loader("data");
	p->out[k] = true;
	p->left--;
}

/* Submits every idle buffer while the pass wants more. */
static void pool_fill(ex_pool *p)
{
	for (int k = 0; k < p->depth && p->left > 0; k++)
		if (!p->out[k] && k != p->pend)
			submit(p, k);
}

/* The buffer whose copy was enqueued last goes back to the loader (or idles) once copied. */
static void pool_recycle(ex_pool *p)
{
	if (p->pend < 0)
		return;
	CUDA_CHECK(cudaEventSynchronize(p->pend_ev));
	int k = p->pend;
	p->pend = -1;
	if (p->left > 0)
		submit(p, k);
}

static void pool_init(ex_pool *p, int depth, size_t batch_B, int batch, long left)
{
	p->depth = depth;
	p->h = xcalloc((size_t)depth, sizeof(*p->h));
	p->lab = xcalloc((size_t)depth, sizeof(*p->lab));
	p->out = xcalloc((size_t)depth, sizeof(*p->out));
	for (int k = 0; k < depth; k++) {
		CUDA_CHECK(cudaHostAlloc(&p->h[k], batch_B, cudaHostAllocDefault));
		CUDA_CHECK(cudaHostAlloc((void **)&p->lab[k], (size_t)batch * sizeof(int), cudaHostAllocDefault));
	}
	p->pend = -1;
	p->left = left;
}

static void gaps_init(ex_src *s)
{
	for (int i = 0; i < EX_SRC_GAPS; i++) {
		CUDA_CHECK(cudaEventCreate(&s->gap0[i]));
		CUDA_CHECK(cudaEventCreate(&s->gap1[i]));
	}
}

/* The first line of a /proc file into buf (empty where it cannot be read). */
static void proc_line(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)cap, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Every thread of this process with its kernel wait channel and system call (Linux /proc): the stall
 * report's view of threads that are not the data path's own (NCCL's, the CUDA driver's), which a machine
 * without a debugger cannot otherwise show (bench/NOTES.md's log). */
static void threads_dump(FILE *f, int rank)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *de;
	if (!dir)
		return;
	fprintf(f, "  threads of rank %d (name, wait channel, system call number and first argument):\n", rank);
	while ((de = readdir(dir)) != NULL) {
		char path[320], comm[64] = "", wchan[64] = "", sc[64] = ""; /* d_name: up to 255 bytes */
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
		proc_line(path, comm, sizeof(comm));
		snprintf(path, sizeof(path), "/proc/self/task/%s/wchan", de->d_name);
		proc_line(path, wchan, sizeof(wchan));
		snprintf(path, sizeof(path), "/proc/self/task/%s/syscall", de->d_name);
		proc_line(path, sc, sizeof(sc));
		char *cut = strchr(sc, ' ');
		if (cut && (cut = strchr(cut + 1, ' ')) != NULL)
			*cut = '\0'; /* the number and first argument: 202 is futex, 16 ioctl (the GPU driver) */
		fprintf(f, "    %s %s wchan=%s syscall=%s\n", de->d_name, comm, wchan, sc);
	}
	closedir(dir);
}

/* The stall watch fired: where each thread was, what the readers hold, then the job ends (a run that waits
 * for ever holds its GPUs and tells nobody: bench/NOTES.md's log). _exit: the threads it names may be
 * stuck inside CUDA or nvJPEG, where exit()'s clean-up would wait for them too. No CSV is written. */
static void on_stall(const char *report, void *arg)
{
	ex_src *s = arg;
	char tr[512], ev[512], host[64] = "?";
	ex_data_loader_describe(s->tr.L, tr, sizeof(tr));
	ex_data_loader_describe(s->ev.L, ev, sizeof(ev));
	gethostname(host, sizeof(host) - 1);
	fprintf(stderr, "scaleplan-train: rank %d of %d (%s): jpeg-gpu: %s  reader threads, training: %s\n  reader "
		"threads, evaluation: %s\n", s->cfg.rank, s->cfg.world, host, report, tr, ev);
	threads_dump(stderr, s->cfg.rank);
	fprintf(stderr, "scaleplan-train: rank %d: ending the job (--data-timeout %.0f; 0 turns this watch off)\n",
		s->cfg.rank, s->cfg.stall_s);
	fflush(stderr);
	fflush(stdout);
	_exit(EXIT_ENV);
}

static void attach_gpu(ex_src *s, ex_net *net)
{
	s->net = net;
	int rc = ex_data_watch_new(&s->watch, s->cfg.stall_s, on_stall, s);
	s->wfeed = ex_data_watch_party(s->watch, "training thread");
	if (rc == 0)
		rc = ex_gjpeg_new(&s->gtr, s->tr.L, net->batch, net->hw, net->dt, s->watch, s->wfeed, "train");
	if (rc == 0)
		rc = ex_gjpeg_new(&s->gev, s->ev.L, net->batch, net->hw, net->dt, s->watch, s->wfeed, "val");
	if (rc < 0) {
		fprintf(stderr, "scaleplan-train: %s\n", err_msg());
		exit(EXIT_ENV);
	}
	gaps_init(s);
	s->ev_n = ex_data_loader_batches_per_epoch(s->ev.L);
	ex_gjpeg_begin(s->gtr, 1L << 62);
	ex_gjpeg_prefetch(s->gtr); /* the first batch */
	ex_data_watch_arm(s->watch, true);
}

void ex_src_phase(ex_src *s, const char *phase)
{
	if (s)
		ex_data_watch_phase(s->watch, s->wfeed, phase);
}

void ex_src_watch(ex_src *s, bool on)
{
	if (s)
		ex_data_watch_arm(s->watch, on);
}

void ex_src_attach(ex_src *s, ex_net *net)
{
	size_t batch_B = ex_data_loader_batch_bytes(s->tr.L);
	if (s->cfg.gpu) {
		attach_gpu(s, net);
		return;
	}
	s->net = net;
	if (s->img_B != (size_t)net->hw * net->hw * 3 * ex_dtype_size(net->dt) || net->batch != s->cfg.batch) {
		fprintf(stderr, "scaleplan-train: internal: loader image of %zu B does not match the net's input\n", s->img_B);
		exit(EXIT_ENV);
	}
	CUDA_CHECK(cudaStreamCreateWithFlags(&s->copy, cudaStreamNonBlocking));
	for (int i = 0; i < EX_SRC_SLOTS; i++) {
		CUDA_CHECK(ex_dev_malloc((void **)&s->stage[i], batch_B));
		CUDA_CHECK(ex_dev_malloc((void **)&s->stage_lab[i], (size_t)net->batch * sizeof(int)));
		CUDA_CHECK(cudaEventCreateWithFlags(&s->copied[i], cudaEventDisableTiming));
		CUDA_CHECK(cudaEventCreateWithFlags(&s->consumed[i], cudaEventDisableTiming));
	}
	gaps_init(s);
	pool_init(&s->tr, s->cfg.depth, batch_B, net->batch, 1L << 62);
	pool_init(&s->ev, 3, batch_B, net->batch, 0);
	pool_fill(&s->tr); /* start decoding the first batches */
}

static void gap_take(ex_src *s, int r)
{
	float ms;
	if (!s->gap_used[r])
		return;
	CUDA_CHECK(cudaEventSynchronize(s->gap1[r]));
	CUDA_CHECK(cudaEventElapsedTime(&ms, s->gap0[r], s->gap1[r]));
	s->gap_s += ms / 1e3;
	s->gap_total_s += ms / 1e3;
	s->gap_used[r] = false;
}

/* One batch from pool p into the net's input and labels; returns its image count. */
static int feed(ex_src *s, ex_pool *p, bool timed)
{
	ex_net *net = s->net;
	void *h;
	int *lab, n, k, r = s->gap_next, sl = s->slot;
	double t0;

	if (timed) {
		gap_take(s, r);
		CUDA_CHECK(cudaEventRecord(s->gap0[r], net->stream));
	}
	pool_recycle(p);
	t0 = time_now_s();
	n = ex_data_loader_wait(p->L, &h, &lab);
	if (n < 0)
		die_loader("data");
	s->host_wait_s += time_now_s() - t0;
	for (k = 0; k < p->depth && p->h[k] != h; k++)
		;
	if (k == p->depth) {
		fprintf(stderr, "scaleplan-train: internal: the loader returned an unknown buffer\n");
		exit(EXIT_ENV);
	}
	p->out[k] = false;
	CUDA_CHECK(cudaStreamWaitEvent(s->copy, s->consumed[sl], 0));
	CUDA_CHECK(cudaMemcpyAsync(s->stage[sl], h, (size_t)n * s->img_B, cudaMemcpyHostToDevice, s->copy));
	CUDA_CHECK(cudaMemcpyAsync(s->stage_lab[sl], lab, (size_t)n * sizeof(int), cudaMemcpyHostToDevice, s->copy));
	CUDA_CHECK(cudaEventRecord(s->copied[sl], s->copy));
	p->pend = k;
	p->pend_ev = s->copied[sl];
	CUDA_CHECK(cudaStreamWaitEvent(net->stream, s->copied[sl], 0));
	if (timed) {
		CUDA_CHECK(cudaEventRecord(s->gap1[r], net->stream));
		s->gap_used[r] = true;
		s->gap_next = (r + 1) % EX_SRC_GAPS;
	}
	CUDA_CHECK(cudaMemcpyAsync(ex_net_input(net), s->stage[sl], (size_t)n * s->img_B, cudaMemcpyDeviceToDevice,
				   net->stream));
	CUDA_CHECK(cudaMemcpyAsync(net->labels, s->stage_lab[sl], (size_t)n * sizeof(int), cudaMemcpyDeviceToDevice,
				   net->stream));
	CUDA_CHECK(cudaEventRecord(s->consumed[sl], net->stream));
	s->slot = (sl + 1) % EX_SRC_SLOTS;
	return n;
}

void ex_src_train_batch(ex_src *s)
{
	if (s->gtr) {
		int r = s->gap_next;
		gap_take(s, r);
		CUDA_CHECK(cudaEventRecord(s->gap0[r], s->net->stream));
		ex_gjpeg_feed(s->gtr, s->net, s->gap1[r]);
		s->gap_used[r] = true;
		s->gap_next = (r + 1) % EX_SRC_GAPS;
		return;
	}
	feed(s, &s->tr, true);
}

void ex_src_after_step(ex_src *s)
{
	if (!s->gtr)
		return;
	if (s->eval_left > 0) {
		if (s->ev_pref < s->ev_n && ex_gjpeg_prefetch(s->gev))
			s->ev_pref++;
	} else {
		ex_gjpeg_prefetch(s->gtr);
	}
}

double ex_src_epoch_wait(ex_src *s)
{
	double g;
	for (int r = 0; r < EX_SRC_GAPS; r++)
		gap_take(s, r);
	g = s->gap_s;
	s->gap_s = 0;
	return g;
}

int ex_src_eval_begin(ex_src *s)
{
	if (s->gev) {
		s->eval_left = s->ev_n;
		ex_gjpeg_begin(s->gev, s->ev_n);
		s->ev_pref = ex_gjpeg_prefetch(s->gev) ? 1 : 0;
		return (int)s->ev_n;
	}
	pool_recycle(&s->tr); /* training keeps prefetching during the pass */
	s->eval_left = ex_data_loader_batches_per_epoch(s->ev.L);
	s->ev.left = s->eval_left;
	pool_fill(&s->ev);
	return (int)s->eval_left;
}

int ex_src_eval_batch(ex_src *s)
{
	int n;
	if (s->eval_left <= 0) {
		fprintf(stderr, "scaleplan-train: internal: more evaluation batches asked than the pass has\n");
		exit(EXIT_ENV);
	}
	if (s->gev) {
		if (s->ev_pref <= s->ev_n - s->eval_left && ex_gjpeg_prefetch(s->gev))
			s->ev_pref++; /* nothing enqueued ahead (no after_step call): this batch now */
		s->eval_left--;
		return ex_gjpeg_feed(s->gev, s->net, NULL);
	}
	n = feed(s, &s->ev, false);
	if (--s->eval_left == 0)
		pool_recycle(&s->ev); /* left is 0: the buffer idles until the next pass */
	return n;
}

void ex_src_report(ex_src *s, FILE *f)
{
	ex_data_stats st, se;
	ex_data_loader_stats(s->tr.L, &st);
	ex_data_loader_stats(s->ev.L, &se);
	if (s->gtr) {
		ex_gjpeg_stats gt, ge;
		ex_gjpeg_stats_get(s->gtr, &gt);
		ex_gjpeg_stats_get(s->gev, &ge);
		fprintf(f, "input: %s, jpeg-gpu (%s), %d reader threads; train %ld images (%ld batches), val %ld; decoded "
			   "by the hardware decoder %ld, GPU hybrid %ld, one by one %ld, reader threads %ld (last %d a batch); "
			   "%ld replaced, %ld bad files; GPU "
			   "waited %.2f s for input; decode thread: %.2f s waiting for readers, %.2f s from a batch read to its "
			   "decode enqueued (%.2f s waiting for the slot, %.2f s in the hardware decoder's calls, %.2f s in the "
			   "GPU hybrid's); training thread waited %.2f s for it; hardware decoder called by %d threads; read %.1f s "
			   "(thread sums)\n", s->cfg.dir,
			ex_gjpeg_backend(s->gtr), s->cfg.threads, gt.images, gt.batches, ge.images, gt.hw + ge.hw,
			gt.gpu + ge.gpu, gt.single + ge.single, gt.cpu + ge.cpu, gt.cpu_n, gt.replaced + ge.replaced, st.bad + se.bad, s->gap_total_s,
			gt.wait_s + ge.wait_s, gt.issue_s + ge.issue_s, gt.slot_wait_s + ge.slot_wait_s, gt.hw_call_s + ge.hw_call_s,
			gt.hybrid_call_s + ge.hybrid_call_s, gt.feed_wait_s + ge.feed_wait_s, gt.hw_lanes,
			st.read_s + se.read_s);
		if (st.bad + se.bad + st.nonimage + se.nonimage + st.empty_classes + se.empty_classes > 0) {
			ex_data_loader_report(s->tr.L, f);
			ex_data_loader_report(s->ev.L, f);
		}
		return;
	}
	fprintf(f, "input: %s, %d decode threads, train %ld images (%ld batches), val %ld images, %ld bad files; "
		   "GPU waited %.2f s for input, host waited %.2f s in the loader; decode %.1f s, read %.1f s (thread sums)\n",
		s->cfg.dir, s->cfg.threads, st.images, st.batches, se.images, st.bad + se.bad, s->gap_total_s,
		s->host_wait_s, st.decode_s + se.decode_s, st.read_s + se.read_s);
	if (st.bad + se.bad > 0) {
		ex_data_loader_report(s->tr.L, f);
		ex_data_loader_report(s->ev.L, f);
	}
}

static void pool_free(ex_pool *p)
{
	ex_data_loader_free(p->L); /* joins the workers before the pinned buffers go */
	for (int k = 0; k < p->depth; k++) {
		cudaFreeHost(p->h[k]);
		cudaFreeHost(p->lab[k]);
	}
	free(p->h);
	free(p->lab);
	free(p->out);
}

void ex_src_free(ex_src *s)
{
	if (!s)
		return;
	ex_data_watch_arm(s->watch, false); /* no batches from here on */
	if (s->net)
		cudaDeviceSynchronize();
	ex_gjpeg_stop(s->gtr); /* the decode threads first: they may be waiting on the loaders */
	ex_gjpeg_stop(s->gev);
	pool_free(&s->tr);
	pool_free(&s->ev);
	ex_gjpeg_free(s->gtr); /* after the loaders: their readers may hold its raw buffers until joined */
	ex_gjpeg_free(s->gev);
	ex_data_watch_free(s->watch); /* after the threads that name their phases in it */
	if (s->net && s->cfg.gpu) {
		for (int i = 0; i < EX_SRC_GAPS; i++) {
			cudaEventDestroy(s->gap0[i]);
			cudaEventDestroy(s->gap1[i]);
		}
	} else if (s->net) {
		for (int i = 0; i < EX_SRC_SLOTS; i++) {
			ex_dev_free(s->stage[i]);
			ex_dev_free(s->stage_lab[i]);
			cudaEventDestroy(s->copied[i]);
			cudaEventDestroy(s->consumed[i]);
		}
		for (int i = 0; i < EX_SRC_GAPS; i++) {
			cudaEventDestroy(s->gap0[i]);
			cudaEventDestroy(s->gap1[i]);
		}
		cudaStreamDestroy(s->copy);
	}
	free(s);
}
