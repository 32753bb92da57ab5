/* exec kernels that fill, cast and reshape tensors: random fills, casts to and from fp32, the stem's
 * channel padding and space-to-depth.
 * NHWC tensors in fp32, bf16 or fp16 (T); statistics and parameters in fp32. Each launcher is extern "C",
 * takes the stream and checks the launch (exit 2 on failure).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "exec/ex_kernels.cuh"

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
 * (ncu: 0.21 ms per step at batch 256; bench/NOTES.md's log). */
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

/* ---- channel padding of the stem ----
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

/* Space-to-depth stem. A stride-2 RxR convolution with padding P over an image of c channels
 * equals a stride-1 AxA convolution (A = (R+1)/2, no padding) over the padded image rearranged so that
 * every 2x2 block of pixels becomes one pixel of 4c channels (channel (2p+q)c + ch holds the block's
 * pixel (p, q)), with weights W[k][a][b][(2p+q)c + ch] = w[k][2a+p][2b+q][ch] (zero where 2a+p or 2b+q
 * reaches R). Channels 4c..c_dst-1 are zero. On an H100 the ResNet-50 stem runs 2.4x faster forward
 * and 2x faster weight gradient this way (bench/NOTES.md, fuse-probe --shape 16,115,64,4,1,0). */
/* C: the image's channels known at compile time (3), so that px stays in registers (a runtime c put it in
 * local memory: 0.18 ms at batch 256 on an H100 for 185 MB, ncu); 0: c at run time.
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

