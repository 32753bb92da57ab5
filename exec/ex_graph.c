/* exec: a small builder over cuDNN's graph (backend) API, for the fused convolution + batch-norm
 * patterns the engine uses (statistics in a convolution's epilogue, ReLU backward and the batch-norm
 * reductions in the data-gradient's epilogue, scale+bias+ReLU in a convolution's prologue).
 *
 * Why the backend API in C: the legacy convolution calls cannot fuse anything; the C++ frontend is
 * a header library we would have to vendor. The backend needs four kinds of descriptor (tensor,
 * operation, operation graph, execution plan) plus a variant pack binding device pointers to tensor
 * ids; this file hides that behind ex_gb_* (describe a graph) and ex_gplan_* (choose, bind, run).
 *
 * How plans are chosen: cuDNN's heuristics (mode A, then FALLBACK) list engine configurations; each
 * one that finalizes into a plan within the workspace limit is timed on the real buffers (autotune,
 * one warm-up and three timed runs, median of the three) and the fastest is kept. A graph no engine
 * supports returns ERR_ENV-free -1 with the reason in `why`: the caller falls back to its own kernels.
 * Failures of the library itself while describing a graph (bad attribute) are also reported through
 * `why`, never by exiting: an unsupported fusion must never stop training.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/ex_internal.h"

/* Records the first failure of a builder call; later calls are no-ops. */
static bool gb_ok(ex_gb *g, cudnnStatus_t s, const char *what)
{
	if (g->failed)
		return false;
	if (s != CUDNN_STATUS_SUCCESS) {
		g->failed = true;
		snprintf(g->why, sizeof(g->why), "%s: %s", what, cudnnGetErrorString(s));
		return false;
	}
	return true;
}

static cudnnBackendDescriptor_t gb_new(ex_gb *g, cudnnBackendDescriptorType_t type, const char *what)
{
	cudnnBackendDescriptor_t d = NULL;
	if (g->failed)
		return NULL;
	if (g->nown >= EX_GB_MAX_DESC) {
		g->failed = true;
		snprintf(g->why, sizeof(g->why), "%s: more than %d descriptors", what, EX_GB_MAX_DESC);
		return NULL;
	}
	if (!gb_ok(g, cudnnBackendCreateDescriptor(type, &d), what))
		return NULL;
	g->own[g->nown++] = d;
	return d;
}

static void gb_set(ex_gb *g, cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t,
		   int64_t n, const void *v, const char *what)
{
	if (!g->failed && d)
		gb_ok(g, cudnnBackendSetAttribute(d, a, t, n, v), what);
}

static void gb_fin(ex_gb *g, cudnnBackendDescriptor_t d, const char *what)
{
	if (!g->failed && d)
		gb_ok(g, cudnnBackendFinalize(d), what);
}

void ex_gb_init(ex_gb *g)
{
	memset(g, 0, sizeof(*g));
}

void ex_gb_free(ex_gb *g)
{
	int i;
	if (!g)
		return;
	for (i = g->nown - 1; i >= 0; i--)
		cudnnBackendDestroyDescriptor(g->own[i]);
	memset(g, 0, sizeof(*g));
}

/* A 4-d tensor in NHWC memory order, dims given as N, C, H, W (cuDNN's logical order). */
cudnnBackendDescriptor_t ex_gb_tensor(ex_gb *g, int64_t uid, cudnnDataType_t dt, int64_t n, int64_t c, int64_t h,
				      int64_t w, bool virt)
{
	cudnnBackendDescriptor_t d = gb_new(g, CUDNN_BACKEND_TENSOR_DESCRIPTOR, "tensor");
	int64_t dims[4] = {n, c, h, w}, str[4] = {c * h * w, 1, w * c, c}, align = 16;
	gb_set(g, d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt, "tensor type");
	gb_set(g, d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims, "tensor dims");
	gb_set(g, d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, str, "tensor strides");
	gb_set(g, d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid, "tensor uid");
	gb_set(g, d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align, "tensor alignment");
	gb_set(g, d, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virt, "tensor virtual");
	gb_fin(g, d, "tensor finalize");
	return d;
}

static void gb_add_op(ex_gb *g, cudnnBackendDescriptor_t op)
{
	if (g->failed)
		return;
	if (g->nops >= EX_GB_MAX_OPS) {
		g->failed = true;
		snprintf(g->why, sizeof(g->why), "more than %d operations", EX_GB_MAX_OPS);
		return;
	}
	g->ops[g->nops++] = op;
}

void ex_gb_conv(ex_gb *g, ex_gconv kind, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t w,
		cudnnBackendDescriptor_t y, int pad, int stride, double beta)
{
	cudnnBackendDescriptor_t cd = gb_new(g, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, "conv desc");
	cudnnBackendDescriptorType_t ot = kind == EX_GCONV_FWD	  ? CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR
					  : kind == EX_GCONV_DGRAD ? CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR
								   : CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR;
	/* the operation's attributes per kind: x (dx), w (dw), y (dy), convolution, alpha, beta */
	static const cudnnBackendAttributeName_t names[3][6] = {
		{CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
		 CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
		 CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA},
		{CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
		 CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
		 CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA},
		{CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
		 CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
		 CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA}};
	cudnnBackendDescriptor_t op;
	cudnnDataType_t comp = CUDNN_DATA_FLOAT;
	cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
	int64_t dims = 2, pads[2] = {pad, pad}, strides[2] = {stride, stride}, dil[2] = {1, 1};
	/* alpha and beta are read in the compute type (float): a double here reads as alpha = 0 */
	float alpha = 1.f, fbeta = (float)beta;
	gb_set(g, cd, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &comp, "conv comp type");
	gb_set(g, cd, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode, "conv mode");
	gb_set(g, cd, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims, "conv dims");
	gb_set(g, cd, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pads, "conv pre pad");
	gb_set(g, cd, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pads, "conv post pad");
	gb_set(g, cd, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, strides, "conv strides");
	gb_set(g, cd, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dil, "conv dilations");
	gb_fin(g, cd, "conv desc finalize");
	op = gb_new(g, ot, "conv op");
	gb_set(g, op, names[kind][0], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x, "conv x/dx");
	gb_set(g, op, names[kind][1], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w, "conv w/dw");
	gb_set(g, op, names[kind][2], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y, "conv y/dy");
	gb_set(g, op, names[kind][3], CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cd, "conv desc");
	gb_set(g, op, names[kind][4], CUDNN_TYPE_FLOAT, 1, &alpha, "conv alpha");
	gb_set(g, op, names[kind][5], CUDNN_TYPE_FLOAT, 1, &fbeta, "conv beta");
	gb_fin(g, op, "conv op finalize");
	gb_add_op(g, op);
}

/* y = mode(x[, b]); for CUDNN_POINTWISE_RELU_BWD x is dy and b the forward input (dx = dy * (b > 0)). */
void ex_gb_pw(ex_gb *g, cudnnPointwiseMode_t mode, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b,
	      cudnnBackendDescriptor_t y)
{
	cudnnBackendDescriptor_t pd = gb_new(g, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, "pw desc"), op;
	cudnnDataType_t prec = CUDNN_DATA_FLOAT;
	gb_set(g, pd, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode, "pw mode");
	gb_set(g, pd, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec, "pw prec");
	if (mode == CUDNN_POINTWISE_RELU_FWD || mode == CUDNN_POINTWISE_RELU_BWD) {
		double lo = 0.0;
		gb_set(g, pd, CUDNN_ATTR_POINTWISE_RELU_LOWER_CLIP, CUDNN_TYPE_DOUBLE, 1, &lo, "pw relu clip");
	}
	gb_fin(g, pd, "pw desc finalize");
	op = gb_new(g, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, "pw op");
	gb_set(g, op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pd, "pw op desc");
	if (mode == CUDNN_POINTWISE_RELU_BWD) {
		gb_set(g, op, CUDNN_ATTR_OPERATION_POINTWISE_DYDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x, "pw dy");
		gb_set(g, op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b, "pw x");
		gb_set(g, op, CUDNN_ATTR_OPERATION_POINTWISE_DXDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y, "pw dx");
	} else {
		gb_set(g, op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x, "pw x");
		if (b)
			gb_set(g, op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b, "pw b");
		gb_set(g, op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y, "pw y");
	}
	gb_fin(g, op, "pw op finalize");
	gb_add_op(g, op);
}

void ex_gb_genstats(ex_gb *g, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t sum, cudnnBackendDescriptor_t sq)
{
	cudnnBackendDescriptor_t op = gb_new(g, CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR, "genstats op");
	cudnnGenStatsMode_t mode = CUDNN_GENSTATS_SUM_SQSUM;
	cudnnDataType_t prec = CUDNN_DATA_FLOAT;
	gb_set(g, op, CUDNN_ATTR_OPERATION_GENSTATS_MODE, CUDNN_TYPE_GENSTATS_MODE, 1, &mode, "genstats mode");
	gb_set(g, op, CUDNN_ATTR_OPERATION_GENSTATS_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec, "genstats prec");
	gb_set(g, op, CUDNN_ATTR_OPERATION_GENSTATS_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x, "genstats x");
	gb_set(g, op, CUDNN_ATTR_OPERATION_GENSTATS_SUMDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &sum, "genstats sum");
	gb_set(g, op, CUDNN_ATTR_OPERATION_GENSTATS_SQSUMDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &sq, "genstats sqsum");
	gb_fin(g, op, "genstats finalize");
	gb_add_op(g, op);
}

/* y[1,C,1,1] = sum of x over N, H, W. */
void ex_gb_reduce_sum(ex_gb *g, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y)
{
	cudnnBackendDescriptor_t rd = gb_new(g, CUDNN_BACKEND_REDUCTION_DESCRIPTOR, "reduction desc"), op;
	cudnnReduceTensorOp_t mode = CUDNN_REDUCE_TENSOR_ADD;
	cudnnDataType_t prec = CUDNN_DATA_FLOAT;
	gb_set(g, rd, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &mode, "reduction op");
	gb_set(g, rd, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &prec, "reduction prec");
	gb_fin(g, rd, "reduction desc finalize");
	op = gb_new(g, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, "reduction op");
	gb_set(g, op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x, "reduction x");
	gb_set(g, op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y, "reduction y");
	gb_set(g, op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &rd, "reduction desc");
	gb_fin(g, op, "reduction op finalize");
	gb_add_op(g, op);
}

static void plan_release(ex_gplan *p)
{
	if (p->vpack)
		cudnnBackendDestroyDescriptor(p->vpack);
	if (p->plan)
		cudnnBackendDestroyDescriptor(p->plan);
	p->vpack = p->plan = NULL;
}

void ex_gplan_free(ex_gplan *p)
{
	if (!p)
		return;
	plan_release(p);
	memset(p, 0, sizeof(*p));
}

static cudnnStatus_t make_vpack(cudnnBackendDescriptor_t *vp, int n, const int64_t *uids, void *const *ptrs, void *ws)
{
	cudnnStatus_t s = cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, vp);
	if (s == CUDNN_STATUS_SUCCESS)
		s = cudnnBackendSetAttribute(*vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n, uids);
	if (s == CUDNN_STATUS_SUCCESS)
		s = cudnnBackendSetAttribute(*vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, n, ptrs);
	if (s == CUDNN_STATUS_SUCCESS)
		s = cudnnBackendSetAttribute(*vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws);
	if (s == CUDNN_STATUS_SUCCESS)
		s = cudnnBackendFinalize(*vp);
	return s;
}

static float median3(float a, float b, float c)
{
	if (a > b) { float t = a; a = b; b = t; }
	if (b > c) b = c;
	return a > b ? a : b;
}

/* Times one plan: one warm-up, three timed runs; returns the median in ms or -1 when it fails. */
static float time_plan(cudnnHandle_t h, cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t vp, cudaStream_t st,
		       cudaEvent_t e0, cudaEvent_t e1)
{
	float ms[3];
	int i;
	if (cudnnBackendExecute(h, plan, vp) != CUDNN_STATUS_SUCCESS)
		return -1.f;
	for (i = 0; i < 3; i++) {
		cudaEventRecord(e0, st);
		if (cudnnBackendExecute(h, plan, vp) != CUDNN_STATUS_SUCCESS)
			return -1.f;
		cudaEventRecord(e1, st);
		if (cudaEventSynchronize(e1) != cudaSuccess)
			return -1.f;
		cudaEventElapsedTime(&ms[i], e0, e1);
	}
	return median3(ms[0], ms[1], ms[2]);
}

int ex_gplan_build(ex_gb *g, cudnnHandle_t h, int n, const int64_t *uids, void *const *ptrs, void *ws, size_t ws_max_B,
		   int max_tries, ex_gplan *out)
{
	cudnnBackendDescriptor_t opg, cfgs[EX_GPLAN_MAX_CFG];
	cudnnBackendHeurMode_t modes[2] = {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK};
	cudaStream_t st = NULL;
	cudaEvent_t e0 = NULL, e1 = NULL;
	int m, i, tried = 0, unsup = 0;
	memset(out, 0, sizeof(*out));
	out->ms = -1.f;
	if (g->failed) {
		snprintf(out->why, sizeof(out->why), "%s", g->why);
		return -1;
	}
	opg = gb_new(g, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "op graph");
	gb_set(g, opg, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h, "graph handle");
	gb_set(g, opg, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, g->nops, g->ops, "graph ops");
	gb_fin(g, opg, "graph finalize");
	if (g->failed) {
		snprintf(out->why, sizeof(out->why), "%s", g->why);
		return -1;
	}
	if (cudnnGetStream(h, &st) != CUDNN_STATUS_SUCCESS || cudaEventCreate(&e0) != cudaSuccess ||
	    cudaEventCreate(&e1) != cudaSuccess) {
		snprintf(out->why, sizeof(out->why), "events/stream for autotuning");
		return -1;
	}
	for (m = 0; m < 2 && tried < max_tries; m++) {
		cudnnBackendDescriptor_t heur = NULL;
		int64_t count = 0, got = 0;
		if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur) != CUDNN_STATUS_SUCCESS)
			continue;
		if (cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
					     &opg) != CUDNN_STATUS_SUCCESS ||
		    cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &modes[m]) !=
			    CUDNN_STATUS_SUCCESS ||
		    cudnnBackendFinalize(heur) != CUDNN_STATUS_SUCCESS ||
		    cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
					     NULL) != CUDNN_STATUS_SUCCESS) {
			cudnnBackendDestroyDescriptor(heur);
			continue;
		}
		if (count > EX_GPLAN_MAX_CFG)
			count = EX_GPLAN_MAX_CFG;
		for (i = 0; i < count; i++)
			cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]);
		if (count > 0)
			cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got,
						 cfgs);
		for (i = 0; i < got && tried < max_tries; i++) {
			cudnnBackendDescriptor_t plan = NULL, vp = NULL;
			int64_t wsb = 0;
			float ms;
			if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan) != CUDNN_STATUS_SUCCESS)
				continue;
			if (cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h) !=
				    CUDNN_STATUS_SUCCESS ||
			    cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
						     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfgs[i]) != CUDNN_STATUS_SUCCESS ||
			    cudnnBackendFinalize(plan) != CUDNN_STATUS_SUCCESS ||
			    cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
						     NULL, &wsb) != CUDNN_STATUS_SUCCESS ||
			    (size_t)wsb > ws_max_B || make_vpack(&vp, n, uids, ptrs, ws) != CUDNN_STATUS_SUCCESS) {
				unsup++;
				if (vp)
					cudnnBackendDestroyDescriptor(vp);
				cudnnBackendDestroyDescriptor(plan);
				cudaGetLastError();
				continue;
			}
			tried++;
			ms = time_plan(h, plan, vp, st, e0, e1);
			cudaGetLastError();
			if (ms >= 0.f && (out->ms < 0.f || ms < out->ms)) {
				plan_release(out);
				out->plan = plan;
				out->vpack = vp;
				out->ws_B = (size_t)wsb;
				out->ms = ms;
				out->heur_mode = m;
				out->rank = i;
			} else {
				cudnnBackendDestroyDescriptor(vp);
				cudnnBackendDestroyDescriptor(plan);
			}
		}
		for (i = 0; i < count; i++)
			cudnnBackendDestroyDescriptor(cfgs[i]);
		cudnnBackendDestroyDescriptor(heur);
		if (out->plan)
			break; /* mode A gave a working plan: FALLBACK engines are slower by design */
	}
	cudaEventDestroy(e0);
	cudaEventDestroy(e1);
	out->tried = tried;
	if (!out->plan) {
		snprintf(out->why, sizeof(out->why), "no engine supports it (%d configurations tried, %d refused)", tried,
			 unsup);
		return -1;
	}
	return 0;
}

int ex_gplan_bind(ex_gplan *p, int n, const int64_t *uids, void *const *ptrs, void *ws)
{
	cudnnBackendDescriptor_t vp = NULL;
	if (make_vpack(&vp, n, uids, ptrs, ws) != CUDNN_STATUS_SUCCESS) {
		if (vp)
			cudnnBackendDestroyDescriptor(vp);
		return -1;
	}
	if (p->vpack)
		cudnnBackendDestroyDescriptor(p->vpack);
	p->vpack = vp;
	return 0;
}

void ex_gplan_run(const ex_gplan *p, cudnnHandle_t h)
{
	CUDNN_CHECK(cudnnBackendExecute(h, p->plan, p->vpack));
}

cudnnBackendDescriptor_t ex_gvpack_new(int n, const int64_t *uids, void *const *ptrs, void *ws)
{
	cudnnBackendDescriptor_t vp = NULL;
	if (make_vpack(&vp, n, uids, ptrs, ws) != CUDNN_STATUS_SUCCESS) {
		if (vp)
			cudnnBackendDestroyDescriptor(vp);
		return NULL;
	}
	return vp;
}

void ex_gexec(cudnnHandle_t h, cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t vp)
{
	CUDNN_CHECK(cudnnBackendExecute(h, plan, vp));
}
