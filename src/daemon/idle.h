/* idle.h - what a screen nobody touches does: rain after a while, blank after a longer while. */
#ifndef FBRIPPLE_IDLE_H
#define FBRIPPLE_IDLE_H

#include <stdbool.h>
#include <stdint.h>

enum idle_event {
	IDLE_RAIN_START = 1 << 0,
	IDLE_RAIN_STOP = 1 << 1,
	IDLE_BLANK = 1 << 2,
	IDLE_UNBLANK = 1 << 3,	/* the input that did this only wakes the screen */
};

struct idle {
	int64_t rain_after_ms, blank_after_ms;	/* 0: never */
	int64_t last_ms;				/* the last input */
	bool raining, blanked;
};

/* Starts counting from now_ms, neither raining nor blank. */
void idle_init(struct idle *i, int rain_after_s, int blank_after_s, int64_t now_ms);

/* New delays (a reload); the state and the last input stay, but what a delay turned off (0)
 * brought ends: the idle_event bits that causes (IDLE_RAIN_STOP, IDLE_UNBLANK). */
unsigned idle_configure(struct idle *i, int rain_after_s, int blank_after_s);

/* An input at now_ms: the idle_event bits it causes (IDLE_RAIN_STOP, IDLE_UNBLANK). */
unsigned idle_activity(struct idle *i, int64_t now_ms);

/* The idle_event bits due at now_ms (IDLE_RAIN_START, IDLE_BLANK). */
unsigned idle_check(struct idle *i, int64_t now_ms);

/* When idle_check has something to do next, in the clock of now_ms; -1 for never. */
int64_t idle_next(const struct idle *i);

#endif
