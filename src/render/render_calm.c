/* render_calm.c - where the water is too calm to show: cells whose slopes move no pixel,
 * shade none and tint none, gathered into blocks of columns per cell row. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "render_calm.h"
#include "render/kernels/render_row.h"

/* A block is about this many pixels wide: runs of a few blocks feed the vector kernels, and a
 * ring's front crossing a row draws a little more than its own width. */
#define BLOCK_PIXELS 16
int render_calm_init(struct render *r)
{
	int g = r->grid_width, k = (BLOCK_PIXELS + r->cell / 2) / r->cell;
	int most = 64 * RENDER_BLOCK_WORDS;

	r->block_cells = k < 1 ? 1 : k;
	if ((g + r->block_cells - 1) / r->block_cells > most)
		r->block_cells = (g + most - 1) / most;
	r->blocks = (g + r->block_cells - 1) / r->block_cells;
	r->block_words = (r->blocks + 63) / 64;
	r->block_x = calloc((size_t)r->blocks + 1, sizeof(*r->block_x));
	r->cell_block = calloc((size_t)g, sizeof(*r->cell_block));
	r->cell_loud = calloc((size_t)r->grid_height * r->block_words, sizeof(uint64_t));
	r->draws = calloc((size_t)r->height * r->block_words, sizeof(uint64_t));
	for (int i = 0; i < RENDER_PAGES; i++)
		r->loud[i] = calloc((size_t)r->height * r->block_words, sizeof(uint64_t));
	if (!r->block_x || !r->cell_block || !r->cell_loud || !r->draws || !r->loud[0] ||
	    !r->loud[1])
		return -ENOMEM;
	for (int b = 0; b <= r->blocks; b++) {
		int c = b * r->block_cells;

		r->block_x[b] = b == r->blocks ? r->width : r->from_cell[c < g ? c : g];
	}
	for (int c = 0; c < g; c++)
		r->cell_block[c] = (uint16_t)(c / r->block_cells);
	return 0;
}

/*
 * A pixel's slope mixes the slopes of its cells (render_row.c), each of them left - right or
 * up - down of a cell row, mixed with the next row: with every such difference within +-t,
 * the mixed slope lies within +-t * RENDER_WEIGHT. Then the move rounds to 0 while
 * |slope| * shift_mul < MOVE_HALF, and the shade while |slope_x * light_x + slope_y *
 * light_y| is below half of 1 << shade_shift: the pixel is the picture's own.
 */
int render_calm_max(const struct render *r)
{
	long move = (long)RENDER_WEIGHT * r->shift_mul;
	long shade = (long)RENDER_WEIGHT * (labs(r->light_x) + labs(r->light_y));
	long half = 1L << (r->shade_shift - 1);
	int t = 0;

	if (r->direct)	/* the seeds' offsets: a difference of 1 moves a pixel */
		return 0;
	while (move * (t + 1) < MOVE_HALF && shade * (t + 1) < half)
		t++;
	return t;
}

typedef int16_t v8s __attribute__((vector_size(16)));
typedef uint16_t v8u __attribute__((vector_size(16)));

static inline v8s load8(const int16_t *p)
{
	v8s v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Lanes where a and b lie more than t apart, without overflow: the larger less the smaller,
 * unsigned. */
static inline v8s apart(v8s a, v8s b, v8u t)
{
	v8s gt = a > b;
	v8u hi = (v8u)((a & gt) | (b & ~gt)), lo = (v8u)((b & gt) | (a & ~gt));

	return (v8s)(hi - lo > t);
}

static inline int apart1(int a, int b, int t)
{
	return a - b > t || b - a > t;
}

/* A loud cell c: the blocks whose pixels mix it, its own and, for the first cell of a block,
 * the one before (whose last pixels mix it as their next cell). */
static inline void mark(const struct render *r, uint64_t *bits, int c)
{
	int lo = r->cell_block[c > 0 ? c - 1 : 0], hi = r->cell_block[c];

	bits[lo >> 6] |= 1ull << (lo & 63);
	bits[hi >> 6] |= 1ull << (hi & 63);
}

/* The loud cells of row j in [lo, hi) into bits: 8 at a time, the rare loud ones one by one. */
static void loud_cells(const struct render *r, const struct water *w, int j, int lo, int hi,
		       uint64_t *bits)
{
	const int16_t *p = water_row(w, j), *q = w->prev + (p - w->cur);
	ptrdiff_t s = w->stride;
	int t = r->calm_max, fast = r->tint ? w->scale - 1 : -1, c = lo;
	v8u tv = (v8u){ 0 } + (uint16_t)t, fv = (v8u){ 0 } + (uint16_t)(fast < 0 ? 0 : fast);
	const v8s lane_bit = { 1, 2, 4, 8, 16, 32, 64, 128 };

	for (; c + 8 <= hi; c += 8) {
		v8s m = apart(load8(p + c - 1), load8(p + c + 1), tv) |
			apart(load8(p + c - s), load8(p + c + s), tv);
		uint64_t any[2];

		if (fast >= 0)
			m |= apart(load8(p + c), load8(q + c), fv);
		memcpy(any, &m, sizeof(any));
		if (!(any[0] | any[1]))
			continue;
		/* the loud lanes as 8 bits, visited by their lowest set bit: a lane by lane test
		 * mispredicts on ragged ring fronts (half of this function's time) */
		m &= lane_bit;
		memcpy(any, &m, sizeof(any));
		for (uint64_t t = any[0] | any[1], l = (t | t >> 32 | t >> 16 | t >> 48) & 0xff; l;
		     l &= l - 1)
			mark(r, bits, c + __builtin_ctzll(l));
	}
	for (; c < hi; c++)
		if (apart1(p[c - 1], p[c + 1], t) || apart1(p[c - s], p[c + s], t) ||
		    (fast >= 0 && apart1(p[c], q[c], fast)))
			mark(r, bits, c);
}

void render_calm_rows(struct render *r, const struct water *w, int j0, int j1)
{
	int words = r->block_words, g = r->grid_width;

	for (int j = j0; j < j1; j++) {
		uint64_t *bits = r->cell_loud + (size_t)j * words;
		int lo = g, hi = 0;

		memset(bits, 0, (size_t)words * sizeof(*bits));
		/* a cell's slopes read its neighbours in the rows above and below it too; its
		 * tint, its height a step before */
		for (int k = j - 1; k <= j + 1; k++)
			if (w->live[k] && w->span[k].lo < w->span[k].hi) {
				lo = w->span[k].lo - 1 < lo ? w->span[k].lo - 1 : lo;
				hi = w->span[k].hi + 1 > hi ? w->span[k].hi + 1 : hi;
			}
		if (r->tint && w->prev_live[j] && w->prev_span[j].lo < w->prev_span[j].hi) {
			lo = w->prev_span[j].lo < lo ? w->prev_span[j].lo : lo;
			hi = w->prev_span[j].hi > hi ? w->prev_span[j].hi : hi;
		}
		lo = lo < 0 ? 0 : lo;
		hi = hi > g ? g : hi;
		if (lo < hi)
			loud_cells(r, w, j, lo, hi, bits);
	}
}
