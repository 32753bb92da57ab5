/* tests for the IDX (Fashion-MNIST) reader: real gzip files written here, each defect named.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "common/common.h"
#include "exec/data/ex_data.h"
#include "tests/test.h"

static char tmpdir[256];

/* Writes an IDX ubyte file with the given header dims and `data_B` bytes of payload (i & 0xff). */
static char *write_idx(const char *name, bool gz, unsigned char type, int ndims, const unsigned *dims,
		       size_t data_B)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	size_t len = 4 + 4 * (size_t)ndims + data_B;
	unsigned char *b = xcalloc(1, len);
	b[2] = type;
	b[3] = (unsigned char)ndims;
	for (int d = 0; d < ndims; d++) {
		b[4 + 4 * d] = (unsigned char)(dims[d] >> 24);
		b[5 + 4 * d] = (unsigned char)(dims[d] >> 16);
		b[6 + 4 * d] = (unsigned char)(dims[d] >> 8);
		b[7 + 4 * d] = (unsigned char)dims[d];
	}
	for (size_t i = 0; i < data_B; i++)
		b[4 + 4 * ndims + i] = ndims == 1 ? (unsigned char)(i % 10) : (unsigned char)(i & 0xff);
	if (gz) {
		gzFile f = gzopen(path, "wb");
		gzwrite(f, b, (unsigned)len);
		gzclose(f);
	} else {
		file_write_atomic(path, b, len);
	}
	free(b);
	return path;
}

static void test_good(test_ctx *t)
{
	unsigned idims[3] = {50, 28, 28}, ldims[1] = {50};
	char *ip = write_idx("img.gz", true, 8, 3, idims, 50 * 28 * 28);
	char *lp = write_idx("lab.raw", false, 8, 1, ldims, 50);
	ex_idx_set s;
	int rc = ex_idx_load(&s, ip, lp);
	TEST_CHECK(t, rc == 0, "load: %s", err_msg());
	TEST_CHECK(t, s.n == 50 && s.rows == 28 && s.cols == 28, "dims %d %d %d", s.n, s.rows, s.cols);
	TEST_CHECK(t, s.classes == 10, "classes %d", s.classes);
	TEST_CHECK(t, s.images && s.images[28 * 28 + 5] == ((28 * 28 + 5) & 0xff), "pixel");
	TEST_CHECK(t, s.labels && s.labels[13] == 3, "label");
	ex_idx_free(&s);
	TEST_CHECK(t, s.images == NULL && s.n == 0, "free clears");
	ex_idx_free(NULL);
	free(ip);
	free(lp);
}

/* Expects a load to fail with a message containing both `file` and `what`. */
static void expect_fail(test_ctx *t, const char *ip, const char *lp, const char *file, const char *what)
{
	ex_idx_set s;
	memset(&s, 0x55, sizeof s);
	int rc = ex_idx_load(&s, ip, lp);
	TEST_CHECK(t, rc == ERR_INPUT, "%s: expected failure, rc %d", what, rc);
	TEST_CHECK(t, strstr(err_msg(), file) != NULL, "message names %s: %s", file, err_msg());
	TEST_CHECK(t, strstr(err_msg(), what) != NULL, "message says '%s': %s", what, err_msg());
	TEST_CHECK(t, s.images == NULL && s.labels == NULL && s.n == 0, "left empty");
	ex_idx_free(&s);
}

static void test_bad(test_ctx *t)
{
	unsigned idims[3] = {20, 28, 28}, ldims[1] = {20}, l2[1] = {21}, zero[3] = {0, 28, 28};
	char *ip = write_idx("i.gz", true, 8, 3, idims, 20 * 28 * 28);
	char *lp = write_idx("l.gz", true, 8, 1, ldims, 20);
	char *bad_type = write_idx("type.gz", true, 0x0d, 3, idims, 20 * 28 * 28);
	char *bad_nd = write_idx("nd.gz", true, 8, 1, ldims, 20);
	char *trunc = write_idx("trunc.gz", true, 8, 3, idims, 20 * 28 * 28 - 1);
	char *trail = write_idx("trail.gz", true, 8, 3, idims, 20 * 28 * 28 + 7);
	char *l21 = write_idx("l21.gz", true, 8, 1, l2, 21);
	char *z = write_idx("zero.gz", true, 8, 3, zero, 0);
	char *missing = xasprintf("%s/nope.gz", tmpdir);
	expect_fail(t, bad_type, lp, "type.gz", "magic");
	expect_fail(t, bad_nd, lp, "nd.gz", "dimensions");
	expect_fail(t, trunc, lp, "trunc.gz", "truncated");
	expect_fail(t, trail, lp, "trail.gz", "trailing");
	expect_fail(t, ip, l21, "l21.gz", "labels");
	expect_fail(t, z, lp, "zero.gz", "dimension 0");
	expect_fail(t, missing, lp, "nope.gz", "cannot open");
	expect_fail(t, ip, missing, "nope.gz", "cannot open");

	/* a gzip stream cut in half */
	FILE *f = fopen(ip, "rb");
	unsigned char buf[65536];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	char *cut = xasprintf("%s/cut.gz", tmpdir);
	file_write_atomic(cut, buf, n / 2);
	expect_fail(t, cut, lp, "cut.gz", "gzip");
	/* garbage after a valid gzip magic */
	buf[10] ^= 0xff;
	buf[11] ^= 0xff;
	buf[12] ^= 0xff;
	char *garb = xasprintf("%s/garb.gz", tmpdir);
	file_write_atomic(garb, buf, n);
	expect_fail(t, garb, lp, "garb.gz", "gzip");
	/* in-memory parse of tiny buffers */
	int dims[3];
	unsigned char *data = NULL;
	TEST_CHECK(t, ex_idx_parse("", 0, "empty", 3, dims, &data) == ERR_INPUT && data == NULL, "empty");
	TEST_CHECK(t, ex_idx_parse("\0\0\x08\x03\0\0", 6, "short", 3, dims, &data) == ERR_INPUT, "short header");
	TEST_CHECK(t, strstr(err_msg(), "short") != NULL, "named: %s", err_msg());
	char *all[] = {ip, lp, bad_type, bad_nd, trunc, trail, l21, z, missing, cut, garb};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		unlink(all[i]);
		free(all[i]);
	}
}

static void test_fashion(test_ctx *t)
{
	if (access(EX_IDX_FASHION_DIR "/train-images-idx3-ubyte.gz", R_OK) != 0) {
		TEST_SKIP(t, "dataset-fashion-mnist not installed (make deps)");
		return;
	}
	ex_idx_set tr, te;
	int rc = ex_idx_load_fashion_mnist(&tr, &te, NULL);
	TEST_CHECK(t, rc == 0, "fashion: %s", err_msg());
	if (rc < 0)
		return;
	TEST_CHECK(t, tr.n == 60000 && te.n == 10000 && tr.rows == 28 && te.cols == 28, "sizes %d %d", tr.n, te.n);
	long hist[10] = {0};
	for (int i = 0; i < tr.n; i++)
		hist[tr.labels[i]]++;
	for (int c = 0; c < 10; c++)
		TEST_CHECK(t, hist[c] == 6000, "class %d has %ld training images (Fashion-MNIST: 6000 each)", c, hist[c]);
	double mean = 0;
	for (long i = 0; i < (long)tr.n * 784; i++)
		mean += tr.images[i];
	mean /= (double)tr.n * 784;
	/* Fashion-MNIST training pixel mean is 0.2860 x 255 = 72.94 (commonly quoted normalisation constant) */
	TEST_NEAR(t, mean, 72.94, 0.01);
	ex_idx_free(&tr);
	ex_idx_free(&te);
	ex_idx_set a, b;
	rc = ex_idx_load_fashion_mnist(&a, &b, "/nonexistent-dir");
	TEST_CHECK(t, rc == ERR_INPUT && strstr(err_msg(), "/nonexistent-dir/train-images") != NULL, "%s", err_msg());
}

int main(void)
{
	test_ctx t = {0};
	snprintf(tmpdir, sizeof tmpdir, "/tmp/scaleplan-test-idx-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	test_good(&t);
	test_bad(&t);
	test_fashion(&t);
	rmdir(tmpdir);
	return test_report(&t);
}
