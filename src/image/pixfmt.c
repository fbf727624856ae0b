/* pixfmt.c - framebuffer pixel formats from fb bitfields; converting pictures to and from them. */
#include "pixfmt.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct named_format {
	const char *name;
	int bpp;
	uint8_t r, g, b;	/* offsets; lengths follow from bpp */
};

static const struct named_format named[] = {
	{ "RGB565", 16, 11, 5, 0 },
	{ "BGR565", 16, 0, 5, 11 },
	{ "RGB888", 24, 16, 8, 0 },
	{ "BGR888", 24, 0, 8, 16 },
	{ "XRGB8888", 32, 16, 8, 0 },
	{ "XBGR8888", 32, 0, 8, 16 },
	{ "RGBX8888", 32, 24, 16, 8 },
	{ "BGRX8888", 32, 8, 16, 24 },
};

static void named_fields(const struct named_format *n, struct pixfmt_field f[3])
{
	int g_len = n->bpp == 16 ? 6 : 8, rb_len = n->bpp == 16 ? 5 : 8;

	f[0] = (struct pixfmt_field){ n->r, (uint8_t)rb_len };
	f[1] = (struct pixfmt_field){ n->g, (uint8_t)g_len };
	f[2] = (struct pixfmt_field){ n->b, (uint8_t)rb_len };
}

static uint32_t field_mask(struct pixfmt_field f)
{
	return ((1u << f.length) - 1) << f.offset;
}

static int field_valid(struct pixfmt_field f, int bpp)
{
	return f.length >= 1 && f.length <= 8 && f.offset + f.length <= bpp;
}

int pixfmt_init(struct pixfmt *fmt, int bpp, struct pixfmt_field red,
		struct pixfmt_field green, struct pixfmt_field blue)
{
	struct pixfmt_field f[3];
	size_t i;

	if (bpp != 16 && bpp != 24 && bpp != 32)
		return -EINVAL;
	if (!field_valid(red, bpp) || !field_valid(green, bpp) || !field_valid(blue, bpp))
		return -EINVAL;
	if ((field_mask(red) & field_mask(green)) || (field_mask(red) & field_mask(blue)) ||
	    (field_mask(green) & field_mask(blue)))
		return -EINVAL;

	memset(fmt, 0, sizeof(*fmt));
	fmt->bpp = bpp;
	fmt->bytes = bpp / 8;
	fmt->red = red;
	fmt->green = green;
	fmt->blue = blue;
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		named_fields(&named[i], f);
		if (named[i].bpp == bpp && !memcmp(&f[0], &red, sizeof(red)) &&
		    !memcmp(&f[1], &green, sizeof(green)) && !memcmp(&f[2], &blue, sizeof(blue))) {
			strcpy(fmt->name, named[i].name);
			return 0;
		}
	}
	/* At most "R8G8B8@31,31,31": 15 characters, so it always fits. */
	snprintf(fmt->name, sizeof(fmt->name), "R%uG%uB%u@%u,%u,%u",
		 red.length & 15u, green.length & 15u, blue.length & 15u,
		 red.offset & 31u, green.offset & 31u, blue.offset & 31u);
	return 0;
}

int pixfmt_set_alpha(struct pixfmt *fmt, struct pixfmt_field alpha)
{
	uint32_t mask = field_mask(alpha);
	char *x = strchr(fmt->name, 'X');

	if (!alpha.length)
		return 0;
	if (!field_valid(alpha, fmt->bpp) ||
	    (mask & (field_mask(fmt->red) | field_mask(fmt->green) | field_mask(fmt->blue))))
		return -EINVAL;
	fmt->opaque = mask;
	/* the named formats' X is a byte of its own: alpha there is what it names */
	if (x && alpha.length == 8 && fmt->bpp == 32 && (x == fmt->name) == (alpha.offset == 24))
		*x = 'A';
	return 0;
}

int pixfmt_by_name(struct pixfmt *fmt, const char *name)
{
	struct pixfmt_field f[3];
	size_t i;

	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (strcmp(named[i].name, name) == 0) {
			named_fields(&named[i], f);
			return pixfmt_init(fmt, named[i].bpp, f[0], f[1], f[2]);
		}
	}
	return -EINVAL;
}

static uint32_t pack_field(struct pixfmt_field f, uint32_t v8)
{
	return (v8 >> (8 - f.length)) << f.offset;
}

/* Replicate the field's bits downwards until 8 bits are filled. */
static uint32_t unpack_field(struct pixfmt_field f, uint32_t pixel)
{
	uint32_t v = (pixel >> f.offset) & ((1u << f.length) - 1);
	uint32_t out = 0;
	int s;

	for (s = 8 - f.length; s > -f.length; s -= f.length)
		out |= s >= 0 ? v << s : v >> -s;
	return out;
}

uint32_t pixfmt_pack(const struct pixfmt *fmt, uint32_t rgb)
{
	return fmt->opaque | pack_field(fmt->red, (rgb >> 16) & 0xff) |
	       pack_field(fmt->green, (rgb >> 8) & 0xff) |
	       pack_field(fmt->blue, rgb & 0xff);
}

uint32_t pixfmt_unpack(const struct pixfmt *fmt, uint32_t pixel)
{
	return 0xff000000u | unpack_field(fmt->red, pixel) << 16 |
	       unpack_field(fmt->green, pixel) << 8 | unpack_field(fmt->blue, pixel);
}

/*
 * Per-channel lookup tables, built once per call so the pixel loops only index, compare and
 * OR. A field of fewer than 8 bits is dithered (8 bits: all shares are 0, the tables are
 * truncation's): a value between two of its levels (as unpacked, its bits replicated) takes
 * the upper one where the 8 x 8 Bayer threshold at its place is below its share of the step,
 * so that every 8 x 8 tile averages to the value within a 128th of a step (a row or a column
 * of one within 0.4). A value on a level, black and white among them, has no share: it stays,
 * so a picture read back from the screen converts to the same pixels.
 */
struct pack_lut {
	uint32_t r[256], g[256], b[256];	/* truncated, packed: 8-bit fields' exact value */
	uint16_t level[3][256];	/* 64 times the field's level at or below each value, plus the
				 * value's share of the step to the next, in 64ths */
	uint8_t offset[3];
	uint32_t opaque;
	bool dither;		/* some share is not 0 */
};

static const uint8_t bayer8[8][8] = {
	{ 0, 32, 8, 40, 2, 34, 10, 42 },	{ 48, 16, 56, 24, 50, 18, 58, 26 },
	{ 12, 44, 4, 36, 14, 46, 6, 38 },	{ 60, 28, 52, 20, 62, 30, 54, 22 },
	{ 3, 35, 11, 43, 1, 33, 9, 41 },	{ 51, 19, 59, 27, 49, 17, 57, 25 },
	{ 15, 47, 7, 39, 13, 45, 5, 37 },	{ 63, 31, 55, 23, 61, 29, 53, 21 },
};

static uint32_t level_of(struct pixfmt_field f, uint32_t q)
{
	struct pixfmt_field at0 = { 0, f.length };

	return unpack_field(at0, q);
}

/* 64 times the field's level at or below v plus v's share of the step to the next one, in
 * 64ths (0 on a level; 64 would be the next level, which v is not). */
static uint16_t lut_level(struct pixfmt_field f, uint32_t v)
{
	uint32_t q = v >> (8 - f.length), max = (1u << f.length) - 1, below, step;

	if (level_of(f, q) > v)
		q--;	/* truncation rounds up where the replicated low bits overshoot v */
	below = level_of(f, q);
	step = q < max ? level_of(f, q + 1) - below : 1;
	return (uint16_t)(q << 6 | ((v - below) * 128 + step) / (2 * step));
}

static void pack_lut_init(const struct pixfmt *fmt, struct pack_lut *lut)
{
	const struct pixfmt_field *f[3] = { &fmt->red, &fmt->green, &fmt->blue };
	uint32_t v;

	lut->dither = false;
	lut->opaque = fmt->opaque;
	for (v = 0; v < 256; v++) {
		lut->r[v] = fmt->opaque | pack_field(fmt->red, v);
		lut->g[v] = pack_field(fmt->green, v);
		lut->b[v] = pack_field(fmt->blue, v);
	}
	for (int i = 0; i < 3; i++) {
		lut->offset[i] = f[i]->offset;
		for (v = 0; v < 256; v++) {
			lut->level[i][v] = lut_level(*f[i], v);
			lut->dither |= (lut->level[i][v] & 63) != 0;
		}
	}
}

static inline uint32_t lut_pack(const struct pack_lut *lut, uint32_t c)
{
	return lut->r[(c >> 16) & 0xff] | lut->g[(c >> 8) & 0xff] | lut->b[c & 0xff];
}

/* c packed where the Bayer threshold is t (0..63): a field's level goes up by one where its
 * share is above t, that is where share + 63 - t reaches 64. */
static inline uint32_t lut_dither(const struct pack_lut *lut, uint32_t c, unsigned t)
{
	uint32_t p = lut->opaque;

	for (int i = 0; i < 3; i++)
		p |= (lut->level[i][c >> (16 - 8 * i) & 0xff] + 63 - t) >> 6 << lut->offset[i];
	return p;
}

/* c packed at a place whose Bayer threshold is t. */
static inline uint32_t lut_pick(const struct pack_lut *lut, uint32_t c, unsigned t)
{
	return lut->dither ? lut_dither(lut, c, t) : lut_pack(lut, c);
}

void pixfmt_convert(const struct pixfmt *fmt, const struct image *src, void *dst, size_t stride)
{
	struct pack_lut lut;
	int x, y, w = src->width;

	pack_lut_init(fmt, &lut);
	/* XRGB8888, the common case: the packed pixel is the picture's word, its alpha the format's */
	bool xrgb = fmt->bytes == 4 && fmt->red.offset == 16 && fmt->red.length == 8 &&
		    fmt->green.offset == 8 && fmt->green.length == 8 && fmt->blue.offset == 0 &&
		    fmt->blue.length == 8;

	for (y = 0; y < src->height; y++) {
		const uint32_t *in = src->pixels + (size_t)y * w;
		uint8_t *out = (uint8_t *)dst + (size_t)y * stride;
		const uint8_t *t = bayer8[y & 7];

		switch (fmt->bytes) {
		case 2:
			for (x = 0; x < w; x++) {
				uint16_t v = (uint16_t)lut_pick(&lut, in[x], t[x & 7]);
				memcpy(out + 2 * x, &v, 2);
			}
			break;
		case 3:
			for (x = 0; x < w; x++) {
				uint32_t v = lut_pick(&lut, in[x], t[x & 7]);
				out[3 * x] = (uint8_t)v;
				out[3 * x + 1] = (uint8_t)(v >> 8);
				out[3 * x + 2] = (uint8_t)(v >> 16);
			}
			break;
		default:
			for (x = 0; xrgb && x < w; x++) {
				uint32_t v = (in[x] & 0xffffffu) | fmt->opaque;

				memcpy(out + 4 * x, &v, 4);
			}
			for (x = xrgb ? w : 0; x < w; x++) {
				uint32_t v = lut_pick(&lut, in[x], t[x & 7]);
				memcpy(out + 4 * x, &v, 4);
			}
			break;
		}
	}
}

/* Tables indexed by the raw field value (at most 8 bits wide). */
struct unpack_lut {
	uint32_t r[256], g[256], b[256];
	uint32_t rmask, gmask, bmask;
};

static void unpack_lut_init(const struct pixfmt *fmt, struct unpack_lut *lut)
{
	struct pixfmt_field at0_r = { 0, fmt->red.length };
	struct pixfmt_field at0_g = { 0, fmt->green.length };
	struct pixfmt_field at0_b = { 0, fmt->blue.length };
	uint32_t v;

	lut->rmask = (1u << fmt->red.length) - 1;
	lut->gmask = (1u << fmt->green.length) - 1;
	lut->bmask = (1u << fmt->blue.length) - 1;
	for (v = 0; v < 256; v++) {
		lut->r[v] = 0xff000000u | unpack_field(at0_r, v) << 16;
		lut->g[v] = unpack_field(at0_g, v) << 8;
		lut->b[v] = unpack_field(at0_b, v);
	}
}

static inline uint32_t lut_unpack(const struct pixfmt *fmt, const struct unpack_lut *lut,
				  uint32_t p)
{
	return lut->r[(p >> fmt->red.offset) & lut->rmask] |
	       lut->g[(p >> fmt->green.offset) & lut->gmask] |
	       lut->b[(p >> fmt->blue.offset) & lut->bmask];
}

void pixfmt_unconvert(const struct pixfmt *fmt, const void *src, size_t stride, struct image *dst)
{
	struct unpack_lut lut;
	int x, y, w = dst->width;

	unpack_lut_init(fmt, &lut);
	for (y = 0; y < dst->height; y++) {
		const uint8_t *in = (const uint8_t *)src + (size_t)y * stride;
		uint32_t *out = dst->pixels + (size_t)y * w;

		switch (fmt->bytes) {
		case 2:
			for (x = 0; x < w; x++) {
				uint16_t v;
				memcpy(&v, in + 2 * x, 2);
				out[x] = lut_unpack(fmt, &lut, v);
			}
			break;
		case 3:
			for (x = 0; x < w; x++) {
				uint32_t v = in[3 * x] | (uint32_t)in[3 * x + 1] << 8 |
					     (uint32_t)in[3 * x + 2] << 16;
				out[x] = lut_unpack(fmt, &lut, v);
			}
			break;
		default:
			for (x = 0; x < w; x++) {
				uint32_t v;
				memcpy(&v, in + 4 * x, 4);
				out[x] = lut_unpack(fmt, &lut, v);
			}
			break;
		}
	}
}

int pixfmt_read_image(const struct pixfmt *fmt, const void *src, size_t stride, int width,
		      int height, struct image *img)
{
	img->width = width;
	img->height = height;
	img->pixels = malloc((size_t)width * height * sizeof(uint32_t));
	if (!img->pixels)
		return -ENOMEM;
	pixfmt_unconvert(fmt, src, stride, img);
	return 0;
}
