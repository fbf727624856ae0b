/* touch.c - touches and clicks into stones: the input devices the config names, and what each
 * contact does. */
#include <string.h>
#include <time.h>

#include "app.h"

void touch_init(struct touch *t, struct pace *pace, struct screen *screen,
		const struct config *cfg)
{
	*t = (struct touch){ .pace = pace, .screen = screen, .cfg = cfg };
}

static void set_only_woke(struct touch *t, int id, bool woke)
{
	if (id >= 0 && id < INPUT_CONTACTS_MAX)
		t->only_woke[id] = woke;
}

static bool only_woke(const struct touch *t, int id)
{
	return id >= 0 && id < INPUT_CONTACTS_MAX && t->only_woke[id];
}

/* A touch drops a stone, and each contact dragged draws its own trail of lighter drops. A
 * touch that drops none, as it only wakes the screen, draws none either until it lifts. */
void touch_contact(void *ctx, const struct input_contact *c)
{
	struct touch *t = ctx;
	const struct config *cfg = t->cfg;
	int weight = cfg->input.trail_weight;

	if (c->action == INPUT_ACTIVITY) {
		pace_touched(t->pace);
		return;
	}
	if (c->action == INPUT_DOWN || c->action == INPUT_UP)
		log_debug("input: contact %d %s at %d,%d", c->id,
			  c->action == INPUT_DOWN ? "down" : "up", c->x, c->y);
	if (c->action == INPUT_DOWN) {
		t->contacts++;
		set_only_woke(t, c->id, pace_touched(t->pace));
		if (!only_woke(t, c->id)) {
			screen_drop(t->screen, c->x, c->y, cfg->stone.size, cfg->stone.weight);
			if (!t->drop_event_us)
				t->drop_event_us = c->time_us;
		}
	} else if (c->action == INPUT_UP) {
		t->contacts -= t->contacts > 0;
		set_only_woke(t, c->id, false);
	} else if (!saver_ripples(&t->pace->saver)) {
		return;		/* hidden or fading: the water stays as it is */
	} else if (c->action == INPUT_MOVE && only_woke(t, c->id)) {
		return;
	} else if (c->action == INPUT_MOVE || cfg->input.hover_ripples) {
		if (c->action == INPUT_HOVER)
			weight = weight > 1 ? weight / 2 : 1;
		screen_trail(t->screen, c->from_x, c->from_y, c->x, c->y, cfg->stone.size, weight,
			     cfg->input.trail_spacing);
	}
	pace_wake(t->pace);
}

static void note_input(void *ctx, enum log_level level, const char *msg)
{
	(void)ctx;
	log_msg(level, "input: %s", msg);
}

/* What the input layer needs of the config, and the screen the touches land on. */
void touch_options(const struct config *cfg, const struct options *opt,
		   const struct display_mode *mode, struct input_opts *o, const char **devices)
{
	for (int i = 0; i < cfg->input.devices.n; i++)
		devices[i] = cfg->input.devices.item[i];
	*o = (struct input_opts){ .devices = devices, .ndevices = cfg->input.devices.n,
				  .only_listed = opt->fbdev_file != NULL,
				  .grab = cfg->input.grab,
				  .released = cfg->screensaver.mode == SAVER_IDLE,
				  .has_cal = cfg->input.calibration.n == 6,
				  .fb_width = mode->width, .fb_height = mode->height,
				  .rotate = (cfg->display.rotate + mode->rotate) % 360,
				  .min_move = cfg->input.trail_spacing,
				  .axes = cfg->input.axes };
	memcpy(o->cal, cfg->input.calibration.item, sizeof(o->cal));
}

/* Every touchscreen, mouse and tablet, also those plugged in later; again after a reload. A
 * headless --fbdev run takes only the devices input.devices names, never the desktop's own
 * mouse. */
void touch_open(struct touch *t, const struct options *opt, struct loop *loop)
{
	const char *devices[CONFIG_LIST_MAX];
	struct input_opts o;
	int ret;

	touch_options(t->cfg, opt, &t->screen->display.mode, &o, devices);
	if (t->input)
		ret = input_reconfigure(t->input, &o);
	else
		ret = input_open(&t->input, &o, loop, touch_contact, note_input, t);
	if (ret < 0)
		log_warn("input: %s; running without touch or mouse", strerror(-ret));
}

/* While another VT is in front its programs get the touches. */
void touch_grab(struct touch *t, bool grab)
{
	input_grab(t->input, grab);
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* A frame was shown: how long the touch it shows waited for it. */
void touch_shown(struct touch *t)
{
	if (t->drop_event_us)
		log_debug("input: a touch shown %.1f ms after its event",
			  (double)(now_us() - t->drop_event_us) / 1000);
	t->drop_event_us = 0;
}

void touch_close(struct touch *t)
{
	input_close(t->input);
	t->input = NULL;
}
