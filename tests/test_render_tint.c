/* test_render_tint.c - water.tint: the colour goes over fast water only, by its speed. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "image/pixfmt.h"
#include "render/render.h"
#include "water/water.h"

enum { N = 31, MID = 15, BLOCK = 4 };	/* a square screen: its middle stays put when rotated */

#define GROUND 0x204060u
#define TINT 0xff3080u

static const char *const formats[] = { "RGB565", "BGR565", "RGB888", "BGR888",
				       "XRGB8888", "XBGR8888", "RGBX8888", "BGRX8888" };

struct scene {
	struct pixfmt fmt;
	struct water water;
	struct render render;
	uint8_t fb[N * N * 4];
};

static void scene_open(struct scene *s, const char *format, int rotate, int cell)
{
	struct image splash = { N, N, malloc(N * N * sizeof(uint32_t)) };

	memset(s, 0, sizeof(*s));
	assert_int_equal(pixfmt_by_name(&s->fmt, format), 0);
	for (int i = 0; i < N * N; i++)
		splash.pixels[i] = 0xff000000u | GROUND;
	assert_int_equal(water_init(&s->water, N, N, cell, 5), 0);
	assert_int_equal(render_init(&s->render, N, N, rotate, cell, &s->fmt), 0);
	assert_int_equal(render_set_splash(&s->render, &splash), 0);
	free(splash.pixels);
}

static void scene_close(struct scene *s)
{
	water_free(&s->water);
	render_free(&s->render);
}

/* A plateau of cells around the middle, height h now and 0 a step before: moving at speed h.
 * Over a picture of one colour, refraction changes nothing: only the tint can show. */
static void plateau(struct scene *s, int16_t h)
{
	int c = MID / s->water.cell, b = BLOCK / s->water.cell;

	for (int y = c - b; y <= c + b; y++) {
		for (int x = c - b; x <= c + b; x++)
			water_row(&s->water, y)[x] = (int16_t)(h * s->water.scale);
		water_mark_live(&s->water, y);
	}
}

static uint32_t pixel(const struct scene *s, int x, int y)
{
	const uint8_t *p = s->fb + (y * N + x) * s->fmt.bytes;

	return s->fmt.bytes == 2 ? *(const uint16_t *)p
	       : s->fmt.bytes == 4 ? *(const uint32_t *)p
				   : (uint32_t)(p[0] | p[1] << 8 | p[2] << 16);
}

/* ground blended toward the tint by alpha/256 in each field of the format, toward 0 */
static uint32_t blended(const struct pixfmt *fmt, int alpha)
{
	const struct pixfmt_field *f[3] = { &fmt->red, &fmt->green, &fmt->blue };
	uint32_t g = pixfmt_pack(fmt, GROUND), t = pixfmt_pack(fmt, TINT), out = g;

	for (int i = 0; i < 3; i++) {
		uint32_t mask = ((1u << f[i]->length) - 1) << f[i]->offset;
		int gv = (int)((g & mask) >> f[i]->offset), tv = (int)((t & mask) >> f[i]->offset);

		out = (out & ~mask) | (uint32_t)(gv + (tv - gv) * alpha / 256) << f[i]->offset;
	}
	return out;
}

static void test_tint_blends_over_moving_water_only(void **state)
{
	static const int rotations[] = { 0, 90, 180, 270 };

	(void)state;
	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++)
		for (int r = 0; r < 4; r++)
			for (int cell = 1; cell <= 3; cell += 2) {
				struct scene s;
				uint32_t ground;

				scene_open(&s, formats[f], rotations[r], cell);
				ground = pixfmt_pack(&s.fmt, GROUND);
				assert_int_equal(render_set_tint(&s.render, TINT), 0);
				plateau(&s, 40);	/* fast: the most tint there is */
				render_frame(&s.render, &s.water, s.fb, (size_t)N * s.fmt.bytes, 0,
					     true);
				if (pixel(&s, MID, MID) != blended(&s.fmt, 208))
					fail_msg("%s rotate %d cell %d: middle %06x, want %06x",
						 formats[f], rotations[r], cell, pixel(&s, MID, MID),
						 blended(&s.fmt, 208));
				/* still water far from the plateau shows the picture as it is */
				assert_int_equal(pixel(&s, 1, 1), ground);
				assert_int_equal(pixel(&s, N - 2, N - 2), ground);
				scene_close(&s);
			}
}

static void test_tint_grows_with_speed_and_turns_off(void **state)
{
	struct scene s;
	int last = -1;

	(void)state;
	scene_open(&s, "XRGB8888", 0, 1);
	assert_int_equal(render_set_tint(&s.render, TINT), 0);
	for (int16_t h = 0; h <= 40; h += 4) {
		uint32_t p;
		int red;

		plateau(&s, h);
		render_frame(&s.render, &s.water, s.fb, N * 4, 0, true);
		p = pixel(&s, MID, MID);
		red = (int)(p >> 16 & 0xff);
		if (h == 0)
			assert_int_equal(p, pixfmt_pack(&s.fmt, GROUND));
		assert_true(red >= last);	/* faster water, more tint */
		last = red;
	}
	assert_true(last > 0xc0);
	/* "off" draws the picture as it is under the same waves */
	assert_int_equal(render_set_tint(&s.render, CONFIG_OFF), 0);
	render_frame(&s.render, &s.water, s.fb, N * 4, 0, true);
	assert_int_equal(pixel(&s, MID, MID), pixfmt_pack(&s.fmt, GROUND));
	scene_close(&s);
}

/* The red field of logical pixel (x, y) of a square frame n pixels a side, turned by rotate. */
static int red_at(const struct pixfmt *fmt, const uint8_t *fb, int n, int rotate, int x, int y)
{
	int px = rotate == 90 ? n - 1 - y : rotate == 180 ? n - 1 - x : rotate == 270 ? y : x;
	int py = rotate == 90 ? x : rotate == 180 ? n - 1 - y : rotate == 270 ? n - 1 - x : y;
	const uint8_t *p = fb + ((size_t)py * n + px) * fmt->bytes;
	uint32_t v = fmt->bytes == 2 ? *(const uint16_t *)p
		     : fmt->bytes == 4 ? *(const uint32_t *)p
					: (uint32_t)(p[0] | p[1] << 8 | p[2] << 16);

	return (int)(v >> fmt->red.offset & ((1u << fmt->red.length) - 1));
}

/*
 * At 4K a cell is 8 pixels: the tint must change across a cell as the slopes do, not stand in
 * blocks of cell x cell pixels. Cells moving ever faster from left to right (speed 1 to 8):
 * along a row, over the cells of speed 4 to 6, the tint grows and no run of equal pixels is
 * as long as a cell, in 32 and 16 bpp and turned every way.
 */
static void test_tint_has_no_blocks(void **state)
{
	enum { S = 64, CELL = 8 };
	static const char *const some[] = { "XRGB8888", "RGB565" };
	static uint8_t fb[S * S * 4];

	(void)state;
	for (int f = 0; f < 2; f++)
		for (int rotate = 0; rotate < 360; rotate += 90) {
			struct image splash = { S, S, malloc(S * S * sizeof(uint32_t)) };
			struct pixfmt fmt;
			struct water w;
			struct render rn;
			int run = 1, longest = 1, lo = 3 * CELL, hi = 6 * CELL;

			assert_int_equal(pixfmt_by_name(&fmt, some[f]), 0);
			for (int i = 0; i < S * S; i++)
				splash.pixels[i] = 0xff000000u | GROUND;
			assert_int_equal(water_init(&w, S, S, CELL, 5), 0);
			assert_int_equal(render_init(&rn, S, S, rotate, CELL, &fmt), 0);
			assert_int_equal(render_set_splash(&rn, &splash), 0);
			assert_int_equal(render_set_tint(&rn, TINT), 0);
			for (int y = 0; y < S / CELL; y++) {
				for (int x = 0; x < S / CELL; x++)
					water_row(&w, y)[x] = (int16_t)((x + 1) * w.scale);
				water_mark_live(&w, y);
			}
			render_frame(&rn, &w, fb, (size_t)S * fmt.bytes, 0, true);
			for (int x = lo + 1; x < hi; x++) {
				int now = red_at(&fmt, fb, S, rotate, x, S / 2);
				int before = red_at(&fmt, fb, S, rotate, x - 1, S / 2);

				assert_true(now >= before);
				run = now == before ? run + 1 : 1;
				longest = run > longest ? run : longest;
			}
			if (red_at(&fmt, fb, S, rotate, hi - 1, S / 2) <=
			    red_at(&fmt, fb, S, rotate, lo, S / 2) || longest >= CELL)
				fail_msg("%s rotate %d: %d pixels in a row tinted alike",
					 some[f], rotate, longest);
			render_free(&rn);
			water_free(&w);
			free(splash.pixels);
		}
}

/*
 * Pixel p sits at (p + 0.5) / cell - 0.5 cells: at cells 3, 5, 6 and 7 between two cells by a
 * fraction the weights round. One fast column of cells in the middle of a screen 9 cells wide:
 * its tint is the same on the left as on the right, pixel for pixel.
 */
static void test_tint_is_mirrored_about_its_cell(void **state)
{
	static const int cells[] = { 3, 5, 6, 7 };
	static uint8_t fb[9 * 7 * 3 * 7 * 4];

	(void)state;
	for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++) {
		int cell = cells[i], n = 9 * cell, h = 3 * cell;
		struct image splash = { n, h, malloc((size_t)n * h * sizeof(uint32_t)) };
		struct pixfmt fmt;
		struct water w;
		struct render rn;

		assert_int_equal(pixfmt_by_name(&fmt, "XRGB8888"), 0);
		for (int k = 0; k < n * h; k++)
			splash.pixels[k] = 0xff000000u | GROUND;
		assert_int_equal(water_init(&w, n, h, cell, 5), 0);
		assert_int_equal(render_init(&rn, n, h, 0, cell, &fmt), 0);
		assert_int_equal(render_set_splash(&rn, &splash), 0);
		assert_int_equal(render_set_tint(&rn, TINT), 0);
		for (int y = 0; y < 3; y++) {
			water_row(&w, y)[4] = (int16_t)(24 * w.scale);
			water_mark_live(&w, y);
		}
		render_frame(&rn, &w, fb, (size_t)n * 4, 0, true);
		for (int x = 0; x < n / 2; x++) {
			uint32_t left = ((uint32_t *)fb)[h / 2 * n + x];
			uint32_t right = ((uint32_t *)fb)[h / 2 * n + n - 1 - x];

			if (left != right)
				fail_msg("cell %d: pixel %d is %06x, pixel %d %06x", cell, x,
					 left & 0xffffff, n - 1 - x, right & 0xffffff);
		}
		render_free(&rn);
		water_free(&w);
		free(splash.pixels);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tint_blends_over_moving_water_only),
		cmocka_unit_test(test_tint_grows_with_speed_and_turns_off),
		cmocka_unit_test(test_tint_has_no_blocks),
		cmocka_unit_test(test_tint_is_mirrored_about_its_cell),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
