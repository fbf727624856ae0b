/* test_pixfmt.c - pixel formats: names, exact packing, round trips, whole-picture conversion. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "image/pixfmt.h"

static struct pixfmt_field fld(int offset, int length)
{
	return (struct pixfmt_field){ (uint8_t)offset, (uint8_t)length };
}

static struct pixfmt named(const char *name)
{
	struct pixfmt f;

	assert_int_equal(pixfmt_by_name(&f, name), 0);
	assert_string_equal(f.name, name);
	return f;
}

struct pack_case {
	const char *name;
	int bpp;
	uint32_t rgb, want;
};

static void test_named_pack(void **state)
{
	static const struct pack_case cases[] = {
		{ "RGB565", 16, 0xff0000, 0xf800 }, { "RGB565", 16, 0x00ff00, 0x07e0 },
		{ "RGB565", 16, 0x0000ff, 0x001f }, { "RGB565", 16, 0xffffff, 0xffff },
		{ "RGB565", 16, 0x123456, 0x11aa }, { "RGB565", 16, 0x070307, 0x0000 },
		{ "BGR565", 16, 0xff0000, 0x001f }, { "BGR565", 16, 0x0000ff, 0xf800 },
		{ "BGR565", 16, 0x123456, 0x51a2 },
		{ "RGB888", 24, 0x123456, 0x123456 }, { "BGR888", 24, 0x123456, 0x563412 },
		{ "XRGB8888", 32, 0x123456, 0x00123456 }, { "XBGR8888", 32, 0x123456, 0x00563412 },
		{ "RGBX8888", 32, 0x123456, 0x12345600 }, { "BGRX8888", 32, 0x123456, 0x56341200 },
		{ "XRGB8888", 32, 0xff123456, 0x00123456 },	/* alpha is not packed */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pixfmt f = named(cases[i].name);

		assert_int_equal(f.bpp, cases[i].bpp);
		assert_int_equal(f.bytes, cases[i].bpp / 8);
		assert_int_equal(pixfmt_pack(&f, cases[i].rgb), cases[i].want);
	}
}

static void test_names_from_fields(void **state)
{
	struct pixfmt f;

	(void)state;
	assert_int_equal(pixfmt_init(&f, 16, fld(11, 5), fld(5, 6), fld(0, 5)), 0);
	assert_string_equal(f.name, "RGB565");
	assert_int_equal(pixfmt_init(&f, 32, fld(8, 8), fld(16, 8), fld(24, 8)), 0);
	assert_string_equal(f.name, "BGRX8888");
	assert_int_equal(pixfmt_init(&f, 24, fld(0, 8), fld(8, 8), fld(16, 8)), 0);
	assert_string_equal(f.name, "BGR888");

	/* An unnamed layout gets a short descriptive name. */
	assert_int_equal(pixfmt_init(&f, 16, fld(10, 5), fld(5, 5), fld(0, 5)), 0);
	assert_string_equal(f.name, "R5G5B5@10,5,0");
	assert_int_equal(pixfmt_init(&f, 32, fld(31, 1), fld(30, 1), fld(29, 1)), 0);
	assert_true(strlen(f.name) < sizeof(f.name));
	assert_int_equal(pixfmt_pack(&f, 0xff0080), 0xa0000000u);
	assert_int_equal(pixfmt_by_name(&f, "RGB666"), -EINVAL);
	assert_int_equal(pixfmt_by_name(&f, "rgb565"), -EINVAL);
}

static void test_invalid_fields(void **state)
{
	struct pixfmt f;

	(void)state;
	assert_int_equal(pixfmt_init(&f, 8, fld(5, 3), fld(2, 3), fld(0, 2)), -EINVAL);
	assert_int_equal(pixfmt_init(&f, 15, fld(10, 5), fld(5, 5), fld(0, 5)), -EINVAL);
	assert_int_equal(pixfmt_init(&f, 64, fld(16, 8), fld(8, 8), fld(0, 8)), -EINVAL);
	/* lengths 0 and 9 */
	assert_int_equal(pixfmt_init(&f, 16, fld(11, 0), fld(5, 6), fld(0, 5)), -EINVAL);
	assert_int_equal(pixfmt_init(&f, 32, fld(16, 9), fld(8, 8), fld(0, 8)), -EINVAL);
	/* overlapping */
	assert_int_equal(pixfmt_init(&f, 16, fld(11, 5), fld(4, 6), fld(0, 5)), -EINVAL);
	assert_int_equal(pixfmt_init(&f, 32, fld(0, 8), fld(8, 8), fld(0, 8)), -EINVAL);
	/* beyond bpp */
	assert_int_equal(pixfmt_init(&f, 16, fld(12, 5), fld(5, 6), fld(0, 5)), -EINVAL);
	assert_int_equal(pixfmt_init(&f, 24, fld(24, 8), fld(8, 8), fld(0, 8)), -EINVAL);
	assert_int_equal(pixfmt_init(&f, 32, fld(255, 8), fld(8, 8), fld(0, 8)), -EINVAL);
}

/* The 8-bit value a channel of length len comes back as after a round trip. */
static uint32_t representable(uint32_t v, int len)
{
	uint32_t top = v >> (8 - len), out = 0;
	int s;

	for (s = 8 - len; s > -len; s -= len)
		out |= s >= 0 ? top << s : top >> -s;
	return out;
}

static void test_unpack_expands(void **state)
{
	struct pixfmt f = named("RGB565");

	(void)state;
	assert_int_equal(pixfmt_unpack(&f, 0xffff), 0xffffffffu);
	assert_int_equal(pixfmt_unpack(&f, 0x0000), 0xff000000u);
	assert_int_equal(pixfmt_unpack(&f, 0xf800), 0xffff0000u);
	assert_int_equal(pixfmt_unpack(&f, 0x07e0), 0xff00ff00u);
	/* 5-bit 0b10000 -> 0b10000100, 6-bit 0b100000 -> 0b10000010 */
	assert_int_equal(pixfmt_unpack(&f, 0x8410), 0xff848284u);
}

static void test_unpack_pack_named(void **state)
{
	static const char *const names[] = { "RGB565", "BGR565", "RGB888", "BGR888",
					     "XRGB8888", "XBGR8888", "RGBX8888", "BGRX8888" };
	size_t i;
	uint32_t c;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct pixfmt f = named(names[i]);

		for (c = 0; c < 0x1000000; c += 0x010305) {
			uint32_t r = representable(c >> 16, f.red.length);
			uint32_t g = representable((c >> 8) & 0xff, f.green.length);
			uint32_t b = representable(c & 0xff, f.blue.length);
			uint32_t rep = r << 16 | g << 8 | b;

			assert_int_equal(pixfmt_unpack(&f, pixfmt_pack(&f, rep)), 0xff000000u | rep);
		}
	}
}

static void test_pack_unpack_565_all(void **state)
{
	struct pixfmt f[2] = { named("RGB565"), named("BGR565") };
	uint32_t p;
	int i;

	(void)state;
	for (i = 0; i < 2; i++)
		for (p = 0; p < 0x10000; p++)
			assert_int_equal(pixfmt_pack(&f[i], pixfmt_unpack(&f[i], p)), p);
}

static void fill_varied(struct image *img, int w, int h)
{
	int x, y;

	img->width = w;
	img->height = h;
	img->pixels = malloc((size_t)w * h * sizeof(uint32_t));
	assert_non_null(img->pixels);
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			img->pixels[y * w + x] = 0xff000000u | (uint32_t)(x * 37 + y * 11) << 16 |
						 (uint32_t)((x * 91 + y * 53) & 0xff) << 8 |
						 (uint32_t)((x ^ (y * 7)) * 29 & 0xff);
	img->pixels[0] = 0xffffffff;
	if (w * h > 1)
		img->pixels[w * h - 1] = 0xff000000;
}

/* The largest value of a channel of length len at or below v (8 bits): the level below it. */
static uint32_t level_below(uint32_t v, int len)
{
	uint32_t q = v >> (8 - len);

	return representable(q << (8 - len), len) > v ? representable((q - 1) << (8 - len), len)
						       : representable(q << (8 - len), len);
}

/* The level above v: v itself when it is one. */
static uint32_t level_above(uint32_t v, int len)
{
	uint32_t lo = level_below(v, len), q = lo >> (8 - len);

	return lo == v ? v : representable((q + 1) << (8 - len), len);
}

/* Each channel of the converted pixel b is one of the two levels around the picture's a. */
static void assert_bracketed(const struct pixfmt *f, uint32_t a, uint32_t b)
{
	const int len[3] = { f->red.length, f->green.length, f->blue.length };

	for (int i = 0; i < 3; i++) {
		uint32_t va = a >> (16 - 8 * i) & 0xff, vb = b >> (16 - 8 * i) & 0xff;

		if (vb != level_below(va, len[i]) && vb != level_above(va, len[i]))
			fail_msg("channel %d: %u became %u, not %u or %u", i, va, vb,
				 level_below(va, len[i]), level_above(va, len[i]));
	}
}

static void roundtrip(const char *name, int w, int h, size_t stride)
{
	struct pixfmt f = named(name);
	struct image src, back;
	size_t row = (size_t)w * f.bytes, i;
	uint8_t *buf = malloc(stride * h);
	int y;

	assert_non_null(buf);
	fill_varied(&src, w, h);
	memset(buf, 0xa5, stride * h);
	pixfmt_convert(&f, &src, buf, stride);
	for (y = 0; y < h; y++)
		for (i = row; i < stride; i++)
			assert_int_equal(buf[y * stride + i], 0xa5);

	back.width = w;
	back.height = h;
	back.pixels = calloc((size_t)w * h, sizeof(uint32_t));
	assert_non_null(back.pixels);
	pixfmt_unconvert(&f, buf, stride, &back);
	for (i = 0; i < (size_t)w * h; i++) {
		uint32_t a = src.pixels[i], b = back.pixels[i];

		assert_int_equal(b >> 24, 0xff);
		assert_bracketed(&f, a, b);
		if (f.bpp != 16)
			assert_int_equal(a, b);
	}
	/* Each packed value also unpacks to what pixfmt_unconvert gave, in the documented byte
	 * layout. */
	for (y = 0; y < h; y++) {
		const uint8_t *p = buf + (size_t)y * stride + (size_t)(w - 1) * f.bytes;
		uint32_t got = 0;

		if (f.bytes == 2) {
			uint16_t v;
			memcpy(&v, p, 2);
			got = v;
		} else if (f.bytes == 3) {
			got = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
		} else {
			memcpy(&got, p, 4);
		}
		assert_int_equal(pixfmt_unpack(&f, got), back.pixels[y * w + w - 1]);
		if (f.bpp != 16)
			assert_int_equal(got, pixfmt_pack(&f, src.pixels[y * w + w - 1]));
	}
	free(back.pixels);
	free(src.pixels);
	free(buf);
}

static void test_convert_roundtrip(void **state)
{
	(void)state;
	roundtrip("RGB565", 13, 7, 13 * 2 + 6);
	roundtrip("BGR565", 16, 5, 16 * 2 + 2);
	roundtrip("RGB888", 11, 6, 11 * 3 + 1);	/* odd stride */
	roundtrip("BGR888", 10, 9, 10 * 3 + 5);
	roundtrip("XRGB8888", 9, 4, 9 * 4 + 12);
	roundtrip("XBGR8888", 9, 4, 9 * 4 + 4);
	roundtrip("RGBX8888", 7, 3, 7 * 4 + 8);
	roundtrip("BGRX8888", 7, 3, 7 * 4 + 16);
	roundtrip("RGB888", 1, 1, 3);
}

static void test_convert_unnamed(void **state)
{
	struct pixfmt f;
	struct image src, back;
	uint16_t buf[4 * 2];
	int i;

	(void)state;
	/* XRGB1555: the top bit stays 0 */
	assert_int_equal(pixfmt_init(&f, 16, fld(10, 5), fld(5, 5), fld(0, 5)), 0);
	fill_varied(&src, 4, 2);
	pixfmt_convert(&f, &src, buf, 4 * sizeof(uint16_t));
	for (i = 0; i < 8; i++)
		assert_int_equal(buf[i] & 0x8000, 0);
	assert_int_equal(buf[0], 0x7fff);
	back.width = 4;
	back.height = 2;
	back.pixels = calloc(8, sizeof(uint32_t));
	assert_non_null(back.pixels);
	pixfmt_unconvert(&f, buf, 4 * sizeof(uint16_t), &back);
	for (i = 0; i < 8; i++)
		assert_bracketed(&f, src.pixels[i], back.pixels[i]);
	free(back.pixels);
	free(src.pixels);
}

/* fbdev's transp: set in every pixel packed or converted, whatever the picture's own alpha,
 * so hardware that blends by it shows the picture; refused where it is no field of its own. */
static void test_alpha_is_opaque(void **state)
{
	static const struct {
		const char *name;
		struct pixfmt_field alpha;
		const char *named;
		uint32_t want;	/* 0x123456 packed */
	} cases[] = {
		{ "XRGB8888", { 24, 8 }, "ARGB8888", 0xff123456 },
		{ "XBGR8888", { 24, 8 }, "ABGR8888", 0xff563412 },
		{ "RGBX8888", { 0, 8 }, "RGBA8888", 0x123456ff },
		{ "BGRX8888", { 0, 8 }, "BGRA8888", 0x563412ff },
		{ "XRGB8888", { 28, 4 }, "XRGB8888", 0xf0123456 },
		{ "XRGB8888", { 0, 0 }, "XRGB8888", 0x00123456 },
	};
	uint32_t out[3 * 2];
	struct image src;
	struct pixfmt f;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		f = named(cases[i].name);
		assert_int_equal(pixfmt_set_alpha(&f, cases[i].alpha), 0);
		assert_string_equal(f.name, cases[i].named);
		assert_int_equal(pixfmt_pack(&f, 0x123456), cases[i].want);
		assert_int_equal(pixfmt_unpack(&f, cases[i].want), 0xff123456);
		fill_varied(&src, 3, 2);
		src.pixels[1] &= 0x00ffffff;	/* a transparent pixel of the picture */
		pixfmt_convert(&f, &src, out, 3 * sizeof(uint32_t));
		for (int p = 0; p < 6; p++)
			assert_int_equal(out[p], pixfmt_pack(&f, src.pixels[p]));
		free(src.pixels);
	}
	/* ARGB1555 */
	assert_int_equal(pixfmt_init(&f, 16, fld(10, 5), fld(5, 5), fld(0, 5)), 0);
	assert_int_equal(pixfmt_set_alpha(&f, fld(15, 1)), 0);
	assert_int_equal(pixfmt_pack(&f, 0), 0x8000);
	/* over a colour, or past the pixel: left out */
	f = named("RGB565");
	assert_int_equal(pixfmt_set_alpha(&f, fld(15, 1)), -EINVAL);
	assert_int_equal(pixfmt_pack(&f, 0), 0);
	f = named("XRGB8888");
	assert_int_equal(pixfmt_set_alpha(&f, fld(28, 8)), -EINVAL);
	assert_int_equal(pixfmt_set_alpha(&f, fld(16, 8)), -EINVAL);
	assert_string_equal(f.name, "XRGB8888");
}

/* A w x h picture through fmt and back: what the screen shows of it. */
static struct image shown(const struct pixfmt *f, const struct image *src)
{
	size_t stride = (size_t)src->width * f->bytes;
	uint8_t *buf = malloc(stride * src->height);
	struct image back = { src->width, src->height, NULL };

	assert_non_null(buf);
	back.pixels = malloc((size_t)src->width * src->height * sizeof(uint32_t));
	assert_non_null(back.pixels);
	pixfmt_convert(f, src, buf, stride);
	pixfmt_unconvert(f, buf, stride, &back);
	free(buf);
	return back;
}

static struct image picture(int w, int h)
{
	struct image img = { w, h, malloc((size_t)w * h * sizeof(uint32_t)) };

	assert_non_null(img.pixels);
	return img;
}

static uint32_t grey(uint32_t v)
{
	return 0xff000000u | v << 16 | v << 8 | v;
}

/* The mean of channel shift along a line of n pixels from at, step apart. */
static double line_mean(const struct image *img, int at, int step, int n, int shift)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += img->pixels[at + i * step] >> shift & 0xff;
	return sum / n;
}

/* Lines across a grey gradient (columns of a horizontal one, rows of a vertical one): each
 * averages within 0.4 of a step to the grey it stands for (an ordered dither's lines are
 * balanced only so far), and any 8 side by side within 0.15 of a step, where truncation
 * draws a staircase up to a whole step (7 of 255 in 5 bits) below the gradient. */
static void check_gradient(const char *name, bool vertical)
{
	struct pixfmt f = named(name);
	const int len[3] = { f.red.length, f.green.length, f.blue.length };
	int across = 32, w = vertical ? across : 256, h = vertical ? 256 : across;
	struct image src = picture(w, h), back;
	double mean[256];

	for (int i = 0; i < w * h; i++)
		src.pixels[i] = grey((uint32_t)(vertical ? i / w : i % w));
	back = shown(&f, &src);
	for (int c = 0; c < 3; c++) {
		double step = 255.0 / ((1 << len[c]) - 1), run = 0;

		for (int v = 0; v < 256; v++) {
			mean[v] = line_mean(&back, vertical ? v * w : v, vertical ? 1 : w, across,
					    16 - 8 * c);
			if (fabs(mean[v] - v) > 0.4 * step)
				fail_msg("%s %s %d, channel %d: mean %.2f", name,
					 vertical ? "row" : "column", v, c, mean[v]);
			run += mean[v] - v - (v >= 8 ? mean[v - 8] - (v - 8) : 0);
			if (v >= 7 && fabs(run / 8) > 0.15 * step)
				fail_msg("%s %ss %d..%d, channel %d: %.2f off", name,
					 vertical ? "row" : "column", v - 7, v, c, run / 8);
		}
	}
	free(back.pixels);
	free(src.pixels);
}

static void test_gradient_565_is_smooth(void **state)
{
	(void)state;
	check_gradient("RGB565", false);
	check_gradient("RGB565", true);
	check_gradient("BGR565", false);
	check_gradient("BGR565", true);
}

/* A flat colour between two levels averages to itself over the screen, within a sixteenth of a
 * step; truncation shows it up to 7 of 255 too dark. */
static void test_flat_between_levels_averages(void **state)
{
	static const uint32_t colours[] = { 0x123456, 0x7f7f7f, 0x808080, 0x0a1b2c, 0xfefdfc,
					    0x204060, 0x010101, 0xc0ffee };
	struct pixfmt f = named("RGB565");
	const int len[3] = { f.red.length, f.green.length, f.blue.length };
	struct image src = picture(64, 64), back;

	(void)state;
	for (size_t k = 0; k < sizeof(colours) / sizeof(colours[0]); k++) {
		for (int i = 0; i < 64 * 64; i++)
			src.pixels[i] = 0xff000000u | colours[k];
		back = shown(&f, &src);
		for (int c = 0; c < 3; c++) {
			double v = colours[k] >> (16 - 8 * c) & 0xff;
			double mean = line_mean(&back, 0, 1, 64 * 64, 16 - 8 * c);
			double tol = 255.0 / ((1 << len[c]) - 1) / 16;

			if (mean < v - tol || mean > v + tol)
				fail_msg("%06x, channel %d: mean %.2f", colours[k], c, mean);
		}
		free(back.pixels);
	}
	free(src.pixels);
}

/* Every colour RGB565 holds, black and white among them, as a flat 8 x 8 tile: each stays
 * exactly that colour, without a dot of dither. */
static void test_representable_stays_flat(void **state)
{
	struct pixfmt f = named("RGB565");
	int w = 256 * 8;
	struct image src = picture(w, w), back;

	(void)state;
	for (int y = 0; y < w; y++)
		for (int x = 0; x < w; x++)
			src.pixels[y * w + x] = pixfmt_unpack(&f, (uint32_t)(y / 8 * 256 + x / 8));
	back = shown(&f, &src);
	for (int i = 0; i < w * w; i++)
		if (back.pixels[i] != src.pixels[i])
			fail_msg("(%d,%d): %08x became %08x", i % w, i / w, src.pixels[i],
				 back.pixels[i]);
	free(back.pixels);
	free(src.pixels);
}

/* A frame read back from a 16 bpp screen (an "@screen" app's frame) converts back to exactly
 * the same bytes, wherever each value stands. */
static void test_frame_read_back_converts_to_itself(void **state)
{
	struct pixfmt f[2] = { named("RGB565"), named("BGR565") };
	uint16_t *frame = malloc(256 * 256 * sizeof(*frame)), *again = malloc(256 * 256 * 2);
	struct image img;

	(void)state;
	assert_non_null(frame);
	assert_non_null(again);
	for (int i = 0; i < 256 * 256; i++)
		frame[i] = (uint16_t)(i * 40503u);	/* every value once, neighbours far apart */
	for (int k = 0; k < 2; k++) {
		assert_int_equal(pixfmt_read_image(&f[k], frame, 256 * 2, 256, 256, &img), 0);
		pixfmt_convert(&f[k], &img, again, 256 * 2);
		assert_memory_equal(again, frame, 256 * 256 * 2);
		image_free(&img);
	}
	free(again);
	free(frame);
}

/* Formats of whole bytes a channel convert as they always did: each pixel pixfmt_pack's. */
static void test_8_bit_formats_unchanged(void **state)
{
	static const char *const names[] = { "RGB888", "BGR888", "XRGB8888", "XBGR8888",
					      "RGBX8888", "BGRX8888" };
	uint8_t *buf = malloc(64 * 64 * 4);
	struct image src;

	(void)state;
	assert_non_null(buf);
	fill_varied(&src, 64, 64);
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		struct pixfmt f = named(names[k]);

		pixfmt_convert(&f, &src, buf, 64 * (size_t)f.bytes);
		for (int i = 0; i < 64 * 64; i++) {
			const uint8_t *p = buf + (size_t)i * f.bytes;
			uint32_t got = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;

			if (f.bytes == 4)
				got |= (uint32_t)p[3] << 24;
			assert_int_equal(got, pixfmt_pack(&f, src.pixels[i]));
		}
	}
	free(src.pixels);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named_pack),
		cmocka_unit_test(test_names_from_fields),
		cmocka_unit_test(test_invalid_fields),
		cmocka_unit_test(test_unpack_expands),
		cmocka_unit_test(test_unpack_pack_named),
		cmocka_unit_test(test_pack_unpack_565_all),
		cmocka_unit_test(test_convert_roundtrip),
		cmocka_unit_test(test_convert_unnamed),
		cmocka_unit_test(test_alpha_is_opaque),
		cmocka_unit_test(test_gradient_565_is_smooth),
		cmocka_unit_test(test_flat_between_levels_averages),
		cmocka_unit_test(test_representable_stays_flat),
		cmocka_unit_test(test_frame_read_back_converts_to_itself),
		cmocka_unit_test(test_8_bit_formats_unchanged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
