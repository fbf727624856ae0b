/* daemon.c - the event loop: frame ticks, signals, VT switches, start and end. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
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

/* steps simulation steps, then the frame that shows them; a frame alone where the screen owes
 * one (woken from blank) though nothing moved. */
static void advance(struct app *app, int steps)
{
	if (!steps && !screen_wants_frame(&app->screen))
		return;
	screen_step(&app->screen, steps, 1.0 / app->cfg.water.steps_per_second);
	test_frame_delay(app);
	screen_draw(&app->screen, false);
	touch_shown(&app->touch);
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
	screen_draw(&app->screen, true);
	for (long i = 0; i < app->opt.frames && !asked_to_stop(app); i++)
		advance(app, 1);
}

static void on_tick(struct loop_source *src, uint32_t events)
{
	struct app *app = src->ctx;

	(void)events;
	advance(app, pace_take_steps(&app->pace));
	pace_frame_done(&app->pace);
}

/* The user switches VTs: let go of the screen, or take it back and redraw it whole. */
static void on_vt_switch(struct app *app, bool back)
{
	if (!back) {
		touch_grab(&app->touch, false);
		pace_arm_frames(&app->pace, false);
		screen_away(&app->screen, true);
		return;
	}
	screen_away(&app->screen, false);
	touch_grab(&app->touch, true);
	pace_wake(&app->pace);
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
	if (app->signals.fd < 0)
		return -errno;
	ret = loop_init(&app->loop);
	if (ret == 0)
		ret = loop_add(&app->loop, &app->signals);
	if (ret == 0)
		ret = pace_open(&app->pace, &app->loop, on_tick, app);
	return ret;
}

int daemon_run(struct app *app)
{
	const struct display *d = &app->screen.display;
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
	if (screen_watch(&app->screen, &app->loop) < 0)
		log_warn("%s: cannot watch it for going away", d->path);
	screen_redraw(&app->screen);	/* the splash first: finding the input devices takes a while */
	touch_open(&app->touch, &app->opt, &app->loop);
	notify_sendf("READY=1\nSTATUS=showing %dx%d on %s", d->mode.width, d->mode.height,
		     d->path);
	pace_wake(&app->pace);
	while (!app->quit && !app->screen.gone) {
		ret = loop_dispatch(&app->loop, -1);
		if (ret < 0) {
			log_error("event loop: %s", strerror(-ret));
			break;
		}
	}
	if (app->screen.gone)
		ret = -ENODEV;
	notify_send("STOPPING=1");
	return ret;
}

void daemon_close(struct app *app)
{
	touch_close(&app->touch);
	service_close(app);
	pace_close(&app->pace);
	screen_release(&app->screen);
	loop_free(&app->loop);
	if (app->signals.fd >= 0)
		close(app->signals.fd);
}
