/* tests for plot/: chart-kind detection, series grouping, the Pareto front on a hand-computed case,
 * gnuplot string escaping (no injection through names), and the error messages of bad CSVs.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot/plot.h"
#include "plot/plot_internal.h" /* plot/'s parts under test */
#include "tests/test.h"

static int parse(csv_table *t, const char *text)
{
	return csv_table_parse(t, "t.csv", text, strlen(text));
}

static void test_detect(test_ctx *t)
{
	static const struct {
		const char *csv;
		plot_kind want;
	} cases[] = {
		{"system,gpus_per_node,gpus,tta_s,ttt_s\n", PLOT_TTA},
		{"group,file,line,measured,predicted\n", PLOT_PARITY},
		{"source,epoch,throughput_img_s,top1,time_s\n", PLOT_EPOCHS},
		{"a,b,c\n", PLOT_AUTO},
		{"system,gpus\n", PLOT_AUTO},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		csv_table tb;
		TEST_CHECK(t, parse(&tb, cases[i].csv) == 0, "%s", err_msg());
		TEST_CHECK(t, plot_kind_detect(&tb) == cases[i].want, "case %zu: %s", i, plot_kind_name(plot_kind_detect(&tb)));
		csv_table_free(&tb);
	}
	plot_kind k;
	TEST_CHECK(t, plot_kind_parse("cost", &k) && k == PLOT_COST, "cost");
	TEST_CHECK(t, !plot_kind_parse("pie", &k), "pie is no kind");
}

static void test_grouping(test_ctx *t)
{
	/* two systems, two placements of one; a 16-GPU duplicate (another batch) keeps the faster;
	 * a row that does not fit and an unpriced row */
	const char *csv = "system,gpus_per_node,gpus,tta_s,ttt_s,fits,capex_usd\n"
			  "a,8,16,600,540,1,200\n"
			  "a,8,8,1200,1100,1,100\n"
			  "a,1,8,1800,1700,1,400\n"
			  "b,4,4,3000,,1,\n"
			  "a,8,16,480,420,1,200\n"
			  "b,4,8,60,50,0,\n";
	csv_table tb;
	TEST_CHECK(t, parse(&tb, csv) == 0, "%s", err_msg());
	const csv_table *tp = &tb;
	plot_data d;
	TEST_CHECK(t, plot_data_build(&d, PLOT_TTA, &tp, 1) == 0, "%s", err_msg());
	TEST_CHECK(t, d.nseries == 3, "nseries %d", d.nseries);
	if (d.nseries == 3) {
		TEST_CHECK(t, strcmp(d.series[0].label, "a 8/node") == 0, "%s", d.series[0].label);
		TEST_CHECK(t, strcmp(d.series[1].label, "a 1/node") == 0, "%s", d.series[1].label);
		TEST_CHECK(t, strcmp(d.series[2].label, "b 4/node") == 0, "%s", d.series[2].label);
		TEST_CHECK(t, d.series[0].n == 2, "a 8/node points %d", d.series[0].n);
		/* sorted by GPUs; minutes; the faster 16-GPU row kept */
		TEST_NEAR(t, d.series[0].x[0], 8, 0);
		TEST_NEAR(t, d.series[0].y[0], 20.0, 1e-12);
		TEST_NEAR(t, d.series[0].x[1], 16, 0);
		TEST_NEAR(t, d.series[0].y[1], 8.0, 1e-12);
		TEST_NEAR(t, d.series[0].y2[1], 7.0, 1e-12);
		TEST_CHECK(t, d.series[2].n == 1 && isnan(d.series[2].y2[0]), "b: one point, no ttt");
	}
	TEST_CHECK(t, d.has_y2, "ttt present");
	plot_data_free(&d);
	/* cost: unpriced rows dropped, so b has no series */
	TEST_CHECK(t, plot_data_build(&d, PLOT_COST, &tp, 1) == 0, "%s", err_msg());
	TEST_CHECK(t, d.nseries == 2, "cost series %d", d.nseries);
	TEST_CHECK(t, !d.has_y2, "no energy column");
	plot_data_free(&d);
	csv_table_free(&tb);
}

/* More systems than a reader can follow: the 10 fastest lines are drawn, in their order, the rest counted. */
static void test_max_series(test_ctx *t)
{
	char csv[4096] = "system,gpus_per_node,gpus,tta_s,ttt_s,fits,capex_usd\n";
	for (int i = 0; i < 14; i++) { /* s0 is slowest ... s13 fastest */
		size_t n = strlen(csv);
		snprintf(csv + n, sizeof csv - n, "s%d,8,8,%d,%d,1,100\n", i, 6000 - 300 * i, 5000 - 300 * i);
	}
	csv_table tb;
	TEST_CHECK(t, parse(&tb, csv) == 0, "%s", err_msg());
	const csv_table *tp = &tb;
	plot_data d;
	TEST_CHECK(t, plot_data_build(&d, PLOT_TTA, &tp, 1) == 0, "%s", err_msg());
	TEST_CHECK(t, d.nseries == PLOT_MAX_SERIES && d.dropped == 4, "nseries %d dropped %d", d.nseries, d.dropped);
	if (d.nseries == PLOT_MAX_SERIES) {
		TEST_CHECK(t, strcmp(d.series[0].label, "s4 8/node") == 0, "first kept %s", d.series[0].label);
		TEST_CHECK(t, strcmp(d.series[9].label, "s13 8/node") == 0, "last kept %s", d.series[9].label);
	}
	plot_data_free(&d);
	csv_table_free(&tb);
}

/* A cost chart with more lines than it draws keeps every line on the time-cost front first: here the slowest
 * line (s0) is also the cheapest, so it is on the front and drawn; then the fastest others fill the chart. */
static void test_max_series_cost(test_ctx *t)
{
	char csv[4096] = "system,gpus_per_node,gpus,tta_s,ttt_s,fits,capex_usd\n";
	for (int i = 0; i < 14; i++) { /* s0 slowest and cheapest; s1..s13 faster, all dearer than the fastest */
		size_t n = strlen(csv);
		snprintf(csv + n, sizeof csv - n, "s%d,8,8,%d,%d,1,%d\n", i, 6000 - 300 * i, 5000 - 300 * i,
			 i == 0 ? 50 : 1000 - 10 * i);
	}
	csv_table tb;
	TEST_CHECK(t, parse(&tb, csv) == 0, "%s", err_msg());
	const csv_table *tp = &tb;
	plot_data d;
	TEST_CHECK(t, plot_data_build(&d, PLOT_COST, &tp, 1) == 0, "%s", err_msg());
	TEST_CHECK(t, d.nseries == PLOT_MAX_SERIES && d.dropped == 4, "nseries %d dropped %d", d.nseries, d.dropped);
	bool cheapest = false, fastest = false, s4 = false;
	for (int i = 0; i < d.nseries; i++) {
		cheapest |= strcmp(d.series[i].label, "s0 8/node") == 0;
		fastest |= strcmp(d.series[i].label, "s13 8/node") == 0;
		s4 |= strcmp(d.series[i].label, "s4 8/node") == 0;
	}
	TEST_CHECK(t, cheapest, "the cheapest line (on the front) was dropped");
	TEST_CHECK(t, fastest, "the fastest line was dropped");
	TEST_CHECK(t, !s4, "s4 kept: the 9 fastest others are s5..s13");
	TEST_CHECK(t, d.nfront == 2, "front lines %d (s0 cheapest, s13 fastest)", d.nfront);
	plot_data_free(&d);
	csv_table_free(&tb);
}

static void test_epochs(test_ctx *t)
{
	const char *csv = "source,run_id,epoch,iters,iter_s,throughput_img_s,top1\n"
			  "exec,r1,,100,0.5,900,0.8\n"
			  "exec,r1,1,10,0.5,1000,0.3\n"
			  "exec,r1,2,10,0.25,1100,0.5\n"
			  "exec,r2,1,4,1,800,0.2\n";
	csv_table tb;
	TEST_CHECK(t, parse(&tb, csv) == 0, "%s", err_msg());
	const csv_table *tp = &tb;
	plot_data d;
	TEST_CHECK(t, plot_data_build(&d, PLOT_EPOCHS, &tp, 1) == 0, "%s", err_msg());
	TEST_CHECK(t, d.nseries == 2, "runs %d", d.nseries);
	if (d.nseries == 2 && d.series[0].n == 2) {
		TEST_NEAR(t, d.series[0].x[0], 5.0, 1e-12);
		TEST_NEAR(t, d.series[0].x[1], 7.5, 1e-12); /* elapsed: 10 x 0.5 + 10 x 0.25 */
		TEST_NEAR(t, d.series[0].y2[1], 0.5, 1e-12);
		TEST_CHECK(t, strcmp(d.series[1].label, "t.csv r2") == 0, "%s", d.series[1].label);
	}
	plot_data_free(&d);
	csv_table_free(&tb);
}

static void test_pareto(test_ctx *t)
{
	/* minimise both: (3,7) is dominated by (2,5), (5,1) by (4,1), (2,6) by (2,5); (2,5) twice is on
	 * the front twice; the NAN point never is */
	const double x[] = {1, 2, 3, 4, 2, NAN, 5, 2};
	const double y[] = {10, 5, 7, 1, 5, 0.5, 1, 6};
	const bool want[] = {true, true, false, true, true, false, false, false};
	bool on[8];
	int n = plot_pareto(x, y, 8, on);
	TEST_CHECK(t, n == 4, "front size %d", n);
	for (int i = 0; i < 8; i++)
		TEST_CHECK(t, on[i] == want[i], "point %d (%g, %g): %d", i, x[i], y[i], on[i]);
	TEST_CHECK(t, plot_pareto(x, y, 0, on) == 0, "empty");
}

static void test_escape(test_ctx *t)
{
	char *q = plot_gp_quote("a'b\nc\\`d`@x");
	TEST_CHECK(t, strcmp(q, "'a''b c\\`d`@x'") == 0, "%s", q);
	free(q);
	/* a series named to break out of the string and run a command: the script keeps it inside one literal */
	const char *csv = "system,gpus_per_node,gpus,tta_s\n"
			  "\"x'\nsystem 'touch /tmp/pwned'\n#\",8,8,100\n";
	csv_table tb;
	TEST_CHECK(t, parse(&tb, csv) == 0, "%s", err_msg());
	const csv_table *tp = &tb;
	plot_data d;
	TEST_CHECK(t, plot_data_build(&d, PLOT_TTA, &tp, 1) == 0, "%s", err_msg());
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	plot_opts o = {.kind = PLOT_TTA, .budget_usd = NAN, .svg = true, .png = true, .title = "it's \"mine\""};
	TEST_CHECK(t, plot_script_write(f, &d, &o, "out'.svg", "out.png") == 0, "%s", err_msg());
	fclose(f);
	TEST_CHECK(t, strstr(buf, "\nsystem") == NULL, "a line starts with system:\n%s", buf);
	TEST_CHECK(t, strstr(buf, "title 'x'' system ''touch /tmp/pwned'' # 8/node'") != NULL, "label quoted:\n%s", buf);
	TEST_CHECK(t, strstr(buf, "set output 'out''.svg'") != NULL, "output quoted");
	TEST_CHECK(t, strstr(buf, "set title 'it''s \"mine\"'") != NULL, "title quoted");
	TEST_CHECK(t, strstr(buf, "$d0 << EOD\n8 1.666666667 NaN 0\nEOD\n") != NULL, "data block:\n%s", buf);
	free(buf);
	plot_data_free(&d);
	csv_table_free(&tb);
}

/* Builds kind k from csv; expects failure with `want` in the message. */
static void expect_error(test_ctx *t, plot_kind k, const char *csv, const char *want)
{
	csv_table tb;
	if (parse(&tb, csv) < 0) {
		TEST_CHECK(t, strstr(err_msg(), want) != NULL, "parse: '%s' lacks '%s'", err_msg(), want);
		return;
	}
	const csv_table *tp = &tb;
	plot_data d;
	TEST_CHECK(t, plot_data_build(&d, k, &tp, 1) < 0, "accepted: %s", csv);
	TEST_CHECK(t, strstr(err_msg(), want) != NULL, "'%s' lacks '%s'", err_msg(), want);
	TEST_CHECK(t, d.nseries == 0 && d.series == NULL, "left empty");
	csv_table_free(&tb);
}

static void test_errors(test_ctx *t)
{
	expect_error(t, PLOT_TTA, "system,gpus_per_node,gpus\na,8,8\n", "t.csv: no column 'tta_s'");
	expect_error(t, PLOT_TTA, "system,gpus_per_node,gpus,tta_s\na,8,8,100\na,8,16,fast\n",
		     "t.csv:3:4 (tta_s): expected a finite number, found 'fast'");
	expect_error(t, PLOT_TTA, "system,gpus_per_node,gpus,tta_s\na,8,8,-5\n", "t.csv:2:4 (tta_s): expected a positive");
	expect_error(t, PLOT_TTA, "system,gpus_per_node,gpus,tta_s\na,0,8,5\n", "t.csv:2:2 (gpus_per_node)");
	expect_error(t, PLOT_TTA, "system,gpus_per_node,gpus,tta_s\na,8,8,\n", "no row has anything to draw");
	expect_error(t, PLOT_COST, "system,gpus_per_node,gpus,tta_s\na,8,8,5\n", "no column 'capex_usd'");
	expect_error(t, PLOT_COST, "system,gpus_per_node,gpus,tta_s,capex_usd\na,8,8,5,\n", "rows need tta_s and capex_usd");
	expect_error(t, PLOT_PARITY, "measured,predicted\n1,0\n", "t.csv:2:2 (predicted): expected a positive");
	expect_error(t, PLOT_EPOCHS, "epoch,throughput_img_s,top1\n1,5,0.1\n", "no column 'time_s' nor 'iters'");
	expect_error(t, PLOT_EPOCHS, "epoch,throughput_img_s,top1,time_s\n1.5,5,0.1,3\n", "t.csv:2:1 (epoch): expected an integer");
	expect_error(t, PLOT_TTA, "system,gpus_per_node,gpus,tta_s\n\"a,8,8,5\n", "t.csv");
}

/* The script of kind k from csv (cost_col for a cost chart); NULL when it cannot be built. Caller frees. */
static char *script_of(test_ctx *t, plot_kind k, const char *cost_col, const char *csv)
{
	csv_table tb;
	char *buf = NULL;
	size_t len = 0;
	if (parse(&tb, csv) < 0) {
		TEST_CHECK(t, 0, "parse: %s", err_msg());
		return NULL;
	}
	plot_data d;
	plot_data_begin(&d, k);
	d.cost_col = cost_col;
	if (plot_data_add(&d, &tb) == 0 && plot_data_end(&d, "t.csv") == 0) {
		FILE *f = open_memstream(&buf, &len);
		plot_opts o = {.kind = k, .budget_usd = NAN, .svg = true};
		TEST_CHECK(t, plot_script_write(f, &d, &o, "o.svg", NULL) == 0, "%s", err_msg());
		fclose(f);
	} else {
		TEST_CHECK(t, 0, "build: %s", err_msg());
	}
	plot_data_free(&d);
	csv_table_free(&tb);
	return buf;
}

/* Labels at every scale, extrapolated points marked, the ranked cost on a cost chart, money in
 * dollars, overlapping lines named together. */
static void test_chart_labels(test_ctx *t)
{
	/* a sweep under a minute: 20-50 s; the 64-GPU point extrapolated; b's line the same as a's */
	const char *csv = "system,gpus_per_node,gpus,tta_s,capex_usd,rent_usd,extrapolated\n"
			  "a,8,16,50,2000000,40,0\n"
			  "a,8,64,20,8000000,70,1\n"
			  "b,8,16,50,2500000,,0\n"
			  "b,8,64,20,10000000,,1\n";
	char *s = script_of(t, PLOT_TTA, NULL, csv);
	if (s) {
		TEST_CHECK(t, strstr(s, "set ytics (") && strstr(s, "'30 s' 0.5"), "tta: a 30 s label below a minute:\n%s", s);
		TEST_CHECK(t, strstr(s, "extrapolated") != NULL, "tta: extrapolated points marked:\n%s", s);
		TEST_CHECK(t, strstr(s, "64 0.3333333333 NaN 1\n") != NULL, "tta: the mark column:\n%s", s);
		TEST_CHECK(t, strstr(s, "set label 'a, b 8/node'") != NULL, "tta: one label for the lines that overlap:\n%s", s);
		free(s);
	}
	s = script_of(t, PLOT_COST, "rent_usd", csv);
	if (s) {
		/* rent: b has no rental price, so only a's points; y is rent, labelled in dollars */
		TEST_CHECK(t, strstr(s, "$d1") == NULL, "cost rent: b (no rent) drawn:\n%s", s);
		TEST_CHECK(t, strstr(s, "0.3333333333 70 ") != NULL, "cost rent: y is rent_usd:\n%s", s);
		TEST_CHECK(t, strstr(s, "set ylabel 'rent per run") != NULL, "cost rent: y label:\n%s", s);
		TEST_CHECK(t, strstr(s, "'$50' 50") != NULL, "cost rent: dollars on y:\n%s", s);
		free(s);
	}
	s = script_of(t, PLOT_COST, NULL, csv);
	if (s) {
		TEST_CHECK(t, strstr(s, "'$10M' 10000000") != NULL || strstr(s, "'$5M' 5000000") != NULL,
			   "cost capex: $M labels:\n%s", s);
		TEST_CHECK(t, strstr(s, "e+") == NULL, "cost: no exponent anywhere:\n%s", s);
		free(s);
	}
}

/* The energy panel of a cost chart on a linear axis from 0 (a log axis ran 1-100 for energies up to 15 kWh); a
 * cash-flow chart's money tics as "$800k" (gnuplot's '%.1s%c' wrote "$800.0k") and its key below the frame
 * (inside, it sat on the owned line, which starts at the top left). */
static void test_chart_axes(test_ctx *t)
{
	const char *csv = "system,gpus_per_node,gpus,tta_s,capex_usd,energy_J\n"
			  "a,8,8,500,400000,18000000\n"
			  "a,8,16,300,800000,54000000\n";
	char *s = script_of(t, PLOT_COST, NULL, csv);
	if (s) {
		const char *e = strstr(s, "energy per run");
		TEST_CHECK(t, e && strstr(s, "unset logscale y") && strstr(s, "unset logscale y") < e,
			   "cost: the energy panel on a linear axis:\n%s", s);
		free(s);
	}
	plot_data d = {0};
	d.kind = PLOT_CASHFLOW;
	for (int y = 0; y <= 5; y++)
		plot_data_add_point(&d, "owned, cumulative", y, 450000 + 70000.0 * y, NAN);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	plot_opts o = {.kind = PLOT_CASHFLOW, .budget_usd = NAN, .svg = true};
	TEST_CHECK(t, plot_script_write(f, &d, &o, "o.svg", NULL) == 0, "%s", err_msg());
	fclose(f);
	TEST_CHECK(t, strstr(buf, "'$800k' 800000") != NULL && strstr(buf, ".0k") == NULL && strstr(buf, "%c") == NULL,
		   "cash flow: tics as $800k:\n%s", buf);
	TEST_CHECK(t, strstr(buf, "key inside") == NULL, "cash flow: the key inside the frame:\n%s", buf);
	free(buf);
	plot_data_free(&d);
}

int main(void)
{
	test_ctx t = {0};
	test_detect(&t);
	test_grouping(&t);
	test_max_series(&t);
	test_max_series_cost(&t);
	test_epochs(&t);
	test_pareto(&t);
	test_escape(&t);
	test_errors(&t);
	test_chart_labels(&t);
	test_chart_axes(&t);
	return test_report(&t);
}
