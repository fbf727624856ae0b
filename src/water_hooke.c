/* water_hooke.c - seed 002's water: heights pulled by their 8 neighbours through a velocity. */
#include <errno.h>
#include <stdlib.h>

#include "water_engine.h"

/* The velocity field, the same shape as the heights (its border stays 0), and the keep mask
 * of a row without walls: every cell -1. */
struct hooke {
	int16_t *mem, *v;
	int16_t *open;
};

static int hooke_init(struct water *w)
{
	struct hooke *k = calloc(1, sizeof(*k));

	if (!k || !(k->mem = calloc((size_t)w->stride * (w->height + 2), sizeof(int16_t))) ||
	    !(k->open = malloc(w->width * sizeof(int16_t)))) {
		if (k)
			free(k->mem);
		free(k);
		return -ENOMEM;
	}
	k->v = k->mem + w->stride + 1;
	for (int x = 0; x < w->width; x++)
		k->open[x] = -1;
	w->state = k;
	return 0;
}

static void hooke_free(struct water *w)
{
	struct hooke *k = w->state;

	if (k) {
		free(k->mem);
		free(k->open);
	}
	free(k);
	w->state = NULL;
}

static void hooke_clear(struct water *w)
{
	struct hooke *k = w->state;

	for (int y = 0; y < w->height; y++)
		for (int x = 0; x < w->width; x++)
			k->v[y * w->stride + x] = 0;
}

/* heavy stones with little damping can outgrow int16: saturate, never wrap into noise that
 * would never calm (below that, exactly the seed's int arithmetic) */
static inline int saturate(int v)
{
	return v > INT16_MAX ? INT16_MAX : v < -INT16_MAX ? -INT16_MAX : v;
}

/*
 * The seed's x -= x >> shift, except that a positive x below 2^shift loses 1 as well. The
 * seed's shift takes at least 1 from every negative value but nothing from those positive
 * ones: that bias pumps its water up into a mound that never calms (one stone of -2048 in a
 * 480x270 field: heights 0..767, mean +460, after 3000 steps). Taking that 1 lets every wave
 * calm to exactly 0; from 2^shift up the decay is the seed's.
 */
static inline int decay(int x, int shift)
{
	int d = x >> shift;

	return x - (d ? d : x > 0);
}

/*
 * Row y of the next step: the force a = (16 h - (3 x edge neighbours + corners)) / 16 with
 * C's division, v -= a, v -= v >> vshift, next = h + v, next -= next >> hshift (with decay's
 * one change). Returns whether the row's heights or velocities came out non-zero.
 */
static uint8_t step_row(const int16_t *restrict up, const int16_t *restrict mid,
			const int16_t *restrict down, int16_t *restrict out, int16_t *restrict v,
			const int16_t *restrict keep, int width, int vshift, int hshift)
{
	int16_t any = 0;

	for (int x = 0; x < width; x++) {
		int edges = up[x] + down[x] + mid[x - 1] + mid[x + 1];
		int corners = up[x - 1] + up[x + 1] + down[x - 1] + down[x + 1];
		int a = (16 * mid[x] - (3 * edges + corners)) / 16;
		int vel = v[x] - a, h;

		/* on a wall the height is 0 already: a velocity of 0 keeps it there */
		vel = saturate(decay(vel, vshift)) & keep[x];
		h = saturate(decay(mid[x] + vel, hshift));
		v[x] = (int16_t)vel;
		out[x] = (int16_t)h;
		any |= (int16_t)(vel | h);
	}
	return any != 0;
}

static void hooke_step(struct water *w)
{
	struct hooke *k = w->state;
	int stride = w->stride;

	for (int y = 0; y < w->height; y++) {
		const int16_t *mid = w->cur + y * stride;
		const int16_t *keep = w->walls ? w->walls + y * stride : k->open;

		/* live[y] covers row y's velocity too: a skipped row stays all 0 */
		if (!(w->live[y - 1] | w->live[y] | w->live[y + 1] | w->prev_live[y]))
			continue;
		w->prev_live[y] = step_row(mid - stride, mid, mid + stride, w->prev + y * stride,
					   k->v + y * stride, keep, w->width,
					   w->tuning.velocity_shift, w->tuning.height_shift);
	}
	water_swap(w);
}

const struct water_engine water_hooke = {
	.name = "hooke",
	.init = hooke_init,
	.free = hooke_free,
	.clear = hooke_clear,
	.step = hooke_step,
};
