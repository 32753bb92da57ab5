/* Error reporting and checked allocation.  SPDX-License-Identifier: GPL-3.0-or-later */
#include "common/common.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define ERR_MSG_MAX 2048

/* One message per thread: actions on different threads (loader workers) never clobber each
 * other's reason.  Not a shared mutable global: each thread sees only its own. */
static _Thread_local char err_buf[ERR_MSG_MAX];

int err_set(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err_buf, sizeof err_buf, fmt, ap);
	va_end(ap);
	return ERR_INPUT;
}

int err_prefix(const char *fmt, ...)
{
	char head[ERR_MSG_MAX];
	char tail[ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	memcpy(tail, err_buf, sizeof tail);
	/* head + ": " + tail, cut at the buffer's end */
	size_t h = strnlen(head, ERR_MSG_MAX - 3);
	size_t room = ERR_MSG_MAX - h - 3;
	size_t n = strnlen(tail, room);
	memcpy(err_buf, head, h);
	memcpy(err_buf + h, ": ", 2);
	memcpy(err_buf + h + 2, tail, n);
	err_buf[h + 2 + n] = '\0';
	return ERR_INPUT;
}

const char *err_msg(void)
{
	return err_buf;
}

void err_clear(void)
{
	err_buf[0] = '\0';
}

static void *out_of_memory(size_t size_B)
{
	fprintf(stderr, "scaleplan: out of memory allocating %zu bytes\n", size_B);
	exit(EXIT_ENV);
}

void *xmalloc(size_t size_B)
{
	void *p = malloc(size_B ? size_B : 1);
	return p ? p : out_of_memory(size_B);
}

void *xcalloc(size_t count, size_t size_B)
{
	void *p = calloc(count ? count : 1, size_B ? size_B : 1);
	return p ? p : out_of_memory(count * size_B);
}

void *xrealloc(void *ptr, size_t size_B)
{
	void *p = realloc(ptr, size_B ? size_B : 1);
	return p ? p : out_of_memory(size_B);
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	char *s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}
