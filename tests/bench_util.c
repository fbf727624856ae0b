/* bench_util.c - what the benches share: clocks, medians, the busy scene's stones. */
#include <stdlib.h>

#include "bench_util.h"

double bench_seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bench_drop_busy(struct water *w, int width, int height, int size, int weight)
{
	for (int y = 40; y < height - 40; y += 90)
		for (int x = 40; x < width - 40; x += 90)
			water_drop(w, x, y, size, weight);
}
