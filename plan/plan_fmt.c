/* plan_fmt.c: figures as a buyer reads them - dollars with thousands separators, durations in a unit that
 * fits, a time with its 90% interval - and durations parsed back. Calls nothing else of plan/.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "plan/plan_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

int plan_parse_duration(const char *s, double *out_s)
{
	static const struct { const char *unit; double s; } units[] = {
		{"", 1}, {"s", 1}, {"sec", 1}, {"min", 60}, {"m", 60}, {"h", 3600}, {"hr", 3600}, {"d", 86400},
		{"day", 86400}, {"days", 86400}, {"w", 604800},
	};
	char *end;
	double v = strtod(s, &end);
	if (end == s || !isfinite(v) || !(v > 0))
		return err_set("'%s': expected a positive duration such as 90min, 2.5h, 3d or 5400 (seconds)", s);
	while (isspace((unsigned char)*end))
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0) {
			*out_s = v * units[i].s;
			return 0;
		}
	return err_set("'%s': unknown unit '%s'; expected s, min, h, d or w (e.g. 90min, 2.5h)", s, end);
}

char *plan_fmt_usd(double usd, char *buf, size_t len_B)
{
	if (!isfinite(usd)) {
		snprintf(buf, len_B, "-");
		return buf;
	}
	char digits[32], out[48];
	/* the figure as the CSV states it (csvw_num's 8 significant digits, plan_row.c): whatif.html formats the
	 * CSV's text, and rounding the full value here but its 8-digit text there gave $3,458,430 on the command
	 * line and 3,458,431 on the page (3458430.5 rounded up) */
	snprintf(digits, sizeof digits, "%.8g", usd);
	usd = strtod(digits, NULL);
	if (fabs(usd) < 100) { /* a short run's rent or energy: cents matter */
		snprintf(buf, len_B, "%s$%.2f", usd < 0 ? "-" : "", fabs(usd));
		return buf;
	}
	snprintf(digits, sizeof digits, "%.0f", fabs(usd));
	size_t nd = strlen(digits), k = 0;
	if (usd < 0 && nd && strcmp(digits, "0"))
		out[k++] = '-';
	out[k++] = '$';
	for (size_t i = 0; i < nd; i++) {
		if (i && (nd - i) % 3 == 0)
			out[k++] = ',';
		out[k++] = digits[i];
	}
	out[k] = '\0';
	snprintf(buf, len_B, "%s", out);
	return buf;
}

char *plan_fmt_duration(double s, char *buf, size_t len_B)
{
	if (!isfinite(s))
		snprintf(buf, len_B, "-");
	else if (s > 0 && s < 0.1) /* "0.0 s" would hide it: an epoch on 100,000 GPUs takes milliseconds */
		snprintf(buf, len_B, "%.3g ms", s * 1e3);
	else if (s < 120)
		snprintf(buf, len_B, "%.1f s", s);
	else if (s < 7200)
		snprintf(buf, len_B, "%.1f min", s / 60);
	else if (s < 3 * 86400)
		snprintf(buf, len_B, "%.0f h %02.0f min", floor(s / 3600), floor(fmod(s, 3600) / 60));
	else
		snprintf(buf, len_B, "%.1f days", s / 86400);
	return buf;
}

char *plan_fmt_range(double s, double lo_s, double hi_s, char *buf, size_t len_B)
{
	double unit = 1.0;
	const char *name = "s";
	if (!isfinite(s) || !isfinite(lo_s) || !isfinite(hi_s) || (lo_s == s && hi_s == s))
		return plan_fmt_duration(s, buf, len_B);
	/* plan_fmt_duration's units; hours as decimals so that the range reads in the point's unit */
	if (s >= 3 * 86400.0)
		unit = 86400.0, name = "days";
	else if (s >= 7200.0)
		unit = 3600.0, name = "h";
	else if (s >= 120.0)
		unit = 60.0, name = "min";
	snprintf(buf, len_B, "%.1f %s (%.1f-%.1f)", s / unit, name, lo_s / unit, hi_s / unit);
	return buf;
}

char *plan_stack_label(const model_scenario *sc, char *buf, size_t len_B)
{
	snprintf(buf, len_B, "%s (%s decode%s)", sc->stack.id, sc->data == MODEL_DATA_GPU ? "gpu" : sc->data == MODEL_DATA_CPU ? "cpu" : "no",
		 sc->stack.staged ? ", staged" : "");
	return buf;
}
