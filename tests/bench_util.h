/* bench_util.h - what the benches share: clocks, medians, the busy scene's stones. */
#ifndef FBRIPPLE_BENCH_UTIL_H
#define FBRIPPLE_BENCH_UTIL_H

#include <time.h>

#include "water/water.h"

/* clock_gettime(clock) in seconds. */
double bench_seconds(clockid_t clock);

/* The median of v[0..n), which it sorts. */
double bench_median(double *v, int n);

/* The busy scene: a stone every 90 px of a width x height screen, 40 px in from its edges. */
void bench_drop_busy(struct water *w, int width, int height, int size, int weight);

#endif
