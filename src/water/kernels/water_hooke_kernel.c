/* water_hooke_kernel.c - the hooke row step in plain C (the reference), and which path runs. */
#include <errno.h>

#include "water_hooke_kernel.h"

/* heavy stones with little damping can outgrow int16: saturate, never wrap into noise that
 * would never calm (below that, exactly the seed's int arithmetic) */
static inline int saturate(int v)
{
	return v > INT16_MAX ? INT16_MAX : v < -INT16_MAX ? -INT16_MAX : v;
}

/*
 * The seed's x -= x >> shift, except that a positive x below 2^shift loses 1 as well. The
 * seed's shift takes at least 1 from every negative value but nothing from those positive
 * ones: that bias pumps its water up into a mound that never calms (one stone of -2048 in a
 * 480x270 field: heights 0..767, mean +460, after 3000 steps). Taking that 1 lets every wave
 * calm to exactly 0; from 2^shift up the decay is the seed's.
 */
static inline int decay(int x, int shift)
{
	int d = x >> shift;

	return x - (d ? d : x > 0);
}

uint8_t hooke_row_scalar(const int16_t *restrict up, const int16_t *restrict mid,
			 const int16_t *restrict down, int16_t *restrict out, int16_t *restrict v,
			 const int16_t *restrict keep, int width, int vshift, int hshift)
{
	int16_t any = 0;

	for (int x = 0; x < width; x++) {
		int edges = up[x] + down[x] + mid[x - 1] + mid[x + 1];
		int corners = up[x - 1] + up[x + 1] + down[x - 1] + down[x + 1];
		int a = (16 * mid[x] - (3 * edges + corners)) / 16;
		int vel = v[x] - a, h;

		/* on a wall the height is 0 already: a velocity of 0 keeps it there */
		vel = saturate(decay(vel, vshift)) & keep[x];
		h = saturate(decay(mid[x] + vel, hshift));
		v[x] = (int16_t)vel;
		out[x] = (int16_t)h;
		any |= (int16_t)(vel | h);
	}
	return any != 0;
}

#if defined(__aarch64__)
/* NEON, which every arm64 CPU has */
uint8_t hooke_row_neon(const int16_t *restrict up, const int16_t *restrict mid,
		       const int16_t *restrict down, int16_t *restrict out, int16_t *restrict v,
		       const int16_t *restrict keep, int width, int vshift, int hshift)
{
	return hooke_row_vector(up, mid, down, out, v, keep, width, vshift, hshift);
}
#endif

int hooke_row_for(enum cpu_simd simd, hooke_row_fn **row)
{
	static hooke_row_fn *const paths[CPU_SIMD_COUNT] = {
		[CPU_SCALAR] = hooke_row_scalar,
#if defined(__x86_64__)
		[CPU_SSE2] = hooke_row_sse2,
		[CPU_SSE41] = hooke_row_sse2,
		[CPU_AVX2] = hooke_row_avx2,
#elif defined(__aarch64__)
		[CPU_NEON] = hooke_row_neon,
#endif
	};

	if (!cpu_simd_supported(simd) || !paths[simd])
		return -ENOTSUP;
	*row = paths[simd];
	return 0;
}
