/* exec kernels, what every kernel file shares: element loads and stores in fp32, bf16 or fp16 (one at a time
 * and 8 channels at once), the type dispatch of the launchers, grid sizing, a counter hash for random
 * numbers, and max pooling's gradient gather (used by the pooling backward and by the batch norm folded into
 * a pooling). Included by exec/ex_*_kernels.cu.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef EX_KERNELS_CUH
#define EX_KERNELS_CUH
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
static inline int grid_for(size_t n, int threads)
{
	size_t b = (n + threads - 1) / threads;
	if (b > GRID_MAX_BLOCKS)
		b = GRID_MAX_BLOCKS;
	return b < 1 ? 1 : (int)b;
}
/* A grid-stride loop over n items of a grid_for(n, 256) grid counts in 32 bits without wrapping. */
static inline bool fits_u32_loop(size_t n) { return n + (size_t)GRID_MAX_BLOCKS * 256 <= UINT_MAX; }

/* splitmix64 / counter hash: deterministic per (seed, index). */
__device__ __forceinline__ uint64_t hash64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}
__device__ __forceinline__ float u01(uint64_t h) { return ((h >> 40) + 0.5f) * (1.0f / 16777216.0f); }

/* 8 consecutive channels in one 16-byte access (bf16/fp16; two for fp32) */
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

#endif
