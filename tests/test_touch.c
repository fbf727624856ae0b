/* test_touch.c - what the daemon's contacts do to the water (touch.c), in process, on a file
 * framebuffer: the input devices' events given as the decoder reports them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/app.h"
#include "testutil.h"

/* The parts of the daemon a contact reaches: the screen, its pacing, the touch. */
struct rig {
	char *dir;
	struct config cfg;
	struct loop loop;
	struct budget work;
	struct screen screen;
	struct pace pace;
	struct touch touch;
};

static void on_tick(struct loop_source *src, uint32_t events)
{
	(void)src;
	(void)events;
}

/* A rig drawing on a file framebuffer of width x height at water.cell cell, its stones of
 * radius size (0: auto) every spacing pixels, in shape. */
static struct rig *rig_open(int width, int height, int cell, int size, int spacing,
			    enum water_shape shape)
{
	struct rig *r = calloc(1, sizeof(*r));
	struct display_request req = { .file = true, .width = width, .height = height,
				       .stride = (size_t)width * 4 };
	struct pace_settings set;

	r->dir = tu_tmpdir();
	req.device = tu_path(r->dir, "fb.raw");
	assert_int_equal(pixfmt_by_name(&req.fmt, "XRGB8888"), 0);
	config_defaults(&r->cfg);
	r->cfg.display.threads = 1;
	r->cfg.screensaver.blank_after = 1;
	r->cfg.water.cell = cell;
	r->cfg.stone.size = size;
	r->cfg.stone.shape = shape;
	r->cfg.input.trail_spacing = spacing;
	set = pace_settings(&r->cfg);
	assert_int_equal(loop_init(&r->loop), 0);
	screen_init(&r->screen);
	assert_int_equal(screen_open(&r->screen, &req), 0);
	assert_int_equal(screen_setup(&r->screen, &r->cfg), 0);
	pace_init(&r->pace, &r->screen);
	pace_start(&r->pace, &set);
	assert_int_equal(pace_open(&r->pace, &r->loop, on_tick, r), 0);
	budget_init(&r->work, &r->loop, APP_STONE_WORK);
	touch_init(&r->touch, &r->pace, &r->screen, &r->cfg, &r->work);
	return r;
}

static int setup(void **state)
{
	*state = rig_open(64, 48, 0, 0, 8, WATER_COSINE);
	return 0;
}

/* The largest stones of the documented range, as close as they go, on water of one pixel a
 * cell: a stone is 201 x 201 cells of work, and a trail of any length is more than one
 * wake-up's. Stones of the disc shape overwrite what is there: the order they fall in shows. */
static int setup_heavy(void **state)
{
	*state = rig_open(640, 480, 1, 100, 1, WATER_DISC);
	return 0;
}

static int teardown(void **state)
{
	struct rig *r = *state;

	pace_close(&r->pace);
	screen_release(&r->screen);
	loop_free(&r->loop);
	tu_rmtree(r->dir);
	free(r);
	return 0;
}

static bool contact(struct rig *r, enum input_action a, int x, int y, int from_x, int from_y)
{
	struct input_contact c = { a, 0, x, y, from_x, from_y, 0 };

	return touch_contact(&r->touch, &c);
}

/* The touch that wakes a blanked screen only wakes it: no stone, and dragged, no trail
 * (review: the swipe that woke it drew one). The next touch ripples. */
static void test_waking_swipe_draws_nothing(void **state)
{
	struct rig *r = *state;

	for (int i = 0; i < 100 && !r->pace.idle.blanked; i++)	/* blank_after: 1 s */
		assert_int_equal(loop_dispatch(&r->loop, 50), 0);
	assert_true(r->pace.idle.blanked);
	contact(r, INPUT_DOWN, 10, 10, 10, 10);
	assert_false(r->pace.idle.blanked);
	contact(r, INPUT_MOVE, 30, 10, 10, 10);
	contact(r, INPUT_MOVE, 50, 10, 30, 10);
	contact(r, INPUT_UP, 50, 10, 50, 10);
	assert_true(screen_calm(&r->screen));
	assert_int_equal(r->touch.contacts, 0);
	contact(r, INPUT_DOWN, 10, 30, 10, 30);
	assert_false(screen_calm(&r->screen));
	contact(r, INPUT_UP, 10, 30, 10, 30);
}

static bool same_water(const struct water *a, const struct water *b)
{
	for (int y = 0; y < a->height; y++)
		if (memcmp(water_row(a, y), water_row(b, y), (size_t)a->width * sizeof(int16_t)))
			return false;
	return true;
}

/* A swipe as the input devices report it: down, three strokes (right, down, left) as a fast
 * finger makes them from one frame to the next, up. Every stone of it reaches water that no
 * stone before it did, so each one shows. */
static const struct input_contact swipe[] = {
	{ INPUT_DOWN, 0, 110, 110, 110, 110, 0 },
	{ INPUT_MOVE, 0, 530, 110, 110, 110, 0 },
	{ INPUT_MOVE, 0, 530, 370, 530, 110, 0 },
	{ INPUT_MOVE, 0, 110, 370, 530, 370, 0 },
	{ INPUT_UP, 0, 110, 370, 110, 370, 0 },
};

/* want's stones one at a time, after those already dropped, until its water is got's; the
 * work of those stones. Fails if got's water is no prefix of the swipe's stones. */
static long catch_up(struct screen *want, const struct config *cfg, struct water_trail *t,
		     int *stroke, const struct water *got)
{
	long work = 0;

	while (!same_water(&want->water, got)) {
		const struct input_contact *c = &swipe[*stroke];

		if (*stroke == 0 || t->done) {
			if (++*stroke == 4)
				fail_msg("the water is no prefix of the swipe's stones");
			c = &swipe[*stroke];
			*t = (struct water_trail){ c->from_x, c->from_y, c->x, c->y,
						   cfg->stone.size, cfg->input.trail_weight,
						   cfg->input.trail_spacing, 0, false };
			continue;
		}
		work += screen_trail_part(want, t, 1);	/* one stone */
	}
	return work;
}

/* A fast swipe with the largest stones leaves its whole trail, every stone of it in order,
 * though no wake-up does more than its budget of stone work and a stone: the contacts go on
 * in the next wake-ups, each offered again until it is done, as the input devices do. A
 * stroke across the screen took 1 s of one wake-up here at 1920x1080. */
static void test_a_long_swipe_goes_on_over_wake_ups(void **state)
{
	struct rig *r = *state, *want = rig_open(640, 480, 1, 100, 1, WATER_DISC);
	struct water_trail t = { .done = true };
	long most = 0, stone = 201 * 201 + 1;
	int next = 0, stroke = 0, wakeups = 0;

	/* the reference: the tap's stone, then the strokes' one by one */
	screen_drop(&want->screen, swipe[0].x, swipe[0].y, r->cfg.stone.size, r->cfg.stone.weight);
	while (next < 5) {
		long work;

		assert_int_equal(loop_dispatch(&r->loop, 0), 0);
		while (next < 5 && touch_contact(&r->touch, &swipe[next]))
			next++;
		wakeups++;
		work = catch_up(&want->screen, &r->cfg, &t, &stroke, &r->screen.water);
		most = work > most ? work : most;
		if (work > APP_STONE_WORK + stone)
			fail_msg("wake-up %d: stone work %ld", wakeups, work);
		assert_true(wakeups < 1000);
	}
	assert_int_equal(stroke, 3);
	assert_true(t.done);
	assert_true(same_water(&r->screen.water, &want->screen.water));
	assert_int_equal(r->touch.contacts, 0);
	printf("# the swipe in %d wake-ups, at most %ld of stone work in one\n", wakeups, most);
	assert_true(wakeups > 20);
	teardown((void **)&want);
}

/* Control commands that want every wake-up's stone work, served before the input devices in
 * each (as epoll may hand them out), leave touch every other wake-up: a swipe still lands whole. */
static void test_a_swipe_takes_turns_with_control(void **state)
{
	struct rig *r = *state;
	int control, next = 0, wakeups = 0, mine = 0;

	while (next < 5) {
		long work;

		assert_int_equal(loop_dispatch(&r->loop, 0), 0);
		work = budget_left(&r->work, &control);
		budget_spend(&r->work, work);
		mine += work == 0;
		while (next < 5 && touch_contact(&r->touch, &swipe[next]))
			next++;
		assert_true(++wakeups < 2000);
	}
	printf("# the swipe in %d wake-ups, %d of them touch's turn\n", wakeups, mine);
	assert_true(mine >= wakeups / 2 - 1);
	assert_int_equal(r->touch.contacts, 0);
	assert_false(screen_calm(&r->screen));
}

/* The heights of every row of w, in a copy to free. */
static int16_t *heights_of(const struct water *w)
{
	size_t row = (size_t)w->width * sizeof(int16_t);
	int16_t *copy = malloc(row * w->height);

	for (int y = 0; y < w->height; y++)
		memcpy(copy + (size_t)y * w->width, water_row(w, y), row);
	return copy;
}

/* A trail left unfinished when the saver begins to fade back to the application is dropped:
 * its contact offered again in the next wake-up drops no more stones (review: the rest of the
 * stroke fell into the fading water). */
static void test_an_unfinished_trail_stops_at_the_fade(void **state)
{
	struct rig *r = *state;
	int16_t *before;

	saver_init(&r->pace.saver, SAVER_IDLE, SAVER_WAKE_COMMAND, 0, 1.0, 0);
	assert_int_equal(saver_command(&r->pace.saver, true, 0), SAVER_SHOW);
	assert_int_equal(loop_dispatch(&r->loop, 0), 0);
	assert_true(touch_contact(&r->touch, &swipe[0]));
	assert_false(touch_contact(&r->touch, &swipe[1]));	/* the stroke needs more wake-ups */
	assert_int_equal(saver_command(&r->pace.saver, false, 10), SAVER_FADE);
	before = heights_of(&r->screen.water);
	assert_int_equal(loop_dispatch(&r->loop, 0), 0);
	assert_true(touch_contact(&r->touch, &swipe[1]));
	assert_true(touch_contact(&r->touch, &swipe[2]));
	assert_true(touch_contact(&r->touch, &swipe[4]));
	assert_true(r->touch.trail.done);
	for (int y = 0; y < r->screen.water.height; y++)
		if (memcmp(water_row(&r->screen.water, y), before + (size_t)y * r->screen.water.width,
			   (size_t)r->screen.water.width * sizeof(int16_t)))
			fail_msg("row %d of the water changed while the saver faded", y);
	free(before);
	assert_int_equal(r->touch.contacts, 0);
}

/* A tap that comes when the wake-up's stone work is spent (by control commands, say) drops
 * its stone in the next wake-up, once: it counts as one contact, and the next frame shows it. */
static void test_a_tap_waits_for_the_next_wake_up_only(void **state)
{
	struct rig *r = *state;

	assert_int_equal(loop_dispatch(&r->loop, 0), 0);
	budget_spend(&r->work, budget_left(&r->work, r));
	assert_false(contact(r, INPUT_DOWN, 10, 10, 10, 10));
	assert_true(screen_calm(&r->screen));
	assert_int_equal(r->touch.contacts, 0);
	assert_int_equal(loop_dispatch(&r->loop, 0), 0);
	assert_true(contact(r, INPUT_DOWN, 10, 10, 10, 10));
	assert_false(screen_calm(&r->screen));
	assert_int_equal(r->touch.contacts, 1);
	assert_true(r->pace.armed);
	assert_true(contact(r, INPUT_UP, 10, 10, 10, 10));
	assert_int_equal(r->touch.contacts, 0);
}

/* The input decoder reports a dragged contact each trail_spacing pixels: "auto" is two of the
 * screen's cells there too, so the trail's drops are not spaced by the moves instead. */
static void test_auto_spacing_reaches_the_decoder(void **state)
{
	static const struct { int w, h, spacing, cell, want; } cases[] = {
		{ 800, 480, 0, 0, 4 }, { 1920, 1080, 0, 0, 8 }, { 3840, 2160, 0, 0, 16 },
		{ 1920, 1080, 0, 3, 6 }, { 3840, 2160, 5, 0, 5 },
	};
	const char *devices[CONFIG_LIST_MAX];
	struct options opt = { 0 };
	struct config cfg;

	(void)state;
	config_defaults(&cfg);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct display_mode mode = { .width = cases[i].w, .height = cases[i].h };
		struct input_opts o;

		cfg.input.trail_spacing = cases[i].spacing;
		cfg.water.cell = cases[i].cell;
		touch_options(&cfg, &opt, &mode, &o, devices);
		assert_int_equal(o.min_move, cases[i].want);
	}
}

/* With trail_spacing "auto" the decoder's step is two cells: a reload that makes a new grid
 * (water.cell) gives the input layer the new step, as one of the display or input does. */
static void test_a_new_grid_reaches_the_decoder(void **state)
{
	struct config cfg;

	(void)state;
	config_defaults(&cfg);
	assert_true(touch_reload_wanted(RELOAD_WATER | RELOAD_GRID, &cfg));
	assert_true(touch_reload_wanted(RELOAD_DISPLAY, &cfg));
	assert_true(touch_reload_wanted(RELOAD_INPUT, &cfg));
	assert_false(touch_reload_wanted(RELOAD_WATER | RELOAD_STONE | RELOAD_SPLASH, &cfg));
	cfg.input.trail_spacing = 8;	/* in pixels: the devices stay open */
	assert_false(touch_reload_wanted(RELOAD_WATER | RELOAD_GRID, &cfg));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auto_spacing_reaches_the_decoder),
		cmocka_unit_test(test_a_new_grid_reaches_the_decoder),
		cmocka_unit_test_setup_teardown(test_waking_swipe_draws_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_long_swipe_goes_on_over_wake_ups,
						setup_heavy, teardown),
		cmocka_unit_test_setup_teardown(test_a_tap_waits_for_the_next_wake_up_only, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_a_swipe_takes_turns_with_control, setup_heavy,
						teardown),
		cmocka_unit_test_setup_teardown(test_an_unfinished_trail_stops_at_the_fade,
						setup_heavy, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
