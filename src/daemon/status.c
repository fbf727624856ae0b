/* status.c - what `systemctl status` says: the daemon's state in a line, sent to the service
 * manager as STATUS= when it changes, at most every STATUS_EVERY_MS. */
#include <errno.h>
#include <stdio.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "notify.h"
#include "util/clock.h"

/* Within one notify datagram, "READY=1" before it. */
#define STATUS_MAX 900
/* A control client toggling pause and resume would otherwise have a datagram sent to the
 * service manager at every wake-up; the state it settles in goes out when this has passed. */
#define STATUS_EVERY_MS 250

enum status_state {
	STATE_SHOWING,
	STATE_FADING,
	STATE_PAUSED,
	STATE_BLANKED,
	STATE_AWAY,
	STATE_HELD,
	STATE_FOREIGN,
	STATE_HIDDEN,
};

static enum status_state state_of(const struct app *app)
{
	const struct screen *s = &app->screen;

	if (s->standby)
		return STATE_HIDDEN;
	if (s->away)
		return app->retaking ? STATE_HELD : STATE_AWAY;
	if (s->mode_foreign)
		return STATE_FOREIGN;
	if (app->pace.idle.blanked)
		return STATE_BLANKED;
	if (app->pace.paused)
		return STATE_PAUSED;
	return app->pace.saver.state == SAVER_FADING ? STATE_FADING : STATE_SHOWING;
}

static void describe(const struct app *app, enum status_state state, char *buf, size_t len)
{
	static const char *const says[] = {
		[STATE_SHOWING] = "showing",
		[STATE_FADING] = "fading back to the application,",
		[STATE_PAUSED] = "paused by the control socket,",
		[STATE_BLANKED] = "blanked after screensaver.blank_after,",
		[STATE_AWAY] = "paused while another VT is in front,",
		[STATE_HELD] = "waiting for another process to let go of",
		[STATE_FOREIGN] = ("drawing nothing until its VT is in front again: another "
				   "program's mode on"),
		[STATE_HIDDEN] = "hidden, beside the application on",
	};
	const struct display *d = &app->screen.display;
	const char *reload = app->service.reload_said;

	if (state == STATE_HELD || state == STATE_FOREIGN || state == STATE_HIDDEN)
		snprintf(buf, len, "%s %.200s%s%.600s", says[state], d->path, *reload ? "; " : "",
			 reload);
	else
		snprintf(buf, len, "%s %dx%d on %.200s%s%.600s", says[state], d->mode.width,
			 d->mode.height, d->path, *reload ? "; " : "", reload);
}

/* One line: a newline in a path or an error would start another KEY=VALUE of the datagram. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ')
			*s = ' ';
}

/* Wakes the loop when a held-back state may go out; status_tell sends it after the dispatch. */
static void on_timer(struct loop_source *src, uint32_t events)
{
	struct status *st = src->ctx;
	uint64_t expirations;

	(void)events;
	if (read(src->fd, &expirations, sizeof(expirations)) == sizeof(expirations))
		st->held = false;
}

static void hold_back(struct status *st, int64_t ms)
{
	struct itimerspec its = { .it_value = { ms / 1000, ms % 1000 * 1000000 } };

	if (!st->held && timerfd_settime(st->timer.fd, 0, &its, NULL) == 0)
		st->held = true;
}

int status_open(struct status *st, struct loop *loop)
{
	*st = (struct status){ .timer = { timerfd_create(CLOCK_MONOTONIC,
							  TFD_NONBLOCK | TFD_CLOEXEC),
					  on_timer, st },
				.wanted = notify_wanted() };
	if (st->timer.fd < 0)
		return -errno;
	return loop_add(loop, &st->timer);
}

void status_close(struct status *st)
{
	if (st->timer.fd >= 0)
		close(st->timer.fd);
	st->timer.fd = -1;
}

void status_tell(struct app *app, const char *also)
{
	struct status *st = &app->status;
	enum status_state state = state_of(app);
	char line[STATUS_MAX];
	int64_t now;

	if (!st->wanted)
		return;
	if (!also && st->told && st->state == (int)state &&
	    st->reloads == app->service.reloads_ended)
		return;
	now = clock_ms();
	if (!also && st->told && now < st->sent_ms + STATUS_EVERY_MS) {
		hold_back(st, st->sent_ms + STATUS_EVERY_MS - now);
		return;
	}
	st->told = true;
	st->held = false;
	st->sent_ms = now;
	st->state = (int)state;
	st->reloads = app->service.reloads_ended;
	describe(app, state, line, sizeof(line));
	one_line(line);
	notify_sendf("%s%sSTATUS=%s", also ? also : "", also ? "\n" : "", line);
}
