/* image_splash.c - the built-in splash, generated at the screen's size: a tiled pool floor with
 * caustic light and a glassy drop. */
#include "image.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cpu.h"
#include "util/thread.h"

/* ---- the built-in splash ----------------------------------------------------------------- */

static uint32_t hash2(int x, int y)
{
	uint32_t h = (uint32_t)x * 0x8da6b343u ^ (uint32_t)y * 0xd8163841u;

	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 12;
	h *= 0x297a2d39u;
	h ^= h >> 15;
	return h;
}

static float clampf(float v, float lo, float hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static float smooth01(float t)
{
	t = clampf(t, 0.0f, 1.0f);
	return t * t * (3.0f - 2.0f * t);
}

/* Signed distance to a drop: a round bottom of radius r at the origin narrowing to a rounded tip
 * of radius r2 at height len (y grows upwards). Inigo Quilez's "uneven capsule". */
static float drop_distance(float px, float py, float r, float r2, float len)
{
	float b = (r - r2) / len, a = sqrtf(1.0f - b * b);
	float k;

	px = fabsf(px);
	k = -b * px + a * py;
	if (k < 0.0f)
		return sqrtf(px * px + py * py) - r;
	if (k > a * len)
		return sqrtf(px * px + (py - len) * (py - len)) - r2;
	return a * px + b * py - r;
}

/* Plane waves sin(kx x + ky y + phase) = sin(kx x + phase) cos(ky y) + cos(kx x + phase) sin(ky y),
 * tabulated per column and per row so the caustic pattern costs a few multiplies per pixel. */
#define NWAVES 6

struct splash_axis {
	float s[NWAVES], c[NWAVES];
	float f;		/* pixel centre over the side length, 0..1 */
	int tile, in;		/* tile index, position inside the tile */
};

struct splash {
	int w, h;
	int tile, grout;
	float bevel;
	float cx, cy, r;	/* drop: centre of the round part, radius */
};

static void splash_axis_init(struct splash_axis *ax, int n, int origin, int tile, float k,
			     float phase_scale)
{
	static const float dir[NWAVES][3] = {
		/* angle, relative frequency, phase */
		{ 0.31f, 1.00f, 0.0f }, { 2.43f, 1.13f, 1.7f }, { 4.29f, 0.89f, 4.1f },
		{ 1.12f, 2.07f, 0.6f }, { 3.05f, 1.91f, 2.9f }, { 5.37f, 2.23f, 5.3f },
	};
	int i, j;

	for (j = 0; j < n; j++) {
		int t = j - origin;
		int ix = t >= 0 ? t / tile : -((tile - 1 - t) / tile);

		ax[j].tile = ix;
		ax[j].in = t - ix * tile;
		ax[j].f = ((float)j + 0.5f) / (float)n;
	}
	for (i = 0; i < NWAVES; i++) {
		/* phase_scale picks the x (cos) or y (sin) component of the wave direction. */
		float kk = k * dir[i][1] * (phase_scale > 0 ? cosf(dir[i][0]) : sinf(dir[i][0]));
		float ph = phase_scale > 0 ? dir[i][2] : 0.0f;

		for (j = 0; j < n; j++) {
			ax[j].s[i] = sinf(kk * (float)j + ph);
			ax[j].c[i] = cosf(kk * (float)j + ph);
		}
	}
}

/* Bright where the sum of three waves crosses zero: a net of thin, soft lines. */
static float caustic(const struct splash_axis *cx, const struct splash_axis *cy, int first)
{
	float s = 0.0f, c;
	int i;

	for (i = first; i < first + 3; i++)
		s += cx->s[i] * cy->c[i] + cx->c[i] * cy->s[i];
	c = 1.0f - fabsf(s) * (1.0f / 3.0f);
	c *= c;
	c *= c;
	return c * c;
}

struct tile_look {
	float shade, tint, dim[3];
};

static void tile_look(struct tile_look *tl, int ix, int iy)
{
	uint32_t hs = hash2(ix, iy);
	int accent = ((hs >> 16) & 0xff) < 14;	/* an occasional darker tile */

	tl->shade = 1.0f + 0.10f * ((float)(hs & 0xff) * (1.0f / 255.0f) - 0.5f);
	tl->tint = 0.05f * ((float)((hs >> 8) & 0xff) * (1.0f / 255.0f) - 0.5f);
	tl->dim[0] = accent ? 0.55f : 1.0f;
	tl->dim[1] = accent ? 0.62f : 1.0f;
	tl->dim[2] = accent ? 0.85f : 1.0f;
}

static const float deep[3] = { 0.02f, 0.12f, 0.34f }, shallow[3] = { 0.10f, 0.70f, 0.76f };
static const float grout_c[3] = { 0.78f, 0.92f, 0.96f };

/* What a row of the floor shares along it: its place down the picture, the tile it crosses. */
struct floor_row {
	const struct splash *sp;
	const struct splash_axis *ay;
	struct tile_look tl;
	float vy;		/* (f - 0.5)^2 of the row, for the vignette */
	float lit_v;		/* the bevels' light from above and below */
	float t_y;		/* 0.8 f of the row, for the depth gradient */
	bool grout;		/* a row of grout across every tile */
};

/* The bevel's light on the tile from one side of it (u from 0 to e) and from the other. */
static float bevel_near(const struct splash *sp, float u)
{
	return clampf(1.0f - (u - (float)sp->grout) * sp->bevel, 0, 1);
}

static float bevel_far(const struct splash *sp, float u)
{
	return clampf(1.0f - ((float)(sp->tile - 1) - u) * sp->bevel, 0, 1);
}

/* One pixel of the floor: depth gradient, the tile with its bevel or grout, caustics. */
static uint32_t floor_pixel(const struct floor_row *row, const struct splash_axis *cx)
{
	const struct splash *sp = row->sp;
	const struct tile_look *tl = &row->tl;
	float t = smooth01(row->t_y + 0.2f * cx->f);
	float vig = 1.0f - 0.35f * ((cx->f - 0.5f) * (cx->f - 0.5f) + row->vy);
	float c[3], ca, i, u = (float)cx->in;

	for (int k = 0; k < 3; k++)
		c[k] = (deep[k] + (shallow[k] - deep[k]) * t) * tl->dim[k];
	if (cx->in < sp->grout || row->grout) {
		for (int k = 0; k < 3; k++)
			c[k] += (grout_c[k] - c[k]) * 0.42f;
	} else {
		float lit = row->lit_v + bevel_near(sp, u) - bevel_far(sp, u);

		c[0] = c[0] * tl->shade + 0.06f * lit;
		c[1] = (c[1] + tl->tint) * tl->shade + 0.07f * lit;
		c[2] = c[2] * tl->shade + 0.07f * lit;
	}
	ca = 0.65f * caustic(cx, row->ay, 0) + 0.35f * caustic(cx, row->ay, 3);
	i = ca * (0.30f + 0.45f * t);
	return image_argb(image_channel((c[0] * vig + i * 0.55f) * 255.0f),
			  image_channel((c[1] * vig + i * 0.90f) * 255.0f),
			  image_channel((c[2] * vig + i * 0.95f) * 255.0f), 255);
}

/*
 * The columns' part of floor_pixel() laid out column by column, so that 4 or 8 pixels of a row
 * are worked out at once in vectors (SSE2, NEON; AVX2): the same operations in the same order,
 * so the same pixels (the Makefile keeps compilers from fusing a multiply and an add). GCC
 * kept the pixel loop scalar.
 */
struct floor_cols {
	float *all;			/* the arrays below, in one allocation */
	float *f2, *v2, *near, *far;	/* 0.2 f, (f - 0.5)^2, bevel_near(), bevel_far() */
	float *s[NWAVES], *c[NWAVES];
	int32_t *in;			/* in the grout: -1, else 0 */
};

#define FLOOR_COL_ARRAYS (4 + 2 * NWAVES + 1)

static int floor_cols_init(struct floor_cols *fc, const struct splash *sp,
			   const struct splash_axis *ax)
{
	size_t n = (size_t)sp->w;
	float *all = malloc(FLOOR_COL_ARRAYS * n * sizeof(float));
	float **arrays[FLOOR_COL_ARRAYS - 1] = { &fc->f2, &fc->v2, &fc->near, &fc->far };

	if (!all)
		return -ENOMEM;
	fc->all = all;
	for (int i = 0; i < NWAVES; i++) {
		arrays[4 + i] = &fc->s[i];
		arrays[4 + NWAVES + i] = &fc->c[i];
	}
	for (int a = 0; a < FLOOR_COL_ARRAYS - 1; a++)
		*arrays[a] = all + a * n;
	fc->in = (int32_t *)(all + (FLOOR_COL_ARRAYS - 1) * n);
	for (int x = 0; x < sp->w; x++) {
		const struct splash_axis *cx = &ax[x];
		float u = (float)cx->in;

		fc->f2[x] = 0.2f * cx->f;
		fc->v2[x] = (cx->f - 0.5f) * (cx->f - 0.5f);
		fc->near[x] = bevel_near(sp, u);
		fc->far[x] = bevel_far(sp, u);
		for (int i = 0; i < NWAVES; i++) {
			fc->s[i][x] = cx->s[i];
			fc->c[i][x] = cx->c[i];
		}
		fc->in[x] = cx->in < sp->grout ? -1 : 0;
	}
	return 0;
}

static void floor_cols_free(struct floor_cols *fc)
{
	free(fc->all);
}

static struct floor_row floor_row_of(const struct splash *sp, const struct splash_axis *ay)
{
	return (struct floor_row){
		.sp = sp,
		.ay = ay,
		.vy = (ay->f - 0.5f) * (ay->f - 0.5f),
		.lit_v = bevel_near(sp, (float)ay->in) - bevel_far(sp, (float)ay->in),
		.t_y = 0.8f * ay->f,
		.grout = ay->in < sp->grout,
	};
}

/* The column past the tile column x lies in. */
static int tile_end(const struct splash *sp, const struct splash_axis *ax, int x)
{
	int end = x + 1;

	while (end < sp->w && ax[end].tile == ax[x].tile)
		end++;
	return end;
}

/*
 * The floor's rows in vectors (image_splash_lanes.h): 4 pixels at a time (SSE2, NEON), and 8 on
 * x86-64 CPUs with AVX2, chosen at run time. i387 works floats out wider than float: vectors
 * would round otherwise than floor_pixel(), which draws every pixel there.
 */
#if FLT_EVAL_METHOD == 0
#define FLOOR_N 4
#define FLOOR_TARGET
#include "image_splash_lanes.h"

#if defined(__x86_64__)
#define FLOOR_LANES 8
#define FLOOR_N 8
#define FLOOR_TARGET __attribute__((target("avx2")))
#include "image_splash_lanes.h"
#else
#define FLOOR_LANES 4
#endif
#else
#define FLOOR_LANES 0
#endif

/* The pool floor along one row, one pixel at a time: tile by tile. */
static void floor_row1(const struct splash *sp, const struct splash_axis *ax,
		       const struct floor_cols *fc, const struct splash_axis *ay, uint32_t *out)
{
	struct floor_row row = floor_row_of(sp, ay);

	(void)fc;
	for (int x = 0, end; x < sp->w; x = end) {
		end = tile_end(sp, ax, x);
		tile_look(&row.tl, ax[x].tile, ay->tile);
		for (; x < end; x++)
			out[x] = floor_pixel(&row, &ax[x]);
	}
}

typedef void floor_row_fn(const struct splash *sp, const struct splash_axis *ax,
			  const struct floor_cols *fc, const struct splash_axis *ay,
			  uint32_t *out);

/* The floor's rows on the vector path simd (cpu.c's choice: FBRIPPLE_SIMD, else the best):
 * 8 pixels at a time on AVX2, 4 on the others, one by one on the scalar path. */
static floor_row_fn *floor_row_for(enum cpu_simd simd)
{
#if FLOOR_LANES >= 8
	if (simd == CPU_AVX2)
		return floor_row8;
#endif
#if FLOOR_LANES >= 4
	if (simd != CPU_SCALAR)
		return floor_row4;
#endif
	(void)simd;
	return floor_row1;
}

/* Rows [y0, y1) of the floor, a band of the picture for one thread. */
struct floor_band {
	const struct splash *sp;
	const struct splash_axis *ax, *ay;
	const struct floor_cols *fc;
	floor_row_fn *row;
	uint32_t *px;
	int y0, y1;
};

static void *floor_band(void *arg)
{
	const struct floor_band *b = arg;

	for (int y = b->y0; y < b->y1; y++)
		b->row(b->sp, b->ax, b->fc, &b->ay[y], b->px + (size_t)y * b->sp->w);
	return NULL;
}

/*
 * The floor is most of the start-up's time with the built-in splash (7 ms of CPU at 1080p
 * here with AVX2, 12 with SSE2): its rows are independent, so each online CPU (up to 4) draws
 * a band of them. The pixels do not depend on the split. A thread that cannot be started
 * leaves its band to the caller.
 */
#define FLOOR_THREADS 4

static void floor_draw(const struct splash *sp, const struct splash_axis *ax,
		       const struct splash_axis *ay, const struct floor_cols *fc, uint32_t *px)
{
	struct floor_band band[FLOOR_THREADS];
	pthread_t tid[FLOOR_THREADS];
	bool started[FLOOR_THREADS] = { false };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n = cpus < 1 ? 1 : cpus > FLOOR_THREADS ? FLOOR_THREADS : (int)cpus;
	enum cpu_simd simd;
	floor_row_fn *row;

	cpu_simd_choose(&simd);	/* a FBRIPPLE_SIMD this CPU lacks leaves the best; main.c warns */
	row = floor_row_for(simd);
	n = sp->h < 64 * n ? 1 : n;	/* a small picture is not worth a thread */
	for (int i = 0; i < n; i++) {
		band[i] = (struct floor_band){ sp, ax, ay, fc, row, px, (int)((long)sp->h * i / n),
					       (int)((long)sp->h * (i + 1) / n) };
		if (i > 0)
			started[i] = thread_start(&tid[i], floor_band, &band[i]) == 0;
	}
	floor_band(&band[0]);
	for (int i = 1; i < n; i++) {
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			floor_band(&band[i]);
	}
}

/* The drop emblem over the floor colour c: shadow, glassy body, rim and highlights. */
static void drop_color(const struct splash *sp, int x, int y, float c[3])
{
	float r = sp->r, len = 1.75f * r, r2 = 0.05f * r;
	float px = (float)x + 0.5f - sp->cx, py = sp->cy - ((float)y + 0.5f);
	float ds = drop_distance(px - 0.22f * r, py + 0.28f * r, r, r2, len);
	float d = drop_distance(px, py, r, r2, len);
	float shadow = 0.38f * smooth01(0.5f - ds / (0.45f * r));
	float cover = clampf(0.5f - d, 0.0f, 1.0f);
	float rim, tint, hl, e, spot;
	int k;

	for (k = 0; k < 3; k++)
		c[k] *= 1.0f - shadow * (1.0f - cover);
	if (cover <= 0.0f)
		return;
	rim = clampf(1.0f + d / (0.4f * r), 0.0f, 1.0f);
	tint = cover * (0.16f + 0.38f * rim * rim);
	c[0] += (0.70f - c[0]) * tint;
	c[1] += (0.93f - c[1]) * tint;
	c[2] += (1.00f - c[2]) * tint;
	e = (px + 0.42f * r) * (px + 0.42f * r) / (0.13f * 0.13f * r * r) +
	    (py - 0.28f * r) * (py - 0.28f * r) / (0.33f * 0.33f * r * r);
	hl = clampf(1.2f - e, 0.0f, 1.0f);
	e = ((px - 0.45f * r) * (px - 0.45f * r) + (py + 0.45f * r) * (py + 0.45f * r)) /
	    (0.08f * 0.08f * r * r);
	spot = clampf(1.1f - e, 0.0f, 1.0f);
	hl = cover * (0.85f * hl * hl + 0.6f * spot + 0.45f * clampf(1.0f - fabsf(d + 1.2f) / 1.6f, 0, 1));
	for (k = 0; k < 3; k++)
		c[k] += (1.0f - c[k]) * clampf(hl, 0.0f, 1.0f);
}

/* The picture's proportions at width x height, and its axes ax (width) and ay (height). */
static void splash_init(struct splash *sp, int width, int height, struct splash_axis *ax,
			struct splash_axis *ay)
{
	float m = (float)(width < height ? width : height), k;

	sp->w = width;
	sp->h = height;
	sp->tile = (int)(m / 15.0f + 0.5f);
	sp->tile = sp->tile < 6 ? 6 : sp->tile;
	sp->grout = sp->tile / 11 < 1 ? 1 : sp->tile / 11;
	sp->bevel = 1.0f / ((float)sp->tile * 0.16f);
	sp->r = m * 0.11f;
	sp->cx = (float)width * 0.5f;
	sp->cy = (float)height * 0.5f + 0.35f * sp->r;
	k = 6.2831853f / (m * 0.21f + 4.0f);
	splash_axis_init(ax, width, width / 2 - sp->tile / 2, sp->tile, k, 1.0f);
	splash_axis_init(ay, height, height / 2 - sp->tile / 2, sp->tile, k, -1.0f);
}

int image_builtin(struct image *img, int width, int height)
{
	struct splash sp;
	struct splash_axis *ax, *ay;
	struct floor_cols fc;
	float c[3];
	uint32_t *px;
	int x, y, bx0, bx1, by0, by1;

	if (width <= 0 || height <= 0)
		return -EINVAL;
	px = malloc((size_t)width * (size_t)height * sizeof(uint32_t));
	ax = malloc(((size_t)width + (size_t)height) * sizeof(*ax));
	if (!px || !ax) {
		free(px);
		free(ax);
		return -ENOMEM;
	}
	ay = ax + width;
	splash_init(&sp, width, height, ax, ay);

	/* Emblem bounding box, shadow and anti-aliased edge included. */
	bx0 = (int)floorf(sp.cx - 1.4f * sp.r) - 2;
	bx1 = (int)ceilf(sp.cx + 1.7f * sp.r) + 2;
	by0 = (int)floorf(sp.cy - 2.0f * sp.r) - 2;
	by1 = (int)ceilf(sp.cy + 1.8f * sp.r) + 2;
	if (floor_cols_init(&fc, &sp, ax) < 0) {
		free(px);
		free(ax);
		return -ENOMEM;
	}
	floor_draw(&sp, ax, ay, &fc, px);
	floor_cols_free(&fc);
	bx0 = bx0 < 0 ? 0 : bx0;
	by0 = by0 < 0 ? 0 : by0;
	bx1 = bx1 >= width ? width - 1 : bx1;
	by1 = by1 >= height ? height - 1 : by1;
	for (y = by0; y <= by1; y++) {
		for (x = bx0; x <= bx1; x++) {
			uint32_t *p = px + (size_t)y * width + x;

			c[0] = (float)((*p >> 16) & 0xff) * (1.0f / 255.0f);
			c[1] = (float)((*p >> 8) & 0xff) * (1.0f / 255.0f);
			c[2] = (float)(*p & 0xff) * (1.0f / 255.0f);
			drop_color(&sp, x, y, c);
			*p = image_argb(image_channel(c[0] * 255.0f), image_channel(c[1] * 255.0f),
				  image_channel(c[2] * 255.0f), 255);
		}
	}
	free(ax);
	img->width = width;
	img->height = height;
	img->pixels = px;
	return 0;
}
