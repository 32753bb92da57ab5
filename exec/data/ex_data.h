/* exec/data: the host input pipeline of scaleplan-train - pure C, no CUDA.
 *
 * 1. Fashion-MNIST IDX reader (ex_idx_*): gzip'd or raw IDX files (yann.lecun.com/exdb/mnist format:
 *    magic 00 00 08 NDIMS, big-endian uint32 dims, then uint8 data), magic/dims/counts validated,
 *    the file named in every error.
 * 2. JPEG decode + augmentation (ex_jpeg_*): libjpeg-turbo (TurboJPEG API, tjDecompress2) with DCT
 *    scaling chosen so the decoded crop is still >= the output size; RandomResizedCrop as
 *    torchvision (scale 0.08-1, ratio 3/4-4/3, 10 tries then centre fallback) + horizontal flip for
 *    training; resize(256)+centre-crop(224) for evaluation; normalised NHWC float32/bf16/fp16.
 * 3. An ImageNet-layout folder loader (ex_data_loader_*): DIR/<split>/<class>/<file>.JPEG, classes in
 *    sorted order (as torchvision ImageFolder), sharded by rank, reshuffled every epoch from a seed,
 *    decoded by a pthread worker pool into caller-owned (pinned) host buffers, with a bounded number
 *    of batches in flight. Bad files (corrupt, truncated, not a JPEG, unreadable) are counted, named
 *    and replaced by another image; they never stop training. A split with no images is ERR_INPUT.
 * 4. A stall watch (ex_data_watch_*, watch.c): threads name their phase; no batch delivered for a time
 *    limit calls the owner's handler with every thread's phase and its age (scaleplan-train --data-timeout).
 *
 * ---- Integration into scaleplan-train (exec engineer): `--data DIR --data-threads N` ----
 *   ex_data_config c; ex_data_config_init(&c);            // defaults: 224 out, 256 eval resize, ImageNet mean/std
 *   c.dir = DIR; c.split = "train"; c.train = true; c.batch = B; c.dtype = EX_DATA_BF16 (fp16: EX_DATA_F16,
 *   fp32/tf32: EX_DATA_F32); c.threads = N; c.rank = rank; c.world = world; c.seed = seed; c.depth = K (e.g. 3);
 *   ex_data_loader *L; if (ex_data_loader_new(&L, &c) < 0) { fprintf(stderr, "%s\n", err_msg()); exit(1); }
 *   classes = ex_data_loader_classes(L); steps/epoch = ex_data_loader_batches_per_epoch(L) (same on all ranks);
 *   size_t bytes = ex_data_loader_batch_bytes(L);       // NHWC [B][224][224][3] in c.dtype
 *   for k in 0..K-1: cudaHostAlloc(&host[k], bytes, cudaHostAllocDefault); labels_h[k] = pinned int[B];
 *                    ex_data_loader_submit(L, host[k], labels_h[k]);   // start prefetching
 *   each step:  void *h; int *lab; int n = ex_data_loader_wait(L, &h, &lab);   // n images, <0 = error
 *               cudaMemcpyAsync(d_img, h, n*image_bytes, H2D, copy_stream); cudaMemcpyAsync(d_lab, lab, ...);
 *               cudaEventRecord(copied[slot], copy_stream); cudaStreamWaitEvent(compute_stream, copied[slot]);
 *               ... forward/backward ...; then, once copied[slot] has completed (cudaEventSynchronize at the
 *               next step, or cudaEventQuery), ex_data_loader_submit(L, h, lab) hands the buffer back.
 *   Buffers come back from wait() in the order they were submitted; batches flow across epochs (epoch
 *   e = batch index / steps-per-epoch, reshuffled with seed+e). Time spent blocked in wait() is the
 *   host-side "GPU waits for data" (also in ex_data_stats.wait_s). Evaluation: a second loader with
 *   c.split = "val", c.train = false, c.world/rank as training (each rank evaluates its shard, all-reduce
 *   the correct counts once after the pass: shards differ by at most one image, so batches_per_epoch
 *   may differ by one between ranks); its last batch of an epoch may be short (wait() returns n < B).
 *   Submit exactly batches_per_epoch buffers per evaluation pass (do not resubmit once that many are in
 *   flight), or the loader starts decoding the next pass's images.
 *   At the end: ex_data_loader_stats(L, &st) (images, bad files, read/decode time) and
 *   ex_data_loader_report(L, stderr) (rank 0) names the bad files; ex_data_loader_free(L) joins the workers
 *   (free the pinned buffers only after it). --data fashion-mnist: ex_idx_load_fashion_mnist().
 *   Link: -lturbojpeg -ljpeg -lz -lpthread (exec/data/module.mk adds both to LDLIBS; a static
 *   libturbojpeg.a alone also carries the libjpeg API used for region decoding).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_EX_DATA_H
#define SCALEPLAN_EX_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct strbuf; /* common/common.h: the stall report is appended to one */

/* Where Debian's dataset-fashion-mnist installs its files (dpkg -L dataset-fashion-mnist). */
#define EX_IDX_FASHION_DIR "/usr/share/datasets/fashion-mnist"
/* Largest decompressed IDX file accepted (a bound against gzip bombs): 1 GiB. */
#define EX_IDX_MAX_B (1024L * 1024 * 1024)
/* Largest JPEG accepted, in pixels of the full-size image (a bound against decompression bombs). */
#define EX_JPEG_MAX_PIXELS (64L * 1024 * 1024)

/* ---- IDX (MNIST / Fashion-MNIST) ---- */

/* One split: images [n][rows][cols] uint8 (0 = background), labels [n]. */
typedef struct ex_idx_set {
	int n;                  /* images */
	int rows, cols;         /* 28 x 28 for (Fashion-)MNIST */
	int classes;            /* largest label + 1 */
	unsigned char *images;  /* [n][rows][cols] */
	unsigned char *labels;  /* [n] */
} ex_idx_set;

/* Loads an images file (IDX3 ubyte) and its labels file (IDX1 ubyte), each gzip'd or raw.
 * Fails with ERR_INPUT ("PATH: ..." naming the file) on a missing/unreadable file, bad gzip, wrong
 * magic, wrong number of dimensions, zero dims, a size that does not match the dims, or image and
 * label counts that differ. On failure *set is empty (ex_idx_free is safe). */
int ex_idx_load(ex_idx_set *set, const char *images_path, const char *labels_path);
/* Loads Fashion-MNIST's train (60,000) and test (10,000) splits from DIR (NULL: EX_IDX_FASHION_DIR);
 * checks 28x28 and labels 0..9. ERR_INPUT naming the file on failure (both sets left empty). */
int ex_idx_load_fashion_mnist(ex_idx_set *train, ex_idx_set *test, const char *dir);
void ex_idx_free(ex_idx_set *set);

/* Parses one IDX ubyte file already in memory (gzip'd - magic 1f 8b - or raw) with `ndims`
 * dimensions (1: labels, 3: images). On success *data is a fresh buffer of dims[0]*...*dims[ndims-1]
 * bytes (caller frees) and dims[] are filled. `name` is used in messages. ERR_INPUT on any defect. */
int ex_idx_parse(const void *buf, size_t len_B, const char *name, int ndims, int *dims,
		 unsigned char **data);

/* ---- JPEG decode + augmentation ---- */

/* EX_DATA_U8: the resized, flipped pixels as uint8 RGB without normalisation (the GPU path's CPU share). */
typedef enum ex_data_dtype { EX_DATA_F32 = 0, EX_DATA_BF16 = 1, EX_DATA_F16 = 2, EX_DATA_U8 = 3 } ex_data_dtype;

/* How one image becomes a network input. */
typedef struct ex_jpeg_aug {
	bool train;        /* true: RandomResizedCrop + flip; false: resize shorter side + centre crop */
	int out_hw;        /* output side, 224 */
	int resize_hw;     /* eval: shorter side resized to this before the centre crop, 256 */
	float scale_min, scale_max;  /* RRC area fraction, 0.08 .. 1 (torchvision) */
	float ratio_min, ratio_max;  /* RRC aspect ratio, 3/4 .. 4/3 (torchvision) */
	float mean[3], std[3];       /* per channel RGB, on 0..1 pixels: ImageNet 0.485 0.456 0.406 / 0.229 0.224 0.225 */
	ex_data_dtype dtype;
	bool fast_dct;     /* TJFLAG_FASTDCT (slightly less exact IDCT); default false */
	bool full_decode;  /* decode the whole image even when the crop's region would do (comparisons) */
} ex_jpeg_aug;

/* Fills torchvision defaults: 224 out, 256 resize, scale 0.08-1, ratio 3/4-4/3, ImageNet mean/std, f32. */
void ex_jpeg_aug_init(ex_jpeg_aug *a, bool train);

/* Per-thread decoder state (TurboJPEG handle and scratch buffers). */
typedef struct ex_jpeg_ctx ex_jpeg_ctx;
ex_jpeg_ctx *ex_jpeg_ctx_new(void);  /* NULL with err set (ERR_ENV) if TurboJPEG cannot start */
void ex_jpeg_ctx_free(ex_jpeg_ctx *c);

/* What one decode did (for benchmarks and tests). */
typedef struct ex_jpeg_info {
	int width, height;           /* full-size JPEG */
	int dec_width, dec_height;   /* after DCT scaling */
	int scale_num, scale_denom;  /* the DCT scaling factor used */
	int crop_x, crop_y, crop_w, crop_h;  /* crop in full-size pixels */
	bool flipped;
} ex_jpeg_info;

/* Decodes one JPEG from memory and writes the augmented, normalised image to dst as
 * [out_hw][out_hw][3] (NHWC, RGB) in a->dtype. `rng` is the image's random state (advanced).
 * Greyscale and CMYK JPEGs become RGB. info may be NULL. Fails with ERR_INPUT (message: the
 * library's reason, e.g. "Premature end of JPEG file") on a corrupt, truncated, empty or
 * non-JPEG buffer or an image over EX_JPEG_MAX_PIXELS; dst is then untouched. */
int ex_jpeg_decode_aug(ex_jpeg_ctx *c, const unsigned char *jpeg, size_t len_B, const ex_jpeg_aug *a,
		       uint64_t *rng, void *dst, ex_jpeg_info *info);

/* As ex_jpeg_decode_aug with the crop (x, y, w, h in full-size pixels) and flip already drawn (raw mode's
 * ex_data_raw_img): the GPU path's CPU share decodes with a->dtype EX_DATA_U8. ERR_INPUT on a corrupt file or
 * a crop outside the image. */
int ex_jpeg_decode_at(ex_jpeg_ctx *c, const unsigned char *jpeg, size_t len_B, const ex_jpeg_aug *a,
		      const float crop[4], bool flip, void *dst);

/* torchvision RandomResizedCrop.get_params on a width x height image: crop (x, y, w, h). */
void ex_jpeg_rrc_params(int width, int height, const ex_jpeg_aug *a, uint64_t *rng, int *x, int *y, int *w,
			int *h);

/* The crop an image of width x height gets: train: RandomResizedCrop (ex_jpeg_rrc_params) then a
 * horizontal flip with probability 1/2 (both drawn from rng, in that order); eval: Resize(resize_hw) +
 * CenterCrop(out_hw) expressed on the original image. In full-size pixels; the CPU and GPU paths share it. */
void ex_jpeg_crop(int width, int height, const ex_jpeg_aug *a, uint64_t *rng, double *cx, double *cy, double *cw,
		  double *ch, bool *flip);

/* What the markers before the first scan say (ITU T.81 annex B), read without decoding. */
typedef struct ex_jpeg_hdr {
	int sof;             /* frame marker: 0xC0 baseline, 0xC1 extended, 0xC2 progressive, ... */
	int precision;       /* bits per sample */
	int width, height;
	int components;      /* 1 grey, 3 YCbCr, 4 CMYK/YCCK */
	int hsamp[4], vsamp[4];  /* sampling factors per component */
	size_t scan_B;       /* offset of the first entropy-coded byte */
	bool has_eoi;        /* an end-of-image marker FF D9 within the last KiB */
	bool hw_ok;          /* baseline 8-bit grey or YCbCr 4:4:4/4:2:2/4:2:0/4:4:0/4:1:1/4:1:0 (hardware decoder) */
} ex_jpeg_hdr;
/* Walks the markers up to the first scan (SOS). ERR_INPUT naming the defect and its byte offset on an
 * empty, non-JPEG or corrupt header, a frame over EX_JPEG_MAX_PIXELS or bad sampling factors. A missing
 * EOI is not an error here (has_eoi false): the caller decides. Fuzzed by tests/fuzz/fuzz_jpeghdr.c. */
int ex_jpeg_header(const unsigned char *jpeg, size_t len_B, ex_jpeg_hdr *h);

/* Bytes of one output image: out_hw^2 * 3 * (4 or 2). */
size_t ex_jpeg_image_bytes(const ex_jpeg_aug *a);

/* Converters used for the output (round to nearest even; NaN kept NaN). */
uint16_t ex_data_f32_to_bf16(float f);
uint16_t ex_data_f32_to_f16(float f);
float ex_data_bf16_to_f32(uint16_t h);
float ex_data_f16_to_f32(uint16_t h);

/* splitmix64: the random source of everything here (deterministic per seed). */
uint64_t ex_data_rand(uint64_t *state);

/* ---- ImageNet-layout folder loader ---- */

typedef struct ex_data_config {
	const char *dir;      /* root with train/ and val/ */
	const char *split;    /* "train" or "val" (any sub-folder name) */
	bool train;           /* augment (RRC+flip, shuffle, drop last partial batch) or evaluate (in order) */
	int batch;            /* images per batch (per rank) */
	ex_data_dtype dtype;
	int out_hw, resize_hw;
	int threads;          /* decode workers, >= 1 */
	int depth;            /* max batches submitted at once (the prefetch queue bound), >= 1 */
	int rank, world;      /* this rank reads files rank, rank+world, ... of each epoch's order */
	uint64_t seed;        /* epoch e's order is a permutation from seed and e (same on every rank) */
	bool fixed_shard;     /* true: each rank keeps the same files every epoch (node page cache stays
	                         warm) and reshuffles only within them; false: global reshuffle per epoch
	                         (torch DistributedSampler) */
	long limit;           /* use at most this many files of the split (0: all); for tests/benchmarks */
	bool quiet;           /* do not print bad files to stderr as they are found */
	bool full_decode;     /* decode whole images, not just the crop's region (for comparisons) */
	bool fast_dct;        /* libjpeg-turbo's fast integer IDCT (slightly less exact) */
	float scale_min;      /* RandomResizedCrop's smallest area fraction; 0: torchvision's 0.08 */
	bool raw;             /* no decode: the workers read each file, check its header (ex_jpeg_header, and an
	                         EOI at the end), draw its crop and hand the bytes over in an ex_data_raw (the
	                         `dst` of submit) for a GPU decoder; labels as usual */
} ex_data_config;

/* raw mode: one image's file bytes, its size and the crop drawn for it (ex_jpeg_crop). */
typedef struct ex_data_raw_img {
	unsigned char *data;
	size_t len_B, cap_B;
	int width, height;
	bool hw_ok;           /* ex_jpeg_hdr.hw_ok */
	float crop[4];        /* x, y, w, h in full-size pixels */
	bool flip;
	long file;            /* index of the file (ex_data_loader_file, ex_data_loader_mark_bad) */
	bool cpu;             /* decoded here (ex_data_loader_set_cpu_decode): pix holds out_hw^2 uint8 RGB, the
	                         crop resized and flipped already */
	unsigned char *pix;
	size_t pix_cap_B;
} ex_data_raw_img;
typedef struct ex_data_raw {
	int batch;
	ex_data_raw_img *img; /* [batch]; buffers grow as needed and are reused across batches */
} ex_data_raw;
ex_data_raw *ex_data_raw_new(int batch);
void ex_data_raw_free(ex_data_raw *r);

/* Defaults: split "train", train true, batch 256, f32, 224/256, 4 threads, depth 3, rank 0 of 1, seed 1. */
void ex_data_config_init(ex_data_config *c);

typedef struct ex_data_stats {
	long images;          /* decoded into batches (replacements included) */
	long batches;         /* returned by wait() */
	long files;           /* image files found by the scan */
	long nonimage;        /* files skipped at scan: not .jpg/.jpeg */
	long empty_classes;   /* class folders without images */
	long bad;             /* distinct files that failed to read or decode */
	double read_B;        /* bytes read from files */
	double read_s;        /* summed over workers: time in open/read */
	double decode_s;      /* summed over workers: time decoding + augmenting */
	double wait_s;        /* consumer time blocked in wait() */
} ex_data_stats;

typedef struct ex_data_loader ex_data_loader;

/* Scans DIR/split (classes = sorted sub-folders; files ending .jpg or .jpeg, any case) and starts the workers.
 * ERR_INPUT with a message naming the folder when it is missing, has no class folders or has no
 * image at all; non-image files and empty classes are counted and reported, not errors.
 * ERR_ENV when threads cannot start. */
int ex_data_loader_new(ex_data_loader **out, const ex_data_config *c);
/* Joins the workers; buffers still submitted are abandoned (never written after this returns). */
void ex_data_loader_free(ex_data_loader *l);

int ex_data_loader_classes(const ex_data_loader *l);
const char *ex_data_loader_class_name(const ex_data_loader *l, int i);
long ex_data_loader_files(const ex_data_loader *l);         /* images in the split (all ranks) */
long ex_data_loader_shard_files(const ex_data_loader *l);   /* this rank's images per epoch */
long ex_data_loader_batches_per_epoch(const ex_data_loader *l);
size_t ex_data_loader_batch_bytes(const ex_data_loader *l); /* batch * image bytes */
size_t ex_data_loader_image_bytes(const ex_data_loader *l);

/* Hands a buffer (batch_bytes) and a label array (batch ints) to be filled with the next batch.
 * At most `depth` may be outstanding: ERR_INPUT when more are submitted. */
int ex_data_loader_submit(ex_data_loader *l, void *dst, int *labels);
/* Blocks until the oldest submitted buffer is full; returns its image count (> 0; == batch except the
 * last batch of an eval epoch) and the buffer/labels pointers. ERR_INPUT when nothing is submitted
 * or when a batch cannot be filled (every replacement failed, message names files). */
int ex_data_loader_wait(ex_data_loader *l, void **dst, int **labels);
/* submit + wait into one buffer: no prefetch; for tests and simple callers. */
int ex_data_loader_next(ex_data_loader *l, void *dst, int *labels);

/* raw mode: the first n images of every batch assigned from now on are decoded by the workers as well
 * (ex_data_raw_img.cpu, .pix), so the CPU takes a share of the decoding beside a GPU decoder; 0 (the
 * default) leaves every decode to the GPU. Clamped to 0..batch. */
void ex_data_loader_set_cpu_decode(ex_data_loader *l, int n);
/* raw mode: the GPU could not decode file `file` (delivered in a batch): flag it bad, name it with `why`
 * in the report, never deliver it again. ERR_INPUT for an index out of range. */
int ex_data_loader_mark_bad(ex_data_loader *l, long file, const char *why);
const char *ex_data_loader_file(const ex_data_loader *l, long file); /* relative path, or NULL */

void ex_data_loader_stats(ex_data_loader *l, ex_data_stats *s);
/* Prints a summary and each bad or skipped file with its reason (at most 50 names). */
void ex_data_loader_report(ex_data_loader *l, FILE *f);
/* The i-th bad file found (path relative to DIR/split) and its reason, or NULL. */
const char *ex_data_loader_bad_file(ex_data_loader *l, long i, const char **reason);
/* One line on the batches in flight (for a stall report): how many, and the oldest one's images handed to
 * the threads and not finished. Does not wait for the loader's lock: says so when a thread holds it. */
void ex_data_loader_describe(ex_data_loader *l, char *buf, size_t cap);

/* ---- a stall watch for the data path (watch.c) ----
 * Threads (parties) name the phase they are in; the delivery of a batch to the step is progress. Armed,
 * the watch's own thread calls on_stall(report) once when no progress came for limit_s seconds; the report
 * names each party's phase and how long it has been in it (scaleplan-train's --data-timeout). Every call
 * takes NULL for w and then does nothing, so callers need no checks. */
typedef struct ex_data_watch ex_data_watch;
enum { EX_WATCH_PARTIES = 8 };
typedef void (*ex_data_watch_fn)(const char *report, void *arg);
/* limit_s 0 or on_stall NULL: no thread (phases are still kept; ex_data_watch_check works). ERR_INPUT for a
 * negative or absurd limit, ERR_ENV when the thread cannot start. */
int ex_data_watch_new(ex_data_watch **out, double limit_s, ex_data_watch_fn on_stall, void *arg);
int ex_data_watch_party(ex_data_watch *w, const char *name); /* its id, or -1 past EX_WATCH_PARTIES */
void ex_data_watch_phase(ex_data_watch *w, int party, const char *phase); /* phase: a string that lives on */
void ex_data_watch_progress(ex_data_watch *w);
void ex_data_watch_arm(ex_data_watch *w, bool armed); /* arming starts the limit's count */
/* Whether the watch counts as stalled at now_s (time_now_s's clock); if so, and report, appends the report to
 * it (whole: common/common.h's strbuf). */
bool ex_data_watch_check(ex_data_watch *w, double now_s, struct strbuf *report);
void ex_data_watch_free(ex_data_watch *w);

/* ---- an ImageNet-like JPEG folder for benchmarks (mkimagenet.c) ---- */
typedef struct ex_mkin_config {
	const char *dir;      /* created if missing: DIR/train/<class>/<name>.JPEG and DIR/val/... */
	long train, val;      /* images (val -1: train / 10) */
	int classes;          /* 1,000 as ImageNet; image i is in class i % classes */
	int quality;          /* JPEG quality, 4:2:0 (97) */
	int threads;
	uint64_t seed;
} ex_mkin_config;
typedef struct ex_mkin_stats {
	long images;
	double bytes, sum_w, sum_h;
} ex_mkin_stats;
void ex_mkin_config_init(ex_mkin_config *c);
/* Writes the folder (each file atomically). ERR_INPUT naming the path or setting on failure. */
int ex_make_imagenet_like(const ex_mkin_config *c, ex_mkin_stats *st);
/* The width and height drawn for the image of this seed (for tests of the size distribution). */
void ex_mkin_size(uint64_t seed, int *w, int *h);

#endif
