/* sim_core.c - the event loop (binary heap on (time, sequence)), FIFO resources, bounded queues.
 *
 * The heap is the classic array-backed binary min-heap (CLRS, chapter 6). Ties on time are broken
 * by a 64-bit insertion counter, which makes the order total and so every simulation deterministic.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "sim/sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

typedef struct sim_event {
	double t_s;
	uint64_t seq;
	sim_fn *fn;
	void *ctx;
	long arg;
} sim_event;

struct sim_loop {
	sim_event *heap; /* [cap], heap[0..n-1] valid */
	size_t n, cap;
	uint64_t next_seq;
	uint64_t ran;
	double now_s;
};

sim_loop *sim_loop_new(void)
{
	sim_loop *loop = xcalloc(1, sizeof(*loop));
	loop->cap = 256;
	loop->heap = xmalloc(loop->cap * sizeof(*loop->heap));
	return loop;
}

void sim_loop_free(sim_loop *loop)
{
	if (!loop)
		return;
	free(loop->heap);
	free(loop);
}

double sim_now(const sim_loop *loop) { return loop->now_s; }
uint64_t sim_loop_events(const sim_loop *loop) { return loop->ran; }

static bool ev_before(const sim_event *a, const sim_event *b)
{
	if (a->t_s != b->t_s)
		return a->t_s < b->t_s;
	return a->seq < b->seq;
}

void sim_at(sim_loop *loop, double t_s, sim_fn *fn, void *ctx, long arg)
{
	if (!(t_s >= loop->now_s)) /* also catches NaN */
		t_s = loop->now_s;
	if (loop->n == loop->cap) {
		loop->cap *= 2;
		loop->heap = xrealloc(loop->heap, loop->cap * sizeof(*loop->heap));
	}
	sim_event ev = { t_s, loop->next_seq++, fn, ctx, arg };
	size_t i = loop->n++;
	while (i > 0) { /* sift up */
		size_t parent = (i - 1) / 2;
		if (!ev_before(&ev, &loop->heap[parent]))
			break;
		loop->heap[i] = loop->heap[parent];
		i = parent;
	}
	loop->heap[i] = ev;
}

void sim_after(sim_loop *loop, double dt_s, sim_fn *fn, void *ctx, long arg)
{
	sim_at(loop, loop->now_s + (dt_s > 0 ? dt_s : 0), fn, ctx, arg);
}

/* Removes the earliest event into *out. */
static void heap_pop(sim_loop *loop, sim_event *out)
{
	*out = loop->heap[0];
	sim_event last = loop->heap[--loop->n];
	size_t i = 0, n = loop->n;
	for (;;) { /* sift down */
		size_t l = 2 * i + 1, r = l + 1, m = i;
		const sim_event *best = &last;
		if (l < n && ev_before(&loop->heap[l], best)) {
			m = l;
			best = &loop->heap[l];
		}
		if (r < n && ev_before(&loop->heap[r], best))
			m = r;
		if (m == i)
			break;
		loop->heap[i] = loop->heap[m];
		i = m;
	}
	if (n > 0)
		loop->heap[i] = last;
}

uint64_t sim_loop_run(sim_loop *loop, double until_s)
{
	uint64_t ran = 0;
	while (loop->n > 0 && loop->heap[0].t_s <= until_s) {
		sim_event ev;
		heap_pop(loop, &ev);
		loop->now_s = ev.t_s;
		ev.fn(loop, ev.ctx, ev.arg);
		ran++;
	}
	loop->ran += ran;
	return ran;
}

/* ---- resources ---- */

typedef struct res_job {
	double dur_s;
	char name[48];
	sim_fn *done;
	void *ctx;
	long arg;
} res_job;

struct sim_res {
	char name[48];
	int capacity;
	bool *busy;        /* [capacity] server in use */
	res_job *wait;     /* FIFO ring of waiting jobs */
	int wait_head, wait_n, wait_cap;
	res_job *running;  /* [capacity] the job each busy server runs */
	long jobs;
	double busy_s;
	sim_trace *tr;
	int track;
};

sim_res *sim_res_new(const char *name, int capacity, sim_trace *tr, int track)
{
	sim_res *res = xcalloc(1, sizeof(*res));
	snprintf(res->name, sizeof(res->name), "%s", name ? name : "");
	res->capacity = capacity < 1 ? 1 : capacity;
	res->busy = xcalloc((size_t)res->capacity, sizeof(*res->busy));
	res->running = xcalloc((size_t)res->capacity, sizeof(*res->running));
	res->wait_cap = 16;
	res->wait = xmalloc((size_t)res->wait_cap * sizeof(*res->wait));
	res->tr = tr;
	res->track = track;
	return res;
}

void sim_res_free(sim_res *res)
{
	if (!res)
		return;
	free(res->busy);
	free(res->running);
	free(res->wait);
	free(res);
}

long sim_res_jobs(const sim_res *res) { return res->jobs; }
double sim_res_busy_s(const sim_res *res) { return res->busy_s; }
int sim_res_waiting(const sim_res *res) { return res->wait_n; }

static void res_finish(sim_loop *loop, void *ctx, long server);

/* Starts job on a free server `server` now. */
static void res_start(sim_loop *loop, sim_res *res, int server, const res_job *job)
{
	res->busy[server] = true;
	res->running[server] = *job;
	if (res->tr && res->track >= 0)
		sim_trace_span(res->tr, res->track + (res->capacity > 1 ? server : 0), job->name,
			       sim_now(loop), job->dur_s);
	sim_after(loop, job->dur_s, res_finish, res, server);
}

static void res_finish(sim_loop *loop, void *ctx, long server)
{
	sim_res *res = ctx;
	res_job job = res->running[server];
	res->busy[server] = false;
	res->jobs++;
	res->busy_s += job.dur_s;
	if (res->wait_n > 0) {
		res_job next = res->wait[res->wait_head];
		res->wait_head = (res->wait_head + 1) % res->wait_cap;
		res->wait_n--;
		res_start(loop, res, (int)server, &next);
	}
	if (job.done)
		job.done(loop, job.ctx, job.arg);
}

void sim_res_submit(sim_loop *loop, sim_res *res, double dur_s, const char *name, sim_fn *done,
		    void *ctx, long arg)
{
	res_job job = { .dur_s = dur_s > 0 ? dur_s : 0, .done = done, .ctx = ctx, .arg = arg };
	if (res->tr)
		snprintf(job.name, sizeof(job.name), "%s", name ? name : res->name);
	else
		job.name[0] = 0;
	for (int s = 0; s < res->capacity; s++) {
		if (!res->busy[s]) {
			res_start(loop, res, s, &job);
			return;
		}
	}
	if (res->wait_n == res->wait_cap) { /* grow the ring, unrolling it */
		res_job *w = xmalloc((size_t)res->wait_cap * 2 * sizeof(*w));
		for (int i = 0; i < res->wait_n; i++)
			w[i] = res->wait[(res->wait_head + i) % res->wait_cap];
		free(res->wait);
		res->wait = w;
		res->wait_head = 0;
		res->wait_cap *= 2;
	}
	res->wait[(res->wait_head + res->wait_n) % res->wait_cap] = job;
	res->wait_n++;
}

/* ---- bounded queue ---- */

typedef struct q_waiter {
	sim_fn *fn;
	void *ctx;
	long arg;
	double since_s;
} q_waiter;

typedef struct q_fifo {
	q_waiter *w;
	int head, n, cap;
} q_fifo;

struct sim_queue {
	int capacity;
	int len;
	long taken;
	double wait_s;
	q_fifo producers; /* blocked: queue full */
	q_fifo consumers; /* blocked: queue empty */
};

static void fifo_push(q_fifo *f, q_waiter w)
{
	if (f->n == f->cap) {
		int cap = f->cap ? 2 * f->cap : 8;
		q_waiter *nw = xmalloc((size_t)cap * sizeof(*nw));
		for (int i = 0; i < f->n; i++)
			nw[i] = f->w[(f->head + i) % f->cap];
		free(f->w);
		f->w = nw;
		f->head = 0;
		f->cap = cap;
	}
	f->w[(f->head + f->n) % f->cap] = w;
	f->n++;
}

static q_waiter fifo_pop(q_fifo *f)
{
	q_waiter w = f->w[f->head];
	f->head = (f->head + 1) % f->cap;
	f->n--;
	return w;
}

sim_queue *sim_queue_new(int capacity)
{
	sim_queue *q = xcalloc(1, sizeof(*q));
	q->capacity = capacity < 1 ? 1 : capacity;
	return q;
}

void sim_queue_free(sim_queue *q)
{
	if (!q)
		return;
	free(q->producers.w);
	free(q->consumers.w);
	free(q);
}

int sim_queue_len(const sim_queue *q) { return q->len; }
long sim_queue_taken(const sim_queue *q) { return q->taken; }
double sim_queue_wait_s(const sim_queue *q) { return q->wait_s; }

/* Moves items while both sides can make progress; every wake-up is an event at `now`, so callbacks
 * never run inside sim_queue_put/get (no re-entrancy) and keep their scheduling order. */
static void queue_settle(sim_loop *loop, sim_queue *q)
{
	for (;;) {
		if (q->len > 0 && q->consumers.n > 0) {
			q_waiter c = fifo_pop(&q->consumers);
			q->len--;
			q->taken++;
			q->wait_s += sim_now(loop) - c.since_s;
			sim_at(loop, sim_now(loop), c.fn, c.ctx, c.arg);
		} else if (q->len < q->capacity && q->producers.n > 0) {
			q_waiter p = fifo_pop(&q->producers);
			q->len++;
			if (p.fn)
				sim_at(loop, sim_now(loop), p.fn, p.ctx, p.arg);
		} else {
			break;
		}
	}
}

void sim_queue_put(sim_loop *loop, sim_queue *q, sim_fn *done, void *ctx, long arg)
{
	fifo_push(&q->producers, (q_waiter){ done, ctx, arg, sim_now(loop) });
	queue_settle(loop, q);
}

void sim_queue_get(sim_loop *loop, sim_queue *q, sim_fn *done, void *ctx, long arg)
{
	fifo_push(&q->consumers, (q_waiter){ done, ctx, arg, sim_now(loop) });
	queue_settle(loop, q);
}
