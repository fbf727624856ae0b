/* clock.h - milliseconds on the monotonic clock, for tests and tools that time a daemon. */
#ifndef FBRIPPLE_TESTS_CLOCK_H
#define FBRIPPLE_TESTS_CLOCK_H

#include <time.h>

static inline long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

#endif
