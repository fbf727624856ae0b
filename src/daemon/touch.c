/* touch.c - touches and clicks into stones: the input devices the config names, and what each
 * contact does. */
#include <string.h>

#include "app.h"

/* A touch drops a stone, and each contact dragged draws its own trail of lighter drops. */
static void on_contact(void *ctx, const struct input_contact *c)
{
	struct app *app = ctx;
	const struct config *cfg = &app->cfg;
	int weight = cfg->input.trail_weight;

	if (c->action == INPUT_ACTIVITY) {
		pace_activity(app);
		return;
	}
	if (c->action == INPUT_DOWN || c->action == INPUT_UP)
		log_debug("input: contact %d %s at %d,%d", c->id,
			  c->action == INPUT_DOWN ? "down" : "up", c->x, c->y);
	if (c->action == INPUT_DOWN) {
		app->input_contacts++;
		if (!pace_activity(app)) {
			water_drop(&app->water, c->x, c->y, cfg->stone.size, cfg->stone.weight);
			if (!app->drop_event_us)
				app->drop_event_us = c->time_us;
		}
	} else if (c->action == INPUT_UP) {
		app->input_contacts -= app->input_contacts > 0;
	} else if (c->action == INPUT_MOVE || cfg->input.hover_ripples) {
		if (c->action == INPUT_HOVER)
			weight = weight > 1 ? weight / 2 : 1;
		water_trail(&app->water, c->from_x, c->from_y, c->x, c->y, cfg->stone.size, weight,
			    cfg->input.trail_spacing);
	}
	pace_wake(app);
}

static void note_input(void *ctx, enum log_level level, const char *msg)
{
	(void)ctx;
	log_msg(level, "input: %s", msg);
}

void touch_options(const struct app *app, struct input_opts *o, const char **devices)
{
	const struct config *cfg = &app->cfg;

	for (int i = 0; i < cfg->input.devices.n; i++)
		devices[i] = cfg->input.devices.item[i];
	*o = (struct input_opts){ .devices = devices, .ndevices = cfg->input.devices.n,
				  .only_listed = app->opt.fbdev_file != NULL,
				  .grab = cfg->input.grab, .has_cal = cfg->input.calibration.n == 6,
				  .fb_width = app->fb.width, .fb_height = app->fb.height,
				  .rotate = cfg->display.rotate,
				  .min_move = cfg->input.trail_spacing,
				  .axes = cfg->input.axes };
	memcpy(o->cal, cfg->input.calibration.item, sizeof(o->cal));
}

/* Every touchscreen, mouse and tablet, also those plugged in later. A headless --fbdev run
 * takes only the devices input.devices names, never the desktop's own mouse. */
void touch_open(struct app *app)
{
	const char *devices[CONFIG_LIST_MAX];
	struct input_opts o;
	int ret;

	touch_options(app, &o, devices);
	if (app->input)
		ret = input_reconfigure(app->input, &o);
	else
		ret = input_open(&app->input, &o, &app->loop, on_contact, note_input, app);
	if (ret < 0)
		log_warn("input: %s; running without touch or mouse", strerror(-ret));
}
