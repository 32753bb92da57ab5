/* tests for the MLLOG reader (calibrate/cal_mllog.c). SPDX-License-Identifier: GPL-3.0-or-later */
#include <math.h>
#include <string.h>

#include "calibrate/cal.h"
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

int main(void)
{
	test_ctx t = {0};
	test_event(&t);
	test_run(&t);
	return test_report(&t);
}
