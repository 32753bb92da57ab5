/* calibrate/cal_profile.c - the profile CSV: fitted parameters with standard errors and the rows they
 * came from, readable by model_params_load (predict --profile) and by cal_pset_load (validate --profile).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "calibrate/cal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/cal_internal.h"
#include "common/common.h"
#include "hwdb/hw.h"
#include "model/model.h"

/* Appends one RFC 4180 cell (quoted when needed; formula-starting text gets a leading apostrophe). */
static void put_text(FILE *f, const char *s, bool first)
{
	if (!first)
		fputc(',', f);
	bool quote = strpbrk(s, ",\"\r\n") != NULL;
	bool formula = s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r';
	if (quote)
		fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (const char *c = s; *c; c++) {
		if (*c == '"')
			fputc('"', f);
		fputc(*c, f);
	}
	if (quote)
		fputc('"', f);
}

static void put_num(FILE *f, double v)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, "%.8g", v);
}

/* The model's range check (model_params_set) for the rows predict reads: a value outside a parameter's
 * documented range would make `predict --profile` reject the whole file, so such a row is left out (the
 * '#cal' line keeps it) and said on the log. */
static bool model_accepts(const char *name, double value, FILE *log, const char *scope)
{
	model_params mp;
	model_params_default(&mp);
	if (model_params_set(&mp, name, value) == 0)
		return true;
	if (log)
		fprintf(log, "calibrate: %s = %g [%s] is outside the model's range (%s); left out of predict's rows\n", name,
			value, scope, err_msg());
	return false;
}

static void put_row(FILE *f, const char *prefix, const char *name, double value, double se, const char *unit,
		    const char *status, const char *scope, const char *rows, FILE *log)
{
	if (!prefix && !model_accepts(name, value, log, scope))
		return;
	if (prefix)
		fputs(prefix, f); /* "#cal," ends with the separator: the name is the next cell */
	put_text(f, name, true);
	put_num(f, value);
	put_num(f, se);
	put_text(f, unit, false);
	put_text(f, status, false);
	put_text(f, scope, false);
	put_text(f, rows, false);
	fputc('\n', f);
}

/* The model's name for a link level's parameters, and the link bandwidth bw_eff_* is relative to
 * (NAN when the database does not describe it). */
static const char *level_name(const char *transport)
{
	if (strcmp(transport, "nvlink") == 0)
		return "nvlink";
	if (strcmp(transport, "pcie") == 0 || strcmp(transport, "shm") == 0)
		return "pcie";
	return "net";
}

/* The link a level's busbw is relative to in the model: the node plan_resolve builds for the machine's
 * system (whole nodes; two of them for the network), as `predict --profile` will use bw_eff_* on it.
 * A transport the system does not have (host memory, sockets on one host, PCIe on an NVLink node) has
 * none. */
static double level_bw(const hw_db *db, const char *machine, const char *transport)
{
	model_params mp;
	model_node n;
	const char *level = level_name(transport);
	bool net = strcmp(level, "net") == 0;
	model_params_default(&mp);
	if (!cal_system_node(db, &mp, machine, 0, net ? 2 : 1, &n))
		return NAN;
	if (net)
		return strcmp(transport, "ib") == 0 && n.nic_Bps > 0 && n.nics_per_node > 0 ? n.nic_Bps * n.nics_per_node : NAN;
	if (strcmp(transport, "shm") == 0 || n.intra_nvlink != (strcmp(level, "nvlink") == 0))
		return NAN;
	return n.intra_bw_Bps > 0 ? n.intra_bw_Bps : NAN;
}

static bool usable(const cal_param *p)
{
	return (p->status == CAL_FITTED || p->status == CAL_EXACT) && isfinite(p->value);
}

/* The fitted compute_eff (the model's stack compute efficiency) as predict's row, where one machine, GPU,
 * precision and stack was fitted: `predict --profile` then divides the compute time by exactly that value,
 * whatever stack it is asked about. Fits of several such scopes stay on the '#cal' lines (validate
 * --profile reads them per scope) and predict keeps each stack's own compute_eff (hwdb stacks.csv). */
static void compute_eff_row(FILE *f, const cal_pset *ps, FILE *log)
{
	const cal_param *one = NULL;
	int n = 0;
	for (int i = 0; i < ps->n; i++)
		if (strcmp(ps->p[i].name, "compute_eff") == 0 && usable(&ps->p[i])) {
			one = &ps->p[i];
			n++;
		}
	if (n == 1)
		put_row(f, NULL, one->name, one->value, one->se, one->unit, cal_pstatus_name(one->status), one->scope,
			one->rows, log);
	else if (n > 1 && log)
		fprintf(log, "calibrate: compute_eff fitted in %d scopes; kept on the '#cal' lines only (predict --profile "
			"uses each stack's compute_eff from the database)\n", n);
}

/* A parameter the model reads under its own name: its row, and a note where it was fitted in several scopes. */
static void put_same_row(FILE *f, const cal_pset *ps, int i, FILE *log)
{
	const cal_param *p = &ps->p[i];
	put_row(f, NULL, p->name, p->value, p->se, p->unit, cal_pstatus_name(p->status), p->scope, p->rows, log);
	int dup = 0;
	for (int j = 0; j < i; j++)
		dup += usable(&ps->p[j]) && strcmp(ps->p[j].name, p->name) == 0;
	if (dup && log)
		fprintf(log, "calibrate: %s fitted in several scopes; predict --profile uses the last (%s)\n", p->name,
			p->scope);
}

/* Link levels (p's scope "machine|level"): alpha per ring step as is; busbw relative to the hwdb link
 * bandwidth; contention factors by level. */
static void put_level_rows(FILE *f, const cal_param *p, const char *bar, const hw_db *db, FILE *log)
{
	if (strcmp(p->name, "slowdown_compute") == 0 || strcmp(p->name, "slowdown_comm") == 0) {
		char *nm = xasprintf("%s_%s", p->name, level_name(bar + 1));
		double v = fmin(10.0, fmax(1.0, p->value));   /* model_params.c's range */
		if (v != p->value && log)
			fprintf(log, "calibrate: %s of %s is %.3g; written as %g (the model's range is 1..10)\n",
				p->name, p->scope, p->value, v);
		put_row(f, NULL, nm, v, p->se, "factor", cal_pstatus_name(p->status), p->scope, p->rows, log);
		free(nm);
	}
	if (strcmp(p->name, "alpha_s") != 0 && strcmp(p->name, "busbw_Bps") != 0)
		return;
	char machine[256];
	snprintf(machine, sizeof machine, "%.*s", (int)(bar - p->scope), p->scope);
	const char *level = level_name(bar + 1);
	if (strcmp(p->name, "alpha_s") == 0) {
		char *nm = xasprintf("alpha_%s_s", level);
		put_row(f, NULL, nm, p->value, p->se, "s", cal_pstatus_name(p->status), p->scope, p->rows, log);
		free(nm);
		return;
	}
	double bw = level_bw(db, machine, bar + 1);
	if (isfinite(bw) && bw > 0 && p->value / bw <= 1.0) {
		char *nm = xasprintf("bw_eff_%s", level);
		put_row(f, NULL, nm, p->value / bw, p->se / bw, "fraction", "derived", p->scope, p->rows, log);
		free(nm);
	} else if (log) {
		fprintf(log, "calibrate: busbw of %s: the database does not describe this link on the system, no bandwidth to be "
			"relative to; kept on the '#cal' line only\n", p->scope);
	}
}

/* The data rows predict --profile reads: the model's parameters, from the fitted ones. */
static void put_model_rows(FILE *f, const cal_pset *ps, const hw_db *db, FILE *log)
{
	static const char *const same[] = { "b_half", "overlap", "decode_img_s_core", "epoch_boundary_s",
						   "host_input_img_s_core", NULL };
	int nconv = 0;
	for (int i = 0; i < ps->n; i++) {
		const cal_param *p = &ps->p[i];
		if (!usable(p))
			continue;
		for (int k = 0; same[k]; k++)
			if (strcmp(p->name, same[k]) == 0)
				put_same_row(f, ps, i, log);
		if (strcmp(p->name, "conv_e0") == 0 || strcmp(p->name, "conv_b0") == 0) {
			put_row(f, NULL, p->name, p->value, p->se, p->unit, cal_pstatus_name(p->status), p->scope, p->rows, log);
			nconv++;
		}
		const char *bar = strrchr(p->scope, '|');
		if (bar)
			put_level_rows(f, p, bar, db, log);
	}
	compute_eff_row(f, ps, log);
	if (nconv) {
		/* the calibration's curve is e0 (1 + B / b0): the model's form 1 with k = 1 */
		put_row(f, NULL, "conv_model", 1, NAN, "enum", "derived", "", "", log);
		put_row(f, NULL, "conv_k", 1, NAN, "exponent", "derived", "", "", log);
	}
}

/* The '#cal,' line of every parameter and the '#corr' line of each pair fitted together (validate --profile's
 * intervals propagate them). */
static void put_cal_lines(FILE *f, const cal_pset *ps)
{
	for (int i = 0; i < ps->n; i++) {
		const cal_param *p = &ps->p[i];
		double v = isfinite(p->value) ? p->value : p->prior;
		put_row(f, "#cal,", p->name, v, p->se, p->unit, cal_pstatus_name(p->status), p->scope, p->rows, NULL);
	}
	for (int k = 0; k < ps->ncorr; k++) {
		const cal_pcorr *c = &ps->corr[k];
		if (!(fabs(c->rho) > 0) || !isfinite(c->rho))
			continue;
		fputs("#corr", f);
		put_text(f, ps->p[c->a].name, false);
		put_text(f, ps->p[c->a].scope, false);
		put_text(f, ps->p[c->b].name, false);
		put_text(f, ps->p[c->b].scope, false);
		fprintf(f, ",%.6f\n", c->rho);
	}
}

int cal_pset_write(const cal_pset *ps, const char *path, const struct cal_opts *opts)
{
	const hw_db *db = opts ? opts->db : NULL;
	FILE *log = opts ? opts->log : NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return err_set("%s: cannot build the profile in memory", path), ERR_ENV;
	fputs("# scaleplan calibration profile (scaleplan calibrate). Data rows: model/model.h parameters, read by\n"
	      "# `scaleplan predict --profile`. '#cal,' lines: every parameter of the calibration with its scope, read\n"
	      "# by `scaleplan validate --profile`. stderr is empty when unknown (no degrees of freedom).\n", f);
	fputs("param,value,stderr,unit,status,scope,rows\n", f);
	put_model_rows(f, ps, db, log);
	put_cal_lines(f, ps);
	if (fclose(f) != 0) {
		free(buf);
		return err_set("%s: cannot build the profile", path), ERR_ENV;
	}
	int rc = file_write_atomic(path, buf, len);
	free(buf);
	return rc;
}

/* The "#corr," lines (text, with the file's line numbers lines[]) into ps's correlations, after its "#cal,"
 * lines were read. 0 or ERR_INPUT (file:line message). */
static int load_corr(cal_pset *ps, const char *path, const char *text, size_t len, const int *lines, int nlines)
{
	csv_table t;
	int rc = csv_table_parse(&t, path, text, len);
	if (rc < 0)
		return rc;
	for (int r = 0; r < t.nrows && rc == 0; r++) {
		int fl = t.line[r] - 2 < nlines && t.line[r] >= 2 ? lines[t.line[r] - 2] : t.line[r];
		double rho;
		int a = cal_pset_find(ps, t.cells[r][0], t.cells[r][1]), b = cal_pset_find(ps, t.cells[r][2], t.cells[r][3]);
		if (csv_cell_double(&t, r, 4, &rho) < 0 || !(fabs(rho) <= 1))
			rc = err_set("%s:%d: #corr: expected a correlation -1..1 in the last field", path, fl);
		else if (a < 0 || b < 0)
			rc = err_set("%s:%d: #corr: names a parameter no '#cal,' line has", path, fl);
		else
			cal_pset_corr_set(ps, a, b, rho);
	}
	csv_table_free(&t);
	return rc;
}

/* Copies a profile line of got bytes, less its prefix of skip bytes, to `to` as one CSV line and notes its line
 * number in the file. */
static void take_line(FILE *to, const char *line, size_t skip, ssize_t got, int lineno, int **lines, int *n, int *cap,
		      int cap0)
{
	fputs(line + skip, to);
	if (got == 0 || line[got - 1] != '\n')
		fputc('\n', to);
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : cap0;
		*lines = xrealloc(*lines, (size_t)*cap * sizeof **lines);
	}
	(*lines)[(*n)++] = lineno;
}

/* A profile's '#cal,' lines into o and its '#corr,' lines into co, each as a CSV with its header, with the
 * file's line number of each row (for messages); other lines (the data rows predict reads) are skipped. */
static void split_profile(FILE *f, FILE *o, int **lines, int *nlines, FILE *co, int **clines, int *ncl)
{
	int cap = 0, ccap = 0;
	fputs("param,value,stderr,unit,status,scope,rows\n", o);
	fputs("a,a_scope,b,b_scope,rho\n", co);
	char *line = NULL;
	size_t lcap = 0;
	ssize_t got;
	int lineno = 0;
	while ((got = getline(&line, &lcap, f)) >= 0) {
		lineno++;
		if (strncmp(line, "#corr,", 6) == 0)
			take_line(co, line, 6, got, lineno, clines, ncl, &ccap, 16);
		else if (strncmp(line, "#cal,", 5) == 0)
			take_line(o, line, 5, got, lineno, lines, nlines, &cap, 64);
	}
	free(line);
}

int cal_pset_load(cal_pset *ps, const char *path)
{
	FILE *f;
	int orc = file_open_read(path, &f);
	if (orc)
		return orc;
	char *out = NULL, *cout = NULL;
	size_t olen = 0, clen = 0;
	FILE *o = open_memstream(&out, &olen), *co = open_memstream(&cout, &clen);
	int *lines = NULL, nlines = 0, *clines = NULL, ncl = 0;
	split_profile(f, o, &lines, &nlines, co, &clines, &ncl);
	fclose(f);
	fclose(o);
	fclose(co);
	csv_table t;
	int rc = csv_table_parse(&t, path, out, olen);
	free(out);
	if (rc < 0) {
		free(lines);
		free(cout);
		free(clines);
		return rc;
	}
	if (t.nrows == 0) {
		rc = err_set("%s: no '#cal,' lines: not a profile written by scaleplan calibrate", path);
		goto done;
	}
	for (int r = 0; r < t.nrows; r++) {
		double v, se = NAN;
		int fl = t.line[r] - 2 < nlines && t.line[r] >= 2 ? lines[t.line[r] - 2] : t.line[r];
		if (csv_cell_double(&t, r, 1, &v) < 0 || (t.cells[r][2][0] && csv_cell_double(&t, r, 2, &se) < 0)) {
			rc = err_set("%s:%d: expected numbers in value and stderr", path, fl);
			goto done;
		}
		int i = cal_pset_get(ps, t.cells[r][0], t.cells[r][5], v, t.cells[r][3]);
		cal_param *p = &ps->p[i];
		p->value = v;
		p->se = se;
		p->status = CAL_PRIOR;
		for (int s = CAL_PRIOR; s <= CAL_NOCONV; s++)
			if (strcmp(t.cells[r][4], cal_pstatus_name((cal_pstatus)s)) == 0)
				p->status = (cal_pstatus)s;
		/* a profile's values are the priors of whatever is fitted next */
		p->prior = v;
		free(p->rows);
		p->rows = xstrdup(t.cells[r][6]);
	}
	if (ncl)
		rc = load_corr(ps, path, cout, clen, clines, ncl);
done:
	csv_table_free(&t);
	free(lines);
	free(cout);
	free(clines);
	return rc;
}
