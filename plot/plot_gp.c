/* plot_gp.c: the gnuplot script of a chart and running gnuplot on it.
 * Data travel as inline data blocks ($d0 << EOD) of numbers only; every string (titles, series names,
 * output paths) is a single-quoted gnuplot literal from plot_gp_quote, where gnuplot substitutes nothing.
 * Terminals run with `noenhanced`, so names are drawn as they are.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plot/plot_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Tableau 10: distinguishable colours, also in grey print */
static const char *const colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
				      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
enum { NCOLOURS = 10 };

char *plot_gp_quote(const char *s)
{
	size_t n = 2;
	for (const char *p = s; *p; p++)
		n += *p == '\'' ? 2 : 1;
	char *q = xmalloc(n + 1), *o = q;
	*o++ = '\'';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\'') {
			*o++ = '\'';
			*o++ = '\'';
		} else {
			*o++ = *p < 0x20 || *p == 0x7f ? ' ' : (char)*p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return q;
}

/* Writes `prefix` then s quoted then `suffix`. */
static void put_quoted(FILE *f, const char *prefix, const char *s, const char *suffix)
{
	char *q = plot_gp_quote(s);
	fprintf(f, "%s%s%s", prefix, q, suffix);
	free(q);
}

static void put_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("NaN", f);
	else
		fprintf(f, "%.10g", v);
}

/* Columns x, y, y2 and, with mark, a 4th: 1 for a point marked extrapolated. */
static void put_block_marked(FILE *f, const char *name, const double *x, const double *y, const double *y2,
			     const unsigned char *mark, int n)
{
	fprintf(f, "%s << EOD\n", name);
	for (int i = 0; i < n; i++) {
		put_num(f, x[i]);
		fputc(' ', f);
		put_num(f, y[i]);
		fputc(' ', f);
		put_num(f, y2 ? y2[i] : NAN);
		if (mark)
			fprintf(f, " %d", mark[i] ? 1 : 0);
		fputc('\n', f);
	}
	fputs("EOD\n", f);
}

static void put_block(FILE *f, const char *name, const double *x, const double *y, const double *y2, int n)
{
	put_block_marked(f, name, x, y, y2, NULL, n);
}

/* ---- axis labels: times in s/min/h/d and money in dollars, at every scale ---- */

/* Round times for a log axis, in minutes (the charts' time unit), from a second to a year, with a rank:
 * 1 the decades of each unit (1 s, 10 s, 1 min, 10 min, 1 h, 1 d, ...), 2 the halves and fifths, 3 the rest. */
static const struct {
	double min;
	const char *label;
	int rank;
} time_tics[] = {
	{1 / 60.0, "1 s", 1},  {2 / 60.0, "2 s", 2},  {3 / 60.0, "3 s", 3},   {5 / 60.0, "5 s", 2},  {10 / 60.0, "10 s", 1},
	{15 / 60.0, "15 s", 3}, {20 / 60.0, "20 s", 2}, {30 / 60.0, "30 s", 2}, {45 / 60.0, "45 s", 3}, {1, "1 min", 1},
	{1.5, "1.5 min", 3},   {2, "2 min", 2},       {3, "3 min", 3},       {5, "5 min", 2},        {10, "10 min", 1},     {15, "15 min", 3},
	{20, "20 min", 2},     {30, "30 min", 2},     {45, "45 min", 3},      {60, "1 h", 1},        {90, "1.5 h", 3},
	{120, "2 h", 2},       {180, "3 h", 3},       {240, "4 h", 3},        {360, "6 h", 2},       {480, "8 h", 3},
	{720, "12 h", 2},      {960, "16 h", 3},      {1440, "1 d", 1},       {2160, "1.5 d", 3},    {2880, "2 d", 2},
	{4320, "3 d", 3},      {7200, "5 d", 2},      {10080, "7 d", 3},      {14400, "10 d", 1},    {20160, "14 d", 3},
	{30240, "21 d", 3},    {43200, "30 d", 2},    {86400, "60 d", 3},     {129600, "90 d", 2},   {262980, "0.5 y", 3},
	{525960, "1 y", 1},
};
enum { TICS_MAX = 8 };

/* Writes "set Atics (...)" with the candidates (ascending v) inside [lo, hi] (the data's span, widened a
 * little as gnuplot's range is): rank 1 first, then 2, then 3, each only where it keeps its neighbours a
 * ratio apart (at most about TICS_MAX over the span), so that labels never run into each other. Nothing
 * when lo > hi (no data). */
static void put_tics(FILE *f, const char *axis, const double *v, const char *const *label, const int *rank, int n,
		     double lo, double hi)
{
	if (!(lo <= hi) || n <= 0)
		return;
	lo /= 1.25;
	hi *= 1.25;
	double ratio = fmax(1.3, pow(hi / lo, 1.0 / TICS_MAX));
	bool *on = xcalloc((size_t)n, sizeof *on);
	for (int r = 1; r <= 3; r++)
		for (int i = 0; i < n; i++) {
			if (rank[i] != r || v[i] < lo || v[i] > hi)
				continue;
			bool room = true;
			for (int k = 0; k < n && room; k++)
				room = !on[k] || fmax(v[k], v[i]) / fmin(v[k], v[i]) >= ratio;
			on[i] = room;
		}
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (!on[i])
			continue;
		char *q = plot_gp_quote(label[i]);
		if (k++ == 0)
			fprintf(f, "set %stics (", axis);
		else
			fputs(", ", f);
		fprintf(f, "%s %.10g", q, v[i]);
		free(q);
	}
	free(on);
	if (k > 0)
		fputs(")\n", f);
}

/* A time axis (values in minutes) labelled "30 s", "2 min", "1.5 h", "3 d": readable below a minute too. */
static void put_time_tics(FILE *f, const char *axis, double lo_min, double hi_min)
{
	enum { N = sizeof time_tics / sizeof time_tics[0] };
	double v[N];
	const char *label[N];
	int rank[N];
	for (int i = 0; i < N; i++) {
		v[i] = time_tics[i].min;
		label[i] = time_tics[i].label;
		rank[i] = time_tics[i].rank;
	}
	put_tics(f, axis, v, label, rank, N, lo_min, hi_min);
}

/* A money axis (USD) labelled "$500", "$250k", "$1.5M", "$2B": 10^k first, then 2 and 5 x 10^k, then 1.5, 3, 7 where
 * there is room (put_tics): never 1e+07. */
/* "$500", "$250k", "$1.5M", "$2B". Returns buf. */
static char *usd_short(double x, char *buf, size_t len_B)
{
	if (x >= 1e9)
		snprintf(buf, len_B, "$%gB", x / 1e9);
	else if (x >= 1e6)
		snprintf(buf, len_B, "$%gM", x / 1e6);
	else if (x >= 1e3)
		snprintf(buf, len_B, "$%gk", x / 1e3);
	else
		snprintf(buf, len_B, "$%g", x);
	return buf;
}

static void put_money_tics(FILE *f, const char *axis, double lo, double hi)
{
	static const double mant[] = {1, 1.5, 2, 3, 5, 7};
	static const int mrank[] = {1, 3, 2, 3, 2, 3};
	enum { N = 6 * 16 };
	double v[N];
	char text[N][24];
	const char *label[N];
	int rank[N], n = 0;
	for (int e = -2; e < 14; e++)
		for (int m = 0; m < 6; m++, n++) {
			double x = mant[m] * pow(10, e);
			v[n] = x;
			rank[n] = mrank[m];
			label[n] = usd_short(x, text[n], sizeof text[n]);
		}
	put_tics(f, axis, v, label, rank, n, lo, hi);
}

/* The Pareto front of a cost chart (all series together), sorted by time, as a data block. */
static void put_front(FILE *f, const plot_data *d)
{
	int n = 0;
	for (int i = 0; i < d->nseries; i++)
		n += d->series[i].n;
	double *x = xmalloc((size_t)n * sizeof *x), *y = xmalloc((size_t)n * sizeof *y);
	bool *on = xmalloc((size_t)n * sizeof *on);
	int k = 0;
	for (int i = 0; i < d->nseries; i++)
		for (int j = 0; j < d->series[i].n; j++, k++) {
			x[k] = d->series[i].x[j];
			y[k] = d->series[i].y[j];
		}
	plot_pareto(x, y, n, on);
	/* selection by x: n is small (a chart's points) */
	double *fx = xmalloc((size_t)n * sizeof *fx), *fy = xmalloc((size_t)n * sizeof *fy);
	int m = 0;
	for (int i = 0; i < n; i++)
		if (on[i]) {
			int at = m++;
			while (at > 0 && fx[at - 1] > x[i]) {
				fx[at] = fx[at - 1];
				fy[at] = fy[at - 1];
				at--;
			}
			fx[at] = x[i];
			fy[at] = y[i];
		}
	put_block(f, "$front", fx, fy, NULL, m);
	free(x);
	free(y);
	free(on);
	free(fx);
	free(fy);
}

static const char *default_title(plot_kind k)
{
	switch (k) {
	case PLOT_TTA: return "Time to accuracy vs GPUs (a colour per system, a line pattern per GPUs per node)";
	case PLOT_COST: return "Cost vs time to accuracy";
	case PLOT_PARITY: return "Predicted vs measured (validate)";
	case PLOT_EPOCHS: return "Training run: throughput and top-1 per epoch";
	case PLOT_TORNADO: return "Sensitivity of the cost to each input (low end to high end)";
	case PLOT_CASHFLOW: return "Cumulative cash flow by year";
	default: return "scaleplan";
	}
}

/* The first series with the same group (label prefix, or with suffix its last word) as series i. */
static int first_with(const plot_data *d, int i, bool suffix)
{
	const char *li = d->series[i].label, *si = strrchr(li, ' ');
	for (int k = 0; k < i; k++) {
		const char *lk = d->series[k].label, *sk = strrchr(lk, ' ');
		bool same = suffix ? (si && sk && strcmp(si, sk) == 0)
				   : (si && sk ? (si - li == sk - lk && strncmp(li, lk, (size_t)(si - li)) == 0)
					       : strcmp(li, lk) == 0);
		if (same)
			return k;
	}
	return i;
}

/* Index of series i's group - its label's prefix ("dgxh100" of "dgxh100 8/node") or, with suffix, its last word
 * ("8/node") - among the distinct groups in order of first appearance. */
static int label_group(const plot_data *d, int i, bool suffix)
{
	int first = first_with(d, i, suffix), distinct = 0;
	for (int k = 0; k < first; k++)
		distinct += first_with(d, k, suffix) == k;
	return distinct;
}

/* One series' style. Placement charts (labels "system N/node"): a colour per system and a dash pattern and point
 * type per GPUs-per-node family, so a reader tells systems apart by colour and placements by line; other charts:
 * a colour per series. */
static void put_style(FILE *f, const plot_data *d, int i, const char *with, const char *extra)
{
	static const int points[] = {5, 7, 9, 11, 13, 15, 4, 6, 8, 10, 12, 14};
	bool placements = d->kind == PLOT_TTA || d->kind == PLOT_COST;
	int colour = placements ? label_group(d, i, false) : i, family = placements ? label_group(d, i, true) : i;
	fprintf(f, "%s lc rgb '%s' pt %d", with, colours[colour % NCOLOURS], points[family % 12]);
	if (placements && strstr(with, "lines") && !strstr(with, " dt "))
		fprintf(f, " dt %d", 1 + family % 5);
	fprintf(f, " %s", extra);
}

/* One item of a plot command: ", \" continuation unless first, series i's data block, columns `cols`, its
 * style, and the quoted title (NULL: notitle). */
static void put_item(FILE *f, const plot_data *d, bool first, int i, const char *cols, const char *with,
		     const char *title)
{
	fprintf(f, "%s$d%d using %s ", first ? "" : ", \\\n     ", i, cols);
	put_style(f, d, i, with, title ? "" : "notitle");
	if (title)
		put_quoted(f, "title ", title, "");
}

/* The smallest and largest positive value of coordinate `which` (0 x, 1 y, 2 y2) over every series; false
 * when there is none. */
static bool axis_span(const plot_data *d, int which, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (int i = 0; i < d->nseries; i++) {
		const plot_series *s = &d->series[i];
		const double *v = which == 0 ? s->x : which == 1 ? s->y : s->y2;
		for (int k = 0; v && k < s->n; k++)
			if (isfinite(v[k]) && v[k] > 0) {
				*lo = fmin(*lo, v[k]);
				*hi = fmax(*hi, v[k]);
			}
	}
	return *lo <= *hi;
}

/* A log axis whose data hold one value (one GPU count, one configuration): gnuplot would warn "empty x
 * range" on stderr and pick a range itself; a factor of 2 each side says the same without the warning. */
static void put_one_value_range(FILE *f, const char *axis, const plot_data *d, int which, int which2)
{
	double lo, hi, lo2, hi2;
	bool any = axis_span(d, which, &lo, &hi);
	if (which2 >= 0 && axis_span(d, which2, &lo2, &hi2)) {
		lo = any ? fmin(lo, lo2) : lo2;
		hi = any ? fmax(hi, hi2) : hi2;
		any = true;
	}
	if (any && lo == hi)
		fprintf(f, "set %srange [%.10g:%.10g]\n", axis, lo / 2, hi * 2);
}

/* The span of coordinate which, and of which2 too when >= 0. */
static bool axis_span2(const plot_data *d, int which, int which2, double *lo, double *hi)
{
	double lo2, hi2;
	bool any = axis_span(d, which, lo, hi);
	if (which2 >= 0 && axis_span(d, which2, &lo2, &hi2)) {
		*lo = any ? fmin(*lo, lo2) : lo2;
		*hi = any ? fmax(*hi, hi2) : hi2;
		any = true;
	}
	return any;
}

/* The colour put_style gives series i. */
static const char *series_colour(const plot_data *d, int i)
{
	bool placements = d->kind == PLOT_TTA || d->kind == PLOT_COST;
	return colours[(placements ? label_group(d, i, false) : i) % NCOLOURS];
}

/* The label of a group of lines: "a 8/node" alone; "a, b, c 8/node" when they share the last word. */
static void group_text(const plot_data *d, const int *leader, int lead, strbuf *text)
{
	const char *suffix = strrchr(d->series[lead].label, ' ');
	bool same = suffix != NULL;
	for (int k = lead; k < d->nseries; k++)
		if (leader[k] == lead) {
			const char *sk = strrchr(d->series[k].label, ' ');
			same = same && sk && strcmp(sk, suffix) == 0; /* no suffix: strcmp never sees NULL */
		}
	size_t from_B = text->len_B;
	for (int k = lead; k < d->nseries; k++) {
		if (leader[k] != lead)
			continue;
		const char *l = d->series[k].label;
		int n = same ? (int)(strrchr(l, ' ') - l) : (int)strlen(l);
		strbuf_addf(text, "%s%.*s", text->len_B > from_B ? ", " : "", n, l);
	}
	if (same)
		strbuf_addf(text, "%s", suffix);
}

/* Names each line at its right end, so a reader need not match colours to the key. Lines that end at the
 * same GPU count within 5% of each other (several B200 servers on one curve) share one label naming them
 * all; labels are spread vertically so that no two overlap (a line of text is about 4% of the plot's
 * height; span_dec: the y axis's decades). */
static void put_direct_labels(FILE *f, const plot_data *d, double span_dec)
{
	int n = d->nseries;
	int *leader = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *leader), *order = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *order);
	double *ly = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *ly), xmax = 0;
	int m = 0;
	for (int i = 0; i < n; i++) {
		const plot_series *s = &d->series[i];
		leader[i] = -1;
		if (s->n == 0 || !(s->y[s->n - 1] > 0))
			continue;
		leader[i] = i;
		xmax = fmax(xmax, s->x[s->n - 1]);
		for (int k = 0; k < i; k++) {
			const plot_series *o = &d->series[k];
			if (leader[k] == k && o->x[o->n - 1] == s->x[s->n - 1] && fabs(log(o->y[o->n - 1] / s->y[s->n - 1])) < 0.05) {
				leader[i] = k;
				break;
			}
		}
		if (leader[i] == i) {
			ly[i] = log10(s->y[s->n - 1]);
			int at = m++;
			while (at > 0 && ly[order[at - 1]] > ly[i]) { /* insertion by height */
				order[at] = order[at - 1];
				at--;
			}
			order[at] = i;
		}
	}
	double gap = 0.045 * (span_dec > 0 ? span_dec : 1), top = -INFINITY;
	for (int k = 0; k < m; k++) {
		int i = order[k], members = 0;
		for (int j = i; j < n; j++)
			members += leader[j] == i;
		strbuf text;
		strbuf_init(&text);
		group_text(d, leader, i, &text);
		/* a long name list wraps at ", " into lines of about 34 characters, read top down; the last
		 * line sits at the lines' end */
		char *line[16];
		int nl = 0;
		for (char *p = text.s; *p && nl < 16;) {
			size_t len = strlen(p), cut = len;
			if (len > 34) {
				cut = 0;
				for (char *c = strstr(p, ", "); c && (size_t)(c - p) <= 34; c = strstr(c + 2, ", "))
					cut = (size_t)(c - p) + 1;
				cut = cut ? cut : len;
			}
			line[nl++] = p;
			p += cut;
			if (*p) {
				*p++ = '\0'; /* the space after the comma */
				while (*p == ' ')
					p++;
			}
		}
		double base = fmax(ly[i], top + gap);
		for (int j = 0; j < nl; j++) {
			put_quoted(f, "set label ", line[j], "");
			fprintf(f, " at %.10g,%.10g offset character 2,0 left font ',9' tc rgb '%s' front\n", xmax,
				pow(10, base + (nl - 1 - j) * gap), members > 1 ? "#333333" : series_colour(d, i));
		}
		top = base + (nl - 1) * gap;
		strbuf_free(&text);
	}
	free(leader);
	free(order);
	free(ly);
}

/* Circles round the points whose epochs are extrapolated (a 4th data column of 1), one key entry. */
static void put_marked(FILE *f, const plot_data *d, const char *cols)
{
	bool titled = false;
	for (int i = 0; i < d->nseries; i++) {
		bool any = false;
		for (int j = 0; j < d->series[i].n; j++)
			any |= d->series[i].mark[j] != 0;
		if (!any)
			continue;
		/* an open diamond: not the Pareto front's circle */
		fprintf(f, ", \\\n     $d%d using %s with points pt 12 ps 2.6 lw 1.2 lc rgb '#555555' ", i, cols);
		fputs(titled ? "notitle" : "title 'epochs extrapolated (batch outside the measured range)'", f);
		titled = true;
	}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The x tics of a tta chart: the GPU counts of the data when they are few (8, 64, 144), so that the axis
 * ends at the data and names what was asked; gnuplot's powers of two otherwise. */
static void put_gpu_tics(FILE *f, const plot_data *d)
{
	enum { MAX_TICS = 12 };
	double v[MAX_TICS];
	int n = 0;
	for (int i = 0; i < d->nseries; i++)
		for (int j = 0; j < d->series[i].n; j++) {
			double x = d->series[i].x[j];
			int k = 0;
			while (k < n && v[k] != x)
				k++;
			if (k < n)
				continue;
			if (n == MAX_TICS)
				return;
			v[n++] = x;
		}
	qsort(v, (size_t)n, sizeof v[0], cmp_dbl);
	fputs("set xtics (", f);
	for (int k = 0; k < n; k++)
		fprintf(f, "%s\"%.0f\" %.10g", k ? ", " : "", v[k], v[k]);
	fputs(")\n", f);
}

static void body_tta(FILE *f, const plot_data *d)
{
	double lo, hi;
	/* the key below; the x axis ends at the data (autoscale xfix, a small pad), the lines' names in the right
	 * margin beside their ends (gnuplot does not clip labels) */
	fputs("set key below horizontal\nset logscale x 2\nset logscale y 10\nset autoscale xfix\nset autoscale yfix\n"
	      "set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\nset rmargin 34\nset xlabel 'GPUs'\n",
	      f);
	put_gpu_tics(f, d);
	double span_dec = 1;
	if (axis_span2(d, 1, d->has_y2 ? 2 : -1, &lo, &hi)) {
		put_time_tics(f, "y", lo, hi);
		span_dec = log10(hi / lo) * 1.1 + 0.1; /* the offsets widen it a little */
	}
	fprintf(f, "set ylabel '%s'\n", d->has_y2 ? "time to accuracy (thick lines), MLPerf time to train (thin dots)"
						   : "time to accuracy");
	put_one_value_range(f, "x", d, 0, -1);
	put_one_value_range(f, "y", d, 1, d->has_y2 ? 2 : -1);
	put_direct_labels(f, d, span_dec);
	fputs("plot ", f);
	for (int i = 0; i < d->nseries; i++) {
		put_item(f, d, i == 0, i, "1:2", "with linespoints lw 2", d->series[i].label);
		if (d->has_y2)
			put_item(f, d, false, i, "1:3", "with points ps 0.6", NULL);
	}
	if (d->has_mark)
		put_marked(f, d, "1:($4 > 0 ? $2 : NaN)");
	fputc('\n', f);
}

/* The y label of a cost chart: the money the reader ranks by. */
static const char *cost_label(const plot_data *d)
{
	const char *c = d->cost_col ? d->cost_col : "capex_usd";
	if (strcmp(c, "rent_usd") == 0)
		return "rent per run (whole nodes for the time to accuracy)";
	if (strcmp(c, "tco_usd") == 0)
		return "owner's cost per run (capex share, support, facility, energy x PUE)";
	return "capex (servers, network, storage)";
}

static void body_cost(FILE *f, const plot_data *d, const plot_opts *o)
{
	if (d->has_y2)
		fputs("set multiplot layout 2,1\n", f);
	if (d->has_y2)
		fputs("set lmargin at screen 0.1\nset rmargin at screen 0.75\n", f);
	if (!isnan(o->budget_usd))
		fprintf(f, "set arrow 1 from graph 0, first %.10g to graph 1, first %.10g nohead lc rgb '#d62728' lw 2 dt 3\n",
			o->budget_usd, o->budget_usd);
	double lo, hi;
	fputs("set logscale x 10\nset logscale y 10\nset xlabel 'time to accuracy'\n", f);
	if (axis_span(d, 0, &lo, &hi))
		put_time_tics(f, "x", lo, hi);
	if (axis_span(d, 1, &lo, &hi))
		put_money_tics(f, "y", fmin(lo, isnan(o->budget_usd) ? lo : o->budget_usd),
			       fmax(hi, isnan(o->budget_usd) ? hi : o->budget_usd));
	put_quoted(f, "set ylabel ", cost_label(d), "\n");
	put_one_value_range(f, "x", d, 0, -1);
	put_one_value_range(f, "y", d, 1, -1);
	fputs("plot ", f);
	for (int i = 0; i < d->nseries; i++) {
		put_item(f, d, i == 0, i, "1:2", "with points ps 1.3", d->series[i].label);
	}
	fputs(", \\\n     $front using 1:2 with linespoints lc rgb 'black' lw 1.5 pt 6 ps 2.2 title 'Pareto front'", f);
	if (d->has_mark)
		put_marked(f, d, "1:($4 > 0 ? $2 : NaN)");
	if (!isnan(o->budget_usd)) {
		char b[32];
		fprintf(f, ", \\\n     NaN with lines lc rgb '#d62728' lw 2 dt 3 title 'budget %s'",
			usd_short(o->budget_usd, b, sizeof b));
	}
	fputc('\n', f);
	if (!d->has_y2)
		return;
	/* a linear axis from 0: energies differ by a few times, and a log axis stretched 1-100 for data up to 15 */
	fputs("unset title\nunset arrow 1\nunset logscale y\nset yrange [0:*]\nset ytics autofreq\nset format y '%g'\n"
	      "set ylabel 'energy per run (kWh, GPUs and nodes)'\n", f);
	put_one_value_range(f, "y", d, 2, -1);
	fputs("plot ", f);
	for (int i = 0; i < d->nseries; i++) {
		put_item(f, d, i == 0, i, "1:3", "with points ps 1.3", NULL);
	}
	fputs("\nunset multiplot\n", f);
}

/* The unit of a parity panel's values from its kind (validate --detail groups; whole-run times). */
static const char *unit_of(const char *label)
{
	if (strstr(label, "throughput") || strstr(label, "pipeline"))
		return "img/s";
	if (strstr(label, "epochs"))
		return "epochs";
	if (strstr(label, "allreduce") || strstr(label, "tt") || strstr(label, "time") || strstr(label, "_s"))
		return "s";
	return "as measured";
}

/* One panel per kind of measurement (units differ: img/s, s, ...), each with its own square log range so
 * the +-10% band is visible. */
static void body_parity(FILE *f, const plot_data *d, const plot_opts *o)
{
	int cols = d->nseries > 1 ? 2 : 1, rows = (d->nseries + cols - 1) / cols;
	/* each panel's title names its kind of measurement: the chart's own title goes on the whole page */
	fprintf(f, "set multiplot layout %d,%d ", rows, cols);
	put_quoted(f, "title ", o->title ? o->title : default_title(d->kind), "\n");
	fputs("set logscale xy 10\nset format xy '%g'\nset samples 200\nset key inside left top\n", f);
	for (int i = 0; i < d->nseries; i++) {
		const plot_series *s = &d->series[i];
		double lo = INFINITY, hi = 0;
		for (int j = 0; j < s->n; j++) {
			lo = fmin(lo, fmin(s->x[j], s->y[j]));
			hi = fmax(hi, fmax(s->x[j], s->y[j]));
		}
		lo /= 1.3;
		hi *= 1.3;
		fprintf(f, "set xrange [%.10g:%.10g]\nset yrange [%.10g:%.10g]\n", lo, hi, lo, hi);
		put_quoted(f, "set title ", s->label, "\n");
		fprintf(f, "set xlabel 'measured (%s)'\nset ylabel 'predicted (%s)'\n", unit_of(s->label), unit_of(s->label));
		fputs("plot '+' using 1:(0.9*$1):(1.1*$1) with filledcurves lc rgb '#d9d9d9' title '+-10%', \\\n"
		      "     x with lines lc rgb 'black' lw 1 title 'y = x'",
		      f);
		put_item(f, d, false, i, "1:2", "with points ps 1.2", NULL);
		fputc('\n', f);
	}
	fputs("unset multiplot\n", f);
}

static void body_epochs(FILE *f, const plot_data *d)
{
	fputs("set xlabel 'elapsed training time (s, sum of epoch times)'\nset ylabel 'throughput (img/s, solid)'\n"
	      "set y2label 'top-1 (dashed)'\nset ytics nomirror\nset y2tics\nset y2range [0:1]\nset yrange [0:*]\n",
	      f);
	fputs("plot ", f);
	for (int i = 0; i < d->nseries; i++) {
		put_item(f, d, i == 0, i, "1:2 axes x1y1", "with linespoints lw 2", d->series[i].label);
		put_item(f, d, false, i, "1:3 axes x1y2", "with linespoints lw 1 dt 2", NULL);
	}
	fputc('\n', f);
}

/* A money axis in dollars: "$12.50" for costs under 100 USD, "$1.2M"-style prefixes above (never 1e+07). */
/* A linear money axis from lo to hi: cents below $100; else tics every 1, 2, 2.5 or 5 x 10^k (5 to 10 of
 * them) labelled as usd_short writes them ("$800k", "$1.25M"; gnuplot's own '%.1s%c' wrote "$800.0k"). */
static void put_money_format(FILE *f, const char *axis, double lo, double hi)
{
	static const double steps[] = {1, 2, 2.5, 5};
	if (!(hi >= 100) || !isfinite(lo) || !(hi > lo)) {
		fprintf(f, "set format %s '$%%.2f'\n", axis);
		return;
	}
	double step = 0;
	for (double p = pow(10, floor(log10(hi - lo)) - 1); !(step > 0); p *= 10)
		for (int i = 0; i < 4 && !(step > 0); i++)
			if ((hi - lo) / (steps[i] * p) <= 10)
				step = steps[i] * p;
	fprintf(f, "set %stics (", axis);
	char b[24];
	int n = 0;
	for (double v = ceil(lo / step) * step; v <= hi + step * 1e-9; v += step, n++)
		fprintf(f, "%s'%s%s' %.10g", n ? ", " : "", v < 0 ? "-" : "", usd_short(fabs(v) < step * 1e-9 ? 0 : fabs(v), b, sizeof b), v);
	fputs(")\n", f);
}

/* Horizontal bars, series i (one point: cost at the input's low end, at its high end, base) at height i, the
 * caller's order bottom to top; the base cost a solid line, the alternative's a dashed one. */
static void body_tornado(FILE *f, const plot_data *d, const plot_opts *o)
{
	double lo = INFINITY, hi = -INFINITY, base = NAN;
	fputs("set ytics (", f);
	for (int i = 0; i < d->nseries; i++) {
		const plot_series *s = &d->series[i];
		/* a tic label is a format for the tic's value: its % doubled */
		char *lab = xmalloc(2 * strlen(s->label) + 1), *o2 = lab;
		for (const char *c = s->label; *c; c++) {
			*o2++ = *c;
			if (*c == '%')
				*o2++ = '%';
		}
		*o2 = '\0';
		put_quoted(f, i ? ", " : "", lab, "");
		free(lab);
		fprintf(f, " %d", i);
		lo = fmin(lo, fmin(s->x[0], s->y[0]));
		hi = fmax(hi, fmax(s->x[0], s->y[0]));
		base = s->y2[0];
	}
	fputs(")\n", f);
	if (o->mark_label && isfinite(o->mark_usd)) {
		lo = fmin(lo, o->mark_usd);
		hi = fmax(hi, o->mark_usd);
	}
	double pad = (hi - lo) * 0.08 + 1e-9 * fabs(hi);
	fprintf(f, "set xrange [%.10g:%.10g]\nset yrange [-0.7:%d.7]\nunset grid\nset grid xtics\n", lo - pad, hi + pad,
		d->nseries - 1);
	put_money_format(f, "x", lo - pad, hi + pad);
	put_quoted(f, "set xlabel ", o->xlabel ? o->xlabel : "cost (USD)", "\n");
	fputs("set style fill solid 0.7 border lc rgb '#333333'\nset key outside right top vertical\n", f);
	if (isfinite(base))
		fprintf(f, "set arrow 1 from first %.10g, graph 0 to first %.10g, graph 1 nohead lc rgb 'black' lw 2\n", base,
			base);
	if (o->mark_label && isfinite(o->mark_usd))
		fprintf(f, "set arrow 2 from first %.10g, graph 0 to first %.10g, graph 1 nohead lc rgb '#d62728' lw 2 dt 2\n",
			o->mark_usd, o->mark_usd);
	fputs("plot ", f);
	for (int i = 0; i < d->nseries; i++)
		fprintf(f, "%s$d%d using (($1+$2)/2):(%d):(abs($2-$1)/2):(0.32) with boxxyerror lc rgb '%s' notitle",
			i ? ", \\\n     " : "", i, i, colours[i % NCOLOURS]);
	if (isfinite(base))
		fprintf(f, ", \\\n     NaN with lines lc rgb 'black' lw 2 title 'base $%.2f'", base);
	if (o->mark_label && isfinite(o->mark_usd)) {
		fputs(", \\\n     NaN with lines lc rgb '#d62728' lw 2 dt 2 ", f);
		put_quoted(f, "title ", o->mark_label, "");
	}
	fputc('\n', f);
}

/* Lines of money against the year, one per series, points marked; the money axis from 0. */
static void body_cashflow(FILE *f, const plot_data *d, const plot_opts *o)
{
	double hi = 0;
	for (int i = 0; i < d->nseries; i++)
		for (int k = 0; k < d->series[i].n; k++)
			if (isfinite(d->series[i].y[k]))
				hi = fmax(hi, d->series[i].y[k]);
	/* the key below the frame: the owned line starts at the top left (the purchase) */
	fputs("set xlabel 'year (0: the purchase)'\nset xtics 1\nset key below horizontal\n", f);
	double step_hi = hi * 1.05;
	fprintf(f, "set yrange [0:%.10g]\n", step_hi > 0 ? step_hi : 1);
	put_money_format(f, "y", 0, step_hi);
	put_quoted(f, "set ylabel ", o->xlabel ? o->xlabel : "cumulative (USD)", "\n");
	fputs("plot ", f);
	for (int i = 0; i < d->nseries; i++)
		put_item(f, d, i == 0, i, "1:2", "with linespoints lw 2", d->series[i].label);
	fputc('\n', f);
}

static void body(FILE *f, const plot_data *d, const plot_opts *o)
{
	const char *title = o->title ? o->title : default_title(d->kind);
	if (d->dropped) { /* say which lines are drawn: the front's and the fastest, the rest in the CSV */
		char *t = d->kind == PLOT_COST
				  ? xasprintf("%s - %d of %d lines: the %d on the Pareto front, then the fastest", title,
					      d->nseries, d->nseries + d->dropped, d->nfront)
				  : xasprintf("%s - the %d fastest of %d lines", title, d->nseries, d->nseries + d->dropped);
		put_quoted(f, "set title ", t, "\n");
		free(t);
	} else {
		put_quoted(f, "set title ", title, "\n");
	}
	fputs("set grid\nset key outside right top vertical\nset border lw 1\n", f);
	switch (d->kind) {
	case PLOT_TTA: body_tta(f, d); break;
	case PLOT_COST: body_cost(f, d, o); break;
	case PLOT_PARITY: body_parity(f, d, o); break;
	case PLOT_TORNADO: body_tornado(f, d, o); break;
	case PLOT_CASHFLOW: body_cashflow(f, d, o); break;
	default: body_epochs(f, d); break;
	}
}

int plot_script_write(FILE *f, const plot_data *d, const plot_opts *o, const char *svg_out, const char *png_out)
{
	fprintf(f, "# scaleplan plot: %s chart (gnuplot script, data inline)\n", plot_kind_name(d->kind));
	bool placements = d->kind == PLOT_TTA || d->kind == PLOT_COST;
	for (int i = 0; i < d->nseries; i++) {
		char name[32];
		snprintf(name, sizeof name, "$d%d", i);
		put_block_marked(f, name, d->series[i].x, d->series[i].y, d->series[i].y2,
				 placements ? d->series[i].mark : NULL, d->series[i].n);
	}
	if (d->kind == PLOT_COST)
		put_front(f, d);
	int height = d->kind == PLOT_COST && d->has_y2 ? 900 : 600;
	if (svg_out) {
		fprintf(f, "set terminal svg size 1000,%d fixed noenhanced font 'sans,12' background rgb 'white'\n", height);
		put_quoted(f, "set output ", svg_out, "\n");
		body(f, d, o);
		fputs("unset output\n", f);
	}
	if (png_out) {
		fprintf(f, "reset\nset terminal pngcairo size 1000,%d noenhanced font 'sans,10' background rgb 'white'\n",
			height);
		put_quoted(f, "set output ", png_out, "\n");
		body(f, d, o);
		fputs("unset output\n", f);
	}
	if (ferror(f)) {
		err_set("plot: cannot write the gnuplot script");
		return ERR_ENV;
	}
	return 0;
}

bool plot_gnuplot_found(void)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		return false;
	char *dirs = xstrdup(path), *save = NULL;
	bool found = false;
	for (char *dir = strtok_r(dirs, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *exe = xasprintf("%s/gnuplot", *dir ? dir : ".");
		found = access(exe, X_OK) == 0;
		free(exe);
	}
	free(dirs);
	return found;
}

/* Runs `gnuplot SCRIPT` and waits; 0 when it exits 0. */
static int run_gnuplot(const char *script)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		err_set("plot: fork: %s", strerror(errno));
		return ERR_ENV;
	}
	if (pid == 0) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			err_set("plot: waitpid: %s", strerror(errno));
			return ERR_ENV;
		}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		err_set("plot: gnuplot failed (%s %d) on %s", WIFEXITED(st) ? "exit" : "signal",
			WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), script);
		return ERR_ENV;
	}
	return 0;
}

int plot_render(const plot_data *d, const plot_opts *o, const char *prefix)
{
	if (!plot_gnuplot_found()) {
		err_set("gnuplot not found on PATH: install the Debian package gnuplot-nox (`make deps` does)");
		return ERR_ENV;
	}
	char *svg = xasprintf("%s.svg", prefix), *png = xasprintf("%s.png", prefix);
	char *svg_tmp = xasprintf("%s.svg.tmp", prefix), *png_tmp = xasprintf("%s.png.tmp", prefix);
	char *script = xasprintf("%s.gp.tmp", prefix);
	int rc = 0;
	FILE *f = fopen(script, "w");
	if (!f) {
		rc = err_path(script, errno, "a file in an existing directory");
		goto out;
	}
	rc = plot_script_write(f, d, o, o->svg ? svg_tmp : NULL, o->png ? png_tmp : NULL);
	if (fclose(f) != 0 && rc == 0) {
		err_set("%s: write error", script);
		rc = ERR_ENV;
	}
	intr_phase("compute");
	if (rc == 0)
		rc = run_gnuplot(script);
	/* ^C reaches gnuplot too (it then fails by signal): the signal, not gnuplot, is the reason */
	intr_phase("rename");
	if (intr_pending())
		rc = intr_err(prefix);
	if (rc == 0 && o->svg && rename(svg_tmp, svg) != 0) {
		err_set("%s: cannot rename to %s: %s", svg_tmp, svg, strerror(errno));
		rc = ERR_ENV;
	}
	if (rc == 0 && o->png && rename(png_tmp, png) != 0) {
		err_set("%s: cannot rename to %s: %s", png_tmp, png, strerror(errno));
		rc = ERR_ENV;
	}
out:
	unlink(script);
	unlink(svg_tmp);
	unlink(png_tmp);
	free(svg);
	free(png);
	free(svg_tmp);
	free(png_tmp);
	free(script);
	return rc;
}
