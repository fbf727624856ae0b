/* water_kernel.h - the classic engine's row step on every vector path, and the pick of one.
 *
 * The water/kernels folder: each engine's row loop as a scalar reference and per vector path
 * (SSE2, AVX2, NEON), on plain arrays of cells. It includes util/ (the CPU's paths) only: the
 * engines above hand it rows, never a struct water to look into. */
#ifndef FBRIPPLE_WATER_KERNEL_H
#define FBRIPPLE_WATER_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "util/cpu.h"

/* A kernel body the exported kernel inlines twice, once with keep NULL: no test in its loop. */
#define WATER_INLINE static inline __attribute__((always_inline))

/*
 * Writes width cells of the next step over out (the step before): out[x] becomes
 * saturate(((up[x] + down[x] + mid[x - 1] + mid[x + 1]) >> 1) - out[x]), damped, and with
 * keep[x] (0 on a wall, -1 on water; keep NULL: no walls, one load and one and less a block).
 * Returns whether any cell it wrote is non-zero.
 * The shift kernel damps by next -= next >> shift; the fraction kernel by seed 003's
 * next = (int)(next * damping), a double product truncated toward 0.
 */
typedef uint8_t water_shift_fn(const int16_t *restrict up, const int16_t *restrict mid,
			       const int16_t *restrict down, int16_t *restrict out,
			       const int16_t *restrict keep, int width, int shift);
typedef uint8_t water_fraction_fn(const int16_t *restrict up, const int16_t *restrict mid,
				  const int16_t *restrict down, int16_t *restrict out,
				  const int16_t *restrict keep, int width, double damping);

struct water_kernels {
	water_shift_fn *shift;
	water_fraction_fn *fraction;
};

/* The kernels of a path: 0, or -ENOTSUP when this build or CPU cannot run it. */
int water_kernels_for(enum cpu_simd simd, struct water_kernels *k);

/* The reference every path must equal exactly; the vector paths finish rows with it. */
water_shift_fn water_row_shift_scalar, water_row_shift_sse2, water_row_shift_avx2,
	water_row_shift_neon;
water_fraction_fn water_row_fraction_scalar, water_row_fraction_sse2, water_row_fraction_avx2,
	water_row_fraction_neon;

#endif
