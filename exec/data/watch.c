/* A stall watch for the data path (ex_data_watch_*; declared in ex_data.h).
 *
 * Why: jpeg-gpu runs at batch 64 and 128 sometimes stopped inside an epoch and waited for ever, silent,
 * with no debugger on the machine (bench/NOTES.md's log). A job that stops should end with
 * a message saying where each thread was, so the user's scheduler gets its node back and the next look at
 * the defect starts from the place it stopped. Each thread (a party) names its phase whenever it changes;
 * a batch handed to the step is progress. A thread of the watch looks once a second (at most a quarter of
 * the limit) and, armed, after limit_s without progress writes every party's phase with its age and calls
 * the caller's on_stall (scaleplan-train ends the job there).
 * Phase changes take one mutex, a few times a batch (tens of ms apart): nothing next to a step's cost.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "exec/data/ex_data.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/common.h"

typedef struct watch_party {
	char name[48];
	const char *phase; /* a static string */
	double since_s;    /* time_now_s() when the phase began */
} watch_party;

struct ex_data_watch {
	pthread_mutex_t mu;
	pthread_cond_t cv;         /* stop, or arm (CLOCK_MONOTONIC) */
	watch_party party[EX_WATCH_PARTIES];
	int nparty;
	double limit_s;
	double progress_s;         /* last progress (or arming) */
	long progress_n;           /* batches delivered */
	bool armed, fired, stop;
	ex_data_watch_fn on_stall;
	void *arg;
	pthread_t th;
	bool th_started;
};

/* Appends the report of a stall at now_s to out (caller holds mu). */
static void report_locked(const ex_data_watch *w, double now_s, strbuf *out)
{
	strbuf_addf(out, "no batch reached the training step for %.0f s (%ld delivered before); where each thread "
		    "was:\n", now_s - w->progress_s, w->progress_n);
	for (int i = 0; i < w->nparty; i++)
		strbuf_addf(out, "  %s: %s, for %.1f s\n", w->party[i].name,
			    w->party[i].phase ? w->party[i].phase : "(no phase named yet)", now_s - w->party[i].since_s);
}

bool ex_data_watch_check(ex_data_watch *w, double now_s, strbuf *report)
{
	if (!w)
		return false;
	pthread_mutex_lock(&w->mu);
	bool stalled = w->armed && !w->fired && w->limit_s > 0 && now_s - w->progress_s > w->limit_s;
	if (stalled && report)
		report_locked(w, now_s, report);
	pthread_mutex_unlock(&w->mu);
	return stalled;
}

static void *watch_main(void *arg)
{
	ex_data_watch *w = arg;
	double period_s = w->limit_s / 4 < 1.0 ? w->limit_s / 4 : 1.0;
	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		double t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec + period_s;
		ts.tv_sec = (time_t)t;
		ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
		pthread_cond_timedwait(&w->cv, &w->mu, &ts);
		if (w->stop)
			break;
		double now_s = time_now_s();
		if (!w->armed || w->fired || now_s - w->progress_s <= w->limit_s)
			continue;
		strbuf report;
		strbuf_init(&report);
		report_locked(w, now_s, &report);
		w->fired = true; /* once, until the next progress */
		pthread_mutex_unlock(&w->mu);
		w->on_stall(report.s, w->arg); /* scaleplan-train's does not return */
		strbuf_free(&report);
		pthread_mutex_lock(&w->mu);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int ex_data_watch_new(ex_data_watch **out, double limit_s, ex_data_watch_fn on_stall, void *arg)
{
	*out = NULL;
	if (!(limit_s >= 0) || limit_s > 1e7)
		return err_set("data watch: limit of %g s (0 or more, at most 1e7 expected)", limit_s);
	ex_data_watch *w = xcalloc(1, sizeof(*w));
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&w->mu, NULL);
	w->limit_s = limit_s;
	w->on_stall = on_stall;
	w->arg = arg;
	w->progress_s = time_now_s();
	if (limit_s > 0 && on_stall) {
		int e = pthread_create(&w->th, NULL, watch_main, w);
		if (e != 0) {
			ex_data_watch_free(w);
			return err_set("data watch: cannot start its thread: %s", strerror(e)), ERR_ENV;
		}
		pthread_setname_np(w->th, "sp-data-watch");
		w->th_started = true;
	}
	*out = w;
	return 0;
}

int ex_data_watch_party(ex_data_watch *w, const char *name)
{
	if (!w)
		return -1;
	pthread_mutex_lock(&w->mu);
	int id = w->nparty < EX_WATCH_PARTIES ? w->nparty++ : -1;
	if (id >= 0) {
		snprintf(w->party[id].name, sizeof(w->party[id].name), "%s", name);
		w->party[id].phase = NULL;
		w->party[id].since_s = time_now_s();
	}
	pthread_mutex_unlock(&w->mu);
	return id;
}

void ex_data_watch_phase(ex_data_watch *w, int party, const char *phase)
{
	if (!w || party < 0 || party >= EX_WATCH_PARTIES)
		return;
	double now_s = time_now_s();
	pthread_mutex_lock(&w->mu);
	if (party < w->nparty && w->party[party].phase != phase) {
		w->party[party].phase = phase;
		w->party[party].since_s = now_s;
	}
	pthread_mutex_unlock(&w->mu);
}

void ex_data_watch_progress(ex_data_watch *w)
{
	if (!w)
		return;
	double now_s = time_now_s();
	pthread_mutex_lock(&w->mu);
	w->progress_s = now_s;
	w->progress_n++;
	w->fired = false;
	pthread_mutex_unlock(&w->mu);
}

void ex_data_watch_arm(ex_data_watch *w, bool armed)
{
	if (!w)
		return;
	double now_s = time_now_s();
	pthread_mutex_lock(&w->mu);
	if (armed && !w->armed)
		w->progress_s = now_s; /* the limit counts from here */
	w->armed = armed;
	w->fired = false;
	pthread_mutex_unlock(&w->mu);
}

void ex_data_watch_free(ex_data_watch *w)
{
	if (!w)
		return;
	if (w->th_started) {
		pthread_mutex_lock(&w->mu);
		w->stop = true;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->th, NULL);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w);
}
