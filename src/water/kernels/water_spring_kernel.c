/* water_spring_kernel.c - the spring row loops in plain C (the reference), and which path runs. */
#include <errno.h>

#include "water_spring_kernel.h"

#define LIMIT SPRING_LIMIT

/* c * d / 2^SPRING_COEF rounded toward 0, so that the water comes to rest */
static inline int32_t mul(int32_t c, int32_t d)
{
	int64_t p = (int64_t)c * d;

	return (int32_t)((p + ((p >> 63) & ((1 << SPRING_COEF) - 1))) >> SPRING_COEF);
}

void spring_push_scalar(int32_t *restrict x, int32_t *restrict v, int width, int32_t k,
			int32_t m)
{
	for (int i = 0; i < width; i++) {
		int64_t p = (int64_t)k * x[i] + (int64_t)m * v[i];
		int32_t a = -(int32_t)((p + ((p >> 63) & ((1 << SPRING_COEF) - 1))) >> SPRING_COEF);

		x[i] += v[i];
		v[i] += a;
	}
}

/* The seed's loops never let its first and last cells push: the screen's edges are free, and
 * so is a wall (its cells stay 0, nothing crosses an edge that touches one). */
void spring_spread_tail(int32_t *restrict x, int32_t *restrict v, const int16_t *restrict keep,
			int width, int32_t spread, int32_t left)
{
	for (int i = 0; i < width; i++) {
		int32_t right = i + 1 < width ? mul(spread, x[i + 1] - x[i]) & keep[i] & keep[i + 1]
					      : 0;
		int32_t d = right - left;

		v[i] += d;
		x[i] += d;
		left = right;
	}
}

void spring_spread_scalar(int32_t *restrict x, int32_t *restrict v,
			  const int16_t *restrict keep, int width, int32_t spread)
{
	spring_spread_tail(x, v, keep, width, spread, 0);
}

void spring_spread_rows_scalar(int32_t *restrict x, int32_t *restrict v,
			       const int32_t *restrict xd, const int32_t *restrict up,
			       int32_t *restrict down, const int16_t *restrict keep,
			       const int16_t *restrict keepd, int width, int32_t spread)
{
	for (int i = 0; i < width; i++) {
		int32_t d;

		down[i] = xd ? mul(spread, xd[i] - x[i]) & keep[i] & keepd[i] : 0;
		d = down[i] - up[i];
		v[i] += d;
		x[i] += d;
	}
}

/* -limit < v < limit, for limit > 0 */
static inline int32_t within(int32_t v, int32_t limit)
{
	return (uint32_t)(v + limit - 1) <= (uint32_t)(2 * limit - 2);
}

int spring_settle_scalar(int32_t *restrict x, int32_t *restrict v, int16_t *restrict out,
			 const int16_t *restrict keep, int width, const struct spring_settle *at)
{
	int32_t any = 0, shows = 0;

	for (int i = 0; i < width; i++) {
		int32_t xi = x[i] & keep[i], vi = v[i] & keep[i];

		xi = xi > LIMIT ? LIMIT : xi < -LIMIT ? -LIMIT : xi;
		vi = vi > LIMIT ? LIMIT : vi < -LIMIT ? -LIMIT : vi;
		if ((vi == 0 && within(xi, at->creep + 1)) ||
		    (at->still && within(xi, at->still) && within(vi, at->still)))
			xi = vi = 0;
		x[i] = xi;
		v[i] = vi;
		out[i] = spring_shown(xi, at->shift);
		any |= xi | vi;
		shows |= (within(xi, at->shows) & within(vi, at->shows)) ^ 1;
	}
	return (any != 0) | (shows ? SPRING_SETTLE_SHOWS : 0);
}

#define KERNELS(path) \
	{ spring_push_##path, spring_spread_##path, spring_spread_rows_##path, spring_settle_##path }

int spring_kernels_for(enum cpu_simd simd, struct spring_kernels *k)
{
	static const struct spring_kernels paths[CPU_SIMD_COUNT] = {
		[CPU_SCALAR] = KERNELS(scalar),
#if defined(__x86_64__)
		[CPU_SSE2] = KERNELS(sse2),
		[CPU_SSE41] = KERNELS(sse2),
		[CPU_AVX2] = KERNELS(avx2),
#elif defined(__aarch64__)
		[CPU_NEON] = KERNELS(neon),
#endif
	};

	if (!cpu_simd_supported(simd) || !paths[simd].push)
		return -ENOTSUP;
	*k = paths[simd];
	return 0;
}
