/* exec kernels: everything of ResNet-50 training that is not a cuDNN convolution or a cuBLAS GEMM.
 * NHWC tensors in fp32, bf16 or fp16 (T); statistics and parameters always in fp32 (sums in double).
 * Each launcher is extern "C", takes the stream, and checks the launch (exit 2 on failure).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/ex_internal.h"

#define KCHECK() do { cudaError_t e_ = cudaGetLastError(); if (e_ != cudaSuccess) ex_die_cuda(e_, "kernel launch", __FILE__, __LINE__); } while (0)

__device__ __forceinline__ float ld(const float *p, size_t i) { return p[i]; }
__device__ __forceinline__ float ld(const __nv_bfloat16 *p, size_t i) { return __bfloat162float(p[i]); }
__device__ __forceinline__ float ld(const __half *p, size_t i) { return __half2float(p[i]); }
__device__ __forceinline__ void st(float *p, size_t i, float v) { p[i] = v; }
__device__ __forceinline__ void st(__nv_bfloat16 *p, size_t i, float v) { p[i] = __float2bfloat16(v); }
__device__ __forceinline__ void st(__half *p, size_t i, float v) { p[i] = __float2half(v); }

/* v rounded to T and back (what storing it as T and loading it gives). */
template <typename T> __device__ __forceinline__ float round_as(float v)
{
	T t = T(v);
	return ld(&t, 0);
}

/* Dispatch a templated launcher on the element type. */
#define EX_DISPATCH(t, FN, ...)                                                             \
	do {                                                                                \
		switch (t) {                                                                \
		case EX_F32: FN<float>(__VA_ARGS__); break;                                 \
		case EX_BF16: FN<__nv_bfloat16>(__VA_ARGS__); break;                        \
		case EX_F16: FN<__half>(__VA_ARGS__); break;                                \
		}                                                                           \
	} while (0)

#define GRID_MAX_BLOCKS (132 * 32)
static int grid_for(size_t n, int threads)
{
	size_t b = (n + threads - 1) / threads;
	if (b > GRID_MAX_BLOCKS)
		b = GRID_MAX_BLOCKS;
	return b < 1 ? 1 : (int)b;
}
/* A grid-stride loop over n items of a grid_for(n, 256) grid counts in 32 bits without wrapping. */
static bool fits_u32_loop(size_t n) { return n + (size_t)GRID_MAX_BLOCKS * 256 <= UINT_MAX; }

/* splitmix64 / counter hash: deterministic per (seed, index). */
__device__ __forceinline__ uint64_t hash64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}
__device__ __forceinline__ float u01(uint64_t h) { return ((h >> 40) + 0.5f) * (1.0f / 16777216.0f); }

/* ---- fills and casts ---- */

template <typename T>
__global__ void k_fill_normal(T *x, size_t n, float mean, float sd, uint64_t seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		uint64_t h = hash64(seed ^ (i * 0x2545F4914F6CDD1DULL));
		float u1 = u01(h), u2 = u01(hash64(h));
		float z = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2); /* Box-Muller */
		st(x, i, mean + sd * z);
	}
}
template <typename T> static void l_fill_normal(void *x, size_t n, float mean, float sd, uint64_t seed, cudaStream_t s)
{
	k_fill_normal<T><<<grid_for(n, 256), 256, 0, s>>>((T *)x, n, mean, sd, seed);
}
extern "C" void ex_k_fill_normal(ex_dtype t, void *x, size_t n, float mean, float sd, uint64_t seed, cudaStream_t s)
{
	EX_DISPATCH(t, l_fill_normal, x, n, mean, sd, seed, s);
	KCHECK();
}

__global__ void k_fill_labels(int *y, int n, int classes, uint64_t seed)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = (int)(hash64(seed + 7919ULL * i) % (uint64_t)classes);
}
extern "C" void ex_k_fill_labels(int *y, int n, int classes, uint64_t seed, cudaStream_t s)
{
	k_fill_labels<<<(n + 255) / 256, 256, 0, s>>>(y, n, classes, seed);
	KCHECK();
}

template <typename T> __global__ void k_cast_f32(T *d, const float *src, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		st(d, i, src[i]);
}
template <typename T> static void l_cast_f32(void *d, const float *src, size_t n, cudaStream_t s)
{
	k_cast_f32<T><<<grid_for(n, 256), 256, 0, s>>>((T *)d, src, n);
}
extern "C" void ex_k_cast_f32(ex_dtype t, void *dst, const float *src, size_t n, cudaStream_t s)
{
	EX_DISPATCH(t, l_cast_f32, dst, src, n, s);
	KCHECK();
}
template <typename T> __global__ void k_to_f32(float *d, const T *src, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		d[i] = ld(src, i);
}
template <typename T> static void l_to_f32(float *d, const void *src, size_t n, cudaStream_t s)
{
	k_to_f32<T><<<grid_for(n, 256), 256, 0, s>>>(d, (const T *)src, n);
}
extern "C" void ex_k_to_f32(ex_dtype t, float *dst, const void *src, size_t n, cudaStream_t s)
{
	EX_DISPATCH(t, l_to_f32, dst, src, n, s);
	KCHECK();
}

/* The same over a table of slices (one CUDA block each) of one flat buffer: every convolution's weight
 * gradient in one launch at the end of the backward, where 52 launches of ~4 us each did it before
 * (issue 15, ncu: 0.21 ms per step at batch 256). */
template <typename T> __global__ void k_to_f32_blocks(float *d, const T *src, const ex_opt_block *blocks)
{
	ex_opt_block bl = blocks[blockIdx.x];
	for (long long i = bl.first + threadIdx.x; i < bl.last; i += blockDim.x)
		d[i] = ld(src, (size_t)i);
}
template <typename T>
static void l_to_f32_blocks(float *d, const void *src, const ex_opt_block *blocks, int nblocks, cudaStream_t s)
{
	k_to_f32_blocks<T><<<nblocks, 256, 0, s>>>(d, (const T *)src, blocks);
}
extern "C" void ex_k_to_f32_blocks(ex_dtype t, float *dst, const void *src, const ex_opt_block *blocks, int nblocks,
				   cudaStream_t s)
{
	if (nblocks < 1)
		return;
	EX_DISPATCH(t, l_to_f32_blocks, dst, src, blocks, nblocks, s);
	KCHECK();
}

/* ---- channel padding of the stem (issue 15) ----
 * cuDNN's convolutions on 3 channels (the image) run far from the tensor cores: on an H100 at batch 256
 * the 7x7 stem took 1.83 ms forward and 1.18 ms weight gradient of a 40 ms step (bench/NOTES.md,
 * fuse-probe). Padding rows of c_src channels to c_dst with zeros lets the aligned kernels run. */
template <typename T, int CD> __global__ void k_pad_rows(T *dst, const T *src, size_t rows, int c_src)
{
	for (size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x; r < rows; r += (size_t)gridDim.x * blockDim.x) {
		union { T v[CD]; uint2 u2[CD * sizeof(T) / 8 > 0 ? CD * sizeof(T) / 8 : 1]; } row;
		int j;
		for (j = 0; j < CD; j++)
			row.v[j] = j < c_src ? src[r * c_src + j] : T(0.0f);
		if (CD * sizeof(T) % 8 == 0) /* 8-byte stores: rows of 4 bf16, 8 bf16, 4 fp32 ... */
			for (j = 0; j < (int)(CD * sizeof(T) / 8); j++)
				((uint2 *)(dst + r * CD))[j] = row.u2[j];
		else
			for (j = 0; j < CD; j++)
				dst[r * CD + j] = row.v[j];
	}
}
template <typename T> static void l_pad_rows(void *dst, const void *src, size_t rows, int c_src, int c_dst, cudaStream_t s)
{
	if (c_dst == 4)
		k_pad_rows<T, 4><<<grid_for(rows, 256), 256, 0, s>>>((T *)dst, (const T *)src, rows, c_src);
	else
		k_pad_rows<T, 8><<<grid_for(rows, 256), 256, 0, s>>>((T *)dst, (const T *)src, rows, c_src);
}
extern "C" void ex_k_pad_rows(ex_dtype t, void *dst, const void *src, size_t rows, int c_src, int c_dst, cudaStream_t s)
{
	if (c_src > c_dst || (c_dst != 4 && c_dst != 8))
		ex_die_cuda(cudaErrorInvalidValue, "ex_k_pad_rows: c_dst must be 4 or 8 and >= c_src", __FILE__, __LINE__);
	EX_DISPATCH(t, l_pad_rows, dst, src, rows, c_src, c_dst, s);
	KCHECK();
}
template <typename T> __global__ void k_unpad_rows_f32(float *dst, const T *src, size_t rows, int c_dst, int c_src)
{
	size_t n = rows * c_dst;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		dst[i] = ld(src, i / c_dst * c_src + i % c_dst);
}
template <typename T> static void l_unpad_rows_f32(float *dst, const void *src, size_t rows, int c_dst, int c_src, cudaStream_t s)
{
	k_unpad_rows_f32<T><<<grid_for(rows * c_dst, 256), 256, 0, s>>>(dst, (const T *)src, rows, c_dst, c_src);
}
extern "C" void ex_k_unpad_rows_f32(ex_dtype t, float *dst, const void *src, size_t rows, int c_dst, int c_src,
				    cudaStream_t s)
{
	EX_DISPATCH(t, l_unpad_rows_f32, dst, src, rows, c_dst, c_src, s);
	KCHECK();
}

/* Space-to-depth stem (issue 15). A stride-2 RxR convolution with padding P over an image of c channels
 * equals a stride-1 AxA convolution (A = (R+1)/2, no padding) over the padded image rearranged so that
 * every 2x2 block of pixels becomes one pixel of 4c channels (channel (2p+q)c + ch holds the block's
 * pixel (p, q)), with weights W[k][a][b][(2p+q)c + ch] = w[k][2a+p][2b+q][ch] (zero where 2a+p or 2b+q
 * reaches R). Channels 4c..c_dst-1 are zero. On an H100 the ResNet-50 stem runs 2.4x faster forward
 * and 2x faster weight gradient this way (bench/NOTES.md, fuse-probe --shape 16,115,64,4,1,0). */
/* C: the image's channels known at compile time (3), so that px stays in registers (a runtime c put it in
 * local memory: 0.18 ms at batch 256 on an H100 for 185 MB, ncu, issue 15 session 6); 0: c at run time.
 * I: the pixel index, unsigned where the image allows. */
template <typename T, int CD, int C, typename I>
__global__ void k_s2d_image(T *dst, const T *src, int n, int h, int w, int c_rt, int pad)
{
	const int c = C > 0 ? C : c_rt;
	int uh = (h + 2 * pad) / 2, uw = (w + 2 * pad) / 2;
	I pixels = (I)n * uh * uw;
	for (I i = blockIdx.x * (I)blockDim.x + threadIdx.x; i < pixels; i += (I)gridDim.x * blockDim.x) {
		union { T v[CD]; uint2 u2[CD * sizeof(T) / 8]; } px;
		I t = i / uw;
		int v = (int)(i - t * uw), u = (int)(t % uh), b = (int)(t / uh);
#pragma unroll
		for (int j = 0; j < CD; j++)
			px.v[j] = T(0.0f);
#pragma unroll
		for (int p = 0; p < 2; p++)
#pragma unroll
			for (int q = 0; q < 2; q++) {
				int y = 2 * u + p - pad, x = 2 * v + q - pad;
				if (y < 0 || y >= h || x < 0 || x >= w)
					continue;
#pragma unroll
				for (int ch = 0; ch < c; ch++)
					px.v[(2 * p + q) * c + ch] = src[(((size_t)b * h + y) * w + x) * c + ch];
			}
#pragma unroll
		for (int j = 0; j < (int)(CD * sizeof(T) / 8); j++)
			((uint2 *)(dst + (size_t)i * CD))[j] = px.u2[j];
	}
}
template <typename T> __global__ void k_s2d_weights(T *dst, const T *src, int k, int r, int c, int c_dst)
{
	int a_n = (r + 1) / 2;
	size_t n = (size_t)k * a_n * a_n * c_dst;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		int j = (int)(i % c_dst), bq = (int)(i / c_dst % a_n), ap = (int)(i / ((size_t)c_dst * a_n) % a_n);
		int kk = (int)(i / ((size_t)c_dst * a_n * a_n)), blk = j / c, ch = j % c;
		int rr = 2 * ap + blk / 2, ss = 2 * bq + blk % 2;
		dst[i] = j < 4 * c && rr < r && ss < r ? src[(((size_t)kk * r + rr) * r + ss) * c + ch] : T(0.0f);
	}
}
template <typename T> __global__ void k_s2d_wgrad_f32(float *dst, const T *src, int k, int r, int c, int c_dst)
{
	int a_n = (r + 1) / 2;
	size_t n = (size_t)k * r * r * c;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		int ch = (int)(i % c), ss = (int)(i / c % r), rr = (int)(i / ((size_t)c * r) % r), kk = (int)(i / ((size_t)c * r * r));
		dst[i] = ld(src, (((size_t)kk * a_n + rr / 2) * a_n + ss / 2) * c_dst + (2 * (rr % 2) + ss % 2) * c + ch);
	}
}
template <typename T> static void l_s2d(void *img_dst, const void *img_src, void *w_dst, const void *w_src, int n, int h,
					int w, int c, int pad, int k, int r, int c_dst, cudaStream_t s)
{
	size_t pixels = (size_t)n * ((h + 2 * pad) / 2) * ((w + 2 * pad) / 2), wn = (size_t)k * ((r + 1) / 2) * ((r + 1) / 2) * c_dst;
	int g = grid_for(pixels, 256);
	if (img_dst && c == 3 && fits_u32_loop(pixels))
		k_s2d_image<T, 16, 3, unsigned><<<g, 256, 0, s>>>((T *)img_dst, (const T *)img_src, n, h, w, c, pad);
	else if (img_dst)
		k_s2d_image<T, 16, 0, size_t><<<g, 256, 0, s>>>((T *)img_dst, (const T *)img_src, n, h, w, c, pad);
	if (w_dst)
		k_s2d_weights<T><<<grid_for(wn, 256), 256, 0, s>>>((T *)w_dst, (const T *)w_src, k, r, c, c_dst);
}
extern "C" void ex_k_s2d(ex_dtype t, void *img_dst, const void *img_src, void *w_dst, const void *w_src, int n, int h,
			 int w, int c, int pad, int k, int r, int c_dst, cudaStream_t s)
{
	if (c_dst != 16 || 4 * c > c_dst || (h + 2 * pad) % 2 || (w + 2 * pad) % 2)
		ex_die_cuda(cudaErrorInvalidValue, "ex_k_s2d: needs 4c <= c_dst = 16 and an even padded size", __FILE__, __LINE__);
	EX_DISPATCH(t, l_s2d, img_dst, img_src, w_dst, w_src, n, h, w, c, pad, k, r, c_dst, s);
	KCHECK();
}
template <typename T> static void l_s2d_wgrad_f32(float *dst, const void *src, int k, int r, int c, int c_dst, cudaStream_t s)
{
	k_s2d_wgrad_f32<T><<<grid_for((size_t)k * r * r * c, 256), 256, 0, s>>>(dst, (const T *)src, k, r, c, c_dst);
}
extern "C" void ex_k_s2d_wgrad_f32(ex_dtype t, float *dst, const void *src, int k, int r, int c, int c_dst, cudaStream_t s)
{
	EX_DISPATCH(t, l_s2d_wgrad_f32, dst, src, k, r, c, c_dst, s);
	KCHECK();
}

/* ---- batch norm (NHWC: m = N*H*W rows of c channels, c a multiple of 8) ----
 * Every thread works on 8 consecutive channels of a row (one 16-byte load for bf16/fp16).
 * Reductions: block = CX channel groups x (256/CX) rows, per-thread float partials, a shared-memory
 * column sum, then one double atomic per channel and block. */
__device__ __forceinline__ void load8(const float *p, float f[8])
{
	float4 a = ((const float4 *)p)[0], b = ((const float4 *)p)[1];
	f[0] = a.x; f[1] = a.y; f[2] = a.z; f[3] = a.w; f[4] = b.x; f[5] = b.y; f[6] = b.z; f[7] = b.w;
}
__device__ __forceinline__ void store8(float *p, const float f[8])
{
	((float4 *)p)[0] = make_float4(f[0], f[1], f[2], f[3]);
	((float4 *)p)[1] = make_float4(f[4], f[5], f[6], f[7]);
}
__device__ __forceinline__ void load8(const __nv_bfloat16 *p, float f[8])
{
	uint4 u = *(const uint4 *)p;
	const __nv_bfloat162 *h = (const __nv_bfloat162 *)&u;
	for (int j = 0; j < 4; j++) {
		float2 v = __bfloat1622float2(h[j]);
		f[2 * j] = v.x;
		f[2 * j + 1] = v.y;
	}
}
__device__ __forceinline__ void store8(__nv_bfloat16 *p, const float f[8])
{
	uint4 u;
	__nv_bfloat162 *h = (__nv_bfloat162 *)&u;
	for (int j = 0; j < 4; j++)
		h[j] = __floats2bfloat162_rn(f[2 * j], f[2 * j + 1]);
	*(uint4 *)p = u;
}
__device__ __forceinline__ void load8(const __half *p, float f[8])
{
	uint4 u = *(const uint4 *)p;
	const __half2 *h = (const __half2 *)&u;
	for (int j = 0; j < 4; j++) {
		float2 v = __half22float2(h[j]);
		f[2 * j] = v.x;
		f[2 * j + 1] = v.y;
	}
}
__device__ __forceinline__ void store8(__half *p, const float f[8])
{
	uint4 u;
	__half2 *h = (__half2 *)&u;
	for (int j = 0; j < 4; j++)
		h[j] = __floats2half2_rn(f[2 * j], f[2 * j + 1]);
	*(uint4 *)p = u;
}

/* ---- max pooling's gradient gather (used by the pooling backward and by the backward of the batch norm
 * folded into a pooling, which gathers its dy instead of reading it) ---- */

/* Geometry of a max pooling of NHWC [n][h][w][c] into [n][oh][ow][c]: window k, stride, padding. */
struct pool_geom { int n, h, w, c, oh, ow, k, stride, pad; };

/* The outputs o0..o1 (before clipping to the output size) whose pooling window
 * o*stride - pad .. o*stride - pad + k - 1 holds input position i. */
__device__ __forceinline__ void pool_out_range(int i, int pad, int k, int stride, int *o0, int *o1)
{
	*o0 = i + pad - k + 1 < 0 ? 0 : (i + pad - k + 1 + stride - 1) / stride;
	*o1 = (i + pad) / stride;
}

/* The gradient of the pooling's input element (b, iy, ix), channels ch..ch+7: the sum of dy over the output
 * windows whose argmax (am, one byte per output element) points at it. */
template <typename T>
__device__ __forceinline__ void pool_gather8(const T *dy, const uint8_t *am, const pool_geom &p, int b, int iy, int ix,
					     int ch, float g[8])
{
	float v[8];
	int oy0, oy1, ox0, ox1;
	for (int j = 0; j < 8; j++)
		g[j] = 0.f;
	pool_out_range(iy, p.pad, p.k, p.stride, &oy0, &oy1);
	pool_out_range(ix, p.pad, p.k, p.stride, &ox0, &ox1);
	for (int oy = oy0; oy <= oy1 && oy < p.oh; oy++)
		for (int ox = ox0; ox <= ox1 && ox < p.ow; ox++) {
			size_t o = (((size_t)b * p.oh + oy) * p.ow + ox) * p.c + ch;
			uint8_t want = (uint8_t)((iy - (oy * p.stride - p.pad)) * p.k + ix - (ox * p.stride - p.pad));
			uint2 a2 = *(const uint2 *)(am + o);
			const uint8_t *a = (const uint8_t *)&a2;
			bool any = false;
			for (int j = 0; j < 8; j++)
				any |= a[j] == want;
			if (!any)
				continue;
			load8(dy + o, v);
			for (int j = 0; j < 8; j++)
				if (a[j] == want)
					g[j] += v[j];
		}
}

/* The gradients of input pixels (2 oy + a, 2 ox + e), a in [a0, a0 + ROWS), e in {0, 1}, of a 3x3 stride-2
 * padding-1 max pooling whose input is exactly twice its output (ResNet's stem): pixel (2 oy, 2 ox) lies in
 * window (oy, ox) alone, an odd row or column also in the next row's or column's window, so windows
 * (oy..oy+1, ox..ox+1) give all four pixels - each window's dy and argmax loaded once, where pool_gather8 per
 * pixel loads up to four. g[a - a0][e], rounded to T as the pooling backward would store it; summed in
 * pool_gather8's order. ROWS 2: the 2x2 block at once (most loads in flight); ROWS 1: one row (half the
 * registers: the reduction's 150 -> 127, two blocks per SM instead of one; issue 15, session 6). */
template <int ROWS, typename T>
__device__ __forceinline__ void pool_block_grad(const T *dy, const uint8_t *am, const pool_geom &p, int b, int oy,
						int ox, int a0, int ch, float g[ROWS][2][8])
{
	for (int a = 0; a < ROWS; a++)
		for (int e = 0; e < 2; e++)
			for (int j = 0; j < 8; j++)
				g[a][e][j] = 0.f;
	for (int wy = 0; wy <= a0 + ROWS - 1; wy++)
		for (int wx = 0; wx < 2; wx++) {
			if (oy + wy >= p.oh || ox + wx >= p.ow)
				continue;
			size_t o = (((size_t)b * p.oh + oy + wy) * p.ow + ox + wx) * p.c + ch;
			uint2 a2 = *(const uint2 *)(am + o);
			const uint8_t *arg = (const uint8_t *)&a2;
			float v[8];
			load8(dy + o, v);
			/* pixel (2 oy + a, 2 ox + e) sits at (a + 1 - 2 wy, e + 1 - 2 wx) of window (oy + wy, ox + wx) */
			for (int a = a0 > wy ? a0 : wy; a < a0 + ROWS; a++)
				for (int e = wx; e < 2; e++) {
					uint8_t want = (uint8_t)((a + 1 - 2 * wy) * 3 + e + 1 - 2 * wx);
					for (int j = 0; j < 8; j++)
						if (arg[j] == want)
							g[a - a0][e][j] += v[j];
				}
		}
	for (int a = 0; a < ROWS; a++)
		for (int e = 0; e < 2; e++)
			for (int j = 0; j < 8; j++)
				g[a][e][j] = round_as<T>(g[a][e][j]);
}

#define BN_THREADS 256
struct bn_geom { dim3 grid, block; };

/* The current device's SMs (read once). */
static int sm_count(void)
{
	static int n = 0;
	if (n < 1) {
		int d = 0;
		if (cudaGetDevice(&d) != cudaSuccess || cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, d) != cudaSuccess ||
		    n < 1)
			n = 132;
	}
	return n;
}

/* Blocks of BN_THREADS threads of kernel k that one SM holds at once (the CUDA occupancy calculator; read
 * once per kernel through *cache), or --engine bn_blocks_per_sm=N (4: the fixed figure before; A/B runs). */
template <typename K> static int bn_blocks_per_sm(K k, int *cache)
{
	if (ex_set.bn_blocks_per_sm > 0)
		return ex_set.bn_blocks_per_sm;
	if (*cache < 1) {
		int b = 0;
		if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, k, BN_THREADS, 0) != cudaSuccess || b < 1)
			b = 1;
		*cache = b;
	}
	return *cache;
}

/* Rows a reduction's thread takes at least (8; --engine bn_min_rows=N for A/B runs): small tensors get fewer blocks,
 * each flushing its sums with atomics. */
static long bn_min_rows(void)
{
	return ex_set.bn_min_rows > 0 ? ex_set.bn_min_rows : 8;
}

/* A reduction's grid over m rows of c channels: CX channel groups x (BN_THREADS/CX) rows a block, and as many
 * blocks as the GPU holds at once (per_sm on each SM: bn_blocks_per_sm) - one wave, each block striding over
 * its share of rows. More blocks than fit would run as a second, mostly empty wave: the reductions of the
 * smaller layers moved 1-1.5 TB/s that way on an H100 (bench/NOTES.md, issue 15 session 5). */

static bn_geom bn_red_geom(long m, int c, int per_sm)
{
	bn_geom g;
	int groups = c / 8, cx = groups < 32 ? groups : 32, ry = BN_THREADS / cx;
	int gy = (groups + cx - 1) / cx;
	long rows = bn_min_rows(), want = (long)sm_count() * per_sm / gy, maxb = (m + ry * rows - 1) / (ry * rows);
	if (want > maxb)
		want = maxb;
	if (want < 1)
		want = 1;
	g.grid = dim3((unsigned)want, (unsigned)gy);
	g.block = dim3(cx, ry);
	return g;
}

/* What the finalisation does with a batch norm's channel sums. */
struct bn_fin {
	long m;
	const float *gamma, *beta;
	float *run_mean, *run_var, momentum, eps; /* forward */
	float *dgamma, *dbeta;                    /* backward */
	float *bn_f;
};

/* Forward: bn_f = mean, invstd, scale, shift of channel ch; running statistics as PyTorch (momentum, unbiased
 * variance). bn_f layout [7c]: mean, invstd, scale, shift, then the backward's dx = A dy' + B x + C. */
__device__ void bn_finalize_fwd(const bn_fin &f, int c, int ch, double s1, double s2)
{
	double mean = s1 / f.m;
	double var = s2 / f.m - mean * mean;
	if (var < 0)
		var = 0;
	float invstd = (float)(1.0 / sqrt(var + f.eps));
	f.bn_f[ch] = (float)mean;
	f.bn_f[c + ch] = invstd;
	f.bn_f[2 * c + ch] = f.gamma[ch] * invstd;
	f.bn_f[3 * c + ch] = f.beta[ch] - (float)mean * f.gamma[ch] * invstd;
	f.run_mean[ch] = (1.f - f.momentum) * f.run_mean[ch] + f.momentum * (float)mean;
	f.run_var[ch] = (1.f - f.momentum) * f.run_var[ch] + f.momentum * (float)(var * f.m / (f.m > 1 ? f.m - 1 : 1));
}

/* Backward: dbeta = sum dy', dgamma = sum dy' xhat; dx = k (dy' - mean(dy') - xhat mean(dy' xhat)) with
 * k = gamma invstd, written as A dy' + B x + C so that the dx pass loads three coefficients, not five. */
__device__ void bn_finalize_bwd(const bn_fin &f, int c, int ch, double s1, double s2)
{
	f.dbeta[ch] = (float)s1;
	f.dgamma[ch] = (float)s2;
	double mdy = s1 / f.m, mdyx = s2 / f.m, inv = f.bn_f[c + ch], mean = f.bn_f[ch], k = (double)f.gamma[ch] * inv;
	f.bn_f[4 * c + ch] = (float)k;
	f.bn_f[5 * c + ch] = (float)(-k * inv * mdyx);
	f.bn_f[6 * c + ch] = (float)(k * (inv * mdyx * mean - mdy));
}

/* dy' = dy masked by the forward's ReLU: from its mask bits when kept (has_mask), else recomputed from
 * x*scale+shift exactly as the forward computed it. */
__device__ __forceinline__ void bn_relu_grad8(float g[8], const float x[8], bool relu, bool has_mask, unsigned bits,
					      const float sc[8], const float sh[8])
{
	if (relu && has_mask) {
		for (int j = 0; j < 8; j++)
			if (!(bits >> j & 1u))
				g[j] = 0.f;
	} else if (relu) {
		for (int j = 0; j < 8; j++)
			if (__fmaf_rn(x[j], sc[j], sh[j]) <= 0.f)
				g[j] = 0.f;
	}
}

/* One row's 8 channels into the per-channel sums a, b. MODE 0: x, x^2 (forward statistics). MODE 1: dy',
 * dy' * xhat with dy' = dy masked by the ReLU (from the forward's mask bits when given, else from
 * x*scale+shift as the forward computed it). */
template <int MODE>
__device__ __forceinline__ void bn_red_row(const float v[8], float g[8], unsigned bits, bool relu, bool has_mask,
					   const float sc[8], const float sh[8], const float mean[8], const float inv[8],
					   float a[8], float b[8])
{
	if (MODE == 0) {
		for (int j = 0; j < 8; j++) {
			a[j] += v[j];
			b[j] += v[j] * v[j];
		}
		return;
	}
	bn_relu_grad8(g, v, relu, has_mask, bits, sc, sh);
	for (int j = 0; j < 8; j++) {
		a[j] += g[j];
		b[j] += g[j] * (v[j] - mean[j]) * inv[j];
	}
}

/* The block's per-thread partial sums a, b (8 channels each) summed per channel in shared memory (s1, s2:
 * BN_THREADS * 8 floats each) and added to sums[0..c), sums[c..2c): one double atomic per channel and
 * block. Every thread of the block calls it. */
__device__ __forceinline__ void bn_flush_sums(float *s1, float *s2, const float a[8], const float b[8], double *sums,
					      int c, bool with_a = true)
{
	int cx = blockDim.x, ry = blockDim.y;
	int slot = threadIdx.y * cx * 8 + threadIdx.x * 8;
	for (int j = 0; j < 8; j++) {
		s1[slot + j] = a[j];
		s2[slot + j] = b[j];
	}
	__syncthreads();
	int t = threadIdx.y * cx + threadIdx.x;
	for (int col = t; col < cx * 8; col += cx * ry) {
		int cc = blockIdx.y * cx * 8 + col;
		if (cc >= c)
			continue;
		double da = 0, db = 0;
		for (int rr = 0; rr < ry; rr++) {
			da += s1[rr * cx * 8 + col];
			db += s2[rr * cx * 8 + col];
		}
		if (with_a)
			atomicAdd(&sums[cc], da);
		atomicAdd(&sums[c + cc], db);
	}
	__syncthreads(); /* s1, s2 may be filled again */
}

/* Grid-wide end of a reduction into sums (after bn_flush_sums): true in the last block to finish, which may
 * then read every block's sums. Counts the blocks in the 32 bits after the sums (sums[2c], EX_BN_D_DOUBLES)
 * and sets the count back to zero in the last block. Every thread of the block calls it. */
__device__ bool bn_last_block(double *sums, int c)
{
	__shared__ bool last;
	__threadfence(); /* this block's atomics visible to the block that counts last */
	__syncthreads();
	if (threadIdx.x == 0 && threadIdx.y == 0) {
		unsigned *count = (unsigned *)(sums + 2 * c);
		last = atomicAdd(count, 1u) == gridDim.x * gridDim.y - 1;
		if (last)
			*count = 0;
	}
	__syncthreads();
	if (last)
		__threadfence();
	return last;
}

/* The last block's work (bn_last_block): every channel's sums finalised (bn_finalize_fwd/bwd) and set back to
 * zero for the next reduction - so a batch norm's reduction needs no memset and no finalising kernel (two
 * launches fewer per reduction: +0.3% at batch 256 on an H100, bench/NOTES.md issue 15 session 5). */
template <int MODE>
__device__ void bn_finish_sums(double *sums, int c, const bn_fin &f)
{
	int nt = blockDim.x * blockDim.y;
	for (int ch = threadIdx.y * blockDim.x + threadIdx.x; ch < c; ch += nt) {
		double s1 = __ldcg(sums + ch), s2 = __ldcg(sums + c + ch);
		sums[ch] = 0;
		sums[c + ch] = 0;
		if (MODE == 0)
			bn_finalize_fwd(f, c, ch, s1, s2);
		else
			bn_finalize_bwd(f, c, ch, s1, s2);
	}
}

/* Sums per channel of a(row) and b(row) -> sums[0..c) and sums[c..2c) (bn_red_row). U rows per loop trip,
 * all their loads issued before the sums use them: more bytes in flight per thread, as a bandwidth-bound
 * pass needs (U = 1 is the kernel before issue 15's last change; --engine bn_unroll chooses, for A/B runs). */
template <typename T, int MODE, int U>
__global__ void __launch_bounds__(BN_THREADS) k_bn_reduce(const T *x, const uint8_t *mask, const T *dy, long m, int c,
							  bool relu, const float *bn_f, double *sums, bn_fin f)
{
	__shared__ float s1[BN_THREADS * 8], s2[BN_THREADS * 8];
	int cx = blockDim.x, ry = blockDim.y;
	int ch = (blockIdx.y * cx + threadIdx.x) * 8;
	float a[8], b[8], mean[8], inv[8], sc[8], sh[8];
	for (int j = 0; j < 8; j++)
		a[j] = b[j] = 0.f;
	if (ch < c) {
		if (MODE == 1) {
			load8(bn_f + ch, mean);
			load8(bn_f + c + ch, inv);
			load8(bn_f + 2 * c + ch, sc);
			load8(bn_f + 3 * c + ch, sh);
		}
		bool has_mask = MODE == 1 && relu && mask;
		long r = blockIdx.x * (long)ry + threadIdx.y, step = (long)gridDim.x * ry;
		for (; r + (U - 1) * step < m; r += U * step) {
			float v[U][8], g[U][8];
			unsigned bits[U];
#pragma unroll
			for (int u = 0; u < U; u++) {
				size_t i = (size_t)(r + u * step) * c + ch;
				load8(x + i, v[u]);
				if (MODE == 1)
					load8(dy + i, g[u]);
				bits[u] = has_mask ? mask[i / 8] : 0u;
			}
#pragma unroll
			for (int u = 0; u < U; u++)
				bn_red_row<MODE>(v[u], g[u], bits[u], relu, has_mask, sc, sh, mean, inv, a, b);
		}
		for (; r < m; r += step) {
			size_t i = (size_t)r * c + ch;
			float v[8], g[8];
			load8(x + i, v);
			if (MODE == 1)
				load8(dy + i, g);
			bn_red_row<MODE>(v, g, has_mask ? mask[i / 8] : 0u, relu, has_mask, sc, sh, mean, inv, a, b);
		}
	}
	bn_flush_sums(s1, s2, a, b, sums, c);
	if (bn_last_block(sums, c))
		bn_finish_sums<MODE>(sums, c, f);
}

/* Rows per loop trip of k_bn_reduce: --engine bn_unroll=1|2|4, else 4 for the statistics (one input) and 2 for
 * the backward (two or three inputs: registers). Read once. */
static int bn_unroll(int mode)
{
	int u = ex_set.bn_unroll;
	return u == 1 || u == 2 || u == 4 ? u : mode == 0 ? 4 : 2;
}

template <typename T, int MODE, int U>
static void launch_bn_reduce(const T *x, const uint8_t *mask, const T *dy, long m, int c, bool relu, const float *bn_f,
			     double *sums, const bn_fin &f, cudaStream_t s)
{
	static int per_sm = 0;
	bn_geom g = bn_red_geom(m, c, bn_blocks_per_sm(k_bn_reduce<T, MODE, U>, &per_sm));
	k_bn_reduce<T, MODE, U><<<g.grid, g.block, 0, s>>>(x, mask, dy, m, c, relu, bn_f, sums, f);
}

/* Statistics (MODE 0) or backward sums (MODE 1) of one batch norm, finalised into bn_f. */
template <typename T, int MODE>
static void l_bn_reduce(const T *x, const uint8_t *mask, const T *dy, long m, int c, bool relu, const float *bn_f,
			double *sums, const bn_fin &f, cudaStream_t s)
{
	switch (bn_unroll(MODE)) {
	case 1: launch_bn_reduce<T, MODE, 1>(x, mask, dy, m, c, relu, bn_f, sums, f, s); break;
	case 4: launch_bn_reduce<T, MODE, 4>(x, mask, dy, m, c, relu, bn_f, sums, f, s); break;
	default: launch_bn_reduce<T, MODE, 2>(x, mask, dy, m, c, relu, bn_f, sums, f, s); break;
	}
}

__global__ void k_bn_eval_coef(int c, const float *gamma, const float *beta, const float *rm, const float *rv,
			       float eps, float *bn_f)
{
	int ch = blockIdx.x * blockDim.x + threadIdx.x;
	if (ch >= c)
		return;
	float invstd = rsqrtf(rv[ch] + eps);
	bn_f[2 * c + ch] = gamma[ch] * invstd;
	bn_f[3 * c + ch] = beta[ch] - rm[ch] * gamma[ch] * invstd;
}

/* One group of 8 channels: y = relu(x scale + shift (+ z)); mask (NULL: none) gets the ReLU's 8 bits. */
template <typename T>
__device__ __forceinline__ void bn_apply8(const T *x, const T *z, T *y, size_t e, const float sc[8], const float sh[8],
					  const float *zs, const float *zh, bool relu, uint8_t *mask)
{
	float v[8];
	load8(x + e, v);
	for (int j = 0; j < 8; j++)
		v[j] = __fmaf_rn(v[j], sc[j], sh[j]); /* the backward recomputes this exactly */
	if (z) {
		float zz[8];
		load8(z + e, zz);
		if (zs) /* z is a folded BN's input: its output, rounded as if stored */
			for (int j = 0; j < 8; j++)
				zz[j] = round_as<T>(__fmaf_rn(zz[j], zs[j], zh[j]));
		for (int j = 0; j < 8; j++)
			v[j] += zz[j];
	}
	if (relu)
		for (int j = 0; j < 8; j++)
			v[j] = fmaxf(v[j], 0.f);
	store8(y + e, v);
	if (mask) {
		unsigned bits = 0;
		for (int j = 0; j < 8; j++)
			bits |= (v[j] > 0.f) << j;
		mask[e / 8] = (uint8_t)bits;
	}
}

/* The channel group after gi when a flat index advances by a stride of gstep groups modulo cg. */
__device__ __forceinline__ int group_step(int gi, int gstep, int cg)
{
	return gi + gstep >= cg ? gi + gstep - cg : gi + gstep;
}

template <typename T>
__global__ void k_bn_apply(const T *x, const T *z, const float *z_bn_f, T *y, size_t total8, int c, const float *scale,
			   const float *shift, bool relu, uint8_t *mask)
{
	size_t i0 = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
	int cg = c / 8, gi = (int)(i0 % cg), gstep = (int)(stride % cg), loaded = -1;
	float sc[8], sh[8], zs[8], zh[8];
	const float *zsp = z_bn_f ? zs : NULL;
	/* the channel group follows by adding the grid stride modulo c/8 (no 64-bit division per 16 bytes); where
	 * the stride is a multiple of c/8 (ResNet's widths) it never changes and the coefficients load once */
	for (size_t i = i0; i < total8; i += stride, gi = group_step(gi, gstep, cg)) {
		if (gi != loaded) {
			load8(scale + gi * 8, sc);
			load8(shift + gi * 8, sh);
			if (z_bn_f) {
				load8(z_bn_f + 2 * c + gi * 8, zs);
				load8(z_bn_f + 3 * c + gi * 8, zh);
			}
			loaded = gi;
		}
		bn_apply8(x, z, y, i * 8, sc, sh, zsp, zh, relu, mask);
	}
}

template <typename T>
static void l_bn_fwd_train(const void *x, const void *z, const float *z_bn_f, void *y, long m, int c, const float *gamma,
			   const float *beta, float *rm, float *rv, float momentum, float eps, bool relu,
			   float *bn_f, double *bn_d, uint8_t *relu_mask, cudaStream_t s)
{
	bn_fin f = {.m = m, .gamma = gamma, .beta = beta, .run_mean = rm, .run_var = rv, .momentum = momentum, .eps = eps,
		    .dgamma = NULL, .dbeta = NULL, .bn_f = bn_f};
	l_bn_reduce<T, 0>((const T *)x, NULL, NULL, m, c, false, NULL, bn_d, f, s);
	size_t total8 = (size_t)m * c / 8;
	if (!y)
		return; /* folded into its reader (max pooling) */
	k_bn_apply<T><<<grid_for(total8, 256), 256, 0, s>>>((const T *)x, (const T *)z, z_bn_f, (T *)y, total8, c,
							    bn_f + 2 * c, bn_f + 3 * c, relu, relu ? relu_mask : NULL);
}
extern "C" void ex_k_bn_fwd_train(ex_dtype t, const void *x, const void *z, const float *z_bn_f, void *y, long m, int c,
				  const float *gamma, const float *beta, float *run_mean, float *run_var,
				  float momentum, float eps, bool relu, float *bn_f, double *bn_d, uint8_t *relu_mask,
				  cudaStream_t s)
{
	if (c % 8) {
		fprintf(stderr, "scaleplan-train: batch norm needs channels divisible by 8 (got %d)\n", c);
		exit(2);
	}
	EX_DISPATCH(t, l_bn_fwd_train, x, z, z_bn_f, y, m, c, gamma, beta, run_mean, run_var, momentum, eps, relu, bn_f, bn_d,
		    relu_mask, s);
	KCHECK();
}

template <typename T>
static void l_bn_fwd_eval(const void *x, const void *z, const float *z_bn_f, void *y, long m, int c, const float *gamma,
			  const float *beta, const float *rm, const float *rv, float eps, bool relu, float *bn_f,
			  cudaStream_t s)
{
	k_bn_eval_coef<<<(c + 127) / 128, 128, 0, s>>>(c, gamma, beta, rm, rv, eps, bn_f);
	size_t total8 = (size_t)m * c / 8;
	if (!y)
		return;
	k_bn_apply<T><<<grid_for(total8, 256), 256, 0, s>>>((const T *)x, (const T *)z, z_bn_f, (T *)y, total8, c,
							    bn_f + 2 * c, bn_f + 3 * c, relu, NULL);
}
extern "C" void ex_k_bn_fwd_eval(ex_dtype t, const void *x, const void *z, const float *z_bn_f, void *y, long m, int c,
				 const float *gamma, const float *beta, const float *run_mean, const float *run_var,
				 float eps, bool relu, float *bn_f, cudaStream_t s)
{
	EX_DISPATCH(t, l_bn_fwd_eval, x, z, z_bn_f, y, m, c, gamma, beta, run_mean, run_var, eps, relu, bn_f, s);
	KCHECK();
}

/* One group of 8 channels of the backward: dy' = dy masked by the ReLU (the forward's bits, or recomputed
 * from x scale + shift as the forward computed it), dx = A dy' + B x + C, dz = dy' (+ dz). */
template <typename T>
__device__ __forceinline__ void bn_dx8(const T *x, const uint8_t *mask, const T *dy, T *dx, T *dz, bool z_acc, bool relu,
				       size_t e, const float sc[8], const float sh[8], const float A[8], const float B[8],
				       const float C[8])
{
	float g[8], xv[8], out[8];
	load8(dy + e, g);
	load8(x + e, xv);
	bn_relu_grad8(g, xv, relu, mask != NULL, mask ? mask[e / 8] : 0u, sc, sh);
	for (int j = 0; j < 8; j++)
		out[j] = __fmaf_rn(A[j], g[j], __fmaf_rn(B[j], xv[j], C[j]));
	store8(dx + e, out);
	if (dz) {
		if (z_acc) {
			float old[8];
			load8(dz + e, old);
			for (int j = 0; j < 8; j++)
				g[j] += old[j];
		}
		store8(dz + e, g);
	}
}

/* Per-channel coefficients of bn_dx8 for the group starting at channel ch (bn_f layout: bn_finalize_fwd). */
__device__ __forceinline__ void bn_dx_coef(const float *bn_f, int c, int ch, float sc[8], float sh[8], float A[8],
					   float B[8], float C[8])
{
	load8(bn_f + 2 * c + ch, sc);
	load8(bn_f + 3 * c + ch, sh);
	load8(bn_f + 4 * c + ch, A);
	load8(bn_f + 5 * c + ch, B);
	load8(bn_f + 6 * c + ch, C);
}

template <typename T>
__global__ void k_bn_bwd_dx(const T *x, const uint8_t *mask, const T *dy, T *dx, T *dz, bool z_acc, bool relu,
			    size_t total8, int c, const float *bn_f)
{
	size_t i0 = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
	int cg = c / 8, gi = (int)(i0 % cg), gstep = (int)(stride % cg), loaded = -1;
	float sc[8], sh[8], A[8], B[8], C[8];
	for (size_t i = i0; i < total8; i += stride, gi = group_step(gi, gstep, cg)) { /* as k_bn_apply */
		if (gi != loaded) {
			bn_dx_coef(bn_f, c, gi * 8, sc, sh, A, B, C);
			loaded = gi;
		}
		bn_dx8(x, mask, dy, dx, dz, z_acc, relu, i * 8, sc, sh, A, B, C);
	}
}

template <typename T>
static void l_bn_bwd(const void *x, const uint8_t *mask, const void *dy, void *dx, void *dz, bool z_acc, bool relu,
		     long m, int c, const float *gamma, float *dgamma, float *dbeta, float *bn_f, double *bn_d,
		     cudaStream_t s)
{
	bn_fin f = {.m = m, .gamma = gamma, .beta = NULL, .run_mean = NULL, .run_var = NULL, .momentum = 0, .eps = 0,
		    .dgamma = dgamma, .dbeta = dbeta, .bn_f = bn_f};
	l_bn_reduce<T, 1>((const T *)x, mask, (const T *)dy, m, c, relu, bn_f, bn_d, f, s);
	size_t total8 = (size_t)m * c / 8;
	k_bn_bwd_dx<T><<<grid_for(total8, 256), 256, 0, s>>>((const T *)x, mask, (const T *)dy, (T *)dx, (T *)dz, z_acc,
							     relu, total8, c, bn_f);
}
extern "C" void ex_k_bn_bwd(ex_dtype t, const void *x, const uint8_t *relu_mask, const void *dy, void *dx, void *dz,
			    bool z_acc, bool relu, long m, int c, const float *gamma, float *dgamma, float *dbeta,
			    float *bn_f, double *bn_d, cudaStream_t s)
{
	EX_DISPATCH(t, l_bn_bwd, x, relu_mask, dy, dx, dz, z_acc, relu, m, c, gamma, dgamma, dbeta, bn_f, bn_d, s);
	KCHECK();
}

/* Backward sums of two batch norms whose outputs are added before one ReLU (a downsampling block whose second
 * BN is folded: exec/ex_net.c fold_bns). Both see the same dy' (dy masked by the ReLU bits), so one pass reads
 * dy and the mask once for both: sum dy' (both BNs' dbeta), sum dy' xhat1, sum dy' xhat2 -> sums1, sums2 as
 * k_bn_reduce's. U rows per loop trip (k_bn_reduce). */
__device__ __forceinline__ void bn_red2_row(float g[8], const float v1[8], const float v2[8], unsigned bits,
					    const float mean1[8], const float inv1[8], const float mean2[8],
					    const float inv2[8], float a[8], float b1[8], float b2[8])
{
	bn_relu_grad8(g, v1, true, true, bits, NULL, NULL);
	for (int j = 0; j < 8; j++) {
		a[j] += g[j];
		b1[j] += g[j] * (v1[j] - mean1[j]) * inv1[j];
		b2[j] += g[j] * (v2[j] - mean2[j]) * inv2[j];
	}
}
template <typename T, int U>
__global__ void __launch_bounds__(BN_THREADS) k_bn_reduce2(const T *x1, const T *x2, const uint8_t *mask, const T *dy,
							   long m, int c, const float *bn_f1, const float *bn_f2,
							   double *sums1, double *sums2, bn_fin f1, bn_fin f2)
{
	__shared__ float s1[BN_THREADS * 8], s2[BN_THREADS * 8];
	int ry = blockDim.y, ch = (blockIdx.y * blockDim.x + threadIdx.x) * 8;
	float a[8], b1[8], b2[8], mean1[8], inv1[8], mean2[8], inv2[8];
	for (int j = 0; j < 8; j++)
		a[j] = b1[j] = b2[j] = 0.f;
	if (ch < c) {
		load8(bn_f1 + ch, mean1);
		load8(bn_f1 + c + ch, inv1);
		load8(bn_f2 + ch, mean2);
		load8(bn_f2 + c + ch, inv2);
		long r = blockIdx.x * (long)ry + threadIdx.y, step = (long)gridDim.x * ry;
		for (; r + (U - 1) * step < m; r += U * step) {
			float g[U][8], v1[U][8], v2[U][8];
			unsigned bits[U];
#pragma unroll
			for (int u = 0; u < U; u++) {
				size_t i = (size_t)(r + u * step) * c + ch;
				load8(dy + i, g[u]);
				load8(x1 + i, v1[u]);
				load8(x2 + i, v2[u]);
				bits[u] = mask[i / 8];
			}
#pragma unroll
			for (int u = 0; u < U; u++)
				bn_red2_row(g[u], v1[u], v2[u], bits[u], mean1, inv1, mean2, inv2, a, b1, b2);
		}
		for (; r < m; r += step) {
			size_t i = (size_t)r * c + ch;
			float g[8], v1[8], v2[8];
			load8(dy + i, g);
			load8(x1 + i, v1);
			load8(x2 + i, v2);
			bn_red2_row(g, v1, v2, mask[i / 8], mean1, inv1, mean2, inv2, a, b1, b2);
		}
	}
	/* both BNs' first sum is the same (dy' over the rows): flushed once, into sums1, copied below */
	bn_flush_sums(s1, s2, a, b1, sums1, c);
	bn_flush_sums(s1, s2, a, b2, sums2, c, false);
	if (bn_last_block(sums1, c)) { /* one count for both */
		for (int ch = threadIdx.y * blockDim.x + threadIdx.x; ch < c; ch += blockDim.x * blockDim.y)
			sums2[ch] = __ldcg(sums1 + ch); /* the same thread finishes ch in both */
		bn_finish_sums<1>(sums1, c, f1);
		bn_finish_sums<1>(sums2, c, f2);
	}
}

/* The dx pass of both: dy' from dy and the ReLU bits, read once; dx1, dx2 from each BN's A, B, C. */
template <typename T>
__global__ void k_bn_bwd_dx2(const T *x1, const T *x2, const uint8_t *mask, const T *dy, T *dx1, T *dx2, size_t total8,
			     int c, const float *bn_f1, const float *bn_f2)
{
	size_t i0 = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
	int cg = c / 8, gi = (int)(i0 % cg), gstep = (int)(stride % cg), loaded = -1;
	float co[2][3][8]; /* A, B, C of each BN (bn_finalize_bwd) */
	for (size_t i = i0; i < total8; i += stride, gi = group_step(gi, gstep, cg)) { /* as k_bn_apply */
		if (gi != loaded) {
			for (int k = 0; k < 2; k++)
				for (int q = 0; q < 3; q++)
					load8((k ? bn_f2 : bn_f1) + (4 + q) * c + gi * 8, co[k][q]);
			loaded = gi;
		}
		size_t e = i * 8;
		float g[8], v[8], out[8];
		load8(dy + e, g);
		bn_relu_grad8(g, g, true, true, mask[i], NULL, NULL);
		for (int k = 0; k < 2; k++) {
			load8((k ? x2 : x1) + e, v);
			for (int j = 0; j < 8; j++)
				out[j] = __fmaf_rn(co[k][0][j], g[j], __fmaf_rn(co[k][1][j], v[j], co[k][2][j]));
			store8((k ? dx2 : dx1) + e, out);
		}
	}
}

template <typename T, int U>
static void launch_bn_reduce2(const T *x1, const T *x2, const uint8_t *mask, const T *dy, long m, int c,
			      const ex_bn_grads *b1, const ex_bn_grads *b2, const bn_fin f[2], cudaStream_t s)
{
	static int per_sm = 0;
	bn_geom g = bn_red_geom(m, c, bn_blocks_per_sm(k_bn_reduce2<T, U>, &per_sm));
	k_bn_reduce2<T, U><<<g.grid, g.block, 0, s>>>(x1, x2, mask, dy, m, c, b1->bn_f, b2->bn_f, b1->bn_d, b2->bn_d, f[0],
						      f[1]);
}

template <typename T>
static void l_bn_bwd2(const void *x1, const void *x2, const uint8_t *mask, const void *dy, void *dx1, void *dx2, long m,
		      int c, const ex_bn_grads *b1, const ex_bn_grads *b2, cudaStream_t s)
{
	const ex_bn_grads *b[2] = {b1, b2};
	bn_fin f[2];
	for (int k = 0; k < 2; k++) {
		bn_fin fk = {.m = m, .gamma = b[k]->gamma, .beta = NULL, .run_mean = NULL, .run_var = NULL, .momentum = 0,
			     .eps = 0, .dgamma = b[k]->dgamma, .dbeta = b[k]->dbeta, .bn_f = b[k]->bn_f};
		f[k] = fk;
	}
	if (bn_unroll(1) == 1)
		launch_bn_reduce2<T, 1>((const T *)x1, (const T *)x2, mask, (const T *)dy, m, c, b1, b2, f, s);
	else
		launch_bn_reduce2<T, 2>((const T *)x1, (const T *)x2, mask, (const T *)dy, m, c, b1, b2, f, s);
	size_t total8 = (size_t)m * c / 8;
	k_bn_bwd_dx2<T><<<grid_for(total8, 256), 256, 0, s>>>((const T *)x1, (const T *)x2, mask, (const T *)dy, (T *)dx1,
							      (T *)dx2, total8, c, b1->bn_f, b2->bn_f);
}
extern "C" void ex_k_bn_bwd2(ex_dtype t, const void *x1, const void *x2, const uint8_t *relu_mask, const void *dy,
			     void *dx1, void *dx2, long m, int c, const ex_bn_grads *b1, const ex_bn_grads *b2,
			     cudaStream_t s)
{
	EX_DISPATCH(t, l_bn_bwd2, x1, x2, relu_mask, dy, dx1, dx2, m, c, b1, b2, s);
	KCHECK();
}

/* The backward of a batch norm (+ReLU) whose output a max pooling alone read (the stem: exec/ex_net.c
 * fold_bns): its dy is never stored (411 MB at batch 256) but gathered from the pooling's gradient and argmax
 * by pool_block_grad, one thread per pooling output position and 8 channels, four input pixels each.
 * Reduction: the sums of k_bn_reduce (MODE 1, ReLU recomputed from x); rows = output positions. */
template <typename T>
__global__ void __launch_bounds__(BN_THREADS) k_bn_reduce_pooled(const T *x, const T *dy, const uint8_t *am, pool_geom p,
								 bool relu, const float *bn_f, double *sums, bn_fin f)
{
	__shared__ float s1[BN_THREADS * 8], s2[BN_THREADS * 8];
	int c = p.c, ry = blockDim.y, ch = (blockIdx.y * blockDim.x + threadIdx.x) * 8;
	float a[8], b[8], mean[8], inv[8], sc[8], sh[8];
	for (int j = 0; j < 8; j++)
		a[j] = b[j] = 0.f;
	if (ch < c) {
		load8(bn_f + ch, mean);
		load8(bn_f + c + ch, inv);
		load8(bn_f + 2 * c + ch, sc);
		load8(bn_f + 3 * c + ch, sh);
		unsigned mo = (unsigned)p.n * p.oh * p.ow, step = gridDim.x * ry;
		for (unsigned r = blockIdx.x * ry + threadIdx.y; r < mo; r += step) {
			unsigned t = r / p.ow;
			int ox = (int)(r - t * p.ow), oy = (int)(t % p.oh), img = (int)(t / p.oh);
			for (int row = 0; row < 2; row++) { /* one row at a time: pool_block_grad<1> */
				float g[1][2][8], v[2][8];
				for (int e = 0; e < 2; e++)
					load8(x + (((size_t)img * p.h + 2 * oy + row) * p.w + 2 * ox + e) * c + ch, v[e]);
				pool_block_grad<1>(dy, am, p, img, oy, ox, row, ch, g);
				for (int e = 0; e < 2; e++)
					bn_red_row<1>(v[e], g[0][e], 0u, relu, false, sc, sh, mean, inv, a, b);
			}
		}
	}
	bn_flush_sums(s1, s2, a, b, sums, c);
	if (bn_last_block(sums, c))
		bn_finish_sums<1>(sums, c, f);
}

/* Its dx pass: dx = A dy' + B x + C (bn_dx8) for the four pixels of each output position. */
template <typename T>
__global__ void k_bn_bwd_dx_pooled(const T *x, const T *dy, const uint8_t *am, pool_geom p, T *dx, unsigned total8,
				   bool relu, const float *bn_f)
{
	unsigned cg = p.c / 8, stride = gridDim.x * blockDim.x;
	int loaded = -1;
	float sc[8], sh[8], A[8], B[8], C[8];
	for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < total8; i += stride) {
		unsigned r = i / cg, t = r / p.ow;
		int gi = (int)(i - r * cg), ox = (int)(r - t * p.ow), oy = (int)(t % p.oh), img = (int)(t / p.oh);
		if (gi != loaded) { /* once per thread where the grid stride is a multiple of c/8 */
			bn_dx_coef(bn_f, p.c, gi * 8, sc, sh, A, B, C);
			loaded = gi;
		}
		float g[2][2][8], xv[8], out[8];
		pool_block_grad<2>(dy, am, p, img, oy, ox, 0, gi * 8, g);
		for (int q = 0; q < 4; q++) {
			size_t at = (((size_t)img * p.h + 2 * oy + q / 2) * p.w + 2 * ox + q % 2) * p.c + gi * 8;
			float *gq = g[q / 2][q % 2];
			load8(x + at, xv);
			bn_relu_grad8(gq, xv, relu, false, 0u, sc, sh);
			for (int j = 0; j < 8; j++)
				out[j] = __fmaf_rn(A[j], gq[j], __fmaf_rn(B[j], xv[j], C[j]));
			store8(dx + at, out);
		}
	}
}
template <typename T>
static void l_bn_bwd_pooled(const void *x, const void *pool_dy, const uint8_t *am, void *dx, pool_geom p, bool relu,
			    const ex_bn_grads *b, cudaStream_t s)
{
	static int per_sm = 0;
	long m = (long)p.n * p.h * p.w, mo = (long)p.n * p.oh * p.ow;
	bn_geom g = bn_red_geom(mo, p.c, bn_blocks_per_sm(k_bn_reduce_pooled<T>, &per_sm));
	bn_fin f = {.m = m, .gamma = b->gamma, .beta = NULL, .run_mean = NULL, .run_var = NULL, .momentum = 0, .eps = 0,
		    .dgamma = b->dgamma, .dbeta = b->dbeta, .bn_f = b->bn_f};
	k_bn_reduce_pooled<T><<<g.grid, g.block, 0, s>>>((const T *)x, (const T *)pool_dy, am, p, relu, b->bn_f, b->bn_d,
							 f);
	size_t total8 = (size_t)mo * p.c / 8;
	k_bn_bwd_dx_pooled<T><<<grid_for(total8, 256), 256, 0, s>>>((const T *)x, (const T *)pool_dy, am, p, (T *)dx,
								    (unsigned)total8, relu, b->bn_f);
}
extern "C" bool ex_k_bn_bwd_pooled_fits(long n, int h, int w, int c, int oh, int ow, int k, int stride, int pad)
{
	return c % 8 == 0 && k == 3 && stride == 2 && pad == 1 && h == 2 * oh && w == 2 * ow &&
	       (size_t)n * h * w * c <= (size_t)INT_MAX;
}
extern "C" void ex_k_bn_bwd_pooled(ex_dtype t, const void *x, const void *pool_dy, const uint8_t *argmax, void *dx,
				   int n, int h, int w, int c, int oh, int ow, int k, int stride, int pad, bool relu,
				   const ex_bn_grads *b, cudaStream_t s)
{
	if (!ex_k_bn_bwd_pooled_fits(n, h, w, c, oh, ow, k, stride, pad))
		ex_die_cuda(cudaErrorInvalidValue, "ex_k_bn_bwd_pooled: needs a 3x3 stride-2 padding-1 pooling of an input "
			    "twice its output, c % 8 == 0 and n h w c < 2^31", __FILE__, __LINE__);
	pool_geom p = {n, h, w, c, oh, ow, k, stride, pad};
	EX_DISPATCH(t, l_bn_bwd_pooled, x, pool_dy, argmax, dx, p, relu, b, s);
	KCHECK();
}

/* ---- pooling ---- */

/* Max pooling, 8 channels per thread (16-byte loads for bf16/fp16, 8 argmax bytes at once; issue 15:
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
 * issue 15, session 6). */
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
 * took 0.10 ms for ResNet-50's 51 MB at batch 256 on an H100 (ncu, issue 15 session 6). */
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

/* ---- loss ---- */

/* One block (256 threads) per row. Label smoothing as torch.nn.CrossEntropyLoss(label_smoothing=e):
 * target q = (1-e) onehot + e/C; loss = -sum q log p; dlogits = (p - q) * scale / n. */
template <typename T>
__global__ void k_softmax_xent(float *logits, const float *bias, const int *labels, int n, int classes, float eps,
			       int valid, ex_dev_state *st_, float *dl32, T *dlc)
{
	__shared__ float red[256];
	__shared__ int redi[256];
	int row = blockIdx.x, tid = threadIdx.x;
	float *l = logits + (size_t)row * classes;
	float mx = -INFINITY;
	int amax = 0;
	for (int j = tid; j < classes; j += blockDim.x) {
		float v = l[j] + (bias ? bias[j] : 0.f);
		l[j] = v;
		if (v > mx) {
			mx = v;
			amax = j;
		}
	}
	red[tid] = mx;
	redi[tid] = amax;
	__syncthreads();
	for (int o = blockDim.x / 2; o > 0; o >>= 1) {
		if (tid < o) {
			float a = red[tid], b = red[tid + o];
			int ia = redi[tid], ib = redi[tid + o];
			if (b > a || (b == a && ib < ia)) {
				red[tid] = b;
				redi[tid] = ib;
			}
		}
		__syncthreads();
	}
	mx = red[0];
	amax = redi[0];
	__syncthreads();
	float se = 0.f, sl = 0.f;
	for (int j = tid; j < classes; j += blockDim.x) {
		se += expf(l[j] - mx);
		sl += l[j];
	}
	red[tid] = se;
	__syncthreads();
	for (int o = blockDim.x / 2; o > 0; o >>= 1) {
		if (tid < o)
			red[tid] += red[tid + o];
		__syncthreads();
	}
	se = red[0];
	__syncthreads();
	red[tid] = sl;
	__syncthreads();
	for (int o = blockDim.x / 2; o > 0; o >>= 1) {
		if (tid < o)
			red[tid] += red[tid + o];
		__syncthreads();
	}
	sl = red[0];
	float lse = mx + logf(se);
	int y = labels[row];
	if (tid == 0 && row < valid) {
		/* -sum q log p = (1-e)(lse - l_y) + e/C * (C lse - sum l) */
		float loss = (1.f - eps) * (lse - l[y]) + eps / classes * (classes * lse - sl);
		atomicAdd(&st_->loss_sum, (double)loss);
		atomicAdd(&st_->correct, amax == y ? 1 : 0);
		atomicAdd(&st_->seen, 1);
	}
	if (dl32) {
		float scale = st_->loss_scale / n;
		for (int j = tid; j < classes; j += blockDim.x) {
			float p = expf(l[j] - lse);
			float q = eps / classes + (j == y ? 1.f - eps : 0.f);
			float g = (p - q) * scale;
			dl32[(size_t)row * classes + j] = g;
			st(dlc, (size_t)row * classes + j, g);
		}
	}
}
template <typename T>
static void l_softmax_xent(float *logits, const float *bias, const int *labels, int n, int classes, float eps,
			   int valid, ex_dev_state *st_, float *dl32, void *dlc, cudaStream_t s)
{
	k_softmax_xent<T><<<n, 256, 0, s>>>(logits, bias, labels, n, classes, eps, valid, st_, dl32, (T *)dlc);
}
extern "C" void ex_k_softmax_xent(float *logits, const float *bias, const int *labels, int n, int classes,
				  float smoothing, int valid, ex_dev_state *st_, float *dl32, ex_dtype t, void *dlc,
				  cudaStream_t s)
{
	EX_DISPATCH(t, l_softmax_xent, logits, bias, labels, n, classes, smoothing, valid, st_, dl32, dlc, s);
	KCHECK();
}

__global__ void k_bias_grad(const float *dl, float *db, int n, int classes)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= classes)
		return;
	float a = 0.f;
	for (int i = 0; i < n; i++)
		a += dl[(size_t)i * classes + j];
	db[j] = a;
}
extern "C" void ex_k_bias_grad(const float *dl32, float *db, int n, int classes, cudaStream_t s)
{
	k_bias_grad<<<(classes + 127) / 128, 128, 0, s>>>(dl32, db, n, classes);
	KCHECK();
}

/* ---- optimizer ---- */

__device__ __host__ float sched_lr(const ex_sched *s, int step)
{
	float lr;
	if (s->warmup_steps > 0 && step < s->warmup_steps)
		return s->base_lr * (float)(step + 1) / (float)s->warmup_steps;
	int t = step - s->warmup_steps, T = s->total_steps - s->warmup_steps;
	if (T < 1)
		T = 1;
	if (t > T)
		t = T;
	float f = (float)t / (float)T;
	switch (s->kind) {
	case EX_SCHED_STEP: {
		int k = s->step_every > 0 ? t / s->step_every : 0;
		lr = s->base_lr;
		for (int i = 0; i < k; i++)
			lr *= s->step_gamma;
		return lr;
	}
	case EX_SCHED_POLY:
		return s->end_lr + (s->base_lr - s->end_lr) * powf(1.f - f, s->power);
	default: /* cosine (Loshchilov & Hutter, SGDR, without restarts) */
		return s->end_lr + 0.5f * (s->base_lr - s->end_lr) * (1.f + cosf(3.14159265358979f * f));
	}
}
extern "C" float ex_sched_lr_host(const ex_sched *s, int step) { return sched_lr(s, step); }

__global__ void k_check_inf(const float *g, size_t n, ex_dev_state *st_)
{
	int bad = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		if (!isfinite(g[i]))
			bad = 1;
	if (__syncthreads_or(bad) && threadIdx.x == 0)
		st_->found_inf = 1;
}
extern "C" void ex_k_check_inf(const float *g, size_t n, ex_dev_state *st_, cudaStream_t s)
{
	k_check_inf<<<grid_for(n, 256), 256, 0, s>>>(g, n, st_);
	KCHECK();
}

/* |w|^2 and |g|^2 per tensor (one block per optimizer block, atomics per tensor). */
__global__ void k_lars_norms(const float *w, const float *g, const ex_opt_block *blocks, float *norms, int ntensors)
{
	__shared__ float a[256], b[256];
	ex_opt_block bl = blocks[blockIdx.x];
	float sw = 0.f, sg = 0.f;
	for (long long i = bl.first + threadIdx.x; i < bl.last; i += blockDim.x) {
		sw += w[i] * w[i];
		sg += g[i] * g[i];
	}
	a[threadIdx.x] = sw;
	b[threadIdx.x] = sg;
	__syncthreads();
	for (int o = blockDim.x / 2; o > 0; o >>= 1) {
		if (threadIdx.x < o) {
			a[threadIdx.x] += a[threadIdx.x + o];
			b[threadIdx.x] += b[threadIdx.x + o];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		atomicAdd(&norms[bl.tensor], a[0]);
		atomicAdd(&norms[ntensors + bl.tensor], b[0]);
	}
}
extern "C" void ex_k_lars_norms(const float *w, const float *g, const ex_opt_block *blocks, int nblocks, float *norms,
				int ntensors, cudaStream_t s)
{
	cudaMemsetAsync(norms, 0, 2 * ntensors * sizeof(float), s);
	k_lars_norms<<<nblocks, 256, 0, s>>>(w, g, blocks, norms, ntensors);
	KCHECK();
}

/* SGD with momentum, PyTorch semantics: g' = g/scale + wd*w (decay tensors); m = mu*m + g'; w -= lr*m.
 * LARS (MLPerf reference): on decay tensors lr_t = lr * eta*|w|/(|g| + wd|w|); m = mu*m + lr_t*g';
 * w -= m. Writes the compute copy of w. Skips everything when fp16 found an inf. */
template <typename T>
__global__ void k_sgd(float *w, float *mom, const float *g, T *wc, const ex_opt_block *blocks, const int *decay,
		      const float *norms, int ntensors, ex_opt_cfg cfg, ex_dev_state *st_)
{
	if (st_->found_inf)
		return;
	ex_opt_block bl = blocks[blockIdx.x];
	float lr = sched_lr(&cfg.sched, st_->step);
	float inv = 1.f / st_->loss_scale;
	bool dec = decay[bl.tensor] != 0;
	float wd = dec ? cfg.weight_decay : 0.f;
	float tl = lr;
	if (cfg.lars && dec) {
		float wn = sqrtf(norms[bl.tensor]), gn = sqrtf(norms[ntensors + bl.tensor]) * inv;
		float trust = (wn > 0.f && gn > 0.f) ? cfg.lars_eta * wn / (gn + cfg.weight_decay * wn) : 1.f;
		tl = lr * trust;
	}
	for (long long i = bl.first + threadIdx.x; i < bl.last; i += blockDim.x) {
		float gi = g[i] * inv + wd * w[i];
		float m;
		if (cfg.lars) {
			m = cfg.momentum * mom[i] + tl * gi;
			w[i] -= m;
		} else {
			m = cfg.momentum * mom[i] + gi;
			w[i] -= lr * m;
		}
		mom[i] = m;
		if (wc)
			st(wc, (size_t)i, w[i]);
	}
	if (blockIdx.x == 0 && threadIdx.x == 0)
		st_->lr = lr;
}
template <typename T>
static void l_sgd(float *w, float *mom, const float *g, void *wc, const ex_opt_block *blocks, int nblocks,
		  const int *decay, const float *norms, int ntensors, ex_opt_cfg cfg, ex_dev_state *st_, cudaStream_t s)
{
	k_sgd<T><<<nblocks, 256, 0, s>>>(w, mom, g, (T *)wc, blocks, decay, norms, ntensors, cfg, st_);
}
extern "C" void ex_k_sgd(ex_dtype t, float *w, float *mom, const float *g, void *wc, const ex_opt_block *blocks,
			 int nblocks, const int *decay, const float *norms, int ntensors, ex_opt_cfg cfg,
			 ex_dev_state *st_, cudaStream_t s)
{
	EX_DISPATCH(t, l_sgd, w, mom, g, wc, blocks, nblocks, decay, norms, ntensors, cfg, st_, s);
	KCHECK();
}

__global__ void k_step_end(ex_dev_state *st_, bool dyn)
{
	if (dyn) {
		/* torch.cuda.amp.GradScaler defaults: backoff 0.5, growth 2 every 2000 good steps */
		if (st_->found_inf) {
			st_->loss_scale *= 0.5f;
			st_->good_steps = 0;
			st_->skipped++;
		} else if (++st_->good_steps >= 2000) {
			st_->loss_scale *= 2.f;
			st_->good_steps = 0;
		}
	}
	if (!st_->found_inf)
		st_->step++;
	st_->found_inf = 0;
}
extern "C" void ex_k_step_end(ex_dev_state *st_, bool dynamic_scale, cudaStream_t s)
{
	k_step_end<<<1, 1, 0, s>>>(st_, dynamic_scale);
	KCHECK();
}

/* ---- Fashion-MNIST batches ---- */

/* Normalisation: Fashion-MNIST pixel mean 0.2860, std 0.3530 (on 0..1). One thread per output pixel.
 * Train: random crop of the 28x28 image padded by 4 (torchvision RandomCrop(28, padding=4)) and
 * a horizontal flip with probability 1/2, then a bilinear resize to hw x hw. */
template <typename T>
__global__ void k_fmnist(const uint8_t *images, const uint8_t *labels8, const int *idx, int n, int hw, bool train,
			 uint64_t seed, T *x, int *labels)
{
	size_t total = (size_t)n * hw * hw;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
		int b = (int)(i / ((size_t)hw * hw));
		int p = (int)(i % ((size_t)hw * hw));
		int oy = p / hw, ox = p % hw;
		int img = idx[b];
		int dx = 0, dy = 0;
		bool flip = false;
		if (train) {
			uint64_t h = hash64(seed * 1000003ULL + (uint64_t)b);
			dx = (int)(h % 9) - 4;
			dy = (int)((h >> 8) % 9) - 4;
			flip = (h >> 16) & 1;
		}
		/* bilinear, align_corners=False */
		float sy = (oy + 0.5f) * 28.f / hw - 0.5f, sx = (ox + 0.5f) * 28.f / hw - 0.5f;
		if (flip)
			sx = 27.f - sx;
		int y0 = (int)floorf(sy), x0 = (int)floorf(sx);
		float fy = sy - y0, fx = sx - x0;
		float v = 0.f;
		for (int a = 0; a < 2; a++)
			for (int c = 0; c < 2; c++) {
				int cy = min(max(y0 + a, 0), 27), cx = min(max(x0 + c, 0), 27);
				int yy = cy + dy, xx = cx + dx;
				float pix = (yy < 0 || yy >= 28 || xx < 0 || xx >= 28) ? 0.f
					    : images[(size_t)img * 784 + yy * 28 + xx] * (1.f / 255.f);
				v += pix * (a ? fy : 1.f - fy) * (c ? fx : 1.f - fx);
			}
		v = (v - 0.2860f) / 0.3530f;
		st(x, i * 3 + 0, v);
		st(x, i * 3 + 1, v);
		st(x, i * 3 + 2, v);
		if (p == 0)
			labels[b] = labels8[img];
	}
}
template <typename T>
static void l_fmnist(const uint8_t *images, const uint8_t *labels8, const int *idx, int n, int hw, bool train,
		     uint64_t seed, void *x, int *labels, cudaStream_t s)
{
	size_t total = (size_t)n * hw * hw;
	k_fmnist<T><<<grid_for(total, 256), 256, 0, s>>>(images, labels8, idx, n, hw, train, seed, (T *)x, labels);
}
extern "C" void ex_k_fmnist_batch(ex_dtype t, const uint8_t *images, const uint8_t *labels8, const int *idx, int n,
				  int hw, bool train, uint64_t seed, void *x, int *labels, cudaStream_t s)
{
	EX_DISPATCH(t, l_fmnist, images, labels8, idx, n, hw, train, seed, x, labels, s);
	KCHECK();
}

/* ---- GPU JPEG path (ex_jpeg_gpu.c): decoded RGB images -> crop, resize, flip, normalise ----
 * One thread per output pixel. Each output pixel averages an n x n grid of bilinear samples over its
 * footprint in the source (n = ceil(source pixels per output pixel), at most 4): a box prefilter when the
 * crop shrinks, so large crops do not alias; plain bilinear when it grows. ImageNet mean/std as the CPU
 * path (torchvision's Normalize, on 0..1 pixels). Writes NHWC [n][hw][hw][3] in T and the labels. */
__constant__ float c_crop_mean[3] = {0.485f, 0.456f, 0.406f}, c_crop_istd[3] = {1 / 0.229f, 1 / 0.224f, 1 / 0.225f};

__device__ __forceinline__ void bilinear_rgb(const unsigned char *img, int w, int h, float sx, float sy, float *acc)
{
	sx = fminf(fmaxf(sx, 0.f), (float)(w - 1));
	sy = fminf(fmaxf(sy, 0.f), (float)(h - 1));
	int x0 = (int)sx, y0 = (int)sy, x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1);
	float fx = sx - x0, fy = sy - y0;
	const unsigned char *r0 = img + (size_t)y0 * w * 3, *r1 = img + (size_t)y1 * w * 3;
	for (int c = 0; c < 3; c++) {
		float top = r0[x0 * 3 + c] + fx * (r0[x1 * 3 + c] - r0[x0 * 3 + c]);
		float bot = r1[x0 * 3 + c] + fx * (r1[x1 * 3 + c] - r1[x0 * 3 + c]);
		acc[c] += top + fy * (bot - top);
	}
}

template <typename T>
__global__ void k_crop_rgb(const ex_crop_desc *desc, const unsigned char *base, int out, T *dst, int *labels)
{
	const ex_crop_desc d = desc[blockIdx.y];
	int p = blockIdx.x * blockDim.x + threadIdx.x;
	if (p == 0)
		labels[blockIdx.y] = d.label;
	if (p >= out * out)
		return;
	int oy = p / out, ox = p % out, sxo = d.flip ? out - 1 - ox : ox;
	float scx = d.cw / out, scy = d.ch / out;
	int nx = min(4, max(1, (int)ceilf(scx))), ny = min(4, max(1, (int)ceilf(scy)));
	float acc[3] = {0, 0, 0};
	const unsigned char *img = base + d.off_B;
	for (int j = 0; j < ny; j++)
		for (int i = 0; i < nx; i++)
			bilinear_rgb(img, d.w, d.h, d.cx + (sxo + (i + 0.5f) / nx) * scx - 0.5f,
				     d.cy + (oy + (j + 0.5f) / ny) * scy - 0.5f, acc);
	float k = 1.f / (255.f * nx * ny);
	size_t o = (((size_t)blockIdx.y * out + oy) * out + ox) * 3;
	for (int c = 0; c < 3; c++)
		st(dst, o + c, (acc[c] * k - c_crop_mean[c]) * c_crop_istd[c]);
}
template <typename T>
static void l_crop_rgb(const ex_crop_desc *desc, const unsigned char *base, int n, int out, void *dst, int *labels,
		       cudaStream_t s)
{
	dim3 grid((out * out + 255) / 256, n);
	k_crop_rgb<T><<<grid, 256, 0, s>>>(desc, base, out, (T *)dst, labels);
}
extern "C" void ex_k_crop_rgb(ex_dtype t, const ex_crop_desc *desc, const unsigned char *base, int n, int out_hw,
			      void *dst, int *labels, cudaStream_t s)
{
	if (n < 1)
		return;
	EX_DISPATCH(t, l_crop_rgb, desc, base, n, out_hw, dst, labels, s);
	KCHECK();
}
