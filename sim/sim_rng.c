/* sim_rng.c - seeded GSL random numbers for per-GPU jitter and rare slow steps.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "sim/sim_internal.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "common/common.h"

struct sim_rng {
	gsl_rng *r;
};

sim_rng *sim_rng_new(unsigned long seed)
{
	gsl_set_error_handler_off(); /* GSL must report an error, never abort the program */
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!r) {
		err_set("GSL: cannot allocate a random number generator");
		return NULL;
	}
	gsl_rng_set(r, seed);
	sim_rng *rng = xmalloc(sizeof(*rng));
	rng->r = r;
	return rng;
}

void sim_rng_free(sim_rng *rng)
{
	if (!rng)
		return;
	gsl_rng_free(rng->r);
	free(rng);
}

double sim_rng_slowdown(sim_rng *rng, double jitter, double slow_prob, double slow_factor)
{
	double f = 1.0;
	if (jitter > 0)
		f = exp(jitter * gsl_ran_gaussian_ziggurat(rng->r, 1.0));
	if (slow_prob > 0 && gsl_rng_uniform(rng->r) < slow_prob)
		f *= slow_factor;
	return f;
}
