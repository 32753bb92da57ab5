/* exec kernels of batch normalisation: statistics, the fused normalise + add + ReLU, their backward.
 * NHWC tensors in fp32, bf16 or fp16 (T); statistics and parameters in fp32. Each launcher is extern "C",
 * takes the stream and checks the launch (exit 2 on failure).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "exec/ex_kernels.cuh"

/* ---- batch norm (NHWC: m = N*H*W rows of c channels, c a multiple of 8) ----
 * Every thread works on 8 consecutive channels of a row (one 16-byte load for bf16/fp16).
 * Reductions: block = CX channel groups x (256/CX) rows, per-thread float partials, a shared-memory
 * column sum, then one double atomic per channel and block. */
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
 * smaller layers moved 1-1.5 TB/s that way on an H100 (bench/NOTES.md's log). */

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
 * launches fewer per reduction: +0.3% at batch 256 on an H100, bench/NOTES.md's log). */
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
 * pass needs (U = 1 is the one-row-per-trip kernel; --engine bn_unroll chooses, for A/B runs). */
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

