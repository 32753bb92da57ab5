/* bench/bench_sim.c - how fast the simulator plays a full run: 90 epochs of ResNet-50 on 1,024 GPUs
 * (128 nodes x 8, DGX A100 from the built-in hwdb, batch 32 per GPU = global 32,768), in several modes.
 * Prints one table: mode, iterations, events, wall seconds, events per second, time to accuracy.
 * `make bench-sim`. The scenario comes from plan_resolve, as the CLI's does.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "hwdb/hw.h"
#include "model/model.h"
#include "plan/plan.h"
#include "sim/sim.h"

int main(void)
{
	hw_db db;
	model_params p;
	model_scenario sc;
	if (hw_db_load_default(&db, stderr)) {
		fprintf(stderr, "bench_sim: hwdb: %s\n", err_msg());
		return 2;
	}
	const hw_system *sys = hw_system_find(&db, "dgxa100-80g");
	if (!sys) {
		fprintf(stderr, "bench_sim: no system dgxa100-80g in the hwdb\n");
		return 2;
	}
	model_params_default(&p);
	plan_spec spec;
	plan_spec_init(&spec);
	spec.batch_per_gpu = 32;
	spec.epochs = 90;
	if (plan_resolve(&db, &spec, &p, sys, 0, 128, &sc)) {
		fprintf(stderr, "bench_sim: %s\n", err_msg());
		return 1;
	}
	struct {
		const char *name;
		double jitter, slow;
		bool replay, contention, detail;
		int runs;
	} modes[] = {
		{ "jitter 0.015 + slow 1e-4", 0.015, 1e-4, true, true, false, 1 },
		{ "jitter 0.015 + slow 1e-4, detail", 0.015, 1e-4, true, true, true, 1 },
		{ "jitter 0.015, 10 runs", 0.015, 0, true, true, false, 10 },
		{ "jitter off, replay", 0, 0, true, true, false, 1 },
		{ "jitter off, no replay", 0, 0, false, true, false, 1 },
	};
	printf("bench_sim: %s, %d nodes x %d GPUs = %d GPUs, batch %d/GPU, %.0f epochs\n", sys->id, sc.nodes,
	       sc.node.gpus_per_node, sc.nodes * sc.node.gpus_per_node, sc.batch_per_gpu, sc.epochs);
	printf("%-40s %8s %10s %9s %12s %10s %10s\n", "mode", "iters", "events", "wall_s", "events/s", "tta_s",
	       "model_tta");
	int rc = 0;
	for (unsigned i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		sim_opts o;
		sim_result r;
		sim_opts_default(&o, &p);
		o.jitter = modes[i].jitter;
		o.slow_prob = modes[i].slow;
		o.replay = modes[i].replay;
		o.contention = modes[i].contention;
		o.runs = modes[i].runs;
		o.detail = modes[i].detail;
		if (sim_run(&sc, &p, &o, &r)) {
			fprintf(stderr, "bench_sim: %s\n", err_msg());
			rc = 1;
			continue;
		}
		printf("%-40s %8ld %10llu %9.3f %12.3g %10.1f %10.1f\n", modes[i].name, r.iters * r.runs,
		       (unsigned long long)r.events, r.wall_s, r.wall_s > 0 ? r.events / r.wall_s : 0.0, r.tta_s,
		       r.model.tta_s);
	}
	hw_db_free(&db);
	return rc;
}
