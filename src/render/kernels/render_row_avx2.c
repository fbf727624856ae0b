/* render_row_avx2.c - the row kernels with AVX2: 8 pixels a step, the cells' slopes picked by
 * permutes, the splash loaded one by one (cheaper than a gather on Zen 4), the shades too, or
 * worked out where the format's colour fields are whole bytes. Chosen at run time: the rest
 * stays x86-64. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#include "render_row.h"

#define AVX2 __attribute__((target("avx2")))

AVX2 static inline __m256i clamp8(__m256i v, __m256i lo, __m256i hi)
{
	return _mm256_min_epi32(_mm256_max_epi32(v, lo), hi);
}

AVX2 static inline __m256i widen(const int16_t *p)
{
	return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p));
}

/* 8 splash pixels at idx, loaded one by one: on AMD's Zen 4 a gather takes about 20 cycles,
 * eight loads with their indices taken from a register and their pixels put into one about 8.
 * A 16- or 24-bit pixel is the low part of the 4 bytes at it (the splash has the slack). */
AVX2 static inline __m256i load8(const uint8_t *in, __m256i idx, int bytes)
{
	__m128i i = _mm256_castsi256_si128(idx), j = _mm256_extracti128_si256(idx, 1), a, b;
	int32_t p;

#define AT(v, k) (memcpy(&p, in + (size_t)(uint32_t)_mm_extract_epi32(v, k) * bytes, 4), p)
	a = _mm_cvtsi32_si128(AT(i, 0));
	a = _mm_insert_epi32(a, AT(i, 1), 1);
	a = _mm_insert_epi32(a, AT(i, 2), 2);
	a = _mm_insert_epi32(a, AT(i, 3), 3);
	b = _mm_cvtsi32_si128(AT(j, 0));
	b = _mm_insert_epi32(b, AT(j, 1), 1);
	b = _mm_insert_epi32(b, AT(j, 2), 2);
	b = _mm_insert_epi32(b, AT(j, 3), 3);
#undef AT
	return bytes == 4 ? _mm256_set_m128i(b, a)
			  : _mm256_and_si256(_mm256_set_m128i(b, a),
					     _mm256_set1_epi32(bytes == 2 ? 0xffff : 0xffffff));
}

/* 8 pixels to out: 24-bit ones packed into 24 bytes, nothing written past them. */
AVX2 static inline void put(uint8_t *out, __m256i v, int bytes)
{
	if (bytes == 4) {
		_mm256_storeu_si256((__m256i *)out, v);
	} else if (bytes == 2) {
		_mm_storeu_si128((__m128i *)out, _mm_packus_epi32(_mm256_castsi256_si128(v),
								  _mm256_extracti128_si256(v, 1)));
	} else {
		const __m256i bytes3 = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1,
							-1, -1, -1, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12,
							13, 14, -1, -1, -1, -1);
		__m256i p = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, bytes3),
							_mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7));

		_mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(p));
		_mm_storel_epi64((__m128i *)(out + 16), _mm256_extracti128_si256(p, 1));
	}
}

AVX2 RENDER_INLINE void direct(uint8_t *restrict dst, const struct render *r, int y,
			       const int16_t *h, int stride, int x0, int x1, int bytes)
{
	const int width = r->width;
	const __m256i zero = _mm256_setzero_si256(), xmax = _mm256_set1_epi32(width - 1);
	const __m256i ymax = _mm256_set1_epi32(r->height - 1), vy = _mm256_set1_epi32(y);
	const __m256i vw = _mm256_set1_epi32(width), eight = _mm256_set1_epi32(8);
	const uint8_t *ahead = render_prefetch_row(r, y);
	__m256i vx = _mm256_add_epi32(_mm256_set1_epi32(x0),
				      _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
	int x = x0;

	for (; x + 8 <= x1; x += 8, vx = _mm256_add_epi32(vx, eight)) {
		__m256i dx = _mm256_sub_epi32(widen(h + x - 1), widen(h + x + 1));
		__m256i dy = _mm256_sub_epi32(widen(h + x - stride), widen(h + x + stride));
		__m256i sx = clamp8(_mm256_add_epi32(vx, dx), zero, xmax);
		__m256i sy = clamp8(_mm256_add_epi32(vy, dy), zero, ymax);
		__m256i idx = _mm256_add_epi32(_mm256_mullo_epi32(sy, vw), sx);

		__builtin_prefetch(ahead + (size_t)x * bytes);
		put(dst + (size_t)x * bytes, load8(r->splash, idx, bytes), bytes);
	}
	if (x < x1)
		render_kernels_scalar.direct[bytes - 2](dst, r, y, h, stride, x, x1);
}

/* One colour field f of render_row.c's lit(). */
AVX2 static inline __m256i lit_field(__m256i q, __m256i a, __m256i f)
{
	__m256i v = _mm256_and_si256(q, f);

	return _mm256_add_epi32(v, _mm256_min_epu32(_mm256_and_si256(a, f), _mm256_sub_epi32(f, v)));
}

/* render_row.c's lit(), 8 pixels at once, its fields written out (GCC kept a loop). */
AVX2 static inline __m256i lit(__m256i p, __m256i a, __m256i neg, const __m256i f[3],
			       __m256i colour)
{
	__m256i q = _mm256_xor_si256(p, neg);
	__m256i out = _mm256_or_si256(_mm256_or_si256(lit_field(q, a, f[0]), lit_field(q, a, f[1])),
				      lit_field(q, a, f[2]));

	return _mm256_or_si256(_mm256_xor_si256(out, neg), _mm256_andnot_si256(colour, p));
}

/* lit() where every colour field is a whole byte: the same sums, saturating byte by byte (the
 * bytes outside the fields add nothing, a has none there); neg darkens its lanes. */
AVX2 static inline __m256i lit_bytes(__m256i p, __m256i a, __m256i neg)
{
	return _mm256_blendv_epi8(_mm256_adds_epu8(p, a), _mm256_subs_epu8(p, a), neg);
}

/* render_grey() of 8 shades: cheaper worked out than loaded from the table one by one. */
AVX2 static inline __m256i grey8(__m256i s, __m256i k)
{
	__m256i t = _mm256_max_epi32(_mm256_sub_epi32(s, _mm256_set1_epi32(RENDER_GLINT_START)),
				     _mm256_setzero_si256());
	__m256i glint = _mm256_srli_epi32(_mm256_mullo_epi32(_mm256_mullo_epi32(t, t), k), 16);

	return _mm256_min_epi32(_mm256_add_epi32(_mm256_abs_epi32(s), glint),
				_mm256_set1_epi32(255));
}

/*
 * The slopes of 8 pixels from the cells on both sides of each, mixed by its weight, without a
 * gather: their cells lie within 8 of the first one's (a cell is at least a pixel wide), so
 * the 8 cells from there (and from the next one) are loaded and each pixel picks its own, d
 * cells on. (a (64 - w) + b w) >> 6 is a + ((b - a) w >> 6) exactly: 64 a has no fraction.
 */
AVX2 static inline __m256i mix(const int32_t *g, int c0, __m256i d, __m256i wb)
{
	__m256i a = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(g + c0)), d);
	__m256i b = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(g + c0 + 1)),
						d);

	return _mm256_add_epi32(a, _mm256_srai_epi32(_mm256_mullo_epi32(_mm256_sub_epi32(b, a), wb),
						     RENDER_WEIGHT_BITS));
}

AVX2 static inline __m256i move(__m256i g, __m256i mul, __m256i dmax, __m256i ndmax)
{
	__m256i m = _mm256_add_epi32(_mm256_mullo_epi32(g, mul), _mm256_set1_epi32(MOVE_HALF));

	return clamp8(_mm256_srai_epi32(m, MOVE_SHIFT), ndmax, dmax);
}

AVX2 RENDER_INLINE void slope(uint8_t *restrict dst, const struct render *r, int y,
			      const int16_t *h, int stride, int x0, int x1, int bytes,
			      enum render_shading shading)
{
	const int width = r->width;
	const __m256i zero = _mm256_setzero_si256(), xmax = _mm256_set1_epi32(width - 1);
	const __m256i ymax = _mm256_set1_epi32(r->height - 1), vy = _mm256_set1_epi32(y);
	const __m256i vw = _mm256_set1_epi32(width), eight = _mm256_set1_epi32(8);
	const __m256i mul = _mm256_set1_epi32(r->shift_mul);
	const __m256i dmax = _mm256_set1_epi32(r->shift_max);
	const __m256i ndmax = _mm256_set1_epi32(-r->shift_max);
	const __m256i lx = _mm256_set1_epi32(r->light_x), ly = _mm256_set1_epi32(r->light_y);
	const __m256i shade_half = _mm256_set1_epi32(1 << (r->shade_shift - 1));
	const __m128i shade_shift = _mm_cvtsi32_si128(r->shade_shift);
	const __m256i smax = _mm256_set1_epi32(RENDER_SHADES);
	const __m256i smin = _mm256_set1_epi32(-RENDER_SHADES);
	const __m256i f[3] = { _mm256_set1_epi32((int)r->field[0]),
			       _mm256_set1_epi32((int)r->field[1]),
			       _mm256_set1_epi32((int)r->field[2]) };
	const __m256i colour = _mm256_or_si256(_mm256_or_si256(f[0], f[1]), f[2]);
	const __m256i glint_k = _mm256_set1_epi32(r->glint_k);
	/* grey 1 in every field, where the fields are whole bytes */
	const __m256i grey = _mm256_set1_epi32((int)((r->field[0] & -r->field[0]) |
						     (r->field[1] & -r->field[1]) |
						     (r->field[2] & -r->field[2])));
	const uint32_t *shades = r->shade;	/* [RENDER_SHADES + s] */
	const uint8_t *ahead = render_prefetch_row(r, y);
	const uint8_t *near = render_prefetch_near(r, y);
	__m256i vx = _mm256_add_epi32(_mm256_set1_epi32(x0),
				      _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
	int x = x0;

	for (; x + 8 <= x1; x += 8, vx = _mm256_add_epi32(vx, eight)) {
		int c0 = r->ax.c[x];
		__m256i d = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(r->ax.c + x)),
					     _mm256_set1_epi32(c0));
		__m256i wb = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(r->ax.w + x)));
		__m256i gx = mix(r->slope_x, c0, d, wb), gy = mix(r->slope_y, c0, d, wb);
		__m256i sx = clamp8(_mm256_add_epi32(vx, move(gx, mul, dmax, ndmax)), zero, xmax);
		__m256i sy = clamp8(_mm256_add_epi32(vy, move(gy, mul, dmax, ndmax)), zero, ymax);
		__m256i v = load8(r->splash, _mm256_add_epi32(_mm256_mullo_epi32(sy, vw), sx), bytes);

		__builtin_prefetch(ahead + (size_t)x * bytes);
		__builtin_prefetch(near + (size_t)x * bytes);

		if (shading != SHADE_NONE) {
			__m256i sh = _mm256_add_epi32(_mm256_add_epi32(_mm256_mullo_epi32(gx, lx),
								       _mm256_mullo_epi32(gy, ly)),
						      shade_half);
			__m256i a, neg;

			sh = clamp8(_mm256_sra_epi32(sh, shade_shift), smin, smax);
			neg = _mm256_srai_epi32(sh, 31);
			if (shading == SHADE_BYTES) {
				a = _mm256_mullo_epi32(grey8(sh, glint_k), grey);
				v = lit_bytes(v, a, neg);
			} else {
				a = load8((const uint8_t *)shades, _mm256_add_epi32(sh, smax), 4);
				v = lit(v, a, _mm256_and_si256(neg, colour), f, colour);
			}
		}
		put(dst + (size_t)x * bytes, v, bytes);
	}
	if (x < x1)
		render_row_tail(bytes, shading)(dst, r, y, h, stride, x, x1);
}

/* |a - b| beyond t in each 16-bit lane, 0 within it: the larger less the smaller is the
 * distance exactly, read unsigned. */
AVX2 static inline __m256i beyond16(const int16_t *a, const int16_t *b, __m256i t)
{
	__m256i x = _mm256_loadu_si256((const __m256i *)a);
	__m256i y = _mm256_loadu_si256((const __m256i *)b);

	return _mm256_subs_epu16(_mm256_sub_epi16(_mm256_max_epi16(x, y), _mm256_min_epi16(x, y)),
				 t);
}

/* a - b outside [-lo, hi] in each 16-bit lane (all ones), 0 within it: the difference,
 * saturated, keeps its sign, and neither bound reaches the saturated ones. */
AVX2 static inline __m256i outside16(const int16_t *a, const int16_t *b, __m256i neg_lo,
				     __m256i hi)
{
	__m256i d = _mm256_subs_epi16(_mm256_loadu_si256((const __m256i *)a),
				      _mm256_loadu_si256((const __m256i *)b));

	return _mm256_or_si256(_mm256_cmpgt_epi16(d, hi), _mm256_cmpgt_epi16(neg_lo, d));
}

AVX2 static inline __m256i loud16(const int16_t *p, const int16_t *q, ptrdiff_t s,
				  __m256i neg_lo, __m256i hi, __m256i f, bool tint)
{
	__m256i m = _mm256_or_si256(outside16(p - 1, p + 1, neg_lo, hi),
				    outside16(p - s, p + s, neg_lo, hi));

	return tint ? _mm256_or_si256(m, beyond16(p, q, f)) : m;
}

/* The loud lanes of a and b (16 each) as 32 bits: packed to bytes, which interleaves the
 * halves of a and b, put back in order. */
AVX2 static inline uint32_t loud_bits(__m256i a, __m256i b)
{
	__m256i m = _mm256_permute4x64_epi64(_mm256_packs_epi16(a, b), _MM_SHUFFLE(3, 1, 2, 0));

	return ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(m, _mm256_setzero_si256()));
}

/* render_loud_fn 32 cells a step, then 16. */
AVX2 RENDER_INLINE uint64_t loud_cells(const int16_t *p, const int16_t *q, ptrdiff_t s, int n,
				       int lo, int hi, int f, bool tint)
{
	const __m256i lv = _mm256_set1_epi16((short)-lo), hv = _mm256_set1_epi16((short)hi);
	const __m256i fv = _mm256_set1_epi16((short)f);
	uint64_t bits = 0;
	int i = 0;

	for (; i + 32 <= n; i += 32)
		bits |= (uint64_t)loud_bits(loud16(p + i, q + i, s, lv, hv, fv, tint),
					    loud16(p + i + 16, q + i + 16, s, lv, hv, fv, tint))
			<< i;
	if (i + 16 <= n) {
		bits |= (uint64_t)(loud_bits(loud16(p + i, q + i, s, lv, hv, fv, tint),
					     _mm256_setzero_si256()) & 0xffff) << i;
		i += 16;
	}
	return bits | render_loud_scalar(p, q, s, i, n, lo, hi, tint ? f : -1);
}

AVX2 static uint64_t loud(const int16_t *p, const int16_t *q, ptrdiff_t s, int n, int lo, int hi,
			  int f)
{
	return f >= 0 ? loud_cells(p, q, s, n, lo, hi, f, true)
		      : loud_cells(p, q, s, n, lo, hi, 0, false);
}

#undef RENDER_SLOPES_WIDE
#define RENDER_SLOPES_WIDE 1
RENDER_ROW_KERNELS(render_kernels_avx2, AVX2)
#endif
