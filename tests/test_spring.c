/* test_spring.c - the spring engine against seed 004's loop, and its calm, walls and tuning. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "seed_spring.h"
#include "water/water.h"
#include "water/kernels/water_spring_kernel.h"
#include "water/water_engine.h"

static int16_t at(const struct water *w, int x, int y)
{
	return water_row(w, y)[x];
}

/* The seed's constants (spread 0.025, 4 passes) with the default stiffness and viscosity. */
static struct water_tuning seed_tuning(void)
{
	struct config cfg;

	config_defaults(&cfg);
	struct water_tuning t = config_water_tuning(&cfg);

	t.spread = 0.025;
	t.passes = 4;
	return t;
}

static int open_spring(struct water *w, int width, int height, int cell,
		       const struct water_tuning *t)
{
	int ret = water_open(w, &water_spring, width, height, cell, t);

	w->shape = WATER_DISC;
	return ret;
}

/* The largest |ours - seed| over the field, our heights being WATER_SPRING_GAIN times the
 * springs' displacement; our cell (x, y) is the seed's (x + 1, y + 1). */
static double seed_distance(const struct water *w, const struct seed_spring *s)
{
	double worst = 0;

	for (int y = 0; y < w->height; y++)
		for (int x = 0; x < w->width; x++) {
			double d = fabs(at(w, x, y) -
					WATER_SPRING_GAIN * s->Lx[(y + 1) * s->nx + x + 1]);

			worst = d > worst ? d : worst;
		}
	return worst;
}

/*
 * Seed 004's loop in float against the engine at cell 1, step for step, with drops before and
 * during the run, on the edges and on moving water. The tolerance: the published heights are
 * rounded (0.5), and the engine keeps 1/65536 of a seed unit, truncating toward 0 about
 * 1 + 4 * passes = 17 times a step into each speed. Even if every truncation pushed the same
 * way for ever, the springs turn a steady push f per step into at most 2 f / k of displacement
 * (the static f / k, doubled for the overshoot of an underdamped spring): 2 * 17 / 65536 /
 * 0.002 = 0.26, times the gain. The float port's own rounding (2^-24 relative) is far below.
 */
static void assert_equals_seed_port(struct water_tuning t)
{
	enum { W = 200, H = 150, STEPS = 400, R = 6 };
	static const int drops[][4] = {	/* step, x, y, weight */
		{ 0, 100, 75, 128 }, { 0, 3, 4, 100 }, { 0, 190, 140, 64 }, { 0, 199, 60, 80 },
		{ 37, 60, 100, 90 }, { 120, 150, 30, 128 }, { 150, 101, 76, 50 },
	};
	double tolerance = 0.5 + WATER_SPRING_GAIN * 2.0 * (1 + 4 * t.passes) / 65536 / t.stiffness;
	struct water w;
	struct seed_spring s;
	double worst = 0;

	assert_true(tolerance < 0.5 + 0.3 * WATER_SPRING_GAIN);
	assert_int_equal(open_spring(&w, W, H, 1, &t), 0);
	assert_int_equal(seed_spring_init(&s, W + 2, H + 2, (float)t.stiffness,
					  (float)t.viscosity), 0);
	s.spread = (float)t.spread;
	s.passes = t.passes;
	for (int step = 0; step < STEPS; step++) {
		for (size_t i = 0; i < sizeof(drops) / sizeof(drops[0]); i++) {
			if (drops[i][0] != step)
				continue;
			water_drop(&w, drops[i][1], drops[i][2], R, drops[i][3]);
			seed_spring_drop(&s, drops[i][1] + 1, drops[i][2] + 1, R, drops[i][3]);
		}
		water_step(&w);
		seed_spring_step(&s);
		double d = seed_distance(&w, &s);

		if (d > tolerance)
			fail_msg("step %d: %.3f from the seed (tolerance %.3f)", step, d, tolerance);
		worst = d > worst ? d : worst;
	}
	print_message("spread %.3f, %d passes, 400 steps: at most %.3f from the seed "
		      "(tolerance %.3f)\n", t.spread, t.passes, worst, tolerance);
	assert_false(water_calm(&w));
	water_free(&w);
	seed_spring_free(&s);
}

/* The seed's spread and passes; and one wide pass, whose every row the diffusion reaches. */
static void test_equals_seed_port(void **state)
{
	struct water_tuning t = seed_tuning();

	(void)state;
	assert_equals_seed_port(t);
	t.spread = 0.1;
	t.passes = 1;
	assert_equals_seed_port(t);
}

static bool all_zero(const struct water *w)
{
	for (int y = 0; y < w->height; y++)
		for (int x = 0; x < w->width; x++)
			if (at(w, x, y) || w->prev[y * w->stride + x])
				return false;
	return true;
}

/* Steps until calm, at most limit steps; returns how many it took. */
static int steps_to_calm(struct water *w, int limit)
{
	int step;

	for (step = 0; step < limit && !water_calm(w); step++) {
		water_step(w);
		if (!water_calm(w) && all_zero(w) && step > limit / 2)
			print_message("step %d: all heights 0, the springs still moving\n", step);
	}
	return step;
}

/* Heavy, light, crowded and edge stones, at cell 1 and at kiosk scale, and with the weakest
 * spring the config allows (whose pull rounds to 0 the longest): every time the water comes
 * to rest within a bound, all heights 0, and stays so at no cost. */
static void test_calms_to_zero(void **state)
{
	static const struct {
		int cell;
		double stiffness;
	} cases[] = { { 1, 0 }, { 4, 0 }, { 4, 0.001 }, { 1, 0.001 } };

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct water_tuning t = seed_tuning();
		struct water w;
		int cell = cases[c].cell, steps;

		t.stiffness = cases[c].stiffness ? cases[c].stiffness : t.stiffness;
		assert_int_equal(open_spring(&w, 320 * cell, 240 * cell, cell, &t), 0);
		assert_true(water_calm(&w));
		water_drop(&w, 160 * cell, 120 * cell, 20 * cell, 4096);
		water_drop(&w, 3 * cell, 3 * cell, 10 * cell, 1000);
		water_drop(&w, 300 * cell, 200 * cell, cell, 1);
		assert_false(water_calm(&w));
		steps = steps_to_calm(&w, 20000);
		print_message("cell %d, stiffness %g: calm after %d steps\n", cell, t.stiffness,
			      steps);
		assert_true(water_calm(&w));
		assert_true(all_zero(&w));
		assert_true(steps > 300);
		assert_true(steps < 6000);
		water_step(&w);
		assert_true(water_calm(&w));
		assert_true(all_zero(&w));
		assert_int_equal(w.live_rows, 0);
		water_free(&w);
	}
}

/* The whole lake lifted a little, with the weakest spring: its pull on the last of the swell
 * rounds to 0 (k x under one unit of the state), and the lake must not stay lifted by that. */
static void test_calms_from_a_level_swell(void **state)
{
	struct water_tuning t = seed_tuning();
	struct water w;
	int steps;

	(void)state;
	t.stiffness = 0.001;
	assert_int_equal(open_spring(&w, 160, 120, 4, &t), 0);
	w.shape = WATER_DISC;
	water_drop(&w, 80, 60, 400, 1);
	steps = steps_to_calm(&w, 20000);
	print_message("a level swell: calm after %d steps\n", steps);
	assert_true(water_calm(&w));
	assert_true(all_zero(&w));
	water_free(&w);
}

/* A finger held still drops a cosine stone on the same spot every step: the dent stays as
 * deep as one stone's (its heights WATER_SPRING_GAIN times the stone's depth at most), it
 * never deepens itself over and over. */
static void test_held_stone_keeps_its_depth(void **state)
{
	struct water_tuning t = seed_tuning();
	struct water w;
	int deepest = 0;

	(void)state;
	assert_int_equal(open_spring(&w, 400, 240, 4, &t), 0);
	w.shape = WATER_COSINE;
	for (int step = 0; step < 60; step++) {
		water_drop(&w, 200, 120, 0, 320);
		water_step(&w);
		for (int y = 0; y < w.height; y++)
			for (int x = 0; x < w.width; x++)
				deepest = at(&w, x, y) < deepest ? at(&w, x, y) : deepest;
	}
	print_message("held stone: deepest %d (one stone: %d)\n", deepest,
		      -320 * WATER_FINE * WATER_SPRING_GAIN);
	assert_true(deepest >= -320 * WATER_FINE * WATER_SPRING_GAIN);
	assert_true(deepest <= -320 * WATER_FINE * WATER_SPRING_GAIN * 8 / 10);
	water_free(&w);
}

/* The live flags let calm rows cost nothing; they must cover every wet row and every row of
 * the springs that still moves (a missed one would lose its state at the next step: then
 * the field differs from a field whose rows are all live). */
static void test_live_rows_never_miss_a_wet_row(void **state)
{
	struct water_tuning t = seed_tuning();
	struct water w;
	struct water_rain rain = { .rate = 3, .size = 4, .weight = 300, .rng = 7 };

	(void)state;
	assert_int_equal(open_spring(&w, 97, 83, 1, &t), 0);
	for (int step = 0; step < 800; step++) {
		if (step < 300)
			water_rain(&w, &rain, 1.0);
		water_step(&w);
		for (int y = 0; y < w.height; y++) {
			int16_t any = 0, prev_any = 0;

			for (int x = 0; x < w.width; x++) {
				any |= at(&w, x, y);
				prev_any |= w.prev[y * w.stride + x];
			}
			if ((any && !w.live[y]) || (prev_any && !w.prev_live[y]))
				fail_msg("step %d row %d is wet but not live", step, y);
		}
	}
	water_free(&w);
}

/* One drop far from every row but the middle: the rows it reaches grow by exactly `passes`
 * a step, the first steps' fronts being large enough not to round to 0. */
static void test_live_rows_spread_by_passes(void **state)
{
	struct water_tuning t = seed_tuning();
	struct water w;

	(void)state;
	t.passes = 3;
	t.spread = 0.1;
	assert_int_equal(open_spring(&w, 60, 101, 1, &t), 0);
	water_drop(&w, 30, 50, 1, 1000);
	for (int step = 1; step <= 10; step++) {
		int lo = w.height, hi = -1;

		water_step(&w);
		for (int y = 0; y < w.height; y++)
			if (w.live[y]) {
				lo = y < lo ? y : lo;
				hi = y > hi ? y : hi;
			}
		assert_true(hi - 50 <= 3 * step && 50 - lo <= 3 * step);
		if (step <= 2) {
			assert_int_equal(hi - 50, 3 * step);
			assert_int_equal(50 - lo, 3 * step);
		}
	}
	water_free(&w);
}

/* A wall across the water from top to bottom: its cells stay 0, nothing passes it, a stone on
 * it does nothing, and the water before it is exactly a lake that ends there: a wall is an
 * edge like the screen's, off which the waves reflect. */
static void test_walls_keep_zero_and_reflect(void **state)
{
	enum { W = 120, H = 60, WALL = 70 };
	struct water_tuning t = seed_tuning();
	struct water walled, lake;
	uint8_t *mask = calloc(W * H, 1);

	(void)state;
	for (int y = 0; y < H; y++)
		mask[y * W + WALL] = mask[y * W + WALL + 1] = 1;
	assert_int_equal(open_spring(&walled, W, H, 1, &t), 0);
	assert_int_equal(open_spring(&lake, WALL, H, 1, &t), 0);
	assert_int_equal(water_set_walls(&walled, mask), 0);
	water_drop(&walled, 50, 30, 5, 200);
	water_drop(&lake, 50, 30, 5, 200);
	water_drop(&walled, WALL, 10, 1, 200);
	for (int step = 0; step < 300; step++) {
		water_step(&walled);
		water_step(&lake);
		for (int y = 0; y < H; y++) {
			for (int x = WALL; x < W; x++)
				if (at(&walled, x, y))
					fail_msg("step %d: (%d,%d) = %d behind the wall", step, x, y,
						 at(&walled, x, y));
			for (int x = 0; x < WALL; x++)
				if (at(&walled, x, y) != at(&lake, x, y))
					fail_msg("step %d: (%d,%d) = %d before the wall, %d in the "
						 "lake that ends there", step, x, y,
						 at(&walled, x, y), at(&lake, x, y));
		}
	}
	assert_true(abs(at(&lake, WALL - 1, 30)) > 0);
	assert_false(water_calm(&walled));
	free(mask);
	water_free(&walled);
	water_free(&lake);
}

/* The largest |height| of the field. */
static int peak(const struct water *w)
{
	int p = 0;

	for (int y = 0; y < w->height; y++)
		for (int x = 0; x < w->width; x++)
			p = abs(at(w, x, y)) > p ? abs(at(w, x, y)) : p;
	return p;
}

/* How far from (cx, cy) the water is wet along row cy. */
static int front(const struct water *w, int cx, int cy)
{
	int r = 0;

	for (int x = cx; x < w->width; x++)
		r = at(w, x, cy) ? x - cx : r;
	return r;
}

/* Two lakes, one stone each; after 20 steps one of them is retuned by change(): after 60 more
 * steps, what differs. */
static void run_retuned(void (*change)(struct water_tuning *), struct water *a, struct water *b)
{
	struct water_tuning t = seed_tuning();

	assert_int_equal(open_spring(a, 200, 200, 1, &t), 0);
	assert_int_equal(open_spring(b, 200, 200, 1, &t), 0);
	water_drop(a, 100, 100, 5, 200);
	water_drop(b, 100, 100, 5, 200);
	for (int step = 0; step < 80; step++) {
		if (step == 20)
			change(&b->tuning);
		water_step(a);
		water_step(b);
	}
}

static void more_passes(struct water_tuning *t)
{
	t->passes = 8;
}

static void more_spread(struct water_tuning *t)
{
	t->spread = 0.05;
}

static void more_viscosity(struct water_tuning *t)
{
	t->viscosity = 0.1;
}

static void more_stiffness(struct water_tuning *t)
{
	t->stiffness = 0.05;
	t->viscosity = 0.06;
}

/* A reload changes the tuning between two steps: the next step uses it. More passes or more
 * spread carry the waves further; more viscosity stills them; more stiffness changes them. */
static void test_tuning_takes_effect(void **state)
{
	struct water a, b;

	(void)state;
	run_retuned(more_passes, &a, &b);
	print_message("passes 4 -> 8: front %d -> %d cells\n", front(&a, 100, 100),
		      front(&b, 100, 100));
	assert_true(front(&b, 100, 100) > front(&a, 100, 100) + 5);
	water_free(&a);
	water_free(&b);
	run_retuned(more_spread, &a, &b);
	print_message("spread 0.025 -> 0.05: front %d -> %d cells\n", front(&a, 100, 100),
		      front(&b, 100, 100));
	assert_true(front(&b, 100, 100) > front(&a, 100, 100) + 5);
	water_free(&a);
	water_free(&b);
	run_retuned(more_viscosity, &a, &b);
	print_message("viscosity -> 0.1: peak %d -> %d\n", peak(&a), peak(&b));
	assert_true(peak(&b) * 2 < peak(&a));
	water_free(&a);
	water_free(&b);
	run_retuned(more_stiffness, &a, &b);
	int differ = 0;
	for (int x = 0; x < 200; x++)
		differ += abs(at(&a, x, 100) - at(&b, x, 100)) > 2;
	print_message("stiffness -> 0.05: %d cells of the middle row differ\n", differ);
	assert_true(differ > 20);
	water_free(&a);
	water_free(&b);
}

/* water.engine = "spring" and its four keys reach the engine through config_water_tuning. */
static void test_config_chooses_spring(void **state)
{
	char path[] = "/tmp/fbripple-spring-XXXXXX", err[256];
	const char *text = "water: { engine = \"spring\"; spring_stiffness = 0.004;\n"
			   "spring_viscosity = 0.02; spring_spread = 0.05; spring_passes = 6; };\n";
	struct config cfg;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(config_load(&cfg, path, err, sizeof(err), NULL, NULL), 0);
	unlink(path);
	assert_ptr_equal(config_water_engine(&cfg), &water_spring);
	struct water_tuning t = config_water_tuning(&cfg);
	assert_true(t.stiffness == 0.004 && t.viscosity == 0.02 && t.spread == 0.05);
	assert_int_equal(t.passes, 6);
	config_defaults(&cfg);
	t = config_water_tuning(&cfg);
	assert_true(t.stiffness == 0.002 && t.viscosity == 0.012 && t.spread == 0.035);
	assert_int_equal(t.passes, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equals_seed_port),
		cmocka_unit_test(test_calms_to_zero),
		cmocka_unit_test(test_calms_from_a_level_swell),
		cmocka_unit_test(test_held_stone_keeps_its_depth),
		cmocka_unit_test(test_live_rows_never_miss_a_wet_row),
		cmocka_unit_test(test_live_rows_spread_by_passes),
		cmocka_unit_test(test_walls_keep_zero_and_reflect),
		cmocka_unit_test(test_tuning_takes_effect),
		cmocka_unit_test(test_config_chooses_spring),
	};

	return cmocka_run_group_tests_name("spring", tests, NULL, NULL);
}
