/* cols.c: one table of output columns drives a CSV header, its cells and the JSON members of the same values,
 * so that the three cannot drift apart (a column added once appears in all, in one order).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "common/common_internal.h"

#include <math.h>
#include <stdio.h>

static bool in(const out_col *c, unsigned fmt)
{
	return (c->only ? c->only : COL_CSV | COL_JSON) & fmt;
}

void col_csv_header(csvw *w, const out_col *c, int n)
{
	for (int i = 0; i < n; i++)
		if (in(&c[i], COL_CSV))
			csvw_text(w, c[i].name);
}

void col_csv_cells(csvw *w, const out_col *c, int n, const void *row)
{
	for (int i = 0; i < n; i++) {
		if (!in(&c[i], COL_CSV))
			continue;
		switch (c[i].kind) {
		case COL_TEXT:
			csvw_text(w, c[i].text(row));
			break;
		case COL_INT:
		case COL_BOOL:
			csvw_int(w, (long)c[i].num(row));
			break;
		case COL_NUM:
		case COL_COUNT:
			csvw_num(w, c[i].num(row), c[i].digits);
			break;
		}
	}
}

void col_json_members(FILE *f, const out_col *c, int n, const void *row, bool more, bool compact)
{
	int last = -1;
	for (int i = 0; i < n; i++)
		if (in(&c[i], COL_JSON))
			last = i;
	for (int i = 0; i <= last; i++) {
		if (!in(&c[i], COL_JSON))
			continue;
		bool m = more || i < last;
		char v[32];
		double x = c[i].kind == COL_TEXT ? NAN : c[i].num(row);
		switch (c[i].kind) {
		case COL_TEXT:
			json_member_str(f, c[i].name, c[i].text(row), m, compact);
			break;
		case COL_BOOL:
			json_member_raw(f, c[i].name, x != 0 ? "true" : "false", m, compact);
			break;
		case COL_INT:
		case COL_COUNT: /* a whole count, exact (JSON numbers are not bound to 9 digits) */
			if (isfinite(x)) {
				snprintf(v, sizeof v, "%.0f", x);
				json_member_raw(f, c[i].name, v, m, compact);
			} else {
				json_member_num(f, c[i].name, x, m, compact);
			}
			break;
		case COL_NUM:
			json_member_num(f, c[i].name, x, m, compact);
			break;
		}
	}
}
