/* water_kernel_neon.c - the classic row step with NEON, which every arm64 CPU has. */
#if defined(__aarch64__)
#include <arm_neon.h>

#include "water_kernel.h"

/* saturate(((up + down + left + right) >> 1) - out) for 8 cells: widening adds, then one
 * saturating narrowing shift, since floor((s - 2 out) / 2) = (s >> 1) - out exactly */
static inline int16x8_t neon_wave(const int16_t *up, const int16_t *mid, const int16_t *down,
				  const int16_t *out)
{
	int16x8_t u = vld1q_s16(up), d = vld1q_s16(down), o = vld1q_s16(out);
	int16x8_t l = vld1q_s16(mid - 1), r = vld1q_s16(mid + 1);
	int32x4_t lo = vaddq_s32(vaddl_s16(vget_low_s16(u), vget_low_s16(d)),
				 vaddl_s16(vget_low_s16(l), vget_low_s16(r)));
	int32x4_t hi = vaddq_s32(vaddl_high_s16(u, d), vaddl_high_s16(l, r));

	lo = vmlsl_n_s16(lo, vget_low_s16(o), 2);
	hi = vmlsl_high_n_s16(hi, o, 2);
	return vmaxq_s16(vcombine_s16(vqshrn_n_s32(lo, 1), vqshrn_n_s32(hi, 1)),
			 vdupq_n_s16(-INT16_MAX));
}

/* (int)(v * damping) for 2 cells: the seed's double product and its truncation */
static inline int32x2_t neon_damp2(int32x2_t v, float64x2_t damping)
{
	return vmovn_s64(vcvtq_s64_f64(vmulq_f64(vcvtq_f64_s64(vmovl_s32(v)), damping)));
}

/* The same for 8 cells; |damping| <= 1 keeps every result in int16 */
static inline int16x8_t neon_fraction(int16x8_t v, float64x2_t damping)
{
	int32x4_t lo = vmovl_s16(vget_low_s16(v)), hi = vmovl_high_s16(v);

	lo = vcombine_s32(neon_damp2(vget_low_s32(lo), damping),
			  neon_damp2(vget_high_s32(lo), damping));
	hi = vcombine_s32(neon_damp2(vget_low_s32(hi), damping),
			  neon_damp2(vget_high_s32(hi), damping));
	return vcombine_s16(vmovn_s32(lo), vmovn_s32(hi));
}

/* v, or v on water only */
static inline int16x8_t neon_keep(int16x8_t v, const int16_t *keep)
{
	return keep ? vandq_s16(v, vld1q_s16(keep)) : v;
}

WATER_INLINE uint8_t neon_shift(const int16_t *restrict up, const int16_t *restrict mid,
				const int16_t *restrict down, int16_t *restrict out,
				const int16_t *restrict keep, int width, int shift)
{
	int16x8_t any = vdupq_n_s16(0), count = vdupq_n_s16((int16_t)-shift);
	int x = 0;

	for (; x + 8 <= width; x += 8) {
		int16x8_t v = neon_wave(up + x, mid + x, down + x, out + x);

		v = neon_keep(vsubq_s16(v, vshlq_s16(v, count)), keep ? keep + x : NULL);
		vst1q_s16(out + x, v);
		any = vorrq_s16(any, v);
	}
	return (uint8_t)((vmaxvq_u16(vreinterpretq_u16_s16(any)) != 0) |
			 water_row_shift_scalar(up + x, mid + x, down + x, out + x,
						keep ? keep + x : NULL, width - x, shift));
}

uint8_t water_row_shift_neon(const int16_t *restrict up, const int16_t *restrict mid,
			     const int16_t *restrict down, int16_t *restrict out,
			     const int16_t *restrict keep, int width, int shift)
{
	return keep ? neon_shift(up, mid, down, out, keep, width, shift)
		    : neon_shift(up, mid, down, out, NULL, width, shift);
}

WATER_INLINE uint8_t neon_fraction_row(const int16_t *restrict up, const int16_t *restrict mid,
				       const int16_t *restrict down, int16_t *restrict out,
				       const int16_t *restrict keep, int width, double damping)
{
	int16x8_t any = vdupq_n_s16(0);
	float64x2_t d = vdupq_n_f64(damping);
	int x = 0;

	if (!(damping >= -1 && damping <= 1))
		return water_row_fraction_scalar(up, mid, down, out, keep, width, damping);
	for (; x + 8 <= width; x += 8) {
		int16x8_t v = neon_keep(neon_fraction(neon_wave(up + x, mid + x, down + x, out + x), d),
					keep ? keep + x : NULL);

		vst1q_s16(out + x, v);
		any = vorrq_s16(any, v);
	}
	return (uint8_t)((vmaxvq_u16(vreinterpretq_u16_s16(any)) != 0) |
			 water_row_fraction_scalar(up + x, mid + x, down + x, out + x,
						   keep ? keep + x : NULL, width - x, damping));
}

uint8_t water_row_fraction_neon(const int16_t *restrict up, const int16_t *restrict mid,
				const int16_t *restrict down, int16_t *restrict out,
				const int16_t *restrict keep, int width, double damping)
{
	return keep ? neon_fraction_row(up, mid, down, out, keep, width, damping)
		    : neon_fraction_row(up, mid, down, out, NULL, width, damping);
}
#endif
