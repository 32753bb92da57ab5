/* --data DIR --data-path jpeg-gpu: JPEG decode on the GPU with nvJPEG (issue 27).
 *
 * Why: the CPU path decodes at about 477 images/s per core (bench/NOTES.md, issue 27), so one GPU at
 * 7,000 img/s would need ~15 cores for decoding alone. Here the CPU threads of exec/data's loader (raw
 * mode) only read the files, check their headers and draw each image's crop; the GPU decodes.
 *
 * Per batch (one ex_gjpeg per loader, train and val):
 *   host, after the previous step was launched (ex_gjpeg_prefetch): take the next raw batch from the
 *     loader; lay its images out in the slot's device arena; nvjpegDecodeBatched of the images the
 *     hardware JPEG decoder takes (baseline 8-bit grey/YCbCr, ex_jpeg_hdr.hw_ok; the A100/H100/H200 have
 *     one) on a handle of NVJPEG_BACKEND_HARDWARE, and of the rest (progressive, CMYK, ...) - or of all
 *     where the GPU has no hardware decoder - on a handle of NVJPEG_BACKEND_GPU_HYBRID (Huffman decode on
 *     the GPU too); all on the decode stream, with the crops (ex_crop_desc) copied after them; record
 *     `decoded`.
 *   compute stream (ex_gjpeg_feed): wait `decoded`, then ex_k_crop_rgb resizes, flips and normalises the
 *     crops straight into the net's fixed input buffer (CUDA-graph safe) and writes the labels; record
 *     `consumed` (the decode stream waits for it before it overwrites that slot).
 * Two slots: batch i+1 decodes while step i runs. A raw batch goes back to the loader once the decode
 * that read it completed. A failed batched call is retried image by image (NVJPEG_BACKEND_DEFAULT); an
 * image that still fails is marked bad in the loader (named in the report, never read again) and its
 * place in the batch is taken by another image of the batch, counted as replaced.
 * Built only where nvjpeg.h is found (exec/module.mk: EX_HAVE_NVJPEG).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <nvjpeg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "exec/data/ex_data.h"
#include "exec/ex_internal.h"
#include "exec/ex_jpeg_gpu.h"

enum { GJ_SLOTS = 2, GJ_ALIGN = 256 };

typedef struct gj_slot {
	unsigned char *dec;     /* device arena of decoded RGB images */
	size_t cap_B;
	ex_crop_desc *desc_h;   /* pinned [batch] */
	ex_crop_desc *desc_d;   /* device [batch] */
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
	nvjpegJpegState_t hw_st, gpu_st, one_st;
	int hw_init_n, gpu_init_n;         /* batch size the batched states were initialised for */
	int hw_pct;                        /* share of a batch's hardware-decodable images sent to it */
	cudaStream_t st, st_hw;            /* CUDA decoder (and descriptors), hardware decoder */
	/* the decode thread: the nvJPEG calls hold the host for tens of ms a batch (measured on an H100,
	 * bench/NOTES.md issue 27), so they run beside the thread that launches the steps */
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
	/* scratch for one batched call */
	const unsigned char **ptr;
	size_t *len;
	nvjpegImage_t *img;
	int *idx;
	ex_gjpeg_stats s;                  /* what stats_get returns (under mu) */
	ex_gjpeg_stats ts;                 /* the decode thread's running counts, copied into s under mu */
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

int ex_gjpeg_new(ex_gjpeg **out, ex_data_loader *L, int batch, int hw, ex_dtype dt)
{
	ex_gjpeg *g = xcalloc(1, sizeof(*g));
	g->L = L;
	g->batch = batch;
	g->hw = hw;
	g->dt = dt;
	/* the hardware backend fails to start where the GPU has no JPEG engine: then everything goes
	 * through the GPU hybrid backend */
	if (nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, NULL, NULL, 0, &g->hw_h) != NVJPEG_STATUS_SUCCESS)
		g->hw_h = NULL;
	if (g->hw_h && nvjpegJpegStateCreate(g->hw_h, &g->hw_st) != NVJPEG_STATUS_SUCCESS) {
		nvjpegDestroy(g->hw_h);
		g->hw_h = NULL;
	}
	nvjpegStatus_t e = nvjpegCreateEx(NVJPEG_BACKEND_GPU_HYBRID, NULL, NULL, 0, &g->gpu_h);
	if (e != NVJPEG_STATUS_SUCCESS) {
		err_set("nvJPEG: cannot start the GPU hybrid backend: %s", nvj_str(e));
		ex_gjpeg_free(g);
		return ERR_ENV;
	}
	NVJ_CHECK(nvjpegJpegStateCreate(g->gpu_h, &g->gpu_st));
	NVJ_CHECK(nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, NULL, NULL, 0, &g->one_h));
	NVJ_CHECK(nvjpegJpegStateCreate(g->one_h, &g->one_st));
	g->hw_init_n = g->gpu_init_n = -1;
	CUDA_CHECK(cudaStreamCreateWithFlags(&g->st, cudaStreamNonBlocking));
	CUDA_CHECK(cudaStreamCreateWithFlags(&g->st_hw, cudaStreamNonBlocking));
	CUDA_CHECK(cudaGetDevice(&g->dev));
	/* the hardware decoder alone did not keep up with an H100 at batch 256 (bench/NOTES.md, issue 27): a
	 * share of the images goes to the CUDA decoder, as DALI's hw_decoder_load does */
	g->hw_pct = ex_env_int("EX_JPEG_HW_PCT", 0, 100, EX_GJ_HW_PCT);
	for (int k = 0; k < EX_GJ_RAW; k++) {
		g->raw[k] = ex_data_raw_new(batch);
		g->lab[k] = xcalloc((size_t)batch, sizeof(int));
	}
	for (int k = 0; k < GJ_SLOTS; k++) {
		gj_slot *sl = &g->slot[k];
		CUDA_CHECK(cudaHostAlloc((void **)&sl->desc_h, (size_t)batch * sizeof(ex_crop_desc), cudaHostAllocDefault));
		CUDA_CHECK(ex_dev_malloc((void **)&sl->desc_d, (size_t)batch * sizeof(ex_crop_desc)));
		CUDA_CHECK(cudaEventCreateWithFlags(&sl->decoded, cudaEventDisableTiming));
		CUDA_CHECK(cudaEventCreateWithFlags(&sl->decoded_hw, cudaEventDisableTiming));
		CUDA_CHECK(cudaEventCreateWithFlags(&sl->consumed, cudaEventDisableTiming));
		sl->raw = -1;
	}
	g->ptr = xcalloc((size_t)batch, sizeof(*g->ptr));
	g->len = xcalloc((size_t)batch, sizeof(*g->len));
	g->img = xcalloc((size_t)batch, sizeof(*g->img));
	g->idx = xcalloc((size_t)batch, sizeof(*g->idx));
	g->s.hardware = g->ts.hardware = g->hw_h != NULL;
	g->s.hw_pct = g->ts.hw_pct = g->hw_h ? g->hw_pct : 0;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	int e2 = pthread_create(&g->th, NULL, decode_thread, g);
	if (e2 != 0) {
		err_set("cannot start the JPEG decode thread: %s", strerror(e2));
		ex_gjpeg_free(g);
		return ERR_ENV;
	}
	g->th_started = true;
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

/* The raw buffer a slot decoded from goes back once that decode completed. */
static void slot_release(ex_gjpeg *g, gj_slot *sl)
{
	if (sl->raw < 0)
		return;
	CUDA_CHECK(cudaEventSynchronize(sl->decoded));
	CUDA_CHECK(cudaEventSynchronize(sl->decoded_hw));
	sl->raw = -1;
	submit_idle(g);
}

void ex_gjpeg_begin(ex_gjpeg *g, long batches)
{
	pthread_mutex_lock(&g->mu); /* the decode thread must be idle: it submits too */
	while (g->busy || g->want > 0)
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
	for (int j = 0; j < GJ_SLOTS; j++)
		if (!g->slot[j].full)
			slot_release(g, &g->slot[j]);
	g->left = batches;
	submit_idle(g);
}

/* Grows the slot's arena to `need` bytes once nothing reads it any more. */
static void arena_fit(gj_slot *sl, size_t need)
{
	if (need <= sl->cap_B)
		return;
	if (sl->consumed_rec)
		CUDA_CHECK(cudaEventSynchronize(sl->consumed));
	ex_dev_free(sl->dec); /* cudaFree waits for the device */
	sl->cap_B = need + need / 4; /* a little headroom: batches differ in size */
	CUDA_CHECK(ex_dev_malloc((void **)&sl->dec, sl->cap_B));
}

static nvjpegImage_t rgbi(unsigned char *p, int w)
{
	nvjpegImage_t im;
	memset(&im, 0, sizeof(im));
	im.channel[0] = p;
	im.pitch[0] = (size_t)w * 3;
	return im;
}

/* nvjpegDecodeBatched of images idx[0..m) of rb on (h, st); its state is re-initialised when m changes. */
static nvjpegStatus_t batched(ex_gjpeg *g, nvjpegHandle_t h, nvjpegJpegState_t st, int *init_n, const ex_data_raw *rb,
			      const gj_slot *sl, int m, cudaStream_t cs)
{
	if (m == 0)
		return NVJPEG_STATUS_SUCCESS;
	for (int i = 0; i < m; i++) {
		const ex_data_raw_img *ri = &rb->img[g->idx[i]];
		g->ptr[i] = ri->data;
		g->len[i] = ri->len_B;
		g->img[i] = rgbi(sl->dec + sl->desc_h[g->idx[i]].off_B, ri->width);
	}
	if (*init_n != m) {
		nvjpegStatus_t e = nvjpegDecodeBatchedInitialize(h, st, m, 1, NVJPEG_OUTPUT_RGBI);
		if (e != NVJPEG_STATUS_SUCCESS)
			return e;
		*init_n = m;
	}
	return nvjpegDecodeBatched(h, st, g->ptr, g->len, g->img, cs);
}

/* One by one after a failed batched call; an image that fails is marked bad; returns the images decoded. */
static int one_by_one(ex_gjpeg *g, const ex_data_raw *rb, gj_slot *sl, int m, bool *ok)
{
	int good = 0;
	for (int i = 0; i < m; i++) {
		int k = g->idx[i];
		const ex_data_raw_img *ri = &rb->img[k];
		nvjpegImage_t im = rgbi(sl->dec + sl->desc_h[k].off_B, ri->width);
		nvjpegStatus_t e = nvjpegDecode(g->one_h, g->one_st, ri->data, ri->len_B, NVJPEG_OUTPUT_RGBI, &im, g->st);
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

/* Lays the batch out in the arena and fills the crops (offsets, sizes, crop, flip, label). */
static void layout(gj_slot *sl, const ex_data_raw *rb, const int *lab, int n)
{
	size_t off = 0;
	for (int i = 0; i < n; i++) {
		const ex_data_raw_img *ri = &rb->img[i];
		ex_crop_desc *d = &sl->desc_h[i];
		d->off_B = off;
		d->w = ri->width;
		d->h = ri->height;
		d->cx = ri->crop[0], d->cy = ri->crop[1], d->cw = ri->crop[2], d->ch = ri->crop[3];
		d->flip = ri->flip;
		d->label = lab[i];
		off += ((size_t)ri->width * ri->height * 3 + GJ_ALIGN - 1) / GJ_ALIGN * GJ_ALIGN;
	}
	arena_fit(sl, off);
}

/* Decodes batch rb into slot sl on the decode stream; images that fail take another image's place. */
static void decode(ex_gjpeg *g, gj_slot *sl, const ex_data_raw *rb, int n)
{
	bool *ok = xcalloc((size_t)n, sizeof(bool)), *to_hw = xcalloc((size_t)n, sizeof(bool));
	int m_hw = 0, m_gpu = 0, hw_max = (n * g->hw_pct + 50) / 100;
	/* the CUDA decoder's batch first (its host part is short), then the hardware decoder's */
	for (int i = 0; g->hw_h && i < n && m_hw < hw_max; i++)
		if (rb->img[i].hw_ok)
			to_hw[i] = true, m_hw++;
	for (int i = 0; i < n; i++)
		if (!to_hw[i])
			g->idx[m_gpu++] = i;
	nvjpegStatus_t e = batched(g, g->gpu_h, g->gpu_st, &g->gpu_init_n, rb, sl, m_gpu, g->st);
	if (e != NVJPEG_STATUS_SUCCESS) {
		g->ts.batch_failures++;
		one_by_one(g, rb, sl, m_gpu, ok);
	} else {
		for (int i = 0; i < m_gpu; i++)
			ok[g->idx[i]] = true;
		g->ts.gpu += m_gpu;
	}
	m_hw = 0;
	for (int i = 0; i < n; i++)
		if (to_hw[i])
			g->idx[m_hw++] = i;
	e = batched(g, g->hw_h, g->hw_st, &g->hw_init_n, rb, sl, m_hw, g->st_hw);
	if (e != NVJPEG_STATUS_SUCCESS) {
		g->ts.batch_failures++;
		one_by_one(g, rb, sl, m_hw, ok);
	} else {
		for (int i = 0; i < m_hw; i++)
			ok[g->idx[i]] = true;
		g->ts.hw += m_hw;
	}
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

/* Decode thread: fills the next slot (loader wait, layout, nvJPEG calls, events). */
static void fill(ex_gjpeg *g)
{
	gj_slot *sl = &g->slot[g->fill];
	void *d;
	int *lab;
	double t0 = time_now_s();
	slot_release(g, sl);
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
	layout(sl, g->raw[k], lab, n);
	if (sl->consumed_rec) {
		CUDA_CHECK(cudaStreamWaitEvent(g->st, sl->consumed, 0));
		CUDA_CHECK(cudaStreamWaitEvent(g->st_hw, sl->consumed, 0));
	}
	decode(g, sl, g->raw[k], n);
	CUDA_CHECK(cudaMemcpyAsync(sl->desc_d, sl->desc_h, (size_t)n * sizeof(ex_crop_desc), cudaMemcpyHostToDevice, g->st));
	CUDA_CHECK(cudaEventRecord(sl->decoded, g->st));
	CUDA_CHECK(cudaEventRecord(sl->decoded_hw, g->st_hw));
	sl->n = n;
	g->fill = (g->fill + 1) % GJ_SLOTS;
	g->ts.images += n;
	g->ts.batches++;
	g->ts.wait_s += t1 - t0;
	g->ts.issue_s += time_now_s() - t1;
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
	while (!sl->full)
		pthread_cond_wait(&g->cv, &g->mu);
	g->s.feed_wait_s += time_now_s() - t0;
	pthread_mutex_unlock(&g->mu);
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
	if (g->st)
		cudaStreamSynchronize(g->st);
	if (g->st_hw)
		cudaStreamSynchronize(g->st_hw);
	for (int k = 0; k < GJ_SLOTS; k++) {
		gj_slot *sl = &g->slot[k];
		cudaFreeHost(sl->desc_h);
		ex_dev_free(sl->desc_d);
		ex_dev_free(sl->dec);
		if (sl->decoded)
			cudaEventDestroy(sl->decoded);
		if (sl->decoded_hw)
			cudaEventDestroy(sl->decoded_hw);
		if (sl->consumed)
			cudaEventDestroy(sl->consumed);
	}
	if (g->hw_st)
		nvjpegJpegStateDestroy(g->hw_st);
	if (g->gpu_st)
		nvjpegJpegStateDestroy(g->gpu_st);
	if (g->one_st)
		nvjpegJpegStateDestroy(g->one_st);
	if (g->hw_h)
		nvjpegDestroy(g->hw_h);
	if (g->gpu_h)
		nvjpegDestroy(g->gpu_h);
	if (g->one_h)
		nvjpegDestroy(g->one_h);
	if (g->st)
		cudaStreamDestroy(g->st);
	if (g->st_hw)
		cudaStreamDestroy(g->st_hw);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	/* the raw buffers may still be in the loader: the caller frees the loader (joining its readers) first */
	for (int k = 0; k < EX_GJ_RAW; k++) {
		ex_data_raw_free(g->raw[k]);
		free(g->lab[k]);
	}
	free(g->ptr);
	free(g->len);
	free(g->img);
	free(g->idx);
	free(g);
}
