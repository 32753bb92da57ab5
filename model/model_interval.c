/* model/model_interval.c: how a prediction's GPU is known (basis) and its 90% prediction interval.
 * The numbers are generated data (model/intervals.csv, compiled in as model_interval_table): split-conformal
 * quantiles of the held-out residuals `scaleplan validate` computes, by basis and scale; this file applies
 * them and holds the quantile rule the generator uses, so that the rule is tested where it lives.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "model/model_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

static const char *const basis_names[MODEL_NBASES] = {"measured", "transfer", "estimate"};
static const char *const scale_names[MODEL_NSCALES] = {"1", "2-16", "17+"};
static const char *const quantity_names[MODEL_NQUANTITIES] = {"throughput", "ttt", "tta"};

/* Scales: one node (no network), up to 16 nodes (the white papers' and the v4.0 results' 2-8 node
 * clusters), more (the v4.0 316-448 node runs, where start-up dominates). */
int model_scale_of(int nodes)
{
	return nodes <= 1 ? 0 : nodes <= 16 ? 1 : 2;
}

const char *model_scale_name(int scale)
{
	return scale >= 0 && scale < MODEL_NSCALES ? scale_names[scale] : "?";
}

const char *model_basis_name(model_basis b)
{
	return (int)b >= 0 && (int)b < MODEL_NBASES ? basis_names[b] : "?";
}

int model_basis_parse(const char *s)
{
	for (int i = 0; i < MODEL_NBASES; i++)
		if (strcmp(s, basis_names[i]) == 0)
			return i;
	return -1;
}

const char *model_quantity_name(model_quantity q)
{
	return (int)q >= 0 && (int)q < MODEL_NQUANTITIES ? quantity_names[q] : "?";
}

int model_quantity_parse(const char *s)
{
	for (int i = 0; i < MODEL_NQUANTITIES; i++)
		if (strcmp(s, quantity_names[i]) == 0)
			return i;
	return -1;
}

void model_interval_factors(model_basis b, int nodes, model_quantity q, double *lo_x, double *hi_x)
{
	const model_interval_row *row = NULL;
	if ((int)b >= 0 && (int)b < MODEL_NBASES && (int)q >= 0 && (int)q < MODEL_NQUANTITIES)
		row = &model_interval_table[b][model_scale_of(nodes)][q];
	*lo_x = row && row->lo_x > 0 ? row->lo_x : 1.0;
	*hi_x = row && row->lo_x > 0 ? row->hi_x : 1.0;
}

void model_interval_apply(const model_scenario *sc, model_result *r)
{
	/* a direct index, three rows: the sweep's inner loop stays a few ns longer (make bench-model) */
	const model_interval_row *row = model_interval_table[sc->basis][model_scale_of(sc->nodes)];
	double lo, hi;
	r->basis = sc->basis;
	lo = row[MODEL_Q_THROUGHPUT].lo_x > 0 ? row[MODEL_Q_THROUGHPUT].lo_x : 1.0;
	hi = row[MODEL_Q_THROUGHPUT].lo_x > 0 ? row[MODEL_Q_THROUGHPUT].hi_x : 1.0;
	r->throughput_lo_img_s = r->throughput_img_s * lo;
	r->throughput_hi_img_s = r->throughput_img_s * hi;
	lo = row[MODEL_Q_TTT].lo_x > 0 ? row[MODEL_Q_TTT].lo_x : 1.0;
	hi = row[MODEL_Q_TTT].lo_x > 0 ? row[MODEL_Q_TTT].hi_x : 1.0;
	r->ttt_lo_s = r->ttt_s * lo;
	r->ttt_hi_s = r->ttt_s * hi;
	lo = row[MODEL_Q_TTA].lo_x > 0 ? row[MODEL_Q_TTA].lo_x : 1.0;
	hi = row[MODEL_Q_TTA].lo_x > 0 ? row[MODEL_Q_TTA].hi_x : 1.0;
	r->tta_lo_s = r->tta_s * lo;
	r->tta_hi_s = r->tta_s * hi;
}

bool model_gpu_measured(const char *gpu_id)
{
	for (int i = 0; gpu_id && model_measured_gpus[i]; i++)
		if (strcmp(model_measured_gpus[i], gpu_id) == 0)
			return true;
	return false;
}

const char *model_measured_gpu(int i)
{
	for (int k = 0; model_measured_gpus[k]; k++)
		if (k == i)
			return model_measured_gpus[k];
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int model_interval_conformal(const double *rho, int n, double *lo, double *hi)
{
	*lo = *hi = 0.0;
	if (n < 1)
		return -1;
	double *v = xmalloc((size_t)n * sizeof(*v));
	memcpy(v, rho, (size_t)n * sizeof(*v));
	if (n >= 19) {
		/* each tail gets 5%: the k-th order statistics with the conformal (n + 1) */
		int k_lo = (int)floor(0.05 * (n + 1)), k_hi = (int)ceil(0.95 * (n + 1));
		qsort(v, (size_t)n, sizeof(*v), cmp_double);
		*lo = v[(k_lo < 1 ? 1 : k_lo) - 1];
		*hi = v[(k_hi > n ? n : k_hi) - 1];
	} else if (n >= 9) {
		int k = (int)ceil(0.9 * (n + 1));
		for (int i = 0; i < n; i++)
			v[i] = fabs(v[i]);
		qsort(v, (size_t)n, sizeof(*v), cmp_double);
		*hi = v[(k > n ? n : k) - 1];
		*lo = -*hi;
	} else {
		for (int i = 0; i < n; i++) {
			*lo = fmin(*lo, v[i]);
			*hi = fmax(*hi, v[i]);
		}
	}
	*lo = fmin(*lo, 0.0);
	*hi = fmax(*hi, 0.0);
	free(v);
	return 0;
}

void model_interval_combine(double lo1, double hi1, double lo2, double hi2, double *lo, double *hi)
{
	*lo = -sqrt(lo1 * lo1 + lo2 * lo2);
	*hi = sqrt(hi1 * hi1 + hi2 * hi2);
}
