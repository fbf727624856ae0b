/* render.c - refraction: each pixel shows the splash displaced by the local height gradient. */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

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

/* Slopes in 1/RENDER_WEIGHT height units are kept within this: a steeper one already moves
 * every pixel off any screen, and the products below stay inside 32 bits. */
#define SLOPE_MAX (8192 * RENDER_WEIGHT)
#define SHADE_SHIFT (RENDER_WEIGHT_BITS + 8)	/* light_x/y carry 8 fraction bits */
#define MOVE_SHIFT (RENDER_WEIGHT_BITS + 8)	/* and so does shift_mul */
#define MOVE_HALF (1 << (MOVE_SHIFT - 1))

/*
 * Each pixel interpolates the slopes prepared for its line (the seeds' left - right and
 * up - down, mixed from the cells around it), is displaced by slope x cell / scale pixels (the
 * seeds' offset, grown with the cell so the look does not depend on the resolution), clamped
 * to the picture, and, with light, brightened or darkened by the slope towards the light.
 * COLUMN: the line is a logical column (rotate 90 and 270). At cell 1 the displacement is
 * exactly the seeds' offset.
 */
#define DEFINE_SPAN(name, type, sfx, COLUMN, TSTEP, LIGHT)                                     \
	static void name(uint8_t *restrict dst, const struct render *r,                       \
			 const struct render_span *s)                                          \
	{                                                                                      \
		type *restrict out = (type *)dst;                                              \
		const type *restrict in = (const type *)r->splash;                             \
		const struct render_axis *a = COLUMN ? &r->ay : &r->ax;                        \
		const int32_t *restrict gxs = r->slope_x, *restrict gys = r->slope_y;          \
		const int32_t *restrict cs = a->c;                                             \
		const uint8_t *restrict ws = a->w;                                             \
		const int width = r->width, xmax = r->width - 1, ymax = r->height - 1;         \
		const int lx = r->light_x, ly = r->light_y, mul = r->shift_mul;                \
		const int dmax = r->shift_max, shade_shift = r->shade_shift;                   \
		const int shade_half = 1 << (shade_shift - 1);                                 \
		const uint32_t f0 = r->field[0], f1 = r->field[1], f2 = r->field[2];           \
		const uint32_t colour = f0 | f1 | f2;                                          \
		const uint32_t *shades = r->shade + RENDER_SHADES;                             \
		const int n = s->n, tstep = TSTEP;                                             \
		int t = s->t;                                                                  \
		(void)lx, (void)ly, (void)f0, (void)f1, (void)f2, (void)colour, (void)shades;  \
		(void)shade_shift, (void)shade_half;                                           \
		for (int i = 0; i < n; i++, t += tstep) {                                      \
			int c = cs[t], w = ws[t];                                              \
			int gx = (gxs[c] * (RENDER_WEIGHT - w) + gxs[c + 1] * w) >>            \
				 RENDER_WEIGHT_BITS;                                           \
			int gy = (gys[c] * (RENDER_WEIGHT - w) + gys[c + 1] * w) >>            \
				 RENDER_WEIGHT_BITS;                                           \
			int x = COLUMN ? s->x : t, y = COLUMN ? t : s->y;                      \
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
			put##sfx(&out[i], v);                                                  \
		}                                                                              \
	}

#define DEFINE_SPANS(kind, COLUMN, TSTEP)                                                      \
	DEFINE_SPAN(span_##kind##_16, uint16_t, 16, COLUMN, TSTEP, 0)                          \
	DEFINE_SPAN(span_##kind##_24, pixel24, 24, COLUMN, TSTEP, 0)                           \
	DEFINE_SPAN(span_##kind##_32, uint32_t, 32, COLUMN, TSTEP, 0)                          \
	DEFINE_SPAN(span_##kind##_lit_16, uint16_t, 16, COLUMN, TSTEP, 1)                      \
	DEFINE_SPAN(span_##kind##_lit_24, pixel24, 24, COLUMN, TSTEP, 1)                       \
	DEFINE_SPAN(span_##kind##_lit_32, uint32_t, 32, COLUMN, TSTEP, 1)

/* straight: rotate 0, the steps known to the compiler; row: rotate 180; column: 90 and 270 */
DEFINE_SPANS(straight, 0, 1)
DEFINE_SPANS(row, 0, s->tstep)
DEFINE_SPANS(column, 1, s->tstep)

/*
 * Cell 1 without light needs no slopes: the seeds' own offset (left - right, up - down) read
 * straight from the heights, as the seeds do, and the yardstick's speed kept.
 */
#define DEFINE_DIRECT(name, type, HSTEP, COLUMN)                                                \
	static void name(uint8_t *restrict dst, const struct render *r,                       \
			 const struct render_span *s)                                          \
	{                                                                                      \
		type *restrict out = (type *)dst;                                              \
		const type *restrict in = (const type *)r->splash;                             \
		const int16_t *h = s->h;                                                       \
		const int width = r->width, xmax = r->width - 1, ymax = r->height - 1;         \
		const int n = s->n, hstep = HSTEP, stride = s->stride;                         \
		const int dx = COLUMN ? 0 : s->tstep, dy = COLUMN ? s->tstep : 0;              \
		int x = s->x, y = s->y;                                                        \
		for (int i = 0; i < n; i++, h += hstep, x += dx, y += dy) {                   \
			int sx = clamp(x + h[-1] - h[1], xmax);                                \
			int sy = clamp(y + h[-stride] - h[stride], ymax);                      \
			out[i] = in[(size_t)sy * width + sx];                                  \
		}                                                                              \
	}

DEFINE_DIRECT(direct_straight_16, uint16_t, 1, 0)
DEFINE_DIRECT(direct_straight_24, pixel24, 1, 0)
DEFINE_DIRECT(direct_straight_32, uint32_t, 1, 0)
DEFINE_DIRECT(direct_row_16, uint16_t, s->hstep, 0)
DEFINE_DIRECT(direct_row_24, pixel24, s->hstep, 0)
DEFINE_DIRECT(direct_row_32, uint32_t, s->hstep, 0)
DEFINE_DIRECT(direct_column_16, uint16_t, s->hstep, 1)
DEFINE_DIRECT(direct_column_24, pixel24, s->hstep, 1)
DEFINE_DIRECT(direct_column_32, uint32_t, s->hstep, 1)

static render_span_fn *pick_span(int bytes, int rotate, bool light, bool direct)
{
	static render_span_fn *const spans[3][3][3] = {
		{ { span_straight_16, span_straight_24, span_straight_32 },
		  { span_straight_lit_16, span_straight_lit_24, span_straight_lit_32 },
		  { direct_straight_16, direct_straight_24, direct_straight_32 } },
		{ { span_row_16, span_row_24, span_row_32 },
		  { span_row_lit_16, span_row_lit_24, span_row_lit_32 },
		  { direct_row_16, direct_row_24, direct_row_32 } },
		{ { span_column_16, span_column_24, span_column_32 },
		  { span_column_lit_16, span_column_lit_24, span_column_lit_32 },
		  { direct_column_16, direct_column_24, direct_column_32 } },
	};
	int kind = rotate == 0 ? 0 : rotate == 180 ? 1 : 2;

	return spans[kind][direct ? 2 : light][bytes - 2];
}

static bool sideways(int rotate)
{
	return rotate == 90 || rotate == 270;
}

/* Pixel p of n along an axis sits at (p + 0.5) / cell - 0.5 cells, between cells c and c + 1
 * (clamped to the grid's g cells at both ends). */
static int axis_init(struct render_axis *a, int n, int cell, int g)
{
	a->c = calloc((size_t)n, sizeof(*a->c));
	a->w = calloc((size_t)n, sizeof(*a->w));
	if (!a->c || !a->w)
		return -ENOMEM;
	for (int p = 0; p < n; p++) {
		int u = (2 * p + 1 - cell) * RENDER_WEIGHT;
		int pos = u < 0 ? 0 : u / (2 * cell);	/* in 1/RENDER_WEIGHT cells */
		int c = pos >> RENDER_WEIGHT_BITS;

		a->c[p] = c < g - 1 ? c : g - 1;
		a->w[p] = c < g - 1 ? (uint8_t)(pos & (RENDER_WEIGHT - 1)) : 0;
	}
	return 0;
}

static void axis_free(struct render_axis *a)
{
	free(a->c);
	free(a->w);
}

int render_init(struct render *r, int fb_width, int fb_height, int rotate, int cell,
		const struct pixfmt *fmt)
{
	int longest;

	memset(r, 0, sizeof(*r));
	if (rotate % 90 || rotate < 0 || rotate > 270 || cell < 1)
		return -EINVAL;
	r->fb_width = fb_width;
	r->fb_height = fb_height;
	r->rotate = rotate;
	r->width = sideways(rotate) ? fb_height : fb_width;
	r->height = sideways(rotate) ? fb_width : fb_height;
	r->fmt = *fmt;
	r->bytes = fmt->bytes;
	r->cell = cell;
	r->scale = water_scale(cell);
	r->shift_mul = cell * 256 / r->scale;
	/* A steeper slope than a few dozen cells' worth shows only noise, and the far pixels it
	 * fetches miss every cache: above cell 1 the picture moves at most 32 cells. */
	r->shift_max = cell > 1 ? 32 * cell : INT32_MAX / 2;
	r->grid_width = (r->width + cell - 1) / cell;
	r->grid_height = (r->height + cell - 1) / cell;
	r->field[0] = (uint32_t)((1ull << fmt->red.length) - 1) << fmt->red.offset;
	r->field[1] = (uint32_t)((1ull << fmt->green.length) - 1) << fmt->green.offset;
	r->field[2] = (uint32_t)((1ull << fmt->blue.length) - 1) << fmt->blue.offset;
	longest = r->grid_width > r->grid_height ? r->grid_width : r->grid_height;
	r->slope_x = calloc((size_t)longest + 1, sizeof(*r->slope_x));
	r->slope_y = calloc((size_t)longest + 1, sizeof(*r->slope_y));
	r->shade = calloc(2 * RENDER_SHADES + 1, sizeof(*r->shade));
	r->splash = calloc((size_t)fb_width * fb_height, fmt->bytes);
	r->plain = calloc((size_t)fb_width * fb_height, fmt->bytes);
	r->runs = calloc(r->height, sizeof(*r->runs));
	for (int i = 0; i < RENDER_PAGES; i++)
		r->shown[i] = calloc(r->height, 1);
	if (!r->slope_x || !r->slope_y || !r->shade || !r->splash || !r->plain || !r->runs ||
	    !r->shown[0] || !r->shown[1] ||
	    axis_init(&r->ax, r->width, cell, r->grid_width) < 0 ||
	    axis_init(&r->ay, r->height, cell, r->grid_height) < 0) {
		render_free(r);
		return -ENOMEM;
	}
	render_set_light(r, &(struct render_light){ 0 });
	return 0;
}

void render_free(struct render *r)
{
	axis_free(&r->ax);
	axis_free(&r->ay);
	free(r->slope_x);
	free(r->slope_y);
	free(r->shade);
	free(r->splash);
	free(r->plain);
	free(r->runs);
	free(r->tint);
	for (int i = 0; i < RENDER_PAGES; i++)
		free(r->shown[i]);
	memset(r, 0, sizeof(*r));
}

/* v (0..255 of a channel) in every colour field of the format. */
static uint32_t pack_grey(const struct pixfmt *fmt, int v)
{
	const struct pixfmt_field *f[3] = { &fmt->red, &fmt->green, &fmt->blue };
	uint32_t p = 0;

	for (int i = 0; i < 3; i++) {
		uint32_t max = (uint32_t)((1ull << f[i]->length) - 1);

		p |= (uint32_t)(((uint64_t)v * max + 127) / 255) << f[i]->offset;
	}
	return p;
}

/* The glint: nothing on gentle slopes, rising steeply to white on the ones facing the light. */
static int glint(double specular, int s)
{
	double t = (s - 24) / 72.0;

	return t <= 0 ? 0 : (int)fmin(255, specular * 255 * t * t);
}

void render_set_light(struct render *r, const struct render_light *l)
{
	double rad = l->direction * M_PI / 180, k = l->strength * M_SQRT1_2 * 256;
	bool light;

	/* seed 003: shading = (xoffset - yoffset) / 2 is strength 1 with the light at 45 degrees;
	 * the water's finer heights (r->scale, 1 or 16) divide it by a shift, not in light_x/y,
	 * which keep their 8 fraction bits whatever the cell */
	r->light_x = (int)lround(k * sin(rad));
	r->light_y = (int)lround(-k * cos(rad));
	r->shade_shift = SHADE_SHIFT + (r->scale > 1 ? 4 : 0);
	light = r->light_x || r->light_y;	/* glints grow from the shade: no light, none */
	for (int s = -RENDER_SHADES; s <= RENDER_SHADES; s++) {
		int add = s > 0 ? s + glint(l->specular, s) : -s;

		r->shade[RENDER_SHADES + s] = pack_grey(&r->fmt, add > 255 ? 255 : add);
	}
	r->direct = r->cell == 1 && !light;
	r->span = pick_span(r->bytes, r->rotate, light, r->direct);
}

/* The logical pixel that physical (px, py) shows. */
static void logical_of(const struct render *r, int px, int py, int *lx, int *ly)
{
	switch (r->rotate) {
	case 90:
		*lx = py;
		*ly = r->fb_width - 1 - px;
		break;
	case 180:
		*lx = r->fb_width - 1 - px;
		*ly = r->fb_height - 1 - py;
		break;
	case 270:
		*lx = r->fb_height - 1 - py;
		*ly = px;
		break;
	default:
		*lx = px;
		*ly = py;
	}
}

void render_copy_picture(struct render *dst, const struct render *src)
{
	size_t bytes = (size_t)src->fb_width * src->fb_height * src->bytes;

	assert(dst->fb_width == src->fb_width && dst->fb_height == src->fb_height &&
	       dst->rotate == src->rotate && dst->bytes == src->bytes);
	memcpy(dst->splash, src->splash, bytes);
	memcpy(dst->plain, src->plain, bytes);
}

int render_set_splash(struct render *r, const struct image *img)
{
	size_t row = (size_t)r->fb_width * r->bytes;

	if (img->width != r->width || img->height != r->height)
		return -EINVAL;
	pixfmt_convert(&r->fmt, img, r->splash, (size_t)r->width * r->bytes);
	for (int py = 0; py < r->fb_height; py++)
		for (int px = 0; px < r->fb_width; px++) {
			int lx, ly;

			logical_of(r, px, py, &lx, &ly);
			memcpy(r->plain + py * row + (size_t)px * r->bytes,
			       r->splash + ((size_t)ly * r->width + lx) * r->bytes, r->bytes);
		}
	return 0;
}

/* Whether logical row y shows water: a cell row it mixes, or a neighbour of one, may be wet. */
static bool row_wet(const struct render *r, const struct water *w, int y)
{
	int a = r->ay.c[y], b = a + (r->ay.w[y] != 0);

	return w->live[a - 1] | w->live[a] | w->live[b] | w->live[b + 1];
}

/* Groups the logical rows that need writing into runs; returns how many rows. */
static int plan(struct render *r, const struct water *w, int page, bool full, int *nruns)
{
	uint8_t *shown = r->shown[page];
	int rows = 0, n = 0;

	for (int y = 0; y < r->height; y++) {
		bool wet = row_wet(r, w, y);
		bool restore = !wet && (full || shown[y]);

		shown[y] = wet;
		if (!wet && !restore)
			continue;
		rows++;
		if (n && r->runs[n - 1].hi == y && r->runs[n - 1].wet == wet)
			r->runs[n - 1].hi++;
		else
			r->runs[n++] = (struct render_run){ y, y + 1, wet };
	}
	*nruns = n;
	return rows;
}

static inline int32_t slope_clamp(int32_t v)
{
	return v < -SLOPE_MAX ? -SLOPE_MAX : v > SLOPE_MAX ? SLOPE_MAX : v;
}

/* The slopes along logical row y, per cell: cell rows a and a + 1 mixed by the row's weight. */
static void slopes_of_row(const struct render *r, const struct water *w, int y)
{
	int wb = r->ay.w[y], wa = RENDER_WEIGHT - wb, stride = w->stride;
	const int16_t *p = water_row(w, r->ay.c[y]), *q = p + (wb ? stride : 0);
	int32_t *restrict gx = r->slope_x, *restrict gy = r->slope_y;

	for (int i = 0; i < r->grid_width; i++) {
		gx[i] = slope_clamp((p[i - 1] - p[i + 1]) * wa + (q[i - 1] - q[i + 1]) * wb);
		gy[i] = slope_clamp((p[i - stride] - p[i + stride]) * wa +
				    (q[i - stride] - q[i + stride]) * wb);
	}
	gx[r->grid_width] = gy[r->grid_width] = 0;
}

/* The slopes down logical column x, per cell: cell columns a and a + 1 mixed. */
static void slopes_of_column(const struct render *r, const struct water *w, int x)
{
	int wb = r->ax.w[x], wa = RENDER_WEIGHT - wb, stride = w->stride, b = wb ? 1 : 0;
	const int16_t *p = water_row(w, 0) + r->ax.c[x];
	int32_t *restrict gx = r->slope_x, *restrict gy = r->slope_y;

	for (int j = 0; j < r->grid_height; j++, p += stride) {
		const int16_t *q = p + b;

		gx[j] = slope_clamp((p[-1] - p[1]) * wa + (q[-1] - q[1]) * wb);
		gy[j] = slope_clamp((p[-stride] - p[stride]) * wa + (q[-stride] - q[stride]) * wb);
	}
	gx[r->grid_height] = gy[r->grid_height] = 0;
}

/* One span of wet water; with a tint, drawn aside first: framebuffer memory is never read. */
static void draw_span(const struct render *r, const struct water *w, uint8_t *out,
		      const struct render_span *s)
{
	if (r->tint)
		render_tint_draw(out, r, w, s);
	else
		r->span(out, r, s);
}

/* rotate 0 and 180: a logical row is a physical row, upside down and mirrored for 180. */
static void draw_rows(const struct render *r, const struct water *w, uint8_t *dst,
		      size_t dst_stride, int nruns)
{
	size_t row_bytes = (size_t)r->fb_width * r->bytes;
	bool flip = r->rotate == 180;

	for (int i = 0; i < nruns; i++) {
		const struct render_run *run = &r->runs[flip ? nruns - 1 - i : i];

		for (int k = run->lo; k < run->hi; k++) {
			int y = flip ? run->hi - 1 - (k - run->lo) : k;
			int py = flip ? r->height - 1 - y : y;
			uint8_t *out = dst + py * dst_stride;
			struct render_span s = { flip ? r->width - 1 : 0, y,
						 flip ? r->width - 1 : 0, flip ? -1 : 1, r->width,
						 water_row(w, y) + (flip ? r->width - 1 : 0),
						 flip ? -1 : 1, w->stride };

			if (run->wet) {
				if (!r->direct)
					slopes_of_row(r, w, y);
				draw_span(r, w, out, &s);
			} else {
				memcpy(out, r->plain + py * row_bytes, row_bytes);
			}
		}
	}
}

/* rotate 90 and 270: a logical row is a physical column, so every physical row gets one span
 * per run, written left to right. */
static void draw_columns(const struct render *r, const struct water *w, uint8_t *dst,
			 size_t dst_stride, int nruns)
{
	size_t row_bytes = (size_t)r->fb_width * r->bytes;
	bool cw = r->rotate == 90, any_wet = false;

	for (int i = 0; i < nruns; i++)
		any_wet |= r->runs[i].wet;
	for (int py = 0; py < r->fb_height; py++, dst += dst_stride) {
		int x = cw ? py : r->width - 1 - py;

		if (any_wet && !r->direct)
			slopes_of_column(r, w, x);
		for (int i = 0; i < nruns; i++) {
			const struct render_run *run = &r->runs[cw ? nruns - 1 - i : i];
			int px = cw ? r->fb_width - run->hi : run->lo, n = run->hi - run->lo;
			int y = cw ? run->hi - 1 : run->lo;
			struct render_span s = { x, y, y, cw ? -1 : 1, n, water_row(w, y) + x,
						 cw ? -w->stride : w->stride, w->stride };

			if (run->wet)
				draw_span(r, w, dst + (size_t)px * r->bytes, &s);
			else
				memcpy(dst + (size_t)px * r->bytes,
				       r->plain + py * row_bytes + (size_t)px * r->bytes,
				       (size_t)n * r->bytes);
		}
	}
}

int render_frame(struct render *r, const struct water *w, uint8_t *dst, size_t dst_stride,
		 int page, bool full)
{
	int nruns, rows = plan(r, w, page, full, &nruns);

	if (sideways(r->rotate))
		draw_columns(r, w, dst, dst_stride, nruns);
	else
		draw_rows(r, w, dst, dst_stride, nruns);
	return rows;
}
