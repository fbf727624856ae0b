/* water_hooke.c - seed 002's water: heights pulled by their 8 neighbours through a velocity. */
#include <errno.h>
#include <stdlib.h>

#include "water.h"
#include "water_engine.h"
#include "water/kernels/water_hooke_kernel.h"

/* The velocity field, the same shape as the heights (its border stays 0), and the keep mask
 * of a row without walls: every cell -1. */
struct hooke {
	int16_t *mem, *v;
	int16_t *open;
	hooke_row_fn *row;	/* the row step of the CPU's path */
};

static int hooke_init(struct water *w)
{
	struct hooke *k = calloc(1, sizeof(*k));
	enum cpu_simd simd;

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
	cpu_simd_choose(&simd);
	if (hooke_row_for(simd, &k->row) < 0)
		k->row = hooke_row_scalar;
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
		w->prev_live[y] = k->row(mid - stride, mid, mid + stride, w->prev + y * stride,
					 k->v + y * stride, keep, w->width, w->tuning.velocity_shift,
					 w->tuning.height_shift);
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
