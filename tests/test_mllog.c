/* The :::MLLOG lines scaleplan-train writes (exec/ex_mllog.c) carry every key the MLCommons compliance checker
 * requires (training ruleset 4.0.0, open division, ResNet-50), with the right event types and metadata.
 * The key list is a copy kept in tests/data/mllog/ with its source. The run below writes the same sequence
 * as an evaluated run of exec/ex_train.c (header, init, run_start, epochs with eval, run_stop); a log that
 * lacks a key, or writes the old "POINT" event type, must be caught (checked on purpose-made bad logs).
 * The real checker's verdict on a GPU run's log is in bench/NOTES.md.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "exec/ex_mllog.h"
#include "tests/test.h"

#define KEYS_FILE "tests/data/mllog/training_4.0.0_open_resnet_keys.txt"

enum { MAX_KEYS = 64 };

typedef struct req_key {
	char key[64];
	char req[96];  /* EXACTLY_ONE | AT_LEAST_ONE | AT_LEAST_ONE_OR:<other> */
	char meta[64]; /* '-' | status | epoch_num | epoch_num|samples_count */
} req_key;

static int load_keys(req_key *k, int max)
{
	FILE *f = fopen(KEYS_FILE, "r");
	char line[256];
	int n = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < max) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%63s %95s %63s", k[n].key, k[n].req, k[n].meta) == 3)
			n++;
	}
	fclose(f);
	return n;
}

/* Lines whose "key" is key; *bad_meta counts those lacking the metadata named in meta. */
static int count_key(const char *log, const char *key, const char *meta, int *bad_meta)
{
	char pat[96];
	int n = 0;
	const char *p = log;
	snprintf(pat, sizeof(pat), "\"key\": \"%s\",", key);
	*bad_meta = 0;
	while ((p = strstr(p, pat))) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *line = strndup(p, len);
		bool ok = true;
		if (!strcmp(meta, "status"))
			ok = strstr(line, "\"status\": \"") != NULL;
		else if (!strcmp(meta, "epoch_num"))
			ok = strstr(line, "\"epoch_num\": ") != NULL;
		else if (!strcmp(meta, "epoch_num|samples_count"))
			ok = strstr(line, "\"epoch_num\": ") || strstr(line, "\"samples_count\": ");
		*bad_meta += !ok;
		free(line);
		n++;
		p += len;
	}
	return n;
}

/* Failures of log against the required keys (0: the log passes), each printed with its reason. */
static int check_log(const char *log, const req_key *k, int nk)
{
	int fails = 0, i, bad;
	for (i = 0; i < nk; i++) {
		int n = count_key(log, k[i].key, k[i].meta, &bad), other = 0;
		if (!strncmp(k[i].req, "AT_LEAST_ONE_OR:", 16))
			other = count_key(log, k[i].req + 16, "-", &(int){0});
		bool ok = !strcmp(k[i].req, "EXACTLY_ONE") ? n == 1 : n + other >= 1;
		if (!ok || bad) {
			fprintf(stderr, "  log check: %s: %d lines (%s), %d without %s\n", k[i].key, n, k[i].req, bad, k[i].meta);
			fails++;
		}
	}
	/* every line's event type is one the format defines */
	for (const char *p = log; (p = strstr(p, "\"event_type\": \"")); p++) {
		p += strlen("\"event_type\": \"");
		if (strncmp(p, "POINT_IN_TIME\"", 14) && strncmp(p, "INTERVAL_START\"", 15) && strncmp(p, "INTERVAL_END\"", 13)) {
			fprintf(stderr, "  log check: event_type %.16s\n", p);
			fails++;
		}
	}
	return fails;
}

/* The sequence of an evaluated ex_train.c run (Fashion-MNIST or a JPEG folder), written into a string. */
static char *write_eval_run(bool synthetic, const char *org)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ex_mllog m = {.out = f, .src_file = "exec/ex_train.c"};
	ex_mllog_submission sub = {.org = org, .platform = "1xNVIDIA H100 80GB HBM3", .synthetic = synthetic,
				   .global_batch = 256};
	int e;
	ex_mllog_submission_write(&m, &sub, __LINE__);
	ex_mllog_event(&m, EX_MLLOG_START, "init_start", "null", -1, NULL, __LINE__);
	ex_mllog_event(&m, EX_MLLOG_END, "init_stop", "null", -1, NULL, __LINE__);
	ex_mllog_num(&m, "opt_base_learning_rate", 0.2, __LINE__);
	ex_mllog_str(&m, "opt_name", "sgd", __LINE__);
	ex_mllog_num(&m, "train_samples", 60000, __LINE__);
	ex_mllog_num(&m, "eval_samples", synthetic ? 0 : 10000, __LINE__);
	ex_mllog_event(&m, EX_MLLOG_START, "run_start", "null", -1, NULL, __LINE__);
	for (e = 1; e <= 2; e++) {
		ex_mllog_event(&m, EX_MLLOG_START, "epoch_start", "1", e, NULL, __LINE__);
		if (!synthetic) {
			ex_mllog_event(&m, EX_MLLOG_START, "eval_start", "1", e, NULL, __LINE__);
			ex_mllog_event(&m, EX_MLLOG_POINT, "eval_accuracy", "0.91", e, NULL, __LINE__);
			ex_mllog_event(&m, EX_MLLOG_END, "eval_stop", "0.91", e, NULL, __LINE__);
		}
		ex_mllog_event(&m, EX_MLLOG_END, "epoch_stop", "1", e, NULL, __LINE__);
	}
	ex_mllog_event(&m, EX_MLLOG_END, "run_stop", "null", -1, "success", __LINE__);
	fclose(f);
	return buf;
}

static void test_eval_run_passes(test_ctx *t, const req_key *k, int nk)
{
	char *log = write_eval_run(false, NULL);
	TEST_CHECK(t, check_log(log, k, nk) == 0, "an evaluated run's log lacks required keys (above)");
	TEST_CHECK(t, strstr(log, "\"key\": \"submission_division\", \"value\": \"open\"") != NULL, "division open");
	TEST_CHECK(t, strstr(log, "\"key\": \"submission_org\", \"value\": \"scaleplan\"") != NULL, "default org");
	TEST_CHECK(t, strstr(log, "\"event_type\": \"POINT\"") == NULL, "the old POINT event type");
	TEST_CHECK(t, strstr(log, "not_a_submission") == NULL, "an evaluated run is not marked synthetic");
	free(log);
}

/* A synthetic run says it is not a submission and, having no evaluation, fails the key check. */
static void test_synthetic_says_so(test_ctx *t, const req_key *k, int nk)
{
	char *log = write_eval_run(true, NULL);
	TEST_CHECK(t, strstr(log, "\"key\": \"not_a_submission\"") != NULL, "synthetic run marked");
	TEST_CHECK(t, check_log(log, k, nk) > 0, "a log without eval_accuracy must fail the key check");
	free(log);
}

/* The check itself can fail: drop one required line, or write the old event type. */
static void test_checker_catches(test_ctx *t, const req_key *k, int nk)
{
	char *log = write_eval_run(false, NULL), *p = strstr(log, "\"key\": \"cache_clear\"");
	TEST_CHECK(t, p != NULL, "cache_clear written");
	if (p) {
		memcpy(p + 8, "cachX", 5); /* the key is now "cachX_clear" */
		TEST_CHECK(t, check_log(log, k, nk) == 1, "missing cache_clear caught");
	}
	free(log);
	log = write_eval_run(false, NULL);
	p = strstr(log, "POINT_IN_TIME");
	if (p) {
		memmove(p + 5, p + 13, strlen(p + 13) + 1); /* "POINT_IN_TIME" -> "POINT" */
		TEST_CHECK(t, check_log(log, k, nk) >= 1, "old POINT event type caught");
	}
	free(log);
	log = write_eval_run(false, NULL);
	p = strstr(log, ", \"status\": \"success\"");
	if (p) {
		memcpy(p, ", \"stXtus", 9);
		TEST_CHECK(t, check_log(log, k, nk) == 1, "run_stop without status caught");
	}
	free(log);
}

/* User text (--mllog-org) cannot break the JSON line. */
static void test_escaping(test_ctx *t)
{
	char *log = write_eval_run(false, "ac\"me\\lab\n");
	TEST_CHECK(t, strstr(log, "\"value\": \"ac\\\"me\\\\lab\\u000a\"") != NULL, "org escaped: %.200s", log);
	free(log);
}

int main(void)
{
	test_ctx t = {0};
	req_key k[MAX_KEYS];
	int nk = load_keys(k, MAX_KEYS);
	TEST_CHECK(&t, nk >= 19, "%s: %d keys read (expected the 19 of the ruleset)", KEYS_FILE, nk);
	if (nk > 0) {
		test_eval_run_passes(&t, k, nk);
		test_synthetic_says_so(&t, k, nk);
		test_checker_catches(&t, k, nk);
	}
	test_escaping(&t);
	return test_report(&t);
}
