/* plan: from the hardware database and a user's description of a run to what the model predicts and
 * what a buyer is told.
 *
 * - plan_spec: what the user described (a system and/or component overrides, the run, the money);
 * - plan_resolve: the spec on one system, GPUs per node and node count turned into a prepared model
 *   scenario (model/model.h): database figures copied into model_node, the precision the GPU really
 *   runs, the stack, storage sizing, prices, the automatic batch;
 * - plan_placements / plan_decide (plan_decide.c): the ways to place N GPUs on candidate systems (whole
 *   servers by default) and the one decision compare, report and sweep all print.
 *
 * The module prints nothing: failures return ERR_INPUT with the reason in err_msg() (common/common.h).
 * It sits between cli/ (above) and hwdb/ + model/ (below); validate, sim and the bench programs use it
 * as the cli does.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_PLAN_H
#define SCALEPLAN_PLAN_H

#include <stdbool.h>

#include "hwdb/hw.h"
#include "model/model.h"

/* A run as the user described it. Ids are NULL when not given; counts 0 when not given. */
typedef struct plan_spec {
	const char *system_id, *gpu_id, *intra_id, *host_link_id, *cpu_id, *fabric_id, *storage_id, *stack_id;
	int gpus_per_node;         /* 0 = the system's */
	int host_links, cpus_per_node, nics_per_node; /* 0 = the system's */
	int nodes;                 /* default 1 */
	int batch_per_gpu;         /* 0 = automatic */
	int global_batch;          /* 0 = not given */
	model_precision precision;
	int data;                  /* model_data, or -1: the stack's data path */
	double epochs, images, target_top1;
	double epochs_anchor_batch, anchor_epochs; /* --measured-epochs B:E: the recipe needed E epochs at global
						    * batch B; the curve is scaled through it (0 = none) */
	model_measured measured[MODEL_MAX_MEASURED];
	int nmeasured;
	model_money money;         /* electricity price, amortisation, runs per month */
	int rent_term_years;       /* rental rate: 0 on demand (default), 1 or 3 the committed rate */
} plan_spec;

/* Defaults: 1 node, bf16, the stack's data path, ImageNet-1k, 75.9% top-1, model_money_default, on-demand rent. */
void plan_spec_init(plan_spec *s);

/* Checks every id of the spec against db. 0, or ERR_INPUT with *kind and *id set to the first unknown one
 * (the caller prints suggestions: hw_suggest). */
int plan_check_ids(const hw_db *db, const plan_spec *s, hw_kind *kind, const char **id);

/* The stack a run uses: the spec's --stack, else sys's default (sys NULL: the spec's system), else NULL. */
const hw_stack *plan_stack(const hw_db *db, const plan_spec *s, const hw_system *sys);

/* The precision a GPU really runs when asked for `want` (no bf16 before Ampere: fp16; no fast fp16 or
 * tf32: fp32), as hw_gpu_peak_flops assumes. */
model_precision plan_precision_on(const hw_gpu *gpu, model_precision want);

/* How a GPU is known (model_basis): measured when the user gave --measured (nmeasured > 0) or the data the
 * tool was built with holds results of this GPU (model_gpu_measured: refdata's throughput, MLPerf v4.0 and
 * test-bed rows); transfer when another GPU of its architecture (gpus.csv arch) has results; else estimate
 * (Blackwell today). The one place the basis is decided; plan_resolve stores it in the scenario. */
model_basis plan_basis(const hw_db *db, const hw_gpu *gpu, int nmeasured);

/* Checks the user's --measured points on sc's GPU and precision (plan_measured.c): each img/s at most what
 * the GPUs' peak can compute (img/s x training FLOPs per image <= peak FLOP/s x GPUs), and no two points of
 * the same GPU count and batch more than 10% apart. 0, or ERR_INPUT naming the --measured value(s) and the
 * limit. plan_resolve runs it before calibrating. */
int plan_check_measured(const model_scenario *sc, const model_measured *m, int n);

/* Builds a prepared (and, with measurements, calibrated) scenario for system sys (NULL = the spec's
 * system, or components only) with gpn GPUs per node (0 = the spec's, else the system's) on `nodes` nodes
 * (0 = the spec's). The batch: --global-batch, else --batch-per-gpu, else automatic (of 256..8 that fit, the
 * least time to accuracy inside the measured convergence range). A global batch above an epoch is refused.
 * 0 or ERR_INPUT. */
int plan_resolve(const hw_db *db, const plan_spec *s, const model_params *p, const hw_system *sys, int gpn,
		 int nodes, model_scenario *sc);

/* Sets sc->batch_per_gpu to the automatic batch (plan_resolve's rule) for its nodes; returns it, 0 when
 * none of 256..8 fits. */
int plan_auto_batch(model_scenario *sc, const model_params *p);

/* ---- Placements and the decision (plan_decide.c) ---- */

/* One placement of the GPUs on a system, predicted, with its rank key. */
typedef struct plan_option {
	model_scenario sc;
	model_result r;
	double key, tie;   /* plan_rank_key: smaller first; INFINITY = no value (does not fit, no price) */
	bool partial;      /* uses fewer GPUs than the nodes it occupies have (--partial-nodes) */
	bool ok;           /* meets the question's budget and deadline */
} plan_option;

typedef enum plan_goal { PLAN_TTA, PLAN_TTT, PLAN_COST, PLAN_GRID } plan_goal;
typedef enum plan_cost { PLAN_CAPEX, PLAN_TCO, PLAN_RENT } plan_cost;

/* What the buyer asks. Defaults (plan_question_init): fastest to accuracy, capex, no budget, no
 * deadline, a tie band of 5% (the model's error on whole runs: validate's whole-run group). */
typedef struct plan_question {
	plan_goal goal;        /* rank by tta_s, ttt_s or cost (grid: sweep's unsorted order) */
	plan_cost cost;        /* which cost: capex, the owner's cost per run (tco) or rent */
	double budget_usd;     /* NAN = none: the fastest whose cost is within it */
	double deadline_s;     /* NAN = none: the cheapest that reaches accuracy within it */
	double tie_band;       /* relative difference called a tie */
	bool partial_nodes;    /* offer placements that leave GPUs of a node idle */
	bool extrapolate;      /* let configurations beyond the measured convergence range qualify */
} plan_question;

void plan_question_init(plan_question *q);
/* The cost of a result under q->cost (NAN when the system has no such price). */
double plan_cost_usd(plan_cost c, const model_result *r);
const char *plan_cost_name(plan_cost c);          /* "capex", "tco", "rent" */
int plan_cost_parse(const char *s);               /* -1 when unknown */
const char *plan_goal_name(const plan_question *q); /* "time to accuracy", "rent", ... for headers */
/* The rank key of a result under q (smaller first) and its tie-breaker. A deadline makes cost the key,
 * a budget time; cost keys are INFINITY without a price (listed last). */
void plan_rank_key(const plan_question *q, const model_result *r, double *key, double *tie);
/* Orders two (key, tie) pairs: -1, 0 or 1. */
int plan_key_cmp(double key_a, double tie_a, double key_b, double tie_b);
/* Orders options by key, tie, then fewer nodes, then system id (qsort). */
void plan_options_sort(plan_option *o, int n);

/* Appends every placement of `gpus` GPUs on each candidate system to *o (grown; *cap its capacity),
 * predicted and keyed: whole nodes (nodes x the system's GPUs per node; one partial node only when gpus
 * is below a node), and with q->partial_nodes every GPUs-per-node that divides gpus. Multi-node
 * placements of systems without a network count in *skipped_net; systems whose node size does not divide
 * gpus in *skipped_whole. 0 or ERR_INPUT (err_msg names the system). */
int plan_placements(const hw_db *db, const plan_spec *s, const model_params *p, const plan_question *q,
		    const hw_system *const *cand, int ncand, long gpus, plan_option **o, int *n, int *cap,
		    int *skipped_net, int *skipped_whole);

/* The answer to q among options (sorted or not): one function for compare, report and sweep. */
typedef struct plan_answer {
	const plan_option *winner, *runner_up; /* NULL when none qualifies */
	double margin;        /* runner-up's objective over the winner's, - 1 (time or cost) */
	bool tie;             /* the best two within q->tie_band */
	const char *broken_by;/* with a tie: "fewer nodes", "lower cost", "less time"; else NULL */
	const plan_option *best_up, *best_out; /* fastest in one NVLink domain / over several (NULL: none) */
	int nqualified;       /* options that fit, have the needed price and meet budget and deadline */
	int nextrapolated;    /* options beyond the measured convergence range (not qualified unless asked) */
	double conv_max_batch;/* that range's largest global batch */
} plan_answer;
void plan_decide(const plan_question *q, plan_option *o, int n, plan_answer *a);
/* The answer as sentences (winner, runner-up, margin, tie, scale up or out) into buf. Returns buf. */
char *plan_answer_text(const plan_question *q, const plan_answer *a, long gpus, char *buf, size_t len_B);

/* "$1,234,567" ("-" for NAN) and "2 h 05 min", "13.6 min", "42.0 s" ("-" for NAN) into buf. Return buf. */
char *plan_fmt_usd(double usd, char *buf, size_t len_B);
char *plan_fmt_duration(double s, char *buf, size_t len_B);
/* "2.5h", "90min", "45 s", "1.5d" or plain seconds -> seconds. 0 or ERR_INPUT. */
int plan_parse_duration(const char *s, double *out_s);

#endif
