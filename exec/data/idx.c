/* IDX reader for (Fashion-)MNIST: gzip'd or raw files, every field validated.
 * Format: yann.lecun.com/exdb/mnist ("THE IDX FILE FORMAT"): bytes 0-1 zero, byte 2 the type (0x08 =
 * unsigned byte), byte 3 the number of dimensions, then one big-endian uint32 per dimension, then data.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "exec/data/ex_data.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/common.h"

/* Inflates a gzip buffer into a fresh buffer of at most EX_IDX_MAX_B bytes. */
static int gunzip(const unsigned char *in, size_t in_B, const char *name, unsigned char **out, size_t *out_B)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return err_set("%s: zlib inflateInit2 failed", name);
	size_t cap = in_B * 4 + 4096, len = 0;
	if (cap > (size_t)EX_IDX_MAX_B)
		cap = (size_t)EX_IDX_MAX_B;
	unsigned char *buf = xmalloc(cap);
	int rc = 0;
	z.next_in = (unsigned char *)in;
	size_t in_left = in_B;
	for (;;) {
		if (len == cap) {
			if (cap >= (size_t)EX_IDX_MAX_B) {
				rc = err_set("%s: decompressed size over %ld bytes", name, (long)EX_IDX_MAX_B);
				goto out;
			}
			cap = cap * 2 > (size_t)EX_IDX_MAX_B ? (size_t)EX_IDX_MAX_B : cap * 2;
			buf = xrealloc(buf, cap);
		}
		unsigned chunk_in = in_left > 1u << 30 ? 1u << 30 : (unsigned)in_left;
		size_t room = cap - len;
		unsigned chunk_out = room > 1u << 30 ? 1u << 30 : (unsigned)room;
		z.next_in = (unsigned char *)in + (in_B - in_left);
		z.avail_in = chunk_in;
		z.next_out = buf + len;
		z.avail_out = chunk_out;
		int zr = inflate(&z, Z_NO_FLUSH);
		in_left -= chunk_in - z.avail_in;
		len += chunk_out - z.avail_out;
		if (zr == Z_STREAM_END)
			break;
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			rc = err_set("%s: bad gzip data (%s)", name, z.msg ? z.msg : "zlib error");
			goto out;
		}
		if (zr == Z_BUF_ERROR && in_left == 0 && z.avail_out > 0) {
			rc = err_set("%s: truncated gzip data", name);
			goto out;
		}
		if (in_left == 0 && z.avail_out > 0) {
			rc = err_set("%s: truncated gzip data", name);
			goto out;
		}
	}
	*out = buf;
	*out_B = len;
	buf = NULL;
out:
	inflateEnd(&z);
	free(buf);
	return rc;
}

int ex_idx_parse(const void *vbuf, size_t len_B, const char *name, int ndims, int *dims, unsigned char **data)
{
	const unsigned char *buf = vbuf;
	unsigned char *plain = NULL;
	size_t plain_B = 0;
	int rc = 0;
	*data = NULL;
	if (len_B >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) {
		rc = gunzip(buf, len_B, name, &plain, &plain_B);
		if (rc < 0)
			return rc;
		buf = plain;
		len_B = plain_B;
	}
	if (len_B < 4) {
		rc = err_set("%s: %zu bytes, too short for an IDX header", name, len_B);
		goto out;
	}
	if (buf[0] != 0 || buf[1] != 0 || buf[2] != 0x08) {
		rc = err_set("%s: bad IDX magic %02x %02x %02x %02x (expected 00 00 08 %02x: unsigned bytes)", name,
			     buf[0], buf[1], buf[2], buf[3], ndims);
		goto out;
	}
	if (buf[3] != ndims) {
		rc = err_set("%s: IDX file has %d dimensions, expected %d (%s)", name, buf[3], ndims,
			     ndims == 1 ? "a labels file" : "an images file");
		goto out;
	}
	size_t hdr = 4 + 4 * (size_t)ndims;
	if (len_B < hdr) {
		rc = err_set("%s: truncated IDX header (%zu bytes, need %zu)", name, len_B, hdr);
		goto out;
	}
	size_t total = 1;
	for (int d = 0; d < ndims; d++) {
		const unsigned char *p = buf + 4 + 4 * d;
		uint32_t v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
		if (v == 0 || v > (uint32_t)INT32_MAX) {
			rc = err_set("%s: dimension %d is %u (expected 1 .. 2^31-1)", name, d, v);
			goto out;
		}
		if (total > (size_t)EX_IDX_MAX_B / v) {
			rc = err_set("%s: dimensions give more than %ld bytes", name, (long)EX_IDX_MAX_B);
			goto out;
		}
		total *= v;
		dims[d] = (int)v;
	}
	if (len_B - hdr != total) {
		rc = err_set("%s: %zu data bytes after the header, dimensions say %zu (%s)", name, len_B - hdr, total,
			     len_B - hdr < total ? "truncated" : "trailing bytes");
		goto out;
	}
	*data = xmalloc(total);
	memcpy(*data, buf + hdr, total);
out:
	free(plain);
	return rc;
}

/* Reads a whole file (at most EX_IDX_MAX_B bytes). */
static int read_file(const char *path, unsigned char **out, size_t *out_B)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_set("%s: cannot open: %s", path, strerror(errno));
	size_t cap = 1 << 20, len = 0;
	unsigned char *buf = xmalloc(cap);
	int rc = 0;
	for (;;) {
		if (len == cap) {
			if (cap >= (size_t)EX_IDX_MAX_B) {
				rc = err_set("%s: larger than %ld bytes", path, (long)EX_IDX_MAX_B);
				goto out;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			if (ferror(f)) {
				rc = err_set("%s: read error: %s", path, strerror(errno));
				goto out;
			}
			break;
		}
	}
	*out = buf;
	*out_B = len;
	buf = NULL;
out:
	free(buf);
	fclose(f);
	return rc;
}

static int load_one(const char *path, int ndims, int *dims, unsigned char **data)
{
	unsigned char *raw = NULL;
	size_t raw_B = 0;
	int rc = read_file(path, &raw, &raw_B);
	if (rc == 0)
		rc = ex_idx_parse(raw, raw_B, path, ndims, dims, data);
	free(raw);
	return rc;
}

int ex_idx_load(ex_idx_set *set, const char *images_path, const char *labels_path)
{
	int idims[3], ldims[1];
	memset(set, 0, sizeof *set);
	unsigned char *img = NULL, *lab = NULL;
	int rc = load_one(images_path, 3, idims, &img);
	if (rc < 0)
		goto fail;
	rc = load_one(labels_path, 1, ldims, &lab);
	if (rc < 0)
		goto fail;
	if (idims[0] != ldims[0]) {
		rc = err_set("%s: %d labels, but %s has %d images", labels_path, ldims[0], images_path, idims[0]);
		goto fail;
	}
	set->n = idims[0];
	set->rows = idims[1];
	set->cols = idims[2];
	set->images = img;
	set->labels = lab;
	for (int i = 0; i < set->n; i++)
		if (lab[i] + 1 > set->classes)
			set->classes = lab[i] + 1;
	return 0;
fail:
	free(img);
	free(lab);
	return rc;
}

void ex_idx_free(ex_idx_set *set)
{
	if (!set)
		return;
	free(set->images);
	free(set->labels);
	memset(set, 0, sizeof *set);
}

static int load_fashion_split(ex_idx_set *s, const char *dir, const char *prefix, int want_n)
{
	char *ip = xasprintf("%s/%s-images-idx3-ubyte.gz", dir, prefix);
	char *lp = xasprintf("%s/%s-labels-idx1-ubyte.gz", dir, prefix);
	int rc = ex_idx_load(s, ip, lp);
	if (rc < 0)
		goto out;
	if (s->rows != 28 || s->cols != 28) {
		rc = err_set("%s: images are %dx%d, Fashion-MNIST has 28x28", ip, s->rows, s->cols);
		goto out;
	}
	if (s->n != want_n) {
		rc = err_set("%s: %d images, Fashion-MNIST %s has %d", ip, s->n, prefix, want_n);
		goto out;
	}
	for (int i = 0; i < s->n; i++)
		if (s->labels[i] > 9) {
			rc = err_set("%s: label %d of item %d is not 0..9", lp, s->labels[i], i);
			goto out;
		}
	s->classes = 10;
out:
	if (rc < 0)
		ex_idx_free(s);
	free(ip);
	free(lp);
	return rc;
}

int ex_idx_load_fashion_mnist(ex_idx_set *train, ex_idx_set *test, const char *dir)
{
	if (!dir)
		dir = EX_IDX_FASHION_DIR;
	memset(test, 0, sizeof *test);
	int rc = load_fashion_split(train, dir, "train", 60000);
	if (rc == 0)
		rc = load_fashion_split(test, dir, "t10k", 10000);
	if (rc < 0) {
		ex_idx_free(train);
		ex_idx_free(test);
		if (!strstr(err_msg(), "cannot open"))
			return rc;
		return err_prefix("Fashion-MNIST (install: apt-get install dataset-fashion-mnist, or `make deps`)");
	}
	return 0;
}
