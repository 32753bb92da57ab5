/* common: what every scaleplan module shares.
 *
 * - error reporting: an action returns 0 or a negative code and leaves its reason in a per-thread
 *   buffer (err_set / err_msg), so callers add context without globals passed around;
 * - checked allocation (xmalloc never returns NULL: out of memory ends the program with a message);
 * - a CSV reader on libcsv that keeps the file line of every row, for messages of the form
 *   "file:line:column: what was expected";
 * - an RFC 4180 CSV writer that writes to PATH.tmp and renames on close, so no half-written file
 *   ever looks complete, and that neutralises spreadsheet formula injection in text cells;
 * - a progress bar on stderr, redrawn with \r only when stderr is a terminal;
 * - SIGINT/SIGTERM turned into a flag that long work polls, to stop cleanly (no temp file left);
 * - one JSON writer (escaping and number format) for every JSON text the tools print.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef SCALEPLAN_COMMON_H
#define SCALEPLAN_COMMON_H

#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Error codes returned by actions (negative). */
enum {
	ERR_INPUT = -1, /* bad user input: exit code 1 */
	ERR_ENV = -2,   /* environment (library, device, file system): exit code 2 */
	ERR_INTR = -3,  /* stopped by SIGINT/SIGTERM (intr_pending): exit code intr_exit_code() */
};

/* Exit codes of every scaleplan command (README "Exit status", docs/design.md): 1 for what the user named
 * and got wrong (a missing file, a directory where a file belongs, a bad cell or option), 2 for what the
 * machine lacks (gnuplot, a browser, disk space, permission), 128 + signal after SIGINT/SIGTERM. */
enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_ENV = 2 };

/* The exit code of an action's result: 0 -> EXIT_OK, ERR_ENV -> EXIT_ENV, ERR_INTR -> intr_exit_code(),
 * any other error -> EXIT_INPUT. */
int exit_code_of(int err);

/* Sets the current thread's error message (printf format). Returns ERR_INPUT so that
 * `return err_set(...)` reads naturally in input checks. */
int err_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prefixes the current message with more context: err_prefix("hwdb/gpus.csv") turns
 * "line 3: ..." into "hwdb/gpus.csv: line 3: ...". Returns ERR_INPUT. */
int err_prefix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The current thread's last error message ("" when none). */
const char *err_msg(void);
void err_clear(void);

/* Allocation that never returns NULL: on failure prints to stderr and exits with EXIT_ENV. */
void *xmalloc(size_t size_B);
void *xcalloc(size_t count, size_t size_B);
void *xrealloc(void *ptr, size_t size_B);
char *xstrdup(const char *s);
/* printf into a fresh heap string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- CSV reader (libcsv) ---- */

/* A whole CSV table in memory: header row plus data rows; every cell a NUL-terminated string. */
typedef struct csv_table {
	char *name;      /* file name used in messages */
	int ncols;       /* number of header columns */
	char **header;   /* [ncols] */
	int nrows;       /* data rows (header excluded, blank lines skipped) */
	char ***cells;   /* [nrows][ncols] */
	int *line;       /* [nrows] 1-based line in the file where the row starts */
} csv_table;

/* Reads a CSV file. Rows must have exactly ncols cells; lines starting with '#' are comments.
 * Fails (ERR_INPUT, message "path:line: ...") on unreadable file, bad quoting, ragged rows,
 * empty or duplicate header names. On failure *t is left empty (csv_table_free is safe). */
int csv_table_load(csv_table *t, const char *path);
/* Same as csv_table_load but parses a buffer; `name` is used in messages. */
int csv_table_parse(csv_table *t, const char *name, const char *buf, size_t len_B);
void csv_table_free(csv_table *t);
/* Reads a CSV file as csv_table_load does, but in batches: each(t, ctx) gets the header and up to batch_rows
 * rows (t->line set) whenever that many are read, and once more at the end (perhaps with none), and the
 * rows are freed after each call, so memory is bounded by the batch, not the file. A progress bar by bytes
 * read goes to stderr under progress_label (NULL: none). Returns 0, the error csv_table_load would, the
 * first non-zero value each returns, or ERR_INTR when SIGINT/SIGTERM arrived. */
int csv_table_stream(const char *path, int batch_rows, int (*each)(const csv_table *t, void *ctx), void *ctx,
		     const char *progress_label);
/* Column index of a header name (exact match), or -1. */
int csv_table_col(const csv_table *t, const char *name);

/* Cell parsers for loaders: each sets err "name:line:col(header): expected ..." and returns
 * ERR_INPUT on failure. A number must be finite and consume the whole cell. */
int csv_cell_double(const csv_table *t, int row, int col, double *out);
int csv_cell_int(const csv_table *t, int row, int col, long *out);

/* ---- CSV writer (RFC 4180) ---- */

typedef struct csvw csvw;

/* Opens PATH for writing through PATH.tmp; csvw_close renames it into place. "-" means stdout. */
csvw *csvw_open(const char *path);
/* The same, returning 0 or err_path's code (ERR_INPUT: no such directory; ERR_ENV: permission, disk) with
 * err set; *w is NULL on failure. */
int csvw_create(const char *path, csvw **w);
/* Writes to an already open stream (not closed by csvw_close). */
csvw *csvw_stream(FILE *f);
/* Cells of the current row. Text cells are quoted when needed; a text cell starting with
 * = + - @ TAB or CR gets a leading apostrophe (formula injection, OWASP CSV Injection). */
void csvw_text(csvw *w, const char *s);
/* A number cell, printed with %.*g at `digits` significant digits; NaN/inf become an empty cell. */
void csvw_num(csvw *w, double v, int digits);
void csvw_int(csvw *w, long v);
void csvw_end_row(csvw *w);
/* Writes only the columns named in NAMES ("tta_s,system": the header's names, in that order; NULL or "":
 * all), so that every CSV a command writes takes one --columns. A name the header lacks makes csvw_close
 * return ERR_INPUT ("--columns: no column 'x' (the columns are ...)") with nothing written. */
void csvw_select(csvw *w, const char *names);
/* After the header row: 0, or ERR_INPUT with err set when csvw_select named a column the header lacks (so
 * that a command stops before its work, not at csvw_close). */
int csvw_status(const csvw *w);
/* Flushes, fsyncs and renames PATH.tmp to PATH. Returns 0, or ERR_ENV with err set, or ERR_INTR
 * (PATH.tmp removed, PATH as it was) when SIGINT/SIGTERM arrived before the rename. */
int csvw_close(csvw *w);
/* Removes PATH.tmp and frees; for error paths. csvw_abort(NULL) is fine. */
void csvw_abort(csvw *w);

/* ---- progress bar ---- */

typedef struct progress {
	const char *label;
	long total;
	long done;
	bool tty;          /* stderr is a terminal: redraw with \r */
	double start_s;    /* monotonic clock at init */
	double last_draw_s;
	int last_pct;
} progress;

void progress_init(progress *p, const char *label, long total);
/* Updates the count; redraws at most 10 times a second on a terminal; otherwise prints a line once
 * the work has run a second, then at every 10% and at least every 30 s. Nothing during the first
 * second (short work prints no bar at all). */
void progress_update(progress *p, long done);
void progress_finish(progress *p);
/* Ends a terminal bar's line so that a message can follow (work stopped before the end); nothing
 * when stderr is not a terminal or nothing was drawn. */
void progress_break(progress *p);

/* ---- interrupts (common/intr.c) ---- */

/* Installs SIGINT and SIGTERM handlers that only record the signal. Long work polls intr_pending(),
 * removes its temporary files and returns intr_exit_code(): 130 after SIGINT, 143 after SIGTERM
 * (128 + the signal's number, as a shell reports a process the signal killed). A second signal ends
 * the program at once (default action). 0, or ERR_ENV when sigaction fails. */
int intr_install(void);
/* The command commits from here: SIGINT and SIGTERM are blocked for the rest of the process, so a signal
 * either came before (intr_pending() says so: keep the old output, exit 128 + signal) or is dropped at the
 * exit of a command that finished (exit 0, the new output in place), never both. Call it just before the
 * last check and rename of a command's output. 0, or ERR_ENV when sigprocmask fails. */
int intr_hold(void);
/* True once SIGINT or SIGTERM has arrived after intr_install. */
bool intr_pending(void);
/* 128 + the signal's number; 0 while none arrived. */
int intr_exit_code(void);
/* "SIGINT", "SIGTERM" or "none", for messages. */
const char *intr_name(void);
/* Sets err "PATH: interrupted (SIGINT); not written" and returns ERR_INTR. */
int intr_err(const char *path);

/* Test hook (tests/interrupt.sh): when the environment variable SCALEPLAN_TEST_SIGNAL is "PHASE:INT" or
 * "PHASE:TERM" and PHASE is `phase`, the process sends itself that signal here, so that a test can
 * stop each long phase (compute, sort, write, rename) of a command at a known point. Does nothing
 * otherwise. Call it at the start of each phase, after intr_install. */
void intr_phase(const char *phase);

/* Sorts like glibc's qsort_r (cmp gets arg), but stably (merge sort) on every C library: equal elements keep
 * their order, so that compare ranks alike natively and in the WebAssembly build. Does not stop. */
void sort_stable(void *base, size_t n, size_t size_B, int (*cmp)(const void *, const void *, void *), void *arg);
/* Sorts like qsort, but stably (merge sort) and stopping when SIGINT/SIGTERM arrives: 0, or ERR_INTR
 * (the elements are then all still there, in no useful order). */
int sort_intr(void *base, size_t n, size_t size_B, int (*cmp)(const void *, const void *));
/* The same with a progress bar: pg (progress_init'ed; its total is set here to n: the merge work counted in rows) is
 * updated as the passes go; NULL = none. The caller finishes or breaks it. */
int sort_intr_progress(void *base, size_t n, size_t size_B, int (*cmp)(const void *, const void *), progress *pg);

/* Monotonic clock in seconds. */
double time_now_s(void);

/* The exit-code rule for a path that cannot be opened, from its errno: sets err "PATH: reason (expected
 * EXPECTED)" and returns ERR_INPUT for what the user named wrong (no such file, a directory where a file
 * belongs or the reverse, a name too long) or ERR_ENV for what the machine refuses (permission, disk
 * full, I/O error). */
int err_path(const char *path, int errnum, const char *expected);
/* Opens a file for reading: 0, or err_path's code (a directory is refused as EISDIR: fopen would take it). */
int file_open_read(const char *path, FILE **f);
/* Opens a directory: 0, or err_path's code ("not a directory" for a file). */
int dir_open(const char *path, DIR **d);
/* true when path is a directory that holds nothing (a new output folder may take its place by rename). */
bool dir_is_empty(const char *path);
/* Reads a whole file into a fresh NUL-terminated buffer (*len_B excludes the NUL). Fails with err_path's
 * code (ERR_INPUT: no such file, a directory; ERR_ENV: permission) or ERR_ENV and "PATH: read error";
 * *buf is then NULL. */
int file_read_all(const char *path, char **buf, size_t *len_B);
/* Writes a whole buffer to PATH atomically (PATH.tmp, fsync, rename). 0, ERR_ENV, or ERR_INTR (PATH.tmp
 * removed, PATH as it was) when SIGINT/SIGTERM arrived before the rename. */
int file_write_atomic(const char *path, const void *buf, size_t len_B);

/* The checks of an output path a command makes before any work, so that a bad --out costs nothing and leaves
 * nothing touched (README "Exit status"). out_check_file: NULL and "-" (stdout) pass; ERR_INPUT with err
 * "PATH: ... (expected ...)" for an empty name, a directory, a folder that is not there or a file where a
 * folder belongs, and a file whose mode bits give its user no write permission (the tmp + rename writers
 * would otherwise replace a file marked read-only); ERR_ENV where the folder refuses writes (permission).
 * out_check_dir, for an output folder: the same for its parent, and a file where the folder belongs. */
int out_check_file(const char *path);
int out_check_dir(const char *path);

/* JSON (RFC 8259), the one writer of every JSON text the tools print (predict/sim --format json, sim's trace,
 * the engine's :::MLLOG lines). json_put_str: s quoted, with quote, backslash and control characters escaped;
 * numbers: %.9g, or null where v is NAN or infinite. json_member_*: one object member, "name": value,
 * then ", " where more members follow; compact drops the spaces (":" and ","). */
void json_put_str(FILE *f, const char *s);
void json_member_str(FILE *f, const char *name, const char *v, bool more, bool compact);
void json_member_num(FILE *f, const char *name, double v, bool more, bool compact);

/* One output column (cols.c): one table of them drives a CSV header, the CSV cells and the JSON members of
 * the same values, in one order. kind: how a value is written - COL_NUM %.*g at digits in the CSV, %.9g in
 * JSON; COL_INT a whole number; COL_COUNT a whole count at digits in the CSV, exact in JSON; COL_BOOL 1/0 in
 * the CSV, true/false in JSON; COL_TEXT through text(). only: COL_CSV or COL_JSON for a column one format
 * has alone (0: both). row: whatever the getters take. */
typedef enum col_kind { COL_NUM, COL_INT, COL_COUNT, COL_BOOL, COL_TEXT } col_kind;
enum { COL_CSV = 1, COL_JSON = 2 };
typedef struct out_col {
	const char *name;
	const char *unit;                      /* its unit or meaning ("s", "img/s", "USD", "1 = yes") */
	col_kind kind;
	int digits;                            /* COL_NUM, COL_COUNT: significant digits in the CSV */
	double (*num)(const void *row);        /* every kind but COL_TEXT */
	const char *(*text)(const void *row);  /* COL_TEXT */
	unsigned only;
} out_col;
void col_csv_header(csvw *w, const out_col *c, int n);
void col_csv_cells(csvw *w, const out_col *c, int n, const void *row);
/* The members of row's columns; more: a member follows the last. */
void col_json_members(FILE *f, const out_col *c, int n, const void *row, bool more, bool compact);

/* Edit distance between two strings, case-insensitive; used to suggest the nearest ids. */
int str_edit_distance(const char *a, const char *b);

/* After getopt_long matched the long option name: true when it was typed shorter (getopt takes any unambiguous
 * prefix, so `--gpus 8` could run as --gpus-per-node 8), with *typed the name as typed and *len its length (up
 * to any '='). Reads getopt's optind and optarg, so call it before the next getopt_long. */
bool opt_shortened(int argc, char **argv, const char *name, const char **typed, int *len);


/* ---- String builder (strbuf.c): text that grows as it is written, never cut short ---- */
typedef struct strbuf {
	char *s;        /* NUL-terminated text; "" after strbuf_init */
	size_t len_B;   /* bytes of text, without the NUL */
	size_t cap_B;   /* bytes allocated */
} strbuf;
void strbuf_init(strbuf *b);
/* Appends printf text (grown as needed: xrealloc). */
void strbuf_addf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(strbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Appends n bytes as they are (NUL bytes included: len_B counts them; s stays NUL-terminated after them). */
void strbuf_addn(strbuf *b, const void *data, size_t n);
/* Appends text with each line longer than width characters broken at a blank, its continuation indented under
 * its value where it is "  label   value" (predict's lines), else as its start plus four (deeper than any line of
 * its own: a reader, or tests/lib/cli.sh's unwrap, can join it back). A word longer than a line stays whole. */
void strbuf_add_wrapped(strbuf *b, const char *text, size_t width);
void strbuf_free(strbuf *b); /* NULL or freed twice is fine */

#endif
