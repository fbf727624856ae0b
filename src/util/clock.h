/* clock.h - the monotonic clock in milliseconds and microseconds: the one time that the loop's
 * timers, the control socket's clients and the input's contacts are compared in. */
#ifndef FBRIPPLE_CLOCK_H
#define FBRIPPLE_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline int64_t clock_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

#endif
