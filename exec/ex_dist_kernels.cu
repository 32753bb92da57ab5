/* exec: element-type conversion and fill kernels of the data-parallel layer (ex_dist.h).
 *
 * Gradients are all-reduced in the precision --grad-precision asks for; when the flat gradient
 * buffer holds another type, each bucket is converted into the comm buffer and back. Grid-stride
 * loops, 16-byte-aligned buffers are not assumed (bucket offsets are arbitrary elements).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "exec/ex_dist.h"

static __device__ __forceinline__ float load_as_float(const void *p, int t, long i)
{
	switch (t) {
	case EX_DIST_BF16: return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
	case EX_DIST_FP16: return __half2float(((const __half *)p)[i]);
	default: return ((const float *)p)[i];
	}
}

static __device__ __forceinline__ void store_from_float(void *p, int t, long i, float v)
{
	switch (t) {
	case EX_DIST_BF16: ((__nv_bfloat16 *)p)[i] = __float2bfloat16_rn(v); break;
	case EX_DIST_FP16: ((__half *)p)[i] = __float2half_rn(v); break;
	default: ((float *)p)[i] = v; break;
	}
}

static __global__ void convert_kernel(void *dst, int dt, const void *src, int st, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
		store_from_float(dst, dt, i, load_as_float(src, st, i));
}

static __global__ void fill_kernel(void *dst, int t, long n, float v, float step)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
		store_from_float(dst, t, i, v + step * (float)(i % 1024));
}

/* Enough blocks to cover n up to 4 waves of 132 SMs x 8 blocks; grid-stride beyond. */
static unsigned grid_for(long n)
{
	long blocks = (n + 255) / 256;
	if (blocks > 132 * 8 * 4)
		blocks = 132 * 8 * 4;
	return (unsigned)(blocks < 1 ? 1 : blocks);
}

extern "C" int ex_dist_convert(void *dst, ex_dist_dtype dst_t, const void *src, ex_dist_dtype src_t,
                               long n, cudaStream_t s)
{
	if (n <= 0)
		return cudaSuccess;
	convert_kernel<<<grid_for(n), 256, 0, s>>>(dst, (int)dst_t, src, (int)src_t, n);
	return (int)cudaGetLastError();
}

/* step is applied to i mod 1024 so that large fills stay exactly representable in bf16/fp16
 * when step is a small power of two. */
extern "C" int ex_dist_fill(void *dst, ex_dist_dtype t, long n, float v, float step, cudaStream_t s)
{
	if (n <= 0)
		return cudaSuccess;
	fill_kernel<<<grid_for(n), 256, 0, s>>>(dst, (int)t, n, v, step);
	return (int)cudaGetLastError();
}
