/* idle.c - what a screen nobody touches does: rain after a while, blank after a longer while. */
#include "idle.h"

void idle_init(struct idle *i, int rain_after_s, int blank_after_s, int64_t now_ms)
{
	*i = (struct idle){ .last_ms = now_ms };
	idle_configure(i, rain_after_s, blank_after_s);
}

unsigned idle_configure(struct idle *i, int rain_after_s, int blank_after_s)
{
	unsigned ev = 0;

	i->rain_after_ms = rain_after_s * 1000L;
	i->blank_after_ms = blank_after_s * 1000L;
	if (!i->rain_after_ms && i->raining) {
		i->raining = false;
		ev |= IDLE_RAIN_STOP;
	}
	if (!i->blank_after_ms && i->blanked) {
		i->blanked = false;
		ev |= IDLE_UNBLANK;
	}
	return ev;
}

unsigned idle_activity(struct idle *i, int64_t now_ms)
{
	unsigned ev = (i->raining ? IDLE_RAIN_STOP : 0) | (i->blanked ? IDLE_UNBLANK : 0);

	i->last_ms = now_ms;
	i->raining = i->blanked = false;
	return ev;
}

unsigned idle_check(struct idle *i, int64_t now_ms)
{
	unsigned ev = 0;

	if (i->rain_after_ms && !i->raining && !i->blanked &&
	    now_ms >= i->last_ms + i->rain_after_ms) {
		i->raining = true;
		ev |= IDLE_RAIN_START;
	}
	if (i->blank_after_ms && !i->blanked && now_ms >= i->last_ms + i->blank_after_ms) {
		i->blanked = true;
		ev |= IDLE_BLANK;
		if (i->raining) {
			i->raining = false;
			ev |= IDLE_RAIN_STOP;
		}
	}
	return ev;
}

int64_t idle_next(const struct idle *i)
{
	int64_t next = -1;

	if (i->blanked)
		return -1;
	if (i->rain_after_ms && !i->raining)
		next = i->last_ms + i->rain_after_ms;
	if (i->blank_after_ms) {
		int64_t blank = i->last_ms + i->blank_after_ms;

		if (next < 0 || blank < next)
			next = blank;
	}
	return next;
}
