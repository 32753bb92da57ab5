/* tests/test_model.c: the analytic model against refdata/ measurements and its own invariants.
 * Nodes are described by hand here (figures from vendor datasheets, as hwdb has them) so these
 * tests do not depend on the database; tests/model.sh checks the same through the CLI and hwdb.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <string.h>

#include "common/common.h"
#include "hwdb/hw.h"
#include "hwdb/hw_internal.h" /* hwdb/'s parts under test */
#include "model/model.h"
#include "model/model_internal.h" /* tests of model/'s parts */
#include "tests/test.h"

/* Dell C4130 with 4x P100-PCIe-16GB (9.3 TFLOP/s FP32, 732 GB/s; NVIDIA P100 datasheet), PCIe Gen3
 * x16 (15.75 GB/s) switch, 2x 14-core 2.6 GHz Xeon, 1 IB EDR port (12.5 GB/s). */
static void node_c4130(model_scenario *sc)
{
	model_node *n = &sc->node;
	model_scenario_init(sc);
	n->system_id = "c4130-p100";
	n->gpu_id = "P100-PCIe-16GB";
	n->peak_flops = n->fp32_flops = 9.3e12;
	n->mem_bw_Bps = 732e9;
	n->gpu_mem_B = 16e9;
	n->gpus_per_node = n->max_gpus_per_node = 4;
	n->intra_bw_Bps = 15.75e9;
	n->host_link_Bps = 15.75e9;
	n->host_links = 1;
	n->cores = 28;
	n->cpus = 2;
	n->cpu_hz = 2.6e9;
	n->host_mem_B = 256e9;
	n->nic_Bps = 12.5e9;
	n->nics_per_node = 1;
	n->gpu_tdp_W = 250;
	n->cpu_tdp_W = 135;
	sc->precision = MODEL_FP32;
	sc->batch_per_gpu = 128;
}

/* refdata/throughput.csv: given 283 img/s on 1 P100 at batch 128, 4 GPUs ran 1099 img/s and
 * 2 nodes x 4 ran 2075 img/s (Dell white paper 2019). Tolerance 5%. */
static void test_c4130_scaling(test_ctx *t)
{
	model_params p;
	model_scenario sc;
	model_result r;
	model_measured m = {1, 128, 283};

	model_params_default(&p);
	node_c4130(&sc);
	TEST_CHECK(t, model_scenario_prepare(&sc, &p) == 0, "%s", err_msg());
	TEST_CHECK(t, model_calibrate(&sc, &p, &m, 1) == 0, "%s", err_msg());
	/* the calibrated 1-GPU prediction reproduces the measurement */
	{
		model_scenario one = sc;
		one.node.gpus_per_node = 1;
		model_scenario_prepare(&one, &p);
		model_predict(&one, &p, &r);
		TEST_NEAR(t, r.throughput_img_s, 283.0, 1e-6);
	}
	sc.nodes = 1;
	TEST_CHECK(t, model_predict(&sc, &p, &r) == 0, "%s", err_msg());
	TEST_NEAR(t, r.throughput_img_s, 1099.0, 0.05);
	TEST_CHECK(t, r.scaling_eff < 1.0 && r.scaling_eff > 0.9, "eff %g", r.scaling_eff);
	sc.nodes = 2;
	TEST_CHECK(t, model_predict(&sc, &p, &r) == 0, "%s", err_msg());
	TEST_NEAR(t, r.throughput_img_s, 2075.0, 0.05);
	TEST_CHECK(t, r.gpus == 8 && r.global_batch == 1024, "gpus %d gb %d", r.gpus, r.global_batch);
	TEST_CHECK(t, strcmp(model_bottleneck_name(r.bottleneck), "compute") == 0, "bn %d", r.bottleneck);
}

/* MLPerf v4.0 single-node results (refdata/mlperf_v4_0_phases.csv: NVIDIA eos_ngc24.04_mxnet, warm-epoch img/s
 * 57,312 and run_start..run_stop 795.8 s; refdata/throughput.csv: h200_ngc24.04_mxnet 62,180 img/s over the run,
 * 12.027 min): given each row's throughput and epochs, the time to train (ttt_s: MLPerf's clock starts after
 * initialisation) within 10%. DALI decodes on the GPUs (MODEL_DATA_GPU). Rounds before v4.0 are the project's
 * hold-out: not here. */
typedef struct mlperf_row {
	const char *id;
	double peak, fp32, bw, mem, intra;
	int g, batch;
	double img_s, epochs, ttt_min;
} mlperf_row;

static void test_mlperf_ttt(test_ctx *t)
{
	static const mlperf_row rows[] = {
		{"dgxh100", 989e12, 67e12, 3350e9, 80e9, 450e9, 8, 400, 57312, 35, 13.263},
		{"hgx-h200", 989e12, 67e12, 4800e9, 141e9, 450e9, 8, 400, 62180, 35, 12.027},
	};
	model_params p;

	model_params_default(&p);
	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const mlperf_row *w = &rows[i];
		model_scenario sc;
		model_result r;
		model_measured m = {w->g, w->batch, w->img_s};

		model_scenario_init(&sc);
		sc.node.system_id = w->id;
		sc.node.peak_flops = w->peak;
		sc.node.fp32_flops = w->fp32;
		sc.node.mem_bw_Bps = w->bw;
		sc.node.gpu_mem_B = w->mem;
		sc.node.gpus_per_node = w->g;
		sc.node.intra_nvlink = true;
		sc.node.intra_bw_Bps = w->intra;
		sc.node.host_link_Bps = 15.75e9;
		sc.node.host_links = w->g;
		sc.node.cores = 40;
		sc.node.host_mem_B = 1e12;
		sc.precision = MODEL_FP16;
		sc.data = MODEL_DATA_GPU;
		sc.batch_per_gpu = w->batch;
		sc.epochs = w->epochs;
		TEST_CHECK(t, model_scenario_prepare(&sc, &p) == 0, "%s: %s", w->id, err_msg());
		TEST_CHECK(t, model_calibrate(&sc, &p, &m, 1) == 0, "%s: %s", w->id, err_msg());
		TEST_CHECK(t, model_predict(&sc, &p, &r) == 0, "%s", err_msg());
		TEST_NEAR(t, r.throughput_img_s, w->img_s, 1e-6);
		TEST_NEAR(t, r.ttt_s / 60.0, w->ttt_min, 0.10);
	}
}

/* Convergence default: every RCP point within 5%; monotone in the global batch. */
static void test_convergence(test_ctx *t)
{
	static const double b[] = {1632, 3264, 4096, 8192, 13056, 32768, 49152, 58880, 65536, 67840};
	static const double e[] = {35.0, 35.15, 39.88, 41.88, 45.5, 56.0, 68.0, 80.0, 84.5, 85.85};
	model_params p;
	double prev = 0;

	model_params_default(&p);
	for (int i = 0; i < 10; i++)
		TEST_NEAR(t, model_epochs(&p, b[i]), e[i], 0.05);
	for (double gb = 64; gb < 200000; gb *= 1.3) {
		double v = model_epochs(&p, gb);
		TEST_CHECK(t, v >= prev, "epochs fall at %g", gb);
		prev = v;
	}
	model_params_set(&p, "conv_model", 1);
	TEST_NEAR(t, model_epochs(&p, 32768), 58.1, 0.06);
}

/* Parameters by name: set/get round trip, range checks, unknown names with a suggestion. */
static void test_params(test_ctx *t)
{
	model_params p;
	double v = 0;

	model_params_default(&p);
	TEST_CHECK(t, model_params_count() > 20, "count %d", model_params_count());
	for (int i = 0; i < model_params_count(); i++) {
		const model_param_info *in = model_params_info(i);
		TEST_CHECK(t, model_params_get(&p, in->name, &v) == 0 && v == in->def, "%s default", in->name);
		TEST_CHECK(t, in->def >= in->lo && in->def <= in->hi, "%s in range", in->name);
		TEST_CHECK(t, in->source && strlen(in->source) > 5, "%s has a source", in->name);
	}
	TEST_CHECK(t, model_params_set(&p, "bw_eff_net", 0.5) == 0 && p.bw_eff_net == 0.5, "set");
	TEST_CHECK(t, model_params_parse(&p, "startup_s=12.5") == 0 && p.startup_s == 12.5, "parse");
	TEST_CHECK(t, model_params_set(&p, "bw_eff_net", 1.5) == ERR_INPUT, "range");
	TEST_CHECK(t, model_params_set(&p, "bw_eff_nett", 0.5) == ERR_INPUT && strstr(err_msg(), "bw_eff_net"),
		   "suggestion: %s", err_msg());
	TEST_CHECK(t, model_params_parse(&p, "startup_s") == ERR_INPUT, "no =");
	TEST_CHECK(t, model_params_parse(&p, "startup_s=abc") == ERR_INPUT, "not a number");
	TEST_CHECK(t, model_params_info(-1) == NULL && model_params_info(1000) == NULL, "info bounds");
}

/* The pieces sim/ uses add up to model_predict's numbers exactly. */
static void test_pieces(test_ctx *t)
{
	model_params p;
	model_scenario sc;
	model_result r;
	model_net net;
	double fwd[256], bwd[256], sf = 0, sb = 0, comm = 0;

	model_params_default(&p);
	node_c4130(&sc);
	sc.nodes = 3;
	sc.batch_per_gpu = 64;
	model_scenario_prepare(&sc, &p);
	model_predict(&sc, &p, &r);
	model_net_resnet50(&net, 1000, 224);
	model_layer_times(&sc, &p, &net, 64, fwd, bwd);
	for (int i = 0; i < net.nlayers; i++) {
		sf += fwd[i];
		sb += bwd[i];
	}
	TEST_NEAR(t, sf, r.fwd_s, 1e-9);
	TEST_NEAR(t, sb, r.bwd_s, 1e-9);
	for (int i = 0; i < sc.prep.nbuckets; i++)
		comm += model_allreduce_s(&sc, &p, sc.prep.bucket_B[i]);
	TEST_NEAR(t, comm, r.comm_s, 1e-12);
	/* buckets cover every parameter exactly once */
	double gb = 0;
	for (int i = 0; i < sc.prep.nbuckets; i++)
		gb += sc.prep.bucket_B[i];
	TEST_NEAR(t, gb, 25557032.0 * 4, 1e-12);
	TEST_CHECK(t, sc.prep.nbuckets == 4, "fp32 102 MB in 25 MiB buckets: %d", sc.prep.nbuckets);
	TEST_CHECK(t, sc.prep.bucket_last_layer[0] == net.nlayers - 1 && sc.prep.bucket_first_layer[sc.prep.nbuckets - 1] == 0,
		   "bucket order");
	/* iteration time composition */
	double gpu = (r.compute_s + r.comm_exposed_s) * (1 + p.straggler_cv * sqrt(2 * log(12.0)));
	TEST_NEAR(t, r.iter_s, fmax(gpu, r.data_s), 1e-12);
	TEST_NEAR(t, r.throughput_img_s, 12 * 64 / r.iter_s, 1e-12);
	model_net_free(&net);
}

/* nccl-tests convention: a ring all-reduce of S bytes on n GPUs at bus bandwidth B takes
 * 2(n-1)/n S / B (+ latency). Check against the 4x H200 NVLink measurement at 256 MiB
 * (refdata/testbed_allreduce.csv: 1.188 ms, busbw 338.8 GB/s) within 5%. */
static void test_allreduce(test_ctx *t)
{
	model_params p;
	model_scenario sc;

	model_params_default(&p);
	model_scenario_init(&sc);
	sc.node.gpus_per_node = 4;
	sc.node.intra_nvlink = true;
	sc.node.intra_bw_Bps = 450e9; /* NV18 x 25 GB/s */
	double tm = model_allreduce_s(&sc, &p, 268435456.0);
	TEST_NEAR(t, tm, 1.188e-3, 0.05);
	/* two nodes of one GPU each over one 12.5 GB/s NIC at eff 0.9: 2(2-1)/2 S / B + 2 alpha */
	sc.node.gpus_per_node = 1;
	sc.nodes = 2;
	sc.node.nic_Bps = 12.5e9;
	sc.node.nics_per_node = 1;
	double want = 1e8 / (12.5e9 * p.bw_eff_net) + 2 * p.alpha_net_s;
	TEST_NEAR(t, model_allreduce_s(&sc, &p, 1e8), want, 1e-12);
	/* more NICs per node divide the inter-node bandwidth term */
	sc.node.gpus_per_node = 4;
	sc.node.intra_bw_Bps = 450e9;
	double one = model_allreduce_s(&sc, &p, 1e8);
	sc.node.nics_per_node = 4;
	TEST_CHECK(t, model_allreduce_s(&sc, &p, 1e8) < one, "4 NICs faster");
	TEST_NEAR(t, model_exposed_s(2, (double[]){1, 2}, (double[]){0.5, 1.5}, 2.5), 1.0, 1e-12);
	TEST_NEAR(t, model_exposed_s(2, (double[]){1, 2}, (double[]){0.5, 0.2}, 2.5), 0.0, 1e-12);
}

/* Contention: the pipeline with both rates by hand; factors of 1 are model_exposed_s; slowdowns of
 * the scenario's outermost level lower the prediction, other levels' factors do not touch it. */
static void test_contention(test_ctx *t)
{
	double be, ce;
	/* one bucket ready at once, 10 s of comm beside 10 s of backward */
	model_pipeline_run(1, (double[]){0}, (double[]){10}, 10, 2, 1, &be, &ce);
	TEST_NEAR(t, ce, 10, 1e-12);   /* comm at full speed; backward did 5 s of work by then */
	TEST_NEAR(t, be, 15, 1e-12);
	model_pipeline_run(1, (double[]){0}, (double[]){10}, 10, 1, 2, &be, &ce);
	TEST_NEAR(t, be, 10, 1e-12);   /* comm did 5 s of its 10 while backward ran */
	TEST_NEAR(t, ce, 15, 1e-12);
	/* factors 1: the plain pipeline (same cases as test_allreduce, ready times from backward's start) */
	model_pipeline_run(2, (double[]){1, 2}, (double[]){0.5, 1.5}, 2.5, 1, 1, &be, &ce);
	TEST_NEAR(t, fmax(be, ce) - 2.5, model_exposed_s(2, (double[]){1, 2}, (double[]){0.5, 1.5}, 2.5), 1e-12);
	model_pipeline_run(3, (double[]){0.2, 0.9, 3}, (double[]){1, 0.1, 0.4}, 3, 1, 1, &be, &ce);
	TEST_NEAR(t, fmax(be, ce) - 3, model_exposed_s(3, (double[]){0.2, 0.9, 3}, (double[]){1, 0.1, 0.4}, 3), 1e-12);

	model_params p;
	model_scenario sc;
	model_result r0, r1, r2;
	model_params_default(&p);
	node_c4130(&sc);
	sc.nodes = 2;
	TEST_CHECK(t, model_scenario_prepare(&sc, &p) == 0 && model_predict(&sc, &p, &r0) == 0, "%s", err_msg());
	p.slowdown_compute_nvlink = p.slowdown_comm_nvlink = 3;   /* not the outermost level of 2 nodes */
	model_scenario_prepare(&sc, &p);
	model_predict(&sc, &p, &r1);
	TEST_NEAR(t, r1.throughput_img_s, r0.throughput_img_s, 1e-12);
	p.slowdown_compute_net = 1.2;
	model_scenario_prepare(&sc, &p);
	model_predict(&sc, &p, &r2);
	TEST_CHECK(t, r2.throughput_img_s < r0.throughput_img_s && r2.comm_exposed_s > r0.comm_exposed_s,
		   "net contention: %g vs %g img/s", r2.throughput_img_s, r0.throughput_img_s);
	TEST_CHECK(t, model_params_parse(&p, "slowdown_comm_net=0.5") < 0, "a factor below 1 accepted");
}

/* Memory: batch 256 fp32 does not fit 16 GB, 128 does (refdata/seed_facts.md: TensorFlow's max
 * batch per 16 GB GPU is 128); a configuration that does not fit is flagged with NAN times. */
static void test_memory_and_errors(test_ctx *t)
{
	model_params p;
	model_scenario sc;
	model_result r;

	model_params_default(&p);
	node_c4130(&sc);
	model_scenario_prepare(&sc, &p);
	sc.batch_per_gpu = 128;
	model_predict(&sc, &p, &r);
	TEST_CHECK(t, r.fits && r.mem_per_gpu_B < 16e9, "128 fits: %g", r.mem_per_gpu_B);
	sc.batch_per_gpu = 256;
	TEST_CHECK(t, model_predict(&sc, &p, &r) == 0, "no error");
	TEST_CHECK(t, !r.fits && isnan(r.tta_s), "256 does not fit: %g", r.mem_per_gpu_B);
	/* the batch that fits: halving 1024 reaches 128 (256 does not fit), the scenario's batch kept */
	sc.batch_per_gpu = 1024;
	TEST_CHECK(t, model_batch_that_fits(&sc, &p) == 128, "batch that fits: %d", model_batch_that_fits(&sc, &p));
	TEST_CHECK(t, sc.batch_per_gpu == 1024, "batch left at %d", sc.batch_per_gpu);
	sc.batch_per_gpu = 256;
	/* not prepared with these params */
	model_params q = p;
	TEST_CHECK(t, model_predict(&sc, &q, &r) == ERR_INPUT, "unprepared params");
	/* too many GPUs per node */
	sc.node.gpus_per_node = 8;
	TEST_CHECK(t, model_scenario_prepare(&sc, &p) == ERR_INPUT && strstr(err_msg(), "4 GPUs"), "%s", err_msg());
	sc.node.gpus_per_node = 4;
	model_scenario_prepare(&sc, &p);
	sc.nodes = 0;
	TEST_CHECK(t, model_predict(&sc, &p, &r) == ERR_INPUT, "nodes 0");
	/* no network: multi-node refused */
	sc.nodes = 2;
	sc.node.nics_per_node = 0;
	TEST_CHECK(t, model_predict(&sc, &p, &r) == ERR_INPUT, "no NIC");
	/* calibration with an unplaceable GPU count */
	model_measured m = {6, 128, 1000};
	sc.node.nics_per_node = 1;
	TEST_CHECK(t, model_calibrate(&sc, &p, &m, 1) == ERR_INPUT, "6 GPUs on 4-GPU nodes");
}

/* Physics directions a planner relies on. */
static void test_directions(test_ctx *t)
{
	model_params p;
	model_scenario sc;
	model_result a, b;

	model_params_default(&p);
	node_c4130(&sc);
	model_scenario_prepare(&sc, &p);
	/* more per-GPU batch -> higher per-GPU throughput (efficiency b/(b+b_half)) */
	sc.batch_per_gpu = 32;
	model_predict(&sc, &p, &a);
	sc.batch_per_gpu = 128;
	model_predict(&sc, &p, &b);
	TEST_CHECK(t, b.per_gpu_img_s > a.per_gpu_img_s, "batch helps");
	/* fewer cores -> data bound (C4140-K vs M, refdata/seed_facts.md) */
	sc.node.cores = 18;
	sc.precision = MODEL_FP16;
	sc.node.peak_flops = 125e12;
	model_scenario_prepare(&sc, &p);
	model_predict(&sc, &p, &a);
	TEST_CHECK(t, a.bottleneck == MODEL_BN_DATA, "9 decode threads: %s", model_bottleneck_name(a.bottleneck));
	/* the 4-per-GPU reservation never takes more than half the cores: 16 GPUs on 48 cores (DGX-2)
	 * decode on 24 cores, not 48 - 64 -> 1 */
	{
		model_scenario big = sc;
		big.node.cores = 48;
		big.node.cpu_hz = p.decode_ref_hz;
		big.node.gpus_per_node = big.node.max_gpus_per_node = 16;
		big.node.host_links = 0;
		model_scenario_prepare(&big, &p);
		TEST_NEAR(t, model_data_rate(&big, &p), 24 * p.decode_img_s_core, 1e-9);
	}
	/* a slow network makes multi-node comm-bound */
	sc.node.cores = 80;
	sc.node.nic_Bps = 1.25e8;
	sc.nodes = 4;
	model_scenario_prepare(&sc, &p);
	model_predict(&sc, &p, &a);
	TEST_CHECK(t, a.bottleneck == MODEL_BN_COMM && a.scaling_eff < 0.5, "1 GbE: %s %g",
		   model_bottleneck_name(a.bottleneck), a.scaling_eff);
	/* data set bigger than page cache -> io every epoch */
	sc.node.nic_Bps = 12.5e9;
	sc.node.host_mem_B = 64e9;
	sc.node.storage_Bps = 2e8;
	model_scenario_prepare(&sc, &p);
	model_predict(&sc, &p, &a);
	TEST_CHECK(t, a.bottleneck == MODEL_BN_IO, "slow storage: %s", model_bottleneck_name(a.bottleneck));
	sc.node.host_mem_B = 512e9;
	model_scenario_prepare(&sc, &p);
	model_predict(&sc, &p, &b);
	TEST_CHECK(t, b.tta_s < a.tta_s && b.first_epoch_s > b.epoch_s, "page cache helps after epoch 1");
	/* energy = power x time, priced after the prediction */
	model_cost bc;
	model_price_run(&sc, &p, &b, &bc);
	TEST_NEAR(t, bc.energy_J, bc.power_W * b.tta_s, 1e-12);
	/* the whole run: tta = start-up + staging + ttt; ttt = warm-up + epochs x warm epoch + eval +
	 * boundaries; no staging copy here (the stack does not stage), so the storage path's first-epoch extra
	 * is scored, in the warm-up (cold reads are staging only for stacks that stage) */
	TEST_NEAR(t, b.tta_s, b.startup_s + b.staging_s + b.ttt_s, 1e-12);
	TEST_NEAR(t, b.ttt_s, b.warmup_s + b.epochs * b.epoch_s + b.eval_s + b.boundary_s, 1e-12);
	TEST_CHECK(t, b.staging_s == 0, "no staging without a staging stack: %g s", b.staging_s);
	TEST_CHECK(t, b.warmup_s >= b.first_epoch_s - b.epoch_s, "the first epoch's extra %g s inside the warm-up %g s",
		   b.first_epoch_s - b.epoch_s, b.warmup_s);
	TEST_CHECK(t, isnan(bc.capex_usd), "no price -> NAN capex");
}

/* Each run-level term on a hand-computed case (model.h: startup_*, run_lead_s, cold_read_Bps, eval_*,
 * epoch_boundary_*; forms fitted in calibrate/cal_phases.c). */
static void test_run_terms(test_ctx *t)
{
	model_params p;
	model_scenario sc;
	model_result r = {0};

	model_params_default(&p);
	p.startup_s = 10;
	p.startup_per_node_s = 0.5;
	p.run_lead_s = 1;
	p.run_lead_steps = 0;
	p.cold_read_Bps = 1e7;
	p.cold_read_node_exp = 1; /* each node reads its share at its own rate (tests/test_phases.c: < 1) */
	p.dataset_B = 1.45e11;
	p.eval_fixed_s = 0.01;
	p.eval_step_frac = 0.5;
	p.val_images = 50000;
	p.epoch_boundary_s = 0.02;
	p.epoch_boundary_iters = 0.25;
	p.eval_every = 4;
	/* evaluation pass: 0.01 + 0.5 x 50,000 / 100,000 img/s = 0.26 s */
	r.throughput_img_s = 1e5;
	TEST_NEAR(t, model_eval_pass_s(&p, &r), 0.26, 1e-12);
	/* epoch boundary: 0.02 + 0.25 x 0.1 s step = 0.045 s */
	r.iter_s = 0.1;
	TEST_NEAR(t, model_boundary_epoch_s(&p, &r), 0.045, 1e-12);
	/* lead-in: 1 s + 0 steps = 1 s; with 12 steps of 0.1 s: 2.2 s */
	TEST_NEAR(t, model_lead_in_s(&p, &r), 1.0, 1e-12);
	p.run_lead_steps = 12;
	TEST_NEAR(t, model_lead_in_s(&p, &r), 2.2, 1e-12);
	p.run_lead_steps = 0;
	/* start-up forms at 16 nodes: 10 + 0.5 x 16 = 18 s; + 3 x log2(16) = 30 s; + 2 x sqrt(16) = 38 s */
	TEST_NEAR(t, model_startup_s(&p, 16), 18.0, 1e-12);
	p.startup_per_log2_node_s = 3;
	TEST_NEAR(t, model_startup_s(&p, 16), 30.0, 1e-12);
	p.startup_per_sqrt_node_s = 2;
	TEST_NEAR(t, model_startup_s(&p, 16), 38.0, 1e-12);
	p.startup_per_log2_node_s = p.startup_per_sqrt_node_s = 0;

	/* a whole prediction: 4 nodes, 35 epochs */
	node_c4130(&sc);
	sc.nodes = 4;
	sc.epochs = 35;
	sc.data = MODEL_DATA_GPU;
	TEST_CHECK(t, model_scenario_prepare(&sc, &p) == 0 && model_predict(&sc, &p, &r) == 0, "%s", err_msg());
	/* start-up: 10 + 0.5 x 4 nodes = 12 s */
	TEST_NEAR(t, r.startup_s, 12.0, 1e-12);
	/* 9 evaluation passes (ceil(35 / 4)) and 35 boundaries */
	TEST_NEAR(t, r.eval_s, 9 * (0.01 + 0.5 * 50000 / r.throughput_img_s), 1e-12);
	TEST_NEAR(t, r.boundary_s, 35 * (0.02 + 0.25 * r.iter_s), 1e-12);
	/* warm-up: 1 s lead-in + a cold read of 145 GB / 4 nodes at 10 MB/s = 3625 s, overlapped with the
	 * first epoch (the part the storage path already costs, first_epoch_s - epoch_s, is staging) */
	TEST_CHECK(t, r.first_epoch_s >= r.epoch_s && r.first_epoch_s < 3625, "epoch %g first %g", r.epoch_s,
		   r.first_epoch_s);
	TEST_NEAR(t, r.warmup_s, 1.0 + 3625 - r.first_epoch_s, 1e-12);
	TEST_NEAR(t, r.ttt_s, r.warmup_s + 35 * r.epoch_s + r.eval_s + r.boundary_s, 1e-12);
	TEST_NEAR(t, r.tta_s, r.startup_s + r.staging_s + r.ttt_s, 1e-12);
	/* a faster cold read than the epoch: only the lead-in; with 10 steps of lead-in, 1 + 10 steps */
	p.cold_read_Bps = 1e12;
	TEST_CHECK(t, model_scenario_prepare(&sc, &p) == 0 && model_predict(&sc, &p, &r) == 0, "%s", err_msg());
	TEST_NEAR(t, r.warmup_s, 1.0, 1e-12);
	p.run_lead_steps = 10;
	TEST_CHECK(t, model_scenario_prepare(&sc, &p) == 0 && model_predict(&sc, &p, &r) == 0, "%s", err_msg());
	TEST_NEAR(t, r.warmup_s, 1.0 + 10 * r.iter_s, 1e-12);
	TEST_CHECK(t, r.iter_s > 0 && r.iter_s < 10, "step %g", r.iter_s);
	p.run_lead_steps = 0;
	/* synthetic data reads nothing */
	p.cold_read_Bps = 1e7;
	sc.data = MODEL_DATA_SYNTHETIC;
	TEST_CHECK(t, model_scenario_prepare(&sc, &p) == 0 && model_predict(&sc, &p, &r) == 0, "%s", err_msg());
	TEST_NEAR(t, r.warmup_s, 1.0, 1e-12);
}

/* Two batch sizes fit the small-batch efficiency too: refdata/testbed_pytorch.csv, H100 bf16
 * channels-last 3718 img/s at 128, 3973 at 256 -> both reproduced within 0.5%, and a third batch
 * (64) predicted below both per GPU. */
static void test_multipoint(test_ctx *t)
{
	model_params p;
	model_scenario sc;
	model_result r;
	model_measured m[2] = {{1, 128, 3718}, {1, 256, 3973}};

	model_params_default(&p);
	model_scenario_init(&sc);
	sc.node.peak_flops = 989.4e12;
	sc.node.fp32_flops = 67e12;
	sc.node.mem_bw_Bps = 3.35e12;
	sc.node.gpu_mem_B = 80e9;
	sc.node.gpus_per_node = 1;
	sc.data = MODEL_DATA_SYNTHETIC;
	TEST_CHECK(t, model_scenario_prepare(&sc, &p) == 0, "%s", err_msg());
	TEST_CHECK(t, model_calibrate(&sc, &p, m, 2) == 0, "%s", err_msg());
	TEST_CHECK(t, sc.b_half > 1 && sc.b_half < 100, "b_half %g", sc.b_half);
	for (int i = 0; i < 2; i++) {
		sc.batch_per_gpu = m[i].batch_per_gpu;
		model_predict(&sc, &p, &r);
		TEST_NEAR(t, r.throughput_img_s, m[i].img_s, 0.005);
	}
	sc.batch_per_gpu = 64;
	model_predict(&sc, &p, &r);
	TEST_CHECK(t, r.throughput_img_s < 3718, "batch 64: %g", r.throughput_img_s);
	/* one point afterwards resets b_half to the parameter's */
	TEST_CHECK(t, model_calibrate(&sc, &p, m, 1) == 0 && sc.b_half < 0, "reset");
}

/* Storage that scales. Hand-computed: ImageNet 145 GB, 1,281,167 images -> 113,178 B per image.
 * (a) 500 nodes reading one NAS of 15 GB/s aggregate behind 5 GB/s client links: min(15e9, 500 x 5e9) =
 *     15 GB/s for the whole job; (b) the same nodes with their own drives (4 x 7.88 GB/s): 500 x 31.52 GB/s;
 * (c) a parallel file system that grows with its clients (aggregate INFINITY) at 12.5 GB/s per node.
 * Staging (stack staged): each node copies the whole set: 145e9 / min(15e9 / 500, 5e9, 31.52e9) = 4833.3 s
 * from the NAS, 145e9 / min(inf, 12.5e9, 31.52e9) = 11.6 s from the parallel FS, 0 when the data already
 * lives on the drives. */
static void test_storage_staging(test_ctx *t)
{
	model_params p;
	model_scenario sc;
	model_params_default(&p);
	node_c4130(&sc);
	sc.nodes = 500;
	double img_B = p.dataset_B / sc.images;
	TEST_NEAR(t, img_B, 145e9 / 1281167.0, 1e-12);
	/* (a) one NAS named by the user */
	sc.node.storage_Bps = 15e9;
	sc.node.storage_link_Bps = 5e9;
	sc.node.local_Bps = 4 * 7.88e9;
	TEST_CHECK(t, model_scenario_prepare(&sc, &p) == 0, "prepare");
	TEST_NEAR(t, model_storage_rate(&sc, &p), 15e9 / img_B, 1e-12);
	TEST_NEAR(t, model_staging_s(&sc, &p), 0.0, 0);   /* not staged: read cold instead */
	/* with a small cluster the per-node links bind: 2 x 5 GB/s < 15 GB/s */
	sc.nodes = 2;
	TEST_NEAR(t, model_storage_rate(&sc, &p), 10e9 / img_B, 1e-12);
	sc.nodes = 500;
	/* the stack stages: the run reads the local drives, the copy is paid before the clock */
	sc.stack.staged = true;
	TEST_NEAR(t, model_storage_rate(&sc, &p), 500 * 4 * 7.88e9 / img_B, 1e-12);
	TEST_NEAR(t, model_staging_s(&sc, &p), 145e9 / (15e9 / 500), 1e-12);
	TEST_NEAR(t, model_staging_s(&sc, &p), 4833.333333, 1e-9);
	/* (c) a parallel file system without a known aggregate: the clients' shares bound it */
	sc.node.storage_Bps = INFINITY;
	sc.node.storage_link_Bps = 12.5e9;
	TEST_NEAR(t, model_staging_s(&sc, &p), 145e9 / 12.5e9, 1e-12);
	sc.stack.staged = false;
	TEST_NEAR(t, model_storage_rate(&sc, &p), 500 * 12.5e9 / img_B, 1e-12);
	/* (b) the data set lives on the nodes' drives: nothing to stage, reads scale with the nodes */
	sc.node.storage_Bps = 0;
	sc.node.storage_link_Bps = 0;
	sc.stack.staged = true;
	TEST_NEAR(t, model_staging_s(&sc, &p), 0.0, 0);
	TEST_NEAR(t, model_storage_rate(&sc, &p), 500 * 4 * 7.88e9 / img_B, 1e-12);
	/* no drives given: one default drive per node (storage_default_Bps) */
	sc.node.local_Bps = 0;
	TEST_NEAR(t, model_storage_rate(&sc, &p), 500 * p.storage_default_Bps / img_B, 1e-12);
	/* synthetic data reads nothing */
	sc.data = MODEL_DATA_SYNTHETIC;
	sc.node.storage_Bps = 15e9;
	TEST_CHECK(t, isinf(model_storage_rate(&sc, &p)) && model_staging_s(&sc, &p) == 0, "synthetic: no reads");
	/* the cold first epoch through one NAS is the bottleneck of a big job; staged it is not */
	{
		model_scenario a;
		model_result ra, rb;
		node_c4130(&a);
		a.nodes = 64;
		a.node.host_mem_B = 0; /* fits the page cache */
		a.node.storage_Bps = 1.25e9;
		a.node.storage_link_Bps = 1.25e9;
		a.node.local_Bps = 8e9;
		model_scenario_prepare(&a, &p);
		model_predict(&a, &p, &ra);
		TEST_NEAR(t, ra.first_epoch_s, 1281167.0 / (1.25e9 / img_B), 1e-9); /* 116 s: the NAS bounds it */
		a.stack.staged = true;
		model_predict(&a, &p, &rb);
		TEST_NEAR(t, rb.first_epoch_s, rb.epoch_s, 1e-9); /* the drives keep up: no storage wait */
		/* but 64 copies of the set through one NFS head cost more wall clock than one cold read */
		TEST_CHECK(t, rb.first_epoch_s < 0.5 * ra.first_epoch_s && rb.tta_s > ra.tta_s,
			   "staged: first epoch %g s vs cold %g s; tta %g vs %g", rb.first_epoch_s, ra.first_epoch_s,
			   rb.tta_s, ra.tta_s);
		TEST_NEAR(t, model_staging_s(&a, &p), 145e9 / (1.25e9 / 64), 1e-12);
		/* tta = start-up + staging + ttt; staged: the copy (7424 s through 1.25 GB/s for 64 nodes) is
		 * staging, not time to train; cold: the first epoch's extra is */
		TEST_NEAR(t, rb.staging_s, 145e9 / (1.25e9 / 64), 1e-9);
		TEST_NEAR(t, rb.tta_s, rb.startup_s + rb.staging_s + rb.ttt_s, 1e-12);
		/* cold, a stack that does not stage: no staging; its first epoch's reads are scored: ttt holds the
		 * slower of the storage path and the page-cache cold read (model.c warmup_time_s) */
		double cold = model_cold_read_s(&p, 64);
		TEST_CHECK(t, ra.staging_s == 0, "cold reads are not staging: %g s", ra.staging_s);
		TEST_NEAR(t, ra.ttt_s - rb.ttt_s, fmax(cold, ra.first_epoch_s) - fmax(cold, rb.first_epoch_s), 1e-6);
	}
}

/* A stack's figures replace the parameters of the same meaning; NAN leaves them. */
static void test_stack_params(test_ctx *t)
{
	model_params p;
	model_scenario a, b;
	model_result ra, rb;
	model_params_default(&p);
	node_c4130(&a);
	a.nodes = 2;
	a.precision = MODEL_FP16;
	a.node.peak_flops = 18.7e12; /* P100 fp16 */
	b = a;
	model_scenario_prepare(&a, &p);
	model_predict(&a, &p, &ra);
	/* fp32 gradients double the all-reduce bytes */
	b.stack.grad_B = 4;
	model_scenario_prepare(&b, &p);
	model_predict(&b, &p, &rb);
	TEST_NEAR(t, b.prep.grad_B, 2 * a.prep.grad_B, 1e-12);
	TEST_CHECK(t, rb.comm_s > 1.9 * ra.comm_s, "fp32 grads: comm %g vs %g", rb.comm_s, ra.comm_s);
	/* no overlap: all of the all-reduce is exposed */
	b = a;
	b.stack.overlap = 0;
	model_scenario_prepare(&b, &p);
	model_predict(&b, &p, &rb);
	TEST_NEAR(t, rb.comm_exposed_s, rb.comm_s, 1e-12);
	TEST_NEAR(t, model_overlap(&b, &p), 0.0, 0);
	TEST_NEAR(t, model_overlap(&a, &p), p.overlap, 0);
	/* one fusion buffer for the whole gradient */
	b = a;
	b.stack.bucket_B = 1e9;
	model_scenario_prepare(&b, &p);
	TEST_CHECK(t, b.prep.nbuckets == 1 && a.prep.nbuckets > 1, "buckets %d vs %d", b.prep.nbuckets, a.prep.nbuckets);
	/* a framework overhead adds to every step */
	b = a;
	b.stack.step_overhead_s = 0.01;
	model_scenario_prepare(&b, &p);
	model_predict(&b, &p, &rb);
	TEST_CHECK(t, rb.iter_s > ra.iter_s + 0.009, "overhead: %g vs %g", rb.iter_s, ra.iter_s);
	/* decode: 16 fixed threads at the stack's per-core rate */
	b = a;
	b.stack.decode_img_s_core = 100;
	b.node.decode_threads = 16;
	b.node.host_links = 0;
	b.node.cpu_hz = p.decode_ref_hz;
	model_scenario_prepare(&b, &p);
	TEST_NEAR(t, model_data_rate(&b, &p), 1600, 1e-12);
	/* the TensorFlow rule with the stack's reservation: 28 cores - 2 x 4 GPUs = 20 threads */
	b.node.decode_threads = 0;
	b.stack.cores_reserved_per_gpu = 2;
	model_scenario_prepare(&b, &p);
	TEST_NEAR(t, model_data_rate(&b, &p), 2000, 1e-12);
}

/* One GPU of a datasheet (dense bf16 peak, FP32 peak, bandwidth), synthetic data, the default params. */
static double one_gpu_img_s(const model_params *p, double peak, double fp32, double bw, double tensor_frac, bool sync,
			    model_precision prec)
{
	model_scenario sc;
	model_result r;
	model_scenario_init(&sc);
	sc.node.peak_flops = peak;
	sc.node.fp32_flops = fp32;
	sc.node.mem_bw_Bps = bw;
	sc.node.gpu_mem_B = 80e9;
	sc.node.tensor_frac = tensor_frac;
	sc.node.tensor_sync = sync;
	sc.node.gpus_per_node = sc.node.max_gpus_per_node = 1;
	sc.data = MODEL_DATA_SYNTHETIC;
	sc.precision = prec;
	sc.batch_per_gpu = 256;
	if (model_scenario_prepare(&sc, p) || model_predict(&sc, p, &r))
		return NAN;
	return r.throughput_img_s;
}

/* The generations. H100 and H200 (same 989 TFLOP/s dense bf16 and 67 FP32, 3.35 vs 4.8 TB/s; NVIDIA
 * datasheets): the H200 gains only on the memory-bound part, MLPerf v4.0 1.11x per GPU (refdata/
 * mlperf_v4_0_phases.csv: 63,619 / 57,312 img/s), not the bandwidth ratio 1.43 (tolerance: 1.05-1.22). B200
 * (2.25 PFLOP/s, 75 FP32, 8 TB/s, Blackwell's achieved-GEMM fraction) between 1.6 and 2.2x an H100 (public
 * evidence, docs/model.md). Fusion removes traffic; no tensor cores puts conv on the CUDA cores. */
static void test_generations(test_ctx *t)
{
	model_params p;
	model_params_default(&p);
	/* the architectures' facts come from the built-in hwdb/data/archs.csv */
	hw_db db;
	TEST_CHECK(t, hw_db_load_default(&db, stderr) == 0, "%s", "built-in hwdb loads");
	const hw_arch *blackwell = hw_arch_find(&db, "blackwell");
	const hw_gpu *b200g = hw_gpu_find(&db, "B200-SXM-180GB");
	TEST_CHECK(t, blackwell && b200g && b200g->arch_info == blackwell, "%s", "B200's architecture resolved to Blackwell");
	double h100 = one_gpu_img_s(&p, 989.4e12, 67e12, 3.35e12, 1.0, false, MODEL_BF16);
	double h200 = one_gpu_img_s(&p, 989.4e12, 67e12, 4.8e12, 1.0, false, MODEL_BF16);
	double b200 = one_gpu_img_s(&p, 2.25e15, 75e12, 8e12, model_arch_tensor_frac(blackwell), false, MODEL_BF16);
	TEST_CHECK(t, h200 / h100 > 1.05 && h200 / h100 < 1.22, "H200/H100 %g", h200 / h100);
	TEST_CHECK(t, b200 / h100 > 1.6 && b200 / h100 < 2.2, "B200/H100 %g", b200 / h100);
	TEST_NEAR(t, model_arch_tensor_frac(blackwell), 0.69, 1e-12);
	TEST_NEAR(t, model_arch_tensor_frac(hw_arch_find(&db, "Pascal")), 0.0, 0);
	TEST_NEAR(t, model_arch_tensor_frac(hw_arch_find(&db, "Hopper")), 1.0, 0);
	TEST_NEAR(t, model_arch_tensor_frac(NULL), 1.0, 0);
	TEST_CHECK(t, model_arch_tensor_sync(hw_arch_find(&db, "Ampere")) && model_arch_tensor_sync(hw_arch_find(&db, "volta")) &&
			      !model_arch_tensor_sync(hw_arch_find(&db, "Hopper")) && !model_arch_tensor_sync(hw_arch_find(&db, "Ada")) &&
			      !model_arch_tensor_sync(NULL), "%s", "sync archs");
	hw_db_free(&db);
	/* fused batch norm and ReLU move fewer bytes: faster, and the H200's gain shrinks */
	model_params q = p;
	q.fuse_bn_relu = 0.0;
	double h100u = one_gpu_img_s(&q, 989.4e12, 67e12, 3.35e12, 1.0, false, MODEL_BF16);
	double h200u = one_gpu_img_s(&q, 989.4e12, 67e12, 4.8e12, 1.0, false, MODEL_BF16);
	TEST_CHECK(t, h100u < h100 && h200u / h100u > h200 / h100, "unfused %g %g", h100u, h200u / h100u);
	/* synchronous-MMA GPUs use eff_compute_sync: raising it speeds an A100 (312 TFLOP/s, 19.5, 2.039 TB/s) up */
	q = p;
	q.eff_compute_sync = p.eff_compute_sync * 1.5;
	TEST_CHECK(t, one_gpu_img_s(&q, 312e12, 19.5e12, 2.039e12, 1.0, true, MODEL_BF16) >
			      one_gpu_img_s(&p, 312e12, 19.5e12, 2.039e12, 1.0, true, MODEL_BF16), "%s", "sync");
	/* no tensor cores (tensor_frac 0): the fp16 peak runs at eff_compute_fp32, as fp32 does on the FP32 peak */
	q = p;
	q.eff_compute_fp32 = 0.5;
	double pascal = one_gpu_img_s(&q, 18.7e12, 9.3e12, 732e9, 0.0, false, MODEL_FP16);
	q.eff_compute_fp32 = 1.0;
	TEST_CHECK(t, one_gpu_img_s(&q, 18.7e12, 9.3e12, 732e9, 0.0, false, MODEL_FP16) > pascal, "%s", "fp32 path");
}

/* model_gpu_decode_rank_img_s: no shared stage adds the two per-image times; with one, the rate solves its
 * fixed point, stays below the stage's share, and falls as more ranks share the host. */
static void test_gpu_decode_rank(test_ctx *t)
{
	double step = 8500, dec = 3e5, host = 40000;
	double r0 = model_gpu_decode_rank_img_s(step, 4, dec, 1e300);
	TEST_CHECK(t, fabs(r0 - 1.0 / (1.0 / step + 1.0 / dec)) < 1e-9 * r0, "no sharing: %g", r0);
	double prev = step;
	for (int k = 1; k <= 8; k *= 2) {
		double r = model_gpu_decode_rank_img_s(step, k, dec, host);
		double back = 1.0 / step + (1.0 / dec) / (1.0 - k * r / host);
		TEST_CHECK(t, fabs(r * back - 1.0) < 1e-9, "k %d: rate %g not the fixed point (%g)", k, r, r * back);
		TEST_CHECK(t, k * r < host && r < prev, "k %d: rate %g (prev %g)", k, r, prev);
		prev = r;
	}
}

/* model_input_rank_img_s: the shared stage is the host's cores x what one core carries; no cores, no stage;
 * more cores leave each of 4 ranks more. */
static void test_input_rank(test_ctx *t)
{
	double step = 8500, dec = 3e5;
	double none = model_input_rank_img_s(step, 4, dec, 0, 612);
	TEST_CHECK(t, none == model_gpu_decode_rank_img_s(step, 4, dec, INFINITY), "no cores: %g", none);
	double r64 = model_input_rank_img_s(step, 4, dec, 64, 612);
	TEST_CHECK(t, r64 == model_gpu_decode_rank_img_s(step, 4, dec, 64 * 612.0), "64 cores: %g", r64);
	double r128 = model_input_rank_img_s(step, 4, dec, 128, 612);
	TEST_CHECK(t, r64 < r128 && r128 < none, "cores: 64 %g, 128 %g, none %g", r64, r128, none);
}

/* model_input_cores_left: no socket transport, all the cores; with sockets one share a host whatever the emulated
 * nodes, at least 5% of the cores left; fewer cores, a slower rank. */
static void test_cores_left(test_ctx *t)
{
	TEST_CHECK(t, model_input_cores_left(64, 0, 0.25) == 64, "no sockets: %g", model_input_cores_left(64, 0, 0.25));
	for (int n = 1; n <= 4; n *= 2)
		TEST_CHECK(t, fabs(model_input_cores_left(64, n, 0.25) - 48) < 1e-12, "%d nodes: %g", n,
			   model_input_cores_left(64, n, 0.25));
	TEST_CHECK(t, fabs(model_input_cores_left(64, 2, 0.99) - 3.2) < 1e-12, "floor: %g",
		   model_input_cores_left(64, 2, 0.99));
	double all = model_input_rank_img_s(8500, 4, 3e5, 64, 612);
	double left = model_input_rank_img_s(8500, 4, 3e5, model_input_cores_left(64, 4, 0.25), 612);
	TEST_CHECK(t, left < all, "sockets on the host: %g, none %g", left, all);
}

int main(void)
{
	test_ctx t = {0};
	test_gpu_decode_rank(&t);
	test_input_rank(&t);
	test_cores_left(&t);
	test_params(&t);
	test_convergence(&t);
	test_c4130_scaling(&t);
	test_mlperf_ttt(&t);
	test_pieces(&t);
	test_allreduce(&t);
	test_memory_and_errors(&t);
	test_directions(&t);
	test_multipoint(&t);
	test_storage_staging(&t);
	test_stack_params(&t);
	test_contention(&t);
	test_run_terms(&t);
	test_generations(&t);
	return test_report(&t);
}
