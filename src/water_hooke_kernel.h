/* water_hooke_kernel.h - the hooke engine's row step on every vector path, and the pick of one. */
#ifndef FBRIPPLE_WATER_HOOKE_KERNEL_H
#define FBRIPPLE_WATER_HOOKE_KERNEL_H

#include <stdint.h>
#include <string.h>

#include "cpu.h"

/*
 * Row y of the next step: the force a = (16 h - (3 x edge neighbours + corners)) / 16 with
 * C's division, v -= a, v -= v >> vshift, next = h + v, next -= next >> hshift (with decay's
 * one change, water_hooke.c), velocity and height saturated to int16 and the velocity kept 0
 * where keep is 0 (a wall). Returns whether the row's heights or velocities came out non-zero.
 */
typedef uint8_t hooke_row_fn(const int16_t *restrict up, const int16_t *restrict mid,
			     const int16_t *restrict down, int16_t *restrict out,
			     int16_t *restrict v, const int16_t *restrict keep, int width,
			     int vshift, int hshift);

/* The kernel of a path: 0, or -ENOTSUP when this build or CPU cannot run it. */
int hooke_row_for(enum cpu_simd simd, hooke_row_fn **row);

/* The reference every path must equal exactly; the vector paths finish rows with it. */
hooke_row_fn hooke_row_scalar, hooke_row_sse2, hooke_row_avx2, hooke_row_neon;

/*
 * The vector paths' body, 8 cells at a time in int32 lanes with GCC's vector extensions
 * (gcc and clang), compiled once per path: each path's file calls it from a function built
 * for its instructions.
 */
#if defined(__GNUC__) && !defined(__clang__)
/* the helpers below are always inlined: no 32-byte vector ever crosses a call without AVX */
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
typedef int16_t hooke_v8hi __attribute__((vector_size(16)));
typedef int32_t hooke_v8si __attribute__((vector_size(32)));

static inline __attribute__((always_inline)) hooke_v8si hooke_load(const int16_t *p)
{
	hooke_v8hi h;

	memcpy(&h, p, sizeof(h));
	return __builtin_convertvector(h, hooke_v8si);
}

static inline __attribute__((always_inline)) void hooke_store(int16_t *p, hooke_v8si x)
{
	hooke_v8hi h = __builtin_convertvector(x, hooke_v8hi);

	memcpy(p, &h, sizeof(h));
}

static inline __attribute__((always_inline)) hooke_v8si hooke_saturate(hooke_v8si x)
{
	hooke_v8si hi = x > INT16_MAX, lo = x < -INT16_MAX;

	x = (hi & INT16_MAX) | (~hi & x);
	return (lo & -INT16_MAX) | (~lo & x);
}

static inline __attribute__((always_inline)) hooke_v8si hooke_decay(hooke_v8si x, int shift)
{
	hooke_v8si d = x >> shift, none = d == 0;

	return x - ((none & -(x > 0)) | (~none & d));
}

static inline __attribute__((always_inline)) uint8_t
hooke_row_vector(const int16_t *restrict up, const int16_t *restrict mid,
		 const int16_t *restrict down, int16_t *restrict out, int16_t *restrict v,
		 const int16_t *restrict keep, int width, int vshift, int hshift)
{
	hooke_v8si any = { 0 };
	int x = 0;

	for (; x + 8 <= width; x += 8) {
		hooke_v8si m = hooke_load(mid + x);
		hooke_v8si edges = hooke_load(up + x) + hooke_load(down + x) +
				   hooke_load(mid + x - 1) + hooke_load(mid + x + 1);
		hooke_v8si corners = hooke_load(up + x - 1) + hooke_load(up + x + 1) +
				     hooke_load(down + x - 1) + hooke_load(down + x + 1);
		hooke_v8si t = (m << 4) - (edges + (edges << 1) + corners);
		hooke_v8si a = (t + ((t >> 31) & 15)) >> 4;	/* / 16 toward 0 */
		hooke_v8si vel = hooke_saturate(hooke_decay(hooke_load(v + x) - a, vshift)) &
				 hooke_load(keep + x);
		hooke_v8si h = hooke_saturate(hooke_decay(m + vel, hshift));

		hooke_store(v + x, vel);
		hooke_store(out + x, h);
		any |= vel | h;
	}
	for (int i = 0; i < 8; i++)
		if (any[i])
			return (uint8_t)(1 | hooke_row_scalar(up + x, mid + x, down + x, out + x, v + x,
							      keep + x, width - x, vshift, hshift));
	return hooke_row_scalar(up + x, mid + x, down + x, out + x, v + x, keep + x, width - x,
				vshift, hshift);
}

#endif
