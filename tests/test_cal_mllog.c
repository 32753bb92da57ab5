/* tests for the MLLOG reader (calibrate/cal_mllog.c). SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate/cal.h"
#include "calibrate/cal_internal.h" /* calibrate/'s parts under test */
#include "common/common.h"
#include "test.h"

static void test_event(test_ctx *t)
{
	cal_mllog_event ev;
	const char *l = "12: :::MLLOG {\"namespace\": \"\", \"time_ms\": 1500, \"event_type\": \"POINT_IN_TIME\", "
			"\"key\": \"eval_accuracy\", \"value\": 0.75, \"metadata\": {\"epoch_num\": 8, \"x\": [1, {\"a\": null}]}}";
	TEST_CHECK(t, cal_mllog_event_parse(&ev, l, strlen(l)) == 0, "parse: %s", err_msg());
	TEST_CHECK(t, strcmp(ev.key, "eval_accuracy") == 0, "key '%s'", ev.key);
	TEST_NEAR(t, ev.time_ms, 1500, 0);
	TEST_NEAR(t, ev.value_num, 0.75, 0);
	TEST_NEAR(t, ev.epoch_num, 8, 0);
	TEST_CHECK(t, cal_mllog_event_parse(&ev, "no tag here", 11) == 1, "non-event line");
	/* truncated, bad escape, deep nesting, trailing text, missing key / time */
	const char *bad[] = { ":::MLLOG {\"time_ms\": 1, \"key\": \"a\"", ":::MLLOG {\"time_ms\": 1, \"key\": \"a\\q\"}",
			      ":::MLLOG {\"time_ms\": 1, \"key\": \"a\", \"v\": [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}",
			      ":::MLLOG {\"time_ms\": 1, \"key\": \"a\"} x", ":::MLLOG {\"time_ms\": 1}",
			      ":::MLLOG {\"key\": \"a\"}", ":::MLLOG {\"time_ms\": 1e999, \"key\": \"a\"}", ":::MLLOG" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		TEST_CHECK(t, cal_mllog_event_parse(&ev, bad[i], strlen(bad[i])) < 0, "bad line %zu accepted", i);
	/* not NUL-terminated: the parser must stop at len */
	char buf[64];
	memset(buf, '[', sizeof buf);
	memcpy(buf, ":::MLLOG ", 9);
	TEST_CHECK(t, cal_mllog_event_parse(&ev, buf, sizeof buf) < 0, "unterminated buffer accepted");
}

static void test_run(test_ctx *t)
{
	cal_mllog_run run;
	int rc = cal_mllog_load(&run, "tests/data/cal/run_ok.log", NAN, true, stderr);
	TEST_CHECK(t, rc == 0, "load: %s", err_msg());
	TEST_CHECK(t, run.nbad == 0, "nbad %d", run.nbad);
	TEST_CHECK(t, strcmp(run.status, "success") == 0, "status '%s'", run.status);
	TEST_CHECK(t, strcmp(run.platform, "testbed-h200x2") == 0, "platform '%s'", run.platform);
	TEST_NEAR(t, run.global_batch, 3200, 0);
	TEST_NEAR(t, run.epochs, 4, 0);                 /* 0.7601 >= 0.759 at epoch 4 */
	TEST_NEAR(t, run.tta_s, 209.0, 1e-12);          /* run_stop - run_start */
	TEST_NEAR(t, run.throughput_img_s, 4 * 1281167.0 / 209.0, 1e-12);
	TEST_NEAR(t, run.block_img_s, 4 * 1281167.0 / 200.0, 1e-12); /* two blocks of 2 epochs, 100 s each */
	cal_mllog_run_free(&run);

	/* a higher target than the run reached, but the log says success: its last eval epoch */
	rc = cal_mllog_load(&run, "tests/data/cal/run_ok.log", 0.9, false, NULL);
	TEST_CHECK(t, rc == 0 && run.epochs == 4, "target 0.9: epochs %g", run.epochs);
	cal_mllog_run_free(&run);

	/* malformed lines: reported and skipped; fatal with strict; an aborted run has no epochs */
	FILE *errs = tmpfile();
	rc = cal_mllog_load(&run, "tests/data/cal/run_bad.log", NAN, false, errs);
	TEST_CHECK(t, rc == 0, "lenient load: %s", err_msg());
	TEST_CHECK(t, run.nbad == 2, "nbad %d (expected 2)", run.nbad);
	TEST_CHECK(t, !isfinite(run.epochs) && !isfinite(run.throughput_img_s), "aborted run has epochs %g", run.epochs);
	TEST_NEAR(t, run.tta_s, 8.0, 1e-12);
	char msg[512] = "";
	rewind(errs);
	size_t n = fread(msg, 1, sizeof msg - 1, errs);
	msg[n] = '\0';
	TEST_CHECK(t, strstr(msg, "run_bad.log:2:") && strstr(msg, "run_bad.log:3:"), "messages name file:line: %s", msg);
	fclose(errs);
	cal_mllog_run_free(&run);
	rc = cal_mllog_load(&run, "tests/data/cal/run_bad.log", NAN, true, NULL);
	TEST_CHECK(t, rc < 0 && strstr(err_msg(), "run_bad.log:2"), "strict: rc %d '%s'", rc, err_msg());
	cal_mllog_run_free(&run);
	rc = cal_mllog_parse_buf(&run, "empty", "hello\nworld\n", 12, NAN, false, NULL);
	TEST_CHECK(t, rc < 0, "a log without events is an error");
	cal_mllog_run_free(&run);
}

/* Phase extraction on excerpts of real v4.0 logs (tests/data/mllog_v4/README.md says what was cut).
 * Expected values computed by hand from the time_ms of the excerpt's events. */
static void test_phases_v4(test_ctx *t)
{
	const char *nv = "tests/data/mllog_v4/NVIDIA/results/eos_n8_ngc24.04_mxnet/resnet/result_0.txt";
	cal_mllog_run run;
	cal_phase_row r;
	int rc = cal_mllog_load(&run, nv, NAN, true, stderr);
	TEST_CHECK(t, rc == 0, "load: %s", err_msg());
	/* :::SYSJSON: number_of_nodes "8", accelerators_per_node "8" */
	TEST_CHECK(t, run.ph.nodes == 8 && run.ph.gpus_per_node == 8, "nodes %d gpus/node %d", run.ph.nodes,
		   run.ph.gpus_per_node);
	cal_phase_row_from_run(&r, &run, "src:NVIDIA/results/eos_n8_ngc24.04_mxnet/resnet/result_0.txt");
	TEST_CHECK(t, strcmp(r.submitter, "NVIDIA") == 0 && strcmp(r.system, "eos_n8_ngc24.04_mxnet") == 0,
		   "submitter '%s' system '%s'", r.submitter, r.system);
	TEST_CHECK(t, strcmp(r.status, "success") == 0, "status '%s'", r.status);
	TEST_NEAR(t, r.gpus, 64, 0);
	TEST_NEAR(t, r.global_batch, 3200, 0);
	TEST_NEAR(t, r.eval_samples, 50000, 0);
	TEST_NEAR(t, r.init_s, 58.663, 1e-9);        /* 1714090291947 - 1714090233284 ms */
	TEST_NEAR(t, r.init_to_run_s + 1.0, 1.0, 1e-12); /* init_stop and run_start share a time */
	TEST_NEAR(t, r.run_s, 150.326, 1e-9);        /* 442273 - 291947 */
	TEST_NEAR(t, r.tta_s, 208.989, 1e-9);        /* 442273 - 233284 */
	TEST_NEAR(t, r.epochs, 11, 0);               /* epochs 1-7 and 32-35 */
	TEST_NEAR(t, r.epochs_to_target, 35, 0);     /* 0.76074 at epoch 35 */
	TEST_NEAR(t, r.lead_s, 1.066, 1e-9);         /* first epoch_start 293013 */
	TEST_NEAR(t, r.first_epoch_s, 9.497, 1e-9);  /* 302510 - 293013 */
	TEST_NEAR(t, r.warm_epoch_s, 4.0783, 1e-9);  /* the other ten: 40.783 s */
	TEST_NEAR(t, r.first_epoch_extra_s, 5.4187, 1e-9);
	TEST_NEAR(t, r.evals, 3, 0);
	TEST_NEAR(t, r.eval_total_s, 0.553, 1e-9);   /* 0.418 + 0.068 + 0.067 */
	TEST_NEAR(t, r.eval_first_s, 0.418, 1e-9);
	TEST_NEAR(t, r.eval_pass_s, 0.0675, 1e-9);
	TEST_NEAR(t, r.boundary_s, 150.326 - 1.066 - 50.28 - 0.553, 1e-9); /* incl. the cut 8-31 */
	TEST_NEAR(t, r.train_img_s, 1281167 / 4.0783, 1e-9);
	TEST_NEAR(t, r.blocks, 3, 0);
	/* epoch_count only on block_start (NVIDIA v4.0): 11 epochs in 18.091 + 16.382 + 16.388 s */
	TEST_NEAR(t, run.block_img_s, 11 * 1281167.0 / 50.861, 1e-9);
	cal_mllog_run_free(&run);

	/* the tree: the Dell log has no :::SYSJSON; its counts come from Dell/systems/<system>.json */
	char out[] = "/tmp/test_phases_XXXXXX";
	int fd = mkstemp(out);
	TEST_CHECK(t, fd >= 0, "mkstemp");
	close(fd);
	int nrows = 0;
	rc = cal_phases_write_dir("tests/data/mllog_v4", "repo@c:", out, NAN, true, stderr, &nrows);
	TEST_CHECK(t, rc == 0 && nrows == 2, "write_dir: rc %d rows %d %s", rc, nrows, err_msg());
	char *buf;
	size_t len;
	cal_phase_row *rows = NULL;
	int n = 0;
	TEST_CHECK(t, file_read_all(out, &buf, &len) == 0, "read back");
	rc = cal_phases_read_buf(out, buf, len, &rows, &n);
	TEST_CHECK(t, rc == 0 && n == 2, "read_buf: rc %d n %d %s", rc, n, err_msg());
	if (n == 2) {
		/* sorted by path: Dell first */
		TEST_CHECK(t, strcmp(rows[0].source, "repo@c:Dell/results/XE9680x8H100-SXM-80GB/resnet/result_0.txt") == 0,
			   "source '%s'", rows[0].source);
		TEST_NEAR(t, rows[0].nodes, 1, 0);
		TEST_NEAR(t, rows[0].gpus_per_node, 8, 0);
		TEST_NEAR(t, rows[0].init_s, 47.901, 1e-9);   /* 1714567096908 - 1714567049007 */
		TEST_NEAR(t, rows[0].init_to_run_s, 0.001, 1e-9);
		TEST_NEAR(t, rows[0].run_s, 789.524, 1e-9);   /* 886433 - 096909 */
		TEST_NEAR(t, rows[0].eval_pass_s, 0.319, 1e-9); /* 886432 - 886113 */
		TEST_NEAR(t, rows[1].run_s, 150.326, 1e-9);
		TEST_CHECK(t, strcmp(rows[0].accelerator, "NVIDIA H100-SXM5-80GB") == 0 &&
				      strcmp(rows[1].accelerator, "NVIDIA H100-SXM5-80GB") == 0,
			   "accelerators '%s' '%s'", rows[0].accelerator, rows[1].accelerator);
		TEST_NEAR(t, rows[1].nodes, 8, 0);
	}
	free(rows);
	free(buf);
	/* a table without a column, and a bad number: file:line:col messages */
	const char *bad = "source,nodes\nx,1\n";
	rc = cal_phases_read_buf("bad.csv", bad, strlen(bad), &rows, &n);
	TEST_CHECK(t, rc < 0 && strstr(err_msg(), "bad.csv:1") && strstr(err_msg(), "submitter"), "missing column: %s",
		   err_msg());
	unlink(out);
	/* the built-in table parses and has the 180 v4.0 logs */
	rc = cal_phases_builtin(&rows, &n);
	TEST_CHECK(t, rc == 0 && n == 180, "builtin: rc %d n %d %s", rc, n, err_msg());
	free(rows);
}

/* The run-level fits recover exact forms from made-up runs: start-up 30 + 2 nodes, evaluation
 * 0.005 + 0.4 x 50,000 / img/s, boundary 0.25 steps per epoch (a fixed part < 0 is refitted as 0),
 * warm-up 1 + max(0, 1e11 / (nodes x 2e9) - warm epoch). An excluded organisation is left out. */
static void test_phase_fit(test_ctx *t)
{
	enum { N = 6 };
	static const double nodes[N] = {1, 2, 4, 8, 16, 64}, warm[N] = {20, 15, 3, 10, 2, 0.5};
	cal_phase_row rows[N + 1];
	cal_phase_fit f;
	char org[16];

	for (int i = 0; i < N + 1; i++) {
		cal_phase_row *r = &rows[i];
		double n = i < N ? nodes[i] : 1, w = i < N ? warm[i] : 20;
		memset(r, 0, sizeof *r);
		strcpy(r->submitter, i < N ? "org" : "other-x");
		strcpy(r->status, "success");
		r->blocks = 9, r->nodes = n, r->gpus = 8 * n, r->global_batch = 3200, r->epochs = 35;
		r->train_samples = 1281167, r->eval_samples = 50000, r->warm_epoch_s = w;
		r->train_img_s = 1281167 / w;
		r->run_s = 35 * w;
		r->init_s = 30 + 2 * n + (i == N ? 1000 : 0), r->init_to_run_s = 0;
		r->eval_pass_s = 0.005 + 0.4 * 50000 / r->train_img_s;
		r->boundary_s = 35 * 0.25 * 3200 / r->train_img_s;
		r->lead_s = 1, r->eval_first_s = r->eval_pass_s;
		r->first_epoch_extra_s = fmax(0, 1e11 / (n * 2e9) - w);
	}
	cal_phase_org("smc-ac-power", org, sizeof org);
	TEST_CHECK(t, strcmp(org, "smc") == 0, "org '%s'", org);
	/* the 7th run (organisation "other") has a start-up far off the line: excluded, the fit is exact */
	TEST_CHECK(t, cal_phase_fit_rows(rows, N + 1, "other", 1e11, &f) == 0, "fit: %s", err_msg());
	TEST_CHECK(t, f.nruns == N, "runs %d", f.nruns);
	TEST_NEAR(t, f.startup_s, 30, 1e-9);
	TEST_NEAR(t, f.startup_per_node_s, 2, 1e-9);
	TEST_NEAR(t, f.eval_fixed_s, 0.005, 1e-9);
	TEST_NEAR(t, f.eval_step_frac, 0.4, 1e-9);
	TEST_NEAR(t, f.epoch_boundary_s + 1, 1, 1e-9);
	TEST_NEAR(t, f.epoch_boundary_iters, 0.25, 1e-9);
	TEST_NEAR(t, f.run_lead_s, 1, 1e-4);
	TEST_NEAR(t, f.cold_read_Bps, 2e9, 1e-4);
	TEST_CHECK(t, cal_phase_fit_rows(rows, N + 1, NULL, 1e11, &f) == 0 && f.nruns == N + 1 && f.startup_s > 30,
		   "with the outlier: %d runs, start-up %g", f.nruns, f.startup_s);
	TEST_CHECK(t, cal_phase_fit_rows(rows, 2, NULL, 1e11, &f) < 0, "two runs cannot fit two parameters and say so");
}

/* The forms are chosen by leave-one-organisation-out cross-validation: four organisations whose start-up
 * is exactly 30 + 5 log2(nodes) and lead-in 0.5 s + 10 steps. Each form fitted without one organisation
 * predicts it exactly only for the true form, so log2 and the step form win, with the exact
 * coefficients. A start-up that does not vary with nodes keeps the constant (the simplest form). */
static void test_phase_form_cv(test_ctx *t)
{
	enum { N = 12 };
	cal_phase_row rows[N];
	cal_phase_fit f;

	for (int i = 0; i < N; i++) {
		cal_phase_row *r = &rows[i];
		double n = (double)(1 << (i % 3 * 2 + i / 3)), w = 10 + 7 * (i % 4);   /* 1..64 nodes */
		memset(r, 0, sizeof *r);
		snprintf(r->submitter, sizeof r->submitter, "org%d", i / 3);
		strcpy(r->status, "success");
		r->blocks = 9, r->nodes = n, r->gpus = 8 * n, r->global_batch = 3200, r->epochs = 35;
		r->train_samples = 1281167, r->eval_samples = 50000, r->warm_epoch_s = w;
		r->train_img_s = 1281167 / w;
		r->run_s = 35 * w;
		r->init_s = 30 + 5 * log2(n), r->init_to_run_s = 0;
		r->eval_pass_s = 0.005 + 0.4 * 50000 / r->train_img_s;
		r->boundary_s = 35 * 0.25 * 3200 / r->train_img_s;
		r->lead_s = 0.5 + 10 * 3200 / r->train_img_s, r->eval_first_s = r->eval_pass_s;
		r->first_epoch_extra_s = fmax(0, 1e11 / (n * 2e9) - w);
	}
	TEST_CHECK(t, cal_phase_fit_rows(rows, N, NULL, 1e11, &f) == 0, "fit: %s", err_msg());
	TEST_CHECK(t, f.startup_form == CAL_STARTUP_LOG2, "start-up form %d (%s)", f.startup_form,
		   cal_startup_form_name(f.startup_form));
	TEST_CHECK(t, f.cv_startup[CAL_STARTUP_LOG2] < 1e-9, "log2 cv %g", f.cv_startup[CAL_STARTUP_LOG2]);
	TEST_CHECK(t, f.cv_startup[CAL_STARTUP_CONST] > 0.01 && f.cv_startup[CAL_STARTUP_LINEAR] > 0.01,
		   "wrong forms predict the left-out organisation badly: %g %g", f.cv_startup[CAL_STARTUP_CONST],
		   f.cv_startup[CAL_STARTUP_LINEAR]);
	TEST_NEAR(t, f.startup_s, 30, 1e-9);
	TEST_NEAR(t, f.startup_per_log2_node_s, 5, 1e-9);
	TEST_CHECK(t, f.startup_per_node_s == 0 && f.startup_per_sqrt_node_s == 0, "one slope only");
	TEST_CHECK(t, f.lead_form == CAL_LEAD_STEPS, "lead-in form %d", f.lead_form);
	TEST_NEAR(t, f.run_lead_s, 0.5, 1e-9);
	TEST_NEAR(t, f.run_lead_steps, 10, 1e-7);
	/* start-up flat in nodes, lead-in flat in steps: the constants */
	for (int i = 0; i < N; i++)
		rows[i].init_s = 40, rows[i].lead_s = 0.8;
	TEST_CHECK(t, cal_phase_fit_rows(rows, N, NULL, 1e11, &f) == 0, "fit: %s", err_msg());
	TEST_CHECK(t, f.startup_form == CAL_STARTUP_CONST && f.lead_form == CAL_LEAD_CONST, "forms %d %d",
		   f.startup_form, f.lead_form);
	TEST_NEAR(t, f.startup_s, 40, 1e-9);
	TEST_NEAR(t, f.run_lead_s, 0.8, 1e-9);
	TEST_NEAR(t, f.run_lead_steps, 0, 1e-12);
}

/* The start-up's growth comes from each system's own runs at one and more nodes: four organisations whose
 * start-up at one node differs (25, 40, 55, 70 s: their software) and grows by 4 s per doubling of the nodes.
 * Across all runs the offsets swamp the growth (the biggest runs belong to the fastest starter, so a plain
 * line through every run would find the slope negative); the slope from the pairs is 4 exactly, the fixed
 * part the relative mean of the offsets. */
static void test_phase_startup_pairs(test_ctx *t)
{
	enum { N = 12 };
	static const double offset_s[4] = {70, 55, 40, 25};
	cal_phase_row rows[N];
	cal_phase_fit f;

	for (int i = 0; i < N; i++) {
		cal_phase_row *r = &rows[i];
		int org = i / 3;
		double n = (double)(1 << ((i % 3) * (org + 1))), w = 100; /* 1, then 2^(org+1), 4^(org+1) nodes */
		memset(r, 0, sizeof *r);
		snprintf(r->submitter, sizeof r->submitter, "org%d", org);
		strcpy(r->status, "success");
		strcpy(r->accelerator, "gpu");
		r->blocks = 9, r->nodes = n, r->gpus = 8 * n, r->gpus_per_node = 8, r->global_batch = 3200, r->epochs = 35;
		r->train_samples = 1281167, r->eval_samples = 50000, r->warm_epoch_s = w / n;
		r->train_img_s = 1281167 / r->warm_epoch_s;
		r->run_s = 35 * r->warm_epoch_s;
		r->init_s = offset_s[org] + 4 * log2(n), r->init_to_run_s = 0;
		r->eval_pass_s = 0.005 + 0.4 * 50000 / r->train_img_s;
		r->boundary_s = 35 * 0.25 * 3200 / r->train_img_s;
		r->lead_s = 0.8, r->eval_first_s = r->eval_pass_s;
		r->first_epoch_extra_s = 0;
	}
	TEST_CHECK(t, cal_phase_fit_rows(rows, N, NULL, 1e11, &f) == 0, "fit: %s", err_msg());
	TEST_CHECK(t, f.startup_form == CAL_STARTUP_LOG2, "start-up form %d (%s)", f.startup_form,
		   cal_startup_form_name(f.startup_form));
	TEST_NEAR(t, f.startup_per_log2_node_s, 4, 1e-9);
	TEST_CHECK(t, f.startup_s > 25 && f.startup_s < 70, "fixed part %g between the offsets", f.startup_s);
}

/* Anchoring on one system's runs, by hand: at 2 nodes and a 0.05 s step the fit says start-up 30 + 5 log2(2)
 * = 35 s and lead-in 0.5 + 25 x 0.05 = 1.75 s; the runs measured 45 s and 2 s: the start-up's fixed part
 * moves by the 10 s (its growth with nodes stays), the lead-in scales by 8/7. A first epoch of 30 s against 20 s warm: 1e11 / (2 x R) = 30 s, R = 1.667e9 B/s. A first epoch
 * only 0.5 s slower bounds R from below (2.439e9): the fit's 4e9 stays, a fit of 1e9 is raised to it. */
static void test_phase_anchor(test_ctx *t)
{
	enum { N = 4 };
	cal_phase_row rows[N];
	cal_phase_fit f, f0 = {.startup_s = 30, .startup_per_log2_node_s = 5, .run_lead_s = 0.5, .run_lead_steps = 25,
			       .cold_read_Bps = 4e9};

	for (int i = 0; i < N; i++) {
		cal_phase_row *r = &rows[i];
		memset(r, 0, sizeof *r);
		strcpy(r->submitter, i < 3 ? "me" : "other");
		strcpy(r->system, "box");
		strcpy(r->status, "success");
		r->blocks = 9, r->nodes = i < 3 ? 2 : 4, r->gpus = 8 * r->nodes, r->global_batch = 3200, r->epochs = 35;
		r->run_s = 700, r->train_img_s = 64000;
		r->init_s = 44 + i % 3, r->init_to_run_s = 0;
		r->lead_s = 2, r->eval_first_s = r->eval_pass_s = 0.1;
		r->first_epoch_s = 30, r->warm_epoch_s = 20;
	}
	f = f0;
	TEST_CHECK(t, cal_phase_anchor(&f, rows, N, "me", "box", 1e11) == 0, "anchor: %s", err_msg());
	TEST_CHECK(t, f.anchor_runs == 3 && f.anchor_nodes == 2, "runs %d at %g nodes", f.anchor_runs, f.anchor_nodes);
	TEST_NEAR(t, f.startup_s, 30 + 10, 1e-9);
	TEST_NEAR(t, f.startup_per_log2_node_s, 5, 1e-9);
	TEST_NEAR(t, f.anchor_startup_x, 45.0 / 35, 1e-9);
	TEST_NEAR(t, f.run_lead_s, 0.5 * 8.0 / 7, 1e-9);
	TEST_NEAR(t, f.run_lead_steps, 25 * 8.0 / 7, 1e-9);
	TEST_NEAR(t, f.cold_read_Bps / 1e9, 1e11 / 60 / 1e9, 1e-9);
	for (int i = 0; i < 3; i++)
		rows[i].first_epoch_s = 20.5;
	f = f0;
	TEST_CHECK(t, cal_phase_anchor(&f, rows, N, "me", NULL, 1e11) == 0 && f.cold_read_Bps == 4e9,
		   "a first epoch within 5%% keeps the higher fitted rate: %g", f.cold_read_Bps);
	f = f0, f.cold_read_Bps = 1e9;
	TEST_CHECK(t, cal_phase_anchor(&f, rows, N, "me", NULL, 1e11) == 0, "anchor: %s", err_msg());
	TEST_NEAR(t, f.cold_read_Bps / 1e9, 1e11 / 41 / 1e9, 1e-9);
	f = f0;
	TEST_CHECK(t, cal_phase_anchor(&f, rows, N, NULL, NULL, 1e11) < 0 && strstr(err_msg(), "one node count") &&
			      f.startup_s == 30, "runs at 2 and 4 nodes are refused, the fit untouched: %s", err_msg());
	TEST_CHECK(t, cal_phase_anchor(&f, rows, N, "nobody", NULL, 1e11) < 0 && strstr(err_msg(), "no usable run"),
		   "no run: %s", err_msg());
}

int main(void)
{
	test_ctx t = {0};
	test_event(&t);
	test_run(&t);
	test_phases_v4(&t);
	test_phase_fit(&t);
	test_phase_form_cv(&t);
	test_phase_startup_pairs(&t);
	test_phase_anchor(&t);
	return test_report(&t);
}
