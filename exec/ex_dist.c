/* exec: data-parallel layer of scaleplan-train - process group, NCCL communicator, gradient
 * buckets overlapped with backward, watchdog (see ex_dist.h for the call order).
 *
 * Build: exec/module.mk compiles this layer where mpicc and nccl.h exist (elsewhere ex_dist_none.c);
 * make test-gpu builds tests/gpu/test_dist.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>
#include <nccl.h>

#include "common/common.h"
#include "exec/ex_dist.h"
#include "exec/ex_internal.h"

struct ex_dist {
	int rank, size;
	int local_rank, local_size;   /* ranks on this host */
	int nodes, gpus_per_node;     /* hosts (or emulated nodes) and ranks per node */
	int device;                   /* CUDA device of this rank */
	bool mpi;                     /* started through MPI (else environment / single) */
	char host[64];
	char label[32];               /* nccl_mode column: "nvlink", "emulated-2", ... */
	ex_dist_opts o;

	ncclComm_t comm;              /* NULL with one rank */
	cudaStream_t comm_stream;

	/* gradients */
	void *grads;                  /* [n] buf_t, the caller's flat buffer */
	ex_dist_dtype buf_t;
	long n;
	void *comm_buf;               /* [n] o.grad_dtype when it differs from buf_t, else NULL */

	/* buckets of the iteration being enqueued */
	long open_lo, open_hi;        /* open bucket [lo, hi); open_hi < 0: none */
	int nb;                       /* buckets launched (or queued) this iteration */
	ex_dist_bucket b[EX_DIST_MAX_BUCKETS];
	int nb_last;                  /* buckets of the last finished iteration */
	long covered;                 /* elements launched this iteration */
	bool warned_cover;
	bool timing;                  /* timing events were recorded this iteration (not in capture) */
	bool timing_last;
	cudaEvent_t ev_ready[EX_DIST_MAX_BUCKETS];  /* ordering, compute -> comm */
	cudaEvent_t ev_start[EX_DIST_MAX_BUCKETS];  /* timing, on the comm stream */
	cudaEvent_t ev_end[EX_DIST_MAX_BUCKETS];
	cudaEvent_t ev_join;          /* ordering, comm -> compute */
	cudaEvent_t ev_bwd_end;       /* timing, compute stream at before_optimizer */
	cudaEvent_t ev_comm_end;      /* timing, comm stream after the last bucket */

	/* small device scratch for host-value collectives without MPI */
	void *scratch;
	size_t scratch_B;

	/* watchdog */
	pthread_t wd;
	bool wd_started;
	pthread_mutex_t mu;
	bool wd_stop;                 /* under mu */
	bool armed;                   /* under mu: heartbeats expected */
	double beat_s;                /* under mu: last heartbeat */
	atomic_int dying;
};

/* ---- options ---- */

void ex_dist_opts_default(ex_dist_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = EX_DIST_NVLINK;
	o->emulate_nodes = 0;
	o->grad_dtype = EX_DIST_FP32;
	o->bucket_B = 25.0 * 1048576.0;   /* PyTorch DDP's default bucket_cap_mb = 25 */
	o->timeout_s = 300.0;
	o->overlap = true;
}

static const char *const mode_names[] = { "nvlink", "p2p-off", "all-socket", "emulated" };
static const char *const dtype_names[] = { "fp32", "bf16", "fp16" };

const char *ex_dist_mode_name(ex_dist_mode m)
{
	return (unsigned)m < 4 ? mode_names[m] : "?";
}

const char *ex_dist_dtype_name(ex_dist_dtype t)
{
	return (unsigned)t < 3 ? dtype_names[t] : "?";
}

size_t ex_dist_dtype_size(ex_dist_dtype t)
{
	return t == EX_DIST_FP32 ? 4 : 2;
}

int ex_dist_dtype_parse(const char *s, ex_dist_dtype *t)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(s, dtype_names[i]) == 0) {
			*t = (ex_dist_dtype)i;
			return 0;
		}
	return err_set("'%s' is not one of fp32, bf16, fp16", s);
}

static int parse_double(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		return err_set("--%s: '%s' is not a number in [%g, %g]", opt, s, lo, hi);
	*out = v;
	return 0;
}

int ex_dist_opt_set(ex_dist_opts *o, const char *name, const char *value)
{
	double v;
	if (strcmp(name, "no-overlap") == 0) {
		o->overlap = false;
		return 0;
	}
	if (strcmp(name, "nccl-mode") == 0) {
		for (int i = 0; i < 4; i++)
			if (value && strcmp(value, mode_names[i]) == 0) {
				o->mode = (ex_dist_mode)i;
				return 0;
			}
		return err_set("--nccl-mode: '%s' is not one of nvlink, p2p-off, all-socket, emulated",
			       value ? value : "");
	}
	if (strcmp(name, "emulate-nodes") == 0) {
		if (!value || parse_double(name, value, 1, 4096, &v) || v != (int)v)
			return err_set("--emulate-nodes: '%s' is not a whole number of nodes >= 1",
				       value ? value : "");
		o->emulate_nodes = (int)v;
		if (o->emulate_nodes > 1)
			o->mode = EX_DIST_EMULATED;
		return 0;
	}
	if (strcmp(name, "grad-precision") == 0)
		return ex_dist_dtype_parse(value ? value : "", &o->grad_dtype) ? err_prefix("--grad-precision")
									       : 0;
	if (strcmp(name, "bucket-mb") == 0) {
		if (!value || parse_double(name, value, 0.0625, 4096, &v))
			return ERR_INPUT;
		o->bucket_B = v * 1048576.0;
		return 0;
	}
	if (strcmp(name, "first-bucket-mb") == 0) {
		if (!value || parse_double(name, value, 0.0625, 4096, &v))
			return ERR_INPUT;
		o->first_bucket_B = v * 1048576.0;
		return 0;
	}
	if (strcmp(name, "shrink-buckets") == 0) {
		o->shrink = true;
		return 0;
	}
	if (strcmp(name, "comm-ctas") == 0) {
		if (!value || parse_double(name, value, 1, 64, &v) || v != (int)v)
			return err_set("--comm-ctas: '%s' is not a whole number 1-64", value ? value : "");
		o->comm_ctas = (int)v;
		return 0;
	}
	if (strcmp(name, "comm-priority") == 0) {
		if (!value || (strcmp(value, "high") != 0 && strcmp(value, "normal") != 0))
			return err_set("--comm-priority: '%s' is not high or normal", value ? value : "");
		o->comm_low_priority = strcmp(value, "normal") == 0;
		return 0;
	}
	if (strcmp(name, "nccl-timeout") == 0) {
		if (!value || parse_double(name, value, 1, 86400, &v))
			return ERR_INPUT;
		o->timeout_s = v;
		return 0;
	}
	return 1;
}

void ex_dist_help(FILE *f)
{
	fputs(EX_DIST_HELP "  --bench-allreduce     all-reduce sweep instead of training (ex_dist_bench.c)\n", f);
}

/* ---- failure ---- */

void ex_dist_fatal(ex_dist *d, int code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (d && atomic_exchange(&d->dying, 1)) {
		for (;;)   /* another thread is already ending the job */
			pause();
	}
	if (d)
		fprintf(stderr, "scaleplan-train: rank %d/%d (host %s, GPU %d): %s\n", d->rank, d->size,
			d->host, d->device, msg);
	else
		fprintf(stderr, "scaleplan-train: %s\n", msg);
	fflush(stderr);
	/* ncclCommAbort stops NCCL kernels that wait for a dead peer; should it hang itself, the
	 * alarm's default action ends the process. */
	alarm(20);
	if (d && d->comm) {
		ncclCommAbort(d->comm);
		d->comm = NULL;
	}
	if (d && d->mpi)
		MPI_Abort(MPI_COMM_WORLD, code);
	_exit(code);
}

#define CUDA_OK(d, x) cuda_ok((d), (x), #x, __FILE__, __LINE__)
#define NCCL_OK(d, x) nccl_ok((d), (x), #x, __FILE__, __LINE__)

static void cuda_ok(ex_dist *d, cudaError_t e, const char *what, const char *file, int line)
{
	if (e != cudaSuccess)
		ex_dist_fatal(d, EXIT_ENV, "%s:%d: %s: %s", file, line, what, cudaGetErrorString(e));
}

/* A non-blocking communicator answers ncclInProgress while it connects; poll until the call
 * has been issued, bounded by the timeout. */
static void nccl_ok(ex_dist *d, ncclResult_t r, const char *what, const char *file, int line)
{
	double t0 = time_now_s();
	while (r == ncclInProgress) {
		if (ncclCommGetAsyncError(d->comm, &r) != ncclSuccess)
			break;
		if (r == ncclInProgress && time_now_s() - t0 > d->o.timeout_s)
			ex_dist_fatal(d, EXIT_ENV, "%s:%d: %s still in progress after %.0f s "
				      "(a peer rank died or hangs)", file, line, what, d->o.timeout_s);
		if (r == ncclInProgress)
			sched_yield();
	}
	if (r != ncclSuccess)
		ex_dist_fatal(d, EXIT_ENV, "%s:%d: %s: %s (%s)", file, line, what, ncclGetErrorString(r),
			      d->comm ? ncclGetLastError(d->comm) : "");
}

/* ---- process group ---- */

static int env_int(const char *name, int dflt)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return dflt;
	char *end;
	long v = strtol(s, &end, 10);
	return (*end || v < 0 || v > 1 << 24) ? -1 : (int)v;
}

static bool started_by_mpi(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
					    "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS" };
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			return true;
	return false;
}

int ex_dist_boot(ex_dist **out, int *argc, char ***argv)
{
	ex_dist *d = xcalloc(1, sizeof(*d));
	*out = d;
	atomic_init(&d->dying, 0);
	pthread_mutex_init(&d->mu, NULL);
	d->device = -1;
	d->open_hi = -1;
	ex_dist_opts_default(&d->o);
	if (gethostname(d->host, sizeof(d->host) - 1) != 0)
		snprintf(d->host, sizeof(d->host), "unknown");
	if (started_by_mpi()) {
		int provided, one, nodes;
		MPI_Comm local;
		MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
		d->mpi = true;
		MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
		MPI_Comm_size(MPI_COMM_WORLD, &d->size);
		MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, d->rank, MPI_INFO_NULL, &local);
		MPI_Comm_rank(local, &d->local_rank);
		MPI_Comm_size(local, &d->local_size);
		MPI_Comm_free(&local);
		one = d->local_rank == 0;
		MPI_Allreduce(&one, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		d->nodes = nodes;
	} else if (getenv("WORLD_SIZE") || (getenv("SLURM_NTASKS") && getenv("SLURM_PROCID"))) {
		bool slurm = !getenv("WORLD_SIZE");
		d->size = env_int(slurm ? "SLURM_NTASKS" : "WORLD_SIZE", 1);
		d->rank = env_int(slurm ? "SLURM_PROCID" : "RANK", 0);
		d->local_rank = env_int(slurm ? "SLURM_LOCALID" : "LOCAL_RANK", d->rank);
		d->local_size = slurm ? env_int("SLURM_NTASKS_PER_NODE", d->size)
				      : env_int("LOCAL_WORLD_SIZE", d->size);
		if (d->size < 1 || d->rank < 0 || d->rank >= d->size || d->local_rank < 0 ||
		    d->local_size < 1 || d->local_rank >= d->local_size || d->size % d->local_size)
			return err_set("inconsistent launcher variables (%s): rank %d of %d, local %d of %d",
				       slurm ? "SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID"
					     : "RANK/WORLD_SIZE/LOCAL_RANK/LOCAL_WORLD_SIZE",
				       d->rank, d->size, d->local_rank, d->local_size), ERR_ENV;
		d->nodes = d->size / d->local_size;
		if (d->size > 1 && !getenv("SCALEPLAN_BOOT_FILE"))
			return err_set("started by a launcher without MPI: set SCALEPLAN_BOOT_FILE to a fresh "
				       "path on a file system every rank sees (the NCCL id goes through it)"),
			       ERR_ENV;
	} else {
		d->size = d->local_size = d->nodes = 1;
	}
	d->gpus_per_node = d->size / (d->nodes > 0 ? d->nodes : 1);
	return 0;
}

bool ex_dist_agree(ex_dist *d, bool ok)
{
	int mine = ok ? 1 : 0, all = mine;
	if (d->mpi && d->size > 1)
		MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	return all == 1;
}

int ex_dist_opts_check(const ex_dist *d, const ex_dist_opts *o)
{
	int k = o->emulate_nodes > 0 ? o->emulate_nodes : (o->mode == EX_DIST_EMULATED ? 2 : 1);
	if (o->mode == EX_DIST_EMULATED && d->size > 1 && (k > d->size || d->size % k))
		return err_set("--emulate-nodes %d: %d ranks do not split into %d equal nodes", k, d->size, k);
	if (o->mode == EX_DIST_EMULATED && d->nodes > 1)
		return err_set("--nccl-mode emulated runs on one host; this job spans %d hosts", d->nodes);
	if (o->mode == EX_DIST_ALL_SOCKET && d->nodes > 1)
		return err_set("--nccl-mode all-socket uses the loopback interface: one host only");
	return 0;
}

/* Exchanges the NCCL id without MPI: rank 0 writes it atomically, the others poll for it. */
typedef struct boot_rec {
	char magic[8];
	int32_t size;
	int32_t pad;
	ncclUniqueId id;
} boot_rec;

static int boot_file_exchange(ex_dist *d, ncclUniqueId *id)
{
	const char *path = getenv("SCALEPLAN_BOOT_FILE");
	boot_rec r;
	if (d->rank == 0) {
		memset(&r, 0, sizeof(r));
		memcpy(r.magic, "SPBOOT1", 8);
		r.size = d->size;
		r.id = *id;
		if (file_write_atomic(path, &r, sizeof(r)) != 0)
			return err_prefix("SCALEPLAN_BOOT_FILE %s", path), ERR_ENV;
		return 0;
	}
	double t0 = time_now_s();
	for (;;) {
		FILE *f = fopen(path, "rb");
		if (f) {
			size_t got = fread(&r, 1, sizeof(r), f);
			fclose(f);
			if (got == sizeof(r) && memcmp(r.magic, "SPBOOT1", 8) == 0) {
				if (r.size != d->size)
					return err_set("%s was written by a job of %d ranks, this one has %d "
						       "(stale file? use a fresh path)", path, r.size, d->size), ERR_ENV;
				*id = r.id;
				return 0;
			}
		}
		if (time_now_s() - t0 > d->o.timeout_s)
			return err_set("rank 0 did not write %s within %.0f s", path, d->o.timeout_s), ERR_ENV;
		usleep(20000);
	}
}

static void set_env(const char *k, const char *v, bool overwrite, bool verbose)
{
	setenv(k, v, overwrite ? 1 : 0);
	if (verbose)
		printf("# %s=%s\n", k, getenv(k));
}

/* Where NCCL's socket transport carries the all-reduce (the modes that set NCCL_NET=Socket): 4 helper threads
 * of 4 sockets each per connection instead of NCCL's default of one socket on one thread (NCCL's environment
 * variable documentation; their product may be at most 64). On 2 emulated nodes of an H100 host the
 * all-reduce of a batch-256 step went from 25.9 to 21.2 ms and the scaling from 82.9% to 85.5%
 * (bench/NOTES.md's log). A user's own values are kept. */
static void socket_streams(bool verbose)
{
	set_env("NCCL_SOCKET_NTHREADS", "4", false, verbose);
	set_env("NCCL_NSOCKS_PERTHREAD", "4", false, verbose);
}

/* The transport modes of docs/design.md; NCCL reads them at its first call, so this runs before
 * ncclGetUniqueId. A user's own NCCL_SOCKET_IFNAME and NCCL_NVLS_ENABLE are kept. */
static void set_nccl_env(ex_dist *d, int k)
{
	bool v = d->rank == 0;
	set_env("NCCL_NVLS_ENABLE", "0", false, v);   /* multicast off on shared hosts (KINDS.md) */
	switch (d->o.mode) {
	case EX_DIST_NVLINK:
		break;
	case EX_DIST_P2P_OFF:
		set_env("NCCL_P2P_DISABLE", "1", true, v);
		break;
	case EX_DIST_ALL_SOCKET:
		set_env("NCCL_P2P_DISABLE", "1", true, v);
		set_env("NCCL_SHM_DISABLE", "1", true, v);
		set_env("NCCL_NET", "Socket", true, v);
		set_env("NCCL_SOCKET_IFNAME", "lo", false, v);
		socket_streams(v);
		break;
	case EX_DIST_EMULATED: {
		char host[64];
		snprintf(host, sizeof(host), "emunode%d", d->rank / (d->size / k));
		setenv("NCCL_HOSTID", host, 1);
		if (v)
			printf("# NCCL_HOSTID=emunode<rank / %d>\n", d->size / k);
		set_env("NCCL_NET", "Socket", true, v);
		set_env("NCCL_SOCKET_IFNAME", "lo", false, v);
		socket_streams(v);
		break;
	}
	}
	if (v)
		fflush(stdout);
}

static void *watchdog_main(void *arg)
{
	ex_dist *d = arg;
	cudaSetDevice(d->device);
	for (;;) {
		pthread_mutex_lock(&d->mu);
		bool stop = d->wd_stop, armed = d->armed;
		double beat = d->beat_s;
		pthread_mutex_unlock(&d->mu);
		if (stop)
			break;
		ncclResult_t st = ncclSuccess;
		if (d->comm && ncclCommGetAsyncError(d->comm, &st) == ncclSuccess && st != ncclSuccess &&
		    st != ncclInProgress)
			ex_dist_fatal(d, EXIT_ENV, "NCCL reported %s (%s): a peer rank failed or the network "
				      "broke; ending the job", ncclGetErrorString(st), ncclGetLastError(d->comm));
		if (armed && time_now_s() - beat > d->o.timeout_s)
			ex_dist_fatal(d, EXIT_ENV, "no training step finished for %.0f s (--nccl-timeout): a peer "
				      "rank died or hangs in a collective; ending the job", d->o.timeout_s);
		usleep(100000);
	}
	return NULL;
}

int ex_dist_start(ex_dist *d, const ex_dist_opts *o)
{
	int ndev = 0, k = 1;
	d->o = *o;
	if (d->o.mode == EX_DIST_EMULATED)
		k = d->o.emulate_nodes > 0 ? d->o.emulate_nodes : 2;
	d->o.emulate_nodes = d->o.mode == EX_DIST_EMULATED ? k : 0;
	if (ex_dist_opts_check(d, &d->o))
		return ERR_INPUT;
	if (d->o.mode == EX_DIST_EMULATED) {
		snprintf(d->label, sizeof(d->label), "emulated-%d", k);
		d->nodes = k;
		d->gpus_per_node = d->size / k;
	} else {
		snprintf(d->label, sizeof(d->label), "%s", ex_dist_mode_name(d->o.mode));
	}
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1)
		return err_set("no CUDA device on %s", d->host), ERR_ENV;
	/* Slurm's --gpus-per-task leaves one visible device per rank: local_rank % 1 = 0. */
	d->device = d->local_rank % ndev;
	if (d->local_size > ndev && d->rank == 0)
		fprintf(stderr, "scaleplan-train: warning: %d ranks per host share %d GPUs\n", d->local_size, ndev);
	if (cudaSetDevice(d->device) != cudaSuccess)
		return err_set("rank %d: cudaSetDevice(%d) failed", d->rank, d->device), ERR_ENV;
	if (d->size == 1)
		return 0;

	set_nccl_env(d, k);
	ncclUniqueId id;
	memset(&id, 0, sizeof(id));
	if (d->rank == 0 && ncclGetUniqueId(&id) != ncclSuccess)
		return err_set("ncclGetUniqueId failed"), ERR_ENV;
	if (d->mpi) {
		MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
	} else if (boot_file_exchange(d, &id)) {
		return ERR_ENV;
	}
	ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
	cfg.blocking = 0;
	if (d->o.comm_ctas > 0) {
		/* fewer NCCL thread blocks leave more SMs to the backward pass it overlaps */
		cfg.maxCTAs = d->o.comm_ctas;
		cfg.minCTAs = 1;
	}
	double t0 = time_now_s();
	ncclResult_t r = ncclCommInitRankConfig(&d->comm, d->size, id, d->rank, &cfg);
	while (r == ncclInProgress || r == ncclSuccess) {
		ncclResult_t st;
		if (ncclCommGetAsyncError(d->comm, &st) != ncclSuccess)
			break;
		r = st;
		if (r != ncclInProgress)
			break;
		if (time_now_s() - t0 > d->o.timeout_s)
			ex_dist_fatal(d, EXIT_ENV, "NCCL communicator not ready after %.0f s: did every rank "
				      "start? (--nccl-timeout)", d->o.timeout_s);
		usleep(1000);
	}
	if (r != ncclSuccess)
		ex_dist_fatal(d, EXIT_ENV, "ncclCommInitRankConfig: %s (%s)", ncclGetErrorString(r),
			      d->comm ? ncclGetLastError(d->comm) : "");
	if (!d->mpi && d->rank == 0)
		unlink(getenv("SCALEPLAN_BOOT_FILE"));   /* every rank has read it: init is collective */
	if (d->rank == 0)
		printf("# nccl: %d ranks, %d node(s) x %d GPU(s), mode %s, %s all-reduce, buckets %.1f MiB "
		       "(first %.1f MiB%s), init %.2f s\n", d->size, d->nodes, d->gpus_per_node, d->label,
		       ex_dist_dtype_name(d->o.grad_dtype), d->o.bucket_B / 1048576.0,
		       (d->o.first_bucket_B > 0 ? d->o.first_bucket_B : d->o.bucket_B) / 1048576.0,
		       d->o.shrink ? ", shrinking" : "", time_now_s() - t0);

	int lo, hi;
	CUDA_OK(d, cudaDeviceGetStreamPriorityRange(&lo, &hi));
	CUDA_OK(d, cudaStreamCreateWithPriority(&d->comm_stream, cudaStreamNonBlocking,
						d->o.comm_low_priority ? lo : hi));
	for (int i = 0; i < EX_DIST_MAX_BUCKETS; i++) {
		CUDA_OK(d, cudaEventCreateWithFlags(&d->ev_ready[i], cudaEventDisableTiming));
		CUDA_OK(d, cudaEventCreate(&d->ev_start[i]));
		CUDA_OK(d, cudaEventCreate(&d->ev_end[i]));
	}
	CUDA_OK(d, cudaEventCreateWithFlags(&d->ev_join, cudaEventDisableTiming));
	CUDA_OK(d, cudaEventCreate(&d->ev_bwd_end));
	CUDA_OK(d, cudaEventCreate(&d->ev_comm_end));
	d->scratch_B = 4096;
	CUDA_OK(d, ex_dev_malloc((void **)&d->scratch, d->scratch_B));
	if (pthread_create(&d->wd, NULL, watchdog_main, d) != 0)
		return err_set("cannot start the NCCL watchdog thread"), ERR_ENV;
	d->wd_started = true;
	return 0;
}

int ex_dist_rank(const ex_dist *d) { return d->rank; }
int ex_dist_size(const ex_dist *d) { return d->size; }
int ex_dist_device(const ex_dist *d) { return d->device; }
int ex_dist_nodes(const ex_dist *d) { return d->nodes; }
int ex_dist_gpus_per_node(const ex_dist *d) { return d->gpus_per_node; }
const char *ex_dist_host(const ex_dist *d) { return d->host; }

const char *ex_dist_mode_label(const ex_dist *d)
{
	return d->label[0] ? d->label : ex_dist_mode_name(d->o.mode);
}

/* ---- gradient buckets ---- */

static ncclDataType_t nccl_type(ex_dist_dtype t)
{
	return t == EX_DIST_BF16 ? ncclBfloat16 : t == EX_DIST_FP16 ? ncclFloat16 : ncclFloat32;
}

int ex_dist_attach(ex_dist *d, void *grads, ex_dist_dtype buf_dtype, long n)
{
	d->grads = grads;
	d->buf_t = buf_dtype;
	d->n = n;
	if (d->size > 1 && buf_dtype != d->o.grad_dtype) {
		if (ex_dev_malloc((void **)&d->comm_buf, (size_t)n * ex_dist_dtype_size(d->o.grad_dtype)) != cudaSuccess)
			return err_set("rank %d: no GPU memory for a %ld-element %s all-reduce buffer", d->rank,
				       n, ex_dist_dtype_name(d->o.grad_dtype)), ERR_ENV;
	}
	return 0;
}

void ex_dist_hooks(ex_dist *d, void *hooks)
{
	ex_hooks *h = hooks;
	if (d->size < 2)
		return;
	h->ctx = d;
	h->grad_ready = ex_dist_grad_ready;
	h->before_optimizer = ex_dist_before_optimizer;
}

/* Enqueues bucket b's all-reduce on the comm stream after the work enqueued so far on s. */
static void bucket_launch(ex_dist *d, int b, cudaStream_t s)
{
	ex_dist_bucket *bk = &d->b[b];
	size_t bs = ex_dist_dtype_size(d->buf_t), cs = ex_dist_dtype_size(d->o.grad_dtype);
	char *g = (char *)d->grads + (size_t)bk->off * bs;
	CUDA_OK(d, cudaEventRecord(d->ev_ready[b], s));
	CUDA_OK(d, cudaStreamWaitEvent(d->comm_stream, d->ev_ready[b], 0));
	if (d->timing)
		CUDA_OK(d, cudaEventRecord(d->ev_start[b], d->comm_stream));
	if (d->comm_buf) {
		char *c = (char *)d->comm_buf + (size_t)bk->off * cs;
		CUDA_OK(d, (cudaError_t)ex_dist_convert(c, d->o.grad_dtype, g, d->buf_t, bk->n, d->comm_stream));
		NCCL_OK(d, ncclAllReduce(c, c, (size_t)bk->n, nccl_type(d->o.grad_dtype), ncclAvg, d->comm,
					 d->comm_stream));
		CUDA_OK(d, (cudaError_t)ex_dist_convert(g, d->buf_t, c, d->o.grad_dtype, bk->n, d->comm_stream));
	} else {
		NCCL_OK(d, ncclAllReduce(g, g, (size_t)bk->n, nccl_type(d->buf_t), ncclAvg, d->comm,
					 d->comm_stream));
	}
	if (d->timing)
		CUDA_OK(d, cudaEventRecord(d->ev_end[b], d->comm_stream));
}

/* Closes the open bucket: launches it now (overlap) or leaves it for before_optimizer. */
static void bucket_close(ex_dist *d, cudaStream_t s)
{
	if (d->open_hi < 0)
		return;
	int b = d->nb++;
	d->b[b].off = d->open_lo;
	d->b[b].n = d->open_hi - d->open_lo;
	d->covered += d->b[b].n;
	d->open_hi = -1;
	if (d->o.overlap)
		bucket_launch(d, b, s);
}

int ex_dist_grad_ready(void *ctx, size_t first, size_t count, cudaStream_t s)
{
	ex_dist *d = ctx;
	if (count == 0)
		return 0;
	if (d->nb == 0 && d->open_hi < 0) {   /* first range of an iteration */
		enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
		CUDA_OK(d, cudaStreamIsCapturing(s, &cs));
		/* timing events stay out of CUDA graphs; replays are timed by the caller */
		d->timing = cs == cudaStreamCaptureStatusNone;
		d->covered = 0;
	}
	if ((long)(first + count) > d->n)
		ex_dist_fatal(d, EXIT_ENV, "gradient range [%zu, %zu) beyond the %ld-element buffer", first,
			      first + count, d->n);
	/* Ranges arrive in decreasing offset order and touch; anything else closes the bucket. */
	if (d->open_hi >= 0 && (long)(first + count) != d->open_lo)
		bucket_close(d, s);
	if (d->open_hi < 0) {
		d->open_hi = (long)(first + count);
	}
	d->open_lo = (long)first;
	double esz = (double)ex_dist_dtype_size(d->o.grad_dtype), bytes = (double)(d->open_hi - d->open_lo) * esz;
	double cap = d->nb == 0 && d->o.first_bucket_B > 0 ? d->o.first_bucket_B : d->o.bucket_B;
	if (d->o.shrink) { /* elements [0, first) are still to come, in later backward steps */
		double floor_B = d->o.first_bucket_B > 0 ? d->o.first_bucket_B : 1048576.0, half = 0.5 * (double)first * esz;
		if (half < cap)
			cap = half > floor_B ? half : floor_B;
	}
	if (bytes >= cap && d->nb < EX_DIST_MAX_BUCKETS - 1)
		bucket_close(d, s);
	return 0;
}

int ex_dist_before_optimizer(void *ctx, cudaStream_t s)
{
	ex_dist *d = ctx;
	if (d->nb == 0 && d->open_hi < 0)
		return 0;   /* no gradients this step */
	if (d->timing)
		CUDA_OK(d, cudaEventRecord(d->ev_bwd_end, s));
	bucket_close(d, s);
	if (!d->o.overlap)
		for (int b = 0; b < d->nb; b++)
			bucket_launch(d, b, s);
	if (d->timing)
		CUDA_OK(d, cudaEventRecord(d->ev_comm_end, d->comm_stream));
	CUDA_OK(d, cudaEventRecord(d->ev_join, d->comm_stream));
	CUDA_OK(d, cudaStreamWaitEvent(s, d->ev_join, 0));
	if (d->covered != d->n && !d->warned_cover && d->rank == 0) {
		fprintf(stderr, "scaleplan-train: warning: backward reported %ld of %ld gradient elements\n",
			d->covered, d->n);
		d->warned_cover = true;
	}
	d->nb_last = d->nb;
	d->timing_last = d->timing;
	d->nb = 0;
	return 0;
}

int ex_dist_nbuckets(const ex_dist *d)
{
	return d->nb_last;
}

const ex_dist_bucket *ex_dist_get_bucket(const ex_dist *d, int b)
{
	return b >= 0 && b < d->nb_last ? &d->b[b] : NULL;
}

/* ---- progress, timing ---- */

void ex_dist_heartbeat(ex_dist *d)
{
	pthread_mutex_lock(&d->mu);
	d->armed = true;
	d->beat_s = time_now_s();
	pthread_mutex_unlock(&d->mu);
}

void ex_dist_pause(ex_dist *d)
{
	pthread_mutex_lock(&d->mu);
	d->armed = false;
	pthread_mutex_unlock(&d->mu);
}

void ex_dist_sync(ex_dist *d, cudaStream_t s)
{
	double t0 = time_now_s();
	long spins = 0;
	for (;;) {
		cudaError_t e = cudaStreamQuery(s);
		if (e == cudaSuccess)
			return;
		if (e != cudaErrorNotReady)
			cuda_ok(d, e, "cudaStreamQuery", __FILE__, __LINE__);
		if (d->comm) {
			ncclResult_t st;
			if (ncclCommGetAsyncError(d->comm, &st) == ncclSuccess && st != ncclSuccess &&
			    st != ncclInProgress)
				ex_dist_fatal(d, EXIT_ENV, "NCCL reported %s (%s) while waiting for the GPU",
					      ncclGetErrorString(st), ncclGetLastError(d->comm));
		}
		if (time_now_s() - t0 > d->o.timeout_s)
			ex_dist_fatal(d, EXIT_ENV, "GPU work did not finish within %.0f s (--nccl-timeout): a "
				      "peer rank died or hangs", d->o.timeout_s);
		if (++spins > 1000)
			usleep(50);
	}
}

void ex_dist_times_sample(ex_dist *d, ex_dist_times *t)
{
	float ms;
	double busy = 0;
	if (d->size < 2 || !d->timing_last || d->nb_last == 0)
		return;
	for (int b = 0; b < d->nb_last; b++) {
		if (cudaEventElapsedTime(&ms, d->ev_start[b], d->ev_end[b]) != cudaSuccess)
			return;   /* not finished (caller did not sync): skip this sample */
		busy += ms * 1e-3;
	}
	if (cudaEventElapsedTime(&ms, d->ev_bwd_end, d->ev_comm_end) != cudaSuccess)
		return;
	t->iters++;
	t->allreduce_s += busy;
	t->exposed_s += ms > 0 ? ms * 1e-3 : 0.0;
}

int ex_dist_allreduce(ex_dist *d, void *buf, long n, ex_dist_dtype t, cudaStream_t s)
{
	NCCL_OK(d, ncclAllReduce(buf, buf, (size_t)n, nccl_type(t), ncclAvg, d->comm, s));
	return 0;
}

/* ---- host-value collectives ---- */

static void host_allreduce(ex_dist *d, double *v, int n, bool max)
{
	if (d->size < 2 || n <= 0)
		return;
	if (d->mpi) {
		MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, max ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
		return;
	}
	if ((size_t)n * sizeof(double) > d->scratch_B)
		ex_dist_fatal(d, EXIT_ENV, "host all-reduce of %d values exceeds the scratch buffer", n);
	CUDA_OK(d, cudaMemcpyAsync(d->scratch, v, n * sizeof(double), cudaMemcpyHostToDevice, d->comm_stream));
	NCCL_OK(d, ncclAllReduce(d->scratch, d->scratch, n, ncclFloat64, max ? ncclMax : ncclSum, d->comm,
				 d->comm_stream));
	CUDA_OK(d, cudaMemcpyAsync(v, d->scratch, n * sizeof(double), cudaMemcpyDeviceToHost, d->comm_stream));
	ex_dist_sync(d, d->comm_stream);
}

void ex_dist_sum(ex_dist *d, double *v, int n) { host_allreduce(d, v, n, false); }
void ex_dist_max(ex_dist *d, double *v, int n) { host_allreduce(d, v, n, true); }

void ex_dist_barrier(ex_dist *d)
{
	double x = 0;
	if (d->mpi && d->size > 1)
		MPI_Barrier(MPI_COMM_WORLD);
	else
		host_allreduce(d, &x, 1, false);
}

/* ---- teardown ---- */

void ex_dist_free(ex_dist *d)
{
	if (!d)
		return;
	if (d->wd_started) {
		pthread_mutex_lock(&d->mu);
		d->wd_stop = true;
		pthread_mutex_unlock(&d->mu);
		pthread_join(d->wd, NULL);
	}
	if (d->comm) {
		ex_dist_sync(d, d->comm_stream);
		ncclResult_t r = ncclCommFinalize(d->comm), st = r;
		double t0 = time_now_s();
		while (st == ncclInProgress && time_now_s() - t0 < d->o.timeout_s) {
			if (ncclCommGetAsyncError(d->comm, &st) != ncclSuccess)
				break;
			usleep(1000);
		}
		if (st == ncclSuccess)
			ncclCommDestroy(d->comm);
		else
			ncclCommAbort(d->comm);
		d->comm = NULL;
	}
	if (d->comm_stream) {
		for (int i = 0; i < EX_DIST_MAX_BUCKETS; i++) {
			cudaEventDestroy(d->ev_ready[i]);
			cudaEventDestroy(d->ev_start[i]);
			cudaEventDestroy(d->ev_end[i]);
		}
		cudaEventDestroy(d->ev_join);
		cudaEventDestroy(d->ev_bwd_end);
		cudaEventDestroy(d->ev_comm_end);
		cudaStreamDestroy(d->comm_stream);
	}
	ex_dev_free(d->comm_buf);
	ex_dev_free(d->scratch);
	if (d->mpi)
		MPI_Finalize();
	pthread_mutex_destroy(&d->mu);
	free(d);
}
