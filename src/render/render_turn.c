/* render_turn.c - rotated frames: a band of logical rows turned onto physical columns in
 * vector tiles, or a row mirrored. */
#include <stddef.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "render_turn.h"

/* Rotated 90 or 270, frames draw logical rows until they make this many bytes of each
 * physical row, then turn them onto the screen: a band of physical columns. */
#define BAND_BYTES 512

int render_turn_rows(int bytes)
{
	return BAND_BYTES / bytes;
}

size_t render_turn_pitch(int width, int bytes)
{
	size_t lines = ((size_t)width * bytes + 63) / 64;

	return (lines | 1) * 64;
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
			vec4x32 v;

			/* the pixels of each pair swapped, then the pairs reversed: as an eight-lane
			 * shuffle GCC moved each pixel through a general register */
			memcpy(&v, src - 2 * (i + 8), 16);
			v = v << 16 | v >> 16;
			v = __builtin_shufflevector(v, v, 3, 2, 1, 0);
			memcpy(dst + 2 * i, &v, 16);
		}
	}
	for (; i < n; i++)
		memcpy(dst + (size_t)i * bytes, src - (size_t)(i + 1) * bytes, bytes);
}

/* What render_turn was asked: the band and where it lands. */
struct turn {
	uint8_t *dst;
	size_t dst_stride;
	const uint8_t *band;
	size_t pitch;
	int width, n, first, bytes;
	bool cw;
};

/* Where pixel x of band row k lands. */
static inline uint8_t *turn_at(const struct turn *t, int x, int k)
{
	return t->dst + (size_t)(t->cw ? x : t->width - 1 - x) * t->dst_stride +
	       (size_t)(t->first + (t->cw ? t->n - 1 - k : k)) * t->bytes;
}

/* Pixels [x0, x1) of band rows [k0, k1), one by one. */
static void turn_pixels(const struct turn *t, int x0, int x1, int k0, int k1)
{
	for (int x = x0; x < x1; x++)
		for (int k = k0; k < k1; k++)
			memcpy(turn_at(t, x, k), t->band + k * t->pitch + (size_t)x * t->bytes,
			       t->bytes);
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

#pragma GCC unroll 8
	for (int i = 0; i < 8; i += 2) {
		s[i] = (vec4x32)__builtin_shufflevector(v[i], v[i + 1], 0, 8, 1, 9, 2, 10, 3, 11);
		s[i + 1] = (vec4x32)__builtin_shufflevector(v[i], v[i + 1], 4, 12, 5, 13, 6, 14, 7,
							    15);
	}
#pragma GCC unroll 8
	for (int i = 0; i < 8; i += 4) {
		u[i] = __builtin_shufflevector(s[i], s[i + 2], 0, 4, 1, 5);
		u[i + 1] = __builtin_shufflevector(s[i], s[i + 2], 2, 6, 3, 7);
		u[i + 2] = __builtin_shufflevector(s[i + 1], s[i + 3], 0, 4, 1, 5);
		u[i + 3] = __builtin_shufflevector(s[i + 1], s[i + 3], 2, 6, 3, 7);
	}
#pragma GCC unroll 8
	for (int i = 0; i < 4; i++) {
		a[2 * i] = __builtin_shufflevector((vec2x64)u[i], (vec2x64)u[i + 4], 0, 2);
		a[2 * i + 1] = __builtin_shufflevector((vec2x64)u[i], (vec2x64)u[i + 4], 1, 3);
	}
#pragma GCC unroll 8
	for (int i = 0; i < 8; i++)
		v[i] = (vec8x16)a[i];
}

/*
 * A tile: 16 bytes of each of its band rows, the first at src and the next sstep bytes on,
 * turned so that each of its pixel columns becomes one vector of the rows' pixels, stored at
 * out, out + ostep, ...
 */
typedef void tile_fn(uint8_t *out, ptrdiff_t ostep, const uint8_t *src, ptrdiff_t sstep);

static inline void tile_4x32(uint8_t *out, ptrdiff_t ostep, const uint8_t *src, ptrdiff_t sstep)
{
	vec4x32 v[4];

#pragma GCC unroll 8
	for (int j = 0; j < 4; j++)
		memcpy(&v[j], src + j * sstep, 16);
	transpose_4x32(v);
#pragma GCC unroll 8
	for (int i = 0; i < 4; i++)
		memcpy(out + i * ostep, &v[i], 16);
}

static inline void tile_8x16(uint8_t *out, ptrdiff_t ostep, const uint8_t *src, ptrdiff_t sstep)
{
	vec8x16 v[8];

#pragma GCC unroll 8
	for (int j = 0; j < 8; j++)
		memcpy(&v[j], src + j * sstep, 16);
	transpose_8x16(v);
#pragma GCC unroll 8
	for (int i = 0; i < 8; i++)
		memcpy(out + i * ostep, &v[i], 16);
}

/*
 * The band in tiles of rows band rows by cols pixels (16 bytes of each row). A cache line of
 * each band row is turned whole, down the band, before the next, one column of tiles at a
 * time: each physical row is written from left to right, a line filled before the next (what
 * stores that bypass the cache need), and the band's lines stay in the L1 cache from one
 * column of tiles to the next (render_turn_pitch). Band row k + rows - 1 lands first (90) or
 * last (270) in each vector. Returns where the tiles stopped.
 */
static inline __attribute__((always_inline)) int turn_tiles(const struct turn *t, tile_fn *tile,
							    int rows, int cols, int x0, int x1)
{
	ptrdiff_t row = (ptrdiff_t)t->pitch;
	ptrdiff_t ostep = t->cw ? (ptrdiff_t)t->dst_stride : -(ptrdiff_t)t->dst_stride;
	int line = 64 / t->bytes, nb = t->n - t->n % rows, x = x0;

	while (x + cols <= x1) {
		int span = x1 - x >= line ? line : cols;

		for (int c = 0; c < span; c += cols)
			for (int k = 0; k < nb; k += rows) {
				int top = t->cw ? k + rows - 1 : k;
				const uint8_t *src =
					t->band + top * t->pitch + (size_t)(x + c) * t->bytes;

				tile(turn_at(t, x + c, top), ostep, src, t->cw ? -row : row);
			}
		turn_pixels(t, x, x + span, nb, t->n);
		x += span;
	}
	return x;
}

#if defined(__x86_64__)
#define AVX2 __attribute__((target("avx2")))

/* The two 16-byte rows at lo and hi side by side. */
AVX2 static inline __m256i load_pair(const uint8_t *lo, const uint8_t *hi)
{
	return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)lo)),
				       _mm_loadu_si128((const __m128i *)hi), 1);
}

/* v at out: past the cache (nt, out 32-byte aligned) or through it. */
AVX2 static inline void store_avx2(uint8_t *out, __m256i v, bool nt)
{
	if (nt)
		_mm256_stream_si256((__m256i *)out, v);
	else
		_mm256_storeu_si256((__m256i *)out, v);
}

/* 8 rows of 4 pixels at 32 bpp: rows j and j + 4 share a vector, each 128-bit lane turned
 * as 4 x 4, so that each column comes out as one vector of 8. */
AVX2 static inline __attribute__((always_inline)) void
tile_8x32_avx2(uint8_t *out, ptrdiff_t ostep, const uint8_t *src, ptrdiff_t sstep, bool nt)
{
	__m256i v[4], u[4];

#pragma GCC unroll 8
	for (int j = 0; j < 4; j++)
		v[j] = load_pair(src + j * sstep, src + (j + 4) * sstep);
	u[0] = _mm256_unpacklo_epi32(v[0], v[1]);
	u[1] = _mm256_unpackhi_epi32(v[0], v[1]);
	u[2] = _mm256_unpacklo_epi32(v[2], v[3]);
	u[3] = _mm256_unpackhi_epi32(v[2], v[3]);
	v[0] = _mm256_unpacklo_epi64(u[0], u[2]);
	v[1] = _mm256_unpackhi_epi64(u[0], u[2]);
	v[2] = _mm256_unpacklo_epi64(u[1], u[3]);
	v[3] = _mm256_unpackhi_epi64(u[1], u[3]);
#pragma GCC unroll 8
	for (int i = 0; i < 4; i++)
		store_avx2(out + i * ostep, v[i], nt);
}

/* 16 rows of 8 pixels at 16 bpp the same way: rows j and j + 8, each lane turned 8 x 8. */
AVX2 static inline __attribute__((always_inline)) void
tile_16x16_avx2(uint8_t *out, ptrdiff_t ostep, const uint8_t *src, ptrdiff_t sstep, bool nt)
{
	__m256i v[8], u[8];

#pragma GCC unroll 8
	for (int j = 0; j < 8; j++)
		v[j] = load_pair(src + j * sstep, src + (j + 8) * sstep);
#pragma GCC unroll 8
	for (int j = 0; j < 8; j += 2) {
		u[j] = _mm256_unpacklo_epi16(v[j], v[j + 1]);
		u[j + 1] = _mm256_unpackhi_epi16(v[j], v[j + 1]);
	}
#pragma GCC unroll 8
	for (int j = 0; j < 8; j += 4) {
		v[j] = _mm256_unpacklo_epi32(u[j], u[j + 2]);
		v[j + 1] = _mm256_unpackhi_epi32(u[j], u[j + 2]);
		v[j + 2] = _mm256_unpacklo_epi32(u[j + 1], u[j + 3]);
		v[j + 3] = _mm256_unpackhi_epi32(u[j + 1], u[j + 3]);
	}
#pragma GCC unroll 8
	for (int j = 0; j < 4; j++) {
		u[2 * j] = _mm256_unpacklo_epi64(v[j], v[j + 4]);
		u[2 * j + 1] = _mm256_unpackhi_epi64(v[j], v[j + 4]);
	}
#pragma GCC unroll 8
	for (int i = 0; i < 8; i++)
		store_avx2(out + i * ostep, u[i], nt);
}

AVX2 static void tile_8x32_stream(uint8_t *out, ptrdiff_t ostep, const uint8_t *src,
				  ptrdiff_t sstep)
{
	tile_8x32_avx2(out, ostep, src, sstep, true);
}

AVX2 static void tile_8x32_store(uint8_t *out, ptrdiff_t ostep, const uint8_t *src,
				 ptrdiff_t sstep)
{
	tile_8x32_avx2(out, ostep, src, sstep, false);
}

AVX2 static void tile_16x16_stream(uint8_t *out, ptrdiff_t ostep, const uint8_t *src,
				   ptrdiff_t sstep)
{
	tile_16x16_avx2(out, ostep, src, sstep, true);
}

AVX2 static void tile_16x16_store(uint8_t *out, ptrdiff_t ostep, const uint8_t *src,
				  ptrdiff_t sstep)
{
	tile_16x16_avx2(out, ostep, src, sstep, false);
}

/*
 * Whether every tile's stores land 32-byte aligned: the physical rows are a multiple of 32
 * bytes apart and the tiles' columns step by 32 bytes, so the first tile decides for all.
 */
static bool turn_aligned(const struct turn *t, int x0, int rows)
{
	return t->dst_stride % 32 == 0 && t->n >= rows &&
	       (uintptr_t)turn_at(t, x0, t->cw ? rows - 1 : 0) % 32 == 0;
}

/*
 * The turn's output is never read back: where it can, it streams past the cache, which
 * saves reading each framebuffer line before writing it (4K rotate 90, render alone: 32 bpp
 * 11.3 -> 9.5 ms, 16 bpp 7.4 -> 6.9), and fences the streamed stores before the band is done.
 */
AVX2 static int turn_avx2(const struct turn *t, int x0, int x1)
{
	int rows = t->bytes == 4 ? 8 : 16, x;

	if (t->bytes != 4 && t->bytes != 2)
		return x0;
	if (!turn_aligned(t, x0, rows))
		return t->bytes == 4 ? turn_tiles(t, tile_8x32_store, 8, 4, x0, x1)
				     : turn_tiles(t, tile_16x16_store, 16, 8, x0, x1);
	x = t->bytes == 4 ? turn_tiles(t, tile_8x32_stream, 8, 4, x0, x1)
			  : turn_tiles(t, tile_16x16_stream, 16, 8, x0, x1);
	_mm_sfence();
	return x;
}
#endif

void render_turn(enum render_path path, uint8_t *dst, size_t dst_stride, const uint8_t *band,
		 size_t pitch, int width, int n, int first, bool cw, int x0, int x1, int bytes)
{
	const struct turn t = { dst, dst_stride, band, pitch, width, n, first, bytes, cw };
	int x = x0;

#if defined(__x86_64__)
	if (path == RENDER_AVX2)
		x = turn_avx2(&t, x0, x1);
	else
#else
	(void)path;	/* elsewhere the generic tiles are the vectors there are (NEON on arm64) */
#endif
	if (bytes == 4)
		x = turn_tiles(&t, tile_4x32, 4, 4, x0, x1);
	else if (bytes == 2)
		x = turn_tiles(&t, tile_8x16, 8, 8, x0, x1);
	turn_pixels(&t, x, x1, 0, n);
}
