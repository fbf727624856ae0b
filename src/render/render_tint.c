/* render_tint.c - a colour blended over the picture where the water moves fast (seed 004). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

/* Speeds, in the seeds' height units per step, up to which the alpha table reaches. */
#define TINT_SPEEDS 64
#define TINT_ALPHA_MAX 208	/* even the fastest water lets the picture show through */

struct render_tint {
	uint8_t alpha[TINT_SPEEDS];	/* by |speed|: how much of the tint, of 256 */
	uint32_t value[3];		/* the tint's red, green and blue in the format's fields */
	struct pixfmt_field field[3];
	uint32_t row[];			/* one line drawn here before it goes to the screen */
};

/* Seed 004's alpha, 255 * v^2 * 0.15, for speeds in quarters of its units: our waves are
 * taller than its springs' displacements, which make a strong stone about 1. */
static uint8_t alpha_of(int speed)
{
	long a = 255L * speed * speed * 15 / (100 * 16);

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
	for (int v = 0; v < TINT_SPEEDS; v++)
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

/* The cell nearest to a logical position along one axis. */
static int nearest(const struct render_axis *a, int p)
{
	return a->c[p] + (a->w[p] >= RENDER_WEIGHT / 2);
}

uint8_t *render_tint_row(const struct render *r)
{
	return (uint8_t *)r->tint->row;
}

void render_tint(uint8_t *row, const struct render *r, const struct water *w, int y, int x0,
		 int x1)
{
	const struct render_tint *t = r->tint;
	const int16_t *cur = water_row(w, nearest(&r->ay, y));
	const int16_t *prev = w->prev + (cur - w->cur);
	uint8_t *px = row + (size_t)x0 * r->bytes;

	for (int x = x0; x < x1; x++, px += r->bytes) {
		int at = nearest(&r->ax, x);
		int speed = abs(cur[at] - prev[at]) / w->scale;
		int a = t->alpha[speed < TINT_SPEEDS ? speed : TINT_SPEEDS - 1];

		if (a)
			store(px, r->bytes, blend(t, load(px, r->bytes), a));
	}
}
