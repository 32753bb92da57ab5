/* bench/fuse_probe.c: which cuDNN graph-API fusions of convolution + batch norm this GPU and cuDNN
 * support for every distinct ResNet-50 convolution (bf16, NHWC), and how fast each is against the
 * legacy convolution calls (cudnnFind*Ex), which the engine falls back to.
 *   scaleplan-fuseprobe [--batch N] [--tries K] [--shape C,H,K,R,STRIDE,PAD]...
 * prints one CSV row per shape and pattern; --shape (repeatable) probes the shapes given instead of
 * ResNet-50's (e.g. candidate layouts of the stem).
 * Patterns: fwd (plain), fwd+genstats (BN statistics in the epilogue), sbr+fwd+genstats (scale, bias,
 * ReLU of the input in the prologue, fp32 or bf16 intermediates), dgrad (plain), dgrad+drelu+dbn (ReLU
 * backward with the stored ReLU output, the masked gradient stored, and the two BN backward sums in
 * the epilogue), wgrad (plain), sbr+wgrad (prologue on x). Sums of fwd+genstats and dgrad+drelu+dbn
 * are checked against a float64 CPU sum of the same GPU outputs (rel_err column; -1 = not checked).
 * Exit 2 on CUDA errors; an unsupported pattern is a row with supported=0 and the reason.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "exec/ex_internal.h"

typedef struct shape { int c, h, w, k, r, stride, pad, oh, ow, count; char name[96]; } shape;

static float bf2f(uint16_t v)
{
	uint32_t u = (uint32_t)v << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* max over channels of |gpu - cpu| / (max |cpu| over channels), with the CPU sums in float64 */
static double check_sums(const float *dsum, int k, const double *ref)
{
	float *h = xmalloc(k * sizeof(float));
	double mx = 0, err = 0;
	int i;
	CUDA_CHECK(cudaMemcpy(h, dsum, k * sizeof(float), cudaMemcpyDeviceToHost));
	for (i = 0; i < k; i++)
		if (fabs(ref[i]) > mx)
			mx = fabs(ref[i]);
	for (i = 0; i < k; i++)
		if (fabs(h[i] - ref[i]) > err)
			err = fabs(h[i] - ref[i]);
	free(h);
	return mx > 0 ? err / mx : err;
}

static uint16_t *to_host(const void *d, size_t n)
{
	uint16_t *h = xmalloc(n * 2);
	CUDA_CHECK(cudaMemcpy(h, d, n * 2, cudaMemcpyDeviceToHost));
	return h;
}

static void row(const shape *s, const char *pat, const ex_gplan *p, int rc, float legacy_ms, double err)
{
	printf("%s,%d,%d,%d,%d,%d,%d,%d,%s,%d,%.4f,%.4f,%.3f,%zu,%d,%d,%.2e,\"%s\"\n", s->name, s->count, s->c, s->h, s->k,
	       s->r, s->stride, s->oh, pat, rc == 0, rc == 0 ? p->ms : -1.f, legacy_ms,
	       rc == 0 && legacy_ms > 0 ? legacy_ms / p->ms : 0.f, rc == 0 ? p->ws_B : 0, p->tried, rc == 0 ? p->heur_mode : -1,
	       err, rc == 0 ? "" : p->why);
	fflush(stdout);
}

/* --batch, --tries and --shape C,H,K,R,STRIDE,PAD (into sh[], *ns of them). 0, or 1 with a message. */
static int parse_args(int argc, char **argv, int *batch, int *tries, shape *sh, int *ns)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--batch") && i + 1 < argc)
			*batch = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--tries") && i + 1 < argc)
			*tries = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--shape") && i + 1 < argc && *ns < 64) {
			shape *s = &sh[*ns];
			memset(s, 0, sizeof(*s));
			if (sscanf(argv[++i], "%d,%d,%d,%d,%d,%d", &s->c, &s->h, &s->k, &s->r, &s->stride, &s->pad) != 6 ||
			    s->c < 1 || s->h < s->r || s->k < 1 || s->r < 1 || s->stride < 1 || s->pad < 0) {
				fprintf(stderr, "scaleplan-fuseprobe: --shape: expected C,H,K,R,STRIDE,PAD, got '%s'\n", argv[i]);
				return 1;
			}
			s->w = s->h;
			s->oh = s->ow = (s->h + 2 * s->pad - s->r) / s->stride + 1;
			s->count = 1;
			snprintf(s->name, sizeof(s->name), "c%d_h%d_k%d_r%d_s%d", s->c, s->h, s->k, s->r, s->stride);
			(*ns)++;
		}
	}
	return 0;
}

/* The distinct convolutions of ResNet-50 (count: how many layers share the shape) appended to sh[]. */
static void resnet_shapes(const model_net *m, shape *sh, int *ns)
{
	for (int i = 0; i < m->nlayers; i++) {
		const model_layer *l = &m->layers[i];
		int j;
		if (l->op != MODEL_OP_CONV)
			continue;
		for (j = 0; j < *ns; j++)
			if (sh[j].c == l->in_c && sh[j].h == l->in_h && sh[j].k == l->out_c && sh[j].r == l->kernel &&
			    sh[j].stride == l->stride)
				break;
		if (j < *ns) {
			sh[j].count++;
			continue;
		}
		sh[*ns] = (shape){l->in_c, l->in_h, l->in_w, l->out_c, l->kernel, l->stride, l->pad, l->out_h, l->out_w, 1, ""};
		snprintf(sh[*ns].name, sizeof(sh[*ns].name), "%s", l->name);
		(*ns)++;
	}
}

/* One shape's device buffers (bf16 unless said): x, dx, xin (a BN input), yb (a ReLU output) [batch, c, h, w];
 * y, dy [batch, k, oh, ow]; w [k, c, r, r], dw (fp32 room); sc, bi (fp32) and sb16, bb16 [c]; sum, sq (fp32)
 * [max(k, c)]. */
typedef struct bufs {
	size_t nx, ny, nw;
	void *x, *y, *w, *dy, *dx, *dw, *yb, *xin, *sb16, *bb16;
	float *sc, *bi, *sum, *sq;
} bufs;

static void bufs_init(bufs *b, const shape *s, int batch, int i, cudaStream_t st)
{
	int kc = s->k > s->c ? s->k : s->c;
	b->nx = (size_t)batch * s->c * s->h * s->w;
	b->ny = (size_t)batch * s->k * s->oh * s->ow;
	b->nw = (size_t)s->k * s->c * s->r * s->r;
	CUDA_CHECK(cudaMalloc(&b->x, b->nx * 2));
	CUDA_CHECK(cudaMalloc(&b->dx, b->nx * 2));
	CUDA_CHECK(cudaMalloc(&b->xin, b->nx * 2));
	CUDA_CHECK(cudaMalloc(&b->yb, b->nx * 2));
	CUDA_CHECK(cudaMalloc(&b->y, b->ny * 2));
	CUDA_CHECK(cudaMalloc(&b->dy, b->ny * 2));
	CUDA_CHECK(cudaMalloc(&b->w, b->nw * 2));
	CUDA_CHECK(cudaMalloc(&b->dw, b->nw * 4));
	CUDA_CHECK(cudaMalloc((void **)&b->sc, s->c * 4));
	CUDA_CHECK(cudaMalloc((void **)&b->bi, s->c * 4));
	CUDA_CHECK(cudaMalloc(&b->sb16, s->c * 2));
	CUDA_CHECK(cudaMalloc(&b->bb16, s->c * 2));
	CUDA_CHECK(cudaMalloc((void **)&b->sum, kc * 4));
	CUDA_CHECK(cudaMalloc((void **)&b->sq, kc * 4));
	ex_k_fill_normal(EX_BF16, b->x, b->nx, 0.f, 1.f, 11 + i, st);
	ex_k_fill_normal(EX_BF16, b->xin, b->nx, 0.3f, 1.f, 12 + i, st);
	ex_k_fill_normal(EX_BF16, b->yb, b->nx, 0.f, 1.f, 13 + i, st);
	ex_k_fill_normal(EX_BF16, b->w, b->nw, 0.f, 0.05f, 14 + i, st);
	ex_k_fill_normal(EX_BF16, b->dy, b->ny, 0.f, 1.f, 15 + i, st);
	ex_k_fill_normal(EX_F32, b->sc, s->c, 1.f, 0.1f, 16 + i, st);
	ex_k_fill_normal(EX_F32, b->bi, s->c, 0.f, 0.1f, 17 + i, st);
	ex_k_fill_normal(EX_BF16, b->sb16, s->c, 1.f, 0.1f, 18 + i, st);
	ex_k_fill_normal(EX_BF16, b->bb16, s->c, 0.f, 0.1f, 19 + i, st);
	CUDA_CHECK(cudaStreamSynchronize(st));
}

static void bufs_free(bufs *b)
{
	cudaFree(b->x); cudaFree(b->dx); cudaFree(b->xin); cudaFree(b->yb); cudaFree(b->y); cudaFree(b->dy);
	cudaFree(b->w); cudaFree(b->dw); cudaFree(b->sc); cudaFree(b->bi); cudaFree(b->sb16); cudaFree(b->bb16);
	cudaFree(b->sum); cudaFree(b->sq);
}

/* The time of the first successful algorithm cudnnFind*Ex reports (ms), -1 when none. */
#define FIRST_OK(perf, n, out)                                              \
	do {                                                                \
		for (int j_ = 0; j_ < (n); j_++)                            \
			if ((perf)[j_].status == CUDNN_STATUS_SUCCESS) {    \
				*(out) = (perf)[j_].time;                   \
				break;                                      \
			}                                                   \
	} while (0)

/* legacy: the engine's cudnnFind*Ex (best of what Find reports, tensor-op math): forward, data gradient and
 * weight gradient times into lf, ld, lw (ms; -1 when none ran). */
static void legacy_times(cudnnHandle_t h, const shape *s, int batch, const bufs *b, void *ws, size_t ws_max,
			 float *lf, float *ld, float *lw)
{
	cudnnDataType_t bf = CUDNN_DATA_BFLOAT16;
	cudnnTensorDescriptor_t xd, yd;
	cudnnFilterDescriptor_t wd;
	cudnnConvolutionDescriptor_t cd;
	cudnnConvolutionFwdAlgoPerf_t pf[16];
	cudnnConvolutionBwdDataAlgoPerf_t pd[16];
	cudnnConvolutionBwdFilterAlgoPerf_t pw[16];
	int n;
	CUDNN_CHECK(cudnnCreateTensorDescriptor(&xd));
	CUDNN_CHECK(cudnnCreateTensorDescriptor(&yd));
	CUDNN_CHECK(cudnnCreateFilterDescriptor(&wd));
	CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&cd));
	CUDNN_CHECK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NHWC, bf, batch, s->c, s->h, s->w));
	CUDNN_CHECK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NHWC, bf, batch, s->k, s->oh, s->ow));
	CUDNN_CHECK(cudnnSetFilter4dDescriptor(wd, bf, CUDNN_TENSOR_NHWC, s->k, s->c, s->r, s->r));
	CUDNN_CHECK(cudnnSetConvolution2dDescriptor(cd, s->pad, s->pad, s->stride, s->stride, 1, 1,
						    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
	CUDNN_CHECK(cudnnSetConvolutionMathType(cd, CUDNN_TENSOR_OP_MATH));
	CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(h, xd, b->x, wd, b->w, cd, yd, b->y, 16, &n, pf, ws, ws_max));
	FIRST_OK(pf, n, lf);
	CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(h, wd, b->w, yd, b->dy, cd, xd, b->dx, 16, &n, pd, ws,
								 ws_max));
	FIRST_OK(pd, n, ld);
	CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, xd, b->x, yd, b->dy, cd, wd, b->dw, 16, &n, pw, ws,
								   ws_max));
	FIRST_OK(pw, n, lw);
	cudnnDestroyTensorDescriptor(xd);
	cudnnDestroyTensorDescriptor(yd);
	cudnnDestroyFilterDescriptor(wd);
	cudnnDestroyConvolutionDescriptor(cd);
}

/* A pattern's graph and the device pointers of its tensors. uids: 1 x, 2 w, 3 y, 4 scale, 5 bias, 6 sum,
 * 7 sqsum, 8 dy, 9 dx, 10 dw, 11 yrelu, 12 xin; 100+ virtual. */
typedef struct pattern {
	ex_gb g;
	const char *name;
	int64_t uids[8];
	void *ptrs[8];
	int nu;
} pattern;

static void bind(pattern *pt, int64_t uid, void *ptr)
{
	pt->uids[pt->nu] = uid;
	pt->ptrs[pt->nu] = ptr;
	pt->nu++;
}

/* The scale, bias and ReLU prologue on x [batch, c, h, w] (intermediates in type it): the graph's input to the
 * convolution; binds x, scale and bias. */
static cudnnBackendDescriptor_t sbr_prologue(pattern *pt, const shape *s, int batch, cudnnDataType_t it, void *x,
					     void *scale, void *bias)
{
	cudnnDataType_t bf = CUDNN_DATA_BFLOAT16;
	ex_gb *g = &pt->g;
	cudnnBackendDescriptor_t tx = ex_gb_tensor(g, 1, bf, batch, s->c, s->h, s->w, false);
	cudnnBackendDescriptor_t tsc = ex_gb_tensor(g, 4, it, 1, s->c, 1, 1, false);
	cudnnBackendDescriptor_t tbi = ex_gb_tensor(g, 5, it, 1, s->c, 1, 1, false);
	cudnnBackendDescriptor_t v1 = ex_gb_tensor(g, 101, it, batch, s->c, s->h, s->w, true);
	cudnnBackendDescriptor_t v2 = ex_gb_tensor(g, 102, it, batch, s->c, s->h, s->w, true);
	cudnnBackendDescriptor_t v3 = ex_gb_tensor(g, 103, bf, batch, s->c, s->h, s->w, true);
	ex_gb_pw(g, CUDNN_POINTWISE_MUL, tx, tsc, v1);
	ex_gb_pw(g, CUDNN_POINTWISE_ADD, v1, tbi, v2);
	ex_gb_pw(g, CUDNN_POINTWISE_RELU_FWD, v2, NULL, v3);
	bind(pt, 1, x);
	bind(pt, 4, scale);
	bind(pt, 5, bias);
	return v3;
}

/* Forward patterns: 0 fwd, 1 fwd + genstats, 2/3 scale/bias/relu prologue + fwd + genstats (fp32 / bf16
 * intermediates). */
static void pattern_fwd(pattern *pt, int pat, const shape *s, int batch, const bufs *b)
{
	cudnnDataType_t bf = CUDNN_DATA_BFLOAT16, f32 = CUDNN_DATA_FLOAT;
	ex_gb *g = &pt->g;
	cudnnBackendDescriptor_t tx;
	if (pat >= 2) {
		tx = sbr_prologue(pt, s, batch, pat == 2 ? f32 : bf, b->x, pat == 2 ? (void *)b->sc : b->sb16,
				  pat == 2 ? (void *)b->bi : b->bb16);
	} else {
		tx = ex_gb_tensor(g, 1, bf, batch, s->c, s->h, s->w, false);
		bind(pt, 1, b->x);
	}
	cudnnBackendDescriptor_t tw = ex_gb_tensor(g, 2, bf, s->k, s->c, s->r, s->r, false);
	cudnnBackendDescriptor_t ty = ex_gb_tensor(g, 3, bf, batch, s->k, s->oh, s->ow, false);
	ex_gb_conv(g, EX_GCONV_FWD, tx, tw, ty, s->pad, s->stride, 0.0);
	bind(pt, 2, b->w);
	bind(pt, 3, b->y);
	pt->name = pat == 0 ? "fwd" : pat == 1 ? "fwd+genstats" : pat == 2 ? "sbr+fwd+genstats/f32" : "sbr+fwd+genstats/bf16";
	if (pat == 0)
		return;
	cudnnBackendDescriptor_t ts = ex_gb_tensor(g, 6, f32, 1, s->k, 1, 1, false);
	cudnnBackendDescriptor_t tq = ex_gb_tensor(g, 7, f32, 1, s->k, 1, 1, false);
	ex_gb_genstats(g, ty, ts, tq);
	bind(pt, 6, b->sum);
	bind(pt, 7, b->sq);
}

/* Data-gradient patterns: 4 dgrad, 5 dgrad + relu backward (mask from the stored ReLU output) + sum(dx'),
 * sum(dx' * xin). */
static void pattern_dgrad(pattern *pt, int pat, const shape *s, int batch, const bufs *b)
{
	cudnnDataType_t bf = CUDNN_DATA_BFLOAT16, f32 = CUDNN_DATA_FLOAT;
	ex_gb *g = &pt->g;
	cudnnBackendDescriptor_t tw = ex_gb_tensor(g, 2, bf, s->k, s->c, s->r, s->r, false);
	cudnnBackendDescriptor_t tdy = ex_gb_tensor(g, 8, bf, batch, s->k, s->oh, s->ow, false);
	cudnnBackendDescriptor_t tdx = ex_gb_tensor(g, 9, bf, batch, s->c, s->h, s->w, false);
	bind(pt, 9, b->dx);
	bind(pt, 2, b->w);
	bind(pt, 8, b->dy);
	if (pat == 4) {
		ex_gb_conv(g, EX_GCONV_DGRAD, tdx, tw, tdy, s->pad, s->stride, 0.0);
		pt->name = "dgrad";
		return;
	}
	cudnnBackendDescriptor_t v1 = ex_gb_tensor(g, 101, f32, batch, s->c, s->h, s->w, true);
	cudnnBackendDescriptor_t tyr = ex_gb_tensor(g, 11, bf, batch, s->c, s->h, s->w, false);
	cudnnBackendDescriptor_t txin = ex_gb_tensor(g, 12, bf, batch, s->c, s->h, s->w, false);
	cudnnBackendDescriptor_t v2 = ex_gb_tensor(g, 102, f32, batch, s->c, s->h, s->w, true);
	cudnnBackendDescriptor_t ts = ex_gb_tensor(g, 6, f32, 1, s->c, 1, 1, false);
	cudnnBackendDescriptor_t tq = ex_gb_tensor(g, 7, f32, 1, s->c, 1, 1, false);
	ex_gb_conv(g, EX_GCONV_DGRAD, v1, tw, tdy, s->pad, s->stride, 0.0);
	ex_gb_pw(g, CUDNN_POINTWISE_RELU_BWD, v1, tyr, tdx);
	ex_gb_reduce_sum(g, tdx, ts);
	ex_gb_pw(g, CUDNN_POINTWISE_MUL, tdx, txin, v2);
	ex_gb_reduce_sum(g, v2, tq);
	pt->name = "dgrad+drelu+dbn";
	bind(pt, 11, b->yb);
	bind(pt, 12, b->xin);
	bind(pt, 6, b->sum);
	bind(pt, 7, b->sq);
}

/* Weight-gradient patterns: 6 wgrad with an fp32 output, 7 wgrad with a bf16 output (what the engine does, then
 * a cast), 8 scale/bias/relu prologue on x + wgrad. */
static void pattern_wgrad(pattern *pt, int pat, const shape *s, int batch, const bufs *b)
{
	cudnnDataType_t bf = CUDNN_DATA_BFLOAT16, f32 = CUDNN_DATA_FLOAT;
	ex_gb *g = &pt->g;
	cudnnBackendDescriptor_t tx;
	if (pat == 8) {
		tx = sbr_prologue(pt, s, batch, f32, b->x, b->sc, b->bi);
	} else {
		tx = ex_gb_tensor(g, 1, bf, batch, s->c, s->h, s->w, false);
		bind(pt, 1, b->x);
	}
	cudnnBackendDescriptor_t tdw = ex_gb_tensor(g, 10, pat == 6 ? f32 : bf, s->k, s->c, s->r, s->r, false);
	cudnnBackendDescriptor_t tdy = ex_gb_tensor(g, 8, bf, batch, s->k, s->oh, s->ow, false);
	ex_gb_conv(g, EX_GCONV_WGRAD, tx, tdw, tdy, s->pad, s->stride, 0.0);
	bind(pt, 10, b->dw);
	bind(pt, 8, b->dy);
	pt->name = pat == 6 ? "wgrad/f32out" : pat == 7 ? "wgrad" : "sbr+wgrad";
}

/* The BN sums of a fused pattern (1: of y and y^2, 5: of dx' and dx' x xin) against float64 sums of the same
 * GPU outputs: the sums poisoned, the plan run once; the larger relative error of the two. */
static double check_pattern(int pat, ex_gplan *p, cudnnHandle_t h, cudaStream_t st, const shape *s, const bufs *b)
{
	int kk = pat == 1 ? s->k : s->c;
	size_t ne = pat == 1 ? b->ny : b->nx;
	double *ref = xcalloc(2 * kk, sizeof(double));
	uint16_t *ho, *hx = NULL;
	float big = 1e30f;
	for (int j = 0; j < kk; j++) {
		CUDA_CHECK(cudaMemcpy(b->sum + j, &big, 4, cudaMemcpyHostToDevice));
		CUDA_CHECK(cudaMemcpy(b->sq + j, &big, 4, cudaMemcpyHostToDevice));
	}
	ex_gplan_run(p, h);
	CUDA_CHECK(cudaStreamSynchronize(st));
	ho = to_host(pat == 1 ? b->y : b->dx, ne);
	if (pat == 5)
		hx = to_host(b->xin, ne);
	for (size_t e = 0; e < ne; e++) {
		double v = bf2f(ho[e]);
		ref[e % kk] += v;
		ref[kk + e % kk] += pat == 1 ? v * v : v * bf2f(hx[e]);
	}
	double err = check_sums(b->sum, kk, ref), e2 = check_sums(b->sq, kk, ref + kk);
	free(ho);
	free(hx);
	free(ref);
	return e2 > err ? e2 : err;
}

/* Every pattern of one shape (3 and 6 left out: bf16 intermediates and fp32 weight gradients were slower in
 * the first probe), one CSV row each. */
static void probe_shape(const shape *s, int i, int batch, int tries, cudnnHandle_t h, cudaStream_t st, void *ws,
			size_t ws_max)
{
	bufs b;
	float lf = -1, ld = -1, lw = -1;
	bufs_init(&b, s, batch, i, st);
	legacy_times(h, s, batch, &b, ws, ws_max, &lf, &ld, &lw);
	for (int pat = 0; pat < 9; pat++) {
		pattern pt = { .name = "" };
		ex_gplan p;
		double err = -1;
		if (pat == 3 || pat == 6)
			continue;
		ex_gb_init(&pt.g);
		if (pat <= 3)
			pattern_fwd(&pt, pat, s, batch, &b);
		else if (pat <= 5)
			pattern_dgrad(&pt, pat, s, batch, &b);
		else
			pattern_wgrad(&pt, pat, s, batch, &b);
		int rc = ex_gplan_build(&pt.g, h, pt.nu, pt.uids, pt.ptrs, ws, ws_max, tries, &p);
		if (rc == 0 && (pat == 1 || pat == 5) && (pat == 1 ? b.ny : b.nx) <= 60000000UL)
			err = check_pattern(pat, &p, h, st, s, &b);
		row(s, pt.name, &p, rc, pat <= 3 ? lf : pat <= 5 ? ld : lw, err);
		ex_gplan_free(&p);
		ex_gb_free(&pt.g);
	}
	bufs_free(&b);
}

int main(int argc, char **argv)
{
	int batch = 256, tries = 6, ns = 0;
	model_net m;
	shape sh[64];
	cudnnHandle_t h;
	cudaStream_t st;
	void *ws;
	size_t ws_max = 1UL << 30;

	if (parse_args(argc, argv, &batch, &tries, sh, &ns))
		return 1;
	if (model_net_resnet50(&m, 1000, 224) < 0)
		return 1;
	if (ns == 0)
		resnet_shapes(&m, sh, &ns);
	CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	CUDNN_CHECK(cudnnCreate(&h));
	CUDNN_CHECK(cudnnSetStream(h, st));
	CUDA_CHECK(cudaMalloc(&ws, ws_max));
	printf("# cudnn %zu, batch %d\n", cudnnGetVersion(), batch);
	printf("layer,count,c,h,k,r,stride,oh,pattern,supported,ms,legacy_ms,speedup,ws_B,tried,heur_mode,rel_err,why\n");
	for (int i = 0; i < ns; i++)
		probe_shape(&sh[i], i, batch, tries, h, st, ws, ws_max);
	CUDA_CHECK(cudaDeviceSynchronize());
	cudnnDestroy(h);
	model_net_free(&m);
	return 0;
}
