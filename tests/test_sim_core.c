/* tests/test_sim_core.c - the simulator's building blocks against answers worked out by hand.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "sim/sim.h"
#include "sim/sim_internal.h" /* the engine under test */
#include "tests/test.h"

/* ---- event order ---- */

typedef struct order_log {
	long seen[16];
	double at[16];
	int n;
} order_log;

static void log_ev(sim_loop *loop, void *ctx, long arg)
{
	order_log *lg = ctx;
	if (lg->n < 16) {
		lg->seen[lg->n] = arg;
		lg->at[lg->n] = sim_now(loop);
		lg->n++;
	}
}

static void test_heap_order(test_ctx *t)
{
	sim_loop *loop = sim_loop_new();
	order_log lg = { 0 };
	/* times 3,1,2,1,1,0: ties must come out in insertion order (args 1, 3, 4 at t=1) */
	sim_at(loop, 3, log_ev, &lg, 0);
	sim_at(loop, 1, log_ev, &lg, 1);
	sim_at(loop, 2, log_ev, &lg, 2);
	sim_at(loop, 1, log_ev, &lg, 3);
	sim_at(loop, 1, log_ev, &lg, 4);
	sim_at(loop, 0, log_ev, &lg, 5);
	uint64_t ran = sim_loop_run(loop, INFINITY);
	long want[] = { 5, 1, 3, 4, 2, 0 };
	TEST_CHECK(t, ran == 6, "ran %llu events", (unsigned long long)ran);
	TEST_CHECK(t, lg.n == 6, "logged %d", lg.n);
	for (int i = 0; i < 6 && i < lg.n; i++)
		TEST_CHECK(t, lg.seen[i] == want[i], "event %d: got arg %ld, want %ld", i, lg.seen[i], want[i]);
	TEST_NEAR(t, sim_now(loop), 3.0, 1e-15);
	/* the past cannot be scheduled: an event before now runs now */
	sim_at(loop, 1.0, log_ev, &lg, 9);
	sim_loop_run(loop, INFINITY);
	TEST_NEAR(t, lg.at[6], 3.0, 1e-15);
	sim_loop_free(loop);
}

typedef struct mono {
	double last;
	int bad, n;
} mono;

static void mono_ev(sim_loop *loop, void *ctx, long arg)
{
	(void)arg;
	mono *m = ctx;
	if (sim_now(loop) < m->last)
		m->bad++;
	m->last = sim_now(loop);
	m->n++;
}

static void test_heap_many(test_ctx *t)
{
	/* 10,000 events at pseudo-random times come out non-decreasing */
	sim_loop *loop = sim_loop_new();
	mono m = { -1, 0, 0 };
	unsigned x = 12345;
	for (int i = 0; i < 10000; i++) {
		x = x * 1103515245u + 12345u;
		sim_at(loop, (double)(x % 1000), mono_ev, &m, i);
	}
	sim_loop_run(loop, INFINITY);
	TEST_CHECK(t, m.bad == 0, "%d events out of order", m.bad);
	TEST_CHECK(t, m.n == 10000, "ran %d", m.n);
	TEST_CHECK(t, sim_loop_events(loop) == 10000, "ran %llu", (unsigned long long)sim_loop_events(loop));
	sim_loop_free(loop);
}

/* ---- resources ---- */

typedef struct done_log {
	double t[8];
	int n;
} done_log;

static void note_done(sim_loop *loop, void *ctx, long arg)
{
	done_log *d = ctx;
	if (arg >= 0 && arg < 8)
		d->t[arg] = sim_now(loop);
	d->n++;
}

static void test_resource(test_ctx *t)
{
	sim_loop *loop = sim_loop_new();
	sim_res *one = sim_res_new("stream", 1, NULL, -1);
	sim_res *two = sim_res_new("pool", 2, NULL, -1);
	done_log a = { 0 }, b = { 0 };
	/* three jobs of 1 s on one server finish at 1, 2, 3; on two servers at 1, 1, 2 */
	for (int i = 0; i < 3; i++) {
		sim_res_submit(loop, one, 1.0, "job", note_done, &a, i);
		sim_res_submit(loop, two, 1.0, "job", note_done, &b, i);
	}
	TEST_CHECK(t, sim_res_waiting(one) == 2, "one: %d waiting", sim_res_waiting(one));
	sim_loop_run(loop, INFINITY);
	TEST_NEAR(t, a.t[0], 1.0, 1e-15);
	TEST_NEAR(t, a.t[1], 2.0, 1e-15);
	TEST_NEAR(t, a.t[2], 3.0, 1e-15);
	TEST_NEAR(t, b.t[0], 1.0, 1e-15);
	TEST_NEAR(t, b.t[1], 1.0, 1e-15);
	TEST_NEAR(t, b.t[2], 2.0, 1e-15);
	TEST_NEAR(t, sim_res_busy_s(two), 3.0, 1e-15);
	TEST_CHECK(t, sim_res_jobs(one) == 3, "jobs %ld", sim_res_jobs(one));
	sim_res_free(one);
	sim_res_free(two);
	sim_loop_free(loop);
}

/* ---- network ---- */

static void test_two_flows_one_link(test_ctx *t)
{
	/* one flow of 1 GB on a 1 GB/s link: 1 s; two at once: each gets half, both finish at 2 s */
	for (int share = 0; share <= 1; share++) {
		sim_loop *loop = sim_loop_new();
		sim_net *net = sim_net_new(share, NULL);
		int l = sim_net_link(net, "l", 1e9, -1);
		TEST_CHECK(t, l == 0, "link id %d", l);
		done_log d = { 0 };
		TEST_CHECK(t, sim_net_flow(loop, net, &l, 1, 1e9, 0, INFINITY, "a", note_done, &d, 0) == 0, "%s", err_msg());
		TEST_CHECK(t, sim_net_flow(loop, net, &l, 1, 1e9, 0, INFINITY, "b", note_done, &d, 1) == 0, "%s", err_msg());
		sim_loop_run(loop, INFINITY);
		TEST_CHECK(t, d.n == 2, "%d flows done", d.n);
		double want = share ? 2.0 : 1.0; /* without sharing each runs as if alone */
		TEST_NEAR(t, d.t[0], want, 1e-9);
		TEST_NEAR(t, d.t[1], want, 1e-9);
		sim_net_free(net);
		sim_loop_free(loop);
	}
	/* a single flow alone takes size/bw + latency */
	sim_loop *loop = sim_loop_new();
	sim_net *net = sim_net_new(true, NULL);
	int l = sim_net_link(net, "l", 2e9, -1);
	done_log d = { 0 };
	sim_net_flow(loop, net, &l, 1, 1e9, 0.25, INFINITY, "a", note_done, &d, 0);
	sim_loop_run(loop, INFINITY);
	TEST_NEAR(t, d.t[0], 0.75, 1e-12);
	sim_net_free(net);
	sim_loop_free(loop);
}

static void test_staggered_and_maxmin(test_ctx *t)
{
	/* Staggered: flow A (2 GB) at t=0, flow B (1 GB) at t=1 on a 1 GB/s link. A alone to t=1 (1 GB
	 * left), then both at 0.5: B ends at t=3, A has 0 left at t=3 too. */
	sim_loop *loop = sim_loop_new();
	sim_net *net = sim_net_new(true, NULL);
	int l = sim_net_link(net, "l", 1e9, -1);
	done_log d = { 0 };
	sim_net_flow(loop, net, &l, 1, 2e9, 0, INFINITY, "A", note_done, &d, 0);
	sim_net_flow(loop, net, &l, 1, 1e9, 1.0, INFINITY, "B", note_done, &d, 1); /* starts at t=1 */
	sim_loop_run(loop, INFINITY);
	TEST_NEAR(t, d.t[0], 3.0, 1e-9);
	TEST_NEAR(t, d.t[1], 3.0, 1e-9);
	sim_net_free(net);
	sim_loop_free(loop);

	/* Max-min: links X (1 GB/s) and Y (3 GB/s); flow 0 over X and Y, flows 1 and 2 over Y only.
	 * Fair shares on Y would be 1 each, but X holds flow 0 to... 1 (X alone) - so give a tighter X:
	 * X = 0.5 GB/s: flow 0 gets 0.5, flows 1 and 2 split the remaining 2.5 -> 1.25 each. */
	loop = sim_loop_new();
	net = sim_net_new(true, NULL);
	int x = sim_net_link(net, "X", 0.5e9, -1), y = sim_net_link(net, "Y", 3e9, -1);
	int p0[2] = { x, y };
	done_log e = { 0 };
	sim_net_flow(loop, net, p0, 2, 0.5e9, 0, INFINITY, "f0", note_done, &e, 0);
	sim_net_flow(loop, net, &y, 1, 1.25e9, 0, INFINITY, "f1", note_done, &e, 1);
	sim_net_flow(loop, net, &y, 1, 1.25e9, 0, INFINITY, "f2", note_done, &e, 2);
	sim_loop_run(loop, 1e-9); /* start them */
	TEST_NEAR(t, sim_net_link_load_Bps(net, y), 3e9, 1e-9);
	TEST_NEAR(t, sim_net_link_load_Bps(net, x), 0.5e9, 1e-9);
	sim_loop_run(loop, INFINITY);
	TEST_NEAR(t, e.t[0], 1.0, 1e-9);
	TEST_NEAR(t, e.t[1], 1.0, 1e-9);
	TEST_NEAR(t, e.t[2], 1.0, 1e-9);
	/* per-flow rate cap: a 1 GB flow capped at 0.25 GB/s on a free 1 GB/s link takes 4 s */
	done_log c = { 0 };
	double t0 = sim_now(loop);
	sim_net_flow(loop, net, &y, 1, 1e9, 0, 0.25e9, "capped", note_done, &c, 0);
	sim_loop_run(loop, INFINITY);
	TEST_NEAR(t, c.t[0] - t0, 4.0, 1e-9);
	TEST_CHECK(t, sim_net_flows_done(net) == 4, "done %ld", sim_net_flows_done(net));
	sim_net_free(net);
	sim_loop_free(loop);
}

static void test_net_bad_input(test_ctx *t)
{
	sim_loop *loop = sim_loop_new();
	sim_net *net = sim_net_new(true, NULL);
	TEST_CHECK(t, sim_net_link(net, "zero", 0, -1) == ERR_INPUT, "zero bandwidth accepted");
	TEST_CHECK(t, strstr(err_msg(), "zero") != NULL, "message: %s", err_msg());
	TEST_CHECK(t, sim_net_link(net, "nan", NAN, -1) == ERR_INPUT, "NaN bandwidth accepted");
	TEST_CHECK(t, sim_net_link(net, "inf", INFINITY, -1) == ERR_INPUT, "inf bandwidth accepted");
	int bad = 7;
	TEST_CHECK(t, sim_net_flow(loop, net, &bad, 1, 1, 0, INFINITY, "f", NULL, NULL, 0) == ERR_INPUT, "bad link accepted");
	int l = sim_net_link(net, "ok", 1, -1);
	TEST_CHECK(t, sim_net_flow(loop, net, &l, 1, -1, 0, INFINITY, "f", NULL, NULL, 0) == ERR_INPUT, "negative size accepted");
	sim_net_free(net);
	sim_loop_free(loop);
}

/* ---- bounded queue: depth 1, producer slower than consumer ---- */

typedef struct pc {
	sim_queue *q;
	double produce_s, consume_s;
	int to_make, made, eaten, goal;
	double last_eat_s;
} pc;

static void producer_next(sim_loop *loop, void *ctx, long arg);
static void producer_made(sim_loop *loop, void *ctx, long arg)
{
	(void)arg;
	pc *p = ctx;
	sim_queue_put(loop, p->q, producer_next, p, 0);
}
static void producer_next(sim_loop *loop, void *ctx, long arg)
{
	(void)arg;
	pc *p = ctx;
	if (p->made++ < p->to_make)
		sim_after(loop, p->produce_s, producer_made, p, 0);
}
static void consumer_next(sim_loop *loop, void *ctx, long arg);
static void consumer_got(sim_loop *loop, void *ctx, long arg)
{
	(void)arg;
	pc *p = ctx;
	sim_after(loop, p->consume_s, consumer_next, p, 1);
}
static void consumer_next(sim_loop *loop, void *ctx, long arg)
{
	pc *p = ctx;
	if (arg) {
		p->eaten++;
		p->last_eat_s = sim_now(loop);
	}
	if (p->eaten < p->goal)
		sim_queue_get(loop, p->q, consumer_got, p, 0);
}

static void test_queue(test_ctx *t)
{
	/* producer 3 s per item, consumer 1 s: 100 items take 100 x 3 + 1 s (the last one consumed) */
	sim_loop *loop = sim_loop_new();
	pc p = { .q = sim_queue_new(1), .produce_s = 3, .consume_s = 1, .to_make = 100, .goal = 100 };
	sim_at(loop, 0, producer_next, &p, 0);
	sim_at(loop, 0, consumer_next, &p, 0);
	sim_loop_run(loop, INFINITY);
	TEST_CHECK(t, p.eaten == 100, "eaten %d", p.eaten);
	TEST_NEAR(t, p.last_eat_s, 301.0, 1e-12);
	TEST_NEAR(t, 100.0 / p.last_eat_s, 1.0 / 3.0, 0.01); /* throughput ~ producer rate */
	TEST_CHECK(t, sim_queue_taken(p.q) == 100, "taken %ld", sim_queue_taken(p.q));
	/* consumer waited 3 s for the first item and 2 s for each later one */
	TEST_NEAR(t, sim_queue_wait_s(p.q), 3.0 + 99 * 2.0, 1e-12);
	sim_queue_free(p.q);
	sim_loop_free(loop);

	/* the other way round: producer 1 s, consumer 3 s, depth 1: the consumer sets the pace and the
	 * producer blocks on a full queue; 50 items end at 1 + 50 x 3 */
	loop = sim_loop_new();
	pc r = { .q = sim_queue_new(1), .produce_s = 1, .consume_s = 3, .to_make = 1000, .goal = 50 };
	sim_at(loop, 0, producer_next, &r, 0);
	sim_at(loop, 0, consumer_next, &r, 0);
	sim_loop_run(loop, INFINITY);
	TEST_NEAR(t, r.last_eat_s, 151.0, 1e-12);
	TEST_CHECK(t, sim_queue_len(r.q) == 1, "queue len %d (full at the end)", sim_queue_len(r.q));
	TEST_CHECK(t, r.made <= 53, "producer ran ahead: made %d", r.made);
	sim_queue_free(r.q);
	sim_loop_free(loop);
}

/* ---- trace ---- */

static void test_trace(test_ctx *t)
{
	sim_trace *tr = sim_trace_new();
	int a = sim_trace_track(tr, "node0", "gpu0 compute");
	int b = sim_trace_track(tr, "node0", "nic0");
	int c = sim_trace_track(tr, "node0", "gpu0 compute");
	TEST_CHECK(t, a == c && a != b, "track ids %d %d %d", a, b, c);
	sim_loop *loop = sim_loop_new();
	sim_res *s = sim_res_new("stream", 1, tr, a);
	sim_res_submit(loop, s, 0.5, "fwd \"conv1\"", NULL, NULL, 0);
	sim_res_submit(loop, s, 0.25, "bwd", NULL, NULL, 0);
	sim_loop_run(loop, INFINITY);
	sim_trace_instant(tr, b, "epoch 1", 0.75);
	TEST_CHECK(t, sim_trace_count(tr) == 3, "%zu spans", sim_trace_count(tr));
	char path[] = "/tmp/test_sim_traceXXXXXX";
	int fd = mkstemp(path);
	TEST_CHECK(t, fd >= 0, "mkstemp");
	close(fd);
	TEST_CHECK(t, sim_trace_write(tr, path) == 0, "%s", err_msg());
	FILE *f = fopen(path, "r");
	char buf[8192] = { 0 };
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	TEST_CHECK(t, n > 0, "empty trace");
	TEST_CHECK(t, strstr(buf, "\"traceEvents\"") != NULL, "no traceEvents");
	TEST_CHECK(t, strstr(buf, "\"ts\":500000.000,\"dur\":250000.000") != NULL, "second span at 0.5 s for 0.25 s: %s", buf);
	TEST_CHECK(t, strstr(buf, "fwd \\\"conv1\\\"") != NULL, "quotes escaped");
	TEST_CHECK(t, strstr(buf, "\"thread_name\"") != NULL, "no track names");
	TEST_CHECK(t, sim_trace_write(tr, "/nonexistent-dir/x.json") == ERR_INPUT, "a missing folder is the user's error");
	remove(path);
	sim_res_free(s);
	sim_loop_free(loop);
	sim_trace_free(tr);
}

/* ---- random numbers ---- */

static void test_rng(test_ctx *t)
{
	sim_rng *r1 = sim_rng_new(42), *r2 = sim_rng_new(42), *r3 = sim_rng_new(43);
	TEST_CHECK(t, r1 && r2 && r3, "rng alloc: %s", err_msg());
	if (!r1 || !r2 || !r3)
		return;
	int same = 0, diff = 0;
	for (int i = 0; i < 100; i++) {
		double a = sim_rng_slowdown(r1, 0.05, 0.01, 2), b = sim_rng_slowdown(r2, 0.05, 0.01, 2);
		double c = sim_rng_slowdown(r3, 0.05, 0.01, 2);
		same += a == b;
		diff += a != c;
	}
	TEST_CHECK(t, same == 100, "same seed differs %d/100", 100 - same);
	TEST_CHECK(t, diff > 90, "different seeds agree too often (%d differ)", diff);
	TEST_CHECK(t, sim_rng_slowdown(r1, 0, 0, 5) == 1.0, "no jitter must be exactly 1");
	/* rare slow steps: probability 1 always multiplies */
	TEST_NEAR(t, sim_rng_slowdown(r1, 0, 1.0, 3.0), 3.0, 1e-15);
	/* the median of exp(0.1 z) is 1: about half the draws below 1 (10,000 draws, 4 sigma = 2%) */
	int below = 0;
	for (int i = 0; i < 10000; i++)
		below += sim_rng_slowdown(r1, 0.1, 0, 1) < 1.0;
	TEST_CHECK(t, abs(below - 5000) < 200, "%d of 10000 below 1", below);
	sim_rng_free(r1);
	sim_rng_free(r2);
	sim_rng_free(r3);
}

int main(void)
{
	test_ctx t = { 0 };
	test_heap_order(&t);
	test_heap_many(&t);
	test_resource(&t);
	test_two_flows_one_link(&t);
	test_staggered_and_maxmin(&t);
	test_net_bad_input(&t);
	test_queue(&t);
	test_trace(&t);
	test_rng(&t);
	return test_report(&t);
}
