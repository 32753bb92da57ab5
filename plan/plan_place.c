/* plan_place.c: the placements of N GPUs on candidate systems. Whole servers by default: nobody buys 64
 * eight-GPU servers to use one GPU in each, so a placement occupies whole nodes unless --partial-nodes asks for
 * the others (still costed for the whole servers they occupy: model_cost's capex and rent); nodes join only
 * over a network or inside one NVLink domain (plan_joinable, which plan_resolve also asks). Shapes and the
 * candidate systems only: it calls nothing else of plan/, so plan_resolve can ask it (plan_decide.c builds
 * the options from them).
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

/* ERR_INPUT with err set when list names one system twice (ids or aliases; unknown ids are left out here). */
static int systems_unique(const hw_db *db, const char *list)
{
	char buf[2048], *save = NULL;
	const hw_system *seen[256];
	int n = 0;
	snprintf(buf, sizeof buf, "%s", list);
	for (char *tok = strtok_r(buf, ",", &save); tok && n < 256; tok = strtok_r(NULL, ",", &save)) {
		const hw_system *sys = hw_system_find(db, tok);
		if (!sys)
			continue;
		for (int i = 0; i < n; i++)
			if (seen[i] == sys)
				return err_set("--systems names %s more than once ('%s' again): it would be its own "
					       "runner-up; give each system once", sys->id, tok);
		seen[n++] = sys;
	}
	return 0;
}

int plan_candidates(const hw_db *db, const plan_question *q, const char *systems, const hw_system **cand, int max,
		    int *n, char *unknown, size_t unknown_len)
{
	int eol = 0;
	*n = 0;
	unknown[0] = '\0';
	if (!systems || strcmp(systems, "all") == 0) {
		for (int i = 0; i < db->nsystems && *n < max; i++) {
			const hw_system *sys = &db->systems[i];
			if (systems ? plan_offered(q, sys) : plan_default_system(q, sys))
				cand[(*n)++] = sys;
			else if (!plan_offered(q, sys))
				eol++;
		}
	} else {
		char buf[2048], *save = NULL;
		if (systems_unique(db, systems))
			return ERR_INPUT;
		snprintf(buf, sizeof(buf), "%s", systems);
		for (char *tok = strtok_r(buf, ",", &save); tok && *n < max; tok = strtok_r(NULL, ",", &save)) {
			const hw_system *sys = hw_system_find(db, tok);
			if (!sys) {
				snprintf(unknown, unknown_len, "%s", tok);
				return err_set("--systems: unknown system '%s'", tok);
			}
			cand[(*n)++] = sys; /* named: offered whatever its status */
		}
	}
	if (*n == 0)
		return err_set("no candidate systems%s",
			       eol ? " of today (the others are end of life: --include-eol offers them)" : "");
	return 0;
}

void plan_left_out_names(const plan_spec *s, const plan_question *q, const hw_system *const *cand, int ncand,
			 long gpus, strbuf *out)
{
	enum { MAX_SHAPES = 1024 };
	int gpn[MAX_SHAPES], nodes[MAX_SHAPES];
	bool first = out->len_B == 0; /* appended to: several counts in a row */
	for (int k = 0; k < ncand; k++) {
		int net = 0, whole = 0; /* plan_placements' own rule, so that the names are the ones it counted */
		plan_placement_shapes(s, q, cand[k], gpus, gpn, nodes, MAX_SHAPES, &net, &whole);
		if (!whole)
			continue;
		strbuf_addf(out, "%s%s %d GPUs", first ? "" : ", ", cand[k]->id, cand[k]->gpus_per_node);
		first = false;
	}
}

void plan_eol_text(const hw_db *db, const plan_option *rows, int nrows, strbuf *out)
{
	bool first = true;
	for (int i = 0; i < nrows; i++) {
		const hw_system *sys = hw_system_find(db, rows[i].sc.node.system_id);
		bool dup = false;
		for (int k = 0; k < i && !dup; k++)
			dup = strcmp(rows[k].sc.node.system_id, rows[i].sc.node.system_id) == 0;
		if (!sys || dup || strcmp(sys->status, "eol"))
			continue;
		strbuf_addf(out, "%s%s (end of life %s)", first ? "prices of end-of-life systems are historical: " : ", ",
			    sys->id, sys->status_date);
		first = false;
	}
}
