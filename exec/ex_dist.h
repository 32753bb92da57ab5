/* exec: data-parallel layer of scaleplan-train (internal header).
 *
 * One process per GPU. Start-up, in this order (every call below names how it fails):
 *
 *   ex_dist *d;
 *   ex_dist_boot(&d, &argc, &argv);          MPI_Init (under mpirun/srun) or the launcher's
 *                                            environment (RANK/WORLD_SIZE/LOCAL_RANK, torchrun
 *                                            style); rank, size, local rank; NO GPU work yet
 *   ok = parse_and_check_args(...);          the caller's parser, run on every rank
 *   if (!ex_dist_agree(d, ok)) exit(1);      every rank learns whether ANY rank had bad input
 *   ex_dist_start(d, &opts);                 cudaSetDevice(local GPU), NCCL_* variables of the
 *                                            transport mode, ncclUniqueId broadcast, non-blocking
 *                                            ncclCommInitRankConfig polled with a timeout, comm
 *                                            stream, watchdog thread
 *   ... model allocates its flat fp32 master weights + flat gradient buffer ...
 *
 *   ex_dist_attach(d, net->p.grad, EX_DIST_FP32, net->p.n);   flat gradient buffer
 *   ex_dist_hooks(d, &net->hooks);           fills exec's ex_hooks (grad_ready, before_optimizer)
 *
 * Every training iteration (the hooks run inside ex_net_train_step, or once while a CUDA graph is
 * captured - they only enqueue events, kernels and NCCL calls, so replays repeat them):
 *
 *   ex_dist_heartbeat(d);                    host, outside any graph: "an iteration started";
 *                                            the watchdog ends the job when none comes for
 *                                            --nccl-timeout s (ex_dist_pause disarms it)
 *   grad_ready(first, count, stream)         backward made gradient elements [first, first+count)
 *                                            final (decreasing offsets). Ranges are collected
 *                                            into buckets of >= --bucket-mb; a full bucket's
 *                                            all-reduce goes out on the comm stream, after an
 *                                            event recorded on the compute stream (no host sync)
 *   before_optimizer(stream)                 the last bucket goes out; the compute stream waits
 *                                            for the comm stream (event)
 *   ex_dist_sync(d, stream)                  where the host must wait anyway: polls NCCL's
 *                                            async error and the timeout instead of blocking
 *   ex_dist_times_sample(d, &t)              after a host sync: all-reduce busy time and exposed
 *                                            (after-backward) comm time of the last iteration
 *
 * Gradients are averaged over ranks (ncclAvg) in the precision chosen by --grad-precision: when it
 * differs from the buffer's, each bucket is converted into a comm buffer, reduced, converted back
 * (exec/ex_dist_kernels.cu). Batch-norm statistics stay per GPU (like PyTorch DDP without SyncBN).
 *
 * Faults: a watchdog thread polls ncclCommGetAsyncError and the age of the oldest unfinished
 * all-reduce; on an NCCL error or after --nccl-timeout seconds it prints which rank, host and GPU
 * saw it, aborts the communicator and ends the whole job (MPI_Abort; without MPI: exit status 2,
 * and the launcher takes the other ranks down).
 *
 * Emulated machines on one host (docs/design.md): --nccl-mode nvlink (default) | p2p-off | all-socket
 * | emulated, and --emulate-nodes K (implies emulated): ranks [g*size/K, (g+1)*size/K) share
 * NCCL_HOSTID "emunode<g>", NVLink inside a group, NCCL_NET=Socket between groups.
 *
 * A build that found no MPI or no NCCL has exec/ex_dist_none.c instead of ex_dist.c and ex_dist_bench.c
 * (exec/module.mk picks them): one process on GPU 0, and the options above refused with the reason.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_EX_DIST_H
#define SCALEPLAN_EX_DIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <cuda_runtime.h>

/* Options of the data-parallel layer; long option names in ex_dist_opt_set. */
#define EX_DIST_MAX_BUCKETS 256

typedef enum ex_dist_mode {
	EX_DIST_NVLINK = 0,   /* NCCL defaults (NVLink / PCIe P2P inside a host, NIC between hosts) */
	EX_DIST_P2P_OFF,      /* NCCL_P2P_DISABLE=1: through host shared memory, PCIe-like */
	EX_DIST_ALL_SOCKET,   /* P2P and SHM off, NCCL_NET=Socket on lo: a network between all GPUs */
	EX_DIST_EMULATED,     /* NCCL_HOSTID per group of ranks + NCCL_NET=Socket between groups */
} ex_dist_mode;

typedef enum ex_dist_dtype { EX_DIST_FP32 = 0, EX_DIST_BF16, EX_DIST_FP16 } ex_dist_dtype;

typedef struct ex_dist_opts {
	ex_dist_mode mode;         /* --nccl-mode nvlink|p2p-off|all-socket|emulated */
	int emulate_nodes;         /* --emulate-nodes K; 0 = not emulated (emulated mode defaults to 2) */
	ex_dist_dtype grad_dtype;  /* --grad-precision fp32|bf16|fp16: the all-reduce's element type */
	double bucket_B;           /* --bucket-mb MiB of gradients per bucket (in grad_dtype bytes); 25 */
	double first_bucket_B;     /* --first-bucket-mb: the first bucket of backward closes at this size
	                            * (0 = bucket_B), so the first all-reduce starts early (DDP: 1 MiB) */
	bool shrink;               /* --shrink-buckets: a bucket also closes once it holds half the gradient
	                            * bytes still to come (not below first_bucket_B): the last bucket, sent
	                            * after backward, is small */
	double timeout_s;          /* --nccl-timeout s an iteration (or NCCL op) may take before the job ends; 300 */
	bool overlap;              /* --no-overlap clears it: all buckets go out in before_optimizer */
	int comm_ctas;             /* --comm-ctas N: at most N CTAs (channels) per NCCL kernel; 0 = NCCL's choice */
	bool comm_low_priority;    /* --comm-priority normal: the comm stream at default priority, not the highest */
} ex_dist_opts;

/* Long options that ex_dist_opt_set understands (all take an argument except "no-overlap"):
 * nccl-mode, emulate-nodes, grad-precision, bucket-mb, first-bucket-mb, nccl-timeout, no-overlap,
 * shrink-buckets (no argument), comm-ctas, comm-priority. */
#define EX_DIST_HELP \
	"  --nccl-mode M        nvlink | p2p-off | all-socket | emulated (default nvlink)\n" \
	"  --emulate-nodes K    K emulated nodes: NCCL_HOSTID per group of ranks, sockets between\n" \
	"  --grad-precision P   all-reduce precision fp32 | bf16 | fp16 (default fp32, as DDP)\n" \
	"  --bucket-mb X        gradient bucket size in MiB (default 25)\n" \
	"  --first-bucket-mb X  the first bucket of backward closes at X MiB (default: --bucket-mb)\n" \
	"  --shrink-buckets     buckets shrink towards the end of backward (a bucket closes at half the\n" \
	"                       gradient bytes still to come), so little is left to send after backward\n" \
	"  --nccl-timeout S     seconds an NCCL operation may stay pending before the job ends (300)\n" \
	"  --no-overlap         all-reduce all buckets after backward (for measuring overlap)\n" \
	"  --comm-ctas N        at most N thread blocks (channels) per NCCL kernel (default: NCCL's choice)\n" \
	"  --comm-priority P    high | normal: the gradient all-reduce stream's priority (default high)\n"

/* Writes the lines of --help that this build's data-parallel layer adds: EX_DIST_HELP and --bench-allreduce,
 * or (ex_dist_none.c) one line saying the build has none. */
void ex_dist_help(FILE *f);

/* One gradient bucket: a contiguous element range of the flat gradient buffer. */
typedef struct ex_dist_bucket {
	long off;        /* first element in the flat gradient buffer */
	long n;          /* elements */
} ex_dist_bucket;

typedef struct ex_dist ex_dist;   /* defined in ex_dist.c */

/* Timings of sampled iterations, seconds, from CUDA events. */
typedef struct ex_dist_times {
	long iters;            /* iterations sampled */
	double allreduce_s;    /* sum over them of the comm stream's busy time (convert + NCCL) */
	double exposed_s;      /* sum over them of comm time after backward ended (not overlapped) */
} ex_dist_times;

void ex_dist_opts_default(ex_dist_opts *o);
/* Sets one option by its long name (without "--"). Returns 0, 1 when the name is not one of
 * this layer's (the caller tries its own), or ERR_INPUT with err set for a bad value. */
int ex_dist_opt_set(ex_dist_opts *o, const char *name, const char *value);
const char *ex_dist_mode_name(ex_dist_mode m);
const char *ex_dist_dtype_name(ex_dist_dtype t);
int ex_dist_dtype_parse(const char *s, ex_dist_dtype *t);   /* 0 or ERR_INPUT */
size_t ex_dist_dtype_size(ex_dist_dtype t);

/* Starts the process group without touching a GPU: MPI_Init_thread when the process was started
 * by mpirun or srun (and MPI was built in), else RANK/WORLD_SIZE/LOCAL_RANK (or SLURM_PROCID/
 * SLURM_NTASKS/SLURM_LOCALID) with the NCCL id exchanged through $SCALEPLAN_BOOT_FILE, else a
 * single process. Local rank from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) or SLURM_LOCALID.
 * Returns 0, or ERR_ENV (err set) when the environment is inconsistent. */
int ex_dist_boot(ex_dist **out, int *argc, char ***argv);
/* True when `ok` is true on every rank (MPI_Allreduce of a flag; collective, call on all ranks). */
bool ex_dist_agree(ex_dist *d, bool ok);
/* Selects the local GPU, sets the NCCL_* variables of the mode, creates the communicator
 * (non-blocking, polled, o->timeout_s), the comm stream and the watchdog. Returns 0 or ERR_ENV. */
int ex_dist_start(ex_dist *d, const ex_dist_opts *o);
/* Checks options against the process group (emulated nodes divide the ranks, ...) on every rank,
 * before any GPU work; returns 0 or ERR_INPUT with err set. */
int ex_dist_opts_check(const ex_dist *d, const ex_dist_opts *o);

int ex_dist_rank(const ex_dist *d);
int ex_dist_size(const ex_dist *d);
int ex_dist_device(const ex_dist *d);      /* CUDA device of this rank (after ex_dist_start) */
int ex_dist_nodes(const ex_dist *d);       /* hosts, or emulated nodes */
int ex_dist_gpus_per_node(const ex_dist *d);
const char *ex_dist_mode_label(const ex_dist *d);  /* "nvlink", "p2p-off", "all-socket", "emulated-2" */
const char *ex_dist_host(const ex_dist *d);

/* Registers the flat gradient buffer (n elements of buf_dtype). Allocates the comm buffer when
 * --grad-precision differs from buf_dtype. Returns 0 or ERR_ENV (allocation). */
int ex_dist_attach(ex_dist *d, void *grads, ex_dist_dtype buf_dtype, long n);
/* Hook bodies (ex_internal.h's ex_hooks signature, ctx = ex_dist *). Errors end the job. */
int ex_dist_grad_ready(void *ctx, size_t first, size_t count, cudaStream_t s);
int ex_dist_before_optimizer(void *ctx, cudaStream_t s);
/* Buckets of the last completed iteration (layout is the same every iteration). */
int ex_dist_nbuckets(const ex_dist *d);
const ex_dist_bucket *ex_dist_get_bucket(const ex_dist *d, int b);

/* Points hooks->ctx/grad_ready/before_optimizer at this layer (hooks: exec's ex_hooks *; void *
 * keeps cuDNN out of this header). With one rank it leaves them NULL. */
void ex_dist_hooks(ex_dist *d, void *hooks);

void ex_dist_heartbeat(ex_dist *d);
void ex_dist_pause(ex_dist *d);
/* Host waits until `s` is idle, polling NCCL's async error and the timeout. */
void ex_dist_sync(ex_dist *d, cudaStream_t s);
/* Adds the last iteration's event timings to *t (the caller has synchronised the compute stream
 * after it; with fewer than 2 ranks nothing is added). */
void ex_dist_times_sample(ex_dist *d, ex_dist_times *t);

/* In-place all-reduce (ncclAvg) of n elements on stream s, outside the bucket machinery (the
 * sweep). Returns 0; NCCL errors end the job. */
int ex_dist_allreduce(ex_dist *d, void *buf, long n, ex_dist_dtype t, cudaStream_t s);

/* Sums (or maxes) `n` doubles over ranks in place (MPI, or NCCL on the GPU without MPI);
 * host-synchronising, not for the hot path. */
void ex_dist_sum(ex_dist *d, double *v, int n);
void ex_dist_max(ex_dist *d, double *v, int n);
void ex_dist_barrier(ex_dist *d);

/* Ends the whole job: prints "scaleplan-train: rank R/N (host H, GPU G): <message>" to stderr,
 * aborts the NCCL communicator, then MPI_Abort (or exit(code) without MPI). Never returns. */
void ex_dist_fatal(ex_dist *d, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
/* Orderly end: finalizes the communicator, joins the watchdog, MPI_Finalize. ex_dist_free(NULL) ok. */
void ex_dist_free(ex_dist *d);

/* ---- all-reduce sweep (exec/ex_dist_bench.c) ---- */

/* `scaleplan-train --bench-allreduce [--min-bytes B] [--max-bytes B] [--dtypes fp32,bf16]
 * [--machine NAME] [--out FILE.csv] [--iters N] [ex_dist options]`: nccl-tests style sweep
 * (in-place ncclAvg; algbw = bytes/time, busbw = algbw x 2(n-1)/n, nccl-tests PERFORMANCE.md),
 * rows printed by rank 0 and written as CSV
 * source,machine,gpus,nodes,nccl_mode,dtype,bytes,time_s,algbw_GBps,busbw_GBps.
 * The caller's main() hands over argv when argv contains --bench-allreduce. Returns an exit code. */
int ex_dist_bench_main(int argc, char **argv);

/* ---- kernels (exec/ex_dist_kernels.cu); return a cudaError_t as int ---- */

#ifdef __cplusplus
extern "C" {
#endif
/* dst[i] = (dst type) src[i], i < n, on stream s. */
int ex_dist_convert(void *dst, ex_dist_dtype dst_t, const void *src, ex_dist_dtype src_t, long n,
                    cudaStream_t s);
/* dst[i] = v (+ i * step), i < n. */
int ex_dist_fill(void *dst, ex_dist_dtype t, long n, float v, float step, cudaStream_t s);
#ifdef __cplusplus
}
#endif

#endif
