/* exec: the ResNet-50 network on one GPU - plan (fusion, flat parameters, arenas), cuDNN set-up with
 * algorithms timed once, forward, backward (with the distributed hooks) and the optimizer.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include "common/common.h"
#include "exec/ex_internal.h"

/* ---- the engine's device allocations, counted (ex_internal.h) ---- */

enum { EX_MAX_ALLOCS = 4096 }; /* the engine makes a few hundred (two per batch norm, ~20 more) */
static struct {
	void *p;
	size_t B;
} g_allocs[EX_MAX_ALLOCS];
static int g_nallocs;
static size_t g_alloc_now_B, g_alloc_peak_B;
static pthread_mutex_t g_alloc_mu = PTHREAD_MUTEX_INITIALIZER;

cudaError_t ex_dev_malloc(void **p, size_t size_B)
{
	cudaError_t e = cudaMalloc(p, size_B);
	if (e != cudaSuccess)
		return e;
	pthread_mutex_lock(&g_alloc_mu);
	if (g_nallocs < EX_MAX_ALLOCS) /* beyond: counted, never subtracted (an over-count, not an under-count) */
		g_allocs[g_nallocs].p = *p, g_allocs[g_nallocs++].B = size_B;
	g_alloc_now_B += size_B;
	if (g_alloc_now_B > g_alloc_peak_B)
		g_alloc_peak_B = g_alloc_now_B;
	pthread_mutex_unlock(&g_alloc_mu);
	return e;
}

cudaError_t ex_dev_free(void *p)
{
	if (!p)
		return cudaSuccess;
	pthread_mutex_lock(&g_alloc_mu);
	for (int i = 0; i < g_nallocs; i++)
		if (g_allocs[i].p == p) {
			g_alloc_now_B -= g_allocs[i].B;
			g_allocs[i] = g_allocs[--g_nallocs];
			break;
		}
	pthread_mutex_unlock(&g_alloc_mu);
	return cudaFree(p);
}

size_t ex_dev_alloc_now_B(void)
{
	pthread_mutex_lock(&g_alloc_mu);
	size_t b = g_alloc_now_B;
	pthread_mutex_unlock(&g_alloc_mu);
	return b;
}

size_t ex_dev_alloc_peak_B(void)
{
	pthread_mutex_lock(&g_alloc_mu);
	size_t b = g_alloc_peak_B;
	pthread_mutex_unlock(&g_alloc_mu);
	return b;
}

#define EX_OPT_BLOCK 4096 /* elements per optimizer block */

void ex_die_cuda(cudaError_t e, const char *what, const char *file, int line)
{
	fprintf(stderr, "scaleplan-train: rank 0: %s:%d: CUDA error in %s: %s\n", file, line, what,
		cudaGetErrorString(e));
	exit(EXIT_ENV);
}
void ex_die_cudnn(cudnnStatus_t s, const char *what, const char *file, int line)
{
	fprintf(stderr, "scaleplan-train: rank 0: %s:%d: cuDNN error in %s: %s\n", file, line, what,
		cudnnGetErrorString(s));
	exit(EXIT_ENV);
}
void ex_die_cublas(cublasStatus_t s, const char *what, const char *file, int line)
{
	fprintf(stderr, "scaleplan-train: rank 0: %s:%d: cuBLAS error %d in %s\n", file, line, (int)s, what);
	exit(EXIT_ENV);
}

size_t ex_dtype_size(ex_dtype t) { return t == EX_F32 ? 4 : 2; }

float ex_sched_lr(const ex_sched *s, int step) { return ex_sched_lr_host(s, step); }

static int add_tensor(ex_net *net, int c, int h, int w)
{
	ex_tensor *t = &net->tens[net->ntens];
	memset(t, 0, sizeof(*t));
	t->c = c;
	t->h = h;
	t->w = w;
	t->elems = (size_t)net->batch * c * h * w;
	return net->ntens++;
}

static int add_param(ex_net *net, const char *layer, const char *suffix, size_t n, bool decay)
{
	ex_params *p = &net->p;
	ex_ptensor *t = &p->tensors[p->ntensors];
	snprintf(t->name, sizeof(t->name), "%s.%s", layer, suffix);
	t->off = p->n;
	t->n = n;
	t->decay = decay;
	p->n += n;
	return p->ntensors++;
}

/* True when op r alone reads tensor t in the forward (no backward reads a BN's output). */
static bool only_reader(const ex_net *net, int t, int r)
{
	for (int j = 0; j < net->nops; j++)
		if (j != r && (net->ops[j].in == t || net->ops[j].z == t))
			return false;
	return true;
}

/* The folded BN whose backward op's backward does too (fold_bns: a max pooling's or a residual BN's), or NULL. */
static const ex_op *bwd_folded(const ex_net *net, const ex_op *op)
{
	int j = op->kind == EX_MAXPOOL ? op->fold_bn : op->kind == EX_BN ? op->z_bn : -1;
	return j >= 0 && net->ops[j].bwd_by_reader ? &net->ops[j] : NULL;
}

int ex_env_int(const char *name, int lo, int hi, int dflt)
{
	const char *v = getenv(name);
	char *end;
	long n;
	if (!v || !*v)
		return dflt;
	n = strtol(v, &end, 10);
	return *end || n < lo || n > hi ? dflt : (int)n;
}

/* A batch norm whose output one op alone reads is applied by that op as it loads the BN's input, and
 * the BN's output is never written nor read (bench/NOTES.md's log): ResNet-50's stem BN (+ReLU) by
 * the max pooling (the largest activation of the net); in each downsampling block the BN without a ReLU
 * by the other branch's BN, which adds it. The reader's backward then does the folded BN's too, so the
 * gradient of the BN's output is not stored either. --engine fold_pool=off / fold_res=off keep them apart,
 * fold_pool_bwd=off / fold_res_bwd=off the backward halves (A/B runs; ex_settings.h). */
static void fold_bns(ex_net *net)
{
	bool fold_pool = ex_set.fold_pool, res = ex_set.fold_res, res_bwd = ex_set.fold_res_bwd;
	bool pool_bwd = ex_set.fold_pool_bwd;
	int i, j;
	for (i = 1; i < net->nops && fold_pool; i++) {
		ex_op *pool = &net->ops[i], *bn = &net->ops[i - 1];
		if (pool->kind == EX_MAXPOOL && bn->kind == EX_BN && bn->out == pool->in && bn->z < 0 &&
		    only_reader(net, bn->out, i)) {
			bn->folded = true;
			pool->fold_bn = i - 1;
			/* and its backward done by the pooling's, which gathers the BN's dy (ex_k_bn_bwd_pooled) */
			bn->bwd_by_reader = pool_bwd && ex_k_bn_bwd_pooled_fits(net->batch, pool->h, pool->w, pool->c, pool->oh,
										 pool->ow, pool->r, pool->stride, pool->pad);
		}
	}
	for (i = 0; i < net->nops && res; i++) {
		ex_op *bo = &net->ops[i];
		if (bo->kind != EX_BN || bo->z < 0)
			continue;
		for (j = 0; j < i; j++) {
			ex_op *bz = &net->ops[j];
			if (bz->out == bo->z && bz->kind == EX_BN && bz->z < 0 && !bz->relu && !bz->folded &&
			    only_reader(net, bz->out, i)) {
				bz->folded = true;
				bo->z_bn = j;
				/* and its backward done by bo's, from bo's dy and ReLU bits (ex_k_bn_bwd2) */
				bz->bwd_by_reader = bo->relu && res_bwd;
			}
		}
	}
}

/* Plans the network; see ex_internal.h. bn/bias weight decay is decided later (ex_net_init reads
 * net->opt), so decay here marks conv/fc weights only and is widened by the caller's flag. */
int ex_net_plan(ex_net *net, int batch, int classes, int hw, ex_prec prec)
{
	model_net *m = &net->model;
	int *lout = NULL, i, rc = 0;

	if (batch < 1)
		return err_set("--batch-per-gpu must be >= 1 (got %d)", batch);
	if (model_net_resnet50(m, classes, hw) < 0)
		return ERR_INPUT;
	net->batch = batch;
	net->classes = classes;
	net->stem = EX_STEM_DEFAULT;
	net->hw = hw;
	net->prec = prec;
	net->dt = prec == EX_PREC_BF16 ? EX_BF16 : prec == EX_PREC_FP16 ? EX_F16 : EX_F32;
	net->ops = xcalloc(m->nlayers, sizeof(ex_op));
	net->tens = xcalloc(m->nlayers + 1, sizeof(ex_tensor));
	net->p.tensors = xcalloc(2 * m->nlayers, sizeof(ex_ptensor));
	lout = xcalloc(m->nlayers, sizeof(int));
	add_tensor(net, 3, hw, hw); /* tensor 0: the image */
	for (i = 0; i < m->nlayers; i++) {
		const model_layer *l = &m->layers[i];
		int in = l->input < 0 ? 0 : lout[l->input];
		ex_op *op = &net->ops[net->nops];
		memset(op, 0, sizeof(*op));
		op->layer = i;
		op->in = in;
		op->z = -1;
		op->fold_bn = -1;
		op->z_bn = -1;
		op->pw = op->pb = -1;
		op->c = l->in_c;
		op->h = l->in_h;
		op->w = l->in_w;
		op->k = l->out_c;
		op->oh = l->out_h;
		op->ow = l->out_w;
		op->r = l->kernel;
		op->stride = l->stride;
		op->pad = l->pad;
		switch (l->op) {
		case MODEL_OP_CONV:
			op->kind = EX_CONV;
			op->pw = add_param(net, l->name, "weight", (size_t)l->out_c * l->in_c * l->kernel * l->kernel, true);
			break;
		case MODEL_OP_BN:
			op->kind = EX_BN;
			op->pw = add_param(net, l->name, "weight", l->out_c, false);
			op->pb = add_param(net, l->name, "bias", l->out_c, false);
			op->bnstat_off = net->p.nbnstat;
			net->p.nbnstat += 2 * (size_t)l->out_c;
			break;
		case MODEL_OP_MAXPOOL:
			op->kind = EX_MAXPOOL;
			break;
		case MODEL_OP_AVGPOOL:
			op->kind = EX_AVGPOOL;
			break;
		case MODEL_OP_FC:
			op->kind = EX_FC;
			op->pw = add_param(net, l->name, "weight", (size_t)l->out_c * l->in_c, true);
			op->pb = add_param(net, l->name, "bias", l->out_c, false);
			break;
		case MODEL_OP_RELU: {
			int j;
			for (j = net->nops - 1; j >= 0 && net->ops[j].out != in; j--)
				;
			if (j < 0 || net->ops[j].kind != EX_BN || net->ops[j].relu) {
				rc = err_set("exec: layer %s: ReLU not after a batch norm (cannot fuse)", l->name);
				goto out;
			}
			net->ops[j].relu = true;
			lout[i] = in;
			continue;
		}
		case MODEL_OP_ADD: {
			int a = lout[l->input], b = lout[l->input2], ja, jb, j;
			for (ja = net->nops - 1; ja >= 0 && net->ops[ja].out != a; ja--)
				;
			for (jb = net->nops - 1; jb >= 0 && net->ops[jb].out != b; jb--)
				;
			j = ja > jb ? ja : jb;
			if (j < 0 || net->ops[j].kind != EX_BN || net->ops[j].relu || net->ops[j].z >= 0) {
				rc = err_set("exec: layer %s: add not after a batch norm (cannot fuse)", l->name);
				goto out;
			}
			net->ops[j].z = j == ja ? b : a;
			lout[i] = net->ops[j].out;
			continue;
		}
		}
		op->out = add_tensor(net, l->out_c, l->out_h, l->out_w);
		lout[i] = op->out;
		net->nops++;
	}
	if (net->ops[net->nops - 1].kind != EX_FC) {
		rc = err_set("exec: the layer table does not end with fc");
		goto out;
	}
	fold_bns(net);
	/* Backward plan: which gradient writes overwrite and which accumulate. */
	for (i = 0; i < net->ntens; i++)
		net->tens[i].g_first_written = false;
	for (i = net->nops - 1; i >= 0; i--) {
		ex_op *op = &net->ops[i];
		if (op->in > 0) {
			op->acc_in = net->tens[op->in].g_first_written;
			net->tens[op->in].g_first_written = true;
		}
		if (op->z >= 0) {
			op->acc_z = net->tens[op->z].g_first_written;
			net->tens[op->z].g_first_written = true;
		}
	}
out:
	free(lout);
	return rc;
}

/* One arena for activations and gradients, by liveness over the step (less memory than a buffer each): time runs
 * through forward (op i at time i) then backward (op i at time 2*nops-1-i). Activation t lives from
 * its producer's forward to its last reader, forward or backward (conv wgrad reads its input, BN
 * backward its input and output, fc its input); the image lives all step. The gradient of t lives
 * from the first backward op writing it to its producer's backward. Intervals are inclusive, so an
 * op never writes over what it reads in the same step. First fit, in order of birth; offsets for
 * activations in act[t], gradients in grad[t] ((size_t)-1: none). Returns the arena's bytes.
 * --engine arena_reuse=off (debugging): every buffer its own place. */
static size_t plan_arena(const ex_net *net, size_t *act, size_t *grad)
{
	int nt = net->ntens, no = net->nops, n = 2 * nt, T = 2 * no, i, j, t;
	int *b = xcalloc(n, sizeof(int)), *d = xcalloc(n, sizeof(int));
	size_t *sz = xcalloc(n, sizeof(size_t)), *off = xcalloc(n, sizeof(size_t)), esz = ex_dtype_size(net->dt), top = 0;
	bool *placed = xcalloc(n, sizeof(bool)), noreuse = !ex_set.arena_reuse;

	for (i = 0; i < n; i++) {
		b[i] = -1;
		d[i] = -1;
		sz[i] = (net->tens[i % nt].elems * esz + 255) / 256 * 256;
	}
	b[0] = 0; /* the image: the whole step */
	d[0] = T - 1;
	for (i = 0; i < no; i++) { /* activations: items 0..nt-1 */
		const ex_op *op = &net->ops[i];
		int bt = T - 1 - i; /* this op's backward time */
		/* a folded BN's output is never stored (fold_bns); fc writes net->logits, outside the arena */
		if (!op->folded && op->kind != EX_FC) {
			b[op->out] = i;
			if (d[op->out] < i)
				d[op->out] = i;
		}
		if (d[op->in] < i)
			d[op->in] = i;
		if (op->z >= 0 && d[op->z] < i)
			d[op->z] = i;
		if (op->kind == EX_CONV || op->kind == EX_BN || op->kind == EX_FC)
			if (d[op->in] < bt)
				d[op->in] = bt;
		/* no BN backward reads its own output (the ReLU mask is kept as bits with a residual, recomputed
		 * from the input without one): a BN output lives only as long as its readers need it - the stem's
		 * (the max-pool keeps argmax) and the downsample branches' die in the forward (bench/NOTES.md) */
	}
	for (i = no - 1; i >= 0; i--) { /* gradients: items nt..2nt-1 */
		const ex_op *op = &net->ops[i];
		int bt = T - 1 - i;
		const ex_op *bf = bwd_folded(net, op);
		/* a pooling that does its folded BN's backward writes that BN's dx, not its own (never stored) */
		int in = op->kind == EX_MAXPOOL && bf ? bf->in : op->in;
		if (in > 0 && b[nt + in] < 0)
			b[nt + in] = bt;
		if (op->kind == EX_BN && bf) { /* ex_k_bn_bwd2 writes the folded BN's dx now; its dy is never stored */
			if (b[nt + bf->in] < 0)
				b[nt + bf->in] = bt;
		} else if (op->z >= 0 && b[nt + op->z] < 0) {
			b[nt + op->z] = bt;
		}
		d[nt + op->out] = bt;
	}
	for (t = 0; t < T; t++)
		for (i = 0; i < n; i++) {
			bool moved = true;
			if (b[i] != t || d[i] < 0)
				continue;
			off[i] = noreuse ? top : 0;
			while (moved && !noreuse) { /* bump past every placed buffer whose life overlaps */
				moved = false;
				for (j = 0; j < n; j++)
					if (placed[j] && b[j] <= d[i] && b[i] <= d[j] && off[i] < off[j] + sz[j] &&
					    off[j] < off[i] + sz[i]) {
						off[i] = off[j] + sz[j];
						moved = true;
					}
			}
			placed[i] = true;
			if (off[i] + sz[i] > top)
				top = off[i] + sz[i];
		}
	for (i = 0; i < nt; i++) {
		act[i] = placed[i] ? off[i] : (size_t)-1;
		grad[i] = placed[nt + i] ? off[nt + i] : (size_t)-1;
	}
	free(b);
	free(d);
	free(sz);
	free(off);
	free(placed);
	return top;
}

size_t ex_net_arena(const ex_net *net, size_t *act, size_t *grad) { return plan_arena(net, act, grad); }

/* The stem rewritten as net->stem asks (see ex_stem): true and *g set when op is the image's
 * convolution and the rewrite applies (space-to-depth needs stride 2, an even padded size and at most 4
 * channels; else the stem runs as it is). */
static bool stem_geometry(const ex_net *net, const ex_op *op, ex_convgeo *g)
{
	if (op->in != 0 || op->kind != EX_CONV || net->stem == EX_STEM_PLAIN || op->c > 4)
		return false;
	if (net->stem == EX_STEM_PAD8) {
		*g = (ex_convgeo){8, op->h, op->w, op->r, op->stride, op->pad};
		return true;
	}
	if (op->stride != 2 || (op->h + 2 * op->pad) % 2 || (op->w + 2 * op->pad) % 2 || op->h != op->w)
		return false;
	*g = (ex_convgeo){16, (op->h + 2 * op->pad) / 2, (op->w + 2 * op->pad) / 2, (op->r + 1) / 2, 1, 0};
	return g->h - g->r + 1 == op->oh;
}

void ex_net_mem(const ex_net *net, size_t *fixed_B, size_t *per_image_B)
{
	size_t esz = ex_dtype_size(net->dt), *a = xcalloc(net->ntens, sizeof(size_t)),
	       *g = xcalloc(net->ntens, sizeof(size_t)), arena = plan_arena(net, a, g);
	free(a);
	free(g);
	*per_image_B = arena / net->batch + (size_t)net->classes * 12 + 64 * 56 * 56 * (size_t)net->hw * net->hw / (224 * 224);
	for (int i = 0; i < net->nops; i++) { /* the rewritten stem's copy of the image */
		ex_convgeo sg;
		if (net->ops[i].kind == EX_CONV && stem_geometry(net, &net->ops[i], &sg))
			*per_image_B += (size_t)sg.c * sg.h * sg.w * esz;
	}
	/* w32, mom, grad; wc and wgrad_c (compute dtype); + workspace, cuDNN/cuBLAS handles */
	*fixed_B = net->p.n * (12 + (net->dt == EX_F32 ? 0 : 2 * esz)) + 1024UL * 1024 * 1024;
}

static cudnnDataType_t cudnn_dt(ex_dtype t)
{
	return t == EX_BF16 ? CUDNN_DATA_BFLOAT16 : t == EX_F16 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
}
static cudaDataType cuda_dt(ex_dtype t) { return t == EX_BF16 ? CUDA_R_16BF : t == EX_F16 ? CUDA_R_16F : CUDA_R_32F; }

static double host_normal(uint64_t *s)
{
	uint64_t a = *s += 0x9e3779b97f4a7c15ULL, b;
	a = (a ^ (a >> 30)) * 0xbf58476d1ce4e5b9ULL;
	a = (a ^ (a >> 27)) * 0x94d049bb133111ebULL;
	a ^= a >> 31;
	b = *s += 0x9e3779b97f4a7c15ULL;
	b = (b ^ (b >> 30)) * 0xbf58476d1ce4e5b9ULL;
	b = (b ^ (b >> 27)) * 0x94d049bb133111ebULL;
	b ^= b >> 31;
	double u1 = ((a >> 11) + 0.5) / 9007199254740992.0, u2 = (b >> 11) / 9007199254740992.0;
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}
static double host_uniform(uint64_t *s)
{
	uint64_t a = *s += 0x9e3779b97f4a7c15ULL;
	a = (a ^ (a >> 30)) * 0xbf58476d1ce4e5b9ULL;
	a = (a ^ (a >> 27)) * 0x94d049bb133111ebULL;
	a ^= a >> 31;
	return (a >> 11) / 9007199254740992.0;
}

/* torchvision resnet50 init: conv kaiming_normal_(fan_out, relu): std sqrt(2 / (k*r*r)); BN 1, 0;
 * fc nn.Linear default: U(-1/sqrt(in), 1/sqrt(in)) for weight and bias. */
static void init_weights(ex_net *net, float *h, uint64_t seed)
{
	int i;
	size_t j;
	for (i = 0; i < net->nops; i++) {
		ex_op *op = &net->ops[i];
		if (op->kind == EX_CONV) {
			ex_ptensor *t = &net->p.tensors[op->pw];
			double sd = sqrt(2.0 / ((double)op->k * op->r * op->r));
			uint64_t s = seed * 1315423911ULL + (uint64_t)i;
			for (j = 0; j < t->n; j++)
				h[t->off + j] = (float)(sd * host_normal(&s));
		} else if (op->kind == EX_BN) {
			for (j = 0; j < (size_t)op->k; j++) {
				h[net->p.tensors[op->pw].off + j] = 1.f;
				h[net->p.tensors[op->pb].off + j] = 0.f;
			}
		} else if (op->kind == EX_FC) {
			ex_ptensor *tw = &net->p.tensors[op->pw], *tb = &net->p.tensors[op->pb];
			double b = 1.0 / sqrt((double)op->c);
			uint64_t s = seed * 2654435761ULL + 77;
			for (j = 0; j < tw->n; j++)
				h[tw->off + j] = (float)((2 * host_uniform(&s) - 1) * b);
			for (j = 0; j < tb->n; j++)
				h[tb->off + j] = (float)((2 * host_uniform(&s) - 1) * b);
		}
	}
}

/* One convolution shape as cuDNN runs it (geometry and output channels): the key under which identical
 * convolutions share timed algorithms (same_conv) and graph plans (ex_gcache). */
static bool same_shape(const ex_convgeo *a, int ka, const ex_convgeo *b, int kb)
{
	return a->c == b->c && a->h == b->h && a->w == b->w && ka == kb && a->r == b->r && a->stride == b->stride &&
	       a->pad == b->pad;
}
static bool same_conv(const ex_op *a, const ex_op *b) { return same_shape(&a->cg, a->k, &b->cg, b->k); }

/* Where a convolution's weight gradient is written: the float gradient itself (fp32 math), the stem's
 * scratch (its rewritten shape), else its place in wgrad_c, cast to float before the optimizer
 * (ex_k_to_f32_blocks) or per layer (wgrad_cast_at_end). */
static void *conv_dw(ex_net *net, const ex_op *op)
{
	size_t off = net->p.tensors[op->pw].off;
	if (op->wpad)
		return net->wscratch;
	if (net->dt == EX_F32)
		return net->p.grad + off;
	return (char *)net->wgrad_c + off * ex_dtype_size(net->dt);
}

/* A convolution's input and weights as it runs them: the rewritten copies for the rewritten stem. */
static void *conv_x(ex_net *net, const ex_op *op)
{
	return op->xpad ? op->xpad : net->tens[op->in].d;
}
static void *conv_w(ex_net *net, const ex_op *op)
{
	return op->wpad ? op->wpad : (char *)net->p.wc + net->p.tensors[op->pw].off * ex_dtype_size(net->dt);
}

static void find_algos(ex_net *net, ex_op *op, void *ws, size_t ws_B)
{
	ex_tensor *x = &net->tens[op->in], *y = &net->tens[op->out];
	void *w = conv_w(net, op), *xd = conv_x(net, op);
	cudnnConvolutionFwdAlgoPerf_t pf[16];
	cudnnConvolutionBwdDataAlgoPerf_t pd[16];
	cudnnConvolutionBwdFilterAlgoPerf_t pw[16];
	int n = 0, i;
	bool fp32 = net->prec == EX_PREC_FP32;

	CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(net->cudnn, op->xd, xd, op->wd, w, op->cd, op->yd, y->d, 16,
							   &n, pf, ws, ws_B));
	for (i = 0; i < n; i++)
		if (pf[i].status == CUDNN_STATUS_SUCCESS && pf[i].memory <= ws_B && (!fp32 || pf[i].mathType == CUDNN_FMA_MATH))
			break;
	if (i == n) {
		fprintf(stderr, "scaleplan-train: no cuDNN forward algorithm for %s\n", net->model.layers[op->layer].name);
		exit(EXIT_ENV);
	}
	op->fwd_algo = pf[i].algo;
	op->fwd_math = pf[i].mathType;
	op->legacy_ms[0] = pf[i].time;
	op->legacy_ws[0] = pf[i].memory;

	CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(net->cudnn, op->xd, xd, op->yd, y->d, op->cd,
								  op->wd, conv_dw(net, op), 16, &n, pw, ws, ws_B));
	for (i = 0; i < n; i++)
		if (pw[i].status == CUDNN_STATUS_SUCCESS && pw[i].memory <= ws_B && (!fp32 || pw[i].mathType == CUDNN_FMA_MATH))
			break;
	if (i == n) {
		fprintf(stderr, "scaleplan-train: no cuDNN backward-filter algorithm for %s\n",
			net->model.layers[op->layer].name);
		exit(EXIT_ENV);
	}
	op->bwdf_algo = pw[i].algo;
	op->bwdf_math = pw[i].mathType;
	op->legacy_ms[2] = pw[i].time;
	op->legacy_ws[2] = pw[i].memory;

	if (op->in > 0) {
		CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(net->cudnn, op->wd, w, op->yd, y->d, op->cd, op->xd,
									x->g, 16, &n, pd, ws, ws_B));
		for (i = 0; i < n; i++)
			if (pd[i].status == CUDNN_STATUS_SUCCESS && pd[i].memory <= ws_B &&
			    (!fp32 || pd[i].mathType == CUDNN_FMA_MATH))
				break;
		if (i == n) {
			fprintf(stderr, "scaleplan-train: no cuDNN backward-data algorithm for %s\n",
				net->model.layers[op->layer].name);
			exit(EXIT_ENV);
		}
		op->bwdd_algo = pd[i].algo;
		op->bwdd_math = pd[i].mathType;
		op->legacy_ms[1] = pd[i].time;
		op->legacy_ws[1] = pd[i].memory;
	}
}

/* One autotuned graph-API convolution plan, shared by every convolution of the same shape, kind and
 * beta. ok = false: no engine supports it (the layers keep the legacy call). */
typedef struct ex_gcache {
	int kind, k, beta;
	ex_convgeo cg;
	ex_gb g;
	ex_gplan p;
	bool ok;
} ex_gcache;

static const char *conv_kind_name[3] = {"fwd", "dgrad", "wgrad"};

/* The three tensors of a convolution op for kind k: ids 1 (x or dx), 2 (w or dw), 3 (y or dy). */
static void conv_ptrs(ex_net *net, ex_op *op, int k, void *ptrs[3])
{
	ex_tensor *x = &net->tens[op->in], *y = &net->tens[op->out];
	ptrs[0] = k == 1 ? x->g : conv_x(net, op);
	ptrs[1] = k == 2 ? conv_dw(net, op) : conv_w(net, op);
	ptrs[2] = k == 0 ? y->d : y->g;
}

static size_t graph_plan_ws(const ex_net *net, cudnnBackendDescriptor_t plan)
{
	int i;
	for (i = 0; i < net->ngc; i++)
		if (net->gc[i].ok && net->gc[i].p.plan == plan)
			return net->gc[i].p.ws_B;
	return 0;
}

/* For each kind of the op's convolutions: find or autotune the graph plan of its shape (on the op's
 * own buffers and the timing workspace) and use it where it beats the legacy algorithm's time. */
static void choose_graph_plans(ex_net *net, ex_op *op, void *ws, size_t ws_B, bool verbose)
{
	static const int64_t uids[3] = {1, 2, 3};
	cudnnDataType_t dt = cudnn_dt(net->dt);
	int k, i;
	for (k = 0; k < 3; k++) {
		int beta = k == 1 && op->acc_in;
		ex_gcache *e = NULL;
		void *ptrs[3];
		if (k == 1 && op->in == 0)
			continue; /* no data gradient for the image */
		for (i = 0; i < net->ngc; i++) {
			ex_gcache *c = &net->gc[i];
			if (c->kind == k && c->beta == beta && same_shape(&c->cg, c->k, &op->cg, op->k))
				e = c;
		}
		if (!e) {
			cudnnBackendDescriptor_t tx, tw, ty;
			net->gc = xrealloc(net->gc, (net->ngc + 1) * sizeof(*net->gc));
			e = &net->gc[net->ngc++];
			memset(e, 0, sizeof(*e));
			e->kind = k;
			e->cg = op->cg;
			e->k = op->k;
			e->beta = beta;
			ex_gb_init(&e->g);
			tx = ex_gb_tensor(&e->g, 1, dt, net->batch, op->cg.c, op->cg.h, op->cg.w, false);
			tw = ex_gb_tensor(&e->g, 2, dt, op->k, op->cg.c, op->cg.r, op->cg.r, false);
			ty = ex_gb_tensor(&e->g, 3, dt, net->batch, op->k, op->oh, op->ow, false);
			ex_gb_conv(&e->g, k == 0 ? EX_GCONV_FWD : k == 1 ? EX_GCONV_DGRAD : EX_GCONV_WGRAD, tx, tw, ty, op->cg.pad,
				   op->cg.stride, beta ? 1.0 : 0.0);
			conv_ptrs(net, op, k, ptrs);
			e->ok = ex_gplan_build(&e->g, net->cudnn, 3, uids, ptrs, ws, ws_B, 8, &e->p) == 0;
			if (verbose && !e->ok)
				fprintf(stderr, "scaleplan-train: %s %s: no cuDNN graph plan (%s); the legacy call stays\n",
					net->model.layers[op->layer].name, conv_kind_name[k], e->p.why);
			if (ex_set.graph_verbose)
				fprintf(stderr, "graph plan %-24s %-5s beta %d: %s %.4f ms (legacy %.4f ms), ws %zu B\n",
					net->model.layers[op->layer].name, conv_kind_name[k], beta, e->ok ? "ok" : "none",
					e->p.ms, op->legacy_ms[k], e->p.ws_B);
		}
		if (e->ok && e->p.ms < op->legacy_ms[k]) {
			op->gplan[k] = e->p.plan;
			net->conv_graph_n[k]++;
		}
	}
}

/* Variant packs of the op's chosen plans, on the final workspaces; a refusal keeps the legacy call. */
static void bind_graph_plans(ex_net *net, ex_op *op)
{
	static const int64_t uids[3] = {1, 2, 3};
	int k;
	for (k = 0; k < 3; k++) {
		void *ptrs[3];
		if (!op->gplan[k])
			continue;
		conv_ptrs(net, op, k, ptrs);
		op->gvp[k] = ex_gvpack_new(3, uids, ptrs, net->ws);
		if (!op->gvp[k]) {
			fprintf(stderr, "scaleplan-train: %s %s: cuDNN refused the plan's pointers; the legacy call stays\n",
				net->model.layers[op->layer].name, conv_kind_name[k]);
			op->gplan[k] = NULL;
			net->conv_graph_n[k]--;
		}
	}
}

/* The rewritten stem's inputs in op->cg's shape, from the image and the compute-dtype weights. */
static void stem_inputs(ex_net *net, ex_op *op)
{
	const void *w = (char *)net->p.wc + net->p.tensors[op->pw].off * ex_dtype_size(net->dt);
	if (net->stem == EX_STEM_S2D) {
		ex_k_s2d(net->dt, op->xpad, net->tens[op->in].d, op->wpad, w, net->batch, op->h, op->w, op->c, op->pad,
			 op->k, op->r, op->cg.c, net->stream);
		return;
	}
	ex_k_pad_rows(net->dt, op->xpad, net->tens[op->in].d, (size_t)net->batch * op->h * op->w, op->c, op->cg.c,
		      net->stream);
	ex_k_pad_rows(net->dt, op->wpad, w, (size_t)op->k * op->r * op->r, op->c, op->cg.c, net->stream);
}

/* The rewritten stem's weight gradient (net->wscratch, cg's shape) into the float gradient buffer. */
static void stem_wgrad(ex_net *net, ex_op *op, cudaStream_t s)
{
	float *g = net->p.grad + net->p.tensors[op->pw].off;
	if (net->stem == EX_STEM_S2D)
		ex_k_s2d_wgrad_f32(net->dt, g, net->wscratch, op->k, op->r, op->c, op->cg.c, s);
	else
		ex_k_unpad_rows_f32(net->dt, g, net->wscratch, (size_t)op->k * op->r * op->r, op->c, op->cg.c, s);
}

/* Device table of slices of EX_OPT_BLOCK elements that never cross a tensor, over the parameter tensors
 * with take[t] (all where take is NULL): the optimizer's grid, and the one-launch gradient cast's. */
static ex_opt_block *tensor_slices(const ex_params *p, const bool *take, int *nslices)
{
	ex_opt_block *hb, *db = NULL;
	int i, nb = 0;
	for (i = 0; i < p->ntensors; i++)
		if (!take || take[i])
			nb += (int)((p->tensors[i].n + EX_OPT_BLOCK - 1) / EX_OPT_BLOCK);
	hb = xcalloc(nb > 0 ? nb : 1, sizeof(*hb));
	nb = 0;
	for (i = 0; i < p->ntensors; i++) {
		size_t o, n = p->tensors[i].n;
		for (o = 0; (!take || take[i]) && o < n; o += EX_OPT_BLOCK) {
			hb[nb].tensor = i;
			hb[nb].first = (long long)(p->tensors[i].off + o);
			hb[nb].last = (long long)(p->tensors[i].off + (o + EX_OPT_BLOCK < n ? o + EX_OPT_BLOCK : n));
			nb++;
		}
	}
	if (nb > 0) {
		CUDA_CHECK(ex_dev_malloc((void **)&db, nb * sizeof(*hb)));
		CUDA_CHECK(cudaMemcpy(db, hb, nb * sizeof(*hb), cudaMemcpyHostToDevice));
	}
	free(hb);
	*nslices = nb;
	return db;
}

/* The stream, cuDNN and cuBLAS handles (cuBLAS with its own 32 MiB workspace), the timing events. */
static void net_handles(ex_net *net)
{
	CUDA_CHECK(cudaStreamCreateWithFlags(&net->stream, cudaStreamNonBlocking));
	CUDNN_CHECK(cudnnCreate(&net->cudnn));
	CUDNN_CHECK(cudnnSetStream(net->cudnn, net->stream));
	CUBLAS_CHECK(cublasCreate(&net->cublas));
	CUBLAS_CHECK(cublasSetStream(net->cublas, net->stream));
	CUDA_CHECK(ex_dev_malloc((void **)&net->cublas_ws, 32 << 20));
	CUBLAS_CHECK(cublasSetWorkspace(net->cublas, net->cublas_ws, 32 << 20));
	for (int i = 0; i < 4; i++)
		CUDA_CHECK(cudaEventCreate(&net->ev[i]));
	CUDA_CHECK(cudaEventCreate(&net->pev[0]));
	CUDA_CHECK(cudaEventCreate(&net->pev[1]));
}

/* The parameters (fp32 master, momentum, gradient, the compute copy, batch-norm statistics) initialised from
 * seed, and the optimizer's blocks and per-tensor decay flags and norms. */
static void net_params_init(ex_net *net, uint64_t seed)
{
	size_t esz = ex_dtype_size(net->dt);
	ex_dtype dt = net->dt;
	float *h;
	int *hdec;
	int i, j;
	ex_params *p = &net->p;
	CUDA_CHECK(ex_dev_malloc((void **)&p->w32, p->n * 4));
	CUDA_CHECK(ex_dev_malloc((void **)&p->mom, p->n * 4));
	CUDA_CHECK(ex_dev_malloc((void **)&p->grad, p->n * 4));
	CUDA_CHECK(cudaMemset(p->mom, 0, p->n * 4));
	CUDA_CHECK(cudaMemset(p->grad, 0, p->n * 4));
	if (dt == EX_F32)
		p->wc = p->w32;
	else
		CUDA_CHECK(ex_dev_malloc((void **)&p->wc, p->n * esz));
	CUDA_CHECK(ex_dev_malloc((void **)&p->bnstat, p->nbnstat * 4));
	h = xmalloc(p->n * 4 > p->nbnstat * 4 ? p->n * 4 : p->nbnstat * 4);
	init_weights(net, h, seed);
	CUDA_CHECK(cudaMemcpy(p->w32, h, p->n * 4, cudaMemcpyHostToDevice));
	for (i = 0; i < net->nops; i++) /* running mean 0, running var 1 */
		if (net->ops[i].kind == EX_BN)
			for (j = 0; j < net->ops[i].k; j++) {
				h[net->ops[i].bnstat_off + j] = 0.f;
				h[net->ops[i].bnstat_off + net->ops[i].k + j] = 1.f;
			}
	CUDA_CHECK(cudaMemcpy(p->bnstat, h, p->nbnstat * 4, cudaMemcpyHostToDevice));
	free(h);
	if (dt != EX_F32)
		ex_k_cast_f32(dt, p->wc, p->w32, p->n, net->stream);

	/* optimizer blocks */
	p->blocks = tensor_slices(p, NULL, &p->nblocks);
	hdec = xcalloc(p->ntensors, sizeof(int));
	for (i = 0; i < p->ntensors; i++)
		hdec[i] = p->tensors[i].decay;
	CUDA_CHECK(ex_dev_malloc((void **)&p->decay_flags, p->ntensors * sizeof(int)));
	CUDA_CHECK(cudaMemcpy(p->decay_flags, hdec, p->ntensors * sizeof(int), cudaMemcpyHostToDevice));
	CUDA_CHECK(ex_dev_malloc((void **)&p->norms, 2 * p->ntensors * sizeof(float)));
	free(hdec);
}

/* Activations and gradients in one arena (places reused once their contents are dead), the loss buffers and
 * the device state. */
static void net_arena(ex_net *net)
{
	size_t esz = ex_dtype_size(net->dt), act = 0, *aoffs, *goffs;
	int i;
	for (i = 0; i < net->ntens; i++)
		act += (net->tens[i].elems * esz + 255) / 256 * 256;
	net->grad_B = act; /* for the log line: what the activations alone would take without reuse */
	aoffs = xcalloc(net->ntens, sizeof(size_t));
	goffs = xcalloc(net->ntens, sizeof(size_t));
	net->act_B = plan_arena(net, aoffs, goffs);
	CUDA_CHECK(ex_dev_malloc((void **)&net->act_arena, net->act_B));
	for (i = 0; i < net->ntens; i++) {
		net->tens[i].d = aoffs[i] == (size_t)-1 ? NULL : (char *)net->act_arena + aoffs[i];
		net->tens[i].g = goffs[i] == (size_t)-1 ? NULL : (char *)net->act_arena + goffs[i];
	}
	free(aoffs);
	free(goffs);
	CUDA_CHECK(ex_dev_malloc((void **)&net->labels, net->batch * sizeof(int)));
	CUDA_CHECK(ex_dev_malloc((void **)&net->logits, (size_t)net->batch * net->classes * 4));
	CUDA_CHECK(ex_dev_malloc((void **)&net->dlogits32, (size_t)net->batch * net->classes * 4));
	CUDA_CHECK(ex_dev_malloc((void **)&net->dlogits, (size_t)net->batch * net->classes * esz));
	CUDA_CHECK(ex_dev_malloc((void **)&net->st, sizeof(ex_dev_state)));
	{
		ex_dev_state s0;
		memset(&s0, 0, sizeof(s0));
		s0.loss_scale = net->prec == EX_PREC_FP16 ? 65536.f : 1.f;
		CUDA_CHECK(cudaMemcpy(net->st, &s0, sizeof(s0), cudaMemcpyHostToDevice));
	}
}

/* Each operation's own buffers: the stem's padded input and weights, batch norm's statistics and ReLU mask,
 * max pooling's argmax; the weight scratch and, below fp32, the weight gradients in the compute dtype. */
static void net_op_buffers(ex_net *net)
{
	size_t esz = ex_dtype_size(net->dt), maxw = 0;
	ex_dtype dt = net->dt;
	int i;
	for (i = 0; i < net->nops; i++) {
		ex_op *op = &net->ops[i];
		if (op->kind == EX_CONV) {
			size_t wn;
			op->cg = (ex_convgeo){op->c, op->h, op->w, op->r, op->stride, op->pad};
			if (stem_geometry(net, op, &op->cg)) {
				CUDA_CHECK(ex_dev_malloc(&op->xpad, (size_t)net->batch * op->cg.h * op->cg.w * op->cg.c * esz));
				CUDA_CHECK(ex_dev_malloc(&op->wpad, (size_t)op->k * op->cg.r * op->cg.r * op->cg.c * esz));
			}
			wn = (size_t)op->k * op->cg.r * op->cg.r * op->cg.c;
			if (op->wpad && wn > maxw)
				maxw = wn;
		}
		if (op->kind == EX_BN) {
			CUDA_CHECK(ex_dev_malloc((void **)&op->bn_f, EX_BN_F_FLOATS(op->k) * sizeof(float)));
			CUDA_CHECK(ex_dev_malloc((void **)&op->bn_d, EX_BN_D_DOUBLES(op->k) * sizeof(double)));
			CUDA_CHECK(cudaMemset(op->bn_d, 0, EX_BN_D_DOUBLES(op->k) * sizeof(double))); /* EX_BN_D_DOUBLES */
			if (op->z >= 0 && op->relu)
				CUDA_CHECK(ex_dev_malloc((void **)&op->relu_mask, net->tens[op->out].elems / 8));
		}
		if (op->kind == EX_MAXPOOL)
			CUDA_CHECK(ex_dev_malloc((void **)&op->argmax, net->tens[op->out].elems));
	}
	if (maxw)
		CUDA_CHECK(ex_dev_malloc((void **)&net->wscratch, maxw * esz));
	if (dt != EX_F32) { /* conv weight gradients in the compute dtype, cast to float in one launch */
		bool *take = xcalloc(net->p.ntensors, sizeof(bool));
		for (i = 0; i < net->nops; i++)
			if (net->ops[i].kind == EX_CONV && !net->ops[i].wpad)
				take[net->ops[i].pw] = true;
		CUDA_CHECK(ex_dev_malloc(&net->wgrad_c, net->p.n * esz));
		net->cast_blocks = tensor_slices(&net->p, take, &net->ncast_blocks);
		free(take);
	}

}

/* Each convolution's cuDNN descriptors (NHWC, the compute dtype, the precision's math type). */
static void conv_descriptors(ex_net *net)
{
	ex_dtype dt = net->dt;
	int i;
	for (i = 0; i < net->nops; i++) {
		ex_op *op = &net->ops[i];
		if (op->kind != EX_CONV)
			continue;
		CUDNN_CHECK(cudnnCreateTensorDescriptor(&op->xd));
		CUDNN_CHECK(cudnnCreateTensorDescriptor(&op->yd));
		CUDNN_CHECK(cudnnCreateFilterDescriptor(&op->wd));
		CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&op->cd));
		CUDNN_CHECK(cudnnSetTensor4dDescriptor(op->xd, CUDNN_TENSOR_NHWC, cudnn_dt(dt), net->batch, op->cg.c, op->cg.h,
							op->cg.w));
		CUDNN_CHECK(cudnnSetTensor4dDescriptor(op->yd, CUDNN_TENSOR_NHWC, cudnn_dt(dt), net->batch, op->k, op->oh, op->ow));
		CUDNN_CHECK(cudnnSetFilter4dDescriptor(op->wd, cudnn_dt(dt), CUDNN_TENSOR_NHWC, op->k, op->cg.c, op->cg.r, op->cg.r));
		CUDNN_CHECK(cudnnSetConvolution2dDescriptor(op->cd, op->cg.pad, op->cg.pad, op->cg.stride, op->cg.stride, 1, 1,
							    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
		CUDNN_CHECK(cudnnSetConvolutionMathType(op->cd, net->prec == EX_PREC_FP32 ? CUDNN_FMA_MATH
								 : net->prec == EX_PREC_TF32 ? CUDNN_DEFAULT_MATH
											     : CUDNN_TENSOR_OP_MATH));
	}
}

/* The convolutions' algorithms (timed once per distinct shape, on inputs filled with data: Find overwrites
 * outputs) and graph-API plans within ws_limit_B (at most half the free memory), then the one workspace that
 * the chosen ones need. */
static void conv_algorithms(ex_net *net, size_t ws_limit_B, bool verbose)
{
	ex_dtype dt = net->dt;
	size_t need = 0;
	int i, j;
	void *ws = NULL;
	size_t ws_B = ws_limit_B;
	size_t freeB, totB;
	CUDA_CHECK(cudaMemGetInfo(&freeB, &totB));
	if (ws_B > freeB / 2)
		ws_B = freeB / 2;
	CUDA_CHECK(ex_dev_malloc((void **)&ws, ws_B));
	/* Find overwrites outputs: fill inputs with data first so timings are realistic */
	for (i = 0; i < net->ntens; i++) {
		if (net->tens[i].d)
			ex_k_fill_normal(dt, net->tens[i].d, net->tens[i].elems, 0.f, 1.f, 1234 + i, net->stream);
		if (net->tens[i].g)
			ex_k_fill_normal(dt, net->tens[i].g, net->tens[i].elems, 0.f, 1.f, 4321 + i, net->stream);
	}
	for (i = 0; i < net->nops; i++)
		if (net->ops[i].xpad)
			stem_inputs(net, &net->ops[i]);
	CUDA_CHECK(cudaStreamSynchronize(net->stream));
	for (i = 0; i < net->nops; i++) {
		ex_op *op = &net->ops[i];
		if (op->kind != EX_CONV)
			continue;
		for (j = 0; j < i; j++)
			if (net->ops[j].kind == EX_CONV && same_conv(&net->ops[j], op) && (net->ops[j].in > 0) == (op->in > 0))
				break;
		if (j < i) {
			op->fwd_algo = net->ops[j].fwd_algo;
			op->bwdd_algo = net->ops[j].bwdd_algo;
			op->bwdf_algo = net->ops[j].bwdf_algo;
			op->fwd_math = net->ops[j].fwd_math;
			op->bwdd_math = net->ops[j].bwdd_math;
			op->bwdf_math = net->ops[j].bwdf_math;
			memcpy(op->legacy_ms, net->ops[j].legacy_ms, sizeof(op->legacy_ms));
			memcpy(op->legacy_ws, net->ops[j].legacy_ws, sizeof(op->legacy_ws));
			continue;
		}
		find_algos(net, op, ws, ws_B);
	}
	if (net->conv_graph && (dt == EX_BF16 || dt == EX_F16))
		for (i = 0; i < net->nops; i++)
			if (net->ops[i].kind == EX_CONV)
				choose_graph_plans(net, &net->ops[i], ws, ws_B, verbose);
	for (i = 0; i < net->nops; i++) { /* the workspaces: what the chosen plans and algorithms need */
		ex_op *op = &net->ops[i];
		int k;
		if (op->kind != EX_CONV)
			continue;
		for (k = 0; k < 3; k++) {
			size_t b = op->gplan[k] ? graph_plan_ws(net, op->gplan[k]) : op->legacy_ws[k];
			if (b > need)
				need = b;
		}
	}
	CUDA_CHECK(ex_dev_free(ws));
	net->ws_B = need < 1024 ? 1024 : need;
	CUDA_CHECK(ex_dev_malloc((void **)&net->ws, net->ws_B));
	for (i = 0; i < net->nops; i++)
		if (net->ops[i].kind == EX_CONV)
			bind_graph_plans(net, &net->ops[i]);
}

/* The log lines of verbose: sizes, algorithm time, graph plans, the batch norms folded into their readers. */
static void net_report(const ex_net *net, double t0)
{
	const ex_params *p = &net->p;
	int npool = 0, nres = 0, nbwd = 0;
	fprintf(stderr, "scaleplan-train: %zu parameters, activation+gradient arena %.2f GiB (activations alone %.2f GiB), "
			"cuDNN workspace %.0f MiB, algorithms timed in %.1f s; graph-API plans for %d fwd, %d dgrad, "
			"%d wgrad convolutions\n",
		p->n, net->act_B / 1073741824.0, net->grad_B / 1073741824.0, net->ws_B / 1048576.0, time_now_s() - t0,
		net->conv_graph_n[0], net->conv_graph_n[1], net->conv_graph_n[2]);
	for (int i = 0; i < net->nops; i++) {
		npool += net->ops[i].fold_bn >= 0;
		nres += net->ops[i].z_bn >= 0;
		nbwd += net->ops[i].bwd_by_reader;
	}
	fprintf(stderr, "scaleplan-train: batch norms applied by their reader, outputs not stored: %d by max pooling, "
			"%d by a residual add; %d backward passes done by the reader (output gradient not stored)\n",
		npool, nres, nbwd);
}

int ex_net_init(ex_net *net, uint64_t seed, size_t ws_limit_B, bool verbose)
{
	double t0 = time_now_s();
	net_handles(net);
	net_params_init(net, seed);
	net_arena(net);
	net_op_buffers(net);
	conv_descriptors(net);
	conv_algorithms(net, ws_limit_B, verbose);
	if (verbose)
		net_report(net, t0);
	CUDA_CHECK(cudaStreamSynchronize(net->stream));
	return 0;
}

void ex_net_free(ex_net *net)
{
	int i;
	if (!net)
		return;
	if (net->have_graph)
		cudaGraphExecDestroy(net->graph);
	for (i = 0; i < net->nops; i++) {
		ex_op *op = &net->ops[i];
		for (int k = 0; k < 3; k++)
			if (op->gvp[k])
				cudnnBackendDestroyDescriptor(op->gvp[k]);
		if (op->kind == EX_CONV && op->xd) {
			cudnnDestroyTensorDescriptor(op->xd);
			cudnnDestroyTensorDescriptor(op->yd);
			cudnnDestroyFilterDescriptor(op->wd);
			cudnnDestroyConvolutionDescriptor(op->cd);
		}
		ex_dev_free(op->bn_f);
		ex_dev_free(op->bn_d);
		ex_dev_free(op->relu_mask);
		ex_dev_free(op->argmax);
		ex_dev_free(op->xpad);
		ex_dev_free(op->wpad);
	}
	for (i = 0; i < net->ngc; i++) {
		ex_gplan_free(&net->gc[i].p);
		ex_gb_free(&net->gc[i].g);
	}
	free(net->gc);
	if (net->p.wc != net->p.w32)
		ex_dev_free(net->p.wc);
	ex_dev_free(net->p.w32);
	ex_dev_free(net->p.mom);
	ex_dev_free(net->p.grad);
	ex_dev_free(net->p.bnstat);
	ex_dev_free(net->p.blocks);
	ex_dev_free(net->p.decay_flags);
	ex_dev_free(net->p.norms);
	ex_dev_free(net->act_arena);
	ex_dev_free(net->labels);
	ex_dev_free(net->logits);
	ex_dev_free(net->dlogits32);
	ex_dev_free(net->dlogits);
	ex_dev_free(net->wscratch);
	ex_dev_free(net->wgrad_c);
	ex_dev_free(net->cast_blocks);
	ex_dev_free(net->ws);
	ex_dev_free(net->st);
	ex_dev_free(net->cublas_ws);
	if (net->cublas)
		cublasDestroy(net->cublas);
	if (net->cudnn)
		cudnnDestroy(net->cudnn);
	if (net->stream)
		cudaStreamDestroy(net->stream);
	free(net->ops);
	free(net->tens);
	free(net->p.tensors);
	model_net_free(&net->model);
	memset(net, 0, sizeof(*net));
}

void *ex_net_input(ex_net *net) { return net->tens[0].d; }

static void prof_begin(ex_net *net)
{
	if (net->profile)
		CUDA_CHECK(cudaEventRecord(net->pev[0], net->stream));
}
static void prof_end(ex_net *net, int cat)
{
	float ms;
	if (!net->profile)
		return;
	CUDA_CHECK(cudaEventRecord(net->pev[1], net->stream));
	CUDA_CHECK(cudaEventSynchronize(net->pev[1]));
	CUDA_CHECK(cudaEventElapsedTime(&ms, net->pev[0], net->pev[1]));
	net->prof_ms[cat] += ms;
}

static cublasComputeType_t gemm_compute(const ex_net *net)
{
	return net->prec == EX_PREC_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

static void forward(ex_net *net, bool train)
{
	size_t esz = ex_dtype_size(net->dt);
	const float one = 1.f, zero = 0.f;
	int i;
	for (i = 0; i < net->nops; i++) {
		ex_op *op = &net->ops[i];
		ex_tensor *x = &net->tens[op->in], *y = &net->tens[op->out];
		long m = (long)net->batch * op->oh * op->ow;
		prof_begin(net);
		switch (op->kind) {
		case EX_CONV:
			if (op->xpad)
				stem_inputs(net, op);
			if (op->gplan[0]) {
				ex_gexec(net->cudnn, op->gplan[0], op->gvp[0]);
				break;
			}
			CUDNN_CHECK(cudnnSetConvolutionMathType(op->cd, op->fwd_math));
			CUDNN_CHECK(cudnnConvolutionForward(net->cudnn, &one, op->xd, conv_x(net, op), op->wd, conv_w(net, op),
							    op->cd, op->fwd_algo, net->ws, net->ws_B, &zero, op->yd, y->d));
			break;
		case EX_BN: {
			float *g = net->p.w32 + net->p.tensors[op->pw].off, *b = net->p.w32 + net->p.tensors[op->pb].off;
			float *rm = net->p.bnstat + op->bnstat_off, *rv = rm + op->k;
			const ex_op *bz = op->z_bn >= 0 ? &net->ops[op->z_bn] : NULL;
			const void *z = bz ? net->tens[bz->in].d : op->z >= 0 ? net->tens[op->z].d : NULL;
			const float *zf = bz ? bz->bn_f : NULL;
			void *out = op->folded ? NULL : y->d;
			if (train)
				ex_k_bn_fwd_train(net->dt, x->d, z, zf, out, m, op->k, g, b, rm, rv, net->bn_momentum,
						  net->bn_eps, op->relu, op->bn_f, op->bn_d, op->relu_mask, net->stream);
			else
				ex_k_bn_fwd_eval(net->dt, x->d, z, zf, out, m, op->k, g, b, rm, rv, net->bn_eps, op->relu,
						 op->bn_f, net->stream);
			break;
		}
		case EX_MAXPOOL: {
			const ex_op *bn = op->fold_bn >= 0 ? &net->ops[op->fold_bn] : NULL;
			ex_k_maxpool_fwd(net->dt, bn ? net->tens[bn->in].d : x->d, bn ? bn->bn_f : NULL, bn && bn->relu, y->d,
					 op->argmax, net->batch, op->h, op->w, op->c, op->oh, op->ow, op->r, op->stride, op->pad,
					 net->stream);
			break;
		}
		case EX_AVGPOOL:
			ex_k_avgpool_fwd(net->dt, x->d, y->d, net->batch, op->h * op->w, op->c, net->stream);
			break;
		case EX_FC:
			CUBLAS_CHECK(cublasGemmEx(net->cublas, CUBLAS_OP_T, CUBLAS_OP_N, net->classes, net->batch, op->c, &one,
						  (char *)net->p.wc + net->p.tensors[op->pw].off * esz, cuda_dt(net->dt), op->c,
						  x->d, cuda_dt(net->dt), op->c, &zero, net->logits, CUDA_R_32F, net->classes,
						  gemm_compute(net), CUBLAS_GEMM_DEFAULT));
			break;
		}
		prof_end(net, op->kind == EX_CONV ? EX_PROF_CONV_FWD : op->kind == EX_BN ? EX_PROF_BN_FWD
			      : op->kind == EX_FC ? EX_PROF_FC_FWD : EX_PROF_POOL_FWD);
	}
}

void ex_net_forward(ex_net *net, bool train) { forward(net, train); }

static void grad_ready(ex_net *net, int pw, int pb)
{
	size_t first = net->p.tensors[pw].off, last = net->p.tensors[pb >= 0 ? pb : pw].off + net->p.tensors[pb >= 0 ? pb : pw].n;
	if (net->hooks.grad_ready)
		net->hooks.grad_ready(net->hooks.ctx, first, last - first, net->stream);
}

/* A batch norm's parameters, their gradients and its scratch, for the backward kernels. */
static ex_bn_grads bn_grads(ex_net *net, const ex_op *bn)
{
	ex_bn_grads g = {net->p.w32 + net->p.tensors[bn->pw].off, net->p.grad + net->p.tensors[bn->pw].off,
			 net->p.grad + net->p.tensors[bn->pb].off, bn->bn_f, bn->bn_d};
	return g;
}

/* Conv weight gradients cast to float in one launch before the optimizer, unless a distributed layer
 * wants each as backward makes it (hooks.grad_ready) or --engine wgrad_cast_at_end=off (A/B: the cast per layer). */
static bool wgrad_cast_at_end(const ex_net *net)
{
	static int at_end = -1;
	if (at_end < 0)
		at_end = ex_set.wgrad_cast_at_end;
	return at_end && !net->hooks.grad_ready;
}

/* A conv's weight gradient (and its cast to float where made per layer) on the main stream. */
static void conv_wgrad(ex_net *net, ex_op *op)
{
	const float one = 1.f, zero = 0.f;
	void *dw = conv_dw(net, op);
	size_t off = net->p.tensors[op->pw].off;
	cudaStream_t s = net->stream;
	if (op->gplan[2]) {
		ex_gexec(net->cudnn, op->gplan[2], op->gvp[2]);
	} else {
		CUDNN_CHECK(cudnnSetConvolutionMathType(op->cd, op->bwdf_math));
		CUDNN_CHECK(cudnnConvolutionBackwardFilter(net->cudnn, &one, op->xd, conv_x(net, op), op->yd,
							   net->tens[op->out].g, op->cd, op->bwdf_algo, net->ws, net->ws_B,
							   &zero, op->wd, dw));
	}
	if (op->wpad)
		stem_wgrad(net, op, s);
	else if (net->dt != EX_F32 && !wgrad_cast_at_end(net))
		ex_k_to_f32(net->dt, net->p.grad + off, dw, net->p.tensors[op->pw].n, s);
}

static void backward(ex_net *net)
{
	size_t esz = ex_dtype_size(net->dt);
	const float one = 1.f, zero = 0.f;
	int i;
	for (i = net->nops - 1; i >= 0; i--) {
		ex_op *op = &net->ops[i];
		ex_tensor *x = &net->tens[op->in], *y = &net->tens[op->out];
		long m = (long)net->batch * op->oh * op->ow;
		prof_begin(net);
		switch (op->kind) {
		case EX_FC: {
			float *gw = net->p.grad + net->p.tensors[op->pw].off, *gb = net->p.grad + net->p.tensors[op->pb].off;
			const void *w = (char *)net->p.wc + net->p.tensors[op->pw].off * esz;
			ex_k_bias_grad(net->dlogits32, gb, net->batch, net->classes, net->stream);
			CUBLAS_CHECK(cublasGemmEx(net->cublas, CUBLAS_OP_N, CUBLAS_OP_T, op->c, net->classes, net->batch, &one,
						  x->d, cuda_dt(net->dt), op->c, net->dlogits, cuda_dt(net->dt), net->classes,
						  &zero, gw, CUDA_R_32F, op->c, gemm_compute(net), CUBLAS_GEMM_DEFAULT));
			CUBLAS_CHECK(cublasGemmEx(net->cublas, CUBLAS_OP_N, CUBLAS_OP_N, op->c, net->batch, net->classes, &one, w,
						  cuda_dt(net->dt), op->c, net->dlogits, cuda_dt(net->dt), net->classes, &zero,
						  x->g, cuda_dt(net->dt), op->c, gemm_compute(net), CUBLAS_GEMM_DEFAULT));
			grad_ready(net, op->pw, op->pb);
			prof_end(net, EX_PROF_FC_BWD);
			break;
		}
		case EX_AVGPOOL:
			ex_k_avgpool_bwd(net->dt, y->g, x->g, net->batch, op->h * op->w, op->c, op->acc_in, net->stream);
			prof_end(net, EX_PROF_POOL_BWD);
			break;
		case EX_MAXPOOL: {
			const ex_op *bn = bwd_folded(net, op);
			if (bn) { /* the folded BN's backward, its dy gathered from this pooling's gradient */
				ex_tensor *bx = &net->tens[bn->in];
				ex_bn_grads g = bn_grads(net, bn);
				ex_k_bn_bwd_pooled(net->dt, bx->d, y->g, op->argmax, bx->g, net->batch, op->h, op->w, op->c, op->oh,
						   op->ow, op->r, op->stride, op->pad, bn->relu, &g, net->stream);
			} else {
				ex_k_maxpool_bwd(net->dt, y->g, op->argmax, x->g, net->batch, op->h, op->w, op->c, op->oh, op->ow,
						 op->r, op->stride, op->pad, op->acc_in, net->stream);
			}
			prof_end(net, EX_PROF_POOL_BWD);
			break;
		}
		case EX_BN: {
			ex_bn_grads g = bn_grads(net, op);
			void *dz = op->z >= 0 ? net->tens[op->z].g : NULL;
			const ex_op *bz = bwd_folded(net, op);
			/* the BN input is a conv output read by this BN alone, so dx overwrites */
			if (bz) { /* this BN's backward and the folded one's, from one dy */
				ex_bn_grads g2 = bn_grads(net, bz);
				ex_k_bn_bwd2(net->dt, x->d, net->tens[bz->in].d, op->relu_mask, y->g, x->g,
					     net->tens[bz->in].g, m, op->k, &g, &g2, net->stream);
			} else if (!op->bwd_by_reader) {
				ex_k_bn_bwd(net->dt, x->d, op->relu_mask, y->g, x->g, dz, op->acc_z, op->relu, m, op->k, g.gamma,
					    g.dgamma, g.dbeta, op->bn_f, op->bn_d, net->stream);
			}
			grad_ready(net, op->pw, op->pb);
			prof_end(net, EX_PROF_BN_BWD);
			break;
		}
		case EX_CONV: {
			size_t off = net->p.tensors[op->pw].off;
			conv_wgrad(net, op);
			grad_ready(net, op->pw, -1);
			prof_end(net, EX_PROF_CONV_WGRAD);
			prof_begin(net);
			if (op->in > 0 && op->gplan[1]) {
				ex_gexec(net->cudnn, op->gplan[1], op->gvp[1]);
			} else if (op->in > 0) {
				const float *beta = op->acc_in ? &one : &zero;
				CUDNN_CHECK(cudnnSetConvolutionMathType(op->cd, op->bwdd_math));
				CUDNN_CHECK(cudnnConvolutionBackwardData(net->cudnn, &one, op->wd,
									 (char *)net->p.wc + off * esz, op->yd, y->g, op->cd,
									 op->bwdd_algo, net->ws, net->ws_B, beta, op->xd, x->g));
			}
			prof_end(net, EX_PROF_CONV_DGRAD);
			break;
		}
		}
	}
}

static void optimizer(ex_net *net)
{
	ex_params *p = &net->p;
	if (net->dt != EX_F32 && wgrad_cast_at_end(net))
		ex_k_to_f32_blocks(net->dt, p->grad, net->wgrad_c, net->cast_blocks, net->ncast_blocks, net->stream);
	if (net->hooks.before_optimizer)
		net->hooks.before_optimizer(net->hooks.ctx, net->stream);
	if (net->opt.dynamic_scale)
		ex_k_check_inf(p->grad, p->n, net->st, net->stream);
	if (net->opt.lars)
		ex_k_lars_norms(p->w32, p->grad, p->blocks, p->nblocks, p->norms, p->ntensors, net->stream);
	ex_k_sgd(net->dt, p->w32, p->mom, p->grad, net->dt == EX_F32 ? NULL : p->wc, p->blocks, p->nblocks,
		 p->decay_flags, p->norms, p->ntensors, net->opt, net->st, net->stream);
	ex_k_step_end(net->st, net->opt.dynamic_scale, net->stream);
}

void ex_net_train_step(ex_net *net, bool timing)
{
	if (timing)
		CUDA_CHECK(cudaEventRecord(net->ev[0], net->stream));
	forward(net, true);
	ex_k_softmax_xent(net->logits, net->p.w32 + net->p.tensors[net->ops[net->nops - 1].pb].off, net->labels,
			  net->batch, net->classes, net->label_smoothing, net->batch, net->st, net->dlogits32, net->dt,
			  net->dlogits, net->stream);
	if (timing)
		CUDA_CHECK(cudaEventRecord(net->ev[1], net->stream));
	backward(net);
	if (timing)
		CUDA_CHECK(cudaEventRecord(net->ev[2], net->stream));
	optimizer(net);
	if (timing)
		CUDA_CHECK(cudaEventRecord(net->ev[3], net->stream));
}

void ex_net_train_step_graph(ex_net *net)
{
	if (!net->have_graph && !net->graph_ok) {
		cudaGraph_t g = NULL;
		cudaError_t e;
		net->graph_ok = true; /* tried */
		CUDA_CHECK(cudaStreamSynchronize(net->stream));
		e = cudaStreamBeginCapture(net->stream, cudaStreamCaptureModeThreadLocal);
		if (e == cudaSuccess) {
			ex_net_train_step(net, false);
			e = cudaStreamEndCapture(net->stream, &g);
		}
		if (e == cudaSuccess)
			e = cudaGraphInstantiate(&net->graph, g, 0);
		if (g)
			cudaGraphDestroy(g);
		if (e == cudaSuccess) {
			net->have_graph = true;
		} else {
			fprintf(stderr, "scaleplan-train: CUDA graph capture failed (%s); running without a graph\n",
				cudaGetErrorString(e));
			cudaGetLastError();
		}
	}
	if (net->have_graph)
		CUDA_CHECK(cudaGraphLaunch(net->graph, net->stream));
	else
		ex_net_train_step(net, false);
}

void ex_net_eval_batch(ex_net *net, int valid)
{
	forward(net, false);
	ex_k_softmax_xent(net->logits, net->p.w32 + net->p.tensors[net->ops[net->nops - 1].pb].off, net->labels,
			  net->batch, net->classes, net->label_smoothing, valid, net->st, NULL, net->dt, NULL,
			  net->stream);
}

void ex_net_take_stats(ex_net *net, ex_dev_state *out)
{
	ex_dev_state s;
	CUDA_CHECK(cudaStreamSynchronize(net->stream));
	CUDA_CHECK(cudaMemcpy(&s, net->st, sizeof(s), cudaMemcpyDeviceToHost));
	*out = s;
	s.loss_sum = 0;
	s.correct = 0;
	s.seen = 0;
	CUDA_CHECK(cudaMemcpy(net->st, &s, sizeof(s), cudaMemcpyHostToDevice));
}
