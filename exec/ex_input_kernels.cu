/* exec kernels that make input batches on the GPU: Fashion-MNIST batches and the JPEG path's crop, resize,
 * flip and normalise.
 * NHWC tensors in fp32, bf16 or fp16 (T); statistics and parameters in fp32. Each launcher is extern "C",
 * takes the stream and checks the launch (exit 2 on failure).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "exec/ex_kernels.cuh"

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

