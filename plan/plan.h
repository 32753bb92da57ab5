/* plan: from the hardware database and a user's description of a run to what the model predicts and
 * what a buyer is told.
 *
 * - plan_spec: what the user described (a system and/or component overrides, the run, the money);
 * - plan_resolve: the spec on one system, GPUs per node and node count turned into a prepared model
 *   scenario (model/model.h): database figures copied into model_node and model_price, the precision the
 *   GPU really runs, the stack, storage sizing, prices, the automatic batch;
 * - plan_placements (plan_place.c): the ways to place N GPUs on candidate systems (whole servers by default);
 * - plan_judge (plan_judge.c): one option against the question (time, interval, cost, constraints, table order,
 *   the ratio of two times), and the front a decision picks from;
 * - plan_decide (plan_decide.c): the one decision (PLAN_RULE) compare, report, sweep and the page render;
 * - plan_answer_write (plan_text.c): that decision in words; plan_answer_json (plan_json.c) the same as JSON;
 *   plan_table.c: the options ranked as a text table; plan_row.c: a prediction or a judged option as a CSV row;
 *   plan_fmt.c: figures as a buyer reads them.
 * Files call one way: plan_json -> plan_text -> plan_decide -> plan_judge -> plan_fmt; plan_table -> plan_judge;
 * plan_sens and plan_sweep -> plan_decide.
 *
 * The module prints nothing: failures return ERR_INPUT with the reason in err_msg() (common/common.h).
 * It sits between cli/ (above) and hwdb/ + model/ (below); validate, sim and the bench programs use it
 * as the cli does.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_PLAN_H
#define SCALEPLAN_PLAN_H

#include <stdbool.h>
#include <stdio.h>

#include "hwdb/hw.h"
#include "model/model.h"

struct strbuf; /* common/common.h: the text that plan's wording functions append to */

enum { PLAN_RENT_SPOT = -1 }; /* plan_spec.rent_term_years: the spot rate */

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
	const char *measured_stack_id; /* the stack the --measured runs ran (NULL: the run's own, stack_id or the
					* system's): they calibrate the GPU through that stack's speed on it, and
					* another stack moves from them only by the model's ratio between the two */
	const char *measured_system_id; /* the system the --measured runs ran on (NULL: the run's own): the GPU
					 * is calibrated there, and an option on another system takes that compute
					 * factor, moving from it by the model's ratio between the GPUs */
	model_money money;         /* electricity price, amortisation, runs per month */
	int rent_term_years;       /* rental rate: 0 on demand (default), 1 or 3 the committed rate,
				    * PLAN_RENT_SPOT the spot rate */
	const char *eff_skip_gpu;  /* a GPU id whose stack cells the stack's speed leaves out (validate's held-out
				    * model column: the point's own GPU); NULL = none */
	double rent_quote_usd_gpu_h; /* --rent-rate: a quote in hand per GPU-hour at that term, the rental buy vs rent
				      * weighs (NAN: the cheapest rate of the GPU in the database, the market's included) */
} plan_spec;

/* Defaults: 1 node, bf16, the stack's data path, ImageNet-1k, 75.9% top-1, model_money_default, on-demand rent. */
void plan_spec_init(plan_spec *s);

/* Checks every id of the spec against db. 0, or ERR_INPUT with *kind and *id set to the first unknown one
 * (the caller prints suggestions: hw_suggest). */
int plan_check_ids(const hw_db *db, const plan_spec *s, hw_kind *kind, const char **id);

/* Builds a prepared (and, with measurements, calibrated) scenario for system sys (NULL = the spec's
 * system, or components only) with gpn GPUs per node (0 = the spec's, else the system's) on `nodes` nodes
 * (0 = the spec's). The batch: --global-batch, else --batch-per-gpu, else automatic (of 256..8 that fit, the
 * least time to accuracy inside the measured convergence range). A global batch above an epoch is refused.
 * 0 or ERR_INPUT. */
int plan_resolve(const hw_db *db, const plan_spec *s, const model_params *p, const hw_system *sys, int gpn,
		 int nodes, model_scenario *sc);

/* ---- The question, judging (plan_judge.c), placements (plan_place.c) and the decision (plan_decide.c) ---- */

typedef enum plan_goal { PLAN_TTA, PLAN_TTT, PLAN_COST, PLAN_GRID } plan_goal;
/* The cost a decision compares. PLAN_RUN (the default): a run's share of the stated month of work as its buyer
 * pays it - owned, the owner's month (model_money_tco_words says what it holds) over the month's runs (tco_usd); rented, the month's rent (sessions, or the reservation) over the same runs (rent_usd,
 * as billed) - so owning and renting rank on one axis. The others are views: capex (what is bought), tco
 * (owned only), rent (rented only). */
typedef enum plan_cost { PLAN_CAPEX, PLAN_TCO, PLAN_RENT, PLAN_RUN } plan_cost;

/* What the buyer asks. Defaults (plan_question_init): fastest to accuracy, the cost per run, no budget, no
 * deadline, the model's whole-run error of 5% as the interval where a result carries none, today's
 * products only. */
typedef struct plan_question {
	plan_goal goal;        /* rank by tta_s, ttt_s or cost (grid: sweep's unsorted order) */
	plan_cost cost;        /* which cost: a run's share of the month of work (run), capex, tco or rent */
	double budget_usd;     /* NAN = none: caps the capex of bought options (rentals are outside it) */
	double deadline_s;     /* NAN = none: an option must reach accuracy within it with 90% confidence */
	double site_W;         /* NAN = none: the IT power the site gives the cluster; a bought option whose peak draw
				* (model_cost power_max_W) exceeds it fails (rentals are off site) */
	double tie_band;       /* the model's stated whole-run error (relative), the interval of a result
				* that carries none (plan_time_interval) */
	bool partial_nodes;    /* offer placements that leave GPUs of a node idle */
	bool extrapolate;      /* let configurations beyond the measured convergence range qualify */
	bool include_eol;      /* candidates include end-of-life systems (hw_system status) */
} plan_question;

void plan_question_init(plan_question *q);
/* The cost of a priced run under c (NAN when the system has no such price). */
double plan_cost_usd(plan_cost c, const model_cost *cost);
const char *plan_cost_name(plan_cost c);          /* "run", "capex", "tco", "rent" */
int plan_cost_parse(const char *s);               /* -1 when unknown */
/* Why a result has no cost of kind c (model_money.c's cases): PLAN_PRICED where it has one; no purchase price
 * (capex, and tco, the capex's share); no rental rate of the kind asked (on demand, reserved, spot); more GPUs
 * than the provider rents at its rate; no time to bill. */
typedef enum plan_unpriced { PLAN_PRICED, PLAN_NO_PRICE, PLAN_NO_RATE, PLAN_RENT_LIMIT, PLAN_NO_TIME } plan_unpriced;
plan_unpriced plan_cost_unpriced(plan_cost c, const model_scenario *sc, const model_cost *cost);
/* That reason in words, to follow a system's id ("no purchase price in the database"; "" for PLAN_PRICED), into
 * buf (pr: the rent's kind, the provider's GPU limit). Returns buf. */
const char *plan_unpriced_text(plan_unpriced k, const model_price *pr, char *buf, size_t len_B);
/* How the rows of a table answering q are ordered, for its header ("time to accuracy, then capex; options
 * that fail a constraint after those that meet them"). */
const char *plan_goal_name(const plan_question *q);
const char *plan_order_text(const plan_question *q, char *buf, size_t len_B);

/* Why an option does not qualify (bits of plan_verdict.fails). */
enum {
	PLAN_FAIL_MEMORY = 1,       /* the batch does not fit GPU memory */
	PLAN_FAIL_EXTRAPOLATED = 2, /* beyond the measured convergence range (without --extrapolate) */
	PLAN_FAIL_PRICE = 4,        /* no price of the kind the question needs (--cost) */
	PLAN_FAIL_BUDGET = 8,       /* costs more than the budget */
	PLAN_FAIL_DEADLINE = 16,    /* its predicted time is past the deadline */
	PLAN_FAIL_SITE = 32,        /* bought, its peak draw is above the site's power (--site-kw) */
};

/* An option judged against the question: its time (tta_s, or ttt_s for --rank-by ttt) with the 90%
 * interval, its cost, the constraints it fails and by how much, the GPUs bought and left idle. */
typedef struct plan_verdict {
	double time_s, time_lo_s, time_hi_s; /* INFINITY when it does not fit */
	double cost_usd;       /* under q->cost; NAN without that price */
	double run_cost_usd;   /* one run as its buyer pays it: owned (a capex) tco, rented the rent; NAN: neither */
	unsigned fails;        /* PLAN_FAIL_* bits; 0 = qualifies */
	double over_budget_usd;/* cost - budget where over it, else 0 */
	double late_s;         /* time_s - deadline where the prediction is past it, else 0 */
	double over_site_W;    /* peak draw - the site's power where a bought option exceeds it, else 0 */
	double deadline_p;     /* the probability of reaching the goal within the deadline (plan_deadline_p); NAN
				* without a deadline */
	bool deadline_sure;    /* meets the deadline with 90% confidence: time_hi_s within it */
	int idle_gpus;         /* GPUs of the whole units bought (an NVL72 rack: 72) that the placement leaves idle */
	int domains;           /* NVLink domains the placement spans */
	double flip_speed_x;   /* the pick only (plan_flip, set by the command): the speed factor below which the rule
				* picks another option; 0 or NAN = none */
	bool pick;             /* the decision's pick: set by plan_decide (sweep's rows: plan_sweep_pick); what every
				* writer marks */
} plan_verdict;

/* Appends "over budget by $88,000 and misses deadline by 2.1 min" or "meets" ("-" when q asks nothing of it) to
 * out; returns out->s. */
const char *plan_fails_text(const plan_question *q, const plan_verdict *v, struct strbuf *out);

/* One placement of the GPUs on a system, predicted and judged. */
typedef struct plan_option {
	model_scenario sc;
	model_result r;    /* its times (model_predict) */
	model_cost cost;   /* what it draws and costs (model_price_run) */
	plan_verdict v;
	bool partial;      /* uses fewer GPUs than the nodes it occupies have (--partial-nodes) */
	bool ok;           /* qualifies: v.fails == 0; where a deadline is met with 90% confidence by some option,
			    * plan_decide keeps only those (v.deadline_sure) */
	bool front;        /* set by plan_decide: qualifies and no qualifying option is at least as fast (point) and at
			    * most as costly (the cost compared; none = the dearest), one of them strictly */
	bool as_fast;      /* set by plan_decide: qualifies and the 90% interval of its time over the fastest's holds 1 */
	const char *generation; /* its GPU's generation (archs.csv generation of its gpus.csv arch: "Hopper",
				 * "Blackwell" for Blackwell and Blackwell Ultra), NULL when unknown: scale up vs out
				 * within one generation */
	const char *chip;  /* its GPU model whatever the package (gpus.csv chip: "B200" for B200-SXM-180GB and
			    * B200-GB200-186GB; the GPU id where the row gives none; set wherever options
			    * are made: plan_placements, plan_sweep): scale up vs out, buy vs rent */
} plan_option;

/* Offers of the same hardware (plan_same_hardware) with the same predicted times and failures - a DGX and the
 * clouds' instances of it - fold into the first of them in o's order: fold[i] the index it folds into, -1 for one
 * shown (keep, the pick, always is). Returns how many fold. The one rule of compare's and report's tables. */
int plan_fold(const plan_option *o, int n, const plan_option *keep, int *fold);
/* Orders options as plan_verdict_cmp, then fewer NVLink domains, fewer nodes, system id. */
void plan_options_sort(const plan_question *q, plan_option *o, int n);

/* Whether `nodes` nodes of sys with gpn GPUs each can be joined: one node, or a network (the system's
 * NIC or fabric, or --fabric), or all inside one NVLink domain (an NVL72 rack's 18 trays). The one rule
 * compare, sweep, report, validate and plan_resolve use. */
bool plan_joinable(const plan_spec *s, const hw_system *sys, int gpn, int nodes);
/* What plan_shape_check finds: whether q lets sys carry gpn GPUs per node on `nodes` nodes, and if not why:
 * more GPUs per node than it has, GPUs of a node left idle without q->partial_nodes (one partial node alone is
 * fine: fewer GPUs than a node), or nodes that cannot be joined (plan_joinable). The rule of every placement
 * compare, report and sweep offer. */
typedef enum plan_shape { PLAN_SHAPE_OK, PLAN_SHAPE_TOO_MANY, PLAN_SHAPE_PARTIAL, PLAN_SHAPE_NO_NET } plan_shape;

/* The candidate systems of a question into cand[max]: systems NULL (today's products, plan_default_system),
 * "all" (every system of today; both with the end-of-life ones under q->include_eol) or a comma-separated
 * list of ids (each offered whatever its status). 0, or ERR_INPUT with err set: an id named twice, an unknown
 * id (also copied to unknown[unknown_len], "" otherwise, so that the caller can suggest names), or no
 * candidate. */
int plan_candidates(const hw_db *db, const plan_question *q, const char *systems, const hw_system **cand, int max,
		    int *n, char *unknown, size_t unknown_len);
/* "dgxh100 8 GPUs, hgx-h200 8 GPUs": the candidates whole nodes cannot hold `gpus` on (the count
 * plan_placements gives as skipped_whole), for the note that says they were left out. Returns buf. */
void plan_left_out_names(const plan_spec *s, const plan_question *q, const hw_system *const *cand, int ncand,
			 long gpus, struct strbuf *out);

/* Appends every placement of `gpus` GPUs on each candidate system (plan_placement_shapes) to *o (grown;
 * *cap its capacity), predicted and judged. 0 or ERR_INPUT (err_msg names the system). */
int plan_placements(const hw_db *db, const plan_spec *s, const model_params *p, const plan_question *q,
		    const hw_system *const *cand, int ncand, long gpus, plan_option **o, int *n, int *cap,
		    int *skipped_net, int *skipped_whole);
/* "prices of end-of-life systems are historical: c4140-m (end of life 2020-05), ..." for the end-of-life
 * systems among rows, "" when none. Returns buf. */
void plan_eol_text(const hw_db *db, const plan_option *rows, int nrows, struct strbuf *out);

/* Buy against rent for the winner's GPU: the owner's cost per run of the bought option beside the rent of
 * the same run on the cheapest rental of that GPU in the database (model_price ref_rent_*), and the runs a
 * month above which buying is cheaper (model_cost breakeven_runs_per_month: one rule, model_money.c). */
typedef struct plan_buy_rent {
	const plan_option *buy;    /* NULL when no option of the winner's GPU model has a capex */
	const char *rent_id;       /* the rental compared, NULL when the database rents no such GPU */
	const plan_option *rent_row; /* that rental among the options (its row's rent as billed), else NULL */
	double rent_usd_gpu_h;     /* its rate */
	double owner_usd_run;      /* buy's tco_usd at the stated utilisation */
	double rent_usd_run;       /* the same run rented at rent_id's rate (model_ref_rent_usd: the bought option's
				    * time; its share of a rental session, as predict prints it), averaged over the
				    * horizon as the market's rent falls (model_rent_horizon_factor): what is weighed */
	double rent_today_usd_run; /* that run as billed today, before the fall (model_cashflow's years start here) */
	double rent_term_years;    /* how long that rent is held (0: on demand): the fall's steps */
	double rent_setup_s;       /* start-up and data copy billed to that rented run (0 reserved) */
	double rent_lo_usd_gpu_h;  /* the rate's low end: the market's and committed clusters' (NAN: none) */
	double rent_lo_usd_run;    /* the run rented at it */
	double breakeven_lo_runs_month; /* buying wins above it at the low end (model_buy_rent_eval) */
	double flip_usd_gpu_h;     /* the rate at which renting the run costs what owning it does at the stated
				    * use: renting wins below it */
	double breakeven_runs_month; /* the runs a month where the two cost the same (model_buy_rent_eval) */
	bool buy_wins_above;       /* buying wins above breakeven_runs_month (on demand), else below it */
	bool rent_wins;            /* at the stated use */
	bool rent_lo_wins;         /* at the stated use, at the rate's low end */
	double max_runs_month;     /* runs back to back a month on the bought cluster */
} plan_buy_rent;

/* The rule, in one sentence (README, --help and the answer's notes say it): */
#define PLAN_RULE "among the options that meet the constraints, the pick is the cheapest (by the cost compared) of " \
	"those as fast as the fastest - the 90% interval of their time over the fastest's holds 1 - that no " \
	"option beats on both time and cost"

/* Scale up vs scale out for one chip: the fastest placement over the fewest NVLink domains against the fastest
 * over more. */
typedef struct plan_scale {
	const plan_option *up, *out; /* over the fewest NVLink domains and over more (but see same_domains) */
	const plan_option *pick;     /* up or out: the faster, or where the 90% interval of their time ratio holds 1
				      * the cheaper (the cost compared, then the cost per run) */
	bool tied;                   /* that interval holds 1 */
	bool same_gpu;               /* one GPU record (else one chip in two packages, or one generation: the GPU's part
				      * stated apart) */
	const char *generation;      /* the generation where the pair shares no chip (B200 against B300), else NULL */
	bool any_gpu;                /* the pair shares no chip and no generation (B200 against H100) */
	int domains;                 /* where no option spans more NVLink domains than another: how many all span */
	bool same_domains;           /* so: up is the pick and out the fastest of another GPU (closest first), as
				      * many domains; the GPU is what differs (NULL up and out: one GPU only) */
	double time_x, lo_x, hi_x;   /* up's time over out's and its 90% interval */
	double gpu_x;                /* the part of time_x the GPUs alone give (compute time per image; 1: one record) */
	double topo_x;               /* the rest, the topology's: time_x / gpu_x */
} plan_scale;

/* Fewer GPUs as fast (plan_fewer_gpus): the pick's system at the fewest GPUs (halving the count) whose time is as
 * fast as the pick's within the 90% interval of their ratio (or surely faster): the knee of time against cost. */
typedef struct plan_fewer {
	bool ok;                   /* such a count exists below the pick's */
	plan_option opt;           /* its fastest placement at that count, judged */
	double x, lo, hi;          /* its time over the pick's, with the 90% interval */
} plan_fewer;

/* The answer to q among options (sorted or not): one function (plan_decide) for compare, report, sweep and the
 * page; it decides, the renderers only word it. */
typedef struct plan_answer {
	const plan_option *winner; /* the pick (PLAN_RULE; money-first questions: the cheapest); NULL when none qualifies */
	const plan_option *fastest, *cheapest, *best_value; /* among those that qualify (NULL: none) */
	const plan_option *tied_faster; /* the fastest where it is not the pick (it costs more, as fast as the pick) */
	double fastest_x, fastest_lo, fastest_hi; /* the fastest's time over the pick's with its 90% interval */
	plan_scale scale;          /* scale up vs out: the pick's chip first, else the chip of the fastest pair */
	plan_buy_rent buy_rent;    /* for the winner's GPU model */
	int nqualified;       /* options that fit, have the needed price and meet budget and deadline */
	int nfront, nas_fast; /* of those: on the time-cost front; as fast as the fastest */
	int nextrapolated;    /* options beyond the measured convergence range (not qualified unless asked) */
	int nfail_budget, nfail_deadline, nfail_price, nfail_site; /* options failing each constraint */
	int nrented;          /* options without a capex that have a rent: outside a budget */
	int ndeadline_sure, ndeadline_likely; /* options meeting the deadline with 90% confidence / at the prediction only */
	const plan_option *near_miss; /* with no winner: the option that misses the constraints least (fewest
				       * failed, then by how much) */
	const plan_option *options;   /* the options decided on (for the text) */
	int noptions;
	double conv_max_batch;/* that range's largest global batch */
	plan_fewer fewer;     /* fewer GPUs as fast (plan_fewer_gpus; ok false until it is asked) */
} plan_answer;
/* Decides: sets each option's ok, front and as_fast and fills *a. Prints nothing, never fails. O(n^2). */
void plan_decide(const plan_question *q, plan_option *o, int n, plan_answer *a);
/* After plan_decide at one count: the pick's system at half, a quarter, ... of its GPUs (placements as q asks),
 * the fewest GPUs whose fastest qualifying placement is as fast as the pick (the 90% interval of its time over
 * the pick's reaches 1) into a->fewer (ok false: none). 0, or ERR_INPUT where a prediction fails. */
int plan_fewer_gpus(const hw_db *db, const plan_spec *s, const model_params *p, const plan_question *q,
		    plan_answer *a);
/* A deadline without a GPU count (compare --deadline T alone): the fewest GPUs at which some option meets it. */
typedef struct plan_count {
	int at;             /* index into the counts of the fewest with a pick under q (plan_decide); -1: none */
	long below;         /* the count tried before it (0: none) */
	double below_s;     /* there, the fastest time of the options that fail nothing but the deadline (NAN: none) */
} plan_count;
/* Tries counts[0..n) in ascending order on the candidates (placements as q asks) and decides each (plan_decide):
 * the first count with a pick into *c; the rule's pick at that count is then the pick of a compare at it. 0, or
 * ERR_INPUT where a prediction fails. */
int plan_deadline_count(const hw_db *db, const plan_spec *s, const model_params *p, const plan_question *q,
			const hw_system *const *cand, int ncand, const long *counts, int n, plan_count *c);
/* The counts a deadline alone tries, in ascending order, into c[max]; returns how many (PLAN_DEADLINE_NCOUNTS). */
enum { PLAN_DEADLINE_NCOUNTS = 8 };
int plan_deadline_counts(long *c, int max);
/* Which count a deadline alone chose (gpus) and why, appended to out as a line: the count below it (or none) missed
 * the deadline, with the fastest time there. */
void plan_count_text(const plan_question *q, const plan_count *found, long gpus, struct strbuf *out);
/* The answer in words (plan_text.c): a first line (the pick, its time with the 90% interval, its cost per run and
 * capex or rent), then at most five labelled lines (fastest, cheapest, best value, scale up vs out, buy vs rent),
 * and a line of constraints and what they left out where the question has them; lines end in '\n'. gpus 0:
 * over several GPU counts (no scale line). */
void plan_answer_write(const plan_question *q, const plan_answer *a, long gpus, struct strbuf *out);

/* A stack's GPU compute speed on one GPU (plan_stack.c; docs/stacks.md): the stack x GPU table's cell on that
 * GPU (hwdb stack_effs.csv), else the stack's nearest cell - same architecture first, else the latest earlier
 * generation - through the generation exponent (model_stack_gen_eff; an interval from the exponents the moves
 * on file span when the generation differs), else (no cell of its own) the geometric mean of the stacks of its
 * likeness at that GPU (interval: model_params unseen_stack_err), else its stacks.csv compute_eff. */
typedef struct plan_eff {
	double eff;               /* compute_eff; NAN = 1 (MLPerf-grade) */
	model_eff_how how;
	const char *from_gpu;     /* the cell's GPU (NULL: none) */
	double lo_x, hi_x;        /* what its source adds to the 90% interval on throughput (1, 1: nothing) */
} plan_eff;
/* st NULL: eff NAN. skip_stack: predict as though that stack had no cell (leave-one-stack-out); skip_gpu: as
 * though no stack had a cell on that GPU, nor its stacks.csv figure (fitted on those cells' runs): the
 * held-out prediction of a run on it; NULL: none. */
void plan_stack_eff(const hw_db *db, const hw_stack *st, const char *skip_stack, const hw_gpu *skip_gpu,
		    const hw_gpu *gpu, model_precision prec, const model_params *p, plan_eff *out);

/* ---- What the pick rests on (plan_flip.c) ----
 * speed_x: the factor on the pick's predicted GPU compute speed below which the rule picks another option (then);
 * NAN (then NULL) when it stays the pick down to a quarter of it, or there is no pick. */
typedef struct plan_flip {
	double speed_x;
	const plan_option *then;
} plan_flip;
/* Decides again (plan_decide) with the pick's GPU slowed in every option that has it, bought or rented
 * (model_predict, plan_option_judge), bisecting the factor at which the pick changes. Prints nothing, never fails. O(n^2 x 16). */
void plan_flip_find(const plan_question *q, const plan_option *o, int n, const plan_answer *a, const model_params *p,
		    plan_flip *f);
/* The answer as JSON (plan_json.c; compare --answer-json, read by the page): the rule and the question, the pick
 * and its alternates, scale up vs out, buy vs rent, the counts, the fold of the table (plan_fold) and the answer's
 * lines (plan_answer_write, then plan_flip_text), one object ending in a newline. */
void plan_answer_json(FILE *f, const plan_question *q, const plan_answer *a, const plan_flip *flip, long gpus);
/* "  Rests on: dgxb200 stays the pick unless a B200 runs under 0.70x its predicted speed (then dgxh100 1x8); ..."
 * appended to out. */
void plan_flip_text(const plan_flip *f, const plan_answer *a, struct strbuf *out);

/* ---- Sensitivity (plan_sens.c): what could flip the answer at one GPU count ---- */

/* The answer's cost (the owner's per run, or its rent when it is rented) with each money input at both ends
 * (model_money_sensitivity), whether an input flips which of the answer and its alternative costs less, and
 * buying against renting the same runs: the use below which renting wins and whether the utilisation's
 * range or the market's rate flips that. */
typedef struct plan_sens {
	bool ok;                   /* an answer with a cost to move */
	bool rent;                 /* the answer is rented: its rent moves (else the owner's cost per run) */
	int gpus;
	const plan_option *ans, *alt; /* the answer and the option it is weighed against (alt NULL: none) */
	double base, alt_base, speed_err;
	model_sens s[MODEL_SENS_N], a[MODEL_SENS_N];
	bool flips[MODEL_SENS_N];
	/* buy vs rent (the answer's plan_buy_rent); vs_rent false where there is no such pair */
	bool vs_rent;
	const plan_option *buy;    /* the bought option */
	const char *rent_id;       /* the rental */
	double use;                /* the stated use (utilisation, or --runs-per-month as a fraction of the month) */
	double rent_use;           /* renting wins below this use: 0 never, INFINITY at any use */
	double use_lo, use_hi;     /* the utilisation's range in model_money_sensitivity */
	bool rent_wins;            /* at the stated use */
	bool buy_wins_above;       /* buying wins above rent_use (on demand), else below it (a reservation) */
	bool flip_use;             /* somewhere in the utilisation's range the other one wins */
	bool flip_market;          /* at the market's rate the other one wins (rent_market_*) */
	double market_usd_gpu_h, flip_usd_gpu_h; /* the market's rate; the rate where the decision flips */
} plan_sens;
/* Decides (plan_decide) the n options of one GPU count and fills *s. Never fails: s->ok false without an
 * answer with a cost. */
void plan_sens_compute(const plan_question *q, plan_option *o, int n, int gpus, plan_sens *s);
/* s in words, appended to out: what flips the answer, and the use at which renting wins. */
void plan_sens_text(const plan_sens *s, struct strbuf *out);

/* ---- compare's ranked table as text (plan_table.c) ---- */
/* The width within which tables' headings, folded offers and the answer's lines are wrapped (strbuf_add_wrapped). */
enum { PLAN_TEXT_WIDTH = 200, PLAN_TABLE_MAX_COLS = 32 };
/* The table's columns named in list (--columns: the CSV's names; NULL: the default, within PLAN_TEXT_WIDTH; "all":
 * every one) into col[PLAN_TABLE_MAX_COLS], their count into *n. 0, or ERR_INPUT naming the column the table lacks
 * and listing those it has. */
int plan_table_columns(const char *list, int *col, int *n);
/* The ranked table appended to out: its heading (gpus: "64" or "8,16,32"; the target, precision and data of spec;
 * the order), a line of column headings, one line per option in the columns col[ncol], each as wide as its widest
 * cell; offers of the same hardware and time folded into the first (plan_fold; all: none is), named on a line under
 * it, and a note on the fold; ranks count the rows shown, ">" marks the pick (v.pick, set by plan_decide). */
void plan_table_write(const plan_spec *spec, const plan_question *q, const char *gpus, const plan_option *rows,
		      int nrows, bool all, const int *col, int ncol, struct strbuf *out);
/* The table's legend appended to out, a line each: what its columns mean (m: the money terms the costs were
 * priced on), why a "-" (no price of that kind), the marks (*, >, ~, <), what was left out (skipped_whole
 * systems, named in left_out; skipped_net placements), end-of-life prices and the intervals beyond 16 nodes. */
void plan_table_notes(const hw_db *db, const model_money *m, const plan_question *q, const plan_option *rows, int nrows,
		      int skipped_net, int skipped_whole, const char *left_out, struct strbuf *out);
/* "ngc-mlperf (gpu decode, staged)" for tables; "default (cpu decode)" without a stack. Returns buf. */
char *plan_stack_label(const model_scenario *sc, char *buf, size_t len_B);

/* "$1,234,567" ("-" for NAN) and "2 h 05 min", "13.6 min", "42.0 s" ("-" for NAN) into buf. Return buf. */
char *plan_fmt_usd(double usd, char *buf, size_t len_B);
char *plan_fmt_duration(double s, char *buf, size_t len_B);
/* A time with its 90% interval in the point's unit: "12.3 min (11.8-13.1)", "2.6 h (2.1-3.0)"; the point
 * alone (plan_fmt_duration) when the interval is unknown or empty. Returns buf. */
char *plan_fmt_range(double s, double lo_s, double hi_s, char *buf, size_t len_B);
/* "2.5h", "90min", "45 s", "1.5d" or plain seconds -> seconds. 0 or ERR_INPUT. */
int plan_parse_duration(const char *s, double *out_s);

/* ---- sweep's grid (plan_sweep.c) ----
 * systems x GPUs per node x nodes x batch per GPU: each system and GPUs-per-node (a block) prepared once with
 * plan_resolve, each point predicted and judged; rows streamed (goal PLAN_GRID) or kept to rank. Prints
 * nothing: what is said goes through the callbacks. */
enum { PLAN_SWEEP_TOP = 256 }; /* options a decision re-predicts: a front longer keeps its fastest and cheapest halves */

/* One configuration kept: its verdict and where it comes from (block, grid point); predicted again when needed
 * (cheaper than keeping the prediction). */
typedef struct plan_sweep_row {
	plan_verdict v;
	double k1, k2, k3; /* plan_verdict_cmp's order as numbers (qualifies, primary, secondary) */
	int block, nodes, batch, gpus;
} plan_sweep_row;

typedef struct plan_sweep {
	/* the question: the grid's lists (nb 0: the model's batch; ng 0: the system's GPUs per node) */
	const hw_db *db;
	plan_spec *spec; /* its batch fields are cleared: each block chooses its own */
	const model_params *params;
	const plan_question *q;
	const int *nodes, *batches, *gpns;
	int nn, nb, ng, global_batch;
	bool constrained; /* rows missing the budget, deadline or a price are left out */
	/* row: a point streamed (goal PLAN_GRID); say: a failure err_msg() tells, of system_id (NULL: a block
	 * plan_resolve could not prepare); progress (may be NULL): points done so far */
	void (*row)(void *ctx, const model_scenario *sc, const model_result *r, const model_cost *cost,
		    const plan_verdict *v);
	void (*say)(void *ctx, const char *system_id);
	void (*progress)(void *ctx, long done);
	void *ctx;
	/* what it gave */
	plan_sweep_row *rows;
	long nrows, cap, total, done, written;
	model_scenario *blocks;
	const hw_system **block_sys; /* each block's system */
	int nblocks;
	long skipped_net, skipped_budget, skipped_mem, skipped_gpn, skipped_partial, skipped_gb, skipped_epoch,
	     skipped_nofit_block;
} plan_sweep;

/* The points of the grid over ncand systems. */
long plan_sweep_total(const plan_sweep *g, int ncand);
/* The grid over cand[ncand]: rows kept and counters set. 0, ERR_INPUT (a prediction failed, or a block with
 * measurements could not be prepared; said) or ERR_INTR (a signal; g->done points done). */
int plan_sweep_grid(plan_sweep *g, const hw_system *const *cand, int ncand);
/* The rows' order (qsort): qualifying first, then the question's primary and secondary key, then grid order. */
int plan_sweep_rank_cmp(const void *a, const void *b);
/* Row i predicted and priced again into *r and *cost (*sc: its block's scenario at the row's point). 0 or
 * ERR_INPUT. */
int plan_sweep_predict(const plan_sweep *g, long i, model_scenario **sc, model_result *r, model_cost *cost);
/* The contenders of rows [from, to) (all that qualify where PLAN_SWEEP_TOP holds them, else the time-cost front,
 * plan_front) predicted again and judged as options
 * into opt[PLAN_SWEEP_TOP]; returns how many. */
int plan_sweep_options(const plan_sweep *g, long from, long to, plan_option *opt);
/* The decision's winner over all kept rows into *sc, *r, *cost, and what it rests on into *flip_x (plan_flip's
 * speed_x; NAN where it holds to the search's end; flip_x NULL: not sought), both marked on its row's verdict
 * (pick, flip_speed_x) for the CSV: false when none qualifies. */
bool plan_sweep_pick(plan_sweep *g, model_scenario *sc, model_result *r, model_cost *cost, double *flip_x);
/* The rows regrouped by GPU count (ranked within each); returns how many counts. */
long plan_sweep_by_gpus(plan_sweep *g);
void plan_sweep_free(plan_sweep *g);

/* ---- one prediction as a row (plan_row.c) ---- */
struct csvw;
/* The predict CSV columns (docs/design.md names first, extras after) and one row of them. */
void plan_row_csv_header(struct csvw *w);
void plan_row_csv(struct csvw *w, const model_scenario *sc, const model_result *r, const model_cost *cost);
/* The same cells without ending the row and without the columns added last (the intervals and money, stack),
 * for commands that append columns (sim, which adds stack after its own). */
void plan_row_csv_header_cells(struct csvw *w);
void plan_row_csv_cells(struct csvw *w, const model_scenario *sc, const model_result *r, const model_cost *cost);
/* The CSV of judged options (compare, sweep, report): predict's columns, then the verdict's (meets, fails, by how
 * much, the GPUs left idle), this row's times over the pick's (pick_sc and pick_r; NULL: none) with the 90%
 * interval of that ratio (plan_ratio), the chance of meeting the deadline, the pick (v->pick), what a run costs its
 * buyer and what the pick rests on, then stack. `scaleplan sweep --help` lists them by name. */
void plan_option_csv_header(struct csvw *w);
void plan_option_csv_row(struct csvw *w, const plan_question *q, const model_scenario *sc, const model_result *r,
			 const model_cost *cost, const plan_verdict *v, const model_scenario *pick_sc,
			 const model_result *pick_r);
/* The columns a CSV of rows writes, one line each ("  tta_s   s"): their names in order with their units or
 * meanings, from the table that writes them (--columns help). PLAN_ROW_FIRST: those sim writes before its own. */
typedef enum plan_row_set { PLAN_ROW_PREDICT, PLAN_ROW_JUDGED, PLAN_ROW_FIRST } plan_row_set;
void plan_row_columns_text(plan_row_set set, struct strbuf *out);
/* How a result's power is known: the system's power_kind (measured, datasheet, estimate), "tdp-fallback" where
 * the model summed TDPs, "" without power. */
const char *plan_power_basis(const model_scenario *sc, const model_cost *cost);
/* JSON object of one prediction (no trailing newline). */
void plan_row_json(FILE *out, const model_scenario *sc, const model_result *r, const model_cost *cost);
/* The figures of the run itself (GPUs, global batch, throughput, the step's parts, bottleneck, epochs, epoch and
 * run times) as compact JSON members, each followed by a comma: what sim's "sim" object gives again as simulated,
 * before its own. */
void plan_row_json_run(FILE *out, const model_scenario *sc, const model_result *r);

#endif
