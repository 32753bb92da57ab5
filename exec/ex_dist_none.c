/* exec/ex_dist_none.c: the data-parallel layer where the build found no MPI or no NCCL (exec/module.mk picks
 * this file instead of ex_dist.c and ex_dist_bench.c): always one process, on GPU 0. The functions
 * scaleplan-train calls behave as ex_dist.c's do with one rank (sums and barriers do nothing, no hooks);
 * its options are refused with the reason, and so is --bench-allreduce. The handle is NULL throughout.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "exec/ex_dist.h"
#include "exec/ex_internal.h"

#define NO_DIST "this scaleplan-train was built without MPI and NCCL (mpicc or nccl.h was not found at build " \
		"time): one GPU only"

void ex_dist_help(FILE *f)
{
	fputs("  (this build has no MPI/NCCL: one GPU only)\n", f);
}

void ex_dist_opts_default(ex_dist_opts *o)
{
	memset(o, 0, sizeof(*o));
}

/* scaleplan-train hands over only the names of its option table that are not checkpoint options: all
 * of them this layer's */
int ex_dist_opt_set(ex_dist_opts *o, const char *name, const char *value)
{
	(void)o, (void)value;
	return err_set("--%s: %s", name, NO_DIST);
}

int ex_dist_opts_check(const ex_dist *d, const ex_dist_opts *o)
{
	(void)d, (void)o;
	return 0;
}

int ex_dist_boot(ex_dist **out, int *argc, char ***argv)
{
	(void)argc, (void)argv;
	*out = NULL;
	return 0;
}

bool ex_dist_agree(ex_dist *d, bool ok)
{
	(void)d;
	return ok;
}

int ex_dist_start(ex_dist *d, const ex_dist_opts *o)
{
	(void)d, (void)o;
	if (cudaSetDevice(0) != cudaSuccess) {
		err_set("cudaSetDevice(0) failed");
		return ERR_ENV;
	}
	return 0;
}

int ex_dist_rank(const ex_dist *d) { (void)d; return 0; }
int ex_dist_size(const ex_dist *d) { (void)d; return 1; }
int ex_dist_device(const ex_dist *d) { (void)d; return 0; }
int ex_dist_nodes(const ex_dist *d) { (void)d; return 1; }
int ex_dist_gpus_per_node(const ex_dist *d) { (void)d; return 1; }
const char *ex_dist_mode_label(const ex_dist *d) { (void)d; return "none"; }

int ex_dist_attach(ex_dist *d, void *grads, ex_dist_dtype buf_dtype, long n)
{
	(void)d, (void)grads, (void)buf_dtype, (void)n;
	return 0;
}

void ex_dist_hooks(ex_dist *d, void *hooks) { (void)d, (void)hooks; } /* one rank: they stay NULL */
void ex_dist_heartbeat(ex_dist *d) { (void)d; }
void ex_dist_pause(ex_dist *d) { (void)d; }
void ex_dist_times_sample(ex_dist *d, ex_dist_times *t) { (void)d, (void)t; }
void ex_dist_sum(ex_dist *d, double *v, int n) { (void)d, (void)v, (void)n; }
void ex_dist_max(ex_dist *d, double *v, int n) { (void)d, (void)v, (void)n; }
void ex_dist_barrier(ex_dist *d) { (void)d; }
void ex_dist_free(ex_dist *d) { (void)d; }

void ex_dist_sync(ex_dist *d, cudaStream_t s)
{
	(void)d;
	CUDA_CHECK(cudaStreamSynchronize(s));
}

void ex_dist_fatal(ex_dist *d, int code, const char *fmt, ...)
{
	va_list ap;
	(void)d;
	fputs("scaleplan-train: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

int ex_dist_bench_main(int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(stderr, "scaleplan-train: --bench-allreduce: %s\n", NO_DIST);
	return EXIT_ENV;
}
