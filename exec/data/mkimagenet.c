/* An ImageNet-like JPEG folder for benchmarks: DIR/train/<class>/<name>.JPEG and DIR/val/...,
 * 1,000 classes, photograph-like content, sizes and file sizes near ImageNet's training set, so that a
 * decoder is measured on the work real photos give it without downloading ImageNet.
 *
 * Sizes: ILSVRC2012's training images were mostly scaled so that the longer side is 500 px (most are
 * 500x375 or 500x333); a minority is smaller and a few are larger. Drawn here: longer side 500 px for
 * 45%, uniform 200-500 for 45%, uniform 500-800 for 10%; aspect 4:3 (55%), 3:2 (25%), 5:4 (10%), 1:1 (5%),
 * 16:9 (5%); landscape 3 in 4. Expected mean about 419 x 364 px, next to the ~400 x 350 often
 * given as ImageNet's average. File size: ILSVRC2012_img_train.tar is 138 GiB for 1,281,167 images, ~110 KB a file
 * (image-net.org's download page); quality 97 4:2:0 and the texture amplitude below give about that
 * (the generated folder's means are printed; bench/NOTES.md records them).
 * Content: a sky-to-ground gradient split at a horizon, textured by 1/f ("fractal") value noise,
 * with 3-8 shaded objects (ellipses and boxes with soft edges and their own texture) and faint
 * sensor grain: smooth regions, edges and fine detail as in photos, so the entropy-coded data and the
 * decoder's work per pixel resemble a photo's; white noise would make files 3x larger and slower to
 * decode, flat colours 10x smaller. The class picks the palette and the objects' shapes (a network can
 * learn it, as with real classes), the image's own seed the rest.
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <turbojpeg.h>

#include "common/common.h"
#include "exec/data/ex_data.h"

/* Texture and grain chosen so that quality 97 gives ~104 KB per 429 x 373 image (40 images, this VM):
 * each octave of the value noise at 0.8 of the one above (between 1/f, 0.5, and white, 1.0), the objects'
 * texture at 1.2 of that noise, grain of +-7 levels (a high-ISO photo's). */
#define FBM_GAIN 0.8f
#define GRAIN 14.0f
#define TEX 1.2f

void ex_mkin_config_init(ex_mkin_config *c)
{
	memset(c, 0, sizeof(*c));
	c->train = 8704;
	c->val = -1;
	c->classes = 1000;
	c->quality = 97;
	c->threads = 4;
	c->seed = 1;
}

static double unit(uint64_t *s) { return (double)(ex_data_rand(s) >> 11) / 9007199254740992.0; }

/* Image size of image `seed`: see the header for the distribution. */
void ex_mkin_size(uint64_t seed, int *w, int *h)
{
	static const double ar[5] = {4.0 / 3, 3.0 / 2, 5.0 / 4, 1.0, 16.0 / 9};
	static const double arp[5] = {0.55, 0.25, 0.10, 0.05, 0.05};
	uint64_t s = seed ^ 0x51ce5eedULL;
	double u = unit(&s), longer;
	if (u < 0.45)
		longer = 500;
	else if (u < 0.90)
		longer = 200 + 300 * unit(&s);
	else
		longer = 500 + 300 * unit(&s);
	double a = unit(&s), ratio = ar[4];
	for (int k = 0; k < 5; k++) {
		if (a < arp[k]) {
			ratio = ar[k];
			break;
		}
		a -= arp[k];
	}
	int L = (int)lround(longer), S = (int)lround(longer / ratio);
	if (unit(&s) < 0.75)
		*w = L, *h = S;
	else
		*w = S, *h = L;
}

/* Value noise on an integer lattice, smoothstep-interpolated, in [-1, 1]. */
static float lattice(uint64_t seed, int x, int y)
{
	uint64_t s = seed ^ ((uint64_t)(uint32_t)x * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)(uint32_t)y * 0xc2b2ae3d27d4eb4fULL);
	return (float)(ex_data_rand(&s) >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

static float vnoise(uint64_t seed, float x, float y)
{
	int x0 = (int)floorf(x), y0 = (int)floorf(y);
	float fx = x - x0, fy = y - y0;
	fx = fx * fx * (3 - 2 * fx);
	fy = fy * fy * (3 - 2 * fy);
	float a = lattice(seed, x0, y0), b = lattice(seed, x0 + 1, y0);
	float c = lattice(seed, x0, y0 + 1), d = lattice(seed, x0 + 1, y0 + 1);
	return a + (b - a) * fx + (c - a) * fy + (a - b - c + d) * fx * fy;
}

/* Octaves of 1/f noise from `period` pixels down to about 2. */
static float fbm(uint64_t seed, float x, float y, float period)
{
	float v = 0, amp = 0.5f, f = 1.0f / period;
	for (int o = 0; o < 8 && f < 0.5f; o++, amp *= FBM_GAIN, f *= 2.0f)
		v += amp * vnoise(seed + (uint64_t)o * 7919, x * f, y * f);
	return v;
}

typedef struct obj {
	int kind;                  /* 0 ellipse, 1 box */
	float cx, cy, rx, ry;
	float col[3], shade;       /* colour and how much it darkens across the object */
} obj;

typedef struct scene {
	float sky[3], ground[3];
	float horizon;
	int nobj;
	obj o[8];
	uint64_t seed;
} scene;

static void palette(int cls, int k, uint64_t *s, float *rgb)
{
	/* the class's base hue (golden-ratio steps around the wheel) with a per-object variation */
	double hue = fmod(cls * 0.6180339887 + 0.15 * k + 0.1 * unit(s), 1.0) * 6.0;
	double sat = 0.35 + 0.5 * unit(s), val = 0.35 + 0.6 * unit(s);
	int i = (int)hue;
	double f = hue - i, p = val * (1 - sat), q = val * (1 - sat * f), t = val * (1 - sat * (1 - f));
	double r[6] = {val, q, p, p, t, val}, g[6] = {t, val, val, q, p, p}, b[6] = {p, p, t, val, val, q};
	rgb[0] = (float)(255 * r[i % 6]);
	rgb[1] = (float)(255 * g[i % 6]);
	rgb[2] = (float)(255 * b[i % 6]);
}

static void make_scene(scene *sc, int cls, uint64_t seed, int w, int h)
{
	uint64_t s = seed;
	sc->seed = seed;
	palette(cls, 0, &s, sc->sky);
	palette(cls + 500, 1, &s, sc->ground);
	for (int c = 0; c < 3; c++) /* skies are lighter */
		sc->sky[c] = 0.5f * sc->sky[c] + 0.5f * 230;
	sc->horizon = (float)(h * (0.3 + 0.4 * unit(&s)));
	sc->nobj = 3 + (int)(ex_data_rand(&s) % 6);
	for (int k = 0; k < sc->nobj; k++) {
		obj *o = &sc->o[k];
		o->kind = (int)((ex_data_rand(&s) + (uint64_t)cls) % 3 == 0); /* the class sets the mix of shapes */
		o->cx = (float)(w * unit(&s));
		o->cy = (float)(h * (0.2 + 0.8 * unit(&s)));
		o->rx = (float)(w * (0.05 + 0.25 * unit(&s)));
		o->ry = (float)(h * (0.05 + 0.25 * unit(&s)));
		palette(cls, k + 2, &s, o->col);
		o->shade = (float)(0.2 + 0.5 * unit(&s));
	}
}

/* Colour of pixel (x, y). */
static void shade_px(const scene *sc, int x, int y, float *rgb)
{
	float t = fbm(sc->seed, (float)x, (float)y, 96.0f);
	bool above = y < sc->horizon + 12.0f * fbm(sc->seed + 3, (float)x, 0, 64.0f);
	const float *base = above ? sc->sky : sc->ground;
	float k = above ? 1.0f + 0.25f * t : 1.0f + 0.6f * t;
	for (int c = 0; c < 3; c++)
		rgb[c] = base[c] * k;
	for (int i = 0; i < sc->nobj; i++) {
		const obj *o = &sc->o[i];
		float dx = (x - o->cx) / o->rx, dy = (y - o->cy) / o->ry;
		float d = o->kind ? fmaxf(fabsf(dx), fabsf(dy)) : sqrtf(dx * dx + dy * dy);
		float edge = (1.0f - d) * fminf(o->rx, o->ry); /* distance inside the edge, in pixels */
		if (edge <= -1.0f)
			continue;
		float a = edge >= 1.0f ? 1.0f : 0.5f * (edge + 1.0f); /* 2 px soft edge */
		float tex = 1.0f + TEX * fbm(sc->seed + 101 + (uint64_t)i, (float)x, (float)y, 24.0f);
		float lit = 1.0f - o->shade * 0.5f * (dx + dy + 2.0f) * 0.5f;
		for (int c = 0; c < 3; c++)
			rgb[c] = rgb[c] * (1 - a) + a * o->col[c] * tex * lit;
	}
}

static void render(int cls, uint64_t seed, int w, int h, unsigned char *rgb)
{
	scene sc;
	make_scene(&sc, cls, seed, w, h);
	uint64_t grain = seed ^ 0x6a09e667f3bcc909ULL;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			float px[3];
			shade_px(&sc, x, y, px);
			float g = (float)(unit(&grain) - 0.5) * GRAIN; /* sensor grain */
			for (int c = 0; c < 3; c++) {
				float v = px[c] + g;
				rgb[((size_t)y * w + x) * 3 + c] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5f);
			}
		}
}

typedef struct mk_job {
	const ex_mkin_config *c;
	long next, total;
	int err;
	char msg[512];
	ex_mkin_stats st;
	pthread_mutex_t mu;
} mk_job;

static void class_name(int cls, char *buf, size_t n) { snprintf(buf, n, "n%08d", cls); }

/* Image i: train for i < train, val after. */
static int make_one(const ex_mkin_config *c, long i, tjhandle tj, unsigned char **rgb, size_t *cap, double *bytes,
		    int *wo, int *ho)
{
	bool val = i >= c->train;
	long j = val ? i - c->train : i;
	int cls = (int)(j % c->classes), w, h;
	uint64_t seed = c->seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i * 0xd1342543de82ef95ULL + 1;
	ex_mkin_size(seed, &w, &h);
	size_t need = (size_t)w * h * 3;
	if (need > *cap) {
		free(*rgb);
		*rgb = xmalloc(need);
		*cap = need;
	}
	render(cls, seed, w, h, *rgb);
	unsigned char *jpg = NULL;
	unsigned long len = 0;
	if (tjCompress2(tj, *rgb, w, 0, h, TJPF_RGB, &jpg, &len, TJSAMP_420, c->quality, 0) < 0)
		return err_set("JPEG compression failed: %s", tjGetErrorStr2(tj));
	char cn[32];
	class_name(cls, cn, sizeof(cn));
	char *path = xasprintf("%s/%s/%s/%s_%ld.JPEG", c->dir, val ? "val" : "train", cn, cn, j);
	int rc = file_write_atomic(path, jpg, len);
	free(path);
	tjFree(jpg);
	*bytes = (double)len;
	*wo = w;
	*ho = h;
	return rc;
}

static void *mk_worker(void *arg)
{
	mk_job *jb = arg;
	tjhandle tj = tjInitCompress();
	unsigned char *rgb = NULL;
	size_t cap = 0;
	for (;;) {
		pthread_mutex_lock(&jb->mu);
		long i = jb->err ? jb->total : jb->next++;
		pthread_mutex_unlock(&jb->mu);
		if (i >= jb->total)
			break;
		double b = 0;
		int w = 0, h = 0;
		int rc = tj ? make_one(jb->c, i, tj, &rgb, &cap, &b, &w, &h) : err_set("TurboJPEG could not start");
		pthread_mutex_lock(&jb->mu);
		if (rc < 0 && !jb->err) {
			jb->err = rc;
			snprintf(jb->msg, sizeof(jb->msg), "%s", err_msg());
		} else if (rc == 0) {
			jb->st.images++;
			jb->st.bytes += b;
			jb->st.sum_w += w;
			jb->st.sum_h += h;
		}
		pthread_mutex_unlock(&jb->mu);
	}
	free(rgb);
	if (tj)
		tjDestroy(tj);
	return NULL;
}

static int mkdir_ok(const char *p)
{
	if (mkdir(p, 0777) < 0 && errno != EEXIST)
		return err_set("%s: cannot create folder: %s", p, strerror(errno));
	return 0;
}

static int make_dirs(const ex_mkin_config *c)
{
	const char *splits[2] = {"train", "val"};
	if (mkdir_ok(c->dir) < 0)
		return ERR_INPUT;
	for (int s = 0; s < 2; s++) {
		char *p = xasprintf("%s/%s", c->dir, splits[s]);
		int rc = mkdir_ok(p);
		free(p);
		for (int k = 0; rc == 0 && k < c->classes; k++) {
			char cn[32];
			class_name(k, cn, sizeof(cn));
			p = xasprintf("%s/%s/%s", c->dir, splits[s], cn);
			rc = mkdir_ok(p);
			free(p);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

int ex_make_imagenet_like(const ex_mkin_config *c, ex_mkin_stats *st)
{
	memset(st, 0, sizeof(*st));
	long val = c->val >= 0 ? c->val : c->train / 10;
	if (!c->dir || c->train < 1 || c->classes < 1 || c->classes > 100000 || c->quality < 1 || c->quality > 100 ||
	    c->threads < 1 || c->threads > 1024)
		return err_set("make-jpeg-folder: expected a folder, --images >= 1, 1..100000 classes, quality 1..100, "
			       "1..1024 threads (got %ld images, %d classes, quality %d, %d threads)", c->train, c->classes,
			       c->quality, c->threads);
	if (make_dirs(c) < 0)
		return ERR_INPUT;
	ex_mkin_config cc = *c;
	cc.val = val;
	mk_job jb = {.c = &cc, .total = c->train + val};
	pthread_mutex_init(&jb.mu, NULL);
	pthread_t *t = xcalloc((size_t)c->threads, sizeof(*t));
	int started = 0;
	for (int i = 0; i < c->threads; i++)
		if (pthread_create(&t[i], NULL, mk_worker, &jb) == 0)
			started++;
	if (started == 0)
		mk_worker(&jb);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
	pthread_mutex_destroy(&jb.mu);
	*st = jb.st;
	if (jb.err)
		return err_set("%s", jb.msg);
	return 0;
}
