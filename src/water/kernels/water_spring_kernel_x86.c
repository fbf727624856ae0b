/* water_spring_kernel_x86.c - the spring row loops with SSE2 (any x86-64) and AVX2 (run time). */
#if defined(__x86_64__)
#include <immintrin.h>

#include "water_spring_kernel.h"

#define LIMIT SPRING_LIMIT
#define ROUND ((1 << SPRING_COEF) - 1)	/* added to a negative product: division toward 0 */
_Static_assert(WATER_SPRING_GAIN == 4, "the published height is x << 2");

/*
 * SSE2 has only the unsigned 32x32->64 product (pmuludq), which reads a negative d as
 * d + 2^32 and so adds c 2^32: taken off again, the product is exact for c >= 0, which the
 * engine's coefficients are (the kernels leave any other to the scalar code). The products of
 * lanes 0 and 2; chi holds c << 32 in each 64-bit half.
 */
static inline __m128i sse2_mul64(__m128i c, __m128i chi, __m128i d)
{
	__m128i neg = _mm_shuffle_epi32(_mm_srai_epi32(d, 31), _MM_SHUFFLE(2, 2, 0, 0));

	return _mm_sub_epi64(_mm_mul_epu32(c, d), _mm_and_si128(neg, chi));
}

/* p / 2^SPRING_COEF toward 0 for the 64-bit p of lanes 0, 2 (even) and 1, 3 (odd), as int32
 * in lane order: past the rounding a logical shift leaves the same low 32 bits */
static inline __m128i sse2_narrow(__m128i even, __m128i odd)
{
	const __m128i round = _mm_set1_epi64x(ROUND), low = _mm_set1_epi64x(0xffffffff);
	__m128i ne = _mm_shuffle_epi32(_mm_srai_epi32(even, 31), _MM_SHUFFLE(3, 3, 1, 1));
	__m128i no = _mm_shuffle_epi32(_mm_srai_epi32(odd, 31), _MM_SHUFFLE(3, 3, 1, 1));

	even = _mm_srli_epi64(_mm_add_epi64(even, _mm_and_si128(ne, round)), SPRING_COEF);
	odd = _mm_slli_epi64(_mm_add_epi64(odd, _mm_and_si128(no, round)), 32 - SPRING_COEF);
	return _mm_or_si128(_mm_and_si128(even, low), _mm_andnot_si128(low, odd));
}

/* c * d / 2^SPRING_COEF toward 0 for 4 lanes, c >= 0 */
static inline __m128i sse2_mul(__m128i c, __m128i chi, __m128i d)
{
	return sse2_narrow(sse2_mul64(c, chi, d), sse2_mul64(c, chi, _mm_srli_epi64(d, 32)));
}

static inline __m128i sse2_chi(int32_t c)
{
	return _mm_set1_epi64x((int64_t)((uint64_t)(uint32_t)c << 32));
}

/* 4 keep cells, widened */
static inline __m128i sse2_keep(const int16_t *keep)
{
	__m128i k = _mm_loadl_epi64((const __m128i *)keep);

	return _mm_srai_epi32(_mm_unpacklo_epi16(k, k), 16);
}

void spring_push_sse2(int32_t *restrict x, int32_t *restrict v, int width, int32_t k, int32_t m)
{
	__m128i kk = _mm_set1_epi32(k), mm = _mm_set1_epi32(m), khi = sse2_chi(k), mhi = sse2_chi(m);
	int i = 0;

	for (; k >= 0 && m >= 0 && i + 4 <= width; i += 4) {
		__m128i xv = _mm_loadu_si128((const __m128i *)(x + i));
		__m128i vv = _mm_loadu_si128((const __m128i *)(v + i));
		__m128i xo = _mm_srli_epi64(xv, 32), vo = _mm_srli_epi64(vv, 32);
		__m128i pe = _mm_add_epi64(sse2_mul64(kk, khi, xv), sse2_mul64(mm, mhi, vv));
		__m128i po = _mm_add_epi64(sse2_mul64(kk, khi, xo), sse2_mul64(mm, mhi, vo));

		_mm_storeu_si128((__m128i *)(x + i), _mm_add_epi32(xv, vv));
		_mm_storeu_si128((__m128i *)(v + i), _mm_sub_epi32(vv, sse2_narrow(pe, po)));
	}
	spring_push_scalar(x + i, v + i, width - i, k, m);
}

/*
 * Each edge's flux (right) comes from the displacement before the row's sweep: the sweep only
 * changes x[i] after reading it for the edges at i - 1 and i. So 4 fluxes at a time from the
 * untouched x, the edge before a block carried over from the last.
 */
void spring_spread_sse2(int32_t *restrict x, int32_t *restrict v, const int16_t *restrict keep,
			int width, int32_t spread)
{
	__m128i c = _mm_set1_epi32(spread), chi = sse2_chi(spread), carry = _mm_setzero_si128();
	int i = 0;

	for (; spread >= 0 && i + 5 <= width; i += 4) {
		__m128i xa = _mm_loadu_si128((const __m128i *)(x + i));
		__m128i xb = _mm_loadu_si128((const __m128i *)(x + i + 1));
		__m128i r = _mm_and_si128(sse2_mul(c, chi, _mm_sub_epi32(xb, xa)),
					  _mm_and_si128(sse2_keep(keep + i), sse2_keep(keep + i + 1)));
		__m128i d = _mm_sub_epi32(r, _mm_or_si128(_mm_slli_si128(r, 4), carry));

		carry = _mm_srli_si128(r, 12);
		_mm_storeu_si128((__m128i *)(x + i), _mm_add_epi32(xa, d));
		_mm_storeu_si128((__m128i *)(v + i),
				 _mm_add_epi32(_mm_loadu_si128((const __m128i *)(v + i)), d));
	}
	spring_spread_tail(x + i, v + i, keep + i, width - i, spread, _mm_cvtsi128_si32(carry));
}

void spring_spread_rows_sse2(int32_t *restrict x, int32_t *restrict v,
			     const int32_t *restrict xd, const int32_t *restrict up,
			     int32_t *restrict down, const int16_t *restrict keep,
			     const int16_t *restrict keepd, int width, int32_t spread)
{
	__m128i c = _mm_set1_epi32(spread), chi = sse2_chi(spread);
	int i = 0;

	for (; (!xd || spread >= 0) && i + 4 <= width; i += 4) {
		__m128i xv = _mm_loadu_si128((const __m128i *)(x + i)), dn = _mm_setzero_si128();
		__m128i d;

		if (xd)
			dn = _mm_and_si128(sse2_mul(c, chi, _mm_sub_epi32(
						_mm_loadu_si128((const __m128i *)(xd + i)), xv)),
					   _mm_and_si128(sse2_keep(keep + i), sse2_keep(keepd + i)));
		_mm_storeu_si128((__m128i *)(down + i), dn);
		d = _mm_sub_epi32(dn, _mm_loadu_si128((const __m128i *)(up + i)));
		_mm_storeu_si128((__m128i *)(x + i), _mm_add_epi32(xv, d));
		_mm_storeu_si128((__m128i *)(v + i),
				 _mm_add_epi32(_mm_loadu_si128((const __m128i *)(v + i)), d));
	}
	spring_spread_rows_scalar(x + i, v + i, xd ? xd + i : NULL, up + i, down + i, keep + i,
				  keepd ? keepd + i : NULL, width - i, spread);
}

/* v held within -limit..limit */
static inline __m128i sse2_clamp(__m128i v, __m128i limit, __m128i nlimit)
{
	__m128i hi = _mm_cmpgt_epi32(v, limit), lo = _mm_cmpgt_epi32(nlimit, v);

	v = _mm_or_si128(_mm_and_si128(hi, limit), _mm_andnot_si128(hi, v));
	return _mm_or_si128(_mm_and_si128(lo, nlimit), _mm_andnot_si128(lo, v));
}

/* -limit < v < limit */
static inline __m128i sse2_within(__m128i v, int32_t limit)
{
	return _mm_and_si128(_mm_cmpgt_epi32(v, _mm_set1_epi32(-limit)),
			     _mm_cmpgt_epi32(_mm_set1_epi32(limit), v));
}

int spring_settle_sse2(int32_t *restrict x, int32_t *restrict v, int16_t *restrict out,
		       const int16_t *restrict keep, int width, const struct spring_settle *at)
{
	const __m128i limit = _mm_set1_epi32(LIMIT), nlimit = _mm_set1_epi32(-LIMIT);
	const __m128i zero = _mm_setzero_si128(), half = _mm_set1_epi32(1 << (at->shift - 1));
	__m128i count = _mm_cvtsi32_si128(at->shift), any = zero, hidden = _mm_set1_epi32(-1);
	int i = 0;

	for (; spring_settle_fits(at) && i + 4 <= width; i += 4) {
		__m128i k = sse2_keep(keep + i);
		__m128i xi = sse2_clamp(_mm_and_si128(_mm_loadu_si128((const __m128i *)(x + i)), k),
					limit, nlimit);
		__m128i vi = sse2_clamp(_mm_and_si128(_mm_loadu_si128((const __m128i *)(v + i)), k),
					limit, nlimit);
		__m128i rest = _mm_and_si128(_mm_cmpeq_epi32(vi, zero), sse2_within(xi, at->creep + 1));
		__m128i h;

		if (at->still)
			rest = _mm_or_si128(rest, _mm_and_si128(sse2_within(xi, at->still),
								sse2_within(vi, at->still)));
		xi = _mm_andnot_si128(rest, xi);
		vi = _mm_andnot_si128(rest, vi);
		_mm_storeu_si128((__m128i *)(x + i), xi);
		_mm_storeu_si128((__m128i *)(v + i), vi);
		h = _mm_add_epi32(_mm_add_epi32(_mm_slli_epi32(xi, 2), half), _mm_srai_epi32(xi, 31));
		h = _mm_packs_epi32(_mm_sra_epi32(h, count), zero);
		_mm_storel_epi64((__m128i *)(out + i), _mm_max_epi16(h, _mm_set1_epi16(-INT16_MAX)));
		any = _mm_or_si128(any, _mm_or_si128(xi, vi));
		hidden = _mm_and_si128(hidden, _mm_and_si128(sse2_within(xi, at->shows),
							     sse2_within(vi, at->shows)));
	}
	return (_mm_movemask_epi8(_mm_cmpeq_epi32(any, zero)) != 0xffff) |
	       (_mm_movemask_epi8(hidden) != 0xffff ? SPRING_SETTLE_SHOWS : 0) |
	       spring_settle_scalar(x + i, v + i, out + i, keep + i, width - i, at);
}

/* The same 8 lanes at a time, with the signed product (vpmuldq) AVX2 has. */
#define AVX2 __attribute__((target("avx2")))

AVX2 static inline __m256i avx2_narrow(__m256i even, __m256i odd)
{
	const __m256i round = _mm256_set1_epi64x(ROUND), zero = _mm256_setzero_si256();

	even = _mm256_add_epi64(even, _mm256_and_si256(_mm256_cmpgt_epi64(zero, even), round));
	odd = _mm256_add_epi64(odd, _mm256_and_si256(_mm256_cmpgt_epi64(zero, odd), round));
	return _mm256_blend_epi32(_mm256_srli_epi64(even, SPRING_COEF),
				  _mm256_slli_epi64(odd, 32 - SPRING_COEF), 0xaa);
}

AVX2 static inline __m256i avx2_mul(__m256i c, __m256i d)
{
	return avx2_narrow(_mm256_mul_epi32(c, d), _mm256_mul_epi32(c, _mm256_srli_epi64(d, 32)));
}

AVX2 static inline __m256i avx2_keep(const int16_t *keep)
{
	return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)keep));
}

AVX2 void spring_push_avx2(int32_t *restrict x, int32_t *restrict v, int width, int32_t k,
			   int32_t m)
{
	__m256i kk = _mm256_set1_epi32(k), mm = _mm256_set1_epi32(m);
	int i = 0;

	for (; i + 8 <= width; i += 8) {
		__m256i xv = _mm256_loadu_si256((const __m256i *)(x + i));
		__m256i vv = _mm256_loadu_si256((const __m256i *)(v + i));
		__m256i pe = _mm256_add_epi64(_mm256_mul_epi32(kk, xv), _mm256_mul_epi32(mm, vv));
		__m256i po = _mm256_add_epi64(_mm256_mul_epi32(kk, _mm256_srli_epi64(xv, 32)),
					      _mm256_mul_epi32(mm, _mm256_srli_epi64(vv, 32)));

		_mm256_storeu_si256((__m256i *)(x + i), _mm256_add_epi32(xv, vv));
		_mm256_storeu_si256((__m256i *)(v + i), _mm256_sub_epi32(vv, avx2_narrow(pe, po)));
	}
	spring_push_scalar(x + i, v + i, width - i, k, m);
}

AVX2 void spring_spread_avx2(int32_t *restrict x, int32_t *restrict v,
			     const int16_t *restrict keep, int width, int32_t spread)
{
	const __m256i c = _mm256_set1_epi32(spread), rotate = _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6);
	__m256i carry = _mm256_setzero_si256();	/* lane 0: the flux of the edge before */
	int i = 0;

	for (; i + 9 <= width; i += 8) {
		__m256i xa = _mm256_loadu_si256((const __m256i *)(x + i));
		__m256i xb = _mm256_loadu_si256((const __m256i *)(x + i + 1));
		__m256i r = _mm256_and_si256(avx2_mul(c, _mm256_sub_epi32(xb, xa)),
					     _mm256_and_si256(avx2_keep(keep + i),
							      avx2_keep(keep + i + 1)));
		__m256i turned = _mm256_permutevar8x32_epi32(r, rotate);
		__m256i d = _mm256_sub_epi32(r, _mm256_blend_epi32(turned, carry, 0x01));

		carry = turned;
		_mm256_storeu_si256((__m256i *)(x + i), _mm256_add_epi32(xa, d));
		_mm256_storeu_si256((__m256i *)(v + i),
				    _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(v + i)), d));
	}
	spring_spread_tail(x + i, v + i, keep + i, width - i, spread,
			   _mm256_cvtsi256_si32(carry));
}

AVX2 void spring_spread_rows_avx2(int32_t *restrict x, int32_t *restrict v,
				  const int32_t *restrict xd, const int32_t *restrict up,
				  int32_t *restrict down, const int16_t *restrict keep,
				  const int16_t *restrict keepd, int width, int32_t spread)
{
	const __m256i c = _mm256_set1_epi32(spread);
	int i = 0;

	for (; i + 8 <= width; i += 8) {
		__m256i xv = _mm256_loadu_si256((const __m256i *)(x + i)), dn = _mm256_setzero_si256();
		__m256i d;

		if (xd)
			dn = _mm256_and_si256(
				avx2_mul(c, _mm256_sub_epi32(
						    _mm256_loadu_si256((const __m256i *)(xd + i)), xv)),
				_mm256_and_si256(avx2_keep(keep + i), avx2_keep(keepd + i)));
		_mm256_storeu_si256((__m256i *)(down + i), dn);
		d = _mm256_sub_epi32(dn, _mm256_loadu_si256((const __m256i *)(up + i)));
		_mm256_storeu_si256((__m256i *)(x + i), _mm256_add_epi32(xv, d));
		_mm256_storeu_si256((__m256i *)(v + i),
				    _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(v + i)), d));
	}
	spring_spread_rows_scalar(x + i, v + i, xd ? xd + i : NULL, up + i, down + i, keep + i,
				  keepd ? keepd + i : NULL, width - i, spread);
}

AVX2 static inline __m256i avx2_within(__m256i v, int32_t limit)
{
	return _mm256_and_si256(_mm256_cmpgt_epi32(v, _mm256_set1_epi32(-limit)),
				_mm256_cmpgt_epi32(_mm256_set1_epi32(limit), v));
}

AVX2 int spring_settle_avx2(int32_t *restrict x, int32_t *restrict v, int16_t *restrict out,
			    const int16_t *restrict keep, int width,
			    const struct spring_settle *at)
{
	const __m256i limit = _mm256_set1_epi32(LIMIT), nlimit = _mm256_set1_epi32(-LIMIT);
	const __m256i zero = _mm256_setzero_si256(), half = _mm256_set1_epi32(1 << (at->shift - 1));
	__m256i any = zero, hidden = _mm256_set1_epi32(-1);
	__m128i count = _mm_cvtsi32_si128(at->shift);
	int i = 0;

	for (; spring_settle_fits(at) && i + 8 <= width; i += 8) {
		__m256i k = avx2_keep(keep + i);
		__m256i xi = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(x + i)), k);
		__m256i vi = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(v + i)), k);
		__m256i rest, h;
		__m128i h16;

		xi = _mm256_min_epi32(_mm256_max_epi32(xi, nlimit), limit);
		vi = _mm256_min_epi32(_mm256_max_epi32(vi, nlimit), limit);
		rest = _mm256_and_si256(_mm256_cmpeq_epi32(vi, zero), avx2_within(xi, at->creep + 1));
		if (at->still)
			rest = _mm256_or_si256(rest, _mm256_and_si256(avx2_within(xi, at->still),
								      avx2_within(vi, at->still)));
		xi = _mm256_andnot_si256(rest, xi);
		vi = _mm256_andnot_si256(rest, vi);
		_mm256_storeu_si256((__m256i *)(x + i), xi);
		_mm256_storeu_si256((__m256i *)(v + i), vi);
		h = _mm256_add_epi32(_mm256_add_epi32(_mm256_slli_epi32(xi, 2), half),
				     _mm256_srai_epi32(xi, 31));
		h = _mm256_sra_epi32(h, count);
		h16 = _mm_packs_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
		_mm_storeu_si128((__m128i *)(out + i), _mm_max_epi16(h16, _mm_set1_epi16(-INT16_MAX)));
		any = _mm256_or_si256(any, _mm256_or_si256(xi, vi));
		hidden = _mm256_and_si256(hidden, _mm256_and_si256(avx2_within(xi, at->shows),
								   avx2_within(vi, at->shows)));
	}
	return (_mm256_testz_si256(any, any) == 0) |
	       (_mm256_testc_si256(hidden, _mm256_set1_epi32(-1)) ? 0 : SPRING_SETTLE_SHOWS) |
	       spring_settle_scalar(x + i, v + i, out + i, keep + i, width - i, at);
}
#endif
