/* test_render_spans.c - frames draw only what changes: the blocks where the water moves a
 * pixel, shades or tints it, and those a page showed so last time; every page holds exactly
 * what a frame drawn everywhere holds, frame after frame. FBRIPPLE_DRAW=live's way, every
 * live pixel, is held to the same. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "image/pixfmt.h"
#include "water/water_engine.h"
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
	int pages;		/* 0: 2, page after page */
	const char *engine;	/* NULL: classic */
	bool live;		/* FBRIPPLE_DRAW=live: every live pixel */
	const struct render_light *lamp;	/* with light: NULL, 1.5 at 300 degrees */
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
	render_draw_live(r, l->live);
	assert_int_equal(render_set_splash(r, img), 0);
	render_set_light(r, !l->light ? &dark : l->lamp ? l->lamp : &lit);
	assert_int_equal(render_set_tint(r, l->tint), 0);
	assert_int_equal(render_set_bands(r, l->threads), 0);
	render_set_share_min(r, 0);	/* these frames are small: share every one */
}

/* Light rain: small, shallow drops now and then, whose rings are as gentle as the calm test's
 * limit, so that blocks turn loud and calm again all over. */
static void rain(struct water *w, int f, int width, int height)
{
	uint32_t h = (uint32_t)f * 2654435761u;

	if (f % 5 == 3)
		water_drop(w, (int)(h >> 8) % width, (int)(h >> 20) % height, 2 * w->cell,
			   1 + (int)(h >> 4) % 6);
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
	rain(w, f, W, H);
}

/* On a wide screen, stones away from its edges: the wet columns start and end anywhere, and
 * frames above cell 1 are shared among threads in strips of them. */
static void stones_inside(struct water *w, int f, int width, int height)
{
	if (f == 0)
		water_drop(w, width / 2 + 7, height / 2, 3 * w->cell, 300);
	if (f == 25)
		water_drop(w, width / 5 + 3, height / 3, 3 * w->cell, -250);
	rain(w, f, width, height);
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
	struct config cfg;
	struct water_tuning tuning;
	int pages = l->pages ? l->pages : 2;
	char failed[512] = "";
	uint8_t *fb[2], *want, live[WIDE_H > H ? WIDE_H + 2 : H + 2];
	struct water_span span[WIDE_H > H ? WIDE_H + 2 : H + 2];
	size_t stride, size;

	assert_int_equal(pixfmt_by_name(&fmt, l->format), 0);
	stride = (size_t)(pw + 3) * fmt.bytes;
	size = stride * ph;
	config_defaults(&cfg);
	tuning = config_water_tuning(&cfg);
	tuning.damping_shift = 4;
	assert_int_equal(water_open(&w, water_engine_at(water_engine_index(l->engine ? l->engine
										   : "classic")),
				    lw, lh, l->cell, &tuning), 0);
	renderer_of(&r, l, &fmt, &img, pw, ph);
	renderer_of(&whole, l, &fmt, &img, pw, ph);
	/* the frame drawn everywhere, every pixel through the kernels (every row live and wet,
	 * drawn full), on the same path: test_render_paths holds each path's whole frames to the
	 * scalar ones */
	render_draw_live(&whole, true);
	assert_int_equal(pool_init(&pool, l->threads), 0);
	fb[0] = malloc(size);
	fb[1] = malloc(size);
	want = malloc(size);
	memset(fb[0], SENTINEL, size);
	memset(fb[1], SENTINEL, size);
	for (int f = 0; f < FRAMES && !failed[0]; f++) {
		int page = f % pages;
		struct water e;

		if (l->width)
			stones_inside(&w, f, lw, lh);
		else
			stones(&w, f);
		render_frame_pool(&r, &w, fb[page], stride, page, f < pages, &pool);
		e = all_wet(&w, live, span);
		memset(want, SENTINEL, size);
		render_frame(&whole, &e, want, stride, 0, true);
		for (size_t i = 0; i < size && !failed[0]; i++)
			if (fb[page][i] != want[i])
				snprintf(failed, sizeof(failed),
					 "%s %s rotate %d cell %d light %d tint %06x threads %d pages "
					 "%d%s, path %s: frame %d (page %d), byte %zu of physical row %zu: "
					 "%02x, whole %02x", l->engine ? l->engine : "classic", l->format,
					 l->rotate, l->cell, l->light, l->tint, l->threads, pages,
					 l->live ? " live" : "", render_path_name(r.path), f, page,
					 i % stride, i / stride, fb[page][i], want[i]);
		water_step(&w);
	}
	/* everything freed before failing: a pool's threads must not outlive its frame */
	free(fb[0]);
	free(fb[1]);
	free(want);
	pool_free(&pool);
	render_free(&r);
	render_free(&whole);
	water_free(&w);
	free(img.pixels);
	if (failed[0])
		fail_msg("%s", failed);
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
					struct look l = { rotate, cells[c], k == 3 ? 3 : 1, k >= 2,
							  k & 1 ? 0x3080ff : CONFIG_OFF, formats[f], 0, 0,
							  k == 1 ? 1 : 2, NULL, false, NULL };

					compare_to_whole(&l);
				}
}

/* Every engine, single and double buffered, lit and tinted, at each rotation: the skipped
 * blocks are the picture whatever moves the water. */
static void test_engines_and_pages(void **state)
{
	static const char *const engines[] = { "classic", "hooke", "spring" };
	static const char *const formats[] = { "XRGB8888", "RGB565", "RGB888", "BGRX8888" };

	(void)state;
	for (size_t e = 0; e < sizeof(engines) / sizeof(engines[0]); e++)
		for (int pages = 1; pages <= 2; pages++)
			for (int rotate = 0; rotate < 360; rotate += 90)
				for (int cell = 1; cell <= 4; cell += 3) {
					struct look l = { rotate, cell, 2, true, 0x20c0a0,
							  formats[rotate / 90], 0, 0, pages,
							  engines[e], false, NULL };

					/* classic turns in the test above, single buffered only at
					 * rotate 0 here; the others one rotation per page count and
					 * cell, each rotation once */
					int turn = pages == 1 ? (cell == 1 ? 270 : 0)
							      : (cell == 1 ? 90 : 180);

					if (e == 0 ? rotate != 0 || pages == 2 : rotate != turn)
						continue;
					compare_to_whole(&l);
				}
}

/* FBRIPPLE_DRAW=live draws every live pixel: the same frames. */
static void test_every_live_pixel(void **state)
{
	(void)state;
	for (int rotate = 0; rotate < 360; rotate += 90) {
		struct look l = { rotate, rotate ? 4 : 1, 1, rotate != 0, 0x3080ff, "XRGB8888", 0,
				  0, rotate == 90 ? 1 : 2, NULL, true, NULL };

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
							  CONFIG_OFF, formats[f], WIDE_W, WIDE_H, 0,
							  NULL, false, NULL };

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

/* Waters made to sit on the edges of what is calm (render_calm.c). */
enum craft {
	SLOPE_CALM,	/* every difference across a cell calm_hi */
	SLOPE_STEEP,	/* one more: pixels move */
	SLOPE_CALM_DOWN,	/* every difference -calm_lo: the move rounds the other way */
	SLOPE_STEEP_DOWN,	/* one more: pixels move */
	SLOPE_CROSS,	/* differences calm_hi across, -calm_lo down: where a strong light
			 * across the slopes bounds the window, the shade's corner */
	SLOPE_CROSS_BACK,	/* -calm_lo across, calm_hi down: the other corner */
	STRIPES,	/* steep rows between flat ones, no difference up and down: only pixel
			 * rows that mix in the next cell row move */
	STEP,		/* one cell, the first of a block, steep: only the last pixels of the
			 * block before, mixing it in, move there */
	PLATEAU,	/* flat, a step ago lower: no slope, but tinted by its speed */
	CRAFTS
};

static void craft(struct water *w, const struct render *r, enum craft c)
{
	int t = c == SLOPE_CALM	     ? r->calm_hi
		: c == SLOPE_STEEP     ? r->calm_hi + 1
		: c == SLOPE_CALM_DOWN ? -r->calm_lo
				       : -r->calm_lo - 1;
	int step = 2 * r->block_cells;

	water_clear(w);
	for (int y = 0; y < w->height; y++) {
		int16_t *h = water_row(w, y);

		for (int x = 0; x < w->width; x++) {
			bool inside = x >= 2 && y >= 2 && x < w->width - 2 && y < w->height - 2;

			if (c <= SLOPE_STEEP_DOWN && inside)
				h[x] = (int16_t)(-t * ((x + y) / 2));
			else if (c == SLOPE_CROSS && inside)
				h[x] = (int16_t)(-r->calm_hi * (x / 2) + r->calm_lo * (y / 2));
			else if (c == SLOPE_CROSS_BACK && inside)
				h[x] = (int16_t)(r->calm_lo * (x / 2) - r->calm_hi * (y / 2));
			else if (c == STRIPES && y % 2 == 0)
				h[x] = (int16_t)(-4 * w->scale * x);
			else if (c == STEP && x > step && (x - step) % 2)
				h[x] = (int16_t)(-40 * w->scale);
			else if (c == PLATEAU && inside)
				h[x] = (int16_t)(3 * w->scale);
		}
		water_mark_live(w, y);
	}
}

/* Each crafted water drawn (not full) onto pages that showed calm water, then calm water
 * again onto the page that showed it: each page held to the frame drawn everywhere. */
static void test_crafted_edges_of_calm(void **state)
{
	static const char *const formats[] = { "XRGB8888", "RGB565" };
	static const int cells[] = { 2, 3, 4, 8 };
	static const struct render_light strong[] = { { 4, 45, 0.5 }, { 4, 315, 0.5 } };
	struct image img = splash_of(W, H);
	char failed[512] = "";

	(void)state;
	for (int rotate = 0; rotate <= 90; rotate += 90)
		for (size_t c = 0; c < sizeof(cells) / sizeof(cells[0]); c++)
			for (int look = 0; look < 6; look++)
				for (int k = 0; k < CRAFTS && !failed[0]; k++) {
					/* looks 4 and 5: a light strong enough that its shade,
					 * not the move, bounds the window */
					struct look l = { rotate, cells[c], 1, look & 1 || look >= 4,
							  look & 2 && look < 4 ? 0x3080ff : CONFIG_OFF,
							  formats[look & 1], 0, 0, 2, NULL, false,
							  look >= 4 ? &strong[look - 4] : NULL };
					bool side = rotate != 0;
					int pw = side ? H : W, ph = side ? W : H;
					struct render r, whole;
					struct water w, e;
					struct pixfmt fmt;
					uint8_t *fb[2], *want, live[H + 2];
					struct water_span span[H + 2];
					size_t stride, size;

					assert_int_equal(pixfmt_by_name(&fmt, l.format), 0);
					stride = (size_t)pw * fmt.bytes;
					size = stride * ph;
					assert_int_equal(water_init(&w, W, H, l.cell, 5), 0);
					renderer_of(&r, &l, &fmt, &img, pw, ph);
					renderer_of(&whole, &l, &fmt, &img, pw, ph);
					render_draw_live(&whole, true);
					fb[0] = malloc(size);
					fb[1] = malloc(size);
					want = malloc(size);
					render_frame(&r, &w, fb[0], stride, 0, true);
					render_frame(&r, &w, fb[1], stride, 1, true);
					for (int f = 0; f < 3 && !failed[0]; f++) {
						if (f < 2)
							craft(&w, &r, k);
						else
							water_clear(&w);
						render_frame(&r, &w, fb[f % 2], stride, f % 2, false);
						e = all_wet(&w, live, span);
						render_frame(&whole, &e, want, stride, 0, true);
						for (size_t i = 0; i < size && !failed[0]; i++)
							if (fb[f % 2][i] != want[i])
								snprintf(failed, sizeof(failed),
									 "craft %d, %s rotate %d cell %d "
									 "look %d tint %d, calm -%d..%d, "
									 "path %s: frame %d, byte %zu of "
									 "row %zu: %02x, whole %02x", k,
									 l.format, rotate, l.cell, look,
									 l.tint != CONFIG_OFF, r.calm_lo,
									 r.calm_hi,
									 render_path_name(r.path), f,
									 i % stride, i / stride,
									 fb[f % 2][i], want[i]);
					}
					free(fb[0]);
					free(fb[1]);
					free(want);
					render_free(&r);
					render_free(&whole);
					water_free(&w);
				}
	free(img.pixels);
	if (failed[0])
		fail_msg("%s", failed);
}

/* Pixels a frame on page writes (not full): the screen SENTINEL before it, so the picture
 * must hold no such bytes (a renderer with the light off and a picture of one colour). */
static long written_on(struct render *r, const struct water *w, uint8_t *fb, size_t stride,
		       int ph, int page)
{
	long n = 0;

	memset(fb, SENTINEL, stride * ph);
	render_frame(r, w, fb, stride, page, false);
	for (int y = 0; y < ph; y++)
		for (size_t x = 0; x < stride; x += (size_t)r->bytes)
			n += fb[y * stride + x] != SENTINEL;
	return n;
}

/* A slope of k everywhere inside a margin of the grid (heights k * floor((x + y) / 2): every
 * difference across a cell is k), every row live. */
static void slope_of(struct water *w, int k)
{
	water_clear(w);
	for (int y = 2; y < w->height - 2; y++) {
		for (int x = 2; x < w->width - 2; x++)
			water_row(w, y)[x] = (int16_t)(k * ((x + y) / 2));
		water_mark_live(w, y);
	}
}

/* Water whose differences across a cell are calm_hi, or -calm_lo, moves no pixel and shades
 * none: once each page shows the picture, a frame writes nothing inside the slope, though
 * every row is live; one height unit steeper either way, and it draws all of it. The window
 * is lopsided, as the move's rounding is: -4..3 at cell 2, -2..1 at cell 4. */
static void test_calm_slopes_draw_nothing(void **state)
{
	static const struct render_light lit = { 1.5, 300, 0.5 };
	struct image img = { .width = W, .height = H };
	struct pixfmt fmt;
	struct render r;
	struct water w;
	size_t stride = (size_t)W * 4;
	uint8_t *fb = malloc(stride * H);

	(void)state;
	assert_int_equal(pixfmt_by_name(&fmt, "XRGB8888"), 0);
	img.pixels = malloc((size_t)W * H * sizeof(*img.pixels));
	for (size_t i = 0; i < (size_t)W * H; i++)
		img.pixels[i] = 0xff204060u;
	for (int cell = 2; cell <= 4; cell += 2)
		for (int light = 0; light <= 1; light++)
			for (int down = 0; down <= 1; down++) {
				long calm, steep;
				int edge;

				assert_int_equal(water_init(&w, W, H, cell, 5), 0);
				assert_int_equal(render_init(&r, W, H, 0, cell, &fmt), 0);
				assert_int_equal(render_set_splash(&r, &img), 0);
				render_set_light(&r, light ? &lit : &(struct render_light){ 0, 0, 0 });
				/* without light, by hand: a difference moves its pixels by
				 * (64 d shift_mul + 8192) >> 14, shift_mul 32 at cell 2, 64 at 4 */
				if (!light && (r.calm_lo != 8 / cell || r.calm_hi != 8 / cell - 1))
					fail_msg("cell %d: calm -%d..%d", cell, r.calm_lo, r.calm_hi);
				/* slope_of(k): every difference -k */
				edge = down ? r.calm_lo : -r.calm_hi;
				slope_of(&w, edge);
				render_frame(&r, &w, fb, stride, 0, true);
				render_frame(&r, &w, fb, stride, 1, true);
				calm = written_on(&r, &w, fb, stride, H, 0);
				slope_of(&w, down ? edge + 1 : edge - 1);
				steep = written_on(&r, &w, fb, stride, H, 1);
				/* the slope's rim (two cells of margin, blocks of 16 pixels) is loud */
				if (calm > (long)W * H * 6 / 10 || steep < (long)W * H * 6 / 10)
					fail_msg("cell %d light %d, calm -%d..%d: differences of %d "
						 "write %ld pixels, one unit steeper %ld, of %d", cell,
						 light, r.calm_lo, r.calm_hi, -edge, calm, steep, W * H);
				render_free(&r);
				water_free(&w);
			}
	free(fb);
	free(img.pixels);
}

/* Two drops at the ends of a wide, double-buffered screen: every row between them is live
 * from one ring to the other, but only the rings move pixels. Frames drawing what changes
 * write a fraction of what drawing every live pixel writes. */
static void test_rain_writes_less_than_live(void **state)
{
	enum { RW = 640, RH = 120, RAIN_FRAMES = 40 };
	struct image img = { .width = RW, .height = RH };
	struct pixfmt fmt;
	struct render r[2];
	struct water w;
	size_t stride = (size_t)RW * 4;
	uint8_t *fb = malloc(stride * RH);
	long n[2] = { 0, 0 };

	(void)state;
	assert_int_equal(pixfmt_by_name(&fmt, "XRGB8888"), 0);
	img.pixels = malloc((size_t)RW * RH * sizeof(*img.pixels));
	for (size_t i = 0; i < (size_t)RW * RH; i++)
		img.pixels[i] = 0xff204060u + (uint32_t)(i % RW);
	assert_int_equal(water_init(&w, RW, RH, 4, 5), 0);
	for (int i = 0; i < 2; i++) {
		renderer_of(&r[i], &(struct look){ 0, 4, 1, true, CONFIG_OFF, "XRGB8888", 0, 0, 2,
						   NULL, i == 1, NULL }, &fmt, &img, RW, RH);
		render_frame(&r[i], &w, fb, stride, 0, true);
		render_frame(&r[i], &w, fb, stride, 1, true);
	}
	water_drop(&w, 48, RH / 2, 2 * w.cell, 64);
	water_drop(&w, RW - 48, RH / 2 + 8, 2 * w.cell, 64);
	for (int f = 0; f < RAIN_FRAMES; f++) {
		for (int i = 0; i < 2; i++)
			n[i] += written_on(&r[i], &w, fb, stride, RH, f % 2);
		water_step(&w);
	}
	if (n[0] * 2 > n[1] || n[0] == 0)
		fail_msg("rain: drawing what changes writes %ld pixels, every live pixel %ld", n[0],
			 n[1]);
	for (int i = 0; i < 2; i++)
		render_free(&r[i]);
	water_free(&w);
	free(fb);
	free(img.pixels);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_equal_whole_frames),
		cmocka_unit_test(test_engines_and_pages),
		cmocka_unit_test(test_every_live_pixel),
		cmocka_unit_test(test_crafted_edges_of_calm),
		cmocka_unit_test(test_calm_slopes_draw_nothing),
		cmocka_unit_test(test_rain_writes_less_than_live),
		cmocka_unit_test(test_strips_of_wide_frames),
		cmocka_unit_test(test_one_stone_writes_its_own_width),
	};

	if (getenv("TEST_FILTER"))
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
