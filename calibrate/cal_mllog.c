/* calibrate/cal_mllog.c - MLPerf `:::MLLOG {json}` log reader.
 *
 * The MLPerf logging library (github.com/mlcommons/logging, mlperf_logging/mllog) writes one event per
 * line: `:::MLLOG {"namespace": "", "time_ms": 1593990530412, "event_type": "POINT_IN_TIME",
 * "key": "eval_accuracy", "value": 0.7591, "metadata": {"file": "...", "lineno": 9, "epoch_num": 35}}`.
 * Lines may carry a prefix (an mpirun rank tag, a timestamp); anything before ":::MLLOG" is ignored and
 * lines without it are not events. From the events of one run we derive what calibrate needs: time to
 * train (run_stop - run_start, the MLPerf definition), epochs to the quality target, the global batch,
 * and throughput = epochs x train_samples / time to train (the method of refdata/throughput.csv).
 *
 * Each line's JSON is read by jansson (json_loadb: never past `len_B`, no NUL needed); only the fields
 * listed in cal_mllog_event are kept. Fuzzed by tests/fuzz/fuzz_mllog.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "calibrate/cal.h"
#include "calibrate/cal_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

/* Deeper than any MLLOG line or system description (an event's metadata holds at most objects of arrays): a
 * line nested deeper is not one. */
#define MLLOG_MAX_DEPTH 16

/* What a member's value is, as the events keep it: true/false are the numbers 1/0, objects and arrays are
 * OTHER (their contents are not kept). */
typedef struct jval {
	int kind; /* CAL_MLLOG_NULL ... */
	double num;
	char str[CAL_MLLOG_STR];
} jval;

/* Copies src into dst[cap], truncating (snprintf's truncation warnings are not wanted here). */
static void scopy(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void jval_of(const json_t *j, jval *v)
{
	v->kind = CAL_MLLOG_NUMBER;
	v->num = NAN;
	v->str[0] = '\0';
	if (json_is_number(j))
		v->num = json_number_value(j);
	else if (json_is_boolean(j))
		v->num = json_is_true(j) ? 1 : 0;
	else if (json_is_string(j)) {
		v->kind = CAL_MLLOG_STRING;
		scopy(v->str, sizeof v->str, json_string_value(j));
	} else {
		v->kind = json_is_null(j) ? CAL_MLLOG_NULL : CAL_MLLOG_OTHER;
	}
}

/* Levels of objects and arrays in j: 0 for a scalar, 1 for an object of scalars. */
static int json_depth(const json_t *j)
{
	int d = 0;
	size_t i;
	const char *k;
	json_t *v;
	if (json_is_object(j)) {
		json_object_foreach((json_t *)j, k, v) {
			int dv = json_depth(v);
			d = dv > d ? dv : d;
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v) {
			int dv = json_depth(v);
			d = dv > d ? dv : d;
		}
	} else {
		return 0;
	}
	return d + 1;
}

/* The JSON object text[len_B] holds (white space around it allowed, nothing else), or NULL with err set to
 * "col N: why", N counting from line (text lies in it). The caller json_decref's it. */
static json_t *object_at(const char *line, const char *text, size_t len_B)
{
	json_error_t je;
	json_t *j = json_loadb(text, len_B, JSON_DECODE_INT_AS_REAL, &je);
	int col = (int)(text - line) + 1;
	if (!j) {
		err_set("col %d: %s", col + (int)je.position, je.text);
		return NULL;
	}
	if (!json_is_object(j))
		err_set("col %d: expected a JSON object", col);
	else if (json_depth(j) > MLLOG_MAX_DEPTH)
		err_set("col %d: nesting deeper than %d levels", col, MLLOG_MAX_DEPTH);
	else
		return j;
	json_decref(j);
	return NULL;
}

/* Keeps the fields of one event: its members, and those of its metadata. */
static void event_read(cal_mllog_event *ev, json_t *root)
{
	const char *key;
	json_t *j;
	jval v;
	json_object_foreach(root, key, j) {
		jval_of(j, &v);
		if (strcmp(key, "time_ms") == 0 && v.kind == CAL_MLLOG_NUMBER)
			ev->time_ms = v.num;
		else if (strcmp(key, "key") == 0 && v.kind == CAL_MLLOG_STRING)
			scopy(ev->key, sizeof ev->key, v.str);
		else if (strcmp(key, "event_type") == 0 && v.kind == CAL_MLLOG_STRING)
			scopy(ev->event_type, sizeof ev->event_type, v.str);
		else if (strcmp(key, "value") == 0) {
			ev->value_kind = v.kind;
			ev->value_num = v.num;
			scopy(ev->value_str, sizeof ev->value_str, v.str);
		}
	}
	json_object_foreach(json_object_get(root, "metadata"), key, j) { /* not an object: none */
		jval_of(j, &v);
		if (v.kind == CAL_MLLOG_NUMBER) {
			if (strcmp(key, "epoch_num") == 0)
				ev->epoch_num = v.num;
			else if (strcmp(key, "first_epoch_num") == 0)
				ev->first_epoch_num = v.num;
			else if (strcmp(key, "epoch_count") == 0)
				ev->epoch_count = v.num;
			else if (strcmp(key, "samples_count") == 0)
				ev->samples_count = v.num;
		} else if (v.kind == CAL_MLLOG_STRING && strcmp(key, "status") == 0) {
			scopy(ev->status, sizeof ev->status, v.str);
		}
	}
}

int cal_mllog_event_parse(cal_mllog_event *ev, const char *line, size_t len_B)
{
	static const char tag[] = ":::MLLOG";
	const size_t tlen = sizeof tag - 1;
	const char *start = NULL;
	memset(ev, 0, sizeof *ev);
	ev->time_ms = NAN;
	ev->value_num = NAN;
	ev->epoch_num = NAN;
	ev->first_epoch_num = NAN;
	ev->epoch_count = NAN;
	ev->samples_count = NAN;
	for (size_t i = 0; i + tlen <= len_B; i++) {
		if (line[i] == ':' && memcmp(line + i, tag, tlen) == 0) {
			start = line + i + tlen;
			break;
		}
	}
	if (!start)
		return 1;
	json_t *root = object_at(line, start, len_B - (size_t)(start - line));
	if (!root)
		return ERR_INPUT;
	event_read(ev, root);
	json_decref(root);
	if (ev->key[0] == '\0')
		return err_set("event without a \"key\"");
	if (!isfinite(ev->time_ms))
		return err_set("event \"%s\" without a numeric \"time_ms\"", ev->key);
	return 0;
}

void cal_mllog_run_init(cal_mllog_run *run)
{
	memset(run, 0, sizeof *run);
	run->run_start_ms = NAN;
	run->run_stop_ms = NAN;
	run->global_batch = NAN;
	run->train_samples = NAN;
	run->target_top1 = NAN;
	run->epochs = NAN;
	run->top1 = NAN;
	run->tta_s = NAN;
	run->throughput_img_s = NAN;
	run->block_img_s = NAN;
	run->first_block_ms = NAN;
	run->ph.init_start_ms = run->ph.init_stop_ms = run->ph.first_epoch_start_ms = NAN;
	run->ph.eval_samples = run->ph.first_epoch_s = run->ph.first_eval_s = NAN;
}

void cal_mllog_run_free(cal_mllog_run *run)
{
	if (!run)
		return;
	free(run->name);
	cal_mllog_run_init(run);
}

/* Open intervals and block totals while a log is read. */
typedef struct run_state {
	double block_t0, block_count;  /* open block: start, epoch_count from block_start */
	double block_epochs, block_time_s;
	double epoch_t0, eval_t0;      /* open epoch / evaluation */
} run_state;

/* Closes an open interval [*t0, t_ms]: adds its length to *sum_s (and the first one to *first_s);
 * returns false when none was open or it is not positive. */
static bool close_interval(double *t0, double t_ms, int *n, double *sum_s, double *first_s)
{
	double d = (t_ms - *t0) / 1000.0;
	bool ok = isfinite(*t0) && d >= 0;
	*t0 = NAN;
	if (!ok)
		return false;
	if (*n == 0 && first_s)
		*first_s = d;
	(*n)++;
	*sum_s += d;
	return true;
}

/* Folds one event into the run's state. */
static void run_add_event(cal_mllog_run *run, const cal_mllog_event *ev, run_state *st)
{
	const char *k = ev->key;
	cal_mllog_phases *ph = &run->ph;
	run->nevents++;
	if (strcmp(k, "init_start") == 0) {
		if (!isfinite(ph->init_start_ms))
			ph->init_start_ms = ev->time_ms;
	} else if (strcmp(k, "init_stop") == 0) {
		if (!isfinite(ph->init_stop_ms))
			ph->init_stop_ms = ev->time_ms;
	} else if (strcmp(k, "eval_samples") == 0 && ev->value_kind == CAL_MLLOG_NUMBER) {
		ph->eval_samples = ev->value_num;
	} else if (strcmp(k, "epoch_start") == 0) {
		st->epoch_t0 = ev->time_ms;
		if (!isfinite(ph->first_epoch_start_ms))
			ph->first_epoch_start_ms = ev->time_ms;
	} else if (strcmp(k, "epoch_stop") == 0) {
		close_interval(&st->epoch_t0, ev->time_ms, &ph->nepochs, &ph->epoch_sum_s, &ph->first_epoch_s);
	} else if (strcmp(k, "eval_start") == 0) {
		st->eval_t0 = ev->time_ms;
	} else if (strcmp(k, "eval_stop") == 0) {
		close_interval(&st->eval_t0, ev->time_ms, &ph->nevals, &ph->eval_sum_s, &ph->first_eval_s);
	} else if (strcmp(k, "run_start") == 0) {
		if (!isfinite(run->run_start_ms))
			run->run_start_ms = ev->time_ms;
	} else if (strcmp(k, "run_stop") == 0) {
		run->run_stop_ms = ev->time_ms;
		scopy(run->status, sizeof run->status, ev->status[0] ? ev->status : "unknown");
	} else if (strcmp(k, "global_batch_size") == 0 && ev->value_kind == CAL_MLLOG_NUMBER) {
		run->global_batch = ev->value_num;
	} else if (strcmp(k, "train_samples") == 0 && ev->value_kind == CAL_MLLOG_NUMBER) {
		run->train_samples = ev->value_num;
	} else if (strcmp(k, "submission_platform") == 0 && ev->value_kind == CAL_MLLOG_STRING) {
		scopy(run->platform, sizeof run->platform, ev->value_str);
	} else if (strcmp(k, "submission_benchmark") == 0 && ev->value_kind == CAL_MLLOG_STRING) {
		scopy(run->benchmark, sizeof run->benchmark, ev->value_str);
	} else if (strcmp(k, "eval_accuracy") == 0 && ev->value_kind == CAL_MLLOG_NUMBER) {
		run->nevals++;
		run->top1 = ev->value_num;
		if (isfinite(ev->epoch_num))
			run->last_eval_epoch = ev->epoch_num;
		double target = isfinite(run->target_top1) ? run->target_top1 : CAL_MLPERF_TARGET_TOP1;
		if (!run->reached && ev->value_num >= target && isfinite(ev->epoch_num)) {
			run->reached = true;
			run->epochs = ev->epoch_num;
		}
	} else if (strcmp(k, "block_start") == 0) {
		st->block_t0 = ev->time_ms;
		st->block_count = ev->epoch_count;
		if (!isfinite(run->first_block_ms))
			run->first_block_ms = ev->time_ms;
	} else if (strcmp(k, "block_stop") == 0) {
		/* epoch_count is on block_stop in some logs, only on block_start in others (NVIDIA's v4.0) */
		double n = isfinite(ev->epoch_count) ? ev->epoch_count : st->block_count;
		double t0 = st->block_t0;
		if (close_interval(&st->block_t0, ev->time_ms, &ph->nblocks, &ph->block_sum_s, NULL) && isfinite(n) &&
		    n > 0 && ev->time_ms > t0) {
			st->block_epochs += n;
			st->block_time_s += (ev->time_ms - t0) / 1000.0;
		}
		st->block_count = NAN;
	}
}

int cal_mllog_sysjson_parse(cal_mllog_phases *ph, const char *buf, size_t len_B)
{
	json_t *root = object_at(buf, buf, len_B);
	const char *key;
	json_t *j;
	jval v;
	if (!root)
		return ERR_INPUT;
	json_object_foreach(root, key, j) {
		jval_of(j, &v);
		if (v.kind == CAL_MLLOG_STRING && strcmp(key, "accelerator_model_name") == 0) {
			scopy(ph->accelerator, sizeof ph->accelerator, v.str);
			continue;
		}
		/* the counts: numbers, or strings that hold one (MLPerf's system descriptions have both) */
		double x = v.kind == CAL_MLLOG_NUMBER ? v.num : v.kind == CAL_MLLOG_STRING ? strtod(v.str, NULL) : NAN;
		if (!(x >= 1 && x <= 1e6))
			continue;
		if (strcmp(key, "number_of_nodes") == 0)
			ph->nodes = (int)x;
		else if (strcmp(key, "accelerators_per_node") == 0)
			ph->gpus_per_node = (int)x;
	}
	json_decref(root);
	return 0;
}

/* A `:::SYSJSON` line (the first one counts); a malformed one is ignored (it is not an event). */
static void sysjson_line(cal_mllog_phases *ph, const char *line, size_t len_B)
{
	static const char tag[] = ":::SYSJSON";
	const size_t tlen = sizeof tag - 1;
	if (ph->nodes > 0 || len_B < tlen || memcmp(line, tag, tlen) != 0)
		return;
	cal_mllog_sysjson_parse(ph, line + tlen, len_B - tlen);
}

/* Derives epochs, time to train and throughput once all events are in. */
static void run_finish(cal_mllog_run *run, double block_epochs, double block_time_s)
{
	if (!run->reached && run->nevals > 0 && strcmp(run->status, "success") == 0 && run->last_eval_epoch > 0) {
		/* The log says the run succeeded but our target is higher than the accuracy it logged: take the
		 * last evaluation's epoch (the run stopped when it met its own target). */
		run->epochs = run->last_eval_epoch;
		run->reached = true;
	}
	double samples = isfinite(run->train_samples) && run->train_samples > 0 ? run->train_samples
										 : MODEL_IMAGENET_TRAIN_IMAGES;
	if (isfinite(run->run_start_ms) && isfinite(run->run_stop_ms) && run->run_stop_ms > run->run_start_ms)
		run->tta_s = (run->run_stop_ms - run->run_start_ms) / 1000.0;
	if (isfinite(run->tta_s) && isfinite(run->epochs) && run->epochs > 0)
		run->throughput_img_s = run->epochs * samples / run->tta_s;
	if (block_time_s > 0 && block_epochs > 0)
		run->block_img_s = block_epochs * samples / block_time_s;
}

int cal_mllog_parse_buf(cal_mllog_run *run, const char *name, const char *buf, size_t len_B, double target_top1,
			bool strict, FILE *errs)
{
	cal_mllog_run_init(run);
	run->name = xstrdup(name);
	run->target_top1 = isfinite(target_top1) && target_top1 > 0 ? target_top1 : CAL_MLPERF_TARGET_TOP1;
	run_state st = { .block_t0 = NAN, .block_count = NAN, .epoch_t0 = NAN, .eval_t0 = NAN };
	size_t pos = 0;
	int line = 0;
	while (pos < len_B) {
		size_t e = pos;
		while (e < len_B && buf[e] != '\n')
			e++;
		line++;
		cal_mllog_event ev;
		err_clear();
		int rc = cal_mllog_event_parse(&ev, buf + pos, e - pos);
		if (rc < 0) {
			run->nbad++;
			if (errs)
				fprintf(errs, "%s:%d: %s\n", name, line, err_msg());
			if (strict) {
				err_set("%s:%d: malformed MLLOG line (--strict)", name, line);
				return ERR_INPUT;
			}
		} else if (rc == 0) {
			run_add_event(run, &ev, &st);
		} else {
			sysjson_line(&run->ph, buf + pos, e - pos);
		}
		pos = e + 1;
	}
	run_finish(run, st.block_epochs, st.block_time_s);
	if (run->nevents == 0)
		return err_set("%s: no :::MLLOG events", name);
	return 0;
}

int cal_mllog_load(cal_mllog_run *run, const char *path, double target_top1, bool strict, FILE *errs)
{
	char *buf;
	size_t n;
	int rc = file_read_all(path, &buf, &n);
	if (rc != 0) {
		cal_mllog_run_init(run);
		return rc;
	}
	rc = cal_mllog_parse_buf(run, path, buf, n, target_top1, strict, errs);
	free(buf);
	return rc;
}
