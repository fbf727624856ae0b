/* render_row.h - what the row kernels of every path share: their table, fixed-point rules.
 *
 * The render/kernels folder: one file per vector path (scalar, SSE2, SSE4.1, AVX2, NEON) that
 * draws a renderer's rows; they are the renderer's insides, so they include render.h. */
#ifndef FBRIPPLE_RENDER_ROW_H
#define FBRIPPLE_RENDER_ROW_H

#include <stdlib.h>
#include <string.h>

#include "render/render.h"

/* Slopes in 1/RENDER_WEIGHT height units are kept within this: a steeper one already moves
 * every pixel off any screen, and the products in the kernels stay inside 32 bits. */
#define SLOPE_MAX (8192 * RENDER_WEIGHT)
#define SHADE_SHIFT (RENDER_WEIGHT_BITS + 8)	/* light_x/y carry 8 fraction bits */
#define MOVE_SHIFT (RENDER_WEIGHT_BITS + 8)	/* and so does shift_mul */
#define MOVE_HALF (1 << (MOVE_SHIFT - 1))

/* The vector paths read a few bytes past the splash's last pixel (a 4-byte gather of a
 * 2- or 3-byte pixel): it is allocated this much longer. */
#define RENDER_SPLASH_SLACK 16

/*
 * The row kernels fetch the splash ahead, a row this far on from the one they draw: in busy
 * water the first touch of each splash line is a scattered miss the hardware does not foresee.
 * Cell 1 moves a pixel a few rows (24 rows ahead: the direct kernel at 1080p32, 2.6 -> 1.7 ms);
 * above it a pixel may move shift_max, 32 cells (the lit kernel at 1080p32, 12.5 -> 8 ms).
 */
#define RENDER_PREFETCH_ROWS 24

/* The splash row the kernels prefetch while drawing row y: below it, or above it at rotate
 * 180, whose frames are drawn from the bottom up (fetching behind cost 4K32 cell 1 60%). */
static inline const uint8_t *render_prefetch_row(const struct render *r, int y)
{
	long rows = r->cell > 1 ? r->shift_max : RENDER_PREFETCH_ROWS;
	long ahead = r->rotate == 180 ? (y > rows ? y - rows : 0)
				      : (y + rows < r->height ? y + rows : r->height - 1);

	return r->splash + (size_t)ahead * r->width * r->bytes;
}

/*
 * Above cell 1 the slope kernels fetch a second row too, this few on: gentle water (a
 * screensaver's rain) moves pixels a row or so, and a paced frame finds the splash out of the
 * cache, so a loud row's draw waited on the lines of the row below it, the next row's draw on
 * the one below that (1080p rain at 2/s, one thread: 0.87x the CPU with it; 4K 0.77x).
 */
#define RENDER_PREFETCH_NEAR 4

static inline const uint8_t *render_prefetch_near(const struct render *r, int y)
{
	int n = RENDER_PREFETCH_NEAR;
	long near = r->rotate == 180 ? (y > n ? y - n : 0)
				     : (y + n < r->height ? y + n : r->height - 1);

	return r->splash + (size_t)near * r->width * r->bytes;
}

/* A path's kernels per bytes per pixel - 2: cell 1 without light (the seeds' offsets straight
 * from the heights), slopes without light, slopes with light, and slopes with light for a
 * format whose colour fields are whole bytes (render_bytewise). NULL: the scalar one (in
 * lit_bytes: the path's own lit). */
struct render_kernels {
	render_row_fn *direct[3], *slope[3], *lit[3], *lit_bytes[3];
	render_slopes_fn *slopes;
	render_loud_fn *loud;
};

static inline int32_t render_slope_clamp(int32_t v)
{
	return v < -SLOPE_MAX ? -SLOPE_MAX : v > SLOPE_MAX ? SLOPE_MAX : v;
}

/* render_slopes_fn one cell at a time: the reference, and the vector paths' tail. */
static inline void render_slopes_scalar(int32_t *restrict gx, int32_t *restrict gy,
					const int16_t *p, const int16_t *q, int stride, int wa,
					int wb, int i, int hi)
{
	for (; i < hi; i++) {
		gx[i] = render_slope_clamp((p[i - 1] - p[i + 1]) * wa + (q[i - 1] - q[i + 1]) * wb);
		gy[i] = render_slope_clamp((p[i - stride] - p[i + stride]) * wa +
					   (q[i - stride] - q[i + stride]) * wb);
	}
}

static inline bool render_outside(int d, int lo, int hi)
{
	return d < -lo || d > hi;
}

/* render_loud_fn from cell i on, one cell at a time: the reference, and the vector paths'
 * tail. In ints: no difference of two heights overflows. */
static inline uint64_t render_loud_scalar(const int16_t *p, const int16_t *q, ptrdiff_t s,
					  int i, int n, int lo, int hi, int f)
{
	uint64_t bits = 0;

	for (; i < n; i++)
		if (render_outside(p[i - 1] - p[i + 1], lo, hi) ||
		    render_outside(p[i - s] - p[i + s], lo, hi) || (f >= 0 && abs(p[i] - q[i]) > f))
			bits |= 1ull << i;
	return bits;
}

/*
 * The grey level (0..255) shade s adds (s > 0) or takes from each channel: |s|, and on slopes
 * facing the light past the glint's start the glint, t * t * k / 65536 levels t shades past
 * it (render_set_light's k). In integers, so that a vector kernel may work it out and match
 * the shade table exactly; t * t * k stays below 2^31 for the k of any specular up to 4.
 */
#define RENDER_GLINT_START 24
static inline int render_grey(int s, int k)
{
	unsigned t = s > RENDER_GLINT_START ? (unsigned)(s - RENDER_GLINT_START) : 0;
	int grey = (s < 0 ? -s : s) + (int)(t * t * (unsigned)k >> 16);

	return grey < 255 ? grey : 255;
}

/* How a slope kernel lights its pixels: not at all, field by field whatever the format's
 * layout, or by saturating byte sums, where every colour field is a whole byte (the same
 * sums, a quarter of the work). */
enum render_shading { SHADE_NONE, SHADE_FIELDS, SHADE_BYTES };

/* Every colour field of fmt a whole byte on a byte boundary: XRGB8888, RGB888 and kin. */
static inline bool render_bytewise(const struct pixfmt *fmt)
{
	const struct pixfmt_field *f[3] = { &fmt->red, &fmt->green, &fmt->blue };

	for (int i = 0; i < 3; i++)
		if (f[i]->length != 8 || f[i]->offset % 8)
			return false;
	return true;
}

/* A row's slopes are read 8 cells at a time from any cell up to the last one's neighbour: the
 * slope arrays hold this many cells past the grid's width + 1 (never picked, only read). */
#define RENDER_SLOPE_SLACK 8

extern const struct render_kernels render_kernels_scalar;
extern const struct render_kernels render_kernels_sse2;	/* x86-64 only */
extern const struct render_kernels render_kernels_sse41;	/* x86-64 only */
extern const struct render_kernels render_kernels_avx2;	/* x86-64 only */
extern const struct render_kernels render_kernels_neon;	/* arm64 only */

/* The scalar kernel that draws the last pixels of a vector kernel's row, too few for a vector. */
static inline render_row_fn *render_row_tail(int bytes, enum render_shading shading)
{
	return (shading != SHADE_NONE ? render_kernels_scalar.lit
				      : render_kernels_scalar.slope)[bytes - 2];
}

/* A kernel the per-format wrappers below must take in whole. */
#define RENDER_INLINE static inline __attribute__((always_inline))

/*
 * render_slopes_fn in portable vectors compiled for each path's target: 8 cells at a time
 * where the path has 256-bit vectors (AVX2 widens and multiplies them in one instruction
 * each), else 4 (SSE2, which has no 32-bit multiply, lowers 8 worse than twice 4). mixed: wb
 * may be nonzero (else q is never read).
 */
typedef int16_t render_h8 __attribute__((vector_size(16)));
typedef int32_t render_w8 __attribute__((vector_size(32)));
typedef int16_t render_h4 __attribute__((vector_size(8)));
typedef int32_t render_w4 __attribute__((vector_size(16)));
#define RENDER_DIFF(p, d, H, W)                                                           \
	({                                                                                \
		H a_, b_;                                                                 \
		memcpy(&a_, (p) - (d), sizeof(a_));                                       \
		memcpy(&b_, (p) + (d), sizeof(b_));                                       \
		__builtin_convertvector(a_, W) - __builtin_convertvector(b_, W);          \
	})
#define RENDER_SLOPES_STEP(N, H, W)                                                       \
	for (; i + N <= hi; i += N) {                                                     \
		W x = RENDER_DIFF(p + i, 1, H, W) * wa, v = RENDER_DIFF(p + i, stride, H, W) * wa; \
		W xh, xl, vh, vl;                                                         \
                                                                                          \
		if (mixed) {                                                              \
			x += RENDER_DIFF(q + i, 1, H, W) * wb;                            \
			v += RENDER_DIFF(q + i, stride, H, W) * wb;                       \
		}                                                                         \
		xh = x > SLOPE_MAX, xl = x < -SLOPE_MAX, vh = v > SLOPE_MAX, vl = v < -SLOPE_MAX; \
		x = (x & ~(xh | xl)) | (xh & SLOPE_MAX) | (xl & -SLOPE_MAX);             \
		v = (v & ~(vh | vl)) | (vh & SLOPE_MAX) | (vl & -SLOPE_MAX);             \
		memcpy(gx + i, &x, sizeof(x));                                            \
		memcpy(gy + i, &v, sizeof(v));                                            \
	}
RENDER_INLINE void render_slopes_vector(int32_t *restrict gx, int32_t *restrict gy,
					const int16_t *p, const int16_t *q, int stride, int wa,
					int wb, int lo, int hi, bool mixed, bool wide)
{
	int i = lo;

	if (wide)
		RENDER_SLOPES_STEP(8, render_h8, render_w8)
	RENDER_SLOPES_STEP(4, render_h4, render_w4)
	render_slopes_scalar(gx, gy, p, q, stride, wa, wb, i, hi);
}

/* Paths with 256-bit vectors define this as 1 before RENDER_ROW_KERNELS. */
#ifndef RENDER_SLOPES_WIDE
#define RENDER_SLOPES_WIDE 0
#endif

/* A vector path's kernels from its direct(..., bytes) and slope(..., bytes, shading), each
 * compiled for the path's target (ATTR) so that bytes and shading are constants in it: a
 * kernel a wrapper cannot inline copies every pixel byte by byte. */
#define RENDER_ROW_KERNEL(name, ATTR, call)                                              \
	ATTR static void name(uint8_t *restrict dst, const struct render *r, int y,      \
			      const int16_t *h, int stride, int x0, int x1)              \
	{                                                                                \
		call;                                                                    \
	}
#define RENDER_ROW_KERNELS(kernels, ATTR)                                                \
	RENDER_ROW_KERNEL(direct_16, ATTR, direct(dst, r, y, h, stride, x0, x1, 2))      \
	RENDER_ROW_KERNEL(direct_24, ATTR, direct(dst, r, y, h, stride, x0, x1, 3))      \
	RENDER_ROW_KERNEL(direct_32, ATTR, direct(dst, r, y, h, stride, x0, x1, 4))      \
	RENDER_ROW_KERNEL(slope_16, ATTR,                                                \
			  slope(dst, r, y, h, stride, x0, x1, 2, SHADE_NONE))            \
	RENDER_ROW_KERNEL(slope_24, ATTR,                                                \
			  slope(dst, r, y, h, stride, x0, x1, 3, SHADE_NONE))            \
	RENDER_ROW_KERNEL(slope_32, ATTR,                                                \
			  slope(dst, r, y, h, stride, x0, x1, 4, SHADE_NONE))            \
	RENDER_ROW_KERNEL(lit_16, ATTR, slope(dst, r, y, h, stride, x0, x1, 2, SHADE_FIELDS)) \
	RENDER_ROW_KERNEL(lit_24, ATTR, slope(dst, r, y, h, stride, x0, x1, 3, SHADE_FIELDS)) \
	RENDER_ROW_KERNEL(lit_32, ATTR, slope(dst, r, y, h, stride, x0, x1, 4, SHADE_FIELDS)) \
	RENDER_ROW_KERNEL(lit_bytes_24, ATTR,                                            \
			  slope(dst, r, y, h, stride, x0, x1, 3, SHADE_BYTES))           \
	RENDER_ROW_KERNEL(lit_bytes_32, ATTR,                                            \
			  slope(dst, r, y, h, stride, x0, x1, 4, SHADE_BYTES))           \
	ATTR static void slopes(int32_t *restrict gx, int32_t *restrict gy, const int16_t *p, \
				const int16_t *q, int stride, int wa, int wb, int lo, int hi) \
	{                                                                                \
		if (wb)                                                                  \
			render_slopes_vector(gx, gy, p, q, stride, wa, wb, lo, hi, true,   \
					     RENDER_SLOPES_WIDE);                                \
		else                                                                     \
			render_slopes_vector(gx, gy, p, q, stride, wa, wb, lo, hi, false,  \
					     RENDER_SLOPES_WIDE);                                \
	}                                                                                \
	const struct render_kernels kernels = {                                          \
		{ direct_16, direct_24, direct_32 },                                     \
		{ slope_16, slope_24, slope_32 },                                        \
		{ lit_16, lit_24, lit_32 },                                              \
		{ NULL, lit_bytes_24, lit_bytes_32 },                                    \
		slopes,                                                                  \
		loud,                                                                    \
	};

#endif
