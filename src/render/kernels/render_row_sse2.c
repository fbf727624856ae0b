/* render_row_sse2.c - the row kernels with SSE2, which every x86-64 has: the positions of the
 * pixels to fetch in vectors, the fetches one by one (SSE2 has no gather), the light in
 * vectors again. render_row_sse41.c builds them once more with SSE4.1 (chosen at run time). */
#if defined(__x86_64__)
#include <emmintrin.h>
#include <string.h>

#include "render_row.h"

#if defined(RENDER_ROW_SSE41)	/* render_row_sse41.c: these kernels with SSE4.1's instructions */
#include <smmintrin.h>
#define SSE __attribute__((target("sse4.1")))
#define RENDER_KERNELS_SSE render_kernels_sse41
#define max32 _mm_max_epi32
#define min32 _mm_min_epi32
#define minu32 _mm_min_epu32
#define mullo _mm_mullo_epi32
#else
#define SSE
#define RENDER_KERNELS_SSE render_kernels_sse2

/* SSE2 lacks the 32-bit min, max and low multiply of later sets: built from what it has. */
static inline __m128i max32(__m128i a, __m128i b)
{
	__m128i m = _mm_cmpgt_epi32(a, b);

	return _mm_or_si128(_mm_and_si128(m, a), _mm_andnot_si128(m, b));
}

static inline __m128i min32(__m128i a, __m128i b)
{
	__m128i m = _mm_cmpgt_epi32(a, b);

	return _mm_or_si128(_mm_and_si128(m, b), _mm_andnot_si128(m, a));
}

static inline __m128i minu32(__m128i a, __m128i b)
{
	const __m128i bias = _mm_set1_epi32((int)0x80000000u);
	__m128i m = _mm_cmpgt_epi32(_mm_xor_si128(a, bias), _mm_xor_si128(b, bias));

	return _mm_or_si128(_mm_and_si128(m, b), _mm_andnot_si128(m, a));
}

static inline __m128i mullo(__m128i a, __m128i b)
{
	__m128i even = _mm_mul_epu32(a, b);
	__m128i odd = _mm_mul_epu32(_mm_srli_epi64(a, 32), _mm_srli_epi64(b, 32));

	return _mm_unpacklo_epi32(_mm_shuffle_epi32(even, _MM_SHUFFLE(0, 0, 2, 0)),
				  _mm_shuffle_epi32(odd, _MM_SHUFFLE(0, 0, 2, 0)));
}
#endif

SSE static inline __m128i clamp4(__m128i v, __m128i lo, __m128i hi)
{
	return min32(max32(v, lo), hi);
}

/* n splash pixels at idx into out. */
SSE static inline void fetch(uint8_t *restrict out, const uint8_t *restrict in,
			     const int32_t *idx, int n, int bytes)
{
	for (int i = 0; i < n; i++)
		memcpy(out + i * bytes, in + (size_t)idx[i] * bytes, bytes);
}

/*
 * Cell 1 without light, 8 pixels a step in 16-bit lanes. Saturating sums give exactly the
 * clamped positions: a sum that saturates lies beyond the picture on the same side as the
 * true one, and clamps to the same edge (the picture is at most 32767 pixels a side).
 */
SSE RENDER_INLINE void direct(uint8_t *restrict dst, const struct render *r, int y,
			      const int16_t *h, int stride, int x0, int x1, int bytes)
{
	const int width = r->width;
	int x = x0;

	if (width <= INT16_MAX && r->height <= INT16_MAX) {
		const __m128i zero = _mm_setzero_si128(), xmax = _mm_set1_epi16((short)(width - 1));
		const __m128i ymax = _mm_set1_epi16((short)(r->height - 1));
		const __m128i vy = _mm_set1_epi16((short)y), vw = _mm_set1_epi16((short)width);
		const uint8_t *ahead = render_prefetch_row(r, y);
		__m128i vx = _mm_add_epi16(_mm_set1_epi16((short)x0),
					   _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7));

		for (; x + 8 <= x1; x += 8, vx = _mm_add_epi16(vx, _mm_set1_epi16(8))) {
			__m128i dx = _mm_subs_epi16(_mm_loadu_si128((const __m128i *)(h + x - 1)),
						    _mm_loadu_si128((const __m128i *)(h + x + 1)));
			__m128i dy = _mm_subs_epi16(
				_mm_loadu_si128((const __m128i *)(h + x - stride)),
				_mm_loadu_si128((const __m128i *)(h + x + stride)));
			__m128i sx = _mm_min_epi16(_mm_max_epi16(_mm_adds_epi16(vx, dx), zero), xmax);
			__m128i sy = _mm_min_epi16(_mm_max_epi16(_mm_adds_epi16(vy, dy), zero), ymax);
			__m128i lo = _mm_mullo_epi16(sy, vw), hi = _mm_mulhi_epu16(sy, vw);
			int32_t idx[8];

			_mm_storeu_si128((__m128i *)idx, _mm_add_epi32(_mm_unpacklo_epi16(lo, hi),
						_mm_unpacklo_epi16(sx, zero)));
			_mm_storeu_si128((__m128i *)(idx + 4), _mm_add_epi32(
						_mm_unpackhi_epi16(lo, hi), _mm_unpackhi_epi16(sx, zero)));
			__builtin_prefetch(ahead + (size_t)x * bytes);
			fetch(dst + (size_t)x * bytes, r->splash, idx, 8, bytes);
		}
	}
	if (x < x1)
		render_kernels_scalar.direct[bytes - 2](dst, r, y, h, stride, x, x1);
}

/* render_row.c's lit(), 4 pixels at once. */
SSE static inline __m128i lit(__m128i p, __m128i a, __m128i neg, const __m128i f[3],
			      __m128i colour)
{
	__m128i q = _mm_xor_si128(p, neg), out = _mm_setzero_si128();

	for (int i = 0; i < 3; i++) {
		__m128i v = _mm_and_si128(q, f[i]);

		out = _mm_or_si128(out, _mm_add_epi32(v, minu32(_mm_and_si128(a, f[i]),
								 _mm_sub_epi32(f[i], v))));
	}
	return _mm_or_si128(_mm_xor_si128(out, neg), _mm_andnot_si128(colour, p));
}

/* lit() where every colour field is a whole byte: the same sums, saturating byte by byte (the
 * bytes outside the fields add nothing, a has none there); neg darkens its lanes. */
SSE static inline __m128i lit_bytes(__m128i p, __m128i a, __m128i neg)
{
	return _mm_or_si128(_mm_and_si128(neg, _mm_subs_epu8(p, a)),
			    _mm_andnot_si128(neg, _mm_adds_epu8(p, a)));
}

/* The slopes of 4 pixels from cells c and c + 1 of each, mixed by its weight:
 * (a (64 - w) + b w) >> 6 is a + ((b - a) w >> 6) exactly, one multiply fewer. */
SSE static inline __m128i mix(const int32_t *g, const int32_t *c, __m128i wb)
{
	__m128i a = _mm_setr_epi32(g[c[0]], g[c[1]], g[c[2]], g[c[3]]);
	__m128i b = _mm_setr_epi32(g[c[0] + 1], g[c[1] + 1], g[c[2] + 1], g[c[3] + 1]);

	return _mm_add_epi32(a, _mm_srai_epi32(mullo(_mm_sub_epi32(b, a), wb), RENDER_WEIGHT_BITS));
}

SSE static inline __m128i move(__m128i g, __m128i mul, __m128i dmax, __m128i ndmax)
{
	__m128i m = _mm_add_epi32(mullo(g, mul), _mm_set1_epi32(MOVE_HALF));

	return clamp4(_mm_srai_epi32(m, MOVE_SHIFT), ndmax, dmax);
}

/* 4 pixels (or table entries) of bytes at idx, the indices taken from the register two at a
 * time: stored and read back one by one, they would stall store forwarding. */
SSE static inline __m128i load4(const uint8_t *in, __m128i idx, int bytes)
{
	uint64_t lo = (uint64_t)_mm_cvtsi128_si64(idx);
	uint64_t hi = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(idx, idx));
	uint32_t v[4] = { 0 };

	memcpy(&v[0], in + (size_t)(uint32_t)lo * bytes, bytes);
	memcpy(&v[1], in + (size_t)(lo >> 32) * bytes, bytes);
	memcpy(&v[2], in + (size_t)(uint32_t)hi * bytes, bytes);
	memcpy(&v[3], in + (size_t)(hi >> 32) * bytes, bytes);
	return _mm_unpacklo_epi64(_mm_unpacklo_epi32(_mm_cvtsi32_si128((int)v[0]),
						     _mm_cvtsi32_si128((int)v[1])),
				  _mm_unpacklo_epi32(_mm_cvtsi32_si128((int)v[2]),
						     _mm_cvtsi32_si128((int)v[3])));
}

SSE static inline void put4(uint8_t *out, __m128i v, int bytes)
{
	if (bytes == 4) {
		_mm_storeu_si128((__m128i *)out, v);
	} else if (bytes == 2) {	/* 16-bit values, sign-extended so that the signed pack keeps them */
		v = _mm_srai_epi32(_mm_slli_epi32(v, 16), 16);
		_mm_storel_epi64((__m128i *)out, _mm_packs_epi32(v, v));
	} else {	/* 24-bit: 3 bytes of each lane, taken from the register two lanes at a time */
		uint64_t lo = (uint64_t)_mm_cvtsi128_si64(v);
		uint64_t hi = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v));
		uint32_t p[4] = { (uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)hi,
				  (uint32_t)(hi >> 32) };

		for (int i = 0; i < 4; i++)
			memcpy(out + 3 * i, &p[i], 3);
	}
}

SSE RENDER_INLINE void slope(uint8_t *restrict dst, const struct render *r, int y,
			     const int16_t *h, int stride, int x0, int x1, int bytes,
			     enum render_shading shading)
{
	const int width = r->width;
	const __m128i zero = _mm_setzero_si128(), xmax = _mm_set1_epi32(width - 1);
	const __m128i ymax = _mm_set1_epi32(r->height - 1), vy = _mm_set1_epi32(y);
	const __m128i vw = _mm_set1_epi32(width);
	const __m128i mul = _mm_set1_epi32(r->shift_mul), dmax = _mm_set1_epi32(r->shift_max);
	const __m128i ndmax = _mm_set1_epi32(-r->shift_max);
	const __m128i lx = _mm_set1_epi32(r->light_x), ly = _mm_set1_epi32(r->light_y);
	const __m128i shade_half = _mm_set1_epi32(1 << (r->shade_shift - 1));
	const __m128i shade_shift = _mm_cvtsi32_si128(r->shade_shift);
	const __m128i smax = _mm_set1_epi32(RENDER_SHADES), smin = _mm_set1_epi32(-RENDER_SHADES);
	const __m128i f[3] = { _mm_set1_epi32((int)r->field[0]), _mm_set1_epi32((int)r->field[1]),
			       _mm_set1_epi32((int)r->field[2]) };
	const __m128i colour = _mm_or_si128(_mm_or_si128(f[0], f[1]), f[2]);
	const uint8_t *shades = (const uint8_t *)r->shade;	/* [RENDER_SHADES + s] */
	const uint8_t *ahead = render_prefetch_row(r, y), *near = render_prefetch_near(r, y);
	__m128i vx = _mm_add_epi32(_mm_set1_epi32(x0), _mm_setr_epi32(0, 1, 2, 3));
	int x = x0;

	for (; x + 4 <= x1; x += 4, vx = _mm_add_epi32(vx, _mm_set1_epi32(4))) {
		const int32_t *c = r->ax.c + x;
		const uint8_t *w = r->ax.w + x;
		__m128i wb = _mm_setr_epi32(w[0], w[1], w[2], w[3]);
		__m128i gx = mix(r->slope_x, c, wb), gy = mix(r->slope_y, c, wb);
		__m128i sx = clamp4(_mm_add_epi32(vx, move(gx, mul, dmax, ndmax)), zero, xmax);
		__m128i sy = clamp4(_mm_add_epi32(vy, move(gy, mul, dmax, ndmax)), zero, ymax);
		__m128i v = load4(r->splash, _mm_add_epi32(mullo(sy, vw), sx), bytes);

		__builtin_prefetch(ahead + (size_t)x * bytes);
		__builtin_prefetch(near + (size_t)x * bytes);

		if (shading != SHADE_NONE) {
			__m128i sh = _mm_add_epi32(_mm_add_epi32(mullo(gx, lx), mullo(gy, ly)),
						   shade_half);
			__m128i a, neg;

			sh = clamp4(_mm_sra_epi32(sh, shade_shift), smin, smax);
			a = load4(shades, _mm_add_epi32(sh, smax), 4);
			neg = _mm_srai_epi32(sh, 31);
			v = shading == SHADE_BYTES ? lit_bytes(v, a, neg)
						   : lit(v, a, _mm_and_si128(neg, colour), f, colour);
		}
		put4(dst + (size_t)x * bytes, v, bytes);
	}
	if (x < x1)
		render_row_tail(bytes, shading)(dst, r, y, h, stride, x, x1);
}

/* |a - b| beyond t in each 16-bit lane, 0 within it: the larger less the smaller is the
 * distance exactly, read unsigned. */
SSE static inline __m128i beyond8(const int16_t *a, const int16_t *b, __m128i t)
{
	__m128i x = _mm_loadu_si128((const __m128i *)a), y = _mm_loadu_si128((const __m128i *)b);

	return _mm_subs_epu16(_mm_sub_epi16(_mm_max_epi16(x, y), _mm_min_epi16(x, y)), t);
}

/* a - b outside [-lo, hi] in each 16-bit lane (all ones), 0 within it: the difference,
 * saturated, keeps its sign, and neither bound reaches the saturated ones. */
SSE static inline __m128i outside8(const int16_t *a, const int16_t *b, __m128i neg_lo, __m128i hi)
{
	__m128i d = _mm_subs_epi16(_mm_loadu_si128((const __m128i *)a),
				   _mm_loadu_si128((const __m128i *)b));

	return _mm_or_si128(_mm_cmpgt_epi16(d, hi), _mm_cmpgt_epi16(neg_lo, d));
}

SSE static inline __m128i loud8(const int16_t *p, const int16_t *q, ptrdiff_t s, __m128i neg_lo,
				__m128i hi, __m128i f, bool tint)
{
	__m128i m = _mm_or_si128(outside8(p - 1, p + 1, neg_lo, hi),
				 outside8(p - s, p + s, neg_lo, hi));

	return tint ? _mm_or_si128(m, beyond8(p, q, f)) : m;
}

/* render_loud_fn 16 cells a step, their lanes packed to bytes for one mask. */
SSE RENDER_INLINE uint64_t loud_cells(const int16_t *p, const int16_t *q, ptrdiff_t s, int n,
				      int lo, int hi, int f, bool tint)
{
	const __m128i lv = _mm_set1_epi16((short)-lo), hv = _mm_set1_epi16((short)hi);
	const __m128i fv = _mm_set1_epi16((short)f);
	uint64_t bits = 0;
	int i = 0;

	for (; i + 16 <= n; i += 16) {
		__m128i m = _mm_packs_epi16(loud8(p + i, q + i, s, lv, hv, fv, tint),
					     loud8(p + i + 8, q + i + 8, s, lv, hv, fv, tint));
		unsigned calm = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(m, _mm_setzero_si128()));

		bits |= (uint64_t)(~calm & 0xffff) << i;
	}
	return bits | render_loud_scalar(p, q, s, i, n, lo, hi, tint ? f : -1);
}

SSE static uint64_t loud(const int16_t *p, const int16_t *q, ptrdiff_t s, int n, int lo, int hi,
			 int f)
{
	return f >= 0 ? loud_cells(p, q, s, n, lo, hi, f, true)
		      : loud_cells(p, q, s, n, lo, hi, 0, false);
}

RENDER_ROW_KERNELS(RENDER_KERNELS_SSE, SSE)
#endif
