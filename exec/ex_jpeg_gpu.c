/* --data DIR --data-path jpeg-gpu: JPEG decode on the GPU with nvJPEG.
 *
 * Why: the CPU path decoded 2,253 img/s with 4 threads on an H100 host, ~560 a core (bench/NOTES.md's
 * log), so one GPU at 7,000 img/s would need ~12 cores for decoding alone. Here the CPU threads of exec/data's loader (raw
 * mode) only read the files, check their headers and draw each image's crop; the GPU decodes.
 *
 * Per batch (one ex_gjpeg per loader, train and val):
 *   training thread, after launching a step (ex_gjpeg_prefetch): asks the decode thread for the next batch.
 *   decode thread (fill): takes the next raw batch from the loader; lays its images out in the slot's
 *     device arena; nvjpegDecodeBatched of the images the hardware JPEG decoder takes (baseline 8-bit
 *     grey/YCbCr, ex_jpeg_hdr.hw_ok; A100/H100/H200 have one) on a handle of NVJPEG_BACKEND_HARDWARE, of the
 *     rest (progressive, CMYK, ...; all of them where the GPU has no hardware decoder) on a handle of
 *     NVJPEG_BACKEND_GPU_HYBRID; the crops (ex_crop_desc) copied after them; events `decoded`. Its own
 *     thread because a hardware batched call holds the calling thread until the batch is decoded (~46 ms
 *     per 256 ImageNet-like images on an H100: bench/NOTES.md's log); --engine jpeg_lanes=2 splits that call
 *     over two threads (A/B).
 *   training thread (ex_gjpeg_feed): waits until the batch's decode is enqueued; the compute stream waits
 *     for `decoded`, then ex_k_crop_rgb resizes, flips and normalises the crops straight into the net's
 *     fixed input buffer (CUDA-graph safe) and writes the labels; `consumed` recorded (the decode streams
 *     wait for it before they overwrite that slot).
 * CPU share (--engine jpeg_cpu_pct, off by default): the loader's threads decode the first cpu_n images of each batch
 * themselves (ex_jpeg_decode_at, uint8, crop and flip as drawn); those go first in the arena, copied from a
 * pinned stage in one call, as out x out crops. On 4 cores of an H100 host it raised 5,438-5,547 to 5,675-5,793
 * img/s, on an H200 6,633 to 6,965 (bench/NOTES.md's log); off by default because runs at
 * batch 64 and 128 stopped inside an epoch - with it and, once, without it - and the cause is not found.
 * Two slots: batch i+1 decodes while step i runs. A raw batch goes back to the loader once the decode
 * that read it completed. A failed batched call is retried image by image (NVJPEG_BACKEND_DEFAULT); an
 * image that still fails is marked bad in the loader (named in the report, never read again) and its
 * place in the batch is taken by another image of the batch, counted as replaced.
 * Built only where nvjpeg.h is found; elsewhere exec/ex_jpeg_gpu_none.c stands in (exec/module.mk).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <nvjpeg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "exec/data/ex_data.h"
#include "exec/ex_internal.h"
#include "exec/ex_jpeg_gpu.h"

enum { GJ_SLOTS = 2, GJ_ALIGN = 256, GJ_MAX_LANES = EX_GJ_MAX_LANES, GJ_CPU_WINDOW = 4 };

typedef struct ex_gjpeg ex_gjpeg_t;

/* One batched decode at a time: its nvJPEG state, stream and scratch. The hardware decoder's call holds
 * its thread until the batch is decoded (~46 ms for 256 ImageNet-like images on an H100, bench/NOTES.md's
 * log), so a batch's hardware images are split over lanes, each on its own thread (lane 0 on the
 * decode thread itself). */
typedef struct gj_lane {
	nvjpegJpegState_t st;
	int init_n;                  /* batch size st was initialised for */
	cudaStream_t cs;
	cudaEvent_t done_ev;
	const unsigned char **ptr;
	size_t *len;
	nvjpegImage_t *img;
	int *idx;                    /* images of the batch this lane decodes */
	int m;
	const void *rb, *sl;         /* the batch (ex_data_raw) and its slot (gj_slot) */
	nvjpegStatus_t rc;
	bool go;                     /* work handed over, not finished */
	pthread_t th;
	bool started;
	int wp;                      /* its thread's party in the stall watch */
} gj_lane;

typedef struct gj_slot {
	unsigned char *dec;     /* device arena of decoded RGB images */
	size_t cap_B;
	ex_crop_desc *desc_h;   /* pinned [batch] */
	ex_crop_desc *desc_d;   /* device [batch] */
	unsigned char *stage_h; /* pinned: the images the loader's threads decoded (the CPU share), as laid out first in dec */
	size_t cpu_B;           /* bytes of that block */
	int n;                  /* images */
	int raw;                /* raw buffer it was decoded from (-1: none) */
	bool full;              /* its decode is enqueued (events recorded), not yet fed */
	cudaEvent_t decoded, decoded_hw, consumed; /* decoded: CUDA-decoder stream; decoded_hw: hardware stream */
	bool consumed_rec;
} gj_slot;

struct ex_gjpeg {
	ex_data_loader *L;
	int batch, hw;
	ex_dtype dt;
	nvjpegHandle_t hw_h, gpu_h, one_h; /* hardware (NULL where absent), GPU hybrid, default (one by one) */
	nvjpegJpegState_t one_st;
	gj_lane gl;                        /* the CUDA decoder's lane (decode thread; stream st) */
	gj_lane lane[GJ_MAX_LANES];        /* the hardware decoder's lanes (lane 0's stream: st_hw) */
	int nlanes;
	pthread_mutex_t lmu;
	pthread_cond_t lcv;
	bool lanes_stop;
	cudaStream_t st, st_hw;            /* CUDA decoder (and descriptors), hardware decoder */
	/* the decode thread: the nvJPEG calls hold the host for tens of ms a batch (measured on an H100,
	 * bench/NOTES.md's log), so they run beside the thread that launches the steps */
	pthread_t th;
	bool th_started, stop, busy;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int want;                          /* slot fills asked for and not started */
	int queued;                        /* slots asked for or full, not yet fed */
	int dev;
	ex_data_raw *raw[EX_GJ_RAW];
	int *lab[EX_GJ_RAW];
	bool out[EX_GJ_RAW];               /* submitted to the loader */
	long left;                         /* raw batches still to submit this pass */
	gj_slot slot[GJ_SLOTS];
	int fill, use;
	/* the CPU share: the loader's threads decode the first cpu_n images of each batch themselves where the
	 * hardware decoder is the bound (~5,500 ImageNet-like img/s on an H100, bench/NOTES.md's log) */
	int cpu_n;
	bool cpu_auto;                     /* cpu_n follows who waits (cpu_share_adjust); jpeg_cpu_pct > 0 fixes it */
	double fw_seen;                    /* the training thread's feed wait at the last batch */
	double win_reader_s, win_fed_s;    /* the waits summed over the adjustment window */
	int win_n;                         /* batches in it */
	/* the stall watch (ex_data_watch, owned by ex_input.c): the decode thread's party, the training thread's */
	ex_data_watch *w;
	int wp, wfeed;
	long test_stall;                   /* test builds (EX_TEST_HOOKS), EX_JPEG_TEST_STALL: the batch (from 1) before
	                                    * which fill stops; 0 never */
	ex_gjpeg_stats s;                  /* what stats_get returns (under mu) */
	ex_gjpeg_stats ts;                 /* the decode thread's running counts, copied into s under mu */
	bool pin_user;                     /* counted in g_pin.users */
};

static const char *nvj_str(nvjpegStatus_t e)
{
	switch (e) {
	case NVJPEG_STATUS_SUCCESS: return "success";
	case NVJPEG_STATUS_NOT_INITIALIZED: return "not initialised";
	case NVJPEG_STATUS_INVALID_PARAMETER: return "invalid parameter";
	case NVJPEG_STATUS_BAD_JPEG: return "bad JPEG";
	case NVJPEG_STATUS_JPEG_NOT_SUPPORTED: return "JPEG not supported";
	case NVJPEG_STATUS_ALLOCATOR_FAILURE: return "allocator failure";
	case NVJPEG_STATUS_EXECUTION_FAILED: return "execution failed";
	case NVJPEG_STATUS_ARCH_MISMATCH: return "not supported on this GPU";
	case NVJPEG_STATUS_INTERNAL_ERROR: return "internal error";
	case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED: return "implementation not supported";
	default: return "unknown nvJPEG status";
	}
}

static void nvj_die(nvjpegStatus_t e, const char *what)
{
	fprintf(stderr, "scaleplan-train: nvJPEG: %s: %s (%d)\n", what, nvj_str(e), (int)e);
	exit(EXIT_ENV);
}
#define NVJ_CHECK(x) do { nvjpegStatus_t e_ = (x); if (e_ != NVJPEG_STATUS_SUCCESS) nvj_die(e_, #x); } while (0)

static void die_loader(const char *what)
{
	fprintf(stderr, "scaleplan-train: %s: %s\n", what, err_msg());
	exit(EXIT_INPUT);
}

static void *decode_thread(void *arg);
static void *lane_thread(void *arg);

/* One nvJPEG decode call at a time in the process (the train and val decoders, their lanes): hardware calls
 * from three threads at once stopped inside nvJPEG (bench/NOTES.md's log). */
static pthread_mutex_t nvj_mu = PTHREAD_MUTEX_INITIALIZER;

/* nvJPEG's own buffers (bitstreams, scratch, staging) grow while it meets larger images. With its default
 * allocators each growth is a cudaFree + cudaMalloc (device) or cudaFreeHost + cudaHostAlloc (pinned): calls
 * that wait for the whole device, in a data-parallel run NCCL kernels that wait for another rank included,
 * and that stall the training stream for as long (CUDA C++ Programming Guide, "Implicit Synchronization").
 * jpeg-gpu ran its epochs 2-3 slower than the later ones, by as much as those stalls (bench/NOTES.md, issue
 * 32). So the allocators given to nvJPEG (nvjpegCreateExV2, which names the stream of each buffer) are
 * stream-ordered: device buffers from the device's memory pool (cudaMallocAsync / cudaFreeAsync on that
 * stream; the pool keeps what is freed, gj_pool_keep); pinned buffers kept in a cache and handed out again
 * once the stream of their last use has passed the point they were freed at (an event), never given back
 * before the end. */
typedef struct gj_pinned {
	void *p;
	size_t size_B;
	cudaEvent_t freed;      /* recorded on the stream of its last use when nvJPEG frees it */
	bool in_use;
} gj_pinned;

static struct {
	pthread_mutex_t mu;
	gj_pinned *b;
	int n, cap;
	int users;              /* decoders alive: the cache is given back when the last one goes */
} g_pin = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0};

static int gj_dev_malloc(void *ctx, void **p, size_t size_B, cudaStream_t st)
{
	(void)ctx;
	return cudaMallocAsync(p, size_B, st) == cudaSuccess ? 0 : 1;
}

static int gj_dev_free(void *ctx, void *p, size_t size_B, cudaStream_t st)
{
	(void)ctx, (void)size_B;
	return cudaFreeAsync(p, st) == cudaSuccess ? 0 : 1;
}

/* The smallest free cached buffer of at least size_B whose last use has completed, else a new one. */
static int gj_pin_malloc(void *ctx, void **p, size_t size_B, cudaStream_t st)
{
	(void)ctx, (void)st;
	int best = -1;
	pthread_mutex_lock(&g_pin.mu);
	for (int i = 0; i < g_pin.n; i++) {
		gj_pinned *b = &g_pin.b[i];
		if (b->in_use || b->size_B < size_B || (best >= 0 && b->size_B >= g_pin.b[best].size_B))
			continue;
		if (cudaEventQuery(b->freed) == cudaSuccess)
			best = i;
	}
	if (best < 0) {
		void *q = NULL;
		if (cudaHostAlloc(&q, size_B, cudaHostAllocDefault) != cudaSuccess) {
			pthread_mutex_unlock(&g_pin.mu);
			return 1;
		}
		if (g_pin.n == g_pin.cap) {
			g_pin.cap = g_pin.cap ? 2 * g_pin.cap : 16;
			g_pin.b = xrealloc(g_pin.b, (size_t)g_pin.cap * sizeof(*g_pin.b));
		}
		best = g_pin.n++;
		g_pin.b[best].p = q;
		g_pin.b[best].size_B = size_B;
		if (cudaEventCreateWithFlags(&g_pin.b[best].freed, cudaEventDisableTiming) != cudaSuccess)
			g_pin.b[best].freed = NULL;
	}
	g_pin.b[best].in_use = true;
	*p = g_pin.b[best].p;
	pthread_mutex_unlock(&g_pin.mu);
	return 0;
}

static int gj_pin_free(void *ctx, void *p, size_t size_B, cudaStream_t st)
{
	(void)ctx, (void)size_B;
	int rc = 1;
	pthread_mutex_lock(&g_pin.mu);
	for (int i = 0; i < g_pin.n; i++)
		if (g_pin.b[i].p == p) {
			gj_pinned *b = &g_pin.b[i];
			/* without its event it stays taken: never handed out again, given back at the end */
			if (b->freed && cudaEventRecord(b->freed, st) == cudaSuccess)
				b->in_use = false;
			rc = 0;
			break;
		}
	pthread_mutex_unlock(&g_pin.mu);
	return rc;
}

/* The pinned cache back to CUDA once no decoder is left (the caller has synchronised their streams). */
static void gj_pin_release(void)
{
	pthread_mutex_lock(&g_pin.mu);
	if (--g_pin.users == 0) {
		for (int i = 0; i < g_pin.n; i++) {
			cudaFreeHost(g_pin.b[i].p);
			if (g_pin.b[i].freed)
				cudaEventDestroy(g_pin.b[i].freed);
		}
		free(g_pin.b);
		g_pin.b = NULL;
		g_pin.n = g_pin.cap = 0;
	}
	pthread_mutex_unlock(&g_pin.mu);
}

/* Memory freed to the device's pool stays there (the default gives it back to the driver at each
 * synchronisation, and takes it again at the next growth). */
static void gj_pool_keep(int dev)
{
	cudaMemPool_t pool;
	unsigned long long keep_B = ~0ULL;
	if (cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess)
		cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_B);
}

/* A handle of backend b with the stream-ordered allocators (NULL where the backend is absent). */
static nvjpegHandle_t gj_handle(nvjpegBackend_t b)
{
	nvjpegDevAllocatorV2_t dev = {gj_dev_malloc, gj_dev_free, NULL};
	nvjpegPinnedAllocatorV2_t pin = {gj_pin_malloc, gj_pin_free, NULL};
	nvjpegHandle_t h = NULL;
	if (nvjpegCreateExV2(b, &dev, &pin, 0, &h) == NVJPEG_STATUS_SUCCESS)
		return h;
	h = NULL; /* refused (an older nvJPEG, or a backend without them): its default allocators */
	if (nvjpegCreateEx(b, NULL, NULL, 0, &h) != NVJPEG_STATUS_SUCCESS)
		return NULL;
	fprintf(stderr, "scaleplan-train: note: nvJPEG backend %d refused stream-ordered allocators; its buffers grow "
		"with cudaMalloc, which waits for the device\n", (int)b);
	return h;
}

/* What a thread is doing, for the stall watch's report (exec/data/watch.c). */
static const char PH_IDLE[] = "idle (no batch asked for)";
static const char PH_RELEASE[] = "waiting for the slot's last decode to complete (cudaEventSynchronize of decoded)";
static const char PH_READERS[] = "waiting for the reader threads' next batch (ex_data_loader_wait)";
static const char PH_CONSUMED[] = "waiting for the slot's last crop kernel (cudaEventSynchronize of consumed)";
static const char PH_ARENA[] = "growing the arena (cudaFreeAsync, cudaMallocAsync, cudaStreamSynchronize)";
static const char PH_LOCK[] = "waiting for the process's nvJPEG lock";
static const char PH_HW[] = "in nvjpegDecodeBatched (hardware decoder)";
static const char PH_HYBRID[] = "in nvjpegDecodeBatched (GPU hybrid)";
static const char PH_ONE[] = "in nvjpegDecode (one image at a time)";
static const char PH_LANES[] = "waiting for the other hardware lanes";
static const char PH_QUEUE[] = "queuing copies and events";
static const char PH_FEED[] = "waiting for a decoded batch (ex_gjpeg_feed)";
static const char PH_STEP[] = "outside the data path (steps, evaluation, CUDA calls)";
static const char PH_BEGIN[] = "waiting for the decode thread to go idle (a pass begins)";
static const char PH_LANE_IDLE[] = "idle (no share asked for)";
static const char PH_TEST_STALL[] = "stopped on purpose (EX_JPEG_TEST_STALL)";

static size_t gj_round(size_t b) { return (b + GJ_ALIGN - 1) / GJ_ALIGN * GJ_ALIGN; }
typedef struct gj_lane_arg {
	ex_gjpeg *g;
	gj_lane *l;
} gj_lane_arg;

static void lane_init(gj_lane *l, nvjpegHandle_t h, int batch)
{
	NVJ_CHECK(nvjpegJpegStateCreate(h, &l->st));
	l->init_n = -1;
	/* default priority: at the highest, nvJPEG's kernels measured no faster (5,419 vs 5,426 img/s on an H100,
	 * bench/NOTES.md's log) */
	CUDA_CHECK(cudaStreamCreateWithFlags(&l->cs, cudaStreamNonBlocking));
	CUDA_CHECK(cudaEventCreateWithFlags(&l->done_ev, cudaEventDisableTiming));
	l->ptr = xcalloc((size_t)batch, sizeof(*l->ptr));
	l->len = xcalloc((size_t)batch, sizeof(*l->len));
	l->img = xcalloc((size_t)batch, sizeof(*l->img));
	l->idx = xcalloc((size_t)batch, sizeof(*l->idx));
}

static void lane_free(gj_lane *l)
{
	if (l->cs)
		cudaStreamSynchronize(l->cs);
	if (l->st)
		nvjpegJpegStateDestroy(l->st);
	if (l->cs)
		cudaStreamDestroy(l->cs);
	if (l->done_ev)
		cudaEventDestroy(l->done_ev);
	free(l->ptr);
	free(l->len);
	free(l->img);
	free(l->idx);
}

int ex_gjpeg_check(void)
{
	return 0;
}

int ex_gjpeg_new(ex_gjpeg **out, ex_data_loader *L, int batch, int hw, ex_dtype dt, ex_data_watch *w,
		 int feeder, const char *name)
{
	ex_gjpeg *g = xcalloc(1, sizeof(*g));
	char party[48];
	g->L = L;
	g->w = w;
	g->wfeed = feeder;
	snprintf(party, sizeof(party), "%s decode thread", name);
	g->wp = ex_data_watch_party(w, party);
#ifdef EX_TEST_HOOKS /* the test build of scaleplan-train only (exec/module.mk, tests/gpu/jpeg_gpu_smoke.sh) */
	g->test_stall = strcmp(name, "train") == 0 ? ex_env_int("EX_JPEG_TEST_STALL", 0, 1 << 30, 0) : 0;
#endif
	g->batch = batch;
	g->hw = hw;
	g->dt = dt;
	/* the hardware backend fails to start where the GPU has no JPEG engine: then everything goes
	 * through the GPU hybrid backend */
	CUDA_CHECK(cudaGetDevice(&g->dev));
	gj_pool_keep(g->dev);
	pthread_mutex_lock(&g_pin.mu);
	g_pin.users++;
	pthread_mutex_unlock(&g_pin.mu);
	g->pin_user = true;
	g->hw_h = gj_handle(NVJPEG_BACKEND_HARDWARE);
	g->gpu_h = gj_handle(NVJPEG_BACKEND_GPU_HYBRID);
	if (!g->gpu_h) {
		err_set("nvJPEG: cannot start the GPU hybrid backend");
		ex_gjpeg_free(g);
		return ERR_ENV;
	}
	pthread_mutex_init(&g->lmu, NULL);
	pthread_cond_init(&g->lcv, NULL);
	lane_init(&g->gl, g->gpu_h, batch);
	g->gl.wp = g->wp;
	g->one_h = gj_handle(NVJPEG_BACKEND_DEFAULT);
	if (!g->one_h)
		nvj_die(NVJPEG_STATUS_NOT_INITIALIZED, "nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT)");
	NVJ_CHECK(nvjpegJpegStateCreate(g->one_h, &g->one_st));
	g->st = g->gl.cs;
	g->nlanes = !g->hw_h ? 0 : ex_set.jpeg_lanes < 1 ? 1 : ex_set.jpeg_lanes > GJ_MAX_LANES ? GJ_MAX_LANES : ex_set.jpeg_lanes;
	for (int k = 0; k < g->nlanes; k++) {
		lane_init(&g->lane[k], g->hw_h, batch);
		snprintf(party, sizeof(party), "%s decode lane %d", name, k);
		g->lane[k].wp = k == 0 ? g->wp : ex_data_watch_party(w, party); /* lane 0 runs on the decode thread */
	}
	/* off unless asked for (--engine jpeg_cpu_pct: -1 follows who waits, 1..75 a fixed share): it raised img/s 4-6% on
	 * 4 cores but runs with it stopped inside an epoch (bench/NOTES.md's log) */
	int pct = ex_set.jpeg_cpu_pct;
	g->cpu_auto = pct < 0;
	g->cpu_n = g->cpu_auto ? batch / 8 : batch * pct / 100;
	ex_data_loader_set_cpu_decode(L, g->cpu_n);
	if (g->nlanes)
		g->st_hw = g->lane[0].cs;
	else
		CUDA_CHECK(cudaStreamCreateWithFlags(&g->st_hw, cudaStreamNonBlocking));
	/* every image the hardware decoder takes and the CPU share leaves goes to it: sending a share to the CUDA
	 * decoder instead (as DALI's hw_decoder_load) measured slower on an H100, 3,027 img/s at 75% vs 5,429 at
	 * 100% (bench/NOTES.md's log): the CUDA decoder's batched call held the decode thread longer */
	for (int k = 0; k < EX_GJ_RAW; k++) {
		g->raw[k] = ex_data_raw_new(batch);
		g->lab[k] = xcalloc((size_t)batch, sizeof(int));
	}
	for (int k = 0; k < GJ_SLOTS; k++) {
		gj_slot *sl = &g->slot[k];
		CUDA_CHECK(cudaHostAlloc((void **)&sl->desc_h, (size_t)batch * sizeof(ex_crop_desc), cudaHostAllocDefault));
		if (g->cpu_auto || g->cpu_n > 0) /* the CPU share's images: pinned only where it is on */
			CUDA_CHECK(cudaHostAlloc((void **)&sl->stage_h, (size_t)batch * gj_round((size_t)hw * hw * 3),
						 cudaHostAllocDefault));
		CUDA_CHECK(ex_dev_malloc((void **)&sl->desc_d, (size_t)batch * sizeof(ex_crop_desc)));
		CUDA_CHECK(cudaEventCreateWithFlags(&sl->decoded, cudaEventDisableTiming));
		CUDA_CHECK(cudaEventCreateWithFlags(&sl->decoded_hw, cudaEventDisableTiming));
		CUDA_CHECK(cudaEventCreateWithFlags(&sl->consumed, cudaEventDisableTiming));
		sl->raw = -1;
	}
	g->s.hardware = g->ts.hardware = g->hw_h != NULL;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	int e2 = pthread_create(&g->th, NULL, decode_thread, g);
	if (e2 != 0) {
		err_set("cannot start the JPEG decode thread: %s", strerror(e2));
		ex_gjpeg_free(g);
		return ERR_ENV;
	}
	pthread_setname_np(g->th, "sp-jpeg-decode"); /* for thread dumps (the stall report, ex_input.c) */
	g->th_started = true;
	for (int k = 1; k < g->nlanes; k++) {
		gj_lane_arg *la = xmalloc(sizeof(*la));
		la->g = g;
		la->l = &g->lane[k];
		if (pthread_create(&g->lane[k].th, NULL, lane_thread, la) != 0) {
			free(la);
			g->nlanes = k; /* fewer lanes */
			break;
		}
		g->lane[k].started = true;
	}
	g->s.hw_lanes = g->ts.hw_lanes = g->nlanes;
	*out = g;
	return 0;
}

const char *ex_gjpeg_backend(const ex_gjpeg *g)
{
	return g->hw_h ? "nvJPEG hardware decoder + GPU hybrid for the rest" : "nvJPEG GPU hybrid (no hardware decoder)";
}

/* Submits idle raw buffers while the pass wants more. */
static void submit_idle(ex_gjpeg *g)
{
	for (int k = 0; k < EX_GJ_RAW && g->left > 0; k++) {
		bool held = false;
		for (int j = 0; j < GJ_SLOTS; j++)
			held |= g->slot[j].raw == k;
		if (g->out[k] || held)
			continue;
		if (ex_data_loader_submit(g->L, g->raw[k], g->lab[k]) < 0)
			die_loader("data");
		g->out[k] = true;
		g->left--;
	}
}

/* The raw buffer a slot decoded from goes back once that decode completed (party: the calling thread's). */
static void slot_release(ex_gjpeg *g, gj_slot *sl, int party)
{
	if (sl->raw < 0)
		return;
	ex_data_watch_phase(g->w, party, PH_RELEASE);
	CUDA_CHECK(cudaEventSynchronize(sl->decoded));
	CUDA_CHECK(cudaEventSynchronize(sl->decoded_hw));
	sl->raw = -1;
	submit_idle(g);
}

void ex_gjpeg_begin(ex_gjpeg *g, long batches)
{
	ex_data_watch_phase(g->w, g->wfeed, PH_BEGIN);
	pthread_mutex_lock(&g->mu); /* the decode thread must be idle: it submits too */
	while (g->busy || g->want > 0)
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
	for (int j = 0; j < GJ_SLOTS; j++)
		if (!g->slot[j].full)
			slot_release(g, &g->slot[j], g->wfeed);
	g->left = batches;
	submit_idle(g);
	ex_data_watch_phase(g->w, g->wfeed, PH_STEP);
}

/* Grows the slot's arena to `need` bytes (fill waited for its last reader). */
static void arena_fit(ex_gjpeg *g, gj_slot *sl, size_t need)
{
	if (need <= sl->cap_B)
		return;
	ex_data_watch_phase(g->w, g->wp, PH_ARENA);
	/* stream-ordered, as nvJPEG's own buffers (gj_dev_malloc): a cudaFree would wait for the whole device */
	if (sl->dec)
		CUDA_CHECK(cudaFreeAsync(sl->dec, g->st));
	sl->cap_B = need + need / 4; /* a little headroom: batches differ in size */
	CUDA_CHECK(cudaMallocAsync((void **)&sl->dec, sl->cap_B, g->st));
	/* the hardware lanes write it from their own streams: the allocation completed first */
	CUDA_CHECK(cudaStreamSynchronize(g->st));
}

static nvjpegImage_t rgbi(unsigned char *p, int w)
{
	nvjpegImage_t im;
	memset(&im, 0, sizeof(im));
	im.channel[0] = p;
	im.pitch[0] = (size_t)w * 3;
	return im;
}

/* nvjpegDecodeBatched of the lane's images on handle h; its state is re-initialised when m changes. */
static nvjpegStatus_t batched(ex_gjpeg *g, nvjpegHandle_t h, gj_lane *l)
{
	const ex_data_raw *rb = l->rb;
	const gj_slot *sl = l->sl;
	if (l->m == 0)
		return NVJPEG_STATUS_SUCCESS;
	for (int i = 0; i < l->m; i++) {
		const ex_data_raw_img *ri = &rb->img[l->idx[i]];
		l->ptr[i] = ri->data;
		l->len[i] = ri->len_B;
		l->img[i] = rgbi(sl->dec + sl->desc_h[l->idx[i]].off_B, ri->width);
	}
	if (l->init_n != l->m) {
		nvjpegStatus_t e = nvjpegDecodeBatchedInitialize(h, l->st, l->m, 1, NVJPEG_OUTPUT_RGBI);
		if (e != NVJPEG_STATUS_SUCCESS)
			return e;
		l->init_n = l->m;
	}
	ex_data_watch_phase(g->w, l->wp, PH_LOCK);
	pthread_mutex_lock(&nvj_mu);
	ex_data_watch_phase(g->w, l->wp, h == g->hw_h ? PH_HW : PH_HYBRID);
	double t0 = time_now_s();
	nvjpegStatus_t e = nvjpegDecodeBatched(h, l->st, l->ptr, l->len, l->img, l->cs);
	double t_s = time_now_s() - t0;
	pthread_mutex_unlock(&nvj_mu);
	if (l == &g->lane[0]) /* the decode thread's own lanes: its counts (lanes 1.. run on threads of their own) */
		g->ts.hw_call_s += t_s;
	else if (l == &g->gl)
		g->ts.hybrid_call_s += t_s;
	ex_data_watch_phase(g->w, l->wp, PH_QUEUE);
	return e;
}

static void *lane_thread(void *arg)
{
	gj_lane_arg *la = arg;
	ex_gjpeg *g = la->g;
	gj_lane *l = la->l;
	free(la);
	if (cudaSetDevice(g->dev) != cudaSuccess) {
		fprintf(stderr, "scaleplan-train: JPEG decode lane: cudaSetDevice(%d) failed\n", g->dev);
		exit(EXIT_ENV);
	}
	pthread_mutex_lock(&g->lmu);
	for (;;) {
		while (!l->go && !g->lanes_stop)
			pthread_cond_wait(&g->lcv, &g->lmu);
		if (!l->go)
			break;
		pthread_mutex_unlock(&g->lmu);
		nvjpegStatus_t rc = batched(g, g->hw_h, l);
		if (rc == NVJPEG_STATUS_SUCCESS && cudaEventRecord(l->done_ev, l->cs) != cudaSuccess)
			rc = NVJPEG_STATUS_EXECUTION_FAILED;
		ex_data_watch_phase(g->w, l->wp, PH_LANE_IDLE);
		pthread_mutex_lock(&g->lmu);
		l->rc = rc;
		l->go = false;
		pthread_cond_broadcast(&g->lcv);
	}
	pthread_mutex_unlock(&g->lmu);
	return NULL;
}

/* One by one after a failed batched call; an image that fails is marked bad; returns the images decoded. */
static int one_by_one(ex_gjpeg *g, const ex_data_raw *rb, gj_slot *sl, const int *idx, int m, bool *ok)
{
	int good = 0;
	for (int i = 0; i < m; i++) {
		int k = idx[i];
		const ex_data_raw_img *ri = &rb->img[k];
		nvjpegImage_t im = rgbi(sl->dec + sl->desc_h[k].off_B, ri->width);
		ex_data_watch_phase(g->w, g->wp, PH_LOCK);
		pthread_mutex_lock(&nvj_mu);
		ex_data_watch_phase(g->w, g->wp, PH_ONE);
		nvjpegStatus_t e = nvjpegDecode(g->one_h, g->one_st, ri->data, ri->len_B, NVJPEG_OUTPUT_RGBI, &im, g->st);
		pthread_mutex_unlock(&nvj_mu);
		if (e == NVJPEG_STATUS_SUCCESS) {
			ok[k] = true;
			good++;
			g->ts.single++;
		} else {
			char why[128];
			snprintf(why, sizeof(why), "nvJPEG could not decode it: %s", nvj_str(e));
			ex_data_loader_mark_bad(g->L, ri->file, why);
			ok[k] = false;
		}
	}
	return good;
}

/* Lays the batch out in the arena and fills the crops (offsets, sizes, crop, flip, label). The images the
 * loader's threads decoded (out x out, resized and flipped already) come first, packed into the pinned stage
 * in the same layout, so one copy moves them all. */
static void layout(ex_gjpeg *g, gj_slot *sl, const ex_data_raw *rb, const int *lab, int n, int out)
{
	size_t off = 0, pix_B = (size_t)out * out * 3;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n; i++) {
			const ex_data_raw_img *ri = &rb->img[i];
			if (ri->cpu != (pass == 0))
				continue;
			ex_crop_desc *d = &sl->desc_h[i];
			d->off_B = off;
			d->label = lab[i];
			if (ri->cpu) {
				memcpy(sl->stage_h + off, ri->pix, pix_B);
				d->w = d->h = out;
				d->cx = d->cy = 0, d->cw = d->ch = (float)out;
				d->flip = 0;
				off += gj_round(pix_B);
				continue;
			}
			d->w = ri->width;
			d->h = ri->height;
			d->cx = ri->crop[0], d->cy = ri->crop[1], d->cw = ri->crop[2], d->ch = ri->crop[3];
			d->flip = ri->flip;
			off += gj_round((size_t)ri->width * ri->height * 3);
		}
		if (pass == 0)
			sl->cpu_B = off;
	}
	arena_fit(g, sl, off);
}

static void lane_result(ex_gjpeg *g, gj_lane *l, nvjpegStatus_t e, bool *ok, long *count)
{
	if (e != NVJPEG_STATUS_SUCCESS) {
		g->ts.batch_failures++;
		one_by_one(g, l->rb, (gj_slot *)l->sl, l->idx, l->m, ok);
		return;
	}
	for (int i = 0; i < l->m; i++)
		ok[l->idx[i]] = true;
	*count += l->m;
}

/* The hardware images (to_hw) in contiguous shares over the lanes; lane 0 runs here. */
static void decode_hw(ex_gjpeg *g, gj_slot *sl, const ex_data_raw *rb, int n, const bool *to_hw, int m_hw, bool *ok)
{
	int nl = g->nlanes < m_hw ? g->nlanes : m_hw, k = 0, taken = 0;
	if (nl == 0)
		return;
	for (int p = 0; p < nl; p++) {
		gj_lane *l = &g->lane[p];
		int want = (m_hw * (p + 1)) / nl - (m_hw * p) / nl;
		l->m = 0;
		l->rb = rb;
		l->sl = sl;
		for (; k < n && l->m < want; k++)
			if (to_hw[k])
				l->idx[l->m++] = k;
		taken += l->m;
	}
	pthread_mutex_lock(&g->lmu);
	for (int p = 1; p < nl; p++)
		g->lane[p].go = true;
	pthread_cond_broadcast(&g->lcv);
	pthread_mutex_unlock(&g->lmu);
	nvjpegStatus_t e0 = batched(g, g->hw_h, &g->lane[0]);
	ex_data_watch_phase(g->w, g->wp, PH_LANES);
	pthread_mutex_lock(&g->lmu);
	for (int p = 1; p < nl; p++)
		while (g->lane[p].go)
			pthread_cond_wait(&g->lcv, &g->lmu);
	pthread_mutex_unlock(&g->lmu);
	lane_result(g, &g->lane[0], e0, ok, &g->ts.hw);
	for (int p = 1; p < nl; p++) {
		lane_result(g, &g->lane[p], g->lane[p].rc, ok, &g->ts.hw);
		/* lane 0's stream (st_hw, whose event the step waits for) waits for the others */
		if (g->lane[p].rc == NVJPEG_STATUS_SUCCESS)
			CUDA_CHECK(cudaStreamWaitEvent(g->st_hw, g->lane[p].done_ev, 0));
	}
	(void)taken;
}

/* Decodes batch rb into slot sl; images that fail take another image's place. */
static void decode(ex_gjpeg *g, gj_slot *sl, const ex_data_raw *rb, int n)
{
	bool *ok = xcalloc((size_t)n, sizeof(bool)), *to_hw = xcalloc((size_t)n, sizeof(bool));
	int m_hw = 0;
	for (int i = 0; i < n; i++)
		if (rb->img[i].cpu) {
			ok[i] = true;
			g->ts.cpu++;
		} else if (g->nlanes && rb->img[i].hw_ok) {
			to_hw[i] = true, m_hw++;
		}
	gj_lane *l = &g->gl; /* the CUDA decoder: the rest (progressive, CMYK, ... and the share not sent) */
	l->m = 0;
	l->rb = rb;
	l->sl = sl;
	for (int i = 0; i < n; i++)
		if (!to_hw[i] && !rb->img[i].cpu)
			l->idx[l->m++] = i;
	lane_result(g, l, batched(g, g->gpu_h, l), ok, &g->ts.gpu);
	decode_hw(g, sl, rb, n, to_hw, m_hw, ok);
	free(to_hw);
	int donor = -1;
	for (int i = 0; i < n && donor < 0; i++)
		if (ok[i])
			donor = i;
	if (donor < 0) {
		fprintf(stderr, "scaleplan-train: nvJPEG decoded none of the %d images of a batch (see the bad files above)\n", n);
		exit(EXIT_INPUT);
	}
	for (int i = 0; i < n; i++)
		if (!ok[i]) { /* its place: the donor's pixels, crop and label */
			sl->desc_h[i] = sl->desc_h[donor];
			g->ts.replaced++;
		}
	free(ok);
}

/* The CPU share follows who waits, judged over windows of GJ_CPU_WINDOW batches: the decode thread for the
 * readers (they decode too much: less), or the training thread for the decode thread while the readers kept
 * up (the GPU decoder is the bound: more). Steps of batch/32 images, at most half a batch; windows because
 * each change of the hardware share re-initialises nvJPEG's batched state. Takes effect on batches assigned
 * from then on. */
static void cpu_share_adjust(ex_gjpeg *g, double reader_wait_s)
{
	g->ts.cpu_n = g->cpu_n;
	if (!g->cpu_auto)
		return;
	pthread_mutex_lock(&g->mu);
	double fw = g->s.feed_wait_s;
	pthread_mutex_unlock(&g->mu);
	g->win_fed_s += fw - g->fw_seen;
	g->fw_seen = fw;
	g->win_reader_s += reader_wait_s;
	if (++g->win_n < GJ_CPU_WINDOW)
		return;
	int step = g->batch >= 32 ? g->batch / 32 : 1, n = g->cpu_n;
	if (g->win_reader_s > GJ_CPU_WINDOW * 0.5e-3)
		n -= step;
	else if (g->win_fed_s > GJ_CPU_WINDOW * 0.5e-3)
		n += step;
	n = n < 0 ? 0 : n > g->batch / 2 ? g->batch / 2 : n;
	if (n != g->cpu_n) {
		g->cpu_n = n;
		ex_data_loader_set_cpu_decode(g->L, n);
	}
	g->win_n = 0;
	g->win_reader_s = g->win_fed_s = 0;
}

/* Decode thread: fills the next slot (loader wait, layout, nvJPEG calls, events). */
static void fill(ex_gjpeg *g)
{
	gj_slot *sl = &g->slot[g->fill];
	void *d;
	int *lab;
#ifdef EX_TEST_HOOKS
	if (g->test_stall > 0 && g->ts.batches + 1 == g->test_stall) {
		ex_data_watch_phase(g->w, g->wp, PH_TEST_STALL);
		for (;;) /* a stop that --data-timeout must catch (tests/gpu/jpeg_gpu_smoke.sh) */
			sleep(1);
	}
#endif
	double t_start = time_now_s();
	slot_release(g, sl, g->wp);
	double t0 = time_now_s();
	g->ts.slot_wait_s += t0 - t_start;
	ex_data_watch_phase(g->w, g->wp, PH_READERS);
	int n = ex_data_loader_wait(g->L, &d, &lab);
	if (n < 0)
		die_loader("data");
	double t1 = time_now_s();
	int k = 0;
	while (k < EX_GJ_RAW && g->raw[k] != d)
		k++;
	if (k == EX_GJ_RAW) {
		fprintf(stderr, "scaleplan-train: internal: the loader returned an unknown raw buffer\n");
		exit(EXIT_ENV);
	}
	g->out[k] = false;
	sl->raw = k;
	/* the descriptors in pinned memory were last copied by this slot's previous decode (completed:
	 * slot_release synchronised it); the arena's last reader is the crop kernel of `consumed` */
	/* the slot's last reader (its crop kernel) waited for on the host, once, before the arena is touched:
	 * no decode stream then waits on the compute stream inside an nvJPEG call (a suspect of the stops at
	 * batch 64 and 128, bench/NOTES.md's log, not shown to be their cause: they went on after it) */
	ex_data_watch_phase(g->w, g->wp, PH_CONSUMED);
	double tc = time_now_s();
	if (sl->consumed_rec)
		CUDA_CHECK(cudaEventSynchronize(sl->consumed));
	g->ts.slot_wait_s += time_now_s() - tc;
	layout(g, sl, g->raw[k], lab, n, g->hw);
	ex_data_watch_phase(g->w, g->wp, PH_QUEUE);
	if (sl->cpu_B)
		CUDA_CHECK(cudaMemcpyAsync(sl->dec, sl->stage_h, sl->cpu_B, cudaMemcpyHostToDevice, g->st));
	decode(g, sl, g->raw[k], n);
	cpu_share_adjust(g, t1 - t0);
	CUDA_CHECK(cudaMemcpyAsync(sl->desc_d, sl->desc_h, (size_t)n * sizeof(ex_crop_desc), cudaMemcpyHostToDevice, g->st));
	CUDA_CHECK(cudaEventRecord(sl->decoded, g->st));
	CUDA_CHECK(cudaEventRecord(sl->decoded_hw, g->st_hw));
	sl->n = n;
	g->fill = (g->fill + 1) % GJ_SLOTS;
	g->ts.images += n;
	g->ts.batches++;
	g->ts.wait_s += t1 - t0;
	g->ts.issue_s += time_now_s() - t_start - (t1 - t0); /* all but the readers' wait */
	pthread_mutex_lock(&g->mu);
	double fw = g->s.feed_wait_s;
	g->s = g->ts;
	g->s.feed_wait_s = fw;
	sl->full = true;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

static void *decode_thread(void *arg)
{
	ex_gjpeg *g = arg;
	if (cudaSetDevice(g->dev) != cudaSuccess) {
		fprintf(stderr, "scaleplan-train: JPEG decode thread: cudaSetDevice(%d) failed\n", g->dev);
		exit(EXIT_ENV);
	}
	pthread_mutex_lock(&g->mu);
	for (;;) {
		ex_data_watch_phase(g->w, g->wp, PH_IDLE);
		while (!g->stop && g->want == 0)
			pthread_cond_wait(&g->cv, &g->mu);
		if (g->want == 0)
			break; /* stop, nothing left to do */
		g->want--;
		g->busy = true;
		pthread_mutex_unlock(&g->mu);
		fill(g);
		pthread_mutex_lock(&g->mu);
		g->busy = false;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

bool ex_gjpeg_prefetch(ex_gjpeg *g)
{
	bool ok = false;
	pthread_mutex_lock(&g->mu);
	if (g->queued < GJ_SLOTS) {
		g->queued++;
		g->want++;
		ok = true;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
	return ok;
}

int ex_gjpeg_feed(ex_gjpeg *g, ex_net *net, cudaEvent_t after_wait)
{
	gj_slot *sl = &g->slot[g->use];
	pthread_mutex_lock(&g->mu);
	if (g->queued == 0) { /* the first batch, or a caller that did not prefetch */
		g->queued++;
		g->want++;
		pthread_cond_broadcast(&g->cv);
	}
	double t0 = time_now_s();
	ex_data_watch_phase(g->w, g->wfeed, PH_FEED);
	while (!sl->full)
		pthread_cond_wait(&g->cv, &g->mu);
	g->s.feed_wait_s += time_now_s() - t0;
	pthread_mutex_unlock(&g->mu);
	ex_data_watch_phase(g->w, g->wfeed, PH_STEP);
	ex_data_watch_progress(g->w);
	CUDA_CHECK(cudaStreamWaitEvent(net->stream, sl->decoded, 0));
	CUDA_CHECK(cudaStreamWaitEvent(net->stream, sl->decoded_hw, 0));
	if (after_wait)
		CUDA_CHECK(cudaEventRecord(after_wait, net->stream));
	ex_k_crop_rgb(net->dt, sl->desc_d, sl->dec, sl->n, net->hw, ex_net_input(net), net->labels, net->stream);
	CUDA_CHECK(cudaEventRecord(sl->consumed, net->stream));
	sl->consumed_rec = true;
	g->use = (g->use + 1) % GJ_SLOTS;
	pthread_mutex_lock(&g->mu);
	sl->full = false;
	g->queued--;
	pthread_mutex_unlock(&g->mu);
	return sl->n;
}

void ex_gjpeg_stats_get(ex_gjpeg *g, ex_gjpeg_stats *s)
{
	pthread_mutex_lock(&g->mu);
	*s = g->s;
	pthread_mutex_unlock(&g->mu);
}

void ex_gjpeg_stop(ex_gjpeg *g)
{
	if (!g || !g->th_started)
		return;
	pthread_mutex_lock(&g->mu);
	g->stop = true;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->th, NULL); /* it finishes the fills already asked for: their batches are being read */
	g->th_started = false;
}

void ex_gjpeg_free(ex_gjpeg *g)
{
	if (!g)
		return;
	ex_gjpeg_stop(g);
	pthread_mutex_lock(&g->lmu);
	g->lanes_stop = true;
	pthread_cond_broadcast(&g->lcv);
	pthread_mutex_unlock(&g->lmu);
	for (int k = 1; k < g->nlanes; k++)
		if (g->lane[k].started)
			pthread_join(g->lane[k].th, NULL);
	if (g->st_hw)
		cudaStreamSynchronize(g->st_hw);
	for (int k = 0; k < GJ_SLOTS; k++) {
		gj_slot *sl = &g->slot[k];
		cudaFreeHost(sl->desc_h);
		if (sl->stage_h)
			cudaFreeHost(sl->stage_h);
		ex_dev_free(sl->desc_d);
		if (sl->dec)
			cudaFree(sl->dec); /* from cudaMallocAsync: cudaFree synchronises, then frees (the end of the run) */
		if (sl->decoded)
			cudaEventDestroy(sl->decoded);
		if (sl->decoded_hw)
			cudaEventDestroy(sl->decoded_hw);
		if (sl->consumed)
			cudaEventDestroy(sl->consumed);
	}
	for (int k = 0; k < g->nlanes; k++)
		lane_free(&g->lane[k]);
	if (!g->nlanes && g->st_hw)
		cudaStreamDestroy(g->st_hw);
	lane_free(&g->gl);
	if (g->one_st)
		nvjpegJpegStateDestroy(g->one_st);
	if (g->hw_h)
		nvjpegDestroy(g->hw_h);
	if (g->gpu_h)
		nvjpegDestroy(g->gpu_h);
	if (g->one_h)
		nvjpegDestroy(g->one_h);
	if (g->pin_user)
		gj_pin_release();
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->lmu);
	pthread_cond_destroy(&g->lcv);
	/* the raw buffers may still be in the loader: the caller frees the loader (joining its readers) first */
	for (int k = 0; k < EX_GJ_RAW; k++) {
		ex_data_raw_free(g->raw[k]);
		free(g->lab[k]);
	}
	free(g);
}
