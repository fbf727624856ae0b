/* test_look.c - what a person sees of one touch with the defaults, on the screens kiosks have. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "look.h"

static const int screens[][2] = { { 800, 480 }, { 1920, 1080 }, { 3840, 2160 } };

/* valgrind runs these a hundred times slower: the smallest screen says enough there */
static int screens_to_measure(void)
{
	const char *v = getenv("FBRIPPLE_VALGRIND");

	return v && v[0] == '1' ? 1 : 3;
}

static void measure(const struct config *cfg, const char *format, struct look *out, int n)
{
	for (int i = 0; i < n; i++) {
		assert_int_equal(look_measure(cfg, screens[i][0], screens[i][1], format, 6, 10,
					      &out[i]), 0);
		print_message("%dx%d %s: reach %.3f of the short side, life %.2f s; at 1 s "
			      "radius %.3f on the axes, %.3f on the diagonals, change %.0f and "
			      "%.0f\n", screens[i][0], screens[i][1], format, out[i].reach,
			      out[i].life, out[i].ring_axis, out[i].ring_diagonal,
			      out[i].glow_axis, out[i].glow_diagonal);
	}
}

/*
 * The goal: reach >= 0.30 of the short side, life >= 3 s, the screens within 20% of
 * each other; and a round ring: at 1 s as far along the diagonals as along the axes, and no
 * brighter there.
 */
static void assert_goal_on_kiosk_screens(const struct config *cfg)
{
	double lo_reach = 1e9, hi_reach = 0, lo_life = 1e9, hi_life = 0;
	struct look l[3];
	int n = screens_to_measure();

	measure(cfg, "XRGB8888", l, n);
	for (int i = 0; i < n; i++) {
		assert_true(l[i].reach >= 0.30);
		assert_true(l[i].life >= 3.0);
		lo_reach = fmin(lo_reach, l[i].reach);
		hi_reach = fmax(hi_reach, l[i].reach);
		lo_life = fmin(lo_life, l[i].life);
		hi_life = fmax(hi_life, l[i].life);
		assert_true(l[i].ring_axis > 0.1);
		assert_true(fabs(l[i].ring_diagonal / l[i].ring_axis - 1) <= 0.10);
		assert_true(l[i].glow_diagonal <= 1.25 * l[i].glow_axis);
	}
	assert_true(hi_reach <= 1.2 * lo_reach);
	assert_true(hi_life <= 1.2 * lo_life);
}

static void test_defaults_on_kiosk_screens(void **state)
{
	struct config cfg;

	(void)state;
	config_defaults(&cfg);
	assert_goal_on_kiosk_screens(&cfg);
}

/* water.engine = "spring" with its own defaults (and the shared stone and light) meets it too. */
static void test_spring_defaults_on_kiosk_screens(void **state)
{
	struct config cfg;

	(void)state;
	assert_int_equal(look_defaults_with_engine(&cfg, "spring"), 0);
	assert_goal_on_kiosk_screens(&cfg);
}

/* water.engine = "hooke" with its own defaults meets it too. */
static void test_hooke_defaults_on_kiosk_screens(void **state)
{
	struct config cfg;

	(void)state;
	assert_int_equal(look_defaults_with_engine(&cfg, "hooke"), 0);
	assert_goal_on_kiosk_screens(&cfg);
}

/* 16 bpp keeps 5 and 6 bits of each channel: the ring must still show as far and as long. */
static void assert_goal_at_16_bpp(const struct config *cfg)
{
	bool small = screens_to_measure() == 1;
	int w = small ? 800 : 1280, h = small ? 480 : 720;
	struct look l;

	assert_int_equal(look_measure(cfg, w, h, "RGB565", 6, 10, &l), 0);
	print_message("%dx%d RGB565: reach %.3f, life %.2f s\n", w, h, l.reach, l.life);
	assert_true(l.reach >= 0.30);
	assert_true(l.life >= 3.0);
}

static void test_defaults_at_16_bpp(void **state)
{
	struct config cfg;

	(void)state;
	config_defaults(&cfg);
	assert_goal_at_16_bpp(&cfg);
}

static void test_hooke_defaults_at_16_bpp(void **state)
{
	struct config cfg;

	(void)state;
	assert_int_equal(look_defaults_with_engine(&cfg, "hooke"), 0);
	assert_goal_at_16_bpp(&cfg);
}

static void test_spring_defaults_at_16_bpp(void **state)
{
	struct config cfg;

	(void)state;
	assert_int_equal(look_defaults_with_engine(&cfg, "spring"), 0);
	assert_goal_at_16_bpp(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_on_kiosk_screens),
		cmocka_unit_test(test_defaults_at_16_bpp),
		cmocka_unit_test(test_hooke_defaults_on_kiosk_screens),
		cmocka_unit_test(test_hooke_defaults_at_16_bpp),
		cmocka_unit_test(test_spring_defaults_on_kiosk_screens),
		cmocka_unit_test(test_spring_defaults_at_16_bpp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
