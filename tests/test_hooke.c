/* test_hooke.c - the hooke engine against seed 002's RippleSpread, and its calm, walls, tuning. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "seed_hooke.h"
#include "water/water.h"
#include "water/water_engine.h"

static const struct water_tuning seed_tuning = { .velocity_shift = 6, .height_shift = 8 };

static int16_t at(const struct water *w, int x, int y)
{
	return water_row(w, y)[x];
}

static int16_t prev_at(const struct water *w, int x, int y)
{
	return w->prev[y * w->stride + x];
}

/* Our cell (x, y) is the port's (x + 1, y + 1): the ring the seed never touches is our border. */
static void assert_same_as_seed(const struct water *w, const struct seed_hooke *s, int step)
{
	for (int y = 0; y < w->height; y++)
		for (int x = 0; x < w->width; x++) {
			int want = s->back[(y + 1) * s->width + x + 1];

			if (at(w, x, y) != want)
				fail_msg("step %d cell (%d,%d): %d, seed %d", step, x, y, at(w, x, y),
					 want);
		}
}

static void assert_live_rows_cover_the_heights(const struct water *w, int step)
{
	for (int y = 0; y < w->height; y++) {
		int16_t any = 0, prev_any = 0;

		for (int x = 0; x < w->width; x++) {
			any |= at(w, x, y);
			prev_any |= prev_at(w, x, y);
		}
		if ((any && !w->live[y]) || (prev_any && !w->prev_live[y]))
			fail_msg("step %d row %d is wet but not live", step, y);
	}
}

static bool all_zero(const struct water *w)
{
	for (int y = 0; y < w->height; y++)
		for (int x = 0; x < w->width; x++)
			if (at(w, x, y) || prev_at(w, x, y))
				return false;
	return true;
}

struct drop {
	int step, x, y, radius, weight;
};

static const struct drop drops[] = {
	{ 0, 240, 150, 6, 1024 }, { 0, 30, 5, 4, 800 }, { 0, 450, 280, 6, 512 },
	{ 37, 230, 100, 5, 720 }, { 120, 260, 200, 6, 1024 }, { 150, 244, 151, 3, 400 },
	{ 220, 8, 288, 6, 960 },
};

static void drop_both(struct water *w, struct seed_hooke *s, int step)
{
	for (size_t i = 0; i < sizeof(drops) / sizeof(drops[0]); i++) {
		const struct drop *d = &drops[i];

		if (d->step != step)
			continue;
		water_drop(w, d->x, d->y, d->radius, d->weight);
		seed_hooke_drop(s, d->x + 1, d->y + 1, d->radius, d->weight);
	}
}

/*
 * Seed 002's RippleSpread on a (W + 2) x (H + 2) field, whose outer ring it never writes, and
 * the engine on W x H at cell 1, step for step: the same heights exactly. The port takes the
 * engine's one change to the seed's decays (s.calm, see water_hooke.c); the next test shows
 * why the seed's water needs it. At step 200 the shifts change in both.
 */
static void test_equals_seed_port(void **state)
{
	enum { W = 480, H = 300, STEPS = 300 };
	struct water w;
	struct seed_hooke s;

	(void)state;
	assert_int_equal(water_open(&w, &water_hooke, W, H, 1, &seed_tuning), 0);
	assert_int_equal(seed_hooke_init(&s, W + 2, H + 2), 0);
	s.calm = 1;
	for (int step = 0; step < STEPS; step++) {
		if (step == 200) {
			w.tuning.velocity_shift = s.velocity_shift = 9;
			w.tuning.height_shift = s.height_shift = 11;
		}
		drop_both(&w, &s, step);
		water_step(&w);
		seed_hooke_spread(&s);
		assert_same_as_seed(&w, &s, step);
		assert_live_rows_cover_the_heights(&w, step);
	}
	assert_false(water_calm(&w));
	water_free(&w);
	seed_hooke_free(&s);
}

/* The seed as written never calms: its decays round every value down, so the water creeps up
 * into a standing mound. This is why the engine's decay differs from it for small values. */
static void test_literal_seed_never_calms(void **state)
{
	enum { W = 122, H = 92 };
	struct seed_hooke s;
	long sum = 0;

	(void)state;
	assert_int_equal(seed_hooke_init(&s, W, H), 0);
	seed_hooke_drop(&s, W / 2, H / 2, 6, 128);
	for (int step = 0; step < 3000; step++)
		seed_hooke_spread(&s);
	for (int i = 0; i < W * H; i++)
		sum += s.back[i];
	assert_true(sum / ((W - 2) * (H - 2)) > 100);
	seed_hooke_free(&s);
}

/* Steps w until it is calm (at most limit steps); checks that calm means every cell is 0. */
static int steps_to_calm(struct water *w, int limit)
{
	int step;

	for (step = 0; step < limit && !water_calm(w); step++) {
		water_step(w);
		assert_live_rows_cover_the_heights(w, step);
	}
	assert_true(water_calm(w));
	assert_true(all_zero(w));
	water_step(w);
	assert_true(water_calm(w));
	assert_true(all_zero(w));
	return step;
}

/* With the seed's decays at the seed's scale, and with the defaults at kiosk scale (1080p,
 * cell 4, heights 16 times finer, the default stone): exactly 0 in bounded steps. */
static void test_calms_to_zero(void **state)
{
	struct water_tuning defaults = { .velocity_shift = 8, .height_shift = 10 };
	struct water w;
	int steps;

	(void)state;
	assert_int_equal(water_open(&w, &water_hooke, 320, 240, 1, &seed_tuning), 0);
	water_drop(&w, 160, 120, 20, 4096);
	water_drop(&w, 3, 3, 10, 1000);
	water_drop(&w, 300, 200, 1, 77);
	steps = steps_to_calm(&w, 20000);
	print_message("cell 1, shifts 6 and 8: calm after %d steps\n", steps);
	assert_true(steps > 50);
	water_free(&w);

	assert_int_equal(water_open(&w, &water_hooke, 1920, 1080, 4, &defaults), 0);
	w.shape = WATER_COSINE;
	water_drop(&w, 960, 540, 0, 320);
	steps = steps_to_calm(&w, 20000);
	print_message("1080p cell 4, shifts 8 and 10, one default stone: calm after %d steps\n",
		      steps);
	assert_true(steps > 180);
	water_free(&w);
}

/* The heaviest stone the config allows with the least damping: heights saturate instead of
 * wrapping round, and the water still comes to rest. */
static void test_heavy_stones_saturate_and_calm(void **state)
{
	struct water_tuning least = { .velocity_shift = 15, .height_shift = 15 };
	struct water w;
	int lowest = 0, highest = 0, step;

	(void)state;
	assert_int_equal(water_open(&w, &water_hooke, 640, 480, 4, &least), 0);
	water_drop(&w, 320, 240, 400, 4096);
	for (step = 0; step < 200000 && !water_calm(&w); step++) {
		water_step(&w);
		for (int x = 0; x < w.width; x++) {
			int h = water_row(&w, w.height / 2)[x];

			lowest = h < lowest ? h : lowest;
			highest = h > highest ? h : highest;
		}
	}
	print_message("saturated stone: calm after %d steps, heights %d..%d\n", step, lowest,
		      highest);
	assert_true(water_calm(&w));
	assert_true(lowest >= -INT16_MAX && highest == INT16_MAX);
	water_free(&w);
}

/*
 * A wall across the whole field, columns 100 to 119 of 200, is to the water on its left what
 * the screen's edge is: the left part equals a 100-wide field step for step (its waves
 * reflect off the wall), and nothing gets through to the right. A stone half on the wall
 * wets only its water.
 */
static void test_walls_reflect_like_edges(void **state)
{
	enum { W = 200, H = 120, WALL = 100, THICK = 20 };
	uint8_t *mask = calloc(W * H, 1);
	struct water walled, narrow;
	bool reached = false;

	(void)state;
	for (int y = 0; y < H; y++)
		memset(mask + y * W + WALL, 1, THICK);
	assert_int_equal(water_open(&walled, &water_hooke, W, H, 1, &seed_tuning), 0);
	assert_int_equal(water_open(&narrow, &water_hooke, WALL, H, 1, &seed_tuning), 0);
	assert_int_equal(water_set_walls(&walled, mask), 0);
	for (int step = 0; step < 400; step++) {
		if (step % 100 == 0) {
			water_drop(&walled, 80, 40 + step / 10, 6, 2000);
			water_drop(&narrow, 80, 40 + step / 10, 6, 2000);
			water_drop(&walled, WALL + 5, 60, 8, 2000);
			water_drop(&narrow, WALL + 5, 60, 8, 2000);
		}
		water_step(&walled);
		water_step(&narrow);
		for (int y = 0; y < H; y++) {
			for (int x = 0; x < WALL; x++)
				if (at(&walled, x, y) != at(&narrow, x, y))
					fail_msg("step %d cell (%d,%d): %d behind the wall, %d at the "
						 "edge", step, x, y, at(&walled, x, y),
						 at(&narrow, x, y));
			for (int x = WALL; x < W; x++)
				if (at(&walled, x, y) || prev_at(&walled, x, y))
					fail_msg("step %d cell (%d,%d) beyond the wall moved", step, x, y);
			reached |= abs(at(&walled, WALL - 1, y)) > 100;
		}
	}
	assert_true(reached);
	water_free(&walled);
	water_free(&narrow);
	free(mask);
}

/* A reload's tuning is read at the next step: smaller shifts calm the same stone sooner. */
static void test_tuning_takes_effect(void **state)
{
	struct water_tuning strong = { .velocity_shift = 3, .height_shift = 4 };
	struct water a, b;
	int steps_a, steps_b;

	(void)state;
	assert_int_equal(water_open(&a, &water_hooke, 320, 240, 2, &seed_tuning), 0);
	assert_int_equal(water_open(&b, &water_hooke, 320, 240, 2, &seed_tuning), 0);
	water_drop(&a, 160, 120, 12, 300);
	water_drop(&b, 160, 120, 12, 300);
	for (int i = 0; i < 10; i++) {
		water_step(&a);
		water_step(&b);
	}
	b.tuning = strong;
	water_step(&a);
	water_step(&b);
	assert_memory_not_equal(a.cur - a.stride - 1, b.cur - b.stride - 1,
				(size_t)a.stride * (a.height + 2) * sizeof(int16_t));
	steps_a = steps_to_calm(&a, 20000);
	steps_b = steps_to_calm(&b, 20000);
	print_message("calm after %d steps with shifts 6 and 8, %d with 3 and 4\n", steps_a,
		      steps_b);
	assert_true(steps_b * 2 < steps_a);
	water_free(&a);
	water_free(&b);
}

/* water_clear stills the velocity too: the next stone moves exactly as on new water. */
static void test_clear_stills_the_velocity(void **state)
{
	struct water used, fresh;

	(void)state;
	assert_int_equal(water_open(&used, &water_hooke, 160, 120, 1, &seed_tuning), 0);
	assert_int_equal(water_open(&fresh, &water_hooke, 160, 120, 1, &seed_tuning), 0);
	water_drop(&used, 80, 60, 10, 500);
	for (int i = 0; i < 30; i++)
		water_step(&used);
	water_clear(&used);
	assert_true(water_calm(&used));
	water_drop(&used, 40, 30, 5, 100);
	water_drop(&fresh, 40, 30, 5, 100);
	for (int i = 0; i < 50; i++) {
		water_step(&used);
		water_step(&fresh);
	}
	assert_memory_equal(used.cur - used.stride - 1, fresh.cur - fresh.stride - 1,
			    (size_t)used.stride * (used.height + 2) * sizeof(int16_t));
	water_free(&used);
	water_free(&fresh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equals_seed_port),
		cmocka_unit_test(test_literal_seed_never_calms),
		cmocka_unit_test(test_calms_to_zero),
		cmocka_unit_test(test_heavy_stones_saturate_and_calm),
		cmocka_unit_test(test_walls_reflect_like_edges),
		cmocka_unit_test(test_tuning_takes_effect),
		cmocka_unit_test(test_clear_stills_the_velocity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
