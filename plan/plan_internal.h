/* plan/plan_internal.h: what the files of plan/ share and nobody else uses (not a public header).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_PLAN_INTERNAL_H
#define SCALEPLAN_PLAN_INTERNAL_H

#include "plan/plan.h"

/* plan_judge.c */
/* Orders two numbers, unknown (NAN) and INFINITY last: -1, 0 or 1. */
int plan_num_cmp(double a, double b);
/* Options in table order: the verdicts, then fewer NVLink domains, fewer nodes, system id. */
int plan_option_cmp(const plan_question *q, const plan_option *x, const plan_option *y);
/* Whether the question's time is the MLPerf-scored time to train (--rank-by ttt). */
bool plan_ttt_goal(const plan_question *q);
/* "capex", "owner's cost per run", "rent for the run". */
const char *plan_cost_words(plan_cost c);
/* Same-hardware pairs: two options of one GPU, GPUs per node, node count, NVLink domain, links between a node's
 * GPUs and to its host, network per node (several nodes), precision and stack are the same purchase from two vendors. Their time ratio's 90% interval
 * is this factor either side: the spread of MLPerf Training v4.0 ResNet-50 results of such pairs
 * (refdata/mlperf_v4_0_phases.csv: 73 pairs of systems of one accelerator and node count from different
 * submitters, medians of each system's runs; split-conformal 90% quantile of |ln(tta_a / tta_b)| = 0.0378,
 * the largest 0.046; docs/decision.md). Organisations' start-up spread stays in each option's own interval. */
#define PLAN_SAME_HW_X 1.0385
/* model_ratio of quantity qty, with a same-hardware pair's interval PLAN_SAME_HW_X either side of the point: the one
 * ratio compare's CSV, the answer and the decision use. */
void plan_ratio(const model_scenario *a, const model_result *ra, const model_scenario *b, const model_result *rb,
		model_quantity qty, double *x, double *lo, double *hi);

/* ---- Used only inside plan/ (and its tests) ---- */
/* Checks the user's --measured points on sc's GPU and precision (plan_measured.c): each img/s at most what
 * the GPUs' peak can compute (img/s x training FLOPs per image <= peak FLOP/s x GPUs), and no two points of
 * the same GPU count and batch more than 10% apart. 0, or ERR_INPUT naming the --measured value(s) and the
 * limit. plan_resolve runs it before calibrating. */
int plan_check_measured(const model_scenario *sc, const model_measured *m, int n);
/* The reference rental's id where the buyer gave a quote (--rent-rate): what buy vs rent weighs, in its words. */
#define PLAN_QUOTE_ID "the --rent-rate quote"
/* Whether money, not time, orders the options: --rank-by cost, or a deadline without a budget (the
 * cheapest that meets it). */
bool plan_cost_first(const plan_question *q);
/* The verdicts a decision can pick from, of n that qualify (v sorted by time, fastest first): the fastest and
 * each option cheaper than every faster one by q->cost or by the cost per run (a superset of plan_decide's
 * time-cost front: the pick, the cheapest and the best value are on it, so deciding on these alone gives the same
 * pick). keep[i] set for each; returns how many. O(n). */
int plan_front(const plan_verdict *const *v, int n, bool *keep);
/* Judges the result r of scenario sc against q into *v. A deadline: an option whose predicted time is within it
 * meets it (deadline_sure when its 90% upper bound is too, with deadline_p either way). Never fails. */
void plan_judge(const plan_question *q, const model_scenario *sc, const model_result *r, const model_cost *cost,
		plan_verdict *v);
/* Whether an option needs a price of q->cost to qualify: --cost run (the default: bought or rented, at a price),
 * tco or rent, --rank-by cost or a deadline alone (the cheapest that meets it). Under the capex view an option
 * without one stays in, ranked as the dearest. */
bool plan_needs_price(const plan_question *q);
/* Whether sys is offered by default: status current, or any with q->include_eol. */
bool plan_offered(const plan_question *q, const hw_system *sys);
/* Judges an option (after sc and r are set): v, ok and partial. */
void plan_option_judge(const plan_question *q, plan_option *w);
/* The placements of `gpus` GPUs on system sys that q asks for, as (GPUs per node, nodes) pairs into
 * gpn[max], nodes[max], most GPUs per node first: whole nodes (one partial node when gpus is below a
 * node), and with q->partial_nodes every GPUs-per-node that divides gpus. Pairs whose nodes cannot be
 * joined count in *skipped_net, a system whose node size does not divide gpus in *skipped_whole. Returns
 * how many. The one placement generator compare, report and sweep use. */
int plan_placement_shapes(const plan_spec *s, const plan_question *q, const hw_system *sys, long gpus, int *gpn,
			  int *nodes, int max, int *skipped_net, int *skipped_whole);
/* The precision a GPU really runs when asked for `want` (no bf16 before Ampere: fp16; no fast fp16 or
 * tf32: fp32), as hw_gpu_peak_flops assumes. */
model_precision plan_precision_on(const hw_gpu *gpu, model_precision want);
/* Copies a GPU's figures into a model node at the precision it runs (plan_resolve.c), as plan_resolve does. */
void plan_gpu_node(const hw_db *db, const hw_gpu *gpu, model_precision prec, const model_params *p, model_node *n);
/* Sets sc's reference rental (buy against rent: model_price ref_rent_*) for its own node count, as plan_resolve does:
 * for a scenario prepared at another node count (sweep's blocks), so that every command weighs one configuration
 * against one rental (a provider's GPU limit changes the rate with the count). sys: the scenario's system. */
void plan_ref_rent_set(const hw_db *db, const plan_spec *s, const hw_system *sys, model_scenario *sc);
/* The cost of one run of an option as its buyer pays it: owned (a capex): the owner's cost per run (tco_usd);
 * rented: the rent. NAN when neither is known. Ties are broken by it, capex last. */
double plan_run_cost_usd(const plan_option *w);
/* Whether a and b are the same hardware in that sense. */
bool plan_same_hardware(const model_scenario *a, const model_scenario *b);
plan_shape plan_shape_check(const plan_spec *s, const plan_question *q, const hw_system *sys, int gpn, int nodes);
/* Whether a is surely faster than b: the 90% interval of a's time over b's lies below 1 (b not fitting: a
 * fits). (The decision asks the same of each option against the fastest only: PLAN_RULE, plan_decide.) */
bool plan_surely_faster(const plan_question *q, const plan_option *a, const plan_option *b);
/* The 90% interval of the question's time on r: the result's own (tta_lo_s..tta_hi_s, or ttt_*) once one
 * is applied; while lo == hi the model's stated whole-run error (q->tie_band) either side. */
void plan_time_interval(const plan_question *q, const model_result *r, double *lo_s, double *hi_s);
/* The ratio of a's time over b's (the question's time: tta, or ttt for --rank-by ttt) with its 90% interval
 * (model_ratio: what the two predictions share cancels, what differs keeps its error). */
void plan_time_ratio(const plan_question *q, const plan_option *a, const plan_option *b, double *x, double *lo,
		     double *hi);
/* Whether two options that fit are a tie: neither is surely faster. */
bool plan_times_tied(const plan_question *q, const plan_option *a, const plan_option *b);
/* Orders two verdicts as a table answering q lists them: those that qualify first; then by money when
 * plan_cost_first(q), else by time; then by the other; -1, 0 or 1 (0: equal on all of these). */
int plan_verdict_cmp(const plan_question *q, const plan_verdict *a, const plan_verdict *b);
/* How a GPU is known (model_basis): measured when the user gave --measured (nmeasured > 0) or the data the
 * tool was built with holds results of this GPU (model_gpu_measured: refdata's throughput, MLPerf v4.0 and
 * test-bed rows); transfer when another GPU of its architecture (gpus.csv arch) has results; else estimate
 * (Blackwell today). The one place the basis is decided; plan_resolve stores it in the scenario. */
model_basis plan_basis(const hw_db *db, const hw_gpu *gpu, int nmeasured);
/* Sets sc->batch_per_gpu to the automatic batch (plan_resolve's rule) for its nodes; returns it, 0 when
 * none of 256..8 fits. */
int plan_auto_batch(model_scenario *sc, const model_params *p);
/* The probability that a time of point t_s and 90% interval lo_s..hi_s is within deadline_s: log-normal on the
 * side of the interval the deadline lies on (its 5% or 95% bound 1.645 sigma from the point). 1 or 0 where
 * that side has no width. */
double plan_deadline_p(double t_s, double lo_s, double hi_s, double deadline_s);
/* Whether sys is among the systems compare, report, sweep and `make plan` offer without --systems: a product
 * one can buy (it has a purchase price) or rent (a cloud provider offers it), not a lab's test bed, and of today
 * unless q->include_eol (plan_offered). The one rule of the default candidates. */
bool plan_default_system(const plan_question *q, const hw_system *sys);

#endif
