/* CSV reading on libcsv, with the file line of every row; RFC 4180 writing through a temporary file.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "common/common.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Parser state handed to the libcsv callbacks. */
typedef struct csv_build {
	csv_table *t;
	char **row;          /* cells of the row being read */
	int row_n, row_cap;
	int row_line;        /* line where the current row started; 0 = not started */
	int chunk_line;      /* line number of the chunk being fed */
	int fields_pending;  /* fields seen since the last end of row */
	int row_ends;        /* end-of-row callbacks so far */
	int rows_cap;
	int failed;          /* an error was set inside a callback */
} csv_build;

static void on_field(void *field, size_t len, void *data)
{
	csv_build *b = data;
	if (b->row_n == 0) {
		int nl = 0;
		for (size_t i = 0; i < len; i++)
			nl += ((char *)field)[i] == '\n';
		b->row_line = b->chunk_line - nl;
	}
	if (b->row_n == b->row_cap) {
		b->row_cap = b->row_cap ? 2 * b->row_cap : 16;
		b->row = xrealloc(b->row, (size_t)b->row_cap * sizeof *b->row);
	}
	char *s = xmalloc(len + 1);
	memcpy(s, field, len);
	s[len] = '\0';
	b->row[b->row_n++] = s;
	b->fields_pending = 1;
}

static void drop_row(csv_build *b)
{
	for (int i = 0; i < b->row_n; i++)
		free(b->row[i]);
	b->row_n = 0;
}

static int take_header(csv_build *b)
{
	csv_table *t = b->t;
	for (int i = 0; i < b->row_n; i++) {
		if (b->row[i][0] == '\0')
			return err_set("%s:%d:%d: empty column name in header", t->name, b->row_line, i + 1);
		for (int j = 0; j < i; j++)
			if (strcmp(b->row[i], b->row[j]) == 0)
				return err_set("%s:%d:%d: duplicate column '%s' in header", t->name,
					       b->row_line, i + 1, b->row[i]);
	}
	t->ncols = b->row_n;
	t->header = xmalloc((size_t)b->row_n * sizeof *t->header);
	memcpy(t->header, b->row, (size_t)b->row_n * sizeof *t->header);
	b->row_n = 0;
	return 0;
}

static int take_row(csv_build *b)
{
	csv_table *t = b->t;
	if (b->row_n != t->ncols)
		return err_set("%s:%d: expected %d cells (as in the header), found %d", t->name, b->row_line,
			       t->ncols, b->row_n);
	if (t->nrows == b->rows_cap) {
		b->rows_cap = b->rows_cap ? 2 * b->rows_cap : 64;
		t->cells = xrealloc(t->cells, (size_t)b->rows_cap * sizeof *t->cells);
		t->line = xrealloc(t->line, (size_t)b->rows_cap * sizeof *t->line);
	}
	t->cells[t->nrows] = xmalloc((size_t)t->ncols * sizeof(char *));
	memcpy(t->cells[t->nrows], b->row, (size_t)t->ncols * sizeof(char *));
	t->line[t->nrows] = b->row_line;
	t->nrows++;
	b->row_n = 0;
	return 0;
}

static void on_row_end(int c, void *data)
{
	(void)c;
	csv_build *b = data;
	b->row_ends++;
	b->fields_pending = 0;
	if (b->failed) {
		drop_row(b);
		return;
	}
	int rc = b->t->header ? take_row(b) : take_header(b);
	if (rc != 0) {
		b->failed = 1;
		drop_row(b);
	}
}

void csv_table_free(csv_table *t)
{
	if (!t)
		return;
	for (int r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++)
			free(t->cells[r][c]);
		free(t->cells[r]);
	}
	for (int c = 0; c < t->ncols && t->header; c++)
		free(t->header[c]);
	free(t->header);
	free(t->cells);
	free(t->line);
	free(t->name);
	memset(t, 0, sizeof *t);
}

/* Feeds one line (n bytes, its newline included) of line number b->chunk_line to libcsv; a line that
 * starts with '#' outside a row is a comment. *row_open: a quoted cell goes on past this line. */
static int feed_line(struct csv_parser *p, csv_build *b, const char *s, size_t n, int *row_open)
{
	int blank = n == 1 || (n == 2 && s[0] == '\r');
	if (!*row_open && s[0] == '#')
		return 0;
	int ends_before = b->row_ends;
	if (csv_parse(p, s, n, on_field, on_row_end, b) != n)
		return err_set("%s:%d: malformed CSV (%s)", b->t->name, b->chunk_line, csv_strerror(csv_error(p)));
	if (b->failed)
		return ERR_INPUT;
	if (!blank)
		*row_open = !(b->row_ends > ends_before && b->fields_pending == 0);
	return 0;
}

/* Feeds the buffer to libcsv one line at a time so every row knows its line. */
static int feed_lines(struct csv_parser *p, csv_build *b, const char *buf, size_t len_B)
{
	int row_open = 0;
	size_t pos = 0;
	b->chunk_line = 1;
	while (pos < len_B) {
		const char *nl = memchr(buf + pos, '\n', len_B - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) + 1 : len_B - pos;
		int rc = feed_line(p, b, buf + pos, n, &row_open);
		if (rc)
			return rc;
		pos += n;
		b->chunk_line++;
	}
	b->chunk_line--;
	if (csv_fini(p, on_field, on_row_end, b) != 0)
		return err_set("%s:%d: malformed CSV at end of file (%s)", b->t->name, b->chunk_line,
			       csv_strerror(csv_error(p)));
	return b->failed ? ERR_INPUT : 0;
}

int csv_table_parse(csv_table *t, const char *name, const char *buf, size_t len_B)
{
	memset(t, 0, sizeof *t);
	t->name = xstrdup(name);
	struct csv_parser p;
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
		err_set("%s: cannot initialise libcsv", name);
		csv_table_free(t);
		return ERR_ENV;
	}
	csv_build b = { .t = t };
	int rc = feed_lines(&p, &b, buf, len_B);
	csv_free(&p);
	drop_row(&b);
	free(b.row);
	if (rc == 0 && !t->header)
		rc = err_set("%s:1: empty file, expected a header row", name);
	if (rc != 0) {
		char *keep = xstrdup(err_msg());
		csv_table_free(t);
		err_set("%s", keep);
		free(keep);
	}
	return rc;
}

int csv_table_load(csv_table *t, const char *path)
{
	char *buf;
	size_t len;
	memset(t, 0, sizeof *t);
	int rc = file_read_all(path, &buf, &len);
	if (rc != 0)
		return rc; /* ERR_INPUT (no such file, a directory) or ERR_ENV (permission, I/O) */
	rc = csv_table_parse(t, path, buf, len);
	free(buf);
	return rc;
}

int csv_table_col(const csv_table *t, const char *name)
{
	for (int c = 0; c < t->ncols; c++)
		if (strcmp(t->header[c], name) == 0)
			return c;
	return -1;
}

int csv_cell_double(const csv_table *t, int row, int col, double *out)
{
	const char *s = t->cells[row][col];
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (s[0] == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v))
		return err_set("%s:%d:%d (%s): expected a finite number, found '%s'", t->name, t->line[row],
			       col + 1, t->header[col], s);
	*out = v;
	return 0;
}

int csv_cell_int(const csv_table *t, int row, int col, long *out)
{
	const char *s = t->cells[row][col];
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (s[0] == '\0' || *end != '\0' || errno == ERANGE)
		return err_set("%s:%d:%d (%s): expected an integer, found '%s'", t->name, t->line[row],
			       col + 1, t->header[col], s);
	*out = v;
	return 0;
}

/* ---- writer ---- */

struct csvw {
	FILE *f;
	char *path; /* NULL for a borrowed stream */
	char *tmp;
	int col;
	int special; /* borrowed path written in place: fclose, no rename */
	/* csvw_select: each row is built in memory (row, cells starting at cell_at[]) and the chosen cells
	 * written at its end, in the order asked (pick[] of the header's columns) */
	char *select;
	FILE *row;
	char *rowbuf;
	size_t rowlen_B, *cell_at;
	int ncell, capcell, *pick, npick, bad;
};

/* A path that exists and is not a regular file (/dev/null, a FIFO, /dev/stdout) is written in
 * place: renaming a temporary file over it would replace the device with a plain file. */
static csvw *csvw_open_special(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return NULL; /* errno for the caller */
	csvw *w = xcalloc(1, sizeof *w);
	w->f = f;
	w->special = 1;
	return w;
}

int csvw_create(const char *path, csvw **w)
{
	struct stat st;
	*w = NULL;
	if (strcmp(path, "-") == 0) {
		*w = csvw_stream(stdout);
		return 0;
	}
	if (!*path)
		return err_set("'': an empty path (expected a file to write)");
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return err_path(path, EISDIR, "a file to write");
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		int rc = out_check_file(path); /* a read-only file is not replaced behind its mode's back */
		if (rc)
			return rc;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		*w = csvw_open_special(path);
		return *w ? 0 : err_path(path, errno, "a file to write");
	}
	char *tmp = xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		int rc = err_path(tmp, errno, "a file in an existing directory");
		free(tmp);
		return rc;
	}
	*w = xcalloc(1, sizeof **w);
	(*w)->f = f;
	(*w)->path = xstrdup(path);
	(*w)->tmp = tmp;
	return 0;
}

csvw *csvw_open(const char *path)
{
	csvw *w;
	csvw_create(path, &w);
	return w;
}

csvw *csvw_stream(FILE *f)
{
	csvw *w = xcalloc(1, sizeof *w);
	w->f = f;
	return w;
}

/* Where the current cell goes: the row in memory while columns are selected, else the file. */
static FILE *out(csvw *w)
{
	if (!w->select)
		return w->f;
	if (!w->row)
		w->row = open_memstream(&w->rowbuf, &w->rowlen_B);
	return w->row;
}

static void sep(csvw *w)
{
	if (w->select) {
		FILE *r = out(w);
		if (w->ncell == w->capcell)
			w->cell_at = xrealloc(w->cell_at, (size_t)(w->capcell = 2 * w->capcell + 16) * sizeof *w->cell_at);
		fflush(r);
		w->cell_at[w->ncell++] = w->rowlen_B;
		w->col++;
		return;
	}
	if (w->col++ > 0)
		fputc(',', w->f);
}

void csvw_select(csvw *w, const char *names)
{
	if (names && *names)
		w->select = xstrdup(names);
}

int csvw_status(const csvw *w)
{
	return w ? w->bad : 0;
}

/* The text of cell i of the row in memory (rowbuf flushed), its length in *n. */
static const char *cell(const csvw *w, int i, size_t *n)
{
	size_t end = i + 1 < w->ncell ? w->cell_at[i + 1] : w->rowlen_B;
	*n = end - w->cell_at[i];
	return w->rowbuf + w->cell_at[i];
}

/* The header row in memory: each name of select found among its cells, in the order given; an unknown name
 * marks the writer bad (csvw_close fails with ERR_INPUT, naming it and the columns there are). */
static void pick_columns(csvw *w)
{
	char *list = xstrdup(w->select), *save = NULL;
	w->pick = xmalloc((size_t)(w->ncell + 1) * sizeof *w->pick);
	for (char *t = strtok_r(list, ",", &save); t && !w->bad; t = strtok_r(NULL, ",", &save)) {
		int found = -1;
		for (int i = 0; i < w->ncell && found < 0; i++) {
			size_t n;
			const char *c = cell(w, i, &n);
			if (n == strlen(t) && strncmp(c, t, n) == 0)
				found = i;
		}
		if (found < 0 || w->npick == w->ncell) {
			strbuf all;
			strbuf_init(&all);
			for (int i = 0; i < w->ncell; i++) {
				size_t n;
				const char *c = cell(w, i, &n);
				strbuf_addf(&all, "%s%.*s", i ? "," : "", (int)n, c);
			}
			err_set("--columns: %s '%s' (the columns are %s)", found < 0 ? "no column" : "too many columns at",
				t, all.s);
			strbuf_free(&all);
			w->bad = ERR_INPUT;
		} else
			w->pick[w->npick++] = found;
	}
	free(list);
}

/* The row in memory ended: its chosen cells written (the header's choice made first). */
static void end_selected_row(csvw *w)
{
	fflush(out(w));
	if (!w->pick)
		pick_columns(w);
	for (int k = 0; !w->bad && k < w->npick; k++) {
		size_t n;
		const char *c = w->pick[k] < w->ncell ? cell(w, w->pick[k], &n) : (n = 0, "");
		if (k)
			fputc(',', w->f);
		fwrite(c, 1, n, w->f);
	}
	if (!w->bad)
		fputs("\r\n", w->f);
	fclose(w->row);
	free(w->rowbuf);
	w->row = NULL;
	w->rowbuf = NULL;
	w->rowlen_B = 0;
	w->ncell = 0;
	w->col = 0;
}

/* What csvw_select kept of a writer, freed. */
static void select_free(csvw *w)
{
	if (w->row)
		fclose(w->row);
	free(w->rowbuf);
	free(w->cell_at);
	free(w->pick);
	free(w->select);
	w->row = NULL, w->rowbuf = NULL, w->cell_at = NULL, w->pick = NULL, w->select = NULL;
}

/* RFC 4180: quote a cell holding a comma, quote, CR or LF (or edge spaces), doubling quotes.
 * A text cell that a spreadsheet would run as a formula gets a leading apostrophe. */
void csvw_text(csvw *w, const char *s)
{
	sep(w);
	if (!s)
		return;
	int formula = s[0] && strchr("=+-@\t\r", s[0]) != NULL;
	size_t n = strlen(s);
	int quote = formula && (s[0] == '\t' || s[0] == '\r');
	quote |= strpbrk(s, ",\"\r\n") != NULL || (n > 0 && (s[0] == ' ' || s[n - 1] == ' '));
	FILE *f = out(w);
	if (quote)
		fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (const char *c = s; *c; c++) {
		if (*c == '"')
			fputc('"', f);
		fputc(*c, f);
	}
	if (quote)
		fputc('"', f);
}

void csvw_num(csvw *w, double v, int digits)
{
	sep(w);
	if (isfinite(v))
		fprintf(out(w), "%.*g", digits, v);
}

void csvw_int(csvw *w, long v)
{
	sep(w);
	fprintf(out(w), "%ld", v);
}

void csvw_end_row(csvw *w)
{
	if (w->select) {
		end_selected_row(w);
		return;
	}
	fputs("\r\n", w->f);
	w->col = 0;
}

int csvw_close(csvw *w)
{
	if (!w)
		return 0;
	int rc = 0, asked_wrong = w->bad;
	select_free(w);
	if (asked_wrong && !w->path) { /* nothing was written: the header names what was asked wrong */
		if (w->special)
			fclose(w->f);
		free(w);
		return asked_wrong;
	}
	if (asked_wrong) {
		csvw_abort(w);
		return asked_wrong;
	}
	if (!w->path) {
		if (fflush(w->f) != 0 || ferror(w->f)) {
			err_set("cannot write CSV output: %s", strerror(errno));
			rc = ERR_ENV;
		}
		if (w->special)
			fclose(w->f);
		free(w);
		return rc;
	}
	int bad = fflush(w->f) != 0 || ferror(w->f) || fsync(fileno(w->f)) != 0;
	bad |= fclose(w->f) != 0;
	intr_phase("rename");
	if (bad) {
		err_set("%s: write failed: %s", w->tmp, strerror(errno));
		unlink(w->tmp);
		rc = ERR_ENV;
	} else if (intr_pending()) { /* the last moment the old file can still be kept */
		unlink(w->tmp);
		rc = intr_err(w->path);
	} else if (rename(w->tmp, w->path) != 0) {
		err_set("%s: cannot rename into place: %s", w->path, strerror(errno));
		unlink(w->tmp);
		rc = ERR_ENV;
	}
	free(w->path);
	free(w->tmp);
	free(w);
	return rc;
}

void csvw_abort(csvw *w)
{
	if (!w)
		return;
	select_free(w);
	if (w->special)
		fclose(w->f);
	if (w->path) {
		fclose(w->f);
		unlink(w->tmp);
		free(w->path);
		free(w->tmp);
	}
	free(w);
}

/* ---- streaming reader ---- */

/* Hands the rows read so far to each, then frees them (the row arrays are kept for the next batch). */
static int stream_flush(csv_table *t, int (*each)(const csv_table *t, void *ctx), void *ctx)
{
	int rc = each(t, ctx);
	for (int r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++)
			free(t->cells[r][c]);
		free(t->cells[r]);
	}
	t->nrows = 0;
	return rc;
}

/* The file's lines through feed_line, a batch of rows to each whenever batch_rows are read. */
static int stream_lines(FILE *f, struct csv_parser *p, csv_build *b, int batch_rows,
			int (*each)(const csv_table *t, void *ctx), void *ctx, progress *pg)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long read_B = 0;
	int row_open = 0, rc = 0;
	b->chunk_line = 0;
	while (rc == 0 && (n = getline(&line, &cap, f)) > 0) {
		b->chunk_line++;
		read_B += n;
		rc = feed_line(p, b, line, (size_t)n, &row_open);
		if (rc == 0 && b->t->nrows >= batch_rows)
			rc = stream_flush(b->t, each, ctx);
		if (rc == 0 && (b->chunk_line & 8191) == 0) {
			if (pg)
				progress_update(pg, read_B);
			if (intr_pending())
				rc = ERR_INTR;
		}
	}
	free(line);
	if (rc == 0 && ferror(f))
		rc = err_path(b->t->name, errno, "a CSV file to read");
	if (rc == 0 && csv_fini(p, on_field, on_row_end, b) != 0)
		rc = err_set("%s:%d: malformed CSV at end of file (%s)", b->t->name, b->chunk_line,
			     csv_strerror(csv_error(p)));
	if (rc == 0 && b->failed)
		rc = ERR_INPUT;
	if (rc == 0 && !b->t->header)
		rc = err_set("%s:1: empty file, expected a header row", b->t->name);
	if (rc == 0)
		rc = stream_flush(b->t, each, ctx); /* the last rows, perhaps none: each sees the header */
	return rc;
}

int csv_table_stream(const char *path, int batch_rows, int (*each)(const csv_table *t, void *ctx), void *ctx,
		     const char *progress_label)
{
	FILE *f;
	int rc = file_open_read(path, &f);
	if (rc)
		return rc;
	csv_table t = {.name = xstrdup(path)};
	struct csv_parser p;
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
		fclose(f);
		csv_table_free(&t);
		return err_set("%s: cannot initialise libcsv", path);
	}
	progress pg;
	struct stat st;
	if (progress_label)
		progress_init(&pg, progress_label, fstat(fileno(f), &st) == 0 ? (long)st.st_size : 1);
	csv_build b = {.t = &t};
	rc = stream_lines(f, &p, &b, batch_rows > 0 ? batch_rows : 1, each, ctx, progress_label ? &pg : NULL);
	if (progress_label) {
		if (rc == 0)
			progress_finish(&pg);
		else
			progress_break(&pg);
	}
	csv_free(&p);
	drop_row(&b);
	free(b.row);
	fclose(f);
	if (rc != 0) {
		char *keep = xstrdup(err_msg());
		csv_table_free(&t);
		err_set("%s", keep);
		free(keep);
	} else {
		csv_table_free(&t);
	}
	return rc;
}
