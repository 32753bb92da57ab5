/* calibrate/cal_fit.c - the GSL nonlinear least-squares wrapper.
 *
 * gsl_multifit_nlinear (GSL manual, "Nonlinear Least-Squares Fitting"): trust-region Levenberg-Marquardt
 * with a finite-difference Jacobian. GSL's abort-on-error handler is turned off once (pthread_once) and
 * every status is checked. Standard errors follow the manual's example: covar = (J^T J)^-1 at the optimum
 * (gsl_multifit_nlinear_covar, which zeroes the rows of linearly dependent columns), scaled by
 * chi2 / dof. Rank deficiency is found from the singular values of J.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "calibrate/cal.h"
#include "calibrate/cal_internal.h"
#include "common/common.h"

static pthread_once_t gsl_once = PTHREAD_ONCE_INIT;

static void gsl_quiet(void)
{
	gsl_set_error_handler_off();
}

double cal_xform_to_x(cal_xform t, double u)
{
	return t == CAL_X_LOG ? exp(u) : 1.0 / (1.0 + exp(-u));
}

double cal_xform_to_u(cal_xform t, double x)
{
	if (t == CAL_X_LOG)
		return log(x > 0 ? x : 1e-300);
	double c = fmin(fmax(x, 1e-9), 1 - 1e-9);
	return log(c / (1 - c));
}

double cal_xform_dxdu(cal_xform t, double u)
{
	double x = cal_xform_to_x(t, u);
	return t == CAL_X_LOG ? x : x * (1 - x);
}

/* Adapter from GSL's callback to the problem's; the padding rows (n < np) are zero. */
typedef struct lsq_adapter {
	const cal_lsq *p;
	int nreal;
	double *u;
	double *r;
	double shift[CAL_LSQ_MAXP]; /* GSL's coordinate is u + shift (see lsq_fit) */
} lsq_adapter;

static int lsq_f(const gsl_vector *x, void *params, gsl_vector *f)
{
	lsq_adapter *a = params;
	for (int j = 0; j < a->p->np; j++)
		a->u[j] = gsl_vector_get(x, (size_t)j) - a->shift[j];
	if (a->p->f(a->u, a->r, a->p->ctx) != 0)
		return GSL_EDOM;
	for (size_t i = 0; i < f->size; i++) {
		double v = (int)i < a->nreal ? a->r[i] : 0.0;
		if (!isfinite(v))
			return GSL_EDOM;
		gsl_vector_set(f, i, v);
	}
	return GSL_SUCCESS;
}

/* First-order optimality: |J^T f|_inf small. GSL reports GSL_ENOPROG when it cannot improve, which also
 * happens at an exact solution; accept that only where the gradient says it is a minimum. Started exactly at
 * the solution (zero residuals), the driver can also end with GSL_EMAXITER. Sets res->converged, or the
 * reason in res->msg. */
static bool lsq_converged(int status, const gsl_matrix *J, const gsl_vector *f, cal_lsq_result *res)
{
	double gmax = 0;
	for (size_t j = 0; j < J->size2; j++) {
		double g = 0;
		for (size_t i = 0; i < J->size1; i++)
			g += gsl_matrix_get(J, i, j) * gsl_vector_get(f, i);
		gmax = fmax(gmax, fabs(g));
	}
	if (status == GSL_SUCCESS)
		res->converged = true;
	else if (res->chi2 < 1e-20 || (status == GSL_ENOPROG && gmax < 1e-6 * fmax(1.0, res->chi2)))
		res->converged = true;
	else
		snprintf(res->msg, sizeof res->msg, "did not converge after %d iterations (%s; chi2 %.3g, gradient %.3g)",
			 res->iters, gsl_strerror(status), res->chi2, gmax);
	return res->converged;
}

/* Rank from the singular values of J (copied into jc; V, S, work of its size); a coordinate with a large
 * component along a null direction cannot be determined by these data. GSL's status. */
static int lsq_rank(const gsl_matrix *J, gsl_matrix *jc, gsl_matrix *V, gsl_vector *S, gsl_vector *work,
		    cal_lsq_result *res)
{
	size_t np = J->size2;
	gsl_matrix_memcpy(jc, J);
	int status = gsl_linalg_SV_decomp(jc, V, S, work);
	if (status != GSL_SUCCESS)
		return status;
	double smax = gsl_vector_get(S, 0);
	for (size_t j = 0; j < np; j++)
		res->determined[j] = smax > 0;
	res->rank = 0;
	for (size_t k = 0; k < np; k++) {
		double s = gsl_vector_get(S, k);
		if (smax > 0 && s > 1e-8 * smax) {
			res->rank++;
			continue;
		}
		for (size_t j = 0; j < np; j++)
			if (fabs(gsl_matrix_get(V, j, k)) > 0.1)
				res->determined[j] = false;
	}
	return GSL_SUCCESS;
}

/* Standard errors from the covariance at the optimum scaled by chi2/dof, for the determined coordinates;
 * the others marked not determined (res->msg says how many). GSL's status. */
static int lsq_errors(const gsl_matrix *J, gsl_matrix *covar, cal_lsq_result *res)
{
	size_t np = J->size2;
	int status = gsl_multifit_nlinear_covar(J, 1e-8, covar), nund = 0;
	if (status != GSL_SUCCESS)
		return status;
	for (size_t j = 0; j < np; j++) {
		double c = gsl_matrix_get(covar, j, j);
		if (!res->determined[j] || !(c > 0) || !isfinite(c)) {
			res->determined[j] = false;
			nund++;
			continue;
		}
		if (res->dof > 0)
			res->se_u[j] = sqrt(c * res->chi2 / res->dof);
	}
	for (size_t i = 0; i < np; i++)
		for (size_t j = 0; j < np; j++) {
			double ci = gsl_matrix_get(covar, i, i), cj = gsl_matrix_get(covar, j, j);
			res->corr_u[i][j] = res->determined[i] && res->determined[j] && ci > 0 && cj > 0
						    ? gsl_matrix_get(covar, i, j) / sqrt(ci * cj) : 0.0;
		}
	if (nund)
		snprintf(res->msg, sizeof res->msg, "Jacobian rank %d of %d: %d parameter(s) not determined by the data",
			 res->rank, (int)np, nund);
	return GSL_SUCCESS;
}

/* GSL's workspace of one fit and the matrices of its error analysis. */
typedef struct lsq_work {
	gsl_multifit_nlinear_workspace *w;
	gsl_vector *x0, *S, *work;
	gsl_matrix *covar, *jc, *V;
} lsq_work;

static bool lsq_work_alloc(lsq_work *k, size_t n, size_t np, const gsl_multifit_nlinear_parameters *fp)
{
	k->w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, fp, n, np);
	k->x0 = gsl_vector_alloc(np);
	k->covar = gsl_matrix_alloc(np, np);
	k->jc = gsl_matrix_alloc(n, np);
	k->V = gsl_matrix_alloc(np, np);
	k->S = gsl_vector_alloc(np);
	k->work = gsl_vector_alloc(np);
	return k->w && k->x0 && k->covar && k->jc && k->V && k->S && k->work;
}

static void lsq_work_free(lsq_work *k)
{
	gsl_vector_free(k->work);
	gsl_vector_free(k->S);
	gsl_matrix_free(k->V);
	gsl_matrix_free(k->jc);
	gsl_matrix_free(k->covar);
	gsl_vector_free(k->x0);
	if (k->w)
		gsl_multifit_nlinear_free(k->w);
}

/* Runs the trust-region fit from p->u and, where it converged, writes the optimum into p->u and the rank and
 * standard errors into res; every failure is said in res->msg. */
static void lsq_fit(const cal_lsq *p, lsq_adapter *a, gsl_multifit_nlinear_fdf *fdf, lsq_work *k, cal_lsq_result *res)
{
	const size_t np = (size_t)p->np;
	/* GSL's finite-difference Jacobian steps each coordinate by h_df x |x_j| (h_df alone only when x_j is
	 * exactly 0): a coordinate that starts near 0 (a prior of 1 in log space, one half in logit space)
	 * and drifts to 1e-9 gets a step below double precision and a zero Jacobian column, so it is never
	 * moved. Such coordinates are handed to GSL shifted by 1. */
	for (size_t j = 0; j < np; j++) {
		a->shift[j] = fabs(p->u[j]) < 0.5 ? 1.0 : 0.0;
		gsl_vector_set(k->x0, j, p->u[j] + a->shift[j]);
	}
	int info = 0, status = gsl_multifit_nlinear_init(k->x0, fdf, k->w);
	if (status != GSL_SUCCESS) {
		snprintf(res->msg, sizeof res->msg, "the model cannot be evaluated at the start values (%s)",
			 gsl_strerror(status));
		return;
	}
	status = gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 0.0, NULL, NULL, &info, k->w);
	res->iters = (int)gsl_multifit_nlinear_niter(k->w);
	gsl_vector *f = gsl_multifit_nlinear_residual(k->w);
	gsl_vector *x = gsl_multifit_nlinear_position(k->w);
	double chi = gsl_blas_dnrm2(f);
	res->chi2 = chi * chi;
	gsl_matrix *J = gsl_multifit_nlinear_jac(k->w);

	if (!lsq_converged(status, J, f, res))
		return;
	if (!isfinite(res->chi2)) {
		res->converged = false;
		snprintf(res->msg, sizeof res->msg, "residuals are not finite at the optimum");
		return;
	}
	for (size_t j = 0; j < np; j++)
		p->u[j] = gsl_vector_get(x, j) - a->shift[j];

	status = lsq_rank(J, k->jc, k->V, k->S, k->work, res);
	if (status != GSL_SUCCESS) {
		snprintf(res->msg, sizeof res->msg, "SVD of the Jacobian failed (%s)", gsl_strerror(status));
		res->converged = false;
		return;
	}
	status = lsq_errors(J, k->covar, res);
	if (status != GSL_SUCCESS)
		snprintf(res->msg, sizeof res->msg, "covariance failed (%s)", gsl_strerror(status));
}

int cal_lsq_solve(const cal_lsq *p, cal_lsq_result *res)
{
	pthread_once(&gsl_once, gsl_quiet);
	memset(res, 0, sizeof *res);
	res->chi2 = NAN;
	for (int j = 0; j < CAL_LSQ_MAXP; j++)
		res->se_u[j] = NAN;
	if (p->np < 1 || p->np > CAL_LSQ_MAXP || p->n < 1)
		return err_set("least squares: %d parameters and %d residuals (need 1..%d and >= 1)", p->np, p->n,
			       CAL_LSQ_MAXP);
	const size_t np = (size_t)p->np;
	/* GSL needs n >= p; pad with zero rows, which leave the Jacobian rank-deficient, as it should be. */
	const size_t n = (size_t)(p->n >= p->np ? p->n : p->np);
	res->dof = p->n - p->np;

	lsq_adapter a = { .p = p, .nreal = p->n, .u = xcalloc(np, sizeof(double)), .r = xcalloc(n, sizeof(double)) };
	gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_fdf fdf = { .f = lsq_f, .df = NULL, .fvv = NULL, .n = n, .p = np, .params = &a };
	lsq_work k;
	if (lsq_work_alloc(&k, n, np, &fp))
		lsq_fit(p, &a, &fdf, &k, res);
	else
		snprintf(res->msg, sizeof res->msg, "GSL could not allocate the workspace");
	lsq_work_free(&k);
	free(a.u);
	free(a.r);
	return 0;
}
