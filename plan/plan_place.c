/* plan_place.c: the placements of N GPUs on candidate systems. Whole servers by default: nobody buys 64
 * eight-GPU servers to use one GPU in each, so a placement occupies whole nodes unless --partial-nodes asks for
 * the others (still costed for the whole servers they occupy: model_result's capex and rent); nodes join only
 * over a network or inside one NVLink domain (plan_joinable, which plan_resolve also asks). Shapes only: it
 * calls nothing else of plan/, so plan_resolve can ask it (plan_decide.c builds the options from them).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "plan/plan_internal.h"

bool plan_joinable(const plan_spec *s, const hw_system *sys, int gpn, int nodes)
{
	if (nodes <= 1 || sys->nic || sys->fabric || s->fabric_id)
		return true;
	/* without a network only one NVLink domain: its trays, counted as whole nodes of the system */
	return gpn > 0 && sys->domain_gpus > 0 && (long)nodes * sys->gpus_per_node <= sys->domain_gpus;
}

bool plan_offered(const plan_question *q, const hw_system *sys)
{
	return q->include_eol || strcmp(sys->status, "eol") != 0;
}

plan_shape plan_shape_check(const plan_spec *s, const plan_question *q, const hw_system *sys, int gpn, int nodes)
{
	if (gpn > sys->gpus_per_node)
		return PLAN_SHAPE_TOO_MANY;
	if (gpn < sys->gpus_per_node && !q->partial_nodes && nodes > 1)
		return PLAN_SHAPE_PARTIAL; /* nobody buys several servers to leave GPUs of each idle */
	return plan_joinable(s, sys, gpn, nodes) ? PLAN_SHAPE_OK : PLAN_SHAPE_NO_NET;
}

bool plan_default_system(const plan_question *q, const hw_system *sys)
{
	bool product = isfinite(sys->price_usd) || (sys->provider && *sys->provider);
	return product && plan_offered(q, sys);
}

int plan_placement_shapes(const plan_spec *s, const plan_question *q, const hw_system *sys, long gpus, int *gpn,
			  int *nodes, int max, int *skipped_net, int *skipped_whole)
{
	int G = sys->gpus_per_node, n = 0, partial = 0, no_net = 0;
	for (int g = gpus < G ? (int)gpus : G; g >= 1 && n < max; g--) {
		if (gpus % g)
			continue;
		plan_shape k = plan_shape_check(s, q, sys, g, (int)(gpus / g));
		partial += k == PLAN_SHAPE_PARTIAL;
		no_net += k == PLAN_SHAPE_NO_NET;
		if (k != PLAN_SHAPE_OK)
			continue;
		gpn[n] = g;
		nodes[n++] = (int)(gpus / g);
	}
	*skipped_net += no_net;
	/* the node size does not divide the GPUs: only partial nodes would hold them (whole nodes that only
	 * lack a network between them are that system's reason, counted above) */
	if (n == 0 && partial && !no_net)
		(*skipped_whole)++;
	return n;
}
