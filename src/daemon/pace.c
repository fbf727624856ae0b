/* pace.c - when the daemon draws: the frame timer while something moves, and the idle timer
 * that starts rain and blanks the screen. */
#include <errno.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

int pace_arm_frames(struct app *app, bool on)
{
	long period = 1000000000L / app->cfg.display.fps;
	struct itimerspec its = { 0 };

	on = on && !app->vt_away;
	if (on == app->timer_armed)
		return 0;
	/* the first frame at once: a touch on calm water shows without waiting a period */
	if (on) {
		its.it_interval = (struct timespec){ period / 1000000000L, period % 1000000000L };
		its.it_value = (struct timespec){ 0, 1 };
	}
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

int64_t pace_now_ms(void)
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
void pace_wake(struct app *app)
{
	bool rain = (app->rain_on || app->idle.raining) && !app->idle.blanked;

	app->rain.rate = rain ? app->cfg.rain.rate : 0;
	app->rain.size = app->cfg.rain.size;
	app->rain.weight = app->cfg.rain.weight;
	pace_arm_frames(app, should_run(app));
}

static void count_frame(struct app *app)
{
	int64_t now = pace_now_ms(), span = now - app->fps_start_ms;

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

/* After a frame: counts it, and stops the timer once nothing is left to draw. */
void pace_frame_done(struct app *app)
{
	count_frame(app);
	if (!should_run(app))
		pace_arm_frames(app, false);
}

void pace_arm_idle(struct app *app)
{
	int64_t next = idle_next(&app->idle);
	struct itimerspec its = { 0 };

	if (app->idle_timer.fd < 0)
		return;
	if (next >= 0)
		its.it_value = (struct timespec){ next / 1000, next % 1000 * 1000000 + 1 };
	timerfd_settime(app->idle_timer.fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void apply_idle(struct app *app, unsigned events)
{
	if (events & (IDLE_BLANK | IDLE_UNBLANK))
		screen_blank(app, events & IDLE_BLANK);
	if (events & IDLE_RAIN_START)
		log_info("no input for rain.idle_after: rain starts");
	pace_wake(app);
	pace_arm_idle(app);
}

static void on_idle(struct loop_source *src, uint32_t events)
{
	struct app *app = src->ctx;
	uint64_t expirations;

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) == sizeof(expirations))
		apply_idle(app, idle_check(&app->idle, pace_now_ms()));
}

/* Input happened (a touch, a press, a control-socket drop): stops idle rain, wakes a blank
 * screen. True when it only woke the screen: a touch then drops no stone. */
bool pace_activity(struct app *app)
{
	unsigned events = idle_activity(&app->idle, pace_now_ms());

	apply_idle(app, events);
	return events & IDLE_UNBLANK;
}

/* The idle timer, counting from now. 0 or -errno. */
int pace_open_idle(struct app *app)
{
	const struct config *cfg = &app->cfg;
	int ret;

	idle_init(&app->idle, cfg->rain.idle_after, cfg->screensaver.blank_after, pace_now_ms());
	app->idle_timer = (struct loop_source){ timerfd_create(CLOCK_MONOTONIC,
							       TFD_NONBLOCK | TFD_CLOEXEC),
						on_idle, app };
	if (app->idle_timer.fd < 0)
		return -errno;
	ret = loop_add(&app->loop, &app->idle_timer);
	if (ret == 0)
		pace_arm_idle(app);
	return ret;
}

/* A blanked display is unblanked on the way out. */
void pace_close_idle(struct app *app)
{
	if (app->idle.blanked)
		fb_blank(&app->fb, false);
	if (app->idle_timer.fd >= 0)
		close(app->idle_timer.fd);
}
