/* scaleplan-mkjpeg must not put the class into the colour. An early converter tinted every
 * image by its label, and a network read the class from the tint (98.6% "top-1" in 2 epochs). Here a
 * synthetic Fashion-MNIST (every image the same grey, labels in runs of 7) goes through the real program;
 * with the tint chosen per image, every class folder has the same mean red/blue ratio (within sampling
 * noise, ~0.5%); with a tint per class the ratios would spread by ~10% (tints 0.95..1.05).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <dirent.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>
#include <unistd.h>
#include <zlib.h>

#include "common/common.h"
#include "exec/data/ex_data.h"
#include "tests/test.h"

/* the IDX reader insists on Fashion-MNIST's sizes (60,000 / 10,000); 1,000 of them are converted */
enum { IDX_TRAIN = 60000, IDX_VAL = 10000, N_TRAIN = 1000, N_VAL = 10, SIDE = 28, OUT_SIZE = 16 };

static void put_be32(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* A gzip'd IDX file: images (n x 28 x 28, all grey 200) or labels ((i / 7) % 10). */
static int write_idx(const char *path, int n, bool images)
{
	gzFile f = gzopen(path, "wb");
	if (!f)
		return -1;
	unsigned char head[16];
	put_be32(head, images ? 0x803 : 0x801);
	put_be32(head + 4, (unsigned)n);
	put_be32(head + 8, SIDE);
	put_be32(head + 12, SIDE);
	int ok = gzwrite(f, head, images ? 16 : 8) > 0;
	for (int i = 0; i < n && ok; i++) {
		unsigned char px[SIDE * SIDE];
		if (images)
			memset(px, 200, sizeof px);
		else
			px[0] = (unsigned char)((i / 7) % 10);
		ok = gzwrite(f, px, images ? sizeof px : 1) > 0;
	}
	return gzclose(f) == Z_OK && ok ? 0 : -1;
}

/* Mean red / mean blue over the JPEGs of one class folder; *count gets how many were read. */
static double class_rb_ratio(const char *dir, int *count)
{
	DIR *d = opendir(dir);
	double r = 0, b = 0;
	*count = 0;
	tjhandle tj = tjInitDecompress();
	struct dirent *e;
	while (d && tj && (e = readdir(d))) {
		if (!strstr(e->d_name, ".JPEG"))
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name);
		size_t len = 0;
		char *buf = NULL;
		unsigned char rgb[OUT_SIZE * OUT_SIZE * 3];
		if (file_read_all(path, &buf, &len) == 0 &&
		    tjDecompress2(tj, (unsigned char *)buf, (unsigned long)len, rgb, OUT_SIZE, 0, OUT_SIZE, TJPF_RGB, 0) == 0) {
			for (int i = 0; i < OUT_SIZE * OUT_SIZE; i++) {
				r += rgb[3 * i];
				b += rgb[3 * i + 2];
			}
			(*count)++;
		}
		free(buf);
		free(path);
	}
	if (tj)
		tjDestroy(tj);
	if (d)
		closedir(d);
	return b > 0 ? r / b : 0;
}

static int rm_cb(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb, (void)type, (void)ftw;
	return remove(path);
}


/* Mean correlation of horizontally adjacent luma values: ~0 for noise, ~1 for flat colour; photographs
 * sit high but below 1 (smooth regions, edges and texture). */
static double neighbour_corr(const unsigned char *rgb, int w, int h)
{
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, n = 0;
	for (int y = 0; y < h; y++)
		for (int x = 0; x + 1 < w; x++) {
			const unsigned char *p = rgb + ((size_t)y * w + x) * 3;
			double a = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2], b = 0.299 * p[3] + 0.587 * p[4] + 0.114 * p[5];
			sx += a, sy += b, sxx += a * a, syy += b * b, sxy += a * b, n++;
		}
	double cov = sxy / n - sx / n * sy / n, va = sxx / n - sx / n * sx / n, vb = syy / n - sy / n * sy / n;
	return va > 0 && vb > 0 ? cov / sqrt(va * vb) : 1.0;
}

/* The ImageNet-like folder (exec/data/mkimagenet.c): sizes, layout, baseline 4:2:0 files, photo-like. */
static void test_imagenet_like(test_ctx *t)
{
	double sw = 0, sh = 0;
	long n500 = 0, portrait = 0, N = 50000;
	for (long i = 0; i < N; i++) {
		int w, h;
		ex_mkin_size((uint64_t)i * 0x9e3779b97f4a7c15ULL + 11, &w, &h);
		sw += w, sh += h;
		n500 += (w > h ? w : h) == 500;
		portrait += h > w;
	}
	TEST_CHECK(t, sw / N > 390 && sw / N < 450 && sh / N > 330 && sh / N < 390, "mean size %.0f x %.0f", sw / N, sh / N);
	TEST_CHECK(t, n500 > 0.4 * N && portrait > 0.2 * N && portrait < 0.3 * N, "500 px long side %ld, portrait %ld",
		   n500, portrait);
	char tmp[] = "/tmp/scaleplan-inlike-XXXXXX";
	if (!mkdtemp(tmp))
		return;
	ex_mkin_config c;
	ex_mkin_config_init(&c);
	char *dir = xasprintf("%s/ds", tmp);
	c.dir = dir;
	c.train = 8;
	c.val = 4;
	c.classes = 4;
	c.threads = 2;
	ex_mkin_stats st;
	TEST_CHECK(t, ex_make_imagenet_like(&c, &st) == 0 && st.images == 12, "make: %s", err_msg());
	tjhandle tj = tjInitDecompress();
	int ok = 0, photo = 0;
	double bpp = 0;
	for (int i = 0; i < 12; i++) {
		bool val = i >= 8;
		int j = val ? i - 8 : i, cls = j % 4;
		char *path = xasprintf("%s/%s/n%08d/n%08d_%d.JPEG", dir, val ? "val" : "train", cls, cls, j);
		char *buf = NULL;
		size_t len = 0;
		ex_jpeg_hdr h;
		if (file_read_all(path, &buf, &len) == 0 && ex_jpeg_header((unsigned char *)buf, len, &h) == 0 && h.hw_ok &&
		    h.has_eoi && h.hsamp[0] == 2 && h.vsamp[0] == 2) {
			unsigned char *rgb = xmalloc((size_t)h.width * h.height * 3);
			if (tjDecompress2(tj, (unsigned char *)buf, (unsigned long)len, rgb, h.width, 0, h.height, TJPF_RGB, 0) == 0) {
				ok++;
				double r = neighbour_corr(rgb, h.width, h.height);
				photo += r > 0.6 && r < 0.995;
				bpp += (double)len / ((double)h.width * h.height);
			}
			free(rgb);
		}
		free(buf);
		free(path);
	}
	TEST_CHECK(t, ok == 12, "%d of 12 files are baseline 4:2:0 JPEGs that decode", ok);
	TEST_CHECK(t, photo == 12, "%d of 12 look like photos (neighbour correlation 0.6..0.995)", photo);
	/* ImageNet: ~110 KB for ~400 x 350 px, ~0.8 bytes a pixel */
	TEST_CHECK(t, ok && bpp / ok > 0.35 && bpp / ok < 1.5, "%.2f bytes per pixel", ok ? bpp / ok : 0);
	c.quality = 0;
	TEST_CHECK(t, ex_make_imagenet_like(&c, &st) == ERR_INPUT && strstr(err_msg(), "quality"), "bad quality: %s",
		   err_msg());
	if (tj)
		tjDestroy(tj);
	nftw(tmp, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

int main(int argc, char **argv)
{
	test_ctx t = {0};
	(void)argc;
	test_imagenet_like(&t);
	/* the program next to this test: BUILD/tests/test_mkjpeg -> BUILD/scaleplan-mkjpeg */
	char self[PATH_MAX];
	snprintf(self, sizeof self, "%s", argv[0]);
	char *bin = xasprintf("%s/../scaleplan-mkjpeg", dirname(self));
	if (access(bin, X_OK) != 0) {
		TEST_SKIP(&t, "scaleplan-mkjpeg not built (libjpeg-turbo missing)");
		free(bin);
		return test_report(&t);
	}
	char tmp[] = "/tmp/scaleplan-mkjpeg-test-XXXXXX";
	TEST_CHECK(&t, mkdtemp(tmp) != NULL, "mkdtemp");
	char *p[4] = { xasprintf("%s/train-images-idx3-ubyte.gz", tmp), xasprintf("%s/train-labels-idx1-ubyte.gz", tmp),
		       xasprintf("%s/t10k-images-idx3-ubyte.gz", tmp), xasprintf("%s/t10k-labels-idx1-ubyte.gz", tmp) };
	TEST_CHECK(&t, write_idx(p[0], IDX_TRAIN, true) == 0 && write_idx(p[1], IDX_TRAIN, false) == 0 &&
			       write_idx(p[2], IDX_VAL, true) == 0 && write_idx(p[3], IDX_VAL, false) == 0,
		   "writing the IDX files");
	char *cmd = xasprintf("%s --out %s/ds --size %d --train %d --val %d --fashion-dir %s --threads 2 >/dev/null 2>&1",
			      bin, tmp, OUT_SIZE, N_TRAIN, N_VAL, tmp);
	TEST_CHECK(&t, system(cmd) == 0, "%s", cmd);
	static const char *const classes[10] = { "0_tshirt_top", "1_trouser", "2_pullover", "3_dress", "4_coat",
						 "5_sandal", "6_shirt", "7_sneaker", "8_bag", "9_ankle_boot" };
	double lo = 1e9, hi = 0;
	int total = 0;
	for (int c = 0; c < 10; c++) {
		char *dir = xasprintf("%s/ds/train/%s", tmp, classes[c]);
		int n;
		double ratio = class_rb_ratio(dir, &n);
		total += n;
		TEST_CHECK(&t, n >= 90 && ratio > 0, "%s: %d images, red/blue %g", classes[c], n, ratio);
		if (ratio > 0) {
			lo = ratio < lo ? ratio : lo;
			hi = ratio > hi ? ratio : hi;
		}
		free(dir);
	}
	TEST_CHECK(&t, total == N_TRAIN, "%d of %d train images decoded", total, N_TRAIN);
	/* per-image tints: classes alike to sampling noise; a per-class tint spreads them ~10% */
	TEST_CHECK(&t, hi > 0 && hi / lo < 1.03, "class red/blue ratios %g..%g: the colour tells the class", lo, hi);
	printf("class red/blue ratio %.4f..%.4f (spread %.2f%%)\n", lo, hi, 100 * (hi / lo - 1));
	nftw(tmp, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	for (int i = 0; i < 4; i++)
		free(p[i]);
	free(cmd);
	free(bin);
	return test_report(&t);
}
