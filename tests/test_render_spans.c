/* test_render_spans.c - frames draw only the columns where the water is wet or was shown wet,
 * and those columns hold exactly what a frame drawn everywhere holds. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "image/pixfmt.h"
#include "util/pool.h"
#include "render/render.h"
#include "water/water.h"

enum { W = 150, H = 70, WIDE_W = 701, WIDE_H = 53, FRAMES = 90, SENTINEL = 0xA5 };

struct look {
	int rotate, cell, threads;
	bool light;
	uint32_t tint;
	const char *format;
	int width, height;	/* the logical screen's; 0: W x H, stones at the edges too */
};

/* A splash where every pixel differs from its neighbours even after 5-bit truncation. */
static struct image splash_of(int width, int height)
{
	struct image img = { .width = width, .height = height };

	img.pixels = malloc((size_t)width * height * sizeof(*img.pixels));
	assert_non_null(img.pixels);
	for (int y = 0; y < height; y++)
		for (int x = 0; x < width; x++)
			img.pixels[y * width + x] = 0xff000000u | (uint32_t)(x * 5 & 0xff) << 16 |
						    (uint32_t)(y * 7 & 0xff) << 8 |
						    (uint32_t)((x + y) * 3 & 0xff);
	return img;
}

static void renderer_of(struct render *r, const struct look *l, const struct pixfmt *fmt,
			const struct image *img, int pw, int ph)
{
	static const struct render_light lit = { 1.5, 300, 0.5 }, dark = { 0, 0, 0 };

	assert_int_equal(render_init(r, pw, ph, l->rotate, l->cell, fmt), 0);
	assert_int_equal(render_set_splash(r, img), 0);
	render_set_light(r, l->light ? &lit : &dark);
	assert_int_equal(render_set_tint(r, l->tint), 0);
	assert_int_equal(render_set_bands(r, l->threads), 0);
}

/* The stones of frame f: at the corners, the edges and in the middle, now and then. */
static void stones(struct water *w, int f)
{
	static const struct { int frame, x, y, weight; } at[] = {
		{ 0, W / 2, H / 2, 300 }, { 0, 0, 0, 200 }, { 7, W - 1, H / 2, -250 },
		{ 20, W / 3, H - 1, 400 }, { 33, W - 1, H - 1, 150 }, { 50, 5, H / 3, 300 },
		{ 61, W / 2 + 20, 2, -300 },
	};

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		if (at[i].frame == f)
			water_drop(w, at[i].x, at[i].y, 3 * w->cell, at[i].weight);
}

/* On a wide screen, stones away from its edges: the wet columns start and end anywhere, and
 * frames above cell 1 are shared among threads in strips of them. */
static void stones_inside(struct water *w, int f, int width, int height)
{
	if (f == 0)
		water_drop(w, width / 2 + 7, height / 2, 3 * w->cell, 300);
	if (f == 25)
		water_drop(w, width / 5 + 3, height / 3, 3 * w->cell, -250);
}

/* w as a water that may be wet everywhere: every row live over its whole width, now and a step
 * before. live and span hold H + 2 entries, from row -1. */
static struct water all_wet(const struct water *w, uint8_t *live, struct water_span *span)
{
	struct water e = *w;

	memset(live, 0, w->height + 2);
	memset(live + 1, 1, w->height);
	for (int y = 0; y < w->height + 2; y++)
		span[y] = (struct water_span){ 0, w->width };
	e.live = e.prev_live = live + 1;
	e.span = e.prev_span = span + 1;
	e.rows = (struct water_span){ 0, w->height };
	return e;
}

/* Frame after frame on two pages, each page's picture equals the frame drawn everywhere: every
 * pixel through the kernels, on a fresh buffer. */
static void compare_to_whole(const struct look *l)
{
	int lw = l->width ? l->width : W, lh = l->width ? l->height : H;
	struct image img = splash_of(lw, lh);
	bool side = l->rotate % 180 != 0;
	int pw = side ? lh : lw, ph = side ? lw : lh;
	struct render r, whole;
	struct water w;
	struct pixfmt fmt;
	struct pool pool;
	uint8_t *fb[2], *want, live[WIDE_H > H ? WIDE_H + 2 : H + 2];
	struct water_span span[WIDE_H > H ? WIDE_H + 2 : H + 2];
	size_t stride, size;

	assert_int_equal(pixfmt_by_name(&fmt, l->format), 0);
	stride = (size_t)(pw + 3) * fmt.bytes;
	size = stride * ph;
	assert_int_equal(water_init(&w, lw, lh, l->cell, 4), 0);
	renderer_of(&r, l, &fmt, &img, pw, ph);
	renderer_of(&whole, l, &fmt, &img, pw, ph);
	assert_int_equal(pool_init(&pool, l->threads), 0);
	fb[0] = malloc(size);
	fb[1] = malloc(size);
	want = malloc(size);
	memset(fb[0], SENTINEL, size);
	memset(fb[1], SENTINEL, size);
	for (int f = 0; f < FRAMES; f++) {
		int page = f % 2;
		struct water e;

		if (l->width)
			stones_inside(&w, f, lw, lh);
		else
			stones(&w, f);
		render_frame_pool(&r, &w, fb[page], stride, page, f < 2, &pool);
		e = all_wet(&w, live, span);
		memset(want, SENTINEL, size);
		render_frame(&whole, &e, want, stride, 0, true);
		for (size_t i = 0; i < size; i++)
			if (fb[page][i] != want[i])
				fail_msg("%s rotate %d cell %d light %d tint %06x threads %d: frame %d "
					 "(page %d), byte %zu of physical row %zu: %02x, whole %02x",
					 l->format, l->rotate, l->cell, l->light, l->tint, l->threads, f,
					 page, i % stride, i / stride, fb[page][i], want[i]);
		water_step(&w);
	}
	free(fb[0]);
	free(fb[1]);
	free(want);
	pool_free(&pool);
	render_free(&r);
	render_free(&whole);
	water_free(&w);
	free(img.pixels);
}

static void test_frames_equal_whole_frames(void **state)
{
	static const char *const formats[] = { "XRGB8888", "RGB565", "RGB888" };
	static const int cells[] = { 1, 3, 4, 8 };	/* odd cells mix rows at weight 0 too */

	(void)state;
	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++)
		for (int rotate = 0; rotate < 360; rotate += 90)
			for (size_t c = 0; c < sizeof(cells) / sizeof(cells[0]); c++)
				for (int k = 0; k < 4; k++) {
					struct look l = { rotate, cells[c], k == 3 ? 3 : 1, k == 2,
							  k & 1 ? 0x3080ff : CONFIG_OFF, formats[f], 0, 0 };

					compare_to_whole(&l);
				}
}

/* Frames above cell 1 shared among 2 and 4 threads in strips of columns that start anywhere
 * (rounded to cache lines, mirrored at rotate 180), on an odd-width screen. */
static void test_strips_of_wide_frames(void **state)
{
	static const char *const formats[] = { "XRGB8888", "RGB565", "RGB888" };
	static const int cells[] = { 3, 8 };

	(void)state;
	for (int rotate = 0; rotate < 360; rotate += 90)
		for (size_t f = 0; f < (rotate % 180 ? 1 : 3); f++)
			for (size_t c = 0; c < sizeof(cells) / sizeof(cells[0]); c++)
				for (int threads = 2; threads <= 4; threads += 2) {
					struct look l = { rotate, cells[c], threads, threads == 4,
							  CONFIG_OFF, formats[f], WIDE_W, WIDE_H };

					compare_to_whole(&l);
				}
}

/* Pixels one frame writes: a picture of one colour never equal to SENTINEL bytes, a screen of
 * SENTINEL before the frame. */
static long written(struct render *r, const struct water *w, uint8_t *fb, size_t stride,
		    int ph)
{
	long n = 0;

	memset(fb, SENTINEL, stride * ph);
	render_frame(r, w, fb, stride, 0, false);
	for (int y = 0; y < ph; y++)
		for (size_t x = 0; x < stride; x += (size_t)r->bytes)
			n += fb[y * stride + x] != SENTINEL;
	return n;
}

/* The pixels frames write over a stone's first steps at cell 1, summed: the stone in the
 * middle of a width x height screen turned by rotate. */
static long stone_pixels(int width, int height, int rotate)
{
	bool side = rotate % 180 != 0;
	int pw = side ? height : width, ph = side ? width : height;
	struct image img = { .width = width, .height = height };
	struct pixfmt fmt;
	struct render r;
	struct water w;
	size_t stride;
	uint8_t *fb;
	long n = 0;

	assert_int_equal(pixfmt_by_name(&fmt, "XRGB8888"), 0);
	img.pixels = malloc((size_t)width * height * sizeof(*img.pixels));
	assert_non_null(img.pixels);
	for (size_t i = 0; i < (size_t)width * height; i++)
		img.pixels[i] = 0xff204060u;
	stride = (size_t)pw * 4;
	fb = malloc(stride * ph);
	assert_non_null(fb);
	assert_int_equal(water_init(&w, width, height, 1, 5), 0);
	assert_int_equal(render_init(&r, pw, ph, rotate, 1, &fmt), 0);
	assert_int_equal(render_take_splash(&r, &img), 0);
	render_frame(&r, &w, fb, stride, 0, true);
	water_drop(&w, width / 2, height / 2, 6, 128);
	for (int step = 0; step <= 40; step++) {
		if (step % 10 == 0)
			n += written(&r, &w, fb, stride, ph);
		water_step(&w);
	}
	free(fb);
	render_free(&r);
	water_free(&w);
	image_free(&img);
	return n;
}

/* One touch costs its own size: a 4K screen writes the pixels a 1080p one does, a few
 * hundred rows of a stone's width, not whole rows. Turned, bands of rows share their
 * columns: still the stone's size. */
static void test_one_stone_writes_its_own_width(void **state)
{
	(void)state;
	for (int rotate = 0; rotate <= 90; rotate += 90) {
		long hd = stone_pixels(1920, 1080, rotate), uhd = stone_pixels(3840, 2160, rotate);

		if (uhd > hd * 11 / 10 || hd > 5L * 1920 * 1080 / 100)
			fail_msg("rotate %d: one stone writes %ld pixels at 1080p, %ld at 4K", rotate,
				 hd, uhd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_equal_whole_frames),
		cmocka_unit_test(test_strips_of_wide_frames),
		cmocka_unit_test(test_one_stone_writes_its_own_width),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
