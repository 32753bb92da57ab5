/* scaleplan-mkjpeg must not put the class into the colour. Last session's first converter tinted every
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>
#include <unistd.h>
#include <zlib.h>

#include "common/common.h"
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

int main(int argc, char **argv)
{
	test_ctx t = {0};
	(void)argc;
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
