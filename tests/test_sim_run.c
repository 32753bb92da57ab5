/* tests/test_sim_run.c - the simulated run against the analytic model, and its own effects.
 *
 * With contention, jitter and loader warm-up off (and the model's straggler_cv 0) the simulator must
 * reproduce model_predict to 1e-6 relative on a grid of nodes, GPUs per node, batches, links,
 * caching and epoch counts. Then: replay changes nothing, contention on an uneven NIC split costs
 * time, jitter costs more on more GPUs, warm-up costs time, bad options are refused.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "model/model.h"
#include "sim/sim.h"
#include "tests/test.h"

/* An H100-like node, numbers from datasheets (only their consistency matters here). */
static void node_h100(model_node *n, int gpus, bool nvlink)
{
	memset(n, 0, sizeof(*n));
	n->system_id = "test-h100";
	n->gpu_id = "H100";
	n->gpus_per_node = gpus;
	n->max_gpus_per_node = 8;
	n->peak_flops = 989e12;
	n->fp32_flops = 67e12;
	n->mem_bw_Bps = 3.35e12;
	n->gpu_mem_B = 80e9;
	n->gpu_tdp_W = 700;
	n->intra_nvlink = nvlink;
	n->intra_bw_Bps = nvlink ? 450e9 : 32e9;
	n->host_link_Bps = 32e9;
	n->host_links = nvlink ? 4 : 2;
	n->cores = 112;
	n->cpu_hz = 2.0e9;
	n->cpu_tdp_W = 350;
	n->cpus = 2;
	n->host_mem_B = 2e12;
	n->nic_Bps = 50e9;
	n->nics_per_node = 8;
	n->power_W = NAN;
}

static int prepare(model_scenario *sc, const model_params *p, int nodes, int gpus, bool nvlink, int batch,
		   double epochs)
{
	model_scenario_init(sc);
	node_h100(&sc->node, gpus, nvlink);
	sc->nodes = nodes;
	sc->batch_per_gpu = batch;
	sc->epochs = epochs;
	return model_scenario_prepare(sc, p);
}

static void ideal_opts(sim_opts *o, const model_params *p)
{
	sim_opts_default(o, p);
	o->contention = false;
	o->warmup = false;
	o->jitter = 0;
	o->slow_prob = 0;
}

static void test_agrees_with_model(test_ctx *t)
{
	model_params p;
	model_params_default(&p);
	p.straggler_cv = 0; /* sim with jitter off matches the model without its straggler term */
	const int nodes[] = { 1, 2, 16, 128 }, gpus[] = { 1, 4, 8 }, batches[] = { 32, 256 };
	const double epochs[] = { 0, 3.5, 90 };
	int cases = 0;
	for (int a = 0; a < 4; a++)
		for (int g = 0; g < 3; g++)
			for (int bi = 0; bi < 2; bi++)
				for (int nv = 0; nv <= 1; nv++)
					for (int ei = 0; ei < 3; ei++) {
						if ((a + g + bi + nv + ei) % 2) /* half the grid keeps the test quick */
							continue;
						model_scenario sc;
						int rc = prepare(&sc, &p, nodes[a], gpus[g], nv, batches[bi], epochs[ei]);
						TEST_CHECK(t, rc == 0, "prepare: %s", err_msg());
						if (rc)
							continue;
						if (ei == 1) /* a page cache too small: every epoch from storage */
							sc.node.host_mem_B = 1e9, model_scenario_prepare(&sc, &p);
						sim_opts o;
						ideal_opts(&o, &p);
						sim_result r;
						rc = sim_run(&sc, &p, &o, &r);
						TEST_CHECK(t, rc == 0, "sim_run: %s", err_msg());
						if (rc)
							continue;
						cases++;
						const model_result *m = &r.model;
						TEST_NEAR(t, r.iter_s, m->iter_s, 1e-6);
						TEST_NEAR(t, r.comm_s, m->comm_s, 1e-6);
						TEST_NEAR(t, r.comm_exposed_s, m->comm_exposed_s, 1e-6);
						TEST_NEAR(t, r.compute_s, m->compute_s, 1e-6);
						TEST_NEAR(t, r.throughput_img_s, m->throughput_img_s, 1e-6);
						TEST_NEAR(t, r.epoch_s, m->epoch_s, 1e-6);
						TEST_NEAR(t, r.first_epoch_s, m->first_epoch_s, 1e-6);
						TEST_NEAR(t, r.tta_s, m->tta_s, 1e-6);
						TEST_CHECK(t, r.bottleneck == m->bottleneck, "bottleneck %s vs %s",
							   model_bottleneck_name(r.bottleneck), model_bottleneck_name(m->bottleneck));
						if (fabs(r.tta_s - m->tta_s) > 1e-6 * m->tta_s)
							fprintf(stderr, "  case nodes %d gpus %d batch %d nvlink %d epochs %g\n",
								nodes[a], gpus[g], batches[bi], nv, epochs[ei]);
					}
	TEST_CHECK(t, cases >= 30, "only %d grid cases ran", cases);
	/* the other data paths: GPU decode (DALI) and synthetic data (no storage) */
	for (int d = MODEL_DATA_GPU; d <= MODEL_DATA_SYNTHETIC; d++) {
		model_scenario sc;
		TEST_CHECK(t, prepare(&sc, &p, 4, 8, true, 128, 2.5) == 0, "%s", err_msg());
		sc.data = (model_data)d;
		TEST_CHECK(t, model_scenario_prepare(&sc, &p) == 0, "%s", err_msg());
		sim_opts o;
		ideal_opts(&o, &p);
		sim_result r;
		TEST_CHECK(t, sim_run(&sc, &p, &o, &r) == 0, "%s", err_msg());
		TEST_NEAR(t, r.iter_s, r.model.iter_s, 1e-6);
		TEST_NEAR(t, r.first_epoch_s, r.model.first_epoch_s, 1e-6);
		TEST_NEAR(t, r.tta_s, r.model.tta_s, 1e-6);
	}
}

static void test_replay_is_exact(test_ctx *t)
{
	model_params p;
	model_params_default(&p);
	model_scenario sc;
	TEST_CHECK(t, prepare(&sc, &p, 4, 8, true, 64, 12) == 0, "%s", err_msg());
	sim_opts o;
	sim_opts_default(&o, &p);
	o.jitter = 0;
	sim_result a, b;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &a) == 0, "%s", err_msg());
	o.replay = false;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &b) == 0, "%s", err_msg());
	TEST_CHECK(t, a.epochs_replayed == 10 && a.epochs_simulated == 2, "replayed %d simulated %d",
		   a.epochs_replayed, a.epochs_simulated);
	TEST_CHECK(t, b.epochs_replayed == 0 && b.epochs_simulated == 12, "no replay: %d %d", b.epochs_replayed,
		   b.epochs_simulated);
	TEST_NEAR(t, a.tta_s, b.tta_s, 1e-9);
	TEST_NEAR(t, a.iter_p50_s, b.iter_p50_s, 1e-12);
	TEST_NEAR(t, a.iter_p95_s, b.iter_p95_s, 1e-12);
	TEST_CHECK(t, a.events < b.events, "replay saved no events (%llu vs %llu)", (unsigned long long)a.events,
		   (unsigned long long)b.events);
	/* jitter on: nothing is replayed */
	o.replay = true;
	o.jitter = 0.02;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &a) == 0, "%s", err_msg());
	TEST_CHECK(t, a.epochs_replayed == 0, "replayed %d epochs with jitter on", a.epochs_replayed);
}

static void test_contention(test_ctx *t)
{
	model_params p;
	model_params_default(&p);
	p.straggler_cv = 0;
	model_scenario sc;
	/* 8 GPUs on 3 NICs: the model spreads 3 NICs' bandwidth evenly over 8 GPUs, max-min sharing
	 * leaves the 3 GPUs on a NIC (nics 0, 1) at 1/3 of it: the bucket waits for them, so each
	 * inter-node phase takes 8/9 ... (3/8 vs 1/3 of a NIC per GPU): 9/8 of the model's */
	TEST_CHECK(t, prepare(&sc, &p, 16, 8, true, 64, 2) == 0, "%s", err_msg());
	sc.node.nics_per_node = 3;
	model_scenario_prepare(&sc, &p);
	sim_opts o;
	ideal_opts(&o, &p);
	sim_result off, on;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &off) == 0, "%s", err_msg());
	o.contention = true;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &on) == 0, "%s", err_msg());
	TEST_CHECK(t, on.comm_s > off.comm_s * 1.01, "contention cost nothing: %g vs %g", on.comm_s, off.comm_s);
	/* with 8 NICs (one per GPU) contention changes nothing */
	sc.node.nics_per_node = 8;
	model_scenario_prepare(&sc, &p);
	TEST_CHECK(t, sim_run(&sc, &p, &o, &on) == 0, "%s", err_msg());
	o.contention = false;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &off) == 0, "%s", err_msg());
	TEST_NEAR(t, on.comm_s, off.comm_s, 1e-9);
}

static void test_jitter_grows_with_gpus(test_ctx *t)
{
	model_params p;
	model_params_default(&p);
	sim_opts o;
	ideal_opts(&o, &p);
	o.jitter = 0.03;
	o.runs = 3;
	double strag[2];
	const int nodes[2] = { 1, 64 };
	for (int i = 0; i < 2; i++) {
		model_scenario sc;
		TEST_CHECK(t, prepare(&sc, &p, nodes[i], 8, true, 128, 2) == 0, "%s", err_msg());
		sc.data = MODEL_DATA_SYNTHETIC; /* GPU-bound, so jitter shows */
		model_scenario_prepare(&sc, &p);
		sim_result r;
		TEST_CHECK(t, sim_run(&sc, &p, &o, &r) == 0, "%s", err_msg());
		strag[i] = r.straggler_s / r.compute_s;
		TEST_CHECK(t, r.iter_p95_s >= r.iter_p50_s, "p95 %g < p50 %g", r.iter_p95_s, r.iter_p50_s);
		TEST_CHECK(t, r.tta_p95_s >= r.tta_p50_s && r.tta_max_s >= r.tta_min_s, "tta spread");
		TEST_CHECK(t, r.tta_max_s > r.tta_min_s, "3 seeded runs gave the same time to accuracy");
	}
	/* expected max of P lognormal(0.03): about 0.03 sqrt(2 ln P): 8 GPUs ~0.061, 512 ~0.106 */
	TEST_CHECK(t, strag[1] > strag[0] * 1.3, "straggler cost 8 GPUs %g, 512 GPUs %g", strag[0], strag[1]);
	TEST_CHECK(t, strag[0] > 0.02 && strag[1] < 0.2, "straggler fractions %g %g", strag[0], strag[1]);
	/* the same seed gives the same answer */
	model_scenario sc;
	prepare(&sc, &p, 2, 8, true, 128, 1);
	sim_result a, b;
	o.runs = 2;
	sim_run(&sc, &p, &o, &a);
	sim_run(&sc, &p, &o, &b);
	TEST_CHECK(t, a.tta_s == b.tta_s, "seed %lu not reproducible: %.17g vs %.17g", o.seed, a.tta_s, b.tta_s);
}

/* The fast path (per-bucket recurrence at the slowest GPU's factor) against node 0 simulated layer by
 * layer with its flows in every iteration: the same times (1e-9), with jitter, contention and an
 * uneven NIC split on. */
static void test_detail_equals_fast(test_ctx *t)
{
	model_params p;
	model_params_default(&p);
	model_scenario sc;
	TEST_CHECK(t, prepare(&sc, &p, 8, 8, true, 64, 1.5) == 0, "%s", err_msg());
	sc.node.nics_per_node = 3;
	sc.images = 200000;
	model_scenario_prepare(&sc, &p);
	sim_opts o;
	sim_opts_default(&o, &p);
	o.jitter = 0.05;
	o.slow_prob = 0.01;
	sim_result fast, det;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &fast) == 0, "%s", err_msg());
	o.detail = true;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &det) == 0, "%s", err_msg());
	TEST_NEAR(t, det.tta_s, fast.tta_s, 1e-9);
	TEST_NEAR(t, det.iter_p95_s, fast.iter_p95_s, 1e-9);
	TEST_NEAR(t, det.comm_exposed_s, fast.comm_exposed_s, 1e-9);
	TEST_CHECK(t, det.events > 30 * fast.events, "detail ran %llu events, fast %llu",
		   (unsigned long long)det.events, (unsigned long long)fast.events);
}

static void test_warmup(test_ctx *t)
{
	model_params p;
	model_params_default(&p);
	p.straggler_cv = 0;
	model_scenario sc;
	TEST_CHECK(t, prepare(&sc, &p, 1, 8, true, 256, 3) == 0, "%s", err_msg());
	sim_opts o;
	ideal_opts(&o, &p);
	sim_result off, on;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &off) == 0, "%s", err_msg());
	o.warmup = true;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &on) == 0, "%s", err_msg());
	/* each epoch waits once for the first batch: loader_workers x (node batch / loader rate) */
	double fill = o.loader_workers * on.model.data_s;
	TEST_CHECK(t, on.tta_s >= off.tta_s, "warm-up made it faster: %g < %g", on.tta_s, off.tta_s);
	TEST_CHECK(t, on.tta_s <= off.tta_s + 3 * (fill + on.model.io_s * o.loader_workers) + 1e-9,
		   "warm-up cost %g s, more than 3 fills", on.tta_s - off.tta_s);
	TEST_CHECK(t, on.data_wait_s > 0, "no data wait with warm-up");
}

static void test_bad_options(test_ctx *t)
{
	model_params p;
	model_params_default(&p);
	model_scenario sc;
	prepare(&sc, &p, 2, 8, true, 256, 2);
	sim_opts o;
	sim_result r;
	sim_opts_default(&o, &p);
	o.jitter = -0.1;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &r) == ERR_INPUT, "negative jitter accepted");
	TEST_CHECK(t, strstr(err_msg(), "jitter") != NULL, "message: %s", err_msg());
	sim_opts_default(&o, &p);
	o.slow_factor = 0.5;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &r) == ERR_INPUT, "slow factor < 1 accepted");
	sim_opts_default(&o, &p);
	o.runs = 0;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &r) == ERR_INPUT, "0 runs accepted");
	sim_opts_default(&o, &p);
	sim_trace *tr = sim_trace_new();
	o.trace = tr;
	o.trace_first = 1000000;
	o.trace_last = 1000001;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &r) == ERR_INPUT, "trace window past the run accepted");
	TEST_CHECK(t, strstr(err_msg(), "past the run") != NULL, "message: %s", err_msg());
	/* a window inside the run records GPU, link and loader spans */
	o.trace_first = 2;
	o.trace_last = 3;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &r) == 0, "%s", err_msg());
	TEST_CHECK(t, sim_trace_count(tr) > 1000, "trace has %zu spans", sim_trace_count(tr));
	sim_trace_free(tr);
	/* zero bandwidth: a node whose NICs carry nothing */
	sim_opts_default(&o, &p);
	sc.node.nic_Bps = 0;
	model_scenario_prepare(&sc, &p);
	TEST_CHECK(t, sim_run(&sc, &p, &o, &r) == ERR_INPUT, "zero NIC bandwidth accepted");
}

/* sim_result_as_model: predict's columns of the simulated run (what sim --csv/--json print beside its own) */
static void test_as_model(test_ctx *t)
{
	model_params p;
	model_params_default(&p);
	model_scenario sc;
	TEST_CHECK(t, prepare(&sc, &p, 4, 8, true, 64, 3) == 0, "%s", err_msg());
	sim_opts o;
	sim_opts_default(&o, &p);
	o.jitter = 0.05; /* so that the simulated run differs from the model's */
	sim_result r;
	TEST_CHECK(t, sim_run(&sc, &p, &o, &r) == 0, "%s", err_msg());
	model_result m;
	model_cost c;
	sim_result_as_model(&sc, &r, &m, &c);
	TEST_CHECK(t, r.tta_s != r.model.tta_s, "jitter left the run at the model's %g s", r.tta_s);
	TEST_NEAR(t, m.tta_s, r.tta_s, 0);
	TEST_NEAR(t, m.throughput_img_s, r.throughput_img_s, 0);
	TEST_NEAR(t, m.iter_s, r.iter_s, 0);
	TEST_CHECK(t, m.bottleneck == r.bottleneck, "bottleneck %d vs %d", m.bottleneck, r.bottleneck);
	/* time to train: the simulated run less what the model puts before the clock (start-up, staging) */
	TEST_NEAR(t, r.tta_s - m.ttt_s, r.model.tta_s - r.model.ttt_s, 1e-9 * r.tta_s);
	/* energy: the model's average power over the simulated run, and its cost in proportion */
	TEST_NEAR(t, c.energy_J, r.cost.power_W * r.tta_s, 1e-9 * c.energy_J);
	if (r.cost.energy_usd > 0)
		TEST_NEAR(t, c.energy_usd / r.cost.energy_usd, r.tta_s / r.model.tta_s, 1e-9);
	TEST_NEAR(t, c.power_W, r.cost.power_W, 0);
}

int main(void)
{
	test_ctx t = { 0 };
	test_agrees_with_model(&t);
	test_replay_is_exact(&t);
	test_contention(&t);
	test_jitter_grows_with_gpus(&t);
	test_detail_equals_fast(&t);
	test_warmup(&t);
	test_bad_options(&t);
	test_as_model(&t);
	return test_report(&t);
}
