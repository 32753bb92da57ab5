/* model/model_interval.c: how a prediction's GPU is known (basis) and its 90% prediction interval.
 * The numbers are generated data (model/intervals.csv, compiled in as model_interval_table): split-conformal
 * quantiles of the held-out residuals `scaleplan validate` computes, by basis and stack pool, and each row's
 * growth with the node count (model_interval_spread); this file applies
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
static const char *const quantity_names[MODEL_NQUANTITIES] = {"throughput", "ttt", "tta", "startup"};
static const char *const pool_names[MODEL_NPOOLS] = {"mlperf", "framework"};

/* Scales, for validate's coverage by scale: one node (no network), up to 16 nodes (the white papers' and the
 * v4.0 results' 2-8 node clusters), more (the v4.0 316-448 node runs). The intervals do not use them. */
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

const char *model_quantity_name(model_quantity q)
{
	return (int)q >= 0 && (int)q < MODEL_NQUANTITIES ? quantity_names[q] : "?";
}

int model_pool_of(double stack_compute_eff)
{
	return isfinite(stack_compute_eff) && stack_compute_eff != 1.0 ? MODEL_POOL_FRAMEWORK : MODEL_POOL_MLPERF;
}

const char *model_pool_name(int pool)
{
	return pool >= 0 && pool < MODEL_NPOOLS ? pool_names[pool] : "?";
}

static const model_interval_row *row_of(model_basis b, int pool, model_quantity q)
{
	if ((int)b < 0 || (int)b >= MODEL_NBASES || pool < 0 || pool >= MODEL_NPOOLS || (int)q < 0 ||
	    (int)q >= MODEL_NQUANTITIES)
		return NULL;
	const model_interval_row *row = &model_interval_table[b][pool][q];
	return row->lo_x > 0 ? row : NULL;
}

double model_interval_spread(double grow_z2, int nodes)
{
	return nodes > 1 && grow_z2 > 0 ? sqrt(1.0 + grow_z2 * 2.0 * log((double)nodes)) : 1.0;
}

/* A row's factors at `nodes` nodes: the one-node log-bounds times the spread (1 for no row). */
static void row_factors(const model_interval_row *row, int nodes, double *lo_x, double *hi_x)
{
	double s = row && row->lo_x > 0 ? model_interval_spread(row->grow_z2, nodes) : 1.0;
	*lo_x = row && row->lo_x > 0 ? pow(row->lo_x, s) : 1.0;
	*hi_x = row && row->lo_x > 0 ? pow(row->hi_x, s) : 1.0;
}

void model_interval_factors(model_basis b, int pool, model_quantity q, int nodes, double *lo_x, double *hi_x)
{
	row_factors(row_of(b, pool, q), nodes, lo_x, hi_x);
}

void model_interval_tta_x(double tta_s, double startup_s, double ttt_lo_x, double ttt_hi_x, double startup_lo_x,
			  double startup_hi_x, double *lo_s, double *hi_s)
{
	/* sqrt, not hypot: no overflow at these magnitudes, and it keeps the sweep's inner loop short */
	double rest = tta_s - startup_s, a = rest * (1.0 - ttt_lo_x), b = startup_s * (1.0 - startup_lo_x);
	double c = rest * (ttt_hi_x - 1.0), d = startup_s * (startup_hi_x - 1.0);
	*lo_s = tta_s - sqrt(a * a + b * b);
	*hi_s = tta_s + sqrt(c * c + d * d);
}

void model_interval_tta(model_basis b, int pool, int nodes, double tta_s, double startup_s, double *lo_s, double *hi_s)
{
	double tl, th, sl, sh;
	model_interval_factors(b, pool, MODEL_Q_TTT, nodes, &tl, &th);
	model_interval_factors(b, pool, MODEL_Q_STARTUP, nodes, &sl, &sh);
	model_interval_tta_x(tta_s, startup_s, tl, th, sl, sh, lo_s, hi_s);
}

void model_interval_apply(const model_scenario *sc, model_result *r)
{
	/* a direct index: the sweep's inner loop stays a few ns longer (make bench-model) */
	int pool = model_pool_of(sc->stack.compute_eff);
	const model_interval_row *row = model_interval_table[sc->basis][pool];
	double lo, hi, slo, shi;
	r->basis = sc->basis;
	/* what the stack's speed on this GPU adds (an unseen generation or stack: plan_stack_eff), on top */
	double elo = sc->stack.eff_lo_x > 0 ? sc->stack.eff_lo_x : 1.0, ehi = sc->stack.eff_hi_x > 0 ? sc->stack.eff_hi_x : 1.0;
	row_factors(&row[MODEL_Q_THROUGHPUT], sc->nodes, &lo, &hi);
	r->throughput_lo_img_s = r->throughput_img_s * lo * elo;
	r->throughput_hi_img_s = r->throughput_img_s * hi * ehi;
	row_factors(&row[MODEL_Q_TTT], sc->nodes, &lo, &hi);
	lo /= ehi;
	hi /= elo;
	r->ttt_lo_s = r->ttt_s * lo;
	r->ttt_hi_s = r->ttt_s * hi;
	row_factors(&row[MODEL_Q_STARTUP], sc->nodes, &slo, &shi);
	model_interval_tta_x(r->tta_s, r->startup_s, lo, hi, slo, shi, &r->tta_lo_s, &r->tta_hi_s);
}

bool model_gpu_measured(const char *gpu_id)
{
	for (int i = 0; gpu_id && model_measured_gpus[i]; i++)
		if (strcmp(model_measured_gpus[i], gpu_id) == 0)
			return true;
	return false;
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
	} else {
		/* one k for both sides (the largest |rho| below 9 points: see model.h) */
		int k = (int)ceil(0.9 * (n + 1));
		for (int i = 0; i < n; i++)
			v[i] = fabs(v[i]);
		qsort(v, (size_t)n, sizeof(*v), cmp_double);
		*hi = v[(k > n ? n : k) - 1];
		*lo = -*hi;
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
