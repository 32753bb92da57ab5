/* web/web_xlsx_none.c: web_costs_write where the build found no libxlsxwriter (web/module.mk picks this file
 * instead of web_xlsx.c): the workbook is left out and the report says why.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "web/web.h"

#include <stdio.h>

int web_costs_write(const char *path, const hw_db *db, const plan_spec *spec, const model_params *p,
		    const plan_question *q, const plan_option *o, int n, char *why, size_t why_len)
{
	(void)path, (void)db, (void)spec, (void)p, (void)q, (void)o, (void)n;
	snprintf(why, why_len, "scaleplan was built without libxlsxwriter (Debian package libxlsxwriter-dev, then "
			       "make)");
	return WEB_LEFT_OUT;
}
