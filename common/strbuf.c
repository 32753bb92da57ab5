/* common/strbuf.c: a string builder - text appended with printf formats into a buffer that grows, so that no
 * answer or note is cut at a fixed size.  SPDX-License-Identifier: GPL-3.0-or-later */
#include "common/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf_init(strbuf *b)
{
	b->cap_B = 256;
	b->s = xmalloc(b->cap_B);
	b->s[0] = '\0';
	b->len_B = 0;
}

/* Room for n more bytes and the NUL: the capacity doubled until they fit. */
static void strbuf_reserve(strbuf *b, size_t n)
{
	if (b->cap_B - b->len_B > n)
		return;
	if (!b->cap_B) /* freed: start again as strbuf_init does */
		b->cap_B = 256;
	while (b->cap_B - b->len_B <= n)
		b->cap_B *= 2;
	b->s = xrealloc(b->s, b->cap_B);
}

void strbuf_vaddf(strbuf *b, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int k = vsnprintf(b->s + b->len_B, b->cap_B - b->len_B, fmt, ap);
	if (k < 0) { /* an encoding error: nothing appended */
		b->s[b->len_B] = '\0';
		va_end(again);
		return;
	}
	if ((size_t)k >= b->cap_B - b->len_B) { /* too short: grow to fit and write again */
		strbuf_reserve(b, (size_t)k);
		vsnprintf(b->s + b->len_B, b->cap_B - b->len_B, fmt, again);
	}
	va_end(again);
	b->len_B += (size_t)k;
}

void strbuf_addf(strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(b, fmt, ap);
	va_end(ap);
}

void strbuf_addn(strbuf *b, const void *data, size_t n)
{
	strbuf_reserve(b, n);
	memcpy(b->s + b->len_B, data, n);
	b->len_B += n;
	b->s[b->len_B] = '\0';
}

void strbuf_add_wrapped(strbuf *b, const char *text, size_t width)
{
	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l), indent = strspn(l, " ") + 4, first = 0;
		const char *gap = strstr(l + indent - 4, "  ");
		if (gap && gap < l + len && gap - l < 40) /* the value's column */
			indent = (size_t)(gap - l) + strspn(gap, " ");
		while (len - first > (first ? width - indent : width)) {
			size_t room = first ? width - indent : width, cut = first + room;
			while (cut > first + 1 && l[cut] != ' ')
				cut--;
			if (cut <= first + 1) /* one word longer than a line: whole */
				break;
			strbuf_addf(b, "%*s%.*s\n", first ? (int)indent : 0, "", (int)(cut - first), l + first);
			first = cut + 1;
		}
		strbuf_addf(b, "%*s%.*s\n", first ? (int)indent : 0, "", (int)(len - first), l + first);
		l += len + (e != NULL);
	}
}

void strbuf_free(strbuf *b)
{
	if (!b)
		return;
	free(b->s);
	b->s = NULL;
	b->len_B = b->cap_B = 0;
}
