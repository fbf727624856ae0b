/* water_kernel.c - the classic row step in plain C (the reference), and which path runs. */
#include <errno.h>

#include "water_kernel.h"

/* heavy stones with little damping can outgrow int16: saturate, never wrap into noise that
 * would never calm (below that, exactly the seeds' arithmetic) */
static inline int16_t saturate(int v)
{
	return (int16_t)(v > INT16_MAX ? INT16_MAX : v < -INT16_MAX ? -INT16_MAX : v);
}

WATER_INLINE uint8_t shift_row(const int16_t *restrict up, const int16_t *restrict mid,
			       const int16_t *restrict down, int16_t *restrict out,
			       const int16_t *restrict keep, int width, int shift)
{
	int16_t any = 0;

	for (int x = 0; x < width; x++) {
		int16_t v = saturate(((up[x] + down[x] + mid[x - 1] + mid[x + 1]) >> 1) - out[x]);

		v = (int16_t)(v - (v >> shift));
		v = keep ? (int16_t)(v & keep[x]) : v;
		out[x] = v;
		any |= v;
	}
	return any != 0;
}

uint8_t water_row_shift_scalar(const int16_t *restrict up, const int16_t *restrict mid,
			       const int16_t *restrict down, int16_t *restrict out,
			       const int16_t *restrict keep, int width, int shift)
{
	return keep ? shift_row(up, mid, down, out, keep, width, shift)
		    : shift_row(up, mid, down, out, NULL, width, shift);
}

/* Seed 003's damping: the product a double and its store a cast that truncates toward zero,
 * as in the seed, so that the water calms. */
WATER_INLINE uint8_t fraction_row(const int16_t *restrict up, const int16_t *restrict mid,
				  const int16_t *restrict down, int16_t *restrict out,
				  const int16_t *restrict keep, int width, double damping)
{
	int16_t any = 0;

	for (int x = 0; x < width; x++) {
		int v = saturate(((up[x] + down[x] + mid[x - 1] + mid[x + 1]) >> 1) - out[x]);
		int16_t h = (int16_t)(int)(v * damping);

		h = keep ? (int16_t)(h & keep[x]) : h;
		out[x] = h;
		any |= h;
	}
	return any != 0;
}

uint8_t water_row_fraction_scalar(const int16_t *restrict up, const int16_t *restrict mid,
				  const int16_t *restrict down, int16_t *restrict out,
				  const int16_t *restrict keep, int width, double damping)
{
	return keep ? fraction_row(up, mid, down, out, keep, width, damping)
		    : fraction_row(up, mid, down, out, NULL, width, damping);
}

int water_kernels_for(enum cpu_simd simd, struct water_kernels *k)
{
	static const struct water_kernels paths[CPU_SIMD_COUNT] = {
		[CPU_SCALAR] = { water_row_shift_scalar, water_row_fraction_scalar },
#if defined(__x86_64__)
		[CPU_SSE2] = { water_row_shift_sse2, water_row_fraction_sse2 },
		[CPU_SSE41] = { water_row_shift_sse2, water_row_fraction_sse2 },
		[CPU_AVX2] = { water_row_shift_avx2, water_row_fraction_avx2 },
#elif defined(__aarch64__)
		[CPU_NEON] = { water_row_shift_neon, water_row_fraction_neon },
#endif
	};

	if (!cpu_simd_supported(simd) || !paths[simd].shift)
		return -ENOTSUP;
	*k = paths[simd];
	return 0;
}
