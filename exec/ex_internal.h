/* exec internals: the single-GPU training engine of scaleplan-train and the hooks that the
 * distributed layer (exec/ex_dist.c) plugs into. Only exec/ includes this header.
 *
 * Memory layout the distributed engineer relies on (all in torchvision resnet50().parameters()
 * order, one contiguous flat fp32 buffer each, so gradient buckets are contiguous slices and a
 * checkpoint is a few cudaMemcpy calls):
 *   ex_params.w32   [n] fp32 master weights (conv weights stored K,R,S,C = NHWC filters)
 *   ex_params.mom   [n] fp32 momentum
 *   ex_params.grad  [n] fp32 gradients of the LOCAL batch mean loss (the loss is divided by the local
 *                       batch size; a data-parallel all-reduce must AVERAGE: ncclAvg, or sum and divide)
 *   ex_params.bnstat[nbnstat] fp32 BN running means and variances (not trained; checkpoint them too)
 * Backward runs the layers in reverse table order; after a layer's parameter gradients are complete
 * on `stream`, hooks.grad_ready(ctx, first, count, stream) is called with the element range
 * [first, first+count) of grad that just became final (ranges arrive in decreasing offset order and
 * cover [0, n) exactly once per step). Before the optimizer, hooks.before_optimizer(ctx, stream) must
 * make `stream` wait for every reduction (cudaStreamWaitEvent). Both may be NULL (single process).
 * The whole step (forward, backward, hooks, optimizer) may be captured in a CUDA graph; hooks must
 * only enqueue capturable work (NCCL collectives and events are).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_EX_INTERNAL_H
#define SCALEPLAN_EX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cudnn.h>

#include "exec/ex_settings.h"
#include "model/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- checks: environment failures print file:line and the library's message, then exit 2 ---- */
void ex_die_cuda(cudaError_t e, const char *what, const char *file, int line);
void ex_die_cudnn(cudnnStatus_t s, const char *what, const char *file, int line);
void ex_die_cublas(cublasStatus_t s, const char *what, const char *file, int line);
#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) ex_die_cuda(e_, #x, __FILE__, __LINE__); } while (0)
#define CUDNN_CHECK(x) do { cudnnStatus_t s_ = (x); if (s_ != CUDNN_STATUS_SUCCESS) ex_die_cudnn(s_, #x, __FILE__, __LINE__); } while (0)
#define CUBLAS_CHECK(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) ex_die_cublas(s_, #x, __FILE__, __LINE__); } while (0)

/* Element type of activations and of the compute copy of the weights. */
typedef enum ex_dtype { EX_F32 = 0, EX_BF16 = 1, EX_F16 = 2 } ex_dtype;
typedef enum ex_prec { EX_PREC_BF16, EX_PREC_FP16, EX_PREC_TF32, EX_PREC_FP32 } ex_prec;
size_t ex_dtype_size(ex_dtype t);

/* cudaMalloc / cudaFree of the engine's own buffers (weights, optimizer state, activation arena, cuDNN and
 * cuBLAS workspaces, staging, gradient buckets), counted. The peak is the figure comparable to PyTorch's
 * torch.cuda.max_memory_allocated (its tensors and the workspaces it hands to cuDNN/cuBLAS); the device's
 * used memory (cudaMemGetInfo) also holds the CUDA context, the CUDA graph and the libraries' own memory. */
cudaError_t ex_dev_malloc(void **p, size_t size_B);
cudaError_t ex_dev_free(void *p);
size_t ex_dev_alloc_now_B(void);  /* held now (during training: the steady figure) */
size_t ex_dev_alloc_peak_B(void); /* the most ever held (start-up autotuning's workspace included) */

/* Learning-rate schedule, evaluated on the device from the step counter (CUDA-graph friendly). */
typedef enum ex_sched_kind { EX_SCHED_COSINE = 0, EX_SCHED_STEP = 1, EX_SCHED_POLY = 2 } ex_sched_kind;
typedef struct ex_sched {
	int kind;             /* ex_sched_kind */
	float base_lr;        /* peak learning rate after warm-up */
	float end_lr;         /* cosine/poly floor */
	float power;          /* poly exponent (MLPerf LARS: 2) */
	int warmup_steps;     /* linear ramp from base_lr/warmup_steps to base_lr */
	int total_steps;      /* steps of the whole run */
	int step_every;       /* step schedule: multiply by step_gamma every step_every steps */
	float step_gamma;
} ex_sched;

/* Optimizer hyper-parameters (PyTorch SGD semantics; LARS as MLPerf's reference). */
typedef struct ex_opt_cfg {
	ex_sched sched;
	float momentum;       /* 0.9 */
	float weight_decay;   /* 5e-5 */
	bool lars;            /* layer-wise adaptive rate scaling on weights (not BN/bias) */
	float lars_eta;       /* trust coefficient, 0.001 */
	bool dynamic_scale;   /* fp16: skip steps with inf/nan gradients, adjust the loss scale */
} ex_opt_cfg;

/* Device-side training state read by kernels (one small struct in device memory). */
typedef struct ex_dev_state {
	int step;             /* optimizer steps taken (schedule input) */
	int good_steps;       /* fp16: steps since the loss scale last changed */
	int found_inf;        /* fp16: this step's gradients hold inf/nan */
	int skipped;          /* fp16: steps skipped so far */
	float loss_scale;     /* 1 except fp16 */
	float lr;             /* the learning rate of the last step */
	double loss_sum;      /* summed per-sample loss since the host last cleared it */
	int correct;          /* top-1 hits since the host last cleared it */
	int seen;             /* samples counted in loss_sum/correct */
} ex_dev_state;

/* One parameter tensor in the flat buffers. */
typedef struct ex_ptensor {
	char name[64];        /* torchvision name: "layer1.0.conv1.weight" */
	size_t off, n;        /* element range in the flat buffers */
	bool decay;           /* weight decay (and LARS) applies */
} ex_ptensor;

/* A block of the optimizer grid: a slice of one parameter tensor (kernels index tensors per block). */
typedef struct ex_opt_block { int tensor; int pad; long long first, last; } ex_opt_block;

typedef struct ex_params {
	size_t n;             /* total trainable parameters */
	int ntensors;
	ex_ptensor *tensors;  /* [ntensors] host */
	float *w32, *mom, *grad;   /* [n] device, flat */
	void *wc;             /* [n] device, compute-dtype copy of w32 (== w32 for fp32/tf32) */
	float *bnstat;        /* [nbnstat] device: running mean, running var per BN */
	size_t nbnstat;
	ex_opt_block *blocks; /* device [nblocks] */
	int nblocks;
	float *norms;         /* device [2*ntensors] LARS: |w|^2, |g|^2 */
	int *decay_flags;     /* device [ntensors] */
} ex_params;

/* Distributed hooks (see the head comment). */
typedef struct ex_hooks {
	void *ctx;
	int (*grad_ready)(void *ctx, size_t first, size_t count, cudaStream_t stream);
	int (*before_optimizer)(void *ctx, cudaStream_t stream);
} ex_hooks;

/* A convolution's shape as cuDNN runs it (per image: c channels of h x w; r x r kernel). */
typedef struct ex_convgeo { int c, h, w, r, stride, pad; } ex_convgeo;
/* The 7x7 stride-2 stem on 3 channels keeps cuDNN off its fast kernels: run it as it is, on
 * the image padded with zero channels to 8, or as the equivalent stride-1 4x4 convolution over the
 * image's 2x2 blocks (space-to-depth, 16 channels; ex_k_s2d). */
typedef enum ex_stem { EX_STEM_PLAIN, EX_STEM_PAD8, EX_STEM_S2D } ex_stem;

/* One executed step of the network (fused: BN[+add]+ReLU). */
typedef enum ex_kind { EX_CONV, EX_BN, EX_MAXPOOL, EX_AVGPOOL, EX_FC } ex_kind;
typedef struct ex_op {
	ex_kind kind;
	int layer;            /* model layer index */
	int in, out, z;       /* tensor ids; z: residual added before ReLU (-1 none) */
	bool relu;
	bool acc_in, acc_z;   /* backward accumulates into the input / residual gradient (planned) */
	int c, h, w;          /* input shape per image */
	int k, oh, ow;        /* output channels and size */
	int r, stride, pad;
	int pw, pb;           /* parameter tensor index (weight/gamma, bias/beta), -1 none */
	ex_convgeo cg;        /* conv: the convolution as cuDNN runs it - the layer's own shape, or the stem
			       * rewritten (net->stem) */
	void *xpad, *wpad;    /* the rewritten stem's image and weights in cg's shape (NULL: not rewritten) */
	size_t bnstat_off;    /* BN: running mean at bnstat+off, running var at +c */
	/* conv */
	cudnnTensorDescriptor_t xd, yd;
	cudnnFilterDescriptor_t wd;
	cudnnConvolutionDescriptor_t cd;
	cudnnConvolutionFwdAlgo_t fwd_algo;
	cudnnConvolutionBwdDataAlgo_t bwdd_algo;
	cudnnConvolutionBwdFilterAlgo_t bwdf_algo;
	cudnnMathType_t fwd_math, bwdd_math, bwdf_math;
	/* graph-API convolution plans, [0] fwd, [1] dgrad, [2] wgrad: the plan is borrowed from
	 * the net's per-shape cache, the variant pack (this op's pointers) is the op's own; NULL = the
	 * legacy call with the algorithm above. legacy_ms: what cudnnFind measured for that algorithm. */
	cudnnBackendDescriptor_t gplan[3], gvp[3];
	float legacy_ms[3];
	size_t legacy_ws[3];  /* workspace of the legacy algorithm */
	/* bn: per-channel device scratch (EX_BN_F_FLOATS, EX_BN_D_DOUBLES) */
	float *bn_f;
	double *bn_d;
	/* bn with a residual and a ReLU: the ReLU mask, one bit per element (byte i: flat NHWC elements
	 * 8i..8i+7), written by the forward and read by the backward instead of the output (1/16 of its bytes) */
	uint8_t *relu_mask;
	/* maxpool: argmax per output element (0..8) */
	uint8_t *argmax;
	int fold_bn;          /* maxpool: the op index of the BN (+ReLU) it applies as it loads (-1 none) */
	bool folded;          /* BN: folded into the one op that reads its output (not stored): a max pooling
			       * (fold_bn) or a residual BN (z_bn) */
	int z_bn;             /* BN with a residual: the op index of the folded BN whose input z is - this op
			       * normalises z with that BN's coefficients (-1: z is stored as it is added) */
	bool bwd_by_reader;   /* BN folded into its reader, whose backward does this BN's too: a residual BN's
			       * (ex_k_bn_bwd2) or the max pooling's (ex_k_bn_bwd_pooled) */
} ex_op;

typedef struct ex_tensor {
	int c, h, w;          /* per image */
	size_t elems;         /* per batch */
	void *d;              /* activations [N][h][w][c] */
	void *g;              /* gradient (shares an arena; NULL for the image) */
	bool g_first_written; /* scratch used while planning backward */
} ex_tensor;

typedef struct ex_net {
	model_net model;
	int batch, classes, hw;
	ex_prec prec;
	ex_dtype dt;
	int nops, ntens;
	ex_op *ops;
	ex_tensor *tens;
	ex_params p;
	int *labels;          /* device [batch] */
	float *logits;        /* device [batch][classes] fp32 */
	float *dlogits32;     /* device [batch][classes] */
	void *dlogits;        /* device [batch][classes] compute dtype */
	void *wscratch;       /* the rewritten stem's compute-dtype weight gradient (cg's shape) */
	void *wgrad_c;        /* [p.n] compute dtype: conv weight gradients before their fp32 cast (not fp32) */
	ex_opt_block *cast_blocks; /* device: slices of the conv weights whose gradient sits in wgrad_c */
	int ncast_blocks;
	void *ws;             /* the cuDNN workspace of the main stream's convolutions */
	size_t ws_B;
	void *act_arena;      /* activations and their gradients, places shared by liveness (plan_arena) */
	size_t act_B, grad_B; /* the arena; the activations' bytes without sharing (for the log) */
	ex_dev_state *st;     /* device */
	cudaStream_t stream;
	cudnnHandle_t cudnn;
	cublasHandle_t cublas;
	void *cublas_ws;
	ex_opt_cfg opt;
	ex_hooks hooks;
	float label_smoothing;
	float bn_momentum, bn_eps;
	bool conv_graph;      /* convolutions through cuDNN graph-API plans where faster (set before init) */
	ex_stem stem;         /* how the stem convolution runs (ex_net_plan sets EX_STEM_DEFAULT;
			       * change before init) */
	struct ex_gcache *gc; /* [ngc] autotuned graph plans, one per distinct shape, kind and beta */
	int ngc;
	int conv_graph_n[3];  /* convolutions per kind (fwd, dgrad, wgrad) that run a graph plan */
	bool graph_ok;
	cudaGraphExec_t graph;
	bool have_graph;
	cudaEvent_t ev[4];    /* phase timing: start, fwd done, bwd done, opt done */
	bool profile;         /* time every op (synchronising; for --profile-ops only) */
	double prof_ms[10];   /* by ex_prof category, summed */
	cudaEvent_t pev[2];
} ex_net;

/* The stem's layout unless told otherwise (bench/NOTES.md's log: the A/B that chose it). */
#define EX_STEM_DEFAULT EX_STEM_S2D

/* Profile categories of --profile-ops. */
enum { EX_PROF_CONV_FWD, EX_PROF_BN_FWD, EX_PROF_POOL_FWD, EX_PROF_FC_FWD, EX_PROF_CONV_DGRAD, EX_PROF_CONV_WGRAD,
       EX_PROF_BN_BWD, EX_PROF_POOL_BWD, EX_PROF_FC_BWD, EX_PROF_N };

/* ---- ex_net.c ---- */
/* The environment's integer name when it is a whole number in [lo, hi], else dflt: the A/B settings of the
 * engine and its kernels (listed by scaleplan-train --help). */
int ex_env_int(const char *name, int lo, int hi, int dflt);
/* Plans the network for `batch` images: fuses BN+ReLU and BN+add+ReLU, lays out flat parameters
 * and the activation/gradient arenas. Host-only; returns 0 or ERR_INPUT (err set). */
int ex_net_plan(ex_net *net, int batch, int classes, int hw, ex_prec prec);
/* Bytes of device memory the plan needs: fixed (weights, optimizer) + per image (activations). */
void ex_net_mem(const ex_net *net, size_t *fixed_B, size_t *per_image_B);
/* The activation/gradient arena ex_net_init allocates: offsets of activation t in act[t] and of its gradient
 * in grad[t] ((size_t)-1: not stored), returns the arena's bytes. Host-only (tests/test_ex_plan.c checks it). */
size_t ex_net_arena(const ex_net *net, size_t *act, size_t *grad);
/* Allocates device memory, creates descriptors, initialises weights (torchvision init, seed),
 * picks convolution algorithms by timing them once. Dies (exit 2) on CUDA/cuDNN failures. */
int ex_net_init(ex_net *net, uint64_t seed, size_t ws_limit_B, bool verbose);
void ex_net_free(ex_net *net);
/* Input image buffer [batch][hw][hw][3] in the compute dtype. */
void *ex_net_input(ex_net *net);
/* One training step on the current input/labels: forward, loss, backward (hooks), optimizer.
 * With timing, records ev[0..3] around the phases. */
void ex_net_train_step(ex_net *net, bool timing);
/* The same step through a CUDA graph captured on first use (falls back to the plain step when
 * capture fails, with a notice). */
void ex_net_train_step_graph(ex_net *net);
/* Forward in inference mode (BN running statistics); adds `valid` samples' loss/top-1 to st. */
void ex_net_eval_batch(ex_net *net, int valid);
/* Forward only (training-mode BN) - used by the layer check. */
void ex_net_forward(ex_net *net, bool train);
/* Reads and clears st's loss/correct/seen counters (synchronises the stream). */
void ex_net_take_stats(ex_net *net, ex_dev_state *out);
/* The schedule's learning rate at `step` (same formula as the device). */
float ex_sched_lr(const ex_sched *s, int step);

/* ---- ex_graph.c: cuDNN graph (backend) API builder for fused convolution patterns ----
 * ex_gb_* describe one operation graph (descriptors owned by the builder; keep the builder alive as
 * long as a plan made from it is used). Builder calls never exit: the first failure is kept in `why`
 * and makes ex_gplan_build return -1, so the caller can fall back to its own kernels. */
#define EX_GB_MAX_DESC 64
#define EX_GB_MAX_OPS 12
#define EX_GPLAN_MAX_CFG 64
typedef enum ex_gconv { EX_GCONV_FWD, EX_GCONV_DGRAD, EX_GCONV_WGRAD } ex_gconv;
typedef struct ex_gb {
	cudnnBackendDescriptor_t own[EX_GB_MAX_DESC]; /* everything created, destroyed by ex_gb_free */
	int nown;
	cudnnBackendDescriptor_t ops[EX_GB_MAX_OPS];
	int nops;
	bool failed;
	char why[160];
} ex_gb;
typedef struct ex_gplan {
	cudnnBackendDescriptor_t plan, vpack; /* the chosen plan and its bound pointers */
	size_t ws_B;          /* workspace the plan needs */
	float ms;             /* its autotuned time (median of 3) */
	int tried;            /* engine configurations timed */
	int heur_mode, rank;  /* 0 = heuristics A, 1 = FALLBACK; rank in that list */
	char why[200];        /* why none was found */
} ex_gplan;
void ex_gb_init(ex_gb *g);
void ex_gb_free(ex_gb *g);
/* A tensor of logical dims N,C,H,W stored NHWC (filters K,C,R,S as K,R,S,C; per-channel 1,C,1,1). */
cudnnBackendDescriptor_t ex_gb_tensor(ex_gb *g, int64_t uid, cudnnDataType_t dt, int64_t n, int64_t c, int64_t h,
				      int64_t w, bool virt);
/* Convolution: FWD y = conv(x, w); DGRAD x = dgrad(y, w); WGRAD w = wgrad(x, y); output = 1*result + beta*output. */
void ex_gb_conv(ex_gb *g, ex_gconv kind, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t w,
		cudnnBackendDescriptor_t y, int pad, int stride, double beta);
void ex_gb_pw(ex_gb *g, cudnnPointwiseMode_t mode, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b,
	      cudnnBackendDescriptor_t y);
void ex_gb_genstats(ex_gb *g, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t sum, cudnnBackendDescriptor_t sq);
void ex_gb_reduce_sum(ex_gb *g, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y);
/* Finalizes the graph, lists engine configurations (heuristics A, then FALLBACK), times at most
 * max_tries of them on the given pointers and workspace (<= ws_max_B) and keeps the fastest. The
 * plan's outputs are overwritten while timing. 0, or -1 with out->why when none is supported. */
int ex_gplan_build(ex_gb *g, cudnnHandle_t h, int n, const int64_t *uids, void *const *ptrs, void *ws, size_t ws_max_B,
		   int max_tries, ex_gplan *out);
/* Re-binds the plan to other pointers / workspace (-1 on a cuDNN refusal). */
int ex_gplan_bind(ex_gplan *p, int n, const int64_t *uids, void *const *ptrs, void *ws);
/* Runs the plan on the handle's stream (dies, exit 2, on a cuDNN error). */
void ex_gplan_run(const ex_gplan *p, cudnnHandle_t h);
/* A variant pack binding n tensor ids to pointers and the workspace (a plan may be shared by many
 * packs); NULL when cuDNN refuses it. ex_gexec runs plan + pack (dies, exit 2, on a cuDNN error). */
cudnnBackendDescriptor_t ex_gvpack_new(int n, const int64_t *uids, void *const *ptrs, void *ws);
void ex_gexec(cudnnHandle_t h, cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t vp);
void ex_gplan_free(ex_gplan *p);

/* ---- exec/ex_*_kernels.cu (extern "C" launchers; every one takes the stream) ---- */
void ex_k_fill_normal(ex_dtype t, void *x, size_t n, float mean, float std, uint64_t seed, cudaStream_t s);
void ex_k_fill_labels(int *y, int n, int classes, uint64_t seed, cudaStream_t s);
void ex_k_cast_f32(ex_dtype t, void *dst, const float *src, size_t n, cudaStream_t s);
void ex_k_to_f32(ex_dtype t, float *dst, const void *src, size_t n, cudaStream_t s);
/* dst[i] = src[i] for i in every slice [first, last) of blocks[nblocks] (device table), one launch. */
void ex_k_to_f32_blocks(ex_dtype t, float *dst, const void *src, const ex_opt_block *blocks, int nblocks,
			cudaStream_t s);
/* rows of c_src channels -> rows of c_dst (4 or 8) channels, the rest zero (the padded stem) */
void ex_k_pad_rows(ex_dtype t, void *dst, const void *src, size_t rows, int c_src, int c_dst, cudaStream_t s);
/* rows of c_src channels -> float rows of their first c_dst channels (the padded stem's weight gradient) */
void ex_k_unpad_rows_f32(ex_dtype t, float *dst, const void *src, size_t rows, int c_dst, int c_src, cudaStream_t s);
/* Space-to-depth stem: the image [n][h][w][c] -> [n][(h+2pad)/2][(w+2pad)/2][c_dst] and the weights
 * [k][r][r][c] -> [k][(r+1)/2][(r+1)/2][c_dst] of the equivalent stride-1 convolution (either pair may
 * be NULL; c_dst = 16 >= 4c); and that convolution's weight gradient back to float [k][r][r][c]. */
void ex_k_s2d(ex_dtype t, void *img_dst, const void *img_src, void *w_dst, const void *w_src, int n, int h, int w, int c,
	      int pad, int k, int r, int c_dst, cudaStream_t s);
void ex_k_s2d_wgrad_f32(ex_dtype t, float *dst, const void *src, int k, int r, int c, int c_dst, cudaStream_t s);
/* Per-BN scratch of the kernels below, for c channels: bn_f holds EX_BN_F_FLOATS(c) floats (mean, invstd,
 * scale, shift, and the backward's dx = A dy' + B x + C coefficients), bn_d EX_BN_D_DOUBLES(c) doubles (the
 * channel sums, then a block count): bn_d must be zero when first used - the kernels leave it zero. */
#define EX_BN_F_FLOATS(c) (7 * (size_t)(c))
#define EX_BN_D_DOUBLES(c) (2 * (size_t)(c) + 1)
/* BN training forward: statistics (running averages updated), then y = relu?(x*scale+shift (+z)); relu_mask
 * (NULL: none) gets the ReLU's bits (ex_op.relu_mask). */
void ex_k_bn_fwd_train(ex_dtype t, const void *x, const void *z, const float *z_bn_f, void *y, long m, int c, const float *gamma,
		       const float *beta, float *run_mean, float *run_var, float momentum, float eps,
		       bool relu, float *bn_f, double *bn_d, uint8_t *relu_mask, cudaStream_t s);
void ex_k_bn_fwd_eval(ex_dtype t, const void *x, const void *z, const float *z_bn_f, void *y, long m, int c, const float *gamma,
		      const float *beta, const float *run_mean, const float *run_var, float eps, bool relu,
		      float *bn_f, cudaStream_t s);
/* (Both: y NULL computes the statistics and coefficients only - the BN folded into its reader; z_bn_f
 * non-NULL: z is a folded BN's input, normalised here with that BN's coefficients before the add.) */
/* BN backward; the ReLU mask from relu_mask (the forward's, given with a residual) or else recomputed from
 * x*scale+shift; writes dgamma/dbeta (fp32), dx, and dz (accumulate if z_acc). */
void ex_k_bn_bwd(ex_dtype t, const void *x, const uint8_t *relu_mask, const void *dy, void *dx, void *dz, bool z_acc,
		 bool relu, long m, int c, const float *gamma, float *dgamma, float *dbeta, float *bn_f,
		 double *bn_d, cudaStream_t s);
/* One batch norm's parameters and scratch for a backward pass. */
typedef struct ex_bn_grads {
	const float *gamma;
	float *dgamma, *dbeta, *bn_f;
	double *bn_d;
} ex_bn_grads;
/* The backward of two batch norms whose outputs are summed before a ReLU with mask bits relu_mask (a
 * downsampling block whose second BN is folded): dx1, dx2 and both BNs' dgamma, dbeta from dy; the
 * gradient of the sum's inputs is not stored. */
void ex_k_bn_bwd2(ex_dtype t, const void *x1, const void *x2, const uint8_t *relu_mask, const void *dy, void *dx1,
		  void *dx2, long m, int c, const ex_bn_grads *b1, const ex_bn_grads *b2, cudaStream_t s);
/* The backward of a batch norm (+ReLU when relu) whose output a max pooling alone read (the BN folded into
 * the pooling, ex_k_maxpool_fwd with bn_f): its dy is gathered from the pooling's gradient pool_dy and argmax
 * instead of being stored; writes dx and the BN's dgamma, dbeta. Fits: the shapes it takes (ResNet's stem:
 * a 3x3 stride-2 padding-1 pooling of an input twice its output, c % 8 == 0, n h w c < 2^31). */
bool ex_k_bn_bwd_pooled_fits(long n, int h, int w, int c, int oh, int ow, int k, int stride, int pad);
void ex_k_bn_bwd_pooled(ex_dtype t, const void *x, const void *pool_dy, const uint8_t *argmax, void *dx, int n, int h,
			int w, int c, int oh, int ow, int k, int stride, int pad, bool relu, const ex_bn_grads *b,
			cudaStream_t s);
/* Max pooling; with bn_f (a BN's coefficients, bn_f layout) the pool applies that batch norm (+ReLU) to
 * x as it loads it - the BN folded into its only reader, its output never stored. */
void ex_k_maxpool_fwd(ex_dtype t, const void *x, const float *bn_f, bool relu, void *y, uint8_t *argmax, int n, int h,
		      int w, int c, int oh, int ow, int k, int stride, int pad, cudaStream_t s);
void ex_k_maxpool_bwd(ex_dtype t, const void *dy, const uint8_t *argmax, void *dx, int n, int h, int w, int c,
		      int oh, int ow, int k, int stride, int pad, bool acc, cudaStream_t s);
void ex_k_avgpool_fwd(ex_dtype t, const void *x, void *y, int n, int hw, int c, cudaStream_t s);
void ex_k_avgpool_bwd(ex_dtype t, const void *dy, void *dx, int n, int hw, int c, bool acc, cudaStream_t s);
/* Adds the bias, softmax cross-entropy with label smoothing; dlogits (scaled by the loss scale /
 * batch) when dl32 != NULL; accumulates loss/top-1 of the first `valid` rows into st. */
void ex_k_softmax_xent(float *logits, const float *bias, const int *labels, int n, int classes,
		       float smoothing, int valid, ex_dev_state *st, float *dl32, ex_dtype t, void *dlc,
		       cudaStream_t s);
void ex_k_bias_grad(const float *dl32, float *db, int n, int classes, cudaStream_t s);
void ex_k_check_inf(const float *g, size_t n, ex_dev_state *st, cudaStream_t s);
void ex_k_lars_norms(const float *w, const float *g, const ex_opt_block *blocks, int nblocks, float *norms,
		     int ntensors, cudaStream_t s);
void ex_k_sgd(ex_dtype t, float *w, float *mom, const float *g, void *wc, const ex_opt_block *blocks,
	      int nblocks, const int *decay, const float *norms, int ntensors, ex_opt_cfg cfg, ex_dev_state *st,
	      cudaStream_t s);
/* After the optimizer: step++, fp16 loss-scale update. */
void ex_k_step_end(ex_dev_state *st, bool dynamic_scale, cudaStream_t s);
/* Fashion-MNIST batch: 28x28 uint8 images -> [n][hw][hw][3] normalised, with random crop (padding 4
 * at 28 px) and horizontal flip when train; idx[i] is the image of row i. */
void ex_k_fmnist_batch(ex_dtype t, const uint8_t *images, const uint8_t *labels8, const int *idx, int n,
		       int hw, bool train, uint64_t seed, void *x, int *labels, cudaStream_t s);
float ex_sched_lr_host(const ex_sched *s, int step);

/* GPU JPEG path: one decoded image (RGB interleaved, pitch w*3, at base + off_B) and its crop in its
 * pixels; ex_k_crop_rgb resizes each crop to out_hw x out_hw (box-filtered bilinear), flips, normalises
 * (ImageNet mean/std) into NHWC dst in t, and writes labels[i]. */
typedef struct ex_crop_desc {
	unsigned long long off_B;
	int w, h;
	float cx, cy, cw, ch;
	int flip, label;
} ex_crop_desc;
void ex_k_crop_rgb(ex_dtype t, const ex_crop_desc *desc, const unsigned char *base, int n, int out_hw, void *dst,
		   int *labels, cudaStream_t s);

/* ---- ex_input.c: --data DIR, an ImageNet-layout JPEG folder ----
 * The loader of exec/data decodes into pinned host buffers; each batch is copied on its own stream
 * into a device staging slot and, on the compute stream after an event, into the net's fixed input
 * buffer (CUDA-graph safe). Loader errors print the message and exit 1; CUDA errors exit 2. */
typedef struct ex_src ex_src;
typedef struct ex_src_cfg {
	const char *dir;      /* DIR with train/<class>/ and val/<class>/ */
	int batch, hw;        /* the net's batch and input side */
	ex_dtype dt;          /* the net's compute dtype (the loader writes it directly) */
	int threads;          /* decode threads per loader (train and val each have a pool) */
	int depth;            /* pinned training buffers (prefetch depth), >= 2 */
	int rank, world;      /* data-parallel shard (0 of 1 for one GPU) */
	uint64_t seed;
	float scale_min;      /* RandomResizedCrop smallest area (0: 0.08) */
	bool quiet;
	bool gpu;             /* jpeg-gpu: threads only read files, nvJPEG decodes (ex_jpeg_gpu.c) */
	double stall_s;       /* jpeg-gpu: no batch for this long ends the job with a report (--data-timeout; 0 never) */
} ex_src_cfg;
/* Scans DIR/train and DIR/val and starts both decode pools. ERR_INPUT (err set) on a missing folder,
 * no images, or class folders that differ between train/ and val/. */
int ex_src_open(ex_src **out, const ex_src_cfg *c);
int ex_src_classes(const ex_src *s);
long ex_src_train_steps(const ex_src *s);   /* full batches per epoch */
long ex_src_train_images(const ex_src *s);
long ex_src_eval_images(const ex_src *s);
/* Device staging, copy stream, events and pinned buffers for `net`; starts prefetching. */
void ex_src_attach(ex_src *s, ex_net *net);
/* Enqueues the next training batch into net's input/labels on net->stream. */
void ex_src_train_batch(ex_src *s);
/* Call after launching each training or evaluation step: jpeg-gpu enqueues the next batch's decode
 * there, so the host's share of it overlaps the step (no-op for jpeg-cpu). */
void ex_src_after_step(ex_src *s);
/* GPU time spent waiting for training input since the last call (synchronises), seconds. */
double ex_src_epoch_wait(ex_src *s);
/* One evaluation pass: begin returns its batch count; each eval_batch enqueues the next batch and
 * returns its valid images (the last may be short). */
int ex_src_eval_begin(ex_src *s);
int ex_src_eval_batch(ex_src *s);
/* jpeg-gpu's stall watch (--data-timeout): on while steps take batches (ex_src_attach turns it on), off
 * around work that takes none (checkpoints, the end of the run); turning it on restarts the count. */
void ex_src_watch(ex_src *s, bool on);
/* The training thread's phase in that watch's report (a static string): what it waits for outside the data
 * path (a step's launch, a synchronisation, an all-reduce), so a stop names it. */
void ex_src_phase(ex_src *s, const char *phase);
/* One line of loader totals (and the bad files) to f. */
void ex_src_report(ex_src *s, FILE *f);
void ex_src_free(ex_src *s);
/* ---- end ex_input.c ---- */
#ifdef __cplusplus
}
#endif

#endif
