/* exec: training checkpoints of scaleplan-train (internal header).
 *
 * A checkpoint is one file, DIR/ckpt.bin, written by rank 0 only (data-parallel ranks hold the
 * same weights), atomically: DIR/ckpt.bin.tmp.<pid>, fsync, rename, fsync of DIR - a job killed
 * while writing leaves the previous checkpoint intact. It holds fp32 master weights, momentum,
 * BN running statistics, the device training state (step, loss scale), the optimizer and
 * schedule configuration and ex_ckpt_meta (epoch, step, images, seed, the caller's RNG state).
 * `--resume` makes every rank read the same file, so the run continues where it stopped.
 *
 * Format (little-endian): "SPCKPT01", u32 version (1), u32 nsections; nsections x {char name[24],
 * u64 size_B, u64 fnv1a64 of the data}; then the sections' data in table order.
 *
 * Options: --ckpt-dir DIR, --ckpt-every-epochs N, --ckpt-every-min M (float), --resume.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_EX_CKPT_H
#define SCALEPLAN_EX_CKPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/ex_internal.h"

#define EX_CKPT_HELP \
	"  --ckpt-dir DIR          write DIR/ckpt.bin (atomically) on the schedule below\n" \
	"  --ckpt-every-epochs N   checkpoint after every N epochs (default 1 when --ckpt-dir is set)\n" \
	"  --ckpt-every-min M      also checkpoint every M minutes (mid-epoch allowed)\n" \
	"  --resume                continue from DIR/ckpt.bin (same run: step, epoch, schedule)\n"

/* What the training loop needs to continue exactly. */
typedef struct ex_ckpt_meta {
	int64_t epoch;          /* epochs completed */
	int64_t step;           /* optimizer steps taken (iterations, global) */
	int64_t images;         /* images trained on, all ranks together */
	int32_t world_size;     /* ranks of the job that wrote it */
	int32_t batch_per_gpu;
	uint64_t seed;          /* the run's seed */
	uint64_t rng[4];        /* the caller's RNG state (data order, augmentation) */
	double elapsed_s;       /* training seconds so far */
	double last_loss;       /* loss at the checkpoint (for the resume message) */
	char run_id[64];
} ex_ckpt_meta;

/* Checkpoint policy (options) and its clock. */
typedef struct ex_ckpt_policy {
	const char *dir;        /* NULL: no checkpoints */
	int every_epochs;       /* 0: not by epoch */
	double every_s;         /* 0: not by time */
	bool resume;
	double last_s;          /* monotonic time of the last checkpoint (or of the start) */
} ex_ckpt_policy;

void ex_ckpt_policy_init(ex_ckpt_policy *p);
/* Sets one option by its long name (without "--"): 0, 1 when not a checkpoint option, ERR_INPUT. */
int ex_ckpt_opt_set(ex_ckpt_policy *p, const char *name, const char *value);
/* Checks the policy before any GPU work (--resume needs --ckpt-dir and the file; the directory
 * must be writable). Returns 0 or ERR_INPUT with err set. */
int ex_ckpt_policy_check(const ex_ckpt_policy *p);
/* True when a checkpoint is due: at an epoch end that is a multiple of every_epochs, or when
 * every_s has passed since the last one. Rank 0 asks; only rank 0 writes. */
bool ex_ckpt_due(const ex_ckpt_policy *p, bool epoch_end, int64_t epochs_done, double now_s);
/* DIR/ckpt.bin (caller frees). */
char *ex_ckpt_path(const ex_ckpt_policy *p);

/* Writes net's trainable state + meta to `path` atomically. Synchronises net->stream first.
 * Returns 0 or ERR_ENV (err names the file and the system's message). */
int ex_ckpt_save(const char *path, ex_net *net, const ex_ckpt_meta *meta);
/* Reads `path` into net (device buffers, device state) and *meta. Checks magic, version,
 * checksums, and that the sizes match this network (parameter count, BN statistics).
 * Returns 0, ERR_INPUT (not a checkpoint of this network; err says what) or ERR_ENV. */
int ex_ckpt_load(const char *path, ex_net *net, ex_ckpt_meta *meta);

/* ---- section-level layer (used by the above; tests use it host-only) ---- */

typedef struct ex_ckpt_section {
	char name[24];
	uint64_t size_B;
	const void *data;       /* writer: caller's; reader: points into ex_ckpt_file.buf */
} ex_ckpt_section;

typedef struct ex_ckpt_file {
	void *buf;              /* whole file (reader) */
	size_t size_B;
	int nsec;
	ex_ckpt_section sec[16];
} ex_ckpt_file;

uint64_t ex_ckpt_fnv1a(const void *data, size_t size_B);
int ex_ckpt_write_sections(const char *path, const ex_ckpt_section *sec, int nsec);
int ex_ckpt_read_sections(ex_ckpt_file *f, const char *path);
/* The section of that name with exactly size_B bytes, or NULL with err set. */
const void *ex_ckpt_find(const ex_ckpt_file *f, const char *name, size_t size_B);
void ex_ckpt_file_free(ex_ckpt_file *f);

#endif
