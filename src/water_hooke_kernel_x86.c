/* water_hooke_kernel_x86.c - the hooke row step built for SSE2 and AVX2 (chosen at run time). */
#if defined(__x86_64__)
#include "water_hooke_kernel.h"

/*
 * SSE2 has no sign extension of int16 to int32 nor int32 min and max: built for it, the body
 * measured slower than the scalar loop (1.13 against 0.65 ms a busy 1080p step at cell 4), so
 * the SSE2 path runs the scalar row.
 */
uint8_t hooke_row_sse2(const int16_t *restrict up, const int16_t *restrict mid,
		       const int16_t *restrict down, int16_t *restrict out, int16_t *restrict v,
		       const int16_t *restrict keep, int width, int vshift, int hshift)
{
	return hooke_row_scalar(up, mid, down, out, v, keep, width, vshift, hshift);
}

__attribute__((target("avx2"))) uint8_t
hooke_row_avx2(const int16_t *restrict up, const int16_t *restrict mid,
	       const int16_t *restrict down, int16_t *restrict out, int16_t *restrict v,
	       const int16_t *restrict keep, int width, int vshift, int hshift)
{
	return hooke_row_vector(up, mid, down, out, v, keep, width, vshift, hshift);
}
#endif
