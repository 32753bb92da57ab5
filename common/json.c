/* JSON text (RFC 8259) as every writer of the project prints it: strings escaped one way, numbers
 * printed one way, members spaced one of two ways.  SPDX-License-Identifier: GPL-3.0-or-later */
#include "common/common_internal.h"

#include <math.h>

void json_put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c < 0x20)
			fprintf(f, "\\u%04x", *c); /* section 7: control characters must be escaped */
		else
			fputc(*c, f);
	}
	fputc('"', f);
}

static void json_put_num(FILE *f, double v)
{
	/* 9 significant digits carry every model figure (a float's worth); JSON has no NaN or infinity */
	if (isfinite(v))
		fprintf(f, "%.9g", v);
	else
		fputs("null", f);
}

static void key(FILE *f, const char *name, bool compact)
{
	json_put_str(f, name);
	fputs(compact ? ":" : ": ", f);
}

static void next(FILE *f, bool more, bool compact)
{
	if (more)
		fputs(compact ? "," : ", ", f);
}

void json_member_str(FILE *f, const char *name, const char *v, bool more, bool compact)
{
	key(f, name, compact);
	json_put_str(f, v);
	next(f, more, compact);
}

void json_member_num(FILE *f, const char *name, double v, bool more, bool compact)
{
	key(f, name, compact);
	json_put_num(f, v);
	next(f, more, compact);
}

void json_member_raw(FILE *f, const char *name, const char *v, bool more, bool compact)
{
	key(f, name, compact);
	fputs(v, f);
	next(f, more, compact);
}
