/* render.c - refraction into the framebuffer: which rows to draw, in strips and rotated bands;
 * the pixels themselves come from the row kernels (render_row*.c). */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "render_row.h"

/* Rotated 90 or 270, frames draw logical rows until they make this many bytes of each
 * physical row, then turn them onto the screen: a band of physical columns. */
#define BAND_BYTES 512
/* Strips of columns (render_frame) are this many times the farthest move wide. */
#define STRIP_PER_SHIFT 4
/* Frames with fewer rows to write than this are drawn on the caller's thread alone. */
#define POOL_ROWS 16

/* The kernel of the renderer's path for its format and look. */
static void pick_row(struct render *r, bool light)
{
	static const struct render_kernels *const paths[RENDER_PATHS] = {
#if defined(__x86_64__)
		[RENDER_SSE2] = &render_kernels_sse2,
		[RENDER_AVX2] = &render_kernels_avx2,
#endif
#if defined(__aarch64__)
		[RENDER_NEON] = &render_kernels_neon,
#endif
		[RENDER_SCALAR] = &render_kernels_scalar,
	};
	const struct render_kernels *k = paths[r->path] ? paths[r->path] : paths[RENDER_SCALAR];
	render_row_fn *const *set = r->direct ? k->direct : light ? k->lit : k->slope;
	render_row_fn *const *scalar = r->direct ? render_kernels_scalar.direct
				     : light ? render_kernels_scalar.lit : render_kernels_scalar.slope;

	r->row = set[r->bytes - 2] ? set[r->bytes - 2] : scalar[r->bytes - 2];
}

int render_set_path(struct render *r, enum render_path path)
{
	if (!render_path_available(path))
		return -ENOTSUP;
	r->path = path;
	pick_row(r, r->light_x || r->light_y);
	return 0;
}

static bool sideways(int rotate)
{
	return rotate == 90 || rotate == 270;
}

static int band_rows(const struct render *r)
{
	return BAND_BYTES / r->bytes;
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
	r->bands = 1;
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
	r->slope_x = calloc((size_t)longest + 1 + RENDER_SLOPE_SLACK, sizeof(*r->slope_x));
	r->slope_y = calloc((size_t)longest + 1 + RENDER_SLOPE_SLACK, sizeof(*r->slope_y));
	r->shade = calloc(2 * RENDER_SHADES + 1, sizeof(*r->shade));
	r->splash = calloc((size_t)fb_width * fb_height * fmt->bytes + RENDER_SPLASH_SLACK, 1);
	r->runs = calloc(r->height, sizeof(*r->runs));
	for (int i = 0; i < RENDER_PAGES; i++)
		r->shown[i] = calloc(r->height, 1);
	if (!r->slope_x || !r->slope_y || !r->shade || !r->splash || !r->runs ||
	    !r->shown[0] || !r->shown[1] ||
	    axis_init(&r->ax, r->width, cell, r->grid_width) < 0 ||
	    axis_init(&r->ay, r->height, cell, r->grid_height) < 0) {
		render_free(r);
		return -ENOMEM;
	}
	if (rotate) {	/* 180: one row to mirror; 90 and 270: a band to turn */
		r->band = malloc((size_t)r->width * fmt->bytes * (rotate == 180 ? 1 : band_rows(r)));
		if (!r->band) {
			render_free(r);
			return -ENOMEM;
		}
	}
	r->path = render_path_default();
	render_set_light(r, &(struct render_light){ 0 });
	return 0;
}

static void scratch_free(struct render *r)
{
	for (int i = 0; i < r->bands && r->scratch; i++) {
		free(r->scratch[i].slope_x);
		free(r->scratch[i].slope_y);
		free(r->scratch[i].band);
		free(r->scratch[i].aside);
		free(r->scratch[i].runs);
	}
	free(r->scratch);
	r->scratch = NULL;
	r->bands = 1;
}

/* Band 0 draws with the renderer's own scratch and needs only runs; the others a copy of it. */
static int scratch_init(struct render_scratch *s, const struct render *r, bool first)
{
	int longest = r->grid_width > r->grid_height ? r->grid_width : r->grid_height;
	size_t row = (size_t)r->width * r->bytes;

	s->runs = calloc(r->height, sizeof(*s->runs));
	if (!s->runs)
		return -ENOMEM;
	if (first)
		return 0;
	s->slope_x = calloc((size_t)longest + 1 + RENDER_SLOPE_SLACK, sizeof(*s->slope_x));
	s->slope_y = calloc((size_t)longest + 1 + RENDER_SLOPE_SLACK, sizeof(*s->slope_y));
	s->aside = malloc(row);
	if (r->rotate)
		s->band = malloc(row * (r->rotate == 180 ? 1 : band_rows(r)));
	return s->slope_x && s->slope_y && s->aside && (!r->rotate || s->band) ? 0 : -ENOMEM;
}

int render_set_bands(struct render *r, int bands)
{
	scratch_free(r);
	if (bands <= 1)
		return 0;
	r->scratch = calloc((size_t)bands, sizeof(*r->scratch));
	if (!r->scratch)
		return -ENOMEM;
	r->bands = bands;
	for (int i = 0; i < bands; i++)
		if (scratch_init(&r->scratch[i], r, i == 0) < 0) {
			scratch_free(r);
			return -ENOMEM;
		}
	return 0;
}

void render_free(struct render *r)
{
	scratch_free(r);
	axis_free(&r->ax);
	axis_free(&r->ay);
	free(r->slope_x);
	free(r->slope_y);
	free(r->shade);
	free(r->splash);
	free(r->tint);
	free(r->runs);
	free(r->band);
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
	pick_row(r, light);
}

void render_copy_picture(struct render *dst, const struct render *src)
{
	size_t bytes = (size_t)src->fb_width * src->fb_height * src->bytes;

	assert(dst->fb_width == src->fb_width && dst->fb_height == src->fb_height &&
	       dst->rotate == src->rotate && dst->bytes == src->bytes);
	memcpy(dst->splash, src->splash, bytes);
}

int render_set_splash(struct render *r, const struct image *img)
{
	if (img->width != r->width || img->height != r->height)
		return -EINVAL;
	pixfmt_convert(&r->fmt, img, r->splash, (size_t)r->width * r->bytes);
	return 0;
}

int render_take_splash(struct render *r, struct image *img)
{
	size_t bytes = (size_t)r->width * r->height * r->bytes + RENDER_SPLASH_SLACK;
	uint8_t *splash;

	if (img->width != r->width || img->height != r->height)
		return -EINVAL;
	/* 32 bpp grows by the gathers' slack first; short of memory, the picture is copied */
	if (bytes > (size_t)img->width * img->height * sizeof(*img->pixels)) {
		uint32_t *grown = realloc(img->pixels, bytes);

		if (!grown)
			return render_set_splash(r, img);
		img->pixels = grown;
	}
	pixfmt_convert(&r->fmt, img, img->pixels, (size_t)r->width * r->bytes);
	splash = realloc(img->pixels, bytes);	/* 16 and 24 bpp give back the tail */
	free(r->splash);
	r->splash = splash ? splash : (uint8_t *)img->pixels;
	img->pixels = NULL;
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

typedef int16_t vec4x16s __attribute__((vector_size(8)));
typedef int32_t vec4x32s __attribute__((vector_size(16)));

/* p[i - d] - p[i + d] of 4 cells from i, widened. */
static inline vec4x32s diff4(const int16_t *p, ptrdiff_t d)
{
	vec4x16s a, b;

	memcpy(&a, p - d, sizeof(a));
	memcpy(&b, p + d, sizeof(b));
	return __builtin_convertvector(a, vec4x32s) - __builtin_convertvector(b, vec4x32s);
}

static inline vec4x32s slope_clamp4(vec4x32s v)
{
	vec4x32s hi = v > SLOPE_MAX, lo = v < -SLOPE_MAX;

	return (v & ~(hi | lo)) | (hi & SLOPE_MAX) | (lo & -SLOPE_MAX);
}

/* The slopes along logical row y of cells [lo, hi): cell rows a and a + 1 mixed by the row's
 * weight. The vector paths take 4 cells at a time in portable vectors (SSE2, NEON), and a
 * row on a cell row mixes one; the scalar path keeps the reference they are tested against. */
static void slopes_of_row(const struct render *r, const struct water *w, int y, int lo, int hi)
{
	int wb = r->ay.w[y], wa = RENDER_WEIGHT - wb, stride = w->stride, i = lo;
	const int16_t *p = water_row(w, r->ay.c[y]), *q = p + (wb ? stride : 0);
	int32_t *restrict gx = r->slope_x, *restrict gy = r->slope_y;

	hi = hi < r->grid_width ? hi : r->grid_width;
	for (; r->path != RENDER_SCALAR && i + 4 <= hi; i += 4) {
		vec4x32s x = diff4(p + i, 1) * wa, v = diff4(p + i, stride) * wa;

		if (wb) {
			x += diff4(q + i, 1) * wb;
			v += diff4(q + i, stride) * wb;
		}
		x = slope_clamp4(x);
		v = slope_clamp4(v);
		memcpy(gx + i, &x, sizeof(x));
		memcpy(gy + i, &v, sizeof(v));
	}
	for (; i < hi; i++) {
		gx[i] = slope_clamp((p[i - 1] - p[i + 1]) * wa + (q[i - 1] - q[i + 1]) * wb);
		gy[i] = slope_clamp((p[i - stride] - p[i + stride]) * wa +
				    (q[i - stride] - q[i + stride]) * wb);
	}
	gx[r->grid_width] = gy[r->grid_width] = 0;
}

/*
 * Pixels per strip: the frame is drawn in strips of columns, each from top to bottom, so that
 * the splash rows a strip's pixels may be moved to (up to shift_max away) stay in the cache
 * from one row to the next. Cell 1 moves without a bound, and a short way in busy water:
 * no strips there.
 */
static int strip_width(const struct render *r)
{
	return r->cell == 1 ? r->width : r->shift_max * STRIP_PER_SHIFT;
}

/* Logical row y, pixels [x0, x1), into out (where the row's pixel 0 goes): the refracted
 * splash where the water is wet, the splash itself where it has calmed. */
static void draw_span(const struct render *r, const struct water *w, uint8_t *out, int y,
		      int x0, int x1, bool wet)
{
	size_t at = (size_t)x0 * r->bytes;

	if (!wet) {
		memcpy(out + at, r->splash + (size_t)y * r->width * r->bytes + at,
		       (size_t)(x1 - x0) * r->bytes);
		return;
	}
	if (!r->direct)
		slopes_of_row(r, w, y, r->ax.c[x0], r->ax.c[x1 - 1] + 2);
	if (!r->tint) {
		r->row(out, r, y, water_row(w, y), w->stride, x0, x1);
		return;
	}
	/* drawn aside and tinted there: framebuffer memory is never read */
	uint8_t *aside = r->aside ? r->aside : render_tint_row(r);

	r->row(aside, r, y, water_row(w, y), w->stride, x0, x1);
	render_tint(aside, r, w, y, x0, x1);
	memcpy(out + at, aside + at, (size_t)(x1 - x0) * r->bytes);
}

typedef uint32_t vec4x32 __attribute__((vector_size(16)));
typedef uint16_t vec8x16 __attribute__((vector_size(16)));
typedef uint64_t vec2x64 __attribute__((vector_size(16)));

/* Pixels reversed, the last of src first: 16 bytes at a time where the pixels divide them. */
static void mirror(uint8_t *restrict dst, const uint8_t *restrict src, int n, int bytes)
{
	int i = 0;

	src += (size_t)n * bytes;
	if (bytes == 4) {
		for (; i + 4 <= n; i += 4) {
			vec4x32 v;

			memcpy(&v, src - 4 * (i + 4), 16);
			v = __builtin_shufflevector(v, v, 3, 2, 1, 0);
			memcpy(dst + 4 * i, &v, 16);
		}
	} else if (bytes == 2) {
		for (; i + 8 <= n; i += 8) {
			vec8x16 v;

			memcpy(&v, src - 2 * (i + 8), 16);
			v = __builtin_shufflevector(v, v, 7, 6, 5, 4, 3, 2, 1, 0);
			memcpy(dst + 2 * i, &v, 16);
		}
	}
	for (; i < n; i++)
		memcpy(dst + (size_t)i * bytes, src - (size_t)(i + 1) * bytes, bytes);
}

/* rotate 0 and 180: a logical row is a physical row, upside down and mirrored for 180. */
static void draw_rows(struct render *r, const struct water *w, uint8_t *dst, size_t dst_stride,
		      const struct render_run *runs, int nruns, int x0, int x1)
{
	bool flip = r->rotate == 180;

	for (int i = 0; i < nruns; i++) {
		const struct render_run *run = &runs[flip ? nruns - 1 - i : i];

		for (int k = run->lo; k < run->hi; k++) {
			int y = flip ? run->hi - 1 - (k - run->lo) : k;
			uint8_t *out = dst + (size_t)(flip ? r->height - 1 - y : y) * dst_stride;

			if (!flip) {
				draw_span(r, w, out, y, x0, x1, run->wet);
				continue;
			}
			draw_span(r, w, r->band, y, x0, x1, run->wet);
			mirror(out + (size_t)(r->width - x1) * r->bytes,
			       r->band + (size_t)x0 * r->bytes, x1 - x0, r->bytes);
		}
	}
}

/*
 * Turning n logical rows (band, width pixels each, [x0, x1) of them drawn) onto physical
 * columns: logical pixel x of band row k goes to physical row x (90) or width - 1 - x (270),
 * column first + n - 1 - k (90) or first + k (270). Each physical row takes n pixels in a
 * line. Here pixels [x0, x1) of band rows [k0, k1), one by one.
 */
static void turn_pixels(uint8_t *dst, size_t dst_stride, const uint8_t *band, int width, int n,
			int first, bool cw, int x0, int x1, int k0, int k1, int bytes)
{
	for (int x = x0; x < x1; x++) {
		uint8_t *out = dst + (size_t)(cw ? x : width - 1 - x) * dst_stride;

		for (int k = k0; k < k1; k++)
			memcpy(out + (size_t)(first + (cw ? n - 1 - k : k)) * bytes,
			       band + ((size_t)k * width + x) * bytes, bytes);
	}
}

/* v[i] becomes lane i of each of v[0..3]. */
static inline void transpose_4x32(vec4x32 v[4])
{
	vec4x32 t0 = __builtin_shufflevector(v[0], v[1], 0, 4, 1, 5);
	vec4x32 t1 = __builtin_shufflevector(v[0], v[1], 2, 6, 3, 7);
	vec4x32 t2 = __builtin_shufflevector(v[2], v[3], 0, 4, 1, 5);
	vec4x32 t3 = __builtin_shufflevector(v[2], v[3], 2, 6, 3, 7);

	v[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
	v[1] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
	v[2] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
	v[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

/* v[i] becomes lane i of each of v[0..7]: interleaved by 16, 32 and 64 bits. */
static inline void transpose_8x16(vec8x16 v[8])
{
	vec4x32 s[8], u[8];
	vec2x64 a[8];

	for (int i = 0; i < 8; i += 2) {
		s[i] = (vec4x32)__builtin_shufflevector(v[i], v[i + 1], 0, 8, 1, 9, 2, 10, 3, 11);
		s[i + 1] = (vec4x32)__builtin_shufflevector(v[i], v[i + 1], 4, 12, 5, 13, 6, 14, 7,
							    15);
	}
	for (int i = 0; i < 8; i += 4) {
		u[i] = __builtin_shufflevector(s[i], s[i + 2], 0, 4, 1, 5);
		u[i + 1] = __builtin_shufflevector(s[i], s[i + 2], 2, 6, 3, 7);
		u[i + 2] = __builtin_shufflevector(s[i + 1], s[i + 3], 0, 4, 1, 5);
		u[i + 3] = __builtin_shufflevector(s[i + 1], s[i + 3], 2, 6, 3, 7);
	}
	for (int i = 0; i < 4; i++) {
		a[2 * i] = __builtin_shufflevector((vec2x64)u[i], (vec2x64)u[i + 4], 0, 2);
		a[2 * i + 1] = __builtin_shufflevector((vec2x64)u[i], (vec2x64)u[i + 4], 1, 3);
	}
	for (int i = 0; i < 8; i++)
		v[i] = (vec8x16)a[i];
}

/* Blocks of 4 x 4 pixels at 32 bpp, 8 x 8 at 16, turned in vectors; the edges one by one. */
static void turn(uint8_t *dst, size_t dst_stride, const uint8_t *band, int width, int n,
		 int first, bool cw, int x0, int x1, int bytes)
{
	int b = bytes == 4 ? 4 : bytes == 2 ? 8 : 1, nb = n - n % b, x = x0;

	for (; b > 1 && x + b <= x1; x += b) {
		for (int k = 0; k < nb; k += b) {
			union { vec4x32 v32[8]; vec8x16 v16[8]; } v;
			size_t at = (size_t)(first + (cw ? n - b - k : k)) * bytes;

			/* the vector that lands on column c holds band row k + (c's lane) */
			for (int j = 0; j < b; j++)
				memcpy(&v.v16[j], band + ((size_t)(cw ? k + b - 1 - j : k + j) * width +
							  x) * bytes, 16);
			if (b == 4)
				transpose_4x32(v.v32);
			else
				transpose_8x16(v.v16);
			for (int i = 0; i < b; i++)
				memcpy(dst + (size_t)(cw ? x + i : width - 1 - x - i) * dst_stride + at,
				       &v.v16[i], 16);
		}
		turn_pixels(dst, dst_stride, band, width, n, first, cw, x, x + b, nb, n, bytes);
	}
	turn_pixels(dst, dst_stride, band, width, n, first, cw, x, x1, 0, n, bytes);
}

/*
 * rotate 90 and 270: a logical row is a physical column. Logical rows are drawn as rows, which
 * reads the splash and the water in their own order, band_rows at a time, then turned:
 * logical row y is physical column fb_width - 1 - y (90) or y (270).
 */
static void draw_columns(struct render *r, const struct water *w, uint8_t *dst,
			 size_t dst_stride, const struct render_run *runs, int nruns, int x0, int x1)
{
	size_t row_bytes = (size_t)r->width * r->bytes;
	bool cw = r->rotate == 90;
	int rows = band_rows(r);

	for (int i = 0; i < nruns; i++) {
		const struct render_run *run = &runs[i];

		for (int lo = run->lo; lo < run->hi; lo += rows) {
			int n = run->hi - lo < rows ? run->hi - lo : rows;
			int first = cw ? r->fb_width - lo - n : lo;

			for (int k = 0; k < n; k++)
				draw_span(r, w, r->band + k * row_bytes, lo + k, x0, x1, run->wet);
			turn(dst, dst_stride, r->band, r->width, n, first, cw, x0, x1, r->bytes);
		}
	}
}

/* The runs, in strips of columns. */
static void draw_strips(struct render *r, const struct water *w, uint8_t *dst,
			size_t dst_stride, const struct render_run *runs, int nruns)
{
	int strip = strip_width(r);

	for (int x0 = 0; x0 < r->width && nruns; x0 += strip) {
		int x1 = r->width - x0 < strip ? r->width : x0 + strip;

		if (sideways(r->rotate))
			draw_columns(r, w, dst, dst_stride, runs, nruns, x0, x1);
		else
			draw_rows(r, w, dst, dst_stride, runs, nruns, x0, x1);
	}
}

/* One frame shared among bands: plan()'s runs and how many rows they hold. */
struct frame {
	const struct render *r;
	const struct water *w;
	uint8_t *dst;
	size_t dst_stride;
	int nruns, rows;
};

/* The runs' rows from the lo-th to before the hi-th (counted through the runs) into out. */
static int clip_runs(const struct render_run *runs, int nruns, int lo, int hi,
		     struct render_run *out)
{
	int n = 0, at = 0;

	for (int i = 0; i < nruns && at < hi; i++) {
		int len = runs[i].hi - runs[i].lo, a = lo > at ? lo - at : 0;
		int b = hi - at < len ? hi - at : len;

		if (a < b)
			out[n++] = (struct render_run){ runs[i].lo + a, runs[i].lo + b, runs[i].wet };
		at += len;
	}
	return n;
}

/* Where band b's share starts: rotated, on whole bands of turned rows, so that two threads
 * seldom write the same cache line of a physical row. */
static int band_start(const struct frame *f, int b, int bands)
{
	int at = (int)((long)f->rows * b / bands), unit = sideways(f->r->rotate) ? band_rows(f->r) : 1;

	return b == bands ? f->rows : at - at % unit;
}

static void frame_part(void *ctx, int b, int bands)
{
	const struct frame *f = ctx;
	const struct render_scratch *s = &f->r->scratch[b];
	struct render mine = *f->r;	/* the kernels read their scratch through the renderer */
	int n = clip_runs(f->r->runs, f->nruns, band_start(f, b, bands),
			  band_start(f, b + 1, bands), s->runs);

	if (b) {
		mine.slope_x = s->slope_x;
		mine.slope_y = s->slope_y;
		mine.band = s->band;
		mine.aside = s->aside;
	}
	draw_strips(&mine, f->w, f->dst, f->dst_stride, s->runs, n);
}

int render_frame_pool(struct render *r, const struct water *w, uint8_t *dst,
		      size_t dst_stride, int page, bool full, struct pool *pool)
{
	int nruns, rows = plan(r, w, page, full, &nruns);

	if (!pool || pool->threads <= 1 || r->bands < pool->threads || rows < POOL_ROWS) {
		draw_strips(r, w, dst, dst_stride, r->runs, nruns);
		return rows;
	}
	pool_run(pool, frame_part, &(struct frame){ r, w, dst, dst_stride, nruns, rows });
	return rows;
}

int render_frame(struct render *r, const struct water *w, uint8_t *dst, size_t dst_stride,
		 int page, bool full)
{
	return render_frame_pool(r, w, dst, dst_stride, page, full, NULL);
}
