/* test_touch.c - what the daemon's contacts do to the water (touch.c), in process, on a file
 * framebuffer: the input devices' events given as the decoder reports them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "daemon/app.h"
#include "testutil.h"

/* The parts of the daemon a contact reaches: the screen, its pacing, the touch. */
struct rig {
	char *dir;
	struct config cfg;
	struct loop loop;
	struct screen screen;
	struct pace pace;
	struct touch touch;
};

static void on_tick(struct loop_source *src, uint32_t events)
{
	(void)src;
	(void)events;
}

static int setup(void **state)
{
	struct rig *r = calloc(1, sizeof(*r));
	struct display_request req = { .file = true, .width = 64, .height = 48, .stride = 64 * 4 };
	struct pace_settings set;

	r->dir = tu_tmpdir();
	req.device = tu_path(r->dir, "fb.raw");
	assert_int_equal(pixfmt_by_name(&req.fmt, "XRGB8888"), 0);
	config_defaults(&r->cfg);
	r->cfg.display.threads = 1;
	r->cfg.screensaver.blank_after = 1;
	set = pace_settings(&r->cfg);
	assert_int_equal(loop_init(&r->loop), 0);
	screen_init(&r->screen);
	assert_int_equal(screen_open(&r->screen, &req), 0);
	assert_int_equal(screen_setup(&r->screen, &r->cfg), 0);
	pace_init(&r->pace, &r->screen);
	pace_start(&r->pace, &set);
	assert_int_equal(pace_open(&r->pace, &r->loop, on_tick, r), 0);
	touch_init(&r->touch, &r->pace, &r->screen, &r->cfg);
	*state = r;
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

static void contact(struct rig *r, enum input_action a, int x, int y, int from_x, int from_y)
{
	struct input_contact c = { a, 0, x, y, from_x, from_y, 0 };

	touch_contact(&r->touch, &c);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_waking_swipe_draws_nothing, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
