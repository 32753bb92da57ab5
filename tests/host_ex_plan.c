/* The engine's plan without a GPU (exec/ex_net.c): which batch norms are folded into their reader,
 * and whether the activation/gradient arena ever lets two buffers that are in use at the same time share
 * bytes. The uses are derived here again from what forward() and backward() read and write - independently
 * of plan_arena's own liveness rules - so a plan that frees a buffer too early fails here, on CPU CI, rather
 * than as wrong gradients on a GPU (it happened once: bench/NOTES.md).
 * Built and run by `make test` where the GPU toolchain is found (it links the engine); needs no GPU.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "exec/ex_internal.h"
#include "tests/test.h"

/* Use interval [first, last] (op times: forward i, backward 2 nops - 1 - i) of each arena item: activations
 * 0..nt-1, gradients nt..2nt-1. */
typedef struct uses { int *first, *last, nt; } uses;

static void use(uses *u, int item, int t)
{
	if (u->first[item] < 0 || t < u->first[item])
		u->first[item] = t;
	if (t > u->last[item])
		u->last[item] = t;
}

/* What each op reads and writes in the arena, as forward() and backward() do. */
static void derive_uses(const ex_net *net, uses *u)
{
	int no = net->nops, nt = net->ntens, i;
	use(u, 0, 0); /* the image: written before the step, read by the stem's backward (weight gradient) */
	use(u, 0, 2 * no - 1);
	for (i = 0; i < no; i++) {
		const ex_op *op = &net->ops[i];
		int bt = 2 * no - 1 - i;
		const ex_op *bz = op->z_bn >= 0 ? &net->ops[op->z_bn] : NULL;
		const ex_op *bp = op->kind == EX_MAXPOOL && op->fold_bn >= 0 ? &net->ops[op->fold_bn] : NULL;
		/* forward */
		if (op->kind == EX_MAXPOOL && op->fold_bn >= 0)
			use(u, net->ops[op->fold_bn].in, i);
		else
			use(u, op->in, i);
		if (bz)
			use(u, bz->in, i);
		else if (op->z >= 0)
			use(u, op->z, i);
		if (!op->folded && op->kind != EX_FC) /* fc writes the logits, outside the arena */
			use(u, op->out, i);
		/* backward */
		if (op->kind == EX_BN && op->bwd_by_reader)
			continue; /* done by its reader's backward */
		if (op->kind != EX_FC)
			use(u, nt + op->out, bt); /* dy (fc: the logits' gradient, outside the arena) */
		if (op->kind == EX_CONV || op->kind == EX_BN || op->kind == EX_FC)
			use(u, op->in, bt); /* weight gradient / BN backward / fc weight gradient read x */
		if (bp && bp->bwd_by_reader) { /* the pooling does its folded BN's backward: reads the BN's x, writes its dx */
			use(u, bp->in, bt);
			use(u, nt + bp->in, bt);
		} else if (op->in > 0) {
			use(u, nt + op->in, bt); /* dx */
		}
		if (op->kind == EX_BN && bz && bz->bwd_by_reader) {
			use(u, bz->in, bt);
			use(u, nt + bz->in, bt);
		} else if (op->kind == EX_BN && op->z >= 0) {
			use(u, nt + op->z, bt);
		}
	}
}

/* Returns the arena's bytes. */
static size_t check_plan(test_ctx *tc, const char *what, int want_pool, int want_res, int want_bwd)
{
	ex_net net;
	uses u;
	size_t *act, *grad, *off, *sz, esz;
	int i, j, n, npool = 0, nres = 0, nbwd = 0, overlaps = 0, unplaced = 0, unused = 0;

	memset(&net, 0, sizeof(net));
	TEST_CHECK(tc, ex_net_plan(&net, 8, 1000, 224, EX_PREC_BF16) == 0, "%s: ex_net_plan failed", what);
	for (i = 0; i < net.nops; i++) {
		npool += net.ops[i].fold_bn >= 0;
		nres += net.ops[i].z_bn >= 0;
		nbwd += net.ops[i].bwd_by_reader;
	}
	TEST_CHECK(tc, npool == want_pool && nres == want_res && nbwd == want_bwd,
		   "%s: folds by pooling %d (want %d), by a residual BN %d (%d), backward by the reader %d (%d)", what,
		   npool, want_pool, nres, want_res, nbwd, want_bwd);
	n = 2 * net.ntens;
	esz = ex_dtype_size(net.dt);
	act = calloc(net.ntens, sizeof(size_t));
	grad = calloc(net.ntens, sizeof(size_t));
	off = calloc(n, sizeof(size_t));
	sz = calloc(n, sizeof(size_t));
	u.first = malloc(n * sizeof(int));
	u.last = malloc(n * sizeof(int));
	u.nt = net.ntens;
	for (i = 0; i < n; i++)
		u.first[i] = u.last[i] = -1;
	size_t arena_B = ex_net_arena(&net, act, grad);
	derive_uses(&net, &u);
	for (i = 0; i < n; i++) {
		off[i] = i < net.ntens ? act[i] : grad[i - net.ntens];
		sz[i] = net.tens[i % net.ntens].elems * esz;
		if (u.first[i] >= 0 && off[i] == (size_t)-1) {
			unplaced++;
			fprintf(stderr, "%s: %s of tensor %d is used (times %d..%d) but has no place\n", what,
				i < net.ntens ? "activation" : "gradient", i % net.ntens, u.first[i], u.last[i]);
		}
		if (u.first[i] < 0 && off[i] != (size_t)-1 && unused++ < 5) /* memory nothing reads or writes */
			fprintf(stderr, "%s: %s of tensor %d has a place in the arena but is never used\n", what,
				i < net.ntens ? "activation" : "gradient", i % net.ntens);
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			if (u.first[i] < 0 || u.first[j] < 0 || off[i] == (size_t)-1 || off[j] == (size_t)-1)
				continue;
			if (off[i] < off[j] + sz[j] && off[j] < off[i] + sz[i] && u.first[i] <= u.last[j] &&
			    u.first[j] <= u.last[i]) {
				if (overlaps++ < 5)
					fprintf(stderr, "%s: items %d and %d share bytes while both in use (%d..%d, %d..%d)\n",
						what, i, j, u.first[i], u.last[i], u.first[j], u.last[j]);
			}
		}
	TEST_CHECK(tc, unplaced == 0, "%s: %d buffers in use without a place in the arena", what, unplaced);
	TEST_CHECK(tc, unused == 0, "%s: %d buffers hold arena bytes but are never used", what, unused);
	TEST_CHECK(tc, overlaps == 0, "%s: %d pairs of buffers share bytes while both are in use", what, overlaps);
	free(act); free(grad); free(off); free(sz); free(u.first); free(u.last);
	return arena_B;
}

int main(void)
{
	test_ctx t = {0};
	/* each configuration the A/B runs use (--engine): none, the pool fold alone (forward; with its backward),
	 * the folds' forward half, the residual folds' backward too, all */
	static const struct { const char *what, *spec; int pool, res, bwd; } cfg[] = {
		{"no folds", "fold_pool=off,fold_res=off,fold_res_bwd=off,fold_pool_bwd=off", 0, 0, 0},
		{"pool fold", "fold_res=off,fold_res_bwd=off,fold_pool_bwd=off", 1, 0, 0},
		{"pool fold + backward", "fold_res=off,fold_res_bwd=off", 1, 0, 1},
		{"forward folds", "fold_res_bwd=off,fold_pool_bwd=off", 1, 4, 0},
		{"all but the pool's backward", "fold_pool_bwd=off", 1, 4, 4},
		{"all folds (default)", NULL, 1, 4, 5},
	};
	for (size_t c = 0; c < sizeof(cfg) / sizeof(cfg[0]); c++) {
		ex_set = ex_settings_default();
		TEST_CHECK(&t, !cfg[c].spec || ex_settings_parse(&ex_set, cfg[c].spec) == 0, "%s: %s", cfg[c].what, err_msg());
		check_plan(&t, cfg[c].what, cfg[c].pool, cfg[c].res, cfg[c].bwd);
	}
	ex_set = ex_settings_default();
	/* the pooled BN backward takes ResNet's stem pooling only: 3x3, stride 2, padding 1, input twice the output */
	TEST_CHECK(&t, ex_k_bn_bwd_pooled_fits(256, 112, 112, 64, 56, 56, 3, 2, 1), "stem pooling: pooled BN backward refused");
	TEST_CHECK(&t, !ex_k_bn_bwd_pooled_fits(2, 9, 9, 16, 5, 5, 3, 2, 1), "odd input: pooled BN backward accepted");
	TEST_CHECK(&t, !ex_k_bn_bwd_pooled_fits(2, 10, 10, 16, 4, 4, 3, 3, 1), "stride 3: pooled BN backward accepted");
	TEST_CHECK(&t, !ex_k_bn_bwd_pooled_fits(2, 10, 10, 12, 5, 5, 3, 2, 1), "12 channels: pooled BN backward accepted");
	{ /* a stem whose pooling input is odd (image 226: 113 -> 57) keeps the pooling's own backward */
		ex_net net;
		int npool = 0, nbwd = 0;
		memset(&net, 0, sizeof(net));
		TEST_CHECK(&t, ex_net_plan(&net, 2, 10, 226, EX_PREC_BF16) == 0, "ex_net_plan at 226 pixels failed");
		for (int i = 0; i < net.nops; i++)
			if (net.ops[i].kind == EX_MAXPOOL && net.ops[i].fold_bn >= 0) {
				npool++;
				nbwd += net.ops[net.ops[i].fold_bn].bwd_by_reader;
			}
		TEST_CHECK(&t, npool == 1 && nbwd == 0, "226 pixels: %d pool folds (want 1), %d with the backward (want 0)",
			   npool, nbwd);
	}
	return test_report(&t);
}
