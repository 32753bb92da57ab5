/* sim_trace.c - Chrome trace-event JSON writer.
 *
 * Format: the JSON Object Format of Google's "Trace Event Format" document: {"traceEvents":[...],
 * "displayTimeUnit":"ms"}; complete events "ph":"X" with "ts"/"dur" in microseconds, instant events
 * "ph":"i", and metadata events "ph":"M" (process_name, thread_name) naming the tracks. Perfetto and
 * chrome://tracing load it. Each group becomes a process (pid), each track a thread (tid).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "sim/sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

typedef struct tr_track {
	char group[48];
	char name[48];
	int pid, tid;
} tr_track;

typedef struct tr_span {
	int track;
	bool instant;
	char name[40];
	double t_s, dur_s;
} tr_span;

struct sim_trace {
	tr_track *tracks;
	int ntracks, tracks_cap;
	tr_span *spans;
	size_t nspans, spans_cap;
	double from_s, to_s; /* window kept */
};

sim_trace *sim_trace_new(void)
{
	sim_trace *tr = xcalloc(1, sizeof(sim_trace));
	tr->from_s = -INFINITY;
	tr->to_s = INFINITY;
	return tr;
}

void sim_trace_window(sim_trace *tr, double from_s, double to_s)
{
	tr->from_s = from_s;
	tr->to_s = to_s;
}

void sim_trace_free(sim_trace *tr)
{
	if (!tr)
		return;
	free(tr->tracks);
	free(tr->spans);
	free(tr);
}

size_t sim_trace_count(const sim_trace *tr) { return tr->nspans; }

int sim_trace_track(sim_trace *tr, const char *group, const char *name)
{
	int pid = -1, maxtid = 0, maxpid = 0;
	for (int i = 0; i < tr->ntracks; i++) {
		tr_track *t = &tr->tracks[i];
		if (strcmp(t->group, group) == 0) {
			if (strcmp(t->name, name) == 0)
				return i;
			pid = t->pid;
			if (t->tid > maxtid)
				maxtid = t->tid;
		}
		if (t->pid > maxpid)
			maxpid = t->pid;
	}
	if (tr->ntracks == tr->tracks_cap) {
		tr->tracks_cap = tr->tracks_cap ? 2 * tr->tracks_cap : 32;
		tr->tracks = xrealloc(tr->tracks, (size_t)tr->tracks_cap * sizeof(*tr->tracks));
	}
	tr_track *t = &tr->tracks[tr->ntracks];
	snprintf(t->group, sizeof(t->group), "%s", group);
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->pid = pid >= 0 ? pid : maxpid + 1;
	t->tid = pid >= 0 ? maxtid + 1 : 1;
	return tr->ntracks++;
}

static void trace_add(sim_trace *tr, int track, bool instant, const char *name, double t_s,
		      double dur_s)
{
	if (track < 0 || track >= tr->ntracks || !(dur_s >= 0) || !isfinite(t_s))
		return;
	if (t_s + dur_s < tr->from_s || t_s > tr->to_s)
		return;
	if (tr->nspans == tr->spans_cap) {
		tr->spans_cap = tr->spans_cap ? 2 * tr->spans_cap : 1024;
		tr->spans = xrealloc(tr->spans, tr->spans_cap * sizeof(*tr->spans));
	}
	tr_span *s = &tr->spans[tr->nspans++];
	s->track = track;
	s->instant = instant;
	snprintf(s->name, sizeof(s->name), "%s", name ? name : "");
	s->t_s = t_s;
	s->dur_s = dur_s;
}

void sim_trace_span(sim_trace *tr, int track, const char *name, double t_s, double dur_s)
{
	trace_add(tr, track, false, name, t_s, dur_s);
}

void sim_trace_instant(sim_trace *tr, int track, const char *name, double t_s)
{
	trace_add(tr, track, true, name, t_s, 0);
}

int sim_trace_write(const sim_trace *tr, const char *path)
{
	char *text = NULL;
	size_t len_B = 0;
	FILE *b = open_memstream(&text, &len_B);
	if (!b) {
		err_set("trace: out of memory");
		return ERR_ENV;
	}
	fprintf(b, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
	bool first = true;
	for (int i = 0; i < tr->ntracks; i++) {
		const tr_track *t = &tr->tracks[i];
		bool new_group = true;
		for (int j = 0; j < i; j++)
			if (tr->tracks[j].pid == t->pid)
				new_group = false;
		if (new_group) {
			fprintf(b, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,"
				"\"args\":{\"name\":", first ? "" : ",\n", t->pid);
			json_put_str(b, t->group);
			fprintf(b, "}}");
			first = false;
		}
		fprintf(b, "%s{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,"
			"\"args\":{\"name\":", first ? "" : ",\n", t->pid, t->tid);
		json_put_str(b, t->name);
		fprintf(b, "}},\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,"
			"\"args\":{\"sort_index\":%d}}", t->pid, t->tid, t->tid);
		first = false;
	}
	for (size_t i = 0; i < tr->nspans; i++) {
		const tr_span *s = &tr->spans[i];
		const tr_track *t = &tr->tracks[s->track];
		fprintf(b, "%s{\"name\":", first ? "" : ",\n");
		json_put_str(b, s->name);
		if (s->instant)
			fprintf(b, ",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f}", t->pid,
				t->tid, s->t_s * 1e6);
		else
			fprintf(b, ",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f}", t->pid,
				t->tid, s->t_s * 1e6, s->dur_s * 1e6);
		first = false;
	}
	fputs("\n]}\n", b);
	int rc = fclose(b) == 0 ? file_write_atomic(path, text, len_B) : (err_set("out of memory"), ERR_ENV);
	free(text);
	if (rc < 0)
		err_prefix("trace");
	return rc < 0 ? rc : 0; /* file_write_atomic's code: ERR_INPUT no such folder, ERR_ENV permission or disk */
}
