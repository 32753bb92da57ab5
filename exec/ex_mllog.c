/* exec/ex_mllog.c - the :::MLLOG writer (see ex_mllog.h for the format and its sources).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "exec/ex_mllog.h"

#include <stdlib.h>
#include <time.h>

#include "common/common.h"

static long wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *kind_name(ex_mllog_kind kind)
{
	switch (kind) {
	case EX_MLLOG_START:
		return "INTERVAL_START";
	case EX_MLLOG_END:
		return "INTERVAL_END";
	default:
		return "POINT_IN_TIME";
	}
}

void ex_mllog_event(const ex_mllog *m, ex_mllog_kind kind, const char *key, const char *value_json, int epoch,
		    const char *status, int line)
{
	if (!m || !m->out)
		return;
	fprintf(m->out, ":::MLLOG {\"namespace\": \"\", \"time_ms\": %ld, \"event_type\": \"%s\", \"key\": \"%s\", "
		"\"value\": %s, \"metadata\": {", wall_ms(), kind_name(kind), key, value_json);
	json_member_str(m->out, "file", m->src_file ? m->src_file : "", true, false);
	fprintf(m->out, "\"lineno\": %d", line);
	if (epoch >= 1)
		fprintf(m->out, ", \"epoch_num\": %d", epoch);
	if (status) {
		fputs(", ", m->out);
		json_member_str(m->out, "status", status, false, false);
	}
	fputs("}}\n", m->out);
	fflush(m->out);
}

void ex_mllog_str(const ex_mllog *m, const char *key, const char *text, int line)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!m || !m->out)
		return;
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	json_put_str(f, text ? text : "");
	if (fclose(f) == 0)
		ex_mllog_event(m, EX_MLLOG_POINT, key, buf, -1, NULL, line);
	free(buf);
}

void ex_mllog_num(const ex_mllog *m, const char *key, double value, int line)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.17g", value);
	ex_mllog_event(m, EX_MLLOG_POINT, key, buf, -1, NULL, line);
}

void ex_mllog_submission_write(const ex_mllog *m, const ex_mllog_submission *s, int line)
{
	ex_mllog_str(m, "submission_benchmark", "resnet", line);
	ex_mllog_str(m, "submission_org", s->org && *s->org ? s->org : "scaleplan", line);
	ex_mllog_str(m, "submission_platform", s->platform && *s->platform ? s->platform : "unknown", line);
	/* open: not ImageNet (closed needs eval_accuracy >= 0.759 on it); research: not a product */
	ex_mllog_str(m, "submission_division", "open", line);
	ex_mllog_str(m, "submission_status", "research", line);
	if (s->synthetic)
		ex_mllog_str(m, "not_a_submission", "synthetic data, no evaluation: a throughput run", line);
	ex_mllog_event(m, EX_MLLOG_POINT, "cache_clear", "false", -1, NULL, line);
	ex_mllog_num(m, "global_batch_size", (double)s->global_batch, line);
	ex_mllog_num(m, "gradient_accumulation_steps", 1, line);
}
