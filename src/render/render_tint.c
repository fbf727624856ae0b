/* render_tint.c - a colour blended over the picture where the water moves fast (seed 004). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

/* Speeds, in the seeds' height units per step, up to which the alpha table reaches, in
 * eighths: a pixel between two cells takes a speed between theirs (render_tint). */
#define TINT_SPEEDS 64
#define TINT_EIGHTHS_BITS 3
#define TINT_STEPS (TINT_SPEEDS << TINT_EIGHTHS_BITS)
#define TINT_ALPHA_MAX 208	/* even the fastest water lets the picture show through */

struct render_tint {
	uint8_t alpha[TINT_STEPS];	/* by |speed| in eighths: how much of the tint, of 256 */
	uint32_t value[3];		/* the tint's red, green and blue in the format's fields */
	struct pixfmt_field field[3];
	uint32_t row[];			/* one line drawn here before it goes to the screen */
};

/* Seed 004's alpha, 255 * v^2 * 0.15, for speeds in quarters of its units: our waves are
 * taller than its springs' displacements, which make a strong stone about 1. eighths: the
 * speed in eighths of a unit; below 1 nothing, as render_calm.c takes a slower cell to tint
 * no pixel. */
static uint8_t alpha_of(int eighths)
{
	long a = 255L * eighths * eighths * 15 / (100 * 16 << 2 * TINT_EIGHTHS_BITS);

	if (eighths >> TINT_EIGHTHS_BITS == 0)
		return 0;
	return (uint8_t)(a > TINT_ALPHA_MAX ? TINT_ALPHA_MAX : a);
}

int render_set_tint(struct render *r, uint32_t rgb)
{
	int longest = r->width > r->height ? r->width : r->height;
	struct render_tint *t;
	uint32_t packed;

	free(r->tint);
	r->tint = NULL;
	if (rgb > 0xffffff)
		return 0;
	t = malloc(sizeof(*t) + (size_t)longest * sizeof(uint32_t));
	if (!t)
		return -ENOMEM;
	for (int v = 0; v < TINT_STEPS; v++)
		t->alpha[v] = alpha_of(v);
	packed = pixfmt_pack(&r->fmt, rgb);
	t->field[0] = r->fmt.red;
	t->field[1] = r->fmt.green;
	t->field[2] = r->fmt.blue;
	for (int i = 0; i < 3; i++)
		t->value[i] = packed >> t->field[i].offset & ((1u << t->field[i].length) - 1);
	r->tint = t;
	return 0;
}

static uint32_t load(const uint8_t *p, int bytes)
{
	switch (bytes) {
	case 2:
		return *(const uint16_t *)p;
	case 3:
		return p[0] | p[1] << 8 | (uint32_t)p[2] << 16;
	default:
		return *(const uint32_t *)p;
	}
}

static void store(uint8_t *p, int bytes, uint32_t v)
{
	switch (bytes) {
	case 2:
		*(uint16_t *)p = (uint16_t)v;
		break;
	case 3:
		p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16);
		break;
	default:
		*(uint32_t *)p = v;
	}
}

static uint32_t blend(const struct render_tint *t, uint32_t px, int a)
{
	for (int i = 0; i < 3; i++) {
		uint32_t mask = (1u << t->field[i].length) - 1;
		int f = (int)(px >> t->field[i].offset & mask);

		f += ((int)t->value[i] - f) * a / 256;
		px = (px & ~(mask << t->field[i].offset)) | (uint32_t)f << t->field[i].offset;
	}
	return px;
}

/* |now - before| of a cell: how fast it moves, in the water's heights per step. */
static inline int cell_speed(const int16_t *cur, const int16_t *prev, int at)
{
	return abs(cur[at] - prev[at]);
}

/* Cell at of rows a (weighing wa) and b (wb) mixed: the speed of a column between them. */
static inline int column_speed(const int16_t *const rows[4], int wa, int wb, int at)
{
	return cell_speed(rows[0], rows[1], at) * wa + cell_speed(rows[2], rows[3], at) * wb;
}

uint8_t *render_tint_row(const struct render *r)
{
	return (uint8_t *)r->tint->row;
}

/*
 * Each pixel takes the speeds of the four cells around it, mixed by the same weights as its
 * slopes (bilinear), in eighths: at 4K a cell is 8 pixels, and the nearest cell's speed alone
 * would tint in blocks of 8 x 8. A mix is never faster than the fastest of its cells: where
 * none moves a unit, no pixel is tinted, as render_calm.c expects.
 */
void render_tint(uint8_t *row, const struct render *r, const struct water *w, int y, int x0,
		 int x1)
{
	const struct render_tint *t = r->tint;
	const int16_t *cur = water_row(w, r->ay.c[y]), *prev = w->prev + (cur - w->cur);
	const int16_t *const rows[4] = { cur, prev, cur + w->stride, prev + w->stride };
	int wb = r->ay.w[y], wa = RENDER_WEIGHT - wb;
	/* to eighths of the seeds' units: scale is a power of two */
	int shift = __builtin_ctz((unsigned)w->scale) + 2 * RENDER_WEIGHT_BITS - TINT_EIGHTHS_BITS;
	uint8_t *px = row + (size_t)x0 * r->bytes;

	/* the pixels of one cell column at a time: they mix the same two columns of speeds */
	for (int x = x0; x < x1;) {
		int c = r->ax.c[x], end = r->from_cell[c + 1] < x1 ? r->from_cell[c + 1] : x1;
		int left = column_speed(rows, wa, wb, c), right = column_speed(rows, wa, wb, c + 1);

		for (; x < end; x++, px += r->bytes) {
			int wr = r->ax.w[x];
			int speed = (left * (RENDER_WEIGHT - wr) + right * wr) >> shift;
			int a = t->alpha[speed < TINT_STEPS ? speed : TINT_STEPS - 1];

			if (a)
				store(px, r->bytes, blend(t, load(px, r->bytes), a));
		}
	}
}
