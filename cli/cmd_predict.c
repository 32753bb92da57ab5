/* cli/cmd_predict.c: `scaleplan predict`: one configuration -> throughput, breakdown, bottleneck,
 * epochs and time to accuracy, as a table (people), CSV or JSON (machines).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/common.h"

/* capex by part (whole units, the fabric, the store) with its range, rent as billed, the owner's cost per run
 * by part and the break-even against renting, each where the database has its price. */
const char *cli_epochs_note(const model_scenario *sc, const model_result *r)
{
	return sc->epochs > 0 ? " (--epochs)"
	       : r->extrapolated ? " (EXTRAPOLATED: the global batch is above the largest measured convergence point)"
	       : r->extrapolated_below ? " (EXTRAPOLATED: the global batch is below the smallest measured convergence "
					 "point; epochs held at its value)"
	       : sc->epochs_scale != 1.0 ? " (convergence curve scaled through --measured-epochs)"
				       : " (MLPerf convergence curve at this global batch)";
}

/* The shared store's part of the capex, as model_money.c prices it: whole units of a priced store, else flash
 * sized to the cluster (--store-tb-per-gpu x GPUs sold, at least the data set's copies), so that a store
 * without a price in the database still shows its figure's basis. */
static void print_storage(FILE *out, const model_scenario *sc, const model_params *p, const model_result *r, const model_cost *cost)
{
	const model_node *n = &sc->node;
	const model_price *pr = &sc->price;
	const model_money *m = &sc->money;
	char a[32], b[32];
	double units = model_store_units(sc, p, r);
	if (isfinite(units)) {
		fprintf(out, "storage %.0f x %s (%s)", units, plan_fmt_usd(pr->store_unit_usd, a, sizeof a), n->storage_id);
		return;
	}
	fprintf(out, "storage %s (flash: %.4g TB at %s/TB, %g TB a GPU sold, at least the data set's %.3g TB x %g copies; ",
	       plan_fmt_usd(cost->capex_storage_usd, a, sizeof a), cost->capex_storage_usd / m->store_usd_TB,
	       plan_fmt_usd(m->store_usd_TB, b, sizeof b), m->store_TB_gpu, p->dataset_B / 1e12, m->store_replicas);
	if (pr->store_shared && n->storage_id)
		fprintf(out, "%s has no unit price in the database)", n->storage_id);
	else
		fprintf(out, "%s)", pr->store_shared ? "a store without a price" : "a store to stage from; each node keeps its copy on its own drives");
}

/* capex = servers + network + storage + racks + cooling + installation, each part named with its figure
 * (model_run_capex), or the reason there is none. */
static void print_capex(FILE *out, const model_scenario *sc, const model_params *p, const model_result *r, const model_cost *cost)
{
	const model_price *pr = &sc->price;
	char a[32], b[32], c[32], d[32], why[256];
	int units = model_nodes_bought(sc) / (pr->unit_nodes > 1 ? pr->unit_nodes : 1);
	if (!isfinite(cost->capex_usd)) {
		fprintf(out, "  capex              - (%s)\n", cli_why_unpriced(sc, cost, PLAN_CAPEX, why, sizeof why));
		return;
	}
	fprintf(out, "  capex              %s (%s-%s) = servers %d x %s%s", plan_fmt_usd(cost->capex_usd, a, sizeof a),
	       plan_fmt_usd(cost->capex_lo_usd, b, sizeof b), plan_fmt_usd(cost->capex_hi_usd, c, sizeof c), units,
	       plan_fmt_usd(isfinite(pr->unit_price_usd) ? pr->unit_price_usd : pr->price_usd, d, sizeof d),
	       pr->unit_nodes > 1 ? " (whole units of nodes bought)" : "");
	fprintf(out, " + network %s (fabric %s, front-end and management %s) + ", plan_fmt_usd(cost->capex_network_usd, a, sizeof a),
	       plan_fmt_usd(cost->capex_fabric_usd, b, sizeof b), plan_fmt_usd(cost->capex_frontend_usd, c, sizeof c));
	print_storage(out, sc, p, r, cost);
	fprintf(out, " + racks %s + cooling %s + installation %s\n", plan_fmt_usd(cost->capex_racks_usd, a, sizeof a),
	       plan_fmt_usd(cost->capex_cooling_usd, b, sizeof b), plan_fmt_usd(cost->capex_install_usd, c, sizeof c));
}

/* A count of runs as typed: "5000" (never "5e+03"), "0.5". */
static const char *runs_text(double n, char *buf, size_t len_B)
{
	snprintf(buf, len_B, n == floor(n) && n < 1e15 ? "%.0f" : "%.3g", n);
	return buf;
}

static void print_money(FILE *out, const model_scenario *sc, const model_params *p, const model_result *r, const model_cost *cost)
{
	const model_node *n = &sc->node;
	const model_price *pr = &sc->price;
	const model_money *m = &sc->money;
	char a[32], b[32], c[32], d[32], e[32], why[256];
	print_capex(out, sc, p, r, cost);
	if (!isfinite(cost->rent_usd))
		fprintf(out, "  rent               - (%s)\n", cli_why_unpriced(sc, cost, PLAN_RENT, why, sizeof why));
	if (isfinite(cost->rent_usd))
		fprintf(out, "  rent               %s (%s-%s) for the run as billed (%.0f GPUs x %s per GPU-hour x %s)\n",
		       plan_fmt_usd(cost->rent_usd, a, sizeof a), plan_fmt_usd(cost->rent_lo_usd, b, sizeof b),
		       plan_fmt_usd(cost->rent_hi_usd, c, sizeof c), cost->rent_gpus, plan_fmt_usd(pr->rent_usd_gpu_h, d, sizeof d),
		       pr->rent_reserved ? "the run's share of the reserved month at this use"
					: plan_fmt_duration(cost->rent_usd / (cost->rent_gpus * pr->rent_usd_gpu_h) * 3600.0, e, sizeof e));
	if (isfinite(cost->rent_usd) && !pr->rent_reserved)
		fprintf(out, "                     billed time: time to accuracy + its share of %s of instance start-up and data "
		       "copy a rental session (--rent-session-h)\n", plan_fmt_duration(cost->rent_setup_s, e, sizeof e));
	if (isfinite(cost->power_W))
		fprintf(out, "  power / energy     %.1f kW average (%s), %.2f kWh per run, %s at %s/kWh x PUE %.3g\n",
		       cost->power_W / 1e3, plan_power_basis(sc, cost), cost->energy_J / 3.6e6, plan_fmt_usd(cost->energy_usd, a, sizeof a),
		       plan_fmt_usd(m->kwh_usd, b, sizeof b), m->pue);
	if (isfinite(cost->capex_usd)) {
		char use[64], tco[256];
		if (m->runs_per_month > 0) {
			char rb[32];
			snprintf(use, sizeof use, "%s runs a month", runs_text(m->runs_per_month, rb, sizeof rb));
		} else {
			snprintf(use, sizeof use, "%.0f%% utilisation", m->utilisation * 100.0);
		}
		model_money_tco_words(m, use, tco, sizeof tco);
		fprintf(out, "  owner's cost       %s (%s-%s) per run (support %s, facility %s): %s\n",
		       plan_fmt_usd(cost->tco_usd, a, sizeof a), plan_fmt_usd(cost->tco_lo_usd, b, sizeof b),
		       plan_fmt_usd(cost->tco_hi_usd, c, sizeof c), plan_fmt_usd(cost->support_usd, d, sizeof d),
		       plan_fmt_usd(cost->facility_usd, e, sizeof e), tco);
	}
	if (isfinite(cost->breakeven_runs_per_month))
		fprintf(out, "  buy vs rent        owning is cheaper %s %.0f runs a month, %.0f%% use (renting %s at %s per GPU-hour; "
		       "the rate that flips it at this use %s); a month holds at most %.0f such runs back to back\n",
		       cost->buy_wins_above ? "above" : "below", cost->breakeven_runs_per_month, 100 * cost->breakeven_use,
		       pr->ref_rent_id, plan_fmt_usd(pr->ref_rent_usd_gpu_h, a, sizeof a),
		       plan_fmt_usd(cost->flip_usd_gpu_h, b, sizeof b), floor(MODEL_MONTH_S / r->tta_s));
	else if (isinf(cost->breakeven_runs_per_month))
		fprintf(out, "  buy vs rent        renting %s at %s per GPU-hour costs less than this run's energy: owning never "
		       "pays\n", pr->ref_rent_id, plan_fmt_usd(pr->ref_rent_usd_gpu_h, a, sizeof a));
	else if (isfinite(cost->capex_usd))
		fprintf(out, "  buy vs rent        no rate in the database rents %s for %d GPUs\n", n->gpu_id, r->gpus);
}

static const char *const formats[] = {"table", "csv", "json", NULL};

/* predict's own options; the shared ones are cli_scen_opts'. */
typedef struct predict_opts {
	const char *format;
	bool list_params;
} predict_opts;

static void predict_table(predict_opts *po, cli_opt *t)
{
	const cli_opt own[] = {
		CLI_O_ENUM("format", &po->format, formats, "table, csv or json",
			   "  --format F   table (default), csv (header + one row), json\n"),
		CLI_O_FLAG("params", &po->list_params,
			   "  --params     list the model parameters (name, value, default, source) and exit\n"),
		CLI_O_HELP,
		CLI_O_END,
	};
	memcpy(t, own, sizeof own);
}

static void predict_usage(FILE *out)
{
	predict_opts po;
	cli_opt own[4];
	predict_table(&po, own);
	fprintf(out,
		"usage: scaleplan predict --system ID | (--gpu ID --gpus-per-node G ...) [--nodes N]\n"
		"                         [--batch-per-gpu B | --global-batch GB] [--precision P]\n"
		"                         [--measured G:B:IMG_S]... [--format table|csv|json] [--params]\n"
		"\n"
		"Predicts ResNet-50 training throughput and time to 75.9%% top-1 for one configuration, each with its\n"
		"90%% prediction interval (in parentheses; CSV: *_lo_*, *_hi_*) and its basis: measured (this GPU has\n"
		"results in the data the model is checked on, or --measured), transfer (its architecture has),\n"
		"estimate (neither). A --measured above the GPUs' peak, or two of one GPU count and batch more than\n"
		"10%% apart, is refused.\n");
	cli_opt_help(out, own, NULL);
	fputc('\n', out);
	cli_scen_help(out);
	fprintf(out, "\nexample: scaleplan predict --system c4140-m --nodes 2 --batch-per-gpu 128 --precision fp16\n");
}

/* Why the prediction has the basis it has (plan_basis decided it). */
static const char *basis_text(model_basis b, const cli_scen *s)
{
	if (b == MODEL_BASIS_MEASURED)
		return s->spec.nmeasured ? "calibrated to your --measured" : "this GPU has results in the data the model was checked on";
	if (b == MODEL_BASIS_TRANSFER)
		return "no results of this GPU, but of its architecture: carried over from those (wider interval)";
	return "no results of this GPU or its architecture: the database's figures only (widest interval)";
}

static void print_table(FILE *out, const model_scenario *sc, const model_result *r, const model_cost *cost,
			const cli_scen *s)
{
	char d1[32], d2[32], d4[32], st[96];
	const model_node *n = &sc->node;

	fprintf(out, "scaleplan predict: %s (%s), %d node%s x %d GPU%s = %d GPUs, batch %d/GPU (global %d), %s, data %s\n",
	       n->system_id, n->gpu_id, sc->nodes, sc->nodes > 1 ? "s" : "", n->gpus_per_node,
	       n->gpus_per_node > 1 ? "s" : "", r->gpus, sc->batch_per_gpu, r->global_batch,
	       model_precision_name(sc->precision), model_data_name(sc->data));
	fprintf(out, "  stack              %s\n", plan_stack_label(sc, st, sizeof st));
	if (n->storage_id && isinf(n->storage_Bps))
		fprintf(out, "  storage            %s, grows with the cluster, %.1f GB/s per node%s\n", n->storage_id,
		       n->storage_link_Bps / 1e9, s->spec.storage_id ? "" : " (the system's; --storage ID takes one as it is)");
	else if (n->storage_id)
		fprintf(out, "  storage            %s, %.1f GB/s for the whole job, %.1f GB/s per node (--storage)\n", n->storage_id,
		       n->storage_Bps / 1e9, n->storage_link_Bps / 1e9);
	else
		fprintf(out, "  storage            data set on each node's drives\n");
	if (sc->data != MODEL_DATA_SYNTHETIC)
		fprintf(out, "                     read at %.1f GB/s per node in the first epoch%s\n",
		       model_storage_rate(sc, &s->params) * s->params.dataset_B / sc->images / sc->nodes / 1e9,
		       sc->stack.staged && n->storage_id ? " (copied to the drives first: data staging)" : "");
	if (s->spec.nmeasured) {
		const hw_system *m = s->spec.measured_system_id ? hw_system_find(&s->db, s->spec.measured_system_id) : NULL;
		const char *mstack = s->spec.measured_stack_id ? s->spec.measured_stack_id
				 : s->spec.stack_id || !m || !m->stack ? sc->stack.id : m->stack->id;
		fprintf(out, "  calibrated to %d measurement%s on stack %s%s%s: compute time x %.3f%s\n", s->spec.nmeasured,
		       s->spec.nmeasured > 1 ? "s" : "", mstack, m ? " of system " : "", m ? m->id : "", sc->compute_cal,
		       sc->data_cal != 1.0 ? " (input pipeline raised to match)" : "");
	}
	fprintf(out, "  memory per GPU     %.1f GB of %.0f GB%s\n", r->mem_per_gpu_B / 1e9, n->gpu_mem_B / 1e9,
	       r->fits ? "" : "  -> DOES NOT FIT: lower --batch-per-gpu");
	if (!r->fits)
		return;
	fprintf(out, "  basis              %s: %s\n", model_basis_name(r->basis), basis_text(r->basis, s));
	fprintf(out, "  throughput         %.0f img/s (%.0f-%.0f)  (%.0f per GPU, scaling efficiency %.1f%%)\n",
	       r->throughput_img_s, r->throughput_lo_img_s, r->throughput_hi_img_s, r->per_gpu_img_s, 100 * r->scaling_eff);
	fprintf(out, "  iteration          %.4f s   compute %.4f (fwd %.4f bwd %.4f opt %.4f)\n", r->iter_s, r->compute_s,
	       r->fwd_s, r->bwd_s, r->opt_s);
	fprintf(out, "                                all-reduce %.4f (exposed %.4f)  data %.4f  io %.4f%s\n", r->comm_s,
	       r->comm_exposed_s, r->data_s, r->io_s, sc->prep.cached ? " (first epoch only: page cache)" : "");
	fprintf(out, "  bottleneck         %s\n", model_bottleneck_name(r->bottleneck));
	fprintf(out, "  epochs             %.1f%s\n", r->epochs, cli_epochs_note(sc, r));
	fprintf(out, "  epoch              %s (first epoch %s)\n", plan_fmt_duration(r->epoch_s, d1, sizeof d1),
	       plan_fmt_duration(r->first_epoch_s, d2, sizeof d2));
	fprintf(out, "  time to train      %s  MLPerf-scored (run_start..run_stop): warm-up %s (lead-in, cold first "
	       "epoch) + epochs %s\n", plan_fmt_range(r->ttt_s, r->ttt_lo_s, r->ttt_hi_s, st, sizeof st),
	       plan_fmt_duration(r->warmup_s, d1, sizeof d1), plan_fmt_duration(r->epochs * r->epoch_s, d2, sizeof d2));
	fprintf(out, "                     + evaluation %s + epoch boundaries %s\n", plan_fmt_duration(r->eval_s, d1, sizeof d1),
	       plan_fmt_duration(r->boundary_s, d4, sizeof d4));
	/* staging_s is the copy to the drives before the clock (a staging stack); a stack that does not stage
	 * reads storage cold in its first epoch, inside time to train (model.c warmup_time_s) */
	if (sc->stack.staged && !(r->staging_s == 0 && !sc->node.storage_id))
		fprintf(out, "  time to accuracy   %s  wall clock = start-up %s + data staging %s + time to train\n",
		       plan_fmt_range(r->tta_s, r->tta_lo_s, r->tta_hi_s, st, sizeof st),
		       plan_fmt_duration(r->startup_s, d1, sizeof d1), plan_fmt_duration(r->staging_s, d2, sizeof d2));
	else if (sc->stack.staged) /* not "data staging 0.0 s": there was nothing to copy */
		fprintf(out, "  time to accuracy   %s  wall clock = start-up %s + time to train (the data set on each node's "
		       "drives already: nothing to stage)\n",
		       plan_fmt_range(r->tta_s, r->tta_lo_s, r->tta_hi_s, st, sizeof st),
		       plan_fmt_duration(r->startup_s, d1, sizeof d1));
	else
		fprintf(out, "  time to accuracy   %s  wall clock = start-up %s + time to train (no staging: the stack reads "
		       "storage cold in its first epoch, inside time to train)\n",
		       plan_fmt_range(r->tta_s, r->tta_lo_s, r->tta_hi_s, st, sizeof st),
		       plan_fmt_duration(r->startup_s, d1, sizeof d1));
	print_money(out, sc, &s->params, r, cost);
	if (s->system && strcmp(s->system->status, "eol") == 0) /* as compare says of such rows */
		fprintf(out, "  status             end of life %s (no longer sold): its price%s%s%s is historical (the source: "
		       "`scaleplan hw show %s`)\n", s->system->status_date, *s->system->price_date ? ", dated " : "",
		       s->system->price_date, *s->system->price_date ? "," : "", s->system->id);
	fprintf(out, "  (in parentheses: 90%% prediction interval from held-out errors of %s predictions at this scale)\n",
	       model_basis_name(r->basis));
}

/* The JSON object of the row with only the members named in columns, in that order (--columns, as the CSV
 * takes it). EXIT_OK, or EXIT_INPUT naming a member the row lacks and those it has (nothing printed). */
static int print_json_columns(const model_scenario *sc, const model_result *r, const model_cost *cost,
			      const char *columns)
{
	char *text = NULL, list[1024], *save = NULL;
	size_t len_B = 0;
	FILE *m = open_memstream(&text, &len_B);
	if (!m) {
		fprintf(stderr, "scaleplan predict: out of memory\n");
		return EXIT_ENV;
	}
	plan_row_json(m, sc, r, cost);
	fclose(m);
	json_error_t e;
	json_t *all = json_loads(text, 0, &e), *pick = json_object();
	int rc = all ? EXIT_OK : EXIT_ENV;
	snprintf(list, sizeof list, "%s", columns);
	for (char *t = strtok_r(list, ",", &save); t && rc == EXIT_OK; t = strtok_r(NULL, ",", &save)) {
		json_t *v = json_object_get(all, t);
		if (v) {
			json_object_set(pick, t, v);
			continue;
		}
		fprintf(stderr, "scaleplan predict: --columns: no column '%s' (the columns are", t);
		const char *k;
		json_t *x;
		json_object_foreach(all, k, x)
			fprintf(stderr, " %s", k);
		fprintf(stderr, ")\n");
		rc = EXIT_INPUT;
	}
	if (rc == EXIT_OK) {
		json_dumpf(pick, stdout, JSON_REAL_PRECISION(9));
		fputc('\n', stdout);
	}
	json_decref(pick);
	json_decref(all);
	free(text);
	return rc;
}

/* The prediction on stdout as --format asks: the CSV (--columns picks), the JSON object, or the table of lines
 * wrapped within 200 characters. EXIT_OK, or the exit code with the message printed. */
static int predict_print(const char *format, const cli_scen *s, const model_scenario *sc, const model_result *r,
			 const model_cost *cost)
{
	int rc = EXIT_OK;
	if (strcmp(format, "csv") == 0) {
		csvw *w = csvw_stream(stdout);
		if (s->columns && strcmp(s->columns, "all") != 0)
			csvw_select(w, s->columns);
		plan_row_csv_header(w);
		plan_row_csv(w, sc, r, cost);
		int crc = csvw_close(w);
		if (crc) {
			fprintf(stderr, "scaleplan predict: %s\n", err_msg());
			rc = crc == ERR_INPUT ? EXIT_INPUT : EXIT_ENV;
		}
	} else if (strcmp(format, "json") == 0 && s->columns && strcmp(s->columns, "all") != 0) {
		rc = print_json_columns(sc, r, cost, s->columns);
	} else if (strcmp(format, "json") == 0) {
		plan_row_json(stdout, sc, r, cost);
		fputc('\n', stdout);
	} else {
		char *text = NULL;
		size_t len_B = 0;
		FILE *m = open_memstream(&text, &len_B);
		if (!m) {
			fprintf(stderr, "scaleplan predict: out of memory\n");
			return EXIT_ENV;
		}
		print_table(m, sc, r, cost, s);
		fclose(m);
		cli_print_wrapped(stdout, text); /* lines within 200 characters, as compare's */
		free(text);
	}
	return rc;
}

int cmd_predict(int argc, char **argv)
{
	cli_scen s;
	model_scenario sc;
	model_result r;
	model_cost cost;
	predict_opts po = {.format = "table"};
	cli_opt scen[CLI_SCEN_NOPTS], own[4];
	int rc;

	cli_scen_init(&s, "predict");
	s.columns_help = cli_columns_predict;
	cli_scen_opts(&s, scen);
	predict_table(&po, own);
	cli_parse p = {.cmd = "predict", .tables = {scen, own}, .usage = predict_usage, .max_args = 0};
	rc = cli_opt_parse(&p, argc, argv);
	if (rc || p.done)
		return rc;
	const char *format = po.format;
	if ((rc = cli_check_columns("predict", s.columns, strcmp(format, "table") != 0,
				    "the table is of one configuration, line by line; --format csv or json selects columns")))
		return rc;
	rc = cli_scen_load(&s);
	if (rc)
		goto out;
	if (po.list_params) {
		cli_params_print(stdout, &s.params);
		goto out;
	}
	rc = cli_scen_resolve(&s, NULL, 0, 0, &sc);
	if (rc)
		goto out;
	if (model_predict(&sc, &s.params, &r)) {
		fprintf(stderr, "scaleplan predict: %s\n", err_msg());
		rc = EXIT_INPUT;
		goto out;
	}
	if (!r.fits && s.spec.batch_per_gpu > 0) {
		int fit = model_batch_that_fits(&sc, &s.params);
		char hint[64] = "no batch per GPU fits";
		if (fit > 0)
			snprintf(hint, sizeof hint, "try --batch-per-gpu %d", fit);
		fprintf(stderr, "scaleplan predict: batch %d per GPU needs %.1f GB per GPU; %s has %.0f GB (%s)\n",
			sc.batch_per_gpu, r.mem_per_gpu_B / 1e9, sc.node.gpu_id, sc.node.gpu_mem_B / 1e9, hint);
		rc = EXIT_INPUT;
		goto out;
	}
	rc = cli_check_runs_fit("predict", &sc.money, r.tta_s);
	if (rc)
		goto out;
	model_price_run(&sc, &s.params, &r, &cost);
	rc = predict_print(format, &s, &sc, &r, &cost);
out:
	cli_scen_free(&s);
	return rc;
}
