/* render_row_neon.c - the row kernels with NEON, which every arm64 has: the positions of the
 * pixels to fetch in vectors, the cells' slopes picked by table lookups, the fetches one by
 * one (NEON has no gather), the light in vectors again. */
#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>

#include "render_row.h"

static inline int32x4_t clamp4(int32x4_t v, int32x4_t lo, int32x4_t hi)
{
	return vminq_s32(vmaxq_s32(v, lo), hi);
}

/* n splash pixels at idx into out. */
static inline void fetch(uint8_t *restrict out, const uint8_t *restrict in, const uint32_t *idx,
			 int n, int bytes)
{
	for (int i = 0; i < n; i++)
		memcpy(out + i * bytes, in + (size_t)idx[i] * bytes, bytes);
}

/*
 * Cell 1 without light, 8 pixels a step in 16-bit lanes. Saturating sums give exactly the
 * clamped positions: a sum that saturates lies beyond the picture on the same side as the
 * true one, and clamps to the same edge (the picture is at most 32767 pixels a side).
 */
RENDER_INLINE void direct(uint8_t *restrict dst, const struct render *r, int y,
			  const int16_t *h, int stride, int x0, int x1, int bytes)
{
	static const int16_t lanes[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	const int width = r->width;
	int x = x0;

	if (width <= INT16_MAX && r->height <= INT16_MAX) {
		const int16x8_t zero = vdupq_n_s16(0), xmax = vdupq_n_s16((int16_t)(width - 1));
		const int16x8_t ymax = vdupq_n_s16((int16_t)(r->height - 1));
		const int16x8_t vy = vdupq_n_s16((int16_t)y);
		const uint16_t w16 = (uint16_t)width;
		const uint8_t *ahead = render_prefetch_row(r, y);
		int16x8_t vx = vaddq_s16(vdupq_n_s16((int16_t)x0), vld1q_s16(lanes));

		for (; x + 8 <= x1; x += 8, vx = vaddq_s16(vx, vdupq_n_s16(8))) {
			int16x8_t dx = vqsubq_s16(vld1q_s16(h + x - 1), vld1q_s16(h + x + 1));
			int16x8_t dy = vqsubq_s16(vld1q_s16(h + x - stride),
						  vld1q_s16(h + x + stride));
			uint16x8_t sx = vreinterpretq_u16_s16(
				vminq_s16(vmaxq_s16(vqaddq_s16(vx, dx), zero), xmax));
			uint16x8_t sy = vreinterpretq_u16_s16(
				vminq_s16(vmaxq_s16(vqaddq_s16(vy, dy), zero), ymax));
			uint32_t idx[8];

			vst1q_u32(idx, vmlal_n_u16(vmovl_u16(vget_low_u16(sx)), vget_low_u16(sy), w16));
			vst1q_u32(idx + 4, vmlal_high_n_u16(vmovl_high_u16(sx), sy, w16));
			__builtin_prefetch(ahead + (size_t)x * bytes);
			fetch(dst + (size_t)x * bytes, r->splash, idx, 8, bytes);
		}
	}
	if (x < x1)
		render_kernels_scalar.direct[bytes - 2](dst, r, y, h, stride, x, x1);
}

/* render_row.c's lit(), 4 pixels at once. */
static inline uint32x4_t lit(uint32x4_t p, uint32x4_t a, uint32x4_t neg, const uint32x4_t f[3],
			     uint32x4_t colour)
{
	uint32x4_t q = veorq_u32(p, neg), out = vdupq_n_u32(0);

	for (int i = 0; i < 3; i++) {
		uint32x4_t v = vandq_u32(q, f[i]);

		out = vorrq_u32(out, vaddq_u32(v, vminq_u32(vandq_u32(a, f[i]),
							    vsubq_u32(f[i], v))));
	}
	return vorrq_u32(veorq_u32(out, neg), vbicq_u32(p, colour));
}

/* lit() where every colour field is a whole byte: the same sums, saturating byte by byte (the
 * bytes outside the fields add nothing, a has none there); neg darkens its lanes. */
static inline uint32x4_t lit_bytes(uint32x4_t p, uint32x4_t a, uint32x4_t neg)
{
	uint8x16_t pb = vreinterpretq_u8_u32(p), ab = vreinterpretq_u8_u32(a);

	return vreinterpretq_u32_u8(vbslq_u8(vreinterpretq_u8_u32(neg), vqsubq_u8(pb, ab),
					     vqaddq_u8(pb, ab)));
}

/*
 * The slopes of 4 pixels from the cells on both sides of each, mixed by its weight: their
 * cells lie within 4 of the first one's (a cell is at least a pixel wide), so the 4 cells
 * from there (and from the next one) are loaded and each pixel picks its own by a table
 * lookup, d cells on. (a (64 - w) + b w) >> 6 is a + ((b - a) w >> 6) exactly.
 */
static inline int32x4_t mix(const int32_t *g, int c0, uint8x16_t pick, int32x4_t wb)
{
	int32x4_t a = vreinterpretq_s32_u8(vqtbl1q_u8(vld1q_u8((const uint8_t *)(g + c0)), pick));
	int32x4_t b = vreinterpretq_s32_u8(
		vqtbl1q_u8(vld1q_u8((const uint8_t *)(g + c0 + 1)), pick));

	return vaddq_s32(a, vshrq_n_s32(vmulq_s32(vsubq_s32(b, a), wb), RENDER_WEIGHT_BITS));
}

/* The bytes of lane d of 4 32-bit lanes, for each lane's d in 0..3. */
static inline uint8x16_t pick_of(const int32_t *c)
{
	uint32x4_t d = vreinterpretq_u32_s32(vsubq_s32(vld1q_s32(c), vdupq_n_s32(c[0])));

	return vreinterpretq_u8_u32(vmlaq_n_u32(vdupq_n_u32(0x03020100), d, 0x04040404));
}

static inline int32x4_t move(int32x4_t g, int32x4_t mul, int32x4_t dmax, int32x4_t ndmax)
{
	int32x4_t m = vaddq_s32(vmulq_s32(g, mul), vdupq_n_s32(MOVE_HALF));

	return clamp4(vshrq_n_s32(m, MOVE_SHIFT), ndmax, dmax);
}

/* 4 pixels (or table entries) of bytes at idx, the indices taken from the register. */
static inline uint32x4_t load4(const uint8_t *in, uint32x4_t idx, int bytes)
{
	uint32_t v[4] = { 0 };

	memcpy(&v[0], in + (size_t)vgetq_lane_u32(idx, 0) * bytes, bytes);
	memcpy(&v[1], in + (size_t)vgetq_lane_u32(idx, 1) * bytes, bytes);
	memcpy(&v[2], in + (size_t)vgetq_lane_u32(idx, 2) * bytes, bytes);
	memcpy(&v[3], in + (size_t)vgetq_lane_u32(idx, 3) * bytes, bytes);
	return vld1q_u32(v);
}

static inline void put4(uint8_t *out, uint32x4_t v, int bytes)
{
	if (bytes == 4) {
		vst1q_u32((uint32_t *)out, v);
	} else if (bytes == 2) {
		vst1_u16((uint16_t *)out, vmovn_u32(v));
	} else {	/* 24-bit: 3 bytes of each lane */
		uint32_t p[4] = { vgetq_lane_u32(v, 0), vgetq_lane_u32(v, 1), vgetq_lane_u32(v, 2),
				  vgetq_lane_u32(v, 3) };

		for (int i = 0; i < 4; i++)
			memcpy(out + 3 * i, &p[i], 3);
	}
}

RENDER_INLINE void slope(uint8_t *restrict dst, const struct render *r, int y,
			 const int16_t *h, int stride, int x0, int x1, int bytes,
			 enum render_shading shading)
{
	static const int32_t lanes[4] = { 0, 1, 2, 3 };
	const int width = r->width;
	const int32x4_t zero = vdupq_n_s32(0), xmax = vdupq_n_s32(width - 1);
	const int32x4_t ymax = vdupq_n_s32(r->height - 1), vy = vdupq_n_s32(y);
	const int32x4_t vw = vdupq_n_s32(width);
	const int32x4_t mul = vdupq_n_s32(r->shift_mul), dmax = vdupq_n_s32(r->shift_max);
	const int32x4_t ndmax = vdupq_n_s32(-r->shift_max);
	const int32x4_t lx = vdupq_n_s32(r->light_x), ly = vdupq_n_s32(r->light_y);
	const int32x4_t shade_half = vdupq_n_s32(1 << (r->shade_shift - 1));
	const int32x4_t shade_shift = vdupq_n_s32(-r->shade_shift);	/* a shift right */
	const int32x4_t smax = vdupq_n_s32(RENDER_SHADES), smin = vdupq_n_s32(-RENDER_SHADES);
	const uint32x4_t f[3] = { vdupq_n_u32(r->field[0]), vdupq_n_u32(r->field[1]),
				  vdupq_n_u32(r->field[2]) };
	const uint32x4_t colour = vorrq_u32(vorrq_u32(f[0], f[1]), f[2]);
	const uint8_t *shades = (const uint8_t *)r->shade;	/* [RENDER_SHADES + s] */
	const uint8_t *ahead = render_prefetch_row(r, y), *near = render_prefetch_near(r, y);
	int32x4_t vx = vaddq_s32(vdupq_n_s32(x0), vld1q_s32(lanes));
	int x = x0;

	for (; x + 4 <= x1; x += 4, vx = vaddq_s32(vx, vdupq_n_s32(4))) {
		const uint8_t *w = r->ax.w + x;
		const int32_t wl[4] = { w[0], w[1], w[2], w[3] };
		const int c0 = r->ax.c[x];
		const uint8x16_t pick = pick_of(r->ax.c + x);
		int32x4_t wb = vld1q_s32(wl);
		int32x4_t gx = mix(r->slope_x, c0, pick, wb), gy = mix(r->slope_y, c0, pick, wb);
		int32x4_t sx = clamp4(vaddq_s32(vx, move(gx, mul, dmax, ndmax)), zero, xmax);
		int32x4_t sy = clamp4(vaddq_s32(vy, move(gy, mul, dmax, ndmax)), zero, ymax);
		uint32x4_t v = load4(r->splash, vreinterpretq_u32_s32(vmlaq_s32(sx, sy, vw)), bytes);

		__builtin_prefetch(ahead + (size_t)x * bytes);
		__builtin_prefetch(near + (size_t)x * bytes);
		if (shading != SHADE_NONE) {
			int32x4_t sh = vaddq_s32(vaddq_s32(vmulq_s32(gx, lx), vmulq_s32(gy, ly)),
						 shade_half);
			uint32x4_t a, neg;

			sh = clamp4(vshlq_s32(sh, shade_shift), smin, smax);
			a = load4(shades, vreinterpretq_u32_s32(vaddq_s32(sh, smax)), 4);
			neg = vreinterpretq_u32_s32(vshrq_n_s32(sh, 31));
			v = shading == SHADE_BYTES ? lit_bytes(v, a, neg)
						   : lit(v, a, vandq_u32(neg, colour), f, colour);
		}
		put4(dst + (size_t)x * bytes, v, bytes);
	}
	if (x < x1)
		render_row_tail(bytes, shading)(dst, r, y, h, stride, x, x1);
}

/* |a - b| beyond t in each 16-bit lane, 0 within it (the absolute difference is exact
 * unsigned). */
static inline uint16x8_t beyond8(const int16_t *a, const int16_t *b, uint16x8_t t)
{
	return vqsubq_u16(vreinterpretq_u16_s16(vabdq_s16(vld1q_s16(a), vld1q_s16(b))), t);
}

/* a - b outside [-lo, hi] in each 16-bit lane (all ones), 0 within it: the difference,
 * saturated, keeps its sign, and neither bound reaches the saturated ones. */
static inline uint16x8_t outside8(const int16_t *a, const int16_t *b, int16x8_t neg_lo,
				  int16x8_t hi)
{
	int16x8_t d = vqsubq_s16(vld1q_s16(a), vld1q_s16(b));

	return vorrq_u16(vcgtq_s16(d, hi), vcltq_s16(d, neg_lo));
}

/* render_loud_fn 8 cells a step, each lane's bit summed across the vector. */
static inline uint64_t loud_cells(const int16_t *p, const int16_t *q, ptrdiff_t s, int n, int lo,
				  int hi, int f, bool tint)
{
	const int16x8_t lv = vdupq_n_s16((int16_t)-lo), hv = vdupq_n_s16((int16_t)hi);
	const uint16x8_t fv = vdupq_n_u16((uint16_t)f);
	const uint16x8_t lane_bit = { 1, 2, 4, 8, 16, 32, 64, 128 };
	uint64_t bits = 0;
	int i = 0;

	for (; i + 8 <= n; i += 8) {
		uint16x8_t m = vorrq_u16(outside8(p + i - 1, p + i + 1, lv, hv),
					 outside8(p + i - s, p + i + s, lv, hv));

		if (tint)
			m = vorrq_u16(m, beyond8(p + i, q + i, fv));
		bits |= (uint64_t)vaddvq_u16(vandq_u16(vtstq_u16(m, m), lane_bit)) << i;
	}
	return bits | render_loud_scalar(p, q, s, i, n, lo, hi, tint ? f : -1);
}

static uint64_t loud(const int16_t *p, const int16_t *q, ptrdiff_t s, int n, int lo, int hi,
		     int f)
{
	return f >= 0 ? loud_cells(p, q, s, n, lo, hi, f, true)
		      : loud_cells(p, q, s, n, lo, hi, 0, false);
}

RENDER_ROW_KERNELS(render_kernels_neon, )
#endif
