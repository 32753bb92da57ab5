/* sort_intr (common/sort.c): sorts like qsort, keeps equal keys in order, stops on SIGINT/SIGTERM; sort_stable:
 * the same order, the comparator given an argument (compare's question), never stopping.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "common/common.h"
#include "tests/test.h"

#include <signal.h>
#include <stdlib.h>

typedef struct item {
	int key, seq;
} item;

static int by_key(const void *a, const void *b)
{
	const item *x = a, *y = b;
	return (x->key > y->key) - (x->key < y->key);
}

/* n items with keys from a fixed pseudo-random sequence (few distinct keys, so many ties) */
static item *make_items(size_t n)
{
	item *v = xmalloc(n * sizeof *v);
	unsigned s = 12345;
	for (size_t i = 0; i < n; i++) {
		s = s * 1103515245u + 12345u;
		v[i] = (item){(int)((s >> 16) % 97), (int)i};
	}
	return v;
}

static void test_sorted_and_stable(test_ctx *t)
{
	size_t sizes[] = {0, 1, 2, 3, 17, 1000, 100003};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		size_t n = sizes[k];
		item *v = make_items(n);
		long sum = 0, sum_after = 0;
		for (size_t i = 0; i < n; i++)
			sum += v[i].seq;
		TEST_CHECK(t, sort_intr(v, n, sizeof *v, by_key) == 0, "n = %zu", n);
		int ordered = 1;
		for (size_t i = 0; i < n; i++) {
			sum_after += v[i].seq;
			if (i && (v[i - 1].key > v[i].key || (v[i - 1].key == v[i].key && v[i - 1].seq > v[i].seq)))
				ordered = 0;
		}
		TEST_CHECK(t, ordered, "n = %zu: not sorted by key, then by original position", n);
		TEST_CHECK(t, sum == sum_after, "n = %zu: items lost or duplicated", n);
		free(v);
	}
}

/* after SIGINT the sort stops with ERR_INTR and loses no item */
static void test_stops_on_signal(test_ctx *t)
{
	size_t n = 200000;
	item *v = make_items(n);
	long sum = 0, sum_after = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i].seq;
	TEST_CHECK(t, intr_install() == 0, "intr_install: %s", err_msg());
	raise(SIGINT);
	TEST_CHECK(t, intr_pending() && intr_exit_code() == 130, "SIGINT recorded: exit code %d", intr_exit_code());
	TEST_CHECK(t, sort_intr(v, n, sizeof *v, by_key) == ERR_INTR, "sort_intr went on after SIGINT");
	for (size_t i = 0; i < n; i++)
		sum_after += v[i].seq;
	TEST_CHECK(t, sum == sum_after, "interrupted sort lost or duplicated items");
	free(v);
}

/* the progress of a sort counts rows: its total is the rows sorted and it never passes them (once "ranking:
 * 2% (1540096/51422448)" for 8.9 M rows counted every merge of every pass) */
static void test_progress_counts_rows(test_ctx *t)
{
	size_t n = 100003;
	item *v = make_items(n);
	progress pg;
	progress_init(&pg, "test: ranking", (long)n);
	pg.start_s -= 10.0; /* as if the work had run for seconds: progress_update draws (a line: not a terminal) */
	TEST_CHECK(t, sort_intr_progress(v, n, sizeof *v, by_key, &pg) == 0, "sort_intr_progress failed");
	TEST_CHECK(t, pg.total == (long)n, "progress total %ld for %zu rows", pg.total, n);
	TEST_CHECK(t, pg.done > 0 && pg.done <= (long)n, "progress done %ld of %zu rows", pg.done, n);
	free(v);
}

/* sort_stable: descending when the argument says so, equal keys in their first order */
static int by_key_dir(const void *a, const void *b, void *dir)
{
	return *(const int *)dir * by_key(a, b);
}

static void test_stable_with_arg(test_ctx *t)
{
	size_t sizes[] = {0, 1, 2, 5, 1000};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		size_t n = sizes[k];
		item *v = make_items(n);
		int dir = -1, ordered = 1;
		sort_stable(v, n, sizeof *v, by_key_dir, &dir);
		for (size_t i = 1; i < n; i++)
			if (v[i - 1].key < v[i].key || (v[i - 1].key == v[i].key && v[i - 1].seq > v[i].seq))
				ordered = 0;
		TEST_CHECK(t, ordered, "n = %zu: not by key descending, then by original position", n);
		free(v);
	}
}

int main(void)
{
	test_ctx t = {0};
	test_sorted_and_stable(&t);
	test_stable_with_arg(&t);
	test_progress_counts_rows(&t);
	test_stops_on_signal(&t);
	return test_report(&t);
}
