/* render_turn.c - rotated frames: a band of logical rows turned onto physical columns in
 * vector tiles, or a row mirrored. */
#include <string.h>

#include "render_turn.h"

/* Rotated 90 or 270, frames draw logical rows until they make this many bytes of each
 * physical row, then turn them onto the screen: a band of physical columns. */
#define BAND_BYTES 512

int render_turn_rows(int bytes)
{
	return BAND_BYTES / bytes;
}

typedef uint32_t vec4x32 __attribute__((vector_size(16)));
typedef uint16_t vec8x16 __attribute__((vector_size(16)));
typedef uint64_t vec2x64 __attribute__((vector_size(16)));

/* 16 bytes at a time where the pixels divide them. */
void render_mirror(uint8_t *restrict dst, const uint8_t *restrict src, int n, int bytes)
{
	int i = 0;

	src += (size_t)n * bytes;
	if (bytes == 4) {
		for (; i + 4 <= n; i += 4) {
			vec4x32 v;

			memcpy(&v, src - 4 * (i + 4), 16);
			v = __builtin_shufflevector(v, v, 3, 2, 1, 0);
			memcpy(dst + 4 * i, &v, 16);
		}
	} else if (bytes == 2) {
		for (; i + 8 <= n; i += 8) {
			vec8x16 v;

			memcpy(&v, src - 2 * (i + 8), 16);
			v = __builtin_shufflevector(v, v, 7, 6, 5, 4, 3, 2, 1, 0);
			memcpy(dst + 2 * i, &v, 16);
		}
	}
	for (; i < n; i++)
		memcpy(dst + (size_t)i * bytes, src - (size_t)(i + 1) * bytes, bytes);
}

/* render_turn's pixels [x0, x1) of band rows [k0, k1), one by one. */
static void turn_pixels(uint8_t *dst, size_t dst_stride, const uint8_t *band, int width, int n,
			int first, bool cw, int x0, int x1, int k0, int k1, int bytes)
{
	for (int x = x0; x < x1; x++) {
		uint8_t *out = dst + (size_t)(cw ? x : width - 1 - x) * dst_stride;

		for (int k = k0; k < k1; k++)
			memcpy(out + (size_t)(first + (cw ? n - 1 - k : k)) * bytes,
			       band + ((size_t)k * width + x) * bytes, bytes);
	}
}

/* v[i] becomes lane i of each of v[0..3]. */
static inline void transpose_4x32(vec4x32 v[4])
{
	vec4x32 t0 = __builtin_shufflevector(v[0], v[1], 0, 4, 1, 5);
	vec4x32 t1 = __builtin_shufflevector(v[0], v[1], 2, 6, 3, 7);
	vec4x32 t2 = __builtin_shufflevector(v[2], v[3], 0, 4, 1, 5);
	vec4x32 t3 = __builtin_shufflevector(v[2], v[3], 2, 6, 3, 7);

	v[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
	v[1] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
	v[2] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
	v[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

/* v[i] becomes lane i of each of v[0..7]: interleaved by 16, 32 and 64 bits. */
static inline void transpose_8x16(vec8x16 v[8])
{
	vec4x32 s[8], u[8];
	vec2x64 a[8];

	for (int i = 0; i < 8; i += 2) {
		s[i] = (vec4x32)__builtin_shufflevector(v[i], v[i + 1], 0, 8, 1, 9, 2, 10, 3, 11);
		s[i + 1] = (vec4x32)__builtin_shufflevector(v[i], v[i + 1], 4, 12, 5, 13, 6, 14, 7,
							    15);
	}
	for (int i = 0; i < 8; i += 4) {
		u[i] = __builtin_shufflevector(s[i], s[i + 2], 0, 4, 1, 5);
		u[i + 1] = __builtin_shufflevector(s[i], s[i + 2], 2, 6, 3, 7);
		u[i + 2] = __builtin_shufflevector(s[i + 1], s[i + 3], 0, 4, 1, 5);
		u[i + 3] = __builtin_shufflevector(s[i + 1], s[i + 3], 2, 6, 3, 7);
	}
	for (int i = 0; i < 4; i++) {
		a[2 * i] = __builtin_shufflevector((vec2x64)u[i], (vec2x64)u[i + 4], 0, 2);
		a[2 * i + 1] = __builtin_shufflevector((vec2x64)u[i], (vec2x64)u[i + 4], 1, 3);
	}
	for (int i = 0; i < 8; i++)
		v[i] = (vec8x16)a[i];
}

/* Blocks of 4 x 4 pixels at 32 bpp, 8 x 8 at 16, turned in vectors; the edges one by one. */
void render_turn(enum render_path path, uint8_t *dst, size_t dst_stride, const uint8_t *band,
		 int width, int n, int first, bool cw, int x0, int x1, int bytes)
{
	int b = bytes == 4 ? 4 : bytes == 2 ? 8 : 1, nb = n - n % b, x = x0;

	(void)path;

	for (; b > 1 && x + b <= x1; x += b) {
		for (int k = 0; k < nb; k += b) {
			union { vec4x32 v32[8]; vec8x16 v16[8]; } v;
			size_t at = (size_t)(first + (cw ? n - b - k : k)) * bytes;

			/* the vector that lands on column c holds band row k + (c's lane) */
			for (int j = 0; j < b; j++)
				memcpy(&v.v16[j], band + ((size_t)(cw ? k + b - 1 - j : k + j) * width +
							  x) * bytes, 16);
			if (b == 4)
				transpose_4x32(v.v32);
			else
				transpose_8x16(v.v16);
			for (int i = 0; i < b; i++)
				memcpy(dst + (size_t)(cw ? x + i : width - 1 - x - i) * dst_stride + at,
				       &v.v16[i], 16);
		}
		turn_pixels(dst, dst_stride, band, width, n, first, cw, x, x + b, nb, n, bytes);
	}
	turn_pixels(dst, dst_stride, band, width, n, first, cw, x, x1, 0, n, bytes);
}
