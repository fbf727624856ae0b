/* test_threads.c - steps and frames shared among 2..4 threads give exactly one thread's bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/config.h"
#include "image/pixfmt.h"
#include "util/pool.h"
#include "render/render.h"
#include "water/water.h"

enum { SENTINEL = 0x5A, WIDTH = 301, HEIGHT = 157 };

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static struct image splash_of(int width, int height, uint64_t seed)
{
	struct image img = { width, height, malloc((size_t)width * height * 4) };

	for (int i = 0; i < width * height; i++)
		img.pixels[i] = 0xff000000u | ((uint32_t)next(&seed) & 0xffffff);
	return img;
}

/* A few rings, so that some rows are wet, some calm and some to restore. */
static void water_of(struct water *w, int cell)
{
	assert_int_equal(water_init(w, WIDTH, HEIGHT, cell, 5), 0);
	water_drop(w, WIDTH / 3, HEIGHT / 2, 6 * cell, 900 * w->scale);
	water_drop(w, WIDTH - 2, 1, 3 * cell, -400 * w->scale);
	water_drop(w, 40, HEIGHT - 3, 5 * cell, 700 * w->scale);
	for (int i = 0; i < 9; i++)
		water_step(w);
}

struct look {
	int cell, rotate;
	struct render_light light;
	uint32_t tint;
	const char *format;
};

/* Two frames (all rows, then the wet ones and those to restore after more steps) drawn over a
 * pool of threads (1: render_frame itself), into one buffer with SENTINEL padding. */
static uint8_t *frames_of(const struct look *l, int threads, size_t *size)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	struct image img = splash_of(WIDTH, HEIGHT, seed);
	bool side = l->rotate % 180 != 0;
	int pw = side ? HEIGHT : WIDTH, ph = side ? WIDTH : HEIGHT;
	struct pixfmt fmt;
	struct render r;
	struct water w;
	struct pool p;
	size_t stride;
	uint8_t *fb;

	assert_int_equal(pixfmt_by_name(&fmt, l->format), 0);
	stride = (size_t)(pw + 3) * fmt.bytes;
	water_of(&w, l->cell);
	assert_int_equal(render_init(&r, pw, ph, l->rotate, l->cell, &fmt), 0);
	assert_int_equal(render_set_splash(&r, &img), 0);
	render_set_light(&r, &l->light);
	assert_int_equal(render_set_tint(&r, l->tint), 0);
	assert_int_equal(pool_init(&p, threads), 0);
	assert_int_equal(render_set_bands(&r, threads), 0);
	render_set_share_min(&r, 0);	/* these frames are small: share every one */
	*size = 2 * stride * ph;
	fb = malloc(*size);
	memset(fb, SENTINEL, *size);
	for (int f = 0; f < 2; f++) {
		unsigned calls = p.call;

		if (f)
			for (int i = 0; i < 40; i++)
				water_step(&w);
		render_frame_pool(&r, &w, fb + f * stride * ph, stride, 0, f == 0,
				  threads > 1 ? &p : NULL);
		/* the frame was shared indeed, in more chunks than threads, so that none waits
		 * for a slow one (rotated, the chunks are whole turned bands: here only one or
		 * two) */
		if (threads > 1 && l->rotate % 180 == 0)
			assert_int_equal(p.call, calls + 1);
		if (threads > 1 && l->rotate % 180 == 0 && f == 0 && p.chunks <= threads)
			fail_msg("%s rotate %d, %d threads: %d chunks", l->format, l->rotate,
				 threads, p.chunks);
	}
	pool_free(&p);
	render_free(&r);
	water_free(&w);
	free(img.pixels);
	return fb;
}

static void compare_threads(const struct look *l)
{
	size_t size;
	uint8_t *want = frames_of(l, 1, &size);

	for (int threads = 2; threads <= POOL_MAX; threads++) {
		uint8_t *got = frames_of(l, threads, &size);

		for (size_t i = 0; i < size; i++)
			if (got[i] != want[i])
				fail_msg("%s cell %d rotate %d light %.1f tint %06x, %d threads: "
					 "byte %zu is %02x, one thread's %02x", l->format, l->cell,
					 l->rotate, l->light.strength, l->tint, threads, i, got[i],
					 want[i]);
		free(got);
	}
	free(want);
}

static void check_looks(int cell, const struct render_light *light, uint32_t tint)
{
	static const char *const formats[] = { "XRGB8888", "RGB565", "RGB888" };

	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++)
		for (int rotate = 0; rotate <= 270; rotate += 90)
			compare_threads(&(struct look){ cell, rotate, *light, tint, formats[f] });
}

static void test_render_cell_1(void **state)
{
	(void)state;
	check_looks(1, &(struct render_light){ 0 }, CONFIG_OFF);
}

static void test_render_cell_1_lit_and_tinted(void **state)
{
	(void)state;
	check_looks(1, &(struct render_light){ 1.0, 45, 0.5 }, 0x3080ff);
}

static void test_render_cells_lit(void **state)
{
	(void)state;
	check_looks(3, &(struct render_light){ 1.5, 300, 0.5 }, CONFIG_OFF);
}

static void test_render_cells_tinted(void **state)
{
	(void)state;
	check_looks(4, &(struct render_light){ 0 }, 0xff2000);
}

/* Every height, live flag and span of both steps, and the live rows. */
static void assert_same_water(const struct water *a, const struct water *b, int step, int n)
{
	size_t cells = (size_t)a->stride * (a->height + 2);

	for (int k = 0; k < 2; k++) {
		const int16_t *ha = k ? a->prev : a->cur, *hb = k ? b->prev : b->cur;
		const uint8_t *la = k ? a->prev_live : a->live, *lb = k ? b->prev_live : b->live;
		const struct water_span *sa = k ? a->prev_span : a->span;
		const struct water_span *sb = k ? b->prev_span : b->span;

		/* cur and prev start a row and a cell before cell (0, 0): the border */
		if (memcmp(ha - a->stride - 1, hb - b->stride - 1, cells * sizeof(*ha)))
			fail_msg("step %d, %d threads: %s heights differ", step, n, k ? "prev" : "cur");
		for (int y = -1; y <= a->height; y++) {
			if (la[y] != lb[y])
				fail_msg("step %d, %d threads: live %d of row %d", step, n, k, y);
			if (la[y] && (sa[y].lo != sb[y].lo || sa[y].hi != sb[y].hi))
				fail_msg("step %d, %d threads: span %d of row %d", step, n, k, y);
		}
	}
	assert_int_equal(a->rows.lo, b->rows.lo);
	assert_int_equal(a->rows.hi, b->rows.hi);
}

/* Stones dropped now and then so that rows wake and calm; a shift, then a damping fraction. */
static void compare_steps(int cell, double damping)
{
	for (int threads = 2; threads <= POOL_MAX; threads++) {
		struct water one, many;
		struct pool p;
		uint64_t seed = 12345;
		int most_chunks = 0;

		assert_int_equal(water_init(&one, 640, 480, cell, 4), 0);
		assert_int_equal(water_init(&many, 640, 480, cell, 4), 0);
		one.tuning.damping = many.tuning.damping = damping;
		water_set_share_min(&many, 0);	/* a small field: share every step */
		assert_int_equal(pool_init(&p, threads), 0);
		for (int step = 0; step < 300; step++) {
			if (step % 37 == 0) {
				int x = (int)(next(&seed) % 640), y = (int)(next(&seed) % 480);

				water_drop(&one, x, y, 12, 600 * one.scale);
				water_drop(&many, x, y, 12, 600 * many.scale);
			}
			water_step(&one);
			water_step_pool(&many, &p);
			most_chunks = p.chunks > most_chunks ? p.chunks : most_chunks;
			assert_same_water(&one, &many, step, threads);
		}
		assert_true(p.call > 2);	/* the pool stepped some of them */
		assert_true(most_chunks > threads);
		pool_free(&p);
		water_free(&one);
		water_free(&many);
	}
}

static void test_step_classic(void **state)
{
	(void)state;
	compare_steps(1, 0);
	compare_steps(2, 0.97);
}

/* A stone's ring drawn, or stepped, on the caller's thread alone; the screen drawn whole, or
 * water live on every row, shared. */
static void test_small_work_stays_on_one_thread(void **state)
{
	enum { W = 1024, H = 640 };
	struct image img = splash_of(W, H, 7);
	struct pixfmt fmt;
	struct render r;
	struct water w;
	struct pool p;
	unsigned calls;
	size_t stride = (size_t)W * 4;
	uint8_t *fb = malloc(stride * H);

	(void)state;
	assert_true(W * H >= RENDER_SHARE_MIN && W * H >= WATER_SHARE_MIN);
	assert_int_equal(pixfmt_by_name(&fmt, "XRGB8888"), 0);
	assert_int_equal(water_init(&w, W, H, 1, 5), 0);
	assert_int_equal(render_init(&r, W, H, 0, 1, &fmt), 0);	/* the water's cells */
	assert_int_equal(render_set_splash(&r, &img), 0);
	render_set_light(&r, &(struct render_light){ 1.5, 300, 0.5 });
	assert_int_equal(pool_init(&p, 2), 0);
	assert_int_equal(render_set_bands(&r, 2), 0);

	calls = p.call;
	render_frame_pool(&r, &w, fb, stride, 0, true, &p);
	assert_int_equal(p.call, calls + 1);	/* every pixel */

	water_drop(&w, W / 2, H / 2, 12, 600);
	calls = p.call;
	/* grown past two of the step's 32-row chunks, which alone would share it */
	for (int i = 0; i < 48; i++)
		water_step_pool(&w, &p);
	assert_true(w.rows.hi - w.rows.lo >= 2 * 32);
	assert_int_equal(p.call, calls);	/* a ring's rows' steps */
	render_frame_pool(&r, &w, fb, stride, 0, false, &p);
	assert_int_equal(p.call, calls);	/* its blocks */

	for (int y = 0; y < H; y += 16)
		water_drop(&w, (y * 37) % W, y, 12, 600);
	calls = p.call;
	water_step_pool(&w, &p);
	assert_int_equal(p.call, calls + 1);	/* every row live */

	pool_free(&p);
	render_free(&r);
	water_free(&w);
	free(img.pixels);
	free(fb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_cell_1),
		cmocka_unit_test(test_render_cell_1_lit_and_tinted),
		cmocka_unit_test(test_render_cells_lit),
		cmocka_unit_test(test_render_cells_tinted),
		cmocka_unit_test(test_step_classic),
		cmocka_unit_test(test_small_work_stays_on_one_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
