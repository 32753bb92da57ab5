/* calibrate internals shared by its .c files (not a public header).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_CAL_INTERNAL_H
#define SCALEPLAN_CAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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

#endif
