/* Tests of common/: CSV reader (line numbers, errors), CSV writer (RFC 4180, formula injection,
 * atomic rename), error prefixing, edit distance, the JSON writer (escapes, null, member spacing), the string builder.  SPDX-License-Identifier: GPL-3.0-or-later */
#include "common/common.h"

#include <errno.h>
#include <math.h>
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int parse(csv_table *t, const char *text)
{
	return csv_table_parse(t, "t.csv", text, strlen(text));
}

static void test_reader_lines(test_ctx *t)
{
	csv_table tab;
	const char *text = "# comment\nid,value\n\na,1\n\"b\nc\",2\r\n# another\nd,\"x,y\"\n";
	int rc = parse(&tab, text);
	TEST_CHECK(t, rc == 0, "parse failed: %s", err_msg());
	if (rc != 0)
		return;
	TEST_CHECK(t, tab.ncols == 2 && tab.nrows == 3, "ncols %d nrows %d", tab.ncols, tab.nrows);
	TEST_CHECK(t, tab.line[0] == 4, "row 0 line %d", tab.line[0]);
	TEST_CHECK(t, tab.line[1] == 5, "row 1 line %d (quoted field spanning lines)", tab.line[1]);
	TEST_CHECK(t, tab.line[2] == 8, "row 2 line %d", tab.line[2]);
	TEST_CHECK(t, strcmp(tab.cells[1][0], "b\nc") == 0, "embedded newline kept: '%s'", tab.cells[1][0]);
	TEST_CHECK(t, strcmp(tab.cells[2][1], "x,y") == 0, "quoted comma: '%s'", tab.cells[2][1]);
	TEST_CHECK(t, csv_table_col(&tab, "value") == 1 && csv_table_col(&tab, "nope") == -1, "col lookup");
	double v = 0;
	TEST_CHECK(t, csv_cell_double(&tab, 0, 1, &v) == 0 && v == 1.0, "number cell");
	TEST_CHECK(t, csv_cell_double(&tab, 2, 1, &v) != 0, "'x,y' is not a number");
	TEST_CHECK(t, strstr(err_msg(), "t.csv:8:2 (value)") != NULL, "message names file:line:col: %s",
		   err_msg());
	csv_table_free(&tab);
}

static void test_reader_errors(test_ctx *t)
{
	csv_table tab;
	TEST_CHECK(t, parse(&tab, "a,b\n1,2\n3\n") != 0, "ragged row accepted");
	TEST_CHECK(t, strstr(err_msg(), "t.csv:3:") != NULL, "ragged row line: %s", err_msg());
	TEST_CHECK(t, tab.nrows == 0 && tab.cells == NULL, "nothing half-loaded");
	TEST_CHECK(t, parse(&tab, "a,a\n1,2\n") != 0, "duplicate header accepted");
	TEST_CHECK(t, parse(&tab, "a,\n1,2\n") != 0, "empty header name accepted");
	TEST_CHECK(t, parse(&tab, "a,b\n\"1,2\n") != 0, "unterminated quote accepted");
	TEST_CHECK(t, parse(&tab, "") != 0, "empty file accepted");
	TEST_CHECK(t, parse(&tab, "a,b\n1\"x\",2\n") != 0, "stray quote accepted (strict)");
	TEST_CHECK(t, csv_table_load(&tab, "/nonexistent/x.csv") != 0, "missing file accepted");
	TEST_CHECK(t, strstr(err_msg(), "/nonexistent/x.csv") != NULL, "missing file named: %s", err_msg());
	csv_table_free(&tab);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = xcalloc(1, 4096);
	size_t n = fread(buf, 1, 4095, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_writer(test_ctx *t)
{
	char dir[] = "/tmp/sp_test_XXXXXX";
	if (!mkdtemp(dir)) {
		TEST_CHECK(t, 0, "mkdtemp");
		return;
	}
	char *path = xasprintf("%s/out.csv", dir);
	csvw *w = csvw_open(path);
	TEST_CHECK(t, w != NULL, "open: %s", err_msg());
	if (!w)
		return;
	csvw_text(w, "=SUM(A1)");
	csvw_text(w, "a,\"b\"");
	csvw_num(w, -3.5, 6);
	csvw_text(w, "-x");
	csvw_num(w, 0.0 / 0.0, 6);
	csvw_int(w, 42);
	csvw_end_row(w);
	TEST_CHECK(t, access(path, F_OK) != 0, "final file must not exist before close");
	TEST_CHECK(t, csvw_close(w) == 0, "close: %s", err_msg());
	char *got = slurp(path);
	const char *want = "'=SUM(A1),\"a,\"\"b\"\"\",-3.5,'-x,,42\r\n";
	TEST_CHECK(t, got && strcmp(got, want) == 0, "got [%s] want [%s]", got ? got : "(null)", want);
	free(got);
	char *tmp = xasprintf("%s.tmp", path);
	TEST_CHECK(t, access(tmp, F_OK) != 0, "tmp file left behind");
	w = csvw_open(path);
	csvw_text(w, "partial");
	csvw_abort(w);
	got = slurp(path);
	TEST_CHECK(t, got && strcmp(got, want) == 0, "abort must keep the old file");
	TEST_CHECK(t, access(tmp, F_OK) != 0, "aborted tmp file left behind");
	free(got);
	/* file_read_all reads back what csvw wrote, NUL-terminated; a missing file is named */
	{
		char *buf;
		size_t len;
		TEST_CHECK(t, file_read_all(path, &buf, &len) == 0 && len == strlen(want) && strcmp(buf, want) == 0,
			   "read back");
		free(buf);
		/* README "Exit status": a path the user named wrong is bad input, what the machine refuses is not */
		TEST_CHECK(t, file_read_all("/nonexistent/y", &buf, &len) == ERR_INPUT && buf == NULL, "missing");
		TEST_CHECK(t, strstr(err_msg(), "/nonexistent/y: no such file") != NULL, "named: %s", err_msg());
		TEST_CHECK(t, file_read_all("/tmp", &buf, &len) == ERR_INPUT && buf == NULL, "a directory");
		TEST_CHECK(t, strstr(err_msg(), "/tmp: is a directory (expected a file)") != NULL, "named: %s", err_msg());
		TEST_CHECK(t, err_path("x", EACCES, "a file") == ERR_ENV, "permission is the machine's");
		TEST_CHECK(t, err_path("x", ENOSPC, "a file") == ERR_ENV, "a full disk is the machine's");
		TEST_CHECK(t, err_path("x", ENOTDIR, "a file") == ERR_INPUT, "a file where a folder belongs");
	}
	/* a device is written in place, never replaced by a renamed file */
	w = csvw_open("/dev/null");
	TEST_CHECK(t, w != NULL, "open /dev/null: %s", err_msg());
	csvw_text(w, "x");
	csvw_end_row(w);
	TEST_CHECK(t, csvw_close(w) == 0, "close /dev/null: %s", err_msg());
	struct stat st;
	TEST_CHECK(t, stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "/dev/null is still a device");
	unlink(path);
	rmdir(dir);
	free(tmp);
	free(path);
}

static void test_errors_and_distance(test_ctx *t)
{
	err_set("line %d: bad", 3);
	err_prefix("gpus.csv");
	TEST_CHECK(t, strcmp(err_msg(), "gpus.csv: line 3: bad") == 0, "prefix: %s", err_msg());
	TEST_CHECK(t, str_edit_distance("c4140-m", "C4140-M") == 0, "case-insensitive");
	TEST_CHECK(t, str_edit_distance("c4140-n", "c4140-m") == 1, "one substitution");
	TEST_CHECK(t, str_edit_distance("", "abc") == 3, "empty");
	char *s = xasprintf("%s-%d", "a", 7);
	TEST_CHECK(t, strcmp(s, "a-7") == 0, "xasprintf");
	free(s);
}

/* What csv_table_stream hands over: every batch's rows with their file lines, then the last (perhaps empty). */
typedef struct stream_seen {
	int calls, rows, max_batch, lines[16];
	char first[16][16];
} stream_seen;

static int stream_each(const csv_table *tab, void *ctx)
{
	stream_seen *s = ctx;
	s->calls++;
	if (tab->nrows > s->max_batch)
		s->max_batch = tab->nrows;
	for (int r = 0; r < tab->nrows && s->rows < 16; r++, s->rows++) {
		s->lines[s->rows] = tab->line[r];
		snprintf(s->first[s->rows], sizeof s->first[0], "%s", tab->cells[r][0]);
	}
	return 0;
}

static void test_reader_stream(test_ctx *t)
{
	char dir[] = "/tmp/scaleplan-test-XXXXXX", path[64];
	if (!mkdtemp(dir)) {
		TEST_CHECK(t, 0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof path, "%s/s.csv", dir);
	/* the same text as test_reader_lines plus rows: comments, a blank line, a cell spanning lines */
	const char *text = "# comment\nid,value\n\na,1\n\"b\nc\",2\r\n# another\nd,\"x,y\"\ne,5\n";
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	stream_seen s = {0};
	int rc = csv_table_stream(path, 2, stream_each, &s, NULL);
	TEST_CHECK(t, rc == 0, "stream: %s", err_msg());
	TEST_CHECK(t, s.rows == 4 && s.max_batch <= 2, "rows %d, largest batch %d (want 4 rows, batches <= 2)", s.rows,
		   s.max_batch);
	TEST_CHECK(t, s.calls == 3, "calls %d (two full batches, then the end with none)", s.calls);
	TEST_CHECK(t, s.lines[0] == 4 && s.lines[1] == 5 && s.lines[2] == 8 && s.lines[3] == 9,
		   "lines %d %d %d %d, want 4 5 8 9 as csv_table_load", s.lines[0], s.lines[1], s.lines[2], s.lines[3]);
	TEST_CHECK(t, strcmp(s.first[1], "b\nc") == 0, "cell spanning lines: '%s'", s.first[1]);
	/* a ragged row after a batch was handed over is named by its own line */
	f = fopen(path, "w");
	fputs("a,b\n1,2\n3,4\n5,6\n7\n", f);
	fclose(f);
	stream_seen s2 = {0};
	rc = csv_table_stream(path, 2, stream_each, &s2, NULL);
	TEST_CHECK(t, rc == ERR_INPUT && strstr(err_msg(), "s.csv:5:") != NULL, "ragged row: rc %d, %s", rc, err_msg());
	unlink(path);
	rmdir(dir);
}

/* What the JSON writer prints, as a string (caller frees). */
static char *json_text(const char *s, double v, bool compact)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_member_str(f, "s", s, true, compact);
	json_member_num(f, "v", v, true, compact);
	json_member_num(f, "w", 1.0 / 3.0, false, compact);
	fclose(f);
	return buf;
}

static void test_json(test_ctx *t)
{
	/* RFC 8259 section 7: quote and backslash escaped by a backslash, control characters as \u00XX */
	char *a = json_text("a\"b\\c\n\x01\xc3\xa9", INFINITY, false);
	TEST_CHECK(t, strcmp(a, "\"s\": \"a\\\"b\\\\c\\u000a\\u0001\xc3\xa9\", \"v\": null, \"w\": 0.333333333") == 0,
		   "spaced: %s", a);
	char *b = json_text("", 2.5e-7, true);
	TEST_CHECK(t, strcmp(b, "\"s\":\"\",\"v\":2.5e-07,\"w\":0.333333333") == 0, "compact: %s", b);
	free(a);
	free(b);
}

/* The string builder: text past its first allocation kept whole (no silent cut), raw bytes with a NUL kept
 * and counted, printf text after them, and free of one never written to. */
static void test_strbuf(test_ctx *t)
{
	strbuf b;
	strbuf_init(&b);
	size_t first_B = b.cap_B;
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&b, "%04d,", i);
	TEST_CHECK(t, b.len_B == 5000 && strlen(b.s) == 5000, "5000 bytes kept: len %zu strlen %zu", b.len_B, strlen(b.s));
	TEST_CHECK(t, b.cap_B > first_B && b.cap_B > b.len_B, "grew past %zu: cap %zu", first_B, b.cap_B);
	TEST_CHECK(t, strncmp(b.s, "0000,0001,", 10) == 0 && strcmp(b.s + 4990, "0998,0999,") == 0, "ends: %.10s ... %s",
		   b.s, b.s + 4990);
	strbuf_free(&b);
	TEST_CHECK(t, b.s == NULL && b.len_B == 0, "freed");
	strbuf_free(&b); /* twice is fine */

	strbuf r;
	strbuf_init(&r);
	strbuf_addn(&r, "a\0b", 3);
	strbuf_addf(&r, "%s", "cd");
	TEST_CHECK(t, r.len_B == 5 && memcmp(r.s, "a\0bcd", 6) == 0, "embedded NUL kept: len %zu", r.len_B);
	strbuf_free(&r);

	strbuf e;
	strbuf_init(&e);
	TEST_CHECK(t, e.len_B == 0 && e.s[0] == '\0', "empty is \"\"");
	strbuf_free(&e);
	strbuf_free(NULL);
}

int main(void)
{
	test_ctx t = { 0 };
	test_reader_lines(&t);
	test_reader_stream(&t);
	test_reader_errors(&t);
	test_writer(&t);
	test_errors_and_distance(&t);
	test_json(&t);
	test_strbuf(&t);
	return test_report(&t);
}
