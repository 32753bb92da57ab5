/* JPEG decode (libjpeg-turbo, DCT scaling) + torchvision-style augmentation into normalised NHWC.
 *
 * Decode cost is cut in two places: the DCT scaling factor (libjpeg-turbo decodes at num/8 of full
 * size) is the smallest one that keeps the crop at least out_hw pixels on both sides, so the
 * resampler only ever shrinks by less than the next factor step or enlarges a crop that was smaller
 * than out_hw anyway; and the resampler only touches the rows of the crop.
 * The resampler is separable with a triangle (bilinear) kernel widened by the shrink factor - what
 * PIL's and torchvision's antialiased bilinear resize do (Pillow libImaging/Resample.c).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "exec/data/ex_data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE */
#include <turbojpeg.h>
#include <jpeglib.h>
#include <jerror.h>

#include "common/common.h"

typedef float v4 __attribute__((vector_size(16)));     /* one RGBX pixel */
typedef uint32_t v4i __attribute__((vector_size(16)));
typedef uint16_t v8s __attribute__((vector_size(16)));
typedef uint16_t v4s __attribute__((vector_size(8)));

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__) /* ifunc resolvers run before the sanitizer runtime starts */
#define EX_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define EX_CLONES
#endif

/* libjpeg error handling: errors jump back to decode_roi; warnings are counted, a premature end noted. */
typedef struct roi_err {
	struct jpeg_error_mgr pub;
	jmp_buf jb;
	bool eof;
	char msg[JMSG_LENGTH_MAX];
} roi_err;

struct ex_jpeg_ctx {
	tjhandle tj;
	unsigned char *dec;    /* [dec_h][dec_w][4] decoded pixels, RGBX (or CMYK until converted) */
	size_t dec_cap_B;
	float *tmp;            /* vertical-pass row [crop cols][4] then horizontal-pass row [out_hw][4] */
	size_t tmp_cap;
	int *xi0, *xn;         /* [out_hw] first tap and tap count, horizontal */
	float *xw;             /* [out_hw][max taps] */
	int *yi0, *yn;
	float *yw;
	size_t tap_cap;
	int axis_cap;
	struct jpeg_decompress_struct jd;  /* libjpeg API, for region decoding */
	roi_err je;
	struct jpeg_progress_mgr jprog;
	bool jd_ready;
};

uint64_t ex_data_rand(uint64_t *state)
{
	/* splitmix64 (Steele, Lea, Flood 2014; public-domain reference by Vigna) */
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform double in [0, 1) with 53 random bits. */
static double rand_unit(uint64_t *s)
{
	return (double)(ex_data_rand(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform integer in [lo, hi] (hi >= lo). */
static int rand_int(uint64_t *s, int lo, int hi)
{
	return lo + (int)(ex_data_rand(s) % (uint64_t)(hi - lo + 1));
}

uint16_t ex_data_f32_to_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40); /* quiet NaN */
	u += 0x7fffu + ((u >> 16) & 1); /* round to nearest even */
	return (uint16_t)(u >> 16);
}

float ex_data_bf16_to_f32(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

uint16_t ex_data_f32_to_f16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
	uint32_t a = u & 0x7fffffffu;
	if (a > 0x7f800000u)
		return sign | 0x7e00; /* NaN */
	if (a >= 0x477ff000u)        /* >= 65520 rounds to inf */
		return sign | 0x7c00;
	if (a < 0x38800000u) {       /* below 2^-14: subnormal half (or zero) */
		if (a < 0x33000000u) /* below 2^-25: rounds to 0 */
			return sign;
		uint32_t mant = (a & 0x7fffff) | 0x800000;
		/* value = mant * 2^(e-150) and the half subnormal unit is 2^-24, so q = mant >> (126 - e) */
		int shift = 126 - (int)(a >> 23);
		uint32_t q = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rem > half || (rem == half && (q & 1)))
			q++;
		return sign | (uint16_t)q;
	}
	uint32_t r = a + 0x0fffu + ((a >> 13) & 1) - 0x38000000u; /* rebias 127 -> 15, round to nearest even */
	return sign | (uint16_t)(r >> 13);
}

float ex_data_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, u;
	if (e == 0) {
		float f = (float)m * (1.0f / 16777216.0f);
		return sign ? -f : f;
	}
	if (e == 31)
		u = sign | 0x7f800000u | (m << 13);
	else
		u = sign | ((e + 112) << 23) | (m << 13);
	float f;
	memcpy(&f, &u, 4);
	return f;
}

void ex_jpeg_aug_init(ex_jpeg_aug *a, bool train)
{
	static const float mean[3] = {0.485f, 0.456f, 0.406f}, std[3] = {0.229f, 0.224f, 0.225f};
	memset(a, 0, sizeof *a);
	a->train = train;
	a->out_hw = 224;
	a->resize_hw = 256;
	a->scale_min = 0.08f;
	a->scale_max = 1.0f;
	a->ratio_min = 3.0f / 4.0f;
	a->ratio_max = 4.0f / 3.0f;
	memcpy(a->mean, mean, sizeof mean);
	memcpy(a->std, std, sizeof std);
	a->dtype = EX_DATA_F32;
}

size_t ex_jpeg_image_bytes(const ex_jpeg_aug *a)
{
	size_t per = a->dtype == EX_DATA_F32 ? 4 : a->dtype == EX_DATA_U8 ? 1 : 2;
	return (size_t)a->out_hw * a->out_hw * 3 * per;
}

ex_jpeg_ctx *ex_jpeg_ctx_new(void)
{
	tjhandle tj = tjInitDecompress();
	if (!tj) {
		err_set("TurboJPEG: tjInitDecompress failed: %s", tjGetErrorStr2(NULL));
		return NULL;
	}
	ex_jpeg_ctx *c = xcalloc(1, sizeof *c);
	c->tj = tj;
	return c;
}

void ex_jpeg_ctx_free(ex_jpeg_ctx *c)
{
	if (!c)
		return;
	tjDestroy(c->tj);
	if (c->jd_ready)
		jpeg_destroy_decompress(&c->jd);
	free(c->dec);
	free(c->tmp);
	free(c->xi0);
	free(c->xn);
	free(c->xw);
	free(c->yi0);
	free(c->yn);
	free(c->yw);
	free(c);
}

/* torchvision.transforms.RandomResizedCrop.get_params (v0.15+): 10 tries of a random area and
 * log-uniform aspect ratio, then a centre crop clamped to the ratio range. */
void ex_jpeg_rrc_params(int width, int height, const ex_jpeg_aug *a, uint64_t *rng, int *x, int *y, int *w,
			int *h)
{
	double area = (double)width * height;
	double lr0 = log(a->ratio_min), lr1 = log(a->ratio_max);
	for (int t = 0; t < 10; t++) {
		double target = area * (a->scale_min + (a->scale_max - a->scale_min) * rand_unit(rng));
		double ar = exp(lr0 + (lr1 - lr0) * rand_unit(rng));
		int cw = (int)lround(sqrt(target * ar)), ch = (int)lround(sqrt(target / ar));
		if (cw > 0 && cw <= width && ch > 0 && ch <= height) {
			*y = rand_int(rng, 0, height - ch);
			*x = rand_int(rng, 0, width - cw);
			*w = cw;
			*h = ch;
			return;
		}
	}
	double in_ratio = (double)width / height;
	int cw = width, ch = height;
	if (in_ratio < a->ratio_min) {
		ch = (int)lround(cw / a->ratio_min);
	} else if (in_ratio > a->ratio_max) {
		cw = (int)lround(ch * a->ratio_max);
	}
	if (cw < 1)
		cw = 1;
	if (ch < 1)
		ch = 1;
	*w = cw;
	*h = ch;
	*x = (width - cw) / 2;
	*y = (height - ch) / 2;
}

/* Triangle-filter taps for resampling [x0, x0 + len) of an axis of n pixels onto `out` pixels
 * (Pillow's precompute_coeffs with the bilinear filter). Returns the largest tap count. */
static int make_taps(double x0, double len, int n, int out, int *i0, int *cnt, float *w, int maxtaps)
{
	double scale = len / out, support = scale > 1.0 ? scale : 1.0;
	int most = 0;
	for (int o = 0; o < out; o++) {
		double centre = x0 + (o + 0.5) * scale;
		int lo = (int)floor(centre - support), hi = (int)ceil(centre + support);
		if (hi - lo > maxtaps)
			hi = lo + maxtaps;
		double sum = 0;
		int k = 0;
		float *wo = w + (size_t)o * maxtaps;
		for (int j = lo; j < hi; j++) {
			double d = fabs((j + 0.5 - centre) / support);
			double v = d < 1.0 ? 1.0 - d : 0.0;
			wo[k++] = (float)v;
			sum += v;
		}
		/* clamp to the image by folding out-of-range taps onto the edge pixel */
		int first = lo < 0 ? 0 : lo, last = hi - 1 >= n ? n - 1 : hi - 1;
		if (first > last)
			first = last = lo < 0 ? 0 : n - 1;
		float folded[1024];
		int nf = last - first + 1;
		if (nf > maxtaps)
			nf = maxtaps;
		for (int q = 0; q < nf; q++)
			folded[q] = 0;
		for (int q = 0; q < k; q++) {
			int j = lo + q, jj = j < first ? first : j > last ? last : j;
			if (jj - first < nf)
				folded[jj - first] += wo[q];
		}
		if (sum <= 0) { /* cannot happen for a triangle around a centre inside [lo, hi), but be safe */
			folded[0] = 1;
			sum = 1;
		}
		for (int q = 0; q < nf; q++)
			wo[q] = (float)(folded[q] / sum);
		i0[o] = first;
		cnt[o] = nf;
		if (nf > most)
			most = nf;
	}
	return most;
}

static void ensure_axes(ex_jpeg_ctx *c, int out, int maxtaps)
{
	size_t need = (size_t)out * maxtaps;
	if (out > c->axis_cap) {
		c->xi0 = xrealloc(c->xi0, sizeof(int) * out);
		c->xn = xrealloc(c->xn, sizeof(int) * out);
		c->yi0 = xrealloc(c->yi0, sizeof(int) * out);
		c->yn = xrealloc(c->yn, sizeof(int) * out);
		c->axis_cap = out;
	}
	if (need > c->tap_cap) {
		c->xw = xrealloc(c->xw, sizeof(float) * need);
		c->yw = xrealloc(c->yw, sizeof(float) * need);
		c->tap_cap = need;
	}
}


/* Gives every output the same tap count k (zero weights pad), with [i0, i0 + k) inside [0, n), so the
 * inner loops have a fixed trip count. k <= n holds: make_taps folds taps onto at most n pixels. */
static void pad_taps(int *i0, int *cnt, float *w, int out, int maxtaps, int k, int n)
{
	for (int o = 0; o < out; o++) {
		float *wo = w + (size_t)o * maxtaps;
		for (int q = cnt[o]; q < k; q++)
			wo[q] = 0;
		int shift = i0[o] + k - n;
		if (shift > 0) { /* move the window left; weights move right */
			for (int q = k - 1; q >= 0; q--)
				wo[q] = q - shift >= 0 ? wo[q - shift] : 0;
			i0[o] -= shift;
		}
		cnt[o] = k;
	}
}

/* One row of the vertical pass: taps over rows `stride` bytes apart, uint8 in, float out. */
static void vpass(float *restrict v, const unsigned char *restrict s0, size_t stride, const float *w, int K, int n)
{
	for (int q = 0; q < n; q++)
		v[q] = w[0] * s0[q];
	for (int k = 1; k < K; k++) {
		const unsigned char *restrict sk = s0 + (size_t)k * stride;
		float wk = w[k];
		for (int q = 0; q < n; q++)
			v[q] += wk * sk[q];
	}
}

/* One row of the horizontal pass: RGBX float pixels in and out (mirrored when flip), K taps each;
 * one 4-wide vector multiply-add per tap (GCC/clang vector extensions, SSE2 on x86-64). */
static inline __attribute__((always_inline)) void hpass(float *restrict h, const float *restrict v, const int *i0,
							 const float *xw, int out, int maxtaps, int c0, int K,
							 bool flip)
{
	const v4 *vv = (const v4 *)v;
	v4 *hv = (v4 *)h;
	for (int o = 0; o < out; o++) {
		const float *w = xw + (size_t)o * maxtaps;
		const v4 *s = vv + (i0[o] - c0);
		v4 acc = s[0] * w[0];
		for (int k = 1; k < K; k++)
			acc += s[k] * w[k];
		hv[flip ? out - 1 - o : o] = acc;
	}
}


/* Whole image through TurboJPEG into c->dec as RGBX (CMYK converted). ERR_INPUT on a corrupt file. */
static int decode_full(ex_jpeg_ctx *c, const unsigned char *jpeg, size_t len_B, int dw, int dh, bool cmyk,
		       bool fast_dct)
{
	size_t need = (size_t)dw * dh * 4;
	if (need > c->dec_cap_B) {
		free(c->dec);
		c->dec = xmalloc(need);
		c->dec_cap_B = need;
	}
	int flags = (fast_dct ? TJFLAG_FASTDCT : TJFLAG_ACCURATEDCT) | TJFLAG_LIMITSCANS;
	if (tjDecompress2(c->tj, jpeg, (unsigned long)len_B, c->dec, dw, 0, dh, cmyk ? TJPF_CMYK : TJPF_RGBX,
			  flags) < 0) {
		const char *why = tjGetErrorStr2(c->tj);
		/* warnings (e.g. "Corrupt JPEG data: N extraneous bytes") still give a whole image, as PIL
		 * accepts them; a premature end leaves grey rows: that file is bad */
		if (tjGetErrorCode(c->tj) != TJERR_WARNING || strstr(why, "Premature end"))
			return err_set("corrupt JPEG: %s", why);
	}
	if (cmyk) { /* Adobe CMYK JPEGs store inverted inks: R = C*K/255 */
		for (size_t p = 0, n = (size_t)dw * dh; p < n; p++) {
			unsigned char *px = c->dec + 4 * p;
			unsigned k = px[3];
			px[0] = (unsigned char)(px[0] * k / 255);
			px[1] = (unsigned char)(px[1] * k / 255);
			px[2] = (unsigned char)(px[2] * k / 255);
		}
	}
	return 0;
}

static void roi_error_exit(j_common_ptr ci)
{
	roi_err *e = (roi_err *)ci->err;
	(*ci->err->format_message)(ci, e->msg);
	longjmp(e->jb, 1);
}

static void roi_emit(j_common_ptr ci, int level)
{
	roi_err *e = (roi_err *)ci->err;
	if (level < 0) {
		if (ci->err->msg_code == JWRN_JPEG_EOF)
			e->eof = true;
		ci->err->num_warnings++;
	}
}

/* Progressive files with absurdly many scans take unbounded time (libjpeg-turbo's TJFLAG_LIMITSCANS). */
static void roi_progress(j_common_ptr ci)
{
	j_decompress_ptr d = (j_decompress_ptr)ci;
	if (d->is_decompressor && d->input_scan_number > 500) {
		roi_err *e = (roi_err *)ci->err;
		snprintf(e->msg, sizeof e->msg, "progressive JPEG with more than 500 scans");
		longjmp(e->jb, 1);
	}
}

/* Decodes rows [r0, r1) and columns [c0, c1) (at least; columns widen to iMCU boundaries) of the image
 * scaled by num/denom into c->dec as RGBX; *rx, *ry, *rw give the region's origin and width.
 * ERR_INPUT: the file is corrupt (message set). ERR_ENV: this path cannot do it (caller decodes the
 * whole image instead). Uses the libjpeg API, which TurboJPEG 2.1 does not expose for cropping:
 * jpeg_skip_scanlines skips the IDCT and colour conversion of rows above the crop, jpeg_crop_scanline
 * those of the columns outside it, and decoding stops after the crop's last row. */
static int decode_roi(ex_jpeg_ctx *c, const unsigned char *jpeg, size_t len_B, int num, int denom, int dw, int dh,
		      bool fast_dct, int c0, int c1, int r0, int r1, int *rx, int *ry, int *rw)
{
	struct jpeg_decompress_struct *d = &c->jd;
	roi_err *e = &c->je;
	volatile int rc = 0;
	if (!c->jd_ready) {
		d->err = jpeg_std_error(&e->pub);
		e->pub.error_exit = roi_error_exit;
		e->pub.emit_message = roi_emit;
		if (setjmp(e->jb))
			return ERR_ENV;
		jpeg_create_decompress(d);
		c->jprog.progress_monitor = roi_progress;
		c->jd_ready = true;
	}
	e->eof = false;
	e->msg[0] = 0;
	if (setjmp(e->jb)) {
		jpeg_abort_decompress(d);
		return err_set("corrupt JPEG: %s", e->msg);
	}
	jpeg_mem_src(d, jpeg, (unsigned long)len_B);
	jpeg_read_header(d, TRUE);
	if (d->jpeg_color_space == JCS_CMYK || d->jpeg_color_space == JCS_YCCK) {
		jpeg_abort_decompress(d);
		return ERR_ENV;
	}
	d->progress = d->progressive_mode ? &c->jprog : NULL;
	d->out_color_space = JCS_EXT_RGBX;
	d->scale_num = (unsigned)num;
	d->scale_denom = (unsigned)denom;
	d->dct_method = fast_dct ? JDCT_IFAST : JDCT_ISLOW;
	jpeg_start_decompress(d);
	if ((int)d->output_width != dw || (int)d->output_height != dh) { /* not the size TurboJPEG promised */
		jpeg_abort_decompress(d);
		return ERR_ENV;
	}
	JDIMENSION xoff = (JDIMENSION)c0, xw = (JDIMENSION)(c1 - c0);
	if (xw < (JDIMENSION)dw)
		jpeg_crop_scanline(d, &xoff, &xw);
	else
		xoff = 0, xw = (JDIMENSION)dw;
	size_t need = (size_t)xw * (size_t)(r1 - r0) * 4;
	if (need > c->dec_cap_B) {
		free(c->dec);
		c->dec = xmalloc(need);
		c->dec_cap_B = need;
	}
	if (r0 > 0 && jpeg_skip_scanlines(d, (JDIMENSION)r0) != (JDIMENSION)r0) {
		jpeg_abort_decompress(d);
		return err_set("corrupt JPEG: could not skip to row %d", r0);
	}
	while ((int)d->output_scanline < r1) {
		JSAMPROW row = c->dec + (size_t)((int)d->output_scanline - r0) * xw * 4;
		if (jpeg_read_scanlines(d, &row, 1) != 1) {
			rc = err_set("corrupt JPEG: no data at row %u", d->output_scanline);
			break;
		}
	}
	jpeg_abort_decompress(d); /* the rows below the crop are never decoded */
	if (rc == 0 && e->eof)
		rc = err_set("corrupt JPEG: Premature end of JPEG file");
	if (rc < 0)
		return rc;
	*rx = (int)xoff;
	*ry = r0;
	*rw = (int)xw;
	(void)dh;
	return 0;
}

/* The two resampling passes, normalisation and conversion for every output row. Built twice (AVX2 and
 * baseline x86-64, picked at load time by the CPU) where the compiler supports function clones. */
EX_CLONES static void resample(ex_jpeg_ctx *c, const unsigned char *base, size_t stride_B, int r0, int out, int kx,
			      int ky, int maxtaps, int c0, int span, bool flip, const ex_jpeg_aug *a, void *dst)
{
	float *vrow = c->tmp, *hrow = c->tmp + span;
	/* normalise: (v/255 - mean) / std = v * S + O */
	v4 S = {0, 0, 0, 0}, O = {0, 0, 0, 0};
	for (int q = 0; q < 3; q++) {
		S[q] = 1.0f / (255.0f * a->std[q]);
		O[q] = -a->mean[q] / a->std[q];
	}
	for (int oy = 0; oy < out; oy++) {
		/* vertical pass over the crop's columns: contiguous, vectorises */
		const float *w = c->yw + (size_t)oy * maxtaps;
		const unsigned char *s0 = base + (size_t)(c->yi0[oy] - r0) * stride_B;
		vpass(vrow, s0, stride_B, w, ky, span);
		/* horizontal pass: fixed tap count per image */
		switch (kx) {
		case 1: hpass(hrow, vrow, c->xi0, c->xw, out, maxtaps, c0, 1, flip); break;
		case 2: hpass(hrow, vrow, c->xi0, c->xw, out, maxtaps, c0, 2, flip); break;
		case 3: hpass(hrow, vrow, c->xi0, c->xw, out, maxtaps, c0, 3, flip); break;
		case 4: hpass(hrow, vrow, c->xi0, c->xw, out, maxtaps, c0, 4, flip); break;
		default: hpass(hrow, vrow, c->xi0, c->xw, out, maxtaps, c0, kx, flip); break;
		}
		/* normalise and convert RGBX -> RGB */
		size_t orow = (size_t)oy * out * 3;
		const v4 *hv = (const v4 *)hrow;
		/* each pixel stores 4 values at 3 * o; the 4th is overwritten by the next pixel, and the row's
		 * last pixel is stored by itself so nothing is written past the row */
		if (a->dtype == EX_DATA_F32) {
			float *d = (float *)dst + orow;
			for (int o = 0; o < out - 1; o++) {
				v4 v = hv[o] * S + O;
				memcpy(d + 3 * o, &v, sizeof v);
			}
			v4 v = hv[out - 1] * S + O;
			memcpy(d + 3 * (out - 1), &v, 3 * sizeof(float));
		} else if (a->dtype == EX_DATA_BF16) {
			uint16_t *d = (uint16_t *)dst + orow;
			for (int o = 0; o < out; o++) {
				v4 v = hv[o] * S + O;
				v4i u;
				memcpy(&u, &v, sizeof u);
				u = u + 0x7fff + ((u >> 16) & 1); /* bf16 = high half, round to nearest even (finite) */
				v8s h;
				memcpy(&h, &u, sizeof h);
				v4s b = __builtin_shufflevector(h, h, 1, 3, 5, 7);
				memcpy(d + 3 * o, &b, o < out - 1 ? sizeof b : 3 * sizeof(uint16_t));
			}
		} else if (a->dtype == EX_DATA_U8) { /* pixels as decoded, resized and flipped: no normalisation */
			unsigned char *d = (unsigned char *)dst + orow;
			for (int o = 0; o < out; o++)
				for (int q = 0; q < 3; q++) {
					float v = hv[o][q] + 0.5f;
					d[3 * o + q] = (unsigned char)(v <= 0 ? 0 : v >= 255 ? 255 : v);
				}
		} else {
			uint16_t *d = (uint16_t *)dst + orow;
			for (int o = 0; o < out; o++) {
				v4 v = hv[o] * S + O;
				d[3 * o] = ex_data_f32_to_f16(v[0]);
				d[3 * o + 1] = ex_data_f32_to_f16(v[1]);
				d[3 * o + 2] = ex_data_f32_to_f16(v[2]);
			}
		}
	}
}

void ex_jpeg_crop(int width, int height, const ex_jpeg_aug *a, uint64_t *rng, double *cx, double *cy, double *cw,
		  double *ch, bool *flip)
{
	*flip = false;
	if (a->train) {
		int x, y, w, h;
		ex_jpeg_rrc_params(width, height, a, rng, &x, &y, &w, &h);
		*cx = x, *cy = y, *cw = w, *ch = h;
		*flip = ex_data_rand(rng) & 1;
	} else {
		/* Resize(resize_hw) then CenterCrop(out_hw), expressed on the original image */
		double s = (double)(width < height ? width : height) / a->resize_hw, out = a->out_hw;
		*cw = out * s > width ? width : out * s;
		*ch = out * s > height ? height : out * s;
		*cx = (width - *cw) / 2;
		*cy = (height - *ch) / 2;
	}
}

static unsigned be16(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }

/* SOF markers that start a frame: C0-C3, C5-C7, C9-CB, CD-CF (C4 is DHT, C8 reserved, CC is DAC). */
static bool is_sof(int m) { return m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc; }

/* Reads one frame header (the bytes after SOFn's length) into h. */
static int parse_sof(const unsigned char *p, size_t seg, int marker, ex_jpeg_hdr *h)
{
	if (seg < 6)
		return err_set("frame header (SOF) of %zu bytes, expected at least 6", seg);
	h->sof = marker;
	h->precision = p[0];
	h->height = (int)be16(p + 1);
	h->width = (int)be16(p + 3);
	h->components = p[5];
	if (h->components < 1 || h->components > 4 || seg < 6 + 3 * (size_t)h->components)
		return err_set("frame header with %d components in %zu bytes", h->components, seg);
	for (int i = 0; i < h->components; i++) {
		h->hsamp[i] = p[6 + 3 * i + 1] >> 4;
		h->vsamp[i] = p[6 + 3 * i + 1] & 15;
		if (h->hsamp[i] < 1 || h->hsamp[i] > 4 || h->vsamp[i] < 1 || h->vsamp[i] > 4)
			return err_set("component %d has sampling factors %dx%d, expected 1..4", i, h->hsamp[i], h->vsamp[i]);
	}
	if (h->width < 1 || h->height < 1)
		return err_set("frame of %dx%d pixels (a height of 0 needs a DNL marker, not supported)", h->width,
			       h->height);
	if ((long)h->width * h->height > EX_JPEG_MAX_PIXELS)
		return err_set("JPEG of %dx%d pixels is over the %ld-pixel limit", h->width, h->height,
			       (long)EX_JPEG_MAX_PIXELS);
	return 0;
}

/* Baseline Huffman, 8 bits, grey or YCbCr with the chroma layouts of nvJPEG's list (4:4:4, 4:2:2, 4:2:0,
 * 4:4:0, 4:1:1, 4:1:0: chroma 1x1, luma 1x1 .. 4x2) - what a hardware JPEG decoder takes. */
static bool hw_layout(const ex_jpeg_hdr *h)
{
	if (h->sof != 0xc0 || h->precision != 8)
		return false;
	if (h->components == 1)
		return true;
	if (h->components != 3 || h->hsamp[1] != 1 || h->vsamp[1] != 1 || h->hsamp[2] != 1 || h->vsamp[2] != 1)
		return false;
	int hs = h->hsamp[0], vs = h->vsamp[0];
	return (hs == 1 && (vs == 1 || vs == 2)) || (hs == 2 && (vs == 1 || vs == 2)) || (hs == 4 && (vs == 1 || vs == 2));
}

int ex_jpeg_header(const unsigned char *p, size_t len_B, ex_jpeg_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (len_B == 0)
		return err_set("empty file");
	if (len_B < 4 || p[0] != 0xff || p[1] != 0xd8)
		return err_set("not a JPEG (no SOI marker FF D8)");
	size_t i = 2;
	for (;;) {
		while (i < len_B && p[i] == 0xff && i + 1 < len_B && p[i + 1] == 0xff)
			i++; /* fill bytes before a marker (ITU T.81 B.1.1.2) */
		if (i + 1 >= len_B)
			return err_set("corrupt JPEG: ends at byte %zu before the scan (SOS)", i);
		if (p[i] != 0xff)
			return err_set("corrupt JPEG: byte %zu is %02X where a marker (FF xx) was expected", i, p[i]);
		int m = p[i + 1];
		i += 2;
		if (m == 0x01 || (m >= 0xd0 && m <= 0xd7))
			continue; /* TEM and RSTn carry no length */
		if (m == 0xd8 || m == 0xd9 || m == 0x00)
			return err_set("corrupt JPEG: marker FF %02X at byte %zu inside the header", m, i - 2);
		if (i + 2 > len_B)
			return err_set("corrupt JPEG: segment FF %02X at byte %zu has no length", m, i - 2);
		size_t seg = be16(p + i);
		if (seg < 2 || i + seg > len_B)
			return err_set("corrupt JPEG: segment FF %02X at byte %zu claims %zu bytes, %zu left", m, i - 2, seg,
				       len_B - i);
		if (is_sof(m)) {
			if (h->sof)
				return err_set("corrupt JPEG: a second frame header (FF %02X) at byte %zu", m, i - 2);
			if (parse_sof(p + i + 2, seg - 2, m, h) < 0)
				return ERR_INPUT;
		}
		if (m == 0xda) {
			if (!h->sof)
				return err_set("corrupt JPEG: scan (SOS) at byte %zu before any frame header (SOF)", i - 2);
			h->scan_B = i + seg;
			if (h->scan_B >= len_B)
				return err_set("corrupt JPEG: no entropy-coded data after the scan header");
			break;
		}
		i += seg;
	}
	/* the end-of-image marker, allowing a little trailing padding (some writers add zeros) */
	h->has_eoi = false;
	for (size_t k = len_B - 1; k > h->scan_B && k + 1024 > len_B; k--)
		if (p[k - 1] == 0xff && p[k] == 0xd9) {
			h->has_eoi = true;
			break;
		}
	h->hw_ok = hw_layout(h);
	return 0;
}

/* The header's size and colour space through TurboJPEG, with the checks every decode makes. */
static int decode_header(ex_jpeg_ctx *c, const unsigned char *jpeg, size_t len_B, const ex_jpeg_aug *a, int *width,
			 int *height, int *cs)
{
	int subsamp;
	if (len_B == 0)
		return err_set("empty file");
	if (len_B > 0x7fffffffUL)
		return err_set("file over 2 GiB");
	if (len_B < 4 || jpeg[0] != 0xff || jpeg[1] != 0xd8)
		return err_set("not a JPEG (no SOI marker FF D8)");
	if (tjDecompressHeader3(c->tj, jpeg, (unsigned long)len_B, width, height, &subsamp, cs) < 0)
		return err_set("bad JPEG header: %s", tjGetErrorStr2(c->tj));
	if (*width < 1 || *height < 1 || (long)*width * *height > EX_JPEG_MAX_PIXELS)
		return err_set("JPEG of %dx%d pixels is over the %ld-pixel limit", *width, *height,
			       (long)EX_JPEG_MAX_PIXELS);
	if (a->out_hw < 1 || a->out_hw > 4096)
		return err_set("output size %d is not 1..4096", a->out_hw);
	if (!a->train && a->resize_hw < 1)
		return err_set("eval resize %d is not >= 1", a->resize_hw);
	return 0;
}

/* Decodes the crop (cx, cy, cw, ch) of a width x height JPEG (colour space cs) at the smallest DCT scale that
 * keeps it >= out_hw, resamples it to out_hw^2 (mirrored when flip) and writes it to dst in a->dtype. */
static int decode_crop(ex_jpeg_ctx *c, const unsigned char *jpeg, size_t len_B, const ex_jpeg_aug *a, int width,
		       int height, int cs, double cx, double cy, double cw, double ch, bool flip, void *dst,
		       ex_jpeg_info *info)
{
	int out = a->out_hw;

	/* smallest DCT scaling factor (<= 1) that keeps the crop >= out on both sides */
	int nsf = 0;
	tjscalingfactor *sf = tjGetScalingFactors(&nsf);
	tjscalingfactor best = {1, 1};
	double best_f = 1.0;
	for (int i = 0; sf && i < nsf; i++) {
		double f = (double)sf[i].num / sf[i].denom;
		if (f > 1.0 || f >= best_f)
			continue;
		if (cw * f >= out && ch * f >= out) {
			best = sf[i];
			best_f = f;
		}
	}
	int dw = TJSCALED(width, best), dh = TJSCALED(height, best);

	/* crop in decoded pixels, then taps: they say which rows [r0, r1) and columns [c0, c1) are read */
	double fx = (double)dw / width, fy = (double)dh / height;
	double x0 = cx * fx, y0 = cy * fy, w0 = cw * fx, h0 = ch * fy;
	int maxtaps = (int)ceil(2.0 * fmax(fmax(w0, h0) / out, 1.0)) + 2;
	if (maxtaps > 1024)
		maxtaps = 1024;
	ensure_axes(c, out, maxtaps);
	int kx = make_taps(x0, w0, dw, out, c->xi0, c->xn, c->xw, maxtaps);
	int ky = make_taps(y0, h0, dh, out, c->yi0, c->yn, c->yw, maxtaps);
	pad_taps(c->xi0, c->xn, c->xw, out, maxtaps, kx, dw);
	pad_taps(c->yi0, c->yn, c->yw, out, maxtaps, ky, dh);
	int c0 = c->xi0[0], c1 = c0, r0 = c->yi0[0], r1 = r0;
	for (int o = 0; o < out; o++) {
		if (c->xi0[o] < c0)
			c0 = c->xi0[o];
		if (c->xi0[o] + kx > c1)
			c1 = c->xi0[o] + kx;
		if (c->yi0[o] < r0)
			r0 = c->yi0[o];
		if (c->yi0[o] + ky > r1)
			r1 = c->yi0[o] + ky;
	}

	/* decode: only the region (libjpeg API: skip rows, crop columns) or the whole image (TurboJPEG) */
	bool cmyk = cs == TJCS_CMYK || cs == TJCS_YCCK;
	int rx = 0, ry = 0, rw = dw; /* decoded region's origin and width in decoded pixels */
	int rc = ERR_ENV; /* "not done": decode the whole image */
	if (!cmyk && !a->full_decode)
		rc = decode_roi(c, jpeg, len_B, best.num, best.denom, dw, dh, a->fast_dct, c0, c1, r0, r1, &rx, &ry, &rw);
	if (rc == ERR_INPUT)
		return rc;
	if (rc < 0) {
		rc = decode_full(c, jpeg, len_B, dw, dh, cmyk, a->fast_dct);
		if (rc < 0)
			return rc;
		rx = ry = 0;
		rw = dw;
	}
	int span = (c1 - c0) * 4;
	size_t tneed = (size_t)span + (size_t)out * 4;
	if (tneed > c->tmp_cap) {
		free(c->tmp);
		c->tmp = xmalloc(sizeof(float) * tneed);
		c->tmp_cap = tneed;
	}
	const unsigned char *base = c->dec + ((size_t)(r0 - ry) * rw + (size_t)(c0 - rx)) * 4;
	resample(c, base, (size_t)rw * 4, r0, out, kx, ky, maxtaps, c0, span, flip, a, dst);
	if (info) {
		info->width = width;
		info->height = height;
		info->dec_width = dw;
		info->dec_height = dh;
		info->scale_num = best.num;
		info->scale_denom = best.denom;
		info->crop_x = (int)lround(cx);
		info->crop_y = (int)lround(cy);
		info->crop_w = (int)lround(cw);
		info->crop_h = (int)lround(ch);
		info->flipped = flip;
	}
	return 0;
}

int ex_jpeg_decode_aug(ex_jpeg_ctx *c, const unsigned char *jpeg, size_t len_B, const ex_jpeg_aug *a,
		       uint64_t *rng, void *dst, ex_jpeg_info *info)
{
	int width, height, cs;
	if (decode_header(c, jpeg, len_B, a, &width, &height, &cs) < 0)
		return ERR_INPUT;
	double cx, cy, cw, ch;
	bool flip = false;
	ex_jpeg_crop(width, height, a, rng, &cx, &cy, &cw, &ch, &flip);
	return decode_crop(c, jpeg, len_B, a, width, height, cs, cx, cy, cw, ch, flip, dst, info);
}

int ex_jpeg_decode_at(ex_jpeg_ctx *c, const unsigned char *jpeg, size_t len_B, const ex_jpeg_aug *a,
		      const float crop[4], bool flip, void *dst)
{
	int width, height, cs;
	if (decode_header(c, jpeg, len_B, a, &width, &height, &cs) < 0)
		return ERR_INPUT;
	if (!(crop[2] > 0 && crop[3] > 0 && crop[0] >= 0 && crop[1] >= 0 && crop[0] + crop[2] <= width + 0.5f &&
	      crop[1] + crop[3] <= height + 0.5f))
		return err_set("crop %.1f,%.1f %.1fx%.1f is outside the %dx%d image", crop[0], crop[1], crop[2], crop[3],
			       width, height);
	return decode_crop(c, jpeg, len_B, a, width, height, cs, crop[0], crop[1], crop[2], crop[3], flip, dst, NULL);
}
