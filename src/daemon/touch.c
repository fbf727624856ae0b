/* touch.c - touches and clicks into stones: the input devices the config names, and what each
 * contact does. */
#include <string.h>
#include <time.h>

#include "app.h"
#include "util/clock.h"

void touch_init(struct touch *t, struct pace *pace, struct screen *screen,
		const struct config *cfg, struct budget *work)
{
	*t = (struct touch){ .pace = pace, .screen = screen, .cfg = cfg, .work = work,
			     .trail.done = true };
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

static bool same_contact(const struct input_contact *a, const struct input_contact *b)
{
	return a->action == b->action && a->id == b->id && a->x == b->x && a->y == b->y &&
	       a->from_x == b->from_x && a->from_y == b->from_y && a->time_us == b->time_us;
}

/* Whether c may drop stones: then it waits while the wake-up has no stone work left. */
static bool may_drop(const struct touch *t, const struct input_contact *c)
{
	if (c->action == INPUT_DOWN)
		return true;
	if (!saver_ripples(&t->pace->saver))
		return false;
	return (c->action == INPUT_MOVE && !only_woke(t, c->id)) ||
	       (c->action == INPUT_HOVER && t->cfg->input.hover_ripples);
}

/* The trail goes on as far as the wake-up's stone work allows; true once it is whole. */
static bool trail_go_on(struct touch *t)
{
	long work = budget_left(t->work, t);

	if (work > 0)
		budget_spend(t->work, screen_trail_part(t->screen, &t->trail, work));
	return t->trail.done;
}

/* Each contact dragged draws its own trail of lighter drops, a hovering mouse lighter still. */
static bool trail_start(struct touch *t, const struct input_contact *c)
{
	const struct config *cfg = t->cfg;
	int weight = cfg->input.trail_weight;

	if (c->action == INPUT_HOVER)
		weight = weight > 1 ? weight / 2 : 1;
	t->doing = *c;
	t->trail = (struct water_trail){ c->from_x, c->from_y, c->x, c->y, cfg->stone.size,
					 weight, cfg->input.trail_spacing, 0, false };
	return trail_go_on(t);
}

static void touch_down(struct touch *t, const struct input_contact *c)
{
	const struct config *cfg = t->cfg;

	t->contacts++;
	set_only_woke(t, c->id, pace_touched(t->pace));
	if (only_woke(t, c->id))
		return;
	budget_spend(t->work, screen_drop(t->screen, c->x, c->y, cfg->stone.size,
					  cfg->stone.weight));
	if (!t->drop_event_us)
		t->drop_event_us = c->time_us;
}

/* A touch drops a stone, and each contact dragged draws its own trail. A touch that drops
 * none, as it only wakes the screen, draws none either until it lifts. A trail longer than
 * the wake-up's stone work allows goes on when its contact comes again, in the next, unless
 * the saver has begun to fade since. */
bool touch_contact(void *ctx, const struct input_contact *c)
{
	struct touch *t = ctx;
	bool done = true;

	if (!t->trail.done && same_contact(c, &t->doing)) {
		if (!saver_ripples(&t->pace->saver)) {
			t->trail.done = true;	/* fading or hidden: the water stays as it is */
			return true;
		}
		done = trail_go_on(t);
		pace_wake(t->pace);
		return done;
	}
	t->trail.done = true;	/* its contact went with its device: so does the rest */
	if (c->action == INPUT_ACTIVITY) {
		pace_touched(t->pace);
		return true;
	}
	if (may_drop(t, c) && budget_left(t->work, t) <= 0)
		return false;
	if (c->action == INPUT_DOWN || c->action == INPUT_UP)
		log_debug("input: contact %d %s at %d,%d", c->id,
			  c->action == INPUT_DOWN ? "down" : "up", c->x, c->y);
	if (c->action == INPUT_DOWN) {
		touch_down(t, c);
	} else if (c->action == INPUT_UP) {
		t->contacts -= t->contacts > 0;
		set_only_woke(t, c->id, false);
	} else if (!saver_ripples(&t->pace->saver)) {
		return true;	/* hidden or fading: the water stays as it is */
	} else if (c->action == INPUT_MOVE && only_woke(t, c->id)) {
		return true;
	} else if (may_drop(t, c)) {
		done = trail_start(t, c);
	}
	pace_wake(t->pace);
	return done;
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
				  .min_move = cfg->input.trail_spacing
						      ? cfg->input.trail_spacing
						      : WATER_AUTO_TRAIL_CELLS *
								screen_cell_for(cfg, mode),
				  .axes = cfg->input.axes };
	memcpy(o->cal, cfg->input.calibration.item, sizeof(o->cal));
}

bool touch_reload_wanted(unsigned changes, const struct config *cfg)
{
	/* the decoder's step of "auto" spacing is in the grid's cells */
	if ((changes & RELOAD_GRID) && !cfg->input.trail_spacing)
		return true;
	return changes & (RELOAD_DISPLAY | RELOAD_INPUT);
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

/* A frame was shown: how long the touch it shows waited for it. */
void touch_shown(struct touch *t)
{
	if (t->drop_event_us)
		log_debug("input: a touch shown %.1f ms after its event",
			  (double)(clock_us() - t->drop_event_us) / 1000);
	t->drop_event_us = 0;
}

void touch_close(struct touch *t)
{
	input_close(t->input);
	t->input = NULL;
}
