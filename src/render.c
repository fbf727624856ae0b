/* render.c - refraction: each pixel shows the splash displaced by the local height gradient. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

typedef struct {
	uint8_t b[3];
} pixel24;

static inline int clamp(int v, int hi)
{
	v = v < 0 ? 0 : v;
	return v > hi ? hi : v;
}

/*
 * The offset is the seeds' (left - right, up - down) in logical cells; the source is clamped to
 * the picture, so a steep wave near an edge repeats edge pixels instead of leaving stale ones.
 * The straight variants are the same loop with the steps known to the compiler (rotate 0).
 */
#define DEFINE_SPAN(name, type, HSTEP, DX, DY)                                                \
	static void name(uint8_t *restrict dst, const struct render *r,                       \
			 const struct render_span *s, int stride)                              \
	{                                                                                      \
		type *restrict out = (type *)dst;                                              \
		const type *restrict in = (const type *)r->splash;                             \
		const int16_t *h = s->h;                                                       \
		const int width = r->width, xmax = r->width - 1, ymax = r->height - 1;         \
		const int n = s->n, hstep = HSTEP, dx = DX, dy = DY;                           \
		int x = s->x, y = s->y;                                                        \
		for (int i = 0; i < n; i++, h += hstep, x += dx, y += dy) {                   \
			int sx = clamp(x + h[-1] - h[1], xmax);                                \
			int sy = clamp(y + h[-stride] - h[stride], ymax);                      \
			out[i] = in[(size_t)sy * width + sx];                                  \
		}                                                                              \
	}

DEFINE_SPAN(span_straight_16, uint16_t, 1, 1, 0)
DEFINE_SPAN(span_straight_24, pixel24, 1, 1, 0)
DEFINE_SPAN(span_straight_32, uint32_t, 1, 1, 0)
DEFINE_SPAN(span_rotated_16, uint16_t, s->hstep, s->dx, s->dy)
DEFINE_SPAN(span_rotated_24, pixel24, s->hstep, s->dx, s->dy)
DEFINE_SPAN(span_rotated_32, uint32_t, s->hstep, s->dx, s->dy)

static render_span_fn *pick_span(int bytes, int rotate)
{
	static render_span_fn *const straight[] = { span_straight_16, span_straight_24,
						    span_straight_32 };
	static render_span_fn *const rotated[] = { span_rotated_16, span_rotated_24,
						   span_rotated_32 };

	return (rotate ? rotated : straight)[bytes - 2];
}

static bool sideways(int rotate)
{
	return rotate == 90 || rotate == 270;
}

int render_init(struct render *r, int fb_width, int fb_height, int rotate,
		const struct pixfmt *fmt)
{
	memset(r, 0, sizeof(*r));
	if (rotate % 90 || rotate < 0 || rotate > 270)
		return -EINVAL;
	r->fb_width = fb_width;
	r->fb_height = fb_height;
	r->rotate = rotate;
	r->width = sideways(rotate) ? fb_height : fb_width;
	r->height = sideways(rotate) ? fb_width : fb_height;
	r->fmt = *fmt;
	r->bytes = fmt->bytes;
	r->span = pick_span(fmt->bytes, rotate);
	r->splash = calloc((size_t)fb_width * fb_height, fmt->bytes);
	r->plain = calloc((size_t)fb_width * fb_height, fmt->bytes);
	r->runs = calloc(r->height, sizeof(*r->runs));
	for (int i = 0; i < RENDER_PAGES; i++)
		r->shown[i] = calloc(r->height, 1);
	if (!r->splash || !r->plain || !r->runs || !r->shown[0] || !r->shown[1]) {
		render_free(r);
		return -ENOMEM;
	}
	return 0;
}

void render_free(struct render *r)
{
	free(r->splash);
	free(r->plain);
	free(r->runs);
	for (int i = 0; i < RENDER_PAGES; i++)
		free(r->shown[i]);
	memset(r, 0, sizeof(*r));
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

/* Groups the logical rows that need writing into runs; returns how many rows. */
static int plan(struct render *r, const struct water *w, int page, bool full, int *nruns)
{
	uint8_t *shown = r->shown[page];
	int rows = 0, n = 0;

	for (int y = 0; y < r->height; y++) {
		bool wet = w->live[y - 1] | w->live[y] | w->live[y + 1];
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
			struct render_span s = { water_row(w, y) + (flip ? r->width - 1 : 0),
						 flip ? -1 : 1, flip ? r->width - 1 : 0, y,
						 flip ? -1 : 1, 0, r->width };

			if (run->wet)
				r->span(out, r, &s, w->stride);
			else
				memcpy(out, r->plain + py * row_bytes, row_bytes);
		}
	}
}

/* rotate 90 and 270: a logical row is a physical column, so every physical row gets one span
 * per run, written left to right. */
static void draw_columns(const struct render *r, const struct water *w, uint8_t *dst,
			 size_t dst_stride, int nruns)
{
	size_t row_bytes = (size_t)r->fb_width * r->bytes;
	bool cw = r->rotate == 90;

	for (int py = 0; py < r->fb_height; py++, dst += dst_stride) {
		int x = cw ? py : r->width - 1 - py;

		for (int i = 0; i < nruns; i++) {
			const struct render_run *run = &r->runs[cw ? nruns - 1 - i : i];
			int px = cw ? r->fb_width - run->hi : run->lo, n = run->hi - run->lo;
			int y = cw ? run->hi - 1 : run->lo;
			struct render_span s = { water_row(w, y) + x, cw ? -w->stride : w->stride,
						 x, y, 0, cw ? -1 : 1, n };

			if (run->wet)
				r->span(dst + (size_t)px * r->bytes, r, &s, w->stride);
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
