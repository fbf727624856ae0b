/* render.c - refraction into the framebuffer: which rows to draw, in strips and rotated bands;
 * the pixels themselves come from the row kernels (render_row*.c). */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/pool.h"
#include "render/kernels/render_row.h"
#include "render_calm.h"
#include "render_turn.h"

/* Strips of columns (render_frame) are this many times the farthest move wide. */
#define STRIP_PER_SHIFT 4
/* Frames with fewer rows to write than this are drawn on the caller's thread alone; unrotated,
 * the chunks of a frame shared among threads are cut in units of this many. */
#define POOL_ROWS 16
/* Chunks of rows a frame at cell 1 is cut into per thread that draws it. */
#define POOL_CHUNKS 6
/* Strips of columns a frame above cell 1 is cut into per thread, each at least this wide. */
#define POOL_STRIPS 2
#define POOL_STRIP_MIN 32

/* The row kernel of set k for r's format and look; NULL where k has none. */
static render_row_fn *row_of(const struct render_kernels *k, const struct render *r, bool light)
{
	int i = r->bytes - 2;

	if (r->direct)
		return k->direct[i];
	if (!light)
		return k->slope[i];
	return render_bytewise(&r->fmt) && k->lit_bytes[i] ? k->lit_bytes[i] : k->lit[i];
}

/* The kernel of the renderer's path for its format and look, or the scalar one. */
static void pick_row(struct render *r, bool light)
{
	static const struct render_kernels *const paths[RENDER_PATHS] = {
#if defined(__x86_64__)
		[RENDER_SSE2] = &render_kernels_sse2,
		[RENDER_SSE41] = &render_kernels_sse41,
		[RENDER_AVX2] = &render_kernels_avx2,
#endif
#if defined(__aarch64__)
		[RENDER_NEON] = &render_kernels_neon,
#endif
		[RENDER_SCALAR] = &render_kernels_scalar,
	};
	const struct render_kernels *k = paths[r->path] ? paths[r->path] : paths[RENDER_SCALAR];

	r->row = row_of(k, r, light);
	if (!r->row)
		r->row = row_of(&render_kernels_scalar, r, light);
	r->slopes = k->slopes ? k->slopes : render_kernels_scalar.slopes;
	r->loud_cells = k->loud ? k->loud : render_kernels_scalar.loud;
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
	return render_turn_rows(r->bytes);
}

/* Rotated, the bytes of the rows drawn before they are mirrored (180) or turned (90, 270). */
static size_t band_bytes(const struct render *r)
{
	if (r->rotate == 180)
		return (size_t)r->width * r->bytes;
	return render_turn_pitch(r->width, r->bytes) * band_rows(r);
}

/* Pixel p of n along an axis sits at (p + 0.5) / cell - 0.5 cells, between cells c and c + 1
 * (clamped to the grid's g cells at both ends), rounded to the nearest 1/RENDER_WEIGHT: cut
 * short, every pixel would lean toward its left or upper cell, and a ring would not be
 * mirrored about its centre at cells 3, 5, 6 and 7. */
static int axis_init(struct render_axis *a, int n, int cell, int g)
{
	a->c = calloc((size_t)n, sizeof(*a->c));
	a->w = calloc((size_t)n, sizeof(*a->w));
	if (!a->c || !a->w)
		return -ENOMEM;
	for (int p = 0; p < n; p++) {
		int u = (2 * p + 1 - cell) * RENDER_WEIGHT;
		int pos = u < 0 ? 0 : (u + cell) / (2 * cell);	/* in 1/RENDER_WEIGHT cells */
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

/* from_cell[k]: the first logical column whose cell is k or past it; from_mix[k]: the same
 * counting the cell a pixel mixes in beside its own (render_cols). Past the last: width. */
static int columns_init(struct render *r)
{
	int g = r->grid_width;

	r->from_cell = calloc((size_t)g + 1, sizeof(*r->from_cell));
	r->from_mix = calloc((size_t)g + 1, sizeof(*r->from_mix));
	if (!r->from_cell || !r->from_mix)
		return -ENOMEM;
	for (int k = 0, x = 0, m = 0; k <= g; k++) {
		while (x < r->width && r->ax.c[x] < k)
			x++;
		while (m < r->width && r->ax.c[m] + (r->ax.w[m] != 0) < k)
			m++;
		r->from_cell[k] = x;
		r->from_mix[k] = m;
	}
	return 0;
}

/* FBRIPPLE_DRAW=live: every live pixel drawn, for the tests and the bench to compare. */
static bool draw_live_asked(void)
{
	const char *env = getenv("FBRIPPLE_DRAW");

	return env && strcmp(env, "live") == 0;
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
	r->cols = calloc(r->height, sizeof(*r->cols));
	for (int i = 0; i < RENDER_PAGES; i++)
		r->shown[i] = calloc(r->height, sizeof(*r->shown[i]));
	if (!r->slope_x || !r->slope_y || !r->shade || !r->splash || !r->runs || !r->cols ||
	    !r->shown[0] || !r->shown[1] ||
	    axis_init(&r->ax, r->width, cell, r->grid_width) < 0 ||
	    axis_init(&r->ay, r->height, cell, r->grid_height) < 0 || columns_init(r) < 0 ||
	    render_calm_init(r) < 0) {
		render_free(r);
		return -ENOMEM;
	}
	if (rotate) {	/* 180: one row to mirror; 90 and 270: a band to turn */
		r->band = malloc(band_bytes(r));
		if (!r->band) {
			render_free(r);
			return -ENOMEM;
		}
	}
	r->path = render_path_default();
	r->draw_live = draw_live_asked();
	r->share_min = RENDER_SHARE_MIN;
	render_set_light(r, &(struct render_light){ 0 });
	return 0;
}

void render_draw_live(struct render *r, bool live)
{
	r->draw_live = live;
}

void render_set_share_min(struct render *r, long pixels)
{
	r->share_min = pixels;
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
		s->band = malloc(band_bytes(r));
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
	free(r->cols);
	free(r->from_cell);
	free(r->from_mix);
	free(r->band);
	for (int i = 0; i < RENDER_PAGES; i++) {
		free(r->shown[i]);
		free(r->loud[i]);
	}
	free(r->block_x);
	free(r->cell_block);
	free(r->cell_loud);
	free(r->draws);
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
	/* the glint: nothing on gentle slopes, rising steeply to white on the ones facing the
	 * light, specular x 255 (white) 72 shades past its start */
	r->glint_k = (int)lround(l->specular * 255 * 65536 / (72 * 72));
	for (int s = -RENDER_SHADES; s <= RENDER_SHADES; s++)
		r->shade[RENDER_SHADES + s] = pack_grey(&r->fmt, render_grey(s, r->glint_k));
	r->direct = r->cell == 1 && !light;
	render_calm_window(r, &r->calm_lo, &r->calm_hi);
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

static inline int min_int(int a, int b)
{
	return a < b ? a : b;
}

static inline int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* [a.lo, a.hi) and [b.lo, b.hi) and what lies between; an empty one (lo >= hi) adds nothing. */
static struct water_span span_join(struct water_span a, struct water_span b)
{
	if (a.lo >= a.hi)
		return b;
	if (b.lo >= b.hi)
		return a;
	return (struct water_span){ min_int(a.lo, b.lo), max_int(a.hi, b.hi) };
}

/*
 * The logical columns of row y that may show water: a pixel mixes the slopes of cells c and
 * c + 1 of cell rows a and a + 1 (c + 1 and a + 1 only with a weight), and each slope reads the
 * cells beside it, so one row and one column of cells around those. The tint reads the step
 * before too. Empty (lo >= hi) where all of those cells are 0.
 */
static struct water_span row_wet(const struct render *r, const struct water *w, int y)
{
	int a = r->ay.c[y], b = a + (r->ay.w[y] != 0), g = r->grid_width;
	struct water_span cells = { 0, 0 };

	for (int cy = a - 1; cy <= b + 1; cy++) {
		if (w->live[cy])
			cells = span_join(cells, w->span[cy]);
		if (r->tint && w->prev_live[cy])
			cells = span_join(cells, w->prev_span[cy]);
	}
	if (cells.lo >= cells.hi)
		return cells;
	/* pixels whose cells (c - 1 ... c + 1 + mixed) meet [lo, hi): c + 1 + mixed >= lo and
	 * c - 1 < hi */
	a = cells.lo - 1;
	b = cells.hi + 1;
	return (struct water_span){ a <= 0 ? 0 : a >= g ? r->width : r->from_mix[a],
				    b >= g ? r->width : r->from_cell[b] };
}

/* The logical rows that may show water: those whose cell rows (a - 1 ... b + 1, row_wet)
 * meet the water's live rows. */
static struct water_span rows_wet(const struct render *r, const struct water *w)
{
	int lo = (w->rows.lo - 2) * r->cell, hi = (w->rows.hi + 2) * r->cell;

	if (w->rows.lo >= w->rows.hi)
		return (struct water_span){ 0, 0 };
	return (struct water_span){ max_int(lo, 0), min_int(hi, r->height) };
}

/* Each logical row's columns to draw: where it may be wet, and where this page showed water
 * last time and must show the plain splash again; rows with any in runs. Returns how many.
 * Rows outside the water's and the page's row ranges have none: a stone on a tall screen
 * costs its own height here too. */
static int plan(struct render *r, const struct water *w, int page, bool full, int *nruns,
		long *pixels)
{
	struct water_span *shown = r->shown[page], whole = { 0, r->width };
	struct water_span scan = span_join(rows_wet(r, w), r->shown_rows[page]), now = { 0, 0 };
	int rows = 0, n = 0;

	if (full)
		scan = (struct water_span){ 0, r->height };
	for (int y = scan.lo; y < scan.hi; y++) {
		struct water_span wet = row_wet(r, w, y);
		struct water_span draw = span_join(wet, full ? whole : shown[y]);

		shown[y] = wet;
		if (wet.lo < wet.hi)
			now = span_join(now, (struct water_span){ y, y + 1 });
		if (draw.lo >= draw.hi)
			continue;
		r->cols[y] = (struct render_cols){ draw.lo, draw.hi, wet.lo, wet.hi };
		*pixels += draw.hi - draw.lo;
		rows++;
		if (n && r->runs[n - 1].hi == y)
			r->runs[n - 1].hi++;
		else
			r->runs[n++] = (struct render_run){ y, y + 1 };
	}
	r->shown_rows[page] = now;
	*nruns = n;
	return rows;
}

/* The first set bit of bits (words long) at or past k, or -1. */
static int next_set(const uint64_t *bits, int words, int k)
{
	int i = k >> 6;
	uint64_t m;

	if (i >= words)
		return -1;
	for (m = bits[i] & (~0ull << (k & 63)); !m; m = bits[i])
		if (++i >= words)
			return -1;
	return i * 64 + __builtin_ctzll(m);
}

/* The first clear bit of bits at or past k (words * 64 if none). */
static int next_clear(const uint64_t *bits, int words, int k)
{
	int i = k >> 6;
	uint64_t m;

	if (i >= words)
		return words * 64;
	for (m = ~bits[i] & (~0ull << (k & 63)); !m; m = ~bits[i])
		if (++i >= words)
			return words * 64;
	return i * 64 + __builtin_ctzll(m);
}

/* The last set bit of bits, or -1. */
static int last_set(const uint64_t *bits, int words)
{
	for (int i = words - 1; i >= 0; i--)
		if (bits[i])
			return i * 64 + 63 - __builtin_clzll(bits[i]);
	return -1;
}

/* The bits set in a row of words. Plain x86-64 has no popcnt instruction: GCC's builtin there
 * is a call into libgcc for each word, which cost 0.5-0.7% of a paced rain run. */
static long count_set(const uint64_t *bits, int words)
{
	long n = 0;

	for (int i = 0; i < words; i++) {
#if defined(__x86_64__) && !defined(__POPCNT__)
		uint64_t v = bits[i] - ((bits[i] >> 1) & 0x5555555555555555ull);

		v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
		v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
		n += (long)((v * 0x0101010101010101ull) >> 56);
#else
		n += __builtin_popcountll(bits[i]);
#endif
	}
	return n;
}

/*
 * plan() for drawing what changes: each logical row's loud blocks (those of its cell rows a
 * and, mixed in, a + 1) are drawn refracted, the blocks this page showed loud last time and
 * are calm now get the picture back, the rest of the page shows the picture already and is
 * left alone. full: every block, calm ones as the picture.
 */
static int plan_blocks(struct render *r, const struct water *w, int page, bool full,
		       int *nruns, long *pixels)
{
	int words = r->block_words, rows = 0, n = 0;
	long blocks = 0;
	struct water_span scan = span_join(rows_wet(r, w), r->loud_rows[page]), now = { 0, 0 };
	uint64_t every[RENDER_BLOCK_WORDS];	/* a row of every block, for full frames */

	if (full)
		scan = (struct water_span){ 0, r->height };
	for (int i = 0; i < words; i++) {
		int left = r->blocks - 64 * i;

		every[i] = left >= 64 ? ~0ull : (1ull << left) - 1;
	}
	if (scan.lo < scan.hi)
		render_calm_rows(r, w, r->ay.c[scan.lo],
				 min_int(r->ay.c[scan.hi - 1] + 2, r->grid_height));
	for (int y = scan.lo; y < scan.hi; y++) {
		const uint64_t *a = r->cell_loud + (size_t)r->ay.c[y] * words;
		const uint64_t *b = r->ay.w[y] ? a + words : a;
		uint64_t *loud = r->loud[page] + (size_t)y * words;
		uint64_t *draw = r->draws + (size_t)y * words, any = 0, loudest = 0;

		for (int i = 0; i < words; i++) {
			uint64_t l = a[i] | b[i];

			draw[i] = full ? every[i] : l | loud[i];
			loud[i] = l;
			any |= draw[i];
			loudest |= l;
		}
		if (loudest)
			now = span_join(now, (struct water_span){ y, y + 1 });
		if (!any)
			continue;
		blocks += count_set(draw, words);
		r->cols[y] = (struct render_cols){ r->block_x[next_set(draw, words, 0)],
						   r->block_x[last_set(draw, words) + 1], 0, 0 };
		rows++;
		if (n && r->runs[n - 1].hi == y)
			r->runs[n - 1].hi++;
		else
			r->runs[n++] = (struct render_run){ y, y + 1 };
	}
	r->loud_rows[page] = now;
	r->louds = r->loud[page];
	*pixels = r->blocks ? (long)((int64_t)blocks * r->width / r->blocks) : 0;
	*nruns = n;
	return rows;
}

/* The slopes along logical row y of cells [lo, hi): cell rows a and a + 1 mixed by the row's
 * weight (a row on a cell row mixes one), by the path's slopes. */
static void slopes_of_row(const struct render *r, const struct water *w, int y, int lo, int hi)
{
	int wb = r->ay.w[y], stride = w->stride;
	const int16_t *p = water_row(w, r->ay.c[y]), *q = p + (wb ? stride : 0);

	/* whole vectors of 8 cells, as far as the cell past the last (zeroed below): a run of a
	 * few blocks left the path's slopes a scalar tail as long as its vector part */
	hi = min_int(lo + (hi - lo + 7) / 8 * 8, r->grid_width + 1);
	r->slopes(r->slope_x, r->slope_y, p, q, stride, RENDER_WEIGHT - wb, wb, lo, hi);
	r->slope_x[r->grid_width] = r->slope_y[r->grid_width] = 0;
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

/* Pixels [x0, x1) of logical row y, plain, into out (where the row's pixel 0 goes). */
static void draw_plain(const struct render *r, uint8_t *out, int y, int x0, int x1)
{
	size_t at = (size_t)x0 * r->bytes;

	if (x0 < x1)
		memcpy(out + at, r->splash + (size_t)y * r->width * r->bytes + at,
		       (size_t)(x1 - x0) * r->bytes);
}

/* The same refracted, for pixels where the water may be wet. */
static void draw_wet(const struct render *r, const struct water *w, uint8_t *out, int y,
		     int x0, int x1)
{
	if (!r->direct)
		slopes_of_row(r, w, y, r->ax.c[x0], r->ax.c[x1 - 1] + 2);
	if (!r->tint) {
		r->row(out, r, y, water_row(w, y), w->stride, x0, x1);
		return;
	}
	/* drawn aside and tinted there: framebuffer memory is never read */
	uint8_t *aside = r->aside ? r->aside : render_tint_row(r);
	size_t at = (size_t)x0 * r->bytes;

	r->row(aside, r, y, water_row(w, y), w->stride, x0, x1);
	render_tint(aside, r, w, y, x0, x1);
	memcpy(out + at, aside + at, (size_t)(x1 - x0) * r->bytes);
}

/* The block logical column x lies in. */
static int block_of(const struct render *r, int x)
{
	return r->cell_block[r->ax.c[x]];
}

/* Pixels [x0, x1) of logical row y, each of them: refracted in the row's loud blocks, the
 * picture elsewhere. */
static void draw_blocks(const struct render *r, const struct water *w, uint8_t *out, int y,
			int x0, int x1)
{
	const uint64_t *loud = r->louds + (size_t)y * r->block_words;
	int words = r->block_words, k = block_of(r, x0), at = x0;

	while (at < x1) {
		int lo = next_set(loud, words, k), hi, a, b, next;

		if (lo < 0 || (a = max_int(r->block_x[lo], at)) >= x1)
			break;
		hi = next_clear(loud, words, lo);
		/* a calm block between two loud runs is drawn with them: one run, one tail */
		while ((next = next_set(loud, words, hi)) == hi + 1)
			hi = next_clear(loud, words, next);
		/* whole vectors from a multiple of 8 pixels: the kernels' scalar tail costs more
		 * than the few pixels past the run that a vector draws (a kernel draws any pixel
		 * as it is, calm or not); the strips of different threads start on such
		 * multiples, so a vector never reaches into another thread's pixels */
		a &= ~7;
		b = min_int((min_int(r->block_x[hi], x1) + 7) & ~7, r->width);
		draw_plain(r, out, y, at, a);
		draw_wet(r, w, out, y, a, b);
		at = b;
		k = hi;
	}
	draw_plain(r, out, y, at, x1);
}

/* The next run of blocks of row bits within pixels [*x, x1): its pixels into [*lo, *hi), *x
 * past it; false when none is left. */
static bool next_run(const struct render *r, const uint64_t *bits, int *x, int x1, int *lo,
		     int *hi)
{
	int k, e;

	if (*x >= x1 || (k = next_set(bits, r->block_words, block_of(r, *x))) < 0 ||
	    r->block_x[k] >= x1)
		return false;
	e = next_clear(bits, r->block_words, k);
	*lo = max_int(r->block_x[k], *x);
	*hi = *x = min_int(r->block_x[e], x1);
	return true;
}

/* Logical row y, pixels [x0, x1), into out: the refracted splash within the row's wet columns,
 * the splash itself around them; drawing what changes, only the row's blocks to draw. */
static void draw_span(const struct render *r, const struct water *w, uint8_t *out, int y,
		      int x0, int x1)
{
	const struct render_cols *c = &r->cols[y];
	int a = max_int(x0, c->wet0), b = min_int(x1, c->wet1);

	if (!r->draw_live) {
		const uint64_t *draw = r->draws + (size_t)y * r->block_words;

		for (int x = x0; next_run(r, draw, &x, x1, &a, &b);)
			draw_blocks(r, w, out, y, a, b);
		return;
	}

	if (a >= b) {
		draw_plain(r, out, y, x0, x1);
		return;
	}
	draw_plain(r, out, y, x0, a);
	draw_wet(r, w, out, y, a, b);
	draw_plain(r, out, y, b, x1);
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
			int a = max_int(x0, r->cols[y].x0), b = min_int(x1, r->cols[y].x1);

			if (a >= b)
				continue;
			if (!flip) {
				draw_span(r, w, out, y, a, b);
				continue;
			}
			if (!r->draw_live) {	/* the runs of blocks to draw, one by one */
				const uint64_t *draw = r->draws + (size_t)y * r->block_words;
				int lo, hi;

				for (int x = a; next_run(r, draw, &x, b, &lo, &hi);) {
					draw_blocks(r, w, r->band, y, lo, hi);
					render_mirror(out + (size_t)(r->width - hi) * r->bytes,
						      r->band + (size_t)lo * r->bytes, hi - lo,
						      r->bytes);
				}
				continue;
			}
			draw_span(r, w, r->band, y, a, b);
			render_mirror(out + (size_t)(r->width - b) * r->bytes,
				      r->band + (size_t)a * r->bytes, b - a, r->bytes);
		}
	}
}

/* A band of n logical rows from lo, turned, drawing what changes: the runs of blocks any of
 * its rows draws, within [x0, x1), each whole in every row of the band (what a row does not
 * draw there is calm: the picture), then turned. */
static void draw_band_blocks(struct render *r, const struct water *w, uint8_t *dst,
			     size_t dst_stride, int lo, int n, int x0, int x1)
{
	size_t pitch = render_turn_pitch(r->width, r->bytes);
	bool cw = r->rotate == 90;
	int first = cw ? r->fb_width - lo - n : lo, words = r->block_words, a, b;
	uint64_t any[RENDER_BLOCK_WORDS] = { 0 };

	for (int k = 0; k < n; k++)
		for (int i = 0; i < words; i++)
			any[i] |= r->draws[(size_t)(lo + k) * words + i];
	for (int x = x0; next_run(r, any, &x, x1, &a, &b);) {
		for (int k = 0; k < n; k++)
			draw_blocks(r, w, r->band + k * pitch, lo + k, a, b);
		render_turn(r->path, dst, dst_stride, r->band, pitch, r->width, n, first, cw, a, b,
			    r->bytes);
	}
}

/*
 * rotate 90 and 270: a logical row is a physical column. Logical rows are drawn as rows, which
 * reads the splash and the water in their own order, band_rows at a time, then turned:
 * logical row y is physical column fb_width - 1 - y (90) or y (270). A band draws and turns
 * the columns any of its rows must draw, within [x0, x1).
 */
static void draw_columns(struct render *r, const struct water *w, uint8_t *dst,
			 size_t dst_stride, const struct render_run *runs, int nruns, int x0, int x1)
{
	size_t pitch = render_turn_pitch(r->width, r->bytes);
	bool cw = r->rotate == 90;
	int rows = band_rows(r);

	for (int i = 0; i < nruns; i++) {
		const struct render_run *run = &runs[i];

		for (int lo = run->lo; lo < run->hi; lo += rows) {
			int n = run->hi - lo < rows ? run->hi - lo : rows;
			int first = cw ? r->fb_width - lo - n : lo, a = x1, b = x0;

			for (int k = 0; k < n; k++) {
				a = min_int(a, r->cols[lo + k].x0);
				b = max_int(b, r->cols[lo + k].x1);
			}
			a = max_int(a, x0);
			b = min_int(b, x1);
			if (a >= b)
				continue;
			if (!r->draw_live) {
				draw_band_blocks(r, w, dst, dst_stride, lo, n, a, b);
				continue;
			}
			for (int k = 0; k < n; k++)
				draw_span(r, w, r->band + k * pitch, lo + k, a, b);
			render_turn(r->path, dst, dst_stride, r->band, pitch, r->width, n, first, cw,
				    a, b, r->bytes);
		}
	}
}

/* Where a strip from x0 ends, within hi: strip pixels on, at the block boundary there, so
 * that no run of blocks is cut (a cut run leaves the kernels a scalar tail on each side). */
static int strip_end(const struct render *r, int x0, int strip, int hi)
{
	int x = x0 + strip, b;

	if (x >= hi)
		return hi;
	b = block_of(r, x);
	x = r->block_x[b] > x0 ? r->block_x[b] : r->block_x[b + 1];
	return min_int(x, hi);
}

/* The runs' columns [lo, hi), in strips. */
static void draw_strips(struct render *r, const struct water *w, uint8_t *dst,
			size_t dst_stride, const struct render_run *runs, int nruns, int lo, int hi)
{
	int strip = strip_width(r);

	for (int x0 = lo, x1; x0 < hi && nruns; x0 = x1) {
		x1 = strip_end(r, x0, strip, hi);
		if (sideways(r->rotate))
			draw_columns(r, w, dst, dst_stride, runs, nruns, x0, x1);
		else
			draw_rows(r, w, dst, dst_stride, runs, nruns, x0, x1);
	}
}

/* One frame shared among threads: plan()'s runs, cut into units of unit rows, or their
 * columns [lo, hi) into strips. */
struct frame {
	const struct render *r;
	const struct water *w;
	uint8_t *dst;
	size_t dst_stride;
	int nruns, unit, units, lo, hi;
};

/* A chunk's rows come in units of this many from the start of a run: rotated, whole turned
 * bands, the same as one thread turns, so that a frame comes out the same for any split. */
static int chunk_unit(const struct render *r)
{
	return sideways(r->rotate) ? band_rows(r) : POOL_ROWS;
}

/* The units of unit rows in a run (its last one may be shorter). */
static int run_units(const struct render_run *run, int unit)
{
	return (run->hi - run->lo + unit - 1) / unit;
}

/* The runs' units from the lo-th to before the hi-th (counted through the runs) into out. */
static int clip_runs(const struct render_run *runs, int nruns, int unit, int lo, int hi,
		     struct render_run *out)
{
	int n = 0, at = 0;

	for (int i = 0; i < nruns && at < hi; i++) {
		int len = run_units(&runs[i], unit), a = lo > at ? lo - at : 0;
		int b = hi - at < len ? hi - at : len;

		if (a < b) {
			out[n] = runs[i];
			out[n].lo = runs[i].lo + a * unit;
			out[n].hi = runs[i].lo + b * unit < runs[i].hi ? runs[i].lo + b * unit
								       : runs[i].hi;
			n++;
		}
		at += len;
	}
	return n;
}

/* The renderer as a thread sees it: the kernels read their scratch through it. */
static struct render thread_view(const struct render *r, int thread)
{
	const struct render_scratch *s = &r->scratch[thread];
	struct render mine = *r;

	if (thread) {
		mine.slope_x = s->slope_x;
		mine.slope_y = s->slope_y;
		mine.band = s->band;
		mine.aside = s->aside;
	}
	return mine;
}

static void frame_rows(void *ctx, int c, int chunks, int thread)
{
	const struct frame *f = ctx;
	struct render mine = thread_view(f->r, thread);
	struct render_run *runs = f->r->scratch[thread].runs;
	int n = clip_runs(f->r->runs, f->nruns, f->unit, (int)((long)f->units * c / chunks),
			  (int)((long)f->units * (c + 1) / chunks), runs);

	draw_strips(&mine, f->w, f->dst, f->dst_stride, runs, n, 0, f->r->width);
}

/*
 * Where the c-th of chunks strips of [lo, hi) starts: where a physical row's pixels cross a
 * cache line (mirrored at rotate 180), so that in a framebuffer of whole lines no two threads
 * write into one. Turned (90, 270), each thread writes whole physical rows anyway.
 */
static int strip_start(const struct frame *f, int c, int chunks)
{
	const struct render *r = f->r;
	int line = 64, s, off;

	if (c == chunks)
		return f->hi;
	for (int b = r->bytes; !(b & 1) && line > 1; b >>= 1)
		line >>= 1;	/* pixels in a whole number of lines: 64 / gcd(64, bytes) */
	s = f->lo + (int)((long)(f->hi - f->lo) * c / chunks);
	off = (r->rotate == 180 ? line - (r->width - s) % line : s) % line;
	return s - off > 0 ? s - off : 0;
}

static void frame_columns(void *ctx, int c, int chunks, int thread)
{
	const struct frame *f = ctx;
	struct render mine = thread_view(f->r, thread);

	draw_strips(&mine, f->w, f->dst, f->dst_stride, f->r->runs, f->nruns,
		    strip_start(f, c, chunks), strip_start(f, c + 1, chunks));
}

/* The columns any of the runs' rows draws, into f. */
static void frame_columns_span(struct frame *f)
{
	const struct render *r = f->r;

	f->lo = r->width;
	f->hi = 0;
	for (int i = 0; i < f->nruns; i++)
		for (int y = r->runs[i].lo; y < r->runs[i].hi; y++) {
			f->lo = min_int(f->lo, r->cols[y].x0);
			f->hi = max_int(f->hi, r->cols[y].x1);
		}
}

/*
 * Shared among threads, a frame at cell 1 is cut into chunks of rows; above it, where a pixel
 * may come from shift_max rows away, into strips of columns drawn from top to bottom: a chunk
 * of rows reads the splash shift_max rows above and below itself again, which cost 4K32's
 * default look 40% more CPU at 12 chunks (tests/bench_render, one thread drawing the chunks).
 * More chunks than threads, so that a thread the machine slows does not hold the frame.
 */
int render_frame_pool(struct render *r, const struct water *w, uint8_t *dst,
		      size_t dst_stride, int page, bool full, struct pool *pool)
{
	int nruns, unit = chunk_unit(r), units = 0, chunks;
	long pixels = 0;
	int rows = r->draw_live ? plan(r, w, page, full, &nruns, &pixels)
				: plan_blocks(r, w, page, full, &nruns, &pixels);
	struct frame f = { r, w, dst, dst_stride, nruns, unit, 0, 0, r->width };
	bool by_columns = r->cell > 1;

	for (int i = 0; i < nruns; i++)
		units += run_units(&r->runs[i], unit);
	f.units = units;
	chunks = pool ? pool->threads * (by_columns ? POOL_STRIPS : POOL_CHUNKS) : 1;
	if (by_columns && chunks > 1)
		frame_columns_span(&f);
	chunks = min_int(chunks, by_columns ? (f.hi - f.lo) / POOL_STRIP_MIN : units);
	if (!pool || pool->threads <= 1 || r->bands < pool->threads || rows < POOL_ROWS ||
	    pixels < r->share_min || chunks < 2) {
		draw_strips(r, w, dst, dst_stride, r->runs, nruns, 0, r->width);
		return rows;
	}
	pool_run(pool, by_columns ? frame_columns : frame_rows, &f, chunks);
	return rows;
}

int render_frame(struct render *r, const struct water *w, uint8_t *dst, size_t dst_stride,
		 int page, bool full)
{
	return render_frame_pool(r, w, dst, dst_stride, page, full, NULL);
}
