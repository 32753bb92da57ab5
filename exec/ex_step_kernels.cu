/* exec kernels of the training step's end: the loss and its gradient, the optimizer.
 * NHWC tensors in fp32, bf16 or fp16 (T); statistics and parameters in fp32. Each launcher is extern "C",
 * takes the stream and checks the launch (exit 2 on failure).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "exec/ex_kernels.cuh"

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

