/* scaleplan-mkjpeg: turns Fashion-MNIST (Debian dataset-fashion-mnist) into an ImageNet-layout folder
 * of RGB JPEGs, OUT/train/<class>/<name>.JPEG (60,000) and OUT/val/<class>/<name>.JPEG (10,000), so every machine
 * has a real JPEG workload for the input pipeline without downloading anything.
 * Each 28x28 image is upscaled (bilinear, pixel centres aligned) to SIZE x SIZE, given a mild colour
 * tint chosen by the image's index, not its class (so the three channels differ as in photos without
 * leaking the label), and compressed by libjpeg-turbo (4:2:0).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <turbojpeg.h>

#include "common/common.h"
#include "exec/data/ex_data.h"

static const char *const class_names[10] = {"0_tshirt_top", "1_trouser", "2_pullover", "3_dress", "4_coat",
					    "5_sandal", "6_shirt", "7_sneaker", "8_bag", "9_ankle_boot"};

typedef struct job {
	const ex_idx_set *set;
	const char *dir;   /* OUT/train or OUT/val */
	int size, quality;
	double noise;
	long n;
	long next;         /* shared cursor */
	double bytes;
	int err;
	char msg[512];
	pthread_mutex_t mu;
} job;

/* Bilinear upscale of a 28x28 grey image to size x size RGB with a tint (so the JPEG carries chroma).
 * The tint is picked per image from its index, never from its label: a per-class colour would let a
 * network read the class from the colour (a 2-epoch run scored 98.6 % "top-1" that way). */
static void render(const unsigned char *g, int rows, int cols, int size, int tint_id, double noise, uint64_t seed,
		   unsigned char *rgb)
{
	/* tint: one of 10 colours, mixed 25% into the grey level */
	static const float tint[10][3] = {{1, .85f, .8f}, {.8f, .85f, 1}, {.9f, 1, .85f}, {1, .8f, .95f},
					  {.85f, .9f, .9f}, {1, .95f, .8f}, {.8f, 1, 1}, {.95f, .95f, .95f},
					  {.9f, .8f, .7f}, {.75f, .8f, .9f}};
	for (int y = 0; y < size; y++) {
		double sy = (y + 0.5) * rows / size - 0.5;
		int y0 = sy < 0 ? 0 : (int)sy, y1 = y0 + 1 < rows ? y0 + 1 : rows - 1;
		double fy = sy < 0 ? 0 : sy - y0;
		for (int x = 0; x < size; x++) {
			double sx = (x + 0.5) * cols / size - 0.5;
			int x0 = sx < 0 ? 0 : (int)sx, x1 = x0 + 1 < cols ? x0 + 1 : cols - 1;
			double fx = sx < 0 ? 0 : sx - x0;
			double v = (1 - fy) * ((1 - fx) * g[y0 * cols + x0] + fx * g[y0 * cols + x1]) +
				   fy * ((1 - fx) * g[y1 * cols + x0] + fx * g[y1 * cols + x1]);
			for (int c = 0; c < 3; c++) {
				double o = v * (0.75 + 0.25 * tint[tint_id % 10][c]);
				if (noise > 0) /* sensor-like grain: photos' JPEGs are larger and slower to decode */
					o += noise * (2.0 * (double)(ex_data_rand(&seed) >> 11) / 9007199254740992.0 - 1.0);
				o = o < 0 ? 0 : o > 255 ? 255 : o;
				rgb[((size_t)y * size + x) * 3 + c] = (unsigned char)(o + 0.5);
			}
		}
	}
}

static void *convert(void *varg)
{
	job *j = varg;
	tjhandle tj = tjInitCompress();
	unsigned char *rgb = xmalloc((size_t)j->size * j->size * 3);
	unsigned long cap = tjBufSize(j->size, j->size, TJSAMP_420);
	unsigned char *jpg = tjAlloc((int)cap);
	double bytes = 0;
	for (;;) {
		pthread_mutex_lock(&j->mu);
		long i = j->err ? j->n : j->next++;
		pthread_mutex_unlock(&j->mu);
		if (i >= j->n || !tj)
			break;
		const ex_idx_set *s = j->set;
		int label = s->labels[i];
		render(s->images + (size_t)i * s->rows * s->cols, s->rows, s->cols, j->size,
		       (int)(((uint64_t)i * 0x9e3779b97f4a7c15ULL) >> 59) % 10, j->noise,
		       (uint64_t)i * 0x9e3779b97f4a7c15ULL + (uint64_t)j->size, rgb);
		unsigned long len = cap; /* the buffer's size in, the JPEG's size out */
		char msg[512] = "";
		if (!jpg || tjCompress2(tj, rgb, j->size, 0, j->size, TJPF_RGB, &jpg, &len, TJSAMP_420, j->quality,
					TJFLAG_NOREALLOC) < 0) {
			snprintf(msg, sizeof msg, "tjCompress2: %s", jpg ? tjGetErrorStr2(tj) : "tjAlloc failed");
		} else {
			char *path = xasprintf("%s/%s/fmnist_%06ld.JPEG", j->dir, class_names[label % 10], i);
			FILE *f = fopen(path, "wb");
			if (!f || fwrite(jpg, 1, len, f) != len)
				snprintf(msg, sizeof msg, "%s: cannot write: %s", path, strerror(errno));
			if (f && fclose(f) != 0 && !msg[0])
				snprintf(msg, sizeof msg, "%s: cannot write: %s", path, strerror(errno));
			free(path);
			bytes += (double)len;
		}
		if (msg[0]) {
			pthread_mutex_lock(&j->mu);
			if (!j->err) {
				j->err = 1;
				snprintf(j->msg, sizeof j->msg, "%s", msg);
			}
			pthread_mutex_unlock(&j->mu);
		}
	}
	pthread_mutex_lock(&j->mu);
	j->bytes += bytes;
	if (!tj && !j->err) {
		j->err = 1;
		snprintf(j->msg, sizeof j->msg, "tjInitCompress failed");
	}
	pthread_mutex_unlock(&j->mu);
	tjFree(jpg);
	free(rgb);
	if (tj)
		tjDestroy(tj);
	return NULL;
}

static int mkdir_p(const char *path)
{
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
		return err_set("%s: cannot create folder: %s", path, strerror(errno));
	return 0;
}

/* Writes OUT/<split>/<class>/ for n images of the set; returns 0 or ERR_ENV. */
static int write_split(const char *out, const char *split, const ex_idx_set *s, long n, int size, int quality,
		       double noise, int threads, double *mean_B)
{
	char *dir = xasprintf("%s/%s", out, split);
	int rc = mkdir_p(dir);
	for (int c = 0; rc == 0 && c < 10; c++) {
		char *cd = xasprintf("%s/%s", dir, class_names[c]);
		rc = mkdir_p(cd);
		free(cd);
	}
	if (rc < 0) {
		free(dir);
		return ERR_ENV;
	}
	job j;
	memset(&j, 0, sizeof j);
	j.set = s;
	j.dir = dir;
	j.size = size;
	j.quality = quality;
	j.noise = noise;
	j.n = n;
	pthread_mutex_init(&j.mu, NULL);
	pthread_t *t = xcalloc((size_t)threads, sizeof *t);
	int started = 0;
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, convert, &j) == 0)
			started++;
		else
			break;
	if (started == 0)
		convert(&j);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
	pthread_mutex_destroy(&j.mu);
	free(dir);
	if (j.err) {
		err_set("%s", j.msg);
		return ERR_ENV;
	}
	*mean_B = j.bytes / (double)n;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: scaleplan-mkjpeg --out DIR [--size 256] [--quality 90] [--train N] [--val N]\n"
		   "                        [--noise 0] [--fashion-dir %s] [--threads 2]\n"
		   "--noise A adds uniform grain of +-A grey levels (e.g. --size 400 --noise 12: photo-sized files).\n"
		   "Writes DIR/train/<class>/*.JPEG (Fashion-MNIST train, 60000 by default) and\n"
		   "DIR/val/<class>/*.JPEG (test split, 10000) as SIZE x SIZE RGB JPEGs.\n",
		EX_IDX_FASHION_DIR);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"out", required_argument, 0, 'o'},     {"size", required_argument, 0, 's'},
					     {"quality", required_argument, 0, 'q'}, {"train", required_argument, 0, 't'},
					     {"val", required_argument, 0, 'v'},     {"fashion-dir", required_argument, 0, 'f'},
					     {"threads", required_argument, 0, 'j'}, {"help", no_argument, 0, 'h'},
					     {"noise", required_argument, 0, 'n'},
					     {0, 0, 0, 0}};
	const char *out = NULL, *fdir = NULL;
	long size = 256, quality = 90, ntrain = 60000, nval = 10000, threads = 2;
	double noise = 0;
	int o;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end = NULL;
		long v = 0;
		if (o != 'o' && o != 'f' && o != 'h' && o != '?') {
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || !*optarg || *end || v < 0) {
				fprintf(stderr, "scaleplan-mkjpeg: --%s: '%s' is not a non-negative integer\n",
					opts[o == 's' ? 1 : o == 'q' ? 2 : o == 't' ? 3 : o == 'v' ? 4 : o == 'j' ? 6 : 8].name, optarg);
				return EXIT_INPUT;
			}
		}
		switch (o) {
		case 'o': out = optarg; break;
		case 'f': fdir = optarg; break;
		case 's': size = v; break;
		case 'q': quality = v; break;
		case 't': ntrain = v; break;
		case 'v': nval = v; break;
		case 'j': threads = v; break;
		case 'n': noise = (double)v; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_INPUT;
		}
	}
	if (!out || optind < argc) {
		usage(stderr);
		return EXIT_INPUT;
	}
	if (size < 8 || size > 4096 || quality < 1 || quality > 100 || threads < 1 || threads > 256) {
		fprintf(stderr, "scaleplan-mkjpeg: --size 8..4096, --quality 1..100, --threads 1..256\n");
		return EXIT_INPUT;
	}
	ex_idx_set tr, te;
	if (ex_idx_load_fashion_mnist(&tr, &te, fdir) < 0) {
		fprintf(stderr, "scaleplan-mkjpeg: %s\n", err_msg());
		return EXIT_INPUT;
	}
	if (ntrain > tr.n)
		ntrain = tr.n;
	if (nval > te.n)
		nval = te.n;
	double t0 = time_now_s(), mtr = 0, mva = 0;
	int rc = mkdir_p(out);
	if (rc == 0 && ntrain)
		rc = write_split(out, "train", &tr, ntrain, (int)size, (int)quality, noise, (int)threads, &mtr);
	if (rc == 0 && nval)
		rc = write_split(out, "val", &te, nval, (int)size, (int)quality, noise, (int)threads, &mva);
	ex_idx_free(&tr);
	ex_idx_free(&te);
	if (rc < 0) {
		fprintf(stderr, "scaleplan-mkjpeg: %s\n", err_msg());
		return EXIT_ENV;
	}
	double dt = time_now_s() - t0;
	printf("scaleplan-mkjpeg: %s: %ld train + %ld val JPEGs of %ldx%ld (quality %ld), mean %.0f / %.0f bytes, "
	       "%.1f s (%.0f img/s on %ld threads)\n", out, ntrain, nval, size, size, quality, mtr, mva, dt,
	       (ntrain + nval) / dt, threads);
	return EXIT_OK;
}
