/* tests for JPEG decode + augmentation and the folder loader, on JPEGs generated here with TurboJPEG.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <turbojpeg.h>
#include <unistd.h>

#include "common/common.h"
#include "exec/data/ex_data.h"
#include "tests/test.h"

static char tmpdir[256];

/* A w x h JPEG (quality 95): solid (r,g,b), or when split, black left half and white right half. */
static unsigned char *make_jpeg(int w, int h, int r, int g, int b, bool split, bool grey, unsigned long *len)
{
	int px = grey ? 1 : 3;
	unsigned char *img = xmalloc((size_t)w * h * px);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			for (int c = 0; c < px; c++) {
				int v = c == 0 ? r : c == 1 ? g : b;
				if (split)
					v = x < w / 2 ? 0 : 255;
				img[((size_t)y * w + x) * px + c] = (unsigned char)v;
			}
	tjhandle tj = tjInitCompress();
	unsigned char *out = NULL;
	*len = 0;
	tjCompress2(tj, img, w, 0, h, grey ? TJPF_GRAY : TJPF_RGB, &out, len, grey ? TJSAMP_GRAY : TJSAMP_420, 95, 0);
	tjDestroy(tj);
	free(img);
	unsigned char *copy = xmalloc(*len);
	memcpy(copy, out, *len);
	tjFree(out);
	return copy;
}

static float px_f32(const float *img, int out, int x, int y, int c) { return img[((size_t)y * out + x) * 3 + c]; }

static void test_convert(test_ctx *t)
{
	TEST_CHECK(t, ex_data_f32_to_f16(1.0f) == 0x3c00, "f16(1)");
	TEST_CHECK(t, ex_data_f32_to_f16(-2.0f) == 0xc000, "f16(-2)");
	TEST_CHECK(t, ex_data_f32_to_f16(65504.0f) == 0x7bff, "f16 max");
	TEST_CHECK(t, ex_data_f32_to_f16(70000.0f) == 0x7c00, "f16 overflow -> inf");
	TEST_CHECK(t, ex_data_f32_to_f16(1e-7f) == 2, "f16 subnormal: 1e-7 / 2^-24 = 1.68 -> 2, got %u",
		   ex_data_f32_to_f16(1e-7f));
	TEST_CHECK(t, ex_data_f32_to_f16(1e-9f) == 0, "f16 underflow");
	TEST_CHECK(t, ex_data_f32_to_f16(1.0f + 1.0f / 2048) == 0x3c00, "f16 tie rounds to even");
	TEST_CHECK(t, ex_data_f32_to_bf16(1.0f) == 0x3f80, "bf16(1)");
	TEST_CHECK(t, ex_data_f32_to_bf16(-2.5f) == 0xc020, "bf16(-2.5)");
	for (float v = -3.0f; v <= 3.0f; v += 0.173f) {
		TEST_NEAR(t, ex_data_f16_to_f32(ex_data_f32_to_f16(v)), v, 1.0 / 1024);
		TEST_NEAR(t, ex_data_bf16_to_f32(ex_data_f32_to_bf16(v)), v, 1.0 / 128);
	}
	TEST_CHECK(t, isnan(ex_data_f16_to_f32(ex_data_f32_to_f16(NAN))), "f16 NaN");
	TEST_CHECK(t, isnan(ex_data_bf16_to_f32(ex_data_f32_to_bf16(NAN))), "bf16 NaN");
}

static void test_decode(test_ctx *t)
{
	ex_jpeg_ctx *c = ex_jpeg_ctx_new();
	TEST_CHECK(t, c != NULL, "ctx: %s", err_msg());
	if (!c)
		return;
	ex_jpeg_aug a;
	ex_jpeg_aug_init(&a, false);
	unsigned long len;
	float *img = xmalloc(ex_jpeg_image_bytes(&a));
	uint64_t rng = 1;
	ex_jpeg_info info;

	/* solid colour, eval: every pixel is the normalised colour; JPEG error a few levels (tol 8/255) */
	unsigned char *j = make_jpeg(320, 240, 200, 100, 50, false, false, &len);
	int rc = ex_jpeg_decode_aug(c, j, len, &a, &rng, img, &info);
	TEST_CHECK(t, rc == 0, "decode: %s", err_msg());
	const float rgb[3] = {200, 100, 50};
	double worst = 0;
	for (int y = 0; y < 224; y++)
		for (int x = 0; x < 224; x++)
			for (int ch = 0; ch < 3; ch++) {
				double want = (rgb[ch] / 255.0 - a.mean[ch]) / a.std[ch];
				double d = fabs(px_f32(img, 224, x, y, ch) - want) * a.std[ch] * 255;
				worst = d > worst ? d : worst;
			}
	TEST_CHECK(t, worst <= 8, "solid colour off by %.1f levels", worst);
	/* eval crop on 320x240: shorter side 240 -> crop 240*224/256 = 210 px square, centred */
	TEST_CHECK(t, info.crop_w == 210 && info.crop_h == 210 && info.crop_x == 55 && info.crop_y == 15,
		   "eval crop %d,%d %dx%d", info.crop_x, info.crop_y, info.crop_w, info.crop_h);
	TEST_CHECK(t, info.scale_num == 1 && info.scale_denom == 1, "no DCT scaling for a 210 px crop");

	/* same image as bf16 and fp16: the same values within the format's precision */
	ex_jpeg_aug a16 = a;
	uint16_t *h = xmalloc(ex_jpeg_image_bytes(&a));
	a16.dtype = EX_DATA_BF16;
	TEST_CHECK(t, ex_jpeg_decode_aug(c, j, len, &a16, &rng, h, NULL) == 0, "bf16");
	TEST_NEAR(t, ex_data_bf16_to_f32(h[3 * (100 * 224 + 100)]), img[3 * (100 * 224 + 100)], 1.0 / 128);
	a16.dtype = EX_DATA_F16;
	TEST_CHECK(t, ex_jpeg_decode_aug(c, j, len, &a16, &rng, h, NULL) == 0, "f16");
	TEST_NEAR(t, ex_data_f16_to_f32(h[3 * (50 * 224 + 7) + 2]), img[3 * (50 * 224 + 7) + 2], 1.0 / 1024);
	free(h);

	/* truncated, garbage, empty, corrupt header: ERR_INPUT with a reason, never a crash */
	rc = ex_jpeg_decode_aug(c, j, len / 2, &a, &rng, img, NULL);
	TEST_CHECK(t, rc == ERR_INPUT && strstr(err_msg(), "corrupt"), "truncated: %d %s", rc, err_msg());
	rc = ex_jpeg_decode_aug(c, (const unsigned char *)"hello world, not a jpeg", 23, &a, &rng, img, NULL);
	TEST_CHECK(t, rc == ERR_INPUT && strstr(err_msg(), "not a JPEG"), "garbage: %s", err_msg());
	rc = ex_jpeg_decode_aug(c, j, 0, &a, &rng, img, NULL);
	TEST_CHECK(t, rc == ERR_INPUT && strstr(err_msg(), "empty"), "empty: %s", err_msg());
	unsigned char *bad = xmalloc(len);
	memcpy(bad, j, len);
	memset(bad + 2, 0x11, 40);
	rc = ex_jpeg_decode_aug(c, bad, len, &a, &rng, img, NULL);
	TEST_CHECK(t, rc == ERR_INPUT, "corrupt header: %s", err_msg());
	free(bad);
	free(j);

	/* a large image: eval crop 896 px -> DCT scale 1/4 decodes 256 px, still >= 224 */
	j = make_jpeg(1024, 1024, 10, 20, 30, false, false, &len);
	rc = ex_jpeg_decode_aug(c, j, len, &a, &rng, img, &info);
	TEST_CHECK(t, rc == 0 && info.scale_num * 4 == info.scale_denom && info.dec_width == 256,
		   "DCT scaling %d/%d -> %d px", info.scale_num, info.scale_denom, info.dec_width);
	free(j);

	/* greyscale JPEG becomes three equal channels */
	j = make_jpeg(256, 256, 90, 90, 90, false, true, &len);
	rc = ex_jpeg_decode_aug(c, j, len, &a, &rng, img, NULL);
	TEST_CHECK(t, rc == 0, "grey: %s", err_msg());
	double g0 = px_f32(img, 224, 5, 5, 0) * a.std[0] + a.mean[0], g2 = px_f32(img, 224, 5, 5, 2) * a.std[2] + a.mean[2];
	TEST_NEAR(t, g0, g2, 1e-4);
	TEST_NEAR(t, g0 * 255, 90, 0.05);
	free(j);

	/* flip: black | white image, full-image crop; output column 0 is black unless flipped */
	ex_jpeg_aug tr;
	ex_jpeg_aug_init(&tr, true);
	tr.scale_min = tr.scale_max = 1.0f;
	j = make_jpeg(256, 256, 0, 0, 0, true, false, &len);
	int flips = 0;
	for (int s = 0; s < 16; s++) {
		rng = (uint64_t)s * 977;
		rc = ex_jpeg_decode_aug(c, j, len, &tr, &rng, img, &info);
		double left = px_f32(img, 224, 0, 100, 1) * tr.std[1] + tr.mean[1];
		double right = px_f32(img, 224, 223, 100, 1) * tr.std[1] + tr.mean[1];
		TEST_CHECK(t, rc == 0 && info.crop_w == 256 && info.crop_h == 256, "full crop");
		TEST_CHECK(t, info.flipped ? (left > 0.9 && right < 0.1) : (left < 0.1 && right > 0.9),
			   "flip %d: left %.2f right %.2f", info.flipped, left, right);
		flips += info.flipped;
	}
	TEST_CHECK(t, flips > 0 && flips < 16, "both orientations seen in 16 draws (%d flipped)", flips);
	free(j);
	free(img);
	ex_jpeg_ctx_free(c);
	ex_jpeg_ctx_free(NULL);
}

/* Region decoding (skip rows, crop columns) gives the same image as decoding everything. */
static void test_roi(test_ctx *t)
{
	int W = 333, H = 250;
	unsigned char *img = xmalloc((size_t)W * H * 3);
	uint64_t s = 5;
	for (int i = 0; i < W * H * 3; i++) /* texture: gradients + noise, so every block has detail */
		img[i] = (unsigned char)(((i / 3) % W) / 2 + ((i / 3) / W) / 3 + (ex_data_rand(&s) & 31) + (i % 3) * 20);
	tjhandle tj = tjInitCompress();
	unsigned char *jp = NULL;
	unsigned long len = 0;
	tjCompress2(tj, img, W, 0, H, TJPF_RGB, &jp, &len, TJSAMP_420, 90, 0);
	tjDestroy(tj);
	ex_jpeg_ctx *c = ex_jpeg_ctx_new();
	ex_jpeg_aug a;
	ex_jpeg_aug_init(&a, true);
	a.out_hw = 96; /* small output: DCT scaling is used for most crops */
	size_t n = ex_jpeg_image_bytes(&a) / 4;
	float *r = xmalloc(n * 4), *f = xmalloc(n * 4);
	double worst = 0, sum = 0;
	int scaled = 0;
	for (int k = 0; k < 40; k++) {
		uint64_t s1 = (uint64_t)k * 31 + 1, s2 = s1;
		ex_jpeg_info i1, i2;
		a.full_decode = false;
		int rc1 = ex_jpeg_decode_aug(c, jp, len, &a, &s1, r, &i1);
		a.full_decode = true;
		int rc2 = ex_jpeg_decode_aug(c, jp, len, &a, &s2, f, &i2);
		TEST_CHECK(t, rc1 == 0 && rc2 == 0, "decode %d: %s", k, err_msg());
		TEST_CHECK(t, i1.crop_x == i2.crop_x && i1.crop_w == i2.crop_w && i1.scale_denom == i2.scale_denom, "same crop");
		scaled += i1.scale_num != i1.scale_denom;
		for (size_t q = 0; q < n; q++) {
			double d = fabs(r[q] - f[q]) * 0.225 * 255; /* in 8-bit levels */
			worst = d > worst ? d : worst;
			sum += d;
		}
	}
	/* the same IDCT and colour conversion; chroma upsampling at the region's left edge has less context,
	 * which moves a few pixels by a level (seen: at most 1.0) */
	TEST_CHECK(t, worst <= 2.0, "region vs full decode: worst %.3f levels", worst);
	TEST_CHECK(t, sum / (40.0 * n) < 0.01, "mean %.4f levels", sum / (40.0 * n));
	TEST_CHECK(t, scaled > 5, "DCT scaling exercised (%d of 40)", scaled);
	free(r);
	free(f);
	free(img);
	tjFree(jp);
	ex_jpeg_ctx_free(c);
}

/* RandomResizedCrop: inside the image, area and ratio in range (or the centre fallback). */
static void test_rrc(test_ctx *t)
{
	ex_jpeg_aug a;
	ex_jpeg_aug_init(&a, true);
	uint64_t rng = 42;
	int bad = 0, small = 0;
	double area_sum = 0;
	for (int i = 0; i < 20000; i++) {
		int W = 500, H = 375, x, y, w, h;
		ex_jpeg_rrc_params(W, H, &a, &rng, &x, &y, &w, &h);
		double frac = (double)w * h / (W * H), ratio = (double)w / h;
		if (x < 0 || y < 0 || x + w > W || y + h > H || w < 1 || h < 1)
			bad++;
		if (frac < 0.075 || frac > 1.0 || ratio < 0.74 || ratio > 1.35)
			bad++;
		small += frac < 0.2;
		area_sum += frac;
	}
	TEST_CHECK(t, bad == 0, "%d crops out of range", bad);
	/* area fraction ~ U(0.08, 1) truncated by the fit test: mean near 0.5, some small crops */
	TEST_CHECK(t, area_sum / 20000 > 0.4 && area_sum / 20000 < 0.6, "mean area %.3f", area_sum / 20000);
	TEST_CHECK(t, small > 1000, "small crops %d", small);
	/* a 10:1 strip: every try fails the ratio, fallback is the centre crop at ratio 4/3 */
	int x, y, w, h;
	ex_jpeg_aug a2 = a;
	a2.scale_min = a2.scale_max = 1.0f;
	ex_jpeg_rrc_params(1000, 100, &a2, &rng, &x, &y, &w, &h);
	TEST_CHECK(t, w == 133 && h == 100 && x == 433 && y == 0, "fallback %d,%d %dx%d", x, y, w, h);
}

static void write_file(const char *rel, const void *buf, size_t len)
{
	char *p = xasprintf("%s/%s", tmpdir, rel);
	file_write_atomic(p, buf, len);
	free(p);
}

static void mkdirs(const char *rel)
{
	char *p = xasprintf("%s/%s", tmpdir, rel);
	mkdir(p, 0777);
	free(p);
}

/* Folder: train/{a_red,b_green,c_blue} 10 images each + a truncated JPEG, a text file, a dangling
 * symlink, an empty class; val/ 5 images. */
static void make_folder(void)
{
	mkdirs("ds");
	mkdirs("ds/train");
	mkdirs("ds/val");
	const char *cls[3] = {"a_red", "b_green", "c_blue"};
	for (int c = 0; c < 3; c++) {
		char d[64];
		snprintf(d, sizeof d, "ds/train/%s", cls[c]);
		mkdirs(d);
		snprintf(d, sizeof d, "ds/val/%s", cls[c]);
		mkdirs(d);
		unsigned long len;
		unsigned char *j = make_jpeg(96 + 16 * c, 80, c == 0 ? 220 : 20, c == 1 ? 220 : 20, c == 2 ? 220 : 20,
					     false, false, &len);
		for (int i = 0; i < 10; i++) {
			snprintf(d, sizeof d, "ds/train/%s/img%02d.%s", cls[c], i, i % 2 ? "JPEG" : "jpg");
			write_file(d, j, len);
			if (i < 2 && !(c == 2 && i == 1)) {
				snprintf(d, sizeof d, "ds/val/%s/v%d.JPEG", cls[c], i);
				write_file(d, j, len);
			}
		}
		if (c == 0)
			write_file("ds/train/a_red/truncated.JPEG", j, len / 3);
		free(j);
	}
	write_file("ds/train/b_green/notes.txt", "hello", 5);
	mkdirs("ds/train/d_empty");
	char *link = xasprintf("%s/ds/train/c_blue/gone.JPEG", tmpdir);
	symlink("/nonexistent/file.JPEG", link);
	free(link);
	mkdirs("empty");
	mkdirs("empty/train");
	mkdirs("empty/train/x");
	write_file("empty/train/x/readme.md", "#", 1);
}

/* Runs `batches` batches through a loader with two buffers; returns labels in order (caller frees).
 * Checks each image's colour matches its label. */
static int *run_loader(test_ctx *t, ex_data_config *c, int batches, ex_data_stats *st)
{
	ex_data_loader *l;
	int rc = ex_data_loader_new(&l, c);
	TEST_CHECK(t, rc == 0, "loader: %s", err_msg());
	if (rc < 0)
		return NULL;
	size_t img_B = ex_data_loader_image_bytes(l);
	float *buf[2];
	int lab[2][8], *out = xcalloc((size_t)batches * c->batch, sizeof(int));
	for (int k = 0; k < 2; k++) {
		buf[k] = xmalloc(ex_data_loader_batch_bytes(l));
		TEST_CHECK(t, ex_data_loader_submit(l, buf[k], lab[k]) == 0, "submit");
	}
	int colour_bad = 0;
	for (int b = 0; b < batches; b++) {
		void *d;
		int *lb;
		int n = ex_data_loader_wait(l, &d, &lb);
		TEST_CHECK(t, n == c->batch, "batch %d: %d images (%s)", b, n, n < 0 ? err_msg() : "");
		if (n < 0)
			break;
		for (int i = 0; i < n; i++) {
			const float *im = (const float *)((char *)d + img_B * i);
			int ch = lb[i] < 3 ? lb[i] : 0; /* class a=red (0), b=green (1), c=blue (2) */
			float v = im[3 * (c->out_hw / 2 * c->out_hw + c->out_hw / 2) + ch];
			if (lb[i] > 2 || v < 1.0f) /* 220 -> (0.86-0.45)/0.23 ~ 1.8; 20 -> ~ -1.6 */
				colour_bad++;
			out[(size_t)b * c->batch + i] = lb[i];
		}
		if (b + 2 < batches)
			ex_data_loader_submit(l, d, lb);
	}
	TEST_CHECK(t, colour_bad == 0, "%d images whose colour does not match the label", colour_bad);
	ex_data_loader_stats(l, st);
	if (st->bad) {
		const char *why = NULL;
		bool named = false;
		for (long i = 0; ex_data_loader_bad_file(l, i, &why); i++)
			named |= strcmp(ex_data_loader_bad_file(l, i, NULL), "a_red/truncated.JPEG") == 0;
		TEST_CHECK(t, named, "bad file named");
	}
	TEST_CHECK(t, ex_data_loader_classes(l) == 4 || strcmp(c->split, "val") == 0, "classes %d",
		   ex_data_loader_classes(l));
	ex_data_loader_free(l);
	free(buf[0]);
	free(buf[1]);
	return out;
}

/* The loader over the test folder in dir: 4 images of 32 px (from 36) a batch, 2 threads, seed 7. */
static void small_loader(ex_data_config *c, const char *dir)
{
	ex_data_config_init(c);
	c->dir = dir;
	c->batch = 4;
	c->out_hw = 32;
	c->resize_hw = 36;
	c->threads = 2;
	c->depth = 2;
	c->seed = 7;
}

static void test_loader(test_ctx *t)
{
	make_folder();
	ex_data_config c;
	char *dir = xasprintf("%s/ds", tmpdir);
	small_loader(&c, dir);
	c.quiet = getenv("DATA_VERBOSE") == NULL;
	/* 32 files (30 + truncated + dangling link): 8 batches per epoch; 2 epochs visit every file */
	ex_data_stats st;
	int *l1 = run_loader(t, &c, 16, &st);
	TEST_CHECK(t, st.files == 32 && st.bad == 2 && st.nonimage == 1 && st.empty_classes == 1,
		   "files %ld bad %ld nonimage %ld empty %ld", st.files, st.bad, st.nonimage, st.empty_classes);
	TEST_CHECK(t, st.batches == 16 && st.images >= 64, "batches %ld images %ld", st.batches, st.images);
	/* the same seed on 1 thread gives the same labels in the same order; epochs differ */
	c.threads = 1;
	int *l2 = run_loader(t, &c, 16, &st);
	if (l1 && l2) {
		TEST_CHECK(t, memcmp(l1, l2, sizeof(int) * 64) == 0, "order independent of thread count");
		TEST_CHECK(t, memcmp(l1, l1 + 32, sizeof(int) * 32) != 0, "epoch 1 reshuffled");
	}
	free(l2);
	c.seed = 8;
	l2 = run_loader(t, &c, 8, &st);
	if (l1 && l2)
		TEST_CHECK(t, memcmp(l1, l2, sizeof(int) * 32) != 0, "another seed, another order");
	free(l1);
	free(l2);

	/* sharding: 2 ranks, 16 files each, 4 batches per epoch */
	ex_data_loader *L;
	c.world = 2;
	c.rank = 1;
	c.fixed_shard = true;
	TEST_CHECK(t, ex_data_loader_new(&L, &c) == 0, "rank 1: %s", err_msg());
	if (L) {
		TEST_CHECK(t, ex_data_loader_shard_files(L) == 16 && ex_data_loader_batches_per_epoch(L) == 4, "shard");
		ex_data_loader_free(L);
	}
	c.world = 1;
	c.rank = 0;
	c.fixed_shard = false;

	/* eval split: 5 images, batch 4: a full batch then 1 */
	c.split = "val";
	c.train = false;
	TEST_CHECK(t, ex_data_loader_new(&L, &c) == 0, "val: %s", err_msg());
	if (L) {
		TEST_CHECK(t, ex_data_loader_batches_per_epoch(L) == 2, "val batches");
		float *buf = xmalloc(ex_data_loader_batch_bytes(L));
		int lab[4];
		int n1 = ex_data_loader_next(L, buf, lab), n2 = ex_data_loader_next(L, buf, lab);
		TEST_CHECK(t, n1 == 4 && n2 == 1 && lab[0] == 2, "val batches %d %d label %d", n1, n2, lab[0]);
		void *d;
		int *lb;
		TEST_CHECK(t, ex_data_loader_wait(L, &d, &lb) == ERR_INPUT, "wait with nothing submitted");
		ex_data_loader_free(L);
		free(buf);
	}

	/* errors: folder without images, missing folder, bad settings */
	char *empty = xasprintf("%s/empty", tmpdir);
	c.dir = empty;
	c.split = "train";
	int rc = ex_data_loader_new(&L, &c);
	TEST_CHECK(t, rc == ERR_INPUT && L == NULL && strstr(err_msg(), "no .jpg/.jpeg images") &&
			      strstr(err_msg(), "empty/train"), "empty folder: %s", err_msg());
	c.split = "nosuchsplit";
	rc = ex_data_loader_new(&L, &c);
	TEST_CHECK(t, rc == ERR_INPUT && strstr(err_msg(), "nosuchsplit"), "missing folder: %s", err_msg());
	c.dir = dir;
	c.split = "train";
	c.train = true;
	c.batch = 100;
	rc = ex_data_loader_new(&L, &c);
	TEST_CHECK(t, rc == ERR_INPUT && strstr(err_msg(), "fewer than one batch"), "batch too big: %s", err_msg());
	c.batch = 4;
	c.threads = 0;
	TEST_CHECK(t, ex_data_loader_new(&L, &c) == ERR_INPUT, "0 threads");
	free(empty);
	free(dir);
	ex_data_loader_free(NULL);
}

/* The header parser: sizes and layouts of real JPEGs, and each defect named. */
static void test_header(test_ctx *t)
{
	unsigned long len;
	unsigned char *j = make_jpeg(97, 61, 10, 200, 30, false, false, &len);
	ex_jpeg_hdr h;
	int rc = ex_jpeg_header(j, len, &h);
	TEST_CHECK(t, rc == 0 && h.width == 97 && h.height == 61 && h.components == 3 && h.sof == 0xc0, "colour: %d %dx%d",
		   rc, h.width, h.height);
	TEST_CHECK(t, h.hsamp[0] == 2 && h.vsamp[0] == 2 && h.hsamp[1] == 1 && h.hw_ok && h.has_eoi, "4:2:0 baseline");
	TEST_CHECK(t, h.scan_B > 100 && h.scan_B < len, "scan at %zu of %lu", h.scan_B, len);
	/* truncated inside the entropy-coded data: the header still reads, the end marker is gone */
	rc = ex_jpeg_header(j, h.scan_B + (len - h.scan_B) / 2, &h);
	TEST_CHECK(t, rc == 0 && !h.has_eoi, "truncated: rc %d eoi %d", rc, h.has_eoi);
	/* cut inside the header */
	rc = ex_jpeg_header(j, 40, &h);
	TEST_CHECK(t, rc == ERR_INPUT && strstr(err_msg(), "corrupt JPEG"), "header cut: %s", err_msg());
	TEST_CHECK(t, ex_jpeg_header(j, 0, &h) == ERR_INPUT && strstr(err_msg(), "empty"), "empty");
	TEST_CHECK(t, ex_jpeg_header((const unsigned char *)"GIF89a..", 8, &h) == ERR_INPUT &&
			      strstr(err_msg(), "not a JPEG"), "GIF: %s", err_msg());
	/* a segment length running past the end */
	unsigned char *c = xmalloc(len);
	memcpy(c, j, len);
	c[4] = 0xff, c[5] = 0xf0;
	rc = ex_jpeg_header(c, len, &h);
	TEST_CHECK(t, rc == ERR_INPUT && strstr(err_msg(), "claims"), "long segment: %s", err_msg());
	/* width 0 in the frame header */
	memcpy(c, j, len);
	for (size_t i = 2; i + 8 < len; i++)
		if (c[i] == 0xff && c[i + 1] == 0xc0) {
			c[i + 7] = 0, c[i + 8] = 0;
			break;
		}
	rc = ex_jpeg_header(c, len, &h);
	TEST_CHECK(t, rc == ERR_INPUT && strstr(err_msg(), "frame of 0x61"),
		   "width 0: %s", err_msg());
	free(c);
	free(j);
	j = make_jpeg(40, 30, 128, 128, 128, false, true, &len);
	rc = ex_jpeg_header(j, len, &h);
	TEST_CHECK(t, rc == 0 && h.components == 1 && h.hw_ok && h.width == 40, "grey: %d comps %d", rc, h.components);
	free(j);
	/* progressive: not for the hardware decoder */
	tjhandle tj = tjInitCompress();
	unsigned char img[16 * 16 * 3] = {0}, *out = NULL;
	unsigned long olen = 0;
	tjCompress2(tj, img, 16, 0, 16, TJPF_RGB, &out, &olen, TJSAMP_444, 90, TJFLAG_PROGRESSIVE);
	rc = ex_jpeg_header(out, olen, &h);
	TEST_CHECK(t, rc == 0 && h.sof == 0xc2 && !h.hw_ok && h.hsamp[0] == 1, "progressive 4:4:4: sof %X", h.sof);
	tjFree(out);
	tjDestroy(tj);
}

/* raw mode: bytes, sizes and crops of every image, bad files skipped and named, the same crops as the CPU
 * decoder draws for the same seed. */
static void test_raw(test_ctx *t)
{
	ex_data_config c;
	char *dir = xasprintf("%s/ds", tmpdir);
	small_loader(&c, dir);
	c.raw = true;
	c.quiet = getenv("DATA_VERBOSE") == NULL;
	ex_data_loader *l;
	TEST_CHECK(t, ex_data_loader_new(&l, &c) == 0, "raw loader: %s", err_msg());
	if (!l)
		return;
	ex_data_raw *r[2] = {ex_data_raw_new(4), ex_data_raw_new(4)};
	int lab[2][4], bad_img = 0, crops_bad = 0;
	for (int k = 0; k < 2; k++)
		ex_data_loader_submit(l, r[k], lab[k]);
	for (int b = 0; b < 16; b++) {
		void *d;
		int *lb;
		int n = ex_data_loader_wait(l, &d, &lb);
		TEST_CHECK(t, n == 4, "raw batch %d: %d", b, n);
		ex_data_raw *rb = d;
		for (int i = 0; i < n && n > 0; i++) {
			ex_data_raw_img *im = &rb->img[i];
			/* class c's images are 96 + 16c wide, 80 high */
			if (im->width != 96 + 16 * lb[i] || im->height != 80 || im->len_B < 200 || im->data[0] != 0xff)
				bad_img++;
			if (!(im->crop[0] >= 0 && im->crop[1] >= 0 && im->crop[2] >= 1 && im->crop[3] >= 1 &&
			      im->crop[0] + im->crop[2] <= im->width + 0.01f && im->crop[1] + im->crop[3] <= im->height + 0.01f))
				crops_bad++;
			const char *f = ex_data_loader_file(l, im->file);
			if (!f || (lb[i] == 0 && strncmp(f, "a_red/", 6)))
				bad_img++;
		}
		ex_data_loader_submit(l, d, lb);
	}
	TEST_CHECK(t, bad_img == 0 && crops_bad == 0, "%d images with wrong size/bytes/file, %d crops out of range",
		   bad_img, crops_bad);
	ex_data_stats st;
	ex_data_loader_stats(l, &st);
	TEST_CHECK(t, st.bad == 2 && st.files == 32, "raw: truncated + dangling link bad: %ld", st.bad);
	bool trunc_named = false;
	for (long i = 0;; i++) {
		const char *why, *p = ex_data_loader_bad_file(l, i, &why);
		if (!p)
			break;
		if (strstr(p, "truncated.JPEG") && (strstr(why, "truncated JPEG") || strstr(why, "corrupt JPEG")))
			trunc_named = true;
	}
	TEST_CHECK(t, trunc_named, "truncated file named with its reason");
	/* the GPU reports a file it could not decode: counted once, named, never delivered again */
	TEST_CHECK(t, ex_data_loader_mark_bad(l, 0, "nvJPEG: bad bitstream") == 0, "mark bad");
	ex_data_loader_mark_bad(l, 0, "again");
	ex_data_loader_stats(l, &st);
	TEST_CHECK(t, st.bad == 3, "marked bad counted once: %ld", st.bad);
	TEST_CHECK(t, ex_data_loader_mark_bad(l, 999, "x") == ERR_INPUT, "index out of range");
	/* the stall report's line: the two buffers handed back are in flight, 16 batches delivered */
	char line[512];
	ex_data_loader_describe(l, line, sizeof(line));
	TEST_CHECK(t, strstr(line, "2 batches in flight, 16 delivered") && strstr(line, "of 4 images handed to the 2 reader"),
		   "describe: %s", line);
	ex_data_loader_free(l);
	ex_data_raw_free(r[0]);
	ex_data_raw_free(r[1]);

	/* the crop the raw path draws equals the CPU decoder's for the same random state */
	ex_jpeg_aug a;
	ex_jpeg_aug_init(&a, true);
	a.out_hw = 32;
	ex_jpeg_ctx *jc = ex_jpeg_ctx_new();
	unsigned long len;
	unsigned char *j = make_jpeg(120, 90, 50, 60, 70, false, false, &len);
	float *out = xmalloc(32 * 32 * 3 * 4);
	int same = 0;
	for (int k = 0; k < 20; k++) {
		uint64_t r1 = 1000 + k, r2 = 1000 + k;
		ex_jpeg_info info;
		double cx, cy, cw, ch;
		bool flip;
		ex_jpeg_decode_aug(jc, j, len, &a, &r1, out, &info);
		ex_jpeg_crop(120, 90, &a, &r2, &cx, &cy, &cw, &ch, &flip);
		same += info.crop_x == (int)cx && info.crop_w == (int)cw && info.crop_h == (int)ch && info.flipped == flip;
	}
	TEST_CHECK(t, same == 20, "CPU and raw crops agree in %d of 20", same);
	free(out);
	free(j);
	ex_jpeg_ctx_free(jc);
	free(dir);
}

/* A FIFO named .JPEG (no writer) is skipped as not a regular file; it once blocked its reader thread's open()
 * for ever. alarm: should that come back, the test ends (SIGALRM) instead of waiting. */
static void test_fifo(test_ctx *t)
{
	mkdirs("fifo");
	mkdirs("fifo/train");
	mkdirs("fifo/train/x");
	unsigned long len;
	unsigned char *j = make_jpeg(64, 48, 200, 10, 10, false, false, &len);
	write_file("fifo/train/x/good.JPEG", j, len);
	free(j);
	char *fifo = xasprintf("%s/fifo/train/x/stuck.JPEG", tmpdir);
	TEST_CHECK(t, mkfifo(fifo, 0644) == 0, "mkfifo %s", fifo);
	free(fifo);
	ex_data_config c;
	char *dir = xasprintf("%s/fifo", tmpdir);
	small_loader(&c, dir);
	c.batch = 2;
	c.threads = 1;
	c.quiet = getenv("DATA_VERBOSE") == NULL;
	for (int raw = 0; raw < 2; raw++) {
		c.raw = raw;
		ex_data_loader *l;
		TEST_CHECK(t, ex_data_loader_new(&l, &c) == 0, "fifo folder: %s", err_msg());
		if (!l)
			continue;
		alarm(60);
		ex_data_raw *r = ex_data_raw_new(2);
		void *buf = raw ? (void *)r : xmalloc(2 * ex_data_loader_image_bytes(l));
		int lab[2];
		int n = ex_data_loader_next(l, buf, lab);
		alarm(0);
		const char *why = NULL, *p = ex_data_loader_bad_file(l, 0, &why);
		TEST_CHECK(t, n == 2 && p && strstr(p, "stuck.JPEG") && strstr(why, "not a regular file"),
			   "raw %d: %d images, bad %s (%s)", raw, n, p ? p : "none", why ? why : "");
		ex_data_loader_free(l);
		if (!raw)
			free(buf);
		ex_data_raw_free(r);
	}
	free(dir);
}

/* The GPU path's CPU share: ex_jpeg_decode_at (uint8, the crop as drawn) gives the pixels ex_jpeg_decode_aug
 * normalises for the same crop; a raw loader told to decode n images a batch hands over exactly those decoded. */
static void test_cpu_share(test_ctx *t)
{
	ex_jpeg_aug a, a8;
	ex_jpeg_aug_init(&a, true);
	a.out_hw = 32;
	a8 = a;
	a8.dtype = EX_DATA_U8;
	TEST_CHECK(t, ex_jpeg_image_bytes(&a8) == 32 * 32 * 3, "uint8 image bytes %zu", ex_jpeg_image_bytes(&a8));
	ex_jpeg_ctx *jc = ex_jpeg_ctx_new();
	unsigned long len;
	unsigned char *j = make_jpeg(120, 90, 50, 60, 70, true, false, &len);
	float *ref = xmalloc(32 * 32 * 3 * sizeof(float));
	unsigned char *u8 = xmalloc(32 * 32 * 3);
	double worst = 0;
	for (int k = 0; k < 20; k++) {
		uint64_t r1 = 500 + k, r2 = 500 + k;
		double cx, cy, cw, ch;
		bool flip;
		ex_jpeg_crop(120, 90, &a, &r2, &cx, &cy, &cw, &ch, &flip);
		float crop[4] = {(float)cx, (float)cy, (float)cw, (float)ch};
		TEST_CHECK(t, ex_jpeg_decode_aug(jc, j, len, &a, &r1, ref, NULL) == 0, "decode_aug: %s", err_msg());
		TEST_CHECK(t, ex_jpeg_decode_at(jc, j, len, &a8, crop, flip, u8) == 0, "decode_at: %s", err_msg());
		for (int p = 0; p < 32 * 32 * 3; p++) {
			int q = p % 3;
			double v = (ref[p] * a.std[q] + a.mean[q]) * 255.0, d = fabs(v - u8[p]);
			worst = d > worst ? d : worst;
		}
	}
	TEST_CHECK(t, worst <= 0.51, "uint8 pixels within rounding of the normalised ones: worst %.3f", worst);
	float outside[4] = {100, 10, 40, 40};
	TEST_CHECK(t, ex_jpeg_decode_at(jc, j, len, &a8, outside, false, u8) == ERR_INPUT, "a crop outside is refused");
	TEST_CHECK(t, ex_jpeg_decode_at(jc, j, 10, &a8, outside, false, u8) == ERR_INPUT, "a truncated file is refused");
	free(ref);
	free(u8);
	free(j);
	ex_jpeg_ctx_free(jc);

	ex_data_config c;
	char *dir = xasprintf("%s/ds", tmpdir);
	small_loader(&c, dir);
	c.raw = true;
	c.quiet = true;
	ex_data_loader *l;
	TEST_CHECK(t, ex_data_loader_new(&l, &c) == 0, "raw loader: %s", err_msg());
	if (!l) {
		free(dir);
		return;
	}
	ex_data_loader_set_cpu_decode(l, 2);
	ex_data_raw *r[2] = {ex_data_raw_new(4), ex_data_raw_new(4)};
	int lab[2][4], wrong = 0, dark = 0;
	for (int k = 0; k < 2; k++)
		ex_data_loader_submit(l, r[k], lab[k]);
	for (int b = 0; b < 12; b++) {
		void *d;
		int *lb;
		if (ex_data_loader_wait(l, &d, &lb) != 4)
			break;
		ex_data_raw *rb = d;
		for (int i = 0; i < 4; i++) {
			wrong += rb->img[i].cpu != (i < 2) || (rb->img[i].cpu && !rb->img[i].pix);
			if (rb->img[i].cpu) { /* the test images are flat colours, none black */
				long sum = 0;
				for (int p = 0; p < 32 * 32 * 3; p++)
					sum += rb->img[i].pix[p];
				dark += sum < 32 * 32 * 3 * 8;
			}
		}
		ex_data_loader_submit(l, d, lb);
	}
	TEST_CHECK(t, wrong == 0 && dark == 0, "images 0-1 decoded by the readers, 2-3 left raw: %d wrong, %d black",
		   wrong, dark);
	ex_data_stats st;
	ex_data_loader_stats(l, &st);
	TEST_CHECK(t, st.bad == 2, "bad files still found and counted with a CPU share: %ld", st.bad);
	ex_data_loader_free(l);
	ex_data_raw_free(r[0]);
	ex_data_raw_free(r[1]);
	free(dir);
}

int main(void)
{
	test_ctx t = {0};
	snprintf(tmpdir, sizeof tmpdir, "/tmp/scaleplan-test-jpeg-XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	test_convert(&t);
	test_decode(&t);
	test_rrc(&t);
	test_roi(&t);
	test_header(&t);
	test_loader(&t);
	test_raw(&t);
	test_cpu_share(&t);
	test_fifo(&t);
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	free(cmd);
	return test_report(&t);
}
