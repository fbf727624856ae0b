/* test_render.c - refraction puts the right splash pixel in every place, in every pixel format. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "image/pixfmt.h"
#include "render/render.h"
#include "water/water.h"

enum { W = 48, H = 32, SENTINEL = 0xA5 };

/* Rows with padding after them: odd for 24 bpp, whole pixels for 16 and 32 bpp, as on real
 * framebuffers (whose 16- and 32-bit rows are always aligned). */
static size_t padded_stride(int width, int bytes)
{
	return (size_t)(width + 2) * bytes + (bytes == 3);
}

static const char *const formats[] = { "RGB565", "BGR565", "RGB888", "BGR888",
				       "XRGB8888", "XBGR8888", "RGBX8888", "BGRX8888" };

struct scene {
	struct pixfmt fmt;
	struct image splash;
	struct water water;
	struct render render;
	uint8_t *fb;
	size_t stride;		/* padded_stride(W, bytes) */
	uint8_t *picture;	/* the splash as pixfmt_convert makes it: what calm water shows */
};

/* A splash where every pixel differs from its neighbours even after 5-bit truncation. */
static uint32_t splash_colour(int x, int y)
{
	return (uint32_t)((x * 5 & 0xff) << 16 | (y * 7 & 0xff) << 8 | ((x + y) * 3 & 0xff)) << 0 |
	       0xff000000u;
}

/* The splash converted to the scene's format, as the renderer holds it (16 bpp dithered). */
static void scene_convert(struct scene *s)
{
	free(s->picture);
	s->picture = malloc((size_t)W * H * s->fmt.bytes);
	assert_non_null(s->picture);
	pixfmt_convert(&s->fmt, &s->splash, s->picture, (size_t)W * s->fmt.bytes);
}

static void scene_open(struct scene *s, const char *format)
{
	memset(s, 0, sizeof(*s));
	assert_int_equal(pixfmt_by_name(&s->fmt, format), 0);
	s->splash.width = W;
	s->splash.height = H;
	s->splash.pixels = malloc(W * H * sizeof(uint32_t));
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			s->splash.pixels[y * W + x] = splash_colour(x, y);
	assert_int_equal(water_init(&s->water, W, H, 1, 5), 0);
	assert_int_equal(render_init(&s->render, W, H, 0, 1, &s->fmt), 0);
	assert_int_equal(render_set_splash(&s->render, &s->splash), 0);
	scene_convert(s);
	s->stride = padded_stride(W, s->fmt.bytes);
	s->fb = malloc(s->stride * H);
	memset(s->fb, SENTINEL, s->stride * H);
}

static void scene_close(struct scene *s)
{
	free(s->splash.pixels);
	free(s->picture);
	free(s->fb);
	water_free(&s->water);
	render_free(&s->render);
}

/* What the screen shows at (x, y), as 0xRRGGBB. */
static uint32_t shown(const struct scene *s, int x, int y)
{
	const uint8_t *p = s->fb + y * s->stride + x * s->fmt.bytes;
	uint32_t v = s->fmt.bytes == 2 ? *(const uint16_t *)p
		   : s->fmt.bytes == 4 ? *(const uint32_t *)p
				       : (uint32_t)(p[0] | p[1] << 8 | p[2] << 16);

	return pixfmt_unpack(&s->fmt, v);
}

static uint32_t raw_at(const uint8_t *p, int bytes)
{
	return bytes == 2 ? *(const uint16_t *)p
	     : bytes == 4 ? *(const uint32_t *)p : (uint32_t)(p[0] | p[1] << 8 | p[2] << 16);
}

/* The splash pixel at (x, y) as the format shows it, packed. */
static uint32_t splash_raw(const struct scene *s, int x, int y)
{
	return raw_at(s->picture + ((size_t)y * W + x) * s->fmt.bytes, s->fmt.bytes);
}

/* The splash pixel at (x, y) as the format shows it. */
static uint32_t splash_at(const struct scene *s, int x, int y)
{
	return pixfmt_unpack(&s->fmt, splash_raw(s, x, y));
}

static void set_height(struct water *w, int x, int y, int16_t v)
{
	water_row(w, y)[x] = v;
	water_mark_live(w, y);
}

static void assert_padding_untouched(const struct scene *s)
{
	for (int y = 0; y < H; y++)
		for (int i = W * s->fmt.bytes; i < (int)s->stride; i++)
			if (s->fb[y * s->stride + i] != SENTINEL)
				fail_msg("%s: padding byte %d of row %d was written", s->fmt.name, i, y);
}

static void test_calm_water_shows_the_splash(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
		struct scene s;

		scene_open(&s, formats[f]);
		assert_int_equal(render_frame(&s.render, &s.water, s.fb, s.stride, 0, true), H);
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++)
				if (shown(&s, x, y) != splash_at(&s, x, y))
					fail_msg("%s (%d,%d): %06x, splash %06x", formats[f], x, y,
						 shown(&s, x, y), splash_at(&s, x, y));
		assert_padding_untouched(&s);
		assert_int_equal(render_frame(&s.render, &s.water, s.fb, s.stride, 0, false), 0);
		scene_close(&s);
	}
}

/* One raised cell of height 3 at (20, 10): its four neighbours see it through their gradient. */
static void test_refraction_offsets(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
		struct scene s;

		scene_open(&s, formats[f]);
		set_height(&s.water, 20, 10, 3);
		assert_int_equal(render_frame(&s.render, &s.water, s.fb, s.stride, 0, true), H);
		/* left neighbour: offset x = h(18) - h(20) = -3 */
		assert_int_equal(shown(&s, 19, 10), splash_at(&s, 16, 10));
		assert_int_equal(shown(&s, 21, 10), splash_at(&s, 24, 10));
		assert_int_equal(shown(&s, 20, 9), splash_at(&s, 20, 6));
		assert_int_equal(shown(&s, 20, 11), splash_at(&s, 20, 14));
		assert_int_equal(shown(&s, 20, 10), splash_at(&s, 20, 10));
		assert_int_equal(shown(&s, 19, 9), splash_at(&s, 19, 9));
		assert_int_equal(shown(&s, 0, 0), splash_at(&s, 0, 0));
		assert_padding_untouched(&s);
		scene_close(&s);
	}
}

/* Steep water at the edges takes the edge pixel: nothing stale, nothing skipped. */
static void test_offsets_clamp_at_the_edges(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
		struct scene s;

		scene_open(&s, formats[f]);
		set_height(&s.water, 1, 5, -500);	/* (0,5) looks 500 right, (2,5) 500 left */
		set_height(&s.water, W - 1, H - 2, 900);	/* (W-1,H-3) looks 900 up */
		set_height(&s.water, 30, 1, 900);		/* (30,2) looks 900 down */
		set_height(&s.water, 7, 0, 20);		/* (7,1) looks 20 down: still inside */
		render_frame(&s.render, &s.water, s.fb, s.stride, 0, true);
		assert_int_equal(shown(&s, 0, 5), splash_at(&s, W - 1, 5));
		assert_int_equal(shown(&s, 2, 5), splash_at(&s, 0, 5));
		assert_int_equal(shown(&s, W - 1, H - 3), splash_at(&s, W - 1, 0));
		assert_int_equal(shown(&s, 30, 2), splash_at(&s, 30, H - 1));
		assert_int_equal(shown(&s, 7, 1), splash_at(&s, 7, 21));
		assert_padding_untouched(&s);
		scene_close(&s);
	}
}

/* Rows that were disturbed are put back once when the water calms, then left alone. */
static void test_calm_rows_are_restored_once(void **state)
{
	struct scene s;
	int rows = 0;

	(void)state;
	scene_open(&s, "RGB565");
	render_frame(&s.render, &s.water, s.fb, s.stride, 0, true);
	water_drop(&s.water, 24, 16, 3, 64);
	assert_int_equal(render_frame(&s.render, &s.water, s.fb, s.stride, 0, false), 7);
	while (!water_calm(&s.water)) {
		water_step(&s.water);
		rows += render_frame(&s.render, &s.water, s.fb, s.stride, 0, false);
	}
	assert_true(rows > 7 * 10);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			if (shown(&s, x, y) != splash_at(&s, x, y))
				fail_msg("(%d,%d) not restored after the water calmed", x, y);
	assert_int_equal(render_frame(&s.render, &s.water, s.fb, s.stride, 0, false), 0);
	scene_close(&s);
}

/* Where logical (x, y) appears on the panel: the logical picture turned clockwise by rotate. */
static void physical_of(int rotate, int x, int y, int *px, int *py)
{
	*px = rotate == 90 ? H - 1 - y : rotate == 180 ? W - 1 - x : rotate == 270 ? y : x;
	*py = rotate == 90 ? x : rotate == 180 ? H - 1 - y : rotate == 270 ? W - 1 - x : y;
}

static uint32_t read_pixel(const uint8_t *fb, size_t stride, int bytes, int x, int y)
{
	const uint8_t *p = fb + y * stride + (size_t)x * bytes;

	return bytes == 2 ? *(const uint16_t *)p : bytes == 4 ? *(const uint32_t *)p
		: (uint32_t)(p[0] | p[1] << 8 | p[2] << 16);
}

/* Every rotation draws exactly the unrotated frame turned, frame after frame, skipped rows and
 * restored rows included. */
/* The scene's water and renderer at another cell size, lit or not. */
static void scene_look(struct scene *s, int cell, const struct render_light *light)
{
	if (cell != s->render.cell) {
		water_free(&s->water);
		render_free(&s->render);
		assert_int_equal(water_init(&s->water, W, H, cell, 5), 0);
		assert_int_equal(render_init(&s->render, W, H, 0, cell, &s->fmt), 0);
		assert_int_equal(render_set_splash(&s->render, &s->splash), 0);
	}
	render_set_light(&s->render, light);
}

/* Every rotation shows the same logical frame, with each span kind: the seeds' direct one at
 * cell 1, and the slopes mixed from cells with light, at cell 1 and at cell 3 (W and H are not
 * multiples of it). */
static void test_rotation_turns_the_frame(void **state)
{
	static const char *const depths[] = { "RGB565", "RGB888", "XRGB8888" };
	static const struct { int cell; struct render_light light; } looks[] = {
		{ 1, { 0, 0, 0 } }, { 1, { 1.5, 45, 0.5 } }, { 3, { 1.5, 300, 0.5 } },
	};

	(void)state;
	for (size_t f = 0; f < 3; f++)
		for (size_t k = 0; k < sizeof(looks) / sizeof(looks[0]); k++)
			for (int rotate = 90; rotate <= 270; rotate += 90) {
				struct scene s;
				struct render turned;
				bool side = rotate != 180;
				int pw = side ? H : W, ph = side ? W : H, cell = looks[k].cell;
				size_t pstride;
				uint8_t *pfb;

				scene_open(&s, depths[f]);
				scene_look(&s, cell, &looks[k].light);
				pstride = padded_stride(pw, s.fmt.bytes);
				pfb = malloc(pstride * ph);
				memset(pfb, SENTINEL, pstride * ph);
				assert_int_equal(render_init(&turned, pw, ph, rotate, cell, &s.fmt), 0);
				assert_int_equal(turned.width, W);
				assert_int_equal(turned.height, H);
				assert_int_equal(render_set_splash(&turned, &s.splash), 0);
				render_set_light(&turned, &looks[k].light);
				water_drop(&s.water, 10, 7, 4 * cell, 90);
				water_drop(&s.water, 40, 25, 3 * cell, 200);
				for (int frame = 0; frame < 120; frame++) {
					int a = render_frame(&s.render, &s.water, s.fb, s.stride, 0,
							     !frame);
					int b = render_frame(&turned, &s.water, pfb, pstride, 0, !frame);

					assert_int_equal(a, b);
					for (int y = 0; y < H; y++)
						for (int x = 0; x < W; x++) {
							int px, py;

							physical_of(rotate, x, y, &px, &py);
							if (read_pixel(pfb, pstride, s.fmt.bytes, px, py) !=
							    read_pixel(s.fb, s.stride, s.fmt.bytes, x, y))
								fail_msg("%s cell %d rotate %d frame %d: "
									 "logical (%d,%d) at (%d,%d) differs",
									 depths[f], cell, rotate, frame, x,
									 y, px, py);
						}
					for (int y = 0; y < ph; y++)
						for (size_t i = (size_t)pw * s.fmt.bytes; i < pstride; i++)
							assert_int_equal(pfb[y * pstride + i], SENTINEL);
					water_step(&s.water);
				}
				render_free(&turned);
				free(pfb);
				scene_close(&s);
			}
}

/* The logical top-left corner lands where a clockwise turn puts it. */
static void test_rotation_corners(void **state)
{
	static const int want[][3] = { { 0, 0, 0 }, { 90, H - 1, 0 }, { 180, W - 1, H - 1 },
				       { 270, 0, W - 1 } };

	(void)state;
	for (int i = 0; i < 4; i++) {
		struct scene s;
		struct render r;
		int rotate = want[i][0], pw = rotate % 180 ? H : W, ph = rotate % 180 ? W : H;
		size_t stride;
		uint8_t *fb;

		scene_open(&s, "XRGB8888");
		stride = (size_t)pw * 4;
		fb = calloc(stride, ph);
		assert_int_equal(render_init(&r, pw, ph, rotate, 1, &s.fmt), 0);
		render_set_splash(&r, &s.splash);
		render_frame(&r, &s.water, fb, stride, 0, true);
		assert_int_equal(pixfmt_unpack(&s.fmt, read_pixel(fb, stride, 4, want[i][1], want[i][2])),
				 splash_at(&s, 0, 0));
		render_free(&r);
		free(fb);
		scene_close(&s);
	}
}

/* Each page of a double-buffered screen remembers its own rows. */
static void test_pages_are_tracked_apart(void **state)
{
	struct scene s;

	(void)state;
	scene_open(&s, "XRGB8888");
	render_frame(&s.render, &s.water, s.fb, s.stride, 0, true);
	render_frame(&s.render, &s.water, s.fb, s.stride, 1, true);
	water_drop(&s.water, 24, 16, 3, 64);
	assert_int_equal(render_frame(&s.render, &s.water, s.fb, s.stride, 0, false), 7);
	water_clear(&s.water);
	/* page 1 never showed the drop: nothing to restore there; page 0 did */
	assert_int_equal(render_frame(&s.render, &s.water, s.fb, s.stride, 1, false), 0);
	assert_int_equal(render_frame(&s.render, &s.water, s.fb, s.stride, 0, false), 7);
	scene_close(&s);
}

static void test_splash_size_must_match(void **state)
{
	struct scene s;
	struct image small = { W - 1, H, NULL };

	(void)state;
	scene_open(&s, "XRGB8888");
	small.pixels = s.splash.pixels;
	assert_int_equal(render_set_splash(&s.render, &small), -22);
	scene_close(&s);
}

/* Channel values at both ends and in between, so that light saturates every way. */
static const uint32_t harsh[] = { 0xffffff, 0x000000, 0xff00ff, 0x00ff00, 0xfe0180,
				  0x7f80ff, 0x010203, 0xfdfefc };

/*
 * Strong light over steep waves, every format: each colour field of each pixel must be its
 * source's, plus or minus the shade scaled to the field, clamped to the field alone: no wrap,
 * no carry into a neighbouring channel, padding bits as they were.
 */
static void test_light_saturates_each_channel_alone(void **state)
{
	(void)state;
	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
		struct render_light light = { 4.0, 45, 0 };
		const struct pixfmt_field *fld[3];
		struct scene s;
		int lit = 0;

		scene_open(&s, formats[f]);
		for (int i = 0; i < W * H; i++)
			s.splash.pixels[i] = 0xff000000u | harsh[i % 8];
		assert_int_equal(render_set_splash(&s.render, &s.splash), 0);
		scene_convert(&s);
		render_set_light(&s.render, &light);
		fld[0] = &s.fmt.red, fld[1] = &s.fmt.green, fld[2] = &s.fmt.blue;
		water_drop(&s.water, 24, 16, 9, 90);
		water_drop(&s.water, 10, 8, 4, 200);
		water_step(&s.water);
		water_step(&s.water);
		render_frame(&s.render, &s.water, s.fb, s.stride, 0, true);
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++) {
				const int16_t *h = water_row(&s.water, y) + x;
				int gx = h[-1] - h[1], gy = h[-s.water.stride] - h[s.water.stride];
				int sx = x + gx, sy = y + gy;
				int sh = (gx * 64 * s.render.light_x + gy * 64 * s.render.light_y +
					  8192) >> 14;
				uint32_t src, got = raw_at(s.fb + y * s.stride + x * s.fmt.bytes,
							   s.fmt.bytes);

				sx = sx < 0 ? 0 : sx >= W ? W - 1 : sx;
				sy = sy < 0 ? 0 : sy >= H ? H - 1 : sy;
				sh = sh < -255 ? -255 : sh > 255 ? 255 : sh;
				src = splash_raw(&s, sx, sy);
				lit += sh != 0;
				for (int c = 0; c < 3; c++) {
					int max = (1 << fld[c]->length) - 1;
					int v = (int)(src >> fld[c]->offset) & max;
					int a = (abs(sh) * max + 127) / 255;
					int want = sh > 0 ? (v + a > max ? max : v + a)
							  : (v - a < 0 ? 0 : v - a);
					int have = (int)(got >> fld[c]->offset) & max;

					if (have != want)
						fail_msg("%s (%d,%d) shade %d channel %d: %d, want %d",
							 formats[f], x, y, sh, c, have, want);
				}
			}
		assert_true(lit > 100);
		assert_padding_untouched(&s);
		scene_close(&s);
	}
}

/* At cell 4 a pixel between two cells moves by the mix of their slopes, times the cell over
 * the water's finer heights: no steps from cell to cell. */
static void test_cells_interpolate(void **state)
{
	struct pixfmt fmt;
	struct render r;
	struct water w;
	struct image img = { 64, 16, calloc(64 * 16, sizeof(uint32_t)) };
	uint32_t *fb = calloc(64 * 16, sizeof(uint32_t));

	(void)state;
	assert_int_equal(pixfmt_by_name(&fmt, "XRGB8888"), 0);
	for (int i = 0; i < 64 * 16; i++)
		img.pixels[i] = 0xff000000u | (uint32_t)(i % 64);	/* blue = x */
	assert_int_equal(render_init(&r, 64, 16, 0, 4, &fmt), 0);
	assert_int_equal(water_init(&w, 64, 16, 4, 5), 0);
	assert_int_equal(r.grid_width, 16);
	render_set_splash(&r, &img);
	/* cells 5 and 7 of row 2 make the slope of cell 6 -64: 4 pixels at cell 4, scale 16 */
	water_row(&w, 2)[5] = -32;
	water_row(&w, 2)[7] = 32;
	water_mark_live(&w, 2);
	render_frame(&r, &w, (uint8_t *)fb, 64 * 4, 0, true);
	/* row 10 is the centre of cell row 2 (pixel 10 sits at (10.5 / 4 - 0.5) = 2.125 cells:
	 * rows 2 and 3 mixed 7:1); x = 26 is the centre of cell 6 (26.5 / 4 - 0.5 = 6.125) */
	for (int x = 16; x < 40; x++) {
		double u = (x + 0.5) / 4 - 0.5, mix = 0;

		/* the slope at cell 6 is -64 (pixels -4), at cells 5 and 7 zero... but cell 4 and 8
		 * see h[5] and h[7]: slope of cell 4 = h3 - h5 = 32, of cell 8 = h7 - h9 = 32 */
		for (int c = 4; c <= 8; c++) {
			double g = c == 6 ? -64 : c == 4 || c == 8 ? 32 : 0, wgt = 1 - fabs(u - c);

			mix += wgt > 0 ? g * wgt : 0;
		}
		mix = mix * (7.0 / 8) * 4 / 16;		/* rows 2 and 3 mixed 7:1 (w = 8/64) */
		int want = x + (int)floor(mix + 0.5);
		int got = (int)(fb[10 * 64 + x] & 0xff);

		if (abs(got - want) > 1)
			fail_msg("x %d: shows column %d, want %d", x, got, want);
	}
	free(img.pixels);
	free(fb);
	water_free(&w);
	render_free(&r);
}

/* The red channel at (x, y) of a 32 bpp grey scene lit from direction with strength 1. */
static int lit_red(int direction, double specular, int16_t left, int16_t right)
{
	struct render_light light = { 1.0, direction, specular };
	struct scene s;
	int red;

	scene_open(&s, "XRGB8888");
	for (int i = 0; i < W * H; i++)
		s.splash.pixels[i] = 0xff808080u;
	render_set_splash(&s.render, &s.splash);
	render_set_light(&s.render, &light);
	set_height(&s.water, 19, 10, left);
	set_height(&s.water, 21, 10, right);
	render_frame(&s.render, &s.water, s.fb, s.stride, 0, true);
	red = (int)(shown(&s, 20, 10) >> 16 & 0xff);
	scene_close(&s);
	return red;
}

/*
 * (20, 10) slopes down to the right (left - right = 80): it faces a light from the right
 * (90 degrees) and turns away from one on the left; a light from the top sees no slope. Seed
 * 003's (xoffset - yoffset) / 2 is strength 1 at 45 degrees. Glints add to the slopes that
 * face the light most, and only there.
 */
static void test_light_direction_and_glints(void **state)
{
	(void)state;
	assert_int_equal(lit_red(0, 0, 80, 0), 0x80);
	assert_int_equal(lit_red(45, 0, 80, 0), 0x80 + 40);
	assert_int_equal(lit_red(90, 0, 80, 0), 0x80 + 57);	/* 80 x 0.707 */
	assert_int_equal(lit_red(270, 0, 80, 0), 0x80 - 57);
	assert_int_equal(lit_red(90, 0, 0, 80), 0x80 - 57);
	assert_true(lit_red(90, 0.5, 80, 0) > 0x80 + 57 + 10);
	assert_int_equal(lit_red(270, 0.5, 80, 0), 0x80 - 57);
	assert_int_equal(lit_red(90, 0.5, 20, 0), 0x80 + 14);	/* gentle: no glint */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calm_water_shows_the_splash),
		cmocka_unit_test(test_refraction_offsets),
		cmocka_unit_test(test_offsets_clamp_at_the_edges),
		cmocka_unit_test(test_calm_rows_are_restored_once),
		cmocka_unit_test(test_rotation_turns_the_frame),
		cmocka_unit_test(test_rotation_corners),
		cmocka_unit_test(test_pages_are_tracked_apart),
		cmocka_unit_test(test_splash_size_must_match),
		cmocka_unit_test(test_light_saturates_each_channel_alone),
		cmocka_unit_test(test_cells_interpolate),
		cmocka_unit_test(test_light_direction_and_glints),
	};

	return cmocka_run_group_tests_name("render", tests, NULL, NULL);
}
