/* cli/scenario.c: the options predict, compare, sweep and sim share, and the step from a hwdb system
 * plus user overrides to a prepared model scenario: parsing and messages only; the step itself is
 * plan_resolve (plan/plan.h).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/common.h"
#include "plan/plan.h"

void cli_scen_init(cli_scen *s, const char *cmd)
{
	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	plan_spec_init(&s->spec); /* the library's defaults: 1 node, bf16, ImageNet-1k, 75.9% top-1, money */
	model_params_default(&s->params);
}

void cli_scen_free(cli_scen *s)
{
	if (s && s->loaded)
		hw_db_free(&s->db);
	if (s)
		s->loaded = false;
}

static int bad(const cli_scen *s, const char *opt, const char *arg, const char *want)
{
	fprintf(stderr, "scaleplan %s: --%s '%s': expected %s\n", s->cmd, opt, arg, want);
	return -1;
}

/* The options whose values need more than a range (CLI_OPT_CALL): each stores into the cli_scen ctx or
 * prints why not and returns -1. */
static int opt_batch(void *ctx, const cli_opt *o, const char *arg)
{
	cli_scen *s = ctx;
	long v;
	if (strcmp(arg, "auto") == 0) {
		s->spec.batch_per_gpu = 0;
		return 0;
	}
	if (cli_parse_long(arg, 1, 65536, &v))
		return bad(s, o->name, arg, "an integer 1..65536 or auto");
	s->spec.batch_per_gpu = (int)v;
	return 0;
}

static int opt_precision(void *ctx, const cli_opt *o, const char *arg)
{
	cli_scen *s = ctx;
	int p = model_precision_parse(arg);
	if (p < 0)
		return bad(s, o->name, arg, "fp32, tf32, fp16 or bf16");
	s->spec.precision = (model_precision)p;
	return 0;
}

static int opt_data(void *ctx, const cli_opt *o, const char *arg)
{
	cli_scen *s = ctx;
	int p = model_data_parse(arg);
	if (p < 0)
		return bad(s, o->name, arg, "cpu, gpu (DALI) or synthetic");
	s->spec.data = p;
	return 0;
}

static int opt_target(void *ctx, const cli_opt *o, const char *arg)
{
	cli_scen *s = ctx;
	double d;
	/* 1 < A < 10 is refused: 1.5 is more likely a slip than a 1.5% target (ImageNet chance is 0.1%) */
	if (cli_parse_double(arg, 0.0, 100.0, &d) || d <= 0 || (d > 1.0 && d < 10.0))
		return bad(s, o->name, arg, "a top-1 accuracy as a fraction in (0, 1] or a percentage in 10..100");
	s->spec.target_top1 = d > 1.0 ? d / 100.0 : d;
	return 0;
}

static int opt_measured(void *ctx, const cli_opt *o, const char *arg)
{
	cli_scen *s = ctx;
	long g, b;
	double img;
	char buf[128], *c1, *c2;
	if (s->spec.nmeasured >= MODEL_MAX_MEASURED)
		return bad(s, o->name, arg, "at most 16 measurements");
	snprintf(buf, sizeof(buf), "%s", arg);
	c1 = strchr(buf, ':');
	c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (!c1 || !c2)
		return bad(s, o->name, arg, "GPUS:BATCH_PER_GPU:IMG_S, e.g. 8:400:54948");
	*c1 = *c2 = '\0';
	if (cli_parse_long(buf, 1, 1000000, &g) || cli_parse_long(c1 + 1, 1, 65536, &b) ||
	    cli_parse_double(c2 + 1, 1e-3, 1e9, &img))
		return bad(s, o->name, arg, "GPUS:BATCH_PER_GPU:IMG_S with GPUs >= 1, batch >= 1, img/s > 0 (e.g. 8:400:54948)");
	s->spec.measured[s->spec.nmeasured++] = (model_measured){(int)g, (int)b, img};
	return 0;
}

static int opt_measured_epochs(void *ctx, const cli_opt *o, const char *arg)
{
	cli_scen *s = ctx;
	char buf[128], *c1;
	long gb;
	double d;
	snprintf(buf, sizeof(buf), "%s", arg);
	c1 = strchr(buf, ':');
	if (!c1)
		return bad(s, o->name, arg, "GLOBAL_BATCH:EPOCHS, e.g. 3264:41.5");
	*c1 = '\0';
	if (cli_parse_long(buf, 1, 100000000, &gb) || cli_parse_double(c1 + 1, 0.1, 10000, &d))
		return bad(s, o->name, arg, "GLOBAL_BATCH:EPOCHS with a batch >= 1 and 0.1..10000 epochs");
	s->spec.epochs_anchor_batch = (double)gb;
	s->spec.anchor_epochs = d;
	return 0;
}

static int opt_rent_term(void *ctx, const cli_opt *o, const char *arg)
{
	cli_scen *s = ctx;
	if (strcmp(arg, "spot") == 0)
		s->spec.rent_term_years = PLAN_RENT_SPOT;
	else if (strcmp(arg, "ondemand") == 0 || strcmp(arg, "on-demand") == 0)
		s->spec.rent_term_years = 0;
	else if (strcmp(arg, "1y") == 0)
		s->spec.rent_term_years = 1;
	else if (strcmp(arg, "3y") == 0)
		s->spec.rent_term_years = 3;
	else
		return bad(s, o->name, arg, "ondemand, 1y, 3y or spot");
	return 0;
}

/* A money option whose field is in other units than typed (model_money_input scale: hours into seconds). */
static int opt_money_scaled(void *ctx, const cli_opt *o, const char *arg)
{
	cli_scen *s = ctx;
	const model_money_input *in = model_money_input_find(o->name);
	char *end;
	double v = strtod(arg, &end);
	if (!in || end == arg || *end || !(in->open_lo ? v > in->lo : v >= in->lo) || !(in->open_hi ? v < in->hi : v <= in->hi))
		return bad(s, o->name, arg, in ? in->want : "a number");
	*(double *)((char *)&s->spec.money + in->off) = v * in->scale;
	return 0;
}

/* --help's lines of a money input appended to b: "  --flag META" then what it is, its default and source,
 * wrapped at 110 columns under column 25. */
static void money_help(const model_money_input *in, strbuf *b)
{
	strbuf text;
	strbuf_init(&text);
	bool unit = *in->unit && strncmp(in->unit, "fraction", 8) != 0; /* a fraction's unit is in its label */
	strbuf_addf(&text, "%s (default %g%s%s: %s)", in->label, in->def / in->scale, unit ? " " : "",
		    unit ? in->unit : "", in->source);
	size_t start = b->len_B;
	strbuf_addf(b, "  --%s %s", in->flag, in->meta);
	size_t head = b->len_B - start, col = head < 24 ? 24 : head;
	strbuf_addf(b, "%*s ", (int)(col - head), "");
	col++;
	if (head > 24) {
		strbuf_addf(b, "\n%25s", "");
		col = 25;
	}
	for (const char *w = text.s; *w;) {
		size_t n = strcspn(w, " ");
		if (col + n > 110 && col > 25) {
			if (b->s[b->len_B - 1] == ' ') /* no space at a line's end */
				b->s[--b->len_B] = '\0';
			strbuf_addf(b, "\n%25s", "");
			col = 25;
		}
		strbuf_addf(b, "%.*s%s", (int)n, w, w[n] ? " " : "");
		col += n + 1;
		w += n + (w[n] ? 1 : 0);
	}
	strbuf_addf(b, "\n");
	strbuf_free(&text);
}

/* The --help text of the money input of index i, built once: it depends only on the constant
 * model_money_inputs, so it lives as long as the process, as that table does, and no cli_scen has to own
 * and free it on a command's early-return paths. Grown as written: no text is cut. */
static const char *money_help_text(const model_money_input *in, int i)
{
	static strbuf text[CLI_SCEN_MONEY_MAX];
	if (!text[i].s) {
		strbuf_init(&text[i]);
		money_help(in, &text[i]);
	}
	return text[i].s;
}

/* The money options from model_money_inputs into t (the alias --utilization after --utilisation); the count. */
static int money_opts(cli_scen *s, cli_opt *t)
{
	int n, k = 0, h = 0;
	const model_money_input *in = model_money_inputs(&n);
	for (int i = 0; i < n; i++) {
		if (!in[i].flag || h >= CLI_SCEN_MONEY_MAX)
			continue;
		double *dest = (double *)((char *)&s->spec.money + in[i].off);
		const char *help = money_help_text(&in[i], h);
		if (in[i].scale == 1)
			t[k++] = (cli_opt){.kind = CLI_OPT_DOUBLE, .name = in[i].flag, .dest = dest, .lo = in[i].lo,
					   .hi = in[i].hi, .open_lo = in[i].open_lo, .open_hi = in[i].open_hi,
					   .want = in[i].want, .help = help};
		else
			t[k++] = (cli_opt){.kind = CLI_OPT_CALL, .name = in[i].flag, .fn = opt_money_scaled, .ctx = s,
					   .help = help};
		h++;
		if (strcmp(in[i].flag, "utilisation") == 0)
			t[k++] = (cli_opt){.kind = CLI_OPT_DOUBLE, .name = "utilization", .alias_of = "utilisation",
					   .dest = dest, .lo = in[i].lo, .hi = in[i].hi, .open_lo = in[i].open_lo,
					   .want = in[i].want};
	}
	return k;
}

/* --columns LIST, or `help`: the command's CSV columns listed (s->columns_help), and nothing more done. */
static int opt_columns(void *ctx, const cli_opt *o, const char *arg)
{
	cli_scen *s = ctx;
	(void)o;
	if (strcmp(arg, "help") != 0) {
		s->columns = arg;
		return 0;
	}
	if (!s->columns_help) {
		fprintf(stderr, "scaleplan %s: --columns help: this command writes no CSV\n", s->cmd);
		return -1;
	}
	s->columns_help(stdout);
	return 1;
}

static void columns_print(FILE *out, plan_row_set set, const char *what)
{
	strbuf b;
	strbuf_init(&b);
	plan_row_columns_text(set, &b);
	fprintf(out, "%s, in order (name, then its unit or meaning):\n%s", what, b.s);
	strbuf_free(&b);
}

void cli_columns_predict(FILE *out)
{
	columns_print(out, PLAN_ROW_PREDICT, "predict's CSV columns");
}

void cli_columns_judged(FILE *out)
{
	columns_print(out, PLAN_ROW_JUDGED, "The CSV columns of compare, sweep and report's placements.csv");
}

static int opt_param(void *ctx, const cli_opt *o, const char *arg)
{
	cli_scen *s = ctx;
	if (s->nparams_set >= CLI_SCEN_MAX_LIST)
		return bad(s, o->name, arg, "at most 64 --param options");
	/* checked now so the message comes before any work */
	if (model_params_parse(&s->params, arg)) {
		fprintf(stderr, "scaleplan %s: %s\n", s->cmd, err_msg());
		return -1;
	}
	s->params_set[s->nparams_set++] = arg;
	return 0;
}

/* The hardware and run options of s, in --help's order, into t; returns the count. */
static int scen_table_run(cli_scen *s, cli_opt *t)
{
	plan_spec *p = &s->spec;
	const cli_opt run[] = {
		CLI_O_TEXT("hardware (a system, or components; every component flag overrides the system's):\n"),
		CLI_O_STR("system", &p->system_id, "  --system ID            node type from the database (`scaleplan hw list systems`)\n"),
		CLI_O_STR("gpu", &p->gpu_id, "  --gpu ID               GPU model (`hw list gpus`)\n"),
		CLI_O_INT("gpus-per-node", &p->gpus_per_node, 1, 1024, "an integer 1..1024",
			  "  --gpus-per-node G      GPUs used per node (default: all of the system's)\n"),
		CLI_O_STR("intra", &p->intra_id, "  --intra LINK           link between GPUs in a node (nvlink2, nvswitch3, pcie3-x16, ...)\n"),
		CLI_O_STR("host-link", &p->host_link_id, "  --host-link LINK       CPU-GPU link; --host-links N  how many the node's GPUs share\n"),
		CLI_O_INT("host-links", &p->host_links, 1, 1024, "an integer 1..1024", NULL),
		CLI_O_STR("cpu", &p->cpu_id, "  --cpu ID --cpus-per-node N   host CPUs (decode threads = cores - reserved x GPUs)\n"),
		CLI_O_INT("cpus-per-node", &p->cpus_per_node, 1, 64, "an integer 1..64", NULL),
		CLI_O_STR("fabric", &p->fabric_id, "  --fabric ID --nics-per-node K   network between nodes (`hw list fabrics`)\n"),
		CLI_O_INT("nics-per-node", &p->nics_per_node, 1, 1024, "an integer 1..1024", NULL),
		CLI_O_STR("storage", &p->storage_id, "  --storage ID           storage holding the data set (default: the system's; `hw list storage`)\n"),
		CLI_O_STR("stack", &p->stack_id, "  --stack ID             software stack: data path, staging, gradient bytes, buckets, overlap\n"
						 "                         (default: the system's, e.g. ngc-mlperf, tf1-hvd; `hw list stacks`)\n"),
		CLI_O_TEXT("run:\n"),
		CLI_O_INT("nodes", &p->nodes, 1, 100000, "an integer 1..100000", "  --nodes N              nodes (default 1)\n"),
		/* plan_auto_batch: the batch of least time to accuracy, not the largest that fits */
		CLI_O_CALL("batch-per-gpu", opt_batch, s, "  --batch-per-gpu B      images per GPU per step (default auto: of 256, 128 ... 8 that fit,\n"
							  "                         the one of least time to accuracy; inside the measured convergence range first)\n"),
		CLI_O_INT("global-batch", &p->global_batch, 1, 100000000, "an integer 1..100000000",
			  "  --global-batch GB      alternatively the global batch (a multiple of the GPU count)\n"),
		CLI_O_CALL("precision", opt_precision, s, "  --precision P          fp32 | tf32 | fp16 | bf16 (default bf16; falls back to what the GPU has)\n"),
		CLI_O_CALL("data", opt_data, s, "  --data D               cpu (JPEG decode on CPU cores) | gpu (DALI) | synthetic (default: the stack's)\n"),
		CLI_O_DBL("epochs", &p->epochs, 0.01, 10000, "a number of epochs in 0.01..10000",
			  "  --epochs E             epochs to train (default: MLPerf convergence curve of the global batch)\n"),
		CLI_O_DBL("images", &p->images, 1, 1e12, "a number of images 1..1e12",
			  "  --images N             training images per epoch (default "
			  MODEL_STR(MODEL_IMAGENET_TRAIN_IMAGES) ", ImageNet-1k)\n"),
		CLI_O_CALL("target-top1", opt_target, s, "  --target-top1 A        quality target (default " MODEL_STR(MODEL_MLPERF_TARGET_TOP1) ", the curve's; others need --epochs)\n"),
		CLI_O_CALL("measured-epochs", opt_measured_epochs, s,
			   "  --measured-epochs B:E  your recipe needed E epochs at global batch B: the convergence curve is\n"
			   "                         scaled through that point for every batch (a fixed --epochs does not move)\n"),
	};
	memcpy(t, run, sizeof run);
	return (int)(sizeof run / sizeof run[0]);
}

/* The calibration and money options of s, in --help's order, into t, then the end; returns the count. */
static int scen_table_money(cli_scen *s, cli_opt *t)
{
	const cli_opt money[] = {
		CLI_O_TEXT("calibration and model parameters:\n"),
		CLI_O_CALLS("measured", opt_measured, s, "  --measured G:B:IMG_S   measured img/s on G GPUs at B images per GPU (repeatable)\n"),
		CLI_O_STR("measured-stack", &s->spec.measured_stack_id,
			  "  --measured-stack ID    the stack the measured runs ran (default: --stack, else the system's):\n"
			  "                         another stack moves from them by the model's ratio of the two stacks' speeds\n"),
		CLI_O_STR("measured-system", &s->spec.measured_system_id,
			  "  --measured-system ID   the system the measured runs ran on (default: the one predicted or compared):\n"
			  "                         its GPU is calibrated there, and an option on another GPU moves from it by\n"
			  "                         the model's ratio between the GPUs (that option keeps its own basis)\n"),
		CLI_O_CALLS("param", opt_param, s, "  --param NAME=VALUE     set a model parameter (repeatable; list: `scaleplan predict --params`)\n"),
		CLI_O_STR("profile", &s->profile, "  --profile FILE         model parameters from a CSV with columns param,value (calibrate's output)\n"),
		CLI_O_STR("hwdb", &s->hwdb_dir, "  --hwdb DIR             overlay the CSV tables in DIR on the built-in hardware database\n"),
		CLI_O_CALL("columns", opt_columns, s,
			   "  --columns LIST         the columns of a table of rows, a CSV or predict's JSON, by their CSV names, in order\n"
			   "                         (e.g. system,nodes,tta_s,capex_usd; 'all': compare's table in full; default:\n"
			   "                         every CSV column, and a compare table within 200 characters a line; 'help':\n"
			   "                         the CSV's columns with their units)\n"),
		CLI_O_TEXT("money (capex by part, energy_usd, rent_usd, tco_usd and their ranges in every output; docs/prices.md):\n"),
		CLI_O_CALL("rent-term", opt_rent_term, s, "  --rent-term T          ondemand (default) | 1y | 3y | spot: which rental rate; buy vs\n"
							  "                         rent weighs a term against the same term\n"),
		CLI_O_DBL("rent-rate", &s->spec.rent_quote_usd_gpu_h, 0.01, 1000, "US dollars per GPU-hour, 0.01..1000 (e.g. 2.1)",
			  "  --rent-rate USD        a rental quote in hand, per GPU-hour at --rent-term: what buy vs rent weighs\n"
			  "                         (default: the cheapest rate of the GPU in the database, the market's included)\n"),
		CLI_O_END,
	};
	int n = (int)(sizeof money / sizeof money[0]);
	/* the fixed entries up to the money heading, the table's options, then --rent-term, --rent-rate and the end */
	memcpy(t, money, (size_t)(n - 3) * sizeof *t);
	int k = n - 3 + money_opts(s, t + n - 3);
	memcpy(t + k, money + n - 3, 3 * sizeof *t);
	return k + 3;
}

int cli_scen_opts(cli_scen *s, cli_opt *t)
{
	int n = scen_table_run(s, t);
	return n + scen_table_money(s, t + n) - 1;
}

void cli_scen_help_except(FILE *out, const char *omit)
{
	cli_scen tmp;
	cli_opt t[CLI_SCEN_NOPTS];
	cli_scen_init(&tmp, "");
	cli_scen_opts(&tmp, t);
	cli_opt_help(out, t, omit);
}

void cli_scen_help(FILE *out)
{
	cli_scen_help_except(out, NULL);
}

int cli_scen_load(cli_scen *s)
{
	int rc;

	if ((rc = cli_check_not_both(s->cmd, "--global-batch", s->spec.global_batch, "--batch-per-gpu",
				     s->spec.batch_per_gpu)))
		return rc;
	if (!s->loaded) {
		rc = cli_load_db(&s->db, s->cmd, s->hwdb_dir);
		if (rc)
			return rc;
		s->loaded = true;
	}
	model_params_default(&s->params);
	if (s->profile && model_params_load(&s->params, s->profile)) {
		fprintf(stderr, "scaleplan %s: --profile: %s\n", s->cmd, err_msg());
		return EXIT_INPUT;
	}
	for (int i = 0; i < s->nparams_set; i++)
		if (model_params_parse(&s->params, s->params_set[i])) {
			fprintf(stderr, "scaleplan %s: %s\n", s->cmd, err_msg());
			return EXIT_INPUT;
		}
	{
		hw_kind kind;
		const char *id;
		if (plan_check_ids(&s->db, &s->spec, &kind, &id))
			return cli_unknown_id(&s->db, s->cmd, kind, id);
	}
	if (model_money_check(&s->spec.money)) {
		fprintf(stderr, "scaleplan %s: %s\n", s->cmd, err_msg());
		return EXIT_INPUT;
	}
	s->system = s->spec.system_id ? hw_system_find(&s->db, s->spec.system_id) : NULL;
	if (s->spec.epochs_anchor_batch > s->spec.images) {
		/* as a configuration's global batch: an epoch's images are the most one step can hold */
		fprintf(stderr, "scaleplan %s: --measured-epochs %.0f:%g: a global batch of %.0f is more than the %.0f "
				"images of an epoch; expected GLOBAL_BATCH:EPOCHS with the batch your recipe trained at\n",
			s->cmd, s->spec.epochs_anchor_batch, s->spec.anchor_epochs, s->spec.epochs_anchor_batch,
			s->spec.images);
		return EXIT_INPUT;
	}
	if (fabs(s->spec.target_top1 - MODEL_MLPERF_TARGET_TOP1) > 1e-9 && !(s->spec.epochs > 0)) {
		fprintf(stderr,
			"scaleplan %s: --target-top1 %g: the convergence curve is for 75.9%% top-1 (MLPerf); give "
			"--epochs for another target\n",
			s->cmd, s->spec.target_top1);
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

int cli_scen_resolve(cli_scen *s, const hw_system *sys, int gpn, int nodes, model_scenario *sc)
{
	if (plan_resolve(&s->db, &s->spec, &s->params, sys, gpn, nodes, sc)) {
		fprintf(stderr, "scaleplan %s: %s\n", s->cmd, err_msg());
		return EXIT_INPUT;
	}
	return cli_check_gpus(s->cmd, sc->nodes, sc->node.gpus_per_node);
}

int cli_parse_int_list(const char *cmd, const char *what, const char *arg, int *out, int max, int *n)
{
	char buf[1024], *save = NULL, *tok;

	*n = 0;
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long a, b, step = 1;
		char *dash = strchr(tok + 1, '-'), *colon = strchr(tok, ':');
		if (colon) {
			*colon = '\0';
			if (cli_parse_long(colon + 1, 1, INT_MAX, &step))
				goto bad;
		}
		if (dash) {
			*dash = '\0';
			if (cli_parse_long(tok, 1, INT_MAX, &a) || cli_parse_long(dash + 1, 1, INT_MAX, &b) || b < a)
				goto bad;
		} else {
			if (cli_parse_long(tok, 1, INT_MAX, &a))
				goto bad;
			b = a;
		}
		for (long v = a; v <= b; v += step) {
			if (*n >= max) {
				fprintf(stderr, "scaleplan %s: %s '%s': more than %d values\n", cmd, what, arg, max);
				return EXIT_INPUT;
			}
			/* a value twice would be answered twice (the same rows written again): refused, as a
			 * system named twice is */
			for (int k = 0; k < *n; k++)
				if (out[k] == v) {
					fprintf(stderr, "scaleplan %s: %s '%s': %ld given twice; give each value once\n", cmd,
						what, arg, v);
					return EXIT_INPUT;
				}
			out[(*n)++] = (int)v;
		}
	}
	if (*n == 0)
		goto bad;
	return EXIT_OK;
bad:
	fprintf(stderr, "scaleplan %s: %s '%s': expected positive integers as a,b,c or a-b or a-b:step\n", cmd, what,
		arg);
	return EXIT_INPUT;
}

void cli_params_print(FILE *out, const model_params *p)
{
	fprintf(out, "%-24s %12s %12s %-9s %s\n", "param", "value", "default", "unit", "source");
	for (int i = 0; i < model_params_count(); i++) {
		const model_param_info *in = model_params_info(i);
		double v = 0;
		model_params_get(p, in->name, &v);
		fprintf(out, "%-24s %12.6g %12.6g %-9s %s\n", in->name, v, in->def, in->unit, in->source);
	}
}
