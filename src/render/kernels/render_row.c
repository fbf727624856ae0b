/* render_row.c - the scalar reference row kernels: every vector path must match them exactly. */
#include "render_row.h"

typedef struct {
	uint8_t b[3];
} pixel24;

static inline uint32_t get16(const uint16_t *p) { return *p; }
static inline uint32_t get32(const uint32_t *p) { return *p; }
static inline uint32_t get24(const pixel24 *p)
{
	return (uint32_t)p->b[0] | (uint32_t)p->b[1] << 8 | (uint32_t)p->b[2] << 16;
}
static inline void put16(uint16_t *p, uint32_t v) { *p = (uint16_t)v; }
static inline void put32(uint32_t *p, uint32_t v) { *p = v; }
static inline void put24(pixel24 *p, uint32_t v)
{
	*p = (pixel24){ { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16) } };
}

static inline int clamp(int v, int hi)
{
	v = v < 0 ? 0 : v;
	return v > hi ? hi : v;
}

static inline int clamp_abs(int v, int max)
{
	return v < -max ? -max : v > max ? max : v;
}

static inline uint32_t min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * Adds a to each colour field of p (or, where neg covers the fields, takes it away), each
 * saturating in its own field: no wrap, no carry into the next channel, whatever the format's
 * layout. Taking away is adding to the complement: f - sat(f - v + a) = max(v - a, 0).
 */
static inline uint32_t lit(uint32_t p, uint32_t a, uint32_t neg, uint32_t f0, uint32_t f1,
			   uint32_t f2)
{
	uint32_t q = p ^ neg, v, out;

	v = q & f0;
	out = v + min32(a & f0, f0 - v);
	v = q & f1;
	out |= v + min32(a & f1, f1 - v);
	v = q & f2;
	out |= v + min32(a & f2, f2 - v);
	return (out ^ neg) | (p & ~(f0 | f1 | f2));
}

/*
 * Each pixel interpolates the slopes prepared for its row (the seeds' left - right and
 * up - down, mixed from the cells around it), is displaced by slope x cell / scale pixels (the
 * seeds' offset, grown with the cell so the look does not depend on the resolution), clamped
 * to the picture, and, with light, brightened or darkened by the slope towards the light.
 * At cell 1 the displacement is exactly the seeds' offset.
 */
#define DEFINE_SLOPE(name, type, sfx, LIGHT)                                                   \
	static void name(uint8_t *restrict dst, const struct render *r, int y,                \
			 const int16_t *h, int stride, int x0, int x1)                         \
	{                                                                                      \
		type *restrict out = (type *)dst;                                              \
		const type *restrict in = (const type *)r->splash;                             \
		const int32_t *restrict gxs = r->slope_x, *restrict gys = r->slope_y;          \
		const int32_t *restrict cs = r->ax.c;                                          \
		const uint8_t *restrict ws = r->ax.w;                                          \
		const int width = r->width, xmax = r->width - 1, ymax = r->height - 1;         \
		const int lx = r->light_x, ly = r->light_y, mul = r->shift_mul;                \
		const int dmax = r->shift_max, shade_shift = r->shade_shift;                   \
		const int shade_half = 1 << (shade_shift - 1);                                 \
		const uint32_t f0 = r->field[0], f1 = r->field[1], f2 = r->field[2];           \
		const uint32_t colour = f0 | f1 | f2;                                          \
		const uint32_t *shades = r->shade + RENDER_SHADES;                             \
		(void)h, (void)stride, (void)lx, (void)ly, (void)shades, (void)colour;         \
		(void)shade_shift, (void)shade_half;                                           \
		for (int x = x0; x < x1; x++) {                                                \
			int c = cs[x], w = ws[x];                                              \
			int gx = (gxs[c] * (RENDER_WEIGHT - w) + gxs[c + 1] * w) >>            \
				 RENDER_WEIGHT_BITS;                                           \
			int gy = (gys[c] * (RENDER_WEIGHT - w) + gys[c + 1] * w) >>            \
				 RENDER_WEIGHT_BITS;                                           \
			int mx = (gx * mul + MOVE_HALF) >> MOVE_SHIFT;                         \
			int my = (gy * mul + MOVE_HALF) >> MOVE_SHIFT;                         \
			int sx = clamp(x + clamp_abs(mx, dmax), xmax);                         \
			int sy = clamp(y + clamp_abs(my, dmax), ymax);                         \
			uint32_t v = get##sfx(&in[(size_t)sy * width + sx]);                   \
			if (LIGHT) {                                                           \
				int sh = (gx * lx + gy * ly + shade_half) >> shade_shift;      \
				sh = sh < -RENDER_SHADES ? -RENDER_SHADES                      \
				   : sh > RENDER_SHADES ? RENDER_SHADES : sh;                  \
				v = lit(v, shades[sh], (uint32_t)(sh >> 31) & colour, f0, f1,  \
					f2);                                                   \
			}                                                                      \
			put##sfx(&out[x], v);                                                  \
		}                                                                              \
	}

DEFINE_SLOPE(slope_16, uint16_t, 16, 0)
DEFINE_SLOPE(slope_24, pixel24, 24, 0)
DEFINE_SLOPE(slope_32, uint32_t, 32, 0)
DEFINE_SLOPE(lit_16, uint16_t, 16, 1)
DEFINE_SLOPE(lit_24, pixel24, 24, 1)
DEFINE_SLOPE(lit_32, uint32_t, 32, 1)

/*
 * Cell 1 without light needs no slopes: the seeds' own offset (left - right, up - down) read
 * straight from the heights, as the seeds do.
 */
#define DEFINE_DIRECT(name, type)                                                              \
	static void name(uint8_t *restrict dst, const struct render *r, int y,                \
			 const int16_t *h, int stride, int x0, int x1)                         \
	{                                                                                      \
		type *restrict out = (type *)dst;                                              \
		const type *restrict in = (const type *)r->splash;                             \
		const int width = r->width, xmax = r->width - 1, ymax = r->height - 1;         \
		for (int x = x0; x < x1; x++) {                                                \
			int sx = clamp(x + h[x - 1] - h[x + 1], xmax);                         \
			int sy = clamp(y + h[x - stride] - h[x + stride], ymax);               \
			out[x] = in[(size_t)sy * width + sx];                                  \
		}                                                                              \
	}

DEFINE_DIRECT(direct_16, uint16_t)
DEFINE_DIRECT(direct_24, pixel24)
DEFINE_DIRECT(direct_32, uint32_t)

static void slopes(int32_t *restrict gx, int32_t *restrict gy, const int16_t *p,
		   const int16_t *q, int stride, int wa, int wb, int lo, int hi)
{
	render_slopes_scalar(gx, gy, p, q, stride, wa, wb, lo, hi);
}

static uint64_t loud(const int16_t *p, const int16_t *q, ptrdiff_t stride, int n, int lo, int hi,
		     int f)
{
	return render_loud_scalar(p, q, stride, 0, n, lo, hi, f);
}

const struct render_kernels render_kernels_scalar = {
	{ direct_16, direct_24, direct_32 },
	{ slope_16, slope_24, slope_32 },
	{ lit_16, lit_24, lit_32 },
	{ NULL, NULL, NULL },	/* the field by field ones are the reference */
	slopes,
	loud,
};
