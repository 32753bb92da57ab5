/* GPU layer checks of scaleplan-train: every layer type's forward and backward against a CPU
 * double-precision reference on random inputs, in fp32 and bf16 (and the optimizer, loss).
 * Tolerance: relative L2 error ||gpu - ref|| / ||ref|| below 1e-4 (fp32; conv allows TF32 off) and
 * 2e-2 (bf16: inputs rounded to 8 mantissa bits, outputs stored in bf16).
 * Skips (exit 0, saying so) when no GPU is present.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/ex_internal.h"
#include "tests/test.h"

static uint64_t rng = 88172645463325252ULL;
static double urand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (rng >> 11) / 9007199254740992.0 * 2 - 1;
}

static float bf16_round(float f)
{
	unsigned u;
	memcpy(&u, &f, 4);
	u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000u;
	memcpy(&f, &u, 4);
	return f;
}

/* Device buffer of n elements of type t from doubles (rounded like the device); the doubles are
 * replaced by the rounded values so the reference sees the same inputs. */
static void *up(ex_dtype t, double *h, size_t n)
{
	float *f = malloc(n * 4), *d32;
	void *d;
	size_t i;
	for (i = 0; i < n; i++) {
		f[i] = (float)h[i];
		if (t == EX_BF16)
			f[i] = bf16_round(f[i]);
		h[i] = f[i];
	}
	CUDA_CHECK(cudaMalloc((void **)&d32, n * 4));
	CUDA_CHECK(cudaMemcpy(d32, f, n * 4, cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMalloc(&d, n * ex_dtype_size(t)));
	ex_k_cast_f32(t, d, d32, n, 0);
	CUDA_CHECK(cudaDeviceSynchronize());
	cudaFree(d32);
	free(f);
	return d;
}
static double *down(ex_dtype t, const void *d, size_t n)
{
	float *f = malloc(n * 4), *d32;
	double *h = malloc(n * sizeof(double));
	size_t i;
	CUDA_CHECK(cudaMalloc((void **)&d32, n * 4));
	ex_k_to_f32(t, d32, d, n, 0);
	CUDA_CHECK(cudaDeviceSynchronize());
	CUDA_CHECK(cudaMemcpy(f, d32, n * 4, cudaMemcpyDeviceToHost));
	for (i = 0; i < n; i++)
		h[i] = f[i];
	cudaFree(d32);
	free(f);
	return h;
}
static double *rnd(size_t n)
{
	double *h = malloc(n * sizeof(double));
	size_t i;
	for (i = 0; i < n; i++)
		h[i] = urand();
	return h;
}
static double relerr(const double *a, const double *ref, size_t n)
{
	double num = 0, den = 0;
	size_t i;
	for (i = 0; i < n; i++) {
		if (isnan(a[i]))
			return INFINITY;
		num += (a[i] - ref[i]) * (a[i] - ref[i]);
		den += ref[i] * ref[i];
	}
	return sqrt(num / (den > 0 ? den : 1e-300));
}
static const char *tname(ex_dtype t) { return t == EX_BF16 ? "bf16" : "fp32"; }
#define CHECK_ERR(t, what, e, tol) TEST_CHECK(t, (e) <= (tol), "%s: rel L2 %.3e > tol %.1e", what, e, tol)

/* The same convolution through the engine's graph-API plans (exec/ex_graph.c): forward,
 * data gradient (overwrite, then beta = 1 onto a known gradient), weight gradient; outputs poisoned
 * with NaN first so an unwritten element fails. A shape no engine supports is reported, not failed. */
static void test_conv_graph(test_ctx *tc, cudnnHandle_t h, int N, int C, int H, int K, int R, int S, int P, void *dx,
			    void *dw, void *ddy, const double *ry, const double *rdx, const double *rdw, const double *hprior)
{
	int OH = (H + 2 * P - R) / S + 1, k;
	size_t nx = (size_t)N * H * H * C, nw = (size_t)K * R * R * C, ny = (size_t)N * OH * OH * K, i;
	size_t n[3] = {ny, nx, nw};
	static const int64_t uids[3] = {1, 2, 3};
	void *out[3], *ws;
	size_t wsB = 256 << 20;
	CUDA_CHECK(cudaMalloc(&ws, wsB));
	for (k = 0; k < 4; k++) {
		int kind = k < 3 ? k : 1;
		ex_gb g;
		ex_gplan p;
		void *ptrs[3];
		char what[128];
		double *got, *ref = (double *)(kind == 0 ? ry : kind == 1 ? rdx : rdw), *sum = NULL;
		out[kind] = NULL;
		CUDA_CHECK(cudaMalloc(&out[kind], n[kind] * 2));
		CUDA_CHECK(cudaMemset(out[kind], 0xff, n[kind] * 2)); /* bf16 0xffff: NaN */
		ex_gb_init(&g);
		{
			cudnnBackendDescriptor_t tx = ex_gb_tensor(&g, 1, CUDNN_DATA_BFLOAT16, N, C, H, H, false);
			cudnnBackendDescriptor_t tw = ex_gb_tensor(&g, 2, CUDNN_DATA_BFLOAT16, K, C, R, R, false);
			cudnnBackendDescriptor_t ty = ex_gb_tensor(&g, 3, CUDNN_DATA_BFLOAT16, N, K, OH, OH, false);
			ex_gb_conv(&g, kind == 0 ? EX_GCONV_FWD : kind == 1 ? EX_GCONV_DGRAD : EX_GCONV_WGRAD, tx, tw, ty, P, S,
				   k == 3 ? 1.0 : 0.0);
		}
		ptrs[0] = kind == 1 ? out[1] : dx;
		ptrs[1] = kind == 2 ? out[2] : dw;
		ptrs[2] = kind == 0 ? out[0] : ddy;
		snprintf(what, sizeof(what), "graph conv bf16 %s C%d H%d K%d R%d S%d",
			 k == 0 ? "fwd" : k == 1 ? "bwd-data" : k == 2 ? "bwd-filter" : "bwd-data beta=1", C, H, K, R, S);
		if (ex_gplan_build(&g, h, 3, uids, ptrs, ws, wsB, 4, &p) < 0) {
			printf("  %s: not supported here (%s)\n", what, p.why);
			ex_gb_free(&g);
			cudaFree(out[kind]);
			continue;
		}
		if (k == 3) { /* accumulate onto a known gradient: expect prior + dgrad */
			void *pr = up(EX_BF16, (double *)hprior, nx);
			CUDA_CHECK(cudaMemcpy(out[1], pr, nx * 2, cudaMemcpyDeviceToDevice));
			cudaFree(pr);
			sum = malloc(nx * sizeof(double));
			for (i = 0; i < nx; i++)
				sum[i] = bf16_round((float)hprior[i]) + rdx[i];
			ref = sum;
		} else {
			CUDA_CHECK(cudaMemset(out[kind], 0xff, n[kind] * 2));
		}
		ex_gplan_run(&p, h);
		CUDA_CHECK(cudaDeviceSynchronize());
		got = down(EX_BF16, out[kind], n[kind]);
		CHECK_ERR(tc, what, relerr(got, ref, n[kind]), 2e-2);
		free(got);
		free(sum);
		ex_gplan_free(&p);
		ex_gb_free(&g);
		cudaFree(out[kind]);
	}
	cudaFree(ws);
}

/* cuDNN descriptors of an NHWC convolution: N x C x H x H in, K filters R x R, stride S, padding P. */
typedef struct conv_descs {
	cudnnTensorDescriptor_t xd, yd;
	cudnnFilterDescriptor_t wd;
	cudnnConvolutionDescriptor_t cd;
} conv_descs;

static conv_descs conv_descs_make(ex_dtype t, int N, int C, int H, int K, int R, int S, int P)
{
	conv_descs d;
	cudnnDataType_t dt = t == EX_BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
	int OH = (H + 2 * P - R) / S + 1;
	CUDNN_CHECK(cudnnCreateTensorDescriptor(&d.xd));
	CUDNN_CHECK(cudnnCreateTensorDescriptor(&d.yd));
	CUDNN_CHECK(cudnnCreateFilterDescriptor(&d.wd));
	CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&d.cd));
	CUDNN_CHECK(cudnnSetTensor4dDescriptor(d.xd, CUDNN_TENSOR_NHWC, dt, N, C, H, H));
	CUDNN_CHECK(cudnnSetTensor4dDescriptor(d.yd, CUDNN_TENSOR_NHWC, dt, N, K, OH, OH));
	CUDNN_CHECK(cudnnSetFilter4dDescriptor(d.wd, dt, CUDNN_TENSOR_NHWC, K, C, R, R));
	CUDNN_CHECK(cudnnSetConvolution2dDescriptor(d.cd, P, P, S, S, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
	CUDNN_CHECK(cudnnSetConvolutionMathType(d.cd, t == EX_BF16 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));
	return d;
}

static void conv_descs_free(conv_descs *d)
{
	cudnnDestroyTensorDescriptor(d->xd);
	cudnnDestroyTensorDescriptor(d->yd);
	cudnnDestroyFilterDescriptor(d->wd);
	cudnnDestroyConvolutionDescriptor(d->cd);
}

/* conv NHWC via cuDNN: forward, backward data, backward filter */
static void test_conv(test_ctx *tc, cudnnHandle_t h, ex_dtype t, int N, int C, int H, int K, int R, int S, int P)
{
	int OH = (H + 2 * P - R) / S + 1, n, c, y, x, k, r, s;
	size_t nx = (size_t)N * H * H * C, nw = (size_t)K * R * R * C, ny = (size_t)N * OH * OH * K;
	double *hx = rnd(nx), *hw = rnd(nw), *hdy = rnd(ny);
	double *ry = calloc(ny, 8), *rdx = calloc(nx, 8), *rdw = calloc(nw, 8);
	void *dx = up(t, hx, nx), *dw = up(t, hw, nw), *ddy = up(t, hdy, ny), *dy, *ddx, *ddw, *ws;
	const float one = 1, zero = 0;
	double tol = t == EX_BF16 ? 2e-2 : 1e-4, *g;
	char what[128];
	int got;
	cudnnConvolutionFwdAlgoPerf_t pf;
	cudnnConvolutionBwdDataAlgoPerf_t pd;
	cudnnConvolutionBwdFilterAlgoPerf_t pw;
	size_t wsB = 256 << 20;

	CUDA_CHECK(cudaMalloc(&dy, ny * 4));
	CUDA_CHECK(cudaMalloc(&ddx, nx * 4));
	CUDA_CHECK(cudaMalloc(&ddw, nw * 4));
	CUDA_CHECK(cudaMalloc(&ws, wsB));
	conv_descs d = conv_descs_make(t, N, C, H, K, R, S, P);
	CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(h, d.xd, dx, d.wd, dw, d.cd, d.yd, dy, 1, &got, &pf, ws, wsB));
	CUDNN_CHECK(cudnnConvolutionForward(h, &one, d.xd, dx, d.wd, dw, d.cd, pf.algo, ws, wsB, &zero, d.yd, dy));
	CUDNN_CHECK(cudnnFindConvolutionBackwardDataAlgorithmEx(h, d.wd, dw, d.yd, ddy, d.cd, d.xd, ddx, 1, &got, &pd, ws, wsB));
	CUDNN_CHECK(cudnnConvolutionBackwardData(h, &one, d.wd, dw, d.yd, ddy, d.cd, pd.algo, ws, wsB, &zero, d.xd, ddx));
	CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, d.xd, dx, d.yd, ddy, d.cd, d.wd, ddw, 1, &got, &pw, ws, wsB));
	CUDNN_CHECK(cudnnConvolutionBackwardFilter(h, &one, d.xd, dx, d.yd, ddy, d.cd, pw.algo, ws, wsB, &zero, d.wd, ddw));
	for (n = 0; n < N; n++)
		for (y = 0; y < OH; y++)
			for (x = 0; x < OH; x++)
				for (k = 0; k < K; k++) {
					double a = 0;
					size_t o = (((size_t)n * OH + y) * OH + x) * K + k;
					for (r = 0; r < R; r++)
						for (s = 0; s < R; s++) {
							int iy = y * S - P + r, ix = x * S - P + s;
							if (iy < 0 || iy >= H || ix < 0 || ix >= H)
								continue;
							for (c = 0; c < C; c++) {
								size_t xi = (((size_t)n * H + iy) * H + ix) * C + c;
								size_t wi = (((size_t)k * R + r) * R + s) * C + c;
								a += hx[xi] * hw[wi];
								rdx[xi] += hdy[o] * hw[wi];
								rdw[wi] += hdy[o] * hx[xi];
							}
						}
					ry[o] = a;
				}
	g = down(t, dy, ny);
	snprintf(what, sizeof(what), "conv %s fwd C%d H%d K%d R%d S%d", tname(t), C, H, K, R, S);
	CHECK_ERR(tc, what, relerr(g, ry, ny), tol);
	free(g);
	g = down(t, ddx, nx);
	snprintf(what, sizeof(what), "conv %s bwd-data C%d H%d K%d R%d S%d", tname(t), C, H, K, R, S);
	CHECK_ERR(tc, what, relerr(g, rdx, nx), tol);
	free(g);
	g = down(t, ddw, nw);
	snprintf(what, sizeof(what), "conv %s bwd-filter C%d H%d K%d R%d S%d", tname(t), C, H, K, R, S);
	CHECK_ERR(tc, what, relerr(g, rdw, nw), tol);
	free(g);
	if (t == EX_BF16)
		test_conv_graph(tc, h, N, C, H, K, R, S, P, dx, dw, ddy, ry, rdx, rdw, hx);
	conv_descs_free(&d);
	cudaFree(dx); cudaFree(dw); cudaFree(ddy); cudaFree(dy); cudaFree(ddx); cudaFree(ddw); cudaFree(ws);
	free(hx); free(hw); free(hdy); free(ry); free(rdx); free(rdw);
}

/* BN (training statistics) + residual add + ReLU, forward and backward; then inference mode. */
/* zfold: z is given raw with a folded BN's coefficients (z_bn_f), the reference adds z x zs + zh. */
static void test_bn(test_ctx *tc, ex_dtype t, long M, int C, bool with_z, bool relu, bool zfold)
{
	size_t n = (size_t)M * C, i;
	double *hx = rnd(n), *hz = rnd(n), *hdy = rnd(n), *hg = rnd(C), *hb = rnd(C);
	double *ry = malloc(n * 8), *rdx = malloc(n * 8), *rdz = malloc(n * 8), *rdg = calloc(C, 8), *rdb = calloc(C, 8);
	double *mean = calloc(C, 8), *var = calloc(C, 8), *xh = malloc(n * 8), *gm = malloc(n * 8);
	double tol = t == EX_BF16 ? 2e-2 : 1e-4, *o;
	float *fg, *fb, *rm, *rv, *dg, *db, *bnf, h1[2] = {0, 1}, *zbnf = NULL, *zs = calloc(C, 4), *zh = calloc(C, 4);
	double *bnd;
	uint8_t *mask; /* the ReLU bits, as the engine keeps them for a residual block */
	void *dx, *dz, *dy, *ddy, *ddx, *ddz;
	char what[128];
	int c;

	for (i = 0; i < n; i++)
		hx[i] = hx[i] * 3 + 0.5; /* non-zero mean */
	dx = up(t, hx, n);
	dz = up(t, hz, n);
	ddy = up(t, hdy, n);
	for (c = 0; c < C; c++) {
		hg[c] = (float)hg[c];
		hb[c] = (float)hb[c];
	}
	CUDA_CHECK(cudaMalloc(&dy, n * 4));
	CUDA_CHECK(cudaMalloc(&ddx, n * 4));
	CUDA_CHECK(cudaMalloc(&ddz, n * 4));
	CUDA_CHECK(cudaMalloc((void **)&fg, C * 4));
	CUDA_CHECK(cudaMalloc((void **)&fb, C * 4));
	CUDA_CHECK(cudaMalloc((void **)&rm, C * 4));
	CUDA_CHECK(cudaMalloc((void **)&rv, C * 4));
	CUDA_CHECK(cudaMalloc((void **)&dg, C * 4));
	CUDA_CHECK(cudaMalloc((void **)&db, C * 4));
	CUDA_CHECK(cudaMalloc((void **)&bnf, EX_BN_F_FLOATS(C) * 4));
	CUDA_CHECK(cudaMalloc((void **)&bnd, EX_BN_D_DOUBLES(C) * 8));
	CUDA_CHECK(cudaMemset(bnd, 0, EX_BN_D_DOUBLES(C) * 8)); /* zero when first used */
	CUDA_CHECK(cudaMalloc((void **)&mask, n / 8));
	{
		float *tmp = malloc(C * 4);
		for (c = 0; c < C; c++) tmp[c] = (float)hg[c];
		cudaMemcpy(fg, tmp, C * 4, cudaMemcpyHostToDevice);
		for (c = 0; c < C; c++) tmp[c] = (float)hb[c];
		cudaMemcpy(fb, tmp, C * 4, cudaMemcpyHostToDevice);
		for (c = 0; c < C; c++) tmp[c] = h1[0];
		cudaMemcpy(rm, tmp, C * 4, cudaMemcpyHostToDevice);
		for (c = 0; c < C; c++) tmp[c] = h1[1];
		cudaMemcpy(rv, tmp, C * 4, cudaMemcpyHostToDevice);
		free(tmp);
	}
	if (zfold) { /* the folded BN's scale and shift at zbnf + 2C, + 3C (bn_f layout) */
		float *tmp = calloc(EX_BN_F_FLOATS(C), 4);
		for (c = 0; c < C; c++) {
			zs[c] = tmp[2 * C + c] = (float)(urand() * 1.5);
			zh[c] = tmp[3 * C + c] = (float)(urand() * 0.5);
		}
		CUDA_CHECK(cudaMalloc((void **)&zbnf, EX_BN_F_FLOATS(C) * 4));
		CUDA_CHECK(cudaMemcpy(zbnf, tmp, EX_BN_F_FLOATS(C) * 4, cudaMemcpyHostToDevice));
		free(tmp);
	}
	ex_k_bn_fwd_train(t, dx, with_z ? dz : NULL, zbnf, dy, M, C, fg, fb, rm, rv, 0.1f, 1e-5f, relu, bnf, bnd,
			  with_z && relu ? mask : NULL, 0);
	/* dz pre-filled with dy-independent data to test accumulation */
	ex_k_bn_bwd(t, dx, with_z && relu ? mask : NULL, ddy, ddx, with_z ? ddz : NULL, false, relu, M, C, fg, dg, db,
		    bnf, bnd, 0);
	CUDA_CHECK(cudaDeviceSynchronize());
	/* reference */
	for (i = 0; i < n; i++)
		mean[i % C] += hx[i] / M;
	for (i = 0; i < n; i++)
		var[i % C] += (hx[i] - mean[i % C]) * (hx[i] - mean[i % C]) / M;
	for (i = 0; i < n; i++) {
		c = (int)(i % C);
		xh[i] = (hx[i] - mean[c]) / sqrt(var[c] + 1e-5);
		ry[i] = xh[i] * hg[c] + hb[c] + (with_z ? (zfold ? hz[i] * zs[c] + zh[c] : hz[i]) : 0);
		if (relu && ry[i] < 0)
			ry[i] = 0;
	}
	o = down(t, dy, n);
	for (i = 0; i < n; i++) { /* the mask must follow the device's output (ties at 0) */
		gm[i] = hdy[i];
		if (relu && o[i] <= 0)
			gm[i] = 0;
		rdb[i % C] += gm[i];
		rdg[i % C] += gm[i] * xh[i];
	}
	for (i = 0; i < n; i++) {
		c = (int)(i % C);
		rdx[i] = hg[c] / sqrt(var[c] + 1e-5) * (gm[i] - rdb[c] / M - xh[i] * rdg[c] / M);
		rdz[i] = gm[i];
	}
	snprintf(what, sizeof(what), "bn %s fwd M%ld C%d z%d%s relu%d", tname(t), M, C, with_z, zfold ? " (folded BN)" : "", relu);
	CHECK_ERR(tc, what, relerr(o, ry, n), tol);
	free(o);
	o = down(t, ddx, n);
	snprintf(what, sizeof(what), "bn %s bwd dx M%ld C%d z%d relu%d", tname(t), M, C, with_z, relu);
	CHECK_ERR(tc, what, relerr(o, rdx, n), tol * 3);
	free(o);
	if (with_z) {
		o = down(t, ddz, n);
		snprintf(what, sizeof(what), "bn %s bwd dz M%ld C%d", tname(t), M, C);
		CHECK_ERR(tc, what, relerr(o, rdz, n), tol);
		free(o);
	}
	{
		float *f = malloc(C * 4);
		double *d = malloc(C * 8);
		cudaMemcpy(f, dg, C * 4, cudaMemcpyDeviceToHost);
		for (c = 0; c < C; c++) d[c] = f[c];
		snprintf(what, sizeof(what), "bn %s dgamma", tname(t));
		CHECK_ERR(tc, what, relerr(d, rdg, C), tol);
		cudaMemcpy(f, db, C * 4, cudaMemcpyDeviceToHost);
		for (c = 0; c < C; c++) d[c] = f[c];
		snprintf(what, sizeof(what), "bn %s dbeta", tname(t));
		CHECK_ERR(tc, what, relerr(d, rdb, C), tol);
		/* running stats: 0.9*0 + 0.1*mean, 0.9*1 + 0.1*unbiased var */
		cudaMemcpy(f, rv, C * 4, cudaMemcpyDeviceToHost);
		for (c = 0; c < C; c++) d[c] = f[c];
		double *rrv = malloc(C * 8);
		for (c = 0; c < C; c++) rrv[c] = 0.9 + 0.1 * var[c] * M / (M - 1);
		snprintf(what, sizeof(what), "bn %s running var", tname(t));
		CHECK_ERR(tc, what, relerr(d, rrv, C), t == EX_BF16 ? 1e-2 : 1e-5);
		/* inference mode with those running statistics */
		cudaMemcpy(f, rm, C * 4, cudaMemcpyDeviceToHost);
		ex_k_bn_fwd_eval(t, dx, with_z ? dz : NULL, zbnf, dy, M, C, fg, fb, rm, rv, 1e-5f, relu, bnf, 0);
		CUDA_CHECK(cudaDeviceSynchronize());
		for (i = 0; i < n; i++) {
			c = (int)(i % C);
			ry[i] = (hx[i] - f[c]) / sqrt(rrv[c] + 1e-5) * hg[c] + hb[c] +
				(with_z ? (zfold ? hz[i] * zs[c] + zh[c] : hz[i]) : 0);
			if (relu && ry[i] < 0)
				ry[i] = 0;
		}
		o = down(t, dy, n);
		snprintf(what, sizeof(what), "bn %s inference", tname(t));
		CHECK_ERR(tc, what, relerr(o, ry, n), tol);
		free(o);
		free(rrv);
		free(f);
		free(d);
	}
	cudaFree(dx); cudaFree(dz); cudaFree(ddy); cudaFree(dy); cudaFree(ddx); cudaFree(ddz);
	cudaFree(fg); cudaFree(fb); cudaFree(rm); cudaFree(rv); cudaFree(dg); cudaFree(db); cudaFree(bnf); cudaFree(bnd); cudaFree(mask);
	free(hx); free(hz); free(hdy); free(hg); free(hb); free(ry); free(rdx); free(rdz); free(rdg); free(rdb);
	free(mean); free(var); free(xh); free(gm); free(zs); free(zh);
	cudaFree(zbnf);
}

/* Max pooling against float64, then global average pooling. folded: with a batch norm + ReLU folded in
 * (the stem): the pool applies per-channel scale and shift (bn_f layout) and the ReLU as it
 * loads, rounding as a stored BN output would be; its backward routing is then checked. */
static void test_pool(test_ctx *tc, ex_dtype t, bool folded)
{
	int N = 2, H = 9, C = 16, K = 3, S = 2, P = 1, OH = (H + 2 * P - K) / S + 1, n, y, x, c, r, s;
	size_t nx = (size_t)N * H * H * C, ny = (size_t)N * OH * OH * C, i;
	double *hx = rnd(nx), *hdy = rnd(ny), *ry = malloc(ny * 8), *rdx = calloc(nx, 8), *o;
	float *hf = calloc(7 * (size_t)C, 4), *bn_f = NULL;
	double tol = t == EX_BF16 ? 1e-2 : 1e-6;
	void *dx = up(t, hx, nx), *ddy = up(t, hdy, ny), *dy, *ddx;
	const char *tag = folded ? "maxpool+bn+relu" : "maxpool";
	uint8_t *am;
	char what[64];
	if (folded) {
		for (c = 0; c < C; c++) {
			hf[2 * C + c] = (float)urand() * 2; /* scale, negative for some channels */
			hf[3 * C + c] = (float)urand() * 0.5f;
		}
		CUDA_CHECK(cudaMalloc((void **)&bn_f, 7 * (size_t)C * 4));
		CUDA_CHECK(cudaMemcpy(bn_f, hf, 7 * (size_t)C * 4, cudaMemcpyHostToDevice));
	}
	CUDA_CHECK(cudaMalloc(&dy, ny * 4));
	CUDA_CHECK(cudaMalloc(&ddx, nx * 4));
	CUDA_CHECK(cudaMalloc((void **)&am, ny));
	ex_k_maxpool_fwd(t, dx, bn_f, folded, dy, am, N, H, H, C, OH, OH, K, S, P, 0);
	ex_k_maxpool_bwd(t, ddy, am, ddx, N, H, H, C, OH, OH, K, S, P, false, 0);
	CUDA_CHECK(cudaDeviceSynchronize());
	for (n = 0; n < N; n++)
		for (y = 0; y < OH; y++)
			for (x = 0; x < OH; x++)
				for (c = 0; c < C; c++) {
					double best = -INFINITY, v;
					size_t bi = 0, oi = (((size_t)n * OH + y) * OH + x) * C + c;
					for (r = 0; r < K; r++)
						for (s = 0; s < K; s++) {
							int iy = y * S - P + r, ix = x * S - P + s;
							size_t xi;
							if (iy < 0 || iy >= H || ix < 0 || ix >= H)
								continue;
							xi = (((size_t)n * H + iy) * H + ix) * C + c;
							v = hx[xi];
							if (folded) {
								float f = fmaxf((float)hx[xi] * hf[2 * C + c] + hf[3 * C + c], 0.f);
								v = t == EX_BF16 ? bf16_round(f) : f;
							}
							if (v > best) { best = v; bi = xi; }
						}
					ry[oi] = best;
					rdx[bi] += hdy[oi];
				}
	o = down(t, dy, ny);
	snprintf(what, sizeof(what), "%s %s fwd", tag, tname(t));
	CHECK_ERR(tc, what, relerr(o, ry, ny), tol);
	free(o);
	o = down(t, ddx, nx);
	snprintf(what, sizeof(what), "%s %s bwd%s", tag, tname(t), folded ? " routing" : "");
	CHECK_ERR(tc, what, relerr(o, rdx, nx), tol);
	free(o);
	if (!folded) { /* global average pool */
		ex_k_avgpool_fwd(t, dx, dy, N, H * H, C, 0);
		ex_k_avgpool_bwd(t, ddy, ddx, N, H * H, C, false, 0);
		CUDA_CHECK(cudaDeviceSynchronize());
		for (i = 0; i < (size_t)N * C; i++)
			ry[i] = 0;
		for (i = 0; i < nx; i++) {
			size_t b = i / ((size_t)H * H * C);
			ry[b * C + i % C] += hx[i] / (H * H);
			rdx[i] = hdy[b * C + i % C] / (H * H);
		}
		o = down(t, dy, (size_t)N * C);
		snprintf(what, sizeof(what), "avgpool %s fwd", tname(t));
		CHECK_ERR(tc, what, relerr(o, ry, (size_t)N * C), tol);
		free(o);
		o = down(t, ddx, nx);
		snprintf(what, sizeof(what), "avgpool %s bwd", tname(t));
		CHECK_ERR(tc, what, relerr(o, rdx, nx), tol);
		free(o);
		ex_k_avgpool_bwd(t, ddy, ddx, N, H * H, C, true, 0); /* accumulating: twice the gradient */
		for (i = 0; i < nx; i++)
			rdx[i] *= 2;
		o = down(t, ddx, nx);
		snprintf(what, sizeof(what), "avgpool %s bwd accumulate", tname(t));
		CHECK_ERR(tc, what, relerr(o, rdx, nx), tol);
		free(o);
	}
	cudaFree(dx); cudaFree(ddy); cudaFree(dy); cudaFree(ddx); cudaFree(am); cudaFree(bn_f);
	free(hx); free(hdy); free(ry); free(rdx); free(hf);
}

/* ex_k_bn_bwd_pooled (the stem's BN + ReLU folded into the max pooling, its backward gathering dy from the
 * pooling's gradient) against the two passes it replaces - the pooling backward storing dy, then
 * the BN backward (each checked against float64 in test_pool and test_bn) - on the statistics of a real
 * forward: dx, dgamma, dbeta. Large shapes make the kernels' grid-stride loops go round. */
static void test_bn_bwd_pooled(test_ctx *tc, ex_dtype t, int N, int H, int C)
{
	int K = 3, S = 2, P = 1, OH = (H + 2 * P - K) / S + 1, v;
	long M = (long)N * H * H;
	size_t nx = (size_t)M * C, ny = (size_t)N * OH * OH * C, esz = ex_dtype_size(t);
	double *hx = rnd(nx), *hdy = rnd(ny), *hp = rnd(2 * (size_t)C), *a, *b;
	void *x = up(t, hx, nx), *dy = up(t, hdy, ny), *y, *gpool, *dx[2];
	float *par, *grad[2], *f[2], *rm, *rv;
	double *d;
	uint8_t *am;
	double tol = t == EX_BF16 ? 1e-3 : 1e-5;
	char what[96];
	CUDA_CHECK(cudaMalloc((void **)&par, 2 * (size_t)C * 4)); /* gamma, beta */
	{
		float *tmp = malloc(2 * (size_t)C * 4);
		for (size_t i = 0; i < 2 * (size_t)C; i++)
			tmp[i] = (float)hp[i];
		CUDA_CHECK(cudaMemcpy(par, tmp, 2 * (size_t)C * 4, cudaMemcpyHostToDevice));
		free(tmp);
	}
	CUDA_CHECK(cudaMalloc((void **)&rm, C * 4));
	CUDA_CHECK(cudaMalloc((void **)&rv, C * 4));
	CUDA_CHECK(cudaMalloc((void **)&d, EX_BN_D_DOUBLES(C) * 8));
	CUDA_CHECK(cudaMemset(d, 0, EX_BN_D_DOUBLES(C) * 8)); /* zero when first used */
	CUDA_CHECK(cudaMalloc(&y, ny * esz));
	CUDA_CHECK(cudaMalloc(&gpool, nx * esz));
	CUDA_CHECK(cudaMalloc((void **)&am, ny));
	for (v = 0; v < 2; v++) { /* v 0: the separate passes, 1: ex_k_bn_bwd_pooled */
		CUDA_CHECK(cudaMalloc((void **)&f[v], EX_BN_F_FLOATS(C) * 4));
		CUDA_CHECK(cudaMalloc((void **)&grad[v], 2 * (size_t)C * 4));
		CUDA_CHECK(cudaMalloc(&dx[v], nx * esz));
	}
	/* the folded forward: statistics only (no output), then the pooling applying them */
	ex_k_bn_fwd_train(t, x, NULL, NULL, NULL, M, C, par, par + C, rm, rv, 0.1f, 1e-5f, true, f[0], d, NULL, 0);
	ex_k_maxpool_fwd(t, x, f[0], true, y, am, N, H, H, C, OH, OH, K, S, P, 0);
	CUDA_CHECK(cudaMemcpy(f[1], f[0], EX_BN_F_FLOATS(C) * 4, cudaMemcpyDeviceToDevice));
	ex_k_maxpool_bwd(t, dy, am, gpool, N, H, H, C, OH, OH, K, S, P, false, 0);
	ex_k_bn_bwd(t, x, NULL, gpool, dx[0], NULL, false, true, M, C, par, grad[0], grad[0] + C, f[0], d, 0);
	{
		ex_bn_grads g = {par, grad[1], grad[1] + C, f[1], d};
		CUDA_CHECK(cudaMemset(dx[1], 0xff, nx * esz)); /* NaN: every element must be written */
		ex_k_bn_bwd_pooled(t, x, dy, am, dx[1], N, H, H, C, OH, OH, K, S, P, true, &g, 0);
	}
	CUDA_CHECK(cudaDeviceSynchronize());
	a = down(t, dx[0], nx);
	b = down(t, dx[1], nx);
	snprintf(what, sizeof(what), "bn bwd pooled %s dx N%d H%d C%d", tname(t), N, H, C);
	CHECK_ERR(tc, what, relerr(b, a, nx), tol);
	free(a);
	free(b);
	a = down(EX_F32, grad[0], 2 * (size_t)C);
	b = down(EX_F32, grad[1], 2 * (size_t)C);
	snprintf(what, sizeof(what), "bn bwd pooled %s dgamma/dbeta N%d H%d C%d", tname(t), N, H, C);
	CHECK_ERR(tc, what, relerr(b, a, 2 * (size_t)C), tol);
	free(a);
	free(b);
	for (v = 0; v < 2; v++) {
		cudaFree(f[v]); cudaFree(grad[v]); cudaFree(dx[v]);
	}
	cudaFree(x); cudaFree(dy); cudaFree(y); cudaFree(gpool); cudaFree(am); cudaFree(par); cudaFree(rm); cudaFree(rv);
	cudaFree(d);
	free(hx); free(hdy); free(hp);
}

/* ex_k_bn_bwd2 (a downsampling block with its second BN folded) against the two separate backward
 * passes it replaces (the outer BN writing dz, the folded BN reading it), each of those checked against
 * float64 in test_bn: dx of both inputs, dgamma and dbeta of both BNs. */
static void test_bn_bwd2(test_ctx *tc, ex_dtype t, long M, int C)
{
	size_t n = (size_t)M * C, i;
	double *hx1 = rnd(n), *hx2 = rnd(n), *hdy = rnd(n), *hp = rnd(4 * (size_t)C), *a, *b;
	void *x1 = up(t, hx1, n), *x2 = up(t, hx2, n), *dy = up(t, hdy, n), *y, *dxa[2], *dxb[2], *dz;
	float *par, *grad[2], *f[2][2], *rm, *rv;
	double *d[2][2];
	uint8_t *mask, *hm = malloc(n / 8);
	double tol = t == EX_BF16 ? 2e-2 : 1e-5;
	size_t esz = ex_dtype_size(t);
	char what[96];
	int k, v;
	for (i = 0; i < n / 8; i++)
		hm[i] = (uint8_t)((urand() + 1) * 127.9);
	CUDA_CHECK(cudaMalloc((void **)&mask, n / 8));
	CUDA_CHECK(cudaMemcpy(mask, hm, n / 8, cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMalloc((void **)&par, 4 * (size_t)C * 4)); /* gamma1, beta1, gamma2, beta2 */
	{
		float *tmp = malloc(4 * (size_t)C * 4);
		for (i = 0; i < 4 * (size_t)C; i++)
			tmp[i] = (float)hp[i];
		CUDA_CHECK(cudaMemcpy(par, tmp, 4 * (size_t)C * 4, cudaMemcpyHostToDevice));
		free(tmp);
	}
	CUDA_CHECK(cudaMalloc((void **)&rm, C * 4));
	CUDA_CHECK(cudaMalloc((void **)&rv, C * 4));
	CUDA_CHECK(cudaMalloc(&y, n * esz));
	CUDA_CHECK(cudaMalloc(&dz, n * esz));
	for (v = 0; v < 2; v++) { /* v 0: the separate passes, 1: ex_k_bn_bwd2 */
		CUDA_CHECK(cudaMalloc((void **)&grad[v], 4 * (size_t)C * 4));
		CUDA_CHECK(cudaMalloc(&dxa[v], n * esz));
		CUDA_CHECK(cudaMalloc(&dxb[v], n * esz));
		for (k = 0; k < 2; k++) {
			CUDA_CHECK(cudaMalloc((void **)&f[v][k], EX_BN_F_FLOATS(C) * 4));
			CUDA_CHECK(cudaMalloc((void **)&d[v][k], EX_BN_D_DOUBLES(C) * 8));
			CUDA_CHECK(cudaMemset(d[v][k], 0, EX_BN_D_DOUBLES(C) * 8)); /* zero when first used */
			/* the forward's statistics of BN k into bn_f */
			ex_k_bn_fwd_train(t, k ? x2 : x1, NULL, NULL, y, M, C, par + 2 * k * C, par + (2 * k + 1) * C, rm, rv,
					  0.1f, 1e-5f, false, f[v][k], d[v][k], NULL, 0);
		}
	}
	ex_k_bn_bwd(t, x1, mask, dy, dxa[0], dz, false, true, M, C, par, grad[0], grad[0] + C, f[0][0], d[0][0], 0);
	ex_k_bn_bwd(t, x2, NULL, dz, dxb[0], NULL, false, false, M, C, par + 2 * C, grad[0] + 2 * C, grad[0] + 3 * C,
		    f[0][1], d[0][1], 0);
	{
		ex_bn_grads g1 = {par, grad[1], grad[1] + C, f[1][0], d[1][0]};
		ex_bn_grads g2 = {par + 2 * C, grad[1] + 2 * C, grad[1] + 3 * C, f[1][1], d[1][1]};
		ex_k_bn_bwd2(t, x1, x2, mask, dy, dxa[1], dxb[1], M, C, &g1, &g2, 0);
	}
	CUDA_CHECK(cudaDeviceSynchronize());
	for (k = 0; k < 2; k++) {
		a = down(t, k ? dxb[0] : dxa[0], n);
		b = down(t, k ? dxb[1] : dxa[1], n);
		snprintf(what, sizeof(what), "bn bwd2 %s dx%d M%ld C%d", tname(t), k + 1, M, C);
		CHECK_ERR(tc, what, relerr(b, a, n), tol);
		free(a);
		free(b);
	}
	a = down(EX_F32, grad[0], 4 * (size_t)C);
	b = down(EX_F32, grad[1], 4 * (size_t)C);
	snprintf(what, sizeof(what), "bn bwd2 %s dgamma/dbeta of both M%ld C%d", tname(t), M, C);
	CHECK_ERR(tc, what, relerr(b, a, 4 * (size_t)C), tol);
	free(a);
	free(b);
	for (v = 0; v < 2; v++) {
		cudaFree(grad[v]); cudaFree(dxa[v]); cudaFree(dxb[v]);
		for (k = 0; k < 2; k++) {
			cudaFree(f[v][k]);
			cudaFree(d[v][k]);
		}
	}
	cudaFree(x1); cudaFree(x2); cudaFree(dy); cudaFree(y); cudaFree(dz); cudaFree(mask); cudaFree(par);
	cudaFree(rm); cudaFree(rv);
	free(hx1); free(hx2); free(hdy); free(hp); free(hm);
}

/* The padded stem's copies: rows of 3 channels to 4 or 8 with zeros, and the weight
 * gradient's first 3 channels back as floats - both exact. rows odd, so the grid's last thread works. */
static void test_pad(test_ctx *tc, ex_dtype t, int c_dst)
{
	const size_t rows = 140001;
	const int c_src = 3;
	double *h = rnd(rows * c_src), *ref = calloc(rows * c_dst, sizeof(double)), *o;
	void *src = up(t, h, rows * c_src), *dst;
	float *back, *hb = malloc(rows * c_src * sizeof(float));
	size_t i, bad = 0;
	int j;
	for (i = 0; i < rows; i++)
		for (j = 0; j < c_src; j++)
			ref[i * c_dst + j] = h[i * c_src + j];
	CUDA_CHECK(cudaMalloc(&dst, rows * c_dst * ex_dtype_size(t)));
	CUDA_CHECK(cudaMemset(dst, 0xff, rows * c_dst * ex_dtype_size(t))); /* NaN: every element must be written */
	CUDA_CHECK(cudaMalloc((void **)&back, rows * c_src * sizeof(float)));
	ex_k_pad_rows(t, dst, src, rows, c_src, c_dst, 0);
	ex_k_unpad_rows_f32(t, back, dst, rows, c_src, c_dst, 0);
	CUDA_CHECK(cudaDeviceSynchronize());
	o = down(t, dst, rows * c_dst);
	for (i = 0; i < rows * c_dst; i++)
		bad += o[i] != ref[i];
	TEST_CHECK(tc, bad == 0, "pad %s 3 -> %d channels: %zu of %zu elements differ", tname(t), c_dst, bad, rows * c_dst);
	CUDA_CHECK(cudaMemcpy(hb, back, rows * c_src * sizeof(float), cudaMemcpyDeviceToHost));
	for (bad = 0, i = 0; i < rows * c_src; i++)
		bad += hb[i] != (float)h[i];
	TEST_CHECK(tc, bad == 0, "unpad %s %d -> 3 channels: %zu of %zu elements differ", tname(t), c_dst, bad,
		   rows * c_src);
	cudaFree(src); cudaFree(dst); cudaFree(back);
	free(h); free(ref); free(o); free(hb);
}

/* The space-to-depth stem: the 7x7 stride-2 pad-3 convolution of a 3-channel image, run by
 * cuDNN as the stride-1 4x4 convolution over ex_k_s2d's 16-channel blocks, against a float64 CPU
 * convolution of the original; its weight gradient mapped back by ex_k_s2d_wgrad_f32 likewise. */
static void test_s2d(test_ctx *tc, cudnnHandle_t h, ex_dtype t)
{
	const int N = 2, C = 3, H = 16, K = 16, R = 7, P = 3, OH = 8, U = (H + 2 * P) / 2, A = 4, CD = 16;
	size_t nx = (size_t)N * H * H * C, nw = (size_t)K * R * R * C, ny = (size_t)N * OH * OH * K;
	double *hx = rnd(nx), *hw = rnd(nw), *hdy = rnd(ny), *ry = calloc(ny, 8), *rdw = calloc(nw, 8), *g;
	void *dx = up(t, hx, nx), *dw = up(t, hw, nw), *ddy = up(t, hdy, ny), *X, *W, *dy, *dW, *ws;
	float *dw32, *hdw = malloc(nw * 4);
	cudnnConvolutionFwdAlgoPerf_t pf;
	cudnnConvolutionBwdFilterAlgoPerf_t pw;
	const float one = 1, zero = 0;
	size_t esz = ex_dtype_size(t), wsB = 64 << 20, i;
	double tol = t == EX_BF16 ? 2e-2 : 1e-4;
	int n, y, x, k, r, s2, c, got;
	char what[96];

	for (n = 0; n < N; n++)
		for (y = 0; y < OH; y++)
			for (x = 0; x < OH; x++)
				for (k = 0; k < K; k++) {
					size_t o = (((size_t)n * OH + y) * OH + x) * K + k;
					for (r = 0; r < R; r++)
						for (s2 = 0; s2 < R; s2++) {
							int iy = 2 * y - P + r, ix = 2 * x - P + s2;
							if (iy < 0 || iy >= H || ix < 0 || ix >= H)
								continue;
							for (c = 0; c < C; c++) {
								size_t xi = (((size_t)n * H + iy) * H + ix) * C + c;
								size_t wi = (((size_t)k * R + r) * R + s2) * C + c;
								ry[o] += hx[xi] * hw[wi];
								rdw[wi] += hdy[o] * hx[xi];
							}
						}
				}
	CUDA_CHECK(cudaMalloc(&X, (size_t)N * U * U * CD * esz));
	CUDA_CHECK(cudaMalloc(&W, (size_t)K * A * A * CD * esz));
	CUDA_CHECK(cudaMalloc(&dW, (size_t)K * A * A * CD * esz));
	CUDA_CHECK(cudaMalloc(&dy, ny * esz));
	CUDA_CHECK(cudaMalloc((void **)&dw32, nw * 4));
	CUDA_CHECK(cudaMalloc(&ws, wsB));
	CUDA_CHECK(cudaMemset(X, 0xff, (size_t)N * U * U * CD * esz)); /* NaN: every element must be written */
	CUDA_CHECK(cudaMemset(W, 0xff, (size_t)K * A * A * CD * esz));
	ex_k_s2d(t, X, dx, W, dw, N, H, H, C, P, K, R, CD, 0);
	conv_descs d = conv_descs_make(t, N, CD, U, K, A, 1, 0);
	CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithmEx(h, d.xd, X, d.wd, W, d.cd, d.yd, dy, 1, &got, &pf, ws, wsB));
	CUDNN_CHECK(cudnnConvolutionForward(h, &one, d.xd, X, d.wd, W, d.cd, pf.algo, ws, wsB, &zero, d.yd, dy));
	CUDNN_CHECK(cudnnFindConvolutionBackwardFilterAlgorithmEx(h, d.xd, X, d.yd, ddy, d.cd, d.wd, dW, 1, &got, &pw, ws, wsB));
	CUDNN_CHECK(cudnnConvolutionBackwardFilter(h, &one, d.xd, X, d.yd, ddy, d.cd, pw.algo, ws, wsB, &zero, d.wd, dW));
	ex_k_s2d_wgrad_f32(t, dw32, dW, K, R, C, CD, 0);
	CUDA_CHECK(cudaDeviceSynchronize());
	g = down(t, dy, ny);
	snprintf(what, sizeof(what), "stem s2d %s fwd vs the 7x7 stride-2 convolution", tname(t));
	CHECK_ERR(tc, what, relerr(g, ry, ny), tol);
	free(g);
	CUDA_CHECK(cudaMemcpy(hdw, dw32, nw * 4, cudaMemcpyDeviceToHost));
	g = malloc(nw * sizeof(double));
	for (i = 0; i < nw; i++)
		g[i] = hdw[i];
	snprintf(what, sizeof(what), "stem s2d %s weight gradient mapped back", tname(t));
	CHECK_ERR(tc, what, relerr(g, rdw, nw), tol);
	free(g);
	conv_descs_free(&d);
	cudaFree(dx); cudaFree(dw); cudaFree(ddy); cudaFree(X); cudaFree(W); cudaFree(dW); cudaFree(dy);
	cudaFree(dw32); cudaFree(ws);
	free(hx); free(hw); free(hdy); free(ry); free(rdw); free(hdw);
}

/* softmax cross-entropy with label smoothing, and SGD with momentum + weight decay */
static void test_loss_sgd(test_ctx *tc)
{
	int N = 8, C = 37, i, j, lab[8];
	double eps = 0.1, loss = 0, *rdl = malloc(N * C * 8), *o;
	float *hl = malloc(N * C * 4), *dl, *dl32, *bias;
	int *dlab;
	ex_dev_state st0, st, *dst;
	void *dlc;
	for (i = 0; i < N * C; i++)
		hl[i] = (float)(urand() * 4);
	for (i = 0; i < N; i++)
		lab[i] = (i * 7) % C;
	CUDA_CHECK(cudaMalloc((void **)&dl, N * C * 4));
	CUDA_CHECK(cudaMalloc((void **)&dl32, N * C * 4));
	CUDA_CHECK(cudaMalloc(&dlc, N * C * 4));
	CUDA_CHECK(cudaMalloc((void **)&bias, C * 4));
	CUDA_CHECK(cudaMalloc((void **)&dlab, N * 4));
	CUDA_CHECK(cudaMalloc((void **)&dst, sizeof(st0)));
	memset(&st0, 0, sizeof(st0));
	st0.loss_scale = 1;
	cudaMemcpy(dst, &st0, sizeof(st0), cudaMemcpyHostToDevice);
	cudaMemcpy(dl, hl, N * C * 4, cudaMemcpyHostToDevice);
	cudaMemset(bias, 0, C * 4);
	cudaMemcpy(dlab, lab, N * 4, cudaMemcpyHostToDevice);
	ex_k_softmax_xent(dl, bias, dlab, N, C, (float)eps, N, dst, dl32, EX_F32, dlc, 0);
	CUDA_CHECK(cudaDeviceSynchronize());
	cudaMemcpy(&st, dst, sizeof(st), cudaMemcpyDeviceToHost);
	for (i = 0; i < N; i++) {
		double mx = -1e300, se = 0;
		for (j = 0; j < C; j++) mx = fmax(mx, hl[i * C + j]);
		for (j = 0; j < C; j++) se += exp(hl[i * C + j] - mx);
		for (j = 0; j < C; j++) {
			double lp = hl[i * C + j] - mx - log(se), q = eps / C + (j == lab[i] ? 1 - eps : 0);
			loss -= q * lp / N;
			rdl[i * C + j] = (exp(lp) - q) / N;
		}
	}
	TEST_NEAR(tc, st.loss_sum / N, loss, 1e-5);
	TEST_CHECK(tc, st.seen == N, "seen %d", st.seen);
	o = down(EX_F32, dl32, N * C);
	CHECK_ERR(tc, "softmax xent dlogits", relerr(o, rdl, N * C), 1e-5);
	free(o);
	/* SGD: one block over 1000 elements, momentum 0.9, wd 0.01, constant lr 0.5 */
	{
		size_t n = 1000, k;
		float *hw = malloc(n * 4), *hm = malloc(n * 4), *hg = malloc(n * 4), *w, *m, *g, *nrm;
		ex_opt_block b = {0, 0, 0, 1000}, *db;
		int dec = 1, *ddec;
		ex_opt_cfg cfg;
		double *rw = malloc(n * 8), *ow = malloc(n * 8);
		for (k = 0; k < n; k++) { hw[k] = (float)urand(); hm[k] = (float)urand(); hg[k] = (float)urand(); }
		for (k = 0; k < n; k++) {
			double gg = hg[k] + 0.01 * hw[k], mm = 0.9 * hm[k] + gg;
			rw[k] = hw[k] - 0.5 * mm;
		}
		CUDA_CHECK(cudaMalloc((void **)&w, n * 4));
		CUDA_CHECK(cudaMalloc((void **)&m, n * 4));
		CUDA_CHECK(cudaMalloc((void **)&g, n * 4));
		CUDA_CHECK(cudaMalloc((void **)&nrm, 8));
		CUDA_CHECK(cudaMalloc((void **)&db, sizeof(b)));
		CUDA_CHECK(cudaMalloc((void **)&ddec, 4));
		cudaMemcpy(w, hw, n * 4, cudaMemcpyHostToDevice);
		cudaMemcpy(m, hm, n * 4, cudaMemcpyHostToDevice);
		cudaMemcpy(g, hg, n * 4, cudaMemcpyHostToDevice);
		cudaMemcpy(db, &b, sizeof(b), cudaMemcpyHostToDevice);
		cudaMemcpy(ddec, &dec, 4, cudaMemcpyHostToDevice);
		memset(&cfg, 0, sizeof(cfg));
		cfg.momentum = 0.9f;
		cfg.weight_decay = 0.01f;
		cfg.sched.base_lr = cfg.sched.end_lr = 0.5f;
		cfg.sched.total_steps = 10;
		ex_k_sgd(EX_F32, w, m, g, NULL, db, 1, ddec, nrm, 1, cfg, dst, 0);
		CUDA_CHECK(cudaDeviceSynchronize());
		cudaMemcpy(hw, w, n * 4, cudaMemcpyDeviceToHost);
		for (k = 0; k < n; k++) ow[k] = hw[k];
		CHECK_ERR(tc, "sgd momentum+wd", relerr(ow, rw, n), 1e-6);
		cudaFree(w); cudaFree(m); cudaFree(g); cudaFree(nrm); cudaFree(db); cudaFree(ddec);
		free(hw); free(hm); free(hg); free(rw); free(ow);
	}
	/* schedule: warm-up then cosine */
	{
		ex_sched s = {EX_SCHED_COSINE, 1.f, 0.f, 2.f, 10, 110, 0, 0.1f};
		TEST_NEAR(tc, ex_sched_lr_host(&s, 0), 0.1, 1e-6);
		TEST_NEAR(tc, ex_sched_lr_host(&s, 10), 1.0, 1e-6);
		TEST_NEAR(tc, ex_sched_lr_host(&s, 60), 0.5, 1e-5);
	}
	cudaFree(dl); cudaFree(dl32); cudaFree(dlc); cudaFree(bias); cudaFree(dlab); cudaFree(dst);
	free(hl); free(rdl);
}

int main(void)
{
	test_ctx t = {0};
	int ndev = 0;
	cudnnHandle_t h;
	ex_dtype ts[2] = {EX_F32, EX_BF16};
	int i;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
		TEST_SKIP(&t, "no CUDA GPU");
		return test_report(&t);
	}
	CUDNN_CHECK(cudnnCreate(&h));
	for (i = 0; i < 2; i++) {
		test_conv(&t, h, ts[i], 2, 16, 9, 32, 3, 1, 1);
		test_conv(&t, h, ts[i], 2, 16, 10, 8, 1, 2, 0);
		test_conv(&t, h, ts[i], 2, 3, 16, 16, 7, 2, 3);
		test_bn(&t, ts[i], 2 * 7 * 7, 64, false, true, false);
		test_bn(&t, ts[i], 3 * 5 * 5, 96, true, true, false);
		test_bn(&t, ts[i], 3 * 5 * 5, 96, true, true, true);
		test_bn(&t, ts[i], 2 * 4 * 4, 32, false, false, false);
		/* more element groups than threads of the grid (132 * 32 blocks of 256): each thread loops, and
		 * 72 channels (9 groups) make the channel index wrap differently on every step */
		test_bn(&t, ts[i], 140000, 72, true, true, false);
		test_bn(&t, ts[i], 140000, 72, true, true, true);
		test_bn(&t, ts[i], 140000, 72, false, true, false);
		test_pool(&t, ts[i], false);
		test_bn_bwd2(&t, ts[i], 3 * 5 * 5, 96);
		test_bn_bwd2(&t, ts[i], 140000, 72);
		test_pool(&t, ts[i], true);
		test_bn_bwd_pooled(&t, ts[i], 2, 10, 16);
		test_bn_bwd_pooled(&t, ts[i], 16, 112, 64);
		test_pad(&t, ts[i], 4);
		test_pad(&t, ts[i], 8);
		test_s2d(&t, h, ts[i]);
	}
	test_loss_sgd(&t);
	cudnnDestroy(h);
	return test_report(&t);
}
