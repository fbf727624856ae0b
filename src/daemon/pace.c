/* pace.c - when the daemon draws: the frame timer while something moves, and the idle timer
 * that starts rain and blanks the screen. */
#include <errno.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "util/clock.h"

struct pace_settings pace_settings(const struct config *cfg)
{
	return (struct pace_settings){
		.fps = cfg->display.fps, .steps_per_second = cfg->water.steps_per_second,
		.rain = cfg->rain.enabled, .rain_rate = cfg->rain.rate,
		.rain_size = cfg->rain.size, .rain_weight = cfg->rain.weight,
		.rain_idle_after = cfg->rain.idle_after,
		.blank_after = cfg->screensaver.blank_after,
		.saver_mode = cfg->screensaver.mode, .saver_wake = cfg->screensaver.wake,
		.saver_after = cfg->screensaver.after, .saver_fade = cfg->screensaver.fade,
	};
}

int pace_arm_frames(struct pace *p, bool on)
{
	long period = 1000000000L / p->set.fps;
	struct itimerspec its = { 0 };

	on = on && !p->screen->away;
	if (on == p->armed)
		return 0;
	/* the first frame at once: a touch on calm water shows without waiting a period */
	if (on) {
		its.it_interval = (struct timespec){ period / 1000000000L, period % 1000000000L };
		its.it_value = (struct timespec){ 0, 1 };
	}
	p->steps_due = 0;
	if (timerfd_settime(p->ticks.fd, 0, &its, NULL) < 0) {
		log_error("frame timer: %s", strerror(errno));
		return -errno;
	}
	p->armed = on;
	return 0;
}

/* Whether the frame timer has work: a page owed, or the water moves or rain falls while
 * neither paused nor blanked, nor in a mode another program set that fbripple cannot draw. */
static bool should_run(const struct pace *p)
{
	if (p->idle.blanked || p->screen->mode_foreign)
		return false;
	return screen_wants_frame(p->screen) ||
	       (!p->paused && (!screen_calm(p->screen) || p->screen->rain.rate > 0));
}

/* Sets the rain from its switches, then runs the frame timer if there is something to draw. */
void pace_wake(struct pace *p)
{
	bool rain = (p->rain_on || p->idle.raining) && !p->idle.blanked;

	screen_set_rain(p->screen, rain ? p->set.rain_rate : 0, p->set.rain_size,
			p->set.rain_weight);
	pace_arm_frames(p, should_run(p));
}

/* The simulation steps a tick of the frame timer owes (0 when it did not fire). */
int pace_take_steps(struct pace *p)
{
	uint64_t expirations = 0;

	if (read(p->ticks.fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return 0;
	return water_clock_steps(&p->steps_due, expirations, p->set.steps_per_second, p->set.fps);
}

static void count_frame(struct pace *p)
{
	int64_t now = clock_ms(), span = now - p->fps_start_ms;

	p->fps_frames++;
	if (span > 2000) {		/* the timer slept: start a new window */
		p->fps_start_ms = now;
		p->fps_frames = 0;
	} else if (span >= 1000) {
		p->fps = p->fps_frames * 1000.0 / (double)span;
		p->fps_start_ms = now;
		p->fps_frames = 0;
	}
}

/* After a frame: counts it, and stops the timer once nothing is left to draw. */
void pace_frame_done(struct pace *p)
{
	count_frame(p);
	if (!should_run(p))
		pace_arm_frames(p, false);
}

/* One timer for both: the earlier of the idle spell's next step and the saver's. */
static void arm_idle(struct pace *p)
{
	int64_t next = idle_next(&p->idle), saver = saver_next(&p->saver);
	struct itimerspec its = { 0 };

	if (saver >= 0 && (next < 0 || saver < next))
		next = saver;
	if (p->idle_timer.fd < 0)
		return;
	if (next >= 0)
		its.it_value = (struct timespec){ next / 1000, next % 1000 * 1000000 + 1 };
	timerfd_settime(p->idle_timer.fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void apply_idle(struct pace *p, unsigned events)
{
	if (events & (IDLE_BLANK | IDLE_UNBLANK))
		screen_blank(p->screen, events & IDLE_BLANK);
	if (events & IDLE_RAIN_START)
		log_info("no input for rain.idle_after: rain starts");
	pace_wake(p);
	arm_idle(p);
}

/* A new idle spell from now: the display lit, no idle rain, both delays counted anew. */
static void new_idle_spell(struct pace *p)
{
	apply_idle(p, idle_activity(&p->idle, clock_ms()));
}

/* A hide starts a new idle spell, as the saver counts anew from it: a blank falling due while
 * hidden would leave the next show blanked, drawing nothing and never blanking again. So does
 * a show over such a blank (both due at once, after a suspend); any other show keeps counting
 * from the last input, as blank_after is documented to. */
static bool ends_idle_spell(const struct pace *p, unsigned saver_events)
{
	return (saver_events & SAVER_HIDE) || ((saver_events & SAVER_SHOW) && p->idle.blanked);
}

/* The saver's events to whoever shows and hides, then the timer for what comes next. */
static void tell_saver(struct pace *p, unsigned events)
{
	if (ends_idle_spell(p, events))
		new_idle_spell(p);	/* before the hide: lit when the app's frame goes back */
	if (events && p->on_saver)
		p->on_saver(p->saver_ctx, events);
	arm_idle(p);
}

static void on_idle(struct loop_source *src, uint32_t events)
{
	struct pace *p = src->ctx;
	uint64_t expirations;
	int64_t now = clock_ms();

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return;
	apply_idle(p, idle_check(&p->idle, now));
	tell_saver(p, saver_check(&p->saver, now));
}

void pace_on_saver(struct pace *p, pace_saver_fn *fn, void *ctx)
{
	p->on_saver = fn;
	p->saver_ctx = ctx;
}

/* "show" or "hide" from the control socket. */
void pace_saver_command(struct pace *p, bool show)
{
	tell_saver(p, saver_command(&p->saver, show, clock_ms()));
}

/* The screen could not be taken: hidden, and tried again after another idle spell. */
void pace_saver_failed(struct pace *p)
{
	saver_failed(&p->saver, clock_ms());
	new_idle_spell(p);
}

/* Input happened (a touch, a press, a control-socket drop): stops idle rain, wakes a blank
 * screen. True when it only woke the screen: a touch then drops no stone. */
bool pace_activity(struct pace *p)
{
	unsigned events = idle_activity(&p->idle, clock_ms());

	apply_idle(p, events);
	return events & IDLE_UNBLANK;
}

/* A touch or press: as pace_activity, and what it does to the saver (hidden: counts again;
 * shown with wake = touch: the fade). True when it drops no stone: it only woke a blank
 * screen, or fbripple is hidden or fading. */
bool pace_touched(struct pace *p)
{
	bool ripples = saver_ripples(&p->saver);
	unsigned events = saver_input(&p->saver, clock_ms());
	bool woke = pace_activity(p);

	tell_saver(p, events);
	return woke || !ripples;
}

/* The control socket's rain switch: off also stops the idle rain until the next idle spell. */
void pace_set_rain(struct pace *p, bool on)
{
	p->rain_on = on;
	p->idle.raining = p->idle.raining && on;
}

void pace_pause(struct pace *p, bool paused)
{
	p->paused = paused;
}

/* New settings (a reload): a new frame period takes effect at the next wake; new rain
 * settings turn the rain to rain.enabled, whatever the control socket said. */
void pace_configure(struct pace *p, const struct pace_settings *set)
{
	bool new_period = set->fps != p->set.fps;
	unsigned events;

	if (set->rain != p->set.rain || set->rain_rate != p->set.rain_rate ||
	    set->rain_size != p->set.rain_size || set->rain_weight != p->set.rain_weight)
		p->rain_on = set->rain;
	p->set = *set;
	events = idle_configure(&p->idle, set->rain_idle_after, set->blank_after);
	saver_configure(&p->saver, set->saver_wake, set->saver_after, set->saver_fade);
	if (new_period)
		pace_arm_frames(p, false);
	apply_idle(p, events);
}

static int open_timer(struct loop *loop, struct loop_source *src, loop_fn *fn, void *ctx)
{
	*src = (struct loop_source){ timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC),
				     fn, ctx };
	return src->fd < 0 ? -errno : loop_add(loop, src);
}

/* Nothing open, nothing to pace yet. */
void pace_init(struct pace *p, struct screen *screen)
{
	*p = (struct pace){ .screen = screen, .ticks.fd = -1, .idle_timer.fd = -1 };
}

/* Calm, not blanked, idle counting from now; the rain as configured. No timers yet: a
 * --frames run draws without them. */
void pace_start(struct pace *p, const struct pace_settings *set)
{
	p->set = *set;
	p->rain_on = set->rain;
	screen_set_rain(p->screen, set->rain ? set->rain_rate : 0, set->rain_size,
			set->rain_weight);
	idle_init(&p->idle, set->rain_idle_after, set->blank_after, clock_ms());
	saver_init(&p->saver, set->saver_mode, set->saver_wake, set->saver_after, set->saver_fade,
		   clock_ms());
}

/* The frame timer (on_tick runs the frames) and the idle timer on the loop. */
int pace_open(struct pace *p, struct loop *loop, loop_fn *on_tick, void *ctx)
{
	int ret = open_timer(loop, &p->ticks, on_tick, ctx);

	if (ret == 0)
		ret = open_timer(loop, &p->idle_timer, on_idle, p);
	if (ret == 0)
		arm_idle(p);
	return ret;
}

/* A blanked display is unblanked on the way out. */
void pace_close(struct pace *p)
{
	if (p->idle.blanked)
		display_blank(&p->screen->display, false);
	if (p->ticks.fd >= 0)
		close(p->ticks.fd);
	if (p->idle_timer.fd >= 0)
		close(p->idle_timer.fd);
	p->ticks.fd = p->idle_timer.fd = -1;
}
