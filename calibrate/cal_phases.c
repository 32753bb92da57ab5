/* calibrate/cal_phases.c - the phase table: what an MLPerf run spends before and inside its scored time.
 *
 * From each MLLOG log (cal_mllog.c) one row: initialisation (init_start..init_stop), the gap to
 * run_start, the scored run (run_start..run_stop) split into the lead before the first epoch, the epochs
 * (the first, usually slower: warm-up and reads after the cache was cleared, and the warm rest), the
 * evaluation passes, and what is left (the gaps at epoch and block boundaries and the tail after the last
 * interval). Written by `scaleplan calibrate --phases-out`, read back by the run-level fits and `validate`.
 * The table's columns and the row struct are tied by one list (phase_cols) so that writer and reader
 * cannot drift apart.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "calibrate/cal.h"

#include <dirent.h>
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "calibrate/cal_internal.h"
#include "common/common.h"

/* One column: a text field (len > 0) or a double, and the digits it is written with. */
typedef struct phase_col {
	const char *name;
	size_t off;
	size_t len;   /* text: capacity; 0: a double */
	int digits;
} phase_col;

#define PT(f) { #f, offsetof(cal_phase_row, f), sizeof(((cal_phase_row *)0)->f), 0 }
#define PN(f, d) { #f, offsetof(cal_phase_row, f), 0, d }
static const phase_col phase_cols[] = {
	PT(source), PT(submitter), PT(system), PT(platform), PT(status),
	PN(nodes, 6), PN(gpus_per_node, 6), PN(gpus, 8), PN(global_batch, 8), PN(train_samples, 9),
	PN(eval_samples, 9), PN(init_s, 6), PN(init_to_run_s, 6), PN(run_s, 7), PN(tta_s, 7), PN(epochs, 6),
	PN(epochs_to_target, 6), PN(lead_s, 5), PN(first_epoch_s, 6), PN(warm_epoch_s, 6),
	PN(first_epoch_extra_s, 5), PN(evals, 6), PN(eval_total_s, 5), PN(eval_first_s, 5), PN(eval_pass_s, 5),
	PN(boundary_s, 5), PN(train_img_s, 7), PN(blocks, 6), PT(accelerator),
};
#undef PT
#undef PN
enum { NCOLS = sizeof phase_cols / sizeof phase_cols[0] };

static void scopy(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Seconds between two ms timestamps when both are known and in order, else NAN. */
static double span_s(double a_ms, double b_ms)
{
	return isfinite(a_ms) && isfinite(b_ms) && b_ms >= a_ms ? (b_ms - a_ms) / 1000.0 : NAN;
}

void cal_phase_row_from_run(cal_phase_row *r, const cal_mllog_run *run, const char *source)
{
	const cal_mllog_phases *ph = &run->ph;
	double *num;

	memset(r, 0, sizeof *r);
	for (int i = 0; i < NCOLS; i++) {
		if (phase_cols[i].len)
			continue;
		num = (double *)((char *)r + phase_cols[i].off);
		*num = NAN;
	}
	scopy(r->source, sizeof r->source, source);
	scopy(r->platform, sizeof r->platform, run->platform);
	scopy(r->status, sizeof r->status, run->status);
	scopy(r->accelerator, sizeof r->accelerator, ph->accelerator);
	/* <submitter>/results/<system>/<benchmark>/result_N.txt, the MLPerf results layout */
	const char *res = strstr(source, "/results/");
	if (res) {
		const char *sub = res;
		while (sub > source && sub[-1] != '/' && sub[-1] != ':')
			sub--;
		const char *sys = res + 9, *end = strchr(sys, '/');
		size_t ns = (size_t)(res - sub), nsys = end ? (size_t)(end - sys) : strlen(sys);
		if (ns < sizeof r->submitter && nsys < sizeof r->system) {
			memcpy(r->submitter, sub, ns);
			memcpy(r->system, sys, nsys);
		}
	}
	if (ph->nodes > 0)
		r->nodes = ph->nodes;
	if (ph->gpus_per_node > 0)
		r->gpus_per_node = ph->gpus_per_node;
	r->gpus = r->nodes * r->gpus_per_node;
	r->global_batch = run->global_batch;
	r->train_samples = isfinite(run->train_samples) ? run->train_samples : MODEL_IMAGENET_TRAIN_IMAGES;
	r->eval_samples = ph->eval_samples;
	r->init_s = span_s(ph->init_start_ms, ph->init_stop_ms);
	r->init_to_run_s = span_s(ph->init_stop_ms, run->run_start_ms);
	r->run_s = span_s(run->run_start_ms, run->run_stop_ms);
	r->tta_s = span_s(ph->init_start_ms, run->run_stop_ms);
	r->epochs = ph->nepochs;
	r->epochs_to_target = run->epochs;
	r->lead_s = span_s(run->run_start_ms, ph->first_epoch_start_ms);
	r->first_epoch_s = ph->first_epoch_s;
	if (ph->nepochs >= 2) {
		r->warm_epoch_s = (ph->epoch_sum_s - ph->first_epoch_s) / (ph->nepochs - 1);
		r->first_epoch_extra_s = r->first_epoch_s - r->warm_epoch_s;
		if (r->warm_epoch_s > 0)
			r->train_img_s = r->train_samples / r->warm_epoch_s;
	}
	r->evals = ph->nevals;
	r->eval_total_s = ph->eval_sum_s;
	r->eval_first_s = ph->first_eval_s;
	if (ph->nevals >= 2)
		r->eval_pass_s = (ph->eval_sum_s - ph->first_eval_s) / (ph->nevals - 1);
	r->boundary_s = r->run_s - r->lead_s - ph->epoch_sum_s - ph->eval_sum_s;
	r->blocks = ph->nblocks;
}

/* ---- writing ---- */

static void row_write(csvw *w, const cal_phase_row *r)
{
	for (int i = 0; i < NCOLS; i++) {
		const char *f = (const char *)r + phase_cols[i].off;
		if (phase_cols[i].len)
			csvw_text(w, f);
		else
			csvw_num(w, *(const double *)f, phase_cols[i].digits); /* NAN is written empty */
	}
	csvw_end_row(w);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends the regular files under dir (recursively) to *names, as paths. Unreadable subdirectories are
 * skipped; a top directory that cannot be opened is dir_open's error (ERR_INPUT when missing or a file). */
static int list_files(const char *dir, char ***names, int *n, int *cap, int depth)
{
	DIR *dh;
	struct dirent *e;
	int rc = dir_open(dir, &dh);
	if (rc)
		return depth == 0 ? rc : (err_clear(), 0);
	while ((e = readdir(dh))) {
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) && depth < 8) {
			list_files(path, names, n, cap, depth + 1);
			free(path);
		} else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (*n == *cap) {
				*cap = *cap ? 2 * *cap : 64;
				*names = xrealloc(*names, (size_t)*cap * sizeof **names);
			}
			(*names)[(*n)++] = path;
		} else {
			free(path);
		}
	}
	closedir(dh);
	return 0;
}

/* A log without a :::SYSJSON line: nodes and GPUs from DIR/<submitter>/systems/<system>.json when that
 * file is there (the MLPerf results layout). A malformed one is reported (fatal when strict). */
static int sysjson_file(cal_phase_row *r, const char *dir, bool strict, FILE *errs)
{
	char *path = xasprintf("%s/%s/systems/%s.json", dir, r->submitter, r->system), *buf;
	size_t len;
	cal_mllog_phases ph = {0};
	int rc = 0;

	if (file_read_all(path, &buf, &len) < 0) {
		err_clear();
		free(path);
		return 0;
	}
	if (cal_mllog_sysjson_parse(&ph, buf, len) < 0) {
		if (errs)
			fprintf(errs, "%s: %s\n", path, err_msg());
		if (strict)
			rc = err_set("%s: malformed system description (--strict)", path);
	} else if (ph.nodes > 0 && ph.gpus_per_node > 0) {
		scopy(r->accelerator, sizeof r->accelerator, ph.accelerator);
		r->nodes = ph.nodes;
		r->gpus_per_node = ph.gpus_per_node;
		r->gpus = r->nodes * r->gpus_per_node;
	}
	free(buf);
	free(path);
	return rc;
}

int cal_phases_write_dir(const char *dir, const char *source_prefix, const char *out, double target_top1,
			 bool strict, FILE *errs, int *nrows)
{
	char **names = NULL;
	int n = 0, cap = 0, rc;
	size_t dlen = strlen(dir);
	csvw *w = NULL;

	*nrows = 0;
	if ((rc = list_files(dir, &names, &n, &cap, 0)) < 0)
		goto out;
	if (n > 1)
		qsort(names, (size_t)n, sizeof *names, cmp_str);
	if ((rc = csvw_create(out, &w)) < 0)
		goto out;
	for (int i = 0; i < NCOLS; i++)
		csvw_text(w, phase_cols[i].name);
	csvw_end_row(w);
	intr_phase("compute");
	for (int i = 0; i < n; i++) {
		char *buf;
		size_t blen;
		if (intr_pending()) { /* hundreds of logs: a signal stops the scan, the table is not written */
			rc = intr_err(out);
			goto out;
		}
		if (file_read_all(names[i], &buf, &blen) < 0)
			continue;
		if (!memmem(buf, blen, ":::MLLOG", 8)) {
			free(buf);
			continue;
		}
		cal_mllog_run run;
		rc = cal_mllog_parse_buf(&run, names[i], buf, blen, target_top1, strict, errs);
		free(buf);
		if (rc == 0) {
			const char *rel = names[i] + dlen + (names[i][dlen] == '/');
			char *src = xasprintf("%s%s", source_prefix ? source_prefix : "", rel);
			cal_phase_row r;
			cal_phase_row_from_run(&r, &run, src);
			if (!isfinite(r.nodes) && r.submitter[0] && (rc = sysjson_file(&r, dir, strict, errs)) < 0) {
				free(src);
				cal_mllog_run_free(&run);
				goto out;
			}
			row_write(w, &r);
			(*nrows)++;
			free(src);
		}
		cal_mllog_run_free(&run);
		if (rc < 0)
			goto out;
	}
	if (*nrows == 0) {
		rc = err_set("%s: no MLLOG log found", dir);
		goto out;
	}
	rc = csvw_close(w);
	w = NULL;
out:
	csvw_abort(w);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* ---- reading ---- */

int cal_phases_read_buf(const char *name, const char *buf, size_t len_B, cal_phase_row **rows, int *n)
{
	csv_table t;
	int col[NCOLS], rc;

	*rows = NULL;
	*n = 0;
	if ((rc = csv_table_parse(&t, name, buf, len_B)) < 0)
		return rc;
	for (int i = 0; i < NCOLS; i++) {
		col[i] = csv_table_col(&t, phase_cols[i].name);
		if (col[i] < 0) {   /* every column is required */
			rc = err_set("%s:1: phase table without column '%s'", name, phase_cols[i].name);
			goto fail;
		}
	}
	*rows = xmalloc((size_t)(t.nrows ? t.nrows : 1) * sizeof **rows);
	for (int r = 0; r < t.nrows; r++) {
		cal_phase_row *p = &(*rows)[r];
		memset(p, 0, sizeof *p);
		for (int i = 0; i < NCOLS; i++) {
			char *f = (char *)p + phase_cols[i].off;
			const char *c = t.cells[r][col[i]];
			if (phase_cols[i].len) {
				scopy(f, phase_cols[i].len, c);
			} else if (c[0] == '\0') {
				*(double *)f = NAN;
			} else if ((rc = csv_cell_double(&t, r, col[i], (double *)f)) < 0) {
				goto fail;
			}
		}
		(*n)++;
	}
	csv_table_free(&t);
	return 0;
fail:
	free(*rows);
	*rows = NULL;
	*n = 0;
	csv_table_free(&t);
	return rc;
}

int cal_phases_builtin(cal_phase_row **rows, int *n)
{
	for (int i = 0; i < cal_refdata_count; i++) {
		if (strcmp(cal_refdata[i].name, "mlperf_v4_0_phases.csv") == 0) {
			char *name = xasprintf("refdata/%s", cal_refdata[i].name);
			int rc = cal_phases_read_buf(name, (const char *)cal_refdata[i].data, cal_refdata[i].len_B, rows, n);
			free(name);
			return rc;
		}
	}
	*rows = NULL;
	*n = 0;
	return err_set("refdata/mlperf_v4_0_phases.csv is not built into this binary");
}

int cal_one_gpu_runs(csv_table *t)
{
	static const char *const cols[] = { "stack", "system", "precision", "batch_per_gpu", "data", "img_s", "source" };
	for (int i = 0; i < cal_refdata_count; i++) {
		if (strcmp(cal_refdata[i].name, "one_gpu_runs.csv") != 0)
			continue;
		int rc = csv_table_parse(t, "refdata/one_gpu_runs.csv", (const char *)cal_refdata[i].data,
					 cal_refdata[i].len_B);
		for (int c = 0; rc == 0 && c < 7; c++)
			if (t->ncols != 7 || strcmp(t->header[c], cols[c]) != 0)
				rc = err_set("refdata/one_gpu_runs.csv:1: columns must be stack,system,precision,batch_per_gpu,"
					     "data,img_s,source");
		if (rc)
			csv_table_free(t);
		return rc;
	}
	return err_set("refdata/one_gpu_runs.csv is not built into this binary");
}

/* ---- fitting the run-level terms (cal.h: cal_phase_fit) ---- */

void cal_phase_org(const char *submitter, char *out, size_t cap)
{
	size_t k = strcspn(submitter, "-");
	if (k >= cap)
		k = cap - 1;
	memcpy(out, submitter, k);
	out[k] = '\0';
}

/* A run the fits may use: neither of the organisations ex1, ex2 (NULL or "": none). */
static bool fit_usable(const cal_phase_row *r, const char *ex1, const char *ex2)
{
	char org[64];
	cal_phase_org(r->submitter, org, sizeof org);
	return strcmp(r->status, "success") == 0 && r->blocks > 0 && r->nodes >= 1 && r->gpus >= 1 &&
	       r->run_s > 0 && r->train_img_s > 0 && r->global_batch > 0 && r->epochs >= 2 &&
	       !(ex1 && ex1[0] && strcmp(org, ex1) == 0) && !(ex2 && ex2[0] && strcmp(org, ex2) == 0);
}

/* y = c0 + c1 x by weighted least squares (weights w); a negative c0 (no physical meaning: a time) is
 * refitted as c0 = 0, y = c1 x. slope false: y = c0 alone. ERR_INPUT with fewer than 3 points (2 without a
 * slope) or when GSL fails. */
static int fit_wline(const double *x, const double *y, const double *w, int n, bool slope, const char *what,
		     double *c0, double *c1)
{
	double *one = xmalloc((size_t)(n ? n : 1) * sizeof *one), cov00, cov01, cov11, chisq;
	int rc = 0;
	for (int i = 0; i < n; i++)
		one[i] = 1.0;
	*c0 = *c1 = 0;
	if (!slope) {
		if (n < 2 || gsl_fit_wmul(one, 1, w, 1, y, 1, (size_t)n, c0, &cov00, &chisq) != 0)
			rc = err_set("phase fit: %s: %d runs, cannot fit", what, n);
	} else if (n < 3 || gsl_fit_wlinear(x, 1, w, 1, y, 1, (size_t)n, c0, c1, &cov00, &cov01, &cov11, &chisq) != 0) {
		rc = err_set("phase fit: %s: %d runs, cannot fit", what, n);
	} else if (*c0 < 0) {
		*c0 = 0;
		if (gsl_fit_wmul(x, 1, w, 1, y, 1, (size_t)n, c1, &cov11, &chisq) != 0)
			rc = err_set("phase fit: %s: %d runs, cannot fit", what, n);
	}
	free(one);
	return rc;
}

/* fit_wline on relative residuals (weights 1/y^2); mape gets the in-sample mean |pred/meas - 1|. */
static int fit_rel_line(const double *x, const double *y, int n, bool slope, const char *what, double *c0,
			double *c1, double *mape)
{
	double *w = xmalloc((size_t)(n ? n : 1) * sizeof *w), e = 0;
	for (int i = 0; i < n; i++)
		w[i] = 1.0 / (y[i] * y[i]);
	int rc = fit_wline(x, y, w, n, slope, what, c0, c1);
	for (int i = 0; rc == 0 && i < n; i++)
		e += fabs((*c0 + *c1 * x[i]) / y[i] - 1);
	*mape = n ? e / n : NAN;
	free(w);
	return rc;
}

/* ---- start-up: init_start..run_start against a function of the node count ---- */

static const char *const startup_form_names[CAL_STARTUP_NFORMS] = {"a", "a + b log2(nodes)", "a + b sqrt(nodes)",
								    "a + b nodes"};

static double startup_x(int form, double nodes)
{
	switch (form) {
	case CAL_STARTUP_LOG2: return log2(nodes);
	case CAL_STARTUP_SQRT: return sqrt(nodes);
	case CAL_STARTUP_LINEAR: return nodes;
	default: return 0.0;
	}
}

static bool startup_row(const cal_phase_row *r)
{
	return r->init_s > 0 && isfinite(r->init_to_run_s);
}

/* The mean start-up of the runs of r's submitter, GPU and node size (usable without ex1, ex2) at the fewest
 * nodes below r's, that node count into *nodes0; NAN when there are none. */
static double base_startup_s(const cal_phase_row *rows, int n, const cal_phase_row *r, const char *ex1,
			     const char *ex2, double *nodes0)
{
	double s = 0;
	int k = 0;
	*nodes0 = r->nodes;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++) {
			const cal_phase_row *a = &rows[i];
			if (!fit_usable(a, ex1, ex2) || !startup_row(a) || !(a->nodes < r->nodes) ||
			    a->gpus_per_node != r->gpus_per_node || strcmp(a->submitter, r->submitter) != 0 ||
			    strcmp(a->accelerator, r->accelerator) != 0)
				continue;
			if (pass == 0)
				*nodes0 = fmin(*nodes0, a->nodes);
			else if (a->nodes == *nodes0)
				s += a->init_s + a->init_to_run_s, k++;
		}
	return k ? s / k : NAN;
}

/* Whether run i's log is filed under another submitter's name too (v4.0 files the same 8-node runs under smc,
 * smc-ac-power and smc-dc-power, whose single-node runs differ by 18 s): same system, nodes, start-up and
 * scored time. Such a run has no one single-node partner. */
static bool run_repeated(const cal_phase_row *rows, int n, int i, const char *ex1, const char *ex2)
{
	const cal_phase_row *r = &rows[i];
	for (int j = 0; j < n; j++) {
		const cal_phase_row *q = &rows[j];
		if (j != i && fit_usable(q, ex1, ex2) && strcmp(q->submitter, r->submitter) != 0 && q->nodes == r->nodes && q->init_s == r->init_s && q->run_s == r->run_s &&
		    strcmp(q->system, r->system) == 0)
			return true;
	}
	return false;
}

/* The slope b of start-up = a + b g(nodes) from how each system's own start-up grows: every multi-node run
 * against the mean of its submitter's runs at the fewest nodes (same GPU and node size; base_startup_s),
 * d = s_n - s_0 against g(n) - g(n_0), least squares through the origin on residuals relative to s_n (a log filed under several
 * submitters left out: run_repeated). What differs between
 * submitters at one node (20-73 s in v4.0: their software and file systems) cancels in d; only the growth is
 * left. b >= 0 (a start-up that shrinks with more nodes has no mechanism); *sse: the weighted squared residuals
 * of the pairs. Returns the pairs used (0: none). */
static int startup_pair_slope(const cal_phase_row *rows, int n, const char *ex1, const char *ex2, int form, double *b,
			      double *sse)
{
	double sxy = 0, sxx = 0, syy = 0;
	int pairs = 0;
	for (int i = 0; i < n; i++) {
		const cal_phase_row *r = &rows[i];
		if (!fit_usable(r, ex1, ex2) || !startup_row(r) || !(r->nodes > 1) || run_repeated(rows, n, i, ex1, ex2))
			continue;
		double n0, s1 = base_startup_s(rows, n, r, ex1, ex2, &n0), s = r->init_s + r->init_to_run_s;
		if (!isfinite(s1))
			continue;
		double x = startup_x(form, r->nodes) - startup_x(form, n0), w = 1.0 / (s * s);
		sxy += w * x * (s - s1), sxx += w * x * x, syy += w * (s - s1) * (s - s1), pairs++;
	}
	*b = pairs && sxx > 0 ? fmax(0.0, sxy / sxx) : 0.0;
	*sse = syy - 2 * *b * sxy + *b * *b * sxx; /* sum of w (d - b x)^2 */
	return pairs;
}

/* Fits start-up form `form` to the usable runs; x, y: scratch of n. The slope of a form that grows with the
 * nodes comes from the systems run at two node counts (startup_pair_slope; without such pairs from every run,
 * relative least squares). The fixed part a is the geometric mean of every run's start-up less the growth: a
 * start-up's error is a factor (20-73 s between submitters at one node), and relative least squares would put
 * a near the fastest starters (the harmonic side: 34 s where the systems' median is 45 s). */
static int startup_fit(const cal_phase_row *rows, int n, const char *ex1, const char *ex2, int form, double *x,
		       double *y, double *a, double *b, double *mape, int *m)
{
	double sse, lsum = 0, e = 0;
	int k = 0;
	*m = 0;
	for (int i = 0; i < n; i++) {
		if (!fit_usable(&rows[i], ex1, ex2) || !startup_row(&rows[i]))
			continue;
		x[*m] = startup_x(form, rows[i].nodes);
		y[(*m)++] = rows[i].init_s + rows[i].init_to_run_s;
	}
	*b = 0;
	if (form != CAL_STARTUP_CONST && startup_pair_slope(rows, n, ex1, ex2, form, b, &sse) == 0) {
		int rc = fit_rel_line(x, y, *m, true, "start-up", a, b, mape);
		if (rc < 0)
			return rc;
	} else if (*m < 2) {
		return err_set("phase fit: start-up: %d runs, cannot fit", *m);
	}
	for (int i = 0; i < *m; i++)
		if (y[i] - *b * x[i] > 0)
			lsum += log(y[i] - *b * x[i]), k++;
	if (k == 0)
		return err_set("phase fit: start-up: no run above the growth");
	*a = exp(lsum / k);
	for (int i = 0; i < *m; i++)
		e += fabs((*a + *b * x[i]) / y[i] - 1);
	*mape = e / *m;
	return 0;
}

/* ---- warm-up: lead-in (run_start..first epoch + the first evaluation's extra) + the first epoch's extra ---- */

/* The lead-in of one run, its step time and scored time, or false when the row has none. */
static bool lead_row(const cal_phase_row *r, double *lead, double *step, double *run)
{
	*lead = r->lead_s + (r->eval_first_s - r->eval_pass_s);
	*step = r->global_batch / r->train_img_s;
	*run = r->run_s;
	return isfinite(*lead) && *step > 0;
}

/* Fits lead-in form `form` (CAL_LEAD_*) to the usable runs, least squares on residuals relative to the
 * run's scored time (as ttt_s weighs them); buf: scratch of 3 n. mae: in-sample mean |err| / run_s. */
static int lead_fit(const cal_phase_row *rows, int n, const char *ex1, const char *ex2, int form, double *buf,
		    double *a, double *k, double *mae)
{
	double *x = buf, *y = buf + n, *w = buf + 2 * n, run;
	int m = 0;
	for (int i = 0; i < n; i++)
		if (fit_usable(&rows[i], ex1, ex2) && lead_row(&rows[i], &y[m], &x[m], &run))
			w[m++] = 1.0 / (run * run);
	int rc = fit_wline(x, y, w, m, form == CAL_LEAD_STEPS, "lead-in", a, k);
	*mae = 0;
	for (int i = 0; rc == 0 && i < m; i++)
		*mae += fabs(*a + *k * x[i] - y[i]) * sqrt(w[i]) / m;
	return rc;
}

typedef struct cold_ctx {
	const double *nodes, *warm_epoch_s, *extra_s, *run_s;
	int n;
	double dataset_B, node_exp;
} cold_ctx;

/* First-epoch extra residuals relative to the run's scored time: u = (log cold_read_Bps). */
static int cold_resid(const double *u, double *r, void *vctx)
{
	const cold_ctx *c = vctx;
	double R = exp(u[0]);
	for (int i = 0; i < c->n; i++)
		r[i] = (fmax(0.0, c->dataset_B / (pow(c->nodes[i], c->node_exp) * R) - c->warm_epoch_s[i]) -
			c->extra_s[i]) / c->run_s[i];
	return 0;
}

/* ---- the cold read's node exponent: one system's first epoch at 1 and at n nodes ---- */

/* The mean first epoch of the single-node runs that r's submitter ran with r's GPU and node size (the
 * anchor `validate` predicts r from), or NAN when there are none. */
static double single_node_first_s(const cal_phase_row *rows, int n, const cal_phase_row *r)
{
	double s = 0;
	int k = 0;
	for (int i = 0; i < n; i++) {
		const cal_phase_row *a = &rows[i];
		if (fit_usable(a, NULL, NULL) && a->nodes == 1 && a->first_epoch_s > 0 && a->gpus_per_node == r->gpus_per_node &&
		    strcmp(a->submitter, r->submitter) == 0 && strcmp(a->accelerator, r->accelerator) == 0)
			s += a->first_epoch_s, k++;
	}
	return k ? s / k : NAN;
}

/* Fits cold_read_node_exp e: a multi-node run's first epoch reads what its single-node runs read in their
 * whole first epoch (first_1), n^e times faster, overlapped with its warm epoch; residuals
 * (max(0, first_1 / n^e - warm) - extra) / run_s, least squares over e in [0, 1] on a 0.001 grid (one
 * dimension, a sum piecewise smooth in e: the grid needs no start point). buf: scratch of 5 n.
 * Sets f->cold_read_node_exp (1: each node its share at its own rate, when there is no pair) and f->cold_pairs. */
static void node_exp_fit(const cal_phase_row *rows, int n, const char *ex, double *buf, cal_phase_fit *f)
{
	double *nodes = buf, *first1 = buf + n, *warm = buf + 2 * n, *extra = buf + 3 * n, *run = buf + 4 * n;
	int m = 0;
	for (int i = 0; i < n; i++) {
		const cal_phase_row *r = &rows[i];
		if (!fit_usable(r, ex, NULL) || !(r->nodes > 1) || !(r->warm_epoch_s > 0) || !isfinite(r->first_epoch_extra_s))
			continue;
		first1[m] = single_node_first_s(rows, n, r);
		if (!isfinite(first1[m]))
			continue;
		nodes[m] = r->nodes, warm[m] = r->warm_epoch_s, extra[m] = r->first_epoch_extra_s, run[m++] = r->run_s;
	}
	f->cold_pairs = m;
	f->cold_read_node_exp = 1.0;
	double best = INFINITY;
	for (int k = 0; m > 0 && k <= 1000; k++) {
		double e = k / 1000.0, sum = 0;
		for (int i = 0; i < m; i++) {
			double x = (fmax(0.0, first1[i] / pow(nodes[i], e) - warm[i]) - extra[i]) / run[i];
			sum += x * x;
		}
		if (sum < best)
			best = sum, f->cold_read_node_exp = e;
	}
}

/* ---- choosing a form: leave-one-organisation-out cross-validation (bench/NOTES.md, h7) ---- */

/* |error| of start-up form (a, b) on run r of a left-out organisation. A multi-node run whose system also ran
 * on fewer nodes is predicted as validate's whole-run group predicts it: anchored on those runs
 * (cal_phase_anchor: their mean plus the form's growth from their node count), so that the fold judges the growth with the nodes, not
 * the 20-73 s that submitters' start-up differs by at one node; other runs from the form alone. */
static double startup_cv_error(const cal_phase_row *rows, int n, const cal_phase_row *r, int form, double a, double b)
{
	double s = r->init_s + r->init_to_run_s, pred = a + b * startup_x(form, r->nodes);
	double n0, s1 = base_startup_s(rows, n, r, NULL, NULL, &n0);
	if (isfinite(s1))
		pred = s1 + b * (startup_x(form, r->nodes) - startup_x(form, n0));
	return fabs(pred / s - 1);
}

/* Pooled error on each organisation's runs of the form fitted without it; NAN when no fold could be fitted. */
static double cv_error(const cal_phase_row *rows, int n, const char *ex, bool startup, int form, double *buf)
{
	char (*orgs)[64] = xmalloc((size_t)(n ? n : 1) * sizeof *orgs);
	int norgs = 0, k = 0;
	double e = 0;
	for (int i = 0; i < n; i++) {
		char o[64];
		bool seen = false;
		if (!fit_usable(&rows[i], ex, NULL))
			continue;
		cal_phase_org(rows[i].submitter, o, sizeof o);
		for (int j = 0; j < norgs && !seen; j++)
			seen = strcmp(orgs[j], o) == 0;
		if (!seen)
			strcpy(orgs[norgs++], o);
	}
	for (int j = 0; norgs >= 2 && j < norgs; j++) {
		double a, b, mape, lead, step, run;
		int m;
		int rc = startup ? startup_fit(rows, n, ex, orgs[j], form, buf, buf + n, &a, &b, &mape, &m)
				 : lead_fit(rows, n, ex, orgs[j], form, buf, &a, &b, &mape);
		if (rc < 0) {
			err_clear();
			continue;
		}
		for (int i = 0; i < n; i++) {
			char o[64];
			const cal_phase_row *r = &rows[i];
			cal_phase_org(r->submitter, o, sizeof o);
			if (strcmp(o, orgs[j]) != 0 || !fit_usable(r, ex, NULL))
				continue;
			double x = startup ? (startup_row(r) ? startup_cv_error(rows, n, r, form, a, b) : NAN)
					   : (lead_row(r, &lead, &step, &run) ? fabs(a + b * step - lead) / run : NAN);
			if (isfinite(x))
				e += x, k++;
		}
	}
	free(orgs);
	return k ? e / k : NAN;
}

/* The form the rule keeps: the lowest error, a later (less simple) form only when lower by more than 1%.
 * cv: cross-validated errors (NAN: none); in: in-sample errors, used when no form has a cv error. */
static int choose_form(const double *cv, const double *in, int nforms)
{
	bool use_cv = false;
	for (int f = 0; f < nforms; f++)
		use_cv = use_cv || isfinite(cv[f]);
	const double *e = use_cv ? cv : in;
	int best = -1;
	for (int f = 0; f < nforms; f++)
		if (isfinite(e[f]) && (best < 0 || e[f] < 0.99 * e[best]))
			best = f;
	return best;
}

/* The growth with nodes is the launch and the communicator's bootstrap (NCCL's init exchanges every rank's
 * address and builds rings and trees); where systems ran at two node counts their own pairs measure it: the
 * growing form whose slope fits the pairs best, when they show growth (slope > 0); else -1 (no pair, or no
 * growth: cross-validation chooses). Cross-validation by organisation cannot judge the growth when one
 * organisation ran every large job (v4.0: NVIDIA, 8-448 nodes). in: in-sample errors (NAN: form not fitted). */
static int pair_form(const cal_phase_row *rows, int n, const char *ex, const double *in)
{
	int best = -1;
	double best_sse = INFINITY;
	for (int k = CAL_STARTUP_CONST + 1; k < CAL_STARTUP_NFORMS; k++) {
		double b, sse;
		if (startup_pair_slope(rows, n, ex, NULL, k, &b, &sse) > 0 && b > 0 && isfinite(in[k]) && sse < best_sse)
			best = k, best_sse = sse;
	}
	return best;
}

/* The start-up (init_start..run_start) against nodes, the form by cross-validation; buf holds 8 x n doubles. */
static int fit_startup(const cal_phase_row *rows, int n, const char *exclude_org, double *buf, cal_phase_fit *f)
{
	double *x = buf, *y = buf + n;
	double in[CAL_STARTUP_NFORMS], a[CAL_STARTUP_NFORMS], b[CAL_STARTUP_NFORMS];
	int m = 0;

	for (int k = 0; k < CAL_STARTUP_NFORMS; k++) {
		f->cv_startup[k] = cv_error(rows, n, exclude_org, true, k, buf);
		if (startup_fit(rows, n, exclude_org, NULL, k, x, y, &a[k], &b[k], &in[k], &m) < 0) {
			err_clear();
			in[k] = NAN;
		}
	}
	f->startup_form = pair_form(rows, n, exclude_org, in);
	if (f->startup_form < 0)
		f->startup_form = choose_form(f->cv_startup, in, CAL_STARTUP_NFORMS);
	if (f->startup_form < 0)
		return err_set("phase fit: start-up: %d runs, cannot fit", m);
	f->nruns = m;
	f->startup_s = a[f->startup_form];
	f->mape_startup = in[f->startup_form];
	switch (f->startup_form) {
	case CAL_STARTUP_LOG2: f->startup_per_log2_node_s = b[f->startup_form]; break;
	case CAL_STARTUP_SQRT: f->startup_per_sqrt_node_s = b[f->startup_form]; break;
	case CAL_STARTUP_LINEAR: f->startup_per_node_s = b[f->startup_form]; break;
	default: break;
	}
	return 0;
}

/* One evaluation pass (after the first) against eval images / training rate, and the epoch boundary's gaps
 * per epoch against the step time. */
static int fit_eval_boundary(const cal_phase_row *rows, int n, const char *exclude_org, double *buf, cal_phase_fit *f)
{
	double *x = buf, *y = buf + n;
	int m = 0, rc;

	for (int i = 0; i < n; i++) {
		const cal_phase_row *r = &rows[i];
		if (!fit_usable(r, exclude_org, NULL) || !(r->eval_pass_s > 0) || !(r->eval_samples > 0))
			continue;
		x[m] = r->eval_samples / r->train_img_s;
		y[m++] = r->eval_pass_s;
	}
	if ((rc = fit_rel_line(x, y, m, true, "evaluation", &f->eval_fixed_s, &f->eval_step_frac, &f->mape_eval)) < 0)
		return rc;
	m = 0;
	for (int i = 0; i < n; i++) {
		const cal_phase_row *r = &rows[i];
		if (!fit_usable(r, exclude_org, NULL) || !(r->boundary_s > 0))
			continue;
		x[m] = r->global_batch / r->train_img_s;
		y[m++] = r->boundary_s / r->epochs;
	}
	return fit_rel_line(x, y, m, true, "epoch boundary", &f->epoch_boundary_s, &f->epoch_boundary_iters,
			    &f->mape_boundary);
}

/* The warm-up's lead-in, the form by cross-validation. */
static int fit_lead(const cal_phase_row *rows, int n, const char *exclude_org, double *buf, cal_phase_fit *f)
{
	double inw[CAL_LEAD_NFORMS], la[CAL_LEAD_NFORMS], lk[CAL_LEAD_NFORMS];

	for (int k = 0; k < CAL_LEAD_NFORMS; k++) {
		f->cv_warmup[k] = cv_error(rows, n, exclude_org, false, k, buf);
		if (lead_fit(rows, n, exclude_org, NULL, k, buf, &la[k], &lk[k], &inw[k]) < 0) {
			err_clear();
			inw[k] = NAN;
		}
	}
	f->lead_form = choose_form(f->cv_warmup, inw, CAL_LEAD_NFORMS);
	if (f->lead_form < 0)
		return err_set("phase fit: lead-in: too few runs");
	f->run_lead_s = la[f->lead_form];
	f->run_lead_steps = lk[f->lead_form];
	return 0;
}

/* The first epoch's extra: a cold read of the data set by the nodes together at cold_read_Bps x nodes^e, e from
 * how one system's first epoch shrinks with its nodes; then the warm-up's error over those runs. */
static int fit_cold_read(const cal_phase_row *rows, int n, const char *exclude_org, double dataset_B, double *buf,
			 cal_phase_fit *f)
{
	node_exp_fit(rows, n, exclude_org, buf, f);
	double *nodes = buf, *warm = buf + n, *extra = buf + 2 * n, *run = buf + 3 * n, *lead = buf + 4 * n;
	double *step = buf + 5 * n, u[1] = {log(3e9)};
	int m = 0;
	for (int i = 0; i < n; i++) {
		const cal_phase_row *r = &rows[i];
		if (!fit_usable(r, exclude_org, NULL) || !lead_row(r, &lead[m], &step[m], &run[m]) ||
		    !isfinite(r->first_epoch_extra_s) || !(r->warm_epoch_s > 0))
			continue;
		nodes[m] = r->nodes, warm[m] = r->warm_epoch_s, extra[m++] = r->first_epoch_extra_s;
	}
	cold_ctx c = {.nodes = nodes, .warm_epoch_s = warm, .extra_s = extra, .run_s = run, .n = m,
		      .dataset_B = dataset_B, .node_exp = f->cold_read_node_exp};
	cal_lsq lsq = {.np = 1, .n = m, .u = u, .f = cold_resid, .ctx = &c};
	cal_lsq_result res;
	if (m < 2 || cal_lsq_solve(&lsq, &res) < 0 || !res.converged)
		return err_set("phase fit: first epoch's cold read: %d runs, the fit did not converge", m);
	f->cold_read_Bps = exp(u[0]);
	double e = 0, r;
	for (int i = 0; i < m; i++) {
		cold_ctx one = c;
		one.nodes += i, one.warm_epoch_s += i, one.extra_s += i, one.run_s += i, one.n = 1;
		cold_resid(u, &r, &one);
		e += fabs(r * run[i] + f->run_lead_s + f->run_lead_steps * step[i] - lead[i]) / run[i];
	}
	f->mae_warmup_run = m ? e / m : NAN;
	return 0;
}

int cal_phase_fit_rows(const cal_phase_row *rows, int n, const char *exclude_org, double dataset_B, cal_phase_fit *f)
{
	double *buf = xmalloc((size_t)(n ? n : 1) * 8 * sizeof *buf);
	int rc;

	memset(f, 0, sizeof *f);
	if ((rc = fit_startup(rows, n, exclude_org, buf, f)) >= 0 &&
	    (rc = fit_eval_boundary(rows, n, exclude_org, buf, f)) >= 0 &&
	    (rc = fit_lead(rows, n, exclude_org, buf, f)) >= 0)
		rc = fit_cold_read(rows, n, exclude_org, dataset_B, buf, f);
	free(buf);
	return rc < 0 ? rc : 0;
}

/* ---- anchoring on one system's own runs (cal.h) ---- */

/* The mean of the anchor runs' start-up, lead-in (with their step time) and first/warm epoch; each mean over
 * the runs that have that quantity. */
typedef struct anchor_means {
	int n, nstart, nlead, nepoch;
	double nodes, startup_s, lead_s, step_s, first_s, warm_s;
} anchor_means;

static int anchor_collect(const cal_phase_row *rows, int n, const char *submitter, const char *system,
			  anchor_means *a)
{
	memset(a, 0, sizeof *a);
	for (int i = 0; i < n; i++) {
		const cal_phase_row *r = &rows[i];
		double lead, step, run;
		if (!fit_usable(r, NULL, NULL) || (submitter && strcmp(r->submitter, submitter) != 0) ||
		    (system && strcmp(r->system, system) != 0))
			continue;
		if (a->n++ == 0)
			a->nodes = r->nodes;
		else if (r->nodes != a->nodes)
			return err_set("phase anchor: runs at %g and %g nodes (%s): expected one system at one node count",
				       a->nodes, r->nodes, r->source[0] ? r->source : r->system);
		if (startup_row(r))
			a->startup_s += r->init_s + r->init_to_run_s, a->nstart++;
		if (lead_row(r, &lead, &step, &run) && lead > 0)
			a->lead_s += lead, a->step_s += step, a->nlead++;
		if (r->first_epoch_s > 0 && r->warm_epoch_s > 0)
			a->first_s += r->first_epoch_s, a->warm_s += r->warm_epoch_s, a->nepoch++;
	}
	if (a->n == 0)
		return err_set("phase anchor: no usable run%s%s%s%s (status success, epochs in blocks)",
			       submitter ? " of " : "", submitter ? submitter : "", system ? "/" : "", system ? system : "");
	a->startup_s /= a->nstart ? a->nstart : 1;
	a->lead_s /= a->nlead ? a->nlead : 1, a->step_s /= a->nlead ? a->nlead : 1;
	a->first_s /= a->nepoch ? a->nepoch : 1, a->warm_s /= a->nepoch ? a->nepoch : 1;
	return 0;
}

int cal_phase_anchor(cal_phase_fit *f, const cal_phase_row *rows, int n, const char *submitter, const char *system,
		     double dataset_B)
{
	anchor_means a;
	int rc = anchor_collect(rows, n, submitter, system, &a);
	if (rc < 0)
		return rc;
	f->anchor_runs = a.n, f->anchor_nodes = a.nodes;
	f->anchor_startup_x = f->anchor_lead_x = 1;
	double s = f->startup_s + f->startup_per_log2_node_s * log2(a.nodes) + f->startup_per_sqrt_node_s * sqrt(a.nodes) +
		   f->startup_per_node_s * a.nodes;
	if (a.nstart && s > 0) {
		/* the fixed part moves (a system's software and file system), the growth with nodes stays: the slope
		 * is fitted on how each system's own start-up grows (startup_pair_slope) */
		f->anchor_startup_x = a.startup_s / s;
		f->startup_s = fmax(0.0, f->startup_s + a.startup_s - s);
	}
	double l = f->run_lead_s + f->run_lead_steps * a.step_s;
	if (a.nlead && l > 0) {
		double x = a.lead_s / l;
		f->run_lead_s *= x, f->run_lead_steps *= x;
		f->anchor_lead_x = x;
	}
	if (a.nepoch) {
		/* max(0, D / (nodes^e R) - warm) = first - warm  =>  R = D / (nodes^e first), when the extra is real;
		 * e as fitted (1 for a fit without pairs: cold_pairs 0) */
		double e = f->cold_pairs > 0 ? f->cold_read_node_exp : 1.0;
		double r = dataset_B / (pow(a.nodes, e) * a.first_s);
		f->cold_read_Bps = a.first_s - a.warm_s > 0.05 * a.warm_s ? r : fmax(f->cold_read_Bps, r);
	}
	return 0;
}

const char *cal_startup_form_name(int form)
{
	return form >= 0 && form < CAL_STARTUP_NFORMS ? startup_form_names[form] : "?";
}

void cal_phase_fit_apply(const cal_phase_fit *f, model_params *p)
{
	p->startup_s = f->startup_s;
	p->startup_per_log2_node_s = f->startup_per_log2_node_s;
	p->startup_per_sqrt_node_s = f->startup_per_sqrt_node_s;
	p->startup_per_node_s = f->startup_per_node_s;
	p->run_lead_s = f->run_lead_s;
	p->run_lead_steps = f->run_lead_steps;
	p->cold_read_Bps = f->cold_read_Bps;
	p->cold_read_node_exp = f->cold_pairs > 0 ? f->cold_read_node_exp : 1.0;
	p->eval_fixed_s = f->eval_fixed_s;
	p->eval_step_frac = f->eval_step_frac;
	p->epoch_boundary_s = f->epoch_boundary_s;
	p->epoch_boundary_iters = f->epoch_boundary_iters;
}

/* Whether an earlier row holds run i's log under another submitter's name (run_repeated's test): one run is
 * one residual, however many names it is filed under. */
static bool repeated_before(const cal_phase_row *rows, int i)
{
	const cal_phase_row *r = &rows[i];
	for (int j = 0; j < i; j++)
		if (strcmp(rows[j].submitter, r->submitter) != 0 && rows[j].nodes == r->nodes &&
		    rows[j].init_s == r->init_s && rows[j].run_s == r->run_s && strcmp(rows[j].system, r->system) == 0)
			return true;
	return false;
}

int cal_phase_startup_heldout(const cal_phase_row *rows, int n, double dataset_B, double *nodes, double *measured,
			      double *predicted, int max)
{
	int k = 0;
	char last[64] = "";
	model_params p; /* the fit without `last` (rows come grouped by submitter: a fit per organisation) */
	for (int i = 0; i < n && k < max; i++) {
		const cal_phase_row *r = &rows[i];
		bool seen = false;
		if (!fit_usable(r, NULL, NULL) || !startup_row(r) || repeated_before(rows, i))
			continue;
		for (int j = 0; j < i && !seen; j++)
			seen = fit_usable(&rows[j], NULL, NULL) && startup_row(&rows[j]) &&
			       strcmp(rows[j].submitter, r->submitter) == 0 && strcmp(rows[j].system, r->system) == 0;
		if (seen)
			continue;
		double s = 0;
		int m = 0;
		for (int j = i; j < n; j++)
			if (fit_usable(&rows[j], NULL, NULL) && startup_row(&rows[j]) &&
			    strcmp(rows[j].submitter, r->submitter) == 0 && strcmp(rows[j].system, r->system) == 0)
				s += rows[j].init_s + rows[j].init_to_run_s, m++;
		char org[64];
		cal_phase_org(r->submitter, org, sizeof org);
		if (strcmp(org, last) != 0) {
			cal_phase_fit f;
			if (cal_phase_fit_rows(rows, n, org, dataset_B, &f) < 0)
				return err_prefix("start-up without %s", org);
			model_params_default(&p);
			cal_phase_fit_apply(&f, &p);
			snprintf(last, sizeof last, "%s", org);
		}
		nodes[k] = r->nodes, measured[k] = s / m, predicted[k++] = model_startup_s(&p, r->nodes);
	}
	return k;
}
