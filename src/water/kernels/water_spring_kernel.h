/* water_spring_kernel.h - the spring engine's row loops on every vector path, and their pick. */
#ifndef FBRIPPLE_WATER_SPRING_KERNEL_H
#define FBRIPPLE_WATER_SPRING_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "util/cpu.h"

struct water;

/* The spring engine's heights are this many times its springs' displacement: a stone sets the
 * displacement, the picture refracts by the heights (water_spring.c says why). */
#define WATER_SPRING_GAIN 4

/* Displacement and speed are int32 in 1/2^SPRING_FRAC of the seeds' height unit; the
 * coefficients have SPRING_COEF bits and their products are taken in 64 bits. */
#define SPRING_FRAC 16
#define SPRING_COEF 24
/*
 * |state| stays below this: the int16 heights' range above cell 1, 2047 of the seeds' units at
 * cell 1 (a slope of that already moves every pixel off any screen). Within a step |x| stays
 * below 2 LIMIT (the passes only average it) and |v| below (1.5 + 2 passes * 4 spread * 2)
 * LIMIT, under 15 LIMIT < 2^31 with config.c's ranges (spread <= 0.1, passes <= 8).
 */
#define SPRING_LIMIT ((int32_t)INT16_MAX << (SPRING_FRAC - 4))

/* What settle keeps of a row, in the state's units. */
struct spring_settle {
	int shift;		/* a height is x * WATER_SPRING_GAIN >> shift */
	int32_t shows;		/* half a height: |x| or |v| from here on may show */
	int32_t still;		/* a cell with |x| and |v| under this is still; 0: none is */
	int32_t creep;		/* a cell at rest (v = 0) with |x| up to this is still */
};

enum { SPRING_SETTLE_ANY = 1, SPRING_SETTLE_SHOWS = 2 };

/* The seed's springs, in its order: a = -k x - m v; x += v; v += a (k x + m v in 64 bits,
 * divided by 2^SPRING_COEF toward 0). */
typedef void spring_push_fn(int32_t *restrict x, int32_t *restrict v, int width, int32_t k,
			    int32_t m);
/*
 * One pass along a row: each edge between neighbours moves spread * (difference) of
 * displacement into the speed and the displacement of the lower cell, and takes it from the
 * higher; an edge that touches a wall (keep 0) or the row's ends moves nothing.
 */
typedef void spring_spread_fn(int32_t *restrict x, int32_t *restrict v,
			      const int16_t *restrict keep, int width, int32_t spread);
/* The edges between row x, v and the row below xd (NULL: none) into down; up holds those
 * above. */
typedef void spring_spread_rows_fn(int32_t *restrict x, int32_t *restrict v,
				   const int32_t *restrict xd, const int32_t *restrict up,
				   int32_t *restrict down, const int16_t *restrict keep,
				   const int16_t *restrict keepd, int width, int32_t spread);
/*
 * A row kept 0 on walls and within LIMIT, its still cells set to 0, and published into out
 * rounded to the nearest height, half away from 0. Returns SPRING_SETTLE_ANY if the row stays
 * non-zero, SPRING_SETTLE_SHOWS if a displacement or speed in it reaches half a height.
 */
typedef int spring_settle_fn(int32_t *restrict x, int32_t *restrict v, int16_t *restrict out,
			     const int16_t *restrict keep, int width,
			     const struct spring_settle *at);

struct spring_kernels {
	spring_push_fn *push;
	spring_spread_fn *spread;
	spring_spread_rows_fn *spread_rows;
	spring_settle_fn *settle;
};

/* The kernels of a path: 0, or -ENOTSUP when this build or CPU cannot run it. */
int spring_kernels_for(enum cpu_simd simd, struct spring_kernels *k);

/* The height x shows (|x| <= LIMIT), rounded half away from 0 and saturated. */
static inline int16_t spring_shown(int32_t x, int shift)
{
	int64_t h = ((int64_t)x * WATER_SPRING_GAIN + (1 << (shift - 1)) + (x >> 31)) >> shift;

	return (int16_t)(h > INT16_MAX ? INT16_MAX : h < -INT16_MAX ? -INT16_MAX : h);
}

/* The springs' displacement and speed of a water the spring engine runs, for the tests: each
 * w->stride * (w->height + 2) cells like w->mem, from the first of the zero ring. */
void water_spring_state(const struct water *w, const int32_t **x, const int32_t **v);

/* Whether the vector settle kernels' compares take at's limits as the scalar code's unsigned
 * test does; else they leave the row to the scalar code. */
static inline int spring_settle_fits(const struct spring_settle *at)
{
	return at->creep >= 0 && at->creep < 1 << 30 && at->shows > 0 && at->shows <= 1 << 30 &&
	       at->still >= 0 && at->still <= 1 << 30 && at->shift >= 1 && at->shift <= 30;
}

/* The reference every path must equal exactly; the vector paths finish rows with it. */
spring_push_fn spring_push_scalar, spring_push_sse2, spring_push_avx2, spring_push_neon;
spring_spread_fn spring_spread_scalar, spring_spread_sse2, spring_spread_avx2,
	spring_spread_neon;
spring_spread_rows_fn spring_spread_rows_scalar, spring_spread_rows_sse2,
	spring_spread_rows_avx2, spring_spread_rows_neon;
spring_settle_fn spring_settle_scalar, spring_settle_sse2, spring_settle_avx2,
	spring_settle_neon;
/* spread's cells from the first on, with left the edge flux before it (the vector tails) */
void spring_spread_tail(int32_t *restrict x, int32_t *restrict v, const int16_t *restrict keep,
			int width, int32_t spread, int32_t left);

#endif
