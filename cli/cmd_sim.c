/* cli/cmd_sim.c: `scaleplan sim`: play a whole training run event by event (sim/sim.h) and report
 * the predict columns plus the spread over iterations and runs; optionally a Chrome trace.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "sim/sim.h"

/* The largest --jitter (lognormal sigma of a GPU's step): at 1 a step varies by e = 2.7x around its median,
 * far beyond the stragglers the model knows (straggler_cv 0.015, model_params.c); at 100 the simulated
 * throughput was 0 and at 1000 NaN (issue 34). */
#define SIM_JITTER_MAX 1.0

enum { O_TRACE = 2000, O_WINDOW, O_SEED, O_RUNS, O_JITTER, O_SLOWP, O_SLOWF, O_CONT, O_WARM, O_REPLAY, O_WORKERS,
       O_PREFETCH, O_FORMAT, O_DETAIL };

static void sim_usage(FILE *out)
{
	fprintf(out,
		"usage: scaleplan sim --system ID | (--gpu ID --gpus-per-node G ...) [--nodes N] [--batch-per-gpu B]\n"
		"                     [--trace run.json [--trace-window A:B]] [--seed S] [--runs R]\n"
		"                     [--jitter X] [--slow-prob P] [--slow-factor F] [--contention on|off]\n"
		"                     [--warmup on|off] [--format table|csv|json]\n"
		"\n"
		"Simulates the whole training run event by event: per-layer forward/backward on every GPU of a\n"
		"node, gradient buckets all-reduced as flows sharing the node's links and NICs, the data loader\n"
		"filling a bounded queue, first-epoch storage reads, epoch boundaries, evaluation, and per-GPU\n"
		"jitter (a synchronous step waits for the slowest of all GPUs).\n"
		"  --trace FILE        write a Chrome trace-event JSON (Perfetto, chrome://tracing) of run 1\n"
		"  --trace-window A:B  iterations A..B of the run, counted from 1 (default 1:3)\n"
		"  --seed S            GSL mt19937 seed (default 1)\n"
		"  --runs R            independent runs, for the spread of time to accuracy (default 1); each run\n"
		"                      needs its own epochs (model conv_cv, the MLPerf reference runs' spread)\n"
		"  --jitter X          sigma of each GPU's lognormal per-iteration slowdown, 0..1 (default: the\n"
		"                      model's straggler_cv, 0.015); 0 = none\n"
		"  --slow-prob P       probability a GPU's iteration is a slow step (default 0)\n"
		"  --slow-factor F     slowdown of a slow step (default 3)\n"
		"  --contention on|off flows share links max-min fairly (on, default) or run at the model's rate\n"
		"  --warmup on|off     loader queue refilled from empty each epoch (on, default), or the loader\n"
		"                      as a pure rate limit as in the model\n"
		"  --detail on|off     simulate node 0 layer by layer with its flows in every iteration (off:\n"
		"                      a per-bucket recurrence that gives the same times, much faster)\n"
		"  --replay on|off     replay identical epochs when jitter and slow steps are off (on, default)\n"
		"  --loader-workers W  data loader workers per node (default 8); --prefetch Q queue depth (16)\n"
		"  --format F          table (default), csv (predict columns + sim columns), json\n"
		"With --contention off --warmup off --jitter 0 the result equals `scaleplan predict` with\n"
		"--param straggler_cv=0.\n"
		"Progress goes to stderr (a line now and then when stderr is not a terminal). SIGINT (^C) or\n"
		"SIGTERM stops the run and writes nothing (an existing --trace file is kept as it was); the exit\n"
		"status is then 130 (SIGINT) or 143 (SIGTERM).\n"
		"\n");
	cli_scen_help(out);
	fprintf(out, "\nexample: scaleplan sim --system dgxa100-80g --nodes 16 --runs 5 --trace run.json\n");
}

static int parse_onoff(const char *opt, const char *arg, bool *out)
{
	if (strcmp(arg, "on") == 0)
		*out = true;
	else if (strcmp(arg, "off") == 0)
		*out = false;
	else {
		fprintf(stderr, "scaleplan sim: %s '%s': expected on or off\n", opt, arg);
		return -1;
	}
	return 0;
}

static int parse_num(const char *opt, const char *arg, double lo, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < lo) {
		fprintf(stderr, "scaleplan sim: %s '%s': expected a number >= %g\n", opt, arg, lo);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_long(const char *opt, const char *arg, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < lo || v > hi) {
		fprintf(stderr, "scaleplan sim: %s '%s': expected a whole number from %ld to %ld\n", opt, arg, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_window(const char *arg, long *a, long *b)
{
	char buf[64];
	const char *colon = strchr(arg, ':');
	if (!colon || colon == arg || (size_t)(colon - arg) >= sizeof buf) {
		fprintf(stderr, "scaleplan sim: --trace-window '%s': expected A:B (iterations, from 1)\n", arg);
		return -1;
	}
	memcpy(buf, arg, (size_t)(colon - arg));
	buf[colon - arg] = 0;
	if (parse_long("--trace-window", buf, 1, 1L << 40, a) || parse_long("--trace-window", colon + 1, 1, 1L << 40, b))
		return -1;
	if (*b < *a) {
		fprintf(stderr, "scaleplan sim: --trace-window %ld:%ld: B must be >= A\n", *a, *b);
		return -1;
	}
	return 0;
}

/* The predict columns (cli_result_csv_cells) with the simulated figures in place of the model's,
 * then the simulator's own columns. */
static void csv_out(csvw *w, const model_scenario *sc, const sim_result *r)
{
	static const char *cols[] = {
		"iter_p50_s", "iter_p95_s", "tta_p50_s", "tta_p95_s", "tta_min_s", "tta_max_s",
		"straggler_s", "data_wait_s", "model_iter_s", "model_tta_s", "runs", "iters", "epochs_simulated",
		"epochs_replayed", "events", "sim_wall_s",
	};
	model_result m = r->model;
	m.gpus = r->gpus;
	m.global_batch = r->global_batch;
	m.throughput_img_s = r->throughput_img_s;
	m.per_gpu_img_s = r->per_gpu_img_s;
	m.scaling_eff = r->scaling_eff;
	m.iter_s = r->iter_s;
	m.compute_s = r->compute_s;
	m.comm_s = r->comm_s;
	m.comm_exposed_s = r->comm_exposed_s;
	m.data_s = r->data_s;
	m.io_s = r->io_s;
	m.bottleneck = r->bottleneck;
	m.epochs = r->epochs;
	m.epoch_s = r->epoch_s;
	m.tta_s = r->tta_s;
	/* the simulator times the whole run; its MLPerf-scored part is that less the model's start-up and
	 * staging (which it does not simulate separately) */
	m.ttt_s = r->tta_s - (r->model.tta_s - r->model.ttt_s);
	m.first_epoch_s = r->first_epoch_s;
	m.energy_J = m.power_W * r->tta_s; /* energy = average power x the simulated run */
	model_run_money(sc, &m);

	cli_result_csv_header_cells(w);
	for (unsigned i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		csvw_text(w, cols[i]);
	csvw_text(w, "stack");
	csvw_end_row(w);
	cli_result_csv_cells(w, sc, &m);
	csvw_num(w, r->iter_p50_s, 6);
	csvw_num(w, r->iter_p95_s, 6);
	csvw_num(w, r->tta_p50_s, 6);
	csvw_num(w, r->tta_p95_s, 6);
	csvw_num(w, r->tta_min_s, 6);
	csvw_num(w, r->tta_max_s, 6);
	csvw_num(w, r->straggler_s, 6);
	csvw_num(w, r->data_wait_s, 6);
	csvw_num(w, r->model.iter_s, 6);
	csvw_num(w, r->model.tta_s, 6);
	csvw_int(w, r->runs);
	csvw_int(w, r->iters);
	csvw_int(w, r->epochs_simulated);
	csvw_int(w, r->epochs_replayed);
	csvw_num(w, (double)r->events, 12);
	csvw_num(w, r->wall_s, 4);
	csvw_text(w, sc->stack.id);
	csvw_end_row(w);
}

static void json_num(FILE *out, const char *k, double v, bool comma)
{
	if (isfinite(v))
		fprintf(out, "\"%s\":%.9g%s", k, v, comma ? "," : "");
	else
		fprintf(out, "\"%s\":null%s", k, comma ? "," : "");
}

static void json_out(FILE *out, const model_scenario *sc, const sim_result *r)
{
	fputs("{\"model\":", out);
	cli_result_json(out, sc, &r->model);
	fprintf(out, ",\"sim\":{\"bottleneck\":\"%s\",\"gpus\":%d,\"global_batch\":%d,\"runs\":%d,\"iters\":%ld,"
		"\"epochs_simulated\":%d,\"epochs_replayed\":%d,\"events\":%llu,",
		model_bottleneck_name(r->bottleneck), r->gpus, r->global_batch, r->runs, r->iters, r->epochs_simulated,
		r->epochs_replayed, (unsigned long long)r->events);
	json_num(out, "throughput_img_s", r->throughput_img_s, true);
	json_num(out, "per_gpu_img_s", r->per_gpu_img_s, true);
	json_num(out, "scaling_eff", r->scaling_eff, true);
	json_num(out, "iter_s", r->iter_s, true);
	json_num(out, "iter_p50_s", r->iter_p50_s, true);
	json_num(out, "iter_p95_s", r->iter_p95_s, true);
	json_num(out, "compute_s", r->compute_s, true);
	json_num(out, "comm_s", r->comm_s, true);
	json_num(out, "comm_exposed_s", r->comm_exposed_s, true);
	json_num(out, "data_s", r->data_s, true);
	json_num(out, "io_s", r->io_s, true);
	json_num(out, "straggler_s", r->straggler_s, true);
	json_num(out, "data_wait_s", r->data_wait_s, true);
	json_num(out, "epochs", r->epochs, true);
	json_num(out, "epoch_s", r->epoch_s, true);
	json_num(out, "first_epoch_s", r->first_epoch_s, true);
	json_num(out, "tta_s", r->tta_s, true);
	json_num(out, "tta_p50_s", r->tta_p50_s, true);
	json_num(out, "tta_p95_s", r->tta_p95_s, true);
	json_num(out, "tta_min_s", r->tta_min_s, true);
	json_num(out, "tta_max_s", r->tta_max_s, true);
	json_num(out, "sim_wall_s", r->wall_s, false);
	fputs("}}\n", out);
}

/* An epoch as cli_fmt_duration gives it, but in ms below a second: thousands of GPUs go through ImageNet in
 * tens of ms, where "0.0 s" would say nothing. */
static char *fmt_epoch(double s, char *buf, size_t len_B)
{
	if (isfinite(s) && s < 0.95)
		snprintf(buf, len_B, "%.1f ms", 1e3 * s);
	else
		cli_fmt_duration(s, buf, len_B);
	return buf;
}

static void table_out(const model_scenario *sc, const sim_result *r, const sim_opts *o)
{
	char d1[96], d2[32], d3[32];
	const model_result *m = &r->model;
	printf("scaleplan sim: %s (%s), %d node%s x %d GPUs = %d GPUs, batch %d/GPU (global %d), %s\n",
	       sc->node.system_id, sc->node.gpu_id, sc->nodes, sc->nodes > 1 ? "s" : "", sc->node.gpus_per_node,
	       r->gpus, sc->batch_per_gpu, r->global_batch, model_precision_name(sc->precision));
	printf("  stack              %s\n", cli_stack_label(sc, d1, sizeof d1));
	printf("  settings           %s, contention %s, warm-up %s, jitter %g, slow steps %g x%g, seed %lu, %d run%s\n",
	       o->detail ? "every iteration layer by layer" : "bucket recurrence", o->contention ? "on" : "off", o->warmup ? "on" : "off", o->jitter, o->slow_prob, o->slow_factor, o->seed,
	       r->runs, r->runs > 1 ? "s" : "");
	printf("                     %-14s %-14s\n", "simulated", "model");
	printf("  throughput img/s   %-14.0f %-14.0f\n", r->throughput_img_s, m->throughput_img_s);
	printf("  iteration s        %-14.5f %-14.5f  p50 %.5f  p95 %.5f\n", r->iter_s, m->iter_s, r->iter_p50_s,
	       r->iter_p95_s);
	printf("  compute s          %-14.5f %-14.5f\n", r->compute_s, m->compute_s);
	printf("  all-reduce s       %-14.5f %-14.5f\n", r->comm_s, m->comm_s);
	printf("  exposed comm s     %-14.5f %-14.5f\n", r->comm_exposed_s, m->comm_exposed_s);
	printf("  straggler wait s   %-14.5f %-14s  (slowest GPU minus the mean GPU, per iteration)\n", r->straggler_s, "-");
	printf("  data wait s        %-14.5f %-14s  (per iteration)\n", r->data_wait_s, "-");
	printf("  bottleneck         %-14s %-14s\n", model_bottleneck_name(r->bottleneck), model_bottleneck_name(m->bottleneck));
	printf("  epochs             %.2f (%ld iterations)%s\n", r->epochs, r->iters, cli_epochs_note(sc, m));
	printf("  epoch              %-14s %-14s  (first epoch %s)\n", fmt_epoch(r->epoch_s, d1, sizeof d1),
	       fmt_epoch(m->epoch_s, d2, sizeof d2), fmt_epoch(r->first_epoch_s, d3, sizeof d3));
	printf("  time to accuracy   %-14s %-14s  over %d run%s: p50 %.1f s  p95 %.1f s  (min %.1f, max %.1f)\n",
	       cli_fmt_duration(r->tta_s, d1, sizeof d1), cli_fmt_duration(m->tta_s, d2, sizeof d2), r->runs,
	       r->runs > 1 ? "s" : "", r->tta_p50_s, r->tta_p95_s, r->tta_min_s, r->tta_max_s);
	printf("  simulation         %llu events in %.3f s (%.2g events/s); %d epoch%s simulated, %d replayed%s\n",
	       (unsigned long long)r->events, r->wall_s, r->wall_s > 0 ? (double)r->events / r->wall_s : 0.0,
	       r->epochs_simulated, r->epochs_simulated == 1 ? "" : "s", r->epochs_replayed,
	       r->epochs_replayed ? " (identical epochs, jitter off: nothing random lost)" : "");
}

int cmd_sim(int argc, char **argv)
{
	struct option opts[80];
	cli_scen s;
	model_scenario sc;
	sim_opts o;
	sim_result r;
	sim_trace *tr = NULL;
	const char *format = "table", *trace_path = NULL;
	double jitter = NAN, slow_prob = 0, slow_factor = 3;
	long seed = 1, runs = 1, workers = 8, prefetch = 16, wa = 1, wb = 3;
	bool contention = true, warmup = true, replay = true, detail = false, window_given = false;
	int n, c, rc;

	cli_scen_init(&s, "sim");
	n = cli_scen_longopts(opts, 0, 60);
	opts[n++] = (struct option){"trace", required_argument, NULL, O_TRACE};
	opts[n++] = (struct option){"trace-window", required_argument, NULL, O_WINDOW};
	opts[n++] = (struct option){"seed", required_argument, NULL, O_SEED};
	opts[n++] = (struct option){"runs", required_argument, NULL, O_RUNS};
	opts[n++] = (struct option){"jitter", required_argument, NULL, O_JITTER};
	opts[n++] = (struct option){"slow-prob", required_argument, NULL, O_SLOWP};
	opts[n++] = (struct option){"slow-factor", required_argument, NULL, O_SLOWF};
	opts[n++] = (struct option){"contention", required_argument, NULL, O_CONT};
	opts[n++] = (struct option){"warmup", required_argument, NULL, O_WARM};
	opts[n++] = (struct option){"replay", required_argument, NULL, O_REPLAY};
	opts[n++] = (struct option){"detail", required_argument, NULL, O_DETAIL};
	opts[n++] = (struct option){"loader-workers", required_argument, NULL, O_WORKERS};
	opts[n++] = (struct option){"prefetch", required_argument, NULL, O_PREFETCH};
	opts[n++] = (struct option){"format", required_argument, NULL, O_FORMAT};
	opts[n++] = (struct option){"help", no_argument, NULL, 'h'};
	opts[n] = (struct option){0};
	optind = 1;
	rc = EXIT_INPUT;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		int hd = cli_scen_option(&s, c, optarg);
		if (hd < 0)
			goto out;
		if (hd)
			continue;
		int bad = 0;
		switch (c) {
		case O_TRACE: trace_path = optarg; break;
		case O_WINDOW: bad = parse_window(optarg, &wa, &wb); window_given = true; break;
		case O_SEED: bad = parse_long("--seed", optarg, 0, 4294967295L, &seed); break;
		case O_RUNS: bad = parse_long("--runs", optarg, 1, 100000, &runs); break;
		case O_JITTER:
			bad = parse_num("--jitter", optarg, 0, &jitter);
			if (!bad && jitter > SIM_JITTER_MAX) {
				fprintf(stderr, "scaleplan sim: --jitter '%s': expected a lognormal sigma in [0, %g] (%g lets one "
						"GPU's step run e^%g = %.1fx slower or faster than its median, already beyond any "
						"straggler seen; larger values overflow the simulated times)\n", optarg,
					SIM_JITTER_MAX, SIM_JITTER_MAX, SIM_JITTER_MAX, exp(SIM_JITTER_MAX));
				bad = -1;
			}
			break;
		case O_SLOWP:
			bad = parse_num("--slow-prob", optarg, 0, &slow_prob);
			if (!bad && slow_prob > 1) {
				fprintf(stderr, "scaleplan sim: --slow-prob '%s': expected a probability in [0, 1]\n", optarg);
				bad = -1;
			}
			break;
		case O_SLOWF: bad = parse_num("--slow-factor", optarg, 1, &slow_factor); break;
		case O_CONT: bad = parse_onoff("--contention", optarg, &contention); break;
		case O_WARM: bad = parse_onoff("--warmup", optarg, &warmup); break;
		case O_REPLAY: bad = parse_onoff("--replay", optarg, &replay); break;
		case O_DETAIL: bad = parse_onoff("--detail", optarg, &detail); break;
		case O_WORKERS: bad = parse_long("--loader-workers", optarg, 1, 4096, &workers); break;
		case O_PREFETCH: bad = parse_long("--prefetch", optarg, 1, 1 << 20, &prefetch); break;
		case O_FORMAT:
			if (strcmp(optarg, "table") && strcmp(optarg, "csv") && strcmp(optarg, "json")) {
				fprintf(stderr, "scaleplan sim: --format '%s': expected table, csv or json\n", optarg);
				bad = -1;
			}
			format = optarg;
			break;
		case 'h':
			sim_usage(stdout);
			rc = EXIT_OK;
			goto out;
		default:
			fprintf(stderr, "scaleplan sim: see `scaleplan sim --help`\n");
			goto out;
		}
		if (bad)
			goto out;
	}
	if (optind < argc) {
		fprintf(stderr, "scaleplan sim: unexpected argument '%s'\n", argv[optind]);
		goto out;
	}
	if ((rc = cli_check_not_both("sim", "--global-batch", s.spec.global_batch, "--batch-per-gpu",
				     s.spec.batch_per_gpu)) ||
	    (rc = cli_check_out("sim", "--trace", trace_path, false)))
		goto out;
	rc = EXIT_INPUT;
	if (window_given && !trace_path) {
		fprintf(stderr, "scaleplan sim: --trace-window needs --trace FILE\n");
		goto out;
	}
	rc = cli_scen_load(&s);
	if (rc)
		goto out;
	rc = cli_scen_resolve(&s, NULL, 0, 0, &sc);
	if (rc)
		goto out;
	sim_opts_default(&o, &s.params);
	{
		const model_params *mp = &s.params;
		double f[] = { mp->slowdown_compute_nvlink, mp->slowdown_comm_nvlink, mp->slowdown_compute_pcie,
			       mp->slowdown_comm_pcie, mp->slowdown_compute_net, mp->slowdown_comm_net };
		for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
			if (f[i] != 1.0) {
				fprintf(stderr, "scaleplan sim: note: the compute/all-reduce contention factors (slowdown_*) "
						"are not simulated; `scaleplan predict` includes them\n");
				break;
			}
	}
	o.contention = contention;
	o.warmup = warmup;
	o.replay = replay;
	o.detail = detail;
	if (!isnan(jitter))
		o.jitter = jitter;
	o.slow_prob = slow_prob;
	o.slow_factor = slow_factor;
	o.seed = (unsigned long)seed;
	o.runs = (int)runs;
	o.loader_workers = (int)workers;
	o.prefetch = (int)prefetch;
	if (trace_path) {
		tr = sim_trace_new();
		o.trace = tr;
		o.trace_first = wa;
		o.trace_last = wb;
	}
	progress prog;
	progress_init(&prog, "sim", 1);
	o.progress = &prog;
	if (intr_install()) {
		fprintf(stderr, "scaleplan sim: %s\n", err_msg());
		rc = EXIT_ENV;
		goto out;
	}
	o.stop = intr_pending;
	int src = sim_run(&sc, &s.params, &o, &r);
	if (src == ERR_INTR) {
		progress_break(&prog);
		fprintf(stderr, "scaleplan sim: interrupted (%s): %s; nothing written\n", intr_name(), err_msg());
		rc = intr_exit_code();
		goto out;
	}
	if (src) {
		fprintf(stderr, "scaleplan sim: %s\n", err_msg());
		rc = src == ERR_ENV ? EXIT_ENV : EXIT_INPUT;
		goto out;
	}
	if (tr) {
		int wrc = sim_trace_write(tr, trace_path);
		if (wrc) {
			fprintf(stderr, "scaleplan sim: %s\n", err_msg());
			rc = exit_code_of(wrc);
			goto out;
		}
		fprintf(stderr, "scaleplan sim: trace of iterations %ld-%ld (%zu spans) written to %s\n", wa, wb,
			sim_trace_count(tr), trace_path);
	}
	if (strcmp(format, "csv") == 0) {
		csvw *w = csvw_stream(stdout);
		csv_out(w, &sc, &r);
		if (csvw_close(w)) {
			fprintf(stderr, "scaleplan sim: %s\n", err_msg());
			rc = EXIT_ENV;
			goto out;
		}
	} else if (strcmp(format, "json") == 0) {
		json_out(stdout, &sc, &r);
	} else {
		table_out(&sc, &r, &o);
	}
	rc = EXIT_OK;
out:
	sim_trace_free(tr);
	cli_scen_free(&s);
	return rc;
}
