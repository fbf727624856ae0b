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

/* Differences beyond this are never calm, and the vector tests' 16-bit lanes, saturated,
 * keep them so. */
#define CALM_MOST 32766

/*
 * A pixel's slope mixes the slopes of its cells (render_row.c), each of them left - right or
 * up - down of a cell row, mixed with the next row: every mix rounds down between the two it
 * mixes, so with every such difference in [-lo, hi] the slopes lie in [-lo, hi] *
 * RENDER_WEIGHT. The move (g * shift_mul + MOVE_HALF) >> MOVE_SHIFT is 0 for -MOVE_HALF <=
 * g * shift_mul < MOVE_HALF, and the shade likewise for -half <= sum < half, its sum linear in
 * both slopes and so at its extremes at the corners of their range: the pixel is the
 * picture's own. The move's rounding is lopsided: it stays calm one difference further down
 * than up where MOVE_HALF is a whole number of differences (cell 4, 8...).
 */
static bool calm_within(const struct render *r, long lo, long hi)
{
	long g0 = -lo * RENDER_WEIGHT, g1 = hi * RENDER_WEIGHT, m = r->shift_mul;
	long half = 1L << (r->shade_shift - 1);

	if (lo > CALM_MOST || hi > CALM_MOST || g0 * m < -MOVE_HALF || g1 * m >= MOVE_HALF)
		return false;
	for (int corner = 0; corner < 4; corner++) {
		long sum = (corner & 1 ? g1 : g0) * r->light_x + (corner & 2 ? g1 : g0) * r->light_y;

		if (sum < -half || sum >= half)
			return false;
	}
	return true;
}

void render_calm_window(const struct render *r, int *lo, int *hi)
{
	bool grew = !r->direct;	/* the seeds' offsets: a difference of 1 moves a pixel */

	*lo = *hi = 0;
	while (grew) {
		grew = false;
		if (calm_within(r, *lo + 1, *hi))
			++*lo, grew = true;
		if (calm_within(r, *lo, *hi + 1))
			++*hi, grew = true;
	}
}

static inline void mark(uint64_t *bits, int block)
{
	bits[block >> 6] |= 1ull << (block & 63);
}

/*
 * The blocks whose pixels mix a loud cell: its own and, for the first cell of a block, the one
 * before (whose last pixels mix it as their next cell). So cells c + i with bit i of loud or
 * of loud >> 1 (the next cell loud) mark their blocks, each block once, and cell c - 1 its own
 * where cell c is loud.
 */
static void mark_cells(const struct render *r, uint64_t *bits, int c, uint64_t loud)
{
	uint64_t m = loud | loud >> 1;

	if ((loud & 1) && c > 0)
		mark(bits, r->cell_block[c - 1]);
	while (m) {
		int b = r->cell_block[c + __builtin_ctzll(m)];
		int next = (b + 1) * r->block_cells - c;	/* the next block's first cell */

		mark(bits, b);
		m = next < 64 ? m & ~0ull << next : 0;
	}
}

/* The loud cells of row j in [lo, hi) into bits: 64 at a time by the path's kernel. */
static void loud_cells(const struct render *r, const struct water *w, int j, int lo, int hi,
		       uint64_t *bits)
{
	const int16_t *p = water_row(w, j), *q = w->prev + (p - w->cur);
	int fast = r->tint ? (w->scale - 1 < 65535 ? w->scale - 1 : 65535) : -1;

	for (int c = lo; c < hi; c += 64) {
		int n = hi - c < 64 ? hi - c : 64;

		mark_cells(r, bits, c,
			   r->loud_cells(p + c, q + c, w->stride, n, r->calm_lo, r->calm_hi, fast));
	}
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
