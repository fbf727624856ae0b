/* test_render_paths.c - every render path this CPU runs draws exactly the scalar path's pixels. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/pixfmt.h"
#include "render/render.h"
#include "water/water.h"

enum { SENTINEL = 0x5A };

static const char *const formats[] = { "RGB565", "BGR565", "RGB888", "BGR888",
				       "XRGB8888", "XBGR8888", "RGBX8888", "BGRX8888" };

/* Layouts fbdev may report beside the named ones: an 18-bit panel's in 24- and 32-bit pixels
 * and bytes off the byte boundaries (light goes field by field there), whole bytes around a
 * gap and in another order (light by byte sums), and with alpha, which every pixel keeps
 * opaque (ARGB8888 by byte sums, ARGB1555 field by field). */
static const struct {
	int bpp;
	struct pixfmt_field red, green, blue, alpha;
} unnamed[] = {
	{ 24, { 12, 6 }, { 6, 6 }, { 0, 6 }, { 0, 0 } },
	{ 32, { 20, 6 }, { 11, 6 }, { 2, 6 }, { 0, 0 } },
	{ 32, { 20, 8 }, { 10, 8 }, { 1, 8 }, { 0, 0 } },
	{ 32, { 24, 8 }, { 16, 8 }, { 0, 8 }, { 0, 0 } },
	{ 24, { 0, 8 }, { 16, 8 }, { 8, 8 }, { 0, 0 } },
	{ 32, { 16, 8 }, { 8, 8 }, { 0, 8 }, { 24, 8 } },
	{ 16, { 10, 5 }, { 5, 5 }, { 0, 5 }, { 15, 1 } },
};

/* Logical sizes: odd widths around the vectors' 4, 8 and 16 pixels, some cells of 8 with a part
 * one at the end, rows that end on a whole vector (a byte written past it lands on the
 * padding), one wider than 1080p (two strips at cell 8), one taller than the bands rotated
 * frames are turned in (256 rows at 16 bpp). */
static const int sizes[][2] = { { 1, 3 }, { 7, 5 }, { 33, 19 }, { 61, 11 }, { 64, 7 },
				{ 1921, 6 }, { 37, 301 } };

enum waves { STONES, SMALL, HUGE };

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Channel extremes beside random colours, so that light saturates every way. */
static struct image splash_of(int width, int height, uint64_t seed)
{
	static const uint32_t harsh[] = { 0xffffff, 0x000000, 0xff00ff, 0x00ff00, 0xfe0180,
					  0x7f80ff, 0x010203, 0xfdfefc };
	struct image img = { width, height, malloc((size_t)width * height * 4) };

	for (int i = 0; i < width * height; i++)
		img.pixels[i] = 0xff000000u | (i % 3 ? harsh[next(&seed) % 8]
						     : (uint32_t)next(&seed) & 0xffffff);
	return img;
}

/* Stones stepped into rings, or random heights: small ones that stay in the picture, or any
 * int16 at all, which throw every pixel to an edge and every slope to its limit. */
static void water_of(struct water *w, int width, int height, int cell, enum waves waves,
		     uint64_t seed)
{
	assert_int_equal(water_init(w, width, height, cell, 5), 0);
	if (waves == STONES) {
		water_drop(w, width / 3, height / 2, 4 * cell, 900 * w->scale);
		water_drop(w, width - 2, 1, 2 * cell, -400 * w->scale);
		for (int i = 0; i < 5; i++)
			water_step(w);
		return;
	}
	for (int y = 0; y < w->height; y++) {
		for (int x = 0; x < w->width; x++) {
			int16_t v = (int16_t)next(&seed);

			water_row(w, y)[x] = waves == SMALL ? v % 24 * w->scale : v;
		}
		water_mark_live(w, y);
	}
}

/* The frame of path (or NULL where this CPU cannot run it): physical rows padded with
 * SENTINEL bytes that must stay. */
static uint8_t *frame_of(enum render_path path, const struct pixfmt *fmt, const struct image *img,
			 const struct water *w, int rotate, const struct render_light *light,
			 size_t *size)
{
	struct render r;
	bool side = rotate % 180 != 0;
	int pw = side ? img->height : img->width, ph = side ? img->width : img->height;
	size_t stride = (size_t)(pw + 3) * fmt->bytes;
	uint8_t *fb;

	assert_int_equal(render_init(&r, pw, ph, rotate, w->cell, fmt), 0);
	if (render_set_path(&r, path) < 0) {
		render_free(&r);
		return NULL;
	}
	assert_int_equal(render_set_splash(&r, img), 0);
	render_set_light(&r, light);
	assert_int_equal(r.path, path);
	*size = stride * ph;
	fb = malloc(*size);
	memset(fb, SENTINEL, *size);
	assert_int_equal(render_frame(&r, w, fb, stride, 0, true), img->height);
	render_free(&r);
	return fb;
}

/* The scalar frame at rotate is the one at rotate 0 turned clockwise, pixel for pixel. */
static void assert_turned(const uint8_t *turned, const uint8_t *upright, int width, int height,
			  int rotate, int bytes)
{
	bool side = rotate % 180 != 0;
	size_t stride = (size_t)(width + 3) * bytes;
	size_t tstride = (size_t)((side ? height : width) + 3) * bytes;

	for (int y = 0; y < height; y++)
		for (int x = 0; x < width; x++) {
			int px = rotate == 90 ? height - 1 - y : rotate == 180 ? width - 1 - x
			       : rotate == 270 ? y : x;
			int py = rotate == 90 ? x : rotate == 180 ? height - 1 - y
			       : rotate == 270 ? width - 1 - x : y;

			if (memcmp(turned + py * tstride + (size_t)px * bytes,
				   upright + y * stride + (size_t)x * bytes, bytes))
				fail_msg("rotate %d: logical (%d,%d) of %dx%d is not at (%d,%d)",
					 rotate, x, y, width, height, px, py);
		}
}

/* Every pixel of a frame opaque where the format has alpha (the padding left alone). */
static void assert_opaque(const uint8_t *fb, const struct pixfmt *fmt, int pw, int ph)
{
	size_t stride = (size_t)(pw + 3) * fmt->bytes;

	for (int y = 0; y < ph; y++)
		for (int x = 0; x < pw; x++) {
			uint32_t v = 0;

			memcpy(&v, fb + y * stride + (size_t)x * fmt->bytes, fmt->bytes);
			if ((v & fmt->opaque) != fmt->opaque)
				fail_msg("%s: pixel (%d,%d) is %08x, not opaque", fmt->name, x, y, v);
		}
}

/* Each case against the scalar frame, byte for byte, padding included. */
static int compare_paths(const struct pixfmt *format, int width, int height, int cell,
			 enum waves waves, int rotate, const struct render_light *light)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)(width * 131 + cell * 7 + waves);
	struct image img = splash_of(width, height, seed);
	struct pixfmt fmt = *format;
	struct water w;
	size_t size;
	uint8_t *want;
	int compared = 0;

	water_of(&w, width, height, cell, waves, seed);
	want = frame_of(RENDER_SCALAR, &fmt, &img, &w, rotate, light, &size);
	assert_opaque(want, &fmt, rotate % 180 ? height : width, rotate % 180 ? width : height);
	if (rotate) {
		uint8_t *upright = frame_of(RENDER_SCALAR, &fmt, &img, &w, 0, light, &size);

		assert_turned(want, upright, width, height, rotate, fmt.bytes);
		free(upright);
	}
	for (int p = RENDER_SCALAR + 1; p < RENDER_PATHS; p++) {
		uint8_t *got = frame_of(p, &fmt, &img, &w, rotate, light, &size);

		if (!got)
			continue;
		for (size_t i = 0; i < size; i++)
			if (got[i] != want[i])
				fail_msg("%s %s %dx%d cell %d waves %d rotate %d light %.1f: byte %zu "
					 "is %02x, scalar %02x", render_path_name(p), fmt.name, width,
					 height, cell, waves, rotate, light->strength, i, got[i],
					 want[i]);
		compared++;
		free(got);
	}
	free(want);
	free(img.pixels);
	water_free(&w);
	return compared;
}

enum { NAMED = sizeof(formats) / sizeof(formats[0]) };
enum { FORMATS = NAMED + sizeof(unnamed) / sizeof(unnamed[0]) };

static void format_of(size_t i, struct pixfmt *fmt)
{
	if (i < NAMED) {
		assert_int_equal(pixfmt_by_name(fmt, formats[i]), 0);
		return;
	}
	i -= NAMED;
	assert_int_equal(pixfmt_init(fmt, unnamed[i].bpp, unnamed[i].red, unnamed[i].green,
				     unnamed[i].blue), 0);
	assert_int_equal(pixfmt_set_alpha(fmt, unnamed[i].alpha), 0);
	assert_int_equal(fmt->opaque,
			 ((1u << unnamed[i].alpha.length) - 1) << unnamed[i].alpha.offset);
}

static void check_all(int cell, const struct render_light *light)
{
	int compared = 0;

	for (size_t f = 0; f < FORMATS; f++) {
		struct pixfmt fmt;

		format_of(f, &fmt);
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			for (int waves = STONES; waves <= HUGE; waves++)
				for (int rotate = 0; rotate <= 270; rotate += 90)
					compared += compare_paths(&fmt, sizes[s][0], sizes[s][1],
								  cell, waves, rotate, light);
	}
	/* on x86-64 and arm64 at least one vector path was compared */
#if defined(__x86_64__) || defined(__aarch64__)
	assert_true(compared > 0);
#endif
}

static void test_cell_1_without_light(void **state)
{
	(void)state;
	check_all(1, &(struct render_light){ 0, 0, 0 });
}

static void test_cell_1_with_strong_light(void **state)
{
	(void)state;
	check_all(1, &(struct render_light){ 4.0, 45, 1.0 });
}

static void test_cells_without_light(void **state)
{
	(void)state;
	for (int cell = 2; cell <= 8; cell++)
		check_all(cell, &(struct render_light){ 0, 0, 0 });
}

static void test_cells_with_light(void **state)
{
	(void)state;
	check_all(2, &(struct render_light){ 1.0, 45, 0.3 });
	check_all(4, &(struct render_light){ 1.5, 300, 0.5 });
	check_all(3, &(struct render_light){ 4.0, 135, 1.0 });
	check_all(5, &(struct render_light){ 2.0, 200, 0.8 });
	check_all(8, &(struct render_light){ 1.0, 315, 0.5 });
	/* the ends of water.specular's range: no glint, and the steepest */
	check_all(3, &(struct render_light){ 4.0, 100, 0.0 });
	check_all(2, &(struct render_light){ 4.0, 10, 4.0 });
	check_all(6, &(struct render_light){ 0.1, 170, 4.0 });
}

/* The loud cells by their definition: neighbours or a step apart by more than t or f. */
static uint64_t loud_by_hand(const int16_t *p, const int16_t *q, ptrdiff_t s, int n, int lo,
			     int hi, int f)
{
	uint64_t bits = 0;

	for (int i = 0; i < n; i++) {
		long x = (long)p[i - 1] - p[i + 1], y = (long)p[i - s] - p[i + s];

		if (x < -lo || x > hi || y < -lo || y > hi ||
		    (f >= 0 && labs((long)p[i] - q[i]) > f))
			bits |= 1ull << i;
	}
	return bits;
}

/* Every path's calm detection finds the same loud cells: at counts 1 to 20 and 27 to 64 (AVX2
 * takes 32 cells a step, then 16) from 9 starts in a row, windows from 0 to 32766 on either
 * side, lopsided too, heights small or at the int16 extremes (65535 apart, which the vector
 * paths saturate). */
static void test_calm_cells_agree(void **state)
{
	enum { S = 80, ROWS = 3 };
	static const int windows[][2] = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 2, 1 }, { 3, 3 },
					  { 255, 0 }, { 0, 255 }, { 32766, 1 }, { 1, 32766 },
					  { 32766, 32766 } };
	static const int tints[] = { -1, 0, 7, 32768, 65535 };
	int16_t cur[S * ROWS], prev[S * ROWS];
	uint64_t seed = 0x2545f4914f6cdd1dull;
	struct pixfmt fmt;
	struct render r;
	int compared = 0;

	(void)state;
	assert_int_equal(pixfmt_by_name(&fmt, "XRGB8888"), 0);
	assert_int_equal(render_init(&r, 8, 8, 0, 1, &fmt), 0);
	for (int round = 0; round < 8; round++) {
		for (int i = 0; i < S * ROWS; i++) {
			uint64_t v = next(&seed);

			cur[i] = (int16_t)(round % 2 ? (v & 1 ? INT16_MIN : INT16_MAX) - (int)(v >> 60)
						     : (int)(v % 9) - 4);
			prev[i] = (int16_t)(round % 4 == 3 ? (int16_t)(v >> 16) : cur[i] + (int)(v >> 62));
		}
		for (int p = 0; p < RENDER_PATHS; p++) {
			if (render_set_path(&r, p) < 0)
				continue;
			for (int at = 1; at <= 9; at++)
				for (int n = 1; n <= 64 && at + n < S - 1;
				     n += n < 20 || n >= 27 ? 1 : 7)
					for (size_t t = 0; t < sizeof(windows) / sizeof(*windows); t++)
						for (size_t f = 0; f < sizeof(tints) / sizeof(*tints); f++) {
							const int16_t *row = cur + S + at;
							int lo = windows[t][0], hi = windows[t][1];
							uint64_t want = loud_by_hand(row, prev + S + at, S, n,
										     lo, hi, tints[f]);

							if (r.loud_cells(row, prev + S + at, S, n, lo, hi,
									 tints[f]) != want)
								fail_msg("%s: round %d, %d cells at %d, -%d..%d, f %d",
									 render_path_name(p), round, n, at,
									 lo, hi, tints[f]);
							compared++;
						}
		}
	}
	render_free(&r);
	assert_true(compared > 0);
}

/* FBRIPPLE_SIMD names a path; a name this CPU cannot run leaves the fastest it can. */
static void test_paths_are_named_and_forced(void **state)
{
	struct pixfmt fmt;
	struct render r;
	enum render_path best = RENDER_SCALAR;

	(void)state;
	for (int p = 0; p < RENDER_PATHS; p++)
		if (render_path_available(p))
			best = p;
	assert_string_equal(render_path_name(RENDER_SCALAR), "scalar");
	assert_string_equal(render_path_name(RENDER_SSE41), "sse41");
	assert_string_equal(render_path_name(RENDER_AVX2), "avx2");
	assert_null(render_path_name(RENDER_PATHS));
	assert_int_equal(pixfmt_by_name(&fmt, "XRGB8888"), 0);
	setenv("FBRIPPLE_SIMD", "scalar", 1);
	assert_int_equal(render_init(&r, 8, 8, 0, 1, &fmt), 0);
	assert_int_equal(r.path, RENDER_SCALAR);
	render_free(&r);
	setenv("FBRIPPLE_SIMD", "no-such-path", 1);
	assert_int_equal(render_path_default(), best);
	unsetenv("FBRIPPLE_SIMD");
	assert_int_equal(render_path_default(), best);
#if defined(__x86_64__)
	assert_true(render_path_available(RENDER_SSE2));
	/* every AVX2 CPU has SSE4.1 */
	assert_true(!render_path_available(RENDER_AVX2) || render_path_available(RENDER_SSE41));
	assert_false(render_path_available(RENDER_NEON));
#elif defined(__aarch64__)
	assert_true(render_path_available(RENDER_NEON));
	assert_false(render_path_available(RENDER_SSE41));
	assert_false(render_path_available(RENDER_AVX2));
#endif
	assert_int_equal(render_init(&r, 8, 8, 0, 1, &fmt), 0);
	for (int p = 0; p < RENDER_PATHS; p++)
		assert_int_equal(render_set_path(&r, p), render_path_available(p) ? 0 : -ENOTSUP);
	render_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cell_1_without_light),
		cmocka_unit_test(test_cell_1_with_strong_light),
		cmocka_unit_test(test_cells_without_light),
		cmocka_unit_test(test_cells_with_light),
		cmocka_unit_test(test_calm_cells_agree),
		cmocka_unit_test(test_paths_are_named_and_forced),
	};

	for (int p = 0; p < RENDER_PATHS; p++)
		if (render_path_available(p))
			printf("render path %s: compared\n", render_path_name(p));
	return cmocka_run_group_tests_name("render_paths", tests, NULL, NULL);
}
