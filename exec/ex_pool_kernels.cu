/* exec kernels of pooling: max pooling and global average pooling, forward and backward.
 * NHWC tensors in fp32, bf16 or fp16 (T); statistics and parameters in fp32. Each launcher is extern "C",
 * takes the stream and checks the launch (exit 2 on failure).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "exec/ex_kernels.cuh"

/* ---- pooling ---- */

/* Max pooling, 8 channels per thread (16-byte loads for bf16/fp16, 8 argmax bytes at once;
 * the scalar kernels before moved 2 bytes per access and divided per element: 1.1 ms forward and 2.5 ms
 * backward at batch 256 on an H100, now 0.30 and 0.79 ms). c % 8 == 0, k <= 15 (argmax in a byte).
 * The backward is a gather: each input element sums dy of the output windows whose argmax points at it. */
/* Element group i (8 channels) of an NHWC tensor [n][h][w][c]: its first channel, column, row and image. */
template <typename I>
__device__ __forceinline__ void nhwc8_pos(I i, int cg, int w, int h, int *ch, int *x, int *y, int *b)
{
	I r = i / cg;
	*ch = (int)(i % cg) * 8;
	*x = (int)(r % w);
	r /= w;
	*y = (int)(r % h);
	*b = (int)(r / h);
}

/* I: the element-group index, unsigned where the tensor allows (64-bit divisions cost ~70 instructions;
 * bench/NOTES.md's log). */
template <typename T, typename I, int K>
__global__ void k_maxpool_fwd8(const T *x, const float *bn_f, bool relu, T *y, uint8_t *am, int n, int h, int w, int c,
			       int oh, int ow, int k_rt, int stride, int pad)
{
	const int k = K > 0 ? K : k_rt; /* K = 3 (ResNet): the window unrolled, its loads issued together */
	int cg = c / 8;
	I total8 = (I)n * oh * ow * cg;
	for (I i = blockIdx.x * (I)blockDim.x + threadIdx.x; i < total8; i += (I)gridDim.x * blockDim.x) {
		int ch, ox, oy, b;
		nhwc8_pos(i, cg, ow, oh, &ch, &ox, &oy, &b);
		float best[8], v[8], sc[8], sh[8];
		uint8_t arg[8];
		if (bn_f) {
			load8(bn_f + 2 * c + ch, sc);
			load8(bn_f + 3 * c + ch, sh);
		}
		for (int j = 0; j < 8; j++) {
			best[j] = -INFINITY;
			arg[j] = 0;
		}
#pragma unroll
		for (int ky = 0; ky < k; ky++) {
			int iy = oy * stride - pad + ky;
			if (iy < 0 || iy >= h)
				continue;
#pragma unroll
			for (int kx = 0; kx < k; kx++) {
				int ix = ox * stride - pad + kx;
				if (ix < 0 || ix >= w)
					continue;
				load8(x + (((size_t)b * h + iy) * w + ix) * c + ch, v);
				if (bn_f) /* the folded batch norm (+ReLU), rounded as its stored output would be */
					for (int j = 0; j < 8; j++) {
						float a = __fmaf_rn(v[j], sc[j], sh[j]); /* as k_bn_apply */
						v[j] = round_as<T>(relu ? fmaxf(a, 0.f) : a);
					}
				for (int j = 0; j < 8; j++)
					if (v[j] > best[j]) { /* first maximum wins, as PyTorch */
						best[j] = v[j];
						arg[j] = (uint8_t)(ky * k + kx);
					}
			}
		}
		store8(y + (size_t)i * 8, best);
		*(uint2 *)(am + (size_t)i * 8) = *(const uint2 *)arg;
	}
}

template <typename T, typename I>
__global__ void k_maxpool_bwd8(const T *dy, const uint8_t *am, T *dx, pool_geom p, bool acc)
{
	int cg = p.c / 8;
	I total8 = (I)p.n * p.h * p.w * cg;
	for (I i = blockIdx.x * (I)blockDim.x + threadIdx.x; i < total8; i += (I)gridDim.x * blockDim.x) {
		int ch, ix, iy, b;
		nhwc8_pos(i, cg, p.w, p.h, &ch, &ix, &iy, &b);
		float g[8], v[8];
		pool_gather8(dy, am, p, b, iy, ix, ch, g);
		if (acc) {
			load8(dx + (size_t)i * 8, v);
			for (int j = 0; j < 8; j++)
				g[j] += v[j];
		}
		store8(dx + (size_t)i * 8, g);
	}
}

template <typename T>
static void l_maxpool_fwd(const void *x, const float *bn_f, bool relu, void *y, uint8_t *am, int n, int h, int w, int c,
			  int oh, int ow, int k, int stride, int pad, cudaStream_t s)
{
	size_t total = (size_t)n * oh * ow * c;
	int g = grid_for(total / 8, 256);
	if (k == 3 && fits_u32_loop(total / 8))
		k_maxpool_fwd8<T, unsigned, 3><<<g, 256, 0, s>>>((const T *)x, bn_f, relu, (T *)y, am, n, h, w, c, oh, ow, k,
								 stride, pad);
	else
		k_maxpool_fwd8<T, size_t, 0><<<g, 256, 0, s>>>((const T *)x, bn_f, relu, (T *)y, am, n, h, w, c, oh, ow, k,
							       stride, pad);
}
extern "C" void ex_k_maxpool_fwd(ex_dtype t, const void *x, const float *bn_f, bool relu, void *y, uint8_t *argmax,
				 int n, int h, int w, int c, int oh, int ow, int k, int stride, int pad, cudaStream_t s)
{
	if (c % 8 || k > 15) {
		fprintf(stderr, "scaleplan-train: max pooling needs channels divisible by 8 and a window <= 15 (got %d, %d)\n",
			c, k);
		exit(2);
	}
	EX_DISPATCH(t, l_maxpool_fwd, x, bn_f, relu, y, argmax, n, h, w, c, oh, ow, k, stride, pad, s);
	KCHECK();
}

template <typename T>
static void l_maxpool_bwd(const void *dy, const uint8_t *am, void *dx, int n, int h, int w, int c, int oh, int ow,
			  int k, int stride, int pad, bool acc, cudaStream_t s)
{
	size_t total = (size_t)n * h * w * c;
	pool_geom p = {n, h, w, c, oh, ow, k, stride, pad};
	if (fits_u32_loop(total / 8))
		k_maxpool_bwd8<T, unsigned><<<grid_for(total / 8, 256), 256, 0, s>>>((const T *)dy, am, (T *)dx, p, acc);
	else
		k_maxpool_bwd8<T, size_t><<<grid_for(total / 8, 256), 256, 0, s>>>((const T *)dy, am, (T *)dx, p, acc);
}
extern "C" void ex_k_maxpool_bwd(ex_dtype t, const void *dy, const uint8_t *argmax, void *dx, int n, int h, int w,
				 int c, int oh, int ow, int k, int stride, int pad, bool acc, cudaStream_t s)
{
	EX_DISPATCH(t, l_maxpool_bwd, dy, argmax, dx, n, h, w, c, oh, ow, k, stride, pad, acc, s);
	KCHECK();
}

template <typename T> __global__ void k_avgpool_fwd(const T *x, T *y, int n, int hw, int c)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n * c)
		return;
	int b = i / c, ch = i % c;
	float a = 0.f;
	for (int p = 0; p < hw; p++)
		a += ld(x, ((size_t)b * hw + p) * c + ch);
	st(y, i, a / hw);
}
template <typename T> static void l_avgpool_fwd(const void *x, void *y, int n, int hw, int c, cudaStream_t s)
{
	k_avgpool_fwd<T><<<(n * c + 255) / 256, 256, 0, s>>>((const T *)x, (T *)y, n, hw, c);
}
extern "C" void ex_k_avgpool_fwd(ex_dtype t, const void *x, void *y, int n, int hw, int c, cudaStream_t s)
{
	EX_DISPATCH(t, l_avgpool_fwd, x, y, n, hw, c, s);
	KCHECK();
}
template <typename T> __global__ void k_avgpool_bwd(const T *dy, T *dx, int n, int hw, int c, bool acc)
{
	size_t total = (size_t)n * hw * c;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
		int ch = (int)(i % c);
		int b = (int)(i / ((size_t)hw * c));
		float g = ld(dy, (size_t)b * c + ch) / hw;
		st(dx, i, acc ? ld(dx, i) + g : g);
	}
}
/* 8 channels a thread, 32-bit indices (c % 8 == 0 and the tensor fits_u32_loop): the scalar kernel above
 * took 0.10 ms for ResNet-50's 51 MB at batch 256 on an H100 (ncu). */
template <typename T> __global__ void k_avgpool_bwd8(const T *dy, T *dx, unsigned per_img8, unsigned cg, unsigned total8,
						     float hw, bool acc)
{
	for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < total8; i += gridDim.x * blockDim.x) {
		unsigned b = i / per_img8, g8 = i % cg;
		float g[8], v[8];
		load8(dy + ((size_t)b * cg + g8) * 8, g);
		for (int j = 0; j < 8; j++)
			g[j] /= hw; /* as the scalar kernel: the same bits */
		if (acc) {
			load8(dx + (size_t)i * 8, v);
			for (int j = 0; j < 8; j++)
				g[j] += v[j];
		}
		store8(dx + (size_t)i * 8, g);
	}
}
template <typename T> static void l_avgpool_bwd(const void *dy, void *dx, int n, int hw, int c, bool acc, cudaStream_t s)
{
	size_t total = (size_t)n * hw * c;
	if (c % 8 == 0 && fits_u32_loop(total / 8))
		k_avgpool_bwd8<T><<<grid_for(total / 8, 256), 256, 0, s>>>((const T *)dy, (T *)dx, (unsigned)hw * (c / 8),
									   (unsigned)(c / 8), (unsigned)(total / 8),
									   (float)hw, acc);
	else
		k_avgpool_bwd<T><<<grid_for(total, 256), 256, 0, s>>>((const T *)dy, (T *)dx, n, hw, c, acc);
}
extern "C" void ex_k_avgpool_bwd(ex_dtype t, const void *dy, void *dx, int n, int hw, int c, bool acc, cudaStream_t s)
{
	EX_DISPATCH(t, l_avgpool_bwd, dy, dx, n, hw, c, acc, s);
	KCHECK();
}

