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

/* steps simulation steps, then the frame that shows them; a frame alone where the screen owes
 * one (woken from blank) though nothing moved. */
static void advance(struct app *app, int steps)
{
	if (!steps && !screen_wants_frame(&app->screen))
		return;
	screen_step(&app->screen, steps, 1.0 / app->cfg.water.steps_per_second);
	test_frame_delay(app);
	screen_draw(&app->screen, false);
	if (app->screen.mode_lost)
		adopt_mode(app);
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

/* Every 20 ms while another process holds the display we came back to (kmscon's way): the
 * loop runs on meanwhile. 0 stops it. */
static void retry_retake(struct app *app, bool on)
{
	struct itimerspec its = { 0 };

	if (on)
		its.it_interval = its.it_value = (struct timespec){ 0, 20000000 };
	app->retaking = on;
	if (app->retake.fd >= 0)
		timerfd_settime(app->retake.fd, 0, &its, NULL);
}

static void came_back(struct app *app)
{
	retry_retake(app, false);
	touch_grab(&app->touch, true);
	pace_wake(&app->pace);
}

static void on_retake(struct loop_source *src, uint32_t events)
{
	struct app *app = src->ctx;
	uint64_t expirations;

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return;
	if (app->screen.standby)	/* hidden meanwhile: the screen is the app's */
		retry_retake(app, false);
	else if (app->screen.away && screen_retake(&app->screen) == 0)
		came_back(app);
}

/* The user switches VTs: let go of the screen, or take it back and redraw it whole. */
static void on_vt_switch(struct app *app, bool back)
{
	/* hidden beside an app, a late signal; or no VT of ours at all (headless, or drawing on
	 * the VT in front): nobody will say we are back */
	if (app->screen.standby || !app->screen.vt.taken)
		return;
	if (!back) {
		retry_retake(app, false);
		touch_grab(&app->touch, false);
		pace_arm_frames(&app->pace, false);
		screen_leave(&app->screen);
		return;
	}
	if (screen_return(&app->screen) == 0) {
		came_back(app);
		return;
	}
	log_info("%s: held by another process; taking it back once it lets go",
		 app->screen.display.path);
	retry_retake(app, true);
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
	app->retake = (struct loop_source){ timerfd_create(CLOCK_MONOTONIC,
							   TFD_NONBLOCK | TFD_CLOEXEC),
					    on_retake, app };
	if (ret == 0)
		ret = app->retake.fd < 0 ? -errno : loop_add(&app->loop, &app->retake);
	if (ret == 0)
		ret = status_open(&app->status, &app->loop);
	if (ret == 0)
		ret = pace_open(&app->pace, &app->loop, on_tick, app);
	if (ret == 0)
		screen_attach(&app->screen, &app->loop);
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
	adopt_open(app);
	if (app->pace.saver.mode == SAVER_IDLE)
		screen_stand_by(&app->screen);	/* the app's screen until idle */
	else
		screen_redraw(&app->screen);	/* the splash first: finding the input devices
						 * takes a while */
	touch_open(&app->touch, &app->opt, &app->loop);
	status_tell(app, "READY=1");
	pace_wake(&app->pace);
	while (!app->quit && !app->screen.gone) {
		ret = loop_dispatch(&app->loop, -1);
		if (ret < 0) {
			log_error("event loop: %s", strerror(-ret));
			break;
		}
		status_tell(app, NULL);
	}
	if (app->screen.gone)
		ret = -ENODEV;
	notify_send("STOPPING=1");
	return ret;
}

void daemon_close(struct app *app)
{
	service_stand_down(app);
	touch_close(&app->touch);
	adopt_close(app);
	service_close(app);
	pace_close(&app->pace);
	screen_release(&app->screen);
	status_close(&app->status);
	loop_free(&app->loop);
	if (app->signals.fd >= 0)
		close(app->signals.fd);
	if (app->retake.fd >= 0)
		close(app->retake.fd);
}
