/* tests/test_data_watch.c - the data path's stall watch (exec/data/watch.c): when it counts as stalled, what
 * its report names, that its thread calls on_stall once a stall lasts, and that bad limits are refused.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "exec/data/ex_data.h"
#include "tests/test.h"

static void test_check(test_ctx *t)
{
	ex_data_watch *w;
	TEST_CHECK(t, ex_data_watch_new(&w, 100.0, NULL, NULL) == 0, "new: %s", err_msg());
	int feeder = ex_data_watch_party(w, "training thread");
	int dec = ex_data_watch_party(w, "train decode thread");
	int quiet = ex_data_watch_party(w, "val decode thread");
	TEST_CHECK(t, feeder == 0 && dec == 1 && quiet == 2, "party ids %d %d %d", feeder, dec, quiet);
	ex_data_watch_phase(w, feeder, "waiting for a decoded batch");
	ex_data_watch_phase(w, dec, "in nvjpegDecodeBatched (hardware decoder)");
	strbuf rep;
	strbuf_init(&rep);
	double now = time_now_s();
	/* not armed: never stalled */
	TEST_CHECK(t, !ex_data_watch_check(w, now + 1000, &rep), "unarmed watch stalled");
	ex_data_watch_arm(w, true);
	TEST_CHECK(t, !ex_data_watch_check(w, time_now_s() + 50, &rep), "stalled before the limit");
	TEST_CHECK(t, rep.len_B == 0, "a report without a stall: %s", rep.s);
	TEST_CHECK(t, ex_data_watch_check(w, time_now_s() + 150, &rep), "no stall after the limit");
	TEST_CHECK(t, strstr(rep.s, "training thread: waiting for a decoded batch, for 15") &&
		       strstr(rep.s, "train decode thread: in nvjpegDecodeBatched (hardware decoder), for 15") &&
		       strstr(rep.s, "val decode thread: (no phase named yet)") && strstr(rep.s, "(0 delivered before)"),
		   "report:\n%s", rep.s);
	/* progress resets the count; a phase set again keeps its age */
	ex_data_watch_progress(w);
	ex_data_watch_progress(w);
	strbuf_free(&rep);
	strbuf_init(&rep);
	TEST_CHECK(t, !ex_data_watch_check(w, time_now_s() + 50, &rep), "stalled after progress");
	TEST_CHECK(t, ex_data_watch_check(w, time_now_s() + 150, &rep) && strstr(rep.s, "(2 delivered"),
		   "report after 2 batches:\n%s", rep.s);
	/* the report comes whole, however long the phases (a fixed buffer of 2 KiB cut it before) */
	static char longphase[3001];
	memset(longphase, 'x', sizeof(longphase) - 1);
	ex_data_watch_phase(w, quiet, longphase);
	strbuf_free(&rep);
	strbuf_init(&rep);
	TEST_CHECK(t, ex_data_watch_check(w, time_now_s() + 150, &rep) && strstr(rep.s, longphase) &&
			      strstr(rep.s, ", for "),
		   "long report cut: %zu chars", rep.len_B);
	strbuf_free(&rep);
	ex_data_watch_arm(w, false);
	TEST_CHECK(t, !ex_data_watch_check(w, time_now_s() + 1000, NULL), "disarmed watch stalled");
	/* parties past the table are refused; NULL watches do nothing */
	for (int i = 3; i < EX_WATCH_PARTIES; i++)
		ex_data_watch_party(w, "more");
	TEST_CHECK(t, ex_data_watch_party(w, "one too many") == -1, "party past the table");
	ex_data_watch_phase(NULL, 0, "x");
	ex_data_watch_progress(NULL);
	ex_data_watch_arm(NULL, true);
	TEST_CHECK(t, !ex_data_watch_check(NULL, now, NULL) && ex_data_watch_party(NULL, "x") == -1, "NULL watch");
	ex_data_watch_free(w);
	ex_data_watch_free(NULL);
	TEST_CHECK(t, ex_data_watch_new(&w, -1, NULL, NULL) == ERR_INPUT && w == NULL, "negative limit accepted");
}

typedef struct stall_seen {
	pthread_mutex_t mu;
	int calls;
	char report[1024];
} stall_seen;

static void on_stall(const char *report, void *arg)
{
	stall_seen *s = arg;
	pthread_mutex_lock(&s->mu);
	s->calls++;
	snprintf(s->report, sizeof(s->report), "%s", report);
	pthread_mutex_unlock(&s->mu);
}

static int calls(stall_seen *s)
{
	pthread_mutex_lock(&s->mu);
	int n = s->calls;
	pthread_mutex_unlock(&s->mu);
	return n;
}

/* The watch's own thread: a stall of 0.2 s is reported once (not again while it lasts), with the phase. The
 * bounds are generous (up to 20 s of waiting for a report due after 0.25 s): this checks behaviour, not speed. */
static void test_thread(test_ctx *t)
{
	stall_seen s = {.calls = 0};
	pthread_mutex_init(&s.mu, NULL);
	ex_data_watch *w;
	TEST_CHECK(t, ex_data_watch_new(&w, 0.2, on_stall, &s) == 0, "new: %s", err_msg());
	int p = ex_data_watch_party(w, "decode thread");
	ex_data_watch_phase(w, p, "waiting for the readers");
	usleep(300000);
	TEST_CHECK(t, calls(&s) == 0, "unarmed watch reported %d stalls", calls(&s));
	ex_data_watch_arm(w, true);
	for (int i = 0; i < 2000 && calls(&s) == 0; i++)
		usleep(10000);
	TEST_CHECK(t, calls(&s) == 1 && strstr(s.report, "decode thread: waiting for the readers"),
		   "%d reports: %s", calls(&s), s.report);
	usleep(400000);
	TEST_CHECK(t, calls(&s) == 1, "a lasting stall reported %d times", calls(&s));
	ex_data_watch_progress(w); /* progress re-arms the report */
	for (int i = 0; i < 2000 && calls(&s) < 2; i++)
		usleep(10000);
	TEST_CHECK(t, calls(&s) == 2 && strstr(s.report, "(1 delivered before)"), "after progress: %d, %s",
		   calls(&s), s.report);
	ex_data_watch_free(w);
	pthread_mutex_destroy(&s.mu);
}

int main(void)
{
	test_ctx t = {0};
	test_check(&t);
	test_thread(&t);
	return test_report(&t);
}
