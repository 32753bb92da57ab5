/* exec/ex_jpeg_gpu.c: GPU JPEG decode (nvJPEG) for --data-path jpeg-gpu; see that file's header. ex_input.c
 * drives it. A build that found no nvjpeg.h has exec/ex_jpeg_gpu_none.c instead (exec/module.mk picks one):
 * there ex_gjpeg_check says why and ex_gjpeg_new fails.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_EX_JPEG_GPU_H
#define SCALEPLAN_EX_JPEG_GPU_H

#include "exec/data/ex_data.h"
#include "exec/ex_internal.h"

/* Raw batches per decoder: two held by the decode slots, two being read by the loader's threads. (Decoding
 * further ahead - every free slot asked for after each step, 3 slots - measured 5,632 against 5,438 img/s
 * but stopped inside an epoch twice, at batch 64 with 2 and 3 slots: bench/NOTES.md's log; not kept.) */
enum { EX_GJ_RAW = 4 };
/* Threads (lanes) among which a batch's hardware-decoder images are split: --engine jpeg_lanes=2 for A/B runs
 * (one H100 job: 5,497 img/s with 2 vs 5,105 with 1, but 1 lane gave 5,429 in another job: no gain shown
 * beyond the spread between jobs); 3 lanes hung inside nvJPEG once, so at most 2 (bench/NOTES.md's log). */
enum { EX_GJ_MAX_LANES = 2 }; /* the default, 1, is ex_settings.c's */

/* 0 where this build decodes JPEGs on the GPU; ERR_ENV with err saying what the build lacked where it has no
 * nvJPEG (--data-path jpeg-gpu is then refused, jpeg-cpu is the default). */
int ex_gjpeg_check(void);

typedef struct ex_gjpeg ex_gjpeg;
typedef struct ex_gjpeg_stats {
	bool hardware;        /* a hardware JPEG decoder was found */
	int hw_lanes;         /* threads sharing the hardware decoder's batches */
	long images, batches;
	long hw, gpu, single; /* images decoded by the hardware backend, the GPU hybrid, one by one */
	long cpu;             /* images the loader's threads decoded (the CPU share) */
	int cpu_n;            /* the CPU share's images per batch at the last batch */
	long replaced;        /* places filled by another image of the batch (its file failed on the GPU) */
	long batch_failures;  /* batched calls that failed and were retried one by one */
	double wait_s;        /* host blocked waiting for the readers */
	double issue_s;       /* decode thread: from the readers' batch to its decode enqueued (all below and set-up) */
	double slot_wait_s;   /* of that: host waits for the slot's last decode and last crop kernel (consumed) */
	double hw_call_s;     /* of that: inside nvjpegDecodeBatched on the hardware decoder (the decode thread's lane) */
	double hybrid_call_s; /* of that: inside nvjpegDecodeBatched on the GPU hybrid decoder */
	double feed_wait_s;   /* training thread blocked until the decode thread had enqueued the batch */
} ex_gjpeg_stats;

/* A decoder for loader L (raw mode, depth >= EX_GJ_RAW), writing batch x hw x hw x 3 images in dt.
 * Its threads name their phases in the stall watch w (NULL: none) as "NAME decode thread" (and lanes); the
 * training thread's phases in feed and begin go to party `feeder`; each fed batch is the watch's progress.
 * ERR_ENV when nvJPEG cannot start. */
int ex_gjpeg_new(ex_gjpeg **g, ex_data_loader *L, int batch, int hw, ex_dtype dt, ex_data_watch *w, int feeder,
		 const char *name);
/* Starts a pass of `batches` batches (training: unbounded); the readers start at once. */
void ex_gjpeg_begin(ex_gjpeg *g, long batches);
/* Asks the decode thread to take the next raw batch and enqueue its decode into a free slot; false
 * (nothing asked) when both slots are taken. Returns at once. Only while the pass has batches left
 * (begin's count), or the thread waits for a batch never submitted. */
bool ex_gjpeg_prefetch(ex_gjpeg *g);
/* Compute stream: waits for the oldest decoded slot (prefetching it first if the caller did not) (records after_wait, if any, right after that wait),
 * writes its crops into net's input and labels; returns the batch's images. */
int ex_gjpeg_feed(ex_gjpeg *g, ex_net *net, cudaEvent_t after_wait);
const char *ex_gjpeg_backend(const ex_gjpeg *g);
void ex_gjpeg_stats_get(ex_gjpeg *g, ex_gjpeg_stats *s);
/* Stops the decode thread (after the fills asked for); then free the loader (its readers may still hold
 * raw buffers), then ex_gjpeg_free. */
void ex_gjpeg_stop(ex_gjpeg *g);
void ex_gjpeg_free(ex_gjpeg *g);

#endif
