/* calibrate internals shared by its .c files (not a public header).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_CAL_INTERNAL_H
#define SCALEPLAN_CAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "calibrate/cal.h"

/* One reference table compiled into the binary ($(BUILD)/gen/cal_refdata.c, tools/embed.sh). */
typedef struct cal_refdata_file {
	const char *name;            /* "throughput.csv" */
	const unsigned char *data;   /* [len_B] + NUL */
	size_t len_B;
} cal_refdata_file;

extern const cal_refdata_file cal_refdata[];
extern const int cal_refdata_count;


/* ---- the GSL least-squares wrapper (cal_fit.c) ---- */

/* How a parameter maps to the unconstrained coordinate u the solver moves. */
typedef enum cal_xform { CAL_X_LOG, CAL_X_LOGIT } cal_xform;

/* A least-squares problem: n residuals r(u) of np unconstrained coordinates. */
typedef struct cal_lsq {
	int np;
	int n;
	double *u;       /* [np] start on entry, optimum on success */
	/* Fills r[0..n-1]; returns 0, or nonzero when the point u cannot be evaluated. */
	int (*f)(const double *u, double *r, void *ctx);
	void *ctx;
} cal_lsq;

typedef struct cal_lsq_result {
	bool converged;
	int iters;
	double chi2;     /* sum of squared residuals at the optimum */
	int dof;         /* n - np */
	int rank;        /* numerical rank of the Jacobian at the optimum */
	double se_u[16]; /* standard errors of u (NAN: undetermined, or no degrees of freedom) */
	double corr_u[16][16]; /* correlations of u at the optimum (covariance / se se; 0 where undetermined) */
	bool determined[16];
	char msg[240];   /* why it failed / what could not be determined; "" when all is well */
} cal_lsq_result;

#define CAL_LSQ_MAXP 16

/* Solves min |r(u)|^2 with gsl_multifit_nlinear (trust region, Levenberg-Marquardt, finite-difference
 * Jacobian). Standard errors: covariance (J^T J)^-1 from gsl_multifit_nlinear_covar scaled by chi2/dof.
 * A coordinate is undetermined when the Jacobian has a null direction along it (singular value below
 * 1e-8 of the largest). Returns 0 (see res->converged) or ERR_INPUT for a malformed problem. */
int cal_lsq_solve(const cal_lsq *p, cal_lsq_result *res);
/* the generated tables' temporary file and its rename (cal_interval.c) */
FILE *cal_table_open(const char *path, char **tmp, int *rc);
int cal_table_close(FILE *f, char *tmp, const char *path);
/* How residuals widen with the node count: the least-squares line rho^2 = a + b z^2, z^2 = 2 ln nodes (the
 * slowest of n nodes' spread), over the n residuals rho[i] of runs of nodes[i] nodes; returns b / a (the
 * grow_z2 of model_interval_spread), 0 when the line does not rise, a is not positive or all z are equal. */
double cal_interval_growth(const double *rho, const int *nodes, int n);

double cal_xform_to_x(cal_xform t, double u);
double cal_xform_to_u(cal_xform t, double x);
/* d x / d u at u. */
double cal_xform_dxdu(cal_xform t, double u);

/* ---- the database's description of a system (cal_model.c) ---- */

struct hw_db;
struct model_params;
struct model_node;
/* The node plan_resolve builds for database system `machine` with gpn GPUs per node (0: the system's) on
 * `nodes` nodes at parameters p (link bandwidths as predict uses them: the fabric's oversubscription, the
 * NICs the used GPUs reach). True, or false when the database has no such system or refuses the placement.
 * The one place calibrate turns a machine name into hardware. */
bool cal_system_node(const struct hw_db *db, const struct model_params *p, const char *machine, int gpn, int nodes,
		     struct model_node *out);

struct cal_point;
struct model_scenario;
/* The prepared scenario of a point's GPU work (cal_mcol.c: its system, stack, precision, batch on one
 * GPU; the one explicit mapping for machines and precisions the database cannot describe). True when
 * built. */
bool cal_point_compute_scenario(const struct hw_db *db, const struct model_params *mp, const struct cal_point *p,
				struct model_scenario *sc);

/* ---- Used only inside calibrate/ (and its tests) ---- */
/* Every combination of g appended to runs[0..n) (room CAL_CG_MAX_RUNS; one GPU once per batch and data path,
 * no transport; an emulated point of one node emulates one node per GPU; a run already there is not added);
 * returns the count, which may exceed the room. */
int cal_cg_expand(const cal_cg_grid *g, cal_cg_run *runs, int n);
/* --grid SPEC ("key=v1,v2;key=...", keys gpus_per_node, nodes, batch, data, transport; keys left out:
 * 1 GPU, 1 node, batch 256, synthetic, nvlink) or @FILE (one item a line, # comments) into g. 0, or
 * ERR_INPUT with err "WHERE: field 'F', value 'V': expected ..." (WHERE: --grid or FILE:LINE). */
int cal_cg_grid_parse(const char *spec, cal_cg_grid *g);
/* Adds the points one MLLOG run yields (epochs to target at its global batch; time to train). */
void cal_data_add_mllog(cal_data *d, const cal_mllog_run *run);
/* Loads one CSV (its kind is recognised by its header) from a buffer. Malformed rows are printed to errs
 * as "name:line:col(field): why" and skipped, or are fatal (ERR_INPUT) with strict. A table the CSV reader
 * rejects (bad quoting, ragged rows) or whose header matches no known kind is skipped with a message, or
 * is ERR_INPUT with strict. */
int cal_data_load_csv_buf(cal_data *d, const char *name, const char *buf, size_t len_B, bool strict, FILE *errs);
/* The same from a file. */
int cal_data_load_csv(cal_data *d, const char *path, bool strict, FILE *errs);
/* Loads every *.csv of DIR, and every other regular file of DIR that contains ":::MLLOG" as a log.
 * ERR_ENV when DIR cannot be read. */
int cal_data_load_dir(cal_data *d, const char *dir, double target_top1, bool strict, FILE *errs);
/* cal_gpu_report's fit's leave-one-submitter-out residuals of the MLPerf v4.0 single-node results (throughput, pool
 * mlperf; basis: measured when another submitter ran the GPU, else transfer or estimate by architecture)
 * into out (at most max); returns how many, or ERR_INPUT as cal_gpu_report. */
int cal_gpu_heldout(const struct hw_db *db, const struct model_params *base, cal_resid *out, int max);
const char *cal_kind_name(cal_kind kind);
/* Parses one line. Returns 0 (an event), 1 (no ":::MLLOG" on the line: not an event) or ERR_INPUT
 * (malformed: err says the column and what was expected). Never reads past len_B. */
int cal_mllog_event_parse(cal_mllog_event *ev, const char *line, size_t len_B);
/* cal_mllog_parse_buf for a file; ERR_ENV when it cannot be read. */
int cal_mllog_load(cal_mllog_run *run, const char *path, double target_top1, bool strict, FILE *errs);
/* Parses a whole log. Malformed event lines are printed to errs as "name:line: why" and skipped, or are
 * fatal (ERR_INPUT) when strict. A log with no event at all is ERR_INPUT. target_top1 <= 0 or NAN means
 * the MLPerf target. run must be freed with cal_mllog_run_free whatever the result. */
int cal_mllog_parse_buf(cal_mllog_run *run, const char *name, const char *buf, size_t len_B, double target_top1,
			bool strict, FILE *errs);
void cal_mllog_run_free(cal_mllog_run *run);
void cal_mllog_run_init(cal_mllog_run *run);
/* Reads the node and GPU counts (number_of_nodes, accelerators_per_node; string or number) and the
 * accelerator_model_name of an MLPerf
 * system description JSON object (systems/<system>.json, or the text after `:::SYSJSON`) into ph; other
 * fields are skipped. 0, or ERR_INPUT (malformed: err says the column; ph unchanged). */
int cal_mllog_sysjson_parse(cal_mllog_phases *ph, const char *buf, size_t len_B);
int cal_one_gpu_runs(struct csv_table *t);
/* The organisation of a submitter: the name up to its first '-' ("smc-ac-power" -> "smc": the smc,
 * smc-ac-power and smc-dc-power v4.0 results share their logs, so a hold-out must leave out all three). */
void cal_phase_org(const char *submitter, char *out, size_t cap);
/* Fills a row from a parsed log; source names it. Unknown numbers are NAN. */
void cal_phase_row_from_run(cal_phase_row *r, const cal_mllog_run *run, const char *source);
/* The start-up's held-out errors, for its interval: each organisation's systems (submitter and system: the
 * mean init_start..run_start of their usable runs) predicted by the fit without the organisation, not
 * anchored (what a planner without their own logs gets; a log filed under several submitters counts once);
 * nodes, measured and predicted s into the arrays
 * (at most max). Returns how many, or ERR_INPUT when a fold cannot be fitted. */
int cal_phase_startup_heldout(const cal_phase_row *rows, int n, double dataset_B, double *nodes, double *measured,
			      double *predicted, int max);
/* The point's batch per GPU; where its table does not say, NVIDIA DeepLearningExamples' default (256; 128
 * in fp32/tf32 on 16 GB GPUs, what fits there). */
int cal_point_batch(const cal_point *p);
/* True when the database can describe how the point's GPUs talk (NVLink/PCIe in a node, IB between). */
bool cal_point_describable(const cal_point *p);
/* Predicts point i of d with the parameters in ps (adding priors for missing ones). NAN when the
 * point cannot be predicted (e.g. an unknown GPU and no fitted compute parameters). */
double cal_predict(cal_pset *ps, const cal_data *d, int i, const cal_opts *opts);
/* Index of (name, scope), or -1. */
int cal_pset_find(const cal_pset *ps, const char *name, const char *scope);
/* Sets the correlation of parameters a and b (indices into ps->p). */
void cal_pset_corr_set(cal_pset *ps, int a, int b, double rho);
/* Index of (name, scope), adding it with the prior when absent. */
int cal_pset_get(cal_pset *ps, const char *name, const char *scope, double prior, const char *unit);
/* The pool of a pair: its first difference in the order gpu, stack, precision, system, scale (cal.h, cal_rpair). */
model_diff cal_ratio_pool(unsigned differs);
/* Appends one pair to *pairs (grown). */
void cal_rpair_add(cal_rpair **pairs, int *npairs, int *cap, model_quantity q, unsigned differs, double rho,
		   model_stacks stacks);
/* The miss of the default model from one GPU to another: default_pred[i] is point i's default-model
 * prediction (NAN: none), stack[i] its stack (may be NULL). */
void cal_transfer_miss(const cal_data *d, const double *default_pred, const char *const *stack, const char *from,
		       const char *to, const struct hw_db *db, cal_miss *m);
/* The interval of n leave-one-out log residuals rho[] with their points' repeat half-ranges hw[] (NULL: all 0)
 * and its leave-one-out coverage, into out. */
void cal_loo_interval(const double *rho, const double *hw, int n, cal_loo_iv *out);
/* What lies beyond a repeat half-range hw (>= 0) of a log residual rho: 0 inside [-hw, hw], else the
 * distance to the nearer end with rho's sign. */
double cal_resid_beyond(double rho, double hw);
/* The weight of point p's residual for how steady its measurement was: 1, or CAL_STEADY_RISE / rise. */
double cal_steady_weight(const cal_point *p);
/* The 90% interval of one prediction pred: ln-variance var_param_ln from the parameters' standard errors and a
 * run's own noise sd_run_ln (ln; NAN: unknown, counted 0) in quadrature, a normal quantile; into lo, hi. */
void cal_point_interval(double pred, double var_param_ln, double sd_run_ln, double *lo, double *hi);

#endif
