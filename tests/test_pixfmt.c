/* test_pixfmt.c - pixel formats: names, exact packing, round trips, whole-picture conversion. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
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

static int channel_diff(uint32_t a, uint32_t b, int shift)
{
	return abs((int)((a >> shift) & 0xff) - (int)((b >> shift) & 0xff));
}

static void roundtrip(const char *name, int w, int h, size_t stride)
{
	struct pixfmt f = named(name);
	struct image src, back;
	size_t row = (size_t)w * f.bytes, i;
	uint8_t *buf = malloc(stride * h);
	int tol_r = (1 << (8 - f.red.length)) - 1, tol_g = (1 << (8 - f.green.length)) - 1;
	int tol_b = (1 << (8 - f.blue.length)) - 1, y;

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
		assert_true(channel_diff(a, b, 16) <= tol_r);
		assert_true(channel_diff(a, b, 8) <= tol_g);
		assert_true(channel_diff(a, b, 0) <= tol_b);
		if (f.bpp != 16)
			assert_int_equal(a, b);
	}
	/* Each packed value also matches pixfmt_pack, in the documented byte layout. */
	for (y = 0; y < h; y++) {
		const uint8_t *p = buf + (size_t)y * stride;
		uint32_t want = pixfmt_pack(&f, src.pixels[y * w + w - 1]), got = 0;

		p += (size_t)(w - 1) * f.bytes;
		if (f.bytes == 2) {
			uint16_t v;
			memcpy(&v, p, 2);
			got = v;
		} else if (f.bytes == 3) {
			got = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
		} else {
			memcpy(&got, p, 4);
		}
		assert_int_equal(got, want);
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
		assert_int_equal(back.pixels[i], pixfmt_unpack(&f, pixfmt_pack(&f, src.pixels[i])));
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
