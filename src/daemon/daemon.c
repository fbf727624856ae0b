/* daemon.c - the event loop: frame ticks, signals, VT switches, start and end. */
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
 * show with it that slow frames do not starve input. Read once, at start. */
static long test_frame_ms(void)
{
	const char *env = getenv("FBRIPPLE_TEST_FRAME_MS");
	long ms = env ? strtol(env, NULL, 10) : 0;

	return ms > 0 && ms <= 10000 ? ms : 0;
}

static void test_frame_delay(const struct app *app)
{
	struct timespec ts = { app->test_frame_ms / 1000, app->test_frame_ms % 1000 * 1000000L };

	if (app->test_frame_ms)
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
		water_step_pool(&app->water, &app->pool);
	}
	test_frame_delay(app);
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
	app->test_frame_ms = test_frame_ms();
	screen_draw(app, true);
	for (long i = 0; i < app->opt.frames && !asked_to_stop(app); i++)
		advance(app, 1);
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
	pace_frame_done(app);
}

/* The user switches VTs: let go of the screen, or take it back and redraw it whole. */
static void on_vt_switch(struct app *app, bool back)
{
	if (!back) {
		app->vt_away = true;
		vt_set_away(true);
		input_grab(app->input, false);	/* the other VT's programs get the touches */
		pace_arm_frames(app, false);
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
	pace_wake(app);
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
			service_reload(app);
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

	app->test_frame_ms = test_frame_ms();
	if (ret < 0) {
		log_error("event loop: %s", strerror(-ret));
		return ret;
	}
	ret = service_open(app);
	if (ret < 0) {
		if (ret != -EADDRINUSE)		/* service_open said whose socket it is */
			log_error("event loop: %s", strerror(-ret));
		return ret;
	}
	screen_redraw(app);	/* the splash first: finding the input devices takes a while */
	touch_open(app);
	notify_sendf("READY=1\nSTATUS=showing %dx%d on %s", app->fb.width, app->fb.height,
		     app->fb.path);
	pace_wake(app);
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
	pool_free(&app->pool);
	walls_free(&app->walls);
	screen_release(app);
	loop_free(&app->loop);
	if (app->ticks.fd >= 0)
		close(app->ticks.fd);
	if (app->signals.fd >= 0)
		close(app->signals.fd);
}
