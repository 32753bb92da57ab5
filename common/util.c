/* Clock, atomic file writes, progress bar, edit distance, shortened option names.  SPDX-License-Identifier: GPL-3.0-or-later */
#include "common/common.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static bool mode_lets_write(const struct stat *st);

double time_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Writes PATH.tmp, fsyncs it and renames it over PATH, so a reader sees the old file or the new
 * one, never half of one.  Fails with err_path's code or ERR_ENV and the OS reason, or ERR_INTR. */
int file_write_atomic(const char *path, const void *buf, size_t len_B)
{
	char *tmp = xasprintf("%s.tmp", path);
	int rc = ERR_ENV, fd;
	struct stat st;
	intr_phase("write");
	if (stat(path, &st) == 0 && (S_ISDIR(st.st_mode) || !mode_lets_write(&st))) {
		rc = out_check_file(path);
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		rc = err_path(tmp, errno, "a file in an existing directory");
		goto out;
	}
	const char *p = buf;
	size_t left = len_B;
	while (left > 0) {
		ssize_t n = write(fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err_set("%s: write failed: %s", tmp, strerror(errno));
			goto close_out;
		}
		p += n;
		left -= (size_t)n;
	}
	if (fsync(fd) != 0) {
		err_set("%s: fsync failed: %s", tmp, strerror(errno));
		goto close_out;
	}
	if (close(fd) != 0) {
		fd = -1;
		err_set("%s: close failed: %s", tmp, strerror(errno));
		goto unlink_out;
	}
	fd = -1;
	intr_phase("rename");
	if (intr_pending()) { /* the last moment the old file can still be kept */
		rc = intr_err(path);
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) != 0) {
		err_set("%s: cannot rename into place: %s", path, strerror(errno));
		goto unlink_out;
	}
	rc = 0;
	goto out;
close_out:
	close(fd);
unlink_out:
	unlink(tmp);
out:
	free(tmp);
	return rc;
}

/* The exit-code rule (README "Exit status"): a path the user named wrong - it does not exist, it is a
 * directory where a file belongs or a file where a directory belongs, its name is too long or loops -
 * is bad input; what the machine refuses - permission, a full disk, an I/O error, no file handles
 * left - is the environment. */
int err_path(const char *path, int errnum, const char *expected)
{
	switch (errnum) {
	case ENOENT:
		err_set("%s: no such file or directory (expected %s)", path, expected);
		return ERR_INPUT;
	case EISDIR:
		err_set("%s: is a directory (expected %s)", path, expected);
		return ERR_INPUT;
	case ENOTDIR:
		err_set("%s: not a directory (expected %s)", path, expected);
		return ERR_INPUT;
	case ENAMETOOLONG:
	case ELOOP:
		err_set("%s: %s (expected %s)", path, strerror(errnum), expected);
		return ERR_INPUT;
	default:
		err_set("%s: %s", path, strerror(errnum));
		return ERR_ENV;
	}
}

/* The mode bits that apply to this user: owner, group or other (root's access() would always say yes, yet a
 * file marked read-only is one its owner asked to keep). */
static bool mode_lets_write(const struct stat *st)
{
	if (st->st_uid == geteuid())
		return st->st_mode & S_IWUSR;
	if (st->st_gid == getegid())
		return st->st_mode & S_IWGRP;
	return st->st_mode & S_IWOTH;
}

/* The folder that will hold path: it exists, is a folder, and may be written. */
static int out_check_parent(const char *path, const char *expected)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? (slash == path ? xstrdup("/") : xasprintf("%.*s", (int)(slash - path), path)) : xstrdup(".");
	struct stat st;
	int rc = 0;
	if (stat(dir, &st) != 0)
		rc = err_path(path, errno, expected);
	else if (!S_ISDIR(st.st_mode))
		rc = err_path(path, ENOTDIR, expected);
	else if (access(dir, W_OK | X_OK) != 0)
		rc = err_path(dir, errno, "a folder to write in");
	free(dir);
	return rc;
}

int out_check_file(const char *path)
{
	struct stat st;
	if (!path || strcmp(path, "-") == 0)
		return 0;
	if (!*path)
		return err_set("'' (empty): expected a file name");
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return err_path(path, EISDIR, "a file to write");
		if (!mode_lets_write(&st))
			return err_set("%s: read-only (mode %03o): not replaced (expected a file you may write: "
				       "chmod u+w it, or name another)", path, (unsigned)(st.st_mode & 0777));
		if (!S_ISREG(st.st_mode))
			return 0; /* a device or pipe (/dev/null) is written in place */
	}
	return out_check_parent(path, "a file in an existing folder");
}

int out_check_dir(const char *path)
{
	struct stat st;
	if (!path)
		return 0;
	if (!*path)
		return err_set("'' (empty): expected a folder name");
	if (stat(path, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : err_path(path, ENOTDIR, "a folder");
	return out_check_parent(path, "a folder in an existing folder");
}

int file_open_read(const char *path, FILE **f)
{
	struct stat st;
	*f = NULL;
	/* fopen opens a directory for reading on Linux and only the first read fails ("read error") */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return err_path(path, EISDIR, "a file");
	*f = fopen(path, "rb");
	return *f ? 0 : err_path(path, errno, "a file");
}

int dir_open(const char *path, DIR **d)
{
	*d = opendir(path);
	return *d ? 0 : err_path(path, errno, "a directory");
}

bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = d != NULL;
	while (empty && (e = readdir(d)) != NULL)
		empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
	if (d)
		closedir(d);
	return empty;
}

int file_read_all(const char *path, char **buf, size_t *len_B)
{
	*buf = NULL;
	*len_B = 0;
	FILE *f;
	int rc = file_open_read(path, &f);
	if (rc)
		return rc;
	size_t cap = 1 << 16, n = 0, got;
	char *data = xmalloc(cap);
	while ((got = fread(data + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap)
			data = xrealloc(data, cap *= 2);
	}
	int bad = ferror(f);
	int errnum = errno;
	fclose(f);
	if (bad) {
		free(data);
		err_set("%s: read error: %s", path, strerror(errnum));
		return ERR_ENV;
	}
	data[n] = '\0';
	*buf = data;
	*len_B = n;
	return 0;
}

/* ---- progress bar ---- */


void progress_init(progress *p, const char *label, long total)
{
	memset(p, 0, sizeof *p);
	p->label = label;
	p->total = total > 0 ? total : 1;
	p->tty = isatty(STDERR_FILENO);
	p->start_s = time_now_s();
	p->last_draw_s = -1.0;
	p->last_pct = -1;
}

static void progress_draw(progress *p, double now_s)
{
	int pct = (int)(100.0 * (double)p->done / (double)p->total);
	double elapsed_s = now_s - p->start_s;
	double eta_s = p->done > 0 ? elapsed_s * (double)(p->total - p->done) / (double)p->done : 0.0;
	if (p->tty) {
		int width = 30, fill = pct * width / 100;
		fprintf(stderr, "\r%s [%.*s%*s] %3d%% %ld/%ld  %.1fs elapsed, %.1fs left ", p->label,
			fill, "##############################", width - fill, "", pct, p->done, p->total,
			elapsed_s, eta_s);
	} else {
		fprintf(stderr, "%s: %d%% (%ld/%ld) %.1fs\n", p->label, pct, p->done, p->total, elapsed_s);
	}
	p->last_pct = pct;
	p->last_draw_s = now_s;
}

/* Work that ends within a second draws nothing: a bar is for long work, not noise in a log. */
#define PROGRESS_QUIET_S 1.0
/* Not a terminal (a log): a line when the work has run a second, at every 10%, and at least this
 * often, so that a log of long work shows it is alive. */
#define PROGRESS_LINE_S 30.0

void progress_update(progress *p, long done)
{
	p->done = done > p->total ? p->total : done;
	int pct = (int)(100.0 * (double)p->done / (double)p->total);
	double now_s = time_now_s();
	if (now_s - p->start_s < PROGRESS_QUIET_S)
		return;
	if (p->tty) {
		if (now_s - p->last_draw_s >= 0.1)
			progress_draw(p, now_s);
	} else if (p->last_draw_s < 0 || pct / 10 != p->last_pct / 10 || now_s - p->last_draw_s >= PROGRESS_LINE_S) {
		progress_draw(p, now_s);
	}
}

void progress_finish(progress *p)
{
	p->done = p->total;
	if (p->last_draw_s < 0)
		return; /* never drawn: the work was short */
	progress_draw(p, time_now_s());
	if (p->tty)
		fputc('\n', stderr);
}

void progress_break(progress *p)
{
	if (p->tty && p->last_draw_s >= 0)
		fputc('\n', stderr);
}

/* Levenshtein distance, case-insensitive, two rows of the DP table. */
int str_edit_distance(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	int *prev = xmalloc((nb + 1) * sizeof *prev);
	int *cur = xmalloc((nb + 1) * sizeof *cur);
	for (size_t j = 0; j <= nb; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= na; i++) {
		cur[0] = (int)i;
		for (size_t j = 1; j <= nb; j++) {
			int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
			int best = prev[j - 1] + !same;
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			cur[j] = best;
		}
		int *t = prev;
		prev = cur;
		cur = t;
	}
	int d = prev[nb];
	free(prev);
	free(cur);
	return d;
}

/* The option's own element is argv[optind - 1], or the one before it when its value was the next element
 * (glibc has moved it there before returning). */
bool opt_shortened(int argc, char **argv, const char *name, const char **typed, int *len)
{
	int at = optind - 1;
	if (optarg && at >= 1 && optarg == argv[at])
		at--;
	if (at < 1 || at >= argc || strncmp(argv[at], "--", 2) != 0)
		return false;
	*typed = argv[at] + 2;
	*len = (int)strcspn(*typed, "=");
	return !((size_t)*len == strlen(name) && strncmp(*typed, name, (size_t)*len) == 0);
}
