/* image_scale.c - a picture onto the screen: fill, fit, stretch, center or tile, shrinking by
 * area averaging and growing bilinearly, in premultiplied alpha over the background. */
#include "image.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const mode_names[] = { "fill", "fit", "stretch", "center", "tile" };

int scale_mode_parse(const char *name, enum scale_mode *mode)
{
	size_t i;

	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (name && strcmp(name, mode_names[i]) == 0) {
			*mode = (enum scale_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *scale_mode_name(enum scale_mode mode)
{
	if ((unsigned)mode >= sizeof(mode_names) / sizeof(mode_names[0]))
		return "unknown";
	return mode_names[mode];
}
/* ---- scaling ----------------------------------------------------------------------------- */

/* For each destination index along one axis: the source indices it reads, with weights. */
struct taps {
	int *start, *count;
	float *w;	/* maxn per destination index */
	int maxn;
};

static void taps_free(struct taps *t)
{
	free(t->start);
	free(t->count);
	free(t->w);
}

/* dlen destination pixels cover source [s0, s0 + dlen * f), f source pixels per destination
 * pixel. Shrinking averages the exact footprint (box filter, fractional edges); growing is
 * bilinear. */
static int taps_build(struct taps *t, int dlen, int slen, double s0, double f)
{
	int i, j;

	t->maxn = f >= 1.0 ? (int)ceil(f) + 2 : 2;
	t->start = malloc((size_t)dlen * sizeof(int));
	t->count = malloc((size_t)dlen * sizeof(int));
	t->w = malloc((size_t)dlen * (size_t)t->maxn * sizeof(float));
	if (!t->start || !t->count || !t->w) {
		taps_free(t);
		return -ENOMEM;
	}
	for (i = 0; i < dlen; i++) {
		float *w = t->w + (size_t)i * t->maxn;

		if (f >= 1.0) {
			double a = fmax(s0 + i * f, 0.0), b = fmin(s0 + (i + 1) * f, (double)slen);
			int j0 = (int)floor(a), j1 = (int)ceil(b);

			if (j1 > slen)
				j1 = slen;
			if (j0 > j1 - 1)
				j0 = j1 - 1;
			if (j1 - j0 > t->maxn)
				j1 = j0 + t->maxn;
			t->start[i] = j0;
			t->count[i] = j1 - j0;
			for (j = j0; j < j1; j++)
				w[j - j0] = b > a ? (float)((fmin(b, j + 1.0) - fmax(a, (double)j)) / (b - a))
						  : 1.0f / (float)(j1 - j0);
		} else {
			double u = s0 + (i + 0.5) * f - 0.5;
			int j0 = (int)floor(u);
			float frac = (float)(u - j0);

			if (j0 < 0 || j0 >= slen - 1) {
				t->start[i] = j0 < 0 ? 0 : slen - 1;
				t->count[i] = 1;
				w[0] = 1.0f;
			} else {
				t->start[i] = j0;
				t->count[i] = 2;
				w[0] = 1.0f - frac;
				w[1] = frac;
			}
		}
	}
	return 0;
}

/* Rows of 4 floats per pixel: premultiplied r, g, b and alpha, all 0..255. */
static void premultiply(float *out, const uint32_t *in, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		uint32_t p = in[i];
		float a = (float)(p >> 24), k = a * (1.0f / 255.0f);

		out[4 * i + 0] = (float)((p >> 16) & 0xff) * k;
		out[4 * i + 1] = (float)((p >> 8) & 0xff) * k;
		out[4 * i + 2] = (float)(p & 0xff) * k;
		out[4 * i + 3] = a;
	}
}

/* One source row, premultiplied and resampled across to dw pixels of 4 floats. */
static void resample_row(const struct taps *tx, const uint32_t *in, float *prow, float *h, int dw)
{
	int cx0 = tx->start[0], cx1 = tx->start[dw - 1] + tx->count[dw - 1], x, k;

	premultiply(prow, in + cx0, cx1 - cx0);
	for (x = 0; x < dw; x++) {
		const float *p = prow + (size_t)(tx->start[x] - cx0) * 4;
		const float *wx = tx->w + (size_t)x * tx->maxn;
		float r = 0, g = 0, b = 0, a = 0;

		for (k = 0; k < tx->count[x]; k++, p += 4) {
			r += wx[k] * p[0];
			g += wx[k] * p[1];
			b += wx[k] * p[2];
			a += wx[k] * p[3];
		}
		h[4 * x] = r, h[4 * x + 1] = g, h[4 * x + 2] = b, h[4 * x + 3] = a;
	}
}

/* Source rectangle (fractional) -> destination rectangle dx, dy, dw x dh of dst. Each output
 * row sums resampled source rows; consecutive output rows share at most two source rows (one
 * when shrinking, two when growing), so two cached rows avoid resampling any row twice. */
static int resample(const struct image *src, double sx, double sw, double sy, double sh,
		    struct image *dst, int dx, int dy, int dw, int dh, uint32_t bg)
{
	struct taps tx = { 0 }, ty = { 0 };
	float *prow = NULL, *cache = NULL, *acc = NULL;
	float bgr = (float)((bg >> 16) & 0xff), bgg = (float)((bg >> 8) & 0xff),
	      bgb = (float)(bg & 0xff);
	int rc = -ENOMEM, cached[2] = { -1, -1 }, x, y, k;

	if (taps_build(&tx, dw, src->width, sx, sw / dw) < 0)
		return -ENOMEM;
	if (taps_build(&ty, dh, src->height, sy, sh / dh) < 0)
		goto out;
	prow = malloc((size_t)src->width * 4 * sizeof(float));
	cache = malloc((size_t)2 * dw * 4 * sizeof(float));
	acc = malloc((size_t)dw * 4 * sizeof(float));
	if (!prow || !cache || !acc)
		goto out;

	for (y = 0; y < dh; y++) {
		const float *wy = ty.w + (size_t)y * ty.maxn;
		uint32_t *out = dst->pixels + (size_t)(dy + y) * dst->width + dx;

		memset(acc, 0, (size_t)dw * 4 * sizeof(float));
		for (k = 0; k < ty.count[y]; k++) {
			int r = ty.start[y] + k;
			float *h = cache + (size_t)(r & 1) * dw * 4, wk = wy[k];

			if (cached[r & 1] != r) {
				resample_row(&tx, src->pixels + (size_t)r * src->width, prow, h, dw);
				cached[r & 1] = r;
			}
			for (x = 0; x < dw * 4; x++)
				acc[x] += wk * h[x];
		}
		for (x = 0; x < dw; x++) {
			const float *p = acc + 4 * x;
			float t = (255.0f - p[3]) * (1.0f / 255.0f);

			out[x] = image_argb(image_channel(p[0] + bgr * t), image_channel(p[1] + bgg * t),
				      image_channel(p[2] + bgb * t), 255);
		}
	}
	rc = 0;
out:
	free(prow);
	free(cache);
	free(acc);
	taps_free(&tx);
	taps_free(&ty);
	return rc;
}

static uint32_t over(uint32_t p, uint32_t bg)
{
	unsigned a = p >> 24, na = 255 - a;

	if (a == 255)
		return p;
	return image_argb((((p >> 16) & 0xff) * a + ((bg >> 16) & 0xff) * na + 127) / 255,
		    (((p >> 8) & 0xff) * a + ((bg >> 8) & 0xff) * na + 127) / 255,
		    ((p & 0xff) * a + (bg & 0xff) * na + 127) / 255, 255);
}

static void place_center(const struct image *src, struct image *dst, uint32_t bg)
{
	int ox = (dst->width - src->width) / 2, oy = (dst->height - src->height) / 2;
	int x0 = ox > 0 ? ox : 0, y0 = oy > 0 ? oy : 0;
	int x1 = ox + src->width < dst->width ? ox + src->width : dst->width;
	int y1 = oy + src->height < dst->height ? oy + src->height : dst->height;
	int x, y;

	for (y = y0; y < y1; y++) {
		const uint32_t *in = src->pixels + (size_t)(y - oy) * src->width - ox;
		uint32_t *out = dst->pixels + (size_t)y * dst->width;

		for (x = x0; x < x1; x++)
			out[x] = over(in[x], bg);
	}
}

static void place_tiles(const struct image *src, struct image *dst, uint32_t bg)
{
	int x, y;

	for (y = 0; y < dst->height; y++) {
		const uint32_t *in = src->pixels + (size_t)(y % src->height) * src->width;
		uint32_t *out = dst->pixels + (size_t)y * dst->width;

		for (x = 0; x < dst->width; x++)
			out[x] = over(in[x % src->width], bg);
	}
}

void image_flatten(struct image *img, uint32_t background)
{
	size_t n = (size_t)img->width * img->height;

	for (size_t i = 0; i < n; i++)
		if (img->pixels[i] < 0xff000000u)	/* most photos are opaque throughout */
			img->pixels[i] = over(img->pixels[i], background);
}

int image_scale(struct image *dst, const struct image *src, int width, int height,
		enum scale_mode mode, uint32_t background)
{
	struct image out = { width, height, NULL };
	long long sw = src->width, sh = src->height, w = width, h = height;
	uint32_t fillc = 0xff000000u | (background & 0xffffff);
	size_t i, n;
	int rc = 0;

	if (width <= 0 || height <= 0 || src->width <= 0 || src->height <= 0 || !src->pixels)
		return -EINVAL;
	n = (size_t)width * (size_t)height;
	out.pixels = malloc(n * sizeof(uint32_t));
	if (!out.pixels)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		out.pixels[i] = fillc;
	/* a picture already the screen's size needs no resampling, whatever the mode */
	if (src->width == width && src->height == height)
		mode = SCALE_CENTER;

	switch (mode) {
	case SCALE_FIT: {
		int dw = width, dh = height;

		/* The tighter axis spans the screen exactly; the other is rounded. */
		if (w * sh <= h * sw)
			dh = (int)((sh * w * 2 + sw) / (sw * 2));
		else
			dw = (int)((sw * h * 2 + sh) / (sh * 2));
		dw = dw < 1 ? 1 : dw;
		dh = dh < 1 ? 1 : dh;
		rc = resample(src, 0, (double)sw, 0, (double)sh, &out, (width - dw) / 2,
			      (height - dh) / 2, dw, dh, background);
		break;
	}
	case SCALE_STRETCH:
		rc = resample(src, 0, (double)sw, 0, (double)sh, &out, 0, 0, width, height, background);
		break;
	case SCALE_CENTER:
		place_center(src, &out, background);
		break;
	case SCALE_TILE:
		place_tiles(src, &out, background);
		break;
	case SCALE_FILL:
	default: {
		double vw = (double)sw, vh = (double)sh;

		/* The looser axis spans the source exactly; the other is cropped evenly. */
		if (w * sh >= h * sw)
			vh = (double)(h * sw) / (double)w;
		else
			vw = (double)(w * sh) / (double)h;
		rc = resample(src, ((double)sw - vw) / 2, vw, ((double)sh - vh) / 2, vh, &out, 0, 0,
			      width, height, background);
		break;
	}
	}
	if (rc < 0) {
		free(out.pixels);
		return rc;
	}
	*dst = out;
	return 0;
}
