/* daemon.c - the event loop: frame ticks, signals, touches, and when to sleep. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "notify.h"

/* FBRIPPLE_TEST_FRAME_MS makes every frame take that long more, as on a small CPU: the tests
 * show with it that slow frames do not starve input. */
static void test_frame_delay(void)
{
	const char *env = getenv("FBRIPPLE_TEST_FRAME_MS");
	long ms = env ? strtol(env, NULL, 10) : 0;
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	if (ms > 0 && ms <= 10000)
		nanosleep(&ts, NULL);
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void advance(struct app *app, int steps)
{
	double dt = 1.0 / app->cfg.water.steps_per_second;

	if (!steps)
		return;
	for (int i = 0; i < steps; i++) {
		water_rain(&app->water, &app->rain, dt);
		water_step(&app->water);
	}
	test_frame_delay();
	screen_draw(app, false);
	if (app->drop_event_us)
		log_debug("input: a touch shown %.1f ms after its event",
			  (double)(now_us() - app->drop_event_us) / 1000);
	app->drop_event_us = 0;
}

/* Without a loop a --frames run on a real display looks for a stop or a VT switch itself,
 * between frames, and then ends (restoring the console); a headless run needs no such care. */
static bool asked_to_stop(const struct app *app)
{
	sigset_t pending;

	if (app->opt.fbdev_file || sigpending(&pending) < 0)
		return false;
	return sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM) ||
	       sigismember(&pending, SIGUSR1);
}

void daemon_run_frames(struct app *app)
{
	screen_draw(app, true);
	for (long i = 0; i < app->opt.frames && !asked_to_stop(app); i++)
		advance(app, 1);
}

int daemon_arm_timer(struct app *app, bool on)
{
	long period = 1000000000L / app->cfg.display.fps;
	struct itimerspec its = { 0 };

	on = on && !app->vt_away;
	if (on == app->timer_armed)
		return 0;
	if (on)
		its.it_interval = its.it_value = (struct timespec){ period / 1000000000L,
								     period % 1000000000L };
	app->steps_due = 0;
	if (timerfd_settime(app->ticks.fd, 0, &its, NULL) < 0) {
		log_error("frame timer: %s", strerror(errno));
		return -errno;
	}
	app->timer_armed = on;
	return 0;
}

static bool nothing_moves(const struct app *app)
{
	return water_calm(&app->water) && app->rain.rate == 0;
}

int64_t daemon_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Whether the frame timer has work: not paused or blanked, and the water moves or rain falls. */
static bool should_run(const struct app *app)
{
	return !app->paused && !app->idle.blanked && !nothing_moves(app);
}

/* Sets the rain from its switches, then runs the frame timer if there is something to draw. */
void daemon_wake(struct app *app)
{
	bool rain = (app->rain_on || app->idle.raining) && !app->idle.blanked;

	app->rain.rate = rain ? app->cfg.rain.rate : 0;
	app->rain.size = app->cfg.rain.size;
	app->rain.weight = app->cfg.rain.weight;
	daemon_arm_timer(app, should_run(app));
}

static void count_frame(struct app *app)
{
	int64_t now = daemon_now_ms(), span = now - app->fps_start_ms;

	app->fps_frames++;
	if (span > 2000) {		/* the timer slept: start a new window */
		app->fps_start_ms = now;
		app->fps_frames = 0;
	} else if (span >= 1000) {
		app->fps = app->fps_frames * 1000.0 / (double)span;
		app->fps_start_ms = now;
		app->fps_frames = 0;
	}
}

/* A touch drops a stone, and each contact dragged draws its own trail of lighter drops. */
static void on_contact(void *ctx, const struct input_contact *c)
{
	struct app *app = ctx;
	const struct config *cfg = &app->cfg;
	int weight = cfg->input.trail_weight;

	if (c->action == INPUT_ACTIVITY) {
		service_activity(app);
		return;
	}
	if (c->action == INPUT_DOWN || c->action == INPUT_UP)
		log_debug("input: contact %d %s at %d,%d", c->id,
			  c->action == INPUT_DOWN ? "down" : "up", c->x, c->y);
	if (c->action == INPUT_DOWN) {
		app->input_contacts++;
		if (!service_activity(app)) {
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
	daemon_wake(app);
}

static void note_input(void *ctx, enum log_level level, const char *msg)
{
	(void)ctx;
	log_msg(level, "input: %s", msg);
}

void daemon_input_options(const struct app *app, struct input_opts *o, const char **devices)
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
void daemon_open_input(struct app *app)
{
	const char *devices[CONFIG_LIST_MAX];
	struct input_opts o;
	int ret;

	daemon_input_options(app, &o, devices);
	if (app->input)
		ret = input_reconfigure(app->input, &o);
	else
		ret = input_open(&app->input, &o, &app->loop, on_contact, note_input, app);
	if (ret < 0)
		log_warn("input: %s; running without touch or mouse", strerror(-ret));
}

static void on_tick(struct loop_source *src, uint32_t events)
{
	struct app *app = src->ctx;
	uint64_t expirations = 0;

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return;
	advance(app, water_clock_steps(&app->steps_due, expirations,
					      app->cfg.water.steps_per_second, app->cfg.display.fps));
	count_frame(app);
	if (!should_run(app))
		daemon_arm_timer(app, false);
}

/* The user switches VTs: let go of the screen, or take it back and redraw it whole. */
static void on_vt_switch(struct app *app, bool back)
{
	if (!back) {
		app->vt_away = true;
		vt_set_away(true);
		input_grab(app->input, false);	/* the other VT's programs get the touches */
		daemon_arm_timer(app, false);
		vt_ack_release(&app->vt);
		log_debug("VT %d released", app->vt.num);
		return;
	}
	vt_ack_acquire(&app->vt);
	app->vt_away = false;
	vt_set_away(false);
	input_grab(app->input, true);
	log_debug("VT %d acquired", app->vt.num);
	screen_draw(app, true);
	daemon_wake(app);
}

static void on_signal(struct loop_source *src, uint32_t events)
{
	struct app *app = src->ctx;
	struct signalfd_siginfo si;

	(void)events;
	while (read(src->fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR1 || si.ssi_signo == SIGUSR2) {
			on_vt_switch(app, si.ssi_signo == SIGUSR2);
			continue;
		}
		if (si.ssi_signo == SIGHUP) {
			char msg[512];

			service_reload(app, msg, sizeof(msg));
			continue;
		}
		log_info("%s, exiting", strsignal(si.ssi_signo));
		app->quit = true;
	}
}

static void handled_signals(sigset_t *mask)
{
	sigemptyset(mask);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGHUP);
	sigaddset(mask, SIGUSR1);
	sigaddset(mask, SIGUSR2);
}

int daemon_block_signals(void)
{
	sigset_t mask;

	handled_signals(&mask);
	return sigprocmask(SIG_BLOCK, &mask, NULL) < 0 ? -errno : 0;
}

static int open_loop(struct app *app)
{
	sigset_t mask;
	int ret;

	handled_signals(&mask);
	ret = daemon_block_signals();
	if (ret < 0)
		return ret;
	app->signals = (struct loop_source){ signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC),
					     on_signal, app };
	app->ticks = (struct loop_source){ timerfd_create(CLOCK_MONOTONIC,
							  TFD_NONBLOCK | TFD_CLOEXEC),
					   on_tick, app };
	if (app->signals.fd < 0 || app->ticks.fd < 0)
		return -errno;
	ret = loop_init(&app->loop);
	if (ret == 0)
		ret = loop_add(&app->loop, &app->signals);
	if (ret == 0)
		ret = loop_add(&app->loop, &app->ticks);
	return ret;
}

int daemon_run(struct app *app)
{
	int ret = open_loop(app);

	if (ret < 0) {
		log_error("event loop: %s", strerror(-ret));
		return ret;
	}
	ret = service_open(app);
	if (ret < 0) {
		log_error("event loop: %s", strerror(-ret));
		return ret;
	}
	daemon_open_input(app);
	screen_redraw(app);
	notify_sendf("READY=1\nSTATUS=showing %dx%d on %s", app->fb.width, app->fb.height,
		     app->fb.path);
	daemon_wake(app);
	while (!app->quit) {
		ret = loop_dispatch(&app->loop, -1);
		if (ret < 0) {
			log_error("event loop: %s", strerror(-ret));
			break;
		}
	}
	notify_send("STOPPING=1");
	return ret;
}

void daemon_close(struct app *app)
{
	input_close(app->input);
	service_close(app);
	render_free(&app->render);
	water_free(&app->water);
	screen_release(app);
	loop_free(&app->loop);
	if (app->ticks.fd >= 0)
		close(app->ticks.fd);
	if (app->signals.fd >= 0)
		close(app->signals.fd);
}
