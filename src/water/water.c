/* water.c - the zero-bordered height field every engine moves, and what disturbs it. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "water.h"
#include "water_engine.h"

int water_cell_auto(int screen_width, int screen_height)
{
	int short_side = screen_width < screen_height ? screen_width : screen_height;
	int cell = (short_side + 135) / 270;

	return cell < 1 ? 1 : cell > 16 ? 16 : cell;
}

/*
 * Writes into every page of p now, not when the first wave reaches it: a page fault in a frame
 * is an allocation the frame pays for. One volatile byte in every 4 KiB and the last, since GCC
 * knows calloc's memory is zero and drops a memset of it (and turns malloc + memset into
 * calloc).
 */
static void touch_pages(void *p, size_t bytes)
{
	volatile uint8_t *b = p;

	for (size_t at = 0; at < bytes; at += 4096)
		b[at] = 0;
	if (bytes)
		b[bytes - 1] = 0;
}

int water_open(struct water *w, const struct water_engine *engine, int screen_width,
	       int screen_height, int cell, const struct water_tuning *tuning)
{
	int width, height, ret;
	size_t cells;

	memset(w, 0, sizeof(*w));
	if (screen_width < 1 || screen_height < 1 || cell < 1)
		return -EINVAL;
	width = (screen_width + cell - 1) / cell;
	height = (screen_height + cell - 1) / cell;
	cells = (size_t)(width + 2) * (height + 2);
	w->width = width;
	w->height = height;
	w->stride = width + 2;
	w->cell = cell;
	w->scale = water_scale(cell);
	w->screen_width = screen_width;
	w->screen_height = screen_height;
	w->tuning = *tuning;
	w->share_min = WATER_SHARE_MIN;
	for (int i = 0; i < 2; i++) {
		w->mem[i] = calloc(cells, sizeof(int16_t));
		w->live_mem[i] = calloc(height + 2, 1);
		w->span_mem[i] = calloc(height + 2, sizeof(struct water_span));
		if (!w->mem[i] || !w->live_mem[i] || !w->span_mem[i]) {
			water_free(w);
			return -ENOMEM;
		}
		touch_pages(w->mem[i], cells * sizeof(int16_t));
	}
	w->cur = w->mem[0] + w->stride + 1;
	w->prev = w->mem[1] + w->stride + 1;
	w->live = w->live_mem[0] + 1;
	w->prev_live = w->live_mem[1] + 1;
	w->span = w->span_mem[0] + 1;
	w->prev_span = w->span_mem[1] + 1;
	w->engine = engine;
	ret = engine->init(w);
	if (ret < 0) {
		w->engine = NULL;
		water_free(w);
	}
	return ret;
}

int water_init(struct water *w, int screen_width, int screen_height, int cell,
	       int damping_shift)
{
	struct water_tuning tuning = { .damping_shift = damping_shift };

	return water_open(w, &water_classic, screen_width, screen_height, cell, &tuning);
}

void water_free(struct water *w)
{
	if (w->engine)
		w->engine->free(w);
	for (int i = 0; i < 3; i++)
		free(w->mem[i]);
	for (int i = 0; i < 2; i++) {
		free(w->live_mem[i]);
		free(w->span_mem[i]);
	}
	memset(w, 0, sizeof(*w));
}

void water_clear(struct water *w)
{
	size_t cells = (size_t)w->stride * (w->height + 2);

	for (int i = 0; i < 2; i++) {
		memset(w->mem[i], 0, cells * sizeof(int16_t));
		memset(w->live_mem[i], 0, w->height + 2);
	}
	w->live_rows = 0;
	w->rows = (struct water_span){ 0, 0 };
	w->engine->clear(w);
}

int water_set_walls(struct water *w, const uint8_t *mask)
{
	size_t cells = (size_t)w->stride * (w->height + 2);

	if (!mask) {
		free(w->mem[2]);
		w->mem[2] = w->walls = NULL;
		return 0;
	}
	if (!w->mem[2] && !(w->mem[2] = calloc(cells, sizeof(int16_t))))
		return -ENOMEM;
	w->walls = w->mem[2] + w->stride + 1;
	for (int y = 0; y < w->height; y++)
		for (int x = 0; x < w->width; x++) {
			int16_t keep = mask[(size_t)y * w->width + x] ? 0 : -1;

			w->walls[y * w->stride + x] = keep;
			w->cur[y * w->stride + x] &= keep;
			w->prev[y * w->stride + x] &= keep;
		}
	return 0;
}

void water_mark_live(struct water *w, int y)
{
	water_mark_cells(w, y, 0, w->width);
}

void water_mark_cells(struct water *w, int y, int x0, int x1)
{
	struct water_span *s = &w->span[y];

	if (w->rows.lo >= w->rows.hi)
		w->rows = (struct water_span){ y, y + 1 };
	w->rows.lo = y < w->rows.lo ? y : w->rows.lo;
	w->rows.hi = y >= w->rows.hi ? y + 1 : w->rows.hi;
	if (!w->live[y]) {
		w->live[y] = 1;
		w->live_rows += !w->prev_live[y];
		*s = (struct water_span){ x0, x1 };
		return;
	}
	s->lo = x0 < s->lo ? x0 : s->lo;
	s->hi = x1 > s->hi ? x1 : s->hi;
}

static void swap_buffers(struct water *w)
{
	int16_t *t = w->cur;
	uint8_t *l = w->live;
	struct water_span *s = w->span;

	w->cur = w->prev;
	w->prev = t;
	w->live = w->prev_live;
	w->prev_live = l;
	w->span = w->prev_span;
	w->prev_span = s;
}

/* live_rows and rows, from rows y0 <= y < y1, outside which no flag is set. */
static void count_rows(struct water *w, int y0, int y1)
{
	int n = 0, lo = y1, hi = y0;

	for (int y = y0; y < y1; y++)
		if (w->live[y] | w->prev_live[y]) {
			n++;
			lo = y < lo ? y : lo;
			hi = y + 1;
		}
	w->live_rows = n;
	w->rows = n ? (struct water_span){ lo, hi } : (struct water_span){ 0, 0 };
}

void water_swap_spans(struct water *w)
{
	int y0 = w->rows.lo > 0 ? w->rows.lo - 1 : 0;
	int y1 = w->rows.hi < w->height ? w->rows.hi + 1 : w->height;

	swap_buffers(w);
	count_rows(w, y0, y1);
}

void water_swap(struct water *w)
{
	swap_buffers(w);
	for (int y = 0; y < w->height; y++)
		w->span[y] = (struct water_span){ 0, w->width };
	count_rows(w, 0, w->height);
}

void water_step(struct water *w)
{
	w->engine->step(w);
}

void water_set_share_min(struct water *w, long cells)
{
	w->share_min = cells;
}

void water_step_pool(struct water *w, struct pool *pool)
{
	if (pool && w->engine->step_pool)
		w->engine->step_pool(w, pool);
	else
		w->engine->step(w);
}

static const char *const shape_names[] = { "disc", "crater", "cosine" };

int water_shape_parse(const char *name, enum water_shape *shape)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(name, shape_names[i])) {
			*shape = (enum water_shape)i;
			return 0;
		}
	return -EINVAL;
}

const char *water_shape_name(enum water_shape shape)
{
	return (unsigned)shape < 3 ? shape_names[shape] : "?";
}

/* The height a stone leaves at distance d (0..1 of its radius) from its centre. */
static int16_t profile(enum water_shape shape, double d, int weight)
{
	switch (shape) {
	case WATER_CRATER:
		return (int16_t)lround(weight * (2 * d - 1));
	case WATER_COSINE:
		return (int16_t)lround(-weight * 0.5 * (1 + cos(M_PI * d)));
	default:
		return (int16_t)-weight;
	}
}

static void put(struct water *w, int cx, int cy, int16_t v)
{
	int16_t *h = &water_row(w, cy)[cx];

	if (w->walls && !w->walls[cy * w->stride + cx])
		return;
	/* a smooth dent deepens what is there; the seeds' shapes overwrite it */
	*h = w->shape == WATER_COSINE && *h < v ? *h : v;
	if (w->engine->set)
		w->engine->set(w, cx, cy, *h);
	water_mark_cells(w, cy, cx, cx + 1);
}

/*
 * In cell coordinates, pixel x covers cells from x / cell to (x + 1) / cell: its centre is
 * (x + 0.5) / cell - 0.5. At cell 1 every quantity is a whole number and the disc is exactly
 * the seeds' (x - cx)^2 + (y - cy)^2 < r^2.
 * Heights are w->scale times the seeds': the renderer divides them back.
 */
long water_drop(struct water *w, int x, int y, int radius, int weight)
{
	weight = weight > INT16_MAX / w->scale ? INT16_MAX : weight * w->scale;

	double c = w->cell, r = (radius ? radius : WATER_AUTO_STONE_CELLS * w->cell) / c;
	double fx = (x + 0.5) / c - 0.5, fy = (y + 0.5) / c - 0.5;
	int x0 = (int)fmax(ceil(fx - r), 0), x1 = (int)fmin(floor(fx + r), w->width - 1);
	int y0 = (int)fmax(ceil(fy - r), 0), y1 = (int)fmin(floor(fy + r), w->height - 1);
	bool hit = false;

	for (int cy = y0; cy <= y1; cy++)
		for (int cx = x0; cx <= x1; cx++) {
			double d2 = (cx - fx) * (cx - fx) + (cy - fy) * (cy - fy);

			if (d2 < r * r) {
				put(w, cx, cy, profile(w->shape, sqrt(d2) / r, weight));
				hit = true;
			}
		}
	/* a stone smaller than a cell still falls into the cell under it */
	if (!hit && fx > -0.5 && fy > -0.5 && fx < w->width - 0.5 && fy < w->height - 0.5)
		put(w, (int)lround(fx), (int)lround(fy), profile(w->shape, 0, weight));
	return 1 + (x1 < x0 || y1 < y0 ? 0 : (long)(x1 - x0 + 1) * (y1 - y0 + 1));
}

/* A trail's ends are kept within this many pixels of 0: the walk's arithmetic then fits in 64
 * bits, whatever the caller passes. */
#define TRAIL_REACH (1 << 28)

/*
 * A trail's line as Bresenham's walk takes it, one pixel along its longer axis per step: step n
 * lies n pixels from the start along that axis and n * across / along pixels along the other,
 * rounded with halves away from the start. Any step is found at once, so a trail walks only
 * the steps whose stones can reach the water.
 */
struct walk {
	int64_t x0, y0;
	int64_t along, across;	/* the line's extent on its longer and its shorter axis */
	int sx, sy;		/* the way x and y go */
	bool steep;		/* longer in y than in x */
};

/* Steps lo <= n <= hi of a walk. */
struct steps {
	int64_t lo, hi;
};

static int64_t within_reach(int v)
{
	return v < -TRAIL_REACH ? -TRAIL_REACH : v > TRAIL_REACH ? TRAIL_REACH : v;
}

static struct walk walk_of(int x0, int y0, int x1, int y1)
{
	int64_t ax = within_reach(x0), ay = within_reach(y0);
	int64_t dx = within_reach(x1) - ax, dy = within_reach(y1) - ay;
	int64_t adx = dx < 0 ? -dx : dx, ady = dy < 0 ? -dy : dy;

	return (struct walk){ .x0 = ax, .y0 = ay, .along = adx >= ady ? adx : ady,
			      .across = adx >= ady ? ady : adx, .sx = dx < 0 ? -1 : 1,
			      .sy = dy < 0 ? -1 : 1, .steep = ady > adx };
}

static void walk_at(const struct walk *k, int64_t n, int *x, int *y)
{
	int64_t m = (2 * k->across * n + k->along) / (2 * k->along);

	*x = (int)(k->x0 + k->sx * (k->steep ? m : n));
	*y = (int)(k->y0 + k->sy * (k->steep ? n : m));
}

/* The first step whose offset across is at least t; along + 1 when none is. */
static int64_t first_across(const struct walk *k, int64_t t)
{
	if (t <= 0)
		return 0;
	if (t > k->across)
		return k->along + 1;
	return (k->along * (2 * t - 1) + 2 * k->across - 1) / (2 * k->across);
}

/* The offsets o that put p0 + way * o within lo..hi. */
static struct steps offsets_within(int64_t p0, int way, int64_t lo, int64_t hi)
{
	return way > 0 ? (struct steps){ lo - p0, hi - p0 } : (struct steps){ p0 - hi, p0 - lo };
}

/* The steps of the walk (from 1) that lie within pad pixels of the water. */
static struct steps steps_near(const struct walk *k, const struct water *w, int pad)
{
	struct steps x = offsets_within(k->x0, k->sx, -pad, (int64_t)w->width * w->cell - 1 + pad);
	struct steps y = offsets_within(k->y0, k->sy, -pad, (int64_t)w->height * w->cell - 1 + pad);
	struct steps along = k->steep ? y : x, across = k->steep ? x : y;
	int64_t lo = first_across(k, across.lo), hi = first_across(k, across.hi + 1) - 1;

	lo = along.lo > lo ? along.lo : lo;
	hi = along.hi < hi ? along.hi : hi;
	return (struct steps){ lo > 1 ? lo : 1, hi < k->along ? hi : k->along };
}

/* The step after n where the trail drops a stone: every spacing-th, and the last; after the
 * last, one past it. */
static int64_t next_stone(const struct walk *k, int64_t n, int spacing)
{
	int64_t next = (n / spacing + 1) * spacing;

	return n >= k->along ? n + 1 : next < k->along ? next : k->along;
}

long water_trail(struct water *w, int x0, int y0, int x1, int y1, int radius, int weight,
		 int spacing)
{
	struct water_trail t = { x0, y0, x1, y1, radius, weight, spacing, 0, false };

	return water_trail_part(w, &t, LONG_MAX);
}

/* Only the stones centred within the water grown by their radius can change it (a cell more
 * for the rounding to cells): the steps beyond are skipped, not walked. */
long water_trail_part(struct water *w, struct water_trail *t, long budget)
{
	struct walk k = walk_of(t->x0, t->y0, t->x1, t->y1);
	int pad = (t->radius ? t->radius : WATER_AUTO_STONE_CELLS * w->cell) + w->cell;
	int spacing = t->spacing > 0 ? t->spacing : WATER_AUTO_TRAIL_CELLS * w->cell;
	struct steps near = steps_near(&k, w, pad);
	long work = 0;

	for (int64_t n = next_stone(&k, t->step > near.lo - 1 ? t->step : near.lo - 1, spacing);
	     n <= near.hi; n = next_stone(&k, n, spacing)) {
		int x, y;

		if (work >= budget)
			return work;
		walk_at(&k, n, &x, &y);
		work += water_drop(w, x, y, t->radius, t->weight);
		t->step = (long)n;
	}
	t->done = true;
	return work;
}

/* xorshift64*: plenty for placing raindrops, and reproducible from a seed in tests. */
static uint32_t rain_random(struct water_rain *rain)
{
	rain->rng ^= rain->rng >> 12;
	rain->rng ^= rain->rng << 25;
	rain->rng ^= rain->rng >> 27;
	return (uint32_t)((rain->rng * 0x2545F4914F6CDD1DULL) >> 32);
}

int water_rain(struct water *w, struct water_rain *rain, double seconds)
{
	int n = 0;

	rain->due += rain->rate * seconds;
	for (; rain->due >= 1.0; rain->due -= 1.0, n++) {
		int x = (int)((uint64_t)rain_random(rain) * w->screen_width >> 32);
		int y = (int)((uint64_t)rain_random(rain) * w->screen_height >> 32);

		water_drop(w, x, y, rain->size ? rain->size : WATER_AUTO_RAIN_CELLS * w->cell,
			   rain->weight);
	}
	return n;
}

int water_clock_steps(long *due, uint64_t frames, int steps_per_second, int fps)
{
	long limit = 2L * steps_per_second + fps;
	int steps;

	if (frames > 3)
		frames = 3;
	*due += (long)frames * steps_per_second;
	if (*due > limit)
		*due = limit;
	steps = (int)(*due / fps);
	*due %= fps;
	return steps;
}

bool water_calm(const struct water *w)
{
	return w->live_rows == 0;
}
