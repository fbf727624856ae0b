/* saver.c - when fbripple shows itself beside a kiosk application: hidden, shown, fading. */
#include "saver.h"

void saver_init(struct saver *s, enum saver_mode mode, enum saver_wake wake, int after_s,
		double fade_s, int64_t now_ms)
{
	*s = (struct saver){ .mode = mode, .last_ms = now_ms,
			     .state = mode == SAVER_IDLE ? SAVER_HIDDEN : SAVER_SHOWN };
	saver_configure(s, wake, after_s, fade_s);
}

void saver_configure(struct saver *s, enum saver_wake wake, int after_s, double fade_s)
{
	s->wake = wake;
	s->after_ms = after_s * 1000L;
	s->fade_ms = (int64_t)(fade_s * 1000 + 0.5);
}

static unsigned fade(struct saver *s, int64_t now_ms)
{
	s->state = SAVER_FADING;
	s->fade_end_ms = now_ms + s->fade_ms;
	return SAVER_FADE;
}

unsigned saver_input(struct saver *s, int64_t now_ms)
{
	if (s->mode != SAVER_IDLE)
		return 0;
	if (s->state == SAVER_HIDDEN)
		s->last_ms = now_ms;
	else if (s->state == SAVER_SHOWN && s->wake == SAVER_WAKE_TOUCH)
		return fade(s, now_ms);
	return 0;
}

unsigned saver_command(struct saver *s, bool show, int64_t now_ms)
{
	if (s->mode != SAVER_IDLE)
		return 0;
	if (show && s->state == SAVER_HIDDEN) {
		s->state = SAVER_SHOWN;
		return SAVER_SHOW;
	}
	if (show && s->state == SAVER_FADING) {
		s->state = SAVER_SHOWN;
		return SAVER_UNFADE;
	}
	if (!show && s->state == SAVER_SHOWN)
		return fade(s, now_ms);
	return 0;
}

unsigned saver_check(struct saver *s, int64_t now_ms)
{
	if (s->mode != SAVER_IDLE)
		return 0;
	if (s->state == SAVER_HIDDEN && s->after_ms && now_ms >= s->last_ms + s->after_ms) {
		s->state = SAVER_SHOWN;
		return SAVER_SHOW;
	}
	if (s->state == SAVER_FADING && now_ms >= s->fade_end_ms) {
		s->state = SAVER_HIDDEN;
		s->last_ms = now_ms;
		return SAVER_HIDE;
	}
	return 0;
}

void saver_failed(struct saver *s, int64_t now_ms)
{
	s->state = SAVER_HIDDEN;
	s->last_ms = now_ms;
}

int64_t saver_next(const struct saver *s)
{
	if (s->mode != SAVER_IDLE)
		return -1;
	if (s->state == SAVER_HIDDEN)
		return s->after_ms ? s->last_ms + s->after_ms : -1;
	return s->state == SAVER_FADING ? s->fade_end_ms : -1;
}

bool saver_ripples(const struct saver *s)
{
	return s->state == SAVER_SHOWN;
}

const char *saver_state_name(enum saver_state state)
{
	return state == SAVER_SHOWN ? "shown" : state == SAVER_FADING ? "fading" : "hidden";
}
