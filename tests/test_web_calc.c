/* web/web_calc.c: the calculator that stores each costs.xlsx formula's result - precedence as spreadsheet
 * programs have it, empty cells, names and Sheet! references, the branch IF does not take left unread,
 * the functions the workbook uses, and errors (text in arithmetic, a cycle, an unknown name) reported.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "web/web_calc_internal.h"
#include "tests/test.h"

#include <math.h>
#include <string.h>

static double num_of(xc_book *b, int sheet, int row, int col, const char *formula)
{
	xc_set_formula(b, sheet, row, col, formula);
	xc_val v = xc_value(b, sheet, row, col);
	return v.kind == XC_NUM ? v.num : NAN;
}

static void test_arith(test_ctx *t)
{
	static const char *const names[] = {"Assumptions", "Options"};
	xc_book *b = xc_new(2, names);
	TEST_NEAR(t, num_of(b, 1, 0, 0, "=1+2*3"), 7.0, 0);
	TEST_NEAR(t, num_of(b, 1, 0, 1, "=-2^2"), 4.0, 0);            /* unary minus binds first */
	TEST_NEAR(t, num_of(b, 1, 0, 2, "=2^3^2"), 64.0, 0);          /* left to right */
	TEST_NEAR(t, num_of(b, 1, 0, 3, "=(1+0.08/12)^(-60)"), pow(1 + 0.08 / 12, -60), 1e-15);
	TEST_NEAR(t, num_of(b, 1, 0, 4, "=1E-9*1E9"), 1.0, 1e-15);
	TEST_NEAR(t, num_of(b, 1, 0, 5, "=3>2"), 1.0, 0);
	TEST_NEAR(t, num_of(b, 1, 0, 6, "=2<>2"), 0.0, 0);
	TEST_NEAR(t, num_of(b, 1, 0, 7, "=CEILING(2181/60,1)*60"), 2220.0, 0);
	TEST_NEAR(t, num_of(b, 1, 0, 8, "=ROUNDUP(5-1E-9,0)"), 5.0, 0);
	TEST_NEAR(t, num_of(b, 1, 0, 9, "=MAX(1,7,3)+MIN(4,2)"), 9.0, 0);
	TEST_NEAR(t, num_of(b, 1, 0, 10, "=AND(1,OR(0,1),NOT(0))"), 1.0, 0);
	xc_free(b);
}

static void test_cells(test_ctx *t)
{
	static const char *const names[] = {"Assumptions", "Options"};
	xc_book *b = xc_new(2, names);
	xc_set_num(b, 0, 1, 1, 0.13); /* Assumptions!B2 */
	xc_define(b, "kwh_usd", 0, 1, 1);
	xc_set_text(b, 0, 2, 1, "dgxh100");
	xc_set_num(b, 1, 1, 0, 10.0); /* Options!A2 */
	TEST_NEAR(t, num_of(b, 1, 1, 1, "=A2*kwh_usd"), 1.3, 1e-15);
	TEST_NEAR(t, num_of(b, 1, 1, 2, "=Assumptions!$B$2+Assumptions!B2"), 0.26, 1e-15);
	TEST_NEAR(t, num_of(b, 1, 1, 3, "=N(Z99)+ISNUMBER(Z99)"), 0.0, 0);   /* empty: 0, not a number */
	TEST_NEAR(t, num_of(b, 1, 1, 4, "=ISNUMBER(Assumptions!B3)"), 0.0, 0); /* text is not a number */
	TEST_NEAR(t, num_of(b, 1, 1, 5, "=Z99"), 0.0, 0);                      /* a formula of an empty cell shows 0 */
	/* the branch not taken is not read: its text-in-arithmetic is no error */
	TEST_NEAR(t, num_of(b, 1, 1, 6, "=IF(ISNUMBER(Assumptions!B3),Assumptions!B3*2,5)"), 5.0, 0);
	xc_set_formula(b, 1, 1, 7, "=IF(1>2,1,\"never\")");
	xc_val v = xc_value(b, 1, 1, 7);
	TEST_CHECK(t, v.kind == XC_TEXT && strcmp(v.text, "never") == 0, "text result %d", (int)v.kind);
	/* a formula read before the cells it reads are computed: computed on demand, once */
	xc_set_formula(b, 1, 2, 0, "=B3+1");
	xc_set_formula(b, 1, 2, 1, "=A2*2");
	TEST_NEAR(t, xc_value(b, 1, 2, 0).num, 21.0, 0);
	/* errors: text in arithmetic, a cycle, an unknown name, division by zero, a syntax error */
	xc_set_formula(b, 1, 3, 0, "=Assumptions!B3+1");
	xc_set_formula(b, 1, 3, 1, "=C4");
	xc_set_formula(b, 1, 3, 2, "=B4");
	xc_set_formula(b, 1, 3, 3, "=nosuchname*2");
	xc_set_formula(b, 1, 3, 4, "=1/0");
	xc_set_formula(b, 1, 3, 5, "=(1+2");
	for (int c = 0; c < 6; c++)
		TEST_CHECK(t, xc_value(b, 1, 3, c).kind == XC_ERR, "error at column %d: kind %d", c,
			   (int)xc_value(b, 1, 3, c).kind);
	xc_free(b);
}

int main(void)
{
	test_ctx t = {0};
	test_arith(&t);
	test_cells(&t);
	return test_report(&t);
}
