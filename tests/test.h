/* tests/test.h - a small test harness (in the spirit of redis's testhelp.h).
 *
 *   static void test_parse(test_ctx *t) { TEST_CHECK(t, 1 + 1 == 2, "arith %d", 2); }
 *   int main(void) { test_ctx t = {0}; test_parse(&t); return test_report(&t); }
 *
 * Every check prints its location when it fails; test_report prints "N passed, N failed" last and
 * returns the process exit status (0 when nothing failed).  GPU-less skips use TEST_SKIP.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_TEST_H
#define SCALEPLAN_TEST_H

#include <math.h>
#include <stdio.h>

typedef struct test_ctx {
	int passed;
	int failed;
	int skipped;
} test_ctx;

/* Checks a condition; on failure prints file:line and the formatted reason. */
#define TEST_CHECK(t, cond, ...)                                                   \
	do {                                                                       \
		if (cond) {                                                        \
			(t)->passed++;                                             \
		} else {                                                           \
			(t)->failed++;                                             \
			fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                              \
			fputc('\n', stderr);                                       \
		}                                                                  \
	} while (0)

/* |a - b| <= reltol * max(|a|, |b|, tiny); the tolerance is part of the message. */
#define TEST_NEAR(t, a, b, reltol)                                                             \
	do {                                                                                   \
		double a_ = (a), b_ = (b), m_ = fmax(fmax(fabs(a_), fabs(b_)), 1e-300);       \
		TEST_CHECK(t, fabs(a_ - b_) <= (reltol) * m_, "%s = %.9g vs %s = %.9g (rel tol %g)", \
			   #a, a_, #b, b_, (double)(reltol));                                   \
	} while (0)

#define TEST_SKIP(t, why)                                                    \
	do {                                                                 \
		(t)->skipped++;                                              \
		fprintf(stderr, "%s:%d: SKIPPED: %s\n", __FILE__, __LINE__, why); \
	} while (0)

static inline int test_report(const test_ctx *t)
{
	if (t->skipped)
		printf("%d skipped\n", t->skipped);
	printf("%d passed, %d failed\n", t->passed, t->failed);
	return t->failed ? 1 : 0;
}

#endif
