/* Stable merge sorts: sort_stable for small tables (compare's options: the same order on every C library,
 * the WebAssembly build's included), sort_intr for the large tables that sweep ranks (millions of rows take
 * seconds: qsort cannot be asked to stop half-way).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "common/common.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* How many elements are merged between two looks at the interrupt flag: often enough that a signal
 * is answered within milliseconds, rarely enough that the look costs nothing. */
enum { SORT_POLL_EVERY = 1 << 14 };

typedef int sort_cmp_fn(const void *, const void *, void *);

/* Merges the sorted runs src[lo, mid) and src[mid, hi) into dst[lo, hi); equal keys keep their order. */
static void merge_runs(char *dst, const char *src, size_t lo, size_t mid, size_t hi, size_t size_B, sort_cmp_fn *cmp,
		       void *arg)
{
	size_t i = lo, j = mid, k = lo;
	while (i < mid && j < hi) {
		const char *take =
			cmp(src + j * size_B, src + i * size_B, arg) < 0 ? src + j++ * size_B : src + i++ * size_B;
		memcpy(dst + k++ * size_B, take, size_B);
	}
	memcpy(dst + k * size_B, src + i * size_B, (mid - i) * size_B);
	k += mid - i;
	memcpy(dst + k * size_B, src + j * size_B, (hi - j) * size_B);
}

/* The bottom-up merge sort both share; with stoppable, it looks at the interrupt flag every SORT_POLL_EVERY
 * elements merged and returns ERR_INTR when one is pending (pg, when given, updated there). */
static int merge_sort(void *base, size_t n, size_t size_B, sort_cmp_fn *cmp, void *arg, bool stoppable, progress *pg)
{
	if (n < 2)
		return stoppable && intr_pending() ? ERR_INTR : 0;
	char *a = base, *b = xmalloc(n * size_B), *src = a, *dst = b;
	size_t since_poll = 0;
	long merged = 0, passes = 0;
	for (size_t w = 1; w < n; w *= 2) /* every pass merges all n elements: ceil(log2 n) passes */
		passes++;
	if (pg) /* counted in rows (the merges done / the passes), so that the count never passes the rows */
		pg->total = (long)n;
	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			merge_runs(dst, src, lo, mid, hi, size_B, cmp, arg);
			since_poll += hi - lo;
			merged += (long)(hi - lo);
			if (stoppable && since_poll >= SORT_POLL_EVERY) {
				since_poll = 0;
				if (pg)
					progress_update(pg, merged / passes);
				if (intr_pending()) {
					free(b);
					return ERR_INTR; /* base holds the same rows, in no useful order */
				}
			}
		}
		char *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * size_B);
	free(b);
	return stoppable && intr_pending() ? ERR_INTR : 0;
}

void sort_stable(void *base, size_t n, size_t size_B, int (*cmp)(const void *, const void *, void *), void *arg)
{
	merge_sort(base, n, size_B, cmp, arg, false, NULL);
}

/* sort_intr's comparator, which takes no argument, called through the shared one */
typedef struct plain_cmp {
	int (*cmp)(const void *, const void *);
} plain_cmp;

static int call_plain(const void *x, const void *y, void *arg)
{
	return ((const plain_cmp *)arg)->cmp(x, y);
}

int sort_intr(void *base, size_t n, size_t size_B, int (*cmp)(const void *, const void *))
{
	return sort_intr_progress(base, n, size_B, cmp, NULL);
}

int sort_intr_progress(void *base, size_t n, size_t size_B, int (*cmp)(const void *, const void *), progress *pg)
{
	plain_cmp c = {cmp};
	return merge_sort(base, n, size_B, call_plain, &c, true, pg);
}
