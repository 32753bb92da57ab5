/* scaleplan-databench: how fast the CPU cores feed the GPUs.
 *
 *   decode   images/s of the whole loader (read + libjpeg-turbo decode with DCT scaling + random-resized-
 *            crop + flip + normalise into NHWC bf16) for 1, 2, 4, ... threads, and per thread;
 *   consumer the same loader drained by a simulated GPU that needs `--gpu-img-s` images/s: the share of
 *            time the GPU would wait for data;
 *   read     storage read rate of the split's files, first with each file evicted from the page cache
 *            (posix_fadvise DONTNEED: the first epoch) and then cached (later epochs).
 * Writes one CSV row per measurement with the columns calibrate/ reads:
 *   source,machine,cpu,pipeline,threads,img_s,img_s_per_thread,image_bytes_mean,note
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "exec/data/ex_data.h"

typedef struct result {
	char pipeline[240];
	int threads;
	double img_s, bytes_mean;
	char note[200];
} result;

typedef struct bench {
	const char *dir, *split, *machine, *csv;
	char cpu[160];
	int threads[64], nthreads;
	long images, limit;
	int batch, out_hw;
	ex_data_dtype dtype;
	double gpu_img_s;
	bool read_test, eval, full_decode, fast_dct;
	result res[256];
	int nres;
} bench;

static void cpu_name(char *out, size_t len)
{
	snprintf(out, len, "unknown CPU");
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	while (f && fgets(line, sizeof line, f)) {
		if (!strncmp(line, "model name", 10)) {
			char *p = strchr(line, ':');
			if (p) {
				p += 2;
				p[strcspn(p, "\n")] = 0;
				snprintf(out, len, "%s (%ld cores online)", p, sysconf(_SC_NPROCESSORS_ONLN));
			}
			break;
		}
	}
	if (f)
		fclose(f);
}

static const char *dtype_name(ex_data_dtype t) { return t == EX_DATA_F32 ? "fp32" : t == EX_DATA_BF16 ? "bf16" : "fp16"; }

static void add(bench *b, const char *pipeline, int threads, double img_s, double bytes, const char *note)
{
	if (b->nres == 256)
		return;
	result *r = &b->res[b->nres++];
	snprintf(r->pipeline, sizeof r->pipeline, "%s", pipeline);
	r->threads = threads;
	r->img_s = img_s;
	r->bytes_mean = bytes;
	snprintf(r->note, sizeof r->note, "%s", note);
}

/* Runs the loader with `threads` workers; consumer_img_s > 0 simulates a GPU step of batch/rate. */
static int run_decode(bench *b, int threads, double consumer_img_s)
{
	ex_data_config c;
	ex_data_config_init(&c);
	c.dir = b->dir;
	c.split = b->split;
	c.train = !b->eval;
	c.full_decode = b->full_decode;
	c.fast_dct = b->fast_dct;
	c.batch = b->batch;
	c.out_hw = b->out_hw;
	c.dtype = b->dtype;
	c.threads = threads;
	c.depth = 4;
	c.limit = b->limit;
	c.quiet = true;
	ex_data_loader *l;
	int rc = ex_data_loader_new(&l, &c);
	if (rc < 0)
		return rc;
	size_t bytes = ex_data_loader_batch_bytes(l);
	void *buf[4];
	int *lab[4];
	for (int k = 0; k < 4; k++) {
		buf[k] = xmalloc(bytes);
		lab[k] = xmalloc(sizeof(int) * c.batch);
		ex_data_loader_submit(l, buf[k], lab[k]);
	}
	long want = b->images / c.batch + 1, got = 0;
	double t0 = 0, wait0 = 0, read0 = 0, img0 = 0;
	ex_data_stats st;
	for (long k = 0; k <= want; k++) { /* batch 0 is warm-up: threads start, caches fill */
		void *d;
		int *lb;
		int n = ex_data_loader_wait(l, &d, &lb);
		if (n < 0) {
			rc = n;
			break;
		}
		if (k == 0) {
			ex_data_loader_stats(l, &st);
			t0 = time_now_s();
			wait0 = st.wait_s;
			read0 = st.read_B;
			img0 = (double)st.images;
		} else {
			got += n;
		}
		ex_data_loader_submit(l, d, lb);
		if (consumer_img_s > 0) { /* the simulated GPU step */
			double step = c.batch / consumer_img_s;
			struct timespec ts = {(time_t)step, (long)((step - (time_t)step) * 1e9)};
			nanosleep(&ts, NULL);
		}
	}
	double dt = time_now_s() - t0;
	ex_data_loader_stats(l, &st);
	if (rc >= 0) {
		double img_s = got / dt, mean_B = (st.read_B - read0) / fmax(1.0, st.images - img0);
		char pipe[200], note[200];
		snprintf(pipe, sizeof pipe, "scaleplan ex_data: read + libjpeg-turbo %s decode (DCT scaling%s) + %s(%d)%s + "
			 "normalise %s NHWC", c.full_decode ? "whole-image" : "crop-region", c.fast_dct ? ", fast IDCT" : "",
			 c.train ? "RandomResizedCrop" : "Resize(256)+CenterCrop", c.out_hw, c.train ? " + flip" : "",
			 dtype_name(c.dtype));
		if (consumer_img_s > 0) {
			snprintf(note, sizeof note, "consumer at %.0f img/s: waited %.1f%% of the time (%.2f ms/batch); "
				 "%ld images, batch %d", consumer_img_s, 100 * (st.wait_s - wait0) / dt,
				 1e3 * (st.wait_s - wait0) / fmax(1.0, (double)(want)), got, c.batch);
			char p2[224];
			snprintf(p2, sizeof p2, "%s; simulated GPU", pipe);
			add(b, p2, threads, img_s, mean_B, note);
		} else {
			snprintf(note, sizeof note, "%ld images, batch %d, %ld files in %s/%s; %ld bad", got, c.batch,
				 ex_data_loader_files(l), b->dir, b->split, st.bad);
			add(b, pipe, threads, img_s, mean_B, note);
		}
		fprintf(stderr, "databench: %d threads: %.0f img/s (%.0f per thread)%s\n", threads, img_s,
			img_s / threads, consumer_img_s > 0 ? " [with simulated GPU]" : "");
	}
	ex_data_loader_free(l);
	for (int k = 0; k < 4; k++) {
		free(buf[k]);
		free(lab[k]);
	}
	return rc < 0 ? rc : 0;
}

/* ---- storage read ---- */

typedef struct flist {
	char **v;
	long n, cap;
} flist;
static flist *g_walk; /* nftw has no user pointer: set only during the walk (single-threaded) */

static int walk_cb(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	const char *dot = strrchr(path, '.');
	if (type == FTW_F && dot && (!strcasecmp(dot, ".jpg") || !strcasecmp(dot, ".jpeg"))) {
		if (g_walk->n == g_walk->cap) {
			g_walk->cap = g_walk->cap ? 2 * g_walk->cap : 4096;
			g_walk->v = xrealloc(g_walk->v, sizeof(char *) * g_walk->cap);
		}
		g_walk->v[g_walk->n++] = xstrdup(path);
	}
	return 0;
}

typedef struct rjob {
	flist *f;
	long next;
	bool evict;
	double bytes;
	long errors;
	pthread_mutex_t mu;
} rjob;

static void *reader(void *varg)
{
	rjob *j = varg;
	char *buf = xmalloc(1 << 20);
	double bytes = 0;
	long errors = 0;
	for (;;) {
		pthread_mutex_lock(&j->mu);
		long i = j->next++;
		pthread_mutex_unlock(&j->mu);
		if (i >= j->f->n)
			break;
		int fd = open(j->f->v[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not block (loader.c) */
		if (fd < 0) {
			errors++;
			continue;
		}
		ssize_t r;
		while ((r = read(fd, buf, 1 << 20)) > 0)
			bytes += (double)r;
		close(fd);
	}
	pthread_mutex_lock(&j->mu);
	j->bytes += bytes;
	j->errors += errors;
	pthread_mutex_unlock(&j->mu);
	free(buf);
	return NULL;
}

static double read_pass(flist *f, int threads, bool evict, double *bytes)
{
	if (evict) /* drop each file's cached pages: the next read comes from storage */
		for (long i = 0; i < f->n; i++) {
			int fd = open(f->v[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
			if (fd >= 0) {
				fdatasync(fd);
				posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
				close(fd);
			}
		}
	rjob j;
	memset(&j, 0, sizeof j);
	j.f = f;
	pthread_mutex_init(&j.mu, NULL);
	pthread_t t[256];
	int started = 0;
	double t0 = time_now_s();
	for (int i = 0; i < threads && i < 256; i++)
		if (pthread_create(&t[i], NULL, reader, &j) == 0)
			started++;
	if (!started)
		reader(&j);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	double dt = time_now_s() - t0;
	pthread_mutex_destroy(&j.mu);
	*bytes = j.bytes;
	return dt;
}

static int run_read(bench *b, int threads)
{
	flist f = {0};
	char *root = xasprintf("%s/%s", b->dir, b->split);
	g_walk = &f;
	int rc = nftw(root, walk_cb, 32, FTW_PHYS);
	g_walk = NULL;
	if (rc != 0 || f.n == 0) {
		err_set("%s: no JPEG files to read", root);
		free(root);
		free(f.v);
		return ERR_INPUT;
	}
	if (b->limit > 0 && f.n > b->limit)
		f.n = b->limit; /* (the rest are freed below through the real count) */
	long all = f.n;
	for (int pass = 0; pass < 2; pass++) {
		double bytes = 0, dt = read_pass(&f, threads, pass == 0, &bytes);
		char note[200];
		snprintf(note, sizeof note, "%.1f MB/s; %ld files, %.0f MB in %s", bytes / dt / 1e6, f.n, bytes / 1e6,
			 root);
		add(b, pass == 0 ? "file read, first epoch (page cache dropped by posix_fadvise DONTNEED)"
				 : "file read, cached (second pass)",
		    threads, f.n / dt, bytes / f.n, note);
		fprintf(stderr, "databench: read %s: %.0f files/s, %.1f MB/s\n", pass ? "cached" : "cold", f.n / dt,
			bytes / dt / 1e6);
	}
	(void)all;
	free(root);
	for (long i = 0; i < f.cap && i < f.n; i++)
		free(f.v[i]);
	free(f.v);
	return 0;
}

static int write_csv(bench *b)
{
	/* csvw_open writes PATH.tmp and renames it over PATH: never do that to a device such as /dev/null */
	struct stat sb;
	FILE *dev = NULL;
	csvw *w;
	if (strcmp(b->csv, "-") != 0 && stat(b->csv, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		dev = fopen(b->csv, "w");
		if (!dev) {
			err_set("%s: cannot open: %s", b->csv, strerror(errno));
			return ERR_ENV;
		}
		w = csvw_stream(dev);
	} else {
		w = csvw_open(b->csv);
	}
	if (!w) {
		if (dev)
			fclose(dev);
		return ERR_ENV;
	}
	const char *hdr[] = {"source", "machine", "cpu", "pipeline", "threads", "img_s", "img_s_per_thread",
			     "image_bytes_mean", "note"};
	for (int i = 0; i < 9; i++)
		csvw_text(w, hdr[i]);
	csvw_end_row(w);
	for (int i = 0; i < b->nres; i++) {
		result *r = &b->res[i];
		csvw_text(w, "databench");
		csvw_text(w, b->machine);
		csvw_text(w, b->cpu);
		csvw_text(w, r->pipeline);
		csvw_int(w, r->threads);
		csvw_num(w, r->img_s, 6);
		csvw_num(w, r->img_s / r->threads, 6);
		csvw_num(w, r->bytes_mean, 6);
		csvw_text(w, r->note);
		csvw_end_row(w);
	}
	int rc = csvw_close(w);
	if (dev && fclose(dev) != 0 && rc == 0) {
		err_set("%s: write error: %s", b->csv, strerror(errno));
		rc = ERR_ENV;
	}
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: scaleplan-databench --data DIR [--split train] [--threads 1,2,4,...] [--images 3000]\n"
		   "         [--batch 64] [--dtype bf16|fp16|fp32] [--out-hw 224] [--limit N] [--gpu-img-s R]\n"
		   "         [--read] [--eval] [--full-decode] [--fast-dct] [--machine NAME] [--csv PATH]\n"
		   "Defaults: threads 1,2,4,... up to the cores online; machine = host name; CSV to stdout.\n"
		   "--gpu-img-s R adds a run at the most threads with a simulated GPU consuming R img/s;\n"
		   "--read adds storage read rates (first epoch with page cache dropped, then cached);\n"
		   "--eval measures the evaluation transform on --split val; --full-decode decodes whole images\n"
		   "instead of the crop's region; --fast-dct uses the fast integer IDCT.\n");
}

static int parse_threads(bench *b, const char *s)
{
	b->nthreads = 0;
	while (*s && b->nthreads < 64) {
		char *end;
		long v = strtol(s, &end, 10);
		if (end == s || v < 1 || v > 1024 || (*end && *end != ','))
			return err_set("--threads: '%s' is not a list of 1..1024", s);
		b->threads[b->nthreads++] = (int)v;
		s = *end ? end + 1 : end;
	}
	return b->nthreads ? 0 : err_set("--threads: empty list");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"data", required_argument, 0, 'd'},    {"split", required_argument, 0, 's'},
		{"threads", required_argument, 0, 't'}, {"images", required_argument, 0, 'n'},
		{"batch", required_argument, 0, 'b'},   {"dtype", required_argument, 0, 'y'},
		{"out-hw", required_argument, 0, 'o'},  {"limit", required_argument, 0, 'l'},
		{"gpu-img-s", required_argument, 0, 'g'}, {"read", no_argument, 0, 'r'},
		{"eval", no_argument, 0, 'e'},          {"full-decode", no_argument, 0, 'F'},
		{"fast-dct", no_argument, 0, 'f'},
		{"machine", required_argument, 0, 'm'}, {"csv", required_argument, 0, 'c'},
		{"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
	static bench b;
	char host[128] = "localhost";
	gethostname(host, sizeof host - 1);
	b.split = "train";
	b.machine = host;
	b.csv = "-";
	b.images = 3000;
	b.batch = 64;
	b.out_hw = 224;
	b.dtype = EX_DATA_BF16;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	for (long t = 1; t < cores && b.nthreads < 63; t *= 2)
		b.threads[b.nthreads++] = (int)t;
	b.threads[b.nthreads++] = (int)(cores > 0 ? cores : 1);
	int o;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end = NULL;
		switch (o) {
		case 'd': b.dir = optarg; break;
		case 's': b.split = optarg; break;
		case 'm': b.machine = optarg; break;
		case 'c': b.csv = optarg; break;
		case 'r': b.read_test = true; break;
		case 'e': b.eval = true; b.split = strcmp(b.split, "train") ? b.split : "val"; break;
		case 'F': b.full_decode = true; break;
		case 'f': b.fast_dct = true; break;
		case 't':
			if (parse_threads(&b, optarg) < 0) {
				fprintf(stderr, "scaleplan-databench: %s\n", err_msg());
				return EXIT_INPUT;
			}
			break;
		case 'n': case 'b': case 'o': case 'l': case 'g': {
			double v = strtod(optarg, &end);
			if (end == optarg || *end || !(v >= 0) || v > 1e12) {
				fprintf(stderr, "scaleplan-databench: bad number '%s'\n", optarg);
				return EXIT_INPUT;
			}
			if (o == 'n') b.images = (long)v;
			if (o == 'b') b.batch = (int)v;
			if (o == 'o') b.out_hw = (int)v;
			if (o == 'l') b.limit = (long)v;
			if (o == 'g') b.gpu_img_s = v;
			break;
		}
		case 'y':
			if (!strcmp(optarg, "bf16")) b.dtype = EX_DATA_BF16;
			else if (!strcmp(optarg, "fp16")) b.dtype = EX_DATA_F16;
			else if (!strcmp(optarg, "fp32")) b.dtype = EX_DATA_F32;
			else {
				fprintf(stderr, "scaleplan-databench: --dtype bf16|fp16|fp32, not '%s'\n", optarg);
				return EXIT_INPUT;
			}
			break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_INPUT;
		}
	}
	if (!b.dir || optind < argc || b.batch < 1 || b.images < 1) {
		usage(stderr);
		return EXIT_INPUT;
	}
	cpu_name(b.cpu, sizeof b.cpu);
	int rc = 0;
	if (b.read_test)
		rc = run_read(&b, b.threads[b.nthreads - 1]);
	for (int i = 0; rc == 0 && i < b.nthreads; i++)
		rc = run_decode(&b, b.threads[i], 0);
	if (rc == 0 && b.gpu_img_s > 0)
		rc = run_decode(&b, b.threads[b.nthreads - 1], b.gpu_img_s);
	if (rc < 0) {
		fprintf(stderr, "scaleplan-databench: %s\n", err_msg());
		return rc == ERR_ENV ? EXIT_ENV : EXIT_INPUT;
	}
	if (write_csv(&b) < 0) {
		fprintf(stderr, "scaleplan-databench: %s\n", err_msg());
		return EXIT_ENV;
	}
	/* table for people, last */
	fprintf(stderr, "\n%-8s %10s %12s %9s  %s\n", "threads", "img_s", "per_thread", "bytes", "pipeline");
	for (int i = 0; i < b.nres; i++)
		fprintf(stderr, "%-8d %10.0f %12.0f %9.0f  %.60s\n", b.res[i].threads, b.res[i].img_s,
			b.res[i].img_s / b.res[i].threads, b.res[i].bytes_mean, b.res[i].pipeline);
	return EXIT_OK;
}
