/* bench/bench_model.c: how fast is the analytic model? (a benchmark, not a test)
 *
 * 1. model_scenario_prepare per system (one pass over the layer table);
 * 2. model_predict in a loop over nodes x batch per GPU (the sweep's inner loop), one core:
 *    goal >= 1,000,000 predictions per second (issue 3).
 * Systems come from the built-in hwdb. Run: make bench-model (also times a 1M-configuration sweep).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "hwdb/hw.h"
#include "model/model.h"

/* A model_node from a database system (the same figures cli/scenario.c copies). */
static void node_from(const hw_system *s, model_node *n)
{
	n->system_id = s->id;
	n->gpu_id = s->gpu->id;
	n->gpus_per_node = n->max_gpus_per_node = s->gpus_per_node;
	n->peak_flops = hw_gpu_peak_flops(s->gpu, "bf16");
	n->fp32_flops = s->gpu->fp32_flops;
	n->mem_bw_Bps = s->gpu->mem_bw_Bps;
	n->gpu_mem_B = s->gpu->mem_B;
	n->gpu_tdp_W = s->gpu->tdp_W;
	n->intra_nvlink = s->intra == HW_TOPO_NVSWITCH || s->intra == HW_TOPO_NVLINK_MESH || s->intra == HW_TOPO_HYBRID_CUBE;
	n->intra_bw_Bps = hw_known(s->intra_bw_Bps) ? s->intra_bw_Bps : 15.75e9;
	n->host_link_Bps = s->host_link ? s->host_link->bw_Bps : 0;
	n->host_links = s->host_links;
	n->cpus = s->cpus_per_node > 0 ? s->cpus_per_node : 1;
	n->cores = s->cpu ? s->cpu->cores * n->cpus : 0;
	n->cpu_hz = s->cpu ? s->cpu->base_hz : 0;
	n->host_mem_B = hw_known(s->mem_B) ? s->mem_B : 0;
	n->nic_Bps = s->nic ? s->nic->bw_Bps : 12.5e9;
	n->nics_per_node = s->nics_per_node > 0 ? s->nics_per_node : 1;
	n->price_usd = s->price_usd;
	n->power_W = s->power_W;
}

int main(int argc, char **argv)
{
	hw_db db;
	model_params p;
	model_scenario *sc;
	long n = argc > 1 ? atol(argv[1]) : 20000000L, done = 0, nfit = 0;
	double t0, t1, sum = 0;
	int nsys;

	if (hw_db_load_default(&db, stderr)) {
		fprintf(stderr, "bench_model: %s\n", err_msg());
		return 2;
	}
	model_params_default(&p);
	nsys = db.nsystems;
	sc = xcalloc((size_t)nsys, sizeof(*sc));
	t0 = time_now_s();
	for (int i = 0; i < nsys; i++) {
		model_scenario_init(&sc[i]);
		node_from(&db.systems[i], &sc[i].node);
		if (model_scenario_prepare(&sc[i], &p)) {
			fprintf(stderr, "bench_model: %s: %s\n", db.systems[i].id, err_msg());
			return 1;
		}
	}
	t1 = time_now_s();
	printf("prepare: %d systems in %.3f ms (%.1f us each)\n", nsys, (t1 - t0) * 1e3, (t1 - t0) * 1e6 / nsys);

	t0 = time_now_s();
	while (done < n) {
		for (int i = 0; i < nsys && done < n; i++)
			for (int nodes = 1; nodes <= 1000 && done < n; nodes++)
				for (int b = 8; b <= 256 && done < n; b += 8) {
					model_result r;
					sc[i].nodes = nodes;
					sc[i].batch_per_gpu = b;
					model_predict(&sc[i], &p, &r);
					if (r.fits) {
						sum += r.tta_s;
						nfit++;
					}
					done++;
				}
	}
	t1 = time_now_s();
	printf("model_predict: %ld predictions in %.3f s on one core = %.0f predictions/s (%.0f ns each; "
	       "%ld fit memory; checksum %.6g)\n",
	       done, t1 - t0, done / (t1 - t0), (t1 - t0) * 1e9 / done, nfit, sum);
	printf("goal >= 1,000,000 predictions/s: %s\n", done / (t1 - t0) >= 1e6 ? "met" : "NOT met");
	free(sc);
	hw_db_free(&db);
	return 0;
}
