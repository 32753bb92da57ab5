/* exec/ex_mllog.h - MLPerf-style ":::MLLOG {json}" lines as the MLCommons compliance checker reads them.
 *
 * Format: one JSON object per line after the ":::MLLOG " prefix, with namespace, time_ms, event_type
 * (POINT_IN_TIME, INTERVAL_START or INTERVAL_END), key, value and metadata (file, lineno, and for epoch-level
 * events epoch_num; run_stop carries status in its metadata). Source: github.com/mlcommons/logging,
 * mlperf_logging/mllog (constants and format) and the compliance_checker/training_4.0.0 yaml files (required keys).
 * Host C with no CUDA, so that tests/test_mllog.c checks on any machine the lines scaleplan-train writes.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef EX_MLLOG_H
#define EX_MLLOG_H

#include <stdbool.h>
#include <stdio.h>

/* Where lines go. out NULL: silent (data-parallel ranks other than 0). src_file: the metadata's "file". */
typedef struct ex_mllog {
	FILE *out;
	const char *src_file;
} ex_mllog;

typedef enum ex_mllog_kind { EX_MLLOG_POINT, EX_MLLOG_START, EX_MLLOG_END } ex_mllog_kind;

/* What the run says about itself before init_start. A run with evaluation (Fashion-MNIST, a JPEG folder)
 * is logged as an open-division research run: the data set is not ImageNet, so closed rules cannot apply.
 * A synthetic run has no evaluation and says it is not a submission (submission_status "research" and a
 * "not_a_submission" point); the checker fails it for lacking eval_accuracy, which is the truth. */
typedef struct ex_mllog_submission {
	const char *org;       /* submission_org, e.g. "scaleplan" */
	const char *platform;  /* submission_platform, e.g. "1xNVIDIA H100 80GB HBM3" */
	bool synthetic;        /* synthetic data: no evaluation, not a submission */
	long global_batch;     /* global_batch_size */
} ex_mllog_submission;

/* One line: value_json is already JSON (a number, "\"text\"", null, an object); epoch >= 1 adds
 * metadata epoch_num; status non-NULL adds metadata status (run_stop). line: the caller's __LINE__. */
void ex_mllog_event(const ex_mllog *m, ex_mllog_kind kind, const char *key, const char *value_json, int epoch,
		    const char *status, int line);
/* A POINT_IN_TIME with a string value, JSON-escaped here. */
void ex_mllog_str(const ex_mllog *m, const char *key, const char *text, int line);
/* A POINT_IN_TIME with a number value. */
void ex_mllog_num(const ex_mllog *m, const char *key, double value, int line);
/* The keys every run logs before init_start: submission_{benchmark,org,platform,division,status},
 * cache_clear (false: the engine does not drop the page cache), global_batch_size and
 * gradient_accumulation_steps (1). */
void ex_mllog_submission_write(const ex_mllog *m, const ex_mllog_submission *s, int line);

#endif
