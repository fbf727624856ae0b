/* water_spring_kernel_neon.c - the spring engine's row loops with NEON, on every arm64 CPU. */
#if defined(__aarch64__)
#include <arm_neon.h>

#include "water_spring_kernel.h"

#define LIMIT SPRING_LIMIT
_Static_assert(WATER_SPRING_GAIN == 4, "the published height is x << 2");

/* p / 2^SPRING_COEF toward 0 for 2 lanes, narrowed: past the rounding the narrowing shift
 * keeps the same low 32 bits */
static inline int32x2_t neon_narrow(int64x2_t p)
{
	int64x2_t round = vandq_s64(vshrq_n_s64(p, 63), vdupq_n_s64((1 << SPRING_COEF) - 1));

	return vshrn_n_s64(vaddq_s64(p, round), SPRING_COEF);
}

/* c * d / 2^SPRING_COEF toward 0 for 4 lanes */
static inline int32x4_t neon_mul(int32x4_t c, int32x4_t d)
{
	return vcombine_s32(neon_narrow(vmull_s32(vget_low_s32(c), vget_low_s32(d))),
			    neon_narrow(vmull_high_s32(c, d)));
}

static inline int32x4_t neon_keep(const int16_t *keep)
{
	return vmovl_s16(vld1_s16(keep));
}

void spring_push_neon(int32_t *restrict x, int32_t *restrict v, int width, int32_t k, int32_t m)
{
	int32x4_t kk = vdupq_n_s32(k), mm = vdupq_n_s32(m);
	int i = 0;

	for (; i + 4 <= width; i += 4) {
		int32x4_t xv = vld1q_s32(x + i), vv = vld1q_s32(v + i);
		int64x2_t lo = vmlal_s32(vmull_s32(vget_low_s32(kk), vget_low_s32(xv)),
					 vget_low_s32(mm), vget_low_s32(vv));
		int64x2_t hi = vmlal_high_s32(vmull_high_s32(kk, xv), mm, vv);

		vst1q_s32(x + i, vaddq_s32(xv, vv));
		vst1q_s32(v + i, vsubq_s32(vv, vcombine_s32(neon_narrow(lo), neon_narrow(hi))));
	}
	spring_push_scalar(x + i, v + i, width - i, k, m);
}

/* Each edge's flux from the displacement before the sweep (water_spring_kernel_x86.c says
 * why), the edge before a block carried over from the last. */
void spring_spread_neon(int32_t *restrict x, int32_t *restrict v, const int16_t *restrict keep,
			int width, int32_t spread)
{
	int32x4_t c = vdupq_n_s32(spread), last = vdupq_n_s32(0);
	int i = 0;

	for (; i + 5 <= width; i += 4) {
		int32x4_t xa = vld1q_s32(x + i), xb = vld1q_s32(x + i + 1);
		int32x4_t r = vandq_s32(neon_mul(c, vsubq_s32(xb, xa)),
					vandq_s32(neon_keep(keep + i), neon_keep(keep + i + 1)));
		int32x4_t d = vsubq_s32(r, vextq_s32(last, r, 3));

		last = r;
		vst1q_s32(x + i, vaddq_s32(xa, d));
		vst1q_s32(v + i, vaddq_s32(vld1q_s32(v + i), d));
	}
	spring_spread_tail(x + i, v + i, keep + i, width - i, spread, vgetq_lane_s32(last, 3));
}

void spring_spread_rows_neon(int32_t *restrict x, int32_t *restrict v,
			     const int32_t *restrict xd, const int32_t *restrict up,
			     int32_t *restrict down, const int16_t *restrict keep,
			     const int16_t *restrict keepd, int width, int32_t spread)
{
	int32x4_t c = vdupq_n_s32(spread);
	int i = 0;

	for (; i + 4 <= width; i += 4) {
		int32x4_t xv = vld1q_s32(x + i), dn = vdupq_n_s32(0), d;

		if (xd)
			dn = vandq_s32(neon_mul(c, vsubq_s32(vld1q_s32(xd + i), xv)),
				       vandq_s32(neon_keep(keep + i), neon_keep(keepd + i)));
		vst1q_s32(down + i, dn);
		d = vsubq_s32(dn, vld1q_s32(up + i));
		vst1q_s32(x + i, vaddq_s32(xv, d));
		vst1q_s32(v + i, vaddq_s32(vld1q_s32(v + i), d));
	}
	spring_spread_rows_scalar(x + i, v + i, xd ? xd + i : NULL, up + i, down + i, keep + i,
				  keepd ? keepd + i : NULL, width - i, spread);
}

/* -limit < v < limit, all bits set where it holds */
static inline int32x4_t neon_within(int32x4_t v, int32_t limit)
{
	return vreinterpretq_s32_u32(vandq_u32(vcgtq_s32(v, vdupq_n_s32(-limit)),
					       vcltq_s32(v, vdupq_n_s32(limit))));
}

int spring_settle_neon(int32_t *restrict x, int32_t *restrict v, int16_t *restrict out,
		       const int16_t *restrict keep, int width, const struct spring_settle *at)
{
	const int32x4_t limit = vdupq_n_s32(LIMIT), nlimit = vdupq_n_s32(-LIMIT);
	const int32x4_t half = vdupq_n_s32(1 << (at->shift - 1)), count = vdupq_n_s32(-at->shift);
	int32x4_t any = vdupq_n_s32(0), hidden = vdupq_n_s32(-1);
	int i = 0;

	for (; spring_settle_fits(at) && i + 4 <= width; i += 4) {
		int32x4_t k = neon_keep(keep + i);
		int32x4_t xi = vminq_s32(vmaxq_s32(vandq_s32(vld1q_s32(x + i), k), nlimit), limit);
		int32x4_t vi = vminq_s32(vmaxq_s32(vandq_s32(vld1q_s32(v + i), k), nlimit), limit);
		int32x4_t rest = vandq_s32(vreinterpretq_s32_u32(vceqzq_s32(vi)),
					   neon_within(xi, at->creep + 1));
		int32x4_t h;

		if (at->still)
			rest = vorrq_s32(rest, vandq_s32(neon_within(xi, at->still),
							 neon_within(vi, at->still)));
		xi = vbicq_s32(xi, rest);
		vi = vbicq_s32(vi, rest);
		vst1q_s32(x + i, xi);
		vst1q_s32(v + i, vi);
		h = vaddq_s32(vaddq_s32(vshlq_n_s32(xi, 2), half), vshrq_n_s32(xi, 31));
		vst1_s16(out + i, vmax_s16(vqmovn_s32(vshlq_s32(h, count)), vdup_n_s16(-INT16_MAX)));
		any = vorrq_s32(any, vorrq_s32(xi, vi));
		hidden = vandq_s32(hidden, vandq_s32(neon_within(xi, at->shows),
						     neon_within(vi, at->shows)));
	}
	return (vmaxvq_u32(vreinterpretq_u32_s32(any)) != 0) |
	       (vminvq_u32(vreinterpretq_u32_s32(hidden)) == UINT32_MAX ? 0
									 : SPRING_SETTLE_SHOWS) |
	       spring_settle_scalar(x + i, v + i, out + i, keep + i, width - i, at);
}
#endif
