/* water_hooke_kernel.h - the hooke engine's row step on every vector path, and the pick of one. */
#ifndef FBRIPPLE_WATER_HOOKE_KERNEL_H
#define FBRIPPLE_WATER_HOOKE_KERNEL_H

#include <stdint.h>
#include <string.h>

#include "util/cpu.h"

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
 * for its instructions. The helpers are macros: a 32-byte vector passed to a function built
 * without AVX makes gcc note the ABI, even where the call is inlined.
 */
typedef int16_t hooke_v8hi __attribute__((vector_size(16)));
typedef int32_t hooke_v8si __attribute__((vector_size(32)));

#define HOOKE_LOAD(p) \
	({ \
		hooke_v8hi h_; \
		memcpy(&h_, (p), sizeof(h_)); \
		__builtin_convertvector(h_, hooke_v8si); \
	})
#define HOOKE_STORE(p, x) \
	do { \
		hooke_v8hi h_ = __builtin_convertvector((x), hooke_v8hi); \
		memcpy((p), &h_, sizeof(h_)); \
	} while (0)
/* saturate() of water_hooke_kernel.c, 8 lanes */
#define HOOKE_SATURATE(x) \
	({ \
		hooke_v8si x_ = (x), hi_ = x_ > INT16_MAX, lo_ = x_ < -INT16_MAX; \
		x_ = (hi_ & INT16_MAX) | (~hi_ & x_); \
		(lo_ & -INT16_MAX) | (~lo_ & x_); \
	})
/* decay() of water_hooke_kernel.c, 8 lanes */
#define HOOKE_DECAY(x, shift) \
	({ \
		hooke_v8si x_ = (x), d_ = x_ >> (shift), none_ = d_ == 0; \
		x_ - ((none_ & -(x_ > 0)) | (~none_ & d_)); \
	})

static inline __attribute__((always_inline)) uint8_t
hooke_row_vector(const int16_t *restrict up, const int16_t *restrict mid,
		 const int16_t *restrict down, int16_t *restrict out, int16_t *restrict v,
		 const int16_t *restrict keep, int width, int vshift, int hshift)
{
	hooke_v8si any = { 0 };
	int x = 0;

	for (; x + 8 <= width; x += 8) {
		hooke_v8si m = HOOKE_LOAD(mid + x);
		hooke_v8si edges = HOOKE_LOAD(up + x) + HOOKE_LOAD(down + x) +
				   HOOKE_LOAD(mid + x - 1) + HOOKE_LOAD(mid + x + 1);
		hooke_v8si corners = HOOKE_LOAD(up + x - 1) + HOOKE_LOAD(up + x + 1) +
				     HOOKE_LOAD(down + x - 1) + HOOKE_LOAD(down + x + 1);
		hooke_v8si t = (m << 4) - (edges + (edges << 1) + corners);
		hooke_v8si a = (t + ((t >> 31) & 15)) >> 4;	/* / 16 toward 0 */
		hooke_v8si vel = HOOKE_SATURATE(HOOKE_DECAY(HOOKE_LOAD(v + x) - a, vshift)) &
				 HOOKE_LOAD(keep + x);
		hooke_v8si h = HOOKE_SATURATE(HOOKE_DECAY(m + vel, hshift));

		HOOKE_STORE(v + x, vel);
		HOOKE_STORE(out + x, h);
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
